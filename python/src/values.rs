//! Values between JSON (the library's documents and payloads) and Python, and RDF terms as
//! Python values: plain values by default, or the parts a pyoxigraph term is built from.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// How deep a Python value may nest before it is refused: JSON this deep is no history, and
/// the walk below is recursive.
const MAX_DEPTH: usize = 256;

/// A JSON value as the Python value `json.loads` would give (numbers exactly: integers of
/// any size as `int`, others as `float`).
pub fn to_python(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any().unbind(),
        Value::Number(number) => number_to_python(py, number)?,
        Value::String(text) => PyString::new(py, text).into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(members) => object_to_python(py, members)?.into_any().unbind(),
    })
}

/// A JSON object as a dict, members in document order.
pub fn object_to_python<'py>(
    py: Python<'py>,
    members: &Map<String, Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, item) in members {
        dict.set_item(key, to_python(py, item)?)?;
    }
    Ok(dict)
}

fn number_to_python(py: Python<'_>, number: &Number) -> PyResult<Py<PyAny>> {
    if let Some(integer) = number.as_i64() {
        return Ok(integer.into_pyobject(py)?.into_any().unbind());
    }
    if let Some(integer) = number.as_u64() {
        return Ok(integer.into_pyobject(py)?.into_any().unbind());
    }
    let text = number.to_string();
    if text
        .bytes()
        .all(|byte| byte.is_ascii_digit() || byte == b'-')
    {
        // An integer beyond 64 bits: Python's int reads it whole.
        return Ok(py.get_type::<PyInt>().call1((text,))?.unbind());
    }
    let float = number
        .as_f64()
        .ok_or_else(|| PyValueError::new_err(format!("{text} is not a number Python reads")))?;
    Ok(PyFloat::new(py, float).into_any().unbind())
}

/// A Python value (dict, list, tuple, str, int, float, bool, None) as JSON; anything else
/// is refused with the place it was found at, as a JSON Pointer.
pub fn from_python(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_python_at(value, &mut String::new(), 0)
}

fn from_python_at(value: &Bound<'_, PyAny>, pointer: &mut String, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "at {:?}: nested deeper than {MAX_DEPTH} levels",
            pointer.as_str()
        )));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        let text = value.str()?.to_string();
        let number: Number = serde_json::from_str(&text).map_err(|_| {
            PyValueError::new_err(format!("at {pointer:?}: {text} is no JSON number"))
        })?;
        return Ok(Value::Number(number));
    }
    if let Ok(float) = value.cast::<PyFloat>() {
        let float = float.value();
        return Number::from_f64(float).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("at {pointer:?}: {float} has no JSON form"))
        });
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Value::String(text.extract::<String>()?));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut members = Map::new();
        for (key, item) in dict.iter() {
            let key = key.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("at {pointer:?}: object keys must be strings"))
            })?;
            let key = key.extract::<String>()?;
            let length = pointer.len();
            pointer.push('/');
            pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            let item = from_python_at(&item, pointer, depth + 1)?;
            pointer.truncate(length);
            members.insert(key, item);
        }
        return Ok(Value::Object(members));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for (index, item) in value.try_iter()?.enumerate() {
            let length = pointer.len();
            pointer.push_str(&format!("/{index}"));
            items.push(from_python_at(&item?, pointer, depth + 1)?);
            pointer.truncate(length);
        }
        return Ok(Value::Array(items));
    }
    Err(PyTypeError::new_err(format!(
        "at {:?}: a {} is no JSON value (expected dict, list, str, int, float, bool or None)",
        pointer.as_str(),
        value.get_type().name()?
    )))
}
