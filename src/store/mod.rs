//! The store: one named graph per session, on a [`Backend`] (the embedded Oxigraph store
//! by default), with the store's own settings and the ontologies beside the sessions.
//! [`HistoryStore`] is the handle everything above this layer uses: it writes and reads
//! whole session graphs, runs queries and updates, and exports; it knows no use case
//! (checking, appending, ingesting pipelines live in [`ingest`](crate::ingest)).

mod backend;
mod digests;
mod embedded;
mod error;
mod export;
mod fingerprints;
mod graphs;
mod indexing;
mod inference;
mod parallel;
mod remote;
mod search;
mod settings;
mod tenants;
mod writer;

pub use backend::{Backend, Capabilities, GraphLoader, PageOrder, QuadStream};
pub use embedded::Embedded;
pub use error::{SchemeSetting, StoreError, error_chain};
pub use export::ExportFormat;
pub use fingerprints::FingerprintRecord;
pub use graphs::{GraphRole, session_id_in};
pub use indexing::SEARCH_COLUMNS;
pub use inference::INFERRED_DIRECTORY;
pub use remote::{Credentials, Dialect, Endpoint, Limits, Remote, RemoteError, RemoteOptions};
pub use search::{
    CjkBigrams, HitColumn, IndexedSession, SEARCH_SERVICE, SearchHit, SearchIndex, SearchKind,
    SearchRequest, SearchService, SearchText, Snippet, TEXT_NAMESPACE, TextLanguage,
    detect_language, session_texts,
};
pub use settings::{PeriodError, RetentionPeriod, SchemeRequest};
pub use tenants::{
    AccessList, AccessRole, IssuedToken, TENANTS_DIRECTORY, Tenant, TenantLimits, TenantName,
    TokenRecord,
};
pub use writer::SessionWriter;

/// A set of quads hashed with FxHash: what a session's graphs hold, as a live writer
/// keeps it to write only the difference (SipHash over every quad of the sessions a batch
/// touches was a tenth of the OTLP receiver's time).
pub type QuadSet = HashSet<Quad, FxBuildHasher>;

use crate::model::InteractionHistory;
use crate::query::{
    Arguments, CannedQuery, MAX_NESTING, RECENT_TURNS, RECENT_TURNS_COLUMNS, SEARCH, SEARCH_SCAN,
    check_nesting, recent_turns_arguments, set_dataset, set_named_graphs,
};
use crate::rdf::vocab::ihi;
use crate::rdf::{IriScheme, SessionGraph, rebuild_history};
use oxigraph::model::{Graph, GraphName, NamedNode, NamedOrBlankNode, Quad, Term, Variable};
use oxigraph::sparql::{
    CancellationToken, QueryResults, QuerySolution, QuerySolutionIter, SparqlSyntaxError,
};
use rustc_hash::FxBuildHasher;
use spargebra::SparqlParser;
use spargebra::algebra::{GraphPattern, QueryDataset};
use spargebra::term::TriplePattern;
use spargebra::{GraphUpdateOperation, Query, Update};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// The directory of the full-text index inside a store directory.
pub const SEARCH_DIRECTORY: &str = "search";

/// What writing a session did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOutcome {
    /// The session existed with other content and was replaced.
    pub replaced: bool,
    /// The session existed with the very same quads: nothing was written.
    pub unchanged: bool,
}

/// How a query runs, beyond its text: the dataset the SPARQL protocol may give, which
/// replaces the query's own `FROM` and `FROM NAMED`, the base its relative IRIs resolve
/// against, and a token that stops it.
#[derive(Clone, Default)]
pub struct QueryOptions {
    /// The graphs whose merge is the default graph (`default-graph-uri`).
    pub default_graphs: Vec<NamedNode>,
    /// The named graphs the query sees (`named-graph-uri`).
    pub named_graphs: Vec<NamedNode>,
    /// The IRI relative IRIs resolve against when the text has no `BASE` (none: a
    /// relative IRI is a syntax error).
    pub base_iri: Option<String>,
    /// Stops the query when cancelled (the embedded store checks it while it evaluates;
    /// on a server, the request time-out bounds a query instead).
    pub cancel: Option<CancellationToken>,
}

impl std::fmt::Debug for QueryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryOptions")
            .field("default_graphs", &self.default_graphs)
            .field("named_graphs", &self.named_graphs)
            .field("base_iri", &self.base_iri)
            .field("cancel", &self.cancel.is_some())
            .finish()
    }
}

/// How an update runs, beyond its text: the dataset the SPARQL protocol may give to its
/// `WHERE` clauses (`using-graph-uri`, `using-named-graph-uri`, as `USING` and `USING
/// NAMED` would), and the base its relative IRIs resolve against.
#[derive(Debug, Clone, Default)]
pub struct UpdateOptions {
    /// The graphs whose merge is the default graph of each `WHERE` (`using-graph-uri`).
    pub using_graphs: Vec<NamedNode>,
    /// The named graphs each `WHERE` sees (`using-named-graph-uri`).
    pub using_named_graphs: Vec<NamedNode>,
    /// The IRI relative IRIs resolve against when the text has no `BASE`.
    pub base_iri: Option<String>,
}

/// What the store holds, against which what is derived from it is settled: each
/// session graph with the digest of its fingerprint record (empty: none), and the memory
/// graph's digest.
struct Held {
    sessions: Vec<(NamedNode, String)>,
    memory: String,
}

impl Held {
    /// The session graphs whose mark (each taken out by `take`) is not their digest, and
    /// whether the memory graph's is not: what is to be derived again. What `take` has
    /// not taken out afterwards is of graphs the store no longer holds.
    fn stale(
        &self,
        memory: &NamedNode,
        mut take: impl FnMut(&NamedNode) -> Option<String>,
    ) -> (Vec<NamedNode>, bool) {
        let mut stale = Vec::new();
        for (graph, digest) in &self.sessions {
            if take(graph).as_ref() != Some(digest) {
                stale.push(graph.clone());
            }
        }
        let memory_stale = take(memory).as_ref() != Some(&self.memory);
        (stale, memory_stale)
    }
}

/// A SPARQL parser that resolves relative IRIs against `base`, when one is given.
fn parser_with_base(base: Option<&str>) -> Result<SparqlParser, StoreError> {
    let parser = SparqlParser::new();
    match base {
        None => Ok(parser),
        Some(base) => parser
            .with_base_iri(base)
            .map_err(|source| StoreError::BaseIri {
                base: base.to_owned(),
                source,
            }),
    }
}

/// Gives every `DELETE`/`INSERT ... WHERE` of `update` the protocol's dataset; refused
/// when one names its own (`USING`, `USING NAMED` or `WITH`: SPARQL 1.1 Protocol
/// §2.2.3). The other operations read no dataset.
fn set_using(update: &mut Update, options: &UpdateOptions) -> Result<(), StoreError> {
    if options.using_graphs.is_empty() && options.using_named_graphs.is_empty() {
        return Ok(());
    }
    for operation in &mut update.operations {
        if let GraphUpdateOperation::DeleteInsert { using, .. } = operation {
            if using.is_some() {
                return Err(StoreError::DatasetConflict);
            }
            *using = Some(QueryDataset {
                default: options.using_graphs.clone(),
                named: Some(options.using_named_graphs.clone()),
            });
        }
    }
    Ok(())
}

/// A store of interaction histories.
pub struct HistoryStore {
    backend: Box<dyn Backend>,
    scheme: IriScheme,
    /// The full-text index, kept in step by the store (`indexing.rs`): in `STORE_DIR/search/`,
    /// in RAM for a store in memory, none on a server.
    search: Option<Arc<SearchIndex>>,
    /// The index's write of what the last commit stored, on a thread of its own beside
    /// the store's next work, and a failure of the one before it not yet reported
    /// (`indexing.rs`).
    indexing: std::sync::Mutex<indexing::Pending>,
    /// What the ontologies entail about each session, kept in step by the store
    /// (`inference.rs`): in `STORE_DIR/inferred/` when the store reasons.
    inference: Option<inference::Inference>,
    /// The backend again when it is the embedded store: what `--inferred` queries read
    /// together with the inferred store (an Oxigraph store is a handle; this shares it).
    embedded: Option<Embedded>,
}

impl Drop for HistoryStore {
    fn drop(&mut self) {
        // What was written is indexed before the store closes, and the index's merges
        // are let finish (a failure of either is repaired by the next open, as after a
        // crash, or begun again by its next writer).
        let _ = self.finish_index();
    }
}

impl HistoryStore {
    /// Opens (creating if needed) the embedded on-disk store in `path`. A new store
    /// records the requested scheme; an existing one keeps its own, and a conflicting
    /// request is an error.
    ///
    /// ```
    /// use ihigraph::{HistoryStore, SchemeRequest};
    /// let directory = tempfile::tempdir()?;
    /// let store = HistoryStore::open(directory.path(), &SchemeRequest::default())?;
    /// assert_eq!(store.session_count()?, 0);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: &Path, request: &SchemeRequest) -> Result<Self, StoreError> {
        let mut store = Self::with_backend(Embedded::open(path)?, request)?
            .with_search_index(SearchIndex::open(&path.join(SEARCH_DIRECTORY))?)?;
        let inferred = path.join(INFERRED_DIRECTORY);
        if inferred.is_dir() {
            store.inference = Some(inference::Inference::open(&inferred)?);
        }
        // Both brought in line with the store against one reading of it.
        store.settle_derived()?;
        Ok(store)
    }

    /// Turns reasoning on or off for the embedded on-disk store in `path` (see
    /// [`crate::reason`]): on, every session is reasoned about now, and every write
    /// keeps what it entails in step from then on; off, the inferred store is removed.
    /// Returns the store, open. The store must not be open elsewhere (it is locked while
    /// this runs, so the inferred store is never removed under another process).
    pub fn set_reasoning(
        path: &Path,
        request: &SchemeRequest,
        on: bool,
    ) -> Result<Self, StoreError> {
        let inferred = path.join(INFERRED_DIRECTORY);
        if on {
            let store = Self::open(path, request)?;
            if store.inference.is_some() {
                return Ok(store);
            }
            std::fs::create_dir_all(&inferred).map_err(|source| StoreError::Inferred {
                path: inferred.clone(),
                source,
            })?;
            store.with_inference(inference::Inference::open(&inferred)?)
        } else {
            let mut store = Self::open(path, request)?;
            store.wait_for_index()?;
            store.inference = None;
            if inferred.is_dir() {
                std::fs::remove_dir_all(&inferred).map_err(|source| StoreError::Inferred {
                    path: inferred.clone(),
                    source,
                })?;
            }
            Ok(store)
        }
    }

    /// This store, reasoning in memory (for a store in memory, as tests and programs
    /// keep one; an on-disk store turns it on with [`set_reasoning`](Self::set_reasoning)).
    pub fn reasoning_in_memory(self) -> Result<Self, StoreError> {
        if self.inference.is_some() {
            return Ok(self);
        }
        self.with_inference(inference::Inference::in_memory()?)
    }

    /// The store with its inferred store, brought in line with it: only for a backend
    /// only ihigraph writes.
    fn with_inference(mut self, inference: inference::Inference) -> Result<Self, StoreError> {
        if self.embedded.is_none() {
            return Err(StoreError::NoReasoning {
                location: self.location(),
            });
        }
        self.inference = Some(inference);
        self.settle_inference(&self.held()?)?;
        Ok(self)
    }

    /// A new embedded store in memory.
    ///
    /// ```
    /// let store = ihigraph::HistoryStore::in_memory(&Default::default())?;
    /// assert_eq!(store.session_count()?, 0);
    /// # Ok::<_, ihigraph::StoreError>(())
    /// ```
    pub fn in_memory(request: &SchemeRequest) -> Result<Self, StoreError> {
        let store = Self::with_backend(Embedded::in_memory()?, request)?
            .with_search_index(SearchIndex::in_ram()?)?;
        store.settle_derived()?;
        Ok(store)
    }

    /// The store with its full-text index, to be brought in line with it by the caller
    /// (see [`SearchIndex`]): only for a backend only ihigraph writes.
    fn with_search_index(mut self, index: SearchIndex) -> Result<Self, StoreError> {
        if self.backend.capabilities().exclusive {
            self.search = Some(Arc::new(index));
            let service = self.search_service();
            self.backend.answer_searches(service);
        }
        Ok(self)
    }

    /// A store on a SPARQL 1.1 server (see [`Remote`]): the store's settings live there
    /// as they do in an embedded store, and a server written with another scheme is
    /// refused as a store directory would be.
    pub fn connect(options: RemoteOptions, request: &SchemeRequest) -> Result<Self, StoreError> {
        Self::with_backend(Remote::connect(options)?, request)
    }

    /// A store on any backend: its settings are read (or recorded, for a new store) and
    /// its ontologies brought up to this version.
    pub fn with_backend(
        backend: impl Backend + 'static,
        request: &SchemeRequest,
    ) -> Result<Self, StoreError> {
        let scheme = settings::settle(&backend, request, |scheme| {
            digests::settle_digests(&backend, scheme)
        })?;
        let embedded = (&backend as &dyn std::any::Any)
            .downcast_ref::<Embedded>()
            .cloned();
        Ok(Self {
            backend: Box::new(backend),
            scheme,
            search: None,
            indexing: std::sync::Mutex::default(),
            inference: None,
            embedded,
        })
    }

    /// How long this store keeps a session after its last turn, if it has a retention
    /// period (see [`crate::memory::prune`], which applies it).
    pub fn retention(&self) -> Result<Option<RetentionPeriod>, StoreError> {
        settings::retention(self.backend.as_ref())
    }

    /// Sets this store's retention period, or removes it (sessions are then kept until
    /// deleted). Nothing is deleted here: pruning applies it.
    pub fn set_retention(&self, period: Option<RetentionPeriod>) -> Result<(), StoreError> {
        settings::set_retention(self.backend.as_ref(), period)
    }

    /// The IRI scheme of this store.
    pub fn scheme(&self) -> &IriScheme {
        &self.scheme
    }

    /// Where the data lives, for people.
    pub fn location(&self) -> String {
        self.backend.location()
    }

    /// What the backend can do beyond the common ground.
    pub fn capabilities(&self) -> Capabilities {
        self.backend.capabilities()
    }

    /// Writes a session in one atomic step, replacing any earlier version of it: after
    /// an error, the store is as it was. A session already stored with the very same
    /// quads is left untouched.
    pub fn write_session(&self, session: &SessionGraph) -> Result<WriteOutcome, StoreError> {
        let stored = self.backend.contains_graph(session.graph.as_ref())?;
        self.write_known(session, stored)
    }

    /// [`write_session`](Self::write_session), whether the session's graph holds quads
    /// already being known.
    fn write_known(
        &self,
        session: &SessionGraph,
        replaced: bool,
    ) -> Result<WriteOutcome, StoreError> {
        if replaced && self.holds_exactly(session)? {
            self.keep_derived(session)?;
            return Ok(WriteOutcome {
                replaced: false,
                unchanged: true,
            });
        }
        let (graphs, quads) = self.session_and_derived(session);
        self.backend.replace_graphs(&graphs, quads)?;
        let records = self.record_written(&[session])?;
        self.index_recorded(std::iter::once(session).zip(&records))?;
        Ok(WriteOutcome {
            replaced,
            unchanged: false,
        })
    }

    /// Writes a new version of a session over `previous`, the version this caller wrote
    /// last, which the store must still hold as written (the caller checks that its
    /// fingerprint record is `previous`'s): only the quads that differ, its digest's
    /// included, are removed and added, in one atomic step, without reading the
    /// session's graph, where [`write_session`](Self::write_session) reads it whole to
    /// find them (for a chat of 1,000 messages, longer than the change), with its
    /// fingerprint record (see [`replace_sessions_held`](Self::replace_sessions_held));
    /// its texts in the full-text index are written again as `write_session` writes
    /// them. On a store others write too (a server), this is `write_session`.
    pub fn write_session_over(
        &self,
        previous: &SessionGraph,
        session: &SessionGraph,
    ) -> Result<WriteOutcome, StoreError> {
        if !self.backend.capabilities().exclusive || previous.graph != session.graph {
            return self.write_session(session);
        }
        let (_, held) = self.session_and_derived(previous);
        let (_, wanted) = self.session_and_derived(session);
        let (removed, added) = quad_difference(&held, &wanted);
        if removed.is_empty() && added.is_empty() {
            return Ok(WriteOutcome {
                replaced: false,
                unchanged: true,
            });
        }
        let turns = search::changed_turns(held.iter(), wanted.iter(), removed.iter().chain(&added));
        self.change_sessions(std::slice::from_ref(session), removed, added, vec![turns])?;
        Ok(WriteOutcome {
            replaced: true,
            unchanged: false,
        })
    }

    /// Replaces several sessions in one atomic step (their graphs, derived graphs and
    /// fingerprint records), each new or replacing its earlier version: after an error,
    /// the store is as it was. For writers that know each session changed (a live
    /// receiver adding spans to many sessions at once): one commit for them all, where
    /// [`write_session`](Self::write_session) commits each.
    pub fn replace_sessions(
        &self,
        sessions: &[SessionGraph],
    ) -> Result<Vec<WriteOutcome>, StoreError> {
        let mut graphs = Vec::new();
        let mut quads = Vec::new();
        let mut outcomes = Vec::with_capacity(sessions.len());
        for session in sessions {
            let replaced = self.backend.contains_graph(session.graph.as_ref())?;
            let (more_graphs, more_quads) = self.session_and_derived(session);
            graphs.extend(more_graphs);
            quads.extend(more_quads);
            outcomes.push(WriteOutcome {
                replaced,
                unchanged: false,
            });
        }
        if !sessions.is_empty() {
            self.backend.replace_graphs(&graphs, quads)?;
            let records = self.record_written(&sessions.iter().collect::<Vec<_>>())?;
            self.index_recorded(sessions.iter().zip(&records))?;
        }
        Ok(outcomes)
    }

    /// [`replace_sessions`](Self::replace_sessions) for a writer that keeps what it
    /// wrote: `held` gives, for each session, what its graph and derived graph hold (the
    /// quads given back for it the last time), or `None` where the caller does not know
    /// (they are read). Only the difference is written, in one atomic step with the
    /// sessions' fingerprint records (where the backend gives back what it is given), and
    /// nothing known is read back. Gives what each session's graphs hold now.
    ///
    /// `held` must be true: a caller tells with [`writes`](Self::writes) that nothing
    /// else wrote since it was given back.
    pub fn replace_sessions_held(
        &self,
        sessions: &[SessionGraph],
        held: Vec<Option<QuadSet>>,
    ) -> Result<Vec<QuadSet>, StoreError> {
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        let mut now = Vec::with_capacity(sessions.len());
        // Each session's difference is found side by side (hashing every quad of the
        // sessions is most of it); the read of a graph not held, too.
        let pairs: Vec<_> = sessions.iter().zip(held).collect();
        let differences = self.side_by_side(&pairs, |store, (session, held)| {
            let (graphs, quads) = store.session_and_derived(session);
            let known = held.is_some();
            let read;
            let held = match held {
                Some(held) => held,
                None => {
                    read = store.graphs_quads(&graphs)?;
                    &read
                }
            };
            let wanted: QuadSet = quads.into_iter().collect();
            let gone: Vec<Quad> = held.difference(&wanted).cloned().collect();
            let new: Vec<Quad> = wanted.difference(held).cloned().collect();
            // The turns whose texts changed, when what the session held is known: the
            // index is given those alone (`None`: the whole session).
            let turns = known
                .then(|| search::changed_turns(held.iter(), wanted.iter(), gone.iter().chain(&new)))
                .flatten();
            Ok::<_, StoreError>((gone, new, wanted, turns))
        });
        let mut changed = Vec::with_capacity(sessions.len());
        for difference in differences {
            let (gone, new, wanted, turns) = difference?;
            removed.extend(gone);
            added.extend(new);
            changed.push(turns);
            now.push(wanted);
        }
        if sessions.is_empty() {
            return Ok(now);
        }
        self.change_sessions(sessions, removed, added, changed)?;
        Ok(now)
    }

    /// Removes and adds the quads that change the given sessions, with their fingerprint
    /// records, in one atomic step (where the backend gives back what it is given), and
    /// indexes them: of each, the turns given (all, for `None`).
    fn change_sessions(
        &self,
        sessions: &[SessionGraph],
        mut removed: Vec<Quad>,
        mut added: Vec<Quad>,
        turns: Vec<Option<Vec<String>>>,
    ) -> Result<(), StoreError> {
        let records = if self.backend.capabilities().verbatim {
            // The records go in the same step as the sessions they describe.
            let (records, lost, gained) = self.records_difference(sessions)?;
            removed.extend(lost);
            added.extend(gained);
            self.backend.change(&removed, &added)?;
            records
        } else {
            self.backend.change(&removed, &added)?;
            self.record_written(&sessions.iter().collect::<Vec<_>>())?
        };
        let mut derived = indexing::Derived::default();
        for ((session, record), turns) in sessions.iter().zip(&records).zip(turns) {
            derived.add(
                self.indexed_turns(session, record, turns),
                self.reasoned_session(session, record),
            );
        }
        self.index_written(derived)
    }

    /// What graphs hold, together.
    fn graphs_quads(&self, graphs: &[GraphName]) -> Result<QuadSet, StoreError> {
        let mut held = QuadSet::default();
        for graph in graphs {
            for quad in self.backend.quads(Some(graph.as_ref()))? {
                held.insert(quad?);
            }
        }
        Ok(held)
    }

    /// A number that changes with every write to the store, where only this handle
    /// writes (the embedded store); `None` on a server, which others may write to. What
    /// a caller kept of the store stays true while it does not change.
    pub fn writes(&self) -> Option<u64> {
        self.backend.writes()
    }

    /// Writes many sessions at once: [`session_writer`](Self::session_writer), its
    /// [`write`](SessionWriter::write) and its [`commit`](SessionWriter::commit). The
    /// outcomes are in the order of `sessions`.
    ///
    /// ```
    /// use ihigraph::check::{CheckOptions, check_document};
    /// use ihigraph::generate::generate;
    /// use ihigraph::rdf::map_history;
    /// use ihigraph::HistoryStore;
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let sessions = generate(Default::default()).take(5).map(|document| {
    ///     let history = check_document(&document, CheckOptions::default()).history.unwrap();
    ///     map_history(&history, store.scheme())
    /// });
    /// let outcomes = store.write_sessions(sessions.collect())?;
    /// assert_eq!(outcomes.len(), 5);
    /// assert_eq!(store.session_count()?, 5);
    /// # Ok::<_, ihigraph::StoreError>(())
    /// ```
    pub fn write_sessions(
        &self,
        sessions: Vec<SessionGraph>,
    ) -> Result<Vec<WriteOutcome>, StoreError> {
        let mut writer = self.session_writer();
        let outcomes = writer.write(sessions)?;
        writer.commit()?;
        Ok(outcomes)
    }

    /// A writer of many sessions, as `ingest` writes them: see [`SessionWriter`].
    pub fn session_writer(&self) -> SessionWriter<'_> {
        SessionWriter::new(self)
    }

    /// Whether the session's graph holds exactly the session's quads.
    fn holds_exactly(&self, session: &SessionGraph) -> Result<bool, StoreError> {
        let wanted: HashSet<&Quad> = session.quads.iter().collect();
        let mut stored = 0;
        for quad in self.backend.quads(Some(session.graph.as_ref().into()))? {
            if !wanted.contains(&quad?) {
                return Ok(false);
            }
            stored += 1;
        }
        Ok(stored == wanted.len())
    }

    /// The triples of a stored session's graph, read in one call.
    pub fn session_graph(&self, session_id: &str) -> Result<(NamedNode, Graph), StoreError> {
        let name = self.scheme.session_graph(session_id);
        let mut graph = Graph::new();
        for quad in self.backend.quads(Some(name.as_ref().into()))? {
            graph.insert(&quad?.into());
        }
        if graph.is_empty() {
            return Err(StoreError::UnknownSession {
                session_id: session_id.to_owned(),
            });
        }
        Ok((name, graph))
    }

    /// The PGM-IHI document of a stored session, rebuilt from its graph alone.
    ///
    /// ```
    /// use ihigraph::check::{CheckOptions, check_document};
    /// use ihigraph::rdf::map_history;
    /// use ihigraph::HistoryStore;
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let document = ihigraph::generate::generate(Default::default()).next().unwrap();
    /// let history = check_document(&document, CheckOptions::default()).history.unwrap();
    /// store.write_session(&map_history(&history, store.scheme()))?;
    /// assert_eq!(store.history(&history.session_id)?, history);
    /// # Ok::<_, ihigraph::StoreError>(())
    /// ```
    pub fn history(&self, session_id: &str) -> Result<InteractionHistory, StoreError> {
        let (name, graph) = self.session_graph(session_id)?;
        Ok(rebuild_history(&graph, &name, &self.scheme)?)
    }

    /// The sessions whose turns keep spans of an OpenTelemetry trace (the
    /// `trace-sessions` query), in order.
    pub fn sessions_of_trace(&self, trace: &str) -> Result<Vec<String>, StoreError> {
        let arguments = Arguments::new().text("trace", trace);
        let QueryResults::Solutions(solutions) =
            self.run(&crate::query::TRACE_SESSIONS, &arguments)?
        else {
            return Ok(Vec::new());
        };
        let mut sessions = Vec::new();
        for solution in solutions {
            let solution = solution.map_err(StoreError::QueryEvaluation)?;
            if let Some(Term::Literal(session)) = solution.get("session") {
                sessions.push(session.value().to_owned());
            }
        }
        Ok(sessions)
    }

    /// Removes a session and everything about it: its graph and its derived graph in one
    /// atomic step, then its fingerprint record.
    pub fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        let graph = self.scheme.session_graph(session_id);
        if !self.backend.contains_graph(graph.as_ref())? {
            return Err(StoreError::UnknownSession {
                session_id: session_id.to_owned(),
            });
        }
        let mut graphs: Vec<GraphName> = vec![graph.clone().into()];
        graphs.extend(
            self.derived_graphs([&graph])
                .into_iter()
                .map(GraphName::from),
        );
        self.backend.replace_graphs(&graphs, Vec::new())?;
        self.forget_fingerprints(&[&graph])?;
        self.unindex(&[&graph])
    }

    /// Removes every session, their fingerprints and the memory made from them, in one
    /// atomic step; the settings and ontologies stay. Returns the number of sessions removed.
    pub fn delete_all_sessions(&self) -> Result<usize, StoreError> {
        let stored: Vec<NamedNode> = self
            .sessions()?
            .into_iter()
            .map(|(_, graph)| graph)
            .collect();
        let sessions = stored.len();
        let mut graphs: Vec<GraphName> = self
            .derived_graphs(&stored)
            .into_iter()
            .map(GraphName::from)
            .collect();
        graphs.extend(stored.into_iter().map(GraphName::from));
        for graph in [self.scheme.memory_graph(), self.scheme.fingerprints_graph()] {
            if self.backend.contains_graph(graph.as_ref())? {
                graphs.push(graph.into());
            }
        }
        self.backend.replace_graphs(&graphs, Vec::new())?;
        self.unindex_all()?;
        Ok(sessions)
    }

    /// Writes a consistent copy of the store into `target`, which must not exist yet,
    /// while the store stays readable (for the embedded on-disk store, a RocksDB
    /// checkpoint: hard links where the file system allows).
    pub fn backup(&self, target: &Path) -> Result<(), StoreError> {
        self.backend.backup(target)
    }

    /// The stored sessions: `SessionID` and graph, in the order of their graph IRIs. On
    /// a server that caps its answers, they are read in pages.
    pub fn sessions(&self) -> Result<Vec<(String, NamedNode)>, StoreError> {
        let query = format!(
            "SELECT ?id ?graph WHERE {{ GRAPH ?graph {{ ?conversation <{}> ?id }} }} ORDER BY STR(?graph)",
            ihi::SESSION_ID.as_str()
        );
        let graph = Variable::new_unchecked("graph");
        let mut sessions = Vec::new();
        for solution in self.select(&query, &PageOrder::ByKey(graph.clone()))? {
            let solution = solution.map_err(StoreError::QueryEvaluation)?;
            if let (Some(Term::Literal(id)), Some(Term::NamedNode(graph))) =
                (solution.get("id"), solution.get(&graph))
            {
                sessions.push((id.value().to_owned(), graph.clone()));
            }
        }
        Ok(sessions)
    }

    /// Number of stored sessions.
    pub fn session_count(&self) -> Result<usize, StoreError> {
        Ok(self.sessions()?.len())
    }

    /// Number of quads in session graphs (the store's settings, ontologies, memory,
    /// fingerprints and derived graphs not counted).
    pub fn quad_count(&self) -> Result<usize, StoreError> {
        if !self.backend.capabilities().owns_dataset {
            let query = format!(
                "SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?graph {{ ?conversation <{}> ?id }} GRAPH ?graph {{ ?s ?p ?o }} }}",
                ihi::SESSION_ID.as_str()
            );
            let solution = self
                .select(&query, &PageOrder::AsWritten)?
                .next()
                .transpose();
            let count = solution
                .map_err(StoreError::QueryEvaluation)?
                .and_then(|solution| match solution.get("n") {
                    Some(Term::Literal(n)) => n.value().parse().ok(),
                    _ => None,
                });
            return Ok(count.unwrap_or(0));
        }
        let mut bookkeeping = 0;
        for (iri, _) in crate::rdf::ONTOLOGIES {
            let graph = oxigraph::model::NamedNodeRef::new_unchecked(iri);
            bookkeeping += self.backend.quads(Some(graph.into()))?.count();
        }
        bookkeeping += self
            .backend
            .quads(Some(oxigraph::model::GraphNameRef::DefaultGraph))?
            .count();
        for graph in [self.scheme.memory_graph(), self.scheme.fingerprints_graph()] {
            bookkeeping += self.backend.quads(Some(graph.as_ref().into()))?.count();
        }
        bookkeeping += self.derived_quad_count()?;
        Ok(self.backend.quad_count()?.saturating_sub(bookkeeping))
    }

    /// Runs `work` on every item, on one thread per core side by side, each reading
    /// this store; the results in the items' order (reads of the embedded store go on
    /// together; a server takes the requests as they come).
    pub fn side_by_side<T: Sync, R: Send>(
        &self,
        items: &[T],
        work: impl Fn(&Self, &T) -> R + Sync,
    ) -> Vec<R> {
        parallel::side_by_side(items, |item| work(self, item))
    }

    /// The quads a SELECT query with the variables `?s ?p ?o ?g` finds (rows whose terms
    /// cannot form a quad are skipped).
    /// It is one of ihigraph's own reads: on a server that caps its answers, a long
    /// answer is read in pages by subject.
    pub fn select_quads(&self, sparql: &str) -> Result<Vec<Quad>, StoreError> {
        let mut quads = Vec::new();
        let by_subject = PageOrder::ByKey(Variable::new_unchecked("s"));
        for solution in self.select(sparql, &by_subject)? {
            let solution = solution.map_err(StoreError::QueryEvaluation)?;
            quads.extend(solution_quad(&solution, None));
        }
        Ok(quads)
    }

    /// The rows of one of ihigraph's own SELECT queries, whole: in pages, in `order`,
    /// from a server that caps its answers.
    fn select(
        &self,
        sparql: &str,
        order: &PageOrder,
    ) -> Result<QuerySolutionIter<'static>, StoreError> {
        let query = SparqlParser::new()
            .parse_query(sparql)
            .map_err(StoreError::QuerySyntax)?;
        match self.backend.select_whole(query, order, None)? {
            QueryResults::Solutions(solutions) => Ok(solutions),
            _ => unreachable!("a SELECT query gives solutions"),
        }
    }

    /// Runs a read-only SPARQL query whose default graph is the union of the session
    /// graphs (unless the query names its own dataset). On the embedded store, `SERVICE`
    /// fails: Oxigraph is built without its HTTP client, so no query reaches the network.
    ///
    /// ```
    /// use ihigraph::{HistoryStore, StoreError};
    /// use oxigraph::sparql::QueryResults;
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let ask = "ASK { ?c a <https://jido.ai/ontology/conversation-history#Conversation> }";
    /// let QueryResults::Boolean(any) = store.query(ask)? else { unreachable!() };
    /// assert!(!any, "no session is stored yet");
    /// assert!(matches!(store.query("CLEAR ALL"), Err(StoreError::UpdateNotAllowed)));
    /// # Ok::<_, StoreError>(())
    /// ```
    pub fn query(&self, sparql: &str) -> Result<QueryResults<'static>, StoreError> {
        self.query_with(sparql, &QueryOptions::default())
    }

    /// [`query`](Self::query) with a dataset given beside the query, as the SPARQL
    /// protocol gives it, and a token that stops it.
    pub fn query_with(
        &self,
        sparql: &str,
        options: &QueryOptions,
    ) -> Result<QueryResults<'static>, StoreError> {
        let query = parse_query(sparql, options)?;
        self.evaluate(self.backend.as_ref(), query, true, options.cancel.as_ref())
    }

    /// [`query_with`](Self::query_with) over the sessions as a reasoner sees them: each
    /// session graph with what the ontologies entail about it, in the same graph (see
    /// [`crate::reason`]); the memory graph and the ontologies likewise. The store and
    /// its inferred store are read as one dataset, so the query sees each session as
    /// the store holds it now. An error on a store that does not reason.
    pub fn query_inferred(
        &self,
        sparql: &str,
        options: &QueryOptions,
    ) -> Result<QueryResults<'static>, StoreError> {
        let query = parse_query(sparql, options)?;
        let backend = self.inferred_backend()?;
        self.evaluate(&backend, query, true, options.cancel.as_ref())
    }

    /// [`run`](Self::run) over the sessions as a reasoner sees them (see
    /// [`query_inferred`](Self::query_inferred)).
    pub fn run_inferred(
        &self,
        query: &CannedQuery,
        arguments: &Arguments,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.run_inferred_with(query, arguments, None)
    }

    /// [`run_inferred`](Self::run_inferred), stopped when `cancel` is cancelled.
    pub fn run_inferred_with(
        &self,
        query: &CannedQuery,
        arguments: &Arguments,
        cancel: Option<&CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        let backend = self.inferred_backend()?;
        let query = self.as_run(query).bind(arguments, &self.scheme)?;
        self.select_whole(&backend, query, cancel)
    }

    /// The store and its inferred store as one (see [`Embedded::overlaid`]), once the
    /// inferred store holds what every session committed entails.
    fn inferred_backend(&self) -> Result<Embedded, StoreError> {
        match (self.inference()?, &self.embedded) {
            (Some(inference), Some(embedded)) => {
                Ok(embedded.overlaid(inference.backend(), self.search_service()))
            }
            _ => Err(StoreError::NotReasoning {
                location: self.location(),
            }),
        }
    }

    /// A query on `backend` (the store's, or the inferred store's), its searches run
    /// first (see [`SearchService::inline`]).
    fn evaluate(
        &self,
        backend: &dyn Backend,
        mut query: Query,
        union_default_graph: bool,
        cancel: Option<&CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.inline_searches(&mut query)?;
        match cancel {
            Some(token) => backend.query_cancellable(query, union_default_graph, token),
            None => backend.query(query, union_default_graph),
        }
    }

    /// Runs a SPARQL 1.1 update, atomically. It writes what it says, bypassing the checks
    /// and the mapping: ihigraph's guarantees (lossless export, one graph per session)
    /// hold for what ihigraph wrote. On the embedded store `LOAD` and `SERVICE` fail:
    /// Oxigraph is built without its HTTP client.
    pub fn update(&self, sparql: &str) -> Result<(), StoreError> {
        self.update_with(sparql, &UpdateOptions::default())
    }

    /// [`update`](Self::update) with a dataset for its `WHERE` clauses and a base IRI, as
    /// the SPARQL protocol gives them: [`StoreError::DatasetConflict`] when the text names
    /// its own dataset too, and nothing is written.
    ///
    /// ```
    /// use ihigraph::store::UpdateOptions;
    /// use ihigraph::{HistoryStore, StoreError};
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let options = UpdateOptions {
    ///     base_iri: Some("http://example.org/base/".to_owned()),
    ///     ..UpdateOptions::default()
    /// };
    /// store.update_with("INSERT DATA { GRAPH <g> { <s> <p> <o> } }", &options)?;
    /// let ask = "ASK { GRAPH <http://example.org/base/g> { <http://example.org/base/s> ?p ?o } }";
    /// let oxigraph::sparql::QueryResults::Boolean(found) = store.query(ask)? else { unreachable!() };
    /// assert!(found);
    /// # Ok::<_, StoreError>(())
    /// ```
    pub fn update_with(&self, sparql: &str, options: &UpdateOptions) -> Result<(), StoreError> {
        check_nesting(sparql, MAX_NESTING)?;
        let mut update = parser_with_base(options.base_iri.as_deref())?
            .parse_update(sparql)
            .map_err(StoreError::QuerySyntax)?;
        set_using(&mut update, options)?;
        let touched = self.before_update(digests::touched_by(&update))?;
        self.forget_derived(&mut update)?;
        self.backend.update(update)?;
        self.after_update(touched)
    }

    /// Runs a canned query with its arguments bound as typed RDF terms (never pasted
    /// into the query text); see [`CannedQuery::bind`].
    ///
    /// ```
    /// use ihigraph::query::{Arguments, RECENT_TURNS};
    /// use ihigraph::HistoryStore;
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let arguments = Arguments::new().text("session", "no \"such\" } session").count("n", 3);
    /// let oxigraph::sparql::QueryResults::Solutions(rows) = store.run(&RECENT_TURNS, &arguments)? else {
    ///     unreachable!("recent-turns is a SELECT query")
    /// };
    /// assert_eq!(rows.count(), 0);
    /// # Ok::<_, ihigraph::StoreError>(())
    /// ```
    pub fn run(
        &self,
        query: &CannedQuery,
        arguments: &Arguments,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.run_with(query, arguments, None)
    }

    /// [`run`](Self::run) over the given named graphs only (the query's `FROM NAMED`):
    /// what a canned query reads with `GRAPH ?graph` is then those graphs, as a report
    /// narrowed to some sessions reads only theirs.
    pub fn run_in(
        &self,
        query: &CannedQuery,
        arguments: &Arguments,
        graphs: &[NamedNode],
    ) -> Result<QueryResults<'static>, StoreError> {
        let inferred = query.inferred;
        let mut query = query.bind(arguments, &self.scheme)?;
        set_named_graphs(&mut query, graphs.to_vec());
        if inferred {
            return self.select_whole(&self.inferred_backend()?, query, None);
        }
        self.select_whole(self.backend.as_ref(), query, None)
    }

    /// [`run`](Self::run), stopped when `cancel` is cancelled.
    pub fn run_with(
        &self,
        query: &CannedQuery,
        arguments: &Arguments,
        cancel: Option<&CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        if query.inferred {
            return self.run_inferred_with(query, arguments, cancel);
        }
        if query.name == RECENT_TURNS.name {
            let (session, n) = recent_turns_arguments(arguments, &self.scheme)?;
            if let Some(rows) = self.recent_turns_digest(&session, n)? {
                return Ok(QueryResults::Solutions(QuerySolutionIter::from_tuples(
                    Arc::from(RECENT_TURNS_COLUMNS.map(Variable::new_unchecked)),
                    rows.into_iter().map(Ok),
                )));
            }
        }
        // The text is ihigraph's: its whole answer is given, however long.
        let query = self.as_run(query).bind(arguments, &self.scheme)?;
        self.select_whole(self.backend.as_ref(), query, cancel)
    }

    /// The canned query this store runs for `query`: without a full-text index, a
    /// search scans the texts.
    fn as_run<'q>(&self, query: &'q CannedQuery) -> &'q CannedQuery {
        if *query == SEARCH && self.search.is_none() {
            &SEARCH_SCAN
        } else {
            query
        }
    }

    /// One of ihigraph's own queries on `backend` (the store's, or the inferred
    /// store's), whole, in the order written; its searches run first (see
    /// [`SearchService::inline`]).
    fn select_whole(
        &self,
        backend: &dyn Backend,
        mut query: Query,
        cancel: Option<&CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.inline_searches(&mut query)?;
        backend.select_whole(query, &PageOrder::AsWritten, cancel)
    }

    /// Runs the query's searches and puts their hits in their place (see
    /// [`SearchService::inline`]), on a store with a full-text index; on one without,
    /// the backend answers them or refuses them itself.
    fn inline_searches(&self, query: &mut Query) -> Result<(), StoreError> {
        if self.index()?.is_some() {
            self.search_service().inline(query)?;
        }
        Ok(())
    }
}

/// `SELECT * WHERE { GRAPH <graph> { pattern } }`, built as algebra: the reads of one
/// graph by one pattern pay no parse.
fn select_in_graph(graph: NamedNode, pattern: TriplePattern) -> Query {
    Query::Select {
        dataset: None,
        pattern: GraphPattern::Graph {
            name: graph.into(),
            inner: Box::new(GraphPattern::Bgp {
                patterns: vec![pattern],
            }),
        },
        base_iri: None,
    }
}

/// The quad a solution's `?s ?p ?o` name, in the graph given or else in its `?g`; none
/// when its terms cannot form a quad.
fn solution_quad(solution: &QuerySolution, graph: Option<&GraphName>) -> Option<Quad> {
    let subject = match solution.get("s")? {
        Term::NamedNode(node) => NamedOrBlankNode::NamedNode(node.clone()),
        Term::BlankNode(node) => NamedOrBlankNode::BlankNode(node.clone()),
        Term::Literal(_) | Term::Triple(_) => return None,
    };
    let Term::NamedNode(predicate) = solution.get("p")? else {
        return None;
    };
    let graph = match (graph, solution.get("g")) {
        (Some(graph), _) => graph.clone(),
        (None, Some(Term::NamedNode(graph))) => graph.clone().into(),
        _ => return None,
    };
    Some(Quad::new(
        subject,
        predicate.clone(),
        solution.get("o")?.clone(),
        graph,
    ))
}

/// The quads of `old` not in `new`, and of `new` not in `old`: each side hashed once, by
/// reference, with FxHash (SipHash over the quads of a chat of 1,000 messages, hashed
/// five times, was a fifth of appending one message to it).
fn quad_difference(old: &[Quad], new: &[Quad]) -> (Vec<Quad>, Vec<Quad>) {
    let mut left: HashSet<&Quad, FxBuildHasher> = old.iter().collect();
    let mut added: HashSet<&Quad, FxBuildHasher> = HashSet::default();
    for quad in new {
        // A quad `new` holds twice is found once: the second is taken as added, which
        // adds nothing to the store.
        if !left.remove(quad) {
            added.insert(quad);
        }
    }
    (
        left.into_iter().cloned().collect(),
        added.into_iter().cloned().collect(),
    )
}

/// One update that deletes the quads `old` and inserts the quads `new` (in named graphs),
/// as data blocks every server parses.
pub fn replace_data(old: &[Quad], new: &[Quad]) -> String {
    let mut update = String::new();
    if !old.is_empty() {
        update.push_str(&data_block("DELETE DATA", old));
        update.push_str(" ;\n");
    }
    update.push_str(&data_block("INSERT DATA", new));
    update
}

/// `INSERT DATA` or `DELETE DATA` (`operation`) of quads, every term written in
/// N-Triples syntax (so nothing from the input is ever read as SPARQL), one `GRAPH` block
/// per quad: the form every server parses (Virtuoso refuses a `DELETE` template with
/// `GRAPH` blocks as spargebra writes them, so no update of ihigraph's has one).
pub fn data_block(operation: &str, quads: &[Quad]) -> String {
    let mut update = format!("{operation} {{\n");
    for quad in quads {
        let _ = writeln!(
            update,
            "  GRAPH {} {{ {} {} {} . }}",
            quad.graph_name, quad.subject, quad.predicate, quad.object
        );
    }
    update.push('}');
    update
}

/// Puts the protocol's dataset in place of the query's own.
/// A text that does not parse as a query may be an update, which deserves its own word.
fn update_or_syntax(sparql: &str, error: SparqlSyntaxError) -> StoreError {
    if SparqlParser::new().parse_update(sparql).is_ok() {
        StoreError::UpdateNotAllowed
    } else {
        StoreError::QuerySyntax(error)
    }
}

impl std::fmt::Debug for HistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryStore")
            .field("location", &self.location())
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

/// A client's SPARQL query, its nesting bounded before it is parsed, with the
/// dataset the options give.
fn parse_query(sparql: &str, options: &QueryOptions) -> Result<Query, StoreError> {
    check_nesting(sparql, MAX_NESTING)?;
    let mut query = parser_with_base(options.base_iri.as_deref())?
        .parse_query(sparql)
        .map_err(|error| update_or_syntax(sparql, error))?;
    if !options.default_graphs.is_empty() || !options.named_graphs.is_empty() {
        set_dataset(
            &mut query,
            QueryDataset {
                default: options.default_graphs.clone(),
                named: Some(options.named_graphs.clone()),
            },
        );
    }
    Ok(query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_store_records_its_scheme() {
        let request = SchemeRequest {
            base: Some("https://example.org/h/".to_owned()),
            session_template: None,
        };
        let store = HistoryStore::in_memory(&request).expect("memory store");
        assert_eq!(store.scheme().base(), "https://example.org/h/");
        assert_eq!(store.quad_count().expect("count"), 0);
    }
}
