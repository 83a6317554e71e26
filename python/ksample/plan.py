"""Plans: ksample.sample(), ksample.load_plan() and the Plan they return."""

import math
import os
from dataclasses import dataclass

import numpy as np

from . import _params
from ._native import (as_floats, check, check_output, ffi, lib, new_error, path_bytes, require,
                      text)
from ._views import struct_dtype, view

_SAMPLE = [("id", np.uint64), ("weight", np.float64), ("cluster", np.uint32)]
_CLUSTER = [("group", np.uint32), ("size", np.uint64), ("mean_ns", np.float64),
            ("std_ns", np.float64), ("min_ns", np.int64), ("max_ns", np.int64),
            ("m", np.uint64), ("m_real", np.float64)]


@dataclass(frozen=True)
class Unsimulated:
    """A plan's known, unsimulated part (Plan.unsimulated)."""

    what: str
    launches: int
    time_ns: float
    share: float
    overlap_ns: object  # None: unknown (no start times)
    kernels: str


class Plan:
    """Which launches to simulate and their weights: the estimate of any
    additive quantity X is sum(weights * X[ids]).

    samples is a structured array over the library's plan (no copy) with
    fields id, weight and cluster; ids, weights and clusters are its columns
    (views).  cluster_table has per cluster: group (index into group_labels),
    size, mean_ns, std_ns, min_ns, max_ns, m (draws) and m_real; cluster_paths
    are their places in the split tree.  to_json() gives the bytes `ksample
    sample` writes for the same profile, options and seed.
    """

    def __init__(self, pointer, files=()):
        self._p = pointer  # freed with ks_plan_free once nothing views it
        self._files = list(files)  # what it was read or made from, besides its input
        p = pointer
        self.samples = view(pointer, p.samples, int(p.sample_count),
                            struct_dtype("ks_sample", _SAMPLE))
        self.ids = self.samples["id"]
        self.weights = self.samples["weight"]
        self.clusters = self.samples["cluster"]
        self.cluster_table = view(pointer, p.clusters, int(p.cluster_count),
                                  struct_dtype("ks_cluster", _CLUSTER))
        self.cluster_paths = [text(p.clusters[i].path) for i in range(p.cluster_count)]
        self.group_labels = [text(p.group_labels[i]) for i in range(p.group_count)]

    def __len__(self):
        return int(self._p.sample_count)

    # what the plan records
    method = property(lambda self: text(self._p.method))
    seed = property(lambda self: int(self._p.params.seed))
    epsilon = property(lambda self: self._p.params.epsilon)
    confidence = property(lambda self: self._p.params.confidence)
    key = property(lambda self: text(lib.ks_key_to_string(self._p.params.key)))
    shape_share = property(
        lambda self: lib.ks_params_shape_share(ffi.addressof(self._p, "params"))
        if self._p.params.key == lib.KS_KEY_NAME_SHAPE else None,
        doc="key name+shape's shape share (the plan's params.shape_share; None: another key)")
    bound = property(lambda self: self._p.bound, doc="promised relative error (0: none)")
    bound_scope = property(lambda self: text(self._p.bound_scope))
    predicted_speedup = property(lambda self: self._p.predicted_speedup)

    @property
    def predicted_halfwidth(self):
        """The interval the plan promises, as a relative half-width at its
        confidence: the one variance model `estimate` uses, on the profile's
        values at the samples (what estimate prints when the simulated values
        follow the profile; a refined plan's: refine's prediction).  inf: no
        interval can be predicted; None: the plan promises no bound."""
        return self._p.predicted_halfwidth if self._p.predicted else None

    predicted_df = property(
        lambda self: self._p.predicted_df if self._p.predicted else None,
        doc="degrees of freedom of the predicted interval's t (inf: the normal quantile)")
    predicted_variance = property(
        lambda self: self._p.predicted_variance if self._p.predicted else None,
        doc="the predicted variance of the estimated total")
    population = property(lambda self: int(self._p.population), doc="launches (N)")
    draws = property(lambda self: int(self._p.draws))
    with_replacement = property(lambda self: bool(self._p.with_replacement))
    total_ns = property(lambda self: self._p.total_ns)
    sampled_ns = property(lambda self: self._p.sampled_ns)
    note = property(lambda self: text(self._p.note))
    input_path = property(lambda self: os.fsdecode(ffi.string(self._p.input_path)))
    input_xxh128 = property(lambda self: text(self._p.input_xxh128))
    input_format = property(lambda self: text(self._p.input_format))

    @property
    def params(self):
        """The method's own parameters as resolved (its table's names)."""
        p = self._p
        out = {}
        base = ffi.cast("unsigned char *", p.param_values)
        for row, i in zip(_params.param_rows(p.param_defs, p.param_count),
                          range(p.param_count)):
            at = base + p.param_defs[i].offset
            if row["type"] == "real":
                value = ffi.cast("double *", at)[0]
            elif row["type"] == "uint":
                value = int(ffi.cast("uint64_t *", at)[0])
            else:
                index = int(ffi.cast("int *", at)[0])
                value = row["choices"][index] if row["type"] == "choice" else bool(index)
            out[row["name"]] = value
        return out

    selection = property(lambda self: text(self._p.selection),
                         doc="the selection the plan was drawn on (\"\" when none): the "
                             "profile's read(select=...) and \"no-comm\" where "
                             "communication kernels were left out")
    selected = property(lambda self: int(self._p.selected) if text(self._p.selection) else None,
                        doc="launches the selection kept (None: no selection)")

    @property
    def unsimulated(self):
        """The known, unsimulated part the plan records (communication
        kernels left out by sample): an Unsimulated (what, launches, time_ns,
        share of the kernel time they were left out of, overlap_ns: the part
        of it other streams ran beside them, None when unknown; kernels: the
        names by time, as the plan's JSON writes them), or None when nothing
        was left out.  No estimate contains it; `estimate` prints it beside
        the totals."""
        p = self._p
        if not text(p.unsim_what):
            return None
        return Unsimulated(text(p.unsim_what), int(p.unsim_launches), p.unsim_ns, p.unsim_share,
                           None if math.isnan(p.unsim_overlap_ns) else p.unsim_overlap_ns,
                           text(p.unsim_kernels))

    def estimate_total(self, values):
        """sum(weight * values[id]) for values indexed by launch id."""
        values = np.ascontiguousarray(as_floats(values, "values"))
        if values.shape != (self.population,):
            raise ValueError("values: %s values for a plan of %d launches"
                             % (values.shape, self.population))
        return lib.ks_plan_estimate(self._p, ffi.from_buffer("double[]", values))

    def to_json(self, path=None):
        """Writes the plan's JSON to path atomically (the bytes of `ksample
        sample -o path`); without a path, returns it as a str."""
        err = new_error()
        if path is not None:
            check_output(path, self._inputs())
            check(lib.ks_plan_save_json(self._p, path_bytes(path), err), err)
            return None
        out, size = ffi.new("char **"), ffi.new("size_t *")
        check(lib.ks_plan_json(self._p, out, size, err), err)
        try:
            return ffi.unpack(out[0], size[0]).decode("utf-8")
        finally:
            lib.ks_free(out[0])

    def to_csv(self, path):
        """Writes "id,weight" CSV (as `ksample sample --csv`), atomically."""
        check_output(path, self._inputs())
        err = new_error()
        check(lib.ks_plan_save_csv(self._p, path_bytes(path), err), err)

    def _inputs(self):
        """What an output must not overwrite (as the command refuses): the
        profile the plan records and the files it was read or made from."""
        return [self.input_path] + self._files

    def to_pandas(self):
        """A DataFrame of the samples: id, weight, cluster and group (the
        cluster's key label)."""
        import pandas as pd

        groups = np.asarray(self.group_labels, dtype=object)
        group_of = self.cluster_table["group"][self.clusters] if len(self) else []
        return pd.DataFrame({"id": self.ids, "weight": self.weights,
                             "cluster": self.clusters,
                             "group": groups[group_of] if len(self) else []})

    def clusters_to_pandas(self):
        """A DataFrame of the clusters: group label, path and cluster_table's
        columns."""
        import pandas as pd

        t = self.cluster_table
        frame = pd.DataFrame({name: t[name] for name in t.dtype.names})
        frame.insert(0, "path", self.cluster_paths)
        frame.insert(0, "group_label", [self.group_labels[g] for g in t["group"]])
        return frame

    def __str__(self):
        speedup = ("%.1fx" % self.predicted_speedup if self.predicted_speedup != float("inf")
                   or self.total_ns > 0 else "unknown (the profile has no durations)")
        clusters = len(self.cluster_paths)
        s = "%s: %s of %s invocations in %s cluster%s, predicted speedup %s" % (
            self.method, format(len(self), ","),
            format(self.population if self.selected is None else self.selected, ","),
            format(clusters, ","), "" if clusters == 1 else "s", speedup)
        if self.bound > 0:
            s += ", bound %.3g%% at %.3g%% confidence (%s)" % (
                self.bound * 100, self.confidence * 100, self.bound_scope)
            h = self.predicted_halfwidth
            if h is not None and math.isinf(h):
                s += ("; no interval predicted: no second launch of any kernel measures how "
                      "the values spread (refine adds one)")
            elif h is not None:
                s += "; predicted interval +-%.3g%% if the simulated values follow the profile" % (
                    h * 100)
                if h > self.bound * (1 + 1e-9):
                    s += (", above the bound: refine sizes the plan for it from the simulated "
                          "values")
                    if (self.method == "root" and
                            lib.ks_single_mode_of(self._p, lib.KS_SINGLE_PLAN)
                            == lib.KS_SINGLE_COLLAPSE):
                        s += (" (ROOT's default --replicate 0.2 makes a plan that measures "
                              "their spread itself and meets its bound)")
        else:
            s += ", no error bound"
        return s

    def __repr__(self):
        return "<ksample.Plan %s>" % self


def planned_part(profile, include_comm, comm_patterns):
    """(the ks_profile to plan on, what keeps it alive, the ks_comm_summary
    of the communication kernels, owned): ks_profile_leave_out_comm, the
    library's one rule of what `ksample sample` plans on, on a copy of the
    profile when it leaves launches out (the caller's Profile is never
    changed)."""
    from .profile import _patterns

    array, keep, count = _patterns(comm_patterns)
    copy = ffi.new("ks_profile **")
    comm = ffi.new("ks_comm_summary *")
    err = new_error()
    check(lib.ks_profile_leave_out_comm(profile._p, array, count, bool(include_comm), copy,
                                        comm, err), err)
    comm = ffi.gc(comm, lib.ks_comm_summary_free)
    if copy[0] == ffi.NULL:
        return profile._p, comm
    return ffi.gc(copy[0], lib.ks_profile_free), comm


def sample(profile, method=None, epsilon=None, seed=None, *, confidence=None, key=None,
           model=None, save_model=None, include_comm=False, comm_patterns=(),
           **method_params):
    """Chooses the launches to simulate, as `ksample sample` does, and
    returns the Plan (the same bytes as the command for the same profile,
    options and seed).  method_params are the method's own parameters by
    their option names with '_' for '-' (n_th=40, allocation="tree"); see
    ksample.methods().  model: a learned method's saved model instead of
    training; save_model: keep the model trained here.

    As the command, it leaves communication kernels (NCCL, RCCL, NVSHMEM,
    the serving frameworks' all-reduce, and comm_patterns, as
    --comm-pattern) out of the plan and records their launches and measured
    time in it (Plan.unsimulated); include_comm=True keeps them
    (--include-comm).  The plan's ids are the program's launch ids, whatever
    the profile's selection (read(select=...)) and the kernels left out.
    The profile itself is not changed."""
    from .profile import Profile

    require(profile, Profile, "profile")
    params = _params.make_params(method, epsilon, confidence, seed, key, strict=True,
                                 settings=method_params)
    target, comm = planned_part(profile, include_comm, comm_patterns)
    err = new_error()
    fitted = ffi.new("ks_fitted **")
    if model is not None:
        check(lib.ks_fit_load(target, params, path_bytes(model, "model"), fitted, err), err)
    else:
        check(lib.ks_fit(target, params, fitted, err), err)
    fitted = ffi.gc(fitted[0], lib.ks_fitted_free)
    files = [profile.source_path] + profile._files + ([os.fspath(model)] if model else [])
    plan = ffi.new("ks_plan *")
    try:
        if save_model is not None:
            check_output(save_model, files)
            check(lib.ks_fitted_save(fitted, path_bytes(save_model), err), err)
        status = lib.ks_select(fitted, params.seed, plan, err)
    finally:
        ffi.release(fitted)  # before the profile it was fitted on
    check(status, err)
    plan = ffi.gc(plan, lib.ks_plan_free)
    if not include_comm and comm.launches:
        lib.ks_plan_set_unsimulated(plan, comm)
    # the program's launch ids, whatever was selected (as the command, last)
    check(lib.ks_plan_use_launch_ids(plan, target, err), err)
    return Plan(plan, files)


def load_plan(path):
    """Reads a plan.json (schema checked, as `ksample estimate` reads it)."""
    err = new_error()
    plan = ffi.new("ks_plan *")
    check(lib.ks_plan_read(path_bytes(path), plan, err), err)
    return Plan(ffi.gc(plan, lib.ks_plan_free), [os.fspath(path)])
