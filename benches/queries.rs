//! Canned-query latency as the store grows: `recent-turns` and `tool-usage` for one
//! session, on on-disk stores of 100, 1,000 and 10,000 sessions (the four bundled
//! example histories under new SessionIDs). The queries read one session's graph, so
//! their time should not grow with the number of sessions.
//!
//! Run: `cargo bench --bench queries` (building the 10,000-session store takes about a
//! minute). Figures are in docs/performance.md.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ihigraph::Arguments;
use ihigraph::CannedQuery;
use ihigraph::CheckOptions;
use ihigraph::HistoryStore;
use ihigraph::check_document;
use ihigraph::query::RECENT_TURNS;
use ihigraph::query::TOOL_USAGE;
use ihigraph::rdf::map_history;
use oxigraph::sparql::QueryResults;
use serde_json::Value;
use std::hint::black_box;

const EXAMPLES: [&str; 4] = [
    include_str!("../examples/histories/trip-planning.json"),
    include_str!("../examples/histories/code-review-abc.json"),
    include_str!("../examples/histories/support-ticket-fr.json"),
    include_str!("../examples/histories/research-notes.json"),
];

const SIZES: [usize; 3] = [100, 1_000, 10_000];

fn session_id(index: usize) -> String {
    format!("bench-{index:05}")
}

/// A store of `sessions` sessions, bulk-loaded (the fast way to build a big store for a
/// query benchmark; ingest speed is another benchmark's business).
fn build_store(directory: &std::path::Path, sessions: usize) -> HistoryStore {
    let backend = ihigraph::store::Embedded::open(directory).unwrap();
    let raw = backend.oxigraph().clone();
    let store = HistoryStore::with_backend(backend, &Default::default()).unwrap();
    let templates: Vec<Value> = EXAMPLES
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect();
    let mut quads = Vec::new();
    for index in 0..sessions {
        let mut document = templates[index % templates.len()].clone();
        document["SessionID"] = Value::String(session_id(index));
        let history = check_document(&document, CheckOptions::default())
            .history
            .unwrap();
        quads.extend(map_history(&history, store.scheme()).quads);
    }
    let mut loader = raw.bulk_loader();
    loader.load_quads(quads).unwrap();
    loader.commit().unwrap();
    store
}

fn run(store: &HistoryStore, query: &CannedQuery, session: &str) -> usize {
    let arguments = Arguments::new().text("session", session);
    let QueryResults::Solutions(rows) = store.run(query, &arguments).unwrap() else {
        unreachable!("canned queries are SELECT queries")
    };
    rows.map(Result::unwrap).count()
}

fn canned_queries(c: &mut Criterion) {
    let mut group = c.benchmark_group("one-session query");
    group.sample_size(200);
    for sessions in SIZES {
        let directory = tempfile::tempdir().unwrap();
        let store = build_store(directory.path(), sessions);
        assert_eq!(store.session_count().unwrap(), sessions);
        for query in [RECENT_TURNS, TOOL_USAGE] {
            // Turn through the sessions, so that no single session's pages stay hot.
            let mut next = 0;
            group.bench_with_input(BenchmarkId::new(query.name, sessions), &sessions, |b, _| {
                b.iter(|| {
                    next = (next + 7919) % sessions;
                    black_box(run(&store, &query, &session_id(next)))
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, canned_queries);
criterion_main!(benches);
