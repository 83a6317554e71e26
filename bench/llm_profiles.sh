#!/bin/sh
# bench/llm_profiles.sh KSAMPLE [SHARED_DATA] - the figures of docs/bench.md's
# "LLM and training profiles": per Kineto, nsys and torch-transformer profile
# the communication share, the steps and ranges found, and ROOT's default
# plan (seed 1) with and without communication kernels and with and without
# shape strata: launches and predicted interval.  Prints a Markdown table.
set -eu
KS=${1:?usage: llm_profiles.sh KSAMPLE [SHARED_DATA]}
HERE=$(cd "$(dirname "$0")/.." && pwd)
DATA=${2:-$HERE/../shared/data}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
plan() { # profile, options... -> "launches ±interval"
    f=$1; shift
    if ! "$KS" sample --seed 1 "$@" -o "$TMP/p.json" "$f" 2>"$TMP/err"; then
        echo "refused"; return
    fi
    python3 - "$TMP/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
hw = p["bound"].get("predicted_halfwidth")
iv = "none" if hw is None else "±%.2f %%" % (100 * hw)
print("%d, %s" % (len(p["samples"]), iv))
PY
}
echo "| profile | launches | comm share (overlap) | steps / ranges found | comm out, shapes | comm out, name | comm in, shapes | comm in, name |"
echo "| --- | ---: | --- | --- | --- | --- | --- | --- |"
for f in "$DATA"/kineto/*.json.gz "$DATA"/nsys-sqlite/*.sqlite "$HERE"/tests/data/torch-transformer/*.json.gz; do
    [ -r "$f" ] || continue
    "$KS" info --json --top 1 "$f" > "$TMP/info.json" 2>/dev/null || continue
    row=$(python3 - "$TMP/info.json" <<'PY'
import json, sys
i = json.load(open(sys.argv[1]))
c = i["comm"]
share = "none" if not c["launches"] else "%.1f %% (%s)" % (
    100 * c["share"], "?" if c["overlap_ns"] is None else
    "%.0f %% overlapped" % (100 * c["overlap_ns"] / c["time_ns"]))
steps = i["steps"]
st = "%d steps (#%d-#%d)" % (len(steps), min(s["step"] for s in steps),
                             max(s["step"] for s in steps)) if steps else "no steps"
rg = "%d range names" % len(i["ranges"]) if i["ranges"] else "no ranges"
print("%s | %s | %s; %s" % (i["invocations"], share, st, rg))
PY
)
    a=$(plan "$f" --key name+shape); b=$(plan "$f" --key name); c=$(plan "$f" --include-comm --key name+shape); d=$(plan "$f" --include-comm --key name)
    echo "| $(basename "$f") | $row | $a | $b | $c | $d |"
done

# Cross-GPU pairs: plans on one GPU's profile scored on the other's, launches
# paired by kernel family (eval --match family), ROOT, 50 seeds.
echo
echo "| plan on -> scored on | paired (renamed, by position) | unmatched A / B (B's time) | key | launches | error on A: mean / max | error on B: mean / max |"
echo "| --- | --- | --- | --- | ---: | --- | --- |"
T=$HERE/tests/data/torch-transformer
for ph in prefill decode; do
    for pair in "h100 h200" "h200 h100"; do
        set -- $pair
        a=$T/$ph-$1.json.gz; b=$T/$ph-$2.json.gz
        [ -r "$a" ] && [ -r "$b" ] || continue
        for key in name name+shape; do
            "$KS" eval -q --methods root --iters 50 --key "$key" --match family "$a" --truth "$b" > "$TMP/e.txt"
            python3 - "$TMP/e.txt" "$ph-$1 -> $ph-$2" "$key" <<'PY'
import re, sys
t = open(sys.argv[1]).read().splitlines()
m = re.search(r"(\d+) of A's \d+ launches paired with B's \d+ \((\d+) of the pairs under another name, (\d+) of them", t[0])
u = re.search(r"unmatched: (\d+) of A \(([\d.e+-]+) ms\), (\d+) of B \(([\d.e+-]+) ms, ([\d.]+) %", t[0])
row = t[2].split()
print("| %s | %s (%s, %s) | %s / %s (%s %%) | %s | %s | %s / %s %% | %s / %s %% |" % (
    sys.argv[2], m.group(1), m.group(2), m.group(3), u.group(1), u.group(3), u.group(5),
    sys.argv[3], row[1], row[3], row[4], row[10], row[11]))
PY
        done
    done
done

# Shape strata against one group per name: ROOT, 50 seeds, communication left
# out, error of each plan's estimate of the profile's own total.
echo
echo "| profile | key name: launches, error mean / max | key name+shape (share epsilon / 4): launches, error mean / max | key name+shape --shape-share 0 (every shape): launches, error mean / max |"
echo "| --- | --- | --- | --- |"
for f in "$DATA"/kineto/*.json.gz "$HERE"/tests/data/torch-transformer/*.json.gz; do
    [ -r "$f" ] || continue
    out=""
    for key in "name" "name+shape" "name+shape --shape-share 0"; do
        # shellcheck disable=SC2086
        r=$("$KS" eval -q --exclude-comm --methods root --iters 50 --key $key "$f" | sed -n 2p)
        set -- $r
        out="$out | $2, $4 / $5 %"
    done
    echo "| $(basename "$f")$out |"
done

# The same DDP program traced on A100 (a100-nccl, step 5) and V100
# (v100-ns-resolution, step 102): cuDNN picks other kernels and other counts;
# launches paired by family or by Kineto's operator stream, NCCL left out.
echo
echo "| plan on -> scored on | match | paired (renamed) | unmatched A / B (B's time) | launches | error on A: mean / max | error on B: mean / max |"
echo "| --- | --- | --- | --- | ---: | --- | --- |"
A=$DATA/kineto/a100-nccl.json.gz; V=$DATA/kineto/v100-ns-resolution.json.gz
if [ -r "$A" ] && [ -r "$V" ]; then
    for dir in "A V step=5 step=102" "V A step=102 step=5"; do
        set -- $dir
        eval "pa=\$$1; pb=\$$2"
        for m in family op; do
            "$KS" eval -q --exclude-comm --methods root --iters 50 --match "$m" --step "${3#step=}" \
                --truth-select "$4" "$pa" --truth "$pb" > "$TMP/e.txt"
            python3 - "$TMP/e.txt" "$(basename "$pa") $3 -> $(basename "$pb") $4" "$m" <<'PY'
import re, sys
t = open(sys.argv[1]).read().splitlines()
m = re.search(r"(\d+) of A's (\d+) launches paired with B's (\d+) \((\d+) of the pairs under", t[0])
u = re.search(r"unmatched: (\d+) of A \(([\d.e+-]+) ms\), (\d+) of B \(([\d.e+-]+) ms, ([\d.]+) %", t[0])
row = t[2].split()
print("| %s | %s | %s of %s / %s (%s) | %s / %s (%s %%) | %s | %s / %s %% | %s / %s %% |" % (
    sys.argv[2], sys.argv[3], m.group(1), m.group(2), m.group(3), m.group(4), u.group(1),
    u.group(3), u.group(5), row[1], row[3], row[4], row[10], row[11]))
PY
        done
    done
fi
