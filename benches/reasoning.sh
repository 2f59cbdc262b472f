#!/usr/bin/env bash
# What reasoning costs, on a generated corpus: `ingest` into a store that reasons
# (`reasoning on` first) against the same ingest into one that does not, run in turn
# ROUNDS times each; then canned queries over the sessions as written and over the
# sessions with what they entail (`--inferred`), the same store, the same text
# (examples/reasoning_queries.rs). The figures in docs/reasoning.md come from runs of this script.
#
#   benches/reasoning.sh [SESSIONS] [ROUNDS] [WORK_DIR]   (defaults: 1000, 3, target/reasoning-bench)
#
# Needs GNU time (/usr/bin/time).
set -euo pipefail

sessions=${1:-1000}
rounds=${2:-3}
work=${3:-target/reasoning-bench}
cd "$(dirname "$0")/.."
mkdir -p "$work"
. benches/common.sh
cargo build --release --quiet --bin ihigraph --example reasoning_queries
bin=target/release/ihigraph
corpus=$work/corpus-$sessions.jsonl
[ -s "$corpus" ] || "$bin" generate --sessions "$sessions" --seed 1 > "$corpus"

for round in $(seq "$rounds"); do
    rm -rf "$work/plain" "$work/reasoning"
    time_it "ingest-$sessions-plain-$round" "$bin" --store "$work/plain" ingest "$corpus"
    "$bin" --store "$work/reasoning" reasoning on > /dev/null
    time_it "ingest-$sessions-reasoning-$round" "$bin" --store "$work/reasoning" ingest "$corpus"
done
printf 'store: %s, inferred store: %s\n' "$(du -sh "$work/reasoning" --exclude inferred | cut -f1)" \
    "$(du -sh "$work/reasoning/inferred" | cut -f1)"

# The queries alone, from the library: each way's median over five runs.
cargo run --release --quiet --example reasoning_queries -- "$work/reasoning" 5
