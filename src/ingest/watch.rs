//! Keeping a store in step with directories that agents write their transcripts into
//! (Claude Code's projects, Codex rollouts, any JSON Lines log): new files are ingested,
//! a grown file replaces the sessions it gave before, in one atomic step each (so its new
//! turns are added and a turn that awaited its response is completed, never stored
//! twice), a last line not yet ended waits for its end, and removed or renamed files are
//! said. File events come from the system (inotify and its kin, through `notify`), or from
//! polling where the system gives none; a rescan every few seconds catches what events
//! miss. It stops when the caller's flag is raised, between two steps.

use super::{IngestError, prepare_history};
use crate::check::Diagnostic;
use crate::import::{Choice, ImportEvent, ImportOptions, import_file_bytes, is_import_file};
use crate::read::{InputPath, Origin, input_paths};
use crate::store::HistoryStore;
use notify::{Event, RecursiveMode, Watcher};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// How long a file must be quiet before it is read after an event: writers append in
/// bursts, and a burst is read once.
const SETTLE: Duration = Duration::from_millis(50);

/// How long changes may wait while a writer never stops writing.
const LONGEST_WAIT: Duration = Duration::from_millis(500);

/// How often every file is looked at again, whatever the events said.
const RESCAN: Duration = Duration::from_secs(5);

/// What the watcher reports, as it happens.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum WatchEvent<'a> {
    /// The watch began: the paths, and whether changes are polled for (the system gives
    /// no file events here) rather than told.
    Watching {
        /// The directories and files watched.
        paths: &'a [PathBuf],
        /// Polled every so often instead of told by the system.
        polling: bool,
    },
    /// A session of a file was stored: new, grown, or completed.
    Stored {
        /// The file.
        file: &'a str,
        /// The session.
        session_id: &'a str,
        /// Its turns now.
        turns: usize,
        /// Turns it had in the store before this step (0 when it is new to this watch).
        before: usize,
        /// Whether its last turn awaits its response.
        awaiting: bool,
    },
    /// A file's last line is not ended yet: what precedes it is read, the line waits.
    Waiting {
        /// The file.
        file: &'a str,
        /// Bytes of the unended line.
        bytes: usize,
    },
    /// Something the importer has to tell about a file.
    Note {
        /// The file.
        file: &'a str,
        /// What.
        note: &'a str,
    },
    /// A file, or one of its sessions, was refused as it is now; it is read again when it
    /// changes.
    Refused {
        /// The file.
        file: &'a str,
        /// Why.
        error: &'a Diagnostic,
    },
    /// A file was removed: the sessions it gave stay in the store.
    Removed {
        /// The file.
        file: &'a str,
        /// The sessions it gave.
        sessions: &'a [String],
    },
    /// A file was renamed (a removed file's content appeared under a new name).
    Renamed {
        /// Its old name.
        from: &'a str,
        /// Its new name.
        to: &'a str,
    },
    /// The system's watcher reported an error; polling and rescans go on.
    Trouble {
        /// What it said.
        message: &'a str,
    },
}

/// Totals of a watch, when it stops.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WatchSummary {
    /// Files seen.
    pub files: usize,
    /// Session writes (each one atomic step).
    pub writes: usize,
    /// Turns added by them (completed turns not counted again).
    pub new_turns: usize,
}

/// A watch of directories into a store: options first, then [`run`](Self::run).
#[must_use]
pub struct Watch<'a> {
    store: &'a HistoryStore,
    choice: Choice,
    options: ImportOptions,
    poll: Option<Duration>,
    stop: &'a AtomicBool,
}

/// What the watch knows of one file.
#[derive(Debug, Default)]
struct FileState {
    /// Size and modification time when it was last read.
    seen: Option<(u64, SystemTime)>,
    /// SHA-256 of the bytes last read (up to the end of the last complete line).
    digest: Option<[u8; 32]>,
    /// The sessions it gave, with their turns.
    sessions: Vec<(String, usize)>,
    /// The length of an unended last line last said, so that it is said once.
    waiting: Option<usize>,
}

impl<'a> Watch<'a> {
    /// A watch into `store` of files in `choice`'s format, stopped by `stop`.
    pub fn new(store: &'a HistoryStore, choice: Choice, stop: &'a AtomicBool) -> Self {
        Self {
            store,
            choice,
            options: ImportOptions::default(),
            poll: None,
            stop,
        }
    }

    /// What no file holds (see [`ImportOptions`]).
    pub fn import_options(self, options: ImportOptions) -> Self {
        Self { options, ..self }
    }

    /// Polls every `interval` instead of asking the system for file events.
    pub fn poll_every(self, interval: Duration) -> Self {
        Self {
            poll: Some(interval),
            ..self
        }
    }

    /// Watches `paths` (directories, walked as `ingest` walks them, and files) until the
    /// stop flag is raised, reporting to `sink`. What the paths hold when it starts is
    /// stored first, whether or not the flag is raised already.
    ///
    /// ```
    /// use ihigraph::import::Choice;
    /// use ihigraph::ingest::{Watch, WatchEvent};
    /// use ihigraph::HistoryStore;
    /// use std::sync::atomic::AtomicBool;
    /// let dir = std::env::temp_dir().join(format!("ihigraph-watch-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// // A chat whose user has the last word: its last turn awaits the response.
    /// std::fs::write(dir.join("chat.json"), r#"[{"role":"user","content":"Hi"},
    ///     {"role":"assistant","content":"Hello!"},{"role":"user","content":"Still there?"}]"#)?;
    /// let store = HistoryStore::in_memory(&Default::default())?;
    /// let stop = AtomicBool::new(true); // Raised: the files there now, then stop.
    /// let mut stored = Vec::new();
    /// Watch::new(&store, Choice::Auto, &stop).run(&[dir.clone()], |event| {
    ///     if let WatchEvent::Stored { turns, awaiting, .. } = event {
    ///         stored.push((turns, awaiting));
    ///     }
    /// })?;
    /// assert_eq!(stored, [(2, true)]);
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// When a session cannot be written (the store fails): the watch stops, and every
    /// session written before stays.
    pub fn run(
        self,
        paths: &[PathBuf],
        mut sink: impl FnMut(WatchEvent<'_>),
    ) -> Result<WatchSummary, IngestError> {
        let (sender, events) = mpsc::channel();
        let (_watcher, polling) = self.watcher(paths, sender, &mut sink);
        sink(WatchEvent::Watching { paths, polling });
        let mut run = Run {
            watch: &self,
            files: HashMap::new(),
            owners: HashMap::new(),
            summary: WatchSummary::default(),
        };
        // What is there already, at once; then what changes.
        run.step(&files_of(paths).collect(), &mut sink)?;
        let mut dirty: BTreeSet<PathBuf> = BTreeSet::new();
        let (mut first_change, mut last_change): (Option<Instant>, Instant) =
            (None, Instant::now());
        let mut last_scan = Instant::now();
        while !self.stop.load(Ordering::SeqCst) {
            let due = first_change.is_some_and(|first| {
                last_change.elapsed() >= SETTLE || first.elapsed() >= LONGEST_WAIT
            });
            if due {
                run.step(&std::mem::take(&mut dirty), &mut sink)?;
                first_change = None;
            }
            if last_scan.elapsed() >= RESCAN {
                dirty.extend(files_of(paths));
                dirty.extend(run.files.keys().cloned());
                first_change.get_or_insert_with(Instant::now);
                last_scan = Instant::now();
            }
            match events.recv_timeout(SETTLE) {
                Ok(Ok(event)) => {
                    if note_event(&event, &mut dirty) {
                        first_change.get_or_insert_with(Instant::now);
                        last_change = Instant::now();
                    }
                }
                Ok(Err(error)) => sink(WatchEvent::Trouble {
                    message: &error.to_string(),
                }),
                Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
            }
        }
        Ok(run.summary)
    }

    /// The system's watcher over `paths`, or a polling one where the system gives no
    /// events (or when asked); whether it polls.
    fn watcher(
        &self,
        paths: &[PathBuf],
        sender: mpsc::Sender<notify::Result<Event>>,
        sink: &mut impl FnMut(WatchEvent<'_>),
    ) -> (Option<Box<dyn Watcher + Send>>, bool) {
        let watch_all = |watcher: &mut dyn Watcher| {
            paths
                .iter()
                .try_for_each(|path| watcher.watch(path, RecursiveMode::Recursive))
        };
        if self.poll.is_none() {
            match notify::recommended_watcher(sender.clone()) {
                Ok(mut watcher) => match watch_all(&mut watcher) {
                    Ok(()) => return (Some(Box::new(watcher)), false),
                    Err(error) => sink(WatchEvent::Trouble {
                        message: &format!("no file events ({error}): polling instead"),
                    }),
                },
                Err(error) => sink(WatchEvent::Trouble {
                    message: &format!("no file events ({error}): polling instead"),
                }),
            }
        }
        let interval = self.poll.unwrap_or(Duration::from_secs(1));
        let config = notify::Config::default().with_poll_interval(interval);
        match notify::PollWatcher::new(sender, config) {
            Ok(mut watcher) => {
                if let Err(error) = watch_all(&mut watcher) {
                    sink(WatchEvent::Trouble {
                        message: &format!("cannot poll ({error}): rescanning every few seconds"),
                    });
                }
                (Some(Box::new(watcher)), true)
            }
            Err(error) => {
                sink(WatchEvent::Trouble {
                    message: &format!("cannot poll ({error}): rescanning every few seconds"),
                });
                (None, true)
            }
        }
    }
}

/// The files `ingest` would take from `paths`.
fn files_of(paths: &[PathBuf]) -> impl Iterator<Item = PathBuf> {
    input_paths(paths, is_import_file)
        .into_iter()
        .filter_map(|path| match path {
            InputPath::File(path) | InputPath::Unreadable(path, _) => Some(path),
            InputPath::Stdin => None,
        })
}

/// Marks the files an event names (a directory's files when it names a directory);
/// whether it named any.
fn note_event(event: &Event, dirty: &mut BTreeSet<PathBuf>) -> bool {
    if event.kind.is_access() {
        return false;
    }
    let before = dirty.len();
    for path in &event.paths {
        if path.is_dir() {
            dirty.extend(files_of(std::slice::from_ref(path)));
        } else if is_import_file(path) {
            dirty.insert(path.clone());
        }
    }
    dirty.len() > before
}

/// A watch under way: what it knows of each file, and which file gave each session.
struct Run<'w, 'a> {
    watch: &'w Watch<'a>,
    files: HashMap<PathBuf, FileState>,
    owners: HashMap<String, PathBuf>,
    summary: WatchSummary,
}

impl Run<'_, '_> {
    /// Reads the files marked, removed ones first so that a rename is seen as one.
    fn step(
        &mut self,
        dirty: &BTreeSet<PathBuf>,
        sink: &mut impl FnMut(WatchEvent<'_>),
    ) -> Result<(), IngestError> {
        let mut removed: Vec<(PathBuf, FileState)> = Vec::new();
        for path in dirty.iter().filter(|path| !path.exists()) {
            if let Some(state) = self.files.remove(path) {
                removed.push((path.clone(), state));
            }
        }
        for path in dirty.iter().filter(|path| path.exists()) {
            let renamed_from = self.read(path, sink)?.and_then(|digest| {
                let at = removed
                    .iter()
                    .position(|(_, state)| state.digest == Some(digest))?;
                Some(removed.swap_remove(at).0)
            });
            if let Some(from) = renamed_from {
                sink(WatchEvent::Renamed {
                    from: &from.display().to_string(),
                    to: &path.display().to_string(),
                });
            }
        }
        for (path, state) in removed {
            let sessions: Vec<String> = state.sessions.into_iter().map(|(id, _)| id).collect();
            sink(WatchEvent::Removed {
                file: &path.display().to_string(),
                sessions: &sessions,
            });
        }
        Ok(())
    }

    /// Reads a file when it changed and stores its sessions; the digest of what was read
    /// when the file is new to the watch.
    fn read(
        &mut self,
        path: &Path,
        sink: &mut impl FnMut(WatchEvent<'_>),
    ) -> Result<Option<[u8; 32]>, IngestError> {
        let name = path.display().to_string();
        let Ok(metadata) = std::fs::metadata(path) else {
            return Ok(None);
        };
        let seen = (
            metadata.len(),
            metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        );
        let is_new = !self.files.contains_key(path);
        let state = self.files.entry(path.to_path_buf()).or_default();
        if state.seen == Some(seen) {
            return Ok(None);
        }
        state.seen = Some(seen);
        let Ok(mut bytes) = std::fs::read(path) else {
            return Ok(None);
        };
        let unended = unended_line(&bytes);
        if unended > 0 && state.waiting != Some(unended) {
            sink(WatchEvent::Waiting {
                file: &name,
                bytes: unended,
            });
        }
        state.waiting = (unended > 0).then_some(unended);
        bytes.truncate(bytes.len() - unended);
        let digest: [u8; 32] = Sha256::digest(&bytes).into();
        if state.digest == Some(digest) {
            return Ok(None);
        }
        state.digest = Some(digest);
        self.summary.files += usize::from(is_new);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(is_new.then_some(digest));
        }
        self.store_file(path, &name, bytes, sink)?;
        Ok(is_new.then_some(digest))
    }

    /// Converts a file's bytes and writes each of its sessions in one atomic step.
    fn store_file(
        &mut self,
        path: &Path,
        name: &str,
        bytes: Vec<u8>,
        sink: &mut impl FnMut(WatchEvent<'_>),
    ) -> Result<(), IngestError> {
        let mut converted = Vec::new();
        let mut refused = None;
        let watch = self.watch;
        import_file_bytes(path, bytes, watch.choice, &watch.options, &mut |event| {
            match event {
                ImportEvent::Session { converted: c, .. } => converted.push(*c),
                ImportEvent::Refused { error, .. } => refused = Some(error),
                ImportEvent::Detected { .. } => {}
            }
            true
        });
        if let Some(error) = refused {
            let diagnostic = super::pipeline::import_refusal(error);
            sink(WatchEvent::Refused {
                file: name,
                error: &diagnostic,
            });
            return Ok(());
        }
        let mut sessions = Vec::with_capacity(converted.len());
        for session in converted {
            for note in &session.notes {
                sink(WatchEvent::Note { file: name, note });
            }
            if let Some(clash) = self.clash(path, &session.session_id) {
                sink(WatchEvent::Refused {
                    file: name,
                    error: &clash,
                });
                continue;
            }
            let origin = Origin {
                name: name.to_owned(),
                line: session.line,
            };
            let prepared = prepare_history(origin, &session.history, watch.store.scheme());
            let Some(graph) = prepared.session else {
                continue;
            };
            watch.store.write_session(&graph)?;
            let before = self.turns_before(path, &session.session_id);
            let awaiting = session
                .history
                .turns
                .last()
                .is_some_and(|turn| turn.response.is_empty());
            sink(WatchEvent::Stored {
                file: name,
                session_id: &session.session_id,
                turns: session.turns,
                before,
                awaiting,
            });
            self.summary.writes += 1;
            self.summary.new_turns += session.turns.saturating_sub(before);
            self.owners
                .insert(session.session_id.clone(), path.to_path_buf());
            sessions.push((session.session_id, session.turns));
        }
        if let Some(state) = self.files.get_mut(path) {
            state.sessions = sessions;
        }
        Ok(())
    }

    /// The refusal of a session another file of this watch gave already.
    fn clash(&self, path: &Path, session_id: &str) -> Option<Diagnostic> {
        let owner = self.owners.get(session_id)?;
        (owner != path && owner.exists())
            .then(|| super::pipeline::clash_refusal(&owner.display().to_string(), session_id))
    }

    /// The turns a session of `path` had when the file was last read.
    fn turns_before(&self, path: &Path, session_id: &str) -> usize {
        self.files
            .get(path)
            .and_then(|state| state.sessions.iter().find(|(id, _)| id == session_id))
            .map_or(0, |(_, turns)| *turns)
    }
}

/// Bytes after the last line feed of a JSON Lines text (a line being written); 0 for a
/// text that is not JSON Lines, or whose last line is ended.
fn unended_line(bytes: &[u8]) -> usize {
    let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
        return 0;
    };
    let first_line = bytes
        .split(|&b| b == b'\n')
        .find(|line| !line.iter().all(u8::is_ascii_whitespace));
    if !first_line.is_some_and(crate::read::is_json_value_line) {
        return 0;
    }
    let rest = &bytes[end + 1..];
    if rest.iter().all(u8::is_ascii_whitespace) {
        0
    } else {
        rest.len()
    }
}

#[cfg(test)]
mod tests {
    use super::unended_line;

    #[test]
    fn only_an_unended_json_lines_line_waits() {
        assert_eq!(unended_line(b"{\"a\":1}\n{\"b\":"), 5);
        assert_eq!(unended_line(b"{\"a\":1}\n{\"b\":2}\n"), 0);
        assert_eq!(unended_line(b"{\"a\":1}\n  \n"), 0);
        // A JSON document across lines is no JSON Lines: nothing waits.
        assert_eq!(unended_line(b"{\n  \"a\": 1\n}"), 0);
        // One line, not ended: the writer may still be writing it, but a file of one
        // line is also a whole document; it is read.
        assert_eq!(unended_line(b"{\"a\":1}"), 0);
    }
}
