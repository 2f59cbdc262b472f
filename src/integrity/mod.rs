//! Integrity: whether the sessions in a store are still what ihigraph wrote. Each
//! session's fingerprint (the SHA-256 of the RDFC-1.0 canonical N-Quads of its graph,
//! recorded when it was written) is taken again over what the store holds now and
//! compared with the record ([`verify`]), or the store is compared with an export of it
//! ([`verify_against`]: N-Quads, TriG, or PGM-IHI documents), triple by triple; and
//! whether its graphs fit SHACL shapes, one graph at a time ([`check_shapes`]).

mod against;
mod error;
mod note;
mod shapes;

pub use against::verify_against;
pub use error::IntegrityError;
pub use note::{FINGERPRINT_NOTE, note_fingerprint, take_fingerprint_note};
pub use shapes::{GraphConformance, check_shapes};

use crate::rdf::{Fingerprint, PredicateChange};
use crate::store::{FingerprintRecord, HistoryStore, StoreError};
use oxrdf::NamedNode;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What became of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCheck {
    /// The session's `SessionID`.
    pub session_id: String,
    /// Its graph (for a moved session, the graph the record names).
    pub graph: NamedNode,
    /// What was found.
    pub status: Status,
}

/// What verifying one session found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The graph holds what was recorded.
    Intact,
    /// The graph's triples changed since the fingerprint was taken.
    Changed {
        /// The record.
        recorded: Box<FingerprintRecord>,
        /// The fingerprint now.
        now: Fingerprint,
        /// What changed, predicate by predicate.
        changes: Vec<PredicateChange>,
    },
    /// The session has no fingerprint record (written by an older ihigraph, by hand, or
    /// interrupted between the session and its record).
    Unrecorded {
        /// The fingerprint now.
        now: Fingerprint,
    },
    /// The session's graph is gone, and another graph holds a session of that id: the
    /// graph was renamed.
    Moved {
        /// The graph now holding the session.
        to: NamedNode,
        /// Whether its triples are still the recorded ones (but for the graph name).
        same_triples: bool,
    },
    /// The session's graph is gone (or holds no session any more), but its record stays.
    Missing {
        /// The record.
        recorded: Box<FingerprintRecord>,
    },
    /// The session is in the store and not in the export compared with, or the other
    /// way round (only from [`verify_against`]).
    OnlyIn {
        /// `true`: only in the store; `false`: only in the export.
        store: bool,
    },
    /// The session differs from the export compared with (only from
    /// [`verify_against`]).
    Differs {
        /// Triples in the store and not in the export, by predicate IRI.
        added: BTreeMap<String, Vec<String>>,
        /// Triples in the export and not in the store, by predicate IRI.
        removed: BTreeMap<String, Vec<String>>,
    },
}

/// What a verification found, session by session, in `SessionID` order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Every session looked at.
    pub checks: Vec<SessionCheck>,
}

impl VerifyReport {
    /// Whether every session holds.
    pub fn holds(&self) -> bool {
        self.checks
            .iter()
            .all(|check| check.status == Status::Intact)
    }

    /// The sessions that do not hold.
    pub fn failures(&self) -> impl Iterator<Item = &SessionCheck> {
        self.checks
            .iter()
            .filter(|check| check.status != Status::Intact)
    }
}

/// Takes every stored session's fingerprint again (or only those of `only`, by
/// `SessionID`) and compares it with the recorded one. `progress` hears how many
/// sessions are done, of how many. The work is shared by as many threads as the
/// machine has cores.
pub fn verify(
    store: &HistoryStore,
    only: &[String],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<VerifyReport, IntegrityError> {
    let wanted: BTreeSet<&str> = only.iter().map(String::as_str).collect();
    let keep = |id: &str| wanted.is_empty() || wanted.contains(id);
    let stored: Vec<(String, NamedNode)> = store
        .sessions()?
        .into_iter()
        .filter(|(id, _)| keep(id))
        .collect();
    let mut records = store.fingerprint_records()?;
    records.retain(|_, record| keep(&record.session_id));
    for id in &wanted {
        let graph = store.scheme().session_graph(id);
        let known = stored.iter().any(|(stored, _)| stored == id) || records.contains_key(&graph);
        if !known {
            return Err(StoreError::UnknownSession {
                session_id: (*id).to_owned(),
            }
            .into());
        }
    }
    let prints = fingerprint_sessions(store, &stored, progress)?;
    let mut checks = Vec::new();
    let mut moved: BTreeMap<&str, &NamedNode> = BTreeMap::new();
    for ((id, graph), now) in stored.iter().zip(prints) {
        let status = match records.remove(graph) {
            Some(recorded) if recorded.fingerprint.digest == now.digest => Status::Intact,
            Some(recorded) => Status::Changed {
                changes: recorded.fingerprint.manifest.changes(&now.manifest),
                recorded: Box::new(recorded),
                now,
            },
            None if *graph != store.scheme().session_graph(id) => {
                moved.insert(id, graph);
                continue;
            }
            None => Status::Unrecorded { now },
        };
        checks.push(SessionCheck {
            session_id: id.clone(),
            graph: graph.clone(),
            status,
        });
    }
    for (graph, recorded) in records {
        let status = match moved.remove(recorded.session_id.as_str()) {
            Some(to) => Status::Moved {
                to: to.clone(),
                same_triples: same_but_graph(store, &recorded, to)?,
            },
            None => Status::Missing {
                recorded: Box::new(recorded.clone()),
            },
        };
        checks.push(SessionCheck {
            session_id: recorded.session_id,
            graph,
            status,
        });
    }
    for (id, graph) in moved {
        // A session outside the graph its id gives, with no record anywhere.
        let now = store.fingerprint_of(graph.as_ref())?;
        checks.push(SessionCheck {
            session_id: id.to_owned(),
            graph: graph.clone(),
            status: Status::Unrecorded { now },
        });
    }
    checks.sort_by(|a, b| (&a.session_id, &a.graph).cmp(&(&b.session_id, &b.graph)));
    Ok(VerifyReport { checks })
}

/// The fingerprints of the given sessions' graphs as they are now, in their order, taken
/// by one thread per core; `progress` hears how many are done, of how many.
pub fn fingerprint_sessions(
    store: &HistoryStore,
    sessions: &[(String, NamedNode)],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Fingerprint>, StoreError> {
    let done = AtomicUsize::new(0);
    store
        .side_by_side(sessions, |store, (_, graph)| {
            let print = store.fingerprint_of(graph.as_ref());
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, sessions.len());
            print
        })
        .into_iter()
        .collect()
}

/// Whether the graph `to` holds the recorded triples, under another graph name.
fn same_but_graph(
    store: &HistoryStore,
    recorded: &FingerprintRecord,
    to: &NamedNode,
) -> Result<bool, StoreError> {
    let quads: Vec<oxrdf::Quad> = store
        .session_quads(to.as_ref())?
        .into_iter()
        .map(|mut quad| {
            quad.graph_name = recorded.graph.clone().into();
            quad
        })
        .collect();
    let print = crate::rdf::fingerprint(quads.iter().map(oxrdf::Quad::as_ref))?;
    Ok(print.digest == recorded.fingerprint.digest)
}
