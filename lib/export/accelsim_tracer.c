/*
 * accelsim_tracer.c - what Accel-Sim's NVBit tracer reads so that it records
 * only the sampled launches.  The tracer counts launches from 1 (its
 * kernel-N.trace), so plan id i (0-based launch order) is launch i + 1.
 * Consecutive sampled launches are written as one range.  Four forms, for
 * the tracers in use:
 *
 *   accelsim-tracer          DYNAMIC_KERNEL_RANGE, space-separated ids and
 *                            inclusive ranges ("2 5-8 10"): the tracer of
 *                            accel-sim-framework since PR #428 (May 2025;
 *                            PR #439 fixed a version that traced nothing when
 *                            it was unset)
 *   accelsim-tracer-span     DYNAMIC_KERNEL_LIMIT_START/_END over the first
 *                            to the last sampled launch: every tracer version,
 *                            one traced run that also records the launches in
 *                            between (export --to accelsim then lists only the
 *                            sampled ones)
 *   accelsim-tracer-ranges   a shell script that traces each range in a run
 *                            of its own (DYNAMIC_KERNEL_LIMIT_START/_END,
 *                            TERMINATE_UPON_LIMIT, a folder per range through
 *                            USER_DEFINED_FOLDERS/TRACES_FOLDER): tracers
 *                            before PR #428 when the span is too long
 *   accelsim-tracer-regions  DYNAMIC_KERNEL_REGIONS ("1-2,4-4"), which only
 *                            some forks of the tracer read
 *
 * Environment files are meant to be sourced (. ./file) before running the
 * program under the tracer.
 *
 * With --warmup state each sampled launch's L2 state is rebuilt from the
 * traces of the launches before it (lib/warm), so those are traced too: by
 * default only those the state can need (state_trace.c: what they moved,
 * by the profile, adds up to the cut), or the state_window before each
 * sampled one, or every earlier one; the header and the terminal say which
 * share of the program that traces.
 */
#include "export.h"

/* What a tracer export writes: the plan, and with --warmup state the
 * launches before each sampled one whose addresses its rebuilt state needs
 * (state_trace.c). */
typedef struct tracer_ctx {
    const ks_plan *plan;
    bool state;
    ks_state_trace win; /* with state: the first launch traced per sample */
} tracer_ctx;

static uint64_t first_of(const tracer_ctx *c, size_t i)
{
    return c->state ? c->win.first[i] : c->plan->samples[i].id;
}

/* The launches to trace as 1-based inclusive ranges, in order: the sampled
 * ids (and their state's launches), consecutive ones merged; calls
 * fn(first, last) for each. */
typedef void (*range_fn)(FILE *f, uint64_t first, uint64_t last, size_t k);

static size_t each_range(const tracer_ctx *c, FILE *f, range_fn fn)
{
    const ks_plan *plan = c->plan;
    size_t k = 0;
    for (size_t i = 0; i < plan->sample_count;) {
        uint64_t first = first_of(c, i);
        uint64_t last = plan->samples[i].id;
        size_t j = i + 1;
        for (; j < plan->sample_count; j++) {
            uint64_t nfirst = first_of(c, j);
            if (nfirst > last + 1)
                break;
            if (plan->samples[j].id > last)
                last = plan->samples[j].id;
        }
        if (fn)
            fn(f, first + 1, last + 1, k);
        k++;
        i = j;
    }
    return k;
}

static size_t distinct_samples(const ks_plan *plan)
{
    size_t distinct = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        distinct += i == 0 || plan->samples[i].id != plan->samples[i - 1].id;
    return distinct;
}

static void header(const tracer_ctx *c, FILE *f, const char *what)
{
    const ks_plan *plan = c->plan;
    fprintf(f,
            "# ksample plan (%s, %zu of %llu launches) of %s\n"
            "# %s counts launches from 1: plan id i (0-based launch order) is launch i+1\n"
            "# here.\n",
            plan->method, plan->sample_count, (unsigned long long)plan->input_invocations,
            plan->input_path[0] ? plan->input_path : "(unknown input)", what);
    if (c->state) {
        char line[600];
        ks_state_trace_summary(&c->win, distinct_samples(plan), line, sizeof line);
        fprintf(f,
                "# %s.\n# Traced for the state: %s.\n"
                "# Their addresses rebuild the L2 state each sampled launch starts from (they\n"
                "# are traced, not simulated); `run` says where a state came out short of\n"
                "# the cut for want of a trace.\n",
                line, c->win.basis);
    }
}

static void range_item(FILE *f, uint64_t first, uint64_t last, size_t k)
{
    if (first == last)
        fprintf(f, "%s%llu", k ? " " : "", (unsigned long long)first);
    else
        fprintf(f, "%s%llu-%llu", k ? " " : "", (unsigned long long)first,
                (unsigned long long)last);
}

/* A file that sets one variable: the header, note (who reads it, how to use
 * the file), then "export var=" with the ranges as item writes them, in
 * quotes (quote: "\"" or ""). */
static ks_status write_variable(const tracer_ctx *c, FILE *f, const char *var, const char *note,
                                const char *quote, range_fn item)
{
    header(c, f, var);
    fputs(note, f);
    fprintf(f, "export %s=%s", var, quote);
    each_range(c, f, item);
    fprintf(f, "%s\n", quote);
    return KS_OK;
}

static ks_status write_range(const void *ctx, FILE *f, ks_error *err)
{
    (void)err;
    return write_variable(
        ctx, f, "DYNAMIC_KERNEL_RANGE",
        "# For Accel-Sim's NVBit tracer since accel-sim-framework PR #428 (May 2025; use\n"
        "# one with PR #439). Older tracers ignore this variable and trace everything:\n"
        "# export --to accelsim-tracer-span or accelsim-tracer-ranges for them.\n"
        "# Use: . ./this-file, then run the program under the tracer.\n",
        "\"", range_item);
}

static ks_status write_span(const void *ctx, FILE *f, ks_error *err)
{
    const tracer_ctx *c = ctx;
    const ks_plan *plan = c->plan;
    (void)err;
    if (plan->sample_count == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "the plan has no samples");
    header(c, f, "DYNAMIC_KERNEL_LIMIT_START/_END");
    uint64_t first = first_of(c, 0);
    for (size_t i = 1; i < plan->sample_count; i++)
        if (first_of(c, i) < first)
            first = first_of(c, i);
    first++;
    uint64_t last = plan->samples[plan->sample_count - 1].id + 1;
    fprintf(f,
            "# For every version of Accel-Sim's NVBit tracer: one traced run of launches\n"
            "# %llu to %llu (%llu launches for %zu sampled); then 'ksample export --to\n"
            "# accelsim --traces <that folder>' lists only the sampled ones.\n"
            "# Use: . ./this-file, then run the program under the tracer.\n",
            (unsigned long long)first, (unsigned long long)last,
            (unsigned long long)(last - first + 1), plan->sample_count);
    fprintf(f,
            "export DYNAMIC_KERNEL_LIMIT_START=%llu\nexport DYNAMIC_KERNEL_LIMIT_END=%llu\n"
            "export TERMINATE_UPON_LIMIT=1\n",
            (unsigned long long)first, (unsigned long long)last);
    return KS_OK;
}

static void script_range(FILE *f, uint64_t first, uint64_t last, size_t k)
{
    fprintf(f, "trace %zu %llu %llu \"$@\"\n", k + 1, (unsigned long long)first,
            (unsigned long long)last);
}

static ks_status write_ranges(const void *ctx, FILE *f, ks_error *err)
{
    const tracer_ctx *c = ctx;
    (void)err;
    fputs("#!/bin/sh\n", f);
    header(c, f, "DYNAMIC_KERNEL_LIMIT_START/_END");
    size_t n = each_range(c, f, NULL);
    fprintf(f,
            "# For Accel-Sim's NVBit tracer before PR #428, which traces one range per run:\n"
            "# %zu runs, each of one range of sampled launches, stopped at its end\n"
            "# (TERMINATE_UPON_LIMIT) and written to a folder of its own ($TRACES/range-K,\n"
            "# USER_DEFINED_FOLDERS).  Launch ids stay the program's, so every folder names\n"
            "# its traces kernel-<id>.trace; run the tracer's post-processing in each.\n"
            "# Use: TRACES=dir LD_PRELOAD=/path/to/tracer_tool.so sh this-file program args\n",
            n);
    fputs("set -e\n"
          ": \"${TRACES:=traces}\"\n"
          "trace() {\n"
          "    k=$1 first=$2 last=$3\n"
          "    shift 3\n"
          "    mkdir -p \"$TRACES/range-$k\"\n"
          "    USER_DEFINED_FOLDERS=1 TRACES_FOLDER=\"$TRACES/range-$k\" \\\n"
          "    DYNAMIC_KERNEL_LIMIT_START=$first DYNAMIC_KERNEL_LIMIT_END=$last \\\n"
          "    TERMINATE_UPON_LIMIT=1 \"$@\" || [ -s \"$TRACES/range-$k/kernelslist\" ]\n"
          "}\n",
          f);
    each_range(c, f, script_range);
    return KS_OK;
}

static void region_item(FILE *f, uint64_t first, uint64_t last, size_t k)
{
    fprintf(f, "%s%llu-%llu", k ? "," : "", (unsigned long long)first,
            (unsigned long long)last);
}

static ks_status write_regions(const void *ctx, FILE *f, ks_error *err)
{
    (void)err;
    return write_variable(
        ctx, f, "DYNAMIC_KERNEL_REGIONS",
        "# Read only by some forks of Accel-Sim's tracer; the upstream tracer reads\n"
        "# DYNAMIC_KERNEL_RANGE (export --to accelsim-tracer).\n"
        "# Use: . ./this-file, then run the program under the tracer.\n",
        "", region_item);
}

/* A tracer format: one file, written atomically; with --warmup state it
 * traces the state's launches too. */
static ks_status tracer_write(const ks_plan *plan, const ks_export_options *opt,
                               const char *out, ks_writer_fn fn, ks_error *err)
{
    tracer_ctx c = {plan, opt && opt->warmup && opt->warmup->mode == KS_WARMUP_STATE, {0}};
    ks_status st = c.state ? ks_state_trace_plan(plan, opt, false, &c.win, err) : KS_OK;
    if (st == KS_OK)
        st = ks_write_atomic(out, fn, &c, err);
    if (st == KS_OK && c.state && opt->note)
        ks_state_trace_summary(&c.win, distinct_samples(plan), opt->note, opt->note_size);
    ks_state_trace_free(&c.win);
    return st;
}

#define TRACER_EXPORTER(var, name, summary, fn)                                            \
    static ks_status var##_write(const ks_plan *plan, const ks_export_options *opt,        \
                                 const char *out, ks_error *err)                           \
    {                                                                                      \
        return tracer_write(plan, opt, out, fn, err);                                      \
    }                                                                                      \
    const ks_exporter var = {name, summary, 0, var##_write}

TRACER_EXPORTER(ks_exporter_accelsim_tracer, "accelsim-tracer",
                "environment for Accel-Sim's NVBit tracer (PR #428, May 2025, and later): "
                "DYNAMIC_KERNEL_RANGE (1-based)",
                write_range);
TRACER_EXPORTER(ks_exporter_accelsim_tracer_span, "accelsim-tracer-span",
                "environment for any Accel-Sim tracer: one DYNAMIC_KERNEL_LIMIT_START/_END "
                "range from the first to the last sampled launch",
                write_span);
TRACER_EXPORTER(ks_exporter_accelsim_tracer_ranges, "accelsim-tracer-ranges",
                "shell script for Accel-Sim tracers before PR #428: one traced run per range "
                "of sampled launches",
                write_ranges);
TRACER_EXPORTER(ks_exporter_accelsim_tracer_regions, "accelsim-tracer-regions",
                "environment for tracer forks that read DYNAMIC_KERNEL_REGIONS (1-based)",
                write_regions);
