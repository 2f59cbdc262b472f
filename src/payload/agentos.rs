//! AgentOS: `toolCalls: [{id, name, arguments}]` in a GMI output and
//! `ToolCallResult {toolCallId, toolName?, output, isError?}` results.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, items, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    for item in items(object, "toolCalls") {
        if let Some(name) = string(item, "name") {
            calls.push(ToolCall {
                call_id: owned_string(item, "id"),
                name: name.to_owned(),
                arguments: json_text(item.get("arguments")),
            });
        }
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    let call_id = owned_string(object, "toolCallId")?;
    object.contains_key("output").then(|| ToolResultFound {
        call_id: Some(call_id),
        name: owned_string(object, "toolName"),
        data: data_text(object.get("output")),
        is_error: object.get("isError").and_then(Value::as_bool),
    })
}
