//! GLM and PyALM chat histories.
//!
//! - The GLM spec: `function_calls: [{name, parameters}]` on an assistant entry; its
//!   results are not marked, so they cannot be found.
//! - PyALM trackers: the model writes Python, PyALM runs it and keeps `code` and its
//!   `return_value` on the same assistant entry (`metadata.has_code_error` marks a
//!   failure); tracker v1 keeps `function_calls: {original_call, return}`. The entry is
//!   one call and, with a return value, its result: the call is named after the
//!   outermost call of the code's first statement (`python` when it calls nothing), its
//!   arguments are the code, and its id is `pyalm-<index>` when the entry has an
//!   `index`.

use super::call::{ToolCall, ToolResultFound};
use super::fields::{data_text, items, json_text, string};
use serde_json::{Map, Value};

pub(super) fn calls(object: &Map<String, Value>, calls: &mut Vec<ToolCall>) {
    for item in items(object, "function_calls") {
        if let Some(name) = string(item, "name") {
            calls.push(ToolCall {
                call_id: None,
                name: name.to_owned(),
                arguments: json_text(item.get("parameters")),
            });
        }
    }
    if let Some((code, _)) = code_entry(object) {
        calls.push(ToolCall {
            call_id: entry_id(object),
            name: called_name(code),
            arguments: Some(code.to_owned()),
        });
    }
}

pub(super) fn result(object: &Map<String, Value>) -> Option<ToolResultFound> {
    let (code, returned) = code_entry(object)?;
    let returned = returned?;
    let failed = object
        .get("metadata")
        .and_then(|m| m.get("has_code_error"))
        .and_then(Value::as_bool);
    Some(ToolResultFound {
        call_id: entry_id(object),
        name: Some(called_name(code)),
        data: data_text(Some(returned)),
        is_error: failed,
    })
}

/// The code of a PyALM entry and what it returned: `code` and `return_value` on an
/// entry with a `role` (v2, v3), or tracker v1's `function_calls: {original_call,
/// return}`.
fn code_entry(object: &Map<String, Value>) -> Option<(&str, Option<&Value>)> {
    if let Some(calls) = object.get("function_calls").and_then(Value::as_object) {
        let code = string(calls, "original_call")?;
        return Some((code, calls.get("return").filter(|r| !r.is_null())));
    }
    let code = string(object, "code")?;
    if !object.contains_key("role") || object.contains_key("language") {
        return None;
    }
    Some((code, object.get("return_value").filter(|r| !r.is_null())))
}

fn entry_id(object: &Map<String, Value>) -> Option<String> {
    object
        .get("index")
        .and_then(Value::as_u64)
        .map(|index| format!("pyalm-{index}"))
}

/// The outermost function called by the first statement of `code`: `weather` in
/// `weather(city="Bern")`, `api.get` in `x = api.get(f(1))`; `python` when the
/// statement calls nothing.
fn called_name(code: &str) -> String {
    let statement = code
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .unwrap_or("");
    // An assignment's target is not the call: `x = f(1)` calls `f`.
    let expression = match statement.find('=') {
        Some(at)
            if !statement[at + 1..].starts_with('=')
                && !statement[..at].ends_with(['=', '!', '<', '>'])
                && !statement[..at].contains('(') =>
        {
            statement[at + 1..].trim_start()
        }
        _ => statement,
    };
    let expression = expression.strip_prefix("await ").unwrap_or(expression);
    let name: String = expression
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    let rest = expression[name.len()..].trim_start();
    if !name.is_empty() && rest.starts_with('(') && !name.starts_with(|c: char| c.is_ascii_digit())
    {
        name
    } else {
        "python".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::called_name;

    #[test]
    fn the_outermost_call_of_the_first_statement_names_the_call() {
        assert_eq!(called_name("weather(city=\"Bern\")"), "weather");
        assert_eq!(
            called_name("# look up\nx = api.get(f(1))\nprint(x)"),
            "api.get"
        );
        assert_eq!(called_name("await search ('q')"), "search");
        assert_eq!(called_name("x == f(1)"), "python");
        assert_eq!(called_name("1 + 2"), "python");
        assert_eq!(called_name(""), "python");
        assert_eq!(called_name("für_alle(1)"), "für_alle");
    }
}
