//! Importers: histories written in foreign formats (OpenAI, Anthropic, Gemini,
//! LangChain, Harmony, fine-tuning JSONL, GLM/PyALM, AgentOS), converted to the PGM-IHI
//! model. One module per format, each implementing [`Importer`]; [`IMPORTERS`] lists
//! them, and `ingest --from FORMAT` and `convert` find them there.
//!
//! No format is implemented yet: the list is empty, and the only format ihigraph reads
//! is PGM-IHI itself.

use crate::model::InteractionHistory;
use serde_json::Value;

/// Why a file is not in the format its importer reads: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: expected {expected}")]
pub struct ImportError {
    /// Where in the input: a JSON Pointer, a line, an item index.
    pub place: String,
    /// What was expected there.
    pub expected: String,
}

/// A foreign history format.
pub trait Importer: Sync {
    /// The format's name on the command line (`openai-chat`, ...).
    fn name(&self) -> &'static str;

    /// Whether `value` looks like this format (for `--from auto`): judged from content,
    /// never from a file name.
    fn detect(&self, value: &Value) -> bool;

    /// The sessions `value` holds, as PGM-IHI histories, or why not.
    fn convert(&self, value: &Value) -> Result<Vec<InteractionHistory>, ImportError>;
}

/// Every importer, in the order `--from auto` tries them.
pub const IMPORTERS: &[&dyn Importer] = &[];

/// The importer named `name`.
pub fn importer(name: &str) -> Option<&'static dyn Importer> {
    IMPORTERS
        .iter()
        .copied()
        .find(|importer| importer.name() == name)
}
