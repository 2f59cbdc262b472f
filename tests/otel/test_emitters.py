"""End to end: real instrumented agents export to ``ihigraph serve`` over OTLP/HTTP, and the
graph holds exactly what the framework reports of the conversation.

For each emitter of ``emitters/`` (the stacks pinned in ``requirements.txt``): a new server
on a temporary store, a free port of 127.0.0.1 and a token; the script run with only the
standard variables set (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``), as a
user would; then the store read back through the SPARQL endpoint and compared with the
``expected.json`` the script wrote: one session for the conversation; every user prompt in a
turn's prompt text, every assistant text in a turn's answer text, the system prompt in the
session, and every tool call with its id, name, arguments and result. The share found is
printed per emitter (``-s`` shows it); anything less than all of it fails. One emitter runs
again with ``OTEL_EXPORTER_OTLP_COMPRESSION=gzip``; and, since the exporters speak protobuf
only, each fixture's JSON Lines are also sent as OTLP JSON requests and checked alike.

    IHIGRAPH_BIN=target/debug/ihigraph "$VENV/bin/pytest" tests/otel/test_emitters.py

The ``expected.json`` a run writes must also equal the one recorded beside the emitter's
fixture (``tests/fixtures/import/otel/real-*/``): the conversations are deterministic, so a
difference means a pinned package changed what the framework reports.
"""

import json
import os
import pathlib
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "import" / "otel"
TOKEN = "otlp-end-to-end-token"
# How long the server may take to have written what was exported once the script is done.
SETTLE_SECONDS = 30

sys.path.insert(0, str(HERE))
from record_fixtures import EMITTERS  # noqa: E402 (after the path it needs)

PREFIXES = """
PREFIX ch: <https://jido.ai/ontology/conversation-history#>
PREFIX ihi: <https://w3id.org/ihigraph/ontology#>
"""

# Every tool invocation of the store: its call id, tool, parameters and result.
TOOL_CALLS = PREFIXES + """
SELECT ?callId ?tool ?parameters ?result WHERE {
  GRAPH ?graph {
    ?invocation ch:toolName ?tool .
    OPTIONAL { ?invocation ihi:callId ?callId }
    OPTIONAL { ?invocation ch:invocationParameters ?parameters }
    OPTIONAL { ?invocation ch:hasResult ?node . ?node ch:resultData ?result }
  }
}
"""

PROMPT_TEXTS = PREFIXES + "SELECT ?text WHERE { GRAPH ?g { ?prompt ch:promptText ?text } }"
ANSWER_TEXTS = PREFIXES + "SELECT ?text WHERE { GRAPH ?g { ?answer ch:answerText ?text } }"
SESSION_LITERALS = "SELECT ?text WHERE { GRAPH ?g { ?s ?p ?text FILTER isLiteral(?text) } }"


def ihigraph_binary() -> str:
    binary = os.environ.get("IHIGRAPH_BIN")
    if not binary:
        pytest.fail("set IHIGRAPH_BIN to the ihigraph binary (for example target/debug/ihigraph)")
    return binary


class Server:
    """``ihigraph serve`` on a new store, a free port and a token, until closed."""

    def __init__(self, store: pathlib.Path):
        env = {**os.environ, "IHIGRAPH_TOKEN": TOKEN}
        self.process = subprocess.Popen(
            [ihigraph_binary(), "--store", str(store), "serve", "--bind", "127.0.0.1:0"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.base = None
        self.log = []
        deadline = time.monotonic() + 60
        while self.base is None and time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            self.log.append(line)
            found = re.search(r" at (http://\S+)", line)
            if found:
                self.base = found.group(1).rstrip("/")
        if self.base is None:
            self.close()
            pytest.fail(f"the server did not start: {''.join(self.log)}")
        # The request log goes on on standard error: read it, or a full pipe stops the server.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.process.stderr:
            self.log.append(line)

    def get_json(self, path: str, accept: str = "application/json"):
        request = urllib.request.Request(self.base + path, headers={"Accept": accept})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def select(self, query: str) -> list[dict]:
        """A SELECT's rows, each a dict of variable to lexical form."""
        answer = self.get_json(
            "/sparql?" + urllib.parse.urlencode({"query": query}),
            accept="application/sparql-results+json",
        )
        return [
            {name: term["value"] for name, term in row.items()}
            for row in answer["results"]["bindings"]
        ]

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run_emitter(
    command: list[str], server: Server, expected: pathlib.Path, compression: str | None = None
) -> None:
    # Nothing but what is set here may steer the exporters (not a user's own OTEL_*).
    env = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    env.update(
        {
            "OTEL_EXPORTER_OTLP_ENDPOINT": server.base,
            "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer%20{TOKEN}",
            "EXPECTED_JSON": str(expected),
        }
    )
    if compression:
        env["OTEL_EXPORTER_OTLP_COMPRESSION"] = compression
    subprocess.run(
        [sys.executable, *command], cwd=HERE / "emitters", env=env, check=True, timeout=300
    )


def settled_tool_calls(server: Server, wanted: int) -> list[dict]:
    """The store's tool calls once as many as wanted are there, or when time is up."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        rows = server.select(TOOL_CALLS)
        if len(rows) >= wanted or time.monotonic() > deadline:
            return rows
        time.sleep(0.2)


def as_json(text):
    """A JSON text's value, else the text itself (a result may be stored either way)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def result_matches(stored, expected_text) -> bool:
    value = as_json(stored)
    return stored == expected_text or value == expected_text or value == as_json(expected_text)


def missing_from_store(server: Server, document: dict) -> tuple[list[str], int]:
    """What of ``expected.json`` the store lacks, and how many items were looked for."""
    messages = document["messages"]
    calls = {call["id"]: call for item in messages for call in item["tool_calls"]}
    results = {item["tool_call_id"]: item["text"] for item in messages if item["role"] == "tool"}
    stored_calls = {row.get("callId"): row for row in settled_tool_calls(server, len(calls))}
    prompts = [row["text"] for row in server.select(PROMPT_TEXTS)]
    answers = [row["text"] for row in server.select(ANSWER_TEXTS)]
    literals = [row["text"] for row in server.select(SESSION_LITERALS)]
    missing, looked_for = [], 0
    for item in messages:
        text, role = item["text"], item["role"]
        if text is None or role == "tool":
            continue
        looked_for += 1
        where = {"user": prompts, "assistant": answers}.get(role, literals)
        if not any(text in found for found in where):
            missing.append(f"{role} text {text!r}")
    for call_id, call in calls.items():
        looked_for += 1
        stored = stored_calls.get(call_id)
        if stored is None:
            missing.append(f"tool call {call_id} ({call['name']})")
        elif stored["tool"] != call["name"]:
            missing.append(f"tool call {call_id}: name {stored['tool']!r}, not {call['name']!r}")
        elif as_json(stored.get("parameters")) != call["arguments"]:
            missing.append(f"tool call {call_id}: arguments {stored.get('parameters')!r}")
        elif call_id in results and not result_matches(stored.get("result"), results[call_id]):
            missing.append(f"tool call {call_id}: result {stored.get('result')!r}")
    return missing, looked_for


def recorded_expected(fixture: str) -> dict:
    return json.loads((FIXTURES / f"real-{fixture}" / "expected.json").read_text("utf-8"))


def post_json_lines(server: Server, fixture: str) -> None:
    """The fixture's JSON Lines sent as OTLP/HTTP JSON requests, a line a request."""
    for signal in ("traces", "logs"):
        path = FIXTURES / f"real-{fixture}" / f"{signal}.jsonl"
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            request = urllib.request.Request(
                f"{server.base}/v1/{signal}",
                data=line.encode(),
                method="POST",
                headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
            )
            with urllib.request.urlopen(request, timeout=60) as answer:
                assert answer.status == 200, f"{path}: {answer.status}"


def check_store(server: Server, name: str, document: dict) -> None:
    # Read first: it waits until the server has written what was sent.
    missing, looked_for = missing_from_store(server, document)
    sessions = server.get_json("/sessions")
    assert sessions["total"] == 1, f"one conversation, one session: {sessions}"
    share = (looked_for - len(missing)) / looked_for
    print(f"{name}: {looked_for - len(missing)}/{looked_for} messages and calls found ({share:.0%})")
    assert not missing, f"{name}: not in the graph: {missing}"


@pytest.mark.parametrize(
    ("fixture", "compression"),
    [(fixture, None) for fixture in EMITTERS] + [("pydantic-ai", "gzip")],
)
def test_the_graph_holds_what_the_framework_reports(fixture, compression, tmp_path):
    server = Server(tmp_path / "store")
    try:
        expected_path = tmp_path / "expected.json"
        run_emitter(EMITTERS[fixture], server, expected_path, compression)
        document = json.loads(expected_path.read_text(encoding="utf-8"))
        assert document == recorded_expected(fixture), (
            "the framework reports another conversation than recorded"
        )
        check_store(server, f"{fixture}{' (' + compression + ')' if compression else ''}", document)
    finally:
        server.close()


@pytest.mark.parametrize("fixture", list(EMITTERS))
def test_the_recorded_json_lines_sent_as_otlp_json_give_the_same_graph(fixture, tmp_path):
    """The exporters speak protobuf only: OTLP JSON reaches the server from the fixtures."""
    server = Server(tmp_path / "store")
    try:
        post_json_lines(server, fixture)
        check_store(server, f"{fixture} (OTLP JSON)", recorded_expected(fixture))
    finally:
        server.close()
