//! Ingest: from documents read to sessions stored, as a library API. The pipeline reads,
//! checks and maps documents on a second thread while this one writes them in batches;
//! it reports what happens as [`IngestEvent`]s to a sink the caller gives, and stops
//! cleanly when the caller's cancellation flag is raised. Appending one turn to a stored
//! session is here too: it is a use case (read back, check, map, replace), not storage;
//! so is receiving OpenTelemetry spans live ([`receive`]).

mod append;
mod error;
mod live;
mod otel;
mod pipeline;
mod prepare;
#[cfg(feature = "watch")]
mod watch;

pub use append::{AppendOutcome, NewSession, append_turn};
pub use error::{BatchError, IngestError};
pub use live::{DEFAULT_LIVE_BYTES, LiveSessions};
pub use otel::{ReceiveError, Received, Rejected, receive, receive_live};
pub use pipeline::{DEFAULT_BATCH_QUADS, Ingest, IngestEvent, IngestSummary, Refusal};
pub use prepare::{
    GraphRefused, PreparedDocument, prepare_document, prepare_graph, prepare_history,
};
#[cfg(feature = "watch")]
pub use watch::{Watch, WatchEvent, WatchSummary};
