"""What the tests share: the repository, the command built beside the library
($KSAMPLE_CLI, set by tests/python.sh), the bundled example, and a runner of
the command."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
CLI = os.environ.get("KSAMPLE_CLI", str(ROOT / "build" / "ksample"))
EXAMPLE = str(ROOT / "examples" / "casio-like-50k.csv.xz")


def cli(*args, check=True):
    """Runs the command; (exit code, stdout bytes, stderr text).  The
    package plans as the command does (communication kernels left out by
    ks_profile_leave_out_comm), so `sample` runs with its own defaults."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True)
    if check and p.returncode != 0:
        raise AssertionError("ksample %s: exit %d: %s"
                             % (" ".join(map(str, args)), p.returncode, p.stderr.decode()))
    return p.returncode, p.stdout, p.stderr.decode()


def cli_json(*args):
    return json.loads(cli(*args)[1])


def values_csv(path, plan, columns):
    """A results CSV of the plan's sampled launches: id, then each column
    {name: per-launch values} at those ids."""
    with open(path, "w") as f:
        f.write("id," + ",".join(columns) + "\n")
        for i in plan.ids:
            f.write("%d,%s\n" % (i, ",".join(repr(float(v[i])) for v in columns.values())))


@pytest.fixture(scope="session")
def example():
    import ksample

    return ksample.read(EXAMPLE)


@pytest.fixture(scope="session")
def synth_with_features(tmp_path_factory):
    """A synthetic profile with matching Nsight Compute metrics and basic-block
    vectors, written by the command."""
    d = tmp_path_factory.mktemp("synth")
    run, ncu, bbv = d / "run.csv", d / "ncu.csv", d / "bbv.csv"
    cli("synth", "-n", 3000, "--seed", 5, "-o", run, "--ncu", ncu, "--bbv", bbv)
    return run, ncu, bbv
