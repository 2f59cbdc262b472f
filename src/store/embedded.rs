//! The embedded backend: an Oxigraph store in this process, on disk (RocksDB) or in
//! memory. New graphs go through Oxigraph's bulk loader, which writes sorted files and
//! adds them in one atomic step (three to four times faster than a transaction);
//! replacements and deletions are transactions.

use super::StoreError;
use super::backend::{Backend, Capabilities, EachStep, GraphLoader, QuadStream};
use super::search::SearchService;
use oxigraph::model::{GraphName, GraphNameRef, NamedNodeRef, Quad, Variable};
use oxigraph::sparql::{CancellationToken, QueryResults, SparqlEvaluator};
use oxigraph::store::{BulkLoader, StorageError, Store};
use spargebra::term::TriplePattern;
use spargebra::{Query, Update};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// An Oxigraph store in this process.
#[derive(Clone)]
pub struct Embedded {
    store: Store,
    path: Option<PathBuf>,
    /// What answers `SERVICE text:search` in its queries and updates.
    search: SearchService,
    /// Every write through this handle (and its clones) counts one: see
    /// [`Backend::writes`].
    writes: Arc<AtomicU64>,
    /// A second store whose quads this handle's queries read as if they were in this
    /// one (see [`overlaid`](Self::overlaid)).
    overlay: Option<Store>,
}

impl Embedded {
    /// Opens (creating if needed) the on-disk store in `path`. Only one process may hold
    /// it at a time.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let store = Store::open(path).map_err(|source| {
            if is_lock_error(&source) {
                StoreError::Locked {
                    path: path.to_owned(),
                }
            } else {
                StoreError::Open {
                    path: path.to_owned(),
                    source,
                }
            }
        })?;
        Ok(Self {
            search: SearchService::new(None, path.display().to_string()),
            store,
            path: Some(path.to_owned()),
            writes: Arc::default(),
            overlay: None,
        })
    }

    /// A new, empty store in memory.
    pub fn in_memory() -> Result<Self, StoreError> {
        Ok(Self {
            store: Store::new()?,
            path: None,
            search: SearchService::new(None, "memory".to_owned()),
            writes: Arc::default(),
            overlay: None,
        })
    }

    /// The Oxigraph store itself, for tools and tests that work below ihigraph (a bulk
    /// load that bypasses the checks, a query plan). What is written through it bypasses
    /// every guarantee of [`HistoryStore`](super::HistoryStore), the derived graphs'
    /// being in step with the session graphs included.
    pub fn oxigraph(&self) -> &Store {
        &self.store
    }

    /// A handle whose queries read this store and `overlay` as one dataset: each quad of
    /// either once, a graph of the same name in both one graph (the patched Oxigraph's
    /// `on_store_with_overlay`). For queries only: it writes to this store, as this
    /// handle does. The inferred store holds what the ontologies entail and nothing the
    /// store holds, and is read so with the store (`inference.rs`).
    pub(super) fn overlaid(&self, overlay: &Self, search: SearchService) -> Self {
        Self {
            store: self.store.clone(),
            path: self.path.clone(),
            search,
            writes: Arc::clone(&self.writes),
            overlay: Some(overlay.store.clone()),
        }
    }

    /// The evaluator of this store's queries and updates: `SERVICE text:search` answered
    /// by its full-text index, every other service refused.
    fn evaluator(&self) -> SparqlEvaluator {
        SparqlEvaluator::new().with_service_handler(SearchService::name(), self.search.clone())
    }

    /// Counts a write, before it starts: a write that fails half-way has still changed
    /// the count, which only ever makes a caller read again what it kept.
    fn wrote(&self) {
        self.writes.fetch_add(1, Ordering::SeqCst);
    }

    fn evaluate(
        &self,
        query: Query,
        union_default_graph: bool,
        cancel: Option<CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        let evaluator = self.evaluator();
        let evaluator = match cancel {
            Some(token) => evaluator.with_cancellation_token(token),
            None => evaluator,
        };
        let mut prepared = evaluator.for_query(query);
        if union_default_graph && prepared.dataset().is_default_dataset() {
            prepared.dataset_mut().set_default_graph_as_union();
        }
        match &self.overlay {
            Some(overlay) => prepared.on_store_with_overlay(&self.store, overlay),
            None => prepared.on_store(&self.store),
        }
        .execute()
        .map_err(StoreError::QueryEvaluation)
    }
}

impl Backend for Embedded {
    fn location(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| "memory".to_owned(), |path| path.display().to_string())
    }

    fn directory(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            backup: self.path.is_some(),
            owns_dataset: true,
            max_rows: None,
            verbatim: true,
            exclusive: true,
        }
    }

    fn quads(&self, graph: Option<GraphNameRef<'_>>) -> Result<QuadStream<'_>, StoreError> {
        let quads = match graph {
            Some(GraphNameRef::NamedNode(graph)) => return self.graph_triples(graph),
            Some(graph) => self.store.quads_for_pattern(None, None, None, Some(graph)),
            None => self.store.iter(),
        };
        Ok(Box::new(quads.map(|quad| Ok(quad?))))
    }

    fn contains_graph(&self, graph: NamedNodeRef<'_>) -> Result<bool, StoreError> {
        Ok(self.store.contains_named_graph(graph)?)
    }

    fn add_graphs(&self, graphs: Vec<Vec<Quad>>) -> Result<(), StoreError> {
        self.wrote();
        let mut loading = Box::new(BulkLoading(self.store.bulk_loader(), None));
        loading.add_graphs(graphs)?;
        loading.commit()
    }

    /// On disk, Oxigraph's bulk loader: each `add_graphs` is sorted into table files on
    /// a thread of its own (two at a time, so that the caller goes on meanwhile), and
    /// the commit adds all of them to RocksDB in one atomic step; dropped uncommitted,
    /// it deletes its files and leaves the store as it was. In memory, where the bulk
    /// loader is a transaction held open (and would shut out every other write until
    /// its commit), each `add_graphs` is a step of its own.
    fn loader(&self) -> Box<dyn GraphLoader + '_> {
        if self.path.is_none() {
            return Box::new(EachStep(self));
        }
        Box::new(BulkLoading(
            self.store.bulk_loader(),
            Some(Arc::clone(&self.writes)),
        ))
    }

    /// Writes only what changes: the quads the graphs hold and are not given are
    /// removed, the quads given and not held are added, the rest is left as it is. A
    /// session that grows by a turn (a watched transcript, spans received live, an
    /// append) costs the new turn's quads, not the whole session's again: RocksDB's
    /// writes of six indexes per quad are most of a replacement's cost.
    fn replace_graphs(&self, graphs: &[GraphName], quads: Vec<Quad>) -> Result<(), StoreError> {
        self.wrote();
        let mut transaction = self.store.start_transaction()?;
        let wanted: HashSet<&Quad> = quads.iter().collect();
        let mut held = HashSet::new();
        for graph in graphs {
            let stored = transaction
                .quads_for_pattern(None, None, None, Some(graph.as_ref()))
                .collect::<Result<Vec<_>, _>>()?;
            let keeps_any = quads.iter().any(|quad| quad.graph_name == *graph);
            match graph {
                GraphName::NamedNode(name) if !keeps_any => {
                    transaction.remove_named_graph(name)?;
                    continue;
                }
                _ => {}
            }
            for quad in stored {
                if wanted.contains(&quad) {
                    held.insert(quad);
                } else {
                    transaction.remove(&quad);
                }
            }
        }
        transaction.extend(quads.iter().filter(|quad| !held.contains(*quad)));
        transaction.commit()?;
        Ok(())
    }

    /// The difference alone, in one atomic batch: no graph is read, and the batch's
    /// writes are not indexed for reading back as a transaction's are (a quarter to a
    /// half less time: `docs/performance.md`, "OpenTelemetry in").
    fn change(&self, removed: &[Quad], added: &[Quad]) -> Result<(), StoreError> {
        self.wrote();
        self.store.remove_and_extend(removed, added)?;
        Ok(())
    }

    fn writes(&self) -> Option<u64> {
        Some(self.writes.load(Ordering::SeqCst))
    }

    fn query(
        &self,
        query: Query,
        union_default_graph: bool,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.evaluate(query, union_default_graph, None)
    }

    fn query_cancellable(
        &self,
        query: Query,
        union_default_graph: bool,
        cancel: &CancellationToken,
    ) -> Result<QueryResults<'static>, StoreError> {
        self.evaluate(query, union_default_graph, Some(cancel.clone()))
    }

    fn answer_searches(&mut self, service: SearchService) {
        self.search = service;
    }

    fn update(&self, update: Update) -> Result<(), StoreError> {
        self.wrote();
        self.evaluator()
            .for_update(update)
            .on_store(&self.store)
            .execute()
            .map_err(StoreError::UpdateEvaluation)
    }

    fn quad_count(&self) -> Result<usize, StoreError> {
        Ok(self.store.len()?)
    }

    fn backup(&self, target: &Path) -> Result<(), StoreError> {
        if self.path.is_none() {
            return Err(StoreError::Unsupported {
                backend: "an in-memory store".to_owned(),
                what: "be backed up",
            });
        }
        self.store
            .backup(target)
            .map_err(|source| StoreError::Backup {
                path: target.to_owned(),
                source,
            })
    }
}

impl Embedded {
    /// A named graph's quads, read through SPARQL (`GRAPH <g> { ?s ?p ?o }`): Oxigraph
    /// then decodes each triple's three terms and not the graph's name for every one of
    /// them, which makes reading a session about a fifth faster than `quads_for_pattern`.
    fn graph_triples(&self, graph: NamedNodeRef<'_>) -> Result<QuadStream<'_>, StoreError> {
        let [s, p, o] = ["s", "p", "o"].map(Variable::new_unchecked);
        let query = super::select_in_graph(
            graph.into_owned(),
            TriplePattern {
                subject: s.into(),
                predicate: p.into(),
                object: o.into(),
            },
        );
        let QueryResults::Solutions(solutions) = self.evaluate(query, false, None)? else {
            unreachable!("a SELECT query gives solutions")
        };
        let name = GraphName::NamedNode(graph.into_owned());
        Ok(Box::new(solutions.filter_map(
            move |solution| match solution {
                Ok(solution) => super::solution_quad(&solution, Some(&name)).map(Ok),
                Err(error) => Some(Err(StoreError::QueryEvaluation(error))),
            },
        )))
    }
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedded")
            .field("location", &self.location())
            .finish_non_exhaustive()
    }
}

/// The embedded store's [`GraphLoader`], with the count of writes its commit adds to
/// (none for a load that counted itself).
struct BulkLoading<'a>(BulkLoader<'a>, Option<Arc<AtomicU64>>);

impl GraphLoader for BulkLoading<'_> {
    fn add_graphs(&mut self, graphs: Vec<Vec<Quad>>) -> Result<(), StoreError> {
        // No quads, no batch: Oxigraph's loader starts none for an empty iterator.
        Ok(self.0.load_quads(graphs.into_iter().flatten())?)
    }

    fn commit(self: Box<Self>) -> Result<(), StoreError> {
        if let Some(writes) = &self.1 {
            writes.fetch_add(1, Ordering::SeqCst);
        }
        Ok(self.0.commit()?)
    }
}

/// RocksDB reports a held store as a failure to lock its `LOCK` file.
fn is_lock_error(error: &StorageError) -> bool {
    let text = error.to_string();
    text.contains("lock file")
        || text.contains("LOCK")
        || text.contains("Resource temporarily unavailable")
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{Literal, NamedNode};

    fn quad(subject: &str, value: &str) -> Quad {
        let name = NamedNode::new_unchecked(format!("urn:x:{subject}"));
        Quad::new(
            name.clone(),
            name.clone(),
            Literal::new_simple_literal(value),
            GraphName::NamedNode(NamedNode::new_unchecked("urn:x:graph")),
        )
    }

    fn held(store: &Embedded) -> HashSet<Quad> {
        store
            .quads(None)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// A known difference goes to RocksDB in a plain batch (patches/oxigraph): what it
    /// removes is gone, what it adds is there, every index agrees, and so does the store
    /// opened again.
    #[test]
    fn a_difference_is_written_on_disk_and_stays_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        let (a, b, c) = (quad("a", "1"), quad("b", "2"), quad("c", "3"));
        {
            let store = Embedded::open(&path).unwrap();
            store.change(&[], &[a.clone(), b.clone()]).unwrap();
            let before = store.writes();
            store
                .change(std::slice::from_ref(&a), std::slice::from_ref(&c))
                .unwrap();
            assert_ne!(store.writes(), before, "a change counts as a write");
            assert_eq!(held(&store), HashSet::from([b.clone(), c.clone()]));
            // Each index answers alike: by subject, by object, by graph.
            let by_object = store
                .oxigraph()
                .quads_for_pattern(None, None, Some(c.object.as_ref()), None)
                .count();
            assert_eq!(by_object, 1);
            assert!(!store.oxigraph().contains(&a).unwrap());
            store.oxigraph().validate().unwrap();
        }
        let store = Embedded::open(&path).unwrap();
        assert_eq!(held(&store), HashSet::from([b, c]));
    }

    /// A thousand quads of one 4,000-character subject and graph, ten predicates.
    fn long_named_quads() -> Vec<Quad> {
        let subject = NamedNode::new_unchecked(format!("urn:x:{}", "s".repeat(4_000)));
        let graph = GraphName::NamedNode(NamedNode::new_unchecked(format!(
            "urn:g:{}",
            "g".repeat(4_000)
        )));
        (0..1_000)
            .map(|n| {
                Quad::new(
                    subject.clone(),
                    NamedNode::new_unchecked(format!("urn:p:{}", n % 10)),
                    Literal::from(n),
                    graph.clone(),
                )
            })
            .collect()
    }

    /// The bytes of a store's write-ahead logs.
    fn log_bytes(path: &Path) -> u64 {
        std::fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap())
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".log"))
            .map(|entry| entry.metadata().unwrap().len())
            .sum()
    }

    /// Writes `quads` with `write`, checks that the write-ahead log grew by the index
    /// keys (six indexes of four 17-byte terms a quad: about 0.4 MB for a thousand), not
    /// by a copy of the long strings with each quad (8 MB more), and that every quad
    /// reads back whole, from the store opened again too.
    fn puts_each_string_once(quads: &[Quad], write: impl Fn(&Embedded)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        {
            let store = Embedded::open(&path).unwrap();
            let before = log_bytes(&path);
            write(&store);
            let grown = log_bytes(&path) - before;
            assert!(
                grown > 300_000 && grown < 1_000_000,
                "the write-ahead log grew by {grown} bytes"
            );
            store.oxigraph().validate().unwrap();
        }
        let store = Embedded::open(&path).unwrap();
        assert_eq!(held(&store), quads.iter().cloned().collect());
    }

    /// A known difference puts each string in RocksDB's string table once
    /// (patches/oxigraph), where it put the subject, predicate, object and graph of
    /// every quad again.
    #[test]
    fn a_difference_puts_each_string_once() {
        let quads = long_named_quads();
        puts_each_string_once(&quads, |store| store.change(&[], &quads).unwrap());
    }

    /// So does a SPARQL update that replaces a graph (a `DROP` of a named graph, then its
    /// data), which writes through Oxigraph's indexed transaction, the one that can read
    /// what it wrote.
    #[test]
    fn an_update_puts_each_string_once() {
        let quads = long_named_quads();
        let data: String = quads
            .iter()
            .map(|quad| {
                format!(
                    "GRAPH {} {{ {} {} {} }}\n",
                    quad.graph_name, quad.subject, quad.predicate, quad.object
                )
            })
            .collect();
        let update = spargebra::SparqlParser::new()
            .parse_update(&format!(
                "DROP SILENT GRAPH {} ; INSERT DATA {{ {data} }}",
                quads[0].graph_name
            ))
            .unwrap();
        puts_each_string_once(&quads, |store| store.update(update.clone()).unwrap());
    }

    /// The bulk loader's files are moved into the store by RocksDB (patches/oxigraph): the
    /// load holds every quad, in every index, none of the loader's `bulk-*.sst` files is
    /// left in the store's directory, and the store opens again with them.
    #[test]
    fn a_bulk_load_moves_its_files_into_the_store_and_leaves_none_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        let graphs: Vec<Vec<Quad>> = (0..3)
            .map(|graph| {
                (0..2_000)
                    .map(|n| {
                        let name = NamedNode::new_unchecked(format!("urn:x:{graph}/{n}"));
                        Quad::new(
                            name.clone(),
                            name,
                            Literal::new_simple_literal(format!(
                                "value {n} of a text long enough to be hashed"
                            )),
                            GraphName::NamedNode(NamedNode::new_unchecked(format!(
                                "urn:x:g{graph}"
                            ))),
                        )
                    })
                    .collect()
            })
            .collect();
        let all: HashSet<Quad> = graphs.iter().flatten().cloned().collect();
        {
            let store = Embedded::open(&path).unwrap();
            store.add_graphs(graphs).unwrap();
            assert_eq!(held(&store), all);
            store.oxigraph().validate().unwrap();
        }
        let left: Vec<String> = std::fs::read_dir(&path)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("bulk-"))
            .collect();
        assert!(
            left.is_empty(),
            "the loader's files left beside the store: {left:?}"
        );
        let store = Embedded::open(&path).unwrap();
        assert_eq!(held(&store), all);
    }

    /// The patched batch puts each column family's keys in order before writing
    /// (patches/oxigraph): keys of every length and graph come out whole in every index,
    /// and a quad removed and added in one batch stays, as the batch gave it.
    #[test]
    fn a_batch_written_in_key_order_keeps_every_quad_and_the_order_of_one_keys_writes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Embedded::open(&dir.path().join("store")).unwrap();
        let many: Vec<Quad> = (0..600)
            .map(|n| {
                let name = NamedNode::new_unchecked(format!("urn:x:{}", (n * 7919) % 600));
                Quad::new(
                    name.clone(),
                    name,
                    // Short literals are inlined in the key, long ones hashed.
                    Literal::new_simple_literal("v".repeat(n % 40)),
                    GraphName::NamedNode(NamedNode::new_unchecked(format!("urn:g:{}", n % 7))),
                )
            })
            .collect();
        store.change(&[], &many).unwrap();
        let kept = many[17].clone();
        store
            .change(std::slice::from_ref(&kept), &[kept.clone(), quad("z", "9")])
            .unwrap();
        let mut expected: HashSet<Quad> = many.into_iter().collect();
        expected.insert(quad("z", "9"));
        assert_eq!(held(&store), expected);
        assert!(store.oxigraph().contains(&kept).unwrap());
        for quad in &expected {
            let by_object = store
                .oxigraph()
                .quads_for_pattern(
                    None,
                    None,
                    Some(quad.object.as_ref()),
                    Some(quad.graph_name.as_ref()),
                )
                .filter_map(Result::ok)
                .any(|found| &found == quad);
            assert!(by_object, "{quad} is not found by its object and graph");
        }
        store.oxigraph().validate().unwrap();
    }
}
