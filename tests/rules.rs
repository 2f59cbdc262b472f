//! Every rule of PGM-IHI V1.0 (schema, Simple Time, Data Exchange Metadata and the
//! semantic rules), each broken on its own in an otherwise valid document: the checker
//! names the rule at the right JSON Pointer, and `ihigraph ingest` refuses the document
//! with that place in its message, exits 1 and leaves the store byte-for-byte as it was.
//! Each broken document is a fixture, `tests/fixtures/invalid/rules/NAME.json`, checked
//! to be the valid one with exactly that change (`IHIGRAPH_BLESS=1` rewrites them).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{fixture, ihigraph, mutated, store_dump};
use ihigraph::CheckOptions;
use ihigraph::check::Severity;
use ihigraph::check_document;
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
    /// The fixture, `tests/fixtures/invalid/rules/{fixture}.json`.
    fixture: &'static str,
    change_at: &'static str,
    new_value: Option<Value>,
    error_at: &'static str,
    rule: &'static str,
}

fn case(
    fixture: &'static str,
    change_at: &'static str,
    new_value: Option<Value>,
    error_at: &'static str,
    rule: &'static str,
) -> Case {
    Case {
        fixture,
        change_at,
        new_value,
        error_at,
        rule,
    }
}

// Document level.
#[test_case(case("document-required-member", "/SessionID", None, "/SessionID", "required"); "document required member")]
#[test_case(case("document-extra-member", "/Color", Some(json!("red")), "/Color", "additionalProperties"); "document extra member")]
#[test_case(case("header-pattern", "/Header", Some(json!("PGM-IHI-1.0")), "/Header", "pattern"); "header pattern")]
#[test_case(case("header-version-too-long", "/Header", Some(json!("PGM-IHI-V100.0")), "/Header", "pattern"); "header version too long")]
#[test_case(case("header-type", "/Header", Some(json!(1.0)), "/Header", "type"); "header type")]
#[test_case(case("m-instance-type", "/MInstanceID", Some(json!(7)), "/MInstanceID", "type"); "m-instance type")]
#[test_case(case("u-environment-type", "/UEnvironmentID", Some(json!(null)), "/UEnvironmentID", "type"); "u-environment type")]
#[test_case(case("turn-count-negative", "/TurnCount", Some(json!(-1)), "/TurnCount", "minimum"); "turn count negative")]
#[test_case(case("turn-count-not-integer", "/TurnCount", Some(json!(2.5)), "/TurnCount", "type"); "turn count not integer")]
#[test_case(case("turn-count-string", "/TurnCount", Some(json!("2")), "/TurnCount", "type"); "turn count string")]
#[test_case(case("turns-not-array", "/Turns", Some(json!({})), "/Turns", "type"); "turns not array")]
#[test_case(case("descriptive-metadata-too-long", "/DescrMetadata", Some(long_text()), "/DescrMetadata", "maxLength"); "descriptive metadata too long")]
#[test_case(case("descriptive-metadata-type", "/DescrMetadata", Some(json!(["x"])), "/DescrMetadata", "type"); "descriptive metadata type")]
#[test_case(case("document-not-an-object", "", Some(json!([])), "", "type"); "document not an object")]
// Turn level.
#[test_case(case("turn-not-an-object", "/Turns/0", Some(json!("turn")), "/Turns/0", "type"); "turn not an object")]
#[test_case(case("turn-required-member", "/Turns/0/Role", None, "/Turns/0/Role", "required"); "turn required member")]
#[test_case(case("turn-prompt-required", "/Turns/1/PRCPrompt", None, "/Turns/1/PRCPrompt", "required"); "turn prompt required")]
#[test_case(case("turn-extra-member", "/Turns/0/Mood", Some(json!("x")), "/Turns/0/Mood", "additionalProperties"); "turn extra member")]
#[test_case(case("role-enum", "/Turns/1/Role", Some(json!("Bot")), "/Turns/1/Role", "enum"); "role enum")]
#[test_case(case("role-enum-is-case-sensitive", "/Turns/1/Role", Some(json!("bkn")), "/Turns/1/Role", "enum"); "role enum is case sensitive")]
#[test_case(case("turn-index-negative", "/Turns/1/TurnIndex", Some(json!(-1)), "/Turns/1/TurnIndex", "minimum"); "turn index negative")]
#[test_case(case("turn-index-not-integer", "/Turns/1/TurnIndex", Some(json!(1.5)), "/Turns/1/TurnIndex", "type"); "turn index not integer")]
#[test_case(case("prompt-string-payload", "/Turns/0/PRCPrompt", Some(json!("hello")), "/Turns/0/PRCPrompt", "type"); "prompt string payload")]
#[test_case(case("response-array-payload", "/Turns/0/BKNResponse", Some(json!([])), "/Turns/0/BKNResponse", "type"); "response array payload")]
#[test_case(case("user-state-null", "/Turns/0/UserEntityState", Some(json!(null)), "/Turns/0/UserEntityState", "type"); "user state null")]
#[test_case(case("instruction-string", "/Turns/0/AUCInstruction", Some(json!("go")), "/Turns/0/AUCInstruction", "type"); "instruction string")]
// Simple Time.
#[test_case(case("simple-time-as-iso-string", "/SessionStartTime", Some(json!("2026-01-01T00:00:00Z")), "/SessionStartTime", "type"); "simple time as iso string")]
#[test_case(case("simple-time-header", "/SessionStartTime/Header", Some(json!("OSD-STM-V1.4")), "/SessionStartTime/Header", "const"); "simple time header")]
#[test_case(case("simple-time-required", "/SessionStartTime/SimpleTimeID", None, "/SessionStartTime/SimpleTimeID", "required"); "simple time required")]
#[test_case(case("simple-time-extra-member", "/SessionStartTime/Zone", Some(json!("UTC")), "/SessionStartTime/Zone", "additionalProperties"); "simple time extra member")]
#[test_case(case("simple-time-data-type", "/SessionStartTime/SimpleTimeData", Some(json!({})), "/SessionStartTime/SimpleTimeData", "type"); "simple time data type")]
#[test_case(case("simple-time-description", "/SessionStartTime/DescrMetadata", Some(long_text()), "/SessionStartTime/DescrMetadata", "maxLength"); "simple time description")]
#[test_case(case("flags-byte-maximum", "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", Some(json!(256)), "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", "maximum"); "flags byte maximum")]
#[test_case(case("flags-byte-minimum", "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", Some(json!(-1)), "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", "minimum"); "flags byte minimum")]
#[test_case(case("flags-byte-integer", "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", Some(json!(3.5)), "/Turns/0/Timestamp/SimpleTimeData/0/FlagsByte", "type"); "flags byte integer")]
#[test_case(case("start-time-number", "/Turns/0/Timestamp/SimpleTimeData/0/StartTime", Some(json!("now")), "/Turns/0/Timestamp/SimpleTimeData/0/StartTime", "type"); "start time number")]
#[test_case(case("end-time-required", "/Turns/0/Timestamp/SimpleTimeData/0/EndTime", None, "/Turns/0/Timestamp/SimpleTimeData/0/EndTime", "required"); "end time required")]
#[test_case(case("segment-extra-member", "/Turns/0/Timestamp/SimpleTimeData/0/Leap", Some(json!(true)), "/Turns/0/Timestamp/SimpleTimeData/0/Leap", "additionalProperties"); "segment extra member")]
#[test_case(case("single-accuracy-required", "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", None, "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", "required"); "single accuracy required")]
#[test_case(case("separate-accuracy-required", "/Turns/1/Timestamp/SimpleTimeData/0/AccuracyEndPlusMinus", None, "/Turns/1/Timestamp/SimpleTimeData/0/AccuracyEndPlusMinus", "required"); "separate accuracy required")]
#[test_case(case("absent-mode-requires-all-accuracies", "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyMode", None, "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyStartPlusMinus", "required"); "absent mode requires all accuracies")]
#[test_case(case("accuracy-mode-enum", "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyMode", Some(json!("both")), "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyMode", "enum"); "accuracy mode enum")]
#[test_case(case("accuracy-minimum", "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", Some(json!(-0.5)), "/Turns/0/Timestamp/SimpleTimeData/0/AccuracyPlusMinus", "minimum"); "accuracy minimum")]
#[test_case(case("time-type-boolean", "/Turns/0/Timestamp/SimpleTimeData/0/TimeType", Some(json!(1)), "/Turns/0/Timestamp/SimpleTimeData/0/TimeType", "type"); "time type boolean")]
#[test_case(case("time-unit-enum", "/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", Some(json!("2")), "/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", "enum"); "time unit enum")]
#[test_case(case("reserved-maximum", "/Turns/0/Timestamp/SimpleTimeData/0/Reserved", Some(json!(32)), "/Turns/0/Timestamp/SimpleTimeData/0/Reserved", "maximum"); "reserved maximum")]
#[test_case(case("segment-not-an-object", "/Turns/0/Timestamp/SimpleTimeData/0", Some(json!(3)), "/Turns/0/Timestamp/SimpleTimeData/0", "type"); "segment not an object")]
// Data Exchange Metadata.
#[test_case(case("dem-not-an-object", "/DataXMData", Some(json!("dem")), "/DataXMData", "type"); "dem not an object")]
#[test_case(case("dem-required-member", "/DataXMData/DataID", None, "/DataXMData/DataID", "required"); "dem required member")]
#[test_case(case("dem-header", "/DataXMData/Header", Some(json!("PTF-DEM-V1.1")), "/DataXMData/Header", "const"); "dem header")]
#[test_case(case("dem-extra-member", "/DataXMData/Owner", Some(json!("me")), "/DataXMData/Owner", "additionalProperties"); "dem extra member")]
#[test_case(case("confidence-maximum", "/DataXMData/Confidence", Some(json!(1.01)), "/DataXMData/Confidence", "maximum"); "confidence maximum")]
#[test_case(case("confidence-minimum", "/DataXMData/Confidence", Some(json!(-0.1)), "/DataXMData/Confidence", "minimum"); "confidence minimum")]
#[test_case(case("confidence-type", "/DataXMData/Confidence", Some(json!("high")), "/DataXMData/Confidence", "type"); "confidence type")]
#[test_case(case("data-type-pattern", "/DataXMData/DataType", Some(json!("pgm-ihi-v1.0")), "/DataXMData/DataType", "pattern"); "data type pattern")]
#[test_case(case("source-min-items", "/DataXMData/Source", Some(json!([])), "/DataXMData/Source", "minItems"); "source min items")]
#[test_case(case("source-item-two-members", "/DataXMData/Source/0", Some(json!({"AIMID": "a", "ImplementerAIMID": "b"})), "/DataXMData/Source/0", "oneOf"); "source item two members")]
#[test_case(case("source-item-unknown-member", "/DataXMData/Source/0", Some(json!({"Name": "a"})), "/DataXMData/Source/0", "oneOf"); "source item unknown member")]
#[test_case(case("source-id-type", "/DataXMData/Source/0/AIMID", Some(json!(5)), "/DataXMData/Source/0/AIMID", "type"); "source id type")]
#[test_case(case("authorisations-type", "/DataXMData/Authorisations", Some(json!({})), "/DataXMData/Authorisations", "type"); "authorisations type")]
#[test_case(case("authorisation-with-both-instances", "/DataXMData/Authorisations/0/ProcessInstance", Some(json!([])), "/DataXMData/Authorisations/0", "oneOf"); "authorisation with both instances")]
#[test_case(case("authorisation-data-min-items", "/DataXMData/Authorisations/0/Data", Some(json!([])), "/DataXMData/Authorisations/0/Data", "minItems"); "authorisation data min items")]
#[test_case(case("aim-type-pattern", "/DataXMData/Authorisations/0/AIMInstance/0", Some(json!({"AIMType": "PRC"})), "/DataXMData/Authorisations/0/AIMInstance/0/AIMType", "pattern"); "aim type pattern")]
#[test_case(case("data-id-type", "/DataXMData/Authorisations/1/Data/0", Some(json!({"DataID": 1})), "/DataXMData/Authorisations/1/Data/0/DataID", "type"); "data id type")]
#[test_case(case("annotations-min-items", "/DataXMData/Annotations", Some(json!([])), "/DataXMData/Annotations", "minItems"); "annotations min items")]
#[test_case(case("annotation-required", "/DataXMData/Annotations/0/Annotation", None, "/DataXMData/Annotations/0/Annotation", "required"); "annotation required")]
#[test_case(case("annotation-extra-member", "/DataXMData/Annotations/0/Note", Some(json!("x")), "/DataXMData/Annotations/0/Note", "additionalProperties"); "annotation extra member")]
#[test_case(case("annotation-time-is-simple-time", "/DataXMData/Annotations/0/AnnotationTime/Header", Some(json!("OSD-STM-V2.0")), "/DataXMData/Annotations/0/AnnotationTime/Header", "const"); "annotation time is simple time")]
#[test_case(case("legality-object", "/DataXMData/Legality", Some(json!("EU")), "/DataXMData/Legality", "type"); "legality object")]
#[test_case(case("security-header-string", "/DataXMData/Security/Header", Some(json!(1)), "/DataXMData/Security/Header", "type"); "security header string")]
#[test_case(case("dem-time-is-simple-time", "/DataXMData/DataExchangeMetadataTime/SimpleTimeData/0/StartTime", None, "/DataXMData/DataExchangeMetadataTime/SimpleTimeData/0/StartTime", "required"); "dem time is simple time")]
#[test_case(case("dem-description-too-long", "/DataXMData/DescrMetadata", Some(long_text()), "/DataXMData/DescrMetadata", "maxLength"); "dem description too long")]
// Semantic rules.
#[test_case(case("turn-count-mismatch", "/TurnCount", Some(json!(3)), "/TurnCount", "turn-count"); "turn count mismatch")]
#[test_case(case("turn-index-duplicate", "/Turns/1/TurnIndex", Some(json!(0)), "/Turns/1/TurnIndex", "turn-index"); "turn index duplicate")]
#[test_case(case("turn-index-gap", "/Turns/1/TurnIndex", Some(json!(2)), "/Turns/1/TurnIndex", "turn-index"); "turn index gap")]
#[test_case(case("time-type-disagrees", "/Turns/0/Timestamp/SimpleTimeData/0/TimeType", Some(json!(false)), "/Turns/0/Timestamp/SimpleTimeData/0/TimeType", "time-flags"); "time type disagrees")]
#[test_case(case("time-unit-disagrees", "/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", Some(json!("00")), "/Turns/0/Timestamp/SimpleTimeData/0/TimeUnit", "time-flags"); "time unit disagrees")]
#[test_case(case("reserved-disagrees", "/Turns/0/Timestamp/SimpleTimeData/0/Reserved", Some(json!(1)), "/Turns/0/Timestamp/SimpleTimeData/0/Reserved", "time-flags"); "reserved disagrees")]
fn broken_rule_is_refused_where_it_is(case: Case) {
    let valid = fixture("valid/complete.json");
    let broken = mutated(&valid, case.change_at, case.new_value);
    let file = common::fixture_path(&format!("invalid/rules/{}.json", case.fixture));
    if std::env::var_os("IHIGRAPH_BLESS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, serde_json::to_string_pretty(&broken).unwrap() + "\n").unwrap();
    }
    // The fixture is the valid document with exactly this rule broken.
    let on_disk: Value = serde_json::from_slice(&std::fs::read(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (IHIGRAPH_BLESS=1 cargo test --test rules writes it)",
            file.display()
        )
    }))
    .unwrap();
    assert_eq!(on_disk, broken, "{} is stale", file.display());

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
