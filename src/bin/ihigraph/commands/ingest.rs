//! `ingest`: check documents (PGM-IHI, or converted from another format) and store their
//! sessions; Ctrl-C or SIGTERM stops after the session being written.

use super::{any_import_option, check_options, import_choice, import_options};
use crate::cli::IngestArgs;
use crate::output::{plural, print_ingest_event, print_ingest_summary, print_watch_event};
use crate::status::{Status, UsageError};
use anyhow::{Context, Result};
use ihigraph::ingest::Watch;
use ihigraph::{HistoryStore, Ingest};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub fn run(store: &HistoryStore, args: &IngestArgs) -> Result<Status> {
    if args.from == "pgm-ihi" && any_import_option(&args.import) {
        return Err(UsageError(
            "--session-id, --derive-ids, --start-time, --timezone, --instance-id and --environment-id are for converted formats: give --from FORMAT".to_owned(),
        )
        .into());
    }
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    if args.watch {
        return watch(store, args, &interrupted);
    }
    let ingest = Ingest::new(store)
        .check(check_options(&args.check))
        .batch_quads(args.batch_quads)
        .cancel_on(&interrupted);
    let summary = if args.from == "pgm-ihi" {
        ingest.run_paths(&args.check.paths, print_ingest_event)?
    } else {
        let choice = import_choice(&args.from)?;
        let options = import_options(&args.import)?;
        ingest.run_import(&args.check.paths, choice, &options, print_ingest_event)?
    };
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

/// `ingest --watch`: the store kept in step with the paths until Ctrl-C or SIGTERM.
fn watch(store: &HistoryStore, args: &IngestArgs, stop: &AtomicBool) -> Result<Status> {
    if args.from == "pgm-ihi" {
        return Err(UsageError(
            "--watch reads transcripts as agents write them: give --from FORMAT or --from auto"
                .to_owned(),
        )
        .into());
    }
    let mut watch = Watch::new(store, import_choice(&args.from)?, stop)
        .import_options(import_options(&args.import)?);
    if let Some(seconds) = args.poll {
        watch = watch.poll_every(Duration::from_secs(seconds));
    }
    let summary = watch.run(&args.check.paths, print_watch_event)?;
    eprintln!(
        "stopped watching: {} file{} seen, {} session write{}, {} new turn{}",
        summary.files,
        plural(summary.files),
        summary.writes,
        plural(summary.writes),
        summary.new_turns,
        plural(summary.new_turns)
    );
    Ok(Status::Success)
}
