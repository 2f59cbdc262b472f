//! Reading members of a JSON object the way every payload shape needs.

use serde_json::{Map, Value};

pub(super) fn string<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    object.get(name).and_then(Value::as_str)
}

pub(super) fn owned_string(object: &Map<String, Value>, name: &str) -> Option<String> {
    string(object, name).map(str::to_owned)
}

/// Arguments as JSON text: a string is already JSON text, anything else is serialized.
pub(super) fn json_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// Result data: a string as it is, anything else as JSON text.
pub(super) fn data_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The objects of an array member.
pub(super) fn items<'a>(
    object: &'a Map<String, Value>,
    name: &str,
) -> impl Iterator<Item = &'a Map<String, Value>> {
    object
        .get(name)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}
