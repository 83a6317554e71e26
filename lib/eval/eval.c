/*
 * eval.c - how good a method is on a profile: fit it once, select with
 * different seeds and compare each plan's estimate of the total time with the
 * profile's own total.
 */
#include "internal.h"
#include "eval_internal.h"
#include "plan_cache.h"

#include <math.h>
#include <string.h>
#include <time.h>

const char *ks_eval_default_methods(void) { return "root,stem,allegro,random"; }

/* What the plan simulates on average: m mean per cluster, a census once. */
double ks_plan_expected_cost(const ks_plan *plan)
{
    long double s = 0;
    for (size_t i = 0; i < plan->cluster_count; i++) {
        const ks_cluster *c = &plan->clusters[i];
        s += (long double)(c->m < c->size ? c->m : c->size) * c->mean_ns;
    }
    return (double)s;
}

ks_status ks_evaluate(const ks_profile *p, const ks_params *params, unsigned iters,
                      ks_eval_result *out, ks_error *err)
{
    return ks_evaluate_observed(p, params, iters, NULL, NULL, NULL, out, err);
}

ks_status ks_evaluate_observed(const ks_profile *p, const ks_params *params, unsigned iters,
                               ks_plan_cache *cache, ks_eval_observer observe, void *ctx,
                               ks_eval_result *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->method, sizeof out->method, "%s", params->method);
    if (iters == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--iters must be at least 1");
    double truth = cache ? ks_plan_cache_total_ns(cache) : ks_profile_total_ns(p);
    double inv_speedup = 0, err_sum = 0, err_max = 0, seconds = 0, samples = 0;
    double rse = 0, cost_ratio = 0;
    unsigned exceed = 0;
    ks_fitted *fitted;
    double t_fit = ks_now_seconds();
    ks_status st = ks_fit_cached(p, params, cache, &fitted, err);
    /* a plan's cost from the profile alone: the shared work it used counts
     * as if this fit had done it */
    out->fit_seconds = ks_now_seconds() - t_fit + (cache ? ks_plan_cache_reused_seconds(cache) : 0);
    if (st != KS_OK)
        return st;
    for (unsigned it = 0; it < iters; it++) {
        ks_plan plan;
        double t0 = ks_now_seconds();
        st = ks_select(fitted, params->seed + it, &plan, err);
        seconds += ks_now_seconds() - t0;
        if (st != KS_OK) {
            ks_fitted_free(fitted);
            return st;
        }
        double est = ks_plan_estimate_duration(&plan, p);
        double e = truth > 0 ? fabs(est - truth) / truth : (est == 0 ? 0 : INFINITY);
        err_sum += e;
        err_max = e > err_max ? e : err_max;
        inv_speedup += plan.total_ns > 0 ? plan.sampled_ns / plan.total_ns : 1.0;
        samples += (double)plan.sample_count;
        out->bound_pct = plan.bound * 100;
        if (plan.bound > 0 && e > plan.bound)
            exceed++;
        if (plan.variance_formula[0] && plan.total_ns > 0)
            rse += sqrt(plan.design_variance) / plan.total_ns;
        if (plan.lower_bound_ns > 0)
            cost_ratio += ks_plan_expected_cost(&plan) / plan.lower_bound_ns;
        st = observe ? observe(ctx, &plan, err) : KS_OK;
        ks_plan_free(&plan);
        if (st != KS_OK) {
            ks_fitted_free(fitted);
            return st;
        }
    }
    out->iters = iters;
    out->samples_mean = samples / iters;
    out->speedup_hmean = inv_speedup > 0 ? iters / inv_speedup : INFINITY;
    out->error_mean_pct = 100 * err_sum / iters;
    out->error_max_pct = 100 * err_max;
    out->plan_seconds = out->fit_seconds + seconds / iters;
    ks_fitted_free(fitted);
    out->exceed_fraction = (double)exceed / iters;
    out->predicted_rse_pct = 100 * rse / iters;
    out->cost_over_lower_bound = cost_ratio / iters;
    return KS_OK;
}
