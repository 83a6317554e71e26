/*
 * read_bbv.c - Photon's bbv.csv (Liu et al., MICRO'23; written by its NVBit
 * tool): per kernel launch a line "Kernel<id>,<basic blocks>,<warps>,<name>"
 * and a line of per-basic-block execution counts summed over warps, with a
 * trailing comma.  Read as a second source: a profile whose invocations carry
 * the sparse column "bbv" (block index -> count, zeros left out) and the
 * metric "warps", joined to a time profile by launch order.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct bbv_build {
    uint64_t *offset, *index;
    double *value;
    size_t offset_cap, nnz_cap, nnz;
    long *lines;
    size_t lines_cap;
} bbv_build;

static void build_free(bbv_build *b)
{
    KS_FREE(b->offset, b->index, b->value, b->lines);
}

static ks_status parse_counts(bbv_build *b, char **fields, int count, uint64_t blocks,
                              const char *path, long line, ks_error *err)
{
    /* the trailing comma leaves one empty field */
    if (count > 0 && *ks_trim(fields[count - 1]) == '\0')
        count--;
    if ((uint64_t)count != blocks)
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "%d basic-block counts, but the kernel line announced %llu", count,
                            (unsigned long long)blocks);
    for (int k = 0; k < count; k++) {
        double v;
        bool missing;
        if (!ks_parse_double(fields[k], &v, &missing) || missing || v < 0)
            return ks_error_set(err, KS_ERR_FORMAT, path, line,
                                "basic-block count %d: '%.40s' is not a count", k + 1,
                                fields[k]);
        if (v == 0)
            continue;
        ks_status st;
        size_t cap = b->nnz_cap;
        if ((st = ks_grow((void **)&b->index, &cap, b->nnz + 1, sizeof *b->index, err)) ||
            (st = ks_grow((void **)&b->value, &b->nnz_cap, b->nnz + 1, sizeof *b->value, err)))
            return st;
        b->index[b->nnz] = (uint64_t)k;
        b->value[b->nnz++] = v;
    }
    return KS_OK;
}

static ks_status read_body(ks_input *in, ks_profile *p, bbv_build *b, ks_error *err)
{
    const char *path = ks_input_path(in);
    char *line, **fields = NULL;
    size_t len;
    bool truncated;
    int cap = 0, count;
    ks_status st = ks_input_getline(in, &line, &len, &truncated, err);
    if (st == KS_OK && (!line || strncmp(ks_trim(line), "Warp ID", 7) != 0))
        st = ks_error_set(err, KS_ERR_FORMAT, path, 1,
                          "not a Photon bbv.csv: the first line must be "
                          "'Warp ID,Basic Block Counts'");
    uint64_t blocks = 0;
    bool want_counts = false;
    long kernel_line = 0;
    while (st == KS_OK) {
        if ((st = ks_input_getline(in, &line, &len, &truncated, err)) != KS_OK || !line)
            break;
        long ln = ks_input_line_number(in);
        if (!want_counts && *ks_trim(line) == '\0')
            continue;
        if ((st = ks_csv_split_grow(line, len, &fields, &cap, &count, path, ln, err)) != KS_OK)
            break;
        if (count < 0) {
            st = ks_csv_unclosed_quote(path, ln, err);
            break;
        }
        if (want_counts) {
            st = parse_counts(b, fields, count, blocks, path, ln, err);
            want_counts = false;
            continue;
        }
        const char *tag = ks_trim(fields[0]);
        int64_t id, nblocks, warps;
        bool m1 = true, m2 = true, m3 = true;
        if (count < 4 || strncmp(tag, "Kernel", 6) != 0 || !ks_parse_i64(tag + 6, &id, &m1) ||
            m1 || !ks_parse_i64(fields[1], &nblocks, &m2) || m2 || nblocks < 0 ||
            !ks_parse_i64(fields[2], &warps, &m3) || m3 || warps < 0) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ln,
                              "expected 'Kernel<id>,<basic blocks>,<warps>,<name>'");
            break;
        }
        if ((uint64_t)id != p->n) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ln,
                              "Kernel%lld where Kernel%zu was expected (launches must be "
                              "listed in order)",
                              (long long)id, p->n);
            break;
        }
        /* the name may itself hold commas (template arguments): rejoin */
        const char *name = fields[3];
        char *joined = NULL;
        if (count > 4) {
            size_t total = 0;
            for (int k = 3; k < count; k++)
                total += strlen(fields[k]) + 1;
            if (!(joined = malloc(total))) {
                st = ks_error_set(err, KS_ERR_NOMEM, path, ln, "out of memory");
                break;
            }
            joined[0] = '\0';
            for (int k = 3; k < count; k++) {
                strcat(joined, fields[k]);
                if (k + 1 < count)
                    strcat(joined, ",");
            }
            name = joined;
        }
        ks_invocation inv;
        ks_invocation_init(&inv);
        const char *trimmed = ks_trim((char *)name);
        st = ks_profile_intern(p, trimmed, strlen(trimmed), &inv.name_id, err);
        free(joined);
        size_t n = p->n, lcap = b->lines_cap;
        if (st == KS_OK)
            st = ks_profile_append(p, &inv, err);
        if (st == KS_OK)
            st = ks_grow((void **)&b->offset, &b->offset_cap, n + 2, sizeof *b->offset, err);
        if (st == KS_OK)
            st = ks_grow((void **)&b->lines, &lcap, n + 1, sizeof *b->lines, err);
        if (st != KS_OK)
            break;
        b->lines_cap = lcap;
        b->lines[n] = ln;
        b->offset[n] = b->nnz;
        ks_metric_column *col;
        if ((st = ks_profile_metric(p, "warps", &col, err)) != KS_OK)
            break;
        col->values[n] = (double)warps;
        blocks = (uint64_t)nblocks;
        want_counts = true;
        kernel_line = ln;
    }
    if (st == KS_OK && want_counts)
        st = ks_error_set(err, KS_ERR_FORMAT, path, kernel_line,
                          "the last kernel has no line of basic-block counts");
    if (st == KS_OK && p->n == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0, "no kernel launches found");
    free(fields);
    return st;
}

ks_status ks_read_photon_bbv(const char *path, ks_profile **out, long **lines, ks_error *err)
{
    *out = NULL;
    *lines = NULL;
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    ks_profile *p = ks_profile_new();
    bbv_build b = {0};
    if (!p)
        st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    if (st == KS_OK)
        st = read_body(in, p, &b, err);
    ks_input_close(in);
    if (st == KS_OK) {
        b.offset[p->n] = b.nnz;
        st = ks_profile_set_sparse(p, "bbv", b.offset, b.index, b.value, err);
        b.offset = b.index = NULL;
        b.value = NULL;
    }
    if (st != KS_OK) {
        build_free(&b);
        ks_profile_free(p);
        return st;
    }
    snprintf(p->source_format, sizeof p->source_format, "photon-bbv");
    snprintf(p->source_path, sizeof p->source_path, "%s", path);
    *lines = b.lines;
    *out = p;
    return KS_OK;
}
