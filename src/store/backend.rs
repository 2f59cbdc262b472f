//! The storage a [`HistoryStore`](super::HistoryStore) sits on, at the level the SPARQL
//! protocols share: whole graphs read, added, replaced and dropped, queries and updates.
//! The embedded Oxigraph store is one implementation; a SPARQL 1.1 server is another.
//! Nothing above this trait knows which one it talks to.

use super::StoreError;
use super::search::SearchService;
use oxigraph::model::{GraphName, GraphNameRef, NamedNode, NamedNodeRef, Quad, Variable};
use oxigraph::sparql::{CancellationToken, QueryResults};
use spargebra::{Query, Update};
use std::collections::HashSet;
use std::path::Path;

/// Quads read from a backend, streamed.
pub type QuadStream<'a> = Box<dyn Iterator<Item = Result<Quad, StoreError>> + 'a>;

/// What a backend can do beyond the common ground.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// It can copy itself into a directory while staying readable ([`Backend::backup`]).
    pub backup: bool,
    /// Every graph it holds is ihigraph's (an embedded store), so that the whole dataset
    /// can be read and counted at once; a server may hold other data and its own graphs.
    pub owns_dataset: bool,
    /// The most rows it gives in one answer, when it caps them (Virtuoso's
    /// `ResultSetMaxRows`): longer answers are read in pages.
    pub max_rows: Option<u64>,
    /// It gives back exactly the quads ihigraph writes (the embedded store: the mapping
    /// writes typed literals in the canonical forms Oxigraph keeps; the servers whose
    /// dialect says so), so the fingerprint of what was written is that of what it holds;
    /// on another server it is taken from what it gives back, since a server may
    /// normalise what it stores.
    pub verbatim: bool,
    /// Only this handle writes to it while it is open (the embedded store: its process
    /// holds the store's lock, and every write goes through ihigraph), so that what
    /// ihigraph derives from a session graph, written and dropped with it, stays in step
    /// with it. On a server any client may write a graph directly, and no derived data is
    /// kept there: the queries read the sessions themselves.
    pub exclusive: bool,
}

/// A store of named graphs that answers SPARQL.
///
/// Every write is atomic: after an error or a crash, each graph it names is as it was
/// before or as it was asked to be, never between.
pub trait Backend: Send + Sync {
    /// Where the data lives, for people: a directory, "memory", an endpoint.
    fn location(&self) -> String;

    /// What it can do beyond the common ground.
    fn capabilities(&self) -> Capabilities;

    /// The quads of one graph, or of every graph (the default graph included) when
    /// `graph` is `None`.
    fn quads(&self, graph: Option<GraphNameRef<'_>>) -> Result<QuadStream<'_>, StoreError>;

    /// Whether a named graph holds any quad.
    fn contains_graph(&self, graph: NamedNodeRef<'_>) -> Result<bool, StoreError>;

    /// Which of the named graphs hold any quad: [`contains_graph`](Self::contains_graph)
    /// for each, unless the backend can ask for many at once.
    fn graphs_holding_quads(&self, graphs: &[NamedNode]) -> Result<HashSet<NamedNode>, StoreError> {
        let mut holding = HashSet::new();
        for graph in graphs {
            if self.contains_graph(graph.as_ref())? {
                holding.insert(graph.clone());
            }
        }
        Ok(holding)
    }

    /// Adds quads to graphs (the quads of one graph each), all in one atomic step: the
    /// fast path for new sessions, whose graphs hold nothing yet, with their fingerprint
    /// records last, whose graph holds others' records. A backend that cannot take them
    /// in one step adds the last graph after all the others.
    fn add_graphs(&self, graphs: Vec<Vec<Quad>>) -> Result<(), StoreError>;

    /// A loader of new graphs, for many [`add_graphs`](Self::add_graphs) made visible
    /// together: what it is given appears at its [`commit`](GraphLoader::commit), in one
    /// atomic step where the backend can (the embedded store), and nothing of it if it
    /// is dropped first. By default each of its `add_graphs` is one step of the backend's
    /// own, and its commit has nothing left to do.
    fn loader(&self) -> Box<dyn GraphLoader + '_> {
        Box::new(EachStep(self))
    }

    /// Empties `graphs` and adds `quads`, in one atomic step.
    fn replace_graphs(&self, graphs: &[GraphName], quads: Vec<Quad>) -> Result<(), StoreError>;

    /// Takes `removed` out and puts `added` in, in one atomic step: a replacement whose
    /// difference the caller knows already (it wrote what the graphs hold), so that
    /// nothing is read back. By default, one `DELETE DATA` / `INSERT DATA` update.
    fn change(&self, removed: &[Quad], added: &[Quad]) -> Result<(), StoreError> {
        let text = super::replace_data(removed, added);
        let update = spargebra::SparqlParser::new()
            .parse_update(&text)
            .map_err(StoreError::QuerySyntax)?;
        self.update(update)
    }

    /// The directory the store lives in, for a store on disk.
    fn directory(&self) -> Option<&Path> {
        None
    }

    /// A number that changes with every write of this handle, where only this handle
    /// writes ([`Capabilities::exclusive`]): a caller that keeps what it wrote can tell
    /// from it that nothing else was written since. `None` where others may write.
    fn writes(&self) -> Option<u64> {
        None
    }

    /// Runs a query; with `union_default_graph`, a query that names no dataset sees the
    /// union of the named graphs as its default graph.
    fn query(
        &self,
        query: Query,
        union_default_graph: bool,
    ) -> Result<QueryResults<'static>, StoreError>;

    /// [`query`](Self::query), stopped when `cancel` is cancelled: the embedded store
    /// checks it while it evaluates; by default the token is not looked at, and a
    /// server's query is bounded by the request time-out instead.
    fn query_cancellable(
        &self,
        query: Query,
        union_default_graph: bool,
        cancel: &CancellationToken,
    ) -> Result<QueryResults<'static>, StoreError> {
        let _ = cancel;
        self.query(query, union_default_graph)
    }

    /// Runs one of ihigraph's own queries, whose answer it needs whole however long it
    /// is (a user's query goes through [`query`](Self::query), where an answer the
    /// backend cuts is refused): a backend that caps its answers reads a long one in
    /// pages, in `order`. The default graph is not the union. By default, the query runs
    /// once.
    fn select_whole(
        &self,
        query: Query,
        order: &PageOrder,
        cancel: Option<&CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        let _ = order;
        match cancel {
            Some(cancel) => self.query_cancellable(query, false, cancel),
            None => self.query(query, false),
        }
    }

    /// Answers `SERVICE text:search` in this backend's queries and updates with
    /// `service` (the store's full-text index). A backend whose queries another program
    /// evaluates (a server) cannot, and keeps to what that program does.
    fn answer_searches(&mut self, service: SearchService) {
        let _ = service;
    }

    /// Runs a SPARQL 1.1 update, atomically.
    fn update(&self, update: Update) -> Result<(), StoreError>;

    /// The number of quads in every graph, the default graph included.
    fn quad_count(&self) -> Result<usize, StoreError>;

    /// Copies the store into the new directory `target` while it stays readable.
    fn backup(&self, target: &Path) -> Result<(), StoreError> {
        let _ = target;
        Err(StoreError::Unsupported {
            backend: self.location(),
            what: "make a backup",
        })
    }
}

/// How one of ihigraph's own long answers is read in pages from a backend that caps its
/// answers ([`Backend::select_whole`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageOrder {
    /// Under the query's own `ORDER BY`, made total by every projected variable after
    /// it, in pages by `OFFSET`: for answers whose order is part of them (the canned
    /// queries). A server that sorts a bounded number of rows (Virtuoso's
    /// `MaxSortedTopRows`) cannot page past that many.
    AsWritten,
    /// By the text of this variable's value, bound in every row, each page from where
    /// the last one ended: for answers whose order does not matter (quads, graphs,
    /// sessions), however long.
    ByKey(Variable),
}

/// New graphs added in steps and made visible together: see [`Backend::loader`].
pub trait GraphLoader {
    /// Adds quads to graphs that hold none yet, as [`Backend::add_graphs`] does; they may
    /// stay out of sight until [`commit`](Self::commit).
    fn add_graphs(&mut self, graphs: Vec<Vec<Quad>>) -> Result<(), StoreError>;

    /// Makes everything added visible.
    fn commit(self: Box<Self>) -> Result<(), StoreError>;
}

/// The default loader: every `add_graphs` is a step of the backend's own.
pub(super) struct EachStep<'a, B: ?Sized>(pub(super) &'a B);

impl<B: Backend + ?Sized> GraphLoader for EachStep<'_, B> {
    fn add_graphs(&mut self, graphs: Vec<Vec<Quad>>) -> Result<(), StoreError> {
        self.0.add_graphs(graphs)
    }

    fn commit(self: Box<Self>) -> Result<(), StoreError> {
        Ok(())
    }
}
