"""ksample.eval, compare and estimate against the command's --json."""

import math
import sys

import numpy as np
import pytest

import ksample

from conftest import EXAMPLE, cli, cli_json, values_csv

DETERMINISTIC = ["samples", "speedup_hmean", "error_mean_pct", "error_max_pct", "bound_pct",
                 "exceed_fraction"]


def rows(result):
    return result.to_dict("records") if hasattr(result, "to_dict") else result


def close(a, b):
    """b as the command printed it (%.6g)."""
    if b is None:
        return a is None or (isinstance(a, float) and math.isnan(a))
    return float("%.6g" % a) == pytest.approx(b, rel=1e-12, abs=1e-300)


def test_eval_as_the_command(example):
    want = cli_json("eval", EXAMPLE, "--iters", 3, "--epsilon", "0.05,0.1", "--json", "-q")
    got = rows(ksample.eval(example, iters=3, epsilon=[0.05, 0.1]))
    assert [r["method"] for r in got] == [r["method"] for r in want]
    for g, w in zip(got, want):
        assert close(g["epsilon"], w["epsilon"])
        for key in DETERMINISTIC:
            assert close(g[key], w[key]), (g["method"], key, g[key], w[key])


def test_eval_parameters_and_refusals(example):
    got = rows(ksample.eval(example, "allegro,random", iters=2, n_th=40, fraction=0.01))
    want = cli_json("eval", EXAMPLE, "--methods", "allegro,random", "--iters", 2, "--n-th",
                    40, "--fraction", 0.01, "--json", "-q")
    for g, w in zip(got, want):
        for key in DETERMINISTIC:
            assert close(g[key], w[key])
    with pytest.raises(ksample.Error) as e:
        ksample.eval(example, ["root"], allocation="tree", n_th=3)
    assert str(e.value) == "--n-th is not a parameter of any method evaluated"
    with pytest.raises(ksample.Error):
        ksample.eval(example, ["root", "nosuch"])
    with pytest.raises(ksample.Error):
        ksample.eval(example, iters=0)


def test_compare_lists_what_is_missing(example):
    want = cli_json("compare", EXAMPLE, "--iters", 2, "--json")
    got = rows(ksample.compare(example, iters=2))
    assert len(got) == len(want) == len(ksample.methods())
    for g, w in zip(got, want):
        assert g["method"] == w["method"]
        if "skipped" in w:
            assert g["skipped"] == w["skipped"]
        else:
            for key in ["samples", "speedup_hmean", "error_mean_pct", "error_max_pct"]:
                assert close(g[key], w[key])


def test_compare_with_features(synth_with_features):
    run, ncu, bbv = synth_with_features
    p = ksample.read(run, metrics=ncu, bbv=bbv)
    got = rows(ksample.compare(p, iters=1))
    ran = {r["method"] for r in got if not isinstance(r.get("skipped"), str)}
    assert {"root", "pka", "sieve", "photon"} <= ran


def test_without_pandas_a_list_of_dicts(example, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    got = ksample.eval(example, ["random"], iters=1)
    assert isinstance(got, list) and got[0]["method"] == "random"


def test_estimate_as_the_command(example, tmp_path):
    plan_path = tmp_path / "plan.json"
    cli("sample", EXAMPLE, "--method", "root", "--epsilon", "0.1", "-o", plan_path)
    plan = ksample.load_plan(plan_path)
    rng = np.random.default_rng(3)
    cycles = example.durations * 1.4 + rng.normal(0, 50, len(example))
    insn = example.durations * 3.0 + rng.normal(0, 80, len(example))
    csv = tmp_path / "values.csv"
    with open(csv, "w") as f:
        f.write("id,gpu_sim_cycle,gpu_sim_insn\n")
        for i in plan.ids:
            f.write("%d,%r,%r\n" % (i, cycles[i], insn[i]))
    want = {r["metric"]: r for r in cli_json("estimate", plan_path, csv, "--json")}
    got = ksample.estimate(plan, {"gpu_sim_cycle": cycles, "gpu_sim_insn": insn})
    assert sorted(got) == sorted(want) == ["gpu_sim_cycle", "gpu_sim_insn", "ipc"]
    for name, w in want.items():
        g = got[name]
        for key in ["estimate", "ci_low", "ci_high", "rel_halfwidth"]:
            assert getattr(g, key) == w[key], (name, key)
        assert g.bound_met == w["bound_met"] and g.ratio == w["ratio"]
    # one metric: per launch, per sample, or {id: value}, all the same
    one = ksample.estimate(plan, cycles)
    assert one.estimate == want["gpu_sim_cycle"]["estimate"]
    assert ksample.estimate(plan, cycles[plan.ids]) == one
    assert ksample.estimate(plan, {int(i): cycles[i] for i in plan.ids}) == one
    assert one.ci_low < one.estimate < one.ci_high


def test_integer_values_are_counts(example, tmp_path):
    """Integer arrays and ints are counts, kept exactly (issue 41): the same
    estimate as the command reading the same digits, a count above 2^53
    included, where float64 would round it first."""
    plan_path = tmp_path / "plan.json"
    cli("sample", EXAMPLE, "--method", "root", "--epsilon", "0.1", "-o", plan_path)
    plan = ksample.load_plan(plan_path)
    cycles = (example.durations.astype(np.int64) * 3 + 7)
    big = 2 ** 53 + 1
    cycles[plan.ids[0]] = big
    csv = tmp_path / "values.csv"
    with open(csv, "w") as f:
        f.write("id,gpu_sim_cycle\n")
        for i in plan.ids:
            f.write("%d,%d\n" % (i, cycles[i]))
    want = [r for r in cli_json("estimate", plan_path, csv, "--json")
            if r["metric"] == "gpu_sim_cycle"][0]
    for values in (cycles, cycles.astype(np.uint64),
                   {int(i): int(cycles[i]) for i in plan.ids}):
        got = ksample.estimate(plan, values)
        assert got.estimate == want["estimate"] and got.ci_high == want["ci_high"]
    # the largest 64-bit count is taken; a negative one is refused
    top = np.array([2 ** 64 - 1] * len(plan), dtype=np.uint64)
    assert ksample.estimate(plan, top).estimate > 0
    neg = np.full(len(plan), 5, dtype=np.int64)
    neg[0] = -1
    with pytest.raises(ksample.Error) as e:
        ksample.estimate(plan, neg)
    assert "negative" in e.value.message


def test_estimate_refusals(example):
    plan = ksample.sample(example, "root", epsilon=0.1)
    partial = {int(i): 1.0 for i in plan.ids[1:]}
    with pytest.raises(ksample.Error) as e:
        ksample.estimate(plan, partial)
    assert "sample id %d" % plan.ids[0] in str(e.value) and "no simulated result" in str(e.value)
    with pytest.raises(ksample.Error) as e:
        ksample.estimate(plan, np.full(len(plan), np.nan))
    assert e.value.status == "format" and e.value.line == 1 and "not a finite number" in \
        e.value.message
    with pytest.raises(ValueError):
        ksample.estimate(plan, np.ones(7))


def test_estimate_says_what_its_interval_stands_for(example, tmp_path):
    """Estimate.interval and .interval_note are the command's --json
    "interval" and "interval_note", for every way the values were simulated;
    with the plan's profile, so is the width values following it would give."""
    plan_path = tmp_path / "plan.json"
    cli("sample", EXAMPLE, "--method", "root", "--epsilon", "0.1", "-o", plan_path)
    plan = ksample.load_plan(plan_path)
    rng = np.random.default_rng(5)
    cycles = example.durations * 1.4 * np.exp(rng.normal(0, 0.3, len(example)))
    csv = tmp_path / "values.csv"
    values_csv(csv, plan, {"gpu_sim_cycle": cycles})
    seen = set()
    for warmup in [None, "context", "none", "since-same:8", "self"]:
        args = ["estimate", plan_path, csv, "--json"]
        if warmup is not None:
            args += ["--warmup", warmup]
        want = {r["metric"]: r for r in cli_json(*args)}["gpu_sim_cycle"]
        got = ksample.estimate(plan, cycles, warmup=warmup, profile=example)
        assert got.interval == want["interval"], warmup
        assert got.interval_note == want.get("interval_note", ""), warmup
        assert got.kind == want["kind"] == "count"
        assert got.warmup == want["warmup"]
        assert got.estimate == want["estimate"] and got.ci_low == want["ci_low"]
        assert got.variance_beyond_profile == want["variance_beyond_profile"]
        assert got.profile_rel_halfwidth == want["profile_rel_halfwidth"]
        # where the variance is: the same shares and kernels as the command's
        assert got.variance_borrowed_share == want["variance_borrowed_share"]
        assert got.variance_by_kernel == want["variance_by_kernel"]
        assert 1 <= len(got.variance_by_kernel) <= 3
        shares = [k["share"] for k in got.variance_by_kernel]
        assert shares == sorted(shares, reverse=True) and sum(shares) <= 1 + 1e-12
        seen.add(got.interval)
    assert seen == {"full run", "values"}
    # values equal to the profile: no width from disagreeing with it, and
    # the interval is the one the plan promised
    same = ksample.estimate(plan, example.durations.astype(float), warmup="context",
                            profile=example)
    assert same.variance_beyond_profile == 0
    # (the plan's half-width is relative to the profile's total, estimate's
    # to its estimate: the same absolute width; the total of the launches
    # planned on, without the communication kernels the plan leaves out)
    total = float(example.durations.sum()) - plan.unsimulated.time_ns
    assert plan.unsimulated.time_ns == example.comm.time_ns > 0
    assert same.rel_halfwidth * same.estimate == pytest.approx(
        plan.predicted_halfwidth * total, rel=1e-2)
    # a plan that promises no bound: no interval, as the command prints none
    rnd_path = tmp_path / "random.json"
    cli("sample", EXAMPLE, "--method", "random", "-o", rnd_path)
    rnd = ksample.load_plan(rnd_path)
    values_csv(csv, rnd, {"gpu_sim_cycle": cycles})
    want = cli_json("estimate", rnd_path, csv, "--json", "--warmup", "context")[0]
    got = ksample.estimate(rnd, cycles, warmup="context")
    assert got.interval == want["interval"] == "none"
    assert got.interval_note == want["interval_note"] and "random" in got.interval_note
    assert math.isnan(got.ci_low) and math.isnan(got.rel_halfwidth) and got.bound_met is None
    assert want["ci_low"] is None and want["rel_halfwidth"] is None


def test_estimate_refuses_what_the_command_refuses(example, tmp_path):
    plan_path = tmp_path / "plan.json"
    cli("sample", EXAMPLE, "--method", "root", "--epsilon", "0.1", "-o", plan_path)
    plan = ksample.load_plan(plan_path)
    cycles = example.durations * 1.4
    csv = tmp_path / "values.csv"
    # a warm-up mode the command does not know
    rc, _, err = cli("estimate", plan_path, csv, "--warmup", "lukewarm", check=False)
    assert rc == 2
    with pytest.raises(ksample.Error) as e:
        ksample.estimate(plan, cycles, warmup="lukewarm")
    assert e.value.status == "usage" and e.value.message in err
    # a rate, and a statistic that does not add up, are not summed
    for name, other in [("gpu_ipc", {}), ("L2_BW", {}), ("max_total_param_size", {})]:
        values = {name: cycles, **other}
        values_csv(csv, plan, values)
        rc, _, err = cli("estimate", plan_path, csv, "--metric", name, check=False)
        with pytest.raises(ksample.Error) as e:
            ksample.estimate(plan, values)
        assert rc == 2 and e.value.status == "usage" and e.value.message in err, name
    # a rate whose parts are given is their ratio of totals, as the command
    # estimates it
    insn = example.durations * 3.0
    got = ksample.estimate(plan, {"gpu_sim_cycle": cycles, "gpu_sim_insn": insn,
                                  "gpu_ipc": insn / cycles})
    assert got["gpu_ipc"].kind == "rate" and got["gpu_ipc"].ratio
    assert got["gpu_ipc"].estimate == pytest.approx(
        got["gpu_sim_insn"].estimate / got["gpu_sim_cycle"].estimate, rel=1e-12)
    # another workload's profile is not the plan's
    with pytest.raises(ksample.Error) as e:
        ksample.estimate(plan, cycles, profile=_small_profile(tmp_path))
    assert e.value.status == "usage" and "not the plan's profile" in e.value.message


def _small_profile(tmp_path):
    p = tmp_path / "small.csv"
    p.write_text("name,duration_ns\nk,100\nk,200\n")
    return ksample.read(p)


def test_estimate_exact_from_traces(tmp_path):
    """estimate(traces=...) gives the traces' instruction counts as exact
    totals and ipc the cycles' interval, as `estimate --traces` does
    (tests/data/known: six launches counted by hand, 540 thread
    instructions in all)."""
    from conftest import ROOT

    known = ROOT / "tests" / "data" / "known"
    plan_path = tmp_path / "plan.json"
    cli("sample", known / "time.csv", "--seed", "1", "-o", plan_path)
    plan = ksample.load_plan(plan_path)
    cycles = {0: 1000, 1: 520, 2: 690, 3: 1040, 4: 540, 5: 760}
    insn = {0: 165, 1: 49, 2: 56, 3: 165, 4: 49, 5: 56}
    values = {"gpu_sim_cycle": {i: cycles[i] for i in plan.ids},
              "gpu_sim_insn": {i: insn[i] for i in plan.ids}}
    want = {r["metric"]: r for r in cli_json("estimate", plan_path, known / "results.csv",
                                              "--traces", known, "--warmup", "context",
                                              "--json")}
    got = ksample.estimate(plan, values, traces=known, warmup="context")
    assert got["gpu_sim_insn"].exact and got["gpu_sim_insn"].estimate == 540
    assert got["gpu_sim_insn"].ci_low == got["gpu_sim_insn"].ci_high == 540
    assert not got["ipc"].exact
    for name in ["gpu_sim_cycle", "gpu_sim_insn", "ipc"]:
        w, g = want[name], got[name]
        for key in ["estimate", "ci_low", "ci_high", "rel_halfwidth", "exact"]:
            assert getattr(g, key) == w[key], (name, key)
    # a value that is not its trace's count: estimated, and why
    wrong = dict(values)
    first = int(plan.ids[0])
    wrong["gpu_sim_insn"] = dict(values["gpu_sim_insn"])
    wrong["gpu_sim_insn"][first] += 1
    off = ksample.estimate(plan, wrong, traces=known, warmup="context")
    assert not off["gpu_sim_insn"].exact
    assert "is not its trace's count" in off["gpu_sim_insn"].exact_note
    # without the traces nothing is exact
    assert not ksample.estimate(plan, values, warmup="context")["gpu_sim_insn"].exact
