#!/bin/sh
# slurm.sh - `ksample run` end to end (the engines, so --warmup none: warm-up
# is loop.sh's), then `ksample estimate` of its run
# folder: a synthetic traced workload (`ksample synth --traces`) is planned
# with ROOT and its sampled kernels run as jobs through the local engine,
# then through a real single-node Slurm started here (munged, slurmctld and
# slurmd as root, private state under /tmp).
#
# The simulator is a STAND-IN: Accel-Sim cannot run here.  standin-accelsim.sh
# reads the kernelslist.g each job is given and prints, for each listed
# kernel-N.traceg, an Accel-Sim statistics block (kernel_launch_uid = its
# 1-based position in the job's list) with gpu_sim_cycle and gpu_sim_insn
# computed from N, so the values are known in advance: the estimate from the
# run folder must equal the estimate from those values given as a CSV.
#
# usage: tests/slurm.sh path/to/ksample source-root
# Exit 77 (skip) when Slurm cannot be installed or started: the local part
# has passed by then and says so.
set -u
KS=$1
T=$(mktemp -d /tmp/ks_slurm_XXXXXX)
chmod 755 "$T"
PIDS=""
cleanup() {
    if [ -n "$PIDS" ]; then
        SLURM_CONF="$T/slurm.conf" scancel --quiet --user=root >/dev/null 2>&1
        for p in $PIDS; do kill "$p" 2>/dev/null; done
        for p in $PIDS; do
            i=0
            while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
            kill -9 "$p" 2>/dev/null
        done
    fi
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
failed=0
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# --- a traced workload and a plan of at least 20 kernels ----------------------
"$KS" synth --traces "$T/tr" -n 60 --seed 7 2>/dev/null || exit 1
# (STEM: ROOT's optimal strata need fewer than 20 kernels of this workload)
for eps in 0.2 0.1 0.05; do
    "$KS" sample "$T/tr/time.csv" --method stem --epsilon $eps -o "$T/plan.json" 2>/dev/null || exit 1
    "$KS" export "$T/plan.json" --to ids -o "$T/ids.txt" 2>/dev/null || exit 1
    [ "$(wc -l <"$T/ids.txt")" -ge 20 ] && break
done
NIDS=$(wc -l <"$T/ids.txt")
[ "$NIDS" -ge 20 ] || bad "the plan has only $NIDS samples at epsilon $eps"
# kernel-N.traceg is plan id N - 1
FAIL_POS=4
FAIL_FILE=kernel-$(($(sed -n "$((FAIL_POS + 1))p" "$T/ids.txt") + 1)).traceg

cat >"$T/standin-accelsim.sh" <<'SIM'
#!/bin/sh
# STAND-IN for Accel-Sim (which cannot run here).  usage: LIST OUTDIR FAIL_FILE FLAG CALLS
# For each kernel-N.traceg that LIST names, in order, an Accel-Sim block with
# kernel_launch_uid = its 1-based position, gpu_sim_cycle = 1000 + (N * 7919)
# mod 5000 and gpu_sim_insn = 3 * cycles + N.  Exits 3 on FAIL_FILE while
# the file FLAG exists.
echo "$1" >>"$5"
echo "Accel-Sim [build stand-in]"
uid=0
while IFS= read -r line; do
    case "$line" in
    kernel-*.traceg*) ;;
    *) continue ;;
    esac
    file=${line##*/}
    if [ "$file" = "$3" ] && [ -e "$4" ]; then
        echo "standin-accelsim: deliberate failure on $file" >&2
        exit 3
    fi
    n=${file#kernel-}
    n=${n%%.traceg*}
    uid=$((uid + 1))
    cycles=$((1000 + (n * 7919) % 5000))
    # the kernel's name as its trace header gives it (estimate checks it)
    echo "kernel_name = $(sed -n 's/^-kernel name = //p' "$(dirname "$1")/$line" | head -1)"
    echo "kernel_launch_uid = $uid"
    echo "gpu_sim_cycle = $cycles"
    echo "gpu_sim_insn = $((3 * cycles + n))"
done <"$1"
SIM
SIM_CMD="sh $T/standin-accelsim.sh {kernelslist} {outdir} $FAIL_FILE $T/fail $T/calls.log"

# the same values given directly: id,gpu_sim_cycle,gpu_sim_insn
{
    echo "id,gpu_sim_cycle,gpu_sim_insn"
    while read -r id; do
        n=$((id + 1))
        cycles=$((1000 + (n * 7919) % 5000))
        echo "$id,$cycles,$((3 * cycles + n))"
    done <"$T/ids.txt"
} >"$T/values.csv"
"$KS" estimate "$T/plan.json" "$T/values.csv" --traces "$T/tr" --warmup none --json >"$T/direct.json" 2>"$T/err" ||
    bad "estimate of values.csv: $(cat "$T/err")"
grep -q '"metric": "gpu_sim_cycle", .*"estimate": [1-9]' "$T/direct.json" || bad "no cycle estimate: $(cat "$T/direct.json")"

# check_run ENGINE RUNDIR BATCH [options]: a failing job, status, estimate
# refused, then a rerun of only that job and the estimate
check_run() {
    engine=$1
    rd=$2
    batch=$3
    shift 3
    njobs=$(((NIDS + batch - 1) / batch))
    fjob=$((FAIL_POS / batch))
    fdir=$(printf 'jobs/%04d' $fjob)
    : >"$T/calls.log"
    touch "$T/fail"
    "$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --simulator "$SIM_CMD" -o "$rd" --engine "$engine" \
        --batch "$batch" "$@" >"$T/out" 2>&1
    rc=$?
    [ $rc = 1 ] || bad "$engine: a failing job should give exit 1, got $rc: $(cat "$T/out")"
    grep -q "run $rd: $njobs jobs[^,]*, $((njobs - 1)) done now, 0 done before, 1 failed" "$T/out" ||
        bad "$engine first run: $(head -3 "$T/out")"
    grep -q "job $fjob ($fdir) failed with exit code 3" "$T/out" &&
        grep -q "deliberate failure on $FAIL_FILE" "$T/out" ||
        bad "$engine: the failed job is not reported: $(cat "$T/out")"
    [ "$(wc -l <"$T/calls.log")" = "$njobs" ] || bad "$engine ran $(wc -l <"$T/calls.log") jobs, wanted $njobs"
    "$KS" status "$rd" >"$T/status" 2>&1 || bad "$engine: status failed: $(cat "$T/status")"
    grep -q "$njobs jobs: $((njobs - 1)) done, 1 failed, 0 started, 0 interrupted, 0 pending" "$T/status" ||
        bad "$engine: status summary: $(cat "$T/status")"
    grep -q "failed: job $fjob ($fdir), exit code 3" "$T/status" || bad "$engine: status lists no failed job"
    grep -q "deliberate failure on $FAIL_FILE" "$T/status" || bad "$engine: status shows no log tail"
    "$KS" status --json "$rd" | grep -q "\"failed_jobs\": \[{\"job\": $fjob, \"dir\": \"$fdir\", \"exit_code\": 3}\]" ||
        bad "$engine: status --json"
    # no estimate from a run with a failed job, and the job is named
    "$KS" estimate "$T/plan.json" "$rd" --json >"$T/est" 2>"$T/err"
    [ $? = 4 ] && grep -q "incomplete run: 1 of $njobs jobs not done (1 failed): $fdir (failed, exit 3)" "$T/err" ||
        bad "$engine: estimate of a run with a failed job: $(cat "$T/est" "$T/err")"
    # the rerun runs only the failed job
    rm -f "$T/fail"
    : >"$T/calls.log"
    "$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --simulator "$SIM_CMD" -o "$rd" --engine "$engine" \
        --batch "$batch" "$@" >"$T/out" 2>&1 || bad "$engine rerun: $(cat "$T/out")"
    grep -q "run $rd: $njobs jobs[^,]*, 1 done now, $((njobs - 1)) done before, 0 failed" "$T/out" ||
        bad "$engine rerun: $(head -3 "$T/out")"
    [ "$(wc -l <"$T/calls.log")" = 1 ] || bad "$engine rerun ran $(wc -l <"$T/calls.log") jobs, wanted 1"
    "$KS" status "$rd" | grep -q "$njobs jobs: $njobs done, 0 failed" || bad "$engine: status after rerun"
    check_estimate "$engine" "$rd"
}

# ksample estimate PLAN RUNDIR --json equals the estimate of values.csv given
# with --warmup none and the run's traces (a run folder records "none" and its
# traces, which the instruction counts are checked against; and but for run_cycles,
# which a run folder of one launch per job adds, and the cost it measures)
check_estimate() {
    "$KS" estimate "$T/plan.json" "$2" --json 2>"$T/err" |
        sed 's/"warmup": "none", //; s/, "cost": {[^}]*}//' |
        grep -v '"metric": "run_cycles"' >"$T/est" ||
        bad "$1: estimate: $(cat "$T/err")"
    sed 's/"warmup": "none", //; s/, "cost": {[^}]*}//' "$T/direct.json" >"$T/direct-values.json"
    cmp -s "$T/est" "$T/direct-values.json" ||
        bad "$1: estimate of the run folder differs from that of the values: $(diff "$T/est" "$T/direct-values.json" | head -5 | cut -c1-200)"
}

# batches of 3: uids restart at 1 in every job's list
check_run local "$T/run-local" 3 -j 2
grep -q '"plan_xxh128": "[0-9a-f]\{32\}"' "$T/run-local/manifest.json" || bad "manifest has no plan digest"
[ -e "$T/run-local/jobs/0000/cmd.sh" ] || bad "no cmd.sh"
# a run folder that is not one is refused with its name
"$KS" status "$T/nonexistent" 2>"$T/err"
[ $? = 3 ] && grep -q "nonexistent/manifest.json" "$T/err" || bad "status of a missing run: $(cat "$T/err")"
if [ $failed -ne 0 ]; then
    echo "$failed check(s) failed (local engine)"
    exit 1
fi
echo "local engine: $NIDS kernels in batches of 3, failure reported and refused by estimate, rerun skipped finished jobs, estimate of the run = estimate of the values"

# --- a private single-node Slurm --------------------------------------------
skip() {
    echo "SKIP slurm part: $*"
    for f in slurmctld.log slurmd.log munged.log; do [ -f "$T/$f" ] && tail -5 "$T/$f"; done
    exit 77
}
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        # (make test installs them first: scripts/deps.sh --test); apt waits
        # for the package lock rather than failing when another install runs
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
            slurm-wlm munge >/dev/null 2>&1 ||
            skip "slurm-wlm and munge are not installed and apt-get could not install them"
    else
        skip "slurm-wlm and munge are not installed (apt-get install slurm-wlm munge, as root)"
    fi
fi
[ "$(id -u)" = 0 ] || skip "the test starts slurmd, which needs root"
HOST=$(hostname -s)
PORT=$((20000 + $$ % 20000))
mkdir -p "$T/state" "$T/spool" "$T/munge"
chmod 755 "$T/munge"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$T/munge.key"
munged -F -f --socket="$T/munge/sock" --key-file="$T/munge.key" --log-file="$T/munged.log" \
    --pid-file="$T/munged.pid" --seed-file="$T/munged.seed" >/dev/null 2>&1 &
PIDS="$!"
cat >"$T/slurm.conf" <<EOF2
ClusterName=kstest
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge/sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
NodeName=$HOST CPUs=$(nproc) State=UNKNOWN
PartitionName=kstest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF2
export SLURM_CONF="$T/slurm.conf"
i=0
until munge -S "$T/munge/sock" -n >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 50 ] || skip "munged did not start"
    sleep 0.1
done
slurmctld -D -f "$T/slurm.conf" >"$T/slurmctld.out" 2>&1 &
PIDS="$PIDS $!"
slurmd -D -f "$T/slurm.conf" -N "$HOST" >"$T/slurmd.out" 2>&1 &
PIDS="$PIDS $!"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q '^idle'; do
    i=$((i + 1))
    [ $i -lt 60 ] || skip "slurmctld/slurmd did not bring the node up within 30 s"
    sleep 0.5
done

check_run slurm "$T/run-slurm" 1 --partition kstest --throttle 8
ls "$T/run-slurm/slurm/"array-*.sh >/dev/null 2>&1 || bad "no array script kept"
grep -q '^[0-9]' "$T/run-slurm/slurm/job_id" || bad "no job id recorded"

# return at once, then follow with `ksample status`
"$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --simulator "$SIM_CMD" -o "$T/run-nowait" --engine slurm \
    --batch 2 --no-wait >"$T/out" 2>&1 || bad "no-wait: $(cat "$T/out")"
NJ2=$(((NIDS + 1) / 2))
i=0
until "$KS" status "$T/run-nowait" | grep -q "$NJ2 jobs: $NJ2 done"; do
    i=$((i + 1))
    [ $i -lt 240 ] || { bad "no-wait run did not finish in 120 s: $("$KS" status "$T/run-nowait")"; break; }
    sleep 0.5
done
check_estimate no-wait "$T/run-nowait"

# SIGTERM to ksample alone while the array runs: the array is cancelled,
# nothing of it keeps running, the started jobs read "interrupted" (issue 25)
cat >"$T/slow-sim.sh" <<'SLOW'
sleep 120 &
echo $! >>"$2"
wait
SLOW
"$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --engine slurm -q -o "$T/run-stop" \
    --simulator "sh $T/slow-sim.sh {kernelslist} $T/stop-pids" >"$T/stop.out" 2>&1 &
ks=$!
i=0
until [ "$(cat "$T/stop-pids" 2>/dev/null | wc -l)" -ge 2 ]; do
    i=$((i + 1))
    [ $i -lt 120 ] || { bad "stop: no task started in 60 s"; break; }
    sleep 0.5
done
kill -TERM "$ks"
wait "$ks"
[ $? = 143 ] || bad "stop: run did not end by SIGTERM: $(cat "$T/stop.out")"
i=0
while [ -n "$(squeue -h -n ksample 2>/dev/null)" ]; do
    i=$((i + 1))
    [ $i -lt 80 ] || { bad "stop: the array was not cancelled: $(squeue -h -n ksample)"; break; }
    sleep 0.5
done
sleep 1
while read -r pid; do
    kill -0 "$pid" 2>/dev/null && bad "stop: simulator $pid of a cancelled task still runs"
done <"$T/stop-pids"
"$KS" status "$T/run-stop" >"$T/status" 2>&1
grep -q "0 started, [1-9][0-9]* interrupted" "$T/status" || bad "stop: status: $(cat "$T/status")"

# an array that a --no-wait run left running holds the folder: a rerun is
# refused naming it (it would submit the same jobs again), and runs once
# the array is gone
"$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --engine slurm -q -o "$T/run-live" \
    --simulator "sh $T/slow-sim.sh {kernelslist} $T/live-pids" --no-wait >"$T/out" 2>&1 ||
    bad "live: --no-wait: $(cat "$T/out")"
jid=$(cat "$T/run-live/slurm/job_id" 2>/dev/null)
"$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --engine slurm -q -o "$T/run-live" \
    --simulator "sh $T/slow-sim.sh {kernelslist} $T/live-pids" --no-wait >"$T/out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "still run as Slurm array $jid" "$T/out" ||
    bad "live: a rerun while array $jid runs: exit $rc, $(cat "$T/out")"
scancel "$jid"
i=0
while [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ]; do
    i=$((i + 1))
    [ $i -lt 80 ] || { bad "live: array $jid not cancelled"; break; }
    sleep 0.5
done
"$KS" run "$T/plan.json" --traces "$T/tr" --warmup none --engine slurm -q -o "$T/run-live" \
    --simulator "sh $T/slow-sim.sh {kernelslist} $T/live-pids" --no-wait >"$T/out" 2>&1 ||
    bad "live: rerun after the array ended: $(cat "$T/out")"
scancel "$(cat "$T/run-live/slurm/job_id")" 2>/dev/null

if [ $failed -ne 0 ]; then
    echo "$failed check(s) failed"
    exit 1
fi
echo "slurm engine: $NIDS jobs as one array (waited, rerun, and returned at once), estimates of the runs = estimate of the values"
