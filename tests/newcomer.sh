#!/bin/sh
# newcomer.sh - what a new user meets in the first hour (issue 41, section
# 2): documented paths that must work as documented, and outputs as a paper
# would quote them.
# usage: tests/newcomer.sh path/to/ksample path/to/source-root
KS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$2" && pwd)
SIM="$ROOT/../shared/data/sim"
. "$(dirname "$0")/lib.sh"

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

# ------------------------------------------- outputs a paper would quote
expect 0 "$KS" synth -n 2000 --seed 3 -o "$T/s.csv"
expect 0 "$KS" info "$T/s.csv"
grep -q '^invocations:  2,000$' "$T/out" && ok || bad "info: counts without separators: $(head -4 "$T/out")"
expect 0 "$KS" sample "$T/s.csv" --method random --fraction 0.01 --include-comm -o "$T/random.json"
grep -q 'of 2,000 invocations in 1 cluster,' "$T/err" && ok || bad "sample: $(cat "$T/err")"
expect 0 "$KS" sample "$T/s.csv" --seed 1 -o "$T/plan.json"
grep -q "simulating every launch costs" "$T/err" && bad "a cheap plan said it is dear: $(cat "$T/err")" || ok
# a plan dearer than half the program says so before anything runs (issue 38)
expect 0 "$KS" sample "$T/s.csv" --epsilon 0.0002 --seed 1 -o "$T/dear.json"
grep -q "the plan simulates [0-9]*% of the program's profiled time .*simulating every launch costs only" "$T/err" && ok || bad "a dear plan said nothing: $(cat "$T/err")"
# values of a million cycles and more: whole numbers with separators
awk -F'"id": ' 'BEGIN { print "id,gpu_sim_cycle,gpu_sim_insn" }
    NF > 1 { split($2, a, ","); print a[1] "," 1000003 + 7 * a[1] "," 2000000 + a[1] }' \
    "$T/plan.json" >"$T/values.csv"
expect 0 "$KS" estimate "$T/plan.json" "$T/values.csv" --warmup context
head -n 1 "$T/out" | grep -q '^metric  *kind  *estimate' && ok ||
    bad "estimate does not put its table first: $(head -3 "$T/out")"
grep -q '^gpu_sim_cycle  *count  *[1-9][0-9]\{0,2\}\(,[0-9]\{3\}\)\{3\}  *[0-9,]*  *[0-9,]* ' "$T/out" && ok ||
    bad "estimate: counts are not whole numbers with separators: $(grep '^gpu_sim_cycle' "$T/out")"
grep -q 'e+0' "$T/out" && bad "estimate prints a count in e-notation: $(grep 'e+0' "$T/out")"
grep -q '^ipc  *rate  *[0-9.]* ' "$T/out" && ok || bad "estimate: ipc is not a plain rate"
awk '/^$/ { blank = NR } /^plan: / { plan = NR } END { exit !(blank && plan > blank) }' "$T/out" && ok ||
    bad "estimate: the notes do not follow the table: $(cat "$T/out")"
expect 0 "$KS" estimate --json "$T/plan.json" "$T/values.csv" --warmup context
cp "$T/out" "$T/est.json"
# eval --json: null where the table prints none or '-'
expect 0 "$KS" eval "$T/s.csv" --methods root,stem,random --iters 2
awk '$1 == "random" && $7 == "none" && $8 == "-" && $9 == "-" && $10 == "-" { f = 1 } END { exit !f }' "$T/out" && ok ||
    bad "eval: random's bound, exceed, pred rse: $(grep '^random' "$T/out")"
expect 0 "$KS" eval "$T/s.csv" --methods root,stem,random --iters 2 --json
tr '{' '\n' <"$T/out" >"$T/eval.rows"
grep '"method": "random"' "$T/eval.rows" | grep -q '"bound_pct": null, "exceed_fraction": null, "predicted_rse_pct": null, "cost_over_lower_bound": null' &&
    ok || bad "eval --json: random without a bound: $(grep random "$T/eval.rows")"
grep '"method": "stem"' "$T/eval.rows" | grep -q '"bound_pct": 5, .*"predicted_rse_pct": null, "cost_over_lower_bound": null' &&
    ok || bad "eval --json: stem's predicted rse: $(grep stem "$T/eval.rows")"
grep '"method": "root"' "$T/eval.rows" | grep -q '"predicted_rse_pct": [0-9.]*, "cost_over_lower_bound": [0-9.]*}' &&
    ok || bad "eval --json: root's predicted rse: $(grep root "$T/eval.rows")"
# the report says what the commands say
(cd "$T" && "$KS" report s.csv --plan plan.json --estimate est.json --iters 0 --epsilons '' -q -o page.html) ||
    bad "report failed"
grep -q '<dt>predicted interval</dt><dd>&#177;[0-9.]*% if the simulated values follow the profile' "$T/page.html" && ok ||
    bad "the report's plan lacks the predicted interval"
grep -q '<dt>warm-up</dt><dd>context</dd>' "$T/page.html" && ok || bad "the report lacks the warm-up"
grep -q "<dt>interval</dt><dd>of the full run&#39;s total" "$T/page.html" && ok ||
    bad "the report does not say what the intervals stand for"
grep -q "This page: <code>ksample report s.csv --plan plan.json --estimate est.json --iters 0 --epsilons &#39;&#39; -q -o page.html</code>" "$T/page.html" && ok ||
    bad "the report lacks the command that writes it: $(grep -o 'This page.*' "$T/page.html")"
grep -q '<td>gpu_sim_cycle</td><td>[1-9][0-9]\{0,2\}\(,[0-9]\{3\}\)\{3\}</td>' "$T/page.html" && ok ||
    bad "the report's counts are not whole numbers with separators"

# ------------------------------------------- report --score of another workload
expect 0 "$KS" synth --traces "$T/st" -n 40 --seed 5
(echo id,gpu_sim_cycle; awk -F, 'NR > 1 { print NR - 2 "," 1000 + NR }' "$T/st/time.csv") >"$T/truth.csv"
expect 0 "$KS" score "$T/st" --plan-from "$T/truth.csv" --truth "$T/truth.csv" --methods root,random --seeds 3 -q --json
cp "$T/out" "$T/score.json"
grep -q '^{"truth": [0-9]*, "launches": 40, ' "$T/score.json" && ok || bad "score --json does not name its workload's launches"
expect 0 "$KS" report "$T/st/time.csv" --score "$T/score.json" --iters 0 --epsilons '' -q -o "$T/score.html"
refused 4 "scores a workload of 40 launches, but the profile $T/s.csv has 2000: scores of another workload" \
    "$KS" report "$T/s.csv" --score "$T/score.json" --iters 0 --epsilons '' -q -o "$T/score2.html"
[ -e "$T/score2.html" ] && bad "a refused report wrote its page"
# a score file from before: said, not refused
expect 0 "$KS" report "$T/st/time.csv" --score "$ROOT/tests/data/score/transformer-gcl-k8.json" --iters 0 --epsilons '' -q -o "$T/score3.html"
grep -q "does not say which workload it scored" "$T/err" && ok || bad "an unchecked score file is not said: $(cat "$T/err")"

# ------------------------------------------- the run manifest names the L2 it used
printf -- '-gpgpu_n_clusters 46\n-gpgpu_n_cores_per_cluster 1\n-gpgpu_n_mem 16\n-gpgpu_n_sub_partition_per_mchannel 2\n-gpgpu_shader_core_pipeline 1536:32\n-gpgpu_shader_cta 32\n-gpgpu_cache:dl2 S:64:128:16,L:B:m:L:P,A:192:4,32:0,32\n' >"$T/g.config"
expect 0 "$KS" sample "$T/st/time.csv" -o "$T/stplan.json"
expect 0 "$KS" run "$T/stplan.json" --traces "$T/st" --simulator 'true {kernelslist}' --sim-config "$T/g.config" -o "$T/strun" -q
grep -q '\[state: l2 from the simulator configuration, ' "$T/strun/manifest.json" && ok ||
    bad "the manifest's L2: $(grep -o '\[state:[^]]*\]' "$T/strun/manifest.json")"

# ------------------------------------------- synth: big outputs
expect 0 "$KS" synth -n 3000 --seed 2 -o "$T/plain.csv"
expect 0 "$KS" synth -n 3000 --seed 2 -o "$T/packed.csv.zst"
head -c 4 "$T/packed.csv.zst" | od -An -tx1 | grep -q '28 b5 2f fd' && ok || bad "synth -o FILE.zst is not zstd"
if command -v zstd >/dev/null; then
    zstd -dcq "$T/packed.csv.zst" | cmp -s - "$T/plain.csv" && ok || bad "synth -o FILE.zst is not the same CSV"
fi
expect 0 "$KS" info "$T/packed.csv.zst"
grep -q '^invocations:  3,000$' "$T/out" && ok || bad "the .zst workload does not read back"
refused 2 "synth writes plain CSV, or zstd-compressed CSV to a name ending in .zst, not .gz" \
    "$KS" synth -n 10 -o "$T/w.csv.gz"
# the note comes before anything is written (here the folder is missing)
refused 3 "note: about 2.8 GB of CSV for 10,000,000 launches; -o $T/none/big.csv.zst writes it compressed" \
    "$KS" synth -n 10000000 -o "$T/none/big.csv"

# ------------------------------------------- a moved or copied checkout's build folder
mkdir -p "$T/b/CMakeFiles/x"
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere/ksample\n' >"$T/b/CMakeCache.txt"
(cd "$ROOT" && sh scripts/check-cache.sh "$T/b") >"$T/out" 2>"$T/err" && ok || bad "check-cache.sh failed"
grep -q "was made for the checkout in /elsewhere/ksample, not this one" "$T/err" && ok || bad "a stale cache not named: $(cat "$T/err")"
[ ! -e "$T/b/CMakeCache.txt" ] && [ ! -e "$T/b/CMakeFiles" ] && ok || bad "the stale cache is still there"
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$ROOT" >"$T/b/CMakeCache.txt"
(cd "$ROOT" && sh scripts/check-cache.sh "$T/b") 2>"$T/err" && [ -f "$T/b/CMakeCache.txt" ] && [ ! -s "$T/err" ] && ok ||
    bad "a cache of this checkout was touched: $(cat "$T/err")"

# ------------------------------------------- help and completion
expect 0 "$KS" eval --help
[ "$(grep -c -- '--epsilon [EL]' "$T/out")" = 1 ] && ok || bad "eval --help lists --epsilon $(grep -c -- '--epsilon [EL]' "$T/out") times"
# help texts say what an option does; measured figures (1.002x, 0.935x) are
# docs/bench.md's
for c in $("$KS" --help | awk '/^  [a-z]/ { print $1 }'); do
    "$KS" "$c" --help >"$T/help" 2>&1
    grep -Eq '[0-9]\.[0-9]+x' "$T/help" && bad "ksample $c --help quotes measured figures: $(grep -E '[0-9]\.[0-9]+x' "$T/help" | head -2)"
done
ok

# ------------------------------------------- MacSim traces: what ksample counts
M="$SIM/macsim-vectormultadd"
if [ -f "$M/macsim-vectormultadd-4096-16384-traces.tar.xz" ]; then
    mkdir -p "$T/m/tr"
    (cd "$T/m" && tar -xJf "$M/macsim-vectormultadd-4096-16384-traces.tar.xz") || bad "MacSim traces do not unpack"
    cp "$M/kernel_config.txt" "$T/m/tr/"
    tail -n +2 "$M/composition.csv" | while IFS=, read -r l k s src; do ln -s "$T/m/$src" "$T/m/tr/Kernel$l"; done
    expect 0 "$KS" info "$T/m/tr"
    # six kernel folders, four functions at their sizes (docs/formats.md)
    grep -q '^kernel names: 4$' "$T/out" && ok || bad "MacSim kernel names: $(grep 'kernel names' "$T/out")"
    # the tracer's count, and MacSim's INST_COUNT_TOT beside it, exactly
    want=$(awk '/^INST_COUNT_TOT/ { print $2 }' "$M/full_base.general.stat.out" |
        sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')
    grep -q "^instructions: 679,168 (warp-level)$" "$T/out" && ok || bad "MacSim instructions: $(grep instructions "$T/out")"
    grep -q "MacSim's INST_COUNT_TOT leaves it out: $want)" "$T/out" && ok ||
        bad "info does not give MacSim's INST_COUNT_TOT $want: $(cat "$T/out")"
fi

summary
