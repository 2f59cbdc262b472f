//! Sub-agent runs written in their parent's transcript: the message lines Claude Code
//! marks `isSidechain` in a file whose main conversation is not a sub-agent's.
//!
//! Each run becomes a session of its own, linked to the parent session and to the turn
//! whose call started it, rather than lines kept inside that turn. A run is a
//! conversation of its own (its prompts, responses, tool calls and results), which the
//! parent's model never saw: it got only the `Task` call's result. Kept inside the
//! parent's turn, its calls and results would be read as the parent's (`tool-usage`
//! would list them in the parent's turn, `context` would send them to the parent's
//! model). Newer Claude Code versions write the same run to a file of its own
//! (`agent-ID.jsonl`, converted as the session `SESSION-agent-ID`); a run found in the
//! parent's file gets the same name, and the link the rewinds' branches carry
//! (`BranchOf`: `ihi:branchOf`, a `prov:wasDerivedFrom`, and `ihi:forkedAfterTurn`, a
//! `prov:wasInfluencedBy`), which says what is true of a sub-agent too: it was derived
//! from the parent session and started after that turn's response.
//!
//! The runs: the sidechain message lines grouped by the root their `parentUuid` links lead
//! to (a run starts at a prompt without a sidechain parent), each in file order; a file
//! whose sidechain lines carry no links holds one run. The turn that started a run: the
//! parent's turn whose response holds the call (`Task`) whose `input.prompt` is the run's
//! first prompt; else the parent's last response written before the run's first line.

use super::{Built, ImportError, Line, SessionDraft, Sessions, merged_note, turns};
use crate::model::BranchOf;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// One sub-agent run, converted, and where in its parent it started.
#[derive(Debug)]
pub(super) struct Run {
    draft: SessionDraft,
    /// Its name after the parent's id: the run's `agentId`, else its first line's uuid.
    name: String,
    /// The parent's turn whose call started it.
    after_turn: Option<u64>,
}

/// The sub-agent runs of `lines`, whose main conversation (not a sub-agent's) is `main`.
pub(super) fn runs(lines: &[Line], main: &Built) -> Vec<Run> {
    let mut names = HashSet::new();
    grouped(lines)
        .into_iter()
        .map(|held| {
            let kept: Vec<&Line> = held.iter().map(|at| &lines[*at]).collect();
            let mut draft = SessionDraft {
                start: kept.iter().filter_map(|line| line.time).min(),
                ..SessionDraft::default()
            };
            let turned = turns(&kept, &mut draft);
            merged_note(turned.merged, &mut draft);
            let first = kept[0];
            let name = [&first.agent_id, &first.uuid]
                .into_iter()
                .flatten()
                .find(|name| !names.contains(*name))
                .cloned()
                .unwrap_or_else(|| format!("line-{}", first.number.unwrap_or_default()));
            names.insert(name.clone());
            Run {
                draft,
                name,
                after_turn: started_by(main, lines, held[0]),
            }
        })
        .collect()
}

/// Gives each run as a session named `PARENT-agent-NAME`, linked to `parent`.
pub(super) fn add(
    runs: Vec<Run>,
    parent: &str,
    sessions: &mut Sessions<'_>,
) -> Result<(), ImportError> {
    for run in runs {
        let mut draft = run.draft;
        let place = run.after_turn.map_or_else(
            || "before its first turn".to_owned(),
            |turn| format!("by its turn {turn}"),
        );
        draft.notes.insert(0, format!(
            "a sub-agent's run written in its parent's transcript (isSidechain lines): converted as a session of its own, started from session {parent:?} {place}"
        ));
        draft.session_id = Some(format!("{parent}-agent-{}", run.name));
        draft.branch_of = Some(BranchOf {
            session_id: parent.to_owned(),
            after_turn: run.after_turn,
        });
        sessions.add_named(draft)?;
    }
    Ok(())
}

/// The sidechain message lines of `lines`, grouped into runs by the root of their
/// parent links, in the order of their first lines.
fn grouped(lines: &[Line]) -> Vec<Vec<usize>> {
    let sidechain: Vec<usize> = (0..lines.len())
        .filter(|at| lines[*at].is_message() && lines[*at].sidechain)
        .collect();
    if !sidechain.iter().any(|at| lines[*at].parent.is_some()) {
        return if sidechain.is_empty() {
            Vec::new()
        } else {
            vec![sidechain]
        };
    }
    let mut by_uuid: HashMap<&str, usize> = HashMap::new();
    for &at in &sidechain {
        if let Some(uuid) = lines[at].uuid.as_deref() {
            by_uuid.entry(uuid).or_insert(at);
        }
    }
    let mut roots: Vec<Option<usize>> = vec![None; lines.len()];
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut run_of_root: HashMap<usize, usize> = HashMap::new();
    for &at in &sidechain {
        let mut current = at;
        // Bounded: a damaged file may hold a cycle.
        for _ in 0..sidechain.len() {
            if let Some(root) = roots[current] {
                current = root;
                break;
            }
            match lines[current]
                .parent
                .as_deref()
                .and_then(|uuid| by_uuid.get(uuid))
            {
                Some(&parent) if parent != at => current = parent,
                _ => break,
            }
        }
        roots[at] = Some(current);
        let run = *run_of_root.entry(current).or_insert_with(|| {
            runs.push(Vec::new());
            runs.len() - 1
        });
        runs[run].push(at);
    }
    runs
}

/// The parent's turn that started the run whose first line is at `first`: the one
/// whose response holds a call with the run's first prompt, else the last response
/// before it.
fn started_by(main: &Built, lines: &[Line], first: usize) -> Option<u64> {
    let responses = || main.held.iter().copied().filter(|at| lines[*at].assistant);
    let prompt = message_of(&lines[first]).and_then(prompt_text);
    let call = prompt.and_then(|prompt| {
        responses()
            .find(|at| message_of(&lines[*at]).is_some_and(|message| calls_with(message, prompt)))
    });
    call.or_else(|| responses().take_while(|at| *at < first).last())
        .and_then(|at| main.turn_of(at))
}

fn message_of(line: &Line) -> Option<&Value> {
    line.message
        .as_ref()
        .and_then(|object| object.get("message"))
}

/// A prompt's text: its string content, or its first text block's.
fn prompt_text(message: &Value) -> Option<&str> {
    match message.get("content")? {
        Value::String(text) => Some(text),
        Value::Array(blocks) => blocks
            .iter()
            .find(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .and_then(|block| block.get("text"))
            .and_then(Value::as_str),
        _ => None,
    }
}

/// Whether a response holds a `tool_use` whose `input.prompt` is `prompt` (Claude Code's
/// `Task` tool hands its sub-agent the prompt so).
fn calls_with(message: &Value, prompt: &str) -> bool {
    super::super::blocks(message).any(|block| {
        super::super::block_type(block) == Some("tool_use")
            && block
                .get("input")
                .and_then(|input| input.get("prompt"))
                .and_then(Value::as_str)
                == Some(prompt)
    })
}
