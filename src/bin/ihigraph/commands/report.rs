//! `report`: the sessions as one self-contained HTML page of charts and tables.

use crate::cli::ReportArgs;
use crate::status::{Status, UsageError};
use anyhow::{Context, Result};
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
    let directory = match args.out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => std::path::PathBuf::from("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(&directory)
        .with_context(|| format!("cannot write into {}", directory.display()))?;
    file.write_all(page.as_bytes())?;
    // A temporary file is made readable by its owner only; a report is for sharing.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    file.persist(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "wrote {} ({} KiB) in {:.1} s",
        args.out.display(),
        page.len().div_ceil(1024),
        started.elapsed().as_secs_f64()
    );
    Ok(Status::Success)
}
