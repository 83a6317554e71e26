/*
 * root.c - ROOT (Chung et al., MICRO'25): stratify each kernel group on its
 * durations and size the strata, then draw.
 *
 * Allocations (--allocation):
 *  - joint (default): the cheapest contiguous duration strata and integer
 *    sizes of every group together, under one variance bound on the workload
 *    total (root_strata.c);
 *  - tree: the same optimiser with the bound on each group's total, the
 *    scope the paper promises;
 *  - paper: the authors' greedy split tree as they decide it
 *    (root_paper.c), to reproduce published numbers.
 * Sizing uses the finite-population variance N^2 S^2/m - N S^2 for draws
 * without replacement (so a census costs no variance), and N^2 sigma^2/m
 * with --with-replacement.  The design (everything before the draws) is
 * built by ks_root_design_build(); ks_root_design_draw() does the seeded part.
 */
#include "root.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Frontier refinement and merge steps, as a relative change of variance, and
 * the range of variance in which plans are told apart: (eps T / z)^2 for eps
 * from ROOT_FLOOR_EPS to 1 (the largest --epsilon).  All independent of the
 * bound, so that a larger epsilon never gives a dearer plan; a bound below
 * the floor gets a floor of its own (bound / 16). */
#define ROOT_FRONTIER_STEP 0.02
#define ROOT_MERGE_STEP 0.005
#define ROOT_FLOOR_EPS 1e-4
/* Groups whose exact frontier takes at most this many candidate points get
 * it (every stratification and allocation); the rest the Lagrangian one. */
#define ROOT_EXACT_WORK (1u << 13)
/* Replicated strata (--replicate, the calibrated profile model of
 * lib/variance): at least this many second launches. */
#define ROOT_REPLICATE_MIN 4

void ks_root_design_free(ks_root_design *d)
{
    for (size_t i = 0; i < d->count; i++)
        free(d->leaves[i].path);
    free(d->leaves);
    ks_members_free(&d->mem);
    memset(d, 0, sizeof *d);
}

ks_status ks_root_add_leaf(ks_root_design *d, uint32_t group, size_t lo, size_t hi, uint64_t m,
                           double m_real, const char *path, ks_error *err)
{
    ks_status st =
        ks_grow((void **)&d->leaves, &d->capacity, d->count + 1, sizeof *d->leaves, err);
    if (st != KS_OK)
        return st;
    char *copy = strdup(path);
    if (!copy)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    d->leaves[d->count++] = (ks_root_leaf){group, lo, hi, m, m_real, copy, {0}};
    return KS_OK;
}

/* A group's chosen point as leaves: strata are named by their rank in
 * duration order ("0" when the group is one stratum). */
static ks_status add_group_leaves(ks_root_design *d, ks_strata_group *sg, uint32_t group,
                                  size_t point, ks_stratum *buf, ks_error *err)
{
    size_t k = 0;
    ks_strata_point_strata(sg, point, buf, &k);
    ks_status st = KS_OK;
    for (size_t i = 0; i < k && st == KS_OK; i++) {
        char path[32];
        snprintf(path, sizeof path, k == 1 ? "0" : "s%zu", i);
        st = ks_root_add_leaf(d, group, buf[i].lo, buf[i].hi, buf[i].m, (double)buf[i].m, path,
                              err);
    }
    return st;
}

static double root_floor(double total, double eps, double z)
{
    double floor = pow(ROOT_FLOOR_EPS * total / z, 2), bound = pow(eps * total / z, 2);
    return bound < floor ? bound / 16 : floor;
}

static ks_status optimal_leaves(const ks_profile *p, const ks_groups *g, const ks_root_config *pa, double z,
                                ks_root_design *d, ks_error *err)
{
    size_t gk = g->count, largest = 1;
    ks_status st = KS_OK;
    ks_strata_group *sg = calloc(gk + 1, sizeof *sg);
    size_t *choice = calloc(gk + 1, sizeof *choice);
    for (size_t gi = 0; gi < gk; gi++)
        largest = g->size[gi] > largest ? g->size[gi] : largest;
    ks_stratum *buf = malloc((largest + 1) * sizeof *buf);
    if (!sg || !choice || !buf) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    bool joint = pa->allocation == KS_ALLOC_JOINT;
    long double total = 0;
    for (size_t gi = 0; gi < gk && st == KS_OK; gi++) {
        st = ks_strata_group_init(&sg[gi], d->mem.values + d->mem.offset[gi], g->size[gi],
                                  d->kind, err);
        total += st == KS_OK ? sg[gi].total : 0;
    }
    for (size_t gi = 0; gi < gk && st == KS_OK; gi++) {
        double t = joint ? (double)total : sg[gi].total;
        double floor = root_floor(t, pa->epsilon, z);
        bool exact;
        st = ks_strata_exact_frontier(&sg[gi], pow(t / z, 2), ROOT_EXACT_WORK, &exact, err);
        if (st == KS_OK && !exact)
            st = ks_strata_frontier(&sg[gi], floor, pow(t / z, 2), ROOT_FRONTIER_STEP, err);
    }
    if (st != KS_OK)
        goto done;
    if (joint) {
        double t = (double)total, bound = pow(pa->epsilon * t / z, 2);
        st = ks_strata_pick_joint(sg, gk, bound, root_floor(t, pa->epsilon, z), pow(t / z, 2),
                                  ROOT_MERGE_STEP, choice, err);
        double lambda, lb = ks_strata_lower_bound(sg, gk, bound, &lambda);
        if (st == KS_OK)
            st = ks_strata_lower_bound_exact(sg, gk, bound, lambda, &lb, err);
        d->lower_bound_ns = lb;
        snprintf(d->scope, sizeof d->scope, "total");
    } else {
        long double lb = 0;
        for (size_t gi = 0; gi < gk; gi++) {
            double bound = pow(pa->epsilon * sg[gi].total / z, 2);
            choice[gi] = ks_strata_pick_single(&sg[gi], bound);
            double lambda, one = ks_strata_lower_bound(&sg[gi], 1, bound, &lambda);
            if (st == KS_OK)
                st = ks_strata_lower_bound_exact(&sg[gi], 1, bound, lambda, &one, err);
            lb += one;
        }
        d->lower_bound_ns = (double)lb;
        snprintf(d->scope, sizeof d->scope, "per-group");
    }
    for (size_t gi = 0; gi < gk && st == KS_OK; gi++)
        st = add_group_leaves(d, &sg[gi], (uint32_t)gi, choice[gi], buf, err);
    if (st == KS_OK)
        st = ks_root_keep_cheapest(p, g, pa, z, d, err);
done:
    for (size_t gi = 0; sg && gi < gk; gi++)
        ks_strata_group_free(&sg[gi]);
    free(sg);
    free(choice);
    free(buf);
    return st;
}

static double leaf_variance(const ks_root_design *d, const ks_root_leaf *l, uint64_t m)
{
    return ks_strata_variance(d->kind, (double)l->stat.n, l->stat.sample_std * l->stat.sample_std,
                              m);
}

static bool leaf_spread(const ks_root_leaf *l)
{
    return l->stat.n >= 2 && l->stat.sample_std > 0;
}

/* A one-launch leaf and what a second launch removes of the variance. */
typedef struct gain_of {
    double gain;
    size_t leaf;
} gain_of;

/* Largest reduction first; ties by leaf order (deterministic). */
static int by_gain(const void *a, const void *b)
{
    const gain_of *x = a, *y = b;
    if (x->gain != y->gain)
        return x->gain > y->gain ? -1 : 1;
    return (x->leaf > y->leaf) - (x->leaf < y->leaf);
}

/* The design measures the factor the calibrated profile model scales the
 * profile's spread by (lib/variance/variance.c): the strata of one launch
 * that carry the most variance get a second, so that estimate measures how
 * far the simulator's spread departs from the profile's.  Then, with the
 * bound on the total, launches go where they remove the most variance until
 * the interval the plan predicts, t at the replicated strata's degrees of
 * freedom rather than z, is within the bound. */
static ks_status replicate(ks_root_design *d, const ks_root_config *pa, double z, ks_error *err)
{
    size_t L = d->count;
    gain_of *cand = malloc((L + 1) * sizeof *cand);
    if (!cand)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    uint64_t launches = 0;
    size_t count = 0;
    for (size_t i = 0; i < L; i++) {
        ks_root_leaf *l = &d->leaves[i];
        launches += l->m;
        if (l->m == 1 && leaf_spread(l))
            cand[count++] = (gain_of){leaf_variance(d, l, 1) - leaf_variance(d, l, 2), i};
    }
    qsort(cand, count, sizeof *cand, by_gain);
    size_t want = (size_t)ceil(pa->replicate * (double)launches);
    want = want < ROOT_REPLICATE_MIN ? ROOT_REPLICATE_MIN : want;
    for (size_t i = 0; i < count && i < want; i++) {
        d->leaves[cand[i].leaf].m = 2;
        d->leaves[cand[i].leaf].m_real = 2;
    }
    free(cand);
    if (strcmp(d->scope, "total") != 0)
        return KS_OK;
    double p = 1 - 0.5 * erfc(z / sqrt(2)), total = 0;
    for (size_t i = 0; i < L; i++)
        total += (double)d->leaves[i].stat.n * d->leaves[i].stat.mean;
    for (;;) {
        double var = 0, df = 0, best = 0;
        size_t at = L;
        for (size_t i = 0; i < L; i++) {
            ks_root_leaf *l = &d->leaves[i];
            var += leaf_variance(d, l, l->m);
            if (l->m >= 2 && leaf_spread(l))
                df += (double)(l->m - 1);
            if (l->m < l->stat.n && leaf_spread(l)) {
                double gain = leaf_variance(d, l, l->m) - leaf_variance(d, l, l->m + 1);
                if (gain > best) {
                    best = gain;
                    at = i;
                }
            }
        }
        double t = ks_student_t_quantile(p, df > 0 ? df : 1);
        if (at == L || t * sqrt(var) <= pa->epsilon * total)
            break;
        d->leaves[at].m++;
        d->leaves[at].m_real = (double)d->leaves[at].m;
    }
    return KS_OK;
}

ks_status ks_root_design_build(const ks_profile *p, const ks_groups *g, const ks_root_config *pa,
                               double z, ks_root_design *d, ks_error *err)
{
    memset(d, 0, sizeof *d);
    d->kind = pa->with_replacement ? KS_VARIANCE_WITH_REPLACEMENT
                                   : KS_VARIANCE_FINITE_POPULATION;
    ks_status st = KS_OK;
    if (pa->members)
        ks_members_share(pa->members, &d->mem);
    else
        st = ks_members_build(p, g, &d->mem, err);
    if (st != KS_OK)
        return st;
    if (pa->allocation == KS_ALLOC_PAPER)
        st = ks_root_paper_leaves(p, g, pa, z, d, err);
    else
        st = optimal_leaves(p, g, pa, z, d, err);
    if (st == KS_OK && pa->two_phase > 0)
        st = ks_root_pilot_top_up(d, g->count, pa->two_phase, err);
    if (st != KS_OK) {
        ks_root_design_free(d);
        return st;
    }
    for (size_t i = 0; i < d->count; i++) {
        ks_root_leaf *l = &d->leaves[i];
        if (l->stat.n == l->hi - l->lo && l->stat.n > 0)
            continue; /* known from the step that chose the leaf */
        size_t at = d->mem.offset[l->group] + l->lo;
        ks_range_stats(p, d->mem.ids + at, d->mem.values + at, l->hi - l->lo, &l->stat);
    }
    if (pa->allocation != KS_ALLOC_PAPER && pa->replicate > 0) {
        ks_status rs = replicate(d, pa, z, err);
        if (rs != KS_OK) {
            ks_root_design_free(d);
            return rs;
        }
    }
    return KS_OK;
}

ks_status ks_root_design_draw(const ks_root_design *d, const ks_profile *p,
                              const ks_root_config *pa, ks_rng *rng, ks_plan *plan, ks_error *err)
{
    size_t largest = 1;
    for (size_t i = 0; i < d->count; i++)
        largest = d->leaves[i].hi - d->leaves[i].lo > largest ? d->leaves[i].hi - d->leaves[i].lo
                                                              : largest;
    uint32_t *scratch = malloc(largest * sizeof *scratch);
    if (!scratch)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_draw_mode mode =
        pa->with_replacement ? KS_DRAW_WITH_REPLACEMENT : KS_DRAW_WITHOUT_REPLACEMENT;
    long double variance = 0;
    ks_status st = KS_OK;
    for (size_t i = 0; i < d->count && st == KS_OK; i++) {
        const ks_root_leaf *l = &d->leaves[i];
        const uint32_t *ids = d->mem.ids + d->mem.offset[l->group] + l->lo;
        ks_range_stat s = l->stat;
        variance += ks_strata_variance(d->kind, (double)s.n, s.sample_std * s.sample_std, l->m);
        uint32_t group = d->plan_group ? d->plan_group[l->group] : l->group;
        ks_cluster c = {.group = group, .path = l->path, .size = s.n, .mean_ns = s.mean,
                        .std_ns = s.std, .min_ns = s.min, .max_ns = s.max, .m = l->m,
                        .m_real = l->m_real};
        uint32_t index;
        if ((st = ks_plan_add_cluster(plan, &c, &index, err)) == KS_OK)
            st = ks_draw(plan, rng, ids, s.n, c.m, mode, index, scratch, err);
    }
    free(scratch);
    ks_plan_set_bound(plan, pa->epsilon, d->scope);
    snprintf(plan->variance_formula, sizeof plan->variance_formula, "%s",
             d->kind == KS_VARIANCE_FINITE_POPULATION ? "finite-population"
                                                      : "with-replacement");
    plan->design_variance = (double)variance;
    plan->lower_bound_ns = d->lower_bound_ns;
    return st;
}

/* The method's own parameters, declared once (lib/methods/method.c's table
 * row is ks_method_root below). */
typedef struct root_params {
    int with_replacement;
    int allocation;
    uint64_t max_depth;
    int pool;
    double pool_tolerance;
    uint64_t two_phase;
    double replicate;
} root_params;

static const char *const allocations[] = {"joint", "tree", "paper", NULL};
static const char *const pools[] = {"none", "duration", "features", NULL};

/* The first three are in every plan pinned before pooling existed; the
 * others are written only when set (ks_method.params_pinned). */
static const ks_param_def root_param_defs[] = {
    KS_PARAM_WITH_REPLACEMENT(root_params),
    {"allocation", KS_PARAM_CHOICE, offsetof(root_params, allocation), 0, 0, KS_ALLOC_JOINT,
     allocations, "A",
     "joint (the cheapest strata and sizes with the bound on the total), tree (the bound "
     "on each kernel group) or paper (the authors' greedy splits and sizes, to reproduce "
     "published numbers)"},
    KS_PARAM_MAX_DEPTH(root_params),
    {"pool", KS_PARAM_CHOICE, offsetof(root_params, pool), 0, 0, KS_POOL_NONE, pools, "P",
     "strata across kernel keys (joint allocation): none (default), duration (launches of "
     "any kernels with similar durations may share a stratum) or features (only kernels "
     "whose profiled metrics per ns agree within --pool-tolerance); the plan is the "
     "cheapest of these and unpooled ROOT, and lists the kernels sharing strata"},
    {"pool-tolerance", KS_PARAM_REAL, offsetof(root_params, pool_tolerance), 0, 100, 0.25,
     NULL, "T",
     "--pool features: kernels pool when each metric per ns (or its mean, for rates) "
     "differs by at most this factor minus 1"},
    {"replicate", KS_PARAM_REAL, offsetof(root_params, replicate), 0, 1, 0.2, NULL, "S",
     "the calibrated design: this share of the plan's launches (at least 4; 0.2 is the "
     "tested setting) as second launches in the one-launch "
     "strata that carry the most variance, then launches where they remove the most until "
     "the interval predicted with t at their degrees of freedom meets the bound: estimate's "
     "model (the calibrated profile model, which such a plan selects) measures there how "
     "the simulated spread departs from the profile's (default 0.2; 0: the optimiser's plan "
     "as it is, read with collapsed strata; not with --allocation paper or --two-phase)"},
    {"two-phase", KS_PARAM_UINT, offsetof(root_params, two_phase), 0, 1000, 0, NULL, "K",
     "phase 1 of a two-phase design: ROOT's plan with at least K launches of every kernel "
     "key (or pool), so that each shows how its simulated values follow the profile; "
     "'refine --estimator' then sizes the strata from that (0: off)"},
};

static ks_status root_check(const void *method_params, ks_error *err)
{
    const root_params *rp = method_params;
    if ((rp->pool != KS_POOL_NONE || rp->two_phase > 0) && rp->allocation != KS_ALLOC_JOINT)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--%s works with --allocation joint (the bound on the total)",
                            rp->pool != KS_POOL_NONE ? "pool" : "two-phase");
    if (rp->two_phase > 0 && rp->with_replacement)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--two-phase draws without replacement (refine adds to it)");
    return KS_OK;
}

typedef struct root_model {
    ks_root_design d;
    ks_root_pools pools; /* count 0: unpooled */
} root_model;

static void root_model_free(void *model)
{
    root_model *m = model;
    if (m) {
        ks_root_design_free(&m->d);
        ks_root_pools_free(&m->pools);
    }
    free(m);
}

static ks_root_config root_config(const ks_method_input *in, const root_params *rp)
{
    return (ks_root_config){.epsilon = in->params->epsilon,
                            .with_replacement = rp->with_replacement,
                            .allocation = rp->allocation,
                            .max_depth = rp->max_depth,
                            .pool = rp->pool,
                            .pool_tolerance = rp->pool_tolerance,
                            .two_phase = rp->two_phase,
                            /* a two-phase design measures how the values follow
                             * the profile with its own phase 1 */
                            .replicate = rp->two_phase > 0 ? 0 : rp->replicate};
}

static ks_status root_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const root_params *rp = in->method_params;
    ks_root_config cfg = root_config(in, rp);
    root_model *m = calloc(1, sizeof *m);
    if (!m)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_method_members(in, &cfg.members, err);
    if (st == KS_OK && rp->pool != KS_POOL_NONE)
        st = ks_root_pooled_build(in->profile, in->groups, &cfg, in->z, &m->d, &m->pools, err);
    else if (st == KS_OK)
        st = ks_root_design_build(in->profile, in->groups, &cfg, in->z, &m->d, err);
    if (st == KS_OK && m->pools.count)
        m->d.plan_group = m->pools.rep;
    return ks_method_fit_end(st, m, root_model_free, model);
}

static ks_status root_select(const ks_method_input *in, const void *model, ks_rng *rng,
                             ks_plan *plan, ks_error *err)
{
    const root_params *rp = in->method_params;
    const root_model *m = model;
    ks_root_config cfg = root_config(in, rp);
    ks_status st = ks_root_design_draw(&m->d, in->profile, &cfg, rng, plan, err);
    plan->with_replacement = rp->with_replacement;
    if (st == KS_OK && m->pools.count)
        st = ks_plan_set_pools(plan, m->pools.pool_of, m->pools.rep, in->groups->count, err);
    return st;
}

const ks_method ks_method_root = {
    .name = "root",
    .summary = "STEM+ROOT: cheapest contiguous duration strata and integer sizes per kernel "
               "(MICRO'25)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_TIME,
    .params = root_param_defs,
    .param_count = sizeof root_param_defs / sizeof root_param_defs[0],
    .params_size = sizeof(root_params),
    .params_pinned = 3,
    .check = root_check,
    .fit = root_fit,
    .select = root_select,
    .model_free = root_model_free,
};
