//! OpenAI Responses: `{type: "function_call", call_id, name, arguments}` items and
//! `{type: "function_call_output", call_id, output}` results.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    if string(object, "type") == Some("function_call")
        && let Some(name) = string(object, "name")
    {
        calls.push(ToolCall {
            call_id: owned_string(object, "call_id").or_else(|| owned_string(object, "id")),
            name: name.to_owned(),
            arguments: json_text(object.get("arguments")),
        });
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    (string(object, "type") == Some("function_call_output")).then(|| ToolResultFound {
        call_id: owned_string(object, "call_id"),
        name: None,
        data: data_text(object.get("output")),
        is_error: None,
    })
}
