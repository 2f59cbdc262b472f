#!/usr/bin/env bash
# Why the report's queries join through sub-SELECTs: the same count of turns with their
# times, written two ways, on a store you give.
#
#   benches/join-shapes.sh STORE_DIR
#
# Written as one group of patterns, Oxigraph joins them by looking up each turn's time
# in RocksDB, one lookup per turn. With one side in a sub-SELECT it reads each property
# once and joins the two by hash. Both give the same number; the script prints the
# seconds and peak memory of each (GNU time).
set -euo pipefail

store=${1:?usage: benches/join-shapes.sh STORE_DIR}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. benches/common.sh
cargo build --release --quiet --bin ihigraph
prefixes='PREFIX ihi: <https://w3id.org/ihigraph/ontology#> PREFIX prov: <http://www.w3.org/ns/prov#>'
lookup="$prefixes SELECT (COUNT(*) AS ?n) WHERE {
  GRAPH ?graph { ?turn ihi:role ?role ; prov:startedAtTime ?time } }"
hash="$prefixes SELECT (COUNT(*) AS ?n) WHERE {
  GRAPH ?graph { ?turn ihi:role ?role }
  { SELECT ?graph ?turn ?time WHERE { GRAPH ?graph { ?turn prov:startedAtTime ?time } } } }"
for shape in lookup hash; do
    time_it "$shape" target/release/ihigraph --store "$store" sparql --format csv "${!shape}" |
        tail -n 1 | sed "s/^/$shape: /"
done
