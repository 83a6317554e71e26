#!/bin/sh
# bench_gcl_scale.sh - GCL-Sampler's whole fit (`ksample sample --method gcl`:
# graphs, training, embedding, clustering) on synthetic trace folders of N
# launches (`ksample synth --traces`, the traces compressed with xz -1, as a
# 300-launch folder is 85 MB of text): wall and CPU seconds, peak RSS, the
# launches' distinct graphs and the load average.  Numbers in docs/bench.md.
#
# usage: bench/bench_gcl_scale.sh BUILD_DIR [N...]   (default 300 3000 10000)
#   KSAMPLE=path   another ksample binary (e.g. a build of main, for before/after)
#   KEEP=DIR       generate into DIR/tN and keep the folders (reused when present)
#   EXTRA="..."    more options for sample (e.g. --train-graphs 64, --epochs 1)
set -eu
B=${1:-build}
shift || true
[ $# -gt 0 ] || set -- 300 3000 10000
KS=${KSAMPLE:-$B/ksample}
ROOT=${KEEP:-$(mktemp -d /tmp/ks-gcl-scale.XXXXXX)}
echo "== $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); binary $KS"
echo "== OpenBLAS core: ${OPENBLAS_CORETYPE:-detected}, threads: ${OPENBLAS_NUM_THREADS:-default}"
for n in "$@"; do
    d="$ROOT/t$n"
    if [ ! -f "$d/kernelslist.g" ]; then
        "$B/ksample" synth --traces "$d" -n "$n" --seed 1
        ls "$d"/kernel-*.traceg | xargs -P "$(nproc)" -n 100 xz -T1 -1 -f
    fi
    load0=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S %M" -o "$ROOT/time.$n" \
        "$KS" sample --method gcl ${EXTRA:-} --traces "$d" "$d/time.csv" -o "$ROOT/plan.$n.json"
    load1=$(cut -d' ' -f1 /proc/loadavg)
    read -r wall user sys rss < "$ROOT/time.$n"
    k=$(grep -o '"note": "K=[0-9]*' "$ROOT/plan.$n.json" | grep -o '[0-9]*$')
    printf "%6s launches, %s MB of xz: %8.1f s wall, %7.1f s CPU (user %s + sys %s), peak RSS %6.0f MB, K = %s, load %s -> %s\n" \
        "$n" "$(du -sm "$d" | cut -f1)" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys" \
        "$(echo "$rss / 1024" | bc)" "$k" "$load0" "$load1"
done
[ -n "${KEEP:-}" ] || rm -rf "$ROOT"
