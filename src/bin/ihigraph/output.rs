//! What the commands show: query results (aligned tables for people, SPARQL 1.1 result
//! formats for programs), diagnostics and ingest reports. Only results go to standard
//! output.

use crate::status::Status;
use anyhow::{Context, Result};
use comfy_table::{ContentArrangement, Table, presets};
use ihigraph::HistoryStore;
use ihigraph::ingest::{IngestEvent, IngestSummary, PreparedDocument, WatchEvent};
use ihigraph::query::ResultsFormat;
use ihigraph::rdf::prefixes_with_base;
use ihigraph::read::Origin;
use oxigraph::model::Term;
use oxigraph::sparql::{QueryResults, QuerySolution, Variable};
use std::io::{self, BufWriter, Write};

/// Longest cell of a table, in characters; longer texts are cut with an ellipsis.
const MAX_CELL_CHARS: usize = 72;

/// How results are shown: an aligned table for people, or a SPARQL results format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Aligned columns, long texts shortened.
    Table,
    /// A SPARQL 1.1 results format.
    Results(ResultsFormat),
}

/// Writes query results in a shape; `base` is the store's IRI base, shown as `id:`.
pub fn write_results(
    results: QueryResults<'_>,
    shape: Shape,
    base: &str,
    out: &mut impl Write,
) -> Result<()> {
    let format = match shape {
        Shape::Results(format) => format,
        Shape::Table => match results {
            QueryResults::Solutions(solutions) => {
                let variables = solutions.variables().to_vec();
                let rows = solutions
                    .collect::<Result<Vec<_>, _>>()
                    .context("SPARQL query failed")?;
                return write_table(&variables, &rows, base, out);
            }
            QueryResults::Boolean(value) => {
                writeln!(out, "{value}")?;
                return Ok(());
            }
            // A graph is Turtle, whatever the shape.
            graph => {
                return Ok(ihigraph::query::write_results(
                    graph,
                    ResultsFormat::Tsv,
                    base,
                    out,
                )?);
            }
        },
    };
    Ok(ihigraph::query::write_results(results, format, base, out)?)
}

/// Results on standard output.
pub fn print_results(
    store: &HistoryStore,
    results: QueryResults<'_>,
    shape: Shape,
) -> Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    write_results(results, shape, store.scheme().base(), &mut out)?;
    out.flush()?;
    Ok(Status::Success)
}

/// A document's diagnostics, on standard error.
pub fn print_diagnostics(document: &PreparedDocument) {
    for diagnostic in &document.diagnostics {
        eprintln!("{}", diagnostic.located(&document.origin));
    }
}

/// What an ingest reports as it goes, on standard error.
pub fn print_ingest_event(event: IngestEvent<'_>) {
    match event {
        IngestEvent::Prepared(document) => print_diagnostics(document),
        IngestEvent::Replaced { origin, session_id } => {
            eprintln!("{origin}: replaced the stored session {session_id:?}");
        }
        IngestEvent::Note { origin, note } => eprintln!("{origin}: {note}"),
        _ => {}
    }
}

/// What `ingest --watch` does, as it does it: each session stored on standard output
/// (one line, flushed), the rest on standard error.
pub fn print_watch_event(event: WatchEvent<'_>) {
    match event {
        WatchEvent::Watching { paths, polling } => {
            let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            eprintln!(
                "watching {} ({}); Ctrl-C stops",
                paths.join(", "),
                if polling { "polling" } else { "file events" }
            );
        }
        WatchEvent::Stored {
            file,
            session_id,
            turns,
            before,
            awaiting,
        } => {
            let change = match turns.cmp(&before) {
                std::cmp::Ordering::Greater if before > 0 => format!(", {} new", turns - before),
                _ => String::new(),
            };
            println!(
                "{file}: session {session_id:?}: {turns} turn{}{change}{}",
                plural(turns),
                if awaiting {
                    ", the last awaits its response"
                } else {
                    ""
                }
            );
            let _ = io::stdout().flush();
        }
        WatchEvent::Waiting { file, bytes } => {
            eprintln!("{file}: the last line ({bytes} bytes so far) waits for its end");
        }
        WatchEvent::Note { file, note } => eprintln!("{file}: {note}"),
        WatchEvent::Refused { file, error } => {
            let origin = Origin {
                name: file.to_owned(),
                line: None,
            };
            eprintln!("{} (read again when it changes)", error.located(&origin));
        }
        WatchEvent::Removed { file, sessions } => eprintln!(
            "{file}: removed; its session{} {} stay{} in the store",
            plural(sessions.len()),
            sessions.join(", "),
            if sessions.len() == 1 { "s" } else { "" }
        ),
        WatchEvent::Renamed { from, to } => eprintln!("{from}: renamed to {to}"),
        WatchEvent::Trouble { message } => eprintln!("ihigraph: {message}"),
        _ => {}
    }
}

/// The totals of an ingest, on standard output; refused documents make it exit 1.
pub fn print_ingest_summary(summary: &IngestSummary) -> Status {
    println!(
        "ingested {} session{} ({} replaced, {} unchanged), {} turn{}, {} quad{}; {} warning{}",
        summary.sessions,
        plural(summary.sessions),
        summary.replaced,
        summary.unchanged,
        summary.turns,
        plural(summary.turns),
        summary.quads,
        plural(summary.quads),
        summary.warnings,
        plural(summary.warnings),
    );
    if summary.refused.is_empty() {
        return Status::Success;
    }
    println!(
        "refused {} document{} (nothing of them was stored):",
        summary.refused.len(),
        plural(summary.refused.len())
    );
    for refusal in &summary.refused {
        println!("  {}", refusal.error.located(&refusal.origin));
    }
    Status::Refused
}

pub fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
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

pub fn compact(iri: &str, base: &str) -> String {
    prefixes_with_base(base)
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
