//! What can go wrong with a store, whatever its backend.

use crate::query::ParameterError;
use crate::rdf::{IriSchemeError, RetrieveError};
use oxigraph::sparql::{QueryEvaluationError, SparqlSyntaxError, UpdateEvaluationError};
use oxigraph::store::StorageError;
use std::io;
use std::path::PathBuf;

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
    /// A tenant's name cannot be used.
    #[error("{given:?} cannot name a tenant: {reason}")]
    TenantName {
        /// The name given.
        given: String,
        /// Why not.
        reason: String,
    },
    /// A role that is not one.
    #[error("{given:?} is not a role: give read, write or admin")]
    AccessRole {
        /// The role given.
        given: String,
    },
    /// A tenant not in the register.
    #[error("no tenant {name:?} in this store (`ihigraph tenant list` lists them)")]
    UnknownTenant {
        /// The name given.
        name: String,
    },
    /// A tenant added twice.
    #[error("the store has a tenant {name:?} already")]
    TenantExists {
        /// The name given.
        name: String,
    },
    /// A token not in the register.
    #[error("no token {id:?} in this store (`ihigraph token list` lists them)")]
    UnknownToken {
        /// The id given.
        id: String,
    },
    /// Tenants asked of a store that is not on disk.
    #[error(
        "{location} cannot hold tenants: a tenant is a store of its own beside a store on disk"
    )]
    NoTenants {
        /// The store.
        location: String,
    },
    /// A tenant's store directory could not be made or removed.
    #[error("cannot make or remove the tenant store {path}")]
    TenantStore {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The register of tenants and tokens cannot be read.
    #[error("cannot read the register of tenants and tokens {path}: {message}")]
    Register {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The system's random source failed.
    #[error("the system's random source failed: {message}")]
    Random {
        /// What it said.
        message: String,
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
        "this store was created with {} {stored:?}; {requested:?} was asked for (a store keeps one IRI scheme)",
        setting.name()
    )]
    SchemeConflict {
        /// Which setting.
        setting: SchemeSetting,
        /// What the store holds.
        stored: String,
        /// What was asked for.
        requested: String,
    },
    /// A base or template is not usable.
    #[error(transparent)]
    Scheme(#[from] IriSchemeError),
    /// A graph could not be canonicalized for its fingerprint.
    #[error(transparent)]
    Fingerprint(#[from] crate::rdf::FingerprintError),
    /// A SPARQL query does not parse.
    #[error("invalid SPARQL query")]
    QuerySyntax(#[source] SparqlSyntaxError),
    /// A SPARQL text nests deeper than it may be parsed (checked before parsing).
    #[error(transparent)]
    TooDeep(#[from] crate::query::TooDeep),
    /// A SPARQL update was given where only queries are allowed.
    #[error("this is a SPARQL update, and queries are read-only: run it as an update")]
    UpdateNotAllowed,
    /// The base IRI given for a query's or an update's relative IRIs is not an IRI.
    #[error("the base IRI {base:?} is not an absolute IRI")]
    BaseIri {
        /// The base given.
        base: String,
        /// Why it is not one.
        #[source]
        source: oxiri::IriParseError,
    },
    /// An update names its own dataset (`USING`, `USING NAMED`, `WITH`) and was given one
    /// beside its text too.
    #[error(
        "the update names its own dataset (USING, USING NAMED or WITH) and the request gives one too (using-graph-uri, using-named-graph-uri): give one or the other"
    )]
    DatasetConflict,
    /// A graph written as a graph of no concern to ihigraph is one it keeps something in.
    #[error("{graph} holds {holds}: ihigraph writes it itself")]
    NotOtherGraph {
        /// The graph.
        graph: String,
        /// What ihigraph keeps there.
        holds: &'static str,
    },
    /// Triples that name a session were given for a graph that is not its graph.
    #[error(
        "the triples name session {session_id:?} (ihi:sessionId): a session is written at its own graph {expected}, not at {graph}"
    )]
    SessionOutsideItsGraph {
        /// The graph they were given for.
        graph: String,
        /// The session they name.
        session_id: String,
        /// The session's graph.
        expected: String,
    },
    /// A SPARQL update failed while running; nothing of it was written.
    #[error("SPARQL update failed")]
    UpdateEvaluation(#[source] UpdateEvaluationError),
    /// A SPARQL query failed while running.
    #[error("SPARQL query failed")]
    QueryEvaluation(#[source] QueryEvaluationError),
    /// Writing an export failed.
    #[error("cannot write the export")]
    Write(#[source] io::Error),
    /// A format that holds one graph was asked for several.
    #[error(
        "{format} holds a single graph: export one session in it, or use trig, nquads or jsonld"
    )]
    SingleGraphFormat {
        /// The format's name.
        format: &'static str,
    },
    /// A session graph could not be read back as a document.
    #[error(transparent)]
    Retrieve(#[from] RetrieveError),
    /// A backup could not be made.
    #[error("cannot back up the store into {path}")]
    Backup {
        /// The target directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: StorageError,
    },
    /// The backend cannot do this.
    #[error("{backend} cannot {what}")]
    Unsupported {
        /// The backend.
        backend: String,
        /// What was asked.
        what: &'static str,
    },
    /// A canned query's arguments do not fit its parameters.
    #[error(transparent)]
    Parameter(#[from] ParameterError),
    /// A SPARQL server failed, refused, or answered what cannot be used.
    #[error(transparent)]
    Remote(#[from] super::RemoteError),
    /// No session has that id.
    #[error("no session {session_id:?} in the store")]
    UnknownSession {
        /// The id asked for.
        session_id: String,
    },
    /// The full-text index beside the store failed (see [`SearchIndex`](super::SearchIndex)).
    #[error("the full-text index in {location} failed")]
    SearchIndex {
        /// The index's directory, or `memory`.
        location: String,
        /// What failed.
        #[source]
        source: tantivy::TantivyError,
    },
    /// A search's text or filters do not read.
    #[error("cannot read the search {query:?}: {message}")]
    SearchQuery {
        /// The search as given.
        query: String,
        /// What is wrong, and where.
        message: String,
    },
    /// A `SERVICE text:search` whose pattern does not say a search the index can run.
    #[error(
        "the SERVICE <https://w3id.org/ihigraph/text#search> pattern is not a search: {message}"
    )]
    SearchService {
        /// What is wrong, and what was expected.
        message: String,
    },
    /// Searching needs the full-text index, which a store on a server does not have.
    #[error(
        "{location} has no full-text index: full-text search works on a store ihigraph keeps (a store directory or one in memory); on a server, the `search` canned query scans the texts instead"
    )]
    NoSearchIndex {
        /// Where the store is.
        location: String,
    },
    /// Reasoning was asked of a store that cannot keep it in step (a server).
    #[error(
        "{location} cannot reason: reasoning is kept in step on a store ihigraph keeps (a store directory or one in memory)"
    )]
    NoReasoning {
        /// Where the store is.
        location: String,
    },
    /// A query asked for inferred statements of a store that does not reason.
    #[error(
        "{location} does not reason, so it has no inferred statements: turn reasoning on first (`ihigraph reasoning on`)"
    )]
    NotReasoning {
        /// Where the store is.
        location: String,
    },
    /// The inferred store's directory could not be made or removed.
    #[error("cannot change the inferred store in {path}")]
    Inferred {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A setting in the store's default graph that ihigraph cannot read (written there
    /// by a SPARQL update).
    #[error("the store's setting {setting} is {value}: {reason}")]
    BadSetting {
        /// The setting's property.
        setting: String,
        /// What the store holds.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The settings of a store's IRI scheme, fixed when the store is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemeSetting {
    /// The base of the nodes ihigraph writes.
    Base,
    /// The template of work-session IRIs.
    SessionTemplate,
}

impl SchemeSetting {
    /// The setting's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Base => "IRI base",
            Self::SessionTemplate => "session IRI template",
        }
    }
}

/// An error's message with its causes, each after a colon, as the CLI prints it and the
/// server answers it; a cause its wrapper already says (one that prints its source as
/// its own message) is said once.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.ends_with(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text
}
