//! Exports: the session graphs (or one session's) in an RDF format, the store's settings,
//! ontologies and derived graphs left out.

use super::settings::is_bookkeeping;
use super::{HistoryStore, StoreError};
use crate::rdf::prefixes_with_base;
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfParser, RdfSerializer};
use oxigraph::model::{GraphName, NamedNode};
use std::io::Write;

/// RDF formats for `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportFormat {
    /// TriG: every graph, named.
    TriG,
    /// N-Quads.
    NQuads,
    /// Turtle: one session's graph.
    Turtle,
    /// JSON-LD 1.1, graphs named.
    JsonLd,
}

impl ExportFormat {
    fn rdf_format(self) -> RdfFormat {
        match self {
            Self::TriG => RdfFormat::TriG,
            Self::NQuads => RdfFormat::NQuads,
            Self::Turtle => RdfFormat::Turtle,
            Self::JsonLd => RdfFormat::JsonLd {
                profile: JsonLdProfileSet::empty(),
            },
        }
    }
}

impl HistoryStore {
    fn serializer<W: Write>(
        &self,
        format: ExportFormat,
        writer: W,
    ) -> oxigraph::io::WriterQuadSerializer<W> {
        let mut serializer = RdfSerializer::from_format(format.rdf_format());
        for (prefix, namespace) in prefixes_with_base(self.scheme().base()) {
            serializer = serializer
                .with_prefix(prefix, namespace)
                .expect("prefixes are valid IRIs: the base was checked, the rest are constants");
        }
        serializer.for_writer(writer)
    }

    /// Writes everything ihigraph keeps in the store, its settings (in the default graph)
    /// and ontologies included, as N-Quads or TriG: a backup of a store on any backend,
    /// which `oxigraph load` (or a server's loader) reads back. Each session is read in
    /// one request, so each is whole, as it was when it was read. What the store derives
    /// from the sessions (their digests) is left out: it is not the store's record, and a
    /// dump may be changed before it is loaded; a session ingested again gets its digest.
    pub fn dump(&self, writer: impl Write, format: ExportFormat) -> Result<(), StoreError> {
        if !matches!(format, ExportFormat::NQuads | ExportFormat::TriG) {
            return Err(StoreError::Unsupported {
                backend: self.location(),
                what: "back up into a format other than N-Quads or TriG",
            });
        }
        let mut serializer = self.serializer(format, writer);
        // The ontologies are this version's: opening the store made sure of it (their
        // digest is in the settings), and their blank nodes come back from a server under
        // its own names (Virtuoso's `nodeID://`), which no RDF syntax takes.
        for (iri, turtle) in crate::rdf::ONTOLOGIES {
            let quads = RdfParser::from_format(RdfFormat::Turtle)
                .with_default_graph(NamedNode::new_unchecked(*iri))
                .for_slice(turtle);
            for quad in quads {
                let quad = quad.expect("the embedded ontologies parse (tested)");
                serializer
                    .serialize_quad(&quad)
                    .map_err(StoreError::Write)?;
            }
        }
        let mut graphs: Vec<GraphName> = vec![GraphName::DefaultGraph];
        graphs.extend(self.sessions()?.into_iter().map(|(_, graph)| graph.into()));
        graphs.push(self.scheme().memory_graph().into());
        graphs.push(self.scheme().fingerprints_graph().into());
        for graph in &graphs {
            for quad in self.backend.quads(Some(graph.as_ref()))? {
                serializer
                    .serialize_quad(&quad?)
                    .map_err(StoreError::Write)?;
            }
        }
        serializer
            .finish()
            .map_err(StoreError::Write)?
            .flush()
            .map_err(StoreError::Write)
    }

    /// Writes the session graphs and the memory graph (or one session's graph) in an RDF
    /// format; not the store's bookkeeping (settings, ontologies, fingerprint records) nor
    /// what it derives from the sessions (their derived graphs).
    ///
    /// ```
    /// use ihigraph::check::{CheckOptions, check_document};
    /// use ihigraph::rdf::map_history;
    /// use ihigraph::{ExportFormat, HistoryStore};
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let document = ihigraph::generate::generate(Default::default()).next().unwrap();
    /// let history = check_document(&document, CheckOptions::default()).history.unwrap();
    /// store.write_session(&map_history(&history, store.scheme()))?;
    /// let mut nquads = Vec::new();
    /// store.export(&mut nquads, ExportFormat::NQuads, Some(&history.session_id))?;
    /// assert_eq!(String::from_utf8(nquads)?.lines().count(), store.quad_count()?);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn export(
        &self,
        writer: impl Write,
        format: ExportFormat,
        session_id: Option<&str>,
    ) -> Result<(), StoreError> {
        let graph = match session_id {
            Some(id) => {
                let graph = self.scheme().session_graph(id);
                if !self.backend.contains_graph(graph.as_ref())? {
                    return Err(StoreError::UnknownSession {
                        session_id: id.to_owned(),
                    });
                }
                Some(graph)
            }
            None if format == ExportFormat::Turtle => {
                return Err(StoreError::SingleGraphFormat { format: "turtle" });
            }
            None => None,
        };
        let mut serializer = self.serializer(format, writer);
        let graphs: Vec<Option<GraphName>> = match graph {
            Some(graph) => vec![Some(graph.into())],
            None if self.backend.capabilities().owns_dataset => vec![None],
            // A server may hold other data: only the session graphs and the memory graph
            // are ihigraph's.
            None => {
                let mut graphs: Vec<Option<GraphName>> = self
                    .sessions()?
                    .into_iter()
                    .map(|(_, graph)| Some(graph.into()))
                    .collect();
                let memory = self.scheme().memory_graph();
                if self.backend.contains_graph(memory.as_ref())? {
                    graphs.push(Some(memory.into()));
                }
                graphs
            }
        };
        let fingerprints = GraphName::NamedNode(self.scheme().fingerprints_graph());
        for graph in graphs {
            for quad in self.backend.quads(graph.as_ref().map(GraphName::as_ref))? {
                let quad = quad?;
                if is_bookkeeping(&quad.graph_name) || quad.graph_name == fingerprints {
                    continue;
                }
                if let GraphName::NamedNode(graph) = &quad.graph_name
                    && self.scheme().is_derived_graph(graph.as_str())
                {
                    continue;
                }
                if format == ExportFormat::Turtle {
                    serializer
                        .serialize_triple(quad.as_ref())
                        .map_err(StoreError::Write)?;
                } else {
                    serializer
                        .serialize_quad(&quad)
                        .map_err(StoreError::Write)?;
                }
            }
        }
        serializer
            .finish()
            .map_err(StoreError::Write)?
            .flush()
            .map_err(StoreError::Write)
    }
}
