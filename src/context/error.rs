//! What can go wrong while building a context.

use super::Tokenizer;
use crate::store::StoreError;

/// What can go wrong while building a context.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// The budget cannot hold the least a context must hold.
    #[error(
        "a budget of {budget} tokens is too small: {what} needs {needed} tokens ({tokenizer}, with {} for the reply's priming)",
        super::REPLY_PRIMING
    )]
    BudgetTooSmall {
        /// The budget asked for.
        budget: usize,
        /// Tokens the least context needs.
        needed: usize,
        /// What that least context is.
        what: String,
        /// The tokenizer that counted.
        tokenizer: Tokenizer,
    },
    /// The store holds something ihigraph did not write: a payload that is not JSON.
    #[error(
        "the store holds turn {turn} of session {session:?} with {what}: it was not written by ihigraph, or was changed since"
    )]
    Corrupt {
        /// The session.
        session: String,
        /// The turn: its `TurnIndex` (its row among the turns read when that is not an
        /// integer).
        turn: usize,
        /// What is wrong.
        what: String,
    },
    /// The session could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}
