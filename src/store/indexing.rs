//! The store keeps its full-text index ([`SearchIndex`]) in step: every write of a session,
//! every delete and every update that may change a session graph or the memory graph is
//! followed by the index's commit for what changed, and an update first takes the
//! marker of what it may change out of the index, so that a crash between the two
//! commits leaves those sessions marked as not indexed. On open, the index is compared
//! with the store's fingerprint records ([`HistoryStore::settle_derived`]): a
//! session indexed at another digest, not indexed, or indexed but gone is indexed again
//! or dropped. Only a store ihigraph keeps alone has an index
//! ([`Capabilities::exclusive`](super::Capabilities)).

use super::graphs::session_id_in;
use super::inference::ReasonedGraph;
use super::search::{
    HitColumn, IndexedSession, SearchHit, SearchIndex, SearchRequest, SearchService, memory_texts,
    session_texts, turn_texts,
};
use super::{FingerprintRecord, Held, HistoryStore, StoreError};
use crate::rdf::fingerprint;
use oxigraph::model::{NamedNode, Quad, Term, Variable};
use oxigraph::sparql::{QueryResults, QuerySolutionIter};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, sync_channel};

/// The columns of [`HistoryStore::search_results`]: every [`HitColumn`]'s name.
pub const SEARCH_COLUMNS: [&str; 9] = [
    HitColumn::ALL[0].name(),
    HitColumn::ALL[1].name(),
    HitColumn::ALL[2].name(),
    HitColumn::ALL[3].name(),
    HitColumn::ALL[4].name(),
    HitColumn::ALL[5].name(),
    HitColumn::ALL[6].name(),
    HitColumn::ALL[7].name(),
    HitColumn::ALL[8].name(),
];

/// How many sessions are indexed again per commit when the index is settled or rebuilt.
const REINDEX_BATCH: usize = 500;

/// What the sessions a commit stored give the full-text index and the inferred store
/// (`inference.rs`), written together on the index's thread.
#[derive(Debug, Default)]
pub(super) struct Derived {
    pub(super) indexed: Vec<IndexedSession>,
    pub(super) reasoned: Vec<ReasonedGraph>,
}

impl Derived {
    /// What one written session gives (nothing, where the store has neither).
    pub(super) fn add(&mut self, indexed: Option<IndexedSession>, reasoned: Option<ReasonedGraph>) {
        self.indexed.extend(indexed);
        self.reasoned.extend(reasoned);
    }

    fn is_empty(&self) -> bool {
        self.indexed.is_empty() && self.reasoned.is_empty()
    }
}

/// The index's write of the sessions a commit stored, running beside the store's next
/// work (an ingest maps and loads its next batch meanwhile), and what became of the one
/// before: every other use of the index waits for it first, so that what a search sees
/// is every session the store committed, and the index is written in the order of the
/// store's commits.
#[derive(Debug, Default)]
pub(super) struct Pending {
    write: Option<std::thread::JoinHandle<Result<(), StoreError>>>,
    failed: Option<StoreError>,
}

impl Pending {
    /// Waits for the write in progress, and keeps its failure (the first) to be said.
    fn join(&mut self, location: impl FnOnce() -> String) {
        let Some(write) = self.write.take() else {
            return;
        };
        let outcome = write.join().unwrap_or_else(|_| {
            Err(StoreError::SearchIndex {
                location: location(),
                source: tantivy::TantivyError::SystemError(
                    "the index's writer thread panicked".to_owned(),
                ),
            })
        });
        if let Err(error) = outcome {
            self.failed.get_or_insert(error);
        }
    }
}

/// How many parts of a batch may wait for the index's thread before a writer waits.
const PIPE_DEPTH: usize = 4;

/// The full-text index's thread of a [`SessionWriter`](super::SessionWriter): the new
/// sessions of a batch are given to the index as the writer gives them to the store's
/// loader (`SearchIndex::stage_uncommitted`), so that the index analyzes them beside the
/// store's own work instead of after its commit; the index commits once the store has
/// ([`HistoryStore::index_piped`]), and a pipe dropped before that (the store's commit
/// failed, the writer was dropped) takes what it staged out again. At most
/// [`PIPE_DEPTH`] parts wait, so what it holds is bounded whatever the ingest.
pub(super) struct IndexPipe {
    sender: Option<SyncSender<Staged>>,
    worker: Option<std::thread::JoinHandle<Result<(), StoreError>>>,
    location: String,
}

/// What an [`IndexPipe`]'s thread is given: a part's sessions, then, once the store has
/// committed them, the word to commit (the channel closed without it: take them out).
enum Staged {
    Sessions(Vec<IndexedSession>),
    Commit,
}

impl IndexPipe {
    fn new(index: Arc<SearchIndex>, location: String) -> Result<Self, StoreError> {
        let (sender, receiver) = sync_channel(PIPE_DEPTH);
        let worker = std::thread::Builder::new()
            .name("ihigraph-index".to_owned())
            .spawn(move || {
                let mut owners: Vec<String> = Vec::new();
                let mut failed = None;
                let mut committed = false;
                for staged in receiver {
                    let sessions = match staged {
                        Staged::Sessions(sessions) => sessions,
                        Staged::Commit => {
                            committed = true;
                            break;
                        }
                    };
                    owners.extend(sessions.iter().map(|session| session.owner.clone()));
                    if failed.is_none()
                        && let Err(error) = index.stage_uncommitted(&sessions)
                    {
                        failed = Some(error);
                    }
                }
                match failed {
                    None if committed => index.commit_staged(),
                    failed => {
                        // Not committed by the store, or not staged whole: taken out (a
                        // session the store holds and the index does not is indexed on
                        // the next open).
                        let owners: Vec<&str> = owners.iter().map(String::as_str).collect();
                        index.replace(&[], &owners)?;
                        failed.map_or(Ok(()), Err)
                    }
                }
            })
            .map_err(|error| StoreError::SearchIndex {
                location: location.clone(),
                source: error.into(),
            })?;
        Ok(Self {
            sender: Some(sender),
            worker: Some(worker),
            location,
        })
    }

    /// Gives the thread the sessions of one part (waiting while [`PIPE_DEPTH`] wait).
    pub(super) fn send(&self, sessions: Vec<IndexedSession>) -> Result<(), StoreError> {
        self.sender
            .as_ref()
            .and_then(|sender| sender.send(Staged::Sessions(sessions)).ok())
            .ok_or_else(|| StoreError::SearchIndex {
                location: self.location.clone(),
                source: tantivy::TantivyError::SystemError(
                    "the index's writer thread stopped".to_owned(),
                ),
            })
    }

    /// The store committed: the thread commits once it has staged every part, and is
    /// handed over to be waited for as the index's write in progress.
    fn committed(mut self) -> Option<std::thread::JoinHandle<Result<(), StoreError>>> {
        // A thread that stopped cannot be told; joined, it says why.
        if let Some(sender) = self.sender.take() {
            let _ = sender.send(Staged::Commit);
        }
        self.worker.take()
    }
}

impl Drop for IndexPipe {
    fn drop(&mut self) {
        // Closing the channel uncommitted: the thread takes out what it staged.
        self.sender = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

impl HistoryStore {
    /// A thread that stages the new sessions of a writer in the full-text index as they
    /// are given (see [`IndexPipe`]); `None` when the store has no index.
    pub(super) fn index_pipe(&self) -> Result<Option<IndexPipe>, StoreError> {
        match &self.search {
            Some(index) => IndexPipe::new(Arc::clone(index), self.location()).map(Some),
            None => Ok(None),
        }
    }

    /// The store committed what `pipe` staged: its commit becomes the index's write in
    /// progress, beside the caller's next work, after the one before (whose failure is
    /// returned here, as [`Self::index_written`] does).
    pub(super) fn index_piped(&self, pipe: IndexPipe) -> Result<(), StoreError> {
        let mut pending = self.pending();
        pending.join(|| self.location());
        pending.write = pipe.committed();
        match pending.failed.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// The full-text index, when this store has one, once it holds every session the
    /// store committed (a failure of that write is returned by the next call that can).
    pub fn search_index(&self) -> Option<&SearchIndex> {
        self.join_index_write();
        self.search.as_deref()
    }

    /// Waits until the full-text index holds every session the store committed: the
    /// index is written beside the store's next work, so a failure of that write is
    /// said here, or by the next write or search.
    ///
    /// # Errors
    ///
    /// The index's write failed: the sessions are stored, and the next open indexes
    /// them.
    pub fn wait_for_index(&self) -> Result<(), StoreError> {
        self.join_index_write();
        match self.pending().failed.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Closes the store: waits until the full-text index holds every session the store
    /// committed, then for the merges of the index's segments that the last writes began
    /// (see [`SearchIndex::close`]). Dropping the store does the same and lets errors go:
    /// this says them.
    ///
    /// # Errors
    ///
    /// The index's write or a merge failed: the sessions are stored, and the next open
    /// indexes them (a merge is begun again by the next writer).
    pub fn close(self) -> Result<(), StoreError> {
        self.finish_index()
    }

    /// What [`close`](Self::close) and the store's drop do: the index's write waited
    /// for, then its merges, each whatever became of the other (the first failure said).
    /// Nothing is left to wait for after it.
    pub(super) fn finish_index(&self) -> Result<(), StoreError> {
        let written = self.wait_for_index();
        let merged = self.search.as_ref().map_or(Ok(()), |index| index.close());
        written.and(merged)
    }

    /// The index, once the write in progress is done; the error of a write that failed.
    pub(super) fn index(&self) -> Result<Option<&Arc<SearchIndex>>, StoreError> {
        self.wait_for_index()?;
        Ok(self.search.as_ref())
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        // A panic while it was held leaves a handle or an error, both still whole.
        self.indexing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Joins the write in progress, keeping its failure to be said.
    fn join_index_write(&self) {
        self.pending().join(|| self.location());
    }

    /// What answers `SERVICE text:search` from this store's index (see
    /// [`SearchService`]), for an evaluator of one's own over the same data: every search
    /// is refused, saying why, when the store has no index.
    pub fn search_service(&self) -> SearchService {
        SearchService::new(self.search.clone(), self.location())
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
        match self.index()? {
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
            .iter()
            .map(|hit| HitColumn::ALL.map(|column| column.value(hit)).to_vec())
            .collect();
        Ok(QueryResults::Solutions(QuerySolutionIter::from_tuples(
            Arc::from(SEARCH_COLUMNS.map(Variable::new_unchecked)),
            rows.into_iter().map(Ok),
        )))
    }

    /// Builds the full-text index again from the store, whole; the number of sessions
    /// indexed. A store without an index has nothing to build.
    pub fn reindex(&self) -> Result<usize, StoreError> {
        let Some(index) = self.index()? else {
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

    /// What the store holds now, read once for the index and the inferred store to be
    /// settled against (see [`Held`]).
    pub(super) fn held(&self) -> Result<Held, StoreError> {
        let records = self.fingerprint_records()?;
        let sessions = self
            .sessions()?
            .into_iter()
            .map(|(_, graph)| {
                let digest = recorded_digest(&records, &graph).to_owned();
                (graph, digest)
            })
            .collect();
        Ok(Held {
            sessions,
            memory: self.memory_digest()?,
        })
    }

    /// Brings the index and the inferred store in line with the store (after it was
    /// opened, or an update that may have changed anything), both against one reading
    /// of what it holds.
    pub(super) fn settle_derived(&self) -> Result<(), StoreError> {
        if self.search.is_none() && self.inference.is_none() {
            return Ok(());
        }
        let held = self.held()?;
        self.settle_search_index(&held)?;
        self.settle_inference(&held).map(|_| ())
    }

    /// Brings the index in line with what the store holds: see the module's text.
    fn settle_search_index(&self, held: &Held) -> Result<(), StoreError> {
        let Some(index) = self.index()? else {
            return Ok(());
        };
        let mut indexed = index.indexed()?;
        let (stale, memory_stale) = held.stale(&self.scheme.memory_graph(), |graph| {
            indexed.remove(graph.as_str())
        });
        let gone: Vec<&str> = indexed.keys().map(String::as_str).collect();
        index.replace(&[], &gone)?;
        self.index_from_store(&stale, memory_stale)
    }

    /// Indexes the given session graphs (and the memory graph) as the store holds them.
    fn index_from_store(&self, graphs: &[NamedNode], memory: bool) -> Result<(), StoreError> {
        let Some(index) = self.index()? else {
            return Ok(());
        };
        let records = self.fingerprint_records_of(graphs)?;
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
                        turns: None,
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
                turns: None,
            };
            index.replace(&[memory], &[])?;
        }
        Ok(())
    }

    /// The memory graph's digest, as the index records it.
    pub(super) fn memory_digest(&self) -> Result<String, StoreError> {
        let quads = self.session_quads(self.scheme.memory_graph().as_ref())?;
        memory_digest_of(&quads)
    }

    /// Indexes sessions just written, and reasons about them, given with the records
    /// the store took of them. Both commits run on a thread of their own, beside what the
    /// caller does next (see [`Pending`]); the one before is waited for first.
    pub(super) fn index_written(&self, derived: Derived) -> Result<(), StoreError> {
        let index = self.search.clone();
        let inference = self.inference.clone();
        if index.is_none() && inference.is_none() {
            return Ok(());
        }
        // Held from the wait to the start of the next write: two writers of one store
        // index in the order they took it.
        let mut pending = self.pending();
        pending.join(|| self.location());
        if let Some(error) = pending.failed.take() {
            return Err(error);
        }
        if derived.is_empty() {
            return Ok(());
        }
        let write = std::thread::Builder::new()
            .name("ihigraph-index".to_owned())
            .spawn(move || {
                if let Some(index) = index {
                    index.replace(&derived.indexed, &[])?;
                }
                match inference {
                    Some(inference) => inference.write(&derived.reasoned),
                    None => Ok(()),
                }
            })
            .map_err(|error| StoreError::SearchIndex {
                location: self.location(),
                source: error.into(),
            })?;
        pending.write = Some(write);
        Ok(())
    }

    /// Indexes sessions just written, each with the record the store took of it.
    pub(super) fn index_recorded<'a>(
        &self,
        written: impl Iterator<Item = (&'a crate::rdf::SessionGraph, &'a FingerprintRecord)>,
    ) -> Result<(), StoreError> {
        let mut derived = Derived::default();
        for (session, record) in written {
            derived.add(
                self.indexed_session(session, record),
                self.reasoned_session(session, record),
            );
        }
        self.index_written(derived)
    }

    /// What the index is to hold of a session written with `record`.
    pub(super) fn indexed_session(
        &self,
        session: &crate::rdf::SessionGraph,
        record: &FingerprintRecord,
    ) -> Option<IndexedSession> {
        self.indexed_turns(session, record, None)
    }

    /// What the index is to hold of the given turns of a session written with `record`
    /// (of the whole session, for `None`): an append to a session of 1,000 messages
    /// indexes its new turns, not the 1,000 messages again.
    pub(super) fn indexed_turns(
        &self,
        session: &crate::rdf::SessionGraph,
        record: &FingerprintRecord,
        turns: Option<Vec<String>>,
    ) -> Option<IndexedSession> {
        self.search.as_ref()?;
        let texts = match &turns {
            Some(turns) => turn_texts(&session.session_id, &session.quads, turns),
            None => session_texts(&session.session_id, &session.quads),
        };
        Some(IndexedSession {
            owner: session.graph.as_str().to_owned(),
            digest: record.fingerprint.digest.clone(),
            texts,
            turns,
        })
    }

    /// Drops sessions from the index.
    /// Drops sessions from the index and the inferred store.
    pub(super) fn unindex(&self, graphs: &[&NamedNode]) -> Result<(), StoreError> {
        if let Some(inference) = self.inference()? {
            inference.drop_graphs(graphs)?;
        }
        let Some(index) = self.index()? else {
            return Ok(());
        };
        let owners: Vec<&str> = graphs.iter().map(|graph| graph.as_str()).collect();
        index.replace(&[], &owners)
    }

    /// Empties the index and the inferred store of sessions (every session deleted),
    /// and reasons about the emptied memory graph.
    pub(super) fn unindex_all(&self) -> Result<(), StoreError> {
        if let Some(inference) = self.inference()? {
            inference.clear()?;
            self.settle_inference(&self.held()?)?;
        }
        match self.index()? {
            Some(index) => index.clear(),
            None => Ok(()),
        }
    }

    /// The inferred store, once the write in progress is done (see
    /// [`index`](Self::index)).
    pub(super) fn inference(&self) -> Result<Option<&super::inference::Inference>, StoreError> {
        self.wait_for_index()?;
        Ok(self.inference.as_ref())
    }

    /// Before an update that may change `touched` (every graph, for `None`): takes their
    /// markers out of the index, so that a crash before [`Self::after_update`] leaves
    /// them to be indexed again at the next open. Returns what to index after it.
    pub(super) fn before_update(
        &self,
        touched: Option<BTreeSet<NamedNode>>,
    ) -> Result<Option<Vec<NamedNode>>, StoreError> {
        let index = self.index()?.cloned();
        let inference = self.inference()?;
        if index.is_none() && inference.is_none() {
            return Ok(Some(Vec::new()));
        }
        let memory = self.scheme.memory_graph();
        let Some(touched) = touched else {
            if let Some(index) = index {
                index.forget_markers(None)?;
            }
            if let Some(inference) = inference {
                inference.forget_marks(None)?;
            }
            return Ok(None);
        };
        let owners: Vec<NamedNode> = touched
            .into_iter()
            .filter(|graph| *graph == memory || self.scheme.derived_graph_of(graph).is_some())
            .collect();
        if !owners.is_empty() {
            if let Some(index) = index {
                let names: Vec<&str> = owners.iter().map(NamedNode::as_str).collect();
                index.forget_markers(Some(&names))?;
            }
            if let Some(inference) = inference {
                inference.forget_marks(Some(&owners))?;
            }
        }
        Ok(Some(owners))
    }

    /// After an update: indexes again what [`Self::before_update`] said it may change.
    pub(super) fn after_update(&self, touched: Option<Vec<NamedNode>>) -> Result<(), StoreError> {
        match touched {
            None => self.settle_derived(),
            Some(graphs) => {
                let memory = self.scheme.memory_graph();
                let sessions: Vec<NamedNode> = graphs
                    .iter()
                    .filter(|graph| **graph != memory)
                    .cloned()
                    .collect();
                let memory = sessions.len() < graphs.len();
                self.index_from_store(&sessions, memory)?;
                self.reason_from_store(&sessions, memory)
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
