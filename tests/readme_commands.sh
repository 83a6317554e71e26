#!/bin/sh
# readme_commands.sh - every command in README.md runs as written.
#
# The commands are the lines of its ```sh blocks and the `$ ` lines of its
# ```text blocks (the demo's output, whose commands can be typed again).  They
# run in order, each in `sh -c`, in a scratch folder laid out like the source
# folder (build/ksample is the ksample under test; scripts, tests, examples,
# docs are links), and each must exit 0.  `make demo` runs as what it runs
# after the build (scripts/demo.sh build/ksample); `make test` is what runs
# this test and is left out.  Also: the README stays a ten-minute page (150
# lines at most) and every docs/ file it names exists.
# usage: tests/readme_commands.sh path/to/ksample path/to/source-root
KS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$2" && pwd)
. "$(dirname "$0")/lib.sh"
README=$ROOT/README.md

n=$(wc -l <"$README")
[ "$n" -le 150 ] && ok || bad "README.md has $n lines, more than 150"
for f in $(grep -o 'docs/[a-z_]*\.md' "$README" | sort -u); do
    [ -f "$ROOT/$f" ] && ok || bad "README.md names $f, which does not exist"
done

# the commands, one a line (a trailing backslash joins the next line)
awk '
    /^```sh$/ { blk = "sh"; next }
    /^```text$/ { blk = "text"; next }
    /^```/ { blk = ""; next }
    blk == "" { next }
    cont != "" { line = cont " " $0; cont = "" }
    cont == "" && line == "" { line = $0 }
    line ~ /\\$/ { sub(/\\$/, "", line); cont = line; line = ""; next }
    blk == "sh" { sub(/[ \t]+#.*$/, "", line); if (line !~ /^[ \t]*(#|$)/) print line }
    blk == "text" && line ~ /^\$ / { print substr(line, 3) }
    { line = "" }' "$README" >"$T/commands"
count=$(wc -l <"$T/commands")
[ "$count" -ge 8 ] && ok || bad "only $count commands found in README.md"
grep -qx 'make demo' "$T/commands" && ok || bad "README.md does not run make demo"

mkdir -p "$T/src/build"
ln -s "$KS" "$T/src/build/ksample"
for d in scripts tests examples docs; do ln -s "$ROOT/$d" "$T/src/$d"; done
# ../shared (the recorded data beside the repository) where it is; commands
# that read it are skipped without it, as every test on it is
SHARED=$ROOT/../shared
[ -d "$SHARED/data" ] && ln -s "$(cd "$SHARED" && pwd)" "$T/shared"
i=0
while IFS= read -r cmd; do
    i=$((i + 1))
    case $cmd in
        'make test') continue ;;
        'make demo') run='sh scripts/demo.sh build/ksample' ;;
        make*) bad "README command $i: '$cmd': only make demo and make test are known here"; continue ;;
        *../shared/*)
            if [ ! -d "$T/shared" ]; then
                echo "SKIP: README command $i reads ../shared, which is absent: $cmd"
                continue
            fi
            run=$cmd ;;
        *) run=$cmd ;;
    esac
    if (cd "$T/src" && sh -c "$run") >"$T/log.$i" 2>&1 </dev/null; then
        ok
    else
        bad "README command $i exits $?: $cmd: $(tail -n 5 "$T/log.$i")"
    fi
done <"$T/commands"
echo "$count commands in README.md"
summary
