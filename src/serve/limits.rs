//! What one client query may take. Each runs on a thread of its own with a known stack
//! (its text was checked for nesting before it was parsed), under a memory budget that
//! stops it ([`budget`](super::budget)), within a time limit that stops it (the
//! evaluator checks its token before every tuple), at the lowest priority once it has
//! run longer than a short query would beside other queries, and only while fewer than the most queries at
//! once are running: past that a client is told to retry, rather than queue behind
//! work that may never end.

use super::ApiError;
use super::budget;
use crate::store::HistoryStore;
use axum::http::StatusCode;
use oxigraph::sparql::CancellationToken;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// The stack of a query's thread: a parser at the deepest nesting allowed
/// ([`MAX_NESTING`](crate::query::MAX_NESTING)) takes a third of it in a debug build.
pub const QUERY_STACK: usize = 16 * 1024 * 1024;
/// The memory all running queries may hold together unless told otherwise.
pub const DEFAULT_QUERY_MEMORY: usize = 1024 * 1024 * 1024;
/// How many queries may run at once unless told otherwise. Each has a thread; the
/// memory they hold together is bounded by the query memory, and a long one runs at the
/// lowest priority, so the count bounds threads, not work.
pub const DEFAULT_MAX_QUERIES: usize = 64;
/// How long a query runs at normal priority: far longer than a query of one session
/// takes, far shorter than the time limit. Past it, the query's priority is lowered as
/// soon as another query runs beside it (checked again every this long).
const LOWER_PRIORITY_AFTER: Duration = Duration::from_millis(250);

/// The limits every client query runs under; clones share the count of running queries.
#[derive(Clone, Debug)]
pub struct QueryLimits {
    timeout: Duration,
    /// Whose time limit it is, for the message that says it was passed.
    timeout_owner: &'static str,
    memory: usize,
    running: Arc<Semaphore>,
    max_queries: usize,
}

impl QueryLimits {
    /// Queries stopped after `timeout`, or when they take what all running queries hold
    /// past `memory` bytes; at most `max_queries` at once (at least one).
    #[must_use]
    pub fn new(timeout: Duration, memory: usize, max_queries: usize) -> Self {
        let max_queries = max_queries.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            timeout,
            timeout_owner: "the server's --query-timeout",
            memory,
            running: Arc::new(Semaphore::new(max_queries)),
            max_queries,
        }
    }

    /// These limits with a tighter time limit, `owner`'s (named when a query passes it),
    /// sharing the count of running queries and the memory they hold: a tenant's queries,
    /// under its own time limit. A limit that is not tighter leaves these as they are.
    #[must_use]
    pub fn with_timeout(&self, timeout: Duration, owner: &'static str) -> Self {
        if timeout >= self.timeout {
            return self.clone();
        }
        Self {
            timeout,
            timeout_owner: owner,
            ..self.clone()
        }
    }

    /// The time limit.
    #[must_use]
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `work` (a query and the writing of its answer) on a thread of its own under
    /// these limits. A query past its time or memory is cancelled and answered 503; the
    /// thread stops at its next tuple and gives back its place then.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        store: Arc<HistoryStore>,
        work: impl FnOnce(&HistoryStore, &CancellationToken) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let Ok(place) = Arc::clone(&self.running).try_acquire_owned() else {
            return Err(self.busy());
        };
        let cancel = CancellationToken::new();
        let token = cancel.clone();
        let thread = Arc::new(AtomicI64::new(0));
        let its_id = Arc::clone(&thread);
        let memory = self.memory;
        let (sender, receiver) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("ihigraph-query".to_owned())
            .stack_size(QUERY_STACK)
            .spawn(move || {
                let _place = place;
                its_id.store(budget::thread_id(), Ordering::Relaxed);
                let (done, exceeded) = budget::within(memory, &token, || work(&store, &token));
                let _ = sender.send((done, exceeded));
            })
            .map_err(|error| ApiError::internal(format!("cannot start the query: {error}")))?;
        let mut receiver = std::pin::pin!(receiver);
        let deadline = tokio::time::Instant::now() + self.timeout;
        let mut lower_at = tokio::time::Instant::now() + LOWER_PRIORITY_AFTER;
        let mut lowered = false;
        let answer = loop {
            let wake = if lowered {
                deadline
            } else {
                deadline.min(lower_at)
            };
            match tokio::time::timeout_at(wake, &mut receiver).await {
                Ok(answer) => break answer,
                Err(_) if tokio::time::Instant::now() >= deadline => {
                    cancel.cancel();
                    return Err(self.too_long());
                }
                // Lowered only beside other queries of this server: alone, a long query
                // keeps its share of a machine that may be busy with other work.
                Err(_) if self.others_running() => {
                    budget::lower_priority(thread.load(Ordering::Relaxed));
                    lowered = true;
                }
                Err(_) => lower_at += LOWER_PRIORITY_AFTER,
            }
        };
        match answer {
            Ok((_, true)) => Err(self.too_big()),
            Ok((done, false)) => done,
            Err(_) => Err(ApiError::internal(
                "the query's thread ended without an answer",
            )),
        }
    }

    /// Whether another query runs beside the caller's.
    fn others_running(&self) -> bool {
        self.max_queries - self.running.available_permits() > 1
    }

    fn busy(&self) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{} queries are running, the most this server runs at once (its --max-queries): retry shortly",
                self.max_queries
            ),
        )
    }

    fn too_long(&self) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the query ran past the time limit of {} s ({}) and was stopped",
                self.timeout.as_secs_f64(),
                self.timeout_owner
            ),
        )
    }

    fn too_big(&self) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the query took the memory that running queries may hold past {} MiB (the server's --query-memory) and was stopped: narrow it, or ask for fewer rows",
                self.memory >> 20
            ),
        )
    }
}
