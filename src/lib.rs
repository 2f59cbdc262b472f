#![doc = include_str!("../README.md")]

mod check;
mod generate;
mod history;
mod input;
mod iri;
mod mapping;
mod number;
mod ontology;
mod prepare;
mod queries;
mod retrieve;
mod store;
mod text;
mod time;
mod tools;
pub mod vocab;

pub use crate::check::{
    CheckOptions, CheckedDocument, MAX_DESCRIPTIVE_METADATA_CHARS, Problem, Rule, Severity,
    check_document, check_turn,
};
pub use crate::generate::{GenerateOptions, generate};
pub use crate::history::{
    AccuracyMode, DataExchangeMetadata, InteractionHistory, JsonObject, ProcessInstance, Role,
    SimpleTime, TimeFlags, TimeSegment, TimeUnit, Turn,
};
pub use crate::input::{
    InputDocument, MAX_DOCUMENT_BYTES, Origin, ReadError, STDIN_PATH, is_document_file, parse_json,
    read_documents, read_documents_up_to,
};
pub use crate::iri::{
    DEFAULT_BASE, DEFAULT_SESSION_TEMPLATE, IriScheme, IriSchemeError, SESSION_PLACEHOLDER,
    encode_segment,
};
pub use crate::mapping::{MappingWarning, SessionGraph, map_history};
pub use crate::ontology::{CONVERSATION_HISTORY_TTL, IHIGRAPH_TTL, ONTOLOGIES, ontology_digest};
pub use crate::prepare::{Diagnostic, Place, PreparedDocument, prepare_document};
pub use crate::queries::{
    Argument, Arguments, CANNED_QUERIES, CannedQuery, DESIGN_RECENT_TURNS, DESIGN_TOOL_INVOCATIONS,
    INSTRUCTIONS, MEMORY_ITEMS, Parameter, ParameterError, ParameterKind, RECENT_TURNS, ROLES,
    SEARCH, SESSIONS, TOOL_STATS, TOOL_USAGE, TRANSCRIPT, USER_STATE,
};
pub use crate::retrieve::{RetrieveError, rebuild_history};
pub use crate::store::{
    AppendOutcome, ExportFormat, HistoryStore, NewSession, PREFIXES, SchemeRequest, StoreError,
    WriteOutcome,
};
pub use crate::text::{PayloadKind, payload_text};
pub use crate::time::{absolute_date_time, segment_start};
pub use crate::tools::{ToolCall, ToolResultFound, find_tool_calls, find_tool_results};
pub use oxsdatatypes::DateTime;
