//! The Graph Store Protocol at `/store`, against a real `ihigraph serve` with a real HTTP
//! client (ureq): the W3C tests of `sparql/sparql11/http-rdf-update/manifest.ttl`
//! (w3c/rdf-tests), one test each, named after it; then what ihigraph adds: session
//! graphs written and deleted as sessions, its own graphs refused, and hostile requests.
//!
//! The W3C tests are prose and run in a sequence, each on the state the ones before it
//! left: each test here replays the steps before it on a new server. Their
//! `$GRAPHSTORE$/person/1.ttl` (direct identification) is sent as
//! `/store?graph=http://$HOST$/store/person/1.ttl` (indirect identification, which is what
//! `/store` speaks, as Oxigraph's server does). Where the deprecated manifest contradicts
//! itself, the test asserts the protocol: `delete__existing_graph` deletes `person/2.ttl`,
//! which no earlier entry creates, so it is put first; `get_of_post__existing_graph`
//! shows the graph without the triple just POSTed, while the protocol merges it.
//! ihigraph's default graph holds its settings, so `put__default_graph` is refused (403)
//! and `get_of_put__default_graph` gives the settings: 16 of 18 as written.
// The tests are named after the manifest's entries, whose names hold double underscores.
#![allow(clippy::unwrap_used, clippy::panic, non_snake_case)]

use ihigraph::generate::{GenerateOptions, generate};
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{Graph, Triple};
use oxrdf::dataset::CanonicalizationAlgorithm;
use serde_json::Value;

mod common;

use common::serving::{BEARER, Reply, Server, call, get};

fn server() -> Server {
    Server::start(&["--allow-update"])
}

/// The graph IRI of the manifest's `$GRAPHSTORE$/person/N.ttl` on this server.
fn person(server: &Server, n: u32) -> String {
    server.url(&format!("/store/person/{n}.ttl"))
}

fn at(server: &Server, graph: &str) -> String {
    format!(
        "{}?graph={}",
        server.url("/store"),
        form_urlencoded::byte_serialize(graph.as_bytes()).collect::<String>()
    )
}

fn write(method: &str, url: &str, media: &str, body: &str) -> Reply {
    call(
        method,
        url,
        &[BEARER, ("Content-Type", media)],
        Some(body.as_bytes()),
    )
}

fn turtle(graph: &str, body: &str) -> String {
    format!(
        "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n@prefix v: <http://www.w3.org/2006/vcard/ns#> .\n{}",
        body.replace("$PERSON$", &graph.replace(".ttl", ""))
    )
}

fn parse(text: &str, format: RdfFormat) -> Graph {
    RdfParser::from_format(format)
        .for_slice(text.as_bytes())
        .map(|quad| Triple::from(quad.unwrap()))
        .collect()
}

/// Whether two graphs are isomorphic (blank nodes aside).
fn assert_isomorphic(reply: &Reply, expected: &str) {
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.content_type, "text/turtle; charset=utf-8");
    let mut got = parse(&reply.body, RdfFormat::Turtle);
    let mut want = parse(expected, RdfFormat::Turtle);
    got.canonicalize(CanonicalizationAlgorithm::Unstable);
    want.canonicalize(CanonicalizationAlgorithm::Unstable);
    assert_eq!(got, want, "got:\n{}", reply.body);
}

fn get_turtle(url: &str) -> Reply {
    call("GET", url, &[("Accept", "text/turtle")], None)
}

const JOHN: &str =
    "<$PERSON$> a foaf:Person;\n    foaf:businessCard [ a v:VCard; v:fn \"John Doe\" ].\n";
const JANE: &str =
    "<$PERSON$> a foaf:Person;\n    foaf:businessCard [ a v:VCard; v:fn \"Jane Doe\" ].\n";
const ALICE: &str =
    "[] a foaf:Person;\n    foaf:businessCard [ a v:VCard; v:given-name \"Alice\" ] .\n";
const NAME: &str = "<$PERSON$> foaf:name \"Jane Doe\" .\n";

/// The manifest's steps, in its order: each test replays those before it.
fn put_initial_state(server: &Server) -> Reply {
    let graph = person(server, 1);
    write(
        "PUT",
        &at(server, &graph),
        "text/turtle; charset=utf-8",
        &turtle(&graph, JOHN),
    )
}

fn put_graph_already_in_store(server: &Server) -> Reply {
    put_initial_state(server);
    let graph = person(server, 1);
    write(
        "PUT",
        &at(server, &graph),
        "text/turtle; charset=utf-8",
        &turtle(&graph, JANE),
    )
}

fn post_existing_graph(server: &Server) -> Reply {
    put_graph_already_in_store(server);
    let graph = person(server, 1);
    write(
        "POST",
        &at(server, &graph),
        "text/turtle; charset=utf-8",
        &turtle(&graph, NAME),
    )
}

fn post_multipart_formdata(server: &Server) -> Reply {
    post_existing_graph(server);
    let graph = person(server, 1);
    let subject = graph.replace(".ttl", "");
    let body = format!(
        "--a6fe4cd636164618814be9f8d3d1a0de\r\nContent-Disposition: form-data; name=\"lastName.ttl\"; filename=\"lastName.ttl\"\r\nContent-Type: text/turtle; charset=utf-8\r\n\r\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n<{subject}> foaf:familyName \"Doe\" .\r\n--a6fe4cd636164618814be9f8d3d1a0de\r\nContent-Disposition: form-data; name=\"firstName.ttl\"; filename=\"firstName.ttl\"\r\nContent-Type: text/turtle; charset=utf-8\r\n\r\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n<{subject}> foaf:givenName \"Jane\" .\r\n--a6fe4cd636164618814be9f8d3d1a0de--\r\n"
    );
    write(
        "POST",
        &at(server, &graph),
        "multipart/form-data; boundary=a6fe4cd636164618814be9f8d3d1a0de",
        &body,
    )
}

/// POST to the store itself: a new graph, and the URL its `Location` gives.
fn post_create_new_graph(server: &Server) -> (u16, String) {
    let response = common::serving::agent()
        .post(server.url("/store"))
        .header("Authorization", BEARER.1)
        .header("Content-Type", "text/turtle; charset=utf-8")
        .send(turtle("", ALICE).as_str())
        .unwrap();
    let location = response
        .headers()
        .get("location")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_owned();
    (response.status().as_u16(), server.url(&location))
}

// <http://www.w3.org/2009/sparql/docs/tests/data-sparql11/http-rdf-update/manifest#put__initial_state>
#[test]
fn put__initial_state() {
    let server = server();
    assert_eq!(put_initial_state(&server).status, 201);
}

// <...manifest#get_of_put__initial_state>
#[test]
fn get_of_put__initial_state() {
    let server = server();
    put_initial_state(&server);
    let graph = person(&server, 1);
    assert_isomorphic(&get_turtle(&at(&server, &graph)), &turtle(&graph, JOHN));
}

// <...manifest#put__graph_already_in_store>
#[test]
fn put__graph_already_in_store() {
    let server = server();
    assert_eq!(put_graph_already_in_store(&server).status, 204);
}

// <...manifest#get_of_put__graph_already_in_store>
#[test]
fn get_of_put__graph_already_in_store() {
    let server = server();
    put_graph_already_in_store(&server);
    let graph = person(&server, 1);
    // No Accept: Turtle, the first offer.
    assert_isomorphic(&get(&at(&server, &graph)), &turtle(&graph, JANE));
}

// <...manifest#put__default_graph>: ihigraph's default graph holds the store's settings.
#[test]
fn put__default_graph() {
    let server = server();
    let reply = write(
        "PUT",
        &server.url("/store?default"),
        "text/turtle; charset=utf-8",
        &turtle("", ALICE),
    );
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert!(reply.body.contains("settings"), "{}", reply.body);
}

// <...manifest#get_of_put__default_graph>: the default graph as stored, the settings.
#[test]
fn get_of_put__default_graph() {
    let server = server();
    write(
        "PUT",
        &server.url("/store?default"),
        "text/turtle",
        &turtle("", ALICE),
    );
    let reply = call(
        "GET",
        &server.url("/store?default"),
        &[("Accept", "application/n-triples")],
        None,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply.body.contains("https://w3id.org/ihigraph/"),
        "{}",
        reply.body
    );
    assert!(!reply.body.contains("Alice"), "{}", reply.body);
}

fn put_person_2(server: &Server) {
    let graph = person(server, 2);
    let put = write(
        "PUT",
        &at(server, &graph),
        "text/turtle",
        &turtle(&graph, JOHN),
    );
    assert_eq!(put.status, 201, "{}", put.body);
}

// <...manifest#delete__existing_graph>
#[test]
fn delete__existing_graph() {
    let server = server();
    put_person_2(&server);
    let reply = call("DELETE", &at(&server, &person(&server, 2)), &[BEARER], None);
    assert!((200..300).contains(&reply.status), "{}", reply.body);
}

// <...manifest#get_of_delete__existing_graph>
#[test]
fn get_of_delete__existing_graph() {
    let server = server();
    put_person_2(&server);
    call("DELETE", &at(&server, &person(&server, 2)), &[BEARER], None);
    assert_eq!(get(&at(&server, &person(&server, 2))).status, 404);
}

// <...manifest#delete__nonexistent_graph>
#[test]
fn delete__nonexistent_graph() {
    let server = server();
    put_person_2(&server);
    call("DELETE", &at(&server, &person(&server, 2)), &[BEARER], None);
    let again = call("DELETE", &at(&server, &person(&server, 2)), &[BEARER], None);
    assert_eq!(again.status, 404, "{}", again.body);
}

// <...manifest#post__existing_graph>
#[test]
fn post__existing_graph() {
    let server = server();
    let reply = post_existing_graph(&server);
    assert!((200..300).contains(&reply.status), "{}", reply.body);
    assert_ne!(reply.status, 201, "the graph existed");
}

// <...manifest#get_of_post__existing_graph>
#[test]
fn get_of_post__existing_graph() {
    let server = server();
    post_existing_graph(&server);
    let graph = person(&server, 1);
    let expected = turtle(&graph, &format!("{JANE}{NAME}"));
    assert_isomorphic(&get_turtle(&at(&server, &graph)), &expected);
}

// <...manifest#post__multipart_formdata>
#[test]
fn post__multipart_formdata() {
    let server = server();
    let reply = post_multipart_formdata(&server);
    assert!((200..300).contains(&reply.status), "{}", reply.body);
}

// <...manifest#get_of_post__multipart_formdata>
#[test]
fn get_of_post__multipart_formdata() {
    let server = server();
    post_multipart_formdata(&server);
    let graph = person(&server, 1);
    let expected = turtle(
        &graph,
        "<$PERSON$> a foaf:Person;\n    foaf:name \"Jane Doe\";\n    foaf:givenName \"Jane\";\n    foaf:familyName \"Doe\";\n    foaf:businessCard [ a v:VCard; v:fn \"Jane Doe\" ] .\n",
    );
    assert_isomorphic(&get(&at(&server, &graph)), &expected);
}

// <...manifest#post__create__new_graph>
#[test]
fn post__create__new_graph() {
    let server = server();
    let (status, location) = post_create_new_graph(&server);
    assert_eq!(status, 201);
    assert!(location.contains("/store?graph="), "{location}");
}

// <...manifest#get_of_post__create__new_graph>
#[test]
fn get_of_post__create__new_graph() {
    let server = server();
    let (_, location) = post_create_new_graph(&server);
    assert_isomorphic(&get_turtle(&location), &turtle("", ALICE));
}

// <...manifest#get_of_post__after_noop>
#[test]
fn get_of_post__after_noop() {
    let server = server();
    let (_, location) = post_create_new_graph(&server);
    get_turtle(&location);
    assert_isomorphic(&get_turtle(&location), &turtle("", ALICE));
}

// <...manifest#head_on_an_existing_graph>
#[test]
fn head_on_an_existing_graph() {
    let server = server();
    put_initial_state(&server);
    let reply = call("HEAD", &at(&server, &person(&server, 1)), &[], None);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_type, "text/turtle; charset=utf-8");
    assert!(reply.body.is_empty());
}

// <...manifest#head_on_a_nonexisting_graph>
#[test]
fn head_on_a_nonexisting_graph() {
    let server = server();
    put_initial_state(&server);
    let reply = call("HEAD", &at(&server, &person(&server, 4)), &[], None);
    assert_eq!(reply.status, 404);
}

/// The graph a POST to the store makes is named under the store's URL.
#[test]
fn a_new_graph_is_named_under_the_store() {
    let server = server();
    let (_, location) = post_create_new_graph(&server);
    let graph: String = form_urlencoded::parse(location.split_once('?').unwrap().1.as_bytes())
        .find(|(name, _)| name == "graph")
        .unwrap()
        .1
        .into_owned();
    assert!(graph.starts_with(&server.url("/store/")), "{graph}");
    let read = call(
        "GET",
        &location,
        &[("Accept", "application/n-triples")],
        None,
    );
    assert_eq!(read.status, 200, "{}", read.body);
    assert!(read.body.contains("Alice"), "{}", read.body);
}

/// The two cases the newer manifest (`graph-store-protocol/manifest-indirect.ttl`) adds:
/// one graph named with and without percent-encoding, and `graph=` decoded once only.
#[test]
fn graph_iris_are_percent_decoded_once() {
    let server = server();
    let one = "http://www.example/gsp/person/1.ttl";
    let encoded = at(&server, one);
    let put = write("PUT", &encoded, "text/turtle", &turtle(one, JOHN));
    assert_eq!(put.status, 201, "{}", put.body);
    let plain = server.url(&format!("/store?graph={one}"));
    assert_isomorphic(&get_turtle(&plain), &turtle(one, JOHN));

    let once = server.url("/store?graph=http://www.example/gsp/person/%31.ttl");
    let twice = server.url("/store?graph=http://www.example/gsp/person/%2531.ttl");
    assert_eq!(
        write("PUT", &once, "text/turtle", &turtle(one, JANE)).status,
        204
    );
    let other = "http://www.example/gsp/person/2.ttl";
    let put = write("PUT", &twice, "text/turtle", &turtle(other, JOHN));
    assert_eq!(put.status, 201, "a graph of its own: {}", put.body);
    assert_isomorphic(&get_turtle(&once), &turtle(one, JANE));
    assert_isomorphic(&get_turtle(&twice), &turtle(other, JOHN));
    assert_isomorphic(
        &get_turtle(&at(&server, "http://www.example/gsp/person/%31.ttl")),
        &turtle(other, JOHN),
    );
}

/// Every syntax a graph is read in, and written back in.
#[test]
fn graphs_are_read_and_written_in_every_offered_syntax() {
    let server = server();
    let graph = "http://example.org/formats";
    let triples = "<http://example.org/s> <http://example.org/p> \"o\" .\n";
    for (media, body) in [
        ("text/turtle", triples.to_owned()),
        ("application/n-triples", triples.to_owned()),
        ("application/n-quads", triples.to_owned()),
        ("application/trig", format!("{{ {triples} }}")),
        (
            "application/rdf+xml",
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"http://example.org/s\"><p xmlns=\"http://example.org/\">o</p></rdf:Description></rdf:RDF>".to_owned(),
        ),
        (
            "application/ld+json",
            r#"{"@id": "http://example.org/s", "http://example.org/p": "o"}"#.to_owned(),
        ),
    ] {
        let put = write("PUT", &at(&server, graph), media, &body);
        assert!([201, 204].contains(&put.status), "{media}: {}", put.body);
        let read = call("GET", &at(&server, graph), &[("Accept", media)], None);
        assert_eq!(read.status, 200, "{media}");
        assert!(read.content_type.starts_with(media), "{media}: {}", read.content_type);
        assert!(read.body.contains("example.org/s"), "{media}: {}", read.body);
    }
    let quads = call(
        "GET",
        &at(&server, graph),
        &[("Accept", "application/n-quads")],
        None,
    );
    assert!(
        quads.body.contains(&format!("<{graph}> .")),
        "{}",
        quads.body
    );
    let unacceptable = call("GET", &at(&server, graph), &[("Accept", "image/png")], None);
    assert_eq!(unacceptable.status, 406);
}

fn sparql(server: &Server, query: &str) -> Value {
    let reply = get(&server.url(&format!(
        "/sparql?query={}",
        form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
    )));
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

/// The fingerprint digest the store records for a session graph.
fn digest(server: &Server, graph: &str) -> Option<String> {
    let rows = sparql(
        server,
        &format!(
            "SELECT ?d WHERE {{ GRAPH <https://w3id.org/ihigraph/id/fingerprints> {{ <{graph}> <https://w3id.org/ihigraph/ontology#fingerprint> ?d }} }}"
        ),
    );
    rows["results"]["bindings"][0]["d"]["value"]
        .as_str()
        .map(str::to_owned)
}

fn document() -> Value {
    generate(GenerateOptions {
        sessions: 1,
        seed: 5,
        min_turns: 2,
        max_turns: 5,
    })
    .next()
    .unwrap()
}

/// A session's graph is a session: read as triples, deleted with the memory made from
/// it, put back whole through the session path (checked, fingerprinted, indexed), and
/// refused with why when the triples are not what a session's graph holds.
#[test]
fn a_session_graph_is_written_only_as_a_session() {
    let server = server();
    let mut document = document();
    document["Turns"][0]["PRCPrompt"] = serde_json::json!({"messages": [{"role": "user", "content": "Where did the zeppelin land last night?"}]});
    let id = document["SessionID"].as_str().unwrap().to_owned();
    let found = || get(&server.url("/search?q=zeppelin")).json()["count"].clone();
    let put = call(
        "PUT",
        &server.url(&format!("/sessions/{id}")),
        &[BEARER, ("Content-Type", "application/json")],
        Some(document.to_string().as_bytes()),
    );
    assert_eq!(put.status, 201, "{}", put.body);
    let graph = sparql(
        &server,
        &format!("SELECT ?g WHERE {{ GRAPH ?g {{ ?c <https://w3id.org/ihigraph/ontology#sessionId> \"{id}\" }} }}"),
    )["results"]["bindings"][0]["g"]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    let triples = call(
        "GET",
        &at(&server, &graph),
        &[("Accept", "application/n-triples")],
        None,
    );
    assert_eq!(triples.status, 200, "{graph}: {}", triples.body);

    let same = write(
        "PUT",
        &at(&server, &graph),
        "application/n-triples",
        &triples.body,
    );
    assert_eq!(same.status, 204, "{}", same.body);
    let extra = format!(
        "{}<http://example.org/s> <http://example.org/p> \"x\" .\n",
        triples.body
    );
    let refused = write("PUT", &at(&server, &graph), "application/n-triples", &extra);
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body.contains("example.org/s"), "{}", refused.body);
    let refused = write(
        "POST",
        &at(&server, &graph),
        "application/n-triples",
        "<http://example.org/s> <http://example.org/p> \"x\" .\n",
    );
    assert_eq!(refused.status, 422, "{}", refused.body);

    let recorded = digest(&server, &graph);
    assert!(recorded.is_some());
    let deleted = call("DELETE", &at(&server, &graph), &[BEARER], None);
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    assert_eq!(get(&server.url(&format!("/sessions/{id}"))).status, 404);
    assert_eq!(get(&at(&server, &graph)).status, 404);
    assert_eq!(
        digest(&server, &graph),
        None,
        "the record went with the session"
    );

    let back = write(
        "PUT",
        &at(&server, &graph),
        "application/n-triples",
        &triples.body,
    );
    assert_eq!(back.status, 201, "{}", back.body);
    let read = get(&server.url(&format!("/sessions/{id}")));
    assert_eq!(
        read.json(),
        document,
        "the session comes back as it was put"
    );
    assert_eq!(
        digest(&server, &graph),
        recorded,
        "the fingerprint record is written again, with the same digest"
    );
    assert_eq!(found(), 1, "and the session is in the search index again");
    let nothing = write("PUT", &at(&server, &graph), "application/n-triples", "");
    assert_eq!(nothing.status, 422, "{}", nothing.body);
}

/// ihigraph's own graphs are read, never written, and the refusal says what they hold.
#[test]
fn own_graphs_are_refused_with_why() {
    let server = server();
    let triple = "<http://example.org/s> <http://example.org/p> \"x\" .\n";
    for (graph, holds) in [
        ("https://w3id.org/ihigraph/id/fingerprints", "fingerprint"),
        ("https://w3id.org/ihigraph/id/memory", "memory"),
        ("https://w3id.org/ihigraph/id/derived/s-1", "derived"),
        ("https://w3id.org/ihigraph/ontology", "ontology"),
        ("https://w3id.org/ihigraph/id/graph/a/b", "namespace"),
    ] {
        for method in ["PUT", "POST"] {
            let reply = write(method, &at(&server, graph), "application/n-triples", triple);
            assert_eq!(reply.status, 403, "{method} {graph}: {}", reply.body);
            assert!(reply.body.contains(holds), "{}", reply.body);
        }
        let reply = call("DELETE", &at(&server, graph), &[BEARER], None);
        assert_eq!(reply.status, 403, "DELETE {graph}: {}", reply.body);
    }
    let ontology = call(
        "GET",
        &at(&server, "https://w3id.org/ihigraph/ontology"),
        &[("Accept", "application/n-triples")],
        None,
    );
    assert_eq!(ontology.status, 200, "reads are open");
    for method in ["POST", "DELETE"] {
        let reply = write(method, &server.url("/store?default"), "text/turtle", triple);
        assert_eq!(reply.status, 403, "{method}: {}", reply.body);
    }
    // A session claimed outside its graph would be listed as one, without its record.
    let claim = "<http://example.org/c> <https://w3id.org/ihigraph/ontology#sessionId> \"s-1\" .\n";
    let reply = write(
        "PUT",
        &at(&server, "http://example.org/g"),
        "application/n-triples",
        claim,
    );
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(
        reply
            .body
            .contains("https://w3id.org/ihigraph/id/graph/s-1"),
        "{}",
        reply.body
    );
}

/// Writes need the token and --allow-update; hostile requests get a 4xx that says why.
#[test]
fn hostile_requests_are_refused_with_why() {
    let server = Server::start(&["--allow-update", "--max-body", "64KiB"]);
    let url = at(&server, "http://example.org/g");
    let triple = "<http://example.org/s> <http://example.org/p> \"x\" .\n";
    let without = call(
        "PUT",
        &url,
        &[("Content-Type", "text/turtle")],
        Some(triple.as_bytes()),
    );
    assert_eq!(without.status, 401, "{}", without.body);
    let closed = Server::start(&[]);
    let refused = write(
        "PUT",
        &at(&closed, "http://example.org/g"),
        "text/turtle",
        triple,
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("--allow-update"), "{}", refused.body);

    let huge = triple.repeat(2000);
    let too_large = write("PUT", &url, "application/n-triples", &huge);
    assert_eq!(too_large.status, 413, "{}", too_large.body);
    let wrong = write("PUT", &url, "text/plain", triple);
    assert_eq!(wrong.status, 415, "{}", wrong.body);
    assert!(wrong.body.contains("text/turtle"), "{}", wrong.body);
    let no_type = call("PUT", &url, &[BEARER], Some(triple.as_bytes()));
    assert_eq!(no_type.status, 415, "{}", no_type.body);
    let bad = write(
        "PUT",
        &url,
        "text/turtle",
        "<http://a> <http://b> <http://c> .\n<http://a> <http://b> .",
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.body.contains("line 2"), "{}", bad.body);
    let named = write(
        "PUT",
        &url,
        "application/n-quads",
        "<http://a> <http://b> <http://c> <http://g> .\n",
    );
    assert_eq!(named.status, 400, "{}", named.body);
    let bomb = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>";
    let bomb = write("PUT", &url, "application/rdf+xml", bomb);
    assert_eq!(bomb.status, 400, "{}", bomb.body);
    for query in [
        "graph=http%3A%2F%2Fa%20b",
        "graph=http%3A%2F%2Fa&default",
        "graph=http%3A%2F%2Fa&graph=http%3A%2F%2Fb",
        "grpah=http%3A%2F%2Fa",
        "graph=%3Chttp%3A%2F%2Fa%3E",
    ] {
        let reply = write(
            "PUT",
            &server.url(&format!("/store?{query}")),
            "text/turtle",
            triple,
        );
        assert_eq!(reply.status, 400, "{query}: {}", reply.body);
        let reply = get(&server.url(&format!("/store?{query}")));
        assert_eq!(reply.status, 400, "{query}: {}", reply.body);
    }
    assert_eq!(get(&server.url("/store")).status, 400);
    assert_eq!(
        call("DELETE", &server.url("/store"), &[BEARER], None).status,
        400
    );
    // Nothing refused was written.
    assert_eq!(get(&url).status, 404);
}

/// Each of the manifest's entries has its test above: the list is the manifest's.
#[test]
fn every_entry_of_the_manifest_has_its_test() {
    let entries = [
        "put__initial_state",
        "get_of_put__initial_state",
        "put__graph_already_in_store",
        "get_of_put__graph_already_in_store",
        "put__default_graph",
        "get_of_put__default_graph",
        "delete__existing_graph",
        "get_of_delete__existing_graph",
        "delete__nonexistent_graph",
        "post__existing_graph",
        "get_of_post__existing_graph",
        "post__multipart_formdata",
        "get_of_post__multipart_formdata",
        "post__create__new_graph",
        "get_of_post__create__new_graph",
        "get_of_post__after_noop",
        "head_on_an_existing_graph",
        "head_on_a_nonexisting_graph",
    ];
    assert_eq!(entries.len(), 18);
    let source = include_str!("graph_store.rs");
    for entry in entries {
        assert!(
            source.contains(&format!("fn {entry}()"))
                && source.contains(&format!("manifest#{entry}>")),
            "{entry} has no test"
        );
    }
}
