//! `remember`, `memory` and `forget`: memory items made from turns.

use super::shape;
use crate::cli::{MemoryArgs, MemoryKindArg, RememberArgs};
use crate::output::print_results;
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::memory::{
    MemoryKind, Remember, forget as forget_item, memories_arguments, remember as remember_item,
};
use ihigraph::query::{MEMORIES, parse_date_time};
use oxsdatatypes::DateTime;

pub fn remember(store: &HistoryStore, args: &RememberArgs) -> Result<Status> {
    let request = Remember {
        session: args.session.clone(),
        turn: args.turn,
        kind: kind(args.kind),
        text: args.text.clone(),
        valid_from: args
            .valid_from
            .as_deref()
            .map(|t| time("--valid-from", t))
            .transpose()?,
        valid_until: args
            .valid_until
            .as_deref()
            .map(|t| time("--valid-until", t))
            .transpose()?,
    };
    let item = remember_item(store, &request, DateTime::now())?;
    println!(
        "{} {} {} from turn {} of session {:?} ({})",
        if item.created {
            "remembered"
        } else {
            "added a source to"
        },
        request.kind,
        item.id,
        args.turn,
        args.session,
        item.item
    );
    Ok(Status::Success)
}

pub fn list(store: &HistoryStore, args: &MemoryArgs) -> Result<Status> {
    let mut arguments = memories_arguments(args.session.as_deref(), args.kind.map(kind));
    if let Some(at) = &args.at {
        arguments = arguments.date_time("at", time("--at", at)?);
    }
    print_results(store, store.run(&MEMORIES, &arguments)?, shape(args.format))
}

pub fn forget(store: &HistoryStore, item: &str) -> Result<Status> {
    let node = forget_item(store, item)?;
    println!("forgot {item} ({node})");
    Ok(Status::Success)
}

fn kind(arg: MemoryKindArg) -> MemoryKind {
    match arg {
        MemoryKindArg::Fact => MemoryKind::Fact,
        MemoryKindArg::Decision => MemoryKind::Decision,
        MemoryKindArg::Lesson => MemoryKind::Lesson,
    }
}

fn time(flag: &str, text: &str) -> Result<DateTime, UsageError> {
    parse_date_time(text).ok_or_else(|| {
        UsageError(format!(
            "{flag}: {text:?} is not a time (expected RFC 3339, 2026-03-14T08:00:00Z, or a date, 2026-03-14)"
        ))
    })
}
