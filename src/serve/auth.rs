//! Who may write: the bearer of the server's token, compared in constant time.

use super::{ApiError, ServeOptions};
use axum::http::{HeaderMap, StatusCode, header};
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
    fn without_a_token_nothing_writes() {
        let error = may_write(&ServeOptions::default(), &headers(Some("Bearer x"))).unwrap_err();
        assert_eq!(error.status, StatusCode::FORBIDDEN);
    }
}
