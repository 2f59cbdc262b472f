//! The connections: accepted in the server's own loop over hyper, because `axum::serve`
//! closes none and counts none. Each connection is watched for what it is doing (waiting
//! for a request head, idle between requests, or busy with one) and closed when it waits
//! too long: a head must arrive whole within the header timeout, an idle keep-alive
//! connection lasts the idle timeout, and an answer the client does not read stalls at
//! most the idle timeout. At most `max_connections` are open; a new one beyond them closes
//! the one waiting longest without a request in flight, or, when every one is busy, waits
//! in the listen queue for a free place. So slow clients can neither hold the server's
//! file descriptors nor keep `/healthz` from answering.

use super::{SHUTDOWN_GRACE, Shutdown};
use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, Response};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a request head may take unless told otherwise.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection may stay idle unless told otherwise.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How many connections may be open at once unless told otherwise.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

/// How long connections may wait and how many may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// From the moment a connection waits for a request (when it opens, or the first
    /// byte after an idle spell) to the end of the request's head.
    pub header_timeout: Duration,
    /// How long a connection may stay open with no request (keep-alive), and how long an
    /// answer may stay unread by its client.
    pub idle_timeout: Duration,
    /// The most connections open at once.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }
}

impl ConnectionLimits {
    /// How often a connection's watch looks again: often enough that a limit is kept to
    /// within a quarter of itself (at most half a second late).
    fn tick(&self) -> Duration {
        (self.header_timeout.min(self.idle_timeout) / 4)
            .clamp(Duration::from_millis(10), Duration::from_millis(500))
    }
}

/// What a connection is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's head, or reading it.
    Head,
    /// Between requests, nothing received yet.
    Idle,
    /// A request is in flight, from its head to the end of its answer.
    Busy,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// When the phase began.
    since: Instant,
    /// While busy: since when a write to the client has not gone through.
    stalled: Option<Instant>,
}

/// One open connection, as its watch and the cap see it.
#[derive(Debug)]
struct Connection {
    state: Mutex<State>,
    /// Cancelled to close the connection to make room for a new one.
    evict: CancellationToken,
}

impl Connection {
    fn new() -> Self {
        Self {
            state: Mutex::new(State {
                phase: Phase::Head,
                since: Instant::now(),
                stalled: None,
            }),
            evict: CancellationToken::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is three plain fields, whole after any panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn enter(&self, phase: Phase) {
        let mut state = self.state();
        *state = State {
            phase,
            since: Instant::now(),
            stalled: None,
        };
    }

    /// Bytes came in: an idle connection now waits for the rest of a head.
    fn received(&self) {
        let mut state = self.state();
        if state.phase == Phase::Idle {
            state.phase = Phase::Head;
            state.since = Instant::now();
        }
    }

    /// A write went through (`true`) or had to wait for the client (`false`).
    fn wrote(&self, through: bool) {
        let mut state = self.state();
        if through {
            state.stalled = None;
        } else if state.stalled.is_none() {
            state.stalled = Some(Instant::now());
        }
    }

    fn busy(&self) -> bool {
        self.state().phase == Phase::Busy
    }

    /// When the connection has waited too long, as things stand.
    fn deadline(&self, limits: &ConnectionLimits) -> Option<Instant> {
        let state = self.state();
        match state.phase {
            Phase::Head => Some(state.since + limits.header_timeout),
            Phase::Idle => Some(state.since + limits.idle_timeout),
            Phase::Busy => state.stalled.map(|since| since + limits.idle_timeout),
        }
    }

    /// Since when the connection has been waiting with no request in flight.
    fn waiting_since(&self) -> Option<Instant> {
        let state = self.state();
        (state.phase != Phase::Busy).then_some(state.since)
    }
}

/// The open connections.
struct Registry {
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    next: AtomicU64,
    /// How many connection tasks are running (an evicted one counts until it is gone).
    count: watch::Sender<usize>,
}

impl Registry {
    fn new() -> Self {
        Self {
            open: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            count: watch::Sender::new(0),
        }
    }

    fn open(&self) -> MutexGuard<'_, HashMap<u64, Arc<Connection>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn add(self: &Arc<Self>, connection: &Arc<Connection>) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.open().insert(id, Arc::clone(connection));
        self.count.send_modify(|count| *count += 1);
        Registered {
            registry: Arc::clone(self),
            id,
        }
    }

    /// Closes the connection that has waited longest with no request in flight; `false`
    /// when every one is busy.
    fn evict_one(&self) -> bool {
        let mut open = self.open();
        let oldest = open
            .iter()
            .filter_map(|(id, connection)| Some((connection.waiting_since()?, *id)))
            .min();
        let Some((_, id)) = oldest else {
            return false;
        };
        if let Some(connection) = open.remove(&id) {
            connection.evict.cancel();
        }
        true
    }

    /// Returns once fewer than `max` connections are open, making room when it can.
    async fn make_room(&self, max: usize) {
        let mut count = self.count.subscribe();
        while *count.borrow_and_update() >= max {
            self.evict_one();
            // An evicted task ends at once; a busy one frees its place when it ends, and
            // an idle one may become evictable meanwhile: look again soon either way.
            let _ = tokio::time::timeout(Duration::from_millis(50), count.changed()).await;
        }
    }

    async fn drained(&self) {
        let mut count = self.count.subscribe();
        let _ = count.wait_for(|count| *count == 0).await;
    }
}

/// A connection task's place in the registry, given back when the task ends however.
struct Registered {
    registry: Arc<Registry>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.registry.open().remove(&self.id);
        self.registry.count.send_modify(|count| *count -= 1);
    }
}

/// Serves `router` on `listener` under `limits` until `shutdown` completes; then requests
/// in flight have [`SHUTDOWN_GRACE`] to finish, connections without one close at once, and
/// `cancel` is cancelled (it ends MCP's streams).
///
/// # Errors
///
/// None today: a failed accept (out of file descriptors) is tried again a second later,
/// as `axum::serve` does; the `Result` leaves room for a listener that can fail.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    cancel: CancellationToken,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<Shutdown> {
    let registry = Arc::new(Registry::new());
    let stopping = CancellationToken::new();
    tokio::select! {
        () = accept(&listener, &router, limits, &registry, &stopping) => {}
        () = shutdown => {}
    }
    drop(listener);
    stopping.cancel();
    cancel.cancel();
    tokio::select! {
        () = registry.drained() => Ok(Shutdown::Drained),
        () = tokio::time::sleep(SHUTDOWN_GRACE) => Ok(Shutdown::CutShort),
    }
}

async fn accept(
    listener: &TcpListener,
    router: &Router,
    limits: ConnectionLimits,
    registry: &Arc<Registry>,
    stopping: &CancellationToken,
) {
    loop {
        let (stream, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(_) => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        registry.make_room(limits.max_connections.max(1)).await;
        let connection = Arc::new(Connection::new());
        let registered = registry.add(&connection);
        let served = connect(
            stream,
            remote,
            router.clone(),
            limits,
            connection,
            stopping.clone(),
        );
        tokio::spawn(async move {
            served.await;
            drop(registered);
        });
    }
}

/// Errors of one connection, not of the listener (as `axum::serve` tells them).
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection until it closes, waits too long, is evicted, or the server
/// stops (then a request in flight may finish).
async fn connect(
    stream: TcpStream,
    remote: SocketAddr,
    router: Router,
    limits: ConnectionLimits,
    connection: Arc<Connection>,
    stopping: CancellationToken,
) {
    let io = TokioIo::new(Watched {
        stream,
        connection: Arc::clone(&connection),
    });
    let service = Tracking {
        router: TowerToHyperService::new(router),
        connection: Arc::clone(&connection),
        remote,
    };
    let served = http1::Builder::new().serve_connection(io, service);
    tokio::pin!(served);
    let mut stopped = false;
    loop {
        tokio::select! {
            _ = served.as_mut() => return,
            () = connection.evict.cancelled() => return,
            () = watch_over(&connection, &limits) => return,
            () = stopping.cancelled(), if !stopped => {
                stopped = true;
                if !connection.busy() {
                    return;
                }
                served.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Completes when the connection has waited longer than its limits allow.
async fn watch_over(connection: &Connection, limits: &ConnectionLimits) {
    loop {
        let now = Instant::now();
        let next = now + limits.tick();
        match connection.deadline(limits) {
            Some(deadline) if deadline <= now => return,
            Some(deadline) => tokio::time::sleep_until(deadline.min(next)).await,
            None => tokio::time::sleep_until(next).await,
        }
    }
}

/// The router, told to the connection's watch: a request is in flight from its head to
/// the end of its answer's body.
#[derive(Clone)]
struct Tracking {
    router: TowerToHyperService<Router>,
    connection: Arc<Connection>,
    remote: SocketAddr,
}

impl hyper::service::Service<Request<Incoming>> for Tracking {
    type Response = Response<Tracked>;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        self.connection.enter(Phase::Busy);
        request.extensions_mut().insert(ConnectInfo(self.remote));
        let answer = self.router.call(request);
        let connection = Arc::clone(&self.connection);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| Tracked { body, connection }))
        })
    }
}

/// An answer's body; when hyper is done with it, the connection is idle.
pub(crate) struct Tracked {
    body: Body,
    connection: Arc<Connection>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.connection.enter(Phase::Idle);
    }
}

impl hyper::body::Body for Tracked {
    type Data = <Body as hyper::body::Body>::Data;
    type Error = <Body as hyper::body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(context)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The socket, telling the connection's watch when bytes come in and when a write has to
/// wait for the client.
struct Watched {
    stream: TcpStream,
    connection: Arc<Connection>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buffer.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(context, buffer);
        if buffer.filled().len() > before {
            self.connection.received();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(context, bytes);
        self.connection.wrote(written.is_ready());
        written
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(context, buffers);
        self.connection.wrote(written.is_ready());
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 2,
        }
    }

    /// Puts a connection in `phase` as if it began `ago` earlier.
    fn in_phase(connection: &Connection, phase: Phase, ago: Duration) -> Instant {
        let since = Instant::now() - ago;
        *connection.state() = State {
            phase,
            since,
            stalled: None,
        };
        since
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let limits = limits();
        let connection = Connection::new();
        let opened = in_phase(&connection, Phase::Head, Duration::ZERO);
        assert_eq!(
            connection.deadline(&limits),
            Some(opened + limits.header_timeout)
        );
        connection.enter(Phase::Busy);
        assert_eq!(connection.deadline(&limits), None, "a request in flight");
        connection.wrote(false);
        let stalled = connection.state().stalled.unwrap();
        assert_eq!(
            connection.deadline(&limits),
            Some(stalled + limits.idle_timeout)
        );
        connection.wrote(false);
        assert_eq!(connection.state().stalled, Some(stalled), "a stall runs on");
        connection.wrote(true);
        assert_eq!(connection.deadline(&limits), None, "a write went through");
        let idle = in_phase(&connection, Phase::Idle, Duration::from_secs(5));
        assert_eq!(
            connection.deadline(&limits),
            Some(idle + limits.idle_timeout)
        );
        connection.received();
        let head = connection.state().since;
        assert!(head > idle);
        assert_eq!(
            connection.deadline(&limits),
            Some(head + limits.header_timeout)
        );
        connection.received();
        assert_eq!(
            connection.state().since,
            head,
            "the head's time runs from its first byte"
        );
    }

    #[test]
    fn the_cap_evicts_the_longest_waiting_and_spares_the_busy() {
        let registry = Arc::new(Registry::new());
        let busy = Arc::new(Connection::new());
        in_phase(&busy, Phase::Busy, Duration::from_secs(9));
        let older = Arc::new(Connection::new());
        in_phase(&older, Phase::Head, Duration::from_secs(2));
        let newer = Arc::new(Connection::new());
        in_phase(&newer, Phase::Idle, Duration::from_secs(1));
        let places: Vec<_> = [&busy, &older, &newer]
            .into_iter()
            .map(|connection| registry.add(connection))
            .collect();
        assert_eq!(*registry.count.borrow(), 3);
        assert!(registry.evict_one());
        assert!(older.evict.is_cancelled());
        assert!(!newer.evict.is_cancelled() && !busy.evict.is_cancelled());
        assert!(registry.evict_one());
        assert!(newer.evict.is_cancelled());
        assert!(!registry.evict_one(), "the busy one stays");
        drop(places);
        assert_eq!(*registry.count.borrow(), 0);
    }
}
