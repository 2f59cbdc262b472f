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
use ihigraph::rdf::SessionGraph;
use ihigraph::read::Origin;
use oxsdatatypes::DateTime;
use pyo3::prelude::*;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// A chat as stored: its messages, oldest first, and when its session started.
pub struct Chat {
    messages: Vec<Value>,
    start_time: String,
}

/// The chats this store wrote last, each with the fingerprint digest it was recorded
/// with: a chat added to is taken from here, without reading its session back from the
/// store (rebuilding a session of 1,000 messages took longer than writing it), when the
/// store's record still has that digest. Every write of the library records the
/// fingerprint of what it wrote (`append`, `ingest`, `delete`, another chat), so none is
/// missed; a SPARQL update records none, and `Store.update` forgets every chat kept
/// (`forget_all`). Only on a store no one else writes (`Capabilities::exclusive`: on
/// disk or in memory; a server's other clients write unseen). At most [`CHATS_KEPT`].
/// Chat writes through one store take their turn (`writing`): each reads what the one
/// before wrote.
#[derive(Default)]
pub struct Written {
    chats: Mutex<HashMap<String, Kept>>,
    writing: Mutex<()>,
}

/// A chat as this store wrote it: the session graph written, with its fingerprint.
struct Kept {
    chat: Chat,
    graph: SessionGraph,
}

/// How many chats [`Written`] keeps (the ones written last): a chat of 1,000 messages
/// is about 20,000 quads.
const CHATS_KEPT: usize = 8;

impl Written {
    fn take(&self, store: &HistoryStore, session: &str) -> PyResult<Option<Kept>> {
        let Some(kept) = self.lock().remove(session) else {
            return Ok(None);
        };
        let recorded = store
            .fingerprint_record(session)
            .map_err(|error| errors::store_error(&error))?;
        let written = kept.graph.fingerprint.as_ref().map(|print| &print.digest);
        Ok(recorded
            .is_some_and(|record| Some(&record.fingerprint.digest) == written)
            .then_some(kept))
    }

    fn keep(&self, store: &HistoryStore, session: &str, kept: Kept) {
        if !store.capabilities().exclusive {
            return;
        }
        let mut chats = self.lock();
        if chats.len() >= CHATS_KEPT && !chats.contains_key(session) {
            // Any one goes: a chat not kept is read back from the store when added to.
            if let Some(other) = chats.keys().next().cloned() {
                chats.remove(&other);
            }
        }
        chats.insert(session.to_owned(), kept);
    }

    fn forget(&self, session: &str) {
        self.lock().remove(session);
    }

    /// Forgets every chat kept: the next add to each reads it back from the store.
    pub fn forget_all(&self) {
        self.lock().clear();
    }

    fn turn(&self) -> std::sync::MutexGuard<'_, ()> {
        // Nothing is held under this lock but the turn itself.
        self.writing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Kept>> {
        // A panic while the map was held leaves it whole: each call changes one entry.
        self.chats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The messages of the session, oldest first; none when it is not stored.
pub fn read_messages(store: &HistoryStore, session: &str) -> PyResult<Vec<Value>> {
    Ok(read_chat(store, session)?.map_or_else(Vec::new, |chat| chat.messages))
}

/// The sessions that hold a chat written as LangChain messages (`{type, data}`), in
/// the store's order; with `holding`, only those whose first message's `data` has that
/// member (the LlamaIndex chat store keeps each message whole there, under
/// `llama_index`). Each session is read back to tell: the graph does not say which
/// interface wrote a session.
pub fn chat_sessions(store: &HistoryStore, holding: Option<&str>) -> PyResult<Vec<String>> {
    let sessions = store
        .sessions()
        .map_err(|error| errors::store_error(&error))?;
    let mut chats = Vec::new();
    for (session, _) in sessions {
        let Some(chat) = read_chat(store, &session)? else {
            continue;
        };
        let data = chat.messages.first().and_then(|message| {
            message.get("type")?.as_str()?;
            message.get("data")?.as_object()
        });
        if data.is_some_and(|data| holding.is_none_or(|member| data.contains_key(member))) {
            chats.push(session);
        }
    }
    Ok(chats)
}

/// The chat stored in the session, read back from its graph; none when it is not stored.
fn read_chat(store: &HistoryStore, session: &str) -> PyResult<Option<Chat>> {
    let history = match store.history(session) {
        Ok(history) => history,
        Err(StoreError::UnknownSession { .. }) => return Ok(None),
        Err(error) => return Err(errors::store_error(&error)),
    };
    // LangChain messages carry no times: the session keeps the time it was first
    // written, and a rewrite keeps it.
    let start_time = history
        .session_start_time
        .segments
        .first()
        .and_then(segment_start)
        .unwrap_or_else(|| DateTime::now().to_string());
    let mut messages = Vec::new();
    for turn in history.turns {
        if let Some(Value::Array(prompt)) = turn.prompt.get("messages") {
            messages.extend(prompt.iter().cloned());
        }
        if !turn.response.is_empty() {
            messages.push(Value::Object(turn.response));
        }
    }
    Ok(Some(Chat {
        messages,
        start_time,
    }))
}

/// Adds `added` to the chat of the session (a new session when there is none), in one
/// write: the chat as this store last wrote it when its record says it is unchanged
/// since, else as read back from the store.
pub fn add_messages(
    store: &HistoryStore,
    written: &Written,
    session: &str,
    added: Vec<Value>,
) -> PyResult<()> {
    let _turn = written.turn();
    let (mut chat, previous) = match written.take(store, session)? {
        Some(Kept { chat, graph }) => (chat, Some(graph)),
        None => {
            let stored = read_chat(store, session)?.unwrap_or_else(|| Chat {
                messages: Vec::new(),
                start_time: DateTime::now().to_string(),
            });
            (stored, None)
        }
    };
    chat.messages.extend(added);
    let graph = chat_graph(store, session, &chat)?;
    match &previous {
        Some(previous) => store.write_session_over(previous, &graph).map(drop),
        None => write_whole(store, &graph),
    }
    .map_err(|error| errors::store_error(&error))?;
    written.keep(store, session, Kept { chat, graph });
    Ok(())
}

/// Stores `messages` as the whole chat of the session (replacing what it held, keeping
/// its start time); none deletes it.
pub fn set_messages(
    store: &HistoryStore,
    written: &Written,
    session: &str,
    messages: Vec<Value>,
) -> PyResult<()> {
    let _turn = written.turn();
    written.forget(session);
    if messages.is_empty() {
        return match ihigraph::memory::delete_session(store, session, false) {
            Ok(_) => Ok(()),
            Err(ihigraph::memory::MemoryError::Store(StoreError::UnknownSession { .. })) => Ok(()),
            Err(error) => Err(errors::memory_error(&error)),
        };
    }
    let start_time = match read_chat(store, session)? {
        Some(chat) => chat.start_time,
        None => DateTime::now().to_string(),
    };
    let chat = Chat {
        messages,
        start_time,
    };
    let graph = chat_graph(store, session, &chat)?;
    write_whole(store, &graph).map_err(|error| errors::store_error(&error))?;
    written.keep(store, session, Kept { chat, graph });
    Ok(())
}

/// Writes a session whole as `ingest` writes it: a new one through the store's bulk
/// loader (on disk, RocksDB's files made beside the store and added to it at once, where
/// a transaction inserts every key one by one: a new chat of 1,000 messages spent three
/// quarters of its time there), a stored one replaced.
fn write_whole(store: &HistoryStore, graph: &SessionGraph) -> Result<(), StoreError> {
    store.write_sessions(vec![graph.clone()]).map(drop)
}

/// The session graph of the chat, made by the LangChain importer, with its fingerprint
/// taken (the one the store records, and `Written` checks).
fn chat_graph(store: &HistoryStore, session: &str, chat: &Chat) -> PyResult<SessionGraph> {
    let langchain = importer("langchain").expect("the LangChain importer is bundled");
    let options = ImportOptions::default()
        .session_id(session)
        .start_time(&chat.start_time)
        .map_err(|e| errors::usage(e.to_string()))?;
    let name = format!("<chat history {session}>");
    let bytes = serde_json::to_vec(&chat.messages).map_err(|e| errors::usage(e.to_string()))?;
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
    let mut graph = prepared
        .session
        .ok_or_else(|| errors::refused("refused", None, None, &prepared.diagnostics))?;
    graph
        .take_fingerprint()
        .map_err(|error| errors::usage(error.to_string()))?;
    Ok(graph)
}
