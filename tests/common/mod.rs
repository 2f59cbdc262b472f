//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

pub mod python;
pub mod servers;
pub mod serving;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Path of a file under `tests/fixtures`.
pub fn fixture_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
}

/// Every importer fixture, `(format, path)`, sorted: the files of
/// `tests/fixtures/import/FORMAT/`, good ones and `broken-*` ones. Notes on a format's
/// fixtures (`*.md`) are not fixtures; a folder holds the bodies of one recording
/// (`otel/real-*/`), whose JSON Lines are fixtures too when `recordings` says so.
pub fn import_fixtures(recordings: bool) -> Vec<(String, PathBuf)> {
    let mut all = Vec::new();
    for format in std::fs::read_dir(fixture_path("import")).unwrap() {
        let format = format.unwrap().path();
        let name = format.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&format).unwrap() {
            let path = file.unwrap().path();
            if path.is_dir() {
                if recordings {
                    for inner in std::fs::read_dir(&path).unwrap() {
                        let inner = inner.unwrap().path();
                        if inner.extension().is_some_and(|e| e == "jsonl") {
                            all.push((name.clone(), inner));
                        }
                    }
                }
                continue;
            }
            if path.extension().is_some_and(|extension| extension == "md") {
                continue;
            }
            all.push((name.clone(), path));
        }
    }
    all.sort();
    assert!(all.len() >= 40, "fixtures missing: {}", all.len());
    all
}

/// A fixture parsed as JSON (numbers and member order kept).
pub fn fixture(relative: &str) -> Value {
    let text = std::fs::read_to_string(fixture_path(relative)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The bundled example histories directory.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/histories")
}

/// The document with the value at `pointer` replaced, or removed when `value` is None;
/// a missing last segment is added.
pub fn mutated(document: &Value, pointer: &str, value: Option<Value>) -> Value {
    let mut document = document.clone();
    if pointer.is_empty() {
        return value.unwrap();
    }
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let last = last.replace("~1", "/").replace("~0", "~");
    let parent = document.pointer_mut(parent).unwrap();
    match (parent, value) {
        (Value::Object(members), Some(value)) => {
            members.insert(last, value);
        }
        (Value::Object(members), None) => {
            members.shift_remove(&last);
        }
        (Value::Array(items), Some(value)) => items[last.parse::<usize>().unwrap()] = value,
        (Value::Array(items), None) => {
            items.remove(last.parse::<usize>().unwrap());
        }
        (other, _) => panic!("cannot mutate inside {other}"),
    }
    document
}

/// Every environment variable through which ihigraph takes a store, an endpoint, its
/// credentials or the server's token: a command a test starts goes without them, so that
/// nothing of the tester's shell reaches it.
pub const IHIGRAPH_VARIABLES: &[&str] = &[
    "IHIGRAPH_STORE",
    "IHIGRAPH_ENDPOINT",
    "IHIGRAPH_UPDATE_ENDPOINT",
    "IHIGRAPH_GRAPH_STORE",
    "IHIGRAPH_ENDPOINT_USER",
    "IHIGRAPH_ENDPOINT_PASSWORD",
    "IHIGRAPH_ENDPOINT_TOKEN",
    "IHIGRAPH_ALLOW_BASIC_OVER_HTTP",
    "IHIGRAPH_TOKEN",
];

/// The `ihigraph` binary with a store in `store`.
pub fn ihigraph(store: &Path) -> Command {
    let mut command = Command::cargo_bin("ihigraph").unwrap();
    command
        .arg("--store")
        .arg(store)
        .env_remove("IHIGRAPH_STORE");
    command
}

/// Every quad of the on-disk store in `store`, as sorted N-Quads lines (the store must
/// not be open elsewhere).
pub fn store_dump(store: &Path) -> Vec<String> {
    let store = oxigraph::store::Store::open(store).unwrap();
    let mut lines: Vec<String> = store
        .iter()
        .map(|quad| format!("{} .", quad.unwrap()))
        .collect();
    lines.sort();
    lines
}

/// Number of quads in the session graphs of the on-disk store in `store` (the settings
/// and the ontology graphs left out).
pub fn session_quad_count(store: &Path) -> usize {
    let store = oxigraph::store::Store::open(store).unwrap();
    store
        .iter()
        .filter(|quad| {
            quad.as_ref()
                .unwrap()
                .graph_name
                .to_string()
                .starts_with("<https://w3id.org/ihigraph/id/graph/")
        })
        .count()
}

/// A bundled example history, parsed.
pub fn example(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(examples_dir().join(name)).unwrap()).unwrap()
}

/// Checks and stores a valid document, through the library.
pub fn ingest(store: &ihigraph::HistoryStore, document: &Value) {
    let checked = ihigraph::check_document(document, ihigraph::CheckOptions::default());
    let errors: Vec<String> = checked.errors().map(ToString::to_string).collect();
    let history = checked.history.unwrap_or_else(|| panic!("{errors:?}"));
    store
        .write_session(&ihigraph::rdf::map_history(&history, store.scheme()))
        .unwrap();
}

/// What `ihigraph ontology` prints: both ontologies, as Turtle.
pub fn shipped_ontologies() -> Vec<u8> {
    Command::cargo_bin("ihigraph")
        .unwrap()
        .arg("ontology")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

/// Ingests the bundled examples, the extra `paths`, and a generated corpus of `sessions`
/// sessions (seed `seed`, written beside the store) into the on-disk store `store`.
#[allow(dead_code)] // Not every test file uses every helper.
pub fn ingest_examples_and_corpus(store: &Path, paths: &[PathBuf], sessions: usize, seed: u64) {
    let corpus = store.with_extension("corpus.jsonl");
    let generated = ihigraph(store)
        .args([
            "generate",
            "--sessions",
            &sessions.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .output()
        .unwrap();
    std::fs::write(&corpus, generated.stdout).unwrap();
    ihigraph(store)
        .arg("ingest")
        .arg(examples_dir())
        .args(paths)
        .arg(&corpus)
        .assert()
        .success();
}

/// The code-review example as session `id` with one turn at each of `times` (RFC 3339,
/// UTC, whole seconds), its turns taken from the example's in turn: a history whose
/// activity is exactly where a test wants it. No times give a session without turns.
pub fn history_at(id: &str, times: &[&str]) -> Value {
    let mut document = example("code-review-abc.json");
    let turns: Vec<Value> = document["Turns"].as_array().unwrap().clone();
    let millis = |time: &str| -> u64 {
        let time: oxsdatatypes::DateTime = time.parse().unwrap();
        let epoch: oxsdatatypes::DateTime = "1970-01-01T00:00:00Z".parse().unwrap();
        let seconds = time.checked_sub(epoch).unwrap().as_seconds().to_string();
        seconds.parse::<u64>().unwrap() * 1000
    };
    let stamp = |name: String, time: &str| {
        serde_json::json!({
            "Header": "OSD-STM-V1.5",
            "SimpleTimeID": name,
            "SimpleTimeData": [{
                "FlagsByte": 3,
                "StartTime": millis(time),
                "EndTime": millis(time),
                "AccuracyMode": "single",
                "AccuracyPlusMinus": 1
            }]
        })
    };
    document["SessionID"] = Value::from(id);
    if let Some(first) = times.first() {
        document["SessionStartTime"] = stamp(format!("{id}-start"), first);
    }
    document["Turns"] = times
        .iter()
        .enumerate()
        .map(|(at, time)| {
            let mut turn = turns[at % turns.len()].clone();
            turn["TurnIndex"] = Value::from(at);
            turn["Timestamp"] = stamp(format!("{id}-turn-{at}"), time);
            turn
        })
        .collect();
    document["TurnCount"] = Value::from(times.len());
    document
}

/// Ingests documents into the on-disk store `store`, as JSON Lines on standard input.
pub fn ingest_documents(store: &Path, documents: &[Value]) {
    let lines: String = documents
        .iter()
        .map(|document| format!("{document}\n"))
        .collect();
    ihigraph(store)
        .args(["ingest", "-"])
        .write_stdin(lines)
        .assert()
        .success();
}

/// Activity that spans one hour, one day, a month and two years: for each, its name,
/// the unit the report's time charts take for it, how many periods they have, and its
/// sessions.
pub fn activity_spans() -> Vec<(&'static str, &'static str, usize, Vec<Value>)> {
    let sessions = |day: &str, sessions: &[&[&str]]| -> Vec<Value> {
        sessions
            .iter()
            .enumerate()
            .map(|(at, times)| {
                let times: Vec<String> = times
                    .iter()
                    .map(|time| match time.len() {
                        8 => format!("{day}T{time}Z"),
                        _ => format!("{time}Z"),
                    })
                    .collect();
                let times: Vec<&str> = times.iter().map(String::as_str).collect();
                history_at(&format!("span-{at}"), &times)
            })
            .collect()
    };
    vec![
        (
            "one hour",
            "minute",
            60,
            sessions(
                "2026-03-10",
                &[
                    &["09:00:00", "09:00:40", "09:01:10", "09:02:00"],
                    &["09:15:00", "09:15:30", "09:31:00"],
                    &["09:58:00", "09:59:00"],
                ],
            ),
        ),
        (
            "one day",
            "hour",
            24,
            sessions(
                "2026-03-10",
                &[
                    &["00:05:00", "00:06:00", "01:20:00"],
                    &["09:00:00", "09:00:30", "09:45:00", "13:10:00"],
                    &["23:40:00", "23:59:59"],
                ],
            ),
        ),
        (
            "a month",
            "day",
            31,
            sessions(
                "",
                &[
                    &["2026-03-01T10:00:00", "2026-03-01T10:05:00"],
                    &["2026-03-09T08:00:00", "2026-03-10T08:00:00"],
                    &["2026-03-17T12:00:00"],
                    &["2026-03-31T22:00:00", "2026-03-31T23:00:00"],
                ],
            ),
        ),
        (
            "two years",
            "month",
            25,
            sessions(
                "",
                &[
                    &["2024-03-15T08:00:00", "2024-03-15T08:01:00"],
                    &["2025-01-20T10:00:00", "2025-02-03T10:00:00"],
                    &["2025-07-04T09:00:00"],
                    &["2026-03-14T18:00:00", "2026-03-14T18:30:00"],
                ],
            ),
        ),
    ]
}
