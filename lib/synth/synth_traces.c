/*
 * synth_traces.c - a synthetic workload written as Accel-Sim traces (tracer
 * version 5 layout: kernelslist.g, one kernel-N.traceg per launch, the
 * tracer's stats.csv) with a matching time profile (time.csv, plain CSV
 * name,duration_ns,id,grid,block), so trace-based sampling methods (BBVs,
 * instruction counts) and time-based ones can be compared on one workload
 * whose every launch's work is known.
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
#include "internal.h"

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

/* device buffers: in, out, rowptr/colidx, values, x, bins */
static const uint64_t buffer_base[6] = {0x7f6200000000ull, 0x7f6210000000ull, 0x7f6220000000ull,
                                        0x7f6230000000ull, 0x7f6240000000ull, 0x7f6250000000ull};

typedef struct synth_launch {
    int kind;
    uint32_t grid, block; /* x only: y = z = 1 */
    uint64_t n;           /* threads with work / rows / matrix side */
    double p;             /* the input's shape: row length, branch odds, bins */
    uint64_t seed;
} synth_launch;

typedef struct launch_work {
    uint64_t insts, sectors, longest_warp;
} launch_work;

/* --------------------------------------------------------- warp output */

typedef struct warp_out {
    char *text;
    size_t len, cap;
    bool failed;
    uint64_t insts, sectors;
} warp_out;

static void put(warp_out *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(warp_out *w, const char *fmt, ...)
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
static void put_addresses(warp_out *w, uint32_t mask, const uint64_t *addr)
{
    if (mask == 0) {
        put(w, "1 0x0 0 ");
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
        put(w, "1 0x%llx %lld ", (unsigned long long)addr[first], (long long)stride);
        return;
    }
    put(w, "2 0x%llx ", (unsigned long long)addr[first]);
    uint64_t prev = addr[first];
    for (int l = first + 1; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        put(w, "%lld ", (long long)(int64_t)(addr[l] - prev));
        prev = addr[l];
    }
}

/* One instruction line: dst < 0 for none; addr NULL for no memory. */
static void inst(warp_out *w, uint64_t pc, uint32_t mask, int dst, const char *op, int s1,
                 int s2, uint32_t width, const uint64_t *addr, int64_t imm)
{
    put(w, "%04llx %08x ", (unsigned long long)pc, mask);
    if (dst >= 0)
        put(w, "1 R%d ", dst);
    else
        put(w, "0 ");
    put(w, "%s %d ", op, (s1 >= 0) + (s2 >= 0));
    if (s1 >= 0)
        put(w, "R%d ", s1);
    if (s2 >= 0)
        put(w, "R%d ", s2);
    if (addr) {
        put(w, "%u ", width);
        put_addresses(w, mask, addr);
        w->sectors += count_sectors(mask, addr, width);
    } else {
        put(w, "0 ");
    }
    put(w, "%lld \n", (long long)imm);
    w->insts++;
}

/* ------------------------------------------------------------- kernels */

typedef struct warp_ctx {
    const synth_launch *L;
    uint64_t tid0; /* global thread index of lane 0 */
    uint32_t block, warp;
    ks_rng rng;
} warp_ctx;

static uint32_t lanes_below(uint64_t tid0, uint64_t n)
{
    if (tid0 >= n)
        return 0;
    return n - tid0 >= 32 ? 0xffffffffu : (uint32_t)((1ull << (n - tid0)) - 1);
}

/* S2R, S2R, IMAD, ISETP, EXIT of the lanes past the end; returns the rest. */
static uint32_t prologue(warp_out *w, uint64_t n_threads, uint64_t tid0)
{
    uint32_t m = lanes_below(tid0, n_threads);
    inst(w, 0x00, 0xffffffffu, 0, "S2R", -1, -1, 0, NULL, 0);
    inst(w, 0x10, 0xffffffffu, 3, "S2R", -1, -1, 0, NULL, 0);
    inst(w, 0x20, 0xffffffffu, 0, "IMAD", 3, 0, 0, NULL, 0);
    inst(w, 0x30, 0xffffffffu, -1, "ISETP.GE.AND", 0, -1, 0, NULL, 0);
    inst(w, 0x40, ~m, -1, "EXIT", -1, -1, 0, NULL, 0);
    return m;
}

static void linear_addr(uint64_t *a, uint64_t base, uint64_t first, uint64_t step)
{
    for (int l = 0; l < 32; l++)
        a[l] = base + (first + (uint64_t)l) * step;
}

static void warp_vec(warp_ctx *c, warp_out *w)
{
    uint64_t a[32];
    uint32_t m = prologue(w, c->L->n, c->tid0);
    if (!m)
        return;
    linear_addr(a, buffer_base[0], c->tid0, 4);
    inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
    inst(w, 0x60, m, 2, "FMUL", 2, -1, 0, NULL, 0);
    linear_addr(a, buffer_base[1], c->tid0, 4);
    inst(w, 0x70, m, -1, "STG.E", 6, 2, 4, a, 0);
    inst(w, 0x80, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_spmv(warp_ctx *c, warp_out *w)
{
    uint64_t a[32];
    uint64_t row = (uint64_t)c->block * (c->L->block / 32) + c->warp;
    inst(w, 0x00, 0xffffffffu, 0, "S2R", -1, -1, 0, NULL, 0);
    inst(w, 0x10, 0xffffffffu, 3, "S2R", -1, -1, 0, NULL, 0);
    inst(w, 0x20, 0xffffffffu, 4, "IMAD", 3, 0, 0, NULL, 0);
    inst(w, 0x30, 0xffffffffu, -1, "ISETP.GE.AND", 4, -1, 0, NULL, 0);
    bool out = row >= c->L->n;
    inst(w, 0x40, out ? 0xffffffffu : 0, -1, "EXIT", -1, -1, 0, NULL, 0);
    if (out)
        return;
    /* the row's length: lognormal around the matrix's median */
    uint64_t len = (uint64_t)floor(c->L->p * exp(0.8 * ks_rng_normal(&c->rng)));
    uint64_t start = row * (uint64_t)(2 * c->L->p);
    linear_addr(a, buffer_base[2] + 4 * row, 0, 0);
    inst(w, 0x50, 0xffffffffu, 5, "LDG.E", 4, -1, 4, a, 0);
    linear_addr(a, buffer_base[2] + 4 * row + 4, 0, 0);
    inst(w, 0x60, 0xffffffffu, 6, "LDG.E", 4, -1, 4, a, 0);
    inst(w, 0x70, 0xffffffffu, -1, "ISETP.GE.AND", 5, 6, 0, NULL, 0);
    inst(w, 0x80, len == 0 ? 0xffffffffu : 0, -1, "BRA", -1, -1, 0, NULL, 0x120);
    uint64_t trips = (len + 31) / 32;
    for (uint64_t k = 0; k < trips; k++) {
        uint32_t m = lanes_below(32 * k, len);
        uint32_t next = lanes_below(32 * (k + 1), len);
        linear_addr(a, buffer_base[2] + 0x1000000, start + 32 * k, 4);
        inst(w, 0x90, m, 7, "LDG.E", 8, -1, 4, a, 0);
        linear_addr(a, buffer_base[3], start + 32 * k, 4);
        inst(w, 0xa0, m, 8, "LDG.E", 9, -1, 4, a, 0);
        for (int l = 0; l < 32; l++) /* the columns: anywhere in x */
            a[l] = buffer_base[4] + 4 * ks_rng_below(&c->rng, 1u << 20);
        inst(w, 0xb0, m, 9, "LDG.E", 7, -1, 4, a, 0);
        inst(w, 0xc0, m, 10, "FFMA", 8, 9, 0, NULL, 0);
        inst(w, 0xd0, m, 11, "IADD3", 11, -1, 0, NULL, 0);
        inst(w, 0xe0, m, -1, "ISETP.LT.AND", 11, 6, 0, NULL, 0);
        inst(w, 0xf0, next, -1, "BRA", -1, -1, 0, NULL, 0x90);
    }
    if (len > 0) {
        inst(w, 0x100, 0xffffffffu, 12, "IMAD.MOV.U32", 10, -1, 0, NULL, 0);
        inst(w, 0x110, 0xffffffffu, 13, "MOV", -1, -1, 0, NULL, 0);
    }
    for (int s = 0; s < 5; s++)
        inst(w, 0x120 + 16 * (uint64_t)s, 0xffffffffu, 10, "SHFL.BFLY", 10, -1, 0, NULL, 16 >> s);
    linear_addr(a, buffer_base[1] + 4 * row, 0, 0);
    inst(w, 0x170, 1, -1, "STG.E", 2, 10, 4, a, 0);
    inst(w, 0x180, 0xffffffffu, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_transpose(warp_ctx *c, warp_out *w)
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
        inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
        linear_addr(a, buffer_base[1], e0, 4);
        inst(w, 0x60, m, -1, "STG.E", 6, 2, 4, a, 0);
        inst(w, 0x70, m, 0, "IADD3", 0, -1, 0, NULL, 0);
        inst(w, 0x80, m, -1, "ISETP.LT.AND", 0, -1, 0, NULL, 0);
        inst(w, 0x90, i < 3 ? m : 0, -1, "BRA", -1, -1, 0, NULL, 0x50);
    }
    inst(w, 0xa0, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_branchy(warp_ctx *c, warp_out *w)
{
    uint64_t a[32];
    uint32_t m = prologue(w, c->L->n, c->tid0);
    if (!m)
        return;
    uint32_t odd = 0, trips[32];
    uint32_t most = 0;
    for (int l = 0; l < 32; l++) {
        if (ks_rng_uniform(&c->rng) < c->L->p)
            odd |= 1u << l;
        trips[l] = 1 + (uint32_t)ks_rng_below(&c->rng, 8);
        if ((m >> l & 1) && trips[l] > most)
            most = trips[l];
    }
    uint32_t pa = m & odd, pb = m & ~odd;
    linear_addr(a, buffer_base[0], c->tid0, 4);
    inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
    inst(w, 0x60, m, 3, "LOP3.LUT", 2, -1, 0, NULL, 0);
    inst(w, 0x70, m, -1, "ISETP.NE.AND", 3, -1, 0, NULL, 0);
    inst(w, 0x80, m, -1, "BSSY", -1, -1, 0, NULL, 0x110);
    inst(w, 0x90, pb, -1, "BRA", -1, -1, 0, NULL, 0xf0);
    if (pa) {
        inst(w, 0xa0, pa, 2, "FMUL", 2, -1, 0, NULL, 0);
        inst(w, 0xb0, pa, 2, "FADD", 2, -1, 0, NULL, 0);
        inst(w, 0xc0, pa, 2, "FMUL", 2, -1, 0, NULL, 0);
        inst(w, 0xd0, pa, -1, "BRA", -1, -1, 0, NULL, 0x110);
    }
    if (pb) {
        inst(w, 0xf0, pb, 2, "IADD3", 2, -1, 0, NULL, 0);
        inst(w, 0x100, pb, 2, "IMAD", 2, 3, 0, NULL, 0);
    }
    inst(w, 0x110, m, -1, "BSYNC", -1, -1, 0, NULL, 0);
    for (uint32_t it = 0; it < most; it++) {
        uint32_t now = 0, next = 0;
        for (int l = 0; l < 32; l++) {
            now |= (uint32_t)(trips[l] > it) << l;
            next |= (uint32_t)(trips[l] > it + 1) << l;
        }
        inst(w, 0x120, m & now, 4, "FFMA", 2, 4, 0, NULL, 0);
        inst(w, 0x130, m & now, 5, "IADD3", 5, -1, 0, NULL, 0);
        inst(w, 0x140, m & now, -1, "ISETP.LT.AND", 5, -1, 0, NULL, 0);
        inst(w, 0x150, m & next, -1, "BRA", -1, -1, 0, NULL, 0x120);
    }
    linear_addr(a, buffer_base[1], c->tid0, 4);
    inst(w, 0x160, m, -1, "STG.E", 6, 4, 4, a, 0);
    inst(w, 0x170, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_histogram(warp_ctx *c, warp_out *w)
{
    uint64_t a[32];
    uint64_t total = c->L->n / 4;
    uint32_t m = prologue(w, total, c->tid0);
    if (!m)
        return;
    for (uint64_t i = 0; i < 4; i++) {
        linear_addr(a, buffer_base[0], c->tid0 + i * total, 4);
        inst(w, 0x50, m, 2, "LDG.E", 4, -1, 4, a, 0);
        inst(w, 0x60, m, 3, "LOP3.LUT", 2, -1, 0, NULL, 0);
        for (int l = 0; l < 32; l++)
            a[l] = buffer_base[5] + 4 * ks_rng_below(&c->rng, (uint64_t)c->L->p);
        inst(w, 0x70, m, 4, "ATOMG.E.ADD.STRONG.GPU", 6, 3, 4, a, 0);
        inst(w, 0x80, m, 0, "IADD3", 0, -1, 0, NULL, 0);
        inst(w, 0x90, m, -1, "ISETP.LT.AND", 0, -1, 0, NULL, 0);
        inst(w, 0xa0, i < 3 ? m : 0, -1, "BRA", -1, -1, 0, NULL, 0x50);
    }
    inst(w, 0xb0, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

typedef void (*warp_fn)(warp_ctx *c, warp_out *w);
static const warp_fn warp_fns[KIND_COUNT] = {warp_vec, warp_spmv, warp_transpose, warp_branchy,
                                             warp_histogram};

/* ------------------------------------------------------------ schedule */

/* Launch i: the kinds in turn, sizes changing with the iteration so one
 * name runs with several grids and inputs. */
static synth_launch plan_launch(uint64_t i, uint64_t seed)
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

/* ------------------------------------------------------------- writing */

typedef struct trace_job {
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
            "-shmem = 0\n-nregs = 32\n-binary version = 80\n-cuda stream id = 0\n"
            "-shmem base_addr = 0x00007f6300000000\n-local mem base_addr = 0x00007f626d000000\n"
            "-nvbit version = 1.7.4\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
            "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
            "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n",
            kernel_names[L->kind], (unsigned long long)job->id, L->grid, L->block);
    warp_out w = {0};
    memset(job->work, 0, sizeof *job->work);
    for (uint32_t b = 0; b < L->grid && !w.failed; b++) {
        fprintf(f, "\n#BEGIN_TB\n\nthread block = %u,0,0\n", b);
        for (uint32_t wp = 0; wp < L->block / 32 && !w.failed; wp++) {
            warp_ctx c = {L, (uint64_t)b * L->block + 32u * wp, b, wp, {{0}}};
            ks_rng_seed(&c.rng, L->seed ^ ((uint64_t)b << 20 | wp));
            w.len = 0;
            w.insts = 0;
            warp_fns[L->kind](&c, &w);
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
    uint64_t launches, seed;
    const synth_launch *L;
    const launch_work *work;
    const int64_t *duration;
} set_job;

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    static const uint32_t bytes[6] = {131072, 131072, 65536, 65536, 4194304, 16384};
    for (int i = 0; i < 6; i++)
        fprintf(f, "MemcpyHtoD,0x%016llx,%u\n", (unsigned long long)buffer_base[i], bytes[i]);
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
                (unsigned long long)i + 1, kernel_names[L->kind], L->grid, L->grid, L->block,
                L->block, (unsigned long long)job->work[i].insts,
                (unsigned long long)job->work[i].insts);
    }
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

static ks_status write_times(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    fprintf(f, "name,duration_ns,id,grid,block\n");
    for (uint64_t i = 0; i < job->launches; i++)
        fprintf(f, "%s,%lld,%llu,%u 1 1,%u 1 1\n", kernel_names[job->L[i].kind],
                (long long)job->duration[i], (unsigned long long)i, job->L[i].grid,
                job->L[i].block);
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed") : KS_OK;
}

static ks_status write_params(const void *ctx, FILE *f, ks_error *err)
{
    const set_job *job = ctx;
    fprintf(f,
            "ksample %s synth --traces: launches=%llu seed=%llu\n"
            "duration_ns = 2000 + max(W/8 + S/2, 20*Lmax) * exp(0.02*z)\n"
            "W warp instructions, S distinct 32-byte sectors of memory instructions,\n"
            "Lmax instructions of the longest warp, z standard normal (seeded)\n",
            KS_VERSION, (unsigned long long)job->launches, (unsigned long long)job->seed);
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

ks_status ks_synth_traces_write(const char *dir, const ks_synth_traces_options *opt,
                                ks_error *err)
{
    if (!dir || !opt || opt->launches == 0 || opt->launches > 100000)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "synthetic traces need a folder and 1 to 100000 launches");
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
    ks_rng noise;
    ks_rng_seed(&noise, opt->seed ^ 0x5DEECE66Dull);
    for (uint64_t i = 0; i < n && st == KS_OK; i++) {
        L[i] = plan_launch(i, opt->seed);
        trace_job job = {&L[i], i + 1, &work[i]};
        char name[64];
        snprintf(name, sizeof name, "kernel-%llu.traceg", (unsigned long long)i + 1);
        st = write_file(dir, name, write_trace, &job, err);
        double t = ks_synth_traces_model_ns(work[i].insts, work[i].sectors,
                                            work[i].longest_warp);
        duration[i] = (int64_t)llround(t * exp(0.02 * ks_rng_normal(&noise)));
    }
    set_job job = {n, opt->seed, L, work, duration};
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
