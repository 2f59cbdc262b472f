//! OpenAI Harmony messages (gpt-oss), in their JSON form: a call is an assistant message
//! with a `recipient` (`functions.get_weather`, `browser.search`, `python`), its
//! arguments the message's content; the tool's reply is a `tool` message whose `name` is
//! that recipient. Harmony has no call ids: a reply answers the open call of its name.
//! The `functions.` namespace is left out of tool names; other namespaces stay.

use super::call::{ToolCall, ToolResultFound};
use super::fields::string;
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    if string(object, "role") != Some("assistant") {
        return;
    }
    let Some(recipient) = string(object, "recipient").filter(|r| *r != "all") else {
        return;
    };
    calls.push(ToolCall {
        call_id: None,
        name: tool_name(recipient).to_owned(),
        arguments: content_text(object.get("content")),
    });
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    // An OpenTelemetry GenAI tool message holds its results in `parts`, each a result
    // of its own.
    if string(object, "role")? != "tool"
        || object.contains_key("tool_call_id")
        || object.get("parts").is_some_and(Value::is_array)
    {
        return None;
    }
    let name = string(object, "name")?;
    Some(ToolResultFound {
        call_id: None,
        name: Some(tool_name(name).to_owned()),
        data: content_text(object.get("content")).unwrap_or_default(),
        is_error: None,
    })
}

fn tool_name(recipient: &str) -> &str {
    recipient.strip_prefix("functions.").unwrap_or(recipient)
}

/// A message's content: a string, or the text of its parts joined.
fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_go_to_a_recipient_and_replies_come_from_it() {
        let call = json!({"role": "assistant", "channel": "commentary", "recipient": "functions.get_weather",
                          "content_type": "<|constrain|>json", "content": "{\"location\":\"Zürich\"}"});
        let mut found = Vec::new();
        calls(call.as_object().expect("object"), &mut found);
        assert_eq!(found[0].name, "get_weather");
        assert_eq!(
            found[0].arguments.as_deref(),
            Some("{\"location\":\"Zürich\"}")
        );
        let plain = json!({"role": "assistant", "recipient": "all", "content": "hi"});
        calls(plain.as_object().expect("object"), &mut found);
        assert_eq!(found.len(), 1);
        let reply = json!({"role": "tool", "name": "browser.search", "content": [{"type": "text", "text": "r"}]});
        let result = result(reply.as_object().expect("object")).expect("a result");
        assert_eq!(
            (result.name.as_deref(), result.data.as_str()),
            (Some("browser.search"), "r")
        );
    }
}
