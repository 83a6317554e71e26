#!/bin/sh
# run_reuse.sh - the loop a user runs (issue 38): sample -> run -> refine ->
# run the refined plan into the SAME run folder -> estimate.  The refined
# plan's run reuses the parent's done jobs and simulates only the new
# launches (counted by the stand-in simulator), its estimate equals that of
# a fresh run of the refined plan, the parent's estimate still reads the
# folder, and a run whose recorded options differ (warm-up, configuration
# contents) is refused, naming them, with the folder left as it was.
# usage: tests/run_reuse.sh path/to/ksample path/to/source-root
KS=$1
. "$(dirname "$0")/lib.sh"

cd "$T" || exit 1
"$KS" synth --traces syn -n 60 --seed 3 2>/dev/null || exit 1
# the stand-in simulator: a log block for each kernel its list names, as
# Accel-Sim numbers them (uid: its place among the listed kernels), with
# values of its launch number; each launch it simulates (not ksample's
# warm-state kernel) is appended to $COUNT; it fails while $FAILNOW exists
cat >sim.sh <<'EOF'
#!/bin/sh
list=$1
[ -e "$FAILNOW" ] && exit 1
uid=0
grep '^kernel' "$list" | while IFS= read -r k; do
    uid=$((uid + 1))
    name=$(sed -n 's/^-kernel name = //p' "$(dirname "$list")/$k" | head -n 1)
    case $k in
        kernel-ksample-state-*) n=0 ;;
        *) n=${k#kernel-}; n=${n%.traceg}; echo "$n" >>"$COUNT" ;;
    esac
    printf 'kernel_name = %s\nkernel_launch_uid = %d\ngpu_sim_cycle = %d\ngpu_sim_insn = %d\ngpu_tot_sim_cycle = 1\n' \
        "$name" "$uid" $(((n * 7919 % 997) * 40 + 1000)) $((n * 3 + 100))
done
EOF
chmod +x sim.sh
COUNT=$T/count
FAILNOW=$T/failnow
export COUNT FAILNOW
printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 16\n' >gpu.config
SIM="$T/sim.sh {kernelslist}"
# simulated: how many launches the stand-in simulated since the count was reset
simulated() { if [ -f "$COUNT" ]; then wc -l <"$COUNT" | tr -d ' '; else echo 0; fi; }
samples() { grep -c '"id": [0-9]' "$1"; }

# --- the loop, with the default warm-up (the rebuilt state) ---------------
expect 0 "$KS" sample syn/time.csv --seed 1 -o plan.json
n1=$(samples plan.json)
rm -f "$COUNT"
expect 0 "$KS" run plan.json --traces syn --simulator "$SIM" --sim-config gpu.config -o run -q
[ "$(simulated)" = "$n1" ] && ok || bad "the parent's run simulated $(simulated) launches, not its $n1"
expect 0 "$KS" estimate plan.json run
cp "$T/out" parent.est
expect 0 "$KS" refine plan.json run -o plan2.json
n2=$(samples plan2.json)
[ "$n2" -gt "$n1" ] && ok || bad "refine added no launch ($n1 -> $n2): the test needs some"
first_log=$(cksum <run/jobs/0000/sim.log)
# a folder the manifest does not name, whose status says done: never a new
# job's (its number is the first a new job would take)
mkdir "run/jobs/$(printf %04d "$n1")"
echo 0 >"run/jobs/$(printf %04d "$n1")/status"

# the refined plan into the same folder: only the new launches run
rm -f "$COUNT"
expect 0 "$KS" run plan2.json --traces syn --simulator "$SIM" --sim-config gpu.config -o run
new=$((n2 - n1))
[ "$(simulated)" = "$new" ] && ok || bad "the refined plan's run simulated $(simulated) launches, not the $new new ones"
grep -q "reusing $n1 launches simulated for plan.json; $new new to simulate" "$T/err" && ok ||
    bad "the run does not say what it reuses: $(cat "$T/err")"
grep -q "$n2 jobs (warm-up state:kernel), $new done now, $n1 done before, 0 failed" "$T/err" && ok ||
    bad "the run's summary: $(cat "$T/err")"
[ "$(cksum <run/jobs/0000/sim.log)" = "$first_log" ] && ok || bad "the parent's job 0 was simulated again"
[ "$(ls run/jobs | wc -l)" = "$((n2 + 1))" ] && ok || bad "run/jobs holds $(ls run/jobs | wc -l) folders, not $n2 and the stray one"
! grep -q "\"jobs/$(printf %04d "$n1")\"" run/manifest.json && ok || bad "a new job took the stray folder"
grep -q '"earlier_plans"' run/manifest.json && ok || bad "the manifest names no earlier plan"
expect 0 "$KS" status run
grep -q "^run: $n2 jobs: $n2 done" "$T/out" && ok || bad "status: $(cat "$T/out")"
grep -q "^plan: $T/plan2.json, reusing the jobs of $T/plan.json" "$T/out" && ok || bad "status names no earlier plan: $(cat "$T/out")"

# its estimate is a fresh run's of the refined plan
expect 0 "$KS" estimate plan2.json run
cp "$T/out" reused.est
rm -f "$COUNT"
expect 0 "$KS" run plan2.json --traces syn --simulator "$SIM" --sim-config gpu.config -o fresh -q
[ "$(simulated)" = "$n2" ] && ok || bad "a fresh run of the refined plan simulated $(simulated), not $n2"
expect 0 "$KS" estimate plan2.json fresh
cmp -s "$T/out" reused.est && ok || bad "the estimate of the reused folder differs from a fresh run's: $(diff reused.est "$T/out" | head -5)"
# the parent's estimate still reads its own jobs, unchanged
expect 0 "$KS" estimate plan.json run
cmp -s "$T/out" parent.est && ok || bad "the parent's estimate changed: $(diff parent.est "$T/out" | head -5)"
# a rerun of the refined plan runs nothing; the parent's run again is refused
rm -f "$COUNT"
expect 0 "$KS" run plan2.json --traces syn --simulator "$SIM" --sim-config gpu.config -o run -q
[ "$(simulated)" = 0 ] && ok || bad "a rerun of the refined plan simulated $(simulated) launches"
msum=$(cksum <run/manifest.json)
# the parent's run again (the README typed twice): nothing to run, the
# folder stays the refined plan's; with other options, refused
expect 0 "$KS" run plan.json --traces syn --simulator "$SIM" --sim-config gpu.config -o run -q
grep -q "every launch of plan.json is done here ($n1 jobs, reused since by plan2.json): nothing to run" "$T/err" && ok ||
    bad "the parent's rerun: $(cat "$T/err")"
refused 2 "was run with --warmup state:kernel, this run has --warmup none" \
    "$KS" run plan.json --traces syn --simulator "$SIM" --warmup none -o run -q
[ "$(simulated)" = 0 ] && ok || bad "the parent's rerun simulated $(simulated) launches"
[ "$(cksum <run/manifest.json)" = "$msum" ] && ok || bad "the parent's rerun changed the manifest"
expect 0 "$KS" estimate plan2.json run
cmp -s "$T/out" reused.est && ok || bad "the refined plan's estimate changed after the parent's rerun"

# --- refusals: what makes the parent's values invalid for the child -------
expect 0 "$KS" run plan.json --traces syn --simulator "$SIM" --sim-config gpu.config -o r2 -q
msum=$(cksum <r2/manifest.json)
rm -f "$COUNT"
refused 2 "was run with --warmup state:kernel, this run has --warmup none.*-o NEW" \
    "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none -o r2 -q
refused 2 "reused for this plan" "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none -o r2 -q
# the same configuration path, another simulated machine (1 MB of L2)
printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 4\n' >gpu.config
refused 2 "configuration.*holds other contents.*-o NEW" \
    "$KS" run plan2.json --traces syn --simulator "$SIM" --sim-config gpu.config -o r2 -q
printf -- '-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:P\n-gpgpu_n_mem 16\n' >gpu.config
refused 2 "the simulator command" \
    "$KS" run plan2.json --traces syn --simulator "sh $SIM" --sim-config gpu.config -o r2 -q
# a plan that is not refined from the folder's
expect 0 "$KS" sample syn/time.csv --seed 7 --epsilon 0.2 -o other.json
refused 2 "is not in .*other.json: that is not a plan refined from it" \
    "$KS" run other.json --traces syn --simulator "$SIM" --sim-config gpu.config -o r2 -q
[ "$(simulated)" = 0 ] && ok || bad "a refused run simulated $(simulated) launches"
[ "$(cksum <r2/manifest.json)" = "$msum" ] && ok || bad "a refused run changed the manifest"
[ "$(ls r2/jobs | wc -l)" = "$n1" ] && ok || bad "a refused run left job folders: $(ls r2/jobs | tr '\n' ' ')"

# --- an interrupted refined run, rerun; --batch 2 and --warmup none -------
expect 0 "$KS" run plan.json --traces syn --simulator "$SIM" --warmup none --batch 2 -o r3 -q
touch failnow
expect 1 "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none --batch 2 -o r3 -q
rm -f failnow "$COUNT"
expect 0 "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none --batch 2 -o r3 -q
[ "$(simulated)" = "$new" ] && ok || bad "the rerun of a failed refined run simulated $(simulated), not $new"
expect 0 "$KS" estimate plan2.json r3
cp "$T/out" r3.est
expect 0 "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none --batch 2 -o r4 -q
expect 0 "$KS" estimate plan2.json r4
cmp -s "$T/out" r3.est && ok || bad "--batch 2: the reused folder's estimate differs from a fresh run's"
refused 2 "was run with --batch 2, this run has --batch 1" \
    "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none -o r3 -q

# --- a folder whose manifest does not record the plan's profile (made before
# it was recorded): the plan it names, still that plan, tells it
for r in r5 r6; do
    expect 0 "$KS" run plan.json --traces syn --simulator "$SIM" --warmup none -o $r -q
    sed -i '/"profile_xxh128"/d' $r/manifest.json
done
rm -f "$COUNT"
expect 0 "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none -o r5 -q
[ "$(simulated)" = "$new" ] && ok || bad "the folder without a recorded profile: $(simulated) simulated, not $new"
mv plan.json plan.moved
refused 2 "does not record the plan's profile" \
    "$KS" run plan2.json --traces syn --simulator "$SIM" --warmup none -o r6 -q
mv plan.moved plan.json

summary
