//! LangChain messages (`messages_to_dict`'s `data`, `dumpd`'s `kwargs`):
//! `tool_calls: [{name, args, id, type: "tool_call"}]` on an AI message, tool messages
//! `{tool_call_id, content, status?}`, where `status: "error"` is a failure, and function
//! messages `{type: "function", name, content}`, answering a legacy `function_call`.
//!
//! An AI message repeats its calls in the provider's own shape, in
//! `additional_kwargs.tool_calls` (OpenAI models) or as `tool_use` blocks in `content`
//! (Anthropic models): [`is_message`] tells the walker not to look there again.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, items, json_text, owned_string, string};
use serde_json::{Map, Value};

/// Whether `object` is a LangChain message's body: its own `tool_calls` are the calls,
/// and `additional_kwargs` and `content` only repeat them.
pub(super) fn is_message(object: &Map<String, Value>) -> bool {
    let Some(calls) = object.get("tool_calls").and_then(Value::as_array) else {
        return false;
    };
    // `dumpd` leaves an empty `additional_kwargs` out: the calls' own shape, or the
    // message's type, tells a LangChain message too.
    object.contains_key("additional_kwargs")
        || matches!(string(object, "type"), Some("ai" | "AIMessageChunk"))
        || calls.iter().any(|call| {
            call.get("args").is_some()
                || call.get("type").and_then(Value::as_str) == Some("tool_call")
        })
}

/// LangChain's `tool_calls: [{name, args, id}]`, and the same flat shape with
/// `arguments` that AgentOS persists (`[{id, name, arguments}]`); OpenAI's nested
/// `function` shape is read by its own file.
pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    for item in items(object, "tool_calls") {
        if item.contains_key("function") || item.contains_key("custom") {
            continue;
        }
        let Some(arguments) = item.get("args").or_else(|| item.get("arguments")) else {
            continue;
        };
        if let Some(name) = string(item, "name") {
            calls.push(ToolCall {
                call_id: owned_string(item, "id"),
                name: name.to_owned(),
                arguments: json_text(Some(arguments)),
            });
        }
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    if object.contains_key("role") || !object.contains_key("content") {
        return None;
    }
    if string(object, "type") == Some("function") && !object.contains_key("tool_call_id") {
        // A FunctionMessage: it answers the open `function_call` of its name.
        return Some(ToolResultFound {
            call_id: None,
            name: Some(owned_string(object, "name")?),
            data: data_text(object.get("content")),
            is_error: None,
        });
    }
    let call_id = owned_string(object, "tool_call_id")?;
    Some(ToolResultFound {
        call_id: Some(call_id),
        name: owned_string(object, "name"),
        data: data_text(object.get("content")),
        is_error: string(object, "status").map(|status| status == "error"),
    })
}
