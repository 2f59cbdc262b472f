"""What a Python call adds to the library: `context` and `recent-turns` through Python
beside the same calls from Rust (examples/context_latency.rs, examples/query_latency.rs)
on the same store and the same sessions, in interleaved rounds; and a bulk
`add_messages` of 1,000 messages through the LangChain adapter.

    python python/benchmarks/latency.py STORE_DIR [--rust DIR] [--rounds N]
        [--sample N] [--context-sample N] [--no-bulk]

Each round runs the Rust examples (from DIR, `target/release/examples`, built with
`cargo build --release --example query_latency --example context_latency`) and the same
measure through the module, alternating which goes first, each on the store alone (the
module's handle is closed while Rust runs: RocksDB admits one process). A side's figure
for a round is its p50 over the sample (a warm-up pass, then five passes, as the examples
do); the table gives each side's median over the rounds, their range, and Python's
median over Rust's. Build the wheel with `maturin build --release` for figures to set
beside the Rust ones (docs/performance.md, "Through Python").
"""

import argparse
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

import ihigraph

PASSES = 5
BUDGET = 8_000
FORMATS = ["openai-chat", "openai-responses", "anthropic", "gemini"]


def spread(items: List[str], sample: int) -> List[str]:
    """Up to `sample` of `items`, spread evenly over them (as examples/common does)."""
    step = max(len(items) // max(sample, 1), 1)
    return items[::step][:sample]


def quantile(times: List[float], q: float) -> float:
    times = sorted(times)
    return times[round((len(times) - 1) * q)]


def timed(chosen: List[str], call: Callable[[str], object]) -> float:
    """The p50 of `call` over `chosen`, in ms, as the Rust examples measure it."""
    for session in chosen:  # warm-up, as a running application's caches would be
        call(session)
    times = []
    for _ in range(PASSES):
        for session in chosen:
            started = time.perf_counter()
            call(session)
            times.append(time.perf_counter() - started)
    return quantile(times, 0.5) * 1e3


def python_round(store_dir: str, sample: int, context_sample: int) -> Dict[str, float]:
    """One round through the module: the sessions sampled as the examples sample them
    (sorted by id, spread), each call's result read whole as Python objects."""
    store = ihigraph.Store(store_dir)
    try:
        sessions = sorted(store.sessions())
        figures = {}
        chosen = spread(sessions, sample)
        figures["recent-turns"] = timed(chosen, lambda s: store.query("recent-turns", session=s))
        chosen = spread(sessions, context_sample)
        for name in FORMATS:
            figures[name] = timed(chosen, lambda s: store.context(s, BUDGET, format=name))
        return figures
    finally:
        store.close()  # the examples open the store next


def rust_round(rust: Path, store_dir: str, sample: int, context_sample: int) -> Dict[str, float]:
    """One round of the Rust examples: their p50 lines read back."""
    figures = {}
    for example, count in (("query_latency", sample), ("context_latency", context_sample)):
        output = subprocess.run(
            [str(rust / example), store_dir, "--sample", str(count)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for line in output.splitlines():
            found = re.match(r"(\S+)\s+p50\s+([\d.]+) ms", line)
            if found and (found.group(1) == "recent-turns" or found.group(1) in FORMATS):
                figures[found.group(1)] = float(found.group(2))
    return figures


def compare(arguments: argparse.Namespace) -> None:
    rounds: Dict[str, List[Dict[str, float]]] = {"rust": [], "python": []}
    for index in range(arguments.rounds):
        sides = ["rust", "python"] if index % 2 == 0 else ["python", "rust"]
        for side in sides:
            if side == "rust" and arguments.rust is None:
                continue
            if side == "rust":
                figures = rust_round(arguments.rust, arguments.store, arguments.sample, arguments.context_sample)
            else:
                figures = python_round(arguments.store, arguments.sample, arguments.context_sample)
            rounds[side].append(figures)
            print(f"round {index + 1} {side:<6} " + "  ".join(f"{k} {v:.3f}" for k, v in figures.items()), flush=True)
    print(f"\np50 in ms, median of {arguments.rounds} rounds (range)")
    print(f"{'call':<17} {'Rust':>22} {'Python':>22} {'Python/Rust':>12}")
    for name in ["recent-turns"] + FORMATS:
        line = f"{name:<17}"
        medians = {}
        for side in ("rust", "python"):
            values = [figures[name] for figures in rounds[side] if name in figures]
            if not values:
                line += f" {'-':>22}"
                continue
            medians[side] = statistics.median(values)
            line += f" {medians[side]:>8.3f} ({min(values):.3f}-{max(values):.3f})"
        if len(medians) == 2:
            line += f" {medians['python'] / medians['rust']:>12.3f}"
        print(line)


def bulk_add(runs: int = 7) -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from ihigraph.langchain import IhigraphChatMessageHistory

    messages = []
    for index in range(250):
        messages += [
            HumanMessage(f"question {index}: what is {index} squared?"),
            AIMessage("", tool_calls=[{"name": "square", "args": {"x": index}, "id": f"c{index}"}]),
            ToolMessage(str(index * index), tool_call_id=f"c{index}"),
            AIMessage(f"{index} squared is {index * index}."),
        ]
    assert len(messages) == 1_000
    for where in ("memory", "disk"):
        with tempfile.TemporaryDirectory() as directory:
            store = ihigraph.Store(None if where == "memory" else directory)
            times = []
            for run in range(runs):
                history = IhigraphChatMessageHistory(f"bulk-{run}", store=store)
                started = time.perf_counter()
                history.add_messages(messages)
                times.append(time.perf_counter() - started)
                assert len(history.messages) == 1_000
            print(
                f"add_messages of 1,000 messages ({where}): median {statistics.median(times) * 1e3:.1f} ms, "
                f"min {min(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms ({runs} runs)"
            )
            # One more message to a history of 1,000: only what changes is written.
            history = IhigraphChatMessageHistory("bulk-0", store=store)
            one = []
            for index in range(runs * 3):
                started = time.perf_counter()
                history.add_message(HumanMessage(f"one more, {index}"))
                one.append(time.perf_counter() - started)
            print(
                f"add_message to a history of 1,000 ({where}): median {statistics.median(one) * 1e3:.1f} ms, "
                f"min {min(one) * 1e3:.1f} ms ({len(one)} runs)"
            )
            store.close()  # before its directory is removed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--rust", type=Path, help="the directory of the built Rust examples")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sample", type=int, default=1_000)
    parser.add_argument("--context-sample", type=int, default=200)
    parser.add_argument("--no-bulk", action="store_true")
    arguments = parser.parse_args()
    compare(arguments)
    if not arguments.no_bulk:
        bulk_add()


if __name__ == "__main__":
    main()
