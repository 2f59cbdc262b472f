//! The model: an MPAI PGM-IHI V1.0 Interaction History as Rust types, with the OSD V1.5
//! Simple Time and PTF V1.0 Data Exchange Metadata it embeds, and exact JSON numbers.
//! It knows no RDF and no files.

mod branch;
mod history;
mod metadata;
mod number;
mod simple_time;

pub use branch::{BRANCH_ANNOTATION_ID, BranchLinkError, BranchOf};
pub use history::{InteractionHistory, JsonObject, Role, Turn};
pub use metadata::{DataExchangeMetadata, ProcessInstance};
pub use number::JsonDecimal;
pub use simple_time::{
    AccuracyMode, SimpleTime, TimeFlags, TimeSegment, TimeUnit, absolute_date_time, segment_start,
};
