//! The front door: what every request passes before any route sees it. Its `Host` must
//! be one the server answers to (a page on another site cannot reach the store through
//! DNS rebinding); a request that can only write must bear the token, told from its head
//! alone, so a body is never read for a client who may not send it; and its body is read
//! here, whole, under a limit (a query's size without the token, the largest body with
//! it) and a deadline. Bodies larger than a query are read for at most
//! [`LARGE_BODIES_AT_ONCE`] requests at once; the others wait their turn before theirs is
//! read.

use super::auth::{self, Caller};
use super::tenancy::{Tenancy, TenantApp};
use super::{ApiError, ServeOptions};
use crate::store::AccessRole;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// How many bodies larger than the query limit are read and held at once: writes go one
/// at a time, so two keep the writer busy while bounding what waiting writers hold.
pub const LARGE_BODIES_AT_ONCE: usize = 2;

/// The names a server answers to whatever it is told: its loopback names, any port.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Lets a request in, or answers it here.
pub(crate) async fn front_door(
    State(tenancy): State<Arc<Tenancy>>,
    request: Request,
    next: Next,
) -> Response {
    match admit(&tenancy, request).await {
        Ok((request, app, permit)) => {
            let wrote = !matches!(
                *request.method(),
                Method::GET | Method::HEAD | Method::OPTIONS
            );
            let response = next.run(request).await;
            drop(permit);
            if wrote && app.limits.stored_quads.is_some() {
                tokio::spawn(async move { app.recount().await });
            }
            response
        }
        Err(error) => {
            let mut response = error.into_response();
            // The body may be left unread: the connection cannot carry another request.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

/// Checks a request's host, finds who it comes from and the store it acts in, counts it
/// against that tenant's rate, refuses a write its caller may not make, and reads its
/// body under the caller's limit. Gives the request with its caller and store in its
/// extensions.
async fn admit(
    tenancy: &Tenancy,
    request: Request,
) -> Result<(Request, Arc<TenantApp>, Option<OwnedSemaphorePermit>), ApiError> {
    let shared = tenancy.shared();
    check_host(&shared.options, &request)?;
    let writes = auth::writes(request.method(), request.uri(), request.headers());
    let access = &tenancy.access;
    let bearer = match access.bearer(request.headers(), writes) {
        // Health is open to probes that bear no token.
        Err(_) if request.uri().path() == "/healthz" => auth::Bearer {
            role: None,
            tenant: None,
        },
        other => other?,
    };
    let tenant = bearer.tenant(request.headers())?;
    let app = tenancy.app(tenant.as_ref()).await?;
    if !bearer.is_store_admin() {
        app.admit()?;
    }
    let caller = Caller {
        role: bearer.role,
        confined: bearer.tenant.is_some(),
        tenant,
        writable: access.writable(),
        over_quota: app.over_quota(),
    };
    if writes {
        auth::may_write(&caller)?;
    }
    let options = &app.state.options;
    let (mut parts, body) = request.into_parts();
    let limits = BodyLimits {
        most: if caller.role >= Some(AccessRole::Write) {
            options.max_body
        } else {
            options.max_query_body.min(options.max_body)
        },
        small: options.max_query_body,
        deadline: Instant::now() + options.body_timeout,
    };
    let (bytes, permit) = read_body(body, &parts, &limits, &shared.large_bodies).await?;
    parts.extensions.insert(caller);
    parts.extensions.insert(Arc::clone(&app));
    Ok((Request::from_parts(parts, Body::from(bytes)), app, permit))
}

/// How much of a body is read, and until when.
struct BodyLimits {
    /// The most bytes taken.
    most: usize,
    /// Beyond this many bytes, a body needs a place among the large ones.
    small: usize,
    /// When the whole body must be in.
    deadline: Instant,
}

/// Reads a body whole: 413 beyond the limit (at once when its length is declared), 408
/// when it is not in by the deadline; a large body waits for its place first.
async fn read_body(
    mut body: Body,
    parts: &Parts,
    limits: &BodyLimits,
    large: &Arc<Semaphore>,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), ApiError> {
    let declared = declared_length(&parts.headers);
    if declared.is_some_and(|length| length > limits.most) {
        return Err(too_large(limits.most));
    }
    let mut permit = None;
    if declared.is_some_and(|length| length > limits.small) {
        permit = Some(place_among_large(large, limits.deadline).await?);
    }
    // A declared length is reserved at once (it is within the limit): no doubling.
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0));
    loop {
        let frame = tokio::time::timeout_at(limits.deadline, body.frame())
            .await
            .map_err(|_| timed_out())?;
        let Some(frame) = frame else { break };
        let frame = frame.map_err(|error| {
            ApiError::bad_request(format!("the request body could not be read: {error}"))
        })?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers: nothing here reads them
        };
        if bytes.len().saturating_add(data.len()) > limits.most {
            return Err(too_large(limits.most));
        }
        if permit.is_none() && bytes.len().saturating_add(data.len()) > limits.small {
            permit = Some(place_among_large(large, limits.deadline).await?);
        }
        bytes.extend_from_slice(&data);
    }
    Ok((Bytes::from(bytes), permit))
}

async fn place_among_large(
    large: &Arc<Semaphore>,
    deadline: Instant,
) -> Result<OwnedSemaphorePermit, ApiError> {
    let busy = || {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is reading other large bodies and this one's time ran out: try again later",
        )
    };
    tokio::time::timeout_at(deadline, Arc::clone(large).acquire_owned())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())
}

/// The body's length as its `Content-Length` declares it, when it does.
fn declared_length(headers: &HeaderMap) -> Option<usize> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(|length| usize::try_from(length).unwrap_or(usize::MAX))
}

fn too_large(most: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "the request body is larger than {most} bytes, the most this request may send \
             (a body larger than a query needs the bearer token)"
        ),
    )
}

fn timed_out() -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "the request body did not arrive whole in time",
    )
}

/// Refuses a request whose `Host` (or absolute URI) names a host the server was not told
/// to answer to: a browser led there by DNS rebinding sends the attacker's name.
fn check_host(options: &ServeOptions, request: &Request) -> Result<(), ApiError> {
    let given =
        match request.uri().authority() {
            Some(authority) => Some(authority.as_str()),
            None => match request.headers().get(header::HOST) {
                Some(value) => Some(value.to_str().map_err(|_| {
                    ApiError::bad_request("the Host header is not plain ASCII text")
                })?),
                None => None,
            },
        };
    let Some(given) = given else {
        return Err(ApiError::bad_request(
            "the request has no Host header: HTTP/1.1 requires one",
        ));
    };
    if host_allowed(given, &options.allowed_hosts) {
        return Ok(());
    }
    let (name, _) = split_authority(given);
    let shown: String = name.chars().take(100).collect();
    Err(ApiError::new(
        StatusCode::FORBIDDEN,
        format!(
            "this server does not answer to the host name {shown:?} (a guard against DNS \
             rebinding): start it with --allowed-host {shown} to admit it"
        ),
    ))
}

/// Whether an authority (`host` or `host:port`) is a loopback name (any port) or one of
/// `allowed` (`host` for any port, `host:port` for that port, `*` for any host).
pub(crate) fn host_allowed(given: &str, allowed: &[String]) -> bool {
    let (name, port) = split_authority(given);
    let name = name.to_ascii_lowercase();
    if LOOPBACK_HOSTS.contains(&name.as_str()) {
        return true;
    }
    allowed.iter().any(|entry| {
        let entry = entry.trim();
        if entry == "*" {
            return true;
        }
        let (allowed_name, allowed_port) = split_authority(entry);
        allowed_name.eq_ignore_ascii_case(&name)
            && allowed_port.is_none_or(|allowed_port| Some(allowed_port) == port)
    })
}

/// An authority's host and port; an IPv6 address keeps its brackets, and one written
/// without them (`::1`) is taken whole as the host.
fn split_authority(authority: &str) -> (std::borrow::Cow<'_, str>, Option<&str>) {
    let authority = authority.trim();
    if let Some(rest) = authority.strip_prefix('[') {
        if let Some((address, after)) = rest.split_once(']') {
            let port = after.strip_prefix(':').filter(|port| !port.is_empty());
            return (format!("[{address}]").into(), port);
        }
    } else if authority.matches(':').count() > 1 {
        return (format!("[{authority}]").into(), None);
    }
    match authority.rsplit_once(':') {
        Some((name, port)) => (name.into(), Some(port).filter(|port| !port.is_empty())),
        None => (authority.into(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_are_answered_on_any_port() {
        for given in [
            "localhost",
            "localhost:7878",
            "LOCALHOST:1",
            "127.0.0.1",
            "127.0.0.1:80",
            "[::1]",
            "[::1]:7878",
        ] {
            assert!(host_allowed(given, &[]), "{given}");
        }
        for given in [
            "evil.example",
            "evil.example:7878",
            "localhost.evil.example",
            "127.0.0.2:7878",
            "[::2]:7878",
            "0.0.0.0:7878",
            "",
        ] {
            assert!(!host_allowed(given, &[]), "{given}");
        }
    }

    #[test]
    fn allowed_hosts_widen_by_name_or_by_name_and_port() {
        let allowed = [
            "graph.internal".to_owned(),
            "box.lan:8080".to_owned(),
            "::2".to_owned(),
        ];
        assert!(host_allowed("Graph.Internal:443", &allowed));
        assert!(host_allowed("graph.internal", &allowed));
        assert!(host_allowed("box.lan:8080", &allowed));
        assert!(!host_allowed("box.lan:8081", &allowed));
        assert!(!host_allowed("box.lan", &allowed));
        assert!(host_allowed("[::2]:7878", &allowed));
        assert!(!host_allowed("other.internal", &allowed));
        assert!(host_allowed("anything.example:1", &["*".to_owned()]));
    }

    #[test]
    fn declared_lengths_are_read_without_overflow() {
        let mut headers = HeaderMap::new();
        assert_eq!(declared_length(&headers), None);
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("1024"));
        assert_eq!(declared_length(&headers), Some(1024));
        headers.insert(
            header::CONTENT_LENGTH,
            HeaderValue::from_static("18446744073709551615"),
        );
        assert_eq!(declared_length(&headers), Some(usize::MAX));
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("-1"));
        assert_eq!(declared_length(&headers), None);
    }
}
