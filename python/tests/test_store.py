"""The Store API: each call against what the library (and the command) gives."""

import copy
import json
import os
import threading
import time

import pytest

import ihigraph
from conftest import EXAMPLES


def test_ingest_paths_and_sessions(store):
    report = store.ingest(EXAMPLES)
    assert (report.sessions, report.replaced, report.refused) == (4, 0, [])
    assert report.turns == 4 + 4 + 4 + 4 or report.turns > 0
    assert store.sessions() == sorted(
        ["abc", "research-rag-memory", "support-2026-0117-fr", "trip-kyoto-2026"]
    )
    assert len(store) == 4
    assert "abc" in store and "nope" not in store
    again = store.ingest(EXAMPLES)
    assert again.unchanged == 4


def test_ingest_documents_and_history_round_trip(store, trip):
    report = store.ingest(trip)
    assert report.sessions == 1 and report.turns == trip["TurnCount"]
    back = store.history("trip-kyoto-2026")
    assert back["Turns"] == trip["Turns"]
    assert back["SessionID"] == trip["SessionID"]


def test_ingest_refused_document_raises_with_pointer(store, trip):
    broken = copy.deepcopy(trip)
    broken["Turns"][1]["Role"] = "Robot"
    with pytest.raises(ihigraph.ValidationError) as raised:
        store.ingest([broken, EXAMPLES / "code-review-abc.json"])
    error = raised.value
    assert error.pointer == "/Turns/1/Role"
    assert error.file == "<document 1>"
    assert "Robot" in error.message or "Role" in error.message
    assert error.diagnostics and error.diagnostics[0].pointer == "/Turns/1/Role"
    assert isinstance(error, ihigraph.IhigraphError)
    # The valid document went in all the same.
    assert store.sessions() == ["abc"]


def test_ingest_not_strict_lists_refusals(store, trip):
    broken = copy.deepcopy(trip)
    del broken["Turns"][0]["PRCPrompt"]
    report = store.ingest(broken, strict=False)
    assert report.sessions == 0
    [refusal] = report.refused
    assert refusal.is_error and refusal.pointer.startswith("/Turns/0")


def test_syntax_error_has_line_and_column(store, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "Header": "PGM-IHI-V1.0",\n  oops\n}\n')
    with pytest.raises(ihigraph.ValidationError) as raised:
        store.ingest(path)
    assert (raised.value.file, raised.value.line, raised.value.column) == (str(path), 3, 3)


def test_validate_gives_diagnostics_with_places(trip):
    assert ihigraph.validate(trip) == []
    broken = copy.deepcopy(trip)
    broken["TurnCount"] = 7
    found = ihigraph.validate([broken, EXAMPLES])
    assert [d.pointer for d in found if d.is_error] == ["/TurnCount"]
    [diagnostic] = [d for d in found if d.is_error]
    assert diagnostic.file == "<document 1>" and diagnostic.severity == "error"
    assert "/TurnCount" in str(diagnostic) and "Diagnostic(" in repr(diagnostic)


def test_convert_and_ingest_foreign_formats(store):
    chat = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4"},
    ]
    [document] = ihigraph.convert(chat, from_="openai-chat", session_id="sum")
    assert document["SessionID"] == "sum" and document["TurnCount"] == 1
    assert ihigraph.validate(document) == []
    report = store.ingest(chat, from_="auto", session_id="sum")
    assert report.sessions == 1
    assert store.history("sum")["Turns"] == document["Turns"]


def test_convert_refusal_says_where():
    with pytest.raises(ihigraph.ConversionError) as raised:
        ihigraph.convert([{"type": "human", "data": {}}], from_="langchain")
    assert raised.value.pointer == "/0/data/content"
    with pytest.raises(ValueError, match="no such format"):
        ihigraph.convert([], from_="nope")


def test_canned_queries_rows_as_dicts(examples):
    rows = examples.query("recent-turns", session="abc", n=3)
    assert [row["turnIndex"] for row in rows] == [3, 2, 1]
    assert {row["role"] for row in rows} <= {"A-User", "H-User", "BKN"}
    sessions = examples.query("sessions")
    assert sorted(row["session"] for row in sessions) == examples.sessions()
    with pytest.raises(ihigraph.QueryError, match="no-such"):
        examples.query("no-such")
    with pytest.raises(ihigraph.QueryError):
        examples.query("recent-turns", session="abc", n="many")


def test_sparql_plain_values_and_pyoxigraph_terms(examples):
    query = """
        PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
        SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }
    """
    [row] = examples.sparql(query)
    assert isinstance(row["n"], int) and row["n"] > 100
    pyoxigraph = pytest.importorskip("pyoxigraph")
    [row] = examples.sparql(query, terms=True)
    assert isinstance(row["n"], pyoxigraph.Literal)
    assert row["n"].datatype == pyoxigraph.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
    assert examples.sparql("ASK { GRAPH ?g { ?s ?p ?o } }") is True
    triples = examples.sparql("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 2")
    assert len(triples) == 2 and len(triples[0]) == 3
    with pytest.raises(ihigraph.QueryError):
        examples.sparql("SELECT WHERE {")


def test_export_formats(examples):
    trig = examples.export("nquads", session="abc")
    assert trig.count("\n") > 50 and "abc" in trig
    [document] = examples.export("pgm-ihi", session="abc")
    assert document["SessionID"] == "abc"
    assert len(examples.export("pgm-ihi")) == 4
    with pytest.raises(ValueError, match="expected trig"):
        examples.export("csv")


def test_append_and_context(store, trip):
    create = {
        "MInstanceID": trip["MInstanceID"],
        "UEnvironmentID": trip["UEnvironmentID"],
        "DataID": "appended",
        "SourceAIM": "tests",
    }
    outcome = store.append("kyoto", trip["Turns"][0], create=create)
    assert outcome["created"] and outcome["turn_count"] == 1
    outcome = store.append("kyoto", trip["Turns"][1])
    assert not outcome["created"] and outcome["turn_count"] == 2
    assert store.history("kyoto")["Turns"] == trip["Turns"][:2]
    context = store.context("kyoto", 4000, format="anthropic")
    assert context["format"] == "anthropic" and context["budget"] == 4000
    assert context["turns"] == ["0", "1"] and 0 < context["tokens"] <= 4000
    assert context["request"]["messages"][0]["role"] == "user"
    with pytest.raises(ihigraph.ValidationError) as raised:
        store.append("kyoto", {"Role": "Robot"})
    assert raised.value.pointer.startswith("/Turns/2")
    with pytest.raises(ihigraph.NotFoundError):
        store.context("nowhere", 4000)
    with pytest.raises(ihigraph.IhigraphError, match="too small"):
        store.context("kyoto", 3)


def test_memory_with_provenance_and_delete_receipt(examples):
    item = examples.remember("abc", 1, "CI runs with MIX_ENV=ci", kind="fact")
    [row] = examples.memory(session="abc")
    assert row["text"] == "CI runs with MIX_ENV=ci" and row["id"] == item
    assert examples.forget(item).endswith(item)
    assert examples.memory() == []
    again = examples.remember("abc", 1, "a lesson", kind="lesson")
    receipt = examples.delete("abc", dry_run=True)
    assert receipt["dry_run"] and again in receipt["items_removed"]
    assert "abc" in examples.sessions()
    receipt = examples.delete("abc")
    assert receipt["mentions_left"] == 0 and receipt["graph_triples"] > 0
    assert "abc" not in examples.sessions() and examples.memory() == []
    with pytest.raises(ihigraph.NotFoundError):
        examples.remember("trip-kyoto-2026", 99, "x")


def test_retention_prune_and_erasure(examples):
    assert examples.retention() is None
    with pytest.raises(ValueError, match="no retention period"):
        examples.prune()
    with pytest.raises(ValueError, match="years and months"):
        examples.set_retention("P1M")
    examples.set_retention("1d")
    assert examples.retention() == "P1D"
    # The examples' last turns are on January 1st to 4th: a day before noon on the 3rd
    # leaves the 1st and the 2nd behind.
    dry = examples.prune(dry_run=True, now="2026-01-03T12:00:00Z")
    assert [r["session_id"] for r in dry["receipts"]] == ["abc", "trip-kyoto-2026"]
    assert dry["totals"]["sessions"] == 2 and dry["kept"] == 2
    assert "abc" in examples.sessions()
    done = examples.prune(now="2026-01-03T12:00:00Z")
    assert done["totals"] == dry["totals"] and done["cutoff"] == "2026-01-02T12:00:00Z"
    assert sorted(examples.sessions()) == ["research-rag-memory", "support-2026-0117-fr"]
    examples.set_retention(None)
    assert examples.retention() is None
    erased = examples.erase("instance=m-instance/helpdesk")
    assert [r["session_id"] for r in erased["receipts"]] == ["support-2026-0117-fr"]
    assert erased["subject_mentions_left"] == 0 and erased["totals"]["mentions_left"] == 0
    with pytest.raises(ValueError, match="instance, environment or user"):
        examples.erase("tenant=x")


def test_report_hash_and_verify(examples, tmp_path):
    page = examples.report(tmp_path / "report.html", sessions=["abc"])
    assert page.startswith("<!DOCTYPE html>")
    assert (tmp_path / "report.html").read_text() == page
    digests = dict(examples.hash())
    assert set(digests) == set(examples.sessions())
    assert all(len(d) == 64 for d in digests.values())
    assert dict(examples.verify()) == {s: "intact" for s in examples.sessions()}
    graph = examples.delete("trip-kyoto-2026", dry_run=True)["graph"]
    examples.update(f'INSERT DATA {{ GRAPH <{graph}> {{ <urn:x> <urn:y> "added" }} }}')
    assert dict(examples.verify(["trip-kyoto-2026"]))["trip-kyoto-2026"] == "changed"
    with pytest.raises(ihigraph.NotFoundError):
        examples.hash(["nope"])


def test_store_on_disk_persists(tmp_path, trip):
    first = ihigraph.Store(tmp_path / "store")
    first.ingest(trip)
    del first
    reopened = ihigraph.Store(os.fspath(tmp_path / "store"))
    assert reopened.sessions() == ["trip-kyoto-2026"]


def test_close_finishes_the_index_and_lets_the_files_go(tmp_path):
    """``close()`` waits for the index's merges (eight commits leave eight segments of one
    level, which tantivy merges on a thread of its own) and releases the store's lock:
    the same directory opens again in this process while the closed object lives on."""
    path = tmp_path / "store"
    store = ihigraph.Store(path)
    for index in range(8):
        store.ingest(chat(f"question {index} about tides", f"answer {index}"),
                     from_="openai-chat", session_id=f"s{index}")
    store.close()
    segments = json.loads((path / "search" / "meta.json").read_text())["segments"]
    assert len(segments) < 8, f"{len(segments)} segments left: the merges were cut short"
    again = ihigraph.Store(path)
    assert len(again.search("tides")) == 8
    assert repr(store) == f"Store(\"{path}\", closed)" and repr(again) == f"Store(\"{path}\")"
    with pytest.raises(ihigraph.StoreError, match=r"this store \(.*\) is closed"):
        store.sessions()
    store.close()  # closing again does nothing


def test_a_with_block_closes_the_store_and_lets_its_exception_through(trip):
    with ihigraph.Store() as store:
        store.ingest(trip)
        assert store.sessions() == ["trip-kyoto-2026"]
    for call in (store.sessions, lambda: store.query("recent-turns", session="x"),
                 lambda: store.reasoning, lambda: len(store)):
        with pytest.raises(ihigraph.StoreError, match=r"this store \(memory\) is closed"):
            call()
    with pytest.raises(KeyError):
        with ihigraph.Store() as other:
            raise KeyError("inside")
    with pytest.raises(ihigraph.StoreError, match="closed"):
        other.sessions()


def test_close_waits_for_the_calls_under_way_without_a_deadlock(examples):
    """A close from one thread while others are in store calls: the calls under way end
    as they would have, later ones are refused, and nothing waits for ever (a call holds
    the store, a close waits for it without the GIL the call needs to return)."""
    for index in range(200):
        examples.ingest(chat(f"question {index}", f"answer {index}"),
                        from_="openai-chat", session_id=f"w-{index}")
    outcomes = []

    def work():
        for _ in range(50):
            try:
                examples.report()
                outcomes.append("done")
            except ihigraph.StoreError as error:
                assert "is closed" in str(error)
                outcomes.append("refused")
                return

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)
    examples.close()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a call or the close waits for ever"
    assert outcomes.count("refused") == 3, outcomes


def test_a_tenant_is_a_store_of_its_own(tmp_path, trip):
    path = tmp_path / "store"
    root = ihigraph.Store(path)
    root.add_tenant("acme")
    assert root.tenants() == ["acme"]
    del root
    acme = ihigraph.Store(path, tenant="acme")
    acme.ingest(trip)
    assert acme.sessions() == ["trip-kyoto-2026"]
    rows = acme.sparql(
        "SELECT ?g WHERE { GRAPH ?g "
        "{ ?c a <https://jido.ai/ontology/conversation-history#Conversation> } }"
    )
    assert "/tenant/acme/" in rows[0]["g"]
    del acme
    assert ihigraph.Store(path).sessions() == []
    with pytest.raises(ihigraph.NotFoundError, match="no tenant"):
        ihigraph.Store(path, tenant="initech")
    with pytest.raises(ValueError, match="tenant"):
        ihigraph.Store(path, tenant="Bad/Name")


def test_values_that_are_not_json_are_refused(store):
    with pytest.raises(TypeError, match="/Turns/0"):
        store.ingest({"Turns": [object()]})


def test_long_calls_release_the_gil(examples):
    """A Python thread keeps running in the middle of one long store call: the call has
    released the GIL (held, the thread could run only before and after it)."""
    # Enough sessions that the report takes a while in a release build too.
    for index in range(300):
        chat = [{"role": "user", "content": f"question {index}"},
                {"role": "assistant", "content": f"answer {index}"}]
        examples.ingest(chat, from_="openai-chat", session_id=f"gil-{index}")
    stamps = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0005)

    thread = threading.Thread(target=tick)
    thread.start()
    time.sleep(0.01)
    start = time.perf_counter()
    examples.report()
    end = time.perf_counter()
    stop.set()
    thread.join()
    quarter = (end - start) / 4
    inside = [t for t in stamps if start + quarter < t < end - quarter]
    assert end - start > 0.004, "the call is too short to tell"
    assert inside, f"no tick in the middle of a {end - start:.3f} s call"


def chat(question, answer):
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


def test_search_gives_hits_with_their_places(store):
    store.ingest(chat("Where does the café serve crêpes?", "The café on Rue Cler serves crêpes."), from_="openai-chat", session_id="paris")
    store.ingest(chat("Which café is open late?", "None: the cafés close at nine."), from_="openai-chat", session_id="late")
    hits = store.search("crêpes")
    assert sorted((h["session"], h["kind"], h["turn_index"]) for h in hits) == [("paris", "answer", 0), ("paris", "prompt", 0)]
    assert hits[0]["score"] >= hits[1]["score"] > 0
    for hit in hits:
        assert set(hit) == {"score", "session", "item", "turn", "turn_index", "role", "time", "kind", "language", "snippet", "highlights"}
        assert hit["item"] is None and hit["turn"].endswith("/paris/turn/0")
        # Highlights are character offsets: "café" before the word counts one each.
        assert [hit["snippet"][a:b] for a, b in hit["highlights"]] == ["crêpes"]
    # The SPARQL side names the same turns.
    [row] = store.query("recent-turns", session="paris", n=1)
    assert row["turnIndex"] == hits[0]["turn_index"]


def test_search_filters(examples):
    assert {h["session"] for h in examples.search("the", limit=100)} > {"trip-kyoto-2026"}
    only = examples.search("the", session="trip-kyoto-2026", limit=100)
    assert only and {h["session"] for h in only} == {"trip-kyoto-2026"}
    roles = {h["role"] for h in examples.search("the", limit=1000)}
    for role in roles:
        assert {h["role"] for h in examples.search("the", role=role, limit=1000)} == {role}
    kinds = {h["kind"] for h in examples.search("the", kind=["prompt", "answer"], limit=1000)}
    assert kinds == {"prompt", "answer"}
    assert {h["kind"] for h in examples.search("the", kind="answer", limit=1000)} == {"answer"}
    times = sorted(h["time"] for h in examples.search("the", limit=1000) if h["time"])
    middle = times[len(times) // 2]
    later = examples.search("the", since=middle, limit=1000)
    earlier = examples.search("the", until=middle, limit=1000)
    assert later and earlier and all(h["time"] >= middle for h in later)
    assert len(later) + len(earlier) == len([t for t in times])
    assert len(examples.search("the", limit=2)) == 2


def test_search_errors_are_the_modules(store):
    store.ingest(chat("hello", "hi"), from_="openai-chat", session_id="s")
    with pytest.raises(ihigraph.QueryError, match="nothing to search for"):
        store.search("  ")
    with pytest.raises(ValueError, match="unknown kind"):
        store.search("hello", kind="turn")
    with pytest.raises(ValueError, match="since"):
        store.search("hello", since="yesterday")
    assert store.search("hello", session="nowhere") == []


def test_reasoning_in_memory_and_inferred_queries():
    plain = ihigraph.Store()
    assert not plain.reasoning
    plain.ingest(EXAMPLES)
    with pytest.raises(ihigraph.StoreError, match="does not reason"):
        plain.query("tools-by-session")
    store = ihigraph.Store(reasoning=True)
    assert store.reasoning
    store.ingest(EXAMPLES)
    rows = store.query("tools-by-session", agent="m-instance/helpdesk")
    assert {row["tool"] for row in rows} == {
        "reset_two_factor",
        "search_knowledge_base",
        "verify_identity",
    }
    used = (
        "PREFIX ihi: <https://w3id.org/ihigraph/ontology#> "
        "SELECT ?session ?tool WHERE { GRAPH ?g { ?c ihi:sessionId ?session ; ihi:usedTool ?tool } }"
    )
    assert store.sparql(used) == []
    inferred = store.sparql(used, inferred=True)
    assert {row["session"] for row in inferred} == set(store.sessions())
    # A canned query over the entailments gives the rows it gives over the store.
    assert store.query("tool-stats", inferred=True) == store.query("tool-stats")


def test_reasoning_on_and_off_in_a_directory(tmp_path):
    path = tmp_path / "store"
    store = ihigraph.Store(path, reasoning=True)
    store.ingest(EXAMPLES / "code-review-abc.json")
    assert store.reasoning and (path / "inferred").is_dir()
    del store
    again = ihigraph.Store(path)
    assert again.reasoning
    assert again.query("tools-by-session")
    del again
    off = ihigraph.Store(path, reasoning=False)
    assert not off.reasoning and not (path / "inferred").exists()
    with pytest.raises(ValueError, match="not on a server"):
        ihigraph.Store(endpoint="http://127.0.0.1:9/sparql", reasoning=True)


def test_a_store_held_open_is_refused_with_rocksdbs_reason(tmp_path):
    # RocksDB reports the held lock as an error string it allocates with C's malloc; the
    # module's allocator is mimalloc, so that string must go back to RocksDB's free (the
    # carried Oxigraph's fifth change), not to Rust's allocator: the process would abort.
    held = ihigraph.Store(str(tmp_path / "store"))
    for _ in range(3):
        with pytest.raises(ihigraph.StoreError, match="in use by another process") as error:
            ihigraph.Store(str(tmp_path / "store"))
        assert str(tmp_path / "store") in str(error.value)
    held.ingest([{"role": "user", "content": "still here"}], from_="openai-chat", session_id="s")
    assert held.sessions() == ["s"]
