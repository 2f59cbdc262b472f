//! The SPARQL 1.1 Protocol at `/sparql`: queries by GET, by POST of a form or of the
//! query itself; updates by POST, with the token and `--allow-update`. Answers in the
//! format the `Accept` header prefers; a query has a time limit and a row limit.

use super::auth::Caller;
use super::negotiate::{charset, choose, content_type};
use super::{ApiError, AppState, auth, description, endpoint_url};
use crate::query::{
    GraphFormat, MAX_NESTING, ResultsFormat, ResultsShape, check_nesting, write_results_shaped,
};
use crate::store::{HistoryStore, QueryOptions, StoreError, UpdateOptions};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use oxigraph::model::NamedNode;
use oxigraph::sparql::CancellationToken;
use spargebra::{Query, SparqlParser};
use std::sync::Arc;

/// The media types of SELECT and ASK answers, the first one the default.
pub(crate) const RESULTS_OFFERS: &[(&str, ResultsFormat)] = &[
    ("application/sparql-results+json", ResultsFormat::Json),
    ("application/json", ResultsFormat::Json),
    ("application/sparql-results+xml", ResultsFormat::Xml),
    ("application/xml", ResultsFormat::Xml),
    ("text/csv", ResultsFormat::Csv),
    ("text/tab-separated-values", ResultsFormat::Tsv),
];

/// The media types of CONSTRUCT and DESCRIBE answers, the first one the default.
const GRAPH_OFFERS: &[(&str, GraphFormat)] = &[
    ("text/turtle", GraphFormat::Turtle),
    ("application/n-triples", GraphFormat::NTriples),
    ("application/ld+json", GraphFormat::JsonLd),
];

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/sparql",
            get(sparql_get::<false>).post(sparql_post::<false>),
        )
        .route(
            "/sparql/inferred",
            get(sparql_get::<true>).post(sparql_post::<true>),
        )
}

/// Which statements a query of the endpoint reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dataset {
    /// The store as written (`/sparql`).
    Asserted,
    /// The sessions with what the ontologies entail about them (`/sparql/inferred`):
    /// read-only, on a store that reasons.
    Inferred,
}

impl Dataset {
    fn of(inferred: bool) -> Self {
        if inferred {
            Self::Inferred
        } else {
            Self::Asserted
        }
    }
}

/// What a protocol request asks.
enum Operation {
    Query {
        text: String,
        default_graphs: Vec<NamedNode>,
        named_graphs: Vec<NamedNode>,
    },
    Update {
        text: String,
        using_graphs: Vec<NamedNode>,
        using_named_graphs: Vec<NamedNode>,
    },
    /// A GET without parameters: the service description.
    Describe,
}

/// A GET of `/sparql` (`INFERRED`: of `/sparql/inferred`).
async fn sparql_get<const INFERRED: bool>(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(query): RawQuery,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let operation = operation(&Method::GET, query.as_deref().unwrap_or(""), None)?;
    let base = endpoint_url(&uri, &headers);
    answer(
        &state,
        &caller,
        operation,
        &base,
        &headers,
        Dataset::of(INFERRED),
    )
    .await
}

/// A POST to `/sparql` (`INFERRED`: to `/sparql/inferred`).
async fn sparql_post<const INFERRED: bool>(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(query): RawQuery,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let operation = posted(query.as_deref(), &headers, &body)?;
    let base = endpoint_url(&uri, &headers);
    answer(
        &state,
        &caller,
        operation,
        &base,
        &headers,
        Dataset::of(INFERRED),
    )
    .await
}

/// The operation a POST asks, its body in UTF-8.
fn posted(query: Option<&str>, headers: &HeaderMap, body: &Bytes) -> Result<Operation, ApiError> {
    check_charset(headers)?;
    operation(
        &Method::POST,
        query.unwrap_or(""),
        Some((&content_type(headers), body)),
    )
}

/// Refuses a body in another character set than UTF-8, the only one SPARQL texts are
/// sent in (SPARQL 1.1 Protocol §2.1.2, §2.2.2).
fn check_charset(headers: &HeaderMap) -> Result<(), ApiError> {
    match charset(headers) {
        Some(charset) if !charset.eq_ignore_ascii_case("utf-8") => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("the body's charset is {charset:?}: a SPARQL text is sent in UTF-8"),
        )),
        _ => Ok(()),
    }
}

async fn answer(
    state: &AppState,
    caller: &Caller,
    operation: Operation,
    base: &str,
    headers: &HeaderMap,
    dataset: Dataset,
) -> Result<Response, ApiError> {
    if dataset == Dataset::Inferred && matches!(operation, Operation::Update { .. }) {
        return Err(ApiError::bad_request(
            "/sparql/inferred is read-only: what it holds follows the store; send updates to /sparql",
        ));
    }
    match operation {
        Operation::Query {
            text,
            default_graphs,
            named_graphs,
        } => {
            let shape = shape_for(&text, base, headers, state.options.max_results)?;
            let options = QueryOptions {
                default_graphs,
                named_graphs,
                base_iri: Some(base.to_owned()),
                cancel: None,
            };
            run_query(state, shape, move |store, cancel| {
                let options = QueryOptions {
                    cancel: Some(cancel.clone()),
                    ..options
                };
                let results = match dataset {
                    Dataset::Asserted => store.query_with(&text, &options),
                    Dataset::Inferred => store.query_inferred(&text, &options),
                };
                results.map_err(|error| match error {
                        StoreError::UpdateNotAllowed => ApiError::bad_request(
                            "this is a SPARQL update: POST it as update= or as application/sparql-update",
                        ),
                        other => other.into(),
                    })
            })
            .await
        }
        Operation::Update {
            text,
            using_graphs,
            using_named_graphs,
        } => {
            if !state.options.allow_update {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    "SPARQL updates are disabled: the server was started without --allow-update",
                ));
            }
            auth::may_write(caller)?;
            let options = UpdateOptions {
                using_graphs,
                using_named_graphs,
                base_iri: Some(base.to_owned()),
            };
            state
                .write(move |store| Ok(store.update_with(&text, &options)?))
                .await?;
            Ok(StatusCode::NO_CONTENT.into_response())
        }
        Operation::Describe => description::answer(state, base, headers),
    }
}

/// The answer's shape: a query's form decides between the results and the graph
/// formats, and the `Accept` header within them.
fn shape_for(
    text: &str,
    base: &str,
    headers: &HeaderMap,
    max_rows: usize,
) -> Result<Shaped, ApiError> {
    // Nothing is parsed that nests deeper than the parser's stack holds.
    check_nesting(text, MAX_NESTING).map_err(|error| ApiError::bad_request(error.to_string()))?;
    let parsed = SparqlParser::new()
        .with_base_iri(base)
        .map_err(|error| {
            ApiError::bad_request(format!(
                "the endpoint's URL {base:?} is not an IRI: {error}"
            ))
        })?
        .parse_query(text);
    let graph_form = match parsed {
        Ok(query) => matches!(query, Query::Construct { .. } | Query::Describe { .. }),
        // The store tells what is wrong with the text.
        Err(_) => false,
    };
    let (media, shape) = if graph_form {
        let (media, graph) = choose(headers, &with_media(GRAPH_OFFERS))?;
        let shape = ResultsShape {
            results: ResultsFormat::Json,
            graph,
            max_rows: Some(max_rows),
        };
        (media, shape)
    } else {
        let (media, results) = choose(headers, &with_media(RESULTS_OFFERS))?;
        let shape = ResultsShape {
            results,
            graph: GraphFormat::Turtle,
            max_rows: Some(max_rows),
        };
        (media, shape)
    };
    Ok(Shaped { media, shape })
}

/// Offers that tell their media type beside their value.
pub(crate) fn with_media<T: Copy>(
    offers: &[(&'static str, T)],
) -> Vec<(&'static str, (&'static str, T))> {
    offers
        .iter()
        .map(|&(media, value)| (media, (media, value)))
        .collect()
}

/// An answer's media type and shape.
#[derive(Clone, Copy)]
pub(crate) struct Shaped {
    pub(crate) media: &'static str,
    pub(crate) shape: ResultsShape,
}

/// Runs a query on a thread of its own under the server's query limits, and writes its
/// answer in `shaped`; past the time or memory limit the query is stopped and 503
/// answered.
pub(crate) async fn run_query(
    state: &AppState,
    shaped: Shaped,
    query: impl FnOnce(
        &HistoryStore,
        &CancellationToken,
    ) -> Result<oxigraph::sparql::QueryResults<'static>, ApiError>
    + Send
    + 'static,
) -> Result<Response, ApiError> {
    let body = state
        .queries
        .run(Arc::clone(&state.store), move |store, token| {
            let results = query(store, token)?;
            let mut body = Vec::new();
            write_results_shaped(results, shaped.shape, store.scheme().base(), &mut body)?;
            Ok(body)
        })
        .await?;
    let mut response = body.into_response();
    let media = if shaped.media.starts_with("text/") {
        format!("{}; charset=utf-8", shaped.media)
    } else {
        shaped.media.to_owned()
    };
    if let Ok(value) = HeaderValue::from_str(&media) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    Ok(response)
}

/// Reads the protocol's parameters from the URL's query string and, for a POST, from
/// the body: a form, or the query or update itself.
fn operation(
    method: &Method,
    url_query: &str,
    body: Option<(&str, &Bytes)>,
) -> Result<Operation, ApiError> {
    let mut parameters: Vec<(String, String)> = form_urlencoded::parse(url_query.as_bytes())
        .into_owned()
        .collect();
    let mut direct = None;
    if let Some((media, bytes)) = body {
        let text = || {
            String::from_utf8(bytes.to_vec())
                .map_err(|_| ApiError::bad_request("the request body is not UTF-8"))
        };
        match media {
            "application/x-www-form-urlencoded" => {
                parameters.extend(form_urlencoded::parse(bytes).into_owned());
            }
            "application/sparql-query" => direct = Some(("query", text()?)),
            "application/sparql-update" => direct = Some(("update", text()?)),
            other => {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!(
                        "a POST to /sparql is application/x-www-form-urlencoded, application/sparql-query or application/sparql-update, not {:?}",
                        other
                    ),
                ));
            }
        }
    }
    if *method == Method::GET && parameters.is_empty() {
        return Ok(Operation::Describe);
    }
    let mut given = Given::default();
    for (name, value) in parameters {
        given.take(&name, value)?;
    }
    match direct {
        Some(("query", text)) => set_once(&mut given.query, "query", text)?,
        Some((_, text)) => set_once(&mut given.update, "update", text)?,
        None => {}
    }
    given.operation(method)
}

/// The protocol's parameters of one request, as given.
#[derive(Default)]
struct Given {
    query: Option<String>,
    update: Option<String>,
    default_graphs: Vec<NamedNode>,
    named_graphs: Vec<NamedNode>,
    using_graphs: Vec<NamedNode>,
    using_named_graphs: Vec<NamedNode>,
}

impl Given {
    /// Takes one parameter; those the protocol does not name are left (clients send
    /// their own).
    fn take(&mut self, name: &str, value: String) -> Result<(), ApiError> {
        match name {
            "query" => set_once(&mut self.query, "query", value)?,
            "update" => set_once(&mut self.update, "update", value)?,
            "default-graph-uri" => self.default_graphs.push(graph_iri(name, &value)?),
            "named-graph-uri" => self.named_graphs.push(graph_iri(name, &value)?),
            "using-graph-uri" => self.using_graphs.push(graph_iri(name, &value)?),
            "using-named-graph-uri" => self.using_named_graphs.push(graph_iri(name, &value)?),
            _ => {}
        }
        Ok(())
    }

    fn operation(self, method: &Method) -> Result<Operation, ApiError> {
        let query_dataset = !self.default_graphs.is_empty() || !self.named_graphs.is_empty();
        let update_dataset = !self.using_graphs.is_empty() || !self.using_named_graphs.is_empty();
        match (self.query, self.update) {
            (Some(_), Some(_)) => Err(ApiError::bad_request(
                "a request holds a query or an update, not both",
            )),
            (Some(_), None) if update_dataset => Err(ApiError::bad_request(
                "using-graph-uri and using-named-graph-uri are for updates; a query's dataset is default-graph-uri and named-graph-uri",
            )),
            (Some(text), None) => Ok(Operation::Query {
                text,
                default_graphs: self.default_graphs,
                named_graphs: self.named_graphs,
            }),
            (None, Some(_)) if *method == Method::GET => Err(ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "an update is sent by POST, never by GET",
            )),
            (None, Some(_)) if query_dataset => Err(ApiError::bad_request(
                "default-graph-uri and named-graph-uri are for queries; an update's dataset is using-graph-uri and using-named-graph-uri",
            )),
            (None, Some(text)) => Ok(Operation::Update {
                text,
                using_graphs: self.using_graphs,
                using_named_graphs: self.using_named_graphs,
            }),
            (None, None) => Err(ApiError::bad_request(
                "no query: give query= (GET or a POSTed form), a POSTed application/sparql-query, or an update; a GET without parameters gives the service description",
            )),
        }
    }
}

fn set_once(slot: &mut Option<String>, name: &str, value: String) -> Result<(), ApiError> {
    if slot.replace(value).is_some() {
        return Err(ApiError::bad_request(format!(
            "{name} is given more than once"
        )));
    }
    Ok(())
}

fn graph_iri(name: &str, value: &str) -> Result<NamedNode, ApiError> {
    NamedNode::new(value)
        .map_err(|error| ApiError::bad_request(format!("{name} {value:?} is not an IRI: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query_of(operation: Operation) -> (String, usize, usize) {
        match operation {
            Operation::Query {
                text,
                default_graphs,
                named_graphs,
            } => (text, default_graphs.len(), named_graphs.len()),
            _ => panic!("not a query"),
        }
    }

    #[test]
    fn the_three_request_forms_of_a_query() {
        let get = operation(
            &Method::GET,
            "query=ASK%20%7B%7D&default-graph-uri=http%3A%2F%2Fa",
            None,
        );
        assert_eq!(query_of(get.unwrap()), ("ASK {}".to_owned(), 1, 0));
        let form = Bytes::from_static(b"query=ASK+%7B%7D&named-graph-uri=http%3A%2F%2Fb");
        let post = operation(
            &Method::POST,
            "",
            Some(("application/x-www-form-urlencoded", &form)),
        );
        assert_eq!(query_of(post.unwrap()), ("ASK {}".to_owned(), 0, 1));
        let direct = Bytes::from_static(b"ASK {}");
        let post = operation(
            &Method::POST,
            "default-graph-uri=http%3A%2F%2Fa",
            Some(("application/sparql-query", &direct)),
        );
        assert_eq!(query_of(post.unwrap()), ("ASK {}".to_owned(), 1, 0));
    }

    #[test]
    fn updates_and_mistakes() {
        let body = Bytes::from_static(b"CLEAR ALL");
        let update = operation(
            &Method::POST,
            "",
            Some(("application/sparql-update", &body)),
        )
        .unwrap();
        assert!(matches!(update, Operation::Update { text, .. } if text == "CLEAR ALL"));
        let status = |result: Result<Operation, ApiError>| result.err().map(|error| error.status);
        assert_eq!(
            status(operation(&Method::GET, "update=CLEAR%20ALL", None)),
            Some(StatusCode::METHOD_NOT_ALLOWED)
        );
        assert_eq!(
            status(operation(&Method::GET, "query=a&query=b", None)),
            Some(StatusCode::BAD_REQUEST)
        );
        assert!(matches!(
            operation(&Method::GET, "", None),
            Ok(Operation::Describe)
        ));
        assert_eq!(
            status(operation(
                &Method::GET,
                "default-graph-uri=http%3A%2F%2Fa",
                None
            )),
            Some(StatusCode::BAD_REQUEST)
        );
        assert_eq!(
            status(operation(
                &Method::GET,
                "query=ASK%7B%7D&using-graph-uri=http%3A%2F%2Fa",
                None
            )),
            Some(StatusCode::BAD_REQUEST)
        );
        assert_eq!(
            status(operation(
                &Method::GET,
                "query=a&default-graph-uri=not%20an%20iri",
                None
            )),
            Some(StatusCode::BAD_REQUEST)
        );
        let text = Bytes::from_static(b"ASK {}");
        assert_eq!(
            status(operation(&Method::POST, "", Some(("text/plain", &text)))),
            Some(StatusCode::UNSUPPORTED_MEDIA_TYPE)
        );
    }
}
