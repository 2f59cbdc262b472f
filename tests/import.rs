//! Importers through the command line: every fixture of `tests/fixtures/import/FORMAT/`
//! converts to documents that validate, ingests, and exports back as converted; `--from
//! auto` recognises each one; files named `broken-*` are refused whole, with their place,
//! while the other files of the same run are stored.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use assert_cmd::Command;
use common::{fixture_path, ihigraph};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Every importer fixture: (format, path), good ones and broken ones.
fn fixtures() -> Vec<(String, PathBuf)> {
    common::import_fixtures(false)
}

fn is_broken(path: &Path) -> bool {
    path.file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("broken-")
}

fn bin() -> Command {
    let mut command = Command::cargo_bin("ihigraph").unwrap();
    command.env_remove("IHIGRAPH_STORE");
    command
}

/// The documents `convert` writes: one indented document or JSON Lines.
fn converted(format: &str, path: &Path) -> Vec<Value> {
    let output = bin()
        .args(["convert", "--from", format, "--session-id", "fixture"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    if text.starts_with("{\n") {
        vec![serde_json::from_str(&text).unwrap()]
    } else {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[test]
fn every_fixture_converts_validates_ingests_and_exports_back() {
    for (format, path) in fixtures().into_iter().filter(|(_, p)| !is_broken(p)) {
        let documents = converted(&format, &path);
        assert!(!documents.is_empty(), "{}", path.display());
        let store = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let jsonl = dir.path().join("converted.jsonl");
        let lines: Vec<String> = documents.iter().map(Value::to_string).collect();
        std::fs::write(&jsonl, lines.join("\n")).unwrap();
        // Every converted document passes the checks on its own.
        bin().arg("validate").arg(&jsonl).assert().success();
        ihigraph(store.path())
            .args(["ingest", "--from", &format, "--session-id", "fixture"])
            .arg(&path)
            .assert()
            .success();
        let export = ihigraph(store.path())
            .args(["export", "--format", "pgm-ihi"])
            .output()
            .unwrap();
        assert!(export.status.success());
        let mut exported: Vec<Value> = String::from_utf8(export.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut expected = documents.clone();
        let id = |d: &Value| d["SessionID"].as_str().unwrap().to_owned();
        exported.sort_by_key(id);
        expected.sort_by_key(id);
        assert_eq!(exported, expected, "{}", path.display());
    }
}

#[test]
fn auto_recognises_every_fixture_and_says_so() {
    for (format, path) in fixtures().into_iter().filter(|(_, p)| !is_broken(p)) {
        let output = bin()
            .args(["convert", "--from", "auto", "--session-id", "x"])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{}: {stderr}", path.display());
        assert!(
            stderr.contains(&format!("read as {format} (recognised from its content)")),
            "{}: {stderr}",
            path.display()
        );
    }
}

#[test]
fn a_broken_file_is_refused_whole_and_the_others_are_stored() {
    let broken: Vec<(String, PathBuf)> = fixtures()
        .into_iter()
        .filter(|(_, p)| is_broken(p))
        .collect();
    assert!(!broken.is_empty());
    for (format, path) in broken {
        let store = tempfile::tempdir().unwrap();
        let good = fixtures()
            .into_iter()
            .find(|(f, p)| *f == format && !is_broken(p))
            .unwrap()
            .1;
        let output = ihigraph(store.path())
            .args(["ingest", "--from", &format, "--session-id", "s"])
            .arg(&path)
            .arg(&good)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", path.display());
        let stdout = String::from_utf8_lossy(&output.stdout);
        let name = path.display().to_string();
        assert!(
            stdout.contains(&format!("{name}: ")) && stdout.contains("error[format]"),
            "{stdout}"
        );
        assert!(stdout.contains("refused 1 document"), "{stdout}");
        let sessions = ihigraph(store.path())
            .args(["sessions", "--format", "csv"])
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&sessions.stdout).lines().count() - 1;
        assert_eq!(
            listed,
            converted(&format, &good).len(),
            "{}",
            good.display()
        );
    }
}

#[test]
fn convert_writes_its_output_file_only_when_something_converts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"[{"role":"robot","content":"beep"}]"#).unwrap();
    let output = bin()
        .args(["convert", "--from", "openai-chat", "-o"])
        .arg(&out)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.json: line 1, /0/role: error[format]: expected a role one of system"),
        "{stderr}"
    );
    assert!(!out.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no partial file is left"
    );
    let good = fixture_path("import/openai-chat/legacy-function-call.json");
    bin()
        .args(["convert", "--from", "openai-chat", "-o"])
        .arg(&out)
        .arg(&good)
        .assert()
        .success();
    let document: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(document["TurnCount"], 2);
    assert_eq!(
        document["DataXMData"]["Source"][0]["ImplementerAIMID"],
        "ihigraph-import/openai-chat"
    );
    assert!(
        document["DataXMData"]["DescrMetadata"]
            .as_str()
            .unwrap()
            .contains("legacy-function-call.json")
    );
}

#[test]
fn several_sessions_are_json_lines_with_numbered_ids() {
    let documents = converted(
        "openai-finetune",
        &fixture_path("import/openai-finetune/drone.jsonl"),
    );
    let ids: Vec<&str> = documents
        .iter()
        .map(|d| d["SessionID"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["fixture#1", "fixture#2", "fixture#4"]);
    // Without --session-id, the ids are derived from the file, and that is said once.
    let output = bin()
        .args(["convert", "--from", "openai-finetune"])
        .arg(fixture_path("import/openai-finetune/drone.jsonl"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("derived from the file's path").count(),
        1,
        "{stderr}"
    );
    let first: Value = serde_json::from_str(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(first["SessionID"].as_str().unwrap().starts_with("drone-"));
}

#[test]
fn options_fill_what_files_lack_and_bad_options_are_usage_errors() {
    let path = fixture_path("import/openai-chat/legacy-function-call.json");
    let output = bin()
        .args([
            "convert",
            "--from",
            "openai-chat",
            "--start-time",
            "2026-03-14T08:00:00+01:00",
            "--instance-id",
            "m-1",
            "--environment-id",
            "u-1",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success());
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["MInstanceID"], "m-1");
    assert_eq!(document["UEnvironmentID"], "u-1");
    let start = &document["SessionStartTime"]["SimpleTimeData"][0];
    assert_eq!(
        (start["FlagsByte"].as_u64(), start["StartTime"].as_i64()),
        (Some(3), Some(1_773_471_600_000))
    );
    // Turns without times stay relative: no wall-clock time is invented.
    assert_eq!(
        document["Turns"][1]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"],
        0
    );
    for (flag, value) in [
        ("--start-time", "yesterday"),
        ("--timezone", "Mars/Olympus"),
    ] {
        let output = bin()
            .args(["convert", "--from", "openai-chat", flag, value])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{flag}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(flag));
    }
    let store = tempfile::tempdir().unwrap();
    ihigraph(store.path())
        .args(["ingest", "--session-id", "x"])
        .arg(&path)
        .assert()
        .code(2);
}

#[test]
fn auto_refuses_what_it_cannot_tell() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "just some notes\n").unwrap();
    let output = bin()
        .args(["convert", "--from", "auto"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot tell the format"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn standard_input_converts_too() {
    let text = std::fs::read(fixture_path("import/openai-finetune/drone.jsonl")).unwrap();
    let output = bin()
        .args(["convert", "--from", "openai-finetune", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 3);
}

#[test]
fn auto_ingests_pgm_ihi_as_it_is_beside_other_formats() {
    let dir = tempfile::tempdir().unwrap();
    let examples = common::examples_dir();
    let example = std::fs::read_dir(&examples)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::copy(&example, dir.path().join("native.json")).unwrap();
    std::fs::copy(
        fixture_path("import/openai-chat/legacy-function-call.json"),
        dir.path().join("chat.json"),
    )
    .unwrap();
    let store = tempfile::tempdir().unwrap();
    let output = ihigraph(store.path())
        .args(["ingest", "--from", "auto", "--session-id", "chat"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("native.json: read as pgm-ihi (recognised from its content)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("chat.json: read as openai-chat (recognised from its content)"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("ingested 2 sessions"));
    // `convert` has nothing to do with PGM-IHI, and says so.
    let output = bin()
        .args(["convert", "--from", "auto"])
        .arg(dir.path().join("native.json"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("holds PGM-IHI documents already"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn ingesting_the_same_file_again_changes_nothing() {
    let store = tempfile::tempdir().unwrap();
    let path = fixture_path("import/anthropic/parallel-tools.json");
    for expected in ["(0 replaced, 0 unchanged)", "(0 replaced, 1 unchanged)"] {
        let output = ihigraph(store.path())
            .args(["ingest", "--from", "anthropic"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(output.status.success());
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains(&format!("ingested 1 session {expected}")),
            "{stdout}"
        );
    }
}

fn is_message_line(line: &Value) -> bool {
    matches!(line["type"].as_str(), Some("user" | "assistant"))
}

/// The lines of a Claude Code transcript: its message lines (a sub-agent's included), and
/// the others.
fn transcript_lines(path: &Path) -> (Vec<Value>, Vec<Value>) {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .partition(is_message_line)
}

fn exported_documents(store: &Path) -> Vec<Value> {
    let export = ihigraph(store)
        .args(["export", "--format", "pgm-ihi"])
        .output()
        .unwrap();
    assert!(export.status.success());
    String::from_utf8(export.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_line_of_a_transcript_is_in_one_stored_session() {
    for name in ["claude-code-rewinds.jsonl", "claude-code-session.jsonl"] {
        let path = fixture_path(&format!("import/anthropic/{name}"));
        let store = tempfile::tempdir().unwrap();
        ihigraph(store.path())
            .args(["ingest", "--from", "anthropic"])
            .arg(&path)
            .assert()
            .success();
        // Where each line went, read back from the store (the branches' and the
        // sub-agent's sessions included): a prompt's line as it was, one of the lines a
        // response was written as, with the response's blocks, or a line that is no
        // message, as it was, in the `lines` of a prompt or a response.
        let mut prompts: Vec<(String, Value)> = Vec::new();
        let mut responses: Vec<(String, Value)> = Vec::new();
        let mut others: Vec<Value> = Vec::new();
        let listed =
            |payload: &Value, key: &str| payload[key].as_array().cloned().unwrap_or_default();
        for document in exported_documents(store.path()) {
            for turn in document["Turns"].as_array().unwrap() {
                for line in listed(&turn["PRCPrompt"], "messages") {
                    prompts.push((line["uuid"].as_str().unwrap().to_owned(), line.clone()));
                }
                others.extend(listed(&turn["PRCPrompt"], "lines"));
                let response = &turn["BKNResponse"];
                for line in listed(response, "lines") {
                    if is_message_line(&line) {
                        let uuid = line["uuid"].as_str().unwrap().to_owned();
                        responses.push((uuid, response["content"].clone()));
                    } else {
                        others.push(line);
                    }
                }
            }
        }
        let (sources, other_sources) = transcript_lines(&path);
        assert_eq!(prompts.len() + responses.len(), sources.len(), "{name}");
        assert_eq!(others.len(), other_sources.len(), "{name}");
        for source in &other_sources {
            assert_eq!(
                others.iter().filter(|line| *line == source).count(),
                1,
                "{name}: {source}"
            );
        }
        for source in &sources {
            let uuid = source["uuid"].as_str().unwrap();
            if source["type"] == "user" {
                let found: Vec<&Value> = prompts
                    .iter()
                    .filter(|(id, _)| id == uuid)
                    .map(|(_, line)| line)
                    .collect();
                assert_eq!(found, [source], "{name}: {uuid}");
            } else {
                let found: Vec<&Value> = responses
                    .iter()
                    .filter(|(id, _)| id == uuid)
                    .map(|(_, content)| content)
                    .collect();
                assert_eq!(found.len(), 1, "{name}: {uuid}");
                for block in source["message"]["content"].as_array().unwrap() {
                    assert!(
                        found[0].as_array().unwrap().contains(block),
                        "{name}: {uuid}: {block}"
                    );
                }
            }
        }
    }
}

/// The sessions of the rewinds fixture: the main one, the tests branch, the branch of
/// that, and the branch before the first turn.
fn rewind_ids() -> [String; 4] {
    let main = "7d3e9a10-4b2c-4e8f-9a61-0c5b2e7f4d93".to_owned();
    let tests = format!("{main}/branch/c4a1e0d2-0005-4000-8000-000000000005");
    let accents = format!("{tests}/branch/c4a1e0d2-000b-4000-8000-00000000000b");
    let python = format!("{main}/branch/c4a1e0d2-0001-4000-8000-000000000001");
    [main, tests, accents, python]
}

/// A store holding the rewinds fixture.
fn rewinds_store() -> tempfile::TempDir {
    let store = tempfile::tempdir().unwrap();
    ihigraph(store.path())
        .args(["ingest", "--from", "anthropic"])
        .arg(fixture_path("import/anthropic/claude-code-rewinds.jsonl"))
        .assert()
        .success();
    store
}

/// `sessions` as CSV: each row's session, branchOf and forkedAfterTurn, sorted.
fn listed_branches(store: &Path) -> Vec<[String; 3]> {
    let output = ihigraph(store)
        .args(["sessions", "--format", "csv"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut rows: Vec<[String; 3]> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            [cells[0], cells[6], cells[7]].map(str::to_owned)
        })
        .collect();
    rows.sort();
    rows
}

fn row(cells: [&str; 3]) -> [String; 3] {
    cells.map(str::to_owned)
}

#[test]
fn rewound_branches_are_listed_and_linked_to_where_they_forked() {
    let [main, tests, accents, python] = rewind_ids();
    let store = rewinds_store();
    assert_eq!(
        listed_branches(store.path()),
        [
            row([&main, "", ""]),
            row([&python, &main, ""]),
            row([&tests, &main, "0"]),
            row([&accents, &tests, "1"]),
            row(["session", "branchOf", "forkedAfterTurn"]),
        ]
    );
    // The link in the graph: to the parent's conversation and turn, PROV included.
    let output = ihigraph(store.path())
        .args([
            "sparql",
            "--format",
            "tsv",
            "PREFIX ihi: <https://w3id.org/ihigraph/ontology#> \
             PREFIX prov: <http://www.w3.org/ns/prov#> \
             SELECT ?turn WHERE { GRAPH ?g { ?branch ihi:branchOf ?parent ; prov:wasDerivedFrom ?parent ; \
             ihi:forkedAfterTurn ?turn ; prov:wasInfluencedBy ?turn } \
             GRAPH ?h { ?parent ihi:sessionId ?id ; <https://jido.ai/ontology/conversation-history#hasTurn> ?turn } } \
             ORDER BY ?turn",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(
        stdout.contains("/turn/0>") && stdout.contains("/turn/1>"),
        "{stdout}"
    );
}

#[test]
fn a_parent_is_deleted_without_its_branches_unless_asked() {
    let [main, tests, accents, python] = rewind_ids();
    // Deleting the main session leaves its branches, and says so; the check stays clean.
    let store = rewinds_store();
    let output = ihigraph(store.path())
        .args(["delete", "--session", &main])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "branches kept (sessions forked from this one; --with-branches deletes them too): 2 ({python}, {tests}); their links (8 triples) now name a session no longer stored"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("check: no triple"), "{stdout}");
    assert_eq!(
        listed_branches(store.path()),
        [
            row([&python, &main, ""]),
            row([&tests, &main, "0"]),
            row([&accents, &tests, "1"]),
            row(["session", "branchOf", "forkedAfterTurn"]),
        ]
    );
    // With --with-branches, the branches go too, the deepest first.
    let store = rewinds_store();
    let output = ihigraph(store.path())
        .args(["delete", "--with-branches", "--session", &main])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let deleted: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("deleted session "))
        .collect();
    assert_eq!(
        deleted,
        [accents, tests, python, main].map(|id| format!("{id:?}"))
    );
    assert_eq!(stdout.matches("check: no triple").count(), 4, "{stdout}");
    assert_eq!(
        listed_branches(store.path()),
        [row(["session", "branchOf", "forkedAfterTurn"])]
    );
}
