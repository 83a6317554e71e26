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

/* What a line parser needs; shared read-only by the threads that parse. */
typedef struct row_format {
    const char *path;
    int nfields;          /* header's field count */
    int need;             /* fields a row must have */
    int device;           /* opt->device */
    int col[16];          /* field index of each column the reader uses; -1 if absent */
    const char *const *names; /* column names, for messages */
    ks_cell_kind kinds[MAX_FIELDS]; /* what the fast path expects in each field */
    bool fast;            /* try the fast path first */
} row_format;

/* Whether the fast path may look at this line: not blank, not the cut-short
 * last line (those go the general way, which reports them). */
static bool fast_candidate(const row_format *f, const char *line, size_t len, bool truncated)
{
    return f->fast && len > 0 && !truncated && line[0] != ' ' && line[0] != '\t';
}

/* Splits a data line into fields; *skip for a blank line.  A final line
 * without a newline means the export was cut short. */
static ks_status split_row(const row_format *f, char *line, size_t len, bool truncated,
                           long number, char **fields, bool *skip, ks_error *err)
{
    *skip = len == 0 || strspn(line, " \t") == len;
    if (*skip)
        return KS_OK;
    if (truncated)
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number,
                            "truncated last line (no newline at end of file)");
    int n = ks_csv_split(line, len, fields, MAX_FIELDS);
    if (n < 0)
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number, "unterminated quoted field");
    if (n < f->need)
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number,
                            "row has %d fields, the header has %d", n, f->nfields);
    return KS_OK;
}

static ks_status bad_cell(const row_format *f, long number, int column, const char *value,
                          ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, f->path, number,
                        "column '%s': '%.40s' is not a valid value", f->names[column], value);
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

enum { G_START, G_DUR, G_NAME, G_CORR, G_DEVICE, G_STREAM, G_GX, G_GY, G_GZ, G_BX, G_BY,
       G_BZ, G_NCOL };
static const char *const gpu_trace_columns[G_NCOL] = {
    "Start (ns)", "Duration (ns)", "Name", "CorrId", "Device", "Strm",
    "GrdX",       "GrdY",          "GrdZ", "BlkX",   "BlkY",   "BlkZ"};

/* ks_is_memcpy_name on text that need not be NUL-terminated (trimmed). */
static bool is_memcpy_name_n(const char *s, size_t n)
{
    return (n >= 9 && memcmp(s, "[CUDA mem", 9) == 0) ||
           (n >= 20 && memcmp(s, "[CUDA Unified Memory", 20) == 0);
}

/* parse_device on text that need not be NUL-terminated; false when the
 * number is too long to be sure of strtoul's result. */
static bool parse_device_n(const char *s, size_t n, uint32_t *device)
{
    const char *p = s, *end = s + n;
    for (const char *q = end; q > s; q--)
        if (q[-1] == '(') {
            p = q;
            break;
        }
    while (p < end && *p == ' ')
        p++;
    uint32_t v = 0;
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (++digits > 9)
            return false;
        v = v * 10 + (uint32_t)(*p++ - '0');
    }
    *device = v; /* no digit: 0, as parse_device */
    return true;
}

/* The common row, from cells ks_csv_scan accepted.  *handled = false sends
 * the line the slow way, which also reports every error: this path only
 * ever accepts or skips a row. */
static ks_status gpu_trace_fast(const row_format *f, const ks_cell *cells, ks_rows *rows,
                                bool *handled, ks_error *err)
{
    const int *col = f->col;
    *handled = true;
    size_t len = cells[col[G_NAME]].len;
    const char *name = ks_trim_n(cells[col[G_NAME]].text, &len);
    if (is_memcpy_name_n(name, len))
        return KS_OK;
    bool has_dims = col[G_GX] >= 0;
    if (has_dims && cells[col[G_GX]].missing)
        return KS_OK;
    ks_invocation inv;
    ks_invocation_init(&inv);
    const ks_cell *dur = &cells[col[G_DUR]], *start = &cells[col[G_START]];
    if (dur->missing)
        goto slow;
    inv.duration_ns = dur->value;
    if (!start->missing)
        inv.start_ns = start->value;
    if (col[G_CORR] >= 0 && !cells[col[G_CORR]].missing)
        inv.correlation = cells[col[G_CORR]].value;
    if (col[G_DEVICE] >= 0 &&
        !parse_device_n(cells[col[G_DEVICE]].text, cells[col[G_DEVICE]].len, &inv.device))
        goto slow;
    if (f->device >= 0 && inv.device != (uint32_t)f->device)
        return KS_OK;
    if (col[G_STREAM] >= 0 && !cells[col[G_STREAM]].missing)
        inv.stream = (uint32_t)cells[col[G_STREAM]].value;
    uint32_t dims[6];
    if (has_dims) {
        for (int k = 0; k < 6; k++) {
            const ks_cell *c = &cells[col[G_GX + k]];
            if (c->missing || c->value > UINT32_MAX)
                goto slow;
            dims[k] = (uint32_t)c->value;
        }
        inv.grid = dims;
        inv.block = dims + 3;
    }
    if (len == 0)
        goto slow;
    return ks_rows_add(rows, &inv, name, len, err);
slow:
    *handled = false;
    return KS_OK;
}

static ks_status gpu_trace_line(const void *ctx, char *line, size_t len, bool truncated,
                                long number, ks_rows *rows, ks_error *err)
{
    const row_format *f = ctx;
    const int *col = f->col;
    ks_cell cells[MAX_FIELDS];
    if (fast_candidate(f, line, len, truncated) &&
        ks_csv_scan(line, len, f->kinds, f->need, cells)) {
        bool handled;
        ks_status st = gpu_trace_fast(f, cells, rows, &handled, err);
        if (handled)
            return st;
    }
    char *fields[MAX_FIELDS];
    bool skip;
    ks_status st = split_row(f, line, len, truncated, number, fields, &skip, err);
    if (st != KS_OK || skip)
        return st;
    bool has_dims = col[G_GX] >= 0;
    const char *name = ks_trim(fields[col[G_NAME]]);
    /* memory copies and sets are GPU activities, not kernels; they have
     * no grid and a bracketed name */
    if (ks_is_memcpy_name(name))
        return KS_OK;
    if (has_dims && *ks_trim(fields[col[G_GX]]) == '\0')
        return KS_OK;
    ks_invocation inv;
    ks_invocation_init(&inv);
    bool missing;
    if (!ks_parse_i64(fields[col[G_DUR]], &inv.duration_ns, &missing) || missing ||
        inv.duration_ns < 0)
        return bad_cell(f, number, G_DUR, fields[col[G_DUR]], err);
    if (!ks_parse_i64(fields[col[G_START]], &inv.start_ns, &missing))
        return bad_cell(f, number, G_START, fields[col[G_START]], err);
    if (missing)
        inv.start_ns = KS_MISSING_I64;
    if (col[G_CORR] >= 0) {
        int64_t c;
        if (!ks_parse_i64(fields[col[G_CORR]], &c, &missing))
            return bad_cell(f, number, G_CORR, fields[col[G_CORR]], err);
        if (!missing)
            inv.correlation = c;
    }
    if (col[G_DEVICE] >= 0)
        inv.device = parse_device(fields[col[G_DEVICE]]);
    if (f->device >= 0 && inv.device != (uint32_t)f->device)
        return KS_OK;
    if (col[G_STREAM] >= 0) {
        int64_t s;
        if (ks_parse_i64(fields[col[G_STREAM]], &s, &missing) && !missing && s >= 0)
            inv.stream = (uint32_t)s;
    }
    uint32_t grid[3], block[3];
    if (has_dims) {
        int64_t v[6];
        for (int k = 0; k < 6; k++) {
            int c = col[G_GX + k];
            if (!ks_parse_i64(fields[c], &v[k], &missing) || missing || v[k] < 0 ||
                v[k] > UINT32_MAX)
                return bad_cell(f, number, G_GX + k, fields[c], err);
        }
        for (int k = 0; k < 3; k++) {
            grid[k] = (uint32_t)v[k];
            block[k] = (uint32_t)v[3 + k];
        }
        inv.grid = grid;
        inv.block = block;
    }
    if (*name == '\0')
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number, "empty kernel name");
    return ks_rows_add(rows, &inv, name, strlen(name), err);
}

ks_status ks_read_nsys_gpu_trace_csv(ks_input *in, const ks_read_options *opt,
                                     const ks_lines_options *lines, ks_profile *p,
                                     ks_error *err)
{
    static const char *const required[] = {"Start (ns)", "Duration (ns)", "Name", NULL};
    char *header[MAX_FIELDS];
    row_format f = {.path = ks_input_path(in), .device = opt->device,
                    .names = gpu_trace_columns, .fast = !(lines && lines->slow_only)};
    ks_status st = ks_csv_read_header(in, "Duration (ns)", required, header, MAX_FIELDS,
                                      &f.nfields, err);
    if (st != KS_OK)
        return st;
    for (int i = 0; i < G_NCOL; i++)
        f.col[i] = ks_csv_find(header, f.nfields, gpu_trace_columns[i]);
    f.need = max_index(f.col, G_NCOL) + 1;
    /* grid and block are read only when all six columns are there */
    bool has_dims = true;
    for (int i = G_GX; i <= G_BZ; i++)
        has_dims = has_dims && f.col[i] >= 0;
    if (!has_dims)
        f.col[G_GX] = -1;
    static const ks_cell_kind kind[G_NCOL] = {
        KS_CELL_INT, KS_CELL_INT, KS_CELL_TEXT, KS_CELL_INT, KS_CELL_TEXT, KS_CELL_INT,
        KS_CELL_INT, KS_CELL_INT, KS_CELL_INT,  KS_CELL_INT, KS_CELL_INT,  KS_CELL_INT};
    for (int i = 0; i < G_NCOL; i++)
        if (f.col[i] >= 0 && (has_dims || i < G_GX))
            f.kinds[f.col[i]] = kind[i];
    snprintf(p->source_format, sizeof p->source_format, "nsys-gpu-trace-csv");
    if ((st = ks_read_lines(in, gpu_trace_line, &f, p, lines, err)) != KS_OK)
        return st;
    /* The report is sorted by GPU start time, which is launch order on one
     * stream; across streams start order is the closest the report offers. */
    return ks_profile_sort_by_start(p, err);
}

static ks_status read_gpu_trace(ks_input *in, const ks_read_options *opt, ks_profile *p,
                                ks_error *err)
{
    return ks_read_nsys_gpu_trace_csv(in, opt, NULL, p, err);
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

enum { K_DUR, K_NAME, K_START, K_DEVICE, K_GRID, K_BLOCK, K_NCOL };
static const char *const kern_exec_columns[K_NCOL] = {
    "Kernel Dur (ns)", "Kernel Name", "Kernel Start (ns)", "DevId", "GridXYZ", "BlockXYZ"};

/* The common row, from cells ks_csv_scan accepted; as gpu_trace_fast. */
static ks_status kern_exec_fast(const row_format *f, const ks_cell *cells, ks_rows *rows,
                                bool *handled, ks_error *err)
{
    const int *col = f->col;
    *handled = true;
    ks_invocation inv;
    ks_invocation_init(&inv);
    const ks_cell *dur = &cells[col[K_DUR]];
    if (dur->missing)
        goto slow;
    inv.duration_ns = dur->value;
    if (col[K_START] >= 0 && !cells[col[K_START]].missing)
        inv.start_ns = cells[col[K_START]].value;
    if (col[K_DEVICE] >= 0 && !cells[col[K_DEVICE]].missing)
        inv.device = (uint32_t)cells[col[K_DEVICE]].value;
    if (f->device >= 0 && inv.device != (uint32_t)f->device)
        return KS_OK;
    if (col[K_GRID] >= 0 && col[K_BLOCK] >= 0) {
        inv.grid = cells[col[K_GRID]].dim;
        inv.block = cells[col[K_BLOCK]].dim;
    }
    size_t len = cells[col[K_NAME]].len;
    const char *name = ks_trim_n(cells[col[K_NAME]].text, &len);
    if (len == 0)
        goto slow;
    return ks_rows_add(rows, &inv, name, len, err);
slow:
    *handled = false;
    return KS_OK;
}

static ks_status kern_exec_line(const void *ctx, char *line, size_t len, bool truncated,
                                long number, ks_rows *rows, ks_error *err)
{
    const row_format *f = ctx;
    const int *col = f->col;
    ks_cell cells[MAX_FIELDS];
    if (fast_candidate(f, line, len, truncated) &&
        ks_csv_scan(line, len, f->kinds, f->need, cells)) {
        bool handled;
        ks_status st = kern_exec_fast(f, cells, rows, &handled, err);
        if (handled)
            return st;
    }
    char *fields[MAX_FIELDS];
    bool skip;
    ks_status st = split_row(f, line, len, truncated, number, fields, &skip, err);
    if (st != KS_OK || skip)
        return st;
    ks_invocation inv;
    ks_invocation_init(&inv);
    bool missing;
    if (!ks_parse_i64(fields[col[K_DUR]], &inv.duration_ns, &missing) || missing ||
        inv.duration_ns < 0)
        return bad_cell(f, number, K_DUR, fields[col[K_DUR]], err);
    if (col[K_START] >= 0) {
        if (!ks_parse_i64(fields[col[K_START]], &inv.start_ns, &missing))
            return bad_cell(f, number, K_START, fields[col[K_START]], err);
        if (missing)
            inv.start_ns = KS_MISSING_I64;
    }
    if (col[K_DEVICE] >= 0) {
        int64_t d = 0; /* stays 0 when the cell is empty or n/a */
        if (!ks_parse_i64(fields[col[K_DEVICE]], &d, &missing) || d < 0)
            return bad_cell(f, number, K_DEVICE, fields[col[K_DEVICE]], err);
        inv.device = missing ? 0 : (uint32_t)d;
    }
    if (f->device >= 0 && inv.device != (uint32_t)f->device)
        return KS_OK;
    uint32_t grid[3], block[3];
    if (col[K_GRID] >= 0 && col[K_BLOCK] >= 0) {
        if (!ks_parse_dim3(fields[col[K_GRID]], grid))
            return bad_cell(f, number, K_GRID, fields[col[K_GRID]], err);
        if (!ks_parse_dim3(fields[col[K_BLOCK]], block))
            return bad_cell(f, number, K_BLOCK, fields[col[K_BLOCK]], err);
        inv.grid = grid;
        inv.block = block;
    }
    const char *name = ks_trim(fields[col[K_NAME]]);
    if (*name == '\0')
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number, "empty kernel name");
    return ks_rows_add(rows, &inv, name, strlen(name), err);
}

ks_status ks_read_nsys_kern_exec_csv(ks_input *in, const ks_read_options *opt,
                                     const ks_lines_options *lines, ks_profile *p,
                                     ks_error *err)
{
    static const char *const required[] = {"Kernel Dur (ns)", "Kernel Name", NULL};
    char *header[MAX_FIELDS];
    row_format f = {.path = ks_input_path(in), .device = opt->device,
                    .names = kern_exec_columns, .fast = !(lines && lines->slow_only)};
    ks_status st = ks_csv_read_header(in, "Kernel Dur (ns)", required, header, MAX_FIELDS,
                                      &f.nfields, err);
    if (st != KS_OK)
        return st;
    for (int i = 0; i < K_NCOL; i++)
        f.col[i] = ks_csv_find(header, f.nfields, kern_exec_columns[i]);
    f.need = max_index(f.col, K_NCOL) + 1;
    static const ks_cell_kind kind[K_NCOL] = {KS_CELL_INT, KS_CELL_TEXT, KS_CELL_INT,
                                              KS_CELL_INT, KS_CELL_DIM3, KS_CELL_DIM3};
    bool has_dims = f.col[K_GRID] >= 0 && f.col[K_BLOCK] >= 0;
    for (int i = 0; i < K_NCOL; i++)
        if (f.col[i] >= 0 && (has_dims || (i != K_GRID && i != K_BLOCK)))
            f.kinds[f.col[i]] = kind[i];
    snprintf(p->source_format, sizeof p->source_format, "nsys-kern-exec-csv");
    /* rows are already in launch order (API call order): keep it */
    return ks_read_lines(in, kern_exec_line, &f, p, lines, err);
}

static ks_status read_kern_exec(ks_input *in, const ks_read_options *opt, ks_profile *p,
                                ks_error *err)
{
    return ks_read_nsys_kern_exec_csv(in, opt, NULL, p, err);
}

const ks_reader ks_reader_nsys_kern_exec_csv = {
    "nsys-kern-exec-csv",
    "nsys stats -r cuda_kern_exec_trace -f csv (launch order)",
    detect_kern_exec,
    read_kern_exec,
};
