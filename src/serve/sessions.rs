//! REST for sessions: list them, read one as PGM-IHI JSON or RDF, put one (a PGM-IHI
//! document, or any importer's format with `?from=FORMAT`), append a turn, delete one, or
//! every session of a subject (`DELETE /sessions?where=instance=ID`).
//! Every write is checked first, as `ingest` checks, and stored in one atomic step.

use super::negotiate::choose;
use super::parameters::Parameters;
use super::rows::json_rows;
use super::{ApiError, AppState, auth};
use crate::check::{CheckOptions, Diagnostic, Place, Rule, Severity};
use crate::import::{Choice, ImportEvent, ImportOptions, import_bytes, importer, is_pgm_ihi};
use crate::ingest::{NewSession, PreparedDocument, append_turn, prepare_document, prepare_history};
use crate::memory::{DeletionReceipt, Subject, SubjectError, delete_session, erase_subject};
use crate::query::{Arguments, SESSIONS};
use crate::read::{Origin, parse_json};
use crate::store::{ExportFormat, HistoryStore};
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

/// The most sessions in one page of `GET /sessions`.
const MAX_PAGE: usize = 1000;
/// Sessions in a page unless `limit` says.
const DEFAULT_PAGE: usize = 100;

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/sessions", get(list).delete(erase))
        .route("/sessions/{id}", get(read).put(put).delete(delete))
        .route("/sessions/{id}/turns", post(append))
}

/// `GET /sessions?limit=&offset=&m-instance=&u-environment=`: the sessions, latest
/// start first, as the `sessions` canned query gives them.
async fn list(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parameters = Parameters::parse(
        query.as_deref(),
        &["limit", "offset", "m-instance", "u-environment"],
    )?;
    let limit = parameters.number("limit", DEFAULT_PAGE, usize::MAX)?;
    let offset = parameters.number("offset", 0, usize::MAX)?;
    if limit == 0 || limit > MAX_PAGE {
        return Err(ApiError::bad_request(format!(
            "limit={limit}: a page holds 1 to {MAX_PAGE} sessions"
        )));
    }
    // The next page starts here: past the largest number, there is none to link to.
    let end = offset.checked_add(limit).ok_or_else(|| {
        ApiError::bad_request(format!(
            "offset={offset}: the page would end past {}, the largest offset",
            usize::MAX
        ))
    })?;
    let mut arguments = Arguments::new();
    for name in ["m-instance", "u-environment"] {
        if let Some(value) = parameters.get(name) {
            arguments = arguments.raw(name, value);
        }
    }
    let rows = state
        .blocking(move |store| json_rows(store.run(&SESSIONS, &arguments)?, usize::MAX))
        .await?;
    let total = rows.len();
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    let next = (end < total).then(|| format!("/sessions?offset={end}&limit={limit}"));
    Ok(Json(json!({
        "sessions": page,
        "total": total,
        "offset": offset,
        "limit": limit,
        "next": next,
    }))
    .into_response())
}

/// What `GET /sessions/{id}` can answer.
#[derive(Clone, Copy)]
enum SessionFormat {
    PgmIhi,
    Rdf(ExportFormat, &'static str),
}

const SESSION_OFFERS: &[(&str, SessionFormat)] = &[
    ("application/json", SessionFormat::PgmIhi),
    (
        "application/trig",
        SessionFormat::Rdf(ExportFormat::TriG, "application/trig"),
    ),
    (
        "application/n-quads",
        SessionFormat::Rdf(ExportFormat::NQuads, "application/n-quads"),
    ),
    (
        "text/turtle",
        SessionFormat::Rdf(ExportFormat::Turtle, "text/turtle; charset=utf-8"),
    ),
    (
        "application/ld+json",
        SessionFormat::Rdf(ExportFormat::JsonLd, "application/ld+json"),
    ),
];

/// `GET /sessions/{id}`: the session rebuilt from its graph as a PGM-IHI document, or
/// its graph in RDF by `Accept`.
async fn read(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    Parameters::parse(query.as_deref(), &[])?;
    match choose(&headers, SESSION_OFFERS)? {
        SessionFormat::PgmIhi => {
            let history = state.blocking(move |store| Ok(store.history(&id)?)).await?;
            Ok(Json(history).into_response())
        }
        SessionFormat::Rdf(format, media) => {
            let body = state
                .blocking(move |store| {
                    let mut body = Vec::new();
                    store.export(&mut body, format, Some(&id))?;
                    Ok(body)
                })
                .await?;
            Ok((
                [(header::CONTENT_TYPE, HeaderValue::from_static(media))],
                body,
            )
                .into_response())
        }
    }
}

/// `PUT /sessions/{id}[?from=FORMAT&lenient=true&...]`: stores the body's session as
/// `{id}`: 201 when it is new, 200 when it replaced (or already was) that session.
async fn put(
    State(state): State<AppState>,
    caller: auth::Caller,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    auth::may_write(&caller)?;
    let parameters = Parameters::parse(
        query.as_deref(),
        &[
            "from",
            "lenient",
            "start-time",
            "timezone",
            "instance-id",
            "environment-id",
        ],
    )?;
    let lenient = parameters.flag("lenient")?;
    let from = parameters.get("from").unwrap_or("pgm-ihi").to_owned();
    let import = import_options(&parameters, &id)?;
    let scheme = state.store.scheme().clone();
    // Checking and mapping need no lock: only the write waits for the writes before it.
    let prepared = tokio::task::spawn_blocking(move || {
        prepare_body(
            &id,
            &from,
            body.to_vec(),
            &import,
            CheckOptions { lenient },
            &scheme,
        )
    })
    .await
    .map_err(|error| ApiError::internal(format!("the request's work failed: {error}")))??;
    let (session_id, turns, quads) = (
        prepared.session_id.clone(),
        prepared.turns,
        prepared
            .document
            .session
            .as_ref()
            .map_or(0, |session| session.quads.len()),
    );
    let warnings: Vec<Value> = prepared
        .document
        .diagnostics
        .iter()
        .map(|diagnostic| super::error::diagnostic_json(diagnostic, &prepared.document.origin))
        .collect();
    let outcome = state
        .write(move |store| {
            let session =
                prepared.document.session.as_ref().ok_or_else(|| {
                    ApiError::internal("an accepted document has a session graph")
                })?;
            Ok(store.write_session(session)?)
        })
        .await?;
    let created = !outcome.replaced && !outcome.unchanged;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let location = format!("/sessions/{}", encode_segment(&session_id));
    let mut response = (
        status,
        Json(json!({
            "session": session_id,
            "created": created,
            "replaced": outcome.replaced,
            "unchanged": outcome.unchanged,
            "turns": turns,
            "quads": quads,
            "warnings": warnings,
        })),
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

/// A body checked and mapped, ready to be written.
struct PreparedBody {
    session_id: String,
    turns: usize,
    document: PreparedDocument,
}

/// Reads, converts when `from` names another format, checks and maps the body; the
/// session it holds must be `{id}`.
fn prepare_body(
    id: &str,
    from: &str,
    body: Vec<u8>,
    import: &ImportOptions,
    options: CheckOptions,
    scheme: &crate::rdf::IriScheme,
) -> Result<PreparedBody, ApiError> {
    let origin = Origin {
        name: "request body".to_owned(),
        line: None,
    };
    let choice = match from {
        "pgm-ihi" => None,
        "auto" => match parse_json(&body) {
            Ok(value) if is_pgm_ihi(&value) => None,
            _ => Some(Choice::Auto),
        },
        name => Some(Choice::Format(importer(name).ok_or_else(|| {
            ApiError::bad_request(format!(
                "from={name}: no such format (pgm-ihi, auto, or an importer: {})",
                crate::import::IMPORTERS
                    .iter()
                    .map(|importer| importer.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?)),
    };
    match choice {
        None => prepare_document_body(id, &body, options, scheme, &origin),
        Some(choice) => prepare_import_body(id, body, choice, import, scheme, origin),
    }
}

/// A PGM-IHI document, checked and mapped.
fn prepare_document_body(
    id: &str,
    body: &[u8],
    options: CheckOptions,
    scheme: &crate::rdf::IriScheme,
    origin: &Origin,
) -> Result<PreparedBody, ApiError> {
    let value = parse_json(body);
    if let Ok(value) = &value {
        let found = value.get("SessionID").and_then(Value::as_str);
        if let Some(found) = found.filter(|found| *found != id) {
            return Err(mismatch(id, found, origin));
        }
    }
    let document = prepare_document(origin.clone(), value, options, scheme);
    if document.is_refused() {
        return Err(ApiError::refused(
            "the document was refused",
            origin,
            &document.diagnostics,
        ));
    }
    let turns = document
        .session
        .as_ref()
        .map_or(0, |session| session.turn_count);
    Ok(PreparedBody {
        session_id: id.to_owned(),
        turns,
        document,
    })
}

/// A history in another format, converted (and so checked) and mapped: it must hold
/// one session, `{id}`.
fn prepare_import_body(
    id: &str,
    body: Vec<u8>,
    choice: Choice,
    import: &ImportOptions,
    scheme: &crate::rdf::IriScheme,
    origin: Origin,
) -> Result<PreparedBody, ApiError> {
    let mut converted = Vec::new();
    let mut refusal = None;
    import_bytes(&origin.name, body, choice, import, &mut |event| {
        match event {
            ImportEvent::Session {
                converted: session, ..
            } => converted.push(*session),
            ImportEvent::Refused { error, .. } => refusal = Some(error),
            _ => {}
        }
        true
    });
    if let Some(error) = refusal {
        let diagnostic = Diagnostic {
            severity: Severity::Error,
            place: Place::Input(error.place.clone()),
            rule: Rule::Format,
            message: error.message.clone(),
        };
        return Err(ApiError::refused(
            "the body was refused by its importer",
            &origin,
            &[diagnostic],
        ));
    }
    let [session] = <[_; 1]>::try_from(converted).map_err(|sessions: Vec<_>| {
        ApiError::bad_request(format!(
            "the body holds {} sessions; PUT /sessions/{{id}} takes one (ingest a file of several with the CLI)",
            sessions.len()
        ))
    })?;
    if session.session_id != id {
        return Err(mismatch(id, &session.session_id, &origin));
    }
    let document = prepare_history(origin, &session.history, scheme);
    Ok(PreparedBody {
        session_id: session.session_id,
        turns: session.turns,
        document,
    })
}

fn mismatch(id: &str, found: &str, origin: &Origin) -> ApiError {
    let diagnostic = Diagnostic {
        severity: Severity::Error,
        place: Place::Pointer("/SessionID".to_owned()),
        rule: Rule::Format,
        message: format!("the URL names session {id:?}, the body holds session {found:?}"),
    };
    ApiError::refused(
        "the body's session is not the one in the URL",
        origin,
        &[diagnostic],
    )
}

/// The importer options a PUT may give: `start-time`, `timezone`, `instance-id`,
/// `environment-id`; the session id is the URL's.
fn import_options(parameters: &Parameters, id: &str) -> Result<ImportOptions, ApiError> {
    let mut options = ImportOptions::default().session_id(id);
    if let Some(time) = parameters.get("start-time") {
        options = options
            .start_time(time)
            .map_err(|error| ApiError::bad_request(format!("start-time: {error}")))?;
    }
    if let Some(zone) = parameters.get("timezone") {
        options = options
            .timezone(zone)
            .map_err(|error| ApiError::bad_request(format!("timezone: {error}")))?;
    }
    if let Some(id) = parameters.get("instance-id") {
        options = options.instance_id(id);
    }
    if let Some(id) = parameters.get("environment-id") {
        options = options.environment_id(id);
    }
    Ok(options)
}

/// `POST /sessions/{id}/turns[?create=true&m-instance=&u-environment=&data-id=&source-aim=&lenient=true]`:
/// appends the body's turn (a JSON object as in a document's `Turns`); 200, or 201
/// when `create` started the session.
async fn append(
    State(state): State<AppState>,
    caller: auth::Caller,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    auth::may_write(&caller)?;
    let parameters = Parameters::parse(
        query.as_deref(),
        &[
            "create",
            "m-instance",
            "u-environment",
            "data-id",
            "source-aim",
            "lenient",
        ],
    )?;
    let options = CheckOptions {
        lenient: parameters.flag("lenient")?,
    };
    let create = new_session(&parameters)?;
    let origin = Origin {
        name: "request body".to_owned(),
        line: None,
    };
    let turn = parse_json(&body).map_err(|error| {
        let diagnostic = Diagnostic::from(&error);
        ApiError::refused("the turn is not JSON", &origin, &[diagnostic])
    })?;
    let outcome = state
        .write(move |store| Ok(append_turn(store, &id, &turn, create.as_ref(), options)?))
        .await?;
    let status = if outcome.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let warnings: Vec<Value> = outcome
        .warnings
        .iter()
        .map(|problem| super::error::diagnostic_json(&Diagnostic::from(problem), &origin))
        .collect();
    Ok((
        status,
        Json(
            json!({"created": outcome.created, "completed": outcome.completed, "turns": outcome.turn_count, "warnings": warnings}),
        ),
    )
        .into_response())
}

/// What starts a session that is not stored yet, when `create=true`.
fn new_session(parameters: &Parameters) -> Result<Option<NewSession>, ApiError> {
    if !parameters.flag("create")? {
        return Ok(None);
    }
    let required = |name: &str| {
        parameters.get(name).map(str::to_owned).ok_or_else(|| {
            ApiError::bad_request(format!(
                "create=true needs m-instance, u-environment, data-id and source-aim: {name} is missing"
            ))
        })
    };
    let data_id = required("data-id")?;
    let source_aim = required("source-aim")?;
    Ok(Some(NewSession {
        m_instance_id: required("m-instance")?,
        u_environment_id: required("u-environment")?,
        data_exchange_metadata: NewSession::minimal_metadata(&data_id, &source_aim),
    }))
}

/// `DELETE /sessions/{id}[?dry-run=true&receipt=true]`: 204 (200 with the receipt when
/// asked), or 404 when there is no such session. Both parameters are read before
/// anything is deleted.
async fn delete(
    State(state): State<AppState>,
    caller: auth::Caller,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parameters = Parameters::parse(query.as_deref(), &["dry-run", "receipt"])?;
    let dry_run = parameters.flag("dry-run")?;
    let with_receipt = dry_run || parameters.flag("receipt")?;
    if !dry_run {
        auth::may_write(&caller)?;
    }
    let work = move |store: &HistoryStore| Ok(delete_session(store, &id, dry_run)?);
    // A dry run writes nothing: it need not wait for the writes ahead of it.
    let receipt = if dry_run {
        state.blocking(work).await?
    } else {
        state.write(work).await?
    };
    let body = receipt.to_json();
    if receipt.mentions_left > 0 {
        return Ok((StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response());
    }
    if with_receipt {
        Ok(Json(body).into_response())
    } else {
        Ok(StatusCode::NO_CONTENT.into_response())
    }
}

/// `DELETE /sessions?where=KEY=ID[&dry-run=true]`: every session that names the subject
/// (`instance`, `environment` or `user`), each with its receipt, the totals, and a check
/// that nothing in the store names the subject any more: 200, or 500 when something
/// still does; 400 for a subject that does not read. A dry run needs no token.
async fn erase(
    State(state): State<AppState>,
    caller: auth::Caller,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parameters = Parameters::parse(query.as_deref(), &["where", "dry-run"])?;
    let dry_run = parameters.flag("dry-run")?;
    let subject: Subject = parameters
        .get("where")
        .ok_or_else(|| {
            ApiError::bad_request("where= is required: instance=ID, environment=ID or user=ID")
        })?
        .parse()
        .map_err(|error: SubjectError| ApiError::bad_request(format!("where={error}")))?;
    if !dry_run {
        auth::may_write(&caller)?;
    }
    let work = move |store: &HistoryStore| Ok(erase_subject(store, &subject, dry_run)?);
    let erasure = if dry_run {
        state.blocking(work).await?
    } else {
        state.write(work).await?
    };
    let body = json!({
        "subject": erasure.subject.to_string(),
        "dry_run": erasure.dry_run,
        "receipts": erasure.receipts.iter().map(DeletionReceipt::to_json).collect::<Vec<_>>(),
        "totals": erasure.totals.to_json(),
        "subject_mentions_left": erasure.subject_mentions_left,
    });
    if erasure.totals.mentions_left > 0 {
        return Ok((StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response());
    }
    Ok(Json(body).into_response())
}

/// A session id as one URL path segment.
fn encode_segment(id: &str) -> String {
    id.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
