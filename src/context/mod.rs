//! Context for the next model call: the newest turns of a session that fit a token
//! budget, as the request body of a provider's API (OpenAI Chat Completions, OpenAI
//! Responses, Anthropic Messages, Gemini), whatever shape the session was recorded in.
//!
//! Newest turns are taken first until the budget is spent, then given in chronological
//! order. A turn whose tool calls are answered in a later turn is taken with that turn or
//! not at all (see `transcript.rs`), so no call is ever sent without its result, nor a
//! result without its call. Text is carried exactly; what a request cannot carry (an
//! image, reasoning, a call whose result was never recorded) is left out and named in
//! [`Context::omitted`].

mod error;
mod render;
mod tokens;
mod transcript;

pub use error::ContextError;
pub use tokens::{REPLY_PRIMING, TOKENS_PER_MESSAGE, Tokenizer, UnknownTokenizer};

use crate::model::{InteractionHistory, JsonObject};
use crate::query::{Arguments, NEWEST_PAYLOADS, TURN_PLACES};
use crate::store::{HistoryStore, StoreError};
use oxigraph::model::Term;
use oxigraph::sparql::QueryResults;
use serde::Serialize;
use serde_json::{Number, Value};
use std::fmt;
use std::str::FromStr;
use transcript::TurnView;

/// The request shape a context is given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContextFormat {
    /// OpenAI Chat Completions: `{"messages": [...]}`.
    OpenAiChat,
    /// OpenAI Responses: `{"input": [...]}`.
    OpenAiResponses,
    /// Anthropic Messages: `{"system": ..., "messages": [...]}`.
    Anthropic,
    /// Gemini `generateContent`: `{"systemInstruction": ..., "contents": [...]}`.
    Gemini,
}

impl ContextFormat {
    /// Every format.
    pub const ALL: [Self; 4] = [
        Self::OpenAiChat,
        Self::OpenAiResponses,
        Self::Anthropic,
        Self::Gemini,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// The tokenizer that counts best for the format's models: `o200k_base` for OpenAI's
    /// and Gemini's (whose large vocabularies count close to it), `cl100k_base` for
    /// Anthropic's (which count more tokens than `o200k_base` for the same text).
    pub fn default_tokenizer(self) -> Tokenizer {
        match self {
            Self::Anthropic => Tokenizer::Cl100kBase,
            Self::OpenAiChat | Self::OpenAiResponses | Self::Gemini => Tokenizer::O200kBase,
        }
    }
}

impl fmt::Display for ContextFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one of [`ContextFormat::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown context format `{0}` (expected openai-chat, openai-responses, anthropic or gemini)"
)]
pub struct UnknownFormat(pub String);

impl FromStr for ContextFormat {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| UnknownFormat(name.to_owned()))
    }
}

/// What to do with the system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SystemPrompt {
    /// Send it, and count it against the budget.
    #[default]
    Keep,
    /// Leave it out: the caller sends its own.
    Drop,
}

/// What a context is built for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextOptions {
    /// Tokens the request may take.
    pub budget: usize,
    /// The request shape.
    pub format: ContextFormat,
    /// The tokenizer; the format's default when `None`.
    pub tokenizer: Option<Tokenizer>,
    /// Keep or drop the system prompt.
    pub system: SystemPrompt,
    /// Only the turns up to this `TurnIndex`.
    pub until: Option<u64>,
}

impl ContextOptions {
    /// A budget in a format, with the format's tokenizer, the system prompt kept, all
    /// turns.
    pub fn new(budget: usize, format: ContextFormat) -> Self {
        Self {
            budget,
            format,
            tokenizer: None,
            system: SystemPrompt::Keep,
            until: None,
        }
    }

    /// The tokenizer that counts.
    pub fn tokenizer(&self) -> Tokenizer {
        self.tokenizer
            .unwrap_or_else(|| self.format.default_tokenizer())
    }
}

/// Something of the session the context leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Omission {
    /// The turn's `TurnIndex`, as written.
    pub turn: String,
    /// JSON Pointer of the place in the session's PGM-IHI document.
    pub pointer: String,
    /// What is left out, and why.
    pub what: String,
}

impl fmt::Display for Omission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "turn {} ({}): {}", self.turn, self.pointer, self.what)
    }
}

/// A note about a turn, by its position in the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Note {
    turn: usize,
    /// JSON Pointer of the place in the turn (empty: the turn).
    pointer: String,
    what: String,
}

/// Context for the next model call.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// The request body's conversation, to send as is (add the model, and the tools).
    pub request: Value,
    /// The format of `request`.
    pub format: ContextFormat,
    /// The tokenizer that counted.
    pub tokenizer: Tokenizer,
    /// Tokens of `request`, counted as [`Tokenizer::message_cost`] says, with the reply's
    /// priming.
    pub tokens: usize,
    /// The budget it was built for.
    pub budget: usize,
    /// The `TurnIndex` of every turn it holds, oldest first.
    pub turns: Vec<String>,
    /// The `TurnIndex` of every turn it holds that awaits its response (the history's
    /// input after its last response): its input is in the request, no answer follows.
    pub awaiting: Vec<String>,
    /// Turns the session holds (up to `until`).
    pub turns_available: usize,
    /// What of those turns it leaves out, and why.
    pub omitted: Vec<Omission>,
}

/// Context for the next call of a stored session.
///
/// ```
/// use ihigraph::context::{ContextFormat, ContextOptions, session_context};
/// use ihigraph::check::{check_document, CheckOptions};
/// use ihigraph::rdf::map_history;
/// use ihigraph::HistoryStore;
/// let store = HistoryStore::in_memory(&Default::default())?;
/// let document: serde_json::Value =
///     serde_json::from_str(include_str!("../../examples/histories/trip-planning.json"))?;
/// let history = check_document(&document, CheckOptions::default()).history.unwrap();
/// store.write_session(&map_history(&history, store.scheme()))?;
/// let options = ContextOptions::new(8000, ContextFormat::Anthropic);
/// let context = session_context(&store, &history.session_id, &options)?;
/// assert_eq!(context.request["messages"][0]["role"], "user");
/// assert!(context.tokens <= 8000);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn session_context(
    store: &HistoryStore,
    session_id: &str,
    options: &ContextOptions,
) -> Result<Context, ContextError> {
    let mut count = first_page(options.budget);
    let mut read = stored_turns(store, session_id, options.until, count)?;
    loop {
        // The rows come in `TurnIndex` order. Where indexes tie, or are not integers,
        // the document's order decides, and only the whole session holds it; as it does
        // when no turn is read: an unknown session (an error), or one without turns.
        let numbers: Option<Vec<u64>> = read
            .rows
            .iter()
            .map(|(index, ..)| transcript::turn_number(index))
            .collect();
        let Some(numbers) = numbers.filter(|numbers| {
            read.distinct && read.turns > 0 && numbers.is_sorted_by(|a, b| a < b)
        }) else {
            return assemble(&store.history(session_id)?, options);
        };
        let views: Vec<TurnView<'_>> = read
            .rows
            .iter()
            .enumerate()
            .map(|(row, (index, prompt, response))| TurnView {
                position: row,
                index,
                prompt,
                response,
            })
            .collect();
        let places = || turn_places(store, session_id, &numbers);
        // Every turn read, or the first and the newest ones.
        let whole = views.len() >= read.turns;
        let transcript = match views.split_first() {
            Some((first, newest)) if !whole => {
                transcript::read_newest(Some(first), newest, options.until)
            }
            _ => transcript::read(&views, options.until),
        };
        // The newest turns decide when no older call can answer to them (`closed`) and
        // the budget is spent before they are.
        if whole || transcript.closed {
            let cut = cut(&transcript, options)?;
            if whole || !cut.every_unit {
                return finish(
                    &transcript,
                    cut,
                    options,
                    Places::Stored(&places),
                    read.turns,
                );
            }
        }
        // Older turns, twice as many as read; a turn the query cannot read (a graph
        // changed behind ihigraph's back) leaves it to the whole session.
        let read_before = read.rows.len();
        if let Some(oldest) = numbers.get(1).and_then(|oldest| oldest.checked_sub(1)) {
            // Results paired by name or position: only every turn decides.
            count = if transcript.closed {
                count.saturating_mul(2)
            } else {
                u64::MAX
            };
            let older = stored_turns(store, session_id, Some(oldest), count)?;
            read.rows = merge(older.rows, read.rows);
        }
        if read.rows.len() == read_before {
            return assemble(&store.history(session_id)?, options);
        }
    }
}

/// How many of the newest turns a context reads first: what the budget takes at about
/// 192 tokens a turn (at least 8). Then, as long as the turns read cannot decide, twice
/// as many older ones, or all of them when results are paired by name or position.
fn first_page(budget: usize) -> u64 {
    u64::try_from(budget / 192)
        .unwrap_or(u64::MAX)
        .clamp(8, 1 << 20)
}

/// Older rows and newer rows as one, in `TurnIndex` order, each turn once (both hold the
/// session's first turn).
fn merge(older: Vec<StoredTurn>, newer: Vec<StoredTurn>) -> Vec<StoredTurn> {
    let mut rows = older;
    let last = rows
        .last()
        .and_then(|(index, ..)| transcript::turn_number(index));
    rows.extend(
        newer
            .into_iter()
            .filter(|(index, ..)| transcript::turn_number(index) > last),
    );
    rows
}

/// Where the turns a context reads sit in the session's document, which the pointers of
/// what it leaves out name.
#[derive(Clone, Copy)]
enum Places<'a> {
    /// Each `TurnView::position` is the turn's place.
    Known,
    /// Each `TurnView::position` is a row of the stored turns; the places, by row, are
    /// read when a pointer needs them (decoding every turn's IRI would take a sixth of
    /// the time of a context).
    Stored(&'a dyn Fn() -> Result<Vec<usize>, ContextError>),
}

/// A stored turn: its `TurnIndex`, prompt and response.
type StoredTurn = (Number, JsonObject, JsonObject);

/// Stored turns: the newest ones and the session's first, in `TurnIndex` order.
struct StoredTurns {
    rows: Vec<StoredTurn>,
    /// The session's turns (up to `until`).
    turns: usize,
    /// Whether their indexes are distinct.
    distinct: bool,
}

/// The places of a session's turns in its document (the `turn-places` canned query), by
/// row of the stored turns (whose `TurnIndex` numbers are `numbers`).
fn turn_places(
    store: &HistoryStore,
    session_id: &str,
    numbers: &[u64],
) -> Result<Vec<usize>, ContextError> {
    let arguments = Arguments::new().text("session", session_id);
    let mut places = std::collections::HashMap::new();
    if let QueryResults::Solutions(solutions) = store.run(&TURN_PLACES, &arguments)? {
        for solution in solutions {
            let solution = solution.map_err(StoreError::QueryEvaluation)?;
            if let (Some(Term::Literal(index)), Some(Term::NamedNode(turn))) =
                (solution.get("turnIndex"), solution.get("turn"))
                && let (Ok(index), Some(Ok(place))) = (
                    index.value().parse::<u64>(),
                    turn.as_str().rsplit('/').next().map(str::parse::<usize>),
                )
            {
                places.insert(index, place);
            }
        }
    }
    numbers
        .iter()
        .enumerate()
        .map(|(row, number)| {
            places
                .get(number)
                .copied()
                .ok_or_else(|| ContextError::Corrupt {
                    session: session_id.to_owned(),
                    turn: row,
                    what: "a turn whose place in the document is not stored".to_owned(),
                })
        })
        .collect()
}

/// The newest `count` turns of a session up to `until`, and its first, read with one
/// query (the `newest-payloads` canned query): only the verbatim JSON of their payloads
/// is decoded, not the whole session graph.
fn stored_turns(
    store: &HistoryStore,
    session_id: &str,
    until: Option<u64>,
    count: u64,
) -> Result<StoredTurns, ContextError> {
    let mut arguments = Arguments::new()
        .text("session", session_id)
        .count("n", count);
    if let Some(until) = until {
        arguments = arguments.count("until", until);
    }
    let mut read = StoredTurns {
        rows: Vec::new(),
        turns: 0,
        distinct: true,
    };
    let QueryResults::Solutions(solutions) = store.run(&NEWEST_PAYLOADS, &arguments)? else {
        return Ok(read);
    };
    for (position, solution) in solutions.enumerate() {
        let solution = solution.map_err(StoreError::QueryEvaluation)?;
        let text = |name: &str| match solution.get(name) {
            Some(Term::Literal(literal)) => Some(literal.value()),
            _ => None,
        };
        let corrupt_row = |what: &str| ContextError::Corrupt {
            session: session_id.to_owned(),
            turn: position,
            what: what.to_owned(),
        };
        let count = |name: &str| text(name).and_then(|count| count.parse::<usize>().ok());
        let (turns, indexes) = (count("turns"), count("indexes"));
        read.turns = turns.unwrap_or_default();
        read.distinct = turns == indexes;
        let index_text = text("rawTurnIndex")
            .or_else(|| text("turnIndex"))
            .ok_or_else(|| corrupt_row("no TurnIndex"))?;
        let index: Number = serde_json::from_str(index_text)
            .map_err(|_| corrupt_row("a TurnIndex that is not a number"))?;
        let turn = transcript::turn_number(&index)
            .and_then(|number| usize::try_from(number).ok())
            .unwrap_or(position);
        let corrupt = |what: &str| ContextError::Corrupt {
            session: session_id.to_owned(),
            turn,
            what: what.to_owned(),
        };
        let object = |name: &str| -> Result<JsonObject, ContextError> {
            let json = text(name).ok_or_else(|| corrupt("a payload without its JSON"))?;
            match serde_json::from_str(json) {
                Ok(Value::Object(object)) => Ok(object),
                _ => Err(corrupt("a payload whose stored JSON is not an object")),
            }
        };
        // The first turn comes twice when it is among the newest.
        if read.rows.last().is_some_and(|(last, ..)| *last == index) {
            continue;
        }
        read.rows
            .push((index, object("prompt")?, object("response")?));
    }
    Ok(read)
}

/// Context for the next call of a history.
pub fn assemble(
    history: &InteractionHistory,
    options: &ContextOptions,
) -> Result<Context, ContextError> {
    let turns = TurnView::of(history);
    let transcript = transcript::read(&turns, options.until);
    let cut = cut(&transcript, options)?;
    let available = transcript.indexes.len();
    finish(&transcript, cut, options, Places::Known, available)
}

/// The system prompt and the newest units that fit the budget.
struct Cut {
    renderer: &'static dyn render::Render,
    counter: tokens::Counter,
    system: Option<Value>,
    messages: Vec<(usize, Value)>,
    first_turn: usize,
    notes: Vec<Note>,
    /// Whether every unit of the transcript is taken.
    every_unit: bool,
}

fn cut(transcript: &transcript::Transcript, options: &ContextOptions) -> Result<Cut, ContextError> {
    let renderer = render::renderer(options.format);
    let tokenizer = options.tokenizer();
    let mut counter = tokens::Counter::new(tokenizer);
    let budget = options.budget;
    let mut notes = Vec::new();
    let system = (options.system == SystemPrompt::Keep && !transcript.system.is_empty())
        .then(|| renderer.system(&transcript.system));
    let system_cost = system.as_ref().map_or(0, |s| counter.message_cost(s));
    let spent = system_cost + REPLY_PRIMING;
    if spent > budget {
        return Err(ContextError::BudgetTooSmall {
            budget,
            needed: spent,
            what: "the system prompt".to_owned(),
            tokenizer,
        });
    }
    let Taken {
        messages,
        first_turn,
        every_unit,
    } = choose(
        transcript,
        renderer,
        &mut counter,
        spent,
        budget,
        system.is_some(),
        &mut notes,
    )?;
    Ok(Cut {
        renderer,
        counter,
        system,
        messages,
        first_turn,
        notes,
        every_unit,
    })
}

/// The request of a cut, counted, with what it leaves out; `available`: the session's
/// turns (up to `until`).
fn finish(
    transcript: &transcript::Transcript,
    cut: Cut,
    options: &ContextOptions,
    places: Places<'_>,
    available: usize,
) -> Result<Context, ContextError> {
    let Cut {
        renderer,
        mut counter,
        system,
        messages,
        first_turn,
        mut notes,
        ..
    } = cut;
    let (system, messages) = renderer.finish(system, messages, &mut notes);
    let tokens = system.as_ref().map_or(0, |s| counter.message_cost(s))
        + messages
            .iter()
            .map(|message| counter.message_cost(message))
            .sum::<usize>()
        + REPLY_PRIMING;
    let omitted = omissions(transcript, notes, first_turn, places)?;
    Ok(Context {
        request: renderer.request(system, messages),
        format: options.format,
        tokenizer: counter.tokenizer(),
        tokens,
        budget: options.budget,
        turns: transcript.indexes[first_turn..].to_vec(),
        awaiting: transcript.indexes[first_turn..]
            .iter()
            .zip(&transcript.awaiting[first_turn..])
            .filter(|(_, awaits)| **awaits)
            .map(|(index, _)| index.clone())
            .collect(),
        turns_available: available,
        omitted,
    })
}

/// The units taken from a transcript.
struct Taken {
    /// Their messages, oldest first, each with its turn.
    messages: Vec<(usize, Value)>,
    /// The first turn taken.
    first_turn: usize,
    /// Whether every unit is.
    every_unit: bool,
}

/// The newest units that fit the budget (with `spent` already spent), rendered.
fn choose(
    transcript: &transcript::Transcript,
    renderer: &dyn render::Render,
    counter: &mut tokens::Counter,
    mut spent: usize,
    budget: usize,
    system: bool,
    notes: &mut Vec<Note>,
) -> Result<Taken, ContextError> {
    let mut taken = Vec::new();
    let mut every_unit = true;
    let mut first_turn = transcript.turns.len();
    for &(first, last) in transcript.units.iter().rev() {
        let mut unit_notes = Vec::new();
        let messages: Vec<(usize, Value)> = transcript.turns[first..=last]
            .iter()
            .flatten()
            .flat_map(|entry| {
                renderer
                    .entry(entry, &mut unit_notes)
                    .into_iter()
                    .map(|message| (entry.turn, message))
            })
            .collect();
        // Counting stops once the unit is past what is left of the budget.
        let cost = counter.cost_within(messages.iter().map(|(_, message)| message), budget - spent);
        let Some(cost) = cost else {
            if taken.is_empty() {
                let cost: usize = messages
                    .iter()
                    .map(|(_, message)| counter.message_cost(message))
                    .sum();
                return Err(ContextError::BudgetTooSmall {
                    budget,
                    needed: spent + cost,
                    what: newest_turns(&transcript.indexes, first, last, system),
                    tokenizer: counter.tokenizer(),
                });
            }
            every_unit = false;
            break;
        };
        spent += cost;
        taken.push(messages);
        notes.extend(unit_notes);
        first_turn = first;
    }
    Ok(Taken {
        messages: taken.into_iter().rev().flatten().collect(),
        first_turn,
        every_unit,
    })
}

/// The notes about the turns taken, as omissions, in turn order.
fn omissions(
    transcript: &transcript::Transcript,
    mut notes: Vec<Note>,
    first_turn: usize,
    places: Places<'_>,
) -> Result<Vec<Omission>, ContextError> {
    notes.extend(
        transcript
            .notes
            .iter()
            .filter(|note| note.turn >= first_turn)
            .cloned(),
    );
    if notes.is_empty() {
        return Ok(Vec::new());
    }
    notes.sort_by_key(|note| note.turn);
    let rows = match places {
        Places::Known => None,
        Places::Stored(read) => Some(read()?),
    };
    let place = |turn: usize| {
        let position = transcript.documents[turn];
        rows.as_ref().map_or(position, |rows| rows[position])
    };
    Ok(notes
        .into_iter()
        .map(|note| Omission {
            turn: transcript.indexes[note.turn].clone(),
            pointer: format!("/Turns/{}{}", place(note.turn), note.pointer),
            what: note.what,
        })
        .collect())
}

fn newest_turns(indexes: &[String], first: usize, last: usize, system: bool) -> String {
    let turns = if first == last {
        format!("the newest turn ({})", indexes[last])
    } else {
        format!(
            "the newest turns ({} to {}, taken together for their tool calls)",
            indexes[first], indexes[last]
        )
    };
    if system {
        format!("{turns} with the system prompt")
    } else {
        turns
    }
}
