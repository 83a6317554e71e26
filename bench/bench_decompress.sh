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
D=$(mktemp -d /tmp/ksbench-decompress-XXXXXX)
trap 'rm -rf "$D"' EXIT INT TERM

echo "# $(nproc) cores; $(uname -m); launches $N"
nice "$K" synth --preset casio-like -n "$N" -o "$D/p.csv"
echo "# plain: $(stat -c %s "$D/p.csv") bytes"
nice zstd -q -3 -T2 "$D/p.csv" -o "$D/single.zst"
nice split -b 4M --filter='zstd -q -3 -c' "$D/p.csv" > "$D/multi.zst"
nice gzip -1 -c "$D/p.csv" > "$D/single.gz"
nice split -b 4M --filter='gzip -1 -c' "$D/p.csv" > "$D/multi.gz"
nice xz -1 -T1 -c "$D/p.csv" > "$D/single.xz"
nice xz -1 -T2 -c "$D/p.csv" > "$D/multi.xz"

# measure LABEL CMD...: one line "LABEL wall_s cpu_s peak_rss_MiB load1"
measure() {
    label=$1
    shift
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$D/time" "$@" > "$D/out" 2> "$D/err" || {
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
    *.zst) measure "$f zstdcat" zstdcat "$D/$f" ;;
    *.xz) measure "$f xzcat" xzcat "$D/$f" ;;
    *.gz) measure "$f zcat" zcat "$D/$f" ;;
    esac
    measure "$f ksample info" "$K" info "$D/$f"
    cp "$D/out" "$D/out.after"
    if [ -n "$B" ]; then
        measure "$f before info" "$B" info "$D/$f"
        cmp -s "$D/out" "$D/out.after" || echo "$f: OUTPUT DIFFERS from the earlier build"
    fi
done
measure "plain cat" cat "$D/p.csv"
measure "plain ksample info" "$K" info "$D/p.csv"
