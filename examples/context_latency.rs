//! Context assembly latency on a store, from the library (no process start-up): builds
//! the context of up to `--sample` sessions spread over the store at an 8,000-token
//! budget in every format, five times after a warm-up pass, and prints p50, p99 and max
//! per format: the session's payloads read from the store, the request assembled and counted.
//!
//! ```text
//! cargo run --release --example context_latency -- STORE_DIR [--sample N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

mod common;

/// The allocator the `ihigraph` binary runs with (see its `main.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ihigraph::context::{ContextFormat, ContextOptions, session_context};
use std::error::Error;
use std::time::{Duration, Instant};

/// Timed passes over the sample, after the warm-up pass.
const PASSES: usize = 5;
const BUDGET: usize = 8_000;

fn main() -> Result<(), Box<dyn Error>> {
    let (store, chosen) = common::store_with_sample("context_latency")?;
    println!("budget {BUDGET} tokens");
    for format in ContextFormat::ALL {
        let options = ContextOptions::new(BUDGET, format);
        // A first pass warms the caches (and builds the tokenizer) as a running
        // application's would be.
        for session in &chosen {
            session_context(&store, session, &options)?;
        }
        let mut totals = Vec::new();
        let (mut turns, mut tokens, mut omitting) = (0, 0, 0);
        for _ in 0..PASSES {
            (turns, tokens, omitting) = (0, 0, 0);
            for session in &chosen {
                let started = Instant::now();
                let context = session_context(&store, session, &options)?;
                totals.push(started.elapsed());
                turns += context.turns.len();
                tokens += context.tokens;
                omitting += usize::from(!context.omitted.is_empty());
            }
        }
        println!(
            "{:<17} p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  ({:.1} turns, {:.0} tokens a context, {} of {} leave something out)",
            format.name(),
            millis(common::quantile(&mut totals, 0.5)),
            millis(common::quantile(&mut totals, 0.99)),
            millis(common::quantile(&mut totals, 1.0)),
            turns as f64 / chosen.len() as f64,
            tokens as f64 / chosen.len() as f64,
            omitting,
            chosen.len(),
        );
    }
    Ok(())
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}
