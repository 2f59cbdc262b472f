//! HTTP for the remote backend: one blocking agent with timeouts, the credentials (Basic
//! or Digest, whichever the server asks for, or a Bearer token), retries with backoff for
//! requests that may be sent twice, and answers read whole.

use super::endpoint::Endpoint;
use super::error::{RemoteError, message_of};
use http_auth::{PasswordClient, PasswordParams};
use std::io::Read;
use std::sync::Mutex;
use std::time::Duration;
use ureq::http::{Method, Request, Response};

/// Who the client says it is. Never printed: its `Debug` hides the secrets.
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credentials {
    /// No credentials.
    #[default]
    None,
    /// A user and password, sent as HTTP Basic or Digest, whichever the server asks for.
    Password {
        /// The user.
        user: String,
        /// The password.
        password: String,
    },
    /// A token, sent as `Authorization: Bearer`.
    Bearer(String),
}

impl Credentials {
    /// The texts that would give the credentials away: the password, the token, and
    /// the HTTP Basic form of user and password. Short ones are left (a one-letter
    /// password would take every such letter out of a message, and guards nothing).
    fn secrets(&self) -> Vec<Vec<u8>> {
        let texts = match self {
            Self::None => Vec::new(),
            Self::Password { user, password } => vec![
                password.clone(),
                // The Base64 of `user:password`, without its `Basic ` scheme.
                http_auth::basic::encode_credentials(user, password)
                    .trim_start_matches("Basic ")
                    .to_owned(),
            ],
            Self::Bearer(token) => vec![token.clone()],
        };
        texts
            .into_iter()
            .filter(|text| text.len() >= 4)
            .map(String::into_bytes)
            .collect()
    }

    /// A server's text with the credentials taken out, before it goes into a message
    /// (a server or a proxy may echo a request's headers in its error page).
    fn scrub(&self, text: &[u8]) -> Vec<u8> {
        let secrets = self.secrets();
        let mut scrubbed = Vec::with_capacity(text.len());
        let mut at = 0;
        while at < text.len() {
            match secrets.iter().find(|secret| text[at..].starts_with(secret)) {
                Some(secret) => {
                    scrubbed.extend_from_slice(b"(hidden)");
                    at += secret.len();
                }
                None => {
                    scrubbed.push(text[at]);
                    at += 1;
                }
            }
        }
        scrubbed
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::None => "None",
            Self::Password { .. } => "Password(..)",
            Self::Bearer(_) => "Bearer(..)",
        })
    }
}

/// How long to wait, and how often to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// To open a connection.
    pub connect: Duration,
    /// For one whole request, the answer included.
    pub request: Duration,
    /// Further attempts of a request that may be sent twice, after a failed connection,
    /// a time-out or a 502/503/504, waiting 250 ms, then twice as long each time.
    pub retries: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(5),
            request: Duration::from_secs(120),
            retries: 3,
        }
    }
}

/// A request body.
pub(super) enum Body<'a> {
    None,
    /// `application/x-www-form-urlencoded` fields.
    Form(&'a [(&'a str, &'a str)]),
    /// Bytes of a media type.
    Raw(&'a str, &'a [u8]),
}

/// A server's answer, read whole.
#[derive(Debug)]
pub(super) struct Answer {
    pub status: u16,
    pub content_type: String,
    pub server: String,
    /// Virtuoso's `X-SPARQL-MaxRows`: the answer may have been cut at this many rows.
    pub max_rows: Option<u64>,
    /// Virtuoso's `X-SQL-State` and `X-SQL-Message` (an "anytime" answer cut by time).
    pub sql_state: Option<String>,
    /// `WWW-Authenticate`, on a 401.
    pub challenge: Option<String>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The answer as an error, for a status that is not success.
    pub fn error(&self, url: &Endpoint) -> RemoteError {
        if self.status == 401 || self.status == 403 && self.body.is_empty() {
            return RemoteError::Unauthorized {
                url: url.clone(),
                status: self.status,
                hint: String::new(),
            };
        }
        RemoteError::Status {
            url: url.clone(),
            status: self.status,
            message: message_of(&self.body),
        }
    }
}

/// The HTTP client of one remote store.
pub(super) struct Client {
    agent: ureq::Agent,
    credentials: Credentials,
    /// The answer to the server's last challenge (Basic or Digest), reused while valid.
    challenge: Mutex<Option<PasswordClient>>,
    retries: u32,
    /// Whether the password may go as HTTP Basic over plain `http://`.
    basic_over_http: bool,
}

impl Client {
    pub fn new(credentials: Credentials, limits: Limits, basic_over_http: bool) -> Self {
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::PlatformVerifier)
            .build();
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(limits.connect))
            .timeout_global(Some(limits.request))
            .max_redirects(0)
            .tls_config(tls)
            .user_agent(concat!("ihigraph/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: config.into(),
            credentials,
            challenge: Mutex::new(None),
            retries: limits.retries,
            basic_over_http,
        }
    }

    /// Sends a request and reads the answer whole. `idempotent` requests are sent again
    /// after a failed connection, a time-out or a 502/503/504. A 401 with a challenge is
    /// answered once with the credentials.
    pub fn send(
        &self,
        method: &Method,
        url: &Endpoint,
        accept: Option<&str>,
        body: &Body<'_>,
        idempotent: bool,
    ) -> Result<Answer, RemoteError> {
        let (content_type, bytes) = match body {
            Body::None => (None, Vec::new()),
            Body::Form(fields) => (
                Some("application/x-www-form-urlencoded"),
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(fields.iter())
                    .finish()
                    .into_bytes(),
            ),
            Body::Raw(media_type, bytes) => (Some(*media_type), bytes.to_vec()),
        };
        let attempts = if idempotent { self.retries + 1 } else { 1 };
        let mut delay = Duration::from_millis(250);
        let mut attempt = 1;
        loop {
            let answer = self.authenticated(method, url, accept, content_type, &bytes);
            let retry = match &answer {
                Err(RemoteError::Unreachable { .. }) => true,
                Ok(answer) => matches!(answer.status, 502..=504),
                Err(_) => false,
            };
            if !retry || attempt >= attempts {
                return match answer {
                    Err(RemoteError::Unreachable { url, reason, .. }) => {
                        Err(RemoteError::Unreachable {
                            url,
                            reason,
                            attempts: attempt,
                        })
                    }
                    other => other,
                };
            }
            std::thread::sleep(delay);
            delay *= 2;
            attempt += 1;
        }
    }

    /// One request, answering a challenge once.
    fn authenticated(
        &self,
        method: &Method,
        url: &Endpoint,
        accept: Option<&str>,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Answer, RemoteError> {
        let authorization = self.authorization(method, url, body)?;
        let answer = self.once(method, url, accept, content_type, body, authorization)?;
        if answer.status != 401 {
            return Ok(answer);
        }
        let Credentials::Password { .. } = &self.credentials else {
            return Err(self.refused(url, &answer, 401));
        };
        // A new challenge (the first one, or a stale Digest nonce): answer it once.
        let Some(challenge) = answer_challenge(&answer) else {
            return Err(self.refused(url, &answer, 401));
        };
        *self.lock() = Some(challenge);
        let authorization = self.authorization(method, url, body)?;
        let answer = self.once(method, url, accept, content_type, body, authorization)?;
        if answer.status == 401 {
            return Err(self.refused(url, &answer, 401));
        }
        Ok(answer)
    }

    fn refused(&self, url: &Endpoint, answer: &Answer, status: u16) -> RemoteError {
        let asked = answer
            .challenge
            .as_deref()
            .and_then(|challenge| challenge.split_whitespace().next())
            .map(|scheme| format!(", it asks for {scheme}"))
            .unwrap_or_default();
        let hint = match &self.credentials {
            Credentials::None => format!(" (none were given{asked})"),
            _ => asked.replacen(", ", " (", 1) + if asked.is_empty() { "" } else { ")" },
        };
        RemoteError::Unauthorized {
            url: url.clone(),
            status,
            hint,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<PasswordClient>> {
        self.challenge
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The `Authorization` header for a request, if there is one to send: never the
    /// password as Basic over plain HTTP unless allowed. Checked per request, not per
    /// challenge: the answer to a Basic challenge of an `https://` endpoint is reused
    /// for the others, and one of them may be `http://`.
    fn authorization(
        &self,
        method: &Method,
        url: &Endpoint,
        body: &[u8],
    ) -> Result<Option<String>, RemoteError> {
        let (user, password) = match &self.credentials {
            Credentials::None => return Ok(None),
            Credentials::Bearer(token) => return Ok(Some(format!("Bearer {token}"))),
            Credentials::Password { user, password } => (user, password),
        };
        let mut challenge = self.lock();
        let Some(client) = challenge.as_mut() else {
            return Ok(None);
        };
        if matches!(client, PasswordClient::Basic(_))
            && url.is_plain_http()
            && !self.basic_over_http
        {
            return Err(RemoteError::BasicOverHttp { url: url.clone() });
        }
        Ok(client
            .respond(&PasswordParams {
                username: user,
                password,
                uri: request_target(url.as_str()),
                method: method.as_str(),
                body: Some(body),
            })
            .ok())
    }

    fn once(
        &self,
        method: &Method,
        url: &Endpoint,
        accept: Option<&str>,
        content_type: Option<&str>,
        body: &[u8],
        authorization: Option<String>,
    ) -> Result<Answer, RemoteError> {
        let mut request = Request::builder().method(method.clone()).uri(url.as_str());
        if let Some(accept) = accept {
            request = request.header("Accept", accept);
        }
        if let Some(content_type) = content_type {
            request = request.header("Content-Type", content_type);
        }
        if let Some(authorization) = authorization {
            request = request.header("Authorization", authorization);
        }
        let request = request
            .body(body)
            .map_err(|_| RemoteError::BadUrl { url: url.clone() })?;
        let unreachable = |reason: String| RemoteError::Unreachable {
            url: url.clone(),
            reason,
            attempts: 1,
        };
        let response = self.agent.run(request).map_err(|error| match error {
            ureq::Error::BadUri(_) | ureq::Error::Http(_) => {
                RemoteError::BadUrl { url: url.clone() }
            }
            other => unreachable(other.to_string()),
        })?;
        let mut answer = read_answer(response)
            .map_err(|error| unreachable(format!("while reading: {error}")))?;
        if !answer.is_success() {
            answer.body = self.credentials.scrub(&answer.body);
        }
        Ok(answer)
    }
}

/// The answer to the server's challenge, from its `WWW-Authenticate` headers.
fn answer_challenge(answer: &Answer) -> Option<PasswordClient> {
    let header = answer.challenge.as_deref()?;
    PasswordClient::builder().challenges(header).build().ok()
}

/// The path and query of a URL: the request target Digest signs.
fn request_target(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map_or("/", |slash| &after_scheme[slash..])
}

fn read_answer(response: Response<ureq::Body>) -> Result<Answer, ureq::Error> {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let status = response.status().as_u16();
    let content_type = header("content-type").unwrap_or_default();
    let server = header("server").unwrap_or_default();
    let max_rows = header("x-sparql-maxrows").and_then(|value| value.trim().parse().ok());
    let sql_state = header("x-sql-state");
    // Every challenge, in one list: a server may offer Digest and Basic in two headers,
    // and the strongest is answered.
    let challenges: Vec<&str> = response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    let challenge = (!challenges.is_empty()).then(|| challenges.join(", "));
    let mut body = Vec::new();
    response
        .into_body()
        .into_reader()
        .read_to_end(&mut body)
        .map_err(ureq::Error::Io)?;
    Ok(Answer {
        status,
        content_type,
        server,
        max_rows,
        sql_state,
        challenge,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_text_loses_the_password_the_token_and_the_basic_form() {
        let password = Credentials::Password {
            user: "agents".to_owned(),
            password: "S3cret-pw".to_owned(),
        };
        let echoed = b"denied: Basic YWdlbnRzOlMzY3JldC1wdw== for S3cret-pw, S3cret-pwS3cret-pw";
        assert_eq!(
            String::from_utf8(password.scrub(echoed)).unwrap(),
            "denied: Basic (hidden) for (hidden), (hidden)(hidden)"
        );
        let token = Credentials::Bearer("tok-123456".to_owned());
        assert_eq!(token.scrub(b"Bearer tok-123456."), b"Bearer (hidden).");
        // A secret too short to hide without taking its letters out of every word.
        let short = Credentials::Password {
            user: "u".to_owned(),
            password: "pw".to_owned(),
        };
        assert_eq!(short.scrub(b"pw pw"), b"pw pw");
        assert_eq!(Credentials::None.scrub(b"text"), b"text");
    }
}
