//! Gemini `generateContent`: `{"systemInstruction": {"parts": [...]}, "contents": [...]}`,
//! roles `user` and `model`, calls `functionCall` parts of the model, results
//! `functionResponse` parts of the user (their `response` an object: a result that is a
//! JSON object goes as it is, any other as `{"output": TEXT}`, or `{"error": TEXT}` when it
//! failed), the first content the user's and roles in turn. A user's words beside
//! function responses follow them in a user content of their own: Gemini reads a
//! content holding function responses as the answer to the model's calls, and refuses
//! one that mixes them with other parts.

use super::{
    Render, arguments_object, call_id, join_same_roles, result_id, result_texts, start_with_user,
    system_in_the_middle,
};
use crate::context::Note;
use crate::context::transcript::Entry;
use crate::payload::{Part, Speaker, ToolResultFound};
use serde_json::{Value, json};

pub(super) struct Gemini;

const FORMAT: &str = "gemini";

impl Render for Gemini {
    fn system(&self, texts: &[String]) -> Value {
        json!({"parts": texts.iter().map(|text| json!({"text": text})).collect::<Vec<_>>()})
    }

    fn entry(&self, entry: &Entry, notes: &mut Vec<Note>) -> Vec<Value> {
        let role = match entry.speaker {
            Speaker::System => {
                system_in_the_middle(entry, notes, FORMAT);
                return Vec::new();
            }
            Speaker::Assistant => "model",
            Speaker::User | Speaker::Tool => "user",
        };
        let parts: Vec<Value> = entry
            .parts
            .iter()
            .filter_map(|part| match part {
                Part::Text(text) => Some(json!({"text": text})),
                Part::Call(call) => Some(json!({"functionCall": {
                    "id": call_id(call),
                    "name": call.name,
                    "args": arguments_object(call, entry.turn, notes, FORMAT),
                }})),
                Part::Result(result) => Some(json!({"functionResponse": {
                    "id": result_id(result),
                    "name": result.name.clone().unwrap_or_default(),
                    "response": response_object(result),
                }})),
                Part::Other { .. } => None,
            })
            .collect();
        vec![json!({"role": role, "parts": parts})]
    }

    fn finish(
        &self,
        system: Option<Value>,
        messages: Vec<(usize, Value)>,
        notes: &mut Vec<Note>,
    ) -> (Option<Value>, Vec<Value>) {
        let joined = join_same_roles(messages, "parts", is_result);
        let apart = responses_apart(joined);
        let started = start_with_user(apart, "parts", is_result, notes, FORMAT);
        (system, started.into_iter().map(|(_, m)| m).collect())
    }

    fn request(&self, system: Option<Value>, messages: Vec<Value>) -> Value {
        match system {
            Some(system) => json!({"systemInstruction": system, "contents": messages}),
            None => json!({"contents": messages}),
        }
    }
}

fn is_result(part: &Value) -> bool {
    part.get("functionResponse").is_some()
}

/// Each content that holds function responses and other parts, as two: the responses,
/// then the rest in a content of the same role.
fn responses_apart(contents: Vec<(usize, Value)>) -> Vec<(usize, Value)> {
    let mut apart = Vec::with_capacity(contents.len());
    for (turn, mut content) in contents {
        let parts = match content.get_mut("parts") {
            Some(Value::Array(parts)) if parts.iter().any(is_result) => std::mem::take(parts),
            _ => {
                apart.push((turn, content));
                continue;
            }
        };
        // Joined contents keep their results first.
        let (results, rest): (Vec<Value>, Vec<Value>) = parts.into_iter().partition(is_result);
        content["parts"] = Value::Array(results);
        if rest.is_empty() {
            apart.push((turn, content));
            continue;
        }
        let words = json!({"role": content["role"].clone(), "parts": rest});
        apart.push((turn, content));
        apart.push((turn, words));
    }
    apart
}

fn response_object(result: &ToolResultFound) -> Value {
    if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(&result.data) {
        return object;
    }
    let value = match result_texts(result) {
        Some(texts) if texts.len() == 1 => json!(texts[0]),
        Some(texts) => json!(texts),
        None => json!(result.data),
    };
    if result.is_error == Some(true) {
        json!({"error": value})
    } else {
        json!({"output": value})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_responses_and_words_go_in_contents_of_their_own() {
        let response = |name: &str| json!({"functionResponse": {"name": name, "response": {}}});
        let contents = vec![
            (0, json!({"role": "user", "parts": [{"text": "a"}]})),
            (
                0,
                json!({"role": "model", "parts": [{"functionCall": {"name": "f"}}]}),
            ),
            (
                1,
                json!({"role": "user", "parts": [response("f"), response("g"), {"text": "b"}, {"text": "c"}]}),
            ),
            (1, json!({"role": "user", "parts": [response("h")]})),
        ];
        let apart: Vec<Value> = responses_apart(contents.clone())
            .into_iter()
            .map(|(_, content)| content)
            .collect();
        assert_eq!(
            apart,
            [
                contents[0].1.clone(),
                contents[1].1.clone(),
                json!({"role": "user", "parts": [response("f"), response("g")]}),
                json!({"role": "user", "parts": [{"text": "b"}, {"text": "c"}]}),
                contents[3].1.clone(),
            ]
        );
    }
}
