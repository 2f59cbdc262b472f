//! The ontologies, embedded from `ontology/*.ttl`.

/// The Conversation History Ontology (`ch:`), Turtle.
pub const CONVERSATION_HISTORY_TTL: &str = include_str!("../../ontology/conversation-history.ttl");

/// The ihigraph extension (`ihi:`), Turtle.
pub const IHIGRAPH_TTL: &str = include_str!("../../ontology/ihigraph.ttl");

/// Each ontology with its IRI: a store keeps each in a named graph of that name, so that
/// queries can read the class hierarchy (the `memory-items` query does).
pub const ONTOLOGIES: &[(&str, &str)] = &[
    (
        "https://jido.ai/ontology/conversation-history",
        CONVERSATION_HISTORY_TTL,
    ),
    ("https://w3id.org/ihigraph/ontology", IHIGRAPH_TTL),
];

/// A digest of the embedded ontologies (64-bit FNV-1a over their texts), recorded in a
/// store so that a store written by another version gets this version's ontologies.
pub fn ontology_digest() -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (iri, text) in ONTOLOGIES {
        for byte in iri.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// Each ontology's statements in the named graph of its IRI, as a store keeps them.
pub fn ontology_graphs() -> Vec<(oxrdf::NamedNode, Vec<oxrdf::Quad>)> {
    ONTOLOGIES
        .iter()
        .map(|(iri, turtle)| {
            let graph = oxrdf::NamedNode::new_unchecked(*iri);
            (graph.clone(), ontology_statements(graph, turtle).collect())
        })
        .collect()
}

/// The first statement of the first ontology, in its graph, read without reading the
/// rest (a store's graph of that ontology holds it).
pub(crate) fn first_ontology_statement() -> Option<oxrdf::Quad> {
    let (iri, turtle) = ONTOLOGIES.first()?;
    ontology_statements(oxrdf::NamedNode::new_unchecked(*iri), turtle).next()
}

/// An ontology's statements, parsed as they are read, in the graph `graph`.
fn ontology_statements(
    graph: oxrdf::NamedNode,
    turtle: &'static str,
) -> impl Iterator<Item = oxrdf::Quad> {
    oxigraph::io::RdfParser::from_format(oxigraph::io::RdfFormat::Turtle)
        .with_default_graph(graph)
        .for_slice(turtle)
        .map(|quad| quad.expect("the embedded ontologies parse (tested)"))
}
