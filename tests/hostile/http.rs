//! The HTTP front door under attack: MCP `initialize` floods, huge bodies with and
//! without the token, odd `Host` headers, idle connections, half-sent heads, trickling
//! bodies, and more connections than the cap. Slow clients are raw `TcpStream`s; every
//! probe is on loopback and bounded in count and time. Figures (memory, latency ratios,
//! times to drop) are printed with `eprintln!` for the record, never asserted as times.

use super::common::serving::{BEARER, Server, TOKEN, call, get};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

/// The server's resident memory and its peak, in MiB, from `/proc/PID/status`.
fn memory(server: &Server) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no {name} in {status}"))
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The median time of a few ordinary reads (`GET /sessions`), each checked.
fn ordinary_latency(server: &Server) -> Duration {
    let mut times: Vec<Duration> = (0..7)
        .map(|_| {
            let started = Instant::now();
            let reply = get(&server.url("/sessions"));
            assert_eq!(reply.status, 200, "{}", reply.body);
            assert!(reply.json()["total"].as_u64().is_some());
            started.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// A server with a few sessions stored, and its quiet latency.
fn started(arguments: &[&str]) -> (Server, Duration) {
    let server = Server::start(arguments);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_ihigraph"))
        .args([
            "generate",
            "--sessions",
            "3",
            "--seed",
            "7",
            "--max-turns",
            "8",
        ])
        .output()
        .unwrap();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let id = serde_json::from_str::<serde_json::Value>(line).unwrap()["SessionID"]
            .as_str()
            .unwrap()
            .to_owned();
        let url = server.url(&format!("/sessions/{id}"));
        assert_eq!(
            call("PUT", &url, &[BEARER], Some(line.as_bytes())).status,
            201
        );
    }
    let quiet = ordinary_latency(&server);
    (server, quiet)
}

fn report(family: &str, server: &Server, quiet: Duration, during: Duration) {
    let (rss, hwm) = memory(server);
    eprintln!(
        "[hostile/http] {family}: RSS {rss} MiB, peak {hwm} MiB; GET /sessions {:.1} ms quiet, \
         {:.1} ms under attack (x{:.1})",
        quiet.as_secs_f64() * 1000.0,
        during.as_secs_f64() * 1000.0,
        during.as_secs_f64() / quiet.as_secs_f64().max(1e-6)
    );
}

/// The server's `host:port`, for raw connections.
fn address(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

fn connect(address: &str) -> TcpStream {
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
}

/// Sends a raw request and reads the answer to its end (the request says
/// `Connection: close`): its status and body.
fn raw(address: &str, request: &str) -> (u16, String) {
    let mut stream = connect(address);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    status_of(&answer)
}

fn status_of(answer: &str) -> (u16, String) {
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, body.to_owned())
}

/// Waits until the server closes `stream` (a read gives end of file or a reset), and
/// says how long it took and what the server answered first, if anything.
fn until_closed(stream: &mut TcpStream, started: Instant) -> (Duration, String) {
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => answer.extend_from_slice(&buffer[..read]),
            Err(error) if error.kind() == ErrorKind::ConnectionReset => break,
            Err(error) => panic!("the server did not close the connection: {error}"),
        }
    }
    (
        started.elapsed(),
        String::from_utf8_lossy(&answer).into_owned(),
    )
}

fn initialize_body(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"flood","version":"0"}}}}}}"#
    )
}

/// MCP keeps no session: thousands of `initialize` calls leave nothing behind, and a
/// tool call without any session id is answered.
#[test]
fn mcp_initialize_floods_leave_no_sessions() {
    let (server, quiet) = started(&[]);
    let (before, _) = memory(&server);
    let url = server.url("/mcp");
    let started_at = Instant::now();
    let flood: Vec<_> = (0..4)
        .map(|worker| {
            let url = url.clone();
            thread::spawn(move || {
                let agent = super::common::serving::agent();
                for n in 0..1000 {
                    let request = ureq::http::Request::builder()
                        .method("POST")
                        .uri(&url)
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json, text/event-stream")
                        .body(initialize_body(worker * 1000 + n))
                        .unwrap();
                    let response = agent.run(request).unwrap();
                    assert_eq!(response.status().as_u16(), 200);
                    assert!(
                        response.headers().get("mcp-session-id").is_none(),
                        "a session was made"
                    );
                    response.into_body().read_to_string().unwrap();
                }
            })
        })
        .collect();
    let during = ordinary_latency(&server);
    for worker in flood {
        worker.join().unwrap();
    }
    eprintln!(
        "[hostile/http] 4000 MCP initialize in {:.1} s",
        started_at.elapsed().as_secs_f64()
    );
    let listed = call(
        "POST",
        &url,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        Some(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#),
    );
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(listed.body.contains("list_sessions"), "{}", listed.body);
    report("MCP initialize flood", &server, quiet, during);
    let (after, peak) = memory(&server);
    assert!(
        after < before + 100 && peak < 500,
        "memory grew from {before} to {after} MiB (peak {peak} MiB)"
    );
}

/// Streams a `PUT /sessions/x` of `size` bytes (chunked, or with its length declared).
fn put_huge(
    address: &str,
    authorization: Option<&str>,
    size: usize,
    chunked: bool,
) -> (u16, usize, Duration) {
    let authorization = authorization.map(|value| format!("Authorization: {value}\r\n"));
    send_huge(
        address,
        "PUT /sessions/x",
        authorization.as_deref().unwrap_or(""),
        size,
        chunked,
    )
}

/// Streams a request of `size` bytes after `request` (method and target) and `headers`
/// (each ending in CRLF), stopping at the first sign of an answer; gives the status, how
/// much was sent and how long it took.
fn send_huge(
    address: &str,
    request: &str,
    headers: &str,
    size: usize,
    chunked: bool,
) -> (u16, usize, Duration) {
    let started = Instant::now();
    let mut stream = connect(address);
    let mut head =
        format!("{request} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n{headers}");
    head.push_str(&if chunked {
        "Transfer-Encoding: chunked\r\n\r\n".to_owned()
    } else {
        format!("Content-Length: {size}\r\n\r\n")
    });
    stream.write_all(head.as_bytes()).unwrap();
    stream.set_nonblocking(true).unwrap();
    let block = vec![b'x'; 64 * 1024];
    let mut sent = 0;
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while sent < size {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => {
                answer.extend_from_slice(&buffer[..read]);
                break;
            }
            Err(error) if error.kind() == ErrorKind::WouldBlock => {}
            Err(_) => break,
        }
        let piece = block.len().min(size - sent);
        let written = if chunked {
            let mut chunk = format!("{piece:x}\r\n").into_bytes();
            chunk.extend_from_slice(&block[..piece]);
            chunk.extend_from_slice(b"\r\n");
            write_all_nonblocking(&mut stream, &chunk)
        } else {
            write_all_nonblocking(&mut stream, &block[..piece])
        };
        match written {
            Some(()) => sent += piece,
            None => break,
        }
    }
    if chunked && sent >= size {
        let _ = write_all_nonblocking(&mut stream, b"0\r\n\r\n");
    }
    stream.set_nonblocking(false).unwrap();
    let (_, rest) = until_closed(&mut stream, started);
    answer.extend_from_slice(rest.as_bytes());
    let (status, _) = status_of(&String::from_utf8_lossy(&answer));
    (status, sent, started.elapsed())
}

/// Writes all of `bytes` on a non-blocking socket, waiting while the peer is slow;
/// `None` when the peer has gone.
fn write_all_nonblocking(stream: &mut TcpStream, mut bytes: &[u8]) -> Option<()> {
    while !bytes.is_empty() {
        match stream.write(bytes) {
            Ok(0) => return None,
            Ok(written) => bytes = &bytes[written..],
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(1));
            }
            Err(_) => return None,
        }
    }
    Some(())
}

/// 24 writes of 250 MB without the token (or with a wrong one) get 401 from their head,
/// before their body is read; bodies over the limit with the token get 413; large
/// bodies with the token are read two at a time.
#[test]
fn huge_bodies_are_refused_before_they_are_read() {
    let (server, quiet) = started(&["--max-body", "48MiB"]);
    let address = address(&server);
    let (before, _) = memory(&server);
    let attack: Vec<_> = (0..24)
        .map(|n| {
            let address = address.clone();
            thread::spawn(move || {
                let authorization = (n % 2 == 1).then_some("Bearer not-the-token");
                put_huge(&address, authorization, 250_000_000, n % 3 != 0)
            })
        })
        .collect();
    let during = ordinary_latency(&server);
    for probe in attack {
        let (status, sent, took) = probe.join().unwrap();
        assert_eq!(status, 401);
        assert!(sent < 50_000_000, "{sent} bytes were taken before the 401");
        eprintln!(
            "[hostile/http] 250 MB without the token: 401 after {:.0} ms, {:.1} MB sent",
            took.as_secs_f64() * 1000.0,
            sent as f64 / 1e6
        );
    }
    report("24 x 250 MB without the token", &server, quiet, during);
    let (after, peak) = memory(&server);
    assert!(
        after < before + 64 && peak < 500,
        "memory grew from {before} to {after} MiB (peak {peak} MiB)"
    );
    // With the token: over --max-body is 413, at once when declared.
    let bearer = format!("Bearer {TOKEN}");
    let (status, sent, _) = put_huge(&address, Some(&bearer), 100_000_000, false);
    assert_eq!((status, sent < 50_000_000), (413, true));
    let (status, sent, _) = put_huge(&address, Some(&bearer), 100_000_000, true);
    assert_eq!((status, sent < 90_000_000), (413, true));
    // Eight 24 MB bodies with the token at once (not documents: each is refused 400 once
    // read), read two at a time: the peak stays far under eight held at once (each costs
    // about three times its size while its handler runs).
    let writers: Vec<_> = (0..8)
        .map(|_| {
            let (address, bearer) = (address.clone(), bearer.clone());
            thread::spawn(move || put_huge(&address, Some(&bearer), 24_000_000, false))
        })
        .collect();
    for writer in writers {
        assert_eq!(writer.join().unwrap().0, 400);
    }
    let (_, peak) = memory(&server);
    eprintln!("[hostile/http] 8 x 24 MB with the token: peak {peak} MiB");
    assert!(peak < 400, "peak {peak} MiB");
    assert_eq!(get(&server.url("/healthz")).status, 200);
}

/// Every route checks the `Host`: loopback names on any port pass, a foreign name gets
/// 403 saying which option admits it, a missing one 400; `--allowed-host` widens.
#[test]
fn odd_host_headers_are_refused_on_every_route() {
    let (server, quiet) = started(&[]);
    let address = address(&server);
    let port = address.rsplit_once(':').unwrap().1.to_owned();
    let request = get_with_host;
    let id = get(&server.url("/sessions")).json()["sessions"][0]["session"]
        .as_str()
        .map(str::to_owned);
    let session = format!("/sessions/{}", id.unwrap_or_else(|| "none".to_owned()));
    let targets = [
        "/healthz",
        "/sessions",
        session.as_str(),
        "/sparql?query=ASK%7B%7D",
        "/sparql",
        "/store?default",
        "/queries",
        "/mcp",
        "/no-such-path",
    ];
    let foreign = [
        "evil.example".to_owned(),
        format!("evil.example:{port}"),
        "EVIL.example".to_owned(),
        format!("127.0.0.1.nip.io:{port}"),
        format!("[::2]:{port}"),
        format!("0.0.0.0:{port}"),
        "localhost.evil.example".to_owned(),
    ];
    let started_at = Instant::now();
    let mut probes = 0;
    for target in targets {
        for host in &foreign {
            let (status, body) = raw(&address, &request(target, Some(host)));
            assert_eq!(status, 403, "{target} with Host {host}: {body}");
            assert!(body.contains("--allowed-host"), "{body}");
            probes += 1;
        }
        let (status, body) = raw(&address, &request(target, None));
        assert_eq!(status, 400, "{target} without a Host: {body}");
        // The absolute form names its host in the request line, which wins over Host.
        let absolute = format!("http://evil.example:{port}{target}");
        let (status, _) = raw(&address, &request(&absolute, Some(&address)));
        assert_eq!(status, 403, "{absolute}");
        probes += 2;
    }
    for host in [
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
        "127.0.0.1".to_owned(),
        format!("[::1]:{port}"),
        "[::1]".to_owned(),
    ] {
        let (status, body) = raw(&address, &request("/sessions", Some(&host)));
        assert_eq!(status, 200, "Host {host}: {body}");
    }
    eprintln!(
        "[hostile/http] {probes} foreign-Host probes in {:.0} ms",
        started_at.elapsed().as_secs_f64() * 1000.0
    );
    report(
        "foreign Host probes",
        &server,
        quiet,
        ordinary_latency(&server),
    );
}

fn get_with_host(target: &str, host: Option<&str>) -> String {
    let host = host.map_or(String::new(), |host| format!("Host: {host}\r\n"));
    format!("GET {target} HTTP/1.1\r\n{host}Connection: close\r\n\r\n")
}

/// `--allowed-host` admits a name on any port, or on one port only.
#[test]
fn allowed_hosts_widen_the_names_answered() {
    let server = Server::start(&[
        "--allowed-host",
        "graph.test",
        "--allowed-host",
        "box.test:9",
    ]);
    let address = address(&server);
    for (host, status) in [
        ("graph.test", 200),
        ("GRAPH.test:8443", 200),
        ("box.test:9", 200),
        ("box.test:10", 403),
        ("evil.example", 403),
        ("localhost", 200),
    ] {
        let (answered, body) = raw(&address, &get_with_host("/sessions", Some(host)));
        assert_eq!(answered, status, "{host}: {body}");
    }
}

/// A connection that sends nothing, half a head, a head one byte at a time, or nothing
/// after its answer is closed at the header or idle timeout; reads go on meanwhile.
#[test]
fn idle_connections_and_half_sent_heads_are_closed() {
    let (server, quiet) = started(&["--header-timeout", "1", "--idle-timeout", "2"]);
    let address = address(&server);
    let (before, _) = memory(&server);
    let started_at = Instant::now();
    let mut silent: Vec<TcpStream> = (0..40).map(|_| connect(&address)).collect();
    let mut half: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut stream = connect(&address);
            stream
                .write_all(b"GET /sessions HTTP/1.1\r\nHost: localh")
                .unwrap();
            stream
        })
        .collect();
    let trickler = {
        let address = address.clone();
        thread::spawn(move || {
            let mut stream = connect(&address);
            let started = Instant::now();
            for byte in b"GET /sessions HTTP/1.1\r\nHost: localhost\r\n\r\n" {
                if stream.write_all(&[*byte]).is_err() {
                    break;
                }
                thread::sleep(Duration::from_millis(100));
            }
            until_closed(&mut stream, started)
        })
    };
    let keep_alive = {
        let address = address.clone();
        thread::spawn(move || {
            let mut stream = connect(&address);
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                .unwrap();
            let mut buffer = [0u8; 4096];
            let read = stream.read(&mut buffer).unwrap();
            assert!(String::from_utf8_lossy(&buffer[..read]).starts_with("HTTP/1.1 200"));
            let answered = Instant::now();
            until_closed(&mut stream, answered)
        })
    };
    let during = ordinary_latency(&server);
    let mut slowest = [Duration::ZERO; 2];
    for (kind, streams) in [&mut silent, &mut half].into_iter().enumerate() {
        for stream in streams {
            let (took, answer) = until_closed(stream, started_at);
            assert!(answer.is_empty(), "{answer}");
            slowest[kind] = slowest[kind].max(took);
        }
    }
    let (trickled, answer) = trickler.join().unwrap();
    assert!(
        answer.is_empty(),
        "a head trickled past the timeout was answered: {answer}"
    );
    let (idled, answer) = keep_alive.join().unwrap();
    assert!(answer.is_empty(), "{answer}");
    eprintln!(
        "[hostile/http] dropped after: silent {:.2} s, half a head {:.2} s, a head trickled \
         {:.2} s (header timeout 1 s), idle keep-alive {:.2} s (idle timeout 2 s)",
        slowest[0].as_secs_f64(),
        slowest[1].as_secs_f64(),
        trickled.as_secs_f64(),
        idled.as_secs_f64()
    );
    assert!(trickled < Duration::from_secs(4), "{trickled:?}");
    report("80 idle or half-sent connections", &server, quiet, during);
    let (after, _) = memory(&server);
    assert!(
        after < before + 64,
        "memory grew from {before} to {after} MiB"
    );
}

/// A body that trickles in gets 408 at the body timeout and its connection is closed,
/// with or without the token.
#[test]
fn trickling_bodies_get_408_and_are_dropped() {
    let (server, quiet) = started(&["--body-timeout", "2"]);
    let address = address(&server);
    let heads = [
        format!(
            "POST /sparql HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/sparql-query\r\nContent-Length: 1000\r\n\r\n"
        ),
        format!(
            "PUT /sessions/slow HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n"
        ),
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n"
        ),
    ];
    let tricklers: Vec<_> = (0..12)
        .map(|n| {
            let (address, head) = (address.clone(), heads[n % heads.len()].clone());
            thread::spawn(move || {
                let mut stream = connect(&address);
                let started = Instant::now();
                stream.write_all(head.as_bytes()).unwrap();
                let chunked = head.contains("chunked");
                stream
                    .set_read_timeout(Some(Duration::from_millis(200)))
                    .unwrap();
                let mut answer = Vec::new();
                let mut buffer = [0u8; 1024];
                while started.elapsed() < Duration::from_secs(20) {
                    let piece: &[u8] = if chunked { b"1\r\n{\r\n" } else { b"{" };
                    if stream.write_all(piece).is_err() {
                        break;
                    }
                    match stream.read(&mut buffer) {
                        Ok(0) => break,
                        Ok(read) => answer.extend_from_slice(&buffer[..read]),
                        Err(error)
                            if matches!(
                                error.kind(),
                                ErrorKind::WouldBlock | ErrorKind::TimedOut
                            ) => {}
                        Err(_) => break,
                    }
                }
                stream
                    .set_read_timeout(Some(Duration::from_secs(30)))
                    .unwrap();
                let (took, rest) = until_closed(&mut stream, started);
                answer.extend_from_slice(rest.as_bytes());
                (status_of(&String::from_utf8_lossy(&answer)).0, took)
            })
        })
        .collect();
    let during = ordinary_latency(&server);
    let mut slowest = Duration::ZERO;
    for trickler in tricklers {
        let (status, took) = trickler.join().unwrap();
        assert_eq!(status, 408);
        slowest = slowest.max(took);
    }
    eprintln!(
        "[hostile/http] 12 trickling bodies: 408 and closed within {:.2} s (body timeout 2 s)",
        slowest.as_secs_f64()
    );
    assert!(slowest < Duration::from_secs(10), "{slowest:?}");
    report("12 trickling bodies", &server, quiet, during);
}

/// Five times the cap of connections sending half a head: the newest close the longest
/// waiting, so `/healthz` and ordinary reads are answered all along.
#[test]
fn connections_past_the_cap_leave_health_answering() {
    let (server, quiet) = started(&["--max-connections", "32", "--header-timeout", "30"]);
    let address = address(&server);
    let (before, _) = memory(&server);
    let mut held = Vec::new();
    let mut health = Vec::new();
    for round in 0..8 {
        for _ in 0..20 {
            let mut stream = connect(&address);
            stream
                .write_all(b"GET /sessions HTTP/1.1\r\nHost: loc")
                .unwrap();
            held.push(stream);
        }
        let started = Instant::now();
        let reply = get(&server.url("/healthz"));
        assert_eq!(reply.status, 200, "round {round}: {}", reply.body);
        health.push(started.elapsed());
    }
    let during = ordinary_latency(&server);
    // The oldest were closed to make room, without an answer; the newest are still open.
    let mut closed = 0;
    for stream in &mut held[..100] {
        stream
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buffer = [0u8; 64];
        match stream.read(&mut buffer) {
            Ok(0) => closed += 1,
            Err(error) if error.kind() == ErrorKind::ConnectionReset => closed += 1,
            other => panic!("a held connection got {other:?}"),
        }
    }
    assert_eq!(
        closed, 100,
        "the oldest connections were closed to make room"
    );
    health.sort();
    eprintln!(
        "[hostile/http] 160 half-sent connections past a cap of 32: /healthz median {:.1} ms, \
         slowest {:.1} ms",
        health[health.len() / 2].as_secs_f64() * 1000.0,
        health[health.len() - 1].as_secs_f64() * 1000.0
    );
    report("160 connections past the cap", &server, quiet, during);
    let (after, _) = memory(&server);
    assert!(
        after < before + 64,
        "memory grew from {before} to {after} MiB"
    );
}

/// A client that asks for a long answer and never reads it: the server's writes stall,
/// and the connection is closed at the idle timeout instead of being held for ever.
#[test]
fn answers_left_unread_are_dropped() {
    let (server, _) = started(&["--idle-timeout", "2"]);
    let query = "SELECT * { ?a ?b ?c . ?d ?e ?f } LIMIT 20000";
    let target = format!(
        "/sparql?query={}",
        query
            .replace(' ', "%20")
            .replace('{', "%7B")
            .replace('}', "%7D")
            .replace('?', "%3F")
    );
    // Read whole once: how long the answer is and how long it takes to make.
    let address = address(&server);
    let started_at = Instant::now();
    let (status, whole) = raw(&address, &get_with_host(&target, Some("localhost")));
    let making = started_at.elapsed();
    assert_eq!(status, 200, "{whole}");
    let mut stream = connect(&address);
    let request = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    // Not a byte read until well past the idle timeout after the answer was made: the
    // query's thread ends when its answer is whole (it may take longer than `making` on
    // a loaded machine, at the lowest priority a query gets after 250 ms beside others).
    thread::sleep(making);
    let waiting = Instant::now();
    while server.query_threads() > 0 && waiting.elapsed() < Duration::from_secs(60) {
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_secs(4));
    let (_, answer) = until_closed(&mut stream, Instant::now());
    eprintln!(
        "[hostile/http] an answer of {:.1} MB left unread: closed after {:.1} MB were sent \
         (idle timeout 2 s)",
        whole.len() as f64 / 1e6,
        answer.len() as f64 / 1e6
    );
    assert!(
        answer.len() < whole.len(),
        "the whole answer was sent: nothing stalled"
    );
    assert_eq!(get(&server.url("/healthz")).status, 200);
}

/// Every route that writes answers from the head, whatever the body: 401 without the
/// token, 403 on a read-only server; bodies without the token are cut at the query
/// limit (1 MiB), on the routes that read (SPARQL, MCP) too.
#[test]
fn every_write_route_refuses_before_the_body() {
    let (server, _) = started(&[]);
    let address = address(&server);
    let json = "Content-Type: application/json\r\n";
    let update = "Content-Type: application/sparql-update\r\n";
    let form = "Content-Type: application/x-www-form-urlencoded\r\n";
    let mcp = "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    let writes = [
        ("PUT /sessions/x", json),
        ("POST /sessions/x/turns", json),
        ("POST /sessions/x/memory", json),
        ("DELETE /sessions/x", ""),
        ("DELETE /memory/x", ""),
        ("POST /sparql", update),
        (
            "PUT /store?graph=http%3A%2F%2Fexample.org%2Fg",
            "Content-Type: text/turtle\r\n",
        ),
        ("POST /store", "Content-Type: text/turtle\r\n"),
        ("DELETE /store?graph=http%3A%2F%2Fexample.org%2Fg", ""),
    ];
    for (request, headers) in writes {
        let wrong = format!("{headers}Authorization: Bearer not-{TOKEN}\r\n");
        for (headers, chunked) in [(headers, true), (headers, false), (wrong.as_str(), true)] {
            let (status, sent, took) = send_huge(&address, request, headers, 100_000_000, chunked);
            assert_eq!(status, 401, "{request} {headers}");
            assert!(
                sent < 20_000_000,
                "{request}: {sent} bytes sent before the 401"
            );
            assert!(took < Duration::from_secs(20), "{request}: {took:?}");
        }
    }
    for (request, headers) in [
        ("POST /sparql", form),
        ("POST /mcp", mcp),
        ("POST /nowhere", json),
    ] {
        for chunked in [true, false] {
            let (status, sent, _) = send_huge(&address, request, headers, 100_000_000, chunked);
            let expected = if request == "POST /nowhere" { 401 } else { 413 };
            assert_eq!(status, expected, "{request} chunked: {chunked}");
            assert!(sent < 20_000_000, "{request}: {sent} bytes sent");
        }
    }
    // With the token, a query over the query limit is read: it is the token's to send.
    let big_query = format!("query=ASK%7B%7D{}", "%20".repeat(700_000));
    let bearer = format!("Bearer {TOKEN}");
    let headers = [
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Authorization", bearer.as_str()),
    ];
    let answered = call(
        "POST",
        &server.url("/sparql"),
        &headers,
        Some(big_query.as_bytes()),
    );
    assert_eq!(answered.status, 200, "{}", answered.body);
    // Without it, the same body is refused (from its declared length, before it is read).
    let (status, _, _) = send_huge(&address, "POST /sparql", form, big_query.len(), false);
    assert_eq!(status, 413);
    drop(server);

    let dir = tempfile::tempdir().unwrap();
    let read_only = Server::on(&dir.path().join("store"), None, &[]);
    let address = self::address(&read_only);
    for (request, headers) in writes {
        let (status, sent, _) = send_huge(&address, request, headers, 100_000_000, true);
        assert_eq!(status, 403, "{request} on a read-only server");
        assert!(
            sent < 20_000_000,
            "{request}: {sent} bytes sent before the 403"
        );
    }
}

/// When every place under the cap holds a request in flight (here bodies trickling in),
/// a new connection waits in the listen queue until one ends, at the latest at the body
/// timeout; then `/healthz` is answered.
#[test]
fn a_new_connection_waits_while_every_place_is_busy() {
    let (server, _) = started(&["--max-connections", "8", "--body-timeout", "2"]);
    let address = address(&server);
    let head = "POST /sparql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/sparql-query\r\nContent-Length: 1000\r\n\r\n";
    let busy: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut stream = connect(&address);
            stream.write_all(head.as_bytes()).unwrap();
            stream.write_all(b"ASK").unwrap();
            stream
        })
        .collect();
    // Let the server take all eight before asking for its health.
    thread::sleep(Duration::from_millis(300));
    let started_at = Instant::now();
    let reply = get(&server.url("/healthz"));
    let waited = started_at.elapsed();
    assert_eq!(reply.status, 200, "{}", reply.body);
    for mut stream in busy {
        let (_, answer) = until_closed(&mut stream, Instant::now());
        assert_eq!(status_of(&answer).0, 408);
    }
    eprintln!(
        "[hostile/http] 8 trickling bodies filling a cap of 8: /healthz answered after {:.2} s \
         (body timeout 2 s)",
        waited.as_secs_f64()
    );
}
