"""ksample.versus: the paired comparison `estimate A --versus B` prints."""

import numpy as np
import pytest

import ksample
from conftest import EXAMPLE, cli, cli_json, values_csv


def test_versus_as_the_command(example, tmp_path):
    plan_path = tmp_path / "plan.json"
    cli("sample", EXAMPLE, "--method", "root", "--epsilon", "0.1", "-o", plan_path)
    plan = ksample.load_plan(plan_path)
    rng = np.random.default_rng(7)
    cycles_a = example.durations * 1.4 * np.exp(rng.normal(0, 0.2, len(example)))
    cycles_b = cycles_a * 0.8 * np.exp(rng.normal(0, 0.02, len(example)))
    insn = example.durations * 3.0
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    values_csv(a, plan, {"gpu_sim_cycle": cycles_a, "gpu_sim_insn": insn})
    values_csv(b, plan, {"gpu_sim_cycle": cycles_b, "gpu_sim_insn": insn})
    want = {r["metric"]: r for r in cli_json("estimate", plan_path, a, "--versus", b, "--json")}
    got = ksample.versus(plan, {"gpu_sim_cycle": cycles_a, "gpu_sim_insn": insn},
                         {"gpu_sim_cycle": cycles_b, "gpu_sim_insn": insn})
    assert sorted(got) == sorted(want) == ["gpu_sim_cycle", "gpu_sim_insn", "ipc"]
    for name, w in want.items():
        g = got[name]
        for key in ["ratio", "ci_low", "ci_high", "rel_halfwidth", "estimate_a", "estimate_b"]:
            x = getattr(g, key)
            assert x == w[key] or (w[key] is None and np.isnan(x)), (name, key)
        assert g.interval == w["interval"] and g.rate == (w["kind"] == "rate")
    # the same instructions on both sides: exactly 1, no width where there
    # is an interval (strata nothing measures have none, as for the totals)
    i = got["gpu_sim_insn"]
    assert i.ratio == 1 and i.variance == 0
    assert i.rel_halfwidth == 0 or (i.interval == "none" and np.isnan(i.rel_halfwidth))
    # the cycles' ratio is far tighter than either total: B / A departs by
    # 2 % per launch, the totals by 20 % from the profile (+-8.8 % against
    # +-34 % on the plan without the NCCL kernels: in kernels of fewer than
    # three samples the ratio takes the largest departure any launch shows)
    c = got["gpu_sim_cycle"]
    assert c.ci_low < c.ratio < c.ci_high
    assert c.rel_halfwidth < 0.3 * min(c.rel_halfwidth_a, c.rel_halfwidth_b)
    # one metric
    one = ksample.versus(plan, cycles_a, cycles_b)
    assert one.ratio == c.ratio and one.ci_low == c.ci_low


def test_versus_refusals(example):
    plan = ksample.sample(example, "root", epsilon=0.1)
    a = {int(i): 1.0 for i in plan.ids}
    b = {int(i): 2.0 for i in plan.ids[1:]}
    with pytest.raises(ksample.Error) as e:
        ksample.versus(plan, a, b)
    assert "launch %d" % plan.ids[0] in str(e.value) and "A (the results) only" in str(e.value)
    with pytest.raises(ksample.Error):
        ksample.versus(plan, {"gpu_sim_cycle": a}, b)
