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
    let said = out(
        store.path(),
        &[
            "remember",
            "--session",
            "abc",
            "--turn",
            "2",
            "--kind",
            "lesson",
            "--valid-from",
            "2026-01-01",
            "CI runs with MIX_ENV=ci: every environment needs its config file",
        ],
    );
    assert!(said.starts_with("remembered lesson "), "{said}");
    let id = said.split_whitespace().nth(2).unwrap().to_owned();
    let rows = out(store.path(), &["memory", "--format", "tsv"]);
    let lines: Vec<&str> = rows.lines().collect();
    assert_eq!(lines.len(), 2, "{rows}");
    let columns: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(columns[0], format!("\"{id}\""));
    assert!(columns[1].ends_with("#LessonLearned>"), "{}", columns[1]);
    assert_eq!(
        columns[2],
        "\"CI runs with MIX_ENV=ci: every environment needs its config file\""
    );
    assert_eq!(columns[3], "\"abc\"");
    assert_eq!(columns[4], "2");
    assert!(
        columns[6].starts_with("\"2026-01-01T00:00:00Z\""),
        "{}",
        columns[6]
    );
    // Its provenance, in PROV-O and Jido terms.
    let facts = sparql(
        store.path(),
        &format!(
            "PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX jido: <https://jido.ai/ontology#> PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
             SELECT ?turn ?ws ?source ?generated WHERE {{ GRAPH ?m {{ ?item ihi:memoryId \"{id}\" ; prov:wasDerivedFrom ?turn ;
               jido:assertedIn ?ws ; jido:hasSourceType ?source ; prov:generatedAtTime ?generated }} }}"
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
    // Turn 2 of abc is the agent's, with tool results only: a tool is the source.
    assert_eq!(columns[2], "<https://jido.ai/ontology#ToolSource>");
    // Found in both vocabularies, and by the memory-items canned query.
    for class in [
        "<https://jido.ai/ontology#LessonLearned>",
        "<https://jido.ai/ontologies/core#LessonLearned>",
        "<https://jido.ai/ontologies/core#Memory>",
    ] {
        let found = sparql(
            store.path(),
            &format!("SELECT ?item WHERE {{ GRAPH ?g {{ ?item a {class} }} }}"),
        );
        assert_eq!(found.len(), 1, "{class}: {found:?}");
    }
    let items = out(
        store.path(),
        &[
            "query",
            "memory-items",
            "-p",
            "session=abc",
            "-p",
            "class=jido:LessonLearned",
            "--format",
            "tsv",
        ],
    );
    assert_eq!(items.lines().count(), 2, "{items}");
    // The same lesson from another turn is the same item, with a second source.
    let again = out(
        store.path(),
        &[
            "remember",
            "--session",
            "trip-kyoto-2026",
            "--turn",
            "0",
            "--kind",
            "lesson",
            "CI runs with MIX_ENV=ci: every environment needs its config file",
        ],
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
    let sources = out(
        store.path(),
        &["memory", "--session", "trip-kyoto-2026", "--format", "tsv"],
    );
    assert!(
        sources
            .lines()
            .nth(1)
            .unwrap()
            .contains("\"trip-kyoto-2026\"\t0"),
        "{sources}"
    );
}

#[test]
fn memory_lists_by_kind_and_time_and_forget_removes() {
    let store = store();
    out(
        store.path(),
        &[
            "remember",
            "--session",
            "abc",
            "--turn",
            "0",
            "--kind",
            "fact",
            "Config lives in config/",
        ],
    );
    out(
        store.path(),
        &[
            "remember",
            "--session",
            "abc",
            "--turn",
            "3",
            "--kind",
            "decision",
            "--valid-from",
            "2026-02-01T00:00:00Z",
            "--valid-until",
            "2026-03-01T00:00:00Z",
            "Add config/ci.exs",
        ],
    );
    let count = |args: &[&str]| out(store.path(), args).lines().count() - 1;
    assert_eq!(count(&["memory", "--format", "tsv"]), 2);
    assert_eq!(count(&["memory", "--kind", "fact", "--format", "tsv"]), 1);
    assert_eq!(
        count(&["memory", "--kind", "decision", "--format", "tsv"]),
        1
    );
    assert_eq!(
        count(&["memory", "--at", "2026-02-15", "--format", "tsv"]),
        2
    );
    assert_eq!(
        count(&["memory", "--at", "2026-03-01T00:00:00Z", "--format", "tsv"]),
        1,
        "until is exclusive"
    );
    assert_eq!(
        count(&["memory", "--at", "2026-01-15", "--format", "tsv"]),
        1
    );
    assert_eq!(
        count(&["memory", "--session", "trip-kyoto-2026", "--format", "tsv"]),
        0
    );
    // A query in jidoka's vocabulary finds the decision.
    let core = sparql(
        store.path(),
        "PREFIX jcore: <https://jido.ai/ontologies/core#> SELECT ?d WHERE { GRAPH ?g { ?d a jcore:Decision } }",
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
        .trim_matches('"')
        .to_owned();
    assert!(out(store.path(), &["forget", &id]).starts_with(&format!("forgot {id}")));
    assert_eq!(count(&["memory", "--format", "tsv"]), 1);
    let (code, stderr) = status(store.path(), &["forget", &id]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no memory item"), "{stderr}");
}

#[test]
fn bad_memory_requests_are_refused_and_change_nothing() {
    let store = store();
    let cases: [(&[&str], i32, &str); 5] = [
        (
            &[
                "remember",
                "--session",
                "abc",
                "--turn",
                "99",
                "--kind",
                "fact",
                "x",
            ],
            1,
            "has no turn 99",
        ),
        (
            &[
                "remember",
                "--session",
                "nope",
                "--turn",
                "0",
                "--kind",
                "fact",
                "x",
            ],
            1,
            "no session \"nope\"",
        ),
        (
            &[
                "remember",
                "--session",
                "abc",
                "--turn",
                "0",
                "--kind",
                "fact",
                "--valid-from",
                "2026-03-01",
                "--valid-until",
                "2026-02-01",
                "x",
            ],
            2,
            "never holds",
        ),
        (
            &[
                "remember",
                "--session",
                "abc",
                "--turn",
                "0",
                "--kind",
                "fact",
                "--valid-from",
                "soon",
                "x",
            ],
            2,
            "--valid-from: \"soon\" is not a time",
        ),
        (
            &[
                "remember",
                "--session",
                "abc",
                "--turn",
                "0",
                "--kind",
                "fact",
                "  ",
            ],
            1,
            "needs a text",
        ),
    ];
    for (args, expected, message) in cases {
        let (code, stderr) = status(store.path(), args);
        assert_eq!(code, Some(expected), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
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
    out(
        store.path(),
        &[
            "remember",
            "--session",
            "abc",
            "--turn",
            "0",
            "--kind",
            "fact",
            "only from abc",
        ],
    );
    out(
        store.path(),
        &[
            "remember",
            "--session",
            "abc",
            "--turn",
            "1",
            "--kind",
            "fact",
            "from both",
        ],
    );
    out(
        store.path(),
        &[
            "remember",
            "--session",
            "trip-kyoto-2026",
            "--turn",
            "1",
            "--kind",
            "fact",
            "from both",
        ],
    );
    out(
        store.path(),
        &[
            "remember",
            "--session",
            "trip-kyoto-2026",
            "--turn",
            "2",
            "--kind",
            "decision",
            "only from kyoto",
        ],
    );
    assert_eq!(
        out(store.path(), &["info"]),
        quads_before,
        "memory is not counted as session quads"
    );

    let graph_triples = sparql(
        store.path(),
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <https://w3id.org/ihigraph/id/graph/abc> { ?s ?p ?o } }",
    );
    let dry = out(store.path(), &["delete", "--session", "abc", "--dry-run"]);
    assert!(dry.starts_with("would delete session \"abc\""), "{dry}");
    assert!(
        dry.contains(&format!(
            "{} triples",
            graph_triples[0]
                .trim_matches('"')
                .split('^')
                .next()
                .unwrap()
        )),
        "{dry}\n{graph_triples:?}"
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
    assert_eq!(
        out(store.path(), &["memory", "--format", "tsv"])
            .lines()
            .count(),
        5,
        "a dry run deletes nothing"
    );

    let receipt = out(store.path(), &["delete", "--session", "abc"]);
    assert!(receipt.starts_with("deleted session \"abc\""), "{receipt}");
    assert!(
        receipt.contains("check: no triple in the store's named graphs mentions the session"),
        "{receipt}"
    );
    let left = out(store.path(), &["memory", "--format", "tsv"]);
    let texts: Vec<&str> = left
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(2).unwrap())
        .collect();
    assert_eq!(texts, ["\"from both\"", "\"only from kyoto\""], "{left}");
    // Nothing anywhere still names abc: not its id, not its work session, not its IRIs.
    let mentions = sparql(
        store.path(),
        "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o }
           FILTER (?o = \"abc\" || CONTAINS(STR(?s), \"/abc\") || CONTAINS(STR(?o), \"/abc\") || CONTAINS(STR(?o), \"session_abc\")) }",
    );
    assert!(mentions.is_empty(), "{mentions:?}");
    let (code, _) = status(store.path(), &["delete", "--session", "abc"]);
    assert_eq!(code, Some(1));

    out(store.path(), &["delete", "--all", "--yes"]);
    assert_eq!(
        out(store.path(), &["memory", "--format", "tsv"])
            .lines()
            .count(),
        1
    );
}
