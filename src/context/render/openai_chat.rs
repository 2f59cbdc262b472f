//! OpenAI Chat Completions: `{"messages": [...]}`, the system prompt a `system` message,
//! calls in the assistant message's `tool_calls`, each result a `tool` message with its
//! `tool_call_id` right after the calls.

use super::{Render, call_id, calls, result_content, result_id, results, text_content};
use crate::context::Note;
use crate::context::transcript::Entry;
use crate::payload::Speaker;
use serde_json::{Map, Value, json};

pub(super) struct OpenAiChat;

impl Render for OpenAiChat {
    fn system(&self, texts: &[String]) -> Value {
        let parts: Vec<_> = texts
            .iter()
            .cloned()
            .map(crate::payload::Part::Text)
            .collect();
        json!({"role": "system", "content": text_content(&parts, "text")})
    }

    fn entry(&self, entry: &Entry, _notes: &mut Vec<Note>) -> Vec<Value> {
        match entry.speaker {
            Speaker::System => vec![json!({"role": "system", "content": text_content(&entry.parts, "text")})],
            Speaker::User => vec![json!({"role": "user", "content": text_content(&entry.parts, "text")})],
            Speaker::Assistant => {
                let mut message = Map::new();
                message.insert("role".into(), json!("assistant"));
                message.insert("content".into(), text_content(&entry.parts, "text"));
                let tool_calls: Vec<Value> = calls(&entry.parts)
                    .map(|call| {
                        json!({"id": call_id(call), "type": "function", "function": {
                            "name": call.name,
                            "arguments": call.arguments.clone().unwrap_or_else(|| "{}".to_owned()),
                        }})
                    })
                    .collect();
                if !tool_calls.is_empty() {
                    message.insert("tool_calls".into(), Value::Array(tool_calls));
                }
                vec![Value::Object(message)]
            }
            Speaker::Tool => results(&entry.parts)
                .map(|result| json!({"role": "tool", "tool_call_id": result_id(result), "content": result_content(result, "text")}))
                .collect(),
        }
    }

    fn request(&self, system: Option<Value>, messages: Vec<Value>) -> Value {
        json!({"messages": system.into_iter().chain(messages).collect::<Vec<_>>()})
    }
}
