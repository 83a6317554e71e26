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
case $KS in /*) ;; *) KS=$PWD/$KS ;; esac
SRC=${2:-$(cd "$(dirname "$0")/.." && pwd)}
SHARED="$SRC/../shared/data"
. "$(dirname "$0")/lib.sh"

# refused CODE PATTERN CMD...: CMD exits CODE and its stderr matches PATTERN
refused() {
    want=$1 pattern=$2
    shift 2
    expect "$want" "$@"
    grep -q -- "$pattern" "$T/err" || bad "$* -> no '$pattern' in: $(head -c 400 "$T/err")"
    return 0
}
# unchanged: every file under the folders given has the bytes it had
snapshot() { find "$@" -type f -exec cksum {} + | sort >"$T/before.sum"; }
unchanged() {
    find "$@" -type f -exec cksum {} + | sort >"$T/after.sum"
    cmp -s "$T/before.sum" "$T/after.sum" || bad "an input changed: $(diff "$T/before.sum" "$T/after.sum" | head -3)"
}
ids() { grep -o '"id": [0-9]*' "$1" | sed 's/"id": //'; }

cd "$T" || exit 1
"$KS" synth --traces st -n 40 --seed 5 2>/dev/null || exit 1
"$KS" sample st/time.csv --method stem --epsilon 0.3 -o plan.json 2>/dev/null || exit 1
"$KS" sample st/time.csv --epsilon 1e-320 -o census.json 2>/dev/null || exit 1

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

# --- MacSim: outputs through the links of an input trace folder ---------------
MSIM="$SHARED/sim/macsim-vectormultadd"
if [ -f "$MSIM/kernel_config.txt" ]; then
    mkdir -p m/tr
    (cd m && tar -xJf "$MSIM/macsim-vectormultadd-4096-16384-traces.tar.xz")
    cp "$MSIM/kernel_config.txt" m/tr/
    tail -n +2 "$MSIM/composition.csv" | while IFS=, read -r l k s src; do
        ln -s "$T/m/$src" "m/tr/Kernel$l"
    done
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
else
    echo "SKIP: $MSIM absent, MacSim cases skipped"
fi

summary
