/*
 * root_pool.c - ROOT's pooled strata (--pool) and its two-phase pilot
 * (--two-phase).
 *
 * Pooled strata: ROOT takes at least one launch of every kernel group, so a
 * workload of 280 kernel names needs 280 simulations however loose the
 * bound.  Launches of different kernels with similar profiled behaviour can
 * share a stratum: the kernel groups are partitioned into pools, a pool's
 * launches are one design group (sorted by duration, cut into contiguous
 * strata and sized by the same exact optimiser), and the floor becomes one
 * launch per pool.  Which kernels may share a pool:
 *
 *   duration  any (strata of a pool are contiguous duration ranges anyway);
 *   features  only kernels whose profiled features agree: for every metric
 *             column the profile has for every launch, the kernel's total
 *             per ns of its time (additive counters: instructions, bytes,
 *             sectors) or its mean (rates, percentages) within a factor
 *             1 + tolerance, linked transitively (single linkage).  So a
 *             memory-bound kernel and a compute-bound one of the same
 *             duration stay apart.  Without such columns: as duration.
 *
 * Candidates: unpooled (ROOT's own design), every compatible set of kernels
 * pooled, and only the kernels whose unpooled design is one launch (the
 * floor) pooled, each set of compatible ones together.  Each is designed
 * by the joint optimiser under the same variance bound and the cheapest in
 * expected simulated time wins, the unpooled one on ties, so a pooled plan
 * is never dearer than unpooled ROOT at the same bound.  Everything is
 * exact and deterministic: no seed is used before the draws.
 *
 * The two-phase pilot: ROOT's design with at least K launches of every
 * kernel group (or pool); `refine --estimator ...` then sizes the strata
 * from the spread the simulated values show about the profile.
 */
#include "root.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ks_root_pools_free(ks_root_pools *pl)
{
    free(pl->pool_of);
    free(pl->rep);
    ks_groups_free(&pl->groups);
    memset(pl, 0, sizeof *pl);
}

/* The pooled design groups: launch i is in pool pool_of[key of i]; a pool's
 * label is its representative's (its lowest kernel group). */
static ks_status pools_groups(const ks_profile *p, const ks_groups *g, ks_root_pools *pl,
                              ks_error *err)
{
    ks_groups *o = &pl->groups;
    memset(o, 0, sizeof *o);
    o->key = g->key;
    o->count = pl->count;
    o->group_of = malloc((p->n + 1) * sizeof *o->group_of);
    o->size = calloc(pl->count + 1, sizeof *o->size);
    o->labels = calloc(pl->count + 1, sizeof *o->labels);
    if (!o->group_of || !o->size || !o->labels)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < p->n; i++) {
        uint32_t q = pl->pool_of[g->group_of[i]];
        o->group_of[i] = q;
        o->size[q]++;
    }
    for (size_t q = 0; q < pl->count; q++)
        if (!(o->labels[q] = strdup(g->labels[pl->rep[q]])))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    return KS_OK;
}

/* Pools from a label per kernel group (pool_key[k]: kernels with the same
 * value share a pool; UINT32_MAX: alone), numbered by their lowest
 * kernel. */
static ks_status pools_from_keys(const ks_profile *p, const ks_groups *g,
                                 const uint32_t *pool_key, ks_root_pools *pl, ks_error *err)
{
    size_t k = g->count;
    memset(pl, 0, sizeof *pl);
    pl->pool_of = malloc((k + 1) * sizeof *pl->pool_of);
    pl->rep = malloc((k + 1) * sizeof *pl->rep);
    uint32_t *first = malloc((k + 1) * sizeof *first);
    if (!pl->pool_of || !pl->rep || !first) {
        free(first);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < k; i++)
        first[i] = UINT32_MAX;
    for (size_t i = 0; i < k; i++) {
        uint32_t key = pool_key[i];
        if (key != UINT32_MAX && key < k && first[key] != UINT32_MAX) {
            pl->pool_of[i] = first[key];
            continue;
        }
        pl->rep[pl->count] = (uint32_t)i;
        pl->pool_of[i] = (uint32_t)pl->count;
        if (key != UINT32_MAX && key < k)
            first[key] = (uint32_t)pl->count;
        pl->count++;
    }
    free(first);
    return pools_groups(p, g, pl, err);
}

/* ------------------------------------------------------------- features */

static uint32_t find_root(uint32_t *parent, uint32_t a)
{
    while (parent[a] != a)
        a = parent[a] = parent[parent[a]];
    return a;
}

typedef struct key_rank {
    double v;
    uint32_t key;
} key_rank;

static int cmp_rank(const void *a, const void *b)
{
    const key_rank *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* Per kernel group, the component of kernels it may share a pool with:
 * comp[k] = the lowest kernel of its component.  mode duration (or no
 * feature columns): one component. */
static ks_status compatible(const ks_profile *p, const ks_groups *g, int mode, double tolerance,
                            uint32_t *comp, size_t *features_used, ks_error *err)
{
    size_t k = g->count, nf = 0;
    *features_used = 0;
    for (size_t i = 0; i < k; i++)
        comp[i] = 0;
    if (mode != KS_POOL_FEATURES || k < 2)
        return KS_OK;
    /* the columns every launch has, each with positive values somewhere */
    size_t *cols = malloc((p->metric_count + 1) * sizeof *cols);
    if (!cols)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t m = 0; m < p->metric_count; m++) {
        const double *v = p->metrics[m].values;
        bool complete = true, positive = false;
        for (size_t i = 0; i < p->n && complete; i++) {
            complete = isfinite(v[i]) && v[i] >= 0;
            positive = positive || v[i] > 0;
        }
        if (complete && positive)
            cols[nf++] = m;
    }
    *features_used = nf;
    if (nf == 0) {
        free(cols);
        return KS_OK;
    }
    /* log of each kernel's feature: sum / sum of time for an additive
     * counter, the mean otherwise; -inf for 0 */
    double *f = malloc((k * nf + 1) * sizeof *f);
    long double *sum = calloc(k * nf + 1, sizeof *sum), *time = calloc(k + 1, sizeof *time);
    uint32_t *parent = malloc((k + 1) * sizeof *parent);
    key_rank *order = malloc((k + 1) * sizeof *order);
    if (!f || !sum || !time || !parent || !order) {
        KS_FREE(cols, f, sum, time, parent, order);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < p->n; i++) {
        uint32_t key = g->group_of[i];
        time[key] += (long double)p->duration_ns[i];
        for (size_t j = 0; j < nf; j++)
            sum[key * nf + j] += p->metrics[cols[j]].values[i];
    }
    for (size_t key = 0; key < k; key++)
        for (size_t j = 0; j < nf; j++) {
            const ks_metric_column *mc = &p->metrics[cols[j]];
            bool additive = ks_metric_is_additive(mc->name, mc->unit, NULL);
            long double d = additive ? time[key] : (long double)g->size[key];
            long double v = d > 0 ? sum[key * nf + j] / d : 0;
            f[key * nf + j] = v > 0 ? log((double)v) : -INFINITY;
        }
    double width = log1p(tolerance);
    for (size_t i = 0; i < k; i++) {
        parent[i] = (uint32_t)i;
        order[i] = (key_rank){f[i * nf], (uint32_t)i};
    }
    /* single linkage: every pair within the width in every feature;
     * sorted by the first feature, a pair further apart in it ends the
     * scan */
    qsort(order, k, sizeof *order, cmp_rank);
    for (size_t a = 0; a < k; a++)
        for (size_t b = a + 1; b < k; b++) {
            const double *x = f + (size_t)order[a].key * nf, *y = f + (size_t)order[b].key * nf;
            if (!(y[0] - x[0] <= width) && !(isinf(x[0]) && isinf(y[0])))
                break;
            bool near = true;
            for (size_t j = 0; j < nf && near; j++)
                near = (isinf(x[j]) && isinf(y[j])) || fabs(x[j] - y[j]) <= width;
            if (near) {
                uint32_t ra = find_root(parent, order[a].key),
                         rb = find_root(parent, order[b].key);
                if (ra != rb)
                    parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
            }
        }
    for (size_t i = 0; i < k; i++)
        comp[i] = find_root(parent, (uint32_t)i);
    KS_FREE(cols, f, sum, time, parent, order);
    return KS_OK;
}

/* --------------------------------------------------------------- designs */

static double design_cost(const ks_root_design *d)
{
    long double c = 0;
    for (size_t i = 0; i < d->count; i++)
        c += (long double)d->leaves[i].m * d->leaves[i].stat.mean;
    return (double)c;
}

/* Phase 1 of the two-phase design: the optimiser's strata and sizes, and
 * in every design group (kernel or pool) with fewer than K launches, more:
 * one at a time to its stratum with the most launches not yet taken (the
 * first such on ties), until the group has K or is taken whole.  So every
 * kernel's (pool's) values show their spread about the profile before
 * refine sizes the strata for the ratio or regression estimator. */
ks_status ks_root_pilot_top_up(ks_root_design *d, size_t groups, uint64_t per_group,
                               ks_error *err)
{
    uint64_t *have = calloc(groups + 1, sizeof *have);
    if (!have)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < d->count; i++)
        have[d->leaves[i].group] += d->leaves[i].m;
    /* leaves are by group, then by duration */
    for (size_t i = 0; i < d->count;) {
        size_t j = i;
        uint32_t g = d->leaves[i].group;
        while (j < d->count && d->leaves[j].group == g)
            j++;
        while (have[g] < per_group) {
            size_t best = SIZE_MAX;
            uint64_t room = 0;
            for (size_t k = i; k < j; k++) {
                uint64_t n = d->leaves[k].hi - d->leaves[k].lo;
                if (n > d->leaves[k].m && n - d->leaves[k].m > room) {
                    room = n - d->leaves[k].m;
                    best = k;
                }
            }
            if (best == SIZE_MAX)
                break; /* the group is taken whole */
            d->leaves[best].m++;
            d->leaves[best].m_real = (double)d->leaves[best].m;
            have[g]++;
        }
        i = j;
    }
    free(have);
    return KS_OK;
}

/* A candidate design over pools pl (its groups), kept in *best when it is
 * cheaper than best_cost. */
static ks_status try_candidate(const ks_profile *p, const ks_root_config *pa, double z,
                               ks_root_pools *pl, ks_root_design *best, ks_root_pools *best_pl,
                               double *best_cost, ks_error *err)
{
    ks_root_config cfg = *pa;
    cfg.members = NULL;
    ks_root_design d;
    ks_status st = ks_root_design_build(p, &pl->groups, &cfg, z, &d, err);
    if (st != KS_OK) {
        ks_root_pools_free(pl);
        return st;
    }
    double cost = design_cost(&d);
    if (cost < *best_cost) {
        ks_root_design_free(best);
        ks_root_pools_free(best_pl);
        *best = d;
        *best_pl = *pl;
        *best_cost = cost;
    } else {
        ks_root_design_free(&d);
        ks_root_pools_free(pl);
    }
    memset(pl, 0, sizeof *pl);
    return KS_OK;
}

ks_status ks_root_pooled_build(const ks_profile *p, const ks_groups *g, const ks_root_config *pa,
                               double z, ks_root_design *d, ks_root_pools *pools, ks_error *err)
{
    memset(pools, 0, sizeof *pools);
    size_t k = g->count;
    uint32_t *comp = malloc((k + 1) * sizeof *comp), *key = malloc((k + 1) * sizeof *key);
    uint64_t *taken = calloc(k + 1, sizeof *taken);
    if (!comp || !key || !taken) {
        KS_FREE(comp, key, taken);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    size_t features = 0;
    ks_status st = compatible(p, g, pa->pool, pa->pool_tolerance, comp, &features, err);
    /* unpooled: ROOT's own design */
    ks_root_config cfg = *pa;
    cfg.pool = KS_POOL_NONE;
    if (st == KS_OK)
        st = ks_root_design_build(p, g, &cfg, z, d, err);
    if (st != KS_OK) {
        KS_FREE(comp, key, taken);
        return st;
    }
    double best = design_cost(d);
    for (size_t i = 0; i < d->count; i++)
        taken[d->leaves[i].group] += d->leaves[i].m;
    ks_root_design pd = {0};
    ks_root_pools ppl = {0};
    double pooled_best = INFINITY;
    /* every compatible set pooled; then only the floor kernels */
    for (int c = 0; c < 2 && st == KS_OK; c++) {
        size_t pooled = 0;
        for (size_t i = 0; i < k; i++) {
            key[i] = c == 0 || taken[i] == 1 ? comp[i] : UINT32_MAX;
            pooled += key[i] != UINT32_MAX;
        }
        if (pooled < 2)
            continue;
        ks_root_pools pl;
        st = pools_from_keys(p, g, key, &pl, err);
        if (st == KS_OK && pl.count == k) {
            ks_root_pools_free(&pl); /* nothing shares a pool */
            continue;
        }
        if (st == KS_OK)
            st = try_candidate(p, &cfg, z, &pl, &pd, &ppl, &pooled_best, err);
        else
            ks_root_pools_free(&pl);
    }
    if (st == KS_OK && pooled_best < best) {
        ks_root_design_free(d);
        *d = pd;
        *pools = ppl;
    } else {
        ks_root_design_free(&pd);
        ks_root_pools_free(&ppl);
    }
    pools->features = features;
    KS_FREE(comp, key, taken);
    return st;
}
