//! What a live receiver keeps of the sessions it wrote ([`LiveSessions`]), so that the
//! next batch that adds to them need not read them back from the store: each session's
//! turns (whose responses keep its spans) and the quads its graphs hold, and the sessions
//! looked for and not found. Reading 200 sessions back and reading their graphs again to write their
//! difference was most of a batch's time (`docs/performance.md`, "OpenTelemetry in").
//!
//! What is kept is true only while nothing else writes: it is kept against the store's
//! write count ([`HistoryStore::writes`](crate::HistoryStore::writes)) and forgotten
//! whole when the count moved past the receiver's own last write (a session replaced
//! through REST, an update, a deletion), or when the store cannot tell (a server, which
//! others write to: nothing is kept). It is bounded by an estimate of its bytes, the
//! sessions used longest ago let go first: a session let go is read back from the
//! store when a span adds to it, as if nothing were kept.

use crate::model::Turn;
use crate::store::QuadSet;
use oxigraph::model::{NamedOrBlankNode, Quad, Term};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What `serve` keeps by default: 128 MiB by the estimate, about 300 sessions of ten
/// model calls whose spans repeat the conversation (`examples/otlp_load.rs`: 200 such
/// sessions grown a call at a time come to 80 MiB).
pub const DEFAULT_LIVE_BYTES: usize = 128 * 1024 * 1024;

/// How many sessions looked for and not found are kept at most, before they are all
/// let go (each is an id, a few dozen bytes).
const MOST_ABSENT: usize = 65_536;

/// The sessions a live receiver wrote, as it wrote them (see the module's text).
#[derive(Debug)]
pub struct LiveSessions {
    limit: usize,
    bytes: usize,
    clock: u64,
    /// The store's write count after this receiver's last write; `None`: nothing kept.
    writes: Option<u64>,
    sessions: HashMap<String, LiveSession>,
    /// Last use of each kept session, for letting go of the oldest.
    used: BTreeMap<u64, String>,
    absent: HashSet<String>,
}

/// One session as it was written.
#[derive(Debug)]
pub(super) struct LiveSession {
    /// Its turns, whose responses keep the spans and records each was made from (under
    /// `otlp`).
    pub turns: Vec<Turn>,
    /// What its graph and derived graph hold.
    pub held: QuadSet,
    bytes: usize,
    used: u64,
}

impl LiveSession {
    /// A session as written: its turns (whose responses keep the spans) and the quads
    /// its graphs hold.
    pub fn new(turns: Vec<Turn>, held: QuadSet) -> Self {
        // The spans are kept twice over (in the turns, in the quads' literals): the
        // quads' text, twice, is near enough.
        let bytes = 2 * held.iter().map(quad_bytes).sum::<usize>();
        Self {
            turns,
            held,
            bytes,
            used: 0,
        }
    }
}

impl LiveSessions {
    /// Keeps at most about `limit` bytes; nothing with 0.
    #[must_use]
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            bytes: 0,
            clock: 0,
            writes: None,
            sessions: HashMap::new(),
            used: BTreeMap::new(),
            absent: HashSet::new(),
        }
    }

    /// The estimate of the bytes kept.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// How many sessions are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Before a batch: forgets everything unless the store's write count `writes` is
    /// the one this receiver's last write left.
    pub(super) fn settle(&mut self, writes: Option<u64>) {
        if writes.is_none() || writes != self.writes {
            self.sessions.clear();
            self.used.clear();
            self.absent.clear();
            self.bytes = 0;
            self.writes = None;
        }
    }

    /// After a batch's writes: the store's write count they left.
    pub(super) fn wrote(&mut self, writes: Option<u64>) {
        self.writes = if self.limit == 0 { None } else { writes };
    }

    /// Takes a kept session out (it is put back once written again).
    pub(super) fn take(&mut self, id: &str) -> Option<LiveSession> {
        let session = self.sessions.remove(id)?;
        self.used.remove(&session.used);
        self.bytes -= session.bytes;
        Some(session)
    }

    /// Whether the session is kept.
    pub(super) fn holds(&self, id: &str) -> bool {
        self.sessions.contains_key(id)
    }

    /// Whether the session was looked for and not found since the last write of
    /// another.
    pub(super) fn is_absent(&self, id: &str) -> bool {
        self.absent.contains(id)
    }

    /// The session `id` is not in the store.
    pub(super) fn absent(&mut self, id: &str) {
        if self.limit == 0 {
            return;
        }
        if self.absent.len() >= MOST_ABSENT {
            self.absent.clear();
        }
        self.absent.insert(id.to_owned());
    }

    /// Keeps a session as written, letting go of those used longest ago while more than
    /// the limit is kept. One larger than the limit is not kept.
    pub(super) fn put(&mut self, id: String, mut session: LiveSession) {
        self.absent.remove(&id);
        if session.bytes > self.limit {
            return;
        }
        while self.bytes + session.bytes > self.limit {
            let Some((_, oldest)) = self.used.pop_first() else {
                break;
            };
            if let Some(gone) = self.sessions.remove(&oldest) {
                self.bytes -= gone.bytes;
            }
        }
        self.clock += 1;
        session.used = self.clock;
        self.used.insert(self.clock, id.clone());
        self.bytes += session.bytes;
        if let Some(old) = self.sessions.insert(id, session) {
            self.used.remove(&old.used);
            self.bytes -= old.bytes;
        }
    }
}

fn quad_bytes(quad: &Quad) -> usize {
    let subject = match &quad.subject {
        NamedOrBlankNode::NamedNode(node) => node.as_str().len(),
        NamedOrBlankNode::BlankNode(node) => node.as_str().len(),
    };
    let object = match &quad.object {
        Term::NamedNode(node) => node.as_str().len(),
        Term::BlankNode(node) => node.as_str().len(),
        Term::Literal(literal) => literal.value().len(),
        #[allow(unreachable_patterns)] // RDF 1.2 triple terms, behind a feature.
        _ => 64,
    };
    subject + quad.predicate.as_str().len() + object + 64
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{GraphName, Literal, NamedNode};

    fn session(text_bytes: usize) -> LiveSession {
        let node = NamedNode::new_unchecked("https://example.org/s");
        let quad = Quad::new(
            node.clone(),
            node.clone(),
            Literal::new_simple_literal("x".repeat(text_bytes)),
            GraphName::NamedNode(node),
        );
        LiveSession::new(Vec::new(), QuadSet::from_iter([quad]))
    }

    #[test]
    fn the_sessions_used_longest_ago_are_let_go_past_the_limit() {
        let one = session(1_000).bytes;
        let mut live = LiveSessions::new(3 * one);
        live.settle(Some(1));
        live.wrote(Some(1));
        for id in ["a", "b", "c"] {
            live.put(id.to_owned(), session(1_000));
        }
        assert_eq!(live.len(), 3);
        // "a" is used again: "b" is now the oldest.
        let a = live.take("a").unwrap();
        live.put("a".to_owned(), a);
        live.put("d".to_owned(), session(1_000));
        assert_eq!(live.len(), 3);
        assert!(live.bytes() <= 3 * one);
        assert!(live.take("b").is_none());
        assert!(live.take("a").is_some());
        // One session larger than the limit is not kept at all.
        live.put("e".to_owned(), session(10_000));
        assert!(live.take("e").is_none());
    }

    #[test]
    fn everything_is_forgotten_when_another_wrote() {
        let mut live = LiveSessions::new(DEFAULT_LIVE_BYTES);
        live.settle(Some(7));
        live.put("a".to_owned(), session(10));
        live.absent("b");
        live.wrote(Some(8));
        live.settle(Some(8));
        assert!(live.is_absent("b"));
        assert_eq!(live.len(), 1);
        // Someone else wrote: the count moved past 8.
        live.settle(Some(9));
        assert!(live.is_empty());
        assert!(!live.is_absent("b"));
        // A store that cannot tell keeps nothing.
        live.put("a".to_owned(), session(10));
        live.wrote(None);
        live.settle(None);
        assert!(live.is_empty());
    }

    #[test]
    fn nothing_is_kept_with_no_room() {
        let mut live = LiveSessions::new(0);
        live.settle(Some(1));
        live.put("a".to_owned(), session(1));
        live.absent("b");
        live.wrote(Some(2));
        live.settle(Some(2));
        assert!(live.is_empty());
        assert!(!live.is_absent("b"));
    }
}
