//! OTLP/HTTP on the wire, as the OpenTelemetry Protocol specification says it
//! (`specification/protocol/otlp.md`, "OTLP/HTTP"): a request body taken to OTLP JSON
//! whatever its encoding, and the answers a receiver gives. Pure functions of bytes and
//! headers, so the routes that call them (`/v1/traces`, `/v1/logs`) stay thin.
//!
//! A request is binary protobuf (`application/x-protobuf`) or protobuf's JSON mapping
//! with the OTLP deviations (`application/json`: hex ids, integer enums, lowerCamelCase
//! keys), optionally gzip-compressed (`Content-Encoding: gzip`). Both are given to the
//! importer as one shape, OTLP JSON, the shape the Collector's file exporter writes: a
//! protobuf body is decoded with prost into the OpenTelemetry project's own message types
//! and written out by their serde mapping, so there is one reader of OTLP above this file.
//!
//! Answers are in the request's encoding (the specification's "MUST use the same
//! Content-Type"): `Export*ServiceResponse`, with `partial_success` set only when something
//! was rejected or there is something to say, and a `google.rpc.Status` for every 4xx/5xx.
//!
//! Decoding is CPU work in proportion to the body (tens of milliseconds for thousands of
//! spans, `examples/otlp_decode.rs`): a route runs it on a blocking thread, as store work.

use super::AppState;
use super::error::chain;
use crate::import::ImportOptions;
use crate::ingest::{ReceiveError, receive_live};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use flate2::read::MultiGzDecoder;
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message;
use serde_json::{Map, Value, json};
use std::io::Read;
use std::sync::Arc;

/// The media type of binary protobuf bodies.
pub const PROTOBUF: &str = "application/x-protobuf";
/// The media type of OTLP JSON bodies.
pub const JSON: &str = "application/json";

/// Which signal a request carries: the path it came to, the message it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// `/v1/traces`: `ExportTraceServiceRequest`, counted in spans.
    Traces,
    /// `/v1/logs`: `ExportLogsServiceRequest`, counted in log records.
    Logs,
}

impl Signal {
    /// The top-level member of the request's JSON that holds its data.
    #[must_use]
    pub fn resource_member(self) -> &'static str {
        match self {
            Self::Traces => "resourceSpans",
            Self::Logs => "resourceLogs",
        }
    }
}

/// How a body is encoded, from its `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `application/x-protobuf`.
    Protobuf,
    /// `application/json`.
    Json,
}

impl Encoding {
    /// The encoding a `Content-Type` names; parameters (`; charset=utf-8`) and the case of
    /// the media type do not matter.
    ///
    /// # Errors
    ///
    /// [`OtlpError::UnsupportedContentType`] for anything but the two OTLP media types.
    pub fn from_content_type(content_type: Option<&str>) -> Result<Self, OtlpError> {
        let media_type = content_type
            .and_then(|value| value.split(';').next())
            .map(|value| value.trim().to_ascii_lowercase());
        match media_type.as_deref() {
            Some(PROTOBUF) => Ok(Self::Protobuf),
            Some(JSON) => Ok(Self::Json),
            _ => Err(OtlpError::UnsupportedContentType {
                found: content_type.map(str::to_owned),
            }),
        }
    }

    /// The encoding an answer to a request with this `Content-Type` takes: the request's,
    /// or JSON (readable by a person) when the request's cannot be told.
    #[must_use]
    pub fn for_answer(content_type: Option<&str>) -> Self {
        Self::from_content_type(content_type).unwrap_or(Self::Json)
    }

    /// The media type of this encoding, for the answer's `Content-Type`.
    #[must_use]
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Protobuf => PROTOBUF,
            Self::Json => JSON,
        }
    }
}

/// Why a request body was not taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtlpError {
    /// The `Content-Type` is not one of OTLP's.
    #[error(
        "unsupported Content-Type {}: OTLP/HTTP takes application/x-protobuf or application/json",
        found.as_deref().map_or_else(|| "(none)".to_owned(), |found| format!("`{found}`"))
    )]
    UnsupportedContentType {
        /// The header as sent, if it was.
        found: Option<String>,
    },
    /// The `Content-Encoding` is neither absent, `identity` nor `gzip`.
    #[error(
        "unsupported Content-Encoding `{found}`: OTLP/HTTP bodies are sent as they are or gzip"
    )]
    UnsupportedContentEncoding {
        /// The header as sent.
        found: String,
    },
    /// The body, once decompressed, is larger than the server takes.
    #[error("the decompressed body is larger than the {limit} bytes this server takes")]
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// The body says it is gzip but is not, or is cut short.
    #[error("the gzip body cannot be decompressed")]
    Gzip(#[source] std::io::Error),
    /// The body is not the protobuf message the path takes.
    #[error("the body is not a protobuf {message}")]
    Protobuf {
        /// The message expected (`ExportTraceServiceRequest`, ...).
        message: &'static str,
        /// prost's error, with the path of fields it was in.
        #[source]
        source: prost::DecodeError,
    },
    /// The body is not JSON; serde_json's error says at which line and column.
    #[error("the body is not JSON")]
    Json(#[source] serde_json::Error),
    /// The body is JSON but not the shape of the message the path takes.
    #[error("the body is not OTLP JSON: at `{pointer}`, expected {expected}")]
    Shape {
        /// Where in the body, as a JSON Pointer (`""` for the whole body).
        pointer: String,
        /// What was expected there.
        expected: String,
    },
}

impl OtlpError {
    /// The HTTP status this error is answered with: 415 for what the server does not take,
    /// 413 for a body too large once decompressed, 400 for a body that cannot be read
    /// (the specification's "Bad Data", which a client must not retry).
    #[must_use]
    pub fn status(&self) -> StatusCode {
        match self {
            Self::UnsupportedContentType { .. } | Self::UnsupportedContentEncoding { .. } => {
                StatusCode::UNSUPPORTED_MEDIA_TYPE
            }
            Self::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Gzip(_) | Self::Protobuf { .. } | Self::Json(_) | Self::Shape { .. } => {
                StatusCode::BAD_REQUEST
            }
        }
    }
}

/// The whole answer to a request refused with `error`: its status, and a
/// `google.rpc.Status` in `encoding` whose message is the error with its causes (the
/// protobuf field path, the JSON line and column).
#[must_use]
pub fn encode_error(error: &OtlpError, encoding: Encoding) -> (StatusCode, &'static str, Vec<u8>) {
    let status = error.status();
    let (content_type, body) = encode_status(status, encoding, &chain(error));
    (status, content_type, body)
}

/// `google.rpc.Status` (googleapis' `google/rpc/status.proto`) without its `details`: the
/// body of every OTLP/HTTP 4xx and 5xx. Neither opentelemetry-proto nor tonic exposes the
/// message itself (tonic's `Status` is gRPC's trailer form), so it is declared here.
#[derive(Clone, PartialEq, Message)]
struct RpcStatus {
    /// The gRPC code (`google.rpc.Code`).
    #[prost(int32, tag = "1")]
    code: i32,
    /// A developer-facing message in English.
    #[prost(string, tag = "2")]
    message: String,
}

/// The body of a traces request as OTLP JSON (`{"resourceSpans": [...]}`), whatever its
/// encoding; `max_decoded` bounds the body once decompressed.
///
/// # Errors
///
/// An [`OtlpError`] saying what was expected; [`OtlpError::status`] gives its status.
pub fn decode_traces(
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    body: &[u8],
    max_decoded: usize,
) -> Result<Value, OtlpError> {
    decode::<ExportTraceServiceRequest>(
        Signal::Traces,
        "ExportTraceServiceRequest",
        content_type,
        content_encoding,
        body,
        max_decoded,
    )
}

/// The body of a logs request as OTLP JSON (`{"resourceLogs": [...]}`), whatever its
/// encoding; `max_decoded` bounds the body once decompressed.
///
/// # Errors
///
/// An [`OtlpError`] saying what was expected; [`OtlpError::status`] gives its status.
pub fn decode_logs(
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    body: &[u8],
    max_decoded: usize,
) -> Result<Value, OtlpError> {
    decode::<ExportLogsServiceRequest>(
        Signal::Logs,
        "ExportLogsServiceRequest",
        content_type,
        content_encoding,
        body,
        max_decoded,
    )
}

fn decode<M: Message + Default + serde::Serialize>(
    signal: Signal,
    message: &'static str,
    content_type: Option<&str>,
    content_encoding: Option<&str>,
    body: &[u8],
    max_decoded: usize,
) -> Result<Value, OtlpError> {
    // The content type first: a body in an encoding not taken is not worth decompressing.
    let encoding = Encoding::from_content_type(content_type)?;
    let decompressed;
    let body = if is_gzip(content_encoding)? {
        decompressed = gunzip(body, max_decoded)?;
        decompressed.as_slice()
    } else if body.len() > max_decoded {
        return Err(OtlpError::TooLarge { limit: max_decoded });
    } else {
        body
    };
    match encoding {
        Encoding::Protobuf => {
            let request =
                M::decode(body).map_err(|source| OtlpError::Protobuf { message, source })?;
            // The message types' serde mapping is OTLP JSON's; it fails on nothing prost
            // decoded (no maps with non-string keys), but a failure is still an answer.
            serde_json::to_value(&request).map_err(OtlpError::Json)
        }
        Encoding::Json => {
            let value = serde_json::from_slice(body).map_err(OtlpError::Json)?;
            checked_shape(signal, value)
        }
    }
}

/// Whether the body is gzip, from its `Content-Encoding`.
fn is_gzip(content_encoding: Option<&str>) -> Result<bool, OtlpError> {
    match content_encoding.map(str::trim) {
        None | Some("") => Ok(false),
        Some(coding) if coding.eq_ignore_ascii_case("identity") => Ok(false),
        Some(coding) if coding.eq_ignore_ascii_case("gzip") => Ok(true),
        Some(coding) => Err(OtlpError::UnsupportedContentEncoding {
            found: coding.to_owned(),
        }),
    }
}

/// The body decompressed, read no further than one byte past `limit`: a small body that
/// inflates without end (a gzip bomb) is stopped there, not held.
fn gunzip(body: &[u8], limit: usize) -> Result<Vec<u8>, OtlpError> {
    let mut decoded = Vec::new();
    let bound = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    MultiGzDecoder::new(body)
        .take(bound)
        .read_to_end(&mut decoded)
        .map_err(OtlpError::Gzip)?;
    if decoded.len() > limit {
        return Err(OtlpError::TooLarge { limit });
    }
    Ok(decoded)
}

/// The JSON body checked to be the request message: an object whose data member, if
/// present, is an array of objects. A request without it is an empty request (the
/// specification: answered with success); other members are the importer's to read, and
/// unknown ones are ignored, as OTLP/JSON receivers must.
fn checked_shape(signal: Signal, value: Value) -> Result<Value, OtlpError> {
    let member = signal.resource_member();
    let Value::Object(mut object) = value else {
        return Err(shape_error(
            String::new(),
            format!("an object with `{member}`"),
        ));
    };
    match object.get(member) {
        None | Some(Value::Null) => {
            object.insert(member.to_owned(), Value::Array(Vec::new()));
        }
        Some(Value::Array(items)) => {
            if let Some(index) = items.iter().position(|item| !item.is_object()) {
                return Err(shape_error(
                    format!("/{member}/{index}"),
                    "an object".to_owned(),
                ));
            }
        }
        Some(_) => return Err(shape_error(format!("/{member}"), "an array".to_owned())),
    }
    Ok(Value::Object(object))
}

fn shape_error(pointer: String, expected: String) -> OtlpError {
    OtlpError::Shape { pointer, expected }
}

/// The answer to a request that was taken: `Export{Trace,Logs}ServiceResponse` in
/// `encoding`, with `partial_success` set when items were rejected (`rejected`, with
/// `message` saying why) or when `message` warns of something, and left unset otherwise,
/// as the specification asks. Gives the `Content-Type` and the body; the status is 200.
#[must_use]
pub fn encode_response(
    signal: Signal,
    encoding: Encoding,
    rejected: u64,
    message: Option<&str>,
) -> (&'static str, Vec<u8>) {
    let partial = (rejected > 0 || message.is_some()).then(|| {
        (
            i64::try_from(rejected).unwrap_or(i64::MAX),
            message.unwrap_or_default().to_owned(),
        )
    });
    let body = match encoding {
        Encoding::Protobuf => protobuf_response(signal, partial),
        Encoding::Json => json_response(signal, partial),
    };
    (encoding.media_type(), body)
}

fn protobuf_response(signal: Signal, partial: Option<(i64, String)>) -> Vec<u8> {
    match signal {
        Signal::Traces => ExportTraceServiceResponse {
            partial_success: partial.map(|(rejected_spans, error_message)| {
                ExportTracePartialSuccess {
                    rejected_spans,
                    error_message,
                }
            }),
        }
        .encode_to_vec(),
        Signal::Logs => ExportLogsServiceResponse {
            partial_success: partial.map(|(rejected_log_records, error_message)| {
                ExportLogsPartialSuccess {
                    rejected_log_records,
                    error_message,
                }
            }),
        }
        .encode_to_vec(),
    }
}

/// Written here rather than by the message types' serde, which writes an unset
/// `partial_success` as `null` and the int64 count as a number: protobuf's JSON mapping
/// leaves unset fields out and writes 64-bit integers as decimal strings.
fn json_response(signal: Signal, partial: Option<(i64, String)>) -> Vec<u8> {
    let mut response = Map::new();
    if let Some((rejected, error_message)) = partial {
        let count = match signal {
            Signal::Traces => "rejectedSpans",
            Signal::Logs => "rejectedLogRecords",
        };
        let mut partial_success = Map::new();
        if rejected > 0 {
            partial_success.insert(count.to_owned(), Value::String(rejected.to_string()));
        }
        if !error_message.is_empty() {
            partial_success.insert("errorMessage".to_owned(), Value::String(error_message));
        }
        response.insert("partialSuccess".to_owned(), Value::Object(partial_success));
    }
    Value::Object(response).to_string().into_bytes()
}

/// The body of a 4xx or 5xx answer: a `google.rpc.Status` in `encoding` with `message`
/// and the gRPC code nearest `status` (the specification does not use the code, but a
/// client may record it). Gives the `Content-Type` and the body.
#[must_use]
pub fn encode_status(
    status: StatusCode,
    encoding: Encoding,
    message: &str,
) -> (&'static str, Vec<u8>) {
    let code = grpc_code(status);
    let body = match encoding {
        Encoding::Protobuf => RpcStatus {
            code,
            message: message.to_owned(),
        }
        .encode_to_vec(),
        Encoding::Json => json!({ "code": code, "message": message })
            .to_string()
            .into_bytes(),
    };
    (encoding.media_type(), body)
}

/// The `google.rpc.Code` for an HTTP status, by googleapis' own mapping
/// (`google/rpc/code.proto` names the HTTP status of each code).
fn grpc_code(status: StatusCode) -> i32 {
    match status.as_u16() {
        200..=299 => 0,  // OK
        400 | 415 => 3,  // INVALID_ARGUMENT
        401 => 16,       // UNAUTHENTICATED
        403 => 7,        // PERMISSION_DENIED
        404 => 5,        // NOT_FOUND
        409 => 10,       // ABORTED
        413 | 429 => 8,  // RESOURCE_EXHAUSTED
        499 => 1,        // CANCELLED
        501 => 12,       // UNIMPLEMENTED
        502 | 503 => 14, // UNAVAILABLE
        504 => 4,        // DEADLINE_EXCEEDED
        400..=499 => 9,  // FAILED_PRECONDITION
        _ => 13,         // INTERNAL
    }
}

/// How many export requests may wait for the writer at once; one more is answered 503
/// with `Retry-After`, which OTLP exporters retry with back-off: a sender faster than
/// the store is slowed down, and what the server holds stays bounded.
pub const OTLP_WAITING: usize = 4;

/// The seconds a sender is asked to wait when the writer is busy.
const RETRY_AFTER_SECONDS: u64 = 1;

/// `POST /v1/traces` and `POST /v1/logs`.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/v1/traces", post(traces))
        .route("/v1/logs", post(logs))
}

async fn traces(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    export(&state, Signal::Traces, &headers, body).await
}

async fn logs(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    export(&state, Signal::Logs, &headers, body).await
}

/// Decodes an export request, adds it to the sessions it belongs to (one writer at a
/// time), and answers as the specification says: 200 with `partial_success` when spans
/// were rejected, 400/413/415 for a body that cannot be taken (not to be retried), 503
/// with `Retry-After` when the writer is busy (to be retried).
async fn export(state: &AppState, signal: Signal, headers: &HeaderMap, body: Bytes) -> Response {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    let (content_type, content_encoding) = (header(CONTENT_TYPE), header(CONTENT_ENCODING));
    let encoding = Encoding::for_answer(content_type.as_deref());
    let Ok(waiting) = Arc::clone(&state.otlp_waiting).try_acquire_owned() else {
        let message = "the store is busy with earlier exports: retry later";
        let mut response = status_response(StatusCode::SERVICE_UNAVAILABLE, encoding, message);
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
        return response;
    };
    let limit = state.options.max_body;
    let decoded = tokio::task::spawn_blocking(move || match signal {
        Signal::Traces => decode_traces(
            content_type.as_deref(),
            content_encoding.as_deref(),
            &body,
            limit,
        ),
        Signal::Logs => decode_logs(
            content_type.as_deref(),
            content_encoding.as_deref(),
            &body,
            limit,
        ),
    })
    .await;
    let batch = match decoded {
        Ok(Ok(batch)) => batch,
        Ok(Err(error)) => {
            let (status, content_type, body) = encode_error(&error, encoding);
            return (status, [(CONTENT_TYPE, content_type)], body).into_response();
        }
        Err(error) => {
            let message = format!("the request's work failed: {error}");
            return status_response(StatusCode::INTERNAL_SERVER_ERROR, encoding, &message);
        }
    };
    let received = received(state, batch).await;
    drop(waiting);
    match received {
        Ok(Ok(received)) => {
            let rejected = received.rejected.as_ref();
            let (content_type, body) = encode_response(
                signal,
                encoding,
                rejected.map_or(0, |r| match signal {
                    Signal::Traces => r.spans,
                    Signal::Logs => r.logs,
                }),
                rejected.map(|r| r.message.as_str()),
            );
            (StatusCode::OK, [(CONTENT_TYPE, content_type)], body).into_response()
        }
        Ok(Err(ReceiveError::Refused(error))) => {
            let message = format!("the batch was refused: {}: {}", error.place, error.message);
            status_response(StatusCode::BAD_REQUEST, encoding, &message)
        }
        Ok(Err(error)) => {
            status_response(StatusCode::INTERNAL_SERVER_ERROR, encoding, &chain(&error))
        }
        Err(error) => status_response(error.status, encoding, &error.message),
    }
}

/// A decoded batch given to the receiver under the one writer, with what it keeps of
/// the sessions it wrote.
async fn received(
    state: &AppState,
    batch: Value,
) -> Result<Result<crate::ingest::Received, ReceiveError>, super::ApiError> {
    let live = Arc::clone(&state.live);
    state
        .write(move |store| {
            let mut live = live
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Ok(receive_live(
                store,
                &batch,
                &ImportOptions::default(),
                &mut live,
            ))
        })
        .await
}

fn status_response(status: StatusCode, encoding: Encoding, message: &str) -> Response {
    let (content_type, body) = encode_status(status, encoding, message);
    (status, [(CONTENT_TYPE, content_type)], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
    use std::io::Write;
    use test_case::test_case;

    const LIMIT: usize = 1024 * 1024;

    fn attribute(key: &str, value: any_value::Value) -> KeyValue {
        KeyValue {
            key: key.to_owned(),
            value: Some(AnyValue { value: Some(value) }),
        }
    }

    fn traces_request() -> ExportTraceServiceRequest {
        let span = Span {
            trace_id: (1..=16).collect(),
            span_id: vec![0xab; 8],
            parent_span_id: vec![0x01; 8],
            name: "chat test-model".to_owned(),
            kind: 3,
            start_time_unix_nano: 1_764_000_000_123_456_789,
            end_time_unix_nano: 1_764_000_001_000_000_000,
            attributes: vec![
                attribute(
                    "gen_ai.operation.name",
                    any_value::Value::StringValue("chat".to_owned()),
                ),
                attribute("gen_ai.usage.input_tokens", any_value::Value::IntValue(57)),
            ],
            status: Some(Status {
                message: String::new(),
                code: 1,
            }),
            ..Span::default()
        };
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                scope_spans: vec![ScopeSpans {
                    spans: vec![span],
                    ..ScopeSpans::default()
                }],
                ..ResourceSpans::default()
            }],
        }
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder
            .write_all(bytes)
            .expect("writing to a Vec cannot fail");
        encoder.finish().expect("writing to a Vec cannot fail")
    }

    fn first_span(value: &Value) -> &Value {
        &value["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    }

    #[test]
    fn protobuf_traces_become_otlp_json_with_hex_ids_and_camel_case() {
        let body = traces_request().encode_to_vec();
        let value = decode_traces(Some(PROTOBUF), None, &body, LIMIT).expect("a valid request");
        let span = first_span(&value);
        assert_eq!(span["traceId"], "0102030405060708090a0b0c0d0e0f10");
        assert_eq!(span["spanId"], "abababababababab");
        assert_eq!(span["parentSpanId"], "0101010101010101");
        assert_eq!(span["kind"], 3);
        assert_eq!(span["startTimeUnixNano"], "1764000000123456789");
        assert_eq!(span["status"]["code"], 1);
        assert_eq!(span["attributes"][0]["key"], "gen_ai.operation.name");
        assert_eq!(span["attributes"][0]["value"]["stringValue"], "chat");
        assert_eq!(span["attributes"][1]["value"]["intValue"], "57");
    }

    #[test]
    fn protobuf_and_json_of_one_request_decode_alike() {
        let request = traces_request();
        let from_protobuf =
            decode_traces(Some(PROTOBUF), None, &request.encode_to_vec(), LIMIT).expect("valid");
        let json = serde_json::to_vec(&request).expect("the request serializes");
        let from_json = decode_traces(Some(JSON), None, &json, LIMIT).expect("valid");
        assert_eq!(from_protobuf, from_json);
    }

    #[test]
    fn every_attribute_value_form_decodes_including_empty_and_non_finite() {
        let mut request = traces_request();
        let span = &mut request.resource_spans[0].scope_spans[0].spans[0];
        span.attributes = vec![
            KeyValue {
                key: "empty".to_owned(),
                value: Some(AnyValue { value: None }),
            },
            KeyValue {
                key: "absent".to_owned(),
                value: None,
            },
            attribute("nan", any_value::Value::DoubleValue(f64::NAN)),
            attribute("half", any_value::Value::DoubleValue(0.5)),
            attribute("flag", any_value::Value::BoolValue(true)),
            attribute("bytes", any_value::Value::BytesValue(vec![0, 255])),
            attribute("negative", any_value::Value::IntValue(i64::MIN)),
        ];
        span.trace_id = vec![1, 2, 3];
        let value = decode_traces(Some(PROTOBUF), None, &request.encode_to_vec(), LIMIT)
            .expect("every value form is taken");
        let span = first_span(&value);
        let values: Vec<&Value> = (0..7).map(|at| &span["attributes"][at]["value"]).collect();
        assert_eq!(values[0], &json!({}));
        assert_eq!(values[1], &Value::Null);
        // JSON has no NaN: serde_json writes a non-finite double as null.
        assert_eq!(values[2], &json!({"doubleValue": null}));
        assert_eq!(values[3], &json!({"doubleValue": 0.5}));
        assert_eq!(values[4], &json!({"boolValue": true}));
        assert_eq!(values[5], &json!({"bytesValue": "AP8="}));
        assert_eq!(values[6], &json!({"intValue": "-9223372036854775808"}));
        // An id of the wrong length is written as it is: the importer judges it.
        assert_eq!(span["traceId"], "010203");
    }

    #[test]
    fn protobuf_logs_become_otlp_json() {
        let request = ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                scope_logs: vec![ScopeLogs {
                    log_records: vec![LogRecord {
                        event_name: "gen_ai.client.inference.operation.details".to_owned(),
                        trace_id: vec![7; 16],
                        span_id: vec![9; 8],
                        body: Some(AnyValue {
                            value: Some(any_value::Value::StringValue("hello".to_owned())),
                        }),
                        ..LogRecord::default()
                    }],
                    ..ScopeLogs::default()
                }],
                ..ResourceLogs::default()
            }],
        };
        let value = decode_logs(Some(PROTOBUF), None, &request.encode_to_vec(), LIMIT)
            .expect("a valid request");
        let record = &value["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
        assert_eq!(
            record["eventName"],
            "gen_ai.client.inference.operation.details"
        );
        assert_eq!(record["traceId"], "07070707070707070707070707070707");
        assert_eq!(record["spanId"], "0909090909090909");
        assert_eq!(record["body"]["stringValue"], "hello");
    }

    #[test]
    fn gzip_bodies_are_decompressed_in_either_encoding() {
        let request = traces_request();
        let plain = decode_traces(Some(PROTOBUF), None, &request.encode_to_vec(), LIMIT);
        let zipped = gzip(&request.encode_to_vec());
        let unzipped = decode_traces(Some(PROTOBUF), Some("gzip"), &zipped, LIMIT);
        assert_eq!(plain.expect("valid"), unzipped.expect("valid"));
        let json = gzip(br#"{"resourceLogs": []}"#);
        let value = decode_logs(
            Some("application/json; charset=utf-8"),
            Some("GZIP"),
            &json,
            LIMIT,
        );
        assert_eq!(value.expect("valid"), json!({"resourceLogs": []}));
    }

    #[test]
    fn a_gzip_bomb_is_refused_at_the_bound_not_held() {
        // 64 MiB of zeros compress to about 64 KiB; only the bound plus one byte is read.
        let zeros = vec![0_u8; 64 * 1024 * 1024];
        let bomb = gzip(&zeros);
        drop(zeros);
        assert!(bomb.len() < LIMIT);
        let error = decode_traces(Some(PROTOBUF), Some("gzip"), &bomb, LIMIT)
            .expect_err("larger than the bound once decompressed");
        assert!(
            matches!(error, OtlpError::TooLarge { limit: LIMIT }),
            "{error:?}"
        );
        assert_eq!(error.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[test]
    fn a_body_exactly_at_the_bound_is_taken() {
        let body = traces_request().encode_to_vec();
        let zipped = gzip(&body);
        assert!(decode_traces(Some(PROTOBUF), Some("gzip"), &zipped, body.len()).is_ok());
        let error = decode_traces(Some(PROTOBUF), Some("gzip"), &zipped, body.len() - 1);
        assert!(matches!(error, Err(OtlpError::TooLarge { .. })));
        let error = decode_traces(Some(PROTOBUF), None, &body, body.len() - 1);
        assert!(matches!(error, Err(OtlpError::TooLarge { .. })));
    }

    #[test]
    fn an_empty_request_is_an_empty_batch() {
        let value = decode_traces(Some(PROTOBUF), None, b"", LIMIT).expect("empty is valid");
        assert_eq!(value, json!({"resourceSpans": []}));
        let value = decode_traces(Some(JSON), None, b"{}", LIMIT).expect("empty is valid");
        assert_eq!(value, json!({"resourceSpans": []}));
    }

    #[test]
    fn unknown_json_members_are_kept_for_the_importer() {
        let body = br#"{"resourceSpans": [{"scopeSpans": [], "future": 1}], "extra": true}"#;
        let value = decode_traces(Some(JSON), None, body, LIMIT).expect("valid");
        assert_eq!(value["resourceSpans"][0]["future"], 1);
        assert_eq!(value["extra"], true);
    }

    #[test_case(Some("text/plain") ; "another media type")]
    #[test_case(None ; "no content type")]
    #[test_case(Some("application/grpc") ; "grpc")]
    fn an_unknown_content_type_is_415_naming_what_is_taken(content_type: Option<&str>) {
        let error = decode_traces(content_type, None, b"{}", LIMIT).expect_err("refused");
        assert_eq!(error.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let message = error.to_string();
        assert!(
            message.contains("application/x-protobuf or application/json"),
            "{message}"
        );
    }

    #[test]
    fn an_unknown_content_encoding_is_415() {
        let error = decode_traces(Some(JSON), Some("br"), b"{}", LIMIT).expect_err("refused");
        assert_eq!(error.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(error.to_string().contains("`br`"), "{error}");
        assert!(decode_traces(Some(JSON), Some("identity"), b"{}", LIMIT).is_ok());
    }

    #[test]
    fn a_body_that_is_not_gzip_is_400() {
        let error = decode_logs(Some(JSON), Some("gzip"), b"{}", LIMIT).expect_err("refused");
        assert!(matches!(error, OtlpError::Gzip(_)), "{error:?}");
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        let body = traces_request().encode_to_vec();
        let cut = gzip(&body);
        let error = decode_traces(Some(PROTOBUF), Some("gzip"), &cut[..cut.len() - 6], LIMIT);
        assert!(matches!(error, Err(OtlpError::Gzip(_))), "{error:?}");
    }

    #[test]
    fn malformed_protobuf_is_400_naming_the_message_and_field() {
        let mut body = traces_request().encode_to_vec();
        body.truncate(body.len() - 3);
        let error = decode_traces(Some(PROTOBUF), None, &body, LIMIT).expect_err("cut short");
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        assert!(
            error.to_string().contains("ExportTraceServiceRequest"),
            "{error}"
        );
        let OtlpError::Protobuf { source, .. } = &error else {
            panic!("expected a protobuf error, got {error:?}");
        };
        // prost names the path of fields where decoding stopped.
        assert!(
            source
                .to_string()
                .contains("ExportTraceServiceRequest.resource_spans"),
            "{source}"
        );
        let (status, content_type, body) = encode_error(&error, Encoding::Protobuf);
        assert_eq!((status, content_type), (StatusCode::BAD_REQUEST, PROTOBUF));
        let answer = RpcStatus::decode(body.as_slice()).expect("a google.rpc.Status");
        assert_eq!(answer.code, 3);
        assert!(
            answer
                .message
                .starts_with("the body is not a protobuf ExportTraceServiceRequest: ")
                && answer
                    .message
                    .contains("ExportTraceServiceRequest.resource_spans: "),
            "{}",
            answer.message
        );
    }

    #[test]
    fn protobuf_nested_past_the_recursion_limit_is_400_not_a_stack_overflow() {
        // An AnyValue holding an array holding an AnyValue ..., 200 deep: prost stops at
        // its recursion limit (100) instead of following the body down the stack.
        let mut value = AnyValue {
            value: Some(any_value::Value::StringValue("deep".to_owned())),
        };
        for _ in 0..200 {
            value = AnyValue {
                value: Some(any_value::Value::ArrayValue(
                    opentelemetry_proto::tonic::common::v1::ArrayValue {
                        values: vec![value],
                    },
                )),
            };
        }
        let mut request = traces_request();
        request.resource_spans[0].scope_spans[0].spans[0]
            .attributes
            .push(KeyValue {
                key: "deep".to_owned(),
                value: Some(value),
            });
        let body = request.encode_to_vec();
        let error = decode_traces(Some(PROTOBUF), None, &body, LIMIT).expect_err("too deep");
        assert!(matches!(error, OtlpError::Protobuf { .. }), "{error:?}");
        assert!(error.to_string().contains("protobuf"), "{error}");
    }

    #[test_case(b"{\"resourceSpans\": [}", 1, 20 ; "syntax")]
    #[test_case(b"{\n  \"resourceSpans\": [\n    {\"a\": 1,}\n  ]\n}", 3, 13 ; "trailing comma")]
    fn malformed_json_is_400_with_line_and_column(body: &[u8], line: usize, column: usize) {
        let error = decode_traces(Some(JSON), None, body, LIMIT).expect_err("malformed");
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        let OtlpError::Json(source) = &error else {
            panic!("expected a JSON error, got {error:?}");
        };
        assert_eq!((source.line(), source.column()), (line, column), "{error}");
        let (status, _, body) = encode_error(&error, Encoding::Json);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let answer: Value = serde_json::from_slice(&body).expect("JSON");
        let message = answer["message"].as_str().expect("a message");
        assert!(message.starts_with("the body is not JSON: "), "{message}");
        assert!(
            message.ends_with(&format!("at line {line} column {column}")),
            "{message}"
        );
    }

    #[test_case(b"[]", "", "an object with `resourceSpans`" ; "not an object")]
    #[test_case(b"{\"resourceSpans\": {}}", "/resourceSpans", "an array" ; "not an array")]
    #[test_case(b"{\"resourceSpans\": [{}, 3]}", "/resourceSpans/1", "an object" ; "not objects")]
    fn json_of_the_wrong_shape_is_400_at_a_pointer(body: &[u8], pointer: &str, expected: &str) {
        let error = decode_traces(Some(JSON), None, body, LIMIT).expect_err("wrong shape");
        assert_eq!(error.status(), StatusCode::BAD_REQUEST);
        let OtlpError::Shape {
            pointer: found,
            expected: wanted,
        } = &error
        else {
            panic!("expected a shape error, got {error:?}");
        };
        assert_eq!((found.as_str(), wanted.as_str()), (pointer, expected));
    }

    #[test]
    fn logs_json_is_checked_for_resource_logs() {
        let error = decode_logs(Some(JSON), None, br#"{"resourceLogs": 1}"#, LIMIT);
        assert!(
            matches!(&error, Err(OtlpError::Shape { pointer, .. }) if pointer == "/resourceLogs"),
            "{error:?}"
        );
    }

    #[test]
    fn a_full_success_leaves_partial_success_unset() {
        let (content_type, body) = encode_response(Signal::Traces, Encoding::Protobuf, 0, None);
        assert_eq!(content_type, PROTOBUF);
        let response = ExportTraceServiceResponse::decode(body.as_slice()).expect("valid");
        assert_eq!(response.partial_success, None);
        let (content_type, body) = encode_response(Signal::Logs, Encoding::Json, 0, None);
        assert_eq!(content_type, JSON);
        assert_eq!(body, b"{}");
    }

    #[test]
    fn a_partial_success_says_how_many_and_why_in_the_request_encoding() {
        let (_, body) = encode_response(Signal::Traces, Encoding::Protobuf, 3, Some("3 spans"));
        let response = ExportTraceServiceResponse::decode(body.as_slice()).expect("valid");
        let partial = response.partial_success.expect("set");
        assert_eq!(
            (partial.rejected_spans, partial.error_message.as_str()),
            (3, "3 spans")
        );

        let (_, body) = encode_response(Signal::Logs, Encoding::Protobuf, 2, Some("no"));
        let response = ExportLogsServiceResponse::decode(body.as_slice()).expect("valid");
        assert_eq!(
            response.partial_success.expect("set").rejected_log_records,
            2
        );

        let (_, body) = encode_response(Signal::Logs, Encoding::Json, 2, Some("no"));
        let value: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(
            value,
            json!({"partialSuccess": {"rejectedLogRecords": "2", "errorMessage": "no"}})
        );
    }

    #[test]
    fn a_warning_without_rejections_is_a_partial_success_of_zero() {
        let (_, body) = encode_response(Signal::Traces, Encoding::Json, 0, Some("kept as is"));
        let value: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(
            value,
            json!({"partialSuccess": {"errorMessage": "kept as is"}})
        );
        let (_, body) = encode_response(Signal::Traces, Encoding::Protobuf, 0, Some("w"));
        let response = ExportTraceServiceResponse::decode(body.as_slice()).expect("valid");
        let partial = response.partial_success.expect("set");
        assert_eq!(
            (partial.rejected_spans, partial.error_message.as_str()),
            (0, "w")
        );
    }

    #[test]
    fn an_error_body_is_a_google_rpc_status_in_the_request_encoding() {
        let (content_type, body) =
            encode_status(StatusCode::BAD_REQUEST, Encoding::Protobuf, "bad span");
        assert_eq!(content_type, PROTOBUF);
        let status = RpcStatus::decode(body.as_slice()).expect("valid");
        assert_eq!((status.code, status.message.as_str()), (3, "bad span"));
        // Field numbers of google/rpc/status.proto: code = 1 (varint), message = 2.
        assert_eq!(&body[..4], &[0x08, 0x03, 0x12, 0x08]);

        let (content_type, body) =
            encode_status(StatusCode::SERVICE_UNAVAILABLE, Encoding::Json, "busy");
        assert_eq!(content_type, JSON);
        let value: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(value, json!({"code": 14, "message": "busy"}));
    }

    #[test_case(StatusCode::UNAUTHORIZED, 16)]
    #[test_case(StatusCode::FORBIDDEN, 7)]
    #[test_case(StatusCode::PAYLOAD_TOO_LARGE, 8)]
    #[test_case(StatusCode::TOO_MANY_REQUESTS, 8)]
    #[test_case(StatusCode::UNSUPPORTED_MEDIA_TYPE, 3)]
    #[test_case(StatusCode::INTERNAL_SERVER_ERROR, 13)]
    #[test_case(StatusCode::GATEWAY_TIMEOUT, 4)]
    fn http_statuses_map_to_grpc_codes(status: StatusCode, code: i32) {
        assert_eq!(grpc_code(status), code);
    }

    /// Each `*-traces.pb` / `*-logs.pb` of a real emitter's fixture, in the order it was
    /// sent, as the JSON Lines the Collector's file exporter writes (one `TracesData` /
    /// `LogsData` a line): what this decoder gives, so the importer's fixtures and the
    /// server's input are one shape. `IHIGRAPH_BLESS=1` writes them.
    #[test]
    fn the_real_emitters_bodies_decode_to_their_json_lines() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/otel");
        let mut fixtures: Vec<_> = std::fs::read_dir(&root)
            .expect("tests/fixtures/import/otel")
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| {
                path.file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("real-"))
            })
            .collect();
        fixtures.sort();
        assert!(
            fixtures.len() >= 2,
            "real emitters' fixtures missing in {}",
            root.display()
        );
        for fixture in fixtures {
            let mut bodies: Vec<_> = std::fs::read_dir(&fixture)
                .expect("a fixture directory")
                .map(|entry| entry.expect("a directory entry").path())
                .filter(|path| path.extension().is_some_and(|extension| extension == "pb"))
                .collect();
            bodies.sort();
            let (mut traces, mut logs) = (String::new(), String::new());
            for body in &bodies {
                let name = body
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned());
                let bytes = std::fs::read(body).expect("a fixture body");
                let (value, lines) = if name
                    .as_deref()
                    .is_some_and(|name| name.ends_with("-logs.pb"))
                {
                    (
                        decode_logs(Some(PROTOBUF), None, &bytes, usize::MAX),
                        &mut logs,
                    )
                } else {
                    (
                        decode_traces(Some(PROTOBUF), None, &bytes, usize::MAX),
                        &mut traces,
                    )
                };
                let value = value.unwrap_or_else(|error| panic!("{}: {error}", body.display()));
                lines.push_str(&value.to_string());
                lines.push('\n');
            }
            assert!(!traces.is_empty(), "{}: no *-traces.pb", fixture.display());
            for (file, lines) in [("traces.jsonl", traces), ("logs.jsonl", logs)] {
                let path = fixture.join(file);
                if std::env::var_os("IHIGRAPH_BLESS").is_some() {
                    if lines.is_empty() {
                        let _ = std::fs::remove_file(&path);
                    } else {
                        std::fs::write(&path, &lines).expect("the fixture is writable");
                    }
                    continue;
                }
                let found = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    found == lines,
                    "{} differs from its *.pb decoded (IHIGRAPH_BLESS=1 cargo test --lib serve::otlp:: writes it)",
                    path.display()
                );
            }
        }
    }

    /// Every string and every object of a decoded body, and of every JSON text among its
    /// strings (content attributes such as `gen_ai.input.messages` are JSON in a string),
    /// once parsed.
    #[derive(Default)]
    struct Found {
        strings: Vec<String>,
        objects: Vec<Value>,
    }

    impl Found {
        fn walk(&mut self, value: &Value) {
            match value {
                Value::String(text) => {
                    if let Ok(inner @ (Value::Array(_) | Value::Object(_))) =
                        serde_json::from_str::<Value>(text)
                    {
                        self.walk(&inner);
                    }
                    self.strings.push(text.clone());
                }
                Value::Array(items) => items.iter().for_each(|item| self.walk(item)),
                Value::Object(members) => {
                    members.values().for_each(|item| self.walk(item));
                    self.objects.push(value.clone());
                }
                _ => {}
            }
        }

        fn has_text(&self, text: &str) -> bool {
            self.strings.iter().any(|string| string.contains(text))
        }
    }

    /// What of a recording's `expected.json` its bodies lack: each text, and each tool
    /// call's id, name and arguments (an object equal to them, parsed from a JSON text or
    /// not).
    fn missing_from_bodies(fixture: &std::path::Path) -> Vec<String> {
        let mut found = Found::default();
        for file in ["traces.jsonl", "logs.jsonl"] {
            let lines = std::fs::read_to_string(fixture.join(file)).unwrap_or_default();
            for line in lines.lines() {
                found.walk(&serde_json::from_str(line).expect("a JSON line"));
            }
        }
        let expected = std::fs::read_to_string(fixture.join("expected.json")).expect("a file");
        let expected: Value = serde_json::from_str(&expected).expect("expected.json is JSON");
        let mut missing = Vec::new();
        for message in expected["messages"].as_array().expect("messages") {
            let text = message["text"].as_str().unwrap_or_default();
            if !found.has_text(text) {
                missing.push(format!("text {text:?}"));
            }
            for call in message["tool_calls"].as_array().expect("tool_calls") {
                let (id, name) = (call["id"].as_str(), call["name"].as_str());
                if !found.has_text(id.unwrap_or("(none)"))
                    || !found.has_text(name.unwrap_or("(none)"))
                {
                    missing.push(format!("call {id:?} {name:?}"));
                }
                if !found.objects.contains(&call["arguments"]) {
                    missing.push(format!("arguments {}", call["arguments"]));
                }
            }
        }
        missing
    }

    /// A recording holds the whole conversation its framework reported (content capture
    /// was on), so the importer can be held to all of it.
    #[test]
    fn each_recording_holds_every_message_its_framework_reported() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/otel");
        let mut checked = 0;
        for entry in std::fs::read_dir(&root).expect("tests/fixtures/import/otel") {
            let fixture = entry.expect("a directory entry").path();
            if fixture.join("expected.json").exists() {
                let missing = missing_from_bodies(&fixture);
                assert!(
                    missing.is_empty(),
                    "{}: not in its bodies: {missing:?}",
                    fixture.display()
                );
                checked += 1;
            }
        }
        assert!(
            checked >= 2,
            "real emitters' recordings missing in {}",
            root.display()
        );
    }

    #[test]
    fn a_message_or_argument_not_recorded_is_missing_from_the_bodies() {
        let recorded = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import/otel/real-pydantic-ai");
        let scratch = tempfile::tempdir().expect("a scratch directory");
        std::fs::copy(
            recorded.join("traces.jsonl"),
            scratch.path().join("traces.jsonl"),
        )
        .expect("a copy");
        let expected = json!({"messages": [
            {"role": "user", "text": "What is the weather in Paris?", "tool_calls": []},
            {"role": "user", "text": "Never said", "tool_calls": []},
            {"role": "assistant", "text": null, "tool_calls": [
                {"id": "call_weather_paris", "name": "get_weather", "arguments": {"city": "Paris"}},
                {"id": "call_weather_oslo", "name": "get_weather", "arguments": {"city": "Rome"}},
            ]},
        ]});
        std::fs::write(scratch.path().join("expected.json"), expected.to_string()).expect("write");
        assert_eq!(
            missing_from_bodies(scratch.path()),
            [r#"text "Never said""#, r#"arguments {"city":"Rome"}"#]
        );
    }

    #[test]
    fn an_unreadable_content_type_is_answered_in_json() {
        assert_eq!(Encoding::for_answer(Some("text/plain")), Encoding::Json);
        assert_eq!(Encoding::for_answer(Some(PROTOBUF)), Encoding::Protobuf);
        assert_eq!(Encoding::for_answer(None), Encoding::Json);
    }
}
