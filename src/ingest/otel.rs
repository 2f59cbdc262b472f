//! OpenTelemetry received live: a batch of spans and log records (an OTLP/HTTP export
//! request, as OTLP JSON) added to the sessions it belongs to.
//!
//! The stored sessions are the truth: each keeps, verbatim, every span and record it
//! was made from (in its turns' responses, under `otlp`). A batch is read with the
//! sessions it adds to (the conversations its spans name, the sessions that hold its
//! traces already, and the sessions of its traces' ids), and those sessions are made
//! again from all their spans by the `otel` importer, then written together in one
//! atomic step. So spans may come in any order and in any batches: a turn whose
//! spans were incomplete is completed when the rest arrives; a trace first stored under
//! its own id moves into its conversation when a span naming that conversation comes; a
//! batch sent again changes nothing (a span is kept once per id, and a session made
//! again with the same quads is left untouched).
//!
//! A span may not add to a session that was not made from telemetry (a history ingested
//! from a file, say): the spans of its traces are rejected, counted, and the rest of the
//! batch is written.
//!
//! A receiver that takes batch after batch keeps what it wrote ([`LiveSessions`]), so
//! that a session is read back from the store only when it was let go or something else
//! wrote; and it writes only the difference each session's graph makes.

use super::live::{LiveSession, LiveSessions};
use crate::import::otel::{Named, named, trace_session_id, without_traces};
use crate::import::{ImportError, ImportOptions, Record, convert_records, importer};
use crate::model::{InteractionHistory, Turn};
use crate::rdf::map_history;
use crate::store::{HistoryStore, QuadSet, StoreError};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};

/// What receiving a batch did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    /// Sessions written (new or grown), in the order converted.
    pub written: Vec<String>,
    /// Sessions the batch changed nothing in.
    pub unchanged: Vec<String>,
    /// Sessions of a trace's own id whose spans moved into their conversation.
    pub absorbed: Vec<String>,
    /// Spans and log records rejected, and why.
    pub rejected: Option<Rejected>,
}

/// Spans and log records of a batch that were not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Spans rejected.
    pub spans: u64,
    /// Log records rejected.
    pub logs: u64,
    /// Why, for the sender.
    pub message: String,
}

/// Why a batch was refused whole.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiveError {
    /// The batch is not OTLP JSON the importer reads: where and what was expected.
    #[error("the batch was refused: {0}")]
    Refused(ImportError),
    /// The store failed; what was written before is whole.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Adds the spans and log records of `batch` (a `TracesData` or `LogsData` in OTLP
/// JSON) to the sessions they belong to.
///
/// # Errors
///
/// [`ReceiveError::Refused`] when the batch is not OTLP JSON (nothing is written);
/// [`ReceiveError::Store`] when the store fails (each session is whole or as before).
pub fn receive(
    store: &HistoryStore,
    batch: &Value,
    options: &ImportOptions,
) -> Result<Received, ReceiveError> {
    receive_live(store, batch, options, &mut LiveSessions::new(0))
}

/// [`receive`], keeping in `live` what it writes and taking from it what it kept of the
/// sessions the batch adds to. Writes to the store must go one at a time (as `serve`
/// keeps them), so that no other write slips in between this one's.
///
/// # Errors
///
/// As [`receive`].
pub fn receive_live(
    store: &HistoryStore,
    batch: &Value,
    options: &ImportOptions,
    live: &mut LiveSessions,
) -> Result<Received, ReceiveError> {
    live.settle(store.writes());
    // The batch is copied once, into the first of the records the importer converts
    // (without a line: a sender is told where in its body, not in a file).
    let mut batch = Record {
        value: batch.clone(),
        line: None,
    };
    let names = named(&batch).map_err(ReceiveError::Refused)?;
    let (mut stored, forbidden) = stored_sessions(store, &names, live)?;
    let mut received = Received::default();
    if !forbidden.is_empty() {
        let (kept, rejected) = without_traces(&batch.value, &forbidden.traces);
        received.rejected = Some(Rejected {
            spans: rejected.0,
            logs: rejected.1,
            message: rejected_message(&forbidden),
        });
        batch.value = kept;
    }
    // The batch and the spans kept, given to the importer as the values they are.
    let digest = batch_digest(&batch.value);
    let records = std::iter::once(batch)
        .chain(
            stored
                .iter()
                .flat_map(|known| kept_spans(&known.turns))
                .map(|kept| Record {
                    value: kept.clone(),
                    line: None,
                }),
        )
        .collect();
    let converted = convert(digest, records, options)?;
    let made: BTreeSet<String> = converted.iter().map(|c| c.session_id.clone()).collect();
    let (mut changed, mut held) = (Vec::new(), Vec::new());
    for session in converted {
        // The document's metadata names the bytes converted, which differ with every
        // batch: a session is unchanged when its turns are.
        match stored
            .iter_mut()
            .find(|known| known.id == session.session_id)
        {
            Some(known) if known.turns == session.history.turns => {
                if let Some(quads) = known.held.take() {
                    let turns = std::mem::take(&mut known.turns);
                    live.put(known.id.clone(), LiveSession::new(turns, quads));
                }
                received.unchanged.push(session.session_id);
            }
            known => {
                held.push(known.and_then(|known| known.held.take()));
                received.written.push(session.session_id);
                changed.push(session.history);
            }
        }
    }
    // Mapped side by side, and every session the batch changed written in one commit.
    let graphs = store.side_by_side(&changed, |store, history| {
        map_history(history, store.scheme())
    });
    let now = store.replace_sessions_held(&graphs, held)?;
    for ((graph, history), now) in graphs.into_iter().zip(changed).zip(now) {
        live.put(graph.session_id, LiveSession::new(history.turns, now));
    }
    for known in &stored {
        if !made.contains(&known.id) {
            store.delete_session(&known.id)?;
            live.absent(&known.id);
            received.absorbed.push(known.id.clone());
        }
    }
    live.wrote(store.writes());
    Ok(received)
}

/// Why spans were rejected, for the sender.
fn rejected_message(forbidden: &Forbidden) -> String {
    format!(
        "session{} {} not made from telemetry: spans may not add to {}",
        if forbidden.sessions.len() == 1 {
            ""
        } else {
            "s"
        },
        forbidden
            .sessions
            .iter()
            .map(|id| format!("{id:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        if forbidden.sessions.len() == 1 {
            "it"
        } else {
            "them"
        },
    )
}

/// The batch and the kept spans, converted together by the `otel` importer.
fn convert(
    digest: String,
    records: Vec<Record>,
    options: &ImportOptions,
) -> Result<Vec<crate::import::Converted>, ReceiveError> {
    let Some(otel) = importer("otel") else {
        return Ok(Vec::new());
    };
    convert_records(otel, "OTLP/HTTP", digest, records, options).map_err(ReceiveError::Refused)
}

/// What the sessions a batch adds to name as their source: the SHA-256 of the batch as
/// compact OTLP JSON.
fn batch_digest(batch: &Value) -> String {
    let mut hasher = HashingWriter(Sha256::new());
    // Serialising a JSON value cannot fail, nor can hashing.
    let _ = serde_json::to_writer(&mut hasher, batch);
    hex::encode(hasher.0.finalize())
}

/// A writer that hashes what is written to it, so that nothing is held.
struct HashingWriter(Sha256);

impl std::io::Write for HashingWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The sessions a batch may not add to, and their traces.
#[derive(Debug, Default)]
struct Forbidden {
    sessions: BTreeSet<String>,
    traces: BTreeSet<String>,
}

impl Forbidden {
    fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

/// What a session's turns keep of its spans and records: one OTLP JSON object per turn,
/// under its response's `otlp`.
fn kept_spans(turns: &[Turn]) -> impl Iterator<Item = &Value> {
    turns.iter().filter_map(|turn| turn.response.get("otlp"))
}

/// A stored session the batch adds to: its turns (which keep its spans) and what its
/// graphs hold when the receiver kept it.
struct Stored {
    id: String,
    turns: Vec<Turn>,
    held: Option<QuadSet>,
}

/// The stored sessions the batch adds to, and those it may not: taken from `live` where
/// it kept them, else read from the store.
fn stored_sessions(
    store: &HistoryStore,
    names: &Named,
    live: &mut LiveSessions,
) -> Result<(Vec<Stored>, Forbidden), StoreError> {
    let mut candidates: BTreeSet<(String, Option<String>)> = BTreeSet::new();
    for conversation in &names.conversations {
        candidates.insert((conversation.clone(), None));
    }
    let traces: Vec<&String> = names.traces.iter().collect();
    let of_traces = store.side_by_side(&traces, |store, trace| store.sessions_of_trace(trace));
    for (trace, sessions) in traces.into_iter().zip(of_traces) {
        candidates.insert((trace_session_id(trace), Some(trace.clone())));
        for session in sessions? {
            candidates.insert((session, Some(trace.clone())));
        }
    }
    let mut read = read_back(store, &candidates, live)?;
    let mut stored: Vec<Stored> = Vec::new();
    let mut forbidden = Forbidden::default();
    for (id, trace) in candidates {
        if stored.iter().any(|known| known.id == id) || live.is_absent(&id) {
            continue;
        }
        if let Some(kept) = live.take(&id) {
            stored.push(Stored {
                id,
                turns: kept.turns,
                held: Some(kept.held),
            });
            continue;
        }
        let Some(history) = read.remove(&id) else {
            live.absent(&id);
            continue;
        };
        if kept_spans(&history.turns).next().is_none() {
            forbidden.traces.extend(trace);
            forbidden.traces.extend(
                names
                    .trace_conversations
                    .iter()
                    .filter(|(_, conversations)| conversations.contains(&id))
                    .map(|(trace, _)| trace.clone()),
            );
            forbidden.sessions.insert(id);
        } else {
            stored.push(Stored {
                id,
                turns: history.turns,
                held: None,
            });
        }
    }
    Ok((stored, forbidden))
}

/// The stored sessions among the candidates that `live` does not keep, read side by side
/// (a read is mostly waiting on RocksDB's blocks): those found, by id.
fn read_back(
    store: &HistoryStore,
    candidates: &BTreeSet<(String, Option<String>)>,
    live: &LiveSessions,
) -> Result<HashMap<String, InteractionHistory>, StoreError> {
    let ids: Vec<&String> = candidates
        .iter()
        .map(|(id, _)| id)
        .filter(|id| !live.is_absent(id) && !live.holds(id))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let histories = store.side_by_side(&ids, |store, id| store.history(id));
    let mut read = HashMap::new();
    for (id, history) in ids.into_iter().zip(histories) {
        match history {
            Ok(history) => {
                read.insert(id.clone(), history);
            }
            Err(StoreError::UnknownSession { .. }) => {}
            Err(other) => return Err(other),
        }
    }
    Ok(read)
}
