//! The bodies of ihigraph's writes: SPARQL updates that drop graphs and insert quads, cut
//! into requests the server takes, and Turtle documents for the Graph Store Protocol.

use super::dialect::Dialect;
use crate::rdf::vocab::PREFIXES;
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::{GraphName, Quad};
use std::fmt::Write;

/// SPARQL update requests that drop `drop` and then insert `quads`, in order: each
/// request at most the server's body size (one request unless it is too large), each
/// `INSERT DATA` operation at most the server's triples per operation. A quad of the
/// default graph goes into `default_graph` (servers differ on the default graph).
pub(super) fn update_requests<'a>(
    dialect: Dialect,
    drop: &[GraphName],
    quads: impl IntoIterator<Item = &'a Quad>,
    default_graph: &'a str,
) -> Vec<String> {
    let mut requests = Requests::new(dialect);
    for graph in drop {
        requests.operation(&format!(
            "DROP SILENT GRAPH <{}>",
            graph_iri(graph, default_graph)
        ));
    }
    let per_operation = dialect.triples_per_operation();
    // Blank nodes go in `INSERT {} WHERE {}` (Virtuoso refuses them in INSERT DATA),
    // in an operation of their own graph's blank-node quads (one label, one node).
    let (anonymous, named): (Vec<&Quad>, Vec<&Quad>) =
        quads.into_iter().partition(|quad| has_blank_node(quad));
    let mut open: Option<&str> = None;
    let mut in_operation = 0;
    for quad in named {
        let graph = graph_iri(&quad.graph_name, default_graph);
        let line = format!("{} {} {} .\n", quad.subject, quad.predicate, quad.object);
        if in_operation >= per_operation || open != Some(graph) || !requests.fits(&line) {
            if open.is_some() {
                requests.current.push_str("} }");
            }
            if !requests.fits(&line) {
                requests.next();
            }
            requests.operation(&format!("INSERT DATA {{ GRAPH <{graph}> {{\n"));
            open = Some(graph);
            in_operation = 0;
        }
        requests.current.push_str(&line);
        in_operation += 1;
    }
    if open.is_some() {
        requests.current.push_str("} }");
    }
    let mut open: Option<&str> = None;
    for quad in anonymous {
        let graph = graph_iri(&quad.graph_name, default_graph);
        if open != Some(graph) {
            if open.is_some() {
                requests.current.push_str("} } WHERE {}");
            }
            requests.operation(&format!("INSERT {{ GRAPH <{graph}> {{\n"));
            open = Some(graph);
        }
        let _ = writeln!(
            requests.current,
            "{} {} {} .",
            quad.subject, quad.predicate, quad.object
        );
    }
    if open.is_some() {
        requests.current.push_str("} } WHERE {}");
    }
    requests.finish()
}

fn has_blank_node(quad: &Quad) -> bool {
    matches!(
        quad.subject,
        oxigraph::model::NamedOrBlankNode::BlankNode(_)
    ) || matches!(quad.object, oxigraph::model::Term::BlankNode(_))
}

/// Update requests being written: operations separated by `;`.
struct Requests {
    dialect: Dialect,
    done: Vec<String>,
    current: String,
    operations: usize,
}

impl Requests {
    fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            done: Vec::new(),
            current: dialect.update_preamble().to_owned(),
            operations: 0,
        }
    }

    fn fits(&self, more: &str) -> bool {
        self.operations == 0 || self.current.len() + more.len() + 8 <= self.dialect.max_body()
    }

    fn operation(&mut self, start: &str) {
        if self.operations > 0 {
            self.current.push_str(" ;\n");
        }
        self.current.push_str(start);
        self.operations += 1;
    }

    fn next(&mut self) {
        if self.operations > 0 {
            let preamble = self.dialect.update_preamble().to_owned();
            self.done
                .push(std::mem::replace(&mut self.current, preamble));
            self.operations = 0;
        }
    }

    fn finish(mut self) -> Vec<String> {
        self.next();
        self.done
    }
}

fn graph_iri<'a>(graph: &'a GraphName, default_graph: &'a str) -> &'a str {
    match graph {
        GraphName::NamedNode(node) => node.as_str(),
        _ => default_graph,
    }
}

/// The triples of one graph as Turtle, for a Graph Store PUT. Turtle rather than
/// N-Triples: its `@prefix` line comes first, which Virtuoso needs to recognise a body
/// whose first triple holds a long text.
pub(super) fn turtle(quads: &[Quad]) -> Vec<u8> {
    // The vocabularies' prefixes: less text for the server to parse.
    let mut serializer = RdfSerializer::from_format(RdfFormat::Turtle);
    for (prefix, namespace) in PREFIXES {
        serializer = serializer
            .with_prefix(*prefix, *namespace)
            .expect("the vocabularies' namespaces are valid IRIs");
    }
    let mut serializer = serializer.for_writer(Vec::new());
    for quad in quads {
        serializer
            .serialize_triple(quad.as_ref())
            .expect("writing Turtle into memory cannot fail");
    }
    serializer
        .finish()
        .expect("writing Turtle into memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{Literal, NamedNode};

    fn quad(graph: &str, n: usize) -> Quad {
        Quad::new(
            NamedNode::new_unchecked(format!("http://s/{n}")),
            NamedNode::new_unchecked("http://p"),
            Literal::new_simple_literal("x"),
            NamedNode::new_unchecked(graph),
        )
    }

    #[test]
    fn one_request_drops_then_inserts_each_graph() {
        let quads = vec![
            quad("http://g/1", 1),
            quad("http://g/1", 2),
            quad("http://g/2", 3),
        ];
        let drop = vec![GraphName::from(NamedNode::new_unchecked("http://g/1"))];
        let requests = update_requests(Dialect::Oxigraph, &drop, &quads, "http://settings");
        assert_eq!(requests.len(), 1);
        let parsed = spargebra::SparqlParser::new().parse_update(&requests[0]);
        assert!(parsed.is_ok(), "{parsed:?}: {}", requests[0]);
        assert_eq!(parsed.map(|update| update.operations.len()).ok(), Some(3));
    }

    #[test]
    fn virtuoso_gets_operations_of_at_most_4000_triples() {
        let quads: Vec<Quad> = (0..9_000).map(|n| quad("http://g/1", n)).collect();
        let virtuoso = Dialect::Virtuoso { max_rows: None };
        let requests = update_requests(virtuoso, &[], &quads, "http://settings");
        assert_eq!(requests.len(), 1);
        assert!(requests[0].starts_with("DEFINE sql:big-data-const 1\n"));
        assert_eq!(requests[0].matches("INSERT DATA").count(), 3);
    }

    #[test]
    fn a_large_write_is_cut_into_requests_below_the_body_limit() {
        let long = "y".repeat(1 << 20);
        let quads: Vec<Quad> = (0..20)
            .map(|n| {
                Quad::new(
                    NamedNode::new_unchecked(format!("http://s/{n}")),
                    NamedNode::new_unchecked("http://p"),
                    Literal::new_simple_literal(&long),
                    GraphName::DefaultGraph,
                )
            })
            .collect();
        let virtuoso = Dialect::Virtuoso { max_rows: None };
        let requests = update_requests(virtuoso, &[], &quads, "http://settings");
        assert!(requests.len() >= 3, "{}", requests.len());
        for request in &requests {
            assert!(
                request.len() <= virtuoso.max_body() + (1 << 20),
                "{}",
                request.len()
            );
            assert!(request.contains("GRAPH <http://settings>"));
        }
        let total: usize = requests.iter().map(|r| r.matches(" .\n").count()).sum();
        assert_eq!(total, 20);
    }
}
