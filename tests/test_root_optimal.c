/*
 * test_root_optimal.c - ROOT's optimiser (issue 8): optimal against brute
 * force, never dearer than the greedy ROOT it replaced, STEM or the paper's
 * tree, monotone in epsilon, and honest about its bound (runs over the bound
 * at rate alpha, within 3 standard errors).
 *
 * Under AddressSanitizer the statistical parts run fewer workloads and seeds
 * (see FEW below) so the suite stays within minutes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksample.h"
#include "internal.h"
#include "root.h"
#include "test_main.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define FEW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FEW 1
#endif
#endif
#ifndef FEW
#define FEW 0
#endif

/* ------------------------------------------------------------ helpers */

static ks_plan make_plan(const ks_profile *p, const char *method, int allocation, double eps,
                         uint64_t seed)
{
    ks_params pa = tu_params(method, allocation, eps, seed);
    /* the optimiser's plan, without the replicated strata the calibrated
     * model adds (tested in test_estimate) */
    if (strcmp(method, "root") == 0)
        tu_param(&pa, "replicate", "0");
    return tu_plan_ok(p, &pa);
}

/* finite-population variance of the plan's estimate of group g's total
 * (UINT32_MAX: of the workload total) */
static double plan_variance(const ks_plan *plan, uint32_t g)
{
    double v = 0;
    for (size_t i = 0; i < plan->cluster_count; i++) {
        const ks_cluster *c = &plan->clusters[i];
        if ((g != UINT32_MAX && c->group != g) || c->m >= c->size)
            continue;
        double n = (double)c->size, m = (double)c->m, s2 = c->std_ns * c->std_ns * n / (n - 1);
        v += n * s2 * (n - m) / m;
    }
    return v;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : (x > y);
}

/* ------------------------------------------------------------ brute force */

/* Every (cost, variance) design of one group: every contiguous
 * stratification of its distinct sorted values, every integer size. */
typedef struct design_list {
    double *cost, *var;
    size_t count, cap;
} design_list;

static void list_add(design_list *l, double c, double v)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->cost = realloc(l->cost, l->cap * sizeof *l->cost);
        l->var = realloc(l->var, l->cap * sizeof *l->var);
        assert_true(l->cost && l->var);
    }
    l->cost[l->count] = c;
    l->var[l->count++] = v;
}

typedef struct bf_stratum {
    double n, mean, s2;
} bf_stratum;

static void allocate_all(const bf_stratum *s, size_t k, size_t i, double c, double v,
                         design_list *out)
{
    if (i == k) {
        list_add(out, c, v);
        return;
    }
    for (double m = 1; m <= s[i].n; m++) {
        double var = s[i].s2 > 0 ? s[i].n * s[i].s2 * (s[i].n - m) / m : 0;
        allocate_all(s, k, i + 1, c + m * s[i].mean, v + var, out);
        if (s[i].s2 <= 0)
            break; /* more samples of a constant stratum change nothing */
    }
}

static void brute_designs(const int64_t *sorted, size_t n, design_list *out)
{
    size_t start[16], d = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || sorted[i] != sorted[i - 1])
            start[d++] = i;
    start[d] = n;
    for (unsigned mask = 0; mask < 1u << (d - 1); mask++) {
        bf_stratum s[16];
        size_t k = 0, lo = 0;
        for (size_t u = 1; u <= d; u++) {
            if (u < d && !(mask >> (u - 1) & 1))
                continue;
            size_t a = start[lo], b = start[u];
            double sum = 0, sq = 0, cnt = (double)(b - a);
            for (size_t j = a; j < b; j++)
                sum += (double)sorted[j];
            double mean = sum / cnt;
            for (size_t j = a; j < b; j++)
                sq += ((double)sorted[j] - mean) * ((double)sorted[j] - mean);
            s[k++] = (bf_stratum){cnt, mean, cnt > 1 && u - lo > 1 ? sq / (cnt - 1) : 0};
            lo = u;
        }
        allocate_all(s, k, 0, 0, 0, out);
    }
}

/* Random small groups: 2..7 launches from a few lumpy values, some equal. */
static size_t small_group(ks_rng *rng, int64_t *v)
{
    size_t n = 2 + (size_t)ks_rng_below(rng, 6);
    double base = exp(4 + 6 * ks_rng_uniform(rng));
    for (size_t i = 0; i < n; i++) {
        double r = ks_rng_uniform(rng);
        v[i] = llround(base * (r < 0.2 ? 1 : r < 0.5 ? 1.1 + r : r < 0.8 ? 3 * r : 20 * r));
    }
    qsort(v, n, sizeof *v, cmp_i64);
    return n;
}

static void test_brute_force_small_groups(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_seed(&rng, 2026);
    int trials = FEW ? 150 : 600;
    for (int t = 0; t < trials; t++) {
        int groups = 1 + (t % 2); /* one group, or two sharing the bound */
        int64_t v[2][8];
        size_t n[2];
        ks_profile *p = ks_profile_new();
        for (int g = 0; g < groups; g++) {
            n[g] = small_group(&rng, v[g]);
            for (size_t i = 0; i < n[g]; i++)
                assert_int_equal(tu_append(p, g ? "b" : "a", v[g][i], NULL, NULL), KS_OK);
        }
        double eps = 0.02 + 0.4 * ks_rng_uniform(&rng);
        for (int alloc = 0; alloc < 2; alloc++) {
            ks_plan plan = make_plan(p, "root", alloc, eps, 1);
            double best = 0;
            if (alloc == KS_ALLOC_JOINT) {
                double bound = pow(eps * plan.total_ns / plan.z, 2);
                design_list d[2] = {{0}, {0}};
                for (int g = 0; g < groups; g++)
                    brute_designs(v[g], n[g], &d[g]);
                best = INFINITY;
                for (size_t i = 0; i < d[0].count; i++)
                    for (size_t j = 0; j < (groups > 1 ? d[1].count : 1); j++) {
                        double c = d[0].cost[i] + (groups > 1 ? d[1].cost[j] : 0);
                        double var = d[0].var[i] + (groups > 1 ? d[1].var[j] : 0);
                        if (var <= bound * (1 + 1e-12) && c < best)
                            best = c;
                    }
                for (int g = 0; g < groups; g++) {
                    free(d[g].cost);
                    free(d[g].var);
                }
                assert_true(plan_variance(&plan, UINT32_MAX) <= bound * (1 + 1e-9));
            } else {
                for (uint32_t g = 0; g < (uint32_t)groups; g++) {
                    /* groups are numbered in order of first appearance */
                    double bound = pow(eps * tu_group_total(&plan, g) / plan.z, 2), gbest = INFINITY;
                    design_list d = {0};
                    brute_designs(v[g], n[g], &d);
                    for (size_t i = 0; i < d.count; i++)
                        if (d.var[i] <= bound * (1 + 1e-12) && d.cost[i] < gbest)
                            gbest = d.cost[i];
                    free(d.cost);
                    free(d.var);
                    best += gbest;
                    assert_true(plan_variance(&plan, g) <= bound * (1 + 1e-9));
                }
            }
            double cost = ks_plan_expected_cost(&plan);
            if (!(fabs(cost - best) <= 1e-9 * best))
                fail_msg("trial %d (%d groups, eps %.4f, %s): plan costs %.10g, the optimum "
                         "is %.10g",
                         t, groups, eps, alloc ? "tree" : "joint", cost, best);
            assert_true(plan.lower_bound_ns <= best * (1 + 1e-9));
            ks_plan_free(&plan);
        }
        ks_profile_free(p);
    }
}

/* ------------------------------------------------------------ baselines */

/* ROOT as it was before issue 8 (greedy growth under each group's share of
 * the bound, leaves re-sized by the KKT, the unsplit allocation kept where
 * rounding made it cheaper), rebuilt here for its expected cost. */
typedef struct ref_leaf {
    double n, mean, std;
} ref_leaf;

typedef struct ref_plan {
    ref_leaf *leaf;
    size_t count, cap;
} ref_plan;

static ref_leaf stats_of(const int64_t *v, size_t n)
{
    long double mean;
    long double sq = tu_sum_squares(v, n, &mean);
    return (ref_leaf){(double)n, (double)mean, v[0] == v[n - 1] ? 0 : (double)sqrtl(sq / n)};
}

static uint64_t stem_single(const ref_leaf *s, double eps, double z)
{
    if (s->std <= 0 || s->n <= 1)
        return 1;
    double r = z * s->std / (eps * s->mean);
    return ks_round_sample_size(r * r, (uint64_t)s->n);
}

static void ref_grow(ref_plan *r, const int64_t *v, const double *vd, size_t lo, size_t hi,
                     uint64_t m_old, double eps, double z, int depth)
{
    ref_leaf s = stats_of(v + lo, hi - lo);
    size_t n = hi - lo;
    size_t cut = n >= 2 && v[lo] != v[hi - 1] && depth < 64 ? ks_two_means_cut(vd + lo, n, NULL)
                                                             : 0;
    if (cut > 0) {
        ref_leaf s0 = stats_of(v + lo, cut), s1 = stats_of(v + lo + cut, n - cut);
        double size[2] = {s0.n, s1.n}, mean[2] = {s0.mean, s1.mean}, std[2] = {s0.std, s1.std};
        double m_real[2];
        ks_kkt_allocate(2, size, mean, std, eps, z, m_real);
        uint64_t m0 = ks_round_sample_size(m_real[0], cut);
        uint64_t m1 = ks_round_sample_size(m_real[1], n - cut);
        if ((double)m0 * s0.mean + (double)m1 * s1.mean < (double)m_old * s.mean) {
            ref_grow(r, v, vd, lo, lo + cut, m0, eps, z, depth + 1);
            ref_grow(r, v, vd, lo + cut, hi, m1, eps, z, depth + 1);
            return;
        }
    }
    if (r->count == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->leaf = realloc(r->leaf, r->cap * sizeof *r->leaf);
        assert_non_null(r->leaf);
    }
    r->leaf[r->count++] = s;
}

static double kkt_cost(const ref_leaf *l, size_t k, double eps, double z)
{
    double *size = malloc((k + 1) * sizeof *size), *mean = malloc((k + 1) * sizeof *mean);
    double *std = malloc((k + 1) * sizeof *std), *m = malloc((k + 1) * sizeof *m), cost = 0;
    assert_true(size && mean && std && m);
    for (size_t i = 0; i < k; i++) {
        size[i] = l[i].n;
        mean[i] = l[i].mean;
        std[i] = l[i].std;
    }
    ks_kkt_allocate(k, size, mean, std, eps, z, m);
    for (size_t i = 0; i < k; i++)
        cost += (double)ks_round_sample_size(m[i], (uint64_t)l[i].n) * l[i].mean;
    free(size);
    free(mean);
    free(std);
    free(m);
    return cost;
}

/* groups: sorted durations v[off[g] .. off[g+1]) */
static double greedy_cost(const int64_t *v, const size_t *off, size_t gk, double eps, double z,
                          bool joint)
{
    ref_leaf *gs = malloc(gk * sizeof *gs);
    double *size = malloc(gk * sizeof *size), *mean = malloc(gk * sizeof *mean);
    double *std = malloc(gk * sizeof *std), *gm = malloc(gk * sizeof *gm);
    double *vd = malloc((off[gk] + 1) * sizeof *vd);
    assert_true(gs && size && mean && std && gm && vd);
    for (size_t g = 0; g < gk; g++) {
        gs[g] = stats_of(v + off[g], off[g + 1] - off[g]);
        size[g] = gs[g].n;
        mean[g] = gs[g].mean;
        std[g] = gs[g].std;
    }
    for (size_t i = 0; i < off[gk]; i++)
        vd[i] = (double)v[i];
    if (joint)
        ks_kkt_allocate(gk, size, mean, std, eps, z, gm);
    ref_plan r = {0};
    double cost = 0, whole = 0;
    for (size_t g = 0; g < gk; g++) {
        size_t first = r.count, n = off[g + 1] - off[g];
        double total = size[g] * mean[g], eps_g = eps;
        uint64_t m0;
        if (joint && std[g] > 0 && total > 0 && isfinite(gm[g]) && gm[g] > 0) {
            eps_g = z * size[g] * std[g] / sqrt(gm[g]) / total;
            m0 = ks_round_sample_size(gm[g], n);
        } else {
            m0 = stem_single(&gs[g], eps, z);
        }
        ref_grow(&r, v + off[g], vd + off[g], 0, n, m0, eps_g, z, 0);
        if (!joint) {
            double leaves = kkt_cost(r.leaf + first, r.count - first, eps, z);
            double one = (double)stem_single(&gs[g], eps, z) * mean[g];
            cost += one < leaves ? one : leaves;
        } else {
            whole += (double)ks_round_sample_size(gm[g], n) * mean[g];
        }
    }
    if (joint) {
        double leaves = kkt_cost(r.leaf, r.count, eps, z);
        cost = whole < leaves ? whole : leaves;
    }
    free(r.leaf);
    free(gs);
    free(size);
    free(mean);
    free(std);
    free(gm);
    free(vd);
    return cost;
}

/* 1..4 kernels of 1..400 launches from random mixtures, some heavy-tailed */
static ks_profile *random_workload(ks_rng *rng, int64_t *v, size_t *off, size_t *gk)
{
    ks_profile *p = ks_profile_new();
    *gk = 1 + (size_t)ks_rng_below(rng, 4);
    off[0] = 0;
    for (size_t g = 0; g < *gk; g++) {
        size_t n = 1 + (size_t)exp(ks_rng_uniform(rng) * 6);
        int comps = 1 + (int)ks_rng_below(rng, 3);
        double mu[3], cv[3];
        for (int c = 0; c < comps; c++) {
            mu[c] = exp(5 + 7 * ks_rng_uniform(rng));
            cv[c] = exp(-4 + 4 * ks_rng_uniform(rng));
        }
        bool heavy = ks_rng_below(rng, 3) == 0;
        char name[24];
        snprintf(name, sizeof name, "k%zu", g);
        for (size_t i = 0; i < n; i++) {
            int c = (int)ks_rng_below(rng, (uint64_t)comps);
            double d = heavy ? mu[c] * exp(1.5 * ks_rng_normal(rng))
                             : mu[c] * (1 + cv[c] * ks_rng_normal(rng));
            v[off[g] + i] = llround(fmax(1, d));
            assert_int_equal(tu_append(p, name, v[off[g] + i], NULL, NULL), KS_OK);
        }
        qsort(v + off[g], n, sizeof *v, cmp_i64);
        off[g + 1] = off[g] + n;
    }
    return p;
}

static void test_never_dearer_than_baselines(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_seed(&rng, 8);
    int64_t *v = malloc(4 * 420 * sizeof *v);
    assert_non_null(v);
    int workloads = FEW ? 200 : 1000, paper_compared = 0;
    enum { B_GREEDY_JOINT, B_STEM, B_TREE, B_PAPER_TOTAL, B_GREEDY_TREE, B_PAPER, B_COUNT };
    const char *names[B_COUNT] = {"greedy joint", "stem",        "root tree",
                                  "paper (total)", "greedy tree", "paper"};
    double worst[B_COUNT] = {0}; /* root / baseline - 1, most negative seen */
    int dearer = 0;
    for (int w = 0; w < workloads; w++) {
        size_t off[5], gk;
        ks_profile *p = random_workload(&rng, v, off, &gk);
        double eps = 0.01 + 0.29 * ks_rng_uniform(&rng);
        ks_plan joint = make_plan(p, "root", KS_ALLOC_JOINT, eps, 1);
        ks_plan tree = make_plan(p, "root", KS_ALLOC_TREE, eps, 1);
        ks_plan stem = make_plan(p, "stem", 0, eps, 1);
        ks_plan paper = make_plan(p, "root", KS_ALLOC_PAPER, eps, 1);
        double z = joint.z, cj = ks_plan_expected_cost(&joint), ct = ks_plan_expected_cost(&tree);
        double base[B_COUNT] = {greedy_cost(v, off, gk, eps, z, true),
                                ks_plan_expected_cost(&stem),
                                ct,
                                INFINITY,
                                greedy_cost(v, off, gk, eps, z, false),
                                INFINITY};
        /* the paper's tree is a fair baseline only where it keeps the bound
         * compared at (often it does not: docs/methods.md): per group for
         * tree, on the total for joint */
        bool paper_ok = true;
        for (uint32_t g = 0; g < paper.group_count; g++)
            paper_ok &= plan_variance(&paper, g) <=
                        pow(eps * tu_group_total(&paper, g) / z, 2) * (1 - 1e-9);
        if (paper_ok) {
            base[B_PAPER] = ks_plan_expected_cost(&paper);
            paper_compared++;
        }
        if (plan_variance(&paper, UINT32_MAX) <= pow(eps * paper.total_ns / z, 2) * (1 - 1e-9))
            base[B_PAPER_TOTAL] = ks_plan_expected_cost(&paper);
        for (int b = 0; b < B_COUNT; b++) {
            double c = b < B_GREEDY_TREE ? cj : ct;
            if (!(c <= base[b] * (1 + 1e-9))) {
                dearer++;
                print_message("workload %d (%zu kernels, %zu launches, eps %.4f): root %s "
                              "costs %.10g > %s %.10g (+%.3f %%)\n",
                              w, gk, p->n, eps, b < B_GREEDY_TREE ? "joint" : "tree", c,
                              names[b], base[b], 100 * (c / base[b] - 1));
            }
            if (isfinite(base[b]) && c / base[b] - 1 < worst[b])
                worst[b] = c / base[b] - 1;
        }
        ks_plan_free(&joint);
        ks_plan_free(&tree);
        ks_plan_free(&stem);
        ks_plan_free(&paper);
        ks_profile_free(p);
    }
    print_message("%d workloads (paper compared per group on %d): largest saving of joint vs "
                  "greedy joint %.1f %%, stem %.1f %%, tree %.1f %%, paper %.1f %%; of tree "
                  "vs greedy tree %.1f %%, paper %.1f %%\n",
                  workloads, paper_compared, -100 * worst[B_GREEDY_JOINT], -100 * worst[B_STEM],
                  -100 * worst[B_TREE], -100 * worst[B_PAPER_TOTAL],
                  -100 * worst[B_GREEDY_TREE], -100 * worst[B_PAPER]);
    /* root_baselines.c keeps the cheapest of these designs within the bound,
     * so the optimiser's plan is never dearer: always, not as a rate */
    assert_int_equal(dearer, 0);
    free(v);
}

/* ------------------------------------------------------------ real profiles */

static ks_profile *read_profile(const char *path)
{
    if (access(path, R_OK) != 0)
        return NULL;
    ks_profile *p;
    ks_error err;
    ks_read_options opt;
    ks_read_options_init(&opt);
    if (ks_profile_read(path, &opt, &p, &err) != KS_OK)
        fail_msg("%s: %s", path, err.message);
    return p;
}

static const char *const kineto_files[] = {
    "alexnet-a100.json.gz",       "v100-ns-resolution.json.gz", "a100-nccl.json.gz",
    "sampled-rank0.json.gz",      "mi250-rocm62.json.gz",       "resnet50-v100-2021.json.gz",
    "mi300x-replay.json.gz",
};
#define KINETO_FILES (sizeof kineto_files / sizeof kineto_files[0])

/* The design only (no draws): its expected cost. */
static double design_cost(const ks_profile *p, int allocation, double eps, double *lower)
{
    ks_root_config pa = {.epsilon = eps, .allocation = allocation, .max_depth = 64};
    ks_groups g;
    ks_error err;
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME, &g, &err), KS_OK);
    ks_root_design d;
    if (ks_root_design_build(p, &g, &pa, ks_z_for_confidence(0.95), &d, &err) != KS_OK)
        fail_msg("design: %s", err.message);
    long double cost = 0;
    for (size_t i = 0; i < d.count; i++) {
        const ks_root_leaf *l = &d.leaves[i];
        const double *val = d.mem.values + d.mem.offset[l->group];
        long double sum = 0;
        for (size_t k = l->lo; k < l->hi; k++)
            sum += val[k];
        uint64_t n = l->hi - l->lo, m = l->m < n ? l->m : n;
        cost += sum * m / n;
    }
    if (lower)
        *lower = d.lower_bound_ns;
    ks_root_design_free(&d);
    ks_groups_free(&g);
    return (double)cost;
}

static void check_monotone(const ks_profile *p, const char *what, int points)
{
    for (int alloc = 0; alloc < 2; alloc++) {
        double prev = INFINITY, prev_eps = 0;
        for (int i = 0; i < points; i++) {
            double eps = 0.001 * pow(300.0, (double)i / (points - 1));
            double c = design_cost(p, alloc, eps, NULL);
            if (!(c <= prev * (1 + 1e-12)))
                fail_msg("%s, %s: eps %.5g costs %.10g, more than %.10g at eps %.5g", what,
                         alloc ? "tree" : "joint", eps, c, prev, prev_eps);
            prev = c;
            prev_eps = eps;
        }
    }
}

static void test_monotone_in_epsilon(void **state)
{
    (void)state;
    for (int w = 0; w < 3; w++) {
        ks_profile *p = tu_named_workload(w, 20000, 40 + w);
        check_monotone(p, w == 0 ? "multimodal" : w == 1 ? "lognormal" : "mixed",
                       FEW ? 12 : 40);
        ks_profile_free(p);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/casio-like-50k.csv.xz", KS_TEST_DATA "/../../examples");
    ks_profile *p = read_profile(path);
    if (p) {
        check_monotone(p, "casio-like-50k", FEW ? 8 : 25);
        ks_profile_free(p);
    }
    for (size_t f = 0; f < KINETO_FILES; f++) {
        snprintf(path, sizeof path, "%s/kineto/%s", KS_SHARED_DATA, kineto_files[f]);
        if (!(p = read_profile(path)))
            continue;
        check_monotone(p, kineto_files[f], FEW ? 8 : 40);
        ks_profile_free(p);
    }
}

/* The plan's cost against the lower bound on every real profile. */
static void test_cost_near_lower_bound(void **state)
{
    (void)state;
    static const double eps_list[] = {0.01, 0.02, 0.05, 0.1, 0.2};
    char path[600];
    int files = 0;
    for (size_t f = 0; f <= KINETO_FILES; f++) {
        if (f == KINETO_FILES)
            snprintf(path, sizeof path, "%s/casio-like-50k.csv.xz",
                     KS_TEST_DATA "/../../examples");
        else
            snprintf(path, sizeof path, "%s/kineto/%s", KS_SHARED_DATA, kineto_files[f]);
        ks_profile *p = read_profile(path);
        if (!p)
            continue;
        files++;
        for (int alloc = 0; alloc < 2; alloc++) {
            char line[256];
            int len = snprintf(line, sizeof line, "%-28s %-5s cost / lower bound:",
                               f == KINETO_FILES ? "casio-like-50k" : kineto_files[f],
                               alloc ? "tree" : "joint");
            for (size_t e = 0; e < sizeof eps_list / sizeof *eps_list; e++) {
                double lb, c = design_cost(p, alloc, eps_list[e], &lb);
                assert_true(lb > 0 && lb <= c * (1 + 1e-9));
                /* joint: within 2 % of the integer-aware bound (issue 8) */
                if (alloc == KS_ALLOC_JOINT && !(c <= 1.02 * lb))
                    fail_msg("%s eps %.2f: joint cost %.6g is %.2f %% above its lower bound",
                             line, eps_list[e], c, 100 * (c / lb - 1));
                len += snprintf(line + len, sizeof line - len, " %.4f", c / lb);
            }
            print_message("%s\n", line);
        }
        ks_profile_free(p);
    }
    if (files == 0)
        skip();
}

/* ------------------------------------------------------------ over the bound */

typedef struct rate {
    unsigned over, trials;
    double expected; /* sum over trials of the normal rate at the trial's variance */
} rate;

/* P(|N(0, var)| > z sqrt(bound)) */
static double normal_rate(double z, double var, double bound)
{
    return var > 0 ? erfc(z * sqrt(bound / var) / sqrt(2.0)) : 0;
}

/* Draws `seeds` plans from one design and counts estimates off by more than
 * eps: of the total (joint) or of each group whose predicted variance uses
 * at least 90 % of its bound (tree); a plan far inside its bound cannot miss
 * it at rate alpha. */
static rate over_bound(const ks_profile *p, int allocation, double eps, int seeds)
{
    ks_root_config pa = {.epsilon = eps, .allocation = allocation, .max_depth = 64};
    double z = ks_z_for_confidence(0.95);
    ks_groups g;
    ks_error err;
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME, &g, &err), KS_OK);
    ks_root_design d;
    assert_int_equal(ks_root_design_build(p, &g, &pa, z, &d, &err), KS_OK);
    double *truth = calloc(g.count + 1, sizeof *truth), *est = calloc(g.count + 1, sizeof *est);
    bool *tight = calloc(g.count + 1, sizeof *tight);
    double *pr = calloc(g.count + 1, sizeof *pr);
    assert_true(truth && est && tight && pr);
    for (size_t i = 0; i < p->n; i++)
        truth[g.group_of[i]] += (double)p->duration_ns[i];
    double total = ks_profile_total_ns(p);
    rate r = {0, 0, 0};
    for (int s = 0; s < seeds; s++) {
        ks_plan plan;
        ks_plan_init(&plan);
        plan.z = z;
        ks_rng rng;
        ks_rng_seed(&rng, 1000 + (uint64_t)s);
        assert_int_equal(ks_root_design_draw(&d, p, &pa, &rng, &plan, &err), KS_OK);
        if (s == 0) {
            plan.total_ns = total;
            for (uint32_t gi = 0; gi <= g.count; gi++) {
                bool all = gi == g.count;
                double bound = pow(eps * (all ? total : truth[gi]) / z, 2);
                double var = plan_variance(&plan, all ? UINT32_MAX : gi);
                tight[gi] = bound > 0 && var >= 0.98 * bound;
                pr[gi] = normal_rate(z, var, bound);
            }
        }
        memset(est, 0, (g.count + 1) * sizeof *est);
        for (size_t i = 0; i < plan.sample_count; i++) {
            const ks_sample *x = &plan.samples[i];
            est[plan.clusters[x->cluster].group] += x->weight * (double)p->duration_ns[x->id];
        }
        if (allocation == KS_ALLOC_JOINT) {
            double all = 0;
            for (size_t gi = 0; gi < g.count; gi++)
                all += est[gi];
            if (tight[g.count]) {
                r.trials++;
                r.over += fabs(all - total) > eps * total;
                r.expected += pr[g.count];
            }
        } else {
            for (size_t gi = 0; gi < g.count; gi++)
                if (tight[gi]) {
                    r.trials++;
                    r.over += fabs(est[gi] - truth[gi]) > eps * truth[gi];
                    r.expected += pr[gi];
                }
        }
        ks_plan_free(&plan);
    }
    free(truth);
    free(est);
    free(tight);
    free(pr);
    ks_root_design_free(&d);
    ks_groups_free(&g);
    return r;
}

/* Runs over the bound against alpha: the trials are plans (joint) or groups
 * (tree) whose predicted variance is within 2 % of their bound, where the
 * normal approximation expects a rate of alpha (a little less below the
 * bound; the expectation is computed from each trial's own variance). */
static void check_rate(const char *what, int allocation, double eps, rate r)
{
    const double alpha = 0.05;
    if (r.trials == 0) {
        print_message("%-26s %-5s eps %.2f: no plan within 2 %% of its bound\n", what,
                      allocation ? "tree" : "joint", eps);
        return;
    }
    double want = r.expected / r.trials, se = sqrt(want * (1 - want) / r.trials);
    double got = (double)r.over / r.trials;
    print_message("%-26s %-5s eps %.2f: over the bound in %.4f of %u runs (expected %.4f, "
                  "alpha %.2f, 3 SE %.4f)\n",
                  what, allocation ? "tree" : "joint", eps, got, r.trials, want, alpha, 3 * se);
    /* Missing the bound more often than promised fails.  Less often is
     * reported: per-group estimates from a few samples of lumpy kernels are
     * lighter-tailed than the normal (a100-nccl, tree: 3.5 % against 4.9 %). */
    if (!(got - want <= 3 * se))
        fail_msg("%s, %s, eps %.2f: over the bound in %.4f of %u runs, expected %.4f +- 3 SE "
                 "(%.4f)",
                 what, allocation ? "tree" : "joint", eps, got, r.trials, want, 3 * se);
    if (!(want - got <= 3 * se))
        print_message("    (below expected - 3 SE: conservative)\n");
}

static void test_over_bound_rate(void **state)
{
    (void)state;
    int seeds = FEW ? 300 : 1000;
    /* synthetic heavy-tailed (lognormal kernels) and multimodal workloads */
    for (int w = 0; w < 2; w++) {
        ks_profile *p = tu_named_workload(w, 20000, 70 + w);
        for (int alloc = 0; alloc < 2; alloc++)
            check_rate(w ? "lognormal (synthetic)" : "multimodal (synthetic)", alloc, 0.05,
                       over_bound(p, alloc, 0.05, seeds));
        ks_profile_free(p);
    }
    static const char *const real[] = {"a100-nccl.json.gz", "v100-ns-resolution.json.gz",
                                       "resnet50-v100-2021.json.gz"};
    for (size_t f = 0; f < 3; f++) {
        char path[600];
        snprintf(path, sizeof path, "%s/kineto/%s", KS_SHARED_DATA, real[f]);
        ks_profile *p = read_profile(path);
        if (!p)
            continue;
        for (int alloc = 0; alloc < 2; alloc++)
            check_rate(real[f], alloc, 0.05, over_bound(p, alloc, 0.05, seeds));
        ks_profile_free(p);
    }
}

/* ------------------------------------------------------------ records */

static void test_plan_records(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 5000, 5);
    for (int repl = 0; repl < 2; repl++) {
        for (int alloc = 0; alloc < 3; alloc++) {
            ks_params pa;
            ks_params_init(&pa);
            tu_param(&pa, "allocation", "%s", alloc == 2 ? "paper" : alloc ? "tree" : "joint");
            tu_param(&pa, "with-replacement", "%d", repl);
            ks_plan plan;
            ks_error err;
            assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
            assert_string_equal(plan.variance_formula,
                                repl ? "with-replacement" : "finite-population");
            if (!repl)
                assert_true(fabs(plan.design_variance - plan_variance(&plan, UINT32_MAX)) <=
                            1e-6 * plan.design_variance + 1e-9);
            assert_true(alloc == KS_ALLOC_PAPER ? plan.lower_bound_ns == 0
                                                : plan.lower_bound_ns > 0);
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            assert_int_equal(ks_plan_write_json(&plan, f, &err), KS_OK);
            fclose(f);
            assert_non_null(strstr(buf, repl ? "\"variance\": \"with-replacement\""
                                             : "\"variance\": \"finite-population\""));
            assert_non_null(strstr(buf, "\"design_rse\": "));
            assert_non_null(strstr(buf, "\"lower_bound_cost_ns\": "));
            assert_non_null(strstr(buf, alloc == 2   ? "\"allocation\": \"paper\""
                                        : alloc == 1 ? "\"allocation\": \"tree\""
                                                     : "\"allocation\": \"joint\""));
            free(buf);
            ks_plan_free(&plan);
        }
    }
    /* a census stratum has no variance: a kernel of 3 launches at a tight
     * bound is simulated whole and predicts 0 */
    ks_profile *q = ks_profile_new();
    for (int i = 0; i < 3; i++)
        assert_int_equal(tu_append(q, "k", 1000 + 500 * i, NULL, NULL), KS_OK);
    ks_plan plan = make_plan(q, "root", KS_ALLOC_JOINT, 0.001, 1);
    assert_int_equal(plan.sample_count, 3);
    assert_true(plan.design_variance == 0);
    assert_true(plan.predicted && plan.predicted_variance == 0 && plan.predicted_halfwidth == 0);
    ks_plan_free(&plan);
    ks_profile_free(q);
    ks_profile_free(p);
}

KS_TEST_MAIN(test_brute_force_small_groups,
             test_never_dearer_than_baselines,
             test_monotone_in_epsilon,
             test_cost_near_lower_bound,
             test_over_bound_rate,
             test_plan_records)
