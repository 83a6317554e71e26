#!/bin/sh
# gcl_compare.sh - GCL-Sampler training: ksample (C, OpenBLAS) against the
# same model in PyTorch (bench/gcl_torch.py, CPU) on the same graphs, for
# several graph counts and sizes.  Numbers in docs/bench.md.
# usage: bench/gcl_compare.sh BUILD_DIR [THREADS] [EPOCHS]
set -eu
B=${1:-build}
T=${2:-1}
E=${3:-3}
OUT=${BENCH_OUT:-bench/out}
mkdir -p "$OUT"
HERE=$(dirname "$0")
echo "== machine: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); threads $T, $E epochs"
# graphs x reduction trip count (the trip count sets the graph size):
# the count at one size, then the size at one count
for cfg in "16 10" "32 10" "64 10" "16 3" "16 25" "16 50"; do
    set -- $cfg
    f="$OUT/gcl-$1-$2.bin"
    "$B/bench_gcl" --graphs "$1" --trip "$2" --epochs "$E" --threads "$T" --export "$f" 2>/dev/null
    /usr/bin/python3 "$HERE/gcl_torch.py" "$f" --threads "$T" --epochs "$E" 2>/dev/null
done
