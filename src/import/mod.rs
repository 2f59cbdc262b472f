//! Importers: histories written in foreign formats (OpenAI Chat and Responses, Anthropic
//! Messages and Claude Code, Gemini, LangChain, Harmony, fine-tuning JSONL, GLM/PyALM,
//! AgentOS, OpenTelemetry GenAI traces), converted to the PGM-IHI model.
//!
//! One module per format, each implementing [`Importer`]; [`IMPORTERS`] lists them, and
//! `ingest --from FORMAT` and `convert` find them there. What every format shares lives
//! beside them: reading a file as JSON, JSON Lines, YAML or text ([`source`]), the turn
//! rule ([`turns`]), times ([`time`]), and building a checked PGM-IHI document from the
//! turns found ([`session`]).
//!
//! The turn rule: a turn is one model call, the prompt sent and the response it produced.
//! The response is the run of model output of one call; the prompt is everything sent
//! since the previous response (the system prompt belongs to turn 0). Input after the last
//! response forms a last turn that awaits its response: its prompt holds that input and
//! its `BKNResponse` is `{}`, so nothing of a history is lost. A prompt that carries a new human message gives `H-User`; one
//! that carries only tool results (or nothing new) gives `A-User`, the agent prompting
//! again after running tools.

mod agentos;
mod anthropic;
mod error;
mod gemini;
mod glm_pyalm;
mod harmony;
mod langchain;
mod openai_chat;
mod openai_finetune;
mod openai_responses;
mod options;
pub mod otel;
mod session;
mod source;
#[cfg(test)]
mod testing;
mod time;
mod turns;

pub use error::ImportError;
pub use options::{DEFAULT_HELD_BYTES, DerivedIds, ImportOptions, OptionError};
pub use session::{Converted, SessionDraft, Sessions, SourceFile, TurnDraft};
pub use source::{
    Choice, ImportEvent, ImportSummary, convert_records, holds_pgm_ihi, import_bytes,
    import_file_bytes, import_paths, is_import_file, is_pgm_ihi,
};
pub use time::Stamp;

use serde_json::Value;

/// One record of an input file: the whole file (JSON, YAML, or text as a JSON string), or
/// one line of a JSON Lines file.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The record's value.
    pub value: Value,
    /// Its line (from 1) in a JSON Lines file.
    pub line: Option<u64>,
}

impl Record {
    /// An error at `pointer` (a JSON Pointer) inside this record.
    pub fn error(&self, pointer: &str, expected: impl Into<String>) -> ImportError {
        ImportError::at(self.line, pointer, expected)
    }
}

/// The syntaxes a format's files come in, besides JSON and JSON Lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JSON or JSON Lines only.
    Json,
    /// Also YAML (PyALM trackers).
    Yaml,
    /// Also plain text, given to the importer as one JSON string (Harmony's rendering).
    Text,
}

/// A foreign history format.
pub trait Importer: Sync {
    /// The format's name on the command line (`openai-chat`, ...).
    fn name(&self) -> &'static str;

    /// What the format is, in a few words, for help texts and `DataXMData`.
    fn description(&self) -> &'static str;

    /// The syntaxes its files come in.
    fn syntax(&self) -> Syntax {
        Syntax::Json
    }

    /// Whether a file whose first record is `first` is in this format (for
    /// `--from auto`): judged from content, never from a file name.
    fn detect(&self, first: &Record) -> bool;

    /// Whether the records of every file of an import in this format are converted
    /// together, as one input (OTLP: a conversation's spans and log records may sit in
    /// several files); each file is still checked alone first.
    fn joins_files(&self) -> bool {
        false
    }

    /// Converts the records of one file, giving each session found to `sessions`. A
    /// structural error refuses the whole file: the caller discards what was given.
    ///
    /// # Errors
    ///
    /// Where the file is not in the format: the record's line, a JSON Pointer, and what
    /// was expected there.
    fn convert(
        &self,
        records: &mut dyn Iterator<Item = Result<Record, ImportError>>,
        sessions: &mut Sessions<'_>,
    ) -> Result<(), ImportError>;
}

/// Every importer, in the order `--from auto` tries them.
pub const IMPORTERS: &[&dyn Importer] = &[
    &openai_chat::OpenAiChat,
    &openai_finetune::OpenAiFinetune,
    &openai_responses::OpenAiResponses,
    &anthropic::Anthropic,
    &gemini::Gemini,
    &langchain::LangChain,
    &harmony::Harmony,
    &glm_pyalm::GlmPyalm,
    &agentos::AgentOs,
    &otel::Otel,
];

/// The importer named `name`.
pub fn importer(name: &str) -> Option<&'static dyn Importer> {
    IMPORTERS
        .iter()
        .copied()
        .find(|importer| importer.name() == name)
}
