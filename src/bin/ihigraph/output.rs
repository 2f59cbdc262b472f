//! Writing query results: aligned tables for people, SPARQL 1.1 result formats for
//! programs. Only results go to standard output.

use crate::cli::ResultsFormat;
use anyhow::{Context, Result};
use comfy_table::{ContentArrangement, Table, presets};
use ihigraph::PREFIXES;
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::Term;
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{QueryResults, QuerySolution, Variable};
use std::io::Write;

/// Longest cell of a table, in characters; longer texts are cut with an ellipsis.
const MAX_CELL_CHARS: usize = 72;

/// Writes query results in a format; `base` is the store's IRI base, shown as `id:`.
pub fn write_results(
    results: QueryResults<'_>,
    format: ResultsFormat,
    base: &str,
    out: &mut impl Write,
) -> Result<()> {
    match results {
        QueryResults::Solutions(solutions) => {
            let variables = solutions.variables().to_vec();
            if format == ResultsFormat::Table {
                let rows = solutions
                    .collect::<Result<Vec<_>, _>>()
                    .context("SPARQL query failed")?;
                return write_table(&variables, &rows, base, out);
            }
            let mut serializer = QueryResultsSerializer::from_format(results_format(format))
                .serialize_solutions_to_writer(&mut *out, variables)?;
            for solution in solutions {
                let solution = solution.context("SPARQL query failed")?;
                serializer.serialize(&solution)?;
            }
            serializer.finish()?;
        }
        QueryResults::Boolean(value) => {
            if format == ResultsFormat::Table {
                writeln!(out, "{value}")?;
            } else {
                QueryResultsSerializer::from_format(results_format(format))
                    .serialize_boolean_to_writer(&mut *out, value)?;
            }
        }
        QueryResults::Graph(triples) => {
            let mut serializer = RdfSerializer::from_format(RdfFormat::Turtle);
            for (prefix, namespace) in PREFIXES.iter().copied().chain([("id", base)]) {
                serializer = serializer.with_prefix(prefix, namespace)?;
            }
            let mut serializer = serializer.for_writer(&mut *out);
            for triple in triples {
                serializer.serialize_triple(&triple.context("SPARQL query failed")?)?;
            }
            serializer.finish()?;
        }
    }
    Ok(())
}

fn results_format(format: ResultsFormat) -> QueryResultsFormat {
    match format {
        ResultsFormat::Json => QueryResultsFormat::Json,
        ResultsFormat::Csv => QueryResultsFormat::Csv,
        ResultsFormat::Table | ResultsFormat::Tsv => QueryResultsFormat::Tsv,
    }
}

/// An aligned table of plain texts, with its header.
pub fn write_text_table(
    header: &[&str],
    rows: impl IntoIterator<Item = Vec<String>>,
    out: &mut impl Write,
) -> Result<()> {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.iter().copied());
    for row in rows {
        table.add_row(row);
    }
    writeln!(out, "{table}")?;
    Ok(())
}

/// An aligned table: one column per variable, terms shown readably.
pub fn write_table(
    variables: &[Variable],
    rows: &[QuerySolution],
    base: &str,
    out: &mut impl Write,
) -> Result<()> {
    let header: Vec<&str> = variables.iter().map(Variable::as_str).collect();
    let cells = rows.iter().map(|row| {
        variables
            .iter()
            .map(|variable| {
                row.get(variable)
                    .map_or_else(String::new, |term| cell(term, base))
            })
            .collect()
    });
    write_text_table(&header, cells, out)?;
    let count = rows.len();
    writeln!(out, "{count} row{}", if count == 1 { "" } else { "s" })?;
    Ok(())
}

/// A term as a person reads it: a literal's text, an IRI with a known prefix, shortened.
fn cell(term: &Term, base: &str) -> String {
    let text = match term {
        Term::Literal(literal) => literal.value().to_owned(),
        Term::NamedNode(node) => compact(node.as_str(), base),
        other => other.to_string(),
    };
    shorten(&text)
}

fn compact(iri: &str, base: &str) -> String {
    PREFIXES
        .iter()
        .copied()
        .chain([("id", base)])
        .find_map(|(prefix, namespace)| {
            iri.strip_prefix(namespace)
                .map(|local| format!("{prefix}:{local}"))
        })
        .unwrap_or_else(|| format!("<{iri}>"))
}

/// One line, at most [`MAX_CELL_CHARS`] characters.
fn shorten(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_CELL_CHARS {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(MAX_CELL_CHARS - 1).collect();
    cut.push('…');
    cut
}
