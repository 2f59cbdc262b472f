//! The request shapes of the providers, one file per format: how a transcript's entries
//! become the format's messages, and the format's own rules over the whole list
//! (Anthropic's alternation, Gemini's roles).

mod anthropic;
mod gemini;
mod openai_chat;
mod openai_responses;

use super::transcript::Entry;
use super::{ContextFormat, Note};
use crate::payload::{Part, ToolCall, ToolResultFound};
use serde_json::{Map, Value, json};

/// A format's request shape.
pub(super) trait Render {
    /// The system prompt as the format holds it.
    fn system(&self, texts: &[String]) -> Value;
    /// One entry as the format's messages; a note for what the format cannot hold.
    fn entry(&self, entry: &Entry, notes: &mut Vec<Note>) -> Vec<Value>;
    /// The format's rules over the whole conversation (messages with their turns).
    fn finish(
        &self,
        system: Option<Value>,
        messages: Vec<(usize, Value)>,
        notes: &mut Vec<Note>,
    ) -> (Option<Value>, Vec<Value>) {
        let _ = notes;
        (system, messages.into_iter().map(|(_, m)| m).collect())
    }
    /// The request body.
    fn request(&self, system: Option<Value>, messages: Vec<Value>) -> Value;
}

pub(super) fn renderer(format: ContextFormat) -> &'static dyn Render {
    match format {
        ContextFormat::OpenAiChat => &openai_chat::OpenAiChat,
        ContextFormat::OpenAiResponses => &openai_responses::OpenAiResponses,
        ContextFormat::Anthropic => &anthropic::Anthropic,
        ContextFormat::Gemini => &gemini::Gemini,
    }
}

fn texts(parts: &[Part]) -> impl Iterator<Item = &str> {
    parts.iter().filter_map(|part| match part {
        Part::Text(text) => Some(text.as_str()),
        _ => None,
    })
}

fn calls(parts: &[Part]) -> impl Iterator<Item = &ToolCall> {
    parts.iter().filter_map(|part| match part {
        Part::Call(call) => Some(call),
        _ => None,
    })
}

fn results(parts: &[Part]) -> impl Iterator<Item = &ToolResultFound> {
    parts.iter().filter_map(|part| match part {
        Part::Result(result) => Some(result),
        _ => None,
    })
}

/// Content as OpenAI takes it: one text as a string, several as text parts of `kind`.
fn text_content(parts: &[Part], kind: &str) -> Value {
    let texts: Vec<&str> = texts(parts).collect();
    match texts.as_slice() {
        [] => Value::Null,
        [text] => json!(text),
        texts => texts
            .iter()
            .map(|text| json!({"type": kind, "text": text}))
            .collect(),
    }
}

/// A result's text blocks, when its data is a list of them (Anthropic's and MCP's
/// `[{"type": "text", "text": ...}]`): carried as text, not as JSON text.
fn result_texts(result: &ToolResultFound) -> Option<Vec<String>> {
    if !result.data.starts_with('[') {
        return None;
    }
    let Ok(Value::Array(blocks)) = serde_json::from_str::<Value>(&result.data) else {
        return None;
    };
    blocks
        .iter()
        .map(|block| {
            (block.get("type").and_then(Value::as_str) == Some("text")
                && block.as_object()?.len() == 2)
                .then(|| block.get("text")?.as_str().map(str::to_owned))
                .flatten()
        })
        .collect::<Option<Vec<String>>>()
        .filter(|texts| !texts.is_empty())
}

/// A result's content as OpenAI takes it: its text blocks as text parts of `kind`, or
/// its data as a string.
fn result_content(result: &ToolResultFound, kind: &str) -> Value {
    match result_texts(result) {
        Some(texts) => texts
            .iter()
            .map(|text| json!({"type": kind, "text": text}))
            .collect(),
        None => json!(result.data),
    }
}

/// A call's id; the transcript gives every call one.
fn call_id(call: &ToolCall) -> &str {
    call.call_id.as_deref().unwrap_or_default()
}

/// A result's call id; the transcript gives every result its call's.
fn result_id(result: &ToolResultFound) -> &str {
    result.call_id.as_deref().unwrap_or_default()
}

/// A call's arguments as the JSON object Anthropic's `input` and Gemini's `args` need;
/// arguments that are not a JSON object go as `{"arguments": TEXT}`, with a note.
fn arguments_object(call: &ToolCall, turn: usize, notes: &mut Vec<Note>, format: &str) -> Value {
    let text = call.arguments.as_deref().unwrap_or("");
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(object @ Value::Object(_)) => object,
        _ => {
            notes.push(Note {
                turn,
                pointer: String::new(),
                what: format!(
                    "the arguments of call `{}` are not a JSON object, which {format} needs: sent as {{\"arguments\": TEXT}}",
                    call_id(call)
                ),
            });
            json!({"arguments": text})
        }
    }
}

/// Messages of the same role in a row joined into one, as Anthropic and Gemini need:
/// the members named `list` concatenated, results first.
fn join_same_roles(
    messages: Vec<(usize, Value)>,
    list: &str,
    is_result: fn(&Value) -> bool,
) -> Vec<(usize, Value)> {
    let mut joined: Vec<(usize, Value)> = Vec::with_capacity(messages.len());
    for (turn, message) in messages {
        if let Some((_, last)) = joined.last_mut()
            && last.get("role") == message.get("role")
            && let (Some(Value::Array(into)), Some(Value::Array(from))) =
                (last.get_mut(list), message.get(list))
        {
            into.extend(from.iter().cloned());
            // Stable: results keep their order, and so does the rest.
            let (mut first, rest): (Vec<Value>, Vec<Value>) =
                std::mem::take(into).into_iter().partition(is_result);
            first.extend(rest);
            *into = first;
            continue;
        }
        joined.push((turn, message));
    }
    joined
}

/// Leaves out the messages before the first one from the user that answers no call:
/// Anthropic and Gemini take a conversation that starts with the user.
fn start_with_user(
    messages: Vec<(usize, Value)>,
    list: &str,
    is_result: fn(&Value) -> bool,
    notes: &mut Vec<Note>,
    format: &str,
) -> Vec<(usize, Value)> {
    let starts = messages.iter().position(|(_, message)| {
        message.get("role").and_then(Value::as_str) == Some("user")
            && !message
                .get(list)
                .and_then(Value::as_array)
                .is_some_and(|items| items.iter().any(is_result))
    });
    let start = starts.unwrap_or(messages.len());
    for (turn, _) in &messages[..start] {
        notes.push(Note {
            turn: *turn,
            pointer: String::new(),
            what: format!(
                "a message before the conversation's first user message is left out: {format} takes a conversation that starts with the user"
            ),
        });
    }
    messages.into_iter().skip(start).collect()
}

/// A note for a system message in the middle of the conversation, which a format with
/// one top-level system prompt cannot hold.
fn system_in_the_middle(entry: &Entry, notes: &mut Vec<Note>, format: &str) {
    notes.push(Note {
        turn: entry.turn,
        pointer: String::new(),
        what: format!(
            "a system message in the middle of the conversation is left out: {format} has one system prompt, at the start"
        ),
    });
}
