#!/usr/bin/env bash
# Report and integrity figures on a generated corpus: `ingest` (which now takes every
# session's fingerprint), `report` (time and page size), `hash --all`, `verify` of the
# whole store, and the fingerprint time per session by size (examples/fingerprint_speed).
#
#   benches/report-verify.sh [SESSIONS] [WORK_DIR]   (defaults: 1000, target/report-bench)
#
# A store already in WORK_DIR/store-SESSIONS is reused (delete it to ingest again).
# Needs GNU time (/usr/bin/time). The figures in docs/performance.md come from runs of this script.
set -euo pipefail

sessions=${1:-1000}
work=${2:-target/report-bench}
cd "$(dirname "$0")/.."
mkdir -p "$work"
. benches/common.sh
cargo build --release --quiet --bin ihigraph --example fingerprint_speed
bin=target/release/ihigraph
store=$work/store-$sessions

if [ ! -d "$store" ]; then
    [ -s "$work/corpus-$sessions.jsonl" ] ||
        "$bin" generate --sessions "$sessions" --seed 1 > "$work/corpus-$sessions.jsonl"
    time_it "ingest-$sessions" "$bin" --store "$store" ingest "$work/corpus-$sessions.jsonl"
fi
time_it "report-$sessions" "$bin" --store "$store" report --out "$work/report-$sessions.html"
printf 'report page: %s bytes\n' "$(stat -c %s "$work/report-$sessions.html")"
time_it "hash-$sessions" "$bin" --store "$store" hash --all > /dev/null
time_it "verify-$sessions" "$bin" --store "$store" verify
target/release/examples/fingerprint_speed "$store" --sample 300
