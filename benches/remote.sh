#!/usr/bin/env bash
# benches/remote.sh [SESSIONS]: ingest of a generated corpus into each SPARQL server,
# against that server's own fastest way to load the same quads, and canned-query latency
# over HTTP. Needs `oxigraph` (pip install oxigraph==0.5.13) and Virtuoso
# (apt-get install virtuoso-opensource); starts both on free loopback ports with
# throw-away data directories and stops them at the end.
#
#   ihigraph ingest --endpoint (SPARQL Update)      vs  Oxigraph: POST of the N-Quads to /store
#   ihigraph ingest --endpoint --graph-store (PUTs) vs  Virtuoso: its bulk loader (ld_dir +
#                                                       rdf_loader_run) of the same N-Quads
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-1000}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || :; done
    wait 2>/dev/null || :
    rm -rf "$work"
}
trap cleanup EXIT
. benches/common.sh

cargo build --release --quiet
bin=target/release/ihigraph
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 600); do curl -fs -o /dev/null "$1" && return 0; sleep 0.2; done; echo "no answer from $1" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')"; }

"$bin" generate --sessions "$sessions" --seed 1 > "$work/corpus.jsonl"
"$bin" --store "$work/embedded" ingest "$work/corpus.jsonl" > /dev/null
"$bin" --store "$work/embedded" backup "$work/corpus.nq" > /dev/null
quads=$(wc -l < "$work/corpus.nq")
echo "corpus: $sessions sessions, $quads quads (sessions, settings and ontologies)"

start_oxigraph() { # DIR PORT
    oxigraph serve --location "$1" --bind "127.0.0.1:$2" > "$1.log" 2>&1 &
    pids+=($!)
    wait_for "http://127.0.0.1:$2/query?query=ASK%7B%7D"
}
start_virtuoso() { # DIR HTTP SQL
    mkdir -p "$1/www"
    cp "$work/corpus.nq" "$1/corpus.nq"
    cat > "$1/virtuoso.ini" <<EOF
[Database]
DatabaseFile = $1/virtuoso.db
ErrorLogFile = $1/virtuoso.log
LockFile = $1/virtuoso.lck
TransactionFile = $1/virtuoso.trx
xa_persistent_file = $1/virtuoso.pxa
[TempDatabase]
DatabaseFile = $1/virtuoso-temp.db
TransactionFile = $1/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:$3
DisableUnixSocket = 1
CaseMode = 2
DirsAllowed = ., $1
NumberOfBuffers = 170000
MaxDirtyBuffers = 130000
[HTTPServer]
ServerPort = 127.0.0.1:$2
ServerRoot = $1/www
ServerThreads = 10
[SPARQL]
ResultSetMaxRows = 10000
MaxQueryExecutionTime = 600
EOF
    (cd "$1" && exec virtuoso-t +foreground +configfile "$1/virtuoso.ini" > "$1/server.log" 2>&1) &
    pids+=($!)
    wait_for "http://127.0.0.1:$2/sparql?query=ASK%7B%7D"
    sleep 1
    isql-vt "127.0.0.1:$3" dba dba VERBOSE=OFF BANNER=OFF PROMPT=OFF 'exec=GRANT SPARQL_UPDATE TO "SPARQL";' > /dev/null
}

latency() { # ENDPOINT-ARGS...: p50/p99 of recent-turns and tool-usage over 200 calls each
    "$bin" "$@" export --format pgm-ihi |
        python3 -c 'import sys,json; print("\n".join([json.loads(l)["SessionID"] for l in sys.stdin][:200]))' \
        > "$work/ids.txt"
    for query in recent-turns tool-usage; do
        python3 - "$work/ids.txt" "$bin" "$query" "$@" <<'PY'
import subprocess, sys, time
ids, bin, query, *store = sys.argv[1:]
times = []
for session in open(ids).read().split():
    t = time.perf_counter()
    subprocess.run([bin, *store, "query", query, "-p", f"session={session}", "--format", "json"], check=True, capture_output=True)
    times.append((time.perf_counter() - t) * 1000)
times.sort()
print(f"  {query}: p50 {times[len(times)//2]:.1f} ms, p99 {times[int(len(times)*0.99)]:.1f} ms (whole command, {len(times)} calls)")
PY
    done
}

# Oxigraph: ihigraph through SPARQL Update, then the stock server's own load.
p=$(port); start_oxigraph "$work/ox1" "$p"
t0=$(now); "$bin" --endpoint "http://127.0.0.1:$p/query" ingest "$work/corpus.jsonl" > /dev/null; t1=$(now)
echo "oxigraph: ihigraph ingest (SPARQL Update): $(elapsed "$t0" "$t1") s"
latency --endpoint "http://127.0.0.1:$p/query"
p2=$(port); start_oxigraph "$work/ox2" "$p2"
t0=$(now); curl -fs -X POST -H 'Content-Type: application/n-quads' --data-binary "@$work/corpus.nq" "http://127.0.0.1:$p2/store"; t1=$(now)
echo "oxigraph: POST of the N-Quads to /store: $(elapsed "$t0" "$t1") s"
p3=$(port); start_oxigraph "$work/ox3" "$p3"
t0=$(now); "$bin" --endpoint "http://127.0.0.1:$p3/query" --graph-store "http://127.0.0.1:$p3/store" ingest "$work/corpus.jsonl" > /dev/null; t1=$(now)
echo "oxigraph: ihigraph ingest --graph-store: $(elapsed "$t0" "$t1") s"

# Virtuoso: ihigraph through SPARQL Update and through the Graph Store Protocol, then
# the bulk loader.
h=$(port); s=$(port); start_virtuoso "$work/vt1" "$h" "$s"
t0=$(now); "$bin" --endpoint "http://127.0.0.1:$h/sparql" ingest "$work/corpus.jsonl" > /dev/null; t1=$(now)
echo "virtuoso: ihigraph ingest (SPARQL Update): $(elapsed "$t0" "$t1") s"
latency --endpoint "http://127.0.0.1:$h/sparql"
h2=$(port); s2=$(port); start_virtuoso "$work/vt2" "$h2" "$s2"
t0=$(now); "$bin" --endpoint "http://127.0.0.1:$h2/sparql" --graph-store "http://127.0.0.1:$h2/sparql-graph-crud" ingest "$work/corpus.jsonl" > /dev/null; t1=$(now)
echo "virtuoso: ihigraph ingest --graph-store: $(elapsed "$t0" "$t1") s"
h3=$(port); s3=$(port); start_virtuoso "$work/vt3" "$h3" "$s3"
t0=$(now)
isql-vt "127.0.0.1:$s3" dba dba VERBOSE=OFF BANNER=OFF PROMPT=OFF \
    "exec=ld_dir('$work/vt3', 'corpus.nq', 'urn:ihigraph:default'); rdf_loader_run(); checkpoint;" > /dev/null
t1=$(now)
echo "virtuoso: bulk loader (ld_dir + rdf_loader_run + checkpoint): $(elapsed "$t0" "$t1") s"
