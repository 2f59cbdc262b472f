//! The ingest pipeline: one thread reads, checks and maps documents; the caller's thread
//! writes their sessions through a [`SessionWriter`], in batches of about `batch_quads`
//! quads made visible together, and reports each step to a sink.

use super::{BatchError, IngestError, PreparedDocument, prepare_document, prepare_history};
use crate::check::{CheckOptions, Diagnostic, Place, Rule, Severity};
use crate::import::{
    Choice, ImportError, ImportEvent, ImportOptions, holds_pgm_ihi, import_paths, is_import_file,
};
use crate::model::InteractionHistory;
use crate::rdf::SessionGraph;
use crate::read::{InputDocument, InputPath, Origin, STDIN_PATH, input_paths, read_documents};
use crate::store::{HistoryStore, SessionWriter, StoreError};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// Quads made visible together (one atomic step of the store) unless
/// [`Ingest::batch_quads`] says otherwise.
pub const DEFAULT_BATCH_QUADS: usize = 10_000_000;

/// Quads given to the store's loader at a time, at most: the embedded store sorts each
/// such part in memory, so that memory stays bounded whatever the batch.
const LOADED_QUADS: usize = 100_000;

/// Documents prepared ahead of the writer: enough to keep it busy, few enough that
/// memory does not grow with the input.
const PREPARED_AHEAD: usize = 32;

/// What the pipeline reports, in input order.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum IngestEvent<'a> {
    /// A document was read, checked and mapped; its diagnostics say what was found.
    Prepared(&'a PreparedDocument),
    /// Something to tell about an imported file or session: the format recognised, a
    /// derived session id, what the importer kept or left out.
    Note {
        /// The file, and the line when each line is a session.
        origin: &'a Origin,
        /// What to tell.
        note: &'a str,
    },
    /// A stored session was replaced by the document from `origin`.
    Replaced {
        /// Where the new version came from.
        origin: &'a Origin,
        /// The session.
        session_id: &'a str,
    },
    /// A batch was written: every session up to `last` is settled (stored or refused).
    Written {
        /// The last document of the batch.
        last: &'a Origin,
        /// Sessions stored so far.
        sessions: usize,
        /// Quads stored so far.
        quads: usize,
    },
}

/// A refused document: where it came from, and its first error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Where the document came from.
    pub origin: Origin,
    /// Its first error.
    pub error: Diagnostic,
}

/// Totals of an ingest.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IngestSummary {
    /// Sessions stored (new, replaced or unchanged).
    pub sessions: usize,
    /// Of which replaced an earlier version.
    pub replaced: usize,
    /// Of which were already stored with the very same quads.
    pub unchanged: usize,
    /// Turns of the sessions stored.
    pub turns: usize,
    /// Quads of the sessions stored.
    pub quads: usize,
    /// Warnings reported.
    pub warnings: usize,
    /// Documents refused: nothing of them was stored.
    pub refused: Vec<Refusal>,
    /// The cancellation flag stopped the run: every session up to `last` is stored
    /// whole, nothing after it.
    pub interrupted: bool,
    /// The last document taken.
    pub last: Option<Origin>,
}

/// An ingest into a store: options first, then [`run`](Self::run) or
/// [`run_paths`](Self::run_paths).
///
/// ```
/// use ihigraph::ingest::{Ingest, IngestEvent};
/// use ihigraph::read::{InputDocument, Origin};
/// use ihigraph::HistoryStore;
/// let store = HistoryStore::in_memory(&Default::default())?;
/// let documents = ihigraph::generate::generate(Default::default()).take(3).enumerate().map(
///     |(index, value)| InputDocument {
///         origin: Origin { name: format!("generated #{index}"), line: None },
///         value: Ok(value),
///     },
/// );
/// let mut refusals = 0;
/// let summary = Ingest::new(&store).run(documents, |event: IngestEvent<'_>| {
///     if let IngestEvent::Prepared(document) = event {
///         refusals += usize::from(document.is_refused());
///     }
/// })?;
/// assert_eq!((summary.sessions, refusals), (3, 0));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct Ingest<'a> {
    store: &'a HistoryStore,
    options: CheckOptions,
    batch_quads: usize,
    cancel: Option<&'a AtomicBool>,
}

impl<'a> Ingest<'a> {
    /// An ingest into `store`, with the default checks and batch size.
    pub fn new(store: &'a HistoryStore) -> Self {
        Self {
            store,
            options: CheckOptions::default(),
            batch_quads: DEFAULT_BATCH_QUADS,
            cancel: None,
        }
    }

    /// How documents are checked.
    pub fn check(self, options: CheckOptions) -> Self {
        Self { options, ..self }
    }

    /// About how many quads each batch holds: the new sessions of a batch become
    /// visible together, in one atomic step of the store (bigger batches leave the
    /// store less to merge and are faster; a crash loses the batch under way; each
    /// session is always stored whole or not at all). Memory does not grow with it.
    pub fn batch_quads(self, batch_quads: usize) -> Self {
        Self {
            batch_quads,
            ..self
        }
    }

    /// Stop after the current session once `flag` is raised (by a Ctrl-C handler, say).
    pub fn cancel_on(self, flag: &'a AtomicBool) -> Self {
        Self {
            cancel: Some(flag),
            ..self
        }
    }

    /// Ingests the documents of files, directories and `-` (see [`read_documents`]).
    pub fn run_paths(
        self,
        paths: &[PathBuf],
        sink: impl FnMut(IngestEvent<'_>),
    ) -> Result<IngestSummary, IngestError> {
        self.pipeline(
            |send| {
                feed(read_documents(paths), send);
            },
            sink,
        )
    }

    /// Ingests documents already read.
    pub fn run(
        self,
        documents: impl IntoIterator<Item = InputDocument, IntoIter: Send>,
        sink: impl FnMut(IngestEvent<'_>),
    ) -> Result<IngestSummary, IngestError> {
        let documents = documents.into_iter();
        self.pipeline(
            move |send| {
                feed(documents, send);
            },
            sink,
        )
    }

    /// Converts the files of `paths` from a foreign format (see [`crate::import`]) and
    /// ingests their sessions: a file the importer refuses is refused whole, and the
    /// others go on. With [`Choice::Auto`], files of PGM-IHI documents are ingested as
    /// they are, as [`run_paths`](Self::run_paths) does.
    pub fn run_import(
        self,
        paths: &[PathBuf],
        choice: Choice,
        options: &ImportOptions,
        sink: impl FnMut(IngestEvent<'_>),
    ) -> Result<IngestSummary, IngestError> {
        self.pipeline(
            move |send| {
                let Choice::Auto = choice else {
                    import_paths(paths, choice, options, &mut |event| imported(event, send));
                    return;
                };
                // The other files are converted in one run, so that files of a format
                // that joins them (OTLP traces and logs apart) are read together.
                let mut others = Vec::new();
                for path in input_paths(paths, is_import_file) {
                    let path = match path {
                        InputPath::File(path) if holds_pgm_ihi(&path) => {
                            let origin = Origin {
                                name: path.display().to_string(),
                                line: None,
                            };
                            let note = "read as pgm-ihi (recognised from its content)".to_owned();
                            if !send(Produced::Note(origin, note))
                                || !feed(read_documents(&[path]), send)
                            {
                                return;
                            }
                            continue;
                        }
                        InputPath::File(path) | InputPath::Unreadable(path, _) => path,
                        InputPath::Stdin => PathBuf::from(STDIN_PATH),
                    };
                    others.push(path);
                }
                if !others.is_empty() {
                    import_paths(&others, choice, options, &mut |event| imported(event, send));
                }
            },
            sink,
        )
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(Ordering::SeqCst))
    }

    /// One thread reads, checks and maps; this one writes. The channel is short, so
    /// that memory stays bounded however large the input.
    fn pipeline(
        self,
        produce: impl FnOnce(&mut dyn FnMut(Produced) -> bool) + Send,
        sink: impl FnMut(IngestEvent<'_>),
    ) -> Result<IngestSummary, IngestError> {
        std::thread::scope(|scope| {
            let (sender, receiver) = mpsc::sync_channel(PREPARED_AHEAD);
            let (options, scheme) = (self.options, self.store.scheme());
            std::thread::Builder::new()
                .name("prepare".to_owned())
                .spawn_scoped(scope, move || {
                    produce(&mut |produced| {
                        if self.cancelled() {
                            return false;
                        }
                        let mut step = match produced {
                            Produced::Input(input) => Step::Document(prepare_document(
                                input.origin,
                                input.value,
                                options,
                                scheme,
                            )),
                            Produced::Checked(origin, history) => {
                                Step::Document(prepare_history(origin, &history, scheme))
                            }
                            Produced::Refused(document) => Step::Document(document),
                            Produced::Note(origin, note) => Step::Note(origin, note),
                        };
                        // The fingerprint is taken here, beside the writer; should it
                        // fail, the store tries again and says why.
                        if let Step::Document(PreparedDocument {
                            session: Some(session),
                            ..
                        }) = &mut step
                        {
                            let _ = session.take_fingerprint();
                        }
                        sender.send(step).is_ok()
                    });
                })
                .map_err(IngestError::Thread)?;
            let mut writer = Writer::new(self.store, self.batch_quads, sink);
            for step in receiver {
                if self.cancelled() {
                    break;
                }
                match step {
                    Step::Document(document) => writer.add(document)?,
                    Step::Note(origin, note) => (writer.sink)(IngestEvent::Note {
                        origin: &origin,
                        note: &note,
                    }),
                }
            }
            let mut summary = writer.finish()?;
            summary.interrupted = self.cancelled();
            Ok(summary)
        })
    }
}

/// What the reading side gives the preparing thread.
enum Produced {
    /// A document to check and map.
    Input(InputDocument),
    /// A history checked already, to map.
    Checked(Origin, Box<InteractionHistory>),
    /// A document refused before it was one (an importer refused its file).
    Refused(PreparedDocument),
    /// Something to tell.
    Note(Origin, String),
}

/// What the preparing thread gives the writer, in input order.
enum Step {
    Document(PreparedDocument),
    Note(Origin, String),
}

/// Gives `documents` to `send`; `false` when it asked to stop.
fn feed(
    documents: impl Iterator<Item = InputDocument>,
    send: &mut dyn FnMut(Produced) -> bool,
) -> bool {
    for document in documents {
        if !send(Produced::Input(document)) {
            return false;
        }
    }
    true
}

/// What an import event gives the pipeline; `false` to stop.
fn imported(event: ImportEvent<'_>, send: &mut dyn FnMut(Produced) -> bool) -> bool {
    match event {
        ImportEvent::Detected { file, format } => send(Produced::Note(
            Origin {
                name: file.to_owned(),
                line: None,
            },
            format!("read as {format} (recognised from its content)"),
        )),
        ImportEvent::Session { file, converted } => {
            let origin = Origin {
                name: file.to_owned(),
                line: converted.line,
            };
            for note in &converted.notes {
                if !send(Produced::Note(origin.clone(), note.clone())) {
                    return false;
                }
            }
            send(Produced::Checked(origin, Box::new(converted.history)))
        }
        ImportEvent::Refused { file, error } => send(Produced::Refused(PreparedDocument {
            origin: Origin {
                name: file.to_owned(),
                line: None,
            },
            session: None,
            diagnostics: vec![import_refusal(error)],
        })),
    }
}

/// The diagnostic of a file an importer refused.
pub(super) fn import_refusal(error: ImportError) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        place: Place::Input(error.place),
        rule: Rule::Format,
        message: error.message,
    }
}

/// The diagnostic of a session whose id `earlier`, another input of the same run, gave.
pub(super) fn clash_refusal(earlier: &str, session_id: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        place: Place::Pointer("/SessionID".to_owned()),
        rule: Rule::SessionClash,
        message: format!(
            "a session id no other input gives: {earlier} gave session {session_id:?} before, and two histories must not become one session (give one of them another id with --session-id, or let ids derive from the path)"
        ),
    }
}

/// Accepted sessions waiting to go to the store's loader, and where each came from.
#[derive(Default)]
struct Part {
    sessions: Vec<SessionGraph>,
    origins: Vec<Origin>,
    quads: usize,
}

/// The batch being written: given to the loader, not yet committed.
#[derive(Default)]
struct Pending {
    /// Where its first session came from, and its id.
    first: Option<(Origin, String)>,
    /// Where its last session came from.
    last: Option<Origin>,
    sessions: usize,
    turns: usize,
    quads: usize,
}

/// Takes prepared documents in order, reports them, and writes their sessions: in
/// parts of at most [`LOADED_QUADS`] quads given to the store's loader, which sorts
/// each part while the next is prepared, and in batches of about `batch_quads` quads
/// made visible together.
struct Writer<'a, S> {
    sessions: SessionWriter<'a>,
    batch_quads: usize,
    part: Part,
    pending: Pending,
    summary: IngestSummary,
    /// The file each session of this run came from.
    sources: HashMap<String, String>,
    sink: S,
}

impl<'a, S: FnMut(IngestEvent<'_>)> Writer<'a, S> {
    fn new(store: &'a HistoryStore, batch_quads: usize, sink: S) -> Self {
        Self {
            sessions: store.session_writer(),
            batch_quads,
            part: Part::default(),
            pending: Pending::default(),
            summary: IngestSummary::default(),
            sources: HashMap::new(),
            sink,
        }
    }

    fn add(&mut self, mut document: PreparedDocument) -> Result<(), IngestError> {
        self.refuse_clash(&mut document);
        (self.sink)(IngestEvent::Prepared(&document));
        self.summary.warnings += document
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        let PreparedDocument {
            origin,
            session,
            diagnostics,
        } = document;
        self.summary.last = Some(origin.clone());
        match session {
            None => {
                if let Some(error) = diagnostics
                    .into_iter()
                    .find(|d| d.severity == Severity::Error)
                {
                    self.summary.refused.push(Refusal { origin, error });
                }
            }
            Some(session) => {
                self.part.quads += session.quads.len();
                self.part.sessions.push(session);
                self.part.origins.push(origin);
            }
        }
        if self.part.quads >= self.batch_quads.min(LOADED_QUADS) {
            self.load_part()?;
        }
        if self.pending.quads >= self.batch_quads {
            self.commit()?;
        }
        Ok(())
    }

    /// Refuses a session whose id an earlier input of this run gave: the two would be
    /// stored as one session, the later replacing the earlier. Inputs of one file may
    /// give a session again (a later version of it, as a log keeps them).
    fn refuse_clash(&mut self, document: &mut PreparedDocument) {
        let Some(session) = &document.session else {
            return;
        };
        let file = &document.origin.name;
        match self.sources.get(&session.session_id) {
            None => {
                self.sources
                    .insert(session.session_id.clone(), file.clone());
            }
            Some(earlier) if earlier == file => {}
            Some(earlier) => {
                let refusal = clash_refusal(earlier, &session.session_id);
                document.session = None;
                document.diagnostics.push(refusal);
            }
        }
    }

    /// Gives the part's sessions to the store (new ones to its loader).
    fn load_part(&mut self) -> Result<(), IngestError> {
        let Part {
            sessions, origins, ..
        } = std::mem::take(&mut self.part);
        let (Some(first), Some(last)) = (origins.first(), origins.last()) else {
            return Ok(());
        };
        let ids: Vec<String> = sessions.iter().map(|s| s.session_id.clone()).collect();
        let first = (first.clone(), ids[0].clone());
        let turns: usize = sessions.iter().map(|s| s.turn_count).sum();
        let quads: usize = sessions.iter().map(|s| s.quads.len()).sum();
        let pending = &mut self.pending;
        pending.first.get_or_insert(first);
        pending.last = Some(last.clone());
        pending.sessions += ids.len();
        pending.turns += turns;
        pending.quads += quads;
        let outcomes = match self.sessions.write(sessions) {
            Ok(outcomes) => outcomes,
            Err(source) => return Err(self.batch_error(source)),
        };
        for ((origin, id), outcome) in origins.iter().zip(&ids).zip(outcomes) {
            if outcome.replaced {
                (self.sink)(IngestEvent::Replaced {
                    origin,
                    session_id: id,
                });
                self.summary.replaced += 1;
            }
            if outcome.unchanged {
                self.summary.unchanged += 1;
            }
        }
        Ok(())
    }

    /// Makes the batch visible, and reports it.
    fn commit(&mut self) -> Result<(), IngestError> {
        let Some(last) = self.pending.last.clone() else {
            return Ok(());
        };
        if let Err(source) = self.sessions.commit() {
            return Err(self.batch_error(source));
        }
        let pending = std::mem::take(&mut self.pending);
        self.summary.sessions += pending.sessions;
        self.summary.turns += pending.turns;
        self.summary.quads += pending.quads;
        (self.sink)(IngestEvent::Written {
            last: &last,
            sessions: self.summary.sessions,
            quads: self.summary.quads,
        });
        Ok(())
    }

    /// The error of a batch that could not be written.
    fn batch_error(&mut self, source: StoreError) -> IngestError {
        let pending = std::mem::take(&mut self.pending);
        let Some((first, first_session)) = pending.first else {
            return IngestError::Store(source);
        };
        IngestError::Batch(Box::new(BatchError {
            last: pending.last.unwrap_or_else(|| first.clone()),
            first,
            first_session,
            sessions: pending.sessions,
            stored: self.summary.sessions,
            source,
        }))
    }

    /// Writes what is left and gives the totals.
    fn finish(mut self) -> Result<IngestSummary, IngestError> {
        self.load_part()?;
        self.commit()?;
        // The full-text index follows the last commit on a thread of its own: its
        // failure is said here, with the sessions stored (the next open indexes them).
        self.sessions.wait_for_index()?;
        Ok(self.summary)
    }
}
