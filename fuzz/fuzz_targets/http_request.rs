//! One well-formed HTTP/1.1 request built from structured input: a method, one of the
//! server's routes (with a stored session's id, or any text), a query string of known
//! and unknown parameters, the token or not, headers, and a body that is a SPARQL
//! query or update, JSON, a form or any bytes (see `http_harness.rs`). Where `http`
//! finds what breaks the parsing of a request, this one goes deep into the handlers.
#![no_main]

#[path = "http_harness.rs"]
mod http_harness;

use arbitrary::Arbitrary;
use http_harness::{SESSIONS, TOKEN};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Method {
    Get,
    Post,
    Put,
    Delete,
    Head,
    Options,
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Route {
    Sparql,
    Sessions,
    Session(u8),
    Turns(u8),
    Context(u8),
    SessionMemory(u8),
    Memory,
    MemoryItem(String),
    Queries,
    Query(String),
    Report,
    Mcp,
    Health,
    Any(String),
}

#[derive(Arbitrary, Debug)]
enum Body {
    None,
    Sparql(String),
    Form(Vec<(String, String)>),
    Json(Json),
    Bytes(Vec<u8>),
}

/// JSON of any shape, nested as deep as the input goes.
#[derive(Arbitrary, Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(i64),
    Float(f64),
    Text(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

#[derive(Arbitrary, Debug)]
struct Request {
    method: Method,
    route: Route,
    parameters: Vec<(String, String)>,
    token: Option<bool>,
    content_type: Option<String>,
    accept: Option<String>,
    headers: Vec<(String, String)>,
    body: Body,
}

fn session(index: u8) -> &'static str {
    SESSIONS[usize::from(index) % SESSIONS.len()]
}

fn path(route: &Route) -> String {
    match route {
        Route::Sparql => "/sparql".to_owned(),
        Route::Sessions => "/sessions".to_owned(),
        Route::Session(index) => format!("/sessions/{}", session(*index)),
        Route::Turns(index) => format!("/sessions/{}/turns", session(*index)),
        Route::Context(index) => format!("/sessions/{}/context", session(*index)),
        Route::SessionMemory(index) => format!("/sessions/{}/memory", session(*index)),
        Route::Memory => "/memory".to_owned(),
        Route::MemoryItem(item) => format!("/memory/{}", encoded(item)),
        Route::Queries => "/queries".to_owned(),
        Route::Query(name) => format!("/queries/{}", encoded(name)),
        Route::Report => "/report".to_owned(),
        Route::Mcp => "/mcp".to_owned(),
        Route::Health => "/healthz".to_owned(),
        Route::Any(text) => format!("/{}", encoded(text)),
    }
}

fn encoded(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn json(value: &Json) -> serde_json::Value {
    match value {
        Json::Null => serde_json::Value::Null,
        Json::Bool(value) => (*value).into(),
        Json::Number(value) => (*value).into(),
        Json::Float(value) => serde_json::Number::from_f64(*value)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Json::Text(text) => text.as_str().into(),
        Json::Array(items) => items.iter().map(json).collect(),
        Json::Object(members) => members
            .iter()
            .map(|(name, value)| (name.clone(), json(value)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    }
}

/// The request as bytes on the wire.
fn wire(request: &Request) -> Vec<u8> {
    let method = match &request.method {
        Method::Get => "GET",
        Method::Post => "POST",
        Method::Put => "PUT",
        Method::Delete => "DELETE",
        Method::Head => "HEAD",
        Method::Options => "OPTIONS",
        Method::Other(name) => name.as_str(),
    };
    let mut target = path(&request.route);
    if !request.parameters.is_empty() {
        let query = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&request.parameters)
            .finish();
        target = format!("{target}?{query}");
    }
    let (content_type, body) = match &request.body {
        Body::None => (None, Vec::new()),
        Body::Sparql(text) => (Some("application/sparql-query"), text.clone().into_bytes()),
        Body::Form(fields) => (
            Some("application/x-www-form-urlencoded"),
            form_urlencoded::Serializer::new(String::new())
                .extend_pairs(fields)
                .finish()
                .into_bytes(),
        ),
        Body::Json(value) => (
            Some("application/json"),
            json(value).to_string().into_bytes(),
        ),
        Body::Bytes(bytes) => (None, bytes.clone()),
    };
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    match request.token {
        Some(true) => head.push_str(&format!("Authorization: Bearer {TOKEN}\r\n")),
        Some(false) => head.push_str("Authorization: Bearer not-the-token\r\n"),
        None => {}
    }
    if let Some(media) = request.content_type.as_deref().or(content_type) {
        head.push_str(&format!("Content-Type: {media}\r\n"));
    }
    if let Some(accept) = &request.accept {
        head.push_str(&format!("Accept: {accept}\r\n"));
    }
    for (name, value) in &request.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = head.into_bytes();
    bytes.extend(body);
    bytes
}

fuzz_target!(|request: Request| {
    http_harness::serve(&wire(&request));
});
