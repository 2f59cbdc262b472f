//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

pub mod servers;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Path of a file under `tests/fixtures`.
pub fn fixture_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
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
