//! What can go wrong while verifying.

use crate::rdf::{FingerprintError, ShapesError};
use crate::read::{Origin, ReadError};
use crate::store::StoreError;
use std::path::PathBuf;

/// What can go wrong while verifying.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IntegrityError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The shapes or the engine failed.
    #[error(transparent)]
    Shapes(#[from] ShapesError),
    /// A graph could not be canonicalized.
    #[error(transparent)]
    Fingerprint(#[from] FingerprintError),
    /// The export compared with cannot be read.
    #[error("cannot read {path}")]
    Export {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The export compared with is not N-Quads, TriG, or PGM-IHI JSON.
    #[error(
        "{path}: not an export ihigraph compares with: expected N-Quads (.nq), TriG (.trig), or PGM-IHI documents (.json, .jsonl)"
    )]
    ExportFormat {
        /// The file.
        path: PathBuf,
    },
    /// The RDF export does not parse.
    #[error("{path}: {message}")]
    ExportSyntax {
        /// The file.
        path: PathBuf,
        /// The parser's message, with the line and column.
        message: String,
    },
    /// A document of a PGM-IHI export does not read.
    #[error("{origin}: {source}")]
    ExportDocument {
        /// Where.
        origin: Origin,
        /// Why.
        #[source]
        source: ReadError,
    },
    /// A document of a PGM-IHI export is not a valid Interaction History.
    #[error("{origin}: not a valid PGM-IHI Interaction History ({problem})")]
    ExportInvalid {
        /// Where.
        origin: Origin,
        /// The first error found.
        problem: String,
    },
}
