//! What the measuring examples share: their command line (`STORE_DIR [--sample N]`),
//! the sessions they sample, the quantiles they print, and the server the load examples
//! start.
#![allow(dead_code)] // Each example uses the part it needs.

use ihigraph::HistoryStore;
use ihigraph::query::{Arguments, CannedQuery};
use oxigraph::sparql::QueryResults;
use std::error::Error;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

/// `STORE_DIR [--sample N]` from the command line; `N` is 1,000 when not given.
pub fn store_and_sample(program: &str) -> Result<(String, usize), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some(store_dir) = arguments.first() else {
        return Err(format!("usage: {program} STORE_DIR [--sample N]").into());
    };
    let sample = match arguments.iter().position(|a| a == "--sample") {
        Some(at) => arguments.get(at + 1).ok_or("--sample needs N")?.parse()?,
        None => 1_000,
    };
    Ok((store_dir.clone(), sample))
}

/// Up to `sample` of `items`, spread evenly over them.
pub fn spread<T>(items: &[T], sample: usize) -> Vec<&T> {
    let step = (items.len() / sample.max(1)).max(1);
    items.iter().step_by(step).take(sample).collect()
}

/// The `quantile` (0 to 1) of `times`, which it sorts.
pub fn quantile(times: &mut [Duration], quantile: f64) -> Duration {
    times.sort();
    times[((times.len() - 1) as f64 * quantile).round() as usize]
}

/// The store given on the command line, opened, and up to `--sample` of its sessions
/// spread over it (by SessionID order), with the line that says so printed.
#[allow(dead_code)] // store_lookup reads its store with Oxigraph alone.
pub fn store_with_sample(program: &str) -> Result<(HistoryStore, Vec<String>), Box<dyn Error>> {
    let (store_dir, sample) = store_and_sample(program)?;
    let store = HistoryStore::open(store_dir.as_ref(), &Default::default())?;
    let mut sessions = store.sessions()?;
    sessions.sort();
    if sessions.is_empty() {
        return Err("the store holds no session".into());
    }
    let chosen: Vec<String> = spread(&sessions, sample)
        .into_iter()
        .map(|(id, _)| id.clone())
        .collect();
    println!(
        "{} sessions in the store, {} sampled",
        sessions.len(),
        chosen.len()
    );
    Ok((store, chosen))
}

/// Runs a canned query with these arguments and reads it to its last row: how many rows.
#[allow(dead_code)] // Only the query-latency examples run canned queries.
pub fn count_rows(
    store: &HistoryStore,
    query: &CannedQuery,
    arguments: &Arguments,
) -> Result<usize, Box<dyn Error>> {
    let QueryResults::Solutions(solutions) = store.run(query, arguments)? else {
        return Err("canned queries are SELECT queries".into());
    };
    let mut rows = 0;
    for solution in solutions {
        solution?;
        rows += 1;
    }
    Ok(rows)
}

/// Starts `BINARY --store STORE serve --bind 127.0.0.1:0 ARGUMENTS` with the token set,
/// and waits for it to say where it listens: the child and its base URL.
pub fn start_server(
    binary: &str,
    store: &std::path::Path,
    token: &str,
    arguments: &[&str],
) -> Result<(std::process::Child, String), Box<dyn Error>> {
    let mut server = Command::new(binary)
        .arg("--store")
        .arg(store)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .args(arguments)
        .env("IHIGRAPH_TOKEN", token)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start {binary} ({error}): cargo build --release first"))?;
    let stderr = server.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let base = loop {
        let line = lines
            .next()
            .ok_or("the server stopped before it listened")??;
        if let Some(at) = line.find(" at http://") {
            break line[at + 4..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches('/')
                .to_owned();
        }
    };
    // The request log is not needed here: drain it so the server never blocks on it.
    std::thread::spawn(move || lines.for_each(drop));
    Ok((server, base))
}
