/*
 * plan.c - the plan: clusters, weighted samples, totals, and its JSON / CSV
 * forms.  The serialised plan depends only on the plan's contents, so the
 * same profile, parameters and seed give the same bytes.
 */
#include "internal.h"
#include "sort.h"
#include "variance.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ks_plan_init(ks_plan *plan)
{
    memset(plan, 0, sizeof *plan);
}

void ks_plan_free(ks_plan *plan)
{
    for (size_t i = 0; i < plan->group_count; i++)
        free(plan->group_labels[i]);
    free(plan->group_labels);
    for (size_t i = 0; i < plan->cluster_count; i++)
        free(plan->clusters[i].path);
    free(plan->clusters);
    free(plan->samples);
    for (size_t i = 0; i < plan->extra_param_count; i++) {
        free(plan->extra_param_names[i]);
        free(plan->extra_param_values[i]);
    }
    free(plan->extra_param_names);
    free(plan->extra_param_values);
    free(plan->pool_rep);
    memset(plan, 0, sizeof *plan);
}

ks_status ks_plan_set_pools(ks_plan *plan, const uint32_t *pool_of, const uint32_t *rep,
                            size_t group_count, ks_error *err)
{
    if (group_count != plan->group_count)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "pools of another grouping");
    free(plan->pool_rep);
    plan->pool_rep = malloc((group_count + 1) * sizeof *plan->pool_rep);
    if (!plan->pool_rep)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < group_count; k++)
        plan->pool_rep[k] = rep[pool_of[k]];
    return KS_OK;
}

ks_status ks_plan_add_cluster(ks_plan *plan, const ks_cluster *c, uint32_t *index,
                              ks_error *err)
{
    ks_status st = ks_grow((void **)&plan->clusters, &plan->cluster_capacity,
                           plan->cluster_count + 1, sizeof *plan->clusters, err);
    if (st != KS_OK)
        return st;
    ks_cluster *dst = &plan->clusters[plan->cluster_count];
    *dst = *c;
    dst->path = strdup(c->path ? c->path : "");
    if (!dst->path)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (index)
        *index = (uint32_t)plan->cluster_count;
    plan->cluster_count++;
    return KS_OK;
}

void ks_plan_set_bound(ks_plan *plan, double bound, const char *scope)
{
    plan->bound = bound;
    snprintf(plan->bound_scope, sizeof plan->bound_scope, "%s", scope);
}

ks_status ks_plan_add_sample(ks_plan *plan, uint64_t id, double weight, uint32_t cluster,
                             ks_error *err)
{
    ks_status st = ks_grow((void **)&plan->samples, &plan->sample_capacity,
                           plan->sample_count + 1, sizeof *plan->samples, err);
    if (st != KS_OK)
        return st;
    plan->samples[plan->sample_count++] = (ks_sample){id, weight, cluster};
    plan->draws++;
    return KS_OK;
}

static int cmp_sample(const void *a, const void *b)
{
    const ks_sample *x = a, *y = b;
    return x->id < y->id ? -1 : (x->id > y->id);
}

ks_status ks_plan_finish(ks_plan *plan, const ks_profile *p, ks_error *err)
{
    return ks_plan_finish_total(plan, p, ks_profile_total_ns(p), err);
}

/* Stable LSD radix sort of (id << 32 | position) words on the id bits: the
 * order a stable sort by id gives (glibc's qsort is a stable merge sort, and
 * equal ids' weights are summed in this order).  qsort with a comparison
 * call per step was an eighth of a --allocation paper plan on a trace of a
 * thousand launches. */
static void radix_sort_by_id(uint64_t *a, uint64_t *tmp, size_t n, int id_bits)
{
    int bits = ks_radix_bits(n);
    size_t mask = ((size_t)1 << bits) - 1;
    uint64_t *src = a, *dst = tmp;
    for (int shift = 32; shift < 32 + id_bits; shift += bits) {
        ks_radix_pass(src, dst, n, shift, mask);
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* The samples in id order, ties in the order they were added. */
static void sort_samples(ks_plan *plan)
{
    size_t n = plan->sample_count;
    uint64_t largest = 0;
    for (size_t i = 0; i < n; i++)
        largest = plan->samples[i].id > largest ? plan->samples[i].id : largest;
    uint64_t *words = NULL;
    ks_sample *sorted = NULL;
    if (n >= 64 && n < ((size_t)1 << 32) && largest < ((uint64_t)1 << 32)) {
        words = malloc(2 * n * sizeof *words);
        sorted = malloc(n * sizeof *sorted);
    }
    if (!words || !sorted) {
        free(words);
        free(sorted);
        qsort(plan->samples, n, sizeof *plan->samples, cmp_sample);
        return;
    }
    int id_bits = 0;
    while (id_bits < 32 && (largest >> id_bits))
        id_bits++;
    for (size_t i = 0; i < n; i++)
        words[i] = plan->samples[i].id << 32 | i;
    radix_sort_by_id(words, words + n, n, id_bits);
    for (size_t i = 0; i < n; i++)
        sorted[i] = plan->samples[(uint32_t)words[i]];
    free(plan->samples);
    free(words);
    plan->samples = sorted;
    plan->sample_capacity = n;
}

ks_status ks_plan_finish_total(ks_plan *plan, const ks_profile *p, double total_ns,
                               ks_error *err)
{
    sort_samples(plan);
    size_t out = 0;
    for (size_t i = 0; i < plan->sample_count; i++) {
        if (out > 0 && plan->samples[out - 1].id == plan->samples[i].id) {
            if (plan->samples[out - 1].cluster != plan->samples[i].cluster)
                return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0,
                                    "invocation %llu sampled in two clusters",
                                    (unsigned long long)plan->samples[i].id);
            plan->samples[out - 1].weight += plan->samples[i].weight;
        } else {
            plan->samples[out++] = plan->samples[i];
        }
    }
    plan->sample_count = out;
    plan->population = p->n;
    plan->total_ns = total_ns;
    double sampled = 0;
    for (size_t i = 0; i < out; i++) {
        if (plan->samples[i].id >= p->n)
            return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "sample id out of range");
        sampled += (double)p->duration_ns[plan->samples[i].id];
    }
    plan->sampled_ns = sampled;
    plan->predicted_speedup = sampled > 0 ? plan->total_ns / sampled : INFINITY;
    snprintf(plan->input_path, sizeof plan->input_path, "%s", p->source_path);
    snprintf(plan->input_xxh128, sizeof plan->input_xxh128, "%s", p->source_xxh128);
    snprintf(plan->input_format, sizeof plan->input_format, "%s", p->source_format);
    plan->input_bytes = p->source_bytes;
    plan->input_invocations = p->n;
    if (p->selection[0]) {
        snprintf(plan->selection, sizeof plan->selection, "%s", p->selection);
        plan->selected = p->selected ? p->selected : p->n;
    }
    return KS_OK;
}

/* Parameter i's value, whatever its type. */
static double param_value(const ks_plan *plan, size_t i)
{
    const ks_param_def *d = &plan->param_defs[i];
    const unsigned char *at = plan->param_values + d->offset;
    int iv;
    uint64_t uv;
    double dv;
    switch (d->type) {
    case KS_PARAM_BOOL:
    case KS_PARAM_CHOICE:
        memcpy(&iv, at, sizeof iv);
        return iv;
    case KS_PARAM_UINT:
        memcpy(&uv, at, sizeof uv);
        return (double)uv;
    case KS_PARAM_REAL:
        memcpy(&dv, at, sizeof dv);
        return dv;
    }
    return NAN;
}

double ks_plan_param(const ks_plan *plan, const char *name)
{
    for (size_t i = 0; i < plan->param_count; i++)
        if (strcmp(plan->param_defs[i].name, name) == 0)
            return param_value(plan, i);
    return NAN;
}

double ks_plan_estimate(const ks_plan *plan, const double *values)
{
    long double s = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        s += plan->samples[i].weight * values[plan->samples[i].id];
    return (double)s;
}

double ks_plan_estimate_duration(const ks_plan *plan, const ks_profile *p)
{
    long double s = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        s += plan->samples[i].weight * (long double)p->duration_ns[plan->samples[i].id];
    return (double)s;
}

double *ks_plan_sample_durations(const ks_plan *plan, const ks_profile *p)
{
    double *x = malloc((plan->sample_count + 1) * sizeof *x);
    for (size_t i = 0; x && i < plan->sample_count; i++)
        x[i] = (double)p->duration_ns[plan->samples[i].id];
    return x;
}

/* ------------------------------------------------------------ writing */

static void json_string(FILE *f, const char *s)
{
    ks_json_write_string(f, s);
}

static void json_number(FILE *f, double x)
{
    if (!isfinite(x)) {
        fputs("null", f);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    fputs(buf, f);
}

/* `, "key": value` */
static void json_string_field(FILE *f, const char *key, const char *s)
{
    fprintf(f, ", \"%s\": ", key);
    json_string(f, s);
}

static void json_number_field(FILE *f, const char *key, double x)
{
    fprintf(f, ", \"%s\": ", key);
    json_number(f, x);
}

/* Whether parameter i is at its default (a parameter past the method's
 * pinned ones is written only when it is not).  ROOT's "replicate" is
 * written wherever the plan has replicated strata: its default became 0.2
 * (issue 38), and a plan file without it, written before, was drawn
 * without them and is read with the collapsed model (ks_plan_replicate;
 * a two-phase or paper-allocation plan has none whatever it says). */
static bool param_at_default(const ks_plan *plan, size_t i)
{
    const ks_param_def *d = &plan->param_defs[i];
    if (strcmp(d->name, "replicate") == 0 && strcmp(plan->method, "root") == 0 &&
        ks_plan_replicate(plan) > 0)
        return false;
    bool integral = d->type == KS_PARAM_BOOL || d->type == KS_PARAM_CHOICE;
    return param_value(plan, i) == (integral ? (double)(int)d->def : d->def);
}

/* The method's own parameters, in its table's order, named as the options
 * are with '_' for '-'. */
static void write_method_params(const ks_plan *plan, FILE *f)
{
    for (size_t i = 0; i < plan->param_count; i++) {
        const ks_param_def *d = &plan->param_defs[i];
        const unsigned char *at = plan->param_values + d->offset;
        if (plan->param_pinned && i >= plan->param_pinned && param_at_default(plan, i))
            continue;
        fputs(", \"", f);
        for (const char *c = d->name; *c; c++)
            fputc(*c == '-' ? '_' : *c, f);
        fputs("\": ", f);
        int iv;
        uint64_t uv;
        double dv;
        switch (d->type) {
        case KS_PARAM_BOOL:
            memcpy(&iv, at, sizeof iv);
            fputs(iv ? "true" : "false", f);
            break;
        case KS_PARAM_CHOICE:
            memcpy(&iv, at, sizeof iv);
            json_string(f, d->choices[iv]);
            break;
        case KS_PARAM_UINT:
            memcpy(&uv, at, sizeof uv);
            fprintf(f, "%llu", (unsigned long long)uv);
            break;
        case KS_PARAM_REAL:
            memcpy(&dv, at, sizeof dv);
            json_number(f, dv);
            break;
        }
    }
}

ks_status ks_plan_write_json(const ks_plan *plan, FILE *f, ks_error *err)
{
    const ks_params *pa = &plan->params;
    fprintf(f, "{\n  \"schema\": %d,\n  \"tool\": \"ksample %s\",\n  \"method\": ",
            KS_PLAN_SCHEMA, KS_VERSION);
    json_string(f, plan->method);
    fputs(",\n  \"params\": {\"key\": ", f);
    json_string(f, ks_key_to_string(pa->key));
    json_number_field(f, "epsilon", pa->epsilon);
    json_number_field(f, "confidence", pa->confidence);
    json_number_field(f, "z", plan->z);
    fprintf(f, ", \"seed\": %llu", (unsigned long long)pa->seed);
    if (pa->key == KS_KEY_NAME_SHAPE)
        json_number_field(f, "shape_share", ks_params_shape_share(pa));
    write_method_params(plan, f);
    for (size_t i = 0; i < plan->extra_param_count; i++) {
        fputs(", ", f);
        json_string(f, plan->extra_param_names[i]);
        fprintf(f, ": %s", plan->extra_param_values[i]);
    }
    fputs("},\n  \"input\": {\"path\": ", f);
    json_string(f, plan->input_path);
    json_string_field(f, "xxh128", plan->input_xxh128);
    fprintf(f, ", \"bytes\": %llu, \"format\": ", (unsigned long long)plan->input_bytes);
    json_string(f, plan->input_format);
    fprintf(f, ", \"invocations\": %llu, \"total_ns\": ",
            (unsigned long long)plan->input_invocations);
    json_number(f, plan->total_ns);
    if (plan->selection[0]) {
        json_string_field(f, "selection", plan->selection);
        fprintf(f, ", \"selected\": %llu", (unsigned long long)plan->selected);
    }
    if (plan->unsim_what[0]) {
        fputs("},\n  \"unsimulated\": {\"what\": ", f);
        json_string(f, plan->unsim_what);
        fprintf(f, ", \"launches\": %llu, \"time_ns\": ",
                (unsigned long long)plan->unsim_launches);
        json_number(f, plan->unsim_ns);
        fputs(", \"share\": ", f);
        json_number(f, plan->unsim_share);
        fputs(", \"overlap_ns\": ", f);
        json_number(f, plan->unsim_overlap_ns);
        json_string_field(f, "kernels", plan->unsim_kernels);
    }
    if (plan->parent_path[0]) {
        fputs("},\n  \"parent\": {\"path\": ", f);
        json_string(f, plan->parent_path);
        json_string_field(f, "xxh128", plan->parent_xxh128);
    }
    fputs("},\n  \"predicted_speedup\": ", f);
    json_number(f, plan->predicted_speedup);
    fputs(",\n  \"bound\": {\"epsilon\": ", f);
    json_number(f, plan->bound);
    json_number_field(f, "confidence", plan->bound > 0 ? pa->confidence : 0);
    json_string_field(f, "scope", plan->bound_scope[0] ? plan->bound_scope : "none");
    if (plan->variance_formula[0]) {
        json_string_field(f, "variance", plan->variance_formula);
        json_number_field(f, "design_variance", plan->design_variance);
        json_number_field(f, "design_rse",
                          plan->total_ns > 0 ? sqrt(plan->design_variance) / plan->total_ns : 0);
        json_number_field(f, "lower_bound_cost_ns", plan->lower_bound_ns);
    }
    if (plan->predicted) {
        /* the promise: the one variance model's interval (lib/variance) */
        json_number_field(f, "predicted_estimate", plan->predicted_estimate);
        json_number_field(f, "predicted_variance", plan->predicted_variance);
        json_number_field(f, "predicted_rse",
                          plan->predicted_estimate != 0
                              ? sqrt(plan->predicted_variance) / fabs(plan->predicted_estimate)
                              : 0);
        json_number_field(f, "predicted_df", plan->predicted_df);
        json_number_field(f, "predicted_halfwidth", plan->predicted_halfwidth);
    }
    fputc('}', f);
    if (plan->note[0]) {
        fputs(",\n  \"note\": ", f);
        json_string(f, plan->note);
    }
    fprintf(f, ",\n  \"summary\": {\"samples\": %zu, \"draws\": %llu, \"clusters\": %zu, "
               "\"groups\": %zu, \"sampled_ns\": ",
            plan->sample_count, (unsigned long long)plan->draws, plan->cluster_count,
            plan->group_count);
    json_number(f, plan->sampled_ns);
    fprintf(f, ", \"with_replacement\": %s", plan->with_replacement ? "true" : "false");
    fputs("},\n  \"groups\": [", f);
    for (size_t i = 0; i < plan->group_count; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_string(f, plan->group_labels[i]);
    }
    fputs(plan->group_count ? "\n  ]" : "]", f);
    if (plan->pool_rep) {
        /* the kernel groups sharing strata, each pool by its lowest */
        bool any = false;
        for (size_t g = 0; g < plan->group_count; g++) {
            if (plan->pool_rep[g] != g)
                continue;
            bool first = true;
            for (size_t k = g + 1; k < plan->group_count; k++) {
                if (plan->pool_rep[k] != g)
                    continue;
                if (first)
                    fprintf(f, "%s[%zu", any ? ",\n    " : ",\n  \"pools\": [\n    ", g);
                fprintf(f, ", %zu", k);
                first = false;
                any = true;
            }
            if (!first)
                fputc(']', f);
        }
        if (any)
            fputs("\n  ]", f);
    }
    fputs(",\n  \"clusters\": [", f);
    for (size_t i = 0; i < plan->cluster_count; i++) {
        const ks_cluster *c = &plan->clusters[i];
        fputs(i ? ",\n    " : "\n    ", f);
        fprintf(f, "{\"index\": %zu, \"group\": %u, \"key\": ", i, c->group);
        json_string(f, c->group < plan->group_count ? plan->group_labels[c->group] : "");
        json_string_field(f, "path", c->path);
        fprintf(f, ", \"size\": %llu, \"mean_ns\": ", (unsigned long long)c->size);
        json_number(f, c->mean_ns);
        json_number_field(f, "std_ns", c->std_ns);
        fprintf(f, ", \"min_ns\": %lld, \"max_ns\": %lld, \"m\": %llu, \"m_real\": ",
                (long long)c->min_ns, (long long)c->max_ns, (unsigned long long)c->m);
        json_number(f, c->m_real);
        fputc('}', f);
    }
    fputs(plan->cluster_count ? "\n  ],\n  \"samples\": [" : "],\n  \"samples\": [", f);
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        fputs(i ? ",\n    " : "\n    ", f);
        fprintf(f, "{\"id\": %llu, \"weight\": ", (unsigned long long)s->id);
        json_number(f, s->weight);
        fprintf(f, ", \"cluster\": %u}", s->cluster);
    }
    fputs(plan->sample_count ? "\n  ]\n}\n" : "]\n}\n", f);
    return ks_write_status(f, err);
}

ks_status ks_plan_write_csv(const ks_plan *plan, FILE *f, ks_error *err)
{
    fputs("id,weight\n", f);
    for (size_t i = 0; i < plan->sample_count; i++) {
        fprintf(f, "%llu,", (unsigned long long)plan->samples[i].id);
        json_number(f, plan->samples[i].weight);
        fputc('\n', f);
    }
    return ks_write_status(f, err);
}

static ks_status write_json(const void *ctx, FILE *f, ks_error *err)
{
    return ks_plan_write_json(ctx, f, err);
}

static ks_status write_csv(const void *ctx, FILE *f, ks_error *err)
{
    return ks_plan_write_csv(ctx, f, err);
}

ks_status ks_plan_save_json(const ks_plan *plan, const char *path, ks_error *err)
{
    return ks_write_atomic(path, write_json, plan, err);
}

ks_status ks_plan_save_csv(const ks_plan *plan, const char *path, ks_error *err)
{
    return ks_write_atomic(path, write_csv, plan, err);
}

ks_status ks_plan_json(const ks_plan *plan, char **text, size_t *size, ks_error *err)
{
    *text = NULL;
    *size = 0;
    FILE *f = open_memstream(text, size);
    if (!f)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_plan_write_json(plan, f, err);
    if (fclose(f) != 0 && st == KS_OK)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st != KS_OK) {
        free(*text);
        *text = NULL;
        *size = 0;
    }
    return st;
}

/* Whether id is one of the plan's samples (sorted and unique, as
 * ks_plan_read checks; a plan made in memory is searched whole). */
bool ks_plan_has_sample(const ks_plan *plan, uint64_t id)
{
    size_t lo = 0, hi = plan->sample_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan->samples[mid].id == id)
            return true;
        if (plan->samples[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = 0; i < plan->sample_count; i++)
        if (plan->samples[i].id == id)
            return true;
    return false;
}
