//! The W3C SPARQL 1.1 Protocol test suite (w3c/rdf-tests,
//! `sparql/sparql11/protocol/manifest.ttl`), one test per entry, named after it, run
//! against a real `ihigraph serve` with a real HTTP client (ureq). The suite's requests
//! are prose; each test sends the entry's request(s) as written (its path `/sparql/` is
//! this server's `/sparql`, as the manifest says to replace it) and asserts what the
//! entry expects: the status class, the result format, the boolean. The server runs
//! with `--allow-update`, and every request bears the token, as a client configured for
//! it sends it; the token and `--allow-update` are checked on their own at the end. Then
//! the service description a GET without parameters gives.
#![allow(clippy::unwrap_used, clippy::panic)]

use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{NamedNode, Triple};

mod common;

use common::serving::{BEARER, Reply, Server, call, get};

const MANIFEST: &str = "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/protocol/manifest#";

/// The graphs `ut:graphData` names: `<dataN.rdf> a foaf:Document` in the graph `<dataN.rdf>`.
const DATA: &str = "http://kasei.us/2009/09/sparql/data/data";

fn server() -> Server {
    Server::start(&["--allow-update"])
}

/// A server holding the suite's graphs data1, data2 and data3.
fn server_with_data() -> Server {
    let server = server();
    let mut update = String::from("INSERT DATA {\n");
    for n in 1..=3 {
        update.push_str(&format!(
            "  GRAPH <{DATA}{n}.rdf> {{ <{DATA}{n}.rdf> a <http://xmlns.com/foaf/0.1/Document> }}\n"
        ));
    }
    update.push('}');
    let loaded = send(
        &server,
        "POST",
        "/sparql",
        Some("application/sparql-update"),
        Some(update.as_bytes()),
    );
    assert_eq!(loaded.status, 204, "{}", loaded.body);
    server
}

/// One of the suite's requests: `path` is the manifest's `ht:absolutePath` with
/// `/sparql/` read as `/sparql`.
fn send(
    server: &Server,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Option<&[u8]>,
) -> Reply {
    let path = path.replacen("/sparql/", "/sparql", 1);
    let mut headers = vec![BEARER];
    if let Some(media) = content_type {
        headers.push(("Content-Type", media));
    }
    call(method, &server.url(&path), &headers, body)
}

fn assert_success(reply: &Reply) {
    assert!(
        (200..400).contains(&reply.status),
        "expected 2xx or 3xx: {} {}",
        reply.status,
        reply.body
    );
}

fn assert_client_error(reply: &Reply) {
    assert!(
        (400..500).contains(&reply.status),
        "expected 4xx: {} {}",
        reply.status,
        reply.body
    );
    // A clear message: every refusal is JSON saying what was wrong.
    assert!(
        !reply.json()["error"].as_str().unwrap_or("").is_empty(),
        "{}",
        reply.body
    );
}

/// `mf:expectedFormat "boolean"` with `mf:expectedBoolean`: a SPARQL results document
/// (JSON or XML) holding that boolean.
fn assert_boolean(reply: &Reply, expected: bool) {
    assert_success(reply);
    if reply
        .content_type
        .starts_with("application/sparql-results+json")
    {
        assert_eq!(reply.json()["boolean"], expected, "{}", reply.body);
    } else if reply
        .content_type
        .starts_with("application/sparql-results+xml")
    {
        assert!(
            reply
                .body
                .contains(&format!("<boolean>{expected}</boolean>")),
            "{}",
            reply.body
        );
    } else {
        panic!("not a boolean result format: {}", reply.content_type);
    }
}

/// `mf:expectedFormat "tabular"`: SPARQL results in XML, JSON, CSV or TSV.
fn assert_tabular(reply: &Reply) {
    assert_success(reply);
    let media = reply.content_type.split(';').next().unwrap().trim();
    assert!(
        [
            "application/sparql-results+xml",
            "application/sparql-results+json",
            "text/csv",
            "text/tab-separated-values"
        ]
        .contains(&media),
        "{media}"
    );
}

/// `mf:expectedFormat "RDF"`: RDF/XML, Turtle, N-Triples (or RDFa), which parses.
fn assert_rdf(reply: &Reply) -> Vec<Triple> {
    assert_success(reply);
    let media = reply.content_type.split(';').next().unwrap().trim();
    let format = match media {
        "application/rdf+xml" => RdfFormat::RdfXml,
        "text/turtle" => RdfFormat::Turtle,
        "application/n-triples" => RdfFormat::NTriples,
        other => panic!("not an RDF format the suite names: {other}"),
    };
    RdfParser::from_format(format)
        .for_slice(reply.body.as_bytes())
        .map(|quad| Triple::from(quad.unwrap()))
        .collect()
}

fn ask(server: &Server, query: &str) -> Reply {
    send(
        server,
        "POST",
        "/sparql/",
        Some("application/sparql-query"),
        Some(query.as_bytes()),
    )
}

// <http://www.w3.org/2009/sparql/docs/tests/data-sparql11/protocol/manifest#query_post_form>
#[test]
fn query_post_form() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        Some("application/x-www-form-urlencoded"),
        Some(b"query=ASK%20%7B%7D"),
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_dataset_default_graphs_get>
#[test]
fn query_dataset_default_graphs_get() {
    let server = server_with_data();
    let reply = send(
        &server,
        "GET",
        "/sparql/?query=ASK%20%7B%20%3Chttp%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf%3E%20a%20%3Ftype%20.%20%3Chttp%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf%3E%20a%20%3Ftype%20.%20%7D&default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        None,
        None,
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_dataset_default_graphs_post>
#[test]
fn query_dataset_default_graphs_post() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        Some("application/sparql-query"),
        Some(b"ASK { <http://kasei.us/2009/09/sparql/data/data1.rdf> a ?type . <http://kasei.us/2009/09/sparql/data/data2.rdf> a ?type . }"),
    );
    assert_boolean(&reply, true);
    // The protocol's default graph is the merge of those named, and only of those.
    let only_one = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf",
        Some("application/sparql-query"),
        Some(b"ASK { <http://kasei.us/2009/09/sparql/data/data2.rdf> a ?type }"),
    );
    assert_boolean(&only_one, false);
}

// <...manifest#query_dataset_named_graphs_post>
#[test]
fn query_dataset_named_graphs_post() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/?named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        Some("application/sparql-query"),
        Some(b"ASK { GRAPH ?g1 { <http://kasei.us/2009/09/sparql/data/data1.rdf> a ?type } GRAPH ?g2 { <http://kasei.us/2009/09/sparql/data/data2.rdf> a ?type } }"),
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_dataset_named_graphs_get>
#[test]
fn query_dataset_named_graphs_get() {
    let server = server_with_data();
    let reply = send(
        &server,
        "GET",
        "/sparql/?query=ASK%20%7B%20GRAPH%20%3Fg1%20%7B%20%3Chttp%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf%3E%20a%20%3Ftype%20%7D%20GRAPH%20%3Fg2%20%7B%20%3Chttp%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf%3E%20a%20%3Ftype%20%7D%20%7D&named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        None,
        None,
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_dataset_full>
#[test]
fn query_dataset_full() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata3.rdf&named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        Some("application/sparql-query"),
        Some(
            b"ASK {
  <http://kasei.us/2009/09/sparql/data/data3.rdf> a ?type
  GRAPH ?g1 { <http://kasei.us/2009/09/sparql/data/data1.rdf> a ?type }
  GRAPH ?g2 { <http://kasei.us/2009/09/sparql/data/data2.rdf> a ?type }
}",
        ),
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_multiple_dataset>
#[test]
fn query_multiple_dataset() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/?named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        Some("application/sparql-query"),
        Some(b"ASK FROM <http://kasei.us/2009/09/sparql/data/data3.rdf> { GRAPH ?g1 { <http://kasei.us/2009/09/sparql/data/data1.rdf> a ?type } GRAPH ?g2 { <http://kasei.us/2009/09/sparql/data/data2.rdf> a ?type } }"),
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_get>
#[test]
fn query_get() {
    let server = server();
    let reply = send(
        &server,
        "GET",
        "/sparql/?query=ASK%20%7B%7D&default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        None,
        None,
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_content_type_select>
#[test]
fn query_content_type_select() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        Some("application/sparql-query"),
        Some(b"SELECT (1 AS ?value) {}"),
    );
    assert_tabular(&reply);
    assert_eq!(
        reply.json()["results"]["bindings"][0]["value"]["value"],
        "1"
    );
}

// <...manifest#query_content_type_ask>
#[test]
fn query_content_type_ask() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        Some("application/sparql-query"),
        Some(b"ASK {}"),
    );
    assert_boolean(&reply, true);
}

// <...manifest#query_content_type_describe>
#[test]
fn query_content_type_describe() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        Some("application/sparql-query"),
        Some(b"DESCRIBE <http://example.org/>"),
    );
    assert_rdf(&reply);
}

// <...manifest#query_content_type_construct>
#[test]
fn query_content_type_construct() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/?default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        Some("application/sparql-query"),
        Some(b"CONSTRUCT { <s> <p> 1 } WHERE {}"),
    );
    let triples = assert_rdf(&reply);
    // The relative IRIs resolved against the endpoint's URL, the server's base.
    assert_eq!(triples.len(), 1, "{}", reply.body);
    assert_eq!(
        triples[0].subject.to_string(),
        format!("<{}>", server.url("/s"))
    );
}

/// An update's first request, then its ASK, which must be true.
fn update_then_ask(path: &str, update: &str, check: &str) {
    let server = server();
    let reply = send(
        &server,
        "POST",
        path,
        Some("application/sparql-update"),
        Some(update.as_bytes()),
    );
    assert_success(&reply);
    assert_boolean(&ask(&server, check), true);
}

// <...manifest#update_dataset_default_graph>
#[test]
fn update_dataset_default_graph() {
    update_then_ask(
        "/sparql/?using-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf",
        "PREFIX dc: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
CLEAR ALL ;
INSERT DATA {
    GRAPH <http://kasei.us/2009/09/sparql/data/data1.rdf> {
        <http://kasei.us/2009/09/sparql/data/data1.rdf> a foaf:Document
    }
} ;
INSERT {
    GRAPH <http://example.org/protocol-update-dataset-test/> {
        ?s a dc:BibliographicResource
    }
}
WHERE {
    ?s a foaf:Document
}",
        "ASK {
    GRAPH <http://example.org/protocol-update-dataset-test/> {
        <http://kasei.us/2009/09/sparql/data/data1.rdf> a <http://purl.org/dc/terms/BibliographicResource>
    }
}",
    );
}

// <...manifest#update_dataset_default_graphs>
#[test]
fn update_dataset_default_graphs() {
    update_then_ask(
        "/sparql/?using-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&using-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        "PREFIX dc: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
DROP ALL ;
INSERT DATA {
    GRAPH <http://kasei.us/2009/09/sparql/data/data1.rdf> { <http://kasei.us/2009/09/sparql/data/data1.rdf> a foaf:Document }
    GRAPH <http://kasei.us/2009/09/sparql/data/data2.rdf> { <http://kasei.us/2009/09/sparql/data/data2.rdf> a foaf:Document }
    GRAPH <http://kasei.us/2009/09/sparql/data/data3.rdf> { <http://kasei.us/2009/09/sparql/data/data3.rdf> a foaf:Document }
} ;
INSERT {
    GRAPH <http://example.org/protocol-update-dataset-graphs-test/> {
        ?s a dc:BibliographicResource
    }
}
WHERE {
    ?s a foaf:Document
}",
        "ASK {
    GRAPH <http://example.org/protocol-update-dataset-graphs-test/> {
        <http://kasei.us/2009/09/sparql/data/data1.rdf> a <http://purl.org/dc/terms/BibliographicResource> .
        <http://kasei.us/2009/09/sparql/data/data2.rdf> a <http://purl.org/dc/terms/BibliographicResource> .
    }
    FILTER NOT EXISTS {
        GRAPH <http://example.org/protocol-update-dataset-graphs-test/> {
            <http://kasei.us/2009/09/sparql/data/data3.rdf> a <http://purl.org/dc/terms/BibliographicResource> .
        }
    }
}",
    );
}

// <...manifest#update_dataset_named_graphs>
#[test]
fn update_dataset_named_graphs() {
    update_then_ask(
        "/sparql/?using-named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&using-named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        "PREFIX dc: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
DROP ALL ;
INSERT DATA {
    GRAPH <http://kasei.us/2009/09/sparql/data/data1.rdf> { <http://kasei.us/2009/09/sparql/data/data1.rdf> a foaf:Document }
    GRAPH <http://kasei.us/2009/09/sparql/data/data2.rdf> { <http://kasei.us/2009/09/sparql/data/data2.rdf> a foaf:Document }
    GRAPH <http://kasei.us/2009/09/sparql/data/data3.rdf> { <http://kasei.us/2009/09/sparql/data/data3.rdf> a foaf:Document }
} ;
INSERT {
    GRAPH <http://example.org/protocol-update-dataset-named-graphs-test/> {
        ?s a dc:BibliographicResource
    }
}
WHERE {
    GRAPH ?g {
        ?s a foaf:Document
    }
}",
        "ASK {
    GRAPH <http://example.org/protocol-update-dataset-named-graphs-test/> {
        <http://kasei.us/2009/09/sparql/data/data1.rdf> a <http://purl.org/dc/terms/BibliographicResource> .
        <http://kasei.us/2009/09/sparql/data/data2.rdf> a <http://purl.org/dc/terms/BibliographicResource> .
    }
    FILTER NOT EXISTS {
        GRAPH <http://example.org/protocol-update-dataset-named-graphs-test/> {
            <http://kasei.us/2009/09/sparql/data/data3.rdf> a <http://purl.org/dc/terms/BibliographicResource> .
        }
    }
}",
    );
}

// <...manifest#update_dataset_full>
#[test]
fn update_dataset_full() {
    update_then_ask(
        "/sparql/?using-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata1.rdf&using-named-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata2.rdf",
        "PREFIX dc: <http://purl.org/dc/terms/>
PREFIX foaf: <http://xmlns.com/foaf/0.1/>
DROP ALL ;
INSERT DATA {
    GRAPH <http://kasei.us/2009/09/sparql/data/data1.rdf> { <http://kasei.us/2009/09/sparql/data/data1.rdf> a foaf:Document }
    GRAPH <http://kasei.us/2009/09/sparql/data/data2.rdf> { <http://kasei.us/2009/09/sparql/data/data2.rdf> a foaf:Document }
    GRAPH <http://kasei.us/2009/09/sparql/data/data3.rdf> { <http://kasei.us/2009/09/sparql/data/data3.rdf> a foaf:Document }
} ;
INSERT {
    GRAPH <http://example.org/protocol-update-dataset-full-test/> {
        ?s <http://example.org/in> ?in
    }
}
WHERE {
    {
        GRAPH ?g { ?s a foaf:Document }
        BIND(?g AS ?in)
    }
    UNION
    {
        ?s a foaf:Document .
        BIND(\"default\" AS ?in)
    }
}",
        "ASK {
    GRAPH <http://example.org/protocol-update-dataset-full-test/> {
        <http://kasei.us/2009/09/sparql/data/data1.rdf> <http://example.org/in> \"default\" .
        <http://kasei.us/2009/09/sparql/data/data2.rdf> <http://example.org/in> <http://kasei.us/2009/09/sparql/data/data2.rdf> .
    }
    FILTER NOT EXISTS {
        GRAPH <http://example.org/protocol-update-dataset-full-test/> {
            <http://kasei.us/2009/09/sparql/data/data3.rdf> ?p ?o
        }
    }
}",
    );
}

// <...manifest#update_post_form>
#[test]
fn update_post_form() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/x-www-form-urlencoded"),
        Some(b"update=CLEAR+ALL"),
    );
    assert_success(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), false);
}

// <...manifest#update_post_direct>
#[test]
fn update_post_direct() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/sparql-update"),
        Some(b"CLEAR ALL"),
    );
    assert_success(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), false);
}

// <...manifest#update_base_uri>
#[test]
fn update_base_uri() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/sparql-update"),
        Some(b"CLEAR SILENT GRAPH <http://example.org/protocol-base-test/> ;
INSERT DATA { GRAPH <http://example.org/protocol-base-test/> { <http://example.org/s> <http://example.org/p> <test> } }"),
    );
    assert_success(&reply);
    assert_boolean(
        &ask(
            &server,
            "ASK {
    GRAPH <http://example.org/protocol-base-test/> {
        <http://example.org/s> <http://example.org/p> ?o
        FILTER (isIRI(?o) && STR(?o) != \"test\")
    }
}",
        ),
        true,
    );
    // The base is the endpoint's URL, as docs/serving.md says.
    let resolved = format!(
        "ASK {{ GRAPH <http://example.org/protocol-base-test/> {{ ?s ?p <{}> }} }}",
        server.url("/test")
    );
    assert_boolean(&ask(&server, &resolved), true);
}

// <...manifest#query_post_direct>
#[test]
fn query_post_direct() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/sparql-query"),
        Some(b"ASK {}"),
    );
    assert_boolean(&reply, true);
}

// <...manifest#bad_query_method>
#[test]
fn bad_query_method() {
    let server = server();
    let reply = send(
        &server,
        "PUT",
        "/sparql/?query=ASK%20%7B%7D&default-graph-uri=http%3A%2F%2Fkasei.us%2F2009%2F09%2Fsparql%2Fdata%2Fdata0.rdf",
        Some("application/x-www-form-urlencoded"),
        None,
    );
    assert!((400..500).contains(&reply.status), "{}", reply.status);
}

// <...manifest#bad_multiple_queries>
#[test]
fn bad_multiple_queries() {
    let server = server();
    let reply = send(
        &server,
        "GET",
        "/sparql/?query=ASK%20%7B%7D&query=SELECT%20%2A%20%7B%7D",
        None,
        None,
    );
    assert_client_error(&reply);
    assert!(reply.body.contains("more than once"), "{}", reply.body);
}

// <...manifest#bad_query_wrong_media_type>
#[test]
fn bad_query_wrong_media_type() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("text/plain"),
        Some(b"ASK {}"),
    );
    assert_client_error(&reply);
}

// <...manifest#bad_query_missing_form_type>
#[test]
fn bad_query_missing_form_type() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        None,
        Some(b"query=ASK%20%7B%7D"),
    );
    assert_client_error(&reply);
}

// <...manifest#bad_query_missing_direct_type>
#[test]
fn bad_query_missing_direct_type() {
    let server = server();
    let reply = send(&server, "POST", "/sparql/", None, Some(b"ASK {}"));
    assert_client_error(&reply);
}

/// A text in UTF-16, as the suite's `cnt:characterEncoding "UTF-16"` body is.
fn utf16(text: &str) -> Vec<u8> {
    let mut bytes = vec![0xFE, 0xFF];
    for unit in text.encode_utf16() {
        bytes.extend_from_slice(&unit.to_be_bytes());
    }
    bytes
}

// <...manifest#bad_query_non_utf8>
#[test]
fn bad_query_non_utf8() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/sparql-query; charset=UTF-16"),
        Some(&utf16("ASK {}")),
    );
    assert_client_error(&reply);
    assert!(reply.body.contains("UTF-8"), "{}", reply.body);
}

// <...manifest#bad_query_syntax>
#[test]
fn bad_query_syntax() {
    let server = server();
    let reply = send(&server, "GET", "/sparql/?query=ASK%20%7B", None, None);
    assert_client_error(&reply);
}

// <...manifest#bad_update_get>
#[test]
fn bad_update_get() {
    let server = server_with_data();
    let reply = send(&server, "GET", "/sparql/?update=CLEAR%20ALL", None, None);
    assert_client_error(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), true);
}

// <...manifest#bad_multiple_updates>
#[test]
fn bad_multiple_updates() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/x-www-form-urlencoded"),
        Some(b"update=CLEAR%20NAMED&update=CLEAR%20DEFAULT"),
    );
    assert_client_error(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), true);
}

// <...manifest#bad_update_wrong_media_type>
#[test]
fn bad_update_wrong_media_type() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("text/plain"),
        Some(b"CLEAR NAMED"),
    );
    assert_client_error(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), true);
}

// <...manifest#bad_update_missing_form_type>
#[test]
fn bad_update_missing_form_type() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        None,
        Some(b"update=CLEAR%20NAMED"),
    );
    assert_client_error(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), true);
}

// <...manifest#bad_update_non_utf8>
#[test]
fn bad_update_non_utf8() {
    let server = server_with_data();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/sparql-update; charset=UTF-16"),
        Some(&utf16("CLEAR NAMED")),
    );
    assert_client_error(&reply);
    assert_boolean(&ask(&server, "ASK { GRAPH ?g { ?s ?p ?o } }"), true);
}

// <...manifest#bad_update_syntax>
#[test]
fn bad_update_syntax() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/",
        Some("application/x-www-form-urlencoded"),
        Some(b"update=CLEAR%20XYZ"),
    );
    assert_client_error(&reply);
}

// <...manifest#bad_update_dataset_conflict>
#[test]
fn bad_update_dataset_conflict() {
    let server = server();
    let reply = send(
        &server,
        "POST",
        "/sparql/?using-named-graph-uri=http%3A%2F%2Fexample%2Fpeople",
        Some("application/sparql-update"),
        Some(
            b"PREFIX foaf:  <http://xmlns.com/foaf/0.1/>
WITH <http://example/addresses>
DELETE { ?person foaf:givenName 'Bill' }
INSERT { ?person foaf:givenName 'William' }
WHERE {
    ?person foaf:givenName 'Bill'
}",
        ),
    );
    assert_client_error(&reply);
    assert!(reply.body.contains("USING"), "{}", reply.body);
}

/// Each of the manifest's entries has its test above: the list is the manifest's.
#[test]
fn every_entry_of_the_manifest_has_its_test() {
    let entries = [
        "query_post_form",
        "query_dataset_default_graphs_get",
        "query_dataset_default_graphs_post",
        "query_dataset_named_graphs_post",
        "query_dataset_named_graphs_get",
        "query_dataset_full",
        "query_multiple_dataset",
        "query_get",
        "query_content_type_select",
        "query_content_type_ask",
        "query_content_type_describe",
        "query_content_type_construct",
        "update_dataset_default_graph",
        "update_dataset_default_graphs",
        "update_dataset_named_graphs",
        "update_dataset_full",
        "update_post_form",
        "update_post_direct",
        "update_base_uri",
        "query_post_direct",
        "bad_query_method",
        "bad_multiple_queries",
        "bad_query_wrong_media_type",
        "bad_query_missing_form_type",
        "bad_query_missing_direct_type",
        "bad_query_non_utf8",
        "bad_query_syntax",
        "bad_update_get",
        "bad_multiple_updates",
        "bad_update_wrong_media_type",
        "bad_update_missing_form_type",
        "bad_update_non_utf8",
        "bad_update_syntax",
        "bad_update_dataset_conflict",
    ];
    assert_eq!(entries.len(), 34);
    let source = include_str!("sparql_protocol.rs");
    for entry in entries {
        assert!(
            source.contains(&format!("fn {entry}()"))
                && source.contains(&format!("manifest#{entry}>")),
            "{MANIFEST}{entry} has no test"
        );
    }
}

/// An update with a protocol dataset is still an update: without the token 401, on a
/// server without `--allow-update` 403, and nothing is written either way.
#[test]
fn updates_with_a_dataset_keep_the_token_and_allow_update() {
    let path = "/sparql?using-graph-uri=http%3A%2F%2Fexample.org%2Fa";
    let update = b"INSERT { GRAPH <http://example.org/b> { ?s ?p ?o } } WHERE { ?s ?p ?o }";
    let server = server();
    for (headers, form) in [
        (vec![("Content-Type", "application/sparql-update")], false),
        (
            vec![("Content-Type", "application/x-www-form-urlencoded")],
            true,
        ),
    ] {
        let body = if form {
            form_urlencoded::Serializer::new(String::new())
                .append_pair("update", std::str::from_utf8(update).unwrap())
                .finish()
                .into_bytes()
        } else {
            update.to_vec()
        };
        let refused = call("POST", &server.url(path), &headers, Some(&body));
        assert_eq!(refused.status, 401, "{}", refused.body);
    }
    let closed = Server::start(&[]);
    let refused = send(
        &closed,
        "POST",
        path,
        Some("application/sparql-update"),
        Some(update),
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("--allow-update"), "{}", refused.body);
    // A query's dataset parameters are not an update's, and the other way round.
    let mixed = send(
        &server,
        "GET",
        "/sparql?query=ASK%7B%7D&using-graph-uri=http%3A%2F%2Fexample.org%2Fa",
        None,
        None,
    );
    assert_eq!(mixed.status, 400, "{}", mixed.body);
    let mixed = send(
        &server,
        "POST",
        "/sparql?default-graph-uri=http%3A%2F%2Fexample.org%2Fa",
        Some("application/sparql-update"),
        Some(update),
    );
    assert_eq!(mixed.status, 400, "{}", mixed.body);
    let bad_iri = send(
        &server,
        "POST",
        "/sparql?using-graph-uri=not%20an%20iri",
        Some("application/sparql-update"),
        Some(update),
    );
    assert_eq!(bad_iri.status, 400, "{}", bad_iri.body);
}

/// The service description: parsed, in each syntax it is offered in.
fn description(server: &Server, accept: &str, format: RdfFormat) -> Vec<Triple> {
    let reply = call("GET", &server.url("/sparql"), &[("Accept", accept)], None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply.content_type.starts_with(accept),
        "{}",
        reply.content_type
    );
    RdfParser::from_format(format)
        .for_slice(reply.body.as_bytes())
        .map(|quad| Triple::from(quad.unwrap()))
        .collect()
}

fn has(triples: &[Triple], predicate: &str, object: &str) -> bool {
    triples.iter().any(|triple| {
        triple.predicate.as_str() == predicate && triple.object.to_string() == format!("<{object}>")
    })
}

const SD: &str = "http://www.w3.org/ns/sparql-service-description#";

#[test]
fn the_service_description_says_what_the_endpoint_does() {
    let server = server();
    let endpoint = server.url("/sparql");
    for (accept, format) in [
        ("text/turtle", RdfFormat::Turtle),
        ("application/n-triples", RdfFormat::NTriples),
        ("application/rdf+xml", RdfFormat::RdfXml),
    ] {
        let triples = description(&server, accept, format);
        let service = NamedNode::new(&endpoint).unwrap();
        assert!(
            triples
                .iter()
                .any(|triple| triple.subject.to_string() == service.to_string()
                    && triple.predicate.as_str() == format!("{SD}endpoint")),
            "{accept}: {triples:?}"
        );
        assert!(has(&triples, &format!("{SD}endpoint"), &endpoint));
        assert!(has(
            &triples,
            &format!("{SD}supportedLanguage"),
            &format!("{SD}SPARQL11Query")
        ));
        assert!(has(
            &triples,
            &format!("{SD}supportedLanguage"),
            &format!("{SD}SPARQL11Update")
        ));
        assert!(has(
            &triples,
            &format!("{SD}feature"),
            &format!("{SD}UnionDefaultGraph")
        ));
        assert!(has(
            &triples,
            &format!("{SD}resultFormat"),
            "http://www.w3.org/ns/formats/SPARQL_Results_JSON"
        ));
        assert!(has(
            &triples,
            &format!("{SD}inputFormat"),
            "http://www.w3.org/ns/formats/Turtle"
        ));
        assert!(has(
            &triples,
            &format!("{SD}feature"),
            "https://w3id.org/ihigraph/text#search"
        ));
    }
    // Without --allow-update, no update language and nothing read.
    let read_only = Server::start(&[]);
    let triples = description(&read_only, "text/turtle", RdfFormat::Turtle);
    assert!(has(
        &triples,
        &format!("{SD}supportedLanguage"),
        &format!("{SD}SPARQL11Query")
    ));
    assert!(!has(
        &triples,
        &format!("{SD}supportedLanguage"),
        &format!("{SD}SPARQL11Update")
    ));
    assert!(
        !triples
            .iter()
            .any(|triple| triple.predicate.as_str() == format!("{SD}inputFormat"))
    );
}

/// What the description says holds, and what a GET of `/sparql` that is neither a query
/// nor the description gets.
#[test]
fn the_default_graph_is_the_union_the_description_says() {
    let server = server();
    // The default graph a query sees is the union of the named graphs, as it says.
    let put = send(
        &server,
        "POST",
        "/sparql",
        Some("application/sparql-update"),
        Some(b"INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/s> <http://example.org/p> 1 } }"),
    );
    assert_eq!(put.status, 204, "{}", put.body);
    assert_boolean(
        &ask(
            &server,
            "ASK { <http://example.org/s> <http://example.org/p> 1 }",
        ),
        true,
    );
    let unacceptable = call(
        "GET",
        &server.url("/sparql"),
        &[("Accept", "image/png")],
        None,
    );
    assert_eq!(unacceptable.status, 406, "{}", unacceptable.body);
    let by_get = get(&server.url("/sparql?default-graph-uri=http%3A%2F%2Fexample.org%2Fg"));
    assert_eq!(by_get.status, 400, "{}", by_get.body);
}

/// Python's SPARQLWrapper, the standard client library, sends an update with the
/// protocol's dataset (`using-graph-uri`, in its POSTed form) and a relative IRI, then
/// reads what it wrote.
#[test]
fn a_standard_client_library_sends_an_update_with_its_dataset() {
    let server = server_with_data();
    let script = r#"
import sys
from SPARQLWrapper import SPARQLWrapper, JSON, POST
endpoint = SPARQLWrapper(sys.argv[1])
endpoint.addCustomHttpHeader("Authorization", sys.argv[2])
endpoint.setMethod(POST)
endpoint.addParameter("using-graph-uri", "http://kasei.us/2009/09/sparql/data/data2.rdf")
endpoint.setQuery("INSERT { GRAPH <http://example.org/found> { ?s <found> true } } WHERE { ?s a ?type }")
endpoint.query()
reader = SPARQLWrapper(sys.argv[1])
reader.setQuery("SELECT ?s ?p WHERE { GRAPH <http://example.org/found> { ?s ?p true } }")
reader.setReturnFormat(JSON)
for row in reader.query().convert()["results"]["bindings"]:
    print(row["s"]["value"], row["p"]["value"])
"#;
    let output = match std::process::Command::new("python3")
        .args(["-c", script, &server.url("/sparql"), BEARER.1])
        .output()
    {
        Ok(output)
            if String::from_utf8_lossy(&output.stderr)
                .contains("No module named 'SPARQLWrapper'") =>
        {
            if std::env::var("IHIGRAPH_SKIP_CLIENTS").is_ok_and(|value| value == "1") {
                return;
            }
            panic!(
                "SPARQLWrapper is missing: pip install SPARQLWrapper (or .ci/bootstrap), or set IHIGRAPH_SKIP_CLIENTS=1"
            );
        }
        Ok(output) => output,
        Err(error) => panic!("python3 cannot run ({error}); set IHIGRAPH_SKIP_CLIENTS=1 to skip"),
    };
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Only data2 was the WHERE's default graph; <found> resolved against the endpoint.
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{DATA}2.rdf {}\n", server.url("/found"))
    );
}
