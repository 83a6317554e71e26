"""ksample: kernel-level sampled GPU simulation, from Python.

    import ksample
    profile = ksample.read("run.csv")           # nsys, ncu, Kineto, rocprof, ...
    plan = ksample.sample(profile, "root", epsilon=0.05, seed=1)
    plan.ids, plan.weights                      # numpy arrays, no copy
    plan.to_json("plan.json")                   # the bytes `ksample sample` writes
    plan.unsimulated                            # NCCL & co. left out, as the command
    ksample.read("t.json.gz", select="step=5")  # --step 5; profile.comm: as `info`
    ksample.eval(profile, ["root", "random"])   # a DataFrame
    ksample.estimate(plan, {"gpu_sim_cycle": cycles})   # with its interval
    ksample.versus(plan, cycles_a, cycles_b)    # B over A, paired, with its interval

The package is a thin layer over the C library (libksample.so, through
cffi's ABI mode over lib/ksample.h): every computation, check and message is
the library's; errors raise ksample.Error with its file, line and message.
Methods and their parameters come from the library's tables:
ksample.methods().
"""

from ._native import HEADER_VERSION, LIBRARY_PATH, Error
from ._params import defaults as _defaults
from ._params import methods
from .evaluate import Estimate, Versus, compare, estimate, eval, versus
from .plan import Plan, load_plan, sample
from .profile import Profile, formats, read

__version__ = HEADER_VERSION
__all__ = ["Error", "Estimate", "Plan", "Profile", "Versus", "compare", "estimate", "eval",
           "formats", "load_plan", "methods", "read", "sample", "versus"]


def _describe_sample():
    """sample()'s signature and docstring show the library's defaults and
    every method's parameters, read from its tables at import."""
    import inspect

    d = _defaults()
    sig = inspect.signature(sample)
    shown = {"method": d["method"], "epsilon": d["epsilon"], "seed": d["seed"],
             "confidence": d["confidence"]}
    sample.__signature__ = sig.replace(parameters=[
        p.replace(default=shown[p.name]) if p.name in shown else p
        for p in sig.parameters.values()])
    lines = ["", "Methods and their parameters (the library's tables):"]
    for m in methods():
        lines.append("  %s: %s" % (m["name"], m["summary"]))
        for p in m["params"]:
            lines.append("      %s=%s  %s" % (p["keyword"], p["default"], p["help"]))
    sample.__doc__ += "\n".join("    " + line if line else line for line in lines) + "\n"


_describe_sample()
