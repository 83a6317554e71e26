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

/* A leaf of the split tree: a duration range of one group and its draws. */
typedef struct allegro_leaf {
    uint32_t group;
    size_t lo, hi; /* in the group's members */
    ks_range_stat stat;
    double n_real;
    uint64_t m;
    char *path;
} allegro_leaf;

/* The split tree of every group, built once (it does not depend on the
 * seed), in the order the leaves are drawn. */
typedef struct allegro_model {
    const ks_members *mem;
    allegro_leaf *leaves;
    size_t count, capacity, largest;
} allegro_model;

typedef struct allegro_ctx {
    const ks_profile *p;
    const ks_params *pa;
    const allegro_params *ap;
    double z;
    const uint32_t *ids;
    const double *values;
    uint32_t group;
    allegro_model *model;
    uint64_t draws; /* so far, in this plan */
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
    allegro_model *am = c->model;
    ks_status st = ks_grow((void **)&am->leaves, &am->capacity, am->count + 1,
                           sizeof *am->leaves, c->err);
    if (st != KS_OK)
        return st;
    char *copy = strdup(path);
    if (!copy)
        return ks_error_set(c->err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    am->leaves[am->count++] = (allegro_leaf){.group = c->group, .lo = lo, .hi = hi,
                                             .stat = s, .n_real = n_real, .m = m,
                                             .path = copy};
    return KS_OK;
}

static void allegro_model_free(void *model)
{
    allegro_model *am = model;
    if (!am)
        return;
    for (size_t i = 0; i < am->count; i++)
        free(am->leaves[i].path);
    free(am->leaves);
    free(am);
}

static ks_status allegro_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const ks_groups *g = in->groups;
    allegro_model *am = calloc(1, sizeof *am);
    if (!am)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    allegro_ctx c = {.p = in->profile, .pa = in->params, .ap = in->method_params, .z = in->z,
                     .model = am, .err = err};
    ks_status st = ks_method_members(in, &am->mem, err);
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        c.group = (uint32_t)gi;
        c.ids = am->mem->ids + am->mem->offset[gi];
        c.values = am->mem->values + am->mem->offset[gi];
        st = visit(&c, 0, g->size[gi], "0", 0);
    }
    am->largest = ks_groups_largest(g);
    return ks_method_fit_end(st, am, allegro_model_free, model);
}

static ks_status allegro_select(const ks_method_input *in, const void *model, ks_rng *rng,
                                ks_plan *plan, ks_error *err)
{
    const allegro_model *am = model;
    uint32_t *scratch;
    ks_status st = ks_method_scratch(in, am->largest, &scratch, err);
    for (size_t i = 0; i < am->count && st == KS_OK; i++) {
        const allegro_leaf *l = &am->leaves[i];
        ks_cluster cl = {.group = l->group, .path = l->path, .size = l->stat.n,
                         .mean_ns = l->stat.mean, .std_ns = l->stat.std,
                         .min_ns = l->stat.min, .max_ns = l->stat.max, .m = l->m,
                         .m_real = l->n_real};
        uint32_t index;
        if ((st = ks_plan_add_cluster(plan, &cl, &index, err)) != KS_OK)
            break;
        /* with replacement always: the scripts draw with numpy's choice(replace=True) */
        st = ks_draw(plan, rng, am->mem->ids + am->mem->offset[l->group] + l->lo, l->stat.n,
                     l->m, KS_DRAW_ALWAYS_REPLACEMENT, index, scratch, err);
    }
    ks_plan_set_bound(plan, in->params->epsilon, "per-group");
    plan->with_replacement = 1; /* always: see allegro_select() */
    return st;
}

const ks_method ks_method_allegro = {
    .name = "allegro",
    .summary = "Allegro: per-group CLT sizes, 2-means splits while n >= n_th, n_min draws "
               "(MLArchSys'24)",
    .default_key = KS_KEY_NAME_GRID_BLOCK,
    .needs = KS_NEED_TIME,
    KS_METHOD_PARAMS(allegro_param_defs, allegro_params),
    .fit = allegro_fit,
    .select = allegro_select,
    .model_free = allegro_model_free,
};
