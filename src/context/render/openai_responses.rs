//! OpenAI Responses: `{"input": [...]}`, the system prompt a `system` message, each of
//! the model's texts an `assistant` message, calls `function_call` items and results
//! `function_call_output` items, paired by `call_id`.

use super::{Render, call_id, result_content, result_id, text_content};
use crate::context::Note;
use crate::context::transcript::Entry;
use crate::payload::{Part, Speaker};
use serde_json::{Value, json};

pub(super) struct OpenAiResponses;

impl Render for OpenAiResponses {
    fn system(&self, texts: &[String]) -> Value {
        let parts: Vec<_> = texts.iter().cloned().map(Part::Text).collect();
        json!({"role": "system", "content": text_content(&parts, "input_text")})
    }

    fn entry(&self, entry: &Entry, _notes: &mut Vec<Note>) -> Vec<Value> {
        let role = match entry.speaker {
            Speaker::System => "system",
            Speaker::User => "user",
            Speaker::Assistant | Speaker::Tool => {
                // One item per text, call and result, in the order the model gave them.
                return entry
                    .parts
                    .iter()
                    .filter_map(|part| match part {
                        Part::Text(text) => Some(json!({"role": "assistant", "content": text})),
                        Part::Call(call) => Some(json!({
                            "type": "function_call",
                            "call_id": call_id(call),
                            "name": call.name,
                            "arguments": call.arguments.clone().unwrap_or_else(|| "{}".to_owned()),
                        })),
                        Part::Result(result) => Some(json!({
                            "type": "function_call_output",
                            "call_id": result_id(result),
                            "output": result_content(result, "input_text"),
                        })),
                        Part::Other { .. } => None,
                    })
                    .collect();
            }
        };
        vec![json!({"role": role, "content": text_content(&entry.parts, "input_text")})]
    }

    fn request(&self, system: Option<Value>, messages: Vec<Value>) -> Value {
        json!({"input": system.into_iter().chain(messages).collect::<Vec<_>>()})
    }
}
