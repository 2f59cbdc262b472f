//! LangChain serialised messages: `messages_to_dict` output (`[{type, data}]`, what
//! `FileChatMessageHistory`, Redis and SQL histories store), the same wrapped as
//! `{"messages": [...]}`, the `dumpd` constructor form (`{lc: 1, type: "constructor",
//! id: [..., "AIMessage"], kwargs}`, LangGraph checkpoints and LangSmith runs), or JSON
//! Lines with one message per line.
//!
//! Each `ai` message (or `AIMessageChunk`, or `chat` message with an assistant role) is
//! one turn, its `BKNResponse` the message object as written; the messages since the
//! previous one form the prompt, `{"messages": [...]}`, and the first turn's prompt also
//! keeps the members around a wrapped list. Calls are `tool_calls[].id`, answered by tool
//! messages' `tool_call_id`, with `status: "error"` for failures; the payload layer counts
//! a call once though the AI message repeats it in `additional_kwargs.tool_calls` (OpenAI
//! models) or as a `tool_use` content block (Anthropic models). Invalid tool calls stay
//! in their message, not counted as calls. The files hold no session id and no times.
//!
//! A message list is one session per file, or one per line in JSON Lines; a JSON Lines
//! file of single messages is one session.

use super::session::{SessionDraft, TurnDraft};
use super::turns::{Exchange, Splitter, awaiting_note};
use super::{ImportError, Importer, Record, Sessions};
use crate::model::JsonObject;
use serde_json::{Map, Value};

/// The LangChain importer.
pub struct LangChain;

/// The message types, as errors name them.
const TYPES: &str = "one of human, ai, system, tool, function, chat, remove, or a chunk type (AIMessageChunk, HumanMessageChunk, ...)";

impl Importer for LangChain {
    fn name(&self) -> &'static str {
        "langchain"
    }

    fn description(&self) -> &'static str {
        "LangChain messages (messages_to_dict, dumpd), chat histories and LangGraph states"
    }

    fn detect(&self, first: &Record) -> bool {
        match &first.value {
            Value::Array(messages) => messages.first().is_some_and(is_message),
            Value::Object(object) => {
                is_message(&first.value)
                    || object
                        .get("messages")
                        .and_then(Value::as_array)
                        .and_then(|messages| messages.first())
                        .is_some_and(is_message)
            }
            _ => false,
        }
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        let mut stream: Option<Conversation> = None;
        let mut lists = false;
        for record in records {
            let record = record?;
            let single = record
                .value
                .as_object()
                .is_some_and(|o| !o.contains_key("messages"));
            if (single && lists) || (!single && stream.is_some()) {
                return Err(record.error(
                    "",
                    "records of one kind: a file is either one message per line or one message list per line",
                ));
            }
            if single {
                let message = read_message(&record, &record.value, "")?;
                stream
                    .get_or_insert_with(Conversation::default)
                    .push(&message, &record.value);
            } else {
                lists = true;
                let mut draft = list_conversation(&record)?;
                draft.line = record.line;
                sessions.add(draft)?;
            }
        }
        match stream {
            Some(conversation) => sessions.add(conversation.finish(&Map::new())),
            None => Ok(()),
        }
    }
}

/// A message's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Human,
    Ai,
    System,
    Tool,
    Function,
    /// A `ChatMessage`: its `role` says who wrote it.
    Chat,
    /// A LangGraph `RemoveMessage`: deletes a message from a state, never sent.
    Remove,
}

/// The kind a `messages_to_dict` `type` names (the names `messages_from_dict` reads).
fn kind_of_type(name: &str) -> Option<Kind> {
    Some(match name {
        "human" | "HumanMessageChunk" => Kind::Human,
        "ai" | "AIMessageChunk" => Kind::Ai,
        "system" | "SystemMessageChunk" => Kind::System,
        "tool" | "ToolMessageChunk" => Kind::Tool,
        "function" | "FunctionMessageChunk" => Kind::Function,
        "chat" | "ChatMessageChunk" => Kind::Chat,
        "remove" => Kind::Remove,
        _ => return None,
    })
}

/// The kind a `dumpd` class name names (`AIMessage`, `AIMessageChunk`, ...).
fn kind_of_class(name: &str) -> Option<Kind> {
    Some(match name.strip_suffix("Chunk").unwrap_or(name) {
        "HumanMessage" => Kind::Human,
        "AIMessage" => Kind::Ai,
        "SystemMessage" => Kind::System,
        "ToolMessage" => Kind::Tool,
        "FunctionMessage" => Kind::Function,
        "ChatMessage" => Kind::Chat,
        "RemoveMessage" => Kind::Remove,
        _ => return None,
    })
}

/// Whether `value` is a LangChain message in either form (for detection).
fn is_message(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    if object.contains_key("lc") {
        return object.get("kwargs").is_some_and(Value::is_object)
            && class_name(object).is_some_and(|class| kind_of_class(class).is_some());
    }
    object
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|name| kind_of_type(name).is_some())
        && object.get("data").is_some_and(Value::is_object)
}

/// The class a `dumpd` object names: the last element of its `id` path.
fn class_name(object: &JsonObject) -> Option<&str> {
    object
        .get("id")
        .and_then(Value::as_array)
        .and_then(|path| path.last())
        .and_then(Value::as_str)
}

/// A message read and checked: its kind and its fields (`data` or `kwargs`).
struct Message<'a> {
    kind: Kind,
    fields: &'a JsonObject,
}

/// Reads the message at `pointer`, checking what its kind requires.
fn read_message<'a>(
    record: &Record,
    value: &'a Value,
    pointer: &str,
) -> Result<Message<'a>, ImportError> {
    let object = value.as_object().ok_or_else(|| {
        record.error(
            pointer,
            "a message object: `{type, data}` or `{lc, type: \"constructor\", id, kwargs}`",
        )
    })?;
    let (kind, key) = if object.contains_key("lc") {
        (constructor_kind(record, object, pointer)?, "kwargs")
    } else {
        (dict_kind(record, object, pointer)?, "data")
    };
    let at = format!("{pointer}/{key}");
    let fields = object.get(key).and_then(Value::as_object).ok_or_else(|| {
        record.error(
            &at,
            format!("`{key}` to be an object (the message's fields)"),
        )
    })?;
    check_fields(record, kind, fields, &at)?;
    Ok(Message { kind, fields })
}

fn dict_kind(record: &Record, object: &JsonObject, pointer: &str) -> Result<Kind, ImportError> {
    let name = object.get("type").and_then(Value::as_str).ok_or_else(|| {
        record.error(
            pointer,
            format!("a string `type`, {TYPES} (or a `dumpd` object with `lc`)"),
        )
    })?;
    kind_of_type(name).ok_or_else(|| {
        record.error(
            &format!("{pointer}/type"),
            format!("a message type {TYPES}; found {name:?}"),
        )
    })
}

fn constructor_kind(
    record: &Record,
    object: &JsonObject,
    pointer: &str,
) -> Result<Kind, ImportError> {
    let form = object.get("type").and_then(Value::as_str);
    if form != Some("constructor") {
        return Err(record.error(
            &format!("{pointer}/type"),
            format!("`type: \"constructor\"` on a serialised message; found {form:?}"),
        ));
    }
    let class = class_name(object).ok_or_else(|| {
        record.error(
            &format!("{pointer}/id"),
            "an `id` path ending in a message class, such as [\"langchain\", \"schema\", \"messages\", \"AIMessage\"]",
        )
    })?;
    kind_of_class(class).ok_or_else(|| {
        record.error(
            &format!("{pointer}/id"),
            format!("a message class (HumanMessage, AIMessage, SystemMessage, ToolMessage, FunctionMessage, ChatMessage, RemoveMessage or a chunk of one); found {class:?}"),
        )
    })
}

/// The fields every message has (`content`) and those its kind requires.
fn check_fields(
    record: &Record,
    kind: Kind,
    fields: &JsonObject,
    pointer: &str,
) -> Result<(), ImportError> {
    if !matches!(
        fields.get("content"),
        Some(Value::String(_) | Value::Array(_))
    ) {
        return Err(record.error(
            &format!("{pointer}/content"),
            "`content`: a string or a list of content blocks",
        ));
    }
    let (member, expected) = match kind {
        Kind::Ai => return check_tool_calls(record, fields, pointer),
        Kind::Tool => (
            "tool_call_id",
            "a string `tool_call_id` on a tool message (the id of the call it answers)",
        ),
        Kind::Chat => ("role", "a string `role` on a chat message"),
        Kind::Function => (
            "name",
            "a string `name` on a function message (the function it answers)",
        ),
        Kind::Human | Kind::System | Kind::Remove => return Ok(()),
    };
    if fields.get(member).is_some_and(Value::is_string) {
        Ok(())
    } else {
        Err(record.error(&format!("{pointer}/{member}"), expected))
    }
}

fn check_tool_calls(
    record: &Record,
    fields: &JsonObject,
    pointer: &str,
) -> Result<(), ImportError> {
    let calls = match fields.get("tool_calls") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(calls)) => calls,
        Some(_) => {
            return Err(record.error(
                &format!("{pointer}/tool_calls"),
                "`tool_calls` to be an array",
            ));
        }
    };
    for (index, call) in calls.iter().enumerate() {
        if !call.get("name").is_some_and(Value::is_string) {
            return Err(record.error(
                &format!("{pointer}/tool_calls/{index}"),
                "a tool call `{name, args, id}` with a string `name`",
            ));
        }
    }
    Ok(())
}

/// The messages of a list record (an array, or an object's `messages`), the object
/// around them, and their JSON Pointer.
fn messages_of(record: &Record) -> Result<(&[Value], JsonObject, &'static str), ImportError> {
    match &record.value {
        Value::Array(messages) => Ok((messages, Map::new(), "")),
        Value::Object(object) => {
            let messages = object
                .get("messages")
                .and_then(Value::as_array)
                .ok_or_else(|| {
                    record.error("/messages", "`messages` to be an array of messages")
                })?;
            Ok((messages, object.clone(), "/messages"))
        }
        _ => Err(record.error(
            "",
            "a message list, `{\"messages\": [...]}`, or one message per line",
        )),
    }
}

/// One session from a message list.
fn list_conversation(record: &Record) -> Result<SessionDraft, ImportError> {
    let (messages, around, pointer) = messages_of(record)?;
    let mut conversation = Conversation::default();
    for (index, value) in messages.iter().enumerate() {
        let message = read_message(record, value, &format!("{pointer}/{index}"))?;
        conversation.push(&message, value);
    }
    Ok(conversation.finish(&around))
}

/// Messages gathered into turns, and what is worth a note.
#[derive(Debug, Default)]
struct Conversation {
    splitter: Splitter,
    removed: usize,
    invalid_calls: usize,
}

impl Conversation {
    fn push(&mut self, message: &Message<'_>, value: &Value) {
        let role = match message.kind {
            Kind::Chat => message
                .fields
                .get("role")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase),
            _ => None,
        };
        match (message.kind, role.as_deref()) {
            (Kind::Ai, _) | (Kind::Chat, Some("assistant" | "ai")) => {
                self.splitter.close();
                self.splitter.output(value.clone(), None);
                self.splitter.close();
            }
            (Kind::Human, _) | (Kind::Chat, Some("user" | "human")) => {
                self.splitter.input(value.clone(), true, None);
            }
            (Kind::Remove, _) => self.removed += 1,
            _ => self.splitter.input(value.clone(), false, None),
        }
        self.invalid_calls += message
            .fields
            .get("invalid_tool_calls")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
    }

    /// The session: `around` (the object a list was wrapped in) stays on the first
    /// prompt, with `messages` cut to what that call was sent.
    fn finish(self, around: &JsonObject) -> SessionDraft {
        let exchanges = self.splitter.finish();
        let mut draft = SessionDraft::default();
        if let Some(last) = exchanges.last().filter(|last| last.awaits_response()) {
            draft.notes.push(awaiting_note(
                last.prompt.len(),
                "message(s) after the last AI message",
            ));
        }
        if self.removed > 0 {
            draft.notes.push(format!(
                "{} RemoveMessage(s) left out: they delete messages from a LangGraph state and are never sent to a model",
                self.removed
            ));
        }
        if self.invalid_calls > 0 {
            draft.notes.push(format!(
                "{} invalid tool call(s) kept in their AI messages (`invalid_tool_calls`): arguments that did not parse, not counted as calls",
                self.invalid_calls
            ));
        }
        for (index, exchange) in exchanges.into_iter().enumerate() {
            let Exchange {
                prompt,
                mut response,
                human,
                ..
            } = exchange;
            let mut prompt_object = if index == 0 {
                around.clone()
            } else {
                Map::new()
            };
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
        draft
    }
}

#[cfg(test)]
mod tests {
    use super::LangChain;
    use crate::import::ImportOptions;
    use crate::import::testing::{Counts, convert_text, detect_text, only_session};
    use crate::payload::{PayloadKind, payload_text};
    use serde_json::Value;

    /// A turn's prompt or answer text, as the mapping reads it.
    fn text(document: &Value, turn: usize, kind: PayloadKind) -> Option<String> {
        let key = match kind {
            PayloadKind::Prompt => "PRCPrompt",
            PayloadKind::Answer => "BKNResponse",
        };
        payload_text(document["Turns"][turn][key].as_object()?, kind)
    }

    const OPENAI: &str =
        include_str!("../../tests/fixtures/import/langchain/openai-tool-loop.json");
    const ANTHROPIC: &str =
        include_str!("../../tests/fixtures/import/langchain/anthropic-tool-use.json");
    const TOOL_ERROR: &str = include_str!("../../tests/fixtures/import/langchain/tool-error.json");
    const INVALID: &str =
        include_str!("../../tests/fixtures/import/langchain/invalid-tool-calls.json");
    const FILE_HISTORY: &str =
        include_str!("../../tests/fixtures/import/langchain/file-history.json");
    const DUMPD: &str = include_str!("../../tests/fixtures/import/langchain/dumpd-state.json");
    const DUMPD_ANTHROPIC: &str =
        include_str!("../../tests/fixtures/import/langchain/dumpd-anthropic.json");
    const LINES: &str = include_str!("../../tests/fixtures/import/langchain/messages.jsonl");

    fn one(name: &str, text: &str) -> (Counts, Value, Vec<String>) {
        only_session(&LangChain, name, text, "s")
    }

    fn expected(
        turns: usize,
        calls: usize,
        results: usize,
        paired: usize,
        errors: usize,
        tools: &[&str],
        roles: &[&str],
    ) -> Counts {
        Counts {
            turns,
            calls,
            results,
            paired,
            errors,
            tools: tools.iter().map(|s| (*s).to_owned()).collect(),
            roles: roles.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn an_openai_tool_loop_counts_calls_repeated_in_additional_kwargs_once() {
        let (counts, document, notes) = one("a.json", OPENAI);
        assert_eq!(
            counts,
            expected(
                3,
                2,
                2,
                2,
                0,
                &["get_weather"],
                &["H-User", "A-User", "H-User"]
            )
        );
        let turns = &document["Turns"];
        assert_eq!(turns[0]["PRCPrompt"]["messages"][0]["type"], "system");
        assert_eq!(
            turns[0]["PRCPrompt"]["messages"].as_array().map(Vec::len),
            Some(2)
        );
        // The response is the AI message as written.
        assert_eq!(turns[0]["BKNResponse"]["type"], "ai");
        assert_eq!(
            turns[0]["BKNResponse"]["data"]["additional_kwargs"]["tool_calls"][1]["function"]["arguments"],
            "{\"city\":\"Kraków\"}"
        );
        assert_eq!(
            turns[1]["BKNResponse"]["data"]["content"],
            "Paris: 11 °C and cloudy. Kraków: 3 °C with snow ❄️."
        );
        assert_eq!(document["SessionID"], "s");
        assert_eq!(turns[2]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 0);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn an_anthropic_tool_use_block_repeating_a_call_counts_once() {
        let (counts, document, _) = one("b.json", ANTHROPIC);
        assert_eq!(
            counts,
            expected(2, 1, 1, 1, 0, &["count_lines"], &["H-User", "A-User"])
        );
        assert_eq!(
            document["Turns"][0]["BKNResponse"]["data"]["content"][1]["type"],
            "tool_use"
        );
    }

    #[test]
    fn a_tool_message_with_status_error_is_a_failure() {
        let (counts, _, _) = one("c.json", TOOL_ERROR);
        assert_eq!(
            counts,
            expected(3, 2, 2, 2, 1, &["run_sql"], &["H-User", "A-User", "A-User"])
        );
    }

    #[test]
    fn invalid_tool_calls_are_kept_but_not_counted() {
        let (counts, document, notes) = one("d.json", INVALID);
        // The answer to the invalid call pairs with no call.
        assert_eq!(
            counts,
            expected(
                3,
                2,
                3,
                2,
                1,
                &["search_docs"],
                &["H-User", "A-User", "A-User"]
            )
        );
        assert_eq!(
            document["Turns"][0]["BKNResponse"]["data"]["invalid_tool_calls"][0]["args"],
            "{\"query\": \"pricing\", \"limit\": 5"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("1 invalid tool call(s) kept")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_chat_message_history_file_on_one_line_with_escapes() {
        let (counts, document, notes) = one("history.json", FILE_HISTORY);
        // Chat messages with a `user` and an `assistant` role are a human and an answer.
        assert_eq!(
            counts,
            expected(3, 0, 0, 0, 0, &[], &["H-User", "H-User", "H-User"])
        );
        let turns = &document["Turns"];
        assert_eq!(
            turns[0]["PRCPrompt"]["messages"][1]["data"]["content"],
            "Bonjour ! Comment dit-on « merci » en japonais ? 🙏"
        );
        assert_eq!(
            turns[0]["BKNResponse"]["data"]["content"],
            "On dit « ありがとう » (arigatō). 😊"
        );
        assert_eq!(
            turns[1]["BKNResponse"]["data"]["content"],
            "En hébreu : « תודה » (toda)."
        );
        // A one-line file is read as JSON Lines; its one session needs no `#1`.
        assert_eq!(document["SessionID"], "s");
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("1 message(s) after the last AI message")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_dumpd_langgraph_state_keeps_its_constructor_objects() {
        let (counts, document, _) = one("state.json", DUMPD);
        assert_eq!(
            counts,
            expected(2, 1, 1, 1, 0, &["next_train"], &["H-User", "A-User"])
        );
        let turns = &document["Turns"];
        assert_eq!(turns[0]["BKNResponse"]["lc"], 1);
        assert_eq!(turns[0]["BKNResponse"]["id"][3], "AIMessage");
        assert_eq!(turns[1]["BKNResponse"]["id"][3], "AIMessageChunk");
        assert_eq!(
            turns[1]["BKNResponse"]["kwargs"]["content"],
            "Der nächste Zug (IC 1) fährt um 14:32 auf Gleis 7. 🚆"
        );
        assert_eq!(
            turns[1]["PRCPrompt"]["messages"][0]["kwargs"]["tool_call_id"],
            "call_Vb7Nq2Lx9Ke4Rt1Ws6Ym3Pz0"
        );
    }

    #[test]
    fn the_mapping_reads_the_text_of_prompts_and_answers() {
        let (_, history, _) = one("history.json", FILE_HISTORY);
        assert_eq!(
            text(&history, 0, PayloadKind::Prompt).as_deref(),
            Some("Bonjour ! Comment dit-on « merci » en japonais ? 🙏")
        );
        assert_eq!(
            text(&history, 0, PayloadKind::Answer).as_deref(),
            Some("On dit « ありがとう » (arigatō). 😊")
        );
        // A chat message with a `user` role, and one with an `assistant` role.
        assert_eq!(
            text(&history, 1, PayloadKind::Prompt).as_deref(),
            Some("Et en hébreu ?")
        );
        assert_eq!(
            text(&history, 1, PayloadKind::Answer).as_deref(),
            Some("En hébreu : « תודה » (toda).")
        );
        let (_, state, _) = one("state.json", DUMPD);
        assert_eq!(
            text(&state, 0, PayloadKind::Prompt).as_deref(),
            Some("Wann fährt der nächste Zug von Zürich HB nach Genève-Aéroport?")
        );
        assert_eq!(
            text(&state, 1, PayloadKind::Answer).as_deref(),
            Some("Der nächste Zug (IC 1) fährt um 14:32 auf Gleis 7. 🚆")
        );
        let (_, anthropic, _) = one("b.json", ANTHROPIC);
        assert_eq!(
            text(&anthropic, 0, PayloadKind::Answer).as_deref(),
            Some("I'll count the lines.")
        );
    }

    #[test]
    fn a_dumpd_anthropic_message_without_additional_kwargs_counts_its_call_once() {
        // `dumpd` leaves out empty `additional_kwargs`: the tool_use block still only
        // repeats `tool_calls`.
        let (counts, _, _) = one("anthropic-state.json", DUMPD_ANTHROPIC);
        assert_eq!(
            counts,
            expected(2, 1, 1, 1, 0, &["convert_currency"], &["H-User", "A-User"])
        );
    }

    #[test]
    fn json_lines_of_single_messages_are_one_session() {
        let (counts, document, _) = one("m.jsonl", LINES);
        assert_eq!(
            counts,
            expected(2, 1, 1, 1, 0, &["create_reminder"], &["H-User", "A-User"])
        );
        assert_eq!(document["SessionID"], "s");
        assert_eq!(
            document["Turns"][1]["BKNResponse"]["type"],
            "AIMessageChunk"
        );
        assert_eq!(
            document["Turns"][1]["PRCPrompt"]["messages"][0]["data"]["artifact"]["reminder_id"],
            "r-17"
        );
    }

    #[test]
    fn json_lines_of_lists_give_a_session_per_line_and_remove_messages_are_left_out() {
        let text = concat!(
            r#"[{"type":"human","data":{"content":"a"}},{"type":"ai","data":{"content":"b"}}]"#,
            "\n",
            r#"{"messages":[{"type":"remove","data":{"content":"","id":"m1"}},{"type":"human","data":{"content":"c"}},{"type":"ai","data":{"content":"d"}}],"thread_id":"t-1"}"#,
            "\n"
        );
        let sessions = convert_text(
            &LangChain,
            "two.jsonl",
            text,
            &ImportOptions::default().session_id("s"),
        )
        .expect("converts");
        let ids: Vec<_> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["s#1", "s#2"]);
        assert!(
            sessions[1]
                .notes
                .iter()
                .any(|n| n.contains("RemoveMessage")),
            "{:?}",
            sessions[1].notes
        );
        let prompt = &sessions[1].document()["Turns"][0]["PRCPrompt"];
        assert_eq!(prompt["thread_id"], "t-1");
        assert_eq!(prompt["messages"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn auto_recognises_each_shape() {
        for (name, text) in [
            ("a.json", OPENAI),
            ("b.json", ANTHROPIC),
            ("c.json", TOOL_ERROR),
            ("d.json", INVALID),
            ("e.json", FILE_HISTORY),
            ("f.json", DUMPD),
            ("g.json", DUMPD_ANTHROPIC),
            ("h.jsonl", LINES),
        ] {
            assert_eq!(detect_text(name, text).expect(name), "langchain", "{name}");
        }
    }

    #[test]
    fn broken_structure_is_refused_with_its_place() {
        let human = r#"{"type":"human","data":{"content":"x"}}"#;
        let cases = [
            (r#"{"data":{"content":"x"}}"#.to_owned(), "/messages/0", "a string `type`"),
            (r#"{"type":"robot","data":{"content":"x"}}"#.to_owned(), "/messages/0/type", "found \"robot\""),
            (r#"{"type":"human","data":"x"}"#.to_owned(), "/messages/0/data", "`data` to be an object"),
            (r#"{"type":"human","data":{"content":5}}"#.to_owned(), "/messages/0/data/content", "a string or a list"),
            (
                format!(r#"{human},{{"type":"ai","data":{{"content":"","tool_calls":{{"name":"f"}}}}}}"#),
                "/messages/1/data/tool_calls",
                "`tool_calls` to be an array",
            ),
            (
                format!(r#"{human},{{"type":"ai","data":{{"content":"","tool_calls":[{{"args":{{}},"id":"c"}}]}}}}"#),
                "/messages/1/data/tool_calls/0",
                "a string `name`",
            ),
            (r#"{"type":"tool","data":{"content":"x"}}"#.to_owned(), "/messages/0/data/tool_call_id", "tool_call_id"),
            (r#"{"type":"chat","data":{"content":"x"}}"#.to_owned(), "/messages/0/data/role", "a string `role`"),
            (r#"{"type":"function","data":{"content":"x"}}"#.to_owned(), "/messages/0/data/name", "a string `name`"),
            (r#"{"lc":1,"type":"constructor","kwargs":{"content":"x"}}"#.to_owned(), "/messages/0/id", "an `id` path"),
            (
                r#"{"lc":1,"type":"constructor","id":["langchain","schema","messages","RobotMessage"],"kwargs":{"content":"x"}}"#.to_owned(),
                "/messages/0/id",
                "found \"RobotMessage\"",
            ),
            (
                r#"{"lc":1,"type":"not_implemented","id":["x","AIMessage"],"repr":"?"}"#.to_owned(),
                "/messages/0/type",
                "constructor",
            ),
            (
                r#"{"lc":1,"type":"constructor","id":["langchain","schema","messages","AIMessage"],"kwargs":[]}"#.to_owned(),
                "/messages/0/kwargs",
                "`kwargs` to be an object",
            ),
            (r#""hello""#.to_owned(), "/messages/0", "a message object"),
            (String::new(), "(document)", "at least one message"),
        ];
        for (messages, place, message) in cases {
            let text = format!("{{\"messages\":[{messages}]}}");
            let error = convert_text(&LangChain, "bad.json", &text, &ImportOptions::default())
                .expect_err(&text);
            assert!(error.place.ends_with(place), "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
        let error = convert_text(
            &LangChain,
            "bad.jsonl",
            &format!("{human}\n[{human}]\n"),
            &ImportOptions::default(),
        )
        .expect_err("mixed");
        assert_eq!(error.place, "line 2, (document)", "{error}");
        let error = convert_text(
            &LangChain,
            "bad.jsonl",
            &format!("{human}\n{{\"type\":\"ai\"}}\n"),
            &ImportOptions::default(),
        )
        .expect_err("no data");
        assert_eq!(error.place, "line 2, /data", "{error}");
    }

    #[test]
    fn a_derived_session_id_is_said() {
        let sessions =
            convert_text(&LangChain, "c.json", TOOL_ERROR, &ImportOptions::default()).expect("ok");
        assert!(sessions[0].session_id.starts_with("c-"));
        assert!(
            sessions[0].notes.iter().any(|n| n.contains("derived")),
            "{:?}",
            sessions[0].notes
        );
    }
}
