//! `delete`: a session with the memory made from it, with a receipt; every session of a
//! subject, with a check that nothing names it any more; or every session.

use super::plural;
use crate::cli::DeleteArgs;
use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::memory::{
    DeletionReceipt, DeletionTotals, Subject, delete_session, delete_session_and_branches,
    erase_subject,
};

pub fn run(store: &HistoryStore, args: &DeleteArgs) -> Result<Status> {
    if let Some(subject) = &args.target.subject {
        return erase(store, subject, args.dry_run);
    }
    if let Some(id) = &args.target.session {
        let receipts = if args.with_branches {
            delete_session_and_branches(store, id, args.dry_run)?
        } else {
            vec![delete_session(store, id, args.dry_run)?]
        };
        for receipt in &receipts {
            print_receipt(receipt);
        }
        if receipts.iter().any(|receipt| receipt.mentions_left > 0) {
            return Ok(Status::Failure);
        }
    } else {
        let count = store.delete_all_sessions()?;
        println!(
            "deleted {count} session{} and the memory made from them",
            plural(count)
        );
    }
    Ok(Status::Success)
}

/// Every session of `subject`, each with its receipt, then the totals and the check.
fn erase(store: &HistoryStore, subject: &Subject, dry_run: bool) -> Result<Status> {
    let erasure = erase_subject(store, subject, dry_run)?;
    for receipt in &erasure.receipts {
        print_receipt(receipt);
    }
    print_totals(&erasure.totals, dry_run);
    let left = erasure.subject_mentions_left;
    println!(
        "  check: {} triple{} in the store's named graphs{} {} {subject} (its id as a literal, an IRI or a JSON member that names it){}",
        if left == 0 {
            "no".to_owned()
        } else {
            left.to_string()
        },
        if left > 1 { "s" } else { "" },
        if store.reasons() {
            " and the inferred store"
        } else {
            ""
        },
        match (dry_run, left) {
            (true, _) => "would name",
            (false, 0 | 1) => "names",
            (false, _) => "name",
        },
        if left == 0 { "" } else { ": NOT CLEAN" },
    );
    if erasure.totals.mentions_left > 0 {
        return Ok(Status::Failure);
    }
    Ok(Status::Success)
}

/// The sums of a run's receipts.
pub(super) fn print_totals(totals: &DeletionTotals, dry_run: bool) {
    let verb = if dry_run { "would delete" } else { "deleted" };
    println!(
        "total: {verb} {} session{} ({} triple{}); memory items removed: {}, unlinked: {}; memory triples: {}; fingerprint triples: {}; links of kept branches: {}; mentions left: {}",
        totals.sessions,
        plural(totals.sessions),
        totals.graph_triples,
        plural(totals.graph_triples),
        totals.items_removed,
        totals.items_unlinked,
        totals.memory_triples,
        totals.fingerprint_triples,
        totals.branch_link_triples,
        totals.mentions_left,
    );
}

pub(super) fn print_receipt(receipt: &DeletionReceipt) {
    let (verb, would) = if receipt.dry_run {
        ("would delete", "would be ")
    } else {
        ("deleted", "")
    };
    println!("{verb} session {:?}", receipt.session_id);
    println!(
        "  graph {}: {} triple{}",
        receipt.graph,
        receipt.graph_triples,
        plural(receipt.graph_triples)
    );
    println!(
        "  memory items {would}removed (derived from this session only): {}",
        list(&receipt.items_removed)
    );
    println!(
        "  memory items {would}unlinked (derived from other sessions too): {}",
        list(&receipt.items_unlinked)
    );
    println!(
        "  memory graph: {} triple{} {would}removed",
        receipt.memory_triples,
        plural(receipt.memory_triples)
    );
    println!(
        "  fingerprint record: {} triple{} {would}removed",
        receipt.fingerprint_triples,
        plural(receipt.fingerprint_triples)
    );
    if receipt.branches_kept.is_empty() {
        println!("  branches kept (sessions forked from this one): none");
    } else {
        let name = if receipt.dry_run {
            "would then name"
        } else {
            "now name"
        };
        println!(
            "  branches kept (sessions forked from this one; --with-branches deletes them too): {}; their links ({} triple{}) {name} a session no longer stored",
            list(&receipt.branches_kept),
            receipt.branch_link_triples,
            plural(receipt.branch_link_triples),
        );
    }
    let left = receipt.mentions_left;
    let subject = if receipt.dry_run {
        "would mention"
    } else {
        "mentions"
    };
    println!(
        "  check: {} triple{} in the store's named graphs {subject} the session (its id and its {} IRIs){}",
        if left == 0 {
            "no".to_owned()
        } else {
            left.to_string()
        },
        if left > 1 { "s" } else { "" },
        receipt.iris_checked,
        if left == 0 { "" } else { ": NOT CLEAN" },
    );
}

fn list(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".to_owned()
    } else {
        format!("{} ({})", ids.len(), ids.join(", "))
    }
}
