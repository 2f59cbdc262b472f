//! `backup`: a consistent copy of the store, made while it stays readable.

use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;
use std::path::Path;

pub fn run(store: &HistoryStore, target: &Path) -> Result<Status> {
    store.backup(target)?;
    println!("backed up to {}", target.display());
    Ok(Status::Success)
}
