//! `convert`: histories in another format to PGM-IHI JSON, without a store. One session
//! is written as one indented document; several as JSON Lines, one document per line
//! (the first is held back until a second shows there are several). With `-o`, the
//! output goes to a file beside the target and replaces it only when all is written.

use super::{import_choice, import_options};
use crate::cli::ConvertArgs;
use crate::output::plural;
use crate::status::Status;
use anyhow::{Context, Result};
use ihigraph::InteractionHistory;
use ihigraph::import::{ImportEvent, import_paths};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub fn run(args: &ConvertArgs) -> Result<Status> {
    let choice = import_choice(&args.from)?;
    let options = import_options(&args.import)?;
    let mut out = Output::open(args.output.as_deref())?;
    let mut held: Option<InteractionHistory> = None;
    let mut several = false;
    let mut failure: Option<io::Error> = None;
    let summary = import_paths(&args.inputs, choice, &options, &mut |event| {
        match event {
            ImportEvent::Detected { file, format } => {
                eprintln!("{file}: read as {format} (recognised from its content)");
            }
            ImportEvent::Session { file, converted } => {
                let origin = match converted.line {
                    Some(line) => format!("{file}:{line}"),
                    None => file.to_owned(),
                };
                for note in &converted.notes {
                    eprintln!("{origin}: {note}");
                }
                let written = match held.take() {
                    Some(first) => {
                        several = true;
                        out.line(&first).and_then(|()| out.line(&converted.history))
                    }
                    None if several => out.line(&converted.history),
                    None => {
                        held = Some(converted.history);
                        Ok(())
                    }
                };
                if let Err(error) = written {
                    failure = Some(error);
                }
            }
            ImportEvent::Refused { file, error } => {
                eprintln!(
                    "{file}: {}: error[format]: {} (nothing of this file was converted)",
                    error.place, error.message
                );
            }
            _ => {}
        }
        failure.is_none()
    });
    if let Some(error) = failure {
        return Err(error).context("cannot write the converted documents");
    }
    if let Some(document) = held {
        out.document(&document)
            .context("cannot write the converted document")?;
    }
    let wrote = summary.sessions > 0;
    out.finish(wrote)?;
    eprintln!(
        "converted {} session{} from {} file{}; {} file{} refused",
        summary.sessions,
        plural(summary.sessions),
        summary.files,
        plural(summary.files),
        summary.refused,
        plural(summary.refused),
    );
    Ok(if summary.refused > 0 {
        Status::Refused
    } else {
        Status::Success
    })
}

/// Standard output, or a file written beside its target and moved into place at the end.
struct Output {
    writer: BufWriter<Box<dyn Write>>,
    target: Option<(PathBuf, PathBuf)>,
}

impl Output {
    fn open(target: Option<&Path>) -> Result<Self> {
        let Some(target) = target else {
            return Ok(Self {
                writer: BufWriter::new(Box::new(io::stdout().lock())),
                target: None,
            });
        };
        let mut partial = target.as_os_str().to_owned();
        partial.push(format!(".partial-{}", std::process::id()));
        let partial = PathBuf::from(partial);
        let file = File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        Ok(Self {
            writer: BufWriter::new(Box::new(file)),
            target: Some((partial, target.to_owned())),
        })
    }

    fn line(&mut self, document: &InteractionHistory) -> io::Result<()> {
        serde_json::to_writer(&mut self.writer, document)?;
        self.writer.write_all(b"\n")
    }

    fn document(&mut self, document: &InteractionHistory) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.writer, document)?;
        self.writer.write_all(b"\n")
    }

    /// Flushes; moves a file into place when something was written, else removes it.
    fn finish(mut self, wrote: bool) -> Result<()> {
        self.writer.flush().context("cannot write the output")?;
        if let Some((partial, target)) = self.target.take() {
            if wrote {
                std::fs::rename(&partial, &target)
                    .with_context(|| format!("cannot write {}", target.display()))?;
            } else {
                let _ = std::fs::remove_file(&partial);
            }
        }
        Ok(())
    }
}

impl Drop for Output {
    /// A conversion that failed leaves no partial file behind.
    fn drop(&mut self) {
        if let Some((partial, _)) = self.target.take() {
            let _ = std::fs::remove_file(partial);
        }
    }
}
