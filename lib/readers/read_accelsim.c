/*
 * read_accelsim.c - an Accel-Sim trace folder (kernelslist.g or raw
 * kernelslist, one trace per launch; lib/traces) as a profile: one
 * invocation per kernel launch in list order with name, grid, block and
 * instruction counts, and no durations (a trace has no time: join it to a
 * time profile with --traces, or give the times with --metrics).  Memory
 * copies in the list are not kernels.
 */
#include "internal.h"
#include "trace.h"

#include <stdio.h>
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
    st = ks_trace_set_profile(s, out, err);
    ks_trace_set_free(s);
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
