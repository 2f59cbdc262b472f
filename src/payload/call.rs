//! What the payload shapes find: tool calls and tool results, and the call shape several
//! providers share.

use super::fields::{json_text, owned_string, string};
use serde_json::{Map, Value};

/// A tool call found in a response.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id, when the shape has one.
    pub call_id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text: kept as given when they arrived as a string,
    /// serialized when they arrived as JSON.
    pub arguments: Option<String>,
}

/// A tool result found in a prompt or response.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultFound {
    /// The call id it answers, when the shape has one.
    pub call_id: Option<String>,
    /// The tool's name, when the shape carries it.
    pub name: Option<String>,
    /// The data: a string result as it is, anything else as JSON text.
    pub data: String,
    /// The error flag, when the shape has one.
    pub is_error: Option<bool>,
}

/// The call an object holds under `key` as `{name, arguments | args, id?}`: OpenAI's
/// legacy `function_call`, Gemini's `functionCall` and its snake-case twin.
pub(super) fn single_call(object: &Map<String, Value>, key: &str) -> Option<ToolCall> {
    let call = object.get(key).and_then(Value::as_object)?;
    let name = string(call, "name")?;
    let arguments = call.get("arguments").or_else(|| call.get("args"));
    Some(ToolCall {
        call_id: owned_string(call, "id"),
        name: name.to_owned(),
        arguments: json_text(arguments),
    })
}
