//! What each command does, one file per command. Raw arguments are turned into settings
//! here, once.

mod append;
mod backup;
mod check_graph;
mod context;
mod convert;
mod delete;
mod demo;
mod export;
mod generate;
mod info;
mod ingest;
mod integrity;
mod memory;
mod ontology;
mod prune;
mod queries;
mod reasoning;
mod report;
mod retention;
mod search;
mod serve;
mod shapes;
mod sparql;
mod tenants;
mod validate;

use crate::cli::{CheckArgs, Cli, Command, ImportArgs, ResultsFormat, StoreArgs};
use crate::output::{Shape, plural};
use crate::status::{Status, UsageError};
use anyhow::{Context, Result};
use ihigraph::import::{Choice, DerivedIds, ImportOptions};
use ihigraph::store::{
    Credentials, Endpoint, Limits, RemoteError, RemoteOptions, SchemeSetting, TenantName,
};
use ihigraph::{CheckOptions, HistoryStore, SchemeRequest, StoreError};
use std::io::{self, IsTerminal};
use std::time::Duration;

pub fn run(cli: Cli) -> Result<Status> {
    match cli.command {
        Command::Validate(args) => validate::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Ingest(args) => ingest::run(&open_store(&cli.store)?, &args),
        Command::Sparql(args) => sparql::run(&open_store(&cli.store)?, &args),
        Command::Queries { name } => queries::list(name.as_deref()),
        Command::Query(args) => queries::run(&open_store(&cli.store)?, &args),
        Command::Export(args) => export::run(&open_store(&cli.store)?, &args),
        Command::Info => info::run(&open_store(&cli.store)?),
        Command::Sessions { format } => queries::sessions(&open_store(&cli.store)?, format),
        Command::Append(args) => append::run(&open_store(&cli.store)?, &args),
        Command::Delete(args) => delete::run(&open_store(&cli.store)?, &args),
        Command::Retention { action } => retention::run(&open_store(&cli.store)?, &action),
        Command::Prune(args) => prune::run(&cli.store, &args),
        Command::Remember(args) => memory::remember(&open_store(&cli.store)?, &args),
        Command::Memory(args) => memory::list(&open_store(&cli.store)?, &args),
        Command::Forget { item } => memory::forget(&open_store(&cli.store)?, &item),
        Command::Search(args) => search::run(&open_store(&cli.store)?, &args),
        Command::Reindex => search::reindex(&open_store(&cli.store)?),
        Command::Reasoning { state } => reasoning::run(&cli.store, state),
        Command::Tenant(command) => tenants::tenant(&cli.store, &command),
        Command::Token(command) => tenants::token(&cli.store, &command),
        Command::Context(args) => context::run(&open_store(&cli.store)?, &args),
        Command::Report(args) => report::run(&open_store(&cli.store)?, &args),
        Command::Hash(args) => integrity::hash(&open_store(&cli.store)?, &args),
        Command::Verify(args) => integrity::verify_store(&open_store(&cli.store)?, &args),
        Command::Backup { target } => backup::run(&open_store(&cli.store)?, &target),
        Command::Ontology => ontology::run(),
        Command::Shapes => shapes::run(),
        Command::CheckGraph(args) if args.files.is_empty() => {
            check_graph::store(&open_store(&cli.store)?, &args)
        }
        Command::CheckGraph(args) => check_graph::files(&args),
        Command::Demo => demo::run(&open_store(&cli.store)?),
        Command::Generate(args) => generate::run(&args),
        Command::Serve(args) => serve::http(open_store(&cli.store)?, &args),
        Command::Mcp(args) => serve::stdio(open_store(&cli.store)?, &args),
    }
}

fn open_store(args: &StoreArgs) -> Result<HistoryStore> {
    let request = scheme_request(args);
    if args.memory {
        return HistoryStore::in_memory(&request).map_err(with_flags);
    }
    if let Some(endpoint) = &args.endpoint {
        let options = remote_options(args, endpoint)?;
        return HistoryStore::connect(options, &request).map_err(with_flags);
    }
    let (location, request) = store_location(args)?;
    HistoryStore::open(&location, &request).map_err(with_flags)
}

/// The directory and scheme of the embedded store the flags name: the store's, or with
/// --tenant, the tenant's (checked against the store's register).
fn store_location(args: &StoreArgs) -> Result<(std::path::PathBuf, SchemeRequest)> {
    let location = store_directory(args)?;
    let request = scheme_request(args);
    let Some(tenant) = &args.tenant else {
        return Ok((location, request));
    };
    let name: TenantName = tenant
        .parse()
        .map_err(|error| UsageError(format!("--tenant: {error}")))?;
    let root = HistoryStore::open(&location, &request).map_err(with_flags)?;
    Ok(root.tenant_location(&name)?)
}

/// The scheme the flags ask for.
fn scheme_request(args: &StoreArgs) -> SchemeRequest {
    SchemeRequest {
        base: args.base.clone(),
        session_template: args.session_template.clone(),
    }
}

/// The directory of the embedded store the flags name (made if missing).
fn store_directory(args: &StoreArgs) -> Result<std::path::PathBuf> {
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
    Ok(location)
}

/// The server's endpoints, limits and credentials (from the environment only).
fn remote_options(args: &StoreArgs, endpoint: &str) -> Result<RemoteOptions> {
    let seconds = |flag: &str, value: f64| {
        Duration::try_from_secs_f64(value)
            .ok()
            .filter(|duration| !duration.is_zero())
            .ok_or_else(|| UsageError(format!("{flag} {value}: give a positive number of seconds")))
    };
    let variable = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let credentials = match (
        variable("IHIGRAPH_ENDPOINT_USER"),
        variable("IHIGRAPH_ENDPOINT_PASSWORD"),
        variable("IHIGRAPH_ENDPOINT_TOKEN"),
    ) {
        (Some(_), _, Some(_)) => {
            return Err(UsageError(
                "set IHIGRAPH_ENDPOINT_USER or IHIGRAPH_ENDPOINT_TOKEN, not both".to_owned(),
            )
            .into());
        }
        (Some(user), password, None) => Credentials::Password {
            user,
            password: password.unwrap_or_default(),
        },
        (None, Some(_), _) => {
            return Err(UsageError(
                "IHIGRAPH_ENDPOINT_PASSWORD is set without IHIGRAPH_ENDPOINT_USER".to_owned(),
            )
            .into());
        }
        (None, None, Some(token)) => Credentials::Bearer(token),
        (None, None, None) => Credentials::None,
    };
    let options = RemoteOptions {
        query: endpoint_url("--endpoint", endpoint)?,
        update: (args.update_endpoint.as_deref())
            .map(|url| endpoint_url("--update-endpoint", url))
            .transpose()?,
        graph_store: (args.graph_store.as_deref())
            .map(|url| endpoint_url("--graph-store", url))
            .transpose()?,
        credentials,
        limits: Limits {
            connect: seconds("--connect-timeout", args.connect_timeout)?,
            request: seconds("--request-timeout", args.request_timeout)?,
            retries: args.retries,
        },
        basic_over_http: args.allow_basic_over_http,
    };
    Ok(options)
}

/// An endpoint option's URL, checked: the message names the option, and never shows
/// the credentials a URL may hold.
fn endpoint_url(flag: &str, url: &str) -> Result<Endpoint> {
    Endpoint::parse(url).map_err(|error| match error {
        RemoteError::CredentialsInUrl { .. } | RemoteError::BadUrl { .. } => {
            UsageError(format!("{flag}: {error}")).into()
        }
        other => other.into(),
    })
}

/// A scheme conflict, told in the options that ask for the settings.
fn with_flags(error: StoreError) -> anyhow::Error {
    let StoreError::SchemeConflict {
        setting,
        stored,
        requested,
    } = &error
    else {
        return error.into();
    };
    let flag = match setting {
        SchemeSetting::Base => "--base",
        _ => "--session-iri",
    };
    UsageError(format!(
        "this store was created with {flag} {stored:?}; {requested:?} was asked for (a store keeps one IRI scheme)"
    ))
    .into()
}

/// The importer `--from` names, or auto.
fn import_choice(from: &str) -> Result<Choice> {
    if from == "auto" {
        return Ok(Choice::Auto);
    }
    ihigraph::import::importer(from)
        .map(Choice::Format)
        .ok_or_else(|| UsageError(format!("--from {from}: no such format")).into())
}

/// The import options, with the flag named in what is wrong.
fn import_options(args: &ImportArgs) -> Result<ImportOptions> {
    let mut options = ImportOptions::default();
    if let Some(from) = &args.derive_ids {
        let derived =
            DerivedIds::parse(from).map_err(|e| UsageError(format!("--derive-ids: {e}")))?;
        options = options.derive_ids_from(derived);
    }
    if let Some(id) = &args.session_id {
        options = options.session_id(id);
    }
    if let Some(time) = &args.start_time {
        options = options
            .start_time(time)
            .map_err(|e| UsageError(format!("--start-time: {e}")))?;
    }
    if let Some(zone) = &args.timezone {
        options = options
            .timezone(zone)
            .map_err(|e| UsageError(format!("--timezone: {e}")))?;
    }
    if let Some(id) = &args.instance_id {
        options = options.instance_id(id);
    }
    if let Some(id) = &args.environment_id {
        options = options.environment_id(id);
    }
    Ok(options)
}

/// Whether any import option is given (they mean nothing to PGM-IHI input).
fn any_import_option(args: &ImportArgs) -> bool {
    args.session_id.is_some()
        || args.derive_ids.is_some()
        || args.start_time.is_some()
        || args.timezone.is_some()
        || args.instance_id.is_some()
        || args.environment_id.is_some()
}

fn check_options(args: &CheckArgs) -> CheckOptions {
    CheckOptions {
        lenient: args.lenient,
    }
}

/// The shape asked for, else a table on a terminal and TSV for programs.
fn shape(asked: Option<ResultsFormat>) -> Shape {
    match asked {
        Some(ResultsFormat::Table) => Shape::Table,
        Some(ResultsFormat::Json) => Shape::Results(ihigraph::query::ResultsFormat::Json),
        Some(ResultsFormat::Csv) => Shape::Results(ihigraph::query::ResultsFormat::Csv),
        Some(ResultsFormat::Tsv) => Shape::Results(ihigraph::query::ResultsFormat::Tsv),
        None if io::stdout().is_terminal() => Shape::Table,
        None => Shape::Results(ihigraph::query::ResultsFormat::Tsv),
    }
}
