/*
 * macsim_tracer.c - the sampled-kernel list that the STEM/Allegro NVBit
 * tracer for MacSim reads through SAMPLED_KERNEL_INFO: two header lines it
 * prints and skips, then per cluster "<cluster size> <m> <id> ...".  Its
 * ids are the tracer's grid_launch_id, which counts launches from 0, so plan
 * ids are written as they are.  The tracer checks that m equals the number
 * of ids on the line, so m is the count of distinct sampled ids (a launch
 * drawn twice is traced once; its weight says how often it counts).  It
 * stops at the first empty line, so none is written.
 */
#include "export.h"

#include <stdlib.h>

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    const ks_plan *plan = ctx;
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
    fprintf(f, "Bound: %g%% at %g%% confidence; ids are 0-based launch numbers "
               "(grid_launch_id); per line: cluster size, samples, ids.\n",
            plan->bound * 100, plan->bound > 0 ? plan->params.confidence * 100 : 0);
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
    return KS_OK;
}

KS_FILE_EXPORTER(ks_exporter_macsim_tracer, "macsim-tracer",
                 "SAMPLED_KERNEL_INFO list of the STEM/Allegro NVBit tracer for MacSim "
                 "(0-based ids)",
                 write_list);
