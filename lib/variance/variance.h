/*
 * variance.h - the one variance model (internal): each stratum's spread
 * with its one-sample rule and pooled floors, the Satterthwaite degrees of
 * freedom and the interval's t, the plain and ratio-of-totals forms, and the
 * interval a plan promises (ks_plan_predict).  Below the methods' pipeline,
 * which records every bounded plan's prediction, and below the estimators,
 * which print intervals from the same rules, and refine, which sizes by them.
 */
#ifndef KS_VARIANCE_H
#define KS_VARIANCE_H

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
    bool calibrated; /* by the calibrated profile model: df is the interval's
                      * as it is (no halving by ks_interval_df) */
} ks_stratum_spread;

/* The degrees of freedom of a sample variance on df of them from values of
 * this excess kurtosis (var s^2 / S^4 = 2 / df + kurtosis / (df + 1)). */
double ks_df_heavy(double df, double kurtosis);
/* The degrees of freedom an interval uses from a Satterthwaite count over
 * the strata (the one rule estimate and refine share: see variance.c). */
double ks_interval_df(double satterthwaite);
/* The calibrated profile model's spread of a stratum whose values have mean
 * `mean`: the profile's S^2 of the cluster (n-1 divisor) in the values'
 * units, (mean / the cluster's profiled mean)^2 S_x^2; 0 where the profile
 * shows no spread or has no mean. */
double ks_profile_shaped_s2(const ks_cluster *cl, double mean);
/* The share ROOT's calibrated design (--replicate) replicated, 0 for any
 * other plan. */
double ks_plan_replicate(const ks_plan *plan);
/* Whether the plan was written by refine (it records "refine_seed"). */
bool ks_plan_refined(const ks_plan *plan);
/* The degrees of freedom the calibrated model's factor rests on when the
 * values follow the profile: (m - 1) summed over the clusters of two or
 * more samples whose profile shows spread (what the design replicated, and
 * the clusters simulated whole). */
double ks_plan_design_df(const ks_plan *plan);

/* The interval's degrees of freedom from a Satterthwaite count over the
 * strata of sp[0..k): ks_interval_df's where some stratum that counts is
 * not of the calibrated model, the count as it is otherwise (and where it
 * is infinite). */
double ks_spread_interval_df(const ks_stratum_spread *sp, size_t k, double satterthwaite);

#define KS_SPREAD_SOURCES(plan) ((plan)->cluster_count + (plan)->group_count + 2)

/* Which clusters' v are residuals about a ratio or line to the profile
 * (per cluster; NULL: none, KS_RESIDUAL_ALL: all): a value's spread is held
 * to at least the profile's, a residual's is not. */
extern const bool ks_residual_all_flag;
#define KS_RESIDUAL_ALL (&ks_residual_all_flag)

/* v: values at the plan's samples; scale: what a one-sample cluster's
 * profile CV multiplies; x: the profile's values at the samples, or NULL
 * where they are not known (the calibrated model then measures its factor
 * against the profile's spread in the cluster rather than at the samples). */
ks_status ks_strata_spread(const ks_plan *plan, const double *v, const double *scale,
                           const double *x, const bool *residual, ks_single_mode mode,
                           ks_stratum_spread *out, size_t *single, ks_error *err);

/* V of sum_h N_h mean_h(v) and its Satterthwaite degrees of freedom: the
 * strata's spreads by ks_strata_spread, strata whose spread has one source
 * counted together. */
typedef struct ks_variance {
    double variance, df;
    size_t single;     /* one-sample strata */
    size_t unmeasured; /* strata (of some weight) whose spread no simulated
                        * value measures */
} ks_variance;

/* The stratified variance of strata whose spreads are sp (ks_strata_spread's,
 * possibly adjusted), N^2 (1 - f) s^2 / n summed, and its Satterthwaite
 * degrees of freedom over the spreads' sources (ks_spread_interval_df);
 * out->variance, df and unmeasured (out->single is left as it is). */
ks_status ks_spread_variance(const ks_plan *plan, const ks_stratum_spread *sp, ks_variance *out,
                             ks_error *err);
/* Cluster c's term of that sum, N^2 (1 - f) S^2 / n (0 for a census or a
 * cluster without samples). */
long double ks_stratum_variance(const ks_plan *plan, const ks_stratum_spread *sp, size_t c);
ks_status ks_stratified_variance_ex(const ks_plan *plan, const double *v, const double *scale,
                                    const double *x, const bool *residual, ks_single_mode mode,
                                    ks_variance *out, ks_error *err);
/* ks_plan_total_variance and ks_plan_ratio_variance with all of it. */
ks_status ks_total_variance_ex(const ks_plan *plan, const double *y, ks_single_mode mode,
                               double *estimate, ks_variance *out, ks_error *err);
/* The same with x, the profile's values at the samples (NULL: unknown). */
ks_status ks_total_variance_x(const ks_plan *plan, const double *y, const double *x,
                              ks_single_mode mode, double *estimate, ks_variance *out,
                              ks_error *err);
/* The same, keeping each stratum's spread in sp (cluster_count + 1 of them),
 * for a caller that also reads them. */
ks_status ks_total_variance_spread(const ks_plan *plan, const double *y, const double *x,
                                   ks_single_mode mode, double *estimate, ks_variance *out,
                                   ks_stratum_spread *sp, ks_error *err);
ks_status ks_ratio_variance_ex(const ks_plan *plan, const double *y, const double *x,
                               ks_single_mode mode, double *ratio, ks_variance *out,
                               ks_error *err);
/* The same, parts of it (df, single may be NULL). */
ks_status ks_stratified_variance(const ks_plan *plan, const double *v, const double *scale,
                                 const bool *residual, ks_single_mode mode, double *variance,
                                 double *df, size_t *single, ks_error *err);

#endif
