//! `serve` and `mcp`: the store over HTTP (SPARQL protocol, REST, canned queries, MCP),
//! or the MCP tools over stdio. Requests are logged to standard error, one line each.

use crate::cli::{McpArgs, QueryLimitArgs, ServeArgs};
use crate::output::plural;
use crate::status::{Status, UsageError};
use anyhow::{Context, Result};
use ihigraph::HistoryStore;
use ihigraph::serve::{
    ConnectionLimits, McpTools, PruneLog, PruneRecord, PruneSchedule, QUERY_STACK, QueryLimits,
    RequestLog, RequestRecord, ServeOptions, Shutdown, router, serve, serve_mcp_stdio,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The environment variable that holds the token writes need.
const TOKEN_VARIABLE: &str = "IHIGRAPH_TOKEN";

pub fn http(store: HistoryStore, args: &ServeArgs) -> Result<Status> {
    let token = std::env::var(TOKEN_VARIABLE)
        .ok()
        .filter(|token| !token.trim().is_empty());
    let options = ServeOptions {
        token,
        allow_update: args.allow_update,
        query_timeout: query_timeout(&args.limits)?,
        query_memory: args.limits.query_memory,
        max_queries: args.limits.max_queries,
        max_results: args.limits.max_results,
        max_body: args.max_body,
        max_query_body: args.max_query_body,
        body_timeout: args.body_timeout,
        allowed_hosts: args.allowed_hosts.clone(),
        prune: args.prune_every.0.map(|every| PruneSchedule {
            every,
            log: prune_log(),
        }),
        otlp_keep: args.otlp_keep,
    };
    let limits = ConnectionLimits {
        header_timeout: args.header_timeout,
        idle_timeout: args.idle_timeout,
        max_connections: args.max_connections,
    };
    let runtime = runtime()?;
    let location = store.location();
    let shutdown = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .with_context(|| format!("cannot listen on {}", args.bind))?;
        let address = listener.local_addr().context("cannot read the bound address")?;
        // Who may do what first: the `serving` line is the last one, and says it is ready.
        match (&options.token, options.allow_update) {
            (None, update) => eprintln!(
                "ihigraph: read-only: {TOKEN_VARIABLE} is not set, so writes are refused{}",
                if update { " (--allow-update too)" } else { "" }
            ),
            (Some(_), true) => eprintln!("ihigraph: writes and SPARQL updates need the bearer token in {TOKEN_VARIABLE}"),
            (Some(_), false) => eprintln!("ihigraph: writes need the bearer token in {TOKEN_VARIABLE}; SPARQL updates are off"),
        }
        let (tokens, tenants) = (store.tokens().map_or(0, |tokens| tokens.len()), store.tenants().map_or(0, |tenants| tenants.len()));
        if tokens + tenants > 0 {
            eprintln!("ihigraph: every request needs a bearer token: the store has {tokens} token{} and {tenants} tenant{} (`ihigraph token list`)", plural(tokens), plural(tenants));
        }
        if !address.ip().is_loopback() && tokens + tenants == 0 {
            eprintln!("ihigraph: warning: {address} is reachable from other machines, and reads are open to all of them");
            if options.allowed_hosts.is_empty() {
                eprintln!("ihigraph: warning: only requests for localhost, 127.0.0.1 and [::1] are answered (others get 403, against DNS rebinding): pass --allowed-host NAME for each name clients reach this server by");
            }
        }
        eprintln!("ihigraph: serving {location} at http://{address}/ (SPARQL /sparql, REST /sessions, queries /queries, MCP /mcp)");
        let cancel = CancellationToken::new();
        let app = router(Arc::new(store), options, request_log(), &cancel)
            .context("cannot read the store's register of tenants and tokens")?;
        serve(listener, app, limits, cancel, stop_signal()).await.context("the server failed")
    })?;
    if shutdown == Shutdown::CutShort {
        eprintln!(
            "ihigraph: requests still running after 9 s were cut short (a write among them is rolled back)"
        );
    }
    // A blocking task still running (a query being cancelled, a write cut short and so
    // rolled back) does not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(500));
    eprintln!("ihigraph: stopped");
    Ok(Status::Success)
}

pub fn stdio(store: HistoryStore, args: &McpArgs) -> Result<Status> {
    let tools = McpTools::new(
        Arc::new(store),
        args.limits.max_results,
        QueryLimits::new(
            query_timeout(&args.limits)?,
            args.limits.query_memory,
            args.limits.max_queries,
        ),
        Arc::new(Mutex::new(())),
    )
    .with_stdio_writes(args.allow_write);
    let runtime = runtime()?;
    runtime
        .block_on(serve_mcp_stdio(tools))
        .context("the MCP session failed")?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Status::Success)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    // Each client query runs on a thread of its own with this stack; the runtime's
    // threads, which parse a query's text to choose its answer's format, get it too.
    tokio::runtime::Builder::new_multi_thread()
        .thread_stack_size(QUERY_STACK)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")
}

fn query_timeout(limits: &QueryLimitArgs) -> Result<Duration> {
    Duration::try_from_secs_f64(limits.query_timeout)
        .ok()
        .filter(|limit| !limit.is_zero())
        .ok_or_else(|| {
            UsageError(format!(
                "--query-timeout {}: give a positive number of seconds",
                limits.query_timeout
            ))
            .into()
        })
}

/// One line per request on standard error: time, method, path, status, duration.
fn request_log() -> RequestLog {
    Arc::new(|record: &RequestRecord| {
        let now = jiff::Timestamp::now()
            .round(jiff::Unit::Millisecond)
            .unwrap_or_else(|_| jiff::Timestamp::now());
        eprintln!(
            "{now} {} {} {} {:.1} ms",
            record.method,
            record.path,
            record.status,
            record.duration.as_secs_f64() * 1000.0
        );
    })
}

/// One line per scheduled prune on standard error: time, what went, or why it failed.
fn prune_log() -> PruneLog {
    Arc::new(|record: &PruneRecord| {
        let now = jiff::Timestamp::now()
            .round(jiff::Unit::Millisecond)
            .unwrap_or_else(|_| jiff::Timestamp::now());
        let whose = |tenant: &Option<ihigraph::store::TenantName>| {
            tenant
                .as_ref()
                .map_or_else(String::new, |name| format!(" tenant {name}:"))
        };
        match record {
            PruneRecord::Pruned {
                tenant,
                retention,
                cutoff,
                totals,
                kept,
                duration,
            } => eprintln!(
                "{now} prune:{} retention {retention}: deleted {} session{} whose last turn was before {cutoff} ({} triples; memory items removed {}, unlinked {}; mentions left {}); kept {kept}; {:.1} ms",
                whose(tenant),
                totals.sessions,
                plural(totals.sessions),
                totals.graph_triples,
                totals.items_removed,
                totals.items_unlinked,
                totals.mentions_left,
                duration.as_secs_f64() * 1000.0
            ),
            PruneRecord::Failed { tenant, error } => {
                eprintln!(
                    "{now} prune:{} failed (tried again on schedule): {error}",
                    whose(tenant)
                );
            }
            _ => eprintln!("{now} prune: {record:?}"),
        }
    })
}

/// Completes on Ctrl-C or SIGTERM.
async fn stop_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(
            tokio::signal::unix::SignalKind::terminate(),
        ) {
            Ok(terminate) => terminate,
            Err(error) => {
                eprintln!(
                    "ihigraph: warning: SIGTERM cannot be caught ({error}); Ctrl-C stops the server"
                );
                let _ = interrupt.await;
                return;
            }
        };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
    eprintln!("ihigraph: stopping: requests in flight may finish (at most 10 s)");
}
