"""The package plans on LLM and training profiles as the command does (issue
40): communication kernels left out by default and recorded as the plan's
unsimulated part, regions selected with the command's selection, the same
plan bytes; the profile the user holds is not changed.  On the real Kineto
traces in ../shared/data (skipped when absent)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import ksample

from conftest import ROOT, cli, cli_json

KINETO = ROOT.parent / "shared" / "data" / "kineto"
NCCL = KINETO / "a100-nccl.json.gz"      # 21 NCCL launches, 28.8 % of the time
RANK0 = KINETO / "sampled-rank0.json.gz"  # send/recv, 65.3 %; steps 551-552


def need(path):
    if not Path(path).exists():
        pytest.skip("%s is absent (../shared/data)" % path)
    return path


@pytest.fixture(scope="module")
def nccl():
    return ksample.read(need(NCCL))


def cli_plan(tmp_path, path, *options):
    out = tmp_path / "cli.json"
    cli("sample", path, *options, "-o", out)
    return out.read_bytes()


def snapshot(profile):
    """What must not change: the columns' bytes, the selection, the start
    times behind the communication summary."""
    return (len(profile), profile.durations.tobytes(), profile.name_ids.tobytes(),
            profile.selection, profile.launch_ids.tobytes(), profile.comm)


# (the command's options, read()'s select, sample()'s keywords)
CASES = [
    ((), None, {}),
    (("--include-comm",), None, dict(include_comm=True)),
    (("--step", "5", "--seed", "3"), "step=5", dict(seed=3)),
    (("--step", "4-5", "--include-comm", "--epsilon", "0.1"), "step=4-5",
     dict(include_comm=True, epsilon=0.1)),
    (("--range", "## forward ##", "--range", "## backward ##", "--method", "stem"),
     "range=## forward ##;range=## backward ##", dict(method="stem")),
    (("--time-window", "20ms-45ms",), "time=20000000-45000000", {}),
    (("--launches", "900-1799", "--comm-pattern", "*elementwise_kernel*"),
     "launches=900-1799", dict(comm_patterns=["*elementwise_kernel*"])),
]


@pytest.mark.parametrize("options,select,kwargs", CASES)
def test_same_bytes_as_the_command(nccl, tmp_path, options, select, kwargs):
    want = cli_plan(tmp_path, NCCL, *options)
    profile = nccl if select is None else ksample.read(NCCL, select=select)
    before = snapshot(profile)
    plan = ksample.sample(profile, **kwargs)
    assert plan.to_json().encode() == want
    plan.to_json(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == want
    assert snapshot(profile) == before
    doc = json.loads(want)
    comm = profile.comm_summary(kwargs.get("comm_patterns", ()))
    if kwargs.get("include_comm") or not comm.launches:
        assert plan.unsimulated is None and "unsimulated" not in doc
    else:
        assert plan.unsimulated.launches == doc["unsimulated"]["launches"] == comm.launches
        assert plan.selection.endswith("no-comm" + "".join(
            ";comm-pattern=" + p for p in kwargs.get("comm_patterns", ())))


def test_a_phase_of_a_step(tmp_path):
    """The loop of docs/llm.md: step 552's forward pass of sampled-rank0,
    its one NCCL launch left out, the plan's ids the program's."""
    want = cli_plan(tmp_path, need(RANK0), "--step", "552", "--range", "## forward ##")
    profile = ksample.read(RANK0, select="step=552;range=## forward ##")
    assert len(profile) == 177 and profile.selection == "step=552;range=## forward ##"
    plan = ksample.sample(profile)
    assert plan.to_json().encode() == want
    assert plan.selection == "step=552;range=## forward ##;no-comm" and plan.selected == 176
    u = plan.unsimulated
    assert u.launches == 1 and u.share == pytest.approx(0.703, abs=0.001)
    assert u.time_ns == pytest.approx(67.8e6, rel=0.01)
    ids = set(profile.launch_ids.tolist())
    assert set(plan.ids.tolist()) <= ids and min(ids) == 624 and max(ids) == 801


def test_unsimulated_is_the_comm_summary(nccl, tmp_path):
    c = nccl.comm
    assert c.launches == 21 and c.share == pytest.approx(0.2884, abs=0.0001)
    plan = ksample.sample(nccl, seed=2)
    u = plan.unsimulated
    assert u.what == "communication kernels"
    assert (u.launches, u.time_ns, u.share, u.overlap_ns) == (
        c.launches, c.time_ns, c.share, c.overlap_ns)
    assert 0 < u.overlap_ns < u.time_ns
    assert u.kernels.startswith("ncclKernel_AllReduce_RING_LL_Sum_float")
    # as the JSON records it, and as a loaded plan reads it back
    doc = json.loads(plan.to_json())["unsimulated"]
    assert doc["launches"] == 21 and doc["time_ns"] == pytest.approx(u.time_ns)
    plan.to_json(tmp_path / "plan.json")
    assert ksample.load_plan(tmp_path / "plan.json").unsimulated == u
    # the plan's ids are launch ids of the whole file, none of them NCCL
    names = nccl.kernel_names()
    assert plan.population == len(nccl) and plan.selected == len(nccl) - 21
    assert not any(n.startswith("ncclKernel") for n in names[plan.ids.astype(np.int64)])
    # its estimate of the time is of the launches planned on
    est = plan.estimate_total(nccl.durations.astype(float))
    assert est == pytest.approx(nccl.total_ns - c.time_ns, rel=0.2)
    # with them kept: nothing recorded, and their groups are planned on
    kept = ksample.sample(nccl, seed=2, include_comm=True)
    assert kept.unsimulated is None and kept.selection == "" and kept.selected is None


def test_comm_as_info_reports_it(nccl):
    want = cli_json("info", NCCL, "--json")["comm"]
    c = nccl.comm
    assert c.launches == want["launches"]
    assert round(c.time_ns) == want["time_ns"]
    assert round(c.share, 6) == want["share"]
    assert c.overlap_ns == pytest.approx(want["overlap_ns"], rel=1e-6)  # (%.6g)
    assert [(n, k, round(t)) for n, k, t in c.kernels] == [
        (k["name"], k["launches"], k["time_ns"]) for k in want["kernels"]]
    # one more pattern, as --comm-pattern
    more = nccl.comm_summary(["*elementwise_kernel*"])
    want = cli_json("info", NCCL, "--json", "--comm-pattern", "*elementwise_kernel*")["comm"]
    assert more.launches == want["launches"] > c.launches
    # a profile read with a selection: its part of the run
    step = ksample.read(NCCL, select="step=5")
    want = cli_json("info", NCCL, "--json", "--step", "5")["comm"]
    assert step.comm.launches == want["launches"] == 7


def test_refusals(nccl, tmp_path):
    first = int(np.flatnonzero(np.char.startswith(nccl.kernel_names().astype(str),
                                                  "ncclKernel"))[0])
    only = ksample.read(NCCL, select="launches=%d-%d" % (first, first))
    with pytest.raises(ksample.Error) as e:
        ksample.sample(only)
    assert e.value.status == "usage" and "nothing to simulate" in e.value.message
    rc, _, err = cli("sample", NCCL, "--launches", "%d-%d" % (first, first), check=False)
    assert rc == 2 and err.strip().splitlines()[-1] == "ksample: " + str(e.value)
    assert ksample.sample(only, include_comm=True).unsimulated is None
    with pytest.raises(ksample.Error) as e:
        ksample.sample(nccl, comm_patterns=["a;step=1"])
    assert e.value.status == "usage" and "';'" in e.value.message
    with pytest.raises(ksample.Error) as e:
        ksample.read(NCCL, select="step=99")
    assert "no ProfilerStep#99" in e.value.message
    with pytest.raises(TypeError):
        ksample.read(NCCL, select=["step=5"])


def test_estimate_reads_the_profile_as_the_command(nccl, tmp_path):
    """A plan drawn on part of the profile: estimate reads the whole file
    with the launches outside the selection masked, as `ksample estimate`."""
    plan_path = tmp_path / "plan.json"
    cli("sample", NCCL, "--step", "5", "--epsilon", "0.1", "-o", plan_path)
    plan = ksample.sample(ksample.read(NCCL, select="step=5"), epsilon=0.1)
    assert plan.to_json().encode() == plan_path.read_bytes()
    cycles = nccl.durations * 1.3
    csv = tmp_path / "values.csv"
    with open(csv, "w") as f:
        f.write("id,gpu_sim_cycle\n")
        for i in plan.ids:
            f.write("%d,%r\n" % (i, float(cycles[i])))
    want = {r["metric"]: r for r in cli_json("estimate", plan_path, csv, "--json",
                                             "--warmup", "context")}["gpu_sim_cycle"]
    for profile in (nccl, ksample.read(NCCL, select="step=5"), None):
        got = ksample.estimate(plan, cycles, warmup="context", profile=profile)
        assert got.estimate == want["estimate"] and got.ci_low == want["ci_low"]
        assert got.ci_high == want["ci_high"]


def test_eval_exclude_comm_as_the_command(nccl):
    """eval plans on every launch by default, as `ksample eval`;
    exclude_comm leaves them out as --exclude-comm does."""
    for options, kwargs in [((), {}), (("--exclude-comm",), dict(exclude_comm=True))]:
        want = cli_json("eval", NCCL, "--methods", "root,random", "--iters", 3, "--json", "-q",
                        *options)
        got = ksample.eval(nccl, "root,random", iters=3, **kwargs)
        got = got.to_dict("records") if hasattr(got, "to_dict") else got
        for g, w in zip(got, want):
            assert g["samples"] == pytest.approx(w["samples_mean"] if "samples_mean" in w
                                                 else w["samples"], rel=1e-5)
            for key in ["error_mean_pct", "error_max_pct"]:
                assert float("%.6g" % g[key]) == pytest.approx(w[key], rel=1e-12), key
    base = ksample.eval(nccl, "root", iters=2)
    less = ksample.eval(nccl, "root", iters=2, exclude_comm=True)
    base = base.to_dict("records") if hasattr(base, "to_dict") else base
    less = less.to_dict("records") if hasattr(less, "to_dict") else less
    assert base[0]["samples"] != less[0]["samples"] or \
        base[0]["error_mean_pct"] != less[0]["error_mean_pct"]
    assert not math.isnan(less[0]["error_mean_pct"])
