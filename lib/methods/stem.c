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

static ks_status stem_select(const ks_method_input *in, const void *model, ks_rng *rng,
                             ks_plan *plan, ks_error *err)
{
    const ks_profile *p = in->profile;
    const ks_groups *g = in->groups;
    const ks_params *pa = in->params;
    const stem_params *sp = in->method_params;
    const ks_members mem = *(const ks_members *)model;
    ks_status st = KS_OK;
    size_t k = g->count;
    double *size = malloc((k + 1) * sizeof *size), *mean = malloc((k + 1) * sizeof *mean);
    double *std = malloc((k + 1) * sizeof *std), *m_real = malloc((k + 1) * sizeof *m_real);
    ks_range_stat *stat = malloc((k + 1) * sizeof *stat);
    uint32_t *scratch = malloc(ks_groups_largest(g) * sizeof *scratch);
    if (!size || !mean || !std || !m_real || !stat || !scratch) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < k; gi++) {
        ks_range_stats(p, mem.ids + mem.offset[gi], mem.values + mem.offset[gi], g->size[gi],
                       &stat[gi]);
        size[gi] = (double)g->size[gi];
        mean[gi] = stat[gi].mean;
        std[gi] = stat[gi].std;
    }
    ks_kkt_allocate(k, size, mean, std, pa->epsilon, plan->z, m_real);
    for (size_t gi = 0; gi < k && st == KS_OK; gi++) {
        ks_cluster c = {.group = (uint32_t)gi, .path = "0", .size = g->size[gi],
                        .mean_ns = mean[gi], .std_ns = std[gi], .min_ns = stat[gi].min,
                        .max_ns = stat[gi].max, .m_real = m_real[gi]};
        c.m = ks_round_sample_size(m_real[gi], g->size[gi]);
        uint32_t index;
        if ((st = ks_plan_add_cluster(plan, &c, &index, err)) == KS_OK)
            st = ks_draw(plan, rng, mem.ids + mem.offset[gi], g->size[gi], c.m,
                         sp->with_replacement ? KS_DRAW_WITH_REPLACEMENT
                                              : KS_DRAW_WITHOUT_REPLACEMENT,
                         index, scratch, err);
    }
    plan->bound = pa->epsilon;
    plan->with_replacement = sp->with_replacement;
    snprintf(plan->bound_scope, sizeof plan->bound_scope, "total");
done:
    free(size);
    free(mean);
    free(std);
    free(m_real);
    free(stat);
    free(scratch);
    return st;
}

const ks_method ks_method_stem = {
    .name = "stem",
    .summary = "STEM: one cluster per kernel key, joint KKT sample sizes (MICRO'25)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_TIME,
    KS_METHOD_PARAMS(stem_param_defs, stem_params),
    .fit = ks_members_fit,
    .select = stem_select,
    .model_free = ks_members_model_free,
};
