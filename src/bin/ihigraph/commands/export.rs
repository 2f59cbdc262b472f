//! `export`: the stored sessions as RDF, or as PGM-IHI documents rebuilt from their graphs.

use crate::cli::{ExportArgs, RdfExportFormat};
use crate::status::Status;
use anyhow::Result;
use ihigraph::{ExportFormat, HistoryStore};
use std::io::{self, BufWriter, Write};

pub fn run(store: &HistoryStore, args: &ExportArgs) -> Result<Status> {
    let format = match args.format {
        RdfExportFormat::Trig => ExportFormat::TriG,
        RdfExportFormat::Nquads => ExportFormat::NQuads,
        RdfExportFormat::Turtle => ExportFormat::Turtle,
        RdfExportFormat::Jsonld => ExportFormat::JsonLd,
        RdfExportFormat::PgmIhi => return documents(store, args.session.as_deref()),
    };
    let out = BufWriter::new(io::stdout().lock());
    store.export(out, format, args.session.as_deref())?;
    Ok(Status::Success)
}

/// PGM-IHI documents rebuilt from the graphs: one, indented, or all as JSON Lines.
fn documents(store: &HistoryStore, session: Option<&str>) -> Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    if let Some(id) = session {
        serde_json::to_writer_pretty(&mut out, &store.history(id)?)?;
        writeln!(out)?;
    } else {
        let mut ids: Vec<String> = store.sessions()?.into_iter().map(|(id, _)| id).collect();
        ids.sort();
        for id in ids {
            serde_json::to_writer(&mut out, &store.history(&id)?)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(Status::Success)
}
