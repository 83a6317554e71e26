#!/bin/sh
# cli.sh - end-to-end tests of the ksample binary, as a user runs it.
# usage: tests/cli.sh path/to/ksample path/to/source-root
KS=$1
ROOT=$2
SHARED="$ROOT/../shared/data"
. "$(dirname "$0")/lib.sh"

# every subcommand explains itself
for c in info sample eval compare synth formats report status run export estimate refine; do
    expect 0 "$KS" "$c" --help
    grep -q "usage: ksample $c" "$T/out" || bad "$c --help has no usage line"
done
expect 0 "$KS" --help
grep -q "exit codes" "$T/out" || bad "top-level help lists no exit codes"
expect 2 "$KS" nosuchcommand
expect 2 "$KS" sample --no-such-option x.csv
expect 2 "$KS" sample --epsilon 2 x.csv
expect 2 "$KS" sample --method nosuch x.csv
expect 3 "$KS" info "$T/does-not-exist.csv"
grep -q "^ksample: $T/does-not-exist.csv: cannot open" "$T/err" || bad "missing file message: $(cat "$T/err")"

# a malformed input names file and line
printf 'name,duration_ns\nk,1\nk,-4\n' >"$T/neg.csv"
expect 4 "$KS" info "$T/neg.csv"
grep -q "^ksample: $T/neg.csv:3: " "$T/err" || bad "error not located: $(cat "$T/err")"

# synth -> info -> sample -> eval on the default preset
expect 0 "$KS" synth --preset casio-like -n 20000 --seed 7 -o "$T/w.csv"
[ "$(wc -l <"$T/w.csv")" -eq 20001 ] || bad "synth wrote $(wc -l <"$T/w.csv") lines"
ls "$T" | grep -q '\.tmp\.' && bad "synth left a temporary file"
expect 0 "$KS" synth --preset casio-like -n 20000 --seed 7 -o "$T/w2.csv"
cmp -s "$T/w.csv" "$T/w2.csv" || bad "synth is not deterministic"
expect 2 "$KS" synth --preset nosuch -n 10
expect 0 "$KS" info "$T/w.csv"
grep -q "invocations:  20,000" "$T/out" || bad "info count: $(head -5 "$T/out")"
expect 0 "$KS" info --json "$T/w.csv"
grep -q '"invocations": 20000' "$T/out" || bad "info --json"

for m in root stem allegro random; do
    expect 0 "$KS" sample "$T/w.csv" --method "$m" --seed 3 -o "$T/$m.json"
    expect 0 "$KS" sample "$T/w.csv" --method "$m" --seed 3 -o "$T/$m.2.json"
    cmp -s "$T/$m.json" "$T/$m.2.json" || bad "$m plan differs for the same seed"
    grep -q '"schema": 1' "$T/$m.json" || bad "$m plan has no schema"
    grep -q "\"method\": \"$m\"" "$T/$m.json" || bad "$m plan has no method"
    grep -q '"xxh128": "[0-9a-f]\{32\}"' "$T/$m.json" || bad "$m plan has no input digest"
done
expect 0 "$KS" sample "$T/w.csv" --method root --seed 4 -o "$T/root.4.json"
cmp -s "$T/root.json" "$T/root.4.json" && bad "root plan ignores the seed"
expect 0 "$KS" sample "$T/w.csv" --method allegro --key name+grid+block --csv -o "$T/a.csv"
head -1 "$T/a.csv" | grep -q '^id,weight$' || bad "--csv header"
expect 0 "$KS" sample "$T/w.csv" --method random --target-speedup 100 --include-comm -o -
grep -q '"draws": 200,' "$T/out" || bad "random --target-speedup 100 on 20000: $(grep draws "$T/out")"
# by default the preset's 2,731 NCCL launches are left out: 17,269 / 100
expect 0 "$KS" sample "$T/w.csv" --method random --target-speedup 100 -o -
grep -q '"draws": 173,' "$T/out" || bad "random --target-speedup 100 without comm: $(grep draws "$T/out")"

expect 0 "$KS" eval "$T/w.csv" --methods root,stem,allegro,random --iters 3 --json
for k in method samples speedup_hmean error_mean_pct error_max_pct plan_seconds; do
    grep -q "\"$k\"" "$T/out" || bad "eval --json lacks $k"
done
expect 0 "$KS" eval "$T/w.csv" --iters 2

# eval --epsilon LIST: one row per (method, bound); random promises none and
# is evaluated once
expect 0 "$KS" eval "$T/w.csv" --methods root,random --epsilon 0.2,0.05 --iters 2 --json
[ "$(grep -o '"method": "root"' "$T/out" | wc -l)" = 2 ] || bad "eval sweep: root rows: $(cat "$T/out")"
[ "$(grep -o '"method": "random"' "$T/out" | wc -l)" = 1 ] || bad "eval sweep: random rows"
grep -q '"epsilon": 0.05' "$T/out" || bad "eval sweep: no epsilon key"
grep -q '"method": "random", "epsilon": null' "$T/out" || bad "eval sweep: random's epsilon"
expect 0 "$KS" eval "$T/w.csv" --methods root,random --epsilon 0.2,0.05 --iters 2
grep -q "^random: promises no bound; evaluated once" "$T/out" || bad "eval sweep: no note on random"
expect 2 "$KS" eval "$T/w.csv" --epsilon 0.1,0
grep -q "got '0'" "$T/err" || bad "eval --epsilon 0.1,0: $(cat "$T/err")"

# eval --truth B: the same launches timed elsewhere; a profile that does not
# line up is refused at the first launch that differs
awk -F, 'NR == 1 { print "name,duration_ns"; next }
         { n = $0; for (i = 0; i < 13; i++) sub(/^[^,]*,/, "", n)
           d = $6; if (n ~ /gemm/) d = 2 * d; print n "," d }' \
    "$T/w.csv" >"$T/b.csv"
expect 0 "$KS" info "$T/b.csv"
grep -q "invocations:  20,000" "$T/out" || bad "truth profile: $(head -4 "$T/out")"
expect 0 "$KS" eval "$T/w.csv" --truth "$T/b.csv" --methods root,stem --iters 2 --json
for k in truth_error_mean_pct truth_error_max_pct truth_speedup_hmean; do
    grep -q "\"$k\"" "$T/out" || bad "eval --truth --json lacks $k"
done
expect 0 "$KS" eval "$T/w.csv" --truth "$T/b.csv" --iters 2
grep -q "B err mean %" "$T/out" || bad "eval --truth table has no B columns"
sed '6s/.*/not_the_same_kernel,1000/' "$T/b.csv" >"$T/b-bad.csv"
expect 4 "$KS" eval "$T/w.csv" --truth "$T/b-bad.csv" --iters 2
grep -q "^ksample: $T/b-bad.csv: cannot use as truth: kernel names differ at launch 4: " "$T/err" ||
    bad "misaligned truth: $(cat "$T/err")"
head -100 "$T/b.csv" >"$T/b-short.csv"
expect 4 "$KS" eval "$T/w.csv" --truth "$T/b-short.csv" --iters 2
grep -q "it has 99 kernel launches and the profile 20000" "$T/err" || bad "short truth: $(cat "$T/err")"
expect 2 "$KS" eval "$T/w.csv" --truth-format plain-csv
expect 0 "$KS" eval "$T/w.csv" --truth "$T/b.csv" --truth-format plain-csv --methods stem --iters 1
expect 4 "$KS" eval "$T/w.csv" --truth "$T/b.csv" --truth-format ncu-csv --methods stem --iters 1

# eval --metrics NCU.csv: the error of every additive metric from the same plans
NCU_RAW="$SHARED/ncu/gtx1080-vectoradd-raw.csv"
if [ -f "$NCU_RAW" ]; then
    printf 'name,duration_ns\nvecAdd,2720\nvecAdd,2600\nvecAdd,3100\n' >"$T/va.csv"
    expect 0 "$KS" eval "$T/va.csv" --metrics "$NCU_RAW" --methods root --iters 2 --json
    grep -q '"metrics": {[^}]*"dram__read_bytes": {"error_mean_pct": ' "$T/out" ||
        bad "eval --metrics: dram__read_bytes not estimated"
    grep -q '"metrics_skipped": {.*"dram__frequency": "not additive' "$T/out" ||
        bad "eval --metrics: dram__frequency not skipped"
    expect 0 "$KS" eval "$T/va.csv" --metrics "$NCU_RAW" --methods root --iters 2
    grep -q "^root .* dram__read_bytes$" "$T/out" || bad "eval --metrics table"
    grep -q "^  dram__frequency: not additive: a frequency" "$T/out" || bad "eval --metrics: skipped list"
fi

# names of several shapes: the groups key name+shape makes at the default shape share
# (1.25 % of 11,350 ns: A's 10 ns shape stays with its largest, C's 40 ns leaves C whole)
printf 'name,duration_ns,id,grid,block\nA,100,0,1 1 1,32 1 1\nA,1000,1,2 1 1,32 1 1\nB,1000,2,4 1 1,64 1 1\nA,100,3,1 1 1,32 1 1\nA,10,4,3 1 1,32 1 1\nC,5000,5,8 1 1,128 1 1\nA,1000,6,2 1 1,32 1 1\nB,1000,7,4 1 1,64 1 1\nA,100,8,1 1 1,32 1 1\nC,40,9,1 1 1,128 1 1\nB,1000,10,4 1 1,64 1 1\nB,1000,11,4 1 1,64 1 1\n' >"$T/shapes.csv"
expect 0 "$KS" info "$T/shapes.csv"
grep -q "kernel groups: 3 by name; name+shape 4 at the default shape share (1.25 % of the time, epsilon 5 %), 6 with every shape" "$T/out" ||
    bad "info: shape groups: $(grep 'kernel groups' "$T/out")"

# compressed input
gzip -c "$T/w.csv" >"$T/w.csv.gz"
expect 0 "$KS" sample "$T/w.csv.gz" --seed 3 -o "$T/gz.json"

# synthetic Accel-Sim traces and their time profile
expect 0 "$KS" synth --traces "$T/tr" -n 7 --seed 2
[ "$(grep -c traceg "$T/tr/kernelslist.g")" = 7 ] || bad "synth --traces -n 7: list"
expect 0 "$KS" info "$T/tr/time.csv"
grep -q '^invocations: *7$' "$T/out" || bad "synth --traces time.csv: $(grep invocations "$T/out")"
expect 0 "$KS" synth --traces "$T/tr2" -n 7 --seed 2
cmp -s "$T/tr/time.csv" "$T/tr2/time.csv" || bad "synth --traces: same seed, other bytes"
expect 3 "$KS" synth --traces "$T/tr/time.csv/x" -n 2
expect 2 "$KS" synth --traces "$T/tr3" -n 100001

# the real profiles, when ../shared/data is beside the project
if [ -d "$SHARED/kineto" ]; then
    for f in "$SHARED"/kineto/*.json.gz; do
        expect 0 "$KS" info "$f"
        expect 0 "$KS" eval "$f" --iters 2
    done
else
    echo "SKIP: $SHARED absent, real-profile CLI checks skipped"
fi

# an LLM / training profile (issue 40): pick a phase, leave NCCL out, plan,
# export the tracer range; estimate says what was measured, not simulated
NCCL="$SHARED/kineto/a100-nccl.json.gz"
if [ -r "$NCCL" ]; then
    expect 0 "$KS" info "$NCCL"
    grep -q "^communication: 21 launches, .* 28.8 % of the kernel time" "$T/out" || bad "info comm: $(grep comm "$T/out")"
    grep -q "^steps: *3 profiler steps, ProfilerStep#4 to #6" "$T/out" || bad "info steps"
    grep -q "## forward ##" "$T/out" || bad "info ranges"
    expect 0 "$KS" sample --step 5 --range '## forward ##' --seed 2 -o "$T/llm.json" "$NCCL"
    grep -q '"selection": "step=5;range=## forward ##;no-comm"' "$T/llm.json" || bad "plan records no selection"
    grep -q '"unsimulated": {"what": "communication kernels", "launches": 2' "$T/llm.json" || bad "plan records no comm"
    grep -q '"invocations": 2700' "$T/llm.json" || bad "plan's invocations are not the file's"
    expect 0 "$KS" export --to accelsim-tracer-span -o "$T/span.env" "$T/llm.json"
    grep -q "DYNAMIC_KERNEL_LIMIT_START=9[0-9][0-9]" "$T/span.env" || bad "span not in step 5: $(grep START "$T/span.env")"
    python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print('id,cycles'); [print('%d,%d' % (s['id'], 100 + s['id'] % 7)) for s in p['samples']]" "$T/llm.json" >"$T/llm.csv"
    expect 0 "$KS" estimate "$T/llm.json" "$T/llm.csv"
    grep -q "^known, unsimulated part: communication kernels, 2 launches" "$T/out" || bad "estimate prints no unsimulated part"
    grep -q "^selection: step=5" "$T/out" || bad "estimate prints no selection"
    expect 0 "$KS" estimate --json "$T/llm.json" "$T/llm.csv"
    python3 -c "
import json, sys
rows = json.load(open(sys.argv[1]))
u = rows[0]['unsimulated']
assert u['what'] == 'communication kernels' and u['launches'] == 2 and u['time_ns'] > 0, u
assert all(r['unsimulated'] == u for r in rows)" "$T/out" || bad "estimate --json carries no unsimulated part"
    expect 0 "$KS" estimate --estimator ratio "$T/llm.json" "$T/llm.csv"
    expect 0 "$KS" sample --include-comm --key name -o "$T/llm2.json" "$NCCL"
    grep -q unsimulated "$T/llm2.json" && bad "--include-comm still leaves comm out"
    grep -q '"selection"' "$T/llm2.json" && bad "a plan of the whole file records a selection"
    expect 2 "$KS" sample --range nope "$NCCL"
    grep -q "no range named 'nope'.*## forward ##" "$T/err" || bad "unknown range message: $(cat "$T/err")"
    expect 2 "$KS" sample --step 9 "$NCCL"
    expect 2 "$KS" info --time-window 5ms-2ms "$NCCL"
    expect 0 "$KS" info --time-window 0-20ms --launches 0-99 "$NCCL"
fi
TT="$ROOT/tests/data/torch-transformer"
expect 4 "$KS" eval --iters 2 "$TT/decode-h100.json.gz" --truth "$TT/decode-h200.json.gz"
expect 0 "$KS" eval --iters 2 --methods root --match family "$TT/decode-h100.json.gz" --truth "$TT/decode-h200.json.gz"
grep -q "^match by family: 29447 of A's 29447 launches paired" "$T/out" || bad "match by family: $(head -1 "$T/out")"
expect 2 "$KS" eval --iters 2 --match op "$TT/decode-h100.json.gz" --truth "$TT/decode-h200.json.gz"
expect 2 "$KS" eval --iters 2 --match foo "$TT/decode-h100.json.gz" --truth "$TT/decode-h200.json.gz"
expect 2 "$KS" score --match foo "$T/tr" --plan-from "$T/tr/time.csv" --truth "$T/tr/time.csv"

# method parameters come from the methods' tables: each is checked against
# the method it is given to, and the help lists them with their methods
printf 'name,duration_ns\nk,10\nk,12\nj,30\n' >"$T/small.csv"
expect 2 "$KS" sample --method stem --n-th 10 "$T/small.csv"
grep -q "n-th is not a parameter of stem" "$T/err" || bad "foreign parameter message: $(cat "$T/err")"
expect 0 "$KS" sample --method allegro --n-th 10 "$T/small.csv"
expect 2 "$KS" sample --method allegro --n-min nan "$T/small.csv"
expect 2 "$KS" sample --allocation sideways "$T/small.csv"
expect 0 "$KS" eval --methods root,allegro --n-th 10 --iters 2 "$T/small.csv"
expect 2 "$KS" eval --methods root,stem --n-th 10 --iters 2 "$T/small.csv"
expect 0 "$KS" sample --help
grep -q -- "--n-min N" "$T/out" || bad "sample --help lacks the method parameters"
grep -q "(root, allegro; default 64)" "$T/out" || bad "sample --help does not say which methods take --max-depth"

# synth with matching Nsight Compute metrics and basic-block vectors, and
# compare: all seven methods in one table
expect 0 "$KS" synth --preset casio-like -n 3000 --seed 5 -o "$T/f.csv" --ncu "$T/f-ncu.csv" --bbv "$T/f-bbv.csv"
[ "$(wc -l <"$T/f-ncu.csv")" -eq $((3000 * 13 + 1)) ] || bad "synth --ncu wrote $(wc -l <"$T/f-ncu.csv") lines"
[ "$(grep -c '^Kernel' "$T/f-bbv.csv")" -eq 3000 ] || bad "synth --bbv wrote $(grep -c '^Kernel' "$T/f-bbv.csv") launches"
expect 0 "$KS" synth --preset casio-like -n 3000 --seed 5 -o "$T/f2.csv" --ncu "$T/f2-ncu.csv" --bbv "$T/f2-bbv.csv"
cmp -s "$T/f-ncu.csv" "$T/f2-ncu.csv" && cmp -s "$T/f-bbv.csv" "$T/f2-bbv.csv" || bad "synth features are not deterministic"
expect 2 "$KS" synth -n 10 --ncu "$T/x.csv"
grep -q "need the workload in a file" "$T/err" || bad "synth --ncu without -o: $(cat "$T/err")"
expect 0 "$KS" compare --iters 3 --metrics "$T/f-ncu.csv" --bbv "$T/f-bbv.csv" "$T/f.csv"
for m in root stem allegro random pka sieve photon; do
    grep -q "^$m  *[0-9]" "$T/out" || bad "compare has no row for $m: $(cat "$T/out")"
done
grep -v "^gcl " "$T/out" | grep -q skipped && bad "compare skipped a method with all inputs: $(cat "$T/out")"
grep -q "^gcl *skipped: gcl needs the instruction traces" "$T/out" || bad "compare does not say why gcl is skipped"
expect 0 "$KS" compare --iters 2 "$T/f.csv"
grep -q "^pka  *skipped: pka needs Nsight Compute metrics: pass --metrics" "$T/out" || bad "compare does not say why pka is skipped"
grep -q "^photon  *skipped: .*--bbv" "$T/out" || bad "compare does not say why photon is skipped"
grep -q "^root  *[0-9]" "$T/out" || bad "compare without features lost root"
expect 0 "$KS" compare --iters 2 --json --bbv "$T/f-bbv.csv" "$T/f.csv"
grep -q '"method": "photon", "samples": ' "$T/out" || bad "compare --json has no photon row"
grep -q '"method": "sieve", "skipped": ' "$T/out" || bad "compare --json does not list sieve as skipped"
expect 2 "$KS" sample --method photon "$T/f.csv"
grep -q "photon needs per-invocation bbv vectors" "$T/err" || bad "photon's missing input: $(cat "$T/err")"
expect 0 "$KS" sample --method pka --metrics "$T/f-ncu.csv" "$T/f.csv" -o "$T/pka.json"
grep -q '"note": "k=' "$T/pka.json" || bad "the pka plan does not record its k"
expect 2 "$KS" compare --no-such-param 3 "$T/f.csv"

# the profile as auxiliary information: a two-phase plan, estimated and
# refined with the ratio estimator, which the refined plan then defaults to;
# pooled strata across kernels
awk 'BEGIN { print "name,duration_ns"; for (i = 0; i < 600; i++) {
    k = i % 3; printf "k%d,%d\n", k, (k + 1) * 1000 + (i * 37) % 900 } }' >"$T/aux.csv"
awk -F, 'NR > 1 { i = NR - 2; printf "%d,%d\n", i, $2 * (1.2 + 0.1 * (i % 3)) + (i * 13) % 50 }
    BEGIN { print "id,gpu_sim_cycle" }' "$T/aux.csv" >"$T/aux-y.csv"
expect 0 "$KS" sample "$T/aux.csv" --two-phase 3 --epsilon 0.2 -o "$T/p1.json"
grep -q '"two_phase": 3' "$T/p1.json" || bad "a two-phase plan does not say so"
expect 0 "$KS" estimate "$T/p1.json" "$T/aux-y.csv" --estimator ratio
grep -q "^estimator: ratio, one fit per kernel, auxiliary: the profile's duration" "$T/out" ||
    bad "estimate --estimator ratio does not say what it used: $(head -12 "$T/out")"
expect 0 "$KS" estimate "$T/p1.json" "$T/aux-y.csv" --estimator ratio --json
grep -q '"estimator": "ratio", "fit": "kernel", "auxiliary": "duration"' "$T/out" ||
    bad "estimate --json lacks the estimator"
expect 2 "$KS" estimate "$T/p1.json" "$T/aux-y.csv" --estimator nosuch
expect 2 "$KS" estimate "$T/p1.json" "$T/aux-y.csv" --fit nosuch
expect 2 "$KS" estimate "$T/p1.json" "$T/aux-y.csv" --estimator ratio --auxiliary nosuch
grep -q "no column 'nosuch'" "$T/err" || bad "an unknown auxiliary: $(cat "$T/err")"
expect 0 "$KS" refine "$T/p1.json" "$T/aux-y.csv" --estimator ratio --epsilon 0.01 -o "$T/p2.json"
grep -q '"refine_estimator": "ratio", "refine_fit": "kernel", "refine_auxiliary": "duration"' \
    "$T/p2.json" || bad "refine does not record the estimator it sized for"
grep -q "sizing for the ratio estimator" "$T/err" || bad "refine does not say what it sized for"
expect 0 "$KS" estimate "$T/p2.json" "$T/aux-y.csv"
grep -q "^estimator: ratio" "$T/out" || bad "estimate does not default to the plan's estimator"
expect 0 "$KS" estimate "$T/p2.json" "$T/aux-y.csv" --estimator plain
grep -q "^estimator:" "$T/out" && bad "--estimator plain still reports an estimator"
expect 0 "$KS" sample "$T/aux.csv" --pool duration --epsilon 0.2 -o "$T/pool.json"
grep -q '"pool": "duration"' "$T/pool.json" || bad "a pooled plan does not record --pool"
expect 0 "$KS" sample "$T/aux.csv" --epsilon 0.2 -o "$T/nopool.json"
grep -q '"pool' "$T/nopool.json" && bad "the default plan mentions pools"
expect 2 "$KS" sample "$T/aux.csv" --pool duration --allocation tree
grep -q "works with --allocation joint" "$T/err" || bad "--pool with tree: $(cat "$T/err")"

# what simulating cost (issue 38): with run_cycles (every cycle of each
# simulator process, its warm-up kernels included) estimate says the cost
# with the warm-up, and refine predicts the new plan's with that factor
awk -F, 'NR > 1 { printf "%s,%d\n", $0, 3 * $2 } NR == 1 { print $0 ",run_cycles" }' \
    "$T/aux-y.csv" >"$T/aux-w.csv"
expect 0 "$KS" estimate "$T/nopool.json" "$T/aux-w.csv" --warmup state
grep -q "^cost: the simulated launches' gpu_sim_cycle adds up to" "$T/out" || bad "estimate prints no cost"
grep -q "^cost with the warm-up: .*, 3x the launches' own cycles" "$T/out" ||
    bad "estimate prints no cost with the warm-up: $(grep cost "$T/out")"
expect 0 "$KS" estimate "$T/nopool.json" "$T/aux-w.csv" --warmup state --json
python3 -c "import json, sys
rows = json.load(open(sys.argv[1]))
c = rows[0]['cost']
assert c['of'] == 'gpu_sim_cycle' and c['cycles'] == 'gpu_sim_cycle', c
assert abs(c['warmup_factor'] - 3) < 1e-12 and abs(c['share_with_warmup'] / c['share'] - 3) < 1e-9, c
assert all(r['cost'] == c for r in rows)" "$T/out" || bad "estimate --json carries no cost"
expect 0 "$KS" estimate "$T/nopool.json" "$T/aux-y.csv" --json
python3 -c "import json, sys
c = json.load(open(sys.argv[1]))[0]['cost']
assert c['warmup_factor'] is None and c['share_with_warmup'] is None, c" "$T/out" ||
    bad "a cost without run_cycles has a warm-up factor"
expect 0 "$KS" refine "$T/nopool.json" "$T/aux-w.csv" --epsilon 0.02 -o "$T/nopool2.json"
grep -q "^ksample refine: cost: the new plan is .* with warm-up kernels of 3x a launch's own cycles" "$T/err" ||
    bad "refine predicts no cost with the warm-up: $(cat "$T/err")"

# GCL-Sampler end to end on the real backprop traces: train on two workloads,
# embed, sample with the trained model and without (trains on the traces)
BP="$SHARED/accelsim/backprop-h100"
if [ -d "$BP" ]; then
    expect 0 "$KS" train --traces "$BP" --traces "$SHARED/accelsim/vectoradd-gtx1080-v4" --epochs 2 -q -o "$T/m.ksm"
    expect 0 "$KS" embed --model "$T/m.ksm" --traces "$BP" -o "$T/emb.csv"
    [ "$(wc -l <"$T/emb.csv")" = 34 ] || bad "embed: wanted 33 rows and a header"
    expect 0 "$KS" sample --traces "$BP" --method gcl --model "$T/m.ksm" -o "$T/gcl.json"
    [ "$(grep -c '"id"' "$T/gcl.json")" = 4 ] || bad "gcl on backprop: wanted 4 representatives"
    expect 0 "$KS" sample --traces "$BP" --method gcl --epochs 2 --save-model "$T/m2.ksm" -o "$T/gcl2.json"
    [ -s "$T/m2.ksm" ] || bad "--save-model wrote nothing"
    printf 'not a model' >"$T/bad.ksm"
    expect 4 "$KS" sample --traces "$BP" --method gcl --model "$T/bad.ksm" -o "$T/x.json"
fi
expect 2 "$KS" sample --method gcl "$T/small.csv"
grep -q "gcl needs the instruction traces" "$T/err" || bad "gcl without traces: $(cat "$T/err")"

summary
