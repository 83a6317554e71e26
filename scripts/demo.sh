#!/bin/sh
# demo.sh - the main job on the bundled example: what is in the profile, a
# ROOT plan with its promised bound, and how every method does on it.
# usage: scripts/demo.sh path/to/ksample
set -eu
KS=${1:-build/ksample}
EX=examples/casio-like-50k.csv.xz
OUT=${DEMO_OUT:-build/demo}
mkdir -p "$OUT"
echo "== ksample info $EX"
"$KS" info "$EX" --top 8
echo
echo "== ksample sample $EX --method root --epsilon 0.05 --seed 1 -o $OUT/plan.json"
"$KS" sample "$EX" --method root --epsilon 0.05 --confidence 0.95 --seed 1 -o "$OUT/plan.json"
echo
echo "== ksample eval $EX --methods root,stem,allegro,random --iters 10"
"$KS" eval "$EX" --methods root,stem,allegro,random --iters 10
cat <<'LEGEND'
   samples: distinct launches simulated per plan (mean); speedup: the whole
   program's GPU time over the sampled launches' (harmonic mean); err mean/max:
   the plans' error in the total time against the profile's own total; plan s:
   seconds to plan; bound: the error promised at 95 % confidence; exceed: the
   share of plans whose error was above it (about 5 % or less is what a 95 %
   bound promises); pred rse: root's predicted relative standard error;
   cost/LB: root's expected simulated time over the lower bound no plan of
   contiguous strata can beat (1.00 = optimal).  '-' where a method has none.
LEGEND
echo
echo "== ksample report $EX --plan $OUT/plan.json --iters 3 -o $OUT/report.html"
"$KS" report "$EX" --plan "$OUT/plan.json" --iters 3 -q -o "$OUT/report.html"
echo
echo "plan written to $OUT/plan.json; open $OUT/report.html in a browser"
