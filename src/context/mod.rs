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
use crate::query::{Arguments, PAYLOADS};
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
    let turns = stored_turns(store, session_id)?;
    if turns.is_empty() {
        // No turn: an unknown session (an error), or one without turns.
        return assemble(&store.history(session_id)?, options);
    }
    let views: Vec<TurnView<'_>> = turns
        .iter()
        .map(|(position, index, prompt, response)| TurnView {
            position: *position,
            index,
            prompt,
            response,
        })
        .collect();
    build(&views, options)
}

/// A stored turn: its place, `TurnIndex`, prompt and response.
type StoredTurn = (usize, Number, JsonObject, JsonObject);

/// The payloads of a session's turns, read with one query (the `payloads` canned query):
/// only the verbatim JSON of each payload is decoded, not the whole session graph.
fn stored_turns(store: &HistoryStore, session_id: &str) -> Result<Vec<StoredTurn>, ContextError> {
    let arguments = Arguments::new().text("session", session_id);
    let QueryResults::Solutions(solutions) = store.run(&PAYLOADS, &arguments)? else {
        return Ok(Vec::new());
    };
    let mut turns = Vec::new();
    for (position, solution) in solutions.enumerate() {
        let solution = solution.map_err(StoreError::QueryEvaluation)?;
        let text = |name: &str| match solution.get(name) {
            Some(Term::Literal(literal)) => Some(literal.value()),
            _ => None,
        };
        let corrupt = |what: &str| ContextError::Corrupt {
            session: session_id.to_owned(),
            turn: position,
            what: what.to_owned(),
        };
        let index_text = text("rawTurnIndex")
            .or_else(|| text("turnIndex"))
            .ok_or_else(|| corrupt("no TurnIndex"))?;
        let index: Number = serde_json::from_str(index_text)
            .map_err(|_| corrupt("a TurnIndex that is not a number"))?;
        let object = |name: &str| -> Result<JsonObject, ContextError> {
            let json = text(name).ok_or_else(|| corrupt("a payload without its JSON"))?;
            match serde_json::from_str(json) {
                Ok(Value::Object(object)) => Ok(object),
                _ => Err(corrupt("a payload whose stored JSON is not an object")),
            }
        };
        // The turn's IRI ends in its place in the document (`.../turn/3`).
        let place = match solution.get("turn") {
            Some(Term::NamedNode(turn)) => turn
                .as_str()
                .rsplit('/')
                .next()
                .and_then(|p| p.parse().ok()),
            _ => None,
        };
        turns.push((
            place.unwrap_or(position),
            index,
            object("prompt")?,
            object("response")?,
        ));
    }
    Ok(turns)
}

/// Context for the next call of a history.
pub fn assemble(
    history: &InteractionHistory,
    options: &ContextOptions,
) -> Result<Context, ContextError> {
    build(&TurnView::of(history), options)
}

fn build(turns: &[TurnView<'_>], options: &ContextOptions) -> Result<Context, ContextError> {
    let transcript = transcript::read(turns, options.until);
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
    let (messages, first_turn) = choose(
        &transcript,
        renderer,
        &mut counter,
        spent,
        budget,
        system.is_some(),
        &mut notes,
    )?;
    let (system, messages) = renderer.finish(system, messages, &mut notes);
    let tokens = system.as_ref().map_or(0, |s| counter.message_cost(s))
        + messages
            .iter()
            .map(|message| counter.message_cost(message))
            .sum::<usize>()
        + REPLY_PRIMING;
    let omitted = omissions(&transcript, notes, first_turn);
    Ok(Context {
        request: renderer.request(system, messages),
        format: options.format,
        tokenizer,
        tokens,
        budget,
        turns: transcript.indexes[first_turn..].to_vec(),
        turns_available: transcript.indexes.len(),
        omitted,
    })
}

/// The newest units that fit the budget (with `spent` already spent), rendered, oldest
/// first, each message with its turn; and the first turn taken.
fn choose(
    transcript: &transcript::Transcript,
    renderer: &dyn render::Render,
    counter: &mut tokens::Counter,
    mut spent: usize,
    budget: usize,
    system: bool,
    notes: &mut Vec<Note>,
) -> Result<(Vec<(usize, Value)>, usize), ContextError> {
    let mut taken = Vec::new();
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
        let cost: usize = messages
            .iter()
            .map(|(_, message)| counter.message_cost(message))
            .sum();
        if spent + cost > budget {
            if taken.is_empty() {
                return Err(ContextError::BudgetTooSmall {
                    budget,
                    needed: spent + cost,
                    what: newest_turns(&transcript.indexes, first, last, system),
                    tokenizer: counter.tokenizer(),
                });
            }
            break;
        }
        spent += cost;
        taken.push(messages);
        notes.extend(unit_notes);
        first_turn = first;
    }
    Ok((taken.into_iter().rev().flatten().collect(), first_turn))
}

/// The notes about the turns taken, as omissions, in turn order.
fn omissions(
    transcript: &transcript::Transcript,
    mut notes: Vec<Note>,
    first_turn: usize,
) -> Vec<Omission> {
    notes.extend(
        transcript
            .notes
            .iter()
            .filter(|note| note.turn >= first_turn)
            .cloned(),
    );
    notes.sort_by_key(|note| note.turn);
    notes
        .into_iter()
        .map(|note| Omission {
            turn: transcript.indexes[note.turn].clone(),
            pointer: if note.pointer.is_empty() {
                format!("/Turns/{}", transcript.documents[note.turn])
            } else {
                note.pointer
            },
            what: note.what,
        })
        .collect()
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
