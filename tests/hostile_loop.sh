#!/bin/sh
# hostile_loop.sh - issue 25's hostile inputs, options, output paths and
# signals for the commands that close the loop (export, run, estimate,
# refine, train, embed, report), end to end, beside issue 14's hostile.sh.
# Each line of a table below misbehaved before the fix.
# usage: tests/hostile_loop.sh path/to/ksample
KS=$1
. "$(dirname "$0")/lib.sh"

cd "$T" || exit 1
# the commands run in $T: relative paths, '.' and '..' as a user types them
"$KS" synth --traces st -n 60 --seed 7 2>/dev/null || exit 1
"$KS" synth --traces small -n 8 --seed 3 2>/dev/null || exit 1
# --key name: the checks below are of plans without shape strata (sample
# splits the synthetic names' shapes by default, issue 40)
"$KS" sample st/time.csv --method stem --key name --epsilon 0.3 -o plan.json 2>/dev/null || exit 1
"$KS" sample st/time.csv --method stem --key name --epsilon 0.3 --seed 2 -o plan2.json 2>/dev/null || exit 1
"$KS" train --traces small -o m.ksm --epochs 1 -q 2>/dev/null || exit 1
# the sampled ids, and "id name grid block" of every launch (time.csv:
# name,duration_ns,id,grid,block with grids as "8 1 1")
ids() { grep -o '"id": [0-9]*' "$1" | sed 's/"id": //'; }
awk -F, 'NR > 1 { g = $4; b = $5; gsub(/ /, ",", g); gsub(/ /, ",", b); print $3, $1, g, b }' \
    st/time.csv >launches
# simlog PLAN [CYCLES_OF_UID_3]: an Accel-Sim log of PLAN's sampled launches
# as the simulator prints it (trace header echoed, then the block)
simlog() {
    ids "$1" | awk -v bad="${2:-}" 'NR == FNR { n[$1] = $2; g[$1] = $3; b[$1] = $4; next }
        { u = FNR; printf "Processing kernel kernel-%d.traceg\n", $1 + 1
          printf "-kernel name = %s\n-grid dim = (%s)\n-block dim = (%s)\n", n[$1], g[$1], b[$1]
          printf "Header info loaded for kernel command : kernel-%d.traceg\n", $1 + 1
          printf "launching kernel name: %s uid: %d cuda_stream_id: 0\n", n[$1], u
          printf "kernel_name = %s \nkernel_launch_uid = %d \n", n[$1], u
          printf "gpu_sim_cycle = %s\ngpu_sim_insn = %d\n", (u == 3 && bad != "") ? bad : 1000 + 7 * $1, 3000 + $1 }' \
        launches -
}
simlog plan.json >sim.log
simlog plan2.json >other.log
(echo id,gpu_sim_cycle; ids plan.json | awk '{ print $1 "," 1000 + 7 * $1 }') >res.csv
for f in st/* small/* plan.json plan2.json m.ksm sim.log res.csv; do cksum "$f"; done >before.sum

# --- no command writes over, into or around one of its inputs -------------
ln -s st st-link
mkdir elsewhere
refused 2 "is the input st" "$KS" export plan.json --to accelsim --traces st -o st
refused 2 "is the input" "$KS" export plan.json --to accelsim --traces st-link -o st
refused 2 "is the input" "$KS" export plan.json --to accelsim --traces st -o st/../st/
refused 2 "inside the input folder st" "$KS" export plan.json --to accelsim --traces st -o st/sim
refused 2 "holds the input" "$KS" export plan.json --to accelsim --traces st -o .
refused 2 "is the input plan.json" "$KS" export plan.json --to ids -o plan.json
refused 2 "is the input st/time.csv" "$KS" export plan.json --to ids -o st/time.csv
refused 2 "is the input plan2.json" "$KS" export plan.json --to ids --exclude plan2.json -o plan2.json
refused 2 "is the input plan.json" "$KS" refine plan.json res.csv -o plan.json
refused 2 "is the input res.csv" "$KS" refine plan.json res.csv -o res.csv
refused 2 "is the input st/time.csv" "$KS" refine plan.json res.csv -o st/time.csv
refused 2 "is the input st/time.csv" "$KS" report st/time.csv --plan plan.json -o st/time.csv
refused 2 "is the input plan.json" "$KS" report st/time.csv --plan plan.json -o plan.json
refused 2 "is the input m.ksm" "$KS" embed --model m.ksm --traces small -o m.ksm
refused 2 "inside the input folder small" "$KS" embed --model m.ksm --traces small -o small/e.csv
refused 2 "inside the input folder st" "$KS" train --traces st -o st/kernelslist.g --epochs 1
refused 2 "is the input st" "$KS" train --traces st -o st --epochs 1
refused 2 "is the input st" "$KS" run plan.json --traces st --simulator 'true {kernelslist}' -o st
refused 2 "inside the input folder st" "$KS" run plan.json --traces st --simulator 'true {kernelslist}' -o st/run
refused 2 "holds the input" "$KS" run plan.json --traces st --simulator 'true {kernelslist}' -o .
refused 2 "are one file" "$KS" sample st/time.csv -o x.json --save-model x.json
refused 2 "is the input m.ksm" "$KS" sample small/time.csv --traces small --method gcl --model m.ksm --save-model m.ksm -o p.json
refused 2 "lie one inside the other" "$KS" synth --traces d -n 5 --ncu d/ncu.csv
while read -r sum size f; do
    [ "$(cksum "$f")" = "$sum $size $f" ] || bad "$f changed"
done <before.sum
[ -L st/kernel-6.traceg ] && bad "a trace was replaced by a link"
if [ -e d ] || [ -e st/sim ] || [ -n "$(ls -A elsewhere)" ]; then
    bad "a refused command wrote something: $(ls -d d st/sim elsewhere/* 2>/dev/null)"
fi
# writing elsewhere still works; an export over its own earlier links too
expect 0 "$KS" export plan.json --to accelsim --traces st -o elsewhere/sim
expect 0 "$KS" export plan.json --to accelsim --traces st -o elsewhere/sim

# --- estimate: results of this plan only, numbers strictly -------------------
expect 0 "$KS" estimate plan.json sim.log
expect 0 "$KS" estimate plan.json res.csv
refused 4 "other.log:[0-9]*: .*plan id" "$KS" estimate plan.json other.log
for v in 12abc 0x10 -5 1e999; do
    simlog plan.json "$v" >bad.log
    refused 4 "bad.log:[0-9]*: gpu_sim_cycle: '$v'" "$KS" estimate plan.json bad.log
done
for v in -5 0x10 12abc; do
    printf 'id,gpu_sim_cycle\n%s,%s\n' "$(ids plan.json | head -1)" "$v" >bad.csv
    refused 4 "bad.csv:2: column gpu_sim_cycle: '$v'" "$KS" estimate plan.json bad.csv
done
refused 3 "nosuch.csv" "$KS" estimate plan.json sim.log --profile nosuch.csv
# without the profile, names are checked against the plan's kernel groups
mv st/time.csv time.csv.away
refused 4 "plan's kernel group" "$KS" estimate plan.json other.log
expect 0 "$KS" estimate plan.json sim.log
grep -q "grid and block of .* not checked" "$T/err" || bad "no note of what was not checked: $(cat "$T/err")"
mv time.csv.away st/time.csv

# --- refine meets the bound it prints, or says it takes every launch --------
expect 0 "$KS" refine plan.json res.csv --epsilon 1e-9 -o r9.json
grep -q "every cluster is simulated whole (60 of 60 launches)" "$T/err" || bad "refine 1e-9: $(cat "$T/err")"
expect 0 "$KS" refine plan.json res.csv --epsilon 0.05 -o r5.json
grep -q "met with the spread observed" "$T/err" || bad "refine 0.05: $(cat "$T/err")"

# --- CSV rows and options -----------------------------------------------------
printf 'name,duration_ns\na,10,5\nb,3\n' >long.csv
refused 4 "long.csv:2: .*unquoted comma" "$KS" info long.csv
printf 'name,duration_ns\n"a\nb",10\nc,3\n' >nl.csv
refused 4 "nl.csv:2: .*line break" "$KS" info nl.csv
refused 2 "name-kind is demangled, short or mangled" "$KS" info --name-kind bogus st/time.csv
refused 2 "name-kind is demangled, short or mangled" "$KS" sample --name-kind bogus --traces st -o p.json
refused 2 "name-kind: format plain-csv" "$KS" info --name-kind short st/time.csv
refused 2 "option -o needs an argument" "$KS" sample st/time.csv -o
refused 2 "option --epsilon needs an argument" "$KS" sample st/time.csv --epsilon
refused 2 "option --traces needs an argument" "$KS" run plan.json --traces
refused 2 "unknown option --bogus" "$KS" estimate plan.json sim.log --bogus
refused 2 "ksample info: --device" "$KS" info --device x st/time.csv
refused 2 "got '0x1p-3'" "$KS" sample st/time.csv --epsilon 0x1p-3 -o p.json
refused 2 "in \[1e-300, 1\], got '1e-320'" "$KS" sample st/time.csv --method random --fraction 1e-320 -o p.json
# 1e-320 is a number in (0, 1): a bound only a census meets
expect 0 "$KS" sample st/time.csv --epsilon 1e-320 -o p.json
grep -q "60 of 60 invocations" "$T/err" || bad "--epsilon 1e-320: $(cat "$T/err")"
expect 0 "$KS" estimate plan.json sim.log --epsilon 1e-320

# --- a signal to ksample run stops its jobs, and only those rerun -------------
# stand-in simulator: logs its call; jobs 0-3 end at once, the others
# start a child that sleeps (the simulator proper); with a fourth argument
# the job ignores SIGTERM (SIGKILL after the grace period).  Once $2.quick
# exists every job ends at once, logging its call to $2.rerun (a rerun must
# have the command of the run it resumes: issue 34)
cat >slow.sh <<'EOF'
[ -e "$2.quick" ] && { echo "$1" >>"$2.rerun"; exit 0; }
echo "$1" >>"$2"
case $1 in */jobs/000[0-3]/*) exit 0 ;; esac
echo $$ >>"$3"
[ -n "$4" ] && trap '' TERM
sleep 60 &
echo $! >>"$3"
wait
EOF
n=$(ids plan.json | wc -l)
for sig in TERM INT HUP; do
    rd=run-$sig
    : >calls-$sig
    ignore=
    [ "$sig" = TERM ] && ignore=yes
    "$KS" run plan.json --traces st -j 3 -q -o "$rd" \
        --simulator "sh $T/slow.sh {kernelslist} $T/calls-$sig $T/pids-$sig $ignore" 2>"$T/run-err" &
    ks=$!
    i=0
    while [ "$(wc -l <"calls-$sig")" -lt 7 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.2
    kill -"$sig" "$ks" # ksample alone, not its process group
    wait "$ks"
    code=$?
    case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
    [ "$code" = "$want" ] || bad "SIG$sig: run exited $code, wanted $want: $(cat "$T/run-err")"
    sleep 0.2
    while read -r pid; do
        kill -0 "$pid" 2>/dev/null && bad "SIG$sig: process $pid of a job survived"
    done <"pids-$sig"
    expect 0 "$KS" status "$rd"
    grep -q "$n jobs: 4 done, 0 failed, 0 started, 3 interrupted, $((n - 7)) pending" "$T/out" ||
        bad "SIG$sig: status: $(cat "$T/out")"
    for j in 4 5 6; do
        grep -qx interrupted "$rd/jobs/000$j/status" || bad "SIG$sig: job $j not interrupted"
    done
    : >calls-$sig.rerun
    : >calls-$sig.quick
    sim="sh $T/slow.sh {kernelslist} $T/calls-$sig $T/pids-$sig $ignore"
    expect 0 "$KS" run plan.json --traces st -j 3 -q -o "$rd" --simulator "$sim"
    [ "$(wc -l <"calls-$sig.rerun")" = "$((n - 4))" ] || bad "SIG$sig: the rerun ran $(wc -l <"calls-$sig.rerun") jobs, wanted $((n - 4))"
    grep -q "jobs/000[0-3]/" "calls-$sig.rerun" && bad "SIG$sig: the rerun ran a finished job"
    expect 0 "$KS" run plan.json --traces st -j 3 -q -o "$rd" --simulator "$sim"
    [ "$(wc -l <"calls-$sig.rerun")" = "$((n - 4))" ] || bad "SIG$sig: a run of a finished folder ran jobs again"
done

summary
