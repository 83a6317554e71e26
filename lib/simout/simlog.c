/*
 * simlog.c - the per-kernel statistics blocks of Accel-Sim / GPGPU-Sim
 * output.  A block starts at `kernel_name = ...`; its `kernel_launch_uid`
 * line lists one uid (or several when kernels ran on concurrent streams);
 * then come `name = value` statistics.  The block ends at the next block or
 * at the lines that start the next kernel's simulation, so that progress
 * output of the next kernel is not taken for this one's statistics.
 *
 * Which launch a block is: trace-driven Accel-Sim prints "Processing kernel
 * <trace file>" (and "Header info loaded for kernel command : <trace
 * file>") before "launching kernel name: <name> uid: <N>", so each uid is
 * bound to the trace file the simulator actually loaded; uids count from 1
 * in every simulator process, and a log holding several processes (one per
 * sampled launch, concatenated) is cut into runs at the "GPGPU-Sim
 * Simulator Version" banner each process prints first.  The grid and block
 * of the trace header the simulator echoes before launching a kernel
 * (`-grid dim =`, `-block dim =`) are bound to its uid the same way, so that
 * the results can be checked against the plan's launches.
 *
 * Values are parsed strictly (ks_parse_decimal, KS_NUM_MEASURE): a
 * statistic whose value is not a non-negative base-10 number below 2^64
 * without an exponent is an error at its line (issues 25, 34), as are a
 * gpu_sim_* count without a value (nan, empty) and a gpu_* statistic given
 * twice in one block.
 */
#include "simout.h"
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
    uint64_t *wholes; /* ks_simlog_block.wholes */
    size_t stat_count, stat_capacity;
    /* names of the block by hash, so that a block of hundreds of
     * statistics finds repeats in constant time */
    ks_hash_index index;
    size_t blocks;
    /* the block saw GPGPU-Sim's gpgpu_simulation_time line, which follows
     * every kernel's statistics; ended_before: an earlier block did */
    bool ended, ended_before;
    char *kernel_name;
    /* this run's uid -> trace file bindings, and the file being loaded */
    size_t run;
    bool run_seen; /* a banner or block was seen (the first banner opens run 0) */
    uint64_t *bound_uid;
    char **bound_trace;
    long *bound_line;
    size_t bound_count, bound_capacity;
    char *pending_trace;
    long pending_line;
    /* per uid of the current block, for emit */
    const char **uid_trace;
    long *uid_line;
    size_t uid_trace_capacity;
    /* the trace header lines since the last launch, bound with the trace
     * file (bound_dims, all 0 when not both seen), and per uid for emit */
    uint32_t header[6];
    bool header_grid, header_block;
    uint32_t (*bound_dims)[6];
    size_t bound_dims_capacity;
    uint32_t (*uid_dims)[6];
    size_t uid_dims_capacity;
};

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
}

static void clear_bindings(ks_simlog *s)
{
    for (size_t i = 0; i < s->bound_count; i++)
        free(s->bound_trace[i]);
    s->bound_count = 0;
    free(s->pending_trace);
    s->pending_trace = NULL;
}

void ks_simlog_free(ks_simlog *s)
{
    if (!s)
        return;
    clear_block(s);
    clear_bindings(s);
    KS_FREE(s->names, s->values, s->wholes, s->uids, s->kernel_name, s->bound_uid, s->bound_trace,
            s->bound_line, s->uid_trace, s->uid_line, s->bound_dims, s->uid_dims);
    ks_hash_free(&s->index);
    free(s);
}

/* The trace file bound to uid in this run, latest binding first, and the
 * grid and block its header gave (all 0 when none). */
static const char *trace_of(const ks_simlog *s, uint64_t uid, long *line, uint32_t dims[6])
{
    for (size_t i = s->bound_count; i-- > 0;)
        if (s->bound_uid[i] == uid) {
            *line = s->bound_line[i];
            memcpy(dims, s->bound_dims[i], sizeof s->bound_dims[i]);
            return s->bound_trace[i];
        }
    *line = 0;
    memset(dims, 0, 6 * sizeof *dims);
    return NULL;
}

/* Whether the block has name among its statistics. */
static bool has_stat(const ks_simlog *s, const char *name)
{
    for (size_t i = 0; i < s->stat_count; i++)
        if (strcmp(s->names[i], name) == 0)
            return true;
    return false;
}

static ks_status emit(ks_simlog *s, ks_error *err)
{
    if (!s->in_block)
        return KS_OK;
    /* a kernel's statistics open with gpu_sim_cycle: a block without it
     * was cut (the simulator stopped, or the log was truncated) and its
     * launch has no result to give, rather than one without cycles */
    if (s->uid_count > 0 && !has_stat(s, "gpu_sim_cycle"))
        return ks_error_set(err, KS_ERR_FORMAT, s->path, s->block_line,
                            "the statistics block of kernel '%.80s' has no gpu_sim_cycle: the "
                            "log is cut inside it or the simulator stopped before the kernel "
                            "ended; simulate that launch again",
                            s->kernel_name ? s->kernel_name : "");
    size_t cap = s->uid_trace_capacity;
    ks_status gst = ks_grow((void **)&s->uid_trace, &cap, s->uid_count + 1,
                            sizeof *s->uid_trace, err);
    if (gst == KS_OK)
        gst = ks_grow((void **)&s->uid_line, &s->uid_trace_capacity, s->uid_count + 1,
                      sizeof *s->uid_line, err);
    if (gst == KS_OK)
        gst = ks_grow((void **)&s->uid_dims, &s->uid_dims_capacity, s->uid_count + 1,
                      sizeof *s->uid_dims, err);
    if (gst != KS_OK)
        return gst;
    for (size_t u = 0; u < s->uid_count; u++)
        s->uid_trace[u] = trace_of(s, s->uids[u], &s->uid_line[u], s->uid_dims[u]);
    s->run_seen = true;
    ks_simlog_block b = {s->block_line, s->uid_count, s->uids, s->stat_count,
                         (const char *const *)s->names, s->values,
                         s->kernel_name ? s->kernel_name : "", s->run,
                         (const char *const *)s->uid_trace, s->uid_line,
                         (const uint32_t(*)[6])s->uid_dims, s->wholes};
    s->blocks++;
    s->ended_before = s->ended_before || s->ended;
    s->ended = false;
    ks_status st = s->fn(s->ctx, &b, err);
    clear_block(s);
    return st;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
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

/* GPGPU-Sim prints its gpu_* statistics once per kernel (some others, such
 * as bwutil, once per memory channel, under one name); gpu_sim_* are counts
 * that always have a value.  A repeat of the former, or one of the latter
 * without a value, is refused rather than one of two values taken. */
static bool once_per_kernel(const char *name, size_t len)
{
    return len > 4 && strncmp(name, "gpu_", 4) == 0;
}

static bool always_valued(const char *name, size_t len)
{
    return len > 8 && strncmp(name, "gpu_sim_", 8) == 0;
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
    if (!(isdigit((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.')) {
        if (!always_valued(*name, *name_len))
            return STAT_NONE;
        *token = p; /* gpu_sim_cycle = (nothing), = abc: refused at its line */
        *token_len = strcspn(p, " \t");
        *why = *token_len ? "is not a number" : "is empty";
        return STAT_BAD;
    }
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
        (blen == 8 && strncasecmp(body, "infinity", 8) == 0)) {
        *why = "is not a number";
        /* a rate of nothing (0 / 0): not reported; a count has a value */
        return always_valued(*name, *name_len) ? STAT_BAD : STAT_NOVALUE;
    }
    *why = ks_parse_decimal(t, len, KS_NUM_MEASURE, value);
    return *why ? STAT_BAD : STAT_VALUE;
}

static ks_status add_stat(ks_simlog *s, const char *name, size_t len, double value,
                          uint64_t whole, long number, ks_error *err)
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
    if (st == KS_OK && found && once_per_kernel(name, len))
        return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                            "%.*s given a second time in the block at line %ld: which value "
                            "is the kernel's?",
                            (int)(len > 80 ? 80 : len), name, s->block_line);
    if (st != KS_OK || found)
        return st; /* a name repeated per memory channel: its first value */
    size_t cap = s->stat_capacity, cap2 = s->stat_capacity;
    st = ks_grow((void **)&s->names, &cap, s->stat_count + 1, sizeof *s->names, err);
    if (st == KS_OK)
        st = ks_grow((void **)&s->wholes, &cap2, s->stat_count + 1, sizeof *s->wholes, err);
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
    s->wholes[s->stat_count] = whole;
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
    if (strstr(p, "GPGPU-Sim Simulator Version")) {
        /* a new simulator process: its uids start again from 1 */
        ks_status st = emit(s, err);
        if (st != KS_OK)
            return st;
        if (s->run_seen)
            s->run++;
        s->run_seen = true;
        clear_bindings(s);
        return KS_OK;
    }
    if (starts_with(p, "Processing kernel ") ||
        starts_with(p, "Header info loaded for kernel command :")) {
        const char *path = starts_with(p, "Processing kernel ")
                               ? p + strlen("Processing kernel ")
                               : p + strlen("Header info loaded for kernel command :");
        ks_status st = s->in_block && starts_with(p, "Processing kernel ") ? emit(s, err) : KS_OK;
        if (st != KS_OK)
            return st;
        while (*path == ' ' || *path == '\t')
            path++;
        size_t n = strlen(path);
        while (n > 0 && (path[n - 1] == ' ' || path[n - 1] == '\r' || path[n - 1] == '\t'))
            n--;
        free(s->pending_trace);
        if (!(s->pending_trace = strndup(path, n)))
            return ks_error_set(err, KS_ERR_NOMEM, s->path, number, "out of memory");
        s->pending_line = number;
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
    if (starts_with(p, "launching kernel name:")) {
        const char *u = strstr(p, " uid: ");
        if (!u || !s->pending_trace)
            return KS_OK; /* PTX mode: no trace file to bind */
        char *end;
        errno = 0;
        unsigned long long uid = strtoull(u + 6, &end, 10);
        if (errno || end == u + 6)
            return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                                "launching kernel: expected 'uid: <number>'");
        size_t cap = s->bound_capacity, cap2 = s->bound_capacity;
        ks_status st = ks_grow((void **)&s->bound_uid, &cap, s->bound_count + 1,
                               sizeof *s->bound_uid, err);
        if (st == KS_OK)
            st = ks_grow((void **)&s->bound_trace, &cap2, s->bound_count + 1,
                         sizeof *s->bound_trace, err);
        if (st == KS_OK)
            st = ks_grow((void **)&s->bound_line, &s->bound_capacity, s->bound_count + 1,
                         sizeof *s->bound_line, err);
        if (st == KS_OK)
            st = ks_grow((void **)&s->bound_dims, &s->bound_dims_capacity, s->bound_count + 1,
                         sizeof *s->bound_dims, err);
        if (st != KS_OK)
            return st;
        if (s->header_grid && s->header_block)
            memcpy(s->bound_dims[s->bound_count], s->header, sizeof s->header);
        else
            memset(s->bound_dims[s->bound_count], 0, sizeof s->bound_dims[0]);
        s->header_grid = s->header_block = false;
        s->bound_uid[s->bound_count] = uid;
        s->bound_trace[s->bound_count] = s->pending_trace;
        s->bound_line[s->bound_count++] = s->pending_line;
        s->pending_trace = NULL;
        return emit(s, err);
    }
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
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\r' || v[n - 1] == '\t'))
            n--;
        free(s->kernel_name);
        if (!(s->kernel_name = strndup(v, n)))
            return ks_error_set(err, KS_ERR_NOMEM, s->path, number, "out of memory");
        return KS_OK;
    }
    if (!s->in_block)
        return KS_OK;
    if (starts_with(p, "launching kernel") || starts_with(p, "GPGPU-Sim: *** exit detected"))
        return emit(s, err);
    if (starts_with(p, "gpgpu_simulation_time")) {
        s->ended = true;
        return KS_OK;
    }
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
    /* GPGPU-Sim's DRAM totals are written as prose ("total dram reads =
     * 3009"): read as total_dram_reads and total_dram_writes, the names
     * get_stats.py gives them */
    char dram[64];
    if ((starts_with(p, "total dram reads =") || starts_with(p, "total dram writes =")) &&
        strlen(p) < sizeof dram) {
        snprintf(dram, sizeof dram, "total_dram_%s", p + strlen("total dram "));
        p = dram;
    }
    const char *name, *token, *why = NULL;
    size_t name_len, token_len;
    double value;
    switch (parse_stat(p, &name, &name_len, &value, &token, &token_len, &why)) {
    case STAT_VALUE: {
        /* a count above 2^53 as printed, beside its rounded double */
        size_t n = token_len;
        if (n > 1 && (token[n - 1] == 'x' || token[n - 1] == '!'))
            n--;
        return add_stat(s, name, name_len, value, ks_exact_count(token, n, value), number,
                        err);
    }
    case STAT_BAD:
        return ks_error_set(err, KS_ERR_FORMAT, s->path, number,
                            "%.*s: '%.*s' %s (a statistic is a non-negative base-10 number "
                            "below 2^64, without an exponent)",
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
    /* the log ends inside a block: where every block before it was closed
     * by gpgpu_simulation_time, this one's statistics stop short */
    if (s->in_block && s->ended_before && !s->ended && has_stat(s, "gpu_sim_cycle"))
        return ks_error_set(err, KS_ERR_FORMAT, s->path, s->block_line,
                            "the log ends inside the statistics block of kernel '%.80s' (no "
                            "gpgpu_simulation_time after it, as after every block before it): "
                            "it is cut and that launch's statistics are incomplete; simulate it "
                            "again",
                            s->kernel_name ? s->kernel_name : "");
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
