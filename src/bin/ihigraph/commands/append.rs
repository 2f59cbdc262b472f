//! `append`: one turn added to a stored session (`--create` starts one).

use super::plural;
use crate::cli::AppendArgs;
use crate::status::Status;
use crate::status::UsageError;
use anyhow::{Context, Result};
use ihigraph::ingest::{IngestError, NewSession, append_turn};
use ihigraph::read::parse_json;
use ihigraph::{CheckOptions, HistoryStore};
use std::io::{self, Read};

pub fn run(store: &HistoryStore, args: &AppendArgs) -> Result<Status> {
    let from_stdin = args.turn.as_os_str() == "-";
    let bytes = if from_stdin {
        let mut bytes = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        std::fs::read(&args.turn).with_context(|| format!("cannot read {}", args.turn.display()))?
    };
    let origin = if from_stdin {
        "<stdin>".to_owned()
    } else {
        args.turn.display().to_string()
    };
    let turn = match parse_json(&bytes) {
        Ok(turn) => turn,
        Err(error) => {
            eprintln!("{origin}: {error}");
            return Ok(Status::Refused);
        }
    };
    let create = if args.create {
        Some(new_session(args)?)
    } else {
        None
    };
    let options = CheckOptions {
        lenient: args.lenient,
    };
    match append_turn(store, &args.session, &turn, create.as_ref(), options) {
        Ok(outcome) => {
            for warning in &outcome.warnings {
                eprintln!("{origin}: {warning}");
            }
            for warning in &outcome.mapping_warnings {
                eprintln!("{origin}: {warning}");
            }
            println!(
                "{} session {:?}: {} turn{}",
                if outcome.created {
                    "started"
                } else if outcome.completed {
                    "completed the last turn of"
                } else {
                    "appended to"
                },
                args.session,
                outcome.turn_count,
                plural(outcome.turn_count)
            );
            Ok(Status::Success)
        }
        Err(IngestError::Refused { problems }) => {
            for problem in &problems {
                eprintln!("{origin}: {problem}");
            }
            eprintln!("refused: nothing was stored");
            Ok(Status::Refused)
        }
        Err(error) => Err(error.into()),
    }
}

/// The session `append --create` starts, from the options.
fn new_session(args: &AppendArgs) -> Result<NewSession> {
    let missing = |what: &str| UsageError(format!("append --create needs {what}"));
    let metadata = match (&args.metadata, &args.data_id, &args.source_aim) {
        (Some(text), _, _) => {
            let text = match text.strip_prefix('@') {
                Some(path) => {
                    std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?
                }
                None => text.clone(),
            };
            serde_json::from_str(&text)
                .map_err(|error| UsageError(format!("--metadata is not JSON: {error}")))?
        }
        (None, Some(data_id), Some(aim)) => NewSession::minimal_metadata(data_id, aim),
        _ => return Err(missing("--metadata JSON, or --data-id and --source-aim").into()),
    };
    Ok(NewSession {
        m_instance_id: args
            .m_instance
            .clone()
            .ok_or_else(|| missing("--m-instance"))?,
        u_environment_id: args
            .u_environment
            .clone()
            .ok_or_else(|| missing("--u-environment"))?,
        data_exchange_metadata: metadata,
    })
}
