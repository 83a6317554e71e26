/*
 * synth_traces.c - a synthetic workload written as Accel-Sim traces (tracer
 * version 5 layout: kernelslist.g, one kernel-N.traceg per launch, the
 * tracer's stats.csv) with a matching time profile (time.csv, plain CSV
 * name,duration_ns,id,grid,block), so trace-based sampling methods (BBVs,
 * instruction counts) and time-based ones can be compared on one workload
 * whose every launch's work is known.
 *
 * Presets (synth_traces.h): "mixed" (the default, below), "large"
 * (synth_traces_large.c: buffers beyond the L2) and "transformer"
 * (synth_traces_transformer.c: a small decoder-only transformer stepping
 * through tokens).  This file writes the folder for any of them and holds
 * the mixed preset:
 *
 * Five kernels, each a fixed SASS-like program (Volta PCs, 16 bytes apart)
 * whose per-warp path depends on the launch's input:
 *   vec_scale  coalesced load/store (address mode 1, stride 4), bounds check
 *   spmv_csr   one warp per row, a loop whose trip count is the row's length
 *              (lognormal per row), a random gather (mode 2), a shuffle
 *              reduction and a one-lane store
 *   transpose  strided loads (mode 1, stride 4 x matrix side), 4-trip loop
 *   branchy    a divergent if/else on data bits, then a loop whose trip
 *              count differs per lane (the mask shrinks each iteration)
 *   histogram  random atomics into a bin array (mode 2)
 * Launches cycle through the five with input sizes that change from one
 * iteration to the next, so one name runs with several grids and inputs.
 * Addresses are compressed the way the tracer does it: base and stride when
 * the active lanes are one run with a constant 32-bit stride (and "0x0 0"
 * for an empty mask), else base and deltas.
 *
 * Duration model (documented in docs/formats.md): a small GPU that issues 8
 * warp instructions per ns and moves 2 32-byte sectors per ns, with a 2 us
 * launch cost and a 20 ns per instruction dependent chain per warp:
 *     t = 2000 + max(W / 8 + S / 2, 20 * Lmax) ns, times exp(0.02 * z)
 * W = warp instructions, S = distinct 32-byte sectors summed over memory
 * instructions (coalescing matters), Lmax = the longest warp's instruction
 * count, z a standard normal from the seeded generator.  Everything comes
 * from (launches, seed): the same options give the same bytes.
 */
#include "synth_traces.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { KIND_VEC, KIND_SPMV, KIND_TRANSPOSE, KIND_BRANCHY, KIND_HISTOGRAM, KIND_COUNT };

static const char *const kernel_names[KIND_COUNT] = {
    "_Z9vec_scalePKfPffi", "_Z8spmv_csriPKiS0_PKfS2_Pf", "_Z9transposePfPKfi",
    "_Z7branchyPfPKifi", "_Z9histogramPjPKji"};

/* device buffers: in, out, rowptr/colidx, values, x, bins (kernelslist.g
 * copies them in: mixed_copies) */
static const uint64_t buffer_base[6] = {0x7f6200000000ull, 0x7f6210000000ull, 0x7f6220000000ull,
                                        0x7f6230000000ull, 0x7f6240000000ull, 0x7f6250000000ull};

typedef struct launch_work {
    uint64_t insts, sectors, longest_warp;
} launch_work;

/* --------------------------------------------------------- warp output */

void synth_put(synth_warp *w, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2 && !w->failed; attempt++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(w->text + w->len, w->cap - w->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            w->failed = true;
            return;
        }
        if ((size_t)n < w->cap - w->len) {
            w->len += (size_t)n;
            return;
        }
        size_t cap = (w->cap + (size_t)n + 1) * 2;
        char *t = realloc(w->text, cap);
        if (!t) {
            w->failed = true;
            return;
        }
        w->text = t;
        w->cap = cap;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct 32-byte sectors the active lanes touch. */
static uint64_t count_sectors(uint32_t mask, const uint64_t *addr, uint32_t width)
{
    uint64_t s[64];
    int n = 0;
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        s[n++] = addr[l] / 32;
        s[n++] = (addr[l] + width - 1) / 32;
    }
    qsort(s, (size_t)n, sizeof *s, cmp_u64);
    uint64_t d = 0;
    for (int i = 0; i < n; i++)
        d += i == 0 || s[i] != s[i - 1];
    return d;
}

/* The tracer's choice: base+stride when the active lanes are one run with a
 * constant stride that fits its int, else base+deltas. */
static void put_addresses(synth_warp *w, uint32_t mask, const uint64_t *addr)
{
    if (mask == 0) {
        synth_put(w, "1 0x0 0 ");
        return;
    }
    int first = __builtin_ctz(mask);
    int run = first;
    while (run < 32 && (mask >> run & 1))
        run++;
    bool one_run = run == 32 || (mask >> run) == 0;
    bool stride_ok = one_run && run - first >= 2;
    int64_t stride = stride_ok ? (int64_t)(addr[first + 1] - addr[first]) : 0;
    for (int l = first + 1; stride_ok && l < run; l++)
        stride_ok = (int64_t)(addr[l] - addr[l - 1]) == stride;
    if (stride_ok && stride >= INT32_MIN && stride <= INT32_MAX) {
        synth_put(w, "1 0x%llx %lld ", (unsigned long long)addr[first], (long long)stride);
        return;
    }
    synth_put(w, "2 0x%llx ", (unsigned long long)addr[first]);
    uint64_t prev = addr[first];
    for (int l = first + 1; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        synth_put(w, "%lld ", (long long)(int64_t)(addr[l] - prev));
        prev = addr[l];
    }
}

static bool shared_memory_op(const char *op)
{
    return strncmp(op, "LDS", 3) == 0 || strncmp(op, "STS", 3) == 0 ||
           strncmp(op, "ATOMS", 5) == 0;
}

void synth_inst(synth_warp *w, uint64_t pc, uint32_t mask, int dst, const char *op, int s1,
                int s2, uint32_t width, const uint64_t *addr, int64_t imm)
{
    synth_put(w, "%04llx %08x ", (unsigned long long)pc, mask);
    if (dst >= 0)
        synth_put(w, "1 R%d ", dst);
    else
        synth_put(w, "0 ");
    synth_put(w, "%s %d ", op, (s1 >= 0) + (s2 >= 0));
    if (s1 >= 0)
        synth_put(w, "R%d ", s1);
    if (s2 >= 0)
        synth_put(w, "R%d ", s2);
    if (addr) {
        synth_put(w, "%u ", width);
        put_addresses(w, mask, addr);
        if (!shared_memory_op(op))
            w->sectors += count_sectors(mask, addr, width);
    } else {
        synth_put(w, "0 ");
    }
    synth_put(w, "%lld \n", (long long)imm);
    w->insts++;
}

uint32_t synth_lanes_below(uint64_t tid0, uint64_t n)
{
    if (tid0 >= n)
        return 0;
    return n - tid0 >= 32 ? 0xffffffffu : (uint32_t)((1ull << (n - tid0)) - 1);
}

void synth_linear_addr(uint64_t *a, uint64_t base, uint64_t first, uint64_t step)
{
    for (int l = 0; l < 32; l++)
        a[l] = base + (first + (uint64_t)l) * step;
}

/* ------------------------------------------------------------- kernels */

typedef struct warp_ctx {
    const synth_launch *L;
    uint64_t tid0; /* global thread index of lane 0 */
    uint32_t block, warp;
    ks_rng *rng;
} warp_ctx;

/* S2R, S2R, IMAD, ISETP, EXIT of the lanes past the end; returns the rest. */
static uint32_t prologue(synth_warp *w, uint64_t n_threads, uint64_t tid0)
{
    uint32_t m = synth_lanes_below(tid0, n_threads);
    synth_inst(w, 0x00, 0xffffffffu, 0, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x10, 0xffffffffu, 3, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x20, 0xffffffffu, 0, "IMAD", 3, 0, 0, NULL, 0);
    synth_inst(w, 0x30, 0xffffffffu, -1, "ISETP.GE.AND", 0, -1, 0, NULL, 0);
    synth_inst(w, 0x40, ~m, -1, "EXIT", -1, -1, 0, NULL, 0);
    return m;
}

static void warp_vec(warp_ctx *c, synth_warp *w)
{
    uint64_t a[32];
    uint32_t m = prologue(w, c->L->n, c->tid0);
    if (!m)
        return;
    synth_linear_addr(a, buffer_base[0], c->tid0, 4);
    synth_inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
    synth_inst(w, 0x60, m, 2, "FMUL", 2, -1, 0, NULL, 0);
    synth_linear_addr(a, buffer_base[1], c->tid0, 4);
    synth_inst(w, 0x70, m, -1, "STG.E", 6, 2, 4, a, 0);
    synth_inst(w, 0x80, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_spmv(warp_ctx *c, synth_warp *w)
{
    uint64_t a[32];
    uint64_t row = (uint64_t)c->block * (c->L->block / 32) + c->warp;
    synth_inst(w, 0x00, 0xffffffffu, 0, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x10, 0xffffffffu, 3, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x20, 0xffffffffu, 4, "IMAD", 3, 0, 0, NULL, 0);
    synth_inst(w, 0x30, 0xffffffffu, -1, "ISETP.GE.AND", 4, -1, 0, NULL, 0);
    bool out = row >= c->L->n;
    synth_inst(w, 0x40, out ? 0xffffffffu : 0, -1, "EXIT", -1, -1, 0, NULL, 0);
    if (out)
        return;
    /* the row's length: lognormal around the matrix's median */
    uint64_t len = (uint64_t)floor(c->L->p * exp(0.8 * ks_rng_normal(c->rng)));
    uint64_t start = row * (uint64_t)(2 * c->L->p);
    synth_linear_addr(a, buffer_base[2] + 4 * row, 0, 0);
    synth_inst(w, 0x50, 0xffffffffu, 5, "LDG.E", 4, -1, 4, a, 0);
    synth_linear_addr(a, buffer_base[2] + 4 * row + 4, 0, 0);
    synth_inst(w, 0x60, 0xffffffffu, 6, "LDG.E", 4, -1, 4, a, 0);
    synth_inst(w, 0x70, 0xffffffffu, -1, "ISETP.GE.AND", 5, 6, 0, NULL, 0);
    synth_inst(w, 0x80, len == 0 ? 0xffffffffu : 0, -1, "BRA", -1, -1, 0, NULL, 0x120);
    uint64_t trips = (len + 31) / 32;
    for (uint64_t k = 0; k < trips; k++) {
        uint32_t m = synth_lanes_below(32 * k, len);
        uint32_t next = synth_lanes_below(32 * (k + 1), len);
        synth_linear_addr(a, buffer_base[2] + 0x1000000, start + 32 * k, 4);
        synth_inst(w, 0x90, m, 7, "LDG.E", 8, -1, 4, a, 0);
        synth_linear_addr(a, buffer_base[3], start + 32 * k, 4);
        synth_inst(w, 0xa0, m, 8, "LDG.E", 9, -1, 4, a, 0);
        for (int l = 0; l < 32; l++) /* the columns: anywhere in x */
            a[l] = buffer_base[4] + 4 * ks_rng_below(c->rng, 1u << 20);
        synth_inst(w, 0xb0, m, 9, "LDG.E", 7, -1, 4, a, 0);
        synth_inst(w, 0xc0, m, 10, "FFMA", 8, 9, 0, NULL, 0);
        synth_inst(w, 0xd0, m, 11, "IADD3", 11, -1, 0, NULL, 0);
        synth_inst(w, 0xe0, m, -1, "ISETP.LT.AND", 11, 6, 0, NULL, 0);
        synth_inst(w, 0xf0, next, -1, "BRA", -1, -1, 0, NULL, 0x90);
    }
    if (len > 0) {
        synth_inst(w, 0x100, 0xffffffffu, 12, "IMAD.MOV.U32", 10, -1, 0, NULL, 0);
        synth_inst(w, 0x110, 0xffffffffu, 13, "MOV", -1, -1, 0, NULL, 0);
    }
    for (int s = 0; s < 5; s++)
        synth_inst(w, 0x120 + 16 * (uint64_t)s, 0xffffffffu, 10, "SHFL.BFLY", 10, -1, 0, NULL, 16 >> s);
    synth_linear_addr(a, buffer_base[1] + 4 * row, 0, 0);
    synth_inst(w, 0x170, 1, -1, "STG.E", 2, 10, 4, a, 0);
    synth_inst(w, 0x180, 0xffffffffu, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_transpose(warp_ctx *c, synth_warp *w)
{
    uint64_t a[32];
    uint64_t side = c->L->n, total = side * side / 4;
    uint32_t m = prologue(w, total, c->tid0);
    if (!m)
        return;
    for (uint64_t i = 0; i < 4; i++) {
        uint64_t e0 = c->tid0 + i * total;
        for (int l = 0; l < 32; l++) { /* read down a column: stride of a row */
            uint64_t e = e0 + (uint64_t)l;
            a[l] = buffer_base[0] + 4 * ((e % side) * side + e / side);
        }
        synth_inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
        synth_linear_addr(a, buffer_base[1], e0, 4);
        synth_inst(w, 0x60, m, -1, "STG.E", 6, 2, 4, a, 0);
        synth_inst(w, 0x70, m, 0, "IADD3", 0, -1, 0, NULL, 0);
        synth_inst(w, 0x80, m, -1, "ISETP.LT.AND", 0, -1, 0, NULL, 0);
        synth_inst(w, 0x90, i < 3 ? m : 0, -1, "BRA", -1, -1, 0, NULL, 0x50);
    }
    synth_inst(w, 0xa0, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_branchy(warp_ctx *c, synth_warp *w)
{
    uint64_t a[32];
    uint32_t m = prologue(w, c->L->n, c->tid0);
    if (!m)
        return;
    uint32_t odd = 0, trips[32];
    uint32_t most = 0;
    for (int l = 0; l < 32; l++) {
        if (ks_rng_uniform(c->rng) < c->L->p)
            odd |= 1u << l;
        trips[l] = 1 + (uint32_t)ks_rng_below(c->rng, 8);
        if ((m >> l & 1) && trips[l] > most)
            most = trips[l];
    }
    uint32_t pa = m & odd, pb = m & ~odd;
    synth_linear_addr(a, buffer_base[0], c->tid0, 4);
    synth_inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
    synth_inst(w, 0x60, m, 3, "LOP3.LUT", 2, -1, 0, NULL, 0);
    synth_inst(w, 0x70, m, -1, "ISETP.NE.AND", 3, -1, 0, NULL, 0);
    synth_inst(w, 0x80, m, -1, "BSSY", -1, -1, 0, NULL, 0x110);
    synth_inst(w, 0x90, pb, -1, "BRA", -1, -1, 0, NULL, 0xf0);
    if (pa) {
        synth_inst(w, 0xa0, pa, 2, "FMUL", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xb0, pa, 2, "FADD", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xc0, pa, 2, "FMUL", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xd0, pa, -1, "BRA", -1, -1, 0, NULL, 0x110);
    }
    if (pb) {
        synth_inst(w, 0xf0, pb, 2, "IADD3", 2, -1, 0, NULL, 0);
        synth_inst(w, 0x100, pb, 2, "IMAD", 2, 3, 0, NULL, 0);
    }
    synth_inst(w, 0x110, m, -1, "BSYNC", -1, -1, 0, NULL, 0);
    for (uint32_t it = 0; it < most; it++) {
        uint32_t now = 0, next = 0;
        for (int l = 0; l < 32; l++) {
            now |= (uint32_t)(trips[l] > it) << l;
            next |= (uint32_t)(trips[l] > it + 1) << l;
        }
        synth_inst(w, 0x120, m & now, 4, "FFMA", 2, 4, 0, NULL, 0);
        synth_inst(w, 0x130, m & now, 5, "IADD3", 5, -1, 0, NULL, 0);
        synth_inst(w, 0x140, m & now, -1, "ISETP.LT.AND", 5, -1, 0, NULL, 0);
        synth_inst(w, 0x150, m & next, -1, "BRA", -1, -1, 0, NULL, 0x120);
    }
    synth_linear_addr(a, buffer_base[1], c->tid0, 4);
    synth_inst(w, 0x160, m, -1, "STG.E", 6, 4, 4, a, 0);
    synth_inst(w, 0x170, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_histogram(warp_ctx *c, synth_warp *w)
{
    uint64_t a[32];
    uint64_t total = c->L->n / 4;
    uint32_t m = prologue(w, total, c->tid0);
    if (!m)
        return;
    for (uint64_t i = 0; i < 4; i++) {
        synth_linear_addr(a, buffer_base[0], c->tid0 + i * total, 4);
        synth_inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
        synth_inst(w, 0x60, m, 3, "LOP3.LUT", 2, -1, 0, NULL, 0);
        for (int l = 0; l < 32; l++)
            a[l] = buffer_base[5] + 4 * ks_rng_below(c->rng, (uint64_t)c->L->p);
        synth_inst(w, 0x70, m, 4, "ATOMG.E.ADD.STRONG.GPU", 6, 3, 4, a, 0);
        synth_inst(w, 0x80, m, 0, "IADD3", 0, -1, 0, NULL, 0);
        synth_inst(w, 0x90, m, -1, "ISETP.LT.AND", 0, -1, 0, NULL, 0);
        synth_inst(w, 0xa0, i < 3 ? m : 0, -1, "BRA", -1, -1, 0, NULL, 0x50);
    }
    synth_inst(w, 0xb0, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

typedef void (*warp_fn)(warp_ctx *c, synth_warp *w);
static const warp_fn warp_fns[KIND_COUNT] = {warp_vec, warp_spmv, warp_transpose, warp_branchy,
                                             warp_histogram};

/* ------------------------------------------------------------ schedule */

/* Launch i: the kinds in turn, sizes changing with the iteration so one
 * name runs with several grids and inputs. */
static synth_launch mixed_launch(uint64_t i, uint64_t seed)
{
    synth_launch L = {0};
    uint64_t t = i / KIND_COUNT;
    L.kind = (int)(i % KIND_COUNT);
    L.block = 256;
    L.seed = seed * 0x9E3779B97F4A7C15ull + i + 1;
    uint64_t threads;
    switch (L.kind) {
    case KIND_VEC:
        L.n = (const uint64_t[]){2048, 8192, 32768}[t % 3] - 100 * (t % 2);
        threads = L.n;
        break;
    case KIND_SPMV:
        L.block = 128;
        L.n = (const uint64_t[]){128, 512}[t % 2];
        L.p = (const double[]){12, 48}[(t / 2) % 2];
        threads = L.n * 32;
        break;
    case KIND_TRANSPOSE:
        L.n = (const uint64_t[]){32, 64, 128}[(t + 1) % 3];
        threads = L.n * L.n / 4;
        break;
    case KIND_BRANCHY:
        L.n = (const uint64_t[]){4096, 16384}[t % 2];
        L.p = (const double[]){0.3, 0.7}[(t / 2) % 2];
        threads = L.n;
        break;
    default:
        L.n = (const uint64_t[]){4096, 16384}[(t + 1) % 2];
        L.p = (const double[]){64, 4096}[t % 2];
        threads = L.n / 4;
        break;
    }
    L.grid = (uint32_t)((threads + L.block - 1) / L.block);
    return L;
}

static void mixed_plan(uint64_t launches, uint64_t seed, synth_launch *L)
{
    for (uint64_t i = 0; i < launches; i++)
        L[i] = mixed_launch(i, seed);
}

static void mixed_warp(const synth_launch *L, uint32_t block, uint32_t warp, ks_rng *rng,
                       synth_warp *w)
{
    warp_ctx c = {L, (uint64_t)block * L->block + 32u * warp, block, warp, rng};
    warp_fns[L->kind](&c, w);
}

static const synth_copy mixed_copies[] = {
    {0x7f6200000000ull, 131072}, {0x7f6210000000ull, 131072}, {0x7f6220000000ull, 65536},
    {0x7f6230000000ull, 65536},  {0x7f6240000000ull, 4194304}, {0x7f6250000000ull, 16384},
    {0, 0}};

const synth_trace_preset ks_synth_traces_mixed = {
    "mixed",
    "five small kernels in turn, footprints far below L2",
    kernel_names,
    20,
    100000,
    mixed_plan,
    mixed_warp,
    mixed_copies,
    NULL};

/* ------------------------------------------------------------- writing */

static const synth_trace_preset *const trace_presets[] = {
    &ks_synth_traces_mixed, &ks_synth_traces_large, &ks_synth_traces_transformer};
enum { TRACE_PRESETS = sizeof trace_presets / sizeof trace_presets[0] };

const char *const *ks_synth_traces_presets(void)
{
    static const char *list[2 * TRACE_PRESETS + 2];
    for (size_t i = 0; i < TRACE_PRESETS; i++) {
        list[2 * i] = trace_presets[i]->name;
        list[2 * i + 1] = trace_presets[i]->summary;
    }
    return list;
}

static const synth_trace_preset *find_preset(const char *name)
{
    for (size_t i = 0; i < TRACE_PRESETS; i++)
        if (strcmp(trace_presets[i]->name, name ? name : "mixed") == 0)
            return trace_presets[i];
    return NULL;
}

uint64_t ks_synth_traces_default_launches(const char *preset)
{
    const synth_trace_preset *p = find_preset(preset);
    return p ? p->default_launches : 0;
}

typedef struct trace_job {
    const synth_trace_preset *preset;
    const synth_launch *L;
    uint64_t id; /* 1-based */
    launch_work *work;
} trace_job;

static ks_status write_trace(const void *ctx, FILE *f, ks_error *err)
{
    const trace_job *job = ctx;
    const synth_launch *L = job->L;
    fprintf(f,
            "-kernel name = %s\n-kernel id = %llu\n-grid dim = (%u,1,1)\n-block dim = (%u,1,1)\n"
            "-shmem = %u\n-nregs = %u\n-binary version = 80\n-cuda stream id = 0\n"
            "-shmem base_addr = 0x00007f6300000000\n-local mem base_addr = 0x00007f626d000000\n"
            "-nvbit version = 1.7.4\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
            "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
            "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n",
            job->preset->kernel_names[L->kind], (unsigned long long)job->id, L->grid, L->block,
            L->shmem, L->nregs ? L->nregs : 32);
    synth_warp w = {0};
    memset(job->work, 0, sizeof *job->work);
    for (uint32_t b = 0; b < L->grid && !w.failed; b++) {
        fprintf(f, "\n#BEGIN_TB\n\nthread block = %u,0,0\n", b);
        for (uint32_t wp = 0; wp < (L->block + 31) / 32 && !w.failed; wp++) {
            ks_rng rng;
            ks_rng_seed(&rng, L->seed ^ ((uint64_t)b << 20 | wp));
            w.len = 0;
            w.insts = 0;
            job->preset->warp(L, b, wp, &rng, &w);
            fprintf(f, "\nwarp = %u\ninsts = %llu\n", wp, (unsigned long long)w.insts);
            fwrite(w.text, 1, w.len, f);
            job->work->insts += w.insts;
            if (w.insts > job->work->longest_warp)
                job->work->longest_warp = w.insts;
        }
        fprintf(f, "\n#END_TB\n");
    }
    job->work->sectors = w.sectors;
    free(w.text);
    if (w.failed)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (synthetic trace)");
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

typedef struct set_job {
    const synth_trace_preset *preset;
    uint64_t launches, seed;
    const synth_launch *L;
    const launch_work *work;
    const int64_t *duration;
} set_job;

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    for (const synth_copy *c = job->preset->copies; c->bytes; c++)
        fprintf(f, "MemcpyHtoD,0x%016llx,%llu\n", (unsigned long long)c->addr,
                (unsigned long long)c->bytes);
    for (uint64_t i = 0; i < job->launches; i++)
        fprintf(f, "kernel-%llu.traceg\n", (unsigned long long)i + 1);
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

static ks_status write_stats(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    fprintf(f, "kernel id, kernel mangled name, grid_dimX, grid_dimY, grid_dimZ, #blocks, "
               "block_dimX, block_dimY, block_dimZ, #threads, total_insts, "
               "total_reported_insts\n");
    for (uint64_t i = 0; i < job->launches; i++) {
        const synth_launch *L = &job->L[i];
        fprintf(f, "kernel-%llu.trace, %s, %u, 1, 1, %u, %u, 1, 1, %u, %llu,%llu\n",
                (unsigned long long)i + 1, job->preset->kernel_names[L->kind], L->grid, L->grid,
                L->block, L->block, (unsigned long long)job->work[i].insts,
                (unsigned long long)job->work[i].insts);
    }
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

static ks_status write_times(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    fprintf(f, "name,duration_ns,id,grid,block\n");
    for (uint64_t i = 0; i < job->launches; i++)
        fprintf(f, "%s,%lld,%llu,%u 1 1,%u 1 1\n", job->preset->kernel_names[job->L[i].kind],
                (long long)job->duration[i], (unsigned long long)i, job->L[i].grid,
                job->L[i].block);
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

static ks_status write_params(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    if (job->preset == &ks_synth_traces_mixed)
        fprintf(f, "ksample %s synth --traces: launches=%llu seed=%llu\n", KS_VERSION,
                (unsigned long long)job->launches, (unsigned long long)job->seed);
    else
        fprintf(f, "ksample %s synth --traces: preset=%s launches=%llu seed=%llu\n",
                KS_VERSION, job->preset->name, (unsigned long long)job->launches,
                (unsigned long long)job->seed);
    fprintf(f, "duration_ns = 2000 + max(W/8 + S/2, 20*Lmax) * exp(0.02*z)\n"
               "W warp instructions, S distinct 32-byte sectors of memory instructions,\n"
               "Lmax instructions of the longest warp, z standard normal (seeded)\n");
    if (job->preset->params_note)
        fputs(job->preset->params_note, f);
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

double ks_synth_traces_model_ns(uint64_t insts, uint64_t sectors, uint64_t longest_warp)
{
    double throughput = (double)insts / 8.0 + (double)sectors / 2.0;
    double chain = 20.0 * (double)longest_warp;
    return 2000.0 + (throughput > chain ? throughput : chain);
}

static ks_status write_file(const char *dir, const char *name, ks_writer_fn fn, const void *ctx,
                            ks_error *err)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    snprintf(path, n, "%s/%s", dir, name);
    ks_status st = ks_write_atomic(path, fn, ctx, err);
    if (st != KS_OK && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    free(path);
    return st;
}

static ks_status unknown_preset(const char *name, ks_error *err)
{
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < TRACE_PRESETS && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 trace_presets[i]->name);
    return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                        "unknown preset '%s' for synthetic traces; presets: %s", name, list);
}

ks_status ks_synth_traces_write(const char *dir, const ks_synth_traces_options *opt,
                                ks_error *err)
{
    if (!dir || !opt)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "synthetic traces need a folder");
    const synth_trace_preset *preset = find_preset(opt->preset);
    if (!preset)
        return unknown_preset(opt->preset, err);
    if (opt->launches == 0 || opt->launches > preset->max_launches)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "synthetic traces (preset %s) need 1 to %llu launches, got %llu",
                            preset->name, (unsigned long long)preset->max_launches,
                            (unsigned long long)opt->launches);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return ks_error_set(err, KS_ERR_IO, dir, 0, "cannot create folder: %s",
                            strerror(errno));
    uint64_t n = opt->launches;
    synth_launch *L = calloc(n, sizeof *L);
    launch_work *work = calloc(n, sizeof *work);
    int64_t *duration = calloc(n, sizeof *duration);
    ks_status st = L && work && duration
                       ? KS_OK
                       : ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    if (st == KS_OK)
        preset->plan(n, opt->seed, L);
    ks_rng noise;
    ks_rng_seed(&noise, opt->seed ^ 0x5DEECE66Dull);
    for (uint64_t i = 0; i < n && st == KS_OK; i++) {
        trace_job job = {preset, &L[i], i + 1, &work[i]};
        char name[64];
        snprintf(name, sizeof name, "kernel-%llu.traceg", (unsigned long long)i + 1);
        st = write_file(dir, name, write_trace, &job, err);
        double t = ks_synth_traces_model_ns(work[i].insts, work[i].sectors,
                                            work[i].longest_warp);
        duration[i] = (int64_t)llround(t * exp(0.02 * ks_rng_normal(&noise)));
    }
    set_job job = {preset, n, opt->seed, L, work, duration};
    if (st == KS_OK)
        st = write_file(dir, "stats.csv", write_stats, &job, err);
    if (st == KS_OK)
        st = write_file(dir, "time.csv", write_times, &job, err);
    if (st == KS_OK)
        st = write_file(dir, "synth-params.txt", write_params, &job, err);
    /* the list last: a folder whose list exists is complete */
    if (st == KS_OK)
        st = write_file(dir, "kernelslist.g", write_list, &job, err);
    free(L);
    free(work);
    free(duration);
    return st;
}
