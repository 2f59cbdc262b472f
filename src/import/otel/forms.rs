//! The messages of a model call, in whichever form its emitter wrote them, as messages
//! of the current GenAI conventions: `{role, parts: [...], name?, finish_reason?}`
//! with `text`, `tool_call` and `tool_call_response` parts.
//!
//! Forms read, the first that holds the call's input (or output) wins:
//! 1. `gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`:
//!    span attributes, or attributes (or body members) of a
//!    `gen_ai.client.inference.operation.details` event (a log record naming the span,
//!    or a span event); a JSON string or structured;
//!    the 2024 span events `gen_ai.content.prompt` and `gen_ai.content.completion`
//!    (their `gen_ai.prompt` and `gen_ai.completion` attributes);
//! 2. the per-message events (`gen_ai.system.message`, `gen_ai.user.message`,
//!    `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`), log records or
//!    span events, their body (or `gen_ai.event.content`) the message;
//! 3. indexed attributes: `gen_ai.prompt.N.*` and `gen_ai.completion.N.*` (OpenLLMetry),
//!    `llm.input_messages.N.message.*` and `llm.output_messages.N.message.*`
//!    (OpenInference).

use super::read::{Log, Span};
use serde_json::{Map, Value, json};

/// What a model call's telemetry holds of its messages.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct CallMessages {
    /// The system instructions, as parts.
    pub system: Option<Value>,
    /// The input messages, when captured.
    pub input: Option<Vec<Value>>,
    /// The output messages, when captured.
    pub output: Option<Vec<Value>>,
}

/// The messages of the model call `span`, `logs` being the log records that name it.
pub(super) fn call_messages(span: &Span, logs: &[&Log]) -> CallMessages {
    let details: Vec<&Map<String, Value>> = span
        .events
        .iter()
        .filter(|(name, _)| name == "gen_ai.client.inference.operation.details")
        .map(|(_, attributes)| attributes)
        .chain(
            logs.iter()
                .filter(|log| {
                    log.event_name.as_deref() == Some("gen_ai.client.inference.operation.details")
                })
                .flat_map(|log| [&log.attributes].into_iter().chain(log.body.as_object())),
        )
        .collect();
    let current = |key: &str| {
        std::iter::once(&span.attributes)
            .chain(details.iter().copied())
            .find_map(|attributes| attributes.get(key))
            .and_then(structured)
    };
    let mut found = CallMessages {
        system: current("gen_ai.system_instructions"),
        input: current("gen_ai.input.messages").and_then(messages_of),
        output: current("gen_ai.output.messages").and_then(messages_of),
    };
    let (events_input, events_output) = event_messages(span, logs);
    let (content_input, content_output) = content_events(span);
    found.input = found.input.or(content_input);
    found.output = found.output.or(content_output);
    let (indexed_input, indexed_output) = indexed_messages(&span.attributes);
    found.input = found.input.or(events_input).or(indexed_input);
    found.output = found.output.or(events_output).or(indexed_output);
    found
}

/// A value given as JSON text or as JSON.
fn structured(value: &Value) -> Option<Value> {
    match value {
        Value::String(text) => serde_json::from_str(text).ok(),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

fn messages_of(value: Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) => Some(items.into_iter().map(message_of).collect()),
        _ => None,
    }
}

/// A message in the current shape as it is; one in OpenAI's shape (`content`,
/// `tool_calls`, `tool_call_id`), as older instrumentations and the per-message events
/// write them, in the current shape.
pub(super) fn message_of(value: Value) -> Value {
    let Value::Object(mut message) = value else {
        return value;
    };
    if message.contains_key("parts") {
        return Value::Object(message);
    }
    let mut parts = Vec::new();
    // A tool message's call id: `tool_call_id` (OpenAI), `id` (the `gen_ai.tool.message`
    // event's body).
    let is_tool = message.get("role").and_then(Value::as_str) == Some("tool");
    let tool_call_id = message
        .remove("tool_call_id")
        .or_else(|| is_tool.then(|| message.remove("id")).flatten());
    match message.remove("content") {
        Some(Value::String(text)) if tool_call_id.is_some() => parts.push(json!(
            {"type": "tool_call_response", "id": tool_call_id.clone(), "response": text}
        )),
        Some(Value::String(text)) => parts.push(json!({"type": "text", "content": text})),
        Some(Value::Array(items)) => parts.extend(items.into_iter().map(|item| match item {
            Value::String(text) => json!({"type": "text", "content": text}),
            Value::Object(mut part) => {
                if part.get("type").and_then(Value::as_str) == Some("text")
                    && let Some(text) = part.remove("text")
                {
                    part.insert("content".to_owned(), text);
                }
                Value::Object(part)
            }
            other => other,
        })),
        Some(Value::Null) | None => {}
        Some(other) if tool_call_id.is_some() => parts.push(json!(
            {"type": "tool_call_response", "id": tool_call_id.clone(), "response": other}
        )),
        Some(other) => parts.push(json!({"type": "text", "content": other})),
    }
    if let Some(Value::Array(calls)) = message.remove("tool_calls") {
        parts.extend(calls.into_iter().filter_map(|call| {
            let function = call.get("function").cloned().unwrap_or(Value::Null);
            let name = call.get("name").or_else(|| function.get("name"))?.clone();
            let arguments = call
                .get("arguments")
                .or_else(|| function.get("arguments"))
                .cloned();
            let mut part =
                json!({"type": "tool_call", "id": call.get("id").cloned(), "name": name});
            if let Some(arguments) = arguments {
                part["arguments"] = arguments;
            }
            Some(part)
        }));
    }
    if let Some(id) = tool_call_id
        && parts.is_empty()
    {
        parts.push(json!({"type": "tool_call_response", "id": id, "response": ""}));
    }
    message.insert("parts".to_owned(), Value::Array(parts));
    Value::Object(message)
}

/// Form 1b, the conventions of 2024 (semconv 1.26 and 1.27): span events
/// `gen_ai.content.prompt` and `gen_ai.content.completion`, whose `gen_ai.prompt` and
/// `gen_ai.completion` attributes hold the messages as JSON text in OpenAI's shape.
fn content_events(span: &Span) -> (Option<Vec<Value>>, Option<Vec<Value>>) {
    let event = |name: &str, key: &str| {
        span.events
            .iter()
            .find(|(event, _)| event == name)
            .and_then(|(_, attributes)| attributes.get(key))
            .and_then(structured)
            .and_then(messages_of)
    };
    (
        event("gen_ai.content.prompt", "gen_ai.prompt"),
        event("gen_ai.content.completion", "gen_ai.completion"),
    )
}

/// Form 2: the per-message events, input ones in order and the choices.
fn event_messages(span: &Span, logs: &[&Log]) -> (Option<Vec<Value>>, Option<Vec<Value>>) {
    let mut events: Vec<(u64, &str, Value)> = Vec::new();
    for (name, attributes) in &span.events {
        let body = attributes
            .get("gen_ai.event.content")
            .and_then(structured)
            .unwrap_or_else(|| Value::Object(attributes.clone()));
        events.push((0, name, body));
    }
    for log in logs {
        if let Some(name) = &log.event_name {
            events.push((log.time.unwrap_or(0), name, log.body.clone()));
        }
    }
    let (mut input, mut output) = (Vec::new(), Vec::new());
    for (_, name, body) in events {
        let role = match name {
            "gen_ai.system.message" => "system",
            "gen_ai.user.message" => "user",
            "gen_ai.assistant.message" => "assistant",
            "gen_ai.tool.message" => "tool",
            "gen_ai.choice" => {
                let mut message = body.get("message").cloned().unwrap_or(json!({}));
                if let (Some(message), Some(reason)) =
                    (message.as_object_mut(), body.get("finish_reason"))
                {
                    message.insert("finish_reason".to_owned(), reason.clone());
                    message
                        .entry("role")
                        .or_insert_with(|| Value::from("assistant"));
                }
                output.push(message_of(message));
                continue;
            }
            _ => continue,
        };
        let mut body = match body {
            Value::Object(object) => object,
            Value::String(text) => Map::from_iter([("content".to_owned(), Value::String(text))]),
            _ => Map::new(),
        };
        body.entry("role").or_insert_with(|| Value::from(role));
        input.push(message_of(Value::Object(body)));
    }
    (
        (!input.is_empty()).then_some(input),
        (!output.is_empty()).then_some(output),
    )
}

/// Form 3: indexed attributes, gathered into messages by index.
fn indexed_messages(attributes: &Map<String, Value>) -> (Option<Vec<Value>>, Option<Vec<Value>>) {
    let input = indexed(attributes, "gen_ai.prompt.", "")
        .or_else(|| indexed(attributes, "llm.input_messages.", "message."));
    let output = indexed(attributes, "gen_ai.completion.", "")
        .or_else(|| indexed(attributes, "llm.output_messages.", "message."));
    (input, output)
}

/// The messages under `prefix` `N.` `inner`: each index's members as a nested object
/// (`tool_calls.0.tool_call.function.name` becomes `tool_calls[0].function.name`), then
/// read as [`message_of`] reads OpenAI's shape.
fn indexed(attributes: &Map<String, Value>, prefix: &str, inner: &str) -> Option<Vec<Value>> {
    let mut by_index: std::collections::BTreeMap<u64, Value> = std::collections::BTreeMap::new();
    for (key, value) in attributes {
        let Some(rest) = key.strip_prefix(prefix) else {
            continue;
        };
        let Some((index, path)) = rest.split_once('.') else {
            continue;
        };
        let (Ok(index), Some(path)) = (index.parse::<u64>(), path.strip_prefix(inner)) else {
            continue;
        };
        let entry = by_index.entry(index).or_insert_with(|| json!({}));
        insert_path(entry, path, value.clone());
    }
    if by_index.is_empty() {
        return None;
    }
    Some(
        by_index
            .into_values()
            .map(|message| message_of(openinference_message(message)))
            .collect(),
    )
}

/// Sets `path` (dotted, numbers index arrays) inside `target`; OpenInference's
/// `tool_call.` and `message_content.` wrappers are dropped on the way.
fn insert_path(target: &mut Value, path: &str, value: Value) {
    let mut node = target;
    let segments: Vec<&str> = path
        .split('.')
        .filter(|s| !matches!(*s, "tool_call" | "message_content"))
        .collect();
    for (position, segment) in segments.iter().enumerate() {
        let last = position + 1 == segments.len();
        if let Ok(index) = segment.parse::<usize>() {
            if !node.is_array() {
                *node = Value::Array(Vec::new());
            }
            let Some(items) = node.as_array_mut() else {
                return;
            };
            // Indexes come from input: a gap is filled, a huge one ignored.
            if index > items.len() + 1024 {
                return;
            }
            while items.len() <= index {
                items.push(json!({}));
            }
            node = &mut items[index];
        } else {
            if !node.is_object() {
                *node = json!({});
            }
            let Some(object) = node.as_object_mut() else {
                return;
            };
            node = object.entry(*segment).or_insert(Value::Null);
        }
        if last {
            *node = value;
            return;
        }
        if node.is_null() {
            *node = json!({});
        }
    }
}

/// OpenInference writes multi-part content as `contents: [{type, text}]` and a call's
/// arguments under `function.arguments`: the shapes [`message_of`] reads.
fn openinference_message(mut message: Value) -> Value {
    if let Some(object) = message.as_object_mut()
        && let Some(contents) = object.remove("contents")
        && !object.contains_key("content")
    {
        object.insert("content".to_owned(), contents);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_shapes_become_parts() {
        let message = message_of(json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}));
        assert_eq!(
            message,
            json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": "{}"}]})
        );
        let tool = message_of(json!({"role": "tool", "tool_call_id": "c1", "content": "42"}));
        assert_eq!(
            tool,
            json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "42"}]})
        );
    }

    #[test]
    fn indexed_attributes_gather_by_index() {
        let attributes: Map<String, Value> = serde_json::from_value(json!({
            "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "second",
            "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "first",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.tool_calls.0.id": "c", "gen_ai.completion.0.tool_calls.0.name": "f",
            "gen_ai.completion.0.tool_calls.0.arguments": "{\"a\":1}",
            "gen_ai.prompt.99999999999.role": "user"
        }))
        .expect("map");
        let (input, output) = indexed_messages(&attributes);
        let input = input.expect("input");
        assert_eq!(input[0]["parts"][0]["content"], "first");
        assert_eq!(input[1]["parts"][0]["content"], "second");
        assert_eq!(output.expect("output")[0]["parts"][0]["name"], "f");
    }

    #[test]
    fn openinference_attributes() {
        let attributes: Map<String, Value> = serde_json::from_value(json!({
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.contents.0.message_content.type": "text",
            "llm.input_messages.0.message.contents.0.message_content.text": "hi",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "t1",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "search",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}"
        }))
        .expect("map");
        let (input, output) = indexed_messages(&attributes);
        assert_eq!(
            input.expect("input")[0]["parts"],
            json!([{"type": "text", "content": "hi"}])
        );
        assert_eq!(
            output.expect("output")[0]["parts"],
            json!([{"type": "tool_call", "id": "t1", "name": "search", "arguments": "{}"}])
        );
    }
}
