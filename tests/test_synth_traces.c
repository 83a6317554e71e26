/*
 * test_synth_traces.c - `ksample synth --traces`: the folder reads back
 * through the trace reader (launches, stats.csv equal to counting), the
 * time profile lines up with the traces by launch order, every duration
 * follows the documented model of the work measured from the trace itself
 * (instructions, 32-byte sectors, longest warp), and the same seed gives
 * the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "tmpdir.h"

enum { LAUNCHES = 12 };

static void fail_with(ks_status st, const ks_error *err)
{
    char msg[1200];
    ks_error_format(err, msg, sizeof msg);
    fail_msg("status %d: %s", (int)st, msg);
}

static const char *generate(const char *name, uint64_t launches, uint64_t seed)
{
    const char *dir = in_dir(name);
    tmpdir_remove(dir);
    ks_synth_traces_options o = {launches, seed};
    ks_error err;
    ks_status st = ks_synth_traces_write(dir, &o, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    return dir;
}

/* The work the model is defined on, measured independently of the writer. */
typedef struct measured {
    uint64_t insts, sectors, longest, current;
    uint64_t block, warp;
    bool any;
    unsigned modes_seen;
} measured;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static ks_status measure(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                         ks_error *err)
{
    (void)err;
    measured *m = ctx;
    uint64_t block = inst->tb[0];
    if (!m->any || block != m->block || inst->warp != m->warp) {
        m->current = 0;
        m->block = block;
        m->warp = inst->warp;
        m->any = true;
    }
    m->insts++;
    if (++m->current > m->longest)
        m->longest = m->current;
    if (inst->mem_width && inst->naddr) {
        uint64_t s[64];
        for (uint32_t i = 0; i < inst->naddr; i++) {
            s[2 * i] = inst->addr[i] / 32;
            s[2 * i + 1] = (inst->addr[i] + inst->mem_width - 1) / 32;
        }
        qsort(s, 2 * inst->naddr, sizeof *s, cmp_u64);
        for (uint32_t i = 0; i < 2 * inst->naddr; i++)
            m->sectors += i == 0 || s[i] != s[i - 1];
    }
    return KS_OK;
}

static void test_reads_back(void **state)
{
    (void)state;
    const char *dir = generate("a", LAUNCHES, 5);
    ks_trace_set *s = NULL;
    ks_error err;
    ks_status st = ks_trace_set_open(dir, &s, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    assert_int_equal(ks_trace_set_kernel_count(s), LAUNCHES);
    assert_int_equal(ks_trace_set_event_count(s), LAUNCHES + 6);
    assert_int_equal(ks_trace_set_stats_count(s), LAUNCHES);

    char path[8300];
    snprintf(path, sizeof path, "%s/time.csv", dir);
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *time = NULL;
    if ((st = ks_profile_read(path, &opt, &time, &err)) != KS_OK)
        fail_with(st, &err);
    assert_int_equal(time->n, LAUNCHES);
    assert_string_equal(time->source_format, "plain-csv");

    double worst = 0;
    for (size_t i = 0; i < LAUNCHES; i++) {
        const ks_trace_kernel *k = ks_trace_set_kernel(s, i);
        assert_int_equal(k->tracer_version, 5);
        assert_int_equal(k->kernel_id, i + 1);
        /* the time profile lines up with the traces by launch order */
        assert_string_equal(ks_profile_name(time, i), k->name);
        assert_int_equal(ks_profile_grid(time, i)[0], k->grid[0]);
        assert_int_equal(ks_profile_block(time, i)[0], k->block[0]);
        /* stats.csv is what counting finds */
        assert_true(ks_trace_set_stats_usable(s, i));
        uint64_t n;
        if ((st = ks_trace_set_count_insts(s, i, &n, &err)) != KS_OK)
            fail_with(st, &err);
        assert_int_equal((int64_t)n, ks_trace_set_kernel_stats(s, i)->total_insts);
        /* the duration follows the model of the traced work, within its
         * 2 % lognormal noise (5 sigma) */
        measured m = {0};
        if ((st = ks_trace_set_stream(s, i, NULL, measure, &m, &err)) != KS_OK)
            fail_with(st, &err);
        assert_int_equal(m.insts, n);
        double model = ks_synth_traces_model_ns(m.insts, m.sectors, m.longest);
        double expect = 2000 + fmax(m.insts / 8.0 + m.sectors / 2.0, 20.0 * m.longest);
        assert_true(fabs(model - expect) < 1e-9);
        double ratio = (double)time->duration_ns[i] / model;
        worst = fmax(worst, fabs(log(ratio)));
    }
    assert_true(worst < 0.10);
    assert_true(worst > 0); /* the noise is there */
    assert_int_equal(time->name_count, 5);
    /* one name, several grids */
    assert_int_not_equal(ks_profile_grid(time, 0)[0], ks_profile_grid(time, 5)[0]);
    ks_profile_free(time);

    /* the profile from the traces: stats.csv numbers */
    ks_profile *p = NULL;
    if ((st = ks_trace_set_profile(s, &p, &err)) != KS_OK)
        fail_with(st, &err);
    for (size_t i = 0; i < LAUNCHES; i++)
        assert_true(p->metrics[0].values[i] ==
                    (double)ks_trace_set_kernel_stats(s, i)->total_insts);
    ks_profile_free(p);

    /* the spmv loop (block 0x90) runs once per 32 nonzeros, at least once
     * for most rows */
    ks_trace_bbv b;
    uint64_t warps;
    if ((st = ks_trace_set_bbv(s, 1, &b, &warps, &err)) != KS_OK)
        fail_with(st, &err);
    bool loop = false;
    for (size_t j = 0; j < b.count; j++)
        if (b.block_pc[j] == 0x90)
            loop = b.executions[j] >= (double)warps / 2;
    assert_true(loop);
    ks_trace_bbv_free(&b);
    ks_trace_set_free(s);
}

/* Both compressed address modes the tracer writes appear. */
static void test_address_modes_used(void **state)
{
    (void)state;
    const char *dir = generate("m", 5, 9);
    bool stride = false, delta = false;
    for (int i = 1; i <= 5; i++) {
        char path[8300];
        snprintf(path, sizeof path, "%s/kernel-%d.traceg", dir, i);
        size_t len;
        char *text = read_file(path, &len);
        stride |= strstr(text, " 4 1 0x") != NULL;
        delta |= strstr(text, " 4 2 0x") != NULL;
        free(text);
    }
    assert_true(stride);
    assert_true(delta);
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    const char *a = generate("s1", 6, 11);
    const char *b = generate("s2", 6, 11);
    const char *c = generate("s3", 6, 12);
    static const char *const files[] = {"kernelslist.g", "stats.csv", "time.csv",
                                        "synth-params.txt", "kernel-2.traceg",
                                        "kernel-6.traceg"};
    bool differs = false;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char pa[8300], pb[8300], pc[8300];
        snprintf(pa, sizeof pa, "%s/%s", a, files[f]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[f]);
        snprintf(pc, sizeof pc, "%s/%s", c, files[f]);
        size_t la, lb, lc;
        char *ta = read_file(pa, &la), *tb = read_file(pb, &lb), *tc = read_file(pc, &lc);
        assert_int_equal(la, lb);
        assert_memory_equal(ta, tb, la);
        differs |= la != lc || memcmp(ta, tc, la) != 0;
        free(ta);
        free(tb);
        free(tc);
    }
    assert_true(differs);
}

static void test_bad_options(void **state)
{
    (void)state;
    ks_synth_traces_options o = {0, 1};
    ks_error err;
    assert_int_equal(ks_synth_traces_write(in_dir("z"), &o, &err), KS_ERR_USAGE);
    o.launches = 2;
    const char *file = write_text("plain-file", "x");
    char under[8300];
    snprintf(under, sizeof under, "%s/sub", file);
    assert_int_equal(ks_synth_traces_write(under, &o, &err), KS_ERR_IO);
}

KS_TMPDIR_TEST_MAIN("ks-test-synth-traces",
                    test_reads_back,
                    test_address_modes_used,
                    test_same_seed_same_bytes,
                    test_bad_options)
