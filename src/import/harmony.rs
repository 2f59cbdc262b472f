//! OpenAI Harmony (gpt-oss) conversations: the rendered token text
//! (`<|start|>{header}<|message|>{content}<|end|>`, a sampling ending in `<|call|>` or
//! `<|return|>`), given as a text file or a JSON string, or the JSON form of the
//! `openai-harmony` library, `{"messages": [{role, name?, content, channel?, recipient?,
//! content_type?}]}` (a bare message array is read too).
//!
//! A header holds the author (a role, `role:name`, or for a tool's reply the tool's name,
//! `functions.NAME`), then optionally `to=RECIPIENT`, `<|channel|>CHANNEL` and a content
//! type (`<|constrain|>json`, `code`), the recipient in the role part or after the
//! channel. Rendered messages become the JSON form's objects, `{role, name?, content,
//! channel?, recipient?, content_type?}` with the text as a plain string, a tool's reply
//! `{role: "tool", name: "functions.NAME", ...}`. A rendered prompt awaiting completion
//! ends in an open `<|start|>assistant` header: that tail is ignored, with a note.
//!
//! Turns: the assistant messages of one sampling (analysis, commentary preambles, then a
//! call or a final answer) form one response, `{"messages": [...]}`; the messages since
//! the previous response form the prompt, `{"messages": [...]}` (the system and
//! developer messages on the first; the developer message is the real system prompt). A
//! sampling ends at `<|call|>` or `<|return|>`, at a message to a recipient (a call), at
//! a `final` message, or at the next message of another author. Harmony has no call ids
//! and no parallel calls: the reply from `functions.NAME` answers the latest open call to
//! that recipient, and the tool's name is the recipient without the `functions.`
//! namespace (built-in tools keep theirs: `browser.search`, `python`). There is no error
//! flag. The only time is the date of `Current date:` in the system message: it is not
//! turned into times, a note gives it.

use super::session::other_members;
use super::session::{SessionDraft, TurnDraft};
use super::turns::{Exchange, Splitter, awaiting_note};
use super::{ImportError, Importer, Record, Sessions, Syntax};
use crate::model::JsonObject;
use serde_json::{Map, Value};

/// The OpenAI Harmony importer.
pub struct Harmony;

const START: &str = "<|start|>";
const MESSAGE: &str = "<|message|>";
const CHANNEL: &str = "<|channel|>";
const CONSTRAIN: &str = "<|constrain|>";
const END: &str = "<|end|>";
const CALL: &str = "<|call|>";
const RETURN: &str = "<|return|>";

/// The roles of Harmony messages besides a tool's name.
const ROLES: [&str; 5] = ["system", "developer", "user", "assistant", "tool"];

impl Importer for Harmony {
    fn name(&self) -> &'static str {
        "harmony"
    }

    fn description(&self) -> &'static str {
        "OpenAI Harmony (gpt-oss) conversations, rendered token text or the JSON message form"
    }

    fn syntax(&self) -> Syntax {
        Syntax::Text
    }

    fn detect(&self, first: &Record) -> bool {
        match &first.value {
            Value::String(text) => text.contains(START),
            Value::Object(object) => object
                .get("messages")
                .and_then(Value::as_array)
                .is_some_and(|messages| has_harmony_members(messages)),
            Value::Array(messages) => has_harmony_members(messages),
            _ => false,
        }
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        for record in records {
            let record = record?;
            let mut draft = SessionDraft::default();
            let (messages, rest) = match &record.value {
                Value::String(text) => (rendered(&record, text, &mut draft.notes)?, Map::new()),
                Value::Array(messages) => (json_messages(&record, messages, "")?, Map::new()),
                Value::Object(object) => {
                    let messages = object
                        .get("messages")
                        .and_then(Value::as_array)
                        .ok_or_else(|| record.error("/messages", "a `messages` array"))?;
                    let rest = other_members(object, "messages");
                    (json_messages(&record, messages, "/messages")?, rest)
                }
                _ => {
                    return Err(record.error(
                        "",
                        "a Harmony rendering (text with `<|start|>` messages) or `{\"messages\": [...]}`",
                    ));
                }
            };
            conversation(messages, rest, &mut draft);
            draft.line = record.line;
            sessions.add(draft)?;
        }
        Ok(())
    }
}

/// Whether messages carry what only Harmony writes: a `channel` or `recipient`, or
/// `system_content`/`developer_content` parts.
fn has_harmony_members(messages: &[Value]) -> bool {
    messages.iter().any(|message| {
        message.get("channel").is_some()
            || message.get("recipient").is_some()
            || message
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|parts| {
                    parts.iter().any(|part| {
                        matches!(
                            part.get("type").and_then(Value::as_str),
                            Some("system_content" | "developer_content")
                        )
                    })
                })
    })
}

/// A message in the JSON form, with what the turn rule needs to know of it.
struct Message {
    object: JsonObject,
    /// Its role (`tool` for a tool's reply).
    role: String,
    /// It ends a sampling: `<|call|>`, `<|return|>`, a call or a `final` message.
    ends_sampling: bool,
}

impl Message {
    /// A message; `token` is the rendered end token, if it was rendered.
    fn new(object: JsonObject, role: &str, token: Option<&str>) -> Self {
        let mut message = Self {
            object,
            role: role.to_owned(),
            ends_sampling: false,
        };
        message.ends_sampling = token.is_some_and(|token| token != END)
            || message.call().is_some()
            || (role == "assistant" && message.text("channel") == Some("final"));
        message
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.object.get(key).and_then(Value::as_str)
    }

    /// The recipient of an assistant's call, if it is one.
    fn call(&self) -> Option<&str> {
        if self.role != "assistant" {
            return None;
        }
        self.text("recipient")
            .filter(|recipient| *recipient != "all")
    }
}

/// Groups the messages into turns.
fn conversation(messages: Vec<Message>, rest: JsonObject, draft: &mut SessionDraft) {
    if let Some(date) = messages.iter().find_map(conversation_date) {
        draft.notes.push(format!(
            "the system message gives the conversation's date, {date}, and no time of day: it is not turned into times"
        ));
    }
    let mut splitter = Splitter::default();
    let mut open_calls: Vec<String> = Vec::new();
    for (index, message) in messages.into_iter().enumerate() {
        if let Some(recipient) = message.call() {
            open_calls.push(recipient.to_owned());
        }
        if message.role == "tool" {
            let author = message.text("name").unwrap_or_default();
            match open_calls.iter().rposition(|call| call == author) {
                Some(at) => {
                    open_calls.remove(at);
                }
                None => draft.notes.push(format!(
                    "message {index}, from {author}, answers no earlier call to it"
                )),
            }
        }
        if message.role == "assistant" {
            splitter.output(Value::Object(message.object), None);
            if message.ends_sampling {
                splitter.close();
            }
        } else {
            let human = message.role == "user";
            splitter.input(Value::Object(message.object), human, None);
        }
    }
    let exchanges = splitter.finish();
    // The conversation's other members ride on the first prompt.
    let mut rest = Some(rest);
    for exchange in exchanges {
        let awaits = exchange.awaits_response();
        if awaits {
            draft.notes.push(awaiting_note(
                exchange.prompt.len(),
                "message(s) after the last assistant message",
            ));
        }
        let Exchange {
            prompt,
            response,
            human,
            ..
        } = exchange;
        let mut prompt_object = rest.take().unwrap_or_default();
        prompt_object.insert("messages".to_owned(), Value::Array(prompt));
        let mut response_object = Map::new();
        if !awaits {
            response_object.insert("messages".to_owned(), Value::Array(response));
        }
        draft.turns.push(TurnDraft {
            prompt: prompt_object,
            response: response_object,
            human,
            ..TurnDraft::default()
        });
    }
}

/// The date a system message gives: `Current date:` in its text, or a
/// `system_content` part's `conversation_start_date`.
fn conversation_date(message: &Message) -> Option<String> {
    if message.role != "system" {
        return None;
    }
    match message.object.get("content")? {
        Value::String(text) => text.lines().find_map(|line| {
            line.trim()
                .strip_prefix("Current date:")
                .map(|date| date.trim().to_owned())
        }),
        Value::Array(parts) => parts.iter().find_map(|part| {
            part.get("conversation_start_date")
                .and_then(Value::as_str)
                .map(str::to_owned)
        }),
        _ => None,
    }
}

/// The messages of the JSON form, checked.
fn json_messages(
    record: &Record,
    messages: &[Value],
    pointer: &str,
) -> Result<Vec<Message>, ImportError> {
    let mut checked = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let at = format!("{pointer}/{index}");
        let object = message
            .as_object()
            .ok_or_else(|| record.error(&at, "a message object"))?;
        let role = object.get("role").and_then(Value::as_str).ok_or_else(|| {
            record.error(
                &at,
                "a string `role`: system, developer, user, assistant or tool",
            )
        })?;
        if !ROLES.contains(&role) {
            return Err(record.error(
                &format!("{at}/role"),
                format!("a role system, developer, user, assistant or tool; found {role:?}"),
            ));
        }
        if role == "tool" && !object.get("name").is_some_and(Value::is_string) {
            return Err(record.error(
                &format!("{at}/name"),
                "a string `name` on a tool message: the tool that replies, like `functions.NAME`",
            ));
        }
        if !matches!(
            object.get("content"),
            Some(Value::String(_) | Value::Array(_))
        ) {
            return Err(record.error(
                &format!("{at}/content"),
                "`content`: a string or an array of content parts",
            ));
        }
        for key in ["name", "channel", "recipient", "content_type"] {
            if object
                .get(key)
                .is_some_and(|value| !value.is_string() && !value.is_null())
            {
                return Err(record.error(&format!("{at}/{key}"), format!("`{key}` to be a string")));
            }
        }
        checked.push(Message::new(object.clone(), role, None));
    }
    Ok(checked)
}

/// The messages of a rendered text, checked.
fn rendered(
    record: &Record,
    text: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<Message>, ImportError> {
    let mut messages = Vec::new();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        at += rest.len() - rest.trim_start().len();
        if at == text.len() {
            return Ok(messages);
        }
        if !text[at..].starts_with(START) {
            return Err(text_error(
                record,
                text,
                at,
                "a message starting with `<|start|>`; found text outside messages",
            ));
        }
        let header_at = at + START.len();
        let next_start = text[header_at..].find(START).map(|i| header_at + i);
        let message_at = text[header_at..]
            .find(MESSAGE)
            .map(|i| header_at + i)
            .filter(|m| next_start.is_none_or(|start| *m < start));
        let Some(message_at) = message_at else {
            return open_tail(record, text, header_at, next_start, notes).map(|()| messages);
        };
        let header = parse_header(&text[header_at..message_at])
            .map_err(|expected| text_error(record, text, header_at, &expected))?;
        let body_at = message_at + MESSAGE.len();
        let (end_at, token) = end_of(&text[body_at..])
            .map(|(i, token)| (body_at + i, token))
            .filter(|(end, _)| next_start.is_none_or(|start| *end < start))
            .ok_or_else(|| {
                text_error(
                    record,
                    text,
                    at,
                    "the message's end token (`<|end|>`, `<|call|>` or `<|return|>`) before the next `<|start|>`",
                )
            })?;
        if token != END && header.role != "assistant" {
            return Err(text_error(
                record,
                text,
                end_at,
                &format!(
                    "`<|end|>` to end a {} message: `{token}` ends an assistant's sampling",
                    header.role
                ),
            ));
        }
        messages.push(header.into_message(&text[body_at..end_at], token));
        at = end_at + token.len();
    }
}

/// A header without `<|message|>`: fine at the very end for an assistant (a rendered
/// prompt awaiting completion), refused anywhere else.
fn open_tail(
    record: &Record,
    text: &str,
    header_at: usize,
    next_start: Option<usize>,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let header = match next_start {
        None => parse_header(&text[header_at..]).ok(),
        Some(_) => None,
    };
    match header {
        Some(header) if header.role == "assistant" => {
            notes.push(
                "the text ends with an open `<|start|>assistant` header (a prompt awaiting completion): ignored"
                    .to_owned(),
            );
            Ok(())
        }
        _ => Err(text_error(
            record,
            text,
            header_at,
            "`<|message|>` after the message header (only an assistant header may stay open, at the very end)",
        )),
    }
}

/// Where the content starting `body` ends, and the token that ends it.
fn end_of(body: &str) -> Option<(usize, &'static str)> {
    [END, CALL, RETURN]
        .into_iter()
        .filter_map(|token| body.find(token).map(|at| (at, token)))
        .min_by_key(|(at, _)| *at)
}

/// A parsed message header.
#[derive(Debug, Default, PartialEq)]
struct Header {
    role: String,
    name: Option<String>,
    channel: Option<String>,
    recipient: Option<String>,
    content_type: Option<String>,
}

impl Header {
    fn into_message(self, content: &str, token: &str) -> Message {
        let mut object = Map::new();
        object.insert("role".to_owned(), Value::String(self.role.clone()));
        if let Some(name) = self.name {
            object.insert("name".to_owned(), Value::String(name));
        }
        object.insert("content".to_owned(), Value::String(content.to_owned()));
        for (key, value) in [
            ("channel", self.channel),
            ("recipient", self.recipient),
            ("content_type", self.content_type),
        ] {
            if let Some(value) = value {
                object.insert(key.to_owned(), Value::String(value));
            }
        }
        Message::new(object, &self.role, Some(token))
    }
}

/// Reads a header as the Harmony parser does: the channel first (`<|channel|>` and a
/// word), then words: the author, then `to=RECIPIENT` and a content type
/// (`<|constrain|>json`, `code`); a lone word after the author is a recipient.
fn parse_header(header: &str) -> Result<Header, String> {
    let mut rest = header.to_owned();
    let mut channel = None;
    if let Some(at) = rest.find(CHANNEL) {
        let after = &rest[at + CHANNEL.len()..];
        let end = after
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(after.len());
        if end == 0 {
            return Err("a channel name after `<|channel|>`".to_owned());
        }
        channel = Some(after[..end].to_owned());
        rest = format!("{}{}", &rest[..at], &after[end..]);
    }
    let rest = rest.replace(CONSTRAIN, &format!(" {CONSTRAIN}"));
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    if let Some(token) = words
        .iter()
        .find(|word| word.contains("<|") && !word.starts_with(CONSTRAIN))
    {
        return Err(format!(
            "a header of author, recipient, channel and content type; found {token:?}"
        ));
    }
    if words.is_empty() {
        return Err("a role in the message header".to_owned());
    }
    let author = words.remove(0);
    let (role, name) = author_of(author, !words.is_empty())?;
    let mut header = Header {
        role,
        name,
        channel,
        ..Header::default()
    };
    match words.pop() {
        None => {}
        Some(last) if last.starts_with("to=") => header.recipient = Some(last[3..].to_owned()),
        Some(last) if words.is_empty() && !last.starts_with(CONSTRAIN) => {
            header.recipient = Some(last.to_owned());
        }
        Some(last) => {
            header.content_type = Some(last.to_owned());
            header.recipient = words
                .pop()
                .map(|word| word.strip_prefix("to=").unwrap_or(word).to_owned());
        }
    }
    if !words.is_empty() {
        return Err(format!(
            "a header of author, recipient, channel and content type; found the extra words {:?}",
            words.join(" ")
        ));
    }
    Ok(header)
}

/// The role and name of a header's author: a role, `role:name`, or a tool's name
/// (namespaced, like `functions.get_weather`, or followed by `to=...`).
fn author_of(author: &str, more: bool) -> Result<(String, Option<String>), String> {
    let (role, name) = match author.split_once(':') {
        Some((role, name)) if ROLES.contains(&role) => (role, Some(name.to_owned())),
        _ => (author, None),
    };
    if role == "tool" {
        return Err(
            "a tool message's author as the tool's name, like `functions.NAME`, not `tool`"
                .to_owned(),
        );
    }
    if ROLES.contains(&role) {
        return Ok((role.to_owned(), name));
    }
    if author.contains('.') || more {
        return Ok(("tool".to_owned(), Some(author.to_owned())));
    }
    Err(format!(
        "a role (system, developer, user, assistant) or a tool's name like `functions.NAME`; found {author:?}"
    ))
}

/// An error at byte `at` of a rendered text: `text L:C`, after the record's line in
/// JSON Lines.
fn text_error(record: &Record, text: &str, at: usize, expected: &str) -> ImportError {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |tail| tail.chars().count())
        + 1;
    let place = match record.line {
        Some(record_line) => format!("line {record_line}, text {line}:{column}"),
        None => format!("text {line}:{column}"),
    };
    ImportError {
        place,
        message: format!("expected {expected}"),
    }
}

#[cfg(test)]
mod tests {
    use super::{Harmony, Header, parse_header};
    use crate::import::ImportOptions;
    use crate::import::testing::{Counts, convert_text, detect_text, only_session};
    use crate::payload::{PayloadKind, payload_text};
    use serde_json::{Value, json};

    const MULTI_TURN: &str = include_str!("../../tests/fixtures/import/harmony/multi-turn.txt");
    const AWAITING: &str =
        include_str!("../../tests/fixtures/import/harmony/prompt-awaiting-completion.txt");
    const BROWSER: &str = include_str!("../../tests/fixtures/import/harmony/browser-rtl.txt");
    const JSON_FORM: &str = include_str!("../../tests/fixtures/import/harmony/json-form.json");
    const BROKEN: &str = include_str!("../../tests/fixtures/import/harmony/broken-missing-end.txt");

    fn one(name: &str, text: &str) -> (Counts, Value, Vec<String>) {
        only_session(&Harmony, name, text, "h")
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    /// The channels (or roles) of a payload's messages.
    fn channels(payload: &Value) -> Vec<String> {
        payload["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| {
                m["channel"]
                    .as_str()
                    .or(m["role"].as_str())
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect()
    }

    // Calls and results are counted through the payload layer's Harmony shapes: an
    // assistant message with a `recipient` is a call, a tool message named after it its
    // result (by name and order).
    #[test]
    fn a_rendered_conversation_has_a_turn_per_sampling() {
        let (counts, document, notes) = one("m.txt", MULTI_TURN);
        let turns = &document["Turns"];
        assert_eq!(
            channels(&turns[0]["PRCPrompt"]),
            ["system", "developer", "user"]
        );
        assert_eq!(
            channels(&turns[0]["BKNResponse"]),
            ["analysis", "commentary"]
        );
        let call = &turns[0]["BKNResponse"]["messages"][1];
        assert_eq!(call["recipient"], "functions.get_weather");
        assert_eq!(call["content_type"], "<|constrain|>json");
        assert_eq!(call["content"], "{\"location\":\"Zürich\"}");
        let reply = &turns[1]["PRCPrompt"]["messages"][0];
        assert_eq!(
            reply
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(strings(&[
                "role",
                "name",
                "content",
                "channel",
                "recipient"
            ]))
        );
        assert_eq!(reply["role"], "tool");
        assert_eq!(reply["name"], "functions.get_weather");
        assert_eq!(channels(&turns[1]["BKNResponse"]), ["analysis", "final"]);
        assert_eq!(
            turns[1]["BKNResponse"]["messages"][1]["content"],
            "In Zürich ist es neblig bei 7 °C. 🌫️"
        );
        // A preamble and a call whose recipient sits in the role part.
        assert_eq!(
            channels(&turns[2]["BKNResponse"]),
            ["commentary", "commentary"]
        );
        assert_eq!(
            turns[2]["BKNResponse"]["messages"][1]["recipient"],
            "functions.get_weather"
        );
        assert_eq!(channels(&turns[3]["BKNResponse"]), ["final"]);
        let text = |turn: &Value, member: &str, kind| {
            turn[member]
                .as_object()
                .and_then(|payload| payload_text(payload, kind))
        };
        assert_eq!(
            text(&turns[0], "PRCPrompt", PayloadKind::Prompt).as_deref(),
            Some("Wie ist das Wetter in Zürich?")
        );
        assert_eq!(
            text(&turns[1], "BKNResponse", PayloadKind::Answer).as_deref(),
            Some("In Zürich ist es neblig bei 7 °C. 🌫️")
        );
        // A date only: times stay relative, and a note says why.
        assert_eq!(turns[0]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 0);
        assert!(notes.iter().any(|n| n.contains("2025-06-28")), "{notes:?}");
        assert_eq!(
            counts,
            Counts {
                turns: 4,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: strings(&["get_weather"]),
                roles: strings(&["H-User", "A-User", "H-User", "A-User"]),
            }
        );
    }

    /// The shape the payload layer is asked to read (the counts above rely on it): an
    /// assistant message with a string `recipient` other than `all` is a call, named by
    /// the recipient without a leading `functions.`, its arguments the `content`; a
    /// `tool` message with a string `name` (and no `tool_call_id`) is a result by that
    /// name, stripped alike, answering the oldest unanswered call of that name.
    fn harmony_shapes(payload: &Value) -> (Vec<(String, String)>, Vec<String>) {
        let strip = |name: &str| name.strip_prefix("functions.").unwrap_or(name).to_owned();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for message in payload["messages"].as_array().into_iter().flatten() {
            match (
                message["role"].as_str(),
                message["recipient"].as_str(),
                message["name"].as_str(),
            ) {
                (Some("assistant"), Some(recipient), _) if recipient != "all" => calls.push((
                    strip(recipient),
                    message["content"].as_str().unwrap_or_default().to_owned(),
                )),
                (Some("tool"), _, Some(name)) => results.push(strip(name)),
                _ => {}
            }
        }
        (calls, results)
    }

    #[test]
    fn calls_and_results_are_written_in_the_shape_asked_of_the_payload_layer() {
        let (_, document, _) = one("m.txt", MULTI_TURN);
        let turns = document["Turns"].as_array().expect("turns");
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for turn in turns {
            calls.extend(harmony_shapes(&turn["BKNResponse"]).0);
            results.extend(harmony_shapes(&turn["PRCPrompt"]).1);
        }
        assert_eq!(
            calls,
            [
                (
                    "get_weather".to_owned(),
                    "{\"location\":\"Zürich\"}".to_owned()
                ),
                (
                    "get_weather".to_owned(),
                    "{\"location\":\"Genève\"}".to_owned()
                ),
            ]
        );
        assert_eq!(results, ["get_weather", "get_weather"]);
        let (_, document, _) = one("b.txt", BROWSER);
        let call = harmony_shapes(&document["Turns"][0]["BKNResponse"]).0;
        assert_eq!(call[0].0, "browser.search");
        let result = harmony_shapes(&document["Turns"][1]["PRCPrompt"]).1;
        assert_eq!(result, ["browser.search"]);
    }

    #[test]
    fn a_prompt_awaiting_completion_ignores_its_open_header() {
        let (counts, document, notes) = one("p.txt", AWAITING);
        // The tool's reply came after the last sampling: a turn that awaits the next.
        assert_eq!(counts.roles, strings(&["H-User", "A-User"]));
        assert_eq!(document["Turns"][1]["BKNResponse"], serde_json::json!({}));
        let call = &document["Turns"][0]["BKNResponse"]["messages"][1];
        assert_eq!(call["recipient"], "functions.lookup_weather");
        assert_eq!(call["channel"], "commentary");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("open `<|start|>assistant` header")),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("1 message(s) after the last assistant")),
            "{notes:?}"
        );
        assert_eq!(
            (counts.turns, counts.calls, counts.results, counts.paired),
            (2, 1, 1, 1)
        );
    }

    #[test]
    fn built_in_tools_named_rtl_text_and_newlines_between_messages() {
        let (counts, document, _) = one("b.txt", BROWSER);
        let turns = &document["Turns"];
        let user = &turns[0]["PRCPrompt"]["messages"][1];
        assert_eq!(user["name"], "noa");
        assert_eq!(user["content"], "מה מזג האוויר בתל אביב היום? 👨‍👩‍👧");
        let call = &turns[0]["BKNResponse"]["messages"][0];
        assert_eq!(call["channel"], "analysis");
        assert_eq!(call["recipient"], "browser.search");
        assert_eq!(call["content_type"], "code");
        assert_eq!(
            turns[1]["BKNResponse"]["messages"][0]["content"],
            "היום בתל אביב שמשי, 31°C. \u{200f}☀️"
        );
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["browser.search"]),
                roles: strings(&["H-User", "A-User"]),
            }
        );
    }

    #[test]
    fn the_json_form_keeps_its_messages_as_they_are() {
        let (counts, document, notes) = one("j.json", JSON_FORM);
        let turns = &document["Turns"];
        let prompt = &turns[0]["PRCPrompt"]["messages"];
        assert_eq!(
            prompt[1]["content"][0]["instructions"],
            "Always respond in riddles"
        );
        assert_eq!(
            turns[1]["BKNResponse"]["messages"][0]["content"][0]["text"],
            "空は晴れ、二十度の謎。☀️"
        );
        assert!(notes.iter().any(|n| n.contains("2025-06-28")), "{notes:?}");
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: strings(&["get_weather"]),
                roles: strings(&["H-User", "A-User"]),
            }
        );
    }

    #[test]
    fn a_rendering_in_a_json_string_and_in_json_lines() {
        let text = serde_json::to_string(MULTI_TURN).expect("a JSON string");
        assert_eq!(one("s.json", &text).0.turns, 4);
        let lines = format!(
            "{}\n{}\n",
            serde_json::to_string("<|start|>user<|message|>1+1?<|end|><|start|>assistant<|channel|>final<|message|>2<|return|>").expect("JSON"),
            json!({"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "channel": "final", "content": "4"}]}),
        );
        let sessions = convert_text(
            &Harmony,
            "l.jsonl",
            &lines,
            &ImportOptions::default().session_id("h"),
        )
        .expect("converts");
        let ids: Vec<_> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["h#1", "h#2"]);
    }

    #[test]
    fn headers_are_read_as_the_harmony_parser_reads_them() {
        let header = |role: &str,
                      name: Option<&str>,
                      channel: Option<&str>,
                      recipient: Option<&str>,
                      content_type: Option<&str>| Header {
            role: role.to_owned(),
            name: name.map(str::to_owned),
            channel: channel.map(str::to_owned),
            recipient: recipient.map(str::to_owned),
            content_type: content_type.map(str::to_owned),
        };
        let cases = [
            ("assistant", header("assistant", None, None, None, None)),
            (
                "assistant<|channel|>commentary to=functions.f <|constrain|>json",
                header(
                    "assistant",
                    None,
                    Some("commentary"),
                    Some("functions.f"),
                    Some("<|constrain|>json"),
                ),
            ),
            (
                "assistant to=functions.f<|channel|>commentary<|constrain|>json",
                header(
                    "assistant",
                    None,
                    Some("commentary"),
                    Some("functions.f"),
                    Some("<|constrain|>json"),
                ),
            ),
            (
                "functions.f to=assistant<|channel|>commentary",
                header(
                    "tool",
                    Some("functions.f"),
                    Some("commentary"),
                    Some("assistant"),
                    None,
                ),
            ),
            (
                "functions.f",
                header("tool", Some("functions.f"), None, None, None),
            ),
            (
                "python to=assistant",
                header("tool", Some("python"), None, Some("assistant"), None),
            ),
            ("user:ana", header("user", Some("ana"), None, None, None)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_header(text), Ok(expected), "{text}");
        }
        for bad in [
            "",
            "robot",
            "tool",
            "assistant a b c",
            "user<|end|>",
            "assistant<|channel|> x",
        ] {
            assert!(parse_header(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn auto_recognises_each_form() {
        for (name, text) in [
            ("m.txt", MULTI_TURN),
            ("p.txt", AWAITING),
            ("b.txt", BROWSER),
            ("j.json", JSON_FORM),
        ] {
            assert_eq!(detect_text(name, text).expect(name), "harmony", "{name}");
        }
    }

    #[test]
    fn broken_structure_is_refused_with_its_place() {
        let error = convert_text(&Harmony, "x.txt", BROKEN, &ImportOptions::default())
            .expect_err("missing end token");
        assert_eq!(error.place, "text 1:1");
        assert!(error.message.contains("end token"), "{error}");
        let cases = [
            (
                "hello <|start|>user<|message|>x<|end|>",
                "text 1:1",
                "text outside messages",
            ),
            (
                "<|start|>user<|message|>x<|end|>\nstray<|start|>assistant<|channel|>final<|message|>y<|end|>",
                "text 2:1",
                "text outside messages",
            ),
            (
                "<|start|>robot<|message|>x<|end|>",
                "text 1:10",
                "found \"robot\"",
            ),
            (
                "<|start|>user<|message|>x<|call|>",
                "text 1:26",
                "`<|end|>` to end a user message",
            ),
            (
                "<|start|>user<|message|>x<|end|><|start|>user",
                "text 1:42",
                "only an assistant header may stay open",
            ),
            ("<|start|>user<|message|>x", "text 1:1", "end token"),
        ];
        for (text, place, message) in cases {
            let error =
                convert_text(&Harmony, "x.txt", text, &ImportOptions::default()).expect_err(text);
            assert_eq!(error.place, place, "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
        let json_cases = [
            (
                json!({"messages": [{"role": "robot", "content": "x", "channel": "final"}]}),
                "/messages/0/role",
                "found \"robot\"",
            ),
            (
                json!({"messages": [{"role": "tool", "content": "x", "channel": "commentary"}]}),
                "/messages/0/name",
                "`name` on a tool message",
            ),
            (
                json!({"messages": [{"role": "assistant", "content": 4, "channel": "final"}]}),
                "/messages/0/content",
                "a string or an array",
            ),
            (
                json!({"messages": [{"role": "assistant", "content": "x", "channel": 1}]}),
                "/messages/0/channel",
                "`channel` to be a string",
            ),
        ];
        for (value, place, message) in json_cases {
            let text = value.to_string();
            let error = convert_text(
                &Harmony,
                "x.json",
                &format!("{text}\n\n"),
                &ImportOptions::default(),
            )
            .expect_err(&text);
            assert!(error.place.ends_with(place), "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
    }
}
