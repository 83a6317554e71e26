#!/bin/sh
# report.sh - `ksample report` end to end: renders the bundled example with a
# plan, the methods compared, the epsilon sweep, estimates and measured score
# curves (tests/data/score: real `ksample score --json` outputs), checks the
# page is self-contained and its SVG well-formed (kernel names hold <, >, &),
# then opens it in headless Chromium: the page loads, every chart is in the
# DOM, the console has no errors.  A screenshot is left in /tmp (never in
# the repository) for a person to look at.
# usage: tests/report.sh path/to/ksample source-root
# Exit 77 (skip) only when Chromium is absent and cannot be installed; the
# checks that need no browser have passed by then.
set -u
KS=$1
ROOT=$2
T=$(mktemp -d /tmp/ks_report_XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

CHARTS="hist-0 hist-1 hist-2 hist-3 hist-4 hist-5 speedup-error sweep-speedup sweep-error estimate-interval score-0"
PAGE="$T/report.html"
SC="$ROOT/tests/data/score/transformer"
SCORES="--score $SC-root-stem-eps0.05.json --score $SC-root-stem-eps0.2.json --score gcl<&>=$SC-gcl-k8.json"
# shellcheck disable=SC2086 # SCORES: several words
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --estimate "$ROOT/tests/data/estimate.json" \
    --iters 3 --epsilons 0.02,0.05,0.1 $SCORES -o "$PAGE" 2>"$T/err" ||
    bad "report failed: $(cat "$T/err")"
ls "$T" | grep -q '\.tmp\.' && bad "report left a temporary file"
for id in $CHARTS; do
    grep -q "<svg id=\"$id\"" "$PAGE" || bad "chart $id missing from the page"
done
[ "$(grep -c '<svg ' "$PAGE")" = 11 ] || bad "$(grep -c '<svg ' "$PAGE") charts, wanted 11"
# the score curves: every point of the three files (root and stem at two
# bounds, gcl at one) drawn and in the table; the label escaped
[ "$(grep -o '<circle class="score-point"' "$PAGE" | wc -l)" = 5 ] ||
    bad "$(grep -o '<circle class="score-point"' "$PAGE" | wc -l) score points, wanted 5"
[ "$(grep -c '<tr class="score-row">' "$PAGE")" = 5 ] || bad "score table rows: $(grep -c '<tr class="score-row">' "$PAGE")"
grep -q '<g><title>root</title><polyline class="trace" stroke="[^"]*" points="[0-9.]*,[0-9.]* [0-9.]*,[0-9.]*"' "$PAGE" ||
    bad "root's score curve is not a line through its two points"
grep -q '<tr class="score-row"><td[^>]*>root</td><td>context</td><td>14.0</td><td>99.16x</td><td>1.824</td>' "$PAGE" ||
    bad "root's point at eps 0.2 (99.16x at 1.824 %) not in the score table"
grep -q '>gcl&lt;&amp;&gt;<' "$PAGE" || bad "score label not escaped"
grep -q 'the truth, 14088741 cycles' "$PAGE" || bad "the scores' full run not named"
# self-contained: no script, no fetched resource of any kind
grep -Eiq '<script|<link|<img|<iframe|@import|url\(|(src|href)=' "$PAGE" && bad "the page loads something"
grep -q 'l2 &lt;hits&gt; &amp; misses' "$PAGE" || bad "metric name not escaped"
# shellcheck disable=SC2086 # SCORES: several words
# (the same command: the page names it, -o included)
cp "$PAGE" "$T/first.html"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --estimate "$ROOT/tests/data/estimate.json" \
    --iters 3 --epsilons 0.02,0.05,0.1 $SCORES -o "$PAGE" 2>/dev/null
cmp -s "$T/first.html" "$PAGE" || bad "same inputs gave a different page"

# kernel names with <, > and & end up escaped, in text and in <title>
{
    echo 'name,duration_ns'
    i=0
    while [ $i -lt 300 ]; do
        echo "\"void k<float, 2>(a&b, \"\"q\"\")\",$((1000 + i * 37 % 900))"
        echo "\"op<&>\",$((50000 + i * 91 % 40000))"
        echo "plain,$((20 + i % 7))"
        i=$((i + 1))
    done
} >"$T/names.csv"
"$KS" report "$T/names.csv" --iters 2 -q -o "$T/names.html" || bad "report on odd names failed"
# the default key cuts names at '(': the label is "void k<float, 2>"
grep -q '>void k&lt;float, 2&gt;<' "$T/names.html" || bad "kernel name not escaped"
grep -q '>op&lt;&amp;&gt;<' "$T/names.html" || bad "kernel name op<&> not escaped"
grep -q 'k<float' "$T/names.html" && bad "raw < in the page"
if command -v python3 >/dev/null 2>&1; then
    for f in "$PAGE" "$T/names.html"; do
        python3 - "$f" <<'PY' || bad "$f: an SVG chart is not well-formed XML"
import re, sys, xml.etree.ElementTree as ET
page = open(sys.argv[1], encoding="utf-8").read()
charts = re.findall(r"<svg .*?</svg>", page, re.S)
for svg in charts:
    ET.fromstring(svg)
sys.exit(0 if charts else 1)
PY
    done
fi

# errors name the file
printf '[{"metric": 1}]' >"$T/bad.json"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --iters 0 --estimate "$T/bad.json" -o "$T/x.html" 2>"$T/err"
[ $? = 4 ] && grep -q "bad.json" "$T/err" || bad "bad estimate file: $(cat "$T/err")"
printf '[{"metric": "m", "estimate": 1,' >"$T/cut.json"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --iters 0 --estimate "$T/cut.json" -o "$T/x.html" 2>"$T/err"
[ $? = 4 ] && grep -q "cut.json: not valid JSON" "$T/err" || bad "cut estimate file: $(cat "$T/err")"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --estimate "$T/none.json" -o "$T/x.html" 2>"$T/err"
[ $? = 3 ] || bad "missing estimate file: $(cat "$T/err")"
"$KS" report --epsilons 2 "$ROOT/examples/casio-like-50k.csv.xz" -o "$T/x.html" 2>/dev/null
[ $? = 2 ] || bad "--epsilons 2 accepted"
# score files: one of another full run refused naming both; a bad one named
sed 's/"truth": 14088741/"truth": 14088742/' "$SC-gcl-k8.json" >"$T/other-truth.json"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --iters 0 --score "$SC-gcl-k8.json" \
    --score "$T/other-truth.json" -o "$T/x.html" 2>"$T/err"
[ $? = 4 ] && grep -q "other-truth.json" "$T/err" && grep -q "transformer-gcl-k8.json" "$T/err" ||
    bad "score files of two full runs accepted: $(cat "$T/err")"
printf '{"truth": 5, "methods": [{"method": "r", "sets": [{"values": "c"}]}]}' >"$T/noval.json"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --iters 0 --score "$T/noval.json" -o "$T/x.html" 2>"$T/err"
[ $? = 4 ] && grep -q 'noval.json: method 0, set 0: "launches_mean" is missing' "$T/err" ||
    bad "score set without numbers: $(cat "$T/err")"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --iters 0 --score "=$T/noval.json" -o "$T/x.html" 2>"$T/err"
[ $? = 3 ] || bad "--score '=FILE': $(cat "$T/err")"
"$KS" report "$ROOT/examples/casio-like-50k.csv.xz" --iters 0 --score "name=" -o "$T/x.html" 2>"$T/err"
[ $? = 2 ] || bad "--score 'name=' accepted: $(cat "$T/err")"
[ -e "$T/x.html" ] && bad "a failed report left a page"

# --plan: the page draws the user's plan, not one made here; a plan of
# another profile is refused naming both
EX="$ROOT/examples/casio-like-50k.csv.xz"
"$KS" sample "$EX" --method stem --epsilon 0.1 --seed 77 -o "$T/user-plan.json" 2>/dev/null ||
    bad "sample for --plan failed"
"$KS" report "$EX" --plan "$T/user-plan.json" --iters 0 -q -o "$T/plan.html" 2>"$T/err" ||
    bad "report --plan failed: $(cat "$T/err")"
grep -q '<dd>stem, key [^,]*, seed 77</dd>' "$T/plan.html" || bad "report --plan: not the plan given"
nsamples=$(sed -n 's/.*"summary": {"samples": \([0-9]*\),.*/\1/p' "$T/user-plan.json")
grep -q "<dd>$nsamples distinct invocations" "$T/plan.html" ||
    bad "report --plan: not the plan's $nsamples samples"
"$KS" report "$EX" --iters 0 -q -o "$T/noplan.html" 2>/dev/null
grep -q '<dd>root, key' "$T/noplan.html" || bad "report without --plan: no root plan made here"
"$KS" sample "$T/names.csv" --seed 1 -o "$T/other-plan.json" 2>/dev/null || bad "sample names.csv failed"
"$KS" report "$EX" --plan "$T/other-plan.json" --iters 0 -q -o "$T/x.html" 2>"$T/err"
[ $? = 4 ] && grep -q "other-plan.json" "$T/err" && grep -q "names.csv" "$T/err" &&
    grep -q "casio-like-50k.csv.xz" "$T/err" || bad "a plan of another profile accepted: $(cat "$T/err")"
[ -e "$T/x.html" ] && bad "a refused plan left a page"
# a name+shape plan (shape share epsilon / 4: shapes under it stay with their name's
# largest, under the bare name): the histograms are of the plan's own groups, each with
# its clusters drawn
"$KS" sample "$EX" --key name+shape --include-comm --seed 3 -o "$T/shape-plan.json" 2>/dev/null ||
    bad "sample --key name+shape failed"
"$KS" report "$EX" --plan "$T/shape-plan.json" --iters 0 -q -o "$T/shape.html" 2>"$T/err" ||
    bad "report of a name+shape plan failed: $(cat "$T/err")"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$T/shape.html" "$T/shape-plan.json" <<'PY' || bad "report: a name+shape plan's histograms are not its groups"
import html, json, re, sys
page = open(sys.argv[1]).read()
groups = set(json.load(open(sys.argv[2]))["groups"])
charts = re.findall(r'<svg[^>]*id="(hist[^"]*)"[^>]*>(.*?)</svg>', page, re.S)
assert charts, "no histogram"
for chart, body in charts:
    title = html.unescape(re.search(r"<title>(.*?)</title>", body, re.S).group(1))
    assert title in groups, (chart, title[:80])
    assert "<title>cluster " in body, (chart, "no cluster drawn")
PY
fi

# progress only on a terminal, and --quiet silences it
grep -q "evaluating" "$T/err" && bad "progress printed to a non-terminal"
if command -v script >/dev/null 2>&1; then
    script -qec "'$KS' report '$T/names.csv' --iters 2 -o '$T/p.html'" /dev/null >"$T/tty" 2>&1
    grep -q "report: evaluating methods" "$T/tty" || bad "no progress on a terminal: $(head -c 300 "$T/tty")"
    script -qec "'$KS' report '$T/names.csv' --iters 2 -q -o '$T/p.html'" /dev/null >"$T/tty" 2>&1
    [ -s "$T/tty" ] && bad "--quiet still printed: $(head -c 300 "$T/tty")"
fi

if [ $failed -ne 0 ]; then
    echo "$failed check(s) failed"
    exit 1
fi

# --- in a real browser ------------------------------------------------------
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    # (make test installs it first: scripts/deps.sh --test); apt waits for
    # the package lock rather than failing when another install runs
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium \
        >/dev/null 2>&1
    BROWSER=$(command -v chromium || true)
fi
if [ -z "$BROWSER" ]; then
    echo "SKIP browser part: chromium is not installed and could not be installed" \
        "(apt-get install chromium); the page checks above passed"
    exit 77
fi
browse() {
    profile=$(mktemp -d "$T/chromium_XXXXXX")
    timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --enable-logging=stderr --v=0 --hide-scrollbars "$@"
}
browse --dump-dom "file://$PAGE" >"$T/dom.html" 2>"$T/console.txt" || bad "chromium failed: $(tail -3 "$T/console.txt")"
for id in $CHARTS; do
    grep -q "<svg id=\"$id\"" "$T/dom.html" || bad "chart $id not in the loaded page"
done
grep -q '</main>' "$T/dom.html" || bad "the page did not load whole"
# page errors reach the log as CONSOLE lines; Chromium's own start-up
# complaints (D-Bus, GPU) are not about the page
grep -E 'CONSOLE|Uncaught|Refused|ERR_' "$T/console.txt" && bad "console errors (above)"
SHOT=/tmp/ksample-report-screenshot.png
browse --window-size=1366,2400 --screenshot="$SHOT" "file://$PAGE" >/dev/null 2>&1 || bad "no screenshot"
[ -s "$SHOT" ] || bad "empty screenshot"

if [ $failed -ne 0 ]; then
    echo "$failed check(s) failed"
    exit 1
fi
echo "report: 11 charts, self-contained, loads in $($BROWSER --version 2>/dev/null) without console errors; screenshot $SHOT"
