//! `search` and `reindex`: the full-text index beside the store.

use super::shape;
use crate::cli::{RoleArg, SearchArgs, SearchKindArg};
use crate::output::{plural, print_results};
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::query::parse_date_time;
use ihigraph::store::SearchKind;
use ihigraph::{HistoryStore, SearchRequest};

pub fn run(store: &HistoryStore, args: &SearchArgs) -> Result<Status> {
    let request = SearchRequest {
        query: args.query.clone(),
        session: args.session.clone(),
        role: args.role.map(|role| role_name(role).to_owned()),
        since: args
            .since
            .as_deref()
            .map(|t| time("--since", t))
            .transpose()?,
        until: args
            .until
            .as_deref()
            .map(|t| time("--until", t))
            .transpose()?,
        kinds: args.kind.iter().copied().map(kind).collect(),
        limit: args.limit,
    };
    print_results(store, store.search_results(&request)?, shape(args.format))
}

pub fn reindex(store: &HistoryStore) -> Result<Status> {
    let sessions = store.reindex()?;
    let location = store
        .search_index()
        .map_or_else(String::new, |index| index.location().to_owned());
    println!(
        "indexed {sessions} session{} in {location}",
        plural(sessions)
    );
    Ok(Status::Success)
}

fn role_name(role: RoleArg) -> &'static str {
    match role {
        RoleArg::HUser => "H-User",
        RoleArg::AUser => "A-User",
        RoleArg::Bkn => "BKN",
    }
}

fn kind(arg: SearchKindArg) -> SearchKind {
    match arg {
        SearchKindArg::Prompt => SearchKind::Prompt,
        SearchKindArg::Answer => SearchKind::Answer,
        SearchKindArg::Call => SearchKind::Call,
        SearchKindArg::Result => SearchKind::Result,
        SearchKindArg::Memory => SearchKind::Memory,
    }
}

/// A time of the command line as the index reads it (`xsd:dateTime`).
fn time(flag: &str, text: &str) -> Result<String, UsageError> {
    parse_date_time(text).map(|time| time.to_string()).ok_or_else(|| {
        UsageError(format!(
            "{flag}: {text:?} is not a time (expected RFC 3339, 2026-03-14T08:00:00Z, or a date, 2026-03-14)"
        ))
    })
}
