//! Property: any valid history, of any shape the schema allows, comes back from its
//! graph JSON-equal to what went in (numbers to the last digit, any strings).
#![allow(clippy::unwrap_used)]

use ihigraph::CheckOptions;
use ihigraph::HistoryStore;
use ihigraph::check_document;
use ihigraph::rdf::map_history;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// JSON numbers as text: integers beyond 64 bits, long decimals, exponents, -0.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        "-?[1-9][0-9]{0,40}",
        "-?(0|[1-9][0-9]{0,20})\\.[0-9]{1,30}",
        "-?[1-9](\\.[0-9]{1,10})?[eE][+-]?[0-9]{1,3}",
        Just("-0".to_owned()),
        Just("0.0".to_owned()),
    ]
    .prop_map(|text| serde_json::from_str(&text).unwrap())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::vec((any::<String>(), json_value()), 0..4)
        .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>()))
}

fn simple_time() -> impl Strategy<Value = Value> {
    let segment = (
        0u8..=255,
        number(),
        number(),
        0..3u8,
        prop::option::of(0u8..=1),
    )
        .prop_map(|(flags, start, end, accuracy, time_type)| {
            let mut segment = json!({"FlagsByte": flags, "StartTime": start, "EndTime": end});
            match accuracy {
                0 => {
                    segment["AccuracyMode"] = json!("single");
                    segment["AccuracyPlusMinus"] = json!(1);
                }
                1 => {
                    segment["AccuracyMode"] = json!("separate");
                    segment["AccuracyStartPlusMinus"] = json!(0.5);
                    segment["AccuracyEndPlusMinus"] = json!(2);
                }
                _ => {
                    segment["AccuracyPlusMinus"] = json!(0);
                    segment["AccuracyStartPlusMinus"] = json!(0);
                    segment["AccuracyEndPlusMinus"] = json!(0);
                }
            }
            if let Some(bit) = time_type {
                // TimeType agrees with FlagsByte's bit 0.
                segment["FlagsByte"] = json!((flags & !1) | bit);
                segment["TimeType"] = json!(bit == 1);
            }
            segment
        });
    (
        any::<String>(),
        prop::collection::vec(segment, 0..3),
        prop::option::of("[a-z ]{0,20}"),
    )
        .prop_map(|(id, segments, description)| {
            let mut time =
                json!({"Header": "OSD-STM-V1.5", "SimpleTimeID": id, "SimpleTimeData": segments});
            if let Some(description) = description {
                time["DescrMetadata"] = json!(description);
            }
            time
        })
}

fn turn() -> impl Strategy<Value = (Value, u8)> {
    (
        simple_time(),
        prop_oneof![Just("A-User"), Just("H-User"), Just("BKN")],
        object(),
        object(),
        prop::option::of(object()),
        prop::option::of(object()),
        0..3u8,
    )
        .prop_map(|(timestamp, role, prompt, response, state, instruction, index_form)| {
            let mut turn = json!({"TurnIndex": 0, "Timestamp": timestamp, "Role": role, "PRCPrompt": prompt, "BKNResponse": response});
            if let Some(state) = state {
                turn["UserEntityState"] = state;
            }
            if let Some(instruction) = instruction {
                turn["AUCInstruction"] = instruction;
            }
            (turn, index_form)
        })
}

fn history() -> impl Strategy<Value = Value> {
    (
        (1..=99u8, 0..=99u8),
        any::<String>(),
        any::<String>(),
        any::<String>(),
        simple_time(),
        prop::collection::vec(turn(), 0..5),
        (
            any::<String>(),
            any::<String>(),
            any::<bool>(),
            prop::option::of(0u32..=1000),
        ),
        prop::option::of(any::<String>().prop_map(|s| s.chars().take(2048).collect::<String>())),
    )
        .prop_map(
            |(
                (major, minor),
                m_instance,
                u_environment,
                session,
                start,
                turns,
                (data_id, aim, implementer, confidence),
                description,
            )| {
                let turns: Vec<Value> = turns
                    .into_iter()
                    .enumerate()
                    .map(|(position, (mut turn, form))| {
                        // TurnIndex and TurnCount written as integers, decimals or exponents.
                        turn["TurnIndex"] = integer(position, form);
                        turn
                    })
                    .collect();
                let source = if implementer {
                    json!([{"ImplementerAIMID": aim}])
                } else {
                    json!([{"AIMID": aim}])
                };
                let mut metadata =
                    json!({"Header": "PTF-DEM-V1.0", "DataID": data_id, "Source": source});
                if let Some(confidence) = confidence {
                    metadata["Confidence"] = serde_json::from_str(&format!(
                        "{}.{:03}",
                        confidence / 1000,
                        confidence % 1000
                    ))
                    .unwrap();
                }
                let mut document = json!({
                    "Header": format!("PGM-IHI-V{major}.{minor}"),
                    "MInstanceID": m_instance,
                    "UEnvironmentID": u_environment,
                    "SessionID": session,
                    "SessionStartTime": start,
                    "TurnCount": integer(turns.len(), turns.len() as u8 % 3),
                    "Turns": turns,
                    "DataXMData": metadata,
                });
                if let Some(description) = description {
                    document["DescrMetadata"] = json!(description);
                }
                document
            },
        )
}

fn integer(value: usize, form: u8) -> Value {
    let text = match form {
        0 => value.to_string(),
        1 => format!("{value}.0"),
        _ => format!("{value}e0"),
    };
    serde_json::from_str(&text).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_valid_history_comes_back_json_equal(document in history()) {
        let checked = check_document(&document, CheckOptions::default());
        let errors: Vec<String> = checked.errors().map(ToString::to_string).collect();
        prop_assert!(errors.is_empty(), "the generator made an invalid document: {errors:?}");
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let session = map_history(&checked.history.unwrap(), store.scheme());
        store.write_session(&session).unwrap();
        let id = document["SessionID"].as_str().unwrap();
        let back = serde_json::to_value(store.history(id).unwrap()).unwrap();
        prop_assert_eq!(back, document);
    }
}
