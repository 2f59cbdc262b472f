//! `report`: the sessions as one self-contained HTML page of charts and tables.

use crate::cli::ReportArgs;
use crate::files::NewFile;
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::query::parse_date_time;
use ihigraph::report::{ReportOptions, report};
use std::io::Write;
use std::time::Instant;

pub fn run(store: &HistoryStore, args: &ReportArgs) -> Result<Status> {
    let time = |flag: &str, value: &Option<String>| -> Result<_> {
        value
            .as_deref()
            .map(|text| {
                parse_date_time(text).ok_or_else(|| {
                    UsageError(format!(
                        "{flag} {text}: expected an RFC 3339 time (2026-01-31T12:00:00Z) or a date (2026-01-31)"
                    ))
                })
            })
            .transpose()
            .map_err(Into::into)
    };
    let options = ReportOptions {
        since: time("--since", &args.since)?,
        until: time("--until", &args.until)?,
        sessions: args.sessions.clone(),
    };
    let started = Instant::now();
    let page = report(store, &options)?;
    if args.out.as_os_str() == "-" {
        std::io::stdout().lock().write_all(page.as_bytes())?;
        return Ok(Status::Success);
    }
    // Written beside the target and moved into place: never half a page.
    let mut file = NewFile::create(&args.out)?;
    file.write_all(page.as_bytes())?;
    file.commit()?;
    eprintln!(
        "wrote {} ({} KiB) in {:.1} s",
        args.out.display(),
        page.len().div_ceil(1024),
        started.elapsed().as_secs_f64()
    );
    Ok(Status::Success)
}
