//! The `ihigraph` command. Exit codes: 0 success, 1 input refused (a document failed its
//! checks, a query is invalid, a session is unknown), 2 usage error (bad arguments, a
//! setting that conflicts with the store's), 3 failure of the store or the system, 130
//! interrupted (Ctrl-C) after the session being written.

mod cli;
mod commands;
mod output;

use clap::Parser;
use ihigraph::StoreError;
use std::io;
use std::process::ExitCode;

/// Exit statuses, as documented in the README.
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

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let status = if error.use_stderr() {
                Status::Usage
            } else {
                Status::Success
            };
            // Printing help or a usage error can only fail on a closed stream.
            let _ = error.print();
            return status.into();
        }
    };
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(error) if is_broken_pipe(&error) => Status::Success.into(),
        Err(error) => {
            eprintln!("ihigraph: error: {error:#}");
            status_of(&error).into()
        }
    }
}

/// A reader that stopped reading (`ihigraph export | head`) is not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn status_of(error: &anyhow::Error) -> Status {
    for cause in error.chain() {
        if let Some(store_error) = cause.downcast_ref::<StoreError>() {
            return match store_error {
                StoreError::QuerySyntax(_)
                | StoreError::QueryEvaluation(_)
                | StoreError::UpdateEvaluation(_)
                | StoreError::UnknownSession { .. }
                | StoreError::Refused { .. }
                | StoreError::Retrieve(_) => Status::Refused,
                StoreError::SchemeConflict { .. }
                | StoreError::Scheme(_)
                | StoreError::SingleGraphFormat { .. }
                | StoreError::UpdateNotAllowed
                | StoreError::Parameter(_) => Status::Usage,
                _ => Status::Failure,
            };
        }
        if cause.downcast_ref::<commands::UsageError>().is_some()
            || cause.downcast_ref::<ihigraph::ParameterError>().is_some()
        {
            return Status::Usage;
        }
    }
    Status::Failure
}
