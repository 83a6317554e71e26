/*
 * read_nsys_csv.c - Nsight Systems `nsys stats -f csv` reports:
 *   cuda_gpu_trace       (GPU activities sorted by start; memcpy/memset rows too)
 *   cuda_kern_exec_trace (kernels in launch order: the STEM artifact's ids)
 * Columns are found by header name, so every header version in FORMATS.md
 * (with or without GreenCtx, Throughput (MB/s) or (MBps)) reads the same.
 */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FIELDS = 64 };

typedef struct row_reader {
    ks_input *in;
    const char *path;
    int nfields; /* header's field count */
    char *fields[MAX_FIELDS];
} row_reader;

/* Next data row split into r->fields; *done at end.  Blank lines are skipped;
 * a final line without a newline means the export was cut short. */
static ks_status next_row(row_reader *r, int need, bool *done, ks_error *err)
{
    for (;;) {
        char *line;
        size_t len;
        bool truncated;
        ks_status st = ks_input_getline(r->in, &line, &len, &truncated, err);
        if (st != KS_OK)
            return st;
        *done = line == NULL;
        if (*done)
            return KS_OK;
        long ln = ks_input_line_number(r->in);
        if (len == 0 || strspn(line, " \t") == len)
            continue;
        if (truncated)
            return ks_error_set(err, KS_ERR_FORMAT, r->path, ln,
                                "truncated last line (no newline at end of file)");
        int n = ks_csv_split(line, len, r->fields, MAX_FIELDS);
        if (n < 0)
            return ks_error_set(err, KS_ERR_FORMAT, r->path, ln, "unterminated quoted field");
        if (n < need)
            return ks_error_set(err, KS_ERR_FORMAT, r->path, ln,
                                "row has %d fields, the header has %d", n, r->nfields);
        return KS_OK;
    }
}

static ks_status bad_cell(row_reader *r, const char *column, const char *value, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, r->path, ks_input_line_number(r->in),
                        "column '%s': '%.40s' is not a valid value", column, value);
}

/* "NVIDIA H100 PCIe (0)" -> 0, "1" -> 1, "GPU" -> 0 */
static uint32_t parse_device(const char *s)
{
    const char *open = strrchr(s, '(');
    const char *p = open ? open + 1 : s;
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return 0;
    return (uint32_t)strtoul(p, NULL, 10);
}

static int max_index(const int *cols, int n)
{
    int m = -1;
    for (int i = 0; i < n; i++)
        if (cols[i] > m)
            m = cols[i];
    return m;
}

/* ------------------------------------------------------ cuda_gpu_trace */

static int detect_gpu_trace(const char *head, size_t len, const char *path)
{
    (void)path;
    (void)len;
    /* partial matches still win, so a missing column is reported by name */
    if (!strstr(head, "Duration (ns)") || !strstr(head, "Start (ns)"))
        return 0;
    return strstr(head, "GrdX") && strstr(head, "Name") ? 90 : 50;
}

static ks_status read_gpu_trace(ks_input *in, const ks_read_options *opt, ks_profile *p,
                                ks_error *err)
{
    static const char *const required[] = {"Start (ns)", "Duration (ns)", "Name", NULL};
    row_reader r = {.in = in, .path = ks_input_path(in)};
    ks_status st = ks_csv_read_header(in, "Duration (ns)", required, r.fields, MAX_FIELDS,
                                      &r.nfields, err);
    if (st != KS_OK)
        return st;
    enum { START, DUR, NAME, CORR, DEVICE, STREAM, GX, GY, GZ, BX, BY, BZ, NCOL };
    static const char *const names[NCOL] = {"Start (ns)", "Duration (ns)", "Name", "CorrId",
                                            "Device", "Strm", "GrdX", "GrdY", "GrdZ",
                                            "BlkX", "BlkY", "BlkZ"};
    int col[NCOL];
    for (int i = 0; i < NCOL; i++)
        col[i] = ks_csv_find(r.fields, r.nfields, names[i]);
    bool has_dims = col[GX] >= 0 && col[GY] >= 0 && col[GZ] >= 0 && col[BX] >= 0 &&
                    col[BY] >= 0 && col[BZ] >= 0;
    int need = max_index(col, NCOL) + 1;
    snprintf(p->source_format, sizeof p->source_format, "nsys-gpu-trace-csv");

    for (;;) {
        bool done;
        if ((st = next_row(&r, need, &done, err)) != KS_OK)
            return st;
        if (done)
            break;
        const char *name = ks_trim(r.fields[col[NAME]]);
        /* memory copies and sets are GPU activities, not kernels; they have
         * no grid and a bracketed name */
        if (ks_is_memcpy_name(name))
            continue;
        if (has_dims && *ks_trim(r.fields[col[GX]]) == '\0')
            continue;
        ks_invocation inv;
        ks_invocation_init(&inv);
        bool missing;
        if (!ks_parse_i64(r.fields[col[DUR]], &inv.duration_ns, &missing) || missing ||
            inv.duration_ns < 0)
            return bad_cell(&r, names[DUR], r.fields[col[DUR]], err);
        if (!ks_parse_i64(r.fields[col[START]], &inv.start_ns, &missing))
            return bad_cell(&r, names[START], r.fields[col[START]], err);
        if (missing)
            inv.start_ns = KS_MISSING_I64;
        if (col[CORR] >= 0) {
            int64_t c;
            if (!ks_parse_i64(r.fields[col[CORR]], &c, &missing))
                return bad_cell(&r, names[CORR], r.fields[col[CORR]], err);
            if (!missing)
                inv.correlation = c;
        }
        if (col[DEVICE] >= 0)
            inv.device = parse_device(r.fields[col[DEVICE]]);
        if (opt->device >= 0 && inv.device != (uint32_t)opt->device)
            continue;
        if (col[STREAM] >= 0) {
            int64_t s;
            if (ks_parse_i64(r.fields[col[STREAM]], &s, &missing) && !missing && s >= 0)
                inv.stream = (uint32_t)s;
        }
        uint32_t grid[3], block[3];
        if (has_dims) {
            int64_t v[6];
            for (int k = 0; k < 6; k++) {
                int c = col[GX + k];
                if (!ks_parse_i64(r.fields[c], &v[k], &missing) || missing || v[k] < 0 ||
                    v[k] > UINT32_MAX)
                    return bad_cell(&r, names[GX + k], r.fields[c], err);
            }
            for (int k = 0; k < 3; k++) {
                grid[k] = (uint32_t)v[k];
                block[k] = (uint32_t)v[3 + k];
            }
            inv.grid = grid;
            inv.block = block;
        }
        if (*name == '\0')
            return ks_error_set(err, KS_ERR_FORMAT, r.path, ks_input_line_number(in),
                                "empty kernel name");
        if ((st = ks_profile_intern(p, name, strlen(name), &inv.name_id, err)) != KS_OK ||
            (st = ks_profile_append(p, &inv, err)) != KS_OK)
            return st;
    }
    /* The report is sorted by GPU start time, which is launch order on one
     * stream; across streams start order is the closest the report offers. */
    return ks_profile_sort_by_start(p, err);
}

const ks_reader ks_reader_nsys_gpu_trace_csv = {
    "nsys-gpu-trace-csv",
    "nsys stats -r cuda_gpu_trace -f csv (memcpy/memset rows skipped)",
    detect_gpu_trace,
    read_gpu_trace,
};

/* ------------------------------------------------- cuda_kern_exec_trace */

static int detect_kern_exec(const char *head, size_t len, const char *path)
{
    (void)path;
    (void)len;
    if (!strstr(head, "Kernel Dur (ns)"))
        return 0;
    return strstr(head, "Kernel Name") ? 90 : 60;
}

static ks_status read_kern_exec(ks_input *in, const ks_read_options *opt, ks_profile *p,
                                ks_error *err)
{
    static const char *const required[] = {"Kernel Dur (ns)", "Kernel Name", NULL};
    row_reader r = {.in = in, .path = ks_input_path(in)};
    ks_status st = ks_csv_read_header(in, "Kernel Dur (ns)", required, r.fields, MAX_FIELDS,
                                      &r.nfields, err);
    if (st != KS_OK)
        return st;
    enum { DUR, NAME, START, DEVICE, GRID, BLOCK, NCOL };
    static const char *const names[NCOL] = {"Kernel Dur (ns)", "Kernel Name",
                                            "Kernel Start (ns)", "DevId", "GridXYZ",
                                            "BlockXYZ"};
    int col[NCOL];
    for (int i = 0; i < NCOL; i++)
        col[i] = ks_csv_find(r.fields, r.nfields, names[i]);
    int need = max_index(col, NCOL) + 1;
    snprintf(p->source_format, sizeof p->source_format, "nsys-kern-exec-csv");

    for (;;) {
        bool done;
        if ((st = next_row(&r, need, &done, err)) != KS_OK)
            return st;
        if (done)
            break;
        ks_invocation inv;
        ks_invocation_init(&inv);
        bool missing;
        if (!ks_parse_i64(r.fields[col[DUR]], &inv.duration_ns, &missing) || missing ||
            inv.duration_ns < 0)
            return bad_cell(&r, names[DUR], r.fields[col[DUR]], err);
        if (col[START] >= 0) {
            if (!ks_parse_i64(r.fields[col[START]], &inv.start_ns, &missing))
                return bad_cell(&r, names[START], r.fields[col[START]], err);
            if (missing)
                inv.start_ns = KS_MISSING_I64;
        }
        if (col[DEVICE] >= 0) {
            int64_t d;
            if (!ks_parse_i64(r.fields[col[DEVICE]], &d, &missing) || d < 0)
                return bad_cell(&r, names[DEVICE], r.fields[col[DEVICE]], err);
            inv.device = missing ? 0 : (uint32_t)d;
        }
        if (opt->device >= 0 && inv.device != (uint32_t)opt->device)
            continue;
        uint32_t grid[3], block[3];
        if (col[GRID] >= 0 && col[BLOCK] >= 0) {
            if (!ks_parse_dim3(r.fields[col[GRID]], grid))
                return bad_cell(&r, names[GRID], r.fields[col[GRID]], err);
            if (!ks_parse_dim3(r.fields[col[BLOCK]], block))
                return bad_cell(&r, names[BLOCK], r.fields[col[BLOCK]], err);
            inv.grid = grid;
            inv.block = block;
        }
        const char *name = ks_trim(r.fields[col[NAME]]);
        if (*name == '\0')
            return ks_error_set(err, KS_ERR_FORMAT, r.path, ks_input_line_number(in),
                                "empty kernel name");
        if ((st = ks_profile_intern(p, name, strlen(name), &inv.name_id, err)) != KS_OK ||
            (st = ks_profile_append(p, &inv, err)) != KS_OK)
            return st;
    }
    /* rows are already in launch order (API call order): keep it */
    return KS_OK;
}

const ks_reader ks_reader_nsys_kern_exec_csv = {
    "nsys-kern-exec-csv",
    "nsys stats -r cuda_kern_exec_trace -f csv (launch order)",
    detect_kern_exec,
    read_kern_exec,
};
