"""IhigraphStore against the real langgraph: the cases of LangGraph's own store tests
(the packages ship none to import, so they are written out here), TTL, provenance, and
the items as the graph sees them."""

import asyncio
import time

import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

import ihigraph
from conftest import EXAMPLES
from ihigraph.langgraph import IhigraphStore


@pytest.fixture
def memory(store):
    return IhigraphStore(store=store)


def test_is_a_base_store(memory):
    assert isinstance(memory, BaseStore) and memory.supports_ttl


def test_put_get_update_delete(memory):
    value = {"text": "likes pizza", "n": 12345678901234567890, "nested": {"ü": [1, 2.5, None]}}
    memory.put(("users", "ana"), "food", value)
    item = memory.get(("users", "ana"), "food")
    assert isinstance(item, Item) and item.value == value
    assert (item.namespace, item.key) == (("users", "ana"), "food")
    assert item.created_at == item.updated_at and item.created_at.tzinfo is not None
    time.sleep(0.01)
    memory.put(("users", "ana"), "food", {"text": "likes sushi"})
    again = memory.get(("users", "ana"), "food")
    assert again.value == {"text": "likes sushi"}
    assert again.created_at == item.created_at and again.updated_at > item.updated_at
    assert memory.get(("users", "bob"), "food") is None
    assert memory.get(("users",), "food") is None
    memory.delete(("users", "ana"), "food")
    assert memory.get(("users", "ana"), "food") is None
    memory.delete(("users", "ana"), "food")  # deleting nothing is fine


def test_namespaces_are_checked(memory):
    with pytest.raises(InvalidNamespaceError):
        memory.put((), "k", {"a": 1})
    with pytest.raises(InvalidNamespaceError):
        memory.put(("a.b",), "k", {"a": 1})


def fill(memory):
    memory.put(("docs", "reports"), "r1", {"type": "report", "status": "active", "score": 3, "text": "quarterly sales grew"})
    memory.put(("docs", "reports"), "r2", {"type": "report", "status": "draft", "score": 7, "text": "sales fell"})
    memory.put(("docs", "notes"), "n1", {"type": "note", "status": "active", "score": 5, "tags": ["a", "b"], "meta": {"owner": "ana"}})
    memory.put(("users", "ana", "prefs"), "p1", {"theme": "dark"})
    memory.put(("users", "bob", "prefs"), "p1", {"theme": "light"})


def test_search_by_prefix_and_filters(memory):
    fill(memory)
    found = memory.search(("docs",))
    assert [(i.namespace, i.key) for i in found] == [
        (("docs", "notes"), "n1"),
        (("docs", "reports"), "r1"),
        (("docs", "reports"), "r2"),
    ]
    assert all(isinstance(i, SearchItem) and i.score is None for i in found)
    assert [i.key for i in memory.search(("docs",), filter={"status": "active"})] == ["n1", "r1"]
    assert [i.key for i in memory.search(("docs",), filter={"score": {"$gt": 4}})] == ["n1", "r2"]
    assert [i.key for i in memory.search(("docs",), filter={"score": {"$gte": 3, "$lt": 5}})] == ["r1"]
    assert [i.key for i in memory.search(("docs",), filter={"status": {"$ne": "active"}})] == ["r2"]
    assert [i.key for i in memory.search(("docs",), filter={"meta": {"owner": "ana"}})] == ["n1"]
    assert [i.key for i in memory.search(("docs",), filter={"tags": ["a", "b"]})] == ["n1"]
    assert [i.key for i in memory.search((), filter={"theme": "dark"})] == ["p1"]
    assert memory.search(("nothing",)) == []


def test_search_pages_and_ranks_by_query(memory):
    fill(memory)
    assert [i.key for i in memory.search(("docs",), limit=2)] == ["n1", "r1"]
    assert [i.key for i in memory.search(("docs",), limit=2, offset=2)] == ["r2"]
    ranked = memory.search(("docs",), query="quarterly sales")
    assert [i.key for i in ranked] == ["r1", "r2", "n1"]
    assert ranked[0].score > ranked[1].score > ranked[2].score == 0.0


def test_a_query_ranks_by_the_index(memory, store):
    fill(memory)
    memory.put(("docs", "reports"), "r3", {"text": "Sales figures: sales by region, sales by quarter"})
    memory.put(("elsewhere",), "x", {"text": "quarterly sales grew"})
    # BM25, as the store's own search scores the same items; words are stemmed ("sale"
    # finds "sales"), and what the query holds besides words is not query syntax.
    ranked = memory.search(("docs",), query="Grew?")
    assert [(i.key, i.score > 0) for i in ranked][:2] == [("r1", True), ("n1", False)]
    by_key = {i.key: i.score for i in memory.search(("docs",), query="sale")}
    assert by_key["r3"] > by_key["r1"] > 0 and by_key["r2"] > 0 and by_key["n1"] == 0
    hits = {hit["item"]: hit["score"] for hit in store.search("sale", kind="memory")}
    items = {raw["key"]: raw["item"] for raw in store.items(["docs"])}
    assert by_key["r3"] == pytest.approx(hits[items["r3"]])
    # The namespace prefix and the filter still decide which items there are.
    assert [i.key for i in memory.search(("docs",), query="sales", filter={"status": "draft"})] == ["r2"]
    assert "x" not in {i.key for i in memory.search(("docs",), query="quarterly")}
    # A query of no word ranks nothing; an item put again is ranked by its new value.
    assert [i.score for i in memory.search(("users",), query="?!")] == [0.0, 0.0]
    assert memory.search(("docs",), query="zeppelin")[0].score == 0.0
    memory.put(("docs", "reports"), "r2", {"text": "zeppelin numbers"})
    assert [i.key for i in memory.search(("docs",), query="zeppelin") if i.score > 0] == ["r2"]


def test_list_namespaces(memory):
    fill(memory)
    assert memory.list_namespaces() == [
        ("docs", "notes"),
        ("docs", "reports"),
        ("users", "ana", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert memory.list_namespaces(prefix=("users",)) == [("users", "ana", "prefs"), ("users", "bob", "prefs")]
    assert memory.list_namespaces(suffix=("prefs",), max_depth=2) == [("users", "ana"), ("users", "bob")]
    assert memory.list_namespaces(prefix=("users", "*", "prefs")) == [
        ("users", "ana", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert memory.list_namespaces(max_depth=1) == [("docs",), ("users",)]
    assert memory.list_namespaces(limit=1, offset=1) == [("docs", "reports")]


def test_batch_runs_operations_in_order(memory):
    results = memory.batch(
        [
            PutOp(("a",), "k", {"v": 1}),
            GetOp(("a",), "k"),
            SearchOp(namespace_prefix=("a",), filter=None, limit=10, offset=0),
            ListNamespacesOp(
                match_conditions=(MatchCondition("prefix", ("a",)),), max_depth=None, limit=10, offset=0
            ),
            PutOp(("a",), "k", None),
            GetOp(("a",), "k"),
        ]
    )
    assert results[0] is None and results[1].value == {"v": 1}
    assert [i.key for i in results[2]] == ["k"] and results[3] == [("a",)]
    assert results[4] is None and results[5] is None


async def test_async_methods(memory):
    await memory.aput(("a", "b"), "k", {"v": 1})
    assert (await memory.aget(("a", "b"), "k")).value == {"v": 1}
    assert [i.key for i in await memory.asearch(("a",))] == ["k"]
    assert await memory.alist_namespaces() == [("a", "b")]
    got = await asyncio.gather(*(memory.aget(("a", "b"), "k") for _ in range(4)))
    assert all(item.value == {"v": 1} for item in got)
    await memory.adelete(("a", "b"), "k")
    assert await memory.aget(("a", "b"), "k") is None


def test_ttl_expires_and_reads_refresh(store):
    memory = IhigraphStore(store=store, ttl={"default_ttl": 0.01, "refresh_on_read": True})
    memory.put(("t",), "short", {"v": 1})  # 0.01 minutes: 0.6 s
    memory.put(("t",), "kept", {"v": 2}, ttl=None)
    [raw] = [i for i in store.items(["t"]) if i["key"] == "short"]
    assert raw["ttl"] == 0.6 and raw["expires"] is not None
    time.sleep(0.35)
    assert memory.get(("t",), "short") is not None  # read: refreshed for 0.6 s more
    time.sleep(0.35)
    assert memory.get(("t",), "short", refresh_ttl=False) is not None
    time.sleep(0.4)
    assert memory.get(("t",), "short") is None
    assert [i.key for i in memory.search(("t",))] == ["kept"]
    assert {i["key"] for i in store.items(["t"], at="2000-01-01T00:00:00Z")} == {"short", "kept"}


def test_provenance_and_deletion_with_the_session(examples):
    memory = IhigraphStore(store=examples)
    with memory.derived_from("abc", 1):
        memory.put(("project", "abc"), "ci", {"fact": "CI runs with MIX_ENV=ci"})
    memory.put(("project", "abc"), "loose", {"fact": "no source"})
    rows = {row["key"]: row for row in examples.query("keyed-items")}
    assert (rows["ci"]["session"], rows["ci"]["turnIndex"]) == ("abc", 1)
    assert "session" not in rows["loose"]
    with pytest.raises(ihigraph.NotFoundError):
        with memory.derived_from("abc", 99):
            memory.put(("project",), "x", {"a": 1})
    receipt = examples.delete("abc")
    assert receipt["mentions_left"] == 0 and len(receipt["items_removed"]) == 1
    assert memory.get(("project", "abc"), "ci") is None
    assert memory.get(("project", "abc"), "loose").value == {"fact": "no source"}


def test_a_store_on_disk_keeps_the_items(tmp_path):
    IhigraphStore(path=str(tmp_path / "s")).put(("a",), "k", {"v": [1, 2]})
    assert IhigraphStore(path=str(tmp_path / "s")).get(("a",), "k").value == {"v": [1, 2]}
