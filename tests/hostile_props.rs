//! Properties over hostile strings and values: any `SessionID`, tool name or text gives
//! valid IRIs and literals, the canned queries find exactly that session and that
//! tool, and mapping never panics on any JSON in the payload positions.
#![allow(clippy::unwrap_used)]

mod common;

use ihigraph::Arguments;
use ihigraph::CheckOptions;
use ihigraph::HistoryStore;
use ihigraph::StoreError;
use ihigraph::check_document;
use ihigraph::query::RECENT_TURNS;
use ihigraph::query::TOOL_USAGE;
use ihigraph::query::{SEARCH, SEARCH_SCAN};
use ihigraph::rdf::map_history;
use oxigraph::model::{NamedNode, Term};
use oxigraph::sparql::QueryResults;
use proptest::prelude::*;
use serde_json::{Value, json};

/// The code-review example as session `id`, its first answer calling tool `tool`
/// (OpenAI chat shape) and saying `text`.
fn document(id: &str, tool: &str, text: &str) -> Value {
    let mut document = common::example("code-review-abc.json");
    document["SessionID"] = json!(id);
    document["Turns"][0]["BKNResponse"] = json!({
        "choices": [{"message": {"role": "assistant", "content": text, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{\"a\":1}"}}
        ]}}]
    });
    document
}

fn count(
    store: &HistoryStore,
    query: &ihigraph::CannedQuery,
    arguments: &Arguments,
) -> Vec<String> {
    let QueryResults::Solutions(rows) = store.run(query, arguments).unwrap() else {
        unreachable!()
    };
    let variable = rows.variables()[0].clone();
    rows.map(|row| match row.unwrap().get(&variable) {
        Some(Term::Literal(literal)) => literal.value().to_owned(),
        other => format!("{other:?}"),
    })
    .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn any_id_tool_and_text_are_found_exactly(id in any::<String>(), tool in any::<String>(), text in "\\PC{1,40}") {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        // A second session whose id extends the first: a pasted value would match both.
        let other_id = format!("{id}\"x");
        for (session, tool) in [(&id, &tool), (&other_id, &format!("{tool}x"))] {
            let checked = check_document(&document(session, tool, &text), CheckOptions::default());
            let session = map_history(&checked.history.unwrap(), store.scheme());
            for quad in &session.quads {
                // Every IRI is valid (the store re-checks them as it parses N-Quads).
                for term in [Term::from(quad.subject.clone()), quad.object.clone()] {
                    if let Term::NamedNode(node) = term {
                        prop_assert!(NamedNode::new(node.as_str()).is_ok(), "{}", node);
                    }
                }
            }
            store.write_session(&session).unwrap();
        }
        let turns = count(&store, &RECENT_TURNS, &Arguments::new().text("session", id.as_str()));
        prop_assert_eq!(turns, vec!["3", "2", "1", "0"]);
        let calls = count(&store, &TOOL_USAGE, &Arguments::new().text("tool", tool.as_str()));
        prop_assert_eq!(calls, vec![id.clone()]);
        let search = Arguments::new().text("text", text.as_str()).text("session", id.as_str());
        // The text scan finds the text as written, in that session alone.
        let found = count(&store, &SEARCH_SCAN, &search);
        prop_assert!(found.iter().all(|session| *session == id) && !found.is_empty());
        // The full-text index reads it as a search: rows of that session alone, or a
        // search it cannot read refused as such.
        match store.run(&SEARCH, &search) {
            Ok(QueryResults::Solutions(rows)) => {
                for row in rows {
                    let row = row.unwrap();
                    prop_assert!(
                        matches!(row.get("session"), Some(Term::Literal(found)) if found.value() == id),
                        "{:?}", row
                    );
                }
            }
            Ok(_) => prop_assert!(false, "search is a SELECT query"),
            Err(error) => prop_assert!(matches!(error, StoreError::SearchQuery { .. }), "{:?}", error),
        }
        // What the store holds serialises and parses back.
        let mut nquads = Vec::new();
        store.export(&mut nquads, ihigraph::ExportFormat::NQuads, None).unwrap();
        let parsed = oxigraph::io::RdfParser::from_format(oxigraph::io::RdfFormat::NQuads)
            .for_slice(&nquads)
            .count();
        prop_assert_eq!(parsed, store.quad_count().unwrap());
    }

    #[test]
    fn mapping_never_panics_on_any_payload(
        prompt in json_value(),
        response in json_value(),
        state in json_value(),
        instruction in json_value(),
    ) {
        let mut document = common::example("code-review-abc.json");
        let turn = &mut document["Turns"][1];
        turn["PRCPrompt"] = prompt;
        turn["BKNResponse"] = response;
        turn["UserEntityState"] = state;
        turn["AUCInstruction"] = instruction;
        let checked = check_document(&document, CheckOptions::default());
        if let Some(history) = checked.history {
            let session = map_history(&history, &Default::default());
            prop_assert!(!session.quads.is_empty());
        } else {
            // Refused only for a payload that is not an object.
            prop_assert!(checked.errors().all(|problem| problem.pointer.starts_with("/Turns/1/")));
        }
    }
}

/// Any JSON, biased towards the shapes the text and tool rules look into.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "-?(0|[1-9][0-9]{0,29})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,4})?"
            .prop_map(|text| serde_json::from_str(&text).unwrap()),
        any::<String>().prop_map(Value::String),
    ];
    let keys = prop_oneof![
        Just("text".to_owned()),
        Just("content".to_owned()),
        Just("messages".to_owned()),
        Just("choices".to_owned()),
        Just("message".to_owned()),
        Just("tool_calls".to_owned()),
        Just("function".to_owned()),
        Just("name".to_owned()),
        Just("arguments".to_owned()),
        Just("type".to_owned()),
        Just("tool_use".to_owned()),
        Just("input".to_owned()),
        Just("functionCall".to_owned()),
        Just("functionResponse".to_owned()),
        Just("parts".to_owned()),
        Just("toolCalls".to_owned()),
        Just("function_calls".to_owned()),
        Just("output".to_owned()),
        Just("call_id".to_owned()),
        Just("tool_call_id".to_owned()),
        Just("role".to_owned()),
        Just("id".to_owned()),
        Just("tool_use_id".to_owned()),
        Just("is_error".to_owned()),
        any::<String>(),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}
