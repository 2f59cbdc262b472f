//! The tree of a Claude Code transcript cut into conversations: the main one, ending at
//! the last message line, and each branch a rewind left behind.
//!
//! A rewind (a prompt edited and sent again) writes the new prompt as a child of the line
//! before the old one: the old continuation stays in the file, a branch of the tree. Two
//! other forks are no rewinds: the lines of one API response that the walk did not pass
//! (parallel tool calls: each result points at the line of its own `tool_use`) and the
//! results answering them belong to the conversation of the response; sub-agent lines
//! (`isSidechain`) belong to no conversation of this file (a sub-agent's own file is the
//! exception: its conversation is the sidechain).
//!
//! Conversations are found newest first, as the main one is: the last message line that
//! no conversation holds yet is the tip of the next branch, which takes the lines up from
//! it until one that a conversation already holds, its fork. So where a branch of a branch
//! shares lines with a later branch, the later one holds them and the earlier one forks
//! from it, as the main conversation holds what it shares with every branch.

use super::Line;
use std::collections::HashMap;

/// One conversation of the tree: its walk up from the tip, and where it forked.
#[derive(Debug)]
pub(super) struct Walk {
    /// Its last message line.
    pub tip: usize,
    /// Its topmost line: the child of the fork, or a root.
    pub first: usize,
    /// The line of another conversation it forked from; `None` from a root (a branch
    /// that forked before the first line, or a damaged tree).
    pub fork: Option<usize>,
    /// The assistant line whose response the branch followed: the nearest one up from
    /// the fork that the fork's conversation holds. `None` when there is none (the
    /// branch forked before that conversation's first response).
    pub anchor: Option<usize>,
    /// Lines of response siblings and their results, taken in off the walked path.
    pub recovered: usize,
    /// Compaction boundaries crossed by `logicalParentUuid`.
    pub bridged: usize,
}

/// The conversations of a transcript and the lines each holds.
#[derive(Debug, Default)]
pub(super) struct Forest {
    /// For each line, the conversation holding it: 0 the main one, then the branches in
    /// the order found. Lines on a walked path are held whatever their kind, so that a
    /// fork at a line that is no message (a compaction boundary) is found too.
    pub owner: Vec<Option<usize>>,
    /// The conversations, main first.
    pub walks: Vec<Walk>,
    /// Whether the lines carry no tree (no `uuid` on the tip, or no parent link on any
    /// message line): the main conversation takes every message line in file order.
    pub flat: bool,
    /// Whether every message line is a sub-agent's: the file is a sub-agent's own
    /// transcript, whose conversation is its sidechain.
    pub agent: bool,
}

impl Forest {
    /// Whether a line belongs to the conversations the file is about (the main one and
    /// its branches, or the sub-agent's in a sub-agent's file).
    pub fn in_scope(&self, line: &Line) -> bool {
        line.is_message() && line.sidechain == self.agent
    }

    /// The message lines each conversation holds, in file order.
    pub fn held(&self, lines: &[Line]) -> Vec<Vec<usize>> {
        let mut held = vec![Vec::new(); self.walks.len()];
        for (at, owner) in self.owner.iter().enumerate() {
            if let (Some(index), true) = (owner, lines[at].is_message())
                && let Some(lines) = held.get_mut(*index)
            {
                lines.push(at);
            }
        }
        held
    }

    /// The conversations of `lines`.
    pub fn grow(lines: &[Line]) -> Self {
        let mut forest = Self {
            owner: vec![None; lines.len()],
            agent: lines
                .iter()
                .all(|line| !line.is_message() || line.sidechain),
            ..Self::default()
        };
        let Some(tip) = lines.iter().rposition(|line| forest.in_scope(line)) else {
            return forest;
        };
        let linked = lines
            .iter()
            .any(|line| forest.in_scope(line) && line.parent.is_some());
        if lines[tip].uuid.is_none() || !linked {
            forest.flat = true;
            for (owner, line) in forest.owner.iter_mut().zip(lines) {
                if line.is_message() && line.sidechain == forest.agent {
                    *owner = Some(0);
                }
            }
            forest.walks.push(Walk {
                tip,
                first: 0,
                fork: None,
                anchor: None,
                recovered: 0,
                bridged: 0,
            });
            return forest;
        }
        let tree = Tree::new(lines, forest.agent);
        let mut next_tip = Some(tip);
        while let Some(tip) = next_tip {
            let walk = tree.walk(&mut forest.owner, forest.walks.len(), tip);
            forest.walks.push(walk);
            // Held lines are never released: the next tip is before this one.
            next_tip = (0..tip)
                .rev()
                .find(|at| forest.owner[*at].is_none() && forest.in_scope(&lines[*at]));
        }
        forest
    }
}

fn uuid_index(lines: &[Line]) -> HashMap<&str, usize> {
    let mut by_uuid = HashMap::new();
    for (index, line) in lines.iter().enumerate() {
        if let Some(uuid) = &line.uuid {
            by_uuid.entry(uuid.as_str()).or_insert(index);
        }
    }
    by_uuid
}

/// The links of the tree, indexed once.
struct Tree<'a> {
    lines: &'a [Line],
    by_uuid: HashMap<&'a str, usize>,
    /// Assistant lines of the file's conversations, by the API response they belong to.
    by_response: HashMap<&'a str, Vec<usize>>,
    /// Tool-result lines of the file's conversations, by the line they point at.
    results_by_parent: HashMap<&'a str, Vec<usize>>,
}

impl<'a> Tree<'a> {
    fn new(lines: &'a [Line], agent: bool) -> Self {
        let mut tree = Tree {
            lines,
            by_uuid: uuid_index(lines),
            by_response: HashMap::new(),
            results_by_parent: HashMap::new(),
        };
        for (index, line) in lines.iter().enumerate() {
            if line.sidechain != agent {
                continue;
            }
            if let (true, Some(key)) = (line.assistant, line.response_key.as_deref()) {
                tree.by_response.entry(key).or_default().push(index);
            }
            if let (true, Some(parent)) = (line.carries_tool_result(), line.parent.as_deref()) {
                tree.results_by_parent
                    .entry(parent)
                    .or_default()
                    .push(index);
            }
        }
        tree
    }

    /// Conversation `index`: the lines up from `tip` that none holds yet, then the
    /// sibling lines of its responses and the results answering them.
    fn walk(&self, owner: &mut [Option<usize>], index: usize, tip: usize) -> Walk {
        let mut walk = Walk {
            tip,
            first: tip,
            fork: None,
            anchor: None,
            recovered: 0,
            bridged: 0,
        };
        let mut path = Vec::new();
        let mut current = Some(tip);
        while let Some(at) = current {
            if let Some(holder) = owner[at] {
                // A line of this walk again is a cycle: the file is damaged, the walk
                // ends here as at a root.
                walk.fork = (holder != index).then_some(at);
                break;
            }
            owner[at] = Some(index);
            path.push(at);
            walk.first = at;
            let line = &self.lines[at];
            current = line
                .parent
                .as_deref()
                .and_then(|uuid| self.by_uuid.get(uuid).copied());
            walk.bridged += usize::from(line.bridged && current.is_some());
        }
        walk.anchor = walk.fork.and_then(|fork| self.anchor(owner, fork));
        walk.recovered = self.recover(owner, index, &path);
        walk
    }

    /// The nearest assistant line up from `fork` held by the conversation holding it.
    fn anchor(&self, owner: &[Option<usize>], fork: usize) -> Option<usize> {
        let holder = owner[fork]?;
        let mut current = Some(fork);
        // Bounded: a damaged file may hold a cycle.
        for _ in 0..self.lines.len() {
            let at = current?;
            if owner[at] != Some(holder) {
                return None;
            }
            let line = &self.lines[at];
            if line.assistant && line.is_message() {
                return Some(at);
            }
            current = line
                .parent
                .as_deref()
                .and_then(|uuid| self.by_uuid.get(uuid).copied());
        }
        None
    }

    /// Takes in the lines of each response on `path` that the walk did not pass, and
    /// the tool results that answer them; returns how many.
    fn recover(&self, owner: &mut [Option<usize>], index: usize, path: &[usize]) -> usize {
        let mut keys: Vec<&str> = path
            .iter()
            .filter(|at| self.lines[**at].assistant && self.lines[**at].is_message())
            .filter_map(|at| self.lines[*at].response_key.as_deref())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let mut recovered = 0;
        let mut members = Vec::new();
        for key in keys {
            for &at in self.by_response.get(key).into_iter().flatten() {
                if owner[at].is_none() {
                    owner[at] = Some(index);
                    recovered += 1;
                }
                if owner[at] == Some(index) {
                    members.extend(self.lines[at].uuid.as_deref());
                }
            }
        }
        for member in members {
            for &at in self.results_by_parent.get(member).into_iter().flatten() {
                if owner[at].is_none() {
                    owner[at] = Some(index);
                    recovered += 1;
                }
            }
        }
        recovered
    }
}
