//! Sessions deleted many at a time, each as [`delete_session`](super::delete_session)
//! deletes one (its graph and derived graph, its fingerprint record, the memory made from
//! it alone, the links of the rest; the full-text index and the inferred store follow
//! every deletion of the store), with its receipt and the totals: by age ([`prune`]: the
//! sessions whose last turn is older than the store's retention period) and by subject
//! ([`erase_subject`]: every session of one M-Instance, U-Environment or user, then a
//! check that nothing in the store names that id any more).
//!
//! A branch (a session forked from another, such as the continuation a rewind left) is a
//! session of its own: its own last turn decides its age, and it goes with the sessions it
//! forked from only when it is old enough itself. When a session and its branch both go,
//! the branch goes first, so that no receipt counts links that are deleted in the same run.

use super::MemoryError;
use super::delete::{DeletionReceipt, delete_one};
use crate::query::{Arguments, SESSIONS};
use crate::rdf::vocab::ihi;
use crate::store::{HistoryStore, QueryOptions, RetentionPeriod, StoreError};
use oxigraph::sparql::QueryResults;
use oxrdf::{GraphName, Literal, NamedNode, Quad, Term};
use oxsdatatypes::DateTime;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::str::FromStr;

/// The sums of a run's receipts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeletionTotals {
    /// Sessions deleted (for a dry run: that would be).
    pub sessions: usize,
    /// Triples of their graphs.
    pub graph_triples: usize,
    /// Memory items removed: derived from deleted sessions only.
    pub items_removed: usize,
    /// Times a memory item kept its other sources and lost its links to a deleted session.
    pub items_unlinked: usize,
    /// Triples removed from the memory graph.
    pub memory_triples: usize,
    /// Triples of fingerprint records removed.
    pub fingerprint_triples: usize,
    /// Triples of the links of kept branches to deleted sessions.
    pub branch_link_triples: usize,
    /// Triples left anywhere that mention a deleted session, or (for an erasure) name
    /// the subject: zero after every run ihigraph makes.
    pub mentions_left: usize,
}

impl DeletionTotals {
    /// The totals as JSON, with the receipts' names.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "sessions": self.sessions,
            "graph_triples": self.graph_triples,
            "memory_items_removed": self.items_removed,
            "memory_items_unlinked": self.items_unlinked,
            "memory_triples": self.memory_triples,
            "fingerprint_triples": self.fingerprint_triples,
            "branch_link_triples": self.branch_link_triples,
            "mentions_left": self.mentions_left,
        })
    }

    /// The sums of `receipts`.
    pub fn of(receipts: &[DeletionReceipt]) -> Self {
        let mut totals = Self::default();
        for receipt in receipts {
            totals.sessions += 1;
            totals.graph_triples += receipt.graph_triples;
            totals.items_removed += receipt.items_removed.len();
            totals.items_unlinked += receipt.items_unlinked.len();
            totals.memory_triples += receipt.memory_triples;
            totals.fingerprint_triples += receipt.fingerprint_triples;
            totals.branch_link_triples += receipt.branch_link_triples;
            totals.mentions_left += receipt.mentions_left;
        }
        totals
    }
}

/// What a prune deleted (or, for a dry run, would delete).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruning {
    /// Sessions whose last turn is before this time go: now less the retention period.
    pub cutoff: DateTime,
    /// The receipts, one per session deleted, branches before the sessions they forked from.
    pub receipts: Vec<DeletionReceipt>,
    /// Their sums.
    pub totals: DeletionTotals,
    /// Sessions kept: their last turn is at or after the cutoff.
    pub kept: usize,
    /// Sessions kept for want of a time to judge by: neither their turns nor their start
    /// has an absolute time (a time kept as an offset only), or theirs has no time zone
    /// and lies within 14 hours of the cutoff.
    pub undated: Vec<String>,
    /// Whether nothing was deleted.
    pub dry_run: bool,
}

/// Deletes the sessions whose last turn (the newest absolute time of its turns, or the
/// session's start when no turn has one) is older than `now` less `retention`, each as
/// [`delete_session`](super::delete_session) does, with its receipt. With `dry_run`,
/// deletes nothing and says what would go. The times are read with one query
/// (`sessions`), not by reading each session.
pub fn prune(
    store: &HistoryStore,
    retention: RetentionPeriod,
    now: DateTime,
    dry_run: bool,
) -> Result<Pruning, MemoryError> {
    prune_at_most(store, retention, now, dry_run, usize::MAX)
}

/// [`prune`], deleting at most `most` of the sessions that go, the oldest first: a
/// server prunes in such steps, each a write of its own, so that other writes are not
/// held up for the whole prune. `kept` counts the sessions kept, not those left for the
/// next step.
pub fn prune_at_most(
    store: &HistoryStore,
    retention: RetentionPeriod,
    now: DateTime,
    dry_run: bool,
    most: usize,
) -> Result<Pruning, MemoryError> {
    // A period reaching back before the calendar begins keeps everything.
    let cutoff = now
        .checked_sub_day_time_duration(retention.to_day_time_duration())
        .unwrap_or(DateTime::MIN);
    let mut expired = Vec::new();
    let mut undated = Vec::new();
    let mut kept = 0;
    for (session, last) in last_times(store)? {
        match last.and_then(|last| last.partial_cmp(&cutoff).map(|order| (order, last))) {
            Some((std::cmp::Ordering::Less, last)) => expired.push((last, session)),
            Some(_) => kept += 1,
            None => undated.push(session),
        }
    }
    if expired.len() > most {
        expired.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        expired.truncate(most);
    }
    let expired: Vec<String> = expired.into_iter().map(|(_, session)| session).collect();
    let receipts = delete_all(store, &expired, dry_run)?;
    Ok(Pruning {
        cutoff,
        totals: DeletionTotals::of(&receipts),
        receipts,
        kept,
        undated,
        dry_run,
    })
}

/// Each stored session with the time its age is counted from: its last turn's, else its
/// start's; none when it has neither.
fn last_times(store: &HistoryStore) -> Result<Vec<(String, Option<DateTime>)>, StoreError> {
    let QueryResults::Solutions(rows) = store.run(&SESSIONS, &Arguments::new())? else {
        unreachable!("sessions is a SELECT query")
    };
    let time = |term: Option<&Term>| match term {
        Some(Term::Literal(value)) => DateTime::from_str(value.value()).ok(),
        _ => None,
    };
    let mut sessions = Vec::new();
    for row in rows {
        let row = row.map_err(StoreError::QueryEvaluation)?;
        let Some(Term::Literal(session)) = row.get("session") else {
            continue;
        };
        let last = time(row.get("lastTurnTime")).or_else(|| time(row.get("startTime")));
        sessions.push((session.value().to_owned(), last));
    }
    Ok(sessions)
}

/// Deletes the sessions `ids`, the branches among them before the sessions they forked
/// from; gives the receipts in that order.
fn delete_all(
    store: &HistoryStore,
    ids: &[String],
    dry_run: bool,
) -> Result<Vec<DeletionReceipt>, MemoryError> {
    let going: BTreeSet<String> = ids.iter().cloned().collect();
    let parents = branch_parents(store)?;
    // How many sessions going in the same run a session forked from, one after another.
    let depth = |id: &String| {
        let mut depth = 0;
        let mut at = id;
        while let Some(parent) = parents.get(at).filter(|parent| going.contains(*parent)) {
            depth += 1;
            at = parent;
            if depth > going.len() {
                break; // a loop of links, which ihigraph never writes
            }
        }
        depth
    };
    let mut order: Vec<(usize, &String)> = ids.iter().map(|id| (depth(id), id)).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut gone = BTreeSet::new();
    order
        .into_iter()
        .map(|(_, id)| delete_one(store, id, dry_run, &going, &mut gone))
        .collect()
}

/// Each stored session's `SessionID` by its graph.
fn session_ids(store: &HistoryStore) -> Result<HashMap<GraphName, String>, StoreError> {
    Ok(store
        .sessions()?
        .into_iter()
        .map(|(id, graph)| (GraphName::from(graph), id))
        .collect())
}

/// Each stored branch's `SessionID` with the `SessionID` of the session it forked from.
fn branch_parents(store: &HistoryStore) -> Result<BTreeMap<String, String>, StoreError> {
    let property = ihi::BRANCH_OF_SESSION_ID;
    let links = store.select_quads(&format!(
        "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s {property} ?o }} BIND({property} AS ?p) }}"
    ))?;
    let ids = session_ids(store)?;
    Ok(links
        .into_iter()
        .filter_map(|link| match (ids.get(&link.graph_name), link.object) {
            (Some(branch), Term::Literal(parent)) => {
                Some((branch.clone(), parent.value().to_owned()))
            }
            _ => None,
        })
        .collect())
}

/// Whom an erasure is about: an M-Instance, a U-Environment or a user, by id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// `MInstanceID` (`ihi:mInstanceId`, on the session and its data-exchange metadata).
    Instance(String),
    /// `UEnvironmentID` (`ihi:uEnvironmentId`).
    Environment(String),
    /// A user, as the histories name one: PGM-IHI has no field for a user, so a user is
    /// found where a source format kept its id in a payload: a `userId`, `user_id` or
    /// `user` member (AgentOS's `GMITurnInput.userId`, OpenAI's end-user `user`) of a
    /// payload or user entity state (`ihi:rawJson`), at any depth.
    User(String),
}

/// A subject written in a form [`Subject`] does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` names no subject: {reason} (expected instance=ID, environment=ID or user=ID)")]
pub struct SubjectError {
    /// What was given.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// The JSON members that name a user.
const USER_MEMBERS: [&str; 3] = ["userId", "user_id", "user"];

impl Subject {
    /// The id.
    pub fn id(&self) -> &str {
        match self {
            Self::Instance(id) | Self::Environment(id) | Self::User(id) => id,
        }
    }

    /// Its key: `instance`, `environment` or `user`.
    pub fn key(&self) -> &'static str {
        match self {
            Self::Instance(_) => "instance",
            Self::Environment(_) => "environment",
            Self::User(_) => "user",
        }
    }

    /// The members of a JSON literal (a payload's, a metadata's) that name it.
    fn json_members(&self) -> &'static [&'static str] {
        match self {
            Self::Instance(_) => &["MInstanceID"],
            Self::Environment(_) => &["UEnvironmentID"],
            Self::User(_) => &USER_MEMBERS,
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key(), self.id())
    }
}

impl FromStr for Subject {
    type Err = SubjectError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |reason| SubjectError {
            text: text.to_owned(),
            reason,
        };
        let (key, id) = text.split_once('=').ok_or_else(|| error("it has no `=`"))?;
        if id.is_empty() {
            return Err(error("the id is empty"));
        }
        let id = id.to_owned();
        match key {
            "instance" => Ok(Self::Instance(id)),
            "environment" => Ok(Self::Environment(id)),
            "user" => Ok(Self::User(id)),
            _ => Err(error("the key is not instance, environment or user")),
        }
    }
}

/// What an erasure deleted (or, for a dry run, would delete).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Erasure {
    /// Whom it was about.
    pub subject: Subject,
    /// The receipts, one per session deleted.
    pub receipts: Vec<DeletionReceipt>,
    /// Their sums; `mentions_left` counts the triples naming the subject too.
    pub totals: DeletionTotals,
    /// Triples left in any named graph (and in the inferred store, when the store
    /// reasons) that name the subject's id: as a whole literal, as an IRI, or as the
    /// value of a member that names such a subject in a JSON literal (for a dry run:
    /// those outside the graphs that would go). Zero after every erasure ihigraph makes.
    pub subject_mentions_left: usize,
    /// Whether nothing was deleted.
    pub dry_run: bool,
}

/// Deletes every session that names `subject`, each as
/// [`delete_session`](super::delete_session) does, with its receipt; then checks that no
/// triple in the store names the subject's id. With `dry_run`, deletes nothing.
pub fn erase_subject(
    store: &HistoryStore,
    subject: &Subject,
    dry_run: bool,
) -> Result<Erasure, MemoryError> {
    let sessions = sessions_naming(store, subject)?;
    let receipts = delete_all(store, &sessions, dry_run)?;
    let mut left = subject_mentions(store, subject)?;
    if dry_run {
        let scheme = store.scheme();
        let going: HashSet<GraphName> = sessions
            .iter()
            .flat_map(|id| [scheme.session_graph(id), scheme.derived_graph(id)])
            .map(GraphName::from)
            .collect();
        left.retain(|quad| !going.contains(&quad.graph_name));
    }
    let subject_mentions_left = left.len() + inferred_mentions(store, subject, dry_run)?;
    let mut totals = DeletionTotals::of(&receipts);
    totals.mentions_left += subject_mentions_left;
    Ok(Erasure {
        subject: subject.clone(),
        receipts,
        totals,
        subject_mentions_left,
        dry_run,
    })
}

/// The `SessionID`s of the sessions whose graph names `subject`, in order.
fn sessions_naming(store: &HistoryStore, subject: &Subject) -> Result<Vec<String>, StoreError> {
    let id = Literal::new_simple_literal(subject.id());
    let query = match subject {
        Subject::Instance(_) | Subject::Environment(_) => {
            let property = if matches!(subject, Subject::Instance(_)) {
                ihi::M_INSTANCE_ID
            } else {
                ihi::U_ENVIRONMENT_ID
            };
            format!(
                "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} VALUES (?p ?o) {{ ({property} {id}) }} }}"
            )
        }
        // Only the JSON texts holding the id as a string are read and parsed.
        Subject::User(_) => format!(
            "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} VALUES ?p {{ {} }} FILTER(CONTAINS(?o, {})) }}",
            ihi::RAW_JSON,
            Literal::new_simple_literal(json_text(subject.id()))
        ),
    };
    let found = store.select_quads(&query)?;
    let ids = session_ids(store)?;
    let sessions: BTreeSet<String> = found
        .iter()
        .filter(|quad| match (&quad.object, subject) {
            (Term::Literal(text), Subject::User(_)) => json_names(text.value(), subject),
            _ => true,
        })
        .filter_map(|quad| ids.get(&quad.graph_name).cloned())
        .collect();
    Ok(sessions.into_iter().collect())
}

/// The id as it is written inside a JSON string (with its quotes), the text a JSON
/// literal naming it contains.
fn json_text(id: &str) -> String {
    Value::String(id.to_owned()).to_string()
}

/// Whether a JSON text has a member naming `subject` with its id as the value.
fn json_names(text: &str, subject: &Subject) -> bool {
    fn walk(value: &Value, members: &[&str], id: &str) -> bool {
        match value {
            Value::Object(object) => object.iter().any(|(name, value)| {
                (members.contains(&name.as_str()) && value.as_str() == Some(id))
                    || walk(value, members, id)
            }),
            Value::Array(items) => items.iter().any(|item| walk(item, members, id)),
            _ => false,
        }
    }
    // serde_json bounds the nesting it parses (128), so the walk's depth is bounded too.
    serde_json::from_str::<Value>(text)
        .is_ok_and(|value| walk(&value, subject.json_members(), subject.id()))
}

/// The query for the triples of the store's named graphs that may name `subject`: its id
/// as a literal's text or within it, or as an IRI; [`names`] then decides.
fn mentions_query(subject: &Subject) -> String {
    let id = Literal::new_simple_literal(subject.id());
    let inside = Literal::new_simple_literal(json_text(subject.id()));
    format!(
        "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} \
         FILTER(STR(?o) = {id} || STR(?s) = {id} || STR(?g) = {id} \
         || (isLiteral(?o) && CONTAINS(STR(?o), {inside}))) }}"
    )
}

/// Whether a triple found by [`mentions_query`] names `subject`.
fn names(quad: &Quad, subject: &Subject) -> bool {
    let id = subject.id();
    let iri = |node: &NamedNode| node.as_str() == id;
    match &quad.object {
        Term::Literal(value) if value.value() == id => return true,
        Term::Literal(value) if json_names(value.value(), subject) => return true,
        Term::NamedNode(node) if iri(node) => return true,
        _ => {}
    }
    matches!(&quad.subject, oxrdf::NamedOrBlankNode::NamedNode(node) if iri(node))
        || matches!(&quad.graph_name, GraphName::NamedNode(node) if iri(node))
}

/// The triples of the store's named graphs that name `subject`.
fn subject_mentions(store: &HistoryStore, subject: &Subject) -> Result<Vec<Quad>, StoreError> {
    let mut found = store.select_quads(&mentions_query(subject))?;
    found.retain(|quad| names(quad, subject));
    Ok(found)
}

/// The triples of the inferred store that name `subject`, when the store reasons (none
/// for a dry run: the inferred store holds copies of the session graphs, which go).
fn inferred_mentions(
    store: &HistoryStore,
    subject: &Subject,
    dry_run: bool,
) -> Result<usize, StoreError> {
    if dry_run || !store.reasons() {
        return Ok(0);
    }
    let QueryResults::Solutions(rows) =
        store.query_inferred(&mentions_query(subject), &QueryOptions::default())?
    else {
        unreachable!("a SELECT query gives solutions")
    };
    let mut left = 0;
    for row in rows {
        let row = row.map_err(StoreError::QueryEvaluation)?;
        let quad = (|| {
            let subject = match row.get("s")? {
                Term::NamedNode(node) => oxrdf::NamedOrBlankNode::from(node.clone()),
                Term::BlankNode(node) => node.clone().into(),
                _ => return None,
            };
            let Term::NamedNode(predicate) = row.get("p")? else {
                return None;
            };
            let Term::NamedNode(graph) = row.get("g")? else {
                return None;
            };
            Some(Quad::new(
                subject,
                predicate.clone(),
                row.get("o")?.clone(),
                graph.clone(),
            ))
        })();
        left += usize::from(quad.is_some_and(|quad| names(&quad, subject)));
    }
    Ok(left)
}
