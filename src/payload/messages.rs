//! Payloads read as messages: who speaks (system, user, assistant, a tool) and what they
//! say, part by part, in the order the payload holds them. The parts are text, tool
//! calls, tool results, and what cannot be carried to another provider's shape (images,
//! audio, files, reasoning), named with the JSON Pointer of where it sits.
//!
//! A prompt reads as its system members (`system`, `instructions`, `systemInstruction`)
//! and the items of its `messages`, `input` or `contents` array; an answer as the message
//! of `choices[0]` or `candidates[0]`, the items of an `output` or `messages` array, or
//! the message it is. A payload in no message shape (a PGM-IHI document's own `{text}` or
//! `{responseText, toolCalls}`) reads as one message with the text of the documented
//! text rules, its calls and its results.

use super::call::{ToolCall, ToolResultFound};
use super::text::{PayloadKind, message_body, payload_text};
use super::tools::{find_tool_calls, find_tool_results};
use serde_json::{Map, Value};

/// Who speaks a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    /// The system prompt, or a developer message.
    System,
    /// The user (a human, or an agent prompting on its own).
    User,
    /// The model.
    Assistant,
    /// A tool's results.
    Tool,
}

/// One part of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Text, exactly as stored.
    Text(String),
    /// A tool call.
    Call(ToolCall),
    /// A tool result.
    Result(ToolResultFound),
    /// A part no other provider's shape can carry as it is.
    Other {
        /// What it is: `image`, `input_audio`, `thinking`, `reasoning`...
        kind: String,
        /// JSON Pointer of the part inside its payload.
        pointer: String,
    },
}

/// A message read from a payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Who speaks.
    pub speaker: Speaker,
    /// What they say, in order.
    pub parts: Vec<Part>,
    /// JSON Pointer of the message inside its payload (empty for the payload itself).
    pub pointer: String,
}

/// The messages of a prompt payload, system members first.
///
/// ```
/// use ihigraph::payload::{prompt_messages, Part, Speaker};
/// let prompt = serde_json::json!({"system": "Be brief.", "messages": [
///     {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "image", "source": {}}]}
/// ]});
/// let messages = prompt_messages(prompt.as_object().unwrap());
/// assert_eq!(messages[0].speaker, Speaker::System);
/// assert_eq!(messages[1].parts[0], Part::Text("Hi".into()));
/// assert!(matches!(&messages[1].parts[1], Part::Other { kind, pointer } if kind == "image" && pointer == "/messages/0/content/1"));
/// ```
pub fn prompt_messages(payload: &Map<String, Value>) -> Vec<Message> {
    let mut messages = system_members(payload);
    if let Some((key, items)) = ["messages", "input", "contents"]
        .into_iter()
        .find_map(|key| Some((key, payload.get(key)?.as_array()?)))
    {
        messages.extend(item_messages(
            items,
            &format!("/{key}"),
            PayloadKind::Prompt,
        ));
    } else if let Some(text) = payload.get("input").and_then(Value::as_str) {
        messages.push(Message {
            speaker: Speaker::User,
            parts: vec![Part::Text(text.to_owned())],
            pointer: "/input".to_owned(),
        });
    } else {
        messages.extend(whole_payload(payload, PayloadKind::Prompt));
    }
    messages
}

/// The messages a prompt adds to the conversation: those after its last assistant
/// message. A prompt may be the whole request as sent (the conversation so far, replayed)
/// or only what is new (as the importers write it); either way, these are the inputs
/// since the previous answer.
///
/// ```
/// use ihigraph::payload::{new_prompt_messages, Part};
/// let replayed = serde_json::json!({"messages": [
///     {"role": "user", "content": "one"}, {"role": "assistant", "content": "1"},
///     {"role": "user", "content": "two"}
/// ]});
/// let new = new_prompt_messages(replayed.as_object().unwrap());
/// assert_eq!(new.len(), 1);
/// assert_eq!(new[0].parts, [Part::Text("two".into())]);
/// ```
pub fn new_prompt_messages(payload: &Map<String, Value>) -> Vec<Message> {
    let mut messages = prompt_messages(payload);
    let start = messages
        .iter()
        .rposition(|message| message.speaker == Speaker::Assistant)
        .map_or(0, |last| last + 1);
    messages.drain(..start);
    messages
}

/// The messages of an answer payload.
///
/// ```
/// use ihigraph::payload::{answer_messages, Part, Speaker};
/// let answer = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": null,
///     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]});
/// let messages = answer_messages(answer.as_object().unwrap());
/// assert_eq!(messages[0].speaker, Speaker::Assistant);
/// assert!(matches!(&messages[0].parts[0], Part::Call(call) if call.name == "f"));
/// ```
pub fn answer_messages(payload: &Map<String, Value>) -> Vec<Message> {
    for (list, member) in [("choices", "message"), ("candidates", "content")] {
        if let Some(message) = payload
            .get(list)
            .and_then(|items| items.get(0))
            .and_then(|first| first.get(member))
            .and_then(Value::as_object)
        {
            let pointer = format!("/{list}/0/{member}");
            return read_item(message, &pointer, PayloadKind::Answer)
                .map(|mut message| {
                    message.speaker = Speaker::Assistant;
                    vec![message]
                })
                .unwrap_or_default();
        }
    }
    if let Some((key, items)) = ["output", "messages"]
        .into_iter()
        .find_map(|key| Some((key, payload.get(key)?.as_array()?)))
    {
        return item_messages(items, &format!("/{key}"), PayloadKind::Answer);
    }
    whole_payload(payload, PayloadKind::Answer)
}

/// `system` (a string or text blocks), `instructions`, `systemInstruction`.
fn system_members(payload: &Map<String, Value>) -> Vec<Message> {
    // Gemini's SDKs also put it in the request's `config` (google-genai's
    // `GenerateContentConfig.system_instruction`).
    let config = payload.get("config").and_then(Value::as_object);
    let places = [
        ("", payload, "system"),
        ("", payload, "instructions"),
        ("", payload, "systemInstruction"),
        ("", payload, "system_instruction"),
        // OpenTelemetry GenAI's `gen_ai.system_instructions`, as the otel importer keeps it.
        ("", payload, "system_instructions"),
    ]
    .into_iter()
    .chain(config.into_iter().flat_map(|config| {
        [
            ("/config", config, "systemInstruction"),
            ("/config", config, "system_instruction"),
        ]
    }));
    let mut found = Vec::new();
    for (container, members, key) in places {
        let pointer = format!("{container}/{key}");
        let parts = match members.get(key) {
            Some(Value::String(text)) => vec![Part::Text(text.clone())],
            Some(Value::Array(blocks)) => content_parts(blocks, &pointer),
            Some(Value::Object(content)) => match content.get("parts") {
                Some(Value::Array(parts)) => gemini_parts(parts, &format!("{pointer}/parts")),
                _ => continue,
            },
            _ => continue,
        };
        found.push(Message {
            speaker: Speaker::System,
            parts,
            pointer,
        });
    }
    found
}

fn item_messages(items: &[Value], pointer: &str, kind: PayloadKind) -> Vec<Message> {
    items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let pointer = format!("{pointer}/{index}");
            match item {
                Value::Object(object) => read_item(object, &pointer, kind),
                Value::String(text) => Some(Message {
                    speaker: default_speaker(kind),
                    parts: vec![Part::Text(text.clone())],
                    pointer,
                }),
                _ => None,
            }
        })
        .collect()
}

fn default_speaker(kind: PayloadKind) -> Speaker {
    match kind {
        PayloadKind::Prompt => Speaker::User,
        PayloadKind::Answer => Speaker::Assistant,
    }
}

/// One item of a message list: a message with a role (or wrapped, as Claude Code and
/// LangChain write them), or a typed item of the Responses API.
fn read_item(item: &Map<String, Value>, pointer: &str, kind: PayloadKind) -> Option<Message> {
    let Some((role, body)) = message_body(item) else {
        return typed_item(item, pointer, kind);
    };
    // Where the body sits, for pointers to its parts.
    let body_pointer = if std::ptr::eq(body, item) {
        pointer.to_owned()
    } else {
        let key = ["message", "data", "kwargs"]
            .into_iter()
            .chain(["user", "assistant"])
            .find(|key| {
                item.get(*key)
                    .and_then(Value::as_object)
                    .is_some_and(|b| std::ptr::eq(b, body))
            })
            .unwrap_or("message");
        format!("{pointer}/{key}")
    };
    let speaker = speaker_of(role);
    let parts = if speaker == Speaker::Tool {
        let results: Vec<Part> = find_tool_results(body)
            .into_iter()
            .map(Part::Result)
            .collect();
        if results.is_empty() {
            vec![other(role, &body_pointer)]
        } else {
            results
        }
    } else {
        body_parts(body, &body_pointer, kind)
    };
    Some(Message {
        speaker,
        parts,
        pointer: pointer.to_owned(),
    })
}

fn speaker_of(role: &str) -> Speaker {
    let role = role.to_ascii_lowercase();
    match role.as_str() {
        "system" | "developer" | "systemmessage" => Speaker::System,
        "assistant" | "ai" | "model" | "aimessage" => Speaker::Assistant,
        "tool" | "function" | "toolmessage" | "functionmessage" => Speaker::Tool,
        _ => Speaker::User,
    }
}

/// The parts of a message's body: its content (a string, or parts in order), its
/// calls, and text by the documented rules when it has no content.
fn body_parts(body: &Map<String, Value>, pointer: &str, kind: PayloadKind) -> Vec<Part> {
    // A Harmony message to a tool is a call whose content is the arguments; one on the
    // analysis channel is reasoning.
    if body
        .get("recipient")
        .and_then(Value::as_str)
        .is_some_and(|r| r != "all")
    {
        return find_tool_calls(body).into_iter().map(Part::Call).collect();
    }
    if body.get("channel").and_then(Value::as_str) == Some("analysis") {
        return vec![other("analysis", pointer)];
    }
    let mut parts = match (body.get("content"), body.get("parts")) {
        (Some(Value::String(text)), _) => vec![Part::Text(text.clone())],
        (Some(Value::Array(items)), _) => content_parts(items, &format!("{pointer}/content")),
        (_, Some(Value::Array(items))) => gemini_parts(items, &format!("{pointer}/parts")),
        _ => payload_text(body, kind)
            .map(Part::Text)
            .into_iter()
            .collect(),
    };
    if let Some(text) = body.get("refusal").and_then(Value::as_str) {
        parts.push(Part::Text(text.to_owned()));
    }
    // Calls held beside the content: OpenAI's and LangChain's `tool_calls`, the legacy
    // `function_call`, AgentOS's `toolCalls`, GLM's `function_calls`.
    let beside: Map<String, Value> = body
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), "content" | "parts" | "additional_kwargs"))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    for call in find_tool_calls(&beside) {
        // LangChain keeps a message's calls twice: in `tool_calls` and as `tool_use`
        // blocks of its content. One call is one call.
        let repeated = parts.iter().any(|part| {
            matches!(part, Part::Call(known) if known.call_id.is_some() && known.call_id == call.call_id)
        });
        if !repeated {
            parts.push(Part::Call(call));
        }
    }
    parts
}

/// Content parts in the shapes of OpenAI (Chat and Responses), Anthropic and LangChain.
fn content_parts(items: &[Value], pointer: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let pointer = format!("{pointer}/{index}");
        let Some(object) = item.as_object() else {
            if let Some(text) = item.as_str() {
                parts.push(Part::Text(text.to_owned()));
            }
            continue;
        };
        let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "text" | "input_text" | "output_text" => {
                if let Some(text) = object
                    .get("text")
                    .and_then(Value::as_str)
                    .or_else(|| super::otel::text_part(object))
                {
                    parts.push(Part::Text(text.to_owned()));
                }
            }
            "refusal" => {
                if let Some(text) = object.get("refusal").and_then(Value::as_str) {
                    parts.push(Part::Text(text.to_owned()));
                }
            }
            _ if kind.ends_with("tool_result") => {
                parts.extend(find_tool_results(object).into_iter().map(Part::Result));
            }
            _ => {
                let calls = find_tool_calls(object);
                if calls.is_empty() {
                    parts.push(other(if kind.is_empty() { "part" } else { kind }, &pointer));
                } else {
                    parts.extend(calls.into_iter().map(Part::Call));
                }
            }
        }
    }
    parts
}

/// Gemini's parts and OpenTelemetry GenAI's: text (not thoughts), calls and responses;
/// the rest by its type or member.
fn gemini_parts(items: &[Value], pointer: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let pointer = format!("{pointer}/{index}");
        let Some(object) = item.as_object() else {
            continue;
        };
        if object.get("thought").and_then(Value::as_bool) == Some(true) {
            parts.push(other("thought", &pointer));
        } else if let Some(text) = object
            .get("text")
            .and_then(Value::as_str)
            .or_else(|| super::otel::text_part(object))
        {
            parts.push(Part::Text(text.to_owned()));
        } else if let Some(result) = find_tool_results(object).into_iter().next() {
            parts.push(Part::Result(result));
        } else if let Some(call) = find_tool_calls(object).into_iter().next() {
            parts.push(Part::Call(call));
        } else {
            // An OpenTelemetry part names its kind (`reasoning`, `blob`...); a Gemini part
            // by its member.
            let kind = object
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_else(|| {
                    object
                        .keys()
                        .find(|key| {
                            !matches!(key.as_str(), "thoughtSignature" | "thought_signature")
                        })
                        .map_or("part", String::as_str)
                });
            parts.push(other(kind, &pointer));
        }
    }
    parts
}

/// A Responses item without a role: a call, a call's output, reasoning, or a
/// provider's own tool (web search, file search, computer use...).
fn typed_item(item: &Map<String, Value>, pointer: &str, kind: PayloadKind) -> Option<Message> {
    let calls = find_tool_calls(item);
    let results = find_tool_results(item);
    if calls.is_empty() && results.is_empty() {
        let kind_name = item.get("type").and_then(Value::as_str)?;
        // Reasoning and the provider's own tool calls are the model's output.
        let speaker = if kind_name == "reasoning" || kind_name.ends_with("_call") {
            Speaker::Assistant
        } else {
            default_speaker(kind)
        };
        return Some(Message {
            speaker,
            parts: vec![other(kind_name, pointer)],
            pointer: pointer.to_owned(),
        });
    }
    let speaker = if calls.is_empty() {
        Speaker::Tool
    } else {
        Speaker::Assistant
    };
    let parts = calls
        .into_iter()
        .map(Part::Call)
        .chain(results.into_iter().map(Part::Result))
        .collect();
    Some(Message {
        speaker,
        parts,
        pointer: pointer.to_owned(),
    })
}

/// A payload in no message shape: its text by the documented rules, its calls (answers)
/// and its results.
fn whole_payload(payload: &Map<String, Value>, kind: PayloadKind) -> Vec<Message> {
    if let Some(message) = message_body(payload).and(read_item(payload, "", kind)) {
        return vec![message];
    }
    let mut parts: Vec<Part> = payload_text(payload, kind)
        .map(Part::Text)
        .into_iter()
        .collect();
    if kind == PayloadKind::Answer {
        parts.extend(find_tool_calls(payload).into_iter().map(Part::Call));
    }
    let results: Vec<Part> = find_tool_results(payload)
        .into_iter()
        .map(Part::Result)
        .collect();
    let mut messages = Vec::new();
    if !parts.is_empty() || results.is_empty() {
        if parts.is_empty() && !payload.is_empty() {
            parts.push(other("payload", ""));
        }
        messages.push(Message {
            speaker: default_speaker(kind),
            parts,
            pointer: String::new(),
        });
    }
    if !results.is_empty() {
        let speaker = Speaker::Tool;
        let tool = Message {
            speaker,
            parts: results,
            pointer: String::new(),
        };
        // A prompt's results answer the calls before its text; an answer's own results
        // (tools the provider ran) follow its calls.
        match kind {
            PayloadKind::Prompt => messages.insert(0, tool),
            PayloadKind::Answer => messages.push(tool),
        }
    }
    messages.retain(|message| !message.parts.is_empty());
    messages
}

fn other(kind: &str, pointer: &str) -> Part {
    Part::Other {
        kind: kind.to_owned(),
        pointer: pointer.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(payload: &Value, kind: PayloadKind) -> Vec<(Speaker, Vec<Part>)> {
        let payload = payload.as_object().expect("object");
        let messages = match kind {
            PayloadKind::Prompt => prompt_messages(payload),
            PayloadKind::Answer => answer_messages(payload),
        };
        messages.into_iter().map(|m| (m.speaker, m.parts)).collect()
    }

    fn text(text: &str) -> Part {
        Part::Text(text.to_owned())
    }

    fn call(id: Option<&str>, name: &str, arguments: &str) -> Part {
        Part::Call(ToolCall {
            call_id: id.map(str::to_owned),
            name: name.to_owned(),
            arguments: Some(arguments.to_owned()),
        })
    }

    fn result(id: Option<&str>, name: Option<&str>, data: &str, is_error: Option<bool>) -> Part {
        Part::Result(ToolResultFound {
            call_id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            data: data.to_owned(),
            is_error,
        })
    }

    #[test]
    fn a_gemini_config_holds_the_system_instruction_too() {
        let prompt = json!({"model": "gemini-2.5-flash",
            "config": {"system_instruction": {"parts": [{"text": "Sei knapp."}]}, "temperature": 0},
            "contents": [{"role": "user", "parts": [{"text": "Hallo"}]}]});
        assert_eq!(
            read(&prompt, PayloadKind::Prompt),
            [
                (Speaker::System, vec![text("Sei knapp.")]),
                (Speaker::User, vec![text("Hallo")]),
            ]
        );
        let camel = json!({"config": {"systemInstruction": "Be brief."}, "contents": []});
        assert_eq!(
            read(&camel, PayloadKind::Prompt),
            [(Speaker::System, vec![text("Be brief.")])]
        );
    }

    #[test]
    fn openai_chat_messages_with_calls_and_results() {
        let prompt = json!({"model": "m", "messages": [
            {"role": "system", "content": "S"},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"}
        ]});
        assert_eq!(
            read(&prompt, PayloadKind::Prompt),
            [
                (Speaker::System, vec![text("S")]),
                (
                    Speaker::User,
                    vec![text("a"), other("image_url", "/messages/1/content/1")]
                ),
                (Speaker::Assistant, vec![call(Some("c1"), "f", "{}")]),
                (Speaker::Tool, vec![result(Some("c1"), None, "r", None)]),
            ]
        );
    }

    #[test]
    fn anthropic_blocks_keep_their_order() {
        let prompt = json!({"system": [{"type": "text", "text": "S1"}, {"type": "text", "text": "S2"}], "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "4", "is_error": true}, {"type": "text", "text": "and?"}]}
        ]});
        assert_eq!(
            read(&prompt, PayloadKind::Prompt),
            [
                (Speaker::System, vec![text("S1"), text("S2")]),
                (
                    Speaker::User,
                    vec![result(Some("t"), None, "4", Some(true)), text("and?")]
                ),
            ]
        );
        let answer = json!({"type": "message", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm", "signature": "s"},
            {"type": "text", "text": "Let me see."},
            {"type": "tool_use", "id": "t2", "name": "calc", "input": {"e": "2+2"}}
        ]});
        assert_eq!(
            read(&answer, PayloadKind::Answer),
            [(
                Speaker::Assistant,
                vec![
                    other("thinking", "/content/0"),
                    text("Let me see."),
                    call(Some("t2"), "calc", "{\"e\":\"2+2\"}")
                ]
            )]
        );
    }

    #[test]
    fn responses_items_and_instructions() {
        let prompt = json!({"instructions": "I", "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "q"}]},
            {"type": "function_call", "call_id": "k", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "k", "output": "o"},
            {"type": "reasoning", "summary": []}
        ]});
        assert_eq!(
            read(&prompt, PayloadKind::Prompt),
            [
                (Speaker::System, vec![text("I")]),
                (Speaker::User, vec![text("q")]),
                (Speaker::Assistant, vec![call(Some("k"), "f", "{}")]),
                (Speaker::Tool, vec![result(Some("k"), None, "o", None)]),
                (Speaker::Assistant, vec![other("reasoning", "/input/3")]),
            ]
        );
        assert_eq!(
            read(&json!({"input": "plain"}), PayloadKind::Prompt),
            [(Speaker::User, vec![text("plain")])]
        );
    }

    #[test]
    fn gemini_contents_and_candidates() {
        let prompt = json!({"systemInstruction": {"parts": [{"text": "S"}]}, "contents": [
            {"role": "user", "parts": [{"text": "q"}, {"inlineData": {"mimeType": "image/png", "data": ""}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"x": 1}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": 2}}}]}
        ]});
        assert_eq!(
            read(&prompt, PayloadKind::Prompt),
            [
                (Speaker::System, vec![text("S")]),
                (
                    Speaker::User,
                    vec![text("q"), other("inlineData", "/contents/0/parts/1")]
                ),
                (Speaker::Assistant, vec![call(None, "f", "{\"x\":1}")]),
                (
                    Speaker::User,
                    vec![result(None, Some("f"), "{\"output\":2}", None)]
                ),
            ]
        );
        let answer = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "t", "thought": true}, {"text": "a"}]}}]});
        assert_eq!(
            read(&answer, PayloadKind::Answer),
            [(
                Speaker::Assistant,
                vec![other("thought", "/candidates/0/content/parts/0"), text("a")]
            )]
        );
    }

    #[test]
    fn wrapped_messages_and_plain_payloads() {
        let prompt = json!({"messages": [
            {"type": "human", "data": {"content": "lc"}},
            {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "i", "type": "tool_call"}]}},
            {"type": "tool", "data": {"content": "r", "tool_call_id": "i"}}
        ]});
        assert_eq!(
            read(&prompt, PayloadKind::Prompt),
            [
                (Speaker::User, vec![text("lc")]),
                (
                    Speaker::Assistant,
                    vec![text(""), call(Some("i"), "f", "{}")]
                ),
                (Speaker::Tool, vec![result(Some("i"), None, "r", None)]),
            ]
        );
        assert_eq!(
            read(
                &json!({"text": "hi", "channel": "chat"}),
                PayloadKind::Prompt
            ),
            [(Speaker::User, vec![text("hi")])]
        );
        let answer = json!({"responseText": "ok", "toolCalls": [{"id": "k", "name": "n", "arguments": {"a": 1}}]});
        assert_eq!(
            read(&answer, PayloadKind::Answer),
            [(
                Speaker::Assistant,
                vec![text("ok"), call(Some("k"), "n", "{\"a\":1}")]
            )]
        );
        let tool_only = json!({"type": "tool_response", "content": [{"toolCallId": "k", "toolName": "n", "output": {"v": 1}}]});
        assert_eq!(
            read(&tool_only, PayloadKind::Prompt),
            [(
                Speaker::Tool,
                vec![result(Some("k"), Some("n"), "{\"v\":1}", None)]
            )]
        );
        assert_eq!(
            read(&json!({"x": 1}), PayloadKind::Prompt),
            [(Speaker::User, vec![other("payload", "")])]
        );
    }

    #[test]
    fn harmony_calls_and_analysis() {
        let answer = json!({"messages": [
            {"role": "assistant", "channel": "analysis", "content": "think"},
            {"role": "assistant", "channel": "commentary", "recipient": "functions.f", "content": "{\"a\":1}"},
            {"role": "tool", "name": "functions.f", "content": "2"},
            {"role": "assistant", "channel": "final", "content": "done"}
        ]});
        assert_eq!(
            read(&answer, PayloadKind::Answer),
            [
                (Speaker::Assistant, vec![other("analysis", "/messages/0")]),
                (Speaker::Assistant, vec![call(None, "f", "{\"a\":1}")]),
                (Speaker::Tool, vec![result(None, Some("f"), "2", None)]),
                (Speaker::Assistant, vec![text("done")]),
            ]
        );
    }
}
