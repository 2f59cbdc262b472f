//! From a document read to the quads of its session: parse errors, schema and semantic
//! checks, and mapping, with every diagnostic kept in document order.

use crate::check::{CheckOptions, Diagnostic, Place, Rule, Severity, check_document};
use crate::model::InteractionHistory;
use crate::rdf::{IriScheme, SessionGraph, map_history};
use crate::read::{Origin, ReadError};
use serde_json::Value;

/// A document prepared for the store: its session graph when it is accepted, and what
/// there is to say about it.
#[derive(Debug)]
pub struct PreparedDocument {
    /// Where the document comes from.
    pub origin: Origin,
    /// The session graph, when the document has no errors.
    pub session: Option<SessionGraph>,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl PreparedDocument {
    /// Whether the document is refused.
    pub fn is_refused(&self) -> bool {
        self.session.is_none()
    }
}

/// Checks and maps one document read from the inputs.
pub fn prepare_document(
    origin: Origin,
    value: Result<Value, ReadError>,
    options: CheckOptions,
    scheme: &IriScheme,
) -> PreparedDocument {
    let value = match value {
        Ok(value) => value,
        Err(error) => {
            return PreparedDocument {
                origin,
                session: None,
                diagnostics: vec![Diagnostic::from(&error)],
            };
        }
    };
    let checked = check_document(&value, options);
    let mut diagnostics: Vec<Diagnostic> = checked.problems.iter().map(Diagnostic::from).collect();
    let session = checked
        .history
        .map(|history| map_checked(&history, scheme, &mut diagnostics));
    PreparedDocument {
        origin,
        session,
        diagnostics,
    }
}

/// Maps a history that passed its checks already (an importer checked it).
pub fn prepare_history(
    origin: Origin,
    history: &InteractionHistory,
    scheme: &IriScheme,
) -> PreparedDocument {
    let mut diagnostics = Vec::new();
    let session = Some(map_checked(history, scheme, &mut diagnostics));
    PreparedDocument {
        origin,
        session,
        diagnostics,
    }
}

/// The session graph of a checked history, its mapping warnings added to `diagnostics`
/// (its fingerprint is left to the writer, or to the ingest pipeline's preparing
/// thread: `validate` has no use for it).
fn map_checked(
    history: &InteractionHistory,
    scheme: &IriScheme,
    diagnostics: &mut Vec<Diagnostic>,
) -> SessionGraph {
    let session = map_history(history, scheme);
    diagnostics.extend(session.warnings.iter().map(|warning| Diagnostic {
        severity: Severity::Warning,
        place: Place::Pointer(warning.pointer.clone()),
        rule: Rule::Mapping,
        message: warning.message.clone(),
    }));
    session
}
