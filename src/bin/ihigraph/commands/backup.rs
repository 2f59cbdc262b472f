//! `backup`: a copy of the store, made while it stays readable: the embedded store's own
//! copy into a directory, or every store's content into an N-Quads or TriG file.

use crate::files::NewFile;
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::{ExportFormat, HistoryStore};
use std::io::{BufWriter, Write};
use std::path::Path;

pub fn run(store: &HistoryStore, target: &Path) -> Result<Status> {
    let format = match target.extension().and_then(|extension| extension.to_str()) {
        Some("nq" | "nquads") => Some(ExportFormat::NQuads),
        Some("trig") => Some(ExportFormat::TriG),
        _ => None,
    };
    let Some(format) = format else {
        if !store.capabilities().backup {
            return Err(UsageError(format!(
                "{} cannot be copied into a directory: give a file ending in .nq or .trig",
                store.location()
            ))
            .into());
        }
        store.backup(target)?;
        println!("backed up to {}", target.display());
        return Ok(Status::Success);
    };
    if target.exists() {
        return Err(UsageError(format!("{} exists already", target.display())).into());
    }
    // Written beside the target and moved into place: nothing is left half-written.
    let mut file = NewFile::create(target)?;
    {
        let mut out = BufWriter::new(file.file());
        store.dump(&mut out, format)?;
        out.flush()?;
    }
    file.commit_new()?;
    println!("backed up to {}", target.display());
    Ok(Status::Success)
}
