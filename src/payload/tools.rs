//! Tool calls and tool results found in payloads, in the shapes real providers write:
//!
//! | family | call | result |
//! |---|---|---|
//! | OpenAI Chat | `tool_calls: [{id, function: {name, arguments}}]`, `[{id, custom: {name, input}}]`, legacy `function_call: {name, arguments}` | `{role: "tool", tool_call_id, content, metadata.isSuccess?}`, legacy `{role: "function", name, content}` |
//! | OpenAI Responses | `{type: "function_call" \| "custom_tool_call" \| "local_shell_call" \| "mcp_call", call_id, ...}` | `{type: "*_output", call_id, output}`; `mcp_call`'s own `output`/`error` |
//! | Anthropic | `{type: "tool_use", id, name, input}` | `{type: "tool_result", tool_use_id, content, is_error?}` |
//! | Gemini | `functionCall`/`function_call: {name, args, id?}` | `functionResponse`/`function_response: {name, response, id?}`, `response.error` a failure |
//! | LangChain | `tool_calls: [{name, args, id}]` (AgentOS: `arguments`) | `{tool_call_id, content, status?}` without `role`; `{type: "function", name, content}` |
//! | Harmony | `{role: "assistant", recipient, content}` | `{role: "tool", name, content}` |
//! | GLM | `function_calls: [{name, parameters}]` | (not marked) |
//! | PyALM | an entry's `code` (or v1 `function_calls: {original_call}`) | the same entry's `return_value` (`return`), `metadata.has_code_error` |
//! | AgentOS | `toolCalls: [{id, name, arguments}]` | `{toolCallId, toolName?, output, isError?}`, `{toolCallId, toolResult, isSuccess}` |
//! | OpenTelemetry GenAI | `{type: "tool_call", id?, name, arguments?}` parts | `{type: "tool_call_response", id?, response}` parts |
//!
//! Payloads are walked depth-first in document order, so calls nested in `output`,
//! `content`, `candidates` or `choices` arrays are found wherever they sit. A call is
//! counted once where a format repeats it: in a LangChain message, only its own
//! `tool_calls` count, not the provider-shaped copies in `additional_kwargs` and
//! `content`.

use super::call::{ToolCall, ToolResultFound};
use super::{agentos, anthropic, gemini, glm, harmony, langchain, openai, otel, responses};
use serde_json::{Map, Value};

/// Every tool call in a response payload, in document order.
///
/// ```
/// let response = serde_json::json!({"choices": [{"message": {"tool_calls": [
///     {"id": "call_1", "type": "function",
///      "function": {"name": "ReadFile", "arguments": "{\"path\":\"config.exs\"}"}}
/// ]}}]});
/// let calls = ihigraph::payload::find_tool_calls(response.as_object().unwrap());
/// assert_eq!(calls[0].name, "ReadFile");
/// assert_eq!(calls[0].call_id.as_deref(), Some("call_1"));
/// assert_eq!(calls[0].arguments.as_deref(), Some("{\"path\":\"config.exs\"}"));
/// ```
pub fn find_tool_calls(payload: &Map<String, Value>) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    walk_calls(payload, &mut calls);
    calls
}

/// Finds the calls of `object` and of every object nested in it, depth-first, but not
/// in the copies a LangChain message keeps of its own calls.
fn walk_calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    calls_in(object, calls);
    let copies = langchain::is_message(object);
    for (key, value) in object {
        if copies && matches!(key.as_str(), "additional_kwargs" | "content") {
            continue;
        }
        match value {
            Value::Object(child) => walk_calls(child, calls),
            Value::Array(items) => walk_call_items(items, calls),
            _ => {}
        }
    }
}

fn walk_call_items(items: &[Value], calls: &mut Vec<ToolCall>) {
    for item in items {
        match item {
            Value::Object(child) => walk_calls(child, calls),
            Value::Array(nested) => walk_call_items(nested, calls),
            _ => {}
        }
    }
}

/// Every tool result in a payload, in document order.
pub fn find_tool_results(payload: &Map<String, Value>) -> Vec<ToolResultFound> {
    let mut results = Vec::new();
    walk_objects(payload, &mut |object| {
        if let Some(result) = result_in(object) {
            results.push(result);
        }
    });
    results
}

/// Calls `visit` on `object` and every object nested in it, depth-first.
fn walk_objects(object: &Map<String, Value>, visit: &mut impl FnMut(&Map<String, Value>)) {
    visit(object);
    for value in object.values() {
        walk_value(value, visit);
    }
}

fn walk_value(value: &Value, visit: &mut impl FnMut(&Map<String, Value>)) {
    match value {
        Value::Object(object) => walk_objects(object, visit),
        Value::Array(items) => {
            for item in items {
                walk_value(item, visit);
            }
        }
        _ => {}
    }
}

/// The calls an object itself holds, in the order the shapes are tried.
fn calls_in(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    openai::calls(object, calls);
    gemini::calls(object, calls);
    responses::calls(object, calls);
    anthropic::calls(object, calls);
    langchain::calls(object, calls);
    harmony::calls(object, calls);
    glm::calls(object, calls);
    agentos::calls(object, calls);
    otel::calls(object, calls);
}

/// The result an object itself is, if any: the first shape that reads it as one.
fn result_in(object: &Map<String, Value>) -> Option<ToolResultFound> {
    openai::result(object)
        .or_else(|| responses::result(object))
        .or_else(|| anthropic::result(object))
        .or_else(|| gemini::result(object))
        .or_else(|| agentos::result(object))
        .or_else(|| langchain::result(object))
        .or_else(|| harmony::result(object))
        .or_else(|| glm::result(object))
        .or_else(|| otel::result(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[allow(clippy::needless_pass_by_value)] // Called with json! values.
    fn calls(payload: Value) -> Vec<(Option<String>, String, Option<String>)> {
        find_tool_calls(payload.as_object().expect("object"))
            .into_iter()
            .map(|c| (c.call_id, c.name, c.arguments))
            .collect()
    }

    fn call(
        id: Option<&str>,
        name: &str,
        arguments: &str,
    ) -> (Option<String>, String, Option<String>) {
        (
            id.map(str::to_owned),
            name.to_owned(),
            Some(arguments.to_owned()),
        )
    }

    #[test]
    fn every_call_shape() {
        assert_eq!(
            calls(
                json!({"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}]})
            ),
            [call(Some("a"), "f", "{\"x\":1}")]
        );
        assert_eq!(
            calls(json!({"function_call": {"name": "f", "arguments": "{}"}})),
            [call(None, "f", "{}")]
        );
        assert_eq!(
            calls(
                json!({"output": [{"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}]})
            ),
            [call(Some("c1"), "f", "{}")]
        );
        assert_eq!(
            calls(
                json!({"content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "tu", "name": "f", "input": {"q": "é"}}]})
            ),
            [call(Some("tu"), "f", "{\"q\":\"é\"}")]
        );
        assert_eq!(
            calls(serde_json::from_str(r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"n": 1.50}}}]}}]}"#).expect("JSON")),
            [call(None, "f", "{\"n\":1.50}")]
        );
        assert_eq!(
            calls(json!({"function_calls": [{"name": "f", "parameters": {"a": [1]}}]})),
            [call(None, "f", "{\"a\":[1]}")]
        );
        assert_eq!(
            calls(
                json!({"isFinal": false, "toolCalls": [{"id": "t1", "name": "f", "arguments": {}}]})
            ),
            [call(Some("t1"), "f", "{}")]
        );
    }

    #[test]
    fn every_result_shape() {
        let payload = json!({"messages": [
            {"role": "tool", "tool_call_id": "a", "content": "plain"},
            {"type": "function_call_output", "call_id": "c1", "output": "{\"ok\":true}"},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu", "content": [{"type": "text", "text": "x"}], "is_error": true}]},
            {"parts": [{"functionResponse": {"name": "f", "response": {"n": 1}}}]},
            {"toolCallId": "t1", "toolName": "f", "output": null, "isError": false}
        ]});
        let results = find_tool_results(payload.as_object().expect("object"));
        let summary: Vec<_> = results
            .iter()
            .map(|r| (r.call_id.as_deref(), r.data.as_str(), r.is_error))
            .collect();
        assert_eq!(
            summary,
            [
                (Some("a"), "plain", None),
                (Some("c1"), "{\"ok\":true}", None),
                (
                    Some("tu"),
                    "[{\"type\":\"text\",\"text\":\"x\"}]",
                    Some(true)
                ),
                (None, "{\"n\":1}", None),
                (Some("t1"), "null", Some(false)),
            ]
        );
        assert_eq!(results[3].name.as_deref(), Some("f"));
    }

    #[test]
    fn text_alone_has_no_calls() {
        assert!(calls(json!({"content": "no tools here", "type": "message"})).is_empty());
    }
}
