#!/usr/bin/env python3
"""The warm-state table of docs/bench.md ("The rebuilt warm state") from the recorded runs.

usage: bench/warm_state_table.py [SHARED_DATA]   (default ../shared/data beside the project)

For each simulator and configuration with recorded runs, every launch simulated alone,
after since-same:8 and since-same:16:2 warm-ups, and from the rebuilt state (--warmup
state, and state:memcpy on a build whose perf_memcpy_to_gpu keeps 64-bit addresses, scored
against that build's own full run): the sum over every launch against the full run's
total, the per-launch error (median, worst, how many within 1 %) and the cost, every cycle
simulated (warm-up included) against the cycles of the launches alone.
"""
import csv
import os
import statistics
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, '..', 'shared', 'data')
data = os.path.join(root, 'tests', 'data')


def recorded(path):
    """id -> (value, run_cycles) of a recorded CSV id,<value>,run_cycles."""
    out = {}
    with open(path) as f:
        for row in csv.reader(f):
            if row[0] == 'id':
                continue
            out[int(row[0])] = (float(row[1]), float(row[2]) if len(row) > 2 else float(row[1]))
    return out


def line(label, full, alone, runs):
    ids = sorted(full)
    if any(i not in runs for i in ids):
        return None
    tot = sum(full[i] for i in ids)
    s = sum(runs[i][0] for i in ids)
    errs = sorted(abs(runs[i][0] / full[i] - 1) for i in ids)
    cost = sum(runs[i][1] for i in ids) / sum(alone[i] for i in ids)
    return '| %s | %.4f | %.2f %% | %.1f %% | %d of %d | %.2fx |' % (
        label, s / tot, 100 * statistics.median(errs), 100 * errs[-1],
        sum(e <= 0.01 for e in errs), len(ids), cost)


MODES = (('since-same_8', 'since-same:8'), ('since-same_16_2', 'since-same:16:2'),
         ('state', 'state:kernel, --state-lines touched'),
         ('state-touched', 'state:kernel, --state-lines touched'),
         ('state-dirty', 'state:kernel, --state-lines dirty'),
         ('state-all', 'state:kernel, every line (the default before issue 39)'),
         ('state-auto', 'state:kernel, --state-lines auto (MacSim\'s default)'),
         ('state-memcpy32', 'state:memcpy32'), ('state-memcpy32-stores', 'state:memcpy32+stores'),
         ('state-split-reach', 'state:split, a span of ordered loads wherever a dirty line is in reach'),
         ('state-split-stores-last', 'state:split, the dirty lines in reach stored last (the default until 2026-11-30)'),
         ('state-split', 'state:split (the default)'))


def accelsim(cfg):
    per = os.path.join(shared, 'sim', 'accelsim-synth', 'per_launch.csv')
    full, alone = {}, {}
    for r in csv.DictReader(open(per)):
        if r['config'] == cfg:
            full[int(r['launch'])] = float(r['full_run_cycles'])
            alone[int(r['launch'])] = float(r['alone_cycles'])
    rows = [line('alone', full, alone, {i: (alone[i], alone[i]) for i in alone})]
    for mode, label in MODES:
        p = os.path.join(data, 'accelsim-warmup', '%s_%s.csv' % (cfg, mode))
        if os.path.exists(p):
            rows.append(line(label, full, alone, recorded(p)))
    # state:split, the default: memcpy32's jobs but for the launches whose
    # kernel the split-stores file holds (tests/data/accelsim-warmup/README.md)
    m32 = os.path.join(data, 'accelsim-warmup', '%s_state-memcpy32.csv' % cfg)
    st = os.path.join(data, 'accelsim-warmup', '%s_state-split-stores.csv' % cfg)
    if os.path.exists(m32):
        runs = recorded(m32)
        if os.path.exists(st):
            runs.update(recorded(st))
        rows.append(line('state:split (the default; %s)' %
                         ('memcpy32\'s jobs but for the kernels of -split-stores.csv'
                          if os.path.exists(st) else 'every job memcpy32\'s'), full, alone, runs))
    wide = os.path.join(data, 'accelsim-warmup', 'wide')
    wf = os.path.join(wide, '%s_full.csv' % cfg)
    wm = os.path.join(wide, '%s_state-memcpy.csv' % cfg)
    if os.path.exists(wf) and os.path.exists(wm):
        wfull = {i: v for i, (v, _) in recorded(wf).items()}
        rows.append(line('state:memcpy (widened build, its full run)', wfull, alone, recorded(wm)))
    return rows


def macsim():
    per = os.path.join(shared, 'sim', 'macsim-vectormultadd', 'per_launch.csv')
    full, alone = {}, {}
    for r in csv.DictReader(open(per)):
        full[int(r['launch'])] = float(r['full_run_cycles'])
        alone[int(r['launch'])] = float(r['alone_cycles'])
    rows = [line('alone', full, alone, {i: (alone[i], alone[i]) for i in alone})]
    for mode, label in MODES:
        p = os.path.join(data, 'macsim-warmup', '%s.csv' % mode)
        if os.path.exists(p):
            rows.append(line(label, full, alone, recorded(p)))
    return rows


def large(cfg):
    d = os.path.join(data, 'accelsim-large')
    per = os.path.join(d, 'per_launch_%s.csv' % cfg)
    if not os.path.exists(per):
        return []
    full, alone = {}, {}
    for r in csv.DictReader(open(per)):
        full[int(r['launch'])] = float(r['full_run_cycles'])
        if r.get('alone_cycles'):
            alone[int(r['launch'])] = float(r['alone_cycles'])
    if len(alone) != len(full):
        return []
    rows = [line('alone', full, alone, {i: (alone[i], alone[i]) for i in alone})]
    for mode, label in MODES:
        p = os.path.join(d, '%s_%s.csv' % (cfg, mode))
        if os.path.exists(p):
            rows.append(line(label, full, alone, recorded(p)))
    wf = os.path.join(d, 'wide', '%s_full.csv' % cfg)
    wm = os.path.join(d, 'wide', '%s_state-memcpy.csv' % cfg)
    if os.path.exists(wf) and os.path.exists(wm):
        wfull = {i: v for i, (v, _) in recorded(wf).items()}
        rows.append(line('state:memcpy (widened build, its full run)', wfull, alone, recorded(wm)))
    return rows


head = ('| values | sum / full run | per-launch median error | worst | within 1 % | '
        'cost / alone |\n| --- | ---: | ---: | ---: | ---: | ---: |')
for title, rows in (('Accel-Sim synthetic, SM86_RTX3070', accelsim('SM86_RTX3070')),
                    ('Accel-Sim synthetic, SM7_QV100', accelsim('SM7_QV100')),
                    ('Accel-Sim large, SM86_RTX3070', large('SM86_RTX3070')),
                    ('MacSim vectormultadd, base', macsim())):
    rows = [r for r in rows if r]
    if not rows:
        continue
    print('%s:\n\n%s' % (title, head))
    print('\n'.join(rows))
    print()
