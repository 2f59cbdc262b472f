//! Why a file is not in the format it is read as.

/// The place of [`ImportError::stopped`].
const STOPPED: &str = "(stopped)";

/// Why a file is not in the format its importer reads: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {message}")]
pub struct ImportError {
    /// Where in the input: `line 3, /messages/2/role`, a JSON Pointer, `1:7` for syntax.
    pub place: String,
    /// What was expected there, and what was found.
    pub message: String,
}

impl ImportError {
    /// An error at `pointer` inside the record on `line` (JSON Lines) or the file.
    pub fn at(line: Option<u64>, pointer: &str, expected: impl Into<String>) -> Self {
        let pointer = if pointer.is_empty() {
            "(document)"
        } else {
            pointer
        };
        let place = match line {
            Some(line) => format!("line {line}, {pointer}"),
            None => pointer.to_owned(),
        };
        Self {
            place,
            message: format!("expected {}", expected.into()),
        }
    }

    /// Not an error of the input: the caller asked to stop, and the file's conversion
    /// ends here.
    pub fn stopped() -> Self {
        Self {
            place: STOPPED.to_owned(),
            message: "stopped by the caller".to_owned(),
        }
    }

    /// Whether this is [`ImportError::stopped`].
    pub fn is_stopped(&self) -> bool {
        self.place == STOPPED
    }

    /// An error about the file as a whole.
    pub fn file(message: impl Into<String>) -> Self {
        Self {
            place: "(file)".to_owned(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_name_the_line_and_pointer() {
        assert_eq!(
            ImportError::at(Some(3), "/messages/2/role", "a role").to_string(),
            "line 3, /messages/2/role: expected a role"
        );
        assert_eq!(
            ImportError::at(None, "", "an object").to_string(),
            "(document): expected an object"
        );
    }
}
