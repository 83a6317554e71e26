#!/bin/sh
# lib.sh - what every end-to-end script shares, sourced after KS is set:
# a scratch folder $T removed on exit, pass/fail counters, `expect` and the
# closing summary (whose status is the script's).
# usage: . "$(dirname "$0")/lib.sh"
set -u
# KS absolute, so that a script may cd
case $KS in /*) ;; *) KS=$PWD/$KS ;; esac
T=$(mktemp -d "/tmp/ks_$(basename "$0" .sh)_XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
failed=0

ok() { pass=$((pass + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect CODE CMD...: runs CMD (stdout to $T/out, stderr to $T/err), checks its exit status
expect() {
    want=$1
    shift
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$* -> exit $got, wanted $want: $(head -c 300 "$T/err")"; fi
}

# refused CODE PATTERN CMD...: CMD exits CODE, its stderr matches PATTERN and
# every message names its command
refused() {
    want=$1 pattern=$2
    shift 2
    expect "$want" "$@"
    grep -q -- "$pattern" "$T/err" || bad "$* -> no '$pattern' in: $(head -c 400 "$T/err")"
    grep -q '^ksample :' "$T/err" && bad "$* -> a message without its command: $(cat "$T/err")"
    return 0
}

# macsim_traces MSIM: the shared data set's MacSim traces laid out in $T/m
# (m/tr: kernel_config.txt and KernelN links into the unpacked m/<program>)
macsim_traces() {
    mkdir -p "$T/m/tr"
    (cd "$T/m" && tar -xJf "$1/macsim-vectormultadd-4096-16384-traces.tar.xz")
    cp "$1/kernel_config.txt" "$T/m/tr/"
    tail -n +2 "$1/composition.csv" | while IFS=, read -r l k s src; do
        ln -s "$T/m/$src" "$T/m/tr/Kernel$l"
    done
}

# summary: the counts, then succeed only when nothing failed
summary() {
    echo "$(basename "$0"): $pass passed, $failed failed"
    [ "$failed" = 0 ]
}
