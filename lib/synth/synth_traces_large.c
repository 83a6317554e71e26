/*
 * synth_traces_large.c - the "large" preset of `ksample synth --traces`: a
 * workload whose kernels' footprints exceed the simulated L2 (4 MB on an
 * RTX 3070, 6 MB on a Quadro GV100), for measuring how well a sampled
 * launch's cache state is rebuilt (issue 31).
 *
 * Five kernels, each a fixed SASS-like program (PCs 16 bytes apart, 16-byte
 * vector accesses where the data allow), all but the gather grid-stride
 * loops over 92 blocks of 256 threads (two a streaming multiprocessor of an
 * RTX 3070): the trace lists a warp's iterations together, the GPU issues
 * them across the grid in lockstep, so the order within a launch matters:
 *   stream_sum   a sum over 4-6 MB, read once per launch, one partial sum
 *                per warp
 *   stencil5     a 5-point stencil over a 1024-wide grid of 1-1.5 MB, a row
 *                per block iteration, A to B then (three launches later) B
 *                to A: the second reads the lines the first left dirty
 *   row_reduce   matrix rows times a 4 KB vector, a row per warp iteration,
 *                over the first 2-3 MB of one matrix, twice an iteration
 *   gather_rows  bags of 8 rows of 128 bytes gathered from a 32 MB table and
 *                summed; row ranks log-uniform (half the lookups in the top
 *                1,000 rows), scattered over the table by a fixed
 *                permutation, so hot rows are reused across launches
 *   axpy         y = a x + y over 0.5-0.75 MB vectors, a float4 per thread
 *                iteration
 * One iteration is 8 launches: stencil5 (A to B), row_reduce, gather_rows,
 * stencil5 (B to A), row_reduce, axpy, gather_rows, stream_sum; the sizes
 * change with the iteration (three sizes each, out of step with one
 * another), the stream alternates between two 8 MB halves of its buffer.
 * A grid and the matrix are read again 4-6 MB of traffic later, around
 * both simulated L2s' capacity (4 MB on an RTX 3070, 6 MB on a Quadro
 * GV100): whether their lines survive depends on the order of the accesses
 * between; the stream leaves little of the iteration in the L2.
 * 40 launches (5 iterations) by default: Accel-Sim takes 10-25 s of this
 * project's machine per megabyte a launch moves through DRAM, so a few
 * dozen such launches are about an hour's recording.
 */
#include "synth_traces.h"

#include <math.h>

enum { K_STREAM, K_STENCIL, K_ROWRED, K_GATHER, K_AXPY, K_COUNT };

static const char *const large_names[K_COUNT] = {
    "_Z10stream_sumPfPK6float4m", "_Z8stencil5PfPKfii", "_Z10row_reducePfPKfS1_ii",
    "_Z11gather_rowsP6float4PKS_PKii", "_Z4axpyPfPKffi"};

/* device buffers */
#define B_STREAM 0x7f6400000000ull /* 16 MB: two halves of 8 MB */
#define B_PARTIAL 0x7f6402000000ull
#define B_GRID_A 0x7f6410000000ull
#define B_GRID_B 0x7f6420000000ull
#define B_MATRIX 0x7f6430000000ull /* up to 768 rows of 4 KB */
#define B_VEC 0x7f6438000000ull    /* 4 KB */
#define B_ROWSUM 0x7f6439000000ull
#define B_AXPY_X 0x7f6440000000ull
#define B_AXPY_Y 0x7f6450000000ull
#define B_TABLE 0x7f6460000000ull /* 2^18 rows of 128 bytes */
#define B_INDEX 0x7f6480000000ull /* 8 lists of up to 32 KB */
#define B_BAGS 0x7f6490000000ull

enum {
    GRID_W = 1024,      /* stencil columns */
    MATRIX_COLS = 1024, /* row_reduce */
    TABLE_ROWS = 1 << 18,
    BAG = 8,
    GRID_BLOCKS = 92 /* of the grid-stride kernels */
};

static void prologue(synth_warp *w, uint32_t exiting)
{
    synth_inst(w, 0x00, 0xffffffffu, 0, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x10, 0xffffffffu, 3, "S2R", -1, -1, 0, NULL, 0);
    synth_inst(w, 0x20, 0xffffffffu, 0, "IMAD", 3, 0, 0, NULL, 0);
    synth_inst(w, 0x30, 0xffffffffu, -1, "ISETP.GE.AND", 0, -1, 0, NULL, 0);
    synth_inst(w, 0x40, exiting, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void warp_reduce(synth_warp *w, uint64_t pc, int reg)
{
    for (int s = 0; s < 5; s++) {
        synth_inst(w, pc + 32 * (uint64_t)s, 0xffffffffu, 20, "SHFL.BFLY", reg, -1, 0, NULL,
                   16 >> s);
        synth_inst(w, pc + 32 * (uint64_t)s + 16, 0xffffffffu, reg, "FADD", reg, 20, 0, NULL, 0);
    }
}

/* n = float4 vectors, buf[0] = first byte */
static void warp_stream(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t threads = (uint64_t)L->grid * L->block;
    uint64_t tid0 = (uint64_t)block * L->block + 32u * warp;
    uint32_t m = synth_lanes_below(tid0, L->n);
    prologue(w, 0);
    synth_inst(w, 0x50, ~m, -1, "BRA", -1, -1, 0, NULL, 0x110);
    for (uint64_t v0 = tid0; v0 < L->n; v0 += threads) {
        uint32_t now = synth_lanes_below(v0, L->n);
        uint32_t next = synth_lanes_below(v0 + threads, L->n);
        synth_linear_addr(a, L->buf[0], v0, 16);
        synth_inst(w, 0x60, now, 4, "LDG.E.128", 0, -1, 16, a, 0);
        for (int r = 0; r < 4; r++)
            synth_inst(w, 0x70 + 16 * (uint64_t)r, now, 8 + r, "FADD", 8 + r, 4 + r, 0, NULL, 0);
        synth_inst(w, 0xb0, now, 0, "IADD3", 0, -1, 0, NULL, 0);
        synth_inst(w, 0xc0, now, -1, "ISETP.LT.AND", 0, -1, 0, NULL, 0);
        synth_inst(w, 0xd0, next, -1, "BRA", -1, -1, 0, NULL, 0x60);
    }
    synth_inst(w, 0x110, 0xffffffffu, 8, "FADD", 8, 9, 0, NULL, 0);
    synth_inst(w, 0x120, 0xffffffffu, 10, "FADD", 10, 11, 0, NULL, 0);
    synth_inst(w, 0x130, 0xffffffffu, 8, "FADD", 8, 10, 0, NULL, 0);
    warp_reduce(w, 0x140, 8);
    uint64_t gw = tid0 / 32;
    synth_linear_addr(a, B_PARTIAL + 4 * gw, 0, 0);
    synth_inst(w, 0x1e0, 1, -1, "STG.E", 2, 8, 4, a, 0);
    synth_inst(w, 0x1f0, 0xffffffffu, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* n = rows, a row per block iteration; buf[0] = in grid, buf[1] = out grid */
static void warp_stencil(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t c0 = 128u * warp; /* first column of lane 0 */
    prologue(w, 0);
    synth_inst(w, 0x50, block < L->n ? 0 : 0xffffffffu, -1, "BRA", -1, -1, 0, NULL, 0x1c0);
    for (uint64_t r = block; r < L->n; r += L->grid) {
        uint64_t up = r ? r - 1 : 0, down = r + 1 < L->n ? r + 1 : r;
        synth_linear_addr(a, L->buf[0] + 4 * (r * GRID_W + c0), 0, 16);
        synth_inst(w, 0x60, 0xffffffffu, 4, "LDG.E.128", 2, -1, 16, a, 0);
        synth_linear_addr(a, L->buf[0] + 4 * (up * GRID_W + c0), 0, 16);
        synth_inst(w, 0x70, 0xffffffffu, 8, "LDG.E.128", 5, -1, 16, a, 0);
        synth_linear_addr(a, L->buf[0] + 4 * (down * GRID_W + c0), 0, 16);
        synth_inst(w, 0x80, 0xffffffffu, 12, "LDG.E.128", 6, -1, 16, a, 0);
        for (int l = 0; l < 32; l++) { /* the left and right neighbours, clamped */
            uint64_t c = c0 + 4 * (uint64_t)l;
            a[l] = L->buf[0] + 4 * (r * GRID_W + (c ? c - 1 : 0));
        }
        synth_inst(w, 0x90, 0xffffffffu, 16, "LDG.E", 2, -1, 4, a, 0);
        for (int l = 0; l < 32; l++) {
            uint64_t c = c0 + 4 * (uint64_t)l + 4;
            a[l] = L->buf[0] + 4 * (r * GRID_W + (c < GRID_W ? c : GRID_W - 1));
        }
        synth_inst(w, 0xa0, 0xffffffffu, 17, "LDG.E", 2, -1, 4, a, 0);
        for (int e = 0; e < 4; e++) {
            uint64_t pc = 0xb0 + 48 * (uint64_t)e;
            synth_inst(w, pc, 0xffffffffu, 8 + e, "FADD", 8 + e, 12 + e, 0, NULL, 0);
            synth_inst(w, pc + 16, 0xffffffffu, 8 + e, "FADD", 8 + e, e ? 3 + e : 16, 0, NULL, 0);
            synth_inst(w, pc + 32, 0xffffffffu, 4 + e, "FFMA", 4 + e, 8 + e, 0, NULL, 0);
        }
        synth_linear_addr(a, L->buf[1] + 4 * (r * GRID_W + c0), 0, 16);
        synth_inst(w, 0x170, 0xffffffffu, -1, "STG.E.128", 3, 4, 16, a, 0);
        synth_inst(w, 0x180, 0xffffffffu, 2, "IADD3", 2, -1, 0, NULL, 0);
        synth_inst(w, 0x190, 0xffffffffu, -1, "ISETP.LT.AND", 2, -1, 0, NULL, 0);
        synth_inst(w, 0x1a0, r + L->grid < L->n ? 0xffffffffu : 0, -1, "BRA", -1, -1, 0, NULL,
                   0x60);
    }
    synth_inst(w, 0x1c0, 0xffffffffu, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* n = rows, a row per warp iteration */
static void warp_rowred(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t warps = (uint64_t)L->grid * (L->block / 32);
    uint64_t first = (uint64_t)block * (L->block / 32) + warp;
    prologue(w, 0);
    synth_inst(w, 0x50, first < L->n ? 0 : 0xffffffffu, -1, "BRA", -1, -1, 0, NULL, 0x1e0);
    for (uint64_t row = first; row < L->n; row += warps) {
        for (uint64_t it = 0; it < MATRIX_COLS / 128; it++) {
            synth_linear_addr(a, B_MATRIX + 4 * (row * MATRIX_COLS + 128 * it), 0, 16);
            synth_inst(w, 0x60, 0xffffffffu, 4, "LDG.E.128", 2, -1, 16, a, 0);
            synth_linear_addr(a, B_VEC + 4 * 128 * it, 0, 16);
            synth_inst(w, 0x70, 0xffffffffu, 8, "LDG.E.128", 6, -1, 16, a, 0);
            for (int e = 0; e < 4; e++)
                synth_inst(w, 0x80 + 16 * (uint64_t)e, 0xffffffffu, 12, "FFMA", 4 + e, 8 + e, 0,
                           NULL, 0);
            synth_inst(w, 0xc0, 0xffffffffu, 2, "IADD3", 2, -1, 0, NULL, 0);
            synth_inst(w, 0xd0, 0xffffffffu, -1, "ISETP.LT.AND", 2, -1, 0, NULL, 0);
            synth_inst(w, 0xe0, it + 1 < MATRIX_COLS / 128 ? 0xffffffffu : 0, -1, "BRA", -1, -1,
                       0, NULL, 0x60);
        }
        warp_reduce(w, 0xf0, 12);
        synth_linear_addr(a, B_ROWSUM + 4 * row, 0, 0);
        synth_inst(w, 0x190, 1, -1, "STG.E", 2, 12, 4, a, 0);
        synth_inst(w, 0x1a0, 0xffffffffu, 3, "IADD3", 3, -1, 0, NULL, 0);
        synth_inst(w, 0x1b0, 0xffffffffu, -1, "ISETP.LT.AND", 3, -1, 0, NULL, 0);
        synth_inst(w, 0x1c0, row + warps < L->n ? 0xffffffffu : 0, -1, "BRA", -1, -1, 0, NULL,
                   0x60);
    }
    synth_inst(w, 0x1e0, 0xffffffffu, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* A row of the table: ranks log-uniform over the rows (P(rank < r) =
 * ln(r + 1) / ln(rows)), scattered by an odd multiplier (a bijection modulo
 * the power-of-two row count). */
static uint64_t table_row(ks_rng *rng)
{
    double u = ks_rng_uniform(rng);
    uint64_t rank = (uint64_t)floor(exp(u * log((double)TABLE_ROWS))) - 1;
    if (rank >= TABLE_ROWS)
        rank = TABLE_ROWS - 1;
    return (rank * 0x9E3779B1ull + 12345) & (TABLE_ROWS - 1);
}

/* n = bags of BAG rows; a warp's four groups of 8 lanes take one bag each;
 * buf[0] = the launch's index list */
static void warp_gather(const synth_launch *L, uint32_t block, uint32_t warp, ks_rng *rng,
                        synth_warp *w)
{
    uint64_t a[32];
    uint64_t bag0 = ((uint64_t)block * (L->block / 32) + warp) * 4;
    uint32_t m = 0;
    for (int g = 0; g < 4; g++)
        if (bag0 + (uint64_t)g < L->n)
            m |= 0xffu << (8 * g);
    prologue(w, ~m);
    if (!m)
        return;
    for (uint64_t j = 0; j < BAG; j++) {
        uint64_t row[4];
        for (int g = 0; g < 4; g++)
            row[g] = table_row(rng);
        for (int l = 0; l < 32; l++)
            a[l] = L->buf[0] + 4 * ((bag0 + (uint64_t)l / 8) * BAG + j);
        synth_inst(w, 0x50, m, 5, "LDG.E", 2, -1, 4, a, 0);
        synth_inst(w, 0x60, m, 6, "IMAD.WIDE", 5, -1, 0, NULL, 0);
        for (int l = 0; l < 32; l++)
            a[l] = B_TABLE + 128 * row[l / 8] + 16 * (uint64_t)(l % 8);
        synth_inst(w, 0x70, m, 8, "LDG.E.128", 6, -1, 16, a, 0);
        for (int e = 0; e < 4; e++)
            synth_inst(w, 0x80 + 16 * (uint64_t)e, m, 12 + e, "FADD", 12 + e, 8 + e, 0, NULL, 0);
        synth_inst(w, 0xc0, m, 2, "IADD3", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xd0, m, -1, "ISETP.LT.AND", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xe0, j + 1 < BAG ? m : 0, -1, "BRA", -1, -1, 0, NULL, 0x50);
    }
    for (int l = 0; l < 32; l++)
        a[l] = B_BAGS + 128 * (bag0 + (uint64_t)l / 8) + 16 * (uint64_t)(l % 8);
    synth_inst(w, 0xf0, m, -1, "STG.E.128", 3, 12, 16, a, 0);
    synth_inst(w, 0x100, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

/* n = float4 vectors of x and y, one per thread iteration */
static void warp_axpy(const synth_launch *L, uint32_t block, uint32_t warp, synth_warp *w)
{
    uint64_t a[32];
    uint64_t threads = (uint64_t)L->grid * L->block;
    uint64_t tid0 = (uint64_t)block * L->block + 32u * warp;
    uint32_t m = synth_lanes_below(tid0, L->n);
    prologue(w, ~m);
    if (!m)
        return;
    for (uint64_t v0 = tid0; v0 < L->n; v0 += threads) {
        uint32_t now = synth_lanes_below(v0, L->n);
        uint32_t next = synth_lanes_below(v0 + threads, L->n);
        synth_linear_addr(a, B_AXPY_X, v0, 16);
        synth_inst(w, 0x50, now, 4, "LDG.E.128", 2, -1, 16, a, 0);
        synth_linear_addr(a, B_AXPY_Y, v0, 16);
        synth_inst(w, 0x60, now, 8, "LDG.E.128", 6, -1, 16, a, 0);
        for (int e = 0; e < 4; e++)
            synth_inst(w, 0x70 + 16 * (uint64_t)e, now, 8 + e, "FFMA", 4 + e, 8 + e, 0, NULL, 0);
        synth_inst(w, 0xb0, now, -1, "STG.E.128", 6, 8, 16, a, 0);
        synth_inst(w, 0xc0, now, 2, "IADD3", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xd0, now, -1, "ISETP.LT.AND", 2, -1, 0, NULL, 0);
        synth_inst(w, 0xe0, next, -1, "BRA", -1, -1, 0, NULL, 0x50);
    }
    synth_inst(w, 0xf0, m, -1, "EXIT", -1, -1, 0, NULL, 0);
}

static void large_warp(const synth_launch *L, uint32_t block, uint32_t warp, ks_rng *rng,
                       synth_warp *w)
{
    switch (L->kind) {
    case K_STREAM:
        warp_stream(L, block, warp, w);
        break;
    case K_STENCIL:
        warp_stencil(L, block, warp, w);
        break;
    case K_ROWRED:
        warp_rowred(L, block, warp, w);
        break;
    case K_GATHER:
        warp_gather(L, block, warp, rng, w);
        break;
    default:
        warp_axpy(L, block, warp, w);
        break;
    }
}

static synth_launch large_launch(uint64_t i, uint64_t seed)
{
    static const int slot_kind[8] = {K_STENCIL, K_ROWRED, K_GATHER, K_STENCIL,
                                     K_ROWRED,  K_AXPY,   K_GATHER, K_STREAM};
    synth_launch L = {0};
    uint64_t t = i / 8, slot = i % 8;
    L.kind = slot_kind[slot];
    L.seed = seed * 0x9E3779B97F4A7C15ull + i + 1;
    L.block = 256;
    L.grid = GRID_BLOCKS;
    switch (L.kind) {
    case K_STREAM: /* 6, 4, 5 MB */
        L.n = ((const uint64_t[]){6, 4, 5}[t % 3] << 20) / 16;
        L.buf[0] = B_STREAM + (t % 2) * (8ull << 20);
        break;
    case K_STENCIL: /* 1.25, 1, 1.5 MB */
        L.n = (const uint64_t[]){320, 256, 384}[t % 3];
        L.buf[0] = slot == 0 ? B_GRID_A : B_GRID_B;
        L.buf[1] = slot == 0 ? B_GRID_B : B_GRID_A;
        break;
    case K_ROWRED: /* 2.5, 2, 3 MB */
        L.n = (const uint64_t[]){640, 512, 768}[(t + slot / 4) % 3];
        break;
    case K_GATHER: /* 8K, 4K, 6K rows of 128 bytes */
        L.n = (const uint64_t[]){1024, 512, 768}[(t + 1 + slot / 6) % 3];
        L.buf[0] = B_INDEX + ((2 * t + slot / 6) % 8) * (32ull << 10);
        L.block = 128;
        L.grid = (uint32_t)((L.n + 15) / 16);
        break;
    default: /* 0.75, 0.5 MB each */
        L.n = (const uint64_t[]){49152, 32768}[t % 2];
        break;
    }
    return L;
}

static void large_plan(uint64_t launches, uint64_t seed, synth_launch *L)
{
    for (uint64_t i = 0; i < launches; i++)
        L[i] = large_launch(i, seed);
}

/* the inputs the host copies in */
static const synth_copy large_copies[] = {
    {B_STREAM, 16ull << 20},  {B_GRID_A, 1572864},       {B_MATRIX, 3ull << 20},
    {B_VEC, 4096},            {B_AXPY_X, 786432},        {B_AXPY_Y, 786432},
    {B_TABLE, 32ull << 20},   {B_INDEX, 256ull << 10},   {0, 0}};

const synth_trace_preset ks_synth_traces_large = {
    "large",
    "4-6 MB streams, 1-3 MB buffers reused at 4-6 MB, a 32 MB gather",
    large_names,
    40,
    100000,
    large_plan,
    large_warp,
    large_copies,
    "iteration of 8 launches: stencil5 A->B, row_reduce, gather_rows, stencil5 B->A,\n"
    "row_reduce, axpy, gather_rows, stream_sum; buffers: stream 16 MB, grids 2 x 1.5 MB,\n"
    "matrix 3 MB, axpy 2 x 0.75 MB, table 32 MB (2^18 rows of 128 bytes)\n"};
