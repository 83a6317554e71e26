/*
 * trace_stub.h - the Accel-Sim trace types GCL-Sampler consumes, until the
 * trace reader (lib/traces/trace.h, another branch) is merged: with the real
 * header on the include path it is used instead, and this file can go.
 * The definitions are the agreed interface, field for field.
 */
#ifndef KS_GCL_TRACE_STUB_H
#define KS_GCL_TRACE_STUB_H

#if defined(__has_include)
#if __has_include("trace.h")
#include "trace.h"
#endif
#endif

#ifndef KS_TRACE_H
#include "internal.h"

#define KS_TRACE_MAX_REGS 8

typedef struct ks_trace_inst {
    uint32_t tb[3];
    uint32_t warp;
    uint64_t pc;
    uint32_t mask;
    const char *opcode;
    uint8_t ndst, nsrc;
    uint16_t dst[KS_TRACE_MAX_REGS], src[KS_TRACE_MAX_REGS];
    uint32_t mem_width;
    uint32_t naddr;
    const uint64_t *addr;
    int has_imm;
    int64_t imm;
    long src_line;
} ks_trace_inst;

typedef struct ks_trace_kernel {
    size_t index;
    uint64_t kernel_id;
    char *name;
    uint32_t grid[3], block[3];
    uint32_t shmem, nregs, binary_version;
    int64_t stream;
    int tracer_version;
    char *path;
    uint64_t warp_insts;
} ks_trace_kernel;

typedef struct ks_trace_filter {
    uint64_t max_blocks;
    uint32_t max_warps;
    uint64_t max_insts_per_warp;
} ks_trace_filter;
#endif /* KS_TRACE_H */

#endif
