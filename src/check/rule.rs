//! The rules a document can break, how serious a break is, and one broken rule at one
//! place of a document.

use std::fmt;

/// Longest `DescrMetadata`, in characters.
pub const MAX_DESCRIPTIVE_METADATA_CHARS: usize = 2048;

/// Which rule a problem breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// JSON Schema `required`.
    Required,
    /// JSON Schema `additionalProperties: false`.
    AdditionalProperties,
    /// JSON Schema `type`.
    Type,
    /// JSON Schema `pattern`.
    Pattern,
    /// JSON Schema `enum`.
    Enum,
    /// JSON Schema `const`.
    Const,
    /// JSON Schema `minimum`.
    Minimum,
    /// JSON Schema `maximum`.
    Maximum,
    /// JSON Schema `maxLength`.
    MaxLength,
    /// JSON Schema `minItems`.
    MinItems,
    /// JSON Schema `oneOf`.
    OneOf,
    /// Semantic: `TurnCount` equals the number of turns.
    TurnCount,
    /// Semantic: each turn's `TurnIndex` is its position, so indexes are unique and run
    /// 0..n-1.
    TurnIndex,
    /// Semantic: Simple Time's `TimeType`/`TimeUnit`/`Reserved` agree with `FlagsByte`.
    TimeFlags,
    /// The text is not JSON.
    Syntax,
    /// The document could not be read.
    Io,
    /// The document is larger than the bound on documents.
    Size,
    /// Something the mapping to RDF noticed (always a warning).
    Mapping,
    /// A foreign history is not in the format it was read as (importers).
    Format,
    /// Two inputs of one run give the same `SessionID`: the later would replace the
    /// earlier, two histories in one session.
    SessionClash,
}

impl Rule {
    /// The rule's name in messages: the JSON Schema keyword, or the semantic rule.
    pub fn name(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::AdditionalProperties => "additionalProperties",
            Self::Type => "type",
            Self::Pattern => "pattern",
            Self::Enum => "enum",
            Self::Const => "const",
            Self::Minimum => "minimum",
            Self::Maximum => "maximum",
            Self::MaxLength => "maxLength",
            Self::MinItems => "minItems",
            Self::OneOf => "oneOf",
            Self::TurnCount => "turn-count",
            Self::TurnIndex => "turn-index",
            Self::TimeFlags => "time-flags",
            Self::Syntax => "syntax",
            Self::Io => "io",
            Self::Size => "size",
            Self::Mapping => "mapping",
            Self::Format => "format",
            Self::SessionClash => "session-clash",
        }
    }

    /// Whether the rule is one the schema cannot express (downgraded by `lenient`).
    pub fn is_semantic(self) -> bool {
        matches!(self, Self::TurnCount | Self::TurnIndex | Self::TimeFlags)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How serious a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The document is refused.
    Error,
    /// The document is accepted; the problem is reported.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Error => "error",
            Self::Warning => "warning",
        })
    }
}

/// One broken rule, at one place of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON Pointer (RFC 6901) of the offending value, or of where a missing member
    /// belongs; empty for the whole document.
    pub pointer: String,
    /// The rule broken.
    pub rule: Rule,
    /// Error or warning.
    pub severity: Severity,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for Problem {
    /// `/Turns/3/Role: error[enum]: expected one of ..., found "Bot"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(document)"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{pointer}: {}[{}]: {}",
            self.severity, self.rule, self.message
        )
    }
}
