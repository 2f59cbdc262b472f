//! From the turns an importer found to a checked PGM-IHI document: session id, times,
//! roles, indexes and the data-exchange metadata that says where the document came from.

use super::time::{Stamp, relative_time, simple_time};
use super::{ImportError, ImportOptions, Importer};
use crate::check::{CheckOptions, Severity, check_document};
use crate::model::JsonObject;
use serde_json::{Value, json};

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
}

/// A file being imported: its name as given and the SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// SHA-256 of the file's bytes, in lower-case hex.
    pub digest: String,
}

/// A converted session: a PGM-IHI document that passed ihigraph's checks.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The PGM-IHI document.
    pub document: Value,
    /// Its session id.
    pub session_id: String,
    /// The JSON Lines line it comes from, when each line is a session.
    pub line: Option<u64>,
    /// Its number of turns.
    pub turns: usize,
    /// What there is to tell about the conversion (a derived session id, kept items).
    pub notes: Vec<String>,
}

/// Where an importer gives the sessions it finds.
pub struct Sessions<'a> {
    importer: &'a dyn Importer,
    file: &'a SourceFile,
    options: &'a ImportOptions,
    count: usize,
    /// The file holds one session: its id needs no `#<line>`.
    sole: bool,
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
            emit,
        }
    }

    /// Says that the file holds one session (known after a first pass).
    pub(super) fn sole(self, sole: bool) -> Self {
        Self { sole, ..self }
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
    pub fn add(&mut self, mut draft: SessionDraft) -> Result<(), ImportError> {
        if draft.turns.is_empty() {
            return Err(ImportError::at(
                draft.line,
                "",
                "at least one model response: without one there is no turn to convert",
            ));
        }
        self.count += 1;
        let mut notes = std::mem::take(&mut draft.notes);
        let session_id = self.session_id(&draft, &mut notes);
        let document = self.document(&draft, &session_id);
        let checked = check_document(&document, CheckOptions::default());
        let errors: Vec<String> = checked
            .problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .map(ToString::to_string)
            .collect();
        if !errors.is_empty() || checked.history.is_none() {
            return Err(ImportError::at(
                draft.line,
                "",
                format!(
                    "a convertible session; the {} importer built an invalid document, a bug to report: {}",
                    self.importer.name(),
                    errors.join("; ")
                ),
            ));
        }
        let go_on = (self.emit)(Converted {
            document,
            session_id,
            line: draft.line,
            turns: draft.turns.len(),
            notes,
        });
        if go_on {
            Ok(())
        } else {
            Err(ImportError::stopped())
        }
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
        let id = format!("sha256-{}{suffix}", &self.file.digest[..16]);
        notes.push(format!(
            "session id {id:?} derived from the file's SHA-256: the file holds none (give one with --session-id)"
        ));
        id
    }

    fn document(&self, draft: &SessionDraft, session_id: &str) -> Value {
        let turns: Vec<Value> = draft
            .turns
            .iter()
            .enumerate()
            .map(|(index, turn)| self.turn(index, turn, session_id))
            .collect();
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
        json!({
            "Header": "PGM-IHI-V1.0",
            "MInstanceID": self.options.m_instance_id(),
            "UEnvironmentID": self.options.u_environment_id(),
            "SessionID": session_id,
            "SessionStartTime": start,
            "TurnCount": turns.len(),
            "Turns": turns,
            "DataXMData": {
                "Header": "PTF-DEM-V1.0",
                "DataID": data_id,
                "DataType": "PGM-IHI-V1.0",
                "Source": [{"ImplementerAIMID": format!("ihigraph-import/{}", self.importer.name())}],
                "DescrMetadata": description,
            },
        })
    }

    fn turn(&self, index: usize, turn: &TurnDraft, session_id: &str) -> Value {
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
        let mut value = json!({
            "TurnIndex": index,
            "Timestamp": timestamp,
            "Role": if turn.human { "H-User" } else { "A-User" },
            "PRCPrompt": turn.prompt,
            "BKNResponse": turn.response,
        });
        if let Some(state) = &turn.user_entity_state {
            value["UserEntityState"] = Value::Object(state.clone());
        }
        if let Some(instruction) = &turn.instruction {
            value["AUCInstruction"] = Value::Object(instruction.clone());
        }
        value
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
fn truncated(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
