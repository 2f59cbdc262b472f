//! `queries`, `query` and `sessions`: the canned queries, listed and run.

use super::shape;
use crate::cli::{QueryArgs, ResultsFormat};
use crate::output::{print_results, write_text_table};
use crate::status::Status;
use anyhow::Result;
use ihigraph::query::{CANNED_QUERIES, SESSIONS};
use ihigraph::{Arguments, CannedQuery, HistoryStore};
use std::io::{self, BufWriter, Write};

/// Lists the canned queries, or prints one's SPARQL.
pub fn list(name: Option<&str>) -> Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    if let Some(name) = name {
        out.write_all(CannedQuery::named(name)?.sparql.as_bytes())?;
        out.flush()?;
        return Ok(Status::Success);
    }
    let rows = CANNED_QUERIES.iter().map(|query| {
        let parameters = query
            .parameters
            .iter()
            .map(|parameter| {
                let mut text = format!("{}: {}", parameter.name, parameter.kind.expected());
                if parameter.required {
                    text.push_str(", required");
                }
                if let Some(default) = parameter.default {
                    text.push_str(&format!(", default {default}"));
                }
                text
            })
            .collect::<Vec<_>>()
            .join("\n");
        vec![query.name.to_owned(), query.summary.to_owned(), parameters]
    });
    write_text_table(&["query", "one row per", "parameters"], rows, &mut out)?;
    writeln!(
        out,
        "Run one: ihigraph query NAME --param NAME=VALUE ...; print its SPARQL: ihigraph queries NAME"
    )?;
    out.flush()?;
    Ok(Status::Success)
}

/// Runs a canned query with the parameters given.
pub fn run(store: &HistoryStore, args: &QueryArgs) -> Result<Status> {
    let canned = CannedQuery::named(&args.name)?;
    let arguments = args
        .params
        .iter()
        .fold(Arguments::new(), |arguments, (name, value)| {
            arguments.raw(name.as_str(), value.as_str())
        });
    if args.show {
        println!("{}", canned.bind(&arguments, store.scheme())?);
        return Ok(Status::Success);
    }
    let results = if args.inferred {
        store.run_inferred(canned, &arguments)?
    } else {
        store.run(canned, &arguments)?
    };
    print_results(store, results, shape(args.format))
}

/// The stored sessions, by the `sessions` canned query.
pub fn sessions(store: &HistoryStore, format: Option<ResultsFormat>) -> Result<Status> {
    print_results(
        store,
        store.run(&SESSIONS, &Arguments::new())?,
        shape(format),
    )
}
