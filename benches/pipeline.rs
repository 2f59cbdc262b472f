//! What ingest costs before the store: reading (JSON text to a value), checking
//! (schema and semantic rules, and the typed model), and mapping (to the quads of the
//! session graph, in memory), over a generated corpus of 200 sessions. Each stage is
//! measured twice, reported as MB/s of JSON and as turns/s; documents/s is turns/s
//! divided by the turns per document printed first.
//!
//! Run: `cargo bench --bench pipeline`. Figures are in docs/performance.md.
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where results are printed.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ihigraph::CheckOptions;
use ihigraph::check_document;
use ihigraph::generate::GenerateOptions;
use ihigraph::generate::generate;
use ihigraph::rdf::IriScheme;
use ihigraph::rdf::map_history;
use ihigraph::read::parse_json;
use std::hint::black_box;

const SESSIONS: usize = 200;

fn pipeline(c: &mut Criterion) {
    let texts: Vec<Vec<u8>> = generate(GenerateOptions {
        sessions: SESSIONS,
        seed: 42,
        ..Default::default()
    })
    .map(|document| serde_json::to_vec(&document).unwrap())
    .collect();
    let values: Vec<_> = texts.iter().map(|text| parse_json(text).unwrap()).collect();
    let histories: Vec<_> = values
        .iter()
        .map(|value| {
            check_document(value, CheckOptions::default())
                .history
                .unwrap()
        })
        .collect();
    let bytes: usize = texts.iter().map(Vec::len).sum();
    let turns: usize = histories.iter().map(|history| history.turns.len()).sum();
    println!(
        "corpus: {SESSIONS} documents, {turns} turns ({:.1} per document), {:.1} MB",
        turns as f64 / SESSIONS as f64,
        bytes as f64 / 1e6
    );
    let scheme = IriScheme::default();
    let options = CheckOptions::default();

    let mut group = c.benchmark_group("pipeline");
    group.sample_size(10);
    let stages: [(&str, &dyn Fn() -> usize); 4] = [
        ("read", &|| {
            texts
                .iter()
                .map(|text| black_box(parse_json(text).unwrap()).is_object() as usize)
                .sum()
        }),
        ("check", &|| {
            values
                .iter()
                .map(|value| check_document(value, options).problems.len())
                .sum()
        }),
        ("map", &|| {
            histories
                .iter()
                .map(|history| map_history(history, &scheme).quads.len())
                .sum()
        }),
        ("read+check+map", &|| {
            texts
                .iter()
                .map(|text| {
                    let value = parse_json(text).unwrap();
                    let history = check_document(&value, options).history.unwrap();
                    map_history(&history, &scheme).quads.len()
                })
                .sum()
        }),
    ];
    for (name, stage) in stages {
        for (unit, throughput) in [
            ("MB/s", Throughput::Bytes(bytes as u64)),
            ("turns/s", Throughput::Elements(turns as u64)),
        ] {
            group.throughput(throughput);
            group.bench_function(format!("{name} ({unit})"), |b| {
                b.iter(|| black_box(stage()));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
