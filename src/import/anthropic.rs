//! Anthropic Messages conversations and Claude Code session transcripts.
//!
//! Messages: a `MessageParam` array, a request body (`{model, max_tokens, system?, tools?,
//! messages}`) or a response (`{type: "message", role: "assistant", ...}`); in JSON Lines,
//! one conversation per line. Each assistant message is one turn, its `BKNResponse` the
//! message itself; the messages since the previous assistant message form the prompt,
//! `{"messages": [...]}`, and the first turn's prompt also keeps the request's other
//! members (`system`, `tools`, `model`, ...). A user message holding only `tool_result`
//! blocks is the agent prompting again (`A-User`). Blocks are kept as written: thinking
//! with its signature, server tools, and block types this importer does not know.
//!
//! Claude Code (`~/.claude/projects/<project>/<sessionId>.jsonl`): one session per file,
//! one line per user or assistant message plus lines that are no message (`summary`,
//! `file-history-snapshot`, `system`, ...), linked by `uuid`/`parentUuid` into a tree.
//! The main conversation is the branch ending at the last message line that is not a
//! sub-agent's (`isSidechain`); Claude Code writes each content block of one API
//! response as its own line, all sharing `message.id`, and points each tool result at the
//! line of its own `tool_use`, so the sibling lines of a response on that branch and the
//! results that answer them belong to it too. One API response is one turn, whatever
//! number of lines it was written as. A rewind (a prompt edited and sent again) leaves
//! the old continuation as another branch of the tree: each such branch becomes a session
//! of its own, `PARENT/branch/UUID` (UUID: its first line), whose Data Exchange Metadata
//! links it to the session and turn it forked from. Lines without any parent link are
//! read in file order.

use super::session::other_members;
use super::session::{SessionDraft, TurnDraft};
use super::time::{Stamp, TimeProblem, parse_iso};
use super::turns::{Exchange, Splitter, awaiting_note};
use super::{ImportError, ImportOptions, Importer, Record, Sessions};
use crate::model::JsonObject;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The Anthropic Messages and Claude Code importer.
pub struct Anthropic;

/// Block types of the Messages API this importer knows (besides the server tools'
/// `*_tool_result` blocks).
const KNOWN_BLOCKS: [&str; 12] = [
    "text",
    "image",
    "document",
    "search_result",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
];

impl Importer for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn description(&self) -> &'static str {
        "Anthropic Messages conversations, request bodies and responses, and Claude Code session transcripts"
    }

    fn detect(&self, first: &Record) -> bool {
        match &first.value {
            Value::Array(messages) => is_messages(messages) && messages.iter().any(has_marker),
            Value::Object(object) => {
                is_claude_code_line(object) || is_response(object) || is_request(object)
            }
            _ => false,
        }
    }

    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        let Some(first) = records.next() else {
            return Ok(());
        };
        let first = first?;
        if is_transcript_record(&first) {
            return claude_code::sessions(first, records, sessions);
        }
        for record in std::iter::once(Ok(first)).chain(records) {
            let record = record?;
            let mut draft = conversation_of(&record)?;
            draft.line = record.line;
            sessions.add(draft)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Recognising the format.

/// Whether `messages` look like `MessageParam`s: objects with a Messages role and a
/// string or block-list `content` (OpenAI's `tool_calls` and null contents excluded).
fn is_messages(messages: &[Value]) -> bool {
    !messages.is_empty()
        && messages.iter().all(|message| {
            message
                .get("role")
                .and_then(Value::as_str)
                .is_some_and(|role| matches!(role, "user" | "assistant" | "system"))
                && message
                    .get("content")
                    .is_some_and(|content| content.is_string() || content.is_array())
                && message.get("tool_calls").is_none()
        })
}

/// Whether a message carries something only the Messages API writes: a block of an
/// Anthropic-only type, or the shape of a stored response.
fn has_marker(message: &Value) -> bool {
    message.as_object().is_some_and(is_response)
        || blocks(message).any(|block| block_type(block).is_some_and(is_anthropic_only))
}

fn is_anthropic_only(kind: &str) -> bool {
    matches!(
        kind,
        "tool_use"
            | "tool_result"
            | "thinking"
            | "redacted_thinking"
            | "server_tool_use"
            | "mcp_tool_use"
            | "container_upload"
    ) || kind.ends_with("_tool_result")
}

/// A Messages response: `{type: "message", role: "assistant", content: [...],
/// stop_reason}` (Responses API output messages have no `stop_reason`).
fn is_response(object: &JsonObject) -> bool {
    object.get("type").and_then(Value::as_str) == Some("message")
        && object.get("role").and_then(Value::as_str) == Some("assistant")
        && object.get("content").is_some_and(Value::is_array)
        && object.contains_key("stop_reason")
}

/// A request body: Messages-shaped `messages` with `max_tokens` (required by the API), a
/// top-level `system`, or a marker block.
fn is_request(object: &JsonObject) -> bool {
    object
        .get("messages")
        .and_then(Value::as_array)
        .is_some_and(|messages| {
            is_messages(messages)
                && (object.contains_key("max_tokens")
                    || object.contains_key("system")
                    || messages.iter().any(has_marker))
        })
}

/// A line of a Claude Code transcript, by the members only those lines have.
fn is_claude_code_line(object: &JsonObject) -> bool {
    let Some(kind) = object.get("type").and_then(Value::as_str) else {
        return false;
    };
    if object.contains_key("role") || object.contains_key("messages") {
        return false;
    }
    let has_string = |name: &str| object.get(name).is_some_and(Value::is_string);
    match kind {
        "user" | "assistant" => {
            object.get("message").is_some_and(Value::is_object)
                && (has_string("uuid") || has_string("sessionId"))
        }
        "summary" => has_string("leafUuid"),
        "file-history-snapshot" => object.contains_key("snapshot"),
        _ => {
            has_string("sessionId")
                && (has_string("uuid")
                    || has_string("leafUuid")
                    || object.contains_key("parentUuid")
                    || object.contains_key("operation"))
        }
    }
}

/// Whether a file whose first record is `first` is read as a Claude Code transcript: a
/// line object with a `type` that is no message, request or response.
fn is_transcript_record(first: &Record) -> bool {
    first.line.is_some()
        && first.value.as_object().is_some_and(|object| {
            object.get("type").is_some_and(Value::is_string)
                && !object.contains_key("role")
                && !object.contains_key("messages")
        })
}

// ---------------------------------------------------------------------------------------
// Messages and their blocks.

fn blocks(message: &Value) -> impl Iterator<Item = &Value> {
    message
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn block_type(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

/// Whether a user message carries something new from the human: any content but
/// `tool_result` blocks.
fn is_human(message: &Value) -> bool {
    match message.get("content") {
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .any(|block| block_type(block) != Some("tool_result")),
        _ => false,
    }
}

/// What the blocks of a file hold that is worth a note.
#[derive(Debug, Default)]
struct BlockTally {
    thinking: usize,
    server: usize,
    unknown: BTreeMap<String, usize>,
}

impl BlockTally {
    fn count(&mut self, kind: &str) {
        match kind {
            "thinking" | "redacted_thinking" => self.thinking += 1,
            "server_tool_use" | "mcp_tool_use" | "mcp_tool_result" => self.server += 1,
            "tool_result" => {}
            _ if kind.ends_with("_tool_result") => self.server += 1,
            _ if KNOWN_BLOCKS.contains(&kind) => {}
            _ => *self.unknown.entry(kind.to_owned()).or_default() += 1,
        }
    }

    fn notes(&self, notes: &mut Vec<String>) {
        if self.thinking > 0 {
            notes.push(format!(
                "{} thinking block(s) kept verbatim in the responses, with their signatures (reasoning, not tool calls)",
                self.thinking
            ));
        }
        if self.server > 0 {
            notes.push(format!(
                "{} server tool block(s) (server_tool_use and their results) kept in the responses: Anthropic ran these tools, they are not the agent's tool calls",
                self.server
            ));
        }
        if !self.unknown.is_empty() {
            let kinds: Vec<String> = self
                .unknown
                .iter()
                .map(|(kind, count)| format!("{count} {kind:?}"))
                .collect();
            notes.push(format!(
                "content blocks of types this importer does not know kept as written: {}",
                kinds.join(", ")
            ));
        }
    }
}

/// The role of a message at `at`, after checking its `content` and blocks.
fn checked_message<'a>(
    line: Option<u64>,
    message: &'a Value,
    at: &str,
    tally: &mut BlockTally,
) -> Result<&'a str, ImportError> {
    let object = message
        .as_object()
        .ok_or_else(|| ImportError::at(line, at, "a message object with `role` and `content`"))?;
    let role = object
        .get("role")
        .and_then(Value::as_str)
        .ok_or_else(|| ImportError::at(line, at, "a string `role`, user or assistant"))?;
    if !matches!(role, "user" | "assistant" | "system") {
        return Err(ImportError::at(
            line,
            &format!("{at}/role"),
            format!("a role user or assistant (or system); found {role:?}"),
        ));
    }
    match object.get("content") {
        Some(Value::String(_)) => {}
        Some(Value::Array(blocks)) => {
            for (index, block) in blocks.iter().enumerate() {
                check_block(line, block, &format!("{at}/content/{index}"), tally)?;
            }
        }
        _ => {
            return Err(ImportError::at(
                line,
                &format!("{at}/content"),
                "`content` to be a string or an array of content blocks",
            ));
        }
    }
    Ok(role)
}

fn check_block(
    line: Option<u64>,
    block: &Value,
    at: &str,
    tally: &mut BlockTally,
) -> Result<(), ImportError> {
    let kind = block_type(block)
        .ok_or_else(|| ImportError::at(line, at, "a content block object with a string `type`"))?;
    tally.count(kind);
    let required: &[(&str, &str)] = match kind {
        "tool_use" => &[
            (
                "id",
                "a string `id` on a tool_use block (the id its tool_result answers)",
            ),
            (
                "name",
                "a string `name` on a tool_use block (the tool called)",
            ),
        ],
        "tool_result" => &[(
            "tool_use_id",
            "a string `tool_use_id` on a tool_result block (the id of the tool_use it answers)",
        )],
        _ => &[],
    };
    for (member, expected) in required {
        if !block.get(*member).is_some_and(Value::is_string) {
            return Err(ImportError::at(line, &format!("{at}/{member}"), *expected));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Messages conversations.

/// The session of one record: a message array, a request body or a response.
fn conversation_of(record: &Record) -> Result<SessionDraft, ImportError> {
    let object = match &record.value {
        Value::Array(messages) => return conversation(record, messages, "", Map::new()),
        Value::Object(object) => object,
        _ => {
            return Err(record.error(
                "",
                "an Anthropic message array, a request body with `messages`, or a response `{type: \"message\"}`",
            ));
        }
    };
    if !object.contains_key("messages")
        && object.get("type").and_then(Value::as_str) == Some("message")
    {
        return lone_response(record, object);
    }
    let messages = object
        .get("messages")
        .ok_or_else(|| record.error("/messages", "a `messages` array"))?
        .as_array()
        .ok_or_else(|| record.error("/messages", "`messages` to be an array"))?;
    if let Some(system) = object.get("system")
        && !(system.is_string() || system.is_array())
    {
        return Err(record.error(
            "/system",
            "`system` to be a string or an array of text blocks",
        ));
    }
    let rest = other_members(object, "messages");
    conversation(record, messages, "/messages", rest)
}

/// A conversation: one turn per assistant message; `rest` (the request's members but
/// `messages`) goes on the first turn's prompt.
fn conversation(
    record: &Record,
    messages: &[Value],
    pointer: &str,
    mut rest: JsonObject,
) -> Result<SessionDraft, ImportError> {
    let mut splitter = Splitter::default();
    let mut tally = BlockTally::default();
    for (index, message) in messages.iter().enumerate() {
        let at = format!("{pointer}/{index}");
        match checked_message(record.line, message, &at, &mut tally)? {
            "assistant" => {
                splitter.close();
                splitter.output(message.clone(), None);
                splitter.close();
            }
            "user" => splitter.input(message.clone(), is_human(message), None),
            _ => splitter.input(message.clone(), false, None),
        }
    }
    let exchanges = splitter.finish();
    let mut draft = SessionDraft::default();
    for exchange in exchanges {
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
        let mut prompt_object = std::mem::take(&mut rest);
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
    tally.notes(&mut draft.notes);
    Ok(draft)
}

/// A response without its request: one turn whose prompt the file does not hold.
fn lone_response(record: &Record, object: &JsonObject) -> Result<SessionDraft, ImportError> {
    let mut tally = BlockTally::default();
    if checked_message(record.line, &record.value, "", &mut tally)? != "assistant" {
        return Err(record.error("/role", "an assistant response (`role: \"assistant\"`)"));
    }
    let mut prompt = Map::new();
    prompt.insert("messages".to_owned(), Value::Array(Vec::new()));
    let mut draft = SessionDraft::default();
    draft.turns.push(TurnDraft {
        prompt,
        response: object.clone(),
        ..TurnDraft::default()
    });
    draft.notes.push(
        "the file holds a response only: its prompt is not in the file (the turn's prompt is empty)"
            .to_owned(),
    );
    tally.notes(&mut draft.notes);
    Ok(draft)
}

// ---------------------------------------------------------------------------------------
// Claude Code transcripts.

mod claude_code {
    //! Reading a Claude Code transcript: its lines, the conversations of their tree (the
    //! main one and the branches rewinds left, in `branches`), and the turns along each.

    mod agents;
    mod branches;

    use super::{BlockTally, ImportError, ImportOptions, JsonObject, Record, SessionDraft};
    use super::{
        Sessions, Stamp, TimeProblem, TurnDraft, awaiting_note, checked_message, is_human,
        parse_iso,
    };
    use crate::model::BranchOf;
    use branches::{Forest, Walk};
    use serde_json::{Map, Value};
    use std::collections::{BTreeMap, HashMap, HashSet};

    /// One line of the transcript, as far as the tree and the turns need it.
    #[derive(Debug)]
    struct Line {
        /// Its line in the file.
        number: Option<u64>,
        /// `user` or `assistant` lines: the line object; other lines keep none.
        message: Option<JsonObject>,
        /// Any other line (a title, a file-backup index, a status line...): the line
        /// object, until it is placed in the turn it falls in.
        other: Option<JsonObject>,
        assistant: bool,
        sidechain: bool,
        uuid: Option<String>,
        /// `parentUuid`, or across a compaction `logicalParentUuid`.
        parent: Option<String>,
        bridged: bool,
        /// The API response an assistant line belongs to: `message.id`, else
        /// `requestId`.
        response_key: Option<String>,
        time: Option<Stamp>,
        session_id: Option<String>,
        /// A sub-agent's id (`agentId`), on the lines of its transcript.
        agent_id: Option<String>,
    }

    impl Line {
        fn is_message(&self) -> bool {
            self.message.is_some()
        }

        fn carries_tool_result(&self) -> bool {
            !self.assistant
                && self
                    .message
                    .as_ref()
                    .and_then(|line| line.get("message"))
                    .is_some_and(|message| {
                        super::blocks(message)
                            .any(|block| super::block_type(block) == Some("tool_result"))
                    })
        }
    }

    /// What was read besides the lines.
    #[derive(Debug, Default)]
    struct Reading {
        lines: Vec<Line>,
        others: BTreeMap<String, usize>,
        tally: BlockTally,
    }

    /// The sessions of a whole transcript, `first` being its first line: the main
    /// conversation, then each branch a rewind left, named after the session it forked
    /// from and linked to it, then each sub-agent run written in the file, linked to the
    /// turn that started it. Lines that are no message go into the turns they fall in.
    pub(super) fn sessions(
        first: Record,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError> {
        let mut reading = Reading::default();
        for record in std::iter::once(Ok(first)).chain(records) {
            let line = read_line(record?, sessions.options(), &mut reading)?;
            reading.lines.push(line);
        }
        let forest = Forest::grow(&reading.lines);
        let mut built: Vec<Built> = forest
            .held(&reading.lines)
            .into_iter()
            .enumerate()
            .map(|(index, held)| conversation(&reading, &forest, index, held))
            .collect();
        let links = branch_links(&forest, &built);
        let Some(main) = built.first() else {
            // No message line: no turn, refused as such.
            let mut draft = SessionDraft::default();
            file_notes(&reading, &forest, 0, &mut draft);
            return sessions.add(draft);
        };
        let runs = if forest.agent {
            Vec::new()
        } else {
            agents::runs(&reading.lines, main)
        };
        keep_other_lines(&mut reading.lines, &forest, &mut built);
        file_notes(&reading, &forest, runs.len(), &mut built[0].draft);
        let abandoned = abandoned_notes(&built);
        let main = &mut built[0].draft;
        main.notes.extend(abandoned);
        reading.tally.notes(&mut main.notes);
        let main_id = add_all(built, &links, &forest, &reading.lines, sessions)?;
        agents::add(runs, &main_id, sessions)
    }

    /// Puts each line that is no message, as it is, in the turn it falls in: with the
    /// message line it follows in the file (the first prompt's for a line before any),
    /// in the `lines` of that turn's prompt, or of its response among the response's
    /// own line envelopes in file order; in the conversation whose walk passed the line,
    /// else the main one. Nothing of them is a message, a call or a result: `lines` is
    /// no member the payload layer reads messages from.
    fn keep_other_lines(lines: &mut [Line], forest: &Forest, built: &mut [Built]) {
        // Lines put into each (conversation, response) so far: they precede the next.
        let mut put: HashMap<(usize, usize), usize> = HashMap::new();
        for (at, line) in lines.iter_mut().enumerate() {
            let Some(object) = line.other.take() else {
                continue;
            };
            let owner = forest
                .owner
                .get(at)
                .copied()
                .flatten()
                .filter(|owner| built.get(*owner).is_some_and(|b| !b.draft.turns.is_empty()))
                .unwrap_or(0);
            let conversation = &mut built[owner];
            let (turn, response) = conversation.place_after(at);
            let index = if response {
                let before = conversation.response_lines_before(turn, at);
                let put = put.entry((owner, turn)).or_default();
                *put += 1;
                Some(before + *put - 1)
            } else {
                None
            };
            let Some(turn) = conversation.draft.turns.get_mut(turn) else {
                continue;
            };
            let payload = if response {
                &mut turn.response
            } else {
                &mut turn.prompt
            };
            if let Value::Array(kept) = payload
                .entry("lines")
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                let index = index.unwrap_or(kept.len()).min(kept.len());
                kept.insert(index, Value::Object(object));
            }
        }
    }

    /// One conversation of the file, converted, with what its branches need of it.
    #[derive(Debug)]
    struct Built {
        draft: SessionDraft,
        /// The message lines it holds (indexes in the file), in order.
        held: Vec<usize>,
        /// Where each of them went (`starts`: the positions in `held` where a response
        /// begins, turn `n` at the `n`th).
        turned: Turned,
    }

    impl Built {
        /// The turn whose response the line at `line` (an assistant line it holds) is
        /// part of.
        fn turn_of(&self, line: usize) -> Option<u64> {
            let position = self.held.binary_search(&line).ok()?;
            let begun = self
                .turned
                .starts
                .partition_point(|start| *start <= position);
            begun.checked_sub(1).map(|turn| turn as u64)
        }

        /// Where a line at `line` that is no message falls: with the message line it
        /// follows in the file (the first prompt for a line before any).
        fn place_after(&self, line: usize) -> Place {
            let before = self.held.partition_point(|held| *held < line);
            before
                .checked_sub(1)
                .and_then(|last| self.turned.places.get(last).copied())
                .unwrap_or((0, false))
        }

        /// How many lines of turn `turn`'s response come before `line` in the file.
        fn response_lines_before(&self, turn: usize, line: usize) -> usize {
            let before = self.held.partition_point(|held| *held < line);
            // The response's lines and the next prompt's may interleave (results written
            // between the lines of one response): look back until an earlier turn.
            self.turned
                .places
                .get(..before)
                .unwrap_or_default()
                .iter()
                .rev()
                .take_while(|(at, _)| *at >= turn)
                .filter(|place| **place == (turn, true))
                .count()
        }
    }

    /// Conversation `index` of the forest, holding the message lines `held`.
    fn conversation(reading: &Reading, forest: &Forest, index: usize, held: Vec<usize>) -> Built {
        let kept: Vec<&Line> = held.iter().map(|at| &reading.lines[*at]).collect();
        let walk = &forest.walks[index];
        let tip = reading.lines.get(walk.tip);
        let mut draft = SessionDraft {
            session_id: tip
                .and_then(|line| line.session_id.clone())
                .or_else(|| kept.iter().find_map(|line| line.session_id.clone())),
            ..SessionDraft::default()
        };
        if index == 0 && forest.agent {
            agent_session(tip, &mut draft);
        }
        draft.start = kept.iter().filter_map(|line| line.time).min();
        let turned = turns(&kept, &mut draft);
        walk_notes(walk, &mut draft);
        merged_note(turned.merged, &mut draft);
        session_notes(&kept, &mut draft);
        Built {
            draft,
            held,
            turned,
        }
    }

    fn merged_note(merged: usize, draft: &mut SessionDraft) {
        if merged > 0 {
            draft.notes.push(format!(
                "{merged} assistant lines were merged into responses: Claude Code writes one API response as one line per content block, sharing message.id"
            ));
        }
    }

    /// A sub-agent's own transcript (every message line has `isSidechain`): its
    /// `sessionId` is its parent session's, so the agent's id is added to it.
    fn agent_session(tip: Option<&Line>, draft: &mut SessionDraft) {
        let parent = draft.session_id.take();
        draft.session_id = match (&parent, tip.and_then(|line| line.agent_id.as_deref())) {
            (Some(session), Some(agent)) => Some(format!("{session}-agent-{agent}")),
            _ => parent.clone(),
        };
        draft.notes.push(format!(
            "a sub-agent's transcript (every message line has isSidechain): converted as its own session{}",
            parent.map_or_else(String::new, |id| format!(", a sub-agent of session {id}"))
        ));
    }

    fn read_line(
        record: Record,
        options: &ImportOptions,
        reading: &mut Reading,
    ) -> Result<Line, ImportError> {
        let Record { value, line } = record;
        let Value::Object(object) = value else {
            return Err(ImportError::at(
                line,
                "",
                "a Claude Code transcript line: an object with a string `type`",
            ));
        };
        let Some(kind) = object.get("type").and_then(Value::as_str) else {
            return Err(ImportError::at(
                line,
                "/type",
                "a string `type` on a transcript line",
            ));
        };
        let assistant = kind == "assistant";
        let is_message = matches!(kind, "user" | "assistant");
        if !is_message {
            *reading.others.entry(kind.to_owned()).or_default() += 1;
        }
        let text = |name: &str| object.get(name).and_then(Value::as_str).map(str::to_owned);
        let (parent, bridged) = match (text("parentUuid"), text("logicalParentUuid")) {
            (Some(parent), _) => (Some(parent), false),
            (None, Some(logical)) => (Some(logical), true),
            (None, None) => (None, false),
        };
        let mut read = Line {
            number: line,
            message: None,
            other: None,
            assistant,
            sidechain: object.get("isSidechain").and_then(Value::as_bool) == Some(true),
            uuid: text("uuid"),
            parent,
            bridged,
            response_key: None,
            time: None,
            session_id: text("sessionId"),
            agent_id: text("agentId"),
        };
        if is_message {
            check_message_line(line, &object, kind, &mut reading.tally)?;
            read.response_key = assistant
                .then(|| {
                    object
                        .get("message")
                        .and_then(|message| message.get("id"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .or_else(|| text("requestId"))
                })
                .flatten();
            read.time = line_time(line, &object, options)?;
            read.message = Some(object);
        } else {
            read.other = Some(object);
        }
        Ok(read)
    }

    /// A user or assistant line: a `message` of the line's role, checked as Messages.
    fn check_message_line(
        line: Option<u64>,
        object: &JsonObject,
        kind: &str,
        tally: &mut BlockTally,
    ) -> Result<(), ImportError> {
        let message = object.get("message").ok_or_else(|| {
            ImportError::at(
                line,
                "/message",
                format!("a `message` object on a {kind} line"),
            )
        })?;
        let role = checked_message(line, message, "/message", tally)?;
        if role != kind {
            return Err(ImportError::at(
                line,
                "/message/role",
                format!("the role {kind:?} on a {kind} line; found {role:?}"),
            ));
        }
        Ok(())
    }

    fn line_time(
        line: Option<u64>,
        object: &JsonObject,
        options: &ImportOptions,
    ) -> Result<Option<Stamp>, ImportError> {
        match object.get("timestamp") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => {
                parse_iso(text, options)
                    .map(Some)
                    .map_err(|problem| match problem {
                        TimeProblem::Invalid => ImportError::at(
                            line,
                            "/timestamp",
                            format!("an ISO 8601 `timestamp`; found {text:?}"),
                        ),
                        TimeProblem::NaiveWithoutZone => ImportError::at(
                            line,
                            "/timestamp",
                            format!(
                                "a `timestamp` with an offset, or --timezone for local times; found {text:?}"
                            ),
                        ),
                    })
            }
            Some(_) => Err(ImportError::at(
                line,
                "/timestamp",
                "an ISO 8601 `timestamp` string",
            )),
        }
    }

    /// For each conversation, the stored one it is linked to and the turn of it after
    /// which it forked (the main conversation's entry is its own: unused). A branch
    /// without a response forms no session: one that forked from it is linked to where
    /// it forked in turn.
    fn branch_links(forest: &Forest, built: &[Built]) -> Vec<(usize, Option<u64>)> {
        let mut links: Vec<(usize, Option<u64>)> = Vec::with_capacity(built.len());
        for (index, walk) in forest.walks.iter().enumerate() {
            let parent = walk.fork.and_then(|fork| forest.owner[fork]);
            let mut link = match parent {
                Some(parent) if parent < index => (
                    parent,
                    walk.anchor.and_then(|anchor| built[parent].turn_of(anchor)),
                ),
                _ => (0, None),
            };
            while link.0 != 0 && built[link.0].draft.turns.is_empty() {
                link = links[link.0];
            }
            links.push(link);
        }
        links
    }

    /// Gives the main conversation, then each branch with turns, named and linked after
    /// the session it forked from; returns the main conversation's session id.
    fn add_all(
        built: Vec<Built>,
        links: &[(usize, Option<u64>)],
        forest: &Forest,
        lines: &[Line],
        sessions: &mut Sessions<'_>,
    ) -> Result<String, ImportError> {
        let mut ids: Vec<String> = Vec::with_capacity(built.len());
        for (index, conversation) in built.into_iter().enumerate() {
            let mut draft = conversation.draft;
            if index > 0 && draft.turns.is_empty() {
                ids.push(String::new());
                continue;
            }
            if index > 0 {
                let (parent, after_turn) = links[index];
                let parent_id = ids[parent].clone();
                let first = &lines[forest.walks[index].first];
                let name = first
                    .uuid
                    .clone()
                    .unwrap_or_else(|| format!("line-{}", first.number.unwrap_or_default()));
                let place = after_turn.map_or_else(
                    || "before its first turn".to_owned(),
                    |turn| format!("after its turn {turn}"),
                );
                draft.notes.insert(0, format!(
                    "a branch abandoned by a rewind, from its line {name} on: it forked from session {parent_id:?} {place}"
                ));
                draft.session_id = Some(format!("{parent_id}/branch/{name}"));
                draft.branch_of = Some(BranchOf {
                    session_id: parent_id,
                    after_turn,
                });
            }
            ids.push(sessions.add_named(draft)?);
        }
        Ok(ids.swap_remove(0))
    }

    /// A turn being gathered: the user lines since the previous response, and the lines
    /// of one API response.
    #[derive(Debug, Default)]
    struct Gathering {
        prompt: Vec<Value>,
        human: bool,
        time: Option<Stamp>,
        response: Vec<JsonObject>,
        key: Option<String>,
        response_time: Option<Stamp>,
    }

    /// Where a message line went: the index of its turn, and whether it is part of the
    /// turn's response (else of its prompt).
    type Place = (usize, bool);

    /// What [`turns`] tells besides the turns.
    #[derive(Debug, Default)]
    struct Turned {
        /// Assistant lines merged into responses written as several lines.
        merged: usize,
        /// The positions in `kept` where a response begins (a branch's fork is placed by
        /// them).
        starts: Vec<usize>,
        /// For each position in `kept`, where its line went.
        places: Vec<Place>,
    }

    /// The turns of the kept lines, into `draft`.
    fn turns(kept: &[&Line], draft: &mut SessionDraft) -> Turned {
        let mut turned = Turned::default();
        let mut pending = Gathering::default();
        let mut current: Option<Gathering> = None;
        let mut merged = 0;
        let mut close = |gathering: Gathering, draft: &mut SessionDraft| {
            if gathering.response.len() > 1 {
                merged += gathering.response.len();
            }
            draft.turns.push(finished(gathering));
        };
        for (position, line) in kept.iter().enumerate() {
            let Some(object) = &line.message else {
                continue;
            };
            let opened = turned.starts.len();
            if !line.assistant {
                // A prompt line belongs to the next response's turn (or the awaiting one).
                turned.places.push((opened, false));
                pending.prompt.push(Value::Object(object.clone()));
                pending.human |=
                    object.get("message").is_some_and(is_human) && !is_synthetic(object);
                pending.time = line.time.or(pending.time);
                continue;
            }
            // Lines of the response being gathered join it, even past the tool results
            // written between them (those go to the next prompt).
            if let Some(open) = current.as_mut()
                && open.key.is_some()
                && open.key == line.response_key
            {
                turned.places.push((opened.saturating_sub(1), true));
                open.response.push(object.clone());
                continue;
            }
            if let Some(done) = current.take() {
                close(done, draft);
            }
            turned.places.push((opened, true));
            turned.starts.push(position);
            let mut open = std::mem::take(&mut pending);
            open.response.push(object.clone());
            open.key.clone_from(&line.response_key);
            open.response_time = line.time;
            current = Some(open);
        }
        if let Some(done) = current {
            close(done, draft);
        }
        if !pending.prompt.is_empty() {
            draft.notes.push(awaiting_note(
                pending.prompt.len(),
                "user line(s) after the last response",
            ));
            draft.turns.push(finished(pending));
        }
        turned.merged = merged;
        turned
    }

    /// User lines Claude Code writes itself: meta lines (command caveats, skill texts)
    /// and the summary that continues a compacted conversation.
    fn is_synthetic(line: &JsonObject) -> bool {
        ["isMeta", "isCompactSummary"]
            .iter()
            .any(|flag| line.get(*flag).and_then(Value::as_bool) == Some(true))
    }

    fn finished(gathering: Gathering) -> TurnDraft {
        let mut prompt = Map::new();
        prompt.insert("messages".to_owned(), Value::Array(gathering.prompt));
        TurnDraft {
            prompt,
            // A turn awaiting its response has none, not an empty message.
            response: if gathering.response.is_empty() {
                Map::new()
            } else {
                merged_response(gathering.response)
            },
            human: gathering.human,
            time: gathering.time,
            response_time: gathering.response_time,
            ..TurnDraft::default()
        }
    }

    /// One Anthropic message from the lines of one response: a single line's message
    /// as it is; else the first line's members, the content blocks of all lines in
    /// order, and the other members as the last line giving them non-null has them (so
    /// `usage` counts the call once). `lines` holds each line without its `message`, so
    /// that nothing is lost and no block is there twice.
    fn merged_response(lines: Vec<JsonObject>) -> JsonObject {
        let single = lines.len() == 1;
        let mut message = Map::new();
        let mut content = Vec::new();
        let mut envelopes = Vec::with_capacity(lines.len());
        for mut line in lines {
            if let Some(Value::Object(part)) = line.remove("message") {
                if single {
                    message = part;
                } else {
                    // Each line's own members besides its content (its usage, its stop
                    // reason) stay with its envelope: the merged message can hold one
                    // value of each, and nothing of a line is lost.
                    let own: JsonObject = part
                        .iter()
                        .filter(|(key, _)| *key != "content")
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect();
                    line.insert("message".to_owned(), Value::Object(own));
                    merge_into(&mut message, &mut content, part);
                }
            }
            envelopes.push(Value::Object(line));
        }
        if !single {
            message.insert("content".to_owned(), Value::Array(content));
        }
        message.insert("lines".to_owned(), Value::Array(envelopes));
        message
    }

    fn merge_into(message: &mut JsonObject, content: &mut Vec<Value>, part: JsonObject) {
        for (key, value) in part {
            if key == "content" {
                // Its place among the members, filled once all lines are read.
                message.entry("content").or_insert(Value::Null);
                match value {
                    Value::Array(blocks) => content.extend(blocks),
                    Value::String(text) => {
                        content.push(serde_json::json!({"type": "text", "text": text}));
                    }
                    _ => {}
                }
            } else if !value.is_null() || message.get(&key).is_none_or(Value::is_null) {
                message.insert(key, value);
            }
        }
    }

    /// What the main conversation tells of the whole file: lines that are no message,
    /// sub-agent lines, a file without tree.
    fn file_notes(reading: &Reading, forest: &Forest, runs: usize, draft: &mut SessionDraft) {
        let notes = &mut draft.notes;
        if !reading.others.is_empty() {
            let kinds: Vec<String> = reading
                .others
                .iter()
                .map(|(kind, count)| format!("{count} {kind}"))
                .collect();
            notes.push(format!(
                "lines that are no message are no turns: kept as they are in the turns they fall in (`lines` of the prompt, or of the response they follow): {}",
                kinds.join(", ")
            ));
        }
        let sidechain = reading
            .lines
            .iter()
            .filter(|line| line.is_message() && line.sidechain)
            .count();
        if sidechain > 0 && !forest.agent {
            notes.push(format!(
                "{sidechain} sub-agent line(s) (isSidechain) of {runs} sub-agent run(s) are kept as sessions of their own, named SESSION-agent-ID (ID: the run's agentId, else its first line's uuid) and linked to this session and the turn whose call started each"
            ));
        }
        if forest.flat {
            notes.push(
                "the lines carry no tree (no uuid on the last message line, or no parentUuid on any): the conversation is taken in file order".to_owned(),
            );
        }
    }

    /// What the main conversation tells of the branches rewinds left.
    fn abandoned_notes(built: &[Built]) -> Vec<String> {
        let mut notes = Vec::new();
        let branches = built.get(1..).unwrap_or_default();
        let (stored, dropped): (Vec<&Built>, Vec<&Built>) = branches
            .iter()
            .partition(|branch| !branch.draft.turns.is_empty());
        let lines = |of: &[&Built]| of.iter().map(|branch| branch.held.len()).sum::<usize>();
        if !stored.is_empty() {
            notes.push(format!(
                "{} message line(s) on {} branch(es) abandoned by a rewind are kept as sessions of their own, named SESSION/branch/UUID (UUID: the branch's first line) after the session they forked from and linked to it and to the turn they forked after",
                lines(&stored),
                stored.len()
            ));
        }
        if !dropped.is_empty() {
            // Any assistant line would have made a turn: these hold user lines only.
            notes.push(format!(
                "{} user line(s) on {} abandoned branch(es) without a response form no turn and are not converted",
                lines(&dropped),
                dropped.len()
            ));
        }
        notes
    }

    /// What a conversation's walk took in off its path.
    fn walk_notes(walk: &Walk, draft: &mut SessionDraft) {
        if walk.recovered > 0 {
            draft.notes.push(format!(
                "{} line(s) of parallel tool calls and their results, off the parentUuid chain, were taken in",
                walk.recovered
            ));
        }
        if walk.bridged > 0 {
            draft.notes.push(format!(
                "{} compaction boundary(ies) crossed by logicalParentUuid: the turns before the compaction are kept",
                walk.bridged
            ));
        }
    }

    fn session_notes(kept: &[&Line], draft: &mut SessionDraft) {
        let others: HashSet<&str> = kept
            .iter()
            .filter_map(|line| line.session_id.as_deref())
            .filter(|id| Some(*id) != draft.session_id.as_deref())
            .collect();
        if !others.is_empty() {
            let mut others: Vec<&str> = others.into_iter().collect();
            others.sort_unstable();
            draft.notes.push(format!(
                "lines of other sessions ({}) are part of this conversation (a resumed or forked session); the session id is the last line's",
                others.join(", ")
            ));
        }
        let errors = kept
            .iter()
            .filter(|line| {
                line.message
                    .as_ref()
                    .and_then(|object| object.get("isApiErrorMessage"))
                    .and_then(Value::as_bool)
                    == Some(true)
            })
            .count();
        if errors > 0 {
            draft.notes.push(format!(
                "{errors} response(s) are Claude Code's API error messages (model \"<synthetic>\"), kept as the responses of failed calls"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Anthropic;
    use crate::import::testing::{
        Counts, assert_read_alike, convert_text, counts, detect_text, strings as roles,
    };
    use crate::import::{Converted, ImportOptions};
    use crate::model::BranchOf;
    use crate::payload::PayloadKind;
    use serde_json::Value;

    const PARALLEL: &str =
        include_str!("../../tests/fixtures/import/anthropic/parallel-tools.json");
    const ERROR: &str = include_str!("../../tests/fixtures/import/anthropic/error-result.json");
    const SERVER: &str = include_str!("../../tests/fixtures/import/anthropic/server-tool.json");
    const REQUESTS: &str = include_str!("../../tests/fixtures/import/anthropic/two-requests.jsonl");
    const CLAUDE_CODE: &str =
        include_str!("../../tests/fixtures/import/anthropic/claude-code-session.jsonl");
    const COMPACTED: &str =
        include_str!("../../tests/fixtures/import/anthropic/claude-code-compacted.jsonl");
    const REWINDS: &str =
        include_str!("../../tests/fixtures/import/anthropic/claude-code-rewinds.jsonl");
    const NO_LINKS: &str =
        include_str!("../../tests/fixtures/import/anthropic/claude-code-no-links.jsonl");

    fn sessions(name: &str, text: &str) -> Vec<Converted> {
        convert_text(
            &Anthropic,
            name,
            text,
            &ImportOptions::default().session_id("s"),
        )
        .expect("converts")
    }

    fn one(name: &str, text: &str) -> (Counts, Value, Vec<String>) {
        let sessions = sessions(name, text);
        assert_eq!(sessions.len(), 1);
        let session = &sessions[0];
        (
            counts(session),
            session.document().clone(),
            session.notes.clone(),
        )
    }

    fn start_of(time: &Value) -> &Value {
        &time["SimpleTimeData"][0]["StartTime"]
    }

    fn has_note(notes: &[String], words: &str) -> bool {
        notes.iter().any(|note| note.contains(words))
    }

    #[test]
    fn parallel_calls_answered_in_the_other_order_pair_by_id() {
        let (counts, document, notes) = one("a.json", PARALLEL);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: vec!["get_weather".into()],
                roles: roles(&["H-User", "A-User"]),
            }
        );
        let turns = &document["Turns"];
        // The request's members stay on the first prompt, the system blocks included.
        let first = &turns[0]["PRCPrompt"];
        assert_eq!(first["system"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(first["max_tokens"], 2048);
        assert_eq!(first["tools"][0]["name"], "get_weather");
        assert_eq!(
            first["messages"][0]["content"],
            "Wie ist das Wetter in Zürich und in 東京? 🌦️"
        );
        assert!(turns[1]["PRCPrompt"].get("model").is_none());
        // Thinking stays in the response with its signature.
        let thinking = &turns[0]["BKNResponse"]["content"][0];
        assert_eq!(thinking["type"], "thinking");
        assert!(
            thinking["signature"]
                .as_str()
                .is_some_and(|s| s.starts_with("EqQB"))
        );
        assert_eq!(
            turns[1]["BKNResponse"]["content"][0]["text"],
            "In Zürich ist es neblig bei 7 °C, in 東京 klar bei 21 °C. 🌫️☀️"
        );
        assert_eq!(document["SessionID"], "s");
        assert_eq!(turns[1]["Timestamp"]["SimpleTimeData"][0]["FlagsByte"], 0);
        assert!(has_note(&notes, "1 thinking block(s)"), "{notes:?}");
    }

    #[test]
    fn an_error_result_is_flagged_and_escaped_text_decoded() {
        let (counts, document, notes) = one("b.json", ERROR);
        assert_eq!(
            counts,
            Counts {
                turns: 4,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 1,
                tools: vec!["list_dir".into(), "read_file".into()],
                roles: roles(&["H-User", "A-User", "H-User", "H-User"]),
            }
        );
        let turns = &document["Turns"];
        assert_eq!(
            turns[2]["BKNResponse"]["content"][0]["text"],
            "Port \"8080\" — steht in app.example.toml:\n\tport = 8080 ✅ 😀"
        );
        assert_eq!(
            turns[2]["PRCPrompt"]["messages"][0]["content"][0]["content"][0]["text"],
            "app.example.toml\nrésumé.md"
        );
        assert!(
            has_note(&notes, "1 message(s) after the last assistant message"),
            "{notes:?}"
        );
    }

    #[test]
    fn server_tools_and_redacted_thinking_stay_in_the_response() {
        let (counts, document, notes) = one("c.json", SERVER);
        // The search Anthropic ran is a call with its result, in the same response.
        assert_eq!(
            counts,
            Counts {
                turns: 1,
                calls: 1,
                results: 1,
                paired: 1,
                tools: vec!["web_search".to_owned()],
                roles: roles(&["H-User"]),
                ..Counts::default()
            }
        );
        let response = &document["Turns"][0]["BKNResponse"];
        assert_eq!(response["id"], "msg_01WebSearchTdf");
        assert_eq!(response["content"][0]["type"], "redacted_thinking");
        assert_eq!(response["content"][2]["type"], "server_tool_use");
        assert_eq!(
            response["content"][3]["tool_use_id"],
            "srvtoolu_01TdfSearch"
        );
        assert_eq!(
            response["usage"]["server_tool_use"]["web_search_requests"],
            1
        );
        assert_eq!(
            document["Turns"][0]["PRCPrompt"]["system"],
            "Réponds en français, avec des sources."
        );
        assert!(has_note(&notes, "2 server tool block(s)"), "{notes:?}");
        assert!(has_note(&notes, "1 thinking block(s)"), "{notes:?}");
    }

    #[test]
    fn each_line_of_request_bodies_is_a_session() {
        let sessions = sessions("r.jsonl", REQUESTS);
        assert_eq!(sessions.len(), 2);
        assert_eq!(sessions[0].session_id, "s#1");
        assert_eq!(sessions[1].line, Some(2));
        let second = &sessions[1].document()["Turns"][0];
        assert_eq!(second["PRCPrompt"]["system"], "Antworte knapp.");
        assert_eq!(second["BKNResponse"]["content"][0]["text"], "Katze");
        assert_eq!(counts(&sessions[1]).roles, ["H-User"]);
    }

    #[test]
    fn a_response_alone_is_one_turn_without_prompt() {
        let text = r#"{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-7-sonnet-latest","content":[{"type":"text","text":"Bonjour"},{"type":"tool_use","id":"toolu_1","name":"lookup","input":{"q":"ça"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":9}}"#;
        assert_eq!(detect_text("x.json", text).expect("detected"), "anthropic");
        let (counts, document, notes) = one("x.json", text);
        assert_eq!((counts.turns, counts.calls), (1, 1));
        assert_eq!(counts.roles, ["A-User"]);
        assert_eq!(document["Turns"][0]["BKNResponse"]["id"], "msg_1");
        assert!(has_note(&notes, "response only"), "{notes:?}");
    }

    /// The sessions' ids, and each one's branch link.
    fn links(sessions: &[Converted]) -> Vec<(&str, Option<BranchOf>)> {
        sessions
            .iter()
            .map(|session| {
                let link = session.history.data_exchange_metadata.branch_of();
                (session.session_id.as_str(), link.expect("a readable link"))
            })
            .collect()
    }

    fn branch_of(session_id: &str, after_turn: Option<u64>) -> Option<BranchOf> {
        Some(BranchOf {
            session_id: session_id.to_owned(),
            after_turn,
        })
    }

    /// Each turn's first prompt line's text, the way a person reads the conversation.
    fn prompts(session: &Converted) -> Vec<String> {
        session
            .history
            .turns
            .iter()
            .map(|turn| {
                turn.prompt["messages"][0]["message"]["content"]
                    .as_str()
                    .map_or_else(|| "(tool results)".to_owned(), str::to_owned)
            })
            .collect()
    }

    #[test]
    fn the_lines_of_a_merged_response_keep_their_own_message_members() {
        let all = sessions("5f1c.jsonl", CLAUDE_CODE);
        let first = &all[0].document()["Turns"][0]["BKNResponse"];
        let lines = first["lines"].as_array().expect("lines");
        assert_eq!(lines.len(), 4);
        // Each line keeps its own message members besides its content (its usage,
        // which the merged message holds once).
        for line in lines {
            assert!(line["message"].get("content").is_none(), "{line}");
            assert_eq!(line["message"]["id"], first["id"]);
            assert!(line["message"]["usage"].is_object(), "{line}");
        }
        // The lines that are no message, each in the prompt of the turn it falls in.
        let turns = &all[0].document()["Turns"];
        let kinds: Vec<&str> = turns[0]["PRCPrompt"]["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .filter_map(|line| line["type"].as_str())
            .collect();
        assert_eq!(kinds, ["summary", "file-history-snapshot"]);
        assert_eq!(
            turns[4]["PRCPrompt"]["lines"][0]["content"],
            "und committe danach"
        );
    }

    #[test]
    fn the_lines_kept_beside_the_messages_are_read_as_no_message() {
        let mut kept = 0;
        for text in [CLAUDE_CODE, REWINDS, COMPACTED] {
            for session in sessions("k.jsonl", text) {
                for turn in &session.history.turns {
                    let mut prompt = turn.prompt.clone();
                    kept += prompt
                        .remove("lines")
                        .map_or(0, |lines| lines.as_array().map_or(0, Vec::len));
                    assert_read_alike(&turn.prompt, &prompt, PayloadKind::Prompt);
                    let mut response = turn.response.clone();
                    if let Some(Value::Array(lines)) = response.get_mut("lines") {
                        let envelopes = |line: &Value| {
                            matches!(line["type"].as_str(), Some("user" | "assistant"))
                        };
                        kept += lines.iter().filter(|line| !envelopes(line)).count();
                        lines.retain(envelopes);
                    }
                    assert_read_alike(&turn.response, &response, PayloadKind::Answer);
                }
            }
        }
        assert_eq!(
            kept, 7,
            "lines that are no message in the three transcripts"
        );
    }

    #[test]
    fn a_sub_agent_run_in_its_parents_file_is_a_session_started_by_its_call() {
        let line = |body: &str| format!(r#"{{"sessionId":"pa",{body}}}"#);
        let text = [
            line(r#""type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"message":{"role":"user","content":"Finde die TODOs."}"#),
            line(r#""type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":false,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"task1","name":"Task","input":{"description":"TODOs","prompt":"Liste alle TODOs."}}]}"#),
            // The run the Task call started: a Grep call and its result, then its answer.
            line(r#""type":"user","uuid":"s1","parentUuid":null,"isSidechain":true,"message":{"role":"user","content":"Liste alle TODOs."}"#),
            line(r#""type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"message":{"id":"ms1","role":"assistant","content":[{"type":"tool_use","id":"g1","name":"Grep","input":{"pattern":"TODO"}}]}"#),
            line(r#""type":"user","uuid":"s3","parentUuid":"s2","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"g1","content":"a.rs:1"}]}"#),
            line(r#""type":"user","uuid":"r1","parentUuid":"a1","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":"Ein TODO: a.rs:1"}]}"#),
            line(r#""type":"assistant","uuid":"s4","parentUuid":"s3","isSidechain":true,"message":{"id":"ms2","role":"assistant","content":"Ein TODO: a.rs:1"}"#),
            line(r#""type":"assistant","uuid":"a2","parentUuid":"r1","isSidechain":false,"message":{"id":"m2","role":"assistant","content":"Ein TODO, in a.rs."}"#),
            // A run whose prompt no call names: started by the last response before it.
            line(r#""type":"user","uuid":"t1","parentUuid":null,"isSidechain":true,"agentId":"b7","message":{"role":"user","content":"Noch einmal."}"#),
            line(r#""type":"assistant","uuid":"t2","parentUuid":"t1","isSidechain":true,"agentId":"b7","message":{"id":"mt","role":"assistant","content":"Nichts mehr."}"#),
        ]
        .join("\n");
        let all = sessions("pa.jsonl", &text);
        assert_eq!(
            links(&all),
            [
                ("pa", None),
                ("pa-agent-s1", branch_of("pa", Some(0))),
                ("pa-agent-b7", branch_of("pa", Some(1))),
            ]
        );
        // The parent holds its own call and result only, each run its own.
        let parent = counts(&all[0]);
        assert_eq!((parent.turns, parent.calls, parent.paired), (2, 1, 1));
        assert_eq!(parent.tools, ["Task"]);
        let run = counts(&all[1]);
        assert_eq!((run.turns, run.calls, run.paired), (2, 1, 1));
        assert_eq!(run.tools, ["Grep"]);
        assert_eq!(prompts(&all[2]), ["Noch einmal."]);
        assert!(
            has_note(&all[1].notes, "started from session \"pa\" by its turn 0"),
            "{:?}",
            all[1].notes
        );
        assert!(
            has_note(
                &all[0].notes,
                "6 sub-agent line(s) (isSidechain) of 2 sub-agent run(s)"
            ),
            "{:?}",
            all[0].notes
        );
    }

    #[test]
    fn claude_code_follows_the_last_branch_and_merges_split_responses() {
        let all = sessions("5f1c.jsonl", CLAUDE_CODE);
        assert_eq!(
            all.len(),
            3,
            "the main conversation, the rewound one, a sub-agent's"
        );
        let (main_counts, document, notes) =
            (counts(&all[0]), all[0].document(), all[0].notes.clone());
        assert_eq!(
            main_counts,
            Counts {
                turns: 5,
                calls: 4,
                results: 4,
                paired: 4,
                errors: 1,
                tools: vec!["Bash".into(), "Edit".into(), "Read".into()],
                roles: roles(&["H-User", "A-User", "A-User", "H-User", "A-User"]),
            }
        );
        // The file's session id wins over the one given.
        assert_eq!(
            document["SessionID"],
            "5f1c2d3e-8a9b-4c7d-9e0f-1a2b3c4d5e6f"
        );
        let turns = &document["Turns"];
        // Four lines of one API response: one message, its usage once, and the lines.
        let first = &turns[0]["BKNResponse"];
        assert_eq!(first["id"], "msg_01Kal3nd3rA");
        let kinds: Vec<&str> = first["content"]
            .as_array()
            .expect("content")
            .iter()
            .filter_map(|block| block["type"].as_str())
            .collect();
        assert_eq!(kinds, ["thinking", "text", "tool_use", "tool_use"]);
        assert_eq!(first["stop_reason"], "tool_use");
        assert_eq!(first["usage"]["output_tokens"], 187);
        let lines = first["lines"].as_array().expect("lines");
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[3]["uuid"], "0a1b2c3d-0005-4000-8000-000000000005");
        // Parallel results as two user lines, in file order, in the next prompt.
        let results = turns[1]["PRCPrompt"]["messages"]
            .as_array()
            .expect("messages");
        let ids: Vec<&str> = results
            .iter()
            .filter_map(|line| line["message"]["content"][0]["tool_use_id"].as_str())
            .collect();
        assert_eq!(ids, ["toolu_01ReadTest", "toolu_01ReadSrc"]);
        // The rewound prompt is left out; the one that stayed is there.
        assert_eq!(
            turns[3]["PRCPrompt"]["messages"][0]["message"]["content"],
            "Nein — bitte korrigiere den Test, nicht den Code."
        );
        // Times: the prompt's last user line; the session starts at the first line.
        assert_eq!(start_of(&turns[0]["Timestamp"]), 1_756_800_000_000_i64);
        assert_eq!(start_of(&turns[1]["Timestamp"]), 1_756_800_004_900_i64);
        assert_eq!(
            start_of(&document["SessionStartTime"]),
            1_756_800_000_000_i64
        );
        // The rewound prompt and its answer: a branch of turn 2, whose answer it followed.
        let main = "5f1c2d3e-8a9b-4c7d-9e0f-1a2b3c4d5e6f";
        let branch = format!("{main}/branch/0a1b2c3d-000b-4000-8000-00000000000b");
        assert_eq!(
            links(&all)[..2],
            [(main, None), (branch.as_str(), branch_of(main, Some(2)))]
        );
        assert_eq!(prompts(&all[1]), ["Ändere den Code."]);
        assert_eq!(counts(&all[1]).roles, ["H-User"]);
        assert!(
            has_note(&all[1].notes, "forked from session \"5f1c"),
            "{:?}",
            all[1].notes
        );
        for words in [
            "1 file-history-snapshot, 1 queue-operation, 1 summary",
            "2 sub-agent line(s) (isSidechain) of 1 sub-agent run(s) are kept as sessions",
            "2 message line(s) on 1 branch(es) abandoned by a rewind are kept as sessions",
            "2 line(s) of parallel tool calls",
            "4 assistant lines were merged",
            "1 thinking block(s)",
        ] {
            assert!(has_note(&notes, words), "{words}: {notes:?}");
        }
    }

    #[test]
    fn claude_code_rewinds_are_sessions_linked_where_they_forked() {
        let all = sessions("7d3e.jsonl", REWINDS);
        let main = "7d3e9a10-4b2c-4e8f-9a61-0c5b2e7f4d93";
        let tests = format!("{main}/branch/c4a1e0d2-0005-4000-8000-000000000005");
        let accents = format!("{tests}/branch/c4a1e0d2-000b-4000-8000-00000000000b");
        let python = format!("{main}/branch/c4a1e0d2-0001-4000-8000-000000000001");
        // Newest first: the branch that shares lines with a later one forks from it.
        assert_eq!(
            links(&all),
            [
                (main, None),
                (tests.as_str(), branch_of(main, Some(0))),
                (accents.as_str(), branch_of(&tests, Some(1))),
                (python.as_str(), branch_of(main, None)),
            ]
        );
        assert_eq!(
            prompts(&all[0]),
            [
                "Écris une fonction `slugify` en Rust, sans dépendance.",
                "Ajoute plutôt la documentation.",
                "Merci ! Montre le diff final."
            ]
        );
        // The tests branch: parallel calls and their results, then the nested rewind's
        // later prompt (the earlier one forks from it).
        assert_eq!(
            counts(&all[1]),
            Counts {
                turns: 3,
                calls: 2,
                results: 2,
                paired: 2,
                errors: 0,
                tools: vec!["Bash".into(), "Read".into()],
                roles: roles(&["H-User", "A-User", "H-User"]),
            }
        );
        assert_eq!(
            prompts(&all[1]),
            [
                "Ajoute des tests et lance-les.",
                "(tool results)",
                "Et les espaces multiples ?"
            ]
        );
        assert!(
            has_note(&all[1].notes, "1 line(s) of parallel tool calls"),
            "{:?}",
            all[1].notes
        );
        assert_eq!(
            prompts(&all[2]),
            ["Et les accents ? « Crème brûlée » devrait donner creme-brulee."]
        );
        assert_eq!(prompts(&all[3]), ["Écris une fonction slugify en Python."]);
        assert!(
            has_note(&all[3].notes, "before its first turn"),
            "{:?}",
            all[3].notes
        );
        assert!(
            has_note(
                &all[0].notes,
                "12 message line(s) on 3 branch(es) abandoned"
            ),
            "{:?}",
            all[0].notes
        );
        // The annotation is a valid part of the document.
        let annotations = &all[2].document()["DataXMData"]["Annotations"];
        assert_eq!(
            annotations[0]["Annotation"]["AnnotationID"],
            "ihigraph:branch-of"
        );
    }

    #[test]
    fn every_line_of_the_rewinds_fixture_is_in_one_session() {
        let all = sessions("7d3e.jsonl", REWINDS);
        // Every message line is in exactly one session, and so is every other line.
        let lines_of = |kinds: &[&str]| -> usize {
            all.iter()
                .flat_map(|session| &session.history.turns)
                .flat_map(|turn| {
                    let member = |payload: &serde_json::Map<String, Value>, key: &str| {
                        payload.get(key).and_then(Value::as_array).cloned()
                    };
                    let prompt = member(&turn.prompt, "messages").into_iter().flatten();
                    let others = member(&turn.prompt, "lines").into_iter().flatten();
                    let response = member(&turn.response, "lines").into_iter().flatten();
                    prompt.chain(others).chain(response).collect::<Vec<_>>()
                })
                .filter(|line| kinds.contains(&line["type"].as_str().unwrap_or_default()))
                .count()
        };
        assert_eq!(lines_of(&["user", "assistant"]), 18);
        assert_eq!(lines_of(&["file-history-snapshot", "summary"]), 2);
        // The snapshot before the first line is in the first prompt; the title after the
        // last line follows the last response's own line.
        let main_turns = &all[0].document()["Turns"];
        assert_eq!(
            main_turns[0]["PRCPrompt"]["lines"][0]["type"],
            "file-history-snapshot"
        );
        let last = &main_turns[2]["BKNResponse"]["lines"];
        assert_eq!(last[1]["summary"], "slugify en Rust : documentation");
    }

    #[test]
    fn the_sub_agent_run_of_the_session_fixture_is_a_session_of_its_own() {
        let all = sessions("5f1c.jsonl", CLAUDE_CODE);
        // Without a Task call naming its prompt, the run was started by the last
        // response before it: turn 2's.
        let main = "5f1c2d3e-8a9b-4c7d-9e0f-1a2b3c4d5e6f";
        let agent = format!("{main}-agent-0a1b2c3d-000e-4000-8000-00000000000e");
        assert_eq!(links(&all)[2], (agent.as_str(), branch_of(main, Some(2))));
        assert_eq!(prompts(&all[2]), ["Suche alle Aufrufe von parse_date."]);
        assert_eq!(counts(&all[2]).roles, ["H-User"]);
        assert!(
            has_note(
                &all[2].notes,
                "started from session \"5f1c2d3e-8a9b-4c7d-9e0f-1a2b3c4d5e6f\" by its turn 2"
            ),
            "{:?}",
            all[2].notes
        );
        assert!(
            has_note(&all[0].notes, "kept as they are in the turns they fall in"),
            "{:?}",
            all[0].notes
        );
    }

    #[test]
    fn a_branch_without_a_response_is_a_session_awaiting_it() {
        let line = |body: &str| format!(r#"{{"sessionId":"nr","isSidechain":false,{body}}}"#);
        let text = [
            line(r#""type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"Eins"}"#),
            line(r#""type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":"1"}"#),
            line(r#""type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"Zwei?"}"#),
            line(r#""type":"user","uuid":"u3","parentUuid":"u2","message":{"role":"user","content":"Drei?"}"#),
            line(r#""type":"assistant","uuid":"a3","parentUuid":"u3","message":{"id":"m3","role":"assistant","content":"3"}"#),
            line(r#""type":"user","uuid":"u4","parentUuid":"u2","message":{"role":"user","content":"Vier?"}"#),
            line(r#""type":"user","uuid":"u5","parentUuid":"a1","message":{"role":"user","content":"Fünf"}"#),
            line(r#""type":"assistant","uuid":"a5","parentUuid":"u5","message":{"id":"m5","role":"assistant","content":"5"}"#),
        ]
        .join("\n");
        let all = sessions("nr.jsonl", &text);
        // u2 then u4 form a branch without a response: a session whose one turn awaits
        // it, forked after the main conversation's turn 0. The branch u3-a3 forked from
        // it before its first turn (u2 is a prompt line of that turn, not a response).
        assert_eq!(
            links(&all),
            [
                ("nr", None),
                ("nr/branch/u2", branch_of("nr", Some(0))),
                ("nr/branch/u2/branch/u3", branch_of("nr/branch/u2", None)),
            ]
        );
        let awaiting = &all[1].document()["Turns"];
        assert_eq!(awaiting.as_array().map(Vec::len), Some(1));
        assert_eq!(awaiting[0]["BKNResponse"], serde_json::json!({}));
        assert_eq!(prompts(&all[1]), ["Zwei?"]);
        assert_eq!(
            awaiting[0]["PRCPrompt"]["messages"][1]["message"]["content"],
            "Vier?"
        );
    }

    #[test]
    fn a_damaged_tree_with_cycles_and_unknown_parents_still_converts() {
        let line = |body: &str| format!(r#"{{"sessionId":"cy","isSidechain":false,{body}}}"#);
        let text = [
            // u1 and a1 point at each other; u2 at a line the file does not hold.
            line(r#""type":"user","uuid":"u1","parentUuid":"a1","message":{"role":"user","content":"Eins"}"#),
            line(r#""type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":"1"}"#),
            line(r#""type":"user","uuid":"u2","parentUuid":"gone","message":{"role":"user","content":"Zwei"}"#),
            line(r#""type":"assistant","uuid":"a2","parentUuid":"u2","message":{"id":"m2","role":"assistant","content":"2"}"#),
        ]
        .join("\n");
        let all = sessions("cy.jsonl", &text);
        assert_eq!(
            links(&all),
            [("cy", None), ("cy/branch/u1", branch_of("cy", None))]
        );
        assert_eq!(prompts(&all[0]), ["Zwei"]);
        assert_eq!(prompts(&all[1]), ["Eins"]);
    }

    #[test]
    fn claude_code_without_parent_links_is_read_in_file_order() {
        let all = sessions("nl.jsonl", NO_LINKS);
        assert_eq!(
            links(&all),
            [("2b8f0c4e-61d7-4a3e-b5f2-9e0d7c1a6b58", None)]
        );
        assert_eq!(
            prompts(&all[0]),
            ["How do I reverse a Vec in place?", "And an iterator?"]
        );
        assert!(has_note(&all[0].notes, "file order"), "{:?}", all[0].notes);
        // Ending with a prompt (once refused: the walk from it found no response), and
        // with neither uuid nor parentUuid.
        let asked = format!(
            "{NO_LINKS}{}\n",
            r#"{"type":"user","sessionId":"q","uuid":"9f000009-0000-4000-8000-000000000000","message":{"role":"user","content":"Thanks"}}"#
        );
        let without_uuid: String = NO_LINKS
            .lines()
            .map(|line| {
                let mut value: Value = serde_json::from_str(line).expect("fixture line");
                value.as_object_mut().expect("object").remove("uuid");
                format!("{value}\n")
            })
            .collect();
        // The prompt that ends the first is a last turn that awaits its response.
        for (text, turns) in [(asked, 3), (without_uuid, 2)] {
            let all = sessions("nl.jsonl", &text);
            assert_eq!(all.len(), 1);
            assert_eq!(counts(&all[0]).turns, turns, "{text}");
        }
    }

    #[test]
    fn claude_code_keeps_the_turns_before_a_compaction() {
        let (counts, document, notes) = one("9e8d.jsonl", COMPACTED);
        assert_eq!(
            counts,
            Counts {
                turns: 2,
                roles: roles(&["H-User", "H-User"]),
                ..Counts::default()
            }
        );
        assert_eq!(
            document["SessionID"],
            "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a"
        );
        let second = &document["Turns"][1]["PRCPrompt"]["messages"];
        assert_eq!(second.as_array().map(Vec::len), Some(2));
        assert_eq!(second[0]["isCompactSummary"], true);
        assert_eq!(
            start_of(&document["Turns"][0]["Timestamp"]),
            1_759_334_400_000_i64
        );
        assert!(has_note(&notes, "1 compaction boundary"), "{notes:?}");
        assert!(has_note(&notes, "1 queue-operation, 1 system"), "{notes:?}");
        // The queue operation before the first message is in the first prompt; the
        // compaction's boundary follows the first response's line, in its `lines`.
        let first = &document["Turns"][0];
        assert_eq!(first["PRCPrompt"]["lines"][0]["operation"], "dequeue");
        let boundary = &first["BKNResponse"]["lines"][1];
        assert_eq!(boundary["subtype"], "compact_boundary");
        assert_eq!(boundary["compactMetadata"]["preTokens"], 18211);
        assert!(document["Turns"][1]["PRCPrompt"].get("lines").is_none());
    }

    #[test]
    fn claude_code_synthetic_prompts_and_lines_without_tree() {
        let text = concat!(
            r#"{"type":"user","sessionId":"flat","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hallo"}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"flat","timestamp":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}"#,
            "\n",
            r#"{"type":"some-future-kind","payload":{"x":1}}"#,
            "\n",
            r#"{"type":"user","sessionId":"flat","isMeta":true,"message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}"#,
            "\n",
            r#"{"type":"assistant","sessionId":"flat","isApiErrorMessage":true,"message":{"id":"e1","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 529 Overloaded"}]}}"#,
            "\n"
        );
        let (counts, document, notes) = one("flat.jsonl", text);
        assert_eq!(counts.roles, ["H-User", "A-User"]);
        assert_eq!(document["SessionID"], "flat");
        assert!(has_note(&notes, "no uuid"), "{notes:?}");
        assert!(has_note(&notes, "1 some-future-kind"), "{notes:?}");
        let future = &document["Turns"][0]["BKNResponse"]["lines"][1];
        assert_eq!(future["payload"]["x"], 1);
        assert!(has_note(&notes, "API error"), "{notes:?}");
    }

    #[test]
    fn a_result_written_between_lines_of_one_response_does_not_split_it() {
        // Claude Code may run a tool while the response is still streaming: its result
        // line comes before the response's next line.
        let line = |body: &str| format!(r#"{{"sessionId":"st","isSidechain":false,{body}}}"#);
        let text = [
            line(r#""type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"Zwei Dateien lesen"}"#),
            line(r#""type":"assistant","uuid":"a1","parentUuid":"u1","requestId":"req_1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"stop_reason":null,"usage":{"output_tokens":1}}"#),
            line(r#""type":"user","uuid":"r1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A"}]}"#),
            line(r#""type":"assistant","uuid":"a2","parentUuid":"r1","requestId":"req_1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"b"}}],"stop_reason":"tool_use","usage":{"output_tokens":40}}"#),
            line(r#""type":"user","uuid":"r2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"B"}]}"#),
            line(r#""type":"assistant","uuid":"b1","parentUuid":"r2","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"A und B."}]}"#),
        ]
        .join("\n");
        let (counts, document, _) = one("st.jsonl", &text);
        assert_eq!((counts.turns, counts.calls, counts.paired), (2, 2, 2));
        assert_eq!(counts.roles, ["H-User", "A-User"]);
        let first = &document["Turns"][0]["BKNResponse"];
        assert_eq!(first["usage"]["output_tokens"], 40);
        assert_eq!(first["stop_reason"], "tool_use");
        assert_eq!(
            document["Turns"][1]["PRCPrompt"]["messages"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn a_sub_agent_transcript_is_its_own_session() {
        let text = concat!(
            r#"{"parentUuid":null,"isSidechain":true,"agentId":"a1b2c3d","sessionId":"parent","type":"user","uuid":"s1","timestamp":"2025-05-05T10:00:00.000Z","message":{"role":"user","content":"Finde alle TODOs."}}"#,
            "\n",
            r#"{"parentUuid":"s1","isSidechain":true,"agentId":"a1b2c3d","sessionId":"parent","type":"assistant","uuid":"s2","timestamp":"2025-05-05T10:00:02.000Z","message":{"id":"msg_sub","role":"assistant","content":[{"type":"tool_use","id":"toolu_g","name":"Grep","input":{"pattern":"TODO"}}]}}"#,
            "\n",
            r#"{"parentUuid":"s2","isSidechain":true,"agentId":"a1b2c3d","sessionId":"parent","type":"user","uuid":"s3","timestamp":"2025-05-05T10:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_g","content":"src/lib.rs:3: // TODO"}]}}"#,
            "\n",
            r#"{"parentUuid":"s3","isSidechain":true,"agentId":"a1b2c3d","sessionId":"parent","type":"assistant","uuid":"s4","timestamp":"2025-05-05T10:00:05.000Z","message":{"id":"msg_sub2","role":"assistant","content":[{"type":"text","text":"Ein TODO in src/lib.rs."}]}}"#,
            "\n"
        );
        let (counts, document, notes) = one("agent-a1b2c3d.jsonl", text);
        assert_eq!((counts.turns, counts.calls, counts.paired), (2, 1, 1));
        assert_eq!(document["SessionID"], "parent-agent-a1b2c3d");
        assert!(has_note(&notes, "sub-agent of session parent"), "{notes:?}");
        assert!(!has_note(&notes, "left out"), "{notes:?}");
    }

    #[test]
    fn auto_recognises_each_shape_and_leaves_plain_chat_alone() {
        for (name, text) in [
            ("a.json", PARALLEL),
            ("b.json", ERROR),
            ("c.json", SERVER),
            ("r.jsonl", REQUESTS),
            ("s.jsonl", CLAUDE_CODE),
            ("t.jsonl", COMPACTED),
        ] {
            assert_eq!(detect_text(name, text).expect(name), "anthropic", "{name}");
        }
        let plain = r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;
        assert_eq!(detect_text("p.json", plain).expect("plain"), "openai-chat");
    }

    #[test]
    fn broken_messages_are_refused_with_their_place() {
        let cases = [
            (
                r#"[{"role":"robot","content":"x"}]"#,
                "/messages/0/role",
                "found \"robot\"",
            ),
            (r#"[{"content":"x"}]"#, "/messages/0", "a string `role`"),
            (
                r#"[{"role":"user"}]"#,
                "/messages/0/content",
                "a string or an array",
            ),
            (
                r#"[{"role":"user","content":{"text":"x"}}]"#,
                "/messages/0/content",
                "a string or an array",
            ),
            (
                r#"[{"role":"user","content":["x"]}]"#,
                "/messages/0/content/0",
                "a content block object",
            ),
            (
                r#"[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","name":"f","input":{}}]}]"#,
                "/messages/1/content/0/id",
                "a string `id`",
            ),
            (
                r#"[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","input":{}}]}]"#,
                "/messages/1/content/0/name",
                "a string `name`",
            ),
            (
                r#"[{"role":"user","content":[{"type":"tool_result","content":"4"}]}]"#,
                "/messages/0/content/0/tool_use_id",
                "tool_use_id",
            ),
            (r#"[]"#, "(document)", "at least one message"),
            (r#"{"a":1}"#, "/messages", "an array"),
        ];
        for (messages, place, message) in cases {
            let text = format!("{{\"model\":\"m\",\"max_tokens\":8,\"messages\":{messages}}}");
            let error = convert_text(&Anthropic, "bad.json", &text, &ImportOptions::default())
                .expect_err(messages);
            assert!(error.place.contains(place), "{messages}: {error}");
            assert!(error.message.contains(message), "{messages}: {error}");
        }
        let error = convert_text(
            &Anthropic,
            "bad.json",
            r#"{"max_tokens":8,"system":5,"messages":[]}"#,
            &ImportOptions::default(),
        )
        .expect_err("system");
        assert!(error.place.ends_with("/system"), "{error}");
    }

    #[test]
    fn broken_transcript_lines_are_refused_with_their_line() {
        let first = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"x"}}"#;
        let cases = [
            (
                r#"{"type":"assistant","uuid":"a","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t"}]}}"#,
                "line 2, /message/content/0/name",
                "a string `name`",
            ),
            (
                r#"{"type":"user","uuid":"r","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","content":"x","is_error":true}]}}"#,
                "line 2, /message/content/0/tool_use_id",
                "tool_use_id",
            ),
            (
                r#"{"type":"assistant","uuid":"a","sessionId":"s","message":{"role":"user","content":"x"}}"#,
                "line 2, /message/role",
                "found \"user\"",
            ),
            (
                r#"{"type":"user","uuid":"u","sessionId":"s"}"#,
                "line 2, /message",
                "a `message` object",
            ),
            (
                r#"{"type":"assistant","uuid":"a","sessionId":"s","message":{"content":"x"}}"#,
                "line 2, /message",
                "a string `role`",
            ),
            (
                r#"{"type":"assistant","uuid":"a","sessionId":"s","timestamp":"gestern","message":{"role":"assistant","content":"x"}}"#,
                "line 2, /timestamp",
                "ISO 8601",
            ),
            (r#"{"uuid":"x"}"#, "line 2, /type", "a string `type`"),
            (r#"[1]"#, "line 2, (document)", "transcript line"),
            (r#"{"type":"assistant","#, "line 2", ""),
        ];
        for (second, place, message) in cases {
            let text = format!("{first}\n{second}\n");
            let error = convert_text(&Anthropic, "bad.jsonl", &text, &ImportOptions::default())
                .expect_err(second);
            assert!(error.place.starts_with(place), "{second}: {error}");
            assert!(error.message.contains(message), "{second}: {error}");
        }
    }
}
