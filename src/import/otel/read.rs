//! OTLP JSON read: `TracesData` and `LogsData` objects (the Collector's file exporter
//! writes one per line; an OTLP/HTTP JSON request body is the same object), their spans
//! and log records with what they inherit from their resource and scope.
//!
//! Lenient where emitters differ and the meaning is plain: ids in hex (the OTLP JSON
//! encoding) or base64 (protobuf's own JSON mapping), int64 as a string or a number,
//! field names in lowerCamelCase or snake_case. Strict where a span could not be placed:
//! a span without a trace id and a span id is refused, with its JSON Pointer.

use super::super::{ImportError, Record};
use crate::payload::{attributes, count_of, hex_id};
use serde_json::{Map, Value};

/// A span as read, with the resource and scope it was sent under.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Span {
    /// The span object exactly as given.
    pub raw: Value,
    /// Its `ResourceSpans` without `scopeSpans` (the resource, `schemaUrl`).
    pub resource: Map<String, Value>,
    /// Its `ScopeSpans` without `spans` (the scope, `schemaUrl`).
    pub scope: Map<String, Value>,
    /// Lower-case hex.
    pub trace_id: String,
    /// Lower-case hex.
    pub span_id: String,
    /// Lower-case hex, when the span has a parent.
    pub parent: Option<String>,
    /// The span's name.
    pub name: String,
    /// Nanoseconds since the Unix epoch.
    pub start: Option<u64>,
    /// Nanoseconds since the Unix epoch.
    pub end: Option<u64>,
    /// The span's attributes as plain JSON, the resource's beneath them.
    pub attributes: Map<String, Value>,
    /// The span's events: name and attributes as plain JSON.
    pub events: Vec<(String, Map<String, Value>)>,
}

impl Span {
    /// A string attribute.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).and_then(Value::as_str)
    }
}

/// A log record as read, with the resource and scope it was sent under.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Log {
    /// The log record exactly as given.
    pub raw: Value,
    /// Its `ResourceLogs` without `scopeLogs`.
    pub resource: Map<String, Value>,
    /// Its `ScopeLogs` without `logRecords`.
    pub scope: Map<String, Value>,
    /// The trace and span it was emitted in, when it names them.
    pub trace_id: Option<String>,
    /// Lower-case hex.
    pub span_id: Option<String>,
    /// `eventName`, or the `event.name` attribute older SDKs set.
    pub event_name: Option<String>,
    /// `timeUnixNano`, else `observedTimeUnixNano`.
    pub time: Option<u64>,
    /// The record's attributes as plain JSON.
    pub attributes: Map<String, Value>,
    /// The body as plain JSON.
    pub body: Value,
}

/// Everything read so far.
#[derive(Debug, Default)]
pub(super) struct Read {
    pub spans: Vec<Span>,
    pub logs: Vec<Log>,
}

/// A member under either of its names (lowerCamelCase, as the OTLP JSON encoding
/// writes it, or the proto's snake_case, which protobuf's JSON parsers accept too).
fn member<'a>(object: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    object.get(camel).or_else(|| object.get(snake))
}

/// The array under a member, or an error saying what was expected there.
fn array<'a>(
    record: &Record,
    object: &'a Map<String, Value>,
    names: (&str, &str),
    pointer: &str,
) -> Result<&'a [Value], ImportError> {
    match member(object, names.0, names.1) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(record.error(&format!("{pointer}/{}", names.0), "an array")),
    }
}

fn object_at<'a>(
    record: &Record,
    value: &'a Value,
    pointer: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, ImportError> {
    value
        .as_object()
        .ok_or_else(|| record.error(pointer, format!("{what} (a JSON object)")))
}

/// The members of `object` but `without`: what a span inherits from its envelope.
fn envelope(object: &Map<String, Value>, without: (&str, &str)) -> Map<String, Value> {
    object
        .iter()
        .filter(|(key, _)| key.as_str() != without.0 && key.as_str() != without.1)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// Whether a record is OTLP JSON: an object with `resourceSpans` or `resourceLogs`.
pub(super) fn is_otlp(value: &Value) -> bool {
    value.as_object().is_some_and(|object| {
        [
            "resourceSpans",
            "resource_spans",
            "resourceLogs",
            "resource_logs",
        ]
        .iter()
        .any(|key| object.get(*key).is_some_and(Value::is_array))
    })
}

impl Read {
    /// Reads one `TracesData` or `LogsData` record (or both in one object).
    pub fn record(&mut self, record: &Record) -> Result<(), ImportError> {
        let object = object_at(
            record,
            &record.value,
            "",
            "an OTLP TracesData or LogsData object",
        )?;
        if !is_otlp(&record.value) {
            return Err(record.error(
                "",
                "an OTLP TracesData or LogsData object, with a `resourceSpans` or `resourceLogs` array",
            ));
        }
        let names = ("resourceSpans", "resource_spans");
        for (r, resource) in array(record, object, names, "")?.iter().enumerate() {
            let pointer = format!("/resourceSpans/{r}");
            let resource = object_at(record, resource, &pointer, "a ResourceSpans")?;
            self.resource_spans(record, resource, &pointer)?;
        }
        let names = ("resourceLogs", "resource_logs");
        for (r, resource) in array(record, object, names, "")?.iter().enumerate() {
            let pointer = format!("/resourceLogs/{r}");
            let resource = object_at(record, resource, &pointer, "a ResourceLogs")?;
            self.resource_logs(record, resource, &pointer)?;
        }
        Ok(())
    }

    fn resource_spans(
        &mut self,
        record: &Record,
        resource: &Map<String, Value>,
        pointer: &str,
    ) -> Result<(), ImportError> {
        let resource_attributes = resource_attributes(resource);
        let kept = envelope(resource, ("scopeSpans", "scope_spans"));
        let names = ("scopeSpans", "scope_spans");
        for (s, scope) in array(record, resource, names, pointer)?.iter().enumerate() {
            let pointer = format!("{pointer}/scopeSpans/{s}");
            let scope = object_at(record, scope, &pointer, "a ScopeSpans")?;
            let scope_kept = envelope(scope, ("spans", "spans"));
            for (i, span) in array(record, scope, ("spans", "spans"), &pointer)?
                .iter()
                .enumerate()
            {
                let pointer = format!("{pointer}/spans/{i}");
                let mut span = read_span(record, span, &pointer)?;
                for (key, value) in &resource_attributes {
                    span.attributes
                        .entry(key.clone())
                        .or_insert_with(|| value.clone());
                }
                span.resource = kept.clone();
                span.scope = scope_kept.clone();
                self.spans.push(span);
            }
        }
        Ok(())
    }

    fn resource_logs(
        &mut self,
        record: &Record,
        resource: &Map<String, Value>,
        pointer: &str,
    ) -> Result<(), ImportError> {
        let kept = envelope(resource, ("scopeLogs", "scope_logs"));
        let names = ("scopeLogs", "scope_logs");
        for (s, scope) in array(record, resource, names, pointer)?.iter().enumerate() {
            let pointer = format!("{pointer}/scopeLogs/{s}");
            let scope = object_at(record, scope, &pointer, "a ScopeLogs")?;
            let scope_kept = envelope(scope, ("logRecords", "log_records"));
            let names = ("logRecords", "log_records");
            for (i, log) in array(record, scope, names, &pointer)?.iter().enumerate() {
                let pointer = format!("{pointer}/logRecords/{i}");
                let object = object_at(record, log, &pointer, "a LogRecord")?;
                let attributes = attributes(object.get("attributes"));
                let event_name = member(object, "eventName", "event_name")
                    .and_then(Value::as_str)
                    .filter(|name| !name.is_empty())
                    .or_else(|| attributes.get("event.name").and_then(Value::as_str))
                    .map(str::to_owned);
                self.logs.push(Log {
                    raw: log.clone(),
                    resource: kept.clone(),
                    scope: scope_kept.clone(),
                    trace_id: member(object, "traceId", "trace_id").and_then(hex_id),
                    span_id: member(object, "spanId", "span_id").and_then(hex_id),
                    event_name,
                    time: member(object, "timeUnixNano", "time_unix_nano")
                        .and_then(count_of)
                        .filter(|t| *t > 0)
                        .or_else(|| {
                            member(object, "observedTimeUnixNano", "observed_time_unix_nano")
                                .and_then(count_of)
                        }),
                    attributes,
                    body: object
                        .get("body")
                        .map_or(Value::Null, crate::payload::any_value),
                });
            }
        }
        Ok(())
    }
}

/// A resource's attributes (`service.name`, and the session ids some SDKs set there).
fn resource_attributes(resource: &Map<String, Value>) -> Map<String, Value> {
    attributes(resource.get("resource").and_then(|r| r.get("attributes")))
}

fn read_span(record: &Record, value: &Value, pointer: &str) -> Result<Span, ImportError> {
    let span = object_at(record, value, pointer, "a Span")?;
    let id = |camel: &str, snake: &str, what: &str| {
        member(span, camel, snake).and_then(hex_id).ok_or_else(|| {
            record.error(
                &format!("{pointer}/{camel}"),
                format!("the span's {what}: hex digits (or base64) of a non-zero id"),
            )
        })
    };
    let trace_id = id("traceId", "trace_id", "trace id")?;
    let span_id = id("spanId", "span_id", "span id")?;
    let events = member(span, "events", "events")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .map(|event| {
            (
                event
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                attributes(event.get("attributes")),
            )
        })
        .collect();
    Ok(Span {
        raw: value.clone(),
        resource: Map::new(),
        scope: Map::new(),
        trace_id,
        span_id,
        parent: member(span, "parentSpanId", "parent_span_id").and_then(hex_id),
        name: span
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        start: member(span, "startTimeUnixNano", "start_time_unix_nano").and_then(count_of),
        end: member(span, "endTimeUnixNano", "end_time_unix_nano").and_then(count_of),
        attributes: attributes(span.get("attributes")),
        events,
    })
}
