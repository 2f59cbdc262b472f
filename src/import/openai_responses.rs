//! OpenAI Responses API histories, and the Codex CLI rollouts that store them: an item
//! list (a request's `input`, with the output items of earlier calls replayed in it), a
//! request body (`{model, instructions?, input, tools?, previous_response_id?, ...}`), a
//! Response object (`{id: "resp_...", object: "response", created_at, output, ...}`),
//! JSON Lines of `{request, response}` log records, and Codex rollouts (JSON Lines of
//! `{timestamp, type, payload}`).
//!
//! The turn rule over items: a response is the run of output items (assistant messages,
//! reasoning, function and custom tool calls, built-in tool calls) between two input items
//! (user, system and developer messages, call outputs). Its prompt is `{"input": [...]}`,
//! the items since the previous response (the first prompt also keeps a request body's
//! other members, `instructions` among them); its response is `{"output": [...]}`. Item
//! types this importer does not know are kept: a type ending in `_output` is input (it
//! answers a call), anything else is model output; a note names them. Calls pair with
//! their outputs on `call_id`, never on the `fc_` item id, and a call without one is
//! refused. The format has no error flag: a failure shows only in the output's text.
//!
//! In a log, each record is one call: the prompt is the request with `input` cut to the
//! items since its last output item (a log may replay the whole history in every
//! request), the response is the Response object, whose `created_at` dates the turn. A
//! JSON Lines file of Response objects is one session, a turn per line; a Response does
//! not hold its input, so its prompt keeps only its `instructions`.
//!
//! Codex: `response_item` lines are the items, dated by the line's `timestamp`; the first
//! `session_meta` gives the session id and start and rides on the first prompt as
//! `session_meta`; a `turn_context` rides on the prompt of the turn that follows it. Every
//! line is kept, in file order, in the `lines` of the prompt or response it falls in:
//! an item's or a rider's line as its envelope (the line without its `payload`: its
//! `timestamp` and `type`), any other line whole: `event_msg` lines (the UI's events:
//! echoes of items, but also what no item holds, such as `token_count`'s usage),
//! `compacted` lines (a compaction's summary), a later `session_meta`, a `turn_context`
//! that a later one replaced before the same turn, and lines of types this importer does
//! not know. Those lines go with what they follow (the response being gathered, else the
//! prompt); a rider's line with the prompt it rides on.

use super::session::{SessionDraft, TurnDraft};
use super::time::{Stamp, TimeProblem, parse_iso};
use super::turns::{Exchange, Splitter, awaiting_note};
use super::{ImportError, ImportOptions, Importer, Record, Sessions};
use crate::model::JsonObject;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The OpenAI Responses (and Codex CLI rollout) importer.
pub struct OpenAiResponses;

/// The `type`s of Codex rollout lines.
const CODEX_LINES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// Input item types besides messages and `*_output` items: references to earlier items,
/// approvals, and what the Codex harness adds to the history.
const INPUT_TYPES: [&str; 5] = [
    "item_reference",
    "mcp_approval_response",
    "ghost_snapshot",
    "compaction",
    "compaction_summary",
];

/// The output item types of the Responses API this importer knows.
const OUTPUT_TYPES: [&str; 16] = [
    "message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "code_interpreter_call",
    "image_generation_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "tool_search_call",
];

/// The `*_output` item types this importer knows.
const OUTPUT_OF_CALL_TYPES: [&str; 7] = [
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
    "tool_search_output",
];

/// What a file may be, as the importer says it when a record is not.
const EXPECTED: &str = "a Responses item list, a request body with `input`, a Response object, a `{request, response}` log record, or a Codex rollout line `{timestamp, type, payload}`";

impl Importer for OpenAiResponses {
    fn name(&self) -> &'static str {
        "openai-responses"
    }

    fn description(&self) -> &'static str {
        "OpenAI Responses API items, request bodies, Response objects and request/response logs, and Codex CLI rollouts"
    }

    fn detect(&self, first: &Record) -> bool {
        match &first.value {
            Value::Array(items) => {
                items.iter().any(is_responses_item)
                    && items
                        .iter()
                        .all(|item| item.get("type").is_some() || item.get("role").is_some())
            }
            Value::Object(object) => {
                if let Some(request) = object.get("request").and_then(Value::as_object) {
                    return object.contains_key("response") && is_request(request);
                }
                object.get("object").and_then(Value::as_str) == Some("response")
                    || is_codex_line(object)
                    || (!object.contains_key("messages") && is_request(object))
                    || (first.line.is_some() && is_responses_item(&first.value))
            }
            _ => false,
        }
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        let mut gathering: Option<Gathering> = None;
        let mut first_kind: Option<Kind> = None;
        for record in records {
            let record = record?;
            let kind = kind_of(&record.value);
            let expected = *first_kind.get_or_insert(kind.unwrap_or(Kind::Items));
            if kind != Some(expected) {
                return Err(record.error("", expected.described()));
            }
            match expected {
                Kind::Items | Kind::Request => {
                    let mut draft = standalone(&record, expected)?;
                    draft.line = record.line;
                    sessions.add(draft)?;
                }
                _ => gathering.get_or_insert_with(Gathering::default).add(
                    &record,
                    expected,
                    sessions.options(),
                )?,
            }
        }
        match gathering {
            Some(gathering) => sessions.add(gathering.finish()),
            None => Ok(()),
        }
    }
}

/// Whether `value` is an item only the Responses API writes: a call, an output, a
/// reasoning item, or a message with Responses content parts.
fn is_responses_item(value: &Value) -> bool {
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return false;
    };
    if kind == "message" {
        return value
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|parts| {
                parts.iter().any(|part| {
                    matches!(
                        part.get("type").and_then(Value::as_str),
                        Some("input_text" | "output_text" | "input_image" | "input_file")
                    )
                })
            });
    }
    OUTPUT_TYPES.contains(&kind)
        || OUTPUT_OF_CALL_TYPES.contains(&kind)
        || INPUT_TYPES[..2].contains(&kind)
}

/// Whether `object` is a Responses request body: `input` as a string with a `model`, or
/// as items, Responses items or messages of a request that names its model or
/// instructions.
fn is_request(object: &JsonObject) -> bool {
    let named = [
        "model",
        "instructions",
        "previous_response_id",
        "conversation",
    ]
    .iter()
    .any(|key| object.contains_key(*key));
    match object.get("input") {
        Some(Value::String(_)) => object.contains_key("model"),
        Some(Value::Array(items)) => {
            !items.is_empty()
                && items
                    .iter()
                    .all(|item| item.get("type").is_some() || item.get("role").is_some())
                && (named || items.iter().any(is_responses_item))
        }
        _ => false,
    }
}

/// Whether `object` is a Codex rollout line.
fn is_codex_line(object: &JsonObject) -> bool {
    object
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| CODEX_LINES.contains(&kind))
        && object.get("payload").is_some_and(Value::is_object)
}

/// What a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An array of items: a session.
    Items,
    /// A request body: a session.
    Request,
    /// A Response object: a turn.
    Response,
    /// A `{request, response}` record: a turn.
    Log,
    /// A Codex rollout line.
    Codex,
    /// One item (a JSON Lines file of items): part of a session.
    ItemLine,
}

impl Kind {
    /// What a record of a file whose first record is of this kind must be.
    fn described(self) -> &'static str {
        match self {
            Self::Items | Self::Request => EXPECTED,
            Self::Response => {
                "a Response object `{id, object: \"response\", output, ...}` like the file's first record"
            }
            Self::Log => "a `{request, response}` log record like the file's first record",
            Self::Codex => {
                "a Codex rollout line `{timestamp, type, payload}` like the file's first record"
            }
            Self::ItemLine => {
                "a Responses item (an object with `type`, or a message with `role`) like the file's first record"
            }
        }
    }
}

fn kind_of(value: &Value) -> Option<Kind> {
    let object = match value {
        Value::Array(_) => return Some(Kind::Items),
        Value::Object(object) => object,
        _ => return None,
    };
    let is_response = object.get("object").and_then(Value::as_str) == Some("response")
        || (object.get("output").is_some_and(Value::is_array)
            && object
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| id.starts_with("resp_")));
    let codex = object.contains_key("payload")
        || object
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| CODEX_LINES.contains(&kind));
    if object.contains_key("request") {
        Some(Kind::Log)
    } else if is_response {
        Some(Kind::Response)
    } else if codex {
        Some(Kind::Codex)
    } else if object.contains_key("input") {
        Some(Kind::Request)
    } else if object.contains_key("type") || object.contains_key("role") {
        Some(Kind::ItemLine)
    } else {
        None
    }
}

/// A record that is a session by itself: an item list or a request body.
fn standalone(record: &Record, kind: Kind) -> Result<SessionDraft, ImportError> {
    let mut conversation = Conversation::default();
    let mut draft = SessionDraft::default();
    match (&record.value, kind) {
        (Value::Array(items), _) => conversation.items(record, items, "")?,
        (Value::Object(object), Kind::Request) => {
            for (key, value) in object {
                if key != "input" {
                    conversation.ride(key, value.clone());
                }
            }
            match object.get("input") {
                Some(Value::Array(items)) => conversation.items(record, items, "/input")?,
                // A question not answered yet: the request as it is is the prompt of a
                // turn that awaits its response.
                Some(Value::String(_)) => {
                    draft
                        .notes
                        .push(awaiting_note(1, "`input` string of the request"));
                    draft.turns.push(TurnDraft {
                        prompt: object.clone(),
                        human: true,
                        ..TurnDraft::default()
                    });
                }
                _ => {
                    return Err(
                        record.error("/input", "`input` to be a string or an array of items")
                    );
                }
            }
            draft.session_id = conversation_id(object);
            if let Some(previous) = object.get("previous_response_id").and_then(Value::as_str) {
                draft.notes.push(format!(
                    "the request continues response {previous}: the turns before it are not in the file"
                ));
            }
        }
        _ => return Err(record.error("", EXPECTED)),
    }
    if draft.turns.is_empty() {
        conversation.finish(&mut draft);
    }
    Ok(draft)
}

/// The conversation id a request or Response names: `conversation` as a string or as
/// `{id}`.
fn conversation_id(object: &JsonObject) -> Option<String> {
    match object.get("conversation")? {
        Value::String(id) => Some(id.clone()),
        Value::Object(conversation) => conversation
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    }
}

/// Which side of a call an item is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Input: sent to the model; `human` for a user message.
    Input { human: bool },
    /// Output of the model.
    Output,
}

/// The side of an item, after checking the members its type requires.
fn side(record: &Record, item: &Value, pointer: &str) -> Result<Side, ImportError> {
    let object = item
        .as_object()
        .ok_or_else(|| record.error(pointer, "an item object"))?;
    let kind = match object.get("type") {
        None => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(_) => {
            return Err(record.error(&format!("{pointer}/type"), "`type` to be a string"));
        }
    };
    match kind {
        None | Some("message") => message_side(record, object, pointer),
        Some(kind @ ("function_call" | "custom_tool_call")) => {
            require_call_id(record, object, pointer, kind)?;
            if !object.get("name").is_some_and(Value::is_string) {
                return Err(record.error(
                    &format!("{pointer}/name"),
                    format!("a string `name` on a {kind} item (the tool called)"),
                ));
            }
            Ok(Side::Output)
        }
        Some(kind @ ("function_call_output" | "custom_tool_call_output")) => {
            require_call_id(record, object, pointer, kind)?;
            Ok(Side::Input { human: false })
        }
        Some(kind) if kind.ends_with("_output") || INPUT_TYPES.contains(&kind) => {
            Ok(Side::Input { human: false })
        }
        Some(_) => Ok(Side::Output),
    }
}

fn message_side(record: &Record, object: &JsonObject, pointer: &str) -> Result<Side, ImportError> {
    let role = object.get("role").and_then(Value::as_str).ok_or_else(|| {
        record.error(
            pointer,
            "a message with a string `role` (user, system, developer or assistant), or an item with a `type`",
        )
    })?;
    if !matches!(
        object.get("content"),
        Some(Value::String(_) | Value::Array(_))
    ) {
        return Err(record.error(
            &format!("{pointer}/content"),
            "a message's `content`: a string or an array of content parts",
        ));
    }
    match role {
        "user" => Ok(Side::Input { human: true }),
        "system" | "developer" => Ok(Side::Input { human: false }),
        "assistant" => Ok(Side::Output),
        other => Err(record.error(
            &format!("{pointer}/role"),
            format!("a message role user, system, developer or assistant; found {other:?}"),
        )),
    }
}

fn require_call_id(
    record: &Record,
    object: &JsonObject,
    pointer: &str,
    kind: &str,
) -> Result<(), ImportError> {
    if object.get("call_id").is_some_and(Value::is_string) {
        return Ok(());
    }
    Err(record.error(
        &format!("{pointer}/call_id"),
        format!(
            "a string `call_id` on a {kind} item: the Responses API requires it, and calls pair with their outputs on it (never on the `fc_` item id)"
        ),
    ))
}

/// Items in order, grouped into turns by the turn rule, with the members that ride on
/// the prompt of a given turn (a request's members, Codex meta lines).
#[derive(Default)]
struct Conversation {
    splitter: Splitter,
    /// Responses closed so far.
    closed: usize,
    /// `(turn, member, value, line)` to put on that turn's prompt; `line`: the index in
    /// `lines` of the rollout line it came from.
    riders: Vec<(usize, String, Value, Option<usize>)>,
    /// Codex: the rollout lines, in file order.
    lines: Vec<RolloutLine>,
    /// Item types kept without being known, with the side they were put on.
    unknown: BTreeSet<(String, &'static str)>,
}

impl Conversation {
    fn items(
        &mut self,
        record: &Record,
        items: &[Value],
        pointer: &str,
    ) -> Result<(), ImportError> {
        for (index, item) in items.iter().enumerate() {
            self.item(record, item, &format!("{pointer}/{index}"), None)?;
        }
        Ok(())
    }

    fn item(
        &mut self,
        record: &Record,
        item: &Value,
        pointer: &str,
        time: Option<Stamp>,
    ) -> Result<(), ImportError> {
        let side = side(record, item, pointer)?;
        if let Some(kind) = item.get("type").and_then(Value::as_str)
            && !OUTPUT_TYPES.contains(&kind)
            && !OUTPUT_OF_CALL_TYPES.contains(&kind)
            && !INPUT_TYPES.contains(&kind)
        {
            let put = match side {
                Side::Output => "as model output",
                Side::Input { .. } => "as input",
            };
            self.unknown.insert((kind.to_owned(), put));
        }
        match side {
            Side::Input { human } => {
                if self.splitter.in_response() {
                    self.closed += 1;
                }
                self.splitter.input(item.clone(), human, time);
            }
            Side::Output => self.splitter.output(item.clone(), time),
        }
        Ok(())
    }

    /// Puts `member` on the prompt of the turn the next item belongs to.
    fn ride(&mut self, member: &str, value: Value) {
        let turn = self.closed + usize::from(self.splitter.in_response());
        self.riders.push((turn, member.to_owned(), value, None));
    }

    /// As [`Conversation::ride`], for the payload of a rollout line whose `envelope` (the
    /// line without its payload) goes into that prompt's `lines`.
    fn ride_line(&mut self, member: &str, value: Value, envelope: JsonObject) {
        let turn = self.closed + usize::from(self.splitter.in_response());
        self.lines.push(RolloutLine {
            turn,
            output: false,
            line: envelope,
        });
        let line = Some(self.lines.len() - 1);
        self.riders.push((turn, member.to_owned(), value, line));
    }

    /// Keeps a rollout line with what it follows: in the response being gathered, else
    /// in the prompt.
    fn keep_line(&mut self, line: JsonObject) {
        self.lines.push(RolloutLine {
            turn: self.closed,
            output: self.splitter.in_response(),
            line,
        });
    }

    /// Puts each rider on its turn's prompt. A rider replaced by a later one before the
    /// same turn goes back whole into its line; returns how many did.
    fn place_riders(
        riders: Vec<(usize, String, Value, Option<usize>)>,
        prompts: &mut [JsonObject],
        lines: &mut [RolloutLine],
    ) -> usize {
        let mut holders: HashMap<(usize, String), Option<usize>> = HashMap::new();
        let mut replaced = 0;
        for (turn, member, value, line) in riders {
            let Some(prompt) = prompts.get_mut(turn) else {
                continue;
            };
            let earlier = holders.insert((turn, member.clone()), line).flatten();
            if let Some(old) = prompt.insert(member, value) {
                replaced += 1;
                if let Some(kept) = earlier.and_then(|at| lines.get_mut(at)) {
                    kept.line.insert("payload".to_owned(), old);
                }
            }
        }
        replaced
    }

    fn finish(mut self, draft: &mut SessionDraft) {
        let mut exchanges = self.splitter.finish();
        // Members met after the last item (a Codex `turn_context` before a turn that was
        // never sent) prepare a call that has not happened: kept on a turn awaiting it;
        // so are lines of a rollout that holds no item.
        if self
            .riders
            .iter()
            .map(|(turn, ..)| *turn)
            .chain(self.lines.iter().map(|line| line.turn))
            .any(|turn| turn >= exchanges.len())
        {
            exchanges.push(Exchange::default());
        }
        if let Some(last) = exchanges.last().filter(|last| last.awaits_response()) {
            draft.notes.push(awaiting_note(
                last.prompt.len(),
                "input item(s) after the last model output",
            ));
        }
        if !self.unknown.is_empty() {
            let kinds: Vec<String> = self
                .unknown
                .iter()
                .map(|(kind, put)| format!("{kind} ({put})"))
                .collect();
            draft.notes.push(format!(
                "kept items of types this importer does not know: {}; a type ending in `_output` is taken as input, any other as model output",
                kinds.join(", ")
            ));
        }
        let mut prompts = vec![Map::new(); exchanges.len()];
        let replaced = Self::place_riders(self.riders, &mut prompts, &mut self.lines);
        if replaced > 0 {
            draft.notes.push(format!(
                "{replaced} meta line(s) replaced by a later one before the same turn are kept whole in that prompt's `lines`"
            ));
        }
        let mut lines = vec![(Vec::new(), Vec::new()); exchanges.len()];
        for kept in self.lines {
            if let Some((prompt_lines, response_lines)) = lines.get_mut(kept.turn) {
                let side = if kept.output {
                    response_lines
                } else {
                    prompt_lines
                };
                side.push(Value::Object(kept.line));
            }
        }
        for ((mut prompt, exchange), (prompt_lines, response_lines)) in
            prompts.into_iter().zip(exchanges).zip(lines)
        {
            let awaits = exchange.awaits_response();
            let Exchange {
                prompt: input,
                response,
                human,
                prompt_time,
                response_time,
            } = exchange;
            prompt.insert("input".to_owned(), Value::Array(input));
            if !prompt_lines.is_empty() {
                prompt.insert("lines".to_owned(), Value::Array(prompt_lines));
            }
            let mut output = Map::new();
            if !awaits {
                output.insert("output".to_owned(), Value::Array(response));
                if !response_lines.is_empty() {
                    output.insert("lines".to_owned(), Value::Array(response_lines));
                }
            }
            draft.turns.push(TurnDraft {
                prompt,
                response: output,
                human,
                time: prompt_time,
                response_time,
                ..TurnDraft::default()
            });
        }
    }
}

/// A Codex rollout line kept in the turn it falls in: an item's or a rider's line as its
/// envelope (the line without its `payload`, which the turn holds as an item or a
/// member), any other line whole.
struct RolloutLine {
    turn: usize,
    /// On the response's side (else the prompt's).
    output: bool,
    line: JsonObject,
}

/// A file whose records together make one session: a log, Response objects, a Codex
/// rollout, or items one per line.
#[derive(Default)]
struct Gathering {
    draft: SessionDraft,
    conversation: Conversation,
    /// Codex: whether the first `session_meta` was read.
    meta_seen: bool,
    /// Codex: lines kept whole (no item, no rider), by type.
    kept_whole: BTreeMap<String, usize>,
    /// Response objects read.
    responses: usize,
}

impl Gathering {
    fn add(
        &mut self,
        record: &Record,
        kind: Kind,
        options: &ImportOptions,
    ) -> Result<(), ImportError> {
        match kind {
            Kind::Log => {
                let turn = log_turn(record)?;
                if self.draft.turns.is_empty() {
                    self.draft.session_id = ["request", "response"].iter().find_map(|key| {
                        record
                            .value
                            .get(key)
                            .and_then(Value::as_object)
                            .and_then(conversation_id)
                    });
                }
                self.draft.turns.push(turn);
            }
            Kind::Response => {
                let turn = response_turn(record)?;
                if self.draft.turns.is_empty() {
                    self.draft.session_id = record.value.as_object().and_then(conversation_id);
                }
                self.responses += 1;
                self.draft.turns.push(turn);
            }
            Kind::Codex => self.codex_line(record, options)?,
            Kind::ItemLine | Kind::Items | Kind::Request => {
                self.conversation.item(record, &record.value, "", None)?;
            }
        }
        Ok(())
    }

    fn codex_line(&mut self, record: &Record, options: &ImportOptions) -> Result<(), ImportError> {
        let kind = record.value.get("type").and_then(Value::as_str).ok_or_else(|| {
            record.error(
                "/type",
                "a Codex rollout line's string `type` (session_meta, turn_context, response_item, event_msg, compacted)",
            )
        })?;
        let mut envelope = record.value.as_object().cloned().unwrap_or_default();
        let payload = envelope
            .remove("payload")
            .filter(Value::is_object)
            .ok_or_else(|| record.error("/payload", "a Codex rollout line's `payload` object"))?;
        let time = line_time(record, options)?;
        match kind {
            "response_item" => {
                self.conversation.item(record, &payload, "/payload", time)?;
                self.conversation.keep_line(envelope);
            }
            "session_meta" if !self.meta_seen => {
                self.meta_seen = true;
                self.draft.session_id =
                    payload.get("id").and_then(Value::as_str).map(str::to_owned);
                self.draft.start = time;
                self.conversation
                    .ride_line("session_meta", payload, envelope);
            }
            "turn_context" => self
                .conversation
                .ride_line("turn_context", payload, envelope),
            other => {
                *self.kept_whole.entry(other.to_owned()).or_default() += 1;
                envelope.insert("payload".to_owned(), payload);
                self.conversation.keep_line(envelope);
            }
        }
        Ok(())
    }

    fn finish(mut self) -> SessionDraft {
        if !self.kept_whole.is_empty() {
            let kinds: Vec<String> = self
                .kept_whole
                .iter()
                .map(|(kind, count)| format!("{count} {kind}"))
                .collect();
            self.draft.notes.push(format!(
                "Codex lines that are no item of the conversation kept whole in the `lines` of the prompt or response they follow (event_msg lines echo items for the UI, and hold what no item does, such as token counts): {}",
                kinds.join(", ")
            ));
        }
        if self.responses > 0 {
            self.draft.notes.push(format!(
                "{} Response object(s), a turn each: a Response does not hold its input, so each prompt keeps only its `instructions`",
                self.responses
            ));
        }
        self.conversation.finish(&mut self.draft);
        self.draft
    }
}

/// A Codex line's `timestamp`.
fn line_time(record: &Record, options: &ImportOptions) -> Result<Option<Stamp>, ImportError> {
    match record.value.get("timestamp") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => parse_iso(text, options).map(Some).map_err(|problem| {
            let expected = match problem {
                TimeProblem::Invalid => format!("an ISO 8601 time; found {text:?}"),
                TimeProblem::NaiveWithoutZone => {
                    "a time with an offset, or a --timezone for local times".to_owned()
                }
            };
            record.error("/timestamp", expected)
        }),
        Some(_) => Err(record.error("/timestamp", "an ISO 8601 time string")),
    }
}

/// The output items of a Response object, checked.
fn checked_output(
    record: &Record,
    response: &JsonObject,
    pointer: &str,
) -> Result<(), ImportError> {
    let output = response
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            record.error(
                &format!("{pointer}/output"),
                "`output` to be an array of output items",
            )
        })?;
    for (index, item) in output.iter().enumerate() {
        side(record, item, &format!("{pointer}/output/{index}"))?;
    }
    Ok(())
}

fn created_at(response: &JsonObject) -> Option<Stamp> {
    response
        .get("created_at")
        .and_then(Value::as_i64)
        .map(Stamp::Seconds)
}

/// A Response object by itself: a turn whose prompt keeps its `instructions`.
fn response_turn(record: &Record) -> Result<TurnDraft, ImportError> {
    let response = record
        .value
        .as_object()
        .ok_or_else(|| record.error("", "a Response object"))?;
    checked_output(record, response, "")?;
    let mut prompt = Map::new();
    if let Some(instructions) = response.get("instructions").filter(|i| !i.is_null()) {
        prompt.insert("instructions".to_owned(), instructions.clone());
    }
    Ok(TurnDraft {
        prompt,
        response: response.clone(),
        response_time: created_at(response),
        ..TurnDraft::default()
    })
}

/// A `{request, response}` record: one call.
fn log_turn(record: &Record) -> Result<TurnDraft, ImportError> {
    let request = record
        .value
        .get("request")
        .and_then(Value::as_object)
        .ok_or_else(|| record.error("/request", "a request object"))?;
    let response = record
        .value
        .get("response")
        .and_then(Value::as_object)
        .ok_or_else(|| record.error("/response", "a Response object"))?;
    checked_output(record, response, "/response")?;
    let (since, human) = match request.get("input") {
        Some(Value::String(_)) => (0, true),
        Some(Value::Array(items)) => {
            // What was sent since the previous response: the items after the last output
            // item the request replays.
            let mut since = 0;
            let mut human = false;
            for (index, item) in items.iter().enumerate() {
                match side(record, item, &format!("/request/input/{index}"))? {
                    Side::Output => {
                        since = index + 1;
                        human = false;
                    }
                    Side::Input { human: new } => human |= new,
                }
            }
            (since, human)
        }
        _ => {
            return Err(record.error(
                "/request/input",
                "`input` to be a string or an array of items",
            ));
        }
    };
    let mut prompt = request.clone();
    if let Some(Value::Array(items)) = prompt.get_mut("input") {
        items.drain(..since);
    }
    Ok(TurnDraft {
        prompt,
        response: response.clone(),
        human,
        response_time: created_at(response),
        ..TurnDraft::default()
    })
}

#[cfg(test)]
mod tests {
    use super::OpenAiResponses;
    use crate::import::ImportOptions;
    use crate::import::testing::{
        Counts, assert_read_alike, convert_text, counts, detect_text, only_session,
    };
    use crate::payload::{PayloadKind, payload_text};
    use serde_json::Value;

    const PARALLEL: &str =
        include_str!("../../tests/fixtures/import/openai-responses/parallel-reasoning.json");
    const PATCH: &str =
        include_str!("../../tests/fixtures/import/openai-responses/apply-patch.json");
    const RESPONSE: &str =
        include_str!("../../tests/fixtures/import/openai-responses/response-object.json");
    const CODEX: &str =
        include_str!("../../tests/fixtures/import/openai-responses/codex-rollout.jsonl");
    const LOG: &str =
        include_str!("../../tests/fixtures/import/openai-responses/request-log.jsonl");

    fn one(name: &str, text: &str) -> (Counts, Value, Vec<String>) {
        only_session(&OpenAiResponses, name, text, "s")
    }

    fn roles(roles: &[&str]) -> Vec<String> {
        roles.iter().map(|r| (*r).to_owned()).collect()
    }

    /// The text the payload layer reads in a turn's prompt or response.
    fn text(turn: &Value, kind: PayloadKind) -> Option<String> {
        let member = match kind {
            PayloadKind::Prompt => "PRCPrompt",
            PayloadKind::Answer => "BKNResponse",
        };
        payload_text(turn[member].as_object()?, kind)
    }

    fn start_time(time: &Value) -> &Value {
        &time["SimpleTimeData"][0]["StartTime"]
    }

    #[test]
    fn reasoning_a_preamble_and_two_calls_are_one_turn_answered_in_reverse_order() {
        let (counts, document, notes) = one("a.json", PARALLEL);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: vec!["get_time".into(), "get_weather".into()],
                roles: roles(&["H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        let output = turns[0]["BKNResponse"]["output"]
            .as_array()
            .expect("output");
        let kinds: Vec<_> = output.iter().map(|item| item["type"].as_str()).collect();
        assert_eq!(
            kinds,
            [
                Some("reasoning"),
                Some("message"),
                Some("function_call"),
                Some("function_call")
            ]
        );
        // The system prompt (a developer message) is on the first prompt.
        assert_eq!(turns[0]["PRCPrompt"]["input"][0]["role"], "developer");
        // Both outputs, in the order they came, form the second prompt.
        assert_eq!(turns[1]["PRCPrompt"]["input"][0]["call_id"], "call_T0ky0");
        assert_eq!(
            turns[1]["PRCPrompt"]["input"][1]["call_id"],
            "call_W3xZrich"
        );
        assert_eq!(
            turns[1]["BKNResponse"]["output"][0]["content"][0]["text"],
            "Zürich: Nebel bei 7 °C. 東京: 21:04 Uhr. 🌫️🕘"
        );
        assert_eq!(
            text(&turns[0], PayloadKind::Prompt).as_deref(),
            Some("Wie ist das Wetter in Zürich, und wie spät ist es in 東京?")
        );
        assert_eq!(
            text(&turns[0], PayloadKind::Answer).as_deref(),
            Some("Ich schaue beides nach …")
        );
        // No time in an item list: relative times.
        assert_eq!(turns[2]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 0);
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn a_request_body_keeps_its_members_on_the_first_prompt_and_apply_patch_raw_input() {
        // The custom tool call and its output are read by the payload layer's Responses
        // custom tool shapes.
        let (counts, document, notes) = one("b.json", PATCH);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: vec!["apply_patch".into()],
                roles: roles(&["H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(first["model"], "gpt-5");
        assert_eq!(
            first["instructions"],
            "You are a coding agent. Edit files with apply_patch."
        );
        assert_eq!(first["tools"][0]["name"], "apply_patch");
        assert!(turns[1]["PRCPrompt"].get("model").is_none());
        let call = &turns[0]["BKNResponse"]["output"][1];
        assert_eq!(call["type"], "custom_tool_call");
        assert!(
            call["input"]
                .as_str()
                .is_some_and(|patch| patch.contains("+    \"Grüß Gott\"\n")),
            "{call}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("1 input item(s) after the last model output")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_response_object_is_one_turn_dated_by_created_at() {
        let (counts, document, notes) = one("c.json", RESPONSE);
        assert_eq!(
            counts,
            Counts {
                turns: 1,
                calls: 0,
                results: 0,
                paired: 0,
                errors: 0,
                tools: vec![],
                roles: roles(&["A-User"]),
            }
        );
        let turn = &document["Turns"][0];
        assert_eq!(turn["PRCPrompt"]["instructions"], "Cite your sources.");
        assert_eq!(turn["BKNResponse"]["id"], "resp_68b9c1d2e3f4a5b6");
        assert_eq!(
            turn["BKNResponse"]["output"][1]["content"][0]["text"],
            "La Sagrada Família vol acabar les torres el 2026 — el centenari de Gaudí. ⛪"
        );
        assert_eq!(*start_time(&turn["Timestamp"]), 1_767_254_400);
        assert_eq!(turn["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 1);
        assert!(
            notes.iter().any(|n| n.contains("does not hold its input")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_codex_rollout_keeps_every_line_and_a_failure_as_text() {
        let sessions = convert_text(
            &OpenAiResponses,
            "r.jsonl",
            CODEX,
            &ImportOptions::default(),
        )
        .expect("converts");
        assert_eq!(sessions.len(), 1);
        let session = &sessions[0];
        assert_eq!(
            counts(session),
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                // The shell call failed (exit code 101), but only its text says so.
                errors: 0,
                tools: vec!["shell".into()],
                roles: roles(&["H-User", "A-User", "H-User"]),
            }
        );
        assert_eq!(session.session_id, "0199c3a4-7b1e-7d30-9f2a-5e6d4c3b2a10");
        let document = &session.document();
        assert_eq!(
            *start_time(&document["SessionStartTime"]),
            1_770_110_100_120_i64
        );
        let turns = &document["Turns"];
        // The call began with the last prompt item; the response's first item came later.
        assert_eq!(*start_time(&turns[0]["Timestamp"]), 1_770_110_107_480_i64);
        assert_eq!(turns[0]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 3);
        assert_eq!(*start_time(&turns[2]["Timestamp"]), 1_770_110_405_320_i64);
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(first["session_meta"]["cli_version"], "0.46.0");
        assert_eq!(first["turn_context"]["model"], "gpt-5-codex");
        assert_eq!(first["input"].as_array().map(Vec::len), Some(2));
        assert!(turns[1]["PRCPrompt"].get("turn_context").is_none());
        assert_eq!(turns[2]["PRCPrompt"]["turn_context"]["effort"], "low");
        assert!(
            turns[1]["PRCPrompt"]["input"][0]["output"]
                .as_str()
                .is_some_and(|output| output.contains("\"exit_code\":101"))
        );
        assert_eq!(
            turns[2]["PRCPrompt"]["input"][0]["content"][0]["text"],
            "Merci 🙏"
        );
        let notes = &session.notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("kept whole") && n.contains("1 compacted, 6 event_msg")),
            "{notes:?}"
        );
        assert!(!notes.iter().any(|n| n.contains("derived")), "{notes:?}");
    }

    #[test]
    fn a_codex_rollout_keeps_each_line_in_the_turn_it_falls_in() {
        let (_, document, _) = one("r.jsonl", CODEX);
        let turns = &document["Turns"];
        let first = &turns[0]["PRCPrompt"];
        // Every line in the turn it falls in: an item's or a rider's as its envelope,
        // the others whole, with what they follow.
        let types = |lines: &Value| -> Vec<String> {
            lines
                .as_array()
                .into_iter()
                .flatten()
                .map(|line| {
                    let kind = line["type"].as_str().unwrap_or_default();
                    match line.get("payload") {
                        Some(payload) => {
                            format!("{kind}:{}", payload["type"].as_str().unwrap_or(""))
                        }
                        None => kind.to_owned(),
                    }
                })
                .collect()
        };
        assert_eq!(
            types(&first["lines"]),
            [
                "session_meta",
                "response_item",
                "response_item",
                "event_msg:user_message",
                "turn_context"
            ]
        );
        assert_eq!(
            first["lines"][0],
            serde_json::json!({"timestamp": "2026-02-03T09:15:00.120Z", "type": "session_meta"})
        );
        let response = &turns[0]["BKNResponse"];
        assert_eq!(
            types(&response["lines"]),
            [
                "response_item",
                "event_msg:agent_reasoning",
                "response_item",
                "event_msg:token_count"
            ]
        );
        // A token count no item holds.
        let usage = &response["lines"][3]["payload"]["info"]["total_token_usage"];
        assert_eq!(usage["input_tokens"], 5321);
        let compacted = &turns[1]["BKNResponse"]["lines"][4];
        assert_eq!(compacted["type"], "compacted");
        assert!(
            compacted["payload"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("Résumé"))
        );
        assert_eq!(
            types(&turns[2]["PRCPrompt"]["lines"]),
            ["turn_context", "response_item", "event_msg:user_message"]
        );
    }

    #[test]
    fn the_lines_kept_beside_the_items_are_read_as_no_item() {
        let (_, document, _) = one("r.jsonl", CODEX);
        let mut kept = 0;
        for turn in document["Turns"].as_array().expect("turns") {
            for (member, kind) in [
                ("PRCPrompt", PayloadKind::Prompt),
                ("BKNResponse", PayloadKind::Answer),
            ] {
                let payload = turn[member].as_object().expect("a payload");
                let mut without = payload.clone();
                kept += without
                    .remove("lines")
                    .map_or(0, |lines| lines.as_array().map_or(0, Vec::len));
                assert_read_alike(payload, &without, kind);
            }
        }
        assert_eq!(kept, 19, "every line of the rollout");
    }

    #[test]
    fn a_replaced_turn_context_and_lines_after_the_last_item_are_kept() {
        let text = [
            r#"{"timestamp":"2026-02-03T09:15:00Z","type":"session_meta","payload":{"id":"rc"}}"#,
            r#"{"timestamp":"2026-02-03T09:15:01Z","type":"turn_context","payload":{"effort":"high"}}"#,
            r#"{"timestamp":"2026-02-03T09:15:02Z","type":"turn_context","payload":{"effort":"low"}}"#,
            r#"{"timestamp":"2026-02-03T09:15:03Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Hallo"}]}}"#,
            r#"{"timestamp":"2026-02-03T09:15:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hallo!"}]}}"#,
            r#"{"timestamp":"2026-02-03T09:15:05Z","type":"turn_context","payload":{"effort":"medium"}}"#,
            r#"{"timestamp":"2026-02-03T09:15:06Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#,
        ]
        .join("\n");
        let (counts, document, notes) = one("rc.jsonl", &text);
        assert_eq!(counts.turns, 2);
        let first = &document["Turns"][0]["PRCPrompt"];
        // The later context rides on the prompt; the earlier one stays whole in `lines`.
        assert_eq!(first["turn_context"]["effort"], "low");
        assert_eq!(first["lines"][1]["payload"]["effort"], "high");
        assert!(first["lines"][2].get("payload").is_none());
        // A context after the last response prepares a call not sent: a turn awaiting
        // it; an event follows the response it comes after.
        let last = &document["Turns"][1];
        assert_eq!(last["BKNResponse"], serde_json::json!({}));
        assert_eq!(last["PRCPrompt"]["turn_context"]["effort"], "medium");
        assert_eq!(last["PRCPrompt"]["lines"][0]["type"], "turn_context");
        let event = &document["Turns"][0]["BKNResponse"]["lines"][1];
        assert_eq!(event["payload"]["reason"], "interrupted");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("1 meta line(s) replaced") && n.contains("kept whole")),
            "{notes:?}"
        );
    }

    #[test]
    fn a_log_cuts_replayed_history_and_dates_turns_by_created_at() {
        let (counts, document, _) = one("log.jsonl", LOG);
        assert_eq!(
            counts,
            Counts {
                turns: 3,
                calls: 1,
                results: 1,
                paired: 1,
                errors: 0,
                tools: vec!["get_time".into()],
                roles: roles(&["H-User", "A-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        let second = &turns[1]["PRCPrompt"]["input"];
        assert_eq!(second.as_array().map(Vec::len), Some(1));
        assert_eq!(second[0]["type"], "function_call_output");
        assert_eq!(
            turns[0]["PRCPrompt"]["instructions"],
            "Antworte auf Deutsch."
        );
        assert_eq!(turns[2]["PRCPrompt"]["previous_response_id"], "resp_02");
        assert_eq!(turns[2]["BKNResponse"]["id"], "resp_03");
        assert_eq!(*start_time(&turns[2]["Timestamp"]), 1_767_254_410);
        assert_eq!(*start_time(&document["SessionStartTime"]), 1_767_254_400);
    }

    #[test]
    fn items_one_per_line_and_unknown_types_are_kept_with_a_note() {
        let text = concat!(
            "{\"role\":\"user\",\"content\":\"Zeichne eine Katze\"}\n",
            "{\"type\":\"image_generation_call\",\"id\":\"ig_1\",\"status\":\"completed\",\"result\":\"iVBORw0KGgo=\"}\n",
            "{\"type\":\"hologram_call\",\"id\":\"hc_1\"}\n",
            "{\"type\":\"hologram_call_output\",\"id\":\"hc_1\",\"output\":\"ok\"}\n",
            "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Fertig.\"}]}\n",
        );
        let (counts, document, notes) = one("items.jsonl", text);
        assert_eq!((counts.turns, counts.calls), (2, 0));
        assert_eq!(counts.roles, roles(&["H-User", "A-User"]));
        assert_eq!(
            document["Turns"][0]["BKNResponse"]["output"][1]["type"],
            "hologram_call"
        );
        assert!(
            notes
                .iter()
                .any(|n| n
                    .contains("hologram_call (as model output), hologram_call_output (as input)")),
            "{notes:?}"
        );
    }

    #[test]
    fn auto_recognises_each_shape() {
        for (name, text) in [
            ("a.json", PARALLEL),
            ("b.json", PATCH),
            ("c.json", RESPONSE),
            ("r.jsonl", CODEX),
            ("log.jsonl", LOG),
        ] {
            assert_eq!(
                detect_text(name, text).expect(name),
                "openai-responses",
                "{name}"
            );
        }
    }

    #[test]
    fn broken_structure_is_refused_with_its_place() {
        let call = r#"{"type":"function_call","id":"fc_1","name":"f","arguments":"{}"}"#;
        let cases = [
            (
                format!(r#"[{{"role":"user","content":"x"}},{call}]"#),
                "/1/call_id",
                "`call_id` on a function_call item: the Responses API requires it",
            ),
            (
                r#"[{"role":"robot","content":"x"}]"#.to_owned(),
                "/0/role",
                "found \"robot\"",
            ),
            (
                r#"[{"type":"message","content":"x"}]"#.to_owned(),
                "/0",
                "string `role`",
            ),
            (
                r#"[{"role":"user","content":7}]"#.to_owned(),
                "/0/content",
                "a string or an array of content parts",
            ),
            (r#"["hello"]"#.to_owned(), "/0", "an item object"),
            (
                r#"{"model":"m","input":{"role":"user"}}"#.to_owned(),
                "/input",
                "a string or an array of items",
            ),
            (
                r#"{"id":"resp_1","object":"response","output":{"type":"message"}}"#.to_owned(),
                "/output",
                "`output` to be an array",
            ),
            (
                r#"{"request":{"input":"hi"},"response":{"output":[{"type":"function_call","name":"f","arguments":"{}"}]}}"#
                    .to_owned(),
                "/response/output/0/call_id",
                "call_id",
            ),
            (
                r#"[{"type":"function_call_output","output":"4"}]"#.to_owned(),
                "/0/call_id",
                "call_id",
            ),
            (
                r#"[]"#.to_owned(),
                "(document)",
                "at least one message",
            ),
        ];
        for (text, place, message) in cases {
            let error = convert_text(
                &OpenAiResponses,
                "bad.json",
                &text,
                &ImportOptions::default(),
            )
            .expect_err(&text);
            assert!(error.place.ends_with(place), "{text}: {error}");
            assert!(error.message.contains(message), "{text}: {error}");
        }
    }

    #[test]
    fn broken_codex_lines_are_refused_with_their_line() {
        let meta =
            r#"{"timestamp":"2026-02-03T09:15:00Z","type":"session_meta","payload":{"id":"s"}}"#;
        let cases = [
            (
                r#"{"timestamp":"2026-02-03T09:15:01Z","type":"response_item"}"#,
                "line 2, /payload",
                "`payload` object",
            ),
            (
                r#"{"timestamp":"2026-02-03T09:15:01Z","payload":{"type":"message"}}"#,
                "line 2, /type",
                "string `type`",
            ),
            (
                r#"{"timestamp":"2026-02-03T09:15:01Z","role":"user","content":"x"}"#,
                "line 2, (document)",
                "a Codex rollout line",
            ),
            (
                r#"{"timestamp":"yesterday","type":"response_item","payload":{"role":"user","content":"x"}}"#,
                "line 2, /timestamp",
                "an ISO 8601 time",
            ),
            (
                r#"{"timestamp":"2026-02-03T09:15:01Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"x"}}"#,
                "line 2, /payload/call_id",
                "custom_tool_call",
            ),
        ];
        for (line, place, message) in cases {
            let text = format!("{meta}\n{line}\n");
            let error = convert_text(
                &OpenAiResponses,
                "bad.jsonl",
                &text,
                &ImportOptions::default(),
            )
            .expect_err(line);
            assert_eq!(error.place, place, "{line}: {error}");
            assert!(error.message.contains(message), "{line}: {error}");
        }
    }
}
