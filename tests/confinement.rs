//! No input makes ihigraph reach the network or touch files it was not given: IRIs,
//! JSON-LD contexts and `owl:imports` in documents are data, never fetched; SPARQL
//! `SERVICE` and `LOAD` are refused; and (where strace is installed) an ingest opens
//! for writing nothing outside its store.
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where skips and findings are reported.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{fixture, ihigraph, store_dump};
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::Path;

/// A document that names a local listener (and local files) everywhere a URL can sit.
fn baited_document(port: u16) -> Value {
    let url = |path: &str| format!("http://127.0.0.1:{port}/{path}");
    let mut document = fixture("valid/complete.json");
    document["SessionID"] = json!(url("session"));
    document["MInstanceID"] = json!("file:///etc/shadow");
    document["Turns"][0]["PRCPrompt"] = json!({
        "@context": url("context.jsonld"),
        "@id": url("prompt"),
        "@type": "owl:Ontology",
        "owl:imports": {"@id": url("ontology.ttl")},
        "$ref": "file:///etc/passwd",
        "messages": [{"role": "user", "content": format!("see {}", url("page"))}],
    });
    document["Turns"][0]["BKNResponse"]["@context"] = json!([url("ctx2"), {"@vocab": url("v#")}]);
    document
}

/// Asserts that nobody connected to the listener.
fn assert_untouched(listener: &TcpListener) {
    listener.set_nonblocking(true).unwrap();
    match listener.accept() {
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
        Err(error) => panic!("{error}"),
        Ok((_, peer)) => panic!("ihigraph connected to the listener from {peer}"),
    }
}

#[test]
fn urls_in_documents_and_queries_are_never_fetched() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("baited.json");
    std::fs::write(&input, baited_document(port).to_string()).unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(&input)
        .assert()
        .success();
    let session = format!("http://127.0.0.1:{port}/session");
    for format in ["trig", "jsonld", "turtle", "nquads", "pgm-ihi"] {
        ihigraph(&store)
            .args(["export", "--session", &session, "--format", format])
            .assert()
            .success();
    }
    ihigraph(&store)
        .args(["query", "transcript", "--param"])
        .arg(format!("session={session}"))
        .assert()
        .success();
    let before = store_dump(&store);
    let service =
        format!("SELECT * WHERE {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}");
    ihigraph(&store)
        .args(["sparql", &service])
        .assert()
        .failure();
    for update in [
        format!("LOAD <http://127.0.0.1:{port}/data.ttl>"),
        "LOAD <file:///etc/hostname>".to_owned(),
        format!("LOAD <file://{}>", input.display()),
    ] {
        ihigraph(&store)
            .args(["sparql", "--update", &update])
            .assert()
            .failure();
    }
    assert_eq!(store_dump(&store), before);
    assert_untouched(&listener);
}

/// The paths a traced command opened for writing or created, and whether it connected
/// anywhere, from an strace log.
fn traced_writes(log: &str) -> (Vec<String>, Vec<String>) {
    let mut written = Vec::new();
    let mut connections = Vec::new();
    for line in log.lines() {
        if line.contains("connect(") {
            connections.push(line.to_owned());
        }
        let writes = line.contains("O_WRONLY")
            || line.contains("O_RDWR")
            || line.contains("O_CREAT")
            || line.contains("mkdir(")
            || line.contains("rename(")
            || line.contains("unlink(");
        if writes
            && !line.contains("= -1")
            && let Some(start) = line.find('"')
        {
            let rest = &line[start + 1..];
            if let Some(end) = rest.find('"') {
                written.push(rest[..end].to_owned());
            }
        }
    }
    (written, connections)
}

#[test]
fn an_ingest_writes_inside_its_store_only_and_connects_nowhere() {
    if std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("skipped: strace is not installed (.ci/bootstrap installs it)");
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("baited.json");
    std::fs::write(&input, baited_document(port).to_string()).unwrap();
    let store = dir.path().join("store");
    let log = dir.path().join("strace.log");
    let status = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,connect", "-o"])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("ihigraph"))
        .arg("--store")
        .arg(&store)
        .arg("ingest")
        .arg(&input)
        .env_remove("IHIGRAPH_STORE")
        .status()
        .unwrap();
    assert!(status.success());
    let (written, connections) = traced_writes(&std::fs::read_to_string(&log).unwrap());
    assert!(connections.is_empty(), "{connections:#?}");
    assert!(
        !written.is_empty(),
        "the trace should show the store's files"
    );
    let outside: Vec<&String> = written
        .iter()
        .filter(|path| {
            !is_inside(path, &store)
                && !path.starts_with("/dev/")
                && !path.starts_with("/proc/")
                && !path.starts_with("/sys/")
        })
        .collect();
    assert!(
        outside.is_empty(),
        "written outside the store: {outside:#?}"
    );
    assert_untouched(&listener);
}

fn is_inside(path: &str, directory: &Path) -> bool {
    // RocksDB names its files by absolute paths under the store directory.
    Path::new(path).starts_with(directory)
}
