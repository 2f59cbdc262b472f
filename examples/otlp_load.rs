//! Load on `ihigraph serve`'s OTLP/HTTP receiver: N agent conversations of T model calls
//! each (a root `invoke_agent` span naming the conversation, a `chat` span per call whose
//! `gen_ai.input.messages` repeat the conversation so far, an `execute_tool` span per
//! call), their spans interleaved across conversations in batches of B as a
//! `BatchSpanProcessor` exports them, sent by S senders to `/v1/traces` as protobuf or
//! OTLP JSON. The conversation id is on every span (`--conversation-on all`, as
//! Pydantic AI sets it) or on the root span only (`root`, as OpenInference and the
//! OpenAI instrumentation leave it to the application), which ends last: until it comes,
//! each conversation is stored as its trace's session. A sender answered 503 waits the `Retry-After` the server gives and sends
//! the batch again, as OTLP exporters do.
//!
//! Prints spans per second (from the first request to the last answer), requests answered
//! 503, the server's peak resident memory (sampled every 20 ms from `/proc`, and its
//! `VmHWM`), and checks the store: N sessions of T turns.
//!
//! ```text
//! cargo build --release
//! cargo run --release --example otlp_load -- --conversations 200 --turns 10 --senders 2 --encoding protobuf
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOKEN: &str = "otlp-load-token";

struct Options {
    conversations: usize,
    turns: usize,
    senders: usize,
    batch: usize,
    json: bool,
    /// The conversation id on the root span only (as the OpenAI instrumentation and
    /// OpenInference leave it), instead of on every span (as Pydantic AI sets it).
    root_only: bool,
    binary: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        conversations: 200,
        turns: 10,
        senders: 2,
        batch: 512,
        json: false,
        root_only: false,
        binary: "target/release/ihigraph".to_owned(),
    };
    let mut arguments = std::env::args().skip(1);
    while let Some(flag) = arguments.next() {
        let value = arguments.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag} {value}: a number"))
        };
        match flag.as_str() {
            "--conversations" => options.conversations = number()?,
            "--turns" => options.turns = number()?,
            "--senders" => options.senders = number()?.max(1),
            "--batch" => options.batch = number()?.max(1),
            "--encoding" => options.json = value == "json",
            "--conversation-on" => options.root_only = value == "root",
            "--binary" => options.binary.clone_from(&value),
            other => {
                return Err(format!(
                    "unknown flag {other}: --conversations N --turns T --senders S --batch B --encoding protobuf|json --conversation-on all|root --binary PATH"
                ));
            }
        }
    }
    Ok(options)
}

fn text(key: &str, value: impl Into<String>) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
    }
}

fn int(key: &str, value: i64) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::IntValue(value)),
        }),
    }
}

const BASE_NANOS: u64 = 1_767_000_000_000_000_000;

fn span(
    trace: &[u8],
    id: u64,
    parent: Option<u64>,
    name: String,
    at: u64,
    attributes: Vec<KeyValue>,
) -> Span {
    Span {
        trace_id: trace.to_vec(),
        span_id: id.to_be_bytes().to_vec(),
        parent_span_id: parent.map(|p| p.to_be_bytes().to_vec()).unwrap_or_default(),
        name,
        kind: 3,
        start_time_unix_nano: BASE_NANOS + at * 1_000_000,
        end_time_unix_nano: BASE_NANOS + at * 1_000_000 + 400_000_000,
        attributes,
        ..Span::default()
    }
}

/// One conversation's spans, in the order they end.
fn conversation(index: usize, turns: usize, root_only: bool) -> Vec<Span> {
    let mut trace = [0u8; 16];
    trace[..8].copy_from_slice(&(index as u64 + 1).to_be_bytes());
    trace[8] = 0xab;
    let root = (index as u64 + 1) << 20;
    let conversation_id = format!("load-{index}");
    let mut spans = Vec::new();
    let mut history = Vec::new();
    for turn in 0..turns {
        let at = (index * 10 + turn * 1_000) as u64;
        history.push(json!({"role": "user", "parts": [{"type": "text", "content": format!("Question {turn} of conversation {index}: what is the status of order {}?", index * 100 + turn)}]}));
        let call_id = format!("call_{index}_{turn}");
        let output = json!([{"role": "assistant", "parts": [
            {"type": "text", "content": format!("Order {} ships tomorrow; checking the carrier.", index * 100 + turn)},
            {"type": "tool_call", "id": call_id, "name": "track_parcel", "arguments": {"order": index * 100 + turn}}
        ], "finish_reason": "tool_call"}]);
        spans.push(span(
            &trace,
            root + 2 * turn as u64 + 1,
            Some(root),
            "chat gpt-4o".to_owned(),
            at,
            vec![
                text("gen_ai.operation.name", "chat"),
                text("gen_ai.provider.name", "openai"),
                text("gen_ai.request.model", "gpt-4o"),
                int("gen_ai.usage.input_tokens", 40 * (turn as i64 + 1)),
                int("gen_ai.usage.output_tokens", 24),
                text(
                    "gen_ai.input.messages",
                    serde_json::to_string(&history).unwrap_or_default(),
                ),
                text("gen_ai.output.messages", output.to_string()),
            ],
        ));
        spans.push(span(
            &trace,
            root + 2 * turn as u64 + 2,
            Some(root),
            "execute_tool track_parcel".to_owned(),
            at + 450,
            vec![
                text("gen_ai.operation.name", "execute_tool"),
                text("gen_ai.tool.name", "track_parcel"),
                text("gen_ai.tool.call.id", call_id.clone()),
                text("gen_ai.tool.call.result", "in transit"),
            ],
        ));
        history.push(output[0].clone());
        history.push(json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": "in transit"}]}));
    }
    spans.push(span(
        &trace,
        root,
        None,
        "invoke_agent support".to_owned(),
        (index * 10 + turns * 1_000) as u64,
        vec![
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.conversation.id", conversation_id.clone()),
        ],
    ));
    if !root_only {
        for span in &mut spans {
            span.attributes
                .push(text("gen_ai.conversation.id", conversation_id.clone()));
        }
    }
    spans
}

/// The spans of every conversation, interleaved as concurrent agents end them, cut into
/// export requests.
fn batches(options: &Options) -> Vec<Vec<u8>> {
    let conversations: Vec<Vec<Span>> = (0..options.conversations)
        .map(|index| conversation(index, options.turns, options.root_only))
        .collect();
    let longest = conversations.iter().map(Vec::len).max().unwrap_or(0);
    let mut spans = Vec::new();
    for position in 0..longest {
        for conversation in &conversations {
            if let Some(span) = conversation.get(position) {
                spans.push(span.clone());
            }
        }
    }
    spans
        .chunks(options.batch)
        .map(|chunk| {
            let request = ExportTraceServiceRequest {
                resource_spans: vec![ResourceSpans {
                    resource: Some(Resource {
                        attributes: vec![text("service.name", "load-agent")],
                        ..Resource::default()
                    }),
                    scope_spans: vec![ScopeSpans {
                        scope: Some(InstrumentationScope {
                            name: "otlp_load".to_owned(),
                            ..InstrumentationScope::default()
                        }),
                        spans: chunk.to_vec(),
                        schema_url: String::new(),
                    }],
                    schema_url: String::new(),
                }],
            };
            if options.json {
                serde_json::to_vec(&request).unwrap_or_default()
            } else {
                request.encode_to_vec()
            }
        })
        .collect()
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(300)))
        .build()
        .into()
}

/// The server's resident memory now and its peak, in KiB, from `/proc`.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Sends the queued requests from `options.senders` threads, each waiting a second and
/// sending again when answered 503.
fn send_all(
    options: &Options,
    base: &str,
    queue: &Queue,
    busy: &Arc<AtomicU64>,
    failed: &Arc<AtomicUsize>,
) {
    let content_type = if options.json {
        "application/json"
    } else {
        "application/x-protobuf"
    };
    let senders: Vec<_> = (0..options.senders)
        .map(|_| {
            let (queue, busy, failed, url) = (
                Arc::clone(queue),
                Arc::clone(busy),
                Arc::clone(failed),
                format!("{base}/v1/traces"),
            );
            std::thread::spawn(move || {
                let agent = agent();
                while let Some(body) = queue.lock().ok().and_then(|mut q| q.pop_front()) {
                    loop {
                        let reply = agent
                            .post(&url)
                            .header("Authorization", format!("Bearer {TOKEN}"))
                            .header("Content-Type", content_type)
                            .send(body.as_slice());
                        match reply.map(|r| r.status().as_u16()) {
                            Ok(200) => break,
                            Ok(503) => {
                                busy.fetch_add(1, Ordering::SeqCst);
                                std::thread::sleep(Duration::from_secs(1));
                            }
                            other => {
                                eprintln!("export failed: {other:?}");
                                failed.fetch_add(1, Ordering::SeqCst);
                                break;
                            }
                        }
                    }
                }
            })
        })
        .collect();
    for sender in senders {
        let _ = sender.join();
    }
}

/// The export requests left to send.
type Queue = Arc<Mutex<std::collections::VecDeque<Vec<u8>>>>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    let dir = tempfile::tempdir()?;
    let (mut server, base) =
        common::start_server(&options.binary, &dir.path().join("store"), TOKEN, &[])?;
    let pid = server.id();
    let (idle, _) = memory(pid);
    let bodies = batches(&options);
    let spans = options.conversations * (2 * options.turns + 1);
    let bytes: usize = bodies.iter().map(Vec::len).sum();
    let queue = Arc::new(Mutex::new(
        bodies
            .into_iter()
            .collect::<std::collections::VecDeque<_>>(),
    ));
    let busy = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(idle));
    let sampler = {
        let (done, peak) = (Arc::clone(&done), Arc::clone(&peak));
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                peak.fetch_max(memory(pid).0, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let started = Instant::now();
    send_all(&options, &base, &queue, &busy, &failed);
    let elapsed = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let _ = sampler.join();
    let (_, hwm) = memory(pid);
    let count = agent()
        .post(format!("{base}/sparql"))
        .header("Content-Type", "application/sparql-query")
        .header("Accept", "application/sparql-results+json")
        .send("PREFIX ch: <https://jido.ai/ontology/conversation-history#> SELECT (COUNT(DISTINCT ?c) AS ?sessions) (COUNT(?t) AS ?turns) WHERE { GRAPH ?g { ?t ch:partOfConversation ?c } }")?
        .into_body()
        .read_to_string()?;
    let _ = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
    let _ = server.wait();
    println!(
        "{} spans ({} conversations x {} calls, {} requests of up to {} spans, {:.1} MB {}) by {} senders: {:.2} s, {:.0} spans/s; {} answers 503 (retried), {} failed",
        spans,
        options.conversations,
        options.turns,
        spans.div_ceil(options.batch),
        options.batch,
        bytes as f64 / 1e6,
        if options.json {
            "OTLP JSON"
        } else {
            "protobuf"
        },
        options.senders,
        elapsed.as_secs_f64(),
        spans as f64 / elapsed.as_secs_f64(),
        busy.load(Ordering::SeqCst),
        failed.load(Ordering::SeqCst),
    );
    println!(
        "server memory: {} MiB idle, peak {} MiB sampled, VmHWM {} MiB",
        idle / 1024,
        peak.load(Ordering::SeqCst) / 1024,
        hwm / 1024
    );
    let counts: serde_json::Value = serde_json::from_str(&count)?;
    let row = &counts["results"]["bindings"][0];
    println!(
        "stored: {} sessions, {} turns (expected {} and {})",
        row["sessions"]["value"].as_str().unwrap_or("?"),
        row["turns"]["value"].as_str().unwrap_or("?"),
        options.conversations,
        options.conversations * options.turns
    );
    Ok(())
}
