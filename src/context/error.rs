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
    /// The session could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}
