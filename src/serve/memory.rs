//! Context for the next model call and long-term memory over HTTP:
//! `GET /sessions/{id}/context`, `POST /sessions/{id}/memory`, `GET /memory`,
//! `DELETE /memory/{item}`.

use super::parameters::Parameters;
use super::rows::json_rows;
use super::{ApiError, AppState, auth};
use crate::context::{ContextFormat, ContextOptions, SystemPrompt, Tokenizer, session_context};
use crate::memory::{MemoryKind, Remember, forget, memories_arguments, remember};
use crate::query::{MEMORIES, parse_date_time};
use crate::store::HistoryStore;
use axum::Json;
use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use oxsdatatypes::DateTime;
use serde::Deserialize;
use serde_json::{Value, json};

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/sessions/{id}/context", get(context))
        .route("/sessions/{id}/memory", post(remember_turn))
        .route("/memory", get(list))
        .route("/memory/{item}", delete(forget_item))
}

/// The context options of a request's parameters (or an MCP call's arguments).
pub(crate) fn context_options(
    budget: Option<&str>,
    format: Option<&str>,
    tokenizer: Option<&str>,
    system: Option<&str>,
    until: Option<&str>,
) -> Result<ContextOptions, ApiError> {
    let budget = budget
        .ok_or_else(|| ApiError::bad_request("budget: give the tokens the request may take"))?
        .parse::<usize>()
        .map_err(|_| ApiError::bad_request("budget: expected a non-negative integer"))?;
    let format = match format {
        Some(name) => name
            .parse::<ContextFormat>()
            .map_err(|error| ApiError::bad_request(error.to_string()))?,
        None => ContextFormat::OpenAiChat,
    };
    let tokenizer = tokenizer
        .map(str::parse::<Tokenizer>)
        .transpose()
        .map_err(|error| ApiError::bad_request(error.to_string()))?;
    let system = match system {
        None | Some("keep") => SystemPrompt::Keep,
        Some("drop") => SystemPrompt::Drop,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "system: expected keep or drop, found {other:?}"
            )));
        }
    };
    let until = until
        .map(str::parse::<u64>)
        .transpose()
        .map_err(|_| ApiError::bad_request("until: expected a TurnIndex"))?;
    Ok(ContextOptions {
        tokenizer,
        system,
        until,
        ..ContextOptions::new(budget, format)
    })
}

/// A context as JSON: the request body to send, and what went into it.
pub(crate) fn context_json(
    store: &HistoryStore,
    session: &str,
    options: &ContextOptions,
) -> Result<Value, ApiError> {
    let context = session_context(store, session, options)?;
    Ok(json!({
        "request": context.request,
        "format": context.format.name(),
        "tokenizer": context.tokenizer.name(),
        "tokens": context.tokens,
        "budget": context.budget,
        "turns": context.turns,
        "turns_available": context.turns_available,
        "awaiting": context.awaiting,
        "omitted": context.omitted,
    }))
}

/// `GET /sessions/{id}/context?budget=&format=&tokenizer=&system=&until=`.
async fn context(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parameters = Parameters::parse(
        query.as_deref(),
        &["budget", "format", "tokenizer", "system", "until"],
    )?;
    let get = |name: &str| parameters.get(name);
    let options = context_options(
        get("budget"),
        get("format"),
        get("tokenizer"),
        get("system"),
        get("until"),
    )?;
    let body = state
        .blocking(move |store: &HistoryStore| context_json(store, &id, &options))
        .await?;
    Ok(Json(body).into_response())
}

/// What `POST /sessions/{id}/memory` takes (and MCP's `remember`): a member it does
/// not know is refused, not left out of the item.
#[derive(Debug, Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct MemoryRequest {
    /// The TurnIndex of the turn it is derived from.
    pub turn: u64,
    /// fact, decision or lesson.
    pub kind: String,
    /// What to remember, in one or two sentences.
    pub text: String,
    /// From when it holds (RFC 3339, or a date).
    pub valid_from: Option<String>,
    /// Until when it holds, exclusive (RFC 3339, or a date).
    pub valid_until: Option<String>,
}

impl MemoryRequest {
    /// The library's request, for a session.
    pub(crate) fn to_remember(&self, session: String) -> Result<Remember, ApiError> {
        let time = |name: &str, text: &Option<String>| {
            text.as_deref()
                .map(|text| {
                    parse_date_time(text).ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "{name}: {text:?} is not a time (expected RFC 3339 or a date)"
                        ))
                    })
                })
                .transpose()
        };
        Ok(Remember {
            session,
            turn: self.turn,
            kind: self.kind.parse::<MemoryKind>()?,
            text: self.text.clone(),
            valid_from: time("valid_from", &self.valid_from)?,
            valid_until: time("valid_until", &self.valid_until)?,
        })
    }
}

/// A memory item written, as JSON.
pub(crate) fn remembered_json(
    store: &HistoryStore,
    request: &Remember,
) -> Result<(bool, Value), ApiError> {
    let item = remember(store, request, DateTime::now())?;
    Ok((
        item.created,
        json!({
            "id": item.id,
            "item": item.item.as_str(),
            "kind": request.kind.name(),
            "turn": item.turn.as_str(),
            "source": item.source.as_str(),
            "created": item.created,
        }),
    ))
}

/// `POST /sessions/{id}/memory` with `{turn, kind, text, valid_from?, valid_until?}`:
/// 201 for a new item, 200 when the turn was added to an item's sources.
async fn remember_turn(
    State(state): State<AppState>,
    caller: auth::Caller,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    auth::may_write(&caller)?;
    Parameters::parse(query.as_deref(), &[])?;
    let request: MemoryRequest = serde_json::from_slice(&body).map_err(|error| {
        ApiError::bad_request(format!(
            "the body is not a memory request ({{\"turn\", \"kind\", \"text\", \"valid_from\"?, \"valid_until\"?}}): {error}"
        ))
    })?;
    let request = request.to_remember(id)?;
    let (created, body) = state
        .write(move |store: &HistoryStore| remembered_json(store, &request))
        .await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(body)).into_response())
}

/// `GET /memory?session=&kind=&at=`: the memory items, as the `memories` query gives them.
async fn list(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parameters = Parameters::parse(query.as_deref(), &["session", "kind", "at"])?;
    let kind = parameters
        .get("kind")
        .map(str::parse::<MemoryKind>)
        .transpose()?;
    let mut arguments = memories_arguments(parameters.get("session"), kind);
    if let Some(at) = parameters.get("at") {
        arguments = arguments.raw("at", at);
    }
    let max_rows = state.options.max_results;
    let rows = state
        .blocking(move |store: &HistoryStore| {
            json_rows(store.run(&MEMORIES, &arguments)?, max_rows)
        })
        .await?;
    Ok(Json(json!({"items": rows})).into_response())
}

/// `DELETE /memory/{item}`: 204, or 404 when there is no such item.
async fn forget_item(
    State(state): State<AppState>,
    caller: auth::Caller,
    Path(item): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    auth::may_write(&caller)?;
    Parameters::parse(query.as_deref(), &[])?;
    state
        .write(move |store: &HistoryStore| Ok(forget(store, &item)?))
        .await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
