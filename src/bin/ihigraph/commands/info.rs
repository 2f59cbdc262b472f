//! `info`: where the store is, its IRI scheme, its sessions and quads.

use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::query::CANNED_QUERIES;

pub fn run(store: &HistoryStore) -> Result<Status> {
    let location = store.location();
    let location = if location == "memory" {
        "(in memory)".to_owned()
    } else {
        location
    };
    println!("store:        {location}");
    println!("IRI base:     {}", store.scheme().base());
    println!("session IRIs: {}", store.scheme().session_template());
    println!("sessions:     {}", store.session_count()?);
    println!("quads:        {}", store.quad_count()?);
    println!(
        "queries:      {}",
        CANNED_QUERIES
            .iter()
            .map(|q| q.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(Status::Success)
}
