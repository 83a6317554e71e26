/*
 * auxiliary.c - the profile as auxiliary information: ratio and regression
 * estimators of a total (Cochran, Sampling Techniques, 3rd ed., ch. 6 and
 * 7; Sarndal, Swensson and Wretman, Model Assisted Survey Sampling, ch. 6-7).
 *
 * The profile gives x for every launch (the time the plan was drawn on, or
 * another column), so each cluster's total X_h is known exactly.  Where the
 * simulator's y follows x (y ~ R x within a kernel), an estimator that uses
 * x pays only for y's spread about that relation:
 *
 *   ratio       Y = R X_G,  R = sum w y / sum w x over a fit group G
 *   regression  Y = sum w y + a (N_G - sum w) + b (X_G - sum w x),
 *               b, a the weighted least-squares line of y on x in G (the
 *               generalised regression estimator; with b = 0 it is plain)
 *
 * A fit group is the strata sharing one ratio or line: a kernel group's
 * (KS_FIT_KERNEL: Cochran's combined estimator within a kernel), each
 * stratum with two or more samples (KS_FIT_STRATUM: the separate estimator;
 * a one-sample stratum has no ratio of its own and joins its kernel group's
 * other such strata), or all of them (KS_FIT_ALL).  The variance is the
 * stratified variance (estimate.c, with its rule for one-sample strata) of
 * the residuals y - R x or y - a - b x, which is the linearised variance of
 * both (Cochran 6.9, 7.7).
 *
 * The ratio's bias is O(1/n): to first order E(R^) - R = (R V(X^) -
 * C(X^, Y^)) / X^2, estimated from the strata with two or more samples
 * (one-sample strata, taken at the model C = R V, add nothing) and removed
 * (Tin's correction, with the samples' own s_x^2 and s_xy, so that it
 * vanishes where y is proportional to x).  A fit group whose removed bias
 * exceeds the standard error does not get the ratio: a first-order
 * correction that large is not to be trusted.  (Cochran 6.7's rule,
 * CV(X^) < 0.1, looks at x alone: it refused the ratio where y = x exactly,
 * a stratum of two launches of 1,092 and 3,518 cycles sampled once.)
 *
 * Where y does not follow x (the ratio residuals spread at least as much as
 * y about its strata's means), the ratio or line only adds noise: that fit
 * group falls back to the plain estimator, and the result counts it.
 * KS_ESTIMATOR_AUTO takes, per fit group, the ratio unless the samples show
 * y not following x (then plain), and the line instead where one is fitted
 * and its variance, one degree of freedom charged, is the least.  A line
 * is fitted only from six samples or more and only where its slope is
 * significant (t test at n - 2 df); the slope's own variance
 * (X - X^)^2 V(b) is added to the estimator's.  (Choosing the least of
 * the three variances outright, plain unless three samples or more showed
 * the relation, covered 86-90 % on the real-simulator data: the choice
 * made on the same samples favours the ones that look narrow.)
 */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const estimator_names[] = {"plain", "ratio", "regression", "auto", NULL};
static const char *const fit_names[] = {"kernel", "stratum", "all", NULL};

const char *ks_estimator_name(ks_estimator e)
{
    return (unsigned)e < 4 ? estimator_names[e] : "?";
}

const char *ks_estimator_fit_name(ks_estimator_fit f)
{
    return (unsigned)f < 3 ? fit_names[f] : "?";
}

static int parse_name(const char *const *names, const char *s)
{
    for (int i = 0; s && names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

int ks_estimator_parse(const char *name)
{
    return parse_name(estimator_names, name);
}

int ks_estimator_fit_parse(const char *name)
{
    return parse_name(fit_names, name);
}

/* The fewest samples a fit group's line is fitted from: with three or four
 * points, nearly collinear by chance, a slope passes its t test while
 * meaning nothing (one of 200 plans of the Accel-Sim data: slope 385 on
 * a kernel whose y ~ 1.06 x, the estimate 95 % off). */
#define LINE_MIN 6
/* ... and the fewest a ratio is: with one, y ~ R x holds by construction. */
#define RATIO_MIN 2
/* The largest leverage a residual is corrected for (1 / sqrt(1 - h) <= 3.2). */
#define LEVERAGE_MAX 0.9
/* A ratio or line replaces what it is compared with only where its
 * variance is below this share of the other's. */
#define CHOICE_MARGIN 1.0

/* Per fit group. */
typedef struct fit_group {
    long double n, w, wy, wx, sxx, sxy; /* distinct samples; sums of w, w y, w x; moments */
    long double X, N;                   /* known totals of the sampled clusters */
    long double bias_num;               /* sum N^2 fpc / n (s_x^2 - s_xy / R) */
    double R, b, a;
    long double see, sww, sand;         /* sum w e^2 about the line; sum w^2 (x - xm)^2;
                                         * sum w^2 (x - xm)^2 e^2 */
    double vb;                          /* the slope's variance */
    double depart, depart_var;          /* its departure from plain and that
                                         * departure's variance (choose) */
    bool ratio_ok, line_ok;
    double v[3];                        /* variance contributions: plain, ratio, line */
    ks_estimator used;
    const char *label;
    uint32_t kernel;  /* the one kernel group of its strata; UINT32_MAX: several */
} fit_group;

typedef struct work {
    size_t *fit_of;    /* per cluster */
    size_t *start, *order; /* samples of cluster c: order[start[c] .. start[c+1]) */
    fit_group *g;
    size_t fits;
    double *d_ratio, *d_line;
    ks_stratum_spread *sp;
} work;

static void work_free(work *w)
{
    KS_FREE(w->fit_of, w->start, w->order, w->g, w->d_ratio, w->d_line, w->sp);
}

/* Draws of sample s (with replacement: weight k N / m). */
static double draws(const ks_plan *plan, const ks_sample *s)
{
    if (!plan->with_replacement)
        return 1;
    const ks_cluster *c = &plan->clusters[s->cluster];
    double k = round(s->weight * (double)c->m / (double)c->size);
    return k < 1 ? 1 : k;
}

static ks_status work_init(const ks_plan *plan, ks_estimator_fit fit, work *w, ks_error *err)
{
    size_t k = plan->cluster_count, n = plan->sample_count ? plan->sample_count : 1;
    size_t keys = k + plan->group_count + 2;
    memset(w, 0, sizeof *w);
    w->fit_of = malloc((k + 1) * sizeof *w->fit_of);
    w->start = calloc(k + 2, sizeof *w->start);
    w->order = malloc(n * sizeof *w->order);
    w->d_ratio = malloc(n * sizeof *w->d_ratio);
    w->d_line = malloc(n * sizeof *w->d_line);
    w->sp = malloc((k + 1) * sizeof *w->sp);
    size_t *map = malloc(keys * sizeof *map);
    if (!w->fit_of || !w->start || !w->order || !w->d_ratio || !w->d_line || !w->sp || !map) {
        free(map);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        if (plan->samples[i].cluster >= k) {
            free(map);
            return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "sample cluster out of range");
        }
        w->start[plan->samples[i].cluster + 2]++;
    }
    for (size_t c = 0; c < k; c++)
        w->start[c + 2] += w->start[c + 1];
    for (size_t i = 0; i < plan->sample_count; i++)
        w->order[w->start[plan->samples[i].cluster + 1]++] = i;
    for (size_t i = 0; i < keys; i++)
        map[i] = SIZE_MAX;
    for (size_t c = 0; c < k; c++) {
        size_t have = w->start[c + 1] - w->start[c];
        uint32_t grp = plan->clusters[c].group < plan->group_count ? plan->clusters[c].group : 0;
        size_t key = fit == KS_FIT_ALL       ? 0
                     : fit == KS_FIT_KERNEL ? grp
                     : have >= 2 && have < plan->clusters[c].size ? plan->group_count + 1 + c
                                                                   : grp;
        if (map[key] == SIZE_MAX)
            map[key] = w->fits++;
        w->fit_of[c] = map[key];
    }
    free(map);
    w->g = calloc(w->fits + 1, sizeof *w->g);
    if (!w->g)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    /* kernel groups that share a pool's strata */
    bool *pooled = calloc(plan->group_count + 1, sizeof *pooled);
    if (!pooled)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t g = 0; plan->pool_rep && g < plan->group_count; g++)
        if (plan->pool_rep[g] != g && plan->pool_rep[g] < plan->group_count)
            pooled[plan->pool_rep[g]] = true;
    for (size_t f = 0; f < w->fits; f++)
        w->g[f].kernel = UINT32_MAX - 1; /* none yet */
    for (size_t c = 0; c < k; c++) {
        fit_group *g = &w->g[w->fit_of[c]];
        uint32_t grp = plan->clusters[c].group;
        bool one = grp < plan->group_count && !pooled[grp];
        if (g->kernel == UINT32_MAX - 1)
            g->kernel = one ? grp : UINT32_MAX;
        else if (g->kernel != grp || !one)
            g->kernel = UINT32_MAX;
    }
    free(pooled);
    for (size_t c = 0; c < k; c++) {
        fit_group *g = &w->g[w->fit_of[c]];
        if (!g->label)
            g->label = fit == KS_FIT_ALL ? "all"
                       : plan->clusters[c].group < plan->group_count
                           ? plan->group_labels[plan->clusters[c].group]
                           : "";
    }
    return KS_OK;
}

/* Sums, totals, the ratio and the line of every fit group. */
static ks_status fit_all(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                         work *w, ks_error *err)
{
    size_t k = plan->cluster_count;
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        if (!isfinite(aux->x[i]) || !isfinite(y[i]))
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "sample id %llu: its %s is not a finite number",
                                (unsigned long long)s->id, isfinite(y[i]) ? "x" : "value");
        fit_group *g = &w->g[w->fit_of[s->cluster]];
        g->w += s->weight;
        g->wy += s->weight * (long double)y[i];
        g->wx += s->weight * (long double)aux->x[i];
    }
    for (size_t c = 0; c < k; c++) {
        if (w->start[c + 1] == w->start[c])
            continue; /* an unsampled cluster is in no estimate */
        fit_group *g = &w->g[w->fit_of[c]];
        g->X += aux->total[c];
        g->N += (long double)plan->clusters[c].size;
        g->n += (long double)(w->start[c + 1] - w->start[c]);
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        fit_group *g = &w->g[w->fit_of[s->cluster]];
        long double xm = g->wx / g->w, ym = g->wy / g->w;
        long double dx = aux->x[i] - xm, dy = y[i] - ym;
        g->sxx += s->weight * dx * dx;
        g->sxy += s->weight * dx * dy;
    }
    for (size_t f = 0; f < w->fits; f++) {
        fit_group *g = &w->g[f];
        /* a ratio from one launch shows nothing of how y follows x */
        g->ratio_ok = g->wx > 0 && g->w > 0 && g->n >= RATIO_MIN;
        g->R = g->ratio_ok ? (double)(g->wy / g->wx) : 0;
        long double xm = g->w > 0 ? g->wx / g->w : 0;
        /* a line needs x to vary among the samples (beyond rounding), and
         * one kernel: across kernels (a pool's, or --fit all) y ~ a + b x
         * is no one's relation, and such lines covered 84 % */
        g->line_ok = g->kernel != UINT32_MAX && g->n >= 2 &&
                     g->sxx > 1e-18L * g->w * (xm * xm + 1);
        g->b = g->line_ok ? (double)(g->sxy / g->sxx) : 0;
        g->a = g->w > 0 ? (double)(g->wy / g->w - g->b * xm) : 0;
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        fit_group *g = &w->g[w->fit_of[s->cluster]];
        w->d_ratio[i] = y[i] - g->R * aux->x[i];
        w->d_line[i] = y[i] - g->a - g->b * aux->x[i];
        long double dx = aux->x[i] - g->wx / g->w;
        g->see += s->weight * (long double)w->d_line[i] * w->d_line[i];
        g->sww += (long double)s->weight * s->weight * dx * dx;
        g->sand += (long double)s->weight * s->weight * dx * dx * w->d_line[i] * w->d_line[i];
    }
    /* Residuals about a fitted ratio or line are smaller than the errors
     * about the true one, the more so the more a sample weighs in the fit
     * (its leverage h: w x / sum w x for a ratio, w / sum w + w (x - xm)^2 /
     * Sxx for a line): each is divided by sqrt(1 - h) (the leverage-
     * corrected residual; with three or four samples in a group the plain
     * residuals made ratio and regression intervals cover 84-92 %). */
    for (size_t i = 0; i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        fit_group *g = &w->g[w->fit_of[s->cluster]];
        double hr = g->wx > 0 ? (double)(s->weight * aux->x[i] / g->wx) : 0;
        long double dx = aux->x[i] - g->wx / g->w;
        double hl = g->w > 0 ? (double)(s->weight / g->w) : 0;
        if (g->line_ok && g->sxx > 0)
            hl += (double)(s->weight * dx * dx / g->sxx);
        hr = hr > LEVERAGE_MAX ? LEVERAGE_MAX : hr;
        hl = hl > LEVERAGE_MAX ? LEVERAGE_MAX : hl;
        w->d_ratio[i] /= sqrt(1 - hr);
        w->d_line[i] /= sqrt(1 - hl);
    }
    /* The slope's variance about the line (n - 2 degrees of freedom):
     * V(b) = s_e^2 sum w^2 (x - xm)^2 / Sxx^2, or the sandwich
     * sum w^2 (x - xm)^2 e^2 / Sxx^2 where larger.  A slope within two of its
     * standard errors (t at n - 2 df) of 0 is not evidence that y follows
     * x, and one fitted to x values that barely differ would make
     * b (X - X^) large with nothing to show for it: no line there. */
    for (size_t f = 0; f < w->fits; f++) {
        fit_group *g = &w->g[f];
        if (!g->line_ok || g->n < LINE_MIN) {
            g->line_ok = false;
            continue;
        }
        long double s2e = g->see / g->w * g->n / (g->n - 2);
        long double model = s2e * g->sww / (g->sxx * g->sxx);
        /* the larger of the model's and the sandwich form, which holds
         * when the residuals' spread changes with x (kernels of a pool) */
        long double sandwich = g->sand / (g->sxx * g->sxx) * g->n / (g->n - 2);
        g->vb = (double)(sandwich > model ? sandwich : model);
        double t = ks_student_t_quantile(0.975, (double)g->n - 2);
        if (!(fabs(g->b) > t * sqrt(g->vb)))
            g->line_ok = false;
    }
    return KS_OK;
}

/* The first-order bias term of the ratio, per fit group, from each
 * cluster's samples. */
static void ratio_bias(const ks_plan *plan, const double *y, const ks_auxiliary *aux, work *w)
{
    for (size_t c = 0; c < plan->cluster_count; c++) {
        size_t lo = w->start[c], hi = w->start[c + 1];
        if (hi == lo)
            continue;
        fit_group *g = &w->g[w->fit_of[c]];
        const ks_cluster *cl = &plan->clusters[c];
        long double n = 0, sx = 0, sy = 0;
        for (size_t j = lo; j < hi; j++) {
            size_t i = w->order[j];
            double k = draws(plan, &plan->samples[i]);
            n += k, sx += k * aux->x[i], sy += k * y[i];
        }
        double N = (double)cl->size;
        double fpc = plan->with_replacement ? 1 : 1 - (double)n / N;
        if (!(fpc > 0))
            continue; /* a census: X and Y known exactly */
        long double xm = sx / n, ym = sy / n, sxx = 0, sxy = 0;
        for (size_t j = lo; j < hi; j++) {
            size_t i = w->order[j];
            double k = draws(plan, &plan->samples[i]);
            sxx += k * (aux->x[i] - xm) * (aux->x[i] - xm);
            sxy += k * (aux->x[i] - xm) * (y[i] - ym);
        }
        long double a = (long double)N * N * fpc / n;
        /* Tin's term with the samples' own s_x^2 and s_xy, so that it
         * vanishes where y is exactly proportional to x */
        if (hi - lo >= 2 && g->R != 0)
            g->bias_num += a * (double)((sxx - sxy / g->R) / (n - 1));
    }
}

/* Each fit group's share of the stratified variance of v. */
static ks_status contributions(const ks_plan *plan, const double *v, const double *y,
                               ks_single_mode single, work *w, int slot, ks_error *err)
{
    ks_status st =
        ks_strata_spread(plan, v, y, NULL, slot ? KS_RESIDUAL_ALL : NULL, single, w->sp, NULL,
                         err);
    if (st != KS_OK)
        return st;
    for (size_t f = 0; f < w->fits; f++)
        w->g[f].v[slot] = 0;
    for (size_t c = 0; c < plan->cluster_count; c++) {
        const ks_stratum_spread *s = &w->sp[c];
        if (s->census || s->n == 0)
            continue;
        double N = (double)plan->clusters[c].size;
        w->g[w->fit_of[c]].v[slot] += N * N * s->fpc * s->s2 / s->n;
    }
    if (slot == 2)
        for (size_t f = 0; f < w->fits; f++) {
            fit_group *g = &w->g[f];
            g->v[2] += (double)((g->X - g->wx) * (g->X - g->wx)) * g->vb;
        }
    return KS_OK;
}

static void append_label(char *buf, size_t size, const char *label)
{
    size_t used = strlen(buf);
    if (used + 8 >= size)
        return;
    snprintf(buf + used, size - used, "%s%s", used ? ", " : "", label);
}

/* A departure from plain counts once past this many standard errors of
 * the difference (choose): below, a ratio that is right would pay for
 * plain's own error half the time */
#define DEPART_Z 2.0

/* A departure d from plain, of variance v where the ratio or line is right:
 * its square beyond v once past DEPART_Z standard errors, else 0. */
static long double departure_excess(long double d, long double v)
{
    return d * d > DEPART_Z * DEPART_Z * v ? d * d - v : 0;
}

/* auto without lines (auto's narrower alternative, below) */
#define AUTO_NO_LINES ((ks_estimator)(KS_ESTIMATOR_AUTO + 1))

/* Which estimator each fit group gets. */
static void choose(ks_estimator estimator, work *w, ks_aux_estimate *out)
{
    for (size_t f = 0; f < w->fits; f++) {
        fit_group *g = &w->g[f];
        bool ratio = g->ratio_ok;
        /* the bias removed must be small against the standard error, or
         * the first-order correction is not to be trusted */
        double bias = g->ratio_ok ? fabs((double)(g->R * g->bias_num / (g->wx * g->wx) * g->X))
                                  : 0;
        if (ratio && bias > sqrt(g->v[1]) + 1e-9 * fabs((double)(g->R * g->X))) {
            ratio = false;
            out->biased += estimator == KS_ESTIMATOR_RATIO || estimator == KS_ESTIMATOR_AUTO ||
                           estimator == AUTO_NO_LINES;
        }
        bool line = g->line_ok;
        /* evidence that y follows x: the ratio residuals spread less than
         * y does (only a group of two or more samples can show it) */
        /* (clearly less: choosing the one that looks narrower on the very
         * samples favours the ones that look narrow by chance) */
        bool unstable = g->n >= 2 && g->ratio_ok && !(g->v[1] < CHOICE_MARGIN * g->v[0]);
        double n = (double)g->n;
        switch (estimator) {
        case KS_ESTIMATOR_PLAIN:
            g->used = KS_ESTIMATOR_PLAIN;
            unstable = false;
            break;
        case KS_ESTIMATOR_RATIO:
            g->used = ratio && !unstable ? KS_ESTIMATOR_RATIO : KS_ESTIMATOR_PLAIN;
            break;
        case KS_ESTIMATOR_REGRESSION:
            unstable = g->n >= 2 && line && !(g->v[2] < CHOICE_MARGIN * g->v[0]);
            g->used = line && !unstable ? KS_ESTIMATOR_REGRESSION : KS_ESTIMATOR_PLAIN;
            break;
        default: {
            /* the ratio unless the samples show y not following x; the
             * line where it is fitted (six samples, a significant slope)
             * and its variance, one df charged, is the least */
            g->used = ratio && !unstable ? KS_ESTIMATOR_RATIO : KS_ESTIMATOR_PLAIN;
            double best = g->v[g->used == KS_ESTIMATOR_RATIO ? 1 : 0];
            if (estimator != AUTO_NO_LINES && line &&
                g->v[2] * (n - 1) / (n - 2) < CHOICE_MARGIN * best) {
                g->used = KS_ESTIMATOR_REGRESSION;
                unstable = false;
            }
            break;
        }
        }
        /* A ratio or line estimate is unbiased only where the values
         * follow the profile as it assumes; the plain total is unbiased by
         * design.  Their difference d estimates the ratio's bias, and
         * d^2 less the difference's own variance where the ratio is right
         * (plain's less the ratio's, Hausman 1978) its square: that
         * excess joins the interval as a mean squared error.  On the
         * transformer planned from its time profile, launches whose
         * cycles hold while the profiled time varies (silu_mul 12 % under
         * its profiled total in one refined plan) gave the ratio a +1 %
         * bias over 200 seeds, intervals covering 75-79 %.  (Switching to
         * plain where d is large broke other rows: a large d is as often
         * plain's error.) */
        g->depart = g->depart_var = 0;
        if (g->used != KS_ESTIMATOR_PLAIN && g->n >= 2) {
            int slot = g->used == KS_ESTIMATOR_RATIO ? 1 : 2;
            double alt = g->used == KS_ESTIMATOR_RATIO
                             ? (double)(g->R * g->X)
                             : (double)(g->wy + g->a * (g->N - g->w) + g->b * (g->X - g->wx));
            double vd = g->v[0] - g->v[slot];
            g->depart = alt - (double)g->wy;
            g->depart_var = vd > 0 ? vd : 0;
            if (departure_excess(g->depart, g->depart_var) > 0) {
                out->departed++;
                append_label(out->departed_labels, sizeof out->departed_labels, g->label);
            }
        }
        if (unstable) {
            out->unstable++;
            append_label(out->unstable_labels, sizeof out->unstable_labels, g->label);
        }
        out->plain += g->used == KS_ESTIMATOR_PLAIN;
        out->ratio += g->used == KS_ESTIMATOR_RATIO;
        out->regression += g->used == KS_ESTIMATOR_REGRESSION;
    }
}

/* The ratio's delete-one jackknife variance (Cochran 6.17; Wolter,
 * Introduction to Variance Estimation, ch. 4) beside its linearised one:
 * per ratio fit group, over its strata of two or more samples, each sample
 * left out in turn (the stratum's others reweighted N_h / (n_h - 1)) and
 * the group's estimate R X computed again; V_J = sum_h (1 - f_h) (n_h - 1)
 * / n_h sum_j (Y_(hj) - mean_h)^2, its one-sample strata as linearised.
 * The linearisation leaves out the ratio's own estimation, which with a few
 * samples per stratum the jackknife sees; what it finds beyond the
 * linearised variance of the same strata's residuals is added. */
static double jackknife_excess(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                               const work *w)
{
    if (plan->with_replacement)
        return 0;
    long double excess = 0;
    for (size_t f = 0; f < w->fits; f++) {
        const fit_group *g = &w->g[f];
        if (g->used != KS_ESTIMATOR_RATIO)
            continue;
        long double vj = 0, vlin_multi = 0;
        for (size_t c = 0; c < plan->cluster_count; c++) {
            size_t lo = w->start[c], hi = w->start[c + 1], n = hi - lo;
            if (w->fit_of[c] != f || n < 2)
                continue;
            const ks_cluster *cl = &plan->clusters[c];
            double N = (double)cl->size, fpc = 1 - (double)n / N;
            if (!(fpc > 0))
                continue;
            long double sy = 0, sx = 0;
            for (size_t j = lo; j < hi; j++) {
                sy += y[w->order[j]];
                sx += aux->x[w->order[j]];
            }
            long double base_y = g->wy - N / (double)n * sy, base_x = g->wx - N / (double)n * sx;
            long double sum = 0, sq = 0;
            for (size_t j = lo; j < hi; j++) {
                size_t i = w->order[j];
                long double wy = base_y + N / (double)(n - 1) * (sy - y[i]);
                long double wx = base_x + N / (double)(n - 1) * (sx - aux->x[i]);
                long double est = wx > 0 ? wy / wx * g->X : 0;
                sum += est;
                sq += est * est;
            }
            long double mean = sum / n;
            vj += fpc * (n - 1) / (long double)n * (sq - n * mean * mean);
            /* what the linearised variance gives these strata from their
             * own residuals (before any floor) */
            long double rm = 0, rs = 0;
            for (size_t j = lo; j < hi; j++)
                rm += w->d_ratio[w->order[j]];
            rm /= n;
            for (size_t j = lo; j < hi; j++) {
                long double d = w->d_ratio[w->order[j]] - rm;
                rs += d * d;
            }
            vlin_multi += (long double)N * N * fpc * (rs / (n - 1)) / n;
        }
        if (vj > vlin_multi)
            excess += vj - vlin_multi;
    }
    return (double)excess;
}

static ks_status estimate(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                          ks_estimator estimator, ks_estimator_fit fit, ks_single_mode single,
                          ks_aux_estimate *out, double *residual, double *gweight,
                          bool *cluster_residual, work *w, ks_error *err)
{
    /* the calibrated model is the plain estimator's: these estimators'
     * residuals, and the values of their fit groups that fall back to
     * plain, keep the collapsed rule */
    bool calibrated = ks_single_mode_of(plan, single) == KS_SINGLE_CALIBRATE;
    if (calibrated)
        single = KS_SINGLE_COLLAPSE;
    ks_status st = work_init(plan, fit, w, err);
    if (st == KS_OK)
        st = fit_all(plan, y, aux, w, err);
    if (st != KS_OK)
        return st;
    ratio_bias(plan, y, aux, w);
    if ((st = contributions(plan, y, y, single, w, 0, err)) != KS_OK ||
        (st = contributions(plan, w->d_ratio, y, single, w, 1, err)) != KS_OK ||
        (st = contributions(plan, w->d_line, y, single, w, 2, err)) != KS_OK)
        return st;
    out->fits = w->fits;
    choose(estimator, w, out);
    /* the plain estimator, for the record */
    st = ks_plan_total_variance(plan, y, single, &out->plain_estimate, &out->plain_variance,
                                &out->plain_df, NULL, err);
    if (st != KS_OK)
        return st;
    /* per fit group: the estimate and the g-weights */
    long double total = 0, bias = 0, vslope = 0;
    size_t slopes = 0;
    for (size_t f = 0; f < w->fits; f++) {
        fit_group *g = &w->g[f];
        if (g->used == KS_ESTIMATOR_RATIO) {
            long double rel = g->bias_num / (g->wx * g->wx);
            long double rc = g->R * (1 - rel);
            total += rc * g->X;
            bias += (g->R - rc) * g->X;
        } else if (g->used == KS_ESTIMATOR_REGRESSION) {
            total += g->wy + g->a * (g->N - g->w) + g->b * (g->X - g->wx);
            vslope += (g->X - g->wx) * (g->X - g->wx) * g->vb;
            slopes++;
        } else {
            total += g->wy;
        }
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        const fit_group *g = &w->g[w->fit_of[plan->samples[i].cluster]];
        double r = y[i], gw = 1;
        if (g->used == KS_ESTIMATOR_RATIO) {
            r = w->d_ratio[i];
            gw = (double)((1 - g->bias_num / (g->wx * g->wx)) * g->X / g->wx);
        } else if (g->used == KS_ESTIMATOR_REGRESSION) {
            r = w->d_line[i];
            long double xm = g->wx / g->w, dn = g->N - g->w, dx = g->X - g->wx;
            gw = (double)(1 + dn / g->w + (dx - xm * dn) * (aux->x[i] - xm) / g->sxx);
        }
        w->d_ratio[i] = r; /* the residual the variance is made of */
        if (residual)
            residual[i] = r;
        if (gweight)
            gweight[i] = gw;
    }
    out->estimate = (double)total;
    out->bias = (double)bias;
    bool *mask = cluster_residual;
    if (!mask && !(mask = malloc((plan->cluster_count + 1) * sizeof *mask)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t c = 0; c < plan->cluster_count; c++)
        mask[c] = w->g[w->fit_of[c]].used != KS_ESTIMATOR_PLAIN;
    ks_variance vr;
    st = ks_stratified_variance_ex(plan, w->d_ratio, y, NULL, mask, single, &vr, err);
    out->variance = vr.variance;
    out->df = vr.df;
    out->single_strata = vr.single;
    out->unmeasured = vr.unmeasured;
    if (mask != cluster_residual)
        free(mask);
    if (st == KS_OK)
        out->variance += jackknife_excess(plan, y, aux, w);
    /* the groups' departures, squared as one (their biases share a sign
     * where the profile misleads them alike), or group by group, the
     * larger, beyond what the differences' variances explain */
    long double dsum = 0, vsum = 0, esum = 0;
    for (size_t f = 0; f < w->fits; f++) {
        dsum += w->g[f].depart;
        vsum += w->g[f].depart_var;
        esum += departure_excess(w->g[f].depart, w->g[f].depart_var);
    }
    if (st == KS_OK)
        out->variance += (double)fmaxl(esum, departure_excess(dsum, vsum));
    /* one degree of freedom per fitted slope, and the slopes' own
     * uncertainty (b - B)(X - X^), which the linearisation leaves out */
    if (st == KS_OK && slopes) {
        if (isfinite(out->df))
            out->df = out->df - (double)slopes > 1 ? out->df - (double)slopes : 1;
        out->variance += (double)vslope;
    }
    /* A refined calibrated plan: its strata of two launches give these
     * estimators' residuals one degree of freedom each, and refine stopped
     * where they came out low; on the synthetic set's time profile their
     * intervals covered 80-90 %.  Such an interval is never narrower than
     * the plain estimator's under the plan's own (calibrated) model. */
    if (st == KS_OK && calibrated && ks_plan_refined(plan)) {
        double e;
        ks_variance cv;
        st = ks_total_variance_x(plan, y, NULL, KS_SINGLE_CALIBRATE, &e, &cv, err);
        if (st == KS_OK && cv.variance > out->variance) {
            out->variance = cv.variance;
            out->df = cv.df < out->df ? cv.df : out->df;
        }
    }
    return st;
}

ks_status ks_plan_aux_estimate(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                               ks_estimator estimator, ks_estimator_fit fit,
                               ks_single_mode single, ks_aux_estimate *out, double *residual,
                               double *gweight, ks_error *err)
{
    return ks_aux_estimate_masked(plan, y, aux, estimator, fit, single, out, residual, gweight,
                                  NULL, err);
}

ks_status ks_aux_estimate_masked(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                                 ks_estimator estimator, ks_estimator_fit fit,
                                 ks_single_mode single, ks_aux_estimate *out, double *residual,
                                 double *gweight, bool *cluster_residual, ks_error *err)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)estimator > KS_ESTIMATOR_AUTO || (unsigned)fit > KS_FIT_ALL)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "unknown estimator or fit");
    if (!aux || !aux->x || !aux->total)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "the %s estimator needs the auxiliary variable's values",
                            ks_estimator_name(estimator));
    work w;
    ks_status st =
        estimate(plan, y, aux, estimator, fit, single, out, residual, gweight, cluster_residual,
                 &w, err);
    work_free(&w);
    if (st != KS_OK || estimator != KS_ESTIMATOR_AUTO)
        return st;
    /* auto: per group the least variance, but no line whose slopes' df,
     * charged to the whole estimate, cost it half its degrees of freedom:
     * per group a line's variance can be the least while the interval
     * comes out wider than either estimator's throughout (+-88 % beside
     * plain's +-21 % and ratio's +-22 %), t at one or two df.  (Taking
     * whichever candidate's interval is narrowest on the very samples
     * favours the one that looks narrow by chance: refined two-phase plans
     * then covered 91.5 %.) */
    if (!out->regression)
        return st;
    static const ks_estimator whole[] = {AUTO_NO_LINES};
    size_t n = plan->sample_count + 1, k = plan->cluster_count + 1;
    double *r2 = residual ? malloc(n * sizeof *r2) : NULL;
    double *g2 = gweight ? malloc(n * sizeof *g2) : NULL;
    bool *m2 = cluster_residual ? malloc(k * sizeof *m2) : NULL;
    if ((residual && !r2) || (gweight && !g2) || (cluster_residual && !m2)) {
        KS_FREE(r2, g2, m2);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < sizeof whole / sizeof whole[0] && st == KS_OK; i++) {
        ks_aux_estimate alt;
        memset(&alt, 0, sizeof alt);
        st = estimate(plan, y, aux, whole[i], fit, single, &alt, r2, g2, m2, &w, err);
        work_free(&w);
        if (st == KS_OK && out->df < alt.df / 2) {
            *out = alt;
            if (residual)
                memcpy(residual, r2, (n - 1) * sizeof *r2);
            if (gweight)
                memcpy(gweight, g2, (n - 1) * sizeof *g2);
            if (cluster_residual)
                memcpy(cluster_residual, m2, (k - 1) * sizeof *m2);
        }
    }
    KS_FREE(r2, g2, m2);
    return st;
}

/* ------------------------------------------------- from the plan's profile */

ks_status ks_plan_auxiliary(const ks_plan *plan, const ks_profile *p, const char *metric,
                            double *x, double *x_total, ks_error *err)
{
    const double *col = NULL;
    bool duration = !metric || strcmp(metric, "duration") == 0 ||
                    strcmp(metric, "duration_ns") == 0;
    if (!duration) {
        const ks_metric_column *mc = ks_profile_find_metric(p, metric);
        if (!mc)
            return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                                "the profile has no column '%s' for the auxiliary variable",
                                metric);
        col = mc->values;
    }
    ks_status st = ks_plan_profile_check(plan, p, err);
    if (st != KS_OK)
        return st;
    for (size_t i = 0; i < plan->sample_count; i++) {
        uint64_t id = plan->samples[i].id;
        x[i] = col ? col[id] : (double)p->duration_ns[id];
        if (!isfinite(x[i]))
            return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                "launch %llu has no value of %s", (unsigned long long)id,
                                metric);
    }
    if (duration) {
        /* the plan's own cluster statistics are of these durations */
        for (size_t c = 0; c < plan->cluster_count; c++) {
            const ks_cluster *cl = &plan->clusters[c];
            x_total[c] = (double)cl->size * cl->mean_ns;
        }
        return KS_OK;
    }
    size_t *start;
    uint32_t *ids;
    st = ks_plan_members(plan, p, &start, &ids, err);
    for (size_t c = 0; st == KS_OK && c < plan->cluster_count; c++) {
        long double s = 0;
        for (size_t j = start[c]; j < start[c + 1]; j++) {
            double v = col ? col[ids[j]] : (double)p->duration_ns[ids[j]];
            if (!isfinite(v)) {
                st = ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                  "launch %u has no value of %s", ids[j], metric);
                break;
            }
            s += v;
        }
        x_total[c] = (double)s;
    }
    free(start);
    free(ids);
    return st;
}
