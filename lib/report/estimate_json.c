/*
 * estimate_json.c - reads what `ksample estimate --json` prints: a list of
 * objects with keys metric, estimate, ci_low, ci_high, rel_halfwidth and
 * bound_met, for the report's estimate section (the rows estimate shows
 * by default: one whose "default" is false is left out).
 */
#include "json_file.h"
#include "ksample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ks_status number_field(const char *path, size_t i, yajl_val obj, const char *key,
                              double *out, ks_error *err)
{
    const char *keys[] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, keys, yajl_t_any);
    if (v && YAJL_IS_NULL(v)) {
        *out = NAN; /* estimate --json writes null for a value it could not form */
        return KS_OK;
    }
    if (!v || !YAJL_IS_NUMBER(v))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "estimate %zu: \"%s\" is missing or not a number", i, key);
    *out = YAJL_GET_DOUBLE(v);
    return KS_OK;
}

/* obj's string member key, or NULL */
static const char *text_field(yajl_val obj, const char *key)
{
    const char *path[] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, path, yajl_t_string);
    return v ? YAJL_GET_STRING(v) : NULL;
}

static ks_status read_row(const char *path, size_t i, yajl_val obj, ks_estimate_row *row,
                          ks_error *err)
{
    static const char *metric_key[] = {"metric", NULL};
    static const char *bound_key[] = {"bound_met", NULL};
    if (!YAJL_IS_OBJECT(obj))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "estimate %zu is not an object", i);
    yajl_val metric = yajl_tree_get(obj, metric_key, yajl_t_string);
    const char *name = metric ? YAJL_GET_STRING(metric) : NULL;
    if (!name)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "estimate %zu has no \"metric\"", i);
    snprintf(row->metric, sizeof row->metric, "%s", name);
    ks_status st = number_field(path, i, obj, "estimate", &row->estimate, err);
    if (st == KS_OK)
        st = number_field(path, i, obj, "ci_low", &row->ci_low, err);
    if (st == KS_OK)
        st = number_field(path, i, obj, "ci_high", &row->ci_high, err);
    if (st == KS_OK)
        st = number_field(path, i, obj, "rel_halfwidth", &row->rel_halfwidth, err);
    yajl_val met = yajl_tree_get(obj, bound_key, yajl_t_any);
    row->bound_met = met && YAJL_IS_TRUE(met) ? 1 : met && YAJL_IS_FALSE(met) ? 0 : -1;
    /* what the command says beside the numbers, when the file has it */
    const char *kind = text_field(obj, "kind");
    /* a count, or a running total differenced per launch: a total of counts */
    row->count = kind && (strcmp(kind, "count") == 0 || strcmp(kind, "running total") == 0);
    const char *s = text_field(obj, "warmup");
    snprintf(row->warmup, sizeof row->warmup, "%s", s ? s : "");
    s = text_field(obj, "interval");
    snprintf(row->interval, sizeof row->interval, "%s", s ? s : "");
    s = text_field(obj, "interval_note");
    snprintf(row->interval_note, sizeof row->interval_note, "%s", s ? s : "");
    static const char *exact_key[] = {"exact", NULL};
    yajl_val exact = yajl_tree_get(obj, exact_key, yajl_t_any);
    row->exact = exact && YAJL_IS_TRUE(exact);
    row->cost_share = row->cost_predicted_speedup = NAN;
    row->cost_share_warmup = row->cost_warmup_factor = NAN;
    static const char *cost_key[] = {"cost", NULL};
    yajl_val cost = yajl_tree_get(obj, cost_key, yajl_t_object);
    const char *cm = cost ? text_field(cost, "of") : NULL;
    if (st == KS_OK && cm) {
        snprintf(row->cost_metric, sizeof row->cost_metric, "%s", cm);
        st = number_field(path, i, cost, "share", &row->cost_share, err);
        /* the rest may be absent (null) */
        const char *names[] = {"predicted_speedup", "share_with_warmup", "warmup_factor"};
        double *to[] = {&row->cost_predicted_speedup, &row->cost_share_warmup,
                        &row->cost_warmup_factor};
        for (size_t k = 0; k < 3 && st == KS_OK; k++) {
            const char *key[] = {names[k], NULL};
            if (yajl_tree_get(cost, key, yajl_t_any))
                st = number_field(path, i, cost, names[k], to[k], err);
        }
    }
    row->borrowed_share = NAN;
    row->variance_by[0] = '\0';
    static const char *borrowed_key[] = {"variance_borrowed_share", NULL};
    if (st == KS_OK && yajl_tree_get(obj, borrowed_key, yajl_t_any))
        st = number_field(path, i, obj, "variance_borrowed_share", &row->borrowed_share, err);
    static const char *by_key[] = {"variance_by_kernel", NULL};
    yajl_val by = st == KS_OK ? yajl_tree_get(obj, by_key, yajl_t_array) : NULL;
    size_t used = 0;
    for (size_t k = 0; by && k < by->u.array.len && st == KS_OK; k++) {
        yajl_val one = by->u.array.values[k];
        const char *kernel = YAJL_IS_OBJECT(one) ? text_field(one, "kernel") : NULL;
        double share;
        if (!kernel)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "estimate %zu: \"variance_by_kernel\" entry %zu has no "
                                "\"kernel\"",
                                i, k);
        if ((st = number_field(path, i, one, "share", &share, err)) != KS_OK)
            break;
        static const char *own_key[] = {"own_strata", NULL};
        yajl_val own = yajl_tree_get(one, own_key, yajl_t_any);
        int w = snprintf(row->variance_by + used, sizeof row->variance_by - used,
                         "%s%.0f%% %s%s", k ? ", " : "", 100 * share, kernel,
                         own && YAJL_IS_FALSE(own) ? " (borrowed)" : "");
        if (w < 0 || (size_t)w >= sizeof row->variance_by - used) {
            row->variance_by[used] = '\0'; /* what fits, whole entries only */
            break;
        }
        used += (size_t)w;
    }
    return st;
}

ks_status ks_estimate_rows_read(const char *path, ks_estimate_row **rows, size_t *count,
                                ks_error *err)
{
    *rows = NULL;
    *count = 0;
    yajl_val root;
    ks_status st = ks_json_file_parse(path, 64u << 20, &root, err);
    if (st != KS_OK)
        return st;
    if (!YAJL_IS_ARRAY(root)) {
        yajl_tree_free(root);
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "expected a JSON list of estimates (ksample estimate --json)");
    }
    size_t n = root->u.array.len;
    ks_estimate_row *out = calloc(n ? n : 1, sizeof *out);
    if (!out)
        st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    /* the rows estimate prints by default: --json lists every metric, each
     * with "default" saying whether it is one of them (absent: it is) */
    static const char *default_key[] = {"default", NULL};
    size_t kept = 0;
    for (size_t i = 0; st == KS_OK && i < n; i++) {
        yajl_val obj = root->u.array.values[i];
        st = read_row(path, i, obj, &out[kept], err);
        yajl_val shown = YAJL_IS_OBJECT(obj) ? yajl_tree_get(obj, default_key, yajl_t_any) : NULL;
        if (!(shown && YAJL_IS_FALSE(shown)))
            kept++;
    }
    n = kept;
    yajl_tree_free(root);
    if (st != KS_OK) {
        free(out);
        return st;
    }
    *rows = out;
    *count = n;
    return KS_OK;
}
