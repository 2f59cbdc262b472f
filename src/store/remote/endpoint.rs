//! An endpoint's URL: checked once (an `http://` or `https://` URL with no credentials in
//! it), and shown without any `user:password@` wherever it is printed.

use super::error::RemoteError;
use std::borrow::Cow;
use std::fmt;
use ureq::http::Uri;

/// The URL of a SPARQL endpoint (or, inside the error that refuses it, the text given
/// for one). Its `Display` and `Debug` never show a userinfo (`user:password@`): a URL
/// goes into error messages, and they reach the server's 502 answers, MCP tool errors
/// and logs. Credentials come from the environment, never from a URL: [`Endpoint::parse`]
/// refuses a URL that holds some.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint(String);

impl Endpoint {
    /// Checks an endpoint's URL: an `http://` or `https://` URL with a host and no
    /// credentials.
    ///
    /// ```
    /// use ihigraph::store::{Endpoint, RemoteError};
    /// let endpoint = Endpoint::parse("http://127.0.0.1:7878/query")?;
    /// assert_eq!(endpoint.to_string(), "http://127.0.0.1:7878/query");
    /// let refused = Endpoint::parse("https://agents:s3cret@graph.example.org/sparql");
    /// let Err(error @ RemoteError::CredentialsInUrl { .. }) = refused else { panic!() };
    /// assert!(!error.to_string().contains("s3cret"));
    /// # Ok::<_, RemoteError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RemoteError::BadUrl`] for what is not such a URL, and
    /// [`RemoteError::CredentialsInUrl`] for a URL with a `user:password@`.
    pub fn parse(text: &str) -> Result<Self, RemoteError> {
        let given = || Self(text.to_owned());
        let uri: Uri = text
            .parse()
            .map_err(|_| RemoteError::BadUrl { url: given() })?;
        let authority = uri
            .authority()
            .filter(|_| matches!(uri.scheme_str(), Some("http" | "https")))
            .ok_or_else(|| RemoteError::BadUrl { url: given() })?;
        // Not only the authority: a password with a `/` in it, unencoded, ends the
        // authority early for a parser, and the rest would be shown as a path.
        if authority.as_str().contains('@') || before_query(text).contains('@') {
            return Err(RemoteError::CredentialsInUrl { url: given() });
        }
        Ok(given())
    }

    /// The URL, as it is sent.
    pub(super) fn as_str(&self) -> &str {
        &self.0
    }

    /// The URL with one more parameter in its query string.
    pub(super) fn with_parameter(&self, name: &str, value: &str) -> Self {
        let separator = if self.0.contains('?') { '&' } else { '?' };
        let value: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
        Self(format!("{}{separator}{name}={value}", self.0))
    }

    /// The URL with its last path segment `from` replaced by `to` (Oxigraph's `/update`
    /// beside its `/query`), or the URL itself when it does not end in that segment.
    pub(super) fn sibling(&self, from: &str, to: &str) -> Self {
        match self.0.strip_suffix(from).filter(|base| base.ends_with('/')) {
            Some(base) => Self(format!("{base}{to}")),
            None => self.clone(),
        }
    }

    /// Whether requests to it travel unencrypted.
    pub(super) fn is_plain_http(&self) -> bool {
        self.0
            .get(..7)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shown(&self.0))
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Endpoint").field(&shown(&self.0)).finish()
    }
}

/// The text before a URL's query or fragment.
fn before_query(text: &str) -> &str {
    text.find(['?', '#']).map_or(text, |end| &text[..end])
}

/// A URL as it may be shown: everything from after the scheme to the last `@` before
/// the query is left out. Where the authority ends cannot be trusted (a password may
/// hold a `/`, and the text may not be a URL at all), so an `@` anywhere before the
/// query counts; an endpoint has none (see [`Endpoint::parse`]).
fn shown(text: &str) -> Cow<'_, str> {
    let start = text.find("://").map_or(0, |scheme| scheme + 3);
    match before_query(text).rfind('@') {
        Some(at) if at >= start => Cow::Owned(format!("{}…@{}", &text[..start], &text[at + 1..])),
        _ => Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    #[test_case("http://u:p@h:1/q", "http://…@h:1/q" ; "user and password")]
    #[test_case("https://u@h/q?a=b", "https://…@h/q?a=b" ; "user alone")]
    #[test_case("http://u:p@ss@h/q", "http://…@h/q" ; "an at sign in the password")]
    #[test_case("http://u:p/w@h/q", "http://…@h/q" ; "a slash in the password")]
    #[test_case("http:/u:p@h/q", "…@h/q" ; "a scheme without its slashes")]
    #[test_case("u:p@h/q", "…@h/q" ; "no scheme")]
    #[test_case("http://h:1/q?a=b@c", "http://h:1/q?a=b@c" ; "an at sign in the query")]
    #[test_case("http://h:1/a@b", "http://…@b" ; "an at sign in the path")]
    fn a_url_is_shown_without_its_credentials(given: &str, expected: &str) {
        let endpoint = Endpoint(given.to_owned());
        assert_eq!(endpoint.to_string(), expected);
        assert_eq!(format!("{endpoint:?}"), format!("Endpoint({expected:?})"));
    }

    #[test_case("http://u:p@h/q" ; "user and password")]
    #[test_case("http://u@h/q" ; "user alone")]
    #[test_case("http://:p@h/q" ; "password alone")]
    #[test_case("http://@h/q" ; "empty")]
    #[test_case("HTTPS://u:p@h/q" ; "upper-case scheme")]
    #[test_case("http://u:p/w@h/q" ; "a slash in the password")]
    #[test_case("http://h/a@b" ; "an at sign in the path")]
    fn credentials_in_a_url_are_refused_and_not_shown(given: &str) {
        let error = Endpoint::parse(given).unwrap_err();
        assert!(
            matches!(error, RemoteError::CredentialsInUrl { .. }),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            !message.contains("u:") && !message.contains(":p@"),
            "{message}"
        );
        assert!(message.contains("IHIGRAPH_ENDPOINT_USER"), "{message}");
    }

    #[test_case("ftp://h/q" ; "another scheme")]
    #[test_case("/sparql" ; "no host")]
    #[test_case("http://h q/" ; "a space")]
    #[test_case("" ; "nothing")]
    fn what_is_not_an_http_url_is_refused(given: &str) {
        let error = Endpoint::parse(given).unwrap_err();
        assert!(matches!(error, RemoteError::BadUrl { .. }), "{error:?}");
    }

    #[test]
    fn parameters_are_added_encoded_and_plain_http_is_told() {
        let endpoint = Endpoint::parse("http://127.0.0.1:1/query").unwrap();
        let asked = endpoint.with_parameter("query", "ASK {}");
        assert_eq!(asked.as_str(), "http://127.0.0.1:1/query?query=ASK+%7B%7D");
        assert_eq!(
            asked.with_parameter("graph", "a&b").as_str(),
            "http://127.0.0.1:1/query?query=ASK+%7B%7D&graph=a%26b"
        );
        assert!(endpoint.is_plain_http());
        assert_eq!(
            endpoint.sibling("query", "update").as_str(),
            "http://127.0.0.1:1/update"
        );
        let sparql = Endpoint::parse("http://h/sparql").unwrap();
        assert_eq!(sparql.sibling("query", "update"), sparql);
        assert!(!Endpoint::parse("https://h/q").unwrap().is_plain_http());
    }
}
