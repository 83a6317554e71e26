#!/usr/bin/env python3
"""Per-kernel duration spread of the real and the synthetic transformer
(docs/bench.md, "A transformer simulated in full"; issue 33).

Real: the PyTorch-profiler decode traces of tests/data/torch-transformer (a
64-token prompt, then 128 tokens one at a time; steps split at the embedding
kernel).  Synthetic: `ksample synth --traces --preset transformer`'s time
profile (time.csv, the duration model) and, when given, the cycles Accel-Sim
simulated for every launch in the full run (per_launch.csv of
tests/data/accelsim-transformer).  For each: the CV of every kernel name over
the decode steps (weighted by the name's share of the time, and its range),
and how the attention kernels' mean duration drifts from the first decode
steps to the last (the KV cache grows).

    python3 bench/transformer_spread.py SYNTH_DIR [PER_LAUNCH.csv]

Standard library only.  Prints markdown.
"""
import csv
import gzip
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.path.join(ROOT, "tests", "data", "torch-transformer")


def cv(xs):
    if len(xs) < 2:
        return 0.0
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)) / m if m else 0.0


def real_steps(path):
    """[(step, name, duration)] of the kernel events, steps cut at the embedding."""
    with gzip.open(path) as f:
        d = json.load(f)
    ev = sorted((e for e in d["traceEvents"] if e.get("cat") == "kernel"),
                key=lambda e: e["ts"])
    step, out = -1, []
    for e in ev:
        if "indexSelect" in e["name"] or "vectorized_gather" in e["name"]:
            step += 1
        out.append((step, e["name"], float(e["dur"])))
    return out


def synth_steps(time_csv, per_launch=None):
    """[(step, name, value)]: 56 launches a step; values from time.csv or the
    full run's cycles."""
    with open(time_csv) as f:
        rows = list(csv.DictReader(f))
    vals = [float(r["duration_ns"]) for r in rows]
    if per_launch:
        with open(per_launch) as f:
            full = {int(r["launch"]): float(r["full_run_cycles"]) for r in csv.DictReader(f)}
        vals = [full[i] for i in range(len(rows))]
    return [(i // 56, r["name"], v) for i, (r, v) in enumerate(zip(rows, vals))]


def spread(events, first_decode):
    """Per name over the decode steps: count, time share, CV."""
    by = {}
    for s, n, v in events:
        if s >= first_decode:
            by.setdefault(n, []).append(v)
    total = sum(sum(v) for v in by.values())
    return {n: (len(v), sum(v) / total, cv(v)) for n, v in by.items()}


def drift(events, keys, first_decode):
    """Mean of the last 8 decode steps over the first 8, per attention name."""
    out = {}
    for k in keys:
        by = {}
        for s, n, v in events:
            if s >= first_decode and k in n:
                by.setdefault(s, []).append(v)
        if len(by) < 16:
            continue
        steps = sorted(by)
        first = [x for s in steps[:8] for x in by[s]]
        last = [x for s in steps[-8:] for x in by[s]]
        out[k] = sum(last) / len(last) / (sum(first) / len(first))
    return out


def summary(label, sp, dr):
    names = sorted(sp.items(), key=lambda kv: -kv[1][1])
    wcv = sum(share * c for _, (_, share, c) in names)
    cvs = sorted(c for _, (_, _, c) in names)
    med = cvs[len(cvs) // 2]
    print("| %s | %d | %.3f | %.3f | %.3f-%.3f | %s |" % (
        label, len(names), wcv, med, cvs[0], cvs[-1],
        ", ".join("%s %.2fx" % (k, v) for k, v in dr.items()) or "-"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    synth = sys.argv[1]
    per_launch = sys.argv[2] if len(sys.argv) > 2 else None
    print("| workload | names | CV, time-weighted | CV, median name | CV range |"
          " attention, last 8 decode steps / first 8 |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for gpu in ("h100", "h200"):
        ev = real_steps(os.path.join(REAL, "decode-%s.json.gz" % gpu))
        summary("PyTorch decode, %s (KV 65 -> 192)" % gpu.upper(), spread(ev, 1),
                drift(ev, ("gemvNSP", "gemvx", "softmax_warp_forward"), 1))
    keys = ("attn_scores", "attn_values", "softmax_rows")
    ev = synth_steps(os.path.join(synth, "time.csv"))
    summary("synthetic, time.csv model (KV 17 -> 42)", spread(ev, 1), drift(ev, keys, 1))
    if per_launch:
        ev = synth_steps(os.path.join(synth, "time.csv"), per_launch)
        summary("synthetic, Accel-Sim RTX 3070 cycles", spread(ev, 1), drift(ev, keys, 1))


if __name__ == "__main__":
    main()
