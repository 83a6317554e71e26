/*
 * representative.c - clusters with one representative each, shared by the
 * deterministic baselines (PKA, Sieve, Photon).  See representative.h.
 */
#include "representative.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

ks_rep_model *ks_rep_model_new(ks_error *err)
{
    ks_rep_model *m = calloc(1, sizeof *m);
    if (!m)
        ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    return m;
}

void ks_rep_model_free(void *model)
{
    ks_rep_model *m = model;
    if (!m)
        return;
    free(m->clusters);
    free(m->members);
    free(m);
}

uint32_t ks_rep_first(const uint32_t *ids, size_t n)
{
    uint32_t first = ids[0];
    for (size_t i = 1; i < n; i++)
        first = ids[i] < first ? ids[i] : first;
    return first;
}

ks_status ks_rep_add(ks_rep_model *m, uint32_t group, const char *path, const uint32_t *ids,
                     size_t n, uint32_t rep, ks_error *err)
{
    ks_status st;
    if ((st = ks_grow((void **)&m->clusters, &m->capacity, m->count + 1, sizeof *m->clusters,
                      err)) != KS_OK ||
        (st = ks_grow((void **)&m->members, &m->member_capacity, m->member_count + n,
                      sizeof *m->members, err)) != KS_OK)
        return st;
    ks_rep_cluster *c = &m->clusters[m->count++];
    memset(c, 0, sizeof *c);
    c->group = group;
    snprintf(c->path, sizeof c->path, "%s", path);
    c->rep = rep;
    c->first = m->member_count;
    c->count = n;
    memcpy(m->members + m->member_count, ids, n * sizeof *ids);
    m->member_count += n;
    return KS_OK;
}

void ks_rep_note(ks_rep_model *m, const char *fmt, ...)
{
    size_t used = strlen(m->note), size = sizeof m->note;
    if (used + 4 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(m->note + used, size - used, fmt, ap);
    va_end(ap);
    if (w >= 0 && used + (size_t)w >= size - 1)
        memcpy(m->note + size - 4, "...", 4);
}

static ks_status single_group(ks_plan *plan, ks_error *err)
{
    for (size_t i = 0; i < plan->group_count; i++)
        free(plan->group_labels[i]);
    plan->group_count = 0;
    char *all = strdup("all");
    if (!all)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    plan->group_labels[0] = all;
    plan->group_count = 1;
    return KS_OK;
}

static void cluster_stats(const ks_profile *p, const uint32_t *ids, size_t n, ks_cluster *c)
{
    long double sum = 0, sq = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t d = p->duration_ns[ids[i]];
        sum += d;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    long double mean = sum / (long double)n;
    for (size_t i = 0; i < n; i++) {
        long double t = p->duration_ns[ids[i]] - mean;
        sq += t * t;
    }
    c->size = n;
    c->mean_ns = (double)mean;
    c->std_ns = (double)sqrtl(sq / (long double)n);
    c->min_ns = lo;
    c->max_ns = hi;
    c->m = 1;
    c->m_real = 1;
}

ks_status ks_rep_select(const ks_method_input *in, const void *model, ks_rng *rng,
                        ks_plan *plan, ks_error *err)
{
    (void)rng;
    const ks_rep_model *m = model;
    ks_status st = m->single_group ? single_group(plan, err) : KS_OK;
    for (size_t i = 0; i < m->count && st == KS_OK; i++) {
        const ks_rep_cluster *rc = &m->clusters[i];
        ks_cluster c = {.group = m->single_group ? 0 : rc->group, .path = (char *)rc->path};
        cluster_stats(in->profile, m->members + rc->first, rc->count, &c);
        uint32_t index;
        st = ks_plan_add_cluster(plan, &c, &index, err);
        if (st == KS_OK)
            st = ks_plan_add_sample(plan, rc->rep, (double)rc->count, index, err);
    }
    ks_plan_set_bound(plan, 0, "none");
    snprintf(plan->note, sizeof plan->note, "%s", m->note);
    return st;
}
