#!/bin/sh
# slurm.sh - the job engine end to end: a sampled plan's kernels run as jobs
# through the local engine, then through a real single-node Slurm started
# here (munged, slurmctld and slurmd as root, private state under /tmp).
#
# The simulator is a STAND-IN: Accel-Sim cannot run here, so
# fake-accelsim.sh writes Accel-Sim-format blocks (kernel_launch_uid,
# gpu_sim_cycle, gpu_sim_insn) with cycles known in advance, and the estimate
# from the run's logs must equal the estimate from those values given
# directly.  (The weighted sum is done in awk until `ksample estimate RUNDIR`
# is on this branch.)
#
# usage: tests/slurm.sh path/to/ksample path/to/run_jobs source-root
# Exit 77 (skip) when Slurm cannot be installed or started: the local part
# has passed by then and says so.
set -u
KS=$1
RUNJOBS=$2
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

# --- a plan with known simulated values ------------------------------------
"$KS" synth --preset casio-like -n 3000 --seed 5 -o "$T/w.csv" || exit 1
"$KS" sample "$T/w.csv" --method root --epsilon 0.2 --seed 2 -o "$T/plan.json" 2>/dev/null || exit 1
"$KS" sample "$T/w.csv" --method root --epsilon 0.2 --seed 2 --csv -o "$T/plan.csv" 2>/dev/null || exit 1
tail -n +2 "$T/plan.csv" | cut -d, -f1 >"$T/ids.txt"
NIDS=$(wc -l <"$T/ids.txt")
BATCH=4
NJOBS=$(((NIDS + BATCH - 1) / BATCH))
[ "$NJOBS" -ge 20 ] || bad "plan gives only $NJOBS jobs"
FAIL_ID=$(sed -n 9p "$T/ids.txt") # in job 2 (ids 9..12 of the list)

cat >"$T/fake-accelsim.sh" <<SIM
#!/bin/sh
# STAND-IN for Accel-Sim: prints one Accel-Sim block per kernel id given,
# with cycles = 1000 + (id * 7919) mod 5000.  Fails on kernel $FAIL_ID while
# $T/fail exists.  Accel-Sim numbers launches from 1 (uid = id + 1).
echo "\$*" >>"$T/calls.log"
echo "Accel-Sim [build stand-in]"
for id in "\$@"; do
    if [ "\$id" = "$FAIL_ID" ] && [ -e "$T/fail" ]; then
        echo "fake-accelsim: deliberate failure on kernel \$id" >&2
        exit 3
    fi
    cycles=\$((1000 + (id * 7919) % 5000))
    echo "kernel_name = _Z6kernelPfi"
    echo "kernel_launch_uid = \$((id + 1))"
    echo "gpu_sim_cycle = \$cycles"
    echo "gpu_sim_insn = \$((cycles * 3))"
done
SIM
chmod +x "$T/fake-accelsim.sh"

# sum(weight * cycles): from the logs of RUNDIR, and from the formula
estimate_from_logs() {
    cat "$1"/jobs/*/sim.log | awk -v plan="$T/plan.csv" '
        /^kernel_launch_uid = / { uid = $3 }
        /^gpu_sim_cycle = / { cyc[uid - 1] = $3 }
        END {
            while ((getline line < plan) > 0) {
                if (line ~ /^id/) continue
                split(line, f, ",")
                if (!(f[1] in cyc)) { print "missing " f[1]; exit }
                s += f[2] * cyc[f[1]]
            }
            printf "%.17g\n", s
        }'
}
DIRECT=$(tail -n +2 "$T/plan.csv" | awk -F, '{ s += $2 * (1000 + ($1 * 7919) % 5000) } END { printf "%.17g\n", s }')

# check_run ENGINE RUNDIR [options]: a failing job, status, then a rerun
check_run() {
    engine=$1
    rd=$2
    shift 2
    : >"$T/calls.log"
    touch "$T/fail"
    "$RUNJOBS" --engine "$engine" --rundir "$rd" --plan "$T/plan.json" --ids "$T/ids.txt" \
        --sim "$T/fake-accelsim.sh" --batch $BATCH "$@" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc = 1 ] || bad "$engine: a failing job should give exit 1, got $rc: $(cat "$T/out" "$T/err")"
    grep -q "^jobs $NJOBS skipped 0 done $((NJOBS - 1)) failed 1 " "$T/out" ||
        bad "$engine first run: $(head -3 "$T/out")"
    grep -q "^not done: jobs/0002 failed exit 3: " "$T/out" && grep -q "deliberate failure on kernel $FAIL_ID" "$T/out" ||
        bad "$engine: the failed job is not reported: $(cat "$T/out")"
    "$KS" status "$rd" >"$T/status" 2>&1 || bad "$engine: status failed: $(cat "$T/status")"
    grep -q "$NJOBS jobs: $((NJOBS - 1)) done, 1 failed, 0 started, 0 pending" "$T/status" ||
        bad "$engine: status summary: $(cat "$T/status")"
    grep -q "failed: job 2 (jobs/0002), exit code 3" "$T/status" || bad "$engine: status lists no failed job"
    grep -q "deliberate failure on kernel $FAIL_ID" "$T/status" || bad "$engine: status shows no log tail"
    "$KS" status --json "$rd" | grep -q '"failed_jobs": \[{"job": 2, "dir": "jobs/0002", "exit_code": 3}\]' ||
        bad "$engine: status --json"
    # the rerun runs only the failed job
    rm -f "$T/fail"
    : >"$T/calls.log"
    "$RUNJOBS" --engine "$engine" --rundir "$rd" --plan "$T/plan.json" --ids "$T/ids.txt" \
        --sim "$T/fake-accelsim.sh" --batch $BATCH "$@" >"$T/out" 2>"$T/err" ||
        bad "$engine rerun: $(cat "$T/out" "$T/err")"
    grep -q "^jobs $NJOBS skipped $((NJOBS - 1)) done 1 failed 0 " "$T/out" || bad "$engine rerun: $(head -3 "$T/out")"
    [ "$(wc -l <"$T/calls.log")" = 1 ] || bad "$engine rerun ran $(wc -l <"$T/calls.log") jobs, wanted 1"
    "$KS" status "$rd" | grep -q "$NJOBS jobs: $NJOBS done, 0 failed" || bad "$engine: status after rerun"
    got=$(estimate_from_logs "$rd")
    [ "$got" = "$DIRECT" ] || bad "$engine: estimate from logs $got, from the values directly $DIRECT"
}

check_run local "$T/run-local" -j 2
grep -q '"plan_xxh128": "[0-9a-f]\{32\}"' "$T/run-local/manifest.json" || bad "manifest has no plan digest"
[ -e "$T/run-local/jobs/0000/cmd.sh" ] || bad "no cmd.sh"
# a run folder that is not one is refused with its name
"$KS" status "$T/nonexistent" 2>"$T/err"
[ $? = 3 ] && grep -q "nonexistent/manifest.json" "$T/err" || bad "status of a missing run: $(cat "$T/err")"
if [ $failed -ne 0 ]; then
    echo "$failed check(s) failed (local engine)"
    exit 1
fi
echo "local engine: $NJOBS jobs, failure reported, rerun skipped finished jobs, estimate $DIRECT"

# --- a private single-node Slurm --------------------------------------------
skip() {
    echo "SKIP slurm part: $*"
    for f in slurmctld.log slurmd.log munged.log; do [ -f "$T/$f" ] && tail -5 "$T/$f"; done
    exit 77
}
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 ||
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

check_run slurm "$T/run-slurm" --partition kstest --throttle 8
ls "$T/run-slurm/slurm/"array-*.sh >/dev/null 2>&1 || bad "no array script kept"
grep -q '^[0-9]' "$T/run-slurm/slurm/job_id" || bad "no job id recorded"

# return at once, then follow with `ksample status`
"$RUNJOBS" --engine slurm --rundir "$T/run-nowait" --plan "$T/plan.json" --ids "$T/ids.txt" \
    --sim "$T/fake-accelsim.sh" --batch $BATCH --no-wait >"$T/out" 2>&1 || bad "no-wait: $(cat "$T/out")"
i=0
until "$KS" status "$T/run-nowait" | grep -q "$NJOBS jobs: $NJOBS done"; do
    i=$((i + 1))
    [ $i -lt 240 ] || { bad "no-wait run did not finish in 120 s: $("$KS" status "$T/run-nowait")"; break; }
    sleep 0.5
done
got=$(estimate_from_logs "$T/run-nowait")
[ "$got" = "$DIRECT" ] || bad "no-wait: estimate from logs $got, directly $DIRECT"

if [ $failed -ne 0 ]; then
    echo "$failed check(s) failed"
    exit 1
fi
echo "slurm engine: $NJOBS jobs as one array (waited, rerun, and returned at once), estimate $DIRECT"
