//! What each command does. Raw arguments are turned into settings here, once.

use crate::Status;
use crate::cli::{
    AppendArgs, CheckArgs, Cli, Command, DeleteArgs, ExportArgs, GenerateArgs, QueryArgs,
    RdfExportFormat, ResultsFormat, SparqlArgs, StoreArgs,
};
use crate::output::{write_results, write_text_table};
use anyhow::{Context, Result};
use ihigraph::{
    Arguments, CANNED_QUERIES, CannedQuery, CheckOptions, ExportFormat, GenerateOptions,
    HistoryStore, IriScheme, NewSession, Origin, PreparedDocument, RECENT_TURNS, SESSIONS,
    SchemeRequest, SessionGraph, Severity, StoreError, TOOL_USAGE, parse_json, prepare_document,
    read_documents,
};
use oxigraph::sparql::QueryResults;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

/// A command line that is well-formed but asks for something impossible.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Documents prepared ahead of the writer: enough to keep it busy, few enough that
/// memory does not grow with the input.
const PREPARED_AHEAD: usize = 32;

/// Quads written per batch by `ingest` unless `--batch-quads` says otherwise.
pub const DEFAULT_BATCH_QUADS: usize = 100_000;

/// The bundled example histories, embedded so that `demo` needs no files.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "examples/histories/trip-planning.json",
        include_str!("../../../examples/histories/trip-planning.json"),
    ),
    (
        "examples/histories/code-review-abc.json",
        include_str!("../../../examples/histories/code-review-abc.json"),
    ),
    (
        "examples/histories/support-ticket-fr.json",
        include_str!("../../../examples/histories/support-ticket-fr.json"),
    ),
    (
        "examples/histories/research-notes.json",
        include_str!("../../../examples/histories/research-notes.json"),
    ),
];

pub fn run(cli: Cli) -> Result<Status> {
    match cli.command {
        Command::Validate(args) => validate(&args),
        Command::Ingest(args) => {
            let store = open_store(&cli.store)?;
            ingest(&store.store, &args.check, args.batch_quads)
        }
        Command::Sparql(args) => sparql(&open_store(&cli.store)?.store, &args),
        Command::Queries { name } => queries(name.as_deref()),
        Command::Query(args) => query(&open_store(&cli.store)?.store, &args),
        Command::Export(args) => export(&open_store(&cli.store)?.store, &args),
        Command::Info => info(&open_store(&cli.store)?),
        Command::Sessions { format } => sessions(&open_store(&cli.store)?.store, format),
        Command::Append(args) => append(&open_store(&cli.store)?.store, &args),
        Command::Delete(args) => delete(&open_store(&cli.store)?.store, &args),
        Command::Backup { target } => backup(&open_store(&cli.store)?, &target),
        Command::Ontology => {
            let mut out = io::stdout().lock();
            out.write_all(ihigraph::CONVERSATION_HISTORY_TTL.as_bytes())?;
            writeln!(out)?;
            out.write_all(ihigraph::IHIGRAPH_TTL.as_bytes())?;
            out.flush()?;
            Ok(Status::Success)
        }
        Command::Demo => demo(&open_store(&cli.store)?),
        Command::Generate(args) => generate(&args),
    }
}

fn generate(args: &GenerateArgs) -> Result<Status> {
    if args.min_turns > args.max_turns {
        return Err(UsageError(format!(
            "--min-turns {} is more than --max-turns {}",
            args.min_turns, args.max_turns
        ))
        .into());
    }
    let documents = ihigraph::generate(GenerateOptions {
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

/// An opened store and where it is.
struct OpenedStore {
    store: HistoryStore,
    location: Option<PathBuf>,
}

fn open_store(args: &StoreArgs) -> Result<OpenedStore> {
    let request = SchemeRequest {
        base: args.base.clone(),
        session_template: args.session_template.clone(),
    };
    if args.memory {
        return Ok(OpenedStore {
            store: HistoryStore::in_memory(&request)?,
            location: None,
        });
    }
    let location = match &args.store {
        Some(path) => path.clone(),
        None => dirs::data_dir()
            .ok_or_else(|| {
                UsageError(
                    "no data directory is known for this user: give --store DIR or set IHIGRAPH_STORE"
                        .to_owned(),
                )
            })?
            .join("ihigraph")
            .join("store"),
    };
    std::fs::create_dir_all(&location)
        .with_context(|| format!("cannot create store directory {}", location.display()))?;
    let store = HistoryStore::open(&location, &request)?;
    Ok(OpenedStore {
        store,
        location: Some(location),
    })
}

fn check_options(args: &CheckArgs) -> CheckOptions {
    CheckOptions {
        lenient: args.lenient,
    }
}

/// Prints a document's diagnostics to standard error.
fn report(document: &PreparedDocument) {
    for diagnostic in &document.diagnostics {
        eprintln!("{}", diagnostic.located(&document.origin));
    }
}

fn first_error(document: &PreparedDocument) -> String {
    document
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map_or_else(String::new, |d| d.located(&document.origin))
}

fn validate(args: &CheckArgs) -> Result<Status> {
    let options = check_options(args);
    let scheme = IriScheme::default();
    let (mut valid, mut refused, mut warnings) = (0_usize, 0_usize, 0_usize);
    for input in read_documents(&args.paths) {
        let document = prepare_document(input.origin, input.value, options, &scheme);
        report(&document);
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

/// Totals of an ingest.
#[derive(Debug, Default)]
struct IngestSummary {
    sessions: usize,
    replaced: usize,
    unchanged: usize,
    turns: usize,
    quads: usize,
    warnings: usize,
    refused: Vec<String>,
}

/// Accepted sessions waiting to be written together, and where each came from.
#[derive(Default)]
struct Batch {
    sessions: Vec<SessionGraph>,
    origins: Vec<Origin>,
    quads: usize,
}

/// Takes prepared documents in order, reports them, and writes their sessions in
/// batches of about `batch_quads` quads (see [`HistoryStore::write_sessions`]).
struct Ingester<'a> {
    store: &'a HistoryStore,
    batch_quads: usize,
    batch: Batch,
    summary: IngestSummary,
    /// The last document taken: once the batch is written, everything up to it is
    /// settled (stored or refused).
    last: Option<Origin>,
}

impl<'a> Ingester<'a> {
    fn new(store: &'a HistoryStore, batch_quads: usize) -> Self {
        Self {
            store,
            batch_quads,
            batch: Batch::default(),
            summary: IngestSummary::default(),
            last: None,
        }
    }

    fn add(&mut self, document: PreparedDocument) -> Result<()> {
        report(&document);
        self.summary.warnings += document
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        let origin = document.origin.clone();
        match document.session {
            None => self.summary.refused.push(first_error(&document)),
            Some(session) => {
                self.batch.quads += session.quads.len();
                self.batch.sessions.push(session);
                self.batch.origins.push(document.origin);
            }
        }
        self.last = Some(origin);
        if self.batch.quads >= self.batch_quads {
            self.write_batch()?;
        }
        Ok(())
    }

    fn write_batch(&mut self) -> Result<()> {
        let Batch {
            sessions, origins, ..
        } = std::mem::take(&mut self.batch);
        let (Some(first), Some(last)) = (origins.first(), origins.last()) else {
            return Ok(());
        };
        let ids: Vec<String> = sessions.iter().map(|s| s.session_id.clone()).collect();
        self.summary.turns += sessions.iter().map(|s| s.turn_count).sum::<usize>();
        self.summary.quads += sessions.iter().map(|s| s.quads.len()).sum::<usize>();
        let stored = self.summary.sessions;
        let outcomes = self.store.write_sessions(sessions).with_context(|| {
            let what = if origins.len() == 1 {
                format!("{first}: cannot store session {:?}", ids[0])
            } else {
                format!("cannot store the sessions of {first} to {last}")
            };
            format!(
                "{what} ({stored} session{} of earlier batches stored; every session is whole or absent)",
                plural(stored)
            )
        })?;
        for ((origin, id), outcome) in origins.iter().zip(&ids).zip(outcomes) {
            if outcome.replaced {
                eprintln!("{origin}: replaced the stored session {id:?}");
                self.summary.replaced += 1;
            }
            if outcome.unchanged {
                self.summary.unchanged += 1;
            }
        }
        self.summary.sessions += ids.len();
        Ok(())
    }

    /// Writes what is left and gives the totals.
    fn finish(mut self) -> Result<(IngestSummary, Option<Origin>)> {
        self.write_batch()?;
        Ok((self.summary, self.last))
    }
}

fn print_summary(summary: &IngestSummary) -> Status {
    println!(
        "ingested {} session{} ({} replaced, {} unchanged), {} turn{}, {} quad{}; {} warning{}",
        summary.sessions,
        plural(summary.sessions),
        summary.replaced,
        summary.unchanged,
        summary.turns,
        plural(summary.turns),
        summary.quads,
        plural(summary.quads),
        summary.warnings,
        plural(summary.warnings),
    );
    if summary.refused.is_empty() {
        return Status::Success;
    }
    println!(
        "refused {} document{} (nothing of them was stored):",
        summary.refused.len(),
        plural(summary.refused.len())
    );
    for reason in &summary.refused {
        println!("  {reason}");
    }
    Status::Refused
}

fn ingest(store: &HistoryStore, args: &CheckArgs, batch_quads: usize) -> Result<Status> {
    let options = check_options(args);
    // Ctrl-C (or SIGTERM) stops reading: the sessions taken so far are written, nothing
    // after them is started.
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    // One thread reads, checks and maps; this one writes. The channel is short, so
    // that memory stays bounded however large the input.
    let (summary, last) = std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::sync_channel(PREPARED_AHEAD);
        let (stop, scheme) = (&interrupted, store.scheme());
        std::thread::Builder::new()
            .name("prepare".to_owned())
            .spawn_scoped(scope, move || {
                for input in read_documents(&args.paths) {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let document = prepare_document(input.origin, input.value, options, scheme);
                    if sender.send(document).is_err() {
                        break;
                    }
                }
            })
            .context("cannot start the reading thread")?;
        let mut ingester = Ingester::new(store, batch_quads);
        for document in receiver {
            if interrupted.load(Ordering::SeqCst) {
                break;
            }
            ingester.add(document)?;
        }
        ingester.finish()
    })?;
    let status = print_summary(&summary);
    if interrupted.load(Ordering::SeqCst) {
        let place = last.map_or_else(
            || "before the first document".to_owned(),
            |origin| format!("after {origin}"),
        );
        eprintln!(
            "interrupted {place}: every session up to there is stored whole, nothing after it"
        );
        return Ok(Status::Interrupted);
    }
    Ok(status)
}

fn sparql(store: &HistoryStore, args: &SparqlArgs) -> Result<Status> {
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
    print_results(store, store.query(&query)?, args.format)
}

/// Results on standard output, in the format asked for (see [`results_format`]).
fn print_results(
    store: &HistoryStore,
    results: QueryResults<'_>,
    format: Option<ResultsFormat>,
) -> Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    write_results(
        results,
        results_format(format),
        store.scheme().base(),
        &mut out,
    )?;
    out.flush()?;
    Ok(Status::Success)
}

/// The format asked for, else a table on a terminal and TSV for programs.
fn results_format(asked: Option<ResultsFormat>) -> ResultsFormat {
    asked.unwrap_or_else(|| {
        if io::stdout().is_terminal() {
            ResultsFormat::Table
        } else {
            ResultsFormat::Tsv
        }
    })
}

fn queries(name: Option<&str>) -> Result<Status> {
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

fn query(store: &HistoryStore, args: &QueryArgs) -> Result<Status> {
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
    print_results(store, store.run(canned, &arguments)?, args.format)
}

fn export(store: &HistoryStore, args: &ExportArgs) -> Result<Status> {
    let format = match args.format {
        RdfExportFormat::Trig => ExportFormat::TriG,
        RdfExportFormat::Nquads => ExportFormat::NQuads,
        RdfExportFormat::Turtle => ExportFormat::Turtle,
        RdfExportFormat::Jsonld => ExportFormat::JsonLd,
        RdfExportFormat::PgmIhi => return export_documents(store, args.session.as_deref()),
    };
    let out = BufWriter::new(io::stdout().lock());
    store.export(out, format, args.session.as_deref())?;
    Ok(Status::Success)
}

/// PGM-IHI documents rebuilt from the graphs: one, indented, or all as JSON Lines.
fn export_documents(store: &HistoryStore, session: Option<&str>) -> Result<Status> {
    let mut out = BufWriter::new(io::stdout().lock());
    if let Some(id) = session {
        serde_json::to_writer_pretty(&mut out, &store.history(id)?)?;
        writeln!(out)?;
    } else {
        let mut ids: Vec<String> = store.sessions()?.into_iter().map(|(id, _)| id).collect();
        ids.sort();
        for id in ids {
            serde_json::to_writer(&mut out, &store.history(&id)?)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(Status::Success)
}

fn sessions(store: &HistoryStore, format: Option<ResultsFormat>) -> Result<Status> {
    print_results(store, store.run(&SESSIONS, &Arguments::new())?, format)
}

fn append(store: &HistoryStore, args: &AppendArgs) -> Result<Status> {
    let origin = args.turn.display().to_string();
    let bytes = if args.turn.as_os_str() == "-" {
        let mut bytes = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        bytes
    } else {
        std::fs::read(&args.turn).with_context(|| format!("cannot read {origin}"))?
    };
    let origin = if args.turn.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        origin
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
    match store.append_turn(&args.session, &turn, create.as_ref(), options) {
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
                } else {
                    "appended to"
                },
                args.session,
                outcome.turn_count,
                plural(outcome.turn_count)
            );
            Ok(Status::Success)
        }
        Err(StoreError::Refused { problems }) => {
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
        (None, Some(data_id), Some(aim)) => serde_json::json!({
            "Header": "PTF-DEM-V1.0",
            "DataID": data_id,
            "DataType": "PGM-IHI-V1.0",
            "Source": [{"AIMID": aim}],
        }),
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

fn delete(store: &HistoryStore, args: &DeleteArgs) -> Result<Status> {
    if let Some(id) = &args.target.session {
        store.delete_session(id)?;
        println!("deleted session {id:?}");
    } else {
        let count = store.delete_all_sessions()?;
        println!("deleted {count} session{}", plural(count));
    }
    Ok(Status::Success)
}

fn backup(opened: &OpenedStore, target: &std::path::Path) -> Result<Status> {
    if opened.location.is_none() {
        return Err(UsageError("an in-memory store cannot be backed up".to_owned()).into());
    }
    opened.store.backup(target)?;
    println!("backed up to {}", target.display());
    Ok(Status::Success)
}

fn info(opened: &OpenedStore) -> Result<Status> {
    let store = &opened.store;
    let location = opened.location.as_ref().map_or_else(
        || "(in memory)".to_owned(),
        |path| path.display().to_string(),
    );
    println!("store:        {location}");
    println!("IRI base:     {}", store.scheme().base());
    println!("session IRIs: {}", store.scheme().session_template());
    println!("sessions:     {}", store.session_count()?);
    println!("quads:        {}", store.quad_count()?);
    println!(
        "queries:      {}",
        CANNED_QUERIES
            .iter()
            .map(|q| q.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(Status::Success)
}

fn demo(opened: &OpenedStore) -> Result<Status> {
    let store = &opened.store;
    let mut ingester = Ingester::new(store, DEFAULT_BATCH_QUADS);
    let mut sessions = Vec::new();
    for (name, text) in EXAMPLES {
        let origin = Origin {
            name: (*name).to_owned(),
            line: None,
        };
        let document = prepare_document(
            origin,
            parse_json(text.as_bytes()),
            CheckOptions::default(),
            store.scheme(),
        );
        if let Some(session) = &document.session {
            sessions.push(session.session_id.clone());
        }
        ingester.add(document)?;
    }
    let (summary, _) = ingester.finish()?;
    let status = print_summary(&summary);
    let location = opened
        .location
        .as_ref()
        .map_or_else(|| "memory".to_owned(), |path| path.display().to_string());
    println!("store: {location}\n");
    let mut out = BufWriter::new(io::stdout().lock());
    for session in &sessions {
        let arguments = Arguments::new().text("session", session.as_str());
        for (query, what) in [(RECENT_TURNS, "recent turns"), (TOOL_USAGE, "tool calls")] {
            writeln!(
                out,
                "Session {session:?}: {what} (ihigraph query {} --param session={session})",
                query.name
            )?;
            let results = store.run(&query, &arguments)?;
            write_results(
                results,
                ResultsFormat::Table,
                store.scheme().base(),
                &mut out,
            )?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "Try: ihigraph queries; ihigraph query tool-stats; ihigraph query search --param text=paris"
    )?;
    out.flush()?;
    Ok(status)
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}
