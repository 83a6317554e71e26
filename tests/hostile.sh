#!/bin/sh
# hostile.sh - issue 14's hostile inputs and options, end to end: each line
# that misbehaved before the fix is a check here.
# usage: tests/hostile.sh path/to/ksample
KS=$1
. "$(dirname "$0")/lib.sh"

printf 'name,duration_ns\na,10\na,12\nb,5\nb,50\n' >"$T/four.csv"

# --- options: nan/inf and out-of-range values are usage errors ----------
for o in "--seed nan" "--seed inf" "--seed -1" "--seed 18446744073709551616" \
         "--seed 0x10" "--epsilon nan" "--epsilon inf" "--confidence nan" \
         "--confidence 0.9999999999999999" "--n-th nan" "--n-min nan" \
         "--n-min 1e19" "--target-speedup inf" "--fraction nan" "--max-depth nan"; do
    # shellcheck disable=SC2086
    expect 2 "$KS" sample "$T/four.csv" $o -o "$T/o.json"
done
expect 2 "$KS" info --top nan "$T/four.csv"
# seeds above 2^53 are recorded exactly
expect 0 "$KS" sample "$T/four.csv" --seed 18446744073709551615 -o "$T/seed.json"
grep -q '"seed": 18446744073709551615' "$T/seed.json" || bad "seed 2^64-1 not recorded exactly"
expect 0 "$KS" sample "$T/four.csv" --seed 9007199254740993 -o "$T/seed.json"
grep -q '"seed": 9007199254740993' "$T/seed.json" || bad "seed 2^53+1 rounded"
# a confidence just below the cap still gives a finite z
expect 0 "$KS" sample "$T/four.csv" --confidence 0.999999 -o "$T/z.json"
grep -q '"z": null' "$T/z.json" && bad "z recorded as null"
# allegro: n_min 1e7 on four rows is bounded (it took > 20 s and 750 MB);
# beyond the draw limit it is refused before drawing
expect 0 "$KS" sample "$T/four.csv" --method allegro --n-min 1e7 -o "$T/a.json"
expect 2 "$KS" sample "$T/four.csv" --method allegro --n-min 1e8 -o "$T/a.json"

# --- output never destroys data ------------------------------------------
cp "$T/four.csv" "$T/in.csv"
expect 2 "$KS" sample "$T/in.csv" -o "$T/in.csv"
cmp -s "$T/four.csv" "$T/in.csv" || bad "-o INPUT overwrote the profile"
ln -s in.csv "$T/in-link.csv"
expect 2 "$KS" sample "$T/in-link.csv" -o "$T/in.csv"
echo old >"$T/real.json"
ln -s real.json "$T/link.json"
expect 0 "$KS" sample "$T/four.csv" -o "$T/link.json"
[ -L "$T/link.json" ] || bad "-o LINK replaced the symbolic link"
grep -q '"schema"' "$T/real.json" || bad "-o LINK did not write the file it points to"
if mkfifo "$T/fifo" 2>/dev/null; then
    cat "$T/fifo" >"$T/fifo.out" &
    expect 0 "$KS" sample "$T/four.csv" -o "$T/fifo"
    wait
    [ -p "$T/fifo" ] || bad "-o FIFO replaced the FIFO"
    grep -q '"schema"' "$T/fifo.out" || bad "-o FIFO wrote nothing through it"
fi
# (a shared machine may have had its /dev/null replaced already: check only
# a character device)
if [ -c /dev/null ]; then
    expect 0 "$KS" sample "$T/four.csv" -o /dev/null
    [ -c /dev/null ] || bad "-o /dev/null replaced the device node"
fi
# -o /dev/stdout appends through the shell's descriptor, never replaces the file
echo first >"$T/log"
"$KS" sample "$T/four.csv" -o /dev/stdout >>"$T/log" 2>/dev/null || bad "-o /dev/stdout failed"
head -1 "$T/log" | grep -q '^first$' || bad "-o /dev/stdout >> log clobbered the log"
grep -q '"schema"' "$T/log" || bad "-o /dev/stdout wrote nothing"
mkdir "$T/dir"
expect 3 "$KS" sample "$T/four.csv" -o "$T/dir"
ls "$T" | grep -q 'tmp' && bad "a temporary file was left: $(ls "$T")"
if [ -w /dev/full ]; then
    expect 3 "$KS" sample "$T/four.csv" -o /dev/full
    expect 3 sh -c "\"$KS\" info \"$T/four.csv\" >/dev/full"
    expect 3 sh -c "\"$KS\" eval \"$T/four.csv\" --iters 2 >/dev/full"
    expect 3 sh -c "\"$KS\" formats >/dev/full"
    expect 3 sh -c "\"$KS\" synth -n 100 >/dev/full"
fi

# --- names and headers ----------------------------------------------------
printf 'name,duration_ns\n"a\377\300b",10\n"\342\202\254",12\n' >"$T/latin.csv"
expect 0 "$KS" sample "$T/latin.csv" -o "$T/latin.json"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' \
        "$T/latin.json" 2>/dev/null || bad "plan of non-UTF-8 names is not valid JSON"
    "$KS" info --json "$T/latin.csv" >"$T/info.json"
    python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' \
        "$T/info.json" 2>/dev/null || bad "info --json of non-UTF-8 names is not valid JSON"
fi
printf 'name,duration_ns\na\000x,10\na\000y,12\n' >"$T/nul.csv"
expect 4 "$KS" info "$T/nul.csv"
grep -q 'NUL byte' "$T/err" || bad "NUL in a name not named: $(cat "$T/err")"
printf 'name,duration_ns,name\na,10,b\n' >"$T/dup.csv"
expect 4 "$KS" info "$T/dup.csv"
grep -q "appears twice" "$T/err" || bad "duplicate column not named: $(cat "$T/err")"
printf '\357\273\277name,duration_ns\na,10\n' >"$T/bom.csv"
expect 0 "$KS" info "$T/bom.csv"

# --- an ncu file without any time metric is told by info -----------------
printf '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"\n"0","1","p","h","k","1","7","S","dram__bytes.sum","byte","10"\n' >"$T/notime.csv"
expect 0 "$KS" info "$T/notime.csv"
grep -q 'no time metric' "$T/out" || bad "info says nothing of a file without time"
grep -q 'no kernel durations' "$T/err" || bad "info gives no warning for a file without time"
expect 4 "$KS" sample "$T/notime.csv" -o "$T/n.json"

# --- memory bounded by launches, not by one line ---------------------------
{ printf 'name,duration_ns\n'; head -c 20000000 /dev/zero | tr '\0' a; printf ',5\n'; } | gzip -1 >"$T/long.csv.gz"
expect 4 "$KS" info "$T/long.csv.gz"
grep -q 'longer than 16 MB' "$T/err" || bad "long line: $(cat "$T/err")"

summary
