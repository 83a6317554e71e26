/*
 * trace_count.c - a launch's instruction counts, exactly, from its trace.
 *
 * What GPGPU-Sim counts (checked on every launch of ../shared/data/sim's
 * accelsim-synth, both configurations, full and alone runs, and on the
 * recorded vectoradd of ../shared/data/accelsim-simlog against its trace):
 *   - gpu_sim_insn (and the running total gpu_tot_sim_insn) adds, for each
 *     warp instruction that completes, its active lanes: the popcount of
 *     the trace line's mask.  An EXIT with mask 0 (the lanes that left at
 *     an earlier EXIT) counts 0.  (gpgpu_n_tot_thrd_icount is not this:
 *     on SM86_RTX3070 it exceeds gpu_sim_insn at every launch.)
 *   - gpgpu_n_tot_w_icount counts the warp instructions: every line,
 *     mask 0 included.
 * Each line is read up to its mask (trace_stream_masks: the registers, opcode and
 * addresses after it are not decoded, which would more than double the
 * time); the blocks, warps and every warp's line count are checked as
 * ks_trace_set_stream does, so a truncated trace is an error, not a short
 * count.  Memory is the stream's, whatever the file's size.
 */
#include "trace_internal.h"

static ks_status add_line(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                          ks_error *err)
{
    (void)k;
    (void)err;
    ks_trace_counts *c = ctx;
    c->warp_insts++;
    c->thread_insts += (uint64_t)__builtin_popcount(inst->mask);
    return KS_OK;
}

ks_status ks_trace_set_count(ks_trace_set *s, size_t i, ks_trace_counts *out, ks_error *err)
{
    ks_trace_counts c = {0, 0};
    ks_status st = trace_stream_masks(s, i, add_line, &c, err);
    if (st != KS_OK)
        return st;
    s->kernels[i].warp_insts = c.warp_insts;
    *out = c;
    return KS_OK;
}
