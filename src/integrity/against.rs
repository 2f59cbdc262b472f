//! The store compared with an export of it: every session graph of the export (N-Quads
//! or TriG, as `export` and `backup` write them; or PGM-IHI documents, mapped with the
//! store's IRI scheme) against the graph of the same name in the store, by their
//! canonical N-Quads, so that blank-node labels do not matter.

use super::{IntegrityError, SessionCheck, Status, VerifyReport, take_fingerprint_note};
use crate::check::{CheckOptions, check_document};
use crate::rdf::vocab::ihi;
use crate::rdf::{canonical_nquads, map_history, predicate_of};
use crate::read::read_documents;
use crate::store::HistoryStore;
use oxigraph::io::{RdfFormat, RdfParser};
use oxrdf::{GraphName, NamedNode, Quad, Term};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The sessions of an export, by graph: their `SessionID` and quads.
type Sessions = BTreeMap<NamedNode, (String, Vec<Quad>)>;

/// Compares the sessions of the export in `path` (or only those of `only`, by
/// `SessionID`) with the store's: each session differing, only in the store, or only
/// in the export is reported; a session in both with the same triples is intact.
pub fn verify_against(
    store: &HistoryStore,
    path: &Path,
    only: &[String],
) -> Result<VerifyReport, IntegrityError> {
    let wanted: BTreeSet<&str> = only.iter().map(String::as_str).collect();
    let keep = |id: &str| wanted.is_empty() || wanted.contains(id);
    let mut exported = read_export(store, path)?;
    exported.retain(|_, (id, _)| keep(id));
    let mut checks = Vec::new();
    for (graph, (session_id, quads)) in &exported {
        let status = compare(store, graph, quads)?;
        checks.push(SessionCheck {
            session_id: session_id.clone(),
            graph: graph.clone(),
            status,
        });
    }
    for (session_id, graph) in store.sessions()? {
        if keep(&session_id) && !exported.contains_key(&graph) {
            checks.push(SessionCheck {
                session_id,
                graph,
                status: Status::OnlyIn { store: true },
            });
        }
    }
    checks.sort_by(|a, b| (&a.session_id, &a.graph).cmp(&(&b.session_id, &b.graph)));
    Ok(VerifyReport { checks })
}

/// One session of the export against the store's graph of the same name.
fn compare(
    store: &HistoryStore,
    graph: &NamedNode,
    exported: &[Quad],
) -> Result<Status, IntegrityError> {
    let stored = store.session_quads(graph.as_ref())?;
    if stored.is_empty() {
        return Ok(Status::OnlyIn { store: false });
    }
    let (ours, _) = canonical_nquads(stored.iter().map(Quad::as_ref))?;
    // Exports written before digests left the session graphs carry the digest of the
    // newest turns in each session graph: derived data, not the session, and no longer
    // in the store's graph (opening the store moved it out).
    let (theirs, _) = canonical_nquads(
        exported
            .iter()
            .map(Quad::as_ref)
            .filter(|quad| quad.predicate != ihi::RECENT_TURNS),
    )?;
    if ours == theirs {
        return Ok(Status::Intact);
    }
    let ours: BTreeSet<&str> = ours.lines().collect();
    let theirs: BTreeSet<&str> = theirs.lines().collect();
    let by_predicate = |lines: BTreeSet<&&str>| {
        let mut grouped: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for line in lines {
            grouped
                .entry(predicate_of(line).to_owned())
                .or_default()
                .push((*line).to_owned());
        }
        grouped
    };
    Ok(Status::Differs {
        added: by_predicate(ours.difference(&theirs).collect()),
        removed: by_predicate(theirs.difference(&ours).collect()),
    })
}

/// The session graphs of an export, by its file name's extension.
fn read_export(store: &HistoryStore, path: &Path) -> Result<Sessions, IntegrityError> {
    let extension = path
        .extension()
        .and_then(|extension| extension.to_str())
        .map(str::to_ascii_lowercase);
    let format = match extension.as_deref() {
        Some("nq" | "nquads") => RdfFormat::NQuads,
        Some("trig") => RdfFormat::TriG,
        Some("json" | "jsonl" | "ndjson") => return read_documents_export(store, path),
        _ => {
            return Err(IntegrityError::ExportFormat {
                path: path.to_owned(),
            });
        }
    };
    let file = std::fs::File::open(path).map_err(|source| IntegrityError::Export {
        path: path.to_owned(),
        source,
    })?;
    let mut graphs: BTreeMap<NamedNode, Vec<Quad>> = BTreeMap::new();
    for quad in RdfParser::from_format(format).for_reader(file) {
        let quad = quad.map_err(|error| IntegrityError::ExportSyntax {
            path: path.to_owned(),
            message: error.to_string(),
        })?;
        if let GraphName::NamedNode(graph) = &quad.graph_name {
            graphs.entry(graph.clone()).or_default().push(quad);
        }
    }
    Ok(graphs
        .into_iter()
        .filter_map(|(graph, quads)| {
            let id = quads.iter().find_map(|quad| match &quad.object {
                Term::Literal(id) if quad.predicate == ihi::SESSION_ID => {
                    Some(id.value().to_owned())
                }
                _ => None,
            })?;
            Some((graph, (id, quads)))
        })
        .collect())
}

/// The sessions of a PGM-IHI export, mapped as `ingest` maps them.
fn read_documents_export(store: &HistoryStore, path: &Path) -> Result<Sessions, IntegrityError> {
    if !path.is_file() {
        return Err(IntegrityError::Export {
            path: path.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        });
    }
    let mut sessions = Sessions::new();
    for document in read_documents(&[path.to_owned()]) {
        let value = document
            .value
            .map_err(|source| IntegrityError::ExportDocument {
                origin: document.origin.clone(),
                source,
            })?;
        let checked = check_document(&value, CheckOptions::default());
        let Some(mut history) = checked.history else {
            let problem = checked
                .errors()
                .next()
                .map_or_else(String::new, ToString::to_string);
            return Err(IntegrityError::ExportInvalid {
                origin: document.origin,
                problem,
            });
        };
        // The note is about the graph, not part of it.
        take_fingerprint_note(&mut history);
        let session = map_history(&history, store.scheme());
        sessions.insert(session.graph, (session.session_id, session.quads));
    }
    Ok(sessions)
}
