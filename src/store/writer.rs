//! Many sessions written as `ingest` writes them: new sessions through the backend's
//! loader, made visible together at a commit; stored ones replaced or kept one by one.

use super::backend::GraphLoader;
use super::indexing::IndexPipe;
use super::inference::{Inference, ReasoningPipe};
use super::{HistoryStore, StoreError, WriteOutcome};
use crate::rdf::SessionGraph;
use oxigraph::model::NamedNode;
use std::collections::HashSet;

/// Writes sessions in steps, and makes the new ones visible together.
///
/// - A session not in the store yet goes to the backend's loader
///   ([`Backend::loader`](super::Backend::loader)), with its fingerprint record: on
///   the embedded store it is sorted into table files at once, on threads of their own,
///   and appears at [`commit`](Self::commit), with every other new session given since
///   the last commit, in one atomic step. Dropped uncommitted, the writer leaves none
///   of them. Their texts go to the full-text index as they are given, on the index's
///   thread (`IndexPipe`), and are committed there after the store's commit, or taken out
///   of the index again without it.
/// - A session already stored is replaced, or left as it is when it holds the very
///   same quads, as [`HistoryStore::write_session`] does: in a step of its own, at once.
/// - A session given again while its earlier version waits for the commit commits
///   what waits first, so that the later version replaces the earlier.
///
/// Each session is written whole or not at all: after an error or a crash, some of the
/// sessions given may be stored, each of them complete.
///
/// ```
/// use ihigraph::check::{CheckOptions, check_document};
/// use ihigraph::generate::generate;
/// use ihigraph::rdf::map_history;
/// use ihigraph::HistoryStore;
/// let directory = tempfile::tempdir()?;
/// let store = HistoryStore::open(directory.path(), &Default::default())?;
/// let mut sessions = generate(Default::default()).map(|document| {
///     let history = check_document(&document, CheckOptions::default()).history.unwrap();
///     map_history(&history, store.scheme())
/// });
/// let mut writer = store.session_writer();
/// writer.write(sessions.by_ref().take(3).collect())?;
/// writer.write(sessions.by_ref().take(2).collect())?;
/// assert_eq!((writer.waiting(), store.session_count()?), (5, 0));
/// writer.commit()?;
/// assert_eq!(store.session_count()?, 5);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// (In memory, each `write` is visible at once: Oxigraph's in-memory bulk loader is a
/// transaction that would shut out the replacements until its commit.)
pub struct SessionWriter<'a> {
    store: &'a HistoryStore,
    loader: Box<dyn GraphLoader + 'a>,
    /// The graphs of the new sessions given since the last commit.
    waiting: HashSet<NamedNode>,
    /// The full-text index's thread, staging them as they are given (made with the
    /// first new session, on a store with an index); it commits after the store does.
    indexing: Option<IndexPipe>,
    /// The thread that reasons about them as they come, on a store that reasons (made
    /// with the first new session).
    reasoning: Option<ReasoningPipe>,
}

impl<'a> SessionWriter<'a> {
    pub(super) fn new(store: &'a HistoryStore) -> Self {
        Self {
            store,
            loader: store.backend.loader(),
            waiting: HashSet::new(),
            indexing: None,
            reasoning: None,
        }
    }

    /// Writes `sessions`: the new ones to wait for the commit, the stored ones at once.
    /// The outcomes are in the order of `sessions`.
    pub fn write(&mut self, sessions: Vec<SessionGraph>) -> Result<Vec<WriteOutcome>, StoreError> {
        let mut outcomes = Vec::with_capacity(sessions.len());
        let names: Vec<NamedNode> = sessions.iter().map(|s| s.graph.clone()).collect();
        let mut stored = self.store.backend.graphs_holding_quads(&names)?;
        let mut fresh: Vec<SessionGraph> = Vec::new();
        for session in sessions {
            if self.waiting.contains(&session.graph) {
                self.give(std::mem::take(&mut fresh))?;
                stored.extend(self.waiting.iter().cloned());
                self.commit()?;
            }
            if stored.contains(&session.graph) {
                let outcome = self.store.write_known(&session, true)?;
                if outcome.unchanged && !self.store.recorded_as_written(&session)? {
                    // Stored without its record, or with an older one (a crash between
                    // the two, or an older ihigraph): recorded again.
                    self.store.record_written(&[&session])?;
                }
                outcomes.push(outcome);
            } else {
                self.waiting.insert(session.graph.clone());
                fresh.push(session);
                outcomes.push(WriteOutcome {
                    replaced: false,
                    unchanged: false,
                });
            }
        }
        self.give(fresh)?;
        Ok(outcomes)
    }

    /// How many new sessions wait for the commit.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Makes the new sessions given since the last commit visible, together; the
    /// writer then takes new sessions for the next commit.
    pub fn commit(&mut self) -> Result<(), StoreError> {
        let loader = std::mem::replace(&mut self.loader, self.store.backend.loader());
        self.waiting.clear();
        let indexing = self.indexing.take();
        // On failure the pipe, dropped, takes what it staged out of the index.
        loader.commit()?;
        // What the new sessions entail, and their texts, appear once they are stored: a
        // crash between the commits is repaired on open.
        let indexed = match indexing {
            Some(pipe) => self.store.index_piped(pipe),
            // The index's write before, whose failure is said here.
            None => self.store.wait_for_index(),
        };
        if let Some(reasoning) = &self.reasoning {
            reasoning.commit()?;
        }
        indexed
    }

    /// Waits until the full-text index holds what was committed (see
    /// [`HistoryStore::wait_for_index`]).
    ///
    /// # Errors
    ///
    /// The index's write failed; the sessions are stored.
    pub fn wait_for_index(&self) -> Result<(), StoreError> {
        self.store.wait_for_index()
    }

    /// Gives new sessions (already counted as waiting) to the loader.
    fn give(&mut self, fresh: Vec<SessionGraph>) -> Result<(), StoreError> {
        if fresh.is_empty() {
            return Ok(());
        }
        let derived = self.store.add_fresh(self.loader.as_mut(), fresh)?;
        if !derived.indexed.is_empty() {
            if self.indexing.is_none() {
                self.indexing = self.store.index_pipe()?;
            }
            if let Some(indexing) = &self.indexing {
                indexing.send(derived.indexed)?;
            }
        }
        let reasoned = derived.reasoned;
        if !reasoned.is_empty() {
            if self.reasoning.is_none() {
                self.reasoning = self.store.inference()?.map(Inference::pipe).transpose()?;
            }
            if let Some(reasoning) = &self.reasoning {
                for graph in reasoned {
                    reasoning.send(graph)?;
                }
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for SessionWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionWriter")
            .field("store", &self.store.location())
            .field("waiting", &self.waiting.len())
            .finish_non_exhaustive()
    }
}
