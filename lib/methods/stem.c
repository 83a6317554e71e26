/*
 * method_stem.c - STEM (Chung et al., MICRO'25): one cluster per kernel key,
 * sizes from the joint KKT allocation under one error bound on the total.
 */
#include "sampling.h"

#include <math.h>
#include <stdlib.h>

typedef struct stem_params {
    int with_replacement;
} stem_params;

static const ks_param_def stem_param_defs[] = {
    KS_PARAM_WITH_REPLACEMENT(stem_params),
};

/* Everything but the draws: each group's statistics and KKT size. */
typedef struct stem_model {
    const ks_members *mem;
    ks_range_stat *stat;
    double *m_real;
    size_t largest;
} stem_model;

static void stem_model_free(void *model)
{
    stem_model *sm = model;
    if (!sm)
        return;
    free(sm->stat);
    free(sm->m_real);
    free(sm);
}

static ks_status stem_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const ks_groups *g = in->groups;
    size_t k = g->count;
    stem_model *sm = calloc(1, sizeof *sm);
    double *size = malloc((k + 1) * sizeof *size), *mean = malloc((k + 1) * sizeof *mean);
    double *std = malloc((k + 1) * sizeof *std);
    ks_status st = KS_OK;
    if (!sm || !size || !mean || !std ||
        !(sm->stat = malloc((k + 1) * sizeof *sm->stat)) ||
        !(sm->m_real = malloc((k + 1) * sizeof *sm->m_real))) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    if ((st = ks_method_members(in, &sm->mem, err)) != KS_OK)
        goto done;
    for (size_t gi = 0; gi < k; gi++) {
        ks_range_stats(in->profile, sm->mem->ids + sm->mem->offset[gi],
                       sm->mem->values + sm->mem->offset[gi], g->size[gi], &sm->stat[gi]);
        size[gi] = (double)g->size[gi];
        mean[gi] = sm->stat[gi].mean;
        std[gi] = sm->stat[gi].std;
    }
    ks_kkt_allocate(k, size, mean, std, in->params->epsilon, in->z, sm->m_real);
    sm->largest = ks_groups_largest(g);
done:
    free(size);
    free(mean);
    free(std);
    return ks_method_fit_end(st, sm, stem_model_free, model);
}

static ks_status stem_select(const ks_method_input *in, const void *model, ks_rng *rng,
                             ks_plan *plan, ks_error *err)
{
    const ks_groups *g = in->groups;
    const stem_params *sp = in->method_params;
    const stem_model *sm = model;
    const ks_members *mem = sm->mem;
    uint32_t *scratch;
    ks_status st = ks_method_scratch(in, sm->largest, &scratch, err);
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        const ks_range_stat *s = &sm->stat[gi];
        ks_cluster c = {.group = (uint32_t)gi, .path = "0", .size = g->size[gi],
                        .mean_ns = s->mean, .std_ns = s->std, .min_ns = s->min,
                        .max_ns = s->max, .m_real = sm->m_real[gi]};
        c.m = ks_round_sample_size(sm->m_real[gi], g->size[gi]);
        uint32_t index;
        if ((st = ks_plan_add_cluster(plan, &c, &index, err)) == KS_OK)
            st = ks_draw(plan, rng, mem->ids + mem->offset[gi], g->size[gi], c.m,
                         sp->with_replacement ? KS_DRAW_WITH_REPLACEMENT
                                              : KS_DRAW_WITHOUT_REPLACEMENT,
                         index, scratch, err);
    }
    ks_plan_set_bound(plan, in->params->epsilon, "total");
    plan->with_replacement = sp->with_replacement;
    return st;
}

const ks_method ks_method_stem = {
    .name = "stem",
    .summary = "STEM: one cluster per kernel key, joint KKT sample sizes (MICRO'25)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_TIME,
    KS_METHOD_PARAMS(stem_param_defs, stem_params),
    .fit = stem_fit,
    .select = stem_select,
    .model_free = stem_model_free,
};
