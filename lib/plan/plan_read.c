/*
 * plan_read.c - reads back a plan that ks_plan_write_json wrote, streaming
 * (yajl), so a plan of millions of samples costs its arrays and nothing
 * more.  Every field the writer emits is read into the plan, so that writing
 * it again gives the same bytes; params this version does not know are kept
 * as their JSON text.  What the writer guarantees is checked rather than
 * trusted: ids sorted and unique, cluster and group indexes in range,
 * weights positive, counts that agree with the summary.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "json_stream.h"

/* Where the parser is: top level, inside one of the top-level objects, or
 * inside an element of one of the arrays. */
typedef enum section {
    SEC_NONE,
    SEC_PARAMS,
    SEC_INPUT,
    SEC_PARENT,
    SEC_BOUND,
    SEC_SUMMARY,
    SEC_GROUPS,
    SEC_CLUSTERS,
    SEC_SAMPLES,
    SEC_POOLS,
    SEC_UNSIM,
    SEC_SKIP /* top-level key this version ignores (tool) */
} section;

typedef struct plan_parser {
    ks_plan *plan;
    ks_error *err;
    const char *name;
    int depth;      /* maps and arrays open */
    section sec;
    char top_key[64];
    char key[64];   /* key inside the current object */
    long schema;
    bool have_schema;
    /* the record being read inside clusters / samples */
    ks_cluster cluster;
    char cluster_path[KS_PATH_SIZE];
    uint64_t cluster_index;
    unsigned cluster_fields;
    ks_sample sample;
    unsigned sample_fields;
    uint64_t summary_samples, summary_clusters, summary_groups;
    /* "pools": kernel group indexes, each pool's first marked */
    uint64_t *pool_keys;
    unsigned char *pool_first;
    size_t pool_len, pool_cap;
    bool pool_open, pool_new, have_pools;
    bool failed; /* err holds the reason */
} plan_parser;

static int fail(plan_parser *ps, const char *fmt, const char *what)
{
    if (!ps->failed) {
        ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0, fmt, what);
        ps->failed = true;
    }
    return 0;
}

static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
    if (len == 0 || len > 20)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

static bool parse_i64(const char *s, size_t len, int64_t *v)
{
    bool neg = len > 0 && s[0] == '-';
    uint64_t u;
    if (!parse_u64(s + neg, len - neg, &u))
        return false;
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
        return false;
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

/* the one number rule (a subnormal the plan's writer printed, such as an
 * epsilon of 1e-320, reads back as the same double) */
static bool parse_num(const char *s, size_t len, double *v)
{
    return len < 64 && ks_parse_decimal(s, len, 0, v) == NULL;
}

static char *dup_n(const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

static void copy_text(char *dst, size_t size, const char *s, size_t len)
{
    if (len >= size)
        len = size - 1;
    memcpy(dst, s, len);
    dst[len] = '\0';
}

/* The plan's text fields inside its objects: which object and key hold
 * each.  Other string keys there are ignored. */
#define PLAN_TEXT(sec, key, field)                                                         \
    {sec, key, offsetof(ks_plan, field), sizeof(((ks_plan *)0)->field)}
static const struct plan_text {
    section sec;
    const char *key;
    size_t offset, size;
} plan_texts[] = {
    PLAN_TEXT(SEC_INPUT, "path", input_path),
    PLAN_TEXT(SEC_INPUT, "xxh128", input_xxh128),
    PLAN_TEXT(SEC_INPUT, "format", input_format),
    PLAN_TEXT(SEC_INPUT, "selection", selection),
    PLAN_TEXT(SEC_UNSIM, "what", unsim_what),
    PLAN_TEXT(SEC_UNSIM, "kernels", unsim_kernels),
    PLAN_TEXT(SEC_PARENT, "path", parent_path),
    PLAN_TEXT(SEC_PARENT, "xxh128", parent_xxh128),
    PLAN_TEXT(SEC_BOUND, "scope", bound_scope),
    PLAN_TEXT(SEC_BOUND, "variance", variance_formula),
};

/* Copies s (cut to the field's size) into the text field that ps->sec and
 * ps->key name, if any. */
static void plan_text(plan_parser *ps, const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof plan_texts / sizeof plan_texts[0]; i++)
        if (plan_texts[i].sec == ps->sec && strcmp(plan_texts[i].key, ps->key) == 0)
            copy_text((char *)ps->plan + plan_texts[i].offset, plan_texts[i].size, s, len);
}

/* ------------------------------------------------------------- params */

static int add_extra_param(plan_parser *ps, const char *json, size_t len)
{
    ks_plan *pl = ps->plan;
    char **names = realloc(pl->extra_param_names, (pl->extra_param_count + 1) * sizeof *names);
    if (!names)
        return fail(ps, "%sout of memory", "");
    pl->extra_param_names = names;
    char **values = realloc(pl->extra_param_values, (pl->extra_param_count + 1) * sizeof *values);
    if (!values)
        return fail(ps, "%sout of memory", "");
    pl->extra_param_values = values;
    names[pl->extra_param_count] = strdup(ps->key);
    values[pl->extra_param_count] = dup_n(json, len);
    if (!names[pl->extra_param_count] || !values[pl->extra_param_count]) {
        free(names[pl->extra_param_count]);
        free(values[pl->extra_param_count]);
        return fail(ps, "%sout of memory", "");
    }
    pl->extra_param_count++;
    return 1;
}

/* A JSON string as the writer escapes it, for an unknown string param. */
static int extra_string_param(plan_parser *ps, const char *s, size_t len)
{
    size_t cap = len * 6 + 3, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return fail(ps, "%sout of memory", "");
    buf[n++] = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)c;
        } else if (c == '\n') {
            buf[n++] = '\\';
            buf[n++] = 'n';
        } else if (c == '\t') {
            buf[n++] = '\\';
            buf[n++] = 't';
        } else if (c == '\r') {
            buf[n++] = '\\';
            buf[n++] = 'r';
        } else if (c < 0x20) {
            n += (size_t)snprintf(buf + n, cap - n, "\\u%04x", c);
        } else {
            buf[n++] = (char)c;
        }
    }
    buf[n++] = '"';
    int r = add_extra_param(ps, buf, n);
    free(buf);
    return r;
}

static int param_number(plan_parser *ps, const char *s, size_t len)
{
    ks_params *pa = &ps->plan->params;
    double v;
    uint64_t u;
    if (!parse_num(s, len, &v))
        return fail(ps, "params.%s is not a number", ps->key);
    if (strcmp(ps->key, "epsilon") == 0)
        pa->epsilon = v;
    else if (strcmp(ps->key, "confidence") == 0)
        pa->confidence = v;
    else if (strcmp(ps->key, "z") == 0)
        ps->plan->z = v;
    else if (strcmp(ps->key, "shape_share") == 0) {
        if (!(v >= 0 && v <= 1))
            return fail(ps, "params.%s must be a number in [0, 1]", ps->key);
        pa->shape_share = v;
    }
    else if (strcmp(ps->key, "seed") == 0) {
        if (!parse_u64(s, len, &u))
            return fail(ps, "params.%s must be an unsigned integer", ps->key);
        pa->seed = u;
    } else
        /* a method's own parameters: kept as written (the plan file does
         * not say which table they came from) */
        return add_extra_param(ps, s, len);
    return 1;
}

/* ------------------------------------------------------------ records */

enum { CF_INDEX = 1, CF_GROUP = 2, CF_SIZE = 4, CF_M = 8, CF_PATH = 16 };
enum { SF_ID = 1, SF_WEIGHT = 2, SF_CLUSTER = 4 };

static int cluster_number(plan_parser *ps, const char *s, size_t len)
{
    ks_cluster *c = &ps->cluster;
    uint64_t u;
    const char *k = ps->key;
    bool ok = true;
    if (strcmp(k, "index") == 0)
        ok = parse_u64(s, len, &ps->cluster_index), ps->cluster_fields |= CF_INDEX;
    else if (strcmp(k, "group") == 0) {
        ok = parse_u64(s, len, &u) && u <= UINT32_MAX;
        c->group = ok ? (uint32_t)u : 0;
        ps->cluster_fields |= CF_GROUP;
    }
    else if (strcmp(k, "size") == 0)
        ok = parse_u64(s, len, &c->size), ps->cluster_fields |= CF_SIZE;
    else if (strcmp(k, "m") == 0)
        ok = parse_u64(s, len, &c->m), ps->cluster_fields |= CF_M;
    else if (strcmp(k, "mean_ns") == 0)
        ok = parse_num(s, len, &c->mean_ns);
    else if (strcmp(k, "std_ns") == 0)
        ok = parse_num(s, len, &c->std_ns);
    else if (strcmp(k, "m_real") == 0)
        ok = parse_num(s, len, &c->m_real);
    else if (strcmp(k, "min_ns") == 0)
        ok = parse_i64(s, len, &c->min_ns);
    else if (strcmp(k, "max_ns") == 0)
        ok = parse_i64(s, len, &c->max_ns);
    if (!ok)
        return fail(ps, "clusters[].%s is not a valid number", k);
    return 1;
}

static int sample_number(plan_parser *ps, const char *s, size_t len)
{
    uint64_t u;
    bool ok = true;
    if (strcmp(ps->key, "id") == 0)
        ok = parse_u64(s, len, &ps->sample.id), ps->sample_fields |= SF_ID;
    else if (strcmp(ps->key, "weight") == 0)
        ok = parse_num(s, len, &ps->sample.weight), ps->sample_fields |= SF_WEIGHT;
    else if (strcmp(ps->key, "cluster") == 0) {
        ok = parse_u64(s, len, &u) && u <= UINT32_MAX;
        ps->sample.cluster = ok ? (uint32_t)u : 0;
        ps->sample_fields |= SF_CLUSTER;
    }
    if (!ok)
        return fail(ps, "samples[].%s is not a valid number", ps->key);
    return 1;
}

static int end_cluster(plan_parser *ps)
{
    ks_plan *pl = ps->plan;
    if ((ps->cluster_fields & (CF_INDEX | CF_GROUP | CF_SIZE | CF_M | CF_PATH)) !=
        (CF_INDEX | CF_GROUP | CF_SIZE | CF_M | CF_PATH))
        return fail(ps, "a cluster lacks one of index, group, path, size, m%s", "");
    if (ps->cluster_index != pl->cluster_count)
        return fail(ps, "clusters are not numbered 0, 1, 2, ... in order%s", "");
    if (ps->cluster.group >= pl->group_count)
        return fail(ps, "a cluster names a group that the groups list lacks%s", "");
    if (ps->cluster.size == 0 || ps->cluster.m == 0)
        return fail(ps, "a cluster has size 0 or m 0%s", "");
    ps->cluster.path = ps->cluster_path;
    ks_error e;
    if (ks_plan_add_cluster(pl, &ps->cluster, NULL, &e) != KS_OK)
        return fail(ps, "%sout of memory", "");
    return 1;
}

static int end_sample(plan_parser *ps)
{
    ks_plan *pl = ps->plan;
    const ks_sample *s = &ps->sample;
    char what[96];
    snprintf(what, sizeof what, "samples[%zu] (id %llu)", pl->sample_count,
             (unsigned long long)s->id);
    if (ps->sample_fields != (SF_ID | SF_WEIGHT | SF_CLUSTER))
        return fail(ps, "%s lacks one of id, weight, cluster", what);
    if (!(s->weight > 0) || !isfinite(s->weight))
        return fail(ps, "%s: weight must be positive and finite", what);
    if (s->cluster >= pl->cluster_count)
        return fail(ps, "%s: cluster index out of range", what);
    if (pl->sample_count > 0 && pl->samples[pl->sample_count - 1].id >= s->id)
        return fail(ps, "%s: ids must be unique and in ascending order", what);
    if (pl->input_invocations > 0 && s->id >= pl->input_invocations)
        return fail(ps, "%s: id beyond the profile's invocations", what);
    ks_error e;
    uint64_t draws = pl->draws;
    if (ks_plan_add_sample(pl, s->id, s->weight, s->cluster, &e) != KS_OK)
        return fail(ps, "%sout of memory", "");
    pl->draws = draws; /* the summary's count, not one per sample */
    return 1;
}

/* ------------------------------------------------------------ callbacks */

/* One kernel group index of the pool being read. */
static int pool_number(plan_parser *ps, const char *s, size_t len)
{
    uint64_t u;
    if (ps->depth != 3 || !ps->pool_open)
        return fail(ps, "pools must be an array of arrays of kernel group indexes%s", "");
    if (!parse_u64(s, len, &u))
        return fail(ps, "pools[] holds a value that is not a group index%s", "");
    if (ps->pool_len == ps->pool_cap) {
        size_t cap = ps->pool_cap ? 2 * ps->pool_cap : 16;
        uint64_t *k = realloc(ps->pool_keys, cap * sizeof *k);
        if (k)
            ps->pool_keys = k;
        unsigned char *f = k ? realloc(ps->pool_first, cap) : NULL;
        if (f)
            ps->pool_first = f;
        if (!k || !f)
            return fail(ps, "%sout of memory", "");
        ps->pool_cap = cap;
    }
    ps->pool_first[ps->pool_len] = ps->pool_new;
    ps->pool_keys[ps->pool_len++] = u;
    ps->pool_new = false;
    return 1;
}

static int on_scalar_number(void *ctx, const char *s, size_t len)
{
    plan_parser *ps = ctx;
    ks_plan *pl = ps->plan;
    double v;
    uint64_t u;
    switch (ps->sec) {
    case SEC_POOLS:
        return pool_number(ps, s, len);
    case SEC_NONE:
        if (ps->depth != 1)
            return fail(ps, "unexpected number%s", "");
        if (strcmp(ps->top_key, "schema") == 0) {
            if (!parse_u64(s, len, &u) || u > 1000000)
                return fail(ps, "schema must be a small integer%s", "");
            ps->schema = (long)u;
            ps->have_schema = true;
        } else if (strcmp(ps->top_key, "predicted_speedup") == 0) {
            if (!parse_num(s, len, &v))
                return fail(ps, "predicted_speedup is not a number%s", "");
            pl->predicted_speedup = v;
        }
        return 1;
    case SEC_PARAMS:
        return param_number(ps, s, len);
    case SEC_INPUT:
        if (strcmp(ps->key, "bytes") == 0 && !parse_u64(s, len, &pl->input_bytes))
            return fail(ps, "input.bytes is not an unsigned integer%s", "");
        if (strcmp(ps->key, "invocations") == 0) {
            if (!parse_u64(s, len, &pl->input_invocations))
                return fail(ps, "input.invocations is not an unsigned integer%s", "");
            pl->population = pl->input_invocations;
        }
        if (strcmp(ps->key, "total_ns") == 0 && !parse_num(s, len, &pl->total_ns))
            return fail(ps, "input.total_ns is not a number%s", "");
        if (strcmp(ps->key, "selected") == 0 && !parse_u64(s, len, &pl->selected))
            return fail(ps, "input.selected is not an unsigned integer%s", "");
        return 1;
    case SEC_UNSIM:
        if (strcmp(ps->key, "launches") == 0 && !parse_u64(s, len, &pl->unsim_launches))
            return fail(ps, "unsimulated.launches is not an unsigned integer%s", "");
        if (strcmp(ps->key, "time_ns") == 0 && !parse_num(s, len, &pl->unsim_ns))
            return fail(ps, "unsimulated.time_ns is not a number%s", "");
        if (strcmp(ps->key, "share") == 0 && !parse_num(s, len, &pl->unsim_share))
            return fail(ps, "unsimulated.share is not a number%s", "");
        if (strcmp(ps->key, "overlap_ns") == 0 && !parse_num(s, len, &pl->unsim_overlap_ns))
            return fail(ps, "unsimulated.overlap_ns is not a number%s", "");
        return 1;
    case SEC_BOUND:
        if (strcmp(ps->key, "epsilon") == 0 && !parse_num(s, len, &pl->bound))
            return fail(ps, "bound.epsilon is not a number%s", "");
        if (strcmp(ps->key, "design_variance") == 0 &&
            !(parse_num(s, len, &pl->design_variance) && pl->design_variance >= 0))
            return fail(ps, "bound.design_variance is not a number at or above 0%s", "");
        if (strcmp(ps->key, "predicted_variance") == 0 &&
            !(parse_num(s, len, &pl->predicted_variance) && pl->predicted_variance >= 0))
            return fail(ps, "bound.predicted_variance is not a number at or above 0%s", "");
        if (strcmp(ps->key, "predicted_estimate") == 0 &&
            !parse_num(s, len, &pl->predicted_estimate))
            return fail(ps, "bound.predicted_estimate is not a number%s", "");
        if (strcmp(ps->key, "predicted_df") == 0 && !parse_num(s, len, &pl->predicted_df))
            return fail(ps, "bound.predicted_df is not a number%s", "");
        if (strcmp(ps->key, "predicted_halfwidth") == 0) {
            if (!parse_num(s, len, &pl->predicted_halfwidth))
                return fail(ps, "bound.predicted_halfwidth is not a number%s", "");
            pl->predicted = 1;
        }
        if (strcmp(ps->key, "lower_bound_cost_ns") == 0 && !parse_num(s, len, &pl->lower_bound_ns))
            return fail(ps, "bound.lower_bound_cost_ns is not a number%s", "");
        return 1;
    case SEC_SUMMARY:
        if (strcmp(ps->key, "draws") == 0 && !parse_u64(s, len, &pl->draws))
            return fail(ps, "summary.draws is not an unsigned integer%s", "");
        if (strcmp(ps->key, "samples") == 0 && !parse_u64(s, len, &ps->summary_samples))
            return fail(ps, "summary.samples is not an unsigned integer%s", "");
        if (strcmp(ps->key, "clusters") == 0 && !parse_u64(s, len, &ps->summary_clusters))
            return fail(ps, "summary.clusters is not an unsigned integer%s", "");
        if (strcmp(ps->key, "groups") == 0 && !parse_u64(s, len, &ps->summary_groups))
            return fail(ps, "summary.groups is not an unsigned integer%s", "");
        if (strcmp(ps->key, "sampled_ns") == 0 && !parse_num(s, len, &pl->sampled_ns))
            return fail(ps, "summary.sampled_ns is not a number%s", "");
        return 1;
    case SEC_CLUSTERS:
        if (ps->depth != 3)
            return fail(ps, "clusters must be an array of objects%s", "");
        return cluster_number(ps, s, len);
    case SEC_SAMPLES:
        if (ps->depth != 3)
            return fail(ps, "samples must be an array of objects%s", "");
        return sample_number(ps, s, len);
    case SEC_SKIP:
        return 1;
    default:
        return fail(ps, "unexpected number in %s", ps->top_key);
    }
}

static int on_string(void *ctx, const char *s, size_t len)
{
    plan_parser *ps = ctx;
    ks_plan *pl = ps->plan;
    if (memchr(s, '\0', len))
        return fail(ps, "a string holds a NUL character%s", "");
    switch (ps->sec) {
    case SEC_NONE:
        if (ps->depth == 1 && strcmp(ps->top_key, "method") == 0)
            copy_text(pl->method, sizeof pl->method, s, len);
        return 1;
    case SEC_PARAMS:
        if (strcmp(ps->key, "key") == 0) {
            char buf[64];
            copy_text(buf, sizeof buf, s, len);
            ks_error e;
            if (ks_key_parse(buf, &pl->params.key, &e) != KS_OK)
                return fail(ps, "params.key: unknown key '%s'", buf);
            pl->params.key_given = 1;
            return 1;
        }
        return extra_string_param(ps, s, len);
    case SEC_INPUT:
    case SEC_PARENT:
    case SEC_BOUND:
    case SEC_UNSIM:
        plan_text(ps, s, len);
        return 1;
    case SEC_GROUPS: {
        if (ps->depth != 2)
            return fail(ps, "groups must be an array of strings%s", "");
        char **labels = realloc(pl->group_labels, (pl->group_count + 1) * sizeof *labels);
        if (!labels)
            return fail(ps, "%sout of memory", "");
        pl->group_labels = labels;
        if (!(labels[pl->group_count] = dup_n((const char *)s, len)))
            return fail(ps, "%sout of memory", "");
        pl->group_count++;
        return 1;
    }
    case SEC_CLUSTERS:
        if (ps->depth == 3 && strcmp(ps->key, "path") == 0) {
            if (len >= sizeof ps->cluster_path)
                return fail(ps, "a cluster path is longer than %s allows", "KS_PATH_SIZE");
            copy_text(ps->cluster_path, sizeof ps->cluster_path, s, len);
            ps->cluster_fields |= CF_PATH;
        }
        return 1; /* "key" repeats the group label */
    case SEC_SKIP:
        return 1;
    default:
        return fail(ps, "unexpected string in %s", ps->top_key);
    }
}

static int on_boolean(void *ctx, int b)
{
    plan_parser *ps = ctx;
    if (ps->sec == SEC_PARAMS)
        return add_extra_param(ps, b ? "true" : "false", b ? 4 : 5);
    if (ps->sec == SEC_SUMMARY && strcmp(ps->key, "with_replacement") == 0) {
        ps->plan->with_replacement = b;
        return 1;
    }
    if (ps->sec == SEC_SKIP)
        return 1;
    return fail(ps, "unexpected true/false in %s", ps->top_key[0] ? ps->top_key : "the plan");
}

static int on_null(void *ctx)
{
    plan_parser *ps = ctx;
    if (ps->sec == SEC_NONE && strcmp(ps->top_key, "predicted_speedup") == 0) {
        ps->plan->predicted_speedup = INFINITY; /* the writer's null: nothing sampled */
        return 1;
    }
    /* the normal quantile; no interval (some stratum's spread unmeasured) */
    if (ps->sec == SEC_BOUND && strcmp(ps->key, "predicted_df") == 0) {
        ps->plan->predicted_df = INFINITY;
        return 1;
    }
    if (ps->sec == SEC_BOUND && strcmp(ps->key, "predicted_halfwidth") == 0) {
        ps->plan->predicted_halfwidth = INFINITY;
        ps->plan->predicted = 1;
        return 1;
    }
    if (ps->sec == SEC_PARAMS)
        return add_extra_param(ps, "null", 4);
    /* the writer's ratios, derived and not read back: null where a ratio
     * of finite values overflows (a variance of 1e300 over an estimate of
     * 1e-300) */
    if (ps->sec == SEC_BOUND &&
        (strcmp(ps->key, "design_rse") == 0 || strcmp(ps->key, "predicted_rse") == 0))
        return 1;
    if (ps->sec == SEC_UNSIM && strcmp(ps->key, "overlap_ns") == 0) {
        ps->plan->unsim_overlap_ns = NAN; /* unknown: no start times */
        return 1;
    }
    if (ps->sec == SEC_SKIP)
        return 1;
    return fail(ps, "unexpected null in %s", ps->top_key[0] ? ps->top_key : "the plan");
}

static section section_of(const char *key, bool is_array)
{
    static const struct {
        const char *name;
        section sec;
        bool array;
    } table[] = {{"params", SEC_PARAMS, false},   {"input", SEC_INPUT, false},
                 {"parent", SEC_PARENT, false},   {"bound", SEC_BOUND, false},
                 {"summary", SEC_SUMMARY, false}, {"groups", SEC_GROUPS, true},
                 {"clusters", SEC_CLUSTERS, true}, {"samples", SEC_SAMPLES, true},
                 {"pools", SEC_POOLS, true},      {"unsimulated", SEC_UNSIM, false}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(key, table[i].name) == 0)
            return table[i].array == is_array ? table[i].sec : SEC_NONE;
    return SEC_SKIP;
}

static int open_container(void *ctx, bool is_array)
{
    plan_parser *ps = ctx;
    if (ps->sec == SEC_SKIP && ps->depth >= 2) {
        /* inside a top-level value this version ignores: any shape */
        ps->depth++;
        return ps->depth < 1000 ? 1 : fail(ps, "nesting deeper than %s", "1000");
    }
    ps->depth++;
    if (ps->depth > 3)
        return fail(ps, "nesting deeper than the plan format has%s", "");
    if (ps->depth == 1) {
        if (is_array)
            return fail(ps, "a plan is a JSON object, not an array%s", "");
        return 1;
    }
    if (ps->depth == 2) {
        ps->sec = section_of(ps->top_key, is_array);
        if (ps->sec == SEC_NONE)
            return fail(ps, "'%s' has the wrong type", ps->top_key);
        ps->key[0] = '\0';
        return 1;
    }
    /* depth 3: an element of clusters / samples / pools */
    if (ps->sec == SEC_POOLS) {
        if (!is_array)
            return fail(ps, "pools must be an array of arrays of kernel group indexes%s", "");
        ps->pool_open = ps->pool_new = ps->have_pools = true;
        return 1;
    }
    if (is_array || (ps->sec != SEC_CLUSTERS && ps->sec != SEC_SAMPLES && ps->sec != SEC_SKIP))
        return fail(ps, "unexpected nested value in '%s'", ps->top_key);
    memset(&ps->cluster, 0, sizeof ps->cluster);
    ps->cluster_fields = 0;
    ps->cluster_path[0] = '\0';
    memset(&ps->sample, 0, sizeof ps->sample);
    ps->sample_fields = 0;
    return 1;
}


static int close_container(void *ctx, bool is_array)
{
    (void)is_array;
    plan_parser *ps = ctx;
    int r = 1;
    if (ps->sec == SEC_SKIP && ps->depth > 2)
        ;
    else if (ps->depth == 3 && ps->sec == SEC_CLUSTERS)
        r = end_cluster(ps);
    else if (ps->depth == 3 && ps->sec == SEC_SAMPLES)
        r = end_sample(ps);
    else if (ps->depth == 3 && ps->sec == SEC_POOLS) {
        if (ps->pool_new)
            r = fail(ps, "a pool lists no kernel group%s", "");
        ps->pool_open = false;
    }
    else if (ps->depth == 2) {
        ps->sec = SEC_NONE;
        ps->top_key[0] = '\0';
    }
    ps->depth--;
    return r;
}


static int on_map_key(void *ctx, const char *s, size_t len)
{
    plan_parser *ps = ctx;
    if (ps->depth == 1) {
        copy_text(ps->top_key, sizeof ps->top_key, s, len);
        ps->sec = SEC_NONE;
        if (strcmp(ps->top_key, "tool") == 0)
            ps->sec = SEC_NONE;
    } else {
        if (len >= sizeof ps->key)
            return fail(ps, "a key is longer than %s allows", "64 bytes");
        copy_text(ps->key, sizeof ps->key, s, len);
    }
    return 1;
}

static int on_scalar(void *ctx, ks_json_kind kind, const char *s, size_t len)
{
    switch (kind) {
    case KS_JSON_NULL:
        return on_null(ctx);
    case KS_JSON_BOOL:
        return on_boolean(ctx, len == 4);
    case KS_JSON_NUMBER:
        return on_scalar_number(ctx, s, len);
    default:
        return on_string(ctx, s, len);
    }
}

static const ks_json_events events = {on_scalar, on_map_key, open_container, close_container};

/* ------------------------------------------------------------- driver */

static long count_lines(const unsigned char *p, size_t n)
{
    long lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += p[i] == '\n';
    return lines;
}

static ks_status parse_failure(plan_parser *ps, yajl_handle h, const unsigned char *chunk,
                               size_t len, long line_base)
{
    size_t at = yajl_get_bytes_consumed(h);
    long line = line_base + count_lines(chunk, at < len ? at : len) + 1;
    if (ps->failed) {
        ps->err->line = line;
        return ps->err->status;
    }
    unsigned char *msg = yajl_get_error(h, 0, chunk, len);
    ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, line, "not a plan (invalid JSON: %s)",
                 msg ? (const char *)msg : "parse error");
    if (msg)
        yajl_free_error(h, msg);
    for (char *c = ps->err->message; *c; c++)
        if (*c == '\n')
            *c = ' ';
    return KS_ERR_FORMAT;
}

/* The pools read: each lists ascending kernel group indexes, its lowest
 * first; a group is in one pool at most. */
static ks_status check_pools(plan_parser *ps)
{
    ks_plan *pl = ps->plan;
    if (!ps->have_pools)
        return KS_OK;
    pl->pool_rep = malloc((pl->group_count + 1) * sizeof *pl->pool_rep);
    if (!pl->pool_rep)
        return ks_error_set(ps->err, KS_ERR_NOMEM, ps->name, 0, "out of memory");
    for (size_t g = 0; g < pl->group_count; g++)
        pl->pool_rep[g] = UINT32_MAX;
    uint32_t rep = 0;
    for (size_t i = 0; i < ps->pool_len; i++) {
        uint64_t k = ps->pool_keys[i];
        if (k >= pl->group_count)
            return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                                "pools name kernel group %llu; the plan has %zu",
                                (unsigned long long)k, pl->group_count);
        if (pl->pool_rep[k] != UINT32_MAX)
            return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                                "kernel group %llu is in two pools", (unsigned long long)k);
        if (ps->pool_first[i])
            rep = (uint32_t)k;
        else if (k <= ps->pool_keys[i - 1])
            return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                                "a pool's kernel groups must be listed in ascending order");
        pl->pool_rep[k] = rep;
    }
    for (size_t g = 0; g < pl->group_count; g++)
        if (pl->pool_rep[g] == UINT32_MAX)
            pl->pool_rep[g] = (uint32_t)g;
    /* a cluster names its pool by the pool's lowest group */
    for (size_t c = 0; c < pl->cluster_count; c++)
        if (pl->pool_rep[pl->clusters[c].group] != pl->clusters[c].group)
            return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                                "cluster %zu names kernel group %u, which is pooled under %u",
                                c, pl->clusters[c].group,
                                pl->pool_rep[pl->clusters[c].group]);
    return KS_OK;
}

static ks_status check_whole(plan_parser *ps)
{
    ks_plan *pl = ps->plan;
    if (!ps->have_schema)
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                            "not a ksample plan: no \"schema\" field");
    if (ps->schema != KS_PLAN_SCHEMA)
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                            "plan schema %ld is not one this version reads (it reads %d); "
                            "use the ksample that wrote it",
                            ps->schema, KS_PLAN_SCHEMA);
    if (!pl->method[0])
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0, "the plan names no method");
    if (ps->summary_samples != pl->sample_count || ps->summary_clusters != pl->cluster_count ||
        ps->summary_groups != pl->group_count)
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                            "summary says %llu samples, %llu clusters, %llu groups; the plan "
                            "lists %zu, %zu, %zu",
                            (unsigned long long)ps->summary_samples,
                            (unsigned long long)ps->summary_clusters,
                            (unsigned long long)ps->summary_groups, pl->sample_count,
                            pl->cluster_count, pl->group_count);
    if (pl->sample_count == 0)
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0, "the plan has no samples");
    if (!(pl->params.confidence > 0 && pl->params.confidence < 1) || !(pl->z > 0) ||
        !(pl->bound >= 0) || !isfinite(pl->z))
        return ks_error_set(ps->err, KS_ERR_FORMAT, ps->name, 0,
                            "params.confidence, params.z or bound.epsilon out of range");
    const ks_method *m = ks_method_find(pl->method);
    pl->params.method = m ? m->name : NULL;
    /* a name+shape plan written before the shape share split every shape */
    if (pl->params.key == KS_KEY_NAME_SHAPE && isnan(pl->params.shape_share))
        pl->params.shape_share = 0;
    return check_pools(ps);
}

static ks_status parse_chunks(plan_parser *ps, yajl_handle h, ks_input *in, const char *data,
                              size_t len, ks_error *err)
{
    long line_base = 0;
    unsigned char buf[1 << 16];
    for (;;) {
        const unsigned char *chunk;
        size_t got;
        if (in) {
            ks_status st = ks_input_read(in, buf, sizeof buf, &got, err);
            if (st != KS_OK)
                return st;
            chunk = buf;
        } else {
            chunk = (const unsigned char *)data;
            got = len;
            data += len;
            len = 0;
        }
        if (got == 0)
            break;
        if (yajl_parse(h, chunk, got) != yajl_status_ok)
            return parse_failure(ps, h, chunk, got, line_base);
        line_base += count_lines(chunk, got);
    }
    if (yajl_complete_parse(h) != yajl_status_ok)
        return parse_failure(ps, h, (const unsigned char *)"", 0, line_base);
    return check_whole(ps);
}

static ks_status read_plan(ks_input *in, const char *data, size_t len, const char *name,
                           ks_plan *plan, ks_error *err)
{
    ks_plan_init(plan);
    ks_params_init(&plan->params);
    plan_parser ps = {.plan = plan, .err = err, .name = name};
    ks_json_stream stream = {&events, &ps};
    yajl_handle h = ks_json_stream_alloc(&stream);
    if (!h)
        return ks_error_set(err, KS_ERR_NOMEM, name, 0, "out of memory");
    ks_status st = parse_chunks(&ps, h, in, data, len, err);
    yajl_free(h);
    free(ps.pool_keys);
    free(ps.pool_first);
    if (st != KS_OK)
        ks_plan_free(plan);
    return st;
}

ks_status ks_plan_read(const char *path, ks_plan *plan, ks_error *err)
{
    ks_input *in;
    ks_plan_init(plan);
    ks_status st = ks_input_open_file(path, &in, err);
    if (st != KS_OK)
        return st;
    st = read_plan(in, NULL, 0, path, plan, err);
    ks_input_close(in);
    return st;
}

ks_status ks_plan_read_buffer(const char *data, size_t len, const char *name, ks_plan *plan,
                              ks_error *err)
{
    return read_plan(NULL, data, len, name, plan, err);
}

ks_status ks_file_xxh128(const char *path, char hex[33], ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open_file(path, &in, err);
    if (st != KS_OK)
        return st;
    uint64_t bytes;
    st = ks_input_finish_digest(in, hex, &bytes, err);
    ks_input_close(in);
    return st;
}

ks_status ks_plan_open_profile(const ks_plan *plan, const char *path, ks_profile **out,
                               ks_error *err)
{
    *out = NULL;
    bool given = path != NULL;
    if (!path)
        path = plan->input_path;
    if (!path[0])
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "the plan records no input profile: give it with --profile");

    ks_read_options opt;
    ks_read_options_init(&opt);
    if (plan->input_format[0])
        opt.format = plan->input_format;
    /* a plan drawn on a selection: its ids are the program's launch ids, so
     * the whole profile is read and the selection masks it (a time window
     * needs the start times) */
    opt.keep_start = plan->selection[0] && strstr(plan->selection, "time=");
    ks_status st = ks_profile_read(path, &opt, out, err);
    if (st != KS_OK && given && opt.format) {
        /* a file the user names that the plan's format does not read: with
         * its own format found, another profile is told apart by its digest
         * below rather than by the first column it lacks */
        ks_error again;
        opt.format = NULL;
        if (ks_profile_read(path, &opt, out, &again) == KS_OK)
            st = KS_OK;
    }
    if (st != KS_OK)
        return st;
    if (plan->selection[0]) {
        st = ks_profile_mask_selection(*out, plan->selection, err);
        ks_profile_drop_start(*out);
        if (st == KS_OK && (*out)->selected != plan->selected)
            st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                              "the plan's selection '%.200s' keeps %llu launches of this "
                              "profile, the plan records %llu: not the profile it was drawn on",
                              plan->selection, (unsigned long long)(*out)->selected,
                              (unsigned long long)plan->selected);
        if (st != KS_OK) {
            ks_profile_free(*out);
            *out = NULL;
            return st;
        }
    }
    if ((plan->input_xxh128[0] && strcmp(plan->input_xxh128, (*out)->source_xxh128) != 0) ||
        (*out)->n != plan->input_invocations) {
        ks_error_set(err, KS_ERR_FORMAT, path, 0,
                     "not the profile the plan was made from (digest %s, %zu invocations; "
                     "the plan records %s, %llu)",
                     (*out)->source_xxh128, (*out)->n, plan->input_xxh128,
                     (unsigned long long)plan->input_invocations);
        ks_profile_free(*out);
        *out = NULL;
        return KS_ERR_FORMAT;
    }
    return KS_OK;
}
