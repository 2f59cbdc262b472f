//! The parameters of canned queries: their kinds, the arguments given for them, and the
//! typed RDF terms arguments become.

use crate::rdf::PREFIXES;
use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNode};
use oxsdatatypes::DateTime;
use spargebra::term::GroundTerm;
use std::fmt;
use std::str::FromStr;

/// A parameter of a canned query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// The name given on the command line (`--param NAME=VALUE`).
    pub name: &'static str,
    /// The SPARQL variable it binds; `None` for `n`, which sets the `LIMIT`.
    pub variable: Option<&'static str>,
    /// What values it takes.
    pub kind: ParameterKind,
    /// Whether the query needs it.
    pub required: bool,
    /// The value used when it is not given, if any.
    pub default: Option<&'static str>,
    /// One line of help.
    pub help: &'static str,
}

/// The type of a parameter's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParameterKind {
    /// Any text, bound as an `xsd:string` literal.
    Text,
    /// A `SessionID`, bound as the session's work-session IRI (the store's template).
    WorkSession,
    /// A non-negative integer: the number of rows (a `LIMIT`), or, bound to a variable,
    /// an `xsd:integer` such as a turn index.
    Count,
    /// An `xsd:dateTime` (a date alone means its midnight; no zone means UTC).
    DateTime,
    /// A class IRI: `<IRI>`, an absolute IRI, or `prefix:Name` with a prefix of
    /// [`PREFIXES`].
    Class,
}

impl ParameterKind {
    /// What a value must look like, for messages and help.
    pub fn expected(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::WorkSession => "a SessionID",
            Self::Count => "a non-negative integer",
            Self::DateTime => {
                "an xsd:dateTime such as 2026-01-31T09:30:00Z, or a date such as 2026-01-31"
            }
            Self::Class => {
                "a class IRI: <IRI>, an absolute IRI, or prefix:Name (ch:, ihi:, jido:, prov:…)"
            }
        }
    }
}

/// A parameter value, typed, for library calls; [`Argument::Raw`] is parsed by the
/// parameter's declared type (as the command line does).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Argument {
    /// For [`ParameterKind::Text`] and [`ParameterKind::WorkSession`].
    Text(String),
    /// For [`ParameterKind::Count`].
    Count(u64),
    /// For [`ParameterKind::DateTime`].
    DateTime(DateTime),
    /// For [`ParameterKind::Class`].
    Iri(NamedNode),
    /// Text to parse by the parameter's type.
    Raw(String),
}

/// Arguments for a canned query, by parameter name.
///
/// ```
/// use ihigraph::query::{Arguments, TOOL_USAGE};
/// let arguments = Arguments::new().text("session", "abc").text("tool", "ReadFile");
/// let query = TOOL_USAGE.bind(&arguments, &Default::default())?;
/// assert!(query.to_string().contains("\"ReadFile\""));
/// # Ok::<_, ihigraph::query::ParameterError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    pub(super) values: Vec<(String, Argument)>,
}

impl Arguments {
    /// No arguments.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an argument (a later one of the same name replaces it).
    pub fn with(mut self, name: impl Into<String>, value: Argument) -> Self {
        let name = name.into();
        self.values.retain(|(existing, _)| *existing != name);
        self.values.push((name, value));
        self
    }

    /// Adds a text argument.
    pub fn text(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.with(name, Argument::Text(value.into()))
    }

    /// Adds a count argument.
    pub fn count(self, name: impl Into<String>, value: u64) -> Self {
        self.with(name, Argument::Count(value))
    }

    /// Adds a date-time argument.
    pub fn date_time(self, name: impl Into<String>, value: DateTime) -> Self {
        self.with(name, Argument::DateTime(value))
    }

    /// Adds an IRI argument.
    pub fn iri(self, name: impl Into<String>, value: NamedNode) -> Self {
        self.with(name, Argument::Iri(value))
    }

    /// Adds an argument given as text, parsed by the parameter's type when bound.
    pub fn raw(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.with(name, Argument::Raw(value.into()))
    }

    pub(super) fn get(&self, name: &str) -> Option<&Argument> {
        self.values
            .iter()
            .find_map(|(existing, value)| (existing == name).then_some(value))
    }
}

/// A parameter error: the query cannot be run with these arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParameterError {
    /// No canned query has that name.
    #[error("no canned query {name:?} (`ihigraph queries` lists them)")]
    UnknownQuery {
        /// The name given.
        name: String,
    },
    /// The query has no parameter of that name.
    #[error("query {query} has no parameter {name:?}; its parameters: {known}")]
    UnknownParameter {
        /// The query.
        query: &'static str,
        /// The name given.
        name: String,
        /// The parameters it has.
        known: String,
    },
    /// A required parameter was not given.
    #[error("query {query} needs parameter {name} ({expected})")]
    MissingParameter {
        /// The query.
        query: &'static str,
        /// The parameter.
        name: &'static str,
        /// What it takes.
        expected: &'static str,
    },
    /// A value is not of the parameter's type.
    #[error("parameter {name} of query {query} expects {expected}, found {found:?}")]
    InvalidValue {
        /// The query.
        query: &'static str,
        /// The parameter.
        name: &'static str,
        /// What it takes.
        expected: &'static str,
        /// The value given.
        found: String,
    },
    /// The query text lacks its parameter row (a defect of the query file).
    #[error("query {query} has no VALUES row for its parameters")]
    NoParameterRow {
        /// The query.
        query: &'static str,
    },
}

impl fmt::Display for Argument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(text) | Self::Raw(text) => f.write_str(text),
            Self::Count(count) => write!(f, "{count}"),
            Self::DateTime(time) => write!(f, "{time}"),
            Self::Iri(iri) => write!(f, "{iri}"),
        }
    }
}

pub(crate) enum BoundValue {
    Term(GroundTerm),
    Count(u64),
}

impl BoundValue {
    pub(crate) fn into_term(self) -> Option<GroundTerm> {
        match self {
            Self::Term(term) => Some(term),
            // A count bound to a variable (not a LIMIT) is an xsd:integer.
            Self::Count(count) => Some(Literal::from(count).into()),
        }
    }
}

pub(super) fn date_time_term(time: DateTime) -> BoundValue {
    BoundValue::Term(Literal::new_typed_literal(time.to_string(), xsd::DATE_TIME).into())
}

/// An `xsd:dateTime`; a date alone is its midnight, and a time without a zone is UTC
/// (as every time ihigraph writes is), so that comparisons are always defined.
pub fn parse_date_time(text: &str) -> Option<DateTime> {
    let text = text.trim();
    let full = if text.len() == 10 {
        format!("{text}T00:00:00Z")
    } else {
        text.to_owned()
    };
    let time = DateTime::from_str(&full).ok()?;
    if time.timezone_offset().is_some() {
        Some(time)
    } else {
        DateTime::from_str(&format!("{full}Z")).ok()
    }
}

/// A class IRI as written by a person.
pub(super) fn parse_class(text: &str) -> Option<NamedNode> {
    let text = text.trim();
    if let Some(iri) = text
        .strip_prefix('<')
        .and_then(|rest| rest.strip_suffix('>'))
    {
        return NamedNode::new(iri).ok();
    }
    if let Some((prefix, local)) = text.split_once(':')
        && let Some((_, namespace)) = PREFIXES.iter().find(|(known, _)| *known == prefix)
    {
        return NamedNode::new(format!("{namespace}{local}")).ok();
    }
    NamedNode::new(text).ok()
}
