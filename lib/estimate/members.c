/*
 * members.c - the launches of each plan cluster, recovered from the plan's
 * profile: the launches of the cluster's kernel group (or of any kernel of
 * its pool) whose duration lies in its [min_ns, max_ns] range.  Ranges of
 * one group must not overlap, and the count must be the cluster's size, or
 * the profile is not the plan's.  Refine draws its new launches from them;
 * the auxiliary estimators sum a metric column over them.
 */
#include "estimate.h"

#include <stdlib.h>
#include <string.h>

typedef struct members {
    size_t *start; /* launches of cluster c: ids[start[c] .. start[c+1]) */
    uint32_t *ids;
} members;

typedef int (*index_cmp)(uint32_t a, uint32_t b, const void *ctx);

/* Stable merge sort of indexes by cmp: qsort has no context argument in C11
 * and a file-scope pointer would be global state. */
static void sort_indexes(uint32_t *idx, uint32_t *tmp, size_t n, index_cmp cmp, const void *ctx)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_indexes(idx, tmp, h, cmp, ctx);
    sort_indexes(idx + h, tmp, n - h, cmp, ctx);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(idx[j], idx[i], ctx) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static int cmp_label(uint32_t a, uint32_t b, const void *labels)
{
    char *const *l = labels;
    return strcmp(l[a], l[b]);
}

/* plan group of each profile group, or UINT32_MAX */
static ks_status match_groups(const ks_plan *plan, const ks_groups *g, uint32_t *plan_group,
                              ks_error *err)
{
    size_t n = plan->group_count;
    uint32_t *idx = malloc((n + 1) * sizeof *idx), *tmp = malloc((n + 1) * sizeof *tmp);
    if (!idx || !tmp) {
        free(idx);
        free(tmp);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    sort_indexes(idx, tmp, n, cmp_label, plan->group_labels);
    for (size_t pg = 0; pg < g->count; pg++) {
        size_t lo = 0, hi = n;
        plan_group[pg] = UINT32_MAX;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = strcmp(plan->group_labels[idx[mid]], g->labels[pg]);
            if (c == 0) {
                plan_group[pg] = idx[mid];
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    free(idx);
    free(tmp);
    return KS_OK;
}

/* The cluster of group pg whose range holds d; clusters[] of the group
 * sorted by min_ns in order[first..last). */
static long cluster_of(const ks_plan *plan, const uint32_t *order, size_t first, size_t last,
                       int64_t d)
{
    size_t lo = first, hi = last;
    while (lo < hi) { /* first cluster with min_ns > d */
        size_t mid = (lo + hi) / 2;
        if (plan->clusters[order[mid]].min_ns <= d)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == first)
        return -1;
    const ks_cluster *c = &plan->clusters[order[lo - 1]];
    return d <= c->max_ns ? (long)order[lo - 1] : -1;
}

static int cmp_cluster_min(uint32_t a, uint32_t b, const void *ctx)
{
    const ks_plan *plan = ctx;
    const ks_cluster *x = &plan->clusters[a];
    const ks_cluster *y = &plan->clusters[b];
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->min_ns < y->min_ns ? -1 : (x->min_ns > y->min_ns);
}

static ks_status check_ranges(const ks_plan *plan, const uint32_t *order, ks_error *err)
{
    for (size_t i = 1; i < plan->cluster_count; i++) {
        const ks_cluster *a = &plan->clusters[order[i - 1]], *b = &plan->clusters[order[i]];
        if (a->group == b->group && b->min_ns <= a->max_ns)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "clusters %u and %u of one kernel group have overlapping "
                                "duration ranges: their members cannot be told apart",
                                order[i - 1], order[i]);
    }
    return KS_OK;
}

static ks_status assign(const ks_plan *plan, const ks_profile *p, const ks_groups *g,
                        const uint32_t *plan_group, const uint32_t *order,
                        const size_t *group_first, uint32_t *cluster_of_id, ks_error *err)
{
    /* launches outside a plan's selection (ks_profile_mask_selection) are
     * in no cluster: they go to the bin after the last one */
    uint32_t outside = ks_profile_masked_name(p);
    for (size_t i = 0; i < p->n; i++) {
        if (p->name_id[i] == outside) {
            cluster_of_id[i] = (uint32_t)plan->cluster_count;
            continue;
        }
        uint32_t pg = plan_group[g->group_of[i]];
        long c = pg == UINT32_MAX ? -1
                                  : cluster_of(plan, order, group_first[pg], group_first[pg + 1],
                                               p->duration_ns[i]);
        if (c < 0)
            return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                "launch %zu (%.200s, %lld ns) is in no cluster of the plan: not "
                                "the profile the plan was made from",
                                i, ks_profile_name(p, i), (long long)p->duration_ns[i]);
        cluster_of_id[i] = (uint32_t)c;
    }
    return KS_OK;
}

ks_status ks_plan_profile_check(const ks_plan *plan, const ks_profile *p, ks_error *err)
{
    if (p->n != plan->input_invocations)
        return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                            "the profile has %zu launches, the plan's %llu", p->n,
                            (unsigned long long)plan->input_invocations);
    return KS_OK;
}

ks_status ks_plan_profile_groups(const ks_plan *plan, const ks_profile *p, ks_groups *g,
                                 ks_error *err)
{
    ks_status st = ks_plan_profile_check(plan, p, err);
    return st != KS_OK ? st
                       : ks_groups_build_shapes(p, plan->params.key,
                                                ks_params_shape_share(&plan->params), g, err);
}

static ks_status build_members(const ks_plan *plan, const ks_profile *p, members *m,
                               ks_error *err)
{
    ks_groups g;
    ks_status st = ks_plan_profile_groups(plan, p, &g, err);
    if (st != KS_OK)
        return st;
    size_t k = plan->cluster_count;
    uint32_t *plan_group = malloc((g.count + 1) * sizeof *plan_group);
    uint32_t *order = malloc((k + 1) * sizeof *order), *tmp = malloc((k + 1) * sizeof *tmp);
    size_t *group_first = calloc(plan->group_count + 2, sizeof *group_first);
    uint32_t *cluster_of_id = malloc((p->n + 1) * sizeof *cluster_of_id);
    m->start = calloc(k + 3, sizeof *m->start); /* k + 2: outside a selection */
    m->ids = malloc((p->n + 1) * sizeof *m->ids);
    if (!plan_group || !order || !tmp || !group_first || !cluster_of_id || !m->start || !m->ids)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK)
        st = match_groups(plan, &g, plan_group, err);
    /* pooled strata: a kernel's launches are in the clusters of its pool */
    for (size_t pg = 0; st == KS_OK && plan->pool_rep && pg < g.count; pg++)
        if (plan_group[pg] != UINT32_MAX)
            plan_group[pg] = plan->pool_rep[plan_group[pg]];
    if (st == KS_OK) {
        for (size_t i = 0; i < k; i++)
            order[i] = (uint32_t)i;
        sort_indexes(order, tmp, k, cmp_cluster_min, plan);
        for (size_t i = 0; i < k; i++)
            group_first[plan->clusters[order[i]].group + 1]++;
        for (size_t gi = 0; gi < plan->group_count; gi++)
            group_first[gi + 1] += group_first[gi];
        st = check_ranges(plan, order, err);
    }
    if (st == KS_OK)
        st = assign(plan, p, &g, plan_group, order, group_first, cluster_of_id, err);
    if (st == KS_OK) {
        for (size_t i = 0; i < p->n; i++)
            m->start[cluster_of_id[i] + 2]++;
        for (size_t c = 0; c < k; c++)
            m->start[c + 2] += m->start[c + 1];
        for (size_t i = 0; i < p->n; i++)
            m->ids[m->start[cluster_of_id[i] + 1]++] = (uint32_t)i;
        for (size_t c = 0; c < k && st == KS_OK; c++)
            if (m->start[c + 1] - m->start[c] != plan->clusters[c].size)
                st = ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                  "cluster %zu: %zu launches of the profile in its range, the "
                                  "plan says %llu: not the profile the plan was made from",
                                  c, m->start[c + 1] - m->start[c],
                                  (unsigned long long)plan->clusters[c].size);
    }
    free(plan_group);
    free(order);
    free(tmp);
    free(group_first);
    free(cluster_of_id);
    ks_groups_free(&g);
    return st;
}

ks_status ks_plan_members(const ks_plan *plan, const ks_profile *p, size_t **start,
                          uint32_t **ids, ks_error *err)
{
    members m = {0};
    *start = NULL;
    *ids = NULL;
    ks_status st = build_members(plan, p, &m, err);
    if (st != KS_OK) {
        free(m.start);
        free(m.ids);
        return st;
    }
    *start = m.start;
    *ids = m.ids;
    return KS_OK;
}

