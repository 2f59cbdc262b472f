//! The store's own settings, kept in its default graph where no query over the session
//! graphs sees them: the IRI scheme, fixed when the store is created, and the digest of
//! the ontologies it holds, each in a named graph named by its IRI, so that queries can
//! read the class hierarchy. A store opened by another version of ihigraph gets that
//! version's ontologies.

use super::backend::Backend;
use super::{SchemeSetting, StoreError};
use crate::rdf::vocab::ihi;
use crate::rdf::{
    DEFAULT_BASE, DEFAULT_SESSION_TEMPLATE, IriScheme, ONTOLOGIES, ontology_digest, ontology_graphs,
};
use oxigraph::model::{GraphName, GraphNameRef, Literal, Quad, Term};

/// The IRI scheme asked for when opening a store: what is not given is the store's
/// recorded setting, or the default for a new store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemeRequest {
    /// The IRI base.
    pub base: Option<String>,
    /// The work-session IRI template.
    pub session_template: Option<String>,
}

/// The settings a store holds: what [`settle`] read.
#[derive(Debug, Default)]
struct Recorded {
    base: Option<String>,
    session_template: Option<String>,
    ontology_digest: Option<String>,
    /// Whatever else the default graph holds (written by a SPARQL update): kept.
    others: Vec<Quad>,
}

/// Reads the store's settings, records them if the store is new, refreshes the
/// ontologies if they are not this version's, and gives the scheme to use. A store last
/// opened by another version gets `migrate` first, before the ontologies and their digest
/// that say this version opened it: a crash during `migrate` leaves it to the next open.
pub(super) fn settle(
    backend: &dyn Backend,
    request: &SchemeRequest,
    migrate: impl FnOnce(&IriScheme) -> Result<(), StoreError>,
) -> Result<IriScheme, StoreError> {
    let recorded = read(backend)?;
    let fresh = recorded.base.is_none() || recorded.session_template.is_none();
    let base = pick(
        SchemeSetting::Base,
        recorded.base,
        &request.base,
        DEFAULT_BASE,
    )?;
    let template = pick(
        SchemeSetting::SessionTemplate,
        recorded.session_template,
        &request.session_template,
        DEFAULT_SESSION_TEMPLATE,
    )?;
    let scheme = IriScheme::new(&base, &template)?;
    let digest = ontology_digest();
    if fresh || recorded.ontology_digest.as_deref() != Some(digest.as_str()) {
        if !fresh {
            migrate(&scheme)?;
        }
        let settings = [
            (ihi::IRI_BASE, base.as_str()),
            (ihi::SESSION_IRI_TEMPLATE, template.as_str()),
            (ihi::ONTOLOGY_DIGEST, digest.as_str()),
        ]
        .into_iter()
        .map(|(property, value)| {
            Quad::new(
                ihi::STORE_SETTINGS,
                property,
                Literal::new_simple_literal(value),
                GraphName::DefaultGraph,
            )
        });
        let mut graphs = vec![GraphName::DefaultGraph];
        let mut quads: Vec<Quad> = recorded.others;
        quads.extend(settings);
        for (graph, ontology) in ontology_graphs() {
            graphs.push(graph.into());
            quads.extend(ontology);
        }
        backend.replace_graphs(&graphs, quads)?;
    }
    Ok(scheme)
}

fn read(backend: &dyn Backend) -> Result<Recorded, StoreError> {
    let mut recorded = Recorded::default();
    for quad in backend.quads(Some(GraphNameRef::DefaultGraph))? {
        let quad = quad?;
        let slot = match quad.predicate.as_ref() {
            _ if quad.subject != ihi::STORE_SETTINGS.into() => None,
            p if p == ihi::IRI_BASE => Some(&mut recorded.base),
            p if p == ihi::SESSION_IRI_TEMPLATE => Some(&mut recorded.session_template),
            p if p == ihi::ONTOLOGY_DIGEST => Some(&mut recorded.ontology_digest),
            _ => None,
        };
        match (slot, &quad.object) {
            (Some(slot), Term::Literal(value)) => {
                slot.get_or_insert_with(|| value.value().to_owned());
            }
            _ => recorded.others.push(quad),
        }
    }
    Ok(recorded)
}

fn pick(
    setting: SchemeSetting,
    stored: Option<String>,
    requested: &Option<String>,
    default: &str,
) -> Result<String, StoreError> {
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
}

/// Whether a graph holds the store's own data (its settings or an ontology) rather than
/// a session.
pub(super) fn is_bookkeeping(graph: &GraphName) -> bool {
    match graph {
        GraphName::DefaultGraph => true,
        GraphName::NamedNode(node) => ONTOLOGIES.iter().any(|(iri, _)| node.as_str() == *iri),
        GraphName::BlankNode(_) => false,
    }
}
