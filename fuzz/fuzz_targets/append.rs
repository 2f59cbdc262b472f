//! `append` with any bytes as the turn, to a stored session: nothing may panic, a
//! refused turn changes nothing, and an accepted one leaves a session that reads back
//! as a valid document with one more turn.
#![no_main]

use ihigraph::CheckOptions;
use ihigraph::HistoryStore;
use ihigraph::StoreError;
use ihigraph::check_document;
use ihigraph::rdf::map_history;
use ihigraph::read::parse_json;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const SESSION: &str = include_str!("../../examples/histories/code-review-abc.json");

fuzz_target!(|data: &[u8]| {
    let Ok(turn) = parse_json(data) else {
        return;
    };
    let store = HistoryStore::in_memory(&Default::default()).expect("an in-memory store");
    let mut document: Value = serde_json::from_str(SESSION).expect("the example parses");
    document["Turns"].as_array_mut().expect("turns").truncate(2);
    document["TurnCount"] = Value::from(2);
    let history = check_document(&document, CheckOptions::default())
        .history
        .expect("valid");
    store
        .write_session(&map_history(&history, store.scheme()))
        .expect("stored");
    let before = serde_json::to_value(store.history("abc").expect("stored")).expect("json");
    for lenient in [false, true] {
        match ihigraph::append_turn(&store, "abc", &turn, None, CheckOptions { lenient }) {
            Ok(outcome) => {
                let after =
                    serde_json::to_value(store.history("abc").expect("readable")).expect("json");
                assert_eq!(
                    after["Turns"].as_array().map(Vec::len),
                    Some(outcome.turn_count)
                );
                assert!(
                    check_document(&after, CheckOptions { lenient })
                        .errors()
                        .next()
                        .is_none()
                );
                return;
            }
            Err(ihigraph::IngestError::Refused { .. }) => {
                let after =
                    serde_json::to_value(store.history("abc").expect("readable")).expect("json");
                assert_eq!(after, before, "a refused turn changed the session");
            }
            Err(other) => panic!("append failed: {other}"),
        }
    }
});
