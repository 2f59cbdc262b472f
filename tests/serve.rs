//! `ihigraph serve` and `ihigraph mcp`, started as real processes on free ports and
//! talked to with real clients: an HTTP client (ureq) for REST and the SPARQL protocol's
//! three request forms, Python's SPARQLWrapper (the standard SPARQL client library),
//! and rmcp's MCP client over Streamable HTTP and over stdio.
#![allow(clippy::unwrap_used, clippy::panic, clippy::print_stderr)]

use ihigraph::generate::{GenerateOptions, generate};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::serving::{BEARER, Reply, Server, TOKEN, agent, call, get};

fn documents(count: usize, seed: u64) -> Vec<Value> {
    generate(GenerateOptions {
        sessions: count,
        seed,
        min_turns: 3,
        max_turns: 12,
    })
    .collect()
}

fn put(server: &Server, document: &Value) -> Reply {
    let id = document["SessionID"].as_str().unwrap();
    call(
        "PUT",
        &server.url(&format!("/sessions/{id}")),
        &[BEARER, ("Content-Type", "application/json")],
        Some(document.to_string().as_bytes()),
    )
}

fn session_count(server: &Server) -> u64 {
    get(&server.url("/sessions")).json()["total"]
        .as_u64()
        .unwrap()
}

#[test]
fn sessions_are_put_read_listed_and_deleted() {
    let server = Server::start(&[]);
    let docs = documents(3, 11);
    let first = put(&server, &docs[0]);
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.json()["created"], true);
    let again = put(&server, &docs[0]);
    assert_eq!(
        (again.status, again.json()["unchanged"].clone()),
        (200, json!(true))
    );
    let mut changed = docs[0].clone();
    changed["MInstanceID"] = json!("m-instance/other");
    let replaced = put(&server, &changed);
    assert_eq!(
        (replaced.status, replaced.json()["replaced"].clone()),
        (200, json!(true))
    );
    for document in &docs[1..] {
        assert_eq!(put(&server, document).status, 201);
    }

    let id = docs[1]["SessionID"].as_str().unwrap();
    let read = get(&server.url(&format!("/sessions/{id}")));
    assert_eq!(read.status, 200);
    assert!(read.content_type.starts_with("application/json"));
    assert_eq!(
        read.json(),
        docs[1],
        "the document comes back as it was put"
    );
    for (media, check) in [
        ("application/n-quads", " ."),
        ("application/trig", " {\n"),
        ("text/turtle", "@prefix"),
        ("application/ld+json", "@id"),
    ] {
        let rdf = call(
            "GET",
            &server.url(&format!("/sessions/{id}")),
            &[("Accept", media)],
            None,
        );
        assert_eq!(rdf.status, 200, "{media}: {}", rdf.body);
        assert!(
            rdf.content_type.starts_with(media),
            "{media}: {}",
            rdf.content_type
        );
        assert!(rdf.body.contains(check), "{media}");
    }

    let page = get(&server.url("/sessions?limit=2")).json();
    assert_eq!(
        (
            page["total"].as_u64(),
            page["sessions"].as_array().unwrap().len()
        ),
        (Some(3), 2)
    );
    let next = page["next"].as_str().unwrap();
    let rest = get(&server.url(next)).json();
    assert_eq!(rest["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(rest["next"], Value::Null);
    assert_eq!(get(&server.url("/sessions?limit=0")).status, 400);
    assert_eq!(get(&server.url("/sessions?offset=x")).status, 400);

    deletes_with_a_receipt(&server, id);
}

/// DELETE of a session: a dry run deletes nothing, a deletion gives its receipt, and a
/// second one finds nothing.
fn deletes_with_a_receipt(server: &Server, id: &str) {
    let delete = |id: &str| {
        call(
            "DELETE",
            &server.url(&format!("/sessions/{id}")),
            &[BEARER],
            None,
        )
    };
    let dry = call(
        "DELETE",
        &server.url(&format!("/sessions/{id}?dry-run=true")),
        &[],
        None,
    );
    assert_eq!(dry.status, 200, "{}", dry.body);
    assert_eq!(dry.json()["dry_run"], true);
    assert_eq!(session_count(server), 3, "a dry run deletes nothing");
    let receipt = call(
        "DELETE",
        &server.url(&format!("/sessions/{id}?receipt=true")),
        &[BEARER],
        None,
    );
    assert_eq!(receipt.status, 200, "{}", receipt.body);
    let receipt = receipt.json();
    assert_eq!(receipt["session"], id);
    assert_eq!(receipt["mentions_left"], 0);
    assert!(receipt["graph_triples"].as_u64().unwrap() > 10);
    assert_eq!(delete(id).status, 404);
    // Without asking for the receipt: 204, as DELETE answers.
    let listed = get(&server.url("/sessions")).json();
    let other = listed["sessions"][0]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(delete(&other).status, 204);
    assert_eq!(session_count(server), 1);
    assert_eq!(get(&server.url(&format!("/sessions/{id}"))).status, 404);
}

#[test]
fn turns_are_appended_and_sessions_started() {
    let server = Server::start(&[]);
    let document = &documents(1, 12)[0];
    let id = document["SessionID"].as_str().unwrap();
    let mut head = document.clone();
    let turns = head["Turns"].as_array().unwrap().clone();
    head["Turns"] = json!(turns[..turns.len() - 1]);
    head["TurnCount"] = json!(turns.len() - 1);
    assert_eq!(put(&server, &head).status, 201);
    let last = turns.last().unwrap().to_string();
    let url = server.url(&format!("/sessions/{id}/turns"));
    let appended = call("POST", &url, &[BEARER], Some(last.as_bytes()));
    assert_eq!(appended.status, 200, "{}", appended.body);
    assert_eq!(appended.json()["turns"], turns.len());
    assert_eq!(
        get(&server.url(&format!("/sessions/{id}"))).json(),
        *document
    );
    // The same turn again has the wrong TurnIndex: refused, located, nothing changed.
    let refused = call("POST", &url, &[BEARER], Some(last.as_bytes()));
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.json()["diagnostics"][0]["pointer"]
            .as_str()
            .unwrap()
            .starts_with("/Turns/")
    );
    assert_eq!(
        get(&server.url(&format!("/sessions/{id}"))).json(),
        *document
    );

    let first = turns[0].to_string();
    let unknown = server.url("/sessions/new-one/turns");
    assert_eq!(
        call("POST", &unknown, &[BEARER], Some(first.as_bytes())).status,
        404
    );
    let create =
        format!("{unknown}?create=true&m-instance=m1&u-environment=u1&data-id=d1&source-aim=aim");
    let created = call("POST", &create, &[BEARER], Some(first.as_bytes()));
    assert_eq!(created.status, 201, "{}", created.body);
    let partial = format!("{unknown}?create=true&m-instance=m1");
    let missing = call("POST", &partial, &[BEARER], Some(first.as_bytes()));
    assert_eq!(missing.status, 400);
    assert!(missing.body.contains("u-environment"), "{}", missing.body);
}

#[test]
fn writes_need_the_token_and_change_nothing_without_it() {
    let server = Server::start(&[]);
    let document = &documents(1, 13)[0];
    let id = document["SessionID"].as_str().unwrap();
    let body = document.to_string();
    let url = server.url(&format!("/sessions/{id}"));
    for headers in [
        vec![],
        vec![("Authorization", "Bearer wrong")],
        vec![("Authorization", "Basic dGVzdA==")],
    ] {
        let reply = call("PUT", &url, &headers, Some(body.as_bytes()));
        assert_eq!(reply.status, 401, "{headers:?}: {}", reply.body);
        assert!(reply.json()["error"].as_str().unwrap().contains("token"));
    }
    assert_eq!(session_count(&server), 0);
    assert_eq!(put(&server, document).status, 201);
    assert_eq!(
        call("DELETE", &url, &[("Authorization", "Bearer nope")], None).status,
        401
    );
    assert_eq!(session_count(&server), 1);
    // The token never reaches the log, nor do bodies.
    let log = server.log().join("\n");
    assert!(log.contains(&format!("PUT /sessions/{id} 401")), "{log}");
    assert!(
        !log.contains(TOKEN) && !log.contains("wrong") && !log.contains("Turns"),
        "{log}"
    );

    let dir = tempfile::tempdir().unwrap();
    let read_only = Server::on(&dir.path().join("store"), None, &["--allow-update"]);
    assert!(
        read_only.log().join("\n").contains("read-only"),
        "{:?}",
        read_only.log()
    );
    let reply = call(
        "PUT",
        &read_only.url(&format!("/sessions/{id}")),
        &[BEARER],
        Some(body.as_bytes()),
    );
    assert_eq!(reply.status, 403, "{}", reply.body);
    let update = call(
        "POST",
        &read_only.url("/sparql"),
        &[BEARER, ("Content-Type", "application/sparql-update")],
        Some(b"CLEAR ALL"),
    );
    assert_eq!(update.status, 403);
    assert_eq!(get(&read_only.url("/healthz")).json()["writable"], false);
}

#[test]
fn bad_documents_get_located_diagnostics() {
    let server = Server::start(&[]);
    let url = server.url("/sessions/s1");
    let syntax = call(
        "PUT",
        &url,
        &[BEARER],
        Some(b"{\n  \"Header\": \"PGM-IHI-V1.0\",\n  oops\n}"),
    );
    assert_eq!(syntax.status, 400);
    let diagnostic = &syntax.json()["diagnostics"][0];
    assert_eq!(
        (diagnostic["line"].as_u64(), diagnostic["rule"].as_str()),
        (Some(3), Some("syntax"))
    );

    let mut document = documents(1, 14)[0].clone();
    document["SessionID"] = json!("s1");
    document["Turns"][0]["Role"] = json!("Robot");
    let schema = call(
        "PUT",
        &url,
        &[BEARER],
        Some(document.to_string().as_bytes()),
    );
    assert_eq!(schema.status, 400, "{}", schema.body);
    let pointers: Vec<&str> = schema.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|diagnostic| diagnostic["pointer"].as_str())
        .map(|pointer| {
            if pointer.starts_with("/Turns/0/Role") {
                "/Turns/0/Role"
            } else {
                "other"
            }
        })
        .collect();
    assert!(pointers.contains(&"/Turns/0/Role"), "{}", schema.body);

    let other = call(
        "PUT",
        &server.url("/sessions/s2"),
        &[BEARER],
        Some(documents(1, 14)[0].to_string().as_bytes()),
    );
    assert_eq!(other.status, 400);
    assert_eq!(other.json()["diagnostics"][0]["pointer"], "/SessionID");
    assert_eq!(session_count(&server), 0);
}

#[test]
fn other_formats_go_through_their_importer_and_large_bodies_are_refused() {
    let server = Server::start(&["--max-body", "64KiB"]);
    let chat = br#"[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"}]"#;
    let imported = call(
        "PUT",
        &server.url("/sessions/chat-1?from=openai-chat"),
        &[BEARER],
        Some(chat),
    );
    assert_eq!(imported.status, 201, "{}", imported.body);
    assert_eq!(
        get(&server.url("/sessions/chat-1")).json()["Turns"][0]["Role"],
        "H-User"
    );
    let broken = br#"[{"role":"wizard","content":"Hi"}]"#;
    let refused = call(
        "PUT",
        &server.url("/sessions/chat-2?from=openai-chat"),
        &[BEARER],
        Some(broken),
    );
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.json()["diagnostics"][0]["place"]
            .as_str()
            .unwrap()
            .contains("/0"),
        "{}",
        refused.body
    );
    let unknown = call(
        "PUT",
        &server.url("/sessions/x?from=klingon"),
        &[BEARER],
        Some(chat),
    );
    assert_eq!(unknown.status, 400);

    let large = vec![b' '; 65 * 1024];
    let too_large = call("PUT", &server.url("/sessions/s1"), &[BEARER], Some(&large));
    assert_eq!(too_large.status, 413);
    assert_eq!(
        get(&server.url("/healthz")).status,
        200,
        "the server goes on"
    );
    assert_eq!(session_count(&server), 1);
}

/// A store with a few sessions, served with the given arguments.
fn served_corpus(arguments: &[&str]) -> (Server, Vec<Value>) {
    let server = Server::start(arguments);
    let docs = documents(4, 21);
    for document in &docs {
        assert_eq!(put(&server, document).status, 201);
    }
    (server, docs)
}

const COUNT_TURNS: &str = "PREFIX ch: <https://jido.ai/ontology/conversation-history#> SELECT (COUNT(?t) AS ?n) WHERE { ?t a ch:ConversationTurn }";

fn form(query: &str) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("query", query)
        .finish()
}

#[test]
fn the_sparql_protocol_answers_its_three_request_forms() {
    let (server, docs) = served_corpus(&[]);
    let turns: usize = docs
        .iter()
        .map(|d| d["Turns"].as_array().unwrap().len())
        .sum();
    let expected = turns.to_string();
    let by_get = get(&server.url(&format!("/sparql?{}", form(COUNT_TURNS))));
    let by_form = call(
        "POST",
        &server.url("/sparql"),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        Some(form(COUNT_TURNS).as_bytes()),
    );
    let direct = call(
        "POST",
        &server.url("/sparql"),
        &[("Content-Type", "application/sparql-query")],
        Some(COUNT_TURNS.as_bytes()),
    );
    for reply in [by_get, by_form, direct] {
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.content_type, "application/sparql-results+json");
        assert_eq!(
            reply.json()["results"]["bindings"][0]["n"]["value"],
            expected
        );
    }
    let bad = get(&server.url(&format!("/sparql?{}", form("SELECT WHERE {"))));
    assert_eq!(bad.status, 400);
    assert!(
        bad.json()["error"].as_str().unwrap().contains("SPARQL"),
        "{}",
        bad.body
    );
    // Without parameters, the service description (tests/sparql_protocol.rs reads it).
    let description = get(&server.url("/sparql"));
    assert_eq!(description.status, 200);
    assert!(description.content_type.starts_with("text/turtle"));
    assert_eq!(
        get(&server.url("/sparql?default-graph-uri=http%3A%2F%2Fa")).status,
        400
    );
    assert_eq!(get(&server.url("/sparql?update=CLEAR%20ALL")).status, 405);
}

#[test]
fn sparql_answers_come_in_the_format_asked_for() {
    let (server, docs) = served_corpus(&[]);
    let select = server.url(&format!("/sparql?{}", form(COUNT_TURNS)));
    for (accept, media, check) in [
        (
            "application/sparql-results+xml",
            "application/sparql-results+xml",
            "<sparql",
        ),
        ("text/csv", "text/csv", "n\r\n"),
        (
            "text/tab-separated-values",
            "text/tab-separated-values",
            "?n\n",
        ),
        (
            "text/html;q=0.9, application/json",
            "application/json",
            "\"bindings\"",
        ),
    ] {
        let reply = call("GET", &select, &[("Accept", accept)], None);
        assert_eq!(reply.status, 200, "{accept}");
        assert!(
            reply.content_type.starts_with(media),
            "{accept}: {}",
            reply.content_type
        );
        assert!(reply.body.contains(check), "{accept}: {}", reply.body);
    }
    assert_eq!(
        call("GET", &select, &[("Accept", "text/html")], None).status,
        406
    );

    let construct = form(
        "CONSTRUCT { ?t a <http://example.org/Turn> } WHERE { ?t a <https://jido.ai/ontology/conversation-history#ConversationTurn> }",
    );
    for (accept, check) in [
        ("text/turtle", "@prefix"),
        ("application/n-triples", "<http://example.org/Turn> ."),
        ("application/ld+json", "\"@id\""),
    ] {
        let reply = call(
            "GET",
            &server.url(&format!("/sparql?{construct}")),
            &[("Accept", accept)],
            None,
        );
        assert_eq!(reply.status, 200, "{accept}: {}", reply.body);
        assert!(reply.content_type.starts_with(accept));
        assert!(reply.body.contains(check), "{accept}: {}", reply.body);
    }
    let one = docs[0]["SessionID"].as_str().unwrap();
    let graph = format!("https://w3id.org/ihigraph/id/graph/{one}");
    let only_one = get(&server.url(&format!(
        "/sparql?{}&default-graph-uri={}",
        form(COUNT_TURNS),
        form_urlencoded::byte_serialize(graph.as_bytes()).collect::<String>()
    )));
    assert_eq!(
        only_one.json()["results"]["bindings"][0]["n"]["value"],
        docs[0]["Turns"].as_array().unwrap().len().to_string()
    );
}

#[test]
fn updates_need_allow_update_and_the_token() {
    let (server, _) = served_corpus(&[]);
    let update = |server: &Server, headers: &[(&str, &str)]| {
        let mut all = vec![("Content-Type", "application/sparql-update")];
        all.extend_from_slice(headers);
        call("POST", &server.url("/sparql"), &all, Some(b"INSERT DATA { GRAPH <http://example.org/g> { <http://a> <http://b> <http://c> } }"))
    };
    assert_eq!(
        update(&server, &[BEARER]).status,
        403,
        "without --allow-update"
    );
    let (server, _) = served_corpus(&["--allow-update"]);
    assert_eq!(update(&server, &[]).status, 401);
    assert_eq!(
        update(&server, &[("Authorization", "Bearer bad")]).status,
        401
    );
    let ask = form("ASK { GRAPH <http://example.org/g> { ?s ?p ?o } }");
    assert_eq!(
        get(&server.url(&format!("/sparql?{ask}"))).json()["boolean"],
        false
    );
    assert_eq!(update(&server, &[BEARER]).status, 204);
    assert_eq!(
        get(&server.url(&format!("/sparql?{ask}"))).json()["boolean"],
        true
    );
    let as_query = call(
        "POST",
        &server.url("/sparql"),
        &[("Content-Type", "application/sparql-query")],
        Some(b"CLEAR ALL"),
    );
    assert_eq!(as_query.status, 400);
    assert!(as_query.body.contains("update"), "{}", as_query.body);
}

#[test]
fn long_queries_and_long_answers_are_stopped_and_said() {
    let (server, _) = served_corpus(&["--query-timeout", "0.5", "--max-results", "5"]);
    let started = Instant::now();
    let slow = get(&server.url(&format!(
        "/sparql?{}",
        form("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }")
    )));
    assert_eq!(slow.status, 503, "{}", slow.body);
    assert!(
        slow.json()["error"]
            .as_str()
            .unwrap()
            .contains("time limit of 0.5 s"),
        "{}",
        slow.body
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    let long = get(&server.url(&format!("/sparql?{}", form("SELECT ?t WHERE { ?t ?p ?o }"))));
    assert_eq!(long.status, 422, "{}", long.body);
    assert!(
        long.json()["error"]
            .as_str()
            .unwrap()
            .contains("more than 5 rows")
    );
    let short = get(&server.url(&format!(
        "/sparql?{}",
        form("SELECT ?t WHERE { ?t ?p ?o } LIMIT 5")
    )));
    assert_eq!(short.status, 200);
    // The stopped query does not hold up what comes after it.
    assert_eq!(get(&server.url("/healthz")).status, 200);
}

#[test]
fn canned_queries_are_listed_and_run() {
    let (server, docs) = served_corpus(&[]);
    let list = get(&server.url("/queries")).json();
    let recent = list["queries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|query| query["name"] == "recent-turns")
        .unwrap();
    assert_eq!(recent["parameters"][0]["name"], "session");
    assert_eq!(recent["parameters"][0]["required"], true);
    let id = docs[2]["SessionID"].as_str().unwrap();
    let rows = get(&server.url(&format!("/queries/recent-turns?session={id}&n=2"))).json();
    let bindings = rows["results"]["bindings"].as_array().unwrap();
    let last = docs[2]["Turns"].as_array().unwrap().len() - 1;
    assert_eq!(bindings.len(), 2);
    assert_eq!(bindings[0]["turnIndex"]["value"], last.to_string());
    let csv = call(
        "GET",
        &server.url(&format!("/queries/recent-turns?session={id}&n=2")),
        &[("Accept", "text/csv")],
        None,
    );
    assert!(csv.content_type.starts_with("text/csv"));
    assert_eq!(csv.body.lines().count(), 3, "{}", csv.body);
    assert_eq!(
        get(&server.url("/queries/recent-turns")).status,
        400,
        "session is required"
    );
    assert_eq!(
        get(&server.url("/queries/recent-turns?session=a&n=many")).status,
        400
    );
    assert_eq!(get(&server.url("/queries/no-such-query")).status, 404);
}

/// Python's SPARQLWrapper, as a notebook would use it: GET, then POST, JSON and CSV.
#[test]
fn a_standard_sparql_client_library_reads_the_endpoint() {
    let (server, docs) = served_corpus(&[]);
    let script = r#"
import sys
from SPARQLWrapper import SPARQLWrapper, JSON, CSV, POST
endpoint = SPARQLWrapper(sys.argv[1])
endpoint.setQuery(sys.argv[2])
endpoint.setReturnFormat(JSON)
print(endpoint.query().convert()["results"]["bindings"][0]["n"]["value"])
endpoint.setMethod(POST)
endpoint.setReturnFormat(CSV)
print(endpoint.query().convert().decode().splitlines()[1])
"#;
    let output = match Command::new("python3")
        .args(["-c", script, &server.url("/sparql"), COUNT_TURNS])
        .output()
    {
        Ok(output)
            if String::from_utf8_lossy(&output.stderr)
                .contains("No module named 'SPARQLWrapper'") =>
        {
            if std::env::var("IHIGRAPH_SKIP_CLIENTS").is_ok_and(|value| value == "1") {
                eprintln!("skipped: SPARQLWrapper is not installed and IHIGRAPH_SKIP_CLIENTS=1");
                return;
            }
            panic!(
                "SPARQLWrapper is missing: pip install SPARQLWrapper (or .ci/bootstrap), or set IHIGRAPH_SKIP_CLIENTS=1"
            );
        }
        Ok(output) => output,
        Err(error) => panic!("python3 cannot run ({error}); set IHIGRAPH_SKIP_CLIENTS=1 to skip"),
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let turns: usize = docs
        .iter()
        .map(|d| d["Turns"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{turns}\n{turns}\n")
    );
}

fn tool_call(name: &str, arguments: &Value) -> CallToolRequestParams {
    let arguments = arguments.as_object().expect("tool arguments are an object");
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments.clone())
}

/// The same checks over either transport.
async fn check_mcp_tools<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    docs: &[Value],
    writes: bool,
) {
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<String> = tools.iter().map(|tool| tool.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "get_context",
            "list_sessions",
            "recent_turns",
            "remember",
            "search",
            "search_sessions",
            "sparql_query",
            "tool_usage"
        ]
    );
    for tool in &tools {
        assert!(
            tool.description
                .as_ref()
                .is_some_and(|text| text.len() > 40),
            "{}",
            tool.name
        );
        assert_eq!(
            tool.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            tool.name
        );
    }
    let listed = client
        .call_tool(tool_call("list_sessions", &json!({"limit": 2})))
        .await
        .unwrap();
    let listed = listed.structured_content.unwrap();
    assert_eq!(
        (
            listed["total"].as_u64(),
            listed["sessions"].as_array().unwrap().len()
        ),
        (Some(docs.len() as u64), 2)
    );
    let id = docs[1]["SessionID"].as_str().unwrap();
    let recent = client
        .call_tool(tool_call("recent_turns", &json!({"session": id, "n": 3})))
        .await
        .unwrap();
    let turns = recent.structured_content.unwrap()["turns"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(turns.len(), 3);
    assert_eq!(
        turns[0]["turnIndex"],
        docs[1]["Turns"].as_array().unwrap().len() - 1
    );
    let newest = &turns[0];
    let text = newest["answerText"]
        .as_str()
        .or_else(|| newest["promptText"].as_str())
        .and_then(|text| text.split_whitespace().next())
        .unwrap_or_else(|| panic!("the newest turn has a text: {newest}"));
    let found = client
        .call_tool(tool_call("search", &json!({"text": text, "session": id})))
        .await
        .unwrap();
    assert!(found.structured_content.unwrap()["count"].as_u64().unwrap() >= 1);
    check_mcp_search_sessions(client, text, id).await;
    check_mcp_queries(client, docs).await;
    check_mcp_context(client, docs, writes).await;
}

/// `search_sessions`: ranked hits of one session, of the kinds asked; a mistake in the
/// call comes back as a tool error.
async fn check_mcp_search_sessions<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    text: &str,
    id: &str,
) {
    let ranked = client
        .call_tool(tool_call(
            "search_sessions",
            &json!({"query": text, "session": id, "kinds": ["prompt", "answer"], "limit": 5}),
        ))
        .await
        .unwrap();
    let ranked = ranked.structured_content.unwrap();
    let hits = ranked["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 5, "{ranked}");
    assert!(
        hits.iter().all(|hit| hit["session"] == id
            && ["prompt", "answer"].contains(&hit["kind"].as_str().unwrap()))
    );
    let mistaken = client
        .call_tool(tool_call(
            "search_sessions",
            &json!({"query": text, "kinds": ["gossip"]}),
        ))
        .await
        .unwrap();
    assert_eq!(mistaken.is_error, Some(true));
}

async fn check_mcp_context<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    docs: &[Value],
    writes: bool,
) {
    let id = docs[1]["SessionID"].as_str().unwrap();
    let context = client
        .call_tool(tool_call(
            "get_context",
            &json!({"session": id, "budget": 4000, "format": "anthropic"}),
        ))
        .await
        .unwrap();
    assert_eq!(context.is_error, Some(false), "{context:?}");
    let context = context.structured_content.unwrap();
    assert_eq!(context["request"]["messages"][0]["role"], "user");
    assert!(context["tokens"].as_u64().unwrap() <= 4000);
    assert_eq!(context["tokenizer"], "cl100k_base");
    let small = client
        .call_tool(tool_call(
            "get_context",
            &json!({"session": id, "budget": 5}),
        ))
        .await
        .unwrap();
    assert_eq!(small.is_error, Some(true));
    assert!(
        format!("{:?}", small.content).contains("needs"),
        "{small:?}"
    );
    let remembered = client
        .call_tool(tool_call(
            "remember",
            &json!({"session": id, "turn": 0, "kind": "fact", "text": "remembered over MCP"}),
        ))
        .await
        .unwrap();
    if writes {
        assert_eq!(remembered.is_error, Some(false), "{remembered:?}");
        assert_eq!(remembered.structured_content.unwrap()["created"], true);
    } else {
        // Over HTTP without the token: refused, as every write is.
        assert_eq!(remembered.is_error, Some(true), "{remembered:?}");
        assert!(
            format!("{:?}", remembered.content).contains("token"),
            "{remembered:?}"
        );
    }
}

async fn check_mcp_queries<S: rmcp::Service<rmcp::RoleClient>>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, S>,
    docs: &[Value],
) {
    let id = docs[1]["SessionID"].as_str().unwrap();
    let usage = client
        .call_tool(tool_call("tool_usage", &json!({"session": id})))
        .await
        .unwrap();
    assert_eq!(usage.is_error, Some(false));
    let asked = client
        .call_tool(tool_call("sparql_query", &json!({"query": COUNT_TURNS})))
        .await
        .unwrap();
    let turns: usize = docs
        .iter()
        .map(|d| d["Turns"].as_array().unwrap().len())
        .sum();
    assert_eq!(asked.structured_content.unwrap()["rows"][0]["n"], turns);
    let update = client
        .call_tool(tool_call("sparql_query", &json!({"query": "CLEAR ALL"})))
        .await
        .unwrap();
    assert_eq!(update.is_error, Some(true));
    assert!(format!("{:?}", update.content).contains("read-only"));
    // This store does not reason: a query over entailments says what to do.
    let inferred = client
        .call_tool(tool_call(
            "sparql_query",
            &json!({"query": COUNT_TURNS, "inferred": true}),
        ))
        .await
        .unwrap();
    assert_eq!(inferred.is_error, Some(true), "{inferred:?}");
    assert!(
        format!("{:?}", inferred.content).contains("reasoning on"),
        "{inferred:?}"
    );
    let wrong = client
        .call_tool(tool_call("tool_usage", &json!({"since": "yesterday"})))
        .await
        .unwrap();
    assert_eq!(wrong.is_error, Some(true), "{wrong:?}");
    assert!(
        format!("{:?}", wrong.content).contains("dateTime"),
        "{wrong:?}"
    );
    // A call that misses a required argument is a tool error the model reads.
    let missing = client
        .call_tool(tool_call("recent_turns", &json!({})))
        .await
        .unwrap();
    assert_eq!(missing.is_error, Some(true), "{missing:?}");
    assert!(
        format!("{:?}", missing.content).contains("session"),
        "{missing:?}"
    );
}

#[test]
fn full_text_search_over_rest() {
    let (server, docs) = served_corpus(&[]);
    // Written through the server, the index follows: a new session is found, a deleted
    // one no more.
    let mut document = docs[0].clone();
    document["SessionID"] = json!("zeppelin-session");
    document["Turns"][0]["PRCPrompt"] = json!({"messages": [{"role": "user", "content": "Where did the zeppelin land last night?"}]});
    assert_eq!(put(&server, &document).status, 201);
    let found = get(&server.url("/search?q=%22zeppelin+landed%22&kind=prompt&limit=50"));
    assert_eq!(found.status, 200, "{}", found.body);
    let found = found.json();
    let hit = &found["hits"][0];
    assert_eq!(
        (&hit["session"], &hit["turn_index"], &hit["kind"]),
        (&json!("zeppelin-session"), &json!(0), &json!("prompt")),
        "{found}"
    );
    assert!(hit["turn"].as_str().unwrap().ends_with("/turn/0"), "{hit}");
    // ("landed" found "land": the phrase is matched by word forms too.)
    assert_eq!(hit["snippet"], "Where did the zeppelin land last night");
    assert_eq!(hit["highlights"], json!([[14, 22], [23, 27]]));
    assert_eq!(
        get(&server.url("/search?q=zeppelin&kind=answer")).json()["count"],
        0
    );
    let other = docs[1]["SessionID"].as_str().unwrap();
    let narrowed = get(&server.url(&format!("/search?q=zeppelin&session={other}"))).json();
    assert_eq!(narrowed["count"], 0);
    let deleted = call(
        "DELETE",
        &server.url("/sessions/zeppelin-session"),
        &[BEARER],
        None,
    );
    assert_eq!(deleted.status, 204);
    assert_eq!(get(&server.url("/search?q=zeppelin")).json()["count"], 0);
    for query in [
        "",
        "q=",
        "q=x&kind=gossip",
        "q=x&since=yesterday",
        "q=x&role=robot",
        "q=x&limit=5000",
        "q=x&colour=red",
        "q=%22unclosed",
    ] {
        let reply = get(&server.url(&format!("/search?{query}")));
        assert_eq!(reply.status, 400, "{query}: {}", reply.body);
        assert!(reply.json()["error"].as_str().is_some(), "{query}");
    }
}

#[test]
fn context_and_memory_over_rest() {
    let (server, docs) = served_corpus(&[]);
    let id = docs[1]["SessionID"].as_str().unwrap();
    let context = get(&server.url(&format!("/sessions/{id}/context?budget=4000&format=gemini")));
    assert_eq!(context.status, 200, "{}", context.body);
    let context = context.json();
    assert_eq!(context["request"]["contents"][0]["role"], "user");
    assert!(context["tokens"].as_u64().unwrap() <= 4000);
    assert_eq!(context["format"], "gemini");
    for (query, status) in [
        ("budget=3", 422),
        ("budget=4000&format=bogus", 400),
        ("budget=lots", 400),
        ("format=gemini", 400),
        ("budget=4000&system=maybe", 400),
    ] {
        let reply = get(&server.url(&format!("/sessions/{id}/context?{query}")));
        assert_eq!(reply.status, status, "{query}: {}", reply.body);
        assert!(reply.json()["error"].as_str().is_some());
    }
    assert_eq!(
        get(&server.url("/sessions/nope/context?budget=4000")).status,
        404
    );

    let memory = server.url(&format!("/sessions/{id}/memory"));
    let body = br#"{"turn": 0, "kind": "decision", "text": "Use the REST door", "valid_from": "2026-01-01"}"#;
    assert_eq!(call("POST", &memory, &[], Some(body)).status, 401);
    let made = call("POST", &memory, &[BEARER], Some(body));
    assert_eq!(made.status, 201, "{}", made.body);
    let item = made.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(call("POST", &memory, &[BEARER], Some(body)).status, 200);
    for (bad, status) in [
        (&br#"{"turn": 0, "kind": "opinion", "text": "x"}"#[..], 400),
        (br#"{"turn": 999, "kind": "fact", "text": "x"}"#, 404),
        (br#"{"kind": "fact"}"#, 400),
        (
            br#"{"turn": 0, "kind": "fact", "text": "x", "valid_from": "soon"}"#,
            400,
        ),
    ] {
        let reply = call("POST", &memory, &[BEARER], Some(bad));
        assert_eq!(reply.status, status, "{}", reply.body);
    }
    let listed = get(&server.url(&format!("/memory?session={id}"))).json();
    assert_eq!(listed["items"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["items"][0]["text"], "Use the REST door");
    assert_eq!(
        get(&server.url("/memory?kind=fact")).json()["items"],
        json!([])
    );
    assert_eq!(
        get(&server.url("/memory?at=2025-06-01")).json()["items"],
        json!([])
    );
    assert_eq!(get(&server.url("/memory?kind=opinion")).status, 400);
    let forget = server.url(&format!("/memory/{item}"));
    assert_eq!(call("DELETE", &forget, &[], None).status, 401);
    assert_eq!(call("DELETE", &forget, &[BEARER], None).status, 204);
    assert_eq!(call("DELETE", &forget, &[BEARER], None).status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_over_streamable_http() {
    let (server, docs) = tokio::task::spawn_blocking(|| served_corpus(&[]))
        .await
        .unwrap();
    let transport = StreamableHttpClientTransport::from_uri(server.url("/mcp"));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    assert_eq!(
        client
            .peer_info()
            .unwrap()
            .server_info
            .as_ref()
            .map(|info| info.name.as_str()),
        Some("ihigraph")
    );
    check_mcp_tools(&client, &docs, false).await;
    client.cancel().await.unwrap();
    assert!(
        server
            .log()
            .iter()
            .any(|line| line.contains("POST /mcp 200")),
        "{:?}",
        server.log()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let docs = documents(3, 31);
    {
        let server = Server::on(&store, Some(TOKEN), &[]);
        for document in &docs {
            assert_eq!(put(&server, document).status, 201);
        }
    }
    let start = |allow_write: bool| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_ihigraph")).configure(|command| {
            command.arg("--store").arg(&store).arg("mcp");
            if allow_write {
                command.arg("--allow-write");
            }
        })
    };
    let client = ClientConfig::default()
        .serve(TokioChildProcess::new(start(true)).unwrap())
        .await
        .unwrap();
    check_mcp_tools(&client, &docs, true).await;
    client.cancel().await.unwrap();
    // Without --allow-write, remember is refused, and says how to allow it.
    let client = ClientConfig::default()
        .serve(TokioChildProcess::new(start(false)).unwrap())
        .await
        .unwrap();
    let id = docs[0]["SessionID"].as_str().unwrap();
    let refused = client
        .call_tool(tool_call(
            "remember",
            &json!({"session": id, "turn": 0, "kind": "fact", "text": "not without leave"}),
        ))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert!(
        format!("{:?}", refused.content).contains("--allow-write"),
        "{refused:?}"
    );
    client.cancel().await.unwrap();
}

#[test]
fn sigterm_lets_a_write_in_flight_finish_or_roll_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let big = generate(GenerateOptions {
        sessions: 1,
        seed: 41,
        min_turns: 1000,
        max_turns: 1000,
    })
    .next()
    .unwrap();
    let mut server = Server::on(&store, Some(TOKEN), &[]);
    let url = server.url(&format!("/sessions/{}", big["SessionID"].as_str().unwrap()));
    let body = big.to_string();
    let writer = std::thread::spawn(move || {
        let mut request = ureq::http::Request::builder().method("PUT").uri(url);
        request = request.header(BEARER.0, BEARER.1);
        agent()
            .run(request.body(body.as_bytes()).unwrap())
            .map(|reply| reply.status().as_u16())
    });
    std::thread::sleep(Duration::from_millis(300));
    let stopped = Instant::now();
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(15),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "exits within 10 s"
    );
    assert!(status.success(), "{status:?}: {:?}", server.log());
    let answered = writer.join().unwrap();
    let log = server.log().join("\n");
    assert!(log.contains("stopping"), "{log}");
    drop(server);
    // The session is whole or absent, never part of itself.
    let check = Command::new(env!("CARGO_BIN_EXE_ihigraph"))
        .arg("--store")
        .arg(&store)
        .args(["export", "--format", "pgm-ihi"])
        .output()
        .unwrap();
    assert!(check.status.success());
    let stored = String::from_utf8(check.stdout).unwrap();
    match answered {
        Ok(201) => assert_eq!(serde_json::from_str::<Value>(stored.trim()).unwrap(), big),
        _ => assert!(
            stored.trim().is_empty()
                || serde_json::from_str::<Value>(stored.trim()).unwrap() == big
        ),
    }
}

/// Readers never see part of a session while a writer puts sessions.
#[test]
fn readers_see_sessions_whole_while_a_writer_puts() {
    let server = Arc::new(Server::start(&[]));
    let docs = documents(40, 51);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let partial = "PREFIX ch: <https://jido.ai/ontology/conversation-history#> PREFIX ihi: <https://w3id.org/ihigraph/ontology#> \
        SELECT ?s ?count (COUNT(?t) AS ?n) WHERE { GRAPH ?g { ?c ihi:sessionId ?s ; ihi:turnCount ?count . \
        OPTIONAL { ?t ch:partOfConversation ?c } } } GROUP BY ?s ?count HAVING (COUNT(?t) != ?count)";
    let readers: Vec<_> = (0..6)
        .map(|_| {
            let (server, done) = (Arc::clone(&server), Arc::clone(&done));
            let url = server.url(&format!("/sparql?{}", form(partial)));
            std::thread::spawn(move || {
                let (mut reads, mut errors, mut partials) = (0, 0, 0);
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    let reply = get(&url);
                    reads += 1;
                    if reply.status == 200 {
                        partials += reply.json()["results"]["bindings"]
                            .as_array()
                            .unwrap()
                            .len();
                    } else {
                        errors += 1;
                    }
                }
                (reads, errors, partials)
            })
        })
        .collect();
    for document in &docs {
        assert_eq!(put(&server, document).status, 201);
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    for reader in readers {
        let (reads, errors, partials) = reader.join().unwrap();
        assert!(reads > 0);
        assert_eq!((errors, partials), (0, 0));
    }
    assert_eq!(session_count(&server), 40);
}

#[test]
fn the_report_is_served_with_the_commands_options() {
    let (server, docs) = served_corpus(&[]);
    let page = get(&server.url("/report"));
    assert_eq!(page.status, 200);
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );
    assert!(page.body.starts_with("<!DOCTYPE html>"));
    assert!(
        page.body.contains("<dd id=\"total-sessions\">4</dd>"),
        "{}",
        page.body
    );
    let id = docs[1]["SessionID"].as_str().unwrap();
    let one = get(&server.url(&format!("/report?session={id}")));
    assert!(one.body.contains("<dd id=\"total-sessions\">1</dd>"));
    let two = format!(
        "/report?session={id}&session={}",
        docs[2]["SessionID"].as_str().unwrap()
    );
    assert!(
        get(&server.url(&two))
            .body
            .contains("<dd id=\"total-sessions\">2</dd>")
    );
    let later = get(&server.url("/report?since=2100-01-01&until=2101-01-01"));
    assert!(later.body.contains("<dd id=\"total-sessions\">0</dd>"));
    let bad = get(&server.url("/report?since=yesterday"));
    assert_eq!(bad.status, 400);
    assert!(
        bad.json()["error"]
            .as_str()
            .unwrap()
            .contains("since=yesterday"),
        "{}",
        bad.body
    );
    assert_eq!(get(&server.url("/report?session=nobody")).status, 404);
    assert_eq!(get(&server.url("/report?colour=red")).status, 400);
}

/// An OTLP/HTTP export: `body` to `/v1/{signal}` with these headers and the token.
fn export(server: &Server, signal: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut all = vec![BEARER];
    all.extend_from_slice(headers);
    call(
        "POST",
        &server.url(&format!("/v1/{signal}")),
        &all,
        Some(body),
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

const PROTOBUF: (&str, &str) = ("Content-Type", "application/x-protobuf");
const OTLP_JSON: (&str, &str) = ("Content-Type", "application/json");

#[test]
fn otlp_exports_are_taken_as_the_specification_says() {
    let server = Server::start(&[]);
    let recorded = common::fixture_path("import/otel/real-openai-v2-legacy");
    let traces = std::fs::read(recorded.join("001-traces.pb")).unwrap();
    let logs = std::fs::read(recorded.join("002-logs.pb")).unwrap();
    // The bodies the official exporter sent, protobuf: an empty response in kind.
    for (signal, body) in [("traces", &traces), ("logs", &logs), ("traces", &traces)] {
        let reply = export(&server, signal, &[PROTOBUF], body);
        assert_eq!(
            (reply.status, reply.content_type.as_str()),
            (200, "application/x-protobuf"),
            "{}",
            reply.body
        );
        assert_eq!(reply.body, "", "nothing rejected: no partial_success");
    }
    let sessions = get(&server.url("/sessions")).json();
    assert_eq!(
        sessions["total"], 1,
        "one conversation, sent again changes nothing: {sessions}"
    );
    let document = get(&server.url("/sessions/openai-weather-1")).json();
    assert_eq!(document["Turns"].as_array().unwrap().len(), 4);
    assert!(
        document["Turns"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["BKNResponse"].get("captured").is_none()),
        "the log records' content joined the spans"
    );
    // OTLP JSON, gzip.
    let line =
        std::fs::read_to_string(common::fixture_path("import/otel/genai-current.jsonl")).unwrap();
    for request in line.lines() {
        let reply = export(
            &server,
            "traces",
            &[OTLP_JSON, ("Content-Encoding", "gzip")],
            &gzip(request.as_bytes()),
        );
        assert_eq!((reply.status, reply.body.as_str()), (200, "{}"));
    }
    assert_eq!(
        get(&server.url("/sessions/conv-weather-1")).json()["TurnCount"],
        3
    );
}

#[test]
fn otlp_refusals_say_why_in_the_request_encoding() {
    let server = Server::start(&["--max-body", "64KiB"]);
    let refused = |reply: &Reply, status: u16, says: &str| {
        assert_eq!(reply.status, status, "{}", reply.body);
        assert!(reply.body.contains(says), "{says:?} not in {}", reply.body);
    };
    let reply = export(&server, "traces", &[OTLP_JSON], br#"{"resourceSpans": 5}"#);
    refused(&reply, 400, "`/resourceSpans`, expected an array");
    assert_eq!(
        reply.json()["code"],
        3,
        "google.rpc.Status, INVALID_ARGUMENT"
    );
    let reply = export(&server, "traces", &[OTLP_JSON], br#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "11111111111111111111111111111111", "spanId": "nope"}]}]}]}"#);
    refused(&reply, 400, "/resourceSpans/0/scopeSpans/0/spans/0/spanId");
    refused(
        &export(
            &server,
            "traces",
            &[("Content-Type", "text/plain")],
            b"hello",
        ),
        415,
        "application/x-protobuf or application/json",
    );
    let reply = export(&server, "traces", &[PROTOBUF], b"\xff\xff\xff");
    assert_eq!(
        (reply.status, reply.content_type.as_str()),
        (400, "application/x-protobuf")
    );
    refused(
        &export(
            &server,
            "logs",
            &[OTLP_JSON, ("Content-Encoding", "gzip")],
            b"not gzip",
        ),
        400,
        "gzip",
    );
    // A gzip bomb: small on the wire, past the body limit once decompressed.
    let bomb = gzip(&vec![b' '; 1 << 20]);
    assert!(bomb.len() < 64 * 1024);
    refused(
        &export(
            &server,
            "traces",
            &[OTLP_JSON, ("Content-Encoding", "gzip")],
            &bomb,
        ),
        413,
        "larger than",
    );
    // Without the token, nothing is read.
    let reply = call("POST", &server.url("/v1/traces"), &[OTLP_JSON], Some(b"{}"));
    assert_eq!(reply.status, 401);
    assert_eq!(
        get(&server.url("/sessions")).json()["total"],
        0,
        "nothing written"
    );
}

#[test]
fn otlp_spans_may_not_add_to_a_session_made_otherwise() {
    let server = Server::start(&[]);
    let document = documents(1, 3).remove(0);
    assert_eq!(put(&server, &document).status, 201);
    let id = document["SessionID"].as_str().unwrap();
    let span = |trace: &str, conversation: Option<&str>| {
        let mut attributes =
            vec![json!({"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}})];
        if let Some(conversation) = conversation {
            attributes.push(
                json!({"key": "gen_ai.conversation.id", "value": {"stringValue": conversation}}),
            );
        }
        json!({"traceId": trace, "spanId": "aaaaaaaaaaaaaaa1", "name": "chat", "startTimeUnixNano": "1700000000000000000",
               "endTimeUnixNano": "1700000001000000000", "attributes": attributes})
    };
    let body = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        span("11111111111111111111111111111111", Some(id)),
        span("22222222222222222222222222222222", None),
    ]}]}]});
    let reply = export(&server, "traces", &[OTLP_JSON], body.to_string().as_bytes());
    assert_eq!(reply.status, 200);
    let partial = &reply.json()["partialSuccess"];
    assert_eq!(partial["rejectedSpans"], "1", "{partial}");
    assert!(partial["errorMessage"].as_str().unwrap().contains(id));
    assert_eq!(
        get(&server.url("/sessions")).json()["total"],
        2,
        "the other span's trace is a session"
    );
    let stored = get(&server.url(&format!("/sessions/{id}"))).json();
    assert_eq!(
        stored["Turns"], document["Turns"],
        "the session is untouched"
    );
}

/// `--otlp-keep 0`: the receiver keeps nothing of the sessions it wrote, so each export
/// that adds to a session reads it back from the store; the sessions come out as a
/// receiver that keeps them makes them. A size that is not one is a usage error.
#[test]
fn otlp_keep_zero_reads_each_session_back_and_makes_the_same_sessions() {
    let keeping = Server::start(&[]);
    let forgetting = Server::start(&["--otlp-keep", "0"]);
    let recorded = common::fixture_path("import/otel/real-openai-v2-legacy");
    let traces = std::fs::read(recorded.join("001-traces.pb")).unwrap();
    let logs = std::fs::read(recorded.join("002-logs.pb")).unwrap();
    let lines =
        std::fs::read_to_string(common::fixture_path("import/otel/genai-current.jsonl")).unwrap();
    for server in [&keeping, &forgetting] {
        // The log records add the content to the session the spans made.
        for (signal, body) in [("traces", &traces), ("logs", &logs)] {
            assert_eq!(export(server, signal, &[PROTOBUF], body).status, 200);
        }
        // Each request adds a call to the conversation.
        for request in lines.lines() {
            let reply = export(server, "traces", &[OTLP_JSON], request.as_bytes());
            assert_eq!((reply.status, reply.body.as_str()), (200, "{}"));
        }
    }
    for id in ["openai-weather-1", "conv-weather-1"] {
        let kept = get(&keeping.url(&format!("/sessions/{id}"))).json();
        let read_back = get(&forgetting.url(&format!("/sessions/{id}"))).json();
        assert!(!kept["Turns"].as_array().unwrap().is_empty(), "{id}");
        assert_eq!(read_back["Turns"], kept["Turns"], "{id}");
    }
    assert_eq!(
        get(&forgetting.url("/sessions/conv-weather-1")).json()["TurnCount"],
        3
    );
    let dir = tempfile::tempdir().unwrap();
    let refused = common::ihigraph(&dir.path().join("store"))
        .args(["serve", "--otlp-keep", "lots"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("invalid value 'lots' for '--otlp-keep"),
        "{said}"
    );
}
