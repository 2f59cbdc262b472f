//! GLM (PyALM) chat histories: `function_calls: [{name, parameters}]` on an assistant
//! entry; results are not marked (the next entry's content holds them).

use super::call::ToolCall;
use super::fields::{items, json_text, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    for item in items(object, "function_calls") {
        if let Some(name) = string(item, "name") {
            calls.push(ToolCall {
                call_id: None,
                name: name.to_owned(),
                arguments: json_text(item.get("parameters")),
            });
        }
    }
}
