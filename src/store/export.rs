//! Exports: the session graphs (or one session's) in an RDF format, the store's settings
//! and ontologies left out.

use super::settings::is_bookkeeping;
use super::{HistoryStore, StoreError};
use crate::rdf::prefixes_with_base;
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
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
    /// Writes the session graphs (or one session's) in an RDF format.
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
        let mut serializer = RdfSerializer::from_format(format.rdf_format());
        for (prefix, namespace) in prefixes_with_base(self.scheme().base()) {
            serializer = serializer
                .with_prefix(prefix, namespace)
                .expect("prefixes are valid IRIs: the base was checked, the rest are constants");
        }
        let mut serializer = serializer.for_writer(writer);
        let quads = self
            .backend
            .quads(graph.as_ref().map(|graph| graph.as_ref().into()))?;
        for quad in quads {
            let quad = quad?;
            if is_bookkeeping(&quad.graph_name) {
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
        serializer
            .finish()
            .map_err(StoreError::Write)?
            .flush()
            .map_err(StoreError::Write)
    }
}
