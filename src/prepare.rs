//! From a document read to the quads of its session: parse errors, schema and semantic
//! checks, and mapping, with every diagnostic kept in document order.

use crate::check::{CheckOptions, Severity, check_document};
use crate::input::{Origin, ReadError};
use crate::iri::IriScheme;
use crate::mapping::{SessionGraph, map_history};
use serde_json::Value;

/// Where in a document a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The document as a whole (it could not be read).
    Document,
    /// A position in the text, from 1 (syntax errors).
    Position {
        /// Line, within the document's own text.
        line: usize,
        /// Column.
        column: usize,
    },
    /// A JSON Pointer into the document.
    Pointer(String),
}

/// One thing to tell about a document: where, how serious, which rule, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the document.
    pub place: Place,
    /// The rule: `syntax`, `io`, a JSON Schema keyword, a semantic rule, or `mapping`.
    pub rule: String,
    /// What was expected and found.
    pub message: String,
}

impl Diagnostic {
    /// The diagnostic as editors read it: `file:line:column: ...` for syntax (the line
    /// counted in the file, for JSON Lines too), `file: /Pointer: ...` otherwise; for a
    /// JSON Lines document, `file:line: /Pointer: ...`.
    ///
    /// ```
    /// use ihigraph::{Diagnostic, Origin, Place, Severity};
    /// let diagnostic = Diagnostic {
    ///     severity: Severity::Error,
    ///     place: Place::Position { line: 1, column: 9 },
    ///     rule: "syntax".into(),
    ///     message: "invalid JSON: expected value".into(),
    /// };
    /// let origin = Origin { name: "h.jsonl".into(), line: Some(7) };
    /// assert_eq!(diagnostic.located(&origin), "h.jsonl:7:9: error[syntax]: invalid JSON: expected value");
    /// ```
    pub fn located(&self, origin: &Origin) -> String {
        let what = format!("{}[{}]: {}", self.severity, self.rule, self.message);
        match &self.place {
            Place::Document => format!("{origin}: {what}"),
            Place::Position { line, column } => {
                let line = origin.line.map_or(*line, |first| {
                    usize::try_from(first)
                        .unwrap_or(usize::MAX)
                        .saturating_add(line - 1)
                });
                format!("{}:{line}:{column}: {what}", origin.name)
            }
            Place::Pointer(pointer) if pointer.is_empty() => {
                format!("{origin}: (document): {what}")
            }
            Place::Pointer(pointer) => format!("{origin}: {pointer}: {what}"),
        }
    }
}

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
            let (place, rule, message) = match &error {
                ReadError::Syntax {
                    line,
                    column,
                    message,
                } => (
                    Place::Position {
                        line: *line,
                        column: *column,
                    },
                    "syntax",
                    message.clone(),
                ),
                ReadError::TooLarge { .. } => (Place::Document, "size", error.to_string()),
                other => (Place::Document, "io", other.to_string()),
            };
            return PreparedDocument {
                origin,
                session: None,
                diagnostics: vec![Diagnostic {
                    severity: Severity::Error,
                    place,
                    rule: rule.to_owned(),
                    message,
                }],
            };
        }
    };
    let checked = check_document(&value, options);
    let mut diagnostics: Vec<Diagnostic> = checked
        .problems
        .iter()
        .map(|problem| Diagnostic {
            severity: problem.severity,
            place: Place::Pointer(problem.pointer.clone()),
            rule: problem.rule.name().to_owned(),
            message: problem.message.clone(),
        })
        .collect();
    let session = checked.history.map(|history| {
        let session = map_history(&history, scheme);
        diagnostics.extend(session.warnings.iter().map(|warning| Diagnostic {
            severity: Severity::Warning,
            place: Place::Pointer(warning.pointer.clone()),
            rule: "mapping".to_owned(),
            message: warning.message.clone(),
        }));
        session
    });
    PreparedDocument {
        origin,
        session,
        diagnostics,
    }
}
