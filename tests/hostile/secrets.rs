//! Secrets and the order of checks: credentials never in a URL nor in any message (CLI
//! errors, 502 answers, MCP errors, the request log), the password never sent as Basic
//! over plain HTTP without leave, every parameter checked before a write, files written
//! with the umask or the old file's mode, and client-given numbers that never wrap.

use crate::common::servers;
use crate::common::serving::{BEARER, Reply, Server, TOKEN, call, get};
use assert_cmd::Command;
use ihigraph::generate::{GenerateOptions, generate};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const USER: &str = "agents";
const PASSWORD: &str = "S3cret-pw-4711";
/// `agents:S3cret-pw-4711` in Base64, as HTTP Basic sends it.
const BASIC: &str = "YWdlbnRzOlMzY3JldC1wdy00NzEx";

/// The `ihigraph` binary with no store or endpoint from the environment.
fn ihigraph() -> Command {
    let mut command = Command::cargo_bin("ihigraph").unwrap();
    for name in super::common::IHIGRAPH_VARIABLES {
        command.env_remove(name);
    }
    command
}

fn with_password(command: &mut Command) -> &mut Command {
    command
        .env("IHIGRAPH_ENDPOINT_USER", USER)
        .env("IHIGRAPH_ENDPOINT_PASSWORD", PASSWORD)
}

/// Standard error and the exit code of a finished command.
fn finished(command: &mut Command) -> (String, Option<i32>) {
    let output = command.timeout(Duration::from_secs(60)).output().unwrap();
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stdout));
    (text, output.status.code())
}

fn assert_no_secret(text: &str) {
    for secret in [PASSWORD, BASIC, "agents:"] {
        assert!(!text.contains(secret), "{secret:?} shown in: {text}");
    }
}

#[test]
fn credentials_in_any_endpoint_url_are_refused_naming_the_variables() {
    let with_userinfo = format!("http://{USER}:{PASSWORD}@127.0.0.1:9/query");
    let plain = "http://127.0.0.1:9/query";
    let cases: [(&[&str], Option<&str>); 5] = [
        (&["--endpoint", &with_userinfo, "sessions"], None),
        (&["--endpoint", &with_userinfo, "serve"], None),
        (
            &[
                "--endpoint",
                plain,
                "--update-endpoint",
                &with_userinfo,
                "mcp",
            ],
            None,
        ),
        (
            &["--endpoint", plain, "--graph-store", &with_userinfo, "info"],
            None,
        ),
        (&["sessions"], Some(&with_userinfo)),
    ];
    for (arguments, variable) in cases {
        let mut command = ihigraph();
        command.args(arguments).write_stdin("");
        if let Some(url) = variable {
            command.env("IHIGRAPH_ENDPOINT", url);
        }
        let (text, code) = finished(&mut command);
        assert_eq!(code, Some(2), "{arguments:?}: {text}");
        assert!(
            text.contains("IHIGRAPH_ENDPOINT_USER") && text.contains("IHIGRAPH_ENDPOINT_PASSWORD"),
            "{arguments:?}: {text}"
        );
        assert_no_secret(&text);
    }
    // The help shows no value of the endpoint variables.
    let (help, _) = finished(
        ihigraph()
            .arg("--help")
            .env("IHIGRAPH_ENDPOINT", &with_userinfo),
    );
    assert!(help.contains("IHIGRAPH_ENDPOINT"), "{help}");
    assert_no_secret(&help);
}

/// Starts `ihigraph serve` on an endpoint, with the password in the environment.
fn serve_on(endpoint: &str) -> Server {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ihigraph"));
    command
        .args([
            "--endpoint",
            endpoint,
            "--retries",
            "0",
            "--request-timeout",
            "5",
        ])
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env_remove("IHIGRAPH_STORE")
        .env("IHIGRAPH_TOKEN", TOKEN)
        .env("IHIGRAPH_ENDPOINT_USER", USER)
        .env("IHIGRAPH_ENDPOINT_PASSWORD", PASSWORD)
        .stdout(Stdio::null());
    Server::spawn(command)
}

fn tool_call(name: &str, arguments: &Value) -> CallToolRequestParams {
    let arguments = arguments.as_object().unwrap().clone();
    CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_endpoint_shows_no_password_in_502_answers_mcp_errors_or_logs() {
    let Some(mut oxigraph) = tokio::task::spawn_blocking(servers::oxigraph)
        .await
        .unwrap()
    else {
        return;
    };
    let query = oxigraph.query.clone();
    let server = tokio::task::spawn_blocking(move || serve_on(&query))
        .await
        .unwrap();
    let (ok, server) = tokio::task::spawn_blocking(move || (get(&server.url("/sessions")), server))
        .await
        .unwrap();
    assert_eq!(ok.status, 200, "{}", ok.body);
    oxigraph.kill();
    let (answers, server) = tokio::task::spawn_blocking(move || {
        let answers: Vec<Reply> = [
            "/sessions",
            "/sparql?query=ASK%7B%7D",
            "/queries/sessions",
            "/memory",
        ]
        .iter()
        .map(|path| get(&server.url(path)))
        .collect();
        (answers, server)
    })
    .await
    .unwrap();
    for answer in &answers {
        assert_eq!(answer.status, 502, "{}", answer.body);
        assert!(answer.body.contains("cannot reach"), "{}", answer.body);
        assert_no_secret(&answer.body);
    }
    let transport = StreamableHttpClientTransport::from_uri(server.url("/mcp"));
    let client = ClientConfig::default().serve(transport).await.unwrap();
    for (tool, arguments) in [
        ("list_sessions", json!({})),
        ("sparql_query", json!({"query": "ASK {}"})),
    ] {
        let answer = client.call_tool(tool_call(tool, &arguments)).await.unwrap();
        assert_eq!(answer.is_error, Some(true), "{answer:?}");
        let text = format!("{answer:?}");
        assert!(text.contains("cannot reach"), "{text}");
        assert_no_secret(&text);
    }
    client.cancel().await.unwrap();
    let log = server.log().join("\n");
    assert!(log.contains("502"), "{log}");
    assert_no_secret(&log);
    // And the CLI, on the same dead endpoint.
    let mut command = ihigraph();
    with_password(&mut command).args(["--endpoint", &oxigraph.query, "--retries", "0", "sessions"]);
    let (text, code) = finished(&mut command);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("cannot reach"), "{text}");
    assert_no_secret(&text);
}

/// A tiny HTTP server on loopback that answers every request with what `answer` says
/// for its head, and keeps each request's head.
struct FakeServer {
    url: String,
    heads: Arc<Mutex<Vec<String>>>,
}

impl FakeServer {
    fn start(answer: impl Fn(&str) -> String + Send + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/sparql", listener.local_addr().unwrap());
        let heads = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&heads);
        // The thread ends with the test process; each connection is one request.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                if let Some(head) = read_request(&stream) {
                    let reply = answer(&head);
                    kept.lock().unwrap().push(head);
                    let _ = (&stream).write_all(reply.as_bytes());
                }
            }
        });
        Self { url, heads }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    /// Whether any request carried an `Authorization` header of `scheme`.
    fn got_authorization(&self, scheme: &str) -> bool {
        self.heads().iter().any(|head| {
            head.lines().any(|line| {
                let line = line.to_ascii_lowercase();
                line.starts_with("authorization:")
                    && line["authorization:".len()..]
                        .trim_start()
                        .starts_with(&scheme.to_ascii_lowercase())
            })
        })
    }
}

/// A request's head; its body, when it has one, is read and left.
fn read_request(stream: &TcpStream) -> Option<String> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<u64>().ok())?
        })
        .unwrap_or(0);
    std::io::copy(&mut reader.take(length), &mut std::io::sink()).ok()?;
    Some(head)
}

fn challenge(header: &str) -> String {
    format!("HTTP/1.1 401 Unauthorized\r\n{header}Content-Length: 0\r\nConnection: close\r\n\r\n")
}

fn sessions_on(server: &FakeServer, extra: &[&str]) -> (String, Option<i32>) {
    let mut command = ihigraph();
    with_password(&mut command)
        .args(["--endpoint", &server.url, "--retries", "0"])
        .args(extra)
        .arg("sessions");
    finished(&mut command)
}

#[test]
fn basic_over_plain_http_is_refused_unless_allowed() {
    let basic = || FakeServer::start(|_| challenge("WWW-Authenticate: Basic realm=\"x\"\r\n"));
    let refused = basic();
    let (text, code) = sessions_on(&refused, &[]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("Basic") && text.contains("IHIGRAPH_ALLOW_BASIC_OVER_HTTP"),
        "{text}"
    );
    assert_no_secret(&text);
    assert!(!refused.got_authorization("Basic"), "{:?}", refused.heads());
    assert!(!refused.heads().is_empty());
    // Allowed by the option, or by its variable: the password goes, and is refused.
    let allowed = basic();
    let (text, code) = sessions_on(&allowed, &["--allow-basic-over-http"]);
    assert_eq!(code, Some(3), "{text}");
    assert!(allowed.got_authorization("Basic"), "{:?}", allowed.heads());
    assert_no_secret(&text);
    let by_variable = basic();
    let mut command = ihigraph();
    with_password(&mut command)
        .env("IHIGRAPH_ALLOW_BASIC_OVER_HTTP", "1")
        .args(["--endpoint", &by_variable.url, "--retries", "0", "sessions"]);
    let (text, _) = finished(&mut command);
    assert!(by_variable.got_authorization("Basic"), "{text}");
}

#[test]
fn digest_over_plain_http_is_answered_even_beside_a_basic_offer() {
    let digest =
        "WWW-Authenticate: Digest realm=\"x\", nonce=\"4f1d8a\", qop=\"auth\", algorithm=MD5\r\n";
    for header in [
        digest.to_owned(),
        // Two challenges in two headers: the stronger is answered, not refused.
        format!("WWW-Authenticate: Basic realm=\"x\"\r\n{digest}"),
    ] {
        let server = FakeServer::start(move |_| challenge(&header));
        let (text, code) = sessions_on(&server, &[]);
        assert_eq!(code, Some(3), "{text}");
        assert!(text.contains("refused the credentials"), "{text}");
        assert!(server.got_authorization("Digest"), "{:?}", server.heads());
        assert!(!server.got_authorization("Basic"), "{:?}", server.heads());
        assert_no_secret(&text);
    }
}

#[test]
fn a_server_that_echoes_the_credentials_has_them_taken_out_of_its_message() {
    let echo = |head: &str| {
        let authorization = head
            .lines()
            .find(|line| line.to_ascii_lowercase().starts_with("authorization:"))
            .map(str::to_owned);
        match authorization {
            None => challenge("WWW-Authenticate: Basic realm=\"x\"\r\n"),
            Some(line) => {
                let body = format!("no such user; you sent {line} with password {PASSWORD}");
                format!(
                    "HTTP/1.1 500 Oops\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            }
        }
    };
    let server = FakeServer::start(echo);
    let (text, code) = sessions_on(&server, &["--allow-basic-over-http"]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("answered HTTP 500: no such user"), "{text}");
    assert!(text.contains("(hidden)"), "{text}");
    assert!(server.got_authorization("Basic"));
    assert_no_secret(&text);
}

/// A server with three generated sessions; their ids.
fn served_sessions() -> (Server, Vec<String>) {
    let server = Server::start(&[]);
    let mut ids = Vec::new();
    for document in generate(GenerateOptions {
        sessions: 3,
        seed: 33,
        min_turns: 3,
        max_turns: 6,
    }) {
        let id = document["SessionID"].as_str().unwrap().to_owned();
        let body = serde_json::to_vec(&document).unwrap();
        let put = call(
            "PUT",
            &server.url(&format!("/sessions/{id}")),
            &[BEARER, ("Content-Type", "application/json")],
            Some(&body),
        );
        assert_eq!(put.status, 201, "{}", put.body);
        ids.push(id);
    }
    (server, ids)
}

#[test]
fn every_parameter_is_checked_before_a_write() {
    let (server, ids) = served_sessions();
    let id = &ids[0];
    let stored = |id: &str| get(&server.url(&format!("/sessions/{id}"))).status == 200;
    for query in [
        "receipt=yes",
        "reciept=true",
        "receipt=true&receipt=false",
        "dry-run=false&receipt=1",
    ] {
        let url = server.url(&format!("/sessions/{id}?{query}"));
        let answer = call("DELETE", &url, &[BEARER], None);
        assert_eq!(answer.status, 400, "{query}: {}", answer.body);
        assert!(stored(id), "{query} deleted the session");
    }
    let message = call(
        "DELETE",
        &server.url(&format!("/sessions/{id}?receipt=yes")),
        &[BEARER],
        None,
    )
    .json()["error"]
        .clone();
    assert_eq!(message, "receipt=\"yes\": true or false");
    // A new session by PUT or by append, with one bad parameter: nothing is created.
    let document = generate(GenerateOptions {
        sessions: 1,
        seed: 34,
        min_turns: 2,
        max_turns: 2,
    })
    .next()
    .unwrap();
    let new_id = document["SessionID"].as_str().unwrap();
    let body = serde_json::to_vec(&document).unwrap();
    let json_body = [BEARER, ("Content-Type", "application/json")];
    let put = server.url(&format!("/sessions/{new_id}?lenient=maybe"));
    assert_eq!(call("PUT", &put, &json_body, Some(&body)).status, 400);
    let put = server.url(&format!("/sessions/{new_id}?lenient=true&strict=true"));
    assert_eq!(call("PUT", &put, &json_body, Some(&body)).status, 400);
    let turn = serde_json::to_vec(&document["Turns"][0]).unwrap();
    let append = server.url(
        "/sessions/fresh/turns?create=true&m-instance=m&u-environment=u&data-id=d&source-aim=a&lenient=sometimes",
    );
    assert_eq!(call("POST", &append, &json_body, Some(&turn)).status, 400);
    assert!(!stored(new_id) && !stored("fresh"));
    // Memory: an unknown member of the item, or a parameter on a route that takes none.
    let memory = server.url(&format!("/sessions/{id}/memory"));
    let item = json!({"turn": 0, "kind": "fact", "text": "kept", "valid_form": "2026-01-01"});
    let answer = call(
        "POST",
        &memory,
        &json_body,
        Some(item.to_string().as_bytes()),
    );
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert!(answer.body.contains("valid_form"), "{}", answer.body);
    let item = json!({"turn": 0, "kind": "fact", "text": "kept"});
    let with_parameter = format!("{memory}?kind=lesson");
    let answer = call(
        "POST",
        &with_parameter,
        &json_body,
        Some(item.to_string().as_bytes()),
    );
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(get(&server.url("/memory")).json()["items"], json!([]));
    // What is right still works.
    let answer = call(
        "DELETE",
        &server.url(&format!("/sessions/{id}?receipt=true")),
        &[BEARER],
        None,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(!stored(id));
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_remember_refuses_an_unknown_argument_before_writing() {
    let (server, ids) = tokio::task::spawn_blocking(served_sessions).await.unwrap();
    let config =
        StreamableHttpClientTransportConfig::with_uri(server.url("/mcp")).auth_header(TOKEN);
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = ClientConfig::default().serve(transport).await.unwrap();
    let arguments =
        json!({"session": ids[0], "turn": 0, "kind": "fact", "text": "x", "valid_form": "2026"});
    let refused = client.call_tool(tool_call("remember", &arguments)).await;
    let text = format!("{refused:?}");
    assert!(text.contains("valid_form"), "{text}");
    let arguments = json!({"session": ids[0], "turn": 0, "kind": "fact", "text": "x"});
    let kept = client
        .call_tool(tool_call("remember", &arguments))
        .await
        .unwrap();
    assert_ne!(kept.is_error, Some(true), "{kept:?}");
    client.cancel().await.unwrap();
    let items = tokio::task::spawn_blocking(move || get(&server.url("/memory")).json())
        .await
        .unwrap();
    assert_eq!(items["items"].as_array().map(Vec::len), Some(1), "{items}");
}

#[test]
fn client_given_numbers_never_wrap() {
    let (server, ids) = served_sessions();
    let id = &ids[0];
    let bad = |path: &str, parameter: &str| {
        let answer = get(&server.url(path));
        assert_eq!(answer.status, 400, "{path}: {}", answer.body);
        assert!(
            answer.json()["error"].as_str().unwrap().contains(parameter),
            "{path}: {}",
            answer.body
        );
    };
    bad("/sessions?offset=18446744073709551615&limit=1", "offset");
    bad("/sessions?offset=18446744073709551616", "offset");
    bad("/sessions?limit=18446744073709551616", "limit");
    bad("/sessions?offset=-1", "offset");
    bad(
        &format!("/queries/recent-turns?session={id}&n=18446744073709551616"),
        "n",
    );
    bad(
        &format!("/sessions/{id}/context?budget=18446744073709551616"),
        "budget",
    );
    bad(
        &format!("/sessions/{id}/context?budget=100&until=18446744073709551616"),
        "until",
    );
    // The largest numbers that fit are taken as they are.
    let last = get(&server.url("/sessions?offset=18446744073709551614&limit=1")).json();
    assert_eq!(last["sessions"], json!([]));
    assert_eq!(last["next"], Value::Null);
    assert_eq!(last["total"], 3);
    let page = get(&server.url("/sessions?offset=1&limit=1")).json();
    assert_eq!(page["next"], "/sessions?offset=2&limit=1");
    let all = get(&server.url(&format!(
        "/queries/recent-turns?session={id}&n=18446744073709551615"
    )));
    assert_eq!(all.status, 200, "{}", all.body);
    let context = get(&server.url(&format!(
        "/sessions/{id}/context?budget=18446744073709551615&until=18446744073709551615"
    )));
    assert_eq!(context.status, 200, "{}", context.body);
}

/// The mode of a file.
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// `ihigraph ARGUMENTS` under `umask`, in `dir`.
fn under_umask(dir: &Path, umask: &str, arguments: &str) {
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" {arguments}"))
        .arg(env!("CARGO_BIN_EXE_ihigraph"))
        .current_dir(dir)
        .env_remove("IHIGRAPH_STORE")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "ihigraph {arguments} under umask {umask}");
}

#[test]
fn files_are_written_with_the_umask_or_the_old_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    under_umask(here, "022", "--store store demo");
    under_umask(here, "077", "--store store report --out private.html");
    assert_eq!(mode(&here.join("private.html")), 0o600);
    under_umask(here, "022", "--store store report --out shared.html");
    assert_eq!(mode(&here.join("shared.html")), 0o644);
    under_umask(here, "027", "--store store backup copy.nq");
    assert_eq!(mode(&here.join("copy.nq")), 0o640);
    // An existing file keeps its mode, whatever the umask.
    for (existing, umask) in [(0o600, "000"), (0o664, "077")] {
        let report = here.join(format!("kept-{existing:o}.html"));
        std::fs::write(&report, "old").unwrap();
        std::fs::set_permissions(&report, std::fs::Permissions::from_mode(existing)).unwrap();
        under_umask(
            here,
            umask,
            &format!("--store store report --out {}", report.display()),
        );
        assert_eq!(mode(&report), existing);
        assert!(std::fs::read_to_string(&report).unwrap().contains("<html"));
    }
    // convert's output, new and replaced.
    let chat = here.join("chat.json");
    std::fs::write(
        &chat,
        r#"[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]"#,
    )
    .unwrap();
    let convert = format!(
        "convert --from openai-chat --session-id c1 --output converted.json {}",
        chat.display()
    );
    under_umask(here, "077", &convert);
    assert_eq!(mode(&here.join("converted.json")), 0o600);
    std::fs::set_permissions(
        here.join("converted.json"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    under_umask(here, "000", &convert);
    assert_eq!(mode(&here.join("converted.json")), 0o640);
    // Nothing is left beside them.
    let partial = std::fs::read_dir(here)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().contains("partial"))
        .count();
    assert_eq!(partial, 0);
}
