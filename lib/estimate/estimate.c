/*
 * estimate.c - the whole-workload estimate of every metric of a results
 * table from its values at a plan's samples, each with a confidence
 * interval (the variance model is variance.c's; the estimators are
 * variance.c's plain and ratio-of-totals forms, auxiliary.c's ratio and
 * regression, pilot.c's cold-start correction).
 */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- per metric */

void ks_estimate_options_init(ks_estimate_options *o)
{
    memset(o, 0, sizeof *o);
    o->single = KS_SINGLE_COLLAPSE;
}

void ks_estimate_free(ks_estimate *e)
{
    free(e->metrics);
    memset(e, 0, sizeof *e);
}

static ks_status push(ks_estimate *e, size_t *cap, ks_metric_estimate **out, ks_error *err)
{
    ks_status st = ks_grow((void **)&e->metrics, cap, e->count + 1, sizeof *e->metrics, err);
    if (st != KS_OK)
        return st;
    *out = &e->metrics[e->count++];
    memset(*out, 0, sizeof **out);
    return KS_OK;
}

static void finish_interval(ks_metric_estimate *m, double confidence, double bound)
{
    double t = ks_student_t_quantile(1 - (1 - confidence) / 2, m->df);
    double half = t * sqrt(m->variance > 0 ? m->variance : 0);
    m->ci_low = m->estimate - half;
    m->ci_high = m->estimate + half;
    m->rel_halfwidth = m->estimate != 0 ? half / fabs(m->estimate) : (half > 0 ? INFINITY : 0);
    m->bound_met = bound > 0 ? m->rel_halfwidth <= bound : -1;
}

/* Values of metric at the plan's samples; false (and *missing set) when a
 * sample has none. */
static bool gather(const ks_plan *plan, const ks_results *r, const long *rows, size_t metric,
                   double *y, size_t *missing)
{
    for (size_t i = 0; i < plan->sample_count; i++) {
        y[i] = r->values[metric][rows[i]];
        if (isnan(y[i])) {
            *missing = i;
            return false;
        }
    }
    return true;
}

static ks_status rows_of_samples(const ks_plan *plan, const ks_results *r, long *rows,
                                 ks_error *err)
{
    for (size_t i = 0; i < plan->sample_count; i++) {
        rows[i] = ks_results_row(r, plan->samples[i].id);
        if (rows[i] < 0)
            return ks_error_set(err, KS_ERR_FORMAT, r->source_count ? r->sources[0] : NULL, 0,
                                "sample id %llu (cluster %u, %zu of %zu) has no simulated "
                                "result%s",
                                (unsigned long long)plan->samples[i].id,
                                plan->samples[i].cluster, i + 1, plan->sample_count,
                                r->source_count > 1 ? " in any of the results given" : "");
    }
    return KS_OK;
}

static bool wanted(const ks_estimate_options *o, const char *name)
{
    if (o->metric_count == 0)
        return true;
    for (size_t i = 0; i < o->metric_count; i++)
        if (strcmp(o->metrics[i], name) == 0)
            return true;
    return false;
}

static ks_status add_total(const ks_plan *plan, const ks_results *r, const long *rows,
                           size_t m, const ks_estimate_options *o, double *y, ks_estimate *e,
                           size_t *cap, ks_error *err)
{
    size_t miss;
    if (!gather(plan, r, rows, m, y, &miss)) {
        if (o->metric_count)
            return ks_error_set(err, KS_ERR_FORMAT, r->sources[r->source[rows[miss]]],
                                r->source_line[rows[miss]],
                                "metric %s: no value for sample id %llu", r->metrics[m],
                                (unsigned long long)plan->samples[miss].id);
        e->skipped++;
        return KS_OK;
    }
    ks_metric_estimate *me;
    ks_status st = push(e, cap, &me, err);
    if (st != KS_OK)
        return st;
    snprintf(me->name, sizeof me->name, "%s", r->metrics[m]);
    long pm = o->pilot ? ks_results_metric(o->pilot, r->metrics[m]) : -1;
    size_t have = 0;
    double *warm = NULL;
    if (pm >= 0) {
        if (!(warm = malloc((plan->sample_count ? plan->sample_count : 1) * sizeof *warm)))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t i = 0; i < plan->sample_count; i++) {
            long row = ks_results_row(o->pilot, plan->samples[i].id);
            warm[i] = row >= 0 ? o->pilot->values[pm][row] : NAN;
            have += !isnan(warm[i]);
        }
    }
    bool aux = o->estimator != KS_ESTIMATOR_PLAIN;
    me->estimator = (int)o->estimator;
    if (aux && !o->aux) {
        free(warm);
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "the %s estimator needs the auxiliary variable (the plan's "
                            "profile)",
                            ks_estimator_name(o->estimator));
    }
    if (have >= 2) {
        ks_pilot_estimate pe;
        st = ks_plan_pilot_corrected_aux(plan, y, warm, aux ? o->aux : NULL, o->estimator,
                                         o->fit, o->single, &pe, &me->aux, err);
        me->estimate = pe.estimate;
        me->variance = pe.variance;
        me->df = pe.df;
        me->single_strata = pe.single_strata;
        me->pilot = pe.pilot;
        me->pilot_ratio = pe.ratio;
    } else if (aux) {
        st = ks_plan_aux_estimate(plan, y, o->aux, o->estimator, o->fit, o->single, &me->aux,
                                  NULL, NULL, err);
        me->estimate = me->aux.estimate;
        me->variance = me->aux.variance;
        me->df = me->aux.df;
        me->single_strata = me->aux.single_strata;
    } else {
        st = ks_plan_total_variance(plan, y, o->single, &me->estimate, &me->variance, &me->df,
                                    &me->single_strata, err);
    }
    free(warm);
    finish_interval(me, plan->params.confidence, e->bound);
    return st;
}

static ks_status add_ratio(const ks_plan *plan, const ks_results *r, const long *rows,
                           const char *spec, double *y, double *x, ks_estimate *e, size_t *cap,
                           const ks_estimate_options *o, ks_error *err)
{
    char name[160], num[160], den[160];
    const char *eq = strchr(spec, '='), *slash = eq ? strchr(eq, '/') : NULL;
    if (!eq || !slash || eq == spec || (size_t)(eq - spec) >= sizeof name ||
        (size_t)(slash - eq - 1) >= sizeof num || strlen(slash + 1) >= sizeof den)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--ratio wants NAME=NUM/DEN, got '%s'",
                            spec);
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    snprintf(num, sizeof num, "%.*s", (int)(slash - eq - 1), eq + 1);
    snprintf(den, sizeof den, "%s", slash + 1);
    long mn = ks_results_metric(r, num), md = ks_results_metric(r, den);
    if (mn < 0 || md < 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--ratio %s: no metric named '%s'",
                            spec, mn < 0 ? num : den);
    size_t miss;
    if (!gather(plan, r, rows, (size_t)mn, y, &miss) ||
        !gather(plan, r, rows, (size_t)md, x, &miss))
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "ratio %s: no value for sample id %llu",
                            name, (unsigned long long)plan->samples[miss].id);
    ks_metric_estimate *me;
    ks_status st = push(e, cap, &me, err);
    if (st != KS_OK)
        return st;
    snprintf(me->name, sizeof me->name, "%s", name);
    me->is_ratio = 1;
    st = ks_plan_ratio_variance(plan, y, x, o->single, &me->estimate, &me->variance, &me->df,
                                &me->single_strata, err);
    finish_interval(me, plan->params.confidence, e->bound);
    return st;
}

static ks_status compute(const ks_plan *plan, const ks_results *r, const ks_estimate_options *o,
                         ks_estimate *e, long *rows, double *y, double *x, ks_error *err)
{
    size_t cap = 0;
    ks_status st = rows_of_samples(plan, r, rows, err);
    for (size_t i = 0; st == KS_OK && i < o->metric_count; i++)
        if (ks_results_metric(r, o->metrics[i]) < 0)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "no metric named '%s' in the results",
                              o->metrics[i]);
    for (size_t m = 0; st == KS_OK && m < r->metric_count; m++)
        if (wanted(o, r->metrics[m]))
            st = add_total(plan, r, rows, m, o, y, e, &cap, err);
    bool user_ipc = false;
    for (size_t i = 0; st == KS_OK && i < o->ratio_count; i++) {
        user_ipc = user_ipc || strncmp(o->ratios[i], "ipc=", 4) == 0;
        st = add_ratio(plan, r, rows, o->ratios[i], y, x, e, &cap, o, err);
    }
    if (st == KS_OK && !user_ipc && ks_results_metric(r, "gpu_sim_insn") >= 0 &&
        ks_results_metric(r, "gpu_sim_cycle") >= 0 && wanted(o, "ipc")) {
        size_t miss;
        long mi = ks_results_metric(r, "gpu_sim_insn"), mc = ks_results_metric(r, "gpu_sim_cycle");
        if (gather(plan, r, rows, (size_t)mi, y, &miss) &&
            gather(plan, r, rows, (size_t)mc, x, &miss))
            st = add_ratio(plan, r, rows, "ipc=gpu_sim_insn/gpu_sim_cycle", y, x, e, &cap, o,
                           err);
    }
    return st;
}

ks_status ks_estimate_compute(const ks_plan *plan, const ks_results *r,
                              const ks_estimate_options *opt, ks_estimate *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    out->z = plan->z;
    out->bound = opt->epsilon > 0 ? opt->epsilon : plan->bound;
    size_t n = plan->sample_count ? plan->sample_count : 1;
    long *rows = malloc(n * sizeof *rows);
    double *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x);
    ks_status st = rows && y && x ? compute(plan, r, opt, out, rows, y, x, err)
                                  : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    free(rows);
    free(y);
    free(x);
    if (st == KS_OK && out->count == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                          "no metric has a value for every sample of the plan");
    if (st != KS_OK)
        ks_estimate_free(out);
    return st;
}
