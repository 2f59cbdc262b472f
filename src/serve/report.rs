//! `GET /report?since=TIME&until=TIME&session=ID&session=ID...`: the report's HTML page,
//! as `ihigraph report` writes it.

use super::{ApiError, AppState};
use crate::query::parse_date_time;
use crate::report::{ReportOptions, report};
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/report", get(page))
}

async fn page(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let options = options(query.as_deref().unwrap_or(""))?;
    let html = state
        .blocking(move |store| Ok(report(store, &options)?))
        .await?;
    Ok((
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            // As the page's own meta element says: nothing may be fetched.
            (
                CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'",
            ),
        ],
        html,
    )
        .into_response())
}

/// The report's options from the query string, each name as the command line's.
fn options(query: &str) -> Result<ReportOptions, ApiError> {
    let mut options = ReportOptions::default();
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        let time = || {
            parse_date_time(&value).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{name}={value}: expected an RFC 3339 time (2026-01-31T12:00:00Z) or a date (2026-01-31)"
                ))
            })
        };
        match name.as_ref() {
            "since" => options.since = Some(time()?),
            "until" => options.until = Some(time()?),
            "session" => options.sessions.push(value.into_owned()),
            other => {
                return Err(ApiError::bad_request(format!(
                    "unknown parameter {other}: the report takes since, until and session"
                )));
            }
        }
    }
    Ok(options)
}

impl From<crate::report::ReportError> for ApiError {
    fn from(error: crate::report::ReportError) -> Self {
        match error {
            crate::report::ReportError::Store(store) => store.into(),
            other => Self::internal(other.to_string()),
        }
    }
}
