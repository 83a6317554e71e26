/*
 * test_synth_traces.c - `ksample synth --traces`: the folder reads back
 * through the trace reader (launches, stats.csv equal to counting), the
 * time profile lines up with the traces by launch order, every duration
 * follows the documented model of the work measured from the trace itself
 * (instructions, 32-byte sectors, longest warp), and the same seed gives
 * the same bytes.  For the large and transformer presets also the program
 * (kernels, grids, shared memory in the order the preset documents) and each
 * launch's footprint (distinct 32-byte sectors of global memory) against
 * the buffer sizes it is built from.
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

static const char *generate_preset(const char *name, const char *preset, uint64_t launches,
                                   uint64_t seed)
{
    const char *dir = in_dir(name);
    tmpdir_remove(dir);
    ks_synth_traces_options o = {launches, seed, preset};
    ks_error err;
    ks_status st = ks_synth_traces_write(dir, &o, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    return dir;
}

static const char *generate(const char *name, uint64_t launches, uint64_t seed)
{
    return generate_preset(name, NULL, launches, seed);
}

/* The work the model is defined on, measured independently of the writer. */
typedef struct measured {
    uint64_t insts, sectors, longest, current;
    uint64_t block, warp;
    bool any;
    unsigned modes_seen;
    /* every global sector touched, when footprint is set */
    bool footprint;
    uint64_t *touched;
    size_t ntouched, cap;
    uint64_t shared_insts;
} measured;

static bool shared_op(const char *op)
{
    return strncmp(op, "LDS", 3) == 0 || strncmp(op, "STS", 3) == 0 ||
           strncmp(op, "ATOMS", 5) == 0;
}

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
    if (inst->mem_width && inst->naddr && shared_op(inst->opcode))
        m->shared_insts++;
    if (inst->mem_width && inst->naddr && !shared_op(inst->opcode)) {
        if (m->footprint) {
            if (m->ntouched + 64 > m->cap) {
                m->cap = m->cap ? 2 * m->cap : 1 << 16;
                m->touched = realloc(m->touched, m->cap * sizeof *m->touched);
                assert_non_null(m->touched);
            }
            for (uint32_t i = 0; i < inst->naddr; i++) {
                m->touched[m->ntouched++] = inst->addr[i] / 32;
                if ((inst->addr[i] + inst->mem_width - 1) / 32 != inst->addr[i] / 32)
                    m->touched[m->ntouched++] = (inst->addr[i] + inst->mem_width - 1) / 32;
            }
        }
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

/* The folder dir opened, with its launches and copies, and its time.csv
 * read into *time, a row for each launch. */
static ks_trace_set *open_set(const char *dir, size_t launches, size_t copies,
                              ks_profile **time)
{
    ks_trace_set *s = NULL;
    ks_error err;
    ks_status st = ks_trace_set_open(dir, &s, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    assert_int_equal(ks_trace_set_kernel_count(s), launches);
    assert_int_equal(ks_trace_set_event_count(s), launches + copies);
    char path[8300];
    snprintf(path, sizeof path, "%s/time.csv", dir);
    ks_read_options opt;
    ks_read_options_init(&opt);
    *time = NULL;
    if ((st = ks_profile_read(path, &opt, time, &err)) != KS_OK)
        fail_with(st, &err);
    assert_int_equal((*time)->n, launches);
    return s;
}

static void test_reads_back(void **state)
{
    (void)state;
    const char *dir = generate("a", LAUNCHES, 5);
    ks_profile *time;
    ks_trace_set *s = open_set(dir, LAUNCHES, 6, &time);
    assert_int_equal(ks_trace_set_stats_count(s), LAUNCHES);
    ks_error err;
    ks_status st;
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

/* Whether a/name and b/name hold the same bytes; when same is true they
 * must. */
static bool same_file(const char *a, const char *b, const char *name, bool same)
{
    char pa[8300], pb[8300];
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    size_t la, lb;
    char *ta = read_file(pa, &la), *tb = read_file(pb, &lb);
    if (same) {
        assert_int_equal(la, lb);
        assert_memory_equal(ta, tb, la);
    }
    bool equal = la == lb && memcmp(ta, tb, la) == 0;
    free(ta);
    free(tb);
    return equal;
}

/* Each preset (NULL: the default, mixed): same seed, same bytes; another
 * seed, other bytes (for the new presets: the gather's rows, the tokens,
 * the time noise). */
static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *preset;
        uint64_t launches;
        const char *traces[2];
    } cases[] = {
        {NULL, 6, {"kernel-2.traceg", "kernel-6.traceg"}},
        {"large", 3, {"kernel-1.traceg", "kernel-3.traceg"}},
        {"transformer", 4, {"kernel-1.traceg", "kernel-3.traceg"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *files[] = {"kernelslist.g",     "stats.csv",        "time.csv",
                               "synth-params.txt",  cases[k].traces[0], cases[k].traces[1]};
        char n1[32], n2[32], n3[32];
        snprintf(n1, sizeof n1, "s%zu1", k);
        snprintf(n2, sizeof n2, "s%zu2", k);
        snprintf(n3, sizeof n3, "s%zu3", k);
        const char *x = generate_preset(n1, cases[k].preset, cases[k].launches, 11);
        const char *y = generate_preset(n2, cases[k].preset, cases[k].launches, 11);
        const char *z = generate_preset(n3, cases[k].preset, cases[k].launches, 12);
        bool differs = false;
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            same_file(x, y, files[f], true);
            differs |= !same_file(x, z, files[f], false);
        }
        assert_true(differs);
    }
}

/* Distinct sectors in m->touched (sorts it). */
static uint64_t distinct(measured *m)
{
    qsort(m->touched, m->ntouched, sizeof *m->touched, cmp_u64);
    uint64_t d = 0;
    for (size_t i = 0; i < m->ntouched; i++)
        d += i == 0 || m->touched[i] != m->touched[i - 1];
    return d;
}

/* Every launch of dir: the model's duration within its noise, stats.csv
 * equal to counting; footprint[i] (when not NULL) gets launch i's distinct
 * global sectors, shared[i] its shared-memory instructions. */
static void check_set(const char *dir, size_t launches, size_t copies, uint64_t *footprint,
                      uint64_t *shared)
{
    ks_profile *time;
    ks_trace_set *s = open_set(dir, launches, copies, &time);
    ks_error err;
    ks_status st;
    for (size_t i = 0; i < launches; i++) {
        const ks_trace_kernel *k = ks_trace_set_kernel(s, i);
        assert_string_equal(ks_profile_name(time, i), k->name);
        assert_int_equal(ks_profile_grid(time, i)[0], k->grid[0]);
        measured m = {0};
        m.footprint = footprint != NULL;
        if ((st = ks_trace_set_stream(s, i, NULL, measure, &m, &err)) != KS_OK)
            fail_with(st, &err);
        assert_true(ks_trace_set_stats_usable(s, i));
        assert_int_equal((int64_t)m.insts, ks_trace_set_kernel_stats(s, i)->total_insts);
        double model = ks_synth_traces_model_ns(m.insts, m.sectors, m.longest);
        assert_true(fabs(log((double)time->duration_ns[i] / model)) < 0.10);
        if (footprint)
            footprint[i] = distinct(&m);
        if (shared)
            shared[i] = m.shared_insts;
        free(m.touched);
    }
    ks_profile_free(time);
    ks_trace_set_free(s);
}

static const char *kernel_name(const char *dir, size_t i, uint32_t *grid, uint32_t *shmem)
{
    static char name[256];
    ks_trace_set *s = NULL;
    ks_error err;
    ks_status st = ks_trace_set_open(dir, &s, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    const ks_trace_kernel *k = ks_trace_set_kernel(s, i);
    snprintf(name, sizeof name, "%s", k->name);
    *grid = k->grid[0];
    *shmem = k->shmem;
    ks_trace_set_free(s);
    return name;
}

/* One iteration of the large preset: the program and every launch's
 * footprint from the sizes in synth_traces_large.c. */
static void test_large_preset(void **state)
{
    (void)state;
    const char *dir = generate_preset("large", "large", 8, 3);
    uint64_t fp[8];
    check_set(dir, 8, 8, fp, NULL);
    static const char *const names[8] = {
        "_Z8stencil5PfPKfii",         "_Z10row_reducePfPKfS1_ii",
        "_Z11gather_rowsP6float4PKS_PKii", "_Z8stencil5PfPKfii",
        "_Z10row_reducePfPKfS1_ii",   "_Z4axpyPfPKffi",
        "_Z11gather_rowsP6float4PKS_PKii", "_Z10stream_sumPfPK6float4m"};
    static const uint32_t grids[8] = {92, 92, 32, 92, 92, 92, 48, 92};
    for (size_t i = 0; i < 8; i++) {
        uint32_t grid, shmem;
        assert_string_equal(kernel_name(dir, i, &grid, &shmem), names[i]);
        assert_int_equal(grid, grids[i]);
    }
    const uint64_t MB = (1u << 20) / 32; /* sectors in a MB */
    /* stencil: 320 rows of 4 KB read, as many written */
    assert_int_equal(fp[0], 2 * 5 * MB / 4);
    assert_int_equal(fp[3], 2 * 5 * MB / 4);
    /* row_reduce: 640 rows of 4 KB, the 4 KB vector, 640 sums; then 512 */
    assert_int_equal(fp[1], 5 * MB / 2 + 128 + 80);
    assert_int_equal(fp[4], 2 * MB + 128 + 64);
    /* axpy: x and y of 0.75 MB */
    assert_int_equal(fp[5], 3 * MB / 2);
    /* stream: 6 MB read, a sum per warp (92 x 8 warps) */
    assert_int_equal(fp[7], 6 * MB + 92);
    /* gather: 512 bags of 8 indices (16 KB), 512 sums of 128 bytes, and
     * the table's rows: 4 sectors each, fewer than the 4,096 looked up
     * (log-uniform ranks repeat) yet more than the top 1,000 */
    uint64_t rows = (fp[2] - 512 - 2048) / 4;
    assert_int_equal((fp[2] - 512 - 2048) % 4, 0);
    assert_true(rows > 1000 && rows < 4096 * 3 / 4);
    assert_int_equal((fp[6] - 768 - 3072) % 4, 0);
    /* what a stencil leaves for the next (its output grid) and the matrix
     * are read again after 4-6 MB of other traffic: around the RTX 3070's
     * 4 MB and the GV100's 6 MB of L2; the stream alone exceeds both */
    uint64_t grid_reuse = fp[0] / 2 + fp[1] + fp[2];
    uint64_t matrix_reuse = fp[1] + fp[2] + fp[3];
    assert_true(grid_reuse > 7 * MB / 2 && grid_reuse < 6 * MB);
    assert_true(matrix_reuse > 4 * MB && matrix_reuse < 6 * MB);
    assert_true(fp[7] > 6 * MB);
}

/* The transformer's prefill step (56 launches) and the first 14 of a decode
 * step: every kernel of the model, the documented order and shapes, weights
 * read whole by the GEMMs. */
static void test_transformer_preset(void **state)
{
    (void)state;
    enum { N = 56 + 14 };
    const char *dir = generate_preset("tf", "transformer", N, 3);
    uint64_t fp[N], shared[N];
    check_set(dir, N, 8, fp, shared);
    static const char *const layer[14] = {
        "_Z8rms_normP6__halfPKfPKS_i",
        "_Z10gemm_tiledILi64ELi64ELi32EEvPK6__halfS2_PS0_iii",
        "_Z9kv_appendP6__halfS0_PKS_ii",
        "_Z11attn_scoresPfPK6__halfS2_iii",
        "_Z12softmax_rowsP6__halfPKfii",
        "_Z11attn_valuesP6__halfPKS_S2_iii",
        "_Z10gemm_tiledILi64ELi64ELi32EEvPK6__halfS2_PS0_iii",
        "_Z12residual_addPfPK6__halfi",
        "_Z8rms_normP6__halfPKfPKS_i",
        "_Z10gemm_tiledILi64ELi64ELi32EEvPK6__halfS2_PS0_iii",
        "_Z8silu_mulP6__halfPKS_ii",
        "_Z10gemm_tiledILi64ELi64ELi32EEvPK6__halfS2_PS0_iii",
        "_Z12residual_addPfPK6__halfi"};
    uint32_t grid, shmem;
    assert_string_equal(kernel_name(dir, 0, &grid, &shmem), "_Z10embed_rowsPfPK6__halfPKii");
    assert_int_equal(grid, 32); /* 128 rows, 4 a block */
    for (size_t l = 0; l < 4; l++)
        for (size_t j = 0; j < 13; j++)
            assert_string_equal(kernel_name(dir, 1 + 13 * l + j, &grid, &shmem), layer[j]);
    assert_string_equal(kernel_name(dir, 53, &grid, &shmem), "_Z8rms_normP6__halfPKfPKS_i");
    assert_string_equal(kernel_name(dir, 54, &grid, &shmem),
                        "_Z10gemm_tiledILi16ELi64ELi64EEvPK6__halfS2_PS0_iii");
    assert_int_equal(grid, 128); /* the LM head: 8 rows, 8192 / 64 column tiles */
    assert_int_equal(shmem, (16 + 64) * 64 * 2);
    assert_string_equal(kernel_name(dir, 55, &grid, &shmem), "_Z11argmax_rowsPiPK6__halfi");
    /* the QKV GEMM: 2 x 12 tiles of 64 x 64, K slices of 32 */
    kernel_name(dir, 2, &grid, &shmem);
    assert_int_equal(grid, 24);
    assert_int_equal(shmem, (64 + 64) * 32 * 2);
    /* a decode step: 8 rows, 16-row tiles, the down projection split in 3 */
    assert_string_equal(kernel_name(dir, 58, &grid, &shmem),
                        "_Z10gemm_tiledILi16ELi64ELi32EEvPK6__halfS2_PS0_iii");
    assert_int_equal(grid, 12);
    assert_string_equal(kernel_name(dir, 68, &grid, &shmem),
                        "_Z16gemm_tiled_splitILi16ELi64ELi32EEvPK6__halfS2_Pfiiii");
    assert_int_equal(grid, 4 * 3);
    assert_string_equal(kernel_name(dir, 69, &grid, &shmem), "_Z13splitk_reduceP6__halfPKfii");
    /* footprints: A (128 rows of 256 halves), W (768 x 256 halves, all of
     * it), C (128 x 768 halves) */
    assert_int_equal(fp[2], (128 * 512 + 768 * 512 + 128 * 1536) / 32);
    /* the LM head reads its 4 MB whole */
    assert_int_equal(fp[54], (8 * 512 + 8192 * 512 + 8 * 8192 * 2) / 32);
    /* kv_append: 128 tokens' k and v read (512 bytes each) and written */
    assert_int_equal(fp[3], 2 * 2 * 128 * 512 / 32);
    /* decode: the QKV GEMM reads all of its weights for 8 rows */
    assert_int_equal(fp[58], (8 * 512 + 768 * 512 + 8 * 1536) / 32);
    /* split K: A (8 rows of 768 halves), W (256 x 768 halves), 3 fp32
     * partials of 8 x 256; the reduce reads those and writes 8 x 256 halves */
    assert_int_equal(fp[68], (8 * 1536 + 256 * 1536 + 3 * 8 * 1024) / 32);
    assert_int_equal(fp[69], (3 * 8 * 1024 + 8 * 512) / 32);
    /* the GEMMs stage through shared memory, the attention output too;
     * the elementwise kernels do not */
    assert_true(shared[2] > 0 && shared[54] > 0 && shared[6] > 0 && shared[68] > 0);
    assert_int_equal(shared[1], 0);
    assert_int_equal(shared[8], 0);
    assert_int_equal(shared[69], 0);
}

/* The presets are distinct programs; -n takes the first launches of one. */
static void test_preset_prefix(void **state)
{
    (void)state;
    const char *a = generate_preset("p1", "large", 2, 4);
    const char *b = generate_preset("p2", "large", 1, 4);
    same_file(a, b, "kernel-1.traceg", true);
    assert_int_equal(ks_synth_traces_default_launches("mixed"), 20);
    assert_int_equal(ks_synth_traces_default_launches("large"), 40);
    assert_int_equal(ks_synth_traces_default_launches("transformer"), 56 + 60 * 26);
    assert_int_equal(ks_synth_traces_default_launches("nope"), 0);
    const char *const *list = ks_synth_traces_presets();
    assert_string_equal(list[0], "mixed");
    assert_string_equal(list[2], "large");
    assert_string_equal(list[4], "transformer");
    assert_null(list[6]);
}

static void test_bad_options(void **state)
{
    (void)state;
    ks_synth_traces_options o = {0, 1, NULL};
    ks_error err;
    assert_int_equal(ks_synth_traces_write(in_dir("z"), &o, &err), KS_ERR_USAGE);
    o.launches = 2;
    const char *file = write_text("plain-file", "x");
    char under[8300];
    snprintf(under, sizeof under, "%s/sub", file);
    assert_int_equal(ks_synth_traces_write(under, &o, &err), KS_ERR_IO);
    /* an unknown preset is named with the known ones */
    o.preset = "tranformer";
    assert_int_equal(ks_synth_traces_write(in_dir("z2"), &o, &err), KS_ERR_USAGE);
    char msg[1200];
    ks_error_format(&err, msg, sizeof msg);
    assert_non_null(strstr(msg, "tranformer"));
    assert_non_null(strstr(msg, "transformer"));
    /* the transformer's cache holds 128 positions: 112 decode steps at most */
    o.preset = "transformer";
    o.launches = 56 + 60 * 112 + 1;
    assert_int_equal(ks_synth_traces_write(in_dir("z3"), &o, &err), KS_ERR_USAGE);
}

KS_TMPDIR_TEST_MAIN("ks-test-synth-traces",
                    test_reads_back,
                    test_address_modes_used,
                    test_same_seed_same_bytes,
                    test_large_preset,
                    test_transformer_preset,
                    test_preset_prefix,
                    test_bad_options)
