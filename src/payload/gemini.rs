//! Gemini: `functionCall: {name, args, id?}` parts (the snake-case `function_call` is
//! read with OpenAI's legacy key) and `functionResponse`/`function_response:
//! {name, response, id?}` results.

use super::fields::{data_text, json_text, owned_string, string};
use super::tools::{ToolCall, ToolResultFound};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    if let Some(call) = object.get("functionCall").and_then(Value::as_object)
        && let Some(name) = string(call, "name")
    {
        let arguments = call.get("arguments").or_else(|| call.get("args"));
        calls.push(ToolCall {
            call_id: owned_string(call, "id"),
            name: name.to_owned(),
            arguments: json_text(arguments),
        });
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    ["functionResponse", "function_response"]
        .into_iter()
        .find_map(|key| object.get(key).and_then(Value::as_object))
        .map(|response| ToolResultFound {
            call_id: owned_string(response, "id"),
            name: owned_string(response, "name"),
            data: data_text(response.get("response")),
            is_error: None,
        })
}
