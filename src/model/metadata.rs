//! MPAI-PTF V1.0 Data Exchange Metadata, as a PGM-IHI document carries it in `DataXMData`.

use super::SimpleTime;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

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
