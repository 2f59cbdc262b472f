//! `prune [--dry-run]`: the sessions older than the store's retention period deleted,
//! each with its receipt, then the totals: the store's own, then each tenant's (by the
//! tenant's period, or the store's when it has none); with --tenant, that tenant's only.

use super::delete::{print_receipt, print_totals};
use super::{open_store, scheme_request, store_directory, with_flags};
use crate::cli::StoreArgs;
use crate::cli::{PruneArgs, ReceiptFormat};
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::memory::{DeletionReceipt, prune};
use ihigraph::store::{RetentionPeriod, TenantName};
use oxsdatatypes::DateTime;

pub fn run(store_args: &StoreArgs, args: &PruneArgs) -> Result<Status> {
    let no_period = || -> anyhow::Error {
        UsageError(
            "the store has no retention period, so nothing is old enough to prune: set one with `ihigraph retention set 90d`".to_owned(),
        )
        .into()
    };
    if store_args.memory || store_args.endpoint.is_some() {
        let store = open_store(store_args)?;
        let retention = store.retention()?.ok_or_else(no_period)?;
        return prune_one(&store, retention, None, args);
    }
    let root = HistoryStore::open(&store_directory(store_args)?, &scheme_request(store_args))
        .map_err(with_flags)?;
    let fallback = root.retention()?;
    if let Some(tenant) = &store_args.tenant {
        let name: TenantName = tenant.parse()?;
        let store = root.open_tenant(&name)?;
        let retention = store.retention()?.or(fallback).ok_or_else(no_period)?;
        return prune_one(&store, retention, Some(&name), args);
    }
    let mut status = Status::Success;
    let mut pruned = false;
    if let Some(retention) = fallback {
        status = worse(status, prune_one(&root, retention, None, args)?);
        pruned = true;
    }
    for tenant in root.tenants()? {
        let store = root.open_tenant(&tenant.name)?;
        if let Some(retention) = store.retention()?.or(fallback) {
            status = worse(
                status,
                prune_one(&store, retention, Some(&tenant.name), args)?,
            );
            pruned = true;
        }
    }
    if !pruned {
        return Err(no_period());
    }
    Ok(status)
}

/// The status of two prunes: a failure if either failed.
fn worse(one: Status, other: Status) -> Status {
    if one == Status::Success { other } else { one }
}

/// Prunes one store (the store's own sessions, or a tenant's) and prints what went.
fn prune_one(
    store: &HistoryStore,
    retention: RetentionPeriod,
    tenant: Option<&TenantName>,
    args: &PruneArgs,
) -> Result<Status> {
    let pruning = prune(store, retention, DateTime::now(), args.dry_run)?;
    match args.format {
        ReceiptFormat::Json => {
            // One document per store pruned, one after another (as `jq` reads them).
            let body = serde_json::json!({
                "tenant": tenant.map(TenantName::as_str),
                "retention": retention.to_string(),
                "cutoff": pruning.cutoff.to_string(),
                "dry_run": pruning.dry_run,
                "receipts": pruning.receipts.iter().map(DeletionReceipt::to_json).collect::<Vec<_>>(),
                "totals": pruning.totals.to_json(),
                "kept": pruning.kept,
                "undated": pruning.undated,
            });
            println!("{}", serde_json::to_string_pretty(&body)?);
        }
        ReceiptFormat::Text => {
            if let Some(tenant) = tenant {
                println!("tenant {tenant}:");
            }
            println!(
                "retention {retention}: sessions whose last turn is before {} go",
                pruning.cutoff
            );
            for receipt in &pruning.receipts {
                print_receipt(receipt);
            }
            print_totals(&pruning.totals, pruning.dry_run);
            println!(
                "kept: {} session{}",
                pruning.kept,
                super::plural(pruning.kept)
            );
            if !pruning.undated.is_empty() {
                println!(
                    "kept for want of an absolute time to judge by: {}",
                    pruning.undated.join(", ")
                );
            }
        }
    }
    if pruning.totals.mentions_left > 0 {
        return Ok(Status::Failure);
    }
    Ok(Status::Success)
}
