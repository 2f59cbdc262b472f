//! The store's graphs validated against SHACL shapes, one graph at a time: each session
//! graph (a store may hold ten thousand, never all in memory at once), then the memory
//! graph.

use super::IntegrityError;
use crate::rdf::{ShapeReport, Shapes};
use crate::store::{HistoryStore, StoreError};
use oxrdf::{NamedNode, Triple};

/// The validation of one graph of the store.
#[derive(Debug, Clone)]
pub struct GraphConformance {
    /// The graph validated.
    pub graph: NamedNode,
    /// The session it holds; none for the memory graph.
    pub session_id: Option<String>,
    /// Its validation report.
    pub report: ShapeReport,
}

/// Validates the graphs of `sessions` (every session and the memory graph when empty)
/// against `shapes`, giving each graph's report to `sink` as soon as it is made; how many
/// graphs did not conform.
///
/// ```
/// use ihigraph::check::{CheckOptions, check_document};
/// use ihigraph::integrity::check_shapes;
/// use ihigraph::rdf::{Shapes, map_history};
/// use ihigraph::HistoryStore;
/// let store = HistoryStore::in_memory(&Default::default())?;
/// let document = ihigraph::generate::generate(Default::default()).next().unwrap();
/// let history = check_document(&document, CheckOptions::default()).history.unwrap();
/// store.write_session(&map_history(&history, store.scheme()))?;
/// let failed = check_shapes(&store, &Shapes::shipped()?, &[], |graph| {
///     assert!(graph.report.conforms(), "{:?}", graph.report.results);
/// })?;
/// assert_eq!(failed, 0);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn check_shapes(
    store: &HistoryStore,
    shapes: &Shapes,
    sessions: &[String],
    mut sink: impl FnMut(GraphConformance),
) -> Result<usize, IntegrityError> {
    let ids: Vec<String> = if sessions.is_empty() {
        store.sessions()?.into_iter().map(|(id, _)| id).collect()
    } else {
        sessions.to_vec()
    };
    let mut failed = 0;
    for id in ids {
        let (graph, triples) = store.session_graph(&id)?;
        let report = shapes.validate(triples.iter())?;
        failed += usize::from(!report.conforms());
        sink(GraphConformance {
            graph,
            session_id: Some(id),
            report,
        });
    }
    if sessions.is_empty() {
        let graph = store.scheme().memory_graph();
        let triples = memory_triples(store, &graph)?;
        if !triples.is_empty() {
            let report = shapes.validate(triples.iter().map(Triple::as_ref))?;
            failed += usize::from(!report.conforms());
            sink(GraphConformance {
                graph,
                session_id: None,
                report,
            });
        }
    }
    Ok(failed)
}

/// The triples of the memory graph.
fn memory_triples(store: &HistoryStore, graph: &NamedNode) -> Result<Vec<Triple>, StoreError> {
    let quads = store.select_quads(&format!(
        "SELECT ?s ?p ?o ?g WHERE {{ VALUES ?g {{ {graph} }} GRAPH ?g {{ ?s ?p ?o }} }}"
    ))?;
    Ok(quads.into_iter().map(Triple::from).collect())
}
