//! Full-text search over HTTP: `GET /search`, and what the MCP tool `search_sessions`
//! shares with it (the request read from its arguments, the hits as JSON).

use super::parameters::Parameters;
use super::{ApiError, AppState};
use crate::query::parse_date_time;
use crate::store::{HistoryStore, SearchHit, SearchKind, SearchRequest};
use axum::Json;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

/// The most hits one request may ask for.
pub(crate) const MAX_LIMIT: usize = 1000;

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/search", get(search))
}

/// A search's arguments as a client gives them, checked into a [`SearchRequest`].
#[derive(Debug, Default)]
pub(crate) struct SearchArguments<'a> {
    pub(crate) query: Option<&'a str>,
    pub(crate) session: Option<&'a str>,
    pub(crate) role: Option<&'a str>,
    pub(crate) since: Option<&'a str>,
    pub(crate) until: Option<&'a str>,
    /// Kinds separated by commas.
    pub(crate) kind: Option<&'a str>,
    pub(crate) limit: usize,
}

impl SearchArguments<'_> {
    pub(crate) fn request(&self) -> Result<SearchRequest, ApiError> {
        let query = self
            .query
            .filter(|query| !query.trim().is_empty())
            .ok_or_else(|| ApiError::bad_request("q: give the words to find"))?;
        if let Some(role) = self.role
            && !["H-User", "A-User", "BKN"].contains(&role)
        {
            return Err(ApiError::bad_request(format!(
                "role={role:?}: expected H-User, A-User or BKN"
            )));
        }
        let time = |name: &str, text: Option<&str>| -> Result<Option<String>, ApiError> {
            text.map(|text| {
                parse_date_time(text).map(|time| time.to_string()).ok_or_else(|| {
                    ApiError::bad_request(format!(
                        "{name}={text:?}: expected RFC 3339 (2026-03-14T08:00:00Z) or a date (2026-03-14)"
                    ))
                })
            })
            .transpose()
        };
        let kinds = match self.kind {
            Some(kinds) => kinds
                .split(',')
                .map(|kind| {
                    kind.trim()
                        .parse::<SearchKind>()
                        .map_err(|error| ApiError::bad_request(format!("kind: {error}")))
                })
                .collect::<Result<Vec<_>, _>>()?,
            None => Vec::new(),
        };
        Ok(SearchRequest {
            query: query.to_owned(),
            session: self.session.map(str::to_owned),
            role: self.role.map(str::to_owned),
            since: time("since", self.since)?,
            until: time("until", self.until)?,
            kinds,
            limit: self.limit.clamp(1, MAX_LIMIT),
        })
    }
}

/// A hit as JSON: where it is, and its snippet with the matched words' byte ranges.
pub(crate) fn hit_json(hit: &SearchHit) -> Value {
    json!({
        "session": hit.session_id,
        "turn": hit.turn,
        "turn_index": hit.turn_index,
        "role": hit.role,
        "time": hit.time,
        "kind": hit.kind.name(),
        "language": hit.language,
        "score": hit.score,
        "snippet": hit.snippet.fragment,
        "highlights": hit.snippet.highlights,
    })
}

/// The hits of a request, as `{"hits": [...], "count"}`.
pub(crate) fn search_json(
    store: &HistoryStore,
    request: &SearchRequest,
) -> Result<Value, ApiError> {
    let hits: Vec<Value> = store.search(request)?.iter().map(hit_json).collect();
    Ok(json!({"count": hits.len(), "hits": hits}))
}

/// `GET /search?q=...&session=&role=&since=&until=&kind=&limit=`.
async fn search(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parameters = Parameters::parse(
        query.as_deref(),
        &["q", "session", "role", "since", "until", "kind", "limit"],
    )?;
    let request = SearchArguments {
        query: parameters.get("q"),
        session: parameters.get("session"),
        role: parameters.get("role"),
        since: parameters.get("since"),
        until: parameters.get("until"),
        kind: parameters.get("kind"),
        limit: parameters.number("limit", 10, MAX_LIMIT)?,
    }
    .request()?;
    let answer = state
        .blocking(move |store: &HistoryStore| search_json(store, &request))
        .await?;
    Ok(Json(answer).into_response())
}
