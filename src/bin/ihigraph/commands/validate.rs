//! `validate`: the checks of `ingest`, without a store.

use super::{check_options, plural};
use crate::cli::CheckArgs;
use crate::output::print_diagnostics;
use crate::status::Status;
use anyhow::Result;
use ihigraph::check::Severity;
use ihigraph::ingest::prepare_document;
use ihigraph::rdf::IriScheme;
use ihigraph::read_documents;

pub fn run(args: &CheckArgs) -> Result<Status> {
    let options = check_options(args);
    let scheme = IriScheme::default();
    let (mut valid, mut refused, mut warnings) = (0_usize, 0_usize, 0_usize);
    for input in read_documents(&args.paths) {
        let document = prepare_document(input.origin, input.value, options, &scheme);
        print_diagnostics(&document);
        warnings += document
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        if document.is_refused() {
            refused += 1;
        } else {
            valid += 1;
        }
    }
    println!(
        "{valid} valid, {refused} refused, {warnings} warning{}",
        plural(warnings)
    );
    Ok(if refused > 0 {
        Status::Refused
    } else {
        Status::Success
    })
}
