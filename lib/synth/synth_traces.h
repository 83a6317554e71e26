/*
 * synth_traces.h - shared by the presets of `ksample synth --traces`
 * (lib/synth/synth_traces*.c): the writer of one warp's instruction lines in
 * the tracer's version-5 form, and the table a preset fills.
 *
 * A preset plans its launches (kernel, grid, block, shared memory, sizes,
 * buffers) and writes each warp's instructions; synth_traces.c does the rest
 * (files, stats.csv, the time profile from the traced work, the memory copies
 * of kernelslist.g) the same way for every preset.
 */
#ifndef KS_SYNTH_TRACES_H
#define KS_SYNTH_TRACES_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

/* One warp's lines, and the work the duration model is defined on. */
typedef struct synth_warp {
    char *text;
    size_t len, cap;
    bool failed;
    uint64_t insts;   /* warp instructions of this warp */
    uint64_t sectors; /* distinct 32-byte sectors of global-memory instructions, summed */
} synth_warp;

void synth_put(synth_warp *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One instruction line: dst < 0 for none, s1/s2 < 0 for none; addr NULL for
 * no memory (else 32 lane addresses, those of inactive lanes ignored).
 * Shared-memory instructions (opcodes LDS, STS, ATOMS, LDSM) are traced with
 * their addresses like any other but add no sectors: the model's S counts
 * traffic to the memory system. */
void synth_inst(synth_warp *w, uint64_t pc, uint32_t mask, int dst, const char *op, int s1,
                int s2, uint32_t width, const uint64_t *addr, int64_t imm);

/* Lanes whose index tid0 + lane is below n. */
uint32_t synth_lanes_below(uint64_t tid0, uint64_t n);
/* a[lane] = base + (first + lane) * step. */
void synth_linear_addr(uint64_t *a, uint64_t base, uint64_t first, uint64_t step);

/* One launch as a preset plans it.  The meaning of n, m, k, len, p and buf
 * is the preset's. */
typedef struct synth_launch {
    int kind;              /* index into the preset's kernel names */
    uint32_t grid, block;  /* x only: y = z = 1 */
    uint32_t shmem;        /* bytes of shared memory per block (trace header) */
    uint32_t nregs;        /* registers per thread (trace header); 0: 32 */
    uint64_t n, m, k, len;
    double p;
    uint64_t buf[6];
    uint64_t seed;         /* of the launch's warps (each warp: seed ^ block << 20 | warp) */
} synth_launch;

/* One MemcpyHtoD line of kernelslist.g. */
typedef struct synth_copy {
    uint64_t addr, bytes;
} synth_copy;

typedef struct synth_trace_preset {
    const char *name, *summary;
    const char *const *kernel_names; /* by kind */
    uint64_t default_launches, max_launches;
    /* Fills L[0..launches-1]; launches is within 1..max_launches. */
    void (*plan)(uint64_t launches, uint64_t seed, synth_launch *L);
    /* Writes warp `warp` of thread block `block` of launch L. */
    void (*warp)(const synth_launch *L, uint32_t block, uint32_t warp, ks_rng *rng,
                 synth_warp *w);
    const synth_copy *copies; /* the list's memory copies, ending with bytes 0 */
    /* Extra lines for synth-params.txt (the preset's shape), or NULL. */
    const char *params_note;
} synth_trace_preset;

extern const synth_trace_preset ks_synth_traces_mixed;
extern const synth_trace_preset ks_synth_traces_large;
extern const synth_trace_preset ks_synth_traces_transformer;

#endif
