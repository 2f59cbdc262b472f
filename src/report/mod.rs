//! Analytics you can look at: one self-contained HTML page (inline CSS and SVG, no
//! script, nothing fetched) of how the agents behave: totals, activity and roles over
//! time (in minutes, hours, days, weeks, months or years, as the span of the activity
//! asks: [`TimeUnit`]), turns per session, tools and their failures, the time between turns, the
//! sessions with the most failed calls with their recent turns, and the arguments that
//! fail most. Every number comes from a canned query of `queries/`, named beside it.

mod charts;
mod data;
mod html;
mod period;
mod text;

pub use data::{
    FailingArguments, Period, RecentTurn, ReportData, SessionStats, Timeline, ToolStats, Totals,
    read,
};
pub use period::{MAX_PERIODS, TimeUnit};
pub use text::escape;

use crate::store::{HistoryStore, StoreError};
use oxsdatatypes::DateTime;

/// What the report covers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportOptions {
    /// Only turns (and tool calls, memory items) at or after this time.
    pub since: Option<DateTime>,
    /// Only those before this time.
    pub until: Option<DateTime>,
    /// Only these sessions (by `SessionID`); every session when empty.
    pub sessions: Vec<String>,
}

/// What can go wrong while making a report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The store failed, or a session asked for is not there.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A chart could not be drawn.
    #[error("cannot draw the chart {chart}: {message}")]
    Chart {
        /// Which.
        chart: String,
        /// Plotters' message.
        message: String,
    },
}

/// The report of a store as one HTML page.
///
/// ```
/// use ihigraph::report::{ReportOptions, report};
/// let store = ihigraph::HistoryStore::in_memory(&Default::default())?;
/// let page = report(&store, &ReportOptions::default())?;
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// assert!(page.contains("No turns"), "an empty store says so");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn report(store: &HistoryStore, options: &ReportOptions) -> Result<String, ReportError> {
    let data = read(store, options)?;
    html::page(&html::Page {
        data: &data,
        location: &store.location(),
        options,
        generated_at: DateTime::now(),
    })
}
