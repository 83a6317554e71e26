/*
 * root.h - ROOT's design (internal): the deterministic part of a ROOT plan
 * (strata and their sizes, from the profile alone) kept apart from the seeded
 * draws, so the two can run as separate steps.
 */
#ifndef KS_ROOT_H
#define KS_ROOT_H

#include "root_strata.h"
#include "sampling.h"

/* How leaves are sized (--allocation). */
enum { KS_ALLOC_JOINT = 0, KS_ALLOC_TREE = 1, KS_ALLOC_PAPER = 2 };
/* Which kernel groups may share strata (--pool). */
enum { KS_POOL_NONE = 0, KS_POOL_DURATION = 1, KS_POOL_FEATURES = 2 };

/* ROOT's parameters as its table declares them (lib/methods/root.c), plus
 * the shared bound: what the design depends on. */
typedef struct ks_root_config {
    double epsilon;
    int with_replacement;
    int allocation;
    uint64_t max_depth; /* paper mode's split depth */
    int pool;           /* KS_POOL_* */
    double pool_tolerance;
    uint64_t two_phase; /* > 0: phase 1 of a two-phase design: at least
                         * this many launches per group */
    double replicate;   /* > 0: this share of the launches replicates the
                         * strata of most variance, then t-sized (root.c) */
    /* the groups' members sorted by duration, shared with other fits
     * (ks_method_members); NULL: the design sorts its own */
    const ks_members *members;
} ks_root_config;

typedef struct ks_root_leaf {
    uint32_t group;
    size_t lo, hi; /* range in the group's members sorted by duration */
    uint64_t m;
    double m_real;
    char *path;
    ks_range_stat stat; /* of the leaf's durations (n = hi - lo once known), for every seed's draws */
} ks_root_leaf;

typedef struct ks_root_design {
    ks_members mem;
    ks_root_leaf *leaves; /* by group, then by duration */
    size_t count, capacity;
    ks_variance_kind kind;
    double lower_bound_ns; /* cheapest any plan of the family can be; 0: not computed */
    char scope[32];
    /* per design group, the plan's kernel group its clusters name (pooled
     * strata: the pool's lowest kernel); NULL: the same index */
    const uint32_t *plan_group;
} ks_root_design;

/* Kernel groups pooled into design groups (root_pool.c). */
typedef struct ks_root_pools {
    size_t count;      /* pools; 0: none (unpooled) */
    uint32_t *pool_of; /* per kernel group */
    uint32_t *rep;     /* per pool: its lowest kernel group */
    ks_groups groups;  /* the launches by pool */
    size_t features;   /* feature columns compared (--pool features) */
} ks_root_pools;
void ks_root_pools_free(ks_root_pools *pl);
/* The cheapest of unpooled ROOT and its pooled candidates under pa's bound
 * (d over pools->groups when pooled: pools->count > 0). */
ks_status ks_root_pooled_build(const ks_profile *p, const ks_groups *g, const ks_root_config *pa,
                               double z, ks_root_design *d, ks_root_pools *pools, ks_error *err);
/* Phase 1 of the two-phase design: at least K launches in every design
 * group (as many as it has when fewer), added to its largest strata. */
ks_status ks_root_pilot_top_up(ks_root_design *d, size_t groups, uint64_t per_group,
                               ks_error *err);

/* Everything before the draws: the strata of every group and their sizes. */
ks_status ks_root_design_build(const ks_profile *p, const ks_groups *g, const ks_root_config *pa,
                               double z, ks_root_design *d, ks_error *err);
/* The seeded draws of a design into the plan, with its records (variance
 * formula, predicted variance, lower bound, bound and scope). */
ks_status ks_root_design_draw(const ks_root_design *d, const ks_profile *p,
                              const ks_root_config *pa, ks_rng *rng, ks_plan *plan, ks_error *err);
void ks_root_design_free(ks_root_design *d);

ks_status ks_root_add_leaf(ks_root_design *d, uint32_t group, size_t lo, size_t hi, uint64_t m,
                           double m_real, const char *path, ks_error *err);
/* --allocation paper: the authors' greedy splits (root_paper.c). */
ks_status ks_root_paper_leaves(const ks_profile *p, const ks_groups *g, const ks_root_config *pa,
                               double z, ks_root_design *d, ks_error *err);

/* Where STEM, the pre-issue-8 greedy ROOT or the paper's tree is cheaper
 * within the same bound (per group for tree, on the total for joint), d
 * takes that design instead (root_baselines.c). */
ks_status ks_root_keep_cheapest(const ks_profile *p, const ks_groups *g,
                                const ks_root_config *pa, double z, ks_root_design *d,
                                ks_error *err);

#endif
