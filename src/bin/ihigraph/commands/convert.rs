//! `convert`: histories in another format to PGM-IHI JSON, without a store. One session
//! is written as one indented document; several as JSON Lines, one document per line
//! (the first is held back until a second shows there are several). With `-o`, the
//! output goes to a file beside the target and replaces it only when all is written.

use super::{import_choice, import_options};
use crate::cli::ConvertArgs;
use crate::files::NewFile;
use crate::output::plural;
use crate::status::Status;
use anyhow::{Context, Result};
use ihigraph::InteractionHistory;
use ihigraph::import::{ImportEvent, import_paths};
use std::io::{self, BufWriter, Write};
use std::path::Path;

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

/// Standard output, or a file written beside its target and moved into place at the end
/// (a conversion that fails leaves no partial file behind: see [`NewFile`]).
enum Output {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    File(BufWriter<NewFile>),
}

impl Output {
    fn open(target: Option<&Path>) -> Result<Self> {
        Ok(match target {
            None => Self::Stdout(BufWriter::new(io::stdout().lock())),
            Some(target) => Self::File(BufWriter::new(NewFile::create(target)?)),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Self::Stdout(writer) => writer,
            Self::File(writer) => writer,
        }
    }

    fn line(&mut self, document: &InteractionHistory) -> io::Result<()> {
        let writer = self.writer();
        serde_json::to_writer(&mut *writer, document)?;
        writer.write_all(b"\n")
    }

    fn document(&mut self, document: &InteractionHistory) -> io::Result<()> {
        let writer = self.writer();
        serde_json::to_writer_pretty(&mut *writer, document)?;
        writer.write_all(b"\n")
    }

    /// Flushes; moves a file into place when something was written, else removes it.
    fn finish(self, wrote: bool) -> Result<()> {
        match self {
            Self::Stdout(mut writer) => writer.flush().context("cannot write the output"),
            Self::File(writer) => {
                let file = writer
                    .into_inner()
                    .map_err(io::IntoInnerError::into_error)
                    .context("cannot write the output")?;
                if wrote { file.commit() } else { Ok(()) }
            }
        }
    }
}
