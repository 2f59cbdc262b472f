//! Exit statuses, and which error gives which.

use ihigraph::StoreError;
use ihigraph::context::ContextError;
use ihigraph::ingest::IngestError;
use ihigraph::integrity::IntegrityError;
use ihigraph::memory::MemoryError;
use ihigraph::query::ParameterError;
use ihigraph::rdf::ShapesError;
use ihigraph::store::RemoteError;
use std::io;
use std::process::ExitCode;

/// A command line that is well-formed but asks for something impossible.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Exit statuses, as documented in the README's "Exit codes".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything worked.
    Success = 0,
    /// Input was refused.
    Refused = 1,
    /// The command line or a setting is wrong.
    Usage = 2,
    /// The store or the system failed.
    Failure = 3,
    /// Stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
    Interrupted = 130,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        Self::from(status as u8)
    }
}

/// A reader that stopped reading (`ihigraph export | head`) is not an error.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The status an error exits with: the first cause that says.
pub fn of(error: &anyhow::Error) -> Status {
    for cause in error.chain() {
        if let Some(store_error) = cause.downcast_ref::<StoreError>() {
            return of_store_error(store_error);
        }
        // Transparent variants hide their inner error from the chain: look inside.
        match cause.downcast_ref::<IngestError>() {
            Some(IngestError::Refused { .. }) => return Status::Refused,
            Some(IngestError::Store(store_error)) => return of_store_error(store_error),
            Some(IngestError::Batch(batch)) => return of_store_error(&batch.source),
            _ => {}
        }
        match cause.downcast_ref::<MemoryError>() {
            Some(MemoryError::Store(store_error)) => return of_store_error(store_error),
            Some(MemoryError::UnknownKind(_) | MemoryError::EmptyValidity { .. }) => {
                return Status::Usage;
            }
            Some(_) => return Status::Refused,
            None => {}
        }
        match cause.downcast_ref::<ContextError>() {
            Some(ContextError::BudgetTooSmall { .. }) => return Status::Usage,
            Some(ContextError::Store(store_error)) => return of_store_error(store_error),
            _ => {}
        }
        if let Some(ihigraph::report::ReportError::Store(store_error)) = cause.downcast_ref() {
            return of_store_error(store_error);
        }
        match cause.downcast_ref::<IntegrityError>() {
            Some(IntegrityError::Store(store_error)) => return of_store_error(store_error),
            Some(IntegrityError::ExportFormat { .. }) => return Status::Usage,
            Some(
                IntegrityError::ExportSyntax { .. }
                | IntegrityError::ExportDocument { .. }
                | IntegrityError::ExportInvalid { .. },
            ) => return Status::Refused,
            _ => {}
        }
        if let Some(IntegrityError::Shapes(shapes_error)) = cause.downcast_ref() {
            return of_shapes_error(shapes_error);
        }
        if let Some(shapes_error) = cause.downcast_ref::<ShapesError>() {
            return of_shapes_error(shapes_error);
        }
        if cause.downcast_ref::<UsageError>().is_some()
            || cause.downcast_ref::<ParameterError>().is_some()
        {
            return Status::Usage;
        }
    }
    Status::Failure
}

fn of_store_error(error: &StoreError) -> Status {
    match error {
        StoreError::Remote(
            RemoteError::BadUrl { .. }
            | RemoteError::CredentialsInUrl { .. }
            | RemoteError::BasicOverHttp { .. },
        ) => Status::Usage,
        StoreError::Remote(RemoteError::Status { status, .. }) if *status == 400 => Status::Refused,
        StoreError::QuerySyntax(_)
        | StoreError::TooDeep(_)
        | StoreError::QueryEvaluation(_)
        | StoreError::UpdateEvaluation(_)
        | StoreError::DatasetConflict
        | StoreError::NotOtherGraph { .. }
        | StoreError::SessionOutsideItsGraph { .. }
        | StoreError::BaseIri { .. }
        | StoreError::UnknownSession { .. }
        | StoreError::SearchQuery { .. }
        | StoreError::Retrieve(_) => Status::Refused,
        StoreError::SchemeConflict { .. }
        | StoreError::Scheme(_)
        | StoreError::SingleGraphFormat { .. }
        | StoreError::UpdateNotAllowed
        | StoreError::Unsupported { .. }
        | StoreError::NoSearchIndex { .. }
        | StoreError::NotReasoning { .. }
        | StoreError::NoReasoning { .. }
        | StoreError::TenantName { .. }
        | StoreError::AccessRole { .. }
        | StoreError::UnknownTenant { .. }
        | StoreError::TenantExists { .. }
        | StoreError::UnknownToken { .. }
        | StoreError::NoTenants { .. }
        | StoreError::Parameter(_) => Status::Usage,
        _ => Status::Failure,
    }
}

fn of_shapes_error(error: &ShapesError) -> Status {
    match error {
        ShapesError::Syntax { .. } | ShapesError::NotShacl { .. } => Status::Refused,
        ShapesError::UnknownFormat { .. } => Status::Usage,
        _ => Status::Failure,
    }
}
