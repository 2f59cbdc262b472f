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
        conflicts_with = "memory"
    )]
    pub store: Option<PathBuf>,
    /// Use a fresh in-memory store, gone when the command ends.
    #[arg(long, global = true)]
    pub memory: bool,
    /// IRI base of the nodes ihigraph writes; recorded when the store is created
    /// [default: https://w3id.org/ihigraph/id/]
    #[arg(long, global = true, value_name = "IRI")]
    pub base: Option<String>,
    /// Work-session IRI template, {SessionID} standing for the percent-encoded id;
    /// recorded when the store is created [default: https://jido.ai/ontology#session_{SessionID}]
    #[arg(long = "session-iri", global = true, value_name = "TEMPLATE")]
    pub session_template: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check PGM-IHI documents and store each session as a named graph (replacing an
    /// earlier version of it). Refused documents change nothing.
    Ingest(CheckArgs),
    /// Check PGM-IHI documents against the standard, without a store.
    Validate(CheckArgs),
    /// Run a SPARQL query over the union of all session graphs (read-only).
    Sparql(SparqlArgs),
    /// List the canned queries and their parameters, or print one query's SPARQL.
    Queries {
        /// A query to print.
        name: Option<String>,
    },
    /// Run a canned query over all sessions (`ihigraph queries` lists them).
    Query(QueryArgs),
    /// Write the stored graphs as RDF to standard output.
    Export(ExportArgs),
    /// Show the store: location, IRI scheme, sessions and quads.
    Info,
    /// Print the ontologies (conversation history and the ihigraph extension) as Turtle.
    Ontology,
    /// Ingest the bundled example histories and show their recent turns and tool calls.
    Demo,
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
    #[arg(long, value_enum)]
    pub format: Option<ResultsFormat>,
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
}

fn parse_param(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("expected NAME=VALUE, found {text:?}"))
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
pub struct ExportArgs {
    /// Export only this session (by SessionID).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// RDF format (turtle needs --session: it holds one graph).
    #[arg(long, value_enum, default_value_t = RdfExportFormat::Trig)]
    pub format: RdfExportFormat,
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
}
