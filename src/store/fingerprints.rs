//! The sessions' fingerprints, kept in the store's fingerprints graph: one record per
//! session graph (its subject), written with the session. On a backend whose quads read
//! back are the quads written ([`Capabilities::verbatim`](super::Capabilities): the
//! embedded store, the Oxigraph server, Virtuoso) it is taken over the quads written, in
//! the same step as new sessions; on another server, right after, over what it gives
//! back (so that what a server normalises is what is hashed).
//! The records are the store's bookkeeping, outside every session graph, so that no
//! fingerprint covers another.

use super::backend::GraphLoader;
use super::indexing::Derived;
use super::{HistoryStore, StoreError, data_block, replace_data};
use crate::rdf::vocab::ihi;
use crate::rdf::{FINGERPRINT_ALGORITHM, Fingerprint, Manifest, SessionGraph, fingerprint};
use oxigraph::model::vocab::xsd;
use oxigraph::model::{GraphName, Literal, NamedNode, NamedNodeRef, NamedOrBlankNode, Quad, Term};
use oxsdatatypes::DateTime;
use std::collections::{BTreeMap, HashSet};

/// New fingerprint records, with the quads the records graph loses and gains for them.
pub(super) type RecordsDifference = (Vec<FingerprintRecord>, Vec<Quad>, Vec<Quad>);

/// A session's fingerprint as the store recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FingerprintRecord {
    /// The session's `SessionID`.
    pub session_id: String,
    /// The session's graph (the record's subject).
    pub graph: NamedNode,
    /// What was recorded.
    pub fingerprint: Fingerprint,
    /// How it was taken (`RDFC-1.0/SHA-256`).
    pub algorithm: String,
    /// When it was taken (`xsd:dateTime`).
    pub taken_at: String,
}

impl HistoryStore {
    /// The quads a graph holds now (none, for an absent graph), read in one call.
    pub fn session_quads(&self, graph: NamedNodeRef<'_>) -> Result<Vec<Quad>, StoreError> {
        self.backend.quads(Some(graph.into()))?.collect()
    }

    /// The fingerprint of the quads a graph holds now (of none, for an absent graph).
    pub fn fingerprint_of(&self, graph: NamedNodeRef<'_>) -> Result<Fingerprint, StoreError> {
        let quads = self.session_quads(graph)?;
        Ok(fingerprint(quads.iter().map(Quad::as_ref))?)
    }

    /// The fingerprint of a stored session's graph, as it is now.
    pub fn session_fingerprint(
        &self,
        session_id: &str,
    ) -> Result<(NamedNode, Fingerprint), StoreError> {
        let graph = self.scheme.session_graph(session_id);
        let print = self.fingerprint_of(graph.as_ref())?;
        if print.quads == 0 {
            return Err(StoreError::UnknownSession {
                session_id: session_id.to_owned(),
            });
        }
        Ok((graph, print))
    }

    /// Takes the fingerprints of the given sessions (`SessionID`, graph) over what their
    /// graphs hold now and records them, replacing their earlier records, in one update.
    pub fn record_fingerprints(
        &self,
        sessions: &[(String, NamedNode)],
    ) -> Result<Vec<FingerprintRecord>, StoreError> {
        // Read side by side: on a server, most of the time is its answer's.
        let taken = self
            .side_by_side(sessions, |store, (id, graph)| {
                Ok((
                    id.clone(),
                    graph.clone(),
                    store.fingerprint_of(graph.as_ref())?,
                ))
            })
            .into_iter()
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.record_taken(taken)
    }

    /// Records fingerprints taken already (`SessionID`, graph, fingerprint), replacing
    /// the sessions' earlier records, in one update.
    pub fn record_taken(
        &self,
        taken: Vec<(String, NamedNode, Fingerprint)>,
    ) -> Result<Vec<FingerprintRecord>, StoreError> {
        let taken_at = DateTime::now().to_string();
        let records: Vec<FingerprintRecord> = taken
            .into_iter()
            .map(|(id, graph, print)| record(&id, &graph, print, &taken_at))
            .collect();
        self.replace_records(&records)?;
        Ok(records)
    }

    /// Records the fingerprints of sessions just written: on a backend that gives back
    /// what it was given, those of the quads written (taken now where the session has
    /// none); on another, those of what it gives back.
    pub(super) fn record_written(
        &self,
        sessions: &[&SessionGraph],
    ) -> Result<Vec<FingerprintRecord>, StoreError> {
        let verbatim = self.backend.capabilities().verbatim;
        let taken = sessions
            .iter()
            .map(|session| {
                let print = if verbatim {
                    written(session)?
                } else {
                    self.fingerprint_of(session.graph.as_ref())?
                };
                Ok((session.session_id.clone(), session.graph.clone(), print))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.record_taken(taken)
    }

    /// Whether a session stored unchanged has the record of what it holds: on a backend
    /// that gives back what it is given, the fingerprint of its quads; on another, any
    /// record is taken again, since only reading the graph back would tell.
    pub(super) fn recorded_as_written(&self, session: &SessionGraph) -> Result<bool, StoreError> {
        if !self.backend.capabilities().verbatim {
            return Ok(false);
        }
        let recorded = self.record_quads(&[&session.graph])?;
        let digest = recorded.iter().find_map(|quad| match &quad.object {
            Term::Literal(digest) if quad.predicate == ihi::FINGERPRINT => Some(digest.value()),
            _ => None,
        });
        Ok(digest == Some(written(session)?.digest.as_str()))
    }

    /// Adds sessions not in the store yet through `loader`, with their derived graphs
    /// (after emptying any left of a graph dropped below ihigraph) and their fingerprint
    /// records beside them where the backend gives back what it is given (after any
    /// record left of a graph dropped behind ihigraph's back); on another backend, in
    /// a step of their own, each record taken from what the server gives back.
    pub(super) fn add_fresh(
        &self,
        loader: &mut dyn GraphLoader,
        sessions: Vec<SessionGraph>,
    ) -> Result<Derived, StoreError> {
        if sessions.is_empty() {
            return Ok(Derived::default());
        }
        self.clear_stale_derived(&sessions)?;
        if !self.backend.capabilities().verbatim {
            let written: Vec<(String, NamedNode)> = sessions
                .iter()
                .map(|session| (session.session_id.clone(), session.graph.clone()))
                .collect();
            let graphs = sessions
                .into_iter()
                .map(|session| {
                    let mut quads = self.derived_quads(&session);
                    quads.extend(session.quads);
                    quads
                })
                .collect();
            self.backend.add_graphs(graphs)?;
            // No index on such a backend: nothing to index.
            return self
                .record_fingerprints(&written)
                .map(|_| Derived::default());
        }
        let graphs: Vec<&NamedNode> = sessions.iter().map(|session| &session.graph).collect();
        let stale = self.record_quads(&graphs)?;
        if !stale.is_empty() {
            self.update(&data_block("DELETE DATA", &stale))?;
        }
        let taken_at = DateTime::now().to_string();
        let store = self.scheme.fingerprints_graph();
        let mut records = Vec::new();
        let mut derived = Derived::default();
        for session in &sessions {
            let record = record(
                &session.session_id,
                &session.graph,
                written(session)?,
                &taken_at,
            );
            records.extend(record_quads(&record, &store));
            derived.add(
                self.indexed_session(session, &record),
                self.reasoned_session(session, &record),
            );
            // Its digest goes in with it, in the same step.
            records.extend(self.derived_quads(session));
        }
        let mut graphs: Vec<Vec<Quad>> =
            sessions.into_iter().map(|session| session.quads).collect();
        graphs.push(records);
        loader.add_graphs(graphs)?;
        Ok(derived)
    }

    /// The records of sessions about to be written on a backend that gives back what it
    /// is given, with what the records graph is to lose and gain for them: for a writer
    /// that writes them in the same step as the sessions.
    pub(super) fn records_difference(
        &self,
        sessions: &[SessionGraph],
    ) -> Result<RecordsDifference, StoreError> {
        let graphs: Vec<&NamedNode> = sessions.iter().map(|session| &session.graph).collect();
        let old: HashSet<Quad> = self.record_quads(&graphs)?.into_iter().collect();
        let taken_at = DateTime::now().to_string();
        let store = self.scheme.fingerprints_graph();
        // The fingerprints (each a hash of its session's every quad) side by side.
        let records = self
            .side_by_side(sessions, |_, session| {
                let print = written(session)?;
                Ok(record(
                    &session.session_id,
                    &session.graph,
                    print,
                    &taken_at,
                ))
            })
            .into_iter()
            .collect::<Result<Vec<_>, StoreError>>()?;
        let new: HashSet<Quad> = records
            .iter()
            .flat_map(|record| record_quads(record, &store))
            .collect();
        let lost = old.difference(&new).cloned().collect();
        let gained = new.difference(&old).cloned().collect();
        Ok((records, lost, gained))
    }

    /// Replaces the records of the records' graphs by them, in one update.
    fn replace_records(&self, records: &[FingerprintRecord]) -> Result<(), StoreError> {
        let graphs: Vec<&NamedNode> = records.iter().map(|record| &record.graph).collect();
        let old = self.record_quads(&graphs)?;
        let new: Vec<Quad> = records
            .iter()
            .flat_map(|record| record_quads(record, &self.scheme.fingerprints_graph()))
            .collect();
        self.update(&replace_data(&old, &new))
    }

    /// Removes the fingerprint records of the given session graphs.
    pub fn forget_fingerprints(&self, graphs: &[&NamedNode]) -> Result<(), StoreError> {
        let old = self.record_quads(graphs)?;
        if old.is_empty() {
            return Ok(());
        }
        self.update(&data_block("DELETE DATA", &old))
    }

    /// The quads of the records of the given session graphs, in chunks so that no request
    /// grows too large.
    pub(super) fn record_quads(&self, graphs: &[&NamedNode]) -> Result<Vec<Quad>, StoreError> {
        let store = self.scheme.fingerprints_graph();
        let mut quads = Vec::new();
        for chunk in graphs.chunks(500) {
            let values: String = chunk.iter().map(|graph| format!("{graph} ")).collect();
            quads.extend(self.select_quads(&format!(
                "SELECT ?s ?p ?o ?g WHERE {{ GRAPH {store} {{ ?s ?p ?o }} VALUES ?s {{ {values}}} BIND({store} AS ?g) }}"
            ))?);
        }
        Ok(quads)
    }

    /// The fingerprint record of one session, if it has one that reads (one lookup:
    /// writers that keep what they wrote check with it that nothing else wrote since).
    pub fn fingerprint_record(
        &self,
        session_id: &str,
    ) -> Result<Option<FingerprintRecord>, StoreError> {
        let graph = self.scheme.session_graph(session_id);
        let mut fields = BTreeMap::new();
        for quad in self.record_quads(&[&graph])? {
            fields.insert(quad.predicate, quad.object);
        }
        Ok(read_record(graph, &fields))
    }

    /// The fingerprint records of the given session graphs, by session graph: looked up
    /// one by one for a few graphs, read whole for many. An update that touches one
    /// session (a deletion, as `prune` makes a thousand of) then costs what the session
    /// does, not what the store holds.
    pub(super) fn fingerprint_records_of(
        &self,
        graphs: &[NamedNode],
    ) -> Result<BTreeMap<NamedNode, FingerprintRecord>, StoreError> {
        /// Beyond this many graphs, one read of every record is cheaper than lookups.
        const LOOKUPS: usize = 64;
        if graphs.is_empty() {
            return Ok(BTreeMap::new());
        }
        if graphs.len() > LOOKUPS {
            return self.fingerprint_records();
        }
        let graphs: Vec<&NamedNode> = graphs.iter().collect();
        read_records(self.record_quads(&graphs)?.into_iter().map(Ok))
    }

    /// Every fingerprint record in the store, by session graph. A record that does not
    /// read (written by hand) is left out, as if absent: `verify` then reports its
    /// session as unrecorded.
    pub fn fingerprint_records(
        &self,
    ) -> Result<BTreeMap<NamedNode, FingerprintRecord>, StoreError> {
        let graph = self.scheme.fingerprints_graph();
        read_records(self.backend.quads(Some(graph.as_ref().into()))?)
    }
}

/// The records the quads of the fingerprints graph hold, by session graph: each
/// subject's fields read as one record; one that does not read is left out.
fn read_records(
    quads: impl IntoIterator<Item = Result<Quad, StoreError>>,
) -> Result<BTreeMap<NamedNode, FingerprintRecord>, StoreError> {
    let mut fields: BTreeMap<NamedNode, BTreeMap<NamedNode, Term>> = BTreeMap::new();
    for quad in quads {
        let quad = quad?;
        if let NamedOrBlankNode::NamedNode(subject) = quad.subject {
            fields
                .entry(subject)
                .or_default()
                .insert(quad.predicate, quad.object);
        }
    }
    Ok(fields
        .into_iter()
        .filter_map(|(graph, fields)| read_record(graph, &fields))
        .map(|record| (record.graph.clone(), record))
        .collect())
}

/// The fingerprint of what a session wrote: the one it took, or one taken now.
fn written(session: &SessionGraph) -> Result<Fingerprint, StoreError> {
    match &session.fingerprint {
        Some(print) => Ok(print.clone()),
        None => Ok(fingerprint(session.quads.iter().map(Quad::as_ref))?),
    }
}

fn record(
    id: &str,
    graph: &NamedNode,
    fingerprint: Fingerprint,
    taken_at: &str,
) -> FingerprintRecord {
    FingerprintRecord {
        session_id: id.to_owned(),
        graph: graph.clone(),
        fingerprint,
        algorithm: FINGERPRINT_ALGORITHM.to_owned(),
        taken_at: taken_at.to_owned(),
    }
}

fn record_quads(record: &FingerprintRecord, store: &NamedNode) -> Vec<Quad> {
    let print = &record.fingerprint;
    [
        (
            ihi::FINGERPRINTED_SESSION,
            Literal::new_simple_literal(&record.session_id),
        ),
        (ihi::FINGERPRINT, Literal::new_simple_literal(&print.digest)),
        (
            ihi::FINGERPRINT_ALGORITHM,
            Literal::new_simple_literal(&record.algorithm),
        ),
        (
            ihi::FINGERPRINTED_AT,
            Literal::new_typed_literal(&record.taken_at, xsd::DATE_TIME),
        ),
        (ihi::FINGERPRINT_QUADS, Literal::from(print.quads as i64)),
        (
            ihi::FINGERPRINT_MANIFEST,
            Literal::new_simple_literal(print.manifest.to_string()),
        ),
    ]
    .into_iter()
    .map(|(predicate, object)| {
        Quad::new(
            record.graph.clone(),
            predicate,
            object,
            GraphName::NamedNode(store.clone()),
        )
    })
    .collect()
}

fn read_record(graph: NamedNode, fields: &BTreeMap<NamedNode, Term>) -> Option<FingerprintRecord> {
    let text = |property: NamedNodeRef<'_>| match fields.get(&property.into_owned()) {
        Some(Term::Literal(value)) => Some(value.value().to_owned()),
        _ => None,
    };
    let manifest: Manifest = text(ihi::FINGERPRINT_MANIFEST)?.parse().ok()?;
    Some(FingerprintRecord {
        session_id: text(ihi::FINGERPRINTED_SESSION)?,
        graph,
        fingerprint: Fingerprint {
            digest: text(ihi::FINGERPRINT)?,
            quads: text(ihi::FINGERPRINT_QUADS)?.parse().ok()?,
            manifest,
        },
        algorithm: text(ihi::FINGERPRINT_ALGORITHM)?,
        taken_at: text(ihi::FINGERPRINTED_AT)?,
    })
}
