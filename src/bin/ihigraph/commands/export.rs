//! `export`: the stored sessions as RDF, or as PGM-IHI documents rebuilt from their graphs.

use crate::cli::{ExportArgs, RdfExportFormat};
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::integrity::note_fingerprint;
use ihigraph::{ExportFormat, HistoryStore};
use std::io::{self, BufWriter, Write};

pub fn run(store: &HistoryStore, args: &ExportArgs) -> Result<Status> {
    let format = match args.format {
        RdfExportFormat::Trig => ExportFormat::TriG,
        RdfExportFormat::Nquads => ExportFormat::NQuads,
        RdfExportFormat::Turtle => ExportFormat::Turtle,
        RdfExportFormat::Jsonld => ExportFormat::JsonLd,
        RdfExportFormat::PgmIhi => return documents(store, args),
    };
    if args.fingerprint {
        return Err(UsageError("--fingerprint goes with --format pgm-ihi".to_owned()).into());
    }
    let out = BufWriter::new(io::stdout().lock());
    store.export(out, format, args.session.as_deref())?;
    Ok(Status::Success)
}

/// PGM-IHI documents rebuilt from the graphs: one, indented, or all as JSON Lines; with
/// each graph's fingerprint in its Data Exchange Metadata, if asked for.
fn documents(store: &HistoryStore, args: &ExportArgs) -> Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    let ids = match &args.session {
        Some(id) => vec![id.clone()],
        None => {
            let mut ids: Vec<String> = store.sessions()?.into_iter().map(|(id, _)| id).collect();
            ids.sort();
            ids
        }
    };
    for id in &ids {
        let mut history = store.history(id)?;
        if args.fingerprint {
            let (_, print) = store.session_fingerprint(id)?;
            if !note_fingerprint(&mut history, &print) {
                eprintln!(
                    "{id}: exported without its fingerprint: its DataXMData.DescrMetadata, the one place the standard leaves for it, holds text already"
                );
            }
        }
        if args.session.is_some() {
            serde_json::to_writer_pretty(&mut out, &history)?;
        } else {
            serde_json::to_writer(&mut out, &history)?;
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(Status::Success)
}
