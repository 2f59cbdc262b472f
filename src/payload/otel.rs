//! OpenTelemetry GenAI: the message parts of the semantic conventions
//! (`gen_ai.input.messages`, `gen_ai.output.messages`) and the spans the `otel` importer
//! keeps verbatim beside them, read for what a model call and a tool run report.
//!
//! Parts: `{type: "tool_call", id?, name, arguments?}` calls, `{type:
//! "tool_call_response", id?, response}` results, `{type: "text", content}` text; the
//! rest (`reasoning`, `blob`, `uri`, `file`...) carries no text of its own.
//!
//! A response the importer wrote names its model call span by `spanId` and keeps the
//! turn's spans and log records as OTLP JSON under `otlp` (`resourceSpans`,
//! `resourceLogs`): [`call_facts`] reads the call's provider, models, tokens, finish
//! reasons and times from that span's attributes, [`tool_spans`] the time and status of
//! each tool run. Attribute names are read in the forms emitters use: the current
//! conventions, the older `gen_ai.system` and `gen_ai.usage.prompt_tokens`, and
//! OpenInference's `llm.*` and `tool.*`.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, json_text, owned_string, string};
use base64::Engine;
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    // LangChain's calls are `{type: "tool_call", name, args, id}` too: its own shape
    // counts them.
    if string(object, "type") == Some("tool_call")
        && !object.contains_key("args")
        && let Some(name) = string(object, "name")
    {
        calls.push(ToolCall {
            call_id: owned_string(object, "id"),
            name: name.to_owned(),
            arguments: json_text(object.get("arguments")),
        });
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    (string(object, "type") == Some("tool_call_response")).then(|| ToolResultFound {
        call_id: owned_string(object, "id"),
        name: owned_string(object, "name"),
        data: data_text(object.get("response").or_else(|| object.get("result"))),
        is_error: object.get("is_error").and_then(Value::as_bool),
    })
}

/// The text of a `{type: "text", content}` part.
pub(super) fn text_part(object: &Map<String, Value>) -> Option<&str> {
    (string(object, "type") == Some("text"))
        .then(|| string(object, "content"))
        .flatten()
}

/// What a model call span reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallFacts {
    /// `gen_ai.provider.name` (or `gen_ai.system`, `llm.provider`, `llm.system`).
    pub provider: Option<String>,
    /// `gen_ai.request.model` (or OpenInference's `llm.model_name`).
    pub request_model: Option<String>,
    /// `gen_ai.response.model`.
    pub response_model: Option<String>,
    /// `gen_ai.usage.input_tokens` (or `gen_ai.usage.prompt_tokens`,
    /// `llm.token_count.prompt`).
    pub input_tokens: Option<u64>,
    /// `gen_ai.usage.output_tokens` (or `gen_ai.usage.completion_tokens`,
    /// `llm.token_count.completion`).
    pub output_tokens: Option<u64>,
    /// `gen_ai.response.finish_reasons`.
    pub finish_reasons: Vec<String>,
    /// `gen_ai.operation.name`.
    pub operation: Option<String>,
    /// The span's times, in nanoseconds since the Unix epoch.
    pub span: SpanFacts,
}

/// What every span reports: its ids, times and status.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpanFacts {
    /// Trace id, 32 lower-case hex digits.
    pub trace_id: Option<String>,
    /// Span id, 16 lower-case hex digits.
    pub span_id: Option<String>,
    /// `startTimeUnixNano`.
    pub start_ns: Option<u64>,
    /// `endTimeUnixNano`.
    pub end_ns: Option<u64>,
    /// The status code: `OK`, `ERROR` or `UNSET`.
    pub status: Option<&'static str>,
    /// The status message, when the span failed with one.
    pub status_message: Option<String>,
}

/// A tool run's span.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSpan {
    /// `gen_ai.tool.call.id` (or OpenInference's `tool_call.id`).
    pub call_id: Option<String>,
    /// `gen_ai.tool.name` (or `tool.name`).
    pub name: String,
    /// Its ids, times and status.
    pub span: SpanFacts,
}

/// What the model call of a response written by the `otel` importer reports, if it is
/// one.
///
/// ```
/// let response = serde_json::json!({"spanId": "00f067aa0ba902b7", "messages": [],
///   "otlp": {"resourceSpans": [{"scopeSpans": [{"spans": [{
///     "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7",
///     "name": "chat gpt-4o", "startTimeUnixNano": "1700000000000000000",
///     "endTimeUnixNano": "1700000001500000000",
///     "attributes": [{"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o"}},
///                    {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "97"}}]}]}]}]}});
/// let facts = ihigraph::payload::call_facts(response.as_object().unwrap()).unwrap();
/// assert_eq!(facts.request_model.as_deref(), Some("gpt-4o"));
/// assert_eq!(facts.input_tokens, Some(97));
/// assert_eq!(facts.span.end_ns.zip(facts.span.start_ns).map(|(e, s)| e - s), Some(1_500_000_000));
/// ```
pub fn call_facts(response: &Map<String, Value>) -> Option<CallFacts> {
    let wanted = response.get("spanId").and_then(hex_id)?;
    let span =
        spans(response).find(|span| span.get("spanId").and_then(hex_id) == Some(wanted.clone()))?;
    let attributes = attributes(span.get("attributes"));
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| attributes.get(*key).and_then(Value::as_str))
            .map(str::to_owned)
    };
    let count = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| attributes.get(*key).and_then(count_of))
    };
    let finish_reasons = match attributes.get("gen_ai.response.finish_reasons") {
        Some(Value::Array(reasons)) => reasons
            .iter()
            .filter_map(|r| r.as_str().map(str::to_owned))
            .collect(),
        Some(Value::String(reason)) => vec![reason.clone()],
        _ => Vec::new(),
    };
    Some(CallFacts {
        provider: text(&[
            "gen_ai.provider.name",
            "gen_ai.system",
            "llm.provider",
            "llm.system",
        ]),
        request_model: text(&["gen_ai.request.model", "llm.model_name"]),
        response_model: text(&["gen_ai.response.model"]),
        input_tokens: count(&[
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.prompt_tokens",
            "llm.token_count.prompt",
        ]),
        output_tokens: count(&[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
            "llm.token_count.completion",
        ]),
        finish_reasons,
        operation: text(&["gen_ai.operation.name"]),
        span: span_facts(span),
    })
}

/// The tool runs a response written by the `otel` importer keeps the spans of, in the
/// order they started.
pub fn tool_spans(response: &Map<String, Value>) -> Vec<ToolSpan> {
    let mut found: Vec<ToolSpan> = spans(response)
        .filter_map(|span| {
            let attributes = attributes(span.get("attributes"));
            let name = ["gen_ai.tool.name", "tool.name"]
                .iter()
                .find_map(|key| attributes.get(*key).and_then(Value::as_str))?;
            let is_call = attributes
                .get("gen_ai.operation.name")
                .and_then(Value::as_str)
                == Some("execute_tool")
                || attributes
                    .get("openinference.span.kind")
                    .and_then(Value::as_str)
                    == Some("TOOL")
                || !attributes.contains_key("gen_ai.operation.name");
            is_call.then(|| ToolSpan {
                call_id: ["gen_ai.tool.call.id", "tool_call.id"]
                    .iter()
                    .find_map(|key| attributes.get(*key).and_then(Value::as_str))
                    .map(str::to_owned),
                name: name.to_owned(),
                span: span_facts(span),
            })
        })
        .collect();
    found.sort_by_key(|tool| tool.span.start_ns);
    found
}

/// The traces whose spans a response written by the `otel` importer keeps, sorted.
pub fn kept_traces(response: &Map<String, Value>) -> Vec<String> {
    let traces: std::collections::BTreeSet<String> = spans(response)
        .filter_map(|span| span.get("traceId").and_then(hex_id))
        .collect();
    traces.into_iter().collect()
}

/// The spans an `otlp` member keeps.
fn spans(response: &Map<String, Value>) -> impl Iterator<Item = &Map<String, Value>> {
    let resources = response
        .get("otlp")
        .and_then(|otlp| otlp.get("resourceSpans"))
        .and_then(Value::as_array);
    resources
        .into_iter()
        .flatten()
        .filter_map(|resource| resource.get("scopeSpans")?.as_array())
        .flatten()
        .filter_map(|scope| scope.get("spans")?.as_array())
        .flatten()
        .filter_map(Value::as_object)
}

fn span_facts(span: &Map<String, Value>) -> SpanFacts {
    let status = span.get("status").and_then(Value::as_object);
    let code = status.and_then(|s| s.get("code")).map(|code| match code {
        Value::Number(n) if n.as_u64() == Some(1) => "OK",
        Value::Number(n) if n.as_u64() == Some(2) => "ERROR",
        Value::String(s) if s.ends_with("OK") => "OK",
        Value::String(s) if s.ends_with("ERROR") => "ERROR",
        _ => "UNSET",
    });
    SpanFacts {
        trace_id: span.get("traceId").and_then(hex_id),
        span_id: span.get("spanId").and_then(hex_id),
        start_ns: span.get("startTimeUnixNano").and_then(count_of),
        end_ns: span.get("endTimeUnixNano").and_then(count_of),
        status: code,
        status_message: status
            .and_then(|s| s.get("message"))
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_owned),
    }
}

/// An OTLP JSON attribute list (`[{key, value: AnyValue}]`) as a map of plain JSON
/// values; a key given twice keeps its last value, as the SDKs do.
pub fn attributes(list: Option<&Value>) -> Map<String, Value> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let key = item.get("key")?.as_str()?;
            Some((
                key.to_owned(),
                item.get("value").map_or(Value::Null, any_value),
            ))
        })
        .collect()
}

/// An OTLP JSON `AnyValue` as a plain JSON value: strings, booleans and numbers as
/// they are (an `intValue` given as a string, as the OTLP JSON encoding writes int64,
/// read as a number when it is one), arrays and key-value lists as arrays and objects,
/// bytes as their base64 text.
pub fn any_value(value: &Value) -> Value {
    let Some(object) = value.as_object() else {
        return value.clone();
    };
    let Some((kind, inner)) = object.iter().next() else {
        return Value::Null;
    };
    match (kind.as_str(), inner) {
        ("intValue" | "int_value", Value::String(text)) => text
            .parse::<i64>()
            .map_or_else(|_| inner.clone(), Value::from),
        ("arrayValue" | "array_value", array) => Value::Array(
            array
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(any_value)
                .collect(),
        ),
        ("kvlistValue" | "kvlist_value", list) => Value::Object(attributes(list.get("values"))),
        _ => inner.clone(),
    }
}

/// A trace or span id as lower-case hex: given as hex (the OTLP JSON encoding) or as
/// base64 (protobuf's own JSON mapping, which some exporters write). `None` for an
/// empty or unreadable id.
pub fn hex_id(value: &Value) -> Option<String> {
    let text = value.as_str()?.trim();
    if text.is_empty() {
        return None;
    }
    if matches!(text.len(), 16 | 32) && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        // All zeros is the invalid id of the specification.
        return text
            .bytes()
            .any(|b| b != b'0')
            .then(|| text.to_ascii_lowercase());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(text))
        .ok()?;
    (matches!(bytes.len(), 8 | 16) && bytes.iter().any(|b| *b != 0)).then(|| hex::encode(bytes))
}

/// A non-negative count or time: a JSON number, or a string of digits (int64 and
/// fixed64 in the OTLP JSON encoding).
pub fn count_of(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => text.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_in_hex_or_base64() {
        assert_eq!(
            hex_id(&json!("4BF92F3577B34DA6A3CE929D0E0E4736")).as_deref(),
            Some("4bf92f3577b34da6a3ce929d0e0e4736")
        );
        assert_eq!(
            hex_id(&json!("S/kvNXezTaajzpKdDg5HNg==")).as_deref(),
            Some("4bf92f3577b34da6a3ce929d0e0e4736")
        );
        assert_eq!(
            hex_id(&json!("APBnqgupArc=")).as_deref(),
            Some("00f067aa0ba902b7")
        );
        assert_eq!(hex_id(&json!("")), None);
        assert_eq!(
            hex_id(&json!("AAAAAAAAAAA=")),
            None,
            "all-zero ids are invalid"
        );
        assert_eq!(hex_id(&json!("not an id")), None);
        assert_eq!(
            hex_id(&json!("0000000000000000")),
            None,
            "all-zero ids are invalid"
        );
    }

    #[test]
    fn any_values_become_plain_json() {
        let value = json!({"kvlistValue": {"values": [
            {"key": "n", "value": {"intValue": "42"}},
            {"key": "big", "value": {"intValue": "99999999999999999999"}},
            {"key": "list", "value": {"arrayValue": {"values": [{"boolValue": true}, {"doubleValue": 1.5}]}}},
            {"key": "s", "value": {"stringValue": "x"}}
        ]}});
        assert_eq!(
            any_value(&value),
            json!({"n": 42, "big": "99999999999999999999", "list": [true, 1.5], "s": "x"})
        );
        assert_eq!(any_value(&json!({})), Value::Null);
    }

    #[test]
    fn parts_are_calls_results_and_text() {
        let call = json!({"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Paris"}});
        let mut found = Vec::new();
        calls(call.as_object().expect("object"), &mut found);
        assert_eq!(found[0].arguments.as_deref(), Some("{\"city\":\"Paris\"}"));
        let response = json!({"type": "tool_call_response", "id": "c1", "response": "rainy"});
        let result = result(response.as_object().expect("object")).expect("a result");
        assert_eq!(
            (result.call_id.as_deref(), result.data.as_str()),
            (Some("c1"), "rainy")
        );
        let text = json!({"type": "text", "content": "hi"});
        assert_eq!(text_part(text.as_object().expect("object")), Some("hi"));
    }

    #[test]
    fn tool_spans_and_their_status() {
        let response = json!({"otlp": {"resourceSpans": [{"scopeSpans": [{"spans": [
            {"spanId": "00f067aa0ba902b8", "startTimeUnixNano": "20", "endTimeUnixNano": 35,
             "status": {"code": 2, "message": "boom"},
             "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                            {"key": "gen_ai.tool.name", "value": {"stringValue": "weather"}},
                            {"key": "gen_ai.tool.call.id", "value": {"stringValue": "c1"}}]},
            {"spanId": "00f067aa0ba902b9", "startTimeUnixNano": "10",
             "attributes": [{"key": "tool.name", "value": {"stringValue": "search"}},
                            {"key": "openinference.span.kind", "value": {"stringValue": "TOOL"}}]},
            {"spanId": "00f067aa0ba902ba",
             "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                            {"key": "gen_ai.tool.name", "value": {"stringValue": "not a run"}}]}
        ]}]}]}});
        let tools = tool_spans(response.as_object().expect("object"));
        assert_eq!(tools.len(), 2);
        assert_eq!(
            (tools[0].name.as_str(), tools[0].call_id.as_deref()),
            ("search", None)
        );
        assert_eq!(tools[1].call_id.as_deref(), Some("c1"));
        assert_eq!(tools[1].span.status, Some("ERROR"));
        assert_eq!(tools[1].span.status_message.as_deref(), Some("boom"));
        assert_eq!(
            (tools[1].span.start_ns, tools[1].span.end_ns),
            (Some(20), Some(35))
        );
    }
}
