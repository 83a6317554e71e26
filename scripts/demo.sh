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
echo
echo "== ksample report $EX --plan $OUT/plan.json --iters 3 -o $OUT/report.html"
"$KS" report "$EX" --plan "$OUT/plan.json" --iters 3 -q -o "$OUT/report.html"
echo
echo "plan written to $OUT/plan.json; open $OUT/report.html in a browser"
