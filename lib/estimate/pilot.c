/*
 * pilot.c - a cold-start correction measured on a pilot.
 *
 * When every sampled launch was simulated alone (from cold caches) and a few
 * of them were also simulated warm (after a warm-up, or inside a longer
 * stretch of the program), the ratio warm / cold of those few corrects the
 * rest: per kernel group g (the plan's grouping key), r_g = sum warm / sum
 * cold over the group's pilot launches, and the estimate is
 * sum_g r_g * Y_g with Y_g the group's stratified estimate from the cold
 * values: a ratio estimator (Cochran, Sampling Techniques, ch. 6) with the
 * cold value as auxiliary variable.  A group without a pilot launch takes
 * the ratio of all pilot launches together.
 *
 * Variance: the sampling part is the stratified variance of the corrected
 * values r_g * y_i (every sample of a group scaled alike); the correction's
 * part, sum_g Y_g^2 Var(r_g), uses Var(r_g) / r_g^2 = S_rel^2 / k_g, where
 * S_rel^2 is the spread of the per-launch ratios about their group's ratio,
 * pooled over the groups with two or more pilot launches (k_g - 1 degrees of
 * freedom each), or, when none has two, the spread about the pooled ratio
 * over every pilot launch (which counts the groups' differences as noise:
 * conservative).  A group that takes the pooled ratio gets its variance with
 * k = all pilot launches, plus that between-group spread.  The two parts are
 * added and their degrees of freedom combined by Satterthwaite's rule.  The
 * ratio estimator's bias is O(1/k); with a pilot of one or two launches per
 * group it is small against the cold-start bias it removes (3-230 % in the
 * measurements, docs/bench.md), and the interval says how sure it is.
 */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ks_status ks_plan_pilot_corrected(const ks_plan *plan, const double *y, const double *warm,
                                  ks_single_mode single, ks_pilot_estimate *out, ks_error *err)
{
    return ks_plan_pilot_corrected_aux(plan, y, warm, NULL, KS_ESTIMATOR_PLAIN, KS_FIT_KERNEL,
                                       single, out, NULL, err);
}

/* With an auxiliary estimator, the corrected values r_g y_i go through it:
 * a group's part is sum g_i w_i r_g y_i (the estimator's g-weights), and the
 * sampling variance is the estimator's. */
ks_status ks_plan_pilot_corrected_aux(const ks_plan *plan, const double *y, const double *warm,
                                      const ks_auxiliary *aux, ks_estimator estimator,
                                      ks_estimator_fit fit, ks_single_mode single,
                                      ks_pilot_estimate *out, ks_aux_estimate *aux_out,
                                      ks_error *err)
{
    return ks_pilot_corrected_ex(plan, y, warm, NULL, aux, estimator, fit, single, out, aux_out,
                                 err);
}

ks_status ks_plan_first_launches(const ks_plan *plan, const ks_profile *p, bool *first,
                                 ks_error *err)
{
    ks_groups g;
    ks_status st = ks_plan_profile_groups(plan, p, &g, err);
    if (st != KS_OK)
        return st;
    uint64_t *head = malloc((g.count + 1) * sizeof *head);
    if (!head) {
        ks_groups_free(&g);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < g.count; k++)
        head[k] = UINT64_MAX;
    for (size_t i = p->n; i-- > 0;)
        head[g.group_of[i]] = i;
    for (size_t i = 0; i < plan->sample_count; i++) {
        uint64_t id = plan->samples[i].id;
        first[i] = id < p->n && head[g.group_of[id]] == id;
    }
    free(head);
    ks_groups_free(&g);
    return KS_OK;
}

/* A sample whose launch is the first of its kernel is cold in the full run
 * as well (MacSim: 3,518 cycles against 884-1,091 for the kernel's later
 * launches; Accel-Sim's first launch has exactly its alone cycles): its warm
 * / cold ratio is 1 whatever the warm-up does to the others, so it takes no
 * part in its group's correction, and its value is left as it is. */
ks_status ks_pilot_corrected_ex(const ks_plan *plan, const double *y, const double *warm,
                                const bool *cold, const ks_auxiliary *aux,
                                ks_estimator estimator, ks_estimator_fit fit,
                                ks_single_mode single, ks_pilot_estimate *out,
                                ks_aux_estimate *aux_out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = plan->sample_count, g_count = plan->group_count ? plan->group_count : 1;
    size_t *taken = calloc(g_count, sizeof *taken);
    double *sum_w = calloc(g_count, sizeof *sum_w), *sum_y = calloc(g_count, sizeof *sum_y);
    double *part = calloc(g_count, sizeof *part), *ratio = calloc(g_count, sizeof *ratio);
    double *yc = malloc((n ? n : 1) * sizeof *yc);
    double *gw = malloc((n ? n : 1) * sizeof *gw);
    if (!taken || !sum_w || !sum_y || !part || !ratio || !yc || !gw) {
        KS_FREE(taken, sum_w, sum_y, part, ratio, yc, gw);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    double all_w = 0, all_y = 0;
    size_t pilot = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(warm[i]) || (cold && cold[i]))
            continue;
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < g_count ? g : 0;
        taken[g]++;
        sum_w[g] += warm[i];
        sum_y[g] += y[i];
        all_w += warm[i];
        all_y += y[i];
        pilot++;
    }
    ks_status st = KS_OK;
    if (pilot < 2 || !(all_y > 0))
        st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                          "the pilot has %zu sampled launch%s with a warm and a positive cold "
                          "value; its own uncertainty needs two or more",
                          pilot, pilot == 1 ? "" : "es");
    double pooled = all_y > 0 ? all_w / all_y : 1;
    for (size_t g = 0; g < g_count; g++)
        ratio[g] = taken[g] && sum_y[g] > 0 ? sum_w[g] / sum_y[g] : pooled;
    /* spread of the per-launch ratios about their group's */
    double ss = 0, df = 0;
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < g_count ? g : 0;
        if (isnan(warm[i]) || (cold && cold[i]) || taken[g] < 2 || !(y[i] > 0))
            continue;
        double d = warm[i] / y[i] / ratio[g] - 1;
        ss += d * d;
    }
    for (size_t g = 0; g < g_count; g++)
        df += taken[g] >= 2 ? (double)taken[g] - 1 : 0;
    double within = df > 0 ? ss / df : NAN;
    /* about the pooled ratio, over every pilot launch */
    double ss_all = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(warm[i]) && !(cold && cold[i]) && y[i] > 0) {
            double d = warm[i] / y[i] / pooled - 1;
            ss_all += d * d;
        }
    double between = pilot > 1 ? ss_all / (double)(pilot - 1) : 0;
    if (isnan(within)) {
        within = between;
        df = pilot > 1 ? (double)pilot - 1 : 0;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < g_count ? g : 0;
        yc[i] = cold && cold[i] ? y[i] : y[i] * ratio[g];
        gw[i] = 1;
    }
    double v_sampling = 0, df_sampling = INFINITY;
    if (st == KS_OK && aux && estimator != KS_ESTIMATOR_PLAIN) {
        ks_aux_estimate ae;
        st = ks_plan_aux_estimate(plan, yc, aux, estimator, fit, single, &ae, NULL, gw, err);
        out->estimate = ae.estimate;
        v_sampling = ae.variance;
        df_sampling = ae.df;
        out->single_strata = ae.single_strata;
        out->unmeasured = ae.unmeasured;
        if (aux_out)
            *aux_out = ae;
    } else if (st == KS_OK) {
        ks_variance vr;
        /* the correction scales each kernel group by a ratio measured on a
         * few launches, whose error the calibrated factor, measured on the
         * corrected values, would count once more as spread: corrected
         * values keep the collapsed rule, as the ratio estimators do
         * (planned on the RTX 3070's cycles, QV100 alone values corrected
         * by their full run's: "met" true in 86 % of 21 plans with it) */
        if (ks_single_mode_of(plan, single) == KS_SINGLE_CALIBRATE)
            single = KS_SINGLE_COLLAPSE;
        st = ks_total_variance_ex(plan, yc, single, &out->estimate, &vr, err);
        v_sampling = vr.variance;
        df_sampling = vr.df;
        out->single_strata = vr.single;
        out->unmeasured = vr.unmeasured;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < g_count ? g : 0;
        if (!(cold && cold[i]))
            part[g] += gw[i] * plan->samples[i].weight * yc[i];
    }
    if (st == KS_OK) {
        double v_ratio = 0;
        for (size_t g = 0; g < g_count; g++) {
            if (part[g] == 0)
                continue;
            double rel = taken[g] ? within / (double)taken[g]
                                  : (within + between) / (double)pilot;
            v_ratio += part[g] * part[g] * rel;
            out->groups_without_pilot += taken[g] == 0;
        }
        out->variance = v_sampling + v_ratio;
        double denom = (isfinite(df_sampling) && df_sampling > 0
                            ? v_sampling * v_sampling / df_sampling
                            : 0) +
                       (df > 0 ? v_ratio * v_ratio / df : 0);
        out->df = denom > 0 ? out->variance * out->variance / denom : INFINITY;
        out->pilot = pilot;
        out->ratio = pooled;
        out->ratio_rel_sd = sqrt(within > 0 ? within : 0);
    }
    KS_FREE(taken, sum_w, sum_y, part, ratio, yc, gw);
    return st;
}

ks_status ks_pilot_check(const ks_plan *plan, const ks_results *pilot, ks_error *err)
{
    for (size_t i = 0; i < pilot->row_count; i++)
        if (!ks_plan_has_sample(plan, pilot->ids[i]))
            return ks_error_set(err, KS_ERR_FORMAT, pilot->sources[pilot->source[i]],
                                pilot->source_line[i],
                                "pilot launch id %llu is not one of the plan's samples: the "
                                "correction compares a sample's warm value with its cold one",
                                (unsigned long long)pilot->ids[i]);
    if (pilot->row_count < 2)
        return ks_error_set(err, KS_ERR_FORMAT,
                            pilot->source_count ? pilot->sources[0] : NULL, 0,
                            "the pilot gives %zu launch%s; the cold-start correction needs "
                            "two or more",
                            pilot->row_count, pilot->row_count == 1 ? "" : "es");
    return KS_OK;
}
