//! The SPARQL 1.1 Graph Store HTTP Protocol at `/store`: a graph named by `?graph=IRI`
//! (resolved against the endpoint's URL) or `?default`, read by GET and HEAD in the RDF
//! syntax `Accept` prefers, replaced by PUT, added to by POST (a POST without a graph
//! makes a new one and answers its `Location`), dropped by DELETE. Writes need the token
//! and `--allow-update`, and go one at a time under the writer.
//!
//! What a graph is to ihigraph decides what a write does: a session's graph is written
//! as any session is (the triples taken back to a history, checked, mapped again and
//! taken only when the mapping is what was sent, then written with its fingerprint
//! record, digest and search entries), and deleted as `DELETE /sessions/{id}` deletes
//! it; ihigraph's own graphs (the default graph with the settings, fingerprints, memory,
//! derived data, ontologies) are refused, saying what they hold; any other graph is
//! stored as given.

use super::description::graph_offers;
use super::negotiate::{charset, choose, content_type};
use super::parameters::Parameters;
use super::sparql::with_media;
use super::{ApiError, AppState, auth, endpoint_url};
use crate::check::CheckOptions;
use crate::ingest::{GraphRefused, prepare_graph};
use crate::memory::delete_session;
use crate::store::{GraphRole, HistoryStore, session_id_in};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use oxigraph::io::{RdfFormat, RdfParser, RdfSerializer};
use oxigraph::model::{BlankNode, Graph, GraphName, NamedNode, Quad, Triple};

pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/store", get(read).put(put).post(post).delete(delete))
}

/// The graph a request names: `Some` for `?graph=` or `?default`, `None` for neither.
fn target(query: Option<&str>, base: &str) -> Result<Option<GraphName>, ApiError> {
    let parameters = Parameters::parse(query, &["graph", "default"])?;
    match (parameters.get("graph"), parameters.get("default")) {
        (Some(_), Some(_)) => Err(ApiError::bad_request(
            "give graph=IRI or default, not both: a request names one graph",
        )),
        (Some(iri), None) => Ok(Some(graph_iri(iri, base)?.into())),
        (None, Some(_)) => Ok(Some(GraphName::DefaultGraph)),
        (None, None) => Ok(None),
    }
}

/// A graph's IRI as `graph=` gives it, resolved against the endpoint's URL.
fn graph_iri(given: &str, base: &str) -> Result<NamedNode, ApiError> {
    let refused = |error: &dyn std::fmt::Display| {
        let shown: String = given.chars().take(200).collect();
        ApiError::bad_request(format!("graph={shown:?} is not an IRI: {error}"))
    };
    let base = oxiri::Iri::parse(base.to_owned()).map_err(|error| refused(&error))?;
    let resolved = base.resolve(given).map_err(|error| refused(&error))?;
    NamedNode::new(resolved.into_inner()).map_err(|error| refused(&error))
}

fn named_or_refuse(target: Option<GraphName>) -> Result<GraphName, ApiError> {
    target.ok_or_else(|| {
        ApiError::bad_request(
            "name a graph: /store?graph=IRI, or /store?default for the default graph",
        )
    })
}

fn shown(graph: &GraphName) -> String {
    match graph {
        GraphName::NamedNode(name) => name.to_string(),
        _ => "the default graph".to_owned(),
    }
}

async fn read(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let graph = named_or_refuse(target(query.as_deref(), &endpoint_url(&uri, &headers))?)?;
    let (media, format) = choose(&headers, &with_media(&graph_offers()))?;
    let max = state.options.max_results;
    let body = state
        .blocking(move |store| {
            let quads = store
                .graph_quads(&graph)?
                .ok_or_else(|| ApiError::not_found(format!("no graph {} in the store", shown(&graph))))?;
            if quads.len() > max {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!(
                        "{} holds {} triples, more than the {max} an answer may hold: read it by SPARQL in pages",
                        shown(&graph),
                        quads.len()
                    ),
                ));
            }
            serialize(&quads, format)
        })
        .await?;
    let mut response = body.into_response();
    let media = if media.starts_with("text/") {
        format!("{media}; charset=utf-8")
    } else {
        media.to_owned()
    };
    if let Ok(value) = HeaderValue::from_str(&media) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    Ok(response)
}

fn serialize(quads: &[Quad], format: RdfFormat) -> Result<Vec<u8>, ApiError> {
    let failed = |error: std::io::Error| {
        ApiError::internal(format!("the graph could not be written: {error}"))
    };
    let mut body = Vec::new();
    let mut writer = RdfSerializer::from_format(format).for_writer(&mut body);
    for quad in quads {
        if format.supports_datasets() {
            writer.serialize_quad(quad).map_err(failed)?;
        } else {
            writer.serialize_triple(quad.as_ref()).map_err(failed)?;
        }
    }
    writer.finish().map_err(failed)?;
    Ok(body)
}

/// A write's preconditions: the token (checked at the door already, for every write) and
/// `--allow-update`.
fn may_write(state: &AppState, caller: &auth::Caller) -> Result<(), ApiError> {
    if !state.options.allow_update {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Graph Store writes are disabled: the server was started without --allow-update",
        ));
    }
    auth::may_write(caller)
}

/// Refuses a write to one of ihigraph's own graphs, saying what it holds.
fn role_for_write(store: &HistoryStore, graph: &GraphName) -> Result<GraphRole, ApiError> {
    match store.graph_role(graph) {
        GraphRole::Own(holds) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "{} holds {holds}: ihigraph writes it itself, so the Graph Store does not",
                shown(graph)
            ),
        )),
        role => Ok(role),
    }
}

async fn put(
    State(state): State<AppState>,
    caller: auth::Caller,
    RawQuery(query): RawQuery,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    may_write(&state, &caller)?;
    let base = endpoint_url(&uri, &headers);
    let graph = named_or_refuse(target(query.as_deref(), &base)?)?;
    let role = role_for_write(&state.store, &graph)?;
    let GraphName::NamedNode(name) = graph else {
        return Err(ApiError::internal("the default graph is ihigraph's own"));
    };
    let triples = parse_off_thread(&headers, body, name.as_str().to_owned()).await?;
    match role {
        GraphRole::Session => put_session(&state, name, triples).await,
        _ => {
            let existed = state
                .write(move |store| Ok(store.replace_other_graph(&name, triples)?))
                .await?;
            Ok(created_or_replaced(!existed))
        }
    }
}

fn created_or_replaced(created: bool) -> Response {
    if created {
        StatusCode::CREATED.into_response()
    } else {
        StatusCode::NO_CONTENT.into_response()
    }
}

/// A session's graph given whole: checked and mapped off the writer, written under it.
async fn put_session(
    state: &AppState,
    graph: NamedNode,
    triples: Vec<Triple>,
) -> Result<Response, ApiError> {
    let scheme = state.store.scheme().clone();
    let session = tokio::task::spawn_blocking(move || {
        session_from(&Graph::from_iter(triples), &graph, &scheme)
    })
    .await
    .map_err(|error| ApiError::internal(format!("the request's work failed: {error}")))??;
    let outcome = state
        .write(move |store| Ok(store.write_session(&session)?))
        .await?;
    Ok(created_or_replaced(!outcome.replaced && !outcome.unchanged))
}

/// The session a graph's triples hold, checked and mapped; refused with its
/// diagnostics (400), or with why it is not taken whole (422).
fn session_from(
    triples: &Graph,
    graph: &NamedNode,
    scheme: &crate::rdf::IriScheme,
) -> Result<crate::rdf::SessionGraph, ApiError> {
    let prepared =
        prepare_graph(triples, graph, CheckOptions::default(), scheme).map_err(|refused| {
            let status = match refused {
                GraphRefused::Json(_) => StatusCode::INTERNAL_SERVER_ERROR,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            ApiError::new(
                status,
                format!(
                    "{graph} is a session's graph, written only as a session: {}",
                    super::error::chain(&refused)
                ),
            )
        })?;
    if prepared.session.is_none() {
        let diagnostics: Vec<_> = prepared.diagnostics.clone();
        return Err(ApiError::refused(
            format!("{graph} is a session's graph, and the session its triples hold was refused"),
            &prepared.origin,
            &diagnostics,
        ));
    }
    prepared
        .session
        .ok_or_else(|| ApiError::internal("an accepted document has a session graph"))
}

async fn post(
    State(state): State<AppState>,
    caller: auth::Caller,
    RawQuery(query): RawQuery,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    may_write(&state, &caller)?;
    let base = endpoint_url(&uri, &headers);
    let (graph, made) = match target(query.as_deref(), &base)? {
        Some(graph) => (graph, false),
        // A new graph, named under the endpoint's URL (the protocol's graph creation).
        None => (
            GraphName::NamedNode(graph_iri(
                &format!("{base}/{}", BlankNode::default().as_str()),
                &base,
            )?),
            true,
        ),
    };
    let role = role_for_write(&state.store, &graph)?;
    let GraphName::NamedNode(name) = graph else {
        return Err(ApiError::internal("the default graph is ihigraph's own"));
    };
    let triples = parse_off_thread(&headers, body, name.as_str().to_owned()).await?;
    let existed = match role {
        GraphRole::Session => {
            let scheme = state.store.scheme().clone();
            let name = name.clone();
            state
                .write(move |store| add_to_session(store, &name, triples, &scheme))
                .await?
        }
        _ => {
            let name = name.clone();
            state
                .write(move |store| Ok(store.add_to_other_graph(&name, triples)?))
                .await?
        }
    };
    let mut response = created_or_replaced(!existed);
    if made {
        let location = format!(
            "/store?graph={}",
            form_urlencoded::byte_serialize(name.as_str().as_bytes()).collect::<String>()
        );
        if let Ok(value) = HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    Ok(response)
}

/// Triples added to a session's graph: the session they make with what it holds,
/// checked and written as a whole; whether it existed.
fn add_to_session(
    store: &HistoryStore,
    graph: &NamedNode,
    triples: Vec<Triple>,
    scheme: &crate::rdf::IriScheme,
) -> Result<bool, ApiError> {
    let stored = store.graph_quads(&GraphName::NamedNode(graph.clone()))?;
    let existed = stored.is_some();
    let mut whole: Graph = stored
        .unwrap_or_default()
        .into_iter()
        .map(Triple::from)
        .collect();
    whole.extend(triples);
    let session = session_from(&whole, graph, scheme)?;
    store.write_session(&session)?;
    Ok(existed)
}

async fn delete(
    State(state): State<AppState>,
    caller: auth::Caller,
    RawQuery(query): RawQuery,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    may_write(&state, &caller)?;
    let graph = named_or_refuse(target(query.as_deref(), &endpoint_url(&uri, &headers))?)?;
    let role = role_for_write(&state.store, &graph)?;
    let GraphName::NamedNode(name) = graph else {
        return Err(ApiError::internal("the default graph is ihigraph's own"));
    };
    let missing = || ApiError::not_found(format!("no graph {name} in the store"));
    let dropped = match role {
        GraphRole::Session => {
            let graph = name.clone();
            state
                .write(move |store| delete_session_graph(store, &graph))
                .await?
        }
        _ => {
            let graph = name.clone();
            state
                .write(move |store| Ok(store.drop_other_graph(&graph)?))
                .await?
        }
    };
    if dropped {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(missing())
    }
}

/// A session's graph dropped as `DELETE /sessions/{id}` drops it: with the memory made
/// from it, its fingerprint record, digest and search entries; whether it existed.
fn delete_session_graph(store: &HistoryStore, graph: &NamedNode) -> Result<bool, ApiError> {
    let Some(quads) = store.graph_quads(&GraphName::NamedNode(graph.clone()))? else {
        return Ok(false);
    };
    let Some(session_id) = session_id_in(&quads) else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!(
                "{graph} is named as a session's graph but holds no session: drop it with a SPARQL update"
            ),
        ));
    };
    let receipt = delete_session(store, &session_id, false)?;
    if receipt.mentions_left > 0 {
        return Err(ApiError::internal(format!(
            "session {session_id:?} was deleted, but {} mentions of it are left",
            receipt.mentions_left
        )));
    }
    Ok(true)
}

/// Parses a body on a blocking thread (a large one takes a while).
async fn parse_off_thread(
    headers: &HeaderMap,
    body: Bytes,
    base: String,
) -> Result<Vec<Triple>, ApiError> {
    let media = content_type(headers);
    let charset = charset(headers);
    let boundary = boundary(headers);
    tokio::task::spawn_blocking(move || {
        if media == "multipart/form-data" {
            let boundary = boundary.ok_or_else(|| {
                ApiError::bad_request(
                    "a multipart/form-data body needs its boundary in Content-Type",
                )
            })?;
            let mut triples = Vec::new();
            for (index, part) in multipart_parts(&body, &boundary)?.into_iter().enumerate() {
                let (media, charset, content) = part;
                let parsed =
                    parse_triples(&media, charset.as_deref(), content, &base).map_err(|error| {
                        ApiError::new(
                            error.status,
                            format!("part {} of the form: {}", index + 1, error.message),
                        )
                    })?;
                triples.extend(parsed);
            }
            return Ok(triples);
        }
        parse_triples(&media, charset.as_deref(), &body, &base)
    })
    .await
    .map_err(|error| ApiError::internal(format!("the request's work failed: {error}")))?
}

/// The RDF syntax of a graph's body, by its media type: one of those a graph is given
/// in, and no alias (Oxigraph reads `text/plain` as N-Triples and `application/json` as
/// JSON-LD; a body sent with either is more likely a mistake).
fn body_format(media: &str) -> Result<RdfFormat, ApiError> {
    let offers = graph_offers();
    offers
        .iter()
        .find(|(offered, _)| *offered == media)
        .map(|(_, format)| *format)
        .ok_or_else(|| {
            let offered: Vec<&str> = offers.iter().map(|(media, _)| *media).collect();
            ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "a graph's body is {} (or multipart/form-data of them), not {media:?}",
                    offered.join(", ")
                ),
            )
        })
}

/// The triples of a body in `media`, blank nodes renamed apart from those stored;
/// 400 with the line and column where it does not parse.
fn parse_triples(
    media: &str,
    charset: Option<&str>,
    body: &[u8],
    base: &str,
) -> Result<Vec<Triple>, ApiError> {
    let format = body_format(media)?;
    if let Some(charset) = charset.filter(|charset| !charset.eq_ignore_ascii_case("utf-8")) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("the body's charset is {charset:?}: RDF is read in UTF-8"),
        ));
    }
    // RDF/XML's entities expand as they are declared: ten nested declarations of ten
    // references each make gigabytes from a kilobyte. No graph needs them.
    if format == RdfFormat::RdfXml && body.windows(8).any(|window| window == b"<!ENTITY") {
        return Err(ApiError::bad_request(
            "the RDF/XML body declares entities (<!ENTITY): they are not read here",
        ));
    }
    let parser = RdfParser::from_format(format)
        .with_base_iri(base)
        .map_err(|error| ApiError::bad_request(format!("the graph's IRI is no base: {error}")))?
        .without_named_graphs()
        .rename_blank_nodes();
    let mut triples = Vec::new();
    for quad in parser.for_slice(body) {
        let quad = quad.map_err(|error| {
            let place = error.location().map_or_else(String::new, |range| {
                format!(
                    " at line {} column {}",
                    range.start.line + 1,
                    range.start.column + 1
                )
            });
            ApiError::bad_request(format!(
                "the body is not valid {}{place}: {error}",
                format.name()
            ))
        })?;
        triples.push(Triple::from(quad));
    }
    Ok(triples)
}

/// The `boundary` parameter of a multipart body's media type.
fn boundary(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    value.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_owned())
            .filter(|boundary| !boundary.is_empty() && boundary.len() <= 200)
    })
}

/// The parts of a `multipart/form-data` body (RFC 7578): each one's media type, charset
/// and content.
type Part<'a> = (String, Option<String>, &'a [u8]);

fn multipart_parts<'a>(body: &'a [u8], boundary: &str) -> Result<Vec<Part<'a>>, ApiError> {
    let malformed = |what: &str| {
        ApiError::bad_request(format!("the multipart/form-data body is malformed: {what}"))
    };
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut starts = Vec::new();
    let mut at = 0;
    while let Some(found) = find(&body[at..], delimiter) {
        starts.push(at + found);
        at += found + delimiter.len();
    }
    if starts.len() < 2 {
        return Err(malformed("no part between two boundaries"));
    }
    let mut parts = Vec::new();
    for pair in starts.windows(2) {
        let part = &body[pair[0] + delimiter.len()..pair[1]];
        let part = part
            .strip_prefix(b"\r\n")
            .or_else(|| part.strip_prefix(b"\n"))
            .unwrap_or(part);
        let part = part
            .strip_suffix(b"\r\n")
            .or_else(|| part.strip_suffix(b"\n"))
            .unwrap_or(part);
        let (head, content) = find(part, b"\r\n\r\n")
            .map(|end| (&part[..end], &part[end + 4..]))
            .or_else(|| find(part, b"\n\n").map(|end| (&part[..end], &part[end + 2..])))
            .ok_or_else(|| malformed("a part has no blank line after its headers"))?;
        let head =
            std::str::from_utf8(head).map_err(|_| malformed("a part's headers are not UTF-8"))?;
        let mut headers = HeaderMap::new();
        for line in head.lines() {
            if let Some((name, value)) = line.split_once(':')
                && let (Ok(name), Ok(value)) = (
                    header::HeaderName::from_bytes(name.trim().as_bytes()),
                    HeaderValue::from_str(value.trim()),
                )
            {
                headers.append(name, value);
            }
        }
        parts.push((content_type(&headers), charset(&headers), content));
    }
    Ok(parts)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_one_graph_resolved_against_the_endpoint() {
        let base = "http://127.0.0.1:7878/store";
        assert_eq!(
            target(Some("graph=http%3A%2F%2Fexample.org%2Fg"), base).unwrap(),
            Some(NamedNode::new_unchecked("http://example.org/g").into())
        );
        assert_eq!(
            target(Some("graph=people/1"), base).unwrap(),
            Some(NamedNode::new_unchecked("http://127.0.0.1:7878/people/1").into())
        );
        assert_eq!(
            target(Some("default"), base).unwrap(),
            Some(GraphName::DefaultGraph)
        );
        assert_eq!(target(None, base).unwrap(), None);
        for bad in [
            "graph=a&default",
            "graph=http%3A%2F%2Fa%20b",
            "graph=a&graph=b",
            "grpah=a",
        ] {
            let error = target(Some(bad), base).unwrap_err();
            assert_eq!(error.status, StatusCode::BAD_REQUEST, "{bad}");
        }
    }

    #[test]
    fn bodies_parse_or_say_where_they_do_not() {
        let base = "http://example.org/g";
        let triples = parse_triples("text/turtle", None, b"<s> <p> [ <q> 1 ] .", base).unwrap();
        assert_eq!(triples.len(), 2);
        let error =
            parse_triples("text/turtle", None, b"<s> <p> <o> .\n<s> <p> .", base).unwrap_err();
        assert_eq!(error.status, StatusCode::BAD_REQUEST);
        assert!(error.message.contains("line 2"), "{}", error.message);
        let error = parse_triples(
            "application/n-quads",
            None,
            b"<http://s> <http://p> <http://o> <http://g> .",
            base,
        )
        .unwrap_err();
        assert_eq!(error.status, StatusCode::BAD_REQUEST, "{}", error.message);
        let error = parse_triples("text/plain", None, b"", base).unwrap_err();
        assert_eq!(error.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let error = parse_triples("text/turtle", Some("latin-1"), b"", base).unwrap_err();
        assert_eq!(error.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let bomb = b"<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>";
        let error = parse_triples("application/rdf+xml", None, bomb, base).unwrap_err();
        assert!(error.message.contains("ENTITY"), "{}", error.message);
    }

    #[test]
    fn multipart_parts_are_read_with_their_media_types() {
        let body = b"--xyz\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.ttl\"\r\nContent-Type: text/turtle; charset=utf-8\r\n\r\n<http://s> <http://p> \"a\" .\r\n--xyz\r\nContent-Type: application/n-triples\r\n\r\n<http://s> <http://p> \"b\" .\r\n--xyz--\r\n";
        let parts = multipart_parts(body, "xyz").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].0, "text/turtle");
        assert_eq!(parts[0].1.as_deref(), Some("utf-8"));
        assert_eq!(parts[1].2, b"<http://s> <http://p> \"b\" .");
        assert!(multipart_parts(b"no boundary here", "xyz").is_err());
        assert!(multipart_parts(b"--xyz\r\nno blank line--xyz--", "xyz").is_err());
    }
}
