#!/usr/bin/env python3
"""The profile as auxiliary information and pooled strata, measured
(docs/bench.md, "Issue 24"): launches to meet a bound with the plain, ratio
and two-phase designs on the real-simulator data of ../shared/data/sim, every
method's speedup at matched measured error there, and pooled against unpooled
ROOT on the shared Kineto traces.  Everything goes through `ksample score
--json` (the same plans `ksample eval` draws, with the interval's coverage).

    /usr/bin/python3 bench/aux_bench.py BUILD_DIR [SEEDS] [--only sim|methods|kineto]

Prints markdown tables.  Standard library only.
"""
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile

sys.dont_write_bytecode = True  # nothing written beside the scripts
from score_util import interp_speedup, rows_of, table_head  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")


def score(ks, args):
    out = subprocess.run([ks, "score"] + args + ["--json", "-q"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def pct(x):
    return "%.2f" % (100 * x)


# ----------------------------------------------------------- the data sets

def sim_sets(tmp):
    """Per data set: (name, trace folder, common args, {set name: --warm args})."""
    a = os.path.join(DATA, "sim", "accelsim-synth")
    m = os.path.join(DATA, "sim", "macsim-vectormultadd")
    with tarfile.open(os.path.join(a, "ksample-synth-traces.tar.xz")) as t:
        t.extractall(tmp)
    mt = os.path.join(tmp, "m")
    os.makedirs(os.path.join(mt, "tr"))
    with tarfile.open(os.path.join(m, "macsim-vectormultadd-4096-16384-traces.tar.xz")) as t:
        t.extractall(mt)
    with open(os.path.join(m, "kernel_config.txt")) as f, \
            open(os.path.join(mt, "tr", "kernel_config.txt"), "w") as g:
        g.write(f.read())
    full = os.path.join(tmp, "mfull.csv")
    alone = os.path.join(tmp, "malone.csv")
    with open(os.path.join(m, "composition.csv")) as f:
        next(f)
        for line in f:
            launch, _, _, src = line.strip().split(",")
            os.symlink(os.path.join(mt, src), os.path.join(mt, "tr", "Kernel" + launch))
    with open(os.path.join(m, "per_launch.csv")) as f, open(full, "w") as g, \
            open(alone, "w") as h:
        next(f)
        g.write("id,cycles\n")
        h.write("id,cycles\n")
        for line in f:
            c = line.strip().split(",")
            g.write("%s,%s\n" % (c[0], c[4]))
            h.write("%s,%s\n" % (c[0], c[5]))
    syn = os.path.join(tmp, "syn")
    aw = os.path.join(ROOT, "tests", "data", "accelsim-warmup")
    mw = os.path.join(ROOT, "tests", "data", "macsim-warmup")
    q, r = "SM7_QV100", "SM86_RTX3070"
    return [
        ("Accel-Sim synthetic, QV100 -> QV100", syn,
         ["--metrics", os.path.join(a, "syn-ncu.csv"),
          "--plan-from", os.path.join(a, "full_%s.out.xz" % q),
          "--truth", os.path.join(a, "full_%s.out.xz" % q)], []),
        ("Accel-Sim synthetic, QV100 -> RTX 3070", syn,
         ["--metrics", os.path.join(a, "syn-ncu.csv"),
          "--plan-from", os.path.join(a, "full_%s.out.xz" % q),
          "--truth", os.path.join(a, "full_%s.out.xz" % r),
          "--alone", os.path.join(a, "alone_%s.out.xz" % r)],
         ["--warm", "since-same:8=" + os.path.join(aw, "%s_since-same_8.csv" % r)]),
        ("MacSim, 157 launches", os.path.join(mt, "tr"),
         ["--plan-from", full, "--truth", full, "--alone", alone],
         ["--warm", "since-same:8=" + os.path.join(mw, "since-same_8.csv")]),
    ]


# --------------------------------------------- launches to meet the bound

DESIGNS = [
    ("root, plain, refined", [], "plain"),
    ("root, ratio (two-phase: --two-phase 2, refined for it)", ["--two-phase", "2"], "ratio"),
    ("root, regression (two-phase)", ["--two-phase", "2"], "regression"),
    ("root, auto (two-phase)", ["--two-phase", "2"], "auto"),
    ("root --pool duration, plain, refined", ["--pool", "duration"], "plain"),
    ("root --pool duration, ratio (two-phase)", ["--pool", "duration", "--two-phase", "2"],
     "ratio"),
    ("root --pool features, ratio (two-phase)", ["--pool", "features", "--two-phase", "2"],
     "ratio"),
]


def launches_table(ks, seeds, sets):
    right = ("launches mean (max)", "x root-plain", "covered", "interval met")
    table_head(["data set", "values", "design", "launches mean (max)", "x root-plain",
                "error mean / max %", "covered", "interval met"], right)
    for name, traces, common, warm in sets:
        results = {}
        for label, opts, est in DESIGNS:
            res = rows_of(score(ks, [traces] + common + warm + opts + [
                "--methods", "root", "--seeds", str(seeds), "--estimators", est,
                "--rounds", "3"]))
            results[label] = res
        for values in ["context"] + (["since-same:8"] if warm else []):
            base = None
            for label, _, est in DESIGNS:
                s = results[label][("root", values, est)]
                if base is None:
                    base = s["launches_mean"]
                print("| %s | %s | %s | %.1f (%d) | %.2f | %s / %s | %.1f %% | %.1f %% |" % (
                    name, values, label, s["launches_mean"], s["launches_max"],
                    s["launches_mean"] / base, pct(s["error_mean"]), pct(s["error_max"]),
                    100 * s["coverage"], 100 * s["met"]))
    print()


# ------------------------------------------- speedup at matched error

EPS = ["0.005", "0.01", "0.02", "0.03", "0.05", "0.1", "0.2"]


def methods_table(ks, seeds, sets):
    table_head(["data set", "method", "points",
                "speedup at root's error at eps 2 % / 5 % / 10 %", "(its own error, speedup)"])
    for name, traces, common, _ in sets:
        curves = {}
        single = {}
        def sweep(label, opts, est="plain", rounds=None):
            pts = []
            for e in EPS:
                args = [traces] + common + opts + ["--epsilon", e, "--seeds", str(seeds),
                                                   "--estimators", est]
                if rounds:
                    args += ["--rounds", rounds, "--refine-epsilon", e]
                r = rows_of(score(ks, args))
                s = next(v for k, v in r.items() if k[1] == "context")
                pts.append((s["error_mean"], s["speedup_hmean"]))
            curves[label] = pts
        sweep("root", ["--methods", "root"])
        sweep("stem", ["--methods", "stem"])
        sweep("allegro", ["--methods", "allegro"])
        sweep("root --pool duration", ["--methods", "root", "--pool", "duration"])
        sweep("root two-phase ratio (refined)", ["--methods", "root", "--two-phase", "2"],
              "ratio", "3")
        sweep("root two-phase ratio, pooled (refined)",
              ["--methods", "root", "--two-phase", "2", "--pool", "duration"], "ratio", "3")
        pts = []
        for t in ["2", "4", "8", "16", "32"]:
            r = rows_of(score(ks, [traces] + common + ["--methods", "random", "--target-speedup",
                                                        t, "--seeds", str(seeds)]))
            s = r[("random", "context", "plain")]
            pts.append((s["error_mean"], s["speedup_hmean"]))
        curves["random"] = pts
        methods = "pka,sieve,photon" if "--metrics" in common else "sieve,photon"
        r = rows_of(score(ks, [traces] + common + ["--methods", methods, "--seeds", "1"]))
        for (m, values, _), s in r.items():
            if values == "context":
                single[m] = (s["error_mean"], s["speedup_hmean"])
        root_err = dict(zip(EPS, [p[0] for p in curves["root"]]))
        matched = [root_err["0.02"], root_err["0.05"], root_err["0.1"]]
        for label, pts in curves.items():
            sp = []
            for e in matched:
                v = interp_speedup(pts, e)
                sp.append("%.1fx" % v if v else "-")
            print("| %s | %s | eps sweep | %s | |" % (name, label, " / ".join(sp)))
        for m, (e, s) in single.items():
            r_at = interp_speedup(curves["root"], e)
            print("| %s | %s | one plan | root at its error: %s | %s %%, %.1fx |" % (
                name, m, "%.1fx" % r_at if r_at else "-", pct(e), s))
        print("| %s | (root's mean error at eps 2 / 5 / 10 %%) | | %s | |" % (
            name, " / ".join(pct(e) + " %" for e in matched)))
    print()


# ------------------------------------------------------------------ Kineto

def kineto_table(ks, seeds, tmp):
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("KSAMPLE_LIBRARY", os.path.join(os.path.dirname(ks),
                                                           "libksample.so.0.1"))
    import ksample  # the package over the build's library
    folder = os.path.join(DATA, "kineto")
    table_head(["trace", "launches", "root: samples, speedup, error mean/max %, covered",
                "--pool duration: samples, speedup, error mean/max %, covered",
                "pooled speedup / root's at root's error (eps 2 / 5 / 10 %)",
                "speedup at 0.37 % mean error: root, pooled"], ["launches"])
    ratios = {e: [] for e in ("0.02", "0.05", "0.1")}
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".json.gz"):
            continue
        path = os.path.join(folder, f)
        prof = ksample.read(path)
        truth = os.path.join(tmp, f + ".csv")
        with open(truth, "w") as g:
            g.write("id,cycles\n")
            for i, d in enumerate(prof.durations):
                g.write("%d,%d\n" % (i, d))
        curves = {}
        at5 = {}
        for label, opts in (("root", []), ("pool", ["--pool", "duration"])):
            pts = []
            for e in EPS:
                r = rows_of(score(ks, [path, "--plan-from", path, "--truth", truth,
                                       "--methods", "root", "--epsilon", e,
                                       "--seeds", str(seeds)] + opts))
                s = r[("root", "context", "plain")]
                pts.append((s["error_mean"], s["speedup_hmean"]))
                if e == "0.05":
                    at5[label] = s
            curves[label] = pts
        root_err = dict(zip(EPS, [p[0] for p in curves["root"]]))
        cells = []
        for e in ("0.02", "0.05", "0.1"):
            base = interp_speedup(curves["root"], root_err[e])
            pooled = interp_speedup(curves["pool"], root_err[e])
            if base and pooled:
                ratios[e].append(pooled / base)
                cells.append("%.2f" % (pooled / base))
            else:
                cells.append("-")
        def cell(s):
            return "%.1f, %.2fx, %s / %s, %.1f %%" % (s["launches_mean"], s["speedup_hmean"],
                                                    pct(s["error_mean"]), pct(s["error_max"]),
                                                    100 * s["coverage"])
        gcl = [interp_speedup(curves[k], 0.0037) for k in ("root", "pool")]
        print("| %s | %d | %s | %s | %s | %s |" % (
            f.replace(".json.gz", ""), len(prof.durations), cell(at5["root"]),
            cell(at5["pool"]), " / ".join(cells),
            ", ".join("%.1fx" % v if v else "-" for v in gcl)))
    for e, v in ratios.items():
        if v:
            g = math.exp(sum(math.log(x) for x in v) / len(v))
            print("\nmatched at root's error at eps %s: geomean %.2f, worst %.2f over %d traces"
                  % (e, g, min(v), len(v)), end="")
    print("\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ks = os.path.join(os.path.abspath(sys.argv[1]), "ksample")
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 200
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    if not os.path.isdir(DATA):
        sys.exit("aux_bench: %s is absent" % DATA)
    with tempfile.TemporaryDirectory() as tmp:
        sets = sim_sets(tmp)
        if only in (None, "sim"):
            print("## launches to meet 5 %% at 95 %% (%d seeds, at most 3 refine rounds)\n"
                  % seeds)
            launches_table(ks, seeds, sets)
        if only in (None, "methods"):
            print("## speedup at matched measured error (%d seeds, context values)\n" % seeds)
            methods_table(ks, seeds, sets)
        if only in (None, "kineto"):
            print("## pooled against unpooled ROOT on the Kineto traces (%d seeds)\n" % seeds)
            kineto_table(ks, seeds, tmp)


if __name__ == "__main__":
    main()
