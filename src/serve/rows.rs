//! Query answers as plain JSON objects, one per row, for readers that are not SPARQL
//! clients: a model calling an MCP tool, the session list. IRIs and text become
//! strings, numbers and booleans JSON numbers and booleans; an unbound variable is left out of its row.

use super::ApiError;
use oxigraph::model::vocab::xsd;
use oxigraph::model::{Literal, Term};
use oxigraph::sparql::QueryResults;
use serde_json::{Map, Value};

/// The rows of a SELECT answer, at most `max_rows` of them: past that, an error that
/// says to narrow the query.
pub(crate) fn json_rows(
    results: QueryResults<'_>,
    max_rows: usize,
) -> Result<Vec<Value>, ApiError> {
    let QueryResults::Solutions(solutions) = results else {
        return Err(ApiError::bad_request("only a SELECT query gives rows"));
    };
    let mut rows = Vec::new();
    for solution in solutions {
        let solution =
            solution.map_err(|error| ApiError::bad_request(super::error::chain(&error)))?;
        if rows.len() == max_rows {
            return Err(ApiError::new(
                axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                format!(
                    "the answer holds more than {max_rows} rows, the most allowed: narrow the query or add a LIMIT"
                ),
            ));
        }
        let mut row = Map::new();
        for (variable, term) in solution.iter() {
            row.insert(variable.as_str().to_owned(), term_json(term));
        }
        rows.push(Value::Object(row));
    }
    Ok(rows)
}

/// A term as plain JSON.
pub(crate) fn term_json(term: &Term) -> Value {
    match term {
        Term::NamedNode(node) => Value::String(node.as_str().to_owned()),
        Term::BlankNode(node) => Value::String(format!("_:{}", node.as_str())),
        Term::Literal(literal) => literal_json(literal),
        #[allow(unreachable_patterns)] // RDF 1.2 triple terms, when the feature is on
        _ => Value::String(term.to_string()),
    }
}

fn literal_json(literal: &Literal) -> Value {
    let text = literal.value();
    let datatype = literal.datatype();
    if datatype == xsd::BOOLEAN {
        return Value::Bool(text == "true" || text == "1");
    }
    let numeric = [
        xsd::INTEGER,
        xsd::LONG,
        xsd::INT,
        xsd::NON_NEGATIVE_INTEGER,
        xsd::DECIMAL,
        xsd::DOUBLE,
    ];
    if numeric.contains(&datatype)
        && let Ok(Value::Number(number)) = serde_json::from_str::<Value>(text)
    {
        return Value::Number(number);
    }
    Value::String(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HistoryStore;

    #[test]
    fn rows_are_plain_json() {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let results = store
            .query(
                r#"SELECT ?n ?b ?s ?i ?u WHERE {
                    VALUES (?n ?b ?s ?i) { (42 true "text" <http://a/b>) }
                }"#,
            )
            .unwrap();
        let rows = json_rows(results, 10).unwrap();
        assert_eq!(
            rows,
            vec![serde_json::json!({"n": 42, "b": true, "s": "text", "i": "http://a/b"})]
        );
        let three = store.query("SELECT ?n { VALUES ?n { 1 2 3 } }").unwrap();
        assert_eq!(json_rows(three, 2).unwrap_err().status.as_u16(), 422);
    }
}
