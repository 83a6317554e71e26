/*
 * macsim_tracer.c - the sampled-kernel list that the STEM/Allegro NVBit
 * tracer for MacSim reads through SAMPLED_KERNEL_INFO: two header lines it
 * prints and skips, then per cluster "<cluster size> <m> <id> ...".  Its
 * ids are the tracer's grid_launch_id, which counts launches from 0, so plan
 * ids are written as they are.  The tracer checks that m equals the number
 * of ids on the line, so m is the count of distinct sampled ids (a launch
 * drawn twice is traced once; its weight says how often it counts).  It
 * stops at the first empty line, so none is written.  With --warmup state a
 * last line "0 <m> <id> ..." lists the launches whose addresses rebuild the
 * sampled launches' L2 state (traced, belonging to no cluster): by default
 * only those the state can need (state_trace.c).
 */
#include "export.h"

#include <stdlib.h>

typedef struct list_ctx {
    const ks_plan *plan;
    bool state;
    ks_state_trace win; /* with state: the first launch traced per sample */
} list_ctx;

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    const list_ctx *lc = ctx;
    const ks_plan *plan = lc->plan;
    /* samples by cluster (counting sort: stable, so each line stays sorted) */
    size_t *start = calloc(plan->cluster_count + 2, sizeof *start);
    size_t *order = malloc((plan->sample_count + 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < plan->sample_count; i++)
        start[plan->samples[i].cluster + 2]++;
    for (size_t c = 0; c < plan->cluster_count; c++)
        start[c + 2] += start[c + 1];
    for (size_t i = 0; i < plan->sample_count; i++)
        order[start[plan->samples[i].cluster + 1]++] = i;
    fprintf(f, "Kernel sampling information from %s (ksample %s plan, seed %llu).\n",
            plan->input_path[0] ? plan->input_path : "(unknown input)", plan->method,
            (unsigned long long)plan->params.seed);
    char bound[64] = "none (the plan promises no error bound)";
    if (plan->bound > 0)
        snprintf(bound, sizeof bound, "%g%% at %g%% confidence", plan->bound * 100,
                 plan->params.confidence * 100);
    fprintf(f, "Bound: %s; ids are 0-based launch numbers "
               "(grid_launch_id); per line: cluster size, samples, ids.\n",
            bound);
    for (size_t c = 0; c < plan->cluster_count; c++) {
        if (start[c + 1] == start[c])
            continue;
        fprintf(f, "%llu %zu", (unsigned long long)plan->clusters[c].size,
                start[c + 1] - start[c]);
        for (size_t j = start[c]; j < start[c + 1]; j++)
            fprintf(f, " %llu", (unsigned long long)plan->samples[order[j]].id);
        fputc('\n', f);
    }
    free(start);
    free(order);
    if (lc->state) {
        /* the launches each sampled one's state is rebuilt from, not sampled
         * themselves: one last line of cluster size 0 (traced, weighed by
         * no cluster) */
        uint64_t count = 0;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 && count == 0)
                break;
            if (pass == 1)
                fprintf(f, "0 %llu", (unsigned long long)count);
            uint64_t next = 0; /* the first launch not yet written */
            for (size_t i = 0; i < plan->sample_count; i++) {
                uint64_t id = plan->samples[i].id;
                uint64_t first = lc->win.first[i];
                if (first < next)
                    first = next;
                for (uint64_t x = first; x < id; x++) {
                    if (pass == 0)
                        count++;
                    else
                        fprintf(f, " %llu", (unsigned long long)x);
                }
                if (id + 1 > next)
                    next = id + 1;
            }
            if (pass == 1)
                fputc('\n', f);
        }
    }
    return KS_OK;
}

static ks_status export_list(const ks_plan *plan, const ks_export_options *opt, const char *out,
                             ks_error *err)
{
    list_ctx c = {plan, opt && opt->warmup && opt->warmup->mode == KS_WARMUP_STATE, {0}};
    ks_status st = c.state ? ks_state_trace_plan(plan, opt, true, &c.win, err) : KS_OK;
    if (st == KS_OK)
        st = ks_write_atomic(out, write_list, &c, err);
    if (st == KS_OK && c.state && opt->note) {
        size_t distinct = 0;
        for (size_t i = 0; i < plan->sample_count; i++)
            distinct += i == 0 || plan->samples[i].id != plan->samples[i - 1].id;
        ks_state_trace_summary(&c.win, distinct, opt->note, opt->note_size);
    }
    ks_state_trace_free(&c.win);
    return st;
}

const ks_exporter ks_exporter_macsim_tracer = {
    "macsim-tracer",
    "SAMPLED_KERNEL_INFO list of the STEM/Allegro NVBit tracer for MacSim (0-based ids)", 0,
    export_list};
