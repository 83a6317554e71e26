"""ksample.read: the columns are the library's memory (no copy), what the
command reads is what Python sees, errors carry the library's file, line and
message, and the library prints nothing."""

import gc

import numpy as np
import pytest

import ksample
from ksample._native import ffi
from ksample._views import address

from conftest import EXAMPLE, cli, cli_json


def pointer(cdata):
    return int(ffi.cast("uintptr_t", cdata))


def test_columns_view_the_library_memory(example):
    p = example
    assert len(p) == 50000
    assert p.durations.dtype == np.int64 and p.name_ids.dtype == np.uint32
    assert address(p.durations) == pointer(p._p.duration_ns)
    assert address(p.name_ids) == pointer(p._p.name_id)
    assert address(p.dims_ids) == pointer(p._p.dims_id)
    for a in (p.durations, p.name_ids, p.dims_ids, p.dims):
        assert not a.flags.writeable and not a.flags.owndata
    with pytest.raises(ValueError):
        p.durations[0] = 1


def test_same_profile_as_the_command(example):
    info = cli_json("info", "--json", "--top", 0, EXAMPLE)
    assert len(example) == info["invocations"]
    assert len(example.names) == info["names"]
    assert int(example.durations.sum()) == info["total_ns"] == example.total_ns
    assert example.source_format == info["format"]
    # per kernel: count and total time of the top rows (key "name" cuts at '(')
    names = np.array([n.split("(")[0] for n in example.names], dtype=object)
    for row in info["top"][:5]:
        mask = names[example.name_ids] == row["key"]
        assert mask.sum() == row["count"]
        assert int(example.durations[mask].sum()) == row["total_ns"]
    grid = example.grid()
    assert grid.shape == (50000, 3) and (grid > 0).all()


def test_arrays_keep_the_profile_alive():
    d = ksample.read(EXAMPLE).durations
    gc.collect()
    assert int(d.sum()) == 1067025502
    labels = ksample.read(EXAMPLE).groups()[0]
    gc.collect()
    assert labels.max() == 279


def test_metrics_attached_by_launch_order(synth_with_features):
    run, ncu, bbv = synth_with_features
    p = ksample.read(run, metrics=ncu, bbv=bbv)
    assert len(p) == 3000
    assert "gpu__time_duration.sum" in p.metrics
    for name, col in p.metrics.items():
        assert col.shape == (3000,) and col.dtype == np.float64
    i = list(p.metrics).index("gpu__time_duration.sum")
    assert address(p.metrics["gpu__time_duration.sum"]) == pointer(p._p.metrics[i].values)
    assert p.metric_units["gpu__time_duration.sum"] in ("ns", "nsecond", "usecond", "msecond")


def test_groups_are_the_methods_groups(example):
    group_of, labels, sizes = example.groups("name")
    assert len(labels) == 280 and int(sizes.sum()) == 50000
    assert np.array_equal(np.bincount(group_of), sizes)
    plan = ksample.sample(example, include_comm=True)
    assert plan.group_labels == labels
    # by default the communication kernels are in no group of the plan
    comm = {name for name, _, _ in example.comm.kernels}
    names = example.kernel_names()
    comm_groups = {int(g) for g, name in zip(group_of, names) if name in comm}
    assert comm_groups and ksample.sample(example).group_labels == [
        label for g, label in enumerate(labels) if g not in comm_groups]


def test_shape_groups_are_the_plans(example):
    """name+shape at a plan's shape share gives the plan's groups; 0 splits
    every shape."""
    plan = ksample.sample(example, key="name+shape", include_comm=True)
    share = plan.shape_share
    assert share == 0.0125 and ksample.sample(example).shape_share is None
    assert example.groups("name+shape", shape_share=share)[1] == plan.group_labels
    every = example.groups("name+shape")[1]
    assert len(every) > len(plan.group_labels)
    with pytest.raises(ksample.Error):
        example.groups("name+shape", shape_share=2)


def test_bad_input_names_file_and_line(tmp_path, capfd):
    bad = tmp_path / "neg.csv"
    bad.write_text("name,duration_ns\nk,1\nk,-4\n")
    with pytest.raises(ksample.Error) as e:
        ksample.read(bad)
    assert e.value.status == "format" and e.value.code == 4
    assert e.value.file == str(bad) and e.value.line == 3
    # the command says the same, with its prefix
    code, _, err = cli("info", bad, check=False)
    assert code == 4 and err.strip() == "ksample: " + str(e.value)
    # nothing printed by the library
    out = capfd.readouterr()
    assert out.out == "" and out.err == ""


def test_missing_file_and_bad_options(tmp_path):
    with pytest.raises(ksample.Error) as e:
        ksample.read(tmp_path / "none.csv")
    assert e.value.status == "io" and e.value.file == str(tmp_path / "none.csv")
    with pytest.raises(ksample.Error) as e:
        ksample.read(EXAMPLE, format="no-such-format")
    assert "no-such-format" in str(e.value)
    with pytest.raises(TypeError):
        ksample.read(EXAMPLE, colour="red")
    assert "nsys-kern-exec-csv" in ksample.formats()


def test_to_pandas(example):
    pd = pytest.importorskip("pandas")
    frame = example.to_pandas()
    assert list(frame.columns[:2]) == ["duration_ns", "name"]
    assert len(frame) == 50000
    assert frame["name"].iloc[1] == example.names[example.name_ids[1]]
    assert isinstance(frame["name"].dtype, pd.CategoricalDtype)


def test_exit_with_objects_alive():
    """Profiles, plans and views still alive (in reference cycles) when the
    interpreter exits are freed after the package's lib object: the library
    must stay loaded for their destructors (it segfaulted once)."""
    import subprocess
    import sys

    script = ("import ksample\n"
              "p = ksample.read(%r)\np.me = p\nd = p.durations\n"
              "plan = ksample.sample(p)\nplan.me = plan\nids = plan.ids\n" % EXAMPLE)
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
