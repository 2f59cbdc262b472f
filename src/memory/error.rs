//! What can go wrong with memory items.

use crate::store::StoreError;

/// What can go wrong with memory items.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// The session has no turn with that `TurnIndex`.
    #[error("session {session:?} has no turn {turn}")]
    UnknownTurn {
        /// The session.
        session: String,
        /// The `TurnIndex` asked for.
        turn: u64,
    },
    /// No memory item has that id.
    #[error("no memory item {0:?} in the store")]
    UnknownItem(String),
    /// A kind that is not fact, decision or lesson.
    #[error("unknown memory kind `{0}` (expected fact, decision or lesson)")]
    UnknownKind(String),
    /// A validity that ends before it starts.
    #[error(
        "a memory item valid from {from} until {until} never holds (the start must come before the end)"
    )]
    EmptyValidity {
        /// The start.
        from: String,
        /// The end.
        until: String,
    },
    /// Nothing to remember.
    #[error("a memory item needs a text")]
    EmptyText,
    /// A keyed item's value that is not a JSON object, or an empty namespace.
    #[error("a keyed memory item needs {0}")]
    KeyedItem(&'static str),
    /// The store holds a keyed item ihigraph did not write: its namespace or value is not
    /// the JSON it writes.
    #[error(
        "the store holds keyed memory item <{item}> with {what}: it was not written by ihigraph, or was changed since"
    )]
    CorruptItem {
        /// The item's IRI.
        item: String,
        /// What is wrong.
        what: String,
    },
    /// The store failed, or the session is unknown.
    #[error(transparent)]
    Store(#[from] StoreError),
}
