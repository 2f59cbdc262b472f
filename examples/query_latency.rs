//! Canned-query latency on a store, from the library (no process start-up): runs
//! `recent-turns` and `tool-usage` for up to `--sample` sessions spread over the store,
//! each query read to its last row, five times after a warm-up pass, and prints p50,
//! p99 and max per query. Used by
//! `benches/ingest.sh`.
//!
//! ```text
//! cargo run --release --example query_latency -- STORE_DIR [--sample N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

mod common;

use ihigraph::Arguments;
use ihigraph::CannedQuery;
use ihigraph::HistoryStore;
use ihigraph::query::RECENT_TURNS;
use ihigraph::query::TOOL_USAGE;
use std::error::Error;
use std::time::{Duration, Instant};

/// Timed passes over the sample, after the warm-up pass.
const PASSES: usize = 5;

fn main() -> Result<(), Box<dyn Error>> {
    let (store, chosen) = common::store_with_sample("query_latency")?;
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
        println!(
            "{:<13} p50 {:>8.3} ms  p99 {:>8.3} ms  max {:>8.3} ms  ({rows} rows)",
            query.name,
            millis(common::quantile(&mut times, 0.5)),
            millis(common::quantile(&mut times, 0.99)),
            millis(common::quantile(&mut times, 1.0)),
        );
    }
    Ok(())
}

fn run(store: &HistoryStore, query: &CannedQuery, session: &str) -> Result<usize, Box<dyn Error>> {
    common::count_rows(store, query, &Arguments::new().text("session", session))
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}
