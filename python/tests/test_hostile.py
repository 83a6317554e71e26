"""Issue 34 in Python: the package holds to the command's rules.  An
output never overwrites an input (the command's ks_path_check_output), a
path or name with a NUL byte is refused rather than cut at it, and the
values given to estimate meet the rule of a simulator's printed values
(non-negative, finite, below 2^64)."""

import math
import shutil

import numpy as np
import pytest

import ksample

from conftest import EXAMPLE, cli


@pytest.fixture()
def copied(tmp_path):
    """The example profile copied into tmp_path, read, and a plan of it."""
    path = tmp_path / "profile.csv.xz"
    shutil.copy(EXAMPLE, path)
    profile = ksample.read(path)
    return path, profile, ksample.sample(profile)


def test_outputs_never_overwrite_inputs(copied, tmp_path):
    path, profile, plan = copied
    before = path.read_bytes()
    for out in (path, str(path), tmp_path / "." / path.name, tmp_path / "sub" / ".." / path.name):
        with pytest.raises(ksample.Error, match="is the input"):
            plan.to_json(out)
        with pytest.raises(ksample.Error, match="is the input"):
            plan.to_csv(out)
    with pytest.raises(ksample.Error, match="is the input"):
        ksample.sample(profile, "stem", save_model=path)
    # a link to the input is the input
    (tmp_path / "link.csv.xz").symlink_to(path)
    with pytest.raises(ksample.Error, match="is the input"):
        plan.to_json(tmp_path / "link.csv.xz")
    assert path.read_bytes() == before
    # a plan read from a file does not overwrite that file either
    plan.to_json(tmp_path / "plan.json")
    loaded = ksample.load_plan(tmp_path / "plan.json")
    with pytest.raises(ksample.Error, match="is the input"):
        loaded.to_csv(tmp_path / "plan.json")
    loaded.to_json(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "plan.json").read_bytes()


def test_a_nul_byte_is_refused_not_cut(copied, tmp_path):
    path, profile, plan = copied
    with pytest.raises(ksample.Error, match="NUL byte"):
        ksample.read(str(path) + "\0ignored")
    with pytest.raises(ksample.Error, match="NUL byte"):
        ksample.read(path, format="plain-csv\0x")
    with pytest.raises(ksample.Error, match="NUL byte"):
        plan.to_json(str(tmp_path / "p.json") + "\0x")
    assert not (tmp_path / "p.json").exists()
    with pytest.raises(ksample.Error, match="NUL byte"):
        ksample.load_plan(b"plan.json\0x")
    with pytest.raises(ksample.Error, match="NUL byte"):
        ksample.sample(profile, "stem\0root")
    with pytest.raises(ksample.Error, match="NUL byte"):
        ksample.estimate(plan, {"cyc\0x": np.ones(len(plan))})


@pytest.mark.parametrize("bad", [-1.0, math.inf, math.nan, 1e300, 2.0 ** 64])
def test_estimate_values_as_the_command_reads_them(copied, bad):
    _, _, plan = copied
    values = np.full(len(plan), 1000.0)
    values[1] = bad
    with pytest.raises(ksample.Error) as e:
        ksample.estimate(plan, values)
    assert e.value.status == "format"
    assert e.value.line == 2  # the position, as the command names a line
    good = np.full(len(plan), 1000.0)
    assert ksample.estimate(plan, good).estimate > 0


def test_estimate_of_zero_meets_no_bound(copied):
    _, _, plan = copied
    e = ksample.estimate(plan, np.zeros(len(plan)))
    # never "met": no relative error, and no bound met (or no interval at all)
    assert e.estimate == 0 and math.isnan(e.rel_halfwidth) and e.bound_met is not True


def test_main_says_which_library(tmp_path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "ksample"], capture_output=True, text=True,
                         check=True).stdout
    assert "library: " + ksample.LIBRARY_PATH in out and "found: " in out


# --- issue 41 -------------------------------------------------------------

class _Labelled:
    """What estimate needs of a pandas Series: values under an index of
    launch ids (so the test runs without pandas too)."""

    def __init__(self, ids, values):
        self.index = list(ids)
        self._values = np.asarray(values, dtype=np.float64)

    def to_numpy(self, dtype=None):
        return self._values


def test_series_taken_by_launch_id(copied):
    _, profile, plan = copied
    ids = [int(i) for i in plan.ids]
    by_id = {i: 1000.0 + i % 97 for i in ids}
    want = ksample.estimate(plan, by_id).estimate
    # reversed: by position every value would land on another launch
    rev = list(reversed(ids))
    got = ksample.estimate(plan, _Labelled(rev, [by_id[i] for i in rev])).estimate
    assert got == want
    pd = pytest.importorskip("pandas")
    series = pd.Series([by_id[i] for i in rev], index=rev)
    assert ksample.estimate(plan, series).estimate == want
    assert ksample.estimate(plan, {"gpu_sim_cycle": series})["gpu_sim_cycle"].estimate == want
    # a default index (0, 1, ...) is positions, as a list is
    in_order = pd.Series([by_id[i] for i in ids])
    assert ksample.estimate(plan, in_order).estimate == want


def test_wrong_argument_types(copied):
    _, profile, plan = copied
    n = len(plan)
    for call in (lambda: ksample.estimate("plan.json", [1.0] * n),
                 lambda: ksample.estimate(plan, "abc"),
                 lambda: ksample.estimate(plan, None),
                 lambda: ksample.estimate(plan, 5),
                 lambda: ksample.estimate(plan, [1.0] * n, profile="x"),
                 lambda: ksample.estimate(plan, {int(plan.ids[0]): "x"}),
                 lambda: ksample.estimate(plan, {1.5: 2.0}),
                 lambda: ksample.sample("x.csv"),
                 lambda: ksample.sample(None),
                 lambda: ksample.sample(profile, epsilon="a"),
                 lambda: ksample.eval(42, ["random"], iters=1),
                 lambda: ksample.compare(42, iters=1),
                 lambda: plan.estimate_total("a")):
        with pytest.raises((TypeError, ksample.Error)):
            call()
