#!/bin/sh
# hostile_data.sh - issue 34's cases: nothing a user types destroys their
# data or is taken as something else.  Outputs through the links of an input
# trace folder, exporters writing links beside their folder, run folders
# reused with other options or by two runs at once, numbers beyond what a
# simulator prints, results that do not belong to the plan, and the
# friction a new user met.  Each case misbehaved on main before the fix.
# The MacSim cases use the shared data set (laid out as tests/loop.sh does)
# and are skipped without it.
# usage: tests/hostile_data.sh path/to/ksample [source folder]
KS=$1
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
SHARED="$SRC/../shared/data"
. "$(dirname "$0")/lib.sh"

# unchanged: every file under the folders given has the bytes it had
snapshot() { find "$@" -type f -exec cksum {} + | sort >"$T/before.sum"; }
unchanged() {
    find "$@" -type f -exec cksum {} + | sort >"$T/after.sum"
    cmp -s "$T/before.sum" "$T/after.sum" || bad "an input changed: $(diff "$T/before.sum" "$T/after.sum" | head -3)"
}
ids() { grep -o '"id": [0-9]*' "$1" | sed 's/"id": //'; }

cd "$T" || exit 1
"$KS" synth --traces st -n 40 --seed 5 2>/dev/null || exit 1
"$KS" sample st/time.csv --method stem --key name --epsilon 0.3 -o plan.json 2>/dev/null || exit 1
"$KS" sample st/time.csv --key name --epsilon 1e-320 -o census.json 2>/dev/null || exit 1

# --- a plan's numbers read back as written ---------------------------------
expect 0 "$KS" export census.json --to ids -o census.ids

# --- Accel-Sim lists naming traces in another folder -------------------------
# the exported folder links every trace inside itself, never beside it
mkdir -p a/base a/tr
cp st/kernel-*.traceg a/base/
cp st/kernelslist.g st/time.csv a/tr/
for f in st/kernel-*.traceg; do ln -s "../base/${f#st/}" "a/tr/${f#st/}"; done
rm a/tr/kernel-3.traceg
sed -i 's#^kernel-3.traceg$#../base/kernel-3.traceg#' a/tr/kernelslist.g
ln -s "$T/elsewhere-file" a/kernel-3.traceg # the user's own link beside the folders
snapshot a/base
expect 0 "$KS" export census.json --to accelsim --traces a/tr -o a/out
[ "$(readlink a/kernel-3.traceg)" = "$T/elsewhere-file" ] || bad "a link beside the output folder was replaced"
[ -L a/out/kernel-3.traceg ] || bad "the trace in another folder is not linked inside the output"
grep -qx "kernel-3.traceg" a/out/kernelslist.g || bad "the list does not name the link inside: $(grep 3.traceg a/out/kernelslist.g)"
# two listed traces of one name: refused, and no partial folder left
mkdir a/b2 a/b3
cp st/kernel-6.traceg a/b2/kernel-6.traceg
cp st/kernel-7.traceg a/b3/kernel-6.traceg
cp a/tr/kernelslist.g kl.keep
sed -i 's#^kernel-6.traceg$#../b2/kernel-6.traceg#; s#^kernel-7.traceg$#../b3/kernel-6.traceg#' a/tr/kernelslist.g
refused 4 "two listed traces are named kernel-6.traceg" "$KS" export census.json --to accelsim --traces a/tr -o a/out2
[ -e a/out2 ] && bad "a failed export left a/out2"
ls a | grep -q tmp && bad "a failed export left a temporary: $(ls a)"
refused 4 "two listed traces" "$KS" export census.json --to accelsim --traces a/tr -o a/out
[ -L a/out/kernel-3.traceg ] || bad "a failed export over an earlier one changed it"
cp kl.keep a/tr/kernelslist.g
# a folder of the user's is never replaced by an export
mkdir mine
echo notes >mine/notes.txt
refused 2 "holds .*notes.txt, which this export does not write" "$KS" export census.json --to accelsim --traces a/tr -o mine
[ "$(cat mine/notes.txt)" = notes ] || bad "the user's folder changed"
unchanged a/base

# --- numbers: what a simulator prints, at the line they are wrong ------------
# simlog PLAN CYCLES3 [EXTRA]: an Accel-Sim log of PLAN's sampled launches,
# uid 3's gpu_sim_cycle being CYCLES3 and EXTRA a line added to its block
awk -F, 'NR > 1 { print $3, $1 }' st/time.csv >names
simlog() {
    ids "$1" | awk -v bad="$2" -v extra="${3:-}" 'NR == FNR { n[$1] = $2; next } { u = FNR
        printf "kernel_name = %s\nkernel_launch_uid = %d\n", n[$1], u
        printf "gpu_sim_cycle = %s\ngpu_sim_insn = %d\n", u == 3 ? bad : 1000 + $1, 3000 + $1
        if (u == 3 && extra != "") print extra }' names -
}
for v in 1e300 1e308 1.5e3 18446744073709551616 99999999999999999999999 nan -nan inf ''; do
    simlog plan.json "$v" >num.log
    line=$(grep -n "^gpu_sim_cycle = $v\$" num.log | sed -n 2p | cut -d: -f1)
    [ -n "$line" ] || line=$(grep -n '^gpu_sim_cycle = ' num.log | sed -n 3p | cut -d: -f1)
    refused 4 "num.log:$line: gpu_sim_cycle: '$v' is" "$KS" estimate plan.json num.log
done
simlog plan.json 1500 "gpu_sim_cycle = 2000" >dup.log
refused 4 "dup.log:.*gpu_sim_cycle given a second time" "$KS" estimate plan.json dup.log
simlog plan.json 1500 "gpu_ipc = 2" >dup2.log
sed -i '0,/^gpu_sim_insn/s//gpu_ipc = 1\n&/' dup2.log
expect 0 "$KS" estimate plan.json dup2.log # one gpu_ipc a block
simlog plan.json 1500 "bwutil = 0.5" >chan.log
sed -i 's/^gpu_sim_insn = \(.*\)/gpu_sim_insn = \1\nbwutil = 0.25/' chan.log
expect 0 "$KS" estimate plan.json chan.log # per memory channel: the first kept
first=$(ids plan.json | head -1)
for v in 1e300 18446744073709551616 nan inf -1 ''; do
    printf 'id,gpu_sim_cycle\n%s,%s\n' "$first" "$v" >num.csv
    [ -z "$v" ] && continue
    refused 4 "num.csv:2: column gpu_sim_cycle: '$v'" "$KS" estimate plan.json num.csv
done
(echo id,gpu_sim_cycle,gpu_sim_cycle; ids plan.json | awk '{ print $1 ",5,6" }') >dupcol.csv
refused 4 "dupcol.csv:1: column gpu_sim_cycle is named twice" "$KS" estimate plan.json dupcol.csv
(echo id,gpu_sim_cycle; ids plan.json | awk '{ print $1 "," 1000 + $1 }'; echo 999,5) >beyond.csv
refused 4 "beyond.csv:[0-9]*: launch id 999 is beyond the plan's 40 launches" "$KS" estimate plan.json beyond.csv
refused 4 "launch id 999 is beyond" "$KS" refine plan.json beyond.csv -o refined.json
(echo id,gpu_sim_cycle; ids plan.json | awk '{ print $1 ",0" }') >zero.csv
expect 0 "$KS" estimate plan.json zero.csv
# never "0 +- 0 %, met": no relative error and no bound met, or no interval at all
grep -Eq "n/a  NOT met|no interval" "$T/out" || bad "all-zero values: $(tail -1 "$T/out")"
! grep -q " met$" "$T/out" || bad "all-zero values meet a bound: $(tail -1 "$T/out")"
expect 0 "$KS" estimate plan.json zero.csv --json
grep -Eq '"bound_met": (false|null)' "$T/out" || bad "all-zero --json: $(cat "$T/out")"
! grep -q '"bound_met": true' "$T/out" || bad "all-zero --json meets a bound: $(cat "$T/out")"
# score --truth reads through the same rule
(echo id,gpu_sim_cycle; awk -F, 'NR > 1 { print NR - 2 "," 1000 + NR }' st/time.csv) >truth.csv
sed '3s/,.*/,1e300/' truth.csv >truth-bad.csv
refused 4 "truth-bad.csv:3: column gpu_sim_cycle: '1e300'" "$KS" score st --plan-from truth.csv --truth truth-bad.csv --methods random
sed '8s/,.*/,/' truth.csv >truth-empty.csv
refused 4 "truth-empty.csv:8: launch 6 (its row's first line) has no value of gpu_sim_cycle" "$KS" score st --plan-from truth.csv --truth truth-empty.csv --methods random

# --- estimate --pilot: two or more of the plan's samples -------------------
(echo id,gpu_sim_cycle; ids plan.json | awk '{ print $1 "," 1000 + $1 }') >cold.csv
(echo id,gpu_sim_cycle; ids plan.json | head -1 | awk '{ print $1 "," 900 + $1 }') >pilot1.csv
refused 4 "pilot gives 1 launch; the cold-start correction needs two or more" "$KS" estimate plan.json cold.csv --pilot pilot1.csv
notsampled=$(awk -F, 'NR > 1 { print NR - 2 }' st/time.csv | grep -vxF -f "$(ids plan.json >sampled.txt; echo sampled.txt)" | head -1)
(echo id,gpu_sim_cycle; ids plan.json | head -2 | awk '{ print $1 "," 900 + $1 }'; echo "$notsampled,5") >pilot-other.csv
refused 4 "pilot-other.csv:4: pilot launch id $notsampled is not one of the plan's samples" "$KS" estimate plan.json cold.csv --pilot pilot-other.csv
(echo id,gpu_sim_cycle,x; ids plan.json | tail -2 | awk '{ print $1 "," 900 + $1 "," (NR == 1 ? 1 : "") }') >pilot-x.csv
(echo id,gpu_sim_cycle,x; ids plan.json | awk '{ print $1 "," 1000 + $1 ",1" }') >cold-x.csv
refused 4 "metric x: the pilot has 1 value of it" "$KS" estimate plan.json cold-x.csv --pilot pilot-x.csv
# (the last launches: a kernel's first launch, cold in the full run too, is never a pilot)
(echo id,gpu_sim_cycle; ids plan.json | tail -3 | awk '{ print $1 "," 900 + $1 }') >pilot3.csv
expect 0 "$KS" estimate plan.json cold.csv --pilot pilot3.csv
grep -q "pilot-corrected" "$T/out" || bad "a pilot of 3 corrected nothing: $(cat "$T/out")"

# --- run folders: one run at a time, reruns with the options they began with -
# stand-in Accel-Sim (not Accel-Sim): prints a block per listed kernel
# (its name from the trace header, cycles 1000 + N for kernel-N), after
# sleeping $2 seconds
cat >sim.sh <<'SIM'
sleep "${2:-0}"
echo "$1" >>"$(dirname "$0")/sim-calls"
u=0
grep '^kernel' "$1" | while read -r k; do
    u=$((u + 1)); n=${k#kernel-}; n=${n%%.*}
    name=$(sed -n 's/^-kernel name = //p' "$(dirname "$1")/$k" | head -1)
    printf 'kernel_name = %s\nkernel_launch_uid = %d\ngpu_sim_cycle = %d\ngpu_sim_insn = 10\n' "$name" "$u" $((1000 + n))
done
SIM
sim="sh $T/sim.sh {kernelslist}"
expect 0 "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none
cp r1/jobs/0000/sim.log first.log
refused 2 "run with --warmup none, this run has --warmup self" "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup self
refused 2 "run with --batch 1, this run has --batch 3" "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none --batch 3
refused 2 "run with --warmup none, this run has --warmup since-same:8" "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q
refused 2 "simulator command" "$KS" run plan.json --traces st --simulator "$sim x" -o r1 -q --warmup none
# a plan without the folder's launches (one with them all, as a refined plan
# or a census has, reuses its jobs: run_reuse.sh)
"$KS" sample st/time.csv --method random --seed 2 -o lone.json 2>/dev/null || bad "no lone.json"
refused 2 "not a plan refined from it" "$KS" run lone.json --traces st --simulator "$sim" -o r1 -q --warmup none
cmp -s first.log r1/jobs/0000/sim.log || bad "a refused rerun changed a finished job's log"
expect 0 "$KS" estimate plan.json r1
expect 0 "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none
# the same traces copied again (other times) are the same traces; a trace
# made again at the same path is not, once a job is done
cp -r st st-copy && rm -rf st && mv st-copy st
expect 0 "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none
k=$(grep -m1 '^kernel' st/kernelslist.g)
cp "st/$k" trace.bak
printf '\n' >>"st/$k"
refused 2 "holds other traces (its list" "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none
cp trace.bak "st/$k"
expect 0 "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none
# with no job done, a rerun with other options starts every job afresh
expect 1 "$KS" run plan.json --traces st --simulator "false {kernelslist}" -o r0 -q --warmup none
expect 0 "$KS" run plan.json --traces st --simulator "$sim" -o r0 -q --warmup self --batch 2
expect 0 "$KS" estimate plan.json r0
grep -q "^warm-up: self" "$T/out" || bad "the fresh rerun's warm-up: $(head -3 "$T/out")"
# an older manifest (without batch and remap) is compared through its jobs
sed -i '/"batch"/d; /"remap"/d; /"command"/d' r1/manifest.json
refused 2 "jobs (.*) are not this run's" "$KS" run plan.json --traces st --simulator "$sim" -o r1 -q --warmup none --batch 2
# two runs at once into one folder: the second is refused naming the first
: >sim-calls
"$KS" run plan.json --traces st --simulator "sh $T/sim.sh {kernelslist} 0.3" -o r2 -q --warmup none 2>r2.err &
first=$!
i=0
while [ ! -s sim-calls ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
refused 2 "in use by another 'ksample run' (pid $first on host" "$KS" run plan.json --traces st --simulator "sh $T/sim.sh {kernelslist} 0.3" -o r2 -q --warmup none
wait $first || bad "the first run failed: $(cat r2.err)"
[ "$(sort sim-calls | uniq -d | wc -l)" = 0 ] || bad "a job was simulated twice"
# a run folder's own names are never followed out of it
mkdir -p rl/jobs precious
echo data >precious/file
ln -s "$T/precious" rl/jobs/0000
refused 2 "rl/jobs/0000: is a symbolic link" "$KS" run plan.json --traces st --simulator "$sim" -o rl -q --warmup none
rm rl/jobs/0000 rl/lock
ln -s "$T/precious/file" rl/lock
refused 3 "rl/lock: cannot open the run folder's lock" "$KS" run plan.json --traces st --simulator "$sim" -o rl -q --warmup none
[ "$(cat precious/file)" = data ] && [ "$(ls precious)" = file ] || bad "a run wrote through a link in its folder"
# a preset's binary: made absolute as typed, checked before any job
mkdir cfg
echo "-gpgpu_ptx_sim_mode 0" >cfg/gpgpusim.config
printf '#!/bin/sh\necho ran\n' >fakesim
chmod +x fakesim
refused 2 "accelsim ./nosuch: no such program" "$KS" run plan.json --traces st --accelsim ./nosuch --config cfg -o r3 -q
[ -e r3 ] && bad "a run with a missing binary made its folder"
refused 2 "not an executable file" "$KS" run plan.json --traces st --accelsim ./cfg/gpgpusim.config --config cfg -o r3 -q
expect 0 "$KS" run plan.json --traces st --accelsim ./fakesim --config cfg -o r3 -q --warmup none
grep -q "^'$T/fakesim' -trace" r3/jobs/0000/cmd.sh || bad "the binary is not absolute: $(cat r3/jobs/0000/cmd.sh)"
grep -qx ran r3/jobs/0000/sim.log || bad "the job did not run the binary: $(cat r3/jobs/0000/sim.log)"

# --- what a new user types -------------------------------------------------
expect 0 "$KS" help sample
grep -q "^usage: ksample sample" "$T/out" || bad "help sample: $(head -2 "$T/out")"
refused 2 "unknown command 'samlpe'; did you mean 'ksample sample'" "$KS" samlpe st/time.csv
refused 2 "unknown command 'nosuch'" "$KS" help nosuch
refused 2 "unknown option --epsilom; did you mean --epsilon" "$KS" sample st/time.csv --epsilom 0.1
refused 2 "unknown option --warmpu; did you mean --warmup" "$KS" run plan.json --warmpu self
mkdir docs-out
expect 0 "$KS" --write-docs docs-out
comp=$(find docs-out -name ksample -path '*completions*' | head -1)
grep -q -- '--warmup) words="state none self same prev:1 since-same:8 .* context"' "$comp" ||
    bad "no --warmup values (state, the default, and estimate's context among them) in the completion"
grep -q -- '--state-lines) words="all auto dirty touched"' "$comp" || bad "no --state-lines values in the completion"
grep -q -- '--estimator) words="plain ratio regression auto"' "$comp" || bad "no --estimator values in the completion"
G="$SRC/tests/data/getstats/synth-k-K.csv.xz"
# (the recorded get_stats CSV is of a 160-launch program: read, then refused)
refused 4 "synth-k-K.csv.xz:[0-9]*: launch 40 is beyond the trace folder's 40 launches" "$KS" score st --plan-from "$G@SM7_QV100" --truth truth.csv --methods random --seeds 2 -q
# a cell that is no number: named by its row's kernel, statistic and configuration
xz -dc "$G" | sed '0,/^synth\/NO_ARGS--_Z9vec_scalePKfPffi--0,16384.0,/s//synth\/NO_ARGS--_Z9vec_scalePKfPffi--0,16x,/' >gsbad.csv
refused 4 "gsbad.csv:14: the cell of synth/NO_ARGS--_Z9vec_scalePKfPffi--0, gpu_sim_insn, configuration SM7_QV100: '16x' is not a number" "$KS" estimate plan.json gsbad.csv
refused 2 "a set named so is given already" "$KS" score st --plan-from truth.csv --truth truth.csv --warm w=truth.csv --warm w=truth.csv
refused 2 "@CONFIG picks a column of a get_stats.py CSV" "$KS" score st --plan-from st/time.csv@X --truth truth.csv
# a uid seen twice: the concurrent-streams hint only within one simulator run
printf 'GPGPU-Sim Simulator Version 4.2.0\nkernel_name = %s\nkernel_launch_uid = 1\ngpu_sim_cycle = 10\n' "$(awk 'NR == 1 { print $2 }' names)" >once.log
cat once.log once.log >runs.log
refused 4 "each simulator run in a log numbers its kernels from 1" "$KS" estimate plan.json runs.log --uid-base 1
grep -q "concurrent split" "$T/err" && bad "the concurrent hint for separate runs: $(cat "$T/err")"
sed '5d' runs.log >onerun.log
refused 4 "if kernels ran concurrently, --concurrent split" "$KS" estimate plan.json onerun.log --uid-base 1
# an Accel-Sim list's memory copies: the simulator reads the size unsigned
cp -r st stm
sed -i '0,/^MemcpyHtoD/s/^\(MemcpyHtoD,[^,]*\),.*/\1,-5/' stm/kernelslist.g
refused 4 "kernelslist.g:[0-9]*: 'MemcpyHtoD,.*,-5': a memory copy is" "$KS" info stm
refused 4 "a memory copy is" "$KS" export plan.json --to accelsim --traces stm -o stm-out
[ -e stm-out ] && bad "a refused export left stm-out"
# traces have no durations: info and sample speak of instructions
expect 0 "$KS" info st
grep -q "^instructions: " "$T/out" || bad "info on a trace folder: $(head -8 "$T/out")"
grep -q "total time:   0.000000" "$T/out" && bad "info on a trace folder prints 0 ns"
expect 0 "$KS" sample st --method sieve -o sieve.json
grep -q "infx" "$T/err" && bad "sieve: $(cat "$T/err")"
grep -q "predicted speedup [0-9.]*x by instructions" "$T/err" || bad "sieve: $(cat "$T/err")"
grep -q "their kernel's first launch in the program" "$T/err" || bad "no note of first launches: $(cat "$T/err")"

# --- MacSim: outputs through the links of an input trace folder ---------------
MSIM="$SHARED/sim/macsim-vectormultadd"
if [ -f "$MSIM/kernel_config.txt" ]; then
    macsim_traces "$MSIM"
    "$KS" sample m/tr --method sieve -o mp.json 2>/dev/null || exit 1
    snapshot m/vectormultadd m/tr
    K3=$(readlink m/tr/Kernel3)
    refused 2 "the target of the link m/tr/Kernel[0-9]* in the input folder m/tr" \
        "$KS" export mp.json --to ids -o m/tr/Kernel3/trace.txt
    refused 2 "the target of the link" "$KS" export mp.json --to macsim-tracer -o "$K3/trace.txt"
    refused 2 "the target of the link" "$KS" export mp.json --to ids -o "$K3/new.txt"
    refused 2 "the target of the link" "$KS" export mp.json --to macsim --traces m/tr -o m/tr/Kernel5
    refused 2 "the target of the link" "$KS" export mp.json --to macsim --traces m/tr -o "$K3/sub"
    refused 2 "holds /" "$KS" export mp.json --to macsim --traces m/tr -o m/vectormultadd
    refused 2 "the target of the link" "$KS" run mp.json --traces m/tr --simulator 'true {kernel_config}' -o "$K3/run"
    refused 2 "the target of the link" "$KS" sample m/tr --method sieve -o m/tr/Kernel7/trace.txt
    refused 2 "the target of the link" "$KS" sample m/tr --method sieve -o m/tr/Kernel7/p.json
    unchanged m/vectormultadd m/tr
    [ -e "$K3/new.txt" ] || [ -e "$K3/sub" ] || [ -e "$K3/run" ] && bad "a refused command wrote into a kernel folder"
    expect 0 "$KS" export mp.json --to macsim --traces m/tr -o mexp
    expect 0 "$KS" export mp.json --to macsim --traces m/tr -o mexp
    # the MacSim reader: a FIFO, an entry MacSim would read elsewhere, sizes
    cp -a m/tr mf
    rm mf/Kernel3
    mkdir mf/Kernel3
    mkfifo mf/Kernel3/trace.txt
    refused 4 "Kernel3/trace.txt: is not a regular file" timeout 10 "$KS" info mf
    rm -rf mf
    cp -a m/tr mf
    mkdir -p base
    cp -r "$(readlink m/tr/Kernel2)" base/Kernel1
    sed -i 's#^./Kernel1/trace.txt$#../base/Kernel1/trace.txt#' mf/kernel_config.txt
    refused 4 "kernel_config.txt:5: '../base/Kernel1/trace.txt': MacSim reads ./Kernel1/trace.txt" "$KS" info mf
    rm -rf mf
    expect 0 "$KS" info m/tr
    grep -q "kernel@0x[0-9a-f]*<128 warps>" "$T/out" && grep -q "kernel@0x[0-9a-f]*<512 warps>" "$T/out" ||
        bad "MacSim names without sizes: $(tail -4 "$T/out")"
    grep -q "^warps: " "$T/out" || bad "MacSim info without warps: $(head -8 "$T/out")"
    # the README's recipe: a trace folder composed from kernel folders and a list
    tail -n +2 "$MSIM/composition.csv" | cut -d, -f4 | sed "s#^#$T/m/#" >launches.txt
    mkdir mtraces
    printf 'nvbit\n14\n-1\n' >mtraces/kernel_config.txt
    n=0
    while read -r kernel_folder; do
        ln -s "$(realpath "$kernel_folder")" mtraces/Kernel$n
        echo "./Kernel$n/trace.txt" >>mtraces/kernel_config.txt
        n=$((n + 1))
    done <launches.txt
    expect 0 "$KS" info mtraces
    grep -q "^invocations:  157" "$T/out" || bad "the README's composed folder: $(head -4 "$T/out")"
    # --uid-base: a whole-program log of another program, or of other launches
    xz -dc "$MSIM/full_base.out.xz" >mfull.log
    expect 0 "$KS" estimate mp.json mfull.log --uid-base 1
    grep -q "^warm-up: context (--uid-base" "$T/out" || bad "--uid-base's warm-up is not said as computed: $(grep warm-up "$T/out")"
    sed 's#/Kernel5/trace.txt#/Kernel6/trace.txt#' mfull.log >mswap.log
    refused 4 "mswap.log:[0-9]*: kernel 6 of this run is .*Kernel6/trace.txt' (another launch), but --uid-base 1 says launch 5" "$KS" estimate mp.json mswap.log --uid-base 1
    refused 4 "this run simulated 157 kernels, but with --uid-base 1 a whole-program run of the plan's 40 launches has 40" "$KS" estimate plan.json mfull.log --uid-base 1
else
    echo "SKIP: $MSIM absent, MacSim cases skipped"
fi

summary
