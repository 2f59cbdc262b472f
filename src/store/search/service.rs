//! The full-text index inside SPARQL: `SERVICE text:search { ... }`, in the style of
//! Jena's `text:query`. Oxigraph has no property functions, but it lets a store answer a
//! `SERVICE` of its own naming; the pattern inside says the search and which of each
//! hit's values to bind:
//!
//! ```sparql
//! PREFIX text: <https://w3id.org/ihigraph/text#>
//! SELECT ?turn ?score WHERE {
//!   SERVICE text:search { [] text:query "deploy*" ; text:kind "prompt" ; text:turn ?turn ; text:score ?score }
//! }
//! ```
//!
//! A literal object says the search (`query`, required) or narrows it (`session`, `role`,
//! `kind`, `since`, `until`, `limit`); a variable object is bound from each hit
//! (`session`, `role`, `kind`, `turn`, `turnIndex`, `time`, `score`, `snippet`,
//! `language`). The turn is the graph's own IRI, so the rest of the query joins the hits
//! with the sessions. The service is evaluated apart from the bindings around it (as
//! every SPARQL `SERVICE`): a search's words are written in the pattern.
//!
//! These terms name nothing in the data: they live in their own namespace, here only.

use super::SearchIndex;
use super::documents::SearchKind;
use super::query::{MAX_HITS, SearchHit, SearchRequest};
use crate::query::sub_patterns;
use crate::store::StoreError;
use oxigraph::sparql::{QueryEvaluationError, QuerySolutionIter, ServiceHandler, Variable};
use oxiri::Iri;
use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNode, Term};
use spargebra::Query;
use spargebra::algebra::GraphPattern;
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use std::str::FromStr;
use std::sync::Arc;

/// The namespace of the search service and of the terms of its pattern.
pub const TEXT_NAMESPACE: &str = "https://w3id.org/ihigraph/text#";

/// The service's name: `text:search`.
pub const SEARCH_SERVICE: &str = "https://w3id.org/ihigraph/text#search";

/// A row of values per hit, in the order of the pattern's variables.
type Rows = Vec<Vec<Option<Term>>>;

/// How many hits a pattern without `text:limit` gives.
const DEFAULT_LIMIT: usize = 100;

/// What a `SERVICE text:search` is answered with: the store's index, if it has one.
#[derive(Debug, Clone)]
pub struct SearchService {
    index: Option<Arc<SearchIndex>>,
    location: String,
}

impl SearchService {
    /// The service of a store whose index is `index` (none: every search is refused, and
    /// says why), at `location`.
    pub fn new(index: Option<Arc<SearchIndex>>, location: String) -> Self {
        Self { index, location }
    }

    /// The service's name, as a node.
    pub fn name() -> NamedNode {
        NamedNode::new_unchecked(SEARCH_SERVICE)
    }
}

impl SearchService {
    /// The search a service pattern says: its variables, and a row of their values per
    /// hit, best first.
    fn rows(&self, pattern: &GraphPattern) -> Result<(Vec<Variable>, Rows), StoreError> {
        let asked = SearchPattern::read(pattern)?;
        let Some(index) = &self.index else {
            return Err(StoreError::NoSearchIndex {
                location: self.location.clone(),
            });
        };
        let hits = index.search(&asked.request)?;
        let variables = asked
            .outputs
            .iter()
            .map(|(_, variable)| variable.clone())
            .collect();
        let rows = hits
            .iter()
            .map(|hit| {
                asked
                    .outputs
                    .iter()
                    .map(|(column, _)| column.value(hit))
                    .collect()
            })
            .collect();
        Ok((variables, rows))
    }

    /// Runs every `SERVICE text:search` of `query` (outside `EXISTS`) before the query,
    /// and puts its hits in its place as a `VALUES` block. The same answer, since a
    /// service is evaluated apart from the bindings around it; but Oxigraph's planner,
    /// which knows nothing of a service's size, now sees a handful of rows and starts its
    /// joins from them, where it would otherwise read every turn of the store and join
    /// the hits last.
    ///
    /// # Errors
    ///
    /// A search refused (see [`SearchPattern::read`]), or the index failing, unless the
    /// service is `SILENT` (then it gives one empty solution, as SPARQL says).
    pub fn inline(&self, query: &mut Query) -> Result<(), StoreError> {
        match query {
            Query::Select { pattern, .. }
            | Query::Construct { pattern, .. }
            | Query::Describe { pattern, .. }
            | Query::Ask { pattern, .. } => self.inline_in(pattern),
        }
    }

    fn inline_in(&self, pattern: &mut GraphPattern) -> Result<(), StoreError> {
        match pattern {
            GraphPattern::Service {
                name: NamedNodePattern::NamedNode(name),
                inner,
                silent,
            } if name.as_str() == SEARCH_SERVICE => {
                *pattern = match self.rows(inner) {
                    Ok((variables, rows)) => as_values(&variables, rows),
                    Err(_) if *silent => GraphPattern::Bgp {
                        patterns: Vec::new(),
                    },
                    Err(error) => return Err(error),
                };
                Ok(())
            }
            // What else a SERVICE holds is evaluated by its handler, as it comes.
            other => sub_patterns(other)
                .into_iter()
                .try_for_each(|child| self.inline_in(child)),
        }
    }
}

/// The hits as a `VALUES` block (a variable named twice in the pattern: the first
/// column of that name).
fn as_values(variables: &[Variable], rows: Rows) -> GraphPattern {
    let mut kept: Vec<usize> = Vec::new();
    for (at, variable) in variables.iter().enumerate() {
        if !kept.iter().any(|&known| variables[known] == *variable) {
            kept.push(at);
        }
    }
    GraphPattern::Values {
        variables: kept.iter().map(|&at| variables[at].clone()).collect(),
        bindings: rows
            .into_iter()
            .map(|row| {
                kept.iter()
                    .map(|&at| match row.get(at).cloned().flatten()? {
                        Term::NamedNode(node) => Some(GroundTerm::NamedNode(node)),
                        Term::Literal(literal) => Some(GroundTerm::Literal(literal)),
                        _ => None,
                    })
                    .collect()
            })
            .collect(),
    }
}

impl ServiceHandler for SearchService {
    type Error = StoreError;

    fn handle(
        &self,
        pattern: &GraphPattern,
        _base_iri: Option<&Iri<String>>,
    ) -> Result<QuerySolutionIter<'static>, StoreError> {
        let (variables, rows) = self.rows(pattern)?;
        Ok(QuerySolutionIter::from_tuples(
            Arc::from(variables),
            rows.into_iter().map(Ok::<_, QueryEvaluationError>),
        ))
    }
}

/// One value of a hit that a pattern may bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitColumn {
    /// The `SessionID` (a plain literal).
    Session,
    /// The turn's `TurnIndex` (`xsd:integer`).
    TurnIndex,
    /// The turn's IRI, as in the graph.
    Turn,
    /// The turn's role (`H-User`, `A-User`, `BKN`).
    Role,
    /// The turn's time (`xsd:dateTime`).
    Time,
    /// What matched (`prompt`, `answer`, `call`, `result`, `memory`).
    Kind,
    /// The BM25 score (`xsd:double`, three decimals).
    Score,
    /// The text around the match, each matched word as `**word**`.
    Snippet,
    /// The language the text was analyzed in.
    Language,
}

impl HitColumn {
    /// Every column, in the order of the rows of `ihigraph search`.
    pub const ALL: [HitColumn; 9] = [
        HitColumn::Session,
        HitColumn::TurnIndex,
        HitColumn::Turn,
        HitColumn::Role,
        HitColumn::Time,
        HitColumn::Kind,
        HitColumn::Score,
        HitColumn::Snippet,
        HitColumn::Language,
    ];

    /// The column's name: its variable in `ihigraph search`'s rows, and its term's
    /// local name in the service's namespace.
    pub const fn name(self) -> &'static str {
        match self {
            HitColumn::Session => "session",
            HitColumn::TurnIndex => "turnIndex",
            HitColumn::Turn => "turn",
            HitColumn::Role => "role",
            HitColumn::Time => "time",
            HitColumn::Kind => "kind",
            HitColumn::Score => "score",
            HitColumn::Snippet => "snippet",
            HitColumn::Language => "language",
        }
    }

    /// The hit's value in this column, as an RDF term.
    pub fn value(self, hit: &SearchHit) -> Option<Term> {
        match self {
            HitColumn::Session => Some(Literal::new_simple_literal(&hit.session_id).into()),
            HitColumn::TurnIndex => hit.turn_index.map(|index| Literal::from(index).into()),
            HitColumn::Turn => hit
                .turn
                .as_ref()
                .map(|turn| NamedNode::new_unchecked(turn.as_str()).into()),
            HitColumn::Role => hit
                .role
                .as_ref()
                .map(|role| Literal::new_simple_literal(role).into()),
            HitColumn::Time => hit
                .time
                .as_ref()
                .map(|time| Literal::new_typed_literal(time, xsd::DATE_TIME).into()),
            HitColumn::Kind => Some(Literal::new_simple_literal(hit.kind.name()).into()),
            // Three decimals: the ranking is what a score is for.
            HitColumn::Score => {
                Some(Literal::from((f64::from(hit.score) * 1000.0).round() / 1000.0).into())
            }
            HitColumn::Snippet => {
                Some(Literal::new_simple_literal(hit.snippet.marked("**", "**")).into())
            }
            HitColumn::Language => Some(Literal::new_simple_literal(&hit.language).into()),
        }
    }
}

/// A `SERVICE text:search` pattern, read: the search, and the hit's values to bind.
#[derive(Debug)]
struct SearchPattern {
    request: SearchRequest,
    outputs: Vec<(HitColumn, Variable)>,
}

impl SearchPattern {
    fn read(pattern: &GraphPattern) -> Result<Self, StoreError> {
        let mut triples = Vec::new();
        triple_patterns(pattern, &mut triples)?;
        let Some(first) = triples.first() else {
            return Err(refused("it has no triple pattern"));
        };
        let subject = &first.subject;
        let mut query = None;
        let mut request = SearchRequest::new(String::new());
        request.limit = DEFAULT_LIMIT;
        let mut outputs: Vec<(HitColumn, Variable)> = Vec::new();
        for triple in &triples {
            if triple.subject != *subject {
                return Err(refused(format!(
                    "every triple pattern should have one subject, the hit ({subject}), not also {}",
                    triple.subject
                )));
            }
            let term = term_name(&triple.predicate)?;
            match &triple.object {
                TermPattern::Variable(variable) => {
                    let column = HitColumn::ALL
                        .into_iter()
                        .find(|column| column.name() == term)
                        .ok_or_else(|| {
                            refused(format!(
                                "text:{term} takes a literal, not a variable; the values a hit binds are text:{}",
                                HitColumn::ALL.map(HitColumn::name).join(", text:")
                            ))
                        })?;
                    outputs.push((column, variable.clone()));
                }
                TermPattern::Literal(literal) => {
                    let value = literal.value();
                    match term {
                        "query" => query = Some(value.to_owned()),
                        "session" => request.session = Some(value.to_owned()),
                        "role" => request.role = Some(value.to_owned()),
                        "since" => request.since = Some(value.to_owned()),
                        "until" => request.until = Some(value.to_owned()),
                        "kind" => request.kinds = kinds(value)?,
                        "limit" => request.limit = limit(value)?,
                        _ => {
                            return Err(refused(format!(
                                "text:{term} takes a variable, bound from each hit; a search is said by text:query, and narrowed by text:session, text:role, text:kind, text:since, text:until and text:limit"
                            )));
                        }
                    }
                }
                other => {
                    return Err(refused(format!(
                        "the object of text:{term} should be a literal or a variable, not {other}"
                    )));
                }
            }
        }
        request.query = query.ok_or_else(|| refused("it says no search: text:query \"words\""))?;
        Ok(Self { request, outputs })
    }
}

/// The triple patterns of a service's pattern, which may only be made of them.
fn triple_patterns(
    pattern: &GraphPattern,
    into: &mut Vec<TriplePattern>,
) -> Result<(), StoreError> {
    match pattern {
        GraphPattern::Bgp { patterns } => {
            into.extend(patterns.iter().cloned());
            Ok(())
        }
        GraphPattern::Join { left, right } => {
            triple_patterns(left, into)?;
            triple_patterns(right, into)
        }
        _ => Err(refused(
            "it should hold triple patterns only (no FILTER, OPTIONAL, UNION or GRAPH): filter the hits outside the SERVICE",
        )),
    }
}

/// The local name of a predicate in the service's namespace.
fn term_name(predicate: &NamedNodePattern) -> Result<&str, StoreError> {
    match predicate {
        NamedNodePattern::NamedNode(node) => {
            node.as_str().strip_prefix(TEXT_NAMESPACE).ok_or_else(|| {
                refused(format!(
                    "the predicate {node} is not in the search's namespace <{TEXT_NAMESPACE}>"
                ))
            })
        }
        NamedNodePattern::Variable(variable) => Err(refused(format!(
            "the predicate {variable} should be a term of <{TEXT_NAMESPACE}>"
        ))),
    }
}

fn kinds(value: &str) -> Result<Vec<SearchKind>, StoreError> {
    value
        .split(',')
        .map(|kind| SearchKind::from_str(kind.trim()).map_err(refused))
        .collect()
}

fn limit(value: &str) -> Result<usize, StoreError> {
    value
        .parse::<usize>()
        .ok()
        .filter(|limit| (1..=MAX_HITS).contains(limit))
        .ok_or_else(|| {
            refused(format!(
                "text:limit should be a whole number from 1 to {MAX_HITS}, not {value:?}"
            ))
        })
}

fn refused(message: impl Into<String>) -> StoreError {
    StoreError::SearchService {
        message: message.into(),
    }
}
