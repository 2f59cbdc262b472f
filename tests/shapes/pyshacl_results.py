"""pySHACL's verdicts on graphs, for tests/shapes.rs to compare with ihigraph's.

Usage: python3 pyshacl_results.py SHAPES.ttl DATA.nt...

Prints one JSON object per data file: its name, whether it conforms, and its results as
[focus, path, component], each term in N-Triples (blank nodes as "_") and the path in
SPARQL's syntax, as ihigraph's ShapePath writes it.
"""

import json
import sys

from pyshacl import validate
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import RDF, SH


def term(node):
    if isinstance(node, BNode):
        return "_"
    return node.n3()


def path(graph, node, depth=0):
    if isinstance(node, URIRef):
        return node.n3()
    if depth > 32:
        return "_"
    inverse = graph.value(node, SH.inversePath)
    if inverse is not None:
        return "^" + path(graph, inverse, depth + 1)
    for predicate, suffix in ((SH.zeroOrMorePath, "*"), (SH.oneOrMorePath, "+"), (SH.zeroOrOnePath, "?")):
        inner = graph.value(node, predicate)
        if inner is not None:
            return "(" + path(graph, inner, depth + 1) + ")" + suffix
    alternative = graph.value(node, SH.alternativePath)
    if alternative is not None:
        members = [path(graph, m, depth + 1) for m in graph.items(alternative)]
        return "(" + "|".join(members) + ")"
    members = [path(graph, m, depth + 1) for m in graph.items(node)]
    return "(" + "/".join(members) + ")"


def main():
    shapes = Graph().parse(sys.argv[1], format="turtle")
    for name in sys.argv[2:]:
        data = Graph().parse(name, format="nt")
        conforms, report, _ = validate(data, shacl_graph=shapes, inference="none", advanced=False)
        results = []
        for result in report.subjects(RDF.type, SH.ValidationResult):
            result_path = report.value(result, SH.resultPath)
            results.append([
                term(report.value(result, SH.focusNode)),
                None if result_path is None else path(report, result_path),
                term(report.value(result, SH.sourceConstraintComponent)),
            ])
        print(json.dumps({"file": name, "conforms": bool(conforms), "results": results}))


if __name__ == "__main__":
    main()
