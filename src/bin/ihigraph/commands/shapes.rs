//! `shapes`: the SHACL shapes of the data ihigraph writes, as Turtle.

use crate::status::Status;
use anyhow::Result;
use ihigraph::rdf::SHAPES;
use std::io::{self, Write};

pub fn run() -> Result<Status> {
    let mut out = io::stdout().lock();
    out.write_all(SHAPES.as_bytes())?;
    out.flush()?;
    Ok(Status::Success)
}
