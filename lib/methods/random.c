/*
 * random.c - uniform random baseline: ceil(N / S) draws (or ceil(N f))
 * with replacement over all invocations, each weighted N / draws.
 */
#include "sampling.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct random_params {
    double target_speedup; /* 0: not given */
    double fraction;       /* 0: not given */
} random_params;

static const ks_param_def random_param_defs[] = {
    {"target-speedup", KS_PARAM_REAL, offsetof(random_params, target_speedup), 1, 1e300, 0,
     NULL, "S", "ceil(invocations / S) draws"},
    {"fraction", KS_PARAM_REAL, offsetof(random_params, fraction), 1e-300, 1, 0, NULL, "F",
     "ceil(invocations * F) draws (default 0.001)"},
};

static ks_status random_check(const void *params, ks_error *err)
{
    const random_params *pa = params;
    if (pa->target_speedup > 0 && pa->fraction > 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "random: give --target-speedup or --fraction, not both");
    return KS_OK;
}

/* The one cluster's statistics: two passes over every launch, done once
 * rather than per seed. */
static ks_status random_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const ks_profile *p = in->profile;
    ks_range_stat *s = calloc(1, sizeof *s);
    if (!s)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    long double sum = 0, sq = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < p->n; i++) {
        int64_t d = p->duration_ns[i];
        sum += d;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    s->mean = p->n ? (double)(sum / p->n) : 0;
    for (size_t i = 0; i < p->n; i++)
        sq += (p->duration_ns[i] - (long double)s->mean) *
              (p->duration_ns[i] - (long double)s->mean);
    s->std = p->n ? (double)sqrtl(sq / p->n) : 0;
    s->n = p->n;
    s->min = lo;
    s->max = hi;
    *model = s;
    return KS_OK;
}

static ks_status random_select(const ks_method_input *in, const void *model, ks_rng *rng,
                               ks_plan *plan, ks_error *err)
{
    const ks_range_stat *s = model;
    const ks_profile *p = in->profile;
    const random_params *pa = in->method_params;
    double draws_real;
    /* ks_round_sample_size forgives the last-bit error of 100 * 0.07 =
     * 7.000000000000001, which a bare ceil() would turn into 8 */
    if (pa->target_speedup > 0)
        draws_real = (double)p->n / pa->target_speedup;
    else if (pa->fraction > 0 && pa->fraction <= 1)
        draws_real = (double)p->n * pa->fraction;
    else if (pa->fraction == 0 && pa->target_speedup == 0)
        /* the STEM paper's setting for CASIO and Huggingface: 0.1 % */
        draws_real = (double)p->n * 0.001;
    else
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "random: --fraction must be in (0, 1] or --target-speedup > 0");
    uint64_t draws = ks_round_sample_size(draws_real, UINT64_MAX);
    /* the plan's single group is "all" whatever key built the groups */
    for (size_t i = 0; i < plan->group_count; i++)
        free(plan->group_labels[i]);
    plan->group_count = 0;
    plan->group_labels[0] = NULL;
    char *all = malloc(4);
    if (!all)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    snprintf(all, 4, "all");
    plan->group_labels[0] = all;
    plan->group_count = 1;
    ks_cluster c = {.group = 0, .path = "0", .size = p->n, .mean_ns = s->mean, .std_ns = s->std,
                    .min_ns = s->min, .max_ns = s->max, .m = draws, .m_real = draws_real};
    uint32_t index;
    ks_status st = ks_plan_add_cluster(plan, &c, &index, err);
    double weight = (double)p->n / (double)draws;
    for (uint64_t k = 0; k < draws && st == KS_OK; k++)
        st = ks_plan_add_sample(plan, ks_rng_below(rng, p->n), weight, index, err);
    ks_plan_set_bound(plan, 0, "none");
    plan->with_replacement = 1;
    return st;
}

const ks_method ks_method_random = {
    .name = "random",
    .summary = "uniform random baseline, with replacement (--target-speedup S or --fraction f)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_TIME,
    KS_METHOD_PARAMS(random_param_defs, random_params),
    .check = random_check,
    .fit = random_fit,
    .select = random_select,
    .model_free = free,
};
