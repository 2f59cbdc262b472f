//! OpenAI Responses: `function_call {call_id, name, arguments}` and
//! `custom_tool_call {call_id, name, input}` items with their `*_output {call_id, output}`
//! results, `local_shell_call {call_id, action}` with its output, and `mcp_call`, which
//! holds the call and its `output` (or `error`) in one item.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, json_text, owned_string, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    let call_id = || owned_string(object, "call_id").or_else(|| owned_string(object, "id"));
    match string(object, "type") {
        Some("function_call" | "mcp_call") => {
            if let Some(name) = string(object, "name") {
                calls.push(ToolCall {
                    call_id: call_id(),
                    name: name.to_owned(),
                    arguments: json_text(object.get("arguments")),
                });
            }
        }
        Some("custom_tool_call") => {
            if let Some(name) = string(object, "name") {
                calls.push(ToolCall {
                    call_id: call_id(),
                    name: name.to_owned(),
                    arguments: json_text(object.get("input")),
                });
            }
        }
        Some("local_shell_call") => calls.push(ToolCall {
            call_id: call_id(),
            name: "local_shell".to_owned(),
            arguments: json_text(object.get("action")),
        }),
        _ => {}
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    match string(object, "type")? {
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            Some(ToolResultFound {
                call_id: owned_string(object, "call_id").or_else(|| owned_string(object, "id")),
                name: None,
                data: data_text(object.get("output")),
                is_error: None,
            })
        }
        "mcp_call" => {
            let error = object.get("error").filter(|e| !e.is_null());
            let output = object.get("output").filter(|o| !o.is_null());
            (error.is_some() || output.is_some()).then(|| ToolResultFound {
                call_id: owned_string(object, "id"),
                name: owned_string(object, "name"),
                data: data_text(error.or(output)),
                is_error: Some(error.is_some()),
            })
        }
        _ => None,
    }
}
