#![doc = include_str!("../README.md")]
//!
//! # The crate's layers
//!
//! Each module is one concern and uses only the modules above it in this list (see
//! `ARCHITECTURE.md`): [`model`], [`read`], [`check`], [`payload`], [`import`], [`rdf`],
//! [`query`], [`store`], [`ingest`], [`context`], [`memory`], [`integrity`], [`report`], [`generate`]. The names most programs need are
//! re-exported here.

pub mod check;
pub mod context;
pub mod generate;
pub mod import;
pub mod ingest;
pub mod integrity;
pub mod memory;
pub mod model;
pub mod payload;
pub mod query;
pub mod rdf;
pub mod read;
pub mod report;
#[cfg(feature = "serve")]
pub mod serve;
pub mod store;

pub use crate::check::{CheckOptions, check_document};
pub use crate::ingest::{Ingest, IngestError, IngestEvent, IngestSummary, append_turn};
pub use crate::model::InteractionHistory;
pub use crate::query::{Arguments, CannedQuery};
pub use crate::read::read_documents;
pub use crate::store::{ExportFormat, HistoryStore, SchemeRequest, StoreError};
