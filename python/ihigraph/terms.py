"""Query answers as pyoxigraph terms (``Store.sparql(..., terms=True)``).

The Rust module gives each term as ``(kind, value, datatype, language)``; this turns
them into ``pyoxigraph.NamedNode``, ``BlankNode`` and ``Literal``, so that rows can go
straight into a ``pyoxigraph.Store`` or be compared with its answers.
"""

from typing import Any, Tuple


def _term(parts: Tuple[str, str, Any, Any]) -> Any:
    import pyoxigraph

    kind, value, datatype, language = parts
    if kind == "iri":
        return pyoxigraph.NamedNode(value)
    if kind == "blank":
        return pyoxigraph.BlankNode(value)
    if language is not None:
        return pyoxigraph.Literal(value, language=language)
    return pyoxigraph.Literal(value, datatype=pyoxigraph.NamedNode(datatype))


def to_pyoxigraph(answer: Any) -> Any:
    """Rows (dicts), a bool, or triples (tuples), with every term made a pyoxigraph term."""
    if isinstance(answer, bool):
        return answer
    out = []
    for item in answer:
        if isinstance(item, dict):
            out.append({name: _term(parts) for name, parts in item.items()})
        else:
            out.append(tuple(_term(parts) for parts in item))
    return out
