#!/usr/bin/env bash
# Is the canned queries' growth with the store the store's own? The latency examples
# built twice, on the stores you give: against Oxigraph as published, whose RocksDB
# keeps the default block cache (32 MiB), and against the same Oxigraph with one line
# added that gives RocksDB a block cache of CACHE_MB (default 2048) instead. Oxigraph
# offers no option for it; the copy is built in a temporary directory and nothing of
# the project changes.
#
#   benches/block-cache.sh STORE_DIR...        (CACHE_MB=2048 by default)
#
# Prints, for each store and each build, `examples/query_latency` (recent-turns and
# tool-usage p50/p99) and `examples/store_lookup` (one seek, the read of a graph, and
# tool-usage's reads).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: benches/block-cache.sh STORE_DIR..." >&2; exit 2; }
cd "$(dirname "$0")/.."
root=$PWD
cache_mb=${CACHE_MB:-2048}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. benches/common.sh
examples=(--example query_latency --example store_lookup)

# Oxigraph's source, as cargo resolved it for this project.
host=$(rustc -vV | sed -n 's/^host: //p')
manifest=$(cargo metadata --format-version 1 --locked --filter-platform "$host" |
    grep -o '"manifest_path":"[^"]*/oxigraph-[0-9][^"/]*/Cargo.toml"' | head -n 1 |
    sed 's/^"manifest_path":"//; s/"$//')
[ -f "$manifest" ] || { echo "no source of the oxigraph crate found" >&2; exit 1; }
cp -r "$(dirname "$manifest")" "$work/oxigraph"
wrapper="$work/oxigraph/src/storage/rocksdb_wrapper.rs"
sed -i "s|^\( *\)rocksdb_options_set_block_based_table_factory(options, block_based_table_options);|\1rocksdb_block_based_options_set_block_cache(block_based_table_options, rocksdb_cache_create_lru($cache_mb << 20));\n&|" "$wrapper"
grep -q "rocksdb_cache_create_lru($cache_mb << 20)" "$wrapper" ||
    { echo "Oxigraph's RocksDB options have moved: the cache line was not added" >&2; exit 1; }

# The project, in a copy whose manifest takes that Oxigraph, built in the same target
# directory (RocksDB itself is not rebuilt); its examples are kept aside, then the
# project's own are built again in their place.
mkdir "$work/project" "$work/cache"
cp -r Cargo.toml Cargo.lock README.md src examples benches queries ontology "$work/project/"
printf '\n[patch.crates-io]\noxigraph = { path = "%s" }\n' "$work/oxigraph" >> "$work/project/Cargo.toml"
(cd "$work/project" && CARGO_TARGET_DIR="$root/target" cargo build --release --quiet "${examples[@]}")
cp target/release/examples/query_latency target/release/examples/store_lookup "$work/cache/"
cargo build --release --quiet "${examples[@]}"

for store in "$@"; do
    for build in target/release/examples "$work/cache"; do
        label="Oxigraph as published"
        [ "$build" = "$work/cache" ] && label="block cache of $cache_mb MiB"
        echo "== $store, $label"
        "$build/query_latency" "$store"
        "$build/store_lookup" "$store"
    done
done
