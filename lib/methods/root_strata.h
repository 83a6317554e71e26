/*
 * root_strata.h - ROOT's optimiser (internal): the cheapest contiguous
 * duration strata and integer sample sizes of each kernel group under a
 * variance bound, and the Lagrangian lower bound on any such plan.
 *
 * A group's sorted durations are cut into units (its distinct values, or at
 * most about 2 * KS_STRATA_BINS bins of them when it has more); a stratum is a
 * contiguous run of units.  For a multiplier lambda, ks_strata_solve() finds
 * by dynamic programming over the units the strata and integer sizes that
 * minimise  sum_h m_h mu_h + lambda var_h(m_h).  ks_strata_frontier() walks
 * lambda to collect the group's Lagrangian vertices (cost, variance), and
 * ks_strata_pick_joint() merges the groups' frontiers into one (cost,
 * variance) frontier for the total, from which the cheapest point under a
 * bound is read.  docs/methods.md has the argument and the complexity.
 */
#ifndef KS_ROOT_STRATA_H
#define KS_ROOT_STRATA_H

#include <string.h>
#include "internal.h"

/* Groups with more distinct durations are binned: a bin closes when it holds
 * n / KS_STRATA_BINS members or spans (max - min) / KS_STRATA_BINS, so there
 * are at most about 2 * KS_STRATA_BINS units and the tail keeps its own
 * bins. */
#define KS_STRATA_BINS 32

typedef enum ks_variance_kind {
    KS_VARIANCE_FINITE_POPULATION = 0, /* N^2 S^2 / m - N S^2, S^2 with n-1 */
    KS_VARIANCE_WITH_REPLACEMENT = 1   /* N^2 sigma^2 / m; 0 when m = N */
} ks_variance_kind;

typedef struct ks_strata_point {
    double cost;   /* sum m_h mu_h, ns */
    double var;    /* variance of the group's total-time estimate, ns^2 */
    double lambda; /* a multiplier whose optimum this is; INFINITY: census;
                      NAN: a point of the exact frontier, number ref */
    size_t ref;
    int steps;     /* then this many greedy moves: > 0 adding, < 0 removing */
} ks_strata_point;

/* A point of a group's exact frontier over its first b units: the last
 * stratum is units [from, b) with m samples, after point prev of unit from. */
typedef struct ks_pareto_point {
    double cost, var;
    uint32_t from, prev;
    uint64_t m;
} ks_pareto_point;

typedef struct ks_stratum {
    size_t lo, hi; /* positions in the group's sorted durations */
    uint64_t m;
    double mean, s2; /* S^2 with the n-1 divisor */
    double var;
} ks_stratum;

/* A candidate stratum: members, mean, S^2 (n-1 divisor), k with the
 * continuous optimum m* = k sqrt(lambda), and n S^2 (the finite-population
 * variance is ns2 (n - m) / m), kept so the optimiser's inner loop does not
 * recompute it. */
typedef struct stratum_stat {
    double n, mean, s2, k, ns2;
    double q; /* 2 mean k: m mu + lambda var(m) >= q sqrt(lambda) - lambda ns2 */
} stratum_stat;

typedef struct ks_strata_group {
    size_t n, units;
    size_t *start;         /* units + 1 */
    long double *s1, *s2;  /* units + 1 prefix sums of v - shift, (v - shift)^2 */
    unsigned char *pure;   /* unit holds a single distinct value */
    stratum_stat *pair;    /* every stratum [a, b) of units, see stratum_of() */
    double shift, total;
    ks_variance_kind kind;
    double *best, *cost, *var; /* DP scratch, units + 1 */
    size_t *from;
    bool solved; /* from[] holds the last solve's choices (the next one tries them first) */
    size_t points;
    ks_strata_point *point; /* by increasing cost and decreasing variance */
    ks_pareto_point **exact; /* units + 1 frontiers when the group is small */
    size_t *exact_count;
} ks_strata_group;

ks_status ks_strata_group_init(ks_strata_group *g, const double *sorted, size_t n,
                               ks_variance_kind kind, ks_error *err);
void ks_strata_group_free(ks_strata_group *g);

/* Variance of the estimate of a stratum's total from m of its n members. */
double ks_strata_variance(ks_variance_kind kind, double n, double s2, uint64_t m);

/* Lagrangian optimum at lambda; returns its value and the argmin's cost and
 * variance; when out is not NULL writes its strata (at most g->units) and
 * their count.  lambda = INFINITY gives the census of the whole group. */
double ks_strata_solve(ks_strata_group *g, double lambda, double *cost, double *var,
                       ks_stratum *out, size_t *count);

/* Collects the group's Lagrangian vertices, refining between two while their
 * variances differ by more than rel_step of the larger, their costs by more
 * than rel_step / 10 of the smaller, the larger variance exceeds var_floor and
 * the smaller is below var_cap. */
ks_status ks_strata_frontier(ks_strata_group *g, double var_floor, double var_cap,
                             double rel_step, ks_error *err);

/* Small groups: the exact (cost, variance) frontier over every contiguous
 * stratification and every integer allocation, by dynamic programming over
 * units with Pareto sets, when that takes at most `work` candidate points
 * (*done false otherwise, and the group keeps its Lagrangian frontier).
 * Points above var_cap are dropped. */
ks_status ks_strata_exact_frontier(ks_strata_group *g, double var_cap, size_t work, bool *done,
                                   ks_error *err);

/* The strata of frontier point i (at most g->units of them). */
void ks_strata_point_strata(ks_strata_group *g, size_t i, ks_stratum *out, size_t *count);

/* Cheapest frontier point with variance <= bound (the census if none). */
size_t ks_strata_pick_single(const ks_strata_group *g, double bound);

/* One frontier point per group, cheapest in total with the summed variance
 * <= bound.  The merged frontier is thinned to one point per relative
 * variance step rel_step between var_floor and var_cap, independently of the
 * bound, so a larger bound never picks a dearer plan.  Needs bound >= var_floor
 * and bound <= var_cap. */
ks_status ks_strata_pick_joint(ks_strata_group *g, size_t count, double bound, double var_floor,
                               double var_cap, double rel_step, size_t *choice, ks_error *err);

/* max over lambda of sum_g G_g(lambda) - lambda * bound, with G_g the exact
 * Lagrangian optimum: no plan of contiguous unit strata with integer sizes
 * and total variance <= bound costs less.  *lambda: where it was taken. */
double ks_strata_lower_bound(ks_strata_group *g, size_t count, double bound, double *lambda);

/* log2 linear between powers of two (exponent plus mantissa as a fraction,
 * within 0.09 of log2): monotone, which is all variance buckets need, and
 * many times cheaper than log() in the merges' inner loops. */
static inline double ks_rough_log2(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (double)((int)(bits >> 52) - 1023) +
           (double)(bits & ((UINT64_C(1) << 52) - 1)) * 0x1p-52;
}

/* Raises *lb to the integer-aware bound (root_bound.c): the groups with an
 * exact frontier merged exactly, the others relaxed around the multiplier
 * lambda.  Leaves *lb where that would be too much work. */
ks_status ks_strata_lower_bound_exact(ks_strata_group *g, size_t count, double bound,
                                      double lambda, double *lb, ks_error *err);

#endif
