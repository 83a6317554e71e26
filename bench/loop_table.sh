#!/bin/sh
# The user's loop (../shared/tools/loop_eval.py) on the recorded data sets, before and
# after issue 38's calibrated design: one table row per data set and design, as
# docs/bench.md "The user's loop" prints them.
#   bench/loop_table.sh KSAMPLE [SEEDS] [ROWS]
# ROWS: an extended regular expression; only the data sets whose names match are run
# (for instance 'Kineto').
# "after" is ksample as it is (ROOT's default, the calibrated design); "before" runs
# the same harness through a wrapper that adds --replicate 0 to every `sample`: the
# plans and the collapsed model of rounds 1-4, which is all that differs for a user.  Needs ../shared and the transformer's
# time profile (made here from its recorded synth command, about 30 s and 600 MB).
set -eu
K=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SEEDS=${2:-100}
ROWS=${3:-.}
here=$(cd "$(dirname "$0")/.." && pwd)
S="$here/../shared"
E="$S/tools/loop_eval.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# (LOOP_SAMPLE: options every `sample` of a row gets: the demo's values include its
# NCCL kernels, which plans leave out by default since issue 40, so it plans with
# --include-comm to estimate the same total)
for w in collapsed plain; do
    r=""; [ $w = collapsed ] && r="--replicate 0"
    cat > "$T/ksample-$w" <<WRAP
#!/bin/sh
if [ "\$1" = sample ]; then shift; exec "$K" sample $r \$LOOP_SAMPLE "\$@"; fi
exec "$K" "\$@"
WRAP
    chmod +x "$T/ksample-$w"
done
# profiles a user has, and the full run's values (id, gpu_sim_cycle)
A="$S/data/sim/accelsim-synth"
awk -F, 'NR==1{print "id,gpu_sim_cycle";next} $4=="SM86_RTX3070"{print $1","$5}' "$A/per_launch.csv" > "$T/rtx.csv"
awk -F, 'NR==1{print "id,gpu_sim_cycle";next} $4=="SM7_QV100"{print $1","$5}' "$A/per_launch.csv" > "$T/qv.csv"
TR="$here/tests/data/accelsim-transformer/per_launch_SM86_RTX3070.csv"
awk -F, 'NR==1{print "id,gpu_sim_cycle";next}{print $1","$7}' "$TR" > "$T/tr.csv"
"$K" synth --traces "$T/trt" --preset transformer --seed 33 >/dev/null 2>&1
cp "$T/trt/time.csv" "$T/tr_time.csv"
rm -rf "$T/trt"
# values equal to the profile: the full run's cycles as the profile
as_profile() { # per_launch.csv, name column, value column, out prefix
    awk -F, -v n="$2" -v v="$3" 'NR==1{print "name,duration_ns,id" > "'"$4"'_p.csv";
        print "id,gpu_sim_cycle" > "'"$4"'_v.csv"; next}
        {print $n","$v","NR-2 > "'"$4"'_p.csv"; print NR-2","$v > "'"$4"'_v.csv"}' "$1"
}
as_profile "$TR" 3 7 "$T/trf"
as_profile "$here/tests/data/accelsim-large/per_launch_SM86_RTX3070.csv" 3 7 "$T/lg"
as_profile "$S/data/sim/macsim-vectormultadd/per_launch.csv" 2 5 "$T/ms"
# the bundled example in launch order, its durations as the values
xz -dc "$here/examples/casio-like-50k.csv.xz" | python3 -c "
import csv, sys
r = sorted(csv.DictReader(sys.stdin), key=lambda a: int(a['Kernel Start (ns)']))
with open('$T/demo_p.csv', 'w', newline='') as p, open('$T/demo_v.csv', 'w') as v:
    w = csv.writer(p); w.writerow(['name', 'duration_ns', 'id']); v.write('id,gpu_sim_cycle\\n')
    for i, a in enumerate(r):
        w.writerow([a['Kernel Name'], a['Kernel Dur (ns)'], i]); v.write('%d,%s\\n' % (i, a['Kernel Dur (ns)']))"
row() { # name profile values eps seeds
    printf '%s\n' "$1" | grep -Eq -- "$ROWS" || return 0
    for design in before after; do
        k="$T/ksample-plain"; [ "$design" = before ] && k="$T/ksample-collapsed"
        python3 "$E" "$k" "$2" "$3" --eps "$4" --seeds "$5" | python3 -c "
import json, sys
r = json.load(sys.stdin); o = r['one_shot']; l = r['loop']; orc = r['oracle']
f = lambda v, n=2: '-' if v is None else ('%.' + str(n) + 'f') % v
print('| $1 | %g %% | $design | %.1f | %.1f | %s / %s / %s %% | %s %% | %s %% | %s | %s / %s %% | %.1f | %s %% | %s | %s |' % (
    $4 * 100, o['launches'], o['speedup_hmean'], f(o['err_mean'] * 100), f(o['err_p95'] * 100),
    f((o['err_max'] or 0) * 100), f(o['coverage'] * 100, 0), f(o['hw_mean'] * 100),
    f(o['hw_over_p95err']), f((o['met_power'] or 0) * 100, 0), f(o['met_true'] * 100, 0),
    l['launches'], f(l['within_bound'] * 100, 0), '-' if not orc else '%.1f' % orc['launches'],
    f(r.get('loop_efficiency'))))"
    done
}
echo "| data set | bound | design | launches | speedup | error mean / p95 / max | coverage | half-width | / p95 error | met power / true | loop launches | loop within | oracle | oracle / loop |"
echo "| --- | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
export LOOP_SAMPLE=""
row "transformer, time profile" "$T/tr_time.csv" "$T/tr.csv" 0.05 "$SEEDS"
row "transformer, time profile" "$T/tr_time.csv" "$T/tr.csv" 0.02 "$SEEDS"
row "synthetic RTX 3070, time profile" "$A/time.csv" "$T/rtx.csv" 0.05 "$SEEDS"
row "synthetic QV100, time profile" "$A/time.csv" "$T/qv.csv" 0.05 "$SEEDS"
row "transformer, values = profile" "$T/trf_p.csv" "$T/trf_v.csv" 0.05 "$SEEDS"
row "large workload, values = profile" "$T/lg_p.csv" "$T/lg_v.csv" 0.05 "$SEEDS"
row "MacSim, values = profile" "$T/ms_p.csv" "$T/ms_v.csv" 0.05 "$SEEDS"
export LOOP_SAMPLE=--include-comm
row "demo (bundled example), values = profile" "$T/demo_p.csv" "$T/demo_v.csv" 0.05 20
# the Kineto profiles, their own durations as the values (launch ids as ksample reads
# them, through the Python package); communication kernels kept as for the demo
KI="$S/data/kineto"
PY=$("$here/scripts/pick-python.sh")
for f in a100-nccl alexnet-a100 resnet50-v100-2021 sampled-rank0 v100-ns-resolution \
         mi300x-replay mi250-rocm62; do
    printf '%s\n' "Kineto $f, values = profile" | grep -Eq -- "$ROWS" || continue
    PYTHONPATH="$here/python" KSAMPLE_LIBRARY="$(dirname "$K")/libksample.so" "$PY" -c "
import ksample, sys
p = ksample.read(sys.argv[1])
with open(sys.argv[2], 'w') as o:
    o.write('id,gpu_sim_cycle\\n')
    for i, d in zip(p.launch_ids, p.durations): o.write('%d,%d\\n' % (i, d))" \
        "$KI/$f.json.gz" "$T/k_$f.csv"
    row "Kineto $f, values = profile" "$KI/$f.json.gz" "$T/k_$f.csv" 0.05 "$SEEDS"
done
