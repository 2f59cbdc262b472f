//! Reasoning kept in step with the store (`ihigraph reasoning on`): what the ontologies
//! entail about each session ([`crate::reason`]), beside the store and never in it.
//!
//! The inferred store is a second Oxigraph store, in `STORE_DIR/inferred/`, holding for
//! each graph of the store (each session, the memory graph, the ontologies) a graph of
//! the same name with what its statements entail and nothing they assert. A query asks
//! for the sessions with their entailments ([`HistoryStore::query_inferred`],
//! `--inferred`) and reads the two stores as one dataset (Oxigraph's DatasetView with an
//! overlay, carried in `patches/oxigraph`): a graph of the same name in both is one
//! graph, so the query runs unchanged, with the same `GRAPH ?graph` patterns, the
//! entailed statements in their place. The store's own graphs never hold an entailed
//! statement, so what `export` writes and what a fingerprint covers are the session as
//! written; and the session's statements are written once, not again beside what they
//! entail (which made an ingest that reasons about twice as slow).
//!
//! It is kept in step as the full-text index is (`indexing.rs`): every session written
//! is reasoned about on the index's thread, beside the store's next work, and written
//! with the digest of its fingerprint record (`<graph> ihi:reasonedFrom "digest"`, in the
//! graph itself); a deleted session's graph goes; an update takes the marks of what it
//! may change first. On open, the marks are compared with the fingerprint records, as
//! the index's are, so that a crash between the two stores' commits is repaired. Only a
//! store ihigraph keeps alone reasons ([`Capabilities::exclusive`](super::Capabilities)).

use super::backend::Backend;
use super::embedded::Embedded;

use super::parallel::side_by_side;
use super::{FingerprintRecord, Held, HistoryStore, StoreError};
use crate::rdf::vocab::ihi;
use crate::rdf::{SessionGraph, ontology_digest};
use crate::reason::entailments_of;
use oxigraph::model::{GraphName, Literal, NamedNode, Quad, Term, TripleRef};
use oxigraph::sparql::QueryResults;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// How many sessions may wait for the reasoning thread of a writer: the writer waits
/// beyond that, so what waits is bounded.
const PIPE_DEPTH: usize = 16;

/// How many quads the reasoning thread gathers before it gives them to the loader: one
/// loader call sorts them into table files, so each call should be large.
const LOAD_CHUNK: usize = 400_000;

/// The directory of the inferred store, inside the store's directory.
pub const INFERRED_DIRECTORY: &str = "inferred";

/// A graph to reason about, as the store holds it: its name, the digest it is marked
/// with (its fingerprint record's), and its quads.
#[derive(Debug, Clone)]
pub(super) struct ReasonedGraph {
    pub(super) graph: NamedNode,
    pub(super) digest: String,
    pub(super) quads: Vec<Quad>,
}

/// The inferred store (see the module's text).
#[derive(Clone)]
pub(super) struct Inference {
    store: Embedded,
}

impl std::fmt::Debug for Inference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inference")
            .field("location", &self.store.location())
            .finish()
    }
}

impl Inference {
    /// Opens (creating if needed) the inferred store in `path`. One written by a version
    /// that kept each graph's statements beside what they entail is emptied, to be made
    /// again by the store's open.
    pub(super) fn open(path: &Path) -> Result<Self, StoreError> {
        let inference = Self {
            store: Embedded::open(path)?,
        };
        if inference.holds_copies()? {
            inference.store.oxigraph().clear()?;
        }
        Ok(inference)
    }

    /// Whether this store holds graphs' own statements (the layout before the stores
    /// were read as one): its graph of an ontology then holds the ontology's first
    /// statement, which no entailment is (none is about an ontology's term). Only that
    /// statement is parsed, on every open.
    fn holds_copies(&self) -> Result<bool, StoreError> {
        let Some(quad) = crate::rdf::first_ontology_statement() else {
            return Ok(false);
        };
        Ok(self.store.oxigraph().contains(&quad)?)
    }

    /// A new, empty inferred store in memory.
    pub(super) fn in_memory() -> Result<Self, StoreError> {
        Ok(Self {
            store: Embedded::in_memory()?,
        })
    }

    /// The store of entailments, which queries with `--inferred` read with the store.
    pub(super) fn backend(&self) -> &Embedded {
        &self.store
    }

    /// Writes what each graph entails and its mark, in one atomic step: new graphs
    /// through the bulk loader, graphs held already replaced.
    pub(super) fn write(&self, graphs: &[ReasonedGraph]) -> Result<(), StoreError> {
        if graphs.is_empty() {
            return Ok(());
        }
        let held = self
            .store
            .graphs_holding_quads(&graphs.iter().map(|g| g.graph.clone()).collect::<Vec<_>>())?;
        let (replaced, new): (Vec<&ReasonedGraph>, Vec<&ReasonedGraph>) =
            graphs.iter().partition(|graph| held.contains(&graph.graph));
        // Reasoning is the work here: the graphs of a chunk are reasoned about side by
        // side, one thread per core.
        for chunk in new.chunks(WRITE_CHUNK) {
            self.store
                .add_graphs(side_by_side(chunk, |graph| entailed(graph)))?;
        }
        if !replaced.is_empty() {
            let names: Vec<GraphName> = replaced
                .iter()
                .map(|graph| graph.graph.clone().into())
                .collect();
            let quads = side_by_side(&replaced, |graph| entailed(graph))
                .into_iter()
                .flatten()
                .collect();
            self.store.replace_graphs(&names, quads)?;
        }
        Ok(())
    }

    /// Drops graphs (deleted sessions), in one atomic step.
    pub(super) fn drop_graphs(&self, graphs: &[&NamedNode]) -> Result<(), StoreError> {
        if graphs.is_empty() {
            return Ok(());
        }
        let names: Vec<GraphName> = graphs.iter().map(|graph| (*graph).clone().into()).collect();
        self.store.replace_graphs(&names, Vec::new())
    }

    /// Takes the marks of graphs out (of all, for `None`), so that they are made again
    /// at the next open unless made again before: what an update may change.
    pub(super) fn forget_marks(&self, graphs: Option<&[NamedNode]>) -> Result<(), StoreError> {
        let marks = self.marks()?;
        let removed: Vec<Quad> = marks
            .into_iter()
            .filter(|(graph, _)| graphs.is_none_or(|graphs| graphs.contains(graph)))
            .map(|(graph, digest)| mark(&graph, &digest))
            .collect();
        self.store.change(&removed, &[])
    }

    /// Each graph held with the digest it is marked with.
    pub(super) fn marks(&self) -> Result<BTreeMap<NamedNode, String>, StoreError> {
        let query = format!(
            "SELECT ?graph ?digest WHERE {{ GRAPH ?graph {{ ?graph <{}> ?digest }} }}",
            ihi::REASONED_FROM.as_str()
        );
        let query = spargebra::SparqlParser::new()
            .parse_query(&query)
            .map_err(StoreError::QuerySyntax)?;
        let QueryResults::Solutions(rows) = self.store.query(query, false)? else {
            return Ok(BTreeMap::new());
        };
        let mut marks = BTreeMap::new();
        for row in rows {
            let row = row.map_err(StoreError::QueryEvaluation)?;
            if let (Some(Term::NamedNode(graph)), Some(Term::Literal(digest))) =
                (row.get("graph"), row.get("digest"))
            {
                marks.insert(graph.clone(), digest.value().to_owned());
            }
        }
        Ok(marks)
    }

    /// Empties the inferred store.
    pub(super) fn clear(&self) -> Result<(), StoreError> {
        let graphs: Vec<GraphName> = self.marks()?.into_keys().map(GraphName::from).collect();
        self.store.replace_graphs(&graphs, Vec::new())
    }
}

/// What a writer's reasoning thread is given.
enum Message {
    /// A new session, to reason about and load.
    Graph(ReasonedGraph),
    /// The store committed: commit what was loaded, and say how it went.
    Commit(SyncSender<Result<(), StoreError>>),
}

/// The reasoning thread of a [`SessionWriter`](super::SessionWriter): the new sessions of
/// an ingest are reasoned about as they are given, beside the writer's own work, and
/// loaded into the inferred store's loader; what was loaded appears when the store has
/// committed (`commit`), and not at all when the writer is dropped uncommitted. At most
/// [`PIPE_DEPTH`] sessions wait, and the loader is given [`LOAD_CHUNK`] quads at a time,
/// so what the thread holds is bounded whatever the size of the ingest.
pub(super) struct ReasoningPipe {
    sender: Option<SyncSender<Message>>,
    worker: Option<std::thread::JoinHandle<()>>,
    location: String,
}

impl ReasoningPipe {
    /// Gives a new session to the thread (waiting while [`PIPE_DEPTH`] wait).
    pub(super) fn send(&self, graph: ReasonedGraph) -> Result<(), StoreError> {
        self.sender
            .as_ref()
            .and_then(|sender| sender.send(Message::Graph(graph)).ok())
            .ok_or_else(|| self.gone())
    }

    /// Commits what the thread loaded, once it has reasoned about every session given.
    pub(super) fn commit(&self) -> Result<(), StoreError> {
        let (reply, answer) = sync_channel(1);
        self.sender
            .as_ref()
            .and_then(|sender| sender.send(Message::Commit(reply)).ok())
            .ok_or_else(|| self.gone())?;
        answer.recv().map_err(|_| self.gone())?
    }

    fn gone(&self) -> StoreError {
        StoreError::Inferred {
            path: PathBuf::from(&self.location),
            source: std::io::Error::other("the reasoning thread stopped"),
        }
    }
}

impl Drop for ReasoningPipe {
    fn drop(&mut self) {
        // Closing the channel ends the thread, which drops its loader uncommitted.
        self.sender = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

impl Inference {
    /// A reasoning thread for a writer (see [`ReasoningPipe`]).
    pub(super) fn pipe(&self) -> Result<ReasoningPipe, StoreError> {
        let inference = self.clone();
        let location = self.store.location();
        let (sender, receiver) = sync_channel(PIPE_DEPTH);
        let worker = std::thread::Builder::new()
            .name("ihigraph-reason".to_owned())
            .spawn(move || inference.serve_pipe(&receiver))
            .map_err(|source| StoreError::Inferred {
                path: PathBuf::from(&location),
                source,
            })?;
        Ok(ReasoningPipe {
            sender: Some(sender),
            worker: Some(worker),
            location,
        })
    }

    /// The reasoning thread's loop: see [`ReasoningPipe`].
    fn serve_pipe(&self, receiver: &Receiver<Message>) {
        let mut loader = self.store.loader();
        let mut gathered: Vec<Vec<Quad>> = Vec::new();
        let mut quads = 0;
        let mut failed = None;
        for message in receiver {
            match message {
                Message::Graph(graph) => {
                    if failed.is_some() {
                        continue;
                    }
                    let closure = entailed(&graph);
                    quads += closure.len();
                    gathered.push(closure);
                    if quads >= LOAD_CHUNK {
                        quads = 0;
                        if let Err(error) = loader.add_graphs(std::mem::take(&mut gathered)) {
                            failed = Some(error);
                        }
                    }
                }
                Message::Commit(reply) => {
                    let mut loaded = std::mem::replace(&mut loader, self.store.loader());
                    let outcome = match failed.take() {
                        Some(error) => Err(error),
                        None => match loaded.add_graphs(std::mem::take(&mut gathered)) {
                            Ok(()) => loaded.commit(),
                            Err(error) => Err(error),
                        },
                    };
                    gathered.clear();
                    quads = 0;
                    let _ = reply.send(outcome);
                }
            }
        }
    }
}

/// What a graph's quads entail (in the same graph), and its mark.
fn entailed(graph: &ReasonedGraph) -> Vec<Quad> {
    let triples = graph
        .quads
        .iter()
        .map(|quad| TripleRef::new(&quad.subject, &quad.predicate, &quad.object));
    let name = GraphName::NamedNode(graph.graph.clone());
    let mut quads: Vec<Quad> = entailments_of(triples)
        .into_iter()
        .map(|triple| triple.in_graph(name.clone()))
        .collect();
    quads.push(mark(&graph.graph, &graph.digest));
    quads
}

/// The statement that marks a graph of the inferred store with the digest it was made at.
fn mark(graph: &NamedNode, digest: &str) -> Quad {
    Quad::new(
        graph.clone(),
        ihi::REASONED_FROM,
        Literal::new_simple_literal(digest),
        graph.clone(),
    )
}

/// The ontologies as graphs of the inferred store, marked with their digest.
fn ontology_graphs() -> Vec<ReasonedGraph> {
    crate::rdf::ontology_graphs()
        .into_iter()
        .map(|(graph, quads)| ReasonedGraph {
            graph,
            digest: ontology_digest(),
            quads,
        })
        .collect()
}

impl HistoryStore {
    /// Whether this store reasons (see [`crate::reason`] and `ihigraph reasoning`).
    pub fn reasons(&self) -> bool {
        self.inference.is_some()
    }

    /// What the inferred store is to hold of a session written with `record`, when
    /// this store reasons.
    pub(super) fn reasoned_session(
        &self,
        session: &SessionGraph,
        record: &FingerprintRecord,
    ) -> Option<ReasonedGraph> {
        self.inference.as_ref()?;
        Some(ReasonedGraph {
            graph: session.graph.clone(),
            digest: record.fingerprint.digest.clone(),
            quads: session.quads.clone(),
        })
    }

    /// Brings the inferred store in line with what the store holds: every session, the
    /// memory graph and the ontologies marked with the digest the store gives them now;
    /// any other graph dropped. Returns the number of sessions reasoned about again.
    pub(super) fn settle_inference(&self, held: &Held) -> Result<usize, StoreError> {
        let Some(inference) = &self.inference else {
            return Ok(0);
        };
        let mut marks = inference.marks()?;
        let (stale, memory_stale) =
            held.stale(&self.scheme.memory_graph(), |graph| marks.remove(graph));
        let ontologies: Vec<ReasonedGraph> = ontology_graphs()
            .into_iter()
            .filter(|graph| marks.remove(&graph.graph).as_deref() != Some(&graph.digest))
            .collect();
        let gone: Vec<&NamedNode> = marks.keys().collect();
        inference.drop_graphs(&gone)?;
        inference.write(&ontologies)?;
        self.reason_from_store(&stale, memory_stale)?;
        Ok(stale.len())
    }

    /// Reasons about the given session graphs (and the memory graph) as the store holds
    /// them, a batch at a time.
    pub(super) fn reason_from_store(
        &self,
        graphs: &[NamedNode],
        memory: bool,
    ) -> Result<(), StoreError> {
        let Some(inference) = &self.inference else {
            return Ok(());
        };
        let records = self.fingerprint_records_of(graphs)?;
        for chunk in graphs.chunks(REASON_BATCH) {
            let mut reasoned = Vec::with_capacity(chunk.len());
            let mut gone = Vec::new();
            let read = side_by_side(chunk, |graph| self.session_quads(graph.as_ref()));
            for (graph, quads) in chunk.iter().zip(read) {
                let quads = quads?;
                if quads.is_empty() {
                    gone.push(graph);
                    continue;
                }
                reasoned.push(ReasonedGraph {
                    graph: graph.clone(),
                    digest: records
                        .get(graph)
                        .map(|record| record.fingerprint.digest.clone())
                        .unwrap_or_default(),
                    quads,
                });
            }
            inference.drop_graphs(&gone)?;
            inference.write(&reasoned)?;
        }
        if memory {
            let graph = self.scheme.memory_graph();
            let quads = self.session_quads(graph.as_ref())?;
            let digest = self.memory_digest()?;
            inference.write(&[ReasonedGraph {
                graph,
                digest,
                quads,
            }])?;
        }
        Ok(())
    }
}

/// How many sessions are reasoned about again per commit of the inferred store.
const REASON_BATCH: usize = 100;

/// How many new graphs are written to the inferred store in one step of [`Inference::write`].
const WRITE_CHUNK: usize = 50;
