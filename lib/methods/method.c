/*
 * method.c - the table of sampling methods and the whole sampling job.
 * A method is one file (method_*.c) and one row here.
 */
#include "sampling.h"

#include <math.h>
#include <string.h>

extern const ks_method ks_method_root;
extern const ks_method ks_method_stem;
extern const ks_method ks_method_allegro;
extern const ks_method ks_method_random;

static const ks_method *const methods[] = {
    &ks_method_root,
    &ks_method_stem,
    &ks_method_allegro,
    &ks_method_random,
    NULL,
};

const ks_method *const *ks_methods(void) { return methods; }

const ks_method *ks_method_find(const char *name)
{
    for (size_t i = 0; methods[i]; i++)
        if (strcmp(methods[i]->name, name) == 0)
            return methods[i];
    return NULL;
}

static ks_status check_params(const ks_params *pa, ks_error *err)
{
    if (!(pa->epsilon > 0 && pa->epsilon < 1))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--epsilon must be in (0, 1), got %g",
                            pa->epsilon);
    if (!(pa->confidence > 0 && pa->confidence <= KS_MAX_CONFIDENCE))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--confidence must be in (0, 1 - 1e-12], got %.17g",
                            pa->confidence);
    if (!(pa->allegro_n_th > 0 && isfinite(pa->allegro_n_th)))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--n-th must be a positive number");
    if (pa->allegro_n_min > KS_MAX_DRAWS)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--n-min must be at most %llu",
                            (unsigned long long)KS_MAX_DRAWS);
    if (!isfinite(pa->target_speedup) || !isfinite(pa->fraction))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--target-speedup and --fraction must be finite");
    if (pa->target_speedup < 0 || pa->fraction < 0 || pa->fraction > 1)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--target-speedup must be >= 1 and --fraction in (0, 1]");
    if (pa->target_speedup > 0 && pa->target_speedup < 1)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--target-speedup must be >= 1");
    if (pa->max_depth < 1 || pa->max_depth > KS_MAX_DEPTH_LIMIT)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "max depth must be in 1..%d",
                            KS_MAX_DEPTH_LIMIT);
    return KS_OK;
}

ks_status ks_plan_build(const ks_profile *p, const ks_params *params, ks_plan *plan,
                    ks_error *err)
{
    ks_plan_init(plan);
    const ks_method *m = ks_method_find(params->method ? params->method : "root");
    if (!m) {
        ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown method '%s'; known:", params->method);
        for (size_t i = 0; methods[i]; i++) {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, " %s", methods[i]->name);
        }
        return KS_ERR_USAGE;
    }
    ks_status st = check_params(params, err);
    if (st != KS_OK)
        return st;
    if (p->n == 0)
        return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0, "profile is empty");
    if (ks_profile_total_ns(p) <= 0)
        return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                            "every kernel duration is 0: the methods size samples by time "
                            "(an Nsight Compute file needs gpu__time_duration.sum, or attach "
                            "its metrics to a time profile with --metrics)");
    if (p->n > UINT32_MAX)
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "more than 2^32 invocations are not supported");
    plan->params = *params;
    plan->params.method = m->name;
    if (!params->key_given)
        plan->params.key = m->default_key;
    snprintf(plan->method, sizeof plan->method, "%s", m->name);
    plan->z = ks_z_for_confidence(params->confidence);

    ks_groups g;
    if ((st = ks_groups_build(p, plan->params.key, &g, err)) != KS_OK)
        return st;
    if ((st = ks_plan_set_groups(plan, &g, err)) == KS_OK) {
        ks_rng rng;
        ks_rng_seed(&rng, params->seed);
        st = m->plan(p, &g, &plan->params, &rng, plan, err);
    }
    ks_groups_free(&g);
    if (st == KS_OK)
        st = ks_plan_finish(plan, p, err);
    if (st != KS_OK)
        ks_plan_free(plan);
    return st;
}
