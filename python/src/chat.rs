//! A LangChain chat history as a session: the messages (`messages_to_dict` dicts) go
//! through the library's LangChain importer, so a session written by the adapter is the
//! session `ingest --from langchain` makes of the same messages: each AI message one turn,
//! its `BKNResponse` the message as written, the messages before it the turn's prompt
//! (`{"messages": [...]}`), messages after the last AI message a last turn awaiting its
//! response. Read back, the turns give the messages in order, unchanged.

use crate::errors;
use ihigraph::HistoryStore;
use ihigraph::StoreError;
use ihigraph::import::{Choice, ImportEvent, ImportOptions, import_bytes, importer};
use ihigraph::ingest::prepare_history;
use ihigraph::model::segment_start;
use ihigraph::read::Origin;
use oxsdatatypes::DateTime;
use pyo3::prelude::*;
use serde_json::Value;

/// The messages of the session, oldest first; none when it is not stored.
pub fn read_messages(store: &HistoryStore, session: &str) -> PyResult<Vec<Value>> {
    let history = match store.history(session) {
        Ok(history) => history,
        Err(StoreError::UnknownSession { .. }) => return Ok(Vec::new()),
        Err(error) => return Err(errors::store_error(&error)),
    };
    let mut messages = Vec::new();
    for turn in history.turns {
        if let Some(Value::Array(prompt)) = turn.prompt.get("messages") {
            messages.extend(prompt.iter().cloned());
        }
        if !turn.response.is_empty() {
            messages.push(Value::Object(turn.response));
        }
    }
    Ok(messages)
}

/// When the session started: as stored, or now for a new one. LangChain messages carry no
/// times, so the session keeps the time it was first written, and a rewrite keeps it.
fn start_time(store: &HistoryStore, session: &str) -> PyResult<String> {
    match store.history(session) {
        Ok(history) => Ok(history
            .session_start_time
            .segments
            .first()
            .and_then(segment_start)
            .unwrap_or_else(|| DateTime::now().to_string())),
        Err(StoreError::UnknownSession { .. }) => Ok(DateTime::now().to_string()),
        Err(error) => Err(errors::store_error(&error)),
    }
}

/// Stores `messages` as the whole session (replacing what it held); none deletes it.
pub fn write_messages(store: &HistoryStore, session: &str, messages: Value) -> PyResult<()> {
    let empty = messages.as_array().is_some_and(Vec::is_empty);
    if empty {
        return match ihigraph::memory::delete_session(store, session, false) {
            Ok(_) => Ok(()),
            Err(ihigraph::memory::MemoryError::Store(StoreError::UnknownSession { .. })) => Ok(()),
            Err(error) => Err(errors::memory_error(&error)),
        };
    }
    let langchain = importer("langchain").expect("the LangChain importer is bundled");
    let options = ImportOptions::default()
        .session_id(session)
        .start_time(&start_time(store, session)?)
        .map_err(|e| errors::usage(e.to_string()))?;
    let name = format!("<chat history {session}>");
    let bytes = serde_json::to_vec(&messages).map_err(|e| errors::usage(e.to_string()))?;
    let mut history = None;
    let mut refusal = None;
    import_bytes(
        &name,
        bytes,
        Choice::Format(langchain),
        &options,
        &mut |event| {
            match event {
                ImportEvent::Session { converted, .. } => history = Some(converted.history),
                ImportEvent::Refused { file, error } => {
                    refusal = Some(errors::conversion_error(file, &error.place, &error.message));
                }
                _ => {}
            }
            true
        },
    );
    if let Some(error) = refusal {
        return Err(error);
    }
    let history = history.ok_or_else(|| errors::usage("messages: no message to store"))?;
    let origin = Origin { name, line: None };
    let prepared = prepare_history(origin, &history, store.scheme());
    let graph = prepared
        .session
        .ok_or_else(|| errors::refused("refused", None, None, &prepared.diagnostics))?;
    store
        .write_session(&graph)
        .map_err(|error| errors::store_error(&error))?;
    Ok(())
}
