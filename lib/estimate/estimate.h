/*
 * estimate.h - the estimators (internal): the stratified variance model
 * every estimator uses, the auxiliary-variable estimators, the pilot's
 * correction and refine's sizing.
 */
#ifndef KS_ESTIMATE_H
#define KS_ESTIMATE_H

#include "internal.h"

/* Spread of a metric inside each plan cluster, as the estimate uses it:
 * V = sum_h N_h^2 fpc_h S_h^2 / n_h. */
typedef struct ks_stratum_spread {
    double n;   /* distinct samples, or draws when drawn with replacement */
    double s2;  /* S_h^2 (n-1 divisor); for a one-sample cluster, by the mode */
    double fpc; /* 1 - n/N without replacement, 1 with */
    double df;  /* degrees of freedom of s2; INFINITY when borrowed from
                 * the profile */
    size_t source; /* clusters with the same source share one estimate of
                    * spread, so their errors move together: a collapsed
                    * pair (a cluster's index), the plan's pooled spread
                    * (cluster_count) or a kernel group g's (cluster_count
                    * + 1 + g); KS_SPREAD_SOURCES(plan) in all */
    bool census;
    bool single;
    bool unmeasured; /* no simulated value measures its spread (the
                      * profile's CV stands in) */
    double kurtosis; /* excess kurtosis of its kernel group's values (0 when
                      * unknown or below 0): see ks_df_heavy */
} ks_stratum_spread;

/* The variance the plan predicted for values y at its samples: each
 * stratum's values spreading as its profiled durations do (the profile's
 * CV times the values' mean). */
double ks_profile_variance(const ks_plan *plan, const double *y);

/* The degrees of freedom of a sample variance on df of them from values of
 * this excess kurtosis (var s^2 / S^4 = 2 / df + kurtosis / (df + 1)). */
double ks_df_heavy(double df, double kurtosis);
/* The degrees of freedom an interval uses from a Satterthwaite count over
 * the strata (the one rule estimate and refine share: see variance.c). */
double ks_interval_df(double satterthwaite);

#define KS_SPREAD_SOURCES(plan) ((plan)->cluster_count + (plan)->group_count + 2)

/* Which clusters' v are residuals about a ratio or line to the profile
 * (per cluster; NULL: none, KS_RESIDUAL_ALL: all): a value's spread is held
 * to at least the profile's, a residual's is not. */
extern const bool ks_residual_all_flag;
#define KS_RESIDUAL_ALL (&ks_residual_all_flag)

/* v: values at the plan's samples; scale: what a one-sample cluster's
 * profile CV multiplies. */
ks_status ks_strata_spread(const ks_plan *plan, const double *v, const double *scale,
                           const bool *residual, ks_single_mode mode, ks_stratum_spread *out,
                           size_t *single, ks_error *err);

/* V of sum_h N_h mean_h(v) and its Satterthwaite degrees of freedom: the
 * strata's spreads by ks_strata_spread, strata whose spread has one source
 * counted together. */
typedef struct ks_variance {
    double variance, df;
    size_t single;     /* one-sample strata */
    size_t unmeasured; /* strata (of some weight) whose spread no simulated
                        * value measures */
} ks_variance;
ks_status ks_stratified_variance_ex(const ks_plan *plan, const double *v, const double *scale,
                                    const bool *residual, ks_single_mode mode, ks_variance *out,
                                    ks_error *err);
/* ks_plan_total_variance and ks_plan_ratio_variance with all of it. */
ks_status ks_total_variance_ex(const ks_plan *plan, const double *y, ks_single_mode mode,
                               double *estimate, ks_variance *out, ks_error *err);
ks_status ks_ratio_variance_ex(const ks_plan *plan, const double *y, const double *x,
                               ks_single_mode mode, double *ratio, ks_variance *out,
                               ks_error *err);
/* The same, parts of it (df, single may be NULL). */
ks_status ks_stratified_variance(const ks_plan *plan, const double *v, const double *scale,
                                 const bool *residual, ks_single_mode mode, double *variance,
                                 double *df, size_t *single, ks_error *err);

/* ks_plan_aux_estimate, and per cluster whether its residuals are about a
 * ratio or line (cluster_residual, may be NULL): what the variance used. */
ks_status ks_aux_estimate_masked(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                                 ks_estimator estimator, ks_estimator_fit fit,
                                 ks_single_mode single, ks_aux_estimate *out, double *residual,
                                 double *gweight, bool *cluster_residual, ks_error *err);

/* Per sample of the plan, whether its launch is the first of its kernel (the
 * plan's key) in the profile: cold in a full run as well. */
ks_status ks_plan_first_launches(const ks_plan *plan, const ks_profile *p, bool *first,
                                 ks_error *err);
/* ks_plan_pilot_corrected_aux; cold (per sample, may be NULL): launches cold
 * in the full run too (ks_plan_first_launches), left out of the pilot and
 * left as they are. */
ks_status ks_pilot_corrected_ex(const ks_plan *plan, const double *y, const double *warm,
                                const bool *cold, const ks_auxiliary *aux,
                                ks_estimator estimator, ks_estimator_fit fit,
                                ks_single_mode single, ks_pilot_estimate *out,
                                ks_aux_estimate *aux_out, ks_error *err);

/* The launches of each plan cluster, recovered from the plan's profile:
 * ids[start[c] .. start[c+1]) (refine.c).  Members of cluster c are the
 * launches of its kernel group (or of any kernel of its pool) whose
 * duration lies in [min_ns, max_ns]; overlapping ranges or counts that
 * are not the clusters' sizes refuse the profile. */
ks_status ks_plan_members(const ks_plan *plan, const ks_profile *p, size_t **start,
                          uint32_t **ids, ks_error *err);

#endif
