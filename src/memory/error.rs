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
    /// The store failed, or the session is unknown.
    #[error(transparent)]
    Store(#[from] StoreError),
}
