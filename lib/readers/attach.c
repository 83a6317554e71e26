/*
 * attach.c - second sources of per-invocation data and the one way they join
 * a time profile: read the file into a profile of its own, then
 * ks_profile_join (lib/core/join.c) aligns it launch by launch.  A source is
 * one row here.
 */
#include "internal.h"
#include "trace.h"

#include <stdlib.h>

typedef struct source_row {
    ks_source source;
    const char *option;
    ks_status (*read)(const char *path, ks_profile **out, long **lines, ks_error *err);
} source_row;

static const source_row sources[] = {
    {KS_SOURCE_METRICS, "--metrics NCU.csv (Nsight Compute)", ks_read_ncu_metrics},
    {KS_SOURCE_BBV, "--bbv BBV.csv (Photon's NVBit tool)", ks_read_photon_bbv},
    {KS_SOURCE_TRACES, "--traces DIR (Accel-Sim or MacSim NVBit traces)",
     ks_read_trace_folder},
};

ks_status ks_read_trace_folder(const char *path, ks_profile **out, long **lines,
                               ks_error *err)
{
    if (ks_macsim_dir_detect(path))
        return ks_read_macsim_traces(path, out, lines, err);
    return ks_read_accelsim_traces(path, out, lines, err);
}

static const source_row *find(ks_source source)
{
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (sources[i].source == source)
            return &sources[i];
    return NULL;
}

const char *ks_source_option(ks_source source)
{
    const source_row *r = find(source);
    return r ? r->option : "?";
}

ks_status ks_profile_attach(ks_profile *p, ks_source source, const char *path, ks_error *err)
{
    const source_row *r = find(source);
    if (!r)
        return ks_error_set(err, KS_ERR_INTERNAL, path, 0, "unknown source");
    ks_profile *q;
    long *lines;
    ks_status st = r->read(path, &q, &lines, err);
    if (st != KS_OK)
        return st;
    st = ks_profile_join(p, q, lines, path, err);
    free(lines);
    ks_profile_free(q);
    return st;
}

ks_status ks_profile_read_sources(const char *path, const ks_read_options *opt,
                                  const ks_read_sources *src, ks_profile **out, ks_error *err)
{
    static const ks_read_sources none = {0};
    if (!src)
        src = &none;
    ks_read_options ro = *opt;
    bool select = opt->select && opt->select[0];
    bool attach = src->metrics || src->bbv || src->traces || src->nvtx;
    /* the selection after the sources; NVTX ranges resolve by start times */
    if (attach)
        ro.select = NULL;
    if ((select && attach) || src->nvtx)
        ro.keep_start = true;
    ks_status st = ks_profile_read(path, &ro, out, err);
    if (st != KS_OK)
        return st;
    if (src->metrics)
        st = ks_profile_attach(*out, KS_SOURCE_METRICS, src->metrics, err);
    if (st == KS_OK && src->bbv)
        st = ks_profile_attach(*out, KS_SOURCE_BBV, src->bbv, err);
    if (st == KS_OK && src->traces)
        st = ks_profile_attach(*out, KS_SOURCE_TRACES, src->traces, err);
    if (st == KS_OK && src->nvtx)
        st = ks_profile_attach_ranges(*out, src->nvtx, err);
    if (st == KS_OK && select && attach)
        st = ks_profile_select(*out, opt->select, err);
    if (st == KS_OK && !opt->keep_start)
        ks_profile_drop_start(*out);
    if (st != KS_OK) {
        ks_profile_free(*out);
        *out = NULL;
    }
    return st;
}
