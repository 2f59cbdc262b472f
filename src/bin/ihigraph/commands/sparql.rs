//! `sparql`: a query over the union of the session graphs, or an update with `--update`.

use super::shape;
use crate::cli::SparqlArgs;
use crate::output::print_results;
use crate::status::Status;
use crate::status::UsageError;
use anyhow::{Context, Result};
use ihigraph::{HistoryStore, StoreError};

pub fn run(store: &HistoryStore, args: &SparqlArgs) -> Result<Status> {
    let query = match (&args.query, &args.file) {
        (Some(query), _) => query.clone(),
        (None, Some(file)) => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read query file {}", file.display()))?,
        (None, None) => return Err(UsageError("give a query or --file".to_owned()).into()),
    };
    if args.update {
        let before = store.quad_count()?;
        store.update(&query)?;
        println!(
            "updated: {before} → {} quads in session graphs",
            store.quad_count()?
        );
        return Ok(Status::Success);
    }
    let results = if args.inferred {
        store.query_inferred(&query, &Default::default())
    } else {
        store.query(&query)
    };
    let results = results.map_err(|error| match error {
        StoreError::UpdateNotAllowed => anyhow::Error::new(UsageError(
            "this is a SPARQL update: queries are read-only unless --update is given".to_owned(),
        )),
        other => other.into(),
    })?;
    print_results(store, results, shape(args.format))
}
