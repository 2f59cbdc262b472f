"""What owlrl (the OWL 2 RL reasoner of the RDFLib project) entails about a session,
kept as ihigraph's `reason` layer keeps its own reasoner's: an independent check of it.

Usage: python3 owlrl_entailments.py SESSION.nt ONTOLOGY.ttl...

Prints, as sorted N-Triples lines, every statement owlrl's OWL 2 RL closure of the
ontologies and the session holds that
- is about a node the session names (as subject or object) that the ontologies do not
  define (those are the ontologies' business),
- the session does not assert,
- is not one of the two statements OWL 2 RL makes of every node (`x owl:sameAs x`,
  `x rdf:type owl:Thing`), and
- does not name a class the ontologies leave without a name (their blank nodes).

The ontologies' annotations (labels, comments) are dropped first, as ihigraph drops
them: no rule reads them. owlrl's axiomatic and datatype triples are not asked for: they
are statements about the vocabularies, which the first rule above leaves out anyway.
"""

import sys

import owlrl
from rdflib import BNode, Graph, Literal
from rdflib.namespace import OWL, RDF, RDFS

ANNOTATIONS = {RDFS.label, RDFS.comment, RDFS.isDefinedBy, RDFS.seeAlso, OWL.versionInfo}


def main(session_path, ontology_paths):
    axioms = Graph()
    for path in ontology_paths:
        axioms.parse(path, format="turtle")
    for triple in list(axioms):
        if triple[1] in ANNOTATIONS:
            axioms.remove(triple)
    session = Graph()
    session.parse(session_path, format="nt")
    if any(isinstance(node, BNode) for triple in session for node in triple):
        sys.exit("the session has blank nodes: their labels do not survive parsing")
    closure = Graph()
    closure += axioms
    closure += session
    owlrl.DeductiveClosure(
        owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False
    ).expand(closure)
    terms = set(axioms.subjects())
    nodes = set(session.subjects()) | {
        node for node in session.objects() if not isinstance(node, Literal)
    }
    lines = set()
    for subject, predicate, obj in closure:
        if subject not in nodes or subject in terms:
            continue
        if (subject, predicate, obj) in session:
            continue
        if predicate == OWL.sameAs and subject == obj:
            continue
        if predicate == RDF.type and obj == OWL.Thing:
            continue
        if isinstance(obj, BNode) and obj in terms:
            continue
        lines.add(f"{subject.n3()} {predicate.n3()} {obj.n3()} .")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
