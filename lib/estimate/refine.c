/*
 * refine.c - more samples when the simulator's values vary more than the
 * profile predicted.
 *
 * The allocation is STEM's KKT (minimise sum m_h mu_h, mu_h the profiled
 * mean duration: the simulation cost) with the observed s_h^2 of the
 * simulated metric in place of the profile's, and with the finite-population
 * term kept: V = sum N_h^2 S_h^2 / m_h - sum N_h S_h^2 <= (eps Y_hat / z)^2,
 * so c = (eps Y_hat / z)^2 + sum N_h S_h^2.  Every simulated sample is kept
 * (a stratum never shrinks); only the extra m_h' - m_h launches are drawn,
 * without replacement, from the members not drawn yet.  Cluster members are
 * the launches of the cluster's kernel group whose duration lies in its
 * [min, max] range; ranges of one group must not overlap, and the count
 * must be the cluster's size, or the profile is not the plan's.
 */
#include "estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Members of each cluster (members.c). */
typedef struct members {
    size_t *start; /* launches of cluster c: ids[start[c] .. start[c+1]) */
    uint32_t *ids;
} members;

/* KKT sizes under box constraints have_h <= m_h <= N_h: minimise
 * sum a_h m_h subject to sum_h b_h / m_h <= D (b_h = N_h^2 S_h^2,
 * D = B^2 + sum_h N_h S_h^2, i.e. V <= B^2 with the finite-population
 * term).  The free strata get m_h = (sum_free sqrt(a b) / D') sqrt(b_h / a_h)
 * with D' what the fixed ones leave of D; a stratum the formula puts above
 * its whole cluster is fixed at N_h (a census: its variance is gone, and
 * the others must make up what it could not take), one below what it
 * already has at have_h; then the rest is solved again, until nothing
 * moves.  Without the re-solve a capped stratum's share of the variance
 * was simply lost and the sizes missed the bound they printed. */
static void solve_capped(size_t k, const double *a, const double *b, const double *N,
                         const double *have, long double budget, bool *fixed, double *m)
{
    for (;;) {
        long double d = budget, sum_ab = 0;
        size_t free_count = 0;
        for (size_t c = 0; c < k; c++) {
            if (fixed[c])
                d -= b[c] > 0 ? b[c] / m[c] : 0;
            else {
                sum_ab += sqrtl((long double)a[c] * b[c]);
                free_count++;
            }
        }
        if (free_count == 0)
            return;
        if (!(d > 0)) { /* nothing left: every stratum still free is taken whole */
            for (size_t c = 0; c < k; c++)
                if (!fixed[c])
                    fixed[c] = true, m[c] = N[c];
            return;
        }
        bool moved = false;
        for (size_t c = 0; c < k; c++)
            if (!fixed[c]) {
                m[c] = (double)(sum_ab / d) * sqrt(b[c] / a[c]);
                if (m[c] >= N[c])
                    fixed[c] = true, m[c] = N[c], moved = true;
            }
        if (moved)
            continue;
        for (size_t c = 0; c < k; c++)
            if (!fixed[c] && m[c] < have[c])
                fixed[c] = true, m[c] = have[c], moved = true;
        if (!moved)
            return;
    }
}

/* Sizes for a quantile t (refine's KKT at V <= (eps Y / t)^2) into m_new,
 * and the quantile they predict for themselves: the Satterthwaite df the
 * estimate will have, a stratum that grows with its own spread at m - 1 df,
 * the others as now, strata of one source together. */
typedef struct size_ctx {
    const ks_plan *plan;
    const ks_stratum_spread *sp;
    const double *a, *b, *N, *have;
    double *m;
    bool *fixed;
    const bool *fixed0;
    const double *m0;
    long double *by_source;
    double *df_source;
    uint64_t *m_new;
    double *m_real;
    double eps;
    long double total, fpc;
    long double v_new;
    double df_new;
    bool census;
    /* what the estimator's variance has beyond its residuals' stratified
     * variance (the ratio's jackknife excess, the lines' slopes), as a
     * share of that variance, which it is taken to shrink with; and the
     * degrees of freedom its fitted slopes cost the interval */
    double extra_share;
    double slopes;
} size_ctx;

static double size_at(size_ctx *x, double t)
{
    const ks_plan *plan = x->plan;
    size_t k = plan->cluster_count;
    for (size_t c = 0; c < k; c++) {
        x->fixed[c] = x->fixed0[c];
        x->m[c] = x->m0[c];
    }
    long double bound = x->eps * x->total / t;
    solve_capped(k, x->a, x->b, x->N, x->have, bound * bound / (1 + x->extra_share) + x->fpc,
                 x->fixed, x->m);
    long double v_new = 0, den = 0;
    bool census = true;
    size_t sources = KS_SPREAD_SOURCES(plan);
    for (size_t c = 0; c < sources; c++) {
        x->by_source[c] = 0;
        x->df_source[c] = INFINITY;
    }
    for (size_t c = 0; c < k; c++) {
        const ks_cluster *cl = &plan->clusters[c];
        const ks_stratum_spread *sp = &x->sp[c];
        x->m_real[c] = x->m[c];
        uint64_t mc = sp->census ? cl->size : ks_round_sample_size(x->m[c], cl->size);
        uint64_t h = (uint64_t)sp->n;
        x->m_new[c] = mc > h ? mc : h;
        census = census && x->m_new[c] >= cl->size;
        double b = x->b[c], N = x->N[c];
        if (x->m_new[c] > 0 && x->m_new[c] < cl->size && b > 0) {
            long double vh = (long double)b / x->m_new[c] - (long double)N * (b / (N * N));
            v_new += vh;
            if (x->m_new[c] > h && x->m_new[c] >= 2) {
                den += vh * vh / ks_df_heavy((double)x->m_new[c] - 1, sp->kurtosis);
            } else if (isfinite(sp->df) && sp->df > 0) {
                size_t src = sp->source < sources ? sp->source : c;
                x->by_source[src] += vh;
                x->df_source[src] = fmin(x->df_source[src], sp->df);
            }
        }
    }
    for (size_t c = 0; c < sources; c++)
        if (x->by_source[c] > 0)
            den += x->by_source[c] * x->by_source[c] / x->df_source[c];
    x->v_new = v_new * (1 + x->extra_share);
    x->census = census;
    x->df_new = ks_spread_interval_df(x->sp, k, den > 0 ? (double)(v_new * v_new / den) : INFINITY);
    /* one degree of freedom per fitted slope, as the estimate charges */
    if (x->slopes > 0 && isfinite(x->df_new))
        x->df_new = x->df_new - x->slopes > 1 ? x->df_new - x->slopes : 1;
    return ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, x->df_new);
}

static ks_status allocate(const ks_plan *plan, const double *y, const double *x,
                          const ks_refine_options *opt,
                          double eps, uint64_t *m_new, double *m_real, ks_refine_result *res,
                          ks_error *err)
{
    size_t k = plan->cluster_count;
    ks_stratum_spread *sp = malloc((k + 1) * sizeof *sp);
    double *a = malloc((k + 1) * sizeof *a), *b = malloc((k + 1) * sizeof *b);
    double *N = malloc((k + 1) * sizeof *N), *have = malloc((k + 1) * sizeof *have);
    double *m = malloc((k + 1) * sizeof *m);
    bool *fixed = malloc((k + 1) * sizeof *fixed);
    ks_status st = KS_OK;
    if (!sp || !a || !b || !N || !have || !m || !fixed)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    /* the spread the estimate will have: of y, or of the estimator's
     * residuals about its ratios or lines */
    double *v = NULL;
    bool *mask = NULL;
    long double total = 0, fpc = 0;
    bool aux = opt->estimator != KS_ESTIMATOR_PLAIN;
    ks_aux_estimate ae;
    if (st == KS_OK && aux) {
        if (!opt->aux)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "sizing for the %s estimator needs the auxiliary variable",
                              ks_estimator_name(opt->estimator));
        else if (!(v = malloc((plan->sample_count + 1) * sizeof *v)) ||
                 !(mask = malloc((k + 1) * sizeof *mask)))
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        else
            st = ks_aux_estimate_masked(plan, y, opt->aux, opt->estimator, opt->fit,
                                        opt->single, &ae, v, NULL, mask, err);
        if (st == KS_OK)
            total = ae.estimate;
    }
    /* the model the estimator uses (auxiliary.c: the calibrated one is the
     * plain estimator's) */
    ks_single_mode single =
        aux && ks_single_mode_of(plan, opt->single) == KS_SINGLE_CALIBRATE ? KS_SINGLE_COLLAPSE
                                                                            : opt->single;
    if (st == KS_OK)
        st = ks_strata_spread(plan, v ? v : y, y, x, mask, single, sp, NULL, err);
    /* the quantile the estimate uses now: t at its degrees of freedom (its
     * own Satterthwaite count, strata of one source together) */
    double var_now, df_now = INFINITY;
    ks_variance vnow = {0};
    if (st == KS_OK)
        st = ks_stratified_variance_ex(plan, v ? v : y, y, x, mask, single, &vnow, err);
    var_now = vnow.variance;
    df_now = vnow.df;
    free(v);
    free(mask);
    for (size_t c = 0; st == KS_OK && c < k; c++)
        N[c] = (double)plan->clusters[c].size;
    double t = ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, df_now);
    for (size_t i = 0; st == KS_OK && !aux && i < plan->sample_count; i++)
        total += plan->samples[i].weight * (long double)y[i];
    for (size_t c = 0; st == KS_OK && c < k; c++) {
        const ks_cluster *cl = &plan->clusters[c];
        double s2 = sp[c].census ? 0 : sp[c].s2;
        a[c] = cl->mean_ns > 0 ? cl->mean_ns : 1; /* a launch of no measured time
                                                   * still costs a simulation */
        b[c] = N[c] * N[c] * s2;
        have[c] = sp[c].n;
        fpc += N[c] * s2;
        /* a census, or no spread to reduce: it keeps what it has; a stratum
         * whose spread no simulated value measures takes another launch
         * (two at least), so that the next estimate may measure it */
        fixed[c] = sp[c].census || !(b[c] > 0) || sp[c].unmeasured;
        m[c] = sp[c].census      ? N[c]
               : sp[c].unmeasured ? fmin(N[c], fmax(have[c] + 1, 2))
                                  : have[c];
    }
    /* The quantile depends on the degrees of freedom the new sizes will
     * give, and they on it.  Sizing with the current t alone over-sized
     * every refine of a plan of one-sample strata (t at 2-3 df, the
     * estimate then at 20 or more). */
    long double v_new = 0;
    bool census = true;
    bool *fixed0 = malloc((k + 1) * sizeof *fixed0);
    double *m0 = malloc((k + 1) * sizeof *m0);
    long double *by_source = malloc(KS_SPREAD_SOURCES(plan) * sizeof *by_source);
    double *df_source = malloc(KS_SPREAD_SOURCES(plan) * sizeof *df_source);
    if (st == KS_OK && (!fixed0 || !m0 || !by_source || !df_source))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t c = 0; st == KS_OK && c < k; c++) {
        fixed0[c] = fixed[c];
        m0[c] = m[c];
    }
    /* The smallest quantile whose sizes need no larger one: t -> the
     * quantile t' the sizes solved at t predict for themselves falls as t
     * grows (more samples, more df), so {t : t' <= t} is [t*, inf) and t*
     * is found by bisection between the normal quantile and the current t
     * (doubled while even that is short).  Plain fixed-point iteration
     * oscillated between two sizes on some plans. */
    size_ctx sc = {plan, sp, a, b, N, have, m, fixed, fixed0, m0, by_source, df_source, m_new,
                   m_real, eps, total, fpc, 0, INFINITY, true, 0, 0};
    /* The auxiliary estimators' variance beyond the residuals' (see
     * size_ctx): with it left out, refine predicted a regression plan
     * within 5 % that its estimate put outside, added nothing, and the loop
     * stalled (refined regression met 5 % in 24-99.5 % of the plans). */
    if (st == KS_OK && aux) {
        sc.extra_share = var_now > 0 && ae.variance > var_now ? (ae.variance - var_now) / var_now
                                                              : 0;
        sc.slopes = (double)ae.regression;
    }
    /* the interval estimate prints now: the estimator's own variance (the
     * auxiliary estimators add the jackknife's excess and the slopes'), t
     * at its degrees of freedom */
    double vn = aux ? ae.variance : var_now, dfn = aux ? ae.df : df_now;
    double t_now = ks_student_t_quantile(1 - (1 - plan->params.confidence) / 2, dfn);
    double hn = t_now * sqrt(vn > 0 ? vn : 0);
    size_t unmeasured = aux ? ae.unmeasured : vnow.unmeasured;
    double now = unmeasured   ? INFINITY
                 : total != 0 ? hn / fabs((double)total)
                 : hn > 0     ? INFINITY
                              : 0;
    double lo = ks_normal_quantile(1 - (1 - plan->params.confidence) / 2), hi = t;
    double t_use = t;
    if (st == KS_OK && now <= eps * (1 + 1e-9)) {
        /* within the bound as it is: the plan keeps its launches (the
         * box-constrained solve below may still make a small, cheap stratum
         * a census at a bound this loose) and its interval is the one now */
        for (size_t c = 0; c < k; c++) {
            const ks_cluster *cl = &plan->clusters[c];
            uint64_t h = (uint64_t)sp[c].n, r = ks_round_sample_size(sp[c].n, cl->size);
            m_new[c] = sp[c].census ? cl->size : r > h ? r : h;
            m_real[c] = (double)m_new[c];
            census = census && m_new[c] >= cl->size;
        }
        v_new = vn;
        sc.df_new = dfn;
        t_use = t_now;
    } else if (st == KS_OK) {
        for (int i = 0; i < 40 && size_at(&sc, hi) > hi; i++)
            hi *= 2;
        if (size_at(&sc, lo) <= lo)
            hi = lo;
        for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; i++) {
            double mid = (lo + hi) / 2;
            if (size_at(&sc, mid) <= mid)
                hi = mid;
            else
                lo = mid;
        }
        t_use = size_at(&sc, hi); /* the sizes at hi, and their own quantile */
        v_new = sc.v_new;
        census = sc.census;
    }
    t = t_use; /* the quantile the sizes predict for themselves */
    KS_FREE(fixed0, m0, by_source, df_source);
    if (st == KS_OK && res) {
        double half = t * sqrt(v_new > 0 ? (double)v_new : 0);
        res->t = t;
        res->df = sc.df_new;
        res->variance = (double)v_new;
        res->estimate = (double)total;
        res->now_rel_halfwidth = now;
        res->census = census;
        res->rel_halfwidth = total != 0 ? half / fabs((double)total) : (half > 0 ? INFINITY : 0);
        /* within rounding of the bound: the sizes were solved for it exactly */
        res->met = res->rel_halfwidth <= eps * (1 + 1e-9);
    }
    free(sp);
    free(a);
    free(b);
    free(N);
    free(have);
    free(m);
    free(fixed);
    return st;
}

static ks_status draw_extra(const ks_plan *plan, const members *mem, const uint64_t *m_new,
                            uint64_t seed, ks_plan *out, ks_error *err)
{
    size_t k = plan->cluster_count;
    size_t *have = calloc(k + 1, sizeof *have);
    uint8_t *taken = calloc(plan->input_invocations / 8 + 1, 1);
    uint32_t *pool = malloc((plan->input_invocations + 1) * sizeof *pool);
    ks_status st = KS_OK;
    if (!have || !taken || !pool)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; st == KS_OK && i < plan->sample_count; i++) {
        const ks_sample *s = &plan->samples[i];
        have[s->cluster]++;
        taken[s->id / 8] |= (uint8_t)(1u << (s->id % 8));
        double w = (double)plan->clusters[s->cluster].size / (double)m_new[s->cluster];
        st = ks_plan_add_sample(out, s->id, w, s->cluster, err);
    }
    ks_rng rng;
    ks_rng_seed(&rng, seed);
    for (size_t c = 0; st == KS_OK && c < k; c++) {
        if (m_new[c] <= have[c])
            continue;
        size_t n = 0;
        for (size_t j = mem->start[c]; j < mem->start[c + 1]; j++) {
            uint32_t id = mem->ids[j];
            if (!(taken[id / 8] & (1u << (id % 8))))
                pool[n++] = id;
        }
        uint64_t extra = m_new[c] - have[c];
        double w = (double)plan->clusters[c].size / (double)m_new[c];
        /* partial Fisher-Yates: the first `extra` of a random permutation */
        for (uint64_t e = 0; e < extra && e < n && st == KS_OK; e++) {
            size_t r = (size_t)e + (size_t)ks_rng_below(&rng, n - e);
            uint32_t t = pool[e];
            pool[e] = pool[r];
            pool[r] = t;
            st = ks_plan_add_sample(out, pool[e], w, (uint32_t)c, err);
        }
    }
    free(have);
    free(taken);
    free(pool);
    return st;
}

static ks_status copy_header(const ks_plan *plan, ks_plan *out, ks_error *err)
{
    out->params = plan->params;
    memcpy(out->method, plan->method, sizeof out->method);
    out->z = plan->z;
    snprintf(out->bound_scope, sizeof out->bound_scope, "%s", plan->bound_scope);
    ks_plan_copy_unsimulated(plan, out); /* lib/plan/unsimulated.c */
    out->group_labels = calloc(plan->group_count + 1, sizeof *out->group_labels);
    if (!out->group_labels)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < plan->group_count; i++) {
        if (!(out->group_labels[i] = strdup(plan->group_labels[i])))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        out->group_count++;
    }
    if (plan->pool_rep) {
        out->pool_rep = malloc((plan->group_count + 1) * sizeof *out->pool_rep);
        if (!out->pool_rep)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        memcpy(out->pool_rep, plan->pool_rep, plan->group_count * sizeof *out->pool_rep);
    }
    return KS_OK;
}

static ks_status add_param(ks_plan *out, const char *name, const char *json, ks_error *err)
{
    size_t k = out->extra_param_count;
    char **names = realloc(out->extra_param_names, (k + 1) * sizeof *names);
    if (names)
        out->extra_param_names = names;
    char **values = names ? realloc(out->extra_param_values, (k + 1) * sizeof *values) : NULL;
    if (values)
        out->extra_param_values = values;
    if (!names || !values || !(names[k] = strdup(name)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (!(values[k] = strdup(json))) {
        free(names[k]);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    out->extra_param_count++;
    return KS_OK;
}

static ks_status record_refine(ks_plan *out, const ks_refine_options *opt, ks_error *err)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)opt->seed);
    ks_status st = add_param(out, "refine_seed", seed, err);
    if (st == KS_OK && opt->estimator != KS_ESTIMATOR_PLAIN) {
        char text[200];
        snprintf(text, sizeof text, "\"%s\"", ks_estimator_name(opt->estimator));
        st = add_param(out, "refine_estimator", text, err);
        snprintf(text, sizeof text, "\"%s\"", ks_estimator_fit_name(opt->fit));
        if (st == KS_OK)
            st = add_param(out, "refine_fit", text, err);
        char *json = NULL;
        size_t len = 0;
        FILE *f = st == KS_OK ? open_memstream(&json, &len) : NULL;
        if (f) {
            ks_json_write_string(f, opt->aux_name ? opt->aux_name : "duration");
            if (fclose(f) != 0) {
                free(json);
                json = NULL;
            }
        }
        if (st == KS_OK)
            st = json ? add_param(out, "refine_auxiliary", json, err)
                      : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        free(json);
    }
    if (st != KS_OK)
        return st;
    if (opt->parent_path) {
        snprintf(out->parent_path, sizeof out->parent_path, "%s", opt->parent_path);
        return ks_file_xxh128(opt->parent_path, out->parent_xxh128, err);
    }
    return KS_OK;
}

static ks_status refine(const ks_plan *plan, const ks_profile *p, const double *y,
                        const ks_refine_options *opt, ks_plan *out, uint64_t *m_new,
                        double *m_real, ks_error *err)
{
    double eps = opt->epsilon > 0 ? opt->epsilon : plan->bound;
    if (!(eps > 0 && eps < 1))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "the plan promises no bound: give --epsilon");
    if (plan->with_replacement)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "refine adds launches drawn without replacement; this %s plan "
                            "was drawn with replacement",
                            plan->method);
    members mem = {0};
    ks_refine_result local, *res = opt->result ? opt->result : &local;
    ks_status st = ks_plan_members(plan, p, &mem.start, &mem.ids, err);
    /* the profile's values at the samples, for the calibrated model */
    double *x = st == KS_OK ? ks_plan_sample_durations(plan, p) : NULL;
    if (st == KS_OK && !x)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK)
        st = allocate(plan, y, x, opt, eps, m_new, m_real, res, err);
    free(x);
    if (st == KS_OK)
        st = copy_header(plan, out, err);
    for (size_t c = 0; st == KS_OK && c < plan->cluster_count; c++) {
        ks_cluster cl = plan->clusters[c];
        cl.m = m_new[c];
        cl.m_real = m_real[c];
        st = ks_plan_add_cluster(out, &cl, NULL, err);
    }
    if (st == KS_OK)
        st = draw_extra(plan, &mem, m_new, opt->seed, out, err);
    free(mem.start);
    free(mem.ids);
    if (st == KS_OK)
        st = ks_plan_finish(out, p, err);
    if (st == KS_OK) {
        out->bound = eps;
        out->params.epsilon = plan->params.epsilon;
        /* its promise: the interval the sizes predict for themselves with
         * the spread of the values just simulated (the same model) */
        out->predicted = 1;
        out->predicted_variance = res->census ? 0 : res->variance;
        out->predicted_estimate = res->estimate;
        out->predicted_df = res->df;
        out->predicted_halfwidth = res->census ? 0 : res->rel_halfwidth;
        st = record_refine(out, opt, err);
        /* the design, and so the model, carry over to the refined plan */
        double rep = ks_plan_replicate(plan);
        if (st == KS_OK && rep > 0) {
            char text[32];
            snprintf(text, sizeof text, "%.17g", rep);
            st = add_param(out, "replicate", text, err);
        }
    }
    return st;
}

ks_status ks_plan_refine(const ks_plan *plan, const ks_profile *p, const double *y,
                         const ks_refine_options *opt, ks_plan *out, ks_error *err)
{
    ks_plan_init(out);
    size_t k = plan->cluster_count + 1;
    uint64_t *m_new = malloc(k * sizeof *m_new);
    double *m_real = malloc(k * sizeof *m_real);
    ks_status st = m_new && m_real ? refine(plan, p, y, opt, out, m_new, m_real, err)
                                   : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    free(m_new);
    free(m_real);
    if (st != KS_OK)
        ks_plan_free(out);
    return st;
}
