//! The typed model of an MPAI PGM-IHI V1.0 Interaction History document, with the
//! OSD V1.5 Simple Time and PTF V1.0 Data Exchange Metadata it embeds.
//!
//! Numbers the schema types as `integer` or `number` are kept as [`Number`], the exact
//! text of the document: JSON Schema counts `3.0` as an integer and a history must come
//! back out of the graph to the last digit. Payloads are open JSON objects.
//! A value of this model is built by [`check_document`](crate::check_document), which
//! enforces the schema first; deserializing directly skips those checks.

use crate::number::JsonDecimal;
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

/// An MPAI OSD V1.5 Simple Time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimpleTime {
    /// `Header`: `OSD-STM-V1.5`.
    #[serde(rename = "Header")]
    pub header: String,
    /// `MInstanceID`.
    #[serde(
        rename = "MInstanceID",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub m_instance_id: Option<String>,
    /// `UEnvironmentID`.
    #[serde(
        rename = "UEnvironmentID",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub u_environment_id: Option<String>,
    /// `SimpleTimeID`.
    #[serde(rename = "SimpleTimeID")]
    pub simple_time_id: String,
    /// `SimpleTimeData`: the time segments.
    #[serde(rename = "SimpleTimeData")]
    pub segments: Vec<TimeSegment>,
    /// `DescrMetadata`.
    #[serde(
        rename = "DescrMetadata",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub descriptive_metadata: Option<String>,
}

/// One segment of a Simple Time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSegment {
    /// `FlagsByte`: bit 0 time type, bits 1-2 unit, bits 3-7 reserved.
    #[serde(rename = "FlagsByte")]
    pub flags_byte: Number,
    /// `StartTime`, in the unit, from the epoch the time type implies.
    #[serde(rename = "StartTime")]
    pub start_time: Number,
    /// `EndTime`.
    #[serde(rename = "EndTime")]
    pub end_time: Number,
    /// `AccuracyMode`.
    #[serde(
        rename = "AccuracyMode",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_mode: Option<AccuracyMode>,
    /// `AccuracyPlusMinus`.
    #[serde(
        rename = "AccuracyPlusMinus",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_plus_minus: Option<Number>,
    /// `AccuracyStartPlusMinus`.
    #[serde(
        rename = "AccuracyStartPlusMinus",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_start_plus_minus: Option<Number>,
    /// `AccuracyEndPlusMinus`.
    #[serde(
        rename = "AccuracyEndPlusMinus",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_end_plus_minus: Option<Number>,
    /// `TimeType`: repeats bit 0 of `FlagsByte`.
    #[serde(rename = "TimeType", skip_serializing_if = "Option::is_none", default)]
    pub time_type: Option<bool>,
    /// `TimeUnit`: repeats bits 1-2 of `FlagsByte` as `"00"`..`"11"`.
    #[serde(rename = "TimeUnit", skip_serializing_if = "Option::is_none", default)]
    pub time_unit: Option<String>,
    /// `Reserved`: repeats bits 3-7 of `FlagsByte`.
    #[serde(rename = "Reserved", skip_serializing_if = "Option::is_none", default)]
    pub reserved: Option<Number>,
}

impl TimeSegment {
    /// The flags decoded from `FlagsByte` (a checked document holds 0..=255).
    pub fn flags(&self) -> Option<TimeFlags> {
        let byte = JsonDecimal::parse(self.flags_byte.as_str())?.to_u64()?;
        u8::try_from(byte).ok().map(TimeFlags::from_byte)
    }
}

/// `AccuracyMode` of a Simple Time segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccuracyMode {
    /// One tolerance for both ends.
    Single,
    /// Distinct tolerances for start and end.
    Separate,
}

impl AccuracyMode {
    /// The schema's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Separate => "separate",
        }
    }
}

/// The unit of a Simple Time segment (`FlagsByte` bits 1-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// `00`.
    Second,
    /// `01`.
    Millisecond,
    /// `10`.
    Microsecond,
    /// `11`.
    Nanosecond,
}

impl TimeUnit {
    /// Decimal digits from this unit to seconds (a millisecond is `10^-3` s).
    pub fn digits_below_second(self) -> i64 {
        match self {
            Self::Second => 0,
            Self::Millisecond => 3,
            Self::Microsecond => 6,
            Self::Nanosecond => 9,
        }
    }

    /// The two-bit code the `TimeUnit` member spells.
    pub fn code(self) -> &'static str {
        match self {
            Self::Second => "00",
            Self::Millisecond => "01",
            Self::Microsecond => "10",
            Self::Nanosecond => "11",
        }
    }
}

/// The fields packed into a `FlagsByte`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeFlags {
    /// Bit 0: absolute (Unix epoch) rather than relative.
    pub absolute: bool,
    /// Bits 1-2.
    pub unit: TimeUnit,
    /// Bits 3-7.
    pub reserved: u8,
}

impl TimeFlags {
    /// Decodes a `FlagsByte`.
    pub fn from_byte(byte: u8) -> Self {
        let unit = match (byte >> 1) & 0b11 {
            0 => TimeUnit::Second,
            1 => TimeUnit::Millisecond,
            2 => TimeUnit::Microsecond,
            _ => TimeUnit::Nanosecond,
        };
        Self {
            absolute: byte & 1 == 1,
            unit,
            reserved: byte >> 3,
        }
    }
}

/// MPAI-PTF V1.0 Data Exchange Metadata.
///
/// `Authorisations`, `Legality`, `Security` and `Annotations` refer to further MPAI
/// schemas whose published copies are broken; they are kept as JSON, checked for shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataExchangeMetadata {
    /// `Header`: `PTF-DEM-V1.0`.
    #[serde(rename = "Header")]
    pub header: String,
    /// `MInstanceID`.
    #[serde(
        rename = "MInstanceID",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub m_instance_id: Option<String>,
    /// `DataExchangeMetadataID`.
    #[serde(
        rename = "DataExchangeMetadataID",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub metadata_id: Option<String>,
    /// `DataExchangeMetadataTime`.
    #[serde(
        rename = "DataExchangeMetadataTime",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub metadata_time: Option<SimpleTime>,
    /// `DataID`.
    #[serde(rename = "DataID")]
    pub data_id: String,
    /// `DataType`.
    #[serde(rename = "DataType", skip_serializing_if = "Option::is_none", default)]
    pub data_type: Option<String>,
    /// `Source`: the process instances the data comes from.
    #[serde(rename = "Source")]
    pub source: Vec<ProcessInstance>,
    /// `Authorisations`.
    #[serde(
        rename = "Authorisations",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub authorisations: Option<Vec<Value>>,
    /// `Legality`.
    #[serde(rename = "Legality", skip_serializing_if = "Option::is_none", default)]
    pub legality: Option<Value>,
    /// `Security`.
    #[serde(rename = "Security", skip_serializing_if = "Option::is_none", default)]
    pub security: Option<Value>,
    /// `Confidence`, in [0, 1].
    #[serde(
        rename = "Confidence",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub confidence: Option<Number>,
    /// `Annotations`.
    #[serde(
        rename = "Annotations",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub annotations: Option<Vec<Value>>,
    /// `DescrMetadata`.
    #[serde(
        rename = "DescrMetadata",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub descriptive_metadata: Option<String>,
}

/// A DEM process instance: an object with exactly one member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProcessInstance {
    /// `{"AIMID": ...}`.
    #[serde(rename = "AIMID")]
    AimId(String),
    /// `{"ImplementerAIMID": ...}`.
    #[serde(rename = "ImplementerAIMID")]
    ImplementerAimId(String),
}
