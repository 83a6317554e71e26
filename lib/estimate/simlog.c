/*
 * simlog.c - the per-kernel statistics blocks of Accel-Sim / GPGPU-Sim
 * output.  A block starts at `kernel_name = ...`; its `kernel_launch_uid`
 * line lists one uid (or several when kernels ran on concurrent streams);
 * then come `name = value` statistics.  The block ends at the next block or
 * at the lines that start the next kernel's simulation, so that progress
 * output of the next kernel is not taken for this one's statistics.
 *
 * The block's kernel_name, and the grid and block of each uid from the
 * trace header the simulator echoed before launching it (`-grid dim =`,
 * `-block dim =`, then `launching kernel name: N uid: U`), go with the
 * block, so that the results can be checked against the plan's launches.
 * Values are parsed strictly (ks_parse_decimal): a statistic whose value
 * is not a non-negative base-10 number is an error at its line.
 */
#include "estimate.h"
#include "hash.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ks_simlog {
    const char *path;
    ks_simlog_fn fn;
    void *ctx;
    bool in_block;
    long block_line;
    uint64_t *uids;
    size_t uid_count, uid_capacity;
    char **names;
    double *values;
    size_t stat_count, stat_capacity;
    /* names of the block by hash, so that a block of hundreds of
     * statistics finds repeats in constant time */
    ks_hash_index index;
    size_t blocks;
    char *kernel_name;  /* of the open block */
    uint32_t (*dims)[6]; /* per uid of the open block; 0 = not known */
    size_t dims_capacity;
    /* the trace header lines since the last launch line */
    uint32_t header[6];
    bool header_grid, header_block;
    /* launches seen ("launching kernel ... uid: U") whose block has not
     * come yet, with their header's grid and block */
    struct launch {
        uint64_t uid;
        uint32_t dims[6];
    } *launches;
    size_t launch_count, launch_capacity;
};

/* Launches waiting for their block: kernels in flight at once, a few; a log
 * that launches without ever ending a kernel stops being tracked here
 * (dimensions then go unchecked), so memory stays bounded. */
enum { MAX_PENDING_LAUNCHES = 4096 };

ks_status ks_simlog_new(const char *path, ks_simlog_fn fn, void *ctx, ks_simlog **out,
                        ks_error *err)
{
    ks_simlog *s = calloc(1, sizeof *s);
    if (!s)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    s->path = path;
    s->fn = fn;
    s->ctx = ctx;
    *out = s;
    return KS_OK;
}

static void clear_block(ks_simlog *s)
{
    if (s->stat_count)
        ks_hash_clear(&s->index);
    for (size_t i = 0; i < s->stat_count; i++)
        free(s->names[i]);
    s->stat_count = 0;
    s->uid_count = 0;
    s->in_block = false;
    free(s->kernel_name);
    s->kernel_name = NULL;
}

void ks_simlog_free(ks_simlog *s)
{
    if (!s)
        return;
    clear_block(s);
    free(s->names);
    free(s->values);
    free(s->uids);
    free(s->dims);
    free(s->launches);
    ks_hash_free(&s->index);
    free(s);
}

/* The header dimensions of each uid of the open block, taken from the
 * launches waiting for their block (and removed there). */
static ks_status take_dims(ks_simlog *s, ks_error *err)
{
    ks_status st = ks_grow((void **)&s->dims, &s->dims_capacity, s->uid_count + 1,
                           sizeof *s->dims, err);
    for (size_t u = 0; st == KS_OK && u < s->uid_count; u++) {
        memset(s->dims[u], 0, sizeof s->dims[u]);
        for (size_t k = s->launch_count; k-- > 0;)
            if (s->launches[k].uid == s->uids[u]) {
                memcpy(s->dims[u], s->launches[k].dims, sizeof s->dims[u]);
                s->launches[k] = s->launches[--s->launch_count];
                break;
            }
    }
    return st;
}

static ks_status emit(ks_simlog *s, ks_error *err)
{
    if (!s->in_block)
        return KS_OK;
    ks_status dst = take_dims(s, err);
    if (dst != KS_OK)
        return dst;
    ks_simlog_block b = {s->block_line, s->uid_count, s->uids, s->stat_count,
                         (const char *const *)s->names, s->values,
                         s->kernel_name ? s->kernel_name : "",
                         (const uint32_t(*)[6])s->dims};
    s->blocks++;
    ks_status st = s->fn(s->ctx, &b, err);
    clear_block(s);
    return st;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* `launching kernel name: NAME uid: U ...`: U is launched with the grid and
 * block of the header lines just before (when both were there). */
static ks_status note_launch(ks_simlog *s, const char *line, ks_error *err)
{
    bool known = s->header_grid && s->header_block;
    s->header_grid = s->header_block = false;
    const char *u = strstr(line, " uid: ");
    if (!known || !u || s->launch_count >= MAX_PENDING_LAUNCHES)
        return KS_OK;
    u += 6;
    if (!isdigit((unsigned char)*u))
        return KS_OK;
    char *end;
    errno = 0;
    unsigned long long uid = strtoull(u, &end, 10);
    if (errno == ERANGE)
        return KS_OK;
    ks_status st = ks_grow((void **)&s->launches, &s->launch_capacity, s->launch_count + 1,
                           sizeof *s->launches, err);
    if (st != KS_OK)
        return st;
    s->launches[s->launch_count].uid = uid;
    memcpy(s->launches[s->launch_count].dims, s->header, sizeof s->header);
    s->launch_count++;
    return KS_OK;
}

static ks_status parse_uids(ks_simlog *s, const char *v, long number, ks_error *err)
{
    for (;;) {
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v == '\0')
            return KS_OK;
        if (!isdigit((unsigned char)*v))
            return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                                "kernel_launch_uid: expected launch numbers, got '%.40s'", v);
        char *end;
        errno = 0;
        unsigned long long u = strtoull(v, &end, 10);
        if (errno == ERANGE)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                                "kernel_launch_uid: number out of range");
        ks_status st = ks_grow((void **)&s->uids, &s->uid_capacity, s->uid_count + 1,
                               sizeof *s->uids, err);
        if (st != KS_OK)
            return st;
        s->uids[s->uid_count++] = u;
        v = end;
    }
}

/* What a `name = value` line is. */
typedef enum stat_kind {
    STAT_NONE,    /* not a statistic: prose, a table, a list after the number */
    STAT_VALUE,   /* a statistic and its value */
    STAT_NOVALUE, /* a statistic the simulator could not compute (nan, inf) */
    STAT_BAD      /* a statistic whose value is not a number: an error */
} stat_kind;

/* `name = number [unit]`: name is one identifier (brackets and dots allowed,
 * as in breakdown[GLOBAL_ACC_R][HIT]); the number is one whitespace-free
 * token, a whole non-negative base-10 number (ks_parse_decimal), which may
 * end in '%' or in the 'x' and '!' GPGPU-Sim writes against some numbers
 * (gpgpu_silicon_slowdown = 1234x, min_bank_accesses = 0!), followed by
 * nothing or, after a space, a unit of letters, '/' and '%'.  A token that
 * starts like a number but is not one (12abc, 0x10, -5) is STAT_BAD, with
 * *why; a value after which a list or table follows is no statistic. */
static stat_kind parse_stat(const char *line, const char **name, size_t *name_len,
                            double *value, const char **token, size_t *token_len,
                            const char **why)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!(isalpha((unsigned char)*p) || *p == '_'))
        return STAT_NONE;
    const char *n = p;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '[' || *p == ']' || *p == '.')
        p++;
    *name = n;
    *name_len = (size_t)(p - n);
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '=')
        return STAT_NONE;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!(isdigit((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.'))
        return STAT_NONE;
    const char *t = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    *token = t;
    *token_len = (size_t)(p - t);
    /* what may follow: spaces, then a unit of letters, '/', '%' */
    for (const char *q = p; *q; q++)
        if (!(isalpha((unsigned char)*q) || *q == ' ' || *q == '\t' || *q == '/' || *q == '%'))
            return STAT_NONE;
    size_t len = *token_len;
    if (len > 1 && (t[len - 1] == '%' || t[len - 1] == 'x' || t[len - 1] == '!'))
        len--;
    const char *body = t + (*t == '-' || *t == '+');
    size_t blen = len - (size_t)(body - t);
    if ((blen == 3 && (strncasecmp(body, "nan", 3) == 0 || strncasecmp(body, "inf", 3) == 0)) ||
        (blen == 8 && strncasecmp(body, "infinity", 8) == 0))
        return STAT_NOVALUE; /* a rate of nothing (0 / 0): not reported */
    *why = ks_parse_decimal(t, len, KS_NUM_NONNEG, value);
    return *why ? STAT_BAD : STAT_VALUE;
}

static ks_status add_stat(ks_simlog *s, const char *name, size_t len, double value,
                          ks_error *err)
{
    if (len >= 9 && strncmp(name, "gpu_tot_", 8) == 0)
        return KS_OK; /* cumulative over every kernel so far */
    if (len == 17 && strncmp(name, "kernel_launch_uid", 17) == 0)
        return KS_OK;
    if (s->stat_count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, s->path, 0, "too many statistics in a block");
    ks_text_keys keys = {s->names, sizeof *s->names, 0};
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st =
        ks_hash_find_text(&s->index, &keys, s->stat_count, name, len, &found, &id, &slot, err);
    if (st != KS_OK || found)
        return st; /* the first value of a repeated name is the block's */
    size_t cap = s->stat_capacity;
    st = ks_grow((void **)&s->names, &cap, s->stat_count + 1, sizeof *s->names, err);
    if (st == KS_OK)
        st = ks_grow((void **)&s->values, &s->stat_capacity, s->stat_count + 1,
                     sizeof *s->values, err);
    if (st != KS_OK)
        return st;
    char *copy = strndup(name, len);
    if (!copy)
        return ks_error_set(err, KS_ERR_NOMEM, s->path, 0, "out of memory");
    s->names[s->stat_count] = copy;
    ks_hash_put(&s->index, slot, (uint32_t)s->stat_count);
    s->values[s->stat_count++] = value;
    return KS_OK;
}

ks_status ks_simlog_line(ks_simlog *s, const char *line, size_t len, long number,
                         ks_error *err)
{
    (void)len;
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (starts_with(p, "kernel_name =") || starts_with(p, "kernel_name=")) {
        ks_status st = emit(s, err);
        if (st != KS_OK)
            return st;
        s->in_block = true;
        s->block_line = number;
        const char *v = strchr(p, '=') + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strlen(v);
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
            n--;
        if (!(s->kernel_name = strndup(v, n)))
            return ks_error_set(err, KS_ERR_NOMEM, s->path, number, "out of memory");
        return KS_OK;
    }
    if (starts_with(p, "-grid dim =") || starts_with(p, "-block dim =")) {
        bool grid = p[1] == 'g';
        uint32_t d[3];
        if (ks_parse_dim3(strchr(p, '=') + 1, d)) {
            memcpy(s->header + (grid ? 0 : 3), d, sizeof d);
            *(grid ? &s->header_grid : &s->header_block) = true;
        }
        return KS_OK;
    }
    if (starts_with(p, "launching kernel")) {
        ks_status st = emit(s, err);
        if (st == KS_OK)
            st = note_launch(s, p, err);
        return st;
    }
    if (!s->in_block)
        return KS_OK;
    if (starts_with(p, "Header info loaded") || starts_with(p, "GPGPU-Sim: *** exit detected"))
        return emit(s, err);
    if (starts_with(p, "kernel_launch_uid")) {
        const char *eq = strchr(p, '=');
        if (!eq)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                                "kernel_launch_uid line without '='");
        if (s->uid_count > 0)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                                "a second kernel_launch_uid line in one block (block at "
                                "line %ld)",
                                s->block_line);
        return parse_uids(s, eq + 1, number, err);
    }
    const char *name, *token, *why = NULL;
    size_t name_len, token_len;
    double value;
    switch (parse_stat(p, &name, &name_len, &value, &token, &token_len, &why)) {
    case STAT_VALUE:
        return add_stat(s, name, name_len, value, err);
    case STAT_BAD:
        return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                            "%.*s: '%.*s' %s (a statistic is a non-negative base-10 number)",
                            (int)(name_len > 80 ? 80 : name_len), name,
                            (int)(token_len > 40 ? 40 : token_len), token, why);
    case STAT_NONE:
    case STAT_NOVALUE:
        break;
    }
    return KS_OK;
}

ks_status ks_simlog_finish(ks_simlog *s, size_t *blocks, ks_error *err)
{
    ks_status st = emit(s, err);
    if (blocks)
        *blocks = s->blocks;
    return st;
}

bool ks_simlog_detect(const char *head, size_t len)
{
    return ks_find_text(head, len, "GPGPU-Sim") || ks_find_text(head, len, "Accel-Sim") ||
           ks_find_text(head, len, "kernel_launch_uid") || ks_find_text(head, len, "kernel_name");
}
