//! OpenAI Chat Completions: `tool_calls: [{id, function: {name, arguments}}]` and custom
//! tools `[{id, custom: {name, input}}]` on the assistant message, the legacy
//! `function_call: {name, arguments}` (whose snake-case key Gemini's Python SDK shares,
//! with `args`), `{role: "tool", tool_call_id, content}` results (AgentOS adds
//! `metadata.isSuccess` to them), and legacy `{role: "function", name, content}` results,
//! which carry no id and answer the open call of that name.

use super::call::{ToolCall, ToolResultFound, single_call};
use super::fields::{data_text, items, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    for item in items(object, "tool_calls") {
        let called = ["function", "custom"].into_iter().find_map(|kind| {
            let function = item.get(kind).and_then(Value::as_object)?;
            let name = string(function, "name")?;
            let arguments = function.get("arguments").or_else(|| function.get("input"));
            Some((name, arguments))
        });
        if let Some((name, arguments)) = called {
            calls.push(ToolCall {
                call_id: owned_string(item, "id"),
                name: name.to_owned(),
                arguments: json_text(arguments),
            });
        }
    }
    calls.extend(single_call(object, "function_call"));
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    match string(object, "role")? {
        "tool" => {
            let call_id = owned_string(object, "tool_call_id")?;
            let failed = object
                .get("metadata")
                .and_then(|m| m.get("isSuccess"))
                .and_then(Value::as_bool)
                .map(|success| !success);
            Some(ToolResultFound {
                call_id: Some(call_id),
                name: owned_string(object, "name"),
                data: data_text(object.get("content")),
                is_error: failed,
            })
        }
        "function" => Some(ToolResultFound {
            call_id: None,
            name: Some(owned_string(object, "name")?),
            data: data_text(object.get("content")),
            is_error: None,
        }),
        _ => None,
    }
}
