//! Documents without a store: `validate` (diagnostics as objects with their places) and
//! `convert` (a foreign history as PGM-IHI documents), and the inputs both take: paths, or
//! documents already in Python.

use crate::errors::{self, Location};
use crate::values;
use ihigraph::check::Diagnostic;
use ihigraph::import::{Choice, ImportEvent, ImportOptions, import_bytes, import_paths};
use ihigraph::ingest::prepare_document;
use ihigraph::rdf::IriScheme;
use ihigraph::read::{InputDocument, Origin, read_documents};
use ihigraph::{CheckOptions, InteractionHistory};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde_json::Value;
use std::cell::RefCell;
use std::path::PathBuf;

/// One thing a check found in a document: how serious (`severity`), which rule, what
/// (`message`), and where: `file` and `line` of the input, `column` for a syntax error,
/// `pointer` (a JSON Pointer such as ``/Turns/3/Role``) for the schema and the rules.
#[pyclass(
    name = "Diagnostic",
    module = "ihigraph",
    frozen,
    get_all,
    skip_from_py_object
)]
#[derive(Debug, Clone)]
pub struct PyDiagnostic {
    /// ``"error"`` or ``"warning"``.
    pub severity: String,
    /// The rule: a JSON Schema keyword, a semantic rule, ``syntax``, ``io``...
    pub rule: String,
    /// What was expected and found.
    pub message: String,
    /// The input it was read from (a path, or ``<document N>`` for a dict).
    pub file: Option<String>,
    /// The line of the input (JSON Lines) or of a syntax error.
    pub line: Option<u64>,
    /// The column of a syntax error.
    pub column: Option<u64>,
    /// The JSON Pointer into the document.
    pub pointer: Option<String>,
    located: String,
}

impl PyDiagnostic {
    pub fn new(diagnostic: &Diagnostic, file: Option<&str>, line: Option<u64>) -> Self {
        let location = Location::of(file, line, &diagnostic.place);
        let origin = Origin {
            name: file.unwrap_or("<document>").to_owned(),
            line,
        };
        Self {
            severity: diagnostic.severity.to_string(),
            rule: diagnostic.rule.to_string(),
            message: diagnostic.message.clone(),
            file: location.file,
            line: location.line,
            column: location.column,
            pointer: location.pointer,
            located: diagnostic.located(&origin),
        }
    }
}

#[pymethods]
impl PyDiagnostic {
    /// Whether this is an error (the document is refused) rather than a warning.
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }

    fn __str__(&self) -> String {
        self.located.clone()
    }

    fn __repr__(&self) -> String {
        let text = |value: &Option<String>| {
            value
                .as_ref()
                .map_or("None".to_owned(), |v| format!("{v:?}"))
        };
        format!(
            "Diagnostic(severity={:?}, rule={:?}, file={}, pointer={}, message={:?})",
            self.severity,
            self.rule,
            text(&self.file),
            text(&self.pointer),
            self.message
        )
    }
}

/// What Python gave as input: paths to read, and documents already in memory.
#[derive(Debug, Default)]
pub struct Inputs {
    pub paths: Vec<PathBuf>,
    pub documents: Vec<(Origin, Value)>,
}

impl Inputs {
    /// A path, a document (a dict, or a list for formats whose history is a list), or a
    /// list or tuple of those.
    pub fn read(sources: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut inputs = Self::default();
        let many = sources.is_instance_of::<PyTuple>()
            || (sources.is_instance_of::<PyList>() && !looks_like_messages(sources));
        if many {
            for source in sources.try_iter()? {
                inputs.add(&source?)?;
            }
        } else {
            inputs.add(sources)?;
        }
        Ok(inputs)
    }

    fn add(&mut self, source: &Bound<'_, PyAny>) -> PyResult<()> {
        if source.is_instance_of::<PyDict>() || source.is_instance_of::<PyList>() {
            let origin = Origin {
                name: format!("<document {}>", self.documents.len() + 1),
                line: None,
            };
            self.documents.push((origin, values::from_python(source)?));
            return Ok(());
        }
        if source.is_instance_of::<PyString>() || source.hasattr("__fspath__")? {
            self.paths.push(source.extract::<PathBuf>()?);
            return Ok(());
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a path (str or os.PathLike), a document (dict) or a list of them; got {}",
            source.get_type().name()?
        )))
    }

    /// The documents, those of the paths first, as the pipeline reads them.
    pub fn into_documents(self) -> Vec<InputDocument> {
        let mut documents: Vec<InputDocument> = read_documents(&self.paths).collect();
        documents.extend(
            self.documents
                .into_iter()
                .map(|(origin, value)| InputDocument {
                    origin,
                    value: Ok(value),
                }),
        );
        documents
    }
}

/// A list whose first item is a dict with a `type` or `role` reads as one history of
/// messages (LangChain's or OpenAI's), not as a list of documents.
fn looks_like_messages(list: &Bound<'_, PyAny>) -> bool {
    list.get_item(0)
        .ok()
        .and_then(|first| first.cast_into::<PyDict>().ok())
        .is_some_and(|first| {
            ["type", "role", "lc"]
                .iter()
                .any(|key| first.contains(key).unwrap_or(false))
        })
}

/// The import options Python may give.
pub fn import_options(
    session_id: Option<String>,
    start_time: Option<&str>,
    timezone: Option<&str>,
) -> PyResult<ImportOptions> {
    let mut options = ImportOptions::default();
    if let Some(id) = session_id {
        options = options.session_id(id);
    }
    if let Some(time) = start_time {
        options = options
            .start_time(time)
            .map_err(|e| errors::usage(format!("start_time: {e}")))?;
    }
    if let Some(zone) = timezone {
        options = options
            .timezone(zone)
            .map_err(|e| errors::usage(format!("timezone: {e}")))?;
    }
    Ok(options)
}

/// The importer a name gives (`auto` recognises the format from the content).
pub fn choice(from: &str) -> PyResult<Choice> {
    if from == "auto" {
        return Ok(Choice::Auto);
    }
    ihigraph::import::importer(from)
        .map(Choice::Format)
        .ok_or_else(|| {
            let names: Vec<&str> = ihigraph::import::IMPORTERS
                .iter()
                .map(|importer| importer.name())
                .collect();
            errors::usage(format!(
                "from_={from:?}: no such format (expected auto or one of {})",
                names.join(", ")
            ))
        })
}

/// Converts every input; the first file refused stops it with a `ConversionError`.
pub fn convert_inputs(
    inputs: &Inputs,
    choice: Choice,
    options: &ImportOptions,
) -> PyResult<Vec<InteractionHistory>> {
    let mut histories = Vec::new();
    let refusal: RefCell<Option<PyErr>> = RefCell::new(None);
    let mut sink = |event: ImportEvent<'_>| {
        match event {
            ImportEvent::Session { converted, .. } => histories.push(converted.history),
            ImportEvent::Refused { file, error } => {
                *refusal.borrow_mut() =
                    Some(errors::conversion_error(file, &error.place, &error.message));
            }
            _ => {}
        }
        refusal.borrow().is_none()
    };
    if !inputs.paths.is_empty() {
        import_paths(&inputs.paths, choice, options, &mut sink);
    }
    for (origin, value) in &inputs.documents {
        if refusal.borrow().is_some() {
            break;
        }
        let bytes = serde_json::to_vec(value).map_err(|e| errors::usage(e.to_string()))?;
        import_bytes(&origin.name, bytes, choice, options, &mut sink);
    }
    match refusal.into_inner() {
        Some(error) => Err(error),
        None => Ok(histories),
    }
}

/// Checks documents (paths, or dicts) against the PGM-IHI schema and the semantic rules,
/// without a store, and gives every diagnostic; an empty list means all are valid.
///
/// >>> import ihigraph
/// >>> [d.pointer for d in ihigraph.validate({"Header": "IHI-V1.0"}) if d.is_error][:2]
/// ['', '']
#[pyfunction]
#[pyo3(signature = (sources, *, lenient = false))]
pub fn validate(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    lenient: bool,
) -> PyResult<Vec<PyDiagnostic>> {
    let inputs = Inputs::read(sources)?;
    Ok(py.detach(move || {
        let options = CheckOptions { lenient };
        let scheme = IriScheme::default();
        let mut found = Vec::new();
        for input in inputs.into_documents() {
            let document = prepare_document(input.origin, input.value, options, &scheme);
            let file = document.origin.name.as_str();
            for diagnostic in &document.diagnostics {
                found.push(PyDiagnostic::new(
                    diagnostic,
                    Some(file),
                    document.origin.line,
                ));
            }
        }
        found
    }))
}

/// Converts histories in another format (``from_``: ``auto`` or an importer's name, such as
/// ``langchain`` or ``openai-chat``) into PGM-IHI documents, as dicts, without a store.
///
/// >>> import ihigraph
/// >>> chat = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
/// >>> [doc] = ihigraph.convert(chat, from_="openai-chat", session_id="sum")
/// >>> doc["SessionID"], doc["TurnCount"], doc["Turns"][0]["BKNResponse"]["content"]
/// ('sum', 1, '4')
#[pyfunction]
#[pyo3(signature = (sources, *, from_ = "auto", session_id = None, start_time = None, timezone = None))]
pub fn convert(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    from_: &str,
    session_id: Option<String>,
    start_time: Option<&str>,
    timezone: Option<&str>,
) -> PyResult<Vec<Py<PyAny>>> {
    let inputs = Inputs::read(sources)?;
    let choice = choice(from_)?;
    let options = import_options(session_id, start_time, timezone)?;
    let histories = py.detach(|| convert_inputs(&inputs, choice, &options))?;
    histories
        .iter()
        .map(|history| {
            let value = serde_json::to_value(history).map_err(|e| errors::usage(e.to_string()))?;
            values::to_python(py, &value)
        })
        .collect()
}
