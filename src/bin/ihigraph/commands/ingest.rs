//! `ingest`: check documents and store their sessions; Ctrl-C or SIGTERM stops after the
//! session being written.

use super::check_options;
use crate::cli::CheckArgs;
use crate::output::{print_ingest_event, print_ingest_summary};
use crate::status::Status;
use anyhow::{Context, Result};
use ihigraph::{HistoryStore, Ingest};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub fn run(store: &HistoryStore, args: &CheckArgs, batch_quads: usize) -> Result<Status> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    let summary = Ingest::new(store)
        .check(check_options(args))
        .batch_quads(batch_quads)
        .cancel_on(&interrupted)
        .run_paths(&args.paths, print_ingest_event)?;
    let status = print_ingest_summary(&summary);
    if summary.interrupted {
        let place = summary.last.as_ref().map_or_else(
            || "before the first document".to_owned(),
            |origin| format!("after {origin}"),
        );
        eprintln!(
            "interrupted {place}: every session up to there is stored whole, nothing after it"
        );
        return Ok(Status::Interrupted);
    }
    Ok(status)
}
