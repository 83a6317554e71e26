/*
 * sampling.h - helpers shared by the duration-based methods (internal).
 */
#ifndef KS_SAMPLING_H
#define KS_SAMPLING_H

#include "internal.h"

/* Invocation ids gathered by group, each group sorted by duration (ties in
 * launch order): group g is ids[offset[g] .. offset[g+1]). */
typedef struct ks_members {
    size_t count;
    uint32_t *ids;
    double *values; /* durations of ids[], so scans are sequential in memory */
    size_t *offset;
} ks_members;

ks_status ks_members_build(const ks_profile *p, const ks_groups *g, ks_members *out,
                           ks_error *err);
void ks_members_free(ks_members *m);

typedef struct ks_range_stat {
    size_t n;
    double mean, std, sample_std; /* std: population; sample_std: n-1 divisor */
    int64_t min, max;
} ks_range_stat;

/* Statistics of sorted durations v[0..n). */
void ks_range_stats(const double *v, size_t n, ks_range_stat *s);

/* Draws m of the n ids into the plan with weight n/m each (or all with weight
 * 1 when m >= n without replacement).  scratch holds n ids. */
ks_status ks_draw(ks_plan *plan, ks_rng *rng, const uint32_t *ids, size_t n, uint64_t m,
                  bool with_replacement, uint32_t cluster, uint32_t *scratch, ks_error *err);

ks_status ks_plan_set_groups(ks_plan *plan, const ks_groups *g, ks_error *err);

/* STEM's single-cluster size ceil((z sigma / (eps mu))^2) clamped to [1, N];
 * sigma = 0 gives 1 (the paper's literal 0 would lose the cluster's time). */
uint64_t ks_stem_single_size(const ks_range_stat *s, double epsilon, double z);

#endif
