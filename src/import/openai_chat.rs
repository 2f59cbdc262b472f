//! OpenAI Chat Completions: a message array, a request body (`{model, messages, ...}`),
//! or JSON Lines of `{request, response}` log records.
//!
//! Each assistant message is one turn, its `BKNResponse` the message itself; the messages
//! since the previous assistant message form the prompt, `{"messages": [...]}`, and the
//! first turn's prompt also keeps the request's other members (`model`, `tools`, ...).
//! In a log, each record is one call: its prompt is the request with `messages` cut to
//! those sent since the previous response (a log repeats the whole history in every
//! request), its response the response object, whose `created` gives the turn's time.
//! A message array or a request body without a log around it is one session per file, or
//! one per line in JSON Lines.

use super::session::other_members;
use super::session::{SessionDraft, TurnDraft};
use super::time::Stamp;
use super::turns::{Exchange, Splitter, awaiting_note};
use super::{ImportError, Importer, Record, Sessions};
use crate::model::JsonObject;
use serde_json::{Map, Value};

/// The OpenAI Chat Completions importer.
pub struct OpenAiChat;

/// The roles of Chat Completions messages, as messages name them.
const ROLES: &str = "one of system, developer, user, assistant, tool, function";
const ROLE_NAMES: [&str; 6] = [
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
];

impl Importer for OpenAiChat {
    fn name(&self) -> &'static str {
        "openai-chat"
    }

    fn description(&self) -> &'static str {
        "OpenAI Chat Completions messages, request bodies and request/response logs"
    }

    fn detect(&self, first: &Record) -> bool {
        match &first.value {
            Value::Array(messages) => is_chat_messages(messages),
            Value::Object(object) => {
                if let Some(request) = object.get("request").and_then(Value::as_object) {
                    return object.contains_key("response")
                        && request
                            .get("messages")
                            .and_then(Value::as_array)
                            .is_some_and(|m| is_chat_messages(m));
                }
                // A request body names its model; a fine-tuning line does not.
                object.contains_key("model")
                    && !object.contains_key("max_tokens")
                    && object
                        .get("messages")
                        .and_then(Value::as_array)
                        .is_some_and(|m| is_chat_messages(m))
            }
            _ => false,
        }
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        let mut log: Option<Log> = None;
        let mut conversations = false;
        for record in records {
            let record = record?;
            let is_log = record
                .value
                .as_object()
                .is_some_and(|o| o.contains_key("request"));
            let mixed = if is_log { conversations } else { log.is_some() };
            if mixed {
                return Err(record.error(
                    "",
                    "records of one kind: a file is either a request/response log or conversations, one per line",
                ));
            }
            if is_log {
                log.get_or_insert_with(Log::default).add(&record)?;
            } else {
                conversations = true;
                let (messages, rest) = messages_of(&record)?;
                let pointer = if record.value.is_array() {
                    ""
                } else {
                    "/messages"
                };
                let mut draft = conversation(&record, messages, pointer, &rest)?;
                draft.line = record.line;
                sessions.add(draft)?;
            }
        }
        match log {
            Some(log) => sessions.add(log.finish()),
            None => Ok(()),
        }
    }
}

/// Whether `messages` look like Chat Completions messages: objects with a Chat role,
/// none with a member or part only another format writes (Gemini `parts`, Harmony
/// `channel`/`recipient`, Responses `type` and `input_text` parts, Anthropic blocks).
pub(super) fn is_chat_messages(messages: &[Value]) -> bool {
    !messages.is_empty()
        && messages.iter().all(|m| {
            m.get("role")
                .and_then(Value::as_str)
                .is_some_and(|role| ROLE_NAMES.contains(&role))
                && ["parts", "channel", "recipient", "type", "stop_reason"]
                    .iter()
                    .all(|member| m.get(member).is_none())
                && !has_foreign_parts(m)
        })
}

/// Whether a message's content holds parts only another format writes: Anthropic's
/// blocks (tool use and results, thinking, server tools) or Responses' typed parts.
fn has_foreign_parts(message: &Value) -> bool {
    message
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts.iter().any(|part| {
                part.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|kind| {
                        matches!(
                            kind,
                            "tool_use"
                                | "server_tool_use"
                                | "mcp_tool_use"
                                | "thinking"
                                | "redacted_thinking"
                                | "input_text"
                                | "output_text"
                                | "input_image"
                                | "input_file"
                        ) || kind.ends_with("tool_result")
                    })
            })
        })
}

/// The messages of a record (an array, or an object's `messages`) and the record's
/// other members.
fn messages_of(record: &Record) -> Result<(&[Value], JsonObject), ImportError> {
    match &record.value {
        Value::Array(messages) => Ok((messages, Map::new())),
        Value::Object(object) => {
            let messages = object
                .get("messages")
                .ok_or_else(|| record.error("/messages", "a `messages` array"))?
                .as_array()
                .ok_or_else(|| record.error("/messages", "`messages` to be an array"))?;
            let rest = other_members(object, "messages");
            Ok((messages, rest))
        }
        _ => Err(record.error(
            "",
            "a message array, a request body with `messages`, or a `{request, response}` log record",
        )),
    }
}

/// A conversation in Chat Completions messages: one turn per assistant message.
pub(super) fn conversation(
    record: &Record,
    messages: &[Value],
    pointer: &str,
    rest: &JsonObject,
) -> Result<SessionDraft, ImportError> {
    let mut splitter = Splitter::default();
    for (index, message) in messages.iter().enumerate() {
        let pointer = format!("{pointer}/{index}");
        match checked_role(record, message, &pointer)? {
            "assistant" => {
                splitter.close();
                splitter.output(message.clone(), None);
                splitter.close();
            }
            "user" => splitter.input(message.clone(), true, None),
            _ => splitter.input(message.clone(), false, None),
        }
    }
    let exchanges = splitter.finish();
    let mut draft = SessionDraft::default();
    for (index, exchange) in exchanges.into_iter().enumerate() {
        if exchange.awaits_response() {
            draft.notes.push(awaiting_note(
                exchange.prompt.len(),
                "message(s) after the last assistant message",
            ));
        }
        let Exchange {
            prompt,
            mut response,
            human,
            ..
        } = exchange;
        let mut prompt_object = if index == 0 { rest.clone() } else { Map::new() };
        prompt_object.insert("messages".to_owned(), Value::Array(prompt));
        let response = match response.pop() {
            Some(Value::Object(message)) => message,
            _ => Map::new(),
        };
        draft.turns.push(TurnDraft {
            prompt: prompt_object,
            response,
            human,
            ..TurnDraft::default()
        });
    }
    Ok(draft)
}

/// The role of a message, after checking the members its role requires.
pub(super) fn checked_role<'a>(
    record: &Record,
    message: &'a Value,
    pointer: &str,
) -> Result<&'a str, ImportError> {
    let object = message
        .as_object()
        .ok_or_else(|| record.error(pointer, "a message object"))?;
    let role = object
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| record.error(pointer, format!("a string `role`, {ROLES}")))?;
    match role {
        "system" | "developer" | "user" => {}
        "assistant" => check_tool_calls(record, object, pointer)?,
        "tool" => {
            if !object.get("tool_call_id").is_some_and(Value::is_string) {
                return Err(record.error(
                    &format!("{pointer}/tool_call_id"),
                    "a string `tool_call_id` on a tool message (the id of the call it answers)",
                ));
            }
        }
        "function" => {
            if !object.get("name").is_some_and(Value::is_string) {
                return Err(record.error(
                    &format!("{pointer}/name"),
                    "a string `name` on a function message (the function it answers)",
                ));
            }
        }
        other => {
            return Err(record.error(
                &format!("{pointer}/role"),
                format!("a role {ROLES}; found {other:?}"),
            ));
        }
    }
    Ok(role)
}

fn check_tool_calls(
    record: &Record,
    message: &JsonObject,
    pointer: &str,
) -> Result<(), ImportError> {
    let Some(calls) = message.get("tool_calls") else {
        return Ok(());
    };
    if calls.is_null() {
        return Ok(());
    }
    let calls = calls.as_array().ok_or_else(|| {
        record.error(
            &format!("{pointer}/tool_calls"),
            "`tool_calls` to be an array",
        )
    })?;
    for (index, call) in calls.iter().enumerate() {
        let at = format!("{pointer}/tool_calls/{index}");
        if !call.get("id").is_some_and(Value::is_string) {
            return Err(record.error(
                &at,
                "a tool call with a string `id` (Chat Completions requires one)",
            ));
        }
        let named = ["function", "custom"].iter().any(|kind| {
            call.get(kind)
                .and_then(|f| f.get("name"))
                .is_some_and(Value::is_string)
        });
        if !named {
            return Err(record.error(
                &at,
                "a tool call with `function: {name, arguments}` or `custom: {name, input}`",
            ));
        }
    }
    Ok(())
}

/// A request/response log: one turn per record.
#[derive(Default)]
struct Log {
    draft: SessionDraft,
}

impl Log {
    fn add(&mut self, record: &Record) -> Result<(), ImportError> {
        let object = record
            .value
            .as_object()
            .ok_or_else(|| record.error("", "a `{request, response}` log record"))?;
        let request = object
            .get("request")
            .and_then(Value::as_object)
            .ok_or_else(|| record.error("/request", "a request object"))?;
        let response = object
            .get("response")
            .and_then(Value::as_object)
            .ok_or_else(|| record.error("/response", "a response object"))?;
        let messages = request
            .get("messages")
            .and_then(Value::as_array)
            .ok_or_else(|| record.error("/request/messages", "a `messages` array"))?;
        let message = response
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .ok_or_else(|| record.error("/response/choices/0/message", "the response's message"))?;
        if checked_role(record, message, "/response/choices/0/message")? != "assistant" {
            return Err(record.error(
                "/response/choices/0/message/role",
                "an assistant message in the response",
            ));
        }
        // What was sent since the previous response: the messages after the request's
        // last assistant message.
        let mut since = 0;
        let mut human = false;
        for (index, message) in messages.iter().enumerate() {
            let role = checked_role(record, message, &format!("/request/messages/{index}"))?;
            if role == "assistant" {
                since = index + 1;
                human = false;
            }
            human |= role == "user";
        }
        let mut prompt = request.clone();
        prompt.insert(
            "messages".to_owned(),
            Value::Array(messages[since..].to_vec()),
        );
        let created = response
            .get("created")
            .and_then(Value::as_i64)
            .map(Stamp::Seconds);
        self.draft.turns.push(TurnDraft {
            prompt,
            response: response.clone(),
            human,
            response_time: created,
            ..TurnDraft::default()
        });
        Ok(())
    }

    fn finish(self) -> SessionDraft {
        self.draft
    }
}

#[cfg(test)]
mod tests {
    use super::OpenAiChat;
    use crate::import::ImportOptions;
    use crate::import::testing::{Counts, convert_text, counts, detect_text};

    const PARALLEL: &str =
        include_str!("../../tests/fixtures/import/openai-chat/parallel-out-of-order.json");
    const LEGACY: &str =
        include_str!("../../tests/fixtures/import/openai-chat/legacy-function-call.json");
    const LOG: &str = include_str!("../../tests/fixtures/import/openai-chat/request-log.jsonl");

    fn one(name: &str, text: &str) -> (Counts, serde_json::Value) {
        let sessions = convert_text(
            &OpenAiChat,
            name,
            text,
            &ImportOptions::default().session_id("s"),
        )
        .expect("converts");
        assert_eq!(sessions.len(), 1);
        (counts(&sessions[0]), sessions[0].document().clone())
    }

    #[test]
    fn parallel_calls_answered_out_of_order_pair_by_id() {
        let (counts, document) = one("a.json", PARALLEL);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: vec!["get_weather".into()],
                roles: vec!["H-User".into(), "A-User".into(), "H-User".into()],
            }
        );
        // The first prompt keeps the system prompt and the request's tools.
        let first = &document["Turns"][0]["PRCPrompt"];
        assert_eq!(first["messages"][0]["role"], "system");
        assert_eq!(first["tools"][0]["function"]["name"], "get_weather");
        assert_eq!(first["model"], "gpt-4.1");
        // Numbers keep their text: 0.50 and -0 are not rewritten.
        let numbers: Vec<String> = ["temperature", "seed", "max_completion_tokens"]
            .iter()
            .map(|key| first[key].to_string())
            .collect();
        // (serde_json itself reads 1e3 as 1e+3, the same digits.)
        assert_eq!(numbers, ["0.50", "-0", "1e+3"]);
        assert!(document["Turns"][1]["PRCPrompt"].get("model").is_none());
        assert_eq!(
            document["Turns"][1]["BKNResponse"]["content"],
            "In Zürich ist es neblig bei 7 °C, in 東京 klar bei 21 °C. 🌫️☀️"
        );
        assert_eq!(document["SessionID"], "s");
        assert_eq!(
            document["Turns"][2]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"],
            0
        );
    }

    #[test]
    fn legacy_function_messages_pair_by_name() {
        let (counts, _) = one("b.json", LEGACY);
        assert_eq!((counts.turns, counts.calls, counts.paired), (2, 1, 1));
        assert_eq!(counts.roles, ["H-User", "A-User"]);
    }

    #[test]
    fn a_log_records_each_result_once_and_dates_turns_by_created() {
        let (counts, document) = one("log.jsonl", LOG);
        assert_eq!(
            (counts.turns, counts.calls, counts.results, counts.paired),
            (3, 1, 1, 1)
        );
        assert_eq!(counts.roles, ["H-User", "A-User", "H-User"]);
        let turns = &document["Turns"];
        assert_eq!(
            turns[1]["PRCPrompt"]["messages"].as_array().map(Vec::len),
            Some(1)
        );
        assert_eq!(
            turns[2]["Timestamp"]["SimpleTimeData"][0]["StartTime"],
            1_767_254_410
        );
        assert_eq!(turns[2]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 1);
        assert_eq!(
            document["SessionStartTime"]["SimpleTimeData"][0]["StartTime"],
            1_767_254_400
        );
    }

    #[test]
    fn auto_recognises_each_shape() {
        assert_eq!(
            detect_text("x.json", PARALLEL).expect("detected"),
            "openai-chat"
        );
        assert_eq!(
            detect_text("x.json", LEGACY).expect("detected"),
            "openai-chat"
        );
        assert_eq!(
            detect_text("x.jsonl", LOG).expect("detected"),
            "openai-chat"
        );
    }

    #[test]
    fn broken_structure_is_refused_with_its_place() {
        let cases = [
            (
                r#"[{"role":"robot","content":"x"}]"#,
                "/0/role",
                "found \"robot\"",
            ),
            (r#"[{"content":"x"}]"#, "/0", "a string `role`"),
            (
                r#"[{"role":"user","content":"x"},{"role":"assistant","tool_calls":{"id":"c"}}]"#,
                "/1/tool_calls",
                "an array",
            ),
            (
                r#"[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]"#,
                "/1/tool_calls/0",
                "string `id`",
            ),
            (
                r#"[{"role":"tool","content":"x"}]"#,
                "/0/tool_call_id",
                "tool_call_id",
            ),
            (r#"[]"#, "(document)", "at least one message"),
        ];
        for (text, place, message) in cases {
            let error = convert_text(
                &OpenAiChat,
                "bad.json",
                &format!("{{\"messages\":{text}}}"),
                &ImportOptions::default(),
            )
            .expect_err(text);
            assert!(
                error.place.ends_with(place) || error.place.contains(place),
                "{text}: {error}"
            );
            assert!(error.message.contains(message), "{text}: {error}");
        }
        let error = convert_text(&OpenAiChat, "bad.jsonl", "[{\"role\":\"user\",\"content\":\"x\"},{\"role\":\"assistant\",\"content\":\"y\"}]\n[{\"role\":\n", &ImportOptions::default())
            .expect_err("broken line");
        assert!(error.place.starts_with("line 2"), "{error}");
    }

    #[test]
    fn a_derived_session_id_is_said() {
        let sessions =
            convert_text(&OpenAiChat, "c.json", LEGACY, &ImportOptions::default()).expect("ok");
        let id = sessions[0].session_id.clone();
        assert!(id.starts_with("c-") && id.len() == "c-".len() + 12, "{id}");
        assert!(
            sessions[0].notes.iter().any(|n| n.contains("derived")),
            "{:?}",
            sessions[0].notes
        );
    }
}
