//! The remote backend: any SPARQL 1.1 server, through the W3C protocols only (SPARQL
//! 1.1 Protocol for queries and updates, the Graph Store Protocol for whole graphs when
//! its endpoint is given). What differs between servers (the default graph, row caps,
//! atomicity, size limits) is known per [`Dialect`], told from the server's own header.
//!
//! The store's default graph (its settings) lives in the named graph
//! `ihi:storeSettings` on a server: servers differ on what their default graph is, and
//! Virtuoso has none to write.

mod answer;
mod dialect;
mod endpoint;
mod error;
mod http;
mod paging;
mod write;

pub use dialect::Dialect;
pub use endpoint::Endpoint;
pub use error::RemoteError;
pub use http::{Credentials, Limits};

use crate::rdf::vocab::ihi;
use crate::store::StoreError;
use crate::store::backend::{Backend, Capabilities, PageOrder, QuadStream};
use crate::store::parallel::on_threads;
use answer::{N_TRIPLES, RESULTS_JSON, Results, Rows};
use http::{Answer, Body, Client};
use oxigraph::model::{
    GraphName, GraphNameRef, NamedNode, NamedNodeRef, Quad, Term, Triple, Variable,
};
use oxigraph::sparql::{CancellationToken, QueryResults, QuerySolutionIter, QueryTripleIter};
use spargebra::{Query, SparqlParser, Update};
use std::collections::HashSet;
use ureq::http::Method;

/// Where a remote store is and how to talk to it. Its `Debug` shows no credential.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// The SPARQL query endpoint.
    pub query: Endpoint,
    /// The SPARQL update endpoint [default: the query endpoint; for Oxigraph's server,
    /// its `/update` beside `/query`].
    pub update: Option<Endpoint>,
    /// The Graph Store Protocol endpoint: when given, whole session graphs are written
    /// through it (a `PUT` replaces a session, a `POST` adds new ones).
    pub graph_store: Option<Endpoint>,
    /// The credentials.
    pub credentials: Credentials,
    /// Time-outs and retries.
    pub limits: Limits,
    /// Whether the password may be sent as HTTP Basic over plain `http://` when a
    /// server asks for Basic: off, it is refused ([`RemoteError::BasicOverHttp`]).
    /// Digest, which never sends the password, is answered either way.
    pub basic_over_http: bool,
}

impl RemoteOptions {
    /// A query endpoint, without credentials, with the default limits.
    pub fn new(query: Endpoint) -> Self {
        Self {
            query,
            update: None,
            graph_store: None,
            credentials: Credentials::None,
            limits: Limits::default(),
            basic_over_http: false,
        }
    }
}

/// A SPARQL 1.1 server as a store.
pub struct Remote {
    client: Client,
    query: Endpoint,
    update: Endpoint,
    graph_store: Option<Endpoint>,
    dialect: Dialect,
    /// The most rows the server sorts for one answer's `LIMIT` and `OFFSET`, when it
    /// bounds them (Virtuoso's `MaxSortedTopRows`): how far paging by `OFFSET` goes.
    max_sorted_rows: Option<u64>,
}

/// The graph that holds what the embedded store keeps in its default graph.
fn settings_graph() -> &'static str {
    ihi::STORE_SETTINGS.as_str()
}

/// Write requests sent at once: while the server takes one in, the next is on its way
/// (4 against 2: a 1,000-session ingest into Virtuoso through the Graph Store
/// Protocol in 21.2 s against 23.4 s).
const IN_FLIGHT: usize = 4;

impl Remote {
    /// Connects: asks the query endpoint a first question (so that a server that is
    /// down or refuses the credentials is known at once), and tells which server it is.
    pub fn connect(options: RemoteOptions) -> Result<Self, StoreError> {
        let RemoteOptions {
            query,
            update,
            graph_store,
            credentials,
            limits,
            basic_over_http,
        } = options;
        let client = Client::new(credentials, limits, basic_over_http);
        let probe = client.send(
            &Method::GET,
            &query.with_parameter("query", "ASK{}"),
            Some(RESULTS_JSON),
            &Body::None,
            true,
        )?;
        if !probe.is_success() {
            return Err(probe.error(&query).into());
        }
        let dialect = Dialect::of_server(&probe.server);
        if !matches!(
            answer::results(&probe, &query, dialect)?,
            Results::Boolean(_)
        ) {
            return Err(RemoteError::BadAnswer {
                url: query,
                reason: "ASK {} did not give a boolean".to_owned(),
            }
            .into());
        }
        let update = update.unwrap_or_else(|| match dialect {
            Dialect::Oxigraph => query.sibling("query", "update"),
            _ => query.clone(),
        });
        let mut remote = Self {
            client,
            query,
            update,
            graph_store,
            dialect,
            max_sorted_rows: None,
        };
        remote.read_row_limits();
        Ok(remote)
    }

    /// Reads the server's row cap and the most rows it sorts for one answer, where it
    /// says them (Virtuoso: its defaults where its settings cannot be read).
    fn read_row_limits(&mut self) {
        let Some(asked) = self.dialect.row_limits_query() else {
            return;
        };
        let (mut max_rows, mut max_sorted_rows) = (10_000, 10_000);
        if let Ok(rows) = self.select(asked, false)
            && let Some(row) = rows.rows.first()
        {
            let number = |column: usize| match row.get(column) {
                Some(Some(Term::Literal(value))) => value.value().parse().ok(),
                _ => None,
            };
            max_rows = number(0).unwrap_or(max_rows);
            max_sorted_rows = number(1).unwrap_or(max_sorted_rows);
        }
        self.dialect = Dialect::Virtuoso {
            max_rows: Some(max_rows),
        };
        self.max_sorted_rows = Some(max_sorted_rows);
    }

    /// The kind of server.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// POSTs a query as a form, and reads the answer.
    fn ask_server(&self, sparql: &str, union: bool, accept: &str) -> Result<Answer, RemoteError> {
        let mut fields = vec![("query", sparql)];
        if union {
            fields.extend(self.dialect.union_field());
        }
        let answer = self.client.send(
            &Method::POST,
            &self.query,
            Some(accept),
            &Body::Form(&fields),
            true,
        )?;
        if answer.is_success() {
            Ok(answer)
        } else {
            Err(answer.error(&self.query))
        }
    }

    /// The answer to a SELECT or ASK, in SPARQL JSON. (Not XML: Virtuoso writes XML
    /// twice as fast, but with a literal's leading and trailing white space bare, which
    /// XML readers trim.)
    fn results(&self, sparql: &str, union: bool) -> Result<Results, RemoteError> {
        let answer = self.ask_server(sparql, union, RESULTS_JSON)?;
        answer::results(&answer, &self.query, self.dialect)
    }

    /// The rows of a SELECT, possibly cut (see [`Rows::whole`]).
    fn select(&self, sparql: &str, union: bool) -> Result<Rows, RemoteError> {
        match self.results(sparql, union)? {
            Results::Rows(rows) => Ok(rows),
            Results::Boolean(_) => Err(RemoteError::BadAnswer {
                url: self.query.clone(),
                reason: "a boolean where rows were asked for".to_owned(),
            }),
        }
    }

    fn ask(&self, sparql: &str) -> Result<bool, RemoteError> {
        match self.results(sparql, false)? {
            Results::Boolean(value) => Ok(value),
            Results::Rows(_) => Err(RemoteError::BadAnswer {
                url: self.query.clone(),
                reason: "rows where a boolean was asked for".to_owned(),
            }),
        }
    }

    /// Sends update requests in order; ihigraph's own updates may be sent twice.
    fn send_updates(&self, requests: &[String], idempotent: bool) -> Result<(), RemoteError> {
        for request in requests {
            let answer = self.client.send(
                &Method::POST,
                &self.update,
                None,
                &Body::Form(&[("update", request)]),
                idempotent,
            )?;
            if !answer.is_success() {
                return Err(answer.error(&self.update));
            }
        }
        Ok(())
    }

    /// Replaces one graph (`PUT`) or adds to it (`POST`) through the Graph Store Protocol.
    fn send_graph(
        &self,
        method: &Method,
        store: &Endpoint,
        graph: &str,
        quads: &[Quad],
    ) -> Result<(), RemoteError> {
        let url = store.with_parameter("graph", graph);
        let body = write::turtle(quads);
        // A PUT may be sent twice; a POST too when no blank node would be added twice.
        let idempotent = *method == Method::PUT
            || quads
                .iter()
                .all(|quad| !quad.subject.is_blank_node() && !quad.object.is_blank_node());
        let answer = self.client.send(
            method,
            &url,
            None,
            &Body::Raw("text/turtle", &body),
            idempotent,
        )?;
        if answer.is_success() {
            Ok(())
        } else {
            Err(answer.error(store))
        }
    }

    /// The triples of one graph, read whole (in pages by subject when the server cuts
    /// long answers).
    fn graph_triples(&self, graph: &str) -> Result<Vec<Triple>, StoreError> {
        let query = parse(&format!(
            "SELECT ?s ?p ?o WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
        ))?;
        let rows = self.select_paged(&query, &by_key("s"))?;
        Ok(triples_of(rows.rows))
    }

    /// The named graphs that hold triples, the server's own left out.
    fn graph_names(&self) -> Result<Vec<NamedNode>, StoreError> {
        let query = parse("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")?;
        let rows = self.select_paged(&query, &by_key("g"))?;
        Ok(rows
            .rows
            .into_iter()
            .filter_map(|row| match row.into_iter().next().flatten() {
                Some(Term::NamedNode(graph)) if !is_server_graph(graph.as_str()) => Some(graph),
                _ => None,
            })
            .collect())
    }
}

/// One of ihigraph's own query texts, parsed.
fn parse(text: &str) -> Result<Query, StoreError> {
    SparqlParser::new()
        .parse_query(text)
        .map_err(StoreError::QuerySyntax)
}

/// Pages by the text of the variable `name`.
fn by_key(name: &str) -> PageOrder {
    PageOrder::ByKey(Variable::new_unchecked(name))
}

/// Virtuoso's own graphs, in every Virtuoso database.
fn is_server_graph(graph: &str) -> bool {
    graph.starts_with("http://www.openlinksw.com/schemas/virtrdf#")
        || graph == "http://www.w3.org/ns/ldp#"
        || graph == "http://localuriqaserver/sparql"
        || graph.starts_with("http://www.openlinksw.com/")
}

fn triples_of(rows: Vec<Vec<Option<Term>>>) -> Vec<Triple> {
    rows.into_iter()
        .filter_map(|row| {
            let mut row = row.into_iter();
            let subject = match row.next()?? {
                Term::NamedNode(node) => oxigraph::model::NamedOrBlankNode::from(node),
                Term::BlankNode(node) => node.into(),
                _ => return None,
            };
            let Term::NamedNode(predicate) = row.next()?? else {
                return None;
            };
            Some(Triple::new(subject, predicate, row.next()??))
        })
        .collect()
}

/// Sends all requests but the last [`IN_FLIGHT`] at a time (the server takes one in while
/// the next is on its way), then the last one: it holds the fingerprint records, which
/// must not be stored before their sessions.
fn in_flight_then_last<T: Sync>(
    requests: &[T],
    send: impl Fn(&T) -> Result<(), RemoteError> + Sync,
) -> Result<(), RemoteError> {
    let Some((last, first)) = requests.split_last() else {
        return Ok(());
    };
    on_threads(IN_FLIGHT, first, &send)
        .into_iter()
        .collect::<Result<(), RemoteError>>()?;
    send(last)
}

impl Backend for Remote {
    fn location(&self) -> String {
        format!("{} ({})", self.query, self.dialect.name())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            backup: false,
            owns_dataset: false,
            max_rows: self.dialect.max_rows(),
            verbatim: self.dialect.verbatim(),
            exclusive: false,
        }
    }

    fn quads(&self, graph: Option<GraphNameRef<'_>>) -> Result<QuadStream<'_>, StoreError> {
        let graphs: Vec<GraphName> = match graph {
            Some(graph) => vec![graph.into_owned()],
            None => {
                let mut graphs = vec![GraphName::DefaultGraph];
                graphs.extend(self.graph_names()?.into_iter().filter_map(|graph| {
                    (graph.as_str() != settings_graph()).then(|| graph.into())
                }));
                graphs
            }
        };
        let mut quads = Vec::new();
        for graph in graphs {
            let name = match &graph {
                GraphName::NamedNode(node) => node.as_str(),
                GraphName::DefaultGraph => settings_graph(),
                GraphName::BlankNode(_) => continue,
            };
            for triple in self.graph_triples(name)? {
                quads.push(Ok(triple.in_graph(graph.clone())));
            }
        }
        Ok(Box::new(quads.into_iter()))
    }

    fn contains_graph(&self, graph: NamedNodeRef<'_>) -> Result<bool, StoreError> {
        Ok(self.ask(&format!("ASK {{ GRAPH {graph} {{ ?s ?p ?o }} }}"))?)
    }

    /// One question for up to 500 graphs (a round trip each would be most of a small
    /// session's write on a distant server).
    fn graphs_holding_quads(&self, graphs: &[NamedNode]) -> Result<HashSet<NamedNode>, StoreError> {
        let mut holding = HashSet::new();
        for chunk in graphs.chunks(500) {
            let values: String = chunk.iter().map(|graph| format!("{graph} ")).collect();
            let query = parse(&format!(
                "SELECT ?g WHERE {{ VALUES ?g {{ {values}}} FILTER EXISTS {{ GRAPH ?g {{ ?s ?p ?o }} }} }}"
            ))?;
            let rows = self.select_paged(&query, &by_key("g"))?;
            holding.extend(rows.rows.into_iter().filter_map(|row| {
                match row.into_iter().next().flatten() {
                    Some(Term::NamedNode(graph)) => Some(graph),
                    _ => None,
                }
            }));
        }
        Ok(holding)
    }

    fn add_graphs(&self, graphs: Vec<Vec<Quad>>) -> Result<(), StoreError> {
        if let Some(store) = &self.graph_store {
            // Added (POST), so that a graph that holds something already (the
            // fingerprint records) keeps it.
            return in_flight_then_last(&graphs, |quads| {
                match quads.first().map(|q| &q.graph_name) {
                    Some(GraphName::NamedNode(graph)) => {
                        self.send_graph(&Method::POST, store, graph.as_str(), quads)
                    }
                    _ => Ok(()),
                }
            })
            .map_err(StoreError::from);
        }
        // Whole graphs per request, as many as fit: a session is never cut between two
        // requests unless it alone is larger than a request may be.
        let mut batch: Vec<String> = Vec::new();
        for quads in &graphs {
            let requests = write::update_requests(self.dialect, &[], quads, settings_graph());
            match (batch.last_mut(), requests.as_slice()) {
                (Some(last), [one]) if last.len() + one.len() <= self.dialect.max_body() => {
                    last.push_str(" ;\n");
                    last.push_str(&one[self.dialect.update_preamble().len()..]);
                }
                _ => batch.extend(requests),
            }
        }
        Ok(in_flight_then_last(&batch, |request| {
            self.send_updates(std::slice::from_ref(request), true)
        })?)
    }

    fn replace_graphs(&self, graphs: &[GraphName], quads: Vec<Quad>) -> Result<(), StoreError> {
        if let (Some(store), [GraphName::NamedNode(graph)]) = (&self.graph_store, graphs) {
            let inside = quads.iter().all(|quad| quad.graph_name == graphs[0]);
            if inside && !quads.is_empty() {
                return Ok(self.send_graph(&Method::PUT, store, graph.as_str(), &quads)?);
            }
        }
        let requests = write::update_requests(self.dialect, graphs, &quads, settings_graph());
        Ok(self.send_updates(&requests, true)?)
    }

    fn query(
        &self,
        query: Query,
        union_default_graph: bool,
    ) -> Result<QueryResults<'static>, StoreError> {
        let text = query.to_string();
        match query {
            Query::Select { .. } | Query::Ask { .. } => {
                match self.results(&text, union_default_graph)? {
                    Results::Boolean(value) => Ok(QueryResults::Boolean(value)),
                    Results::Rows(rows) => {
                        let rows = rows.whole(&self.query)?;
                        Ok(QueryResults::Solutions(QuerySolutionIter::from_tuples(
                            rows.variables.into(),
                            rows.rows.into_iter().map(Ok),
                        )))
                    }
                }
            }
            Query::Construct { .. } | Query::Describe { .. } => {
                let answer = self.ask_server(&text, union_default_graph, N_TRIPLES)?;
                let triples = answer::triples(&answer, &self.query, self.dialect)?;
                Ok(QueryResults::Graph(QueryTripleIter::new(
                    triples.into_iter().map(Ok),
                )))
            }
        }
    }

    /// Pages a long answer (see [`paging`]).
    fn select_whole(
        &self,
        query: Query,
        order: &PageOrder,
        cancel: Option<&CancellationToken>,
    ) -> Result<QueryResults<'static>, StoreError> {
        // A server's query is bounded by the request time-out, not the token.
        let _ = cancel;
        if !matches!(query, Query::Select { .. }) {
            return self.query(query, false);
        }
        let rows = self.select_paged(&query, order)?;
        Ok(QueryResults::Solutions(QuerySolutionIter::from_tuples(
            rows.variables.into(),
            rows.rows.into_iter().map(Ok),
        )))
    }

    fn update(&self, update: Update) -> Result<(), StoreError> {
        Ok(self.send_updates(&[update.to_string()], false)?)
    }

    fn quad_count(&self) -> Result<usize, StoreError> {
        let rows = self
            .select(
                "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
                false,
            )?
            .whole(&self.query)?;
        Ok(count_of(&rows))
    }
}

/// The one number of a one-row `COUNT` answer.
fn count_of(rows: &Rows) -> usize {
    match rows.rows.first().and_then(|row| row.first()) {
        Some(Some(Term::Literal(count))) => count.value().parse().unwrap_or(0),
        _ => 0,
    }
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("query", &self.query)
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}
