//! OpenAI Chat Completions: `tool_calls: [{id, function: {name, arguments}}]` on the
//! assistant message, the legacy `function_call: {name, arguments}` (whose snake-case key
//! Gemini's Python SDK shares, with `args`), and `{role: "tool", tool_call_id, content}`
//! results.

use super::call::{ToolCall, ToolResultFound, single_call};
use super::fields::{data_text, items, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    for item in items(object, "tool_calls") {
        if let Some(function) = item.get("function").and_then(Value::as_object)
            && let Some(name) = string(function, "name")
        {
            calls.push(ToolCall {
                call_id: owned_string(item, "id"),
                name: name.to_owned(),
                arguments: json_text(function.get("arguments")),
            });
        }
    }
    calls.extend(single_call(object, "function_call"));
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    if string(object, "role") != Some("tool") {
        return None;
    }
    let call_id = owned_string(object, "tool_call_id")?;
    Some(ToolResultFound {
        call_id: Some(call_id),
        name: owned_string(object, "name"),
        data: data_text(object.get("content")),
        is_error: None,
    })
}
