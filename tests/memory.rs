//! Memory items through the command line: `remember` makes them with their provenance,
//! `memory` lists them (by session, kind and time), queries in Jido's design vocabulary
//! and in jidoka's core vocabulary find them, `forget` removes one, and `delete` of a
//! session removes the items derived only from it, unlinks the others, and proves with
//! its receipt that nothing in the store still mentions the session.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{examples_dir, ihigraph};
use std::path::Path;

fn out(store: &Path, args: &[&str]) -> String {
    let output = ihigraph(store).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn status(store: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = ihigraph(store).args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `ihigraph ARGS... TEXT`, ARGS split on spaces (TEXT, the last, kept whole).
fn run(store: &Path, args: &str, text: &str) -> (Option<i32>, String, String) {
    let mut all: Vec<&str> = args.split_whitespace().collect();
    all.push(text);
    let output = ihigraph(store).args(&all).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `remember`, which must succeed; what it said.
fn remember(store: &Path, args: &str, text: &str) -> String {
    let (code, stdout, stderr) = run(store, &format!("remember {args}"), text);
    assert_eq!(code, Some(0), "{args} {text}: {stderr}");
    stdout
}

/// A store with the bundled examples.
fn store() -> tempfile::TempDir {
    let store = tempfile::tempdir().unwrap();
    out(store.path(), &["ingest", examples_dir().to_str().unwrap()]);
    store
}

fn sparql(store: &Path, query: &str) -> Vec<String> {
    out(store, &["sparql", "--format", "tsv", query])
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}

#[test]
fn remember_writes_an_item_with_its_provenance() {
    let store = store();
    let lesson = "CI runs with MIX_ENV=ci: every environment needs its config file";
    let said = remember(
        store.path(),
        "--session abc --turn 2 --kind lesson --valid-from 2026-01-01",
        lesson,
    );
    assert!(said.starts_with("remembered lesson "), "{said}");
    let id = said.split_whitespace().nth(2).unwrap().to_owned();
    let rows = out(store.path(), &["memory", "--format", "tsv"]);
    let lines: Vec<&str> = rows.lines().collect();
    assert_eq!(lines.len(), 2, "{rows}");
    let columns: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(columns[0], format!("\"{id}\""));
    assert!(columns[1].ends_with("#LessonLearned>"), "{}", columns[1]);
    assert_eq!(columns[2], format!("\"{lesson}\""));
    assert_eq!((columns[3], columns[4]), ("\"abc\"", "2"));
    assert!(
        columns[6].starts_with("\"2026-01-01T00:00:00Z\""),
        "{}",
        columns[6]
    );
    // Its provenance, in PROV-O and Jido terms.
    let facts = sparql(
        store.path(),
        &format!(
            "PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX jido: <https://jido.ai/ontology#>
             PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
             SELECT ?turn ?ws ?source ?generated WHERE {{ GRAPH ?m {{ ?item ihi:memoryId \"{id}\" ;
               prov:wasDerivedFrom ?turn ; jido:assertedIn ?ws ; jido:hasSourceType ?source ;
               prov:generatedAtTime ?generated }} }}"
        ),
    );
    assert_eq!(facts.len(), 1, "{facts:?}");
    let columns: Vec<&str> = facts[0].split('\t').collect();
    assert!(
        columns[0].ends_with("/conversation/abc/turn/2>"),
        "{}",
        columns[0]
    );
    assert_eq!(columns[1], "<https://jido.ai/ontology#session_abc>");
    // Turn 2 of abc is the agent's, adding tool results only: a tool is the source.
    assert_eq!(columns[2], "<https://jido.ai/ontology#ToolSource>");
    found_in_both_vocabularies(store.path());
    // The same lesson from another turn is the same item, with a second source.
    let again = remember(
        store.path(),
        "--session trip-kyoto-2026 --turn 0 --kind lesson",
        lesson,
    );
    assert!(
        again.starts_with(&format!("added a source to lesson {id}")),
        "{again}"
    );
    assert_eq!(
        out(store.path(), &["memory", "--format", "tsv"])
            .lines()
            .count(),
        3
    );
    let args = ["memory", "--session", "trip-kyoto-2026", "--format", "tsv"];
    let sources = out(store.path(), &args);
    assert!(
        sources
            .lines()
            .nth(1)
            .unwrap()
            .contains("\"trip-kyoto-2026\"\t0"),
        "{sources}"
    );
}

/// The lesson abc's turn 2 gave is found as a jido: and as a jcore: class, and by the
/// memory-items canned query.
fn found_in_both_vocabularies(store: &Path) {
    for class in [
        "<https://jido.ai/ontology#LessonLearned>",
        "<https://jido.ai/ontologies/core#LessonLearned>",
        "<https://jido.ai/ontologies/core#Memory>",
    ] {
        let query = format!("SELECT ?item WHERE {{ GRAPH ?g {{ ?item a {class} }} }}");
        assert_eq!(sparql(store, &query).len(), 1, "{class}");
    }
    let args = "query memory-items -p session=abc -p class=jido:LessonLearned --format";
    let (code, items, _) = run(store, args, "tsv");
    assert_eq!((code, items.lines().count()), (Some(0), 2), "{items}");
}

#[test]
fn memory_lists_by_kind_and_time_and_forget_removes() {
    let store = store();
    remember(
        store.path(),
        "--session abc --turn 0 --kind fact",
        "Config lives in config/",
    );
    let window = "--valid-from 2026-02-01T00:00:00Z --valid-until 2026-03-01T00:00:00Z";
    let decision = format!("--session abc --turn 3 --kind decision {window}");
    remember(store.path(), &decision, "Add config/ci.exs");
    let count = |args: &str| {
        let (code, rows, stderr) = run(store.path(), &format!("memory {args} --format"), "tsv");
        assert_eq!(code, Some(0), "{stderr}");
        rows.lines().count() - 1
    };
    assert_eq!(count(""), 2);
    assert_eq!(count("--kind fact"), 1);
    assert_eq!(count("--kind decision"), 1);
    assert_eq!(count("--at 2026-02-15"), 2);
    assert_eq!(count("--at 2026-03-01T00:00:00Z"), 1, "until is exclusive");
    assert_eq!(count("--at 2026-01-15"), 1);
    assert_eq!(count("--session trip-kyoto-2026"), 0);
    // A query in jidoka's vocabulary finds the decision.
    let core = sparql(
        store.path(),
        "SELECT ?d WHERE { GRAPH ?g { ?d a <https://jido.ai/ontologies/core#Decision> } }",
    );
    assert_eq!(core.len(), 1);

    let fact = out(
        store.path(),
        &["memory", "--kind", "fact", "--format", "tsv"],
    );
    let id = fact
        .lines()
        .nth(1)
        .unwrap()
        .split('\t')
        .next()
        .unwrap()
        .trim_matches('"');
    assert!(out(store.path(), &["forget", id]).starts_with(&format!("forgot {id}")));
    assert_eq!(count(""), 1);
    let (code, stderr) = status(store.path(), &["forget", id]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no memory item"), "{stderr}");
}

#[test]
fn bad_memory_requests_are_refused_and_change_nothing() {
    let store = store();
    let cases = [
        (
            "--session abc --turn 99 --kind fact",
            "x",
            1,
            "has no turn 99",
        ),
        (
            "--session nope --turn 0 --kind fact",
            "x",
            1,
            "no session \"nope\"",
        ),
        (
            "--session abc --turn 0 --kind fact --valid-from 2026-03-01 --valid-until 2026-02-01",
            "x",
            2,
            "never holds",
        ),
        (
            "--session abc --turn 0 --kind fact --valid-from soon",
            "x",
            2,
            "--valid-from: \"soon\" is not a time",
        ),
        (
            "--session abc --turn 0 --kind fact",
            "  ",
            1,
            "needs a text",
        ),
    ];
    for (args, text, expected, message) in cases {
        let (code, _, stderr) = run(store.path(), &format!("remember {args}"), text);
        assert_eq!(code, Some(expected), "{args}: {stderr}");
        assert!(stderr.contains(message), "{args}: {stderr}");
    }
    assert_eq!(
        out(store.path(), &["memory", "--format", "tsv"])
            .lines()
            .count(),
        1
    );
}

#[test]
fn delete_takes_the_sessions_memory_and_proves_nothing_is_left() {
    let store = store();
    let quads_before = out(store.path(), &["info"]);
    remember(
        store.path(),
        "--session abc --turn 0 --kind fact",
        "only from abc",
    );
    remember(
        store.path(),
        "--session abc --turn 1 --kind fact",
        "from both",
    );
    remember(
        store.path(),
        "--session trip-kyoto-2026 --turn 1 --kind fact",
        "from both",
    );
    remember(
        store.path(),
        "--session trip-kyoto-2026 --turn 2 --kind decision",
        "only kyoto",
    );
    assert_eq!(
        out(store.path(), &["info"]),
        quads_before,
        "memory is not session quads"
    );

    let graph = "<https://w3id.org/ihigraph/id/graph/abc>";
    let triples = sparql(
        store.path(),
        &format!("SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {graph} {{ ?s ?p ?o }} }}"),
    );
    let triples = triples[0]
        .trim_matches('"')
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let dry = out(store.path(), &["delete", "--session", "abc", "--dry-run"]);
    assert!(dry.starts_with("would delete session \"abc\""), "{dry}");
    assert!(
        dry.contains(&format!("{graph}: {triples} triples")),
        "{dry}"
    );
    assert!(
        dry.contains("removed (derived from this session only): 1"),
        "{dry}"
    );
    assert!(
        dry.contains("unlinked (derived from other sessions too): 1"),
        "{dry}"
    );
    assert!(dry.contains("check: no triple"), "{dry}");
    let memory = || out(store.path(), &["memory", "--format", "tsv"]);
    assert_eq!(memory().lines().count(), 5, "a dry run deletes nothing");

    let receipt = out(store.path(), &["delete", "--session", "abc"]);
    assert!(receipt.starts_with("deleted session \"abc\""), "{receipt}");
    let clean = "check: no triple in the store's named graphs mentions the session";
    assert!(receipt.contains(clean), "{receipt}");
    let left = memory();
    let texts: Vec<&str> = left
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(2).unwrap())
        .collect();
    assert_eq!(texts, ["\"from both\"", "\"only kyoto\""], "{left}");
    // Nothing anywhere still names abc: not its id, not its work session, not its IRIs.
    let mentions = sparql(
        store.path(),
        "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o }
           FILTER (?o = \"abc\" || CONTAINS(STR(?s), \"/abc\") || CONTAINS(STR(?o), \"/abc\")
                   || CONTAINS(STR(?o), \"session_abc\")) }",
    );
    assert!(mentions.is_empty(), "{mentions:?}");
    assert_eq!(
        status(store.path(), &["delete", "--session", "abc"]).0,
        Some(1)
    );

    out(store.path(), &["delete", "--all", "--yes"]);
    assert_eq!(memory().lines().count(), 1);
}
