/*
 * estimate.c - the whole-workload estimate of a metric from its values at a
 * plan's samples, with a confidence interval from those values themselves.
 *
 * Stratified estimators (Cochran, Sampling Techniques, 3rd ed., ch. 5 for
 * totals, 5A.15 / 6.11 for combined ratio estimates): a stratum is a plan
 * cluster.  Drawn without replacement, V = N^2 (1 - n/N) s^2 / n over the n
 * distinct samples; drawn with replacement (Allegro, random, STEM/ROOT with
 * --with-replacement) V = N^2 s^2 / m over the m draws, a launch drawn k
 * times counting k times.  A census stratum contributes nothing.
 *
 * A stratum with one sample has no s^2.  KS_SINGLE_COLLAPSE pools it with
 * the nearest cluster of the same kernel group (clusters of a group are
 * adjacent duration ranges), each value divided by its cluster's profiled
 * mean: collapsed strata (Cochran 5A.12) in relative units.  With no
 * neighbour, or KS_SINGLE_PROFILE_CV, s = CV_profile * |value|, which
 * assumes the simulator's spread follows the profiled time's.
 */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples of each cluster: order[start[c] .. start[c+1]) index plan->samples. */
typedef struct strata {
    size_t *start;
    size_t *order;
} strata;

static ks_status strata_build(const ks_plan *plan, strata *s, ks_error *err)
{
    size_t k = plan->cluster_count;
    s->start = calloc(k + 2, sizeof *s->start);
    s->order = malloc((plan->sample_count ? plan->sample_count : 1) * sizeof *s->order);
    if (!s->start || !s->order) {
        free(s->start);
        free(s->order);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        if (plan->samples[i].cluster >= k) {
            free(s->start);
            free(s->order);
            return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "sample cluster out of range");
        }
        s->start[plan->samples[i].cluster + 2]++;
    }
    for (size_t c = 0; c < k; c++)
        s->start[c + 2] += s->start[c + 1];
    for (size_t i = 0; i < plan->sample_count; i++)
        s->order[s->start[plan->samples[i].cluster + 1]++] = i;
    return KS_OK;
}

static void strata_free(strata *s)
{
    free(s->start);
    free(s->order);
}

static bool plan_with_replacement(const ks_plan *plan)
{
    return plan->with_replacement;
}

/* Draws of sample i: its weight is k N / m. */
static double draws_of(const ks_plan *plan, const ks_cluster *c, const ks_sample *s)
{
    double k = round(s->weight * (double)c->m / (double)c->size);
    return k < 1 ? 1 : k;
}

typedef struct stratum_stat {
    double n;        /* distinct samples (without replacement) or draws (with) */
    double distinct; /* distinct samples */
    double mean;     /* of the values, draws counted */
    double s2;       /* sample variance, n - 1 divisor; NAN when n < 2 */
    bool census;
} stratum_stat;

static stratum_stat stratum_of(const ks_plan *plan, const strata *st, size_t c, const double *v,
                               bool wr)
{
    const ks_cluster *cl = &plan->clusters[c];
    stratum_stat r = {0, 0, 0, NAN, false};
    size_t lo = st->start[c], hi = st->start[c + 1];
    bool unit_weights = true;
    long double sum = 0, n = 0;
    for (size_t j = lo; j < hi; j++) {
        const ks_sample *s = &plan->samples[st->order[j]];
        double k = wr ? draws_of(plan, cl, s) : 1;
        unit_weights = unit_weights && fabs(s->weight - 1) < 1e-9;
        sum += k * v[st->order[j]];
        n += k;
    }
    r.census = (uint64_t)(hi - lo) == cl->size && unit_weights;
    r.n = (double)n;
    r.distinct = (double)(hi - lo);
    r.mean = n > 0 ? (double)(sum / n) : 0;
    if (hi - lo >= 2) {
        long double sq = 0;
        for (size_t j = lo; j < hi; j++) {
            const ks_sample *s = &plan->samples[st->order[j]];
            double k = wr ? draws_of(plan, cl, s) : 1;
            long double d = v[st->order[j]] - r.mean;
            sq += k * d * d;
        }
        r.s2 = (double)(sq / (n - 1));
    }
    return r;
}

/* For every cluster, the nearest cluster (by index: clusters of a group are
 * adjacent duration ranges in plan order) of the same kernel group that has
 * samples, or -1; one pass each way, so plans of many singleton groups stay
 * linear. */
static ks_status neighbours_build(const ks_plan *plan, const strata *st, long *nb, ks_error *err)
{
    size_t k = plan->cluster_count;
    long *last = malloc((plan->group_count + 1) * sizeof *last);
    long *prev = malloc((k + 1) * sizeof *prev);
    if (!last || !prev) {
        free(last);
        free(prev);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t g = 0; g < plan->group_count; g++)
        last[g] = -1;
    for (size_t c = 0; c < k; c++) {
        uint32_t g = plan->clusters[c].group;
        prev[c] = g < plan->group_count ? last[g] : -1;
        if (g < plan->group_count && st->start[c + 1] > st->start[c])
            last[g] = (long)c;
    }
    for (size_t g = 0; g < plan->group_count; g++)
        last[g] = -1;
    for (size_t c = k; c-- > 0;) {
        uint32_t g = plan->clusters[c].group;
        long next = g < plan->group_count ? last[g] : -1;
        if (prev[c] >= 0 && (next < 0 || (long)c - prev[c] <= next - (long)c))
            nb[c] = prev[c];
        else
            nb[c] = next;
        if (g < plan->group_count && st->start[c + 1] > st->start[c])
            last[g] = (long)c;
    }
    free(last);
    free(prev);
    return KS_OK;
}

/* Values of clusters c and j in units of their cluster's profiled mean
 * (when both have one), and their pooled sample variance: NAN with fewer
 * than two values. */
static double pooled_relative_s2(const ks_plan *plan, const strata *st, size_t c, size_t j,
                                 const double *v, double *unit, double *df)
{
    double mc = plan->clusters[c].mean_ns, mj = plan->clusters[j].mean_ns;
    bool scaled = mc > 0 && mj > 0;
    long double sum = 0, sq = 0;
    size_t n = 0;
    size_t which[2] = {c, j};
    double scale[2] = {scaled ? mc : 1, scaled ? mj : 1};
    for (int w = 0; w < 2; w++)
        for (size_t k = st->start[which[w]]; k < st->start[which[w] + 1]; k++, n++)
            sum += v[st->order[k]] / scale[w];
    if (n < 2)
        return NAN;
    long double mean = sum / n;
    for (int w = 0; w < 2; w++)
        for (size_t k = st->start[which[w]]; k < st->start[which[w] + 1]; k++) {
            long double d = v[st->order[k]] / scale[w] - mean;
            sq += d * d;
        }
    *unit = scale[0];
    *df = (double)(n - 1);
    return (double)(sq / (n - 1));
}

/* The profile's CV^2 of cluster c (n-1 divisor); 0 when it has none. */
static double profile_cv2(const ks_cluster *cl)
{
    double N = (double)cl->size;
    if (!(cl->mean_ns > 0) || cl->size < 2)
        return 0;
    double cv = cl->std_ns / cl->mean_ns * sqrt(N / (N - 1));
    return cv * cv;
}

/* S^2 of a cluster with one sample.  Collapsed with the nearest cluster j of
 * its kernel group: the values of both, each divided by its cluster's
 * profiled mean duration, are pooled and their sample variance, scaled back
 * by this cluster's mean, stands for S_h^2 (collapsed strata, Cochran
 * 5A.12, in relative units so that ROOT's designed differences between
 * duration strata do not count as spread, while any departure of the
 * simulator from the profile's proportions does: conservative).
 *
 * A cluster alone in its group has no neighbour: it borrows the relative
 * spread the simulator shows everywhere else (within_cv2, pooled over the
 * clusters with several samples and the collapsed pairs), or its profiled
 * CV if that is larger.  The profiled CV alone ignores the simulator's own
 * variation, which is what the pooled figure measures: with it alone the
 * intervals of plans made of one-sample strata covered 86-90 % at 95 %. */
const bool ks_residual_all_flag = true;

static bool is_residual(const bool *mask, size_t c)
{
    return mask == KS_RESIDUAL_ALL || (mask && mask[c]);
}

static double single_s2(const ks_plan *plan, const strata *st, size_t c, const long *nb,
                        const double *v, double scale, ks_single_mode mode, double within_cv2,
                        double within_df, bool residual, double *df, size_t *source)
{
    const ks_cluster *cl = &plan->clusters[c];
    double cv2 = profile_cv2(cl);
    if (mode == KS_SINGLE_COLLAPSE) {
        double unit = 1;
        long j = nb[c];
        double s2 = j >= 0 ? pooled_relative_s2(plan, st, c, (size_t)j, v, &unit, df) : NAN;
        if (!isnan(s2)) {
            /* Values (not residuals about a ratio or line to the profile)
             * spread at least as the profile does where they follow it:
             * the collapsed pair measures only how far they depart from the
             * profile's proportions, and a launch drawn from a stratum
             * whose spread is one outlier looks just like its mean (MacSim:
             * 23 launches of 1,090 cycles and one of 884; with the pair
             * alone, refined plans covered 65 % at 95 %).  So the
             * profile's spread is its floor. */
            if (!residual && cv2 * scale * scale > s2 * unit * unit) {
                *df = INFINITY;
                *source = c;
                return cv2 * scale * scale;
            }
            /* a mutual pair shares one estimate; else it leans on j's */
            *source = nb[j] == (long)c && (size_t)j > c ? c : (size_t)j;
            return s2 * unit * unit;
        }
        /* residuals about a ratio or line to the profile are not held to
         * the profile's spread, which the fit explains */
        if (!isnan(within_cv2) && (residual || within_cv2 >= cv2)) {
            *df = within_df;
            *source = plan->cluster_count;
            return within_cv2 * scale * scale;
        }
    }
    *df = INFINITY;
    return cv2 * scale * scale;
}

/* The relative spread of a one-sample cluster c collapsed with its
 * neighbour j: the values of both in units of their clusters' profiled
 * means, their sample variance over the squared mean of scale in the same
 * units; NAN with fewer than two values or a zero mean. */
static double pair_cv2(const ks_plan *plan, const strata *st, size_t c, size_t j,
                       const double *v, const double *scale, double *n_out)
{
    size_t which[2] = {c, j};
    double unit[2] = {1, 1};
    if (plan->clusters[c].mean_ns > 0 && plan->clusters[j].mean_ns > 0) {
        unit[0] = plan->clusters[c].mean_ns;
        unit[1] = plan->clusters[j].mean_ns;
    }
    long double sv = 0, ss = 0, n = 0;
    for (int w = 0; w < 2; w++)
        for (size_t k = st->start[which[w]]; k < st->start[which[w] + 1]; k++, n++) {
            sv += v[st->order[k]] / unit[w];
            ss += scale[st->order[k]] / unit[w];
        }
    *n_out = (double)n;
    if (n < 2 || !(fabsl(ss) > 0))
        return NAN;
    long double mv = sv / n, ms = ss / n, sq = 0;
    for (int w = 0; w < 2; w++)
        for (size_t k = st->start[which[w]]; k < st->start[which[w] + 1]; k++) {
            long double d = v[st->order[k]] / unit[w] - mv;
            sq += d * d;
        }
    return (double)(sq / (n - 1) / (ms * ms));
}

/* Pooled squared coefficient of variation of the simulator's values inside
 * strata, weighted by degrees of freedom: each sampled cluster with two or
 * more distinct samples on its own (s^2 relative to its mean of scale), and
 * each one-sample cluster collapsed with its neighbour (a mutual pair once).
 * NAN when there is neither. */
static double pooled_within_cv2(const ks_plan *plan, const strata *st, const double *v,
                                const double *scale, const long *nb, bool wr, double *df_out)
{
    long double num = 0, df = 0;
    for (size_t c = 0; c < plan->cluster_count; c++) {
        size_t have = st->start[c + 1] - st->start[c];
        if (have == 1 && nb[c] >= 0) {
            size_t j = (size_t)nb[c];
            bool j_single = st->start[j + 1] - st->start[j] == 1;
            if (j_single && nb[j] == (long)c && j < c)
                continue; /* a mutual pair counts once */
            double n, cv2 = pair_cv2(plan, st, c, j, v, scale, &n);
            if (!isnan(cv2)) {
                num += (n - 1) * (long double)cv2;
                df += n - 1;
            }
            continue;
        }
        if (have < 2)
            continue;
        stratum_stat s = stratum_of(plan, st, c, v, wr);
        stratum_stat m = stratum_of(plan, st, c, scale, wr);
        if (s.census || isnan(s.s2) || !(fabs(m.mean) > 0))
            continue;
        num += (s.n - 1) * (long double)s.s2 / ((long double)m.mean * m.mean);
        df += s.n - 1;
    }
    *df_out = (double)df;
    return df > 0 ? (double)(num / df) : NAN;
}

ks_status ks_strata_spread(const ks_plan *plan, const double *v, const double *scale,
                           const bool *residual, ks_single_mode mode, ks_stratum_spread *out,
                           size_t *single, ks_error *err)
{
    strata st;
    ks_status status = strata_build(plan, &st, err);
    if (status != KS_OK)
        return status;
    bool wr = plan_with_replacement(plan);
    size_t ones = 0;
    long *nb = malloc((plan->cluster_count + 1) * sizeof *nb);
    status = nb ? neighbours_build(plan, &st, nb, err)
                : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (status != KS_OK) {
        free(nb);
        strata_free(&st);
        return status;
    }
    double within_df = 0;
    double within_cv2 = pooled_within_cv2(plan, &st, v, scale, nb, wr, &within_df);
    for (size_t c = 0; c < plan->cluster_count; c++) {
        ks_stratum_spread *o = &out[c];
        memset(o, 0, sizeof *o);
        o->source = c;
        if (st.start[c + 1] == st.start[c])
            continue;
        stratum_stat s = stratum_of(plan, &st, c, v, wr);
        o->n = s.n;
        o->census = s.census;
        o->fpc = wr ? 1 : 1 - s.n / (double)plan->clusters[c].size;
        if (o->fpc < 0)
            o->fpc = 0;
        if (s.census)
            continue;
        if (s.distinct < 2) {
            size_t first = st.order[st.start[c]];
            o->s2 = single_s2(plan, &st, c, nb, v, scale[first], mode, within_cv2,
                              within_df, is_residual(residual, c), &o->df, &o->source);
            o->single = true;
            ones++;
        } else {
            o->s2 = s.s2;
            o->df = s.distinct - 1;
            /* values spread at least as the profile does (see single_s2):
             * a few draws from a stratum whose spread is one outlier can
             * all miss it */
            bool res = is_residual(residual, c);
            stratum_stat m = res ? s : stratum_of(plan, &st, c, scale, wr);
            double floor = res ? 0 : profile_cv2(&plan->clusters[c]) * m.mean * m.mean;
            if (floor > o->s2) {
                o->s2 = floor;
                o->df = INFINITY;
            }
        }
    }
    free(nb);
    strata_free(&st);
    if (single)
        *single = ones;
    return KS_OK;
}

/* V of sum_h N_h mean_h(v), and its Satterthwaite degrees of freedom
 * (Cochran 5.4): df = V^2 / sum_s (v_s^2 / df_s), where v_s sums the
 * strata whose spread comes from one source (a collapsed pair, the pooled
 * spread): they err together, so counting them apart would overstate df.
 * scale[i]: what a one-sample stratum's CV multiplies (the value itself
 * for totals). */
ks_status ks_stratified_variance(const ks_plan *plan, const double *v, const double *scale,
                                 const bool *residual, ks_single_mode mode, double *variance,
                                 double *df, size_t *single, ks_error *err)
{
    size_t k = plan->cluster_count;
    ks_stratum_spread *sp = malloc((k + 1) * sizeof *sp);
    long double *by_source = calloc(k + 1, sizeof *by_source);
    double *df_source = malloc((k + 1) * sizeof *df_source);
    if (!sp || !by_source || !df_source) {
        free(sp);
        free(by_source);
        free(df_source);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = ks_strata_spread(plan, v, scale, residual, mode, sp, single, err);
    long double var = 0, denom = 0;
    for (size_t c = 0; c <= k; c++)
        df_source[c] = INFINITY;
    for (size_t c = 0; st == KS_OK && c < k; c++) {
        if (sp[c].census || sp[c].n == 0)
            continue;
        double N = (double)plan->clusters[c].size;
        long double vh = (long double)N * N * sp[c].fpc * sp[c].s2 / sp[c].n;
        var += vh;
        if (isfinite(sp[c].df) && sp[c].df > 0) {
            size_t s = sp[c].source <= k ? sp[c].source : c;
            by_source[s] += vh;
            df_source[s] = fmin(df_source[s], sp[c].df);
        }
    }
    for (size_t s = 0; st == KS_OK && s <= k; s++)
        if (by_source[s] > 0)
            denom += by_source[s] * by_source[s] / df_source[s];
    free(sp);
    free(by_source);
    free(df_source);
    *variance = (double)var;
    if (df)
        *df = denom > 0 ? (double)(var * var / denom) : INFINITY;
    return st;
}

/* Student's t quantile: exact for 1 and 2 degrees of freedom, else the
 * Cornish-Fisher expansion in 1/df around the normal quantile (Abramowitz
 * and Stegun 26.7.5; within 1 % of the exact value from 3 df on). */
double ks_student_t_quantile(double p, double df)
{
    if (!(df > 0) || isinf(df) || df > 1e7)
        return ks_normal_quantile(p);
    if (df < 1.5 && df >= 1)
        return tan(M_PI * (p - 0.5));
    if (df < 2.5 && df >= 1.5)
        return (2 * p - 1) / sqrt(2 * p * (1 - p));
    if (df < 1)
        df = 1; /* Satterthwaite can give less; the 1-df value is conservative */
    double z = ks_normal_quantile(p), z2 = z * z;
    double g1 = (z2 + 1) * z / 4;
    double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
    double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

ks_status ks_plan_total_variance(const ks_plan *plan, const double *y, ks_single_mode mode,
                                 double *estimate, double *variance, double *df, size_t *single,
                                 ks_error *err)
{
    long double total = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        total += plan->samples[i].weight * (long double)y[i];
    *estimate = (double)total;
    return ks_stratified_variance(plan, y, y, NULL, mode, variance, df, single, err);
}

ks_status ks_plan_ratio_variance(const ks_plan *plan, const double *y, const double *x,
                                 ks_single_mode mode, double *ratio, double *variance, double *df,
                                 size_t *single, ks_error *err)
{
    long double ty = 0, tx = 0;
    for (size_t i = 0; i < plan->sample_count; i++) {
        ty += plan->samples[i].weight * (long double)y[i];
        tx += plan->samples[i].weight * (long double)x[i];
    }
    if (tx == 0)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "the ratio's denominator is 0 at every sample");
    double r = (double)(ty / tx);
    double *d = malloc((plan->sample_count ? plan->sample_count : 1) * sizeof *d);
    if (!d)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < plan->sample_count; i++)
        d[i] = y[i] - r * x[i];
    double vd;
    /* a one-sample stratum's profile CV is applied to the numerator's value:
     * the linearised residual d has no scale of its own */
    ks_status st =
        ks_stratified_variance(plan, d, y, KS_RESIDUAL_ALL, mode, &vd, df, single, err);
    free(d);
    *ratio = r;
    *variance = vd / (double)(tx * tx);
    return st;
}

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
    /* a zero estimate has no relative error: 0 +- 0 is not a bound met */
    m->rel_halfwidth = m->estimate != 0 ? half / fabs(m->estimate) : (half > 0 ? INFINITY : NAN);
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
    ks_status st = ks_results_check_plan(r, plan, err);
    if (st == KS_OK && o->pilot)
        st = ks_pilot_check(plan, o->pilot, err);
    if (st == KS_OK)
        st = rows_of_samples(plan, r, rows, err);
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
