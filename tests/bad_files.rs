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

#[test]
fn a_json_lines_line_longer_than_the_limit_is_refused_without_being_held() {
    // A line of 257 MiB without a newline inside, between two good lines: it is read
    // up to the limit, skipped to its end, and named by its line.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("long-line.jsonl");
    let mut good: serde_json::Value = common::fixture("valid/complete.json");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    good["SessionID"] = "before-the-long-line".into();
    writeln!(file, "{good}").unwrap();
    file.write_all(b"{\"SessionID\": \"").unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..257 {
        file.write_all(&block).unwrap();
    }
    file.write_all(b"\"}\n").unwrap();
    good["SessionID"] = "after-the-long-line".into();
    writeln!(file, "{good}").unwrap();
    file.flush().unwrap();
    drop(file);
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(&input)
        .assert()
        .code(1)
        .stdout(contains("ingested 2 sessions").and(contains("refused 1 document")))
        .stderr(contains(
            "long-line.jsonl:2: error[size]: document longer than 256 MiB",
        ));
    let dump = store_dump(&store).join("\n");
    assert!(dump.contains("before-the-long-line") && dump.contains("after-the-long-line"));
}

#[test]
fn a_document_longer_than_the_bound_is_refused_in_every_kind_of_file() {
    let dir = tempfile::tempdir().unwrap();
    let document = common::fixture("valid/complete.json").to_string();
    let limit = u64::try_from(document.len()).unwrap() - 1;
    std::fs::write(dir.path().join("a.json"), &document).unwrap();
    std::fs::write(
        dir.path().join("b.jsonl"),
        format!("{document}\n{{\"short\": 1}}\n"),
    )
    .unwrap();
    let read: Vec<_> =
        ihigraph::read::read_documents_up_to(&[dir.path().to_owned()], limit).collect();
    let outcomes: Vec<(String, String)> = read
        .iter()
        .map(|d| {
            let outcome = match &d.value {
                Ok(_) => "read".to_owned(),
                Err(error) => error.to_string(),
            };
            (d.origin.to_string(), outcome)
        })
        .collect();
    let too_long = "document longer than 0 MiB, the most ihigraph reads as one document";
    let name = |file: &str| dir.path().join(file).display().to_string();
    assert_eq!(
        outcomes,
        [
            (name("a.json"), too_long.to_owned()),
            (format!("{}:1", name("b.jsonl")), too_long.to_owned()),
            (format!("{}:2", name("b.jsonl")), "read".to_owned()),
        ]
    );
    // At the limit exactly, it is read.
    let at_limit = limit + 1;
    assert!(
        ihigraph::read::read_documents_up_to(&[dir.path().to_owned()], at_limit)
            .all(|d| d.value.is_ok())
    );
}
