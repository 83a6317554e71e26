#!/bin/sh
# loop.sh - end-to-end checks of closing the loop: export, estimate (from
# CSVs, simulator logs and run folders), refine, as a user runs them.
# usage: tests/loop.sh path/to/ksample path/to/source-root
KS=$1
ROOT=$2
SHARED="$ROOT/../shared/data"
. "$(dirname "$0")/lib.sh"

for c in export estimate refine; do
    expect 0 "$KS" "$c" --help
    grep -q "usage: ksample $c" "$T/out" || bad "$c --help has no usage line"
done

expect 0 "$KS" synth --preset multi-peak -n 5000 --seed 2 -o "$T/w.csv"
expect 0 "$KS" sample "$T/w.csv" --seed 5 -o "$T/plan.json"
grep -o '"id": [0-9]*' "$T/plan.json" | sed 's/"id": //' >"$T/ids"
n=$(wc -l <"$T/ids")
# "id name" of every launch (the kern-exec CSV's last column, in launch
# order): the stand-in logs report each launch under its own kernel name,
# as a simulator does, and estimate checks them against the plan
awk -F, 'NR > 1 { s = $14; for (i = 15; i <= NF; i++) s = s "," $i; gsub(/^"|"$/, "", s); print NR - 2, s }' \
    "$T/w.csv" >"$T/names"
# with_names FILE: "id name" for each id of FILE
with_names() { awk 'NR == FNR { i = $1; sub(/^[0-9]+ /, ""); name[i] = $0; next } { print $1, name[$1] }' "$T/names" "$1"; }

# exporters
expect 0 "$KS" export "$T/plan.json" --to ids -o "$T/kernel_ids.txt"
cmp -s "$T/ids" "$T/kernel_ids.txt" || bad "ids export differs from the plan's ids"
expect 0 "$KS" export "$T/plan.json" --to accelsim-tracer -o "$T/trace.env"
grep -q '^export DYNAMIC_KERNEL_RANGE="[0-9]' "$T/trace.env" || bad "no DYNAMIC_KERNEL_RANGE"
first=$(head -1 "$T/ids")
grep -q "RANGE=\"$((first + 1))[ -\"]" "$T/trace.env" || bad "ranges are not 1-based: $(tail -1 "$T/trace.env")"
# a traced run per range, as a shell script that parses
expect 0 "$KS" export "$T/plan.json" --to accelsim-tracer-ranges -o "$T/ranges.sh"
sh -n "$T/ranges.sh" || bad "accelsim-tracer-ranges is not valid shell"
expect 0 "$KS" export "$T/plan.json" --to macsim-tracer -o "$T/sampled.txt"
[ "$(tail -n +3 "$T/sampled.txt" | awk '{n += NF - 2} END {print n}')" = "$n" ] || bad "macsim list count"
expect 2 "$KS" export "$T/plan.json" --to nosuch -o "$T/x"
expect 2 "$KS" export "$T/plan.json" --to accelsim -o "$T/x"

# --warmup state on Accel-Sim traces (no simulator: the folders and the
# tracer environment, as a user exports them)
expect 0 "$KS" synth --traces "$T/syn" -n 20 --seed 3
expect 0 "$KS" sample "$T/syn/time.csv" --method random --seed 4 -o "$T/splan.json"
expect 2 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sx" --warmup state
grep -q "L2's size" "$T/err" || bad "state without the L2's size: $(cat "$T/err")"
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sx" --warmup state --l2-size 4M
grep -q '^kernel-ksample-state-[0-9]*.traceg$' "$T/sx/kernelslist.g" || bad "no warm-up kernel listed"
grep -q ',state$' "$T/sx/weights.csv" || bad "weights.csv has no state role"
# the default loads every held line; touched only the launch's own, dirty those and the dirty ones
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/st" --warmup state --l2-size 4M --state-lines touched
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sd" --warmup state --l2-size 4M --state-lines dirty
n_all=$(cat "$T"/sx/kernel-ksample-state-*.traceg | wc -l)
n_dirty=$(cat "$T"/sd/kernel-ksample-state-*.traceg | wc -l)
n_touched=$(cat "$T"/st/kernel-ksample-state-*.traceg | wc -l)
[ "$n_all" -gt "$n_dirty" ] && [ "$n_dirty" -ge "$n_touched" ] && [ "$n_touched" -gt 0 ] ||
    bad "warm-up kernels' sizes: all $n_all, dirty $n_dirty, touched $n_touched"
expect 0 "$KS" info "$T/sx"
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sm" --warmup state:memcpy --l2-size 4M
grep -q '^MemcpyHtoD,0x' "$T/sm/kernelslist.g" || bad "no state copies"
! ls "$T/sm" | grep -q 'memcpy$' || bad "state copies left beside the list"
! grep -q ',state$' "$T/sm/weights.csv" || bad "memory copies are no kernel"
# state:memcpy32 (a stock build): the copies and the launch's trace in a
# 32-bit address space derived from the configuration (SM86_RTX3070's
# address options); the rewritten trace is a file of the folder, read back
cat >"$T/rtx.config" <<'CFG'
-gpgpu_n_mem 16
-gpgpu_n_sub_partition_per_mchannel 2
-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS
-gpgpu_memory_partition_indexing 2
-gpgpu_cache:dl2 S:64:128:16,L:B:m:L:P,A:192:4,32:0,32
-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,16:0,32
-gpgpu_n_clusters 46
-gpgpu_n_cores_per_cluster 1
CFG
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/s32" --warmup state:memcpy32 --sim-config "$T/rtx.config"
grep -q '^MemcpyHtoD,0x00000000' "$T/s32/kernelslist.g" || bad "state:memcpy32: no 32-bit copies"
! grep -q '^MemcpyHtoD,0x0000[1-9a-f]' "$T/s32/kernelslist.g" || bad "state:memcpy32: a copy above 4 GB"
first=$(grep '^kernel' "$T/s32/kernelslist.g" | head -1)
[ -f "$T/s32/$first" ] && [ ! -L "$T/s32/$first" ] || bad "state:memcpy32: $first is not the job's own copy"
! grep -v '^-' "$T/s32/$first" | grep -q ' 0x7f\| 0x00007f' || bad "state:memcpy32: $first keeps 64-bit addresses"
expect 0 "$KS" info "$T/s32"
# and the dirty lines in a kernel of their stores alone, listed after the copies
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/s32s" --warmup state:memcpy32+stores --sim-config "$T/rtx.config"
grep -v '^MemcpyHtoD' "$T/s32s/kernelslist.g" | head -1 | grep -q '^kernel-ksample-state-' || bad "state:memcpy32+stores: no store kernel after the copies"
grep -q ',state$' "$T/s32s/weights.csv" || bad "state:memcpy32+stores: the store kernel has no uid"
! cat "$T"/s32s/kernel-ksample-state-*.traceg | grep -q ' LDG' || bad "state:memcpy32+stores: the store kernel loads"
expect 0 "$KS" info "$T/s32s"
# run checks the program's lines under the remap first and says so; a
# configuration whose functions it cannot keep falls back to the kernel
expect 0 "$KS" run "$T/splan.json" --traces "$T/syn" --simulator "true {kernelslist}" --sim-config "$T/rtx.config" --warmup state:memcpy32 -o "$T/r32"
grep -q "state:memcpy32: the configuration reads address bits up to 36" "$T/err" || bad "run state:memcpy32 does not say what it checked: $(cat "$T/err")"
for k in "$T"/r32/jobs/*/kernel-[0-9]*.traceg; do
    [ -f "$k" ] && [ ! -L "$k" ] || bad "run state:memcpy32: $k is not the job's own copy"
done
sed 's/^-gpgpu_memory_partition_indexing 2/-gpgpu_memory_partition_indexing 4/' "$T/rtx.config" >"$T/rtx-random.config"
expect 0 "$KS" run "$T/splan.json" --traces "$T/syn" --simulator "true {kernelslist}" --sim-config "$T/rtx-random.config" --warmup state:memcpy32 -o "$T/r32f"
grep -q "state:memcpy32 does not apply (.*indexing 4" "$T/err" || bad "state:memcpy32 not refused on a random partition hash: $(cat "$T/err")"
ls "$T"/r32f/jobs/*/kernel-ksample-state-*.traceg >/dev/null 2>&1 || bad "state:memcpy32's fallback has no warm-up kernel"
expect 2 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/s32b" --warmup state:memcpy32 --l2-size 4M
grep -q "gpgpusim.config" "$T/err" || bad "state:memcpy32 without a configuration: $(cat "$T/err")"
# state:split (plain state on Accel-Sim where the remap applies): memcpy32's
# copies, and a warm-up kernel only for the launches with a dirty line within
# reach of their misses, listed between the copies; with a 1 MB L2 this plan
# has both kinds
sed 's/^-gpgpu_cache:dl2 S:64:/-gpgpu_cache:dl2 S:16:/' "$T/rtx.config" >"$T/rtx-1m.config"
expect 0 "$KS" sample "$T/syn/time.csv" --method random --fraction 0.5 --seed 4 -o "$T/half.json"
nhalf=$(grep -c '"id": [0-9]' "$T/half.json")
expect 0 "$KS" export "$T/half.json" --to accelsim --traces "$T/syn" -o "$T/ssp" --warmup state:split --sim-config "$T/rtx-1m.config"
files=$(ls "$T/ssp" | grep -c '^kernel-ksample-state-')
[ "$files" -gt 0 ] && [ "$files" -lt "$nhalf" ] || bad "state:split: $files warm-up kernels of $nhalf launches: the test needs launches with and without"
[ "$(grep -c '^kernel-ksample-state-' "$T/ssp/kernelslist.g")" = "$files" ] || bad "state:split lists other kernels than it wrote"
[ "$(grep -c ',state$' "$T/ssp/weights.csv")" = "$files" ] || bad "state:split: weights.csv's state rows are not its kernels"
awk '/^kernel-ksample-state-/ { k = 1; next } k && /^MemcpyHtoD/ { after = 1 } /^kernel-[0-9]/ { k = 0 } END { exit !after }' "$T/ssp/kernelslist.g" ||
    bad "state:split: no copies of the younger lines after a warm-up kernel"
# export: plain state is state:split here too, the same folder
expect 0 "$KS" export "$T/half.json" --to accelsim --traces "$T/syn" -o "$T/ssd" --warmup state --sim-config "$T/rtx-1m.config"
grep -q "is state:split here" "$T/err" || bad "export's plain state: $(cat "$T/err")"
diff -r "$T/ssp" "$T/ssd" >/dev/null || bad "export's plain state is not state:split: $(diff -rq "$T/ssp" "$T/ssd" | head -3)"
# run: the default carrier, the kernels read and left out, every launch read
printf '%s\n' '#!/bin/sh' 'uid=0' 'grep "^kernel" "$1" | while IFS= read -r k; do' \
    '    uid=$((uid + 1))' '    name=$(sed -n "s/^-kernel name = //p" "$(dirname "$1")/$k" | head -n 1)' \
    '    case $k in kernel-ksample-state-*) n=0 ;; *) n=${k#kernel-}; n=${n%.traceg} ;; esac' \
    '    printf "kernel_name = %s\nkernel_launch_uid = %d\ngpu_sim_cycle = %d\ngpu_tot_sim_cycle = 1\n" "$name" "$uid" $((n * 40 + 1000))' \
    'done' >"$T/sim.sh"
expect 0 "$KS" run "$T/half.json" --traces "$T/syn" --simulator "sh $T/sim.sh {kernelslist}" --sim-config "$T/rtx-1m.config" -o "$T/rsp"
grep -q "state:split (the default): the configuration reads address bits up to [0-9]" "$T/err" || bad "run's default carrier: $(cat "$T/err")"
grep -q "state:split: in $files of $nhalf launches the misses evict dirty lines" "$T/err" || bad "run does not say which launches got a kernel: $(cat "$T/err")"
expect 0 "$KS" estimate "$T/half.json" "$T/rsp"
grep -q "^warm-up kernels read and left out: $files$" "$T/out" || bad "estimate of a state:split run: $(cat "$T/out")"
grep -q "^results: $nhalf launches" "$T/out" || bad "estimate of a state:split run misses launches: $(cat "$T/out")"
# a rerun goes on with the carrier its folder began with
expect 0 "$KS" run "$T/half.json" --traces "$T/syn" --simulator "sh $T/sim.sh {kernelslist}" --sim-config "$T/rtx.config" --warmup state:kernel -o "$T/rsk"
expect 0 "$KS" run "$T/half.json" --traces "$T/syn" --simulator "sh $T/sim.sh {kernelslist}" --sim-config "$T/rtx.config" -o "$T/rsk"
grep -q "(warm-up state:kernel), 0 done now" "$T/err" || bad "a rerun with plain state changed the carrier: $(cat "$T/err")"
# a warm-up kernel left in a job's folder by an earlier attempt, where the
# launch needs none, is removed on the rerun (else the results reader would
# look for its block)
printf '#!/bin/sh\nexit 1\n' >"$T/fail.sh"
expect 1 "$KS" run "$T/half.json" --traces "$T/syn" --simulator "sh $T/fail.sh {kernelslist}" --sim-config "$T/rtx-1m.config" -o "$T/rss" -q
sj=$(dirname "$(grep -L '^kernel-ksample-state-' "$T"/rss/jobs/*/kernelslist.g | head -n 1)")
kn=$(grep -o '^kernel-[0-9]*' "$sj/kernelslist.g" | sed 's/kernel-//')
echo stale >"$sj/kernel-ksample-state-$kn.traceg"
expect 0 "$KS" run "$T/half.json" --traces "$T/syn" --simulator "sh $T/sim.sh {kernelslist}" --sim-config "$T/rtx-1m.config" -o "$T/rss" -q
[ ! -e "$sj/kernel-ksample-state-$kn.traceg" ] || bad "state:split: a stale warm-up kernel stayed in $sj"
expect 0 "$KS" estimate "$T/half.json" "$T/rss"
# --state-lines is the warm-up kernel's: plain state with it keeps the kernel
expect 0 "$KS" run "$T/half.json" --traces "$T/syn" --simulator "sh $T/sim.sh {kernelslist}" --sim-config "$T/rtx-1m.config" --state-lines touched -o "$T/rst"
grep -q "(warm-up state:kernel), $nhalf done now" "$T/err" || bad "--state-lines with plain state: $(cat "$T/err")"
expect 2 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sy" --warmup state --state-cut 0.5 --l2-size 4M
expect 2 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sy" --warmup none --l2-size 4M
expect 2 "$KS" export "$T/splan.json" --to accelsim --traces "$T/syn" -o "$T/sy" --warmup state:memcpy --state-lines all --l2-size 4M
expect 0 "$KS" export "$T/splan.json" --to accelsim-tracer -o "$T/state.env" --warmup state --state-window 2
# --profile naming another profile, in a format other than the plan's: told
# apart by its digest, not misread in the plan's format
expect 4 "$KS" export "$T/splan.json" --to accelsim-tracer -o "$T/other.env" --warmup state --profile "$ROOT/tests/data/torch-transformer/decode-h100.json.gz"
grep -q "not the profile the plan was made from" "$T/err" || bad "export --profile of another profile: $(cat "$T/err")"
[ ! -e "$T/other.env" ] || bad "export --profile of another profile wrote its output"
grep -q 'launches traced ([0-9.]* %), [0-9]* beyond the' "$T/state.env" || bad "tracer export does not count the state's launches"
# the folder such a tracer writes (those launches alone, numbered as the
# program ran them): plan ids map by the tracer's numbers
mkdir "$T/part"
for r in $(sed -n 's/^export DYNAMIC_KERNEL_RANGE="\(.*\)"/\1/p' "$T/state.env"); do
    i=${r%-*}
    while [ "$i" -le "${r#*-}" ]; do
        ln -s "$T/syn/kernel-$i.traceg" "$T/part/kernel-$i.traceg"
        echo "kernel-$i.traceg" >>"$T/part/kernelslist.g"
        i=$((i + 1))
    done
done
expect 0 "$KS" export "$T/splan.json" --to accelsim --traces "$T/part" -o "$T/px" --warmup state --l2-size 4M
awk -F, '$6 == "measured" { n++; if ($5 != "kernel-" $2 + 1 ".traceg") bad = 1 } END { exit bad || !n }' "$T/px/weights.csv" ||
    bad "a partial trace folder's launches not matched by the tracer's numbers: $(cat "$T/px/weights.csv")"
# by default only the launches the state can need (issue 39's goal: the demo
# plan's tracer export traces under 10 % of its launches; every earlier one
# with --state-window all)
expect 0 "$KS" sample "$ROOT/examples/casio-like-50k.csv.xz" --method root --epsilon 0.05 --confidence 0.95 --seed 1 -o "$T/demo.json"
expect 0 "$KS" export "$T/demo.json" --to accelsim-tracer -o "$T/demo.env" --warmup state
share=$(sed -n 's/.* launches traced (\([0-9.]*\) %).*/\1/p' "$T/err")
awk -v s="$share" 'BEGIN { exit !(s != "" && s + 0 < 10) }' || bad "demo tracer export traces ${share:-?} % of the launches: $(cat "$T/err")"
expect 0 "$KS" export "$T/demo.json" --to accelsim-tracer -o "$T/demo-all.env" --warmup state --state-window all
last=$(python3 -c "import json, sys; print(max(s['id'] for s in json.load(open(sys.argv[1]))['samples']) + 1)" "$T/demo.json")
grep -q "DYNAMIC_KERNEL_RANGE=\"1-$last\"" "$T/demo-all.env" || bad "--state-window all does not trace every launch up to the last sampled ($last)"
expect 0 "$KS" export "$T/demo.json" --to macsim-tracer -o "$T/demo.list" --warmup state
grep -q ' launches traced (' "$T/err" || bad "macsim-tracer does not say the traced share: $(cat "$T/err")"
expect 2 "$KS" export "$T/splan.json" --to ids -o "$T/sids" --warmup state

# results as CSV: cycles = 3 x id + 1000
awk 'BEGIN {print "id,gpu_sim_cycle,gpu_sim_insn"} {print $1 "," 3 * $1 + 1000 "," 2 * $1 + 500}' "$T/ids" >"$T/res.csv"
expect 0 "$KS" estimate "$T/plan.json" "$T/res.csv"
grep -q '^ipc ' "$T/out" || bad "no ipc line: $(cat "$T/out")"
expect 0 "$KS" estimate --json "$T/plan.json" "$T/res.csv"
for k in metric estimate ci_low ci_high rel_halfwidth bound_met; do
    grep -q "\"$k\"" "$T/out" || bad "estimate --json lacks $k"
done
csv_est=$(grep '"gpu_sim_cycle"' "$T/out" | sed 's/.*"estimate": \([^,]*\),.*/\1/')
head -n -1 "$T/res.csv" >"$T/short.csv"
expect 4 "$KS" estimate "$T/plan.json" "$T/short.csv"
grep -q "sample id $(tail -1 "$T/ids")" "$T/err" || bad "missing sample not named: $(cat "$T/err")"

# a run folder: two jobs, each simulated its own list (uid k = its k-th id)
mkdir -p "$T/run/jobs/0000" "$T/run/jobs/0001"
half=$((n / 2))
head -n "$half" "$T/ids" >"$T/ids0"
tail -n +"$((half + 1))" "$T/ids" >"$T/ids1"
for j in 0 1; do
    with_names "$T/ids$j" | awk '{id = $1; sub(/^[0-9]+ /, ""); printf "kernel_name = %s\nkernel_launch_uid = %d\ngpu_sim_cycle = %d\ngpu_sim_insn = %d\ngpu_tot_sim_cycle = 1\n", $0, NR, 3 * id + 1000, 2 * id + 500}' >"$T/run/jobs/000$j/sim.log"
    echo 0 >"$T/run/jobs/000$j/status"
done
list0=$(paste -sd, "$T/ids0")
list1=$(paste -sd, "$T/ids1")
digest=$(xxh128sum "$T/plan.json" | cut -d' ' -f1)
printf '{"plan": "%s", "plan_xxh128": "%s", "jobs": [{"job": 0, "ids": [%s], "dir": "jobs/0000"}, {"job": 1, "ids": [%s], "dir": "jobs/0001"}]}\n' \
    "$T/plan.json" "$digest" "$list0" "$list1" >"$T/run/manifest.json"
expect 0 "$KS" estimate --json "$T/plan.json" "$T/run"
run_est=$(grep '"gpu_sim_cycle"' "$T/out" | sed 's/.*"estimate": \([^,]*\),.*/\1/')
[ "$run_est" = "$csv_est" ] || bad "run folder estimate $run_est, CSV $csv_est"
sed "s/$digest/00000000000000000000000000000000/" "$T/run/manifest.json" >"$T/m2"
cp "$T/run/manifest.json" "$T/m1"
cp "$T/m2" "$T/run/manifest.json"
expect 4 "$KS" estimate "$T/plan.json" "$T/run"
grep -q "another plan" "$T/err" || bad "a run of another plan accepted: $(cat "$T/err")"
cp "$T/m1" "$T/run/manifest.json"
echo 137 >"$T/run/jobs/0001/status"
expect 4 "$KS" estimate "$T/plan.json" "$T/run"
grep -q "incomplete run.*jobs/0001 (failed, exit 137)" "$T/err" || bad "incomplete run not named: $(cat "$T/err")"

# refine: values far noisier than the profile
awk 'BEGIN {srand(3); print "id,gpu_sim_cycle"} {print $1 "," int(1000 + 100000 * rand() * rand())}' "$T/ids" >"$T/noisy.csv"
expect 0 "$KS" refine "$T/plan.json" "$T/noisy.csv" --profile "$T/w.csv" -o "$T/plan2.json"
grep -q '"parent": {"path": ' "$T/plan2.json" || bad "refined plan records no parent"
grep -q '"refine_seed"' "$T/plan2.json" || bad "refined plan records no refine seed"
expect 0 "$KS" export "$T/plan2.json" --to ids -o "$T/ids2"
sort "$T/ids" >"$T/ids.s"
sort "$T/ids2" >"$T/ids2.s"
[ "$(comm -23 "$T/ids.s" "$T/ids2.s" | wc -l)" = 0 ] || bad "refine dropped a simulated launch"
[ "$(wc -l <"$T/ids2")" -gt "$n" ] || bad "refine added no launch for noisy values"
expect 0 "$KS" refine "$T/plan.json" "$T/noisy.csv" --profile "$T/w.csv" -o "$T/plan2b.json"
cmp -s "$T/plan2.json" "$T/plan2b.json" || bad "refine is not deterministic"

# after refine, only the new launches are simulated; the parent's results are
# reused, each log with its own uid map
expect 0 "$KS" export "$T/plan2.json" --exclude "$T/plan.json" --to ids -o "$T/ids_new"
[ "$(($(wc -l <"$T/ids_new") + n))" = "$(wc -l <"$T/ids2")" ] || bad "--exclude kept old ids"
for part in ids ids_new; do
    awk 'BEGIN {print "uid,id"} {print NR "," $1}' "$T/$part" >"$T/$part.map"
    with_names "$T/$part" | awk 'BEGIN {srand(5)} {sub(/^[0-9]+ /, ""); printf "kernel_name = %s\nkernel_launch_uid = %d\ngpu_sim_cycle = %d\n", $0, NR, 1000 + 50000 * rand()}' >"$T/$part.log"
done
expect 0 "$KS" estimate "$T/plan2.json" "$T/ids.log" "$T/ids_new.log" --uid-map "$T/ids.map" --uid-map "$T/ids_new.map"
expect 4 "$KS" estimate "$T/plan2.json" "$T/ids.log" "$T/ids_new.log" --uid-map "$T/ids.map"
expect 2 "$KS" estimate "$T/plan2.json" "$T/ids.log" --uid-map "$T/ids.map" --uid-map "$T/ids_new.map"

# a plan of another schema is refused
sed 's/"schema": 1/"schema": 9/' "$T/plan.json" >"$T/p9.json"
expect 4 "$KS" estimate "$T/p9.json" "$T/res.csv"
grep -q "schema 9" "$T/err" || bad "schema refusal: $(cat "$T/err")"

# a real simulator log
LOG="$SHARED/accelsim-simlog/vectoradd-gtx1080-gpgpusim.log"
if [ -f "$LOG" ]; then
    printf 'name,duration_ns\n_Z6vecAddIfEvPT_S1_S1_i,1000\n' >"$T/one.csv"
    expect 0 "$KS" sample "$T/one.csv" -o "$T/one.json"
    expect 0 "$KS" estimate --metric gpu_sim_cycle --metric gpu_sim_insn "$T/one.json" "$LOG"
    grep -q '^gpu_sim_cycle  *count  *1,282 ' "$T/out" || bad "real log cycles: $(cat "$T/out")"
else
    echo "SKIP: $SHARED absent, real simulator log check skipped"
fi

# The MacSim loop with warm-up, end to end: export --to macsim, run --macsim
# --warmup self, estimate.  MacSim cannot run here, so the job runs a
# STAND-IN (a shell script, not MacSim): it reads the job's trace_file_list
# and kernel_config.txt as MacSim does and prints MacSim's stdout lines for
# each listed kernel, costing 3000 + N cycles for launch N the first time in
# its run and 1000 + N when it ran before in the same run (warm).
MSIM="$SHARED/sim/macsim-vectormultadd"
if [ -f "$MSIM/kernel_config.txt" ]; then
    macsim_traces "$MSIM"
    expect 0 "$KS" info "$T/m/tr"
    grep -q "macsim-traces" "$T/out" || bad "MacSim trace folder not detected: $(cat "$T/out")"
    cat >"$T/standin-macsim" <<'STANDIN'
#!/bin/sh
# A stand-in for MacSim's stdout (not MacSim): see tests/loop.sh
config=$(sed -n 2p trace_file_list)
n=$(tail -n +4 "$config" | wc -l)
tail -n +4 "$config" | awk -v n="$n" '
{ k = $0; sub("^\\./Kernel", "", k); sub("/trace.txt$", "", k)
  c = (k in seen) ? 1000 + k : 3000 + k; seen[k] = 1
  printf "src/process_manager.cc:426: (I=13  C=%d):  setup_process:0 RUN/%s current_index:%d (%d)\n", t, substr($0, 3), NR - 1, n
  t += c }
END { printf "src/retire.cc:563: (I=13  C=%d):  ----- application 0 terminated (RUN/x,0) at %d\n", t, t }'
STANDIN
    chmod +x "$T/standin-macsim"
    echo "max_block_per_core 8" >"$T/params.in"
    # sampled by instruction counts, from the trace folder itself
    expect 0 "$KS" sample "$T/m/tr" --method sieve -o "$T/mplan.json"
    grep -o '"id": [0-9]*' "$T/mplan.json" | sed 's/"id": //' >"$T/mids"
    expect 0 "$KS" export "$T/mplan.json" --to macsim --traces "$T/m/tr" -o "$T/mexp"
    [ "$(tail -n +4 "$T/mexp/kernel_config.txt" | wc -l)" = "$(wc -l <"$T/mids")" ] || bad "macsim export lists another count"
    [ -f "$T/mexp/trace_file_list" ] || bad "macsim export has no trace_file_list"
    expect 0 "$KS" run "$T/mplan.json" --traces "$T/m/tr" --macsim "$T/standin-macsim" --params "$T/params.in" \
        --warmup self -o "$T/mrun" -q
    grep -q '"warmup": "self"' "$T/mrun/manifest.json" || bad "the manifest records no warm-up"
    [ -L "$T/mrun/jobs/0000/params.in" ] || bad "the job has no params.in"
    expect 0 "$KS" estimate "$T/mplan.json" "$T/mrun" --metric cycles
    grep -q "^warm-up: self" "$T/out" || bad "estimate does not say the warm-up: $(cat "$T/out")"
    # every value is the warm one: 1000 + id, the warm-up kernel left out
    expect 0 "$KS" estimate "$T/mplan.json" "$T/mrun" --values
    awk -F, 'NR > 1 && $2 != 1000 + $1 {bad = 1} END {exit bad}' "$T/out" || bad "warm values: $(head -3 "$T/out")"
    awk -F, 'NR > 1 && $3 != 3000 + $1 + 1000 + $1 {bad = 1} END {exit bad}' "$T/out" || bad "run_cycles: $(head -3 "$T/out")"
    # --warmup state: a warm-up kernel folder ksample writes before each
    # sampled launch (the stand-in charges it 3000, the launch stays cold in
    # the stand-in's eyes: 3000 + id); the LLC's size from params.in
    printf 'num_sim_cores 16\nnum_llc 12\nllc_num_set 128\nllc_line_size 128\nllc_assoc 24\n' >"$T/params-llc.in"
    expect 4 "$KS" run "$T/mplan.json" --traces "$T/m/tr" --macsim "$T/standin-macsim" --params "$T/params.in" \
        --warmup state -o "$T/mrun-state-bad" -q
    grep -q "has no llc_num_set" "$T/err" || bad "state without an LLC size: $(cat "$T/err")"
    expect 0 "$KS" run "$T/mplan.json" --traces "$T/m/tr" --macsim "$T/standin-macsim" --params "$T/params-llc.in" \
        --warmup state -o "$T/mrun-state"
    grep -q "warm state of $(wc -l <"$T/mids") launches rebuilt" "$T/err" || bad "no state report: $(cat "$T/err")"
    grep -q '"warmup": "state:kernel"' "$T/mrun-state/manifest.json" || bad "the manifest records no state"
    grep -q '"measured": \[2, 1' "$T/mrun-state/manifest.json" || bad "the state kernel is not marked: $(head -c 400 "$T/mrun-state/manifest.json")"
    first=$(head -1 "$T/mids")
    [ -f "$T/mrun-state/jobs/0000/ksample-state-$((first + 1))/trace.txt" ] || bad "no warm-up kernel folder"
    grep -q "^./ksample-state-$((first + 1))/trace.txt" "$T/mrun-state/jobs/0000/kernel_config.txt" || bad "the list lacks the warm-up kernel"
    expect 0 "$KS" info "$T/mrun-state/jobs/0000"
    expect 0 "$KS" estimate "$T/mplan.json" "$T/mrun-state" --values
    awk -F, 'NR > 1 && $2 != 3000 + $1 {bad = 1} END {exit bad}' "$T/out" || bad "state values: $(head -3 "$T/out")"
    awk -F, 'NR > 1 && $3 != 3000 + $1 + 3000 {bad = 1} END {exit bad}' "$T/out" || bad "state run_cycles: $(head -3 "$T/out")"
    # a folder of some launches only (a tracer told to record them: Kernel<N>
    # numbered as the program ran them): ids map by those numbers, and the
    # states the missing launches cut short are said
    mkdir "$T/m/part"
    head -3 "$T/m/tr/kernel_config.txt" >"$T/m/part/kernel_config.txt"
    nl=$(tail -n +4 "$T/m/tr/kernel_config.txt" | wc -l)
    i=0
    while [ "$i" -lt "$nl" ]; do
        if [ $((i % 3)) = 0 ] || grep -qx "$i" "$T/mids"; then
            ln -s "$(readlink "$T/m/tr/Kernel$i")" "$T/m/part/Kernel$i"
            echo "./Kernel$i/trace.txt" >>"$T/m/part/kernel_config.txt"
        fi
        i=$((i + 1))
    done
    expect 0 "$KS" run "$T/mplan.json" --traces "$T/m/part" --macsim "$T/standin-macsim" --params "$T/params-llc.in" \
        --warmup state -o "$T/mrun-part"
    grep -q "warm state cut short by launches missing from the traces" "$T/err" || bad "MacSim partial folder: no short states said: $(cat "$T/err")"
    expect 0 "$KS" estimate "$T/mplan.json" "$T/mrun-part" --values
    awk -F, 'NR > 1 && $2 != 3000 + $1 {bad = 1} END {exit bad}' "$T/out" || bad "partial folder values (launches mapped by number): $(head -3 "$T/out")"
    expect 2 "$KS" run "$T/mplan.json" --traces "$T/m/tr" --macsim "$T/standin-macsim" --params "$T/params-llc.in" \
        --warmup state:memcpy -o "$T/mrun-memcpy" -q
    grep -q "state:memcpy and state:memcpy32 are for Accel-Sim" "$T/err" || bad "MacSim memcpy state not refused: $(cat "$T/err")"
else
    echo "SKIP: $MSIM absent, MacSim loop skipped"
fi

summary
