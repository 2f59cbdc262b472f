"""LangGraph's long-term memory store on ihigraph.

:class:`IhigraphStore` is a ``BaseStore`` (the interface LangMem builds on): each item is a
keyed memory item in the store's memory graph, beside the items ``remember`` makes, with
when it was made and changed and, with a TTL, when it expires. Items put inside
:meth:`IhigraphStore.derived_from` carry their provenance: the session and turn they came
from (deleting that session deletes them, as it deletes the rest of its memory).

``search`` filters by namespace prefix and by value (``filter``, with the operators of
LangGraph's ``InMemoryStore``: ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``);
a ``query`` ranks the items by the store's full-text index: BM25 over each value's
JSON text, any of the query's words, each analyzed in the value's language (stems,
accents), as ``SearchItem.score``; items that match none follow with score 0 (there is
no embedding index: ``index`` is accepted and ignored).

>>> from ihigraph import Store
>>> from ihigraph.langgraph import IhigraphStore
>>> memory = IhigraphStore(store=Store())
>>> memory.put(("users", "ana"), "food", {"likes": "pizza"})
>>> memory.get(("users", "ana"), "food").value
{'likes': 'pizza'}
>>> memory.list_namespaces(prefix=("users",))
[('users', 'ana')]
"""

import contextlib
import contextvars
import operator
import re
from datetime import datetime, timezone
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from ihigraph._ihigraph import Store

_SOURCE: "contextvars.ContextVar[Optional[Tuple[str, int]]]" = contextvars.ContextVar(
    "ihigraph_langgraph_source", default=None
)

# The most hits one search of the index gives: items ranked below are scored 0.
_MOST_HITS = 1000

_OPERATORS = {
    "$eq": operator.eq,
    "$ne": operator.ne,
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def _time(text: Optional[str]) -> Optional[datetime]:
    """An xsd:dateTime as written by the store, as an aware datetime."""
    if text is None:
        return None
    text = text.replace("Z", "+00:00")
    # Python before 3.11 reads fractions of 3 or 6 digits only; the store keeps nine.
    text = re.sub(r"\.(\d+)", lambda m: "." + m.group(1)[:6].ljust(6, "0"), text)
    return datetime.fromisoformat(text)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _matches(value: Any, wanted: Any) -> bool:
    """Whether a value meets a filter's condition (as InMemoryStore decides)."""
    if isinstance(wanted, dict):
        if any(key.startswith("$") for key in wanted):
            return all(_apply(value, op, operand) for op, operand in wanted.items())
        if not isinstance(value, dict):
            return False
        return all(_matches(value.get(key), sub) for key, sub in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(wanted)
            and all(_matches(v, w) for v, w in zip(value, wanted))
        )
    return value == wanted


def _apply(value: Any, op: str, operand: Any) -> bool:
    if op not in _OPERATORS:
        raise ValueError(f"unsupported filter operator {op} (expected one of {sorted(_OPERATORS)})")
    try:
        return bool(_OPERATORS[op](value, operand))
    except TypeError:
        return False


def _matches_namespace(condition: MatchCondition, namespace: Tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path)
        if condition.match_type == "prefix"
        else zip(reversed(namespace), reversed(path))
    )
    if condition.match_type not in ("prefix", "suffix"):
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


class IhigraphStore(BaseStore):
    """LangGraph's ``BaseStore`` over an ihigraph store's keyed memory items.

    Give a :class:`ihigraph.Store`, or a ``path`` to open one (``None``: in memory).
    ``ttl`` is LangGraph's ``TTLConfig`` (``default_ttl`` in minutes,
    ``refresh_on_read``); expired items are never read.
    """

    supports_ttl = True

    def __init__(
        self,
        store: Optional[Store] = None,
        path: Optional[str] = None,
        *,
        ttl: Optional[TTLConfig] = None,
    ) -> None:
        if store is not None and path is not None:
            raise ValueError("give a store or a path, not both")
        self.store = store if store is not None else Store(path)
        self.ttl_config = ttl

    @contextlib.contextmanager
    def derived_from(self, session: str, turn: int) -> Iterator[None]:
        """Items put inside this block come from turn ``turn`` of session ``session``."""
        token = _SOURCE.set((session, turn))
        try:
            yield
        finally:
            _SOURCE.reset(token)

    def batch(self, ops: Iterable[Op]) -> List[Result]:
        """Runs the operations in order; puts to the same key keep the last."""
        results: List[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            else:
                raise ValueError(f"unknown operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> List[Result]:
        """:meth:`batch` in an executor: the store releases the GIL while it works."""
        import asyncio

        ops = list(ops)
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)

    def _items(self, prefix: Tuple[str, ...]) -> List[Dict[str, Any]]:
        return self.store.items(list(prefix), at=_stamp(_now()))

    def _item(self, raw: Dict[str, Any], score: Optional[float] = None, search: bool = False) -> Item:
        fields = dict(
            value=raw["value"],
            key=raw["key"],
            namespace=tuple(raw["namespace"]),
            created_at=_time(raw["created"]),
            updated_at=_time(raw["updated"]),
        )
        return SearchItem(**fields, score=score) if search else Item(**fields)

    def _refresh(self, raw: Dict[str, Any], refresh: bool) -> None:
        """Moves an item's expiry as far ahead as its time to live, on read."""
        if refresh and raw["ttl"] is not None:
            self.store.refresh_item(list(raw["namespace"]), raw["key"])

    def _get(self, op: GetOp) -> Optional[Item]:
        for raw in self._items(op.namespace):
            if tuple(raw["namespace"]) == tuple(op.namespace) and raw["key"] == op.key:
                self._refresh(raw, op.refresh_ttl)
                return self._item(raw)
        return None

    def _search(self, op: SearchOp) -> List[SearchItem]:
        found = [
            raw
            for raw in self._items(op.namespace_prefix)
            if not op.filter or all(_matches(raw["value"].get(k), v) for k, v in op.filter.items())
        ]
        scores: List[Optional[float]] = [None] * len(found)
        if op.query:
            ranked = self._ranked(op.query)
            scores = [ranked.get(raw["item"], 0.0) for raw in found]
            order = sorted(range(len(found)), key=lambda i: -scores[i])  # stable
            found = [found[i] for i in order]
            scores = [scores[i] for i in order]
        page = list(zip(found, scores))[op.offset : op.offset + op.limit]
        for raw, _ in page:
            self._refresh(raw, op.refresh_ttl)
        return [self._item(raw, score, search=True) for raw, score in page]

    def _ranked(self, query: str) -> Dict[str, float]:
        """The BM25 score of each memory item matching any word of ``query``, by IRI."""
        words = [word.lower() for word in re.findall(r"\w+", query)]
        if not words:
            return {}
        # Any word (a natural-language query rarely has every word in one value); each
        # written as a word of its own, so that nothing in it reads as query syntax.
        hits = self.store.search(" OR ".join(words), kind="memory", limit=_MOST_HITS)
        return {hit["item"]: hit["score"] for hit in hits if hit["item"] is not None}

    def _list_namespaces(self, op: ListNamespacesOp) -> List[Tuple[str, ...]]:
        namespaces = {tuple(raw["namespace"]) for raw in self._items(())}
        if op.match_conditions:
            namespaces = {
                ns for ns in namespaces if all(_matches_namespace(c, ns) for c in op.match_conditions)
            }
        if op.max_depth is not None:
            namespaces = {ns[: op.max_depth] for ns in namespaces}
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    def _put(self, op: PutOp) -> None:
        if op.value is None:
            self.store.delete_item(list(op.namespace), op.key)
            return
        source = _SOURCE.get()
        self.store.put_item(
            list(op.namespace),
            op.key,
            dict(op.value),
            session=source[0] if source else None,
            turn=source[1] if source else None,
            ttl=None if op.ttl is None else op.ttl * 60,
        )
