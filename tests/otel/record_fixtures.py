"""Records the real emitters' output as fixtures: each script of ``emitters/`` is run against
the capture receiver (``capture.py``), and the request bodies it exported, exactly as sent,
are written with its ``expected.json`` into ``tests/fixtures/import/otel/real-NAME/``.

    python tests/otel/record_fixtures.py            # every emitter
    python tests/otel/record_fixtures.py pydantic-ai

Then ``IHIGRAPH_BLESS=1 cargo test --lib serve::otlp::`` writes each fixture's
``traces.jsonl`` / ``logs.jsonl`` from its ``*.pb`` with ihigraph's own decoder. Runs offline.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import capture

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "import" / "otel"

# fixture name -> the emitter's command line (under emitters/)
EMITTERS = {
    "pydantic-ai": ["pydantic_ai_agent.py"],
    "langchain-openinference": ["langchain_openinference.py"],
    "openai-v2-legacy": ["openai_v2.py", "legacy"],
    "openai-v2-latest": ["openai_v2.py", "latest"],
}


def record(name: str, command: list[str]) -> pathlib.Path:
    target = FIXTURES / f"real-{name}"
    with tempfile.TemporaryDirectory() as scratch:
        bodies = pathlib.Path(scratch) / "bodies"
        receiver = capture.serve(bodies)
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_port}",
            "EXPECTED_JSON": str(pathlib.Path(scratch) / "expected.json"),
        }
        try:
            subprocess.run(
                [sys.executable, *command], cwd=HERE / "emitters", env=env, check=True
            )
        finally:
            receiver.shutdown()
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.pb*"):
            old.unlink()
        for body in sorted(bodies.iterdir()):
            shutil.copy(body, target / body.name)
        shutil.copy(pathlib.Path(scratch) / "expected.json", target / "expected.json")
    return target


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(EMITTERS)
    for fixture in chosen:
        written = record(fixture, EMITTERS[fixture])
        print(f"{written.relative_to(HERE.parent.parent)}: {sorted(p.name for p in written.iterdir())}")
