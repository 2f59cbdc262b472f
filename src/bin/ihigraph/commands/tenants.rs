//! `tenant add|set|list|remove` and `token issue|list|revoke`: the register of a store
//! that serves many teams, kept in the store's own settings (never in a tenant's).

use super::{scheme_request, store_directory, with_flags};
use crate::cli::{StoreArgs, TenantCommand, TenantLimitArgs, TokenCommand};
use crate::output::{plural, write_text_table};
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::store::{AccessRole, TenantLimits, TenantName};

pub fn tenant(args: &StoreArgs, command: &TenantCommand) -> Result<Status> {
    let store = open_register(args, "tenant")?;
    match command {
        TenantCommand::Add(limits) => {
            let tenant = store.add_tenant(&name(&limits.name)?, &tenant_limits(limits)?)?;
            println!(
                "tenant {} added: its store is {} (opened with --tenant {})",
                tenant.name,
                store.tenant_location(&tenant.name)?.0.display(),
                tenant.name
            );
        }
        TenantCommand::Set(limits) => {
            let tenant = store.set_tenant_limits(&name(&limits.name)?, &tenant_limits(limits)?)?;
            println!("tenant {}: {}", tenant.name, describe(&tenant.limits));
        }
        TenantCommand::List => {
            let tenants = store.tenants()?;
            let rows = tenants.iter().map(|tenant| {
                vec![
                    tenant.name.to_string(),
                    tenant.created.clone(),
                    describe(&tenant.limits),
                ]
            });
            write_text_table(&["tenant", "added", "limits"], rows, &mut std::io::stdout())?;
            println!("{} tenant{}", tenants.len(), plural(tenants.len()));
        }
        TenantCommand::Remove { name: given } => {
            let revoked = store.remove_tenant(&name(given)?)?;
            println!(
                "tenant {given} removed with its store, and {} token{} revoked",
                revoked.len(),
                plural(revoked.len())
            );
        }
    }
    Ok(Status::Success)
}

pub fn token(args: &StoreArgs, command: &TokenCommand) -> Result<Status> {
    let store = open_register(args, "token")?;
    match command {
        TokenCommand::Issue { role, note } => {
            let role: AccessRole = role.parse()?;
            let tenant = args.tenant.as_deref().map(name).transpose()?;
            let issued = store.issue_token(tenant.as_ref(), role, note.as_deref())?;
            eprintln!(
                "token {} issued ({}, {}): it is shown this once, keep it now",
                issued.record.id,
                role.name(),
                tenant
                    .as_ref()
                    .map_or("the store's own sessions".to_owned(), |name| format!(
                        "tenant {name}"
                    ))
            );
            println!("{}", issued.secret);
        }
        TokenCommand::List => {
            let tokens = store.tokens()?;
            let rows = tokens.iter().map(|token| {
                vec![
                    token.id.clone(),
                    token.role.name().to_owned(),
                    token.tenant.as_ref().map_or_else(
                        || {
                            if token.role == AccessRole::Admin {
                                "(all)".to_owned()
                            } else {
                                "(store)".to_owned()
                            }
                        },
                        ToString::to_string,
                    ),
                    token.note.clone().unwrap_or_default(),
                    token.created.clone(),
                ]
            });
            write_text_table(
                &["id", "role", "tenant", "note", "issued"],
                rows,
                &mut std::io::stdout(),
            )?;
            println!("{} token{}", tokens.len(), plural(tokens.len()));
        }
        TokenCommand::Revoke { id } => {
            let record = store.revoke_token(id)?;
            println!("token {} ({}) revoked", record.id, record.role.name());
        }
    }
    Ok(Status::Success)
}

/// The store whose register the command changes: the store directory itself, whatever
/// --tenant says (a token command reads --tenant as the tenant the token is for).
fn open_register(args: &StoreArgs, command: &str) -> Result<HistoryStore> {
    if args.memory || args.endpoint.is_some() {
        return Err(UsageError(format!(
            "`{command}` keeps its register in a store directory: a store in memory or on a server has no tenants (give --store DIR)"
        ))
        .into());
    }
    let directory = store_directory(args)?;
    HistoryStore::open(&directory, &scheme_request(args)).map_err(with_flags)
}

fn name(given: &str) -> Result<TenantName> {
    Ok(given.parse()?)
}

fn tenant_limits(args: &TenantLimitArgs) -> Result<TenantLimits> {
    let query_time = args
        .max_query_seconds
        .map(|seconds| {
            TenantLimits::query_seconds(seconds).ok_or_else(|| {
                UsageError(format!(
                    "--max-query-seconds {seconds}: give a positive number of seconds"
                ))
            })
        })
        .transpose()?;
    Ok(TenantLimits {
        requests_per_minute: args.max_requests_per_minute,
        result_rows: args.max_result_rows,
        query_time,
        body_bytes: args.max_body_bytes,
        stored_quads: args.max_stored_quads,
    })
}

/// A tenant's limits as one line: those it sets, or that it has the server's.
fn describe(limits: &TenantLimits) -> String {
    let mut parts = Vec::new();
    if let Some(n) = limits.requests_per_minute {
        parts.push(format!("{n} requests/min"));
    }
    if let Some(n) = limits.result_rows {
        parts.push(format!("{n} rows"));
    }
    if let Some(time) = limits.query_time {
        parts.push(format!("{:.1} s/query", time.as_secs_f64()));
    }
    if let Some(n) = limits.body_bytes {
        parts.push(format!("{n} bytes/body"));
    }
    if let Some(n) = limits.stored_quads {
        parts.push(format!("{n} quads"));
    }
    if parts.is_empty() {
        "the server's".to_owned()
    } else {
        parts.join(", ")
    }
}
