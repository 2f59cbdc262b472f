//! RDF: the vocabulary, the IRI scheme, the ontologies, and the mapping of a history to
//! the quads of its session graph and back.

mod digest;
mod fingerprint;
mod iri;
mod mapping;
mod ontology;
mod retrieve;
mod shapes;
pub mod vocab;

pub use digest::{DIGEST_TURNS, RecentTurn, RecentTurns};
pub use fingerprint::{
    FINGERPRINT_ALGORITHM, Fingerprint, FingerprintError, Manifest, PredicateChange,
    PredicateLines, canonical_nquads, fingerprint, predicate_of,
};
pub use iri::{
    DEFAULT_BASE, DEFAULT_SESSION_TEMPLATE, IriScheme, IriSchemeError, SESSION_PLACEHOLDER,
    encode_segment,
};
pub use mapping::{MappingWarning, SessionGraph, map_history};
pub(crate) use ontology::first_ontology_statement;
pub use ontology::{
    CONVERSATION_HISTORY_TTL, IHIGRAPH_TTL, ONTOLOGIES, ontology_digest, ontology_graphs,
};
pub use retrieve::{RetrieveError, rebuild_history};
pub use shapes::{
    SHAPES, ShapePath, ShapeReport, ShapeResult, Shapes, ShapesError, format_of_path,
    merged_report, quad_triples, read_graphs,
};
pub use vocab::{PREFIXES, prefixes_with_base};
