//! The store keeps its full-text index ([`SearchIndex`]) in step: every write of a session,
//! every delete and every update that may change a session graph or the memory graph is
//! followed by the index's commit for what changed, and an update first takes the
//! marker of what it may change out of the index, so that a crash between the two
//! commits leaves those sessions marked as not indexed. On open, the index is compared
//! with the store's fingerprint records ([`HistoryStore::settle_search_index`]): a
//! session indexed at another digest, not indexed, or indexed but gone is indexed again
//! or dropped. Only a store ihigraph keeps alone has an index
//! ([`Capabilities::exclusive`](super::Capabilities)).

use super::search::{
    IndexedSession, SearchHit, SearchIndex, SearchRequest, memory_texts, session_texts,
};
use super::{FingerprintRecord, HistoryStore, StoreError};
use crate::rdf::fingerprint;
use crate::rdf::vocab::ihi;
use oxigraph::model::vocab::xsd;
use oxigraph::model::{Literal, NamedNode, Quad, Term, Variable};
use oxigraph::sparql::{QueryResults, QuerySolutionIter};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The columns of [`HistoryStore::search_results`].
pub const SEARCH_COLUMNS: [&str; 9] = [
    "session",
    "turnIndex",
    "turn",
    "role",
    "time",
    "kind",
    "score",
    "snippet",
    "language",
];

/// How many sessions are indexed again per commit when the index is settled or rebuilt.
const REINDEX_BATCH: usize = 500;

impl HistoryStore {
    /// The full-text index, when this store has one.
    pub fn search_index(&self) -> Option<&SearchIndex> {
        self.search.as_ref()
    }

    /// The texts that match a search, best first (see [`SearchRequest`]).
    ///
    /// ```
    /// use ihigraph::check::{CheckOptions, check_document};
    /// use ihigraph::rdf::map_history;
    /// use ihigraph::{HistoryStore, SearchRequest};
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let document = ihigraph::generate::generate(Default::default()).next().unwrap();
    /// let history = check_document(&document, CheckOptions::default()).history.unwrap();
    /// store.write_session(&map_history(&history, store.scheme()))?;
    /// let hits = store.search(&SearchRequest::new("pipeline OR timeout"))?;
    /// assert!(hits.iter().all(|hit| hit.session_id == history.session_id));
    /// # Ok::<_, ihigraph::StoreError>(())
    /// ```
    pub fn search(&self, request: &SearchRequest) -> Result<Vec<SearchHit>, StoreError> {
        match &self.search {
            Some(index) => index.search(request),
            None => Err(StoreError::NoSearchIndex {
                location: self.location(),
            }),
        }
    }

    /// [`search`](Self::search) as query results, one row per hit, best first, in the
    /// columns of [`SEARCH_COLUMNS`]: the session and turn IRI join a hit with the graph,
    /// and the snippet marks each matched word as `**word**`.
    pub fn search_results(
        &self,
        request: &SearchRequest,
    ) -> Result<QueryResults<'static>, StoreError> {
        let rows: Vec<Vec<Option<Term>>> = self
            .search(request)?
            .into_iter()
            .map(|hit| {
                vec![
                    Some(Literal::new_simple_literal(&hit.session_id).into()),
                    hit.turn_index.map(|index| Literal::from(index).into()),
                    hit.turn.map(|turn| NamedNode::new_unchecked(turn).into()),
                    hit.role
                        .map(|role| Literal::new_simple_literal(role).into()),
                    hit.time
                        .map(|time| Literal::new_typed_literal(time, xsd::DATE_TIME).into()),
                    Some(Literal::new_simple_literal(hit.kind.name()).into()),
                    // Three decimals: the ranking is what a score is for.
                    Some(Literal::from((f64::from(hit.score) * 1000.0).round() / 1000.0).into()),
                    Some(Literal::new_simple_literal(hit.snippet.marked("**", "**")).into()),
                    Some(Literal::new_simple_literal(hit.language).into()),
                ]
            })
            .collect();
        Ok(QueryResults::Solutions(QuerySolutionIter::from_tuples(
            Arc::from(SEARCH_COLUMNS.map(Variable::new_unchecked)),
            rows.into_iter().map(Ok),
        )))
    }

    /// Builds the full-text index again from the store, whole; the number of sessions
    /// indexed. A store without an index has nothing to build.
    pub fn reindex(&self) -> Result<usize, StoreError> {
        let Some(index) = &self.search else {
            return Err(StoreError::NoSearchIndex {
                location: self.location(),
            });
        };
        index.clear()?;
        let sessions: Vec<NamedNode> = self
            .sessions()?
            .into_iter()
            .map(|(_, graph)| graph)
            .collect();
        self.index_from_store(&sessions, true)?;
        Ok(sessions.len())
    }

    /// Brings the index in line with the store after it was opened: see the module's text.
    pub(super) fn settle_search_index(&self) -> Result<(), StoreError> {
        let Some(index) = &self.search else {
            return Ok(());
        };
        let mut indexed = index.indexed()?;
        let records = self.fingerprint_records()?;
        let mut stale = Vec::new();
        for (_, graph) in self.sessions()? {
            let digest = recorded_digest(&records, &graph);
            if indexed.remove(graph.as_str()).as_deref() != Some(digest) {
                stale.push(graph);
            }
        }
        let memory = self.scheme.memory_graph();
        let memory_stale = indexed.remove(memory.as_str()) != Some(self.memory_digest()?);
        let gone: Vec<&str> = indexed.keys().map(String::as_str).collect();
        index.replace(&[], &gone)?;
        self.index_from_store(&stale, memory_stale)
    }

    /// Indexes the given session graphs (and the memory graph) as the store holds them.
    fn index_from_store(&self, graphs: &[NamedNode], memory: bool) -> Result<(), StoreError> {
        let Some(index) = &self.search else {
            return Ok(());
        };
        let records = if graphs.is_empty() {
            Default::default()
        } else {
            self.fingerprint_records()?
        };
        for chunk in graphs.chunks(REINDEX_BATCH) {
            let mut sessions = Vec::with_capacity(chunk.len());
            let mut removed = Vec::new();
            for graph in chunk {
                let quads = self.session_quads(graph.as_ref())?;
                match session_id_in(&quads) {
                    Some(id) => sessions.push(IndexedSession {
                        owner: graph.as_str().to_owned(),
                        digest: recorded_digest(&records, graph).to_owned(),
                        texts: session_texts(&id, &quads),
                    }),
                    None => removed.push(graph.as_str()),
                }
            }
            index.replace(&sessions, &removed)?;
        }
        if memory {
            let graph = self.scheme.memory_graph();
            let quads = self.session_quads(graph.as_ref())?;
            let memory = IndexedSession {
                owner: graph.as_str().to_owned(),
                digest: memory_digest_of(&quads)?,
                texts: memory_texts(&quads),
            };
            index.replace(&[memory], &[])?;
        }
        Ok(())
    }

    /// The memory graph's digest, as the index records it.
    fn memory_digest(&self) -> Result<String, StoreError> {
        let quads = self.session_quads(self.scheme.memory_graph().as_ref())?;
        memory_digest_of(&quads)
    }

    /// Indexes sessions just written, given with the records the store took of them.
    pub(super) fn index_written(&self, sessions: &[IndexedSession]) -> Result<(), StoreError> {
        match &self.search {
            Some(index) => index.replace(sessions, &[]),
            None => Ok(()),
        }
    }

    /// What the index is to hold of a session written with `record`.
    pub(super) fn indexed_session(
        &self,
        session: &crate::rdf::SessionGraph,
        record: &FingerprintRecord,
    ) -> Option<IndexedSession> {
        self.search.as_ref()?;
        Some(IndexedSession {
            owner: session.graph.as_str().to_owned(),
            digest: record.fingerprint.digest.clone(),
            texts: session_texts(&session.session_id, &session.quads),
        })
    }

    /// Drops sessions from the index.
    pub(super) fn unindex(&self, graphs: &[&NamedNode]) -> Result<(), StoreError> {
        let Some(index) = &self.search else {
            return Ok(());
        };
        let owners: Vec<&str> = graphs.iter().map(|graph| graph.as_str()).collect();
        index.replace(&[], &owners)
    }

    /// Empties the index (every session deleted).
    pub(super) fn unindex_all(&self) -> Result<(), StoreError> {
        match &self.search {
            Some(index) => index.clear(),
            None => Ok(()),
        }
    }

    /// Before an update that may change `touched` (every graph, for `None`): takes their
    /// markers out of the index, so that a crash before [`Self::after_update`] leaves
    /// them to be indexed again at the next open. Returns what to index after it.
    pub(super) fn before_update(
        &self,
        touched: Option<BTreeSet<NamedNode>>,
    ) -> Result<Option<Vec<NamedNode>>, StoreError> {
        let Some(index) = &self.search else {
            return Ok(Some(Vec::new()));
        };
        let memory = self.scheme.memory_graph();
        let Some(touched) = touched else {
            index.forget_markers(None)?;
            return Ok(None);
        };
        let owners: Vec<NamedNode> = touched
            .into_iter()
            .filter(|graph| *graph == memory || self.scheme.derived_graph_of(graph).is_some())
            .collect();
        if !owners.is_empty() {
            let names: Vec<&str> = owners.iter().map(NamedNode::as_str).collect();
            index.forget_markers(Some(&names))?;
        }
        Ok(Some(owners))
    }

    /// After an update: indexes again what [`Self::before_update`] said it may change.
    pub(super) fn after_update(&self, touched: Option<Vec<NamedNode>>) -> Result<(), StoreError> {
        match touched {
            None => self.settle_search_index(),
            Some(graphs) => {
                let memory = self.scheme.memory_graph();
                let sessions: Vec<NamedNode> = graphs
                    .iter()
                    .filter(|graph| **graph != memory)
                    .cloned()
                    .collect();
                self.index_from_store(&sessions, sessions.len() < graphs.len())
            }
        }
    }
}

/// The digest the store recorded for a session graph (empty: no record).
fn recorded_digest<'a>(
    records: &'a std::collections::BTreeMap<NamedNode, FingerprintRecord>,
    graph: &NamedNode,
) -> &'a str {
    records
        .get(graph)
        .map_or("", |record| record.fingerprint.digest.as_str())
}

/// The memory graph's quads have no record of the store's: their own fingerprint.
fn memory_digest_of(quads: &[Quad]) -> Result<String, StoreError> {
    Ok(fingerprint(quads.iter().map(Quad::as_ref))?.digest)
}

/// The `SessionID` a session graph's quads give.
fn session_id_in(quads: &[Quad]) -> Option<String> {
    quads.iter().find_map(|quad| match &quad.object {
        Term::Literal(id) if quad.predicate == ihi::SESSION_ID => Some(id.value().to_owned()),
        _ => None,
    })
}
