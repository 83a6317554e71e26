#!/bin/sh
# hostile_runs.sh - issue 41's hostile pass on run folders, the warm state
# and the simulator outputs, end to end: each check misbehaved on af632d7.
# usage: tests/hostile_runs.sh path/to/ksample path/to/source-root
KS=$1
ROOT=$(cd "$2" && pwd)
SHARED="$ROOT/../shared/data"
. "$(dirname "$0")/lib.sh"

# intact FILE SUM: FILE still has cksum SUM
intact() { [ "$(cksum <"$1")" = "$2" ] || bad "$1 was changed: $(head -c 100 "$1")"; }

cd "$T" || exit 1
"$KS" synth --traces syn -n 20 --seed 3 2>/dev/null || exit 1
"$KS" sample syn/time.csv --method random --seed 4 -o plan.json 2>/dev/null || exit 1
first=$(grep -o '"id": [0-9]*' plan.json | head -1 | sed 's/"id": //')
N=$((first + 1))
echo "the user's own file" >victim
mkdir userdir
echo keep >userdir/a
echo keep >userdir/b
vsum=$(cksum <victim)
psum=$(cksum <plan.json)
cp plan.json pristine.json # each part below starts from it, whatever an earlier part did
# a simulator that fails (so a rerun redoes every job), and one that answers
# the state:memcpy probe with hits
printf '#!/bin/sh\nexit 1\n' >fail.sh
printf '#!/bin/sh\necho "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 16"\n' >probe-hits.sh
chmod +x fail.sh probe-hits.sh

# --- 1. nothing written or removed through a link inside a run folder -----
# the warm-up kernel of a job: written through a link to plan.json on af632d7
expect 1 "$KS" run plan.json --traces syn --simulator "$T/fail.sh {kernelslist}" \
    --warmup state --l2-size 4M -o r1 -q
[ -f "r1/jobs/0000/kernel-ksample-state-$N.traceg" ] || bad "no warm-up kernel in the job"
ln -sf "$T/plan.json" "r1/jobs/0000/kernel-ksample-state-$N.traceg"
"$KS" run plan.json --traces syn --simulator "$T/fail.sh {kernelslist}" \
    --warmup state --l2-size 4M -o r1 -q >/dev/null 2>&1
intact plan.json "$psum"
[ -L "r1/jobs/0000/kernel-ksample-state-$N.traceg" ] && bad "the carrier link stayed"
# a job folder, and the jobs folder, that are links: refused, nothing written
rm -rf r1/jobs/0000 && ln -s "$T/userdir" r1/jobs/0000
refused 2 "symbolic link" "$KS" run plan.json --traces syn --simulator "$T/fail.sh {kernelslist}" \
    --warmup state --l2-size 4M -o r1 -q
[ "$(ls userdir)" = "a
b" ] || bad "a job folder link led writes into userdir: $(ls userdir)"
mkdir r2 && ln -s "$T/userdir" r2/jobs
refused 2 "symbolic link" "$KS" run plan.json --traces syn --simulator "$T/fail.sh {kernelslist}" \
    --warmup none -o r2 -q
[ "$(ls userdir)" = "a
b" ] || bad "a jobs folder link led writes into userdir: $(ls userdir)"
# the state:memcpy probe's files and folder
expect 0 "$KS" run plan.json --traces syn --simulator "$T/probe-hits.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r3 -q
[ -f r3/probe/kernelslist.g ] || bad "no probe list"
ln -sf "$T/victim" r3/probe/kernelslist.g
ln -sf "$T/victim" r3/probe/kernel-ksample-state-1.traceg
ln -sf "$T/victim" r3/probe/sim.log
"$KS" run plan.json --traces syn --simulator "$T/probe-hits.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r3 -q >/dev/null 2>&1
intact victim "$vsum"
[ -L r3/probe/kernelslist.g ] && bad "the probe list link stayed"
rm -rf r3/probe && ln -s "$T/userdir" r3/probe
refused 2 "symbolic link" "$KS" run plan.json --traces syn --simulator "$T/probe-hits.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r3 -q
[ "$(ls userdir)" = "a
b" ] || bad "a probe folder link led writes into userdir: $(ls userdir)"

# --- 2. a rerun of another simulated machine ------------------------------
cp pristine.json plan.json
printf '#!/bin/sh\necho done\n' >ok.sh
chmod +x ok.sh
printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 16\n' >gpu.config
expect 0 "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --sim-config gpu.config -o r4 -q
grep -q '"config_xxh128"' r4/manifest.json || bad "the manifest records no configuration digest"
# 4 MB -> 1 MB of L2 at the same path: refused, not mixed
printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 4\n' >gpu.config
refused 2 "configuration" "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --sim-config gpu.config -o r4 -q
printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 16\n' >gpu.config
expect 0 "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --sim-config gpu.config -o r4 -q

# --- 3. debris: a refused run makes no folder; an interrupted export's ------
# temporary goes at the next export
cp pristine.json plan.json
printf -- '-gpgpu_n_mem 4\n' >nodl2.config
refused 4 "gpgpu_cache:dl2" "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --sim-config nodl2.config -o r5 -q
[ -e r5 ] && bad "a run refused for its configuration left $(find r5 | tr '\n' ' ')"
"$KS" synth --traces other --preset large 2>/dev/null || bad "no other traces"
refused 4 "is profile launch" "$KS" run plan.json --traces other --profile syn/time.csv \
    --simulator "$T/ok.sh {kernelslist}" --warmup none -o r6 -q
[ -e r6 ] && bad "a run refused on another workload's traces left $(find r6 | tr '\n' ' ')"
"$KS" synth --traces tiny -n 4 --seed 3 2>/dev/null || bad "no tiny traces"
refused 4 "trace folder has 4 launches" "$KS" run plan.json --traces tiny \
    --simulator "$T/ok.sh {kernelslist}" --warmup none -o r6 -q
[ -e r6 ] && bad "a run refused on too few traces left $(find r6 | tr '\n' ' ')"
# a run that stops during the warm-state walk (here at a bad trace line, as
# at a signal) leaves a folder status reads: the manifest comes first
cp -r syn cor
sed '25s/.*/0000 zz ffffffff 1 R1 LDG.E 2 R2 R3 4 1 0x0/' syn/kernel-3.traceg >cor/kernel-3.traceg
refused 4 "bad mask field" "$KS" run plan.json --traces cor --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --l2-size 4M -o r12 -q
expect 0 "$KS" status r12
# a folder an export killed by SIGKILL left (pid 2^22 + 1 exists on no Linux)
mkdir -p ex.tmp.4194305.0 && echo part >ex.tmp.4194305.0/kernelslist.g
expect 0 "$KS" export plan.json --to accelsim --traces syn -o ex
[ -e ex.tmp.4194305.0 ] && bad "an interrupted export's temporary folder stayed"
[ -f ex/kernelslist.g ] || bad "no export"

# --- 4. simulator outputs read wrong without a word ------------------------
(echo name,duration_ns; i=0; while [ $i -lt 20 ]; do echo k,$((1000 + i % 7)); i=$((i + 1)); done) >k.csv
"$KS" sample k.csv --method random --fraction 0.3 --seed 1 -o pk.json 2>/dev/null || bad "no plan of k.csv"
nk=$(grep -c '"id":' pk.json)
# simlog MISSES_OF_UID_3 [CUT]: an Accel-Sim log of pk.json's launches, each
# block closed by gpgpu_simulation_time as GPGPU-Sim prints it; CUT: the
# last block ends after gpu_sim_cycle (nocycle: has none)
simlog() {
    echo "GPGPU-Sim Simulator Version 4.2.0"
    i=1
    while [ $i -le "$nk" ]; do
        printf 'kernel_name = k\nkernel_launch_uid = %d\n' $i
        if [ $i = "$nk" ] && [ "${2:-}" = nocycle ]; then
            printf 'gpu_sim_insn = 500\n'
        else
            printf 'gpu_sim_cycle = 1000\n'
        fi
        if [ $i != "$nk" ] || [ -z "${2:-}" ]; then
            printf 'gpu_sim_insn = 500\ngpu_ipc = 0.5\nL2_total_cache_accesses = %d\n' $((i * 100))
            printf 'L2_total_cache_misses = %d\n' $([ $i = 3 ] && echo "$1" || echo $((i * 50)))
            printf 'gpgpu_simulation_time = 0 days, 0 hrs, 0 min, 1 sec (1 sec)\n'
        fi
        i=$((i + 1))
    done
}
simlog 150 >good.log
expect 0 "$KS" estimate pk.json good.log --values
cp "$T/out" good.csv
expect 0 "$KS" estimate pk.json good.csv --metric L2_total_cache_misses
# a running total that falls: its values are dropped and the note says so
# (af632d7 gave -90 for one launch, a CSV estimate itself refuses)
simlog 10 >fall.log
expect 0 "$KS" estimate pk.json fall.log --values
grep -q -- ',-' "$T/out" && bad "negative per-launch values: $(cat "$T/out")"
grep -q "L2_total_cache_misses, a running total, falls there" "$T/err" || bad "the fall is not said: $(cat "$T/err")"
cp "$T/out" fall.csv
expect 0 "$KS" estimate pk.json fall.csv
# a log cut inside its last block, or a block without gpu_sim_cycle
simlog 150 cut >cut.log
refused 4 "ends inside the statistics block" "$KS" estimate pk.json cut.log
simlog 150 nocycle >nocycle.log
refused 4 "has no gpu_sim_cycle" "$KS" estimate pk.json nocycle.log

# --- 5. configurations read as the simulator reads them, or refused -------
cp pristine.json plan.json
for v in 1.6e1 4K 16abc 4294967312 -16 0x10; do
    printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem %s\n' "$v" >num.config
    refused 4 "gpgpu_n_mem" "$KS" export plan.json --to accelsim --traces syn -o exn \
        --warmup state --sim-config num.config
done
# a line longer than 1,023 bytes is read whole: its option is not lost
{ printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 1\n'
  printf '%1100s' ''
  printf -- '-gpgpu_n_mem 16\n'; } >long.config
expect 0 "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --sim-config long.config -o r7
grep -q "L2 of 1048576 bytes" "$T/err" || bad "the long line was cut: $(cat "$T/err")"

# --- 7. no hang: FIFOs where a file is expected, a copy of 2^64 - 1 bytes ---
# (a profile may come through a named pipe on purpose: test_read_sqlite)
mkfifo fifo
for cmd in "estimate pk.json fifo" "estimate fifo good.log" \
    "export plan.json --to accelsim --traces syn -o exf --warmup state --sim-config fifo" \
    "run plan.json --traces syn --simulator true{kernelslist} --warmup state --sim-config fifo -o rf" \
    "report k.csv --score fifo -o x.html" \
    "score pk.json --truth fifo -o s.json" \
    "sample syn/time.csv --traces syn --method gcl --model fifo -o pg.json"; do
    # shellcheck disable=SC2086
    timeout 20 "$KS" $cmd >/dev/null 2>"$T/err"
    rc=$?
    [ $rc = 124 ] && bad "$cmd waits on a FIFO"
    [ $rc = 0 ] && bad "$cmd took a FIFO"
done
mkdir -p rfifo/jobs/0000 && mkfifo rfifo/jobs/0000/status && cp r4/manifest.json rfifo/
timeout 20 "$KS" status rfifo >/dev/null 2>&1
[ $? = 124 ] && bad "status waits on a FIFO status file"
rm rfifo/jobs/0000/status && mkdir rfifo/slurm && mkfifo rfifo/slurm/job_id
timeout 20 "$KS" status rfifo >/dev/null 2>&1
[ $? = 124 ] && bad "status waits on a FIFO slurm/job_id"
timeout 20 "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" --warmup none \
    -o rfifo -q >/dev/null 2>&1
[ $? = 124 ] && bad "run waits on a FIFO slurm/job_id"
cp -r syn huge
{ echo "MemcpyHtoD,0x0000000000000000,18446744073709551615"; cat syn/kernelslist.g; } >huge/kernelslist.g
timeout 60 "$KS" export plan.json --to accelsim --traces huge -o exh --warmup state:memcpy --l2-size 4M \
    >/dev/null 2>"$T/err"
rc=$?
[ $rc = 124 ] && bad "a MemcpyHtoD of 2^64 - 1 bytes ran for ever"
[ $rc = 0 ] || bad "a MemcpyHtoD of 2^64 - 1 bytes: exit $rc: $(head -c 300 "$T/err")"

# report --score: 60,000 series drawn in seconds (quadratic on af632d7:
# 40,000 took 26 s; the limit below is a hang guard, not a timing)
# scores N SPEEDUP ERROR: a score file of N methods of one point each
scores() {
    awk -v n="$1" -v sp="$2" -v er="$3" 'BEGIN { printf "{\"truth\": 1000, \"methods\": [\n"
        for (i = 0; i < n; i++)
            printf "%s{\"method\": \"m%d\", \"bound\": 0, \"plans\": 1, \"sets\": [{\"values\": \"context\", \"launches_mean\": 8, \"launches_max\": 8, \"pilot_mean\": 0, \"speedup_hmean\": %s, \"error_mean\": %s, \"error_signed_mean\": 0, \"error_max\": 0, \"coverage\": null, \"within_bound\": null, \"met\": 0, \"met_true\": null, \"halfwidth_mean\": null, \"refused\": 1, \"rounds_mean\": 0, \"interval\": \"none\"}]}\n", i ? "," : "", i, (i % 2) ? 2 + i % 7 : sp, (i % 3) ? 0.01 : er
        printf "]}\n" }'
}
scores 60000 1.5 0.02 >many.json
timeout 40 "$KS" report k.csv --iters 0 --score many.json -o many.html 2>/dev/null
rc=$?
[ $rc = 124 ] && bad "report --score with 60,000 series ran past 40 s"
[ $rc = 0 ] || bad "report --score with 60,000 series: exit $rc"
[ "$(grep -c '<tr class="score-row">' many.html)" = 60000 ] || bad "not every score row in the table"

# --- 9. smaller ones ----------------------------------------------------------
# finite extremes give no nan coordinates in the SVG
for pair in "1.7e308 0.01" "1.5 1.7e306" "1e-10 1.7e306"; do
    # shellcheck disable=SC2086
    scores 1 $pair >ext.json
    expect 0 "$KS" report k.csv --iters 0 --score ext.json -o ext.html
    grep -q nan ext.html && bad "nan in the SVG for a score point at $pair"
done

# the state:memcpy probe: an earlier verdict is reused, and no probe runs
# before a rerun's options are checked
for v in 0 16; do
    printf '#!/bin/sh\necho run >>"%s/probe-count"\necho "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = %s"\n' \
        "$T" "$v" >probe-$v.sh
    chmod +x probe-$v.sh
done
expect 0 "$KS" run plan.json --traces syn --simulator "$T/probe-0.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r10
grep -q "state goes in a warm-up kernel" "$T/err" || bad "no fallback note: $(cat "$T/err")"
runs=$(grep -c run probe-count)
expect 0 "$KS" run plan.json --traces syn --simulator "$T/probe-0.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r10 -q
[ "$(grep -c run probe-count)" = "$runs" ] || bad "the probe ran again for the same command"
rm -rf r10/probe # no verdict: the probe decides the carrier again, the rerun goes on
expect 0 "$KS" run plan.json --traces syn --simulator "$T/probe-0.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r10 -q
expect 0 "$KS" run plan.json --traces syn --simulator "$T/probe-16.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M -o r11 -q
rm -rf r11/probe
runs=$(grep -c run probe-count)
refused 2 "batch" "$KS" run plan.json --traces syn --simulator "$T/probe-16.sh {kernelslist}" \
    --warmup state:memcpy --l2-size 4M --batch 2 -o r11 -q
[ "$(grep -c run probe-count)" = "$runs" ] || bad "a probe ran before the rerun's options were checked"

# the default --state-cut spelled out on a rerun is the default
expect 0 "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --l2-size 4M -o r8 -q
expect 0 "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --l2-size 4M --state-cut 2 -o r8 -q
refused 2 "cut 3" "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --l2-size 4M --state-cut 3 -o r8 -q
# a cut the model cannot hold: refused naming the option, before any folder
refused 2 "state-cut 64 x an L2" "$KS" run plan.json --traces syn --simulator "$T/ok.sh {kernelslist}" \
    --warmup state --l2-size 64G --state-cut 64 -o r9 -q
[ -e r9 ] && bad "a refused cut left the run folder"
# score --truth twice: refused (the first copy leaked, the second won)
refused 2 "given twice" "$KS" score syn --plan-from pk.json --truth good.log --truth fall.log
# a trace the list names that is a FIFO or folder: said so, not "not in"
cp -r syn odd && rm odd/kernel-1.traceg && mkfifo odd/kernel-1.traceg
refused 3 "is a FIFO, not a regular file" "$KS" info odd
# synth --traces DIR -o FILE: -o was ignored
refused 2 "time.csv" "$KS" synth --traces s2 -n 4 -o s2.csv
[ -e s2 ] && bad "synth wrote traces with an -o it ignored"
# train on a list of memory copies only: the input's fault (4), not an option's
mkdir copies && printf 'MemcpyHtoD,0x0000000000001000,4096\n' >copies/kernelslist.g
refused 4 "no kernel launch" "$KS" train --traces copies -o c.ksm --epochs 1
# the MacSim tracer list of a plan without a bound says none
expect 0 "$KS" export pk.json --to macsim-tracer -o pk.txt
grep -q "Bound: none" pk.txt || bad "macsim-tracer bound line: $(sed -n 2p pk.txt)"
grep -q "at 0% confidence" pk.txt && bad "a bound of 0% at 0% confidence"

# --- 6. 64-bit counts: 2^64 - 1 read, --values printed without an exponent --
(echo id,gpu_sim_cycle,gpu_sim_insn,rate
 for i in $(grep -o '"id": [0-9]*' pk.json | sed 's/"id": //'); do
     echo "$i,18446744073709551615,12345678901234567890,0.000000000000000000123"
 done) >big.csv
expect 0 "$KS" estimate pk.json big.csv --values
grep -q 'e+\|e-' "$T/out" && bad "--values printed an exponent: $(head -2 "$T/out")"
grep -q ',18446744073709551615,' "$T/out" || bad "2^64 - 1 not printed as such: $(head -2 "$T/out")"
cp "$T/out" big2.csv
expect 0 "$KS" estimate pk.json big2.csv --values

# MacSim's warm-up kernel folder replaced by a link: af632d7 unlinked every
# file of the link's target before failing
MSIM="$SHARED/sim/macsim-vectormultadd"
if [ -f "$MSIM/kernel_config.txt" ]; then
    macsim_traces "$MSIM"
    printf 'num_sim_cores 16\nnum_llc 12\nllc_num_set 128\nllc_line_size 128\nllc_assoc 24\n' >params.in
    "$KS" sample m/tr --method sieve -o mplan.json 2>/dev/null || bad "no MacSim plan"
    mfirst=$(grep -o '"id": [0-9]*' mplan.json | head -1 | sed 's/"id": //')
    expect 1 "$KS" run mplan.json --traces m/tr --macsim "$T/fail.sh" --params params.in \
        --warmup state -o mr -q
    d="mr/jobs/0000/ksample-state-$((mfirst + 1))"
    [ -f "$d/trace.txt" ] || bad "no MacSim warm-up folder"
    rm -rf "$d" && ln -s "$T/userdir" "$d"
    "$KS" run mplan.json --traces m/tr --macsim "$T/fail.sh" --params params.in \
        --warmup state -o mr -q >/dev/null 2>&1
    [ "$(ls userdir)" = "a
b" ] || bad "a MacSim rerun emptied the folder a warm-up link led to: $(ls userdir)"
    [ -f "$d/trace.txt" ] && [ ! -L "$d" ] || bad "the warm-up folder was not rebuilt"
    # the temporary folder beside it, a link too
    ln -s "$T/userdir" "$d.tmp"
    "$KS" run mplan.json --traces m/tr --macsim "$T/fail.sh" --params params.in \
        --warmup state -o mr -q >/dev/null 2>&1
    [ "$(ls userdir)" = "a
b" ] || bad "the warm-up folder's temporary led writes into userdir: $(ls userdir)"
else
    echo "SKIP: $MSIM absent, the MacSim warm-up folder is not checked"
fi

summary
