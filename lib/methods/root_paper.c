/*
 * root_paper.c - `--allocation paper`: ROOT's decisions as the authors make
 * them (Chung et al., MICRO'25, and their public code), so that published
 * numbers can be reproduced.  Per kernel group, from STEM's single-cluster
 * size: split at the 2-means cut, size the two children by the KKT under
 * the same epsilon, keep the split when the children's ceil'd sizes cost
 * less than the parent's (neither clamped to the cluster size), and hand each
 * child its KKT size.  Two departures, both needed for a usable plan: the
 * 2-means cut is the exact one (the authors use randomly initialised
 * k-means), and every leaf draws at least one sample (their code drops
 * zero-variance clusters and loses their time).  The bound this promises is
 * the paper's, per group; the tree's sizes can miss it (docs/methods.md).
 */
#include "root.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct paper_ctx {
    const ks_profile *p;
    const uint32_t *ids;
    const double *values;
    double eps, z;
    int max_depth;
    uint32_t group;
    ks_root_design *d;
    ks_error *err;
} paper_ctx;

/* ceil without the clamp to [1, N] that the plan applies, forgiving
 * floating-point noise as ks_round_sample_size does */
static double paper_ceil(double m)
{
    if (!(m > 0))
        return 0;
    if (isinf(m))
        return m;
    return ceil(m - fmax(1e-9, DBL_EPSILON * m));
}

/* s: the leaf's statistics, known from the split that made it, kept so the
 * design need not scan the leaf again */
static ks_status paper_leaf(paper_ctx *c, size_t lo, size_t hi, const ks_range_stat *s,
                            double m_old, const char *path)
{
    double n = (double)(hi - lo);
    uint64_t m = !(m_old < n) ? hi - lo : (m_old < 1 ? 1 : (uint64_t)m_old);
    ks_status st = ks_root_add_leaf(c->d, c->group, lo, hi, m, m_old, path, c->err);
    if (st == KS_OK)
        c->d->leaves[c->d->count - 1].stat = *s;
    return st;
}

static ks_status paper_split(paper_ctx *c, size_t lo, size_t hi, const ks_range_stat *s,
                             double m_old, const char *path, int depth)
{
    size_t n = hi - lo;
    if (n < 2 || s->min == s->max || depth >= c->max_depth)
        return paper_leaf(c, lo, hi, s, m_old, path);
    size_t cut = ks_two_means_cut(c->values + lo, n, NULL);
    if (cut == 0)
        return paper_leaf(c, lo, hi, s, m_old, path);
    ks_range_stat s0, s1;
    ks_range_stats_pair(c->p, c->ids + lo, c->values + lo, cut, c->ids + lo + cut,
                        c->values + lo + cut, n - cut, &s0, &s1);
    double size[2] = {(double)s0.n, (double)s1.n}, mean[2] = {s0.mean, s1.mean};
    double std[2] = {s0.std, s1.std}, m_real[2];
    ks_kkt_allocate(2, size, mean, std, c->eps, c->z, m_real);
    double m0 = paper_ceil(m_real[0]), m1 = paper_ceil(m_real[1]);
    if (!(m0 * s0.mean + m1 * s1.mean < m_old * s->mean))
        return paper_leaf(c, lo, hi, s, m_old, path);
    /* "<path>.0" and "<path>.1", built by hand: snprintf was a quarter of
     * the plan on traces of a thousand launches and 194 kernels.  A path
     * has two bytes a level and KS_PATH_SIZE room for KS_MAX_DEPTH_LIMIT
     * levels, so it is never cut short (the check is a guard) */
    char child[KS_PATH_SIZE];
    size_t len = strlen(path);
    if (len + 3 > sizeof child)
        return ks_error_set(c->err, KS_ERR_INTERNAL, NULL, 0, "split path too long");
    memcpy(child, path, len);
    memcpy(child + len, ".0", 3);
    ks_status st = paper_split(c, lo, lo + cut, &s0, m0, child, depth + 1);
    if (st != KS_OK)
        return st;
    child[len + 1] = '1';
    return paper_split(c, lo + cut, hi, &s1, m1, child, depth + 1);
}

ks_status ks_root_paper_leaves(const ks_profile *p, const ks_groups *g, const ks_root_config *pa,
                               double z, ks_root_design *d, ks_error *err)
{
    paper_ctx c = {.p = p, .eps = pa->epsilon, .z = z, .max_depth = pa->max_depth, .d = d,
                   .err = err};
    ks_range_stat *root = malloc((g->count ? g->count : 1) * sizeof *root);
    if (!root)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    /* the groups' statistics two at a time (ks_range_stats_pair) */
    const ks_members *mem = &d->mem;
    for (size_t gi = 0; gi < g->count; gi += 2) {
        size_t at = mem->offset[gi];
        if (gi + 1 == g->count) {
            ks_range_stats(p, mem->ids + at, mem->values + at, g->size[gi], &root[gi]);
            break;
        }
        size_t next = mem->offset[gi + 1];
        ks_range_stats_pair(p, mem->ids + at, mem->values + at, g->size[gi], mem->ids + next,
                            mem->values + next, g->size[gi + 1], &root[gi], &root[gi + 1]);
    }
    ks_status st = KS_OK;
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        c.group = (uint32_t)gi;
        c.ids = mem->ids + mem->offset[gi];
        c.values = mem->values + mem->offset[gi];
        const ks_range_stat *s = &root[gi];
        double r = s->mean > 0 ? z * s->std / (pa->epsilon * s->mean) : 0;
        double m0 = s->std > 0 ? (s->mean > 0 ? paper_ceil(r * r) : INFINITY) : 1;
        st = paper_split(&c, 0, g->size[gi], s, m0, "0", 0);
    }
    free(root);
    snprintf(d->scope, sizeof d->scope, "per-group (paper)");
    return st;
}
