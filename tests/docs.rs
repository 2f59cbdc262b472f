//! The README and the guides in `docs/` kept true, the way ripgrep and clap keep their
//! docs honest:
//!
//! - every `ihigraph` command in a ```` ```sh ```` block (and every `$ ihigraph` line of a
//!   ```` ```text ```` block) parses with the binary's own clap definition
//!   (`src/bin/ihigraph/cli.rs`, compiled into this test), so a flag or subcommand that
//!   does not exist, a value a flag does not take, or a missing argument fails here;
//! - every ```` ```sh ```` block is run, as bash runs it, in a scratch directory that sees
//!   the repository's `examples/`, `tests/` and `queries/`, on a store the `demo` command
//!   filled (the README's tour starts from there), and must exit 0, unless the line
//!   before it says `<!-- docs-test: not run: REASON -->` (a server, the network, the
//!   reader's own files, a benchmark);
//! - every row of the README's command table names a real subcommand and only its flags,
//!   and every subcommand has a row;
//! - every relative link resolves to a file, and its `#anchor` to a heading there (as
//!   GitHub makes anchors from headings);
//! - every page of `docs/` is compiled by `cargo test --doc` (included in `src/lib.rs`),
//!   so that its Rust examples run.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

#[allow(dead_code, unreachable_pub, missing_docs)]
#[path = "../src/bin/ihigraph/cli.rs"]
mod cli;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One Markdown file: its path from the repository's root, and its text.
struct Page {
    path: PathBuf,
    text: String,
}

/// A fenced code block: its info string, the line of its opening fence, its text (the
/// fence's indentation taken off), and the reason it is not run, if the line before
/// says so.
struct Block {
    info: String,
    line: usize,
    body: String,
    not_run: Option<String>,
}

/// A simple command of a shell script: its words and the line it starts on.
#[derive(Debug, PartialEq)]
struct ShellCommand {
    line: usize,
    words: Vec<String>,
}

const NOT_RUN: &str = "<!-- docs-test: not run:";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, ARCHITECTURE.md and every page of docs/.
fn pages() -> Vec<Page> {
    let mut paths = vec![PathBuf::from("README.md"), PathBuf::from("ARCHITECTURE.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| Path::new("docs").join(path.file_name().unwrap()))
        .collect();
    guides.sort();
    paths.extend(guides);
    paths
        .into_iter()
        .map(|path| Page {
            text: std::fs::read_to_string(root().join(&path)).unwrap(),
            path,
        })
        .collect()
}

/// The fenced code blocks of a Markdown text. Problems with the not-run marker (a
/// marker with no reason, or one that is not right before a fence) are returned beside.
fn blocks(text: &str) -> (Vec<Block>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let (mut blocks, mut problems) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        let trimmed = line.trim_start();
        if trimmed.starts_with("<!-- docs-test") {
            let reason = trimmed
                .strip_prefix(NOT_RUN)
                .and_then(|rest| rest.strip_suffix("-->"))
                .map(str::trim);
            let before_fence = lines.get(at + 1).is_some_and(|next| {
                next.trim_start().starts_with("```sh") && next.trim_start().len() == 5
            });
            if reason.is_none_or(str::is_empty) || !before_fence {
                problems.push(format!(
                    "line {}: write `{NOT_RUN} REASON -->` right before a ```sh fence",
                    at + 1
                ));
            }
        }
        let Some(info) = trimmed.strip_prefix("```") else {
            at += 1;
            continue;
        };
        let indent = line.len() - trimmed.len();
        let not_run = at
            .checked_sub(1)
            .and_then(|before| lines[before].trim().strip_prefix(NOT_RUN))
            .and_then(|rest| rest.strip_suffix("-->"))
            .map(|reason| reason.trim().to_owned());
        let start = at;
        let mut body = String::new();
        at += 1;
        while at < lines.len() && lines[at].trim() != "```" {
            let inner = lines[at];
            body.push_str(inner.get(indent..).unwrap_or_else(|| inner.trim_start()));
            body.push('\n');
            at += 1;
        }
        blocks.push(Block {
            info: info.trim().to_owned(),
            line: start + 1,
            body,
            not_run,
        });
        at += 1;
    }
    (blocks, problems)
}

/// Reads a shell script into its simple commands, as bash splits them: words by blanks,
/// quotes ('...', "...") kept whole across lines, `\` at a line's end continuing it,
/// `$(...)` kept in its word, `#` at a word's start a comment; commands end at a newline,
/// `;`, `&`, `|` (so `&&` and `||` too), and a redirection's target (`> FILE`, `2>&1`,
/// `< FILE`) is not a word of the command.
fn shell_commands(script: &str) -> Vec<ShellCommand> {
    let mut reader = ShellReader::default();
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'\n') => {
                chars.next();
                reader.line += 1;
            }
            '\\' => reader.push(chars.next().unwrap_or('\\')),
            '\'' => {
                reader.push_nothing();
                for c in chars.by_ref().take_while(|&c| c != '\'') {
                    reader.line += usize::from(c == '\n');
                    reader.word.push(c);
                }
            }
            '"' => reader.double_quoted(&mut chars),
            '$' if chars.peek() == Some(&'(') => reader.substitution(&mut chars),
            '#' if !reader.started => while chars.next_if(|&c| c != '\n').is_some() {},
            ' ' | '\t' => reader.end_word(),
            '\n' | ';' | '&' | '|' => {
                reader.end_command();
                if c == '\n' {
                    reader.line += 1;
                }
            }
            '>' | '<' => {
                if reader.word.chars().all(|c| c.is_ascii_digit()) {
                    reader.word.clear();
                    reader.started = false;
                }
                reader.end_word();
                while chars.next_if(|&c| c == '>' || c == '&').is_some() {}
                reader.redirect = true;
            }
            c => reader.push(c),
        }
    }
    reader.end_command();
    reader.commands
}

/// The state of `shell_commands`.
#[derive(Default)]
struct ShellReader {
    commands: Vec<ShellCommand>,
    words: Vec<String>,
    word: String,
    /// Whether a word has begun (an empty quoted word is a word).
    started: bool,
    /// Whether the next word is a redirection's target.
    redirect: bool,
    line: usize,
    start_line: usize,
}

impl ShellReader {
    fn push(&mut self, c: char) {
        if !self.started && self.words.is_empty() {
            self.start_line = self.line;
        }
        self.started = true;
        self.word.push(c);
    }

    fn double_quoted(&mut self, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
        self.push_nothing();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                    self.word.push(chars.next().unwrap());
                }
                '\n' => {
                    self.line += 1;
                    self.word.push(c);
                }
                c => self.word.push(c),
            }
        }
    }

    fn substitution(&mut self, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
        self.push('$');
        let mut depth = 0;
        for c in chars.by_ref() {
            self.word.push(c);
            match c {
                '(' => depth += 1,
                ')' if depth == 1 => break,
                ')' => depth -= 1,
                _ => {}
            }
        }
    }

    fn push_nothing(&mut self) {
        if !self.started && self.words.is_empty() {
            self.start_line = self.line;
        }
        self.started = true;
    }

    fn end_word(&mut self) {
        if self.started {
            let word = std::mem::take(&mut self.word);
            if !std::mem::take(&mut self.redirect) {
                self.words.push(word);
            }
        }
        self.started = false;
    }

    fn end_command(&mut self) {
        self.end_word();
        self.redirect = false;
        if !self.words.is_empty() {
            self.commands.push(ShellCommand {
                line: self.start_line,
                words: std::mem::take(&mut self.words),
            });
        }
    }
}

/// The arguments of a command that runs `ihigraph` (after any `NAME=value` assignments).
fn ihigraph_arguments(words: &[String]) -> Option<&[String]> {
    let is_assignment = |word: &String| {
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let start = words.iter().position(|word| !is_assignment(word))?;
    (words[start] == "ihigraph").then(|| &words[start + 1..])
}

/// Why clap refuses these arguments of `ihigraph`, or None when it takes them.
fn parse_error(arguments: &[String]) -> Option<String> {
    let argv = std::iter::once("ihigraph").chain(arguments.iter().map(String::as_str));
    match cli::Cli::try_parse_from(argv) {
        Ok(_) => None,
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            None
        }
        Err(error) => Some(error.to_string()),
    }
}

/// The `ihigraph` commands of a page's examples, each with its line in the page: those of
/// ```sh blocks, and the `$ ihigraph` lines of ```text and ```console blocks.
fn documented_commands(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    for block in blocks(text).0 {
        let commands = match block.info.as_str() {
            "sh" => shell_commands(&block.body),
            "text" | "console" => block
                .body
                .lines()
                .enumerate()
                .filter_map(|(line, text)| Some((line, text.strip_prefix("$ ")?)))
                .flat_map(|(line, text)| {
                    shell_commands(text)
                        .into_iter()
                        .map(move |command| ShellCommand { line, ..command })
                })
                .collect(),
            _ => continue,
        };
        for command in commands {
            if let Some(arguments) = ihigraph_arguments(&command.words) {
                found.push((block.line + 1 + command.line, arguments.to_vec()));
            }
        }
    }
    found
}

/// Every documented `ihigraph` command of a page that clap refuses, with where and why.
fn command_problems(page: &str, text: &str) -> Vec<String> {
    documented_commands(text)
        .into_iter()
        .filter_map(|(line, arguments)| {
            let error = parse_error(&arguments)?;
            Some(format!(
                "{page}:{line}: `ihigraph {}`: {error}",
                arguments.join(" ")
            ))
        })
        .collect()
}

#[test]
fn every_documented_command_parses() {
    let mut problems = Vec::new();
    let mut count = 0;
    for page in pages() {
        count += documented_commands(&page.text).len();
        problems.extend(command_problems(
            &page.path.display().to_string(),
            &page.text,
        ));
        let (_, marker_problems) = blocks(&page.text);
        problems.extend(
            marker_problems
                .iter()
                .map(|problem| format!("{}: {problem}", page.path.display())),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The README's tour alone has more than twenty; fewer means the reader lost them.
    assert!(
        count > 60,
        "only {count} documented ihigraph commands found"
    );
}

/// The anchors of a Markdown text's headings, as GitHub makes them: lower case, letters,
/// digits, `-` and `_` kept, spaces made `-`, everything else dropped; a repeated one
/// gets `-1`, `-2`...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = line.trim_start_matches('#');
        if fenced || heading.len() == line.len() || !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let count = seen.entry(slug.clone()).or_default();
        anchors.insert(if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    anchors
}

/// A Markdown text without its fenced blocks and code spans, where links are not links.
/// A code span opens with a run of backticks and closes at the next run as long.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut kept = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            kept.push_str(line);
        }
        kept.push('\n');
    }
    let mut prose = String::new();
    let mut rest = kept.as_str();
    while let Some(at) = rest.find('`') {
        prose.push_str(&rest[..at]);
        let run = rest[at..].len() - rest[at..].trim_start_matches('`').len();
        let after = &rest[at + run..];
        let close = after.char_indices().map(|(end, _)| end).find(|&end| {
            after[end..].starts_with(&rest[at..at + run])
                && !after[end + run..].starts_with('`')
                && (end == 0 || !after[..end].ends_with('`'))
        });
        rest = match close {
            Some(end) => &after[end + run..],
            None => after,
        };
    }
    prose.push_str(rest);
    prose
}

/// The targets of a Markdown text's links and images (`[label](target)`).
fn link_targets(text: &str) -> Vec<String> {
    prose(text)
        .split("](")
        .skip(1)
        .filter_map(|after| after.split_once(')'))
        .map(|(target, _)| target.trim().to_owned())
        .collect()
}

/// Every relative link of a page that leads nowhere: a missing file, or an anchor that
/// is no heading of its page.
fn link_problems(page: &Path, text: &str) -> Vec<String> {
    let dir = page.parent().unwrap_or(Path::new(""));
    let mut problems = Vec::new();
    for target in link_targets(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((target.as_str(), ""));
        let file = dir.join(path);
        let target_text = if path.is_empty() {
            text.to_owned()
        } else if let Ok(target_text) = std::fs::read_to_string(root().join(&file)) {
            target_text
        } else {
            // A directory or a file that is not text (an image) has no anchors to check.
            if !root().join(&file).exists() {
                problems.push(format!(
                    "{}: link to {target}: no file {}",
                    page.display(),
                    file.display()
                ));
            }
            continue;
        };
        if !anchor.is_empty() && !anchors(&target_text).contains(anchor) {
            problems.push(format!(
                "{}: link to {target}: {} has no heading with anchor #{anchor}",
                page.display(),
                if path.is_empty() { page } else { &file }.display()
            ));
        }
    }
    problems
}

#[test]
fn every_link_leads_somewhere() {
    let mut problems = Vec::new();
    let mut count = 0;
    for page in pages() {
        count += link_targets(&page.text).len();
        problems.extend(link_problems(&page.path, &page.text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(count > 30, "only {count} links found");
}

/// The command table's rows: the first code span of each row of the table under the
/// README's `## Commands`, with its line.
fn command_table(readme: &str) -> Vec<(usize, String)> {
    let mut in_section = false;
    let mut rows = Vec::new();
    for (line, text) in readme.lines().enumerate() {
        if text.starts_with("## ") {
            in_section = text == "## Commands";
        }
        let Some(cell) = text.strip_prefix("| `").filter(|_| in_section) else {
            continue;
        };
        let synopsis = cell.split('`').next().unwrap_or_default();
        rows.push((line + 1, synopsis.replace("\\|", "|")));
    }
    rows
}

/// The problems of the command table: a row whose command or flag does not exist, and a
/// command without a row.
fn command_table_problems(readme: &str) -> Vec<String> {
    let mut command = cli::Cli::command();
    command.build();
    let mut problems = Vec::new();
    let mut documented = BTreeSet::new();
    for (line, synopsis) in command_table(readme) {
        let name = synopsis
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let Some(subcommand) = command.find_subcommand(&name) else {
            problems.push(format!("README.md:{line}: `{name}` is no ihigraph command"));
            continue;
        };
        // A command with subcommands of its own (`tenant add`) takes theirs too.
        let flags: BTreeSet<String> = std::iter::once(subcommand)
            .chain(subcommand.get_subcommands())
            .flat_map(clap::Command::get_arguments)
            .flat_map(|argument| {
                let long = argument.get_long().map(|long| format!("--{long}"));
                let short = argument.get_short().map(|short| format!("-{short}"));
                long.into_iter().chain(short)
            })
            .collect();
        let used = synopsis
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|word| word.starts_with('-') && word.len() > 1);
        for flag in used {
            if !flags.contains(flag) {
                problems.push(format!("README.md:{line}: `{name}` has no flag {flag}"));
            }
        }
        documented.insert(name);
    }
    for subcommand in command.get_subcommands() {
        let name = subcommand.get_name();
        if name != "help" && !documented.contains(name) {
            problems.push(format!(
                "README.md: the command table has no row for `{name}`"
            ));
        }
    }
    problems
}

#[test]
fn the_command_table_names_every_command_and_only_real_flags() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let problems = command_table_problems(&readme);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_guide_is_compiled_as_a_doctest() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    for page in pages().iter().filter(|page| page.path.starts_with("docs")) {
        let include = format!("include_str!(\"../{}\")", page.path.display());
        assert!(lib.contains(&include), "src/lib.rs lacks {include}");
    }
}

/// Runs a block as bash runs it (stopping at the first failure, a pipe's too) in a new
/// scratch directory on a store `demo` filled; the error says how it failed.
fn run_block(script: &str) -> Result<(), String> {
    let scratch = tempfile::tempdir().unwrap();
    for shared in ["examples", "tests", "queries"] {
        std::os::unix::fs::symlink(root().join(shared), scratch.path().join(shared)).unwrap();
    }
    let binary = Path::new(env!("CARGO_BIN_EXE_ihigraph"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    let shell = |program: &str, arguments: &[&str]| {
        let mut command = Command::new(program);
        command
            .args(arguments)
            .current_dir(scratch.path())
            .env("PATH", &path)
            .env("HOME", scratch.path())
            .env("IHIGRAPH_STORE", scratch.path().join("store"))
            .stdin(Stdio::null());
        // The scratch store set above stays; nothing else of the tester's shell reaches it.
        for name in common::IHIGRAPH_VARIABLES
            .iter()
            .filter(|name| **name != "IHIGRAPH_STORE")
        {
            command.env_remove(name);
        }
        command.output().unwrap()
    };
    let demo = shell("ihigraph", &["demo"]);
    assert!(
        demo.status.success(),
        "demo: {}",
        String::from_utf8_lossy(&demo.stderr)
    );
    let output = shell(
        "bash",
        &[
            "--noprofile",
            "--norc",
            "-e",
            "-o",
            "pipefail",
            "-c",
            script,
        ],
    );
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{}\n--- standard error:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    ))
}

#[test]
fn every_example_runs_unless_it_says_why_not() {
    let mut problems = Vec::new();
    let mut ran = 0;
    for page in pages() {
        for block in blocks(&page.text).0 {
            if block.info != "sh" || block.not_run.is_some() {
                continue;
            }
            ran += 1;
            if let Err(why) = run_block(&block.body) {
                problems.push(format!(
                    "{}:{}: the block failed: {why}",
                    page.path.display(),
                    block.line
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // The README's tour, memory, integrity, the queries and the report at least.
    assert!(ran >= 5, "only {ran} blocks ran");
}

// The checker itself: each check must catch what it is there for.

#[test]
fn a_made_up_flag_or_command_is_caught() {
    let page = "Text.\n\n```sh\nihigraph query recent-turns -p session=abc\nihigraph ingest --made-up-flag histories/\n```\n\n```text\n$ ihigraph frobnicate\n```\n";
    let problems = command_problems("page.md", page);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(
        problems[0].starts_with("page.md:5: `ihigraph ingest --made-up-flag histories/`"),
        "{}",
        problems[0]
    );
    assert!(problems[0].contains("--made-up-flag"), "{}", problems[0]);
    assert!(
        problems[1].starts_with("page.md:9: `ihigraph frobnicate`"),
        "{}",
        problems[1]
    );
    // A wrong value and a missing argument are caught too.
    for arguments in [
        &["export", "--format", "rdfxml"][..],
        &["context", "abc"],
        &["--memory", "--endpoint", "http://x", "info"],
    ] {
        let arguments: Vec<String> = arguments.iter().map(|word| (*word).to_owned()).collect();
        assert!(parse_error(&arguments).is_some(), "{arguments:?}");
    }
}

#[test]
fn a_made_up_flag_in_the_command_table_is_caught() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let broken = readme
        .replacen("| `info` |", "| `info [--verbose]` |", 1)
        .replacen("| `ontology` |", "| `ontologies` |", 1);
    let problems = command_table_problems(&broken);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(
        problems[0].ends_with("`info` has no flag --verbose"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].ends_with("`ontologies` is no ihigraph command"),
        "{}",
        problems[1]
    );
    assert!(
        problems[2].ends_with("has no row for `ontology`"),
        "{}",
        problems[2]
    );
}

#[test]
fn a_broken_link_is_caught() {
    let page = "# Title\n\n## A section: here\n\nSee [here](#a-section-here), [there](#nowhere),\n[a file](../ARCHITECTURE.md#where-new-things-go), [gone](missing.md),\n[no anchor](../ARCHITECTURE.md#no-such-part) and `[code](not-a-link.md)`.\n";
    let problems = link_problems(Path::new("docs/a-page.md"), page);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("#nowhere"), "{}", problems[0]);
    assert!(
        problems[1].contains("no file docs/missing.md"),
        "{}",
        problems[1]
    );
    assert!(
        problems[2].contains("no heading with anchor #no-such-part"),
        "{}",
        problems[2]
    );
}

#[test]
fn a_not_run_marker_needs_a_reason_and_a_fence() {
    let page = "<!-- docs-test: not run: -->\n```sh\ntrue\n```\n\n<!-- docs-test: not run: a server -->\n\n```sh\ntrue\n```\n";
    let (blocks, problems) = blocks(page);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert_eq!(blocks.len(), 2);
    assert_eq!(
        blocks[1].not_run, None,
        "a marker away from its fence does not count"
    );
}

#[test]
fn a_failing_example_is_caught() {
    let why = run_block("ihigraph query recent-turns -p session=abc > rows.tsv\nihigraph query no-such-query\nihigraph info\n")
        .unwrap_err();
    assert!(why.contains("no-such-query"), "{why}");
    assert!(run_block("ihigraph query recent-turns -p session=abc | head -1").is_ok());
}

#[test]
fn shell_text_is_split_as_bash_splits_it() {
    let script = "# a comment\nA=1 ihigraph sparql 'SELECT\n  ?x' --format json > out.json   # note\ncat a.json | ihigraph ingest - && ihigraph \\\n  info 2>&1\nexport T=$(head -c 3 /dev/urandom | base64); echo \"a \\\"b\\\" $T\" <in\n";
    let commands = shell_commands(script);
    let words: Vec<(usize, Vec<&str>)> = commands
        .iter()
        .map(|command| {
            (
                command.line,
                command.words.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        words,
        [
            (
                1,
                vec![
                    "A=1",
                    "ihigraph",
                    "sparql",
                    "SELECT\n  ?x",
                    "--format",
                    "json"
                ]
            ),
            (3, vec!["cat", "a.json"]),
            (3, vec!["ihigraph", "ingest", "-"]),
            (3, vec!["ihigraph", "info"]),
            (5, vec!["export", "T=$(head -c 3 /dev/urandom | base64)"]),
            (5, vec!["echo", "a \"b\" $T"]),
        ]
    );
    assert_eq!(
        ihigraph_arguments(&commands[0].words).unwrap(),
        ["sparql", "SELECT\n  ?x", "--format", "json"]
    );
}
