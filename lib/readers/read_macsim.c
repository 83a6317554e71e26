/*
 * read_macsim.c - a MacSim NVBit trace folder (kernel_config.txt and one
 * KernelN folder per launch; lib/traces/macsim_set.c) as a profile: one
 * invocation per listed launch in list order, with its name, grid and block
 * where the tracer's kernel_names.txt gives them, its instruction count and
 * warps, and no durations (a trace has no time: join a time profile, or plan
 * on a metric with --duration).  Photon's basic-block vectors come along as
 * the sparse column "bbv", from the raw instruction records.
 *
 * The folder is not recorded as the profile's trace_path: that names an
 * Accel-Sim trace folder, the only kind GCL-Sampler builds its graphs from.
 */
#include "internal.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

static ks_status attach_bbvs(const ks_macsim_set *s, ks_profile *p, ks_error *err)
{
    size_t n = ks_macsim_set_count(s), nnz = 0, cap = 0;
    uint64_t *offset = malloc((n + 1) * sizeof *offset), *index = NULL;
    double *value = NULL;
    ks_status st = offset ? KS_OK : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        ks_trace_bbv b;
        if ((st = ks_macsim_set_bbv(s, i, &b, err)) != KS_OK)
            break;
        size_t vcap = cap;
        if ((st = ks_grow((void **)&index, &vcap, nnz + b.count + 1, sizeof *index, err)) ==
                KS_OK &&
            (st = ks_grow((void **)&value, &cap, nnz + b.count + 1, sizeof *value, err)) == KS_OK) {
            offset[i] = nnz;
            for (size_t j = 0; j < b.count; j++)
                if (b.executions[j] > 0) {
                    index[nnz] = b.block_pc[j];
                    value[nnz++] = b.executions[j];
                }
        }
        ks_trace_bbv_free(&b);
    }
    if (st != KS_OK) {
        KS_FREE(offset, index, value);
        return st;
    }
    offset[n] = nnz;
    /* the profile takes the arrays, also when it fails */
    return ks_profile_set_sparse(p, "bbv", offset, index, value, err);
}

ks_status ks_read_macsim_traces(const char *path, ks_profile **out, long **lines, ks_error *err)
{
    *out = NULL;
    if (lines)
        *lines = NULL;
    ks_macsim_set *s;
    ks_status st = ks_macsim_set_open(path, &s, err);
    if (st != KS_OK)
        return st;
    st = ks_macsim_set_profile(s, out, err);
    if (st == KS_OK && (st = attach_bbvs(s, *out, err)) != KS_OK) {
        ks_profile_free(*out);
        *out = NULL;
    }
    ks_macsim_set_free(s);
    return st;
}

static ks_status read_dir(const char *path, const ks_read_options *opt, ks_profile **out,
                          ks_error *err)
{
    (void)opt;
    return ks_read_macsim_traces(path, out, NULL, err);
}

const ks_reader ks_reader_macsim_traces = {
    .name = "macsim-traces",
    .summary = "MacSim NVBit trace folder (kernel_config.txt, KernelN/trace.txt, "
               "trace_info.txt, raw records; no durations: join a time profile)",
    .detect_dir = ks_macsim_dir_detect,
    .read_dir = read_dir,
};
