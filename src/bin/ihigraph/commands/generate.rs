//! `generate`: a seeded synthetic corpus, as JSON Lines or one file per session.

use crate::cli::GenerateArgs;
use crate::status::Status;
use crate::status::UsageError;
use anyhow::{Context, Result};
use ihigraph::generate::GenerateOptions;
use std::io::{self, BufWriter, Write};

pub fn run(args: &GenerateArgs) -> Result<Status> {
    if args.min_turns > args.max_turns {
        return Err(UsageError(format!(
            "--min-turns {} is more than --max-turns {}",
            args.min_turns, args.max_turns
        ))
        .into());
    }
    let documents = ihigraph::generate::generate(GenerateOptions {
        sessions: args.sessions,
        seed: args.seed,
        min_turns: args.min_turns.into(),
        max_turns: args.max_turns.into(),
    });
    let Some(dir) = &args.dir else {
        let mut out = BufWriter::new(io::stdout().lock());
        for document in documents {
            serde_json::to_writer(&mut out, &document)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        return Ok(Status::Success);
    };
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create directory {}", dir.display()))?;
    for document in documents {
        let id = document["SessionID"].as_str().unwrap_or_default();
        let path = dir.join(format!("{id}.json"));
        let write = || -> io::Result<()> {
            let mut file = BufWriter::new(std::fs::File::create(&path)?);
            serde_json::to_writer_pretty(&mut file, &document)?;
            file.write_all(b"\n")?;
            file.flush()
        };
        write().with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(Status::Success)
}
