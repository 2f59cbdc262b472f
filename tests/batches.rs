//! Ingest writes sessions in batches through Oxigraph's bulk loader: the store it
//! builds is exactly the one a transaction per session builds, whatever the batch
//! size, and a session given twice ends as its later version.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::ihigraph;
use ihigraph::CheckOptions;
use ihigraph::HistoryStore;
use ihigraph::check_document;
use ihigraph::generate::GenerateOptions;
use ihigraph::generate::generate;
use ihigraph::integrity::verify;
use ihigraph::rdf::SessionGraph;
use ihigraph::rdf::map_history;
use ihigraph::store::WriteOutcome;
use predicates::str::contains;
use serde_json::{Value, json};
use std::path::Path;

fn corpus(sessions: usize) -> Vec<Value> {
    generate(GenerateOptions {
        sessions,
        seed: 9,
        min_turns: 2,
        max_turns: 12,
    })
    .collect()
}

fn json_lines(documents: &[Value]) -> String {
    documents.iter().map(|d| format!("{d}\n")).collect()
}

/// The session graphs of an on-disk store, as sorted N-Quads lines.
fn sessions_dump(store: &Path) -> Vec<String> {
    let output = ihigraph(store)
        .args(["export", "--format", "nquads"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut lines: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

/// Asserts two dumps are equal, showing the first difference only.
fn assert_same(actual: &[String], expected: &[String], what: &str) {
    if let Some((a, e)) = actual.iter().zip(expected).find(|(a, e)| a != e) {
        panic!("{what}: first difference:\n  {a}\n  {e}");
    }
    assert_eq!(actual.len(), expected.len(), "{what}: quad counts");
}

fn session(store: &HistoryStore, document: &Value) -> SessionGraph {
    let history = check_document(document, CheckOptions::default())
        .history
        .unwrap();
    map_history(&history, store.scheme())
}

const FRESH: WriteOutcome = WriteOutcome {
    replaced: false,
    unchanged: false,
};

#[test]
fn every_batch_size_builds_the_store_a_transaction_per_session_builds() {
    let dir = tempfile::tempdir().unwrap();
    let documents = corpus(40);
    let input = dir.path().join("corpus.jsonl");
    std::fs::write(&input, json_lines(&documents)).unwrap();
    let by_transaction = dir.path().join("by-transaction");
    {
        let store = HistoryStore::open(&by_transaction, &Default::default()).unwrap();
        for document in &documents {
            store.write_session(&session(&store, document)).unwrap();
        }
    }
    let expected = sessions_dump(&by_transaction);
    assert!(expected.len() > 1_000);
    for batch_quads in ["1", "500", "100000"] {
        let store = dir.path().join(format!("batch-{batch_quads}"));
        ihigraph(&store)
            .args(["ingest", "--batch-quads", batch_quads])
            .arg(&input)
            .assert()
            .success()
            .stdout(contains("ingested 40 sessions (0 replaced, 0 unchanged)"));
        assert_same(
            &sessions_dump(&store),
            &expected,
            &format!("--batch-quads {batch_quads}"),
        );
    }
}

#[test]
fn write_sessions_loads_new_sessions_and_replaces_or_keeps_stored_ones() {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let documents = corpus(4);
    let first: Vec<SessionGraph> = documents[..2].iter().map(|d| session(&store, d)).collect();
    assert_eq!(store.write_sessions(first).unwrap(), vec![FRESH, FRESH]);
    let mut changed = documents[1].clone();
    changed["MInstanceID"] = json!("m-instance/changed");
    let second = vec![
        session(&store, &documents[0]),
        session(&store, &changed),
        session(&store, &documents[2]),
    ];
    assert_eq!(
        store.write_sessions(second).unwrap(),
        vec![
            WriteOutcome {
                replaced: false,
                unchanged: true
            },
            WriteOutcome {
                replaced: true,
                unchanged: false
            },
            FRESH,
        ]
    );
    assert_eq!(store.session_count().unwrap(), 3);
    let id = changed["SessionID"].as_str().unwrap();
    assert_eq!(
        store.history(id).unwrap().m_instance_id,
        "m-instance/changed"
    );
}

/// An on-disk store holding one session.
fn store_with_one(dir: &Path, document: &Value) -> HistoryStore {
    let store = HistoryStore::open(dir, &Default::default()).unwrap();
    store.write_session(&session(&store, document)).unwrap();
    store
}

/// Six documents, a store holding the first, and that first one changed (to replace it).
fn one_stored_and_changed(dir: &Path) -> (Vec<Value>, HistoryStore, Value) {
    let documents = corpus(6);
    let store = store_with_one(dir, &documents[0]);
    let mut changed = documents[0].clone();
    changed["MInstanceID"] = json!("m-instance/changed");
    (documents, store, changed)
}

#[test]
fn a_session_writer_dropped_uncommitted_stores_none_of_its_new_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (documents, store, changed) = one_stored_and_changed(dir.path());

    // Dropped uncommitted: none of the new sessions is stored; a replacement is, at once.
    let mut writer = store.session_writer();
    let outcomes = writer
        .write(vec![
            session(&store, &documents[1]),
            session(&store, &changed),
        ])
        .unwrap();
    assert_eq!(
        outcomes,
        vec![
            FRESH,
            WriteOutcome {
                replaced: true,
                unchanged: false
            }
        ]
    );
    writer.write(vec![session(&store, &documents[2])]).unwrap();
    assert_eq!(writer.waiting(), 2);
    assert_eq!(store.session_count().unwrap(), 1);
    drop(writer);
    let ids = |store: &HistoryStore| -> Vec<String> {
        store
            .sessions()
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    assert_eq!(
        ids(&store),
        vec![documents[0]["SessionID"].as_str().unwrap()]
    );
    let id = documents[0]["SessionID"].as_str().unwrap();
    assert_eq!(
        store.history(id).unwrap().m_instance_id,
        "m-instance/changed"
    );
    let report = verify(&store, &[], &|_, _| {}).unwrap();
    assert!(report.holds() && report.checks.len() == 1, "{report:?}");
}

/// The hits of a search for `document`'s first word in its own session only.
fn own_hits(store: &HistoryStore, document: &Value) -> usize {
    let graph = session(store, document);
    let texts = ihigraph::store::session_texts(&graph.session_id, &graph.quads);
    let word: String = texts[0]
        .text
        .split(|c: char| !c.is_alphabetic())
        .find(|word| word.len() >= 3)
        .unwrap()
        .to_owned();
    let mut request = ihigraph::SearchRequest::new(word);
    request.session = Some(graph.session_id.clone());
    store.search(&request).unwrap().len()
}

#[test]
fn the_index_takes_a_writers_sessions_as_given_and_shows_them_with_the_stores_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (documents, store, changed) = one_stored_and_changed(dir.path());

    // New sessions are staged in the index as they are given, beside a replacement
    // whose own index write commits at once; dropped uncommitted, the writer takes them
    // out of the index again, so that no later commit of the index can show them.
    let mut writer = store.session_writer();
    writer
        .write(vec![
            session(&store, &documents[1]),
            session(&store, &changed),
        ])
        .unwrap();
    writer.write(vec![session(&store, &documents[2])]).unwrap();
    drop(writer);
    let mut writer = store.session_writer();
    writer.write(vec![session(&store, &documents[3])]).unwrap();
    writer.commit().unwrap();
    writer.wait_for_index().unwrap();
    drop(writer);
    assert!(own_hits(&store, &documents[3]) > 0);
    assert!(own_hits(&store, &changed) > 0);
    for dropped in &documents[1..3] {
        assert_eq!(own_hits(&store, dropped), 0, "{}", dropped["SessionID"]);
    }

    // Committed, in several parts and commits: every session is found.
    let mut writer = store.session_writer();
    writer.write(vec![session(&store, &documents[1])]).unwrap();
    writer.write(vec![session(&store, &documents[2])]).unwrap();
    writer.commit().unwrap();
    writer.write(vec![session(&store, &documents[4])]).unwrap();
    writer.commit().unwrap();
    writer.wait_for_index().unwrap();
    for document in &documents[..5] {
        if document["SessionID"] != documents[0]["SessionID"] {
            assert!(own_hits(&store, document) > 0, "{}", document["SessionID"]);
        }
    }
    drop(writer);
    // Opened again, the index agrees with the store: nothing to take out or add.
    drop(store);
    let store = HistoryStore::open(dir.path(), &Default::default()).unwrap();
    assert_eq!(own_hits(&store, &documents[5]), 0);
    assert!(own_hits(&store, &documents[4]) > 0);
}

#[test]
fn a_session_writer_shows_new_sessions_at_its_commit_and_a_session_again_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let documents = corpus(6);
    let store = store_with_one(dir.path(), &documents[0]);
    // All of them at once, each with its fingerprint record; a session given again
    // while it waits commits what waits, and its later version replaces it.
    let mut writer = store.session_writer();
    writer
        .write((1..4).map(|i| session(&store, &documents[i])).collect())
        .unwrap();
    assert_eq!(store.session_count().unwrap(), 1);
    let mut later = documents[2].clone();
    later["UEnvironmentID"] = json!("u-env/later");
    let outcomes = writer
        .write(vec![
            session(&store, &later),
            session(&store, &documents[4]),
        ])
        .unwrap();
    assert_eq!(
        outcomes,
        vec![
            WriteOutcome {
                replaced: true,
                unchanged: false
            },
            FRESH,
        ]
    );
    assert_eq!(
        store.session_count().unwrap(),
        4,
        "what waited was committed"
    );
    assert_eq!(writer.waiting(), 1);
    writer.commit().unwrap();
    assert_eq!(store.session_count().unwrap(), 5);
    let id = later["SessionID"].as_str().unwrap();
    assert_eq!(
        serde_json::to_value(store.history(id).unwrap()).unwrap(),
        later
    );
    let report = verify(&store, &[], &|_, _| {}).unwrap();
    assert!(report.holds() && report.checks.len() == 5, "{report:?}");
}

#[test]
fn a_session_twice_in_one_batch_ends_as_its_later_version() {
    let dir = tempfile::tempdir().unwrap();
    let documents = corpus(2);
    let mut later = documents[0].clone();
    later["UEnvironmentID"] = json!("u-env/later");
    let input = dir.path().join("twice.jsonl");
    std::fs::write(
        &input,
        json_lines(&[documents[0].clone(), documents[1].clone(), later.clone()]),
    )
    .unwrap();
    let store_dir = dir.path().join("store");
    ihigraph(&store_dir)
        .arg("ingest")
        .arg(&input)
        .assert()
        .success()
        .stdout(contains("ingested 3 sessions (1 replaced, 0 unchanged)"))
        .stderr(contains(format!(
            "{}:3: replaced the stored session",
            input.display()
        )));
    let store = HistoryStore::open(&store_dir, &Default::default()).unwrap();
    assert_eq!(store.session_count().unwrap(), 2);
    let id = later["SessionID"].as_str().unwrap();
    assert_eq!(
        serde_json::to_value(store.history(id).unwrap()).unwrap(),
        later
    );
}

#[test]
fn refused_documents_between_batches_leave_the_others_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut documents = corpus(6);
    documents[3]["TurnCount"] = json!(-1);
    let input = dir.path().join("mixed.jsonl");
    std::fs::write(&input, json_lines(&documents)).unwrap();
    let store_dir = dir.path().join("store");
    ihigraph(&store_dir)
        .args(["ingest", "--batch-quads", "300"])
        .arg(&input)
        .assert()
        .code(1)
        .stdout(contains("ingested 5 sessions"))
        .stdout(contains(format!("{}:4: /TurnCount", input.display())));
    let ids: Vec<String> = HistoryStore::open(&store_dir, &Default::default())
        .unwrap()
        .sessions()
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids.len(), 5);
    assert!(!ids.contains(&documents[3]["SessionID"].as_str().unwrap().to_owned()));
}

/// `ihigraph generate` output, as bytes.
fn generated(store: &Path, arguments: &[&str]) -> Vec<u8> {
    let output = ihigraph(store)
        .arg("generate")
        .args(arguments)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    output.stdout
}

#[test]
fn generate_is_seeded_valid_and_writes_lines_or_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("unused");
    let lines = generated(&store, &["--sessions", "7", "--seed", "3"]);
    assert_eq!(
        lines,
        generated(&store, &["--sessions", "7", "--seed", "3"])
    );
    assert_ne!(
        lines,
        generated(&store, &["--sessions", "7", "--seed", "4"])
    );
    assert_eq!(lines.iter().filter(|b| **b == b'\n').count(), 7);
    ihigraph(&store)
        .args(["validate", "-"])
        .write_stdin(lines)
        .assert()
        .success()
        .stdout(contains("7 valid, 0 refused, 0 warnings"));
    let files = dir.path().join("files");
    generated(
        &store,
        &[
            "--sessions",
            "3",
            "--min-turns",
            "5",
            "--max-turns",
            "5",
            "--dir",
        ]
        .into_iter()
        .chain([files.to_str().unwrap()])
        .collect::<Vec<_>>(),
    );
    let mut names: Vec<String> = std::fs::read_dir(&files)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "gen-1-000000.json",
            "gen-1-000001.json",
            "gen-1-000002.json"
        ]
    );
    for name in &names {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(files.join(name)).unwrap()).unwrap();
        assert_eq!(document["Turns"].as_array().unwrap().len(), 5);
    }
    ihigraph(&store)
        .args(["generate", "--min-turns", "9", "--max-turns", "3"])
        .assert()
        .code(2)
        .stderr(contains("--min-turns 9 is more than --max-turns 3"));
}
