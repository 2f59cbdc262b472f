//! Gemini: `functionCall: {name, args, id?}` parts (the snake-case `function_call` is
//! read with OpenAI's legacy key) and `functionResponse`/`function_response:
//! {name, response, id?}` results; a `response` holding an `error` member is a failure
//! (the convention Gemini's documentation gives; others use `output` or `result`).

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
        .map(|response| {
            let body = response.get("response");
            let failed = body
                .and_then(Value::as_object)
                .is_some_and(|body| body.get("error").is_some_and(|e| !e.is_null()));
            ToolResultFound {
                call_id: owned_string(response, "id"),
                name: owned_string(response, "name"),
                data: data_text(body),
                is_error: failed.then_some(true),
            }
        })
}
