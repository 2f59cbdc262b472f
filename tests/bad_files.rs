//! Files broken in every way a file can be (the schema and semantic rules are
//! `tests/rules.rs`): each is refused with its name, the place (line and column) and
//! the rule, a non-zero exit, and a store byte-for-byte as it was; in JSON Lines the
//! good lines are stored and each bad one is named by its line.
#![allow(clippy::unwrap_used)]

mod common;

use common::{fixture_path, ihigraph, store_dump};
use predicates::prelude::*;
use predicates::str::contains;
use std::io::Write;
use std::path::Path;
use test_case::test_case;

/// Ingests `input` into a store that already holds a session, and checks the refusal.
fn refused(input: &Path, expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(fixture_path("valid/complete.json"))
        .assert()
        .success();
    let before = store_dump(&store);
    let mut assertion = ihigraph(&store).arg("ingest").arg(input).assert().code(1);
    for text in expected {
        assertion = assertion.stderr(contains(*text));
    }
    assertion.stdout(contains("refused 1 document (nothing of them was stored)"));
    assert_eq!(store_dump(&store), before, "the store changed");
}

#[test_case("empty.json", &["empty.json:1:1: error[syntax]: the input is empty"] ; "empty")]
#[test_case("truncated.json", &["truncated.json:24:22: error[syntax]: invalid JSON: EOF while parsing an object"] ; "truncated")]
#[test_case("not-json.json", &["not-json.json:1:1: error[syntax]: expected a JSON value"] ; "not json")]
#[test_case("array.json", &["array.json: (document): error[type]: expected an object, found an array"] ; "a json array")]
#[test_case("invalid-utf8.json", &["invalid-utf8.json:14:31: error[syntax]", "input must be UTF-8"] ; "invalid utf-8")]
#[test_case("byte-order-mark.json", &["byte-order-mark.json:1:1: error[syntax]", "byte-order mark"] ; "byte-order mark")]
fn a_broken_file_is_refused_and_changes_nothing(name: &str, expected: &[&str]) {
    refused(&fixture_path(&format!("invalid/{name}")), expected);
}

#[test]
fn in_json_lines_the_good_lines_are_stored_and_the_bad_ones_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(fixture_path("invalid/one-bad-line.jsonl"))
        .assert()
        .code(1)
        .stdout(contains("ingested 3 sessions").and(contains("refused 2 documents")))
        .stderr(contains("one-bad-line.jsonl:3: /Turns/1/Role: error[enum]"))
        .stderr(contains(
            "one-bad-line.jsonl:5:37: error[syntax]: invalid JSON: EOF while parsing a list",
        ));
    let dump = store_dump(&store).join("\n");
    for good in ["jsonl-good-0", "jsonl-good-1", "jsonl-good-2"] {
        assert!(
            dump.contains(&format!("\"{good}\"")),
            "{good} was not stored"
        );
    }
    assert!(!dump.contains("jsonl-bad"));
}

#[test]
fn nesting_100_000_deep_is_refused_without_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("{\"Header\": \"PGM-IHI-V1.0\", \"PRCPrompt\": ");
    text.push_str(&"[".repeat(100_000));
    text.push_str(&"]".repeat(100_000));
    text.push('}');
    let input = dir.path().join("deep.json");
    std::fs::write(&input, text).unwrap();
    refused(&input, &["deep.json:1:", "error[syntax]", "nest"]);
}

#[test]
fn a_huge_string_is_refused_by_its_rule() {
    // 64 MiB of text where at most 2048 characters are allowed.
    let mut document: serde_json::Value = common::fixture("valid/complete.json");
    document["DescrMetadata"] = serde_json::Value::String("x".repeat(64 << 20));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("huge-string.json");
    std::fs::write(&input, document.to_string()).unwrap();
    refused(
        &input,
        &[
            "huge-string.json: /DescrMetadata: error[maxLength]",
            "at most 2048 characters",
        ],
    );
}

#[test]
fn a_gigabyte_of_garbage_is_refused_at_its_first_byte() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("garbage.json");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    let block: Vec<u8> = (0..1 << 20)
        .map(|i: u32| b"#garbage\x01\xfe"[(i % 10) as usize])
        .collect();
    for _ in 0..1024 {
        file.write_all(&block).unwrap();
    }
    file.flush().unwrap();
    drop(file);
    assert_eq!(std::fs::metadata(&input).unwrap().len(), 1 << 30);
    refused(&input, &["garbage.json:1:1: error[syntax]"]);
}
