//! Long-term memory made from sessions: a fact, a decision or a lesson an agent keeps,
//! derived from the turn it came from, in the store's memory graph (one graph for the
//! store, outside every session graph). And the deletion of a session that takes its
//! memory with it, with a receipt; of many at once, by age (`prune`, under the store's
//! retention period) or by subject (`erase_subject`).
//!
//! An item is typed with its kind in Jido's design vocabulary (`jido:Fact`,
//! `jido:Decision`, `jido:LessonLearned`, under `jido:MemoryItem`) and in the Jido core
//! ontology jidoka publishes (`jcore:Fact`... under `jcore:Memory`), and as a
//! `prov:Entity`; it is linked to its turn by `prov:wasDerivedFrom`, to the session's
//! work session by `jido:assertedIn`, carries `prov:generatedAtTime`, the source type of
//! its turn (`jido:UserSource`, `jido:AgentSource`, `jido:ToolSource`) and the time it
//! holds for (`ihi:validFrom`, `ihi:validUntil`). Its id comes from its kind and text:
//! remembering the same thing from another turn adds that turn as a further source.

mod delete;
mod error;
mod keyed;
mod retention;

pub use delete::{DeletionReceipt, delete_session, delete_session_and_branches};
pub use error::MemoryError;
pub use keyed::{
    KeyedItem, PutItem, delete_item, keyed_item_id, keyed_items, put_item, refresh_item,
};
pub use retention::{
    DeletionTotals, Erasure, Pruning, Subject, SubjectError, erase_subject, prune, prune_at_most,
};

use crate::model::{Role, Turn};
use crate::payload::{Part, new_prompt_messages};
use crate::query::Arguments;
use crate::rdf::IriScheme;
use crate::rdf::vocab::{ihi, jcore, jido, prov, rdf};
use crate::store::{HistoryStore, StoreError, data_block, replace_data};
use oxigraph::sparql::QueryResults;
use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNode, NamedNodeRef, Quad, Term, Triple};
use oxsdatatypes::DateTime;
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// What kind of thing a memory item keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryKind {
    /// `jido:Fact`.
    Fact,
    /// `jido:Decision`.
    Decision,
    /// `jido:LessonLearned`.
    Lesson,
}

impl MemoryKind {
    /// Every kind.
    pub const ALL: [Self; 3] = [Self::Fact, Self::Decision, Self::Lesson];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fact => "fact",
            Self::Decision => "decision",
            Self::Lesson => "lesson",
        }
    }

    /// Its class in Jido's design vocabulary.
    pub fn class(self) -> NamedNodeRef<'static> {
        match self {
            Self::Fact => jido::FACT,
            Self::Decision => jido::DECISION,
            Self::Lesson => jido::LESSON_LEARNED,
        }
    }

    /// Its class in the Jido core ontology.
    pub fn core_class(self) -> NamedNodeRef<'static> {
        match self {
            Self::Fact => jcore::FACT,
            Self::Decision => jcore::DECISION,
            Self::Lesson => jcore::LESSON_LEARNED,
        }
    }
}

impl fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MemoryKind {
    type Err = MemoryError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| MemoryError::UnknownKind(name.to_owned()))
    }
}

/// What to remember, and from where.
#[derive(Debug, Clone, PartialEq)]
pub struct Remember {
    /// The session's `SessionID`.
    pub session: String,
    /// The turn's `TurnIndex`.
    pub turn: u64,
    /// The kind.
    pub kind: MemoryKind,
    /// What it says.
    pub text: String,
    /// From when it holds.
    pub valid_from: Option<DateTime>,
    /// Until when it holds (exclusive).
    pub valid_until: Option<DateTime>,
}

/// A memory item written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    /// Its id.
    pub id: String,
    /// Its IRI.
    pub item: NamedNode,
    /// The turn it was derived from.
    pub turn: NamedNode,
    /// The source type of the turn.
    pub source: NamedNode,
    /// Whether the item is new (else the turn was added to its sources).
    pub created: bool,
}

/// The id of a memory item: its kind and text, hashed.
///
/// ```
/// use ihigraph::memory::{memory_id, MemoryKind};
/// assert_eq!(memory_id(MemoryKind::Fact, "CI runs with MIX_ENV=ci"), memory_id(MemoryKind::Fact, "CI runs with MIX_ENV=ci"));
/// assert_ne!(memory_id(MemoryKind::Fact, "x"), memory_id(MemoryKind::Lesson, "x"));
/// assert_eq!(memory_id(MemoryKind::Fact, "x").len(), 16);
/// ```
pub fn memory_id(kind: MemoryKind, text: &str) -> String {
    let digest = Sha256::new()
        .chain_update(kind.name())
        .chain_update([0])
        .chain_update(text)
        .finalize();
    hex::encode(&digest[..8])
}

/// Makes a memory item from a stored turn, at `now`, in one atomic update.
///
/// ```
/// use ihigraph::memory::{remember, MemoryKind, Remember};
/// use ihigraph::check::{check_document, CheckOptions};
/// use ihigraph::rdf::map_history;
/// use ihigraph::HistoryStore;
/// let store = HistoryStore::in_memory(&Default::default())?;
/// let document: serde_json::Value =
///     serde_json::from_str(include_str!("../../examples/histories/code-review-abc.json"))?;
/// let history = check_document(&document, CheckOptions::default()).history.unwrap();
/// store.write_session(&map_history(&history, store.scheme()))?;
/// let request = Remember {
///     session: "abc".into(), turn: 2, kind: MemoryKind::Lesson,
///     text: "CI runs with MIX_ENV=ci: every env needs its config file".into(),
///     valid_from: None, valid_until: None,
/// };
/// let item = remember(&store, &request, "2026-11-25T10:00:00Z".parse()?)?;
/// assert!(item.created);
/// assert!(!remember(&store, &request, "2026-11-25T11:00:00Z".parse()?)?.created);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn remember(
    store: &HistoryStore,
    request: &Remember,
    now: DateTime,
) -> Result<Remembered, MemoryError> {
    if let (Some(from), Some(until)) = (request.valid_from, request.valid_until)
        && from >= until
    {
        return Err(MemoryError::EmptyValidity {
            from: from.to_string(),
            until: until.to_string(),
        });
    }
    if request.text.trim().is_empty() {
        return Err(MemoryError::EmptyText);
    }
    let (turn_node, source) = derived_from(store, &request.session, request.turn)?;
    let scheme = store.scheme();
    let id = memory_id(request.kind, &request.text);
    let item = scheme.memory_item(&id);
    let created = !exists(store, &item)?;
    let mut triples = vec![
        triple(&item, prov::WAS_DERIVED_FROM, turn_node.clone()),
        triple(
            &item,
            jido::ASSERTED_IN,
            scheme.work_session(&request.session),
        ),
        triple(&item, jido::HAS_SOURCE_TYPE, source),
    ];
    if created {
        triples.extend(new_item(&item, &id, request, now));
    }
    let graph = scheme.memory_graph();
    let mut replaced = Vec::new();
    for (property, value) in [
        (ihi::VALID_FROM, request.valid_from),
        (ihi::VALID_UNTIL, request.valid_until),
    ] {
        if let Some(value) = value {
            // A new validity replaces the old one.
            if !created {
                replaced.extend(
                    item_quads(store, &item)?
                        .into_iter()
                        .filter(|quad| quad.predicate == property),
                );
            }
            triples.push(triple(&item, property, date_time(value)));
        }
    }
    let inserted: Vec<Quad> = triples
        .into_iter()
        .map(|t| t.in_graph(graph.clone()))
        .collect();
    store.update(&replace_data(&replaced, &inserted))?;
    Ok(Remembered {
        id,
        item,
        turn: turn_node,
        source: source.into_owned(),
        created,
    })
}

/// What a new item says of itself: its types, id, text and when it was made.
fn new_item(item: &NamedNode, id: &str, request: &Remember, now: DateTime) -> Vec<Triple> {
    let mut triples: Vec<Triple> = [
        request.kind.class(),
        jido::MEMORY_ITEM,
        request.kind.core_class(),
        jcore::MEMORY,
        prov::ENTITY,
    ]
    .into_iter()
    .map(|class| triple(item, rdf::TYPE, class))
    .collect();
    triples.push(triple(
        item,
        ihi::MEMORY_ID,
        Literal::new_simple_literal(id),
    ));
    triples.push(triple(
        item,
        ihi::MEMORY_TEXT,
        Literal::new_simple_literal(&request.text),
    ));
    triples.push(triple(item, prov::GENERATED_AT_TIME, date_time(now)));
    triples
}

/// The arguments of the `memories` canned query for the items of a session and of a
/// kind (each when given); add `at` for a time.
///
/// ```
/// use ihigraph::memory::{memories_arguments, MemoryKind};
/// let arguments = memories_arguments(Some("abc"), Some(MemoryKind::Decision));
/// assert!(format!("{arguments:?}").contains("Decision"));
/// ```
pub fn memories_arguments(session: Option<&str>, kind: Option<MemoryKind>) -> Arguments {
    let mut arguments = Arguments::new();
    if let Some(session) = session {
        arguments = arguments.text("session", session);
    }
    if let Some(kind) = kind {
        arguments = arguments.raw("kind", kind.class().as_str());
    }
    arguments
}

/// Removes a memory item, by id or IRI.
pub fn forget(store: &HistoryStore, item: &str) -> Result<NamedNode, MemoryError> {
    let scheme = store.scheme();
    let node = match NamedNode::new(item) {
        Ok(node) if item.contains(':') => node,
        _ => scheme.memory_item(item),
    };
    if !exists(store, &node)? {
        return Err(MemoryError::UnknownItem(item.to_owned()));
    }
    store.update(&data_block("DELETE DATA", &item_quads(store, &node)?))?;
    Ok(node)
}

/// The IRI of the turn of `session` whose `TurnIndex` is `turn`, and its source type.
fn derived_from(
    store: &HistoryStore,
    session: &str,
    turn: u64,
) -> Result<(NamedNode, NamedNodeRef<'static>), MemoryError> {
    let history = store.history(session)?;
    let Some((position, found)) = history
        .turns
        .iter()
        .enumerate()
        .find(|(_, found)| found.turn_index.as_u64() == Some(turn))
    else {
        return Err(MemoryError::UnknownTurn {
            session: session.to_owned(),
            turn,
        });
    };
    Ok((
        turn_iri(store.scheme(), session, position),
        source_type(found),
    ))
}

/// A turn's IRI, as the mapper makes it: the conversation's, then `turn/<position>`.
fn turn_iri(scheme: &IriScheme, session: &str, position: usize) -> NamedNode {
    IriScheme::child(
        &scheme.conversation(session),
        &["turn", &position.to_string()],
    )
}

/// Where a turn's content came from: a human (H-User), the model (BKN), or an agent
/// (A-User), unless what the agent's prompt adds is tool results only: then a tool.
fn source_type(turn: &Turn) -> NamedNodeRef<'static> {
    match turn.role {
        Role::HUser => jido::USER_SOURCE,
        Role::Bkn => jido::AGENT_SOURCE,
        Role::AUser => {
            let messages = new_prompt_messages(&turn.prompt);
            let parts: Vec<&Part> = messages.iter().flat_map(|message| &message.parts).collect();
            if !parts.is_empty() && parts.iter().all(|part| matches!(part, Part::Result(_))) {
                jido::TOOL_SOURCE
            } else {
                jido::AGENT_SOURCE
            }
        }
    }
}

fn exists(store: &HistoryStore, item: &NamedNode) -> Result<bool, MemoryError> {
    let graph = store.scheme().memory_graph();
    match store.query(&format!("ASK {{ GRAPH {graph} {{ {item} ?p ?o }} }}"))? {
        QueryResults::Boolean(found) => Ok(found),
        _ => Ok(false),
    }
}

fn triple(subject: &NamedNode, predicate: NamedNodeRef<'_>, object: impl Into<Term>) -> Triple {
    Triple::new(subject.clone(), predicate, object)
}

fn date_time(value: DateTime) -> Literal {
    Literal::new_typed_literal(value.to_string(), xsd::DATE_TIME)
}

/// The quads of a memory item (as subject) in the memory graph.
fn item_quads(store: &HistoryStore, item: &NamedNode) -> Result<Vec<Quad>, StoreError> {
    let memory = store.scheme().memory_graph();
    store.select_quads(&format!(
        "SELECT ?s ?p ?o ?g WHERE {{ VALUES (?s ?g) {{ ({item} {memory}) }} GRAPH ?g {{ ?s ?p ?o }} }}"
    ))
}
