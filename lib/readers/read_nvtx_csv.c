/*
 * read_nvtx_csv.c - NVTX ranges from an Nsight Systems CSV report, for a
 * profile read from the same report (nsys stats's cuda_gpu_trace CSV or its
 * SQLite export): `nsys stats --report nvtx_gpu_proj_trace --format csv`
 * projects each NVTX range onto the GPU (Name, Projected Start (ns),
 * Projected Duration (ns)), on the clock of the kernels' starts, so a range
 * holds the kernels that started inside it (lib/core/region.c).  A report
 * of CPU-side ranges (nvtx_pushpop_trace, nvtx_startend_trace) is refused:
 * its ranges hold the launch calls, which a CSV kernel trace does not give.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static ks_status bad(const char *path, long line, const char *column, const char *cell,
                     ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, path, line,
                        "column \"%s\": '%.60s' is not a non-negative whole number of ns",
                        column, cell);
}

ks_status ks_profile_read_ranges(ks_profile *p, ks_input *in, ks_error *err)
{
    const char *path = ks_input_path(in);
    static const char *const required[] = {"Name", NULL};
    char **fields = NULL;
    int nfields, cap = 0;
    ks_status st = ks_csv_read_header_grow(in, "Name", required, &fields, &cap, &nfields, err);
    if (st != KS_OK) {
        free(fields);
        return st;
    }
    int c_name = ks_csv_find(fields, nfields, "Name");
    int c_start = ks_csv_find(fields, nfields, "Projected Start (ns)");
    int c_dur = ks_csv_find(fields, nfields, "Projected Duration (ns)");
    if (c_start < 0 || c_dur < 0) {
        bool cpu = ks_csv_find(fields, nfields, "Start (ns)") >= 0;
        free(fields);
        return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                            "%s: expected nsys's nvtx_gpu_proj_trace report (columns "
                            "\"Projected Start (ns)\" and \"Projected Duration (ns)\": ranges on "
                            "the GPU's clock)%s",
                            cpu ? "ranges on the CPU's clock" : "not an NVTX range report",
                            cpu ? "; this report's ranges hold launch calls, which a kernel "
                                  "trace CSV does not give: export nvtx_gpu_proj_trace, or read "
                                  "the SQLite export, whose NVTX_EVENTS ksample reads itself"
                                : "");
    }
    if (!p->start_ns) {
        free(fields);
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "NVTX ranges are matched to kernels by start time, and the profile "
                            "(format %s) has none",
                            p->source_format);
    }
    int need = c_name > c_start ? c_name : c_start;
    need = (need > c_dur ? need : c_dur) + 1;
    size_t before = p->range_count;
    for (;;) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK)
            break;
        if (!line)
            break;
        long ln = ks_input_line_number(in);
        if (len == 0)
            continue;
        int n = ks_csv_split(line, len, fields, cap);
        if (n < 0) {
            st = ks_csv_unclosed_quote(path, ln, err);
            break;
        }
        if (!ks_csv_fill_short_row(fields, n, nfields, need, line + len)) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ln, "row has %d fields, the header has %d",
                              n, nfields);
            break;
        }
        int64_t start, dur;
        bool m1, m2;
        if (!ks_parse_i64(fields[c_start], &start, &m1) || start < 0) {
            st = bad(path, ln, "Projected Start (ns)", fields[c_start], err);
            break;
        }
        if (!ks_parse_i64(fields[c_dur], &dur, &m2) || dur < 0) {
            st = bad(path, ln, "Projected Duration (ns)", fields[c_dur], err);
            break;
        }
        if (m1 || m2) /* a range that ran no GPU work has no projection */
            continue;
        if (start > INT64_MAX - dur) {
            st = bad(path, ln, "Projected Duration (ns)", fields[c_dur], err);
            break;
        }
        const char *name = ks_trim(fields[c_name]);
        if (!*name)
            continue;
        st = ks_profile_add_range(p, name, strlen(name), KS_RANGE_NVTX, true, start, start + dur,
                                  err);
        if (st != KS_OK)
            break;
    }
    free(fields);
    if (st == KS_OK && p->range_count == before)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "no NVTX range with a GPU projection in the report");
    if (st == KS_OK)
        st = ks_profile_resolve_ranges(p, err);
    size_t holding = 0;
    for (size_t r = before; st == KS_OK && r < p->range_count; r++)
        holding += p->ranges[r].count > 0;
    if (st == KS_OK && !holding)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          "none of its %zu NVTX ranges holds a kernel of %s by start time: a "
                          "report of another run, or times on another clock (it must come "
                          "from the same nsys report as the profile)",
                          p->range_count - before,
                          p->source_path[0] ? p->source_path : "the profile");
    return st;
}

ks_status ks_profile_attach_ranges(ks_profile *p, const char *path, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    st = ks_profile_read_ranges(p, in, err);
    ks_input_close(in);
    return st;
}
