/*
 * plan_cache.h - the seed-independent planning work shared by every fit on
 * one profile (internal): groups by key and members sorted by duration,
 * each built once on first use, and the draw buffers reused from plan to
 * plan.  The pipeline makes the fits; the methods reach the cache through
 * their ks_method_input (ks_method_members, ks_method_scratch in sampling.h).
 */
#ifndef KS_PLAN_CACHE_H
#define KS_PLAN_CACHE_H

#include "internal.h"

struct ks_members;

/* Monotonic seconds, for the planning times eval reports. */
double ks_now_seconds(void);

const ks_profile *ks_plan_cache_profile(const ks_plan_cache *c);
/* ks_profile_total_ns of the profile, summed once. */
double ks_plan_cache_total_ns(ks_plan_cache *c);
/* A fit starts: what it reuses from earlier fits is counted from here. */
void ks_plan_cache_begin(ks_plan_cache *c);
/* Seconds that the parts used since ks_plan_cache_begin took to build in
 * earlier fits: what this fit would have spent without the cache. */
double ks_plan_cache_reused_seconds(const ks_plan_cache *c);
/* shape_share: key name+shape's (ks_groups_build_shapes; others ignore it);
 * a share other than the cached groups' rebuilds them */
ks_status ks_plan_cache_groups(ks_plan_cache *c, ks_key key, double shape_share,
                               const ks_groups **out, ks_error *err);
ks_status ks_plan_cache_members(ks_plan_cache *c, ks_key key, double shape_share,
                                const struct ks_members **out, ks_error *err);
/* A buffer of at least n ids, kept for the next plan; valid until the next
 * call on this cache. */
ks_status ks_plan_cache_scratch(ks_plan_cache *c, size_t n, uint32_t **out, ks_error *err);

#endif
