"""How good methods are on a profile (eval, compare), the estimate from
simulated values (estimate) and the paired comparison of two configurations
(versus)."""

import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

import numpy as np

from . import _params
from ._native import (as_float, as_floats, c_bytes, check, ffi, lib, new_error, path_bytes,
                      require, text, usage_error)
from .plan import Plan, planned_part
from .profile import Profile, read

_RESULT_FIELDS = [("samples", "samples_mean"), ("speedup_hmean", "speedup_hmean"),
                  ("error_mean_pct", "error_mean_pct"), ("error_max_pct", "error_max_pct"),
                  ("plan_seconds", "plan_seconds"), ("fit_seconds", "fit_seconds")]


def _frame(rows):
    """A pandas DataFrame of the rows, or the rows (dicts) without pandas."""
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows)


def _row(r):
    return {key: getattr(r, field) for key, field in _RESULT_FIELDS}


def _check_settings(settings, names, what):
    """Every method parameter given belongs to one of the methods (as the
    command line refuses one that none takes)."""
    taken = {p["name"] for m in _params.methods() if m["name"] in names for p in m["params"]}
    for keyword in settings:
        if keyword.replace("_", "-") not in taken:
            raise usage_error("--%s is not a parameter of any method%s"
                              % (keyword.replace("_", "-"), what))


def _iters(iters):
    if isinstance(iters, bool) or not isinstance(iters, numbers.Integral) or \
            not 1 <= iters <= 1000000:
        raise usage_error("iters must be in 1..1000000, got %r" % (iters,))
    return int(iters)


def eval(profile, methods=None, *, iters=None, epsilon=None, confidence=None, seed=None,
         key=None, truth=None, metric_errors=None, exclude_comm=False, comm_patterns=(),
         **method_params):
    """`ksample eval`: plans each method `iters` times (seeds seed, seed+1,
    ...) and measures each plan's estimate of the total time.  methods: a
    list or "a,b" (default: the command's); epsilon: one bound or a list (a
    sweep: one row per method and bound; a method without a bound is
    evaluated once); truth: the same launches profiled elsewhere (a Profile
    or a path), matched launch by launch; metric_errors: the error of every
    additive metric column (default: when the profile has metric columns,
    as --metrics implies it).  exclude_comm: leave communication kernels
    (and comm_patterns) out of both profiles as sample() does (`eval
    --exclude-comm`; by default, as the command, every launch is planned
    on); a truth given as a path is read with the profile's selection, as
    the command reads --truth.  Neither profile is changed.  Returns a
    DataFrame (a list of dicts without pandas) with the keys of `ksample
    eval --json`."""
    require(profile, Profile, "profile")
    if methods is None:
        methods = text(lib.ks_eval_default_methods())
    if isinstance(methods, str):
        methods = methods.split(",")
    methods = list(methods)
    if not methods:
        raise usage_error("methods is empty")
    for m in methods:
        _params.find_method(m)
    iters = _iters(lib.KS_EVAL_ITERS if iters is None else iters)
    if epsilon is None or isinstance(epsilon, numbers.Real):
        epsilons = [epsilon]
    else:
        epsilons = list(epsilon)
    _check_settings(method_params, methods, " evaluated")
    err = new_error()
    eo = ffi.new("ks_eval_options *")
    keep = []
    planned = profile._p
    if exclude_comm:
        planned, comm = planned_part(profile, False, comm_patterns)
        keep += [planned, comm]
    if truth is not None:
        if not isinstance(truth, Profile):
            truth = read(truth, select=profile.selection or None)
        truth_planned = truth._p
        if exclude_comm:
            truth_planned, comm = planned_part(truth, False, comm_patterns)
        keep += [truth, truth_planned, ffi.new("char[]", path_bytes(truth.source_path))]
        check(lib.ks_profile_check_aligned(planned, truth_planned, ffi.NULL, keep[-1],
                                           b"cannot use as truth", err), err)
        eo.truth = truth_planned
        eo.truth_path = keep[-1]
    eo.metrics = int(bool(profile.metrics) if metric_errors is None else bool(metric_errors))
    cache = ffi.new("ks_plan_cache **")
    check(lib.ks_plan_cache_new(planned, cache, err), err)
    cache = ffi.gc(cache[0], lib.ks_plan_cache_free)
    eo.cache = cache
    rows = []
    for name in methods:
        for eps in epsilons:
            params = _params.make_params(name, eps, confidence, seed, key, strict=False,
                                         settings=method_params)
            r = ffi.new("ks_eval_result *")
            d = ffi.new("ks_eval_detail *")
            check(lib.ks_evaluate_ex(planned, params, iters, eo, r, d, err), err)
            try:
                row = {"method": text(r.method),
                       "epsilon": params.epsilon if r.bound_pct > 0 else None}
                row.update(_row(r))
                # None where the command prints none or "-" (and --json null)
                bound = r.bound_pct > 0
                row.update(bound_pct=r.bound_pct if bound else None,
                           exceed_fraction=r.exceed_fraction if bound else None,
                           predicted_rse_pct=(r.predicted_rse_pct
                                              if r.predicted_rse_pct > 0 else None),
                           cost_over_lower_bound=(r.cost_over_lower_bound
                                                  if r.cost_over_lower_bound > 0 else None))
                if d.has_truth:
                    row.update(truth_error_mean_pct=d.truth_error_mean_pct,
                               truth_error_max_pct=d.truth_error_max_pct,
                               truth_speedup_hmean=d.truth_speedup_hmean,
                               truth_exceed_fraction=(d.truth_exceed_fraction
                                                      if bound else None))
                if eo.metrics:
                    row["metrics"] = {
                        text(d.metrics[i].name): {
                            "error_mean_pct": d.metrics[i].error_mean_pct,
                            "error_max_pct": d.metrics[i].error_max_pct,
                            "total": d.metrics[i].total}
                        for i in range(d.metric_count)}
                    row["metrics_skipped"] = {text(d.skipped[i].name): text(d.skipped[i].reason)
                                              for i in range(d.skipped_count)}
            finally:
                lib.ks_eval_detail_free(d)
            rows.append(row)
            if not r.bound_pct > 0:
                break  # promises no bound: the same plans at every epsilon
    return _frame(rows)


def compare(profile, *, iters=None, epsilon=None, confidence=None, seed=None, key=None,
            **method_params):
    """`ksample compare`: every method of the library on one profile, those
    lacking an input listed with the reason.  Returns a DataFrame (a list of
    dicts without pandas) with the keys of `ksample compare --json`."""
    require(profile, Profile, "profile")
    iters = _iters(lib.KS_EVAL_ITERS if iters is None else iters)
    names = _params.method_names()
    _check_settings(method_params, names, "")
    err = new_error()
    eo = ffi.new("ks_eval_options *")
    cache = ffi.new("ks_plan_cache **")
    check(lib.ks_plan_cache_new(profile._p, cache, err), err)
    cache = ffi.gc(cache[0], lib.ks_plan_cache_free)
    eo.cache = cache
    rows = []
    for name in names:
        m = _params.find_method(name)
        if lib.ks_method_check_inputs(m, profile._p, err) != lib.KS_OK:
            rows.append({"method": name, "skipped": text(err.message)})
            continue
        params = _params.make_params(name, epsilon, confidence, seed, key, strict=False,
                                     settings=method_params)
        r = ffi.new("ks_eval_result *")
        d = ffi.new("ks_eval_detail *")
        status = lib.ks_evaluate_ex(profile._p, params, iters, eo, r, d, err)
        lib.ks_eval_detail_free(d)
        check(status, err)
        row = {"method": text(r.method)}
        row.update(_row(r))
        rows.append(row)
    return _frame(rows)


@dataclass
class Estimate:
    """One metric's estimated total (or ratio of totals) with its interval at
    the plan's confidence, as `ksample estimate --json` reports it."""

    metric: str
    estimate: float
    ci_low: float
    ci_high: float
    rel_halfwidth: float
    bound_met: object  # True, False, or None when there is no bound (or no interval)
    ratio: bool
    variance: float
    df: float  # of the variance (inf: the normal quantile)
    single_sample_strata: int
    # what the interval stands for, as the command's --json "interval" says:
    # "full run" (the full run's total: values simulated in context),
    # "values" (the values' own total only: cold or warmed values, whose
    # warm-up bias it does not contain) or "none" (no interval: ci_low,
    # ci_high and rel_halfwidth are nan)
    interval: str = "full run"
    interval_note: str = ""  # why, when not "full run" (the command's interval_note)
    kind: str = "count"  # count, running total, rate, unknown
    warmup: str = "unknown"  # how the values were simulated, as given
    # the relative half-width had the values followed the profile, and the
    # share of the variance beyond it (None for rates and without the plan's
    # profile, where the command's --json has neither)
    profile_rel_halfwidth: object = None
    variance_beyond_profile: object = None
    # a total the traces give (estimate(traces=...)): exact, no interval
    # (ci_low = ci_high = estimate, rel_halfwidth 0), sampled_estimate what
    # the samples alone said; exact_note why a count the traces hold was
    # estimated after all ("" when it was not), as the command's --json
    exact: bool = False
    sampled_estimate: object = None
    exact_note: str = ""
    # where the variance is (totals of the plain estimator, else None and []):
    # the share in kernels with no stratum of two or more simulated launches,
    # whose spread is borrowed from other strata, and the (up to
    # three) kernel groups holding the most of it, as dicts kernel, share,
    # own_strata (the command's variance_borrowed_share, variance_by_kernel)
    variance_borrowed_share: object = None
    variance_by_kernel: list = field(default_factory=list)

    to_dict = asdict


def _by_label(values):
    """A pandas Series (or anything with an index and to_numpy) whose index
    names launch ids: taken by label, not by position.  A default index
    (0, 1, ... from a plain list) names positions, as an array does."""
    index = getattr(values, "index", None)
    if index is None or not hasattr(values, "to_numpy") or isinstance(values, Mapping):
        return False
    default = type(index).__name__ == "RangeIndex" and getattr(index, "start", None) == 0 \
        and getattr(index, "step", None) == 1
    return not default


def _counts(items):
    """Integers (Python ints, numpy integer arrays) as a uint64 array, kept
    exactly (a count above 2^53 would round as a float64); None when they are
    not all integers, or one is negative (refused as a value below)."""
    if isinstance(items, np.ndarray):
        if items.dtype.kind not in "iu" or items.ndim != 1:
            return None
        if items.dtype.kind == "i" and len(items) and items.min() < 0:
            return None
        return np.ascontiguousarray(items, dtype=np.uint64)
    items = list(items)
    if not items or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                            and 0 <= v < 2 ** 64 for v in items):
        return None
    return np.fromiter((int(v) for v in items), dtype=np.uint64, count=len(items))


def _ids_values(plan, values):
    """(ids, values) as contiguous uint64 / float64 arrays; values are uint64
    where they are all integers (counts, kept exactly)."""
    if isinstance(values, Mapping) or _by_label(values):
        keys = values.keys() if isinstance(values, Mapping) else list(values.index)
        items = values.values() if isinstance(values, Mapping) else values.to_numpy()
        for k in keys:
            if isinstance(k, (bool, float, str, bytes)) or not isinstance(k, numbers.Integral) \
                    or k < 0:
                raise TypeError("values: launch ids are non-negative integers, got %r" % (k,))
        ids = np.fromiter((int(k) for k in keys), dtype=np.uint64, count=len(keys))
        counts = _counts(items if isinstance(items, np.ndarray) else list(items))
        if counts is not None:
            return ids, counts
        vals = np.fromiter((as_float(v, "values") for v in items), dtype=np.float64,
                           count=len(keys))
        return ids, vals
    counts = _counts(values) if isinstance(values, (np.ndarray, list, tuple)) else None
    if counts is not None:
        vals = counts
    else:
        vals = as_floats(values, "values")
    if vals.ndim == 0:
        raise TypeError("values: a 1-d array, a dict {id: value} or {metric: values}, got %s"
                        % type(values).__name__)
    if vals.ndim != 1:
        raise ValueError("values: a 1-d array, a dict {id: value} or {metric: values}")
    ids = np.ascontiguousarray(plan.ids)
    if len(vals) == len(plan):
        return ids, np.ascontiguousarray(vals)
    if len(vals) == plan.population:
        return ids, np.ascontiguousarray(vals[plan.ids])
    raise ValueError("values: %d values, but the plan has %d samples of %d launches (give "
                     "one per sample in the order of plan.ids, one per launch, or a dict "
                     "{id: value})" % (len(vals), len(plan), plan.population))


def _warmup_text(warmup):
    """The warm-up as `estimate --warmup` takes it (context, none, or a run
    --warmup mode), canonical; None: "unknown", as the command says of a
    results file given without --warmup."""
    if warmup is None:
        return "unknown"
    if not isinstance(warmup, str):
        raise usage_error("warmup: a string (context, none or a run --warmup mode), got %r"
                          % (warmup,))
    if warmup in ("context", "unknown"):
        return warmup
    w = ffi.new("ks_warmup *")
    err = new_error()
    if lib.ks_warmup_parse(warmup.encode(), w, err) != lib.KS_OK:
        raise usage_error("warmup: %s" % text(err.message))
    buf = ffi.new("char[]", 64)
    lib.ks_warmup_format(w, buf, 64)
    return text(buf)


def _estimate_options(metrics, single, epsilon, ratios):
    """ks_estimate_options as `estimate` sets them: the single-sample rule,
    the bound, the ratios, and every metric given, named (as --metric NAME),
    with the rates the command derives whose parts are among them.  Returns
    (options, what must stay alive while they are used)."""
    opt = ffi.new("ks_estimate_options *")
    lib.ks_estimate_options_init(opt)
    modes = {"plan": lib.KS_SINGLE_PLAN, "calibrate": lib.KS_SINGLE_CALIBRATE,
             "collapse": lib.KS_SINGLE_COLLAPSE, "profile-cv": lib.KS_SINGLE_PROFILE_CV}
    if single not in modes:
        raise usage_error("single is plan, calibrate, collapse or profile-cv, got %r" % (single,))
    opt.single = modes[single]
    if epsilon is not None:
        if not 0 < epsilon < 1:
            raise usage_error("epsilon must be in (0, 1), got %r" % (epsilon,))
        opt.epsilon = epsilon
    keep = [ffi.new("char[]", c_bytes(r, "ratio")) for r in ratios]
    ratio_array = ffi.new("const char *[]", keep) if keep else ffi.NULL
    if keep:
        opt.ratios = ratio_array
        opt.ratio_count = len(keep)
    names = list(metrics)
    shown = lib.ks_stat_shown()
    i = 0
    while shown[i] != ffi.NULL:
        name = text(shown[i])
        info = lib.ks_stat_info_of(shown[i])
        i += 1
        if (info.kind == lib.KS_STAT_RATE and info.numerator != ffi.NULL and
                info.denominator != ffi.NULL and name not in metrics and
                text(info.numerator) in metrics and text(info.denominator) in metrics):
            names.append(name)
    keep_names = [ffi.new("char[]", n.encode()) for n in names]
    name_array = ffi.new("const char *[]", keep_names)
    opt.metrics = name_array
    opt.metric_count = len(keep_names)
    return opt, (keep, ratio_array, keep_names, name_array)


def _profile_beside(plan, profile):
    """The ks_profile the estimators read beside the plan (None without a
    profile): the profile itself, or, for a plan drawn on a selection (the
    launches of read(select=...), communication kernels left out), the
    profile's file read whole with the launches outside the selection masked,
    as `ksample estimate` reads it (ks_plan_open_profile: refused unless it
    is the plan's input)."""
    if profile is None:
        return None
    launches = int(profile._p.launch_total) or len(profile)  # the file's
    if launches != plan.population:
        raise usage_error("profile: %d launches, the plan's %d: not the plan's profile"
                          % (launches, plan.population))
    if plan.selection or profile.selection:
        own = ffi.new("ks_profile **")
        err = new_error()
        check(lib.ks_plan_open_profile(plan._p, path_bytes(profile.source_path), own, err), err)
        return ffi.gc(own[0], lib.ks_profile_free)
    return profile._p


def _claim(row):
    """What a row's interval stands for ("full run", "values" or "none", as
    --json says it) and, unless the full run, why."""
    interval = {lib.KS_CLAIM_FULL_RUN: "full run",
                lib.KS_CLAIM_VALUES: "values"}.get(row.claim, "none")
    return interval, "" if interval == "full run" else text(row.claim_why)


def _by_name(rows, count, make, free):
    """{row name: make(row)} over a C array of count rows; free() releases
    the array's owner, whatever happens."""
    try:
        return {text(rows[i].name): make(rows[i]) for i in range(count)}
    finally:
        free()


def _plan_profile(plan, beside, opt):
    """Sets opt.profile as the command does: the profile given (beside, from
    _profile_beside), else the plan's own input where it is still there and
    unchanged; returns what must stay alive while opt is used."""
    if beside is not None:
        opt.profile = beside
        return beside
    own = ffi.new("ks_profile **")
    quiet = new_error()
    if lib.ks_plan_open_profile(plan._p, ffi.NULL, own, quiet) == lib.KS_OK:
        own_profile = ffi.gc(own[0], lib.ks_profile_free)
        opt.profile = own_profile
        return own_profile
    return None


def estimate(plan, values, *, epsilon=None, single="plan", ratios=(), warmup=None,
             profile=None, traces=None):
    """The estimate of a total from simulated values, with its interval, as
    `ksample estimate` computes it (stratified variance, t quantile at its
    degrees of freedom, the plan's confidence) and with what the interval
    stands for, as the command says it (Estimate.interval, .interval_note).

    values: one metric as an array (one value per sample in the order of
    plan.ids, or one per launch indexed by id) or a dict {id: value}; or
    several as a dict {metric: such values}, which also gets ipc =
    gpu_sim_insn / gpu_sim_cycle, the miss rates and DRAM rates whose parts
    are there, and each of ratios ("NAME=NUM/DEN").  Every metric given is
    estimated as `estimate --metric NAME` does, and refused as it refuses: a
    rate (gpu_ipc, L2_BW, ...) or a statistic that does not add up over
    launches is not summed.  warmup: how the values were simulated, as
    `estimate --warmup` takes it: "context" (a full run of the program: the
    interval is of its total), "none" (alone, cold) or a `run --warmup` mode
    (the interval is of those values' total); None says it is not known, as
    the command does of a results file without --warmup.  profile: the plan's
    profile (ksample.read), for the checks the command makes with it (pooled
    strata, kernels the profile gives one value), the width values following
    it would give, and the calibrated model's profiled durations at the
    samples; without it, the plan's recorded input is read where it is still
    there and unchanged, as the command reads it.  single: "collapse" or "profile-cv" (a cluster
    with one sample); epsilon: the bound to check (default the plan's).
    traces: the trace folder of every launch (Accel-Sim or MacSim): the
    instruction counts it gives (gpu_sim_insn, gpgpu_n_tot_w_icount,
    INST_COUNT_TOT) are exact totals wherever every sample's value is its
    trace's count, and ipc has the cycles' interval alone, as `estimate
    --traces` prints them.
    Returns an Estimate, or {metric: Estimate} for a dict of metrics."""
    require(plan, Plan, "plan")
    if profile is not None:
        require(profile, Profile, "profile")
    several = isinstance(values, Mapping) and values and \
        all(isinstance(k, str) for k in values.keys())
    metrics = values if several else {"value": values}
    warmup_text = _warmup_text(warmup)
    beside = _profile_beside(plan, profile)
    err = new_error()
    results = _results_of(plan, metrics)
    opt, keep_opt = _estimate_options(metrics, single, epsilon, ratios)
    keep_warmup = ffi.new("char[]", warmup_text.encode())
    opt.warmup = keep_warmup
    keep_profile = _plan_profile(plan, beside, opt)
    known = None
    if traces is not None:
        known = ffi.new("ks_known *")
        check(lib.ks_known_read(c_bytes(str(traces), "traces"), ffi.NULL, plan.population,
                                known, err), err)
        known = ffi.gc(known, lib.ks_known_free)
        opt.known = known
    e = ffi.new("ks_estimate *")
    check(lib.ks_estimate_compute(plan._p, results, opt, e, err), err)

    def metric(m):
        interval, note = _claim(m)
        beyond = prw = None
        if not m.is_ratio and m.variance > 0 and math.isfinite(m.profile_variance):
            beyond = max(0.0, 1 - m.profile_variance / m.variance)
            prw = m.profile_rel_halfwidth if math.isfinite(m.profile_rel_halfwidth) else None
        return Estimate(
            text(m.name), m.estimate, m.ci_low, m.ci_high, m.rel_halfwidth,
            None if m.bound_met < 0 else bool(m.bound_met), bool(m.is_ratio), m.variance,
            m.df if math.isfinite(m.df) else math.inf, int(m.single_strata),
            interval=interval,
            interval_note=note,
            kind="rate" if m.is_ratio else text(lib.ks_stat_kind_name(m.kind)),
            warmup=warmup_text,
            profile_rel_halfwidth=prw,
            variance_beyond_profile=beyond,
            exact=bool(m.exact),
            sampled_estimate=m.sampled_estimate if m.exact == 1 else None,
            exact_note=text(m.known_note),
            variance_borrowed_share=m.borrowed_share if math.isfinite(m.borrowed_share)
            else None,
            variance_by_kernel=[
                {"kernel": text(plan._p.group_labels[m.top_group[q]])
                 if m.top_group[q] < plan._p.group_count else "",
                 "share": m.top_share[q], "own_strata": bool(m.top_own[q])}
                for q in range(m.top_count)] if math.isfinite(m.borrowed_share) else [])

    out = _by_name(e.metrics, e.count, metric, lambda: lib.ks_estimate_free(e))
    return out if several else out["value"]


@dataclass
class Versus:
    """One metric compared between two configurations simulated at the same
    sampled launches: B's total over A's (or B's rate over A's) with its
    interval at the plan's confidence, as `ksample estimate A --versus B
    --json` reports it."""

    metric: str
    ratio: float
    ci_low: float
    ci_high: float
    rel_halfwidth: float
    variance: float
    df: float  # of the variance (inf: the normal quantile)
    estimate_a: float  # A's estimated total (rate)
    estimate_b: float
    rel_halfwidth_a: float  # each total's own interval, relative (nan: none)
    rel_halfwidth_b: float
    bound_met: object  # True, False, or None (no bound, or no interval)
    rate: bool  # a ratio of rates (ipc), not of totals
    single_sample_strata: int
    # "full run", "values" or "none", as estimate's, the weaker of the two
    # sides' (values simulated alone: the ratio of the alone totals)
    interval: str = "full run"
    interval_note: str = ""

    to_dict = asdict


def _results_of(plan, metrics):
    """A ks_results of {metric: values} (as estimate() takes them)."""
    err = new_error()
    results = ffi.new("ks_results *")
    lib.ks_results_init(results)
    results = ffi.gc(results, lib.ks_results_free)
    for name, v in metrics.items():
        ids, vals = _ids_values(plan, v)
        if vals.dtype == np.uint64:  # counts, exactly
            check(lib.ks_results_add_counts(results, b"values", c_bytes(name, "metric"),
                                            ffi.from_buffer("uint64_t[]", ids),
                                            ffi.from_buffer("uint64_t[]", vals), len(ids),
                                            err), err)
        else:
            check(lib.ks_results_add(results, b"values", c_bytes(name, "metric"),
                                     ffi.from_buffer("uint64_t[]", ids),
                                     ffi.from_buffer("double[]", vals), len(ids), err), err)
    return results


def versus(plan, values_a, values_b, *, epsilon=None, single="plan", ratios=(), warmup=None,
           warmup_b=None, profile=None):
    """A paired comparison, as `ksample estimate PLAN A --versus B`: B's total
    over A's from the same sampled launches simulated on two configurations
    (the ratio estimator of two stratified totals, its variance that of each
    launch's y_B - R y_A in the plan's clusters: far tighter than either
    total, since what the configurations share cancels).

    values_a, values_b: as estimate() takes values (one metric, or a dict
    {metric: values}; the rates whose parts are there, ipc = gpu_sim_insn /
    gpu_sim_cycle, and each of ratios "NAME=NUM/DEN" compare as B's rate over
    A's); both must have the same launches.  warmup, warmup_b: how each side
    was simulated, as estimate() takes it (warmup_b None: as warmup).
    profile: the plan's profile, as estimate() takes it; without it the
    plan's recorded input is read where it is still there and unchanged, as
    the command reads it.
    Returns a Versus, or {metric: Versus} for a dict of metrics."""
    require(plan, Plan, "plan")
    if profile is not None:
        require(profile, Profile, "profile")
    beside = _profile_beside(plan, profile)
    several = isinstance(values_a, Mapping) and values_a and \
        all(isinstance(k, str) for k in values_a.keys())
    several_b = isinstance(values_b, Mapping) and values_b and \
        all(isinstance(k, str) for k in values_b.keys())
    if several != several_b:
        raise usage_error("values_a and values_b: both one metric, or both {metric: values}")
    metrics_a = values_a if several else {"value": values_a}
    metrics_b = values_b if several else {"value": values_b}
    text_a = _warmup_text(warmup)
    text_b = _warmup_text(warmup if warmup_b is None else warmup_b)
    results_a = _results_of(plan, metrics_a)
    results_b = _results_of(plan, metrics_b)
    # A's metrics named (as estimate() names them), with the derived rates
    opt, keep_opt = _estimate_options(metrics_a, single, epsilon, ratios)
    keep_a = ffi.new("char[]", text_a.encode())
    keep_b = ffi.new("char[]", text_b.encode())
    opt.warmup = keep_a
    keep_profile = _plan_profile(plan, beside, opt)
    v = ffi.new("ks_versus *")
    err = new_error()
    check(lib.ks_versus_compute(plan._p, results_a, results_b, opt, keep_b, v, err), err)

    def row(r):
        interval, note = _claim(r)
        return Versus(
            text(r.name), r.ratio, r.ci_low, r.ci_high, r.rel_halfwidth, r.variance,
            r.df if math.isfinite(r.df) else math.inf, r.estimate_a, r.estimate_b,
            r.rel_halfwidth_a, r.rel_halfwidth_b,
            None if r.bound_met < 0 else bool(r.bound_met), bool(r.is_rate),
            int(r.single_strata), interval=interval, interval_note=note)

    out = _by_name(v.rows, v.count, row, lambda: lib.ks_versus_free(v))
    return out if several else out["value"]
