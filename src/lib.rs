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
pub mod reason;
pub mod report;
#[cfg(feature = "serve")]
pub mod serve;
pub mod store;

/// The guides in `docs/`, compiled by `cargo test --doc` as the README is above, so that
/// their Rust examples run (`tests/docs.rs` checks that every page is here).
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../docs/context.md")]
    struct Context;
    #[doc = include_str!("../docs/dependencies.md")]
    struct Dependencies;
    #[doc = include_str!("../docs/development.md")]
    struct Development;
    #[doc = include_str!("../docs/formats.md")]
    struct Formats;
    #[doc = include_str!("../docs/guarantees.md")]
    struct Guarantees;
    #[doc = include_str!("../docs/integrity.md")]
    struct Integrity;
    #[doc = include_str!("../docs/library.md")]
    struct Library;
    #[doc = include_str!("../docs/lifecycle.md")]
    struct Lifecycle;
    #[doc = include_str!("../docs/memory.md")]
    struct Memory;
    #[doc = include_str!("../docs/ontology.md")]
    struct Ontology;
    #[doc = include_str!("../docs/otel.md")]
    struct Otel;
    #[doc = include_str!("../docs/performance.md")]
    struct Performance;
    #[doc = include_str!("../docs/operators.md")]
    struct Operators;
    #[doc = include_str!("../docs/python.md")]
    struct Python;
    #[doc = include_str!("../docs/queries.md")]
    struct Queries;
    #[doc = include_str!("../docs/reasoning.md")]
    struct Reasoning;
    #[doc = include_str!("../docs/retention.md")]
    struct Retention;
    #[doc = include_str!("../docs/remote.md")]
    struct Remote;
    #[doc = include_str!("../docs/shapes.md")]
    struct Shapes;
    #[doc = include_str!("../docs/report.md")]
    struct Report;
    #[doc = include_str!("../docs/search.md")]
    struct Search;
    #[doc = include_str!("../docs/serving.md")]
    struct Serving;
}

pub use crate::check::{CheckOptions, check_document};
pub use crate::ingest::{Ingest, IngestError, IngestEvent, IngestSummary, append_turn};
pub use crate::model::InteractionHistory;
pub use crate::query::{Arguments, CannedQuery};
pub use crate::read::read_documents;
pub use crate::store::{ExportFormat, HistoryStore, SchemeRequest, SearchRequest, StoreError};
