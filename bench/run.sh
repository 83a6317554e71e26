#!/bin/sh
# run.sh - the benchmarks whose numbers are in docs/bench.md.
# usage: bench/run.sh BUILD_DIR [N]   (N invocations, default 10000000)
set -eu
B=${1:-build}
N=${2:-10000000}
OUT=${BENCH_OUT:-bench/out}
mkdir -p "$OUT"
W="$OUT/casio-$N.csv"
echo "== machine: $(nproc) cores, $(uname -m),$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [ ! -f "$W" ]; then
    /usr/bin/time -f "synth: %e s, %M KB peak" "$B/ksample" synth --preset casio-like -n "$N" --seed 7 -o "$W"
fi
ls -l "$W"
# warm the page cache, then the reference: cat
cat "$W" >/dev/null
/usr/bin/time -f "cat: %e s" cat "$W" >/dev/null
# the bytes alone (read + digest), then the reader on 1 thread and on all
"$B/bench_read" --bytes "$W" 1
"$B/bench_read" "$W" 1 0 1
"$B/bench_read" "$W" 0 0 1
# read + plan, per method: read and plan seconds, bytes per invocation, peak RSS
for m in root stem allegro random; do
    "$B/bench_sample" "$W" "$m" 3
done
/usr/bin/time -f "ksample sample --method root (whole command): %e s, %M KB peak" \
    "$B/ksample" sample "$W" --method root -o "$OUT/plan.json"
# PKA, Sieve and Photon: fit time on synthetic features (100,000 launches)
"$B/bench_baselines" "$OUT" 100000 casio-like
# speedup and error of every method over 5 seeds
"$B/ksample" eval "$W" --iters 5
# gzip input
[ -f "$W.gz" ] || gzip -1 -c "$W" >"$W.gz"
/usr/bin/time -f "ksample sample (gzip input): %e s, %M KB peak" \
    "$B/ksample" sample "$W.gz" --method root -o "$OUT/plan-gz.json"
/usr/bin/time -f "zcat: %e s" zcat "$W.gz" >/dev/null
# PyTorch profiler (Kineto) JSON: parse throughput and peak memory on a
# 600 MB synthetic trace
"$B/bench_kineto" --size-mb 600 --out "$OUT/kineto-600mb.json"
# Accel-Sim traces: streaming and basic-block vectors of a 1 GB trace (peak
# RSS after a 64 MB and the 1 GB trace: flat memory)
"$B/bench_trace" --size-mb 1024
# the HTML report page (ROOT plan drawn, no evaluation) and the local job
# engine's own cost: 500 jobs of `true`, 2 at a time, then a rerun that skips all
rm -rf "$OUT/run-bench"
"$B/bench_report_run" "$W" "$OUT/run-bench" 500 2
# the loop's back half: plan read, simulator log, estimate, refine
"$B/bench_estimate" 2000000 0.0005 40
"$B/bench_estimate" 2000000 0.002 300
# the Python package: read + sample + to_json against the whole command, and
# peak RSS (no copy of the columns); skipped without cffi and numpy
if PY=$(sh scripts/pick-python.sh cffi numpy); then
    V=$(sed -n 's/^#define KS_VERSION "\(.*\)"/\1/p' lib/ksample.h)
    KSAMPLE_LIBRARY="$(cd "$B" && pwd)/libksample.so.${V%.*}" PYTHONPATH=python \
        PYTHONDONTWRITEBYTECODE=1 BENCH_OUT="$OUT" "$PY" bench/bench_python.py "$B" "$N" 5
else
    echo "python: skipped: $PY"
fi
