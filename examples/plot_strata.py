#!/usr/bin/env python3
"""A kernel's duration histogram with the plan's strata and the sampled
launches, as a notebook user would draw it with the Python package.

usage: python3 examples/plot_strata.py [PROFILE] [-o strata.png] [--method root]
                                       [--epsilon 0.05] [--seed 1] [--rank 0]

PROFILE defaults to the bundled examples/casio-like-50k.csv.xz; --rank 0 is
the kernel with the most GPU time, 1 the next, ...  Writes a PNG (matplotlib's
Agg backend: no display needed).
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import ksample  # noqa: E402

HERE = Path(__file__).resolve().parent

args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
args.add_argument("profile", nargs="?", default=str(HERE / "casio-like-50k.csv.xz"))
args.add_argument("-o", "--output", default="strata.png")
args.add_argument("--method", default="root")
args.add_argument("--epsilon", type=float, default=0.05)
args.add_argument("--seed", type=int, default=1)
args.add_argument("--rank", type=int, default=0)
a = args.parse_args()

profile = ksample.read(a.profile)
plan = ksample.sample(profile, a.method, epsilon=a.epsilon, seed=a.seed)

# launches grouped as the plan grouped them; the kernel with the most time
# among those the plan draws from (communication kernels are left out)
group_of, labels, sizes = profile.groups(plan.key)
totals = np.bincount(group_of, weights=profile.durations, minlength=len(labels))
planned = [int(k) for k in np.argsort(-totals, kind="stable") if labels[k] in plan.group_labels]
g = planned[a.rank]
us = profile.durations[group_of == g] / 1e3

# the plan's strata of that kernel and the launches it samples there (the
# plan numbers its own groups, and its ids are the program's launch ids)
pg = plan.group_labels.index(labels[g])
strata = plan.cluster_table[plan.cluster_table["group"] == pg]
in_group = plan.cluster_table["group"][plan.clusters] == pg
rows = np.searchsorted(profile.launch_ids, plan.ids[in_group])
sampled_us = profile.durations[rows] / 1e3

fig, ax = plt.subplots(figsize=(9, 4.5))
log = us.max() >= 100 * max(us.min(), 1e-3)
bins = np.geomspace(max(us.min(), 1e-3), us.max(), 60) if log else 60
ax.hist(us, bins=bins, color="#0072B2", label="launches", zorder=2)
if log:
    ax.set_xscale("log")
for i, s in enumerate(np.sort(strata, order="min_ns")):
    ax.axvspan(s["min_ns"] / 1e3, max(s["max_ns"], s["min_ns"] + 1) / 1e3,
               color="#E69F00" if i % 2 == 0 else "#009E73", alpha=0.25, lw=0, zorder=1,
               label="strata (%d)" % len(strata) if i == 0 else None)
ax.plot(sampled_us, np.zeros_like(sampled_us), "|", color="#D55E00", markersize=18, mew=1.5,
        label="sampled (%d of %d)" % (len(sampled_us), len(us)), clip_on=False, zorder=3)
name = labels[g] if len(labels[g]) <= 70 else labels[g][:67] + "..."
ax.set_title("%s\n%s, bound %.3g%% (%s), %s" % (name, plan.method, 100 * plan.bound,
                                                  plan.bound_scope, Path(a.profile).name),
             fontsize=9)
ax.set_xlabel("duration (µs)")
ax.set_ylabel("launches")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(a.output, dpi=120)
print("%s: kernel %d of %d by GPU time, %d launches in %d strata, %d sampled"
      % (a.output, a.rank, len(labels), len(us), len(strata), len(sampled_us)))
