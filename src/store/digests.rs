//! What the store derives from a session graph and keeps beside it, never in it: the
//! digest of its newest turns ([`RecentTurns`]), in the session's derived graph
//! ([`IriScheme::derived_graph`]). The session graph then holds the session and nothing
//! else: what `export` writes, what a stock dump of the graph gives and what its
//! fingerprint covers are the same quads.
//!
//! Derived data is kept only on a backend that only ihigraph writes while it is open
//! ([`Capabilities::exclusive`](super::Capabilities): the embedded store), where every
//! write of a session graph goes through [`HistoryStore`] and keeps its derived graph in
//! step in the same atomic step: writing a session writes its digest, deleting it drops
//! it, and an update that may change a session graph drops that graph's digest
//! ([`forget_derived`](HistoryStore::forget_derived)), so that `recent-turns` then reads
//! the turns themselves. On a server, where another client may change a graph directly
//! and no check tied to the graph's contents costs less than the query itself, nothing
//! is derived and `recent-turns` always runs as written.
//!
//! Stores written by earlier versions keep the digests inside the session graphs; the
//! first open by this version moves them out ([`settle_digests`]).
//!
//! [`RecentTurns`]: crate::rdf::RecentTurns

use super::backend::Backend;
use super::{HistoryStore, PageOrder, StoreError, data_block, select_in_graph, solution_quad};
use crate::rdf::vocab::ihi;
use crate::rdf::{DIGEST_TURNS, IriScheme, RecentTurns, SessionGraph};
use oxigraph::model::{GraphName, Literal, NamedNode, Quad, Term, Variable};
use oxigraph::sparql::QueryResults;
use spargebra::algebra::GraphTarget;
use spargebra::term::TriplePattern;
use spargebra::term::{GraphName as UpdateGraphName, GraphNamePattern};
use spargebra::{GraphUpdateOperation, SparqlParser, Update};
use std::collections::{BTreeSet, HashSet};

/// The most digests read and moved in one step when a store written by an earlier
/// version is opened: each step's update stays bounded, whatever the store's size.
const MIGRATION_PAGE: u64 = 5_000;

impl HistoryStore {
    /// Whether this store keeps derived data (see the module's text).
    fn keeps_derived(&self) -> bool {
        self.backend.capabilities().exclusive
    }

    /// The derived quads of a session to write with it: its digest in its derived graph,
    /// on a store that keeps derived data, for a session named by the store's scheme.
    pub(super) fn derived_quads(&self, session: &SessionGraph) -> Vec<Quad> {
        if !self.keeps_derived() || session.graph != self.scheme.session_graph(&session.session_id)
        {
            return Vec::new();
        }
        session
            .recent_turns
            .iter()
            .map(|digest| digest.quad(&self.scheme, &session.session_id))
            .collect()
    }

    /// The graphs to empty and the quads to add that write `session` whole: its graph
    /// and, on a store that keeps derived data, its derived graph.
    pub(super) fn session_and_derived(
        &self,
        session: &SessionGraph,
    ) -> (Vec<GraphName>, Vec<Quad>) {
        let mut graphs = vec![GraphName::NamedNode(session.graph.clone())];
        let mut quads = session.quads.clone();
        if self.keeps_derived() {
            graphs.push(self.scheme.derived_graph(&session.session_id).into());
            quads.extend(self.derived_quads(session));
        }
        (graphs, quads)
    }

    /// The derived graphs of stored sessions given by their graphs (none on a store that
    /// keeps no derived data).
    pub(super) fn derived_graphs<'a>(
        &self,
        graphs: impl IntoIterator<Item = &'a NamedNode>,
    ) -> Vec<NamedNode> {
        if !self.keeps_derived() {
            return Vec::new();
        }
        graphs
            .into_iter()
            .filter_map(|graph| self.scheme.derived_graph_of(graph))
            .collect()
    }

    /// For a session stored unchanged: writes its derived graph again if it does not hold
    /// exactly the session's derived quads (dropped by an update that left the session as
    /// it was, or by opening the store after another version).
    pub(super) fn keep_derived(&self, session: &SessionGraph) -> Result<(), StoreError> {
        if !self.keeps_derived() {
            return Ok(());
        }
        let wanted: HashSet<Quad> = self.derived_quads(session).into_iter().collect();
        let derived = self.scheme.derived_graph(&session.session_id);
        let held = self
            .backend
            .quads(Some(derived.as_ref().into()))?
            .collect::<Result<HashSet<Quad>, _>>()?;
        if held == wanted {
            return Ok(());
        }
        self.backend
            .replace_graphs(&[derived.into()], wanted.into_iter().collect())
    }

    /// Empties the derived graphs of new sessions that hold anything (left by a graph
    /// dropped below ihigraph), so that what is added for them is all they hold.
    pub(super) fn clear_stale_derived(&self, sessions: &[SessionGraph]) -> Result<(), StoreError> {
        let derived = self.derived_graphs(sessions.iter().map(|session| &session.graph));
        if derived.is_empty() {
            return Ok(());
        }
        let stale: Vec<GraphName> = self
            .backend
            .graphs_holding_quads(&derived)?
            .into_iter()
            .map(GraphName::NamedNode)
            .collect();
        if stale.is_empty() {
            return Ok(());
        }
        self.backend.replace_graphs(&stale, Vec::new())
    }

    /// How many quads the derived graphs hold (each holds a digest or nothing).
    pub(super) fn derived_quad_count(&self) -> Result<usize, StoreError> {
        if !self.keeps_derived() {
            return Ok(0);
        }
        let query = format!(
            "SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ ?s {p} ?o }} FILTER(STRSTARTS(STR(?g), {prefix})) }}",
            p = ihi::RECENT_TURNS,
            prefix = Literal::new_simple_literal(self.scheme.derived_prefix()),
        );
        let solution = self
            .select(&query, &PageOrder::AsWritten)?
            .next()
            .transpose();
        Ok(solution
            .map_err(StoreError::QueryEvaluation)?
            .and_then(|solution| match solution.get("n") {
                Some(Term::Literal(n)) => n.value().parse().ok(),
                _ => None,
            })
            .unwrap_or(0))
    }

    /// Adds to `update` the drop of the derived graphs of every named graph it may add
    /// to, remove from, empty or drop (of every derived graph, when a template's graph is
    /// a variable or it empties all graphs), and of any derived graph it writes itself:
    /// in the same update, so that no digest outlives the turns it was taken from.
    pub(super) fn forget_derived(&self, update: &mut Update) -> Result<(), StoreError> {
        if !self.keeps_derived() {
            return Ok(());
        }
        match touched_graphs(update) {
            Touched::Some(graphs) => {
                let derived: BTreeSet<NamedNode> = graphs
                    .into_iter()
                    .filter_map(|graph| {
                        if self.scheme.is_derived_graph(graph.as_str()) {
                            Some(graph)
                        } else {
                            self.scheme.derived_graph_of(&graph)
                        }
                    })
                    .collect();
                update.operations.extend(derived.into_iter().map(|graph| {
                    GraphUpdateOperation::Drop {
                        silent: true,
                        graph: GraphTarget::NamedNode(graph),
                    }
                }));
            }
            Touched::Any => {
                let all = SparqlParser::new()
                    .parse_update(&drop_every_digest(&self.scheme))
                    .map_err(StoreError::QuerySyntax)?;
                update.operations.extend(all.operations);
            }
        }
        Ok(())
    }

    /// The rows of `recent-turns` for `n` turns of a session, from the digest of its
    /// newest turns in its derived graph: one lookup where the query makes several a
    /// turn. `None` on a store that keeps no derived data, when the session has no digest
    /// (not written by this version yet), not one that reads, or not enough turns for
    /// `n`: then the query runs.
    pub(super) fn recent_turns_digest(
        &self,
        session: &str,
        n: u64,
    ) -> Result<Option<Vec<Vec<Option<Term>>>>, StoreError> {
        if !self.keeps_derived() {
            return Ok(None);
        }
        let Ok(n) = usize::try_from(n) else {
            return Ok(None);
        };
        if n > DIGEST_TURNS {
            // Only a session of fewer turns could be answered; the query is as fast.
            return Ok(None);
        }
        let digest = Variable::new_unchecked("digest");
        let query = select_in_graph(
            self.scheme.derived_graph(session),
            TriplePattern {
                subject: self.scheme.conversation(session).into(),
                predicate: ihi::RECENT_TURNS.into_owned().into(),
                object: digest.clone().into(),
            },
        );
        let QueryResults::Solutions(solutions) =
            self.evaluate(self.backend.as_ref(), query, false, None)?
        else {
            return Ok(None);
        };
        let mut texts = Vec::new();
        for solution in solutions {
            if let Some(Term::Literal(text)) =
                solution.map_err(StoreError::QueryEvaluation)?.get(&digest)
            {
                texts.push(text.value().to_owned());
            }
        }
        let [text] = texts.as_slice() else {
            return Ok(None);
        };
        Ok(RecentTurns::parse(text).and_then(|digest| digest.rows(n)))
    }
}

/// Brings a store's digests in line with this version when another version (or none)
/// opened it last, before its ontologies are refreshed, so that a crash here runs it
/// again at the next open:
///
/// - the digests in derived graphs are dropped: the other version may have changed their
///   sessions without knowing of them;
/// - the digests earlier versions kept inside the session graphs leave them: on a store
///   that keeps derived data, into the sessions' derived graphs (those versions kept them
///   in step there as this one does), on a server, nowhere.
///
/// Both are done in bounded steps (a server reads its answers in pages anyway), each an
/// atomic update, so that after a crash each digest is in one place or none.
pub(super) fn settle_digests(backend: &dyn Backend, scheme: &IriScheme) -> Result<(), StoreError> {
    let capabilities = backend.capabilities();
    if capabilities.exclusive {
        backend.update(parse_update(&drop_every_digest(scheme))?)?;
    }
    let page = capabilities
        .max_rows
        .map_or(MIGRATION_PAGE, |cap| cap.clamp(1, MIGRATION_PAGE));
    let query = format!(
        "SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s {p} ?o }} FILTER(!STRSTARTS(STR(?g), {prefix})) BIND({p} AS ?p) }} LIMIT {page}",
        p = ihi::RECENT_TURNS,
        prefix = Literal::new_simple_literal(scheme.derived_prefix()),
    );
    let mut previous: Option<Vec<Quad>> = None;
    loop {
        let legacy = select_backend_quads(backend, &query)?;
        if legacy.is_empty() || previous.as_ref() == Some(&legacy) {
            // Nothing left, or a server that does not remove what it gives back: the
            // query reads what is left, as for any digest it cannot use.
            return Ok(());
        }
        let mut update = data_block("DELETE DATA", &legacy);
        if capabilities.exclusive {
            let moved: Vec<Quad> = legacy
                .iter()
                .filter_map(|quad| moved(quad, scheme))
                .collect();
            if !moved.is_empty() {
                update.push_str(" ;\n");
                update.push_str(&data_block("INSERT DATA", &moved));
            }
        }
        backend.update(parse_update(&update)?)?;
        if (legacy.len() as u64) < page {
            return Ok(());
        }
        previous = Some(legacy);
    }
}

/// A digest kept in a session graph named by the scheme, in that session's derived graph.
fn moved(quad: &Quad, scheme: &IriScheme) -> Option<Quad> {
    let GraphName::NamedNode(graph) = &quad.graph_name else {
        return None;
    };
    let derived = scheme.derived_graph_of(graph)?;
    Some(Quad::new(
        quad.subject.clone(),
        quad.predicate.clone(),
        quad.object.clone(),
        derived,
    ))
}

/// The update that removes every digest from every derived graph (on the embedded store
/// only: Virtuoso refuses a `DELETE { GRAPH ... } WHERE` as spargebra writes it).
fn drop_every_digest(scheme: &IriScheme) -> String {
    format!(
        "DELETE {{ GRAPH ?g {{ ?s {p} ?o }} }} WHERE {{ GRAPH ?g {{ ?s {p} ?o }} FILTER(STRSTARTS(STR(?g), {prefix})) }}",
        p = ihi::RECENT_TURNS,
        prefix = Literal::new_simple_literal(scheme.derived_prefix()),
    )
}

fn parse_update(text: &str) -> Result<Update, StoreError> {
    SparqlParser::new()
        .parse_update(text)
        .map_err(StoreError::QuerySyntax)
}

/// The quads a SELECT query with `?s ?p ?o ?g` finds, asked of a backend before the
/// store's handle exists.
fn select_backend_quads(backend: &dyn Backend, sparql: &str) -> Result<Vec<Quad>, StoreError> {
    let query = SparqlParser::new()
        .parse_query(sparql)
        .map_err(StoreError::QuerySyntax)?;
    let QueryResults::Solutions(solutions) = backend.query(query, false)? else {
        unreachable!("a SELECT query gives solutions")
    };
    let mut quads = Vec::new();
    for solution in solutions {
        let solution = solution.map_err(StoreError::QueryEvaluation)?;
        quads.extend(solution_quad(&solution, None));
    }
    Ok(quads)
}

/// The named graphs an update may change; `None` when it may change any.
pub(super) fn touched_by(update: &Update) -> Option<BTreeSet<NamedNode>> {
    match touched_graphs(update) {
        Touched::Some(graphs) => Some(graphs),
        Touched::Any => None,
    }
}

/// The named graphs an update may change.
enum Touched {
    Some(BTreeSet<NamedNode>),
    Any,
}

fn touched_graphs(update: &Update) -> Touched {
    let mut graphs = BTreeSet::new();
    let mut named = |graph: &UpdateGraphName| {
        if let UpdateGraphName::NamedNode(graph) = graph {
            graphs.insert(graph.clone());
        }
    };
    let mut any = false;
    for operation in &update.operations {
        match operation {
            GraphUpdateOperation::InsertData { data } => {
                data.iter().for_each(|quad| named(&quad.graph_name));
            }
            GraphUpdateOperation::DeleteData { data } => {
                data.iter().for_each(|quad| named(&quad.graph_name));
            }
            GraphUpdateOperation::DeleteInsert { delete, insert, .. } => {
                let patterns = delete
                    .iter()
                    .map(|quad| &quad.graph_name)
                    .chain(insert.iter().map(|quad| &quad.graph_name));
                for pattern in patterns {
                    match pattern {
                        GraphNamePattern::NamedNode(graph) => named(&graph.clone().into()),
                        GraphNamePattern::DefaultGraph => {}
                        GraphNamePattern::Variable(_) => any = true,
                    }
                }
            }
            GraphUpdateOperation::Load { destination, .. } => named(destination),
            GraphUpdateOperation::Clear { graph, .. }
            | GraphUpdateOperation::Drop { graph, .. } => match graph {
                GraphTarget::NamedNode(graph) => named(&graph.clone().into()),
                GraphTarget::DefaultGraph => {}
                GraphTarget::NamedGraphs | GraphTarget::AllGraphs => any = true,
            },
            GraphUpdateOperation::Create { .. } => {}
        }
    }
    if any {
        Touched::Any
    } else {
        Touched::Some(graphs)
    }
}
