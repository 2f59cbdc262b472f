//! AgentOS: a `ConversationContext.toJSON()` snapshot, or JSON Lines of `GMITurnInput`s
//! each followed by the `GMIOutput` of the model call it triggered.
//!
//! In a snapshot, each assistant message is one turn, its `BKNResponse` the message
//! itself; the messages since the previous assistant message form the prompt,
//! `{"messages": [...]}`, and the first prompt also keeps the snapshot's other members
//! (`config`, `sessionMetadata`, ...). Of the roles only AgentOS has, `summary` is input
//! (AgentOS sends it to the model as a system message) and `error` is kept as input too,
//! though AgentOS leaves it out of prompts; `thought` is model output, kept in the
//! response of its call: `{"messages": [thoughts..., assistant]}`. Message timestamps are
//! epoch milliseconds; `createdAt` is the session's start.
//!
//! In a stream, an input and the output after it are one turn: the prompt is the input
//! line as written (inputs before it since the previous output, such as a
//! `system_message`, under `earlierInputs`), the response the output line. Text and
//! multimodal inputs give `H-User`, tool responses `A-User`. `userContextOverride` becomes
//! the turn's `UserEntityState`, `metadata.executionPolicy` and `metadata.promptProfile`
//! its `AUCInstruction`. Streamed `GMIOutputChunk`s are not read.

use super::session::other_members;
use super::session::{SessionDraft, TurnDraft};
use super::time::{Stamp, TimeProblem, parse_iso};
use super::turns::awaiting_note;
use super::{ImportError, ImportOptions, Importer, Record, Sessions};
use crate::model::JsonObject;
use serde_json::{Map, Value};

/// The AgentOS importer.
pub struct AgentOs;

/// The shapes this importer reads, said when a record is none of them.
const SHAPES: &str = "a ConversationContext.toJSON() object {sessionId, createdAt, messages, config}, or JSON Lines of GMITurnInput lines (interactionId, type, content) each followed by the GMIOutput (isFinal, responseText, toolCalls) of the call it triggered";

/// `ConversationMessage` roles.
const ROLES: [&str; 7] = [
    "system",
    "user",
    "assistant",
    "tool",
    "summary",
    "error",
    "thought",
];

/// `GMIInteractionType`s.
const INPUT_TYPES: [&str; 5] = [
    "text",
    "multimodal_content",
    "tool_response",
    "system_message",
    "lifecycle_event",
];

/// `GMIOutputChunkType`s that are no input type.
const CHUNK_TYPES: [&str; 9] = [
    "text_delta",
    "tool_call_request",
    "reasoning_state_update",
    "final_response_marker",
    "error",
    "usage_update",
    "latency_report",
    "ui_command",
    "rag_sources_available",
];

/// Where `earlierInputs` go in a stream turn's prompt.
const EARLIER: &str = "earlierInputs";

impl Importer for AgentOs {
    fn name(&self) -> &'static str {
        "agentos"
    }

    fn description(&self) -> &'static str {
        "AgentOS conversation contexts and GMI turn input/output streams"
    }

    fn detect(&self, first: &Record) -> bool {
        let Some(object) = first.value.as_object() else {
            return false;
        };
        if is_context(object) {
            return object.get("sessionId").is_some_and(Value::is_string)
                && (object.get("createdAt").is_some_and(Value::is_number)
                    || object.get("config").is_some_and(Value::is_object));
        }
        let typed_interaction = object.get("interactionId").is_some_and(Value::is_string)
            && object.get("type").is_some_and(Value::is_string);
        let output = object.get("isFinal").is_some_and(Value::is_boolean)
            && !object.contains_key("type")
            && ["responseText", "toolCalls", "usage", "error"]
                .iter()
                .any(|key| object.contains_key(*key));
        typed_interaction || output
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        const ONE_KIND: &str = "records of one kind: a file holds ConversationContext snapshots or a GMITurnInput/GMIOutput stream, not both";
        let mut stream: Option<Stream> = None;
        let mut snapshots = false;
        for record in records {
            let record = record?;
            if record.value.as_object().is_some_and(is_context) {
                if stream.is_some() {
                    return Err(record.error("", ONE_KIND));
                }
                snapshots = true;
                let mut draft = context(&record)?;
                draft.line = record.line;
                sessions.add(draft)?;
            } else if snapshots {
                return Err(record.error("", ONE_KIND));
            } else {
                stream
                    .get_or_insert_with(Stream::default)
                    .add(&record, sessions.options())?;
            }
        }
        match stream {
            Some(stream) => sessions.add(stream.finish()),
            None => Ok(()),
        }
    }
}

/// Whether an object is a conversation snapshot rather than a stream line.
fn is_context(object: &JsonObject) -> bool {
    object.contains_key("messages") && !object.contains_key("interactionId")
}

/// Epoch milliseconds, as AgentOS writes `Date.now()`.
fn epoch_millis(value: &Value) -> Option<Stamp> {
    #[allow(clippy::cast_possible_truncation)] // Whole milliseconds are what is meant.
    let ms = value
        .as_i64()
        .or_else(|| value.as_f64().map(|f| f as i64))?;
    Some(Stamp::Millis(ms))
}

// --- ConversationContext snapshots ----------------------------------------------------

/// One snapshot: one session.
fn context(record: &Record) -> Result<SessionDraft, ImportError> {
    let object = record
        .value
        .as_object()
        .ok_or_else(|| record.error("", SHAPES))?;
    let session_id = object
        .get("sessionId")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            record.error(
                "/sessionId",
                "a string `sessionId` in a ConversationContext",
            )
        })?;
    let messages = object
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| record.error("/messages", "`messages` to be an array"))?;
    let mut gathered = Conversation::default();
    for (index, message) in messages.iter().enumerate() {
        let pointer = format!("/messages/{index}");
        let (role, time) = checked_message(record, message, &pointer)?;
        gathered.add(role, message, time);
    }
    let rest: JsonObject = other_members(object, "messages");
    let mut draft = gathered.finish(rest);
    draft.session_id = Some(session_id.to_owned());
    draft.start = object.get("createdAt").and_then(epoch_millis);
    Ok(draft)
}

/// A message's role and time, after checking the members it must type.
fn checked_message<'a>(
    record: &Record,
    message: &'a Value,
    pointer: &str,
) -> Result<(&'a str, Option<Stamp>), ImportError> {
    let object = message
        .as_object()
        .ok_or_else(|| record.error(pointer, "a ConversationMessage object"))?;
    let role = object.get("role").and_then(Value::as_str).ok_or_else(|| {
        record.error(
            pointer,
            format!("a string `role`, one of {}", ROLES.join(", ")),
        )
    })?;
    if !ROLES.contains(&role) {
        return Err(record.error(
            &format!("{pointer}/role"),
            format!("a role one of {}; found {role:?}", ROLES.join(", ")),
        ));
    }
    let time = match object.get("timestamp") {
        None | Some(Value::Null) => None,
        Some(value) => Some(epoch_millis(value).ok_or_else(|| {
            record.error(
                &format!("{pointer}/timestamp"),
                "a `timestamp` in epoch milliseconds",
            )
        })?),
    };
    check_tool_calls(
        record,
        object.get("tool_calls"),
        &format!("{pointer}/tool_calls"),
    )?;
    Ok((role, time))
}

/// Checks AgentOS tool calls (`tool_calls` of a message, `toolCalls` of an output): an
/// array of `{id, name, arguments}`.
fn check_tool_calls(
    record: &Record,
    calls: Option<&Value>,
    pointer: &str,
) -> Result<(), ImportError> {
    let calls = match calls {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(calls)) => calls,
        Some(_) => {
            return Err(record.error(
                pointer,
                "tool calls to be an array of {id, name, arguments}",
            ));
        }
    };
    for (index, call) in calls.iter().enumerate() {
        let at = format!("{pointer}/{index}");
        if !call.get("id").is_some_and(Value::is_string) {
            return Err(record.error(
                &at,
                "a tool call with a string `id` (results answer it by id)",
            ));
        }
        if !call.get("name").is_some_and(Value::is_string) {
            return Err(record.error(&at, "a tool call with a string `name`"));
        }
    }
    Ok(())
}

/// The turns of a snapshot being gathered: every assistant message closes one.
#[derive(Default)]
struct Conversation {
    turns: Vec<(TurnDraft, Vec<Value>)>,
    pending: Vec<Value>,
    thoughts: Vec<Value>,
    human: bool,
    prompt_time: Option<Stamp>,
    counted: Counted,
}

/// The messages of the roles only AgentOS has, to say where they went.
#[derive(Default)]
struct Counted {
    thoughts: usize,
    summaries: usize,
    errors: usize,
}

impl Conversation {
    fn add(&mut self, role: &str, message: &Value, time: Option<Stamp>) {
        match role {
            "assistant" => self.add_turn(Some((message, time))),
            "thought" => {
                self.counted.thoughts += 1;
                // Right after an answer, with no input between, a thought is that call's.
                match self.turns.last_mut() {
                    Some((_, output)) if self.pending.is_empty() && self.thoughts.is_empty() => {
                        output.push(message.clone());
                    }
                    _ => self.thoughts.push(message.clone()),
                }
            }
            _ => {
                self.counted.summaries += usize::from(role == "summary");
                self.counted.errors += usize::from(role == "error");
                self.human |= role == "user";
                self.pending.push(message.clone());
                if time.is_some() {
                    self.prompt_time = time;
                }
            }
        }
    }

    /// The session, the snapshot's other members `rest` on the first prompt.
    fn finish(mut self, rest: JsonObject) -> SessionDraft {
        let mut draft = SessionDraft::default();
        let trailing = self.pending.len() + self.thoughts.len();
        if trailing > 0 {
            // Thoughts without their answer are the model's output so far: the turn has
            // begun its response; inputs alone await it (`{}`).
            self.add_turn(None);
        }
        for (mut turn, mut output) in self.turns {
            turn.response = match (output.len(), output.pop()) {
                (1, Some(Value::Object(message))) => message,
                (_, Some(last)) => {
                    output.push(last);
                    let mut response = Map::new();
                    response.insert("messages".to_owned(), Value::Array(output));
                    response
                }
                (_, None) => Map::new(),
            };
            draft.turns.push(turn);
        }
        if let Some(first) = draft.turns.first_mut() {
            let mut prompt = rest;
            prompt.append(&mut first.prompt);
            first.prompt = prompt;
        }
        draft.notes = self.counted.notes();
        if trailing > 0 {
            draft.notes.push(awaiting_note(
                trailing,
                "message(s) after the last assistant message",
            ));
        }
        draft
    }
}

impl Conversation {
    /// Closes the turn of the messages since the last answer, with `answer` (none for
    /// messages that await it).
    fn add_turn(&mut self, answer: Option<(&Value, Option<Stamp>)>) {
        let mut prompt = Map::new();
        prompt.insert(
            "messages".to_owned(),
            Value::Array(std::mem::take(&mut self.pending)),
        );
        let mut output = std::mem::take(&mut self.thoughts);
        output.extend(answer.map(|(message, _)| message.clone()));
        let turn = TurnDraft {
            prompt,
            human: std::mem::take(&mut self.human),
            time: self.prompt_time.take(),
            response_time: answer.and_then(|(_, time)| time),
            ..TurnDraft::default()
        };
        self.turns.push((turn, output));
    }
}

impl Counted {
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.thoughts > 0 {
            notes.push(format!(
                "{} `thought` message(s) kept in the response of their call, `{{\"messages\": [...]}}` with the assistant message: model reasoning, which AgentOS does not send back to the model",
                self.thoughts
            ));
        }
        if self.summaries > 0 {
            notes.push(format!(
                "{} `summary` message(s) kept in the prompt: AgentOS sends a summary to the model as a system message",
                self.summaries
            ));
        }
        if self.errors > 0 {
            notes.push(format!(
                "{} `error` message(s) kept in the prompt of the next call, though AgentOS leaves them out of what it sends to the model",
                self.errors
            ));
        }
        notes
    }
}

// --- GMITurnInput / GMIOutput streams -------------------------------------------------

/// A stream being read: the turns so far and the inputs since the last output.
#[derive(Default)]
struct Stream {
    draft: SessionDraft,
    session_id: Option<String>,
    pending: Vec<Input>,
    naive: bool,
    /// The earliest input time: inputs before a turn's last one count too.
    earliest: Option<Stamp>,
}

/// An input line, checked.
struct Input {
    object: JsonObject,
    human: bool,
    time: Option<Stamp>,
}

impl Stream {
    fn add(&mut self, record: &Record, options: &ImportOptions) -> Result<(), ImportError> {
        let object = record
            .value
            .as_object()
            .ok_or_else(|| record.error("", SHAPES))?;
        if let Some(kind) = object.get("type") {
            refuse_chunk(record, object, kind)?;
            return self.input(record, object, options);
        }
        if object.contains_key("isFinal") {
            return self.output(record, object);
        }
        if object.contains_key("interactionId") {
            return self.input(record, object, options);
        }
        Err(record.error("", SHAPES))
    }

    fn input(
        &mut self,
        record: &Record,
        object: &JsonObject,
        options: &ImportOptions,
    ) -> Result<(), ImportError> {
        if !object.get("interactionId").is_some_and(Value::is_string) {
            return Err(record.error(
                "/interactionId",
                "a string `interactionId` on a GMITurnInput",
            ));
        }
        let kind = object.get("type").and_then(Value::as_str).ok_or_else(|| {
            record.error(
                "/type",
                format!("a string `type`, one of {}", INPUT_TYPES.join(", ")),
            )
        })?;
        if !INPUT_TYPES.contains(&kind) {
            return Err(record.error(
                "/type",
                format!(
                    "a GMITurnInput `type` one of {}; found {kind:?}",
                    INPUT_TYPES.join(", ")
                ),
            ));
        }
        if kind == "tool_response" {
            check_results(record, object.get("content"))?;
        }
        self.check_session(record, object)?;
        let time = match object.get("timestamp") {
            None | Some(Value::Null) => None,
            Some(value) => self.time(record, value, options)?,
        };
        if let Some(stamp) = time {
            self.earliest = Some(self.earliest.map_or(stamp, |e| e.min(stamp)));
        }
        self.pending.push(Input {
            object: object.clone(),
            human: matches!(kind, "text" | "multimodal_content"),
            time,
        });
        Ok(())
    }

    fn check_session(&mut self, record: &Record, object: &JsonObject) -> Result<(), ImportError> {
        let Some(id) = object.get("sessionId") else {
            return Ok(());
        };
        let id = id
            .as_str()
            .ok_or_else(|| record.error("/sessionId", "a string `sessionId`"))?;
        match &self.session_id {
            Some(earlier) if earlier != id => Err(record.error(
                "/sessionId",
                format!(
                    "one session per file: earlier lines name session {earlier:?}, this one {id:?}"
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.session_id = Some(id.to_owned());
                Ok(())
            }
        }
    }

    fn time(
        &mut self,
        record: &Record,
        value: &Value,
        options: &ImportOptions,
    ) -> Result<Option<Stamp>, ImportError> {
        let invalid = || record.error("/timestamp", "an ISO 8601 `timestamp` (a serialised Date)");
        match parse_iso(value.as_str().ok_or_else(invalid)?, options) {
            Ok(stamp) => Ok(Some(stamp)),
            Err(TimeProblem::NaiveWithoutZone) => {
                self.naive = true;
                Ok(None)
            }
            Err(TimeProblem::Invalid) => Err(invalid()),
        }
    }

    fn output(&mut self, record: &Record, object: &JsonObject) -> Result<(), ImportError> {
        if self.pending.is_empty() {
            return Err(record.error(
                "",
                "a GMIOutput after the GMITurnInput that triggered it; this output follows no input",
            ));
        }
        check_tool_calls(record, object.get("toolCalls"), "/toolCalls")?;
        self.close_turn(object.clone());
        Ok(())
    }

    /// The turn of the inputs since the last output, with `response` (`{}` for inputs
    /// that await their output).
    fn close_turn(&mut self, response: JsonObject) {
        let inputs = std::mem::take(&mut self.pending);
        let mut turn = TurnDraft {
            response,
            human: inputs.iter().any(|input| input.human),
            time: inputs.iter().filter_map(|input| input.time).next_back(),
            ..TurnDraft::default()
        };
        let mut instruction = Map::new();
        for input in &inputs {
            if let Some(Value::Object(state)) = input.object.get("userContextOverride") {
                turn.user_entity_state = Some(state.clone());
            }
            for key in ["executionPolicy", "promptProfile"] {
                if let Some(Value::Object(value)) =
                    input.object.get("metadata").and_then(|m| m.get(key))
                {
                    instruction.insert(key.to_owned(), Value::Object(value.clone()));
                }
            }
        }
        turn.instruction = (!instruction.is_empty()).then_some(instruction);
        turn.prompt = prompt_of(inputs);
        self.draft.turns.push(turn);
    }

    fn finish(mut self) -> SessionDraft {
        if self.naive {
            self.draft
                .notes
                .push("naive local times ignored: give --timezone".to_owned());
        }
        if !self.pending.is_empty() {
            self.draft.notes.push(awaiting_note(
                self.pending.len(),
                "input line(s) after the last output",
            ));
            self.close_turn(Map::new());
        }
        self.draft.session_id = self.session_id;
        self.draft.start = self.earliest;
        self.draft
    }
}

/// The prompt of a stream turn: the input that triggered the call as written, with the
/// inputs before it under `earlierInputs` (or all of them under `inputs`, should the
/// input have a member of that name).
fn prompt_of(mut inputs: Vec<Input>) -> JsonObject {
    let Some(last) = inputs.pop() else {
        return Map::new();
    };
    let mut prompt = last.object;
    if inputs.is_empty() {
        return prompt;
    }
    let earlier: Vec<Value> = inputs
        .into_iter()
        .map(|input| Value::Object(input.object))
        .collect();
    if prompt.contains_key(EARLIER) {
        let mut all = earlier;
        all.push(Value::Object(prompt));
        let mut wrapped = Map::new();
        wrapped.insert("inputs".to_owned(), Value::Array(all));
        return wrapped;
    }
    prompt.insert(EARLIER.to_owned(), Value::Array(earlier));
    prompt
}

/// Refuses a `GMIOutputChunk` line, saying which shapes are read.
fn refuse_chunk(record: &Record, object: &JsonObject, kind: &Value) -> Result<(), ImportError> {
    let chunk_type = kind
        .as_str()
        .is_some_and(|kind| CHUNK_TYPES.contains(&kind));
    if chunk_type || object.contains_key("chunkId") || object.contains_key("isFinal") {
        return Err(record.error(
            "/type",
            format!(
                "{SHAPES}; found a streamed GMIOutputChunk (type {kind}), which this importer does not read"
            ),
        ));
    }
    Ok(())
}

/// Checks the `content` of a `tool_response` input: one `ToolCallResult` or an array.
fn check_results(record: &Record, content: Option<&Value>) -> Result<(), ImportError> {
    const RESULT: &str =
        "a ToolCallResult {toolCallId, toolName, output, isError?} with a string `toolCallId`";
    let is_result = |value: &Value| value.get("toolCallId").is_some_and(Value::is_string);
    match content {
        Some(Value::Array(results)) => {
            for (index, result) in results.iter().enumerate() {
                if !is_result(result) {
                    return Err(record.error(&format!("/content/{index}"), RESULT));
                }
            }
            Ok(())
        }
        Some(result) if is_result(result) => Ok(()),
        _ => Err(record.error(
            "/content",
            format!("the `content` of a tool_response: {RESULT}, or an array of them"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::AgentOs;
    use crate::import::testing::{Counts, convert_text, counts, detect_text};
    use crate::import::{Converted, ImportOptions};
    use serde_json::{Value, json};

    const CONTEXT: &str =
        include_str!("../../tests/fixtures/import/agentos/context-parallel-tools.json");
    const STREAM: &str = include_str!("../../tests/fixtures/import/agentos/stream-tool-loop.jsonl");
    const MULTIMODAL: &str =
        include_str!("../../tests/fixtures/import/agentos/stream-multimodal-error.jsonl");

    fn convert(name: &str, text: &str, options: &ImportOptions) -> Converted {
        let mut sessions = convert_text(&AgentOs, name, text, options).expect("converts");
        assert_eq!(sessions.len(), 1);
        sessions.remove(0)
    }

    fn roles(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    fn start(time: &Value) -> i64 {
        time["SimpleTimeData"][0]["StartTime"]
            .as_i64()
            .expect("start")
    }

    #[test]
    fn a_context_snapshot_pairs_parallel_calls_and_flags_a_failed_result() {
        let converted = convert("c.json", CONTEXT, &ImportOptions::default());
        assert_eq!(
            counts(&converted),
            Counts {
                turns: 4,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 1,
                tools: vec!["get_weather".into()],
                roles: roles(&["H-User", "A-User", "H-User", "H-User"]),
            }
        );
        let document = &converted.document();
        assert_eq!(document["SessionID"], "conv-persisted-restart-batch");
        assert_eq!(converted.session_id, "conv-persisted-restart-batch");
        assert_eq!(start(&document["SessionStartTime"]), 1_773_475_200_000);
        let turns = &document["Turns"];
        // Turn 0: the system and user messages, with the snapshot's other members.
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(first["messages"][0]["role"], "system");
        assert_eq!(first["config"]["utilityAIServiceId"], "llm_utility_ai_v1");
        assert_eq!(first["sessionMetadata"]["activePersonaId"], "v_weather");
        assert_eq!(
            first["messages"][1]["content"],
            "Vergleiche das Wetter in Zürich und 東京."
        );
        assert_eq!(
            turns[0]["BKNResponse"]["tool_calls"][1]["arguments"]["city"],
            "東京"
        );
        assert_eq!(start(&turns[0]["Timestamp"]), 1_773_475_201_000);
        assert!(turns[1]["PRCPrompt"].get("config").is_none());
        // Turn 1: both results; the thought joins the answer of its call.
        assert_eq!(
            turns[1]["PRCPrompt"]["messages"][1]["metadata"]["isSuccess"],
            false
        );
        assert_eq!(start(&turns[1]["Timestamp"]), 1_773_475_203_100);
        let output = turns[1]["BKNResponse"]["messages"]
            .as_array()
            .expect("messages");
        assert_eq!(output.len(), 2);
        assert_eq!(output[0]["role"], "thought");
        assert_eq!(
            output[1]["content"],
            "In Zürich sind es 7 °C bei Nebel 🌫️; für 東京 kam keine Antwort (Zeitüberschreitung)."
        );
        // Turn 2: the summary and the error are input.
        let third: Vec<&Value> = turns[2]["PRCPrompt"]["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| &m["role"])
            .collect();
        assert_eq!(third, [&json!("summary"), &json!("user"), &json!("error")]);
        assert_eq!(turns[2]["BKNResponse"]["role"], "assistant");
        for expected in [
            "1 `thought` message(s) kept in the response",
            "1 `summary` message(s) kept in the prompt",
            "1 `error` message(s) kept in the prompt",
            "1 message(s) after the last assistant message form the last turn, which awaits its response",
        ] {
            assert!(
                converted.notes.iter().any(|n| n.starts_with(expected)),
                "{expected}: {:?}",
                converted.notes
            );
        }
        assert!(!converted.notes.iter().any(|n| n.contains("derived")));
    }

    #[test]
    fn a_thought_right_after_an_answer_belongs_to_that_call() {
        let text = r#"{"sessionId": "conv_ctx_1", "createdAt": 1000, "messages": [
            {"id": "msg_1", "role": "user", "content": "Hallo", "timestamp": 1001},
            {"id": "msg_2", "role": "assistant", "content": "Grüezi!", "timestamp": 1002},
            {"id": "msg_3", "role": "thought", "content": "Kurz halten.", "timestamp": 1003},
            {"id": "msg_4", "role": "user", "content": "Wie geht's?", "timestamp": 1004},
            {"id": "msg_5", "role": "assistant", "content": "Gut.", "timestamp": 1005},
            {"id": "msg_6", "role": "thought", "content": "Nachfragen?", "timestamp": 1006}
        ], "config": {}}"#;
        let converted = convert("t.json", text, &ImportOptions::default());
        let turns = &converted.document()["Turns"];
        assert_eq!(
            turns[0]["BKNResponse"]["messages"],
            json!([
                {"id": "msg_2", "role": "assistant", "content": "Grüezi!", "timestamp": 1002},
                {"id": "msg_3", "role": "thought", "content": "Kurz halten.", "timestamp": 1003}
            ])
        );
        assert_eq!(turns[1]["BKNResponse"]["messages"][0]["content"], "Gut.");
        assert_eq!(turns[1]["BKNResponse"]["messages"][1]["role"], "thought");
        assert_eq!(start(&turns[1]["Timestamp"]), 1004);
        // The trailing thought follows an answer: it is that answer's.
        assert!(!converted.notes.iter().any(|n| n.contains("form no turn")));
        assert!(converted.notes.iter().any(|n| n.starts_with("2 `thought`")));
    }

    #[test]
    fn a_stream_gives_one_turn_per_input_and_output() {
        let converted = convert("s.jsonl", STREAM, &ImportOptions::default());
        assert_eq!(
            counts(&converted),
            Counts {
                turns: 3,
                calls: 3,
                results: 3,
                paired: 3,
                errors: 1,
                tools: vec![
                    "air_quality".into(),
                    "get_weather".into(),
                    "world_clock".into()
                ],
                roles: roles(&["H-User", "A-User", "A-User"]),
            }
        );
        let document = &converted.document();
        assert_eq!(document["SessionID"], "conv-7");
        // The system message input is the session's earliest time.
        assert_eq!(start(&document["SessionStartTime"]), 1_773_475_200_000);
        let turns = &document["Turns"];
        let first = &turns[0];
        assert_eq!(first["PRCPrompt"]["type"], "text");
        assert_eq!(
            first["PRCPrompt"]["content"],
            "Wie spät ist es in 東京, und wie ist dort das Wetter? ☔"
        );
        assert_eq!(
            first["PRCPrompt"]["earlierInputs"][0]["type"],
            "system_message"
        );
        assert_eq!(
            first["PRCPrompt"]["metadata"]["promptProfile"]["systemInstructions"],
            "Sei kurz und präzise."
        );
        assert_eq!(
            first["UserEntityState"],
            json!({"preferredLanguage": "de", "skillLevel": "expert"})
        );
        assert_eq!(
            first["AUCInstruction"]["executionPolicy"]["toolFailureMode"],
            "fail_open"
        );
        assert_eq!(first["AUCInstruction"]["promptProfile"]["id"], "concise");
        assert_eq!(start(&first["Timestamp"]), 1_773_475_201_250);
        assert_eq!(first["BKNResponse"]["toolCalls"][0]["id"], "call_time");
        assert!(turns[1].get("UserEntityState").is_none());
        assert!(turns[1]["PRCPrompt"].get("earlierInputs").is_none());
        assert_eq!(start(&turns[2]["Timestamp"]), 1_773_475_203_400);
        assert_eq!(turns[2]["PRCPrompt"]["content"][1]["isError"], true);
        assert_eq!(turns[2]["BKNResponse"]["isFinal"], true);
        assert!(converted.notes.is_empty(), "{:?}", converted.notes);
    }

    #[test]
    fn a_stream_without_session_or_times_is_said_and_escapes_decoded() {
        let converted = convert("m.jsonl", MULTIMODAL, &ImportOptions::default());
        assert_eq!(
            counts(&converted),
            Counts {
                turns: 2,
                roles: roles(&["H-User", "A-User"]),
                ..Counts::default()
            }
        );
        let turn = &converted.document()["Turns"][0];
        assert_eq!(
            turn["PRCPrompt"]["content"]["text"],
            "Was steht auf diesem Schild? مرحبا 🪧"
        );
        assert_eq!(turn["BKNResponse"]["error"]["code"], "PROVIDER_ERROR");
        assert_eq!(turn["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 0);
        assert!(converted.session_id.starts_with("m-"));
        assert!(
            converted
                .notes
                .iter()
                .any(|n| n.starts_with("1 input line(s) after the last output")),
            "{:?}",
            converted.notes
        );
    }

    #[test]
    fn auto_recognises_each_shape() {
        for (name, text) in [
            ("c.json", CONTEXT),
            ("s.jsonl", STREAM),
            ("m.jsonl", MULTIMODAL),
        ] {
            assert_eq!(detect_text(name, text).expect(name), "agentos", "{name}");
        }
    }

    #[test]
    fn a_broken_context_is_refused_with_its_place() {
        let message = |m: &str| {
            format!(
                r#"{{"sessionId": "s", "createdAt": 1, "config": {{}}, "messages": [{{"id": "msg_1", "role": "user", "content": "x", "timestamp": 1}}, {m}]}}"#
            )
        };
        let cases = [
            (
                message(r#"{"id": "msg_2", "content": "y"}"#),
                "/messages/1",
                "a string `role`",
            ),
            (
                message(r#"{"role": "robot", "content": "y"}"#),
                "/messages/1/role",
                "found \"robot\"",
            ),
            (
                message(r#""hello""#),
                "/messages/1",
                "a ConversationMessage object",
            ),
            (
                message(r#"{"role": "assistant", "content": null, "tool_calls": {"id": "c"}}"#),
                "/messages/1/tool_calls",
                "an array",
            ),
            (
                message(r#"{"role": "assistant", "tool_calls": [{"name": "f", "arguments": {}}]}"#),
                "/messages/1/tool_calls/0",
                "a string `id`",
            ),
            (
                message(r#"{"role": "assistant", "content": "y", "timestamp": "yesterday"}"#),
                "/messages/1/timestamp",
                "epoch milliseconds",
            ),
            (
                r#"{"sessionId": "s", "messages": {"role": "user"}}"#.to_owned(),
                "/messages",
                "an array",
            ),
            (
                r#"{"sessionId": 7, "messages": []}"#.to_owned(),
                "/sessionId",
                "a string `sessionId`",
            ),
            (
                r#"{"sessionId": "s", "createdAt": 1, "config": {}, "messages": []}"#.to_owned(),
                "(document)",
                "at least one message",
            ),
        ];
        for (text, place, expected) in cases {
            let error = convert_text(&AgentOs, "bad.json", &text, &ImportOptions::default())
                .expect_err(&text);
            assert!(error.place.ends_with(place), "{text}: {error}");
            assert!(error.message.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn a_broken_stream_is_refused_with_its_line_and_place() {
        let text_input = r#"{"interactionId": "i1", "userId": "u", "sessionId": "s1", "type": "text", "content": "hi"}"#;
        let cases = [
            (
                r#"{"userId": "u", "interactionId": 5, "type": "text", "content": "hi"}"#.to_owned(),
                "line 1, /interactionId",
                "a string `interactionId`",
            ),
            (
                r#"{"interactionId": "i1", "userId": "u", "content": "hi"}"#.to_owned(),
                "line 1, /type",
                "a string `type`",
            ),
            (
                r#"{"interactionId": "i1", "userId": "u", "type": "voice", "content": "hi"}"#.to_owned(),
                "line 1, /type",
                "found \"voice\"",
            ),
            (
                r#"{"isFinal": true, "responseText": "hello"}"#.to_owned(),
                "line 1, (document)",
                "follows no input",
            ),
            (
                format!("{text_input}\n{}", r#"{"isFinal": false, "toolCalls": {"id": "c"}}"#),
                "line 2, /toolCalls",
                "an array",
            ),
            (
                format!(
                    "{text_input}\n{}",
                    r#"{"isFinal": false, "toolCalls": [{"name": "f", "arguments": {}}]}"#
                ),
                "line 2, /toolCalls/0",
                "a string `id`",
            ),
            (
                format!(
                    "{text_input}\n{}\n{}",
                    r#"{"isFinal": true, "responseText": "a"}"#,
                    r#"{"interactionId": "i2", "userId": "u", "sessionId": "s2", "type": "text", "content": "b"}"#
                ),
                "line 3, /sessionId",
                "earlier lines name session \"s1\", this one \"s2\"",
            ),
            (
                r#"{"type": "text_delta", "content": "Hal", "interactionId": "i1", "timestamp": "2026-03-14T08:00:00Z"}"#.to_owned(),
                "line 1, /type",
                "GMIOutputChunk",
            ),
            (
                r#"{"interactionId": "i1", "userId": "u", "type": "tool_response", "content": [{"toolName": "f", "output": 1}]}"#.to_owned(),
                "line 1, /content/0",
                "a string `toolCallId`",
            ),
            (
                r#"{"interactionId": "i1", "userId": "u", "type": "text", "content": "x", "timestamp": "soon"}"#.to_owned(),
                "line 1, /timestamp",
                "an ISO 8601 `timestamp`",
            ),
            (
                format!("{text_input}\n{}", r#"{"sessionId": "s", "messages": []}"#),
                "line 2, (document)",
                "records of one kind",
            ),
            (
                r#"{"hello": "world"}"#.to_owned(),
                "line 1, (document)",
                "a ConversationContext.toJSON() object",
            ),
        ];
        for (text, place, expected) in cases {
            let error = convert_text(&AgentOs, "bad.jsonl", &text, &ImportOptions::default())
                .expect_err(&text);
            assert!(error.place.starts_with(place), "{text}: {error}");
            assert!(error.message.contains(expected), "{text}: {error}");
        }
    }
}
