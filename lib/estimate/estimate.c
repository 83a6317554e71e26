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
 * A stratum with one sample has no s^2.  KS_SINGLE_COLLAPSE pairs it with
 * the nearest cluster of the same kernel group (clusters of a group are
 * adjacent duration ranges) and uses the collapsed-strata estimator with a
 * size measure (Cochran 5A.12): each cluster's estimated total is compared
 * with its share of the pair's total in proportion to its profiled time, so
 * only departures from the profile count as spread.  With no neighbour, or
 * KS_SINGLE_PROFILE_CV, s = CV_profile * |value|, which assumes the
 * simulator's spread follows the profiled time's.
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
    return plan->params.with_replacement || strcmp(plan->method, "allegro") == 0 ||
           strcmp(plan->method, "random") == 0;
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

static long neighbour(const ks_plan *plan, const strata *st, size_t c)
{
    for (size_t d = 1; d < plan->cluster_count; d++) {
        if (c >= d && plan->clusters[c - d].group == plan->clusters[c].group &&
            st->start[c - d + 1] > st->start[c - d])
            return (long)(c - d);
        if (c + d < plan->cluster_count && plan->clusters[c + d].group == plan->clusters[c].group &&
            st->start[c + d + 1] > st->start[c + d])
            return (long)(c + d);
    }
    return -1;
}

/* Size measure of a cluster for the collapsed estimator: its profiled time
 * (or its launch count when that is 0, and for ratio residuals, whose
 * expected total is 0 in every cluster). */
static double aux_of(const ks_cluster *c, bool residual)
{
    double x = (double)c->size * c->mean_ns;
    return residual || !(x > 0) ? (double)c->size : x;
}

/* S^2 of a cluster with one sample.  Collapsed with neighbour j (Cochran
 * 5A.12, with a size measure x): the pair's variance is
 * 2 sum_k (Y_k - x_k / x_g Y_g)^2 = 4 d^2, d = Y_h - x_h / x_g Y_g; half of it
 * is this cluster's, V_h = 2 d^2, i.e. S^2 = 2 d^2 / N_h^2.  Measuring each
 * cluster against its profiled time keeps ROOT's designed differences
 * between duration strata out of the variance. */
static double single_s2(const ks_plan *plan, const strata *st, size_t c, const double *v,
                        double scale, bool residual, ks_single_mode mode, bool wr)
{
    const ks_cluster *cl = &plan->clusters[c];
    double N = (double)cl->size;
    if (mode == KS_SINGLE_COLLAPSE) {
        long nb = neighbour(plan, st, c);
        if (nb >= 0) {
            stratum_stat a = stratum_of(plan, st, c, v, wr);
            stratum_stat b = stratum_of(plan, st, (size_t)nb, v, wr);
            const ks_cluster *cj = &plan->clusters[nb];
            double yh = N * a.mean, yj = (double)cj->size * b.mean;
            double xh = aux_of(cl, residual), xj = aux_of(cj, residual);
            double d = yh - xh / (xh + xj) * (yh + yj);
            return 2 * d * d / (N * N);
        }
    }
    if (!(cl->mean_ns > 0) || cl->size < 2)
        return 0;
    /* the plan records the population deviation; S uses the n-1 divisor */
    double cv = cl->std_ns / cl->mean_ns * sqrt(N / (N - 1));
    return cv * cv * scale * scale;
}

ks_status ks_strata_spread(const ks_plan *plan, const double *v, const double *scale,
                           bool residual, ks_single_mode mode, ks_stratum_spread *out,
                           size_t *single, ks_error *err)
{
    strata st;
    ks_status status = strata_build(plan, &st, err);
    if (status != KS_OK)
        return status;
    bool wr = plan_with_replacement(plan);
    size_t ones = 0;
    for (size_t c = 0; c < plan->cluster_count; c++) {
        ks_stratum_spread *o = &out[c];
        memset(o, 0, sizeof *o);
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
            o->s2 = single_s2(plan, &st, c, v, scale[first], residual, mode, wr);
            o->single = true;
            ones++;
        } else {
            o->s2 = s.s2;
        }
    }
    strata_free(&st);
    if (single)
        *single = ones;
    return KS_OK;
}

/* V of sum_h N_h mean_h(v); scale[i]: what a one-sample stratum's profile CV
 * multiplies (the value itself for totals). */
static ks_status stratified_variance(const ks_plan *plan, const double *v, const double *scale,
                                     bool residual, ks_single_mode mode, double *variance,
                                     size_t *single, ks_error *err)
{
    ks_stratum_spread *sp = malloc((plan->cluster_count + 1) * sizeof *sp);
    if (!sp)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = ks_strata_spread(plan, v, scale, residual, mode, sp, single, err);
    long double var = 0;
    for (size_t c = 0; st == KS_OK && c < plan->cluster_count; c++) {
        if (sp[c].census || sp[c].n == 0)
            continue;
        double N = (double)plan->clusters[c].size;
        var += (long double)N * N * sp[c].fpc * sp[c].s2 / sp[c].n;
    }
    free(sp);
    *variance = (double)var;
    return st;
}

ks_status ks_plan_total_variance(const ks_plan *plan, const double *y, ks_single_mode mode,
                                 double *estimate, double *variance, size_t *single,
                                 ks_error *err)
{
    long double total = 0;
    for (size_t i = 0; i < plan->sample_count; i++)
        total += plan->samples[i].weight * (long double)y[i];
    *estimate = (double)total;
    return stratified_variance(plan, y, y, false, mode, variance, single, err);
}

ks_status ks_plan_ratio_variance(const ks_plan *plan, const double *y, const double *x,
                                 ks_single_mode mode, double *ratio, double *variance,
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
    ks_status st = stratified_variance(plan, d, y, true, mode, &vd, single, err);
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

static void finish_interval(ks_metric_estimate *m, double z, double bound)
{
    double half = z * sqrt(m->variance > 0 ? m->variance : 0);
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
    st = ks_plan_total_variance(plan, y, o->single, &me->estimate, &me->variance,
                                &me->single_strata, err);
    finish_interval(me, e->z, e->bound);
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
    if (!gather(plan, r, rows, (size_t)mn, y, &miss) || !gather(plan, r, rows, (size_t)md, x, &miss))
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "ratio %s: no value for sample id %llu",
                            name, (unsigned long long)plan->samples[miss].id);
    ks_metric_estimate *me;
    ks_status st = push(e, cap, &me, err);
    if (st != KS_OK)
        return st;
    snprintf(me->name, sizeof me->name, "%s", name);
    me->is_ratio = 1;
    st = ks_plan_ratio_variance(plan, y, x, o->single, &me->estimate, &me->variance,
                                &me->single_strata, err);
    finish_interval(me, e->z, e->bound);
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
