//! YAML documents read as JSON values (PyALM writes its chat trackers with PyYAML).
//!
//! YAML 1.2's core schema resolves scalars; `\x`, `\u` and `\U` escapes in double-quoted
//! scalars are decoded. A user-defined tag (`!ConversationRole USER`, PyYAML's
//! `!!python/...`) is dropped and its node read as if untagged: the tag names a type
//! in the writing program, the node holds the value. Mapping keys that are not strings
//! are written as their YAML text. Aliases are refused.

use super::ReadError;
use saphyr::{LoadableYamlNode, Scalar, Yaml};
use serde_json::{Map, Number, Value};

/// Parses the first YAML document of `text`.
///
/// ```
/// let value = ihigraph::read::parse_yaml("tracker:\n- role: !ConversationRole USER\n  content: \"Gr\\xFC\\xDFe \\U0001F4CA\"\n")?;
/// assert_eq!(value["tracker"][0]["role"], "USER");
/// assert_eq!(value["tracker"][0]["content"], "Grüße 📊");
/// # Ok::<_, ihigraph::read::ReadError>(())
/// ```
pub fn parse_yaml(text: &str) -> Result<Value, ReadError> {
    let documents = Yaml::load_from_str(text).map_err(|error| ReadError::Syntax {
        line: error.marker().line(),
        column: error.marker().col() + 1,
        message: format!("invalid YAML: {}", error.info()),
    })?;
    let Some(document) = documents.into_iter().next() else {
        return Err(ReadError::Syntax {
            line: 1,
            column: 1,
            message: "the input is empty; expected a YAML document".to_owned(),
        });
    };
    json_value(document, 0)
}

/// Deepest nesting read, as for JSON.
const MAX_DEPTH: usize = 128;

fn json_value(node: Yaml<'_>, depth: usize) -> Result<Value, ReadError> {
    if depth > MAX_DEPTH {
        return Err(structure("nesting deeper than 128 levels is refused"));
    }
    Ok(match node {
        Yaml::Value(scalar) => scalar_value(scalar),
        Yaml::Representation(text, ..) => Value::String(text.into_owned()),
        Yaml::Tagged(_, inner) => json_value(*inner, depth)?,
        Yaml::Sequence(items) => Value::Array(
            items
                .into_iter()
                .map(|item| json_value(item, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Mapping(entries) => {
            let mut object = Map::new();
            for (key, value) in entries {
                let key = match json_value(key, depth + 1)? {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                object.insert(key, json_value(value, depth + 1)?);
            }
            Value::Object(object)
        }
        Yaml::Alias(_) => return Err(structure("YAML aliases are not read")),
        Yaml::BadValue => return Err(structure("a YAML value that cannot be read")),
    })
}

fn scalar_value(scalar: Scalar<'_>) -> Value {
    match scalar {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(b),
        Scalar::Integer(i) => Value::Number(i.into()),
        Scalar::FloatingPoint(f) => Number::from_f64(f.into_inner())
            .map_or_else(|| Value::String(f.to_string()), Value::Number),
        Scalar::String(text) => Value::String(text.into_owned()),
    }
}

fn structure(message: &str) -> ReadError {
    ReadError::Syntax {
        line: 1,
        column: 1,
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyyaml_output_reads_as_written() {
        let text = "system_message: Be brief.\ntracker:\n- role: !ConversationRole ASSISTANT\n  content: 'line one\n\n    line two'\n  index: 1\n  meta: {score: 0.5, ok: true, none: null}\n";
        let value = parse_yaml(text).expect("YAML");
        assert_eq!(value["tracker"][0]["role"], "ASSISTANT");
        assert_eq!(value["tracker"][0]["content"], "line one\nline two");
        assert_eq!(value["tracker"][0]["index"], 1);
        assert_eq!(value["tracker"][0]["meta"]["score"], 0.5);
        assert_eq!(value["tracker"][0]["meta"]["none"], Value::Null);
    }

    #[test]
    fn broken_yaml_says_where() {
        let error = parse_yaml("a: [1, 2\nb: c\n").expect_err("broken");
        assert!(matches!(error, ReadError::Syntax { .. }), "{error}");
        assert!(error.to_string().contains("invalid YAML"), "{error}");
    }
}
