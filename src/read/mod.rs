//! Reading documents from files, directories, standard input and JSON Lines files,
//! with errors that say where.
//!
//! A `.json` file holds one document; a `.jsonl`/`.ndjson` file one per line (blank lines
//! are skipped); a directory is walked recursively for those three endings, in name
//! order, without following links to directories. Standard input holds either one
//! document or JSON Lines: it is JSON Lines when its first line is a complete JSON value
//! by itself. Documents are read one at a time, so a JSON Lines file of any size streams.

mod yaml;

pub use yaml::parse_yaml;

use serde_json::Value;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The largest document read, in bytes: a `.json` file or a JSON Lines line longer than
/// this is refused after reading this much of it, so that no input, however long its
/// lines, makes ihigraph hold more than this at once (a document's JSON value takes a
/// few times its text in memory).
pub const MAX_DOCUMENT_BYTES: u64 = 256 * 1024 * 1024;

/// The name that stands for standard input among paths.
pub const STDIN_PATH: &str = "-";

/// Where a document comes from: a file (or standard input) and, in JSON Lines, a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The path as given, or `<stdin>`.
    pub name: String,
    /// The line number (from 1) of a JSON Lines document.
    pub line: Option<u64>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A document that could not be read as JSON.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read: {source}")]
    Io {
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The text is not JSON, is not UTF-8, or nests too deep.
    #[error("{line}:{column}: {message}")]
    Syntax {
        /// Line of the error, from 1 (within the JSON Lines line for JSON Lines).
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The path is neither a file nor a directory.
    #[error("not a file or directory")]
    NotAFile,
    /// The document is longer than the limit.
    #[error("document longer than {} MiB, the most ihigraph reads as one document", limit / (1024 * 1024))]
    TooLarge {
        /// The limit, in bytes ([`MAX_DOCUMENT_BYTES`] unless set otherwise).
        limit: u64,
    },
}

impl ReadError {
    fn syntax(error: &serde_json::Error) -> Self {
        let text = error.to_string();
        // serde_json appends " at line L column C"; the position is ours to print.
        let message = text
            .rfind(" at line ")
            .map_or(text.as_str(), |at| &text[..at]);
        let message = if error.is_eof() && error.line() == 1 && error.column() == 0 {
            "the input is empty; expected a JSON document".to_owned()
        } else if message.contains("recursion limit exceeded") {
            "nesting deeper than 128 levels is refused".to_owned()
        } else if message.contains("invalid unicode code point") {
            format!("{message} (input must be UTF-8)")
        } else if message.starts_with("expected value") && error.line() == 1 && error.column() == 1
        {
            "expected a JSON value (is this a JSON file?)".to_owned()
        } else {
            format!("invalid JSON: {message}")
        };
        Self::Syntax {
            line: error.line(),
            // serde_json says column 0 for "before the first character" of a line.
            column: error.column().max(1),
            message,
        }
    }
}

/// One document read from the inputs: where it came from and its JSON, or why not.
#[derive(Debug)]
pub struct InputDocument {
    /// Where it comes from.
    pub origin: Origin,
    /// Its JSON value.
    pub value: Result<Value, ReadError>,
}

/// Reads the documents of the given paths (files, directories, `-`), lazily.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.jsonl"), "{\"x\":1}\n\n{\"x\":2}\n")?;
/// let documents: Vec<_> = ihigraph::read::read_documents(&[dir.path().to_path_buf()]).collect();
/// assert_eq!(documents.len(), 2);
/// assert_eq!(documents[1].origin.line, Some(3));
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn read_documents(paths: &[PathBuf]) -> impl Iterator<Item = InputDocument> {
    read_documents_up_to(paths, MAX_DOCUMENT_BYTES)
}

/// [`read_documents`] with another bound than [`MAX_DOCUMENT_BYTES`] on a document's
/// length in bytes.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.jsonl"), "{\"x\":\"long enough\"}\n{\"x\":2}\n")?;
/// let documents: Vec<_> = ihigraph::read::read_documents_up_to(&[dir.path().to_path_buf()], 10).collect();
/// assert_eq!(documents[0].value.as_ref().unwrap_err().to_string(),
///            "document longer than 0 MiB, the most ihigraph reads as one document");
/// assert_eq!(documents[1].value.as_ref().unwrap()["x"], 2);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn read_documents_up_to(paths: &[PathBuf], limit: u64) -> impl Iterator<Item = InputDocument> {
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, is_document_file, &mut files);
    }
    files
        .into_iter()
        .flat_map(move |source| FileDocuments::open(source, limit))
}

/// A file to read, as found among the paths given.
#[derive(Debug)]
pub enum InputPath {
    /// A file.
    File(PathBuf),
    /// Standard input.
    Stdin,
    /// A path that cannot be read, and why.
    Unreadable(PathBuf, ReadError),
}

/// The files of the given paths (files, directories walked as [`read_documents`] walks
/// them, keeping the files `accept` takes, and `-`), in order.
pub fn input_paths(paths: &[PathBuf], accept: fn(&Path) -> bool) -> Vec<InputPath> {
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, accept, &mut files);
    }
    files
        .into_iter()
        .map(|source| match source {
            Source::File(path) => InputPath::File(path),
            Source::Stdin => InputPath::Stdin,
            Source::Unreadable(path, error) => InputPath::Unreadable(path, error),
        })
        .collect()
}

/// The JSON Lines documents of `reader`, one per non-blank line, each line bounded by
/// `limit` bytes.
pub fn json_lines(
    name: String,
    reader: Box<dyn BufRead>,
    limit: u64,
) -> impl Iterator<Item = InputDocument> {
    FileDocuments::lines(name, reader, limit)
}

/// Whether `line` is one complete JSON value by itself (so that a text starting with it
/// is JSON Lines).
pub fn is_json_value_line(line: &[u8]) -> bool {
    !is_blank(line) && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
}

/// Whether a path names a document file ihigraph reads from directories.
pub fn is_document_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("json" | "jsonl" | "ndjson")
    )
}

fn is_json_lines(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson")
    )
}

/// A path to read, or why it cannot be.
enum Source {
    File(PathBuf),
    Stdin,
    Unreadable(PathBuf, ReadError),
}

fn collect_files(path: &Path, accept: fn(&Path) -> bool, files: &mut Vec<Source>) {
    if path.as_os_str() == STDIN_PATH {
        files.push(Source::Stdin);
        return;
    }
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(source) => {
            files.push(Source::Unreadable(
                path.to_owned(),
                ReadError::Io { source },
            ));
            return;
        }
    };
    if metadata.is_file() {
        files.push(Source::File(path.to_owned()));
    } else if metadata.is_dir() {
        let entries = match std::fs::read_dir(path) {
            Ok(entries) => entries,
            Err(source) => {
                files.push(Source::Unreadable(
                    path.to_owned(),
                    ReadError::Io { source },
                ));
                return;
            }
        };
        let mut children: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        children.sort();
        for child in children {
            // Links to directories are not followed: they can make cycles.
            let Ok(link_metadata) = std::fs::symlink_metadata(&child) else {
                continue;
            };
            if link_metadata.is_dir() {
                collect_files(&child, accept, files);
            } else if accept(&child) && std::fs::metadata(&child).is_ok_and(|m| m.is_file()) {
                files.push(Source::File(child));
            }
        }
    } else {
        files.push(Source::Unreadable(path.to_owned(), ReadError::NotAFile));
    }
}

/// The documents of one file.
enum FileDocuments {
    Single(Option<InputDocument>),
    Lines {
        name: String,
        reader: Box<dyn BufRead>,
        line: u64,
        buffer: Vec<u8>,
        limit: u64,
    },
}

impl FileDocuments {
    fn open(source: Source, limit: u64) -> Self {
        match source {
            Source::Unreadable(path, error) => Self::single(display_name(&path), Err(error)),
            Source::File(path) => {
                let name = display_name(&path);
                match File::open(&path) {
                    Err(source) => Self::single(name, Err(ReadError::Io { source })),
                    Ok(file) => {
                        let reader = BufReader::with_capacity(1 << 16, file);
                        if is_json_lines(&path) {
                            Self::lines(name, Box::new(reader), limit)
                        } else {
                            Self::single(name, parse_reader(reader, limit))
                        }
                    }
                }
            }
            Source::Stdin => Self::stdin(limit),
        }
    }

    fn single(name: String, value: Result<Value, ReadError>) -> Self {
        Self::Single(Some(InputDocument {
            origin: Origin { name, line: None },
            value,
        }))
    }

    fn lines(name: String, reader: Box<dyn BufRead>, limit: u64) -> Self {
        Self::Lines {
            name,
            reader,
            line: 0,
            buffer: Vec::new(),
            limit,
        }
    }

    /// Standard input: JSON Lines when the first line is a JSON value by itself, else
    /// one document.
    fn stdin(limit: u64) -> Self {
        let name = "<stdin>".to_owned();
        let mut reader = BufReader::with_capacity(1 << 16, io::stdin());
        let mut first = Vec::new();
        if let Err(source) = (&mut reader).take(limit).read_until(b'\n', &mut first) {
            return Self::single(name, Err(ReadError::Io { source }));
        }
        let first_is_document = is_json_value_line(&first);
        let replay = io::Cursor::new(first).chain(reader);
        if first_is_document {
            Self::lines(name, Box::new(BufReader::new(replay)), limit)
        } else {
            Self::single(name, parse_reader(replay, limit))
        }
    }
}

impl Iterator for FileDocuments {
    type Item = InputDocument;

    fn next(&mut self) -> Option<InputDocument> {
        match self {
            Self::Single(document) => document.take(),
            Self::Lines {
                name,
                reader,
                line,
                buffer,
                limit,
            } => loop {
                buffer.clear();
                *line += 1;
                let origin = Origin {
                    name: name.clone(),
                    line: Some(*line),
                };
                // One byte more than the limit tells a line that is too long.
                match (&mut *reader)
                    .take(limit.saturating_add(1))
                    .read_until(b'\n', buffer)
                {
                    Ok(0) => return None,
                    Ok(_) if is_blank(buffer) => {}
                    Ok(_) if buffer.last() != Some(&b'\n') && buffer.len() as u64 > *limit => {
                        // Skip the rest of the line without keeping it.
                        let skipped = reader.skip_until(b'\n');
                        if let Err(source) = skipped {
                            *reader = Box::new(io::empty());
                            return Some(InputDocument {
                                origin,
                                value: Err(ReadError::Io { source }),
                            });
                        }
                        *buffer = Vec::new();
                        return Some(InputDocument {
                            origin,
                            value: Err(ReadError::TooLarge { limit: *limit }),
                        });
                    }
                    Ok(_) => {
                        // Without its line end, so that an error at the end of the line
                        // is placed on this line, not the next.
                        let text = buffer.strip_suffix(b"\n").unwrap_or(buffer);
                        let text = text.strip_suffix(b"\r").unwrap_or(text);
                        return Some(InputDocument {
                            origin,
                            value: parse_slice(text),
                        });
                    }
                    Err(source) => {
                        // A read error ends the file: report it once.
                        *reader = Box::new(io::empty());
                        return Some(InputDocument {
                            origin,
                            value: Err(ReadError::Io { source }),
                        });
                    }
                }
            },
        }
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

fn display_name(path: &Path) -> String {
    path.display().to_string()
}

/// Parses one JSON document from bytes.
///
/// ```
/// let error = ihigraph::read::parse_json(b"{\n  \"a\": @\n}").unwrap_err();
/// assert_eq!(error.to_string(), "2:8: invalid JSON: expected value");
/// ```
pub fn parse_json(bytes: &[u8]) -> Result<Value, ReadError> {
    parse_slice(bytes)
}

fn parse_slice(bytes: &[u8]) -> Result<Value, ReadError> {
    check_encoding_mark(bytes)?;
    serde_json::from_slice(bytes).map_err(|e| ReadError::syntax(&e))
}

fn parse_reader(reader: impl Read, limit: u64) -> Result<Value, ReadError> {
    // One byte more than the limit tells a document that is too long.
    let mut reader = reader.take(limit.saturating_add(1));
    let mut head = [0_u8; 4];
    let mut filled = 0;
    while filled < head.len() {
        match reader.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(source) => return Err(ReadError::Io { source }),
        }
    }
    check_encoding_mark(&head[..filled])?;
    let mut reader = BufReader::new(io::Cursor::new(head[..filled].to_vec()).chain(reader));
    let mut deserializer = serde_json::Deserializer::from_reader(&mut reader);
    let value = serde::Deserialize::deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    // Having read one byte more than the limit means the document is too long, whether
    // it ended there (a truncated-looking document) or parsed (its last byte past it).
    if reader.into_inner().into_inner().1.limit() == 0 {
        return Err(ReadError::TooLarge { limit });
    }
    value.map_err(read_error)
}

fn read_error(error: serde_json::Error) -> ReadError {
    if error.is_io() {
        ReadError::Io {
            source: io::Error::from(error),
        }
    } else {
        ReadError::syntax(&error)
    }
}

/// Refuses byte-order marks: JSON texts must not carry one (RFC 8259, section 8.1).
fn check_encoding_mark(bytes: &[u8]) -> Result<(), ReadError> {
    let encoding = if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        Some("a UTF-8 byte-order mark; JSON text must not begin with one (RFC 8259 8.1)")
    } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        Some("a UTF-16 byte-order mark; input must be UTF-8")
    } else if bytes.len() >= 2 && (bytes[0] == 0 || bytes[1] == 0) {
        Some("a NUL byte, as UTF-16 or UTF-32 text would; input must be UTF-8")
    } else {
        None
    };
    match encoding {
        Some(found) => Err(ReadError::Syntax {
            line: 1,
            column: 1,
            message: format!("the input starts with {found}"),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    #[test_case(b"", 1, 1; "empty")]
    #[test_case(b"{\"a\":", 1, 5; "truncated")]
    #[test_case(b"\xEF\xBB\xBF{}", 1, 1; "byte order mark")]
    #[test_case(b"{\"a\":\"\xFF\"}", 1, 7; "invalid utf-8 in a string")]
    #[test_case(b"{}\n{}", 2, 1; "trailing document")]
    #[test_case(b"[1,\n2,\nx]", 3, 1; "third line")]
    fn syntax_errors_say_where(input: &[u8], line: usize, column: usize) {
        match parse_json(input) {
            Err(ReadError::Syntax {
                line: l, column: c, ..
            }) => assert_eq!((l, c), (line, column)),
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn deep_nesting_is_refused_without_overflow() {
        let deep = "[".repeat(100_000);
        let error = parse_json(deep.as_bytes()).expect_err("too deep");
        assert!(
            error.to_string().contains("nesting deeper than 128"),
            "{error}"
        );
        let error = parse_reader(deep.as_bytes(), MAX_DOCUMENT_BYTES).expect_err("too deep");
        assert!(
            error.to_string().contains("nesting deeper than 128"),
            "{error}"
        );
    }

    #[test]
    fn reader_and_slice_agree() {
        for input in [
            &b"{\"a\": [1, 2.50, \"x\"]}"[..],
            b"{\"a\":",
            b"\xEF\xBB\xBF{}",
        ] {
            let slice = parse_slice(input).map_err(|e| e.to_string());
            let reader = parse_reader(input, MAX_DOCUMENT_BYTES).map_err(|e| e.to_string());
            assert_eq!(slice, reader);
        }
    }
}
