/*
 * trace_profile.c - a ks_profile from a trace folder: one invocation per
 * listed launch, in list order, with the work the traces record as metric
 * columns.  Durations are 0: a trace has no time, which comes from a time
 * profile joined by launch order.
 *
 * smsp__inst_executed.sum is the number of warp-level instructions, which is
 * what Nsight Compute's metric of that name counts and what the tracer's
 * stats.csv calls total_insts: one per warp per executed instruction,
 * predicated-off ones included (the tracer's instrumentation counts once per
 * warp, before the predicate is applied to the mask).  stats.csv supplies it
 * where ks_trace_set_stats_usable vouches for the row; every other launch is
 * counted by streaming its trace.
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

static ks_status append_launch(ks_profile *p, const ks_trace_kernel *k, ks_error *err)
{
    uint32_t id;
    ks_status st = ks_profile_intern(p, k->name, strlen(k->name), &id, err);
    if (st != KS_OK)
        return st;
    ks_invocation inv;
    ks_invocation_init(&inv);
    inv.duration_ns = 0;
    inv.name_id = id;
    inv.grid = k->grid;
    inv.block = k->block;
    /* no stream: the tracer's "-cuda stream id" is the CUstream handle, which
     * matches no profiler's stream numbering */
    return ks_profile_append(p, &inv, err);
}

static ks_status fill_metrics(ks_trace_set *s, ks_profile *p, ks_error *err)
{
    static const char *const names[] = {"smsp__inst_executed.sum", "launch__grid_size",
                                        "launch__thread_count"};
    for (int m = 0; m < 3; m++) {
        ks_metric_column *col;
        ks_status st = ks_profile_metric(p, names[m], &col, err);
        if (st != KS_OK)
            return st;
        for (size_t i = 0; i < s->kernel_count; i++) {
            const ks_trace_kernel *k = &s->kernels[i];
            double blocks = (double)k->grid[0] * k->grid[1] * k->grid[2];
            double threads = (double)k->block[0] * k->block[1] * k->block[2];
            col->values[i] = m == 0 ? (double)k->warp_insts : m == 1 ? blocks : blocks * threads;
        }
    }
    return KS_OK;
}

ks_status ks_trace_set_profile(ks_trace_set *s, ks_profile **out, ks_error *err)
{
    *out = NULL;
    ks_status st = KS_OK;
    for (size_t i = 0; i < s->kernel_count && st == KS_OK; i++) {
        if (ks_trace_set_stats_usable(s, i))
            s->kernels[i].warp_insts = (uint64_t)ks_trace_set_kernel_stats(s, i)->reported_insts;
        else if (!s->kernels[i].warp_insts) /* not yet counted by a BBV pass */
            st = ks_trace_set_count_insts(s, i, NULL, err);
    }
    if (st != KS_OK)
        return st;
    ks_profile *p = ks_profile_new();
    if (!p)
        return ks_error_set(err, KS_ERR_NOMEM, s->dir, 0, "out of memory");
    for (size_t i = 0; i < s->kernel_count && st == KS_OK; i++)
        st = append_launch(p, &s->kernels[i], err);
    if (st == KS_OK)
        st = fill_metrics(s, p, err);
    /* the digest covers the list file: the traces are too large to hash
     * when stats.csv spares reading them */
    return trace_profile_finish(p, st, "accelsim-traces", s->dir, s->list_xxh128, s->list_bytes,
                                out);
}

ks_status trace_profile_finish(ks_profile *p, ks_status st, const char *format, const char *dir,
                               const char *list_xxh128, uint64_t list_bytes, ks_profile **out)
{
    if (st != KS_OK) {
        ks_profile_free(p);
        return st;
    }
    snprintf(p->source_format, sizeof p->source_format, "%s", format);
    snprintf(p->source_path, sizeof p->source_path, "%s", dir);
    memcpy(p->source_xxh128, list_xxh128, sizeof p->source_xxh128);
    p->source_bytes = list_bytes;
    *out = p;
    return KS_OK;
}
