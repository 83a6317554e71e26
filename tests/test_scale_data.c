/*
 * test_scale_data.c - the simulator runs recorded in tests/data for the
 * large and transformer workloads (issues 31 and 33; READMEs there) read
 * back exactly: every launch's cycles and instructions from the compact
 * Accel-Sim logs, by the trace file each run names, equal the per-launch
 * CSVs; the full runs add up to the simulator's own total; and scored
 * figures pinned.  The traces themselves are regenerated and checked by
 * tests/synth_digest.sh; here a folder of header-only stand-ins (names,
 * grids and blocks from the CSV) maps the logs to launches, as the real one
 * would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksample.h"
#include "run_values.h"
#include "tmpdir.h"

#define DATA KS_TEST_DATA

/* The figures pinned for root's default plan over 20 seeds (score_root):
 * the in-context column's and the alone one's. */
typedef struct scored {
    double samples, error, signed_error, speedup, coverage;
    double alone_error, alone_sign, alone_speedup, alone_coverage;
} scored;

typedef struct data_set {
    const char *dir;    /* under tests/data */
    const char *config;
    size_t launches;
    double full_total;  /* the full run's last gpu_tot_sim_cycle */
    double alone_total; /* the alone runs' cycles, summed */
    scored pinned;
} data_set;

/* cold launches are faster here: the full run writes back the lines earlier
 * launches left dirty in L2 (README).  Scored, the in-context estimate is
 * within its bound and its interval covers; every alone plan is low
 * (alone_sign -1) by the write-backs the cold launches skip. */
static const data_set LARGE = {"accelsim-large", "SM86_RTX3070", 40, 603184, 564242,
                               {11, 0.0130679, 0.0047251, 3.1875, 1,
                                0.0624284, -1, 3.5399, 0}};
/* cold launches are slower here (3.9 % over all).  Scored: one launch per
 * kernel, and second launches in four of those strata (the calibrated
 * design: with the collapsed model of --replicate 0, 14 strata of one, no
 * plan formed an interval), in context well within its 5 % on average and
 * covered, every alone plan high by the cold caches its launches start
 * from. */
static const data_set TRANSFORMER = {"accelsim-transformer", "SM86_RTX3070", 1616, 14088741,
                                     14644055,
                                     {18, 0.0105467, 0.0058957, 70.3347, 1,
                                      0.0440078, 1, 68.0965, 0.55}};

/* One data set's CSV, read back. */
typedef struct recorded {
    size_t n;
    char (*kernel)[128];
    uint32_t *grid, *block;
    double *full, *alone, *full_insn, *alone_insn;
    size_t alone_count;
} recorded;

static void recorded_free(recorded *r)
{
    free(r->kernel);
    free(r->grid);
    free(r->block);
    free(r->full);
    free(r->alone);
    free(r->full_insn);
    free(r->alone_insn);
}

static double field_or_nan(const char *s) { return *s ? atof(s) : NAN; }

/* per_launch_<config>.csv: launch,trace_file,kernel,grid,block,config,
 * full_run_cycles,alone_cycles,full_run_insn,alone_insn */
static void read_csv(const data_set *d, recorded *r)
{
    memset(r, 0, sizeof *r);
    r->n = d->launches;
    r->kernel = calloc(r->n, sizeof *r->kernel);
    r->grid = calloc(r->n, sizeof *r->grid);
    r->block = calloc(r->n, sizeof *r->block);
    r->full = calloc(r->n, sizeof *r->full);
    r->alone = calloc(r->n, sizeof *r->alone);
    r->full_insn = calloc(r->n, sizeof *r->full_insn);
    r->alone_insn = calloc(r->n, sizeof *r->alone_insn);
    assert_true(r->kernel && r->grid && r->block && r->full && r->alone && r->full_insn &&
                r->alone_insn);
    char path[4300];
    snprintf(path, sizeof path, "%s/%s/per_launch_%s.csv", DATA, d->dir, d->config);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "launch,trace_file,kernel,grid,block,config,full_run_cycles,"
                              "alone_cycles,full_run_insn,alone_insn\n");
    size_t rows = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *field[10];
        int fn = 0;
        for (char *p = line; fn < 10;) {
            field[fn++] = p;
            char *c = strchr(p, ',');
            if (!c)
                break;
            *c = '\0';
            p = c + 1;
        }
        assert_int_equal(fn, 10);
        size_t i = (size_t)atol(field[0]);
        assert_int_equal(i, rows); /* in launch order, none missing */
        assert_true(i < r->n);
        char want[64];
        snprintf(want, sizeof want, "kernel-%zu.traceg", i + 1);
        assert_string_equal(field[1], want);
        assert_string_equal(field[5], d->config);
        snprintf(r->kernel[i], sizeof r->kernel[i], "%s", field[2]);
        r->grid[i] = (uint32_t)atol(field[3]);
        r->block[i] = (uint32_t)atol(field[4]);
        r->full[i] = field_or_nan(field[6]);
        r->alone[i] = field_or_nan(field[7]);
        r->full_insn[i] = field_or_nan(field[8]);
        r->alone_insn[i] = field_or_nan(field[9]);
        r->alone_count += !isnan(r->alone[i]);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, r->n);
}

/* A trace folder of header-only kernel files, as the recorded one names
 * them: enough for the logs' trace files to map to launches and for their
 * names, grids and blocks to be checked. */
static const char *stand_in(const data_set *d, const recorded *r)
{
    const char *dir = in_dir(d->dir);
    tmpdir_remove(dir);
    assert_int_equal(mkdir(dir, 0777), 0);
    char path[4400];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *list = fopen(path, "w");
    assert_non_null(list);
    for (size_t i = 0; i < r->n; i++) {
        fprintf(list, "kernel-%zu.traceg\n", i + 1);
        snprintf(path, sizeof path, "%s/kernel-%zu.traceg", dir, i + 1);
        FILE *k = fopen(path, "w");
        assert_non_null(k);
        fprintf(k,
                "-kernel name = %s\n-kernel id = %zu\n-grid dim = (%u,1,1)\n"
                "-block dim = (%u,1,1)\n-shmem = 0\n-nregs = 32\n-binary version = 80\n"
                "-cuda stream id = 0\n-accelsim tracer version = 5\n\n",
                r->kernel[i], i + 1, r->grid[i], r->block[i]);
        assert_int_equal(fclose(k), 0);
    }
    assert_int_equal(fclose(list), 0);
    return dir;
}

/* metric of every launch a log reports, NAN for the others; the rows read. */
static size_t read_log(const data_set *d, const char *file, const char *traces,
                       ks_uid_mode mode, const char *metric, double *out, size_t n)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s/%s", DATA, d->dir, file);
    ks_results_options o;
    ks_results_options_init(&o);
    o.uid_mode = mode;
    o.uid_base = 1;
    o.traces = traces;
    ks_results r;
    ks_results_init(&r);
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_results_read(path, NULL, &o, &r, &err);
    if (st != KS_OK) {
        char msg[1200];
        ks_error_format(&err, msg, sizeof msg);
        fail_msg("%s: %s", path, msg);
    }
    long m = ks_results_metric(&r, metric);
    assert_true(m >= 0);
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
    for (size_t k = 0; k < r.row_count; k++) {
        assert_true(r.ids[k] < n);
        out[r.ids[k]] = r.values[m][k];
    }
    size_t rows = r.row_count;
    ks_results_free(&r);
    return rows;
}

/* The full run and the alone runs read back, equal to the CSV. */
static void check_recorded(const data_set *d)
{
    recorded r;
    read_csv(d, &r);
    const char *traces = stand_in(d, &r);
    double *v = calloc(r.n, sizeof *v);
    assert_non_null(v);
    char file[128];
    snprintf(file, sizeof file, "full_%s.out.xz", d->config);
    /* by trace file, and by uid (the whole program: uid - 1) */
    assert_int_equal(read_log(d, file, traces, KS_UID_TRACE, "gpu_sim_cycle", v, r.n), r.n);
    assert_same(v, r.full, r.n);
    assert_int_equal(read_log(d, file, NULL, KS_UID_BASE, "gpu_sim_cycle", v, r.n), r.n);
    assert_same(v, r.full, r.n);
    assert_int_equal(read_log(d, file, traces, KS_UID_TRACE, "gpu_sim_insn", v, r.n), r.n);
    assert_same(v, r.full_insn, r.n);
    double total = 0;
    for (size_t i = 0; i < r.n; i++)
        total += r.full[i];
    assert_true(total == d->full_total);
    if (r.alone_count) {
        snprintf(file, sizeof file, "alone_%s.out.xz", d->config);
        assert_int_equal(read_log(d, file, traces, KS_UID_TRACE, "gpu_sim_cycle", v, r.n),
                         r.alone_count);
        assert_same(v, r.alone, r.n);
        assert_int_equal(read_log(d, file, traces, KS_UID_TRACE, "gpu_sim_insn", v, r.n),
                         r.alone_count);
        assert_same(v, r.alone_insn, r.n);
        /* the same work simulated: every launch executes the same instructions
         * alone as in the full run */
        double alone = 0;
        for (size_t i = 0; i < r.n; i++)
            if (!isnan(r.alone[i])) {
                assert_true(r.alone_insn[i] == r.full_insn[i]);
                alone += r.alone[i];
            }
        if (r.alone_count == r.n)
            assert_true(alone == d->alone_total);
    }
    /* launch 0 is cold in both */
    if (!isnan(r.alone[0]))
        assert_true(r.alone[0] == r.full[0]);
    free(v);
    recorded_free(&r);
}

/* Root's default plan (the calibrated design, 5 % at 95 %) drawn from the
 * full run's cycles, as the papers plan, over 20 seeds, scored with the
 * in-context and the alone values against the full run's total: the
 * figures d pins. */
static void score_root(const data_set *d)
{
    recorded r;
    read_csv(d, &r);
    assert_int_equal(r.alone_count, r.n);
    const char *traces = stand_in(d, &r);
    ks_profile *p;
    ks_read_options ro;
    ks_read_options_init(&ro);
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_profile_read(traces, &ro, &p, &err), KS_OK);
    assert_int_equal(p->n, r.n);
    for (size_t i = 0; i < r.n; i++)
        p->duration_ns[i] = (int64_t)r.full[i];
    ks_score_summary ctx, alone;
    score_context_alone(p, r.full, r.alone, &ctx, &alone);
    ks_profile_free(p);
    recorded_free(&r);
    const scored *want = &d->pinned;
    assert_true(ctx.samples_mean == want->samples);
    assert_true(fabs(ctx.error_mean - want->error) < 5e-7);
    assert_true(fabs(ctx.error_signed_mean - want->signed_error) < 5e-7);
    assert_true(fabs(ctx.speedup_hmean - want->speedup) < 5e-4);
    assert_true(ctx.coverage == want->coverage);
    assert_true(fabs(alone.error_mean - want->alone_error) < 5e-7);
    /* every plan off the same way */
    assert_true(alone.error_signed_mean == want->alone_sign * alone.error_mean);
    assert_true(fabs(alone.speedup_hmean - want->alone_speedup) < 5e-4);
    /* the alone intervals claim the values' total only (warm-up "none") */
    assert_true(alone.coverage == want->alone_coverage);
}

static void test_large_recorded(void **state)
{
    (void)state;
    check_recorded(&LARGE);
}

static void test_transformer_recorded(void **state)
{
    (void)state;
    check_recorded(&TRANSFORMER);
}

static void test_large_scored(void **state)
{
    (void)state;
    score_root(&LARGE);
}

static void test_transformer_scored(void **state)
{
    (void)state;
    score_root(&TRANSFORMER);
}

KS_TMPDIR_TEST_MAIN("ks-test-scale-data",
                    test_large_recorded,
                    test_large_scored,
                    test_transformer_recorded,
                    test_transformer_scored)
