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
                    * spread (a collapsed pair; cluster_count: the pooled
                    * spread), so their errors move together */
    bool census;
    bool single;
} ks_stratum_spread;

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

/* V of sum_h N_h mean_h(v) and its Satterthwaite degrees of freedom (df may
 * be NULL): the strata's spreads by ks_strata_spread, strata whose spread
 * has one source counted together. */
ks_status ks_stratified_variance(const ks_plan *plan, const double *v, const double *scale,
                                 const bool *residual, ks_single_mode mode, double *variance,
                                 double *df, size_t *single, ks_error *err);

/* ks_plan_aux_estimate, and per cluster whether its residuals are about a
 * ratio or line (cluster_residual, may be NULL): what the variance used. */
ks_status ks_aux_estimate_masked(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                                 ks_estimator estimator, ks_estimator_fit fit,
                                 ks_single_mode single, ks_aux_estimate *out, double *residual,
                                 double *gweight, bool *cluster_residual, ks_error *err);

/* The launches of each plan cluster, recovered from the plan's profile:
 * ids[start[c] .. start[c+1]) (refine.c).  Members of cluster c are the
 * launches of its kernel group (or of any kernel of its pool) whose
 * duration lies in [min_ns, max_ns]; overlapping ranges or counts that
 * are not the clusters' sizes refuse the profile. */
ks_status ks_plan_members(const ks_plan *plan, const ks_profile *p, size_t **start,
                          uint32_t **ids, ks_error *err);

#endif
