/*
 * versus.c - paired comparisons (`estimate PLAN A... --versus B...`): B's
 * total over A's of each metric, both simulated at the same sampled
 * launches, with its confidence interval.
 *
 * An architect's figure is a ratio between two configurations (a speedup,
 * cycles of B over A).  Estimated apart, each total carries the whole
 * spread of the launches' values inside the strata; estimated together,
 * from the same launches, what the configurations share (which launches
 * are long) cancels: Luo and John (IEEE Computer Architecture Letters,
 * 2004) measured about 9x fewer samples for a speedup than for a CPI at
 * the same relative error.
 *
 * The estimator is the ratio of two stratified totals, R = Y_B / Y_A, with
 * Y = sum_i w_i y_i over the plan's samples: the combined ratio estimate in
 * stratified sampling (Cochran, Sampling Techniques, 3rd ed., 6.11), whose
 * Taylor-linearised variance is the stratified variance of the residuals
 * d_i = y_Bi - R y_Ai over Y_A^2.  The stratified variance is the one
 * model's (lib/variance/variance.c): the plan's design (with or without
 * replacement, the finite-population correction), its rule for strata of
 * one sample (residuals keep the collapsed rule under every mode: the
 * calibrated model's factor scales the profile's spread of values, which
 * says nothing of residuals about a ratio), the Satterthwaite degrees of
 * freedom and t at them, the plan's confidence; except in a kernel of fewer
 * than 3 sampled launches, whose pairing nothing measures (paired_variance).
 *
 * A rate of two totals (ipc) compares as (N_B / D_B) / (N_A / D_A) =: Q,
 * linearised the same way: z_i = Q (nB_i / N_B - dB_i / D_B - nA_i / N_A +
 * dA_i / D_A), whose weighted sum over the samples is 0.
 *
 * What the interval stands for is the weaker of the two sides' claims
 * (ks_interval_claim, the checks of ks_estimate_compute): values simulated
 * alone give the ratio of the alone totals, not of the full runs'.
 */
#include "estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ks_versus_free(ks_versus *v)
{
    free(v->rows);
    memset(v, 0, sizeof *v);
}

/* The interval of a row whose ratio, variance and df are set: both
 * totals are non-negative counts, so is their ratio; a zero ratio's NAN
 * relative half-width checks no bound. */
static void finish_row(ks_versus_row *r, double confidence, double bound)
{
    ks_interval iv = ks_interval_of(r->ratio, r->variance, r->df, r->claim, confidence, bound,
                                    false);
    r->ci_low = iv.low;
    r->ci_high = iv.high;
    r->rel_halfwidth = iv.rel_halfwidth;
    r->bound_met = iv.bound_met;
}

/* A kernel group's pairing is credited once this many of its launches are
 * simulated: two degrees of freedom of its residuals' spread. */
#define PAIRED_MIN_SAMPLES 3

/* The variance of a linearised ratio: z_i at the samples (its weighted
 * sum is 0), scale_i what a one-sample stratum's spread is relative to,
 * pb_i and pa_i the parts of z from B and from A (z = pb - pa).  The
 * stratified variance of z by the one model's rules for residuals, except
 * in a kernel group of fewer than PAIRED_MIN_SAMPLES sampled launches:
 * there nothing measures how the two configurations move together inside
 * its strata.  One launch would borrow the plan's pooled spread of other
 * kernels' residuals, two would measure it on one degree of freedom, and a
 * kernel whose launches change places between the configurations breaks
 * both: the synthetic set's histogram is 0.80x in half its launches and
 * 1.16x in the other half, in one stratum, and with those rules the
 * default plans' intervals covered 75-80 % (ROOT's --replicate 0.2: 77-86
 * %, or t at 1 degree of freedom, +-50 % for half the plans).  There a
 * stratum's launches may depart from R as far as either of two things
 * allows, whichever is less:
 *   - the profile: B's and A's parts each spread as the profile does in
 *     the stratum, independently (no credit for pairing, what the two
 *     totals would pay apart), CV_x^2 mean(pb^2 + pa^2);
 *   - the plan's values: as far as any sampled launch departed from R,
 *     e_max^2 mean(scale^2) with e_i = z_i / scale_i (for counts
 *     (y_Bi - R y_Ai) / y_Bi), so that counts the two configurations share
 *     to a few parts in a thousand (L2 accesses) keep that precision;
 * on infinite degrees of freedom (a bound, not a measurement).  B
 * proportional to A at every sample of the plan: nothing shows them to
 * move apart, and the ratio has no width. */
static ks_status paired_variance(const ks_plan *plan, const double *z, const double *scale,
                                 const double *pb, const double *pa, ks_single_mode single,
                                 ks_variance *out, ks_error *err)
{
    size_t k = plan->cluster_count;
    memset(out, 0, sizeof *out);
    ks_stratum_spread *sp = malloc((k + 1) * sizeof *sp);
    size_t *sampled = calloc(plan->group_count + 1, sizeof *sampled);
    /* per stratum: sums of pb^2 + pa^2 and of scale^2 over its samples,
     * and their count */
    long double *q = calloc(k + 1, sizeof *q), *sc2 = calloc(k + 1, sizeof *sc2);
    size_t *m = calloc(k + 1, sizeof *m);
    if (!sp || !sampled || !q || !sc2 || !m) {
        KS_FREE(sp, sampled, q, sc2, m);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = ks_strata_spread(plan, z, scale, NULL, KS_RESIDUAL_ALL, single, sp,
                                    &out->single, err);
    bool exact = true;
    double emax = 0;
    for (size_t i = 0; i < plan->sample_count; i++) {
        bool zero = fabs(z[i]) <= 1e-12 * (fabs(pb[i]) + fabs(pa[i]));
        exact = exact && zero;
        /* a departure from a value of 0 on B's scale is unbounded: the
         * profile's bound then holds alone */
        double e = zero ? 0 : fabs(scale[i]) > 0 ? fabs(z[i] / scale[i]) : INFINITY;
        emax = e > emax ? e : emax;
    }
    for (size_t i = 0; st == KS_OK && i < plan->sample_count; i++) {
        size_t c = plan->samples[i].cluster; /* < k: ks_strata_spread checked it */
        uint32_t g = plan->clusters[c].group;
        sampled[g < plan->group_count ? g : plan->group_count]++;
        q[c] += (long double)pb[i] * pb[i] + (long double)pa[i] * pa[i];
        sc2[c] += (long double)scale[i] * scale[i];
        m[c]++;
    }
    for (size_t c = 0; st == KS_OK && c < k; c++) {
        if (sp[c].census || sp[c].n == 0)
            continue;
        const ks_cluster *cl = &plan->clusters[c];
        uint32_t g = cl->group < plan->group_count ? cl->group : (uint32_t)plan->group_count;
        if (sampled[g] < PAIRED_MIN_SAMPLES && cl->mean_ns > 0 && !exact) {
            double cv2 = ks_profile_shaped_s2(cl, cl->mean_ns) / (cl->mean_ns * cl->mean_ns);
            sp[c].s2 = fmin(cv2 * (double)(q[c] / m[c]), emax * emax * (double)(sc2[c] / m[c]));
            sp[c].df = INFINITY;
            sp[c].source = c;
            sp[c].unmeasured = false; /* bounded by the profile and the values */
        }
    }
    if (st == KS_OK)
        st = ks_spread_variance(plan, sp, out, err);
    KS_FREE(sp, sampled, q, sc2, m);
    return st;
}

/* B over A of a count: R = Y_B / Y_A, z = (y_B - R y_A) / Y_A (buf: 4 n
 * doubles of scratch). */
static ks_status count_ratio(const ks_plan *plan, const double *a, const double *b,
                             ks_single_mode single, double *buf, double *ratio, ks_variance *v,
                             ks_error *err)
{
    size_t n = plan->sample_count;
    long double ta = 0, tb = 0;
    for (size_t i = 0; i < n; i++) {
        ta += plan->samples[i].weight * (long double)a[i];
        tb += plan->samples[i].weight * (long double)b[i];
    }
    if (ta == 0)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "A's total is 0 (0 at every sample): B over A has no value");
    double r = (double)(tb / ta), *z = buf, *scale = buf + n, *pb = buf + 2 * n,
           *pa = buf + 3 * n;
    for (size_t i = 0; i < n; i++) {
        pb[i] = (double)(b[i] / ta);
        pa[i] = (double)(r * a[i] / ta);
        z[i] = pb[i] - pa[i];
        scale[i] = pb[i];
    }
    *ratio = r;
    return paired_variance(plan, z, scale, pb, pa, single, v, err);
}

/* The relative half-width of one side's total under the same model. */
static ks_status side_halfwidth(const ks_plan *plan, const double *y, const double *x,
                                ks_single_mode single, double *rel, ks_error *err)
{
    double estimate;
    ks_variance v;
    ks_status st = ks_total_variance_x(plan, y, x, single, &estimate, &v, err);
    if (st != KS_OK)
        return st;
    double t = ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, v.df);
    double half = t * sqrt(v.variance > 0 ? v.variance : 0);
    *rel = v.unmeasured ? NAN : estimate != 0 ? half / fabs(estimate) : NAN;
    return KS_OK;
}

static void unmeasured_claim(ks_versus_row *r)
{
    r->claim = KS_CLAIM_NONE;
    snprintf(r->claim_why, sizeof r->claim_why, "%s",
             "no simulated value measures the spread of some clusters' differences between "
             "the two configurations (one launch each, and no second launch of any kernel "
             "anywhere in the plan): refine adds launches where it is unknown");
}

ks_status ks_plan_versus(const ks_plan *plan, const double *a, const double *b, const double *x,
                         ks_single_mode single, ks_versus_row *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "value");
    out->kind = KS_STAT_COUNT;
    long double ta = 0, tb = 0;
    for (size_t i = 0; i < plan->sample_count; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i]))
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "sample %zu (id %llu): a value that is not a finite number",
                                i + 1, (unsigned long long)plan->samples[i].id);
        ta += plan->samples[i].weight * (long double)a[i];
        tb += plan->samples[i].weight * (long double)b[i];
    }
    if (ta == 0)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "A's total is 0 (0 at every sample): B over A has no value");
    out->estimate_a = (double)ta;
    out->estimate_b = (double)tb;
    ks_variance v;
    double *buf = malloc(4 * (plan->sample_count ? plan->sample_count : 1) * sizeof *buf);
    if (!buf)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = count_ratio(plan, a, b, single, buf, &out->ratio, &v, err);
    free(buf);
    if (st == KS_OK)
        st = side_halfwidth(plan, a, x, single, &out->rel_halfwidth_a, err);
    if (st == KS_OK)
        st = side_halfwidth(plan, b, x, single, &out->rel_halfwidth_b, err);
    if (st != KS_OK)
        return st;
    out->variance = v.variance;
    out->df = v.df;
    out->single_strata = v.single;
    out->unmeasured = v.unmeasured;
    const char *why;
    out->claim = (int)ks_interval_claim(plan, "context", &why);
    snprintf(out->claim_why, sizeof out->claim_why, "%s", why);
    if (out->unmeasured && out->claim != KS_CLAIM_NONE)
        unmeasured_claim(out);
    finish_row(out, plan->params.confidence, plan->bound);
    return KS_OK;
}

/* ------------------------------------------------ from two results tables */

/* Every sampled launch with results on one side has them on the other
 * (launches the plan did not sample are left out on both, as estimate
 * leaves them out). */
static ks_status paired_launches(const ks_plan *plan, const ks_results *one,
                                 const ks_results *other, const char *side,
                                 const char *other_side, ks_error *err)
{
    for (size_t i = 0; i < plan->sample_count; i++) {
        long row = ks_results_row(one, plan->samples[i].id);
        if (row >= 0 && ks_results_row(other, plan->samples[i].id) < 0)
            return ks_error_set(
                err, KS_ERR_FORMAT,
                one->source_count ? one->sources[one->source[row]] : NULL, one->source_line[row],
                "launch %llu (sampled, cluster %u) has results on %s only, none on %s: a "
                "paired comparison needs every sampled launch simulated on both configurations",
                (unsigned long long)plan->samples[i].id, plan->samples[i].cluster, side,
                other_side);
    }
    return KS_OK;
}

/* Metric `name` at the plan's samples; false where a sample has none. */
static bool values_of(const ks_plan *plan, const ks_results *r, const char *name, double *y)
{
    long m = ks_results_metric(r, name);
    if (m < 0)
        return false;
    for (size_t i = 0; i < plan->sample_count; i++) {
        long row = ks_results_row(r, plan->samples[i].id);
        y[i] = row >= 0 ? r->values[m][row] : NAN;
        if (isnan(y[i]))
            return false;
    }
    return true;
}

/* The parts of a rate row: the statistic table's, or a --ratio's. */
static bool rate_parts(const char *name, const ks_estimate_options *o, char *num, char *den,
                       size_t size)
{
    for (size_t i = 0; i < o->ratio_count; i++) {
        const char *spec = o->ratios[i], *eq = strchr(spec, '=');
        const char *slash = eq ? strchr(eq, '/') : NULL;
        if (!slash || (size_t)(eq - spec) != strlen(name) || strncmp(spec, name, strlen(name)))
            continue;
        snprintf(num, size, "%.*s", (int)(slash - eq - 1), eq + 1);
        snprintf(den, size, "%s", slash + 1);
        return true;
    }
    ks_stat_info info = ks_stat_info_of(name);
    if (!info.numerator || !info.denominator)
        return false;
    snprintf(num, size, "%s", info.numerator);
    snprintf(den, size, "%s", info.denominator);
    return true;
}

static long double weighted(const ks_plan *plan, const double *y)
{
    long double t = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        t += plan->samples[i].weight * (long double)y[i];
    return t;
}

/* A ratio of rates (see the top of this file); false (nothing set) when a
 * part is missing on a side or a total is 0. */
static ks_status rate_row(const ks_plan *plan, const ks_results *a, const ks_results *b,
                          const char *num, const char *den, ks_single_mode single,
                          double *buf, ks_versus_row *r, bool *done, ks_error *err)
{
    size_t n = plan->sample_count;
    double *na = buf, *da = buf + n, *nb = buf + 2 * n, *db = buf + 3 * n, *z = buf + 4 * n;
    double *scale = buf + 5 * n, *pb = buf + 6 * n, *pa = buf + 7 * n;
    *done = false;
    if (!values_of(plan, a, num, na) || !values_of(plan, a, den, da) ||
        !values_of(plan, b, num, nb) || !values_of(plan, b, den, db))
        return KS_OK;
    long double NA = weighted(plan, na), DA = weighted(plan, da);
    long double NB = weighted(plan, nb), DB = weighted(plan, db);
    if (NA == 0 || DA == 0 || NB == 0 || DB == 0)
        return KS_OK;
    double q = (double)((NB / DB) / (NA / DA));
    for (size_t i = 0; i < n; i++) {
        /* each side's own rate residual: its part of z */
        pb[i] = q * (double)(nb[i] / NB - db[i] / DB);
        pa[i] = q * (double)(na[i] / NA - da[i] / DA);
        z[i] = pb[i] - pa[i];
        scale[i] = q * (double)(nb[i] / NB);
    }
    ks_variance v;
    ks_status st = paired_variance(plan, z, scale, pb, pa, single, &v, err);
    if (st != KS_OK)
        return st;
    r->ratio = q;
    r->variance = v.variance;
    r->df = v.df;
    r->single_strata = v.single;
    r->unmeasured = v.unmeasured;
    *done = true;
    return KS_OK;
}

static const ks_metric_estimate *find_row(const ks_estimate *e, const char *name)
{
    for (size_t i = 0; i < e->count; i++)
        if (strcmp(e->metrics[i].name, name) == 0)
            return &e->metrics[i];
    return NULL;
}

static ks_status push_row(ks_versus *v, size_t *cap, ks_versus_row **out, ks_error *err)
{
    *out = ks_push_zeroed((void **)&v->rows, &v->count, cap, sizeof *v->rows, err);
    return *out ? KS_OK : KS_ERR_NOMEM;
}

/* The weaker of the two sides' claims (and their reason), and none where
 * the ratio's own residuals leave a stratum unmeasured. */
static void claim_of(ks_versus_row *r, const ks_metric_estimate *ma,
                     const ks_metric_estimate *mb)
{
    const ks_metric_estimate *weak = mb->claim > ma->claim ? mb : ma;
    r->claim = weak->claim;
    snprintf(r->claim_why, sizeof r->claim_why, "%s",
             weak->claim == KS_CLAIM_FULL_RUN ? "" : weak->claim_why);
    if (r->unmeasured && r->claim != KS_CLAIM_NONE)
        unmeasured_claim(r);
}

static ks_status compare(const ks_plan *plan, const ks_results *a, const ks_results *b,
                         const ks_estimate_options *opt, const ks_estimate *ea,
                         const ks_estimate *eb, ks_single_mode single, ks_versus *out,
                         ks_error *err)
{
    size_t n = plan->sample_count ? plan->sample_count : 1, cap = 0;
    double *buf = malloc(8 * n * sizeof *buf);
    if (!buf)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = KS_OK;
    for (size_t i = 0; st == KS_OK && i < ea->count; i++) {
        const ks_metric_estimate *ma = &ea->metrics[i], *mb = find_row(eb, ma->name);
        if (!mb) {
            out->one_side++;
            continue;
        }
        ks_versus_row row = {0};
        snprintf(row.name, sizeof row.name, "%s", ma->name);
        row.is_rate = ma->is_ratio;
        row.kind = ma->kind;
        row.shown = ma->shown;
        row.estimate_a = ma->estimate;
        row.estimate_b = mb->estimate;
        row.rel_halfwidth_a = ma->rel_halfwidth;
        row.rel_halfwidth_b = mb->rel_halfwidth;
        bool done = false;
        if (ma->is_ratio) {
            char num[160], den[160];
            if (rate_parts(ma->name, opt, num, den, sizeof num))
                st = rate_row(plan, a, b, num, den, single, buf, &row, &done, err);
        } else if (values_of(plan, a, ma->name, buf) && values_of(plan, b, ma->name, buf + n) &&
                   weighted(plan, buf) != 0) {
            ks_variance v;
            st = count_ratio(plan, buf, buf + n, single, buf + 2 * n, &row.ratio, &v, err);
            row.variance = v.variance;
            row.df = v.df;
            row.single_strata = v.single;
            row.unmeasured = v.unmeasured;
            done = st == KS_OK;
        }
        if (st != KS_OK)
            break;
        if (!done) {
            out->zero_a++;
            continue;
        }
        claim_of(&row, ma, mb);
        finish_row(&row, plan->params.confidence, out->bound);
        ks_versus_row *slot;
        if ((st = push_row(out, &cap, &slot, err)) == KS_OK)
            *slot = row;
    }
    for (size_t i = 0; st == KS_OK && i < eb->count; i++)
        out->one_side += !find_row(ea, eb->metrics[i].name);
    free(buf);
    return st;
}

ks_status ks_versus_compute(const ks_plan *plan, const ks_results *a, const ks_results *b,
                            const ks_estimate_options *opt, const char *warmup_b,
                            ks_versus *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (opt->estimator != KS_ESTIMATOR_PLAIN || opt->pilot)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "a paired comparison is of the plain estimator's totals: no "
                            "auxiliary estimator and no pilot");
    ks_status st = ks_results_check_plan(a, plan, err);
    if (st == KS_OK)
        st = ks_results_check_plan(b, plan, err);
    if (st == KS_OK)
        st = paired_launches(plan, a, b, "A (the results)", "B (--versus)", err);
    if (st == KS_OK)
        st = paired_launches(plan, b, a, "B (--versus)", "A (the results)", err);
    if (st != KS_OK)
        return st;
    ks_estimate ea, eb;
    st = ks_estimate_compute(plan, a, opt, &ea, err);
    if (st != KS_OK)
        return st;
    ks_estimate_options ob = *opt;
    ob.warmup = warmup_b;
    st = ks_estimate_compute(plan, b, &ob, &eb, err);
    if (st != KS_OK) {
        /* say which side: B's messages are estimate's of its results */
        char message[sizeof err->message];
        snprintf(message, sizeof message, "%s", err->message);
        snprintf(err->message, sizeof err->message, "B (--versus): %.1500s", message);
        ks_estimate_free(&ea);
        return st;
    }
    out->bound = ea.bound;
    out->launches = plan->sample_count;
    out->zero_a = ea.zero; /* counts 0 at every sample of A: no row */
    st = compare(plan, a, b, opt, &ea, &eb, ks_single_mode_of(plan, opt->single), out, err);
    ks_estimate_free(&ea);
    ks_estimate_free(&eb);
    if (st == KS_OK && out->count == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                          "no metric is estimated on both sides with a total on A that is "
                          "not 0: nothing to compare");
    if (st != KS_OK)
        ks_versus_free(out);
    return st;
}
