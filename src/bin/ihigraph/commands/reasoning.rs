//! `reasoning on|off`: what the ontologies entail about every session kept beside the
//! store, in step with it, or removed; without an argument, whether it is on.

use super::{store_location, with_flags};
use crate::cli::{StoreArgs, Switch};
use crate::output::plural;
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::store::INFERRED_DIRECTORY;

pub fn run(args: &StoreArgs, state: Option<Switch>) -> Result<Status> {
    if args.memory || args.endpoint.is_some() {
        return Err(UsageError(
            "reasoning is kept beside a store directory: a store in memory or on a server cannot keep it (give --store DIR)"
                .to_owned(),
        )
        .into());
    }
    let (directory, request) = store_location(args)?;
    let Some(state) = state else {
        let store = HistoryStore::open(&directory, &request).map_err(with_flags)?;
        let state = if store.reasons() { "on" } else { "off" };
        println!("reasoning is {state} for {}", store.location());
        return Ok(Status::Success);
    };
    let on = state == Switch::On;
    let started = std::time::Instant::now();
    let store = HistoryStore::set_reasoning(&directory, &request, on).map_err(with_flags)?;
    if on {
        let sessions = store.session_count()?;
        println!(
            "reasoning is on: {sessions} session{} and what they entail in {} ({:.1} s)",
            plural(sessions),
            directory.join(INFERRED_DIRECTORY).display(),
            started.elapsed().as_secs_f64()
        );
    } else {
        println!("reasoning is off for {}", store.location());
    }
    Ok(Status::Success)
}
