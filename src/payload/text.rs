//! The text of a prompt or answer payload, by documented rules; the first that matches
//! wins:
//!
//! 1. a string member `Text`, `text`, `content` or `Content` (answers also
//!    `responseText`), in that order;
//! 2. the `text` of the `{"type": "text"}` parts of a `content` array, joined with
//!    newlines (when there is at least one such part);
//! 3. the text of the last `user` message (prompts) or `assistant` message (answers) of a
//!    `messages` array, the message's text read by rules 1 and 2;
//! 4. for answers, the text of `choices[0].message`, read by rules 1 and 2.
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
    if let Some(text) = direct_text(payload, kind) {
        return Some(text);
    }
    let wanted_role = match kind {
        PayloadKind::Prompt => "user",
        PayloadKind::Answer => "assistant",
    };
    if let Some(messages) = payload.get("messages").and_then(Value::as_array)
        && let Some(message) = messages
            .iter()
            .rev()
            .filter_map(Value::as_object)
            .find(|m| m.get("role").and_then(Value::as_str) == Some(wanted_role))
    {
        return direct_text(message, kind);
    }
    if kind == PayloadKind::Answer
        && let Some(message) = payload
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .and_then(Value::as_object)
    {
        return direct_text(message, kind);
    }
    None
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
    let parts: Vec<&str> = object
        .get("content")
        .and_then(Value::as_array)?
        .iter()
        .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
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
    fn prompt_text(payload: Value, expected: Option<&str>) {
        assert_eq!(text_of(payload, PayloadKind::Prompt).as_deref(), expected);
    }

    #[test_case(json!({"responseText": "r"}), Some("r"); "responseText")]
    #[test_case(json!({"choices": [{"message": {"role": "assistant", "content": "c"}}]}), Some("c"); "openai completion")]
    #[test_case(json!({"messages": [{"role": "assistant", "content": "a"}, {"role": "user", "content": "u"}]}), Some("a"); "last assistant message")]
    #[test_case(json!({"content": [{"type": "text", "text": "I'll look."}, {"type": "tool_use", "id": "t", "name": "n", "input": {}}]}), Some("I'll look."); "anthropic")]
    fn answer_text(payload: Value, expected: Option<&str>) {
        assert_eq!(text_of(payload, PayloadKind::Answer).as_deref(), expected);
    }
}
