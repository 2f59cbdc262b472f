//! What can go wrong talking to a SPARQL server.

use super::endpoint::Endpoint;

/// What went wrong with a SPARQL 1.1 server. Every message names the endpoint; none
/// carries a credential: an [`Endpoint`] never shows a `user:password@`, and a server's
/// own text has the credentials taken out of it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// An endpoint option is not a usable URL.
    #[error("\"{url}\" is not an http:// or https:// URL")]
    BadUrl {
        /// What was given.
        url: Endpoint,
    },
    /// An endpoint's URL holds credentials (`user:password@`), or an `@` before its
    /// query that may be part of them: they would be shown wherever the URL is.
    #[error(
        "\"{url}\" holds credentials in the URL (user:password@), where messages and logs would show them: give them in IHIGRAPH_ENDPOINT_USER and IHIGRAPH_ENDPOINT_PASSWORD (or a token in IHIGRAPH_ENDPOINT_TOKEN) instead (an @ in the path is written %40)"
    )]
    CredentialsInUrl {
        /// What was given, shown without the credentials.
        url: Endpoint,
    },
    /// The server asked for the password as HTTP Basic over plain HTTP, and it was not
    /// sent: anyone on the path could read it (and a server that asked for Digest
    /// before could be one that someone on the path stands in for).
    #[error(
        "{url} asks for the password as HTTP Basic over plain http://, where anyone on the path could read it, so it was not sent: use https://, or allow it with IHIGRAPH_ALLOW_BASIC_OVER_HTTP=1"
    )]
    BasicOverHttp {
        /// The endpoint.
        url: Endpoint,
    },
    /// The server could not be reached, or did not answer in time (after the retries).
    #[error("cannot reach {url}: {reason} (after {attempts} attempt(s))")]
    Unreachable {
        /// The endpoint.
        url: Endpoint,
        /// What the connection said.
        reason: String,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The server refused the credentials (or asked for some and none were given).
    #[error(
        "{url} refused the credentials (HTTP {status}){hint}: set IHIGRAPH_ENDPOINT_USER and IHIGRAPH_ENDPOINT_PASSWORD, or IHIGRAPH_ENDPOINT_TOKEN"
    )]
    Unauthorized {
        /// The endpoint.
        url: Endpoint,
        /// 401 or 403.
        status: u16,
        /// What the server asked for, when it said.
        hint: String,
    },
    /// The server answered with an error status.
    #[error("{url} answered HTTP {status}: {message}")]
    Status {
        /// The endpoint.
        url: Endpoint,
        /// The HTTP status.
        status: u16,
        /// The start of the server's message.
        message: String,
    },
    /// The server's answer is not what the protocol promises.
    #[error("{url} gave an answer that cannot be read: {reason}")]
    BadAnswer {
        /// The endpoint.
        url: Endpoint,
        /// What is wrong with it.
        reason: String,
    },
    /// The server cut the answer (a row cap, a time limit): it is not given as whole.
    #[error("{url} cut the answer: {reason}")]
    Truncated {
        /// The endpoint.
        url: Endpoint,
        /// How the cut shows.
        reason: String,
    },
}

/// At most this much of a server's error text goes into a message (Virtuoso echoes the
/// whole query, megabytes for a large update).
const MESSAGE_CHARS: usize = 400;

/// The start of a server's error text, on one line.
pub(super) fn message_of(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.split("\nSPARQL query:").next().unwrap_or_default();
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.is_empty() {
        return "(no message)".to_owned();
    }
    match flat.char_indices().nth(MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_message_is_cut_and_the_echoed_query_dropped() {
        let body =
            b"Virtuoso 37000 Error SP030: syntax error\n\nSPARQL query:\nINSERT DATA { ... }";
        assert_eq!(message_of(body), "Virtuoso 37000 Error SP030: syntax error");
        let long = "x".repeat(1000);
        assert_eq!(
            message_of(long.as_bytes()).chars().count(),
            MESSAGE_CHARS + 1
        );
        assert_eq!(message_of(b"  \n"), "(no message)");
    }
}
