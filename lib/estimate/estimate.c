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
    o->single = KS_SINGLE_PLAN;
}

void ks_estimate_free(ks_estimate *e)
{
    free(e->metrics);
    memset(e, 0, sizeof *e);
}

static ks_status push(ks_estimate *e, size_t *cap, ks_metric_estimate **out, ks_error *err)
{
    *out = ks_push_zeroed((void **)&e->metrics, &e->count, cap, sizeof *e->metrics, err);
    if (*out)
        (*out)->borrowed_share = NAN;
    return *out ? KS_OK : KS_ERR_NOMEM;
}

/* Where a plain total's variance is: the strata's terms of it
 * (ks_stratum_variance of their spreads sp) by kernel group; a group is
 * measured when one of its strata has two or more distinct simulated
 * launches, or is a census of two or more.  Fills me->borrowed_share and
 * the three largest groups. */
static ks_status variance_sources(ks_metric_estimate *me, const ks_plan *plan,
                                  const ks_stratum_spread *sp, ks_error *err)
{
    size_t k = plan->cluster_count, groups = plan->group_count + 1;
    long double *gv = calloc(groups, sizeof *gv);
    bool *measured = calloc(groups, sizeof *measured);
    if (!gv || !measured) {
        KS_FREE(gv, measured);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    long double total = 0;
    for (size_t c = 0; c < k; c++) {
        const ks_cluster *cl = &plan->clusters[c];
        size_t g = cl->group < plan->group_count ? cl->group : plan->group_count;
        if (sp[c].census ? cl->size >= 2 : sp[c].n >= 2)
            measured[g] = true;
        long double vh = ks_stratum_variance(plan, sp, c);
        if (vh > 0) {
            gv[g] += vh;
            total += vh;
        }
    }
    if (total > 0) {
        long double un = 0;
        for (size_t g = 0; g < groups; g++)
            un += measured[g] ? 0 : gv[g];
        me->borrowed_share = (double)(un / total);
        for (size_t r = 0; r < 3; r++) {
            size_t best = groups;
            for (size_t g = 0; g < groups; g++)
                if (gv[g] > 0 && (best == groups || gv[g] > gv[best]))
                    best = g;
            if (best == groups)
                break;
            me->top_group[r] = (uint32_t)best;
            me->top_share[r] = (double)(gv[best] / total);
            me->top_own[r] = measured[best];
            me->top_count = r + 1;
            gv[best] = 0;
        }
    }
    KS_FREE(gv, measured);
    return KS_OK;
}

/* What the row's interval stands for: ks_interval_claim of the values' (or
 * the pilot's reference's) warm-up, and none where no simulated value
 * measures the spread of some stratum. */
static ks_status claim_of(ks_metric_estimate *m, const ks_plan *plan, const double *y,
                          const ks_estimate_options *o, const char *warmup, ks_error *err)
{
    const char *why;
    ks_claim c = ks_interval_claim(plan, warmup, &why);
    snprintf(m->claim_why, sizeof m->claim_why, "%s", why);
    if (m->unmeasured && c != KS_CLAIM_NONE) {
        c = KS_CLAIM_NONE;
        snprintf(m->claim_why, sizeof m->claim_why, "%s",
                 "no simulated value measures the spread of some clusters' values (one "
                 "launch each, and no second launch of any kernel anywhere in the plan): "
                 "refine adds launches where it is unknown");
    }
    bool holds = true;
    char pool_why[320];
    ks_status st = c != KS_CLAIM_NONE ? ks_interval_check(plan, o->profile, y, &holds,
                                                          pool_why, sizeof pool_why, err)
                                      : KS_OK;
    if (st == KS_OK && !holds) {
        c = KS_CLAIM_NONE;
        snprintf(m->claim_why, sizeof m->claim_why, "%s", pool_why);
    }
    m->claim = (int)c;
    return st;
}

ks_interval ks_interval_of(double x, double variance, double df, int claim, double confidence,
                           double bound, bool nan_unmet)
{
    ks_interval iv = {NAN, NAN, NAN, -1};
    if (claim == KS_CLAIM_NONE)
        return iv;
    double t = ks_student_t_quantile(1 - (1 - confidence) / 2, df);
    double half = t * sqrt(variance > 0 ? variance : 0);
    iv.low = x - half > 0 ? x - half : 0;
    iv.high = x + half;
    iv.rel_halfwidth = x != 0 ? half / fabs(x) : (half > 0 ? INFINITY : NAN);
    if (bound > 0 && (nan_unmet || !isnan(iv.rel_halfwidth)))
        iv.bound_met = iv.rel_halfwidth <= bound;
    return iv;
}

/* The values are non-negative (counts, cycles, rates), so is the
 * quantity; a zero estimate has no relative error: 0 +- 0 is not a bound
 * met. */
static void finish_interval(ks_metric_estimate *m, double confidence, double bound)
{
    ks_interval iv =
        ks_interval_of(m->estimate, m->variance, m->df, m->claim, confidence, bound, true);
    m->ci_low = iv.low;
    m->ci_high = iv.high;
    m->rel_halfwidth = iv.rel_halfwidth;
    m->bound_met = iv.bound_met;
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

/* The width the interval would have had the values followed the profile
 * the plan was drawn on (its durations; else the auxiliary variable's values):
 * the plan's promise scaled to the values' level in each kernel group. */
static ks_status profile_part(ks_metric_estimate *me, const ks_plan *plan, const double *y,
                              const ks_estimate_options *o, ks_error *err)
{
    me->profile_variance = me->profile_rel_halfwidth = NAN;
    const ks_profile *p = o->profile && o->profile->n == plan->input_invocations ? o->profile
                                                                                : NULL;
    if (!p && !o->aux)
        return KS_OK;
    double *x = malloc((plan->sample_count ? plan->sample_count : 1) * sizeof *x);
    if (!x)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < plan->sample_count; i++)
        x[i] = p ? (double)p->duration_ns[plan->samples[i].id] : o->aux->x[i];
    double v, df;
    ks_status st = ks_plan_profile_shaped_variance(plan, y, x, o->single, &v, &df, err);
    free(x);
    if (st != KS_OK || !isfinite(v))
        return st;
    double t = ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, df);
    me->profile_variance = v;
    me->profile_rel_halfwidth = me->estimate != 0 ? t * sqrt(v) / fabs(me->estimate) : NAN;
    return KS_OK;
}

/* A metric the traces give: the exact total over the program's launches
 * when every sample's value is its trace's count (ks_known_total), no
 * interval to it; otherwise the estimate stands and known_note says why. */
static ks_status apply_known(ks_metric_estimate *me, const ks_plan *plan, const double *y,
                             const ks_estimate_options *o, double bound, ks_error *err)
{
    me->sampled_estimate = NAN;
    long km = o->known ? ks_known_metric(o->known, me->name) : -1;
    if (km < 0)
        return KS_OK;
    double total;
    bool exact;
    ks_status st = ks_known_total(o->known, km, plan, y, &total, &exact, me->known_note,
                                  sizeof me->known_note, err);
    if (st != KS_OK || !exact)
        return st;
    me->sampled_estimate = me->estimate;
    me->estimate = me->ci_low = me->ci_high = total;
    me->variance = 0;
    me->df = INFINITY;
    me->rel_halfwidth = 0;
    me->bound_met = bound > 0 ? 1 : -1;
    me->exact = 1;
    me->pilot = 0;
    me->estimator = KS_ESTIMATOR_PLAIN;
    me->profile_variance = me->profile_rel_halfwidth = NAN;
    me->unmeasured = 0;
    me->borrowed_share = NAN;
    me->top_count = 0;
    /* instructions are what every run of the traces executes, the full
     * run's included: the total is the full run's */
    me->claim = KS_CLAIM_FULL_RUN;
    me->claim_why[0] = '\0';
    return KS_OK;
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
    me->kind = r->kinds ? r->kinds[m] : KS_STAT_COUNT;
    me->shown = ks_stat_info_of(r->metrics[m]).shown > 0;
    me->kind_assumed = me->kind == KS_STAT_UNKNOWN;
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
        if (have < 2) {
            free(warm);
            return ks_error_set(err, KS_ERR_FORMAT, o->pilot->sources[0], 0,
                                "metric %s: the pilot has %zu value%s of it; the cold-start "
                                "correction needs two or more",
                                r->metrics[m], have, have == 1 ? "" : "s");
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
    bool *cold = NULL;
    if (have >= 2 && o->profile) {
        if (!(cold = malloc((plan->sample_count + 1) * sizeof *cold)))
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        else
            st = ks_plan_first_launches(plan, o->profile, cold, err);
    }
    if (st != KS_OK) {
        KS_FREE(warm, cold);
        return st;
    }
    if (have >= 2) {
        ks_pilot_estimate pe;
        st = ks_pilot_corrected_ex(plan, y, warm, cold, aux ? o->aux : NULL, o->estimator,
                                   o->fit, o->single, &pe, &me->aux, err);
        me->estimate = pe.estimate;
        me->variance = pe.variance;
        me->df = pe.df;
        me->single_strata = pe.single_strata;
        me->unmeasured = pe.unmeasured;
        me->pilot = pe.pilot;
        me->pilot_ratio = pe.ratio;
    } else if (aux) {
        st = ks_plan_aux_estimate(plan, y, o->aux, o->estimator, o->fit, o->single, &me->aux,
                                  NULL, NULL, err);
        me->estimate = me->aux.estimate;
        me->variance = me->aux.variance;
        me->df = me->aux.df;
        me->single_strata = me->aux.single_strata;
        me->unmeasured = me->aux.unmeasured;
    } else {
        /* the profile's values at the samples, for the calibrated model */
        const ks_profile *p = o->profile && o->profile->n == plan->input_invocations
                                  ? o->profile
                                  : NULL;
        double *x = p ? ks_plan_sample_durations(plan, p) : NULL;
        ks_stratum_spread *sp = malloc((plan->cluster_count + 1) * sizeof *sp);
        ks_variance v;
        memset(&v, 0, sizeof v);
        st = sp ? ks_total_variance_spread(plan, y, x, o->single, &me->estimate, &v, sp, err)
                : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        if (st == KS_OK)
            st = variance_sources(me, plan, sp, err);
        KS_FREE(x, sp);
        me->variance = v.variance;
        me->df = v.df;
        me->single_strata = v.single;
        me->unmeasured = v.unmeasured;
    }
    KS_FREE(warm, cold);
    if (st == KS_OK)
        st = profile_part(me, plan, y, o, err);
    if (st == KS_OK)
        st = claim_of(me, plan, y, o, me->pilot ? ks_results_warmup(o->pilot) : o->warmup, err);
    finish_interval(me, plan->params.confidence, e->bound);
    if (st == KS_OK)
        st = apply_known(me, plan, y, o, e->bound, err);
    return st;
}

/* The total of metric m as add_total estimates it (exact when the traces
 * give it), into *out. */
static ks_status part_total(const ks_plan *plan, const ks_results *r, const long *rows,
                            size_t m, const ks_estimate_options *o, double bound,
                            ks_metric_estimate *out, ks_error *err)
{
    ks_estimate tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.bound = bound;
    size_t cap = 0;
    double *y = malloc((plan->sample_count ? plan->sample_count : 1) * sizeof *y);
    ks_status st = y ? add_total(plan, r, rows, m, o, y, &tmp, &cap, err)
                     : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK && tmp.count == 1)
        *out = tmp.metrics[0];
    else if (st == KS_OK)
        st = ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "metric %s: no value at some sample",
                          r->metrics[m]);
    free(y);
    ks_estimate_free(&tmp);
    return st;
}

/* A rate with a part the traces give exactly (me named, parts mn / md):
 * the known total over the other part's estimate, whose interval alone it
 * has (the delta method: the same relative half-width); both known, the
 * rate is exact.  *done false: neither part is exact, the plain ratio of
 * totals stands. */
static ks_status known_ratio(ks_metric_estimate *me, const ks_plan *plan, const ks_results *r,
                             const long *rows, long mn, long md, const ks_estimate_options *o,
                             double bound, bool *done, ks_error *err)
{
    *done = false;
    if (!o->known || (ks_known_metric(o->known, r->metrics[mn]) < 0 &&
                      ks_known_metric(o->known, r->metrics[md]) < 0))
        return KS_OK;
    ks_metric_estimate num, den;
    ks_status st = part_total(plan, r, rows, (size_t)mn, o, bound, &num, err);
    if (st == KS_OK)
        st = part_total(plan, r, rows, (size_t)md, o, bound, &den, err);
    if (st != KS_OK || (!num.exact && !den.exact) || den.estimate == 0)
        return st;
    *done = true;
    me->estimate = num.estimate / den.estimate;
    me->sampled_estimate = NAN;
    if (num.exact && den.exact) {
        me->exact = 2;
        me->variance = 0;
        me->df = INFINITY;
        me->claim = KS_CLAIM_FULL_RUN;
        me->ci_low = me->ci_high = me->estimate;
        me->rel_halfwidth = 0;
        me->bound_met = bound > 0 ? 1 : -1;
        return KS_OK;
    }
    const ks_metric_estimate *est = num.exact ? &den : &num;
    me->exact_part = num.exact ? 1 : 2;
    double scale = num.exact ? num.estimate / (den.estimate * den.estimate) : 1 / den.estimate;
    me->variance = scale * scale * est->variance;
    me->df = est->df;
    me->single_strata = est->single_strata;
    me->unmeasured = est->unmeasured;
    me->claim = est->claim;
    snprintf(me->claim_why, sizeof me->claim_why, "%s", est->claim_why);
    me->pilot = est->pilot;
    me->pilot_ratio = est->pilot_ratio;
    finish_interval(me, plan->params.confidence, bound);
    if (est->claim == KS_CLAIM_NONE || isnan(est->ci_low)) {
        me->ci_low = me->ci_high = me->rel_halfwidth = NAN;
        me->bound_met = -1;
    }
    return KS_OK;
}

/* The rate name = num / den as the ratio of the two estimated totals
 * (linearised variance, variance.c). */
static ks_status add_ratio(const ks_plan *plan, const ks_results *r, const long *rows,
                           const char *name, const char *num, const char *den, bool shown,
                           double *y, double *x, ks_estimate *e, size_t *cap,
                           const ks_estimate_options *o, ks_error *err)
{
    long mn = ks_results_metric(r, num), md = ks_results_metric(r, den);
    if (mn < 0 || md < 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "%s = %s / %s: no metric named '%s'",
                            name, num, den, mn < 0 ? num : den);
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
    me->kind = KS_STAT_RATE;
    me->shown = shown;
    me->profile_variance = NAN;
    me->sampled_estimate = NAN;
    bool done;
    st = known_ratio(me, plan, r, rows, mn, md, o, e->bound, &done, err);
    if (st != KS_OK || done)
        return st;
    ks_variance v;
    st = ks_ratio_variance_ex(plan, y, x, o->single, &me->estimate, &v, err);
    me->variance = v.variance;
    me->df = v.df;
    me->single_strata = v.single;
    me->unmeasured = v.unmeasured;
    if (st == KS_OK)
        st = claim_of(me, plan, y, o, o->warmup, err);
    finish_interval(me, plan->params.confidence, e->bound);
    /* a part of its whole at every sample (misses of accesses, hits of
     * accesses): so is the program's, and the interval ends at 1 */
    bool part = true;
    for (size_t i = 0; i < plan->sample_count && part; i++)
        part = y[i] >= 0 && y[i] <= x[i];
    if (part && plan->sample_count && me->ci_high > 1)
        me->ci_high = 1;
    return st;
}

/* --ratio NAME=NUM/DEN */
static ks_status add_ratio_spec(const ks_plan *plan, const ks_results *r, const long *rows,
                                const char *spec, double *y, double *x, ks_estimate *e,
                                size_t *cap, const ks_estimate_options *o, ks_error *err)
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
    if (ks_results_metric(r, num) < 0 || ks_results_metric(r, den) < 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "--ratio %s: no metric named '%s'",
                            spec, ks_results_metric(r, num) < 0 ? num : den);
    return add_ratio(plan, r, rows, name, num, den, true, y, x, e, cap, o, err);
}

/* Whether the metric has a value at every sample, and one that is not 0. */
static bool complete(const ks_plan *plan, const ks_results *r, const long *rows, long m,
                     bool *nonzero)
{
    *nonzero = false;
    if (m < 0)
        return false;
    for (size_t i = 0; i < plan->sample_count; i++) {
        double v = r->values[m][rows[i]];
        if (isnan(v))
            return false;
        *nonzero = *nonzero || v != 0;
    }
    return true;
}

/* A rate whose parts are there, with a numerator not 0 at every sample and
 * a denominator that is not 0 at every sample. */
static bool rate_ready(const ks_plan *plan, const ks_results *r, const long *rows,
                       const ks_stat_info *info)
{
    bool nz_num, nz_den;
    return info->kind == KS_STAT_RATE && info->numerator && info->denominator &&
           complete(plan, r, rows, ks_results_metric(r, info->numerator), &nz_num) &&
           complete(plan, r, rows, ks_results_metric(r, info->denominator), &nz_den) &&
           nz_num && nz_den;
}

static bool additive(int kind)
{
    return kind == KS_STAT_COUNT || kind == KS_STAT_RUNNING;
}

/* The metrics named. */
static ks_status named(const ks_plan *plan, const ks_results *r, const ks_estimate_options *o,
                       ks_estimate *e, size_t *cap, const long *rows, double *y, double *x,
                       ks_error *err)
{
    ks_status st = KS_OK;
    for (size_t i = 0; st == KS_OK && i < o->metric_count; i++) {
        const char *name = o->metrics[i];
        long m = ks_results_metric(r, name);
        ks_stat_info info = ks_stat_info_of(name);
        int kind = m >= 0 && r->kinds ? r->kinds[m] : (int)info.kind;
        if (kind == KS_STAT_RATE && info.numerator && info.denominator &&
            ks_results_metric(r, info.numerator) >= 0 &&
            ks_results_metric(r, info.denominator) >= 0)
            st = add_ratio(plan, r, rows, name, info.numerator, info.denominator,
                           info.shown > 0, y, x, e, cap, o, err);
        else if (m < 0)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              kind == KS_STAT_RATE && info.numerator
                                  ? "%s is the rate %s / %s, which the results do not both hold"
                                  : "no metric named '%s' in the results",
                              name, info.numerator, info.denominator);
        else if (kind == KS_STAT_RATE || kind == KS_STAT_OTHER)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "%s is %s: its per-launch values do not add up to the "
                              "program's (a rate is estimated as the ratio of two totals: "
                              "--ratio NAME=NUM/DEN)",
                              name, kind == KS_STAT_RATE ? "a rate" : "not additive");
        else
            st = add_total(plan, r, rows, (size_t)m, o, y, e, cap, err);
    }
    return st;
}

/* Every count and running total reported for every sample, then every rate
 * whose parts are (the rates estimate derives included). */
static ks_status every(const ks_plan *plan, const ks_results *r, const ks_estimate_options *o,
                       ks_estimate *e, size_t *cap, const long *rows, double *y, double *x,
                       ks_error *err)
{
    ks_status st = KS_OK;
    for (size_t m = 0; st == KS_OK && m < r->metric_count; m++) {
        int kind = r->kinds ? r->kinds[m] : KS_STAT_COUNT;
        bool nonzero;
        if (additive(kind) && complete(plan, r, rows, (long)m, &nonzero) && !nonzero)
            e->zero++;
        else if (additive(kind))
            st = add_total(plan, r, rows, m, o, y, e, cap, err);
        else if (kind == KS_STAT_UNKNOWN)
            e->unknown++;
        else if (kind == KS_STAT_OTHER || !ks_stat_info_of(r->metrics[m]).numerator)
            e->not_additive++;
    }
    for (size_t m = 0; st == KS_OK && m < r->metric_count; m++) {
        ks_stat_info info = ks_stat_info_of(r->metrics[m]);
        if (r->kinds && r->kinds[m] == KS_STAT_RATE && rate_ready(plan, r, rows, &info))
            st = add_ratio(plan, r, rows, r->metrics[m], info.numerator, info.denominator,
                           info.shown > 0, y, x, e, cap, o, err);
    }
    /* the rates estimate derives (ipc, DRAM per cycle) */
    for (const char *const *d = ks_stat_shown(); st == KS_OK && *d; d++) {
        ks_stat_info info = ks_stat_info_of(*d);
        if (ks_results_metric(r, *d) < 0 && rate_ready(plan, r, rows, &info))
            st = add_ratio(plan, r, rows, *d, info.numerator, info.denominator, true, y, x, e,
                           cap, o, err);
    }
    return st;
}

enum { DEFAULT_ROWS = 15 };

/* The default rows: ks_stat_shown()'s in order, then the per-launch counts
 * that no table knows (a results CSV's, values given in memory), 15 rows
 * at most; rows 0 at every sample left out. */
static ks_status shown_rows(const ks_plan *plan, const ks_results *r,
                            const ks_estimate_options *o, ks_estimate *e, size_t *cap,
                            const long *rows, double *y, double *x, ks_error *err)
{
    ks_status st = KS_OK;
    for (const char *const *d = ks_stat_shown(); st == KS_OK && *d; d++) {
        long m = ks_results_metric(r, *d);
        ks_stat_info info = ks_stat_info_of(*d);
        int kind = m >= 0 && r->kinds ? r->kinds[m] : (int)info.kind;
        bool nonzero;
        if (additive(kind) && complete(plan, r, rows, m, &nonzero)) {
            if (nonzero)
                st = add_total(plan, r, rows, (size_t)m, o, y, e, cap, err);
            else
                e->zero++;
        } else if (kind == KS_STAT_RATE && rate_ready(plan, r, rows, &info)) {
            st = add_ratio(plan, r, rows, *d, info.numerator, info.denominator, true, y, x, e,
                           cap, o, err);
        }
    }
    for (size_t m = 0; st == KS_OK && m < r->metric_count; m++) {
        int kind = r->kinds ? r->kinds[m] : KS_STAT_COUNT;
        ks_stat_info info = ks_stat_info_of(r->metrics[m]);
        bool nonzero;
        if (kind == KS_STAT_UNKNOWN)
            e->unknown++;
        else if (info.shown)
            continue;
        else if (kind == KS_STAT_OTHER || (kind == KS_STAT_RATE && !info.numerator))
            e->not_additive++;
        else if (!complete(plan, r, rows, (long)m, &nonzero))
            e->skipped++;
        else if (kind == KS_STAT_COUNT && info.kind == KS_STAT_UNKNOWN && nonzero &&
                 e->count < DEFAULT_ROWS)
            st = add_total(plan, r, rows, m, o, y, e, cap, err);
        else if ((additive(kind) && nonzero) || (kind == KS_STAT_RATE && rate_ready(plan, r, rows, &info)))
            e->more++;
    }
    for (size_t i = e->count; i-- > 0;)
        e->metrics[i].shown = 1;
    return st;
}

static ks_status compute(const ks_plan *plan, const ks_results *r, const ks_estimate_options *o,
                         ks_estimate *e, long *rows, double *y, double *x, ks_error *err)
{
    size_t cap = 0;
    ks_status st = ks_results_check_plan(r, plan, err);
    if (st == KS_OK && o->pilot)
        st = ks_pilot_check(plan, o->pilot, err);
    if (st == KS_OK)
        st = rows_of_samples(plan, r, rows, err);
    if (st == KS_OK)
        st = o->metric_count ? named(plan, r, o, e, &cap, rows, y, x, err)
             : o->all        ? every(plan, r, o, e, &cap, rows, y, x, err)
                             : shown_rows(plan, r, o, e, &cap, rows, y, x, err);
    for (size_t i = 0; st == KS_OK && i < o->ratio_count; i++)
        st = add_ratio_spec(plan, r, rows, o->ratios[i], y, x, e, &cap, o, err);
    /* values that are all 0 are no row worth reading, unless they are all
     * there is: then they are shown (0, no relative error, no bound met)
     * rather than nothing */
    for (size_t m = 0; st == KS_OK && e->count == 0 && m < r->metric_count; m++) {
        int kind = r->kinds ? r->kinds[m] : KS_STAT_COUNT;
        bool nonzero;
        if (additive(kind) && complete(plan, r, rows, (long)m, &nonzero) && !nonzero) {
            st = add_total(plan, r, rows, m, o, y, e, &cap, err);
            e->zero--;
            e->metrics[e->count - 1].shown = 1;
        }
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
