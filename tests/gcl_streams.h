/*
 * gcl_streams.h - hand-written instruction streams for the GCL tests and
 * benchmark: a few "kernels" (straight-line, loops, branches, shared-memory
 * tiles) emitted as ks_trace_inst records the way the trace reader streams
 * them, so graphs can be built without trace files.  Header-only: each test
 * and bench file is its own program.
 */
#ifndef KS_GCL_STREAMS_H
#define KS_GCL_STREAMS_H

#include <stdlib.h>
#include <string.h>

#include "gcl/gcl.h"

#define GS_R(n) ((uint16_t)(n))
#define GS_RZ ((uint16_t)255)
#define GS_P(n) ((uint16_t)(320 + (n)))

typedef struct gs_emitter {
    ks_gcl_graph_builder *b;
    uint32_t tb[3], warp;
    uint64_t base;  /* buffer address: differs per launch, as in real traces */
    uint32_t variant; /* > 0: the reduction's stride, so graphs of one size differ */
    ks_status st;
    ks_error err;
    uint64_t addr[32];
} gs_emitter;

/* One instruction; width > 0 makes it a memory access of 32 lanes at
 * base + offset + lane * stride. */
static inline void gs_emit(gs_emitter *e, uint64_t pc, const char *op, int ndst, uint16_t d0,
                           int nsrc, uint16_t s0, uint16_t s1, uint16_t s2, uint32_t width,
                           uint64_t offset, uint64_t stride)
{
    if (e->st != KS_OK)
        return;
    ks_trace_inst in;
    memset(&in, 0, sizeof in);
    memcpy(in.tb, e->tb, sizeof in.tb);
    in.warp = e->warp;
    in.pc = pc;
    in.mask = 0xffffffffu;
    in.opcode = op;
    in.ndst = (uint8_t)ndst;
    in.dst[0] = d0;
    in.nsrc = (uint8_t)nsrc;
    in.src[0] = s0;
    in.src[1] = s1;
    in.src[2] = s2;
    in.mem_width = width;
    in.src_line = -1;
    if (width) {
        for (int l = 0; l < 32; l++)
            e->addr[l] = e->base + offset + (uint64_t)l * stride;
        in.naddr = 32;
        in.addr = e->addr;
    }
    e->st = ks_gcl_graph_builder_add(e->b, &in, &e->err);
}

/* kernel 0: y = a x + y, straight line */
static inline void gs_saxpy(gs_emitter *e)
{
    gs_emit(e, 0x00, "S2R", 1, GS_R(0), 0, 0, 0, 0, 0, 0, 0);
    gs_emit(e, 0x10, "IMAD", 1, GS_R(1), 2, GS_R(0), GS_R(2), 0, 0, 0, 0);
    gs_emit(e, 0x20, "LDG.E", 1, GS_R(4), 1, GS_R(1), 0, 0, 4, 0, 4);
    gs_emit(e, 0x30, "LDG.E", 1, GS_R(5), 1, GS_R(1), 0, 0, 4, 4096, 4);
    gs_emit(e, 0x40, "FFMA", 1, GS_R(5), 3, GS_R(4), GS_R(3), GS_R(5), 0, 0, 0);
    gs_emit(e, 0x50, "STG.E", 0, 0, 2, GS_R(1), GS_R(5), 0, 4, 4096, 4);
    gs_emit(e, 0x60, "EXIT", 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* kernel 1: strided loop reduction (trip count is a parameter) */
static inline void gs_reduce(gs_emitter *e, int trip)
{
    gs_emit(e, 0x00, "S2R", 1, GS_R(0), 0, 0, 0, 0, 0, 0, 0);
    gs_emit(e, 0x10, "MOV", 1, GS_R(6), 1, GS_RZ, 0, 0, 0, 0, 0);
    for (int t = 0; t < trip; t++) {
        gs_emit(e, 0x20, "LDG.E.64", 1, GS_R(2), 1, GS_R(0), 0, 0, 8, (uint64_t)t * 8192,
                256 + 8 * (uint64_t)e->variant);
        gs_emit(e, 0x30, "DADD", 1, GS_R(6), 2, GS_R(6), GS_R(2), 0, 0, 0, 0);
        gs_emit(e, 0x40, "IADD3", 1, GS_R(0), 2, GS_R(0), GS_R(7), 0, 0, 0, 0);
        gs_emit(e, 0x50, "ISETP.GE.AND", 1, GS_P(0), 2, GS_R(0), GS_R(8), 0, 0, 0, 0);
        gs_emit(e, 0x60, "BRA", 0, 0, 1, GS_P(0), 0, 0, 0, 0, 0);
    }
    gs_emit(e, 0x70, "SHFL.BFLY", 1, GS_R(9), 1, GS_R(6), 0, 0, 0, 0, 0);
    gs_emit(e, 0x80, "STS", 0, 0, 2, GS_R(0), GS_R(9), 0, 4, 0, 4);
    gs_emit(e, 0x90, "BAR.SYNC", 0, 0, 0, 0, 0, 0, 0, 0, 0);
    gs_emit(e, 0xa0, "EXIT", 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* kernel 2: a branch taken by odd warps only */
static inline void gs_branchy(gs_emitter *e)
{
    gs_emit(e, 0x00, "S2R", 1, GS_R(0), 0, 0, 0, 0, 0, 0, 0);
    gs_emit(e, 0x10, "LOP3.LUT", 1, GS_R(1), 2, GS_R(0), GS_R(3), 0, 0, 0, 0);
    gs_emit(e, 0x20, "ISETP.NE.AND", 1, GS_P(1), 1, GS_R(1), 0, 0, 0, 0, 0);
    gs_emit(e, 0x30, "BRA", 0, 0, 1, GS_P(1), 0, 0, 0, 0, 0);
    if (e->warp % 2) {
        gs_emit(e, 0x40, "LDG.E.CONSTANT", 1, GS_R(2), 1, GS_R(0), 0, 0, 4, 0, 0);
        gs_emit(e, 0x50, "FMUL", 1, GS_R(2), 2, GS_R(2), GS_R(2), 0, 0, 0, 0);
    } else {
        gs_emit(e, 0x60, "MUFU.RSQ", 1, GS_R(2), 1, GS_R(1), 0, 0, 0, 0, 0);
    }
    gs_emit(e, 0x70, "STG.E", 0, 0, 2, GS_R(0), GS_R(2), 0, 4, 0, 128);
    gs_emit(e, 0x80, "EXIT", 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* kernel 3: shared-memory tile with an unrolled multiply-add loop */
static inline void gs_tile(gs_emitter *e)
{
    gs_emit(e, 0x00, "S2R", 1, GS_R(0), 0, 0, 0, 0, 0, 0, 0);
    gs_emit(e, 0x10, "LDG.E.128", 1, GS_R(4), 1, GS_R(0), 0, 0, 16, 0, 16);
    gs_emit(e, 0x20, "STS.128", 0, 0, 2, GS_R(0), GS_R(4), 0, 16, 0, 16);
    gs_emit(e, 0x30, "BAR.SYNC", 0, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int k = 0; k < 4; k++) {
        gs_emit(e, 0x40, "LDS.64", 1, GS_R(8), 1, GS_R(0), 0, 0, 8, (uint64_t)k * 256, 8);
        for (int u = 0; u < 4; u++)
            gs_emit(e, 0x50 + 0x10 * (uint64_t)u, "FFMA", 1, GS_R(12 + u), 3, GS_R(8),
                    GS_R(9), GS_R(12 + u), 0, 0, 0);
    }
    gs_emit(e, 0xa0, "STG.E.128", 0, 0, 2, GS_R(0), GS_R(12), 0, 16, 0, 16);
    gs_emit(e, 0xb0, "EXIT", 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* One launch of kernel `which` over `grid` blocks of `threads` threads,
 * every warp of every block streamed (the builder keeps what its bounds
 * allow).  param: the reduction's trip count; variant: its stride. */
static inline ks_status gs_launch_variant(ks_gcl_graph_builder *b, size_t index, int which,
                                          uint32_t grid, uint32_t threads, int param,
                                          uint64_t base, uint32_t blocks_streamed,
                                          uint32_t variant, ks_gcl_graph **out, ks_error *err)
{
    static const char *names[] = {"_Z5saxpyPfS_f", "_Z6reducePdS_i", "_Z7branchyPfS_",
                                  "_Z4tilePfS_S_"};
    ks_trace_kernel k;
    memset(&k, 0, sizeof k);
    k.index = index;
    k.kernel_id = index + 1;
    k.name = (char *)names[which];
    k.grid[0] = grid;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = threads;
    k.block[1] = k.block[2] = 1;
    k.stream = -1;
    k.tracer_version = 5;
    ks_status st = ks_gcl_graph_builder_begin(b, &k, err);
    if (st != KS_OK)
        return st;
    gs_emitter e = {.b = b, .base = base, .variant = variant};
    uint32_t blocks = grid < blocks_streamed ? grid : blocks_streamed;
    for (uint32_t tb = 0; tb < blocks && e.st == KS_OK; tb++)
        for (uint32_t w = 0; w < (threads + 31) / 32 && e.st == KS_OK; w++) {
            e.tb[0] = tb;
            e.warp = w;
            switch (which) {
            case 0: gs_saxpy(&e); break;
            case 1: gs_reduce(&e, param); break;
            case 2: gs_branchy(&e); break;
            default: gs_tile(&e); break;
            }
        }
    if (e.st != KS_OK) {
        *err = e.err;
        return e.st;
    }
    return ks_gcl_graph_builder_finish(b, out, err);
}

static inline ks_status gs_launch(ks_gcl_graph_builder *b, size_t index, int which,
                                  uint32_t grid, uint32_t threads, int param, uint64_t base,
                                  uint32_t blocks_streamed, ks_gcl_graph **out, ks_error *err)
{
    return gs_launch_variant(b, index, which, grid, threads, param, base, blocks_streamed, 0,
                             out, err);
}

#endif
