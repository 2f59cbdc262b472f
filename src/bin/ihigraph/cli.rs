//! The command line, as clap types; doc comments are the help text.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Turn AI agents' conversation histories (MPAI PGM-IHI V1.0) into a queryable
/// knowledge graph.
#[derive(Debug, Parser)]
#[command(name = "ihigraph", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Where the graph lives.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// On-disk store directory (created if missing) [default: the user's data
    /// directory, ihigraph/store]
    #[arg(
        long,
        global = true,
        env = "IHIGRAPH_STORE",
        value_name = "DIR",
        conflicts_with_all = ["memory", "endpoint"]
    )]
    pub store: Option<PathBuf>,
    /// Use a fresh in-memory store, gone when the command ends.
    #[arg(long, global = true, conflicts_with = "endpoint")]
    pub memory: bool,
    /// Use a SPARQL 1.1 server instead of a store directory: its query endpoint.
    /// Credentials come from the environment only: IHIGRAPH_ENDPOINT_USER with
    /// IHIGRAPH_ENDPOINT_PASSWORD (HTTP Digest, or Basic as the server asks), or
    /// IHIGRAPH_ENDPOINT_TOKEN (Bearer); a URL with user:password@ is refused.
    #[arg(
        long,
        global = true,
        env = "IHIGRAPH_ENDPOINT",
        value_name = "URL",
        hide_env_values = true
    )]
    pub endpoint: Option<String>,
    /// The server's SPARQL update endpoint [default: the query endpoint; Oxigraph's
    /// /update beside its /query]
    #[arg(
        long,
        global = true,
        env = "IHIGRAPH_UPDATE_ENDPOINT",
        value_name = "URL",
        requires = "endpoint",
        hide_env_values = true
    )]
    pub update_endpoint: Option<String>,
    /// The server's Graph Store Protocol endpoint: when given, whole sessions are
    /// written through it (one PUT per session).
    #[arg(
        long,
        global = true,
        env = "IHIGRAPH_GRAPH_STORE",
        value_name = "URL",
        requires = "endpoint",
        hide_env_values = true
    )]
    pub graph_store: Option<String>,
    /// Send the password as HTTP Basic over plain http:// when the server asks for
    /// Basic. Off, it is refused: anyone on the path reads a Basic password, and one
    /// who stands in for a Digest server asks for Basic to get it. Digest (which never
    /// sends the password) and https:// need no such leave. The variable takes 1, true,
    /// yes or on.
    #[arg(
        long,
        global = true,
        env = "IHIGRAPH_ALLOW_BASIC_OVER_HTTP",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_basic_over_http: bool,
    /// Seconds to wait for a connection to the server.
    #[arg(long, global = true, default_value_t = 5.0, value_name = "SECONDS")]
    pub connect_timeout: f64,
    /// Seconds to wait for one request to the server, its answer included.
    #[arg(long, global = true, default_value_t = 120.0, value_name = "SECONDS")]
    pub request_timeout: f64,
    /// Further attempts of a read or an idempotent write after a failed connection, a
    /// time-out or a 502/503/504, with backoff (250 ms, then doubling).
    #[arg(long, global = true, default_value_t = 3, value_name = "N")]
    pub retries: u32,
    /// IRI base of the nodes ihigraph writes; recorded when the store is created
    /// [default: https://w3id.org/ihigraph/id/]
    #[arg(long, global = true, value_name = "IRI")]
    pub base: Option<String>,
    /// Act inside one tenant of the store: its own sessions, memory, index and limits
    /// (`ihigraph tenant list` lists them)
    #[arg(
        long,
        global = true,
        env = "IHIGRAPH_TENANT",
        value_name = "NAME",
        conflicts_with_all = ["memory", "endpoint"]
    )]
    pub tenant: Option<String>,
    /// Work-session IRI template, {SessionID} standing for the percent-encoded id;
    /// recorded when the store is created [default: https://jido.ai/ontology#session_{SessionID}]
    #[arg(long = "session-iri", global = true, value_name = "TEMPLATE")]
    pub session_template: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check PGM-IHI documents and store each session as a named graph (replacing an
    /// earlier version of it). Refused documents change nothing.
    Ingest(IngestArgs),
    /// Check PGM-IHI documents against the standard, without a store.
    Validate(CheckArgs),
    /// Convert histories from another format (OpenAI, Anthropic, Gemini, LangChain,
    /// Harmony, fine-tuning JSONL, GLM/PyALM, AgentOS, OpenTelemetry traces) to PGM-IHI
    /// JSON, without a store:
    /// one document, or JSON Lines with one document per session when there are several.
    Convert(ConvertArgs),
    /// Run a SPARQL query over the union of all graphs (read-only unless --update).
    Sparql(SparqlArgs),
    /// List the canned queries and their parameters, or print one query's SPARQL.
    Queries {
        /// A query to print.
        name: Option<String>,
    },
    /// Run a canned query over all sessions (`ihigraph queries` lists them).
    Query(QueryArgs),
    /// Write the stored sessions to standard output: as RDF, or as PGM-IHI documents
    /// rebuilt from their graphs (`--format pgm-ihi`; every session as JSON Lines).
    Export(ExportArgs),
    /// List the stored sessions: id, M-Instance, U-Environment, start, turns, last turn;
    /// for a branch (such as the continuation a rewind left), the session it forked from
    /// (branchOf) and the index of the turn it forked after (forkedAfterTurn).
    Sessions {
        /// Output format [default: table on a terminal, tsv otherwise]
        #[arg(long, value_enum)]
        format: Option<ResultsFormat>,
    },
    /// Add one turn (a JSON object, as in a document's Turns) to a stored session.
    Append(AppendArgs),
    /// Remove a session, the memory made from it alone and the links of shared memory to
    /// it, and print a receipt with a check that nothing in the store still names it;
    /// every session of an M-Instance, a U-Environment or a user (--where), each with its
    /// receipt, then the totals and a check that nothing names the subject any more; or
    /// every session. The session's branches (the continuations a rewind left, stored as
    /// sessions of their own) stay unless --with-branches: their link then names a
    /// session no longer stored, and the receipt lists them.
    Delete(DeleteArgs),
    /// Show, set or clear how long the store keeps a session after its last turn: older
    /// sessions are deleted by `prune`, and by `serve` on a schedule.
    Retention {
        #[command(subcommand)]
        action: RetentionAction,
    },
    /// Delete the sessions whose last turn (the session's start when no turn has an
    /// absolute time) is older than the store's retention period, each as `delete
    /// --session` deletes one, with its receipt, then the totals. Branches are sessions
    /// of their own, judged by their own last turn. Refused when the store has no
    /// retention period (`retention set`).
    Prune(PruneArgs),
    /// Make a memory item (a fact, a decision, a lesson) from a stored turn, in the
    /// store's memory graph, with its provenance: the turn it was derived from, the
    /// session's work session, when it was made, the turn's source type, and the time it
    /// holds for.
    Remember(RememberArgs),
    /// List the memory items, each with the turn it came from.
    Memory(MemoryArgs),
    /// Find prompts, answers, tool calls, tool results and memory items by their words,
    /// best first (BM25), from the full-text index beside the store: all words required
    /// (`OR` for either, `-word` to leave one out), "a phrase", prefix*, word forms in
    /// English, French, German and Spanish, Chinese and Japanese by their characters.
    /// Each hit gives its session, turn (IRI and index), role, time, kind and a snippet
    /// with the matched words between `**`.
    Search(SearchArgs),
    /// Build the full-text index beside the store again, from the store (it is kept in
    /// step by every write, and repaired on open after a crash; this rebuilds it whole).
    Reindex,
    /// Turn reasoning on or off, or say whether it is on: on, what the ontologies entail
    /// about every session (OWL 2 RL) is kept beside the store, in step with every
    /// write, for queries run with --inferred; off, it is removed. The store's own graphs
    /// never hold an entailed statement.
    Reasoning {
        /// on or off [default: say whether it is on]
        #[arg(value_enum)]
        state: Option<Switch>,
    },
    /// Manage the store's tenants: each a store of its own in STORE_DIR/tenants/NAME,
    /// its nodes under BASE/tenant/NAME/, reached with --tenant NAME or a token of its.
    #[command(subcommand)]
    Tenant(TenantCommand),
    /// Manage the server's bearer tokens, kept as digests in the store's register: for
    /// a tenant (--tenant) or the store's own sessions, with a role; an admin token
    /// without --tenant sees every tenant.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Remove a memory item, by its id (as `memory` lists it) or IRI.
    Forget {
        /// The item's id or IRI.
        #[arg(value_name = "ITEM")]
        item: String,
    },
    /// Context for the next model call: the newest turns of a session that fit a token
    /// budget, as one request body of the chosen provider's API on standard output
    /// (`{"messages"}` for OpenAI Chat, `{"input"}` for Responses, `{"system",
    /// "messages"}` for Anthropic, `{"systemInstruction", "contents"}` for Gemini). A
    /// tool call always goes with its result. What was left out, and the token count, go
    /// to standard error.
    Context(ContextArgs),
    /// Print each session's fingerprint: the SHA-256 of the RDFC-1.0 canonical N-Quads of
    /// its graph as the store holds it now, one `HASH  SESSION` line each (as sha256sum
    /// prints). With --record, also record it as the session's fingerprint, accepting
    /// the session as it is now (for sessions written before fingerprints were kept).
    Hash(HashArgs),
    /// Check that sessions are what ihigraph wrote: take each session's fingerprint again
    /// and compare it with the one recorded when it was written, or compare the store
    /// with an export (--against). Prints every session that changed, with what changed
    /// (triples added or removed, values changed, by predicate); exits 1 if any did.
    Verify(VerifyArgs),
    /// Write a report of the sessions as one self-contained HTML page (inline charts and
    /// tables, nothing fetched; it opens from disk and can be mailed): totals, sessions
    /// and turns over time, turns per session, tools and their failures, roles over time,
    /// the time between turns, the sessions with the most failed tool calls and the
    /// arguments that fail most. Every number comes from a canned query it names.
    Report(ReportArgs),
    /// Write a copy of the store while it stays readable: into a new directory (the
    /// embedded store's own copy), or into a new .nq or .trig file (every store, a
    /// server's too: its settings, ontologies, sessions and memory).
    Backup {
        /// The directory or file (.nq, .nquads, .trig) to create.
        #[arg(value_name = "TARGET")]
        target: PathBuf,
    },
    /// Show the store: location, IRI scheme, sessions and quads.
    Info,
    /// Print the ontologies (conversation history and the ihigraph extension) as Turtle.
    Ontology,
    /// Print the SHACL shapes of the data ihigraph writes (its session graphs and memory
    /// items), as Turtle: what check-graph validates against.
    Shapes,
    /// Validate RDF against SHACL shapes (the shipped ones, or --shapes), one graph at a
    /// time: the graphs of each FILE (Turtle, N-Triples, N-Quads, TriG or RDF/XML, by
    /// its extension or --input-format), or without FILE the store's session graphs and
    /// its memory graph. Prints each result (graph, focus node, path, constraint,
    /// severity, message), or the SHACL validation report as RDF with --format; exits 1
    /// when a graph does not conform.
    CheckGraph(CheckGraphArgs),
    /// Ingest the bundled example histories and show their recent turns and tool calls.
    Demo,
    /// Write a seeded synthetic corpus of realistic histories (for benchmarks and load
    /// tests): JSON Lines on standard output, or one JSON file per session with --dir.
    Generate(GenerateArgs),
    /// Serve the store over HTTP: the SPARQL 1.1 Protocol at /sparql, REST for sessions
    /// at /sessions, the canned queries at /queries, MCP (Streamable HTTP) at /mcp.
    /// Reads are open; writes need `Authorization: Bearer $IHIGRAPH_TOKEN`, and without
    /// IHIGRAPH_TOKEN in its environment the server is read-only. Stops on Ctrl-C or
    /// SIGTERM, letting requests in flight finish (at most 10 s).
    Serve(ServeArgs),
    /// Serve the MCP tools over standard input and output, for hosts that start tools as
    /// processes (read-only tools: list_sessions, recent_turns, tool_usage, search,
    /// sparql_query).
    Mcp(McpArgs),
}

/// What `retention` does.
#[derive(Debug, Subcommand)]
pub enum RetentionAction {
    /// Say the store's retention period, if it has one.
    Show,
    /// Keep sessions this long after their last turn: a whole number and a unit (s, m,
    /// h, d, w: 90d, 12h, 2w) or an ISO 8601 duration of days and time (P90D, PT12H).
    Set {
        /// The period.
        #[arg(value_name = "PERIOD", value_parser = parse_period)]
        period: ihigraph::store::RetentionPeriod,
    },
    /// Remove the retention period: sessions are kept until deleted.
    Clear,
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Print the receipts without deleting anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReceiptFormat,
}

/// How receipts are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReceiptFormat {
    /// Lines for people.
    Text,
    /// One JSON object: the receipts and the totals.
    Json,
}

/// A period, as `retention set` takes it.
fn parse_period(text: &str) -> Result<ihigraph::store::RetentionPeriod, String> {
    text.parse()
        .map_err(|error: ihigraph::store::PeriodError| error.to_string())
}

/// How often `serve` prunes: a period, or 0 or off for never.
fn parse_prune_every(text: &str) -> Result<PruneEvery, String> {
    match text.trim() {
        "0" | "off" => Ok(PruneEvery(None)),
        _ => parse_period(text).map(|period| PruneEvery(Some(period.as_duration()))),
    }
}

/// A subject, as `delete --where` takes it.
fn parse_subject(text: &str) -> Result<ihigraph::memory::Subject, String> {
    text.parse()
        .map_err(|error: ihigraph::memory::SubjectError| error.to_string())
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on. Anything but a loopback address lets other machines
    /// read the whole store: put a TLS proxy in front and set IHIGRAPH_TOKEN.
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDRESS:PORT")]
    pub bind: std::net::SocketAddr,
    /// Take SPARQL updates at /sparql (they still need the token).
    #[arg(long)]
    pub allow_update: bool,
    #[command(flatten)]
    pub limits: QueryLimitArgs,
    /// The largest request body from a bearer of the token, in bytes (suffixes KiB, MiB,
    /// GiB); larger ones get 413.
    #[arg(long, default_value = "256MiB", value_name = "SIZE", value_parser = parse_size)]
    pub max_body: usize,
    /// The largest request body without the token (a query, an MCP call); larger ones get
    /// 413, and a write without the token gets 401 before its body is read.
    #[arg(long, default_value = "1MiB", value_name = "SIZE", value_parser = parse_size)]
    pub max_query_body: usize,
    /// A host name (host for any port, host:port, or * for any) clients reach this server
    /// by, beside localhost, 127.0.0.1 and [::1]; requests with another Host header get
    /// 403, against DNS rebinding. Repeat for several.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Seconds a request's head may take, from when the connection waits for it (opened,
    /// or a first byte after an idle spell); then the connection is closed.
    #[arg(long, default_value = "10", value_name = "SECONDS", value_parser = parse_seconds)]
    pub header_timeout: std::time::Duration,
    /// Seconds a request's body may take to arrive whole after its head; then 408.
    #[arg(long, default_value = "60", value_name = "SECONDS", value_parser = parse_seconds)]
    pub body_timeout: std::time::Duration,
    /// Seconds a connection may stay open with no request, or with an answer its client
    /// does not read; then it is closed.
    #[arg(long, default_value = "60", value_name = "SECONDS", value_parser = parse_seconds)]
    pub idle_timeout: std::time::Duration,
    /// The most connections open at once; beyond it, a new one closes the one waiting
    /// longest without a request, or waits for a place when all are busy. Keep it well
    /// under the process's file limit (ulimit -n).
    #[arg(long, default_value_t = ihigraph::serve::DEFAULT_MAX_CONNECTIONS, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_connections: usize,
    /// How often to delete the sessions older than the store's retention period (see
    /// `retention`), as `prune` does, each told to standard error: a period (90s, 15m,
    /// 1h, PT1H), or 0 or off for never. Nothing is pruned while the store has no
    /// retention period.
    #[arg(long, default_value = "1h", value_name = "PERIOD", value_parser = parse_prune_every)]
    pub prune_every: PruneEvery,
    /// What the OTLP receiver keeps of the sessions it wrote, by its estimate (suffixes
    /// KiB, MiB, GiB), for the store and for each tenant reached: a span that adds to a
    /// session kept is not read back from the store. 128MiB holds about 300 agent
    /// conversations of ten model calls; with more live at once, more is faster (see
    /// docs/otel.md). 0 keeps nothing.
    #[arg(long, default_value = "128MiB", value_name = "SIZE", value_parser = parse_size_or_zero)]
    pub otlp_keep: usize,
}

/// How often `serve` prunes, if at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PruneEvery(pub Option<std::time::Duration>);

#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub limits: QueryLimitArgs,
    /// Let the tools that write (remember) write to the store.
    #[arg(long)]
    pub allow_write: bool,
}

/// How long a query may run and how long its answer may be.
#[derive(Debug, Args)]
pub struct QueryLimitArgs {
    /// Seconds a query may run before it is stopped.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub query_timeout: f64,
    /// The most rows (solutions or triples) in one answer; longer answers are refused.
    #[arg(long, default_value_t = ihigraph::serve::DEFAULT_MAX_RESULTS, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_results: usize,
    /// The memory all running queries may hold together (KiB, MiB, GiB); the query whose
    /// allocation goes past it is stopped.
    #[arg(long, default_value = "1GiB", value_name = "SIZE", value_parser = parse_size)]
    pub query_memory: usize,
    /// How many queries may run at once; beyond it a query is answered 503 at once.
    #[arg(long, default_value_t = ihigraph::serve::DEFAULT_MAX_QUERIES, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub max_queries: usize,
}

/// A positive number of seconds, fractions allowed.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|seconds| std::time::Duration::try_from_secs_f64(seconds).ok())
        .filter(|duration| !duration.is_zero())
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds such as 10 or 0.5"))
}

/// A size in bytes: a number with an optional KiB, MiB or GiB.
fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let (digits, unit) = text
        .find(|c: char| !c.is_ascii_digit())
        .map_or((text, ""), |at| text.split_at(at));
    let factor: usize = match unit.trim() {
        "" | "B" => 1,
        "KiB" | "K" => 1 << 10,
        "MiB" | "M" => 1 << 20,
        "GiB" | "G" => 1 << 30,
        other => return Err(format!("{other:?} is not a unit: use KiB, MiB or GiB")),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|number| number.checked_mul(factor))
        .filter(|&size| size > 0)
        .ok_or_else(|| format!("{text:?} is not a size such as 1048576, 512KiB or 256MiB"))
}

/// A size as [`parse_size`] reads it, or 0.
fn parse_size_or_zero(text: &str) -> Result<usize, String> {
    if text.trim() == "0" {
        return Ok(0);
    }
    parse_size(text)
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// How many sessions.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub sessions: usize,
    /// The seed: the same arguments give the same corpus, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The fewest turns of a session.
    #[arg(long, default_value_t = 5, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub min_turns: u16,
    /// The most turns of a session.
    #[arg(long, default_value_t = 100, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_turns: u16,
    /// Write one SESSIONID.json per session into this directory (created if missing)
    /// instead of JSON Lines on standard output.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Report semantic rules (turn count, turn indexes, Simple Time flags) as warnings
    /// instead of refusing the document.
    #[arg(long)]
    pub lenient: bool,
    /// Files (.json: one document; .jsonl/.ndjson: one per line), directories
    /// (searched recursively for those), or - for standard input.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    #[command(flatten)]
    pub check: CheckArgs,
    /// The format of the inputs: pgm-ihi, a foreign format to convert (see `convert`),
    /// or auto (recognised per file from its content).
    #[arg(long = "from", default_value = "pgm-ihi", value_name = "FORMAT",
          value_parser = format_names(true))]
    pub from: String,
    #[command(flatten)]
    pub import: ImportArgs,
    /// Quads per batch: the new sessions of a batch become visible together, in one
    /// atomic step (bigger batches leave the store less to merge and are faster; a
    /// crash loses the batch under way; each session is always stored whole or not
    /// at all). Memory does not grow with it.
    #[arg(long, default_value_t = ihigraph::ingest::DEFAULT_BATCH_QUADS, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub batch_quads: usize,
    /// Keep going: watch the directories and files given, ingest new files, store the
    /// new turns of grown ones (each session in one atomic step), until Ctrl-C or SIGTERM
    /// (takes a foreign format or auto, not pgm-ihi)
    #[arg(long)]
    pub watch: bool,
    /// With --watch: look for changes every SECONDS instead of asking the system for
    /// file events (for file systems that give none, such as some network mounts)
    #[arg(long, value_name = "SECONDS", requires = "watch",
          value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..=3600))]
    pub poll: Option<u64>,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The format of the inputs, or auto (recognised per file from its content).
    #[arg(long = "from", value_name = "FORMAT", value_parser = format_names(false))]
    pub from: String,
    /// Files, directories (searched recursively for .json, .jsonl, .ndjson, .yaml,
    /// .yml, .txt), or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Write to this file (replaced whole, only when the conversion succeeds) instead of
    /// standard output.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub import: ImportArgs,
}

/// What no history file holds, for the sessions converted.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// SessionID of files that hold none (a file of several sessions gives ID#<line>
    /// for one per line, else ID#<n>) [default: derived as --derive-ids says, and said]
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// What the SessionID of a file that holds none is derived from: `path` gives
    /// <file stem>-<hash of its absolute path>, so that a transcript ingested again after
    /// it grew replaces its session; `content` gives sha256-<hash of its bytes>, a new
    /// session for every version (standard input always gets `content`) [default: path]
    #[arg(long, value_name = "FROM", value_parser = ["path", "content"])]
    pub derive_ids: Option<String>,
    /// Session start for files without times (RFC 3339) [default: relative times]
    #[arg(long, value_name = "RFC3339")]
    pub start_time: Option<String>,
    /// IANA time zone of naive local times (PyALM) [default: such times are left out, and
    /// that is said]
    #[arg(long, value_name = "IANA")]
    pub timezone: Option<String>,
    /// MInstanceID of the sessions [default: unknown]
    #[arg(long, value_name = "ID")]
    pub instance_id: Option<String>,
    /// UEnvironmentID of the sessions [default: unknown]
    #[arg(long, value_name = "ID")]
    pub environment_id: Option<String>,
}

/// The formats `--from` takes: every importer's name and auto, and pgm-ihi for ingest.
fn format_names(with_pgm_ihi: bool) -> clap::builder::PossibleValuesParser {
    let mut names: Vec<clap::builder::PossibleValue> = Vec::new();
    if with_pgm_ihi {
        names
            .push(clap::builder::PossibleValue::new("pgm-ihi").help("MPAI PGM-IHI V1.0 documents"));
    }
    names.extend(ihigraph::import::IMPORTERS.iter().map(|importer| {
        clap::builder::PossibleValue::new(importer.name()).help(importer.description())
    }));
    names.push(
        clap::builder::PossibleValue::new("auto").help("recognised per file from its content"),
    );
    clap::builder::PossibleValuesParser::new(names)
}

#[derive(Debug, Args)]
pub struct SparqlArgs {
    /// The query text.
    #[arg(
        required_unless_present = "file",
        conflicts_with = "file",
        value_name = "QUERY"
    )]
    pub query: Option<String>,
    /// Read the query from a file.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Output format [default: table on a terminal, tsv otherwise]
    #[arg(long, value_enum, conflicts_with = "update")]
    pub format: Option<ResultsFormat>,
    /// Run a SPARQL 1.1 update (INSERT, DELETE, ...) instead of a query: it writes to
    /// the store directly, bypassing ihigraph's checks.
    #[arg(long)]
    pub update: bool,
    /// Run the query over the sessions with what the ontologies entail about them
    /// (`ihigraph reasoning on` first): each session graph holds both.
    #[arg(long, conflicts_with = "update")]
    pub inferred: bool,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The query's name.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// A parameter, as NAME=VALUE (repeat for several); bound as a typed RDF term.
    #[arg(long = "param", short = 'p', value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, String)>,
    /// Output format [default: table on a terminal, tsv otherwise]
    #[arg(long, value_enum)]
    pub format: Option<ResultsFormat>,
    /// Print the query with its parameters bound instead of running it.
    #[arg(long)]
    pub show: bool,
    /// Run it over the sessions with what the ontologies entail about them
    /// (`ihigraph reasoning on` first).
    #[arg(long)]
    pub inferred: bool,
}

fn parse_param(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("expected NAME=VALUE, found {text:?}"))
}

#[derive(Debug, Subcommand)]
pub enum TenantCommand {
    /// Add a tenant, with its limits (each one the server's own when not given).
    Add(TenantLimitArgs),
    /// Change a tenant's limits (those not given stay).
    Set(TenantLimitArgs),
    /// List the tenants and their limits.
    List,
    /// Remove a tenant: its store with every session, memory item and index entry in it,
    /// and its tokens.
    Remove {
        /// The tenant's name.
        name: String,
    },
}

/// A tenant and the limits to give it.
#[derive(Debug, Args)]
pub struct TenantLimitArgs {
    /// The tenant's name: 1 to 63 of a-z, 0-9, '-' and '_'.
    pub name: String,
    /// The most requests per minute, all its tokens together (then 429).
    #[arg(long, value_name = "N")]
    pub max_requests_per_minute: Option<u64>,
    /// The most rows (solutions or triples) in one answer (then the query is refused).
    #[arg(long, value_name = "N")]
    pub max_result_rows: Option<u64>,
    /// How long one query may run, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub max_query_seconds: Option<f64>,
    /// The largest request body, in bytes (then 413).
    #[arg(long, value_name = "BYTES")]
    pub max_body_bytes: Option<u64>,
    /// The most quads its store may hold (then writes are refused with 413).
    #[arg(long, value_name = "N")]
    pub max_stored_quads: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Issue a token and print it once (only its digest is kept): for the tenant
    /// --tenant names, or the store's own sessions. An admin token without --tenant is
    /// the store's administrator (every tenant); with it, that tenant's (its tokens).
    Issue {
        /// What it may do: read, write (read and write) or admin (everything; its
        /// tenant's tokens, or without a tenant every tenant).
        #[arg(long, value_name = "ROLE")]
        role: String,
        /// What it is for, kept with it.
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
    },
    /// List the tokens: id, role, tenant, note, issued.
    List,
    /// Revoke a token by its id.
    Revoke {
        /// The token's id (the part after ihg_, before the next _).
        id: String,
    },
}

/// A setting turned on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResultsFormat {
    /// Aligned columns for people, long texts shortened.
    Table,
    /// SPARQL 1.1 Query Results JSON.
    Json,
    /// SPARQL 1.1 Query Results CSV.
    Csv,
    /// SPARQL 1.1 Query Results TSV.
    Tsv,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The session's SessionID.
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// The TurnIndex of the turn it is derived from.
    #[arg(long, value_name = "N")]
    pub turn: u64,
    /// What kind of item.
    #[arg(long, value_enum)]
    pub kind: MemoryKindArg,
    /// From when it holds (RFC 3339, or a date for its midnight UTC).
    #[arg(long, value_name = "TIME")]
    pub valid_from: Option<String>,
    /// Until when it holds, exclusive (RFC 3339, or a date).
    #[arg(long, value_name = "TIME")]
    pub valid_until: Option<String>,
    /// What to remember.
    #[arg(value_name = "TEXT")]
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MemoryKindArg {
    /// jido:Fact (jcore:Fact).
    Fact,
    /// jido:Decision (jcore:Decision).
    Decision,
    /// jido:LessonLearned (jcore:LessonLearned).
    Lesson,
}

#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// Only items derived from this session.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only items of this kind.
    #[arg(long, value_enum)]
    pub kind: Option<MemoryKindArg>,
    /// Only items that hold at this time (RFC 3339, or a date).
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    /// Output format [default: table on a terminal, tsv otherwise]
    #[arg(long, value_enum)]
    pub format: Option<ResultsFormat>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to find (see the command's help for the syntax).
    #[arg(value_name = "QUERY")]
    pub query: String,
    /// Only this session.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only turns of this role.
    #[arg(long, value_enum)]
    pub role: Option<RoleArg>,
    /// Only texts at or after this time (RFC 3339, or a date).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only texts before this time (RFC 3339, or a date).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only these kinds of text (repeat the flag, or separate with commas).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub kind: Vec<SearchKindArg>,
    /// The most hits to show (at most 1000).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// Output format [default: table on a terminal, tsv otherwise]
    #[arg(long, value_enum)]
    pub format: Option<ResultsFormat>,
}

/// A turn's role, as PGM-IHI names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// A person.
    #[value(name = "H-User")]
    HUser,
    /// An agent.
    #[value(name = "A-User")]
    AUser,
    /// A basic knowledge network (the model answering).
    #[value(name = "BKN")]
    Bkn,
}

/// What a searchable text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchKindArg {
    /// A prompt's text.
    Prompt,
    /// An answer's text.
    Answer,
    /// A tool call: its name and arguments.
    Call,
    /// A tool result.
    Result,
    /// A memory item.
    Memory,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The session's SessionID.
    #[arg(value_name = "SESSION")]
    pub session: String,
    /// Tokens the request may take: system prompt, messages and their framing.
    #[arg(long, value_name = "TOKENS")]
    pub budget: usize,
    /// The request shape.
    #[arg(long, value_enum, default_value_t = ContextFormatArg::OpenaiChat)]
    pub format: ContextFormatArg,
    /// The tokenizer that counts [default: o200k_base; cl100k_base for anthropic]
    #[arg(long, value_enum)]
    pub tokenizer: Option<TokenizerArg>,
    /// Keep the session's system prompt (counted against the budget) or drop it.
    #[arg(long, value_enum, default_value_t = SystemArg::Keep)]
    pub system: SystemArg,
    /// Only the turns up to this TurnIndex: the context as it was for the next call.
    #[arg(long, value_name = "TURN")]
    pub until: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextFormatArg {
    /// OpenAI Chat Completions.
    OpenaiChat,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini generateContent.
    Gemini,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TokenizerArg {
    /// GPT-4o, GPT-4.1, GPT-5, o-series.
    #[value(name = "o200k_base")]
    O200kBase,
    /// GPT-4, GPT-3.5 Turbo.
    #[value(name = "cl100k_base")]
    Cl100kBase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SystemArg {
    /// Send the system prompt and count it.
    Keep,
    /// Leave it out.
    Drop,
}

#[derive(Debug, Args)]
pub struct AppendArgs {
    /// The session's SessionID.
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// The turn: a file holding one JSON object, or - for standard input.
    #[arg(value_name = "TURN")]
    pub turn: PathBuf,
    /// Start the session with this turn if it is not stored yet (needs --m-instance,
    /// --u-environment, and --metadata or --data-id with --source-aim).
    #[arg(long)]
    pub create: bool,
    /// MInstanceID of a new session.
    #[arg(long, value_name = "ID", requires = "create")]
    pub m_instance: Option<String>,
    /// UEnvironmentID of a new session.
    #[arg(long, value_name = "ID", requires = "create")]
    pub u_environment: Option<String>,
    /// DataXMData of a new session: a JSON object, or @FILE.
    #[arg(long, value_name = "JSON", requires = "create", conflicts_with_all = ["data_id", "source_aim"])]
    pub metadata: Option<String>,
    /// DataID of a new session's data-exchange metadata.
    #[arg(long, value_name = "ID", requires = "create")]
    pub data_id: Option<String>,
    /// The AIMID that produced a new session (its data-exchange metadata's Source).
    #[arg(long, value_name = "AIMID", requires = "create")]
    pub source_aim: Option<String>,
    /// Report semantic rules as warnings instead of refusing the turn.
    #[arg(long)]
    pub lenient: bool,
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct DeleteTarget {
    /// The SessionID to delete.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Every session (needs --yes).
    #[arg(long, requires = "yes")]
    pub all: bool,
    /// Every session that names a subject, and a check that nothing in the store names
    /// it any more: instance=ID (MInstanceID), environment=ID (UEnvironmentID) or
    /// user=ID (a userId, user_id or user member of a payload, as AgentOS and OpenAI
    /// requests name their user; PGM-IHI has no field for one).
    #[arg(long = "where", value_name = "KEY=ID", value_parser = parse_subject)]
    pub subject: Option<ihigraph::memory::Subject>,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub target: DeleteTarget,
    /// Print the receipts without deleting anything.
    #[arg(long, conflicts_with = "all")]
    pub dry_run: bool,
    /// Delete the session's branches too, and theirs (each with its own receipt, the
    /// deepest first).
    #[arg(long, requires = "session")]
    pub with_branches: bool,
    /// Confirm --all.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The file to write (`-`: standard output).
    #[arg(long, short, value_name = "FILE", default_value = "report.html")]
    pub out: PathBuf,
    /// Only turns (tool calls, memory items) at or after this time (RFC 3339, or a
    /// date: 2026-01-31).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only those before this time.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only these sessions (SessionIDs); repeat the option or give several.
    #[arg(long = "session", value_name = "ID", num_args = 1..)]
    pub sessions: Vec<String>,
}

#[derive(Debug, Args)]
pub struct HashArgs {
    /// The sessions (SessionIDs).
    #[arg(value_name = "SESSION", conflicts_with = "all")]
    pub sessions: Vec<String>,
    /// Every session.
    #[arg(long)]
    pub all: bool,
    /// Record the fingerprints, replacing the recorded ones.
    #[arg(long)]
    pub record: bool,
}

#[derive(Debug, Args)]
pub struct CheckGraphArgs {
    /// RDF files to validate; the store when none is given.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// With the store: only this session (by SessionID); repeat for more.
    #[arg(long = "session", value_name = "ID", conflicts_with = "files")]
    pub sessions: Vec<String>,
    /// The shapes to validate against (Turtle, or another syntax by extension)
    /// [default: the shipped shapes, as `ihigraph shapes` prints them]
    #[arg(long, value_name = "FILE")]
    pub shapes: Option<PathBuf>,
    /// The syntax of every FILE [default: by each file's extension: .ttl, .nt, .nq,
    /// .trig, .rdf or .owl]
    #[arg(long, value_enum, value_name = "SYNTAX")]
    pub input_format: Option<RdfSyntax>,
    /// Output: readable lines, or the SHACL validation report as RDF.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RdfSyntax {
    /// Turtle.
    Turtle,
    /// N-Triples.
    Ntriples,
    /// N-Quads.
    Nquads,
    /// TriG.
    Trig,
    /// RDF/XML.
    Rdfxml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One line per result, and a summary.
    Text,
    /// The validation report in Turtle.
    Turtle,
    /// The validation report in N-Triples.
    Ntriples,
    /// The validation report in RDF/XML.
    Rdfxml,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Only these sessions (SessionIDs); every session by default.
    #[arg(value_name = "SESSION")]
    pub sessions: Vec<String>,
    /// Compare the store with this export instead of the recorded fingerprints: N-Quads
    /// (.nq) or TriG (.trig), as export and backup write them, or PGM-IHI documents
    /// (.json, .jsonl), as export --format pgm-ihi writes them.
    #[arg(long, value_name = "FILE")]
    pub against: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Export only this session (by SessionID).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Format: RDF (turtle needs --session: it holds one graph), or pgm-ihi documents.
    #[arg(long, value_enum, default_value_t = RdfExportFormat::Trig)]
    pub format: RdfExportFormat,
    /// With --format pgm-ihi: write each session graph's fingerprint into the document's
    /// DataXMData.DescrMetadata, where that text is free (the one place the standard
    /// leaves for it); `verify --against` takes it out again before comparing.
    #[arg(long)]
    pub fingerprint: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RdfExportFormat {
    /// TriG.
    Trig,
    /// N-Quads.
    Nquads,
    /// Turtle.
    Turtle,
    /// JSON-LD 1.1.
    Jsonld,
    /// PGM-IHI V1.0 documents rebuilt from the graphs: one indented document with
    /// --session, else one document per line (JSON Lines, for `ingest -`).
    PgmIhi,
}
