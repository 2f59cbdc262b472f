//! Canned-query latency on a store, from the library (no process start-up): runs
//! `recent-turns` and `tool-usage` for up to `--sample` sessions spread over the store,
//! each query read to its last row, five times after a warm-up pass, and prints p50,
//! p99 and max per query. Used by
//! `benches/ingest.sh`.
//!
//! ```text
//! cargo run --release --example query_latency -- STORE_DIR [--sample N]
//! ```

use ihigraph::{Arguments, CannedQuery, HistoryStore, RECENT_TURNS, TOOL_USAGE};
use oxigraph::sparql::QueryResults;
use std::error::Error;
use std::time::{Duration, Instant};

/// Timed passes over the sample, after the warm-up pass.
const PASSES: usize = 5;

fn main() -> Result<(), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let Some(store_dir) = arguments.first() else {
        return Err("usage: query_latency STORE_DIR [--sample N]".into());
    };
    let sample: usize = match arguments.iter().position(|a| a == "--sample") {
        Some(at) => arguments.get(at + 1).ok_or("--sample needs N")?.parse()?,
        None => 1_000,
    };
    let store = HistoryStore::open(store_dir.as_ref(), &Default::default())?;
    let mut sessions = store.sessions()?;
    sessions.sort();
    if sessions.is_empty() {
        return Err("the store holds no session".into());
    }
    let step = (sessions.len() / sample.max(1)).max(1);
    let chosen: Vec<&str> = sessions
        .iter()
        .step_by(step)
        .take(sample)
        .map(|(id, _)| id.as_str())
        .collect();
    println!(
        "{} sessions in the store, {} sampled",
        sessions.len(),
        chosen.len()
    );
    for query in [&RECENT_TURNS, &TOOL_USAGE] {
        // A first pass warms the caches as a running application's would be.
        for session in &chosen {
            run(&store, query, session)?;
        }
        let mut times = Vec::with_capacity(chosen.len() * PASSES);
        let mut rows = 0;
        for _ in 0..PASSES {
            rows = 0;
            for session in &chosen {
                let started = Instant::now();
                rows += run(&store, query, session)?;
                times.push(started.elapsed());
            }
        }
        times.sort();
        let at = |quantile: f64| times[((times.len() - 1) as f64 * quantile).round() as usize];
        println!(
            "{:<13} p50 {:>8.3} ms  p99 {:>8.3} ms  max {:>8.3} ms  ({rows} rows)",
            query.name,
            millis(at(0.5)),
            millis(at(0.99)),
            millis(at(1.0)),
        );
    }
    Ok(())
}

fn run(store: &HistoryStore, query: &CannedQuery, session: &str) -> Result<usize, Box<dyn Error>> {
    let arguments = Arguments::new().text("session", session);
    let QueryResults::Solutions(solutions) = store.run(query, &arguments)? else {
        return Err("canned queries are SELECT queries".into());
    };
    let mut rows = 0;
    for solution in solutions {
        solution?;
        rows += 1;
    }
    Ok(rows)
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}
