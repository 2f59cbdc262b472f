#!/usr/bin/env bash
# Importer benchmark, two parts:
#  1. conversion speed per format on one core: each format's fixtures copied until they
#     hold MB megabytes, converted as `convert` does (examples/import_speed.rs);
#  2. `ingest --from openai-chat` against plain `ingest` of the same sessions already in
#     PGM-IHI (the seeded corpus written as OpenAI Chat conversations, and its
#     conversion), each into a fresh on-disk store, with peak memory.
#
#   benches/import.sh [SESSIONS] [MB] [WORK_DIR]   (defaults: 1000, 4, target/import-bench)
#
# Needs GNU time (/usr/bin/time). docs/formats.md ("Importing other formats") records
# the figures of a run.
set -euo pipefail

sessions=${1:-1000}
megabytes=${2:-4}
work=${3:-target/import-bench}
cd "$(dirname "$0")/.."
mkdir -p "$work"

. benches/common.sh
cargo build --release --quiet --bin ihigraph --example import_speed
bin=target/release/ihigraph

echo "## Conversion speed, one core, about $megabytes MB per format"
taskset -c 0 target/release/examples/import_speed "$megabytes"

chat=$work/chat-$sessions.jsonl
pgm=$work/pgm-$sessions.jsonl
target/release/examples/import_speed --chat "$sessions" "$chat"
"$bin" convert --from openai-chat --session-id gen "$chat" > "$pgm" 2> /dev/null
printf 'chat corpus: %s sessions, %s MB as OpenAI Chat, %s MB as PGM-IHI\n' "$sessions" \
    "$(( $(stat -c %s "$chat") / 1000000 ))" "$(( $(stat -c %s "$pgm") / 1000000 ))" >&2

# Three rounds, the two ingests alternating, each into a fresh store: the medians are
# compared (one run of either varies by 10% on a two-core machine).
for round in 1 2 3; do
    rm -rf "$work/plain" "$work/from"
    time_it "ingest-pgm-$round" "$bin" --store "$work/plain" ingest "$pgm" > "$work/plain.out"
    time_it "ingest-from-chat-$round" "$bin" --store "$work/from" ingest --from openai-chat \
        --session-id gen "$chat" > "$work/from.out" 2> /dev/null
done
time_it convert-chat "$bin" convert --from openai-chat --session-id gen "$chat" \
    > /dev/null 2>&1
cat "$work/plain.out" "$work/from.out"
# Both stores hold the same sessions, quad for quad.
cmp <("$bin" --store "$work/plain" export --format nquads | sort) \
    <("$bin" --store "$work/from" export --format nquads | sort) &&
    echo "the two stores hold the same quads"

# median NAME: the median seconds and peak KiB of the three rounds of NAME.
median() {
    cat "$work/$1"-[123].time | sort -n | sed -n 2p
}
read -r plain_s plain_peak <<< "$(median ingest-pgm)"
read -r from_s from_peak <<< "$(median ingest-from-chat)"
read -r convert_s _ < "$work/convert-chat.time"
echo
echo "| ${sessions} sessions, median of 3 | time | peak memory |"
echo "|---|---:|---:|"
echo "| \`ingest\` of the PGM-IHI JSON Lines | ${plain_s} s | $(( plain_peak / 1024 )) MiB |"
echo "| \`ingest --from openai-chat\` of the same sessions as OpenAI Chat | ${from_s} s | $(( from_peak / 1024 )) MiB |"
echo "| \`convert --from openai-chat\` alone | ${convert_s} s | |"
awk -v a="$from_s" -v b="$plain_s" 'BEGIN { printf "conversion adds %.1f%% to ingest\n", (a / b - 1) * 100 }'
