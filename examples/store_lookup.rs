//! What one lookup costs in Oxigraph itself, below SPARQL and below ihigraph: for up to
//! `--sample` session graphs spread over the store, the time to find a graph's first
//! quad (one RocksDB seek), the time per quad to read and decode the whole graph (its
//! strings fetched from the id-to-string table), and the time of the reads
//! `tool-usage` makes for one session (`queries/one-session/tool-usage.rq`: one scan
//! of the graph per property it reads, every quad decoded). Three passes; the first is
//! cold. Run on stores of different sizes, it shows how much of the queries' growth
//! with the store is the store's own. Used by `benches/ingest.sh`.
//!
//! ```text
//! cargo run --release --example store_lookup -- STORE_DIR [--sample N]
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.

mod common;

use ihigraph::rdf::vocab::{ch, ihi};
use oxigraph::model::{GraphNameRef, NamedNode, NamedNodeRef, NamedOrBlankNode};
use oxigraph::store::Store;
use std::error::Error;
use std::time::{Duration, Instant};

const PASSES: usize = 3;

/// The properties `tool-usage` reads with one scan each, in the order it reads them
/// (`ch:timestamp` twice: for the calls and for their turns).
const TOOL_USAGE_SCANS: [NamedNodeRef<'static>; 10] = [
    ihi::SESSION_ID,
    ch::INVOLVES_TOOL_INVOCATION,
    ch::TOOL_NAME,
    ch::TURN_INDEX,
    ch::INVOCATION_PARAMETERS,
    ch::TIMESTAMP,
    ch::TIMESTAMP,
    ch::HAS_RESULT,
    ch::RESULT_DATA,
    ihi::IS_ERROR,
];

fn main() -> Result<(), Box<dyn Error>> {
    let (store_dir, sample) = common::store_and_sample("store_lookup")?;
    let store = Store::open(&store_dir)?;
    // Session graphs only: the ontologies live in graphs of their own.
    let mut graphs: Vec<NamedNode> = Vec::new();
    for graph in store.named_graphs() {
        if let NamedOrBlankNode::NamedNode(graph) = graph?
            && graph.as_str().contains("/graph/")
        {
            graphs.push(graph);
        }
    }
    graphs.sort();
    let chosen = common::spread(&graphs, sample);
    if chosen.is_empty() {
        return Err("the store holds no session graph".into());
    }
    for pass in 1..=PASSES {
        let mut seeks = Vec::with_capacity(chosen.len());
        let mut per_quad = Vec::with_capacity(chosen.len());
        let mut tool_usage = Vec::with_capacity(chosen.len());
        for graph in &chosen {
            let graph = Some(GraphNameRef::NamedNode(graph.as_ref()));
            let started = Instant::now();
            store
                .quads_for_pattern(None, None, None, graph)
                .next()
                .transpose()?;
            seeks.push(started.elapsed());
            let started = Instant::now();
            let mut quads = 0;
            for quad in store.quads_for_pattern(None, None, None, graph) {
                quad?;
                quads += 1;
            }
            per_quad.push(started.elapsed() / quads.max(1));
            let started = Instant::now();
            for property in TOOL_USAGE_SCANS {
                for quad in store.quads_for_pattern(None, Some(property), None, graph) {
                    quad?;
                }
            }
            tool_usage.push(started.elapsed());
        }
        println!(
            "pass {pass}{}: first quad of a graph p50 {:6.1} µs; whole graph p50 {:5.2} µs per quad; tool-usage's scans p50 {:6.3} ms",
            if pass == 1 { " (cold)" } else { "       " },
            micros(common::quantile(&mut seeks, 0.5)),
            micros(common::quantile(&mut per_quad, 0.5)),
            micros(common::quantile(&mut tool_usage, 0.5)) / 1e3,
        );
    }
    Ok(())
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}
