//! Graphs read and written whole by name, as the Graph Store Protocol asks: what a graph
//! is to ihigraph ([`GraphRole`]: a session's, one of its own, or another), its quads,
//! and the writes of graphs that are none of ihigraph's, stored as given. A session's
//! graph is written through [`HistoryStore::write_session`] and deleted through
//! [`HistoryStore::delete_session`], never here: those keep its fingerprint record,
//! digest and search entries with it. ihigraph's own graphs are written by ihigraph
//! alone.

use super::{HistoryStore, StoreError};
use crate::rdf::ONTOLOGIES;
use crate::rdf::vocab::ihi;
use oxigraph::model::{GraphName, NamedNode, Quad, Term, Triple};

/// What a graph is to ihigraph.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GraphRole {
    /// A session's graph, as the IRI scheme names them.
    Session,
    /// One of ihigraph's own graphs: what it keeps there.
    Own(&'static str),
    /// A graph that is none of ihigraph's: stored as given.
    Other,
}

impl HistoryStore {
    /// What `graph` is to ihigraph: the default graph holds the store's settings; the
    /// fingerprint records, the memory items, each session's derived data and the
    /// ontologies have their graphs; a session graph is named by the IRI scheme.
    pub fn graph_role(&self, graph: &GraphName) -> GraphRole {
        let GraphName::NamedNode(name) = graph else {
            return GraphRole::Own("the store's settings (its IRI scheme and ontology digest)");
        };
        let scheme = &self.scheme;
        if *name == scheme.fingerprints_graph() {
            GraphRole::Own("the sessions' fingerprint records")
        } else if *name == scheme.memory_graph() {
            GraphRole::Own("the memory items made from turns")
        } else if scheme.is_derived_graph(name.as_str()) {
            GraphRole::Own("what is derived from a session (its digest)")
        } else if ONTOLOGIES.iter().any(|(iri, _)| *iri == name.as_str()) {
            GraphRole::Own("an ontology of ihigraph's")
        } else if scheme.derived_graph_of(name).is_some() {
            GraphRole::Session
        } else if name.as_str().starts_with(scheme.base()) {
            GraphRole::Own("a name in ihigraph's namespace, where it names its own graphs")
        } else {
            GraphRole::Other
        }
    }

    /// The quads of a graph, or `None` when it is a named graph the store does not hold.
    pub fn graph_quads(&self, graph: &GraphName) -> Result<Option<Vec<Quad>>, StoreError> {
        if let GraphName::NamedNode(name) = graph
            && !self.backend.contains_graph(name.as_ref())?
        {
            return Ok(None);
        }
        let quads = self
            .backend
            .quads(Some(graph.as_ref()))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(quads))
    }

    /// Replaces a graph that is none of ihigraph's with `triples`, in one atomic step;
    /// whether it existed before. An empty graph is no graph. Only the difference is
    /// written, in one batch (a transaction that rewrote the graph took 19 s for 100,000
    /// new triples in a debug build).
    pub fn replace_other_graph(
        &self,
        graph: &NamedNode,
        triples: Vec<Triple>,
    ) -> Result<bool, StoreError> {
        self.only_other(graph)?;
        self.no_session_in(graph, &triples)?;
        let name = GraphName::NamedNode(graph.clone());
        let stored = self.graph_quads(&name)?;
        let existed = stored.is_some();
        let quads = in_graph(graph, triples);
        if quads.is_empty() {
            if existed {
                self.backend.replace_graphs(&[name], Vec::new())?;
            }
            return Ok(existed);
        }
        let (removed, added) = super::quad_difference(&stored.unwrap_or_default(), &quads);
        if !removed.is_empty() || !added.is_empty() {
            self.backend.change(&removed, &added)?;
        }
        Ok(existed)
    }

    /// Adds `triples` to a graph that is none of ihigraph's (made when it does not
    /// exist); whether it existed before.
    pub fn add_to_other_graph(
        &self,
        graph: &NamedNode,
        triples: Vec<Triple>,
    ) -> Result<bool, StoreError> {
        self.only_other(graph)?;
        self.no_session_in(graph, &triples)?;
        let existed = self.backend.contains_graph(graph.as_ref())?;
        self.backend.change(&[], &in_graph(graph, triples))?;
        Ok(existed)
    }

    /// Drops a graph that is none of ihigraph's; whether it existed.
    pub fn drop_other_graph(&self, graph: &NamedNode) -> Result<bool, StoreError> {
        self.only_other(graph)?;
        if !self.backend.contains_graph(graph.as_ref())? {
            return Ok(false);
        }
        self.backend
            .replace_graphs(&[GraphName::NamedNode(graph.clone())], Vec::new())?;
        Ok(true)
    }

    /// Refuses triples that claim a session (`ihi:sessionId`) for a graph that is not
    /// that session's: the store would list it as one, without its record or checks.
    fn no_session_in(&self, graph: &NamedNode, triples: &[Triple]) -> Result<(), StoreError> {
        let claimed = triples.iter().find_map(|triple| match &triple.object {
            Term::Literal(id) if triple.predicate == ihi::SESSION_ID => Some(id.value()),
            _ => None,
        });
        match claimed {
            None => Ok(()),
            Some(id) => Err(StoreError::SessionOutsideItsGraph {
                graph: graph.as_str().to_owned(),
                session_id: id.to_owned(),
                expected: self.scheme.session_graph(id).as_str().to_owned(),
            }),
        }
    }

    fn only_other(&self, graph: &NamedNode) -> Result<(), StoreError> {
        match self.graph_role(&GraphName::NamedNode(graph.clone())) {
            GraphRole::Other => Ok(()),
            GraphRole::Session => Err(StoreError::NotOtherGraph {
                graph: graph.as_str().to_owned(),
                holds: "a session, written with its fingerprint, digest and search entries",
            }),
            GraphRole::Own(holds) => Err(StoreError::NotOtherGraph {
                graph: graph.as_str().to_owned(),
                holds,
            }),
        }
    }
}

/// The `SessionID` the quads of a session graph give, when they give one.
pub fn session_id_in(quads: &[Quad]) -> Option<String> {
    quads.iter().find_map(|quad| match &quad.object {
        Term::Literal(id) if quad.predicate == ihi::SESSION_ID => Some(id.value().to_owned()),
        _ => None,
    })
}

fn in_graph(graph: &NamedNode, triples: Vec<Triple>) -> Vec<Quad> {
    triples
        .into_iter()
        .map(|triple| triple.in_graph(graph.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_follow_the_iri_scheme_and_other_graphs_are_stored_as_given() {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let scheme = store.scheme().clone();
        let role = |graph: NamedNode| store.graph_role(&GraphName::NamedNode(graph));
        assert_eq!(role(scheme.session_graph("s 1")), GraphRole::Session);
        assert!(matches!(
            role(scheme.fingerprints_graph()),
            GraphRole::Own(_)
        ));
        assert!(matches!(role(scheme.memory_graph()), GraphRole::Own(_)));
        assert!(matches!(
            role(scheme.derived_graph("s 1")),
            GraphRole::Own(_)
        ));
        assert!(matches!(
            role(NamedNode::new_unchecked(ONTOLOGIES[0].0)),
            GraphRole::Own(_)
        ));
        assert!(matches!(
            store.graph_role(&GraphName::DefaultGraph),
            GraphRole::Own(_)
        ));
        let other = NamedNode::new_unchecked("http://example.org/g");
        assert_eq!(role(other.clone()), GraphRole::Other);
        let namespace = NamedNode::new_unchecked(format!("{}graph/a/b", scheme.base()));
        assert!(matches!(role(namespace), GraphRole::Own(_)));

        let triple = |o: &str| {
            Triple::new(
                NamedNode::new_unchecked("http://example.org/s"),
                NamedNode::new_unchecked("http://example.org/p"),
                NamedNode::new_unchecked(o),
            )
        };
        let graph = GraphName::NamedNode(other.clone());
        assert_eq!(store.graph_quads(&graph).unwrap(), None);
        assert!(
            !store
                .replace_other_graph(&other, vec![triple("http://a")])
                .unwrap()
        );
        assert!(
            store
                .add_to_other_graph(&other, vec![triple("http://b")])
                .unwrap()
        );
        assert_eq!(store.graph_quads(&graph).unwrap().unwrap().len(), 2);
        assert!(
            store
                .replace_other_graph(&other, vec![triple("http://c")])
                .unwrap()
        );
        assert_eq!(store.graph_quads(&graph).unwrap().unwrap().len(), 1);
        assert!(store.drop_other_graph(&other).unwrap());
        assert!(!store.drop_other_graph(&other).unwrap());
        assert_eq!(store.graph_quads(&graph).unwrap(), None);

        let claim = Triple::new(
            NamedNode::new_unchecked("http://example.org/c"),
            ihi::SESSION_ID,
            oxigraph::model::Literal::new_simple_literal("s"),
        );
        assert!(matches!(
            store.add_to_other_graph(&other, vec![claim]),
            Err(StoreError::SessionOutsideItsGraph { .. })
        ));
        let session = scheme.session_graph("s");
        assert!(matches!(
            store.replace_other_graph(&session, vec![triple("http://a")]),
            Err(StoreError::NotOtherGraph { .. })
        ));
        assert!(matches!(
            store.drop_other_graph(&scheme.fingerprints_graph()),
            Err(StoreError::NotOtherGraph { .. })
        ));
    }
}
