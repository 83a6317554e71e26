/*
 * results.c - simulated values per launch, from simulator logs, CSVs
 * ("id,<metric>...") and run folders, keyed by plan id.
 *
 * A simulator numbers the kernels it is given from 1 (kernel_launch_uid);
 * which plan id that is depends on what it was given, so the mapping is an
 * explicit option (ks_uid_mode) and a run folder's manifest says it per job.
 */
#include "estimate.h"
#include "hash.h"
#include "run_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Rows by launch id, through the library's hash index: the ids live in
 * r->ids, so the table holds row numbers only. */
struct ks_results_index {
    ks_hash_index rows;
};

void ks_results_init(ks_results *r) { memset(r, 0, sizeof *r); }

void ks_results_options_init(ks_results_options *o)
{
    memset(o, 0, sizeof *o);
    o->uid_mode = KS_UID_SAMPLED;
    o->uid_base = 1;
}

void ks_results_free(ks_results *r)
{
    for (size_t i = 0; i < r->metric_count; i++) {
        free(r->metrics[i]);
        free(r->values[i]);
    }
    KS_FREE(r->metrics, r->values, r->ids, r->source, r->source_line);
    for (size_t i = 0; i < r->source_count; i++)
        free(r->sources[i]);
    free(r->sources);
    if (r->index)
        ks_hash_free(&r->index->rows);
    free(r->index);
    memset(r, 0, sizeof *r);
}

long ks_results_row(const ks_results *r, uint64_t id)
{
    if (!r->index)
        return -1;
    ks_u64_keys keys = {r->ids, sizeof *r->ids, 0};
    uint32_t row;
    return ks_hash_get_u64(&r->index->rows, &keys, id, &row) ? (long)row : -1;
}

long ks_results_metric(const ks_results *r, const char *name)
{
    for (size_t i = 0; i < r->metric_count; i++)
        if (strcmp(r->metrics[i], name) == 0)
            return (long)i;
    return -1;
}

/* Indexes row, the last of r->ids (whose id no row has yet). */
static ks_status index_insert(ks_results *r, size_t row, ks_error *err)
{
    if (!r->index && !(r->index = calloc(1, sizeof *r->index)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (row >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many launches in the results");
    ks_u64_keys keys = {r->ids, sizeof *r->ids, 0};
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st = ks_hash_find_u64(&r->index->rows, &keys, row, r->ids[row], &found, &id, &slot,
                                    err);
    if (st == KS_OK && !found)
        ks_hash_put(&r->index->rows, slot, (uint32_t)row);
    return st;
}

static ks_status add_source(ks_results *r, const char *name, uint32_t *index, ks_error *err)
{
    char **s = realloc(r->sources, (r->source_count + 1) * sizeof *s);
    if (!s)
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    r->sources = s;
    if (!(s[r->source_count] = strdup(name)))
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    *index = (uint32_t)r->source_count++;
    return KS_OK;
}

static ks_status add_metric(ks_results *r, const char *name, size_t *index, ks_error *err)
{
    long found = ks_results_metric(r, name);
    if (found >= 0) {
        *index = (size_t)found;
        return KS_OK;
    }
    size_t cap = r->metric_capacity;
    ks_status st = ks_grow((void **)&r->metrics, &cap, r->metric_count + 1, sizeof *r->metrics,
                           err);
    if (st == KS_OK)
        st = ks_grow((void **)&r->values, &r->metric_capacity, r->metric_count + 1,
                     sizeof *r->values, err);
    if (st != KS_OK)
        return st;
    double *col = malloc((r->row_capacity ? r->row_capacity : 1) * sizeof *col);
    char *copy = strdup(name);
    if (!col || !copy) {
        free(col);
        free(copy);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < r->row_count; i++)
        col[i] = NAN;
    r->metrics[r->metric_count] = copy;
    r->values[r->metric_count] = col;
    *index = r->metric_count++;
    return KS_OK;
}

/* The row of id from this source: a new one, or with `accumulate` the one
 * this source already made.  Another source's row for the same id is an
 * error: one launch simulated twice is a mistake in the inputs. */
static ks_status row_for(ks_results *r, uint64_t id, uint32_t source, long line,
                         bool accumulate, size_t *row, ks_error *err)
{
    long have = ks_results_row(r, id);
    if (have >= 0) {
        if (accumulate && r->source[have] == source) {
            *row = (size_t)have;
            return KS_OK;
        }
        return ks_error_set(err, KS_ERR_FORMAT, r->sources[source], line,
                            "launch id %llu reported twice (also at %s:%ld)%s",
                            (unsigned long long)id, r->sources[r->source[have]],
                            r->source_line[have],
                            accumulate ? "" : "; if kernels ran concurrently, "
                                              "--concurrent split adds a launch's blocks");
    }
    if (r->row_count == r->row_capacity) {
        size_t cap = r->row_capacity ? r->row_capacity * 2 : 64;
        void **const cols[] = {(void **)&r->ids, (void **)&r->source, (void **)&r->source_line};
        const size_t bytes[] = {sizeof *r->ids, sizeof *r->source, sizeof *r->source_line};
        if (!ks_resize_columns(cols, bytes, 3, cap))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t m = 0; m < r->metric_count; m++) {
            double *col = realloc(r->values[m], cap * sizeof *col);
            if (!col)
                return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            r->values[m] = col;
        }
        r->row_capacity = cap;
    }
    size_t i = r->row_count;
    r->ids[i] = id;
    r->source[i] = source;
    r->source_line[i] = line;
    for (size_t m = 0; m < r->metric_count; m++)
        r->values[m][i] = NAN;
    ks_status st = index_insert(r, i, err);
    if (st != KS_OK)
        return st;
    r->row_count++;
    *row = i;
    return KS_OK;
}

static void put(ks_results *r, size_t row, size_t m, double v, bool accumulate)
{
    double *cell = &r->values[m][row];
    *cell = accumulate && !isnan(*cell) ? *cell + v : v;
}

static ks_status set_value(ks_results *r, size_t row, const char *metric, double v,
                           bool accumulate, ks_error *err)
{
    size_t m;
    ks_status st = add_metric(r, metric, &m, err);
    if (st == KS_OK)
        put(r, row, m, v, accumulate);
    return st;
}

ks_status ks_results_add(ks_results *r, const char *source, const char *metric,
                         const uint64_t *ids, const double *values, size_t n, ks_error *err)
{
    uint32_t src = 0;
    while (src < r->source_count && strcmp(r->sources[src], source) != 0)
        src++;
    size_t m;
    ks_status st = src < r->source_count ? KS_OK : add_source(r, source, &src, err);
    if (st == KS_OK)
        st = add_metric(r, metric, &m, err);
    for (size_t i = 0; st == KS_OK && i < n; i++) {
        size_t row;
        if (!isfinite(values[i]))
            return ks_error_set(err, KS_ERR_FORMAT, source, (long)(i + 1),
                                "metric %s: the value of launch id %llu is not a finite number",
                                metric, (unsigned long long)ids[i]);
        st = row_for(r, ids[i], src, (long)(i + 1), true, &row, err);
        if (st == KS_OK && !isnan(r->values[m][row]))
            return ks_error_set(err, KS_ERR_FORMAT, source, (long)(i + 1),
                                "metric %s: launch id %llu given twice", metric,
                                (unsigned long long)ids[i]);
        if (st == KS_OK)
            r->values[m][row] = values[i];
    }
    return st;
}

/* ------------------------------------------------------ uid -> plan id */

typedef struct uid_map {
    ks_uid_mode mode;
    int64_t base;
    const ks_plan *plan;
    const uint64_t *ids; /* KS_UID_MAP and run-folder jobs: ids[uid - 1] */
    size_t count;
    const char *what;    /* for messages: what the uids index */
} uid_map;

static ks_status map_uid(const uid_map *m, uint64_t uid, const char *path, long line,
                         uint64_t *id, ks_error *err)
{
    if (m->mode == KS_UID_BASE) {
        if ((int64_t)uid < m->base)
            return ks_error_set(err, KS_ERR_FORMAT, path, line,
                                "kernel_launch_uid %llu is below --uid-base %lld",
                                (unsigned long long)uid, (long long)m->base);
        *id = uid - (uint64_t)m->base;
        return KS_OK;
    }
    size_t count = m->mode == KS_UID_SAMPLED ? m->plan->sample_count : m->count;
    if (uid < 1 || uid > count)
        return ks_error_set(
            err, KS_ERR_FORMAT, path, line,
            "kernel_launch_uid %llu but %s has %zu launches (uid k is its k-th); if the "
            "simulator ran the whole program, use --uid-base 1",
            (unsigned long long)uid, m->what, count);
    *id = m->mode == KS_UID_SAMPLED ? m->plan->samples[uid - 1].id : m->ids[uid - 1];
    return KS_OK;
}

/* -------------------------------------------------------- simulator logs */

typedef struct log_ctx {
    ks_results *r;
    const uid_map *map;
    ks_concurrent_mode concurrent;
    const char *path;
    uint32_t source;
    /* metric of the i-th statistic of the last block: blocks list the same
     * statistics in the same order, so names are looked up once */
    size_t *hint;
    size_t hint_count;
} log_ctx;

static ks_status metric_of(log_ctx *c, size_t i, const char *name, size_t *m, ks_error *err)
{
    if (i < c->hint_count && c->hint[i] < c->r->metric_count &&
        strcmp(c->r->metrics[c->hint[i]], name) == 0) {
        *m = c->hint[i];
        return KS_OK;
    }
    ks_status st = add_metric(c->r, name, m, err);
    if (st != KS_OK)
        return st;
    if (i >= c->hint_count) {
        size_t *h = realloc(c->hint, (i + 1) * sizeof *h);
        if (!h)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t k = c->hint_count; k <= i; k++)
            h[k] = SIZE_MAX;
        c->hint = h;
        c->hint_count = i + 1;
    }
    c->hint[i] = *m;
    return KS_OK;
}

static ks_status on_block(void *vctx, const ks_simlog_block *b, ks_error *err)
{
    log_ctx *c = vctx;
    bool split = c->concurrent == KS_CONCURRENT_SPLIT;
    if (b->uid_count == 0) {
        if (split)
            return KS_OK; /* nothing to attribute it to */
        return ks_error_set(err, KS_ERR_FORMAT, c->path, b->line,
                            "a statistics block without a kernel_launch_uid");
    }
    if (b->uid_count > 1 && !split)
        return ks_error_set(err, KS_ERR_FORMAT, c->path, b->line,
                            "this block lists %zu kernel_launch_uids (%llu %llu%s): kernels "
                            "ran concurrently and its cycles cannot be attributed to one "
                            "launch; --concurrent split shares its values equally",
                            b->uid_count, (unsigned long long)b->uids[0],
                            (unsigned long long)b->uids[1], b->uid_count > 2 ? " ..." : "");
    for (size_t u = 0; u < b->uid_count; u++) {
        uint64_t id = 0;
        size_t row = 0;
        ks_status st = map_uid(c->map, b->uids[u], c->path, b->line, &id, err);
        if (st == KS_OK)
            st = row_for(c->r, id, c->source, b->line, split, &row, err);
        for (size_t i = 0; i < b->stat_count && st == KS_OK; i++) {
            size_t m;
            if ((st = metric_of(c, i, b->names[i], &m, err)) == KS_OK)
                put(c->r, row, m, b->values[i] / (double)b->uid_count, split);
        }
        if (st != KS_OK)
            return st;
    }
    return KS_OK;
}

static ks_status read_log(ks_input *in, const char *path, const uid_map *map,
                          const ks_results_options *opt, ks_results *r, ks_error *err)
{
    log_ctx c = {r, map, opt->concurrent, path, 0, NULL, 0};
    ks_status st = add_source(r, path, &c.source, err);
    if (st != KS_OK)
        return st;
    ks_simlog *s;
    if ((st = ks_simlog_new(path, on_block, &c, &s, err)) != KS_OK)
        return st;
    for (;;) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK || !line)
            break;
        if ((st = ks_simlog_line(s, line, len, ks_input_line_number(in), err)) != KS_OK)
            break;
    }
    size_t blocks = 0;
    if (st == KS_OK)
        st = ks_simlog_finish(s, &blocks, err);
    ks_simlog_free(s);
    free(c.hint);
    if (st == KS_OK && blocks == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          "no per-kernel statistics (kernel_name / kernel_launch_uid blocks): "
                          "the simulator may have stopped before the first kernel ended (a "
                          "results CSV starts with the header id,<metric>,...)");
    return st;
}

/* ------------------------------------------------------------------ CSV */

/* The next line of a CSV that is neither empty nor a '#' comment; *line is
 * NULL at the end. */
static ks_status next_csv_line(ks_input *in, char **line, size_t *len, ks_error *err)
{
    ks_status st;
    while ((st = ks_input_getline(in, line, len, NULL, err)) == KS_OK && *line &&
           (*len == 0 || (*line)[0] == '#'))
        ;
    return st;
}

static ks_status read_csv(ks_input *in, const char *path, ks_results *r, ks_error *err)
{
    uint32_t source;
    ks_status st = add_source(r, path, &source, err);
    char **fields = NULL, **header = NULL;
    int capacity = 0, count = 0, columns = 0;
    while (st == KS_OK) {
        char *line;
        size_t len;
        if ((st = next_csv_line(in, &line, &len, err)) != KS_OK || !line)
            break;
        long number = ks_input_line_number(in);
        if ((st = ks_csv_split_grow(line, len, &fields, &capacity, &count, path, number, err)) !=
            KS_OK)
            break;
        if (count < 0) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, number, "unterminated quote");
            break;
        }
        if (!header) {
            if (count < 2 || strcmp(ks_trim(fields[0]), "id") != 0) {
                st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                  "a results CSV starts with the header id,<metric>,...");
                break;
            }
            if (!(header = calloc((size_t)count, sizeof *header))) {
                st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
                break;
            }
            columns = count;
            for (int i = 0; i < count && st == KS_OK; i++)
                if (!(header[i] = strdup(ks_trim(fields[i]))))
                    st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
            continue;
        }
        if (count != columns) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, number, "%d fields; the header has %d",
                              count, columns);
            break;
        }
        int64_t id;
        bool missing;
        size_t row;
        if (!ks_parse_i64(fields[0], &id, &missing) || missing || id < 0) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                              "id must be a launch number (0-based), got '%s'", fields[0]);
            break;
        }
        if ((st = row_for(r, (uint64_t)id, source, number, false, &row, err)) != KS_OK)
            break;
        for (int i = 1; i < count && st == KS_OK; i++) {
            double v;
            if (!ks_parse_double(fields[i], &v, &missing) || (!missing && !isfinite(v)))
                st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                  "column %s: '%s' is not a number", header[i], fields[i]);
            else if (!missing)
                st = set_value(r, row, header[i], v, false, err);
        }
    }
    if (st == KS_OK && !header)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0, "empty results file");
    if (header)
        for (int i = 0; i < columns; i++)
            free(header[i]);
    free(header);
    free(fields);
    return st;
}

/* --------------------------------------------------- uid map (weights.csv) */

/* weights.csv of the accelsim exporter: "uid,id,weight,trace" after '#'
 * comment lines. */
static ks_status read_uid_map(const char *path, uint64_t **ids, size_t *count, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    char *fields[8];
    int uid_col = -1, id_col = -1;
    size_t cap = 0;
    *ids = NULL;
    *count = 0;
    for (;;) {
        char *line;
        size_t len;
        if ((st = next_csv_line(in, &line, &len, err)) != KS_OK || !line)
            break;
        long number = ks_input_line_number(in);
        int n = ks_csv_split(line, len, fields, 8);
        if (n > 8)
            n = 8;
        if (uid_col < 0) {
            uid_col = ks_csv_find(fields, n, "uid");
            id_col = ks_csv_find(fields, n, "id");
            if (uid_col < 0 || id_col < 0) {
                st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                  "a uid map needs the columns uid and id (the weights.csv "
                                  "that 'ksample export --to accelsim' writes)");
                break;
            }
            continue;
        }
        int64_t uid, id;
        bool m1, m2;
        if (n <= uid_col || n <= id_col || !ks_parse_i64(fields[uid_col], &uid, &m1) ||
            !ks_parse_i64(fields[id_col], &id, &m2) || m1 || m2 || id < 0 ||
            uid != (int64_t)*count + 1) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                              "expected uid %zu and a launch id", *count + 1);
            break;
        }
        if ((st = ks_grow((void **)ids, &cap, *count + 1, sizeof **ids, err)) != KS_OK)
            break;
        (*ids)[(*count)++] = (uint64_t)id;
    }
    ks_input_close(in);
    if (st == KS_OK && uid_col < 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0, "empty uid map");
    if (st != KS_OK) {
        free(*ids);
        *ids = NULL;
    }
    return st;
}

/* ---------------------------------------------------------- run folders */

/* A job's log numbers its kernels from 1 in the order of the job's id list. */
static ks_status read_job_log(const char *root, const ks_run_manifest_job *job,
                              const ks_plan *plan, const ks_results_options *opt, ks_results *r,
                              ks_error *err)
{
    char *path = ks_run_job_file(root, job->dir, "sim.log");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
    uid_map map = {KS_UID_MAP, 0, plan, job->ids, job->id_count, "this job's id list"};
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st == KS_OK) {
        st = read_log(in, path, &map, opt, r, err);
        ks_input_close(in);
    }
    free(path);
    return st;
}

/* The manifest and the jobs' states are lib/run's (one reader of both). */
static ks_status read_rundir(const char *root, const ks_plan *plan,
                             const ks_results_options *opt, ks_results *r, ks_error *err)
{
    char *path = ks_path_join(root, "manifest.json");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
    ks_run_manifest m;
    ks_status st = ks_run_manifest_read(path, &m, err);
    if (st != KS_OK) {
        free(path);
        return st;
    }
    if (opt->plan_xxh128 && strcmp(m.plan_xxh128, opt->plan_xxh128) != 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          "this run is of another plan (plan_xxh128 %s; the plan given is %s)",
                          m.plan_xxh128, opt->plan_xxh128);
    if (st == KS_OK)
        st = ks_run_check_complete(root, &m, err);
    for (size_t j = 0; st == KS_OK && j < m.job_count; j++)
        st = read_job_log(root, &m.jobs[j], plan, opt, r, err);
    ks_run_manifest_free(&m);
    free(path);
    return st;
}

/* ------------------------------------------------------------- entry */

ks_status ks_results_read(const char *path, const ks_plan *plan, const ks_results_options *opt,
                          ks_results *r, ks_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return read_rundir(path, plan, opt, r, err);
    ks_input *in;
    const char *head;
    size_t len;
    ks_status st = ks_input_open_peek(path, &in, &head, &len, err);
    if (st != KS_OK)
        return st;
    size_t skip = len >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (len - skip >= 3 && memcmp(head + skip, "id,", 3) == 0) {
        st = read_csv(in, path, r, err);
    } else if (ks_simlog_detect(head, len) || len > 0) {
        uint64_t *ids = NULL;
        size_t count = 0;
        if (opt->uid_mode == KS_UID_MAP) {
            if (!opt->uid_map)
                st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "no uid map file given");
            else
                st = read_uid_map(opt->uid_map, &ids, &count, err);
        }
        uid_map map = {opt->uid_mode, opt->uid_base, plan, ids, count,
                       opt->uid_mode == KS_UID_MAP ? "the uid map" : "the plan"};
        if (st == KS_OK)
            st = read_log(in, path, &map, opt, r, err);
        free(ids);
    } else {
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0, "empty results file");
    }
    ks_input_close(in);
    return st;
}
