//! What can go wrong while ingesting or appending.

use crate::check::Problem;
use crate::read::Origin;
use crate::store::StoreError;
use std::io;

/// What can go wrong while ingesting or appending.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// A batch of sessions could not be stored; the earlier batches are stored, and every
    /// session is whole or absent.
    #[error(transparent)]
    Batch(Box<BatchError>),
    /// A document or turn was refused by its checks; nothing was written.
    #[error("refused: {}", problems.iter().filter(|p| p.severity == crate::check::Severity::Error).map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Refused {
        /// Every problem found.
        problems: Vec<Problem>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The reading thread could not be started.
    #[error("cannot start the reading thread")]
    Thread(#[source] io::Error),
}

/// A batch of sessions that could not be stored, and where its sessions came from.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}cannot store {} ({stored} session{} of earlier batches stored; every session is whole or absent)",
    if *sessions == 1 { format!("{first}: ") } else { String::new() },
    if *sessions == 1 { format!("session {first_session:?}") } else { format!("the sessions of {first} to {last}") },
    if *stored == 1 { "" } else { "s" }
)]
pub struct BatchError {
    /// Where the batch's first session came from.
    pub first: Origin,
    /// Where its last session came from.
    pub last: Origin,
    /// The id of its first session.
    pub first_session: String,
    /// How many sessions the batch holds.
    pub sessions: usize,
    /// Sessions stored before this batch.
    pub stored: usize,
    /// The cause.
    #[source]
    pub source: StoreError,
}
