//! `retention show|set|clear`: how long the store keeps a session after its last turn.

use crate::cli::RetentionAction;
use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;

pub fn run(store: &HistoryStore, action: &RetentionAction) -> Result<Status> {
    match action {
        RetentionAction::Show => match store.retention()? {
            Some(period) => println!(
                "retention: {period} ({}): sessions whose last turn is older are pruned",
                in_days(period.as_seconds())
            ),
            None => println!("retention: none: sessions are kept until deleted"),
        },
        RetentionAction::Set { period } => {
            store.set_retention(Some(*period))?;
            println!(
                "retention: {period} ({}): `ihigraph prune` deletes the sessions whose last turn is older",
                in_days(period.as_seconds())
            );
        }
        RetentionAction::Clear => {
            store.set_retention(None)?;
            println!("retention: none: sessions are kept until deleted");
        }
    }
    Ok(Status::Success)
}

/// A period for people: in days, hours, minutes and seconds.
fn in_days(seconds: u64) -> String {
    let parts = [
        (seconds / 86_400, "day"),
        (seconds % 86_400 / 3_600, "hour"),
        (seconds % 3_600 / 60, "minute"),
        (seconds % 60, "second"),
    ];
    parts
        .into_iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, unit)| format!("{count} {unit}{}", if count == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(" ")
}
