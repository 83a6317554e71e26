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


def sample_as_library(args):
    """`ksample sample` leaves communication kernels out and gives each
    launch shape its own strata by default (issue 40, docs/llm.md); the
    library and the package plan on the launches they are given, with the
    method's own key: --include-comm and, for a method whose default key is
    name, --key name make the command do the same."""
    a = [str(x) for x in args]
    if not a or a[0] != "sample":
        return a
    if "--include-comm" not in a:
        a.insert(1, "--include-comm")
    method = a[a.index("--method") + 1] if "--method" in a else "root"
    if method != "allegro" and "--key" not in a and not any(x.startswith("--key=") for x in a):
        a[1:1] = ["--key", "name"]
    return a


def cli(*args, check=True):
    """Runs the command; (exit code, stdout bytes, stderr text).  `sample`
    runs as the library plans (sample_as_library)."""
    p = subprocess.run([CLI, *sample_as_library(args)], capture_output=True)
    if check and p.returncode != 0:
        raise AssertionError("ksample %s: exit %d: %s"
                             % (" ".join(map(str, args)), p.returncode, p.stderr.decode()))
    return p.returncode, p.stdout, p.stderr.decode()


def cli_json(*args):
    return json.loads(cli(*args)[1])


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
