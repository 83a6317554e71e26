#!/bin/sh
# bench_scale.sh - end-to-end `ksample sample` on a generated casio-like
# profile of N launches: wall, CPU, peak RSS, against `cat` of the same file
# and two floors no reader can go below (a newline count; read + digest).
#
# usage: [RUNS=2] [BENCH_DIR=/tmp] bench/bench_scale.sh N KSAMPLE [KSAMPLE...]
# Every KSAMPLE given (e.g. the build of main and of a branch) runs RUNS
# times on the same file.  The profile is generated under $BENCH_DIR (default /tmp),
# measured, and DELETED after (50 M launches are 14 GB: keep one such file at
# a time).  The load average is printed too: on a shared machine CPU seconds
# (user + sys) are the steadier figure.  Plans are compared by digest.
set -eu
N=$1
shift
DIR=${BENCH_DIR:-/tmp}
# a fixed name: the plan records the path, so plans of runs compare byte for byte
F="$DIR/bench_scale_$N.csv"
trap 'rm -f "$F" "$F.plan" "$F.time"' EXIT INT TERM
nice "$1" synth --preset casio-like -n "$N" -o "$F"
echo "launches=$N bytes=$(stat -c %s "$F") nproc=$(nproc)"
echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
for run in 1 2; do
    /usr/bin/time -f "cat run=$run wall=%e user=%U sys=%S rss_kb=%M" cat "$F" >/dev/null
done
# floors below any reader: `wc -l` looks at every byte once (one memchr pass);
# bench_read --bytes reads the bytes into a buffer and digests them, as the
# reader must before a plan can record the input's digest (one thread)
/usr/bin/time -f "wc-l wall=%e user=%U sys=%S" wc -l "$F" >/dev/null
BR="$(dirname "$1")/bench_read"
[ -x "$BR" ] && "$BR" --bytes "$F" 1 | sed 's/^/read+digest /'
for KS in "$@"; do
    for run in $(seq "${RUNS:-2}"); do
        /usr/bin/time -o "$F.time" \
            -f "sample $KS run=$run wall=%e user=%U sys=%S rss_kb=%M" \
            nice "$KS" sample -o "$F.plan" "$F" 2>/dev/null
        cat "$F.time"
        echo "plan_xxh128=$(xxh128sum "$F.plan" | cut -d' ' -f1) load=$(cut -d' ' -f1 /proc/loadavg)"
    done
done
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
