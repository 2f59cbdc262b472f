//! Query answers as Python values: rows as dicts of plain values (str, int, float, bool,
//! Decimal-free: an xsd:decimal is a float), or, with `terms=True`, each term as the tuple
//! `ihigraph.terms` turns into a pyoxigraph term.

use oxigraph::sparql::{QueryResults, QuerySolutionIter};
use oxrdf::{Literal, Term, vocab::xsd};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// A term as the plain Python value it stands for.
fn plain(py: Python<'_>, term: &Term) -> PyResult<Py<PyAny>> {
    Ok(match term {
        Term::NamedNode(node) => node.as_str().into_pyobject(py)?.into_any().unbind(),
        Term::BlankNode(node) => format!("_:{}", node.as_str())
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        Term::Literal(literal) => literal_value(py, literal)?,
        #[allow(unreachable_patterns)]
        other => other.to_string().into_pyobject(py)?.into_any().unbind(),
    })
}

/// A literal as int, float or bool when its datatype says so and its text reads as one;
/// else its text.
fn literal_value(py: Python<'_>, literal: &Literal) -> PyResult<Py<PyAny>> {
    let text = literal.value();
    let datatype = literal.datatype();
    let integer = [
        xsd::INTEGER,
        xsd::LONG,
        xsd::INT,
        xsd::SHORT,
        xsd::NON_NEGATIVE_INTEGER,
        xsd::POSITIVE_INTEGER,
        xsd::UNSIGNED_LONG,
        xsd::UNSIGNED_INT,
    ];
    if integer.contains(&datatype) {
        if let Ok(value) = text.parse::<i64>() {
            return Ok(value.into_pyobject(py)?.into_any().unbind());
        }
        return Ok(py.get_type::<pyo3::types::PyInt>().call1((text,))?.unbind());
    }
    if [xsd::DECIMAL, xsd::DOUBLE, xsd::FLOAT].contains(&datatype)
        && let Ok(value) = text.parse::<f64>()
    {
        return Ok(value.into_pyobject(py)?.into_any().unbind());
    }
    if datatype == xsd::BOOLEAN {
        return Ok(matches!(text, "true" | "1")
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind());
    }
    Ok(text.into_pyobject(py)?.into_any().unbind())
}

/// A term as `(kind, value, datatype, language)`, the parts of a pyoxigraph term.
fn parts(py: Python<'_>, term: &Term) -> PyResult<Py<PyAny>> {
    let tuple = match term {
        Term::NamedNode(node) => ("iri", node.as_str().to_owned(), None, None),
        Term::BlankNode(node) => ("blank", node.as_str().to_owned(), None, None),
        Term::Literal(literal) => (
            "literal",
            literal.value().to_owned(),
            Some(literal.datatype().as_str().to_owned()),
            literal.language().map(str::to_owned),
        ),
        #[allow(unreachable_patterns)]
        other => ("literal", other.to_string(), None, None),
    };
    Ok(tuple.into_pyobject(py)?.into_any().unbind())
}

/// The rows of an answer, each a dict of its bound variables (unbound ones left out).
pub fn rows(py: Python<'_>, rows: Vec<Vec<(String, Term)>>, terms: bool) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for row in rows {
        let dict = PyDict::new(py);
        for (name, term) in &row {
            let value = if terms {
                parts(py, term)?
            } else {
                plain(py, term)?
            };
            dict.set_item(name, value)?;
        }
        list.append(dict)?;
    }
    Ok(list.unbind())
}

/// What a query gave, read whole while Python is free: rows, a boolean, or triples.
pub enum Answer {
    Rows(Vec<Vec<(String, Term)>>),
    Boolean(bool),
    Graph(Vec<[Term; 3]>),
}

pub fn read_answer(results: QueryResults<'static>) -> Result<Answer, String> {
    match results {
        QueryResults::Solutions(solutions) => read_rows(solutions).map(Answer::Rows),
        QueryResults::Boolean(value) => Ok(Answer::Boolean(value)),
        QueryResults::Graph(triples) => triples
            .map(|triple| {
                triple
                    .map(|t| [t.subject.into(), t.predicate.into(), t.object])
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<_, _>>()
            .map(Answer::Graph),
    }
}

fn read_rows(solutions: QuerySolutionIter<'static>) -> Result<Vec<Vec<(String, Term)>>, String> {
    solutions
        .map(|solution| {
            let solution = solution.map_err(|e| e.to_string())?;
            Ok(solution
                .iter()
                .map(|(variable, term)| (variable.as_str().to_owned(), term.clone()))
                .collect())
        })
        .collect()
}

/// An answer as Python: rows as a list of dicts, ASK as a bool, CONSTRUCT as a list of
/// (subject, predicate, object) tuples.
pub fn answer_to_python(py: Python<'_>, answer: Answer, terms: bool) -> PyResult<Py<PyAny>> {
    match answer {
        Answer::Rows(found) => Ok(rows(py, found, terms)?.into_any()),
        Answer::Boolean(value) => Ok(value.into_pyobject(py)?.to_owned().into_any().unbind()),
        Answer::Graph(triples) => {
            let list = PyList::empty(py);
            for triple in &triples {
                let convert = |term: &Term| {
                    if terms {
                        parts(py, term)
                    } else {
                        plain(py, term)
                    }
                };
                list.append((
                    convert(&triple[0])?,
                    convert(&triple[1])?,
                    convert(&triple[2])?,
                ))?;
            }
            Ok(list.into_any().unbind())
        }
    }
}
