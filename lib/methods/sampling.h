/*
 * sampling.h - helpers shared by the duration-based methods (internal).
 */
#ifndef KS_SAMPLING_H
#define KS_SAMPLING_H

#include "internal.h"
#include "plan_cache.h"

#include <stddef.h>

/* Invocation ids gathered by group, each group sorted by duration (ties in
 * launch order): group g is ids[offset[g] .. offset[g+1]). */
typedef struct ks_members {
    size_t count;
    uint32_t *ids;
    double *values; /* durations of ids[], so scans are sequential in memory */
    size_t *offset;
    double total_ns; /* ks_profile_total_ns of the profile, summed on the way */
    bool borrowed; /* the arrays belong to a ks_plan_cache: free leaves them */
} ks_members;

ks_status ks_members_build(const ks_profile *p, const ks_groups *g, ks_members *out,
                           ks_error *err);
void ks_members_free(ks_members *m);
/* dst uses src's arrays without owning them (src outlives dst). */
void ks_members_share(const ks_members *src, ks_members *dst);

/* The members of in->groups sorted by duration, built by the first fit on
 * this profile and key that asks and shared with every later one. */
ks_status ks_method_members(const ks_method_input *in, const ks_members **out, ks_error *err);
/* A draw buffer of at least n ids, reused by every plan of the cache: valid
 * until the next call. */
ks_status ks_method_scratch(const ks_method_input *in, size_t n, uint32_t **out,
                            ks_error *err);

typedef struct ks_range_stat {
    size_t n;
    double mean, std, sample_std; /* std: population; sample_std: n-1 divisor */
    int64_t min, max;
} ks_range_stat;

/* Statistics of sorted durations v[0..n) of invocations ids[0..n); min and
 * max come from the profile's exact integers (doubles lose nanoseconds past
 * 2^53).  v holds integers, as ks_members' values do (the sums rely on it). */
void ks_range_stats(const ks_profile *p, const uint32_t *ids, const double *v, size_t n,
                    ks_range_stat *s);
/* ks_range_stats of two ranges at once, the same bits, in about the time
 * of the longer one. */
void ks_range_stats_pair(const ks_profile *p, const uint32_t *ids0, const double *v0, size_t n0,
                         const uint32_t *ids1, const double *v1, size_t n1, ks_range_stat *s0,
                         ks_range_stat *s1);

/* How a cluster's m members are drawn. */
typedef enum ks_draw_mode {
    KS_DRAW_WITHOUT_REPLACEMENT, /* min(m, n) distinct members */
    KS_DRAW_WITH_REPLACEMENT,    /* m draws, but m >= n simulates all of them */
    KS_DRAW_ALWAYS_REPLACEMENT   /* m draws even when m >= n (Allegro's scripts) */
} ks_draw_mode;

/* Draws m of the n ids into the plan with weight n/m per draw; when m >= n
 * (except in KS_DRAW_ALWAYS_REPLACEMENT) every member once with weight 1, so
 * the cluster is simulated exactly.  scratch holds n ids. */
ks_status ks_draw(ks_plan *plan, ks_rng *rng, const uint32_t *ids, size_t n, uint64_t m,
                  ks_draw_mode mode, uint32_t cluster, uint32_t *scratch, ks_error *err);

ks_status ks_plan_set_groups(ks_plan *plan, const ks_groups *g, ks_error *err);

/* STEM's single-cluster size ceil((z sigma / (eps mu))^2) clamped to [1, N];
 * sigma = 0 gives 1 (the paper's literal 0 would lose the cluster's time). */
uint64_t ks_stem_single_size(const ks_range_stat *s, double epsilon, double z);

/* Size of the largest group, for draw scratch buffers. */
size_t ks_groups_largest(const ks_groups *g);

/* Parameter-table rows the duration methods share; `type` is the method's
 * parameter struct, which names its fields with_replacement and max_depth. */
#define KS_PARAM_WITH_REPLACEMENT(type)                                                        {"with-replacement", KS_PARAM_BOOL, offsetof(type, with_replacement), 0, 1, 0, NULL, NULL,      "draw with replacement (the STEM paper's text); default without (the authors' code)"}
#define KS_PARAM_MAX_DEPTH(type)                                                               {"max-depth", KS_PARAM_UINT, offsetof(type, max_depth), 1, KS_MAX_DEPTH_LIMIT, 64, NULL,       "N", "split depth limit"}

#endif
