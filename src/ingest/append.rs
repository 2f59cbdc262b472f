//! Appending one turn to a stored session, as the orchestrator of a running agent does.

use super::IngestError;
use crate::check::{CheckOptions, Problem, check_document};
use crate::rdf::{MappingWarning, map_history};
use crate::store::{HistoryStore, StoreError};
use serde_json::Value;

/// What appending a turn did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendOutcome {
    /// The session was started by this turn.
    pub created: bool,
    /// The turn completed the session's last turn, which awaited its response, in
    /// place (same `TurnIndex`) instead of adding one.
    pub completed: bool,
    /// The session's turns now.
    pub turn_count: usize,
    /// Problems downgraded to warnings (lenient checks).
    pub warnings: Vec<Problem>,
    /// What the mapper noticed.
    pub mapping_warnings: Vec<MappingWarning>,
}

/// What a session started by its first appended turn holds besides that turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// `MInstanceID`.
    pub m_instance_id: String,
    /// `UEnvironmentID`.
    pub u_environment_id: String,
    /// `DataXMData`, the session's data-exchange metadata (a JSON object).
    pub data_exchange_metadata: Value,
}

impl NewSession {
    /// The least data-exchange metadata PTF V1.0 accepts for a session: its `DataID` and
    /// the AIM that produced it.
    pub fn minimal_metadata(data_id: &str, source_aim: &str) -> Value {
        serde_json::json!({
            "Header": "PTF-DEM-V1.0",
            "DataID": data_id,
            "DataType": "PGM-IHI-V1.0",
            "Source": [{"AIMID": source_aim}],
        })
    }

    /// The document of a new session holding just `turn`; its start time is the
    /// turn's `Timestamp`.
    fn document(&self, session_id: &str, turn: &Value) -> Value {
        serde_json::json!({
            "Header": "PGM-IHI-V1.0",
            "MInstanceID": self.m_instance_id,
            "UEnvironmentID": self.u_environment_id,
            "SessionID": session_id,
            "SessionStartTime": turn.get("Timestamp").cloned().unwrap_or(Value::Null),
            "TurnCount": 1,
            "Turns": [turn],
            "DataXMData": self.data_exchange_metadata,
        })
    }
}

/// Adds one turn to a stored session: the session is read back from its graph, the turn
/// appended and `TurnCount` updated, and the whole document checked as any document is
/// (the turn's `TurnIndex` must be the next one); then the session is replaced in one
/// atomic step, so that tool results in the turn link to invocations of earlier turns.
/// When the session's last turn awaits its response (`BKNResponse` is `{}`), a turn with
/// that turn's `TurnIndex` completes it in place: it replaces that turn, whose prompt it
/// should repeat, instead of being added after it.
/// With `create`, an unknown session is started from the turn.
///
/// ```
/// use ihigraph::check::CheckOptions;
/// use ihigraph::ingest::{NewSession, append_turn};
/// use ihigraph::HistoryStore;
/// use serde_json::json;
/// let store = HistoryStore::in_memory(&Default::default())?;
/// let time = json!({"Header": "OSD-STM-V1.5", "SimpleTimeID": "t0",
///     "SimpleTimeData": [{"FlagsByte": 3, "StartTime": 0, "EndTime": 0,
///                         "AccuracyMode": "single", "AccuracyPlusMinus": 0}]});
/// let turn = json!({"TurnIndex": 0, "Timestamp": time, "Role": "H-User",
///     "PRCPrompt": {"content": "hello"}, "BKNResponse": {"content": "hi"}});
/// let new = NewSession {
///     m_instance_id: "m1".into(),
///     u_environment_id: "u1".into(),
///     data_exchange_metadata: json!({"Header": "PTF-DEM-V1.0", "DataID": "d1",
///                                    "Source": [{"AIMID": "aim"}]}),
/// };
/// let outcome = append_turn(&store, "s1", &turn, Some(&new), CheckOptions::default())?;
/// assert!(outcome.created);
/// assert_eq!(store.history("s1")?.turns.len(), 1);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn append_turn(
    store: &HistoryStore,
    session_id: &str,
    turn: &Value,
    create: Option<&NewSession>,
    options: CheckOptions,
) -> Result<AppendOutcome, IngestError> {
    let (mut document, created) = match (store.history(session_id), create) {
        (Ok(history), _) => (
            serde_json::to_value(&history).expect("a history always serializes"),
            false,
        ),
        (Err(StoreError::UnknownSession { .. }), Some(new)) => {
            (new.document(session_id, turn), true)
        }
        (Err(error), _) => return Err(error.into()),
    };
    let mut completed = false;
    if !created {
        let turns = document
            .get_mut("Turns")
            .and_then(Value::as_array_mut)
            .expect("a rebuilt history has turns");
        match turns.last_mut() {
            Some(last) if completes(last, turn) => {
                *last = turn.clone();
                completed = true;
            }
            _ => turns.push(turn.clone()),
        }
        let count = turns.len();
        document["TurnCount"] = Value::from(count);
    }
    let checked = check_document(&document, options);
    let problems = checked.problems;
    let Some(history) = checked.history else {
        return Err(IngestError::Refused { problems });
    };
    let session = map_history(&history, store.scheme());
    store.write_session(&session)?;
    Ok(AppendOutcome {
        created,
        completed,
        turn_count: history.turns.len(),
        warnings: problems,
        mapping_warnings: session.warnings,
    })
}

/// Whether `turn` completes `last`: `last` awaits its response and `turn` has its index.
fn completes(last: &Value, turn: &Value) -> bool {
    let awaits = last
        .get("BKNResponse")
        .and_then(Value::as_object)
        .is_some_and(serde_json::Map::is_empty);
    let index = |turn: &Value| {
        turn.get("TurnIndex")
            .and_then(Value::as_number)
            .and_then(|n| crate::model::JsonDecimal::parse(&n.to_string()))
    };
    awaits && index(last).is_some() && index(last) == index(turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turn(index: u64, prompt: &str, response: &Value) -> Value {
        json!({"TurnIndex": index, "Role": "H-User",
            "Timestamp": {"Header": "OSD-STM-V1.5", "SimpleTimeID": format!("t{index}"),
                "SimpleTimeData": [{"FlagsByte": 3, "StartTime": index, "EndTime": index,
                                    "AccuracyMode": "single", "AccuracyPlusMinus": 0}]},
            "PRCPrompt": {"content": prompt}, "BKNResponse": response})
    }

    #[test]
    fn a_turn_with_the_index_of_an_awaiting_last_turn_completes_it_in_place() {
        let store = HistoryStore::in_memory(&Default::default()).expect("store");
        let new = NewSession {
            m_instance_id: "m".into(),
            u_environment_id: "u".into(),
            data_exchange_metadata: NewSession::minimal_metadata("d", "aim"),
        };
        let options = CheckOptions::default();
        let first = turn(0, "hello", &json!({"content": "hi"}));
        append_turn(&store, "s", &first, Some(&new), options).expect("started");
        let waiting = turn(1, "still there?", &json!({}));
        let outcome = append_turn(&store, "s", &waiting, None, options).expect("appended");
        assert_eq!((outcome.completed, outcome.turn_count), (false, 2));
        let answered = turn(1, "still there?", &json!({"content": "yes"}));
        let outcome = append_turn(&store, "s", &answered, None, options).expect("completed");
        assert_eq!((outcome.completed, outcome.turn_count), (true, 2));
        let history = store.history("s").expect("stored");
        assert_eq!(history.turns[1].response["content"], "yes");
        // An answered last turn is not replaced: the same index again is refused.
        let again = turn(1, "once more", &json!({"content": "no"}));
        assert!(append_turn(&store, "s", &again, None, options).is_err());
    }
}
