//! Anthropic Messages: `{type: "tool_use", id, name, input}` content blocks and
//! `{type: "tool_result", tool_use_id, content, is_error?}` results; tools Anthropic runs
//! itself (`server_tool_use`, `mcp_tool_use`) with their `*_tool_result` blocks, whose
//! failures are `is_error` or a content of a type ending in `_error`.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    if matches!(
        string(object, "type"),
        Some("tool_use" | "server_tool_use" | "mcp_tool_use")
    ) && let Some(name) = string(object, "name")
    {
        calls.push(ToolCall {
            call_id: owned_string(object, "id"),
            name: name.to_owned(),
            arguments: json_text(object.get("input")),
        });
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    let kind = string(object, "type")?;
    if !kind.ends_with("tool_result") || !object.contains_key("tool_use_id") {
        return None;
    }
    let content = object.get("content");
    let failed_content = content
        .and_then(|c| c.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t.ends_with("_error"));
    let flag = object.get("is_error").and_then(Value::as_bool);
    Some(ToolResultFound {
        call_id: owned_string(object, "tool_use_id"),
        name: None,
        data: data_text(content),
        is_error: if failed_content { Some(true) } else { flag },
    })
}
