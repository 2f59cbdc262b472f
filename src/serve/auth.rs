//! Who may write: the bearer of the server's token, compared in constant time; and which
//! requests can only write, told from their head so that the token is checked before
//! their body is read.

use super::{ApiError, ServeOptions};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use subtle::ConstantTimeEq;

/// Lets a write through when the request bears the server's token: 403 when the server
/// has none (it is read-only), 401 when the token is missing or wrong.
pub(crate) fn may_write(options: &ServeOptions, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = &options.token else {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this server is read-only: it was started without IHIGRAPH_TOKEN",
        ));
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(bearer);
    match given {
        Some(given) if bool::from(given.as_bytes().ct_eq(token.as_bytes())) => Ok(()),
        Some(_) => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "the bearer token is not this server's",
        )),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "a write needs the header Authorization: Bearer <token>",
        )),
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
    fn only_the_servers_token_writes() {
        let options = ServeOptions {
            token: Some("s3cret".to_owned()),
            ..ServeOptions::default()
        };
        assert!(may_write(&options, &headers(Some("Bearer s3cret"))).is_ok());
        assert!(may_write(&options, &headers(Some("bearer  s3cret "))).is_ok());
        for wrong in [
            None,
            Some("Bearer s3cre"),
            Some("Basic s3cret"),
            Some("Bearer "),
        ] {
            let error = may_write(&options, &headers(wrong)).unwrap_err();
            assert_eq!(error.status, StatusCode::UNAUTHORIZED, "{wrong:?}");
        }
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
        let error = may_write(&ServeOptions::default(), &headers(Some("Bearer x"))).unwrap_err();
        assert_eq!(error.status, StatusCode::FORBIDDEN);
    }
}
