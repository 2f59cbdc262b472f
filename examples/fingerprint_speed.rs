//! Fingerprint time per session on a store, from the library (no process start-up): for
//! up to `--sample` sessions spread over the store, reads the session's graph and takes
//! its fingerprint (RDFC-1.0 canonical N-Quads, SHA-256), five times after a warm-up
//! pass, and prints p50 and p99 by session size, split into the read and the hashing.
//!
//! ```text
//! cargo run --release --example fingerprint_speed -- STORE_DIR [--sample N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

mod common;

use ihigraph::rdf::fingerprint;
use oxrdf::Quad;
use std::collections::BTreeMap;
use std::error::Error;
use std::time::{Duration, Instant};

/// Timed passes over the sample, after the warm-up pass.
const PASSES: usize = 5;

fn main() -> Result<(), Box<dyn Error>> {
    let (store, chosen) = common::store_with_sample("fingerprint_speed")?;
    let scheme = store.scheme().clone();
    // Sessions by turn count, in bands of 25 turns: (read, hash, quads) per pass.
    let mut bands: BTreeMap<usize, (Vec<Duration>, Vec<Duration>, usize)> = BTreeMap::new();
    for pass in 0..=PASSES {
        for session in &chosen {
            let graph = scheme.session_graph(session);
            let started = Instant::now();
            let quads = store.session_quads(graph.as_ref())?;
            let read = started.elapsed();
            let started = Instant::now();
            let print = fingerprint(quads.iter().map(Quad::as_ref))?;
            let hashed = started.elapsed();
            if pass == 0 {
                continue;
            }
            let turns = quads
                .iter()
                .filter(|quad| quad.predicate == ihigraph::rdf::vocab::ch::TURN_INDEX)
                .count();
            let band = bands.entry(turns / 25 * 25).or_default();
            band.0.push(read);
            band.1.push(hashed);
            band.2 = band.2.max(print.quads);
        }
    }
    println!("turns\tsessions\tquads (max)\tread p50\thash p50\ttotal p50\ttotal p99");
    for (band, (mut reads, mut hashes, quads)) in bands {
        let mut totals: Vec<Duration> = reads.iter().zip(&hashes).map(|(r, h)| *r + *h).collect();
        println!(
            "{band}-{}\t{}\t{quads}\t{:.2} ms\t{:.2} ms\t{:.2} ms\t{:.2} ms",
            band + 24,
            totals.len() / PASSES,
            ms(common::quantile(&mut reads, 0.5)),
            ms(common::quantile(&mut hashes, 0.5)),
            ms(common::quantile(&mut totals, 0.5)),
            ms(common::quantile(&mut totals, 0.99)),
        );
    }
    Ok(())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
