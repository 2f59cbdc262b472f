//! The server: the store over HTTP for every client an agent stack already has: the
//! SPARQL 1.1 Protocol at `/sparql`, REST for sessions at `/sessions`, the canned queries
//! at `/queries`, and the Model Context Protocol at `/mcp` (Streamable HTTP), or over
//! stdio with [`serve_mcp_stdio`]. Reads are open; writes need the bearer token the
//! server was given. Every store call runs on tokio's blocking threads, so a long ingest
//! never holds up a reader, and writes go one at a time.
//!
//! No client can hold it: every request passes the front door (`door.rs`: a `Host` the
//! server answers to, the token checked before a write's body is read, bodies read under a
//! size limit and a deadline), and every connection is watched (`connections.rs`: header,
//! idle and stalled-write timeouts, a cap on open connections).
//!
//! The library prints nothing: each request answered is told to the [`RequestLog`] the
//! caller gives (method, path, status, duration; never a body or a token), and each
//! prune on a schedule (`schedule.rs`) to the [`PruneLog`].

mod admin;
mod auth;
mod budget;
mod connections;
mod description;
mod door;
mod error;
mod graph_store;
mod limits;
mod mcp;
mod memory;
mod negotiate;
mod otlp;
mod parameters;
mod queries;
mod report;
mod rows;
mod schedule;
mod search;
mod sessions;
mod sparql;
mod tenancy;

pub use auth::TENANT_HEADER;
pub use budget::Budgeted;
pub use connections::{
    ConnectionLimits, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, serve,
};
pub use door::LARGE_BODIES_AT_ONCE;
pub use error::ApiError;
pub use limits::{DEFAULT_MAX_QUERIES, DEFAULT_QUERY_MEMORY, QUERY_STACK, QueryLimits};
pub use mcp::{McpTools, serve_mcp_stdio};
pub use otlp::{
    Encoding as OtlpEncoding, OTLP_WAITING, OtlpError, Signal as OtlpSignal, decode_logs,
    decode_traces, encode_error, encode_response, encode_status,
};
pub use schedule::{PruneLog, PruneRecord, PruneSchedule};

use crate::ingest::{DEFAULT_LIVE_BYTES, LiveSessions};
use crate::store::HistoryStore;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The largest request body taken unless told otherwise: 256 MiB, as `ingest` reads.
pub const DEFAULT_MAX_BODY: usize = 256 * 1024 * 1024;
/// The largest body taken without the token unless told otherwise (a query, an MCP
/// call): 1 MiB.
pub const DEFAULT_MAX_QUERY_BODY: usize = 1024 * 1024;
/// How long a request's body may take to arrive whole unless told otherwise.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(60);
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
    /// The memory all running queries may hold together (held only where [`Budgeted`]
    /// is the program's allocator, as in the `ihigraph` binary).
    pub query_memory: usize,
    /// How many queries may run at once.
    pub max_queries: usize,
    /// The most rows (solutions or triples) in one answer.
    pub max_results: usize,
    /// The largest request body, from a bearer of the token.
    pub max_body: usize,
    /// The largest request body without the token (a query, an MCP call).
    pub max_query_body: usize,
    /// How long a request's body may take to arrive whole, from the end of its head.
    pub body_timeout: Duration,
    /// Host names (`host` for any port, `host:port`, or `*` for any) that clients may
    /// reach the server by, beside the loopback names: every route refuses other `Host`
    /// headers, against DNS rebinding.
    pub allowed_hosts: Vec<String>,
    /// Prune the sessions older than the store's retention period on this schedule
    /// (none: never). The router must then be made inside a tokio runtime, which runs it.
    pub prune: Option<PruneSchedule>,
    /// What the OTLP receiver keeps of the sessions it wrote, in bytes by its estimate
    /// ([`LiveSessions`]), for each store served (the server's own and each tenant's):
    /// a span that adds to a session kept is not read back from the store. 0 keeps
    /// nothing.
    pub otlp_keep: usize,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            token: None,
            allow_update: false,
            query_timeout: DEFAULT_QUERY_TIMEOUT,
            query_memory: DEFAULT_QUERY_MEMORY,
            max_queries: DEFAULT_MAX_QUERIES,
            max_results: DEFAULT_MAX_RESULTS,
            max_body: DEFAULT_MAX_BODY,
            max_query_body: DEFAULT_MAX_QUERY_BODY,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            allowed_hosts: Vec::new(),
            prune: None,
            otlp_keep: DEFAULT_LIVE_BYTES,
        }
    }
}

impl std::fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeOptions")
            .field("token", &self.token.as_ref().map(|_| "(hidden)"))
            .field("allow_update", &self.allow_update)
            .field("query_timeout", &self.query_timeout)
            .field("query_memory", &self.query_memory)
            .field("max_queries", &self.max_queries)
            .field("max_results", &self.max_results)
            .field("max_body", &self.max_body)
            .field("max_query_body", &self.max_query_body)
            .field("body_timeout", &self.body_timeout)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("prune", &self.prune)
            .field("otlp_keep", &self.otlp_keep)
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
    /// What a client's query may take, shared with the MCP tools.
    pub(crate) queries: QueryLimits,
    /// Places for bodies larger than a query, read and held at once.
    pub(crate) large_bodies: Arc<Semaphore>,
    /// Places for OTLP export requests waiting for the writer.
    pub(crate) otlp_waiting: Arc<Semaphore>,
    /// What the OTLP receiver kept of the sessions it wrote (used under the writer).
    pub(crate) live: Arc<Mutex<LiveSessions>>,
    /// Who may do what (the same for every tenant).
    pub(crate) access: Arc<auth::Access>,
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

/// The whole HTTP application: SPARQL protocol, REST, canned queries, health, MCP, every
/// request through the front door (host check, who the caller is and the tenant it acts
/// in, token before body, body limits), then handed to the routes of that tenant's store
/// (`tenancy.rs`). The `cancel` token ends MCP's open streams at shutdown. Fails when the
/// store's register of tokens and tenants cannot be read.
pub fn router(
    store: Arc<HistoryStore>,
    options: ServeOptions,
    log: RequestLog,
    cancel: &CancellationToken,
) -> Result<Router, crate::store::StoreError> {
    let queries = QueryLimits::new(
        options.query_timeout,
        options.query_memory,
        options.max_queries,
    );
    // The register is beside a store on disk: another store has none, and needs no token.
    let access = auth::Access::new(&options, store.access_list()?);
    let state = AppState {
        store,
        writing: Arc::new(Mutex::new(())),
        large_bodies: Arc::new(Semaphore::new(LARGE_BODIES_AT_ONCE)),
        otlp_waiting: Arc::new(Semaphore::new(OTLP_WAITING)),
        live: Arc::new(Mutex::new(LiveSessions::new(options.otlp_keep))),
        options: Arc::new(options),
        queries,
        access: Arc::clone(&access),
    };
    let prune = state.options.prune.clone();
    let routes_cancel = cancel.clone();
    let tenancy = Arc::new(tenancy::Tenancy::new(
        state,
        Box::new(move |state| routes(state, &routes_cancel)),
        access,
    ));
    if let Some(schedule) = prune {
        schedule::spawn(Arc::clone(&tenancy), schedule, cancel.child_token());
    }
    Ok(Router::new()
        .merge(admin::routes())
        .fallback(tenancy::dispatch)
        .with_state(Arc::clone(&tenancy))
        .layer(middleware::from_fn_with_state(tenancy, door::front_door))
        .layer(middleware::from_fn_with_state(log, log_request)))
}

/// The routes of one store (the store's own sessions, or a tenant's), over its state.
fn routes(state: AppState, cancel: &CancellationToken) -> Router {
    // Stateless: the tools keep nothing between calls, so no session is kept either (a
    // session each `initialize` would be memory any client could fill). The front door
    // checks the Host of every route, /mcp's too, and has read the body already.
    let mcp_config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_cancellation_token(cancel.child_token())
        .with_json_response(true)
        .with_max_request_body_bytes(state.options.max_body)
        .disable_allowed_hosts();
    let tools = McpTools::new(
        Arc::clone(&state.store),
        state.options.max_results,
        state.queries.clone(),
        Arc::clone(&state.writing),
    );
    let mcp = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(NeverSessionManager::default()),
        mcp_config,
    );
    Router::new()
        .route("/healthz", get(health))
        .merge(sparql::routes())
        .merge(graph_store::routes())
        .merge(sessions::routes())
        .merge(memory::routes())
        .merge(queries::routes())
        .merge(report::routes())
        .merge(search::routes())
        .merge(otlp::routes())
        .nest_service("/mcp", mcp)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(state.options.max_body))
        .with_state(state)
}

/// The URL of the endpoint a request reached, as the client named it (`http://`, its
/// `Host` or absolute URI, the path): the base IRI of the SPARQL texts sent to `/sparql`
/// (the SPARQL 1.1 Protocol leaves the base to the service, "which MAY be the service
/// endpoint"), and of the graphs named at `/store`. The front door has checked the host
/// is one the server answers to. Behind a TLS proxy the scheme is still `http`: the
/// server cannot tell.
pub(crate) fn endpoint_url(uri: &axum::http::Uri, headers: &axum::http::HeaderMap) -> String {
    let host = uri
        .authority()
        .map(|authority| authority.as_str().to_owned())
        .or_else(|| {
            headers
                .get(axum::http::header::HOST)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "localhost".to_owned());
    format!("http://{host}{}", uri.path())
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

async fn health(State(state): State<AppState>, caller: auth::Caller) -> Response {
    let location = state.store.location();
    axum::Json(serde_json::json!({
        "status": "ok",
        "store": location,
        "tenant": caller.tenant.as_ref().map(ToString::to_string),
        "role": caller.role.map(crate::store::AccessRole::name),
        "writable": state.access.writable(),
        "updates": state.options.allow_update && state.access.writable(),
    }))
    .into_response()
}

async fn not_found(request: Request) -> ApiError {
    ApiError::not_found(format!(
        "nothing at {} {}: see /sparql, /store, /sessions, /queries, /mcp, /healthz",
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
