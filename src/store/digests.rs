//! The digests of the newest turns (`ihi:recentTurns`, see [`RecentTurns`]) are derived
//! from a session's turns and written with them. An update may change those turns behind
//! the mapping: the digests of the graphs it may change are dropped in the same update,
//! so that `recent-turns` then reads the turns themselves (until the session is written
//! again, which writes its digest again).
//!
//! [`RecentTurns`]: crate::rdf::RecentTurns

use crate::rdf::vocab::ihi;
use oxigraph::model::NamedNode;
use spargebra::term::{GraphName, GraphNamePattern};
use spargebra::{GraphUpdateOperation, SparqlParser, Update};
use std::collections::BTreeSet;

/// Adds to `update` the removal of the digests of every named graph it may add to or
/// remove from (of every graph, when a template's graph is a variable), but for the
/// store's own graphs in `holding_none` (the memory and fingerprints graphs).
pub(super) fn forget_digests(update: &mut Update, holding_none: &[NamedNode]) {
    let removal = match touched_graphs(update) {
        Touched::Some(mut graphs) => {
            graphs.retain(|graph| !holding_none.contains(graph));
            if graphs.is_empty() {
                return;
            }
            let values: String = graphs.iter().map(|graph| format!("{graph} ")).collect();
            format!(
                "DELETE {{ GRAPH ?g {{ ?c {digest} ?d }} }} WHERE {{ VALUES ?g {{ {values}}} GRAPH ?g {{ ?c {digest} ?d }} }}",
                digest = ihi::RECENT_TURNS
            )
        }
        Touched::Any => format!(
            "DELETE WHERE {{ GRAPH ?g {{ ?c {digest} ?d }} }}",
            digest = ihi::RECENT_TURNS
        ),
    };
    let removal = SparqlParser::new()
        .parse_update(&removal)
        .expect("the removal of digests is valid SPARQL: IRIs are written by their Display");
    update.operations.extend(removal.operations);
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
