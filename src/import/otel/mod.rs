//! OpenTelemetry traces under the GenAI semantic conventions: OTLP JSON as the
//! Collector's file exporter writes it (JSON Lines of `TracesData` and `LogsData`) and as
//! OTLP/HTTP JSON bodies carry it.
//!
//! A session is a conversation: `gen_ai.conversation.id`, else `session.id`
//! (OpenInference, OpenLLMetry), else `langfuse.session.id`, set on a span or on its
//! resource, or on any span of its trace; else the trace (`trace-<trace id>`). One
//! conversation may span many traces.
//!
//! A turn is one model call span (`gen_ai.operation.name` `chat`, `generate_content`,
//! `text_completion`; OpenInference's `LLM` spans; spans with indexed prompt
//! attributes). Its `PRCPrompt` holds the call's new input: each call sends the whole
//! conversation again, so the messages that repeat the conversation so far are left out
//! and counted (`repeats`); `system_instructions` when they change. Its `BKNResponse`
//! holds the output messages, the call span's id (`spanId`), and, verbatim under
//! `otlp`, every span and log record of the conversation that falls in the turn: the call
//! span itself, the tool runs it asked for (by `gen_ai.tool.call.id`, else by time), and
//! the agent, chain and unknown spans and records by time. Messages are in the shape of
//! the current conventions (`{role, parts}`), whichever form the emitter wrote (see
//! `forms`).
//!
//! Content capture is opt-in in every instrumentation: a call without captured output
//! gets the tool calls of its tool run spans, an input without captured content the
//! results those spans carry, and the response says what was not captured (`captured:
//! {input: false, output: false}`); models, tokens and times are read from the kept
//! spans (`payload::call_facts`).
//!
//! The spans of a conversation may sit in several files (traces and logs apart, or one
//! file per export): `ingest` and `convert` read every OTLP file they are given
//! together.

mod conversation;
mod forms;
mod read;

use super::{ImportError, Importer, Record, Sessions};
use crate::payload::hex_id;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The OpenTelemetry importer.
pub struct Otel;

impl Importer for Otel {
    fn name(&self) -> &'static str {
        "otel"
    }

    fn description(&self) -> &'static str {
        "OpenTelemetry GenAI traces and logs, OTLP JSON (the Collector's file exporter, OTLP/HTTP bodies)"
    }

    fn detect(&self, first: &Record) -> bool {
        read::is_otlp(&first.value)
    }

    fn joins_files(&self) -> bool {
        true
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        let mut read = read::Read::default();
        for record in records {
            read.record(&record?)?;
        }
        for draft in conversation::sessions(read) {
            sessions.add(draft)?;
        }
        Ok(())
    }
}

/// What an OTLP JSON value names: the traces of its spans and log records, and the
/// conversations its spans name (`gen_ai.conversation.id`, `session.id`,
/// `langfuse.session.id`). A live receiver reads it to find the stored sessions a batch
/// adds to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Named {
    /// Trace ids, lower-case hex.
    pub traces: BTreeSet<String>,
    /// Conversation ids, as given.
    pub conversations: BTreeSet<String>,
    /// The conversations the spans of each trace name.
    pub trace_conversations: BTreeMap<String, BTreeSet<String>>,
}

/// What `record` names, reading it as the importer does.
///
/// # Errors
///
/// Where the importer would refuse it: the JSON Pointer and what was expected.
pub fn named(record: &Record) -> Result<Named, ImportError> {
    let mut read = read::Read::default();
    read.record(record)?;
    let mut named = Named::default();
    for span in &read.spans {
        named.traces.insert(span.trace_id.clone());
        if let Some(id) = conversation::own_conversation(span) {
            named
                .trace_conversations
                .entry(span.trace_id.clone())
                .or_default()
                .insert(id.clone());
            named.conversations.insert(id);
        }
    }
    named
        .traces
        .extend(read.logs.iter().filter_map(|log| log.trace_id.clone()));
    Ok(named)
}

/// The session id of a trace whose spans name no conversation.
pub fn trace_session_id(trace: &str) -> String {
    conversation::trace_key(trace)
}

/// `batch` (OTLP JSON) without the spans and log records of `traces`, and how many
/// spans and records were left out.
pub fn without_traces(batch: &Value, traces: &BTreeSet<String>) -> (Value, (u64, u64)) {
    let mut batch = batch.clone();
    let mut removed = (0, 0);
    let lists = [
        ("resourceSpans", "scopeSpans", "spans", 0),
        ("resourceLogs", "scopeLogs", "logRecords", 1),
    ];
    for (resources, scopes, items, which) in lists {
        let Some(resources) = batch.get_mut(resources).and_then(Value::as_array_mut) else {
            continue;
        };
        for resource in resources.iter_mut() {
            let Some(scopes) = resource.get_mut(scopes).and_then(Value::as_array_mut) else {
                continue;
            };
            for scope in scopes.iter_mut() {
                let Some(list) = scope.get_mut(items).and_then(Value::as_array_mut) else {
                    continue;
                };
                let before = list.len();
                list.retain(|item| {
                    item.get("traceId")
                        .and_then(hex_id)
                        .is_none_or(|trace| !traces.contains(&trace))
                });
                let gone = (before - list.len()) as u64;
                if which == 0 {
                    removed.0 += gone;
                } else {
                    removed.1 += gone;
                }
            }
        }
    }
    (batch, removed)
}
