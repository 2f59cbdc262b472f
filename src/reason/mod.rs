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
use oxrdf::{
    Literal, LiteralRef, NamedNodeRef, NamedOrBlankNode, Term, TermRef, Triple, TripleRef,
};
use rustc_hash::FxHashSet;
use std::collections::{HashMap, HashSet};
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
    entailments_of(triples.iter().map(Triple::as_ref))
}

/// [`entailments`] of triples given by reference (a session's quads, read in place).
///
/// A long literal (a prompt, an answer, a payload) is given to the reasoner as a short
/// stand-in of the same datatype or language, the same for equal literals and different
/// for different ones, and put back in what comes out: no OWL 2 RL rule reads a literal's
/// text, only its equality with another and its datatype, which the stand-in keeps. The
/// reasoner copies and hashes every term it is given, and the texts are most of a
/// session's bytes. A stand-in's text starts with [`MARK`]; a literal of the session
/// whose text does too, however short, is given a stand-in as well, so that no literal
/// the reasoner sees can be taken for another.
pub fn entailments_of<'a>(triples: impl IntoIterator<Item = TripleRef<'a>>) -> Vec<Triple> {
    let axioms = axioms();
    let mut stand_ins = StandIns::default();
    // No OWL 2 RL rule reads an RDF 1.2 triple term, and the reasoner has none: a
    // statement with one (which only a SPARQL update can write) is left out.
    let session: Vec<Triple> = triples
        .into_iter()
        .filter(plain)
        .map(|triple| stand_ins.triple(triple))
        .collect();
    let mut reasoner = reasonable::reasoner::Reasoner::new();
    reasoner.set_options(reasonable::reasoner::ReasonerOptions {
        collect_diagnostics: false,
        max_diagnostics: Some(0),
        dedupe: true,
    });
    let mut input = Vec::with_capacity(axioms.triples.len() + session.len());
    input.extend(axioms.triples.iter().cloned());
    input.extend(session.iter().cloned());
    reasoner.load_triples(input);
    reasoner.reason();
    let asserted: FxHashSet<&Triple> = session.iter().collect();
    let nodes = nodes_of(&session);
    reasoner
        .view_output()
        .iter()
        .filter(|triple| {
            nodes.contains(&triple.subject)
                && !axioms.terms.contains(&triple.subject)
                && !asserted.contains(triple)
                && !says_nothing(triple)
                && !names_an_anonymous_axiom(triple, axioms)
        })
        .map(|triple| stand_ins.restore(triple))
        .collect()
}

/// Literals longer than this (in bytes) are given to the reasoner as stand-ins (see
/// [`entailments_of`]).
const LONG_LITERAL: usize = 64;

/// The first character of a stand-in's text (a control character, rare in text); none
/// of the ontologies' own literals starts with it.
const MARK: char = '\u{1}';

/// The long literals of a session, each with the stand-in it is reasoned about as.
#[derive(Default)]
struct StandIns<'a> {
    /// Each long literal once (hashed with SipHash: these texts come from the input).
    numbers: HashMap<LiteralRef<'a>, usize>,
    literals: Vec<LiteralRef<'a>>,
}

impl<'a> StandIns<'a> {
    /// The triple as the reasoner is given it: owned, its long literal replaced.
    fn triple(&mut self, triple: TripleRef<'a>) -> Triple {
        let object = match triple.object {
            TermRef::Literal(literal)
                if literal.value().len() > LONG_LITERAL || literal.value().starts_with(MARK) =>
            {
                Term::Literal(self.stand_in(literal))
            }
            object => object.into_owned(),
        };
        Triple::new(
            triple.subject.into_owned(),
            triple.predicate.into_owned(),
            object,
        )
    }

    /// A literal of the same datatype (or language) whose text is [`MARK`] and its
    /// number.
    fn stand_in(&mut self, literal: LiteralRef<'a>) -> Literal {
        let next = self.literals.len();
        let number = *self.numbers.entry(literal).or_insert(next);
        if number == next {
            self.literals.push(literal);
        }
        let text = format!("{MARK}{number}");
        match literal.language() {
            Some(language) => Literal::new_language_tagged_literal_unchecked(text, language),
            None => Literal::new_typed_literal(text, literal.datatype()),
        }
    }

    /// An entailment with its stand-in (if any) replaced by the literal it stands for.
    fn restore(&self, triple: &Triple) -> Triple {
        match &triple.object {
            Term::Literal(literal) => match self.original(literal) {
                Some(original) => Triple::new(
                    triple.subject.clone(),
                    triple.predicate.clone(),
                    original.into_owned(),
                ),
                None => triple.clone(),
            },
            _ => triple.clone(),
        }
    }

    /// The long literal a stand-in stands for.
    fn original(&self, literal: &Literal) -> Option<LiteralRef<'a>> {
        let number: usize = literal.value().strip_prefix(MARK)?.parse().ok()?;
        let original = *self.literals.get(number)?;
        (original.language() == literal.language() && original.datatype() == literal.datatype())
            .then_some(original)
    }
}

/// Whether a triple's object is an IRI, a blank node or a literal (not a triple term).
fn plain(triple: &TripleRef<'_>) -> bool {
    matches!(
        triple.object,
        TermRef::NamedNode(_) | TermRef::BlankNode(_) | TermRef::Literal(_)
    )
}

/// The nodes a session's triples name as subject or object (its IRIs and blank nodes).
fn nodes_of(triples: &[Triple]) -> FxHashSet<NamedOrBlankNode> {
    let mut nodes = FxHashSet::default();
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
        let quoted = Triple::new(turn.clone(), ch("turnIndex"), Literal::from(1));
        let asserted = vec![
            Triple::new(
                turn.clone(),
                node("urn:example:says"),
                Term::Triple(Box::new(quoted)),
            ),
            Triple::new(turn.clone(), rdf::TYPE, ch("ConversationTurn")),
        ];
        let inferred = entailments(&asserted);
        assert!(inferred.iter().all(|triple| plain(&triple.as_ref())));
        assert!(
            inferred
                .iter()
                .any(|triple| triple.subject == turn.clone().into())
        );
    }

    #[test]
    fn long_literals_are_reasoned_about_as_stand_ins_and_come_back_whole() {
        let turn = node("urn:example:t");
        let other = node("urn:example:u");
        let long = "a prompt long enough to be given to the reasoner as a stand-in, ".repeat(3);
        let text = |value: &str| Literal::new_language_tagged_literal_unchecked(value, "en");
        // Statements the reasoner must see as they are: a short literal that looks like
        // a stand-in, and two nodes with the same long text.
        let sub_property = node("urn:example:says");
        let asserted = vec![
            Triple::new(turn.clone(), sub_property.clone(), text(&long)),
            Triple::new(
                turn.clone(),
                sub_property.clone(),
                text(&format!("{MARK}0")),
            ),
            Triple::new(other.clone(), sub_property.clone(), text(&long)),
            Triple::new(
                sub_property.clone(),
                rdfs::SUB_PROPERTY_OF,
                node("urn:example:mentions"),
            ),
        ];
        let inferred = entailments(&asserted);
        for subject in [&turn, &other] {
            assert!(inferred.contains(&Triple::new(
                subject.clone(),
                node("urn:example:mentions"),
                text(&long)
            )));
        }
        assert!(inferred.contains(&Triple::new(
            turn.clone(),
            node("urn:example:mentions"),
            text(&format!("{MARK}0"))
        )));
        // No stand-in comes out.
        assert_eq!(
            inferred
                .iter()
                .filter(|triple| triple.predicate.as_str() == "urn:example:mentions")
                .count(),
            3,
            "{inferred:?}"
        );
        // The ontologies' own literals are neither long nor marked.
        for triple in &axioms().triples {
            if let Term::Literal(literal) = &triple.object {
                assert!(
                    literal.value().len() <= LONG_LITERAL && !literal.value().starts_with(MARK)
                );
            }
        }
    }

    #[test]
    fn no_triples_entail_nothing() {
        assert!(entailments(&[]).is_empty());
    }
}
