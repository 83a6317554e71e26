#!/bin/sh
# newcomer.sh - what a new user meets in the first hour (issue 41, section
# 2): documented paths that must work as documented, and outputs as a paper
# would quote them.
# usage: tests/newcomer.sh path/to/ksample path/to/source-root
KS=$1
ROOT=$(cd "$2" && pwd)
SIM="$ROOT/../shared/data/sim"
. "$(dirname "$0")/lib.sh"

# refused CODE PATTERN CMD...: CMD exits CODE and its stderr matches PATTERN
refused() {
    code=$1 pat=$2
    shift 2
    expect "$code" "$@"
    grep -q -- "$pat" "$T/err" && ok || bad "$*: stderr lacks '$pat': $(head -c 300 "$T/err")"
}

# ------------------------------------------- estimate on a get_stats.py CSV
# docs/guide.md: `estimate plan.json stats.csv --config SM7_QV100`; the
# refusal without --config tells the user to give it
G="$ROOT/tests/data/getstats/synth-k-K.csv.xz"
if [ -f "$SIM/accelsim-synth/time.csv" ]; then
    expect 0 "$KS" sample "$SIM/accelsim-synth/time.csv" --method stem --epsilon 1e-6 -o "$T/census.json"
    refused 2 "choose one with --config" "$KS" estimate "$T/census.json" "$G" --uid-base 1
    expect 0 "$KS" estimate --json "$T/census.json" "$G" --config SM7_QV100 --uid-base 1
    # a plan of every launch gets the full run's cycles exactly
    want=$(awk -F, '$4 == "SM7_QV100" { s += $5 } END { print s }' "$SIM/accelsim-synth/per_launch.csv")
    got=$(grep '"metric": "gpu_sim_cycle",' "$T/out" | sed 's/.*"estimate": \([^,]*\),.*/\1/')
    [ "$got" = "$want" ] && ok || bad "get_stats.py CSV, SM7_QV100: $got cycles, the full run's $want"
    expect 0 "$KS" estimate --json "$T/census.json" "$G" --config SM86_RTX3070 --uid-base 1
    want=$(awk -F, '$4 == "SM86_RTX3070" { s += $5 } END { print s }' "$SIM/accelsim-synth/per_launch.csv")
    got=$(grep '"metric": "gpu_sim_cycle",' "$T/out" | sed 's/.*"estimate": \([^,]*\),.*/\1/')
    [ "$got" = "$want" ] && ok || bad "get_stats.py CSV, SM86_RTX3070: $got cycles, the full run's $want"
    refused 2 "no configuration 'SM9'" "$KS" estimate "$T/census.json" "$G" --config SM9 --uid-base 1
    expect 0 "$KS" refine "$T/census.json" "$G" --config SM7_QV100 --uid-base 1 -o "$T/refined.json"
else
    echo "SKIP: $SIM absent, the get_stats.py CSV checks are skipped"
fi

summary
