/*
 * read_nsys_csv.c - Nsight Systems `nsys stats -f csv` reports:
 *   cuda_gpu_trace       (GPU activities sorted by start; memcpy/memset rows too)
 *   cuda_kern_exec_trace (kernels in launch order: the STEM artifact's ids)
 * Columns are found by header name, so every header version in FORMATS.md
 * (with or without GreenCtx, Throughput (MB/s) or (MBps)) reads the same.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FIELDS = 64, MAX_COLUMNS = 16 };

/* One report's columns. */
typedef struct report {
    const char *format;         /* source_format */
    const char *anchor;         /* the column that marks the header line */
    const char *const *required;
    const char *const *columns; /* every column the reader uses, by name */
    const ks_cell_kind *kinds;  /* what the fast path expects in each of them */
    int ncol;
    int dims_first, dims_last;  /* the launch shape: all these columns or none */
    ks_line_parser parse;
} report;

/* What a line parser needs; shared read-only by the threads that parse. */
typedef struct row_format {
    const report *report;
    const char *path;
    int nfields;          /* header's field count */
    int need;             /* fields a row must have */
    int device;           /* opt->device */
    bool keep_start;      /* opt->keep_start: else kern_exec checks start but keeps none */
    int col[MAX_COLUMNS]; /* field index of each column the reader uses; -1 if absent */
    ks_cell_kind kinds[MAX_FIELDS]; /* what the fast path expects in each field */
    bool fast;            /* try the fast path first */
} row_format;

/* The common row, from cells ks_csv_scan accepted.  *handled = false sends
 * the line the general way, which also reports every error: this path only
 * ever accepts or skips a row. */
typedef ks_status (*fast_row_fn)(const row_format *f, const ks_cell *cells, ks_rows *rows,
                                 bool *handled, ks_error *err);
/* Any row, split into fields: every check and every error. */
typedef ks_status (*slow_row_fn)(const row_format *f, char **fields, long number,
                                 ks_rows *rows, ks_error *err);

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
        return ks_csv_unclosed_quote(f->path, number, err);
    /* nsys writes every field of every row: a longer row has an unquoted
     * comma that shifted the cells, a shorter one was cut */
    if (n != f->nfields)
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number,
                            "row has %d fields, the header has %d%s", n, f->nfields,
                            n > f->nfields ? " (an unquoted comma in a name?)" : "");
    return KS_OK;
}

static ks_status bad_cell(const row_format *f, long number, int column, const char *value,
                          ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, f->path, number,
                        "column '%s': '%.40s' is not a valid value",
                        f->report->columns[column], value);
}

/* A data line: the fast path where it applies, else the general one.
 * Inlined into each report's ks_line_parser, so that the row functions are
 * direct calls and the fast one is inlined too: called through pointers, they
 * made reading a kern-exec export take 1 % more instructions. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline ks_status parse_line(const row_format *f, fast_row_fn fast_row,
                                   slow_row_fn slow_row, char *line, size_t len,
                                   bool truncated, long number, ks_rows *rows, ks_error *err)
{
    ks_cell cells[MAX_FIELDS];
    if (fast_candidate(f, line, len, truncated) &&
        ks_csv_scan(line, len, f->kinds, f->nfields, cells)) {
        bool handled;
        ks_status st = fast_row(f, cells, rows, &handled, err);
        if (handled)
            return st;
    }
    char *fields[MAX_FIELDS];
    bool skip;
    ks_status st = split_row(f, line, len, truncated, number, fields, &skip, err);
    if (st != KS_OK || skip)
        return st;
    return slow_row(f, fields, number, rows, err);
}

/* Finds the report's columns in its header and reads the rows into p. */
static ks_status read_report(ks_input *in, const ks_read_options *opt,
                             const ks_lines_options *lines, const report *r, ks_profile *p,
                             ks_error *err)
{
    char *header[MAX_FIELDS];
    row_format f = {.report = r, .path = ks_input_path(in), .device = opt->device,
                    .keep_start = opt->keep_start,
                    .fast = !(lines && lines->slow_only)};
    ks_status st = ks_csv_read_header(in, r->anchor, r->required, header, MAX_FIELDS,
                                      &f.nfields, err);
    if (st != KS_OK)
        return st;
    for (int i = 0; i < r->ncol; i++) {
        f.col[i] = ks_csv_find(header, f.nfields, r->columns[i]);
        if (f.col[i] + 1 > f.need)
            f.need = f.col[i] + 1;
    }
    /* grid and block are read only when all their columns are there */
    bool has_dims = true;
    for (int i = r->dims_first; i <= r->dims_last; i++)
        has_dims = has_dims && f.col[i] >= 0;
    for (int i = r->dims_first; i <= r->dims_last && !has_dims; i++)
        f.col[i] = -1;
    for (int i = 0; i < r->ncol; i++)
        if (f.col[i] >= 0)
            f.kinds[f.col[i]] = r->kinds[i];
    snprintf(p->source_format, sizeof p->source_format, "%s", r->format);
    return ks_read_lines(in, r->parse, &f, p, lines, err);
}

/* "NVIDIA H100 PCIe (0)" -> 0, "1" -> 1, "GPU" -> 0; false for a number
 * beyond 32 bits. */
static bool parse_device(const char *s, uint32_t *device)
{
    const char *open = strrchr(s, '(');
    const char *p = open ? open + 1 : s;
    while (*p == ' ')
        p++;
    *device = 0;
    if (!isdigit((unsigned char)*p))
        return true;
    errno = 0;
    unsigned long long v = strtoull(p, NULL, 10);
    if (errno == ERANGE || v > UINT32_MAX)
        return false;
    *device = (uint32_t)v;
    return true;
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
_Static_assert((int)G_NCOL <= (int)MAX_COLUMNS, "row_format.col holds every column");
static const char *const gpu_trace_columns[G_NCOL] = {
    "Start (ns)", "Duration (ns)", "Name", "CorrId", "Device", "Strm",
    "GrdX",       "GrdY",          "GrdZ", "BlkX",   "BlkY",   "BlkZ"};

/* parse_device on text that need not be NUL-terminated; false when the
 * number is too long to be sure it fits (parse_device then decides). */
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

static ks_status gpu_trace_fast(const row_format *f, const ks_cell *cells, ks_rows *rows,
                                bool *handled, ks_error *err)
{
    const int *col = f->col;
    *handled = true;
    size_t len = cells[col[G_NAME]].len;
    const char *name = ks_trim_n(cells[col[G_NAME]].text, &len);
    if (ks_is_memcpy_name(name, len))
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

static ks_status gpu_trace_row(const row_format *f, char **fields, long number, ks_rows *rows,
                               ks_error *err)
{
    const int *col = f->col;
    bool has_dims = col[G_GX] >= 0;
    const char *name = ks_trim(fields[col[G_NAME]]);
    size_t name_len = strlen(name);
    /* memory copies and sets are GPU activities, not kernels; they have
     * no grid and a bracketed name */
    if (ks_is_memcpy_name(name, name_len))
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
    if (col[G_DEVICE] >= 0 && !parse_device(fields[col[G_DEVICE]], &inv.device))
        return bad_cell(f, number, G_DEVICE, fields[col[G_DEVICE]], err);
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
    if (name_len == 0)
        return ks_error_set(err, KS_ERR_FORMAT, f->path, number, "empty kernel name");
    return ks_rows_add(rows, &inv, name, name_len, err);
}

static ks_status gpu_trace_line(const void *ctx, char *line, size_t len, bool truncated,
                                long number, ks_rows *rows, ks_error *err)
{
    return parse_line(ctx, gpu_trace_fast, gpu_trace_row, line, len, truncated, number, rows,
                      err);
}

static const char *const gpu_trace_required[] = {"Start (ns)", "Duration (ns)", "Name", NULL};
static const ks_cell_kind gpu_trace_kinds[G_NCOL] = {
    KS_CELL_INT, KS_CELL_INT, KS_CELL_TEXT, KS_CELL_INT, KS_CELL_TEXT, KS_CELL_INT,
    KS_CELL_INT, KS_CELL_INT, KS_CELL_INT,  KS_CELL_INT, KS_CELL_INT,  KS_CELL_INT};
static const report gpu_trace_report = {
    "nsys-gpu-trace-csv", "Duration (ns)", gpu_trace_required, gpu_trace_columns,
    gpu_trace_kinds,      G_NCOL,          G_GX,               G_BZ,
    gpu_trace_line,
};

ks_status ks_read_nsys_gpu_trace_csv(ks_input *in, const ks_read_options *opt,
                                     const ks_lines_options *lines, ks_profile *p,
                                     ks_error *err)
{
    ks_status st = read_report(in, opt, lines, &gpu_trace_report, p, err);
    if (st != KS_OK)
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
    .name = "nsys-gpu-trace-csv",
    .summary = "nsys stats -r cuda_gpu_trace -f csv (memcpy/memset rows skipped)",
    .detect = detect_gpu_trace,
    .read = read_gpu_trace,
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

/* GridXYZ and BlockXYZ come together or not at all (read_report), so
 * col[K_GRID] >= 0 says both are there. */
enum { K_DUR, K_NAME, K_START, K_DEVICE, K_GRID, K_BLOCK, K_NCOL };
_Static_assert((int)K_NCOL <= (int)MAX_COLUMNS, "row_format.col holds every column");
static const char *const kern_exec_columns[K_NCOL] = {
    "Kernel Dur (ns)", "Kernel Name", "Kernel Start (ns)", "DevId", "GridXYZ", "BlockXYZ"};

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
    /* the report lists launches in order: start times are checked (on the
     * general path) but only kept on request */
    if (f->keep_start && col[K_START] >= 0 && !cells[col[K_START]].missing)
        inv.start_ns = cells[col[K_START]].value;
    if (col[K_DEVICE] >= 0 && !cells[col[K_DEVICE]].missing) {
        if (cells[col[K_DEVICE]].value > UINT32_MAX)
            goto slow;
        inv.device = (uint32_t)cells[col[K_DEVICE]].value;
    }
    if (f->device >= 0 && inv.device != (uint32_t)f->device)
        return KS_OK;
    if (col[K_GRID] >= 0) {
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

static ks_status kern_exec_row(const row_format *f, char **fields, long number, ks_rows *rows,
                               ks_error *err)
{
    const int *col = f->col;
    ks_invocation inv;
    ks_invocation_init(&inv);
    bool missing;
    if (!ks_parse_i64(fields[col[K_DUR]], &inv.duration_ns, &missing) || missing ||
        inv.duration_ns < 0)
        return bad_cell(f, number, K_DUR, fields[col[K_DUR]], err);
    if (col[K_START] >= 0) {
        int64_t start;
        if (!ks_parse_i64(fields[col[K_START]], &start, &missing))
            return bad_cell(f, number, K_START, fields[col[K_START]], err);
        if (f->keep_start && !missing)
            inv.start_ns = start;
    }
    if (col[K_DEVICE] >= 0) {
        int64_t d = 0; /* stays 0 when the cell is empty or n/a */
        if (!ks_parse_i64(fields[col[K_DEVICE]], &d, &missing) || d < 0 || d > UINT32_MAX)
            return bad_cell(f, number, K_DEVICE, fields[col[K_DEVICE]], err);
        inv.device = missing ? 0 : (uint32_t)d;
    }
    if (f->device >= 0 && inv.device != (uint32_t)f->device)
        return KS_OK;
    uint32_t grid[3], block[3];
    if (col[K_GRID] >= 0) {
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

static ks_status kern_exec_line(const void *ctx, char *line, size_t len, bool truncated,
                                long number, ks_rows *rows, ks_error *err)
{
    return parse_line(ctx, kern_exec_fast, kern_exec_row, line, len, truncated, number, rows,
                      err);
}

static const char *const kern_exec_required[] = {"Kernel Dur (ns)", "Kernel Name", NULL};
static const ks_cell_kind kern_exec_kinds[K_NCOL] = {KS_CELL_INT, KS_CELL_TEXT, KS_CELL_INT,
                                                     KS_CELL_INT, KS_CELL_DIM3, KS_CELL_DIM3};
static const report kern_exec_report = {
    "nsys-kern-exec-csv", "Kernel Dur (ns)", kern_exec_required, kern_exec_columns,
    kern_exec_kinds,      K_NCOL,            K_GRID,             K_BLOCK,
    kern_exec_line,
};

ks_status ks_read_nsys_kern_exec_csv(ks_input *in, const ks_read_options *opt,
                                     const ks_lines_options *lines, ks_profile *p,
                                     ks_error *err)
{
    /* rows are already in launch order (API call order): keep it */
    return read_report(in, opt, lines, &kern_exec_report, p, err);
}

static ks_status read_kern_exec(ks_input *in, const ks_read_options *opt, ks_profile *p,
                                ks_error *err)
{
    return ks_read_nsys_kern_exec_csv(in, opt, NULL, p, err);
}

const ks_reader ks_reader_nsys_kern_exec_csv = {
    .name = "nsys-kern-exec-csv",
    .summary = "nsys stats -r cuda_kern_exec_trace -f csv (launch order)",
    .detect = detect_kern_exec,
    .read = read_kern_exec,
};
