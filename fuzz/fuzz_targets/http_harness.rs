//! What the HTTP targets share: each input is one HTTP/1.1 connection to the real router
//! (`ihigraph::serve::router`), through hyper's server connection over an in-memory
//! duplex pipe, on an in-memory store holding a few generated sessions and a memory
//! item, with a token (so that writes are tried too) and SPARQL updates allowed. Nothing
//! may panic, every connection must end, and no answer may be a 500.
//!
//! The store is made anew only after an input changed its number of quads (a write that
//! replaces a session by one of the same size goes unseen): making it takes longer than
//! most requests, and kept, the targets run several times faster.

use ihigraph::generate::{GenerateOptions, generate};
use ihigraph::memory::{MemoryKind, Remember, remember};
use ihigraph::rdf::{SessionGraph, map_history};
use ihigraph::serve::{RequestLog, ServeOptions, router};
use ihigraph::{CheckOptions, HistoryStore, check_document};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// The token the router is given.
pub const TOKEN: &str = "fuzz-token-0";

/// The ids of the stored sessions.
pub const SESSIONS: [&str; 3] = ["fuzz-0", "fuzz-1", "fuzz-2"];

/// How long one connection may take before it is left: an MCP event stream stays open
/// until the server stops.
const CONNECTION_TIME: Duration = Duration::from_secs(10);

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
});

/// The sessions, checked and mapped once.
static GRAPHS: LazyLock<Vec<SessionGraph>> = LazyLock::new(|| {
    let scheme = HistoryStore::in_memory(&Default::default())
        .expect("an in-memory store")
        .scheme()
        .clone();
    generate(GenerateOptions {
        sessions: SESSIONS.len(),
        seed: 7,
        min_turns: 2,
        max_turns: 6,
    })
    .zip(SESSIONS)
    .map(|(mut document, id)| {
        document["SessionID"] = id.into();
        let history = check_document(&document, CheckOptions::default())
            .history
            .expect("a generated document is valid");
        map_history(&history, &scheme)
    })
    .collect()
});

/// The store as the inputs find it, and its number of quads then.
static STORE: Mutex<Option<(Arc<HistoryStore>, usize)>> = Mutex::new(None);

/// The store, made anew when the last input changed it.
fn store() -> Arc<HistoryStore> {
    let mut kept = STORE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((store, quads)) = kept.as_ref()
        && store.quad_count().ok() == Some(*quads)
    {
        return Arc::clone(store);
    }
    let store = Arc::new(new_store());
    let quads = store.quad_count().expect("a count");
    *kept = Some((Arc::clone(&store), quads));
    store
}

/// A new store with the sessions and one memory item.
fn new_store() -> HistoryStore {
    let store = HistoryStore::in_memory(&Default::default()).expect("an in-memory store");
    store
        .write_sessions(GRAPHS.clone())
        .expect("the sessions are stored");
    let item = Remember {
        session: SESSIONS[0].to_owned(),
        turn: 0,
        kind: MemoryKind::Fact,
        text: "the build uses ccache".to_owned(),
        valid_from: None,
        valid_until: None,
    };
    remember(&store, &item, oxsdatatypes::DateTime::now()).expect("remembered");
    store
}

/// Sends `input` as one connection and gives back what the server answered.
pub fn serve(input: &[u8]) -> Vec<u8> {
    let options = ServeOptions {
        token: Some(TOKEN.to_owned()),
        allow_update: true,
        query_timeout: Duration::from_secs(2),
        max_results: 1000,
        max_body: 1 << 20,
        ..ServeOptions::default()
    };
    let cancel = CancellationToken::new();
    let log: RequestLog = Arc::new(|_| {});
    let app = router(store(), options, log, &cancel);
    let answer = RUNTIME.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let service = hyper_util::service::TowerToHyperService::new(app);
        let connection = hyper::server::conn::http1::Builder::new()
            .half_close(true)
            .serve_connection(hyper_util::rt::TokioIo::new(server), service);
        // A request hyper cannot read ends the connection with an error: not a finding.
        let served = tokio::spawn(async move {
            let _ = connection.await;
        });
        let (mut read, mut write) = tokio::io::split(client);
        let sending = async move {
            let _ = write.write_all(input).await;
            let _ = write.shutdown().await;
        };
        let receiving = async move {
            let mut answer = Vec::new();
            let _ = read.read_to_end(&mut answer).await;
            answer
        };
        let exchange = async { tokio::join!(sending, receiving).1 };
        let answer = tokio::time::timeout(CONNECTION_TIME, exchange).await;
        cancel.cancel();
        served.abort();
        answer.unwrap_or_default()
    });
    check(&answer);
    answer
}

/// rmcp's answer to a request body cut short (the connection ended before its
/// `Content-Length`): a 500 where 400 would be right, but told to no one, as the client
/// has stopped sending.
const RMCP_CUT_BODY: &[u8] = b"Failed to read request body";

/// The first answer's status is not 500: what a client sends is answered as its fault
/// (4xx) or the store's (502, 503), never as the server's own failure.
fn check(answer: &[u8]) {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut headers);
    if let Ok(httparse::Status::Complete(length)) = response.parse(answer)
        && !answer[length..].starts_with(RMCP_CUT_BODY)
    {
        assert_ne!(
            response.code,
            Some(500),
            "a 500: {}",
            String::from_utf8_lossy(&answer[..answer.len().min(2000)])
        );
    }
}
