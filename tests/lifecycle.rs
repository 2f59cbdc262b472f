//! Sessions as A-User Storage: what goes in comes back out (round trip), turns are
//! appended one at a time, sessions are deleted and replaced, the store is backed up,
//! and a killed process leaves every session whole or absent.
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where skips and findings are reported.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{
    examples_dir, fixture, fixture_path, ihigraph, ingest, session_quad_count, store_dump,
};
use ihigraph::CheckOptions;
use ihigraph::HistoryStore;
use ihigraph::StoreError;
use ihigraph::check_document;
use ihigraph::ingest::{IngestError, NewSession, append_turn};
use predicates::str::contains;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn documents() -> Vec<Value> {
    let mut documents: Vec<Value> = [
        "trip-planning.json",
        "code-review-abc.json",
        "support-ticket-fr.json",
        "research-notes.json",
    ]
    .iter()
    .map(|name| {
        serde_json::from_str(&std::fs::read_to_string(examples_dir().join(name)).unwrap()).unwrap()
    })
    .collect();
    documents.push(fixture("valid/complete.json"));
    documents.push(fixture("valid/numbers-and-strings.json"));
    documents
}

/// The document as a JSON value: numbers compare by their text, so `2.0` ≠ `2`.
fn exported(store: &HistoryStore, id: &str) -> Value {
    serde_json::to_value(store.history(id).unwrap()).unwrap()
}

#[test]
fn every_document_comes_back_as_it_went_in() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    for document in documents() {
        ingest(&store, &document);
    }
    for document in documents() {
        let id = document["SessionID"].as_str().unwrap();
        let back = exported(&store, id);
        assert_eq!(back, document, "{id}");
        // (Numbers compare by their text, so this is to the last digit; members compare
        // as a map, in any order.)
        assert!(
            check_document(&back, CheckOptions::default())
                .errors()
                .next()
                .is_none()
        );
    }
    let odd = fixture("valid/numbers-and-strings.json");
    let back = exported(&store, odd["SessionID"].as_str().unwrap());
    assert_eq!(back["TurnCount"].to_string(), "2.0");
    assert_eq!(back["Turns"][0]["TurnIndex"].to_string(), "-0");
    assert_eq!(back["Turns"][1]["BKNResponse"]["neg"].to_string(), "-0.0");
    // serde_json writes an exponent with its sign: 1e0 is read as 1e+0, digits kept.
    assert_eq!(back["Turns"][1]["TurnIndex"].to_string(), "1e+0");
    assert_eq!(
        back["Turns"][1]["BKNResponse"]["big"].to_string(),
        "123456789012345678901234567890"
    );
    assert!(matches!(
        store.history("nope"),
        Err(StoreError::UnknownSession { .. })
    ));
}

#[test]
fn export_pgm_ihi_moves_a_store_to_another() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    ihigraph(&first)
        .arg("ingest")
        .arg(examples_dir())
        .arg(fixture_path("valid"))
        .assert()
        .success();
    let lines = ihigraph(&first)
        .args(["export", "--format", "pgm-ihi"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(lines.clone()).unwrap().lines().count(), 6);
    ihigraph(&second)
        .args(["ingest", "-"])
        .write_stdin(lines)
        .assert()
        .success()
        .stdout(contains("ingested 6 sessions"));
    let sessions = |dump: Vec<String>| -> Vec<String> {
        dump.into_iter()
            .filter(|q| q.contains("<https://w3id.org/ihigraph/id/graph/"))
            // The fingerprint records say when they were taken.
            .filter(|q| !q.contains("<https://w3id.org/ihigraph/id/fingerprints>"))
            .collect()
    };
    assert_eq!(sessions(store_dump(&first)), sessions(store_dump(&second)));
    // One session, indented, passes validate.
    let one = ihigraph(&first)
        .args(["export", "--format", "pgm-ihi", "--session", "abc"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let original: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("code-review-abc.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&one).unwrap(), original);
    ihigraph(&first)
        .args(["validate", "-"])
        .write_stdin(one)
        .assert()
        .success();
    ihigraph(&first)
        .args(["export", "--format", "pgm-ihi", "--session", "nope"])
        .assert()
        .code(1)
        .stderr(contains("no session \"nope\""));
}

/// The document with only its first `count` turns.
fn truncated(document: &Value, count: usize) -> Value {
    let mut document = document.clone();
    document["Turns"].as_array_mut().unwrap().truncate(count);
    document["TurnCount"] = json!(count);
    document
}

#[test]
fn appending_turns_gives_the_session_ingesting_the_whole_document_gives() {
    let full: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("code-review-abc.json")).unwrap(),
    )
    .unwrap();
    let whole = HistoryStore::in_memory(&Default::default()).unwrap();
    ingest(&whole, &full);
    let grown = HistoryStore::in_memory(&Default::default()).unwrap();
    ingest(&grown, &truncated(&full, 1));
    for position in 1..4 {
        let outcome = append_turn(
            &grown,
            "abc",
            &full["Turns"][position],
            None,
            CheckOptions::default(),
        )
        .unwrap();
        assert_eq!(outcome.turn_count, position + 1);
        assert!(!outcome.created);
    }
    assert_eq!(exported(&grown, "abc"), full);
    // Same quads: the results in turns 1 and 2 link to the invocations of turns 0 and 1.
    let quads = |store: &HistoryStore| {
        let mut nquads = Vec::new();
        store
            .export(&mut nquads, ihigraph::ExportFormat::NQuads, None)
            .unwrap();
        let mut quads: Vec<String> = String::from_utf8(nquads)
            .unwrap()
            .lines()
            .map(|q| q.trim_end_matches(" .").to_owned())
            .filter(|q| !q.contains("ontology"))
            .collect();
        quads.sort();
        quads
    };
    let whole_quads = quads(&whole);
    assert_eq!(
        quads(&grown)
            .iter()
            .filter(|q| !q.contains("_:"))
            .collect::<Vec<_>>(),
        whole_quads
            .iter()
            .filter(|q| !q.contains("_:"))
            .collect::<Vec<_>>()
    );
    assert!(whole_quads.iter().any(|q| q.contains("turn/1/tool-result/0> <http://www.w3.org/ns/prov#wasGeneratedBy> <https://w3id.org/ihigraph/id/conversation/abc/turn/0/tool-invocation/0>")));
}

#[test]
fn a_turn_is_checked_as_in_a_document_and_a_refusal_changes_nothing() {
    let full: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("code-review-abc.json")).unwrap(),
    )
    .unwrap();
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    ingest(&store, &truncated(&full, 2));
    let before = exported(&store, "abc");
    let mut skipping = full["Turns"][3].clone();
    skipping["TurnIndex"] = json!(3);
    let Err(IngestError::Refused { problems }) =
        append_turn(&store, "abc", &skipping, None, CheckOptions::default())
    else {
        panic!("a turn with the wrong index was accepted")
    };
    assert_eq!(problems[0].pointer, "/Turns/2/TurnIndex");
    assert!(
        problems[0].to_string().contains("turn-index"),
        "{}",
        problems[0]
    );
    let mut bad_role = full["Turns"][2].clone();
    bad_role["Role"] = json!("Bot");
    let Err(IngestError::Refused { problems }) =
        append_turn(&store, "abc", &bad_role, None, CheckOptions::default())
    else {
        panic!("a turn with a bad role was accepted")
    };
    assert_eq!(problems[0].pointer, "/Turns/2/Role");
    assert_eq!(exported(&store, "abc"), before);
    assert!(matches!(
        append_turn(
            &store,
            "nope",
            &full["Turns"][0],
            None,
            CheckOptions::default()
        ),
        Err(IngestError::Store(StoreError::UnknownSession { .. }))
    ));
}

#[test]
fn append_create_starts_a_session() {
    let full: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("code-review-abc.json")).unwrap(),
    )
    .unwrap();
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let new = NewSession {
        m_instance_id: "m".to_owned(),
        u_environment_id: "u".to_owned(),
        data_exchange_metadata: json!({"Header": "PTF-DEM-V1.0", "DataID": "d", "Source": [{"AIMID": "PGM-AUS"}]}),
    };
    let outcome = append_turn(
        &store,
        "fresh",
        &full["Turns"][0],
        Some(&new),
        CheckOptions::default(),
    )
    .unwrap();
    assert!(outcome.created);
    let outcome = append_turn(
        &store,
        "fresh",
        &full["Turns"][1],
        Some(&new),
        CheckOptions::default(),
    )
    .unwrap();
    assert!(!outcome.created);
    let back = exported(&store, "fresh");
    assert_eq!(back["TurnCount"], json!(2));
    assert_eq!(back["SessionStartTime"], full["Turns"][0]["Timestamp"]);
    assert_eq!(back["Turns"], json!([full["Turns"][0], full["Turns"][1]]));
}

#[test]
#[allow(clippy::too_many_lines)] // One scenario, step by step, as a user runs it.
fn append_delete_sessions_and_backup_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let full: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("code-review-abc.json")).unwrap(),
    )
    .unwrap();
    let turn_file = |position: usize| {
        let path = dir.path().join(format!("turn-{position}.json"));
        std::fs::write(&path, full["Turns"][position].to_string()).unwrap();
        path
    };
    // Unknown session; --create without what it needs.
    ihigraph(&store)
        .args(["append", "--session", "abc"])
        .arg(turn_file(0))
        .assert()
        .code(1)
        .stderr(contains("no session \"abc\""));
    ihigraph(&store)
        .args([
            "append",
            "--session",
            "abc",
            "--create",
            "--m-instance",
            "m",
        ])
        .arg(turn_file(0))
        .assert()
        .code(2)
        .stderr(contains("append --create needs"));
    ihigraph(&store)
        .args([
            "append",
            "--session",
            "abc",
            "--create",
            "--m-instance",
            "m",
            "--u-environment",
            "u",
            "--data-id",
            "d",
            "--source-aim",
            "PGM-AUS",
        ])
        .arg(turn_file(0))
        .assert()
        .success()
        .stdout("started session \"abc\": 1 turn\n");
    ihigraph(&store)
        .args(["append", "--session", "abc", "-"])
        .write_stdin(full["Turns"][1].to_string())
        .assert()
        .success()
        .stdout("appended to session \"abc\": 2 turns\n");
    // A refused turn: exit 1, the pointer, the store unchanged.
    let before = store_dump(&store);
    ihigraph(&store)
        .args(["append", "--session", "abc"])
        .arg(turn_file(3))
        .assert()
        .code(1)
        .stderr(contains("/Turns/2/TurnIndex").and(contains("refused: nothing was stored")));
    ihigraph(&store)
        .args(["append", "--session", "abc", "-"])
        .write_stdin("{\"TurnIndex\": 2,")
        .assert()
        .code(1)
        .stderr(contains("<stdin>"));
    assert_eq!(store_dump(&store), before);
    // Sessions, backup, delete.
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir().join("trip-planning.json"))
        .assert()
        .success();
    ihigraph(&store)
        .args(["sessions", "--format", "csv"])
        .assert()
        .success()
        .stdout(
            contains(
                "session,mInstance,uEnvironment,startTime,turnCount,lastTurnTime,branchOf,forkedAfterTurn\r\n",
            )
                .and(contains("abc,m,u,")),
        );
    let copy = dir.path().join("copy");
    ihigraph(&store).arg("backup").arg(&copy).assert().success();
    let exports = |store: &Path| {
        ihigraph(store)
            .args(["export", "--format", "pgm-ihi"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    assert_eq!(exports(&copy), exports(&store));
    ihigraph(&store)
        .arg("backup")
        .arg(&copy)
        .assert()
        .failure()
        .stderr(contains("cannot back up the store"));
    ihigraph(&store)
        .args(["delete", "--session", "abc"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with("deleted session \"abc\"\n"))
        .stdout(contains(
            "check: no triple in the store's named graphs mentions the session",
        ));
    ihigraph(&store)
        .args(["delete", "--session", "abc"])
        .assert()
        .code(1);
    ihigraph(&store).args(["delete", "--all"]).assert().code(2);
    ihigraph(&store)
        .args(["delete", "--all", "--yes"])
        .assert()
        .success()
        .stdout("deleted 1 session and the memory made from them\n");
    assert_eq!(session_quad_count(&store), 0);
    // The backup still has both.
    assert_eq!(
        String::from_utf8(exports(&copy)).unwrap().lines().count(),
        2
    );
}

use predicates::prelude::PredicateBooleanExt;

/// A small deterministic generator, for kill times.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound
    }
}

/// Runs the command and kills it (SIGKILL) after `delay`, or lets it finish.
fn run_and_kill(mut command: std::process::Command, stdin: Option<&[u8]>, delay: Duration) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    std::thread::sleep(delay);
    let _ = child.kill();
    child.wait().unwrap();
}

fn binary(store: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("ihigraph"));
    command
        .arg("--store")
        .arg(store)
        .env_remove("IHIGRAPH_STORE");
    command
}

#[test]
fn a_killed_ingest_leaves_each_session_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let template: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("support-ticket-fr.json")).unwrap(),
    )
    .unwrap();
    let mut inputs = std::collections::HashMap::new();
    let mut lines = String::new();
    for index in 0..60 {
        let mut document = template.clone();
        document["SessionID"] = json!(format!("kill-{index:03}"));
        lines.push_str(&document.to_string());
        lines.push('\n');
        inputs.insert(format!("kill-{index:03}"), document);
    }
    let input = dir.path().join("sessions.jsonl");
    std::fs::write(&input, &lines).unwrap();
    // Kill times spread over one whole run, timed here (machines differ).
    let started = std::time::Instant::now();
    let mut command = binary(&dir.path().join("store-timed"));
    command
        .args(["ingest", "--batch-quads", "1000"])
        .arg(&input);
    assert!(command.output().unwrap().status.success());
    let whole = u64::try_from(started.elapsed().as_millis())
        .unwrap()
        .max(10);
    let mut random = Lcg(7);
    let mut partial_runs = 0;
    let mut stored_in_partial_runs = 0;
    for run in 0..20 {
        let store = dir.path().join(format!("store-{run}"));
        let mut command = binary(&store);
        // Small batches, so that a kill can fall between two of them.
        command
            .args(["ingest", "--batch-quads", "1000"])
            .arg(&input);
        run_and_kill(command, None, Duration::from_millis(random.below(whole)));
        let store = HistoryStore::open(&store, &Default::default()).unwrap();
        let sessions = store.sessions().unwrap();
        if sessions.len() < inputs.len() {
            partial_runs += 1;
            stored_in_partial_runs += sessions.len();
        }
        for (id, _) in sessions {
            assert_eq!(
                exported(&store, &id),
                inputs[&id],
                "run {run}: session {id} is not whole"
            );
        }
    }
    eprintln!(
        "{partial_runs} of 20 runs were killed before the end (a whole run: {whole} ms); they had stored {stored_in_partial_runs} whole sessions"
    );
    assert!(
        stored_in_partial_runs > 0,
        "some killed runs should have stored sessions"
    );
    assert!(
        partial_runs > 0,
        "the kill times should interrupt some runs"
    );
}

#[test]
fn a_killed_append_leaves_the_old_or_the_new_turn_count() {
    let dir = tempfile::tempdir().unwrap();
    let full: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("support-ticket-fr.json")).unwrap(),
    )
    .unwrap();
    let store_dir = dir.path().join("store");
    {
        let store = HistoryStore::open(&store_dir, &Default::default()).unwrap();
        ingest(&store, &truncated(&full, 1));
    }
    // Kill times spread over one and a half uninterrupted appends, timed here.
    let whole = {
        let copy = dir.path().join("timed");
        HistoryStore::open(&store_dir, &Default::default())
            .unwrap()
            .backup(&copy)
            .unwrap();
        let started = std::time::Instant::now();
        let mut command = binary(&copy);
        command
            .args(["append", "--session", "support-2026-0117-fr", "-"])
            .stdin(Stdio::piped());
        let mut child = command.stdout(Stdio::null()).spawn().unwrap();
        {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(full["Turns"][1].to_string().as_bytes())
                .unwrap();
        }
        assert!(child.wait().unwrap().success());
        u64::try_from(started.elapsed().as_millis())
            .unwrap()
            .max(10)
            * 3
            / 2
    };
    let mut random = Lcg(11);
    let mut interrupted = 0;
    for run in 0..20 {
        let current = {
            let store = HistoryStore::open(&store_dir, &Default::default()).unwrap();
            exported(&store, "support-2026-0117-fr")["Turns"]
                .as_array()
                .unwrap()
                .len()
        };
        let next = if current == 5 {
            // Start again from one turn, so that every run appends.
            let store = HistoryStore::open(&store_dir, &Default::default()).unwrap();
            ingest(&store, &truncated(&full, 1));
            1
        } else {
            current
        };
        let mut command = binary(&store_dir);
        command.args(["append", "--session", "support-2026-0117-fr", "-"]);
        run_and_kill(
            command,
            Some(full["Turns"][next].to_string().as_bytes()),
            Duration::from_millis(random.below(whole)),
        );
        let store = HistoryStore::open(&store_dir, &Default::default()).unwrap();
        let after = exported(&store, "support-2026-0117-fr");
        let turns = after["Turns"].as_array().unwrap().len();
        assert!(
            turns == next || turns == next + 1,
            "run {run}: {turns} turns after appending turn {next}"
        );
        interrupted += usize::from(turns == next);
        assert_eq!(after, truncated(&full, turns), "run {run}");
    }
    eprintln!(
        "{interrupted} of 20 appends were killed before their commit (an append: {} ms)",
        whole * 2 / 3
    );
    assert!(
        interrupted > 0 && interrupted < 20,
        "the kill times should catch both outcomes"
    );
}

#[test]
fn ctrl_c_stops_ingest_after_the_current_batch() {
    let dir = tempfile::tempdir().unwrap();
    let template = common::example("support-ticket-fr.json");
    let mut lines = String::new();
    for index in 0..2000 {
        let mut document = template.clone();
        document["SessionID"] = json!(format!("int-{index:03}"));
        lines.push_str(&document.to_string());
        lines.push('\n');
    }
    let input = dir.path().join("sessions.jsonl");
    std::fs::write(&input, &lines).unwrap();
    let store_dir = dir.path().join("store");
    let mut command = binary(&store_dir);
    let child = command
        .args(["ingest", "--batch-quads", "2000"])
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once some sessions are stored (the store's lock file is then there).
    std::thread::sleep(Duration::from_millis(1500));
    let signal = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signal.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(130), "{stdout}{stderr}");
    assert!(stderr.contains("interrupted "), "{stderr}");
    let reported: usize = stdout
        .strip_prefix("ingested ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(reported < 2000, "{stdout}");
    if reported > 0 {
        assert!(
            stderr.contains(&format!(
                "interrupted after {}:{reported}:",
                input.display()
            )),
            "{stderr}"
        );
    }
    let store = HistoryStore::open(&store_dir, &Default::default()).unwrap();
    assert_eq!(store.session_count().unwrap(), reported);
    for (id, _) in store.sessions().unwrap() {
        let mut expected = template.clone();
        expected["SessionID"] = json!(id);
        assert_eq!(exported(&store, &id), expected);
    }
}
