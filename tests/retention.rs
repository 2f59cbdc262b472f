//! Retention and erasure: a store's retention period (`retention`), the sessions older
//! than it deleted with their receipts (`prune`, through the library with a fixed time
//! and through the command line), by the server on a schedule (`serve --prune-every`),
//! and every session of one subject deleted with a check that nothing names it any more
//! (`delete --where`).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::serving::Server;
use common::{history_at, ihigraph, ingest, ingest_documents};
use ihigraph::memory::{
    DeletionReceipt, Erasure, MemoryKind, Pruning, Remember, Subject, erase_subject, prune,
    prune_at_most, remember,
};
use ihigraph::model::BranchOf;
use ihigraph::store::RetentionPeriod;
use ihigraph::{HistoryStore, SearchRequest};
use oxigraph::sparql::QueryResults;
use oxsdatatypes::DateTime;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The time the library's tests prune at.
const NOW: &str = "2026-06-01T00:00:00Z";

fn now() -> DateTime {
    NOW.parse().unwrap()
}

fn ninety_days() -> RetentionPeriod {
    "90d".parse().unwrap()
}

/// A session with a turn at each of `times`, of an M-Instance and a U-Environment.
fn session(id: &str, times: &[&str], instance: &str, environment: &str) -> Value {
    let mut document = history_at(id, times);
    document["MInstanceID"] = json!(instance);
    document["UEnvironmentID"] = json!(environment);
    document
}

/// `document` as a branch of `parent`, forked after its first turn.
fn branch_of(mut document: Value, parent: &str) -> Value {
    let link = BranchOf {
        session_id: parent.to_owned(),
        after_turn: Some(0),
    };
    document["DataXMData"]["Annotations"] = json!([link.annotation()]);
    document
}

/// A session without turns that started at `start`.
fn without_turns(id: &str, start: &str) -> Value {
    let mut document = history_at(id, &[start]);
    document["Turns"] = json!([]);
    document["TurnCount"] = json!(0);
    document
}

const OLD: &[&str] = &["2026-01-10T10:00:00Z", "2026-01-10T10:05:00Z"];
const NEW: &[&str] = &["2026-05-20T09:00:00Z", "2026-05-20T09:01:00Z"];

/// Old and new sessions, branches either way, and memory made from them: `old` (both
/// turns before the cutoff), `new`, `long` (started old, last turn new), `old-empty` (no
/// turns, started old), `parent-old` with its new branch `branch-new`, `parent-new` with
/// its old branch `branch-old`, `root-old` with its old branch `child-old`.
fn aged_documents() -> Vec<Value> {
    let m = |id: &str, times: &[&str]| session(id, times, "m-1", "e-1");
    vec![
        m("old", OLD),
        m("new", NEW),
        m("long", &["2026-01-10T10:00:00Z", "2026-05-25T10:00:00Z"]),
        without_turns("old-empty", "2026-01-02T00:00:00Z"),
        m("parent-old", OLD),
        branch_of(m("branch-new", NEW), "parent-old"),
        m("parent-new", NEW),
        branch_of(m("branch-old", OLD), "parent-new"),
        m("root-old", OLD),
        branch_of(m("child-old", OLD), "root-old"),
    ]
}

fn remember_from(store: &HistoryStore, session: &str, text: &str) {
    let request = Remember {
        session: session.to_owned(),
        turn: 0,
        kind: MemoryKind::Fact,
        text: text.to_owned(),
        valid_from: None,
        valid_until: None,
    };
    remember(store, &request, now()).unwrap();
}

/// A store in memory with [`aged_documents`] and memory items: "kept and pruned" from
/// `old` and `new`, "old only" from `old`, "two pruned" from `old` and `child-old`.
fn aged_store() -> HistoryStore {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    for document in aged_documents() {
        ingest(&store, &document);
    }
    remember_from(&store, "old", "kept and pruned");
    remember_from(&store, "new", "kept and pruned");
    remember_from(&store, "old", "old only");
    remember_from(&store, "old", "two pruned");
    remember_from(&store, "child-old", "two pruned");
    store
}

fn ids(receipts: &[DeletionReceipt]) -> Vec<&str> {
    receipts
        .iter()
        .map(|receipt| receipt.session_id.as_str())
        .collect()
}

fn stored(store: &HistoryStore) -> Vec<String> {
    let mut ids: Vec<String> = store.sessions().unwrap().into_iter().map(|s| s.0).collect();
    ids.sort();
    ids
}

/// The texts of the memory items, each with how many turns it was derived from.
fn memory(store: &HistoryStore) -> Vec<(String, usize)> {
    let query = format!(
        "SELECT ?text (COUNT(?turn) AS ?n) WHERE {{ GRAPH <{}> {{ ?item <http://www.w3.org/ns/prov#wasDerivedFrom> ?turn ; <https://w3id.org/ihigraph/ontology#memoryText> ?text }} }} GROUP BY ?text ORDER BY ?text",
        store.scheme().memory_graph().as_str()
    );
    let QueryResults::Solutions(rows) = store.query(&query).unwrap() else {
        panic!("a SELECT query")
    };
    rows.map(|row| {
        let row = row.unwrap();
        let text = match row.get("text").unwrap() {
            oxigraph::model::Term::Literal(text) => text.value().to_owned(),
            other => panic!("{other}"),
        };
        let n = match row.get("n").unwrap() {
            oxigraph::model::Term::Literal(n) => n.value().parse().unwrap(),
            other => panic!("{other}"),
        };
        (text, n)
    })
    .collect()
}

#[test]
fn prune_deletes_the_sessions_whose_last_turn_is_older_than_the_retention() {
    let store = aged_store();
    let pruning = prune(&store, ninety_days(), now(), false).unwrap();
    assert_eq!(pruning.cutoff, "2026-03-03T00:00:00Z".parse().unwrap());
    // A branch goes before the session it forked from when both go; else by id.
    assert_eq!(
        ids(&pruning.receipts),
        [
            "child-old",
            "branch-old",
            "old",
            "old-empty",
            "parent-old",
            "root-old"
        ]
    );
    assert_eq!(
        stored(&store),
        ["branch-new", "long", "new", "parent-new"],
        "a session is judged by its last turn, a branch by its own"
    );
    assert_eq!(pruning.kept, 4);
    assert!(pruning.undated.is_empty());
    let receipt = |id: &str| {
        pruning
            .receipts
            .iter()
            .find(|receipt| receipt.session_id == id)
            .unwrap()
    };
    // The kept branch's link now names a session no longer stored, and says so.
    assert_eq!(receipt("parent-old").branches_kept, ["branch-new"]);
    assert!(receipt("parent-old").branch_link_triples > 0);
    // The branch that went with its parent is not counted as kept.
    assert!(receipt("root-old").branches_kept.is_empty());
    assert_eq!(receipt("root-old").branch_link_triples, 0);
    let totals = &pruning.totals;
    assert_eq!(totals.sessions, 6);
    assert_eq!(
        totals.graph_triples,
        pruning
            .receipts
            .iter()
            .map(|r| r.graph_triples)
            .sum::<usize>()
    );
    assert_eq!(
        totals.fingerprint_triples,
        6 * receipt("old").fingerprint_triples
    );
    assert_eq!(totals.mentions_left, 0);
    assert_eq!(
        totals.branch_link_triples,
        receipt("parent-old").branch_link_triples
    );
    // Memory derived from a pruned and a kept session survives, unlinked; memory derived
    // from pruned sessions only goes, however many.
    assert_eq!(memory(&store), [("kept and pruned".to_owned(), 1)]);
    assert_eq!(totals.items_removed, 2);
    assert_eq!(totals.items_unlinked, 2, "two pruned, then kept and pruned");
    // `child-old` goes first: "two pruned" loses its link to it, then goes with `old`.
    assert_eq!(receipt("child-old").items_unlinked.len(), 1);
    assert_eq!(receipt("child-old").items_removed.len(), 0);
    assert_eq!(receipt("old").items_removed.len(), 2);
    assert_eq!(receipt("old").items_unlinked.len(), 1);
    // Nothing is left to prune.
    let again = prune(&store, ninety_days(), now(), false).unwrap();
    assert!(again.receipts.is_empty());
    assert_eq!(again.kept, 4);
}

/// A server prunes in steps: each deletes at most so many, the oldest first, and the
/// steps together delete what one prune would.
#[test]
fn a_prune_in_steps_takes_the_oldest_first_and_ends_where_one_prune_does() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    for (id, time) in [
        ("c", "2026-01-03T00:00:00Z"),
        ("a", "2026-01-01T00:00:00Z"),
        ("new", "2026-05-30T00:00:00Z"),
        ("b", "2026-01-02T00:00:00Z"),
    ] {
        ingest(&store, &session(id, &[time], "m", "u"));
    }
    let first = prune_at_most(&store, ninety_days(), now(), false, 2).unwrap();
    assert_eq!(ids(&first.receipts), ["a", "b"]);
    assert_eq!(first.kept, 1);
    let second = prune_at_most(&store, ninety_days(), now(), false, 2).unwrap();
    assert_eq!(ids(&second.receipts), ["c"]);
    let third = prune_at_most(&store, ninety_days(), now(), false, 2).unwrap();
    assert!(third.receipts.is_empty());
    assert_eq!(stored(&store), ["new"]);
}

#[test]
fn a_dry_run_deletes_nothing_and_says_what_the_run_does() {
    let store = aged_store();
    let before = (stored(&store), store.quad_count().unwrap(), memory(&store));
    let dry = prune(&store, ninety_days(), now(), true).unwrap();
    assert!(dry.dry_run);
    assert_eq!(
        (stored(&store), store.quad_count().unwrap(), memory(&store)),
        before
    );
    let done = prune(&store, ninety_days(), now(), false).unwrap();
    let as_done = |pruning: &Pruning| {
        let mut receipts = pruning.receipts.clone();
        for receipt in &mut receipts {
            receipt.dry_run = false;
        }
        (
            receipts,
            pruning.totals.clone(),
            pruning.kept,
            pruning.cutoff,
        )
    };
    assert_eq!(as_done(&dry), as_done(&done));
    assert_eq!(dry.totals.items_removed, 2);
}

#[test]
fn a_pruned_session_leaves_nothing_in_the_index_or_the_inferred_store() {
    let store = HistoryStore::in_memory(&Default::default())
        .unwrap()
        .reasoning_in_memory()
        .unwrap();
    for document in [
        session("old", OLD, "m-1", "e-1"),
        session("new", NEW, "m-1", "e-1"),
    ] {
        ingest(&store, &document);
    }
    let hits = |store: &HistoryStore| {
        let mut sessions: Vec<String> = store
            .search(&SearchRequest::new("configuration"))
            .unwrap()
            .into_iter()
            .map(|hit| hit.session_id)
            .collect();
        sessions.sort();
        sessions.dedup();
        sessions
    };
    let inferred = |store: &HistoryStore, id: &str| {
        let query = format!(
            "SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{}> {{ ?s ?p ?o }} }}",
            store.scheme().session_graph(id).as_str()
        );
        let QueryResults::Solutions(mut rows) =
            store.query_inferred(&query, &Default::default()).unwrap()
        else {
            panic!("a SELECT query")
        };
        let row = rows.next().unwrap().unwrap();
        match row.get("n").unwrap() {
            oxigraph::model::Term::Literal(n) => n.value().parse::<usize>().unwrap(),
            other => panic!("{other}"),
        }
    };
    assert_eq!(hits(&store), ["new", "old"]);
    assert!(inferred(&store, "old") > 0);
    let pruning = prune(&store, ninety_days(), now(), false).unwrap();
    assert_eq!(ids(&pruning.receipts), ["old"]);
    assert_eq!(
        hits(&store),
        ["new"],
        "the index lost the pruned session's texts"
    );
    assert_eq!(
        inferred(&store, "old"),
        0,
        "and the inferred store its triples"
    );
    assert!(inferred(&store, "new") > 0);
}

#[test]
fn a_session_without_an_absolute_time_is_kept_and_named() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let mut undated = session("undated", OLD, "m-1", "e-1");
    // A time kept as an offset only (FlagsByte 0: not absolute) says nothing of age.
    let relative = |at: u64| {
        json!({"Header": "OSD-STM-V1.5", "SimpleTimeID": format!("t{at}"), "SimpleTimeData": [
            {"FlagsByte": 0, "StartTime": at, "EndTime": at, "AccuracyMode": "single", "AccuracyPlusMinus": 1}]})
    };
    undated["SessionStartTime"] = relative(0);
    for (at, turn) in undated["Turns"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        turn["Timestamp"] = relative(at as u64 + 1);
    }
    ingest(&store, &undated);
    ingest(&store, &session("old", OLD, "m-1", "e-1"));
    let pruning = prune(&store, ninety_days(), now(), false).unwrap();
    assert_eq!(ids(&pruning.receipts), ["old"]);
    assert_eq!(pruning.undated, ["undated"]);
    assert_eq!(stored(&store), ["undated"]);
}

#[test]
fn a_retention_period_is_kept_in_the_store_settings() {
    let directory = tempfile::tempdir().unwrap();
    let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    assert_eq!(store.retention().unwrap(), None);
    store.set_retention(Some("2w".parse().unwrap())).unwrap();
    drop(store);
    let store = HistoryStore::open(directory.path(), &Default::default()).unwrap();
    let period = store.retention().unwrap().unwrap();
    assert_eq!(period.as_seconds(), 14 * 86_400);
    assert_eq!(period.to_string(), "P14D");
    // The scheme and ontology settings beside it are untouched.
    assert_eq!(store.session_count().unwrap(), 0);
    store.set_retention(None).unwrap();
    assert_eq!(store.retention().unwrap(), None);
    for (text, seconds) in [
        ("90d", 90 * 86_400),
        ("12h", 12 * 3_600),
        ("2w", 14 * 86_400),
        ("30m", 1_800),
        ("45s", 45),
        ("P90D", 90 * 86_400),
        ("PT12H", 12 * 3_600),
        ("P1DT12H", 36 * 3_600),
        (" 7d ", 7 * 86_400),
    ] {
        let period: RetentionPeriod = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(period.as_seconds(), seconds, "{text}");
    }
    for (text, reason) in [
        ("3 months", "unit"),
        ("90", "no unit"),
        ("d", "whole number"),
        ("-5d", "whole number"),
        ("0d", "longer than none"),
        ("P1M", "years and months"),
        ("P1Y", "years and months"),
        ("PT0.5S", "whole number of seconds"),
        ("P", "ISO 8601"),
        ("99999999999999999999d", "too long"),
        ("", "no unit"),
    ] {
        let error = text.parse::<RetentionPeriod>().unwrap_err();
        assert!(error.to_string().contains(reason), "{text}: {error}");
        assert!(error.to_string().contains("90d"), "{text}: {error}");
    }
}

/// Sessions of several subjects: `a1` of M-Instance `m-gone`; `a2` of another, whose
/// data-exchange metadata names `m-gone`; `b1` of U-Environment `e-gone`; `u1`, whose
/// prompt names user `u-42` (as AgentOS's `GMITurnInput` does); `u2`, of user `u-420`.
fn subject_store() -> HistoryStore {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let mut a2 = session("a2", NEW, "m-keep", "e-1");
    a2["DataXMData"]["MInstanceID"] = json!("m-gone");
    let with_user = |id: &str, user: &str| {
        let mut document = session(id, NEW, "m-keep", "e-1");
        document["Turns"][1]["PRCPrompt"] = json!({
            "interactionId": format!("{id}_turn_1"), "userId": user, "type": "text",
            "content": "What changed in config.exs?"
        });
        document
    };
    for document in [
        session("a1", NEW, "m-gone", "e-1"),
        a2,
        session("b1", NEW, "m-keep", "e-gone"),
        with_user("u1", "u-42"),
        with_user("u2", "u-420"),
    ] {
        ingest(&store, &document);
    }
    remember_from(&store, "a1", "from a gone instance");
    remember_from(&store, "b1", "from a kept instance");
    store
}

/// Triples anywhere that hold `id` as a literal's whole text or within it.
fn literals_holding(store: &HistoryStore, id: &str) -> usize {
    let query = format!(
        "SELECT ?o WHERE {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(isLiteral(?o) && CONTAINS(STR(?o), {})) }}",
        oxigraph::model::Literal::new_simple_literal(id)
    );
    let QueryResults::Solutions(rows) = store.query(&query).unwrap() else {
        panic!("a SELECT query")
    };
    rows.count()
}

#[test]
fn erasure_deletes_every_session_of_the_subject_and_leaves_no_mention() {
    let store = subject_store();
    let erase = |text: &str, dry_run: bool| -> Erasure {
        erase_subject(&store, &text.parse::<Subject>().unwrap(), dry_run).unwrap()
    };
    let dry = erase("instance=m-gone", true);
    assert_eq!(ids(&dry.receipts), ["a1", "a2"]);
    assert_eq!(dry.subject_mentions_left, 0);
    assert_eq!(stored(&store), ["a1", "a2", "b1", "u1", "u2"]);
    let done = erase("instance=m-gone", false);
    let mut dry_receipts = dry.receipts.clone();
    for receipt in &mut dry_receipts {
        receipt.dry_run = false;
    }
    assert_eq!(dry_receipts, done.receipts);
    assert_eq!(dry.totals, done.totals);
    assert_eq!(done.subject_mentions_left, 0);
    assert_eq!(done.totals.mentions_left, 0);
    assert_eq!(done.totals.items_removed, 1);
    assert_eq!(literals_holding(&store, "m-gone"), 0);
    assert_eq!(stored(&store), ["b1", "u1", "u2"]);

    let done = erase("environment=e-gone", false);
    assert_eq!(ids(&done.receipts), ["b1"]);
    assert_eq!(done.subject_mentions_left, 0);
    assert_eq!(literals_holding(&store, "e-gone"), 0);

    let done = erase("user=u-42", false);
    assert_eq!(ids(&done.receipts), ["u1"], "user u-420 is another user");
    assert_eq!(done.subject_mentions_left, 0);
    assert_eq!(literals_holding(&store, "\"u-42\""), 0);
    assert_eq!(stored(&store), ["u2"]);
    assert!(literals_holding(&store, "\"u-420\"") > 0);
}

#[test]
fn erasure_counts_what_still_names_the_subject() {
    let store = subject_store();
    // A memory item whose text is the id itself: no session of the subject made it.
    remember_from(&store, "b1", "m-named");
    let erasure = erase_subject(&store, &Subject::Instance("m-named".to_owned()), false).unwrap();
    assert!(erasure.receipts.is_empty());
    assert_eq!(erasure.subject_mentions_left, 1);
    assert_eq!(erasure.totals.mentions_left, 1);
}

#[test]
fn subjects_are_read_from_key_and_id() {
    assert_eq!(
        "instance=m/1".parse::<Subject>().unwrap(),
        Subject::Instance("m/1".to_owned())
    );
    assert_eq!(
        "environment=a=b".parse::<Subject>().unwrap(),
        Subject::Environment("a=b".to_owned())
    );
    assert_eq!("user=u".parse::<Subject>().unwrap().to_string(), "user=u");
    for (text, reason) in [
        ("session=s", "not instance, environment or user"),
        ("instance", "no `=`"),
        ("user=", "empty"),
    ] {
        let error = text.parse::<Subject>().unwrap_err().to_string();
        assert!(error.contains(reason), "{text}: {error}");
    }
}

// --- The command line ---

fn cli(store: &Path, args: &[&str]) -> (i32, String, String) {
    let output = ihigraph(store).args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A store on disk with sessions of 2020 and of 2100: with any retention period of
/// days, those of 2020 are old and those of 2100 new, whenever the test runs.
fn cli_store() -> tempfile::TempDir {
    let directory = tempfile::tempdir().unwrap();
    let old = ["2020-03-01T10:00:00Z", "2020-03-01T10:01:00Z"];
    let new = ["2100-03-01T10:00:00Z", "2100-03-01T10:01:00Z"];
    ingest_documents(
        directory.path(),
        &[
            session("old-1", &old, "m-a", "e-1"),
            session("old-2", &old, "m-b", "e-1"),
            session("new-1", &new, "m-a", "e-2"),
        ],
    );
    directory
}

#[test]
fn retention_is_set_shown_and_cleared_and_bad_periods_are_refused() {
    let store = cli_store();
    let path = store.path();
    let (code, out, _) = cli(path, &["retention", "show"]);
    assert_eq!(code, 0);
    assert!(out.contains("none"), "{out}");
    let (code, out, _) = cli(path, &["retention", "set", "90d"]);
    assert_eq!(code, 0);
    assert!(out.contains("P90D (90 days)"), "{out}");
    let (_, out, _) = cli(path, &["retention", "show"]);
    assert!(out.contains("P90D"), "{out}");
    for bad in ["3 months", "P1M", "0", "12x", "soon"] {
        let (code, _, err) = cli(path, &["retention", "set", bad]);
        assert_eq!(code, 2, "{bad}");
        assert!(err.contains("is not a period"), "{bad}: {err}");
    }
    let (_, out, _) = cli(path, &["retention", "show"]);
    assert!(
        out.contains("P90D"),
        "a refused period changes nothing: {out}"
    );
    let (code, _, _) = cli(path, &["retention", "clear"]);
    assert_eq!(code, 0);
    let (code, _, err) = cli(path, &["prune"]);
    assert_eq!(code, 2);
    assert!(err.contains("no retention period"), "{err}");
    assert!(err.contains("retention set"), "{err}");
}

#[test]
fn prune_prints_each_receipt_and_the_totals_and_a_dry_run_says_the_same() {
    let store = cli_store();
    let path = store.path();
    cli(path, &["retention", "set", "P30D"]);
    let json_of = |args: &[&str]| -> Value {
        let (code, out, err) = cli(path, args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let dry = json_of(&["prune", "--dry-run", "--format", "json"]);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["retention"], "P30D");
    let (_, text, _) = cli(path, &["prune", "--dry-run"]);
    assert!(text.contains("would delete session \"old-1\""), "{text}");
    assert!(text.contains("total: would delete 2 sessions"), "{text}");
    let done = json_of(&["prune", "--format", "json"]);
    assert_eq!(done["dry_run"], false);
    let receipts = |value: &Value| {
        let mut receipts = value["receipts"].as_array().unwrap().clone();
        for receipt in &mut receipts {
            receipt["dry_run"] = json!(false);
        }
        receipts
    };
    assert_eq!(receipts(&dry), receipts(&done));
    assert_eq!(dry["totals"], done["totals"]);
    assert_eq!(done["totals"]["sessions"], 2);
    assert_eq!(done["totals"]["mentions_left"], 0);
    assert_eq!(done["kept"], 1);
    let sessions: Vec<&str> = done["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|receipt| receipt["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["old-1", "old-2"]);
    let (code, text, _) = cli(path, &["prune"]);
    assert_eq!(code, 0);
    assert!(text.contains("total: deleted 0 sessions"), "{text}");
    assert!(text.contains("kept: 1 session"), "{text}");
}

#[test]
fn delete_where_erases_a_subject_and_refuses_unknown_keys() {
    let store = cli_store();
    let path = store.path();
    let (code, out, err) = cli(path, &["delete", "--where", "instance=m-a", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("would delete session \"old-1\""), "{out}");
    assert!(out.contains("would delete session \"new-1\""), "{out}");
    assert!(out.contains("check: no triple"), "{out}");
    let (code, out, err) = cli(path, &["delete", "--where", "instance=m-a"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("total: deleted 2 sessions"), "{out}");
    assert!(out.contains("mentions left: 0"), "{out}");
    let (_, listed, _) = cli(path, &["sessions", "--format", "tsv"]);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(listed.contains("old-2"), "{listed}");
    for (bad, says) in [
        (
            "session=old-2",
            "the key is not instance, environment or user",
        ),
        ("old-2", "no `=`"),
        ("user=", "the id is empty"),
    ] {
        let (code, _, err) = cli(path, &["delete", "--where", bad]);
        assert_eq!(code, 2, "{bad}");
        assert!(err.contains(says), "{bad}: {err}");
    }
    // Something left that names the subject fails the command: a memory item whose text
    // is the id, made from a session of another subject.
    let (code, _, err) = cli(
        path,
        &[
            "remember",
            "--session",
            "old-2",
            "--turn",
            "0",
            "--kind",
            "fact",
            "m-z",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = cli(path, &["delete", "--where", "instance=m-z"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("NOT CLEAN"), "{out}");
}

#[test]
fn serve_prunes_on_a_schedule() {
    let store = cli_store();
    let path = store.path().to_owned();
    cli(&path, &["retention", "set", "30d"]);
    let server = Server::on(&path, None, &["--prune-every", "1s"]);
    let started = Instant::now();
    let line = loop {
        if let Some(line) = server
            .log()
            .into_iter()
            .find(|line| line.contains(" prune: "))
        {
            break line;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no prune told: {:?}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        line.contains("retention P30D: deleted 2 sessions"),
        "{line}"
    );
    assert!(line.contains("mentions left 0"), "{line}");
    assert!(line.contains("kept 1"), "{line}");
    drop(server);
    let (_, listed, _) = cli(&path, &["sessions", "--format", "tsv"]);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(listed.contains("new-1"), "{listed}");
}

#[test]
fn serve_prunes_nothing_without_a_retention_period_or_when_off() {
    let store = cli_store();
    let path = store.path().to_owned();
    // No retention period: nothing pruned, nothing told.
    let server = Server::on(&path, None, &["--prune-every", "1s"]);
    let health = common::serving::get(&server.url("/healthz"));
    assert_eq!(health.status, 200);
    drop(server);
    cli(&path, &["retention", "set", "30d"]);
    let server = Server::on(&path, None, &["--prune-every", "off"]);
    let health = common::serving::get(&server.url("/healthz"));
    assert_eq!(health.status, 200);
    let log = server.log();
    drop(server);
    assert!(!log.iter().any(|line| line.contains(" prune: ")), "{log:?}");
    let (_, listed, _) = cli(&path, &["sessions", "--format", "tsv"]);
    assert_eq!(listed.lines().count(), 4, "{listed}");
    let (code, _, err) = cli(&path, &["serve", "--prune-every", "often"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a period"), "{err}");
}

#[test]
fn delete_sessions_where_erases_a_subject_over_http() {
    use common::serving::{BEARER, TOKEN, call};
    let store = cli_store();
    let server = Server::on(store.path(), Some(TOKEN), &["--prune-every", "off"]);
    let delete = |query: &str, headers: &[(&str, &str)]| {
        call(
            "DELETE",
            &server.url(&format!("/sessions?{query}")),
            headers,
            None,
        )
    };
    // A dry run needs no token, and deletes nothing.
    let dry = delete("where=instance%3Dm-a&dry-run=true", &[]);
    assert_eq!(dry.status, 200, "{}", dry.body);
    let dry = dry.json();
    assert_eq!(dry["subject"], "instance=m-a");
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["totals"]["sessions"], 2);
    let refused = delete("where=instance%3Dm-a", &[]);
    assert_eq!(refused.status, 401, "{}", refused.body);
    let done = delete("where=instance%3Dm-a", &[BEARER]);
    assert_eq!(done.status, 200, "{}", done.body);
    let done = done.json();
    let sessions: Vec<&str> = done["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|receipt| receipt["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["new-1", "old-1"]);
    assert_eq!(done["totals"], dry["totals"]);
    assert_eq!(done["subject_mentions_left"], 0);
    let listed = common::serving::get(&server.url("/sessions")).json();
    assert_eq!(listed["total"], 1, "{listed}");
    for (query, says) in [
        (
            "where=tenant%3Dx",
            "the key is not instance, environment or user",
        ),
        ("dry-run=true", "where= is required"),
        ("where=user%3D&dry-run=true", "the id is empty"),
    ] {
        let reply = delete(query, &[BEARER]);
        assert_eq!(reply.status, 400, "{query}: {}", reply.body);
        assert!(reply.body.contains(says), "{query}: {}", reply.body);
    }
}
