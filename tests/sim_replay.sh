#!/bin/sh
# sim_replay.sh - the loop as a new user runs it on the recorded real-simulator
# data (../shared/data/sim): sample -> export -> run -> estimate, on Accel-Sim
# (synthetic workload, SM7_QV100) and MacSim (vectormultadd).
#
# No simulator runs here.  Each job runs a STAND-IN (scripts/replay-accelsim.sh
# for Accel-Sim, a shell script written below for MacSim; neither simulates):
# it reads the job's list as the
# simulator would and prints what the real simulator printed for those
# launches, from the data set's recorded logs: a job of one launch gets that
# launch's block of the ALONE log (the launch simulated by itself, which is
# what `run --warmup none` asks for); a job listing the whole program in
# order (a plan of every launch, --batch N) gets the FULL run's log, whose
# running totals ksample differences into per-launch values itself.  Any
# other list makes the stand-in fail.
#
# Checked: the values read are the recorded ones; estimate prints at most 15
# rows by default; its rates are rates (within the per-launch range, miss
# rates in [0, 1]); a plan of every launch gets the full run's cycles, cache
# and DRAM counts and rates exactly, and the per-launch values of the running
# totals are the full log's differences.
# usage: tests/sim_replay.sh path/to/ksample path/to/source-root
KS=$1
ROOT=$(cd "$2" && pwd)
SIM="$ROOT/../shared/data/sim"
. "$(dirname "$0")/lib.sh"

if [ ! -f "$SIM/accelsim-synth/alone_SM7_QV100.out.xz" ] ||
    [ ! -f "$SIM/macsim-vectormultadd/full_base.out.xz" ]; then
    echo "SKIP: $SIM absent, the replayed loop is skipped"
    exit 77
fi

# jfield FILE METRIC FIELD: a field of one metric's object in estimate --json
jfield() { grep "\"metric\": \"$2\"," "$1" | sed "s/.*\"$3\": \([^,}]*\).*/\1/"; }
# column FILE NAME: the values of a CSV column, one a line, header dropped
column() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }
# rows FILE: the rows of estimate's table (after its header line)
rows() { awk 'f && /^$/ { exit } f { n++ } /^metric  *kind/ { f = 1 } END { print n + 0 }' "$1"; }

# ----------------------------------------------------------------- Accel-Sim
A="$SIM/accelsim-synth"
(cd "$T" && tar -xJf "$A/ksample-synth-traces.tar.xz") || bad "traces do not unpack"
mkdir -p "$T/alone"
xz -dc "$A/alone_SM7_QV100.out.xz" |
    awk -v d="$T/alone" '/^===== ksample-simdata: synthetic launch [0-9]+ / { close(f); f = d "/" $5; next } { print > f }'
xz -dc "$A/full_SM7_QV100.out.xz" >"$T/full.out"
[ "$(ls "$T/alone" | wc -l)" = 160 ] || bad "the alone log does not split into 160 launches"

# the stand-in make demo uses too (scripts/replay-accelsim.sh)
STAND="sh $ROOT/scripts/replay-accelsim.sh $A/alone_SM7_QV100.out.xz $A/full_SM7_QV100.out.xz {kernelslist}"

# the recorded alone and full-run cycles per launch
awk -F, '$4 == "SM7_QV100" { print $1, $6, $5 }' "$A/per_launch.csv" >"$T/recorded"

# 1. the default plan, exported, run (alone) and estimated
expect 0 "$KS" sample "$T/syn/time.csv" -o "$T/plan.json"
grep -o '"id": [0-9]*' "$T/plan.json" | sed 's/"id": //' | sort -n >"$T/ids"
n=$(wc -l <"$T/ids")
expect 0 "$KS" export "$T/plan.json" --to accelsim --traces "$T/syn" -o "$T/exp"
[ "$(grep -c '^kernel' "$T/exp/kernelslist.g")" = "$n" ] || bad "export lists another count of kernels"
grep -q '^MemcpyHtoD' "$T/exp/kernelslist.g" || bad "export dropped the program's memory copies"
expect 0 "$KS" run "$T/plan.json" --traces "$T/syn" --simulator "$STAND" --warmup none -o "$T/run" -q -j 2
expect 0 "$KS" estimate "$T/plan.json" "$T/run"
cp "$T/out" "$T/est.txt"
r=$(rows "$T/est.txt")
[ "$r" -ge 5 ] && [ "$r" -le 15 ] || bad "estimate prints $r rows by default: $(cat "$T/est.txt")"
for m in gpu_sim_cycle gpu_sim_insn ipc L1D_total_cache_miss_rate L2_total_cache_miss_rate; do
    grep -q "^$m " "$T/est.txt" || bad "no default row $m"
done
grep -q "^warm-up: none" "$T/est.txt" || bad "the warm-up is not said"
grep -q "^interval of the values only" "$T/est.txt" || bad "alone values' intervals claimed for the full run"
# the values read are the recorded alone cycles of the sampled launches
expect 0 "$KS" estimate --values "$T/plan.json" "$T/run"
cp "$T/out" "$T/values.csv"
[ "$(($(wc -l <"$T/values.csv") - 1))" = "$n" ] || bad "values of $(wc -l <"$T/values.csv") rows"
column "$T/values.csv" id >"$T/v.id"
column "$T/values.csv" gpu_sim_cycle >"$T/v.cyc"
paste -d' ' "$T/v.id" "$T/v.cyc" | awk 'NR == FNR { alone[$1] = $2; next } $2 != alone[$1] { print; bad = 1 } END { exit bad }' \
    "$T/recorded" - >"$T/diff" || bad "values differ from the recorded alone cycles: $(head -3 "$T/diff")"
# rates are rates: the ratio of two weighted totals lies within the
# per-launch ratios; miss rates within [0, 1]
expect 0 "$KS" estimate --json "$T/plan.json" "$T/run"
cp "$T/out" "$T/est.json"
# the instruction total is the traces' exact count (the run folder records
# them), which is the full run's gpu_sim_insn; a second estimate reads the
# counts from the run folder's cache
want=$(awk -F, '$4 == "SM7_QV100" { s += $7 } END { print s }' "$A/per_launch.csv")
[ "$(jfield "$T/est.json" gpu_sim_insn exact)" = true ] &&
    [ "$(jfield "$T/est.json" gpu_sim_insn estimate)" = "$want" ] &&
    [ "$(jfield "$T/est.json" gpu_sim_insn ci_high)" = "$want" ] ||
    bad "gpu_sim_insn is not the traces' exact $want: $(grep '"gpu_sim_insn"' "$T/est.json")"
[ -f "$T/run/trace-counts.csv" ] || bad "no trace-counts.csv in the run folder"
expect 0 "$KS" estimate "$T/plan.json" "$T/run"
grep -q "exact, from the traces: gpu_sim_insn: Accel-Sim's counts of all 160 launches .*(from .*trace-counts.csv)" "$T/out" ||
    bad "the second estimate counted the traces again: $(grep 'exact, from' "$T/out")"
column "$T/values.csv" gpu_sim_insn >"$T/v.insn"
ipc=$(jfield "$T/est.json" ipc estimate)
paste -d' ' "$T/v.insn" "$T/v.cyc" | awk -v e="$ipc" '{ r = $1 / $2; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
    END { exit !(e >= lo * (1 - 1e-9) && e <= hi * (1 + 1e-9)) }' || bad "ipc $ipc outside the per-launch ipc"
for m in L1D_total_cache_miss_rate L2_total_cache_miss_rate; do
    v=$(jfield "$T/est.json" $m estimate)
    hi=$(jfield "$T/est.json" $m ci_high)
    awk -v v="$v" -v hi="$hi" 'BEGIN { exit !(v >= 0 && v <= 1 && hi <= 1) }' || bad "$m = $v (to $hi) is no rate"
    [ "$(jfield "$T/est.json" $m kind)" = '"rate"' ] || bad "$m is not estimated as a rate"
done
# the report shows the same rows
expect 0 "$KS" report "$T/syn/time.csv" --plan "$T/plan.json" --estimate "$T/est.json" --iters 0 \
    --epsilons '' -o "$T/report.html"
grep -q "L1D_total_cache_miss_rate" "$T/report.html" || bad "the report lacks the default rows"
! grep -q "gpu_stall_dramfull" "$T/report.html" || bad "the report shows more than the default rows"

# 2. a plan of every launch, the whole program in one job: the stand-in
#    replays the full run's log; every default count is the log's final
#    running total, every rate its program-wide value
expect 0 "$KS" sample "$T/syn/time.csv" --method stem --epsilon 1e-6 -o "$T/census.json"
[ "$(grep -c '"id": ' "$T/census.json")" = 160 ] || bad "the census plan does not sample every launch"
expect 0 "$KS" run "$T/census.json" --traces "$T/syn" --simulator "$STAND" --warmup none --batch 160 -o "$T/runc" -q
expect 0 "$KS" estimate --json "$T/census.json" "$T/runc"
cp "$T/out" "$T/census.json.out"
last() { grep "^[[:space:]]*$1 = " "$T/full.out" | tail -1 | sed 's/.* = *//'; }
cyc=$(awk '{ s += $3 } END { print s }' "$T/recorded")
[ "$(jfield "$T/census.json.out" gpu_sim_cycle estimate)" = "$cyc" ] || bad "census cycles, not the full run's $cyc"
[ "$cyc" = "$(last gpu_tot_sim_cycle)" ] || bad "the recorded cycles do not add up to the log's"
for m in L1D_total_cache_accesses L1D_total_cache_misses L2_total_cache_accesses L2_total_cache_misses; do
    want=$(last $m)
    got=$(jfield "$T/census.json.out" $m estimate)
    [ -n "$want" ] && [ "$got" = "$want" ] || bad "census $m = $got, the full run's $want"
done
got=$(jfield "$T/census.json.out" total_dram_reads estimate)
want=$(grep '^total dram reads = ' "$T/full.out" | tail -1 | sed 's/.* = //')
[ "$got" = "$want" ] || bad "census total_dram_reads = $got, the full run's $want"
for pair in "ipc gpu_tot_ipc" "L1D_total_cache_miss_rate L1D_total_cache_miss_rate" \
    "L2_total_cache_miss_rate L2_total_cache_miss_rate"; do
    set -- $pair
    got=$(jfield "$T/census.json.out" "$1" estimate)
    want=$(last "$2")
    awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 5e-5 && d > -5e-5) }' ||
        bad "census $1 = $got, the full run's $want"
done
# per launch, the running totals are the full log's differences
expect 0 "$KS" estimate --values "$T/census.json" "$T/runc"
cp "$T/out" "$T/cvalues.csv"
grep '^[[:space:]]*L1D_total_cache_accesses = ' "$T/full.out" | sed 's/.* = *//' |
    awk '{ print NR - 1, $1 - prev; prev = $1 }' >"$T/diffs"
paste -d' ' "$(column "$T/cvalues.csv" id >"$T/c.id" && echo "$T/c.id")" \
    "$(column "$T/cvalues.csv" L1D_total_cache_accesses >"$T/c.l1" && echo "$T/c.l1")" >"$T/c.pairs"
cmp -s "$T/diffs" "$T/c.pairs" || bad "per-launch L1D accesses are not the log's differences: $(diff "$T/diffs" "$T/c.pairs" | head -4)"

# 3. the same plan, each launch alone: L1D accesses do not depend on the
#    cache's state, so they add up to the full run's; cycles to the alone sum
expect 0 "$KS" run "$T/census.json" --traces "$T/syn" --simulator "$STAND" --warmup none -o "$T/runa" -q -j 2
expect 0 "$KS" estimate --json "$T/census.json" "$T/runa"
cp "$T/out" "$T/alone.json.out"
got=$(jfield "$T/alone.json.out" L1D_total_cache_accesses estimate)
[ "$got" = "$(last L1D_total_cache_accesses)" ] || bad "alone census L1D accesses $got"
sum=$(awk '{ s += $2 } END { print s }' "$T/recorded")
[ "$(jfield "$T/alone.json.out" gpu_sim_cycle estimate)" = "$sum" ] || bad "alone census cycles, not $sum"

# ------------------------------------------------------------------- MacSim
M="$SIM/macsim-vectormultadd"
mkdir -p "$T/m/tr" "$T/m/alone"
(cd "$T/m" && tar -xJf "$M/macsim-vectormultadd-4096-16384-traces.tar.xz") || bad "MacSim traces do not unpack"
cp "$M/kernel_config.txt" "$T/m/tr/"
tail -n +2 "$M/composition.csv" | while IFS=, read -r l k s src; do
    ln -s "$T/m/$src" "$T/m/tr/Kernel$l"
    echo "$l $k"
done >"$T/m/kernels"
xz -dc "$M/alone_and_pairs_base.out.xz" |
    awk -v d="$T/m/alone" '/^===== ksample-simdata: macsim / { close(f); f = ($6 == "ALONE") ? d "/" $5 : "/dev/null"; next } { print > f }'
xz -dc "$M/full_base.out.xz" >"$T/m/full.out"
[ "$(ls "$T/m/alone" | wc -l)" = 6 ] || bad "the MacSim alone log does not split into 6 kernels"
cat >"$T/standin-macsim" <<STANDIN
#!/bin/sh
# A stand-in for MacSim (not MacSim): see tests/sim_replay.sh.  Run in the
# job folder, as MacSim is: trace_file_list names kernel_config.txt.
config=\$(sed -n 2p trace_file_list)
n=\$(tail -n +4 "\$config" | wc -l)
if [ "\$n" = 157 ] && [ "\$(sed -n 4p "\$config")" = ./Kernel0/trace.txt ]; then
    exec cat "$T/m/full.out"
fi
[ "\$n" = 1 ] || { echo "stand-in: replays one launch or the whole program, not \$n" >&2; exit 3; }
l=\$(sed -n 4p "\$config" | sed 's,^\./Kernel\([0-9]*\)/trace.txt\$,\1,')
k=\$(awk -v l="\$l" '\$1 == l { print \$2 }' "$T/m/kernels")
# MacSim prints the trace path it was given: this job's
sed "s,RUN/[^ ,]*/trace\.txt,RUN/job/Kernel\$l/trace.txt,g" "$T/m/alone/\$k"
STANDIN
chmod +x "$T/standin-macsim"
echo "max_block_per_core 8" >"$T/params.in"
awk -F, 'NR > 1 { print $1, $6, $5 }' "$M/per_launch.csv" >"$T/m/recorded"

# 4. a plan from the trace folder (instruction counts), run alone
expect 0 "$KS" sample "$T/m/tr" --method sieve -o "$T/mplan.json"
expect 0 "$KS" export "$T/mplan.json" --to macsim --traces "$T/m/tr" -o "$T/mexp"
expect 0 "$KS" run "$T/mplan.json" --traces "$T/m/tr" --macsim "$T/standin-macsim" --params "$T/params.in" \
    --warmup none -o "$T/mrun" -q
expect 0 "$KS" estimate "$T/mplan.json" "$T/mrun"
cp "$T/out" "$T/mest.txt"
r=$(rows "$T/mest.txt")
[ "$r" -ge 1 ] && [ "$r" -le 15 ] || bad "MacSim estimate prints $r rows"
grep -q "^no interval" "$T/mest.txt" || bad "chosen representatives given an interval: $(cat "$T/mest.txt")"
expect 0 "$KS" estimate --values "$T/mplan.json" "$T/mrun"
cp "$T/out" "$T/mvalues.csv"
awk -F, 'NR == FNR { split($0, f, " "); alone[f[1]] = f[2]; next } FNR > 1 && $2 != alone[$1] { print; bad = 1 } END { exit bad }' \
    "$T/m/recorded" "$T/mvalues.csv" >"$T/mdiff" 2>&1 ||
    bad "MacSim values differ from the recorded alone cycles: $(head -3 "$T/mdiff")"
[ "$(($(wc -l <"$T/mvalues.csv") - 1))" = "$(grep -c '"id": ' "$T/mplan.json")" ] || bad "MacSim values of another count"

# 5. every launch, the whole program in one job: the full run's cycles
awk -F, 'BEGIN { print "name,duration_ns" } NR > 1 { print $2 "," $5 }' "$M/per_launch.csv" >"$T/m/full-profile.csv"
expect 0 "$KS" sample "$T/m/full-profile.csv" --method stem --epsilon 1e-6 -o "$T/mcensus.json"
expect 0 "$KS" run "$T/mcensus.json" --traces "$T/m/tr" --macsim "$T/standin-macsim" --params "$T/params.in" \
    --warmup none --batch 157 -o "$T/mrunc" -q
expect 0 "$KS" estimate --json "$T/mcensus.json" "$T/mrunc"
want=$(awk '{ s += $3 } END { print s }' "$T/m/recorded")
got=$(grep '"metric": "[a-z_]*cycle[a-z_]*",' "$T/out" | head -1 | sed 's/.*"estimate": \([^,]*\),.*/\1/')
[ "$got" = "$want" ] || bad "MacSim census cycles $got, the full run's $want"
[ "$want" = "$(($(awk '/^CYC_COUNT_TOT/ { print $2 }' "$M/full_base.general.stat.out") - 1))" ] ||
    bad "MacSim recorded cycles do not add up to CYC_COUNT_TOT - 1"

# 6. the rebuilt warm state as export writes it: a warm-up kernel folder before each
#    sampled launch, one block a core of 32 warps (the data set's params: 16 cores,
#    max_threads_per_core 1024, which MacSim counts in warps), or of as many as a core
#    may run (MacSim's default, 3, where params.in is silent)
expect 0 "$KS" export "$T/mplan.json" --to macsim --traces "$T/m/tr" -o "$T/mstate" --warmup state \
    --sim-config "$M/params.base.in"
k=$(ls -d "$T/mstate"/ksample-state-* | head -1)
[ -n "$k" ] && [ "$(sed -n 4p "$k/trace.txt")" = 512 ] || bad "MacSim warm-up kernel of $(sed -n 4p "$k/trace.txt") warps, not 16 x 32"
grep -q "^\./ksample-state-[0-9]*/trace.txt" "$T/mstate/kernel_config.txt" || bad "no warm-up kernel listed"
grep -v '^max_threads_per_core' "$M/params.base.in" >"$T/params3.in"
expect 0 "$KS" export "$T/mplan.json" --to macsim --traces "$T/m/tr" -o "$T/mstate3" --warmup state \
    --sim-config "$T/params3.in"
k=$(ls -d "$T/mstate3"/ksample-state-* | head -1)
[ -n "$k" ] && [ "$(sed -n 4p "$k/trace.txt")" = 48 ] || bad "MacSim warm-up kernel of $(sed -n 4p "$k/trace.txt") warps where a core runs 3"

summary
