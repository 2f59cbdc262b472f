//! `hash` and `verify`: the sessions' fingerprints (SHA-256 of the RDFC-1.0 canonical
//! N-Quads of each session's graph), printed, recorded, and checked against what was
//! recorded when the sessions were written, or against an export.

use crate::cli::{HashArgs, VerifyArgs};
use crate::output::{compact, plural};
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::integrity::{
    SessionCheck, Status as Found, fingerprint_sessions, verify, verify_against,
};
use ihigraph::rdf::PredicateChange;
use ihigraph::{HistoryStore, StoreError};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// How many differing triples `verify --against` prints per predicate.
const LINES_SHOWN: usize = 5;

pub fn hash(store: &HistoryStore, args: &HashArgs) -> Result<Status> {
    let sessions: Vec<(String, oxrdf::NamedNode)> = if args.all {
        store.sessions()?
    } else if args.sessions.is_empty() {
        return Err(UsageError("give the sessions to hash, or --all".to_owned()).into());
    } else {
        args.sessions
            .iter()
            .map(|id| (id.clone(), store.scheme().session_graph(id)))
            .collect()
    };
    let prints = fingerprint_sessions(store, &sessions, &|_, _| {})?;
    if let Some(((id, _), _)) = sessions
        .iter()
        .zip(&prints)
        .find(|(_, print)| print.quads == 0)
    {
        return Err(StoreError::UnknownSession {
            session_id: id.clone(),
        }
        .into());
    }
    let mut out = std::io::stdout().lock();
    if args.record {
        let taken = sessions
            .iter()
            .cloned()
            .zip(prints)
            .map(|((id, graph), print)| (id, graph, print))
            .collect();
        for record in store.record_taken(taken)? {
            writeln!(out, "{}  {}", record.fingerprint.digest, record.session_id)?;
        }
        eprintln!(
            "recorded the fingerprint{} of {} session{}",
            plural(sessions.len()),
            sessions.len(),
            plural(sessions.len())
        );
        return Ok(Status::Success);
    }
    for ((id, _), print) in sessions.iter().zip(prints) {
        writeln!(out, "{}  {id}", print.digest)?;
    }
    Ok(Status::Success)
}

pub fn verify_store(store: &HistoryStore, args: &VerifyArgs) -> Result<Status> {
    let started = Instant::now();
    let report = match &args.against {
        Some(path) => verify_against(store, path, &args.sessions)?,
        None => {
            let terminal = std::io::stderr().is_terminal();
            let progress = |done: usize, total: usize| {
                if terminal && (done.is_multiple_of(100) || done == total) {
                    eprint!("\rverifying {done}/{total}");
                }
            };
            let report = verify(store, &args.sessions, &progress)?;
            if terminal {
                eprint!("\r\x1b[K");
            }
            report
        }
    };
    let base = store.scheme().base();
    let mut out = std::io::stdout().lock();
    for check in report.failures() {
        print_check(&mut out, check, base)?;
    }
    let failed = report.failures().count();
    let whole = report.checks.len();
    writeln!(
        out,
        "{} of {whole} session{} hold{} ({:.1} s){}",
        whole - failed,
        plural(whole),
        if whole - failed == 1 { "s" } else { "" },
        started.elapsed().as_secs_f64(),
        match &args.against {
            Some(path) => format!(", compared with {}", path.display()),
            None => ", compared with their recorded fingerprints".to_owned(),
        }
    )?;
    Ok(if report.holds() {
        Status::Success
    } else {
        Status::Refused
    })
}

fn print_check(out: &mut impl Write, check: &SessionCheck, base: &str) -> std::io::Result<()> {
    let id = &check.session_id;
    match &check.status {
        Found::Intact => Ok(()),
        Found::Changed {
            recorded,
            now,
            changes,
        } => {
            writeln!(
                out,
                "{id}: changed since {} ({} quads then, {} now; recorded {}, now {})",
                recorded.taken_at,
                recorded.fingerprint.quads,
                now.quads,
                short(&recorded.fingerprint.digest),
                short(&now.digest)
            )?;
            print_changes(out, changes, base)
        }
        Found::Unrecorded { now } => writeln!(
            out,
            "{id}: no fingerprint recorded for graph <{}> (now {}); `ihigraph hash --record {id}` records it as it is",
            check.graph,
            short(&now.digest)
        ),
        Found::Moved { to, same_triples } => writeln!(
            out,
            "{id}: its graph <{}> is gone; graph <{}> now holds the session, {}",
            check.graph.as_str(),
            to.as_str(),
            if *same_triples {
                "with the recorded triples"
            } else {
                "with other triples"
            }
        ),
        Found::Missing { recorded } => writeln!(
            out,
            "{id}: its graph <{}> is gone (fingerprint recorded {})",
            check.graph.as_str(),
            recorded.taken_at
        ),
        Found::OnlyIn { store: true } => writeln!(out, "{id}: in the store, not in the export"),
        Found::OnlyIn { store: false } => writeln!(out, "{id}: in the export, not in the store"),
        Found::Differs { added, removed } => {
            writeln!(out, "{id}: differs from the export")?;
            print_lines(out, "+", added, base)?;
            print_lines(out, "-", removed, base)
        }
    }
}

/// What changed in a session's graph, predicate by predicate.
fn print_changes(
    out: &mut impl Write,
    changes: &[PredicateChange],
    base: &str,
) -> std::io::Result<()> {
    for change in changes {
        let predicate = compact(&change.predicate, base);
        let what = if change.values_changed() {
            let count = change.after;
            format!("values changed among its {count} triple{}", plural(count))
        } else if change.after > change.before {
            let added = change.after - change.before;
            format!("{added} triple{} added", plural(added))
        } else {
            let removed = change.before - change.after;
            format!("{removed} triple{} removed", plural(removed))
        };
        writeln!(
            out,
            "  {predicate}: {what} ({} before, {} now)",
            change.before, change.after
        )?;
    }
    Ok(())
}

/// The triples on one side only (`+` the store's, `-` the export's), by predicate.
fn print_lines(
    out: &mut impl Write,
    sign: &str,
    lines: &BTreeMap<String, Vec<String>>,
    base: &str,
) -> std::io::Result<()> {
    let side = if sign == "+" {
        "only in the store"
    } else {
        "only in the export"
    };
    for (predicate, lines) in lines {
        let (count, predicate) = (lines.len(), compact(predicate, base));
        writeln!(
            out,
            "  {sign} {predicate}: {count} triple{} {side}",
            plural(count)
        )?;
        for line in lines.iter().take(LINES_SHOWN) {
            writeln!(out, "    {sign} {line}")?;
        }
        if count > LINES_SHOWN {
            writeln!(out, "    … and {} more", count - LINES_SHOWN)?;
        }
    }
    Ok(())
}

/// The first 12 hex digits of a digest, as `git` shortens commits.
fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}
