#!/usr/bin/env bash
# What pruning costs: a generated corpus of SESSIONS sessions (`generate` starts session i
# at 2026-01-01T00:00:00Z + i * 97 s, so their last turns spread over the days in the
# order of their ids), ingested, a retention period set so that the oldest tenth is older
# than it, then `prune --dry-run` and `prune` timed, with the receipt's totals (JSON). The
# figures in docs/retention.md come from runs of this script.
#
#   benches/prune.sh [SESSIONS] [WORK_DIR]   (defaults: 10000, target/prune-bench)
#
# Needs GNU time (/usr/bin/time) and jq.
set -euo pipefail

sessions=${1:-10000}
work=${2:-target/prune-bench}
cd "$(dirname "$0")/.."
mkdir -p "$work"
. benches/common.sh
cargo build --release --quiet --bin ihigraph
bin=${CARGO_TARGET_DIR:-target}/release/ihigraph
corpus=$work/corpus-$sessions.jsonl
[ -s "$corpus" ] || "$bin" generate --sessions "$sessions" --seed 1 > "$corpus"

store=$work/store-$sessions
rm -rf "$store"
time_it "ingest-$sessions" "$bin" --store "$store" ingest "$corpus" > /dev/null

# The cutoff falls at the start of session SESSIONS/10 (2026-01-01 + i * 97 s): the
# retention period is the time from there to now, in whole seconds.
start=1767225600
cutoff=$(( start + sessions / 10 * 97 ))
"$bin" --store "$store" retention set "$(( $(date +%s) - cutoff ))s"

time_it "prune-dry-run-$sessions" "$bin" --store "$store" prune --dry-run --format json > "$work/dry-run.json"
time_it "prune-$sessions" "$bin" --store "$store" prune --format json > "$work/prune.json"
for run in dry-run prune; do
    printf '%s: ' "$run"
    jq -c '.totals + {kept: .kept}' "$work/$run.json"
done
"$bin" --store "$store" info
