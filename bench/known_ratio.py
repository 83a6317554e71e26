#!/usr/bin/env python3
"""known_ratio.py - does ratio or regression estimation of cycles against the
traces' known instruction counts (estimate --auxiliary trace_insts) beat the
plain estimator?  docs/bench.md, "Known totals".

usage: bench/known_ratio.py KSAMPLE DATASET SEEDS [SAMPLE OPTIONS...]
  DATASET: synth TRACES (the unpacked ../shared/data/sim/accelsim-synth
           ksample-synth-traces.tar.xz, its syn/ folder) or transformer TRACES
           (`ksample synth --traces DIR --preset transformer --seed 33`)
  e.g. bench/known_ratio.py build/ksample synth:/tmp/syn 30 --replicate 0.2
Per seed 1..SEEDS: `sample TIME.csv --seed S` (plus the options), then
`estimate --json --metric gpu_sim_cycle` of the full run's recorded cycles
(--warmup context) with each estimator; prints error, coverage of the full
run's total and mean half-width per estimator.  VARIANTS=plain,ratio-insts
picks estimators.  Writes its files in a temporary folder.
"""
import csv, json, os, statistics as st, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
K, spec, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = sys.argv[4:]
ds, traces = spec.split(':', 1)
if ds == 'synth':
    rows = list(csv.DictReader(open(os.path.join(ROOT, '../shared/data/sim/accelsim-synth/per_launch.csv'))))
else:
    rows = list(csv.DictReader(open(os.path.join(ROOT, 'tests/data/accelsim-transformer/per_launch_SM86_RTX3070.csv'))))
time_csv = os.path.join(traces, 'time.csv')
cfgs = sorted(set(r['config'] for r in rows))
tmp = tempfile.mkdtemp(prefix='known-ratio-')
truth = {}
for cfg in cfgs:
    with open(os.path.join(tmp, cfg + '.csv'), 'w') as f:
        f.write('id,gpu_sim_cycle\n')
        for r in rows:
            if r['config'] == cfg:
                f.write(f"{r['launch']},{r['full_run_cycles']}\n")
    truth[cfg] = sum(int(r['full_run_cycles']) for r in rows if r['config'] == cfg)
variants = {'plain': [], 'ratio-insts': ['--estimator', 'ratio', '--auxiliary', 'trace_insts'],
            'regression-insts': ['--estimator', 'regression', '--auxiliary', 'trace_insts'],
            'auto-insts': ['--estimator', 'auto', '--auxiliary', 'trace_insts'],
            'regression-duration': ['--estimator', 'regression']}
if os.environ.get('VARIANTS'):
    variants = {k: v for k, v in variants.items() if k in os.environ['VARIANTS'].split(',')}
res = {}
plan = os.path.join(tmp, 'plan.json')
for s in range(1, seeds + 1):
    subprocess.run([K, 'sample', time_csv, '--seed', str(s), '-o', plan] + extra, check=True,
                   capture_output=True)
    launches = len(json.load(open(plan)).get('samples', []))
    for cfg in truth:
        for v, opt in variants.items():
            cmd = [K, 'estimate', '--json', plan, os.path.join(tmp, cfg + '.csv'), '--warmup',
                   'context', '--metric', 'gpu_sim_cycle']
            if 'trace_insts' in opt:
                cmd += ['--traces', traces]
            out = subprocess.run(cmd + opt, capture_output=True, text=True)
            if out.returncode:
                sys.exit(out.stderr)
            c = json.loads(out.stdout)[0]
            res.setdefault((cfg, v), []).append((c['estimate'], c['ci_low'], c['ci_high'],
                                                 c['rel_halfwidth'], launches))
print(f'{ds}, sample options: {" ".join(extra) or "default"}, {seeds} seeds')
print('| config | estimator | launches | error mean / p95 / max | coverage | mean +- |')
print('| --- | --- | ---: | --- | ---: | ---: |')
for (cfg, v), L in res.items():
    t = truth[cfg]
    err = sorted(abs(e / t - 1) for e, *_ in L)
    formed = [(lo, hi, r) for e, lo, hi, r, n in L if lo is not None and hi is not None]
    cov = sum(lo <= t <= hi for lo, hi, r in formed)
    hw = [r for lo, hi, r in formed]
    p95 = err[max(0, int(0.95 * len(err)) - 1)]
    print(f'| {cfg} | {v} | {st.mean(n for *_, n in L):.1f} | {100 * st.mean(err):.2f} / '
          f'{100 * p95:.2f} / {100 * err[-1]:.2f} % | {cov}/{len(formed)} | '
          f'{100 * st.mean(hw) if hw else float("nan"):.2f} % |')
for name in os.listdir(tmp):
    os.unlink(os.path.join(tmp, name))
os.rmdir(tmp)
