//! Every rule of PGM-IHI V1.0 (schema, Simple Time, Data Exchange Metadata and the
//! semantic rules), each broken on its own in an otherwise valid document: the checker
//! names the rule at the right JSON Pointer, and `ihigraph ingest` refuses the document
//! with that place in its message, exits 1 and leaves the store byte-for-byte as it was.
#![allow(clippy::unwrap_used)]

mod common;

use common::{fixture, ihigraph, mutated, store_dump};
use ihigraph::{CheckOptions, Severity, check_document};
use serde_json::{Value, json};
use test_case::test_case;

const TURN0_SEGMENT: &str = "/Turns/0/Timestamp/SimpleTimeData/0";
const TURN1_SEGMENT: &str = "/Turns/1/Timestamp/SimpleTimeData/0";

fn long_text() -> Value {
    Value::String("é".repeat(2049))
}

/// What breaking one rule looks like: where to change the valid document, and where and
/// which rule the error must name.
struct Case {
    change_at: &'static str,
    new_value: Option<Value>,
    error_at: &'static str,
    rule: &'static str,
}

fn case(
    change_at: &'static str,
    new_value: Option<Value>,
    error_at: &'static str,
    rule: &'static str,
) -> Case {
    Case {
        change_at,
        new_value,
        error_at,
        rule,
    }
}

// Document level.
#[test_case(case("/SessionID", None, "/SessionID", "required"); "document required member")]
#[test_case(case("/Color", Some(json!("red")), "/Color", "additionalProperties"); "document extra member")]
#[test_case(case("/Header", Some(json!("PGM-IHI-1.0")), "/Header", "pattern"); "header pattern")]
#[test_case(case("/Header", Some(json!("PGM-IHI-V100.0")), "/Header", "pattern"); "header version too long")]
#[test_case(case("/Header", Some(json!(1.0)), "/Header", "type"); "header type")]
#[test_case(case("/MInstanceID", Some(json!(7)), "/MInstanceID", "type"); "m-instance type")]
#[test_case(case("/UEnvironmentID", Some(json!(null)), "/UEnvironmentID", "type"); "u-environment type")]
#[test_case(case("/TurnCount", Some(json!(-1)), "/TurnCount", "minimum"); "turn count negative")]
#[test_case(case("/TurnCount", Some(json!(2.5)), "/TurnCount", "type"); "turn count not integer")]
#[test_case(case("/TurnCount", Some(json!("2")), "/TurnCount", "type"); "turn count string")]
#[test_case(case("/Turns", Some(json!({})), "/Turns", "type"); "turns not array")]
#[test_case(case("/DescrMetadata", Some(long_text()), "/DescrMetadata", "maxLength"); "descriptive metadata too long")]
#[test_case(case("/DescrMetadata", Some(json!(["x"])), "/DescrMetadata", "type"); "descriptive metadata type")]
#[test_case(case("", Some(json!([])), "", "type"); "document not an object")]
// Turn level.
#[test_case(case("/Turns/0", Some(json!("turn")), "/Turns/0", "type"); "turn not an object")]
#[test_case(case("/Turns/0/Role", None, "/Turns/0/Role", "required"); "turn required member")]
#[test_case(case("/Turns/1/PRCPrompt", None, "/Turns/1/PRCPrompt", "required"); "turn prompt required")]
#[test_case(case("/Turns/0/Mood", Some(json!("x")), "/Turns/0/Mood", "additionalProperties"); "turn extra member")]
#[test_case(case("/Turns/1/Role", Some(json!("Bot")), "/Turns/1/Role", "enum"); "role enum")]
#[test_case(case("/Turns/1/Role", Some(json!("bkn")), "/Turns/1/Role", "enum"); "role enum is case sensitive")]
#[test_case(case("/Turns/1/TurnIndex", Some(json!(-1)), "/Turns/1/TurnIndex", "minimum"); "turn index negative")]
#[test_case(case("/Turns/1/TurnIndex", Some(json!(1.5)), "/Turns/1/TurnIndex", "type"); "turn index not integer")]
#[test_case(case("/Turns/0/PRCPrompt", Some(json!("hello")), "/Turns/0/PRCPrompt", "type"); "prompt string payload")]
#[test_case(case("/Turns/0/BKNResponse", Some(json!([])), "/Turns/0/BKNResponse", "type"); "response array payload")]
#[test_case(case("/Turns/0/UserEntityState", Some(json!(null)), "/Turns/0/UserEntityState", "type"); "user state null")]
#[test_case(case("/Turns/0/AUCInstruction", Some(json!("go")), "/Turns/0/AUCInstruction", "type"); "instruction string")]
// Simple Time.
#[test_case(case("/SessionStartTime", Some(json!("2026-01-01T00:00:00Z")), "/SessionStartTime", "type"); "simple time as iso string")]
#[test_case(case("/SessionStartTime/Header", Some(json!("OSD-STM-V1.4")), "/SessionStartTime/Header", "const"); "simple time header")]
#[test_case(case("/SessionStartTime/SimpleTimeID", None, "/SessionStartTime/SimpleTimeID", "required"); "simple time required")]
#[test_case(case("/SessionStartTime/Zone", Some(json!("UTC")), "/SessionStartTime/Zone", "additionalProperties"); "simple time extra member")]
#[test_case(case("/SessionStartTime/SimpleTimeData", Some(json!({})), "/SessionStartTime/SimpleTimeData", "type"); "simple time data type")]
#[test_case(case("/SessionStartTime/DescrMetadata", Some(long_text()), "/SessionStartTime/DescrMetadata", "maxLength"); "simple time description")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", Some(json!(256)), "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", "maximum"); "flags byte maximum")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", Some(json!(-1)), "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", "minimum"); "flags byte minimum")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", Some(json!(3.5)), "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", "type"); "flags byte integer")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/StartTime", Some(json!("now")), "/Turns/0/Timestamp/SimpleTimeData/0/StartTime", "type"); "start time number")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/EndTime", None, "/Turns/0/Timestamp/SimpleTimeData/0/EndTime", "required"); "end time required")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/Leap", Some(json!(true)), "/Turns/0/Timestamp/SimpleTimeData/0/Leap", "additionalProperties"); "segment extra member")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", None, "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", "required"); "single accuracy required")]
#[test_case(case("/Turns/1/Timestamp/SimpleTimeData/0/AccuracyEndPlusMinus", None, "/Turns/1/Timestamp/SimpleTimeData/0/AccuracyEndPlusMinus", "required"); "separate accuracy required")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/AccuracyMode", None, "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyStartPlusMinus", "required"); "absent mode requires all accuracies")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/AccuracyMode", Some(json!("both")), "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyMode", "enum"); "accuracy mode enum")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", Some(json!(-0.5)), "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", "minimum"); "accuracy minimum")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/TimeType", Some(json!(1)), "/Turns/0/Timestamp/SimpleTimeData/0/TimeType", "type"); "time type boolean")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", Some(json!("2")), "/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", "enum"); "time unit enum")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/Reserved", Some(json!(32)), "/Turns/0/Timestamp/SimpleTimeData/0/Reserved", "maximum"); "reserved maximum")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0", Some(json!(3)), "/Turns/0/Timestamp/SimpleTimeData/0", "type"); "segment not an object")]
// Data Exchange Metadata.
#[test_case(case("/DataXMData", Some(json!("dem")), "/DataXMData", "type"); "dem not an object")]
#[test_case(case("/DataXMData/DataID", None, "/DataXMData/DataID", "required"); "dem required member")]
#[test_case(case("/DataXMData/Header", Some(json!("PTF-DEM-V1.1")), "/DataXMData/Header", "const"); "dem header")]
#[test_case(case("/DataXMData/Owner", Some(json!("me")), "/DataXMData/Owner", "additionalProperties"); "dem extra member")]
#[test_case(case("/DataXMData/Confidence", Some(json!(1.01)), "/DataXMData/Confidence", "maximum"); "confidence maximum")]
#[test_case(case("/DataXMData/Confidence", Some(json!(-0.1)), "/DataXMData/Confidence", "minimum"); "confidence minimum")]
#[test_case(case("/DataXMData/Confidence", Some(json!("high")), "/DataXMData/Confidence", "type"); "confidence type")]
#[test_case(case("/DataXMData/DataType", Some(json!("pgm-ihi-v1.0")), "/DataXMData/DataType", "pattern"); "data type pattern")]
#[test_case(case("/DataXMData/Source", Some(json!([])), "/DataXMData/Source", "minItems"); "source min items")]
#[test_case(case("/DataXMData/Source/0", Some(json!({"AIMID": "a", "ImplementerAIMID": "b"})), "/DataXMData/Source/0", "oneOf"); "source item two members")]
#[test_case(case("/DataXMData/Source/0", Some(json!({"Name": "a"})), "/DataXMData/Source/0", "oneOf"); "source item unknown member")]
#[test_case(case("/DataXMData/Source/0/AIMID", Some(json!(5)), "/DataXMData/Source/0/AIMID", "type"); "source id type")]
#[test_case(case("/DataXMData/Authorisations", Some(json!({})), "/DataXMData/Authorisations", "type"); "authorisations type")]
#[test_case(case("/DataXMData/Authorisations/0/ProcessInstance", Some(json!([])), "/DataXMData/Authorisations/0", "oneOf"); "authorisation with both instances")]
#[test_case(case("/DataXMData/Authorisations/0/Data", Some(json!([])), "/DataXMData/Authorisations/0/Data", "minItems"); "authorisation data min items")]
#[test_case(case("/DataXMData/Authorisations/0/AIMInstance/0", Some(json!({"AIMType": "PRC"})), "/DataXMData/Authorisations/0/AIMInstance/0/AIMType", "pattern"); "aim type pattern")]
#[test_case(case("/DataXMData/Authorisations/1/Data/0", Some(json!({"DataID": 1})), "/DataXMData/Authorisations/1/Data/0/DataID", "type"); "data id type")]
#[test_case(case("/DataXMData/Annotations", Some(json!([])), "/DataXMData/Annotations", "minItems"); "annotations min items")]
#[test_case(case("/DataXMData/Annotations/0/Annotation", None, "/DataXMData/Annotations/0/Annotation", "required"); "annotation required")]
#[test_case(case("/DataXMData/Annotations/0/Note", Some(json!("x")), "/DataXMData/Annotations/0/Note", "additionalProperties"); "annotation extra member")]
#[test_case(case("/DataXMData/Annotations/0/AnnotationTime/Header", Some(json!("OSD-STM-V2.0")), "/DataXMData/Annotations/0/AnnotationTime/Header", "const"); "annotation time is simple time")]
#[test_case(case("/DataXMData/Legality", Some(json!("EU")), "/DataXMData/Legality", "type"); "legality object")]
#[test_case(case("/DataXMData/Security/Header", Some(json!(1)), "/DataXMData/Security/Header", "type"); "security header string")]
#[test_case(case("/DataXMData/DataExchangeMetadataTime/SimpleTimeData/0/StartTime", None, "/DataXMData/DataExchangeMetadataTime/SimpleTimeData/0/StartTime", "required"); "dem time is simple time")]
#[test_case(case("/DataXMData/DescrMetadata", Some(long_text()), "/DataXMData/DescrMetadata", "maxLength"); "dem description too long")]
// Semantic rules.
#[test_case(case("/TurnCount", Some(json!(3)), "/TurnCount", "turn-count"); "turn count mismatch")]
#[test_case(case("/Turns/1/TurnIndex", Some(json!(0)), "/Turns/1/TurnIndex", "turn-index"); "turn index duplicate")]
#[test_case(case("/Turns/1/TurnIndex", Some(json!(2)), "/Turns/1/TurnIndex", "turn-index"); "turn index gap")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/TimeType", Some(json!(false)), "/Turns/0/Timestamp/SimpleTimeData/0/TimeType", "time-flags"); "time type disagrees")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", Some(json!("00")), "/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", "time-flags"); "time unit disagrees")]
#[test_case(case("/Turns/0/Timestamp/SimpleTimeData/0/Reserved", Some(json!(1)), "/Turns/0/Timestamp/SimpleTimeData/0/Reserved", "time-flags"); "reserved disagrees")]
fn broken_rule_is_refused_where_it_is(case: Case) {
    let valid = fixture("valid/complete.json");
    let broken = mutated(&valid, case.change_at, case.new_value);

    let checked = check_document(&broken, CheckOptions::default());
    assert!(checked.history.is_none(), "accepted: {broken}");
    let found: Vec<_> = checked
        .errors()
        .map(|p| (p.pointer.as_str(), p.rule.name()))
        .collect();
    assert!(
        found.contains(&(case.error_at, case.rule)),
        "expected {} at {:?}, found {found:?}",
        case.rule,
        case.error_at
    );

    // The command line: refused, the place named, the store untouched.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    ihigraph(&store)
        .arg("ingest")
        .arg(common::fixture_path("valid/complete.json"))
        .assert()
        .success();
    let before = store_dump(&store);
    let file = dir.path().join("broken.json");
    std::fs::write(&file, serde_json::to_string_pretty(&broken).unwrap()).unwrap();
    let place = if case.error_at.is_empty() {
        "(document)"
    } else {
        case.error_at
    };
    let expected = format!("{}: {place}: error[{}]", file.display(), case.rule);
    ihigraph(&store)
        .arg("ingest")
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(expected));
    assert_eq!(store_dump(&store), before);
}

#[test_case("/TurnCount", json!(5); "turn count")]
#[test_case("/Turns/1/TurnIndex", json!(7); "turn index")]
#[test_case(TURN0_SEGMENT, json!({"FlagsByte": 3, "StartTime": 1, "EndTime": 1, "AccuracyMode": "single", "AccuracyPlusMinus": 0, "TimeUnit": "11"}); "time flags")]
fn lenient_downgrades_semantic_rules_to_warnings(pointer: &str, value: Value) {
    let broken = mutated(&fixture("valid/complete.json"), pointer, Some(value));
    let strict = check_document(&broken, CheckOptions::default());
    assert!(strict.history.is_none());
    let lenient = check_document(&broken, CheckOptions { lenient: true });
    assert!(lenient.history.is_some());
    assert!(!lenient.problems.is_empty());
    assert!(
        lenient
            .problems
            .iter()
            .all(|p| p.severity == Severity::Warning)
    );
}

#[test]
fn lenient_does_not_excuse_schema_rules() {
    let broken = mutated(
        &fixture("valid/complete.json"),
        "/Turns/1/Role",
        Some(json!("Bot")),
    );
    assert!(
        check_document(&broken, CheckOptions { lenient: true })
            .history
            .is_none()
    );
}

#[test]
fn every_error_of_a_document_is_reported() {
    let valid = fixture("valid/complete.json");
    let broken = mutated(&valid, "/Header", Some(json!("v1")));
    let broken = mutated(&broken, "/Turns/0/Role", Some(json!("Robot")));
    let broken = mutated(
        &broken,
        &format!("{TURN1_SEGMENT}/FlagsByte"),
        Some(json!(999)),
    );
    let broken = mutated(&broken, "/DataXMData/Source", None);
    let checked = check_document(&broken, CheckOptions::default());
    let pointers: Vec<_> = checked.errors().map(|p| p.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/Header",
            "/Turns/0/Role",
            "/Turns/1/Timestamp/SimpleTimeData/0/FlagsByte",
            "/DataXMData/Source"
        ]
    );
}

/// Values JSON Schema accepts that a naive checker would not: integers written with a
/// fraction or an exponent, numbers beyond 64 bits, empty arrays, absent optionals.
#[test_case("/TurnCount", json!(2.0); "turn count as 2.0")]
#[test_case("/Turns/1/TurnIndex", serde_json::from_str::<Value>("1e0").unwrap(); "turn index as 1e0")]
#[test_case("/Turns/1/Timestamp/SimpleTimeData/0/StartTime", serde_json::from_str::<Value>("123456789012345678901234567890").unwrap(); "huge relative time")]
#[test_case("/SessionStartTime/SimpleTimeData", json!([]); "no time segments")]
#[test_case("/Turns", json!([]); "no turns with a count of zero")]
#[test_case("/Header", json!("PGM-IHI-V2.13"); "other version the pattern allows")]
#[test_case("/DescrMetadata", Value::String("é".repeat(2048)); "description of exactly 2048 characters")]
#[test_case("/DataXMData/Confidence", json!(1); "confidence of one")]
fn schema_valid_edge_cases_are_accepted(pointer: &str, value: Value) {
    let mut document = mutated(&fixture("valid/complete.json"), pointer, Some(value));
    if pointer == "/Turns" {
        document = mutated(&document, "/TurnCount", Some(json!(0)));
    }
    let checked = check_document(&document, CheckOptions::default());
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
    assert!(checked.history.is_some());
}
