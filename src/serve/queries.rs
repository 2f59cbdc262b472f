//! The canned queries over HTTP: `GET /queries` lists them with their parameters, and
//! `GET /queries/{name}?PARAMETER=VALUE...` runs one, its answer in SPARQL JSON (or XML,
//! CSV, TSV by `Accept`).

use super::negotiate::choose;
use super::sparql::{RESULTS_OFFERS, Shaped, run_query, with_media};
use super::{ApiError, AppState};
use crate::query::{Arguments, CANNED_QUERIES, CannedQuery, GraphFormat, ResultsShape};
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/queries", get(list))
        .route("/queries/{name}", get(run))
}

/// The canned queries: name, what one row is, parameters.
pub(crate) fn catalogue() -> Value {
    let queries: Vec<Value> = CANNED_QUERIES
        .iter()
        .map(|query| {
            let parameters: Vec<Value> = query
                .parameters
                .iter()
                .map(|parameter| {
                    json!({
                        "name": parameter.name,
                        "expected": parameter.kind.expected(),
                        "required": parameter.required,
                        "default": parameter.default,
                    })
                })
                .collect();
            json!({"name": query.name, "rows": query.summary, "parameters": parameters})
        })
        .collect();
    json!({ "queries": queries })
}

async fn list() -> Json<Value> {
    Json(catalogue())
}

async fn run(
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let canned =
        CannedQuery::named(&name).map_err(|error| ApiError::not_found(error.to_string()))?;
    let arguments = form_urlencoded::parse(query.as_deref().unwrap_or("").as_bytes())
        .fold(Arguments::new(), |arguments, (name, value)| {
            arguments.raw(name.into_owned(), value.into_owned())
        });
    let (media, results) = choose(&headers, &with_media(RESULTS_OFFERS))?;
    let shaped = Shaped {
        media,
        shape: ResultsShape {
            results,
            graph: GraphFormat::Turtle,
            max_rows: Some(state.options.max_results),
        },
    };
    run_query(&state, shaped, move |store, cancel| {
        Ok(store.run_with(canned, &arguments, Some(cancel))?)
    })
    .await
}
