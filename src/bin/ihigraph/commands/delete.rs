//! `delete`: a session, or every session.

use super::plural;
use crate::cli::DeleteArgs;
use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;

pub fn run(store: &HistoryStore, args: &DeleteArgs) -> Result<Status> {
    if let Some(id) = &args.target.session {
        store.delete_session(id)?;
        println!("deleted session {id:?}");
    } else {
        let count = store.delete_all_sessions()?;
        println!("deleted {count} session{}", plural(count));
    }
    Ok(Status::Success)
}
