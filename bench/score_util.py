"""What the score benchmarks (bench/aux_bench.py, bench/transformer_score.py)
read from `ksample score --json` and how they print it: its rows by method,
values and estimator, a method's speedup at a given mean error, and markdown
table headers.  Standard library only."""
import math


def rows_of(result):
    """(method, values, estimator) -> summary dict (none for a result of
    None: a call left for later)."""
    out = {}
    for m in (result or {"methods": []})["methods"]:
        for s in m["sets"]:
            out[(m["method"], s["values"], s.get("estimator", "plain"))] = s
    return out


def interp_speedup(curve, err):
    """The largest speedup of a curve [(mean error, speedup)] whose error is
    at most err: its points with error <= err, and between two neighbouring
    points (by error) that straddle err, log-linear interpolation.  None
    when every point's error is above err."""
    pts = sorted(curve)
    best = None
    for e, sp in pts:
        if e <= err:
            best = sp if best is None else max(best, sp)
    for (e0, s0), (e1, s1) in zip(pts, pts[1:]):
        if e0 < err < e1:
            t = (err - e0) / (e1 - e0)
            v = math.exp(math.log(s0) + t * (math.log(s1) - math.log(s0)))
            best = v if best is None else max(best, v)
    return best


def table_head(columns, right=()):
    """Prints a markdown table's header row and its rule; the columns named
    in right are right-aligned."""
    print("| %s |" % " | ".join(columns))
    print("| %s |" % " | ".join("---:" if c in right else "---" for c in columns))
