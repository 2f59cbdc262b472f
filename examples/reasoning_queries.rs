//! Canned queries over the sessions as written and over the sessions with what they
//! entail (`--inferred`), from the library (no process start-up), on a store that
//! reasons: each query run over the whole store ROUNDS times in each way, in turn, read
//! to its last row after a warm-up run of each; prints each way's median and their ratio.
//! Used by `benches/reasoning.sh`.
//!
//! ```text
//! cargo run --release --example reasoning_queries -- STORE_DIR [ROUNDS]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

use ihigraph::query::{ROLES, SESSIONS, TOKEN_USAGE, TOOL_STATS, TOOL_USAGE};
use ihigraph::{Arguments, CannedQuery, HistoryStore};
use oxigraph::sparql::QueryResults;
use std::error::Error;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn Error>> {
    let mut arguments = std::env::args().skip(1);
    let path = arguments
        .next()
        .ok_or("usage: reasoning_queries STORE_DIR [ROUNDS]")?;
    let rounds: usize = arguments.next().map_or(Ok(5), |n| n.parse())?;
    let store = HistoryStore::open(std::path::Path::new(&path), &Default::default())?;
    if !store.reasons() {
        return Err(format!("{path} does not reason: run `ihigraph reasoning on` first").into());
    }
    println!("query\trows\tasserted p50 (ms)\tinferred p50 (ms)\tratio");
    for query in [&TOOL_STATS, &ROLES, &SESSIONS, &TOOL_USAGE, &TOKEN_USAGE] {
        let (rows, _) = run(&store, query, false)?;
        let (inferred_rows, _) = run(&store, query, true)?;
        if rows != inferred_rows {
            return Err(format!(
                "{}: {rows} rows as written, {inferred_rows} inferred",
                query.name
            )
            .into());
        }
        let mut asserted = Vec::with_capacity(rounds);
        let mut inferred = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            asserted.push(run(&store, query, false)?.1);
            inferred.push(run(&store, query, true)?.1);
        }
        let (a, i) = (median(&mut asserted), median(&mut inferred));
        println!(
            "{}\t{rows}\t{:.1}\t{:.1}\t{:.2}",
            query.name,
            a.as_secs_f64() * 1e3,
            i.as_secs_f64() * 1e3,
            i.as_secs_f64() / a.as_secs_f64()
        );
    }
    Ok(())
}

/// Runs a query to its last row: the rows and the time taken.
fn run(
    store: &HistoryStore,
    query: &CannedQuery,
    inferred: bool,
) -> Result<(usize, Duration), Box<dyn Error>> {
    let started = Instant::now();
    let results = if inferred {
        store.run_inferred(query, &Arguments::new())?
    } else {
        store.run(query, &Arguments::new())?
    };
    let QueryResults::Solutions(solutions) = results else {
        return Err(format!("{} is not a SELECT query", query.name).into());
    };
    let mut rows = 0;
    for solution in solutions {
        solution?;
        rows += 1;
    }
    Ok((rows, started.elapsed()))
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}
