//! Reading a server's answers: SPARQL results and N-Triples, checked for cuts (a row cap,
//! a time limit) and with literals in their canonical form, as the embedded store keeps
//! them (Virtuoso says `"1"` for `true` in JSON results and pads fractions of seconds).

use super::dialect::Dialect;
use super::endpoint::Endpoint;
use super::error::RemoteError;
use super::http::Answer;
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{Literal, Term, Triple, Variable, vocab::xsd};
use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput,
};
use std::str::FromStr;

/// Rows of a SELECT answer, read whole.
#[derive(Debug)]
pub(super) struct Rows {
    pub variables: Vec<Variable>,
    pub rows: Vec<Vec<Option<Term>>>,
    /// The server's row cap, when the rows reach it: rows may be missing.
    pub cut_at: Option<u64>,
}

impl Rows {
    /// The rows, refused when they may be cut.
    pub fn whole(self, url: &Endpoint) -> Result<Self, RemoteError> {
        match self.cut_at {
            Some(cap) => Err(RemoteError::Truncated {
                url: url.clone(),
                reason: format!(
                    "it holds {} rows, the server's cap (ResultSetMaxRows {cap}), so rows may be missing: page the query (LIMIT and OFFSET under ORDER BY) or raise the cap",
                    self.rows.len()
                ),
            }),
            None => Ok(self),
        }
    }
}

/// A SELECT or ASK answer.
#[derive(Debug)]
pub(super) enum Results {
    Rows(Rows),
    Boolean(bool),
}

/// The media types asked for.
pub(super) const RESULTS_JSON: &str = "application/sparql-results+json";
pub(super) const N_TRIPLES: &str = "application/n-triples";

/// The results of a SELECT or ASK, refused when the server says or shows it cut them.
pub(super) fn results(
    answer: &Answer,
    url: &Endpoint,
    dialect: Dialect,
) -> Result<Results, RemoteError> {
    check_time_cut(answer, url)?;
    let bad = |reason: String| RemoteError::BadAnswer {
        url: url.clone(),
        reason,
    };
    let format = results_format(&answer.content_type).ok_or_else(|| {
        bad(format!(
            "it is {:?}, not SPARQL results",
            answer.content_type
        ))
    })?;
    let parsed = QueryResultsParser::from_format(format)
        .for_slice(&answer.body)
        .map_err(|error| bad(error.to_string()))?;
    let solutions = match parsed {
        SliceQueryResultsParserOutput::Boolean(value) => return Ok(Results::Boolean(value)),
        SliceQueryResultsParserOutput::Solutions(solutions) => solutions,
    };
    let variables = solutions.variables().to_vec();
    let mut rows = Vec::new();
    for solution in solutions {
        let solution = solution.map_err(|error| bad(error.to_string()))?;
        rows.push(
            variables
                .iter()
                .map(|variable| solution.get(variable).cloned().map(canonical))
                .collect(),
        );
    }
    // A full answer at the cap cannot be told from a cut one: both count as cut.
    let cut_at = answer
        .max_rows
        .or(dialect.max_rows())
        .filter(|cap| rows.len() as u64 >= *cap);
    Ok(Results::Rows(Rows {
        variables,
        rows,
        cut_at,
    }))
}

/// The triples of a CONSTRUCT or DESCRIBE answer given as N-Triples.
pub(super) fn triples(
    answer: &Answer,
    url: &Endpoint,
    dialect: Dialect,
) -> Result<Vec<Triple>, RemoteError> {
    check_time_cut(answer, url)?;
    let mut triples = Vec::new();
    for triple in RdfParser::from_format(RdfFormat::NTriples).for_slice(&answer.body) {
        let quad = triple.map_err(|error| RemoteError::BadAnswer {
            url: url.clone(),
            reason: format!("not N-Triples: {error}"),
        })?;
        triples.push(Triple::new(
            quad.subject,
            quad.predicate,
            canonical(quad.object),
        ));
    }
    // Virtuoso cuts a graph answer at its cap plus one, and says nothing.
    if let Some(cap) = dialect.max_rows()
        && triples.len() as u64 > cap
    {
        return Err(RemoteError::Truncated {
            url: url.clone(),
            reason: format!(
                "it holds {} triples, more than the server's cap (ResultSetMaxRows {cap}), which cuts graph answers silently",
                triples.len()
            ),
        });
    }
    Ok(triples)
}

/// Virtuoso's "anytime" answers, cut by a time limit, say so in headers only.
fn check_time_cut(answer: &Answer, url: &Endpoint) -> Result<(), RemoteError> {
    match &answer.sql_state {
        Some(state) if state.trim() == "S1TAT" => Err(RemoteError::Truncated {
            url: url.clone(),
            reason: "the server stopped the query at its time limit and sent partial results"
                .to_owned(),
        }),
        _ => Ok(()),
    }
}

fn results_format(content_type: &str) -> Option<QueryResultsFormat> {
    let media_type = content_type.split(';').next().unwrap_or_default().trim();
    match media_type {
        "application/sparql-results+json" | "application/json" => Some(QueryResultsFormat::Json),
        "application/sparql-results+xml" | "application/xml" => Some(QueryResultsFormat::Xml),
        "text/tab-separated-values" => Some(QueryResultsFormat::Tsv),
        _ => None,
    }
}

/// A literal of the datatypes ihigraph writes, in its canonical form (the same value).
pub(super) fn canonical(term: Term) -> Term {
    let Term::Literal(literal) = &term else {
        return term;
    };
    let value = literal.value();
    let datatype = literal.datatype();
    let canonical = if datatype == xsd::BOOLEAN {
        oxsdatatypes::Boolean::from_str(value)
            .ok()
            .map(|v| v.to_string())
    } else if datatype == xsd::DATE_TIME {
        oxsdatatypes::DateTime::from_str(value)
            .ok()
            .map(|v| v.to_string())
    } else if datatype == xsd::DECIMAL {
        oxsdatatypes::Decimal::from_str(value)
            .ok()
            .map(|v| v.to_string())
    } else if datatype == xsd::INTEGER {
        oxsdatatypes::Integer::from_str(value)
            .ok()
            .map(|v| v.to_string())
    } else {
        None
    };
    match canonical {
        Some(canonical) if canonical != value => {
            Literal::new_typed_literal(canonical, datatype.into_owned()).into()
        }
        _ => term,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(value: &str, datatype: oxigraph::model::NamedNodeRef<'_>) -> Term {
        Literal::new_typed_literal(value, datatype).into()
    }

    #[test]
    fn literals_come_back_in_canonical_form() {
        assert_eq!(
            canonical(typed("1", xsd::BOOLEAN)),
            typed("true", xsd::BOOLEAN)
        );
        assert_eq!(
            canonical(typed("2025-01-01T10:00:06.500Z", xsd::DATE_TIME)),
            typed("2025-01-01T10:00:06.5Z", xsd::DATE_TIME)
        );
        assert_eq!(
            canonical(typed("1.50", xsd::DECIMAL)),
            typed("1.5", xsd::DECIMAL)
        );
        let text: Term = Literal::new_simple_literal("1.50").into();
        assert_eq!(canonical(text.clone()), text);
        assert_eq!(
            canonical(typed("no", xsd::BOOLEAN)),
            typed("no", xsd::BOOLEAN)
        );
    }

    fn answer(body: &str, max_rows: Option<u64>, sql_state: Option<&str>) -> Answer {
        Answer {
            status: 200,
            content_type: RESULTS_JSON.to_owned(),
            server: String::new(),
            max_rows,
            sql_state: sql_state.map(str::to_owned),
            challenge: None,
            body: body.as_bytes().to_vec(),
        }
    }

    const TWO_ROWS: &str = r#"{"head":{"vars":["n"]},"results":{"bindings":[
        {"n":{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#boolean","value":"1"}},
        {"n":{"type":"literal","value":"x"}}]}}"#;

    #[test]
    fn rows_at_the_servers_cap_are_refused_as_cut() {
        let u = &Endpoint::parse("http://u/").unwrap();
        let Ok(Results::Rows(rows)) = results(&answer(TWO_ROWS, None, None), u, Dialect::Generic)
        else {
            panic!("two rows")
        };
        assert_eq!(rows.rows[0][0], Some(typed("true", xsd::BOOLEAN)));
        assert_eq!(rows.cut_at, None);
        let Ok(Results::Rows(cut)) = results(&answer(TWO_ROWS, Some(2), None), u, Dialect::Generic)
        else {
            panic!("two rows")
        };
        assert_eq!(cut.cut_at, Some(2));
        assert!(matches!(cut.whole(u), Err(RemoteError::Truncated { .. })));
        let known = Dialect::Virtuoso { max_rows: Some(2) };
        let Ok(Results::Rows(cut)) = results(&answer(TWO_ROWS, None, None), u, known) else {
            panic!("two rows")
        };
        assert_eq!(cut.cut_at, Some(2));
        let timed = results(&answer(TWO_ROWS, None, Some("S1TAT")), u, Dialect::Generic);
        assert!(matches!(timed, Err(RemoteError::Truncated { .. })));
        let garbage = results(&answer("{\"head\":", None, None), u, Dialect::Generic);
        assert!(matches!(garbage, Err(RemoteError::BadAnswer { .. })));
    }
}
