/*
 * read_plain_csv.c - the simplest input: a CSV whose header names the columns
 * name, duration_ns and optionally id, start_ns, grid, block (grid/block as
 * "x y z", "(x, y, z)" or a single x).  For profiles made by hand or by other
 * tools; also the format ksample itself can round-trip.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The whole header line counts, however many columns it has, and a CRLF
 * file's "\r" is no part of its last column name. */
static int detect_plain(const char *head, size_t len, const char *path)
{
    (void)path;
    const char *nl = memchr(head, '\n', len);
    size_t n = nl ? (size_t)(nl - head) : len;
    if (n > 0 && head[n - 1] == '\r')
        n--;
    char *line = malloc(n + 1);
    char **fields = NULL;
    int cap = 0, count = 0, score = 0;
    if (!line)
        return 0;
    memcpy(line, head, n);
    line[n] = '\0';
    ks_error ignored;
    if (ks_csv_split_grow(line, n, &fields, &cap, &count, NULL, 1, &ignored) == KS_OK &&
        count >= 2 && ks_csv_find(fields, count, "duration_ns") >= 0)
        score = ks_csv_find(fields, count, "name") >= 0 ? 80 : 40;
    free(fields);
    free(line);
    return score;
}

/* A cell that does not hold what its column must: "column 'NAME': 'cell'
 * is WHAT" at line ln. */
static ks_status bad_cell(const char *path, long ln, const char *column, const char *cell,
                          const char *what, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, path, ln, "column '%s': '%.40s' is %s", column, cell,
                        what);
}

static ks_status read_plain(ks_input *in, const ks_read_options *opt, ks_profile *p,
                            ks_error *err)
{
    const char *path = ks_input_path(in);
    /* the format has no device column: keeping every row under --device N
     * would silently mix GPUs */
    if (opt->device >= 0)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "--device: a plain CSV profile has no device column");
    static const char *const required[] = {"name", "duration_ns", NULL};
    char **fields = NULL;
    int nfields, fields_cap = 0;
    int64_t *ids = NULL;
    ks_status st = ks_csv_read_header_grow(in, "duration_ns", required, &fields, &fields_cap,
                                           &nfields, err);
    if (st != KS_OK)
        goto fail;
    int c_name = ks_csv_find(fields, nfields, "name");
    int c_dur = ks_csv_find(fields, nfields, "duration_ns");
    int c_id = ks_csv_find(fields, nfields, "id");
    int c_start = ks_csv_find(fields, nfields, "start_ns");
    int c_grid = ks_csv_find(fields, nfields, "grid");
    int c_block = ks_csv_find(fields, nfields, "block");
    int need = 0;
    int cols[] = {c_name, c_dur, c_id, c_start, c_grid, c_block};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if (cols[i] + 1 > need)
            need = cols[i] + 1;
    snprintf(p->source_format, sizeof p->source_format, "plain-csv");

    size_t ids_cap = 0;
    bool ids_in_order = true;
    for (;;) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK)
            goto fail;
        if (!line)
            break;
        long ln = ks_input_line_number(in);
        if (len == 0)
            continue;
        /* the one ragged-row rule (ks_csv_fill_short_row): a row may stop
         * after the last column read, never run longer than the header */
        int n = ks_csv_split(line, len, fields, fields_cap);
        if (n < 0) {
            st = ks_csv_unclosed_quote(path, ln, err);
            goto fail;
        }
        if (!ks_csv_fill_short_row(fields, n, nfields, need, line + len)) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ln, "row has %d fields, the header has %d%s",
                              n, nfields,
                              n > nfields ? " (an unquoted comma in a name?)"
                                          : " and the columns read need at least that many");
            goto fail;
        }
        ks_invocation inv;
        ks_invocation_init(&inv);
        double d;
        bool missing;
        if (!ks_parse_double(fields[c_dur], &d, &missing) || missing || d < 0) {
            st = bad_cell(path, ln, "duration_ns", fields[c_dur], "not a non-negative number",
                          err);
            goto fail;
        }
        /* llround of a value beyond int64 is unspecified (INT64_MIN on x86,
         * a negative duration or the missing-start marker): refuse it */
        if (d >= 0x1p63) {
            st = bad_cell(path, ln, "duration_ns", fields[c_dur],
                          "out of range (at most 9223372036854775807 ns)", err);
            goto fail;
        }
        inv.duration_ns = llround(d);
        if (c_start >= 0) {
            if (!ks_parse_double(fields[c_start], &d, &missing)) {
                st = bad_cell(path, ln, "start_ns", fields[c_start], "not a number", err);
                goto fail;
            }
            if (!missing && !(d > -0x1p63 && d < 0x1p63)) {
                st = bad_cell(path, ln, "start_ns", fields[c_start],
                              "out of range (a 64-bit count of ns)", err);
                goto fail;
            }
            inv.start_ns = missing ? KS_MISSING_I64 : llround(d);
        }
        uint32_t grid[3], block[3];
        if (c_grid >= 0 && c_block >= 0) {
            if (!ks_parse_dim3(fields[c_grid], grid) || !ks_parse_dim3(fields[c_block], block)) {
                st = ks_error_set(err, KS_ERR_FORMAT, path, ln,
                                  "grid/block must be 'x y z', '(x, y, z)' or 'x'");
                goto fail;
            }
            inv.grid = grid;
            inv.block = block;
        }
        if (c_id >= 0) {
            int64_t id;
            if (!ks_parse_i64(fields[c_id], &id, &missing) || missing || id < 0) {
                st = bad_cell(path, ln, "id", fields[c_id], "not a non-negative integer", err);
                goto fail;
            }
            if ((st = ks_grow((void **)&ids, &ids_cap, p->n + 1, sizeof *ids, err)))
                goto fail;
            if (p->n > 0 && id <= ids[p->n - 1])
                ids_in_order = false;
            ids[p->n] = id;
        }
        const char *name = ks_trim(fields[c_name]);
        if (*name == '\0') {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ln, "empty kernel name");
            goto fail;
        }
        if ((st = ks_profile_intern(p, name, strlen(name), &inv.name_id, err)) ||
            (st = ks_profile_append(p, &inv, err)))
            goto fail;
    }
    if (ids) {
        /* ids must be exactly 0..N-1 so that plan ids mean the user's ids */
        uint32_t *order = malloc(p->n * sizeof *order);
        if (!order) {
            st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
            goto fail;
        }
        for (size_t i = 0; i < p->n; i++)
            order[i] = UINT32_MAX;
        for (size_t i = 0; i < p->n; i++) {
            if (ids[i] >= (int64_t)p->n || order[ids[i]] != UINT32_MAX) {
                free(order);
                st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                  "column 'id' must hold each of 0..%zu exactly once "
                                  "(found %lld %s)",
                                  p->n - 1, (long long)ids[i],
                                  ids[i] >= (int64_t)p->n ? "out of range" : "twice");
                goto fail;
            }
            order[ids[i]] = (uint32_t)i;
        }
        if (!ids_in_order)
            st = ks_profile_permute(p, order, err);
        free(order);
    }
fail:
    free(fields);
    free(ids);
    return st;
}

const ks_reader ks_reader_plain_csv = {
    .name = "plain-csv",
    .summary = "CSV with header name,duration_ns[,id,start_ns,grid,block]",
    .detect = detect_plain,
    .read = read_plain,
};
