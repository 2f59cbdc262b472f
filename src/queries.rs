//! Canned SPARQL queries, embedded from `queries/*.rq`, and their parameters.
//!
//! Each query reads the session graphs with `GRAPH ?graph { ... }`, so it needs no union
//! default graph and runs unchanged on other SPARQL 1.1 servers. Its parameters are the
//! variables of one `VALUES` row at the top of its `WHERE` clause, all `UNDEF` in the
//! file (so the file runs as it is, unconstrained). Binding parameters puts RDF terms of
//! the declared type into that row of the parsed query: values never become query
//! text, so no value can change what a query means. `n`, where a query has it, sets
//! the query's `LIMIT` the same way.

use crate::iri::IriScheme;
use crate::store::PREFIXES;
use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNode};
use oxsdatatypes::DateTime;
use spargebra::algebra::GraphPattern;
use spargebra::term::GroundTerm;
use spargebra::{Query, SparqlParser};
use std::fmt;
use std::str::FromStr;

/// A canned query: its name, what it answers, its parameters and its SPARQL text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CannedQuery {
    /// The name, as in `queries/NAME.rq`.
    pub name: &'static str,
    /// One line: what one row is.
    pub summary: &'static str,
    /// Its parameters, in the order of the `VALUES` row (`n` last, if present).
    pub parameters: &'static [Parameter],
    /// The SPARQL text, header comment included.
    pub sparql: &'static str,
}

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
    /// A non-negative integer: the number of rows.
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
/// use ihigraph::{Arguments, TOOL_USAGE};
/// let arguments = Arguments::new().text("session", "abc").text("tool", "ReadFile");
/// let query = TOOL_USAGE.bind(&arguments, &Default::default())?;
/// assert!(query.to_string().contains("\"ReadFile\""));
/// # Ok::<_, ihigraph::ParameterError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    values: Vec<(String, Argument)>,
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

    fn get(&self, name: &str) -> Option<&Argument> {
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

impl CannedQuery {
    /// The canned query of that name.
    pub fn named(name: &str) -> Result<&'static Self, ParameterError> {
        CANNED_QUERIES
            .iter()
            .find(|query| query.name == name)
            .ok_or_else(|| ParameterError::UnknownQuery {
                name: name.to_owned(),
            })
    }

    /// The parsed query with the arguments bound: terms in its `VALUES` row, `n` as
    /// its `LIMIT`. `scheme` turns a `SessionID` into its work-session IRI where a
    /// parameter is of kind [`ParameterKind::WorkSession`].
    pub fn bind(&self, arguments: &Arguments, scheme: &IriScheme) -> Result<Query, ParameterError> {
        for (name, _) in &arguments.values {
            if !self
                .parameters
                .iter()
                .any(|parameter| parameter.name == name)
            {
                return Err(ParameterError::UnknownParameter {
                    query: self.name,
                    name: name.clone(),
                    known: self
                        .parameters
                        .iter()
                        .map(|parameter| parameter.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        let mut row = Vec::new();
        let mut limit = None;
        for parameter in self.parameters {
            let value = match (arguments.get(parameter.name), parameter.default) {
                (Some(argument), _) => Some(self.value(parameter, argument, scheme)?),
                (None, Some(default)) => {
                    Some(self.value(parameter, &Argument::Raw(default.to_owned()), scheme)?)
                }
                (None, None) if parameter.required => {
                    return Err(ParameterError::MissingParameter {
                        query: self.name,
                        name: parameter.name,
                        expected: parameter.kind.expected(),
                    });
                }
                (None, None) => None,
            };
            match (parameter.variable, value) {
                (Some(variable), value) => {
                    row.push((variable, value.and_then(BoundValue::into_term)));
                }
                (None, Some(BoundValue::Count(count))) => limit = Some(count),
                (None, _) => {}
            }
        }
        let mut query = self.parse();
        let Query::Select { pattern, .. } = &mut query else {
            return Err(ParameterError::NoParameterRow { query: self.name });
        };
        if !row.is_empty() && !fill_values_row(pattern, &row) {
            return Err(ParameterError::NoParameterRow { query: self.name });
        }
        if let Some(limit) = limit {
            set_limit(pattern, usize::try_from(limit).unwrap_or(usize::MAX));
        }
        Ok(query)
    }

    /// The query as written in its file.
    fn parse(&self) -> Query {
        SparqlParser::new()
            .parse_query(self.sparql)
            .expect("canned queries parse (tested)")
    }

    fn value(
        &self,
        parameter: &Parameter,
        argument: &Argument,
        scheme: &IriScheme,
    ) -> Result<BoundValue, ParameterError> {
        let invalid = |found: String| ParameterError::InvalidValue {
            query: self.name,
            name: parameter.name,
            expected: parameter.kind.expected(),
            found,
        };
        Ok(match (parameter.kind, argument) {
            (ParameterKind::Text, Argument::Text(text) | Argument::Raw(text)) => {
                BoundValue::Term(Literal::new_simple_literal(text).into())
            }
            (ParameterKind::WorkSession, Argument::Text(id) | Argument::Raw(id)) => {
                BoundValue::Term(scheme.work_session(id).into())
            }
            (ParameterKind::Count, Argument::Count(count)) => BoundValue::Count(*count),
            (ParameterKind::Count, Argument::Raw(text)) => {
                BoundValue::Count(text.trim().parse().map_err(|_| invalid(text.clone()))?)
            }
            (ParameterKind::DateTime, Argument::DateTime(time)) => date_time_term(*time),
            (ParameterKind::DateTime, Argument::Raw(text)) => {
                date_time_term(parse_date_time(text).ok_or_else(|| invalid(text.clone()))?)
            }
            (ParameterKind::Class, Argument::Iri(iri)) => BoundValue::Term(iri.clone().into()),
            (ParameterKind::Class, Argument::Raw(text)) => BoundValue::Term(
                parse_class(text)
                    .ok_or_else(|| invalid(text.clone()))?
                    .into(),
            ),
            (_, other) => return Err(invalid(other.to_string())),
        })
    }
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

enum BoundValue {
    Term(GroundTerm),
    Count(u64),
}

impl BoundValue {
    fn into_term(self) -> Option<GroundTerm> {
        match self {
            Self::Term(term) => Some(term),
            Self::Count(_) => None,
        }
    }
}

fn date_time_term(time: DateTime) -> BoundValue {
    BoundValue::Term(Literal::new_typed_literal(time.to_string(), xsd::DATE_TIME).into())
}

/// An `xsd:dateTime`; a date alone is its midnight, and a time without a zone is UTC
/// (as every time ihigraph writes is), so that comparisons are always defined.
fn parse_date_time(text: &str) -> Option<DateTime> {
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
fn parse_class(text: &str) -> Option<NamedNode> {
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

/// Puts the values in the `VALUES` row whose variables are the parameters'; false if
/// the query has no such row.
fn fill_values_row(pattern: &mut GraphPattern, row: &[(&str, Option<GroundTerm>)]) -> bool {
    match pattern {
        GraphPattern::Values {
            variables,
            bindings,
        } if variables.len() == row.len()
            && variables
                .iter()
                .zip(row)
                .all(|(variable, (name, _))| variable.as_str() == *name) =>
        {
            *bindings = vec![row.iter().map(|(_, value)| value.clone()).collect()];
            true
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            fill_values_row(left, row) || fill_values_row(right, row)
        }
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. } => fill_values_row(inner, row),
        _ => false,
    }
}

/// Sets every `LIMIT` of the query to `limit` (a subquery's too: `recent-turns` picks
/// its turns in one), adding one to the query if it has none.
fn set_limit(pattern: &mut GraphPattern, limit: usize) {
    if !replace_limits(pattern, limit) {
        let inner = std::mem::replace(
            pattern,
            GraphPattern::Bgp {
                patterns: Vec::new(),
            },
        );
        *pattern = GraphPattern::Slice {
            inner: Box::new(inner),
            start: 0,
            length: Some(limit),
        };
    }
}

/// Sets the length of every `LIMIT` in the pattern; whether there was one.
fn replace_limits(pattern: &mut GraphPattern, limit: usize) -> bool {
    match pattern {
        GraphPattern::Slice { inner, length, .. } => {
            let found = length.is_some();
            if found {
                *length = Some(limit);
            }
            replace_limits(inner, limit) || found
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            // Both sides, not the first that has one.
            let on_left = replace_limits(left, limit);
            replace_limits(right, limit) || on_left
        }
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Group { inner, .. } => replace_limits(inner, limit),
        _ => false,
    }
}

const SESSION_REQUIRED: Parameter = Parameter {
    name: "session",
    variable: Some("session"),
    kind: ParameterKind::Text,
    required: true,
    default: None,
    help: "the SessionID",
};

const SESSION_OPTIONAL: Parameter = Parameter {
    required: false,
    help: "only this SessionID",
    ..SESSION_REQUIRED
};

const SINCE: Parameter = Parameter {
    name: "since",
    variable: Some("since"),
    kind: ParameterKind::DateTime,
    required: false,
    default: None,
    help: "only calls at or after this time",
};

const fn count(default: &'static str) -> Parameter {
    Parameter {
        name: "n",
        variable: None,
        kind: ParameterKind::Count,
        required: false,
        default: Some(default),
        help: "how many turns, newest first",
    }
}

const fn text(
    name: &'static str,
    variable: &'static str,
    required: bool,
    help: &'static str,
) -> Parameter {
    Parameter {
        name,
        variable: Some(variable),
        kind: ParameterKind::Text,
        required,
        default: None,
        help,
    }
}

/// `recent-turns`: the newest turns of a session, newest first, one row per turn.
pub const RECENT_TURNS: CannedQuery = CannedQuery {
    name: "recent-turns",
    summary: "the newest turns of a session, newest first: index, role, time, prompt and answer text",
    parameters: &[SESSION_REQUIRED, count("10")],
    sparql: include_str!("../queries/recent-turns.rq"),
};

/// `tool-usage`: tool invocations, newest first, one row per invocation.
pub const TOOL_USAGE: CannedQuery = CannedQuery {
    name: "tool-usage",
    summary: "tool invocations, newest first: session, turn, tool, parameters, result, error flag, time",
    parameters: &[
        text("tool", "tool", false, "only this tool name"),
        SESSION_OPTIONAL,
        SINCE,
        Parameter {
            name: "until",
            variable: Some("until"),
            help: "only calls at or before this time",
            ..SINCE
        },
    ],
    sparql: include_str!("../queries/tool-usage.rq"),
};

/// `tool-stats`: per tool, calls, failures, calls without result, sessions, first and
/// last use.
pub const TOOL_STATS: CannedQuery = CannedQuery {
    name: "tool-stats",
    summary: "per tool: calls, failed calls, calls without result, sessions using it, first and last use",
    parameters: &[SESSION_OPTIONAL, SINCE],
    sparql: include_str!("../queries/tool-stats.rq"),
};

/// `sessions`: the stored sessions.
pub const SESSIONS: CannedQuery = CannedQuery {
    name: "sessions",
    summary: "per session: id, M-Instance, U-Environment, start time, turn count, last turn time",
    parameters: &[
        text("m-instance", "mInstance", false, "only this M-Instance"),
        text(
            "u-environment",
            "uEnvironment",
            false,
            "only this U-Environment",
        ),
    ],
    sparql: include_str!("../queries/sessions.rq"),
};

/// `transcript`: a session's turns in order, with texts and tool calls.
pub const TRANSCRIPT: CannedQuery = CannedQuery {
    name: "transcript",
    summary: "a session's turns in order: index, role, time, prompt, answer, tool calls",
    parameters: &[SESSION_REQUIRED],
    sparql: include_str!("../queries/transcript.rq"),
};

/// `search`: turns whose prompt or answer text contains a text.
pub const SEARCH: CannedQuery = CannedQuery {
    name: "search",
    summary: "turns whose prompt or answer text contains a text, case-insensitively",
    parameters: &[
        text("text", "text", true, "the text to look for"),
        SESSION_OPTIONAL,
    ],
    sparql: include_str!("../queries/search.rq"),
};

/// `user-state`: a session's turns with a user entity state.
pub const USER_STATE: CannedQuery = CannedQuery {
    name: "user-state",
    summary: "a session's turns with a user entity state: index, time, state (JSON)",
    parameters: &[SESSION_REQUIRED],
    sparql: include_str!("../queries/user-state.rq"),
};

/// `instructions`: turns triggered by an AUC instruction.
pub const INSTRUCTIONS: CannedQuery = CannedQuery {
    name: "instructions",
    summary: "turns triggered by an AUC instruction: session, index, instruction name and JSON",
    parameters: &[
        SESSION_OPTIONAL,
        text(
            "instruction",
            "instruction",
            false,
            "only this instruction name",
        ),
    ],
    sparql: include_str!("../queries/instructions.rq"),
};

/// `roles`: per role, turns and sessions.
pub const ROLES: CannedQuery = CannedQuery {
    name: "roles",
    summary: "per role (A-User, H-User, BKN): turns and sessions",
    parameters: &[SESSION_OPTIONAL],
    sparql: include_str!("../queries/roles.rq"),
};

/// `memory-items`: the `jido:MemoryItem`s with their most specific class.
pub const MEMORY_ITEMS: CannedQuery = CannedQuery {
    name: "memory-items",
    summary: "jido:MemoryItem nodes: IRI, most specific class, session",
    parameters: &[
        SESSION_OPTIONAL,
        Parameter {
            name: "class",
            variable: Some("class"),
            kind: ParameterKind::Class,
            required: false,
            default: None,
            help: "only items of this most specific class",
        },
    ],
    sparql: include_str!("../queries/memory-items.rq"),
};

/// `design-recent-turns`: Query 1 of the ontology design, parameterised and fixed to
/// give one row per turn.
pub const DESIGN_RECENT_TURNS: CannedQuery = CannedQuery {
    name: "design-recent-turns",
    summary: "the ontology design's Query 1 (last turns of a work session), one row per turn",
    parameters: &[
        Parameter {
            name: "session",
            variable: Some("workSession"),
            kind: ParameterKind::WorkSession,
            required: true,
            default: None,
            help: "the SessionID (bound as its work-session IRI, jido:session_abc for abc)",
        },
        count("3"),
    ],
    sparql: include_str!("../queries/design-recent-turns.rq"),
};

/// `design-tool-invocations`: Query 2 of the ontology design, parameterised.
pub const DESIGN_TOOL_INVOCATIONS: CannedQuery = CannedQuery {
    name: "design-tool-invocations",
    summary: "the ontology design's Query 2 (invocations of one tool in a work session)",
    parameters: &[
        Parameter {
            name: "session",
            variable: Some("workSession"),
            kind: ParameterKind::WorkSession,
            required: true,
            default: None,
            help: "the SessionID (bound as its work-session IRI, jido:session_abc for abc)",
        },
        text(
            "tool",
            "toolName",
            true,
            "the tool name (ReadFile in the design)",
        ),
    ],
    sparql: include_str!("../queries/design-tool-invocations.rq"),
};

/// Every canned query, in the order `ihigraph queries` lists them.
pub const CANNED_QUERIES: &[CannedQuery] = &[
    RECENT_TURNS,
    TOOL_USAGE,
    TOOL_STATS,
    SESSIONS,
    TRANSCRIPT,
    SEARCH,
    USER_STATE,
    INSTRUCTIONS,
    ROLES,
    MEMORY_ITEMS,
    DESIGN_RECENT_TURNS,
    DESIGN_TOOL_INVOCATIONS,
];
