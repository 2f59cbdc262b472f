//! Query results in the SPARQL 1.1 result formats (JSON, XML, CSV, TSV), and graph
//! results (CONSTRUCT, DESCRIBE) as Turtle with the project's prefixes.

use crate::rdf::prefixes_with_base;
use oxigraph::io::{RdfFormat, RdfSerializer};
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
    mut out: impl Write,
) -> Result<(), ResultsError> {
    match results {
        QueryResults::Solutions(solutions) => {
            let variables = solutions.variables().to_vec();
            let mut serializer = QueryResultsSerializer::from_format(format.sparql())
                .serialize_solutions_to_writer(&mut out, variables)?;
            for solution in solutions {
                serializer.serialize(&solution?)?;
            }
            serializer.finish()?;
        }
        QueryResults::Boolean(value) => {
            QueryResultsSerializer::from_format(format.sparql())
                .serialize_boolean_to_writer(&mut out, value)?;
        }
        QueryResults::Graph(triples) => {
            let mut serializer = RdfSerializer::from_format(RdfFormat::Turtle);
            for (prefix, namespace) in prefixes_with_base(base) {
                serializer = serializer
                    .with_prefix(prefix, namespace)
                    .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
            }
            let mut serializer = serializer.for_writer(&mut out);
            for triple in triples {
                serializer.serialize_triple(&triple?)?;
            }
            serializer.finish()?;
        }
    }
    Ok(())
}
