//! The digests of the newest turns (`ihi:recentTurns`, see [`RecentTurns`]) are derived
//! from a session's turns and written with them. An update may change those turns behind
//! the mapping: the digests of the graphs it may change are removed in the same update,
//! so that `recent-turns` then reads the turns themselves (until the session is written
//! again, which writes its digest again).
//!
//! [`RecentTurns`]: crate::rdf::RecentTurns

use super::{HistoryStore, StoreError, data_block};
use crate::rdf::vocab::ihi;
use oxigraph::model::NamedNode;
use spargebra::term::{GraphName, GraphNamePattern};
use spargebra::{GraphUpdateOperation, SparqlParser, Update};
use std::collections::BTreeSet;

impl HistoryStore {
    /// Adds to `update` the removal of the digests of every named graph it may add to
    /// or remove from (of every graph, when a template's graph is a variable), but for
    /// the store's own memory and fingerprints graphs. The digests are read first and
    /// removed as data (`DELETE DATA`), the one form of removal every server reads
    /// as spargebra writes it (Virtuoso refuses its `DELETE { GRAPH ... } WHERE`).
    pub(super) fn forget_digests(&self, update: &mut Update) -> Result<(), StoreError> {
        let own = [self.scheme.memory_graph(), self.scheme.fingerprints_graph()];
        let filter = match touched_graphs(update) {
            Touched::Some(mut graphs) => {
                graphs.retain(|graph| !own.contains(graph));
                if graphs.is_empty() {
                    return Ok(());
                }
                let values: String = graphs.iter().map(|graph| format!("{graph} ")).collect();
                format!("VALUES ?g {{ {values}}}")
            }
            Touched::Any => String::new(),
        };
        let digests = self.select_quads(&format!(
            "SELECT ?s ?p ?o ?g WHERE {{ {filter} GRAPH ?g {{ ?s {p} ?o }} BIND({p} AS ?p) }}",
            p = ihi::RECENT_TURNS
        ))?;
        if digests.is_empty() {
            return Ok(());
        }
        let removal = SparqlParser::new()
            .parse_update(&data_block("DELETE DATA", &digests))
            .map_err(StoreError::QuerySyntax)?;
        update.operations.extend(removal.operations);
        Ok(())
    }
}

/// The named graphs an update may change.
enum Touched {
    Some(BTreeSet<NamedNode>),
    Any,
}

fn touched_graphs(update: &Update) -> Touched {
    let mut graphs = BTreeSet::new();
    let mut named = |graph: &GraphName| {
        if let GraphName::NamedNode(graph) = graph {
            graphs.insert(graph.clone());
        }
    };
    let mut any = false;
    for operation in &update.operations {
        match operation {
            GraphUpdateOperation::InsertData { data } => {
                data.iter().for_each(|quad| named(&quad.graph_name));
            }
            GraphUpdateOperation::DeleteData { data } => {
                data.iter().for_each(|quad| named(&quad.graph_name));
            }
            GraphUpdateOperation::DeleteInsert { delete, insert, .. } => {
                let patterns = delete
                    .iter()
                    .map(|quad| &quad.graph_name)
                    .chain(insert.iter().map(|quad| &quad.graph_name));
                for pattern in patterns {
                    match pattern {
                        GraphNamePattern::NamedNode(graph) => named(&graph.clone().into()),
                        GraphNamePattern::DefaultGraph => {}
                        GraphNamePattern::Variable(_) => any = true,
                    }
                }
            }
            GraphUpdateOperation::Load { destination, .. } => named(destination),
            // Whatever they empty or drop loses its digest with it.
            GraphUpdateOperation::Clear { .. }
            | GraphUpdateOperation::Create { .. }
            | GraphUpdateOperation::Drop { .. } => {}
        }
    }
    if any {
        Touched::Any
    } else {
        Touched::Some(graphs)
    }
}
