/*
 * allegro.c - Allegro (Chung et al., MLArchSys'24), STEM's predecessor,
 * as its authors' kernel_sample.py computes it:
 *   n = (z / eps * s / mean)^2 with s the SAMPLE standard deviation;
 *   a group with n >= n_th is split by 2-means and each child treated alike
 *   (no cost comparison with the parent); a leaf draws
 *   m = max(ceil(n), n_min) invocations WITH replacement, weight N / m.
 * The bound holds per group, not on the total.  The 2-means split is the
 * exact 1-D optimum (see stats.c) rather than the scripts' k-means.
 */
#include "sampling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct allegro_params {
    double n_th;
    uint64_t n_min;
    uint64_t max_depth;
} allegro_params;

static const ks_param_def allegro_param_defs[] = {
    {"n-th", KS_PARAM_REAL, offsetof(allegro_params, n_th), 1e-300, 1e300, 50, NULL, "N",
     "split a group while its CLT size n >= N"},
    /* n_min draws are made for every leaf: bounded as every plan's draws are */
    {"n-min", KS_PARAM_UINT, offsetof(allegro_params, n_min), 1, (double)KS_MAX_DRAWS, 30,
     NULL, "N",
     "draws per leaf at least N"},
    KS_PARAM_MAX_DEPTH(allegro_params),
};

typedef struct allegro_ctx {
    const ks_profile *p;
    const ks_params *pa;
    const allegro_params *ap;
    double z;
    const uint32_t *ids;
    const double *values;
    uint32_t group;
    ks_plan *plan;
    ks_rng *rng;
    uint64_t draws; /* so far, in this plan */
    uint32_t *scratch;
    ks_error *err;
} allegro_ctx;

static double allegro_n(const ks_range_stat *s, double eps, double z)
{
    if (s->n < 2 || s->sample_std <= 0 || s->mean <= 0)
        return 1.0;
    double r = z / eps * s->sample_std / s->mean;
    return r * r;
}

static ks_status visit(allegro_ctx *c, size_t lo, size_t hi, const char *path, int depth)
{
    ks_range_stat s;
    ks_range_stats(c->p, c->ids + lo, c->values + lo, hi - lo, &s);
    double n_real = allegro_n(&s, c->pa->epsilon, c->z);
    size_t cut = 0;
    if (n_real >= c->ap->n_th && (uint64_t)depth < c->ap->max_depth)
        cut = ks_two_means_cut(c->values + lo, hi - lo, NULL);
    if (cut > 0) {
        char child[KS_PATH_SIZE];
        snprintf(child, sizeof child, "%s.0", path);
        ks_status st = visit(c, lo, lo + cut, child, depth + 1);
        if (st != KS_OK)
            return st;
        snprintf(child, sizeof child, "%s.1", path);
        return visit(c, lo + cut, hi, child, depth + 1);
    }
    /* n_real may be astronomically large (tiny epsilon): decide in doubles,
     * and stop at KS_MAX_DRAWS before any draw is made */
    double want = fmax(ceil(n_real - 1e-9), (double)c->ap->n_min);
    if (!(want <= (double)(KS_MAX_DRAWS - c->draws)))
        return ks_error_set(c->err, KS_ERR_USAGE, NULL, 0,
                            "allegro would draw %.3g samples (n = %.3g for a leaf of %zu "
                            "invocations, n_min %llu) where at most %llu per plan are allowed: "
                            "raise --epsilon or lower --n-min",
                            c->draws + want, n_real, s.n,
                            (unsigned long long)c->ap->n_min,
                            (unsigned long long)KS_MAX_DRAWS);
    uint64_t m = want < 1 ? 1 : (uint64_t)want;
    c->draws += m;
    ks_cluster cl = {.group = c->group, .path = (char *)path, .size = s.n, .mean_ns = s.mean,
                     .std_ns = s.std, .min_ns = s.min, .max_ns = s.max, .m = m,
                     .m_real = n_real};
    uint32_t index;
    ks_status st = ks_plan_add_cluster(c->plan, &cl, &index, c->err);
    if (st != KS_OK)
        return st;
    /* with replacement always: the scripts draw with numpy's choice(replace=True) */
    return ks_draw(c->plan, c->rng, c->ids + lo, s.n, m, KS_DRAW_ALWAYS_REPLACEMENT, index,
                   c->scratch, c->err);
}

static ks_status allegro_select(const ks_method_input *in, const void *model, ks_rng *rng,
                                ks_plan *plan, ks_error *err)
{
    const ks_groups *g = in->groups;
    const ks_members mem = *(const ks_members *)model;
    ks_status st = KS_OK;
    allegro_ctx c = {.p = in->profile, .pa = in->params, .ap = in->method_params, .z = in->z,
                     .plan = plan, .rng = rng, .err = err};
    c.scratch = malloc(ks_groups_largest(g) * sizeof *c.scratch);
    if (!c.scratch)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        c.group = (uint32_t)gi;
        c.ids = mem.ids + mem.offset[gi];
        c.values = mem.values + mem.offset[gi];
        st = visit(&c, 0, g->size[gi], "0", 0);
    }
    plan->bound = in->params->epsilon;
    plan->with_replacement = 1; /* always: see visit() */
    snprintf(plan->bound_scope, sizeof plan->bound_scope, "per-group");
    free(c.scratch);
    return st;
}

const ks_method ks_method_allegro = {
    .name = "allegro",
    .summary = "Allegro: per-group CLT sizes, 2-means splits while n >= n_th, n_min draws "
               "(MLArchSys'24)",
    .default_key = KS_KEY_NAME_GRID_BLOCK,
    .needs = KS_NEED_TIME,
    KS_METHOD_PARAMS(allegro_param_defs, allegro_params),
    .fit = ks_members_fit,
    .select = allegro_select,
    .model_free = ks_members_model_free,
};
