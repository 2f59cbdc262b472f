//! `ontology`: both ontologies, as Turtle.

use crate::status::Status;
use anyhow::Result;
use ihigraph::rdf::{CONVERSATION_HISTORY_TTL, IHIGRAPH_TTL};
use std::io::{self, Write};

pub fn run() -> Result<Status> {
    let mut out = io::stdout().lock();
    out.write_all(CONVERSATION_HISTORY_TTL.as_bytes())?;
    writeln!(out)?;
    out.write_all(IHIGRAPH_TTL.as_bytes())?;
    out.flush()?;
    Ok(Status::Success)
}
