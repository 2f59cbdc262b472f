//! The server's work on a schedule: the sessions older than the store's retention period
//! pruned every so often (`ServeOptions::prune`), under the one writer as any write, each
//! run told to the [`PruneLog`] the caller gives (the library prints nothing).

use super::AppState;
use super::error::ApiError;
use super::tenancy::Tenancy;
use crate::memory::{DeletionTotals, Pruning, prune_at_most};
use crate::store::{RetentionPeriod, TenantName};
use oxsdatatypes::DateTime;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// One scheduled prune, as the log tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PruneRecord {
    /// The sessions older than the retention period were deleted.
    Pruned {
        /// The tenant whose store was pruned; `None` for the store's own sessions.
        tenant: Option<TenantName>,
        /// The retention period applied.
        retention: RetentionPeriod,
        /// Sessions whose last turn was before this time went.
        cutoff: DateTime,
        /// The sums of the receipts.
        totals: DeletionTotals,
        /// Sessions kept.
        kept: usize,
        /// How long the prune took, waiting for the writer included.
        duration: Duration,
    },
    /// The prune failed; the next one is tried on schedule.
    Failed {
        /// The tenant whose store it was; `None` for the store's own sessions.
        tenant: Option<TenantName>,
        /// What went wrong.
        error: String,
    },
}

/// Where the server tells each scheduled prune (none is told while the store has no
/// retention period).
pub type PruneLog = Arc<dyn Fn(&PruneRecord) + Send + Sync>;

/// How often the server prunes, and where it tells it.
#[derive(Clone)]
pub struct PruneSchedule {
    /// The time between two prunes (the first runs when the server starts).
    pub every: Duration,
    /// Where each prune is told.
    pub log: PruneLog,
}

impl std::fmt::Debug for PruneSchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PruneSchedule")
            .field("every", &self.every)
            .finish_non_exhaustive()
    }
}

/// Prunes on `schedule` until `cancel` is cancelled: the store's own sessions, then each
/// tenant's (by the tenant's period, or the store's when it has none).
pub(crate) fn spawn(tenancy: Arc<Tenancy>, schedule: PruneSchedule, cancel: CancellationToken) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(schedule.every.max(Duration::from_millis(1)));
        // A prune that took longer than the period is not caught up on.
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = cancel.cancelled() => return,
                _ = ticks.tick() => {}
            }
            for record in prune_all(&tenancy).await {
                (schedule.log)(&record);
            }
        }
    });
}

/// One prune of every store the server serves.
async fn prune_all(tenancy: &Tenancy) -> Vec<PruneRecord> {
    let root = &tenancy.root;
    let read = root
        .state
        .blocking(|store| Ok((store.retention()?, store.tenants()?)))
        .await;
    let (fallback, tenants) = match read {
        Ok(read) => read,
        Err(error) => {
            return vec![PruneRecord::Failed {
                tenant: None,
                error: error.message,
            }];
        }
    };
    let mut records: Vec<PruneRecord> = prune_once(&root.state, None, None)
        .await
        .into_iter()
        .collect();
    for tenant in tenants {
        match tenancy.app(Some(&tenant.name)).await {
            Ok(app) => records.extend(prune_once(&app.state, Some(tenant.name), fallback).await),
            Err(error) => records.push(PruneRecord::Failed {
                tenant: Some(tenant.name),
                error: error.message,
            }),
        }
    }
    records
}

/// How many sessions one step of a scheduled prune deletes under the writer: the writes
/// of clients wait for one step at most (about 13 s at 0.2 s a session), not the prune.
const PRUNE_STEP: usize = 64;

/// One prune, by the store's retention period or else `fallback`, in steps of
/// [`PRUNE_STEP`] sessions, each under the writer; none when there is no period.
async fn prune_once(
    state: &AppState,
    tenant: Option<TenantName>,
    fallback: Option<RetentionPeriod>,
) -> Option<PruneRecord> {
    let started = Instant::now();
    // The cutoff is taken once, so that every step prunes by the same time.
    let now = DateTime::now();
    let mut whole: Option<(RetentionPeriod, Pruning)> = None;
    loop {
        let step = state
            .write(move |store| {
                let Some(retention) = store.retention()?.or(fallback) else {
                    return Ok(None);
                };
                let pruning = prune_at_most(store, retention, now, false, PRUNE_STEP)?;
                Ok::<_, ApiError>(Some((retention, pruning)))
            })
            .await;
        let (retention, pruning) = match step {
            Ok(Some(step)) => step,
            Ok(None) => break,
            Err(error) => {
                return Some(PruneRecord::Failed {
                    tenant,
                    error: error.message,
                });
            }
        };
        let last = pruning.receipts.len() < PRUNE_STEP;
        match &mut whole {
            Some((_, so_far)) => {
                so_far.receipts.extend(pruning.receipts);
                so_far.kept = pruning.kept;
            }
            None => whole = Some((retention, pruning)),
        }
        if last {
            break;
        }
    }
    let (retention, pruning) = whole?;
    Some(PruneRecord::Pruned {
        tenant,
        retention,
        cutoff: pruning.cutoff,
        totals: DeletionTotals::of(&pruning.receipts),
        kept: pruning.kept,
        duration: started.elapsed(),
    })
}
