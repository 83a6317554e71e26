/*
 * estimate.h - the estimators (internal): the auxiliary-variable
 * estimators, the pilot's correction and refine's sizing, over the one
 * variance model (lib/variance/variance.h).
 */
#ifndef KS_ESTIMATE_H
#define KS_ESTIMATE_H

#include "internal.h"
#include "variance.h"

/* The interval of a non-negative quantity x (a total, or a ratio of two
 * totals) whose variance has df degrees of freedom, at the confidence: x
 * +- t sqrt(variance), starting at 0 at the lowest; its relative
 * half-width (none for a zero x: NAN for 0 +- 0, INFINITY for 0 +- more);
 * bound_met whether that is within bound, -1 without a bound (bound <= 0).
 * A NAN relative half-width (a zero x's) is a bound not met (0) when
 * nan_unmet, else no bound (-1).  Where claim is KS_CLAIM_NONE there is
 * no interval: low, high and rel_halfwidth NAN, bound_met -1. */
typedef struct ks_interval {
    double low, high, rel_halfwidth;
    int bound_met;
} ks_interval;
ks_interval ks_interval_of(double x, double variance, double df, int claim, double confidence,
                           double bound, bool nan_unmet);

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

/* KS_OK when p has the plan's launch count (the plan's profile may be
 * the one it was drawn from), else the error naming p (members.c). */
ks_status ks_plan_profile_check(const ks_plan *plan, const ks_profile *p, ks_error *err);
/* That check, then p's kernel groups by the plan's key (ks_groups_build). */
ks_status ks_plan_profile_groups(const ks_plan *plan, const ks_profile *p, ks_groups *g,
                                 ks_error *err);

/* The launches of each plan cluster, recovered from the plan's profile:
 * ids[start[c] .. start[c+1]) (refine.c).  Members of cluster c are the
 * launches of its kernel group (or of any kernel of its pool) whose
 * duration lies in [min_ns, max_ns]; overlapping ranges or counts that
 * are not the clusters' sizes refuse the profile. */
ks_status ks_plan_members(const ks_plan *plan, const ks_profile *p, size_t **start,
                          uint32_t **ids, ks_error *err);

#endif
