"""What the Python layer costs on read + sample of a large profile, against
the command, in one run (docs/bench.md, "Python").

usage: python3 bench/bench_python.py BUILD_DIR [N] [ROUNDS]
  (run by bench/run.sh with the interpreter scripts/pick-python.sh picks;
   PYTHONPATH=python, KSAMPLE_LIBRARY=BUILD/libksample.so.X)

The profile is `ksample synth --preset casio-like -n N --seed 7` (made once
under bench/out).  Each round runs, in turn, as separate processes:
  cli     ksample sample PROFILE -o plan-cli.json
  python  python3 -c: import ksample; read; sample; to_json(plan-py.json),
          timing import and the three calls inside the process
  import  python3 -c "import ksample" (the interpreter and the import alone)
and takes each process's wall time and peak RSS (wait4).  Reported: medians
over the rounds; the layer's overhead = (read + sample + to_json inside
Python) / (the command's whole run) - 1; the import's fixed cost; peak RSS of
each, and python's minus the import's against the command's (a copy of the
duration column alone would add 8 bytes a launch).  The two plans must be the
same bytes.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]).resolve()
N = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
OUT = Path(os.environ.get("BENCH_OUT", ROOT / "bench" / "out")).resolve()
OUT.mkdir(parents=True, exist_ok=True)
KS = str(BUILD / "ksample")
PROFILE = OUT / ("casio-%d.csv" % N)

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import ksample
t1 = time.perf_counter()
p = ksample.read(sys.argv[1])
t2 = time.perf_counter()
plan = ksample.sample(p)
t3 = time.perf_counter()
plan.to_json(sys.argv[2])
t4 = time.perf_counter()
assert ksample._views.address(p.durations) == int(ksample._native.ffi.cast(
    "uintptr_t", p._p.duration_ns))
print(json.dumps({"import": t1 - t0, "read": t2 - t1, "sample": t3 - t2, "write": t4 - t3,
                  "column_bytes": ksample._native.lib.ks_profile_column_bytes(p._p)}))
"""


def run(argv):
    """(wall seconds, peak RSS in MiB, stdout, CPU seconds) of one process."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit("bench_python: %s: exit %d" % (" ".join(argv), proc.returncode))
    return wall, usage.ru_maxrss / 1024, out, usage.ru_utime + usage.ru_stime


def main():
    print("== machine: %d cores, %s, load average %s at start"
          % (os.cpu_count(), os.uname().machine,
             " ".join("%.2f" % x for x in os.getloadavg())))
    print("== python: %s %s" % (sys.executable, sys.version.split()[0]))
    if not PROFILE.exists():
        subprocess.run([KS, "synth", "--preset", "casio-like", "-n", str(N), "--seed", "7",
                        "-o", str(PROFILE)], check=True)
    with open(PROFILE, "rb") as f:  # warm the page cache
        while f.read(1 << 24):
            pass
    cli_plan, py_plan = OUT / "plan-cli.json", OUT / "plan-py.json"
    rows = {"cli": [], "python": [], "import": []}
    cpu = {"cli": [], "python": [], "import": []}
    inside = []
    for r in range(ROUNDS):
        for name, argv in (("cli", [KS, "sample", str(PROFILE), "-o", str(cli_plan)]),
                           ("python", [sys.executable, "-c", CHILD, str(PROFILE),
                                       str(py_plan)]),
                           ("import", [sys.executable, "-c", "import ksample"])):
            wall, rss, out, seconds = run(argv)
            rows[name].append((wall, rss))
            cpu[name].append(seconds)
            if name == "python":
                inside.append(json.loads(out))
        print("round %d: cli %.3f s, python %.3f s (inside: read %.3f + sample %.3f + write "
              "%.3f), import %.3f s; load %.2f"
              % (r + 1, rows["cli"][-1][0], rows["python"][-1][0], inside[-1]["read"],
                 inside[-1]["sample"],
                 inside[-1]["write"], rows["import"][-1][0], os.getloadavg()[0]))
    same = cli_plan.read_bytes() == py_plan.read_bytes()

    def med(values):
        return statistics.median(values)

    cli_wall = med([w for w, _ in rows["cli"]])
    layer = med([i["read"] + i["sample"] + i["write"] for i in inside])
    py_wall = med([w for w, _ in rows["python"]])
    imp_wall = med([w for w, _ in rows["import"]])
    cli_rss = med([m for _, m in rows["cli"]])
    py_rss = med([m for _, m in rows["python"]])
    imp_rss = med([m for _, m in rows["import"]])
    print("\n%d launches, %d rounds (medians); plans identical: %s" % (N, ROUNDS, same))
    print("ksample sample (whole command):        %8.3f s  peak RSS %7.1f MiB"
          % (cli_wall, cli_rss))
    print("python read + sample + to_json:        %8.3f s  (%+.1f %% against the command)"
          % (layer, 100 * (layer / cli_wall - 1)))
    print("  read %.3f s, sample %.3f s, to_json %.3f s"
          % tuple(med([i[k] for i in inside]) for k in ("read", "sample", "write")))
    print("python process (with start and import): %7.3f s  peak RSS %7.1f MiB (%+.1f %%)"
          % (py_wall, py_rss, 100 * (py_wall / cli_wall - 1)))
    print("python -c 'import ksample' alone:       %7.3f s  peak RSS %7.1f MiB"
          % (imp_wall, imp_rss))
    cli_cpu, py_cpu, imp_cpu = (med(cpu[k]) for k in ("cli", "python", "import"))
    print("CPU time (user + sys): command %.3f s, python %.3f s, its import %.3f s: python "
          "minus import %+.1f %% against the command"
          % (cli_cpu, py_cpu, imp_cpu, 100 * ((py_cpu - imp_cpu) / cli_cpu - 1)))
    print("peak RSS: python minus its import %.1f MiB vs the command %.1f MiB (%+.1f MiB); "
          "the columns hold %.1f MiB, a copy of the durations alone %.1f MiB"
          % (py_rss - imp_rss, cli_rss, py_rss - imp_rss - cli_rss,
             inside[0]["column_bytes"] / 2**20, 8 * N / 2**20))
    print("load average at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    if not same:
        sys.exit("bench_python: the plans differ")


main()
