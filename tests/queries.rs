//! The canned queries: exact rows on the bundled examples and on odd data, empty
//! results, parameters (types, errors, injection), agreement of the design document's
//! queries with their replacements, and the files' headers.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{example, ingest};
use ihigraph::Arguments;
use ihigraph::CannedQuery;
use ihigraph::HistoryStore;
use ihigraph::StoreError;
use ihigraph::query::Argument;
use ihigraph::query::CANNED_QUERIES;
use ihigraph::query::DESIGN_RECENT_TURNS;
use ihigraph::query::DESIGN_TOOL_INVOCATIONS;
use ihigraph::query::INSTRUCTIONS;
use ihigraph::query::MEMORY_ITEMS;
use ihigraph::query::NEWEST_PAYLOADS;
use ihigraph::query::PAYLOADS;
use ihigraph::query::ParameterError;
use ihigraph::query::RECENT_TURNS;
use ihigraph::query::ROLES;
use ihigraph::query::SEARCH;
use ihigraph::query::SESSIONS;
use ihigraph::query::SessionScope;
use ihigraph::query::TOOL_STATS;
use ihigraph::query::TOOL_USAGE;
use ihigraph::query::TRANSCRIPT;
use ihigraph::query::TURN_PLACES;
use ihigraph::query::USER_STATE;
use ihigraph::query::{
    REPORT_ACTIVITY, REPORT_FAILING_ARGUMENTS, REPORT_MEMORY, REPORT_SPAN, REPORT_TOOLS,
    REPORT_TURN_TIMES,
};
use ihigraph::rdf::IriScheme;
use ihigraph::store::Embedded;
use oxigraph::model::vocab::xsd;
use oxigraph::model::{Literal, NamedNode, QuadRef, Term};
use oxigraph::sparql::QueryResults;
use serde_json::{Value, json};
use spargebra::SparqlParser;
use std::collections::BTreeSet;
use test_case::test_case;

const EXAMPLES: [&str; 4] = [
    "trip-planning.json",
    "code-review-abc.json",
    "support-ticket-fr.json",
    "research-notes.json",
];

/// A SessionID with every character that could end a literal, an IRI, a group or a
/// line in SPARQL, and some unicode.
const ODD_ID: &str = "odd \"id\" > } # \\ \n 京都 🌸 ' <x> ?s";

/// The four examples.
fn examples_store() -> HistoryStore {
    examples_store_with_raw().0
}

/// An in-memory store, and the Oxigraph store under it for writes that bypass ihigraph.
fn store_with_raw() -> (HistoryStore, oxigraph::store::Store) {
    let backend = Embedded::in_memory().unwrap();
    let raw = backend.oxigraph().clone();
    (
        HistoryStore::with_backend(backend, &Default::default()).unwrap(),
        raw,
    )
}

fn examples_store_with_raw() -> (HistoryStore, oxigraph::store::Store) {
    let (store, raw) = store_with_raw();
    for name in EXAMPLES {
        ingest(&store, &example(name));
    }
    (store, raw)
}

/// The code-review example stored under odd ids, one of them a prefix of the other,
/// with a second time on turn 0 (as another writer may add), earlier than its own.
fn odd_store() -> HistoryStore {
    let (store, raw) = store_with_raw();
    let mut document = example("code-review-abc.json");
    for id in [ODD_ID, "odd \"id\""] {
        document["SessionID"] = json!(id);
        ingest(&store, &document);
    }
    let graph = store.scheme().session_graph(ODD_ID);
    let turn = IriScheme::child(&store.scheme().conversation(ODD_ID), &["turn", "0"]);
    let timestamp =
        NamedNode::new("https://jido.ai/ontology/conversation-history#timestamp").unwrap();
    let earlier = Literal::new_typed_literal("2026-01-02T08:00:00Z", xsd::DATE_TIME);
    // Through ihigraph's update, which drops the graph's digest of its newest turns.
    store
        .update(&format!(
            "INSERT DATA {{ GRAPH {graph} {{ {turn} {timestamp} {earlier} }} }}"
        ))
        .unwrap();
    drop(raw);
    store
}

/// Rows as texts: a literal's value, an IRI in angle brackets, "" when unbound.
fn rows(store: &HistoryStore, query: &CannedQuery, arguments: &Arguments) -> Vec<Vec<String>> {
    let QueryResults::Solutions(solutions) = store.run(query, arguments).unwrap() else {
        panic!("{} is not a SELECT query", query.name)
    };
    let variables = solutions.variables().to_vec();
    solutions
        .map(|solution| {
            let solution = solution.unwrap();
            variables
                .iter()
                .map(|variable| match solution.get(variable) {
                    Some(Term::Literal(literal)) => literal.value().to_owned(),
                    Some(Term::NamedNode(node)) => format!("<{}>", node.as_str()),
                    Some(other) => other.to_string(),
                    None => String::new(),
                })
                .collect()
        })
        .collect()
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|cell| (*cell).to_owned()).collect()
}

fn column(rows: &[Vec<String>], index: usize) -> Vec<&str> {
    rows.iter().map(|row| row[index].as_str()).collect()
}

fn session(id: &str) -> Arguments {
    Arguments::new().text("session", id)
}

#[test]
fn recent_turns_newest_first_limited_by_n() {
    let store = examples_store();
    let turns = rows(&store, &RECENT_TURNS, &session("abc").count("n", 2));
    assert_eq!(
        turns,
        vec![
            row(&[
                "3",
                "H-User",
                "2026-01-02T08:00:30Z",
                "Thanks, that was it.",
                "Glad it helped. Shall I add config/ci.exs for you?",
                "false"
            ]),
            row(&[
                "2",
                "A-User",
                "2026-01-02T08:00:04.3Z",
                "",
                "The CI job sets MIX_ENV=ci, so config.exs imports config/ci.exs, which does not exist; locally MIX_ENV=test loads test.exs.\nEither add config/ci.exs (it can just `import_config \"test.exs\"`) or run CI with MIX_ENV=test.",
                "false"
            ]),
        ]
    );
    // The default n is 10: all four turns; n=0 gives none.
    assert_eq!(
        column(&rows(&store, &RECENT_TURNS, &session("abc")), 0),
        ["3", "2", "1", "0"]
    );
    assert!(rows(&store, &RECENT_TURNS, &session("abc").count("n", 0)).is_empty());
    assert!(rows(&store, &RECENT_TURNS, &session("ABC")).is_empty());
}

#[test]
fn recent_turns_give_one_row_per_turn_whatever_the_timestamps() {
    let store = odd_store();
    let turns = rows(&store, &RECENT_TURNS, &session(ODD_ID));
    assert_eq!(column(&turns, 0), ["3", "2", "1", "0"]);
    // Turn 0 has two absolute times: the earliest is the turn's time.
    assert_eq!(turns[3][2], "2026-01-02T08:00:00Z");
}

/// Every session's `recent-turns`, for several `n`, as rows of terms, each answer with
/// the query's columns.
fn recent_turns_of_all(store: &HistoryStore, counts: &[u64]) -> Vec<Vec<Vec<Option<Term>>>> {
    let mut all = Vec::new();
    for (id, _) in store.sessions().unwrap() {
        for n in counts {
            let (columns, rows) = term_rows(store, &RECENT_TURNS, &session(&id).count("n", *n));
            assert_eq!(
                columns,
                [
                    "turnIndex",
                    "role",
                    "time",
                    "promptText",
                    "answerText",
                    "awaiting"
                ]
            );
            all.push(rows);
        }
    }
    all
}

/// A query's columns and every row as terms, in order.
fn term_rows(
    store: &HistoryStore,
    query: &CannedQuery,
    arguments: &Arguments,
) -> (Vec<String>, Vec<Vec<Option<Term>>>) {
    let QueryResults::Solutions(solutions) = store.run(query, arguments).unwrap() else {
        panic!("{} is not a SELECT query", query.name)
    };
    let variables = solutions.variables().to_vec();
    let columns = variables.iter().map(|v| v.as_str().to_owned()).collect();
    let rows = solutions
        .map(|solution| {
            let solution = solution.unwrap();
            variables.iter().map(|v| solution.get(v).cloned()).collect()
        })
        .collect();
    (columns, rows)
}

/// The examples, 40 generated sessions of 1 to 30 turns (texts in several scripts, tool
/// calls with their results, some failing), and the code-review example under an odd id.
fn varied_store(seed: u64) -> (HistoryStore, oxigraph::store::Store) {
    let (store, raw) = examples_store_with_raw();
    for document in ihigraph::generate::generate(ihigraph::generate::GenerateOptions {
        sessions: 40,
        seed,
        min_turns: 1,
        max_turns: 30,
    }) {
        ingest(&store, &document);
    }
    let mut odd = example("code-review-abc.json");
    odd["SessionID"] = json!(ODD_ID);
    ingest(&store, &odd);
    (store, raw)
}

/// The digests of newest turns in the store, as (graph, subject) pairs.
fn digests(raw: &oxigraph::store::Store) -> BTreeSet<(String, String)> {
    let digest = NamedNode::new("https://w3id.org/ihigraph/ontology#recentTurns").unwrap();
    raw.quads_for_pattern(None, Some(digest.as_ref()), None, None)
        .map(|quad| {
            let quad = quad.unwrap();
            (quad.graph_name.to_string(), quad.subject.to_string())
        })
        .collect()
}

#[test]
fn recent_turns_from_the_digest_are_the_rows_of_the_query() {
    let (store, raw) = varied_store(5);
    let sessions = store.sessions().unwrap();
    let scheme = store.scheme();
    let expected: BTreeSet<(String, String)> = sessions
        .iter()
        .map(|(id, _)| {
            let graph = scheme.derived_graph(id).to_string();
            (graph, scheme.conversation(id).to_string())
        })
        .collect();
    assert_eq!(
        digests(&raw),
        expected,
        "every session's digest is in its derived graph, none in a session graph"
    );

    let counts = [0, 1, 3, 9, 10, 11, 40];
    let from_digests = recent_turns_of_all(&store, &counts);
    assert!(from_digests.iter().any(|rows| rows.len() == 10));
    // The same update drops every digest: the query itself answers.
    store
        .update("PREFIX ihi: <https://w3id.org/ihigraph/ontology#> DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ihi:sessionId ?id ; ?p ?o } FILTER (?p = <urn:nothing>) }")
        .unwrap();
    assert!(
        digests(&raw).is_empty(),
        "an update whose template names a graph variable drops every digest"
    );
    assert_eq!(recent_turns_of_all(&store, &counts), from_digests);
}

#[test]
fn an_update_drops_the_digests_of_the_graphs_it_names_only() {
    let (store, raw) = examples_store_with_raw();
    assert_eq!(digests(&raw).len(), 4);
    let graph = store.scheme().session_graph("abc");
    let derived = store.scheme().derived_graph("abc").to_string();
    store
        .update(&format!(
            "INSERT DATA {{ GRAPH {graph} {{ <urn:a> <urn:b> \"c\" }} GRAPH <urn:elsewhere> {{ <urn:a> <urn:b> \"c\" }} }}"
        ))
        .unwrap();
    assert_eq!(digests(&raw).len(), 3);
    assert!(!digests(&raw).iter().any(|(graph, _)| *graph == derived));
    // The query answers for that session, and the others keep theirs.
    assert_eq!(
        column(&rows(&store, &RECENT_TURNS, &session("abc")), 0),
        ["3", "2", "1", "0"]
    );
    // Dropping or clearing a session graph drops its digest; clearing every graph, all.
    let trip = store.scheme().session_graph("trip-kyoto-2026");
    store.update(&format!("CLEAR GRAPH {trip}")).unwrap();
    assert_eq!(digests(&raw).len(), 2);
    store.update("DROP NAMED").unwrap();
    assert!(digests(&raw).is_empty());
}

/// A turn added to the code-review example's session `abc` through SPARQL, newer than its
/// four: what another client of the store would write.
fn fifth_turn(store: &HistoryStore) -> String {
    let graph = store.scheme().session_graph("abc");
    let conversation = store.scheme().conversation("abc");
    let turn = IriScheme::child(&conversation, &["turn", "4"]);
    format!(
        "PREFIX ch: <https://jido.ai/ontology/conversation-history#> \
         INSERT DATA {{ GRAPH {graph} {{ {conversation} ch:hasTurn {turn} . {turn} ch:turnIndex 4 }} }}"
    )
}

#[test]
fn a_turn_written_through_an_update_is_in_recent_turns_at_once() {
    let (store, raw) = examples_store_with_raw();
    let before = rows(&store, &RECENT_TURNS, &session("abc"));
    assert_eq!(column(&before, 0), ["3", "2", "1", "0"]);
    store.update(&fifth_turn(&store)).unwrap();
    assert_eq!(
        column(&rows(&store, &RECENT_TURNS, &session("abc")), 0),
        ["4", "3", "2", "1", "0"]
    );
    // Ingesting the session again replaces the graph and writes its digest again.
    ingest(&store, &example("code-review-abc.json"));
    assert_eq!(digests(&raw).len(), 4);
    assert_eq!(rows(&store, &RECENT_TURNS, &session("abc")), before);
}

#[test]
fn a_session_ingested_unchanged_gets_its_dropped_digest_back() {
    let (store, raw) = examples_store_with_raw();
    let all = digests(&raw);
    // An update that changes nothing still drops the digest of the graph it names.
    let graph = store.scheme().session_graph("abc");
    store
        .update(&format!(
            "DELETE DATA {{ GRAPH {graph} {{ <urn:a> <urn:b> <urn:c> }} }}"
        ))
        .unwrap();
    assert_eq!(digests(&raw).len(), 3);
    ingest(&store, &example("code-review-abc.json"));
    assert_eq!(digests(&raw), all);
}

/// A store as versions before derived graphs left it: each digest in its session's graph,
/// and the settings of another version (here, another ontology digest); and one digest
/// in a derived graph that the other version could have left out of step.
fn as_an_earlier_version_left_it(raw: &oxigraph::store::Store, scheme: &IriScheme) {
    let digest = NamedNode::new("https://w3id.org/ihigraph/ontology#recentTurns").unwrap();
    let kept: Vec<oxigraph::model::Quad> = raw
        .quads_for_pattern(None, Some(digest.as_ref()), None, None)
        .map(Result::unwrap)
        .collect();
    for quad in &kept {
        raw.remove(quad).unwrap();
        let oxigraph::model::GraphName::NamedNode(derived) = &quad.graph_name else {
            panic!("a digest in the default graph")
        };
        let id = derived.as_str().rsplit('/').next().unwrap();
        let graph = NamedNode::new(format!("{}graph/{id}", scheme.base())).unwrap();
        let mut inside = quad.clone();
        inside.graph_name = graph.into();
        raw.insert(&inside).unwrap();
    }
    let stale = oxigraph::model::Quad::new(
        scheme.conversation("gone"),
        digest,
        Literal::new_simple_literal(r#"{"turnCount":1,"turns":[{"turnIndex":0}]}"#),
        scheme.derived_graph("gone"),
    );
    raw.insert(&stale).unwrap();
    let setting = NamedNode::new("https://w3id.org/ihigraph/ontology#ontologyDigest").unwrap();
    let settings: Vec<oxigraph::model::Quad> = raw
        .quads_for_pattern(None, Some(setting.as_ref()), None, None)
        .map(Result::unwrap)
        .collect();
    for mut quad in settings {
        raw.remove(&quad).unwrap();
        quad.object = Literal::new_simple_literal("0").into();
        raw.insert(&quad).unwrap();
    }
}

#[test]
fn opening_a_store_of_an_earlier_version_moves_its_digests_out_of_the_session_graphs() {
    let backend = Embedded::in_memory().unwrap();
    let raw = backend.oxigraph().clone();
    let store = HistoryStore::with_backend(backend.clone(), &Default::default()).unwrap();
    for name in EXAMPLES {
        ingest(&store, &example(name));
    }
    let written = digests(&raw);
    let answers = recent_turns_of_all(&store, &[2, 10]);
    let prints = store.fingerprint_records().unwrap();
    as_an_earlier_version_left_it(&raw, store.scheme());
    assert_ne!(digests(&raw), written);

    let store = HistoryStore::with_backend(backend, &Default::default()).unwrap();
    assert_eq!(digests(&raw), written, "moved out, the stale one dropped");
    assert_eq!(recent_turns_of_all(&store, &[2, 10]), answers);
    // The fingerprints recorded then are those of the graphs now.
    for (graph, record) in prints {
        assert_eq!(
            store.fingerprint_of(graph.as_ref()).unwrap(),
            record.fingerprint
        );
    }
}

#[test]
fn odd_session_ids_find_that_session_and_nothing_else() {
    let store = odd_store();
    for query in [RECENT_TURNS, TRANSCRIPT, USER_STATE] {
        // The code-review example has four turns, two with a user state.
        let expected = if query.name == "user-state" { 2 } else { 4 };
        assert_eq!(
            rows(&store, &query, &session(ODD_ID)).len(),
            expected,
            "{}",
            query.name
        );
        assert_eq!(
            rows(&store, &query, &session("odd \"id\"")).len(),
            expected,
            "{}",
            query.name
        );
        for near in [
            "odd",
            "odd \"id\" > }",
            "odd \\\"id\\\"",
            "odd \"id\" > } # \\ \n 京都 🌸 ' <x> ?s ",
        ] {
            assert!(
                rows(&store, &query, &session(near)).is_empty(),
                "{} {near:?}",
                query.name
            );
        }
    }
    let calls = rows(&store, &TOOL_USAGE, &session(ODD_ID));
    assert_eq!(column(&calls, 0), [ODD_ID, ODD_ID, ODD_ID]);
    let items = rows(&store, &MEMORY_ITEMS, &session(ODD_ID));
    assert!(items.iter().all(|item| item[2] == ODD_ID));
    // The IRIs percent-encode the id; the design query's work session is found by it.
    assert!(
        items[0][0].starts_with(
            "<https://w3id.org/ihigraph/id/conversation/odd%20%22id%22%20%3E%20%7D%20%23"
        ),
        "{}",
        items[0][0]
    );
    let design = rows(
        &store,
        &DESIGN_TOOL_INVOCATIONS,
        &session(ODD_ID).text("tool", "ReadFile"),
    );
    assert_eq!(design.len(), 2);
}

#[test]
fn injection_attempts_are_values_not_syntax() {
    let store = examples_store();
    for hostile in [
        "abc\" || true || \"",
        "abc\") } UNION { GRAPH ?g { ?s ?p ?o } } #",
        "abc\"^^<http://www.w3.org/2001/XMLSchema#string> . } #",
        "abc'\n}",
        "\\u0022",
    ] {
        for query in [RECENT_TURNS, TOOL_USAGE, TRANSCRIPT, USER_STATE, ROLES] {
            assert!(
                rows(&store, &query, &session(hostile)).is_empty(),
                "{} {hostile:?}",
                query.name
            );
        }
        assert!(rows(&store, &SEARCH, &Arguments::new().text("text", hostile)).is_empty());
        assert!(rows(&store, &TOOL_USAGE, &Arguments::new().text("tool", hostile)).is_empty());
    }
    // An IRI with '>' is refused, not spliced in.
    let error = MEMORY_ITEMS
        .bind(
            &Arguments::new().raw("class", "<http://x> } ?s ?p ?o {"),
            &Default::default(),
        )
        .unwrap_err();
    assert!(
        matches!(error, ParameterError::InvalidValue { name: "class", .. }),
        "{error}"
    );
}

#[test]
fn tool_usage_newest_first_with_filters() {
    let store = examples_store();
    let calls = rows(&store, &TOOL_USAGE, &session("abc"));
    assert_eq!(
        calls,
        vec![
            row(&[
                "abc",
                "1",
                "ReadFile",
                "{\"path\":\"config/ci.exs\"}",
                "enoent: config/ci.exs does not exist",
                "true",
                "2026-01-02T08:00:02.1Z"
            ]),
            row(&[
                "abc",
                "1",
                "RunCommand",
                "{\"cmd\":\"ls config\",\"timeout_s\":10}",
                "[{\"type\":\"text\",\"text\":\"config.exs\\ndev.exs\\nprod.exs\\ntest.exs\"}]",
                "",
                "2026-01-02T08:00:02.1Z"
            ]),
            row(&[
                "abc",
                "0",
                "ReadFile",
                "{\"path\":\"config/config.exs\"}",
                "import Config\nconfig :app, ecto_repos: [App.Repo]\nimport_config \"#{config_env()}.exs\"\n",
                "",
                "2026-01-02T08:00:00.5Z"
            ]),
        ]
    );
    let all = rows(&store, &TOOL_USAGE, &Arguments::new());
    assert_eq!(all.len(), 11);
    assert_eq!(all[0][2], "export_bibtex", "newest first across sessions");
    assert_eq!(all[0][4], "", "a call without result");
    let read_file = rows(
        &store,
        &TOOL_USAGE,
        &Arguments::new().text("tool", "ReadFile"),
    );
    assert_eq!(column(&read_file, 1), ["1", "0"]);
    let window = rows(
        &store,
        &TOOL_USAGE,
        &Arguments::new()
            .raw("since", "2026-01-02T08:00:01Z")
            .raw("until", "2026-01-03"),
    );
    assert_eq!(column(&window, 2), ["ReadFile", "RunCommand"]);
    let zoned = rows(
        &store,
        &TOOL_USAGE,
        &Arguments::new().raw("since", "2026-01-03T09:00:59+01:00"),
    );
    assert_eq!(
        column(&zoned, 2),
        [
            "export_bibtex",
            "search_papers",
            "reset_two_factor",
            "verify_identity"
        ]
    );
    assert!(
        rows(
            &store,
            &TOOL_USAGE,
            &Arguments::new().text("tool", "readfile")
        )
        .is_empty()
    );
}

#[test]
fn tool_usage_of_one_session_gives_the_rows_of_the_whole_store_text() {
    assert!(
        matches!(TOOL_USAGE.scope, SessionScope::GraphAs(_)),
        "tool-usage has a text of its own for one session"
    );
    let whole_store = CannedQuery {
        scope: SessionScope::Store,
        ..TOOL_USAGE
    };
    // And times changed by another writer: an earlier one on a turn and on an
    // invocation, a later one on another invocation, and calls without a time of their
    // own in a turn with two.
    let (store, _raw) = varied_store(9);
    store
        .update(
            "PREFIX ch: <https://jido.ai/ontology/conversation-history#>
             INSERT { GRAPH ?g { ?node ch:timestamp ?other } }
             WHERE {
               GRAPH ?g { ?turn ch:involvesToolInvocation ?invocation ; ch:turnIndex ?index }
               FILTER (?index IN (0, 1, 2, 3))
               BIND (IF(?index < 2, ?turn, ?invocation) AS ?node)
               BIND (IF(?index = 3, \"2099-01-01T00:00:00Z\", \"2000-01-01T00:00:00Z\") AS ?text)
               BIND (STRDT(?text, <http://www.w3.org/2001/XMLSchema#dateTime>) AS ?other)
             }",
        )
        .unwrap();
    store
        .update(
            "PREFIX ch: <https://jido.ai/ontology/conversation-history#>
             DELETE { GRAPH ?g { ?invocation ch:timestamp ?time } }
             WHERE {
               GRAPH ?g {
                 ?turn ch:involvesToolInvocation ?invocation ; ch:turnIndex 1 .
                 ?invocation ch:timestamp ?time
               }
             }",
        )
        .unwrap();

    let mut compared = 0;
    for (id, _) in store.sessions().unwrap() {
        let one = session(&id);
        let bound = TOOL_USAGE.bind(&one, store.scheme()).unwrap().to_string();
        assert!(bound.contains("FROM NAMED"), "{bound}");
        // The session's text (no per-row NOT EXISTS), not the whole store's.
        assert!(!bound.contains("NOT EXISTS"), "{bound}");
        let calls = term_rows(&store, &whole_store, &one).1;
        assert_eq!(term_rows(&store, &TOOL_USAGE, &one).1, calls, "{id}");
        compared += calls.len();
        // Narrowed by tool and by time, as the whole store's text narrows them.
        let Some(first) = calls.first() else { continue };
        if let Some(Term::Literal(tool)) = &first[2] {
            let by_tool = one.clone().text("tool", tool.value());
            assert_eq!(
                term_rows(&store, &TOOL_USAGE, &by_tool).1,
                term_rows(&store, &whole_store, &by_tool).1,
                "{id}"
            );
        }
        if let Some(Term::Literal(time)) = &calls[calls.len() / 2][6] {
            for bound in ["since", "until"] {
                let window = one.clone().raw(bound, time.value());
                assert_eq!(
                    term_rows(&store, &TOOL_USAGE, &window).1,
                    term_rows(&store, &whole_store, &window).1,
                    "{id} {bound}"
                );
            }
        }
    }
    assert!(compared > 200, "{compared} calls compared");
    // Without a session, the whole store's text runs.
    let unbound = TOOL_USAGE.bind(&Arguments::new(), store.scheme()).unwrap();
    assert!(!unbound.to_string().contains("FROM NAMED"));
}

#[test]
fn tool_stats_per_tool() {
    let store = examples_store();
    let stats = rows(&store, &TOOL_STATS, &Arguments::new());
    assert_eq!(stats.len(), 10);
    assert_eq!(
        stats[0],
        row(&[
            "ReadFile",
            "2",
            "1",
            "0",
            "1",
            "2026-01-02T08:00:00.5Z",
            "2026-01-02T08:00:02.1Z"
        ])
    );
    let bibtex = stats
        .iter()
        .find(|tool| tool[0] == "export_bibtex")
        .unwrap();
    assert_eq!(bibtex[1..5], row(&["1", "0", "1", "1"]));
    let reset = stats
        .iter()
        .find(|tool| tool[0] == "reset_two_factor")
        .unwrap();
    assert_eq!(reset[2], "1");
    let since = rows(
        &store,
        &TOOL_STATS,
        &Arguments::new().raw("since", "2026-01-03"),
    );
    assert_eq!(
        column(&since, 0),
        [
            "export_bibtex",
            "reset_two_factor",
            "search_knowledge_base",
            "search_papers",
            "verify_identity"
        ]
    );
    assert_eq!(
        column(&rows(&store, &TOOL_STATS, &session("abc")), 0),
        ["ReadFile", "RunCommand"]
    );
    assert!(rows(&store, &TOOL_STATS, &session("none")).is_empty());
    // Across sessions: the same tool in two sessions counts two sessions.
    let store = odd_store();
    let read_file = rows(&store, &TOOL_STATS, &Arguments::new());
    assert_eq!(read_file[0][..5], row(&["ReadFile", "4", "2", "0", "2"]));
}

#[test]
fn sessions_with_filters() {
    let store = examples_store();
    assert_eq!(
        rows(&store, &SESSIONS, &Arguments::new()),
        vec![
            row(&[
                "research-rag-memory",
                "m-instance/lab",
                "u-env/notebook",
                "2026-01-04T08:00:00Z",
                "3",
                "2026-01-04T08:01:30Z",
                "",
                ""
            ]),
            row(&[
                "support-2026-0117-fr",
                "m-instance/helpdesk",
                "u-env/web-chat",
                "2026-01-03T08:00:00Z",
                "5",
                "2026-01-03T08:01:03Z",
                "",
                ""
            ]),
            row(&[
                "abc",
                "m-instance/dev-workstation",
                "u-env/ide-plugin",
                "2026-01-02T08:00:00Z",
                "4",
                "2026-01-02T08:00:30Z",
                "",
                ""
            ]),
            row(&[
                "trip-kyoto-2026",
                "m-instance/travel-desk",
                "u-env/mobile-app",
                "2026-01-01T08:00:00Z",
                "4",
                "2026-01-01T08:01:08.5Z",
                "",
                ""
            ]),
        ]
    );
    let helpdesk = rows(
        &store,
        &SESSIONS,
        &Arguments::new().text("m-instance", "m-instance/helpdesk"),
    );
    assert_eq!(column(&helpdesk, 0), ["support-2026-0117-fr"]);
    let web = rows(
        &store,
        &SESSIONS,
        &Arguments::new()
            .text("u-environment", "u-env/web-chat")
            .text("m-instance", "m-instance/lab"),
    );
    assert!(web.is_empty());
    assert!(
        rows(
            &HistoryStore::in_memory(&Default::default()).unwrap(),
            &SESSIONS,
            &Arguments::new()
        )
        .is_empty()
    );
}

#[test]
fn transcript_in_order_with_tool_calls() {
    let store = examples_store();
    let transcript = rows(&store, &TRANSCRIPT, &session("abc"));
    assert_eq!(column(&transcript, 0), ["0", "1", "2", "3"]);
    assert_eq!(
        column(&transcript, 1),
        ["H-User", "A-User", "A-User", "H-User"]
    );
    assert_eq!(
        transcript[0][5],
        "ReadFile({\"path\":\"config/config.exs\"})"
    );
    let mut calls: Vec<&str> = transcript[1][5].split('\n').collect();
    calls.sort_unstable();
    assert_eq!(
        calls,
        [
            "ReadFile({\"path\":\"config/ci.exs\"})",
            "RunCommand({\"cmd\":\"ls config\",\"timeout_s\":10})"
        ]
    );
    assert_eq!(transcript[3][5], "");
    assert!(rows(&store, &TRANSCRIPT, &session("none")).is_empty());
    // Unicode survives.
    let trip = rows(&store, &TRANSCRIPT, &session("trip-kyoto-2026"));
    assert!(trip[0][3].contains("京都") && trip[0][3].contains('🌸'));
}

#[test]
/// On a store without a full-text index (this one), `search` scans the texts.
fn search_is_case_insensitive_and_unicode() {
    let store = examples_store();
    let kyoto = rows(&store, &SEARCH, &Arguments::new().text("text", "KYOTO"));
    assert_eq!(
        kyoto
            .iter()
            .map(|r| (r[0].as_str(), r[1].as_str()))
            .collect::<Vec<_>>(),
        [("trip-kyoto-2026", "0"), ("trip-kyoto-2026", "1")]
    );
    let accented = rows(
        &store,
        &SEARCH,
        &Arguments::new().text("text", "IDENTITÉ VÉRIFIÉE"),
    );
    assert_eq!(column(&accented, 1), ["3"]);
    assert_eq!(
        rows(&store, &SEARCH, &Arguments::new().text("text", "京都")).len(),
        2
    );
    let in_session = rows(
        &store,
        &SEARCH,
        &Arguments::new()
            .text("text", "config")
            .text("session", "abc"),
    );
    assert_eq!(column(&in_session, 1), ["0", "2", "3"]);
    assert!(
        rows(
            &store,
            &SEARCH,
            &Arguments::new()
                .text("text", "config")
                .text("session", "trip-kyoto-2026")
        )
        .is_empty()
    );
}

#[test]
fn user_state_and_instructions() {
    let store = examples_store();
    assert_eq!(
        rows(&store, &USER_STATE, &session("support-2026-0117-fr")),
        vec![
            row(&[
                "0",
                "2026-01-03T08:00:00Z",
                "{\"Sentiment\":\"anxious\",\"Language\":\"fr\"}"
            ]),
            row(&[
                "2",
                "2026-01-03T08:01:00Z",
                "{\"Sentiment\":\"hopeful\",\"Language\":\"fr\"}"
            ]),
        ]
    );
    assert_eq!(
        column(&rows(&store, &USER_STATE, &session("abc")), 0),
        ["0", "3"]
    );
    assert!(rows(&store, &USER_STATE, &session("trip-kyoto-2026 ")).is_empty());
    assert_eq!(rows(&store, &INSTRUCTIONS, &Arguments::new()).len(), 11);
    assert_eq!(
        rows(
            &store,
            &INSTRUCTIONS,
            &Arguments::new().text("instruction", "Escalate")
        ),
        vec![row(&[
            "support-2026-0117-fr",
            "4",
            "Escalate",
            "{\"Instruction\":\"Escalate\",\"Tier\":2}"
        ])]
    );
    assert_eq!(
        column(&rows(&store, &INSTRUCTIONS, &session("abc")), 2),
        ["RespondToUser", "ContinueAfterTools", "ContinueAfterTools"]
    );
}

#[test]
fn roles_count_turns_and_sessions() {
    let store = examples_store();
    assert_eq!(
        rows(&store, &ROLES, &Arguments::new()),
        vec![
            row(&["H-User", "8", "4"]),
            row(&["A-User", "7", "4"]),
            row(&["BKN", "1", "1"])
        ]
    );
    assert_eq!(
        rows(&store, &ROLES, &session("abc")),
        vec![row(&["A-User", "2", "1"]), row(&["H-User", "2", "1"])]
    );
    assert!(rows(&store, &ROLES, &session("none")).is_empty());
}

#[test]
fn memory_items_with_their_most_specific_class() {
    let store = examples_store();
    let items = rows(&store, &MEMORY_ITEMS, &session("abc"));
    let mut classes: Vec<&str> = column(&items, 1);
    classes.dedup();
    let ch = "https://jido.ai/ontology/conversation-history#";
    assert_eq!(
        classes,
        [
            format!("<{ch}Conversation>"),
            format!("<{ch}ConversationTurn>"),
            format!("<{ch}ToolInvocation>"),
            format!("<{ch}ToolResult>")
        ]
    );
    assert_eq!(items.len(), 1 + 4 + 3 + 3);
    let results = rows(
        &store,
        &MEMORY_ITEMS,
        &Arguments::new().raw("class", "ch:ToolResult"),
    );
    assert_eq!(results.len(), 10);
    let same = rows(
        &store,
        &MEMORY_ITEMS,
        &Arguments::new().raw("class", format!("<{ch}ToolResult>")),
    );
    assert_eq!(results, same);
    // jido:MemoryItem itself is never the most specific class of these items.
    assert!(
        rows(
            &store,
            &MEMORY_ITEMS,
            &Arguments::new().raw("class", "jido:MemoryItem")
        )
        .is_empty()
    );
}

#[test]
fn the_design_queries_agree_with_their_replacements() {
    let store = examples_store();
    for id in [
        "abc",
        "trip-kyoto-2026",
        "support-2026-0117-fr",
        "research-rag-memory",
    ] {
        let design = rows(&store, &DESIGN_RECENT_TURNS, &session(id).count("n", 100));
        let recent: Vec<Vec<String>> = rows(&store, &RECENT_TURNS, &session(id).count("n", 100))
            .into_iter()
            .filter(|turn| !turn[3].is_empty() && !turn[4].is_empty())
            .map(|turn| {
                vec![
                    turn[0].clone(),
                    turn[3].clone(),
                    turn[4].clone(),
                    turn[2].clone(),
                ]
            })
            .collect();
        assert_eq!(design, recent, "{id}");
        // The design's LIMIT 3 is n's default.
        assert_eq!(
            rows(&store, &DESIGN_RECENT_TURNS, &session(id)),
            design.iter().take(3).cloned().collect::<Vec<_>>()
        );
        for tool in [
            "ReadFile",
            "RunCommand",
            "book_train",
            "reset_two_factor",
            "export_bibtex",
        ] {
            let design = rows(
                &store,
                &DESIGN_TOOL_INVOCATIONS,
                &session(id).text("tool", tool),
            );
            let usage: Vec<Vec<String>> =
                rows(&store, &TOOL_USAGE, &session(id).text("tool", tool))
                    .into_iter()
                    .filter(|call| !call[4].is_empty() && !call[6].is_empty())
                    .map(|call| {
                        vec![
                            call[1].clone(),
                            call[2].clone(),
                            call[6].clone(),
                            call[4].clone(),
                        ]
                    })
                    .collect();
            assert_eq!(design, usage, "{id} {tool}");
        }
    }
    // The design's own example: ReadFile in session abc.
    assert_eq!(
        rows(
            &store,
            &DESIGN_TOOL_INVOCATIONS,
            &session("abc").text("tool", "ReadFile")
        )
        .len(),
        2
    );
}

#[test_case("recent-turns", &[], "needs parameter session" ; "missing required")]
#[test_case("recent-turns", &[("session", "abc"), ("limit", "3")], "has no parameter \"limit\"; its parameters: session, n" ; "unknown parameter")]
#[test_case("recent-turns", &[("session", "abc"), ("n", "three")], "parameter n of query recent-turns expects a non-negative integer, found \"three\"" ; "count not a number")]
#[test_case("recent-turns", &[("session", "abc"), ("n", "-1")], "expects a non-negative integer, found \"-1\"" ; "negative count")]
#[test_case("tool-usage", &[("since", "yesterday")], "parameter since of query tool-usage expects an xsd:dateTime" ; "date not a date")]
#[test_case("tool-usage", &[("until", "2026-13-01")], "expects an xsd:dateTime" ; "month 13")]
#[test_case("memory-items", &[("class", "not an iri")], "parameter class of query memory-items expects a class IRI" ; "class not an iri")]
fn parameter_errors_name_the_parameter(name: &str, given: &[(&str, &str)], expected: &str) {
    let query = CannedQuery::named(name).unwrap();
    let arguments = given
        .iter()
        .fold(Arguments::new(), |arguments, (name, value)| {
            arguments.raw(*name, *value)
        });
    let error = query.bind(&arguments, &Default::default()).unwrap_err();
    assert!(error.to_string().contains(expected), "{error}");
    // The store gives the same error.
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let Err(StoreError::Parameter(same)) = store.run(query, &arguments) else {
        panic!("no parameter error")
    };
    assert_eq!(same, error);
}

#[test]
fn typed_arguments_are_checked_against_the_declared_type() {
    let error = RECENT_TURNS
        .bind(&Arguments::new().count("session", 3), &Default::default())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("parameter session of query recent-turns expects text, found \"3\""),
        "{error}"
    );
    let since: oxsdatatypes::DateTime = "2026-01-03T00:00:00Z".parse().unwrap();
    let store = examples_store();
    assert_eq!(
        rows(
            &store,
            &TOOL_USAGE,
            &Arguments::new().date_time("since", since)
        ),
        rows(
            &store,
            &TOOL_USAGE,
            &Arguments::new().with("since", Argument::Raw("2026-01-03".into()))
        )
    );
    assert!(matches!(
        CannedQuery::named("nope"),
        Err(ParameterError::UnknownQuery { .. })
    ));
}

#[test]
fn each_query_file_declares_its_parameters_in_its_header_and_values_row() {
    let names: Vec<&str> = CANNED_QUERIES.iter().map(|query| query.name).collect();
    let files_in = |folder: &str| -> Vec<String> {
        let mut files: Vec<String> =
            std::fs::read_dir(format!("{}/{folder}", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
                .map(|entry| entry.unwrap())
                .filter(|entry| entry.file_type().unwrap().is_file())
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect();
        files.sort_unstable();
        files
    };
    let files = files_in("queries");
    let mut expected: Vec<String> = names.iter().map(|name| format!("{name}.rq")).collect();
    expected.sort_unstable();
    assert_eq!(files, expected, "one file per canned query");
    // A query's text for one session, where it has one, is in `one-session/` by its name.
    let mut texts: Vec<(&CannedQuery, &str)> = Vec::new();
    let mut one_session = Vec::new();
    for query in CANNED_QUERIES {
        texts.push((query, query.sparql));
        if let SessionScope::GraphAs(text) = query.scope {
            texts.push((query, text));
            one_session.push(format!("{}.rq", query.name));
        }
    }
    assert_eq!(files_in("queries/one-session"), one_session);
    for (query, sparql) in texts {
        // The file parses by itself, as any SPARQL 1.1 server would read it.
        SparqlParser::new().parse_query(sparql).unwrap();
        let header: String = sparql
            .lines()
            .take_while(|line| line.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            header.starts_with(&format!("# {}: ", query.name)),
            "{}",
            query.name
        );
        for parameter in query.parameters {
            let line = header
                .lines()
                .find(|line| {
                    line.trim_start_matches('#').split_whitespace().next() == Some(parameter.name)
                })
                .unwrap_or_else(|| panic!("{}: no header line for {}", query.name, parameter.name));
            assert_eq!(line.contains("required"), parameter.required, "{line}");
            if let Some(default) = parameter.default {
                assert!(line.contains(&format!("default {default}")), "{line}");
            }
        }
        let variables: Vec<&str> = query.parameters.iter().filter_map(|p| p.variable).collect();
        if !variables.is_empty() {
            let values = format!(
                "VALUES ({}) {{ ({}) }}",
                variables
                    .iter()
                    .map(|v| format!("?{v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                vec!["UNDEF"; variables.len()].join(" ")
            );
            assert!(
                sparql.contains(&values),
                "{}: expected {values}",
                query.name
            );
        }
        // Reads named graphs only: no pattern outside GRAPH reads the default graph.
        assert!(sparql.contains("GRAPH ?graph {"), "{}", query.name);
    }
}

#[test]
fn no_query_reads_the_default_graph() {
    // The store's settings sit in the default graph; a query that read it would see
    // them. Run every query with no arguments (where it can) on a store whose default
    // graph also holds a fake conversation: no row may come from it.
    let (store, raw) = examples_store_with_raw();
    let fake = NamedNode::new("http://example.com/fake").unwrap();
    let ch = "https://jido.ai/ontology/conversation-history#";
    let ihi = "https://w3id.org/ihigraph/ontology#";
    for (p, o) in [
        (
            format!("{ihi}sessionId"),
            Term::from(Literal::new_simple_literal("fake")),
        ),
        (
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#type".to_owned(),
            NamedNode::new(format!("{ch}Conversation")).unwrap().into(),
        ),
    ] {
        raw.insert(QuadRef::new(
            &fake,
            &NamedNode::new(p).unwrap(),
            &o,
            oxigraph::model::GraphNameRef::DefaultGraph,
        ))
        .unwrap();
    }
    assert_eq!(rows(&store, &SESSIONS, &Arguments::new()).len(), 4);
    assert!(rows(&store, &ROLES, &session("fake")).is_empty());
}

/// 300 sessions of the code review example (`s0`...), 300 made from OpenTelemetry spans
/// (`o0`...), and a memory item from a turn of each of the first.
/// Sessions of each kind in [`plan_store`]: enough that one session's work, repeated per
/// class by a plan, stays below half of them, and a scan of all of them above.
const PLAN_SESSIONS: u64 = 300;

fn plan_store() -> (HistoryStore, oxigraph::store::Store) {
    let sessions = PLAN_SESSIONS;
    let (store, raw) = store_with_raw();
    let template = example("code-review-abc.json");
    for index in 0..sessions {
        let mut document = template.clone();
        document["SessionID"] = json!(format!("s{index}"));
        ingest(&store, &document);
    }
    // As many sessions made from OpenTelemetry spans, for the queries of what spans
    // report (`token-usage`, `tool-latency`, `slow-calls`).
    let telemetry = telemetry_store().history("conv-weather-1").unwrap();
    let telemetry = serde_json::to_value(&telemetry).unwrap();
    for index in 0..sessions {
        let mut document = telemetry.clone();
        document["SessionID"] = json!(format!("o{index}"));
        ingest(&store, &document);
    }
    // A memory item from a turn of each session, for `memories` and `memory-items`.
    for index in 0..sessions {
        let request = ihigraph::memory::Remember {
            session: format!("s{index}"),
            turn: 1,
            kind: ihigraph::memory::MemoryKind::Fact,
            text: format!("fact {index}"),
            valid_from: None,
            valid_until: None,
        };
        ihigraph::memory::remember(&store, &request, "2026-11-25T10:00:00Z".parse().unwrap())
            .unwrap();
    }
    (store, raw)
}

#[test]
fn session_queries_read_only_that_sessions_graph() {
    // With one session named, no step of the plan may see more solutions than one
    // session has: a scan over all sessions would show at least one per session.
    let (store, raw) = plan_store();
    // The same sessions' texts in a store with a full-text index (the plan store has
    // none), for the search's SERVICE: the turns it finds have the same IRIs.
    let searchable = HistoryStore::in_memory(&Default::default()).unwrap();
    for (id, _) in store.sessions().unwrap() {
        let history = serde_json::to_value(store.history(&id).unwrap()).unwrap();
        ingest(&searchable, &history);
    }
    for query in CANNED_QUERIES {
        // The queries that read entailments run over the inferred store: tests/reasoning.rs.
        if query.inferred
            || !query
                .parameters
                .iter()
                .any(|parameter| parameter.name == "session")
        {
            continue;
        }
        let reads_spans = matches!(query.name, "token-usage" | "tool-latency" | "slow-calls");
        let mut arguments = session(if reads_spans { "o7" } else { "s7" });
        for parameter in query
            .parameters
            .iter()
            .filter(|p| p.required && p.name != "session")
        {
            arguments = arguments.text(
                parameter.name,
                if parameter.name == "tool" {
                    "ReadFile"
                } else {
                    "config"
                },
            );
        }
        let mut bound = query.bind(&arguments, store.scheme()).unwrap();
        // As the store runs it: its searches first, their hits in their place.
        searchable.search_service().inline(&mut bound).unwrap();
        let (results, explanation) = oxigraph::sparql::SparqlEvaluator::new()
            .for_query(bound)
            .on_store(&raw)
            .compute_statistics()
            .explain();
        let QueryResults::Solutions(solutions) = results.unwrap() else {
            panic!()
        };
        assert!(solutions.count() > 0, "{}", query.name);
        let mut json = Vec::new();
        explanation.write_in_json(&mut json).unwrap();
        let plan: Value = serde_json::from_slice(&json).unwrap();
        let mut largest = 0;
        let mut stack = vec![&plan];
        while let Some(node) = stack.pop() {
            match node {
                Value::Object(members) => {
                    if let Some(count) = members.get("number of results").and_then(Value::as_u64) {
                        largest = largest.max(count);
                    }
                    stack.extend(members.values());
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        assert!(
            largest < PLAN_SESSIONS / 2,
            "{}: a step saw {largest} solutions:\n{plan:#}",
            query.name
        );
    }
}

#[test]
fn every_session_query_keeps_odd_ids_apart() {
    let store = odd_store();
    let ids = rows(&store, &SESSIONS, &Arguments::new());
    let mut listed = column(&ids, 0);
    listed.sort_unstable();
    assert_eq!(listed, ["odd \"id\"", ODD_ID]);
    assert_eq!(
        rows(&store, &ROLES, &session(ODD_ID)),
        vec![row(&["A-User", "2", "1"]), row(&["H-User", "2", "1"])]
    );
    assert_eq!(
        column(&rows(&store, &INSTRUCTIONS, &session(ODD_ID)), 0),
        [ODD_ID, ODD_ID, ODD_ID]
    );
    assert_eq!(
        rows(&store, &TOOL_STATS, &session(ODD_ID))[0][..5],
        row(&["ReadFile", "2", "1", "0", "1"])
    );
    let found = rows(
        &store,
        &SEARCH,
        &Arguments::new()
            .text("text", "CONFIG.EXS")
            .text("session", ODD_ID),
    );
    assert!(!found.is_empty() && found.iter().all(|turn| turn[0] == ODD_ID));
    assert_eq!(
        rows(&store, &DESIGN_RECENT_TURNS, &session(ODD_ID)).len(),
        rows(&store, &DESIGN_RECENT_TURNS, &session("odd \"id\"")).len()
    );
}

#[test]
fn the_report_activity_per_session_day_and_role_on_the_examples() {
    let store = examples_store();
    let activity = rows(&store, &REPORT_ACTIVITY, &Arguments::new());
    assert_eq!(activity.len(), 9);
    assert_eq!(
        &activity[..2],
        [
            row(&[
                "abc",
                "2026-01-02",
                "A-User",
                "2",
                "2",
                "1",
                "2026-01-02T08:00:02.1Z",
                "2026-01-02T08:00:04.3Z"
            ]),
            row(&[
                "abc",
                "2026-01-02",
                "H-User",
                "2",
                "1",
                "0",
                "2026-01-02T08:00:00.5Z",
                "2026-01-02T08:00:30Z"
            ]),
        ]
    );
    assert_eq!(
        activity[5],
        row(&[
            "support-2026-0117-fr",
            "2026-01-03",
            "BKN",
            "1",
            "1",
            "1",
            "2026-01-03T08:01:01.2Z",
            "2026-01-03T08:01:01.2Z"
        ])
    );
    let sum = |rows: &[Vec<String>], at: usize| -> u64 {
        rows.iter().map(|row| row[at].parse::<u64>().unwrap()).sum()
    };
    // 16 turns, 11 tool calls, 2 of them failed.
    assert_eq!(
        (sum(&activity, 3), sum(&activity, 4), sum(&activity, 5)),
        (16, 11, 2)
    );
    let window = Arguments::new()
        .raw("since", "2026-01-02")
        .raw("until", "2026-01-03T08:00:30Z");
    let narrowed = rows(&store, &REPORT_ACTIVITY, &window);
    assert_eq!(
        column(&narrowed, 0),
        ["abc", "abc", "support-2026-0117-fr", "support-2026-0117-fr"]
    );
    assert_eq!(
        (sum(&narrowed, 3), sum(&narrowed, 4), sum(&narrowed, 5)),
        (6, 4, 1),
        "abc's 4 turns (3 calls, 1 failed) and support's first 2 (08:00:00, 08:00:01.5; 1 call)"
    );
    assert_eq!(
        narrowed[3],
        row(&[
            "support-2026-0117-fr",
            "2026-01-03",
            "H-User",
            "1",
            "1",
            "0",
            "2026-01-03T08:00:00Z",
            "2026-01-03T08:00:00Z"
        ])
    );
}

#[test]
fn the_report_activity_cuts_time_as_finely_as_it_is_asked() {
    let store = examples_store();
    let by = |width: u64| {
        rows(
            &store,
            &REPORT_ACTIVITY,
            &Arguments::new().count("width", width),
        )
    };
    let (days, hours, minutes, months) = (by(10), by(13), by(16), by(7));
    assert_eq!(days, rows(&store, &REPORT_ACTIVITY, &Arguments::new()));
    assert_eq!(column(&hours, 1)[..2], ["2026-01-02T08", "2026-01-02T08"]);
    assert_eq!(
        column(&minutes, 1)[..2],
        ["2026-01-02T08:00", "2026-01-02T08:00"]
    );
    assert!(column(&months, 1).iter().all(|period| *period == "2026-01"));
    // The same turns in each: every one of the examples' turns is at 08:00 or 08:01.
    let turns = |rows: &[Vec<String>]| -> u64 {
        rows.iter().map(|row| row[3].parse::<u64>().unwrap()).sum()
    };
    assert_eq!(
        [turns(&days), turns(&hours), turns(&minutes), turns(&months)],
        [16; 4]
    );
    assert_eq!(hours.len(), days.len());
    assert!(
        minutes.len() > hours.len(),
        "research-notes' turns 08:00 and 08:01"
    );
    assert_eq!(
        months.len(),
        days.len(),
        "each session's turns of one role are on one day"
    );
}

#[test]
fn the_report_span_is_the_first_and_last_turn_time() {
    let store = examples_store();
    assert_eq!(
        rows(&store, &REPORT_SPAN, &Arguments::new()),
        vec![row(&[
            "2026-01-01T08:00:01.2Z",
            "2026-01-04T08:01:30Z",
            "16"
        ])]
    );
    let window = Arguments::new()
        .raw("since", "2026-01-02")
        .raw("until", "2026-01-03T08:00:30Z");
    assert_eq!(
        rows(&store, &REPORT_SPAN, &window),
        vec![row(&[
            "2026-01-02T08:00:00.5Z",
            "2026-01-03T08:00:01.5Z",
            "6"
        ])]
    );
    let empty = store_with_raw().0;
    assert_eq!(
        rows(&empty, &REPORT_SPAN, &Arguments::new()),
        vec![row(&["", "", "0"])]
    );
}

#[test]
fn the_report_activity_has_a_row_for_a_session_without_turns() {
    let (store, _) = examples_store_with_raw();
    let mut document = example("code-review-abc.json");
    document["SessionID"] = json!("no-turns");
    document["Turns"] = json!([]);
    document["TurnCount"] = json!(0);
    ingest(&store, &document);
    let activity = rows(&store, &REPORT_ACTIVITY, &Arguments::new());
    assert_eq!(activity.len(), 10);
    assert_eq!(
        activity.iter().find(|row| row[0] == "no-turns"),
        Some(&row(&["no-turns", "", "", "0", "0", "0", "", ""]))
    );
    // In a time window, only the sessions with a turn in it.
    let window = Arguments::new().raw("since", "2026-01-01");
    let narrowed = rows(&store, &REPORT_ACTIVITY, &window);
    assert_eq!(narrowed.len(), 9);
    assert!(narrowed.iter().all(|row| row[0] != "no-turns"));
}

#[test]
fn the_report_queries_per_turn_tool_and_argument_on_the_examples() {
    let store = examples_store();
    let none = Arguments::new();
    let times = rows(&store, &REPORT_TURN_TIMES, &none);
    assert_eq!(times.len(), 16);
    assert_eq!(
        &times[..4],
        [
            row(&["abc", "0", "2026-01-02T08:00:00.5Z"]),
            row(&["abc", "1", "2026-01-02T08:00:02.1Z"]),
            row(&["abc", "2", "2026-01-02T08:00:04.3Z"]),
            row(&["abc", "3", "2026-01-02T08:00:30Z"]),
        ]
    );
    assert_eq!(
        rows(&store, &REPORT_FAILING_ARGUMENTS, &none),
        vec![
            row(&["ReadFile", "{\"path\":\"config/ci.exs\"}", "1", "1", "1"]),
            row(&[
                "reset_two_factor",
                "{\"account\":\"ACC-77-1203\",\"notify\":\"email\"}",
                "1",
                "1",
                "1"
            ]),
        ]
    );
    assert_eq!(
        rows(
            &store,
            &REPORT_FAILING_ARGUMENTS,
            &Arguments::new().count("n", 1)
        )
        .len(),
        1
    );
    assert_eq!(rows(&store, &REPORT_MEMORY, &none), vec![row(&["0", "0"])]);
    // tool-stats takes `until` too, and report-tools gives what it gives over the store.
    let until = Arguments::new().raw("until", "2026-01-02");
    let early = rows(&store, &TOOL_STATS, &until);
    assert_eq!(
        column(&early, 0),
        ["book_train", "get_weather", "search_trains"]
    );
    assert_eq!(rows(&store, &REPORT_TOOLS, &until), early);
    assert_eq!(
        rows(&store, &REPORT_TOOLS, &none),
        rows(&store, &TOOL_STATS, &none)
    );
}

#[test]
fn a_query_of_one_session_runs_over_that_sessions_graph_alone() {
    let store = examples_store();
    let scheme = store.scheme();
    let abc = Arguments::new().text("session", "abc");
    let bound = PAYLOADS.bind(&abc, scheme).unwrap().to_string();
    assert!(
        bound.contains(&format!(
            "FROM NAMED <{}>",
            scheme.session_graph("abc").as_str()
        )),
        "{bound}"
    );
    // A query not marked so reads the whole store, as written.
    let unscoped = RECENT_TURNS.bind(&abc, scheme).unwrap().to_string();
    assert!(!unscoped.contains("FROM NAMED"), "{unscoped}");
    // The session's turns in order, with their payloads, and nothing of another session.
    let payloads = rows(&store, &PAYLOADS, &abc);
    assert_eq!(column(&payloads, 0), ["0", "1", "2", "3"]);
    assert!(
        payloads
            .iter()
            .all(|row| row[2].starts_with('{') && row[3].starts_with('{'))
    );
    // Where each turn sits in the document: its IRI ends in its place.
    let places = rows(&store, &TURN_PLACES, &abc);
    assert_eq!(column(&places, 0), ["0", "1", "2", "3"]);
    for (place, row) in places.iter().enumerate() {
        let turn = format!("<{}/turn/{place}>", scheme.conversation("abc").as_str());
        assert_eq!(row[1], turn);
    }
    // The newest turns and the first, with the session's turn counts (up to `until`).
    let newest = rows(&store, &NEWEST_PAYLOADS, &abc.clone().count("n", 2));
    assert_eq!(column(&newest, 0), ["0", "2", "3"]);
    assert!(
        newest
            .iter()
            .all(|row| row[2].starts_with('{') && row[3].starts_with('{'))
    );
    assert!(newest.iter().all(|row| row[4] == "4" && row[5] == "4"));
    let until = abc.clone().count("n", 1).count("until", 1);
    let early = rows(&store, &NEWEST_PAYLOADS, &until);
    assert_eq!(column(&early, 0), ["0", "1"]);
    assert!(early.iter().all(|row| row[4] == "2"));
    let first = rows(
        &store,
        &NEWEST_PAYLOADS,
        &abc.clone().count("n", 1).count("until", 0),
    );
    assert_eq!(column(&first, 0), ["0", "0"]);
    assert!(
        rows(
            &store,
            &PAYLOADS,
            &Arguments::new().text("session", "nobody")
        )
        .is_empty()
    );
}

/// The code-review example whose user's last word is not answered yet: its last turn's
/// response is `{}`.
fn awaiting_store() -> HistoryStore {
    let store = examples_store();
    let mut document = example("code-review-abc.json");
    document["SessionID"] = json!("abc-awaiting");
    document["Turns"][3]["BKNResponse"] = json!({});
    ingest(&store, &document);
    store
}

#[test]
fn a_turn_awaiting_its_response_is_marked_in_recent_turns_and_transcript() {
    let store = awaiting_store();
    let id = session("abc-awaiting");
    let recent = rows(&store, &RECENT_TURNS, &id);
    assert_eq!(column(&recent, 0), ["3", "2", "1", "0"]);
    assert_eq!(column(&recent, 5), ["true", "false", "false", "false"]);
    // The prompt is there, the answer has no text.
    assert_eq!(recent[0][3], "Thanks, that was it.");
    assert_eq!(recent[0][4], "");
    // Past the digest (n above ten), the query says the same.
    let past_digest = session("abc-awaiting").count("n", 11);
    assert_eq!(rows(&store, &RECENT_TURNS, &past_digest), recent);
    let transcript = rows(&store, &TRANSCRIPT, &id);
    assert_eq!(column(&transcript, 6), ["false", "false", "false", "true"]);
    // The answered original is not marked.
    let answered = rows(&store, &TRANSCRIPT, &session("abc"));
    assert_eq!(column(&answered, 6), ["false", "false", "false", "false"]);
}

/// The sessions of two OTLP fixtures: one with content and a tool run, one without
/// content whose runs come from their spans.
fn telemetry_store() -> HistoryStore {
    let store = HistoryStore::in_memory(&Default::default()).unwrap();
    let otel = ihigraph::import::Choice::Format(ihigraph::import::importer("otel").unwrap());
    let paths = [
        common::fixture_path("import/otel/genai-current.jsonl"),
        common::fixture_path("import/otel/content-not-captured.jsonl"),
    ];
    ihigraph::import::import_paths(&paths, otel, &Default::default(), &mut |event| {
        if let ihigraph::import::ImportEvent::Session { converted, .. } = event {
            store
                .write_session(&ihigraph::rdf::map_history(
                    &converted.history,
                    store.scheme(),
                ))
                .unwrap();
        }
        true
    });
    store
}

#[test]
fn telemetry_queries_give_tokens_latency_and_traces() {
    let store = telemetry_store();
    assert_eq!(
        rows(&store, &ihigraph::query::TOKEN_USAGE, &Arguments::new()),
        [
            row(&[
                "gcp.gemini",
                "gemini-2.5-flash",
                "2",
                "1",
                "380",
                "95",
                "1100",
                "1300"
            ]),
            row(&[
                "openai",
                "gpt-4o-2024-08-06",
                "3",
                "1",
                "377",
                "37",
                "1500",
                "2000"
            ]),
        ]
    );
    assert_eq!(
        rows(
            &store,
            &ihigraph::query::TOKEN_USAGE,
            &session("conv-weather-1")
        )
        .len(),
        1
    );
    assert_eq!(
        rows(&store, &ihigraph::query::TOOL_LATENCY, &Arguments::new()),
        [
            row(&["search_flights", "1", "0", "1", "2500", "2500", "2500"]),
            row(&["search_hotels", "1", "1", "1", "900", "900", "900"]),
            row(&["get_weather", "1", "0", "1", "700", "700", "700"]),
        ]
    );
    let slow = rows(
        &store,
        &ihigraph::query::SLOW_CALLS,
        &Arguments::new().count("n", 3),
    );
    assert_eq!(
        slow.iter()
            .map(|r| [
                r[0].as_str(),
                r[1].as_str(),
                r[3].as_str(),
                r[4].as_str(),
                r[6].as_str()
            ])
            .collect::<Vec<_>>(),
        [
            ["tool", "planner-run-3", "search_flights", "2500", "OK"],
            ["model", "conv-weather-1", "gpt-4o-2024-08-06", "2000", ""],
            ["model", "conv-weather-1", "gpt-4o-2024-08-06", "1500", ""],
        ]
    );
    let since = Arguments::new().date_time("since", "2025-11-16T13:33:21Z".parse().unwrap());
    assert!(
        rows(&store, &ihigraph::query::SLOW_CALLS, &since)
            .iter()
            .all(|r| r[1] == "planner-run-3"),
        "since compares span starts"
    );
}

#[test]
fn trace_sessions_finds_the_session_of_a_trace() {
    let store = telemetry_store();
    assert_eq!(
        rows(
            &store,
            &ihigraph::query::TRACE_SESSIONS,
            &Arguments::new().text("trace", "4bf92f3577b34da6a3ce929d0e0e4736")
        ),
        [row(&["conv-weather-1", "3", "0"])]
    );
    assert!(
        rows(
            &store,
            &ihigraph::query::TRACE_SESSIONS,
            &Arguments::new().text("trace", "0")
        )
        .is_empty()
    );
}
