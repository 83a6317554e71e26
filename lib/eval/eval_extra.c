/*
 * eval_extra.c - one plan applied to values it was not drawn from: the same
 * launches timed on other hardware (--truth) and every additive metric
 * column (--metrics), the STEM paper's cross-hardware and multi-metric
 * evaluation.  A plan drawn from A's durations has weights that are right
 * for any additive quantity of the same launches; how far its estimate of
 * B's total or of DRAM bytes lands from the truth is the honest measure of
 * how well it transfers.  Never re-weight with the values being estimated.
 */
#include "internal.h"
#include "eval_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------- detail */

void ks_eval_detail_free(ks_eval_detail *d)
{
    if (!d)
        return;
    free(d->metrics);
    free(d->skipped);
    memset(d, 0, sizeof *d);
}

typedef struct metric_state {
    const double *values;
    double err_sum, err_max;
} metric_state;

typedef struct extra_ctx {
    const ks_profile *truth;
    double truth_total;
    double err_sum, err_max, inv_speedup;
    unsigned plans, exceed;
    ks_eval_detail *detail;
    metric_state *metric;
} extra_ctx;

static double rel_error(double est, double truth)
{
    if (truth != 0)
        return fabs(est - truth) / fabs(truth);
    return est == 0 ? 0 : INFINITY;
}

static ks_status observe(void *vctx, const ks_plan *plan, ks_error *err)
{
    extra_ctx *c = vctx;
    c->plans++;
    if (c->truth) {
        double est = ks_plan_estimate_duration(plan, c->truth), sampled = 0;
        for (size_t i = 0; i < plan->sample_count; i++)
            sampled += (double)c->truth->duration_ns[plan->samples[i].id];
        double e = rel_error(est, c->truth_total);
        c->err_sum += e;
        c->err_max = e > c->err_max ? e : c->err_max;
        c->inv_speedup += sampled / c->truth_total;
        if (plan->bound > 0 && e > plan->bound)
            c->exceed++;
    }
    for (size_t m = 0; m < c->detail->metric_count; m++) {
        metric_state *s = &c->metric[m];
        double e = rel_error(ks_plan_estimate(plan, s->values), c->detail->metrics[m].total);
        s->err_sum += e;
        s->err_max = e > s->err_max ? e : s->err_max;
    }
    return KS_OK;
}

/* Sorts the profile's columns into the ones to estimate and the rest. */
static ks_status classify_metrics(const ks_profile *p, ks_eval_detail *d, metric_state **state,
                                  ks_error *err)
{
    size_t k = p->metric_count ? p->metric_count : 1;
    d->metrics = calloc(k, sizeof *d->metrics);
    d->skipped = calloc(k, sizeof *d->skipped);
    *state = calloc(k, sizeof **state);
    if (!d->metrics || !d->skipped || !*state)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t m = 0; m < p->metric_count; m++) {
        const ks_metric_column *col = &p->metrics[m];
        const char *why;
        size_t missing = 0;
        long double total = 0;
        for (size_t i = 0; i < p->n; i++) {
            if (isfinite(col->values[i]))
                total += col->values[i];
            else
                missing++;
        }
        if (!ks_metric_is_additive(col->name, col->unit, &why) || missing) {
            ks_eval_skipped *s = &d->skipped[d->skipped_count++];
            s->name = col->name;
            if (why)
                snprintf(s->reason, sizeof s->reason, "not additive: %s", why);
            else
                snprintf(s->reason, sizeof s->reason, "no value for %zu of %zu launches",
                         missing, p->n);
            continue;
        }
        (*state)[d->metric_count].values = col->values;
        d->metrics[d->metric_count].name = col->name;
        d->metrics[d->metric_count++].total = (double)total;
    }
    return KS_OK;
}

static ks_status prepare_truth(const ks_profile *p, const ks_eval_options *opt, extra_ctx *c,
                               ks_error *err)
{
    const char *path = opt->truth_path ? opt->truth_path : opt->truth->source_path;
    ks_status st = ks_profile_check_aligned(p, opt->truth, NULL, path,
                                            "cannot use as truth", err);
    if (st != KS_OK)
        return st;
    c->truth = opt->truth;
    c->truth_total = ks_profile_total_ns(opt->truth);
    if (!(c->truth_total > 0))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "cannot use as truth: its total kernel time is 0 (a profile "
                            "without durations?)");
    return KS_OK;
}

ks_status ks_evaluate_ex(const ks_profile *p, const ks_params *params, unsigned iters,
                         const ks_eval_options *opt, ks_eval_result *out,
                         ks_eval_detail *detail, ks_error *err)
{
    memset(detail, 0, sizeof *detail);
    extra_ctx c;
    memset(&c, 0, sizeof c);
    c.detail = detail;
    ks_status st = KS_OK;
    if (opt && opt->truth)
        st = prepare_truth(p, opt, &c, err);
    if (st == KS_OK && opt && opt->metrics)
        st = classify_metrics(p, detail, &c.metric, err);
    if (st == KS_OK)
        st = ks_evaluate_observed(p, params, iters, opt ? opt->cache : NULL, observe, &c, out,
                                  err);
    if (st == KS_OK && c.truth) {
        detail->has_truth = 1;
        detail->truth_total_ns = c.truth_total;
        detail->truth_error_mean_pct = 100 * c.err_sum / c.plans;
        detail->truth_error_max_pct = 100 * c.err_max;
        detail->truth_speedup_hmean = c.inv_speedup > 0 ? c.plans / c.inv_speedup : INFINITY;
        detail->truth_exceed_fraction = (double)c.exceed / c.plans;
    }
    for (size_t m = 0; st == KS_OK && m < detail->metric_count; m++) {
        detail->metrics[m].error_mean_pct = 100 * c.metric[m].err_sum / c.plans;
        detail->metrics[m].error_max_pct = 100 * c.metric[m].err_max;
    }
    free(c.metric);
    if (st != KS_OK)
        ks_eval_detail_free(detail);
    return st;
}
