#!/bin/sh
# bench_decompress.sh - reading compressed profiles against the decompressor
# alone (issue 11).
#
# usage: bench/bench_decompress.sh KSAMPLE [KSAMPLE_BEFORE] [LAUNCHES]
#
# Writes a `ksample synth --preset casio-like` profile of LAUNCHES (default
# 10 M, 2.8 GB) under a temporary folder in /tmp (removed at the end),
# compresses it one frame / member / block and in independent 4 MiB pieces
# (split --filter: concatenated zstd frames and gzip members as pzstd and
# bgzip-like tools write them; xz -T2 blocks), then times `ksample info` on
# each (and the earlier build's, when given, whose output must be the same)
# against zstdcat / xzcat / zcat > /dev/null.  Prints wall and CPU seconds,
# peak RSS and the load average before each run: the bench machine is shared,
# so CPU seconds are the steadier figure.
set -eu
K=$1
B=${2:-}
N=${3:-10000000}
# BENCH_KEEP=DIR: use (or fill) DIR and keep it, e.g. to measure again
# without compressing 2.8 GB again (xz alone takes minutes)
if [ -n "${BENCH_KEEP:-}" ]; then
    D=$BENCH_KEEP
    mkdir -p "$D"
else
    D=$(mktemp -d /tmp/ksbench-decompress-XXXXXX)
    trap 'rm -rf "$D"' EXIT INT TERM
fi

# prepare FILE CMD...: CMD's output into $D/FILE unless it is there already
prepare() {
    f=$1
    shift
    if [ ! -s "$D/$f" ]; then
        nice "$@" > "$D/$f.tmp"
        mv "$D/$f.tmp" "$D/$f"
    fi
}

echo "# $(nproc) cores; $(uname -m); launches $N"
[ -s "$D/p.csv" ] || nice "$K" synth --preset casio-like -n "$N" -o "$D/p.csv"
echo "# plain: $(stat -c %s "$D/p.csv") bytes"
prepare single.zst zstd -q -3 -T2 -c "$D/p.csv"
prepare multi.zst split -b 4M --filter='zstd -q -3 -c' "$D/p.csv"
prepare single.gz gzip -1 -c "$D/p.csv"
prepare multi.gz split -b 4M --filter='gzip -1 -c' "$D/p.csv"
prepare single.xz xz -1 -T1 -c "$D/p.csv"
prepare multi.xz xz -1 -T2 -c "$D/p.csv"

# measure LABEL OUT CMD...: one line "LABEL wall_s cpu_s peak_rss_MiB load1";
# CMD's output goes to OUT (/dev/null for the decompressors)
measure() {
    label=$1
    out=$2
    shift 2
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$D/time" "$@" > "$out" 2> "$D/err" || {
        echo "$label FAILED: $(cat "$D/err")"
        return
    }
    awk -v l="$label" -v load="$load" \
        '{ printf "%-26s wall %7.2f s  cpu %7.2f s  rss %6.0f MiB  load %s\n", l, $1, $2 + $3, $4 / 1024, load }' \
        "$D/time"
}

for f in single.zst multi.zst single.xz multi.xz single.gz multi.gz; do
    echo "# $f: $(stat -c %s "$D/$f") bytes"
    case $f in
    *.zst) measure "$f zstdcat" /dev/null zstdcat "$D/$f" ;;
    *.xz) measure "$f xzcat" /dev/null xzcat "$D/$f" ;;
    *.gz) measure "$f zcat" /dev/null zcat "$D/$f" ;;
    esac
    measure "$f ksample info" "$D/out.after" "$K" info "$D/$f"
    if [ -n "$B" ]; then
        measure "$f before info" "$D/out.before" "$B" info "$D/$f"
        cmp -s "$D/out.before" "$D/out.after" || echo "$f: OUTPUT DIFFERS from the earlier build"
    fi
done
measure "plain cat" /dev/null cat "$D/p.csv"
measure "plain ksample info" /dev/null "$K" info "$D/p.csv"
