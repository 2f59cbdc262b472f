//! Load on `ihigraph serve`: N readers run canned queries and read whole sessions while
//! a writer PUTs M generated sessions, and an auditor asks the SPARQL endpoint for
//! sessions seen in part. Prints throughput, p50/p99 latency per endpoint, errors, and
//! the partial sessions seen (there must be none).
//!
//! ```text
//! cargo build --release
//! cargo run --release --example serve_load -- --readers 16 --sessions 1000
//! ```
//!
//! The server is `target/release/ihigraph` (or `--binary PATH`), started on a new store
//! in a temporary directory on a free loopback port, and stopped at the end.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use ihigraph::generate::{GenerateOptions, generate};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

const TOKEN: &str = "load-test-token";
const PARTIAL: &str = "PREFIX ch: <https://jido.ai/ontology/conversation-history#> \
    PREFIX ihi: <https://w3id.org/ihigraph/ontology#> \
    SELECT ?s WHERE { GRAPH ?g { ?c ihi:sessionId ?s ; ihi:turnCount ?count . \
    OPTIONAL { ?t ch:partOfConversation ?c } } } GROUP BY ?s ?count HAVING (COUNT(?t) != ?count)";

struct Options {
    readers: usize,
    sessions: usize,
    binary: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        readers: 16,
        sessions: 1000,
        binary: "target/release/ihigraph".to_owned(),
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(flag) = arguments.next() {
        let value = arguments.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag} {value}: a number"))
        };
        match flag.as_str() {
            "--readers" => options.readers = number()?,
            "--sessions" => options.sessions = number()?,
            "--binary" => options.binary.clone_from(&value),
            other => {
                return Err(format!(
                    "unknown flag {other}: --readers N --sessions M --binary PATH"
                ));
            }
        }
    }
    Ok(options)
}

/// Latencies of one endpoint, and its errors.
#[derive(Default)]
struct Samples {
    millis: Vec<f64>,
    errors: usize,
}

type Stats = Arc<Mutex<BTreeMap<&'static str, Samples>>>;

fn record(stats: &Stats, endpoint: &'static str, started: Instant, ok: bool) {
    let mut stats = stats.lock().expect("stats lock");
    let samples = stats.entry(endpoint).or_default();
    samples
        .millis
        .push(started.elapsed().as_secs_f64() * 1000.0);
    if !ok {
        samples.errors += 1;
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    let dir = tempfile::tempdir()?;
    let (mut server, base) =
        common::start_server(&options.binary, &dir.path().join("store"), TOKEN, &[])?;

    let documents: Vec<Value> = generate(GenerateOptions {
        sessions: options.sessions,
        seed: 7,
        ..GenerateOptions::default()
    })
    .collect();
    let turns: BTreeMap<String, usize> = documents
        .iter()
        .map(|d| {
            (
                d["SessionID"].as_str().unwrap_or("").to_owned(),
                d["Turns"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    let total_turns = documents
        .iter()
        .map(|d| d["Turns"].as_array().map_or(0, Vec::len))
        .sum::<usize>();
    let stats: Stats = Arc::default();
    let written: Arc<RwLock<Vec<String>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let partial = Arc::new(AtomicUsize::new(0));

    // A few sessions first, so that readers have something to read from the start.
    for document in documents.iter().take(10) {
        let id = put_session(&base, document, &stats);
        written.write().expect("lock").push(id);
    }

    let readers: Vec<_> = (0..options.readers)
        .map(|reader| {
            let (base, stats, written, done, partial, turns) = (
                base.clone(),
                Arc::clone(&stats),
                Arc::clone(&written),
                Arc::clone(&done),
                Arc::clone(&partial),
                turns.clone(),
            );
            std::thread::spawn(move || {
                read_loop(reader, &base, &stats, &written, &done, &partial, &turns);
            })
        })
        .collect();
    let auditor = audit(
        base.clone(),
        Arc::clone(&stats),
        Arc::clone(&done),
        Arc::clone(&partial),
    );

    let started = Instant::now();
    for document in documents.iter().skip(10) {
        let id = put_session(&base, document, &stats);
        written.write().expect("lock").push(id);
    }
    let writing = started.elapsed();
    done.store(true, Ordering::SeqCst);
    for reader in readers {
        reader.join().map_err(|_| "a reader panicked")?;
    }
    auditor.join().map_err(|_| "the auditor panicked")?;
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();

    report(
        &options,
        &stats,
        writing,
        total_turns,
        partial.load(Ordering::SeqCst),
    );
    Ok(())
}

/// Starts the server on a new store and waits for its address.
/// PUTs one session; a new one must be answered 201.
fn put_session(base: &str, document: &Value, stats: &Stats) -> String {
    let id = document["SessionID"].as_str().unwrap_or("");
    let started = Instant::now();
    let reply = agent()
        .put(format!("{base}/sessions/{id}"))
        .header("Authorization", format!("Bearer {TOKEN}"))
        .send(document.to_string());
    let ok = reply.as_ref().is_ok_and(|reply| reply.status() == 201);
    record(stats, "PUT /sessions/{id}", started, ok);
    id.to_owned()
}

/// Asks the SPARQL endpoint for sessions whose turns are not all there, until `done`.
fn audit(
    base: String,
    stats: Stats,
    done: Arc<AtomicBool>,
    partial: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let url = format!("{base}/sparql");
        while !done.load(Ordering::SeqCst) {
            let started = Instant::now();
            let reply = agent()
                .post(&url)
                .header("Content-Type", "application/sparql-query")
                .send(PARTIAL);
            let found = reply
                .ok()
                .filter(|r| r.status() == 200)
                .and_then(|mut r| r.body_mut().read_to_string().ok())
                .and_then(|text| serde_json::from_str::<Value>(&text).ok());
            let rows = found
                .as_ref()
                .and_then(|v| v["results"]["bindings"].as_array())
                .map(Vec::len);
            record(&stats, "POST /sparql (audit)", started, rows.is_some());
            partial.fetch_add(rows.unwrap_or(0), Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(100));
        }
    })
}

/// One reader: canned queries and whole sessions, round robin over the sessions written.
fn read_loop(
    reader: usize,
    base: &str,
    stats: &Stats,
    written: &RwLock<Vec<String>>,
    done: &AtomicBool,
    partial: &AtomicUsize,
    turns: &BTreeMap<String, usize>,
) {
    let agent = agent();
    let mut round = reader;
    while !done.load(Ordering::SeqCst) {
        let id = {
            let written = written.read().expect("lock");
            written[round % written.len()].clone()
        };
        round += 7;
        let (endpoint, url): (&'static str, String) = match round % 3 {
            0 => (
                "GET /queries/recent-turns",
                format!("{base}/queries/recent-turns?session={id}&n=10"),
            ),
            1 => (
                "GET /queries/tool-usage",
                format!("{base}/queries/tool-usage?session={id}"),
            ),
            _ => ("GET /sessions/{id}", format!("{base}/sessions/{id}")),
        };
        let started = Instant::now();
        let reply = agent.get(&url).call();
        let Ok(mut reply) = reply else {
            record(stats, endpoint, started, false);
            continue;
        };
        let ok = reply.status() == 200;
        let body = reply
            .body_mut()
            .with_config()
            .limit(512 * 1024 * 1024)
            .read_to_string()
            .unwrap_or_default();
        record(stats, endpoint, started, ok);
        if ok && endpoint == "GET /sessions/{id}" {
            let document: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let seen = document["Turns"].as_array().map_or(0, Vec::len);
            if Some(&seen) != turns.get(&id) {
                partial.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
}

fn report(options: &Options, stats: &Stats, writing: Duration, turns: usize, partial: usize) {
    let stats = stats.lock().expect("stats lock");
    println!(
        "{} readers, {} sessions ({turns} turns) PUT in {:.1} s: {:.1} sessions/s",
        options.readers,
        options.sessions,
        writing.as_secs_f64(),
        (options.sessions.saturating_sub(10)) as f64 / writing.as_secs_f64()
    );
    println!("| endpoint | requests | errors | req/s | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (endpoint, samples) in stats.iter() {
        let mut millis = samples.millis.clone();
        millis.sort_by(f64::total_cmp);
        let at = |q: f64| {
            millis
                .get(((millis.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        println!(
            "| {endpoint} | {} | {} | {:.0} | {:.1} | {:.1} |",
            millis.len(),
            samples.errors,
            millis.len() as f64 / writing.as_secs_f64(),
            at(0.5),
            at(0.99)
        );
    }
    println!("partial sessions seen: {partial}");
}
