//! Reasoning: what the ontologies entail about each session (OWL 2 RL, `reason/`), kept
//! beside the store in step with it (`store/inference.rs`), and queried with
//! `--inferred`.
//!
//! - The entailments equal what a second OWL 2 RL implementation derives from the same
//!   session and ontologies: owlrl, RDFLib's reasoner, run by
//!   `tests/reasoning/owlrl_entailments.py`, over the examples and a generated corpus.
//!   Needs python3 with owlrl (`python3 -m pip install owlrl`; `.ci/bootstrap` installs
//!   it); without it the test fails, saying so, unless `IHIGRAPH_SKIP_OWLRL=1`, when it
//!   says it skipped.
//! - The store's own graphs never change: a dump of the store is the same before and
//!   after reasoning is turned on.
//! - In step: a new session, a deleted one, an update, a memory item; and a crash
//!   between the store's commit and the inferred store's is repaired on the next open.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stdout)]

mod common;

use common::{examples_dir, ihigraph, ingest_examples_and_corpus, store_dump};
use ihigraph::check::{CheckOptions, check_document};
use ihigraph::rdf::map_history;
use ihigraph::reason::entailments;
use ihigraph::store::{INFERRED_DIRECTORY, QueryOptions};
use ihigraph::{HistoryStore, SchemeRequest};
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{Term, Triple};
use oxigraph::sparql::QueryResults;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const PREFIXES: &str = "PREFIX ch: <https://jido.ai/ontology/conversation-history#>
PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX jcore: <https://jido.ai/ontologies/core#>
";

/// Whether owlrl can be run here, or why not.
fn owlrl() -> Result<(), String> {
    let output = Command::new("python3")
        .args(["-c", "import owlrl, rdflib"])
        .output()
        .map_err(|error| format!("python3: {error}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// The sessions the cross-check reasons about: the examples and a generated corpus.
fn sessions() -> Vec<Vec<Triple>> {
    let mut documents: Vec<serde_json::Value> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|entry| {
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap()
        })
        .collect();
    documents.extend(ihigraph::generate::generate(
        ihigraph::generate::GenerateOptions {
            sessions: 12,
            seed: 7,
            ..Default::default()
        },
    ));
    let scheme = ihigraph::rdf::IriScheme::default();
    documents
        .iter()
        .map(|document| {
            let history = check_document(document, CheckOptions::default())
                .history
                .unwrap();
            map_history(&history, &scheme)
                .quads
                .into_iter()
                .map(|quad| Triple::new(quad.subject, quad.predicate, quad.object))
                .collect()
        })
        .collect()
}

#[test]
fn owlrl_entails_what_ihigraph_entails() {
    if let Err(why) = owlrl() {
        if std::env::var("IHIGRAPH_SKIP_OWLRL").as_deref() == Ok("1") {
            println!("skipped, as IHIGRAPH_SKIP_OWLRL=1 says: the cross-check needs {why}");
            return;
        }
        panic!(
            "the cross-check with owlrl needs python3 with owlrl: {why} \
             (python3 -m pip install owlrl, or run .ci/bootstrap); or set IHIGRAPH_SKIP_OWLRL=1 to skip it"
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let directory = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (n, triples) in sessions().iter().enumerate() {
        let file = directory.path().join(format!("session-{n}.nt"));
        let text: String = triples
            .iter()
            .map(|triple| format!("{triple} .\n"))
            .collect();
        std::fs::write(&file, text).unwrap();
        let output = Command::new("python3")
            .arg(root.join("tests/reasoning/owlrl_entailments.py"))
            .arg(&file)
            .arg(root.join("ontology/conversation-history.ttl"))
            .arg(root.join("ontology/ihigraph.ttl"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let theirs: BTreeSet<String> = RdfParser::from_format(RdfFormat::NTriples)
            .for_slice(&output.stdout)
            .map(|quad| Triple::from(quad.unwrap()).to_string())
            .collect();
        let ours: BTreeSet<String> = entailments(triples)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(!ours.is_empty(), "session {n} entails something");
        let only_ours: Vec<&String> = ours.difference(&theirs).collect();
        let only_theirs: Vec<&String> = theirs.difference(&ours).collect();
        assert!(
            only_ours.is_empty() && only_theirs.is_empty(),
            "session {n}: only ihigraph's reasoner: {only_ours:#?}\nonly owlrl: {only_theirs:#?}"
        );
        compared += ours.len();
    }
    println!("{compared} entailed statements, the same by both reasoners");
    assert!(compared > 1_000, "{compared}");
}

/// The rows of a query as sorted lines of their terms.
fn rows(output: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8_lossy(output)
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

fn sparql(store: &Path, query: &str, inferred: bool) -> Vec<String> {
    let mut command = ihigraph(store);
    command.args(["sparql", "--format", "tsv"]);
    if inferred {
        command.arg("--inferred");
    }
    let output = command.arg(format!("{PREFIXES}{query}")).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    rows(&output.stdout)
}

/// The tools each session used, by the property chain (inferred) and by the path the
/// chain stands for (asserted): they must agree.
fn tools_both_ways(store: &Path) -> (Vec<String>, Vec<String>) {
    let inferred = sparql(
        store,
        "SELECT DISTINCT ?session ?tool WHERE { GRAPH ?g { ?c ihi:sessionId ?session ; ihi:usedTool ?tool } }",
        true,
    );
    let asserted = sparql(
        store,
        "SELECT DISTINCT ?session ?tool WHERE { GRAPH ?g { ?c ihi:sessionId ?session ; \
         ch:hasTurn/ch:involvesToolInvocation/ch:usesTool ?tool } }",
        false,
    );
    (inferred, asserted)
}

#[test]
fn reasoning_is_kept_beside_the_store_in_step_with_it() {
    let directory = tempfile::tempdir().unwrap();
    let store = directory.path().join("store");
    ingest_examples_and_corpus(&store, &[], 6, 3);
    let before = store_dump(&store);
    ihigraph(&store)
        .args(["reasoning", "on"])
        .assert()
        .success()
        .stdout(predicates::str::contains("reasoning is on: 10 sessions"));
    assert!(store.join(INFERRED_DIRECTORY).is_dir());
    // The store's own graphs are as they were: nothing entailed is mixed into them.
    assert_eq!(store_dump(&store), before);
    let (inferred, asserted) = tools_both_ways(&store);
    assert!(inferred.len() > 10, "{inferred:?}");
    assert_eq!(inferred, asserted);
    // Asserted only, the chain's property is nowhere.
    assert!(
        sparql(
            &store,
            "SELECT * WHERE { GRAPH ?g { ?c ihi:usedTool ?t } }",
            false
        )
        .is_empty()
    );

    // A session deleted goes from the inferred store; one updated is reasoned again.
    ihigraph(&store)
        .args(["delete", "--session", "abc"])
        .assert()
        .success();
    let (inferred, asserted) = tools_both_ways(&store);
    assert!(inferred.iter().all(|row| !row.starts_with("\"abc\"")));
    assert_eq!(inferred, asserted);
    ihigraph(&store)
        .args([
            "sparql",
            "--update",
            &format!(
                "{PREFIXES} DELETE {{ GRAPH ?g {{ ?call ch:usesTool ?tool }} }} WHERE {{ GRAPH ?g {{ \
                 ?c ihi:sessionId \"trip-kyoto-2026\" ; ch:hasTurn/ch:involvesToolInvocation ?call . \
                 ?call ch:usesTool ?tool }} }}"
            ),
        ])
        .assert()
        .success();
    let (inferred, asserted) = tools_both_ways(&store);
    assert!(
        inferred
            .iter()
            .all(|row| !row.starts_with("\"trip-kyoto-2026\""))
    );
    assert_eq!(inferred, asserted);

    // Off: the inferred store is gone, and a query asking for it says why.
    ihigraph(&store)
        .args(["reasoning", "off"])
        .assert()
        .success();
    assert!(!store.join(INFERRED_DIRECTORY).exists());
    ihigraph(&store)
        .args(["sparql", "--inferred", "ASK { ?s ?p ?o }"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("does not reason"));
    ihigraph(&store)
        .arg("reasoning")
        .assert()
        .success()
        .stdout(predicates::str::contains("reasoning is off"));
    // A store in memory cannot keep it.
    assert_cmd::Command::cargo_bin("ihigraph")
        .unwrap()
        .args(["--memory", "reasoning", "on"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("store directory"));
}

/// Sessions whose graph in the inferred store says they used a tool.
fn sessions_using_tools(store: &HistoryStore) -> BTreeSet<String> {
    let query = format!(
        "{PREFIXES} SELECT DISTINCT ?session WHERE {{ GRAPH ?g {{ ?c ihi:sessionId ?session ; ihi:usedTool ?t }} }}"
    );
    let QueryResults::Solutions(rows) = store
        .query_inferred(&query, &QueryOptions::default())
        .unwrap()
    else {
        panic!("a SELECT query")
    };
    rows.map(|row| match row.unwrap().get("session") {
        Some(Term::Literal(id)) => id.value().to_owned(),
        other => panic!("{other:?}"),
    })
    .collect()
}

#[test]
fn a_crash_between_the_two_commits_is_repaired_on_open() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path();
    let request = SchemeRequest::default();
    {
        let store = HistoryStore::set_reasoning(path, &request, true).unwrap();
        for name in ["code-review-abc.json", "trip-planning.json"] {
            common::ingest(&store, &common::example(name));
        }
        assert_eq!(
            sessions_using_tools(&store),
            BTreeSet::from(["abc".to_owned(), "trip-kyoto-2026".to_owned()])
        );
    }
    // As if the process had died after the store's commit and before the inferred
    // store's: one session's graph is missing there, another's is of an older version.
    {
        let inferred = oxigraph::store::Store::open(path.join(INFERRED_DIRECTORY)).unwrap();
        let graphs: Vec<_> = inferred
            .named_graphs()
            .map(Result::unwrap)
            .filter(|graph| graph.to_string().contains("/graph/"))
            .collect();
        assert_eq!(graphs.len(), 2, "{graphs:?}");
        inferred.remove_named_graph(&graphs[0]).unwrap();
        inferred
            .update(
                "DELETE { GRAPH ?g { ?c <https://w3id.org/ihigraph/ontology#usedTool> ?t } } \
                 WHERE { GRAPH ?g { ?c <https://w3id.org/ihigraph/ontology#usedTool> ?t } }",
            )
            .unwrap();
        inferred
            .update(
                "DELETE { GRAPH ?g { ?g <https://w3id.org/ihigraph/ontology#reasonedFrom> ?d } } \
                 INSERT { GRAPH ?g { ?g <https://w3id.org/ihigraph/ontology#reasonedFrom> \"old\" } } \
                 WHERE { GRAPH ?g { ?g <https://w3id.org/ihigraph/ontology#reasonedFrom> ?d } }",
            )
            .unwrap();
    }
    let store = HistoryStore::open(path, &request).unwrap();
    assert!(store.reasons());
    assert_eq!(
        sessions_using_tools(&store),
        BTreeSet::from(["abc".to_owned(), "trip-kyoto-2026".to_owned()])
    );
}

/// A `SELECT (COUNT(*) AS ?n)` query's count, over the store or with its entailments.
fn count(store: &HistoryStore, query: &str, inferred: bool) -> usize {
    let options = QueryOptions::default();
    let results = if inferred {
        store.query_inferred(query, &options)
    } else {
        store.query_with(query, &options)
    };
    let QueryResults::Solutions(mut rows) = results.unwrap() else {
        panic!("a SELECT query")
    };
    match rows.next().unwrap().unwrap().get("n") {
        Some(Term::Literal(n)) => n.value().parse().unwrap(),
        other => panic!("{other:?}"),
    }
}

/// The quads of the named graphs of the two stores in `path` read as one (the store and
/// its inferred store, opened by Oxigraph alone).
fn union_count(path: &Path) -> usize {
    let store = oxigraph::store::Store::open(path).unwrap();
    let inferred = oxigraph::store::Store::open(path.join(INFERRED_DIRECTORY)).unwrap();
    let QueryResults::Solutions(mut rows) = oxigraph::sparql::SparqlEvaluator::new()
        .parse_query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
        .unwrap()
        .on_store_with_overlay(&store, &inferred)
        .execute()
        .unwrap()
    else {
        panic!("a SELECT query")
    };
    match rows.next().unwrap().unwrap().get("n") {
        Some(Term::Literal(n)) => n.value().parse().unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_inferred_store_holds_only_entailments_read_once_with_the_store() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path();
    let request = SchemeRequest::default();
    let statements = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }";
    let (asserted, entailed) = {
        let store = HistoryStore::set_reasoning(path, &request, true).unwrap();
        common::ingest(&store, &common::example("code-review-abc.json"));
        (
            count(&store, statements, false),
            count(&store, statements, true),
        )
    };
    assert!(
        entailed > asserted,
        "{entailed} with entailments, {asserted} without"
    );
    assert_eq!(union_count(path), entailed);
    // The inferred store holds what is entailed and the marks, nothing the store holds.
    let inferred_quads = oxigraph::store::Store::open(path.join(INFERRED_DIRECTORY))
        .unwrap()
        .len()
        .unwrap();
    assert_eq!(inferred_quads, entailed - asserted);
    // As if an earlier version had written it: each graph's own statements beside what
    // they entail, the ontologies' included. Read once all the same; then the inferred
    // store is made again on the next open.
    {
        let own: Vec<_> = oxigraph::store::Store::open(path)
            .unwrap()
            .iter()
            .map(Result::unwrap)
            .filter(|quad| !quad.graph_name.is_default_graph())
            .collect();
        let inferred = oxigraph::store::Store::open(path.join(INFERRED_DIRECTORY)).unwrap();
        inferred.extend(own).unwrap();
        assert!(inferred.len().unwrap() > inferred_quads);
    }
    assert_eq!(
        union_count(path),
        entailed,
        "a statement in both stores counts once"
    );
    let store = HistoryStore::open(path, &request).unwrap();
    assert_eq!(count(&store, statements, true), entailed);
    drop(store);
    assert_eq!(
        oxigraph::store::Store::open(path.join(INFERRED_DIRECTORY))
            .unwrap()
            .len()
            .unwrap(),
        inferred_quads,
        "the copies of an earlier layout are gone"
    );
}

#[test]
fn memory_items_and_new_sessions_are_reasoned_about() {
    let directory = tempfile::tempdir().unwrap();
    let store = directory.path().join("store");
    ihigraph(&store)
        .args(["reasoning", "on"])
        .assert()
        .success();
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir().join("code-review-abc.json"))
        .assert()
        .success();
    ihigraph(&store)
        .args([
            "remember",
            "--session",
            "abc",
            "--turn",
            "1",
            "--kind",
            "fact",
            "the build uses cargo",
        ])
        .assert()
        .success();
    // A memory item is a jido:Fact, which the ontologies make a PROV entity.
    let query = "SELECT ?item WHERE { GRAPH ?g { ?item ihi:memoryText \"the build uses cargo\" ; a prov:Entity } }";
    assert_eq!(sparql(&store, query, true).len(), 1);
    let (inferred, asserted) = tools_both_ways(&store);
    assert!(!inferred.is_empty());
    assert_eq!(inferred, asserted);
}

/// A canned query's rows, as sorted TSV lines.
fn canned(store: &Path, name: &str) -> Vec<String> {
    let output = ihigraph(store)
        .args(["query", name, "--format", "tsv"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    rows(&output.stdout)
}

#[test]
fn the_canned_queries_that_need_reasoning_read_what_it_entails() {
    let directory = tempfile::tempdir().unwrap();
    let store = directory.path().join("store");
    // A session whose last turn awaits its response: the one turn without an answer.
    let mut awaiting = common::example("code-review-abc.json");
    awaiting["SessionID"] = "awaiting".into();
    let last = awaiting["Turns"].as_array().unwrap().len() - 1;
    awaiting["Turns"][last]["BKNResponse"] = serde_json::json!({});
    let file = directory.path().join("awaiting.json");
    std::fs::write(&file, awaiting.to_string()).unwrap();
    ingest_examples_and_corpus(&store, &[file], 4, 11);
    // Without reasoning, they are refused, saying why.
    ihigraph(&store)
        .args(["query", "tools-by-session"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("reasoning on"));
    ihigraph(&store)
        .args(["reasoning", "on"])
        .assert()
        .success();

    // The tools each session used, by the chain, as the asserted path gives them.
    let asserted = sparql(
        &store,
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
         SELECT DISTINCT ?session ?agent ?tool WHERE { GRAPH ?g { ?c ihi:sessionId ?session ; \
         ihi:mInstanceId ?agent ; ch:hasTurn/ch:involvesToolInvocation/ch:usesTool ?t . \
         ?t rdfs:label ?tool } }",
        false,
    );
    assert!(asserted.len() > 10);
    assert_eq!(canned(&store, "tools-by-session"), asserted);

    // Turns and sessions per agent, as the roles query counts them per role.
    let per_agent: Vec<String> = canned(&store, "sessions-by-agent")
        .iter()
        .map(|row| {
            let cells: Vec<&str> = row.split('\t').collect();
            format!("{}\t{}\t{}", cells[0], cells[3], cells[2])
        })
        .collect();
    let mut per_role = canned(&store, "roles");
    per_role.sort();
    let mut per_agent = per_agent;
    per_agent.sort();
    assert_eq!(per_agent, per_role);
    assert!(
        canned(&store, "sessions-by-agent")
            .iter()
            .any(|row| row.starts_with("\"H-User\"\t<http://www.w3.org/ns/prov#Person>"))
    );

    // The one turn that got no answer.
    let role = awaiting["Turns"][last]["Role"].as_str().unwrap();
    assert_eq!(
        canned(&store, "unanswered-turns"),
        vec![format!("\"awaiting\"\t{last}\t\"{role}\"\ttrue")]
    );
}

#[test]
fn serve_answers_queries_over_the_entailments_at_sparql_inferred() {
    use common::serving::{Server, call, get};
    let directory = tempfile::tempdir().unwrap();
    let store = directory.path().join("store");
    ingest_examples_and_corpus(&store, &[], 2, 5);
    let query = format!(
        "{PREFIXES} SELECT ?session ?tool WHERE {{ GRAPH ?g {{ ?c ihi:sessionId ?session ; ihi:usedTool ?tool }} }}"
    );
    let encoded: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
    let rows = |reply: &common::serving::Reply| {
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()["results"]["bindings"]
            .as_array()
            .unwrap()
            .len()
    };
    {
        // A store that does not reason says so: 501, with what to do.
        let server = Server::on(&store, None, &[]);
        let reply = get(&server.url(&format!("/sparql/inferred?query={encoded}")));
        assert_eq!(reply.status, 501, "{}", reply.body);
        assert!(reply.body.contains("reasoning on"), "{}", reply.body);
    }
    ihigraph(&store)
        .args(["reasoning", "on"])
        .assert()
        .success();
    let server = Server::on(&store, Some("a-token"), &["--allow-update"]);
    let accept = [("Accept", "application/sparql-results+json")];
    let inferred = call(
        "GET",
        &server.url(&format!("/sparql/inferred?query={encoded}")),
        &accept,
        None,
    );
    assert!(rows(&inferred) > 5);
    let asserted = call(
        "GET",
        &server.url(&format!("/sparql?query={encoded}")),
        &accept,
        None,
    );
    assert_eq!(rows(&asserted), 0);
    // Read-only: an update is refused, saying where updates go.
    let update = call(
        "POST",
        &server.url("/sparql/inferred"),
        &[
            ("Content-Type", "application/sparql-update"),
            ("Authorization", "Bearer a-token"),
        ],
        Some(b"CLEAR ALL"),
    );
    assert_eq!(update.status, 400, "{}", update.body);
    assert!(update.body.contains("read-only"), "{}", update.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_mcp_sparql_tool_reads_the_entailments_when_asked() {
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, ClientConfig};
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let directory = tempfile::tempdir().unwrap();
    let store = directory.path().join("store");
    ihigraph(&store)
        .args(["reasoning", "on"])
        .assert()
        .success();
    ihigraph(&store)
        .arg("ingest")
        .arg(examples_dir())
        .assert()
        .success();
    let command =
        tokio::process::Command::new(env!("CARGO_BIN_EXE_ihigraph")).configure(|command| {
            command.arg("--store").arg(&store).arg("mcp");
        });
    let client = ClientConfig::default()
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    let query = format!(
        "{PREFIXES} SELECT DISTINCT ?session WHERE {{ GRAPH ?g {{ ?c ihi:sessionId ?session ; ihi:usedTool ?t }} }}"
    );
    let call = |inferred: bool| {
        let arguments = serde_json::json!({"query": query, "inferred": inferred});
        CallToolRequestParams::new("sparql_query".to_owned())
            .with_arguments(arguments.as_object().cloned().unwrap())
    };
    let inferred = client.call_tool(call(true)).await.unwrap();
    assert_eq!(inferred.structured_content.unwrap()["count"], 4);
    let asserted = client.call_tool(call(false)).await.unwrap();
    assert_eq!(asserted.structured_content.unwrap()["count"], 0);
    client.cancel().await.unwrap();
}
