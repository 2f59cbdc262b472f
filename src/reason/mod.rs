//! What the ontologies entail about a session: OWL 2 RL reasoning (the rules of the W3C
//! profile, section 4.3) by the `reasonable` crate, over one session's triples and the
//! axioms of the ontologies ihigraph ships (`ch:`, `ihi:`, and the PROV-O and Jido terms
//! they declare).
//!
//! A session is reasoned about alone: its graph names its conversation, turns, prompts,
//! answers and invocations, and the only nodes it shares with other sessions are tools and
//! the role individuals, about which the ontologies say everything there is to infer. So
//! the entailments of the whole store are the union of each session's, and a session's are
//! made again when it changes, without looking at any other (see `store/inference.rs`).
//!
//! [`entailments`] gives only what the rules add about the session's own nodes: never a
//! statement the session asserts, never one about a term the ontologies define (those are
//! the ontologies' business), never the two kinds of statement OWL 2 RL derives about
//! every node of every graph, which say nothing about this one (`x owl:sameAs x`, rule
//! eq-ref, and `x rdf:type owl:Thing`), and never a membership of a class the ontologies
//! leave without a name (a blank node of theirs: the union of classes a domain names, a
//! restriction), which means nothing outside them.

use crate::rdf::ontology_graphs;
use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{NamedNodeRef, NamedOrBlankNode, Term, Triple, TripleRef};
use std::collections::HashSet;
use std::sync::OnceLock;

const OWL_SAME_AS: NamedNodeRef<'static> =
    NamedNodeRef::new_unchecked("http://www.w3.org/2002/07/owl#sameAs");
const OWL_THING: NamedNodeRef<'static> =
    NamedNodeRef::new_unchecked("http://www.w3.org/2002/07/owl#Thing");

/// The axioms the reasoner is given with every session: the ontologies' triples without
/// their annotations (labels, comments, definitions), which no rule reads; and the terms
/// they say something about, of which no entailment is kept.
struct Axioms {
    triples: Vec<Triple>,
    terms: HashSet<NamedOrBlankNode>,
}

/// Annotation properties of the ontologies: read by people, by no OWL 2 RL rule.
const ANNOTATIONS: [NamedNodeRef<'static>; 5] = [
    rdfs::LABEL,
    rdfs::COMMENT,
    rdfs::IS_DEFINED_BY,
    rdfs::SEE_ALSO,
    NamedNodeRef::new_unchecked("http://www.w3.org/2002/07/owl#versionInfo"),
];

fn axioms() -> &'static Axioms {
    static AXIOMS: OnceLock<Axioms> = OnceLock::new();
    AXIOMS.get_or_init(|| {
        // The ontologies are ihigraph's own text, parsed by a test on every build.
        let triples: Vec<Triple> = ontology_graphs()
            .into_iter()
            .flat_map(|(_, quads)| quads)
            .map(Triple::from)
            .filter(|triple| !ANNOTATIONS.contains(&triple.predicate.as_ref()))
            .collect();
        let terms = triples
            .iter()
            .map(|triple| triple.subject.clone())
            .collect();
        Axioms { triples, terms }
    })
}

/// The statements the ontologies entail about a session's nodes by the OWL 2 RL rules,
/// beyond those `triples` assert (see the module's text), each once.
///
/// ```
/// use ihigraph::reason::entailments;
/// use oxrdf::{NamedNode, Triple};
/// let ch = "https://jido.ai/ontology/conversation-history#";
/// let turn = NamedNode::new_unchecked("urn:example:turn");
/// let asserted = [Triple::new(
///     turn.clone(),
///     oxrdf::vocab::rdf::TYPE,
///     NamedNode::new_unchecked(format!("{ch}ConversationTurn")),
/// )];
/// let inferred = entailments(&asserted);
/// // A turn is an activity in PROV's terms.
/// assert!(inferred.contains(&Triple::new(
///     turn,
///     oxrdf::vocab::rdf::TYPE,
///     NamedNode::new_unchecked("http://www.w3.org/ns/prov#Activity"),
/// )));
/// ```
pub fn entailments(triples: &[Triple]) -> Vec<Triple> {
    let axioms = axioms();
    let mut reasoner = reasonable::reasoner::Reasoner::new();
    reasoner.set_options(reasonable::reasoner::ReasonerOptions {
        collect_diagnostics: false,
        max_diagnostics: Some(0),
        dedupe: true,
    });
    let mut input = axioms.triples.clone();
    // No OWL 2 RL rule reads an RDF 1.2 triple term, and the reasoner has none: a
    // statement with one (which only a SPARQL update can write) is left out.
    input.extend(triples.iter().filter(|triple| plain(triple)).cloned());
    reasoner.load_triples(input);
    reasoner.reason();
    let asserted: HashSet<TripleRef<'_>> = triples.iter().map(Triple::as_ref).collect();
    let nodes = nodes_of(triples);
    reasoner
        .view_output()
        .iter()
        .filter(|triple| {
            nodes.contains(&triple.subject)
                && !axioms.terms.contains(&triple.subject)
                && !asserted.contains(&triple.as_ref())
                && !says_nothing(triple)
                && !names_an_anonymous_axiom(triple, axioms)
        })
        .cloned()
        .collect()
}

/// Whether a triple's object is an IRI, a blank node or a literal (not a triple term).
fn plain(triple: &Triple) -> bool {
    matches!(
        triple.object,
        Term::NamedNode(_) | Term::BlankNode(_) | Term::Literal(_)
    )
}

/// The nodes a session's triples name as subject or object (its IRIs and blank nodes).
fn nodes_of(triples: &[Triple]) -> HashSet<NamedOrBlankNode> {
    let mut nodes = HashSet::new();
    for triple in triples {
        nodes.insert(triple.subject.clone());
        match &triple.object {
            Term::NamedNode(node) => {
                nodes.insert(node.clone().into());
            }
            Term::BlankNode(node) => {
                nodes.insert(node.clone().into());
            }
            _ => {}
        }
    }
    nodes
}

/// Whether an entailment's object is a blank node of the ontologies (a union of classes
/// in a domain, a restriction): a class with no name, meaningless outside the axioms
/// that hold it; the named classes it implies are entailed too.
fn names_an_anonymous_axiom(triple: &Triple, axioms: &Axioms) -> bool {
    match &triple.object {
        Term::BlankNode(node) => axioms.terms.contains(&node.clone().into()),
        _ => false,
    }
}

/// Whether an entailment holds of every node whatever the data (eq-ref, owl:Thing).
fn says_nothing(triple: &Triple) -> bool {
    (triple.predicate.as_ref() == OWL_SAME_AS
        && Term::from(triple.subject.clone()) == triple.object)
        || (triple.predicate.as_ref() == rdf::TYPE
            && triple.object == Term::from(OWL_THING.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::NamedNode;

    const CH: &str = "https://jido.ai/ontology/conversation-history#";
    const IHI: &str = "https://w3id.org/ihigraph/ontology#";

    fn node(iri: &str) -> NamedNode {
        NamedNode::new_unchecked(iri)
    }

    fn ch(name: &str) -> NamedNode {
        node(&format!("{CH}{name}"))
    }

    #[test]
    fn the_axioms_are_read_whole_without_annotations() {
        let axioms = axioms();
        assert!(axioms.triples.len() > 300, "{}", axioms.triples.len());
        assert!(
            axioms
                .triples
                .iter()
                .all(|triple| !ANNOTATIONS.contains(&triple.predicate.as_ref()))
        );
        assert!(axioms.terms.contains(&ch("ConversationTurn").into()));
    }

    #[test]
    fn a_session_uses_the_tools_its_turns_invoke() {
        let conversation = node("urn:example:c");
        let turn = node("urn:example:t");
        let call = node("urn:example:call");
        let tool = node(&format!("{IHI}tool/search"));
        let asserted = vec![
            Triple::new(conversation.clone(), ch("hasTurn"), turn.clone()),
            Triple::new(turn.clone(), ch("involvesToolInvocation"), call.clone()),
            Triple::new(call.clone(), ch("usesTool"), tool.clone()),
        ];
        let inferred = entailments(&asserted);
        assert!(inferred.contains(&Triple::new(
            conversation.clone(),
            node(&format!("{IHI}usedTool")),
            tool
        )));
        assert!(inferred.contains(&Triple::new(
            call.clone(),
            node(&format!("{IHI}invokedInTurn")),
            turn.clone()
        )));
        // Nothing asserted comes back, and nothing trivial.
        assert!(asserted.iter().all(|triple| !inferred.contains(triple)));
        assert!(inferred.iter().all(|triple| !says_nothing(triple)));
        // The ontologies' own terms are left to the ontologies.
        assert!(
            inferred
                .iter()
                .all(|triple| !axioms().terms.contains(&triple.subject))
        );
    }

    #[test]
    fn a_statement_about_a_triple_term_is_left_out() {
        let turn = node("urn:example:t");
        let quoted = Triple::new(turn.clone(), ch("turnIndex"), oxrdf::Literal::from(1));
        let asserted = vec![
            Triple::new(
                turn.clone(),
                node("urn:example:says"),
                Term::Triple(Box::new(quoted)),
            ),
            Triple::new(turn.clone(), rdf::TYPE, ch("ConversationTurn")),
        ];
        let inferred = entailments(&asserted);
        assert!(inferred.iter().all(plain));
        assert!(
            inferred
                .iter()
                .any(|triple| triple.subject == turn.clone().into())
        );
    }

    #[test]
    fn no_triples_entail_nothing() {
        assert!(entailments(&[]).is_empty());
    }
}
