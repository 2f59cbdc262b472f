//! The SPARQL 1.1 Service Description of `/sparql`, answered to a GET without
//! parameters: the endpoint, the languages it takes (updates only when it takes them),
//! the formats it answers and reads, and the features that hold (a query's default
//! graph is the union of the named graphs; the full-text search service on a store with
//! an index), in the RDF syntax the `Accept` header prefers.

use super::negotiate::choose;
use super::{ApiError, AppState};
use crate::rdf::vocab::{rdf, sd};
use crate::store::SEARCH_SERVICE;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
use oxigraph::model::{Literal, NamedNode, NamedNodeRef, Triple};
use oxigraph::sparql::results::QueryResultsFormat;

/// The RDF syntaxes a graph is given in, the first one the default.
pub(crate) fn graph_offers() -> Vec<(&'static str, RdfFormat)> {
    vec![
        ("text/turtle", RdfFormat::Turtle),
        ("application/n-triples", RdfFormat::NTriples),
        ("application/rdf+xml", RdfFormat::RdfXml),
        (
            "application/ld+json",
            RdfFormat::JsonLd {
                profile: JsonLdProfileSet::empty(),
            },
        ),
        ("application/n-quads", RdfFormat::NQuads),
        ("application/trig", RdfFormat::TriG),
    ]
}

/// The description, serialized as the client prefers.
pub(crate) fn answer(
    state: &AppState,
    endpoint: &str,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let format = choose(headers, &graph_offers())?;
    let endpoint = NamedNode::new(endpoint).map_err(|error| {
        ApiError::bad_request(format!(
            "the endpoint's URL {endpoint:?} is not an IRI: {error}"
        ))
    })?;
    let updates = state.options.allow_update && state.access.writable();
    let search = state.store.search_index().is_some();
    let triples = describe(&endpoint, updates, search);
    let mut serializer = RdfSerializer::from_format(format);
    if format == RdfFormat::Turtle {
        serializer = serializer
            .with_prefix("sd", sd::NAMESPACE)
            .map_err(|error| ApiError::internal(error.to_string()))?;
    }
    let mut body = Vec::new();
    let mut writer = serializer.for_writer(&mut body);
    for triple in &triples {
        writer
            .serialize_triple(triple)
            .map_err(|error| ApiError::internal(error.to_string()))?;
    }
    writer
        .finish()
        .map_err(|error| ApiError::internal(error.to_string()))?;
    let mut response = body.into_response();
    if let Ok(value) = HeaderValue::from_str(format.media_type()) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    Ok(response)
}

/// The description's triples: `updates` when the server takes SPARQL updates, `search`
/// when the store answers `SERVICE text:search` itself.
fn describe(endpoint: &NamedNode, updates: bool, search: bool) -> Vec<Triple> {
    let about = |predicate: NamedNodeRef<'_>, object: NamedNodeRef<'_>| {
        Triple::new(endpoint.clone(), predicate, object)
    };
    let mut triples = vec![
        about(rdf::TYPE, sd::SERVICE),
        about(sd::ENDPOINT, endpoint.as_ref()),
        about(sd::SUPPORTED_LANGUAGE, sd::SPARQL10_QUERY),
        about(sd::SUPPORTED_LANGUAGE, sd::SPARQL11_QUERY),
        about(sd::DEFAULT_ENTAILMENT_REGIME, sd::SIMPLE_ENTAILMENT),
        about(sd::FEATURE, sd::UNION_DEFAULT_GRAPH),
    ];
    if updates {
        triples.push(about(sd::SUPPORTED_LANGUAGE, sd::SPARQL11_UPDATE));
    }
    for format in [
        QueryResultsFormat::Json,
        QueryResultsFormat::Xml,
        QueryResultsFormat::Csv,
        QueryResultsFormat::Tsv,
    ] {
        triples.push(about(
            sd::RESULT_FORMAT,
            NamedNodeRef::new_unchecked(format.iri()),
        ));
    }
    for format in [RdfFormat::Turtle, RdfFormat::NTriples] {
        triples.push(about(
            sd::RESULT_FORMAT,
            NamedNodeRef::new_unchecked(format.iri()),
        ));
    }
    let json_ld = RdfFormat::JsonLd {
        profile: JsonLdProfileSet::empty(),
    };
    triples.push(about(
        sd::RESULT_FORMAT,
        NamedNodeRef::new_unchecked(json_ld.iri()),
    ));
    if updates {
        // What the Graph Store at /store reads (the embedded store has no LOAD).
        for (_, format) in graph_offers() {
            triples.push(about(
                sd::INPUT_FORMAT,
                NamedNodeRef::new_unchecked(format.iri()),
            ));
        }
    }
    if search {
        let service = NamedNodeRef::new_unchecked(SEARCH_SERVICE);
        triples.push(about(sd::FEATURE, service));
        triples.push(Triple::new(service, rdf::TYPE, sd::FEATURE_CLASS));
        triples.push(Triple::new(
            service,
            rdf::LABEL,
            Literal::new_simple_literal(
                "full-text search: SERVICE <https://w3id.org/ihigraph/text#search> is answered by the store's own index",
            ),
        ));
    }
    triples
}
