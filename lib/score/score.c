/*
 * score.c - plans scored against a real simulator without running it: the
 * values of every launch, simulated in the full run (in context), alone, and
 * warmed up in ways a sampled simulation can be, are known, so each plan's
 * estimate from each kind of value is compared with the full run's total.
 *
 * The papers' own cycle-level check takes a sampled launch's cycles from
 * the FULL run ("context" here): an estimate no sampled simulation can
 * produce, since a launch simulated by itself starts from cold caches.  The
 * other sets are what a sampled simulation measures: "alone" (cold), or a
 * warm-up mode (the launch run after warm-up launches in the same process).
 * A set's cost is the cycles simulated to obtain the value, warm-up
 * included, so the speedup of a warm-up mode pays for its warm-up.
 *
 * A pilot correction (ks_score_pilot) scales a set's per-group estimates by
 * the ratio reference / cold measured on a few of the plan's own sampled
 * launches (a ratio estimator, Cochran ch. 6), and widens the interval by
 * that ratio's own uncertainty.
 */
#include "internal.h"
#include "estimate.h"
#include "plan_cache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ks_score_options_init(ks_score_options *o)
{
    memset(o, 0, sizeof *o);
    o->seeds = 100;
    o->single = KS_SINGLE_PLAN;
}

void ks_score_result_free(ks_score_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->row_count; i++)
        free(r->rows[i].sets);
    free(r->rows);
    free(r->summary);
    memset(r, 0, sizeof *r);
}

/* The value of set s at launch id (its fallback where it has none). */
static double value_at(const ks_score_set *s, uint64_t id)
{
    double v = s->value[id];
    if (isnan(v) && s->fallback)
        v = s->fallback[id];
    return v;
}

static double cost_at(const ks_score_set *s, uint64_t id)
{
    if (s->cost && !isnan(s->cost[id]) && !isnan(s->value[id]))
        return s->cost[id];
    if (s->fallback_cost && isnan(s->value[id]))
        return s->fallback_cost[id];
    return value_at(s, id);
}

/* x at the plan's samples and per cluster: the profiled durations the plan
 * was drawn from (ks_plan_auxiliary: the clusters' own statistics). */
typedef struct aux_buf {
    double *x, *total;
    ks_auxiliary aux;
} aux_buf;

static void aux_free(aux_buf *a)
{
    KS_FREE(a->x, a->total);
    memset(a, 0, sizeof *a);
}

static ks_status aux_of(const ks_plan *plan, const ks_profile *p, aux_buf *a, ks_error *err)
{
    aux_free(a);
    a->x = malloc((plan->sample_count + 1) * sizeof *a->x);
    a->total = malloc((plan->cluster_count + 1) * sizeof *a->total);
    if (!a->x || !a->total)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    a->aux = (ks_auxiliary){a->x, a->total};
    return ks_plan_auxiliary(plan, p, NULL, a->x, a->total, err);
}

static void set_interval(ks_score_estimate *e, double variance, double df, double confidence)
{
    double t = ks_student_t_quantile(1 - (1 - confidence) / 2, df);
    double half = t * sqrt(variance > 0 ? variance : 0);
    e->ci_low = e->estimate - half;
    e->ci_high = e->estimate + half;
    e->rel_halfwidth = e->estimate != 0 ? half / fabs(e->estimate) : (half > 0 ? INFINITY : 0);
}

/* The estimate and interval from y with the column's estimator. */
static ks_status interval(const ks_plan *plan, const double *y, ks_estimator est,
                          const ks_score_options *o, const aux_buf *a, ks_score_estimate *e,
                          size_t *unmeasured, ks_error *err)
{
    double variance, df;
    ks_status st;
    if (est != KS_ESTIMATOR_PLAIN) {
        ks_aux_estimate ae;
        st = ks_plan_aux_estimate(plan, y, &a->aux, est, o->fit, o->single, &ae, NULL, NULL,
                                  err);
        e->estimate = ae.estimate;
        variance = ae.variance;
        df = ae.df;
        *unmeasured = ae.unmeasured;
    } else {
        ks_variance v;
        st = ks_total_variance_x(plan, y, a ? a->x : NULL, o->single, &e->estimate, &v, err);
        variance = v.variance;
        df = v.df;
        *unmeasured = v.unmeasured;
    }
    if (st == KS_OK)
        set_interval(e, variance, df, o->confidence);
    return st;
}

/* ------------------------------------------------------- pilot correction */

/* A pilot of up to per_group sampled launches per kernel group, drawn from
 * the plan's samples with the plan's seed, measured with the reference
 * values; ks_plan_pilot_corrected_aux does the rest. */
static ks_status pilot_correct(const ks_plan *plan, const ks_profile *p,
                               const ks_score_pilot *pilot, const double *y,
                               ks_estimator est, const ks_score_options *o, const aux_buf *a,
                               uint64_t seed, ks_score_estimate *e, double *pilot_cost,
                               size_t *unmeasured, ks_error *err)
{
    size_t n = plan->sample_count, g_count = plan->group_count ? plan->group_count : 1;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *taken = calloc(g_count, sizeof *taken);
    double *warm = malloc((n ? n : 1) * sizeof *warm);
    if (!order || !taken || !warm) {
        KS_FREE(order, taken, warm);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_rng rng;
    ks_rng_seed(&rng, seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        warm[i] = NAN;
    }
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)ks_rng_below(&rng, i);
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    *pilot_cost = 0;
    /* a kernel's first launch is cold in the full run too: never a pilot
     * launch (ks_pilot_corrected_ex) */
    bool *cold = malloc((n ? n : 1) * sizeof *cold);
    ks_status st = cold ? ks_plan_first_launches(plan, p, cold, err)
                        : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < n && st == KS_OK; k++) {
        size_t i = order[k];
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < g_count ? g : 0;
        if (taken[g] >= pilot->per_group || cold[i])
            continue;
        uint64_t id = plan->samples[i].id;
        if (isnan(pilot->reference[id])) {
            st = ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                              "the pilot's reference has no value for launch %llu",
                              (unsigned long long)id);
            break;
        }
        taken[g]++;
        warm[i] = pilot->reference[id];
        *pilot_cost += pilot->reference_cost && !isnan(pilot->reference_cost[id])
                           ? pilot->reference_cost[id]
                           : warm[i];
    }
    /* the pilot's own uncertainty needs two launches: take another when the
     * plan's groups gave one */
    size_t chosen = 0;
    for (size_t i = 0; i < n; i++)
        chosen += !isnan(warm[i]);
    for (size_t k = 0; k < n && chosen < 2 && st == KS_OK; k++) {
        size_t i = order[k];
        uint64_t id = plan->samples[i].id;
        if (!isnan(warm[i]) || isnan(pilot->reference[id]) || cold[i])
            continue;
        warm[i] = pilot->reference[id];
        *pilot_cost += pilot->reference_cost && !isnan(pilot->reference_cost[id])
                           ? pilot->reference_cost[id]
                           : warm[i];
        chosen++;
    }
    ks_pilot_estimate pe;
    if (st == KS_OK && chosen < 2) {
        /* a plan of one launch: nothing to correct with */
        KS_FREE(order, taken, warm, cold);
        return interval(plan, y, est, o, a, e, unmeasured, err);
    }
    if (st == KS_OK)
        st = ks_pilot_corrected_ex(plan, y, warm, cold, est != KS_ESTIMATOR_PLAIN ? &a->aux : NULL,
                                   est, o->fit, o->single, &pe, NULL, err);
    if (st == KS_OK) {
        e->estimate = pe.estimate;
        set_interval(e, pe.variance, pe.df, o->confidence);
        e->pilot = pe.pilot;
        *unmeasured = pe.unmeasured;
    }
    KS_FREE(order, taken, warm, cold);
    return st;
}

/* ------------------------------------------------------------ one plan */

/* One column (set x estimator) of one plan: estimate, and while the
 * interval misses the bound and rounds are left, refine for the column's
 * estimator, "simulate" the new launches (their recorded values) and
 * estimate again. */
static ks_status score_column(const ks_plan *plan, const ks_profile *p, const ks_score_set *set,
                              ks_estimator est, const ks_score_options *o, uint64_t seed,
                              ks_score_estimate *e, ks_error *err)
{
    const ks_plan *cur = plan;
    ks_plan owned;
    bool have_owned = false;
    aux_buf a = {0};
    double *y = NULL;
    double target = o->refine_epsilon > 0 ? o->refine_epsilon : plan->bound;
    bool can_refine = o->rounds > 0 && target > 0 && plan->bound > 0 && !plan->with_replacement;
    ks_status st = KS_OK;
    double pilot_cost = 0;
    size_t unmeasured = 0;
    for (unsigned round = 0; st == KS_OK; round++) {
        free(y);
        if (!(y = malloc((cur->sample_count + 1) * sizeof *y))) {
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            break;
        }
        for (size_t i = 0; i < cur->sample_count; i++) {
            uint64_t id = cur->samples[i].id;
            y[i] = value_at(set, id);
            if (isnan(y[i]))
                st = ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                  "%s has no value for launch %llu, which a plan sampled",
                                  set->name, (unsigned long long)id);
        }
        /* the profile's values at the samples: the auxiliary estimators'
         * x, and the calibrated model's (every column) */
        if (st == KS_OK)
            st = aux_of(cur, p, &a, err);
        if (st != KS_OK)
            break;
        memset(e, 0, sizeof *e);
        pilot_cost = 0;
        st = set->pilot ? pilot_correct(cur, p, set->pilot, y, est, o, &a, seed, e, &pilot_cost,
                                        &unmeasured, err)
                        : interval(cur, y, est, o, &a, e, &unmeasured, err);
        e->rounds = round;
        if (st != KS_OK || !can_refine || round >= o->rounds ||
            (e->rel_halfwidth <= target && !unmeasured))
            break;
        ks_refine_options ro = {.epsilon = target,
                                .seed = seed * 1000003u + round + 1,
                                .single = o->single,
                                .estimator = est,
                                .fit = o->fit,
                                .aux = est != KS_ESTIMATOR_PLAIN ? &a.aux : NULL};
        ks_plan next;
        if ((st = ks_plan_refine(cur, p, y, &ro, &next, err)) != KS_OK)
            break;
        bool grew = next.sample_count > cur->sample_count;
        if (have_owned)
            ks_plan_free(&owned);
        owned = next;
        have_owned = true;
        cur = &owned;
        if (!grew)
            break;
    }
    if (st == KS_OK) {
        double cost = 0;
        for (size_t i = 0; i < cur->sample_count; i++)
            cost += cost_at(set, cur->samples[i].id);
        e->cost = cost + pilot_cost;
        e->samples = cur->sample_count;
        e->error = o->truth_total > 0 ? (e->estimate - o->truth_total) / o->truth_total : NAN;
        const char *why;
        ks_claim claim = ks_interval_claim(
            cur, set->pilot ? (set->pilot->reference_warmup ? set->pilot->reference_warmup
                                                            : "context")
                            : set->warmup,
            &why);
        snprintf(e->claim_why, sizeof e->claim_why, "%s", why);
        if (unmeasured && claim != KS_CLAIM_NONE) {
            claim = KS_CLAIM_NONE;
            snprintf(e->claim_why, sizeof e->claim_why, "%s",
                     "no simulated value measures the spread of some clusters' values");
        }
        bool holds = true;
        if (claim != KS_CLAIM_NONE &&
            (st = ks_interval_check(cur, p, y, &holds, e->claim_why, sizeof e->claim_why,
                                    err)) == KS_OK &&
            !holds)
            claim = KS_CLAIM_NONE;
        e->claim = (int)claim;
        e->covered = e->ci_low <= o->truth_total && o->truth_total <= e->ci_high;
        e->met = target > 0 && e->rel_halfwidth <= target;
        if (claim == KS_CLAIM_NONE) {
            /* no interval is printed: nothing covers, nothing is met */
            e->ci_low = e->ci_high = e->rel_halfwidth = NAN;
            e->covered = e->met = 0;
        }
    }
    free(y);
    aux_free(&a);
    if (have_owned)
        ks_plan_free(&owned);
    return st;
}

static ks_status score_plan(const ks_plan *plan, const ks_profile *p, const ks_score_options *o,
                            uint64_t seed, ks_score_row *row, ks_error *err)
{
    static const ks_estimator plain = KS_ESTIMATOR_PLAIN;
    const ks_estimator *ests = o->estimator_count ? o->estimators : &plain;
    size_t ne = o->estimator_count ? o->estimator_count : 1;
    row->seed = seed;
    row->samples = plan->sample_count;
    for (size_t s = 0; s < o->set_count; s++)
        for (size_t k = 0; k < ne; k++) {
            ks_status st =
                score_column(plan, p, &o->sets[s], ests[k], o, seed, &row->sets[s * ne + k], err);
            if (st != KS_OK)
                return st;
        }
    return KS_OK;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(const ks_score_options *o, ks_score_result *r, size_t first, size_t count)
{
    for (size_t s = 0; s < r->set_count; s++) {
        ks_score_summary *m = &r->summary[s];
        double inv = 0, abs_sum = 0, signed_sum = 0, max = 0, samples = 0, pilot = 0, hw = 0;
        double samples_max = 0;
        size_t covered = 0, within = 0, met = 0, met_within = 0, half = 0, half_met = 0;
        double *errs = malloc((count + 1) * sizeof *errs);
        for (size_t k = first; k < first + count; k++) {
            const ks_score_estimate *e = &r->rows[k].sets[s];
            inv += e->cost > 0 ? e->cost / o->truth_total : 0;
            abs_sum += fabs(e->error);
            signed_sum += e->error;
            max = fabs(e->error) > max ? fabs(e->error) : max;
            samples += (double)e->samples;
            samples_max = (double)e->samples > samples_max ? (double)e->samples : samples_max;
            pilot += (double)e->pilot;
            covered += e->covered ? 1 : 0;
            met += e->met ? 1 : 0;
            met_within += e->met && r->bound > 0 && fabs(e->error) <= r->bound ? 1 : 0;
            within += r->bound > 0 && fabs(e->error) <= r->bound ? 1 : 0;
            bool in_half = r->bound > 0 && fabs(e->error) <= r->bound / 2;
            half += in_half;
            half_met += in_half && e->met;
            if (errs)
                errs[k - first] = fabs(e->error);
        }
        m->error_p95 = NAN;
        if (errs && count) {
            qsort(errs, count, sizeof *errs, by_double);
            size_t rank = (size_t)ceil(0.95 * (double)count);
            m->error_p95 = errs[(rank ? rank : 1) - 1];
        }
        free(errs);
        m->within_half = r->bound > 0 ? (double)half / (double)count : NAN;
        m->met_power = half ? (double)half_met / (double)half : NAN;
        double n = (double)count;
        /* intervals: of the plans given one (a refused plan prints none) */
        size_t refused = 0, with = 0, hw_n = 0;
        m->claim = KS_CLAIM_NONE;
        m->claim_why[0] = '\0';
        for (size_t k = first; k < first + count; k++) {
            const ks_score_estimate *e = &r->rows[k].sets[s];
            if (e->claim == KS_CLAIM_NONE) {
                if (!refused++ && !with)
                    snprintf(m->claim_why, sizeof m->claim_why, "%s", e->claim_why);
                continue;
            }
            with++;
            hw_n += !isnan(e->rel_halfwidth);
            /* the most cautious claim of the plans with an interval */
            if (m->claim == KS_CLAIM_NONE ||
                (m->claim == KS_CLAIM_FULL_RUN && e->claim == KS_CLAIM_VALUES)) {
                m->claim = e->claim;
                snprintf(m->claim_why, sizeof m->claim_why, "%s", e->claim_why);
            }
        }
        hw = 0;
        for (size_t k = first; k < first + count; k++)
            if (!isnan(r->rows[k].sets[s].rel_halfwidth))
                hw += r->rows[k].sets[s].rel_halfwidth;
        m->samples_mean = samples / n;
        m->samples_max = samples_max;
        m->met = (double)met / n;
        m->halfwidth_mean = hw_n ? hw / (double)hw_n : NAN;
        m->pilot_mean = pilot / n;
        m->speedup_hmean = inv > 0 ? n / inv : INFINITY;
        m->error_mean = abs_sum / n;
        m->error_signed_mean = signed_sum / n;
        m->error_max = max;
        m->coverage = with ? (double)covered / (double)with : NAN;
        m->within_bound = r->bound > 0 ? (double)within / n : NAN;
        m->met_true = met ? (double)met_within / (double)met : NAN;
        m->refused = (double)refused / n;
        m->rounds_mean = m->rounds_max = 0;
        for (size_t k = first; k < first + count; k++) {
            double rd = r->rows[k].sets[s].rounds;
            m->rounds_mean += rd / n;
            m->rounds_max = rd > m->rounds_max ? rd : m->rounds_max;
        }
    }
}

ks_status ks_score(const ks_profile *p, const ks_params *params, const ks_score_options *o,
                   ks_score_result *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->method, sizeof out->method, "%s", params->method);
    if (o->seeds == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "at least one seed");
    if (!(o->truth_total > 0))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "the full run's total must be positive");
    size_t columns = o->set_count * (o->estimator_count ? o->estimator_count : 1);
    out->rows = calloc(o->seeds, sizeof *out->rows);
    out->summary = calloc(columns ? columns : 1, sizeof *out->summary);
    if (!out->rows || !out->summary) {
        ks_score_result_free(out);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    out->set_count = columns;
    ks_fitted *fitted = NULL;
    ks_status st = ks_fit_cached(p, params, o->cache, &fitted, err);
    for (unsigned k = 0; k < o->seeds && st == KS_OK; k++) {
        ks_plan plan;
        uint64_t seed = params->seed + k;
        if ((st = ks_select(fitted, seed, &plan, err)) != KS_OK)
            break;
        out->bound = plan.bound;
        ks_score_row *row = &out->rows[out->row_count];
        if (!(row->sets = calloc(columns ? columns : 1, sizeof *row->sets)))
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        else {
            out->row_count++;
            st = score_plan(&plan, p, o, seed, row, err);
        }
        ks_plan_free(&plan);
    }
    if (fitted)
        ks_fitted_free(fitted);
    if (st != KS_OK) {
        ks_score_result_free(out);
        return st;
    }
    summarize(o, out, 0, out->row_count);
    return KS_OK;
}
