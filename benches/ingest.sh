#!/usr/bin/env bash
# Whole-process ingest benchmark: `ihigraph ingest` of a generated corpus into a fresh
# on-disk store, against the stock Oxigraph CLI (`oxigraph load`, installed with pip if
# missing) and Oxigraph's bulk loader from Rust (examples/bulk_load.rs) loading the very
# same quads (the store's `export --format nquads`) into fresh stores, and the stock CLI
# loading the same histories as naive JSON-LD, in the same run; `export` against the
# stock `oxigraph dump` of the same store; then
# query latency on the ingested store and on a store ten times smaller, and the cost of
# a bare Oxigraph lookup on both. Both corpora are also read and checked without a store
# (`validate`) and ingested, to show that peak memory does not grow with the input.
#
#   benches/ingest.sh [SESSIONS] [WORK_DIR]      (defaults: 10000, target/ingest-bench)
#
# Needs GNU time (/usr/bin/time). Prints a summary table at the end; docs/performance.md
# records the figures of a run.
set -euo pipefail

sessions=${1:-10000}
work=${2:-target/ingest-bench}
small=$(( sessions / 10 ))
cd "$(dirname "$0")/.."
mkdir -p "$work"

. benches/common.sh
command -v oxigraph > /dev/null || python3 -m pip install --quiet 'oxigraph==0.5.13'
cargo build --release --quiet --bin ihigraph --example bulk_load --example query_latency \
    --example store_lookup
bin=target/release/ihigraph

for size in "$sessions" "$small"; do
    [ -s "$work/corpus-$size.jsonl" ] ||
        "$bin" generate --sessions "$size" --seed 1 > "$work/corpus-$size.jsonl"
done
corpus=$work/corpus-$sessions.jsonl
rm -rf "$work/ingest" "$work/bulk" "$work/stock" "$work/small" "$work/jsonld"

time_it validate "$bin" validate "$corpus" > /dev/null
time_it validate-small "$bin" validate "$work/corpus-$small.jsonl" > /dev/null

time_it ingest "$bin" --store "$work/ingest" ingest "$corpus" | tee "$work/ingest.out"
summary=$(grep '^ingested' "$work/ingest.out")
turns=$(sed -E 's/.* ([0-9]+) turns?,.*/\1/' <<< "$summary")
quads=$(sed -E 's/.* ([0-9]+) quads?;.*/\1/' <<< "$summary")

# Ingest, as `oxigraph load`, leaves RocksDB's merging of the new table files to the
# next opening of the store: one untimed export lets it finish, so that neither timed
# reader below runs beside it.
"$bin" --store "$work/ingest" export --format nquads > /dev/null
time_it export "$bin" --store "$work/ingest" export --format nquads > "$work/corpus.nq"
# (Its progress lines go to its own log; time_it's line still reaches the terminal.)
time_it stock sh -c 'exec oxigraph load --location "$1" --file "$2" 2> "$3"' _ \
    "$work/stock" "$work/corpus.nq" "$work/stock.log"
rm -rf "$work/stock"
time_it bulk target/release/examples/bulk_load "$work/bulk" "$work/corpus.nq"
# The N-Quads and each other store take as much disk as the first: give it back.
rm -rf "$work/corpus.nq" "$work/bulk"
time_it dump sh -c 'exec oxigraph dump --location "$1" --file "$2" 2> "$3"' _ \
    "$work/ingest" "$work/dump.nq" "$work/dump.log"
rm -f "$work/dump.nq"

# The naive path: the same histories as JSON-LD (a plain @vocab over the raw JSON, one
# named graph per session: no checks, no text or tool extraction, no fingerprints),
# loaded by the stock CLI.
python3 - "$corpus" "$work/corpus.jsonld" <<'PY'
import json, sys, urllib.parse
with open(sys.argv[1], encoding="utf-8") as lines, open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write('{"@context": {"@vocab": "https://w3id.org/ihigraph/raw#"}, "@graph": [')
    for n, line in enumerate(lines):
        document = json.loads(line)
        graph = "urn:ihigraph:raw:" + urllib.parse.quote(document["SessionID"], safe="")
        out.write(("," if n else "") + json.dumps({"@id": graph, "@graph": document}, ensure_ascii=False))
    out.write("]}")
PY
time_it jsonld sh -c 'exec oxigraph load --location "$1" --file "$2" 2> "$3"' _ \
    "$work/jsonld" "$work/corpus.jsonld" "$work/jsonld.log"
rm -rf "$work/jsonld" "$work/corpus.jsonld"

time_it ingest-small "$bin" --store "$work/small" ingest "$work/corpus-$small.jsonl" > /dev/null
# Settled as the big store was, so that the latencies below do not run beside merging.
"$bin" --store "$work/small" export --format nquads > /dev/null
latency_big=$(target/release/examples/query_latency "$work/ingest")
latency_small=$(target/release/examples/query_latency "$work/small")
lookup_big=$(target/release/examples/store_lookup "$work/ingest")
lookup_small=$(target/release/examples/store_lookup "$work/small")

read -r ingest_s ingest_kib < "$work/ingest.time"
read -r bulk_s bulk_kib < "$work/bulk.time"
read -r stock_s stock_kib < "$work/stock.time"
read -r jsonld_s jsonld_kib < "$work/jsonld.time"
read -r export_s export_kib < "$work/export.time"
read -r dump_s dump_kib < "$work/dump.time"
read -r validate_s validate_kib < "$work/validate.time"
read -r _ validate_small_kib < "$work/validate-small.time"
read -r _ ingest_small_kib < "$work/ingest-small.time"
bytes=$(stat -c %s "$corpus")
echo
echo "corpus: $sessions sessions, $turns turns, $quads quads, $(( bytes / 1048576 )) MiB of JSON Lines"
awk -v t="$turns" -v q="$quads" -v b="$bytes" -v is="$ingest_s" -v ik="$ingest_kib" \
    -v bs="$bulk_s" -v bk="$bulk_kib" -v ss="$stock_s" -v sk="$stock_kib" -v vs="$validate_s" -v vk="$validate_kib" \
    -v vsk="$validate_small_kib" -v isk="$ingest_small_kib" -v js="$jsonld_s" -v jk="$jsonld_kib" \
    -v es="$export_s" -v ek="$export_kib" -v ds="$dump_s" -v dk="$dump_kib" 'BEGIN {
    printf "ihigraph ingest : %7.1f s  %8.0f turns/s  %8.0f quads/s  %6.1f MB/s  peak %5.0f MiB\n", is, t/is, q/is, b/is/1e6, ik/1024
    printf "oxigraph load   : %7.1f s                   %8.0f quads/s               peak %5.0f MiB\n", ss, q/ss, sk/1024
    printf "oxigraph bulk   : %7.1f s                   %8.0f quads/s               peak %5.0f MiB\n", bs, q/bs, bk/1024
    printf "oxigraph load of the JSON-LD: %7.1f s  peak %5.0f MiB\n", js, jk/1024
    printf "ingest speed / oxigraph load speed: %.2f\n", ss/is
    printf "ingest speed / bulk-load speed: %.2f\n", bs/is
    printf "ingest speed / JSON-LD load speed: %.2f\n", js/is
    printf "ihigraph export (N-Quads): %7.1f s  peak %5.0f MiB\n", es, ek/1024
    printf "oxigraph dump (N-Quads)  : %7.1f s  peak %5.0f MiB\n", ds, dk/1024
    printf "export speed / dump speed: %.2f\n", ds/es
    printf "validate (no store): %7.1f s  %6.1f MB/s  peak %5.0f MiB (%5.0f MiB for a tenth of the corpus)\n", vs, b/vs/1e6, vk/1024, vsk/1024
    printf "ingest peak memory: %5.0f MiB (%5.0f MiB for a tenth of the corpus)\n", ik/1024, isk/1024
}'
echo "query latency, $sessions sessions:"
echo "$latency_big"
echo "query latency, $small sessions:"
echo "$latency_small"
echo "Oxigraph alone, $sessions sessions:"
echo "$lookup_big"
echo "Oxigraph alone, $small sessions:"
echo "$lookup_small"
