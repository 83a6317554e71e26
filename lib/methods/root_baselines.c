/*
 * root_baselines.c - the designs ROOT must never be dearer than: STEM, ROOT
 * as it was before issue 8 (greedy 2-means growth, leaves re-sized by the
 * KKT; joint and per group) and the paper's tree.  Each is evaluated with the
 * plan's own variance formula, and a group (tree) or the whole design (joint)
 * takes the cheapest that keeps the bound, so the optimiser's plan dominates
 * them by construction even where its frontier is filled greedily.
 */
#include "root.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the old greedy growth's depth limit */
#define BASE_MAX_DEPTH 64

typedef struct base_ctx {
    const ks_profile *p;
    const ks_root_design *d;
    double z;
    ks_error *err;
} base_ctx;

static void leaf_stats(const base_ctx *c, uint32_t g, size_t lo, size_t hi, ks_range_stat *s)
{
    size_t off = c->d->mem.offset[g];
    ks_range_stats(c->p, c->d->mem.ids + off + lo, c->d->mem.values + off + lo, hi - lo, s);
}

/* A leaf's statistics, computed once (a scan of its range) and kept. */
static const ks_range_stat *leaf_stat(const base_ctx *c, ks_root_leaf *l)
{
    if (l->stat.n != l->hi - l->lo || l->stat.n == 0)
        leaf_stats(c, l->group, l->lo, l->hi, &l->stat);
    return &l->stat;
}

static ks_status add_leaf_with(const base_ctx *c, ks_root_design *b, uint32_t g, size_t lo,
                               size_t hi, uint64_t m, const ks_range_stat *s)
{
    ks_status st = ks_root_add_leaf(b, g, lo, hi, m, (double)m, "g", c->err);
    if (st == KS_OK)
        b->leaves[b->count - 1].stat = *s;
    return st;
}

/* Leaves [from, to) of design b: the greedy growth's shape, sized by the KKT
 * under eps together (the old ROOT re-sized its leaves this way). */
static ks_status kkt_resize(const base_ctx *c, ks_root_design *b, size_t from, size_t to,
                            double eps, ks_error *err)
{
    size_t k = to - from;
    double *buf = calloc(4 * k + 1, sizeof *buf);
    if (!buf)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    double *size = buf, *mean = buf + k, *std = buf + 2 * k, *m = buf + 3 * k;
    for (size_t i = 0; i < k; i++) {
        const ks_range_stat *s = leaf_stat(c, &b->leaves[from + i]);
        size[i] = (double)s->n;
        mean[i] = s->mean;
        std[i] = s->std;
    }
    ks_kkt_allocate(k, size, mean, std, eps, c->z, m);
    for (size_t i = 0; i < k; i++) {
        b->leaves[from + i].m = ks_round_sample_size(m[i], (uint64_t)size[i]);
        b->leaves[from + i].m_real = m[i];
    }
    free(buf);
    return KS_OK;
}

/* The pre-issue-8 growth: split at the exact 2-means cut while the children's
 * KKT sizes (under eps) cost less than the parent's size.  s: the node's
 * statistics, computed by the parent (each range is scanned once). */
static ks_status greedy_grow(const base_ctx *c, ks_root_design *b, uint32_t g, size_t lo,
                             size_t hi, const ks_range_stat *s, uint64_t m_old, double eps,
                             int depth)
{
    const double *v = c->d->mem.values + c->d->mem.offset[g];
    size_t n = hi - lo;
    size_t cut = n >= 2 && s->min != s->max && depth < BASE_MAX_DEPTH
                     ? ks_two_means_cut(v + lo, n, NULL)
                     : 0;
    if (cut > 0) {
        ks_range_stat s0, s1;
        leaf_stats(c, g, lo, lo + cut, &s0);
        leaf_stats(c, g, lo + cut, hi, &s1);
        double size[2] = {(double)s0.n, (double)s1.n}, mean[2] = {s0.mean, s1.mean};
        double std[2] = {s0.std, s1.std}, m_real[2];
        ks_kkt_allocate(2, size, mean, std, eps, c->z, m_real);
        uint64_t m0 = ks_round_sample_size(m_real[0], s0.n);
        uint64_t m1 = ks_round_sample_size(m_real[1], s1.n);
        if ((double)m0 * s0.mean + (double)m1 * s1.mean < (double)m_old * s->mean) {
            ks_status st = greedy_grow(c, b, g, lo, lo + cut, &s0, m0, eps, depth + 1);
            return st != KS_OK ? st
                               : greedy_grow(c, b, g, lo + cut, hi, &s1, m1, eps, depth + 1);
        }
    }
    return add_leaf_with(c, b, g, lo, hi, m_old, s);
}

/* STEM: one leaf per group, sizes from the joint KKT under eps. */
static ks_status stem_design(const base_ctx *c, const ks_groups *g, double eps,
                             ks_root_design *b)
{
    for (size_t gi = 0; gi < g->count; gi++) {
        ks_root_leaf whole = {(uint32_t)gi, 0, g->size[gi], 1, 1, NULL, {0}};
        ks_status st = add_leaf_with(c, b, (uint32_t)gi, 0, g->size[gi], 1,
                                     leaf_stat(c, &whole));
        if (st != KS_OK)
            return st;
    }
    return kkt_resize(c, b, 0, b->count, eps, c->err);
}

/* The old ROOT per group (tree): each group grown from STEM's single size
 * under eps, its leaves re-sized by the KKT; the group's single STEM cluster
 * is kept where that is cheaper. */
static ks_status greedy_tree_design(const base_ctx *c, const ks_groups *g, double eps,
                                    const ks_root_design *stem, ks_root_design *b)
{
    ks_status st = KS_OK;
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        ks_range_stat s = stem->leaves[gi].stat; /* the whole group */
        uint64_t one = ks_stem_single_size(&s, eps, c->z);
        size_t first = b->count;
        st = greedy_grow(c, b, (uint32_t)gi, 0, g->size[gi], &s, one, eps, 0);
        if (st == KS_OK)
            st = kkt_resize(c, b, first, b->count, eps, c->err);
        double leaves = 0;
        for (size_t i = first; i < b->count; i++)
            leaves += (double)b->leaves[i].m * leaf_stat(c, &b->leaves[i])->mean;
        if (st == KS_OK && !((double)one * s.mean >= leaves)) {
            for (size_t i = first + 1; i < b->count; i++)
                free(b->leaves[i].path);
            b->count = first + 1;
            b->leaves[first] = (ks_root_leaf){(uint32_t)gi, 0, g->size[gi], one, (double)one,
                                              b->leaves[first].path, s};
        }
    }
    return st;
}

/* The old ROOT with the bound on the total: each group grown under its
 * share of the bound (from STEM's joint KKT), every leaf re-sized together. */
static ks_status greedy_joint_design(const base_ctx *c, const ks_groups *g, double eps,
                                     const ks_root_design *stem, ks_root_design *b)
{
    ks_status st = KS_OK;
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        ks_range_stat s = stem->leaves[gi].stat;
        double gm = stem->leaves[gi].m_real, total = (double)s.n * s.mean, eps_g = eps;
        uint64_t m0;
        if (s.std > 0 && total > 0 && isfinite(gm) && gm > 0) {
            eps_g = c->z * (double)s.n * s.std / sqrt(gm) / total;
            m0 = ks_round_sample_size(gm, s.n);
        } else {
            m0 = ks_stem_single_size(&s, eps, c->z);
        }
        st = greedy_grow(c, b, (uint32_t)gi, 0, g->size[gi], &s, m0, eps_g, 0);
    }
    if (st == KS_OK)
        st = kkt_resize(c, b, 0, b->count, eps, c->err);
    return st;
}

/* Per group: cost and variance of a design's leaves, and where they start. */
typedef struct cand {
    ks_root_design d;
    size_t *first; /* group count + 1 */
    double *cost, *var;
    bool usable;
} cand;

static ks_status cand_eval(const base_ctx *c, size_t groups, cand *k, ks_error *err)
{
    k->first = calloc(groups + 1, sizeof *k->first);
    k->cost = calloc(groups + 1, sizeof *k->cost);
    k->var = calloc(groups + 1, sizeof *k->var);
    if (!k->first || !k->cost || !k->var)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t i = 0;
    for (size_t g = 0; g < groups; g++) {
        k->first[g] = i;
        for (; i < k->d.count && k->d.leaves[i].group == g; i++) {
            ks_root_leaf *l = &k->d.leaves[i];
            const ks_range_stat *s = leaf_stat(c, l);
            k->cost[g] += (double)l->m * s->mean;
            k->var[g] += ks_strata_variance(c->d->kind, (double)s->n,
                                            s->sample_std * s->sample_std, l->m);
        }
    }
    k->first[groups] = i;
    return KS_OK;
}

static void cand_free(cand *k)
{
    for (size_t i = 0; i < k->d.count; i++)
        free(k->d.leaves[i].path);
    KS_FREE(k->d.leaves, k->first, k->cost, k->var);
}

enum { CAND_OPT, CAND_STEM, CAND_GREEDY_TREE, CAND_GREEDY_JOINT, CAND_PAPER, CAND_COUNT };

static ks_status build_candidates(const base_ctx *c, const ks_groups *g,
                                  const ks_root_config *pa, ks_root_design *d, cand *k)
{
    ks_status st = KS_OK;
    /* the optimiser's design moves into candidate 0 (d keeps the members) */
    k[CAND_OPT].d.leaves = d->leaves;
    k[CAND_OPT].d.count = d->count;
    k[CAND_OPT].d.capacity = d->capacity;
    d->leaves = NULL;
    d->count = d->capacity = 0;
    for (int i = 1; i < CAND_COUNT; i++) {
        k[i].d.mem = d->mem;
        k[i].d.kind = d->kind;
    }
    st = stem_design(c, g, pa->epsilon, &k[CAND_STEM].d);
    if (st == KS_OK)
        st = greedy_tree_design(c, g, pa->epsilon, &k[CAND_STEM].d, &k[CAND_GREEDY_TREE].d);
    if (st == KS_OK && pa->allocation == KS_ALLOC_JOINT)
        st = greedy_joint_design(c, g, pa->epsilon, &k[CAND_STEM].d,
                                 &k[CAND_GREEDY_JOINT].d);
    if (st == KS_OK)
        st = ks_root_paper_leaves(c->p, g, pa, c->z, &k[CAND_PAPER].d, c->err);
    for (int i = 0; i < CAND_COUNT && st == KS_OK; i++) {
        k[i].usable = i != CAND_GREEDY_JOINT || pa->allocation == KS_ALLOC_JOINT;
        st = cand_eval(c, g->count, &k[i], c->err);
    }
    return st;
}

/* Per group, the cheapest candidate within the group's bound (the optimiser's
 * when none is). */
static void pick_per_group(const cand *k, size_t groups, const double *bound, int *pick)
{
    for (size_t g = 0; g < groups; g++) {
        pick[g] = CAND_OPT;
        for (int i = 1; i < CAND_COUNT; i++)
            if (k[i].usable && i != CAND_GREEDY_JOINT && k[i].var[g] <= bound[g] &&
                k[i].cost[g] < k[pick[g]].cost[g])
                pick[g] = i;
    }
}

static void design_sum(const cand *k, const int *pick, int all, size_t groups, double *cost,
                       double *var)
{
    long double c = 0, v = 0;
    for (size_t g = 0; g < groups; g++) {
        int i = all >= 0 ? all : pick[g];
        c += k[i].cost[g];
        v += k[i].var[g];
    }
    *cost = (double)c;
    *var = (double)v;
}

static ks_status take_leaves(ks_root_design *d, cand *k, const int *pick, size_t groups,
                             ks_error *err)
{
    ks_status st = KS_OK;
    for (size_t g = 0; g < groups && st == KS_OK; g++) {
        const cand *from = &k[pick[g]];
        size_t a = from->first[g], b = from->first[g + 1];
        for (size_t i = a; i < b && st == KS_OK; i++) {
            const ks_root_leaf *l = &from->d.leaves[i];
            char path[KS_PATH_SIZE];
            if (pick[g] == CAND_OPT || pick[g] == CAND_PAPER)
                snprintf(path, sizeof path, "%s", l->path);
            else
                snprintf(path, sizeof path, b - a == 1 ? "0" : "s%zu", i - a);
            st = ks_root_add_leaf(d, l->group, l->lo, l->hi, l->m, l->m_real, path, err);
        }
    }
    return st;
}

ks_status ks_root_keep_cheapest(const ks_profile *p, const ks_groups *g,
                                const ks_root_config *pa, double z, ks_root_design *d,
                                ks_error *err)
{
    size_t groups = g->count;
    base_ctx c = {p, d, z, err};
    cand k[CAND_COUNT];
    memset(k, 0, sizeof k);
    int *pick = calloc(groups + 1, sizeof *pick);
    double *bound = calloc(groups + 1, sizeof *bound);
    ks_status st = pick && bound ? build_candidates(&c, g, pa, d, k)
                                 : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st != KS_OK)
        goto done;
    long double total = 0;
    for (size_t gi = 0; gi < groups; gi++) {
        const ks_range_stat *s = &k[CAND_STEM].d.leaves[gi].stat; /* the whole group */
        double t = (double)s->n * s->mean;
        bound[gi] = pow(pa->epsilon * t / z, 2);
        total += t;
    }
    pick_per_group(k, groups, bound, pick);
    if (pa->allocation == KS_ALLOC_JOINT) {
        /* whole designs: the optimiser's, the per-group picks (they keep the
         * total's bound too), and each baseline as a whole */
        double limit = pow(pa->epsilon * (double)total / z, 2), best_c, best_v, cost, var;
        design_sum(k, pick, CAND_OPT, groups, &best_c, &best_v);
        int best = CAND_OPT;
        design_sum(k, pick, -1, groups, &cost, &var);
        if (var <= limit && cost < best_c) {
            best = -1;
            best_c = cost;
        }
        for (int i = 1; i < CAND_COUNT; i++) {
            design_sum(k, pick, i, groups, &cost, &var);
            if (var <= limit && cost < best_c) {
                best = i;
                best_c = cost;
            }
        }
        for (size_t gi = 0; best >= 0 && gi < groups; gi++)
            pick[gi] = best;
    }
    st = take_leaves(d, k, pick, groups, err);
done:
    for (int i = 0; i < CAND_COUNT; i++)
        cand_free(&k[i]);
    free(pick);
    free(bound);
    return st;
}
