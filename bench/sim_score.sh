#!/bin/sh
# Scores every method against the real simulator outputs of ../shared/data/sim
# (docs/bench.md, "Against real simulators"): plans drawn from one
# configuration's full-run cycles, estimates from the full run (context), each
# launch alone, and each recorded warm-up, against the full run's total.
#   bench/sim_score.sh BUILD_DIR [SEEDS]       (default 100 seeds)
# The warm-up runs beyond the data set's own (Accel-Sim since-same:N, MacSim
# prev:N and since-same:N) are the runs recorded in tests/data/accelsim-warmup
# and tests/data/macsim-warmup (see their READMEs).  "alone+pilot" corrects the
# alone values by one pilot launch per kernel group whose reference is the
# full run's value (Accel-Sim: an ideal warm-up, costed at the value alone) or
# the since-same:8 run (MacSim).  Prints one table per data set, then the
# calibration battery's tables (bench_calibration).
set -eu
build=${1:?usage: bench/sim_score.sh BUILD_DIR [SEEDS]}
seeds=${2:-100}
root=$(cd "$(dirname "$0")/.." && pwd)
ks=$(cd "$build" && pwd)/ksample
data=$root/../shared/data/sim
[ -d "$data" ] || { echo "sim_score: $data is absent" >&2; exit 77; }
# the end-to-end tests' scratch folder $T (removed on exit) and macsim_traces
KS=$ks
. "$root/tests/lib.sh"
tmp=$T

# the trace folders, unpacked
(cd "$tmp" && tar -xJf "$data/accelsim-synth/ksample-synth-traces.tar.xz")
macsim_traces "$data/macsim-vectormultadd"

methods=root,stem,allegro,random,pka,sieve,photon
A=$data/accelsim-synth
AW=$root/tests/data/accelsim-warmup
# the recorded Accel-Sim warm-up runs of one configuration, as --warm options
recorded() {
  for f in "$AW/$1"_*.csv; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .csv)
    printf ' --warm %s=%s' "$(echo "${name#"$1"_}" | tr _ :)" "$f"
  done
}
echo "== Accel-Sim synthetic, QV100 -> QV100 ($seeds seeds)"
"$ks" score "$tmp/syn" --metrics "$A/syn-ncu.csv" --plan-from "$A/full_SM7_QV100.out.xz" \
  --truth "$A/full_SM7_QV100.out.xz" --alone "$A/alone_SM7_QV100.out.xz" \
  --warm self="$A/warm_self_SM7_QV100.out.xz" --warm same="$A/warm_same_SM7_QV100.out.xz" \
  $(recorded SM7_QV100) --pilot 1 --methods "$methods" --target-speedup 10 --seeds "$seeds" -q
echo
echo "== Accel-Sim synthetic, QV100 -> RTX 3070 ($seeds seeds)"
"$ks" score "$tmp/syn" --metrics "$A/syn-ncu.csv" --plan-from "$A/full_SM7_QV100.out.xz" \
  --truth "$A/full_SM86_RTX3070.out.xz" --alone "$A/alone_SM86_RTX3070.out.xz" \
  --warm self="$A/warm_self_SM86_RTX3070.out.xz" \
  --warm same="$A/warm_same_SM86_RTX3070.out.xz" \
  --warm prev:1="$A/warm_prev_SM86_RTX3070.out.xz" $(recorded SM86_RTX3070) \
  --pilot 1 --methods "$methods" --target-speedup 10 --seeds "$seeds" -q
echo

# MacSim: values per launch from the data set's CSVs and the recorded runs
M=$data/macsim-vectormultadd
W=$root/tests/data/macsim-warmup
awk -F, 'NR==1{print "id,cycles"; next}{print $1","$5}' "$M/per_launch.csv" >"$tmp/full.csv"
awk -F, 'NR==1{print "id,cycles"; next}{print $1","$6}' "$M/per_launch.csv" >"$tmp/alone.csv"
echo "== MacSim vectormultadd, base ($seeds seeds)"
"$ks" score "$tmp/m/tr" --plan-from "$tmp/full.csv" --truth "$tmp/full.csv" \
  --alone "$tmp/alone.csv" --warm same="$W/same.csv" --warm since-same:8="$W/since-same_8.csv" \
  --pilot 1 --pilot-ref since-same:8 --methods root,stem,allegro,random,sieve,photon \
  --target-speedup 10 --seeds "$seeds" -q
echo
echo "== MacSim vectormultadd, root, every recorded warm-up ($seeds seeds)"
warm=""
for f in "$W"/*.csv; do
  name=$(basename "$f" .csv | tr _ :)
  warm="$warm --warm $name=$f"
done
# shellcheck disable=SC2086
"$ks" score "$tmp/m/tr" --plan-from "$tmp/full.csv" --truth "$tmp/full.csv" \
  --alone "$tmp/alone.csv" $warm --methods root --seeds "$seeds" -q
echo
echo "== Calibration: every design and estimator, 200 seeds (docs/bench.md, \"Calibration\")"
"$(cd "$build" && pwd)/bench_calibration" "$root/../shared/data" "$root/tests/data" 200
