//! The typed model of an MPAI PGM-IHI V1.0 Interaction History document: the session
//! and its turns.
//!
//! Numbers the schema types as `integer` or `number` are kept as [`Number`], the exact
//! text of the document: JSON Schema counts `3.0` as an integer and a history must come
//! back out of the graph to the last digit. Payloads are open JSON objects.
//! A value of this model is built by [`check_document`](crate::check::check_document), which
//! enforces the schema first; deserializing directly skips those checks.

use super::{DataExchangeMetadata, SimpleTime};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// An open JSON object: a payload such as `PRCPrompt` or `BKNResponse`.
pub type JsonObject = Map<String, Value>;

/// A PGM-IHI Interaction History.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InteractionHistory {
    /// `Header`: `PGM-IHI-Vx.y`.
    #[serde(rename = "Header")]
    pub header: String,
    /// `MInstanceID`.
    #[serde(rename = "MInstanceID")]
    pub m_instance_id: String,
    /// `UEnvironmentID`.
    #[serde(rename = "UEnvironmentID")]
    pub u_environment_id: String,
    /// `SessionID`.
    #[serde(rename = "SessionID")]
    pub session_id: String,
    /// `SessionStartTime`.
    #[serde(rename = "SessionStartTime")]
    pub session_start_time: SimpleTime,
    /// `TurnCount`, as written.
    #[serde(rename = "TurnCount")]
    pub turn_count: Number,
    /// `Turns`, in document order.
    #[serde(rename = "Turns")]
    pub turns: Vec<Turn>,
    /// `DataXMData`.
    #[serde(rename = "DataXMData")]
    pub data_exchange_metadata: DataExchangeMetadata,
    /// `DescrMetadata`.
    #[serde(
        rename = "DescrMetadata",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub descriptive_metadata: Option<String>,
}

/// One turn of an Interaction History.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// `TurnIndex`, as written.
    #[serde(rename = "TurnIndex")]
    pub turn_index: Number,
    /// `Timestamp`: when the turn was initiated.
    #[serde(rename = "Timestamp")]
    pub timestamp: SimpleTime,
    /// `Role`.
    #[serde(rename = "Role")]
    pub role: Role,
    /// `PRCPrompt`.
    #[serde(rename = "PRCPrompt")]
    pub prompt: JsonObject,
    /// `BKNResponse`.
    #[serde(rename = "BKNResponse")]
    pub response: JsonObject,
    /// `UserEntityState`.
    #[serde(
        rename = "UserEntityState",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub user_entity_state: Option<JsonObject>,
    /// `AUCInstruction`.
    #[serde(
        rename = "AUCInstruction",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub instruction: Option<JsonObject>,
}

/// The role of the entity that produced a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// The autonomous agent.
    #[serde(rename = "A-User")]
    AUser,
    /// The human.
    #[serde(rename = "H-User")]
    HUser,
    /// Basic Knowledge, the language model.
    #[serde(rename = "BKN")]
    Bkn,
}

impl Role {
    /// Every role, in the schema's order.
    pub const ALL: [Self; 3] = [Self::AUser, Self::HUser, Self::Bkn];

    /// The name the standard gives the role.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AUser => "A-User",
            Self::HUser => "H-User",
            Self::Bkn => "BKN",
        }
    }
}
