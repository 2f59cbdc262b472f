# What the benchmark scripts share, sourced from the repository's root once `work` (the
# directory for their files) is set: the same C/C++ compiler as the other builds (or
# cargo rebuilds RocksDB from scratch), and time_it.

if command -v ccache > /dev/null; then
    export CC=${CC:-ccache gcc} CXX=${CXX:-ccache g++}
fi

# time_it NAME COMMAND...: runs COMMAND under GNU time, keeps seconds and peak RSS (KiB)
# in $work/NAME.time, and says them on standard error.
time_it() {
    local name=$1
    shift
    /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@"
    read -r seconds peak < "$work/$name.time"
    printf '%s: %s s, peak %s MiB\n' "$name" "$seconds" $(( peak / 1024 )) >&2
}
