/*
 * plan.c - the plan: clusters, weighted samples, totals, and its JSON / CSV
 * forms.  The serialised plan depends only on the plan's contents, so the
 * same profile, parameters and seed give the same bytes.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ks_params_init(ks_params *p)
{
    memset(p, 0, sizeof *p);
    p->method = "root";
    p->key = KS_KEY_NAME;
    p->epsilon = 0.05;
    p->confidence = 0.95;
    p->allegro_n_th = 50;
    p->allegro_n_min = 30;
    p->seed = 1;
    p->max_depth = 64;
}

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
    memset(plan, 0, sizeof *plan);
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
    qsort(plan->samples, plan->sample_count, sizeof *plan->samples, cmp_sample);
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
    plan->total_ns = ks_profile_total_ns(p);
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
    return KS_OK;
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

/* ------------------------------------------------------------ writing */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        default:
            if (*c < 0x20)
                fprintf(f, "\\u%04x", *c);
            else
                fputc(*c, f);
        }
    }
    fputc('"', f);
}

/* Shortest text that reads back to the same double, so plans are exact and
 * stable; infinities (no time sampled) become null. */
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

ks_status ks_plan_write_json(const ks_plan *plan, FILE *f, ks_error *err)
{
    const ks_params *pa = &plan->params;
    fprintf(f, "{\n  \"schema\": %d,\n  \"tool\": \"ksample %s\",\n  \"method\": ",
            KS_PLAN_SCHEMA, KS_VERSION);
    json_string(f, plan->method);
    fputs(",\n  \"params\": {\"key\": ", f);
    json_string(f, ks_key_to_string(pa->key));
    fputs(", \"epsilon\": ", f);
    json_number(f, pa->epsilon);
    fputs(", \"confidence\": ", f);
    json_number(f, pa->confidence);
    fputs(", \"z\": ", f);
    json_number(f, plan->z);
    fprintf(f, ", \"seed\": %llu, \"with_replacement\": %s", (unsigned long long)pa->seed,
            pa->with_replacement ? "true" : "false");
    if (strcmp(plan->method, "allegro") == 0) {
        fputs(", \"n_th\": ", f);
        json_number(f, pa->allegro_n_th);
        fprintf(f, ", \"n_min\": %llu", (unsigned long long)pa->allegro_n_min);
    }
    if (strcmp(plan->method, "random") == 0) {
        fputs(", \"target_speedup\": ", f);
        json_number(f, pa->target_speedup);
        fputs(", \"fraction\": ", f);
        json_number(f, pa->fraction);
    }
    if (strcmp(plan->method, "root") == 0) {
        fprintf(f, ", \"max_depth\": %d, \"allocation\": ", pa->max_depth);
        json_string(f, pa->allocation == KS_ALLOC_PAPER ? "paper"
                       : pa->allocation == KS_ALLOC_TREE ? "tree" : "joint");
    }
    fputs("},\n  \"input\": {\"path\": ", f);
    json_string(f, plan->input_path);
    fputs(", \"xxh128\": ", f);
    json_string(f, plan->input_xxh128);
    fprintf(f, ", \"bytes\": %llu, \"format\": ", (unsigned long long)plan->input_bytes);
    json_string(f, plan->input_format);
    fprintf(f, ", \"invocations\": %llu, \"total_ns\": ",
            (unsigned long long)plan->input_invocations);
    json_number(f, plan->total_ns);
    fputs("},\n  \"predicted_speedup\": ", f);
    json_number(f, plan->predicted_speedup);
    fputs(",\n  \"bound\": {\"epsilon\": ", f);
    json_number(f, plan->bound);
    fputs(", \"confidence\": ", f);
    json_number(f, plan->bound > 0 ? pa->confidence : 0);
    fputs(", \"scope\": ", f);
    json_string(f, plan->bound_scope[0] ? plan->bound_scope : "none");
    if (plan->variance_formula[0]) {
        fputs(", \"variance\": ", f);
        json_string(f, plan->variance_formula);
        fputs(", \"predicted_variance\": ", f);
        json_number(f, plan->predicted_variance);
        fputs(", \"predicted_rse\": ", f);
        json_number(f, plan->total_ns > 0 ? sqrt(plan->predicted_variance) / plan->total_ns : 0);
        fputs(", \"lower_bound_cost_ns\": ", f);
        json_number(f, plan->lower_bound_ns);
    }
    fprintf(f, "},\n  \"summary\": {\"samples\": %zu, \"draws\": %llu, \"clusters\": %zu, "
               "\"groups\": %zu, \"sampled_ns\": ",
            plan->sample_count, (unsigned long long)plan->draws, plan->cluster_count,
            plan->group_count);
    json_number(f, plan->sampled_ns);
    fputs("},\n  \"groups\": [", f);
    for (size_t i = 0; i < plan->group_count; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_string(f, plan->group_labels[i]);
    }
    fputs(plan->group_count ? "\n  ],\n  \"clusters\": [" : "],\n  \"clusters\": [", f);
    for (size_t i = 0; i < plan->cluster_count; i++) {
        const ks_cluster *c = &plan->clusters[i];
        fputs(i ? ",\n    " : "\n    ", f);
        fprintf(f, "{\"index\": %zu, \"group\": %u, \"key\": ", i, c->group);
        json_string(f, c->group < plan->group_count ? plan->group_labels[c->group] : "");
        fputs(", \"path\": ", f);
        json_string(f, c->path);
        fprintf(f, ", \"size\": %llu, \"mean_ns\": ", (unsigned long long)c->size);
        json_number(f, c->mean_ns);
        fputs(", \"std_ns\": ", f);
        json_number(f, c->std_ns);
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
    if (ferror(f))
        return ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed: %s", strerror(errno));
    return KS_OK;
}

ks_status ks_plan_write_csv(const ks_plan *plan, FILE *f, ks_error *err)
{
    fputs("id,weight\n", f);
    for (size_t i = 0; i < plan->sample_count; i++) {
        fprintf(f, "%llu,", (unsigned long long)plan->samples[i].id);
        json_number(f, plan->samples[i].weight);
        fputc('\n', f);
    }
    if (ferror(f))
        return ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed: %s", strerror(errno));
    return KS_OK;
}

ks_status ks_write_atomic(const char *path, ks_writer_fn fn, const void *ctx, ks_error *err)
{
    if (strcmp(path, "-") == 0) {
        ks_status st = fn(ctx, stdout, err);
        if (st == KS_OK && fflush(stdout) != 0)
            st = ks_error_set(err, KS_ERR_IO, "<stdout>", 0, "write failed: %s",
                              strerror(errno));
        return st;
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ks_error_set(err, KS_ERR_IO, path, 0, "cannot create temporary file: %s",
                     strerror(errno));
        free(tmp);
        return KS_ERR_IO;
    }
    /* mkstemp makes the file 0600; give it the mode a plain fopen would */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        free(tmp);
        return ks_error_set(err, KS_ERR_IO, path, 0, "fdopen failed");
    }
    ks_status st = fn(ctx, f, err);
    if (st == KS_OK && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        st = ks_error_set(err, KS_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    if (fclose(f) != 0 && st == KS_OK)
        st = ks_error_set(err, KS_ERR_IO, path, 0, "write failed: %s", strerror(errno));
    if (st == KS_OK && rename(tmp, path) != 0)
        st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot rename into place: %s",
                          strerror(errno));
    if (st != KS_OK)
        unlink(tmp);
    free(tmp);
    return st;
}
