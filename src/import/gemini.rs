//! Gemini `generateContent`: a request body (`{contents, systemInstruction?, tools?,
//! generationConfig?, ...}`), a bare `contents` array, the Python SDK's snake-case dumps
//! of either (`function_call`, `inline_data`, `system_instruction`, explicit nulls), a
//! chat session dumped with its history (`{model, system_instruction?, config?,
//! history}`: google-genai's `Chat.get_history()` or google-generativeai's
//! `ChatSession.history`, in either casing), or JSON Lines of `{request, response}` log
//! records.
//!
//! Each `model` content is one turn, its `BKNResponse` the content itself; the contents
//! since the previous `model` content form the prompt, `{"contents": [...]}`, and the
//! first turn's prompt also keeps the request's other members (`systemInstruction`,
//! `tools`, ...). A chat session's `history` is read as `contents` are, and the first
//! prompt keeps the session's other members (`model`, `system_instruction`, `config`,
//! ...) beside the contents it sent. google-genai records a streamed answer as one
//! `model` content per chunk: in a history, `model` contents in a row are the chunks of
//! one response, their parts joined into one content, and each chunk's other members (its
//! `role`) kept in order in the content's `chunks`. In a log, each record is one call:
//! its prompt is the request with `contents` cut to those sent since the request's last
//! `model` content (a log repeats the whole history in every request), its response the
//! response object. Vertex's `createTime` is when the request reached the server: the
//! time the call began.
//!
//! Function responses come back in `user` contents (enforced by newer models), `function`
//! contents (older samples) or `tool` contents; a content holding only function responses
//! is no new human message. Calls rarely carry ids: the payload layer pairs them with
//! their responses by id when present, else by name, then order. Thought parts and
//! `thoughtSignature`s stay verbatim in the responses. A request body or a contents array
//! is one session per file, or one per line in JSON Lines; a log is one session.

use super::session::{SessionDraft, TurnDraft};
use super::time::{Stamp, parse_iso};
use super::turns::{Exchange, Splitter, awaiting_note};
use super::{ImportError, ImportOptions, Importer, Record, Sessions};
use crate::model::JsonObject;
use serde_json::{Map, Value};

/// The Gemini importer.
pub struct Gemini;

/// The roles of Gemini contents, as errors name them.
const ROLES: &str = "one of user, model, function, tool (no role means user)";
/// The keys of a function call part, in the REST and the Python SDK spelling.
const CALL_KEYS: [&str; 2] = ["functionCall", "function_call"];
/// The keys of a function response part, likewise.
const RESPONSE_KEYS: [&str; 2] = ["functionResponse", "function_response"];
/// Request members only Gemini has: with `contents`, they mark a request body.
const REQUEST_MARKERS: [&str; 4] = [
    "systemInstruction",
    "system_instruction",
    "generationConfig",
    "generation_config",
];
/// The member holding a chat session's contents in a dump of the session.
const HISTORY: &str = "history";

impl Importer for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn description(&self) -> &'static str {
        "Gemini generateContent contents, request bodies, request/response logs and Python SDK chat sessions with their history"
    }

    fn detect(&self, first: &Record) -> bool {
        match &first.value {
            Value::Array(contents) => is_contents(contents),
            Value::Object(object) => match object.get("request").and_then(Value::as_object) {
                Some(request) => {
                    let answered = object
                        .get("response")
                        .is_some_and(|r| r.get("candidates").is_some());
                    request.get("contents").is_some_and(Value::is_array)
                        && (is_request(request) || answered)
                }
                None => is_request(object) || is_chat_session(object),
            },
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
                log.get_or_insert_with(Log::default)
                    .add(&record, sessions.options())?;
            } else {
                conversations = true;
                let mut draft = conversation(&record)?;
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

/// Whether `object` is a request body: `contents` holding contents, or beside members
/// only Gemini requests have.
fn is_request(object: &JsonObject) -> bool {
    object
        .get("contents")
        .and_then(Value::as_array)
        .is_some_and(|contents| {
            is_contents(contents) || REQUEST_MARKERS.iter().any(|k| object.contains_key(*k))
        })
}

/// Whether `object` is a chat session dumped with its history: a `history` of contents,
/// one of them the model's (`model` is a role only Gemini has), and no `contents`.
fn is_chat_session(object: &JsonObject) -> bool {
    !object.contains_key("contents")
        && object
            .get(HISTORY)
            .and_then(Value::as_array)
            .is_some_and(|history| {
                is_contents(history)
                    && history
                        .iter()
                        .any(|content| content.get("role").and_then(Value::as_str) == Some("model"))
            })
}

/// Whether `items` look like Gemini contents: objects, each with `parts`, at least one
/// of them an array.
fn is_contents(items: &[Value]) -> bool {
    items
        .iter()
        .all(|item| item.as_object().is_some_and(|o| o.contains_key("parts")))
        && items
            .iter()
            .any(|item| item.get("parts").is_some_and(Value::is_array))
}

/// Who wrote a content, for the turn rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    /// The model: a response.
    Model,
    /// The user, with at least one part that is not a function response.
    Human,
    /// Function responses only: the agent prompting again.
    Tool,
}

/// Who wrote `content`, after checking its role and parts.
fn speaker(record: &Record, content: &Value, pointer: &str) -> Result<Speaker, ImportError> {
    let object = content
        .as_object()
        .ok_or_else(|| record.error(pointer, "a content object `{role, parts}`"))?;
    let parts = checked_parts(record, object, pointer)?;
    let role = match object.get("role") {
        None | Some(Value::Null) => "user",
        Some(Value::String(role)) => role.as_str(),
        Some(_) => {
            return Err(record.error(
                &format!("{pointer}/role"),
                format!("a string `role`, {ROLES}"),
            ));
        }
    };
    match role {
        "model" => Ok(Speaker::Model),
        "user" if parts.iter().any(|part| !is_function_response(part)) => Ok(Speaker::Human),
        "user" | "function" | "tool" => Ok(Speaker::Tool),
        other => Err(record.error(
            &format!("{pointer}/role"),
            format!("a role {ROLES}; found {other:?}"),
        )),
    }
}

/// The parts of a content (none when `parts` is absent or null, as in a blocked
/// response or a Python dump), each checked.
fn checked_parts<'a>(
    record: &Record,
    content: &'a JsonObject,
    pointer: &str,
) -> Result<&'a [Value], ImportError> {
    let parts = match content.get("parts") {
        None | Some(Value::Null) => return Ok(&[]),
        Some(Value::Array(parts)) => parts,
        Some(_) => {
            return Err(record.error(
                &format!("{pointer}/parts"),
                "`parts` to be an array of parts",
            ));
        }
    };
    for (index, part) in parts.iter().enumerate() {
        check_part(record, part, &format!("{pointer}/parts/{index}"))?;
    }
    Ok(parts)
}

/// A part is an object; its function call or response, if any, names the function.
/// Other kinds of parts (text, inline data, code, ones newer than this importer) are
/// kept as they are.
fn check_part(record: &Record, part: &Value, pointer: &str) -> Result<(), ImportError> {
    let part = part
        .as_object()
        .ok_or_else(|| record.error(pointer, "a part object (`{text}`, `{functionCall}`, ...)"))?;
    for key in CALL_KEYS {
        if let Some(call) = present(part, key)
            && !call.get("name").is_some_and(Value::is_string)
        {
            return Err(record.error(
                &format!("{pointer}/{key}"),
                "a function call `{name, args}` with a string `name`",
            ));
        }
    }
    for key in RESPONSE_KEYS {
        if let Some(response) = present(part, key)
            && !response.get("name").is_some_and(Value::is_string)
        {
            return Err(record.error(
                &format!("{pointer}/{key}"),
                "a function response `{name, response}` with a string `name` (the function it answers)",
            ));
        }
    }
    Ok(())
}

/// A member that is there and not null (Python dumps write every absent field as null).
fn present<'a>(object: &'a JsonObject, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|value| !value.is_null())
}

fn is_function_response(part: &Value) -> bool {
    part.as_object()
        .is_some_and(|part| RESPONSE_KEYS.iter().any(|key| present(part, key).is_some()))
}

/// `object` with `contents` replaced by `contents` (in its place, or added).
fn with_contents(object: &JsonObject, contents: Vec<Value>) -> JsonObject {
    let mut object = object.clone();
    object.insert("contents".to_owned(), Value::Array(contents));
    object
}

/// The contents of a record and what surrounds them.
struct Contents<'a> {
    items: &'a [Value],
    /// The request body or chat session around them, without them.
    around: JsonObject,
    /// The JSON Pointer of the contents.
    pointer: &'static str,
    /// Whether they are a chat session's history, where a streamed answer's chunks
    /// follow one another.
    history: bool,
}

/// The contents of a record: an array, a request body's `contents`, or a chat session's
/// `history`.
fn contents_of(record: &Record) -> Result<Contents<'_>, ImportError> {
    let object = match &record.value {
        Value::Array(items) => {
            return Ok(Contents {
                items,
                around: Map::new(),
                pointer: "",
                history: false,
            });
        }
        Value::Object(object) => object,
        _ => {
            return Err(record.error(
                "",
                "a contents array, a request body with `contents`, a chat session with its `history`, or a `{request, response}` log record",
            ));
        }
    };
    let (key, pointer) = match (object.get("contents"), object.get(HISTORY)) {
        (Some(_), Some(_)) => {
            return Err(record.error(
                "/history",
                "either `contents` (a request body) or `history` (a chat session), not both",
            ));
        }
        (None, Some(_)) => (HISTORY, "/history"),
        (Some(_), None) => ("contents", "/contents"),
        (None, None) => {
            return Err(record.error(
                "/contents",
                "a `contents` array (a request body) or a `history` array (a chat session)",
            ));
        }
    };
    let items = object
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| record.error(pointer, format!("`{key}` to be an array of contents")))?;
    // The first prompt holds the session's other members, and `contents` for the history.
    let around = object
        .iter()
        .filter(|(member, _)| member.as_str() != HISTORY)
        .map(|(member, value)| (member.clone(), value.clone()))
        .collect();
    Ok(Contents {
        items,
        around,
        pointer,
        history: key == HISTORY,
    })
}

/// A conversation in Gemini contents: one turn per `model` content (in a chat session's
/// history, per run of them).
fn conversation(record: &Record) -> Result<SessionDraft, ImportError> {
    let Contents {
        items,
        around,
        pointer,
        history,
    } = contents_of(record)?;
    let mut splitter = Splitter::default();
    let mut kept = Kept::default();
    for (index, content) in items.iter().enumerate() {
        match speaker(record, content, &format!("{pointer}/{index}"))? {
            // The chunks of a streamed answer join the response being gathered.
            Speaker::Model if history => splitter.output(content.clone(), None),
            Speaker::Model => {
                splitter.close();
                splitter.output(content.clone(), None);
                splitter.close();
            }
            speaker => splitter.input(content.clone(), speaker == Speaker::Human, None),
        }
        kept.count(content);
    }
    let exchanges = splitter.finish();
    let mut draft = SessionDraft::default();
    let mut streamed = Streamed::default();
    for (index, exchange) in exchanges.into_iter().enumerate() {
        if exchange.awaits_response() {
            draft.notes.push(awaiting_note(
                exchange.prompt.len(),
                "content(s) after the last model content",
            ));
        }
        let Exchange {
            prompt,
            response,
            human,
            ..
        } = exchange;
        let prompt = if index == 0 {
            with_contents(&around, prompt)
        } else {
            with_contents(&Map::new(), prompt)
        };
        let response = streamed.join(response);
        draft.turns.push(TurnDraft {
            prompt,
            response,
            human,
            ..TurnDraft::default()
        });
    }
    kept.notes(&mut draft.notes);
    streamed.notes(&mut draft.notes);
    Ok(draft)
}

/// Responses worth a word: streamed answers whose chunks are joined, and answers
/// without parts.
#[derive(Debug, Default)]
struct Streamed {
    /// Streamed answers of more than one chunk.
    answers: usize,
    /// Their chunks.
    chunks: usize,
    /// Responses without any part.
    empty: usize,
}

impl Streamed {
    /// One response from its model contents: the one content, or the chunks of a
    /// streamed answer joined into the first: their parts in order, and `chunks`, each
    /// chunk's own members but its parts (its `role`, and whatever else a chunk holds),
    /// so that nothing of a chunk is lost and no part is there twice.
    fn join(&mut self, contents: Vec<Value>) -> JsonObject {
        let chunks: Vec<JsonObject> = contents
            .into_iter()
            .filter_map(|content| match content {
                Value::Object(content) => Some(content),
                _ => None,
            })
            .collect();
        if chunks.len() > 1 {
            self.answers += 1;
            self.chunks += chunks.len();
        }
        let own: Vec<Value> = chunks
            .iter()
            .map(|chunk| {
                let members = chunk.iter().filter(|(key, _)| *key != "parts");
                Value::Object(members.map(|(k, v)| (k.clone(), v.clone())).collect())
            })
            .collect();
        let mut chunks = chunks.into_iter();
        let Some(mut response) = chunks.next() else {
            return Map::new();
        };
        if own.len() > 1 {
            // The first chunk's members keep their places; the later parts join its own.
            for mut chunk in chunks {
                let Some(Value::Array(more)) = chunk.remove("parts") else {
                    continue;
                };
                match response.get_mut("parts") {
                    Some(Value::Array(into)) => into.extend(more),
                    _ => {
                        response.insert("parts".to_owned(), Value::Array(more));
                    }
                }
            }
            response.insert("chunks".to_owned(), Value::Array(own));
        }
        let parts = response.get("parts").and_then(Value::as_array);
        self.empty += usize::from(parts.is_none_or(Vec::is_empty));
        response
    }

    fn notes(&self, notes: &mut Vec<String>) {
        if self.answers > 0 {
            notes.push(format!(
                "{} streamed answer(s) recorded as {} chunk contents: each answer's chunks joined into one content, their parts in order, each chunk's other members (its role) in `chunks`",
                self.answers, self.chunks
            ));
        }
        if self.empty > 0 {
            notes.push(format!(
                "{} model response(s) hold no parts (a blocked or empty answer, or one google-genai's chat judged invalid): kept as they are",
                self.empty
            ));
        }
    }
}

/// Parts kept verbatim that are worth a word: reasoning and provider-run code.
#[derive(Debug, Default)]
struct Kept {
    thoughts: usize,
    signatures: usize,
    code: usize,
}

impl Kept {
    fn count(&mut self, content: &Value) {
        let parts = content.get("parts").and_then(Value::as_array);
        for part in parts.into_iter().flatten().filter_map(Value::as_object) {
            self.thoughts +=
                usize::from(part.get("thought").and_then(Value::as_bool) == Some(true));
            self.signatures += usize::from(
                ["thoughtSignature", "thought_signature"]
                    .iter()
                    .any(|key| present(part, key).is_some()),
            );
            self.code += usize::from(
                [
                    "executableCode",
                    "executable_code",
                    "codeExecutionResult",
                    "code_execution_result",
                ]
                .iter()
                .any(|key| present(part, key).is_some()),
            );
        }
    }

    fn notes(&self, notes: &mut Vec<String>) {
        if self.thoughts + self.signatures > 0 {
            notes.push(format!(
                "{} thought part(s) and {} thought signature(s) kept verbatim: model reasoning, not tool calls",
                self.thoughts, self.signatures
            ));
        }
        if self.code > 0 {
            notes.push(format!(
                "{} code execution part(s) kept verbatim: code the provider ran, not counted as tool calls",
                self.code
            ));
        }
    }
}

/// A request/response log: one turn per record.
#[derive(Debug, Default)]
struct Log {
    draft: SessionDraft,
    kept: Kept,
    /// Responses without any candidate content (blocked prompts, empty answers).
    empty: usize,
}

impl Log {
    fn add(&mut self, record: &Record, options: &ImportOptions) -> Result<(), ImportError> {
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
        let contents = request
            .get("contents")
            .and_then(Value::as_array)
            .ok_or_else(|| record.error("/request/contents", "a `contents` array"))?;
        // What was sent since the previous response: the contents after the request's
        // last model content.
        let mut since = 0;
        let mut human = false;
        for (index, content) in contents.iter().enumerate() {
            match speaker(record, content, &format!("/request/contents/{index}"))? {
                Speaker::Model => {
                    since = index + 1;
                    human = false;
                }
                Speaker::Human => human = true,
                Speaker::Tool => {}
            }
        }
        let sent = contents.get(since..).unwrap_or_default().to_vec();
        for content in &sent {
            self.kept.count(content);
        }
        if self.candidate_contents(record, response)? == 0 {
            self.empty += 1;
        }
        self.draft.turns.push(TurnDraft {
            prompt: with_contents(request, sent),
            response: response.clone(),
            human,
            time: create_time(record, response, options)?,
            ..TurnDraft::default()
        });
        Ok(())
    }

    /// Checks the contents of a response's candidates, and counts them.
    fn candidate_contents(
        &mut self,
        record: &Record,
        response: &JsonObject,
    ) -> Result<usize, ImportError> {
        let candidates = match response.get("candidates") {
            None | Some(Value::Null) => return Ok(0),
            Some(Value::Array(candidates)) => candidates,
            Some(_) => {
                return Err(record.error("/response/candidates", "`candidates` to be an array"));
            }
        };
        let mut found = 0;
        for (index, candidate) in candidates.iter().enumerate() {
            let Some(content) = candidate.get("content").filter(|c| !c.is_null()) else {
                continue;
            };
            let pointer = format!("/response/candidates/{index}/content");
            // A response's content is the model's, whether it says so or not.
            if speaker(record, content, &pointer)? != Speaker::Model
                && content.get("role").is_some_and(|role| !role.is_null())
            {
                return Err(record.error(
                    &format!("{pointer}/role"),
                    "the role `model` on a response's content",
                ));
            }
            self.kept.count(content);
            found += 1;
        }
        Ok(found)
    }

    fn finish(mut self) -> SessionDraft {
        if self.empty > 0 {
            self.draft.notes.push(format!(
                "{} response(s) hold no candidate content (a blocked prompt or an empty answer): kept as they are",
                self.empty
            ));
        }
        self.kept.notes(&mut self.draft.notes);
        self.draft
    }
}

/// Vertex's `createTime` (the Python SDK's `create_time`): when the request reached the
/// server.
fn create_time(
    record: &Record,
    response: &JsonObject,
    options: &ImportOptions,
) -> Result<Option<Stamp>, ImportError> {
    for key in ["createTime", "create_time"] {
        let Some(value) = present(response, key) else {
            continue;
        };
        let pointer = format!("/response/{key}");
        let text = value
            .as_str()
            .ok_or_else(|| record.error(&pointer, "an RFC 3339 time string"))?;
        return parse_iso(text, options).map(Some).map_err(|_| {
            record.error(
                &pointer,
                format!("an RFC 3339 time with an offset; found {text:?}"),
            )
        });
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::Gemini;
    use crate::import::ImportOptions;
    use crate::import::testing::{
        Counts, convert_text, counts, detect_text, only_session, strings,
    };
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

    const PARALLEL: &str = include_str!("../../tests/fixtures/import/gemini/parallel-by-name.json");
    const IDS: &str = include_str!("../../tests/fixtures/import/gemini/call-ids.json");
    const FUNCTION_ROLE: &str =
        include_str!("../../tests/fixtures/import/gemini/function-role.json");
    const ERROR: &str = include_str!("../../tests/fixtures/import/gemini/error-result.json");
    const THOUGHTS: &str =
        include_str!("../../tests/fixtures/import/gemini/thought-signatures.json");
    const CODE: &str = include_str!("../../tests/fixtures/import/gemini/code-execution.json");
    const PYTHON: &str = include_str!("../../tests/fixtures/import/gemini/python-sdk-dump.json");
    const LOG: &str = include_str!("../../tests/fixtures/import/gemini/vertex-log.jsonl");
    const CHAT: &str = include_str!("../../tests/fixtures/import/gemini/chat-session-dump.json");
    const LEGACY_CHAT: &str =
        include_str!("../../tests/fixtures/import/gemini/chat-session-legacy-sdk.json");

    fn one(name: &str, text: &str) -> (Counts, Value, Vec<String>) {
        only_session(&Gemini, name, text, "s")
    }

    #[test]
    fn parallel_calls_without_ids_pair_by_name_in_any_order() {
        let (counts, document, _) = one("a.json", PARALLEL);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: strings(&["get_local_time", "get_weather"]),
                roles: strings(&["H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        // The first prompt keeps the request around the contents.
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(
            first["systemInstruction"]["parts"][0]["text"],
            "You are a travel assistant. Answer in the user's language."
        );
        assert_eq!(
            first["tools"][0]["functionDeclarations"][1]["name"],
            "get_local_time"
        );
        assert_eq!(first["generationConfig"]["maxOutputTokens"], 1024);
        assert_eq!(first["contents"].as_array().map(Vec::len), Some(1));
        let second = turns[1]["PRCPrompt"].as_object().expect("prompt");
        assert_eq!(second.keys().collect::<Vec<_>>(), ["contents"]);
        assert_eq!(
            second["contents"][0]["parts"][0]["functionResponse"]["name"],
            "get_local_time"
        );
        assert_eq!(turns[1]["BKNResponse"]["role"], "model");
        assert_eq!(
            turns[1]["BKNResponse"]["parts"][0]["text"],
            "In Zürich ist es 14:05 Uhr; es ist neblig bei 7 °C. 🌫️"
        );
        assert_eq!(document["SessionID"], "s");
        assert_eq!(turns[2]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 0);
        assert_eq!(
            text(&document, 0, PayloadKind::Prompt).as_deref(),
            Some("Wie ist das Wetter in Zürich, und wie spät ist es dort?")
        );
        assert_eq!(
            text(&document, 2, PayloadKind::Answer).as_deref(),
            Some("Dafür müsste ich noch einmal nachsehen – soll ich?")
        );
    }

    #[test]
    fn calls_with_ids_pair_by_id() {
        let (counts, document, notes) = one("ids.json", IDS);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: strings(&["lookup_order"]),
                roles: strings(&["H-User", "A-User"]),
            }
        );
        // A bare contents array: the prompt is `{contents}` only.
        let first = document["Turns"][0]["PRCPrompt"]
            .as_object()
            .expect("prompt");
        assert_eq!(first.keys().collect::<Vec<_>>(), ["contents"]);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn function_role_responses_of_old_samples_are_tool_results() {
        let (counts, document, _) = one("fn.json", FUNCTION_ROLE);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["find_theaters"]),
                roles: strings(&["H-User", "A-User"]),
            }
        );
        assert_eq!(
            document["Turns"][1]["PRCPrompt"]["contents"][0]["role"],
            "function"
        );
        assert_eq!(
            document["Turns"][0]["PRCPrompt"]["tools"][0]["function_declarations"][0]["name"],
            "find_theaters"
        );
    }

    #[test]
    fn an_error_member_in_a_function_response_is_a_failure() {
        let (counts, _, notes) = one("err.json", ERROR);
        assert_eq!(
            counts,
            Counts {
                turns: 4,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 1,
                tools: strings(&["list_files", "open_file"]),
                roles: strings(&["H-User", "A-User", "A-User", "H-User"]),
            }
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("1 content(s) after the last model content")),
            "{notes:?}"
        );
    }

    #[test]
    fn thoughts_and_signatures_stay_verbatim_in_the_response() {
        let (counts, document, notes) = one("thoughts.json", THOUGHTS);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["book_table"]),
                roles: strings(&["H-User", "A-User"]),
            }
        );
        let first = &document["Turns"][0]["BKNResponse"]["parts"];
        assert_eq!(first[0]["thought"], true);
        assert_eq!(
            first[1]["thoughtSignature"],
            "CiQBVKhc7oXq3mQ0Yl9gYjVhZTI0ZC1mYjNmLTQ2ZTEtOWY0Mi0yYjNkYjFmNWE4OTk="
        );
        // The answer's text leaves the thought summary out.
        assert_eq!(
            text(&document, 1, PayloadKind::Answer).as_deref(),
            Some("Done: a table for two at 18:30 at Trattoria Sole, confirmation TS-4471.")
        );
        assert!(
            notes.contains(&"2 thought part(s) and 2 thought signature(s) kept verbatim: model reasoning, not tool calls".to_owned()),
            "{notes:?}"
        );
    }

    #[test]
    fn code_execution_parts_are_kept_and_not_counted_as_calls() {
        let (counts, document, notes) = one("code.json", CODE);
        assert_eq!((counts.turns, counts.calls, counts.results), (1, 0, 0));
        assert_eq!(
            document["Turns"][0]["BKNResponse"]["parts"][2]["codeExecutionResult"]["output"],
            "5117\n"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("2 code execution part(s)")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_python_sdk_dump_with_snake_case_and_nulls() {
        let (counts, document, _) = one("dump.json", PYTHON);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["translate"]),
                roles: strings(&["H-User", "A-User"]),
            }
        );
        let turns = &document["Turns"];
        assert_eq!(turns[0]["PRCPrompt"]["model"], "gemini-2.5-flash");
        assert_eq!(
            turns[0]["PRCPrompt"]["config"]["system_instruction"]["parts"][0]["text"],
            "Du bist ein hilfreicher Übersetzer."
        );
        assert_eq!(
            turns[0]["PRCPrompt"]["contents"][0]["parts"][1]["inline_data"]["mime_type"],
            "image/png"
        );
        assert_eq!(
            turns[0]["PRCPrompt"]["contents"][0]["parts"][1]["text"],
            Value::Null
        );
        assert_eq!(
            turns[1]["BKNResponse"]["parts"][0]["text"],
            "Auf dem Schild steht „مرحبا بكم“ – auf Deutsch: „Willkommen“. 👋🏽"
        );
        assert_eq!(
            text(&document, 0, PayloadKind::Prompt).as_deref(),
            Some("Was steht auf diesem Schild? 🪧")
        );
    }

    #[test]
    fn a_chat_session_dump_reads_its_history_and_keeps_the_rest() {
        let (counts, document, notes) = one("chat.json", CHAT);
        assert_eq!(
            counts,
            Counts {
                turns: 6,
                calls: 3,
                results: 3,
                paired: 3,
                errors: 0,
                tools: strings(&["get_train_connections", "get_weather"]),
                roles: strings(&["H-User", "A-User", "H-User", "H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        // The first prompt is the session around the contents it sent.
        let first = turns[0]["PRCPrompt"].as_object().expect("prompt");
        assert_eq!(
            first.keys().collect::<Vec<_>>(),
            ["model", "system_instruction", "config", "contents"]
        );
        assert_eq!(first["model"], "gemini-2.5-flash");
        assert_eq!(first["config"]["thinking_config"]["thinking_budget"], 512);
        assert_eq!(first["contents"].as_array().map(Vec::len), Some(1));
        let second = turns[1]["PRCPrompt"].as_object().expect("prompt");
        assert_eq!(second.keys().collect::<Vec<_>>(), ["contents"]);
        assert_eq!(
            turns[0]["BKNResponse"]["parts"][1]["thought_signature"],
            "CsoBAdHtim9qZ0x4c0RrV2VHQm1aT2Ria3lQb0xGNnRaS0p4QmhzV2c5a1ZQbm1Ucg=="
        );
        // The three chunks of the streamed answer are one response, each chunk's role
        // kept in `chunks`.
        assert_eq!(
            turns[2]["BKNResponse"],
            serde_json::json!({"parts": [
                {"text": "Den Parco Ciani am See, "},
                {"text": "die Altstadt um die Piazza della Riforma "},
                {"text": "und, mit der Standseilbahn, den Monte San Salvatore. 🚠"}
            ], "role": "model", "chunks": [{"role": "model"}, {"role": "model"}, {"role": "model"}]})
        );
        assert_eq!(
            turns[5]["BKNResponse"],
            serde_json::json!({"parts": [], "role": "model"})
        );
        assert_eq!(
            text(&document, 0, PayloadKind::Prompt).as_deref(),
            Some("Welche Züge fahren morgen früh von Bern nach Lugano?")
        );
        assert_eq!(
            text(&document, 4, PayloadKind::Answer).as_deref(),
            Some("Lugano: sonnig, bis 24 °C. Bern: bewölkt, bis 17 °C. ☀️☁️")
        );
        assert_eq!(
            notes,
            [
                "1 thought part(s) and 3 thought signature(s) kept verbatim: model reasoning, not tool calls",
                "1 streamed answer(s) recorded as 3 chunk contents: each answer's chunks joined into one content, their parts in order, each chunk's other members (its role) in `chunks`",
                "1 model response(s) hold no parts (a blocked or empty answer, or one google-genai's chat judged invalid): kept as they are",
            ]
        );
    }

    #[test]
    fn a_legacy_sdk_chat_session_in_camel_case() {
        let (counts, document, notes) = one("legacy.json", LEGACY_CHAT);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["track_order"]),
                roles: strings(&["H-User", "A-User", "H-User"]),
            }
        );
        let first = &document["Turns"][0]["PRCPrompt"];
        assert_eq!(first["model"], "models/gemini-1.5-flash-002");
        assert_eq!(
            first["system_instruction"]["parts"][0]["text"],
            "You are the support assistant of Nordlicht Outdoor. Be concise and friendly."
        );
        assert!(first.get("history").is_none());
        assert_eq!(
            text(&document, 2, PayloadKind::Prompt).as_deref(),
            Some("Can I still send it to Packstation 112 in Berlin instead?")
        );
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn only_a_history_of_gemini_contents_is_a_chat_session() {
        // Parts and roles of another shape (an AI SDK UI message list): not Gemini's.
        let other = r#"{"model":"m","history":[{"role":"user","parts":[{"type":"text","text":"a"}]},{"role":"assistant","parts":[{"type":"text","text":"b"}]}]}"#;
        assert_ne!(detect_text("other.json", other).ok(), Some("gemini"));
        // Contents beside a history: a request body, whose history is not read.
        let both = r#"{"contents":[{"role":"user","parts":[{"text":"a"}]}],"history":[{"role":"model","parts":[{"text":"b"}]}]}"#;
        let error =
            convert_text(&Gemini, "both.json", both, &ImportOptions::default()).expect_err("both");
        // A file of one line is read as JSON Lines: the place names the line.
        assert_eq!(error.place, "line 1, /history", "{error}");
        assert!(error.message.contains("not both"), "{error}");
    }

    #[test]
    fn broken_chat_sessions_are_refused_with_their_place() {
        let cases = [
            (
                r#"{"model":"m","history":{"role":"user","parts":[]}}"#,
                "line 1, /history",
                "`history` to be an array of contents",
            ),
            (
                r#"{"model":"m","system_instruction":"s"}"#,
                "line 1, /contents",
                "or a `history` array (a chat session)",
            ),
            (
                r#"{"model":"m","history":[{"role":"user","parts":[{"text":"a"}]},{"role":"assistant","parts":[{"text":"b"}]}]}"#,
                "line 1, /history/1/role",
                "found \"assistant\"",
            ),
            (
                r#"{"history":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"function_call":{"args":{}}}]}]}"#,
                "line 1, /history/1/parts/0/function_call",
                "a string `name`",
            ),
        ];
        for (text, place, message) in cases {
            let error =
                convert_text(&Gemini, "bad.json", text, &ImportOptions::default()).expect_err(text);
            assert_eq!(error.place, place, "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
        let broken =
            include_str!("../../tests/fixtures/import/gemini/broken-chat-session-role.json");
        let error = convert_text(&Gemini, "broken.json", broken, &ImportOptions::default())
            .expect_err("broken fixture");
        assert_eq!(error.place, "/history/3/role", "{error}");
    }

    #[test]
    fn a_log_cuts_each_request_and_dates_turns_by_create_time() {
        let (counts, document, _) = one("log.jsonl", LOG);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["population"]),
                roles: strings(&["H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        for (index, turn) in turns.as_array().expect("turns").iter().enumerate() {
            assert_eq!(
                turn["PRCPrompt"]["contents"].as_array().map(Vec::len),
                Some(1),
                "{index}"
            );
            assert_eq!(
                turn["PRCPrompt"]["systemInstruction"]["parts"][0]["text"],
                "Antworte knapp."
            );
        }
        assert_eq!(
            turns[0]["BKNResponse"]["responseId"],
            "Ne0ZaK6bB9ix2PgPlJ6xgQc"
        );
        let time = &turns[0]["Timestamp"]["SimpleTimeData"][0];
        assert_eq!(
            (time["FlagsByte"].as_u64(), time["StartTime"].as_i64()),
            (Some(3), Some(1_746_525_601_123))
        );
        // The request's arrival, not the response's: no "a little late" remark.
        assert!(turns[0]["Timestamp"].get("DescrMetadata").is_none());
        assert_eq!(
            turns[2]["Timestamp"]["SimpleTimeData"][0]["StartTime"],
            1_746_525_631_004_i64
        );
        assert_eq!(
            document["SessionStartTime"]["SimpleTimeData"][0]["StartTime"],
            1_746_525_601_123_i64
        );
    }

    #[test]
    fn json_lines_of_conversations_give_a_session_per_line() {
        let text = concat!(
            r#"[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"text":"b"}]}]"#,
            "\n",
            r#"{"contents":[{"parts":[{"text":"c"}]},{"role":"model","parts":[{"text":"d"}]}]}"#,
            "\n"
        );
        let sessions = convert_text(
            &Gemini,
            "two.jsonl",
            text,
            &ImportOptions::default().session_id("s"),
        )
        .expect("converts");
        let ids: Vec<_> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["s#1", "s#2"]);
        // A content without a role is the user's.
        assert_eq!(counts(&sessions[1]).roles, ["H-User"]);
    }

    #[test]
    fn auto_recognises_each_shape() {
        for (name, text) in [
            ("a.json", PARALLEL),
            ("b.json", IDS),
            ("c.json", FUNCTION_ROLE),
            ("d.json", ERROR),
            ("e.json", THOUGHTS),
            ("f.json", CODE),
            ("g.json", PYTHON),
            ("h.jsonl", LOG),
            ("i.json", CHAT),
            ("j.json", LEGACY_CHAT),
        ] {
            assert_eq!(detect_text(name, text).expect(name), "gemini", "{name}");
        }
    }

    #[test]
    fn broken_structure_is_refused_with_its_place() {
        let user = r#"{"role":"user","parts":[{"text":"x"}]}"#;
        let cases = [
            (
                r#"[{"role":"system","parts":[]}]"#.to_owned(),
                "/contents/0/role",
                "found \"system\"",
            ),
            (
                r#"[{"role":7,"parts":[]}]"#.to_owned(),
                "/contents/0/role",
                "a string `role`",
            ),
            (
                r#"[{"role":"user","parts":{"text":"x"}}]"#.to_owned(),
                "/contents/0/parts",
                "`parts` to be an array",
            ),
            (r#"["hello"]"#.to_owned(), "/contents/0", "a content object"),
            (
                r#"[{"parts":["x"]}]"#.to_owned(),
                "/contents/0/parts/0",
                "a part object",
            ),
            (
                format!(
                    r#"[{user},{{"role":"model","parts":[{{"functionCall":{{"args":{{}}}}}}]}}]"#
                ),
                "/contents/1/parts/0/functionCall",
                "a string `name`",
            ),
            (
                format!(
                    r#"[{user},{{"role":"model","parts":[{{"function_call":{{"id":null,"args":{{}},"name":null}}}}]}}]"#
                ),
                "/contents/1/parts/0/function_call",
                "a string `name`",
            ),
            (
                r#"[{"role":"user","parts":[{"functionResponse":{"response":{}}}]}]"#.to_owned(),
                "/contents/0/parts/0/functionResponse",
                "the function it answers",
            ),
            ("[]".to_owned(), "(document)", "at least one message"),
        ];
        for (contents, place, message) in cases {
            let text = format!("{{\"contents\":{contents}}}");
            let error = convert_text(&Gemini, "bad.json", &text, &ImportOptions::default())
                .expect_err(&text);
            assert!(error.place.ends_with(place), "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
        let error = convert_text(
            &Gemini,
            "bad.json",
            r#"{"contents":{"role":"user"}}"#,
            &ImportOptions::default(),
        )
        .expect_err("contents object");
        assert!(
            error.place.ends_with("/contents") && error.message.contains("an array"),
            "{error}"
        );
    }

    #[test]
    fn broken_log_records_are_refused_with_their_line() {
        let good = LOG.lines().next().expect("a line");
        let cases = [
            (
                good.replace("2025-05-06T10:00:01.123456Z", "yesterday"),
                "line 1, /response/createTime",
                "an RFC 3339 time",
            ),
            (
                good.replace(
                    r#""content":{"role":"model""#,
                    r#""content":{"role":"user""#,
                ),
                "line 1, /response/candidates/0/content/role",
                "the role `model`",
            ),
            (
                format!("{good}\n[{{\"parts\":[]}}]"),
                "line 2, (document)",
                "records of one kind",
            ),
            (
                r#"{"request":{"contents":[]},"response":[]}"#.to_owned(),
                "line 1, /response",
                "a response object",
            ),
        ];
        for (text, place, message) in cases {
            let error = convert_text(&Gemini, "bad.jsonl", &text, &ImportOptions::default())
                .expect_err(&text);
            assert_eq!(error.place, place, "{error}");
            assert!(error.message.contains(message), "{error}");
        }
    }

    #[test]
    fn a_blocked_prompt_in_a_log_is_a_turn_with_a_note() {
        let text = r#"{"request":{"contents":[{"role":"user","parts":[{"text":"x"}]}]},"response":{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3}}}"#;
        let sessions = convert_text(&Gemini, "blocked.jsonl", text, &ImportOptions::default())
            .expect("converts");
        assert_eq!(counts(&sessions[0]).roles, ["H-User"]);
        assert!(
            sessions[0]
                .notes
                .iter()
                .any(|n| n.contains("no candidate content")),
            "{:?}",
            sessions[0].notes
        );
        assert!(
            sessions[0].notes.iter().any(|n| n.contains("derived")),
            "{:?}",
            sessions[0].notes
        );
    }
}
