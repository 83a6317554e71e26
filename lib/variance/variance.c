/*
 * variance.c - the one variance model every estimator uses: the stratified
 * variance of values (or residuals) at a plan's samples, its rule for
 * one-sample strata, its degrees of freedom and the t quantile.
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
 *
 * KS_SINGLE_CALIBRATE is the calibrated profile model, which the plans of
 * ROOT's calibrated design (--replicate) select (KS_SINGLE_PLAN, the
 * default, resolves to it for them and to KS_SINGLE_COLLAPSE for any other
 * plan).  The profile gives every cluster's spread S_x^2 exactly; in the
 * values' units it is M_h = (ybar_h / xbar_h)^2 S_x^2.  How far the
 * simulator's spread inside strata departs from it is one factor,
 * lambda^2, measured where the design replicated a stratum (and on strata
 * simulated whole): with the profile at the samples, the values' departures
 * from their stratum's mean against the profile's line through the same
 * launches, y - ybar = kappa a (x - xbar) + e, lambda^2 = kappa^2 + nu
 * (the part of the spread that follows the profile, and the residuals'
 * over M_h; calibrate_spread below), else the values' spread over M_h; and
 * every stratum's S_h^2 = lambda^2 M_h: a model-assisted variance with the
 * profile's spread as the auxiliary (Sarndal, Swensson and Wretman, Model
 * Assisted Survey Sampling, ch. 6-7; the measured spread sizes the plan as
 * in SMARTS, Wunderlich et al., ISCA 2003).  ROOT's strata are
 * adjacent duration ranges whose means differ by design: unlike collapsed
 * strata, nothing here counts those differences as spread.  Residuals
 * about a ratio or line (auxiliary.c) keep the collapsed rule.
 */
#include "variance.h"

#include <math.h>
#include <stdio.h>
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
 * each one-sample cluster collapsed with its neighbour (a mutual pair once);
 * over the whole plan (the return value, NAN when there is neither) and per
 * kernel group (group_num, group_df: sums, group_count + 1 entries). */
static double pooled_within_cv2(const ks_plan *plan, const strata *st, const double *v,
                                const double *scale, const long *nb, bool wr, double *df_out,
                                long double *group_num, long double *group_df)
{
    long double num = 0, df = 0;
    for (size_t c = 0; c < plan->cluster_count; c++) {
        size_t have = st->start[c + 1] - st->start[c];
        uint32_t g = plan->clusters[c].group < plan->group_count ? plan->clusters[c].group
                                                                 : (uint32_t)plan->group_count;
        double n = 0, cv2 = NAN;
        if (have == 1 && nb[c] >= 0) {
            size_t j = (size_t)nb[c];
            bool j_single = st->start[j + 1] - st->start[j] == 1;
            if (j_single && nb[j] == (long)c && j < c)
                continue; /* a mutual pair counts once */
            cv2 = pair_cv2(plan, st, c, j, v, scale, &n);
        } else if (have >= 2) {
            stratum_stat s = stratum_of(plan, st, c, v, wr);
            stratum_stat m = stratum_of(plan, st, c, scale, wr);
            if (s.census || isnan(s.s2) || !(fabs(m.mean) > 0))
                continue;
            n = s.n;
            cv2 = s.s2 / (m.mean * m.mean);
        }
        if (isnan(cv2))
            continue;
        num += (n - 1) * (long double)cv2;
        df += n - 1;
        group_num[g] += (n - 1) * (long double)cv2;
        group_df[g] += n - 1;
    }
    *df_out = (double)df;
    return df > 0 ? (double)(num / df) : NAN;
}

/* The calibrated factor's degrees of freedom: Satterthwaite's times this,
 * at most the design's count (see the top of this file). */
#define CALIBRATE_DF_FACTOR 2

const char *ks_single_mode_name(ks_single_mode mode)
{
    return mode == KS_SINGLE_CALIBRATE  ? "calibrate"
           : mode == KS_SINGLE_COLLAPSE ? "collapse"
           : mode == KS_SINGLE_PLAN     ? "plan"
                                        : "profile-cv";
}

bool ks_plan_refined(const ks_plan *plan)
{
    for (size_t i = 0; i < plan->extra_param_count; i++)
        if (strcmp(plan->extra_param_names[i], "refine_seed") == 0)
            return true;
    return false;
}

/* A method parameter of the plan as text: one drawn here has its method's
 * table (name as the option, '-'), one read from a file keeps them as
 * written ('_'); NULL where absent. */
static const char *plan_param_text(const ks_plan *plan, const char *option, char *buf,
                                   size_t size)
{
    for (size_t i = 0; i < plan->param_count; i++) {
        const ks_param_def *d = &plan->param_defs[i];
        if (strcmp(d->name, option) != 0)
            continue;
        double v = ks_plan_param(plan, option);
        if (d->type == KS_PARAM_CHOICE && d->choices)
            return d->choices[(int)v];
        snprintf(buf, size, "%.17g", v);
        return buf;
    }
    char name[64];
    snprintf(name, sizeof name, "%s", option);
    for (char *c = name; *c; c++)
        *c = *c == '-' ? '_' : *c;
    for (size_t i = 0; i < plan->extra_param_count; i++)
        if (strcmp(plan->extra_param_names[i], name) == 0 ||
            strcmp(plan->extra_param_names[i], option) == 0)
            return plan->extra_param_values[i];
    return NULL;
}

double ks_plan_replicate(const ks_plan *plan)
{
    if (strcmp(plan->method, "root") != 0)
        return 0;
    /* a refined plan keeps its parent's "replicate" (refine.c); a two-phase
     * design or the paper's allocation draws none, whatever it says */
    char buf[40];
    const char *r = plan_param_text(plan, "replicate", buf, sizeof buf);
    double v = r ? strtod(r, NULL) : 0;
    const char *tp = plan_param_text(plan, "two-phase", buf, sizeof buf);
    if (tp && strtod(tp, NULL) > 0)
        return 0;
    const char *al = plan_param_text(plan, "allocation", buf, sizeof buf);
    if (al && strcmp(al, "paper") == 0)
        return 0;
    return v > 0 ? v : 0;
}

ks_single_mode ks_single_mode_of(const ks_plan *plan, ks_single_mode mode)
{
    if (mode != KS_SINGLE_PLAN)
        return mode;
    return ks_plan_replicate(plan) > 0 ? KS_SINGLE_CALIBRATE : KS_SINGLE_COLLAPSE;
}

double ks_profile_shaped_s2(const ks_cluster *cl, double mean)
{
    if (!(cl->mean_ns > 0) || cl->size < 2)
        return 0;
    double N = (double)cl->size, rho = mean / cl->mean_ns;
    return rho * rho * cl->std_ns * cl->std_ns * N / (N - 1);
}

double ks_plan_design_df(const ks_plan *plan)
{
    size_t k = plan->cluster_count;
    double *distinct = calloc(k + 1, sizeof *distinct);
    if (!distinct)
        return 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        if (plan->samples[i].cluster < k)
            distinct[plan->samples[i].cluster]++;
    double df = 0;
    for (size_t c = 0; c < k; c++)
        if (distinct[c] >= 2 &&
            ks_profile_shaped_s2(&plan->clusters[c], plan->clusters[c].mean_ns) > 0)
            df += distinct[c] - 1;
    free(distinct);
    return df;
}

/* The profile's values at cluster c's samples (x; NULL: unknown): *scale,
 * the cluster's profiled mean over theirs, which puts values in the
 * profile's units so that values equal to the profile have exactly its
 * spread (1 without x); and the return value, their spread over the
 * cluster's S_x^2 (n-1 divisors both: 1 on average over draws), NAN
 * without x, with fewer than two samples or no spread in the profile. */
static double x_at_samples(const ks_plan *plan, const strata *st, size_t c, const double *x,
                           double *scale)
{
    const ks_cluster *cl = &plan->clusters[c];
    size_t lo = st->start[c], hi = st->start[c + 1];
    *scale = 1;
    if (!x || hi == lo)
        return NAN;
    long double sum = 0, sq = 0;
    for (size_t j = lo; j < hi; j++)
        sum += x[st->order[j]];
    long double mean = sum / (hi - lo);
    if (mean > 0 && cl->mean_ns > 0)
        *scale = cl->mean_ns / (double)mean;
    double S2 = ks_profile_shaped_s2(cl, cl->mean_ns);
    if (hi - lo < 2 || !(S2 > 0))
        return NAN;
    for (size_t j = lo; j < hi; j++)
        sq += (x[st->order[j]] - mean) * (x[st->order[j]] - mean);
    return (double)(sq / (hi - lo - 1) / S2);
}

/* One factor's replicated strata: r = s^2 / M (the values' spread over the
 * profile's in their units), u = x_at_samples (the sampled launches'
 * profiled spread over the profile's), d = n - 1. */
typedef struct factor_sums {
    long double d, r, u;
    long double xy, yy; /* with the profile at the samples: sum a dx dy / M, sum dy^2 / M */
} factor_sums;

/* A kernel group's own factor counts once it rests on this many degrees
 * of freedom: one pair is no measure of a kernel. */
#define GROUP_MIN_D 2
/* ... and its own slope on the profile once its samples' profiled spread,
 * sum (a dx)^2 / M_h, is at least this much per degree of freedom (1 on
 * average over draws) */
#define GROUP_MIN_U 0.25

/* A factor this large says the profile does not predict the values; a
 * refined plan then takes its upper confidence limit at this level (see
 * calibrate_spread). */
#define CALIBRATE_DEPART 2.0
/* The degrees of freedom of a factor the values measure without residual,
 * per replicated degree of freedom (calibrate_spread; ks_plan_predict's
 * interval for values that follow the profile uses the same) */
#define CALIBRATE_EXACT_DF 4.0
#define CALIBRATE_UCL 0.10

/* The calibrated profile model (see the top of this file) for the strata of
 * values (not residuals).  The factor lambda^2 from the replicated strata
 * (and census strata, which measure their kernel's departure exactly).
 * Where the profile's values at the samples are known, the profile-line
 * model: in each stratum, the values' departures from the samples' mean
 * dy against the profile's, a dx = (ybar / xbar)(x - xbar); pooled over a
 * slot's strata, each stratum's sums over its M_h, kappa = sum a dx dy /
 * sum (a dx)^2 (at least 0: values that move against the profile follow
 * none of it), nu = the residuals' sum of squares over M_h per degree of
 * freedom (one less where kappa was fitted), lambda^2 = kappa^2 + nu.
 * Exactly 1 where the values equal the profile or are proportional to it
 * in each stratum, however the draws fell (a pair that missed its
 * stratum's slow launch is read as such through kappa); values that do not
 * follow the profile inside a stratum count as residual spread, not as a
 * slope over a pair's small profiled difference (the README's transformer:
 * a gemm pair 5 us apart in the profile, 19 K cycles apart alone, read by
 * the ratio sum d r / sum d u as a factor of 12 and +-47 %: +-4.1 % here,
 * error 1.8 %).  Its degrees of freedom: 2 lambda^4 over var(nu) + var(
 * kappa^2) = 2 nu^2 / df_e + 4 kappa^2 nu / sum (a dx)^2, doubled, at most
 * sum d.  Without the profile at the samples: sum d r / sum d (r = s^2 /
 * M_h), its degrees of freedom likewise from the spread of the r.  Per
 * kernel group with two or more degrees of freedom (the simulator departs
 * from a time profile by kernel: on the synthetic data set spmv's strata
 * spread 8x the profile's, the others' 0.1-2x), the larger of its factor
 * and the plan's.  Every stratum's spread is lambda^2 M_h, the strata of
 * one factor one source.  A replicated stratum whose profile shows no
 * spread keeps its own s^2; a one-sample one has none to scale, which
 * holds where the plan measured a factor.  With no replicated stratum, or
 * none showing any spread while the profile shows some, the factor is
 * unmeasured. */
static void calibrate_spread(const ks_plan *plan, const strata *st, const double *v,
                             const double *x, const bool *residual, bool wr,
                             ks_stratum_spread *out)
{
    size_t k = plan->cluster_count, groups = plan->group_count + 1;
    factor_sums *fs = calloc(groups + 1, sizeof *fs);
    double *rq = malloc((k + 1) * sizeof *rq), *uq = malloc((k + 1) * sizeof *uq);
    double *dq = malloc((k + 1) * sizeof *dq), *M = malloc((k + 1) * sizeof *M);
    size_t *gq = malloc((k + 1) * sizeof *gq);
    double *lam = malloc((groups + 1) * sizeof *lam), *ldf = malloc((groups + 1) * sizeof *ldf);
    long double *ee = calloc(groups + 1, sizeof *ee);
    if (!fs || !rq || !uq || !dq || !M || !gq || !lam || !ldf || !ee) {
        KS_FREE(fs, rq, uq, dq, M, gq, lam, ldf, ee);
        for (size_t c = 0; c < k; c++)
            out[c].unmeasured = true; /* the conservative answer */
        return;
    }
    size_t nq = 0;
    /* a census stratum adds nothing to the variance but measures its
     * kernel's departure from the profile exactly (the synthetic set's spmv:
     * 16 launches spreading 7x the profile's CV, which the sampled strata
     * of the kernel, three launches missing its slow ones, did not show) */
    for (size_t c = 0; c < k; c++) {
        M[c] = 0;
        if (is_residual(residual, c) || st->start[c + 1] == st->start[c])
            continue;
        stratum_stat s = stratum_of(plan, st, c, v, wr);
        const ks_cluster *cl = &plan->clusters[c];
        double scale, u = x_at_samples(plan, st, c, x, &scale);
        M[c] = ks_profile_shaped_s2(cl, s.mean * scale);
        if (s.distinct < 2 || !(M[c] > 0) || isnan(s.s2))
            continue;
        rq[nq] = s.s2 / M[c];
        uq[nq] = x ? (isnan(u) ? 0 : u) : 1;
        dq[nq] = s.distinct - 1;
        gq[nq] = cl->group < plan->group_count ? cl->group : plan->group_count;
        /* the values' departures from the samples' mean against the
         * profile's line through them, a (x - xbar), a = ybar / xbar */
        long double xy = 0, yy = 0;
        if (x) {
            size_t lo = st->start[c], hi = st->start[c + 1];
            long double sy = 0, sx = 0;
            for (size_t j = lo; j < hi; j++) {
                sy += v[st->order[j]];
                sx += x[st->order[j]];
            }
            long double yb = sy / (hi - lo), xb = sx / (hi - lo), a = xb > 0 ? yb / xb : 0;
            for (size_t j = lo; j < hi; j++) {
                long double dx = a * (x[st->order[j]] - xb), dy = v[st->order[j]] - yb;
                xy += dx * dy;
                yy += dy * dy;
            }
        }
        size_t slot[2] = {gq[nq], groups};
        for (int w = 0; w < 2; w++) {
            fs[slot[w]].d += dq[nq];
            fs[slot[w]].r += dq[nq] * rq[nq];
            fs[slot[w]].u += dq[nq] * uq[nq];
            fs[slot[w]].xy += xy / M[c];
            fs[slot[w]].yy += yy / M[c];
        }
        nq++;
    }
    /* without the profile at the samples: sum d r / sum d (u = 1) */
    for (size_t g = 0; g <= groups; g++) {
        lam[g] = !x && fs[g].u > 0 && fs[g].r > 0 ? (double)(fs[g].r / fs[g].u) : NAN;
        ldf[g] = 0;
    }
    for (size_t i = 0; !x && i < nq; i++) {
        size_t slot[2] = {gq[i], groups};
        for (int w = 0; w < 2; w++) {
            if (isnan(lam[slot[w]]))
                continue;
            long double e = rq[i] - lam[slot[w]] * uq[i];
            ee[slot[w]] += 2 * dq[i] * e * e;
        }
    }
    for (size_t g = 0; !x && g <= groups; g++) {
        long double var = ee[g] / (fs[g].u * fs[g].u);
        ldf[g] = isnan(lam[g])  ? 0
                 : var > 0      ? fminl(fs[g].d, CALIBRATE_DF_FACTOR * 2 * lam[g] * lam[g] / var)
                                : (double)fs[g].d;
    }
    /* With the profile at the samples, the profile-line model (above);
     * sum d u (fs.u) is sum (a dx)^2 / M there. */
    long double plan_kap = fs[groups].u > 0 ? fmaxl(0, fs[groups].xy / fs[groups].u) : 0;
    for (size_t g = 0; x && g <= groups; g++) {
        const factor_sums *f = &fs[g];
        if (!(f->d > 0))
            continue;
        /* a kernel's own slope only where its samples spread enough in
         * the profile to measure one: a pair 78 ns apart in a stratum of
         * 797 ns read 277 cycles of noise as a slope of 2.4, a factor of
         * 5.8 where the kernel's values spread half the profile's (the
         * transformer, key name+shape); elsewhere the plan's slope, and
         * the kernel's residuals about it */
        bool own = g == groups || f->u >= GROUP_MIN_U * f->d;
        long double kap = !own ? plan_kap : f->u > 0 ? f->xy / f->u : 0;
        if (kap < 0)
            kap = 0;
        long double see = f->yy - 2 * kap * f->xy + kap * kap * f->u;
        long double dfe = f->d - (own && kap > 0 ? 1 : 0);
        long double nu = dfe > 0 && see > 0 ? see / dfe : 0;
        long double l2 = kap * kap + nu;
        if (!(l2 > 0)) {
            lam[g] = NAN;
            ldf[g] = 0;
            continue;
        }
        long double uk = own ? f->u : fs[groups].u; /* what measured the slope */
        long double var = (dfe > 0 ? 2 * nu * nu / dfe : 0) +
                          (uk > 0 ? 4 * kap * kap * nu / uk : 0);
        lam[g] = (double)l2;
        ldf[g] = var > 0 ? (double)fminl(f->d, CALIBRATE_DF_FACTOR * 2 * l2 * l2 / var)
                         : (double)f->d;
        /* no residual at all: the values follow the profile's line in
         * every measured stratum, and the factor is known, not estimated;
         * the t of a few more degrees of freedom than they give still
         * stands for the estimator's own departure from normal on plans of
         * a few launches (MacSim's 17, values equal to the profile: 92.5 %
         * with z, 200 seeds) */
        if (!(see > 1e-12L * l2 * f->u) && own)
            ldf[g] = CALIBRATE_EXACT_DF * (double)f->d;
    }
    /* A refined plan stopped adding launches once an interval met its
     * bound, which favours factors that came out low by chance: its
     * factor's degrees of freedom are halved (ks_interval_df's reason). */
    bool refined = ks_plan_refined(plan);
    for (size_t g = 0; refined && g <= groups; g++)
        ldf[g] /= 2;
    /* Where a factor says the values spread far beyond the profile's
     * (lambda^2 >= CALIBRATE_DEPART), the profile does not predict them, nor
     * where their rare slow launches are: the draws that stopped refine
     * tend to be those that missed them (on the synthetic set's time
     * profile, spmv_csr's 16 launches of one stratum, two of them 3-5x the
     * rest: every interval that missed was below the truth, 13 % of the
     * refined plans).  There a refined plan takes the factor's upper
     * confidence limit at CALIBRATE_UCL: lambda^2 df / chi^2(df) at that
     * lower quantile (Wilson-Hilferty's chi-square quantile). */
    for (size_t g = 0; refined && g <= groups; g++) {
        double nu = ldf[g];
        if (isnan(lam[g]) || lam[g] < CALIBRATE_DEPART || !(nu > 0) || !isfinite(nu))
            continue;
        double z = ks_normal_quantile(CALIBRATE_UCL), a = 2 / (9 * nu);
        double q = nu * pow(1 - a + z * sqrt(a), 3);
        if (q > 0 && q < nu)
            lam[g] *= nu / q;
    }
    bool plan_measured = !isnan(lam[groups]);
    for (size_t c = 0; c < k; c++) {
        ks_stratum_spread *o = &out[c];
        if (is_residual(residual, c) || st->start[c + 1] == st->start[c] || o->census)
            continue;
        stratum_stat s = stratum_of(plan, st, c, v, wr);
        size_t g = plan->clusters[c].group < plan->group_count ? plan->clusters[c].group
                                                               : plan->group_count;
        /* the larger of the kernel's own factor, where its strata measured
         * one, and the plan's: a kernel's few replicated strata can all
         * miss its spread, and the plan's mixes kernels that depart less */
        size_t at = !isnan(lam[g]) && lam[g] > lam[groups] * (1 + 1e-9) && fs[g].d >= GROUP_MIN_D
                        ? g
                        : groups;
        o->calibrated = true;
        o->kurtosis = 0;
        o->unmeasured = false;
        o->source = c;
        o->df = INFINITY;
        if (M[c] > 0 && plan_measured) {
            o->s2 = lam[at] * M[c];
            o->df = ldf[at];
            o->source = at == groups ? k : k + 1 + at;
        } else if (!(M[c] > 0) && s.distinct >= 2 && !isnan(s.s2) &&
                   (s.s2 > 0 || plan_measured)) {
            /* no profile spread to scale: its own */
            o->s2 = s.s2;
            o->df = s.distinct - 1;
        } else if (!(M[c] > 0) && plan_measured) {
            o->s2 = 0; /* the profile shows none, and the plan's factor holds */
        } else {
            /* nothing measures the factor */
            o->s2 = M[c];
            o->unmeasured = true;
        }
    }
    KS_FREE(fs, rq, uq, dq, M, gq, lam, ldf, ee);
}

/* A kernel group's own pooled spread stands for its strata once it rests
 * on this many degrees of freedom; below, the plan's (if larger) too. */
#define GROUP_MIN_DF 3

ks_status ks_strata_spread(const ks_plan *plan, const double *v, const double *scale,
                           const double *x, const bool *residual, ks_single_mode mode,
                           ks_stratum_spread *out, size_t *single, ks_error *err)
{
    strata st;
    ks_status status = strata_build(plan, &st, err);
    if (status != KS_OK)
        return status;
    bool wr = plan_with_replacement(plan);
    size_t ones = 0;
    mode = ks_single_mode_of(plan, mode);
    bool calibrate = mode == KS_SINGLE_CALIBRATE;
    if (calibrate)
        mode = KS_SINGLE_COLLAPSE; /* for residuals; values are replaced below */
    long *nb = malloc((plan->cluster_count + 1) * sizeof *nb);
    status = nb ? neighbours_build(plan, &st, nb, err)
                : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (status != KS_OK) {
        free(nb);
        strata_free(&st);
        return status;
    }
    size_t groups = plan->group_count + 1;
    long double *gnum = calloc(groups, sizeof *gnum), *gdf = calloc(groups, sizeof *gdf);
    if (!gnum || !gdf) {
        KS_FREE(nb, gnum, gdf);
        strata_free(&st);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    double within_df = 0;
    double within_cv2 =
        pooled_within_cv2(plan, &st, v, scale, nb, wr, &within_df, gnum, gdf);
    /* Per kernel group, the excess kurtosis of its values about their
     * strata's means, each in units of its stratum's mean value: heavy
     * tails (a few launches far above the rest) make a sample variance from
     * few values far more variable than its degrees of freedom say
     * (var s^2 / S^4 = 2 / (n - 1) + kurtosis / n), so those degrees of
     * freedom are cut accordingly (a Satterthwaite count for non-normal
     * values); none under four values. */
    long double *g2 = calloc(groups, sizeof *g2), *g4 = calloc(groups, sizeof *g4);
    long double *gk = calloc(groups, sizeof *gk);
    if (!g2 || !g4 || !gk) {
        KS_FREE(nb, gnum, gdf, g2, g4, gk);
        strata_free(&st);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t c = 0; c < plan->cluster_count; c++) {
        size_t lo = st.start[c], hi = st.start[c + 1];
        if (hi - lo < 2)
            continue;
        uint32_t g = plan->clusters[c].group < plan->group_count ? plan->clusters[c].group
                                                                 : (uint32_t)plan->group_count;
        long double mean = 0, ms = 0;
        for (size_t j = lo; j < hi; j++) {
            mean += v[st.order[j]];
            ms += scale[st.order[j]];
        }
        mean /= (long double)(hi - lo);
        ms /= (long double)(hi - lo);
        if (!(fabsl(ms) > 0))
            continue;
        for (size_t j = lo; j < hi; j++) {
            long double d = (v[st.order[j]] - mean) / ms, d2 = d * d;
            g2[g] += d2;
            g4[g] += d2 * d2;
        }
        gk[g] += (long double)(hi - lo);
    }
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
        /* The spread the simulator shows in the other strata of this kernel
         * group (or, where they show too little, of the whole plan) is a
         * floor too: a few values of a stratum can all miss what its
         * neighbours show (two launches of 884 cycles where the kernel's
         * others run 1,090 and 3,518), and a sample variance of 0 from
         * them is no evidence of none. */
        uint32_t g = plan->clusters[c].group < plan->group_count ? plan->clusters[c].group
                                                                 : (uint32_t)plan->group_count;
        double kg2 = gdf[g] > 0 ? (double)(gnum[g] / gdf[g]) : NAN;
        double kappa2 = !isnan(kg2) ? kg2 : 0, kdf = (double)gdf[g];
        size_t ksource = plan->cluster_count + 1 + g;
        if ((gdf[g] < GROUP_MIN_DF || !(kappa2 > 0)) && !isnan(within_cv2) &&
            within_cv2 > kappa2) {
            kappa2 = within_cv2;
            kdf = within_df;
            ksource = plan->cluster_count;
        }
        stratum_stat m = stratum_of(plan, &st, c, scale, wr);
        double pooled = kappa2 * m.mean * m.mean;
        if (pooled > o->s2) {
            o->s2 = pooled;
            o->df = kdf;
            o->source = ksource;
        }
        if (gk[g] >= 4 && g2[g] > 0) {
            double kurt = (double)(gk[g] * g4[g] / (g2[g] * g2[g])) - 3;
            o->kurtosis = kurt > 20 ? 20 : kurt > 0 ? kurt : 0;
        }
        o->df = ks_df_heavy(o->df, o->kurtosis);
        /* no simulated value measures this stratum's spread: one launch,
         * no neighbour, and nothing anywhere else in the plan; or values
         * (not residuals) that are all alike, with no spread seen in any
         * stratum of the plan either, and not the profile's own: a few
         * equal values are no evidence of none (MacSim's kernels in a full
         * run: two launches of 1,090 cycles each, the kernel's first one
         * 3,518) */
        o->unmeasured = o->single && isnan(within_cv2) && mode == KS_SINGLE_COLLAPSE;
        const ks_cluster *cl = &plan->clusters[c];
        bool flat = cl->min_ns == cl->max_ns && cl->std_ns == 0;
        if (!o->unmeasured && !(o->s2 > 0) && !(within_cv2 > 0) &&
            (!is_residual(residual, c) || flat)) {
            /* (residuals of 0 about a ratio or line are evidence where the
             * profile's values differ and the simulated ones follow them) */
            bool profile_own = true;
            for (size_t j = st.start[c]; j < st.start[c + 1] && profile_own; j++)
                profile_own = fabs(scale[st.order[j]] - cl->mean_ns) <= 1e-9 * fabs(cl->mean_ns);
            o->unmeasured = !profile_own;
        }
    }
    KS_FREE(nb, gnum, gdf, g2, g4, gk);
    if (calibrate)
        calibrate_spread(plan, &st, v, x, residual, wr, out);
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
double ks_df_heavy(double df, double kurtosis)
{
    if (!(kurtosis > 0) || !isfinite(df) || !(df > 0))
        return df;
    return df / (1 + df * kurtosis / (2 * (df + 1)));
}

/* Satterthwaite's count treats each stratum's variance as an independent
 * chi-square on its own degrees of freedom.  The spreads here are measured
 * on one to a few launches each, partly borrowed from pooled sources, and
 * refine stops as soon as an interval meets its bound, which favours
 * variances that came out low by chance: with the count as it is, the
 * intervals of refined plans covered 88-92 % on the recorded data
 * (tests/test_calibration.c), with half of it 95-100 %.  So an interval
 * uses t at half of it. */
#define INTERVAL_DF_MAX 30

double ks_interval_df(double satterthwaite)
{
    double df = isfinite(satterthwaite) ? satterthwaite / 2 : satterthwaite;
    return df > INTERVAL_DF_MAX ? INTERVAL_DF_MAX : df;
}

double ks_spread_interval_df(const ks_stratum_spread *sp, size_t k, double satterthwaite)
{
    if (!isfinite(satterthwaite))
        return satterthwaite;
    for (size_t c = 0; c < k; c++)
        if (!sp[c].census && sp[c].n > 0 && !sp[c].calibrated)
            return ks_interval_df(satterthwaite);
    return satterthwaite;
}

long double ks_stratum_variance(const ks_plan *plan, const ks_stratum_spread *sp, size_t c)
{
    if (sp[c].census || sp[c].n == 0)
        return 0;
    double N = (double)plan->clusters[c].size;
    return (long double)N * N * sp[c].fpc * sp[c].s2 / sp[c].n;
}

ks_status ks_spread_variance(const ks_plan *plan, const ks_stratum_spread *sp, ks_variance *out,
                             ks_error *err)
{
    size_t k = plan->cluster_count, sources = KS_SPREAD_SOURCES(plan);
    long double *by_source = calloc(sources, sizeof *by_source);
    double *df_source = malloc(sources * sizeof *df_source);
    if (!by_source || !df_source) {
        KS_FREE(by_source, df_source);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    long double var = 0, denom = 0;
    for (size_t c = 0; c < sources; c++)
        df_source[c] = INFINITY;
    out->unmeasured = 0;
    for (size_t c = 0; c < k; c++) {
        if (sp[c].census || sp[c].n == 0)
            continue;
        long double vh = ks_stratum_variance(plan, sp, c);
        var += vh;
        out->unmeasured += sp[c].unmeasured;
        if (isfinite(sp[c].df) && sp[c].df > 0) {
            size_t s = sp[c].source < sources ? sp[c].source : c;
            by_source[s] += vh;
            df_source[s] = fmin(df_source[s], sp[c].df);
        }
    }
    for (size_t s = 0; s < sources; s++)
        if (by_source[s] > 0)
            denom += by_source[s] * by_source[s] / df_source[s];
    out->variance = (double)var;
    out->df = ks_spread_interval_df(sp, k, denom > 0 ? (double)(var * var / denom) : INFINITY);
    KS_FREE(by_source, df_source);
    return KS_OK;
}

/* ks_stratified_variance_ex into the caller's sp (cluster_count + 1). */
static ks_status stratified_variance_into(const ks_plan *plan, const double *v,
                                          const double *scale, const double *x,
                                          const bool *residual, ks_single_mode mode,
                                          ks_stratum_spread *sp, ks_variance *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    ks_status st = ks_strata_spread(plan, v, scale, x, residual, mode, sp, &out->single, err);
    if (st == KS_OK)
        st = ks_spread_variance(plan, sp, out, err);
    return st;
}

ks_status ks_stratified_variance_ex(const ks_plan *plan, const double *v, const double *scale,
                                    const double *x, const bool *residual, ks_single_mode mode,
                                    ks_variance *out, ks_error *err)
{
    ks_stratum_spread *sp = malloc((plan->cluster_count + 1) * sizeof *sp);
    if (!sp) {
        memset(out, 0, sizeof *out);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = stratified_variance_into(plan, v, scale, x, residual, mode, sp, out, err);
    free(sp);
    return st;
}

ks_status ks_stratified_variance(const ks_plan *plan, const double *v, const double *scale,
                                 const bool *residual, ks_single_mode mode, double *variance,
                                 double *df, size_t *single, ks_error *err)
{
    ks_variance vr;
    ks_status st = ks_stratified_variance_ex(plan, v, scale, NULL, residual, mode, &vr, err);
    *variance = vr.variance;
    if (df)
        *df = vr.df;
    if (single)
        *single = vr.single;
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

static double weighted_total(const ks_plan *plan, const double *y)
{
    long double total = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        total += plan->samples[i].weight * (long double)y[i];
    return (double)total;
}

ks_status ks_total_variance_x(const ks_plan *plan, const double *y, const double *x,
                              ks_single_mode mode, double *estimate, ks_variance *out,
                              ks_error *err)
{
    *estimate = weighted_total(plan, y);
    return ks_stratified_variance_ex(plan, y, y, x, NULL, mode, out, err);
}

ks_status ks_total_variance_spread(const ks_plan *plan, const double *y, const double *x,
                                   ks_single_mode mode, double *estimate, ks_variance *out,
                                   ks_stratum_spread *sp, ks_error *err)
{
    *estimate = weighted_total(plan, y);
    return stratified_variance_into(plan, y, y, x, NULL, mode, sp, out, err);
}

ks_status ks_total_variance_ex(const ks_plan *plan, const double *y, ks_single_mode mode,
                               double *estimate, ks_variance *out, ks_error *err)
{
    return ks_total_variance_x(plan, y, NULL, mode, estimate, out, err);
}

ks_status ks_plan_total_variance(const ks_plan *plan, const double *y, ks_single_mode mode,
                                 double *estimate, double *variance, double *df, size_t *single,
                                 ks_error *err)
{
    ks_variance v;
    ks_status st = ks_total_variance_ex(plan, y, mode, estimate, &v, err);
    *variance = v.variance;
    if (df)
        *df = v.df;
    if (single)
        *single = v.single;
    return st;
}

ks_status ks_ratio_variance_ex(const ks_plan *plan, const double *y, const double *x,
                               ks_single_mode mode, double *ratio, ks_variance *out,
                               ks_error *err)
{
    memset(out, 0, sizeof *out);
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
    /* a one-sample stratum's profile CV is applied to the numerator's value:
     * the linearised residual d has no scale of its own */
    ks_status st = ks_stratified_variance_ex(plan, d, y, NULL, KS_RESIDUAL_ALL, mode, out, err);
    free(d);
    *ratio = r;
    out->variance /= (double)(tx * tx);
    return st;
}

ks_status ks_plan_ratio_variance(const ks_plan *plan, const double *y, const double *x,
                                 ks_single_mode mode, double *ratio, double *variance, double *df,
                                 size_t *single, ks_error *err)
{
    ks_variance v;
    ks_status st = ks_ratio_variance_ex(plan, y, x, mode, ratio, &v, err);
    *variance = v.variance;
    if (df)
        *df = v.df;
    if (single)
        *single = v.single;
    return st;
}

/* The interval of the collapsed-strata model on the profile's values. */
static ks_status predict_collapsed(ks_plan *plan, const double *x, ks_error *err)
{
    double estimate;
    ks_variance v;
    ks_status st = ks_total_variance_ex(plan, x, KS_SINGLE_COLLAPSE, &estimate, &v, err);
    if (st != KS_OK)
        return st;
    double t = ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, v.df);
    double half = t * sqrt(v.variance > 0 ? v.variance : 0);
    plan->predicted = 1;
    plan->predicted_variance = v.variance;
    plan->predicted_estimate = estimate;
    plan->predicted_df = v.df;
    plan->predicted_halfwidth = v.unmeasured       ? INFINITY
                                : estimate != 0    ? half / fabs(estimate)
                                : half > 0         ? INFINITY
                                                   : 0;
    return KS_OK;
}

/* The interval a plan promises: its own model on the profile's values; for
 * the calibrated one, the factor at 1 (the values follow the profile) and
 * known: t at CALIBRATE_EXACT_DF times the degrees of freedom the design's
 * replicated strata give, what estimate prints for values that follow the
 * profile (their residuals about its line are 0, calibrate_spread).  ROOT
 * sizes the design with t at those degrees of freedom themselves
 * (lib/methods/root.c), a margin for values that depart. */
ks_status ks_plan_predict(ks_plan *plan, const double *x, ks_error *err)
{
    if (!(plan->bound > 0))
        return KS_OK;
    if (ks_single_mode_of(plan, KS_SINGLE_PLAN) != KS_SINGLE_CALIBRATE)
        return predict_collapsed(plan, x, err);
    size_t k = plan->cluster_count;
    ks_stratum_spread *sp = malloc((k + 1) * sizeof *sp);
    if (!sp)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_strata_spread(plan, x, x, x, NULL, KS_SINGLE_CALIBRATE, sp, NULL, err);
    long double estimate = 0, total = 0, var = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        estimate += plan->samples[i].weight * (long double)x[i];
    for (size_t c = 0; st == KS_OK && c < k; c++) {
        const ks_cluster *cl = &plan->clusters[c];
        total += (long double)cl->size * cl->mean_ns;
        if (sp[c].census || sp[c].n == 0)
            continue;
        /* values that follow the profile have its mean: the factor is 1 */
        double N = (double)cl->size;
        var += (long double)N * N * sp[c].fpc * ks_profile_shaped_s2(cl, cl->mean_ns) / sp[c].n;
    }
    free(sp);
    if (st != KS_OK)
        return st;
    double df = CALIBRATE_EXACT_DF * ks_plan_design_df(plan);
    double t = ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, df);
    double half = t * sqrt((double)var);
    plan->predicted = 1;
    plan->predicted_variance = (double)var;
    plan->predicted_estimate = (double)estimate;
    plan->predicted_df = df;
    plan->predicted_halfwidth = !(df > 0) && var > 0 ? INFINITY
                                : total != 0         ? half / fabs((double)total)
                                : half > 0           ? INFINITY
                                                     : 0;
    return KS_OK;
}

ks_status ks_plan_profile_shaped_variance(const ks_plan *plan, const double *y, const double *x,
                                          ks_single_mode mode, double *variance, double *df,
                                          ks_error *err)
{
    size_t groups = plan->group_count + 1, n = plan->sample_count;
    long double *sy = calloc(groups, sizeof *sy), *sx = calloc(groups, sizeof *sx);
    double *shaped = malloc((n ? n : 1) * sizeof *shaped);
    if (!sy || !sx || !shaped) {
        KS_FREE(sy, sx, shaped);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < plan->group_count ? g : (uint32_t)plan->group_count;
        sy[g] += plan->samples[i].weight * (long double)y[i];
        sx[g] += plan->samples[i].weight * (long double)x[i];
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < plan->group_count ? g : (uint32_t)plan->group_count;
        /* a group whose profile is 0 at every sample takes the values as
         * they are: the profile says nothing of them */
        shaped[i] = sx[g] != 0 ? x[i] * (double)(sy[g] / sx[g]) : y[i];
    }
    ks_variance v;
    ks_status st = ks_stratified_variance_ex(plan, shaped, shaped, x, NULL, mode, &v, err);
    KS_FREE(sy, sx, shaped);
    *variance = v.variance;
    if (df)
        *df = v.df;
    return st;
}
