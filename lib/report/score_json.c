/*
 * score_json.c - reads what `ksample score --json` prints, for the report's
 * measured speedup-against-error curves: the full run's cycles ("truth")
 * and, per method and set of values (and estimator), the speedup and error
 * of its plans over the seeds.  One file is one point of each series; the
 * report joins the points of several files (a knob swept) into curves.
 */
#include "json_file.h"
#include "ksample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* key: a number, or null (NAN: score --json writes null for a value it has
 * none of); absent is an error when required, else NAN too. */
static ks_status number_field(const char *path, const char *where, yajl_val obj, const char *key,
                              bool required, double *out, ks_error *err)
{
    const char *keys[] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, keys, yajl_t_any);
    *out = NAN;
    if ((!v && !required) || (v && YAJL_IS_NULL(v)))
        return KS_OK;
    if (!v || !YAJL_IS_NUMBER(v))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "%s: \"%s\" is missing or not a number",
                            where, key);
    *out = YAJL_GET_DOUBLE(v);
    return KS_OK;
}

static const char *string_field(yajl_val obj, const char *key)
{
    const char *keys[] = {key, NULL};
    yajl_val v = yajl_tree_get(obj, keys, yajl_t_string);
    return v ? YAJL_GET_STRING(v) : NULL;
}

/* The series a set belongs to: the label (the file's NAME=) in place of the
 * method's name when the file holds one method, before it when several;
 * the estimator after it when it is not the plain one. */
static void series_name(char *out, size_t size, const char *label, const char *method,
                        size_t methods, const char *estimator)
{
    char base[96];
    if (label && methods == 1)
        snprintf(base, sizeof base, "%s", label);
    else if (label)
        snprintf(base, sizeof base, "%s %s", label, method);
    else
        snprintf(base, sizeof base, "%s", method);
    if (estimator && strcmp(estimator, "plain") != 0)
        snprintf(out, size, "%.80s (%.12s)", base, estimator);
    else
        snprintf(out, size, "%s", base);
}

static ks_status read_set(const char *path, const char *label, const char *method,
                          size_t methods, size_t m, size_t s, yajl_val set, ks_score_point *pt,
                          ks_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "method %zu, set %zu", m, s);
    if (!YAJL_IS_OBJECT(set))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "%s is not an object", where);
    const char *values = string_field(set, "values");
    if (!values || !values[0])
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "%s has no \"values\"", where);
    if (strlen(values) >= sizeof pt->values)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "%s: \"values\" is longer than %zu",
                            where, sizeof pt->values - 1);
    snprintf(pt->values, sizeof pt->values, "%s", values);
    series_name(pt->series, sizeof pt->series, label, method, methods,
                string_field(set, "estimator"));
    struct {
        const char *key;
        bool required;
        double *out;
    } fields[] = {{"launches_mean", true, &pt->launches_mean},
                  {"speedup_hmean", true, &pt->speedup_hmean},
                  {"error_mean", true, &pt->error_mean},
                  {"error_signed_mean", false, &pt->error_signed_mean},
                  {"error_max", false, &pt->error_max},
                  {"coverage", false, &pt->coverage}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        ks_status st = number_field(path, where, set, fields[i].key, fields[i].required,
                                    fields[i].out, err);
        if (st != KS_OK)
            return st;
    }
    if (pt->speedup_hmean < 0 || pt->error_mean < 0 || pt->launches_mean < 0 ||
        pt->error_max < 0 || pt->coverage < 0 || pt->coverage > 1)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "%s: a negative speedup, launch count or error, or a coverage "
                            "outside [0, 1]",
                            where);
    return KS_OK;
}

/* The number of sets over all methods, checking the shape on the way. */
static ks_status count_sets(const char *path, yajl_val list, size_t *total, ks_error *err)
{
    static const char *sets_key[] = {"sets", NULL};
    *total = 0;
    for (size_t m = 0; m < list->u.array.len; m++) {
        yajl_val obj = list->u.array.values[m];
        if (!YAJL_IS_OBJECT(obj))
            return ks_error_set(err, KS_ERR_FORMAT, path, 0, "method %zu is not an object", m);
        const char *name = string_field(obj, "method");
        if (!name || !name[0])
            return ks_error_set(err, KS_ERR_FORMAT, path, 0, "method %zu has no \"method\"", m);
        yajl_val sets = yajl_tree_get(obj, sets_key, yajl_t_array);
        if (!sets)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "method %zu (%s) has no list \"sets\"", m, name);
        *total += sets->u.array.len;
    }
    return KS_OK;
}

static ks_status read_points(const char *path, const char *label, yajl_val root, double *truth,
                             ks_score_point **points, size_t *count, ks_error *err)
{
    static const char *methods_key[] = {"methods", NULL};
    static const char *sets_key[] = {"sets", NULL};
    if (!YAJL_IS_OBJECT(root))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "expected a JSON object with \"truth\" and \"methods\" "
                            "(ksample score --json)");
    ks_status st = number_field(path, "the score", root, "truth", true, truth, err);
    if (st != KS_OK)
        return st;
    if (!(*truth > 0) || !isfinite(*truth))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "\"truth\" (the full run's cycles) must be positive, got %g", *truth);
    /* the workload scored (score --json writes it; older files do not) */
    double launches;
    if ((st = number_field(path, "the score", root, "launches", false, &launches, err)) != KS_OK)
        return st;
    if (!isnan(launches) && (!(launches >= 1 && launches < 1e18) || launches != floor(launches)))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "\"launches\" (the scored workload's) must be a positive whole "
                            "number, got %g",
                            launches);
    yajl_val list = yajl_tree_get(root, methods_key, yajl_t_array);
    if (!list)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "no list \"methods\"");
    size_t total;
    if ((st = count_sets(path, list, &total, err)) != KS_OK)
        return st;
    if (total == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "no method has a scored set");
    ks_score_point *out = calloc(total, sizeof *out);
    if (!out)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    size_t n = 0, methods = list->u.array.len;
    for (size_t m = 0; st == KS_OK && m < methods; m++) {
        yajl_val obj = list->u.array.values[m];
        const char *name = string_field(obj, "method");
        yajl_val sets = yajl_tree_get(obj, sets_key, yajl_t_array);
        for (size_t s = 0; st == KS_OK && s < sets->u.array.len; s++)
            st = read_set(path, label, name, methods, m, s, sets->u.array.values[s], &out[n++],
                          err);
    }
    if (st != KS_OK) {
        free(out);
        return st;
    }
    for (size_t i = 0; i < n; i++)
        out[i].workload_launches = launches;
    *points = out;
    *count = n;
    return KS_OK;
}

ks_status ks_score_points_read(const char *path, const char *label, double *truth,
                               ks_score_point **points, size_t *count, ks_error *err)
{
    *points = NULL;
    *count = 0;
    *truth = NAN;
    if (label && (!label[0] || strlen(label) > 64))
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "a series label must have 1 to 64 characters");
    yajl_val root;
    ks_status st = ks_json_file_parse(path, 64u << 20, &root, err);
    if (st != KS_OK)
        return st;
    st = read_points(path, label, root, truth, points, count, err);
    yajl_tree_free(root);
    if (st != KS_OK)
        *truth = NAN;
    return st;
}
