#!/bin/sh
# replay-accelsim.sh - a STAND-IN for Accel-Sim.  It is not Accel-Sim and
# simulates nothing: it replays what the real simulator printed for the same
# launches, from a recorded data set (tests/data/accelsim-*, or
# ../shared/data/sim/accelsim-synth).
#
# `ksample run --simulator "sh $PWD/scripts/replay-accelsim.sh DATASET {kernelslist}"`
# runs it in each job folder, where the real simulator would run (so give
# absolute paths).  It reads the
# job's kernelslist.g as the simulator would and prints:
# - for a list of one launch, that launch's block of the ALONE log (the launch
#   simulated by itself from cold caches: what `run --warmup none` asks for);
# - for a list of every launch in program order, the FULL run's log;
# and fails for any other list (a warm-up kernel, launches out of order).
#
# DATASET is a folder with one alone_*.out.xz and one full_*.out.xz; with
# several configurations name the two logs instead.  ALONE holds one block per
# launch, each after a line `===== ksample-simdata: ... launch L ...` (L
# 0-based: the trace kernel-(L+1).traceg).
# usage: replay-accelsim.sh DATASET KERNELSLIST
#        replay-accelsim.sh ALONE.out.xz FULL.out.xz KERNELSLIST
set -eu
usage="usage: replay-accelsim.sh DATASET KERNELSLIST | ALONE.out.xz FULL.out.xz KERNELSLIST"
if [ $# = 2 ]; then
    set -- "$1"/alone_*.out.xz "$1"/full_*.out.xz "$2"
    [ $# = 3 ] && [ -f "$1" ] && [ -f "$2" ] ||
        { echo "replay-accelsim.sh: the data set needs one alone_*.out.xz and one full_*.out.xz; $usage" >&2; exit 2; }
fi
[ $# = 3 ] || { echo "$usage" >&2; exit 2; }
alone=$1
full=$2
list=$3
n=$(grep -c '^kernel' "$list" || true)
total=$(xz -dc "$alone" | grep -c '^===== ksample-simdata: .* launch [0-9]* ')
if [ "$n" = "$total" ] && [ "$(grep '^kernel' "$list" | head -n 1)" = kernel-1.traceg ]; then
    exec xz -dc "$full"
fi
if [ "$n" != 1 ]; then
    echo "replay-accelsim.sh: replays one launch or the whole program ($total launches), not a list of $n" >&2
    exit 3
fi
k=$(grep '^kernel' "$list" | sed -n 's/^kernel-\([0-9][0-9]*\)\.traceg$/\1/p')
[ -n "$k" ] || { echo "replay-accelsim.sh: $list: not a kernel-N.traceg line" >&2; exit 3; }
xz -dc "$alone" | awk -v l=$((k - 1)) '
    /^===== ksample-simdata: / { if (f) exit; f = ($0 ~ (" launch " l " ")); next }
    f { print; found = 1 }
    END { exit !found }' || { echo "replay-accelsim.sh: launch $((k - 1)) is not in $alone" >&2; exit 3; }
