//! Canned SPARQL queries, embedded from `queries/*.rq`, and their parameters.
//!
//! Each query reads the session graphs with `GRAPH ?graph { ... }`, so it needs no union
//! default graph and runs unchanged on other SPARQL 1.1 servers. Its parameters are the
//! variables of one `VALUES` row at the top of its `WHERE` clause, all `UNDEF` in the
//! file (so the file runs as it is, unconstrained). Binding parameters puts RDF terms of
//! the declared type into that row of the parsed query: values never become query
//! text, so no value can change what a query means. `n`, where a query has it, sets
//! the query's `LIMIT` the same way.

use super::parameters::{BoundValue, date_time_term, parse_class, parse_date_time};
use super::patterns::{fill_values_row, set_limit, set_named_graphs};
use super::{Argument, Arguments, Parameter, ParameterError, ParameterKind};
use crate::rdf::IriScheme;
use oxrdf::Literal;
use spargebra::term::GroundTerm;
use spargebra::{Query, SparqlParser};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

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
    /// What the query reads when it is given a `session`.
    pub scope: SessionScope,
    /// Whether it reads what the ontologies entail (`ihigraph reasoning on`): it then
    /// runs over the sessions with their entailments, and on a store that does not
    /// reason it is refused, saying so.
    pub inferred: bool,
}

/// What a canned query reads when it is given a `session`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionScope {
    /// The whole store, as written: its patterns find the session's graph.
    Store,
    /// That session's graph alone (the query's `FROM NAMED`), where its sub-`SELECT`s
    /// read each property with one scan of the graph instead of the whole store.
    Graph,
    /// That session's graph alone, through this other text of the same query (from
    /// `queries/one-session/`): the same rows, each property read with one scan of the
    /// graph and joined by hash. The text for the whole store looks each property up
    /// row by row instead, which is cheaper across the store and dearer within one graph.
    GraphAs(&'static str),
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
    /// parameter is of kind [`ParameterKind::WorkSession`], and into its graph for the
    /// `FROM NAMED` of a query that reads that session's graph alone (its
    /// [`scope`](Self::scope)).
    pub fn bind(&self, arguments: &Arguments, scheme: &IriScheme) -> Result<Query, ParameterError> {
        let mut row = Vec::new();
        let mut limit = None;
        for (parameter, value) in self.parameters.iter().zip(self.values(arguments, scheme)?) {
            match (parameter.variable, value) {
                (Some(variable), value) => {
                    row.push((variable, value.and_then(BoundValue::into_term)));
                }
                (None, Some(BoundValue::Count(count))) => limit = Some(count),
                (None, _) => {}
            }
        }
        let session = match arguments.get("session") {
            Some(Argument::Text(session) | Argument::Raw(session)) => Some(session),
            _ => None,
        };
        let text = match (self.scope, session) {
            (SessionScope::GraphAs(text), Some(_)) => text,
            _ => self.sparql,
        };
        let mut query = parse(text);
        let Query::Select { pattern, .. } = &mut query else {
            return Err(ParameterError::NoParameterRow { query: self.name });
        };
        if !row.is_empty() && !fill_values_row(pattern, &row) {
            return Err(ParameterError::NoParameterRow { query: self.name });
        }
        if let Some(limit) = limit {
            set_limit(pattern, usize::try_from(limit).unwrap_or(usize::MAX));
        }
        if self.scope != SessionScope::Store
            && let Some(session) = session
        {
            set_named_graphs(&mut query, vec![scheme.session_graph(session)]);
        }
        Ok(query)
    }

    /// Each parameter's value, in the order of [`parameters`](Self::parameters): the
    /// argument given, else the default, else none; an error for an argument the query
    /// does not take, one that does not fit, or a required one missing.
    pub(crate) fn values(
        &self,
        arguments: &Arguments,
        scheme: &IriScheme,
    ) -> Result<Vec<Option<BoundValue>>, ParameterError> {
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
        self.parameters
            .iter()
            .map(
                |parameter| match (arguments.get(parameter.name), parameter.default) {
                    (Some(argument), _) => Ok(Some(self.value(parameter, argument, scheme)?)),
                    (None, Some(default)) => Ok(Some(self.value(
                        parameter,
                        &Argument::Raw(default.to_owned()),
                        scheme,
                    )?)),
                    (None, None) if parameter.required => Err(ParameterError::MissingParameter {
                        query: self.name,
                        name: parameter.name,
                        expected: parameter.kind.expected(),
                    }),
                    (None, None) => Ok(None),
                },
            )
            .collect()
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

const UNTIL: Parameter = Parameter {
    name: "until",
    variable: Some("until"),
    help: "only calls before this time",
    ..SINCE
};

/// The time window of the report's queries: turns at or after `since`, before `until`.
const TURNS_SINCE: Parameter = Parameter {
    help: "only turns at or after this time",
    ..SINCE
};

const TURNS_UNTIL: Parameter = Parameter {
    help: "only turns before this time",
    ..UNTIL
};

const CALLS_SINCE: Parameter = Parameter {
    help: "only calls whose turn is at or after this time",
    ..SINCE
};

const CALLS_UNTIL: Parameter = Parameter {
    help: "only calls whose turn is before this time",
    ..UNTIL
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

/// A canned query's text as written in its file, parsed once per process: a parse
/// takes about 35 µs, a copy of the parsed query a few.
fn parse(text: &'static str) -> Query {
    type Parsed = HashMap<(usize, usize), Query>;
    static PARSED: LazyLock<Mutex<Parsed>> = LazyLock::new(Mutex::default);
    // The text's place and length: a `&'static str` names its text.
    let key = (text.as_ptr() as usize, text.len());
    let mut parsed = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    parsed
        .entry(key)
        .or_insert_with(|| {
            SparqlParser::new()
                .parse_query(text)
                .expect("canned queries parse (tested)")
        })
        .clone()
}

/// `recent-turns`: the newest turns of a session, newest first, one row per turn.
pub const RECENT_TURNS: CannedQuery = CannedQuery {
    name: "recent-turns",
    summary: "the newest turns of a session, newest first: index, role, time, prompt and answer text, whether it awaits its response",
    parameters: &[SESSION_REQUIRED, count("10")],
    sparql: include_str!("../../queries/recent-turns.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// The columns of [`RECENT_TURNS`], in order.
pub(crate) const RECENT_TURNS_COLUMNS: [&str; 6] = [
    "turnIndex",
    "role",
    "time",
    "promptText",
    "answerText",
    "awaiting",
];

/// The `session` and `n` of a call of [`RECENT_TURNS`], checked as
/// [`CannedQuery::bind`] checks them.
pub(crate) fn recent_turns_arguments(
    arguments: &Arguments,
    scheme: &IriScheme,
) -> Result<(String, u64), ParameterError> {
    match RECENT_TURNS.values(arguments, scheme)?.as_slice() {
        [
            Some(BoundValue::Term(GroundTerm::Literal(session))),
            Some(BoundValue::Count(n)),
        ] => Ok((session.value().to_owned(), *n)),
        _ => unreachable!("recent-turns takes a required text and a count with a default"),
    }
}

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
    sparql: include_str!("../../queries/tool-usage.rq"),
    scope: SessionScope::GraphAs(include_str!("../../queries/one-session/tool-usage.rq")),
    inferred: false,
};

/// `tool-stats`: per tool, calls, failures, calls without result, sessions, first and
/// last use.
pub const TOOL_STATS: CannedQuery = CannedQuery {
    name: "tool-stats",
    summary: "per tool: calls, failed calls, calls without result, sessions using it, first and last use",
    parameters: &[SESSION_OPTIONAL, SINCE, UNTIL],
    sparql: include_str!("../../queries/tool-stats.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `sessions`: the stored sessions.
pub const SESSIONS: CannedQuery = CannedQuery {
    name: "sessions",
    summary: "per session: id, M-Instance, U-Environment, start time, turn count, last turn time; for a branch, the session and turn it forked from",
    parameters: &[
        text("m-instance", "mInstance", false, "only this M-Instance"),
        text(
            "u-environment",
            "uEnvironment",
            false,
            "only this U-Environment",
        ),
    ],
    sparql: include_str!("../../queries/sessions.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `transcript`: a session's turns in order, with texts and tool calls.
pub const TRANSCRIPT: CannedQuery = CannedQuery {
    name: "transcript",
    summary: "a session's turns in order: index, role, time, prompt, answer, tool calls",
    parameters: &[SESSION_REQUIRED],
    sparql: include_str!("../../queries/transcript.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `payloads`: a session's turns in order, with their payloads as stored.
pub const PAYLOADS: CannedQuery = CannedQuery {
    name: "payloads",
    summary: "a session's turns in order: index, prompt and response payloads (JSON text)",
    parameters: &[SESSION_REQUIRED],
    sparql: include_str!("../../queries/payloads.rq"),
    scope: SessionScope::Graph,
    inferred: false,
};

/// `newest-payloads`: a session's newest turns with their payloads as stored.
pub const NEWEST_PAYLOADS: CannedQuery = CannedQuery {
    name: "newest-payloads",
    summary: "a session's newest turns (and its first) in order: index, payloads, turn counts",
    parameters: &[
        SESSION_REQUIRED,
        Parameter {
            name: "until",
            variable: Some("until"),
            kind: ParameterKind::Count,
            required: false,
            default: None,
            help: "only the turns up to this turn index",
        },
        count("32"),
    ],
    sparql: include_str!("../../queries/newest-payloads.rq"),
    scope: SessionScope::Graph,
    inferred: false,
};

/// `turn-places`: where a session's turns sit in its document.
pub const TURN_PLACES: CannedQuery = CannedQuery {
    name: "turn-places",
    summary: "a session's turns in order: index and IRI (ending in the turn's place in the document)",
    parameters: &[SESSION_REQUIRED],
    sparql: include_str!("../../queries/turn-places.rq"),
    scope: SessionScope::Graph,
    inferred: false,
};

/// `search`: turns whose prompt or answer matches a search, best first, from the
/// full-text index; on a store without one, [`SEARCH_SCAN`] is run in its place.
pub const SEARCH: CannedQuery = CannedQuery {
    name: "search",
    summary: "turns whose prompt or answer matches a search, best first (the full-text index; a text scan on a server)",
    parameters: SEARCH_PARAMETERS,
    sparql: include_str!("../../queries/search.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// [`SEARCH`] where the store has no full-text index: the same parameters, and the same
/// columns but `score`, by a case-insensitive substring scan of the texts, unranked.
pub const SEARCH_SCAN: CannedQuery = CannedQuery {
    name: "search",
    summary: "turns whose prompt or answer text contains a text, case-insensitively",
    parameters: SEARCH_PARAMETERS,
    sparql: include_str!("../../queries/scan/search.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

const SEARCH_PARAMETERS: &[Parameter] = &[
    text(
        "text",
        "text",
        true,
        "the search (words, \"a phrase\", prefix*, OR, -word)",
    ),
    SESSION_OPTIONAL,
    Parameter {
        help: "how many turns, best first",
        ..count("20")
    },
];

/// `user-state`: a session's turns with a user entity state.
pub const USER_STATE: CannedQuery = CannedQuery {
    name: "user-state",
    summary: "a session's turns with a user entity state: index, time, state (JSON)",
    parameters: &[SESSION_REQUIRED],
    sparql: include_str!("../../queries/user-state.rq"),
    scope: SessionScope::Store,
    inferred: false,
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
    sparql: include_str!("../../queries/instructions.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `roles`: per role, turns and sessions.
pub const ROLES: CannedQuery = CannedQuery {
    name: "roles",
    summary: "per role (A-User, H-User, BKN): turns and sessions",
    parameters: &[SESSION_OPTIONAL],
    sparql: include_str!("../../queries/roles.rq"),
    scope: SessionScope::Store,
    inferred: false,
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
    sparql: include_str!("../../queries/memory-items.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `memories`: the memory items `remember` made, with the turns they came from.
pub const MEMORIES: CannedQuery = CannedQuery {
    name: "memories",
    summary: "memory items made by remember: id, kind, text, session, turn, times",
    parameters: &[
        Parameter {
            name: "session",
            variable: Some("workSession"),
            kind: ParameterKind::WorkSession,
            required: false,
            default: None,
            help: "only items derived from this SessionID (bound as its work-session IRI)",
        },
        Parameter {
            name: "kind",
            variable: Some("class"),
            kind: ParameterKind::Class,
            required: false,
            default: None,
            help: "only items of this class (jido:Fact, jido:Decision, jido:LessonLearned, or jcore: twins)",
        },
        Parameter {
            name: "at",
            variable: Some("at"),
            kind: ParameterKind::DateTime,
            required: false,
            default: None,
            help: "only items that hold at this time",
        },
    ],
    sparql: include_str!("../../queries/memories.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `keyed-items`: the memory items kept under a namespace and a key
/// ([`crate::memory::put_item`]), with the turns they came from.
pub const KEYED_ITEMS: CannedQuery = CannedQuery {
    name: "keyed-items",
    summary: "memory items kept under a namespace and a key: namespace, key, value, times, source turn",
    parameters: &[Parameter {
        name: "at",
        variable: Some("at"),
        kind: ParameterKind::DateTime,
        required: false,
        default: None,
        help: "only items not expired at this time",
    }],
    sparql: include_str!("../../queries/keyed-items.rq"),
    scope: SessionScope::Store,
    inferred: false,
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
    sparql: include_str!("../../queries/design-recent-turns.rq"),
    scope: SessionScope::Store,
    inferred: false,
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
    sparql: include_str!("../../queries/design-tool-invocations.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `report-activity`: per session, period and role, the turns, tool calls, failures, and
/// first and last turn, and a row for each session without turns: the report's totals,
/// activity and roles over time and session figures are sums of its rows.
pub const REPORT_ACTIVITY: CannedQuery = CannedQuery {
    name: "report-activity",
    summary: "per session, period (UTC; a day unless width says otherwise) and role: turns, tool calls, failed tool calls, first and last turn",
    parameters: &[
        TURNS_SINCE,
        TURNS_UNTIL,
        Parameter {
            name: "width",
            variable: Some("width"),
            kind: ParameterKind::Count,
            required: false,
            default: Some("10"),
            help: "characters of a turn's UTC time that name its period: 16 a minute, 13 an hour, 10 a day, 7 a month, 4 a year",
        },
    ],
    sparql: include_str!("../../queries/report-activity.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `report-span`: the first and last time of the turns, from which the report takes the
/// unit of its time charts.
pub const REPORT_SPAN: CannedQuery = CannedQuery {
    name: "report-span",
    summary: "the first and last absolute time of the turns, and how many turns have one",
    parameters: &[TURNS_SINCE, TURNS_UNTIL],
    sparql: include_str!("../../queries/report-span.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `report-tools`: per tool over the store, calls, failures, calls without result,
/// sessions, first and last use.
pub const REPORT_TOOLS: CannedQuery = CannedQuery {
    name: "report-tools",
    summary: "per tool over the store: calls, failed calls, calls without result, sessions, first and last use",
    parameters: &[CALLS_SINCE, CALLS_UNTIL],
    sparql: include_str!("../../queries/report-tools.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `report-turn-times`: per turn, its session, index and time.
pub const REPORT_TURN_TIMES: CannedQuery = CannedQuery {
    name: "report-turn-times",
    summary: "per turn with an absolute time: session, turn index, time (by session and index)",
    parameters: &[TURNS_SINCE, TURNS_UNTIL],
    sparql: include_str!("../../queries/report-turn-times.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `report-failing-arguments`: the tool-call arguments that fail most often.
pub const REPORT_FAILING_ARGUMENTS: CannedQuery = CannedQuery {
    name: "report-failing-arguments",
    summary: "per tool and arguments text with failures: failures, calls, sessions; most failures first",
    parameters: &[
        CALLS_SINCE,
        CALLS_UNTIL,
        Parameter {
            help: "how many rows",
            ..count("10")
        },
    ],
    sparql: include_str!("../../queries/report-failing-arguments.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `report-memory`: how many memory items were made from the sessions.
pub const REPORT_MEMORY: CannedQuery = CannedQuery {
    name: "report-memory",
    summary: "one row: memory items made from the sessions' turns, and the sessions they came from",
    parameters: &[
        Parameter {
            help: "only items made at or after this time",
            ..SINCE
        },
        Parameter {
            help: "only items made before this time",
            ..UNTIL
        },
    ],
    sparql: include_str!("../../queries/report-memory.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `token-usage`: model calls by provider and model, with their tokens and latency.
pub const TOKEN_USAGE: CannedQuery = CannedQuery {
    name: "token-usage",
    summary: "model calls by provider and model, most tokens first: calls, sessions, input and output tokens, mean and max latency (from OpenTelemetry spans)",
    parameters: &[SESSION_OPTIONAL, SINCE, UNTIL],
    sparql: include_str!("../../queries/token-usage.rq"),
    scope: SessionScope::Graph,
    inferred: false,
};

/// `slow-calls`: model calls and tool runs, slowest first.
pub const SLOW_CALLS: CannedQuery = CannedQuery {
    name: "slow-calls",
    summary: "model calls and tool runs, slowest first: kind, session, turn, model or tool, latency, start, status, span id (from OpenTelemetry spans)",
    parameters: &[
        SESSION_OPTIONAL,
        Parameter {
            help: "only calls whose span started at or after this time",
            ..SINCE
        },
        Parameter {
            help: "only calls whose span started before this time",
            ..UNTIL
        },
        Parameter {
            help: "how many calls, slowest first",
            ..count("20")
        },
    ],
    sparql: include_str!("../../queries/slow-calls.rq"),
    scope: SessionScope::Graph,
    inferred: false,
};

/// `tool-latency`: tool runs by tool, with the latency of their spans.
pub const TOOL_LATENCY: CannedQuery = CannedQuery {
    name: "tool-latency",
    summary: "tool runs by tool, slowest on average first: runs, failed runs, sessions, mean, max and total latency (from OpenTelemetry spans)",
    parameters: &[
        SESSION_OPTIONAL,
        Parameter {
            help: "only runs whose span started at or after this time",
            ..SINCE
        },
        Parameter {
            help: "only runs whose span started before this time",
            ..UNTIL
        },
    ],
    sparql: include_str!("../../queries/tool-latency.rq"),
    scope: SessionScope::Graph,
    inferred: false,
};

/// `trace-sessions`: the sessions holding the spans of an OpenTelemetry trace.
pub const TRACE_SESSIONS: CannedQuery = CannedQuery {
    name: "trace-sessions",
    summary: "the sessions holding spans of an OpenTelemetry trace: session, turns keeping its spans, first such turn",
    parameters: &[text(
        "trace",
        "trace",
        true,
        "the trace id, 32 lower-case hex digits",
    )],
    sparql: include_str!("../../queries/trace-sessions.rq"),
    scope: SessionScope::Store,
    inferred: false,
};

/// `tools-by-session`: the tools each session used (inferred, by the property chain
/// `ihi:usedTool`).
pub const TOOLS_BY_SESSION: CannedQuery = CannedQuery {
    name: "tools-by-session",
    summary: "per session and tool it used: session, agent (M-Instance), tool (needs reasoning on)",
    parameters: &[
        SESSION_OPTIONAL,
        text("agent", "agent", false, "only sessions of this M-Instance"),
        text("tool", "tool", false, "only this tool name"),
        Parameter {
            help: "only tools a turn at or after this time invoked",
            ..SINCE
        },
        Parameter {
            help: "only tools a turn before this time invoked",
            ..UNTIL
        },
    ],
    sparql: include_str!("../../queries/tools-by-session.rq"),
    scope: SessionScope::Store,
    inferred: true,
};

/// `sessions-by-agent`: per PROV agent of the sessions' turns, sessions and turns
/// (inferred).
pub const SESSIONS_BY_AGENT: CannedQuery = CannedQuery {
    name: "sessions-by-agent",
    summary: "per PROV agent (A-User, H-User, BKN): its kind, sessions and turns (needs reasoning on)",
    parameters: &[SESSION_OPTIONAL],
    sparql: include_str!("../../queries/sessions-by-agent.rq"),
    scope: SessionScope::Store,
    inferred: true,
};

/// `unanswered-turns`: the turns that generated nothing (inferred).
pub const UNANSWERED_TURNS: CannedQuery = CannedQuery {
    name: "unanswered-turns",
    summary: "turns that generated no answer: session, turn, role, whether it awaits its response (needs reasoning on)",
    parameters: &[SESSION_OPTIONAL, TURNS_SINCE, TURNS_UNTIL],
    sparql: include_str!("../../queries/unanswered-turns.rq"),
    scope: SessionScope::Store,
    inferred: true,
};

/// Every canned query, in the order `ihigraph queries` lists them.
pub const CANNED_QUERIES: &[CannedQuery] = &[
    RECENT_TURNS,
    TOOL_USAGE,
    TOOL_STATS,
    SESSIONS,
    TRANSCRIPT,
    PAYLOADS,
    NEWEST_PAYLOADS,
    TURN_PLACES,
    SEARCH,
    USER_STATE,
    INSTRUCTIONS,
    ROLES,
    MEMORY_ITEMS,
    MEMORIES,
    KEYED_ITEMS,
    DESIGN_RECENT_TURNS,
    DESIGN_TOOL_INVOCATIONS,
    REPORT_ACTIVITY,
    REPORT_SPAN,
    REPORT_TOOLS,
    REPORT_TURN_TIMES,
    REPORT_FAILING_ARGUMENTS,
    REPORT_MEMORY,
    TOKEN_USAGE,
    TOOL_LATENCY,
    SLOW_CALLS,
    TRACE_SESSIONS,
    TOOLS_BY_SESSION,
    SESSIONS_BY_AGENT,
    UNANSWERED_TURNS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_binding_starts_from_the_query_as_written() {
        let scheme = IriScheme::default();
        let session = |id: &str| {
            RECENT_TURNS
                .bind(&Arguments::new().text("session", id), &scheme)
                .unwrap()
                .to_string()
        };
        let (first, second) = (session("first-session"), session("second-session"));
        assert!(first.contains("\"first-session\""), "{first}");
        assert!(second.contains("\"second-session\""), "{second}");
        assert!(!second.contains("first-session"), "{second}");
        let unbound = RECENT_TURNS.bind(&Arguments::new(), &scheme);
        assert!(unbound.is_err(), "session is required");
        // A value bound once is not in the next binding, nor its dataset.
        let narrowed = Arguments::new().text("session", "first-session");
        let first = TOOL_USAGE.bind(&narrowed, &scheme).unwrap().to_string();
        assert!(first.contains("\"first-session\""), "{first}");
        let whole = TOOL_USAGE
            .bind(&Arguments::new(), &scheme)
            .unwrap()
            .to_string();
        assert!(!whole.contains("first-session"), "{whole}");
        let one = PAYLOADS.bind(&narrowed, &scheme).unwrap().to_string();
        assert!(one.contains("FROM NAMED"), "{one}");
        let other = Arguments::new().text("session", "second-session");
        let two = PAYLOADS.bind(&other, &scheme).unwrap().to_string();
        assert!(!two.contains("first-session"), "{two}");
    }
}
