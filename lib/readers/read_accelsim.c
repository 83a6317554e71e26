/*
 * read_accelsim.c - an Accel-Sim trace folder (kernelslist.g or raw
 * kernelslist, one trace per launch; lib/traces) as a profile: one
 * invocation per kernel launch in list order with name, grid, block and
 * instruction counts, and no durations (a trace has no time: join it to a
 * time profile with --traces, or give the times with --metrics).  Memory
 * copies in the list are not kernels.
 *
 * Photon's input comes along: the sparse column "bbv" (executions of each
 * basic block summed over warps, indexed by the block's start PC, which is
 * the same in every launch of a kernel) and the metric "warps".  The BBV
 * pass streams each launch once and counts its instructions on the way, so
 * no launch is read twice; a folder is always read whole (stats.csv no
 * longer spares the reading, only vouches for the counts).
 */
#include "internal.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int detect_dir(const char *path)
{
    char list[4096];
    struct stat sb;
    snprintf(list, sizeof list, "%s/kernelslist.g", path);
    if (stat(list, &sb) == 0 && S_ISREG(sb.st_mode))
        return 90;
    snprintf(list, sizeof list, "%s/kernelslist", path);
    if (stat(list, &sb) == 0 && S_ISREG(sb.st_mode))
        return 80;
    return 0;
}

typedef struct bbv_csr {
    uint64_t *offset, *index;
    double *value;
    double *warps;
    size_t nnz, nnz_cap;
} bbv_csr;

/* Every launch's basic-block vector, appended in compressed-row form. */
static ks_status accelsim_bbvs(ks_trace_set *s, bbv_csr *c, ks_error *err)
{
    size_t n = ks_trace_set_kernel_count(s);
    c->offset = malloc((n + 1) * sizeof *c->offset);
    c->warps = malloc((n ? n : 1) * sizeof *c->warps);
    if (!c->offset || !c->warps)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = KS_OK;
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        ks_trace_bbv b;
        uint64_t warps;
        if ((st = ks_trace_set_bbv(s, i, &b, &warps, err)) != KS_OK)
            break;
        size_t cap = c->nnz_cap;
        if ((st = ks_grow((void **)&c->index, &cap, c->nnz + b.count + 1, sizeof *c->index,
                          err)) == KS_OK &&
            (st = ks_grow((void **)&c->value, &c->nnz_cap, c->nnz + b.count + 1,
                          sizeof *c->value, err)) == KS_OK) {
            c->offset[i] = c->nnz;
            for (size_t j = 0; j < b.count; j++)
                if (b.executions[j] > 0) {
                    c->index[c->nnz] = b.block_pc[j];
                    c->value[c->nnz++] = b.executions[j];
                }
            c->warps[i] = (double)warps;
        }
        ks_trace_bbv_free(&b);
    }
    c->offset[n] = c->nnz;
    return st;
}

static ks_status attach_bbvs(ks_profile *p, bbv_csr *c, ks_error *err)
{
    ks_metric_column *col;
    ks_status st = ks_profile_metric(p, "warps", &col, err);
    if (st == KS_OK)
        memcpy(col->values, c->warps, p->n * sizeof *col->values);
    if (st == KS_OK) {
        st = ks_profile_set_sparse(p, "bbv", c->offset, c->index, c->value, err);
        c->offset = c->index = NULL;
        c->value = NULL;
    }
    return st;
}

ks_status ks_read_accelsim_traces(const char *path, ks_profile **out, long **lines,
                                  ks_error *err)
{
    *out = NULL;
    if (lines)
        *lines = NULL;
    ks_trace_set *s;
    ks_status st = ks_trace_set_open(path, &s, err);
    if (st != KS_OK)
        return st;
    bbv_csr c = {0};
    st = accelsim_bbvs(s, &c, err);
    if (st == KS_OK)
        st = ks_trace_set_profile(s, out, err);
    if (st == KS_OK && (st = attach_bbvs(*out, &c, err)) != KS_OK) {
        ks_profile_free(*out);
        *out = NULL;
    }
    KS_FREE(c.offset, c.index, c.value, c.warps);
    ks_trace_set_free(s);
    if (st == KS_OK)
        snprintf((*out)->trace_path, sizeof (*out)->trace_path, "%s", path);
    return st;
}

static ks_status read_dir(const char *path, const ks_read_options *opt, ks_profile **out,
                          ks_error *err)
{
    (void)opt;
    return ks_read_accelsim_traces(path, out, NULL, err);
}

const ks_reader ks_reader_accelsim_traces = {
    .name = "accelsim-traces",
    .summary = "Accel-Sim NVBit trace folder (kernelslist.g or kernelslist, tracer "
               "versions 3-5; no durations: join a time profile)",
    .detect_dir = detect_dir,
    .read_dir = read_dir,
};
