"""examples/plot_strata.py runs as a user runs it and writes a PNG."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT


def test_plot_strata(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "strata.png"
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "plot_strata.py"), "-o",
                        str(out), "--rank", "0"], capture_output=True, text=True,
                       cwd=tmp_path, env=dict(os.environ, MPLCONFIGDIR=str(tmp_path)))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("%s: kernel 0 of 280 by GPU time, 9823 launches in " % out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
