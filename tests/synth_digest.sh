#!/bin/sh
# synth_digest.sh - the trace folders behind the recorded simulator data
# (tests/data/accelsim-*/synth-command.txt) regenerate byte for byte: the
# command is run again and every file compared with traces.sha256 (the list,
# stats.csv, time.csv, the Nsight-Compute-like metrics, and the kernel traces
# in launch order as one digest).  synth-params.txt names the ksample
# version and is left out.  Writes up to 700 MB under $TMPDIR while it runs.
# usage: tests/synth_digest.sh path/to/ksample path/to/source-root
KS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$2" && pwd)
. "$(dirname "$0")/lib.sh"

found=0
for d in "$ROOT"/tests/data/accelsim-*/; do
    [ -f "$d/synth-command.txt" ] && [ -f "$d/traces.sha256" ] || continue
    found=1
    name=$(basename "$d")
    mkdir -p "$T/$name"
    # the recorded command, with this build's ksample: "ksample synth ARGS"
    set -- $(head -n 1 "$d/synth-command.txt")
    [ "$1 $2" = "ksample synth" ] || { bad "$name: synth-command.txt is not a synth command"; continue; }
    shift 2
    (cd "$T/$name" && "$KS" synth "$@" >"$T/out" 2>"$T/err") || { bad "$name: synth failed: $(cat "$T/err")"; continue; }
    dir=$(cd "$T/$name" && ls -d */ | head -n 1)
    (cd "$T/$name" && grep -v 'kernel-\*' "$d/traces.sha256" | sha256sum -c --quiet) >"$T/chk" 2>&1 \
        && ok || bad "$name: $(cat "$T/chk")"
    n=$(grep -c '^kernel' "$T/$name/${dir}kernelslist.g")
    got=$(cd "$T/$name/$dir" && i=1 && while [ $i -le "$n" ]; do cat "kernel-$i.traceg"; i=$((i + 1)); done | sha256sum | cut -d' ' -f1)
    want=$(grep 'kernel-\*' "$d/traces.sha256" | cut -d' ' -f1)
    [ "$got" = "$want" ] && ok || bad "$name: kernel traces digest $got, recorded $want"
    rm -rf "${T:?}/$name"
done
[ "$found" = 1 ] || bad "no recorded data set with a synth command"
summary
