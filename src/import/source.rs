//! Reading the files of an import: which syntax a file is in (by its content), which
//! format (given, or recognised from the first record), and the conversion itself, so
//! that a file is converted whole or refused whole.
//!
//! A file whose first non-blank line is a JSON value by itself is JSON Lines, read line
//! by line: it is converted twice, once to find errors without keeping anything and once
//! to give its sessions, so memory stays bounded however long the file. Any other file
//! is read whole (up to [`MAX_DOCUMENT_BYTES`]) as JSON, YAML or text.

use super::session::SourceFile;
use super::{Converted, IMPORTERS, ImportError, ImportOptions, Importer, Record, Sessions, Syntax};
use crate::read::{
    InputPath, MAX_DOCUMENT_BYTES, ReadError, is_json_value_line, json_lines, parse_json,
    parse_yaml,
};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// Which importer reads the files.
#[derive(Clone, Copy)]
pub enum Choice {
    /// This one.
    Format(&'static dyn Importer),
    /// The one that recognises each file's first record.
    Auto,
}

/// What an import reports, file by file.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportEvent<'a> {
    /// `--from auto` picked a format for a file.
    Detected {
        /// The file.
        file: &'a str,
        /// The format's name.
        format: &'static str,
    },
    /// A session was converted.
    Session {
        /// The file it comes from.
        file: &'a str,
        /// The session.
        converted: Box<Converted>,
    },
    /// A file was refused whole: none of its sessions is given.
    Refused {
        /// The file.
        file: &'a str,
        /// Where and what.
        error: ImportError,
    },
}

/// Totals of an import.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ImportSummary {
    /// Files read.
    pub files: usize,
    /// Sessions converted.
    pub sessions: usize,
    /// Files refused.
    pub refused: usize,
    /// The sink asked to stop.
    pub stopped: bool,
}

/// The files ihigraph takes from directories when importing.
pub fn is_import_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("json" | "jsonl" | "ndjson" | "yaml" | "yml" | "txt")
    )
}

/// Converts the files of `paths` (files, directories, `-`), telling `sink` what happens;
/// `sink` returns `false` to stop (after the current session).
pub fn import_paths(
    paths: &[PathBuf],
    choice: Choice,
    options: &ImportOptions,
    sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
) -> ImportSummary {
    let mut summary = ImportSummary::default();
    let mut joined = Joined::default();
    for path in crate::read::input_paths(paths, is_import_file) {
        let (name, input, place) = match path {
            InputPath::File(path) => {
                let place = absolute_place(&path);
                (path.display().to_string(), Input::open(&path), place)
            }
            InputPath::Stdin => ("<stdin>".to_owned(), Input::stdin(), None),
            InputPath::Unreadable(path, error) => (path.display().to_string(), Err(error), None),
        };
        let source = Source {
            name: &name,
            path: place.as_deref(),
        };
        import_input(
            source,
            input,
            choice,
            options,
            sink,
            &mut summary,
            Some(&mut joined),
        );
        if summary.stopped {
            break;
        }
    }
    if !summary.stopped {
        joined.convert(options, sink, &mut summary);
    }
    summary
}

/// The files of a format whose records are read together ([`Importer::joins_files`]):
/// OTLP files, where one conversation's spans and log records may sit in several.
#[derive(Default)]
struct Joined {
    importer: Option<&'static dyn Importer>,
    files: Vec<(SourceFile, Vec<Record>)>,
    bytes: u64,
}

/// The most bytes of joined files one import holds in memory.
const MAX_JOINED_BYTES: u64 = 1024 * 1024 * 1024;

impl Joined {
    /// Keeps a file's records (checked alone first, so that a broken file is refused by
    /// its own name and the others still join).
    fn add(
        &mut self,
        importer: &'static dyn Importer,
        file: SourceFile,
        (records, size): (Vec<Record>, u64),
        options: &ImportOptions,
    ) -> Result<(), ImportError> {
        if self.bytes + size > MAX_JOINED_BYTES {
            return Err(ImportError::file(format!(
                "at most {} MiB of {} files in one import, read together in memory; import the rest in another run",
                MAX_JOINED_BYTES >> 20,
                importer.name()
            )));
        }
        held(
            importer,
            &file,
            options,
            Box::new(records.clone().into_iter().map(Ok)),
            false,
        )?;
        self.bytes += size;
        self.importer = Some(importer);
        self.files.push((file, records));
        Ok(())
    }

    /// Converts the files kept, together.
    fn convert(
        self,
        options: &ImportOptions,
        sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
        summary: &mut ImportSummary,
    ) {
        let Some(importer) = self.importer else {
            return;
        };
        let names: Vec<&str> = self
            .files
            .iter()
            .map(|(file, _)| file.name.as_str())
            .collect();
        let name = names.join(" + ");
        let file = match self.files.as_slice() {
            [(only, _)] => only.clone(),
            files => SourceFile {
                name: name.clone(),
                digest: hex::encode(Sha256::digest(
                    files
                        .iter()
                        .map(|(f, _)| f.digest.as_str())
                        .collect::<String>(),
                )),
                path: None,
            },
        };
        let records = self
            .files
            .into_iter()
            .flat_map(|(_, records)| records)
            .map(Ok);
        match held(importer, &file, options, Box::new(records), false) {
            Ok(converted) => {
                for converted in converted {
                    summary.sessions += 1;
                    let go_on = sink(ImportEvent::Session {
                        file: &name,
                        converted: Box::new(converted),
                    });
                    if !go_on {
                        summary.stopped = true;
                        return;
                    }
                }
            }
            Err(error) => {
                summary.refused += 1;
                summary.stopped |= !sink(ImportEvent::Refused { file: &name, error });
            }
        }
    }
}

/// Converts one file's bytes already in memory (a request body, say), named `name` in
/// what is reported, as [`import_paths`] converts a file.
///
/// ```
/// use ihigraph::import::{Choice, ImportEvent, ImportOptions, import_bytes, importer};
/// let chat = br#"[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"}]"#;
/// let mut documents = Vec::new();
/// let summary = import_bytes("body", chat.to_vec(), Choice::Format(importer("openai-chat").unwrap()),
///     &ImportOptions::default().session_id("s1"), &mut |event| {
///         if let ImportEvent::Session { converted, .. } = event {
///             documents.push(converted.document());
///         }
///         true
///     });
/// assert_eq!((summary.sessions, summary.refused), (1, 0));
/// assert_eq!(documents[0]["Turns"][0]["Role"], "H-User");
/// ```
pub fn import_bytes(
    name: &str,
    bytes: Vec<u8>,
    choice: Choice,
    options: &ImportOptions,
    sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
) -> ImportSummary {
    let source = Source { name, path: None };
    import_bytes_of(source, bytes, choice, options, sink)
}

/// Converts `records` already read, as [`import_bytes`] converts the JSON Lines they
/// would be written as, by `importer`, their sessions named as coming from `name`
/// (`digest`: the SHA-256 their metadata gives as their source). A live receiver has
/// the batch it decoded and the spans it kept as values: writing them out only for the
/// importer to read them again was a tenth of its work. The records are converted once,
/// every session held until the last converts: a session the importer gives a line is
/// named by it (`#<line>`) even when it is the only one.
///
/// # Errors
///
/// Where and why the importer refused the records (nothing is converted).
pub fn convert_records(
    importer: &'static dyn Importer,
    name: &str,
    digest: String,
    records: Vec<Record>,
    options: &ImportOptions,
) -> Result<Vec<Converted>, ImportError> {
    let file = SourceFile {
        name: name.to_owned(),
        digest,
        path: None,
    };
    held(
        importer,
        &file,
        options,
        Box::new(records.into_iter().map(Ok)),
        false,
    )
}

/// Converts what has been read of the file at `path` (a file being written, cut at the
/// end of its last complete line, say): as [`import_paths`] converts the file, named by
/// its path, the ids of its sessions derived from that path when they are derived.
pub fn import_file_bytes(
    path: &Path,
    bytes: Vec<u8>,
    choice: Choice,
    options: &ImportOptions,
    sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
) -> ImportSummary {
    let name = path.display().to_string();
    let place = absolute_place(path);
    let source = Source {
        name: &name,
        path: place.as_deref(),
    };
    import_bytes_of(source, bytes, choice, options, sink)
}

/// Converts bytes in memory from `source`, unless they are more than a document may be.
fn import_bytes_of(
    source: Source<'_>,
    bytes: Vec<u8>,
    choice: Choice,
    options: &ImportOptions,
    sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
) -> ImportSummary {
    let mut summary = ImportSummary::default();
    let input = if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        Err(ReadError::TooLarge {
            limit: MAX_DOCUMENT_BYTES,
        })
    } else {
        Ok(Input::Bytes(bytes.into()))
    };
    import_input(source, input, choice, options, sink, &mut summary, None);
    summary
}

/// Where a file is, absolute and with its links resolved when it can be: what a session
/// id derived from its path is derived from.
fn absolute_place(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .ok()
}

/// An input's name as reported, and its absolute path when it is a file.
#[derive(Clone, Copy)]
struct Source<'a> {
    name: &'a str,
    path: Option<&'a Path>,
}

/// Converts one input into the summary's counts.
fn import_input(
    source: Source<'_>,
    input: Result<Input, ReadError>,
    choice: Choice,
    options: &ImportOptions,
    sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
    summary: &mut ImportSummary,
    joined: Option<&mut Joined>,
) {
    summary.files += 1;
    let name = source.name;
    let mut file = FileRun {
        name,
        path: source.path,
        sink: &mut *sink,
        sessions: 0,
        stopped: false,
        joined,
    };
    let outcome = input
        .map_err(read_error)
        .and_then(|input| file.convert(&input, choice, options));
    let (sessions, mut stopped) = (file.sessions, file.stopped);
    summary.sessions += sessions;
    if let Err(error) = outcome
        && !stopped
    {
        summary.refused += 1;
        stopped = !sink(ImportEvent::Refused { file: name, error });
    }
    summary.stopped |= stopped;
}

/// One file being converted, and where its sessions go.
struct FileRun<'a> {
    name: &'a str,
    path: Option<&'a Path>,
    sink: &'a mut dyn FnMut(ImportEvent<'_>) -> bool,
    sessions: usize,
    stopped: bool,
    /// Where files whose format joins them go, when several files are imported.
    joined: Option<&'a mut Joined>,
}

impl FileRun<'_> {
    /// Keeps the file for a joined conversion when its format joins files and others
    /// may come; `false` when it is to be converted alone.
    fn join(
        &mut self,
        importer: &'static dyn Importer,
        bytes: &[u8],
        records: &dyn Fn() -> Records,
        options: &ImportOptions,
    ) -> Result<bool, ImportError> {
        if !importer.joins_files() {
            return Ok(false);
        }
        let Some(joined) = self.joined.as_mut() else {
            return Ok(false);
        };
        let file = SourceFile {
            name: self.name.to_owned(),
            digest: hex::encode(Sha256::digest(bytes)),
            path: self.path.map(Path::to_path_buf),
        };
        let records = records().collect::<Result<Vec<Record>, _>>()?;
        joined.add(importer, file, (records, bytes.len() as u64), options)?;
        Ok(true)
    }

    /// The file as the sessions it holds name it, `digest` the SHA-256 of its bytes.
    fn source_file(&self, digest: String) -> SourceFile {
        SourceFile {
            name: self.name.to_owned(),
            digest,
            path: self.path.map(Path::to_path_buf),
        }
    }

    /// Gives one session to the sink; `false` when it asks to stop.
    fn give(&mut self, converted: Converted) -> bool {
        self.sessions += 1;
        let go_on = (self.sink)(ImportEvent::Session {
            file: self.name,
            converted: Box::new(converted),
        });
        self.stopped |= !go_on;
        go_on
    }

    /// Converts the file by its syntax, or says why it is refused.
    fn convert(
        &mut self,
        input: &Input,
        choice: Choice,
        options: &ImportOptions,
    ) -> Result<(), ImportError> {
        let mut reader = input.reader()?;
        let mut first = Vec::new();
        loop {
            first.clear();
            let read = (&mut reader)
                .take(MAX_DOCUMENT_BYTES + 1)
                .read_until(b'\n', &mut first)
                .map_err(|source| read_error(ReadError::Io { source }))?;
            if read == 0 || !first.iter().all(u8::is_ascii_whitespace) {
                break;
            }
        }
        drop(reader);
        if is_json_value_line(&first) {
            self.convert_lines(input, choice, options)
        } else {
            self.convert_whole(input, choice, options)
        }
    }

    /// A JSON Lines file of up to [`ImportOptions::held_bytes`] is read into memory and converted
    /// once, its sessions given when all converted. A longer one is read twice: the
    /// first pass converts and checks every session and keeps none, so that an error
    /// anywhere refuses the file before any of it is given; the second gives the
    /// sessions as they come, so memory stays bounded however long the file.
    fn convert_lines(
        &mut self,
        input: &Input,
        choice: Choice,
        options: &ImportOptions,
    ) -> Result<(), ImportError> {
        if input.len()? <= options.held_bytes_limit() {
            let bytes = input.read_all()?;
            let file = self.source_file(hex::encode(Sha256::digest(&bytes)));
            let bytes: Arc<[u8]> = bytes.into();
            let name = self.name.to_owned();
            let records = || -> Records {
                Box::new(records_of(
                    &name,
                    Box::new(io::Cursor::new(Arc::clone(&bytes))),
                ))
            };
            let first = first_record(&mut records())?;
            let importer = pick(self.name, &first, choice, self.sink)?;
            if self.join(importer, &bytes, &records, options)? {
                return Ok(());
            }
            return self.convert_held(importer, &file, options, &records);
        }
        let hasher = Rc::new(RefCell::new(Sha256::new()));
        let reader = HashingReader {
            inner: input.reader()?,
            hasher: Rc::clone(&hasher),
        };
        let mut records = records_of(
            self.name,
            Box::new(BufReader::with_capacity(1 << 16, reader)),
        );
        let first = first_record(&mut records)?;
        let importer = pick(self.name, &first, choice, self.sink)?;
        if importer.joins_files() && self.joined.is_some() {
            drop(records);
            let bytes: Arc<[u8]> = input.read_all()?.into();
            let name = self.name.to_owned();
            let records = || -> Records {
                Box::new(records_of(
                    &name,
                    Box::new(io::Cursor::new(Arc::clone(&bytes))),
                ))
            };
            self.join(importer, &bytes, &records, options)?;
            return Ok(());
        }
        let placeholder = self.source_file("0".repeat(64));
        let found = {
            let mut rest = std::iter::once(Ok(first)).chain(records.by_ref());
            let mut discard = |_: Converted| true;
            let mut check = Sessions::new(importer, &placeholder, options, &mut discard);
            importer.convert(&mut rest, &mut check)?;
            // What the importer left unread still counts: a broken line refuses the file,
            // and the digest covers every byte.
            for record in rest {
                record?;
            }
            check.count()
        };
        drop(records);
        let file = self.source_file(hex::encode(hasher.replace(Sha256::new()).finalize()));
        let mut records = records_of(self.name, input.reader()?);
        let mut give = |converted: Converted| self.give(converted);
        let mut sessions = Sessions::new(importer, &file, options, &mut give)
            .sole(found == 1)
            .checked_before();
        importer.convert(&mut records, &mut sessions)
    }

    /// Converts the records `records` gives whole: every session is held until the last
    /// converts, then given. A file of one line-session is converted again knowing it
    /// is the only one, so that its id needs no `#<line>`.
    fn convert_held(
        &mut self,
        importer: &'static dyn Importer,
        file: &SourceFile,
        options: &ImportOptions,
        records: &dyn Fn() -> Records,
    ) -> Result<(), ImportError> {
        let mut converted = held(importer, file, options, records(), false)?;
        if let [only] = converted.as_slice()
            && only.line.is_some()
        {
            converted = held(importer, file, options, records(), true)?;
        }
        for session in converted {
            if !self.give(session) {
                return Err(ImportError::stopped());
            }
        }
        Ok(())
    }

    /// A file read whole: JSON, YAML or text, as one record; its sessions are given once
    /// all converted.
    fn convert_whole(
        &mut self,
        input: &Input,
        choice: Choice,
        options: &ImportOptions,
    ) -> Result<(), ImportError> {
        let bytes = input.read_all()?;
        let file = self.source_file(hex::encode(Sha256::digest(&bytes)));
        let syntax = match choice {
            Choice::Format(importer) => importer.syntax(),
            Choice::Auto => Syntax::Text,
        };
        let record = Record {
            value: whole_value(&bytes, syntax)?,
            line: None,
        };
        let importer = pick(self.name, &record, choice, self.sink)?;
        let records = || -> Records { Box::new(std::iter::once(Ok(record.clone()))) };
        if self.join(importer, &bytes, &records, options)? {
            return Ok(());
        }
        drop(bytes);
        self.convert_held(importer, &file, options, &records)
    }
}

/// A file's bytes: a path to open again for the second pass, or what standard input
/// gave.
enum Input {
    Path(PathBuf),
    Bytes(Arc<[u8]>),
}

impl Input {
    fn open(path: &Path) -> Result<Self, ReadError> {
        File::open(path).map_err(|source| ReadError::Io { source })?;
        Ok(Self::Path(path.to_owned()))
    }

    fn stdin() -> Result<Self, ReadError> {
        Ok(Self::Bytes(read_bounded(io::stdin())?.into()))
    }

    /// The input's length in bytes.
    fn len(&self) -> Result<u64, ImportError> {
        match self {
            Self::Path(path) => std::fs::metadata(path)
                .map(|m| m.len())
                .map_err(|source| read_error(ReadError::Io { source })),
            Self::Bytes(bytes) => Ok(bytes.len() as u64),
        }
    }

    /// The whole input, up to [`MAX_DOCUMENT_BYTES`].
    fn read_all(&self) -> Result<Vec<u8>, ImportError> {
        read_bounded(self.reader()?).map_err(read_error)
    }

    fn reader(&self) -> Result<Box<dyn BufRead>, ImportError> {
        Ok(match self {
            Self::Path(path) => Box::new(BufReader::with_capacity(
                1 << 16,
                File::open(path).map_err(|source| read_error(ReadError::Io { source }))?,
            )),
            Self::Bytes(bytes) => Box::new(io::Cursor::new(Arc::clone(bytes))),
        })
    }
}

/// All of `reader`, refused past [`MAX_DOCUMENT_BYTES`] (one byte more is read to tell).
fn read_bounded(reader: impl Read) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io { source })?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(ReadError::TooLarge {
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    Ok(bytes)
}

fn read_error(error: ReadError) -> ImportError {
    match error {
        ReadError::Syntax {
            line,
            column,
            message,
        } => ImportError {
            place: format!("{line}:{column}"),
            message,
        },
        other => ImportError::file(other.to_string()),
    }
}

/// The first record of a JSON Lines file, or why there is none.
fn first_record(
    records: &mut impl Iterator<Item = Result<Record, ImportError>>,
) -> Result<Record, ImportError> {
    records
        .next()
        .unwrap_or_else(|| Err(ImportError::file("the file is empty; expected a history")))
}

/// Records of a file, as an importer takes them.
type Records = Box<dyn Iterator<Item = Result<Record, ImportError>>>;

/// Converts `records`, holding every session.
fn held(
    importer: &'static dyn Importer,
    file: &SourceFile,
    options: &ImportOptions,
    mut records: Records,
    sole: bool,
) -> Result<Vec<Converted>, ImportError> {
    let mut converted = Vec::new();
    let mut keep = |session: Converted| {
        converted.push(session);
        true
    };
    let mut sessions = Sessions::new(importer, file, options, &mut keep).sole(sole);
    importer.convert(&mut records, &mut sessions)?;
    Ok(converted)
}

/// The value of a whole file: JSON when it starts as JSON does; else YAML or text where
/// the format allows (with `Text`, YAML is tried unless the text is a Harmony rendering).
fn whole_value(bytes: &[u8], syntax: Syntax) -> Result<Value, ImportError> {
    let starts_as_json = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['));
    if starts_as_json || syntax == Syntax::Json {
        return parse_json(bytes).map_err(read_error);
    }
    let text = std::str::from_utf8(bytes).map_err(|error| ImportError {
        place: format!("byte {}", error.valid_up_to()),
        message: "invalid UTF-8; the input must be UTF-8 text".to_owned(),
    })?;
    if text.trim().is_empty() {
        return Err(ImportError::file("the file is empty; expected a history"));
    }
    if syntax == Syntax::Yaml {
        return parse_yaml(text).map_err(read_error);
    }
    // Text: a Harmony rendering as it is; anything else as YAML if it is YAML (for
    // `--from auto`), else as text.
    if text.contains("<|start|>") {
        return Ok(Value::String(text.to_owned()));
    }
    Ok(parse_yaml(text).unwrap_or_else(|_| Value::String(text.to_owned())))
}

/// The importer for a file: the one chosen, or the one that recognises its first
/// record.
fn pick(
    name: &str,
    first: &Record,
    choice: Choice,
    sink: &mut dyn FnMut(ImportEvent<'_>) -> bool,
) -> Result<&'static dyn Importer, ImportError> {
    match choice {
        Choice::Format(importer) => Ok(importer),
        Choice::Auto if is_pgm_ihi(&first.value) => Err(ImportError::file(
            "the file holds PGM-IHI documents already: nothing to convert (ingest or validate it as it is)",
        )),
        Choice::Auto => {
            let found: Vec<&'static dyn Importer> = IMPORTERS
                .iter()
                .copied()
                .filter(|importer| importer.detect(first))
                .collect();
            match found.as_slice() {
                [importer] => {
                    sink(ImportEvent::Detected {
                        file: name,
                        format: importer.name(),
                    });
                    Ok(*importer)
                }
                [] => Err(ImportError::file(
                    "cannot tell the format from the content: no importer recognises it; name one with --from",
                )),
                several => Err(ImportError::file(format!(
                    "cannot tell the format from the content: it could be {}; name one with --from",
                    several
                        .iter()
                        .map(|i| i.name())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ))),
            }
        }
    }
}

/// Whether a value is a PGM-IHI document (its `Header` names PGM-IHI): `--from auto`
/// leaves those to the reader of documents.
pub fn is_pgm_ihi(value: &Value) -> bool {
    value
        .get("Header")
        .and_then(Value::as_str)
        .is_some_and(|header| header.starts_with("PGM-IHI-"))
}

/// Whether the file at `path` holds PGM-IHI documents, judged as `--from auto` judges:
/// from its first record (its first JSON Lines line, or the whole file).
pub fn holds_pgm_ihi(path: &Path) -> bool {
    let input = Input::Path(path.to_owned());
    let Ok(reader) = input.reader() else {
        return false;
    };
    let mut records = records_of("", reader);
    match records.next() {
        Some(Ok(first)) => is_pgm_ihi(&first.value),
        Some(Err(_)) => input
            .read_all()
            .ok()
            .and_then(|bytes| parse_json(&bytes).ok())
            .is_some_and(|value| is_pgm_ihi(&value)),
        None => false,
    }
}

/// The JSON Lines records of a reader.
fn records_of(
    name: &str,
    reader: Box<dyn BufRead>,
) -> impl Iterator<Item = Result<Record, ImportError>> + use<> {
    json_lines(name.to_owned(), reader, MAX_DOCUMENT_BYTES).map(|document| {
        let line = document.origin.line;
        match document.value {
            Ok(value) => Ok(Record { value, line }),
            Err(ReadError::Syntax {
                column, message, ..
            }) => Err(ImportError {
                place: format!("line {}, column {column}", line.unwrap_or(0)),
                message,
            }),
            Err(other) => Err(ImportError {
                place: format!("line {}", line.unwrap_or(0)),
                message: other.to_string(),
            }),
        }
    })
}

/// A reader that hashes what passes through it.
struct HashingReader {
    inner: Box<dyn BufRead>,
    hasher: Rc<RefCell<Sha256>>,
}

impl Read for HashingReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.hasher.borrow_mut().update(&buffer[..read]);
        Ok(read)
    }
}
