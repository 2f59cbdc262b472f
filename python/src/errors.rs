//! The exceptions Python sees: `IhigraphError` and one subclass per kind of failure, each
//! carrying the library's message and, where it knows it, the place (`file`, `line`,
//! `column`, `pointer`) and the diagnostics behind it.

use ihigraph::StoreError as LibStoreError;
use ihigraph::check::{Diagnostic, Place};
use ihigraph::context::ContextError;
use ihigraph::ingest::IngestError;
use ihigraph::integrity::IntegrityError;
use ihigraph::memory::MemoryError;
use ihigraph::report::ReportError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;

create_exception!(
    ihigraph,
    IhigraphError,
    PyException,
    "The base of every ihigraph error: `message`, and where known `file`, `line`, `column` and `pointer` (a JSON Pointer) say what and where; `diagnostics` lists what a check found."
);
create_exception!(
    ihigraph,
    ValidationError,
    IhigraphError,
    "A document was refused: it breaks the PGM-IHI schema or a semantic rule (`pointer` says where; `diagnostics` lists every problem)."
);
create_exception!(
    ihigraph,
    ConversionError,
    IhigraphError,
    "A history in a foreign format could not be converted (`file` and `pointer` say where)."
);
create_exception!(
    ihigraph,
    StoreError,
    IhigraphError,
    "The store failed: it could not be opened, read or written, or a server refused."
);
create_exception!(
    ihigraph,
    NotFoundError,
    StoreError,
    "What was asked for is not in the store: a session, a turn or a memory item."
);
create_exception!(
    ihigraph,
    QueryError,
    IhigraphError,
    "A query is wrong: SPARQL syntax, an unknown canned query or parameter, a value of the wrong kind, or its evaluation failed."
);

/// Where a failure is, as far as it is known.
#[derive(Debug, Default, Clone)]
pub struct Location {
    pub file: Option<String>,
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub pointer: Option<String>,
}

impl Location {
    /// The place of a diagnostic of the document read from `file`.
    pub fn of(file: Option<&str>, line: Option<u64>, place: &Place) -> Self {
        let mut location = Self {
            file: file.map(str::to_owned),
            line,
            ..Self::default()
        };
        match place {
            Place::Document => {}
            Place::Position { line, column } => {
                location.line = Some(*line as u64);
                location.column = Some(*column as u64);
            }
            Place::Pointer(pointer) | Place::Input(pointer) => {
                location.pointer = Some(pointer.clone());
            }
        }
        location
    }
}

/// An exception of type `E` with the message, its place and the diagnostics as attributes.
pub fn raise<E: pyo3::PyTypeInfo>(
    message: String,
    location: &Location,
    diagnostics: Vec<Py<PyAny>>,
) -> PyErr {
    Python::attach(|py| {
        let error = PyErr::new::<E, _>(message.clone());
        let value = error.value(py);
        let set = || -> PyResult<()> {
            value.setattr("message", &message)?;
            value.setattr("file", location.file.clone())?;
            value.setattr("line", location.line)?;
            value.setattr("column", location.column)?;
            value.setattr("pointer", location.pointer.clone())?;
            value.setattr("diagnostics", PyList::new(py, diagnostics)?)?;
            Ok(())
        };
        match set() {
            Ok(()) => error,
            Err(failure) => failure,
        }
    })
}

fn plain<E: pyo3::PyTypeInfo>(error: &dyn std::fmt::Display) -> PyErr {
    raise::<E>(error.to_string(), &Location::default(), Vec::new())
}

/// A store error as the exception of its kind.
pub fn store_error(error: &LibStoreError) -> PyErr {
    match error {
        LibStoreError::UnknownSession { .. }
        | LibStoreError::UnknownTenant { .. }
        | LibStoreError::UnknownToken { .. } => plain::<NotFoundError>(error),
        LibStoreError::QuerySyntax(_)
        | LibStoreError::TooDeep(_)
        | LibStoreError::UpdateNotAllowed
        | LibStoreError::UpdateEvaluation(_)
        | LibStoreError::QueryEvaluation(_)
        | LibStoreError::Parameter(_)
        | LibStoreError::SearchQuery { .. } => plain::<QueryError>(error),
        _ => plain::<StoreError>(error),
    }
}

/// A refused document: the first error's place, every diagnostic as an object.
pub fn refused(
    message: &str,
    file: Option<&str>,
    line: Option<u64>,
    diagnostics: &[Diagnostic],
) -> PyErr {
    let first = diagnostics
        .iter()
        .find(|diagnostic| diagnostic.severity == ihigraph::check::Severity::Error)
        .or(diagnostics.first());
    let location = first.map_or_else(
        || Location {
            file: file.map(str::to_owned),
            line,
            ..Location::default()
        },
        |diagnostic| Location::of(file, line, &diagnostic.place),
    );
    let text = match (first, &location.pointer) {
        (Some(diagnostic), Some(pointer)) => {
            format!("{message}: at {pointer:?}: {}", diagnostic.message)
        }
        (Some(diagnostic), None) => format!("{message}: {}", diagnostic.message),
        (None, _) => message.to_owned(),
    };
    let objects = Python::attach(|py| {
        diagnostics
            .iter()
            .filter_map(|diagnostic| {
                crate::documents::PyDiagnostic::new(diagnostic, file, line)
                    .into_pyobject(py)
                    .ok()
                    .map(|object| object.into_any().unbind())
            })
            .collect()
    });
    raise::<ValidationError>(text, &location, objects)
}

pub fn ingest_error(error: &IngestError) -> PyErr {
    match error {
        IngestError::Store(error) => store_error(error),
        IngestError::Refused { problems } => {
            let diagnostics: Vec<Diagnostic> = problems.iter().map(Diagnostic::from).collect();
            refused("refused: nothing was stored", None, None, &diagnostics)
        }
        other => plain::<StoreError>(other),
    }
}

pub fn context_error(error: &ContextError) -> PyErr {
    match error {
        ContextError::Store(error) => store_error(error),
        ContextError::Corrupt { .. } => plain::<StoreError>(error),
        other => plain::<IhigraphError>(other),
    }
}

pub fn memory_error(error: &MemoryError) -> PyErr {
    match error {
        MemoryError::Store(error) => store_error(error),
        MemoryError::UnknownTurn { .. } | MemoryError::UnknownItem(_) => {
            plain::<NotFoundError>(error)
        }
        other => plain::<IhigraphError>(other),
    }
}

pub fn integrity_error(error: &IntegrityError) -> PyErr {
    match error {
        IntegrityError::Store(error) => store_error(error),
        other => plain::<IhigraphError>(other),
    }
}

pub fn report_error(error: &ReportError) -> PyErr {
    match error {
        ReportError::Store(error) => store_error(error),
        other => plain::<IhigraphError>(other),
    }
}

/// A conversion refused by an importer: its place is a line and a JSON Pointer.
pub fn conversion_error(file: &str, place: &str, message: &str) -> PyErr {
    let pointer = place
        .split_once(", ")
        .map_or(place, |(_, pointer)| pointer)
        .to_owned();
    let line = place
        .strip_prefix("line ")
        .and_then(|rest| rest.split(',').next())
        .and_then(|number| number.parse().ok());
    let location = Location {
        file: Some(file.to_owned()),
        line,
        column: None,
        pointer: pointer.starts_with('/').then_some(pointer),
    };
    raise::<ConversionError>(format!("{file}: {place}: {message}"), &location, Vec::new())
}

/// A wrong argument from Python.
pub fn usage(message: impl Into<String>) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(message.into())
}
