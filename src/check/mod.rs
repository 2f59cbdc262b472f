//! Checking a JSON value against PGM-IHI V1.0: every rule of the official schema (with
//! OSD V1.5 Simple Time and PTF V1.0 Data Exchange Metadata), and the semantic rules the
//! schema cannot express.
//!
//! All problems of a document are collected, each with the JSON Pointer of the place,
//! the rule (named after the JSON Schema keyword, or a semantic rule's name) and what was
//! expected and found. Schema rules are always errors; semantic rules are errors unless
//! the check is lenient, then warnings.

mod checker;
mod diagnostic;
mod rule;

pub use diagnostic::{Diagnostic, Place};
pub use rule::{MAX_DESCRIPTIVE_METADATA_CHARS, Problem, Rule, Severity};

use crate::model::InteractionHistory;
use checker::Checker;
use serde_json::Value;

/// Options of a check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Downgrade semantic rules to warnings.
    pub lenient: bool,
}

/// The outcome of checking one document.
#[derive(Debug, Clone)]
pub struct CheckedDocument {
    /// The typed history, when the document has no errors.
    pub history: Option<InteractionHistory>,
    /// Every problem found, errors and warnings, in document order.
    pub problems: Vec<Problem>,
}

impl CheckedDocument {
    /// The problems that refuse the document.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
    }
}

/// Checks a parsed document against PGM-IHI V1.0 and builds its typed model.
///
/// ```
/// use ihigraph::{check_document, CheckOptions};
/// let value = serde_json::json!({"Header": "PGM-IHI-V1.0"});
/// let checked = check_document(&value, CheckOptions::default());
/// assert!(checked.history.is_none());
/// assert!(checked.problems.iter().any(|p| p.pointer == "/SessionID"));
/// ```
pub fn check_document(value: &Value, options: CheckOptions) -> CheckedDocument {
    let mut checker = Checker::new(options);
    checker.interaction_history(value);
    let has_errors = checker
        .problems
        .iter()
        .any(|p| p.severity == Severity::Error);
    let history = if has_errors {
        None
    } else {
        // From text, not `from_value`: serde_json's value deserializer reads `-0` as
        // `0`, and every number must keep its text.
        match serde_json::from_str::<InteractionHistory>(&value.to_string()) {
            Ok(history) => Some(history),
            Err(error) => {
                // The checks above are meant to cover every rule the typed model relies
                // on; if one slipped through, refuse rather than panic.
                checker.problems.push(Problem {
                    pointer: String::new(),
                    rule: Rule::Type,
                    severity: Severity::Error,
                    message: format!("document does not fit the PGM-IHI model: {error}"),
                });
                None
            }
        }
    };
    CheckedDocument {
        history,
        problems: checker.problems,
    }
}

/// The problems of a parsed document, without building its typed model (for documents
/// whose model is at hand, as an importer's are).
pub fn check_problems(value: &Value, options: CheckOptions) -> Vec<Problem> {
    let mut checker = Checker::new(options);
    checker.interaction_history(value);
    checker.problems
}

/// Checks a single turn, as it would stand at `/Turns/{position}` of a document.
pub fn check_turn(value: &Value, position: usize, options: CheckOptions) -> Vec<Problem> {
    let mut checker = Checker::new(options);
    checker.turn(value, position);
    checker.problems
}
