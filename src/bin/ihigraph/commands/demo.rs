//! `demo`: the bundled example histories ingested, then their recent turns and tool calls.

use crate::output::{Shape, print_ingest_event, print_ingest_summary, write_results};
use crate::status::Status;
use anyhow::Result;
use ihigraph::query::{RECENT_TURNS, TOOL_USAGE};
use ihigraph::read::{InputDocument, Origin, parse_json};
use ihigraph::{Arguments, HistoryStore, Ingest};
use std::io::{self, BufWriter, Write};

/// The bundled example histories, embedded so that `demo` needs no files.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "examples/histories/trip-planning.json",
        include_str!("../../../../examples/histories/trip-planning.json"),
    ),
    (
        "examples/histories/code-review-abc.json",
        include_str!("../../../../examples/histories/code-review-abc.json"),
    ),
    (
        "examples/histories/support-ticket-fr.json",
        include_str!("../../../../examples/histories/support-ticket-fr.json"),
    ),
    (
        "examples/histories/research-notes.json",
        include_str!("../../../../examples/histories/research-notes.json"),
    ),
];

pub fn run(store: &HistoryStore) -> Result<Status> {
    let documents = EXAMPLES.iter().map(|(name, text)| InputDocument {
        origin: Origin {
            name: (*name).to_owned(),
            line: None,
        },
        value: parse_json(text.as_bytes()),
    });
    let mut sessions = Vec::new();
    let summary = Ingest::new(store).run(documents, |event| {
        if let ihigraph::IngestEvent::Prepared(document) = &event
            && let Some(session) = &document.session
        {
            sessions.push(session.session_id.clone());
        }
        print_ingest_event(event);
    })?;
    let status = print_ingest_summary(&summary);
    println!("store: {}\n", store.location());
    let mut out = BufWriter::new(io::stdout().lock());
    for session in &sessions {
        let arguments = Arguments::new().text("session", session.as_str());
        for (query, what) in [(RECENT_TURNS, "recent turns"), (TOOL_USAGE, "tool calls")] {
            writeln!(
                out,
                "Session {session:?}: {what} (ihigraph query {} --param session={session})",
                query.name
            )?;
            let results = store.run(&query, &arguments)?;
            write_results(results, Shape::Table, store.scheme().base(), &mut out)?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "Try: ihigraph queries; ihigraph query tool-stats; ihigraph query search --param text=paris"
    )?;
    out.flush()?;
    Ok(status)
}
