//! A diagnostic: one thing to tell about a document read from the inputs (where, how
//! serious, which rule, what), located as editors read it.

use super::{Problem, Rule, Severity};
use crate::read::{Origin, ReadError};

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
    /// A place in a foreign history an importer read: a line, a JSON Pointer, an item.
    Input(String),
}

/// One thing to tell about a document: where, how serious, which rule, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the document.
    pub place: Place,
    /// The rule: a JSON Schema keyword, a semantic rule, or [`Rule::Syntax`],
    /// [`Rule::Io`], [`Rule::Size`], [`Rule::Mapping`], [`Rule::Format`],
    /// [`Rule::SessionClash`].
    pub rule: Rule,
    /// What was expected and found.
    pub message: String,
}

impl From<&Problem> for Diagnostic {
    /// A problem the checks found, at its JSON Pointer.
    fn from(problem: &Problem) -> Self {
        Self {
            severity: problem.severity,
            place: Place::Pointer(problem.pointer.clone()),
            rule: problem.rule,
            message: problem.message.clone(),
        }
    }
}

impl From<&ReadError> for Diagnostic {
    /// A document that could not be read: where the syntax broke, or why not at all.
    fn from(error: &ReadError) -> Self {
        let (place, rule, message) = match error {
            ReadError::Syntax {
                line,
                column,
                message,
            } => (
                Place::Position {
                    line: *line,
                    column: *column,
                },
                Rule::Syntax,
                message.clone(),
            ),
            ReadError::TooLarge { .. } => (Place::Document, Rule::Size, error.to_string()),
            other => (Place::Document, Rule::Io, other.to_string()),
        };
        Self {
            severity: Severity::Error,
            place,
            rule,
            message,
        }
    }
}

impl Diagnostic {
    /// The diagnostic as editors read it: `file:line:column: ...` for syntax (the line
    /// counted in the file, for JSON Lines too), `file: /Pointer: ...` otherwise; for a
    /// JSON Lines document, `file:line: /Pointer: ...`.
    ///
    /// ```
    /// use ihigraph::check::{Diagnostic, Place, Rule, Severity};
    /// use ihigraph::read::Origin;
    /// let diagnostic = Diagnostic {
    ///     severity: Severity::Error,
    ///     place: Place::Position { line: 1, column: 9 },
    ///     rule: Rule::Syntax,
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
            Place::Pointer(pointer) | Place::Input(pointer) => {
                format!("{origin}: {pointer}: {what}")
            }
        }
    }
}
