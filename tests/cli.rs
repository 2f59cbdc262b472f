//! The `ihigraph` command line, driven as a user would.
#![allow(clippy::unwrap_used)]

mod common;

use common::{examples_dir, fixture_path, ihigraph, session_quad_count, store_dump};
use oxigraph::io::{RdfFormat, RdfParser};
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;
use std::path::Path;

fn ingest_examples(store: &Path) {
    ihigraph(store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success()
        .stdout(contains(
            "ingested 4 sessions (0 replaced, 0 unchanged), 16 turns",
        ));
}

/// The rows of a `sparql --format json` run, each binding as its value text.
fn json_rows(output: &[u8]) -> Vec<Vec<(String, String)>> {
    let results: Value = serde_json::from_slice(output).unwrap();
    results["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_object()
                .unwrap()
                .iter()
                .map(|(name, term)| (name.clone(), term["value"].as_str().unwrap().to_owned()))
                .collect()
        })
        .collect()
}

fn row(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

#[test]
fn demo_ingests_the_examples_and_shows_turns_and_tool_calls() {
    let dir = tempfile::tempdir().unwrap();
    ihigraph(&dir.path().join("store"))
        .arg("demo")
        .assert()
        .success()
        .stdout(contains("ingested 4 sessions"))
        .stdout(contains("Session \"abc\": recent turns"))
        .stdout(contains("Thanks, that was it."))
        .stdout(contains("ReadFile"))
        .stdout(contains("search_knowledge_base"));
}

const DESIGN_QUERY_RECENT_TURNS: &str = r"
PREFIX ch: <https://jido.ai/ontology/conversation-history#>
PREFIX jido: <https://jido.ai/ontology#>

SELECT ?turnIndex ?promptText ?answerText ?turnTimestamp
WHERE {
  ?conversation a ch:Conversation ;
               ch:associatedWithSession jido:session_abc .
  ?turn ch:partOfConversation ?conversation ;
       ch:turnIndex ?turnIndex ;
       ch:hasPrompt/ch:promptText ?promptText ;
       ch:hasAnswer/ch:answerText ?answerText ;
       (ch:hasPrompt | ch:hasAnswer)/ch:timestamp ?turnTimestamp .
}
ORDER BY DESC(?turnIndex)
LIMIT 3
";

const DESIGN_QUERY_TOOL_INVOCATIONS: &str = r#"
PREFIX ch: <https://jido.ai/ontology/conversation-history#>
PREFIX jido: <https://jido.ai/ontology#>

SELECT ?turnIndex ?toolName ?invocationTimestamp ?resultData
WHERE {
  ?conversation a ch:Conversation ;
               ch:associatedWithSession jido:session_abc .
  ?turn ch:partOfConversation ?conversation ;
       ch:turnIndex ?turnIndex ;
       ch:involvesToolInvocation ?invocation .
  ?invocation ch:toolName "ReadFile" ;
               ch:timestamp ?invocationTimestamp ;
               ch:hasResult/ch:resultData ?resultData .
}
ORDER BY DESC(?invocationTimestamp)
"#;

/// The design document's first query: the last turns of session `abc` that have both a
/// prompt and an answer text; as written it yields one row per timestamp of prompt and
/// answer, so the newest turn appears twice within the LIMIT of 3.
#[test]
fn design_query_recent_turns_returns_the_expected_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let output = ihigraph(&store)
        .args(["sparql", "--format", "json", DESIGN_QUERY_RECENT_TURNS])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let last = row(&[
        ("turnIndex", "3"),
        ("promptText", "Thanks, that was it."),
        (
            "answerText",
            "Glad it helped. Shall I add config/ci.exs for you?",
        ),
        ("turnTimestamp", "2026-01-02T08:00:30Z"),
    ]);
    let first = row(&[
        ("turnIndex", "0"),
        (
            "promptText",
            "Why does `mix test` fail on CI but not locally? Please look at config.exs.",
        ),
        ("answerText", "Let me read the configuration."),
        ("turnTimestamp", "2026-01-02T08:00:00.5Z"),
    ]);
    assert_eq!(json_rows(&output), [last.clone(), last, first]);
}

/// The design document's second query: `ReadFile` calls of session `abc` with their
/// results, newest first. `?toolName` is projected but never bound (the pattern has the
/// constant "ReadFile"), so SPARQL leaves it out of every row.
#[test]
fn design_query_tool_invocations_returns_the_expected_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let output = ihigraph(&store)
        .args(["sparql", "--format", "json", DESIGN_QUERY_TOOL_INVOCATIONS])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        json_rows(&output),
        [
            row(&[
                ("turnIndex", "1"),
                ("invocationTimestamp", "2026-01-02T08:00:02.1Z"),
                ("resultData", "enoent: config/ci.exs does not exist"),
            ]),
            row(&[
                ("turnIndex", "0"),
                ("invocationTimestamp", "2026-01-02T08:00:00.5Z"),
                (
                    "resultData",
                    "import Config\nconfig :app, ecto_repos: [App.Repo]\nimport_config \"#{config_env()}.exs\"\n"
                ),
            ]),
        ]
    );
}

#[test]
fn sparql_formats_and_union_default_graph() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?c a <https://jido.ai/ontology/conversation-history#Conversation> }";
    ihigraph(&store)
        .args(["sparql", "--format", "csv", count])
        .assert()
        .success()
        .stdout("n\r\n4\r\n");
    ihigraph(&store)
        .args(["sparql", "--format", "tsv", count])
        .assert()
        .success()
        .stdout("?n\n4\n");
    ihigraph(&store)
        .args(["sparql", "--format", "table", count])
        .assert()
        .success()
        .stdout(contains("│ 4 │").and(contains("1 row")));
    ihigraph(&store)
        .args(["sparql", "--format", "json", "ASK { ?s ?p ?o }"])
        .assert()
        .success()
        .stdout(contains("\"boolean\":true"));
    let query_file = dir.path().join("q.rq");
    std::fs::write(&query_file, count).unwrap();
    ihigraph(&store)
        .args(["sparql", "--format", "csv", "--file"])
        .arg(&query_file)
        .assert()
        .success()
        .stdout("n\r\n4\r\n");
}

#[test]
fn sparql_errors_are_refusals() {
    let dir = tempfile::tempdir().unwrap();
    ihigraph(&dir.path().join("store"))
        .args(["sparql", "SELECT WHERE {"])
        .assert()
        .code(1)
        .stderr(contains("invalid SPARQL query"));
    let store = dir.path().join("store");
    let before = store_dump(&store);
    ihigraph(&store)
        .args([
            "sparql",
            "INSERT DATA { GRAPH <a:g> { <a:b> <a:b> <a:b> } }",
        ])
        .assert()
        .code(2)
        .stderr(contains("read-only unless --update"));
    assert_eq!(store_dump(&store), before);
    // LOAD would reach the network: it fails, and nothing is written.
    ihigraph(&store)
        .args([
            "sparql",
            "--update",
            "LOAD <http://example.com/data.ttl> INTO GRAPH <a:g>",
        ])
        .assert()
        .code(1)
        .stderr(contains("SPARQL update failed"));
    assert_eq!(store_dump(&store), before);
    ihigraph(&store)
        .args([
            "sparql",
            "--update",
            "INSERT DATA { GRAPH <a:g> { <a:b> <a:b> <a:b> } }",
        ])
        .assert()
        .success();
    ihigraph(&store)
        .args(["sparql", "--format", "csv", "ASK { <a:b> <a:b> <a:b> }"])
        .assert()
        .success()
        .stdout(contains("true"));
}

#[test]
fn validate_accepts_the_examples_and_refuses_syntax_errors_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    ihigraph(&dir.path().join("unused"))
        .arg("validate")
        .arg(examples_dir())
        .assert()
        .success()
        .stdout("4 valid, 0 refused, 0 warnings\n");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"Header\": @\n}").unwrap();
    ihigraph(&dir.path().join("unused"))
        .arg("validate")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(contains(format!(
            "{}:2:13: error[syntax]: invalid JSON: expected value",
            bad.display()
        )));
}

#[test]
fn unreadable_inputs_are_refused_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &[u8], &str)] = &[
        ("empty.json", b"", "1:1: error[syntax]: the input is empty"),
        (
            "bom.json",
            b"\xEF\xBB\xBF{}",
            "1:1: error[syntax]: the input starts with a UTF-8 byte-order mark",
        ),
        (
            "latin1.json",
            b"{\"a\": \"caf\xE9\"}",
            "error[syntax]: invalid unicode code point",
        ),
        (
            "array.json",
            b"[]",
            ": (document): error[type]: expected an object, found an array of 0 item(s)",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        ihigraph(&dir.path().join("unused"))
            .arg("validate")
            .arg(&path)
            .assert()
            .code(1)
            .stderr(contains(*expected));
    }
    let deep = dir.path().join("deep.json");
    std::fs::write(&deep, "[".repeat(100_000)).unwrap();
    ihigraph(&dir.path().join("unused"))
        .arg("validate")
        .arg(&deep)
        .assert()
        .code(1)
        .stderr(contains("nesting deeper than 128 levels"));
    ihigraph(&dir.path().join("unused"))
        .arg("validate")
        .arg(dir.path().join("missing.json"))
        .assert()
        .code(1)
        .stderr(contains("missing.json: error[io]: cannot read"));
}

#[test]
fn json_lines_store_the_good_lines_and_name_the_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let mut lines = String::new();
    for name in ["trip-planning", "code-review-abc"] {
        let text = std::fs::read_to_string(examples_dir().join(format!("{name}.json"))).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        lines.push_str(&serde_json::to_string(&value).unwrap());
        lines.push('\n');
        if name == "trip-planning" {
            lines.push_str("{\"Header\": \"PGM-IHI-V1.0\", oops}\n\n");
        }
    }
    let file = dir.path().join("histories.jsonl");
    std::fs::write(&file, lines).unwrap();
    ihigraph(&store)
        .arg("ingest")
        .arg(&file)
        .assert()
        .code(1)
        .stderr(contains(format!("{}:2:28: error[syntax]", file.display())))
        .stdout(contains("ingested 2 sessions").and(contains("refused 1 document")));
    ihigraph(&store)
        .arg("info")
        .assert()
        .success()
        .stdout(contains("sessions:     2"));
}

#[test]
fn standard_input_takes_a_document_or_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let pretty = std::fs::read_to_string(fixture_path("valid/complete.json")).unwrap();
    ihigraph(&store)
        .args(["ingest", "-"])
        .write_stdin(pretty.clone())
        .assert()
        .success()
        .stdout(contains(
            "ingested 1 session (0 replaced, 0 unchanged), 2 turns",
        ));
    let value: Value = serde_json::from_str(&pretty).unwrap();
    let one_line = serde_json::to_string(&value).unwrap();
    let other = one_line.replace("fixture-complete", "fixture-other");
    ihigraph(&store)
        .args(["ingest", "-"])
        .write_stdin(format!("{one_line}\n{other}\n"))
        .assert()
        .success()
        .stdout(contains("ingested 2 sessions (0 replaced, 1 unchanged)"));
    // The same id with other content replaces the session, and says so.
    let changed = one_line.replace(
        "It imports Config.",
        "It imports Config, then config/ci.exs.",
    );
    assert_ne!(changed, one_line);
    ihigraph(&store)
        .args(["ingest", "-"])
        .write_stdin(changed)
        .assert()
        .success()
        .stdout(contains("ingested 1 session (1 replaced, 0 unchanged)"))
        .stderr(contains("replaced the stored session \"fixture-complete\""));
}

#[test]
fn reingesting_an_identical_session_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let before = store_dump(&store);
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success()
        .stdout(contains("(0 replaced, 4 unchanged)"));
    assert_eq!(store_dump(&store), before);
}

#[test]
fn export_writes_every_format_and_parses_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let session_graph = "https://w3id.org/ihigraph/id/graph/abc";
    let total = session_quad_count(&store);
    for (format, rdf_format, session, expected_graphs) in [
        ("trig", RdfFormat::TriG, None, 4),
        ("nquads", RdfFormat::NQuads, None, 4),
        (
            "jsonld",
            RdfFormat::JsonLd {
                profile: Default::default(),
            },
            None,
            4,
        ),
        ("trig", RdfFormat::TriG, Some("abc"), 1),
        ("turtle", RdfFormat::Turtle, Some("abc"), 0),
    ] {
        let mut command = ihigraph(&store);
        command.args(["export", "--format", format]);
        if let Some(session) = session {
            command.args(["--session", session]);
        }
        let output = command.assert().success().get_output().stdout.clone();
        let quads: Vec<_> = RdfParser::from_format(rdf_format)
            .for_slice(&output)
            .collect::<Result<_, _>>()
            .unwrap();
        let graphs: std::collections::HashSet<_> = quads
            .iter()
            .filter(|q| !q.graph_name.is_default_graph())
            .map(|q| q.graph_name.to_string())
            .collect();
        assert_eq!(graphs.len(), expected_graphs, "{format}");
        if session.is_none() {
            assert_eq!(quads.len(), total, "{format}");
        } else if format == "trig" {
            assert!(graphs.contains(&format!("<{session_graph}>")));
        }
    }
    ihigraph(&store)
        .args(["export", "--format", "turtle"])
        .assert()
        .code(2)
        .stderr(contains("turtle holds a single graph"));
    ihigraph(&store)
        .args(["export", "--session", "nope"])
        .assert()
        .code(1)
        .stderr(contains("no session \"nope\""));
}

#[test]
fn info_shows_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let quads = session_quad_count(&store);
    ihigraph(&store)
        .arg("info")
        .assert()
        .success()
        .stdout(contains("sessions:     4"))
        .stdout(contains(format!("quads:        {quads}")))
        .stdout(contains("IRI base:     https://w3id.org/ihigraph/id/"));
}

#[test]
fn the_iri_scheme_is_recorded_and_a_conflicting_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .args([
            "--base",
            "https://example.org/h/",
            "--session-iri",
            "https://example.org/ws/{SessionID}",
        ])
        .arg("ingest")
        .arg(fixture_path("valid/complete.json"))
        .assert()
        .success();
    ihigraph(&store)
        .arg("info")
        .assert()
        .success()
        .stdout(contains("IRI base:     https://example.org/h/"))
        .stdout(contains("session IRIs: https://example.org/ws/{SessionID}"));
    ihigraph(&store)
        .args(["sparql", "--format", "csv", "SELECT ?w WHERE { ?c <https://jido.ai/ontology/conversation-history#associatedWithSession> ?w }"])
        .assert()
        .success()
        .stdout(contains("https://example.org/ws/fixture-complete"));
    let before = store_dump(&store);
    ihigraph(&store)
        .args(["--base", "https://other.example/", "info"])
        .assert()
        .code(2)
        .stderr(contains(
            "this store was created with --base \"https://example.org/h/\"",
        ));
    ihigraph(&dir.path().join("fresh"))
        .args(["--session-iri", "no-placeholder", "info"])
        .assert()
        .code(2)
        .stderr(contains("must contain {SessionID}"));
    assert_eq!(store_dump(&store), before);
}

#[test]
fn a_store_in_use_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let holder = oxigraph::store::Store::open(&store).unwrap();
    ihigraph(&store)
        .arg("info")
        .assert()
        .code(3)
        .stderr(contains("is in use by another process"));
    drop(holder);
    ihigraph(&store).arg("info").assert().success();
}

#[test]
fn a_store_path_that_is_a_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "not a store").unwrap();
    ihigraph(&file)
        .arg("info")
        .assert()
        .code(3)
        .stderr(contains("ihigraph: error:"));
}

#[test]
fn memory_store_and_ontology() {
    let dir = tempfile::tempdir().unwrap();
    ihigraph(&dir.path().join("unused"))
        .args(["--memory", "info"])
        .assert()
        .code(2)
        .stderr(contains("cannot be used with"));
    let output = common::shipped_ontologies();
    let triples = RdfParser::from_format(RdfFormat::Turtle)
        .for_slice(&output)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert!(triples.len() > 300, "{}", triples.len());
    assert_cmd::Command::cargo_bin("ihigraph")
        .unwrap()
        .args(["--memory", "info"])
        .assert()
        .success()
        .stdout(contains("(in memory)"));
}

#[test]
fn usage_errors_exit_2() {
    assert_cmd::Command::cargo_bin("ihigraph")
        .unwrap()
        .args(["ingest"])
        .assert()
        .code(2);
    assert_cmd::Command::cargo_bin("ihigraph")
        .unwrap()
        .args(["--memory", "export", "--format", "rdfxml"])
        .assert()
        .code(2);
}

#[test]
fn queries_lists_every_canned_query_and_prints_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut listing = ihigraph(&dir.path().join("store"))
        .arg("queries")
        .assert()
        .success();
    for query in ihigraph::query::CANNED_QUERIES {
        listing = listing.stdout(contains(query.name));
    }
    listing.stdout(
        contains("session: text, required").and(contains("n: a non-negative integer, default 10")),
    );
    ihigraph(&dir.path().join("store"))
        .args(["queries", "tool-stats"])
        .assert()
        .success()
        .stdout(ihigraph::query::TOOL_STATS.sparql);
    ihigraph(&dir.path().join("store"))
        .args(["queries", "nope"])
        .assert()
        .code(2)
        .stderr(contains("no canned query \"nope\""));
}

#[test]
fn query_runs_with_parameters_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ingest_examples(&store);
    let run = |format: &str| {
        ihigraph(&store)
            .args([
                "query",
                "recent-turns",
                "--param",
                "session=abc",
                "-p",
                "n=2",
                "--format",
                format,
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let json = run("json");
    assert_eq!(
        json_rows(&json)
            .iter()
            .map(|r| r[0].1.clone())
            .collect::<Vec<_>>(),
        ["3", "2"]
    );
    let csv = String::from_utf8(run("csv")).unwrap();
    assert!(csv.starts_with("turnIndex,role,time,promptText,answerText,awaiting\r\n3,H-User,2026-01-02T08:00:30Z,\"Thanks, that was it.\","), "{csv}");
    assert_eq!(csv.matches("\r\n").count(), 3, "a header and two rows");
    let tsv = String::from_utf8(run("tsv")).unwrap();
    assert!(
        tsv.starts_with(
            "?turnIndex\t?role\t?time\t?promptText\t?answerText\t?awaiting\n3\t\"H-User\"\t"
        ),
        "{tsv}"
    );
    let table = String::from_utf8(run("table")).unwrap();
    assert!(
        table.contains("│ 3 ") && table.contains("2 rows"),
        "{table}"
    );
    // Long texts are shortened in tables only.
    assert!(table.contains('…') && !csv.contains('…'));
    // Not a terminal: TSV by default, and nothing but results on standard output.
    ihigraph(&store)
        .args(["query", "roles"])
        .assert()
        .success()
        .stdout("?role\t?turns\t?sessions\n\"H-User\"\t8\t4\n\"A-User\"\t7\t4\n\"BKN\"\t1\t1\n")
        .stderr("");
    // The bound query can be shown instead of run: the given values only (no UNDEF).
    ihigraph(&store)
        .args(["query", "tool-usage", "-p", "tool=Read\"File", "--show"])
        .assert()
        .success()
        .stdout(contains("VALUES ( ?tool ) { ( \"Read\\\"File\" )"));
}

#[test]
fn query_parameter_errors_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    for (args, message) in [
        (
            vec!["recent-turns"],
            "query recent-turns needs parameter session",
        ),
        (
            vec!["recent-turns", "-p", "session=abc", "-p", "x=1"],
            "has no parameter \"x\"",
        ),
        (
            vec!["recent-turns", "-p", "session=abc", "-p", "n=many"],
            "parameter n of query recent-turns expects a non-negative integer, found \"many\"",
        ),
        (
            vec!["tool-usage", "-p", "since=last week"],
            "parameter since of query tool-usage expects an xsd:dateTime",
        ),
        (vec!["recent-turns", "-p", "session"], "expected NAME=VALUE"),
        (vec!["no-such-query"], "no canned query"),
    ] {
        ihigraph(&store)
            .arg("query")
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(message));
    }
}

#[test]
fn query_finds_an_odd_session_id_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let odd = "q\"uo>te} #1\nline";
    let mut document: Value = serde_json::from_str(
        &std::fs::read_to_string(examples_dir().join("code-review-abc.json")).unwrap(),
    )
    .unwrap();
    let input = dir.path().join("odd.jsonl");
    let mut lines = String::new();
    for id in [odd, "q\"uo>te} #1"] {
        document["SessionID"] = Value::String(id.to_owned());
        lines.push_str(&serde_json::to_string(&document).unwrap());
        lines.push('\n');
    }
    std::fs::write(&input, lines).unwrap();
    ihigraph(&store)
        .arg("ingest")
        .arg(&input)
        .assert()
        .success();
    let output = ihigraph(&store)
        .args(["query", "tool-usage", "--format", "json", "--param"])
        .arg(format!("session={odd}"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_rows(&output);
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter()
            .all(|row| row[0] == ("session".to_owned(), odd.to_owned()))
    );
}
