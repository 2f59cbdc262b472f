//! The register over HTTP, for an administrator's token: tenants added, their limits
//! changed, removed; tokens issued and revoked while the server runs (the CLI cannot open
//! a store the server holds). Every change is taken by the front door at once.

use super::ApiError;
use super::auth::{Caller, caller_of};
use super::parameters::Parameters;
use super::tenancy::Tenancy;
use crate::store::{
    AccessRole, HistoryStore, StoreError, Tenant, TenantLimits, TenantName, TokenRecord,
};
use axum::extract::{FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long a removal waits for the requests still using a tenant's store.
const REMOVAL_WAIT: Duration = Duration::from_secs(10);

pub(crate) fn routes() -> Router<Arc<Tenancy>> {
    Router::new()
        .route("/admin/tenants", get(list_tenants).post(add_tenant))
        .route(
            "/admin/tenants/{name}",
            delete(remove_tenant).patch(change_tenant),
        )
        .route("/admin/tokens", get(list_tokens).post(issue_token))
        .route("/admin/tokens/{id}", delete(revoke_token))
}

/// A tenant's limits as a request gives them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LimitsBody {
    max_requests_per_minute: Option<u64>,
    max_result_rows: Option<u64>,
    max_query_seconds: Option<f64>,
    max_body_bytes: Option<u64>,
    max_stored_quads: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewTenant {
    name: String,
    #[serde(default)]
    limits: Option<LimitsBody>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewToken {
    role: String,
    tenant: Option<String>,
    note: Option<String>,
}

/// Whose tokens a caller manages: the store's administrator every tenant's (`None`), a
/// tenant's administrator its own tenant's; no one else any.
fn managed(caller: &Caller) -> Result<Option<TenantName>, ApiError> {
    match (caller.role, caller.confined) {
        (Some(AccessRole::Admin), false) => Ok(None),
        (Some(AccessRole::Admin), true) => Ok(caller.tenant.clone()),
        _ => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "only an admin token manages tokens",
        )),
    }
}

/// Reads the caller of a request to the register, which takes no query parameters: a
/// `?dry-run`, which the front door lets through as a read, would otherwise be taken for
/// a change.
fn register_caller(parts: &Parts) -> Result<Caller, ApiError> {
    Parameters::parse(parts.uri.query(), &[])?;
    caller_of(&parts.extensions)
}

/// A request of the store's administrator: tenants are theirs alone to manage.
pub(crate) struct StoreAdmin;

impl<S: Send + Sync> FromRequestParts<S> for StoreAdmin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        match managed(&register_caller(parts)?)? {
            None => Ok(Self),
            Some(tenant) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "only the store's admin token manages tenants: this one is tenant {tenant}'s"
                ),
            )),
        }
    }
}

/// A request of an administrator, with whose tokens it manages (see [`managed`]).
pub(crate) struct TokenManager(Option<TenantName>);

impl<S: Send + Sync> FromRequestParts<S> for TokenManager {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(Self(managed(&register_caller(parts)?)?))
    }
}

fn body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|error| {
        ApiError::bad_request(format!(
            "the request body is not what was expected: {error}"
        ))
    })
}

fn limits(body: Option<LimitsBody>) -> Result<TenantLimits, ApiError> {
    let body = body.unwrap_or_default();
    let query_time = body
        .max_query_seconds
        .map(|seconds| {
            TenantLimits::query_seconds(seconds).ok_or_else(|| {
                ApiError::bad_request("max-query-seconds: give a positive number of seconds")
            })
        })
        .transpose()?;
    Ok(TenantLimits {
        requests_per_minute: body.max_requests_per_minute,
        result_rows: body.max_result_rows,
        query_time,
        body_bytes: body.max_body_bytes,
        stored_quads: body.max_stored_quads,
    })
}

fn tenant_json(tenant: &Tenant) -> Value {
    let limits = &tenant.limits;
    json!({
        "name": tenant.name.as_str(),
        "created": tenant.created,
        "limits": {
            "max-requests-per-minute": limits.requests_per_minute,
            "max-result-rows": limits.result_rows,
            "max-query-seconds": limits.query_time.map(|time| time.as_secs_f64()),
            "max-body-bytes": limits.body_bytes,
            "max-stored-quads": limits.stored_quads,
        },
    })
}

fn token_json(token: &TokenRecord) -> Value {
    json!({
        "id": token.id,
        "role": token.role.name(),
        "tenant": token.tenant.as_ref().map(TenantName::as_str),
        "note": token.note,
        "created": token.created,
    })
}

/// Runs a change of the register under the store's writer, then has the front door take
/// the register again.
async fn change<T: Send + 'static>(
    tenancy: &Tenancy,
    work: impl FnOnce(&HistoryStore) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    let done = tenancy
        .shared()
        .write(move |store| Ok(work(store)?))
        .await?;
    let issued = tenancy
        .shared()
        .blocking(|store| Ok(store.access_list()?))
        .await?;
    tenancy.access.refresh(issued);
    Ok(done)
}

async fn list_tenants(
    State(tenancy): State<Arc<Tenancy>>,
    _: StoreAdmin,
) -> Result<Response, ApiError> {
    let tenants = tenancy
        .shared()
        .blocking(|store| Ok(store.tenants()?))
        .await?;
    Ok(
        Json(json!({ "tenants": tenants.iter().map(tenant_json).collect::<Vec<_>>() }))
            .into_response(),
    )
}

async fn add_tenant(
    State(tenancy): State<Arc<Tenancy>>,
    _: StoreAdmin,
    bytes: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let request: NewTenant = body(&bytes)?;
    let name: TenantName = request.name.parse()?;
    let limits = limits(request.limits)?;
    let tenant = change(&tenancy, move |store| store.add_tenant(&name, &limits)).await?;
    Ok((StatusCode::CREATED, Json(tenant_json(&tenant))).into_response())
}

async fn change_tenant(
    State(tenancy): State<Arc<Tenancy>>,
    _: StoreAdmin,
    Path(name): Path<String>,
    bytes: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let name: TenantName = name.parse()?;
    let limits = limits(Some(body(&bytes)?))?;
    let changed = name.clone();
    let tenant = change(&tenancy, move |store| {
        store.set_tenant_limits(&changed, &limits)
    })
    .await?;
    tenancy.relimit(&name, tenant.limits.clone()).await;
    Ok(Json(tenant_json(&tenant)).into_response())
}

async fn remove_tenant(
    State(tenancy): State<Arc<Tenancy>>,
    _: StoreAdmin,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let name: TenantName = name.parse()?;
    // Its store is closed first: requests still using it have a while to finish.
    if let Some(store) = tenancy.forget(&name).await {
        let deadline = tokio::time::Instant::now() + REMOVAL_WAIT;
        while store.strong_count() > 0 {
            if tokio::time::Instant::now() >= deadline {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    format!("requests still use tenant {name}'s store: try again"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let removed = name.clone();
    let revoked = change(&tenancy, move |store| store.remove_tenant(&removed)).await?;
    Ok(Json(json!({ "removed": name.as_str(), "tokens_revoked": revoked })).into_response())
}

async fn list_tokens(
    State(tenancy): State<Arc<Tenancy>>,
    TokenManager(scope): TokenManager,
) -> Result<Response, ApiError> {
    let tokens = tenancy
        .shared()
        .blocking(|store| Ok(store.tokens()?))
        .await?;
    Ok(
        Json(json!({ "tokens": tokens.iter().filter(|token| scope.is_none() || token.tenant == scope).map(token_json).collect::<Vec<_>>() }))
            .into_response(),
    )
}

async fn issue_token(
    State(tenancy): State<Arc<Tenancy>>,
    TokenManager(scope): TokenManager,
    bytes: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let request: NewToken = body(&bytes)?;
    let role: AccessRole = request.role.parse()?;
    let named = request
        .tenant
        .map(|name| name.parse::<TenantName>())
        .transpose()?;
    let tenant = match (scope, named) {
        (None, named) => named,
        (Some(own), None) => Some(own),
        (Some(own), Some(named)) if named == own => Some(own),
        (Some(own), Some(named)) => {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("this token manages tenant {own}'s tokens, not {named}'s"),
            ));
        }
    };
    let issued = change(&tenancy, move |store| {
        store.issue_token(tenant.as_ref(), role, request.note.as_deref())
    })
    .await?;
    let mut answer = token_json(&issued.record);
    answer["token"] = Value::String(issued.secret);
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

async fn revoke_token(
    State(tenancy): State<Arc<Tenancy>>,
    TokenManager(scope): TokenManager,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let record = change(&tenancy, move |store| {
        // Another tenant's token is, to a tenant's administrator, no token at all.
        let theirs = store.tokens()?.into_iter().find(|token| token.id == id);
        if scope.is_some() && theirs.is_some_and(|token| token.tenant != scope) {
            return Err(StoreError::UnknownToken { id });
        }
        store.revoke_token(&id)
    })
    .await?;
    Ok(Json(token_json(&record)).into_response())
}
