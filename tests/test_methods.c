/*
 * test_methods.c - STEM, ROOT, Allegro and the random baseline on synthetic
 * profiles built in memory (tests/test_util.h).
 *
 * Three kinds of checks:
 *  - structure: whatever the method, a plan partitions every kernel group
 *    into clusters of contiguous durations, sizes add up to N, weights add up
 *    to cluster sizes, ids are in range, sampled ids lie in their cluster;
 *  - re-derivation: ROOT (both allocations) is rebuilt here from its
 *    description and compared cluster by cluster, so every accepted split
 *    lowered the cost and every leaf is one whose split would not; every
 *    split in a plan is at the exact 2-means cut; Allegro split exactly the
 *    nodes with n >= n_th and draws max(ceil(n), n_min) per leaf;
 *  - bounds: the sizes keep the variance the bound allows, on the total
 *    (joint) or per group (tree), on workloads and on random mixtures;
 *  - statistics: over 200 seeds the estimate of the total time is unbiased,
 *    and it misses the promised bound no more often than 1 - confidence
 *    allows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksample.h"
#include "test_main.h"
#include "test_util.h"

/* ------------------------------------------------------------ helpers */

static ks_plan make_plan(const ks_profile *p, const ks_params *pa)
{
    ks_plan plan;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_plan_build(p, pa, &plan, &err);
    if (st != KS_OK)
        fail_msg("%s: ks_plan_build failed (%d): %s", pa->method, (int)st, err.message);
    return plan;
}

enum { KS_ALLOC_JOINT = 0, KS_ALLOC_TREE = 1, KS_ALLOC_PAPER = 2 };

static ks_profile *workload(int which, size_t n, uint64_t seed)
{
    ks_profile *p = tu_named_workload(which, n, seed);
    assert_non_null(p);
    return p;
}
static const char *const workload_names[] = {"multimodal", "lognormal", "mixed"};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : (x > y);
}

/* Each group's durations, sorted: group g is v[off[g] .. off[g+1]). */
typedef struct sorted_groups {
    ks_groups g;
    int64_t *v;
    size_t *off;
} sorted_groups;

static void sorted_groups_build(const ks_profile *p, ks_key key, sorted_groups *s)
{
    ks_error err;
    assert_int_equal(ks_groups_build(p, key, &s->g, &err), KS_OK);
    s->v = malloc((p->n + 1) * sizeof *s->v);
    s->off = calloc(s->g.count + 1, sizeof *s->off);
    size_t *fill = calloc(s->g.count + 1, sizeof *fill);
    assert_non_null(s->v);
    assert_non_null(s->off);
    assert_non_null(fill);
    for (size_t gi = 0; gi < s->g.count; gi++)
        s->off[gi + 1] = s->off[gi] + s->g.size[gi];
    for (size_t i = 0; i < p->n; i++) {
        uint32_t gi = s->g.group_of[i];
        s->v[s->off[gi] + fill[gi]++] = p->duration_ns[i];
    }
    for (size_t gi = 0; gi < s->g.count; gi++)
        qsort(s->v + s->off[gi], s->g.size[gi], sizeof *s->v, cmp_i64);
    free(fill);
}

static void sorted_groups_free(sorted_groups *s)
{
    ks_groups_free(&s->g);
    free(s->v);
    free(s->off);
}

/* first index in v[0..n) with v >= x, or with v > x when past_equal */
static size_t bound_index(const int64_t *v, size_t n, int64_t x, bool past_equal)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x || (past_equal && v[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct range_stat {
    size_t n;
    double mean, std, sample_std;
} range_stat;

static range_stat stats_of(const int64_t *v, size_t n)
{
    range_stat s = {n, 0, 0, 0};
    if (n == 0)
        return s;
    long double mean;
    long double sq = tu_sum_squares(v, n, &mean);
    s.mean = (double)mean;
    if (v[0] != v[n - 1]) {
        s.std = (double)sqrtl(sq / n);
        s.sample_std = n > 1 ? (double)sqrtl(sq / (n - 1)) : 0;
    }
    return s;
}

static bool is_close(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* Variance of the time estimate that the plan's sizes promise: per cluster
 * N^2 S^2 / m - N S^2 (S^2 with the n-1 divisor) when the plan says
 * "finite-population" (ROOT without replacement), else N^2 sigma^2 / m; 0 for
 * a cluster simulated exactly (m = N). */
static double promised_variance(const ks_plan *plan, uint32_t group)
{
    bool fpc = strcmp(plan->variance_formula, "finite-population") == 0;
    double v = 0;
    for (size_t i = 0; i < plan->cluster_count; i++) {
        const ks_cluster *c = &plan->clusters[i];
        if (group != UINT32_MAX && c->group != group)
            continue;
        if (c->m >= c->size) /* simulated exactly, with or without replacement */
            continue;
        double n = (double)c->size, m = (double)c->m, var = c->std_ns * c->std_ns;
        v += fpc ? n * (var * n / (n - 1)) * (n - m) / m : n * n * var / m;
    }
    return v;
}

/* ------------------------------------------------------------ structure */

/* What every plan of every method must satisfy. */
static void check_plan_structure(const ks_profile *p, const ks_plan *plan)
{
    const char *method = plan->method;
    bool is_random = strcmp(method, "random") == 0;
    bool is_allegro = strcmp(method, "allegro") == 0;
    bool replacement = (ks_plan_param(plan, "with-replacement") > 0) || is_random || is_allegro;
    assert_int_equal(plan->population, p->n);
    assert_true(plan->total_ns == ks_profile_total_ns(p));
    assert_true(plan->cluster_count >= 1);
    assert_true(plan->group_count >= 1);

    /* samples: sorted, distinct, in range, in a valid cluster */
    double sampled = 0;
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        if (s->id >= p->n)
            fail_msg("%s: sample id %llu out of range (N = %zu)", method,
                     (unsigned long long)s->id, p->n);
        if (i > 0 && !(plan->samples[i - 1].id < s->id))
            fail_msg("%s: samples not sorted or repeated at %zu", method, i);
        assert_true(s->cluster < plan->cluster_count);
        assert_true(s->weight > 0 && isfinite(s->weight));
        sampled += (double)p->duration_ns[s->id];
    }
    assert_true(is_close(plan->sampled_ns, sampled, 1e-12));

    sorted_groups sg;
    sorted_groups_build(p, plan->params.key, &sg);
    if (!is_random)
        assert_int_equal(plan->group_count, sg.g.count);
    else
        assert_int_equal(plan->group_count, 1);

    double *weight_sum = calloc(plan->cluster_count, sizeof *weight_sum);
    uint64_t *distinct = calloc(plan->cluster_count, sizeof *distinct);
    uint64_t *group_members = calloc(plan->group_count, sizeof *group_members);
    assert_non_null(weight_sum);
    assert_non_null(distinct);
    assert_non_null(group_members);
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        const ks_cluster *c = &plan->clusters[s->cluster];
        weight_sum[s->cluster] += s->weight;
        distinct[s->cluster]++;
        int64_t d = p->duration_ns[s->id];
        if (d < c->min_ns || d > c->max_ns)
            fail_msg("%s: id %llu (%lld ns) sampled in cluster %u [%lld, %lld]", method,
                     (unsigned long long)s->id, (long long)d, s->cluster,
                     (long long)c->min_ns, (long long)c->max_ns);
        if (!is_random && sg.g.group_of[s->id] != c->group)
            fail_msg("%s: id %llu of group %u sampled in a cluster of group %u", method,
                     (unsigned long long)s->id, sg.g.group_of[s->id], c->group);
    }
    uint64_t draws = 0, size_sum = 0;
    for (size_t ci = 0; ci < plan->cluster_count; ci++) {
        const ks_cluster *c = &plan->clusters[ci];
        assert_true(c->group < plan->group_count);
        group_members[c->group] += c->size;
        size_sum += c->size;
        draws += c->m;
        if (c->size == 0 || c->m < 1)
            fail_msg("%s: cluster %zu has size %llu and m %llu", method, ci,
                     (unsigned long long)c->size, (unsigned long long)c->m);
        if (!is_allegro && !is_random && c->m > c->size)
            fail_msg("%s: cluster %zu draws %llu of %llu", method, ci,
                     (unsigned long long)c->m, (unsigned long long)c->size);
        assert_true(c->min_ns <= c->max_ns);
        assert_true(c->mean_ns >= (double)c->min_ns * (1 - 1e-12) &&
                    c->mean_ns <= (double)c->max_ns * (1 + 1e-12));
        assert_false(isnan(c->m_real));
        /* the estimate of the cluster's count is exact */
        if (!is_close(weight_sum[ci], (double)c->size, 1e-9))
            fail_msg("%s: cluster %zu (%s) weights add up to %.17g, size %llu", method, ci,
                     c->path, weight_sum[ci], (unsigned long long)c->size);
        if (!replacement) {
            /* m distinct members, each weighted size / m */
            assert_int_equal(distinct[ci], c->m);
        } else {
            assert_true(distinct[ci] >= 1 && distinct[ci] <= c->m && distinct[ci] <= c->size);
        }
        /* paths name distinct tree positions */
        for (size_t cj = 0; cj < ci; cj++)
            if (plan->clusters[cj].group == c->group &&
                strcmp(plan->clusters[cj].path, c->path) == 0)
                fail_msg("%s: clusters %zu and %zu of group %u share the path '%s'", method,
                         cj, ci, c->group, c->path);
    }
    assert_int_equal(plan->draws, draws);
    assert_int_equal(size_sum, p->n);
    for (uint32_t gi = 0; gi < plan->group_count; gi++) {
        if (group_members[gi] == 0)
            fail_msg("%s: group %u (%s) has no cluster", method, gi, plan->group_labels[gi]);
        if (!is_random)
            assert_int_equal(group_members[gi], sg.g.size[gi]);
    }

    /* the clusters of a group are disjoint duration ranges that hold exactly
     * the group's members in that range (equal durations never split) */
    if (!is_random) {
        for (size_t ci = 0; ci < plan->cluster_count; ci++) {
            const ks_cluster *c = &plan->clusters[ci];
            const int64_t *v = sg.v + sg.off[c->group];
            size_t n = sg.g.size[c->group];
            size_t lo = bound_index(v, n, c->min_ns, false);
            size_t hi = bound_index(v, n, c->max_ns, true);
            if (hi - lo != c->size)
                fail_msg("%s: cluster %zu (%s) [%lld, %lld] has size %llu, but %zu members "
                         "of its group lie in that range",
                         method, ci, c->path, (long long)c->min_ns, (long long)c->max_ns,
                         (unsigned long long)c->size, hi - lo);
            range_stat rs = stats_of(v + lo, hi - lo);
            if (!is_close(rs.mean, c->mean_ns, 1e-9) ||
                !(is_close(rs.std, c->std_ns, 1e-6) || fabs(rs.std - c->std_ns) < 1e-6))
                fail_msg("%s: cluster %zu mean/std %.17g/%.17g, recomputed %.17g/%.17g",
                         method, ci, c->mean_ns, c->std_ns, rs.mean, rs.std);
        }
    }
    free(weight_sum);
    free(distinct);
    free(group_members);
    sorted_groups_free(&sg);
}

static void test_plan_structure(void **state)
{
    (void)state;
    static const struct {
        const char *method;
        int allocation, replacement;
    } cases[] = {
        {"root", KS_ALLOC_JOINT, 0}, {"root", KS_ALLOC_TREE, 0}, {"root", KS_ALLOC_JOINT, 1},
        {"root", KS_ALLOC_TREE, 1},  {"stem", 0, 0},             {"stem", 0, 1},
        {"allegro", 0, 0},           {"random", 0, 0},
    };
    for (int w = 0; w < 3; w++) {
        ks_profile *p = workload(w, 5000, 100 + w);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            for (double eps = 0.02; eps < 0.3; eps *= 3) {
                ks_params pa = tu_params(cases[i].method, cases[i].allocation, eps, 3);
                tu_param(&pa, "with-replacement", "%d", (int)(cases[i].replacement));
                if ((strcmp(cases[i].method, "random") == 0 ? 0.01 : 0) > 0) tu_param(&pa, "fraction", "%.17g", (double)(strcmp(cases[i].method, "random") == 0 ? 0.01 : 0));
                ks_plan plan = make_plan(p, &pa);
                check_plan_structure(p, &plan);
                ks_plan_free(&plan);
            }
        }
        ks_profile_free(p);
    }
}

/* A deep split tree: geometric durations make 2-means peel one value off at
 * a time, past the length that a fixed-size path buffer holds. */
static void test_deep_tree_paths(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    for (double v = 1; v < 1e15; v *= 3)
        for (int r = 0; r < 60; r++)
            assert_int_equal(tu_append(p, "k", (int64_t)v + r % 3, NULL, NULL), KS_OK);
    static const char *const methods[] = {"root", "allegro", "root"};
    for (int i = 0; i < 3; i++) {
        ks_params pa = tu_params(methods[i], i == 2 ? KS_ALLOC_PAPER : KS_ALLOC_TREE, 0.05, 1);
        ks_plan plan = make_plan(p, &pa);
        check_plan_structure(p, &plan);
        ks_plan_free(&plan);
    }
    ks_profile_free(p);
}

/* ------------------------------------------------------------ ROOT */

static uint64_t stem_single_size(const range_stat *s, double eps, double z)
{
    if (s->std <= 0 || s->n <= 1)
        return 1;
    if (s->mean <= 0)
        return s->n;
    double r = z * s->std / (eps * s->mean);
    return ks_round_sample_size(r * r, s->n);
}

/* A small random mixture of normal components in one kernel, as in the
 * property tests below: 2..4 components, sizes 1..8000, means 150 ns..440 us,
 * coefficients of variation 0.007..1. */
static ks_profile *random_mixture(ks_rng *rng, double *eps)
{
    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    int comps = 2 + (int)ks_rng_below(rng, 3);
    for (int c = 0; c < comps; c++) {
        size_t nc = 1 + (size_t)exp(ks_rng_uniform(rng) * 9);
        double mu = exp(5 + ks_rng_uniform(rng) * 8);
        double cv = exp(-5 + ks_rng_uniform(rng) * 5);
        for (size_t i = 0; i < nc; i++)
            assert_int_equal(tu_append(p, "k", llround(fmax(0, mu * (1 + cv * ks_rng_normal(rng)))),
                                       NULL, NULL),
                             KS_OK);
    }
    *eps = 0.01 + 0.2 * ks_rng_uniform(rng);
    return p;
}

typedef struct tree_ctx {
    const ks_plan *plan;
    uint32_t group;
    const int64_t *v; /* the group's sorted durations */
    size_t n;
    double *vd;       /* the same as doubles, for ks_two_means_cut */
    bool allegro;
    int leaves_seen;
} tree_ctx;

static const ks_cluster *find_leaf(const tree_ctx *t, const char *path)
{
    for (size_t i = 0; i < t->plan->cluster_count; i++)
        if (t->plan->clusters[i].group == t->group &&
            strcmp(t->plan->clusters[i].path, path) == 0)
            return &t->plan->clusters[i];
    return NULL;
}

static bool has_descendant(const tree_ctx *t, const char *path)
{
    size_t len = strlen(path);
    for (size_t i = 0; i < t->plan->cluster_count; i++) {
        const char *q = t->plan->clusters[i].path;
        if (t->plan->clusters[i].group == t->group && strncmp(q, path, len) == 0 &&
            q[len] == '.')
            return true;
    }
    return false;
}

/* The index range [lo, hi) that node `path` covers, from its leaves. */
static void node_range(const tree_ctx *t, const char *path, size_t *lo, size_t *hi)
{
    const ks_cluster *c = find_leaf(t, path);
    if (c) {
        assert_false(has_descendant(t, path));
        *lo = bound_index(t->v, t->n, c->min_ns, false);
        *hi = bound_index(t->v, t->n, c->max_ns, true);
        assert_int_equal(*hi - *lo, c->size);
        return;
    }
    if (!has_descendant(t, path))
        fail_msg("group %u: tree node '%s' has neither a leaf nor children", t->group, path);
    char child[1024];
    size_t lo0, hi0, lo1, hi1;
    snprintf(child, sizeof child, "%s.0", path);
    node_range(t, child, &lo0, &hi0);
    snprintf(child, sizeof child, "%s.1", path);
    node_range(t, child, &lo1, &hi1);
    if (hi0 != lo1)
        fail_msg("group %u: children of '%s' are not adjacent ([%zu,%zu) and [%zu,%zu))",
                 t->group, path, lo0, hi0, lo1, hi1);
    *lo = lo0;
    *hi = hi1;
}

static double allegro_n(const range_stat *s, double eps, double z)
{
    if (s->n < 2 || s->sample_std <= 0 || s->mean <= 0)
        return 1.0;
    double r = z / eps * s->sample_std / s->mean;
    return r * r;
}

/* Walks the plan's tree top-down: the leaves tile the group, every internal
 * node is split at the exact 2-means cut of its durations; for Allegro every
 * internal node had n >= n_th, every leaf n < n_th (or could not split), and
 * a leaf draws max(ceil(n), n_min). */
static void check_node(tree_ctx *t, const char *path, int depth)
{
    const ks_params *pa = &t->plan->params;
    size_t lo, hi;
    node_range(t, path, &lo, &hi);
    range_stat s = stats_of(t->v + lo, hi - lo);
    const ks_cluster *leaf = find_leaf(t, path);
    bool splittable = s.n >= 2 && t->v[lo] != t->v[hi - 1] && depth < ks_plan_param(t->plan, "max-depth");
    size_t cut = splittable ? ks_two_means_cut(t->vd + lo, hi - lo, NULL) : 0;
    double n_real = allegro_n(&s, pa->epsilon, t->plan->z);
    if (leaf) {
        t->leaves_seen++;
        if (t->allegro) {
            if (cut > 0 && n_real >= ks_plan_param(t->plan, "n-th"))
                fail_msg("allegro group %u leaf '%s' has n = %.6g >= n_th = %g", t->group,
                         path, n_real, ks_plan_param(t->plan, "n-th"));
            uint64_t want = (uint64_t)ceil(n_real - 1e-9);
            if (want < (uint64_t)ks_plan_param(t->plan, "n-min"))
                want = (uint64_t)ks_plan_param(t->plan, "n-min");
            if (want < 1)
                want = 1;
            assert_int_equal(leaf->m, want);
            assert_true(leaf->m >= (uint64_t)ks_plan_param(t->plan, "n-min"));
            assert_true(is_close(leaf->m_real, n_real, 1e-9));
        }
        return;
    }
    char child[1024];
    snprintf(child, sizeof child, "%s.0", path);
    size_t lo0, hi0;
    node_range(t, child, &lo0, &hi0);
    if (cut == 0 || hi0 - lo0 != cut)
        fail_msg("group %u node '%s' (n = %zu) split at %zu, the 2-means cut is %zu", t->group,
                 path, s.n, hi0 - lo0, cut);
    if (t->allegro && !(n_real >= ks_plan_param(t->plan, "n-th")))
        fail_msg("allegro group %u node '%s' split with n = %.6g < n_th = %g", t->group, path,
                 n_real, ks_plan_param(t->plan, "n-th"));
    check_node(t, child, depth + 1);
    snprintf(child, sizeof child, "%s.1", path);
    check_node(t, child, depth + 1);
}

static void check_tree(const ks_profile *p, const ks_plan *plan, bool allegro)
{
    sorted_groups sg;
    sorted_groups_build(p, plan->params.key, &sg);
    tree_ctx t = {.plan = plan, .allegro = allegro};
    t.vd = malloc((p->n + 1) * sizeof *t.vd);
    assert_non_null(t.vd);
    int leaves = 0;
    for (uint32_t gi = 0; gi < sg.g.count; gi++) {
        t.group = gi;
        t.v = sg.v + sg.off[gi];
        t.n = sg.g.size[gi];
        for (size_t i = 0; i < t.n; i++)
            t.vd[i] = (double)t.v[i];
        t.leaves_seen = 0;
        check_node(&t, "0", 0);
        leaves += t.leaves_seen;
    }
    assert_int_equal((size_t)leaves, plan->cluster_count); /* no stray clusters */
    free(t.vd);
    sorted_groups_free(&sg);
}

/* --allocation paper keeps the authors' split tree: its leaves tile each
 * group and every internal node is split at the exact 2-means cut.  (The
 * greedy joint/tree allocations that this file re-derived before issue 8 are
 * rebuilt in tests/test_root_optimal.c as a baseline the optimiser must beat.) */
static void test_root_paper_tree(void **state)
{
    (void)state;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = workload(w, 20000, 200 + w);
        for (double eps = 0.01; eps < 0.3; eps *= 2.5) {
            ks_params pa = tu_params("root", KS_ALLOC_PAPER, eps, 1);
            ks_plan plan = make_plan(p, &pa);
            check_tree(p, &plan, false);
            assert_string_equal(plan.bound_scope, "per-group (paper)");
            ks_plan_free(&plan);
        }
        ks_profile_free(p);
    }
    ks_rng rng;
    ks_rng_seed(&rng, 99);
    for (int trial = 0; trial < 40; trial++) {
        double eps;
        ks_profile *p = random_mixture(&rng, &eps);
        ks_params pa = tu_params("root", KS_ALLOC_PAPER, eps, 1);
        ks_plan plan = make_plan(p, &pa);
        check_tree(p, &plan, false);
        ks_plan_free(&plan);
        ks_profile_free(p);
    }
}

/* (a) a kernel with two well-separated modes is split, and the split plan
 * simulates less than STEM's single cluster for that kernel */
static void test_root_splits_two_modes(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    ks_rng rng;
    ks_rng_seed(&rng, 8);
    for (int i = 0; i < 10000; i++) {
        double mode = ks_rng_below(&rng, 2) ? 100000 : 10000;
        assert_int_equal(tu_append(p, "bimodal", llround(mode * (1 + 0.03 * ks_rng_normal(&rng))),
                                   NULL, NULL),
                         KS_OK);
    }
    for (int alloc = 0; alloc < 2; alloc++) {
        ks_params pa = tu_params("root", alloc, 0.05, 1);
        ks_plan root = make_plan(p, &pa);
        pa = tu_params("stem", 0, 0.05, 1);
        ks_plan stem = make_plan(p, &pa);
        assert_int_equal(stem.cluster_count, 1);
        assert_true(root.cluster_count >= 2);
        /* the split separates the modes */
        bool low = false, high = false;
        for (size_t i = 0; i < root.cluster_count; i++) {
            low |= root.clusters[i].max_ns < 50000;
            high |= root.clusters[i].min_ns > 50000;
        }
        assert_true(low && high);
        double root_cost = tu_plan_cost(&root), stem_cost = tu_plan_cost(&stem);
        if (!(root_cost <= stem_cost))
            fail_msg("allocation %d: ROOT cost %.6g > STEM %.6g", alloc, root_cost, stem_cost);
        /* bimodal: the split is worth a lot, far more than rounding */
        assert_true(root_cost < 0.2 * stem_cost);
        assert_true(root.sampled_ns < stem.sampled_ns);
        ks_plan_free(&root);
        ks_plan_free(&stem);
    }
    ks_profile_free(p);

    /* per kernel in a mixed workload, allocation tree */
    p = workload(0, 20000, 9);
    ks_params pa = tu_params("root", KS_ALLOC_TREE, 0.05, 1);
    ks_plan root = make_plan(p, &pa);
    sorted_groups sg;
    sorted_groups_build(p, KS_KEY_NAME, &sg);
    for (uint32_t gi = 0; gi < root.group_count; gi++) {
        range_stat s = stats_of(sg.v + sg.off[gi], sg.g.size[gi]);
        double stem_cost = (double)stem_single_size(&s, 0.05, root.z) * s.mean, cost = 0;
        size_t clusters = 0;
        for (size_t i = 0; i < root.cluster_count; i++)
            if (root.clusters[i].group == gi) {
                cost += (double)root.clusters[i].m * root.clusters[i].mean_ns;
                clusters++;
            }
        if (!(cost <= stem_cost * (1 + 1e-12)))
            fail_msg("group %s: ROOT(tree) cost %.6g > STEM single cluster %.6g",
                     root.group_labels[gi], cost, stem_cost);
        /* gemm has 2 modes, attention 3 */
        if (strcmp(root.group_labels[gi], "gemm_kernel") == 0)
            assert_true(clusters >= 2);
        if (strcmp(root.group_labels[gi], "attention<128>") == 0)
            assert_true(clusters >= 3);
    }
    sorted_groups_free(&sg);
    ks_plan_free(&root);
    ks_profile_free(p);
}

/* (b) zero-spread and single-member kernels: one cluster, one draw */
static void test_root_degenerate_kernels(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    ks_rng rng;
    ks_rng_seed(&rng, 3);
    for (int i = 0; i < 3000; i++) {
        assert_int_equal(tu_append(p, "constant", 4200, NULL, NULL), KS_OK);
        assert_int_equal(tu_append(p, "spread", 1000 + (int64_t)ks_rng_below(&rng, 9000), NULL,
                                   NULL),
                         KS_OK);
        assert_int_equal(tu_append(p, "zero", 0, NULL, NULL), KS_OK);
        if (i == 1500)
            assert_int_equal(tu_append(p, "single", 77777, NULL, NULL), KS_OK);
    }
    static const struct {
        const char *method;
        int allocation;
    } cases[] = {{"root", KS_ALLOC_JOINT}, {"root", KS_ALLOC_TREE}, {"stem", 0}};
    for (size_t k = 0; k < 3; k++) {
        for (int repl = 0; repl < 2; repl++) {
            ks_params pa = tu_params(cases[k].method, cases[k].allocation, 0.05, 11);
            tu_param(&pa, "with-replacement", "%d", (int)(repl));
            ks_plan plan = make_plan(p, &pa);
            check_plan_structure(p, &plan);
            for (uint32_t gi = 0; gi < plan.group_count; gi++) {
                const char *label = plan.group_labels[gi];
                if (strcmp(label, "spread") == 0)
                    continue;
                size_t clusters = 0;
                const ks_cluster *c = NULL;
                uint32_t ci = 0;
                for (uint32_t i = 0; i < plan.cluster_count; i++)
                    if (plan.clusters[i].group == gi) {
                        clusters++;
                        c = &plan.clusters[i];
                        ci = i;
                    }
                if (clusters != 1 || c->m != 1)
                    fail_msg("%s: kernel %s has %zu clusters, m = %llu", plan.method, label,
                             clusters, c ? (unsigned long long)c->m : 0ULL);
                assert_true(c->std_ns == 0);
                /* one sample carrying the whole kernel */
                size_t found = 0;
                for (size_t i = 0; i < plan.sample_count; i++)
                    if (plan.samples[i].cluster == ci) {
                        found++;
                        assert_true(plan.samples[i].weight == (double)c->size);
                    }
                assert_int_equal(found, 1);
                if (strcmp(label, "single") == 0)
                    assert_int_equal(c->size, 1);
            }
            /* constant, zero and single kernels are estimated exactly; the
             * time estimate is off only by the spread kernel's error */
            ks_plan_free(&plan);
        }
    }
    ks_profile_free(p);
}

/* (c) ROOT with joint allocation is never dearer than STEM in expectation
 * (one seed's draws may simulate more: the optimiser minimises the expected
 * time) */
static void test_root_joint_cheaper_than_stem(void **state)
{
    (void)state;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = workload(w, 20000, 300 + w);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            for (double eps = 0.02; eps < 0.2; eps *= 2) {
                ks_params pa = tu_params("root", KS_ALLOC_JOINT, eps, seed);
                ks_plan root = make_plan(p, &pa);
                pa = tu_params("stem", 0, eps, seed);
                ks_plan stem = make_plan(p, &pa);
                double rc = tu_plan_cost(&root), sc = tu_plan_cost(&stem);
                if (!(rc <= sc * (1 + 1e-12)))
                    fail_msg("%s eps %g: ROOT(joint) expected cost %.6g > STEM %.6g",
                             workload_names[w], eps, rc, sc);
                ks_plan_free(&root);
                ks_plan_free(&stem);
            }
        }
        ks_profile_free(p);
    }
}

/* (c) the plan's sizes keep the promised bound: allocation joint on the
 * total, sum N^2 sigma^2 / m <= (eps T / z)^2, allocation tree on every
 * group; clusters simulated whole count 0 (m = N draws every member once,
 * with or without replacement). */
static void test_root_bounds_on_workloads(void **state)
{
    (void)state;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = workload(w, 20000, 400 + w);
        for (double eps = 0.01; eps < 0.3; eps *= 2) {
            for (int k = 0; k < 4; k++) {
                int alloc = k & 1, repl = k >> 1;
                ks_params pa = tu_params("root", alloc, eps, 1);
                tu_param(&pa, "with-replacement", "%d", (int)(repl));
                ks_plan plan = make_plan(p, &pa);
                for (uint32_t gi = 0; gi < plan.group_count; gi++) {
                    bool joint = alloc == KS_ALLOC_JOINT;
                    double total = joint ? plan.total_ns : tu_group_total(&plan, gi);
                    double c = pow(eps * total / plan.z, 2);
                    double v = promised_variance(&plan, joint ? UINT32_MAX : gi);
                    if (!(v <= c * (1 + 1e-9)))
                        fail_msg("%s root(%s%s) eps %g group %u: variance %.6g > bound %.6g "
                                 "(x%.4f)",
                                 workload_names[w], joint ? "joint" : "tree",
                                 repl ? ", with replacement" : "", eps, gi, v, c, v / c);
                    if (joint)
                        break;
                }
                ks_plan_free(&plan);
            }
        }
        ks_profile_free(p);
    }
}

static void fail_with_clusters(const ks_plan *plan, const char *head)
{
    char buf[4096];
    int len = snprintf(buf, sizeof buf, "%s; clusters:", head);
    for (size_t i = 0; i < plan->cluster_count && len < 3800; i++)
        len += snprintf(buf + len, sizeof buf - len, " [%s n=%llu mean=%.1f std=%.1f m=%llu]",
                        plan->clusters[i].path, (unsigned long long)plan->clusters[i].size,
                        plan->clusters[i].mean_ns, plan->clusters[i].std_ns,
                        (unsigned long long)plan->clusters[i].m);
    fail_msg("%s", buf);
}

/* Random one-kernel mixtures, where a split tree is most likely to move
 * variance between siblings: a child that is split again is sized under the
 * bound of its own total, which can exceed the share its parent's KKT gave
 * it.  Allocation joint must keep the bound on the total, allocation tree
 * (the paper's ROOT) on each group: sum over the group's leaves of
 * N^2 sigma^2 / m <= (eps T_g / z)^2. */
static void test_root_bounds_on_mixtures(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_seed(&rng, 99);
    for (int trial = 0; trial < 400; trial++) {
        double eps;
        ks_profile *p = random_mixture(&rng, &eps);
        for (int alloc = 0; alloc < 2; alloc++) {
            ks_params pa = tu_params("root", alloc, eps, 1);
            ks_plan plan = make_plan(p, &pa);
            for (uint32_t gi = 0; gi < plan.group_count; gi++) {
                double total = alloc == KS_ALLOC_JOINT ? plan.total_ns : tu_group_total(&plan, gi);
                double c = pow(eps * total / plan.z, 2);
                double v = promised_variance(&plan, alloc == KS_ALLOC_JOINT ? UINT32_MAX : gi);
                if (!(v <= c * (1 + 1e-9))) {
                    char head[512];
                    snprintf(head, sizeof head,
                             "root(%s), mixture %d (N = %zu, eps = %.4f): variance %.6g > "
                             "bound %.6g (x%.4f)",
                             alloc == KS_ALLOC_JOINT ? "joint" : "tree", trial, p->n, eps, v, c,
                             v / c);
                    fail_with_clusters(&plan, head);
                }
            }
            ks_plan_free(&plan);
        }
        ks_profile_free(p);
    }
}

/* STEM: one cluster per kernel, sizes from the KKT over the kernels */
static void test_stem_sizes(void **state)
{
    (void)state;
    /* one kernel: m = ceil((z sigma / (eps mu))^2) from the raw durations */
    size_t count;
    const char *name;
    const tu_kernel *shape = tu_shape(1, &count, &name);
    ks_profile *p = tu_workload(shape, 1, 50000, 17); /* conv_a alone */
    assert_non_null(p);
    ks_params pa = tu_params("stem", 0, 0.03, 1);
    ks_plan plan = make_plan(p, &pa);
    sorted_groups sg;
    sorted_groups_build(p, KS_KEY_NAME, &sg);
    range_stat s = stats_of(sg.v, p->n);
    double r = plan.z * s.std / (0.03 * s.mean);
    assert_int_equal(plan.cluster_count, 1);
    assert_int_equal(plan.clusters[0].m, (uint64_t)ceil(r * r - 1e-9));
    assert_true(is_close(plan.clusters[0].m_real, r * r, 1e-9));
    sorted_groups_free(&sg);
    ks_plan_free(&plan);
    ks_profile_free(p);

    /* several kernels: the KKT over the kernels' statistics */
    p = workload(2, 20000, 18);
    pa = tu_params("stem", 0, 0.04, 1);
    plan = make_plan(p, &pa);
    sorted_groups_build(p, KS_KEY_NAME, &sg);
    size_t k = sg.g.count;
    double size[32], mean[32], std[32], m_real[32];
    assert_true(k <= 32);
    assert_int_equal(plan.cluster_count, k);
    for (size_t gi = 0; gi < k; gi++) {
        range_stat rs = stats_of(sg.v + sg.off[gi], sg.g.size[gi]);
        size[gi] = (double)rs.n;
        mean[gi] = rs.mean;
        std[gi] = rs.std;
    }
    ks_kkt_allocate(k, size, mean, std, 0.04, plan.z, m_real);
    for (size_t ci = 0; ci < k; ci++) {
        const ks_cluster *c = &plan.clusters[ci];
        assert_int_equal(c->m, ks_round_sample_size(m_real[c->group], c->size));
    }
    double bound = pow(0.04 * plan.total_ns / plan.z, 2);
    assert_true(promised_variance(&plan, UINT32_MAX) <= bound * (1 + 1e-9));
    sorted_groups_free(&sg);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* A cluster whose size reaches N is simulated exactly (weight 1 each), with
 * or without replacement (docs/METHODS.md, STEM).  Drawing N with
 * replacement instead misses about 37 % of the members and leaves the
 * variance N sigma^2 that the bound did not allow. */
static void check_full_clusters_exact(const ks_plan *plan, const char *what)
{
    for (uint32_t ci = 0; ci < plan->cluster_count; ci++) {
        const ks_cluster *c = &plan->clusters[ci];
        if (c->m < c->size)
            continue;
        uint64_t found = 0;
        bool unit_weights = true;
        for (size_t i = 0; i < plan->sample_count; i++)
            if (plan->samples[i].cluster == ci) {
                found++;
                unit_weights &= plan->samples[i].weight == 1.0;
            }
        if (found != c->size || !unit_weights)
            fail_msg("%s, replacement %d: cluster %u (%s) has m = N = %llu but %llu distinct "
                     "members were sampled%s",
                     what, (ks_plan_param(plan, "with-replacement") > 0), ci, c->path,
                     (unsigned long long)c->size, (unsigned long long)found,
                     unit_weights ? "" : ", not all with weight 1");
    }
}

static void test_full_cluster_exact(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    for (int i = 0; i < 10; i++)
        assert_int_equal(tu_append(p, "wide", 1000 + 9000 * (i % 2) + i, NULL, NULL), KS_OK);
    ks_profile *mixed = workload(2, 20000, 19);
    static const struct {
        const char *method;
        int allocation;
    } cases[] = {{"stem", 0}, {"root", KS_ALLOC_TREE}, {"root", KS_ALLOC_JOINT}};
    for (size_t k = 0; k < 3; k++) {
        for (int repl = 0; repl < 2; repl++) {
            ks_params pa = tu_params(cases[k].method, cases[k].allocation, 0.01, 5);
            tu_param(&pa, "with-replacement", "%d", (int)(repl));
            ks_plan plan = make_plan(p, &pa);
            if (strcmp(cases[k].method, "stem") == 0)
                assert_int_equal(plan.clusters[0].m, 10); /* the bound needs all of it */
            check_full_clusters_exact(&plan, cases[k].method);
            ks_plan_free(&plan);
            plan = make_plan(mixed, &pa);
            check_full_clusters_exact(&plan, cases[k].method);
            /* and so the bound on the total holds with replacement too */
            double c = pow(0.01 * plan.total_ns / plan.z, 2);
            double v = promised_variance(&plan, UINT32_MAX);
            if (!(v <= c * (1 + 1e-9)))
                fail_msg("%s, replacement %d: variance %.6g > bound %.6g (x%.3f)",
                         cases[k].method, repl, v, c, v / c);
            ks_plan_free(&plan);
        }
    }
    ks_profile_free(mixed);
    ks_profile_free(p);
}

/* ------------------------------------------------------------ statistics */

/* Sanitizer builds run the library several times slower; the statistical
 * claims do not depend on N (sample sizes follow the spread, not the count),
 * so there they run on smaller workloads to keep the suite fast. */
#if defined(__SANITIZE_ADDRESS__)
#define STAT_N 4000
#else
#define STAT_N 20000
#endif

typedef struct run_stats {
    double mean, se, exceed;
    double samples, speedup;
} run_stats;

static run_stats repeat(const ks_profile *p, const ks_params *base, int seeds)
{
    double truth = ks_profile_total_ns(p);
    double sum = 0, sq = 0, samples = 0, inv_speedup = 0;
    int exceed = 0;
    /* fitted once: ks_plan_build is ks_fit then ks_select with the seed, so
     * these are the very plans it would build, without refitting per seed */
    ks_fitted *fit;
    ks_error err;
    if (ks_fit(p, base, &fit, &err) != KS_OK)
        fail_msg("%s: ks_fit failed: %s", base->method, err.message);
    for (int s = 0; s < seeds; s++) {
        ks_params pa = *base;
        pa.seed = 1000 + (uint64_t)s;
        ks_plan plan;
        if (ks_select(fit, pa.seed, &plan, &err) != KS_OK)
            fail_msg("%s: ks_select failed: %s", base->method, err.message);
        for (size_t i = 0; i < plan.sample_count; i++)
            assert_true(plan.samples[i].id < p->n);
        double e = (ks_plan_estimate_duration(&plan, p) - truth) / truth;
        sum += e;
        sq += e * e;
        if (fabs(e) > pa.epsilon)
            exceed++;
        samples += (double)plan.sample_count;
        inv_speedup += plan.sampled_ns / plan.total_ns;
        ks_plan_free(&plan);
    }
    ks_fitted_free(fit);
    run_stats r;
    r.mean = sum / seeds;
    double var = (sq - seeds * r.mean * r.mean) / (seeds - 1);
    r.se = sqrt(fmax(var, 0) / seeds);
    r.exceed = (double)exceed / seeds;
    r.samples = samples / seeds;
    r.speedup = seeds / inv_speedup;
    return r;
}

static void test_statistics(void **state)
{
    (void)state;
    const int seeds = 200;
    const double alpha = 0.05;
    const double allowed = alpha + 3 * sqrt(alpha * (1 - alpha) / seeds);
    static const struct {
        const char *label, *method;
        int allocation;
        bool bounded;
    } cases[] = {
        {"root(joint)", "root", KS_ALLOC_JOINT, true},
        {"root(tree)", "root", KS_ALLOC_TREE, true},
        {"stem", "stem", 0, true},
        {"allegro", "allegro", 0, true},
        {"random", "random", 0, false},
    };
    for (int w = 0; w < 3; w++) {
        ks_profile *p = workload(w, STAT_N, 500 + w);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            ks_params pa = tu_params(cases[i].method, cases[i].allocation, 0.05, 0);
            pa.confidence = 1 - alpha;
            if ((strcmp(cases[i].method, "random") == 0 ? 0.01 : 0) > 0) tu_param(&pa, "fraction", "%.17g", (double)(strcmp(cases[i].method, "random") == 0 ? 0.01 : 0));
            run_stats r = repeat(p, &pa, seeds);
            print_message("%-10s %-11s mean error %+.5f (se %.5f, %+.1f se), |error| > eps "
                          "in %.3f, %.0f samples, speedup %.1f\n",
                          workload_names[w], cases[i].label, r.mean, r.se,
                          r.se > 0 ? r.mean / r.se : 0, r.exceed, r.samples, r.speedup);
            if (!(fabs(r.mean) <= 3 * r.se + 1e-12))
                fail_msg("%s %s: mean signed error %.5f is %.1f standard errors from 0",
                         workload_names[w], cases[i].label, r.mean, r.mean / r.se);
            if (cases[i].bounded && !(r.exceed <= allowed))
                fail_msg("%s %s: |error| > %.2f in %.3f of runs (allowed %.3f)",
                         workload_names[w], cases[i].label, pa.epsilon, r.exceed, allowed);
        }
        ks_profile_free(p);
    }
}

/* ------------------------------------------------------------ edge cases */

static void test_zero_duration_profile(void **state)
{
    (void)state;
    static const char *const methods[] = {"root", "stem", "allegro", "random"};
    /* a profile with no time at all (an ncu export without durations) is
     * refused: every time-based size would be meaningless */
    ks_profile *zero = ks_profile_new();
    for (int i = 0; i < 50; i++)
        assert_int_equal(tu_append(zero, "a", 0, NULL, NULL), KS_OK);
    for (int mi = 0; mi < 4; mi++) {
        ks_params pa = tu_params(methods[mi], 0, 0.05, 2);
        ks_plan plan;
        ks_error err;
        ks_error_clear(&err);
        assert_int_equal(ks_plan_build(zero, &pa, &plan, &err), KS_ERR_FORMAT);
        assert_non_null(strstr(err.message, "duration is 0"));
    }
    ks_profile_free(zero);

    /* zero-duration kernels beside timed ones plan without NaN or inf */
    ks_profile *p = ks_profile_new();
    for (int i = 0; i < 500; i++)
        assert_int_equal(tu_append(p, i % 3 ? "a" : "b", i % 3 ? 0 : 7 + i % 5, NULL, NULL),
                         KS_OK);
    double total = ks_profile_total_ns(p);
    for (int mi = 0; mi < 4; mi++) {
        for (int alloc = 0; alloc < 2; alloc++) {
            ks_params pa = tu_params(methods[mi], alloc, 0.05, 2);
            ks_plan plan = make_plan(p, &pa);
            check_plan_structure(p, &plan);
            double est = ks_plan_estimate_duration(&plan, p);
            assert_true(isfinite(est) && est >= 0 && est <= 10 * total);
            for (size_t i = 0; i < plan.cluster_count; i++) {
                assert_false(isnan(plan.clusters[i].m_real));
                assert_false(isnan(plan.clusters[i].mean_ns));
                if (plan.clusters[i].mean_ns == 0 && mi < 2)
                    assert_int_equal(plan.clusters[i].m, 1); /* root/stem: exact, N x 0 */
            }
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            ks_error err;
            assert_int_equal(ks_plan_write_json(&plan, f, &err), KS_OK);
            fclose(f);
            assert_null(strstr(buf, "nan"));
            assert_null(strstr(buf, ": inf"));
            assert_null(strstr(buf, ": -inf"));
            free(buf);
            ks_plan_free(&plan);
        }
    }
    ks_profile_free(p);
}

/* Runs fn in a child process with a time limit, so a hang fails the test
 * instead of stalling the suite. */
static void run_isolated(void (*fn)(void), int seconds, const char *what)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm((unsigned)seconds);
        fn();
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("%s: killed by signal %d%s", what, WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? " (did not finish: hang)" : "");
    if (WEXITSTATUS(status) != 0)
        fail_msg("%s: exit status %d", what, WEXITSTATUS(status));
}

static ks_profile *wide_span_profile(int64_t top)
{
    /* a group of 70 (more than any small-group sorting shortcut) whose
     * durations span `top` ns */
    ks_profile *p = ks_profile_new();
    if (!p)
        return NULL;
    for (int i = 0; i < 69; i++)
        if (tu_append(p, "k", 1 + i * 1000, NULL, NULL) != KS_OK)
            return NULL;
    if (tu_append(p, "k", top, NULL, NULL) != KS_OK)
        return NULL;
    return p;
}

static int64_t span_top;

static void plan_wide_span(void)
{
    ks_profile *p = wide_span_profile(span_top);
    static const char *const methods[] = {"stem", "root", "allegro"};
    for (int i = 0; i < 3; i++) {
        ks_params pa = tu_params(methods[i], 0, 0.05, 1);
        ks_plan plan;
        ks_error err;
        if (ks_plan_build(p, &pa, &plan, &err) != KS_OK)
            _exit(3);
        ks_plan_free(&plan);
    }
    ks_profile_free(p);
}

/* Durations spread over more than 2^32 ns (a kernel from 1 us to 5 s) and
 * up to 2^56 ns (only from a broken input, which still must not hang or
 * crash): the plan is built in a child process with a time limit, then
 * checked here. */
static void test_wide_duration_spans(void **state)
{
    (void)state;
    static const int64_t tops[] = {INT64_C(5000000000), INT64_C(1) << 40,
                                   (INT64_C(1) << 56) + 5};
    for (int t = 0; t < 3; t++) {
        span_top = tops[t];
        char what[64];
        snprintf(what, sizeof what, "a group whose durations span %lld ns", (long long)tops[t]);
        run_isolated(plan_wide_span, 20, what);
        ks_profile *p = wide_span_profile(tops[t]);
        assert_non_null(p);
        static const char *const methods[] = {"stem", "root", "allegro"};
        for (int i = 0; i < 3; i++) {
            ks_params pa = tu_params(methods[i], 0, 0.05, 1);
            ks_plan plan = make_plan(p, &pa);
            check_plan_structure(p, &plan);
            ks_plan_free(&plan);
        }
        ks_profile_free(p);
    }
}

/* ------------------------------------------------------------ Allegro */

static void test_allegro_key_and_draws(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    const uint32_t grid_a[3] = {64, 1, 1}, grid_b[3] = {128, 2, 1}, block[3] = {256, 1, 1};
    ks_rng rng;
    ks_rng_seed(&rng, 21);
    for (int i = 0; i < 3000; i++) {
        int64_t d = 5000 + (int64_t)(2000 * ks_rng_normal(&rng));
        assert_int_equal(tu_append(p, i % 2 ? "gemm<float>(int)" : "gemm<double>(int)",
                                   d < 1 ? 1 : d, i % 3 ? grid_a : grid_b, block),
                         KS_OK);
    }
    for (int i = 0; i < 5; i++) /* a tiny group: n_min draws from 5 */
        assert_int_equal(tu_append(p, "tiny", 100 + i, grid_a, block), KS_OK);
    ks_params pa = tu_params("allegro", 0, 0.05, 4);
    ks_plan plan = make_plan(p, &pa);
    check_plan_structure(p, &plan);
    assert_int_equal(plan.params.key, KS_KEY_NAME_GRID_BLOCK);
    /* the template argument is cut, grid and block kept apart */
    assert_int_equal(plan.group_count, 3);
    assert_string_equal(plan.group_labels[0], "gemm[128,2,1][256,1,1]");
    assert_string_equal(plan.group_labels[1], "gemm[64,1,1][256,1,1]");
    assert_string_equal(plan.group_labels[2], "tiny[64,1,1][256,1,1]");
    uint64_t draws = 0;
    for (size_t i = 0; i < plan.cluster_count; i++) {
        const ks_cluster *c = &plan.clusters[i];
        assert_true(c->m >= 30);
        draws += c->m;
        if (c->group == 2) {
            assert_int_equal(c->size, 5);
            assert_int_equal(c->m, 30);
        }
    }
    assert_int_equal(plan.draws, draws); /* with replacement: every draw counted */
    assert_true(plan.sample_count < plan.draws);
    assert_string_equal(plan.bound_scope, "per-group");
    check_tree(p, &plan, true);
    ks_plan_free(&plan);

    /* an explicit key wins over the method's default */
    pa.key = KS_KEY_NAME;
    pa.key_given = 1;
    plan = make_plan(p, &pa);
    assert_int_equal(plan.params.key, KS_KEY_NAME);
    assert_int_equal(plan.group_count, 3); /* gemm<float>, gemm<double>, tiny */
    ks_plan_free(&plan);
    ks_profile_free(p);
}

static void test_allegro_thresholds(void **state)
{
    (void)state;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = workload(w, 20000, 600 + w);
        static const double n_th[] = {50, 10, 500};
        static const uint64_t n_min[] = {30, 1, 5};
        for (int i = 0; i < 3; i++) {
            ks_params pa = tu_params("allegro", 0, 0.05, 1);
            tu_param(&pa, "n-th", "%.17g", (double)(n_th[i]));
            tu_param(&pa, "n-min", "%llu", (unsigned long long)(n_min[i]));
            ks_plan plan = make_plan(p, &pa);
            check_plan_structure(p, &plan);
            check_tree(p, &plan, true);
            ks_plan_free(&plan);
        }
        /* n_th out of reach: no splits, one leaf per group */
        ks_params pa = tu_params("allegro", 0, 0.05, 1);
        tu_param(&pa, "n-th", "%.17g", (double)(1e300));
        ks_plan plan = make_plan(p, &pa);
        assert_int_equal(plan.cluster_count, plan.group_count);
        check_tree(p, &plan, true);
        ks_plan_free(&plan);
        ks_profile_free(p);
    }
}

/* ------------------------------------------------------------ random */

static void check_random_draws(size_t n, double speedup, double fraction, uint64_t want)
{
    ks_profile *p = ks_profile_new();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tu_append(p, i % 2 ? "a" : "b", 100 + (int64_t)(i % 17), NULL, NULL),
                         KS_OK);
    ks_params pa = tu_params("random", 0, 0.05, 9);
    if ((speedup) > 0) tu_param(&pa, "target-speedup", "%.17g", (double)(speedup));
    if ((fraction) > 0) tu_param(&pa, "fraction", "%.17g", (double)(fraction));
    ks_plan plan = make_plan(p, &pa);
    if (plan.draws != want)
        fail_msg("random N = %zu, S = %g, f = %g: %llu draws, want %llu", n, speedup, fraction,
                 (unsigned long long)plan.draws, (unsigned long long)want);
    assert_int_equal(plan.cluster_count, 1);
    assert_int_equal(plan.clusters[0].m, want);
    double wsum = 0;
    for (size_t i = 0; i < plan.sample_count; i++)
        wsum += plan.samples[i].weight;
    assert_true(is_close(wsum, (double)n, 1e-12));
    assert_true(plan.bound == 0);
    check_plan_structure(p, &plan);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

static void test_random_draw_counts(void **state)
{
    (void)state;
    check_random_draws(1000, 7, 0, 143);    /* ceil(1000 / 7) */
    check_random_draws(1000, 10, 0, 100);   /* exact division */
    check_random_draws(1001, 10, 0, 101);
    check_random_draws(1000, 1000, 0, 1);
    check_random_draws(1000, 5000, 0, 1);   /* at least one draw */
    check_random_draws(1000, 1, 0, 1000);
    check_random_draws(1000, 0, 0.013, 13); /* ceil(1000 * 0.013) */
    check_random_draws(1000, 0, 1, 1000);
    check_random_draws(3, 0, 0.1, 1);
    check_random_draws(20000, 0, 0, 20);    /* default: 0.1 % */
    check_random_draws(999, 0, 0.5, 500);
}

/* ceil(N f) of the number the user meant: 100 * 0.07 is 7.000000000000001
 * in binary floating point, but 7 draws are asked for. */
static void test_random_fraction_rounding(void **state)
{
    (void)state;
    check_random_draws(100, 0, 0.07, 7);
    check_random_draws(1000, 0, 0.035, 35);
}

static void test_random_bad_params(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 100, 1);
    ks_params pa = tu_params("random", 0, 0.05, 1);
    if ((10) > 0) tu_param(&pa, "target-speedup", "%.17g", (double)(10));
    if ((0.1) > 0) tu_param(&pa, "fraction", "%.17g", (double)(0.1));
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    if ((0.5) > 0) tu_param(&pa, "target-speedup", "%.17g", (double)(0.5));
    if ((0) > 0) tu_param(&pa, "fraction", "%.17g", (double)(0));
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    ks_profile_free(p);
}

KS_TEST_MAIN(test_plan_structure,
             test_deep_tree_paths,
             test_root_paper_tree,
             test_root_splits_two_modes,
             test_root_degenerate_kernels,
             test_root_joint_cheaper_than_stem,
             test_root_bounds_on_workloads,
             test_root_bounds_on_mixtures,
             test_stem_sizes,
             test_full_cluster_exact,
             test_statistics,
             test_zero_duration_profile,
             test_wide_duration_spans,
             test_allegro_key_and_draws,
             test_allegro_thresholds,
             test_random_draw_counts,
             test_random_fraction_rounding,
             test_random_bad_params)
