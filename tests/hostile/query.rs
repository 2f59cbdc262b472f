//! Queries that would take the server down: nesting deeper than a stack holds, work that
//! goes on past the time limit, expressions and sorts that grow memory, and more queries
//! at once than the server runs.

use super::common::serving::{BEARER, Server, call, get};
use ihigraph::generate::{GenerateOptions, generate};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// A server holding three generated sessions (a few hundred quads: a cross product of
/// four patterns over them is 10^10 rows), with these extra arguments.
fn server_with_data(arguments: &[&str]) -> Server {
    let server = Server::start(arguments);
    for document in generate(GenerateOptions {
        sessions: 3,
        seed: 5,
        min_turns: 4,
        max_turns: 8,
    }) {
        let id = document["SessionID"].as_str().unwrap().to_owned();
        let reply = call(
            "PUT",
            &server.url(&format!("/sessions/{id}")),
            &[BEARER, ("Content-Type", "application/json")],
            Some(document.to_string().as_bytes()),
        );
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    server
}

fn encoded(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A query by the protocol's GET, or by POST when it is too long for a URL.
fn sparql_get(server: &Server, query: &str) -> super::common::serving::Reply {
    if query.len() < 4_000 {
        get(&server.url(&format!("/sparql?query={}", encoded(query))))
    } else {
        call(
            "POST",
            &server.url("/sparql"),
            &[("Content-Type", "application/sparql-query")],
            Some(query.as_bytes()),
        )
    }
}

/// A query over no data that nests `depth` levels in each way the grammar nests.
fn deep_queries(depth: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "parentheses",
            format!(
                "SELECT ({}1{} AS ?x) {{}}",
                "(".repeat(depth),
                ")".repeat(depth)
            ),
        ),
        (
            "groups",
            format!("SELECT * {}{}", "{".repeat(depth), "}".repeat(depth)),
        ),
        (
            "a chain of +",
            format!("SELECT ({} AS ?x) {{}}", vec!["1"; depth].join("+")),
        ),
        (
            "a chain of UNION",
            format!(
                "SELECT * {{ {} }}",
                vec!["{ BIND(1 AS ?x) }"; depth].join(" UNION ")
            ),
        ),
        (
            "a path",
            format!(
                "SELECT * {{ ?s {} ?o }}",
                vec!["<http://e/p>"; depth].join("/")
            ),
        ),
        (
            "a chain of &&",
            format!("ASK {{ FILTER({}) }}", vec!["true"; depth].join(" && ")),
        ),
    ]
}

/// The server's resident memory now and at its peak, in MiB.
fn memory_mib(server: &Server) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse::<u64>().ok())
            .unwrap()
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The niceness of each of the server's threads that run a client's query.
fn query_niceness(server: &Server) -> Vec<i64> {
    server
        .query_thread_stats()
        .iter()
        .map(|stat| {
            // After the name in brackets: state, then the 17th field is the niceness.
            let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
            fields[16].parse().unwrap()
        })
        .collect()
}

/// Waits until no query runs, and says how long that took.
fn queries_stop(server: &Server, within: Duration) -> Duration {
    let started = Instant::now();
    while server.query_threads() > 0 {
        assert!(
            started.elapsed() < within,
            "a stopped query still runs after {within:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    started.elapsed()
}

fn alive(server: &Server) {
    let health = get(&server.url("/healthz"));
    assert_eq!(health.status, 200, "the server is down: {:?}", server.log());
}

#[test]
fn nesting_deeper_than_a_stack_is_refused_before_parsing() {
    let server = Server::start(&["--allow-update"]);
    for (what, query) in deep_queries(5_000) {
        let reply = sparql_get(&server, &query);
        assert_eq!(reply.status, 400, "{what}: {}", reply.body);
        assert!(
            reply.body.contains("nests deeper than 128 levels"),
            "{what}: {}",
            reply.body
        );
        alive(&server);
    }
    // Each way of nesting, just within the limit, parses and runs.
    for (what, query) in deep_queries(60) {
        let reply = sparql_get(&server, &query);
        assert_eq!(reply.status, 200, "{what}: {}", reply.body);
    }
    // An update, by the protocol's POST, with the token.
    let update = format!(
        "INSERT {{ <http://e/s> <http://e/p> ?x }} WHERE {{ BIND({}1{} AS ?x) }}",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    let reply = call(
        "POST",
        &server.url("/sparql"),
        &[BEARER, ("Content-Type", "application/sparql-update")],
        Some(update.as_bytes()),
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    alive(&server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nesting_through_mcp_is_refused_over_http_and_stdio() {
    let deep = &deep_queries(5_000)[0].1;
    let server = Server::start(&[]);
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url("/mcp"));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let answer = client
        .call_tool(
            CallToolRequestParams::new("sparql_query")
                .with_arguments(json!({ "query": deep }).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(true));
    assert!(format!("{answer:?}").contains("nests deeper"), "{answer:?}");
    client.cancel().await.unwrap();
    alive(&server);

    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let command =
        tokio::process::Command::new(env!("CARGO_BIN_EXE_ihigraph")).configure(|command| {
            command.arg("--store").arg(&store).arg("mcp");
        });
    let client = ClientConfig::default()
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    // 900 levels (a 1.8 KB query) aborted `ihigraph mcp` before the limit.
    for depth in [900, 5_000] {
        let query = format!(
            "SELECT ({}1{} AS ?x) {{}}",
            "(".repeat(depth),
            ")".repeat(depth)
        );
        let answer = client
            .call_tool(
                CallToolRequestParams::new("sparql_query")
                    .with_arguments(json!({ "query": query }).as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        assert_eq!(answer.is_error, Some(true), "{depth}");
    }
    // Still there: an ordinary query answers.
    let answer = client
        .call_tool(
            CallToolRequestParams::new("sparql_query")
                .with_arguments(json!({ "query": "ASK {}" }).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
    client.cancel().await.unwrap();
}

/// Four patterns over a few hundred quads: 10^10 rows, never touching the store again
/// once its sides are read (Oxigraph checked its cancel signal only in the scans).
const CROSS_PRODUCT: &str = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";

#[test]
fn a_query_past_its_time_limit_stops_working() {
    let server = server_with_data(&["--query-timeout", "2"]);
    for query in [
        CROSS_PRODUCT.to_owned(),
        "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i".to_owned(),
        "SELECT (GROUP_CONCAT(STR(?c)) AS ?all) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } GROUP BY ?a"
            .to_owned(),
        "SELECT DISTINCT ?c ?f ?i { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }".to_owned(),
    ] {
        let started = Instant::now();
        let reply = sparql_get(&server, &query);
        let answered = started.elapsed();
        assert_eq!(reply.status, 503, "{query}: {}", reply.body);
        assert!(reply.body.contains("time limit"), "{}", reply.body);
        let stopped = queries_stop(&server, Duration::from_secs(10));
        eprintln!(
            "{query}\n  answered 503 after {answered:.2?}; its work stopped {stopped:.2?} later"
        );
    }
    alive(&server);
}

#[test]
fn expressions_and_sorts_cannot_take_the_memory() {
    let server = server_with_data(&["--query-timeout", "20", "--query-memory", "256MiB"]);
    let (_, before) = memory_mib(&server);
    // A 1 KB literal doubled 24 times would be 16 GB: each string an expression builds is
    // bounded (16 MiB), so past that the value is an error, unbound.
    let binds: String = (0..24)
        .map(|step| format!("BIND(CONCAT(?v{step}, ?v{step}) AS ?v{})", step + 1))
        .collect();
    let bomb = format!(
        "SELECT (STRLEN(?v24) AS ?n) (STRLEN(?v14) AS ?m) {{ BIND(\"{}\" AS ?v0) {binds} }}",
        "x".repeat(1024)
    );
    let reply = sparql_get(&server, &bomb);
    assert_eq!(reply.status, 200, "{}", reply.body);
    let row = &reply.json()["results"]["bindings"][0];
    assert!(row.get("n").is_none(), "past the bound, unbound: {row}");
    assert_eq!(row["m"]["value"], json!((1024 << 14).to_string()));
    // The same through REPLACE, whose one replacement may ask for gigabytes.
    let replace = format!(
        "SELECT (STRLEN(REPLACE(\"{}\", \"x+\", \"{}\")) AS ?n) {{}}",
        "x".repeat(64 * 1024),
        "$0".repeat(5_000)
    );
    let reply = sparql_get(&server, &replace);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.json()["results"]["bindings"][0].get("n").is_none());
    // A sort over a cross product holds every row: stopped at the memory limit.
    let sort = "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i";
    let reply = sparql_get(&server, sort);
    assert_eq!(reply.status, 503, "{}", reply.body);
    assert!(reply.body.contains("--query-memory"), "{}", reply.body);
    queries_stop(&server, Duration::from_secs(10));
    let (now, peak) = memory_mib(&server);
    eprintln!("memory: {before} MiB before, peak {peak} MiB, {now} MiB after");
    assert!(
        peak < before + 400,
        "the peak was {peak} MiB, from {before} MiB"
    );
    alive(&server);
}

/// The median of `count` timings of `run`.
fn median(count: usize, mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..count)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[count / 2]
}

#[test]
fn runaway_queries_neither_starve_nor_crowd_out_the_others() {
    let server = server_with_data(&["--query-timeout", "8", "--max-queries", "6"]);
    let ordinary = "SELECT ?s ?o { ?s <http://purl.org/dc/terms/identifier> ?o } LIMIT 5";
    let run_ordinary = || {
        let reply = sparql_get(&server, ordinary);
        assert_eq!(reply.status, 200, "{}", reply.body);
    };
    let quiet = median(21, run_ordinary);
    // Alone, a long query keeps its priority: it does not starve beside the machine's
    // other work.
    let url = server.url(&format!("/sparql?query={}", encoded(CROSS_PRODUCT)));
    let alone = std::thread::spawn(move || get(&url).status);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(query_niceness(&server), [0]);
    let mut attackers = vec![alone];
    for _ in 0..3 {
        let url = server.url(&format!("/sparql?query={}", encoded(CROSS_PRODUCT)));
        attackers.push(std::thread::spawn(move || get(&url).status));
    }
    std::thread::sleep(Duration::from_millis(800));
    // Beside each other, long queries take the lowest priority.
    assert_eq!(
        query_niceness(&server),
        [19; 4],
        "four runaway queries run, lowered"
    );
    let loaded = median(21, run_ordinary);
    // Past the most at once, a query is told to come back rather than queue.
    let mut crowd = Vec::new();
    for _ in 0..4 {
        let url = server.url(&format!("/sparql?query={}", encoded(CROSS_PRODUCT)));
        crowd.push(std::thread::spawn(move || get(&url)));
    }
    let crowd: Vec<_> = crowd.into_iter().map(|t| t.join().unwrap()).collect();
    let busy = crowd
        .iter()
        .filter(|reply| reply.status == 503 && reply.body.contains("--max-queries"))
        .count();
    assert!(
        busy >= 2,
        "{:?}",
        crowd.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    let statuses: Vec<u16> = attackers.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(statuses, [503; 4]);
    queries_stop(&server, Duration::from_secs(10));
    eprintln!(
        "an ordinary query: {quiet:.2?} quiet, {loaded:.2?} beside four runaway queries ({:.1}x)",
        loaded.as_secs_f64() / quiet.as_secs_f64()
    );
    alive(&server);
}

#[test]
fn a_deep_json_body_is_refused_too() {
    let server = Server::start(&[]);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let reply = call(
        "PUT",
        &server.url("/sessions/deep"),
        &[BEARER, ("Content-Type", "application/json")],
        Some(deep.as_bytes()),
    );
    assert_eq!(reply.status, 400, "{}", reply.body);
    let value: Value = reply.json();
    assert!(value.to_string().contains("128"), "{value}");
    alive(&server);
}
