/*
 * state_trace.c - which launches a tracer must record for `--warmup state`
 * (the tracer formats: accelsim-tracer*, macsim-tracer).
 *
 * A sampled launch's rebuilt L2 state holds the lines of the last `cut` L2
 * capacities of accesses before it (lib/warm: older lines cannot survive),
 * so only the launches just before it whose accesses fill that much are
 * needed, not every earlier launch.  Walking back from each sampled launch,
 * each earlier launch counts what the profile says it moved:
 *   - DRAM bytes (ncu dram__bytes.sum, or dram__bytes_read.sum +
 *     dram__bytes_write.sum): the lines it brought into the L2, fewer than
 *     it touched (hits are not counted), so the window errs long;
 *   - else its global-memory sectors (ncu lts__t_sectors.sum, or
 *     l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum + _st.sum) x 32 bytes:
 *     requests, repeated ones counted again, so the window can err short;
 *   - else its threads (grid x block) x KS_STATE_BYTES_PER_THREAD, the median
 *     distinct bytes a thread touched on the shared synthetic traces
 *     (16.06 B; 10th percentile 8 B): a guess sized from the L2 alone;
 * until they add up to cut x the L2's bytes.  A window that errs short is
 * caught where it matters: `run` says for each sampled launch whose state
 * the missing traces cut short how many lines of the cut it lacked
 * (ks_state_report.short_launches).  The L2 is the simulated one
 * (--sim-config, --l2-size), else KS_STATE_TRACE_DEFAULT_L2 (QV100's 6 MB,
 * the larger of the tested Accel-Sim configurations).
 */
#include "export.h"
#include "warm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a post-processed Accel-Sim trace per warp instruction, measured
 * on the shared synthetic traces (46,655,087 bytes for 1,085,785 warp
 * instructions): the expected trace volume where the profile counts warp
 * instructions. */
#define TRACE_BYTES_PER_WARP_INST 43.0

static const ks_metric_column *metric(const ks_profile *p, const char *name)
{
    return p ? ks_profile_find_metric(p, name) : NULL;
}

static double value(const ks_metric_column *c, size_t i)
{
    return c && isfinite(c->values[i]) && c->values[i] >= 0 ? c->values[i] : NAN;
}

/* What launch i moved, by the best basis the profile has (NAN: unknown). */
typedef struct basis {
    const ks_metric_column *dram, *dram_rd, *dram_wr, *lts, *ld, *st;
    bool dims;
} basis;

static double launch_bytes(const basis *b, const ks_profile *p, size_t i, int *used)
{
    double v = value(b->dram, i);
    if (isnan(v) && b->dram_rd) {
        double r = value(b->dram_rd, i), w = value(b->dram_wr, i);
        v = isnan(r) ? NAN : r + (isnan(w) ? 0 : w);
    }
    if (!isnan(v)) {
        *used |= 1;
        return v;
    }
    v = value(b->lts, i);
    if (isnan(v) && b->ld) {
        double r = value(b->ld, i), w = value(b->st, i);
        v = isnan(r) ? NAN : r + (isnan(w) ? 0 : w);
    }
    if (!isnan(v)) {
        *used |= 2;
        return v * 32;
    }
    if (b->dims) {
        const uint32_t *g = ks_profile_grid(p, i), *k = ks_profile_block(p, i);
        double threads = (double)g[0] * g[1] * g[2] * k[0] * k[1] * k[2];
        if (threads > 0) {
            *used |= 4;
            return threads * KS_STATE_BYTES_PER_THREAD;
        }
    }
    return NAN;
}

void ks_state_trace_free(ks_state_trace *t)
{
    free(t->first);
    memset(t, 0, sizeof *t);
}

/* The L2 the state is rebuilt for, as `run` would model it. */
static ks_status trace_l2(const ks_warmup *w, bool macsim, uint64_t *l2, char *source,
                          size_t size, ks_error *err)
{
    *l2 = 0;
    if (w && w->l2_bytes) {
        *l2 = w->l2_bytes;
        snprintf(source, size, "--l2-size");
    } else if (w && w->sim_config) {
        ks_gpu_geometry g;
        ks_status st = macsim ? ks_gpu_geometry_read_macsim(w->sim_config, &g, err)
                              : ks_gpu_geometry_read_gpgpusim(w->sim_config, &g, err);
        if (st != KS_OK)
            return st;
        *l2 = g.l2_bytes;
        snprintf(source, size, "%.150s", w->sim_config);
    }
    if (!*l2) {
        *l2 = KS_STATE_TRACE_DEFAULT_L2;
        snprintf(source, size, "assumed: QV100's; give --sim-config or --l2-size");
    }
    return KS_OK;
}

ks_status ks_state_trace_plan(const ks_plan *plan, const ks_export_options *opt, bool macsim,
                              ks_state_trace *t, ks_error *err)
{
    memset(t, 0, sizeof *t);
    const ks_warmup *w = opt ? opt->warmup : NULL;
    const ks_profile *p = opt ? opt->profile : NULL;
    size_t n = plan->sample_count;
    t->launches = plan->input_invocations;
    t->volume = -1;
    if (!(t->first = malloc((n + 1) * sizeof *t->first)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    t->count = n;
    ks_status st = trace_l2(w, macsim, &t->l2_bytes, t->l2_source, sizeof t->l2_source, err);
    if (st != KS_OK)
        return st;
    t->cut = w && w->cut > 0 ? w->cut : KS_STATE_DEFAULT_CUT;
    double need = t->cut * (double)t->l2_bytes;
    uint64_t fixed = opt ? opt->state_window : 0;
    basis b = {0};
    if (p) {
        b.dram = metric(p, "dram__bytes.sum");
        b.dram_rd = metric(p, "dram__bytes_read.sum");
        b.dram_wr = metric(p, "dram__bytes_write.sum");
        b.lts = metric(p, "lts__t_sectors.sum");
        b.ld = metric(p, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
        b.st = metric(p, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
        b.dims = ks_profile_has_dims(p);
    }
    bool estimate = fixed == 0 && p && p->n == plan->input_invocations;
    int used = 0;
    bool unknown = false;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = plan->samples[i].id;
        if (fixed == KS_STATE_WINDOW_ALL || (fixed == 0 && !estimate))
            t->first[i] = 0;
        else if (fixed)
            t->first[i] = fixed > id ? 0 : id - fixed;
        else {
            double acc = 0;
            uint64_t j = id;
            while (j > 0 && acc < need) {
                j--;
                double v = launch_bytes(&b, p, (size_t)j, &used);
                if (isnan(v))
                    unknown = true; /* nothing to size it by: counted as moving nothing,
                                     * so the window reaches past it */
                else
                    acc += v;
            }
            t->first[i] = j;
        }
    }
    /* each sample's range widened to the earliest first of the samples
     * after it: the union of the ranges stays the same (a later sample's
     * range reaches up to its own id, past this one's) and the firsts
     * ascend, so consecutive ranges merge in one pass */
    for (size_t i = n; i-- > 1;)
        if (t->first[i] < t->first[i - 1])
            t->first[i - 1] = t->first[i];
    /* what the window came from */
    if (fixed == KS_STATE_WINDOW_ALL)
        snprintf(t->basis, sizeof t->basis, "every launch before each sampled one");
    else if (fixed)
        snprintf(t->basis, sizeof t->basis, "the %llu launches before each sampled one",
                 (unsigned long long)fixed);
    else if (!estimate)
        snprintf(t->basis, sizeof t->basis,
                 "every launch before each sampled one (no profile of the plan's %llu launches "
                 "to size the window by: give --profile)",
                 (unsigned long long)plan->input_invocations);
    else
        snprintf(t->basis, sizeof t->basis,
                 "before each sampled one, the launches that move %g x the %.1f MB L2 (%s) by "
                 "the profile's %s%s",
                 t->cut, (double)t->l2_bytes / (1 << 20), t->l2_source,
                 used & 1   ? "DRAM bytes"
                 : used & 2 ? "global-memory sectors"
                 : used & 4 ? "threads x 16 B (no bytes in the profile)"
                            : "nothing (no bytes, no grid: every earlier launch)",
                 unknown ? "; launches it has nothing for count as moving nothing" : "");
    /* launches traced: the union of [first, id] */
    uint64_t next = 0, traced = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id = plan->samples[i].id;
        uint64_t first = t->first[i] > next ? t->first[i] : next;
        if (id + 1 > first) {
            traced += id + 1 - first;
            next = id + 1;
        }
    }
    t->traced = traced;
    /* expected volume where the profile counts warp instructions */
    const ks_metric_column *insts = metric(p, "smsp__inst_executed.sum");
    if (insts && p->n == plan->input_invocations) {
        double sum = 0;
        bool all = true;
        next = 0;
        for (size_t i = 0; i < n && all; i++) {
            uint64_t id = plan->samples[i].id;
            for (uint64_t j = t->first[i] > next ? t->first[i] : next; j <= id; j++) {
                double v = value(insts, (size_t)j);
                if (isnan(v))
                    all = false;
                sum += v;
            }
            if (id + 1 > next)
                next = id + 1;
        }
        if (all)
            t->volume = sum * TRACE_BYTES_PER_WARP_INST;
    }
    return KS_OK;
}

void ks_state_trace_summary(const ks_state_trace *t, size_t distinct, char *buf, size_t size)
{
    double share = t->launches ? 100.0 * (double)t->traced / (double)t->launches : 0;
    int k = snprintf(buf, size, "--warmup state: %llu of %llu launches traced (%.2f %%), %llu "
                     "beyond the %zu sampled",
                     (unsigned long long)t->traced, (unsigned long long)t->launches, share,
                     (unsigned long long)(t->traced >= distinct ? t->traced - distinct : 0),
                     distinct);
    if (k > 0 && (size_t)k < size && t->volume >= 0)
        snprintf(buf + k, size - (size_t)k, "; expected trace volume %.3g GB",
                 t->volume / 1e9);
}
