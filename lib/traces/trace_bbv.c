/*
 * trace_bbv.c - basic-block vectors of one launch from its trace, for Photon
 * (Liu et al., MICRO'23), which compares launches by how often each basic
 * block ran.
 *
 * A warp's instruction stream is cut into straight-line runs: a run ends
 * after a control-flow instruction and wherever the next PC is not the
 * sequential successor of the previous one (a taken branch, a call, a skip
 * the tracer made).  Counting runs alone would give different blocks to
 * warps that fall into a block and warps that jump into its middle, so the
 * block leaders are the start PCs of every run of the launch, and each run
 * counts one execution for every leader inside it: the static basic blocks
 * as far as this launch shows them.  This needs one pass, memory bounded by
 * the distinct (start, end) runs (a property of the code, not of the trace's
 * length) plus, for raw traces whose warps interleave, one state per warp.
 * Blocks are keyed by start PC, an offset within the kernel, so the same
 * block has the same key in every launch of the kernel.
 *
 * Control flow, from the SASS instruction tables of NVIDIA's CUDA Binary
 * Utilities (Maxwell/Pascal, Volta to Hopper): instructions that can send
 * the PC anywhere but the next instruction end a block: BRA, BRX, BRXU, JMP,
 * JMX, JMXU, CALL, CAL, JCAL, RET, PRET, EXIT, PEXIT, KILL, BRK, CONT, SYNC
 * (Maxwell/Pascal: pops the reconvergence stack and jumps), RTT, BPT.  Not
 * included: BSSY, BSYNC, BREAK (Volta+: they set up, wait on or leave a
 * convergence barrier and then fall through), WARPSYNC, BAR, YIELD,
 * NANOSLEEP; where one of those does move the PC, the PC check cuts there.
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_control_flow(const char *opcode)
{
    static const char *const ops[] = {"BRA",  "BRX",  "BRXU", "JMP", "JMX",  "JMXU", "CALL",
                                      "CAL",  "JCAL", "RET",  "PRET", "EXIT", "PEXIT", "KILL",
                                      "BRK",  "CONT", "SYNC", "RTT",  "BPT"};
    size_t n = strcspn(opcode, ".");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i]) == n && memcmp(ops[i], opcode, n) == 0)
            return true;
    return false;
}

/* Maxwell and Pascal (binary version 50-69) put a control word at every
 * 32-byte boundary, Kepler at every 64 bytes; Volta and later have 16-byte
 * instructions and no control words. */
static uint64_t next_pc_with_control(uint64_t pc, uint64_t bundle)
{
    uint64_t next = pc + 8;
    return next % bundle == 0 ? next + 8 : next;
}

static bool is_sequential(uint32_t binary_version, uint64_t prev, uint64_t pc)
{
    if (binary_version >= 70)
        return pc == prev + 16;
    if (binary_version >= 50)
        return pc == next_pc_with_control(prev, 32);
    if (binary_version > 0)
        return pc == next_pc_with_control(prev, 64);
    return pc == prev + 16 || pc == next_pc_with_control(prev, 32); /* unknown */
}

/* ------------------------------------------------------------- warps */

typedef struct warp_state {
    uint64_t start, prev;
    bool open;      /* a run is in progress */
    bool cut_after; /* the previous instruction was control flow */
} warp_state;

typedef struct bbv_pass {
    const ks_trace_kernel *k;
    bool prefixed;
    trace_pair_map runs; /* (start, end) -> uint64_t times it ran */
    uint64_t warps;
    uint64_t insts; /* every instruction passes here: the launch's count for free */
    /* grouped traces: the one current warp */
    warp_state current;
    uint64_t cur_block;
    uint32_t cur_warp;
    bool have_current;
    /* raw traces: (block, warp) -> warp_state */
    trace_pair_map map;
} bbv_pass;

static ks_status close_run(bbv_pass *b, warp_state *w, ks_error *err)
{
    if (!w->open)
        return KS_OK;
    w->open = false;
    uint64_t *count;
    ks_status st = trace_pair_map_get(&b->runs, w->start, w->prev, (void **)&count, NULL, err);
    if (st == KS_OK)
        ++*count;
    return st;
}

static ks_status step(bbv_pass *b, warp_state *w, const ks_trace_inst *inst, ks_error *err)
{
    if (w->open && (w->cut_after || !is_sequential(b->k->binary_version, w->prev, inst->pc))) {
        ks_status st = close_run(b, w, err);
        if (st != KS_OK)
            return st;
    }
    if (!w->open) {
        w->open = true;
        w->start = inst->pc;
    }
    w->prev = inst->pc;
    w->cut_after = is_control_flow(inst->opcode);
    return KS_OK;
}

static ks_status raw_state(bbv_pass *b, const ks_trace_inst *inst, warp_state **w,
                           ks_error *err)
{
    bool is_new;
    ks_status st = trace_pair_map_get(&b->map, trace_block_linear(b->k, inst->tb), inst->warp,
                                      (void **)w, &is_new, err);
    if (st == KS_OK && is_new)
        b->warps++;
    return st;
}

static ks_status on_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                         ks_error *err)
{
    bbv_pass *b = ctx;
    warp_state *w;
    b->insts++;
    if (b->prefixed) {
        ks_status st = raw_state(b, inst, &w, err);
        if (st != KS_OK)
            return st;
    } else {
        uint64_t block = trace_block_linear(k, inst->tb);
        if (!b->have_current || block != b->cur_block || inst->warp != b->cur_warp) {
            ks_status st = close_run(b, &b->current, err);
            if (st != KS_OK)
                return st;
            memset(&b->current, 0, sizeof b->current);
            b->cur_block = block;
            b->cur_warp = inst->warp;
            b->have_current = true;
            b->warps++;
        }
        w = &b->current;
    }
    return step(b, w, inst, err);
}

/* -------------------------------------------------------------- blocks */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* First index in sorted v[0..n) whose value is > key. */
static size_t upper_bound(const uint64_t *v, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The vector from the runs: each run counts its times once for every leader
 * from its start to its end.  Runs come in the order first seen; the vector
 * does not depend on it (leaders are sorted, counts are sums). */
ks_status trace_bbv_from_runs(const trace_pair_map *runs, ks_trace_bbv *out, ks_error *err)
{
    size_t n = runs->count;
    const uint64_t *start = runs->first, *end = runs->second, *times = runs->values;
    uint64_t *leaders = malloc((n ? n : 1) * sizeof *leaders);
    uint64_t *counts = calloc(n ? n : 1, sizeof *counts);
    if (!leaders || !counts) {
        free(leaders);
        free(counts);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (basic blocks)");
    }
    if (n)
        memcpy(leaders, start, n * sizeof *leaders);
    qsort(leaders, n, sizeof *leaders, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || leaders[i] != leaders[u - 1])
            leaders[u++] = leaders[i];
    for (size_t i = 0; i < n; i++) {
        /* the run's own start, then every leader up to its last PC */
        size_t j = upper_bound(leaders, u, start[i]) - 1;
        for (; j < u && leaders[j] <= end[i]; j++)
            counts[j] += times[i];
    }
    out->count = u;
    out->block_pc = leaders;
    out->executions = malloc((u ? u : 1) * sizeof *out->executions);
    if (!out->executions) {
        free(counts);
        ks_trace_bbv_free(out);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (basic blocks)");
    }
    for (size_t j = 0; j < u; j++)
        out->executions[j] = (double)counts[j];
    free(counts);
    return KS_OK;
}

static ks_status finish_warps(bbv_pass *b, ks_error *err)
{
    ks_status st = close_run(b, &b->current, err);
    warp_state *states = b->map.values;
    for (size_t i = 0; i < b->map.count && st == KS_OK; i++)
        st = close_run(b, &states[i], err);
    return st;
}

ks_status ks_trace_set_bbv(ks_trace_set *s, size_t i, ks_trace_bbv *out, uint64_t *warps,
                           ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (warps)
        *warps = 0;
    if (i >= s->kernel_count)
        return ks_error_set(err, KS_ERR_USAGE, s->list_path, 0,
                            "launch %zu does not exist (the list has %zu)", i, s->kernel_count);
    bbv_pass b;
    memset(&b, 0, sizeof b);
    b.k = &s->kernels[i];
    b.prefixed = s->layouts[i].prefixed;
    trace_pair_map_init(&b.runs, sizeof(uint64_t));
    trace_pair_map_init(&b.map, sizeof(warp_state));
    ks_status st = ks_trace_set_stream(s, i, NULL, on_inst, &b, err);
    if (st == KS_OK)
        st = finish_warps(&b, err);
    if (st == KS_OK)
        st = trace_bbv_from_runs(&b.runs, out, err);
    if (st == KS_OK && warps)
        *warps = b.warps;
    if (st == KS_OK) /* a whole pass saw every instruction, as counting does */
        s->kernels[i].warp_insts = b.insts;
    trace_pair_map_free(&b.runs);
    trace_pair_map_free(&b.map);
    return st;
}

void ks_trace_bbv_free(ks_trace_bbv *b)
{
    if (!b)
        return;
    free(b->block_pc);
    free(b->executions);
    memset(b, 0, sizeof *b);
}
