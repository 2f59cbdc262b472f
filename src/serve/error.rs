//! What the server answers when it cannot do what was asked: a status and a JSON body
//! that says what went wrong, and where in the request's document when it knows.

use crate::check::Diagnostic;
use crate::ingest::IngestError;
use crate::query::{ParameterError, ResultsError};
use crate::read::Origin;
pub(crate) use crate::store::error_chain as chain;
use crate::store::{RemoteError, StoreError};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An error answer: `{"error": ..., "status": ..., "diagnostics": [...]}`.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, for people.
    pub message: String,
    /// Located diagnostics of a refused document, as the CLI gives them.
    pub diagnostics: Vec<Value>,
    /// For a 429: the seconds to wait before asking again (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a status and a message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            diagnostics: Vec::new(),
            retry_after: None,
        }
    }

    /// This error with the seconds to wait before asking again.
    #[must_use]
    pub fn with_retry_after(self, seconds: u64) -> Self {
        Self {
            retry_after: Some(seconds),
            ..self
        }
    }

    /// 400: the request is wrong.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 500: the server failed.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// 400 for a refused document, with its diagnostics located in `origin`.
    pub fn refused(
        message: impl Into<String>,
        origin: &Origin,
        diagnostics: &[Diagnostic],
    ) -> Self {
        Self {
            diagnostics: diagnostics
                .iter()
                .map(|diagnostic| diagnostic_json(diagnostic, origin))
                .collect(),
            ..Self::bad_request(message)
        }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        let mut body = json!({"error": self.message, "status": self.status.as_u16()});
        if !self.diagnostics.is_empty() {
            body["diagnostics"] = Value::Array(self.diagnostics.clone());
        }
        body
    }
}

/// A diagnostic as JSON: where (a JSON Pointer, or a line and column), the rule, how
/// serious, what; and the line the CLI prints for it.
pub(crate) fn diagnostic_json(diagnostic: &Diagnostic, origin: &Origin) -> Value {
    use crate::check::Place;
    let mut value = json!({
        "severity": diagnostic.severity.to_string(),
        "rule": diagnostic.rule.to_string(),
        "message": diagnostic.message,
        "located": diagnostic.located(origin),
    });
    match &diagnostic.place {
        Place::Document => {}
        Place::Position { line, column } => {
            value["line"] = json!(line);
            value["column"] = json!(column);
        }
        Place::Pointer(pointer) => value["pointer"] = json!(pointer),
        Place::Input(place) => value["place"] = json!(place),
    }
    value
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.body())).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"ihigraph\""),
            );
        }
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.status)
    }
}

impl std::error::Error for ApiError {}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        let status = match &error {
            StoreError::UnknownSession { .. }
            | StoreError::UnknownTenant { .. }
            | StoreError::UnknownToken { .. } => StatusCode::NOT_FOUND,
            StoreError::TenantName { .. } | StoreError::AccessRole { .. } => {
                StatusCode::BAD_REQUEST
            }
            StoreError::TenantExists { .. } => StatusCode::CONFLICT,
            StoreError::QuerySyntax(_)
            | StoreError::TooDeep(_)
            | StoreError::UpdateNotAllowed
            | StoreError::Parameter(_)
            | StoreError::SingleGraphFormat { .. }
            | StoreError::QueryEvaluation(_)
            | StoreError::SearchQuery { .. }
            | StoreError::UpdateEvaluation(_)
            | StoreError::BaseIri { .. }
            | StoreError::DatasetConflict => StatusCode::BAD_REQUEST,
            StoreError::NoSearchIndex { .. }
            | StoreError::NotReasoning { .. }
            | StoreError::NoReasoning { .. } => StatusCode::NOT_IMPLEMENTED,
            StoreError::NotOtherGraph { .. } => StatusCode::FORBIDDEN,
            StoreError::SessionOutsideItsGraph { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            StoreError::Remote(RemoteError::Truncated { .. }) => StatusCode::UNPROCESSABLE_ENTITY,
            StoreError::Remote(_) => StatusCode::BAD_GATEWAY,
            // A tenant's store held by another process (a command run on it).
            StoreError::Locked { .. } => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::new(status, chain(&error))
    }
}

impl From<ParameterError> for ApiError {
    fn from(error: ParameterError) -> Self {
        Self::bad_request(chain(&error))
    }
}

impl From<ResultsError> for ApiError {
    fn from(error: ResultsError) -> Self {
        match error {
            ResultsError::TooLong { .. } => {
                Self::new(StatusCode::UNPROCESSABLE_ENTITY, chain(&error))
            }
            ResultsError::Query(_) => Self::bad_request(chain(&error)),
            _ => Self::internal(chain(&error)),
        }
    }
}

impl From<IngestError> for ApiError {
    fn from(error: IngestError) -> Self {
        match error {
            IngestError::Store(store) => store.into(),
            IngestError::Batch(batch) => batch.source.into(),
            IngestError::Refused { problems } => {
                let origin = Origin {
                    name: "request body".to_owned(),
                    line: None,
                };
                let diagnostics: Vec<Diagnostic> = problems.iter().map(Diagnostic::from).collect();
                Self::refused("the document was refused", &origin, &diagnostics)
            }
            other => Self::internal(chain(&other)),
        }
    }
}

impl From<crate::context::ContextError> for ApiError {
    fn from(error: crate::context::ContextError) -> Self {
        use crate::context::ContextError;
        match error {
            ContextError::Store(store) => store.into(),
            budget @ ContextError::BudgetTooSmall { .. } => {
                Self::new(StatusCode::UNPROCESSABLE_ENTITY, chain(&budget))
            }
            corrupt @ ContextError::Corrupt { .. } => Self::internal(chain(&corrupt)),
        }
    }
}

impl From<crate::memory::MemoryError> for ApiError {
    fn from(error: crate::memory::MemoryError) -> Self {
        use crate::memory::MemoryError;
        match error {
            MemoryError::Store(store) => store.into(),
            MemoryError::UnknownTurn { .. } | MemoryError::UnknownItem(_) => {
                Self::not_found(chain(&error))
            }
            other => Self::bad_request(chain(&other)),
        }
    }
}
