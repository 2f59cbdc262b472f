//! Reading, checking and mapping one document, from any bytes: nothing may panic, and
//! a document that is accepted maps to valid quads.
#![no_main]

use ihigraph::CheckOptions;
use ihigraph::rdf::IriScheme;
use ihigraph::read::Origin;
use ihigraph::read::parse_json;
use ihigraph::ingest::prepare_document;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let scheme = IriScheme::default();
    for lenient in [false, true] {
        let origin = Origin {
            name: "fuzz".to_owned(),
            line: None,
        };
        let document =
            prepare_document(origin, parse_json(data), CheckOptions { lenient }, &scheme);
        for diagnostic in &document.diagnostics {
            let _ = diagnostic.located(&document.origin).to_string();
        }
        if let Some(session) = &document.session {
            assert!(
                document
                    .diagnostics
                    .iter()
                    .all(|d| d.severity != ihigraph::check::Severity::Error)
            );
            for quad in &session.quads {
                let _ = quad.to_string();
            }
        }
    }
});
