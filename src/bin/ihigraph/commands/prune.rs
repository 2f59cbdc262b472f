//! `prune [--dry-run]`: the sessions older than the store's retention period deleted,
//! each with its receipt, then the totals.

use super::delete::{print_receipt, print_totals};
use crate::cli::{PruneArgs, ReceiptFormat};
use crate::status::{Status, UsageError};
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::memory::{DeletionReceipt, prune};
use oxsdatatypes::DateTime;

pub fn run(store: &HistoryStore, args: &PruneArgs) -> Result<Status> {
    let Some(retention) = store.retention()? else {
        return Err(UsageError(
            "the store has no retention period, so nothing is old enough to prune: set one with `ihigraph retention set 90d`".to_owned(),
        )
        .into());
    };
    let pruning = prune(store, retention, DateTime::now(), args.dry_run)?;
    match args.format {
        ReceiptFormat::Json => {
            let body = serde_json::json!({
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
