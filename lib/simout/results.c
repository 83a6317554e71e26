/*
 * results.c - simulated values per launch, from simulator logs, CSVs
 * ("id,<metric>...") and run folders, keyed by plan id.
 *
 * This file holds the table (rows by launch id, one column per metric, the
 * sources) and the CSV forms; results_sim.c reads simulator outputs and
 * run folders into it.
 */
#include "simout.h"
#include "hash.h"
#include "run_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
        free(r->wholes ? r->wholes[i] : NULL);
    }
    KS_FREE(r->metrics, r->values, r->wholes, r->kinds, r->ids, r->source, r->source_line);
    for (size_t i = 0; i < r->source_count; i++) {
        free(r->sources[i]);
        free(r->source_warmup ? r->source_warmup[i] : NULL);
    }
    free(r->sources);
    free(r->source_warmup);
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

ks_status ks_results_check_plan(const ks_results *r, const ks_plan *plan, ks_error *err)
{
    for (size_t i = 0; plan->population > 0 && i < r->row_count; i++) /* 0: not recorded */
        if (r->ids[i] >= plan->population)
            return ks_error_set(err, KS_ERR_FORMAT, r->sources[r->source[i]], r->source_line[i],
                                "launch id %llu is beyond the plan's %llu launches (ids 0 to "
                                "%llu): these results are of another program",
                                (unsigned long long)r->ids[i],
                                (unsigned long long)plan->population,
                                (unsigned long long)(plan->population ? plan->population - 1
                                                                      : 0));
    return KS_OK;
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

/* A metric's column (a new one of NAN), its kind by name; counted: an
 * unknown name is a per-launch count (a results CSV's or values given in
 * memory: those formats declare it). */
static ks_status add_metric(ks_results *r, const char *name, bool counted, size_t *index,
                            ks_error *err)
{
    long found = ks_results_metric(r, name);
    if (found >= 0) {
        *index = (size_t)found;
        return KS_OK;
    }
    size_t cap = r->metric_capacity, cap2 = r->metric_capacity, cap3 = r->metric_capacity;
    ks_status st = ks_grow((void **)&r->metrics, &cap, r->metric_count + 1, sizeof *r->metrics,
                           err);
    if (st == KS_OK)
        st = ks_grow((void **)&r->kinds, &cap2, r->metric_count + 1, sizeof *r->kinds, err);
    if (st == KS_OK && (st = ks_grow((void **)&r->wholes, &cap3, r->metric_count + 1,
                                     sizeof *r->wholes, err)) == KS_OK)
        r->wholes[r->metric_count] = NULL; /* none until a count above 2^53 */
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
    ks_stat_kind kind = ks_stat_info_of(name).kind;
    r->kinds[r->metric_count] = (unsigned char)(kind == KS_STAT_UNKNOWN && counted ? KS_STAT_COUNT
                                                                                   : kind);
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
        /* (an Accel-Sim log's reader adds what may have caused it) */
        return ks_error_set(err, KS_ERR_FORMAT, r->sources[source], line,
                            "launch id %llu reported twice (also at %s:%ld)",
                            (unsigned long long)id, r->sources[r->source[have]],
                            r->source_line[have]);
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
            if (r->wholes[m]) {
                uint64_t *w = realloc(r->wholes[m], cap * sizeof *w);
                if (!w)
                    return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
                r->wholes[m] = w;
            }
        }
        r->row_capacity = cap;
    }
    size_t i = r->row_count;
    r->ids[i] = id;
    r->source[i] = source;
    r->source_line[i] = line;
    for (size_t m = 0; m < r->metric_count; m++) {
        r->values[m][i] = NAN;
        if (r->wholes[m])
            r->wholes[m][i] = 0;
    }
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
    if (r->wholes[m])
        r->wholes[m][row] = 0; /* the double holds it now */
}

/* Above 2^53 a double holds a count only to 53 significant bits: such a
 * count is kept exactly beside it (wholes), so that it reads back, and is
 * written out, as it was printed. */
ks_status ks_results_put_count(ks_results *r, size_t row, size_t m, uint64_t u, ks_error *err)
{
    r->values[m][row] = (double)u;
    if (u <= (uint64_t)1 << 53) { /* (not against the double: u would round to it) */
        if (r->wholes[m])
            r->wholes[m][row] = 0;
        return KS_OK;
    }
    if (!r->wholes[m]) {
        r->wholes[m] = calloc(r->row_capacity ? r->row_capacity : 1, sizeof *r->wholes[m]);
        if (!r->wholes[m])
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    r->wholes[m][row] = u;
    return KS_OK;
}

bool ks_results_count(const ks_results *r, size_t m, size_t row, uint64_t *u)
{
    if (r->wholes && r->wholes[m] && r->wholes[m][row]) {
        *u = r->wholes[m][row];
        return true;
    }
    double v = r->values[m][row];
    if (!(v >= 0 && v <= KS_EXACT_COUNT && v == floor(v)))
        return false;
    *u = (uint64_t)v;
    return true;
}

static ks_status add_values(ks_results *r, const char *source, const char *metric,
                            const uint64_t *ids, const double *values, const uint64_t *counts,
                            size_t n, ks_error *err);

/* A value as it was printed: a count above 2^53 exactly. */
static ks_status set_cell(ks_results *r, size_t row, const char *metric, const char *text,
                          double v, ks_error *err)
{
    size_t m;
    ks_status st = add_metric(r, metric, true, &m, err);
    if (st != KS_OK)
        return st;
    uint64_t u = ks_exact_count(text, strlen(text), v);
    if (u)
        return ks_results_put_count(r, row, m, u, err);
    put(r, row, m, v, false);
    return KS_OK;
}

ks_status ks_results_add(ks_results *r, const char *source, const char *metric,
                         const uint64_t *ids, const double *values, size_t n, ks_error *err)
{
    return add_values(r, source, metric, ids, values, NULL, n, err);
}

ks_status ks_results_add_counts(ks_results *r, const char *source, const char *metric,
                                const uint64_t *ids, const uint64_t *counts, size_t n,
                                ks_error *err)
{
    return add_values(r, source, metric, ids, NULL, counts, n, err);
}

static ks_status add_values(ks_results *r, const char *source, const char *metric,
                            const uint64_t *ids, const double *values, const uint64_t *counts,
                            size_t n, ks_error *err)
{
    uint32_t src = 0;
    while (src < r->source_count && strcmp(r->sources[src], source) != 0)
        src++;
    size_t m;
    ks_status st =
        src < r->source_count ? KS_OK : ks_results_add_source(r, source, "", &src, err);
    if (st == KS_OK)
        st = add_metric(r, metric, true, &m, err);
    for (size_t i = 0; st == KS_OK && i < n; i++) {
        size_t row;
        const char *why = counts ? NULL : ks_measure_check(values[i]);
        if (why) /* the rule a simulator's printed value meets (KS_NUM_MEASURE) */
            return ks_error_set(err, KS_ERR_FORMAT, source, (long)(i + 1),
                                "metric %s: the value of launch id %llu (%.17g) %s", metric,
                                (unsigned long long)ids[i], values[i], why);
        st = row_for(r, ids[i], src, (long)(i + 1), true, &row, err);
        if (st == KS_OK && !isnan(r->values[m][row]))
            return ks_error_set(err, KS_ERR_FORMAT, source, (long)(i + 1),
                                "metric %s: launch id %llu given twice", metric,
                                (unsigned long long)ids[i]);
        if (st == KS_OK && counts)
            st = ks_results_put_count(r, row, m, counts[i], err);
        else if (st == KS_OK)
            r->values[m][row] = values[i];
    }
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

ks_status ks_results_read_csv(ks_input *in, const char *path, ks_results *r, ks_error *err)
{
    uint32_t source;
    ks_status st = ks_results_add_source(r, path, "", &source, err);
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
            st = ks_csv_unclosed_quote(path, number, err);
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
            for (int i = 0; i < count && st == KS_OK; i++) {
                if (!(header[i] = strdup(ks_trim(fields[i]))))
                    st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
                for (int j = 0; j < i && st == KS_OK; j++)
                    if (strcmp(header[i], header[j]) == 0)
                        st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                          "column %s is named twice (columns %d and %d)",
                                          header[i], j + 1, i + 1);
            }
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
            /* empty and n/a are missing; anything else is a whole
             * non-negative base-10 number (ks_parse_decimal) */
            const char *cell = ks_trim(fields[i]);
            double v;
            if (*cell == '\0' || strcasecmp(cell, "n/a") == 0)
                continue;
            const char *why = ks_parse_decimal(cell, strlen(cell), KS_NUM_MEASURE, &v);
            if (why)
                st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                  "column %s: '%.60s' %s (simulated values are counts, times "
                                  "and rates: non-negative base-10 numbers below 2^64, "
                                  "without an exponent)",
                                  header[i], cell, why);
            else
                st = set_cell(r, row, header[i], cell, v, err);
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
ks_status ks_results_read_uid_map(const char *path, uint64_t **ids, size_t *count,
                                  unsigned char **measured, uint64_t **launches,
                                  ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open_file(path, &in, err);
    if (st != KS_OK)
        return st;
    char *fields[8];
    int uid_col = -1, id_col = -1, role_col = -1, launch_col = -1, columns = 0;
    size_t cap = 0, mcap = 0, lcap = 0;
    *ids = NULL;
    *count = 0;
    *measured = NULL;
    *launches = NULL;
    bool warmups = false, remapped = false;
    for (;;) {
        char *line;
        size_t len;
        if ((st = next_csv_line(in, &line, &len, err)) != KS_OK || !line)
            break;
        long number = ks_input_line_number(in);
        int n = ks_csv_split(line, len, fields, 8);
        if (n < 0 || (uid_col >= 0 && n > columns)) {
            st = n < 0 ? ks_csv_unclosed_quote(path, number, err)
                       : ks_error_set(err, KS_ERR_FORMAT, path, number,
                                      "more fields than the header has");
            break;
        }
        int all = n;
        if (n > 8)
            n = 8;
        if (uid_col < 0) {
            columns = all;
            uid_col = ks_csv_find(fields, n, "uid");
            id_col = ks_csv_find(fields, n, "id");
            role_col = ks_csv_find(fields, n, "role");
            launch_col = ks_csv_find(fields, n, "trace_launch");
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
        unsigned char is_measured = 1;
        if (role_col >= 0) {
            const char *role = n > role_col ? ks_trim(fields[role_col]) : "";
            if (strcmp(role, "warmup") == 0)
                is_measured = 0;
            else if (strcmp(role, "measured") != 0) {
                st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                  "role must be measured or warmup, got '%.40s'", role);
                break;
            }
        }
        int64_t launch = id + 1;
        bool lm = false;
        if (launch_col >= 0 && (n <= launch_col || !ks_parse_i64(fields[launch_col], &launch, &lm) ||
                                lm || launch < 1)) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                              "trace_launch must be a 1-based launch number");
            break;
        }
        warmups = warmups || !is_measured;
        remapped = remapped || launch != id + 1;
        if ((st = ks_grow((void **)ids, &cap, *count + 1, sizeof **ids, err)) != KS_OK ||
            (st = ks_grow((void **)measured, &mcap, *count + 1, 1, err)) != KS_OK ||
            (st = ks_grow((void **)launches, &lcap, *count + 1, sizeof **launches, err)) != KS_OK)
            break;
        (*launches)[*count] = (uint64_t)(launch - 1);
        (*measured)[*count] = is_measured;
        (*ids)[(*count)++] = (uint64_t)id;
    }
    ks_input_close(in);
    if (st == KS_OK && uid_col < 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0, "empty uid map");
    if (st != KS_OK) {
        free(*ids);
        *ids = NULL;
    }
    if (st != KS_OK || !warmups) {
        free(*measured);
        *measured = NULL;
    }
    if (st != KS_OK || !remapped) {
        free(*launches);
        *launches = NULL;
    }
    return st;
}

/* ---------------------------------------- the table, for results_sim.c */

ks_status ks_results_add_source(ks_results *r, const char *name, const char *warmup,
                                uint32_t *index, ks_error *err)
{
    ks_status st = add_source(r, name, index, err);
    if (st != KS_OK)
        return st;
    char **w = realloc(r->source_warmup, r->source_count * sizeof *w);
    if (!w)
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    r->source_warmup = w;
    if (!(w[r->source_count - 1] = strdup(warmup ? warmup : "")))
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    return KS_OK;
}

ks_status ks_results_row_for(ks_results *r, uint64_t id, uint32_t source, long line,
                             bool accumulate, size_t *row, ks_error *err)
{
    return row_for(r, id, source, line, accumulate, row, err);
}

ks_status ks_results_metric_index(ks_results *r, const char *name, size_t *index, ks_error *err)
{
    return add_metric(r, name, false, index, err);
}

void ks_results_put(ks_results *r, size_t row, size_t metric, double v, bool accumulate)
{
    put(r, row, metric, v, accumulate);
}

const char *ks_results_warmup(const ks_results *r)
{
    const char *w = NULL;
    for (size_t i = 0; r && i < r->source_count; i++) {
        const char *s = r->source_warmup && r->source_warmup[i] ? r->source_warmup[i] : "";
        if (!*s)
            s = "unknown";
        if (w && strcmp(w, s) != 0)
            return "mixed";
        w = s;
    }
    return w ? w : "unknown";
}
