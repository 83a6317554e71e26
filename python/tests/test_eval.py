"""ksample.eval, compare and estimate against the command's --json."""

import math
import sys

import numpy as np
import pytest

import ksample

from conftest import EXAMPLE, cli, cli_json

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
