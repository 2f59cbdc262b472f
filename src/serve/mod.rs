//! The server: the store over HTTP for every client an agent stack already has: the
//! SPARQL 1.1 Protocol at `/sparql`, REST for sessions at `/sessions`, the canned queries
//! at `/queries`, and the Model Context Protocol at `/mcp` (Streamable HTTP), or over
//! stdio with [`serve_mcp_stdio`]. Reads are open; writes need the bearer token the
//! server was given. Every store call runs on tokio's blocking threads, so a long ingest
//! never holds up a reader, and writes go one at a time.
//!
//! The library prints nothing: each request answered is told to the [`RequestLog`] the
//! caller gives (method, path, status, duration; never a body or a token).

mod auth;
mod error;
mod mcp;
mod memory;
mod negotiate;
mod parameters;
mod queries;
mod report;
mod rows;
mod sessions;
mod sparql;

pub use error::ApiError;
pub use mcp::{McpTools, serve_mcp_stdio};

use crate::store::HistoryStore;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The largest request body taken unless told otherwise: 256 MiB, as `ingest` reads.
pub const DEFAULT_MAX_BODY: usize = 256 * 1024 * 1024;
/// How long a query may run unless told otherwise.
pub const DEFAULT_QUERY_TIMEOUT: Duration = Duration::from_secs(30);
/// The most rows (solutions or triples) in one answer unless told otherwise.
pub const DEFAULT_MAX_RESULTS: usize = 100_000;
/// How long in-flight requests have to finish once shutdown is asked for: the process
/// is gone within 10 s of the signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(9);

/// What the server allows and how far.
#[derive(Clone)]
pub struct ServeOptions {
    /// The bearer token writes need; without one, the server is read-only.
    pub token: Option<String>,
    /// Whether SPARQL updates are taken at `/sparql` (with the token).
    pub allow_update: bool,
    /// How long a query may run.
    pub query_timeout: Duration,
    /// The most rows (solutions or triples) in one answer.
    pub max_results: usize,
    /// The largest request body.
    pub max_body: usize,
    /// Host names (`host` or `host:port`) that MCP clients may reach the server by,
    /// beside the loopback names: MCP refuses other `Host` headers, against DNS
    /// rebinding.
    pub allowed_hosts: Vec<String>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            token: None,
            allow_update: false,
            query_timeout: DEFAULT_QUERY_TIMEOUT,
            max_results: DEFAULT_MAX_RESULTS,
            max_body: DEFAULT_MAX_BODY,
            allowed_hosts: Vec::new(),
        }
    }
}

impl std::fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeOptions")
            .field("token", &self.token.as_ref().map(|_| "(hidden)"))
            .field("allow_update", &self.allow_update)
            .field("query_timeout", &self.query_timeout)
            .field("max_results", &self.max_results)
            .field("max_body", &self.max_body)
            .field("allowed_hosts", &self.allowed_hosts)
            .finish()
    }
}

/// One request answered, as the log tells it.
#[derive(Debug, Clone)]
pub struct RequestRecord {
    /// The method.
    pub method: String,
    /// The path, without the query string (which may hold a query's text).
    pub path: String,
    /// The status answered.
    pub status: u16,
    /// From the request's arrival to its answer's head.
    pub duration: Duration,
}

/// Where the server tells each request answered.
pub type RequestLog = Arc<dyn Fn(&RequestRecord) + Send + Sync>;

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) store: Arc<HistoryStore>,
    pub(crate) options: Arc<ServeOptions>,
    /// Writes go one at a time: an append reads a session and writes it back.
    pub(crate) writing: Arc<Mutex<()>>,
}

impl AppState {
    /// Runs a store call on a blocking thread.
    pub(crate) async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&HistoryStore) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || work(&store))
            .await
            .map_err(|error| ApiError::internal(format!("the request's work failed: {error}")))?
    }

    /// Runs a write on a blocking thread, after the writes before it.
    pub(crate) async fn write<T: Send + 'static>(
        &self,
        work: impl FnOnce(&HistoryStore) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let writing = Arc::clone(&self.writing);
        self.blocking(move |store| {
            // A write that panicked left nothing half-done (each write is atomic).
            let _turn = writing
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            work(store)
        })
        .await
    }
}

/// The whole HTTP application: SPARQL protocol, REST, canned queries, health, MCP. The
/// `cancel` token ends MCP's open streams at shutdown.
pub fn router(
    store: Arc<HistoryStore>,
    options: ServeOptions,
    log: RequestLog,
    cancel: &CancellationToken,
) -> Router {
    let state = AppState {
        store: Arc::clone(&store),
        writing: Arc::new(Mutex::new(())),
        options: Arc::new(options),
    };
    let mut mcp_config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_json_response(true)
        .with_max_request_body_bytes(state.options.max_body);
    if !state.options.allowed_hosts.is_empty() {
        let mut hosts = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ];
        hosts.extend(state.options.allowed_hosts.iter().cloned());
        mcp_config = mcp_config.with_allowed_hosts(hosts);
    }
    let tools = McpTools::new(
        store,
        state.options.max_results,
        state.options.query_timeout,
        Arc::clone(&state.writing),
    )
    .with_token(state.options.token.clone());
    let mcp = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(LocalSessionManager::default()),
        mcp_config,
    );
    Router::new()
        .route("/healthz", get(health))
        .merge(sparql::routes())
        .merge(sessions::routes())
        .merge(memory::routes())
        .merge(queries::routes())
        .merge(report::routes())
        .nest_service("/mcp", mcp)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(state.options.max_body))
        .with_state(state)
        .layer(middleware::from_fn_with_state(log, log_request))
}

/// How a server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shutdown {
    /// Every request in flight finished.
    Drained,
    /// Requests were still running after [`SHUTDOWN_GRACE`]: they were cut short, and a
    /// write among them is rolled back (each write is atomic).
    CutShort,
}

/// Serves `router` on `listener` until `shutdown` completes; then in-flight requests
/// have [`SHUTDOWN_GRACE`] to finish, and MCP streams are closed through `cancel`.
///
/// # Errors
///
/// When the listener fails.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    cancel: CancellationToken,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<Shutdown> {
    let stopping = CancellationToken::new();
    let started = stopping.clone();
    let server = axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        started.cancel();
        cancel.cancel();
    });
    let deadline = async {
        stopping.cancelled().await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        served = server => served.map(|()| Shutdown::Drained),
        () = deadline => Ok(Shutdown::CutShort),
    }
}

async fn health(State(state): State<AppState>) -> Response {
    let location = state.store.location();
    axum::Json(serde_json::json!({
        "status": "ok",
        "store": location,
        "writable": state.options.token.is_some(),
        "updates": state.options.allow_update && state.options.token.is_some(),
    }))
    .into_response()
}

async fn not_found(request: Request) -> ApiError {
    ApiError::not_found(format!(
        "nothing at {} {}: see /sparql, /sessions, /queries, /mcp, /healthz",
        request.method(),
        request.uri().path()
    ))
}

async fn log_request(State(log): State<RequestLog>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    log(&RequestRecord {
        method,
        path,
        status: response.status().as_u16(),
        duration: started.elapsed(),
    });
    response
}
