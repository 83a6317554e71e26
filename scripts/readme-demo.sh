#!/bin/sh
# readme-demo.sh - puts the demo's simulator loop, as it prints it today, into
# the README's output block (the ```text block after the comment naming this
# script).  Runs scripts/demo.sh as `make demo` does, from scratch: build/demo
# is removed first.
# usage: scripts/readme-demo.sh [path/to/ksample]     (default build/ksample)
set -eu
cd "$(dirname "$0")/.."
KS=${1:-build/ksample}
out=$(mktemp /tmp/readme-demo.XXXXXX)
trap 'rm -f "$out" "$out.loop" "$out.md"' EXIT
rm -rf build/demo
DEMO_OUT=build/demo sh scripts/demo.sh "$KS" >"$out" 2>&1 || { cat "$out"; exit 1; }
sed -n '/^== 4\./,$p' "$out" >"$out.loop"
awk -v f="$out.loop" '
    /scripts\/readme-demo\.sh/ { print; mark = 1; next }
    mark == 1 && /^```text$/ { print; while ((getline l < f) > 0) print l; mark = 2; next }
    mark == 2 && /^```$/ { print; mark = 3; next }
    mark == 2 { next }
    { print }
    END { if (mark != 3) exit 1 }' README.md >"$out.md" ||
    { echo "readme-demo.sh: README.md has no output block after the comment naming this script" >&2; exit 1; }
cat "$out.md" >README.md
echo "README.md: the demo's loop, $(wc -l <"$out.loop") lines; README.md $(wc -l <README.md) lines"
