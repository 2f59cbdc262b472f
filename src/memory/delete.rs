//! Deleting a session with everything derived from it, and a receipt that says what went
//! and proves nothing is left: the session's graph and its derived graph; its fingerprint
//! record; the memory items derived only from it (items derived from other sessions too
//! lose only their links to it); then a check that no triple in any named graph still
//! mentions the session's id, its work session, or an IRI of its own (its graph, its
//! conversation and everything below it).
//!
//! Branches (sessions forked from this one, such as the continuations a rewind left) are
//! sessions of their own: they stay unless asked ([`delete_session_and_branches`]), and
//! their links to the session, which then name a session no longer stored, are counted
//! apart from what the deletion must leave clean.

use super::MemoryError;
use crate::rdf::vocab::{ihi, prov};
use crate::store::{HistoryStore, StoreError, data_block};
use oxrdf::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

/// What a deletion removed (or, for a dry run, would remove).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletionReceipt {
    /// The session's `SessionID`.
    pub session_id: String,
    /// The session's graph.
    pub graph: NamedNode,
    /// Triples of the session's graph.
    pub graph_triples: usize,
    /// Ids of the memory items removed: derived from this session only.
    pub items_removed: Vec<String>,
    /// Ids of the memory items that keep other sources and lose their links to this one.
    pub items_unlinked: Vec<String>,
    /// Triples removed from the memory graph.
    pub memory_triples: usize,
    /// Triples of the session's fingerprint record removed from the fingerprints graph.
    pub fingerprint_triples: usize,
    /// The IRIs of the session checked for, besides its id.
    pub iris_checked: usize,
    /// Triples left anywhere that mention the session (for a dry run: that the deletion
    /// would leave). Zero after every deletion ihigraph makes.
    pub mentions_left: usize,
    /// Whether nothing was deleted.
    pub dry_run: bool,
    /// The ids of the branches of this session that stay (for a dry run: that would):
    /// their links now name a session no longer stored.
    pub branches_kept: Vec<String>,
    /// Triples of those branches' links to this session, left in their graphs.
    pub branch_link_triples: usize,
}

impl DeletionReceipt {
    /// The receipt as JSON, as the server and `--format json` give it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "session": self.session_id,
            "dry_run": self.dry_run,
            "graph": self.graph.as_str(),
            "graph_triples": self.graph_triples,
            "memory_items_removed": self.items_removed,
            "memory_items_unlinked": self.items_unlinked,
            "memory_triples": self.memory_triples,
            "fingerprint_triples": self.fingerprint_triples,
            "iris_checked": self.iris_checked,
            "mentions_left": self.mentions_left,
            "branches_kept": self.branches_kept,
            "branch_link_triples": self.branch_link_triples,
        })
    }
}

/// The properties by which a branch names the session it forked from.
const BRANCH_LINKS: [oxrdf::NamedNodeRef<'static>; 6] = [
    ihi::BRANCH_OF,
    prov::WAS_DERIVED_FROM,
    ihi::BRANCH_OF_SESSION_ID,
    ihi::FORKED_AFTER_TURN,
    ihi::FORKED_AFTER_TURN_INDEX,
    prov::WAS_INFLUENCED_BY,
];

/// Deletes a session, its fingerprint record, the memory items derived only from it and
/// the links of the others to it, in one update; then checks the store for anything left that mentions it.
/// With `dry_run`, deletes nothing and says what would go, and what would be left.
pub fn delete_session(
    store: &HistoryStore,
    session_id: &str,
    dry_run: bool,
) -> Result<DeletionReceipt, MemoryError> {
    delete_one(
        store,
        session_id,
        dry_run,
        &BTreeSet::new(),
        &mut BTreeSet::new(),
    )
}

/// Deletes a session and its branches, the branches of those and so on, each as
/// [`delete_session`] does: the deepest branches first, the session last; gives the
/// receipts in that order. With `dry_run`, deletes nothing.
pub fn delete_session_and_branches(
    store: &HistoryStore,
    session_id: &str,
    dry_run: bool,
) -> Result<Vec<DeletionReceipt>, MemoryError> {
    // Checked first, so that an unknown session is an error, not an empty list.
    store.session_graph(session_id)?;
    let mut family = vec![session_id.to_owned()];
    let mut next = 0;
    while let Some(id) = family.get(next).cloned() {
        next += 1;
        for (branch, _) in branches(store, &id)? {
            if !family.contains(&branch) {
                family.push(branch);
            }
        }
    }
    let going: BTreeSet<String> = family.iter().cloned().collect();
    let mut gone = BTreeSet::new();
    family
        .iter()
        .rev()
        .map(|id| delete_one(store, id, dry_run, &going, &mut gone))
        .collect()
}

/// The branches of a session that the store holds: each one's id and graph.
fn branches(
    store: &HistoryStore,
    session_id: &str,
) -> Result<Vec<(String, GraphName)>, StoreError> {
    let parent = store.scheme().conversation(session_id);
    let query = format!(
        "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s {} {parent} ; ?p ?o }} FILTER(?p = {}) }}",
        ihi::BRANCH_OF,
        ihi::SESSION_ID
    );
    let mut found: Vec<(String, GraphName)> = store
        .select_quads(&query)?
        .into_iter()
        .filter_map(|quad| match quad.object {
            Term::Literal(id) => Some((id.value().to_owned(), quad.graph_name)),
            _ => None,
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// The IRIs of a session: its graph, conversation and work session, and every node of
/// its graph below its conversation.
fn own_nodes(
    store: &HistoryStore,
    session_id: &str,
    graph: &NamedNode,
    triples: &oxrdf::Graph,
) -> BTreeSet<NamedNode> {
    let scheme = store.scheme();
    let conversation = scheme.conversation(session_id);
    let below = format!("{}/", conversation.as_str());
    let mut own: BTreeSet<NamedNode> = BTreeSet::new();
    own.insert(graph.clone());
    own.insert(conversation.clone());
    own.insert(scheme.work_session(session_id));
    for triple in triples {
        let subject = match triple.subject {
            oxrdf::NamedOrBlankNodeRef::NamedNode(node) => Some(node),
            oxrdf::NamedOrBlankNodeRef::BlankNode(_) => None,
        };
        let object = match triple.object {
            oxrdf::TermRef::NamedNode(node) => Some(node),
            _ => None,
        };
        for node in subject.into_iter().chain(object) {
            if node.as_str().starts_with(&below) {
                own.insert(node.into_owned());
            }
        }
    }
    own
}

/// Deletes one session; the branches' links to it are counted apart, and those of the
/// branches in `going` (deleted with it) not at all. `gone` holds the IRIs of the
/// sessions deleted before this one in the same plan, and gets this one's: a dry run,
/// which deleted none of them, then counts a memory item derived from several of them as
/// the real run does (unlinked by the first, removed by the last).
pub(super) fn delete_one(
    store: &HistoryStore,
    session_id: &str,
    dry_run: bool,
    going: &BTreeSet<String>,
    gone: &mut BTreeSet<NamedNode>,
) -> Result<DeletionReceipt, MemoryError> {
    let (graph, triples) = store.session_graph(session_id)?;
    let scheme = store.scheme();
    let own = own_nodes(store, session_id, &graph, &triples);
    let id = Literal::new_simple_literal(session_id);
    let branch_graphs: Vec<(String, GraphName)> = branches(store, session_id)?;
    // A link is a triple of a branch's graph by a link property: nothing else there
    // names this session.
    let link_of = |quad: &Quad| -> Option<&str> {
        let (branch, _) = branch_graphs
            .iter()
            .find(|(_, graph)| *graph == quad.graph_name)?;
        BRANCH_LINKS
            .contains(&quad.predicate.as_ref())
            .then_some(branch.as_str())
    };
    let mut found = mentions(store, &own, &id)?;
    let mut kept_links = 0;
    found.retain(|quad| match link_of(quad) {
        Some(branch) => {
            kept_links += usize::from(!going.contains(branch));
            false
        }
        None => true,
    });
    let memory = scheme.memory_graph();
    let MemoryChanges {
        removed: items_removed,
        unlinked: items_unlinked,
        quads: memory_quads,
    } = memory_changes(store, &memory, &found, &own, gone)?;
    // The session's fingerprint record goes with it.
    let fingerprints = GraphName::NamedNode(scheme.fingerprints_graph());
    let record: Vec<Quad> = found
        .iter()
        .filter(|quad| quad.graph_name == fingerprints)
        .cloned()
        .collect();
    let planned: HashSet<&Quad> = memory_quads.iter().chain(&record).collect();
    // The session's graph goes whole, and its derived graph with it (in the same step).
    let derived = GraphName::NamedNode(scheme.derived_graph(session_id));
    let left_by_plan = found
        .iter()
        .filter(|quad| quad.graph_name != GraphName::NamedNode(graph.clone()))
        .filter(|quad| quad.graph_name != derived)
        .filter(|quad| !planned.contains(quad))
        .count();
    let mut receipt = DeletionReceipt {
        session_id: session_id.to_owned(),
        graph: graph.clone(),
        graph_triples: triples.len(),
        items_removed,
        items_unlinked,
        memory_triples: memory_quads.len(),
        fingerprint_triples: record.len(),
        iris_checked: own.len(),
        mentions_left: left_by_plan,
        dry_run,
        branches_kept: branch_graphs
            .iter()
            .map(|(branch, _)| branch.clone())
            .filter(|branch| !going.contains(branch))
            .collect(),
        branch_link_triples: kept_links,
    };
    if dry_run {
        gone.extend(own);
        return Ok(receipt);
    }
    if memory_quads.is_empty() && record.is_empty() {
        store.delete_session(session_id)?;
    } else {
        let mut gone = memory_quads;
        gone.extend(record);
        let mut update = data_block("DELETE DATA", &gone);
        let _ = write!(update, " ;\nDROP SILENT GRAPH {graph}");
        store.update(&update)?;
    }
    receipt.mentions_left = mentions(store, &own, &id)?
        .iter()
        .filter(|quad| link_of(quad).is_none())
        .count();
    gone.extend(own);
    Ok(receipt)
}

/// Every quad in a named graph whose subject or object is one of `own`, or whose object
/// is the session's id.
fn mentions(
    store: &HistoryStore,
    own: &BTreeSet<NamedNode>,
    id: &Literal,
) -> Result<Vec<Quad>, StoreError> {
    let mut found = Vec::new();
    // In chunks, so that a session of many turns makes no oversized request.
    let nodes: Vec<&NamedNode> = own.iter().collect();
    for chunk in nodes.chunks(500) {
        let values: String = chunk.iter().map(|node| format!("{node} ")).collect();
        let query = format!(
            "SELECT ?s ?p ?o ?g WHERE {{ VALUES ?x {{ {values}}} \
             {{ GRAPH ?g {{ ?x ?p ?o }} BIND(?x AS ?s) }} UNION {{ GRAPH ?g {{ ?s ?p ?x }} BIND(?x AS ?o) }} }}"
        );
        found.extend(store.select_quads(&query)?);
    }
    let query =
        format!("SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s ?p {id} }} BIND({id} AS ?o) }}");
    found.extend(store.select_quads(&query)?);
    let mut seen = HashSet::new();
    found.retain(|quad| seen.insert(quad.clone()));
    Ok(found)
}

/// What deleting a session changes in the memory graph.
struct MemoryChanges {
    /// Ids of the items removed whole.
    removed: Vec<String>,
    /// Ids of the items that lose their links to the session.
    unlinked: Vec<String>,
    /// The memory quads to delete.
    quads: Vec<Quad>,
}

/// The memory items the session's mentions touch: those whose every source is the
/// session's or one `gone` before it (removed whole) and the others (unlinked), with the
/// memory quads to delete (the links to sessions gone before it, which their own
/// deletions counted, left out).
fn memory_changes(
    store: &HistoryStore,
    memory: &NamedNode,
    mentions: &[Quad],
    own: &BTreeSet<NamedNode>,
    gone: &BTreeSet<NamedNode>,
) -> Result<MemoryChanges, StoreError> {
    let in_memory = GraphName::NamedNode(memory.clone());
    let mut touched: BTreeMap<NamedNode, Vec<Quad>> = BTreeMap::new();
    for quad in mentions.iter().filter(|quad| quad.graph_name == in_memory) {
        if let NamedOrBlankNode::NamedNode(item) = &quad.subject {
            touched.entry(item.clone()).or_default().push(quad.clone());
        }
    }
    let (mut removed, mut unlinked, mut quads) = (Vec::new(), Vec::new(), Vec::new());
    for (item, links) in touched {
        let whole = store.select_quads(&format!(
            "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} VALUES (?s ?g) {{ ({item} {memory}) }} }}"
        ))?;
        let only_ours = whole
            .iter()
            .filter(|quad| quad.predicate == prov::WAS_DERIVED_FROM)
            .all(|quad| matches!(&quad.object, Term::NamedNode(source) if own.contains(source) || gone.contains(source)));
        let id = whole
            .iter()
            .find(|quad| quad.predicate == ihi::MEMORY_ID)
            .and_then(|quad| match &quad.object {
                Term::Literal(id) => Some(id.value().to_owned()),
                _ => None,
            })
            .unwrap_or_else(|| item.as_str().to_owned());
        if only_ours {
            removed.push(id);
            quads.extend(whole.into_iter().filter(
                |quad| !matches!(&quad.object, Term::NamedNode(node) if gone.contains(node)),
            ));
        } else {
            unlinked.push(id);
            quads.extend(links);
        }
    }
    Ok(MemoryChanges {
        removed,
        unlinked,
        quads,
    })
}
