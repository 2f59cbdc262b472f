//! The store: an embedded Oxigraph store (on disk by default, or in memory) holding one
//! named graph per session, plus the store's own settings (IRI base and work-session
//! template) in the default graph, where no query over the session graphs sees them,
//! and the ontologies, each in a named graph named by its IRI, so that queries can read
//! the class hierarchy. Exports and counts leave the settings and ontologies out.

use crate::check::{CheckOptions, Problem, Severity, check_document};
use crate::history::InteractionHistory;
use crate::iri::{IriScheme, IriSchemeError};
use crate::mapping::SessionGraph;
use crate::mapping::{MappingWarning, map_history};
use crate::ontology::{ONTOLOGIES, ontology_digest};
use crate::queries::{Arguments, CannedQuery, ParameterError};
use crate::retrieve::{RetrieveError, rebuild_history};
use crate::vocab::{ch, ihi, jido, prov};
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfParser, RdfSerializer};
use oxigraph::model::{
    GraphName, GraphNameRef, Literal, NamedNode, NamedNodeRef, Quad, QuadRef, Term,
};
use oxigraph::sparql::{QueryResults, SparqlEvaluator, SparqlSyntaxError};
use oxigraph::store::{StorageError, Store, Transaction};
use serde_json::Value;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Another process holds the store.
    #[error("store {path} is in use by another process (only one process may open it at a time)")]
    Locked {
        /// The store directory.
        path: PathBuf,
    },
    /// The store could not be opened.
    #[error("cannot open store {path}")]
    Open {
        /// The store directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: StorageError,
    },
    /// A read or write failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A setting given differs from the one the store was created with.
    #[error(
        "this store was created with {setting} {stored:?}; {requested:?} was asked for (a store keeps one IRI scheme)"
    )]
    SchemeConflict {
        /// `--base` or `--session-iri`.
        setting: &'static str,
        /// What the store holds.
        stored: String,
        /// What was asked for.
        requested: String,
    },
    /// A base or template is not usable.
    #[error(transparent)]
    Scheme(#[from] IriSchemeError),
    /// A SPARQL query does not parse.
    #[error("invalid SPARQL query")]
    QuerySyntax(#[source] SparqlSyntaxError),
    /// A SPARQL update was given where only queries are allowed.
    #[error("this is a SPARQL update: queries are read-only unless --update is given")]
    UpdateNotAllowed,
    /// A SPARQL update failed while running; nothing of it was written.
    #[error("SPARQL update failed")]
    UpdateEvaluation(#[source] oxigraph::sparql::UpdateEvaluationError),
    /// A SPARQL query failed while running.
    #[error("SPARQL query failed")]
    QueryEvaluation(#[source] oxigraph::sparql::QueryEvaluationError),
    /// Writing an export failed.
    #[error("cannot write the export")]
    Write(#[source] io::Error),
    /// A format that holds one graph was asked for several.
    #[error(
        "{format} holds a single graph: name one session with --session, or use trig, nquads or jsonld"
    )]
    SingleGraphFormat {
        /// The format's name.
        format: &'static str,
    },
    /// A session graph could not be read back as a document.
    #[error(transparent)]
    Retrieve(#[from] RetrieveError),
    /// A document or turn was refused by its checks; nothing was written.
    #[error("refused: {}", problems.iter().filter(|p| p.severity == Severity::Error).map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Refused {
        /// Every problem found.
        problems: Vec<Problem>,
    },
    /// A backup could not be made.
    #[error("cannot back up the store into {path}")]
    Backup {
        /// The target directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: StorageError,
    },
    /// A canned query's arguments do not fit its parameters.
    #[error(transparent)]
    Parameter(#[from] ParameterError),
    /// No session has that id.
    #[error("no session {session_id:?} in the store")]
    UnknownSession {
        /// The id asked for.
        session_id: String,
    },
}

/// The IRI scheme asked for when opening a store: what is not given is the store's
/// recorded setting, or the default for a new store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemeRequest {
    /// `--base`.
    pub base: Option<String>,
    /// `--session-iri`.
    pub session_template: Option<String>,
}

/// What appending a turn did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendOutcome {
    /// The session was started by this turn.
    pub created: bool,
    /// The session's turns now.
    pub turn_count: usize,
    /// Problems downgraded to warnings (`--lenient`).
    pub warnings: Vec<Problem>,
    /// What the mapper noticed.
    pub mapping_warnings: Vec<MappingWarning>,
}

/// What `append --create` starts a session with, besides its first turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// `MInstanceID`.
    pub m_instance_id: String,
    /// `UEnvironmentID`.
    pub u_environment_id: String,
    /// `DataXMData`, the session's data-exchange metadata (a JSON object).
    pub data_exchange_metadata: Value,
}

impl NewSession {
    /// The document of a new session holding just `turn`; its start time is the
    /// turn's `Timestamp`.
    fn document(&self, session_id: &str, turn: &Value) -> Value {
        serde_json::json!({
            "Header": "PGM-IHI-V1.0",
            "MInstanceID": self.m_instance_id,
            "UEnvironmentID": self.u_environment_id,
            "SessionID": session_id,
            "SessionStartTime": turn.get("Timestamp").cloned().unwrap_or(Value::Null),
            "TurnCount": 1,
            "Turns": [turn],
            "DataXMData": self.data_exchange_metadata,
        })
    }
}

/// What writing a session did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOutcome {
    /// The session existed with other content and was replaced.
    pub replaced: bool,
    /// The session existed with the very same quads: nothing was written.
    pub unchanged: bool,
}

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

/// The prefixes of exports and the `ontology` listing.
pub const PREFIXES: &[(&str, &str)] = &[
    ("ch", ch::NAMESPACE),
    ("ihi", ihi::NAMESPACE),
    ("jido", jido::NAMESPACE),
    ("prov", prov::NAMESPACE),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
];

/// A store of interaction histories.
pub struct HistoryStore {
    store: Store,
    scheme: IriScheme,
}

impl HistoryStore {
    /// Opens (creating if needed) the on-disk store in `path`. A new store records the
    /// requested scheme; an existing one keeps its own, and a conflicting request is an
    /// error.
    pub fn open(path: &Path, request: &SchemeRequest) -> Result<Self, StoreError> {
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
        Self::with_store(store, request)
    }

    /// A new in-memory store.
    ///
    /// ```
    /// let store = ihigraph::HistoryStore::in_memory(&Default::default())?;
    /// assert_eq!(store.session_count()?, 0);
    /// # Ok::<_, ihigraph::StoreError>(())
    /// ```
    pub fn in_memory(request: &SchemeRequest) -> Result<Self, StoreError> {
        Self::with_store(Store::new()?, request)
    }

    fn with_store(store: Store, request: &SchemeRequest) -> Result<Self, StoreError> {
        let settings = ihi::STORE_SETTINGS;
        let stored = |property: NamedNodeRef<'_>| -> Result<Option<String>, StoreError> {
            let mut values = store.quads_for_pattern(
                Some(settings.into()),
                Some(property),
                None,
                Some(GraphNameRef::DefaultGraph),
            );
            Ok(match values.next().transpose()? {
                Some(quad) => match quad.object {
                    Term::Literal(literal) => Some(literal.value().to_owned()),
                    _ => None,
                },
                None => None,
            })
        };
        let stored_base = stored(ihi::IRI_BASE)?;
        let stored_template = stored(ihi::SESSION_IRI_TEMPLATE)?;
        let pick = |setting: &'static str,
                    stored: Option<String>,
                    requested: &Option<String>,
                    default: &str|
         -> Result<String, StoreError> {
            match (stored, requested) {
                (Some(stored), Some(requested)) if stored != *requested => {
                    Err(StoreError::SchemeConflict {
                        setting,
                        stored,
                        requested: requested.clone(),
                    })
                }
                (Some(stored), _) => Ok(stored),
                (None, Some(requested)) => Ok(requested.clone()),
                (None, None) => Ok(default.to_owned()),
            }
        };
        let fresh = stored_base.is_none() || stored_template.is_none();
        let base = pick(
            "--base",
            stored_base,
            &request.base,
            crate::iri::DEFAULT_BASE,
        )?;
        let template = pick(
            "--session-iri",
            stored_template,
            &request.session_template,
            crate::iri::DEFAULT_SESSION_TEMPLATE,
        )?;
        let scheme = IriScheme::new(&base, &template)?;
        let digest = ontology_digest();
        let stale_ontologies = stored(ihi::ONTOLOGY_DIGEST)?.as_deref() != Some(digest.as_str());
        if fresh || stale_ontologies {
            let mut transaction = store.start_transaction()?;
            if fresh {
                for (property, value) in [
                    (ihi::IRI_BASE, &base),
                    (ihi::SESSION_IRI_TEMPLATE, &template),
                ] {
                    let value = Literal::new_simple_literal(value.as_str());
                    transaction.insert(QuadRef::new(
                        settings,
                        property,
                        &value,
                        GraphNameRef::DefaultGraph,
                    ));
                }
            }
            if stale_ontologies {
                write_ontologies(&mut transaction, &digest)?;
            }
            transaction.commit()?;
        }
        Ok(Self { store, scheme })
    }

    /// The IRI scheme of this store.
    pub fn scheme(&self) -> &IriScheme {
        &self.scheme
    }

    /// The underlying Oxigraph store.
    pub fn oxigraph(&self) -> &Store {
        &self.store
    }

    /// Writes a session in one transaction, replacing any earlier version of it: after
    /// an error, the store is as it was. A session already stored with the very same
    /// quads is left untouched.
    pub fn write_session(&self, session: &SessionGraph) -> Result<WriteOutcome, StoreError> {
        let replaced = self.store.contains_named_graph(&session.graph)?;
        if replaced && self.holds_exactly(session)? {
            return Ok(WriteOutcome {
                replaced: false,
                unchanged: true,
            });
        }
        let mut transaction = self.store.start_transaction()?;
        if replaced {
            transaction.remove_named_graph(&session.graph)?;
        }
        transaction.extend(&session.quads);
        transaction.commit()?;
        Ok(WriteOutcome {
            replaced,
            unchanged: false,
        })
    }

    /// Writes many sessions at once, as `ingest` does: the sessions not yet in the store
    /// go through Oxigraph's bulk loader, which writes sorted files and adds them to the
    /// store in one atomic step (three to four times faster than a transaction per
    /// session); sessions already stored are replaced or left unchanged as
    /// [`write_session`](Self::write_session) does. Each session is written whole or not
    /// at all: after an error or a crash, some sessions of the batch may be stored,
    /// each of them complete. A session given twice is written twice, the later one
    /// replacing the earlier. The outcomes are in the order of `sessions`.
    ///
    /// ```
    /// use ihigraph::{CheckOptions, HistoryStore, check_document, generate, map_history};
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
        let mut outcomes = Vec::with_capacity(sessions.len());
        let mut fresh: Vec<SessionGraph> = Vec::new();
        let mut fresh_graphs: HashSet<NamedNode> = HashSet::new();
        for session in sessions {
            if fresh_graphs.contains(&session.graph) {
                self.bulk_load(std::mem::take(&mut fresh))?;
                fresh_graphs.clear();
            }
            if self.store.contains_named_graph(&session.graph)? {
                outcomes.push(self.write_session(&session)?);
            } else {
                fresh_graphs.insert(session.graph.clone());
                fresh.push(session);
                outcomes.push(WriteOutcome {
                    replaced: false,
                    unchanged: false,
                });
            }
        }
        self.bulk_load(fresh)?;
        Ok(outcomes)
    }

    /// Adds sessions that are not in the store, all at once.
    fn bulk_load(&self, sessions: Vec<SessionGraph>) -> Result<(), StoreError> {
        if sessions.is_empty() {
            return Ok(());
        }
        let mut loader = self.store.bulk_loader();
        loader.load_quads(sessions.into_iter().flat_map(|session| session.quads))?;
        loader.commit()?;
        Ok(())
    }

    /// Whether the session's graph holds exactly the session's quads.
    fn holds_exactly(&self, session: &SessionGraph) -> Result<bool, StoreError> {
        let wanted: HashSet<&Quad> = session.quads.iter().collect();
        let mut stored = 0;
        for quad in
            self.store
                .quads_for_pattern(None, None, None, Some(session.graph.as_ref().into()))
        {
            if !wanted.contains(&quad?) {
                return Ok(false);
            }
            stored += 1;
        }
        Ok(stored == wanted.len())
    }

    /// The PGM-IHI document of a stored session, rebuilt from its graph alone.
    pub fn history(&self, session_id: &str) -> Result<InteractionHistory, StoreError> {
        let graph = self.existing_graph(session_id)?;
        Ok(rebuild_history(&self.store, &graph, &self.scheme)?)
    }

    /// The graph of a stored session, or [`StoreError::UnknownSession`].
    fn existing_graph(&self, session_id: &str) -> Result<NamedNode, StoreError> {
        let graph = self.scheme.session_graph(session_id);
        if self.store.contains_named_graph(&graph)? {
            Ok(graph)
        } else {
            Err(StoreError::UnknownSession {
                session_id: session_id.to_owned(),
            })
        }
    }

    /// Adds one turn to a stored session, as the orchestrator of a running agent does:
    /// the session is read back from its graph, the turn appended and `TurnCount`
    /// updated, and the whole document checked as any document is (the turn's
    /// `TurnIndex` must be the next one); then the session is written in one
    /// transaction, so that tool results in the turn link to invocations of earlier
    /// turns. With `create`, an unknown session is started from the turn.
    pub fn append_turn(
        &self,
        session_id: &str,
        turn: &Value,
        create: Option<&NewSession>,
        options: CheckOptions,
    ) -> Result<AppendOutcome, StoreError> {
        let (mut document, created) = match (self.history(session_id), create) {
            (Ok(history), _) => (
                serde_json::to_value(&history).expect("a history always serializes"),
                false,
            ),
            (Err(StoreError::UnknownSession { .. }), Some(new)) => {
                (new.document(session_id, turn), true)
            }
            (Err(error), _) => return Err(error),
        };
        if !created {
            let turns = document
                .get_mut("Turns")
                .and_then(Value::as_array_mut)
                .expect("a rebuilt history has turns");
            turns.push(turn.clone());
            let count = turns.len();
            document["TurnCount"] = Value::from(count);
        }
        let checked = check_document(&document, options);
        let problems = checked.problems;
        let Some(history) = checked.history else {
            return Err(StoreError::Refused { problems });
        };
        let session = map_history(&history, &self.scheme);
        self.write_session(&session)?;
        Ok(AppendOutcome {
            created,
            turn_count: history.turns.len(),
            warnings: problems,
            mapping_warnings: session.warnings,
        })
    }

    /// Removes a session and everything about it (one graph, one transaction).
    pub fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        let graph = self.existing_graph(session_id)?;
        let mut transaction = self.store.start_transaction()?;
        transaction.remove_named_graph(&graph)?;
        transaction.commit()?;
        Ok(())
    }

    /// Removes every session, in one transaction; the settings and ontologies stay.
    /// Returns the number of sessions removed.
    pub fn delete_all_sessions(&self) -> Result<usize, StoreError> {
        let sessions = self.sessions()?;
        let mut transaction = self.store.start_transaction()?;
        for (_, graph) in &sessions {
            transaction.remove_named_graph(graph)?;
        }
        transaction.commit()?;
        Ok(sessions.len())
    }

    /// Writes a consistent copy of the on-disk store into `target` (a RocksDB
    /// checkpoint: hard links where the file system allows), while the store stays
    /// readable. `target` must not exist yet.
    pub fn backup(&self, target: &Path) -> Result<(), StoreError> {
        self.store
            .backup(target)
            .map_err(|source| StoreError::Backup {
                path: target.to_owned(),
                source,
            })
    }

    /// The stored sessions: `SessionID` and graph, in graph order.
    pub fn sessions(&self) -> Result<Vec<(String, NamedNode)>, StoreError> {
        let mut sessions = Vec::new();
        for quad in self
            .store
            .quads_for_pattern(None, Some(ihi::SESSION_ID), None, None)
        {
            let quad = quad?;
            if let (Term::Literal(id), GraphName::NamedNode(graph)) = (quad.object, quad.graph_name)
            {
                sessions.push((id.value().to_owned(), graph));
            }
        }
        Ok(sessions)
    }

    /// Number of stored sessions.
    pub fn session_count(&self) -> Result<usize, StoreError> {
        let mut count = 0;
        for quad in self
            .store
            .quads_for_pattern(None, Some(ihi::SESSION_ID), None, None)
        {
            quad?;
            count += 1;
        }
        Ok(count)
    }

    /// Number of quads in session graphs (the store's settings and ontologies not counted).
    pub fn quad_count(&self) -> Result<usize, StoreError> {
        let mut others = self
            .store
            .quads_for_pattern(None, None, None, Some(GraphNameRef::DefaultGraph))
            .count();
        for (iri, _) in ONTOLOGIES {
            let graph = NamedNodeRef::new_unchecked(iri);
            others += self
                .store
                .quads_for_pattern(None, None, None, Some(graph.into()))
                .count();
        }
        Ok(self.store.len()?.saturating_sub(others))
    }

    /// Runs a read-only SPARQL query whose default graph is the union of the session
    /// graphs (unless the query names its own dataset). `SERVICE` fails: Oxigraph is
    /// built without its HTTP client, so no query reaches the network.
    pub fn query(&self, sparql: &str) -> Result<QueryResults<'static>, StoreError> {
        let mut prepared = SparqlEvaluator::new()
            .parse_query(sparql)
            .map_err(|error| {
                if SparqlEvaluator::new().parse_update(sparql).is_ok() {
                    StoreError::UpdateNotAllowed
                } else {
                    StoreError::QuerySyntax(error)
                }
            })?;
        if prepared.dataset().is_default_dataset() {
            prepared.dataset_mut().set_default_graph_as_union();
        }
        prepared
            .on_store(&self.store)
            .execute()
            .map_err(StoreError::QueryEvaluation)
    }

    /// Runs a SPARQL 1.1 update, in one transaction. It writes what it says, bypassing
    /// the checks and the mapping: ihigraph's guarantees (lossless export, one graph per
    /// session) hold for what ihigraph wrote. `LOAD` and `SERVICE` fail: Oxigraph is
    /// built without its HTTP client.
    pub fn update(&self, sparql: &str) -> Result<(), StoreError> {
        SparqlEvaluator::new()
            .parse_update(sparql)
            .map_err(StoreError::QuerySyntax)?
            .on_store(&self.store)
            .execute()
            .map_err(StoreError::UpdateEvaluation)
    }

    /// Runs a canned query with its arguments bound as typed RDF terms (never pasted
    /// into the query text); see [`CannedQuery::bind`].
    ///
    /// ```
    /// use ihigraph::{Arguments, HistoryStore, RECENT_TURNS};
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
        let query = query.bind(arguments, &self.scheme)?;
        SparqlEvaluator::new()
            .for_query(query)
            .on_store(&self.store)
            .execute()
            .map_err(StoreError::QueryEvaluation)
    }

    /// Writes the session graphs (or one session's) in an RDF format.
    pub fn export(
        &self,
        writer: impl Write,
        format: ExportFormat,
        session_id: Option<&str>,
    ) -> Result<(), StoreError> {
        let graph = match session_id {
            Some(id) => Some(self.existing_graph(id)?),
            None if format == ExportFormat::Turtle => {
                return Err(StoreError::SingleGraphFormat { format: "turtle" });
            }
            None => None,
        };
        let mut serializer = RdfSerializer::from_format(format.rdf_format());
        for (prefix, namespace) in PREFIXES.iter().copied().chain([("id", self.scheme.base())]) {
            serializer = serializer
                .with_prefix(prefix, namespace)
                .expect("prefixes are valid IRIs: the base was checked, the rest are constants");
        }
        let mut serializer = serializer.for_writer(writer);
        let quads = match &graph {
            Some(graph) => {
                self.store
                    .quads_for_pattern(None, None, None, Some(graph.as_ref().into()))
            }
            None => self.store.iter(),
        };
        for quad in quads {
            let quad = quad?;
            if quad.graph_name.is_default_graph() || is_ontology_graph(&quad.graph_name) {
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

impl std::fmt::Debug for HistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryStore")
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

/// RocksDB reports a held store as a failure to lock its `LOCK` file.
fn is_lock_error(error: &StorageError) -> bool {
    let text = error.to_string();
    text.contains("lock file")
        || text.contains("LOCK")
        || text.contains("Resource temporarily unavailable")
}

/// Replaces the ontology graphs with this version's ontologies and records their digest.
fn write_ontologies(transaction: &mut Transaction<'_>, digest: &str) -> Result<(), StoreError> {
    for (iri, turtle) in ONTOLOGIES {
        let graph = NamedNode::new_unchecked(*iri);
        transaction.remove_named_graph(&graph)?;
        for quad in RdfParser::from_format(RdfFormat::Turtle)
            .with_default_graph(graph.clone())
            .for_slice(turtle)
        {
            let quad = quad.expect("the embedded ontologies parse (tested)");
            transaction.insert(&quad);
        }
    }
    let stale = transaction
        .quads_for_pattern(
            Some(ihi::STORE_SETTINGS.into()),
            Some(ihi::ONTOLOGY_DIGEST),
            None,
            Some(GraphNameRef::DefaultGraph),
        )
        .collect::<Result<Vec<_>, _>>()?;
    for quad in &stale {
        transaction.remove(quad);
    }
    transaction.insert(QuadRef::new(
        ihi::STORE_SETTINGS,
        ihi::ONTOLOGY_DIGEST,
        &Literal::new_simple_literal(digest),
        GraphNameRef::DefaultGraph,
    ));
    Ok(())
}

/// Whether a graph holds one of the ontologies rather than a session.
fn is_ontology_graph(graph: &GraphName) -> bool {
    matches!(graph, GraphName::NamedNode(node) if ONTOLOGIES.iter().any(|(iri, _)| node.as_str() == *iri))
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
