"""What a Python call adds to the library: `context` and `recent-turns` through Python on
a store, measured as examples/context_latency.rs and examples/query_latency.rs measure
them from Rust (the same sample of sessions spread over the store, a warm-up pass, then
five passes, p50 and p99); and a bulk `add_messages` of 1,000 messages through the
LangChain adapter.

    python python/benchmarks/latency.py STORE_DIR [--sample N]

Build the wheel with `maturin build --release` for figures to set beside the Rust ones
(docs/performance.md, "Through Python").
"""

import argparse
import statistics
import tempfile
import time
from typing import Callable, List

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


def timed(chosen: List[str], call: Callable[[str], object]) -> List[float]:
    for session in chosen:  # warm-up, as a running application's caches would be
        call(session)
    times = []
    for _ in range(PASSES):
        for session in chosen:
            started = time.perf_counter()
            call(session)
            times.append(time.perf_counter() - started)
    return times


def report(name: str, times: List[float]) -> None:
    print(
        f"{name:<17} p50 {quantile(times, 0.5) * 1e3:8.3f} ms  "
        f"p99 {quantile(times, 0.99) * 1e3:8.3f} ms  max {max(times) * 1e3:8.3f} ms"
    )


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
            for index in range(runs):
                started = time.perf_counter()
                history.add_message(HumanMessage(f"one more, {index}"))
                one.append(time.perf_counter() - started)
            print(
                f"add_message to a history of 1,000 ({where}): median {statistics.median(one) * 1e3:.1f} ms"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--sample", type=int, default=1_000)
    arguments = parser.parse_args()
    store = ihigraph.Store(arguments.store)
    sessions = store.sessions()
    chosen = spread(sessions, arguments.sample)
    print(f"{len(sessions)} sessions in the store, {len(chosen)} sampled")
    report("recent-turns", timed(chosen, lambda s: store.query("recent-turns", session=s)))
    context_sample = spread(sessions, min(arguments.sample, 200))
    print(f"context: {len(context_sample)} sessions, budget {BUDGET} tokens")
    for name in FORMATS:
        report(name, timed(context_sample, lambda s: store.context(s, BUDGET, format=name)))
    bulk_add()


if __name__ == "__main__":
    main()
