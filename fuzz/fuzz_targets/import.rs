//! Converting any bytes with every importer and with `auto`: nothing may panic, and a
//! session that converts passes the checks and maps to quads.
#![no_main]

use ihigraph::CheckOptions;
use ihigraph::check::{Severity, check_document};
use ihigraph::import::{Choice, IMPORTERS, ImportEvent, ImportOptions, import_bytes};
use ihigraph::rdf::{IriScheme, map_history};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let scheme = IriScheme::default();
    let options = ImportOptions::default();
    let choices = IMPORTERS
        .iter()
        .map(|importer| Choice::Format(*importer))
        .chain([Choice::Auto]);
    for choice in choices {
        import_bytes("fuzz", data.to_vec(), choice, &options, &mut |event| {
            if let ImportEvent::Session { converted, .. } = event {
                let checked = check_document(&converted.document(), CheckOptions::default());
                assert!(checked.problems.iter().all(|p| p.severity != Severity::Error));
                let _ = map_history(&converted.history, &scheme);
            }
            true
        });
    }
});
