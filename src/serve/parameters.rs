//! A request's query-string parameters, read whole before any work. A handler names the
//! parameters it takes: a name it does not take, or one given twice, is refused (400,
//! naming it) at once; each value is then read by a getter that checks it. Handlers read
//! every value before they write, so that a bad one is never found after the write.

use super::ApiError;
use std::collections::HashSet;

/// The parameters of one request, checked against the names a route takes.
#[derive(Debug)]
pub(crate) struct Parameters {
    pairs: Vec<(String, String)>,
}

impl Parameters {
    /// The parameters of a query string (`None`: there is none), each one of `known`
    /// and given once.
    pub(crate) fn parse(query: Option<&str>, known: &[&str]) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(query.unwrap_or_default().as_bytes())
                .into_owned()
                .collect();
        let mut seen = HashSet::new();
        for (name, _) in &pairs {
            if !known.contains(&name.as_str()) {
                let takes = if known.is_empty() {
                    "takes no parameters".to_owned()
                } else {
                    format!("takes {}", known.join(", "))
                };
                return Err(ApiError::bad_request(format!(
                    "unknown parameter {name:?}: this route {takes}"
                )));
            }
            if !seen.insert(name.as_str()) {
                return Err(ApiError::bad_request(format!(
                    "{name} is given more than once"
                )));
            }
        }
        Ok(Self { pairs })
    }

    /// The value of `name`, if given.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(given, _)| given == name)
            .map(|(_, value)| value.as_str())
    }

    /// A yes-or-no parameter: `true` (or given without a value) or `false`; `false` when
    /// not given.
    pub(crate) fn flag(&self, name: &str) -> Result<bool, ApiError> {
        match self.get(name) {
            None | Some("false") => Ok(false),
            Some("true" | "") => Ok(true),
            Some(other) => Err(ApiError::bad_request(format!(
                "{name}={other:?}: true or false"
            ))),
        }
    }

    /// A whole number from 0 to `most`, or `default` when not given.
    pub(crate) fn number(
        &self,
        name: &str,
        default: usize,
        most: usize,
    ) -> Result<usize, ApiError> {
        let Some(text) = self.get(name) else {
            return Ok(default);
        };
        text.parse::<usize>()
            .ok()
            .filter(|number| *number <= most)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{name}={text:?}: expected a whole number from 0 to {most}"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(query: &str, known: &[&str]) -> String {
        let error = Parameters::parse(Some(query), known).unwrap_err();
        assert_eq!(error.status.as_u16(), 400);
        error.message
    }

    #[test]
    fn unknown_and_repeated_names_are_refused_before_any_value_is_read() {
        assert_eq!(
            refusal("receipt=true&reciept=true", &["receipt", "dry-run"]),
            "unknown parameter \"reciept\": this route takes receipt, dry-run"
        );
        assert_eq!(
            refusal("x=1", &[]),
            "unknown parameter \"x\": this route takes no parameters"
        );
        assert_eq!(
            refusal("receipt=false&receipt=true", &["receipt"]),
            "receipt is given more than once"
        );
        let none = Parameters::parse(None, &[]).unwrap();
        assert_eq!(none.get("x"), None);
    }

    #[test]
    fn values_are_checked_by_their_getters() {
        let parameters =
            Parameters::parse(Some("a=true&b&c=yes&n=12&m=-1"), &["a", "b", "c", "n", "m"])
                .unwrap();
        assert!(parameters.flag("a").unwrap());
        assert!(parameters.flag("b").unwrap());
        assert!(!parameters.flag("absent").unwrap());
        assert_eq!(
            parameters.flag("c").unwrap_err().message,
            "c=\"yes\": true or false"
        );
        assert_eq!(parameters.number("n", 5, 100).unwrap(), 12);
        assert_eq!(parameters.number("absent", 5, 100).unwrap(), 5);
        assert!(parameters.number("n", 5, 10).is_err());
        assert!(parameters.number("m", 5, 10).is_err());
        let huge = Parameters::parse(Some("n=18446744073709551616"), &["n"]).unwrap();
        assert!(huge.number("n", 0, usize::MAX).is_err());
    }
}
