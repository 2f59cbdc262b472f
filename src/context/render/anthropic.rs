//! Anthropic Messages: `{"system": ..., "messages": [...]}`, calls `tool_use` blocks of
//! the assistant, results `tool_result` blocks first in the next user message; roles
//! alternate (messages of one role in a row are joined) and the first is the user's.

use super::{
    Render, arguments_object, call_id, join_same_roles, result_content, result_id, start_with_user,
    system_in_the_middle,
};
use crate::context::Note;
use crate::context::transcript::Entry;
use crate::payload::{Part, Speaker};
use serde_json::{Value, json};

pub(super) struct Anthropic;

const FORMAT: &str = "anthropic";

impl Render for Anthropic {
    fn system(&self, texts: &[String]) -> Value {
        match texts {
            [text] => json!(text),
            texts => texts
                .iter()
                .map(|text| json!({"type": "text", "text": text}))
                .collect(),
        }
    }

    fn entry(&self, entry: &Entry, notes: &mut Vec<Note>) -> Vec<Value> {
        let role = match entry.speaker {
            Speaker::System => {
                system_in_the_middle(entry, notes, FORMAT);
                return Vec::new();
            }
            Speaker::Assistant => "assistant",
            Speaker::User | Speaker::Tool => "user",
        };
        let blocks: Vec<Value> = entry
            .parts
            .iter()
            .filter_map(|part| match part {
                Part::Text(text) => Some(json!({"type": "text", "text": text})),
                Part::Call(call) => Some(json!({
                    "type": "tool_use",
                    "id": tool_use_id(call_id(call)),
                    "name": call.name,
                    "input": arguments_object(call, entry.turn, notes, FORMAT),
                })),
                Part::Result(result) => {
                    let mut block = json!({
                        "type": "tool_result",
                        "tool_use_id": tool_use_id(result_id(result)),
                        "content": result_content(result, "text"),
                    });
                    if let Some(is_error) = result.is_error {
                        block["is_error"] = json!(is_error);
                    }
                    Some(block)
                }
                Part::Other { .. } => None,
            })
            .collect();
        vec![json!({"role": role, "content": blocks})]
    }

    fn finish(
        &self,
        system: Option<Value>,
        messages: Vec<(usize, Value)>,
        notes: &mut Vec<Note>,
    ) -> (Option<Value>, Vec<Value>) {
        let joined = join_same_roles(messages, "content", is_result);
        let started = start_with_user(joined, "content", is_result, notes, FORMAT);
        let messages = started
            .into_iter()
            .map(|(_, mut message)| {
                // One text block reads best as a string, as Anthropic's examples write it.
                if let Some([block]) = message["content"].as_array().map(Vec::as_slice)
                    && block["type"] == "text"
                {
                    message["content"] = block["text"].clone();
                }
                message
            })
            .collect();
        (system, messages)
    }

    fn request(&self, system: Option<Value>, messages: Vec<Value>) -> Value {
        match system {
            Some(system) => json!({"system": system, "messages": messages}),
            None => json!({"messages": messages}),
        }
    }
}

fn is_result(block: &Value) -> bool {
    block["type"] == "tool_result"
}

/// Anthropic takes ids of letters, digits, `_` and `-`: any other character becomes `_`
/// (in the call and its result alike, so they still pair).
fn tool_use_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
