//! What no history file holds and the user gives: session ids, a start time, the time
//! zone of naive local times, and the two MPAI ids.

use jiff::tz::TimeZone;

/// `MInstanceID` when none is given: the M-Instance the conversation ran in is unknown.
pub const DEFAULT_INSTANCE_ID: &str = "unknown";
/// `UEnvironmentID` when none is given: the U-Environment is unknown too.
pub const DEFAULT_ENVIRONMENT_ID: &str = "unknown";

/// The longest JSON Lines file converted in one pass unless
/// [`ImportOptions::held_bytes`] says otherwise.
pub const DEFAULT_HELD_BYTES: u64 = 2 * 1024 * 1024;

/// What a session id is derived from when a file holds none and none is given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DerivedIds {
    /// The file's path (the default): `<file stem>-<12 hex digits of the SHA-256 of its
    /// absolute, canonical path>`, so that a transcript that grew since it was last
    /// ingested replaces the session it made then, and two files never share one.
    /// Input without a path (standard input, a request body) falls back to `Content`.
    #[default]
    Path,
    /// The file's content: `sha256-<16 hex digits of the SHA-256 of its bytes>`; a file
    /// ingested again after it changed makes a new session.
    Content,
}

impl DerivedIds {
    /// Reads `path` or `content`.
    ///
    /// # Errors
    ///
    /// When `name` is neither.
    pub fn parse(name: &str) -> Result<Self, OptionError> {
        match name {
            "path" => Ok(Self::Path),
            "content" => Ok(Self::Content),
            _ => Err(OptionError {
                value: name.to_owned(),
                expected: "`path` or `content`",
            }),
        }
    }
}

/// An option value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value:?} is not {expected}")]
pub struct OptionError {
    /// The value given.
    pub value: String,
    /// What was expected.
    pub expected: &'static str,
}

/// What the user says about the sessions being imported.
///
/// ```
/// use ihigraph::import::ImportOptions;
/// let options = ImportOptions::default()
///     .session_id("chat-7")
///     .start_time("2026-03-14T08:00:00Z")?
///     .timezone("Europe/Zurich")?;
/// assert_eq!(options.start_time_ms(), Some(1_773_475_200_000));
/// assert!(ImportOptions::default().timezone("Mars/Olympus").is_err());
/// # Ok::<_, ihigraph::import::OptionError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    session_id: Option<String>,
    start_time_ms: Option<i64>,
    timezone: Option<(String, TimeZone)>,
    instance_id: Option<String>,
    environment_id: Option<String>,
    held_bytes: Option<u64>,
    derived_ids: DerivedIds,
}

impl ImportOptions {
    /// The session id for files that hold none; a file holding several sessions gives
    /// `ID#<line>` (one session per JSON Lines line) or `ID#<n>`.
    #[must_use]
    pub fn session_id(self, id: impl Into<String>) -> Self {
        Self {
            session_id: Some(id.into()),
            ..self
        }
    }

    /// What session ids are derived from when a file holds none and none is given
    /// (default [`DerivedIds::Path`]).
    #[must_use]
    pub fn derive_ids_from(self, derived_ids: DerivedIds) -> Self {
        Self {
            derived_ids,
            ..self
        }
    }

    /// When the session started, for files without times (RFC 3339).
    ///
    /// # Errors
    ///
    /// When `time` is not an RFC 3339 date and time with an offset.
    pub fn start_time(self, time: &str) -> Result<Self, OptionError> {
        let timestamp: jiff::Timestamp = time.parse().map_err(|_| OptionError {
            value: time.to_owned(),
            expected: "an RFC 3339 date and time with an offset (2026-03-14T08:00:00Z)",
        })?;
        Ok(Self {
            start_time_ms: Some(timestamp.as_millisecond()),
            ..self
        })
    }

    /// The IANA time zone of naive local times (PyALM writes them).
    ///
    /// # Errors
    ///
    /// When `name` is not in the IANA time zone database compiled into ihigraph.
    pub fn timezone(self, name: &str) -> Result<Self, OptionError> {
        let zone = jiff::tz::db().get(name).map_err(|_| OptionError {
            value: name.to_owned(),
            expected: "an IANA time zone name (Europe/Zurich, UTC)",
        })?;
        Ok(Self {
            timezone: Some((name.to_owned(), zone)),
            ..self
        })
    }

    /// `MInstanceID` (default [`DEFAULT_INSTANCE_ID`]).
    #[must_use]
    pub fn instance_id(self, id: impl Into<String>) -> Self {
        Self {
            instance_id: Some(id.into()),
            ..self
        }
    }

    /// `UEnvironmentID` (default [`DEFAULT_ENVIRONMENT_ID`]).
    #[must_use]
    pub fn environment_id(self, id: impl Into<String>) -> Self {
        Self {
            environment_id: Some(id.into()),
            ..self
        }
    }

    /// The longest JSON Lines file converted in one pass, its sessions held in memory
    /// until the whole file is known to convert (default [`DEFAULT_HELD_BYTES`]); a
    /// longer file is read twice, the first time to check it, the second to give its
    /// sessions as they come.
    #[must_use]
    pub fn held_bytes(self, bytes: u64) -> Self {
        Self {
            held_bytes: Some(bytes),
            ..self
        }
    }

    /// The longest JSON Lines file converted in one pass.
    pub fn held_bytes_limit(&self) -> u64 {
        self.held_bytes.unwrap_or(DEFAULT_HELD_BYTES)
    }

    /// The start time given, in milliseconds since the Unix epoch.
    pub fn start_time_ms(&self) -> Option<i64> {
        self.start_time_ms
    }

    pub(super) fn given_session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    pub(super) fn derived_ids(&self) -> DerivedIds {
        self.derived_ids
    }

    pub(super) fn zone(&self) -> Option<&(String, TimeZone)> {
        self.timezone.as_ref()
    }

    pub(super) fn m_instance_id(&self) -> &str {
        self.instance_id.as_deref().unwrap_or(DEFAULT_INSTANCE_ID)
    }

    pub(super) fn u_environment_id(&self) -> &str {
        self.environment_id
            .as_deref()
            .unwrap_or(DEFAULT_ENVIRONMENT_ID)
    }
}
