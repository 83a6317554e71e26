"""ksample.sample: the same bytes as the command, parameters from the
library's tables, the plan's arrays over its memory, errors as the command
reports them."""

import json

import numpy as np
import pytest

import ksample
from ksample._native import ffi
from ksample._views import address

from conftest import EXAMPLE, cli


def cli_plan(tmp_path, *options):
    out = tmp_path / "cli.json"
    cli("sample", EXAMPLE, *options, "-o", out)
    return out.read_bytes()


@pytest.mark.parametrize("options,kwargs", [
    ((), {}),
    (("--method", "root", "--epsilon", "0.1", "--seed", "7", "--allocation", "tree"),
     dict(method="root", epsilon=0.1, seed=7, allocation="tree")),
    (("--method", "root", "--with-replacement", "--key", "name+grid+block"),
     dict(method="root", with_replacement=True, key="name+grid+block")),
    (("--method", "allegro", "--n-th", "40", "--n-min", "10", "--seed", "3"),
     dict(method="allegro", n_th=40, n_min=10.0, seed=3)),
    (("--key", "name+shape", "--shape-share", "0.002"), dict(key="name+shape", shape_share=0.002)),
    (("--method", "stem", "--confidence", "0.9"), dict(method="stem", confidence=0.9)),
    (("--method", "random", "--fraction", "0.01", "--seed", "11"),
     dict(method="random", fraction=0.01, seed=11)),
])
def test_same_bytes_as_the_command(example, tmp_path, options, kwargs):
    want = cli_plan(tmp_path, *options)
    plan = ksample.sample(example, **kwargs)
    assert plan.to_json().encode() == want
    plan.to_json(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == want
    cli("sample", EXAMPLE, *options, "--csv", "-o", tmp_path / "cli.csv")
    plan.to_csv(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_every_parameter_from_the_tables(example, tmp_path):
    """Each duration method's every parameter, given its default by keyword,
    changes nothing: the names, types and defaults Python uses are the
    table's."""
    for m in ksample.methods():
        if m["needs"] != ["time"]:
            continue
        base = ksample.sample(example, m["name"]).to_json()
        for p in m["params"]:
            if p["type"] in ("uint", "real") and p["default"] == 0:
                continue  # 0 stands for "not given" (random's --target-speedup)
            again = ksample.sample(example, m["name"], **{p["keyword"]: p["default"]})
            assert again.to_json() == base, (m["name"], p["name"])
            assert again.params[p["name"]] == p["default"]


def test_methods_are_the_command_s(example):
    _, out, _ = cli("formats")
    listed = [line.split()[0] for line in out.decode().split("methods:")[1].splitlines()
              if line.strip()]
    names = [m["name"] for m in ksample.methods()]
    assert names == listed
    assert names[0] == ksample.sample.__signature__.parameters["method"].default
    for m in ksample.methods():
        assert m["name"] in ksample.sample.__doc__
        for p in m["params"]:
            assert p["keyword"] in ksample.sample.__doc__


def test_errors_as_the_command_reports_them(example):
    with pytest.raises(ksample.Error) as e:
        ksample.sample(example, bogus=1)
    assert e.value.status == "usage"
    assert str(e.value).startswith("--bogus is not a parameter of root (its own: ")
    with pytest.raises(ksample.Error) as e:
        ksample.sample(example, epsilon=2)
    assert "--epsilon must be in (0, 1)" in str(e.value)
    with pytest.raises(ksample.Error) as e:
        ksample.sample(example, "allegro", n_th=-1)
    assert "--n-th" in str(e.value)
    with pytest.raises(ksample.Error) as e:
        ksample.sample(example, "root", allocation="sideways")
    assert "--allocation must be one of joint, tree, paper" in str(e.value)
    with pytest.raises(ksample.Error) as e:
        ksample.sample(example, "nosuch")
    assert "unknown method 'nosuch' (root (default), stem" in str(e.value)
    code, _, err = cli("sample", EXAMPLE, "--method", "pka", check=False)
    with pytest.raises(ksample.Error) as e:
        ksample.sample(example, "pka")
    # (the command's last line: a note on launch shapes may come first)
    assert code == e.value.code == 2
    assert err.strip().splitlines()[-1] == "ksample: " + str(e.value)


def test_plan_arrays_view_the_plan(example, tmp_path):
    plan = ksample.sample(example, "allegro", seed=2)
    doc = json.loads(plan.to_json())
    assert address(plan.samples) == int(ffi.cast("uintptr_t", plan._p.samples))
    assert not plan.ids.flags.writeable
    assert plan.ids.dtype == np.uint64 and plan.weights.dtype == np.float64
    assert plan.ids.tolist() == [s["id"] for s in doc["samples"]]
    assert plan.weights.tolist() == pytest.approx([s["weight"] for s in doc["samples"]],
                                                  rel=1e-15)
    assert plan.clusters.tolist() == [s["cluster"] for s in doc["samples"]]
    assert len(plan.cluster_table) == len(doc["clusters"])
    assert plan.cluster_table["size"].tolist() == [c["size"] for c in doc["clusters"]]
    assert plan.cluster_table["min_ns"].tolist() == [c["min_ns"] for c in doc["clusters"]]
    assert np.all(np.diff(plan.ids.astype(np.int64)) > 0)
    assert plan.method == "allegro" and plan.seed == 2 and plan.population == 50000
    assert plan.params == {k.replace("_", "-"): v for k, v in doc["params"].items()
                           if k.replace("_", "-") in plan.params}
    # the estimate of the total time from the plan
    assert plan.estimate_total(example.durations.astype(float)) == pytest.approx(
        float(np.sum(plan.weights * example.durations[plan.ids])), rel=1e-12)
    # read back: same bytes
    plan.to_json(tmp_path / "p.json")
    again = ksample.load_plan(tmp_path / "p.json")
    assert again.to_json() == plan.to_json()
    assert str(again) == str(plan)


def test_summary_is_the_command_s(example):
    """The command's summary line (beside its notes on shapes, the
    selection and the unsimulated part), communication kernels left out or
    kept."""
    _, _, err = cli("sample", EXAMPLE, "-o", "/dev/null")
    assert "ksample: " + str(ksample.sample(example)) in err.splitlines()
    _, _, err = cli("sample", "--include-comm", EXAMPLE, "-o", "/dev/null")
    assert "ksample: " + str(ksample.sample(example, include_comm=True)) in err.splitlines()


def test_to_pandas(example):
    pytest.importorskip("pandas")
    plan = ksample.sample(example)
    frame = plan.to_pandas()
    assert list(frame.columns) == ["id", "weight", "cluster", "group"]
    assert len(frame) == len(plan)
    assert frame["group"].iloc[0] == plan.group_labels[plan.cluster_table["group"][
        plan.clusters[0]]]
    clusters = plan.clusters_to_pandas()
    assert len(clusters) == len(plan.cluster_table)
    assert list(clusters.columns[:2]) == ["group_label", "path"]


@pytest.mark.parametrize("method,options,kwargs", [
    ("pka", ("--max-k", "5", "--variance", "0.99"), dict(max_k=5, variance=0.99)),
    ("sieve", ("--tier2-cv", "0.3", "--kde-grid", "256"), dict(tier2_cv=0.3, kde_grid=256)),
    ("photon", ("--threshold", "0.1"), dict(threshold=0.1)),
])
def test_feature_methods_same_bytes(synth_with_features, tmp_path, method, options, kwargs):
    run, ncu, bbv = synth_with_features
    out = tmp_path / "cli.json"
    cli("sample", run, "--metrics", ncu, "--bbv", bbv, "--method", method, *options, "-o", out)
    p = ksample.read(run, metrics=ncu, bbv=bbv)
    assert ksample.sample(p, method, **kwargs).to_json().encode() == out.read_bytes()
