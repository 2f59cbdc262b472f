//! Gemini: `functionCall: {name, args, id?}` parts (the snake-case `function_call` is
//! read with OpenAI's legacy key) and `functionResponse`/`function_response:
//! {name, response, id?}` results.

use super::call::{ToolCall, ToolResultFound, single_call};
use super::fields::{data_text, owned_string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    calls.extend(single_call(object, "functionCall"));
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
