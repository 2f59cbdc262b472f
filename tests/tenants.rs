//! One server for many teams: tenants and their tokens made with the CLI, a real server
//! over the store, and every door tried by one tenant against another's data: by graph
//! name, by session id, by memory id, by update, by crafted queries, by header, over REST,
//! SPARQL, search, context, report, OTLP and MCP. Every attempt must be refused or find
//! nothing; an admin token sees every tenant. Then the limits of a tenant (requests per
//! minute, result rows, body size, stored quads) and the register over HTTP.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::serving::{Reply, Server, call};
use common::{history_at, ihigraph};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use std::path::Path;

const ACME_BASE: &str = "https://w3id.org/ihigraph/id/tenant/acme/";
const GLOBEX_BASE: &str = "https://w3id.org/ihigraph/id/tenant/globex/";

/// A session whose first prompt says `word`, so that a search finds it by that word.
fn session(id: &str, word: &str) -> Value {
    let mut document = history_at(id, &["2026-01-05T10:00:00Z", "2026-01-05T10:01:00Z"]);
    document["Turns"][0]["PRCPrompt"] = json!({
        "messages": [{"role": "user", "content": format!("Please look at the {word} invoice")}]
    });
    document
}

fn cli(store: &Path, arguments: &[&str]) -> String {
    let output = ihigraph(store)
        .env_remove("IHIGRAPH_TENANT")
        .args(arguments)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{arguments:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn ingest(store: &Path, tenant: Option<&str>, documents: &[Value]) {
    let lines: String = documents
        .iter()
        .map(|document| format!("{document}\n"))
        .collect();
    let mut command = ihigraph(store);
    command.env_remove("IHIGRAPH_TENANT");
    if let Some(tenant) = tenant {
        command.args(["--tenant", tenant]);
    }
    command
        .args(["ingest", "-"])
        .write_stdin(lines)
        .assert()
        .success();
}

fn issue(store: &Path, tenant: Option<&str>, role: &str) -> String {
    let mut arguments = vec!["token", "issue", "--role", role];
    if let Some(tenant) = tenant {
        arguments.extend(["--tenant", tenant]);
    }
    cli(store, &arguments).trim().to_owned()
}

fn with(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

fn request(server: &Server, method: &str, path: &str, token: &str, body: Option<&[u8]>) -> Reply {
    let (name, value) = with(token);
    call(method, &server.url(path), &[(name, &value)], body)
}

fn sparql(server: &Server, token: &str, query: &str) -> Reply {
    let (name, value) = with(token);
    call(
        "POST",
        &server.url("/sparql"),
        &[
            (name, &value),
            ("Content-Type", "application/sparql-query"),
            ("Accept", "application/sparql-results+json"),
        ],
        Some(query.as_bytes()),
    )
}

fn update(server: &Server, token: &str, text: &str) -> Reply {
    let (name, value) = with(token);
    call(
        "POST",
        &server.url("/sparql"),
        &[
            (name, &value),
            ("Content-Type", "application/sparql-update"),
        ],
        Some(text.as_bytes()),
    )
}

fn bindings(reply: &Reply) -> Vec<Value> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["results"]["bindings"]
        .as_array()
        .unwrap()
        .clone()
}

fn session_ids(server: &Server, token: &str) -> Vec<String> {
    let reply = request(server, "GET", "/sessions", token, None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let mut ids: Vec<String> = reply.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["session"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// Two tenants holding a session of the same id (and one of their own each), the store
/// holding one of its own; tokens for each.
struct World {
    _dir: tempfile::TempDir,
    store: std::path::PathBuf,
    acme_read: String,
    acme_write: String,
    globex_write: String,
    admin: String,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    cli(&store, &["tenant", "add", "acme"]);
    cli(&store, &["tenant", "add", "globex"]);
    ingest(
        &store,
        Some("acme"),
        &[session("shared", "anvil"), session("acme-only", "rocket")],
    );
    ingest(
        &store,
        Some("globex"),
        &[
            session("shared", "zeppelin"),
            session("globex-only", "volcano"),
        ],
    );
    ingest(&store, None, &[session("house", "teapot")]);
    World {
        acme_read: issue(&store, Some("acme"), "read"),
        acme_write: issue(&store, Some("acme"), "write"),
        globex_write: issue(&store, Some("globex"), "write"),
        admin: issue(&store, None, "admin"),
        store,
        _dir: dir,
    }
}

#[test]
fn the_register_is_kept_as_digests_and_checked() {
    let world = world();
    let listed = cli(&world.store, &["tenant", "list"]);
    assert!(
        listed.contains("acme") && listed.contains("globex"),
        "{listed}"
    );
    let tokens = cli(&world.store, &["token", "list"]);
    assert!(tokens.contains("4 tokens"), "{tokens}");
    for secret in [&world.acme_read, &world.admin] {
        let secret_part = secret.splitn(3, '_').nth(2).unwrap();
        assert!(!tokens.contains(secret_part));
        let dump = common::store_dump(&world.store).join("\n");
        assert!(
            !dump.contains(secret_part),
            "a token's secret is in the store"
        );
    }
    // Each tenant's store holds its own sessions, named under its own base.
    let acme = cli(
        &world.store,
        &["--tenant", "acme", "sessions", "--format", "tsv"],
    );
    assert!(acme.contains("acme-only") && !acme.contains("globex-only") && !acme.contains("house"));
    let dump = common::store_dump(&world.store.join("tenants/acme")).join("\n");
    assert!(dump.contains(ACME_BASE) && !dump.contains(GLOBEX_BASE));
    // Bad names, roles and tenants are refused, saying why.
    for (arguments, expected) in [
        (vec!["tenant", "add", "Bad/Name"], "cannot name a tenant"),
        (
            vec!["tenant", "add", "acme"],
            "has a tenant \"acme\" already",
        ),
        (vec!["token", "issue", "--role", "root"], "is not a role"),
        (vec!["token", "revoke", "nope"], "no token \"nope\""),
        (
            vec!["--tenant", "initech", "sessions"],
            "no tenant \"initech\"",
        ),
    ] {
        let output = ihigraph(&world.store)
            .env_remove("IHIGRAPH_TENANT")
            .args(&arguments)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{arguments:?}: {stderr}");
    }
}

#[test]
fn no_tenant_reaches_another_by_any_door() {
    let world = world();
    let server = Server::on(&world.store, None, &["--allow-update"]);
    by_session_id_and_header(&server, &world);
    by_graph_name_queries_and_updates(&server, &world);
    by_memory_search_and_report(&server, &world);
    by_otlp_and_mcp(&server, &world);
}

fn by_session_id_and_header(server: &Server, world: &World) {
    let (acme, globex) = (&world.acme_write, &world.globex_write);
    // Without a token, nothing but health.
    assert_eq!(call("GET", &server.url("/sessions"), &[], None).status, 401);
    assert_eq!(call("GET", &server.url("/healthz"), &[], None).status, 200);
    assert_eq!(
        request(server, "GET", "/sessions", "ihg_forged_secret", None).status,
        401
    );
    // By session id: the same id names each tenant's own session.
    assert_eq!(session_ids(server, acme), ["acme-only", "shared"]);
    assert_eq!(session_ids(server, globex), ["globex-only", "shared"]);
    let shared = request(server, "GET", "/sessions/shared", acme, None);
    assert!(shared.body.contains("anvil") && !shared.body.contains("zeppelin"));
    for path in [
        "/sessions/globex-only",
        "/sessions/globex-only/context?budget=1000&format=openai-chat",
        "/sessions/house",
    ] {
        assert_eq!(
            request(server, "GET", path, acme, None).status,
            404,
            "{path}"
        );
    }
    assert_eq!(
        request(server, "DELETE", "/sessions/globex-only", acme, None).status,
        404
    );
    // By header: a tenant's token acts in its tenant only.
    let (name, value) = with(acme);
    for tenant in ["globex", "Globex!"] {
        let reply = call(
            "GET",
            &server.url("/sessions"),
            &[(name, &value), ("Ihigraph-Tenant", tenant)],
            None,
        );
        assert!(
            matches!(reply.status, 400 | 403),
            "{tenant}: {}",
            reply.status
        );
    }
}

fn by_graph_name_queries_and_updates(server: &Server, world: &World) {
    let (acme, globex, admin) = (&world.acme_write, &world.globex_write, &world.admin);
    // By graph name and crafted queries: FROM, FROM NAMED, GRAPH, and every graph.
    let globex_graph = format!("<{GLOBEX_BASE}graph/shared>");
    let root_graph = "<https://w3id.org/ihigraph/id/graph/house>";
    for query in [
        format!("SELECT * FROM {globex_graph} WHERE {{ ?s ?p ?o }}"),
        format!("SELECT * FROM NAMED {globex_graph} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"),
        format!("SELECT * WHERE {{ GRAPH {globex_graph} {{ ?s ?p ?o }} }}"),
        format!("SELECT * WHERE {{ GRAPH {root_graph} {{ ?s ?p ?o }} }}"),
        "SELECT * WHERE { ?s ?p ?o FILTER(CONTAINS(STR(?o), \"zeppelin\")) }".to_owned(),
        format!(
            "SELECT * WHERE {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(STRSTARTS(STR(?g), \"{GLOBEX_BASE}\")) }}"
        ),
    ] {
        assert!(
            bindings(&sparql(server, acme, &query)).is_empty(),
            "{query}"
        );
    }
    let graphs = bindings(&sparql(
        server,
        acme,
        "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
    ));
    assert!(!graphs.is_empty());
    for graph in &graphs {
        let graph = graph["g"]["value"].as_str().unwrap();
        assert!(
            graph.starts_with(ACME_BASE) || !graph.starts_with("https://w3id.org/ihigraph/id/"),
            "{graph}"
        );
    }
    let service = sparql(
        server,
        acme,
        &format!(
            "SELECT * WHERE {{ SERVICE <{}> {{ ?s ?p ?o }} }}",
            server.url("/sparql")
        ),
    );
    assert!(
        (400..500).contains(&service.status),
        "SERVICE: {}",
        service.status
    );
    // By update: whatever it names, it changes the caller's store only.
    assert_eq!(
        update(server, acme, &format!("DROP SILENT GRAPH {globex_graph}")).status / 100,
        2
    );
    assert_eq!(update(server, acme, "DROP ALL").status / 100, 2);
    assert_eq!(session_ids(server, acme), Vec::<String>::new());
    // A token written into the store by an update admits no one: tokens are not there.
    let forged = "ihg_0badc0ffee00_forgedforgedforgedforgedforgedforgedforge";
    let digest = hex_digest(forged);
    let insert = format!(
        "INSERT DATA {{ <urn:t> a <https://w3id.org/ihigraph/ontology#AccessToken> ; \
         <https://w3id.org/ihigraph/ontology#tokenId> \"0badc0ffee00\" ; \
         <https://w3id.org/ihigraph/ontology#tokenDigest> \"{digest}\" ; \
         <https://w3id.org/ihigraph/ontology#accessRole> \"admin\" }}"
    );
    let admin_token = &world.admin;
    assert_eq!(update(server, admin_token, &insert).status / 100, 2);
    assert_eq!(
        request(server, "GET", "/sessions", forged, None).status,
        401
    );
    assert_eq!(session_ids(server, globex), ["globex-only", "shared"]);
    assert_eq!(session_ids(server, admin), ["house"]);
    // A read token reads and may not write.
    let read = request(
        server,
        "PUT",
        "/sessions/x",
        &world.acme_read,
        Some(session("x", "y").to_string().as_bytes()),
    );
    assert_eq!(read.status, 403, "{}", read.body);
}

fn by_memory_search_and_report(server: &Server, world: &World) {
    let (acme, globex, admin) = (&world.acme_write, &world.globex_write, &world.admin);
    // By memory id: an item of one tenant is not another's to read or forget.
    let remembered = request(
        server,
        "POST",
        "/sessions/globex-only/memory",
        globex,
        Some(
            json!({"turn": 0, "kind": "fact", "text": "the volcano invoice is paid"})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(remembered.status, 201, "{}", remembered.body);
    let item = remembered.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        request(server, "DELETE", &format!("/memory/{item}"), acme, None).status,
        404
    );
    assert!(
        !request(server, "GET", "/memory", acme, None)
            .body
            .contains("volcano")
    );
    assert!(
        request(server, "GET", "/memory", globex, None)
            .body
            .contains("volcano")
    );
    // Search and the report see the caller's tenant only.
    let hits = request(server, "GET", "/search?q=volcano", globex, None);
    assert!(hits.body.contains("globex-only"), "{}", hits.body);
    assert!(
        !request(server, "GET", "/search?q=volcano", acme, None)
            .body
            .contains("globex-only")
    );
    let report = request(server, "GET", "/report", acme, None);
    assert_eq!(report.status, 200);
    assert!(!report.body.contains("globex-only") && !report.body.contains("house"));
    // An admin sees every tenant, naming it.
    let (name, value) = with(admin);
    let in_globex = call(
        "GET",
        &server.url("/sessions"),
        &[(name, &value), ("Ihigraph-Tenant", "globex")],
        None,
    );
    assert!(in_globex.body.contains("globex-only"), "{}", in_globex.body);
}

fn by_otlp_and_mcp(server: &Server, world: &World) {
    let (acme, globex) = (&world.acme_write, &world.globex_write);
    // OTLP: spans a tenant sends land in its store.
    let spans = otlp_spans("otlp-acme");
    let reply = call(
        "POST",
        &server.url("/v1/traces"),
        &[
            (with(acme).0, &with(acme).1),
            ("Content-Type", "application/json"),
        ],
        Some(spans.to_string().as_bytes()),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(session_ids(server, acme).contains(&"otlp-acme".to_owned()));
    assert!(!session_ids(server, globex).contains(&"otlp-acme".to_owned()));
    // MCP: the tools see the caller's tenant only.
    let listed = mcp_sessions(server, globex);
    assert!(
        listed.contains("globex-only")
            && !listed.contains("otlp-acme")
            && !listed.contains("house"),
        "{listed}"
    );
}

/// One chat span of the GenAI conventions in conversation `conversation`, as OTLP JSON.
fn otlp_spans(conversation: &str) -> Value {
    json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "chat gpt-4o",
        "startTimeUnixNano": "1767607200000000000",
        "endTimeUnixNano": "1767607201000000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.conversation.id", "value": {"stringValue": conversation}},
            {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"hello\"}]}]"}},
            {"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"hi\"}]}]"}}
        ]
    }]}]}]})
}

fn mcp_sessions(server: &Server, token: &str) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url("/mcp")).auth_header(token);
        let transport = StreamableHttpClientTransport::from_config(config);
        let client = ClientConfig::default().serve(transport).await.unwrap();
        let result = client
            .call_tool(CallToolRequestParams::new("list_sessions"))
            .await
            .unwrap();
        client.cancel().await.unwrap();
        serde_json::to_string(&result).unwrap()
    })
}

#[test]
fn a_tenant_gets_its_limits_and_is_told_which() {
    let world = world();
    cli(
        &world.store,
        &[
            "tenant",
            "set",
            "acme",
            "--max-requests-per-minute",
            "5",
            "--max-result-rows",
            "3",
            "--max-body-bytes",
            "2000",
        ],
    );
    cli(
        &world.store,
        &[
            "tenant",
            "set",
            "globex",
            "--max-stored-quads",
            "10",
            "--max-query-seconds",
            "0.5",
        ],
    );
    let server = Server::on(&world.store, None, &[]);
    let acme = &world.acme_write;
    // Rows: a query answering more is refused whole, never cut.
    let rows = sparql(&server, acme, "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }");
    assert!((400..500).contains(&rows.status), "{}", rows.status);
    assert!(rows.body.contains("3 rows"), "{}", rows.body);
    // Body: 413, saying the limit.
    let big = session("big", &"word ".repeat(500));
    let reply = request(
        &server,
        "PUT",
        "/sessions/big",
        acme,
        Some(big.to_string().as_bytes()),
    );
    assert_eq!(reply.status, 413, "{}", reply.body);
    assert!(reply.body.contains("2000 bytes"), "{}", reply.body);
    // Rate: the 6th request of the minute (two were made above) gets 429 with when to
    // come back.
    let (name, value) = with(acme);
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..4 {
        let response = common::serving::agent()
            .get(server.url("/sessions"))
            .header(name, &value)
            .call()
            .unwrap();
        statuses.push(response.status().as_u16());
        if let Some(value) = response.headers().get("retry-after") {
            retry_after = Some(value.to_str().unwrap().parse::<u64>().unwrap());
        }
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
    assert!(retry_after.is_some_and(|seconds| (1..=60).contains(&seconds)));
    // Another tenant is not slowed by it; the admin is not counted.
    assert_eq!(
        request(&server, "GET", "/sessions", &world.globex_write, None).status,
        200
    );
    globex_quota_and_query_time(&server, &world);
}

fn globex_quota_and_query_time(server: &Server, world: &World) {
    // Stored quads: globex holds more than 10, so its writes are refused; reads go on.
    let refused = request(
        server,
        "PUT",
        "/sessions/more",
        &world.globex_write,
        Some(session("more", "x").to_string().as_bytes()),
    );
    assert_eq!(refused.status, 413, "{}", refused.body);
    assert!(
        refused.body.contains("max-stored-quads"),
        "{}",
        refused.body
    );
    assert_eq!(
        session_ids(server, &world.globex_write),
        ["globex-only", "shared"]
    );
    // Query time: the tenant's own limit stops its query, and says whose limit it was.
    let long = sparql(
        server,
        &world.globex_write,
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }",
    );
    assert_eq!(long.status, 503, "{}", long.body);
    assert!(
        long.body.contains("0.5 s (the tenant's max-query-seconds)"),
        "{}",
        long.body
    );
}

#[test]
fn the_register_over_http_takes_effect_at_once() {
    let world = world();
    let server = Server::on(&world.store, None, &[]);
    let admin = &world.admin;
    // Only an admin manages it.
    assert_eq!(
        request(&server, "GET", "/admin/tokens", &world.acme_write, None).status,
        403
    );
    let tenant = request(
        &server,
        "POST",
        "/admin/tenants",
        admin,
        Some(br#"{"name": "initech", "limits": {"max-result-rows": 5}}"#),
    );
    assert_eq!(tenant.status, 201, "{}", tenant.body);
    let issued = request(
        &server,
        "POST",
        "/admin/tokens",
        admin,
        Some(br#"{"role": "write", "tenant": "initech", "note": "ci"}"#),
    );
    assert_eq!(issued.status, 201, "{}", issued.body);
    let token = issued.json()["token"].as_str().unwrap().to_owned();
    let id = issued.json()["id"].as_str().unwrap().to_owned();
    let put = request(
        &server,
        "PUT",
        "/sessions/first",
        &token,
        Some(session("first", "stapler").to_string().as_bytes()),
    );
    assert_eq!(put.status, 201, "{}", put.body);
    assert_eq!(session_ids(&server, &token), ["first"]);
    assert!(
        !request(&server, "GET", "/admin/tokens", admin, None)
            .body
            .contains(&token)
    );
    assert_eq!(
        request(
            &server,
            "DELETE",
            &format!("/admin/tokens/{id}"),
            admin,
            None
        )
        .status,
        200
    );
    assert_eq!(
        request(&server, "GET", "/sessions", &token, None).status,
        401
    );
    let globex_id = world.globex_write.split('_').nth(1).unwrap();
    tenant_admin_manages_its_tenant_only(&server, admin, globex_id);
    let bad = request(
        &server,
        "POST",
        "/admin/tenants",
        admin,
        Some(br#"{"name": "../x"}"#),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    let removed = request(&server, "DELETE", "/admin/tenants/initech", admin, None);
    assert_eq!(removed.status, 200, "{}", removed.body);
    assert!(!world.store.join("tenants/initech").exists());
}

/// Python's SPARQLWrapper with a tenant's token, trying the other tenant's graph by name,
/// and OpenTelemetry's own SDK and OTLP exporter configured by the standard variables with
/// a tenant's token: each client stays in its tenant.
#[test]
fn real_clients_stay_in_their_tenant() {
    if common::python::skipped("SPARQLWrapper and the OpenTelemetry exporter with tenants") {
        return;
    }
    let world = world();
    let server = Server::on(&world.store, None, &[]);
    let script = r#"
import sys
from SPARQLWrapper import SPARQLWrapper, JSON
endpoint = SPARQLWrapper(sys.argv[1])
endpoint.addCustomHttpHeader("Authorization", "Bearer " + sys.argv[2])
endpoint.setReturnFormat(JSON)
for graph in sys.argv[3:]:
    endpoint.setQuery("SELECT (COUNT(*) AS ?n) WHERE { GRAPH <%s> { ?s ?p ?o } }" % graph)
    print(endpoint.query().convert()["results"]["bindings"][0]["n"]["value"])
"#;
    let own = format!("{ACME_BASE}graph/shared");
    let other = format!("{GLOBEX_BASE}graph/shared");
    let output = common::python::run(
        std::process::Command::new("python3").args([
            "-c",
            script,
            &server.url("/sparql"),
            &world.acme_read,
            &own,
            &other,
        ]),
        "SPARQLWrapper (pip install SPARQLWrapper, or .ci/bootstrap)",
    );
    let counts: Vec<usize> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert!(counts[0] > 0, "{counts:?}");
    assert_eq!(counts[1], 0, "the other tenant's graph is not reached");

    let venv = common::python::venv("otel-venv", "tests/otel/requirements.txt");
    let exporter = r#"
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter()))
with provider.get_tracer("tenant-test").start_as_current_span("chat gpt-4o") as span:
    span.set_attribute("gen_ai.operation.name", "chat")
    span.set_attribute("gen_ai.conversation.id", "exported-by-sdk")
    span.set_attribute("gen_ai.request.model", "gpt-4o")
provider.shutdown()
"#;
    common::python::run(
        std::process::Command::new(venv.join("bin/python"))
            .args(["-c", exporter])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &server.base)
            .env(
                "OTEL_EXPORTER_OTLP_HEADERS",
                format!("Authorization=Bearer%20{}", world.globex_write),
            ),
        "the OpenTelemetry OTLP exporter",
    );
    assert!(session_ids(&server, &world.globex_write).contains(&"exported-by-sdk".to_owned()));
    assert!(!session_ids(&server, &world.acme_write).contains(&"exported-by-sdk".to_owned()));
}

/// A tenant's admin token issues and revokes its tenant's tokens, and nothing else.
fn tenant_admin_manages_its_tenant_only(server: &Server, admin: &str, other_id: &str) {
    let issued = request(
        server,
        "POST",
        "/admin/tokens",
        admin,
        Some(br#"{"role": "admin", "tenant": "acme"}"#),
    );
    assert_eq!(issued.status, 201, "{}", issued.body);
    let acme_admin = issued.json()["token"].as_str().unwrap().to_owned();
    assert_eq!(
        request(server, "GET", "/admin/tenants", &acme_admin, None).status,
        403
    );
    let own = request(
        server,
        "POST",
        "/admin/tokens",
        &acme_admin,
        Some(br#"{"role": "read"}"#),
    );
    assert_eq!(own.status, 201, "{}", own.body);
    assert_eq!(own.json()["tenant"], "acme");
    let read = own.json()["token"].as_str().unwrap().to_owned();
    assert_eq!(request(server, "GET", "/sessions", &read, None).status, 200);
    // The register takes no parameters: a dry run asked for is refused, not carried out.
    let own_id = own.json()["id"].as_str().unwrap().to_owned();
    let dry = request(
        server,
        "DELETE",
        &format!("/admin/tokens/{own_id}?dry-run=true"),
        &acme_admin,
        None,
    );
    assert_eq!(dry.status, 400, "{}", dry.body);
    assert_eq!(request(server, "GET", "/sessions", &read, None).status, 200);
    let other = request(
        server,
        "POST",
        "/admin/tokens",
        &acme_admin,
        Some(br#"{"role": "read", "tenant": "globex"}"#),
    );
    assert_eq!(other.status, 403, "{}", other.body);
    let revoke = request(
        server,
        "DELETE",
        &format!("/admin/tokens/{other_id}"),
        &acme_admin,
        None,
    );
    assert_eq!(revoke.status, 404, "{}", revoke.body);
    let listed = request(server, "GET", "/admin/tokens", &acme_admin, None).json();
    for token in listed["tokens"].as_array().unwrap() {
        assert_eq!(token["tenant"], "acme", "{listed}");
    }
    let (name, value) = with(&acme_admin);
    let elsewhere = call(
        "GET",
        &server.url("/sessions"),
        &[(name, &value), ("Ihigraph-Tenant", "globex")],
        None,
    );
    assert_eq!(elsewhere.status, 403);
}

/// Retention per store and per tenant: a tenant's own period, else the store's; `prune`
/// goes through the store's own sessions and every tenant's, `--tenant` through one, and
/// the server's schedule through them all.
#[test]
fn each_tenant_is_pruned_by_its_period_or_the_stores() {
    let world = world();
    let store = &world.store;
    cli(store, &["retention", "set", "30d"]);
    cli(store, &["--tenant", "acme", "retention", "set", "3000d"]);
    let dry = cli(store, &["prune", "--dry-run"]);
    assert!(
        dry.contains("tenant globex:") && dry.contains("tenant acme:"),
        "{dry}"
    );
    let only_acme = cli(store, &["--tenant", "acme", "prune", "--format", "json"]);
    assert!(
        only_acme.contains("\"tenant\": \"acme\"") && !only_acme.contains("globex"),
        "{only_acme}"
    );
    let server = Server::on(store, None, &["--prune-every", "1s"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !server.log().join("\n").contains("prune: tenant globex:") {
        assert!(std::time::Instant::now() < deadline, "{:?}", server.log());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The store's own sessions and globex's are past the store's 30 days; acme keeps its
    // own, within its 3,000.
    assert_eq!(session_ids(&server, &world.admin), Vec::<String>::new());
    assert_eq!(
        session_ids(&server, &world.globex_write),
        Vec::<String>::new()
    );
    assert_eq!(
        session_ids(&server, &world.acme_write),
        ["acme-only", "shared"]
    );
}

/// The SHA-256 of a text in lower-case hex, as the register keeps a token's.
fn hex_digest(text: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}
