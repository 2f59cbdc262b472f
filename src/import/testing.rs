//! Test helpers for importers: convert a text through the real file reader, and count
//! what a faithful conversion gives (turns, calls, results, pairs, errors, tools, roles),
//! reading the converted payloads as the mapping reads them.

use super::{Choice, Converted, ImportError, ImportEvent, ImportOptions, Importer, import_paths};
use crate::model::JsonObject;
use crate::payload::{
    PayloadKind, answer_messages, find_tool_calls, find_tool_results, payload_text, prompt_messages,
};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write;

/// The sessions of `text` read as a file named `name` (its ending only matters for
/// nothing: syntax comes from content), or why the file is refused.
pub(crate) fn convert_text(
    importer: &'static dyn Importer,
    name: &str,
    text: &str,
    options: &ImportOptions,
) -> Result<Vec<Converted>, ImportError> {
    run(Choice::Format(importer), name, text, options).1
}

/// The one session of `text` read with `importer` under the session id `id`: its
/// counts, its document and its notes.
pub(crate) fn only_session(
    importer: &'static dyn Importer,
    name: &str,
    text: &str,
    id: &str,
) -> (Counts, Value, Vec<String>) {
    let sessions = convert_text(
        importer,
        name,
        text,
        &ImportOptions::default().session_id(id),
    )
    .expect("converts");
    assert_eq!(sessions.len(), 1, "one session");
    let session = &sessions[0];
    (counts(session), session.document(), session.notes.clone())
}

/// Owned strings, for expected tool names and roles.
pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// The format `--from auto` picks for `text`, or why it cannot tell.
pub(crate) fn detect_text(name: &str, text: &str) -> Result<&'static str, ImportError> {
    let (picked, outcome) = run(Choice::Auto, name, text, &ImportOptions::default());
    outcome.map(|_| picked.unwrap_or("(none)"))
}

fn run(
    choice: Choice,
    name: &str,
    text: &str,
    options: &ImportOptions,
) -> (Option<&'static str>, Result<Vec<Converted>, ImportError>) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .expect("write the fixture");
    let mut sessions = Vec::new();
    let mut refusal = None;
    let mut picked = None;
    import_paths(&[path], choice, options, &mut |event| {
        match event {
            ImportEvent::Detected { format, .. } => picked = Some(format),
            ImportEvent::Session { converted, .. } => sessions.push(*converted),
            ImportEvent::Refused { error, .. } => refusal = Some(error),
        }
        true
    });
    (picked, refusal.map_or(Ok(sessions), Err))
}

/// What a converted session holds, as the mapping will read it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Counts {
    pub turns: usize,
    pub calls: usize,
    pub results: usize,
    /// Results that answer a call of the session.
    pub paired: usize,
    /// Results flagged as errors.
    pub errors: usize,
    /// The tools called, sorted.
    pub tools: Vec<String>,
    /// Each turn's role.
    pub roles: Vec<String>,
}

/// Counts a converted session's turns, calls and results.
pub(crate) fn counts(converted: &Converted) -> Counts {
    let mut counts = Counts::default();
    let mut tools = BTreeSet::new();
    let mut by_id: HashSet<String> = HashSet::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut seen = HashSet::new();
    let document = converted.document();
    let turns = document["Turns"].as_array().expect("Turns");
    for turn in turns {
        counts.turns += 1;
        counts
            .roles
            .push(turn["Role"].as_str().expect("Role").to_owned());
        let prompt = turn["PRCPrompt"].as_object().expect("PRCPrompt");
        let response = turn["BKNResponse"].as_object().expect("BKNResponse");
        for payload in [prompt, response] {
            let is_response = std::ptr::eq(payload, response);
            if is_response {
                for call in find_tool_calls(response) {
                    counts.calls += 1;
                    tools.insert(call.name.clone());
                    match call.call_id {
                        Some(id) => {
                            by_id.insert(id);
                        }
                        None => *by_name.entry(call.name).or_default() += 1,
                    }
                }
            }
            for result in find_tool_results(payload) {
                let key = match &result.call_id {
                    Some(id) => (Some(id.clone()), None, result.data.clone()),
                    None => (None, result.name.clone(), result.data.clone()),
                };
                if !seen.insert(key) {
                    continue;
                }
                counts.results += 1;
                counts.errors += usize::from(result.is_error == Some(true));
                let answered = match (&result.call_id, &result.name) {
                    (Some(id), _) => by_id.contains(id),
                    (None, Some(name)) => match by_name.get_mut(name) {
                        Some(open) if *open > 0 => {
                            *open -= 1;
                            true
                        }
                        _ => false,
                    },
                    (None, None) => false,
                };
                counts.paired += usize::from(answered);
            }
        }
    }
    counts.tools = tools.into_iter().collect();
    counts
}

/// Asserts that the payload layer reads `payload` as it reads `without`, the same payload
/// without what an importer kept beside its messages (lines that are no message): the
/// same messages, text, calls and results.
pub(crate) fn assert_read_alike(payload: &JsonObject, without: &JsonObject, kind: PayloadKind) {
    let messages = |payload: &JsonObject| match kind {
        PayloadKind::Prompt => prompt_messages(payload),
        PayloadKind::Answer => answer_messages(payload),
    };
    assert_eq!(messages(payload), messages(without), "{payload:?}");
    assert_eq!(payload_text(payload, kind), payload_text(without, kind));
    assert_eq!(find_tool_calls(payload), find_tool_calls(without));
    assert_eq!(find_tool_results(payload), find_tool_results(without));
}
