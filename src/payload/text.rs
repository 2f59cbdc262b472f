//! The text of a prompt or answer payload, by documented rules; the first that matches
//! wins:
//!
//! 1. a string member `Text`, `text`, `content` or `Content` (answers also
//!    `responseText`), in that order;
//! 2. the text of the text parts of a `content` array (parts of type `text`,
//!    `input_text` or `output_text`), or of a Gemini `parts` array (parts with a `text`,
//!    reasoning parts marked `thought` left out), joined with newlines (when there is at
//!    least one such part), or of an OpenTelemetry GenAI `parts` array (parts of type
//!    `text`, their `content`);
//! 3. the text of the message a payload is, when it wraps one (Claude Code's `{type,
//!    message}`, LangChain's `{type, data}` and `{lc, kwargs}`); else the text of the
//!    last user message (prompts) or assistant message (answers; Harmony tool calls,
//!    those with a `recipient`, and `analysis` messages left out) of a
//!    `messages`, `contents` or `input` array, read by rules 1 and 2. A message is
//!    `{role, ...}`, Claude Code's `{type, message: {role, ...}}`, LangChain's
//!    `{type, data: {...}}` or `{lc, id: [..., "HumanMessage"], kwargs: {...}}`; user
//!    messages have role `user` or `human`, assistant messages `assistant`, `ai` or
//!    `model`, in any case; a GLM spec entry `{"user": {...}}` is a message too, and a
//!    payload that is one such entry is read as its body;
//! 4. for prompts, an `input` string (OpenAI Responses);
//! 5. for answers, the text of `choices[0].message` (OpenAI Chat) or
//!    `candidates[0].content` (Gemini), read by rules 1 and 2, or of every assistant
//!    message of an `output` array (OpenAI Responses), joined with newlines.
//!
//! A payload none of them match has no text, and gets no text triple.

use serde_json::{Map, Value};

/// Which side of a turn a payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadKind {
    /// `PRCPrompt`.
    Prompt,
    /// `BKNResponse`.
    Answer,
}

/// The text of a payload by the rules above, if it has one.
///
/// ```
/// use ihigraph::payload::{payload_text, PayloadKind};
/// let prompt = serde_json::json!({"messages": [
///     {"role": "user", "content": "first"},
///     {"role": "assistant", "content": "reply"},
///     {"role": "user", "content": [{"type": "text", "text": "second"}, {"type": "image"}]}
/// ]});
/// let prompt = prompt.as_object().unwrap();
/// assert_eq!(payload_text(prompt, PayloadKind::Prompt).as_deref(), Some("second"));
/// assert_eq!(payload_text(prompt, PayloadKind::Answer).as_deref(), Some("reply"));
/// ```
pub fn payload_text(payload: &Map<String, Value>, kind: PayloadKind) -> Option<String> {
    if let Some((_, entry)) = glm_entry(payload) {
        return direct_text(entry, kind);
    }
    if let Some(text) = direct_text(payload, kind) {
        return Some(text);
    }
    if let Some((_, body)) = wrapped_message(payload) {
        return direct_text(body, kind);
    }
    if let Some(messages) = ["messages", "contents", "input"]
        .into_iter()
        .find_map(|key| payload.get(key).and_then(Value::as_array))
        && let Some(body) = messages
            .iter()
            .rev()
            .filter_map(Value::as_object)
            .filter(|message| kind == PayloadKind::Prompt || !is_call_or_reasoning(message))
            .filter_map(message_body)
            .find(|(role, _)| has_role(role, kind))
            .map(|(_, body)| body)
    {
        return direct_text(body, kind);
    }
    match kind {
        PayloadKind::Prompt => payload
            .get("input")
            .and_then(Value::as_str)
            .map(str::to_owned),
        PayloadKind::Answer => answer_text(payload),
    }
}

/// Rule 5.
fn answer_text(payload: &Map<String, Value>) -> Option<String> {
    let first = |list: &str, member: &str| {
        payload
            .get(list)
            .and_then(|c| c.get(0))
            .and_then(|c| c.get(member))
            .and_then(Value::as_object)
    };
    if let Some(message) = first("choices", "message").or_else(|| first("candidates", "content")) {
        return direct_text(message, PayloadKind::Answer);
    }
    let texts: Vec<String> = payload
        .get("output")
        .and_then(Value::as_array)?
        .iter()
        .filter_map(Value::as_object)
        .filter(|item| item.get("role").and_then(Value::as_str) == Some("assistant"))
        .filter_map(|item| direct_text(item, PayloadKind::Answer))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// Whether a message role is the one `kind` reads: the user's for prompts, the model's
/// for answers.
fn has_role(role: &str, kind: PayloadKind) -> bool {
    let roles: &[&str] = match kind {
        PayloadKind::Prompt => &["user", "human"],
        PayloadKind::Answer => &["assistant", "ai", "model"],
    };
    roles.iter().any(|wanted| role.eq_ignore_ascii_case(wanted))
}

/// A GLM spec history entry, `{"user": {...}}` or `{"assistant": {...}}`: its role and
/// body.
fn glm_entry(item: &Map<String, Value>) -> Option<(&str, &Map<String, Value>)> {
    if item.len() != 1 {
        return None;
    }
    let (role, body) = item.iter().next()?;
    matches!(role.as_str(), "user" | "assistant")
        .then(|| body.as_object().map(|body| (role.as_str(), body)))
        .flatten()
}

/// A Harmony assistant message that is a tool call (it has a recipient) or reasoning
/// (the `analysis` channel): not the answer's text.
fn is_call_or_reasoning(message: &Map<String, Value>) -> bool {
    message
        .get("recipient")
        .and_then(Value::as_str)
        .is_some_and(|r| r != "all")
        || message.get("channel").and_then(Value::as_str) == Some("analysis")
}

/// A message's role and the object holding its content.
pub(super) fn message_body(item: &Map<String, Value>) -> Option<(&str, &Map<String, Value>)> {
    if let Some(role) = item.get("role").and_then(Value::as_str) {
        return Some((role, item));
    }
    glm_entry(item).or_else(|| wrapped_message(item))
}

/// A message whose content sits one level down: Claude Code's `{type, message}` lines,
/// LangChain's `{type, data}` dicts (`chat` messages name their role in `data`) and
/// `{lc, id, kwargs}` constructors.
fn wrapped_message(item: &Map<String, Value>) -> Option<(&str, &Map<String, Value>)> {
    if let Some(message) = item.get("message").and_then(Value::as_object)
        && let Some(role) = message.get("role").and_then(Value::as_str)
    {
        return Some((role, message));
    }
    if let Some(kind) = item.get("type").and_then(Value::as_str)
        && let Some(data) = item.get("data").and_then(Value::as_object)
    {
        let role = match kind {
            "chat" => data.get("role").and_then(Value::as_str).unwrap_or(kind),
            other => langchain_role(other),
        };
        return Some((role, data));
    }
    let class = item.get("id")?.as_array()?.last()?.as_str()?;
    let kwargs = item.get("kwargs")?.as_object()?;
    Some((langchain_role(class), kwargs))
}

/// `human` and `ai` for LangChain's message classes and their chunks.
fn langchain_role(class: &str) -> &str {
    match class.strip_suffix("Chunk").unwrap_or(class) {
        "HumanMessage" => "human",
        "AIMessage" => "ai",
        _ => class,
    }
}

fn string_member<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    object.get(name).and_then(Value::as_str)
}

/// Rules 1 and 2.
fn direct_text(object: &Map<String, Value>, kind: PayloadKind) -> Option<String> {
    let names: &[&str] = match kind {
        PayloadKind::Prompt => &["Text", "text", "content", "Content"],
        PayloadKind::Answer => &["Text", "text", "content", "Content", "responseText"],
    };
    if let Some(text) = names
        .iter()
        .find_map(|name| object.get(*name).and_then(Value::as_str))
    {
        return Some(text.to_owned());
    }
    let parts: Vec<&str> = if let Some(parts) = object.get("content").and_then(Value::as_array) {
        parts
            .iter()
            .filter(|part| {
                matches!(
                    part.get("type").and_then(Value::as_str),
                    Some("text" | "input_text" | "output_text")
                )
            })
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect()
    } else {
        object
            .get("parts")
            .and_then(Value::as_array)?
            .iter()
            .filter(|part| part.get("thought").and_then(Value::as_bool) != Some(true))
            .filter_map(|part| {
                let part = part.as_object()?;
                string_member(part, "text").or_else(|| super::otel::text_part(part))
            })
            .collect()
    };
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use test_case::test_case;

    #[allow(clippy::needless_pass_by_value)] // Called with json! values.
    fn text_of(payload: Value, kind: PayloadKind) -> Option<String> {
        payload_text(
            payload.as_object().expect("test payloads are objects"),
            kind,
        )
    }

    #[test_case(json!({"Text": "T", "text": "t"}), Some("T"); "Text first")]
    #[test_case(json!({"content": "c", "Content": "C"}), Some("c"); "content before Content")]
    #[test_case(json!({"text": 5, "content": "c"}), Some("c"); "non-string member skipped")]
    #[test_case(json!({"responseText": "r"}), None; "responseText is for answers")]
    #[test_case(json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}), Some("a\nb"); "parts joined")]
    #[test_case(json!({"content": [{"type": "image_url"}]}), None; "no text part")]
    #[test_case(json!({"messages": [{"role": "user", "content": "u1"}, {"role": "user", "content": "u2"}]}), Some("u2"); "last user message")]
    #[test_case(json!({"choices": [{"message": {"content": "c"}}]}), None; "choices are for answers")]
    #[test_case(json!({}), None; "nothing")]
    #[test_case(json!({"contents": [{"role": "user", "parts": [{"text": "a"}, {"inlineData": {}}, {"text": "b"}]}]}), Some("a\nb"); "gemini contents")]
    #[test_case(json!({"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "r"}]}]}), Some("r"); "responses input items")]
    #[test_case(json!({"input": "plain", "model": "m"}), Some("plain"); "responses input string")]
    #[test_case(json!({"messages": [{"type": "user", "message": {"role": "user", "content": "cc"}, "uuid": "u"}]}), Some("cc"); "claude code line")]
    #[test_case(json!({"messages": [{"type": "human", "data": {"content": "lc"}}]}), Some("lc"); "langchain dict")]
    #[test_case(json!({"messages": [{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "k"}}]}), Some("k"); "langchain dumpd")]
    #[test_case(json!({"messages": [{"role": "USER", "content": "shout"}]}), Some("shout"); "roles in any case")]
    #[test_case(json!({"messages": [{"user": {"content": "glm", "sentiment": 0}}, {"user_interaction": {"content": "click"}}]}), Some("glm"); "glm spec entries")]
    fn prompt_text(payload: Value, expected: Option<&str>) {
        assert_eq!(text_of(payload, PayloadKind::Prompt).as_deref(), expected);
    }

    #[test_case(json!({"responseText": "r"}), Some("r"); "responseText")]
    #[test_case(json!({"choices": [{"message": {"role": "assistant", "content": "c"}}]}), Some("c"); "openai completion")]
    #[test_case(json!({"messages": [{"role": "assistant", "content": "a"}, {"role": "user", "content": "u"}]}), Some("a"); "last assistant message")]
    #[test_case(json!({"content": [{"type": "text", "text": "I'll look."}, {"type": "tool_use", "id": "t", "name": "n", "input": {}}]}), Some("I'll look."); "anthropic")]
    #[test_case(json!({"role": "model", "parts": [{"text": "hm", "thought": true}, {"text": "answer"}, {"functionCall": {"name": "f", "args": {}}}]}), Some("answer"); "gemini content without thoughts")]
    #[test_case(json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "c"}]}}]}), Some("c"); "gemini candidates")]
    #[test_case(json!({"assistant": {"content": "glm answer", "function_calls": []}}), Some("glm answer"); "glm spec entry")]
    #[test_case(json!({"type": "AIMessageChunk", "data": {"content": "chunk"}}), Some("chunk"); "langchain message itself")]
    #[test_case(json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": {"content": [{"type": "text", "text": "kw"}]}}), Some("kw"); "langchain constructor itself")]
    #[test_case(json!({"messages": [{"role": "assistant", "channel": "final", "content": "the answer"}, {"role": "assistant", "channel": "commentary", "recipient": "functions.f", "content": "{}"}]}), Some("the answer"); "harmony calls are not text")]
    #[test_case(json!({"output": [{"type": "reasoning", "summary": []}, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "o1"}]}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]}), Some("o1"); "responses output")]
    #[test_case(json!({"messages": [{"role": "assistant", "channel": "analysis", "content": "think"}, {"role": "assistant", "channel": "final", "content": "done"}]}), Some("done"); "last assistant message")]
    fn answer_text(payload: Value, expected: Option<&str>) {
        assert_eq!(text_of(payload, PayloadKind::Answer).as_deref(), expected);
    }
}
