//! Differential test: the checker and an independent JSON Schema 2020-12 validator,
//! loaded with MPAI's official schemas, agree on thousands of documents made by breaking
//! valid ones in every place and every way.
//!
//! The schemas are MPAI's, not this project's, so they are read from the `shared/`
//! folder that sits beside the repository in development and CI (or from the folder
//! named by `IHIGRAPH_MPAI_SCHEMAS`); without it the test says so and checks nothing.
//! References are resolved as NOTES and docs/formats.md ("Input and checks") say: the IHI schema's
//! `PTF/V1.0/data/SimpleTime.json` means OSD V1.5 Simple Time, and the MPAI schemas
//! whose published copies are broken (Legality, Security, annotation members) stand for
//! objects whose `Header`, if present, is a string.
#![allow(clippy::print_stdout, clippy::print_stderr)] // Where skips and findings are reported.
#![allow(clippy::unwrap_used)]

mod common;

use common::{examples_dir, fixture};
use ihigraph::CheckOptions;
use ihigraph::check_document;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

struct MpaiSchemas {
    simple_time: Value,
    data_exchange_metadata: Value,
}

impl jsonschema::Retrieve for MpaiSchemas {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let shape_only = json!({
            "type": "object",
            "properties": {"Header": {"type": "string"}},
            "$defs": {"Attributes": {"type": "object", "properties": {"Header": {"type": "string"}}}}
        });
        Ok(match uri.as_str() {
            "https://schemas.mpai.community/PTF/V1.0/data/SimpleTime.json"
            | "https://schemas.mpai.community/OSD/V1.5/data/SimpleTime.json" => {
                self.simple_time.clone()
            }
            "https://schemas.mpai.community/PTF/V1.0/data/DataExchangeMetadata.json" => {
                self.data_exchange_metadata.clone()
            }
            _ => shape_only,
        })
    }
}

fn schema_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("IHIGRAPH_MPAI_SCHEMAS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
        PathBuf::from,
    );
    dir.join("seeds/pgm-ihi-v1.0.schema.json")
        .is_file()
        .then_some(dir)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every JSON Pointer in a value, the root included.
fn pointers(value: &Value, prefix: &str, out: &mut Vec<String>) {
    out.push(prefix.to_owned());
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                let escaped = name.replace('~', "~0").replace('/', "~1");
                pointers(member, &format!("{prefix}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointers(item, &format!("{prefix}/{index}"), out);
            }
        }
        _ => {}
    }
}

/// Replacement values that probe every keyword: types, bounds, integers written as
/// decimals, enum neighbours, strings near patterns.
fn replacements() -> Vec<Value> {
    [
        "null",
        "true",
        "false",
        "0",
        "-1",
        "1",
        "1.5",
        "2.0",
        "31",
        "32",
        "255",
        "256",
        "1e2",
        "-0.0",
        "123456789012345678901234567890",
        "\"\"",
        "\"x\"",
        "\"single\"",
        "\"separate\"",
        "\"01\"",
        "\"PGM-IHI-V1.0\"",
        "\"PTF-DEM-V1.0\"",
        "\"OSD-STM-V1.5\"",
        "\"BKN\"",
        "\"PGM-IHI-V1.0x\"",
        "{}",
        "[]",
        "[{}]",
        "{\"AIMID\":\"a\"}",
        "[{\"AIMID\":\"a\"}]",
    ]
    .iter()
    .map(|text| serde_json::from_str(text).unwrap())
    .collect()
}

#[test]
fn checker_agrees_with_the_official_schemas() {
    let Some(dir) = schema_dir() else {
        eprintln!(
            "skipped: MPAI schemas not found beside the repository (set IHIGRAPH_MPAI_SCHEMAS)"
        );
        return;
    };
    let retriever = MpaiSchemas {
        simple_time: read_json(&dir.join("reference/mpai/SimpleTime-OSD-V1.5.schema.json")),
        data_exchange_metadata: read_json(
            &dir.join("reference/mpai/DataExchangeMetadata-PTF-V1.0.schema.json"),
        ),
    };
    let schema = read_json(&dir.join("seeds/pgm-ihi-v1.0.schema.json"));
    let validator = jsonschema::options()
        .with_retriever(retriever)
        .build(&schema)
        .unwrap();

    let mut bases = vec![fixture("valid/complete.json")];
    for name in ["code-review-abc.json", "support-ticket-fr.json"] {
        bases.push(read_json(&examples_dir().join(name)));
    }
    let mut compared = 0;
    let mut disagreements = Vec::new();
    for base in &bases {
        let mut places = Vec::new();
        pointers(base, "", &mut places);
        for place in &places {
            let mut variants: Vec<Option<Value>> = replacements().into_iter().map(Some).collect();
            variants.push(None);
            for variant in variants {
                if place.is_empty() && variant.is_none() {
                    continue;
                }
                let document = common::mutated(base, place, variant.clone());
                let schema_valid = validator.is_valid(&document);
                // Semantic rules are not the schema's: compare with them as warnings.
                let checked = check_document(&document, CheckOptions { lenient: true });
                let ours_valid = checked.errors().next().is_none();
                assert_eq!(ours_valid, checked.history.is_some());
                compared += 1;
                if schema_valid != ours_valid {
                    disagreements.push(format!(
                        "{place} = {variant:?}: schema says {schema_valid}, checker says {ours_valid} {:?}",
                        checked.errors().map(ToString::to_string).collect::<Vec<_>>()
                    ));
                }
            }
            // An extra member in every object.
            if base.pointer(place).is_some_and(Value::is_object) {
                let document = common::mutated(base, &format!("{place}/Zzz"), Some(json!(1)));
                let schema_valid = validator.is_valid(&document);
                let ours_valid = check_document(&document, CheckOptions { lenient: true })
                    .errors()
                    .next()
                    .is_none();
                compared += 1;
                if schema_valid != ours_valid {
                    disagreements.push(format!(
                        "{place}/Zzz added: schema says {schema_valid}, checker says {ours_valid}"
                    ));
                }
            }
        }
    }
    eprintln!("compared {compared} documents with the official schemas");
    assert!(compared > 5000, "{compared}");
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first ones:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
