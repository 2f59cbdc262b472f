//! Decoding speed of OTLP/HTTP bodies (`src/serve/otlp.rs`), on one core: a request of the
//! real Pydantic AI spans (`tests/fixtures/import/otel/real-pydantic-ai/`, 8 spans with their
//! prompts, answers and tool calls) repeated to N spans, decoded as `/v1/traces` receives it:
//! binary protobuf, the same gzip-compressed, and OTLP JSON. Prints spans per second and MB
//! per second of body for each, the best of five rounds.
//!
//!   cargo run --release --example otlp_decode [-- SPANS]          (default 10,000)
//!
//! On the 2-core machine, with other builds running (load 7), 2026-11-26: 1,000 spans
//! (1.9 MB of protobuf) decode at 107,000 spans/s from protobuf, 44,000 from gzip
//! protobuf, 59,000 from JSON; 10,000 spans (18.6 MB) at 61,000, 31,000 and 53,000.
#![allow(clippy::print_stdout, clippy::unwrap_used)] // A command-line example prints.

use flate2::Compression;
use flate2::write::GzEncoder;
use ihigraph::serve::{OtlpEncoding, decode_traces};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

const LIMIT: usize = 1 << 30;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spans: usize = std::env::args().nth(1).map_or(Ok(10_000), |a| a.parse())?;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/otel/real-pydantic-ai/001-traces.pb");
    let real = ExportTraceServiceRequest::decode(std::fs::read(fixture)?.as_slice())?;
    let request = repeated(&real, spans);
    let protobuf = request.encode_to_vec();
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(&protobuf)?;
    let gzip = encoder.finish()?;
    let json = serde_json::to_vec(&request)?;
    println!(
        "{spans} spans: protobuf {:.2} MB, gzip {:.2} MB, JSON {:.2} MB",
        mb(protobuf.len()),
        mb(gzip.len()),
        mb(json.len())
    );
    let protobuf_type = Some(OtlpEncoding::Protobuf.media_type());
    let json_type = Some(OtlpEncoding::Json.media_type());
    for (name, content_type, encoding, body) in [
        ("protobuf", protobuf_type, None, &protobuf),
        ("protobuf+gzip", protobuf_type, Some("gzip"), &gzip),
        ("JSON", json_type, None, &json),
    ] {
        let best = (0..5)
            .map(|_| {
                let start = Instant::now();
                let value = decode_traces(content_type, encoding, body, LIMIT).unwrap();
                let elapsed = start.elapsed();
                drop(value);
                elapsed
            })
            .min()
            .unwrap_or(Duration::MAX);
        let seconds = best.as_secs_f64();
        println!(
            "{name:>14}: {:>9.0} spans/s, {:>6.1} MB/s of body ({:.1} ms)",
            spans as f64 / seconds,
            mb(body.len()) / seconds,
            seconds * 1000.0
        );
    }
    Ok(())
}

/// The real request's spans repeated until there are `spans` of them, in one scope.
fn repeated(real: &ExportTraceServiceRequest, spans: usize) -> ExportTraceServiceRequest {
    let mut request = real.clone();
    let scope = &mut request.resource_spans[0].scope_spans[0];
    let originals = scope.spans.clone();
    scope.spans = originals.iter().cycle().take(spans).cloned().collect();
    request
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}
