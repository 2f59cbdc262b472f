//! `check-graph`: RDF files, or the store's graphs, validated against SHACL shapes, one
//! graph at a time.

use crate::cli::{CheckGraphArgs, RdfSyntax, ReportFormat};
use crate::output::compact;
use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::integrity::check_shapes;
use ihigraph::rdf::{
    DEFAULT_BASE, ShapeReport, ShapeResult, Shapes, ShapesError, format_of_path, merged_report,
    read_graphs,
};
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxrdf::{GraphName, Term, TripleRef};
use std::io::{self, Write};

const SH: &str = "http://www.w3.org/ns/shacl#";

/// Validates the graphs of each file.
pub fn files(args: &CheckGraphArgs) -> Result<Status> {
    let shapes = shapes(args)?;
    let mut checked = Vec::new();
    for path in &args.files {
        let format = match args.input_format {
            Some(syntax) => rdf_format(syntax),
            None => format_of_path(path)?,
        };
        for (graph, triples) in read_graphs(path, format)? {
            let report = shapes.validate(triples.iter().map(|t| t.as_ref()))?;
            let place = match &graph {
                GraphName::DefaultGraph => path.display().to_string(),
                GraphName::NamedNode(name) => format!("{} {}", path.display(), name),
                GraphName::BlankNode(node) => format!("{} {}", path.display(), node),
            };
            checked.push((place, report));
        }
    }
    print(&checked, args.format, DEFAULT_BASE)
}

/// Validates the store's session graphs (those asked for, or all and the memory graph).
pub fn store(store: &HistoryStore, args: &CheckGraphArgs) -> Result<Status> {
    let shapes = shapes(args)?;
    let mut checked = Vec::new();
    check_shapes(store, &shapes, &args.sessions, |graph| {
        let place = match &graph.session_id {
            Some(id) => format!("session {id}"),
            None => format!("memory graph {}", graph.graph),
        };
        checked.push((place, graph.report));
    })?;
    print(&checked, args.format, store.scheme().base())
}

fn shapes(args: &CheckGraphArgs) -> Result<Shapes, ShapesError> {
    let Some(path) = &args.shapes else {
        return Shapes::shipped();
    };
    let format = format_of_path(path).unwrap_or(RdfFormat::Turtle);
    let text = std::fs::read_to_string(path).map_err(|source| ShapesError::Read {
        path: path.clone(),
        source,
    })?;
    // Relative IRIs resolve against the file's own URL.
    let base = std::path::absolute(path)
        .ok()
        .map(|absolute| format!("file://{}", absolute.display()));
    Shapes::parse_with_base(&text, format, &path.display().to_string(), base.as_deref())
}

fn rdf_format(syntax: RdfSyntax) -> RdfFormat {
    match syntax {
        RdfSyntax::Turtle => RdfFormat::Turtle,
        RdfSyntax::Ntriples => RdfFormat::NTriples,
        RdfSyntax::Nquads => RdfFormat::NQuads,
        RdfSyntax::Trig => RdfFormat::TriG,
        RdfSyntax::Rdfxml => RdfFormat::RdfXml,
    }
}

fn print(checked: &[(String, ShapeReport)], format: ReportFormat, base: &str) -> Result<Status> {
    let mut out = io::stdout().lock();
    let failed = checked
        .iter()
        .filter(|(_, report)| !report.conforms())
        .count();
    let rdf_format = match format {
        ReportFormat::Text => {
            for (place, report) in checked {
                for result in &report.results {
                    writeln!(out, "{}", line(place, result, base))?;
                }
            }
            let results: usize = checked.iter().map(|(_, report)| report.results.len()).sum();
            writeln!(
                out,
                "{} graph(s) checked: {} conform, {failed} do not ({results} result(s))",
                checked.len(),
                checked.len() - failed
            )?;
            out.flush()?;
            return Ok(status(failed));
        }
        ReportFormat::Turtle => RdfFormat::Turtle,
        ReportFormat::Ntriples => RdfFormat::NTriples,
        ReportFormat::Rdfxml => RdfFormat::RdfXml,
    };
    let mut serializer = RdfSerializer::from_format(rdf_format).with_prefix("sh", SH)?;
    for (prefix, namespace) in ihigraph::rdf::prefixes_with_base(base) {
        serializer = serializer.with_prefix(prefix, namespace)?;
    }
    let mut writer = serializer.for_writer(&mut out);
    for triple in merged_report(checked.iter().map(|(_, report)| report)) {
        writer.serialize_triple(TripleRef::from(&triple))?;
    }
    writer.finish()?;
    out.flush()?;
    Ok(status(failed))
}

fn status(failed: usize) -> Status {
    if failed == 0 {
        Status::Success
    } else {
        Status::Refused
    }
}

/// `PLACE: FOCUS PATH: COMPONENT (SEVERITY): MESSAGE [value V] [shape S]`.
fn line(place: &str, result: &ShapeResult, base: &str) -> String {
    let term = |term: &Term| match term {
        Term::NamedNode(node) => compact(node.as_str(), base),
        other => other.to_string(),
    };
    let short = |iri: &str| {
        iri.strip_prefix(SH)
            .map_or_else(|| compact(iri, base), |local| format!("sh:{local}"))
    };
    let mut text = format!("{place}: {}", term(&result.focus));
    if let Some(path) = &result.path {
        text.push(' ');
        text.push_str(&compact_path(&path.to_string(), base));
    }
    text.push_str(&format!(
        ": {} ({})",
        short(result.component.as_str()),
        short(result.severity.as_str())
    ));
    if let Some(message) = &result.message {
        text.push_str(": ");
        text.push_str(message);
    }
    if let Some(value) = &result.value {
        text.push_str(&format!(" [value {}]", term(value)));
    }
    if let Some(shape @ Term::NamedNode(_)) = &result.source_shape {
        text.push_str(&format!(" [shape {}]", term(shape)));
    }
    text
}

/// A path in SPARQL's syntax with its IRIs written with the known prefixes.
fn compact_path(path: &str, base: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        out.push_str(&compact(&rest[start + 1..start + end], base));
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}
