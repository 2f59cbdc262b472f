//! AgentOS: `toolCalls: [{id, name, arguments}]` in a GMI output,
//! `ToolCallResult {toolCallId, toolName?, output, isError?}` results, and the client
//! stream's `{toolCallId, toolName, toolResult, isSuccess}` result emissions.

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
    let flag = |key: &str| object.get(key).and_then(Value::as_bool);
    let (data, is_error) = if object.contains_key("output") {
        (object.get("output"), flag("isError"))
    } else if object.contains_key("toolResult") {
        (object.get("toolResult"), flag("isSuccess").map(|ok| !ok))
    } else {
        return None;
    };
    Some(ToolResultFound {
        call_id: Some(call_id),
        name: owned_string(object, "toolName"),
        data: data_text(data),
        is_error,
    })
}
