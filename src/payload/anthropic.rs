//! Anthropic Messages: `{type: "tool_use", id, name, input}` content blocks and
//! `{type: "tool_result", tool_use_id, content, is_error?}` results.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    if string(object, "type") == Some("tool_use")
        && let Some(name) = string(object, "name")
    {
        calls.push(ToolCall {
            call_id: owned_string(object, "id"),
            name: name.to_owned(),
            arguments: json_text(object.get("input")),
        });
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    (string(object, "type") == Some("tool_result")).then(|| ToolResultFound {
        call_id: owned_string(object, "tool_use_id"),
        name: None,
        data: data_text(object.get("content")),
        is_error: object.get("is_error").and_then(Value::as_bool),
    })
}
