//! A session read as one conversation: the system prompt, then per turn the messages it
//! added (the inputs since the previous answer, then the answer), with every tool call
//! paired with its result, and the turns grouped into units that must be taken whole.
//!
//! - A turn's prompt may replay the conversation so far (a request body as sent) or hold
//!   only what is new (as the importers write it): the inputs of a turn are the prompt's
//!   messages after its last assistant message. The system prompt is the first turn's;
//!   a later copy of it is not repeated.
//! - Results are paired with calls by id, else by tool name, else by position (the
//!   order docs/formats.md gives). Calls without an id get `call_<TurnIndex>_<n>`, the n-th
//!   call of that turn. A result whose call is not in the history, and a call whose
//!   result is not, are left out with a note: no provider takes either.
//! - A unit is a run of turns linked by calls answered in a later turn: a turn whose
//!   calls are answered in the next goes in with that answer or not at all.
//! - The newest turns alone can be read as the whole session would be, with the first
//!   turn's system prompt, when every result among them finds its call among them by id
//!   (`Transcript::closed`): a call id found is the latest open call with that id, so
//!   no older call could have taken one of those results, and the turns before cannot
//!   change anything among them.

use super::Note;
use crate::model::{InteractionHistory, JsonObject};
use crate::payload::{Message, Part, Speaker, ToolCall, answer_messages, new_prompt_messages};
use serde_json::Number;

/// One message of the conversation: text and calls, or (a tool's) results only.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    pub speaker: Speaker,
    /// Text, calls (assistant) or results (tool); never `Part::Other`.
    pub parts: Vec<Part>,
    /// Position of its turn in the history.
    pub turn: usize,
}

/// The conversation of a session, ready to be cut and rendered.
#[derive(Debug, Default)]
pub(super) struct Transcript {
    /// The system prompt's texts.
    pub system: Vec<String>,
    /// The entries of each turn, by position.
    pub turns: Vec<Vec<Entry>>,
    /// The `TurnIndex` of each turn, as written.
    pub indexes: Vec<String>,
    /// Each turn's `TurnView::position`.
    pub documents: Vec<usize>,
    /// Whether each turn awaits its response (`BKNResponse` is `{}`).
    pub awaiting: Vec<bool>,
    /// Units of turns to take whole, oldest first: `(first, last)` positions.
    pub units: Vec<(usize, usize)>,
    /// What could not be carried, by turn.
    pub notes: Vec<Note>,
    /// Whether every result found its call by id: then calls in turns before these ones
    /// could have taken none of these results (see the module's documentation).
    pub closed: bool,
}

/// What the transcript reads of a turn.
#[derive(Debug, Clone, Copy)]
pub(super) struct TurnView<'a> {
    /// Its place in the document's `Turns`; for turns read from the store, its row, which
    /// the context maps to the place when a pointer needs it (`Places`).
    pub position: usize,
    /// `TurnIndex`.
    pub index: &'a Number,
    /// `PRCPrompt`.
    pub prompt: &'a JsonObject,
    /// `BKNResponse`.
    pub response: &'a JsonObject,
}

impl<'a> TurnView<'a> {
    /// The turns of a history, as the transcript reads them.
    pub fn of(history: &'a InteractionHistory) -> Vec<Self> {
        history
            .turns
            .iter()
            .enumerate()
            .map(|(position, turn)| Self {
                position,
                index: &turn.turn_index,
                prompt: &turn.prompt,
                response: &turn.response,
            })
            .collect()
    }
}

/// Reads a session's turns up to `until` (a `TurnIndex`), in index order.
pub(super) fn read(turns: &[TurnView<'_>], until: Option<u64>) -> Transcript {
    read_newest(None, turns, until)
}

/// Reads the newest turns of a session up to `until`, in index order, with the system
/// prompt of `first`, the session's first turn (when it is not among them).
pub(super) fn read_newest(
    first: Option<&TurnView<'_>>,
    turns: &[TurnView<'_>],
    until: Option<u64>,
) -> Transcript {
    let mut ordered: Vec<&TurnView<'_>> = turns.iter().collect();
    ordered.sort_by_key(|turn| (turn_number(turn.index), turn.position));
    let mut transcript = Transcript::default();
    if let Some(first) = first {
        // Only its system prompt: what else it says, and its notes, are of a turn
        // before the ones read.
        read_turn(&mut transcript, true, 0, first);
        transcript.notes.clear();
    }
    for (position, turn) in ordered.into_iter().enumerate() {
        if until.is_some_and(|until| turn_number(turn.index).is_none_or(|index| index > until)) {
            break;
        }
        let first_of_session = first.is_none() && position == 0;
        let entries = read_turn(&mut transcript, first_of_session, position, turn);
        transcript.turns.push(entries);
        transcript.indexes.push(turn.index.to_string());
        transcript.documents.push(turn.position);
        transcript.awaiting.push(turn.response.is_empty());
    }
    let links = pair(&mut transcript);
    transcript.units = units(&links);
    transcript
}

/// A `TurnIndex` as a number: JSON Schema counts `3.0` as an integer too.
pub(super) fn turn_number(index: &Number) -> Option<u64> {
    index.as_u64().or_else(|| {
        index
            .as_f64()
            .filter(|value| value.fract() == 0.0 && *value >= 0.0 && *value < 2f64.powi(53))
            .map(|value| value as u64)
    })
}

/// The entries one turn adds: its new inputs, then its answer; the first turn of the
/// session gives the system prompt too.
fn read_turn(
    transcript: &mut Transcript,
    first_of_session: bool,
    position: usize,
    turn: &TurnView<'_>,
) -> Vec<Entry> {
    let mut inputs = new_prompt_messages(turn.prompt).into_iter().peekable();
    let prompt_pointer = "/PRCPrompt";
    if first_of_session {
        while let Some(message) = inputs.next_if(|m| m.speaker == Speaker::System) {
            let texts = carried(message, position, prompt_pointer, &mut transcript.notes);
            transcript
                .system
                .extend(texts.into_iter().filter_map(text_of));
        }
    }
    let mut entries = Vec::new();
    let mut results = Vec::new();
    for message in inputs {
        let repeated_system = message.speaker == Speaker::System
            && message
                .parts
                .iter()
                .all(|part| matches!(part, Part::Text(t) if transcript.system.contains(t)));
        if repeated_system {
            continue;
        }
        let speaker = message.speaker;
        let parts = carried(message, position, prompt_pointer, &mut transcript.notes);
        let (found, rest): (Vec<Part>, Vec<Part>) = parts
            .into_iter()
            .partition(|p| matches!(p, Part::Result(_)));
        results.extend(found);
        push(&mut entries, speaker, rest, position);
    }
    // A prompt's results answer the calls of the answers before it: they come first.
    let mut turn_entries = Vec::new();
    push(&mut turn_entries, Speaker::Tool, results, position);
    turn_entries.append(&mut entries);
    let answer_pointer = "/BKNResponse";
    for message in answer_messages(turn.response) {
        let speaker = message.speaker;
        let parts = carried(message, position, answer_pointer, &mut transcript.notes);
        let (found, rest): (Vec<Part>, Vec<Part>) = parts
            .into_iter()
            .partition(|p| matches!(p, Part::Result(_)));
        let speaker = if speaker == Speaker::Tool {
            Speaker::Assistant
        } else {
            speaker
        };
        push(&mut turn_entries, speaker, rest, position);
        push(&mut turn_entries, Speaker::Tool, found, position);
    }
    turn_entries
}

/// The parts of a message that can be carried; a note for each that cannot (`payload`:
/// the payload's pointer in its turn).
fn carried(message: Message, turn: usize, payload: &str, notes: &mut Vec<Note>) -> Vec<Part> {
    message
        .parts
        .into_iter()
        .filter_map(|part| match part {
            Part::Other { kind, pointer } => {
                notes.push(Note {
                    turn,
                    pointer: format!("{payload}{pointer}"),
                    what: format!(
                        "a part of type `{kind}` is not carried (only text, tool calls and tool results are)"
                    ),
                });
                None
            }
            Part::Text(text) if text.is_empty() => None,
            part => Some(part),
        })
        .collect()
}

fn text_of(part: Part) -> Option<String> {
    match part {
        Part::Text(text) => Some(text),
        _ => None,
    }
}

/// Appends a message, joining it to the previous one when both are the model's or both
/// a tool's: a provider reads one answer, and one block of results, per call.
fn push(entries: &mut Vec<Entry>, speaker: Speaker, parts: Vec<Part>, turn: usize) {
    if parts.is_empty() {
        return;
    }
    if let Some(last) = entries.last_mut()
        && last.speaker == speaker
        && matches!(speaker, Speaker::Assistant | Speaker::Tool)
    {
        last.parts.extend(parts);
        return;
    }
    entries.push(Entry {
        speaker,
        parts,
        turn,
    });
}

/// A call waiting for its result.
struct OpenCall {
    id: String,
    name: String,
    turn: usize,
}

/// Gives every call an id and every result its call's id and name; leaves out results
/// without a call and calls without a result. Returns, per turn, the earliest turn whose
/// calls it answers.
fn pair(transcript: &mut Transcript) -> Vec<usize> {
    let Transcript {
        turns,
        indexes,
        notes,
        closed,
        ..
    } = transcript;
    *closed = true;
    let mut links: Vec<usize> = (0..turns.len()).collect();
    let mut open: Vec<OpenCall> = Vec::new();
    let mut answered: Vec<String> = Vec::new();
    for (position, entries) in turns.iter_mut().enumerate() {
        let index = &indexes[position];
        let mut ordinal = 0;
        for entry in entries.iter_mut() {
            let mut kept = Vec::with_capacity(entry.parts.len());
            for part in std::mem::take(&mut entry.parts) {
                match part {
                    Part::Call(mut call) => {
                        ordinal += 1;
                        let id = call
                            .call_id
                            .get_or_insert_with(|| format!("call_{index}_{ordinal}"))
                            .clone();
                        open.push(OpenCall {
                            id,
                            name: call.name.clone(),
                            turn: position,
                        });
                        kept.push(Part::Call(call));
                    }
                    Part::Result(mut result) => {
                        let found = answering(&open, &result.call_id, result.name.as_deref());
                        *closed &= found.is_some_and(|(_, by_id)| by_id);
                        let Some((at, _)) = found else {
                            let what = match &result.call_id {
                                Some(id) if answered.contains(id) => {
                                    format!("a second result for call `{id}` is left out")
                                }
                                Some(id) => format!(
                                    "the result for call `{id}` is left out: its call is not in the history"
                                ),
                                None => {
                                    "a tool result is left out: no call in the history waits for it"
                                        .to_owned()
                                }
                            };
                            notes.push(Note {
                                turn: position,
                                pointer: String::new(),
                                what,
                            });
                            continue;
                        };
                        let call = open.remove(at);
                        links[position] = links[position].min(call.turn);
                        result.call_id = Some(call.id.clone());
                        result.name.get_or_insert(call.name);
                        answered.push(call.id);
                        kept.push(Part::Result(result));
                    }
                    text => kept.push(text),
                }
            }
            entry.parts = kept;
        }
    }
    drop_unanswered(transcript, &open);
    links
}

/// The open call a result answers, and whether by id: by id (the latest open call with
/// that id, as ids used again answer the newest call), else by name (the oldest with
/// that name), else (a result with neither) the oldest.
fn answering(open: &[OpenCall], id: &Option<String>, name: Option<&str>) -> Option<(usize, bool)> {
    if let Some(id) = id
        && let Some(at) = open.iter().rposition(|call| &call.id == id)
    {
        return Some((at, true));
    }
    let at = match name {
        Some(name) => open.iter().position(|call| call.name == name),
        None => (id.is_none() && !open.is_empty()).then_some(0),
    };
    at.map(|at| (at, false))
}

fn drop_unanswered(transcript: &mut Transcript, open: &[OpenCall]) {
    for call in open {
        for entry in &mut transcript.turns[call.turn] {
            entry.parts.retain(|part| {
                !matches!(part, Part::Call(ToolCall { call_id: Some(id), .. }) if *id == call.id)
            });
        }
        transcript.notes.push(Note {
            turn: call.turn,
            pointer: String::new(),
            what: format!(
                "call `{}` of `{}` is left out: the history holds no result for it",
                call.id, call.name
            ),
        });
    }
    for entries in &mut transcript.turns {
        entries.retain(|entry| !entry.parts.is_empty());
    }
}

/// Units from the links: a turn's unit reaches back to the earliest turn whose calls it,
/// or any turn after that one, answers.
fn units(links: &[usize]) -> Vec<(usize, usize)> {
    let mut units = Vec::new();
    let mut last = links.len();
    while last > 0 {
        let end = last - 1;
        let mut start = links[end];
        let mut position = end;
        while position > start {
            position -= 1;
            start = start.min(links[position]);
        }
        units.push((start, end));
        last = start;
    }
    units.reverse();
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_links_back() {
        assert_eq!(units(&[0, 1, 2]), [(0, 0), (1, 1), (2, 2)]);
        assert_eq!(units(&[0, 0, 2, 2, 3]), [(0, 1), (2, 4)]);
        assert_eq!(units(&[0, 1, 2, 1]), [(0, 0), (1, 3)]);
        assert_eq!(units(&[]), []);
    }
}
