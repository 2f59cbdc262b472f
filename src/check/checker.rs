//! The checker: walks a JSON value member by member, keeping the JSON Pointer of where
//! it is, and reports every rule broken there.

use super::{CheckOptions, MAX_DESCRIPTIVE_METADATA_CHARS, Problem, Rule, Severity};
use crate::model::{JsonDecimal, TimeFlags};
use serde_json::{Map, Value};

const DOCUMENT_MEMBERS: &[&str] = &[
    "Header",
    "MInstanceID",
    "UEnvironmentID",
    "SessionID",
    "SessionStartTime",
    "TurnCount",
    "Turns",
    "DataXMData",
    "DescrMetadata",
];
const DOCUMENT_REQUIRED: &[&str] = &[
    "Header",
    "MInstanceID",
    "UEnvironmentID",
    "SessionID",
    "SessionStartTime",
    "TurnCount",
    "Turns",
    "DataXMData",
];
const TURN_MEMBERS: &[&str] = &[
    "TurnIndex",
    "Timestamp",
    "Role",
    "PRCPrompt",
    "BKNResponse",
    "UserEntityState",
    "AUCInstruction",
];
const TURN_REQUIRED: &[&str] = &["TurnIndex", "Timestamp", "Role", "PRCPrompt", "BKNResponse"];
const SIMPLE_TIME_MEMBERS: &[&str] = &[
    "Header",
    "MInstanceID",
    "UEnvironmentID",
    "SimpleTimeID",
    "SimpleTimeData",
    "DescrMetadata",
];
const SIMPLE_TIME_REQUIRED: &[&str] = &["Header", "SimpleTimeID", "SimpleTimeData"];
const SEGMENT_MEMBERS: &[&str] = &[
    "FlagsByte",
    "StartTime",
    "EndTime",
    "AccuracyMode",
    "AccuracyPlusMinus",
    "AccuracyStartPlusMinus",
    "AccuracyEndPlusMinus",
    "TimeType",
    "TimeUnit",
    "Reserved",
];
const SEGMENT_REQUIRED: &[&str] = &["FlagsByte", "StartTime", "EndTime"];
const DEM_MEMBERS: &[&str] = &[
    "Header",
    "MInstanceID",
    "DataExchangeMetadataID",
    "DataExchangeMetadataTime",
    "DataID",
    "DataType",
    "Source",
    "Authorisations",
    "Legality",
    "Security",
    "Confidence",
    "Annotations",
    "DescrMetadata",
];
const DEM_REQUIRED: &[&str] = &["Header", "DataID", "Source"];
const ANNOTATION_MEMBERS: &[&str] = &[
    "Annotation",
    "AnnotationSpace",
    "AnnotationTime",
    "AnnotationRights",
];
const ROLES: &[&str] = &["A-User", "H-User", "BKN"];
const TIME_UNITS: &[&str] = &["00", "01", "10", "11"];
const ACCURACY_MODES: &[&str] = &["single", "separate"];

/// One alternative of a DEM `oneOf` whose branches are single-member objects:
/// the member's name and whether its value must match the MPAI type pattern.
type Branch = (&'static str, bool);
const PROCESS_INSTANCE: &[Branch] = &[("AIMID", false), ("ImplementerAIMID", false)];
const AIM_INSTANCE: &[Branch] = &[
    ("AIMType", true),
    ("AIMID", false),
    ("ImplementerAIMID", false),
];
const DATA_ITEM: &[Branch] = &[("DataType", true), ("DataID", false)];

pub(super) struct Checker {
    /// The pointer of the value being checked; segments are pushed and popped.
    pointer: String,
    pub(super) problems: Vec<Problem>,
    options: CheckOptions,
}

impl Checker {
    pub(super) fn new(options: CheckOptions) -> Self {
        Self {
            pointer: String::new(),
            problems: Vec::new(),
            options,
        }
    }

    fn report(&mut self, rule: Rule, message: String) {
        let severity = if rule.is_semantic() && self.options.lenient {
            Severity::Warning
        } else {
            Severity::Error
        };
        self.problems.push(Problem {
            pointer: self.pointer.clone(),
            rule,
            severity,
            message,
        });
    }

    /// Runs `check` with the pointer extended by one segment.
    fn at<T>(&mut self, segment: &str, check: impl FnOnce(&mut Self) -> T) -> T {
        let length = self.pointer.len();
        self.pointer.push('/');
        self.pointer
            .push_str(&segment.replace('~', "~0").replace('/', "~1"));
        let result = check(self);
        self.pointer.truncate(length);
        result
    }

    fn at_index<T>(&mut self, index: usize, check: impl FnOnce(&mut Self) -> T) -> T {
        self.at(&index.to_string(), check)
    }

    // --- Generic JSON Schema keywords -------------------------------------------------

    fn object<'v>(&mut self, value: &'v Value) -> Option<&'v Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.report(
                Rule::Type,
                format!("expected an object, found {}", describe(value)),
            );
        }
        object
    }

    /// `required` and `additionalProperties: false`.
    fn members(&mut self, object: &Map<String, Value>, allowed: &[&str], required: &[&str]) {
        for name in required {
            if !object.contains_key(*name) {
                self.at(name, |c| {
                    c.report(
                        Rule::Required,
                        format!("required member {name:?} is missing"),
                    );
                });
            }
        }
        for name in object.keys() {
            if !allowed.contains(&name.as_str()) {
                self.at(name, |c| {
                    c.report(
                        Rule::AdditionalProperties,
                        format!(
                            "member {name:?} is not allowed here; expected one of {}",
                            list(allowed)
                        ),
                    );
                });
            }
        }
    }

    fn string<'v>(&mut self, value: &'v Value) -> Option<&'v str> {
        let text = value.as_str();
        if text.is_none() {
            self.report(
                Rule::Type,
                format!("expected a string, found {}", describe(value)),
            );
        }
        text
    }

    fn descriptive_metadata(&mut self, value: &Value) {
        if let Some(text) = self.string(value) {
            let length = text.chars().count();
            if length > MAX_DESCRIPTIVE_METADATA_CHARS {
                self.report(
                    Rule::MaxLength,
                    format!(
                        "expected at most {MAX_DESCRIPTIVE_METADATA_CHARS} characters, found {length}"
                    ),
                );
            }
        }
    }

    fn number(&mut self, value: &Value) -> Option<JsonDecimal> {
        let decimal = match value {
            Value::Number(number) => JsonDecimal::parse(number.as_str()),
            _ => None,
        };
        if decimal.is_none() {
            self.report(
                Rule::Type,
                format!("expected a number, found {}", describe(value)),
            );
        }
        decimal
    }

    fn integer(&mut self, value: &Value) -> Option<JsonDecimal> {
        let decimal = match value {
            Value::Number(number) => {
                JsonDecimal::parse(number.as_str()).filter(JsonDecimal::is_integer)
            }
            _ => None,
        };
        if decimal.is_none() {
            self.report(
                Rule::Type,
                format!("expected an integer, found {}", describe(value)),
            );
        }
        decimal
    }

    fn bounded(&mut self, value: &JsonDecimal, minimum: Option<i64>, maximum: Option<i64>) {
        if let Some(minimum) = minimum
            && *value < JsonDecimal::from_i64(minimum)
        {
            self.report(
                Rule::Minimum,
                format!("expected at least {minimum}, found {}", decimal_text(value)),
            );
        }
        if let Some(maximum) = maximum
            && *value > JsonDecimal::from_i64(maximum)
        {
            self.report(
                Rule::Maximum,
                format!("expected at most {maximum}, found {}", decimal_text(value)),
            );
        }
    }

    fn one_of_strings(&mut self, value: &Value, allowed: &[&str]) {
        if !value.as_str().is_some_and(|text| allowed.contains(&text)) {
            self.report(
                Rule::Enum,
                format!(
                    "expected one of {}, found {}",
                    list(allowed),
                    describe(value)
                ),
            );
        }
    }

    fn constant(&mut self, value: &Value, expected: &str) {
        if value.as_str() != Some(expected) {
            self.report(
                Rule::Const,
                format!("expected {expected:?}, found {}", describe(value)),
            );
        }
    }

    fn array<'v>(&mut self, value: &'v Value, min_items: usize) -> Option<&'v Vec<Value>> {
        let Some(items) = value.as_array() else {
            self.report(
                Rule::Type,
                format!("expected an array, found {}", describe(value)),
            );
            return None;
        };
        if items.len() < min_items {
            self.report(
                Rule::MinItems,
                format!(
                    "expected at least {min_items} item(s), found {}",
                    items.len()
                ),
            );
        }
        Some(items)
    }

    // --- PGM-IHI ----------------------------------------------------------------------

    pub(super) fn interaction_history(&mut self, value: &Value) {
        let Some(document) = self.object(value) else {
            return;
        };
        self.members(document, DOCUMENT_MEMBERS, DOCUMENT_REQUIRED);
        if let Some(header) = document.get("Header") {
            self.at("Header", |c| {
                if let Some(text) = c.string(header)
                    && !is_ihi_header(text)
                {
                    c.report(
                        Rule::Pattern,
                        format!("expected a header matching ^PGM-IHI-V[0-9]{{1,2}}[.][0-9]{{1,2}}$ such as \"PGM-IHI-V1.0\", found {}", describe(header)),
                    );
                }
            });
        }
        for name in ["MInstanceID", "UEnvironmentID", "SessionID"] {
            if let Some(member) = document.get(name) {
                self.at(name, |c| c.string(member));
            }
        }
        if let Some(start) = document.get("SessionStartTime") {
            self.at("SessionStartTime", |c| c.simple_time(start));
        }
        let turn_count = document
            .get("TurnCount")
            .and_then(|count| self.at("TurnCount", |c| c.non_negative_integer(count)));
        let turns = document
            .get("Turns")
            .and_then(|turns| self.at("Turns", |c| c.array(turns, 0)));
        if let Some(turns) = turns {
            self.at("Turns", |c| {
                for (position, turn) in turns.iter().enumerate() {
                    c.turn_at(turn, position);
                }
            });
            if let Some(count) = turn_count
                && count != JsonDecimal::from_i64(i64::try_from(turns.len()).unwrap_or(i64::MAX))
            {
                self.at("TurnCount", |c| {
                    c.report(
                        Rule::TurnCount,
                        format!(
                            "expected the number of turns, {}, found {}",
                            turns.len(),
                            decimal_text(&count)
                        ),
                    );
                });
            }
        }
        if let Some(metadata) = document.get("DataXMData") {
            self.at("DataXMData", |c| c.data_exchange_metadata(metadata));
        }
        if let Some(description) = document.get("DescrMetadata") {
            self.at("DescrMetadata", |c| c.descriptive_metadata(description));
        }
    }

    fn non_negative_integer(&mut self, value: &Value) -> Option<JsonDecimal> {
        let integer = self.integer(value)?;
        self.bounded(&integer, Some(0), None);
        (!integer.is_negative()).then_some(integer)
    }

    /// A turn as the item `/Turns/{position}`, with the pointer at `/Turns`.
    fn turn_at(&mut self, value: &Value, position: usize) {
        self.at_index(position, |c| c.turn_members(value, position));
    }

    /// A turn on its own: the pointer names it as `/Turns/{position}`.
    pub(super) fn turn(&mut self, value: &Value, position: usize) {
        self.at("Turns", |c| c.turn_at(value, position));
    }

    fn turn_members(&mut self, value: &Value, position: usize) {
        let Some(turn) = self.object(value) else {
            return;
        };
        self.members(turn, TURN_MEMBERS, TURN_REQUIRED);
        if let Some(index) = turn.get("TurnIndex") {
            self.at("TurnIndex", |c| {
                if let Some(index) = c.non_negative_integer(index)
                    && index != JsonDecimal::from_i64(i64::try_from(position).unwrap_or(i64::MAX))
                {
                    c.report(
                        Rule::TurnIndex,
                        format!(
                            "expected {position}, the turn's position in Turns (indexes are unique and run from 0), found {}",
                            decimal_text(&index)
                        ),
                    );
                }
            });
        }
        if let Some(timestamp) = turn.get("Timestamp") {
            self.at("Timestamp", |c| c.simple_time(timestamp));
        }
        if let Some(role) = turn.get("Role") {
            self.at("Role", |c| c.one_of_strings(role, ROLES));
        }
        for name in [
            "PRCPrompt",
            "BKNResponse",
            "UserEntityState",
            "AUCInstruction",
        ] {
            if let Some(payload) = turn.get(name) {
                self.at(name, |c| c.object(payload));
            }
        }
    }

    // --- OSD V1.5 Simple Time ---------------------------------------------------------

    fn simple_time(&mut self, value: &Value) {
        let Some(time) = self.object(value) else {
            return;
        };
        self.members(time, SIMPLE_TIME_MEMBERS, SIMPLE_TIME_REQUIRED);
        if let Some(header) = time.get("Header") {
            self.at("Header", |c| c.constant(header, "OSD-STM-V1.5"));
        }
        for name in ["MInstanceID", "UEnvironmentID", "SimpleTimeID"] {
            if let Some(member) = time.get(name) {
                self.at(name, |c| c.string(member));
            }
        }
        if let Some(description) = time.get("DescrMetadata") {
            self.at("DescrMetadata", |c| c.descriptive_metadata(description));
        }
        if let Some(data) = time.get("SimpleTimeData") {
            self.at("SimpleTimeData", |c| {
                if let Some(segments) = c.array(data, 0) {
                    for (index, segment) in segments.iter().enumerate() {
                        c.at_index(index, |c| c.time_segment(segment));
                    }
                }
            });
        }
    }

    fn time_segment(&mut self, value: &Value) {
        let Some(segment) = self.object(value) else {
            return;
        };
        self.members(segment, SEGMENT_MEMBERS, SEGMENT_REQUIRED);
        let flags_byte = segment.get("FlagsByte").and_then(|flags| {
            self.at("FlagsByte", |c| {
                let byte = c.integer(flags)?;
                c.bounded(&byte, Some(0), Some(255));
                byte.to_u64().and_then(|b| u8::try_from(b).ok())
            })
        });
        for name in ["StartTime", "EndTime"] {
            if let Some(time) = segment.get(name) {
                self.at(name, |c| c.number(time));
            }
        }
        self.accuracy(segment);
        self.time_flags(segment, flags_byte);
    }

    /// The tolerances of a segment, and which of them its `AccuracyMode` requires.
    fn accuracy(&mut self, segment: &Map<String, Value>) {
        for name in [
            "AccuracyPlusMinus",
            "AccuracyStartPlusMinus",
            "AccuracyEndPlusMinus",
        ] {
            if let Some(accuracy) = segment.get(name) {
                self.at(name, |c| {
                    if let Some(accuracy) = c.number(accuracy) {
                        c.bounded(&accuracy, Some(0), None);
                    }
                });
            }
        }
        let mode = segment.get("AccuracyMode");
        if let Some(mode) = mode {
            self.at("AccuracyMode", |c| c.one_of_strings(mode, ACCURACY_MODES));
        }
        // The schema's allOf/if: an absent AccuracyMode satisfies both ifs vacuously,
        // so all three tolerances are then required.
        let mode = mode.map(|m| m.as_str());
        let mut conditionally_required = Vec::new();
        if matches!(mode, None | Some(Some("single"))) {
            conditionally_required.push("AccuracyPlusMinus");
        }
        if matches!(mode, None | Some(Some("separate"))) {
            conditionally_required.extend(["AccuracyStartPlusMinus", "AccuracyEndPlusMinus"]);
        }
        for name in conditionally_required {
            if !segment.contains_key(name) {
                let why = match mode {
                    None => "AccuracyMode is absent".to_owned(),
                    Some(mode) => format!("AccuracyMode is {:?}", mode.unwrap_or_default()),
                };
                self.at(name, |c| {
                    c.report(
                        Rule::Required,
                        format!("required member {name:?} is missing ({why})"),
                    );
                });
            }
        }
    }

    /// `TimeType`, `TimeUnit` and `Reserved`, each agreeing with `FlagsByte`.
    fn time_flags(&mut self, segment: &Map<String, Value>, flags_byte: Option<u8>) {
        let time_type = segment.get("TimeType").and_then(|time_type| {
            self.at("TimeType", |c| {
                let flag = time_type.as_bool();
                if flag.is_none() {
                    c.report(
                        Rule::Type,
                        format!("expected a boolean, found {}", describe(time_type)),
                    );
                }
                flag
            })
        });
        let time_unit = segment.get("TimeUnit").and_then(|unit| {
            self.at("TimeUnit", |c| {
                c.one_of_strings(unit, TIME_UNITS);
                unit.as_str().filter(|u| TIME_UNITS.contains(u))
            })
        });
        let reserved = segment.get("Reserved").and_then(|reserved| {
            self.at("Reserved", |c| {
                let bits = c.integer(reserved)?;
                c.bounded(&bits, Some(0), Some(31));
                bits.to_u64().filter(|b| *b <= 31)
            })
        });
        if let Some(byte) = flags_byte {
            let flags = TimeFlags::from_byte(byte);
            if let Some(time_type) = time_type
                && time_type != flags.absolute
            {
                self.at("TimeType", |c| {
                    c.report(
                        Rule::TimeFlags,
                        format!(
                            "expected {}, bit 0 of FlagsByte {byte}, found {time_type}",
                            flags.absolute
                        ),
                    );
                });
            }
            if let Some(unit) = time_unit
                && unit != flags.unit.code()
            {
                self.at("TimeUnit", |c| {
                    c.report(
                        Rule::TimeFlags,
                        format!(
                            "expected {:?}, bits 1-2 of FlagsByte {byte}, found {unit:?}",
                            flags.unit.code()
                        ),
                    );
                });
            }
            if let Some(reserved) = reserved
                && reserved != u64::from(flags.reserved)
            {
                self.at("Reserved", |c| {
                    c.report(
                        Rule::TimeFlags,
                        format!(
                            "expected {}, bits 3-7 of FlagsByte {byte}, found {reserved}",
                            flags.reserved
                        ),
                    );
                });
            }
        }
    }

    // --- PTF V1.0 Data Exchange Metadata ----------------------------------------------

    fn data_exchange_metadata(&mut self, value: &Value) {
        let Some(metadata) = self.object(value) else {
            return;
        };
        self.members(metadata, DEM_MEMBERS, DEM_REQUIRED);
        if let Some(header) = metadata.get("Header") {
            self.at("Header", |c| c.constant(header, "PTF-DEM-V1.0"));
        }
        for name in ["MInstanceID", "DataExchangeMetadataID", "DataID"] {
            if let Some(member) = metadata.get(name) {
                self.at(name, |c| c.string(member));
            }
        }
        if let Some(time) = metadata.get("DataExchangeMetadataTime") {
            self.at("DataExchangeMetadataTime", |c| c.simple_time(time));
        }
        if let Some(data_type) = metadata.get("DataType") {
            self.at("DataType", |c| c.mpai_type(data_type));
        }
        if let Some(source) = metadata.get("Source") {
            self.at("Source", |c| {
                c.single_member_items(source, PROCESS_INSTANCE);
            });
        }
        if let Some(authorisations) = metadata.get("Authorisations") {
            self.at("Authorisations", |c| c.authorisations(authorisations));
        }
        for name in ["Legality", "Security"] {
            if let Some(member) = metadata.get(name) {
                self.at(name, |c| c.foreign_object(member));
            }
        }
        if let Some(confidence) = metadata.get("Confidence") {
            self.at("Confidence", |c| {
                if let Some(confidence) = c.number(confidence) {
                    c.bounded(&confidence, Some(0), Some(1));
                }
            });
        }
        if let Some(annotations) = metadata.get("Annotations") {
            self.at("Annotations", |c| c.annotations(annotations));
        }
        if let Some(description) = metadata.get("DescrMetadata") {
            self.at("DescrMetadata", |c| c.descriptive_metadata(description));
        }
    }

    /// `#/$defs/Pattern`: an MPAI data or AIM type such as `PGM-IHI-V1.0`.
    fn mpai_type(&mut self, value: &Value) {
        if let Some(text) = self.string(value)
            && !is_mpai_type(text)
        {
            self.report(
                Rule::Pattern,
                format!(
                    "expected an MPAI type matching ^[A-Z]{{3}}-[A-Z]{{3}}-V[0-9]{{1,2}}\\.[0-9]{{1,2}}$, found {}",
                    describe(value)
                ),
            );
        }
    }

    /// The DEM's `ProcessInstance`, `AIMInstance` and `Data`: a non-empty array whose
    /// items match exactly one branch, each branch an object with exactly one member.
    fn single_member_items(&mut self, value: &Value, branches: &[Branch]) {
        let Some(items) = self.array(value, 1) else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            self.at_index(index, |c| c.single_member_item(item, branches));
        }
    }

    fn single_member_item(&mut self, item: &Value, branches: &[Branch]) {
        let names: Vec<&str> = branches.iter().map(|(name, _)| *name).collect();
        let matched = item.as_object().and_then(|object| {
            let (name, member) = object.iter().next().filter(|_| object.len() == 1)?;
            let (_, typed) = branches.iter().find(|(branch, _)| branch == name)?;
            Some((name.as_str(), member, *typed))
        });
        let Some((name, member, typed)) = matched else {
            self.report(
                Rule::OneOf,
                format!(
                    "expected an object with exactly one member, one of {}, found {}",
                    list(&names),
                    describe(item)
                ),
            );
            return;
        };
        self.at(name, |c| {
            if typed {
                c.mpai_type(member);
            } else {
                c.string(member);
            }
        });
    }

    fn authorisations(&mut self, value: &Value) {
        let Some(items) = self.array(value, 0) else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            self.at_index(index, |c| {
                let branch = item.as_object().and_then(|object| {
                    let has = |name: &str| object.contains_key(name);
                    (object.len() == 2 && has("Data"))
                        .then(|| {
                            if has("AIMInstance") {
                                Some(("AIMInstance", AIM_INSTANCE))
                            } else if has("ProcessInstance") {
                                Some(("ProcessInstance", PROCESS_INSTANCE))
                            } else {
                                None
                            }
                        })
                        .flatten()
                        .map(|branch| (object, branch))
                });
                let Some((object, (instance, instance_branches))) = branch else {
                    c.report(
                        Rule::OneOf,
                        format!(
                            "expected an object with exactly the members \"Data\" and one of \"AIMInstance\", \"ProcessInstance\", found {}",
                            describe(item)
                        ),
                    );
                    return;
                };
                if let Some(member) = object.get(instance) {
                    c.at(instance, |c| c.single_member_items(member, instance_branches));
                }
                if let Some(data) = object.get("Data") {
                    c.at("Data", |c| c.single_member_items(data, DATA_ITEM));
                }
            });
        }
    }

    fn annotations(&mut self, value: &Value) {
        let Some(items) = self.array(value, 1) else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            self.at_index(index, |c| {
                let Some(annotation) = c.object(item) else {
                    return;
                };
                c.members(annotation, ANNOTATION_MEMBERS, &["Annotation"]);
                for name in ["Annotation", "AnnotationSpace", "AnnotationRights"] {
                    if let Some(member) = annotation.get(name) {
                        c.at(name, |c| c.foreign_object(member));
                    }
                }
                if let Some(time) = annotation.get("AnnotationTime") {
                    c.at("AnnotationTime", |c| c.simple_time(time));
                }
            });
        }
    }

    /// A value defined by an MPAI schema whose published copy is broken: checked for
    /// shape only, an object whose `Header`, if present, is a string.
    fn foreign_object(&mut self, value: &Value) {
        if let Some(object) = self.object(value)
            && let Some(header) = object.get("Header")
        {
            self.at("Header", |c| c.string(header));
        }
    }
}

/// `^PGM-IHI-V[0-9]{1,2}[.][0-9]{1,2}$`.
fn is_ihi_header(text: &str) -> bool {
    text.strip_prefix("PGM-IHI-V").is_some_and(is_version)
}

/// `^[A-Z]{3}-[A-Z]{3}-V[0-9]{1,2}\.[0-9]{1,2}$`.
fn is_mpai_type(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 11
        && bytes[..3].iter().all(u8::is_ascii_uppercase)
        && bytes[3] == b'-'
        && bytes[4..7].iter().all(u8::is_ascii_uppercase)
        && text[7..].starts_with("-V")
        && is_version(&text[9..])
}

/// `[0-9]{1,2}[.][0-9]{1,2}` and nothing else.
fn is_version(text: &str) -> bool {
    let digits =
        |part: &str| (1..=2).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit());
    text.split_once('.')
        .is_some_and(|(major, minor)| digits(major) && digits(minor))
}

fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("{name:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn decimal_text(value: &JsonDecimal) -> String {
    value
        .to_decimal_text()
        .unwrap_or_else(|| "a number too long to print".to_owned())
}

/// A short description of a value for messages: its JSON for scalars (long strings cut),
/// its kind and size for containers.
pub(crate) fn describe(value: &Value) -> String {
    const MAX_CHARS: usize = 60;
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => {
            let text = number.as_str();
            if text.len() > MAX_CHARS {
                format!("a number of {} characters", text.len())
            } else {
                text.to_owned()
            }
        }
        Value::String(text) => {
            if text.chars().count() > MAX_CHARS {
                let cut: String = text.chars().take(MAX_CHARS).collect();
                format!(
                    "{cut:?}... (a string of {} characters)",
                    text.chars().count()
                )
            } else {
                format!("{text:?}")
            }
        }
        Value::Array(items) => format!("an array of {} item(s)", items.len()),
        Value::Object(members) => format!("an object with {} member(s)", members.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    #[test_case("PGM-IHI-V1.0", true)]
    #[test_case("PGM-IHI-V12.34", true)]
    #[test_case("PGM-IHI-V123.0", false)]
    #[test_case("PGM-IHI-V1", false)]
    #[test_case("PGM-IHI-V1.0 ", false)]
    #[test_case("pgm-ihi-v1.0", false)]
    #[test_case("PGM-IHI-V1,0", false)]
    fn header_pattern(text: &str, expected: bool) {
        assert_eq!(is_ihi_header(text), expected);
    }

    #[test_case("PGM-IHI-V1.0", true)]
    #[test_case("OSD-STM-V1.5", true)]
    #[test_case("MMM4-DAT-V1.0", false)]
    #[test_case("PGM-IHI-1.0", false)]
    #[test_case("PGM-IHİ-V1.0", false; "non-ascii letter")]
    fn mpai_type_pattern(text: &str, expected: bool) {
        assert_eq!(is_mpai_type(text), expected);
    }

    #[test]
    fn pointers_escape_tilde_and_slash() {
        let value = serde_json::json!({"a/b~c": 1});
        let mut checker = Checker {
            pointer: String::new(),
            problems: Vec::new(),
            options: CheckOptions::default(),
        };
        let object = value.as_object().expect("literal object");
        checker.members(object, &[], &[]);
        assert_eq!(checker.problems[0].pointer, "/a~1b~0c");
    }
}
