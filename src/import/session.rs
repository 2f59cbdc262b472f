//! From the turns an importer found to a checked PGM-IHI document: session id, times,
//! roles, indexes and the data-exchange metadata that says where the document came from.

use super::time::{Stamp, relative_time, simple_time};
use super::{DerivedIds, ImportError, ImportOptions, Importer};
use crate::check::{CheckOptions, Severity, check_problems};
use crate::model::{
    BranchOf, DataExchangeMetadata, InteractionHistory, JsonObject, ProcessInstance, Role, Turn,
};
use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

/// One turn as an importer found it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnDraft {
    /// `PRCPrompt`: the input since the previous response, in the source's shape.
    pub prompt: JsonObject,
    /// `BKNResponse`: the response, in the source's shape.
    pub response: JsonObject,
    /// Whether the prompt carries a new human message (`H-User`; else `A-User`).
    pub human: bool,
    /// When the call began (the time of the prompt's last message).
    pub time: Option<Stamp>,
    /// When the response was created: the turn's time when `time` is unknown.
    pub response_time: Option<Stamp>,
    /// `UserEntityState`.
    pub user_entity_state: Option<JsonObject>,
    /// `AUCInstruction`.
    pub instruction: Option<JsonObject>,
}

/// One session as an importer found it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionDraft {
    /// Its turns, in order.
    pub turns: Vec<TurnDraft>,
    /// The session id the file gives, if any.
    pub session_id: Option<String>,
    /// The JSON Lines line it comes from, when each line is a session.
    pub line: Option<u64>,
    /// A start time the file gives besides the turns' times.
    pub start: Option<Stamp>,
    /// What the importer has to tell about it (kept items, assumptions).
    pub notes: Vec<String>,
    /// The session this one branches off, when the source kept a conversation that was
    /// rewound and taken another way: written into the DEM's `Annotations`.
    pub branch_of: Option<BranchOf>,
}

/// A file being imported: its name as given, the SHA-256 of its bytes and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// SHA-256 of the file's bytes, in lower-case hex.
    pub digest: String,
    /// Its absolute, canonical path; `None` for input that is no file.
    pub path: Option<std::path::PathBuf>,
}

/// A converted session: a PGM-IHI history that passed ihigraph's checks.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The history.
    pub history: InteractionHistory,
    /// Its session id.
    pub session_id: String,
    /// The JSON Lines line it comes from, when each line is a session.
    pub line: Option<u64>,
    /// Its number of turns.
    pub turns: usize,
    /// What there is to tell about the conversion (a derived session id, kept items).
    pub notes: Vec<String>,
}

impl Converted {
    /// The PGM-IHI document, as JSON.
    pub fn document(&self) -> Value {
        // Serializing the model's own types cannot fail: every map key is a string.
        serde_json::to_value(&self.history).unwrap_or(Value::Null)
    }
}

/// Where an importer gives the sessions it finds.
pub struct Sessions<'a> {
    importer: &'a dyn Importer,
    file: &'a SourceFile,
    options: &'a ImportOptions,
    count: usize,
    /// The file holds one session: its id needs no `#<line>`.
    sole: bool,
    /// Check each document (off only where a first pass checked them).
    check: bool,
    emit: &'a mut dyn FnMut(Converted) -> bool,
}

impl<'a> Sessions<'a> {
    pub(super) fn new(
        importer: &'a dyn Importer,
        file: &'a SourceFile,
        options: &'a ImportOptions,
        emit: &'a mut dyn FnMut(Converted) -> bool,
    ) -> Self {
        Self {
            importer,
            file,
            options,
            count: 0,
            sole: false,
            check: true,
            emit,
        }
    }

    /// Says that the file holds one session (known after a first pass).
    pub(super) fn sole(self, sole: bool) -> Self {
        Self { sole, ..self }
    }

    /// Leaves the checks out: a first pass over the same file checked every document.
    pub(super) fn checked_before(self) -> Self {
        Self {
            check: false,
            ..self
        }
    }

    /// The user's options.
    pub fn options(&self) -> &ImportOptions {
        self.options
    }

    /// Sessions given so far.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Builds, checks and gives one session.
    ///
    /// # Errors
    ///
    /// When the session has no turn; as a bug to report, when the document built does not
    /// pass ihigraph's checks; and [`ImportError::stopped`] when the caller asked to stop
    /// (an importer passes every error on with `?`).
    pub fn add(&mut self, draft: SessionDraft) -> Result<(), ImportError> {
        self.add_named(draft).map(drop)
    }

    /// As [`Sessions::add`], giving the session's id: the one the draft gives, or the
    /// one derived for it (so that an importer can name sessions after it).
    ///
    /// # Errors
    ///
    /// As [`Sessions::add`].
    pub fn add_named(&mut self, mut draft: SessionDraft) -> Result<String, ImportError> {
        if draft.turns.is_empty() {
            return Err(ImportError::at(
                draft.line,
                "",
                "at least one message: a conversation without any has no turn to convert",
            ));
        }
        self.count += 1;
        let mut notes = std::mem::take(&mut draft.notes);
        let session_id = self.session_id(&draft, &mut notes);
        let (line, turns) = (draft.line, draft.turns.len());
        let history = self.history(draft, &session_id);
        if self.check {
            self.check(&history, line)?;
        }
        let go_on = (self.emit)(Converted {
            history,
            session_id: session_id.clone(),
            line,
            turns,
            notes,
        });
        if go_on {
            Ok(session_id)
        } else {
            Err(ImportError::stopped())
        }
    }

    /// Checks a history built as any document is checked: a failure is a bug of the
    /// importer, reported as such.
    fn check(&self, history: &InteractionHistory, line: Option<u64>) -> Result<(), ImportError> {
        let document = serde_json::to_value(history).unwrap_or(Value::Null);
        let errors: Vec<String> = check_problems(&document, CheckOptions::default())
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .map(ToString::to_string)
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        Err(ImportError::at(
            line,
            "",
            format!(
                "a convertible session; the {} importer built an invalid document, a bug to report: {}",
                self.importer.name(),
                errors.join("; ")
            ),
        ))
    }

    fn session_id(&self, draft: &SessionDraft, notes: &mut Vec<String>) -> String {
        if let Some(id) = &draft.session_id {
            return id.clone();
        }
        let suffix = match (draft.line, self.count) {
            (Some(_), _) if self.sole => String::new(),
            (Some(line), _) => format!("#{line}"),
            (None, 1) => String::new(),
            (None, n) => format!("#{n}"),
        };
        if let Some(id) = self.options.given_session_id() {
            return format!("{id}{suffix}");
        }
        let (id, from) = match (self.options.derived_ids(), &self.file.path) {
            (DerivedIds::Path, Some(path)) => (
                format!("{}{suffix}", path_session_id(path)),
                "the file's path",
            ),
            _ => (
                format!("sha256-{}{suffix}", &self.file.digest[..16]),
                "the file's SHA-256",
            ),
        };
        // Said once per file: the sessions of a long file all derive theirs alike.
        if self.count == 1 {
            notes.push(if suffix.is_empty() {
                format!(
                    "session id {id:?} derived from {from}: the file holds none (give one with --session-id)"
                )
            } else {
                format!(
                    "session ids derived from {from}, {id:?} and on: the file holds none (give one with --session-id)"
                )
            });
        }
        id
    }

    fn history(&self, draft: SessionDraft, session_id: &str) -> InteractionHistory {
        let earliest = draft
            .turns
            .iter()
            .filter_map(|t| t.time.or(t.response_time))
            .chain(draft.start)
            .min_by_key(|stamp| stamp.millis());
        let start_id = format!("{session_id}/start");
        let start = match (earliest, self.options.start_time_ms()) {
            (Some(stamp), _) => simple_time(&start_id, stamp, None),
            (None, Some(ms)) => simple_time(
                &start_id,
                Stamp::Millis(ms),
                Some("given with --start-time"),
            ),
            (None, None) => relative_time(
                &start_id,
                0,
                "the source holds no time: the session's relative zero",
            ),
        };
        let line = draft
            .line
            .map_or_else(String::new, |line| format!(", line {line}"));
        let description = format!(
            "Converted by ihigraph {} from {}{line} ({}; importer {})",
            env!("CARGO_PKG_VERSION"),
            truncated(&self.file.name, 1024),
            self.importer.description(),
            self.importer.name(),
        );
        let data_id = match draft.line {
            Some(line) => format!("sha256:{}#{line}", self.file.digest),
            None => format!("sha256:{}", self.file.digest),
        };
        let turns: Vec<Turn> = draft
            .turns
            .into_iter()
            .enumerate()
            .map(|(index, turn)| turn_of(index, turn, session_id))
            .collect();
        InteractionHistory {
            header: "PGM-IHI-V1.0".to_owned(),
            m_instance_id: self.options.m_instance_id().to_owned(),
            u_environment_id: self.options.u_environment_id().to_owned(),
            session_id: session_id.to_owned(),
            session_start_time: start,
            turn_count: Number::from(turns.len()),
            turns,
            data_exchange_metadata: DataExchangeMetadata {
                header: "PTF-DEM-V1.0".to_owned(),
                m_instance_id: None,
                metadata_id: None,
                metadata_time: None,
                data_id,
                data_type: Some("PGM-IHI-V1.0".to_owned()),
                source: vec![ProcessInstance::ImplementerAimId(format!(
                    "ihigraph-import/{}",
                    self.importer.name()
                ))],
                authorisations: None,
                legality: None,
                security: None,
                confidence: None,
                annotations: draft.branch_of.as_ref().map(|link| vec![link.annotation()]),
                descriptive_metadata: Some(description),
            },
            descriptive_metadata: None,
        }
    }
}

/// A turn of the history: its index, time and role, and the payloads as found.
fn turn_of(index: usize, turn: TurnDraft, session_id: &str) -> Turn {
    let id = format!("{session_id}/turn/{index}");
    let timestamp = match (turn.time, turn.response_time) {
        (Some(stamp), _) => simple_time(&id, stamp, None),
        (None, Some(stamp)) => simple_time(
            &id,
            stamp,
            Some("the response's creation time: the call began a little earlier"),
        ),
        (None, None) => relative_time(
            &id,
            index as u64,
            "the source holds no time for this turn: its position in the session",
        ),
    };
    Turn {
        turn_index: Number::from(index),
        timestamp,
        role: if turn.human { Role::HUser } else { Role::AUser },
        prompt: turn.prompt,
        response: turn.response,
        user_entity_state: turn.user_entity_state,
        instruction: turn.instruction,
    }
}

/// The members of `object` other than `key` (a request's members besides its
/// messages), to keep beside the converted messages.
pub fn other_members(object: &JsonObject, key: &str) -> JsonObject {
    object
        .iter()
        .filter(|(name, _)| *name != key)
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// At most `chars` characters of `text`, with an ellipsis when cut.
/// The session id a file's path gives: its stem (letters, digits, `.`, `_` and `-`
/// kept, at most 64 of them) and 12 hex digits of the SHA-256 of the whole path, so
/// that files of one name in two directories give two ids.
fn path_session_id(path: &std::path::Path) -> String {
    let stem: String = path
        .file_stem()
        .map(|stem| stem.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let digest = hex::encode(Sha256::digest(path.as_os_str().as_encoded_bytes()));
    let stem = if stem.is_empty() { "file" } else { &stem };
    format!("{stem}-{}", &digest[..12])
}

fn truncated(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
