//! Query results in the SPARQL 1.1 result formats (JSON, XML, CSV, TSV), and graph
//! results (CONSTRUCT, DESCRIBE) as Turtle with the project's prefixes.

use crate::rdf::prefixes_with_base;
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{QueryEvaluationError, QueryResults};
use std::io::{self, Write};

/// A SPARQL 1.1 query results format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultsFormat {
    /// SPARQL 1.1 Query Results JSON.
    Json,
    /// SPARQL Query Results XML.
    Xml,
    /// SPARQL 1.1 Query Results CSV.
    Csv,
    /// SPARQL 1.1 Query Results TSV.
    Tsv,
}

impl ResultsFormat {
    fn sparql(self) -> QueryResultsFormat {
        match self {
            Self::Json => QueryResultsFormat::Json,
            Self::Xml => QueryResultsFormat::Xml,
            Self::Csv => QueryResultsFormat::Csv,
            Self::Tsv => QueryResultsFormat::Tsv,
        }
    }
}

/// An RDF syntax for the triples of a CONSTRUCT or DESCRIBE query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GraphFormat {
    /// Turtle, with the project's prefixes.
    Turtle,
    /// N-Triples.
    NTriples,
    /// JSON-LD.
    JsonLd,
}

impl GraphFormat {
    fn rdf(self) -> RdfFormat {
        match self {
            Self::Turtle => RdfFormat::Turtle,
            Self::NTriples => RdfFormat::NTriples,
            Self::JsonLd => RdfFormat::JsonLd {
                profile: JsonLdProfileSet::empty(),
            },
        }
    }
}

/// How results are written: the syntax for solutions and booleans, the syntax for
/// triples, and the most rows (solutions or triples) an answer may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultsShape {
    /// For SELECT and ASK.
    pub results: ResultsFormat,
    /// For CONSTRUCT and DESCRIBE.
    pub graph: GraphFormat,
    /// Refuse answers longer than this.
    pub max_rows: Option<usize>,
}

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResultsError {
    /// The query failed while its results were read.
    #[error("SPARQL query failed")]
    Query(#[from] QueryEvaluationError),
    /// Writing failed.
    #[error(transparent)]
    Write(#[from] io::Error),
    /// The answer holds more rows than allowed: what was written is to be thrown away.
    #[error(
        "the answer holds more than {limit} rows, the most allowed: narrow the query or add a LIMIT"
    )]
    TooLong {
        /// The most rows allowed.
        limit: usize,
    },
}

/// Writes query results; graph results are Turtle, with `id:` standing for `base` (the
/// store's IRI base) beside the project's prefixes.
///
/// ```
/// use ihigraph::query::{ResultsFormat, write_results};
/// let mut json = Vec::new();
/// write_results(true.into(), ResultsFormat::Json, "https://example.org/", &mut json)?;
/// assert_eq!(String::from_utf8(json)?, r#"{"head":{},"boolean":true}"#);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn write_results(
    results: QueryResults<'_>,
    format: ResultsFormat,
    base: &str,
    out: impl Write,
) -> Result<(), ResultsError> {
    let shape = ResultsShape {
        results: format,
        graph: GraphFormat::Turtle,
        max_rows: None,
    };
    write_results_shaped(results, shape, base, out).map(drop)
}

/// Writes query results in `shape`, and tells how many rows (solutions or triples) were
/// written; past `shape.max_rows` it stops with [`ResultsError::TooLong`], and what
/// was written so far is not an answer.
///
/// ```
/// use ihigraph::query::{GraphFormat, ResultsError, ResultsFormat, ResultsShape, write_results_shaped};
/// use ihigraph::HistoryStore;
/// let store = HistoryStore::in_memory(&Default::default())?;
/// let shape = ResultsShape { results: ResultsFormat::Csv, graph: GraphFormat::NTriples, max_rows: Some(2) };
/// let three = store.query("SELECT ?n { VALUES ?n { 1 2 3 } }")?;
/// let error = write_results_shaped(three, shape, "https://example.org/", Vec::new()).unwrap_err();
/// assert!(matches!(error, ResultsError::TooLong { limit: 2 }));
/// let two = store.query("SELECT ?n { VALUES ?n { 1 2 } }")?;
/// assert_eq!(write_results_shaped(two, shape, "https://example.org/", Vec::new())?, 2);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn write_results_shaped(
    results: QueryResults<'_>,
    shape: ResultsShape,
    base: &str,
    mut out: impl Write,
) -> Result<usize, ResultsError> {
    let limit = shape.max_rows.unwrap_or(usize::MAX);
    let mut rows = 0_usize;
    let mut count = || {
        rows += 1;
        if rows > limit {
            Err(ResultsError::TooLong { limit })
        } else {
            Ok(())
        }
    };
    match results {
        QueryResults::Solutions(solutions) => {
            let variables = solutions.variables().to_vec();
            let mut serializer = QueryResultsSerializer::from_format(shape.results.sparql())
                .serialize_solutions_to_writer(&mut out, variables)?;
            for solution in solutions {
                count()?;
                serializer.serialize(&solution?)?;
            }
            serializer.finish()?;
        }
        QueryResults::Boolean(value) => {
            QueryResultsSerializer::from_format(shape.results.sparql())
                .serialize_boolean_to_writer(&mut out, value)?;
        }
        QueryResults::Graph(triples) => {
            let mut serializer = RdfSerializer::from_format(shape.graph.rdf());
            if shape.graph == GraphFormat::Turtle {
                for (prefix, namespace) in prefixes_with_base(base) {
                    serializer = serializer
                        .with_prefix(prefix, namespace)
                        .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
                }
            }
            let mut serializer = serializer.for_writer(&mut out);
            for triple in triples {
                count()?;
                serializer.serialize_triple(&triple?)?;
            }
            serializer.finish()?;
        }
    }
    Ok(rows)
}
