//! Who is asking, and what they may do: the bearer of a token the store issued (kept as
//! its digest, `store::AccessList`: a role, and the tenant it is confined to) or of the
//! server's own token (`IHIGRAPH_TOKEN`, an administrator's); which requests can only
//! write, told from their head so that the token is checked before their body is read.
//! Once the store has issued a token or has a tenant, every request needs one: reads too.

use super::{ApiError, ServeOptions};
use crate::store::{AccessList, AccessRole, TenantName, TokenRecord};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use std::sync::{Arc, RwLock};
use subtle::ConstantTimeEq;

/// The header by which an administrator names the tenant a request acts in.
pub const TENANT_HEADER: &str = "ihigraph-tenant";

/// Who a request comes from, as the front door found it, and where it acts: put in the
/// request's extensions for the handlers (and the MCP tools) that decide for themselves
/// whether it writes.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    /// The bearer's role; `None` without a token.
    pub role: Option<AccessRole>,
    /// The tenant the request acts in; `None` for the store's own sessions.
    pub tenant: Option<TenantName>,
    /// Whether the token is bound to that tenant (every token but the store's
    /// administrator's, and the server's own).
    pub confined: bool,
    /// Whether the server takes writes at all (it has a token of its own or issued ones).
    pub writable: bool,
    /// Whether the tenant holds its quota of quads: its writes are refused.
    pub over_quota: Option<u64>,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        caller_of(&parts.extensions)
    }
}

/// The caller the front door put in a request's extensions.
pub(crate) fn caller_of(extensions: &axum::http::Extensions) -> Result<Caller, ApiError> {
    extensions
        .get::<Caller>()
        .cloned()
        .ok_or_else(|| ApiError::internal("the request did not pass the front door"))
}

/// The tokens a server admits: its own, and those the store issued.
pub(crate) struct Access {
    /// The server's own token (`IHIGRAPH_TOKEN`): an administrator's.
    own: Option<String>,
    /// The store's tokens and whether it has tenants, taken again after every change.
    issued: RwLock<AccessList>,
}

/// Whom a request's token names.
pub(crate) struct Bearer {
    /// The role; `None` without a token.
    pub role: Option<AccessRole>,
    /// The tenant the token is confined to (read and write tokens of a tenant).
    pub tenant: Option<TenantName>,
}

impl Access {
    pub(crate) fn new(options: &ServeOptions, issued: AccessList) -> Arc<Self> {
        Arc::new(Self {
            own: options.token.clone(),
            issued: RwLock::new(issued),
        })
    }

    /// Takes the store's tokens and tenants again, after a change.
    pub(crate) fn refresh(&self, issued: AccessList) {
        *self
            .issued
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = issued;
    }

    /// Whether every request needs a token: the store issued one or has a tenant.
    pub(crate) fn required(&self) -> bool {
        !self
            .issued
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_empty()
    }

    /// Whether the server takes writes from anyone.
    pub(crate) fn writable(&self) -> bool {
        self.own.is_some() || self.required()
    }

    /// Who bears the request's token: 401 for a token that is not one of the server's
    /// (or for none, where one is required); a wrong token on a read of a server that
    /// requires none is no token.
    pub(crate) fn bearer(&self, headers: &HeaderMap, writes: bool) -> Result<Bearer, ApiError> {
        let required = self.required();
        let anonymous = Bearer {
            role: None,
            tenant: None,
        };
        let Some(sent) = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(bearer)
        else {
            if required {
                return Err(ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "this server needs the header Authorization: Bearer <token> on every request",
                ));
            }
            return Ok(anonymous);
        };
        if let Some(own) = &self.own
            && bool::from(sent.as_bytes().ct_eq(own.as_bytes()))
        {
            return Ok(Bearer {
                role: Some(AccessRole::Admin),
                tenant: None,
            });
        }
        let issued = self
            .issued
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match issued.check(sent) {
            Some(TokenRecord { role, tenant, .. }) => Ok(Bearer {
                role: Some(*role),
                tenant: tenant.clone(),
            }),
            // A server that takes no writes says so (403) rather than blame the token.
            None if required || (writes && self.own.is_some()) => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "the bearer token is not one of this server's (or was revoked)",
            )),
            None => Ok(anonymous),
        }
    }
}

impl Bearer {
    /// Whether the bearer is the store's administrator, who sees every tenant.
    pub(crate) fn is_store_admin(&self) -> bool {
        self.role == Some(AccessRole::Admin) && self.tenant.is_none()
    }

    /// The tenant a request acts in: a tenant's token acts in its own (the header may
    /// name it, no other); the store's administrator's in the one the header names, or
    /// the store's own sessions; any other bearer in the store's own sessions.
    pub(crate) fn tenant(&self, headers: &HeaderMap) -> Result<Option<TenantName>, ApiError> {
        let named = match headers.get(TENANT_HEADER) {
            None => None,
            Some(value) => Some(
                value
                    .to_str()
                    .ok()
                    .and_then(|name| name.trim().parse::<TenantName>().ok())
                    .ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "the {TENANT_HEADER} header does not name a tenant: 1 to 63 of a-z, 0-9, '-' and '_'"
                        ))
                    })?,
            ),
        };
        match (self.role, &self.tenant, named) {
            (Some(AccessRole::Admin), None, named) => Ok(named),
            (_, Some(own), Some(named)) if named != *own => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("this token is confined to its own tenant, not {named}"),
            )),
            (_, Some(own), _) => Ok(Some(own.clone())),
            (_, None, Some(named)) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("only the store's admin token may name a tenant ({named})"),
            )),
            (_, None, None) => Ok(None),
        }
    }
}

/// Lets a write through when its caller may write: 403 when the server takes no writes
/// (it has no token), 401 without a token, 403 for a read-only token or a tenant that
/// holds its quota.
pub(crate) fn may_write(caller: &Caller) -> Result<(), ApiError> {
    match caller.role {
        None if !caller.writable => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this server is read-only: it was started without IHIGRAPH_TOKEN and its store has issued no token",
        )),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "a write needs the header Authorization: Bearer <token>",
        )),
        Some(AccessRole::Read) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this token may only read",
        )),
        Some(_) => match caller.over_quota {
            Some(quota) => Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the tenant holds its quota of {quota} stored quads (max-stored-quads): delete sessions, or ask its administrator for more"
                ),
            )),
            None => Ok(()),
        },
    }
}

/// Whether a request can only write, from its method, URI and headers: every method but
/// GET, HEAD and OPTIONS writes, except a POST to `/sparql` that is not an update (the
/// protocol POSTs queries too), a DELETE that asks for a dry run (`?dry-run`, answered
/// without the token), and MCP at `/mcp` (its tools that write check the token
/// themselves). A route added later writes unless named here: the check fails closed.
/// The requests let through are refused by their handler when they do write after all (a
/// `/sparql` form holding an update), and their body was read under the query limit.
pub(crate) fn writes(method: &Method, uri: &Uri, headers: &HeaderMap) -> bool {
    let path = uri.path();
    if path == "/mcp" || path.starts_with("/mcp/") {
        return false;
    }
    match *method {
        Method::GET | Method::HEAD | Method::OPTIONS => false,
        Method::DELETE => !asks_for_a_dry_run(uri),
        Method::POST if path == "/sparql" => headers
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|media| {
                media
                    .trim()
                    .eq_ignore_ascii_case("application/sparql-update")
            }),
        _ => true,
    }
}

/// Whether the query string holds `dry-run` with another value than `false` (its handler
/// refuses a value that is not `true`).
fn asks_for_a_dry_run(uri: &Uri) -> bool {
    uri.query().is_some_and(|query| {
        query.split('&').any(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            name == "dry-run" && value != "false"
        })
    })
}

/// The token of an `Authorization: Bearer <token>` value (the scheme in any case).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(authorization: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn the_servers_own_token_is_an_administrators() {
        let options = ServeOptions {
            token: Some("s3cret".to_owned()),
            ..ServeOptions::default()
        };
        let access = Access::new(&options, AccessList::default());
        for given in ["Bearer s3cret", "bearer  s3cret "] {
            let bearer = access.bearer(&headers(Some(given)), true).unwrap();
            assert_eq!(bearer.role, Some(AccessRole::Admin), "{given}");
        }
        let error = access
            .bearer(&headers(Some("Bearer s3cre")), true)
            .err()
            .unwrap();
        assert_eq!(error.status, StatusCode::UNAUTHORIZED);
        for wrong in ["Bearer s3cre", "Basic s3cret"] {
            // A read needs no token here: a wrong one is none; so is another scheme,
            // whose write the door then refuses for want of a token.
            let bearer = access.bearer(&headers(Some(wrong)), false).unwrap();
            assert!(bearer.role.is_none(), "{wrong}");
        }
        let basic = access.bearer(&headers(Some("Basic s3cret")), true).unwrap();
        assert!(basic.role.is_none());
        assert!(access.bearer(&headers(None), false).unwrap().role.is_none());
    }

    #[test]
    fn requests_that_can_only_write_are_told_from_their_head() {
        let plain = HeaderMap::new();
        let mut update = HeaderMap::new();
        update.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("Application/SPARQL-Update; charset=utf-8"),
        );
        let mut form = HeaderMap::new();
        form.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        for (method, path, headers) in [
            (Method::PUT, "/sessions/s1", &plain),
            (Method::DELETE, "/sessions/s1", &plain),
            (
                Method::DELETE,
                "/sessions/s1?receipt=true&dry-run=false",
                &plain,
            ),
            (Method::POST, "/sessions/s1/turns", &plain),
            (Method::POST, "/sessions/s1/memory", &plain),
            (Method::DELETE, "/memory/m1", &plain),
            (Method::POST, "/sparql", &update),
            (Method::PATCH, "/anything", &plain),
        ] {
            let uri = Uri::from_static(path);
            assert!(writes(&method, &uri, headers), "{method} {path}");
        }
        for (method, path, headers) in [
            (Method::GET, "/sessions/s1", &plain),
            (Method::HEAD, "/sessions", &plain),
            (Method::POST, "/sparql", &form),
            (Method::POST, "/sparql", &plain),
            (Method::POST, "/mcp", &plain),
            (Method::DELETE, "/mcp", &plain),
            (Method::DELETE, "/sessions/s1?dry-run=true", &plain),
            (Method::DELETE, "/sessions/s1?receipt=true&dry-run", &plain),
        ] {
            let uri = Uri::from_static(path);
            assert!(!writes(&method, &uri, headers), "{method} {path}");
        }
    }

    #[test]
    fn without_a_token_nothing_writes() {
        let caller = |role, writable| Caller {
            role,
            tenant: None,
            confined: false,
            writable,
            over_quota: None,
        };
        let status = |caller: Caller| may_write(&caller).unwrap_err().status;
        assert_eq!(status(caller(None, false)), StatusCode::FORBIDDEN);
        assert_eq!(status(caller(None, true)), StatusCode::UNAUTHORIZED);
        assert_eq!(
            status(caller(Some(AccessRole::Read), true)),
            StatusCode::FORBIDDEN
        );
        assert!(may_write(&caller(Some(AccessRole::Write), true)).is_ok());
        let full = Caller {
            over_quota: Some(10),
            ..caller(Some(AccessRole::Write), true)
        };
        assert_eq!(status(full), StatusCode::PAYLOAD_TOO_LARGE);
    }
}
