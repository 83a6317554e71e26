/*
 * claim.c - what an interval stands for.
 *
 * The interval of an estimate is a statement about sampling error: with
 * the plan's launches drawn at random, the total of the values the
 * simulator reported, over every launch, lies in it with the stated
 * confidence.  It is a statement about the full run's total only where
 * those values are what the full run would have reported: values of a
 * whole-program simulation (in context), or values corrected by a pilot
 * whose reference is.  A launch simulated alone starts cold, and every
 * warm-up mode leaves a bias of its own (docs/bench.md: alone 1.09-1.14x
 * the full run on Accel-Sim and 3.3x on MacSim; since-same:8 +3.7 % and
 * +5.1 % on Accel-Sim, 0.0 % on MacSim), which no sample size removes and
 * the interval does not contain: calibrated on the recorded data
 * (tests/test_calibration.c), those intervals covered the full run in as
 * few as 0 % of the plans.  And a plan whose launches were chosen (one
 * representative per cluster: PKA, Sieve, Photon, GCL-Sampler) is no
 * random sample: its values say nothing about their own error, so it gets
 * no interval at all.
 */
#include "estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ks_claim ks_interval_claim(const ks_plan *plan, const char *warmup, const char **why)
{
    const ks_method *m = plan ? ks_method_find(plan->method) : NULL;
    if (m && m->chooses) {
        if (why)
            *why = "the plan's launches were chosen (one representative per cluster), not "
                   "drawn at random: their values say nothing about the estimate's error, so "
                   "there is no interval";
        return KS_CLAIM_NONE;
    }
    if (plan && !(plan->bound > 0)) {
        if (why)
            *why = "the plan promises no error bound (its size was not chosen for one: random "
                   "draws the whole program by a target speedup): with so few launches from "
                   "kernels this different, its intervals covered the full run in 43-91 % of "
                   "the recorded plans (docs/bench.md), so there is none; plan with root or "
                   "stem";
        return KS_CLAIM_NONE;
    }
    if (!warmup || strcmp(warmup, "context") == 0) {
        if (why)
            *why = "";
        return KS_CLAIM_FULL_RUN;
    }
    if (why)
        *why = strcmp(warmup, "none") == 0
                   ? "the values were simulated alone, from cold caches: the interval is of "
                     "their total, which exceeds the full run's by the cold-start bias "
                     "(1.09-1.14x on Accel-Sim, 3.3x on MacSim in the recorded data); "
                     "--pilot measures it on a few launches, or simulate with --warmup"
               : strcmp(warmup, "unknown") == 0 || !*warmup
                   ? "how the values were simulated is not recorded (give --warmup): the "
                     "interval is of their total; values simulated alone or after a "
                     "warm-up differ from a full run's by the warm-up's bias, which it "
                     "does not contain"
               : strncmp(warmup, "state", 5) == 0
                   ? "the interval is of the total of the values as simulated from the "
                     "rebuilt warm state; against a full run they carry its bias, which it "
                     "does not contain (docs/bench.md: -0.1 to +0.2 % summed over every "
                     "launch with every held line on the recorded Accel-Sim and MacSim "
                     "runs; state:memcpy -6 % beyond the L2)"
                   : "the interval is of the total of the values as simulated after this "
                     "warm-up; against a full run they carry the warm-up's own bias "
                     "(docs/bench.md: since-same:8 +3.7 % and +5.1 % on Accel-Sim, "
                     "0.0 % on MacSim), which it does not contain";
    return KS_CLAIM_VALUES;
}

/* How far the kernels sharing a pool's strata may disagree in their values'
 * ratio to the profile before the strata's spread, measured on a few
 * launches of some of them, stops standing for the others'. */
#define POOL_AGREEMENT 0.10

ks_status ks_pool_check(const ks_plan *plan, const ks_profile *p, const double *y, bool *holds,
                        char *why, size_t why_size, ks_error *err)
{
    *holds = true;
    if (why_size)
        why[0] = '\0';
    if (!plan->pool_rep)
        return KS_OK;
    bool pooled_any = false;
    for (size_t g = 0; g < plan->group_count; g++)
        pooled_any = pooled_any || plan->pool_rep[g] != g;
    if (!pooled_any)
        return KS_OK;
    if (!p) {
        *holds = false;
        snprintf(why, why_size,
                 "strata shared by several kernels (--pool) stand for them all only where "
                 "their values follow the profile alike, which needs the plan's profile to "
                 "check (give --profile)");
        return KS_OK;
    }
    ks_groups g;
    ks_status st = ks_plan_profile_groups(plan, p, &g, err);
    if (st != KS_OK)
        return st;
    /* per (pool, kernel): sum y, sum x over the samples */
    size_t k = g.count;
    double *sy = calloc(plan->group_count * k + 1, sizeof *sy);
    double *sx = calloc(plan->group_count * k + 1, sizeof *sx);
    size_t *members = calloc(plan->group_count + 1, sizeof *members);
    if (!sy || !sx || !members) {
        KS_FREE(sy, sx, members);
        ks_groups_free(&g);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    /* kernels with launches in each pool (pool_rep of their plan group) */
    for (size_t kg = 0; kg < plan->group_count; kg++)
        if (plan->pool_rep[kg] < plan->group_count)
            members[plan->pool_rep[kg]]++;
    for (size_t i = 0; i < plan->sample_count; i++) {
        uint32_t pool = plan->clusters[plan->samples[i].cluster].group;
        uint64_t id = plan->samples[i].id;
        if (pool >= plan->group_count || id >= p->n)
            continue;
        size_t cell = (size_t)pool * k + g.group_of[id];
        sy[cell] += y[i];
        sx[cell] += (double)p->duration_ns[id];
    }
    for (size_t pool = 0; pool < plan->group_count && *holds; pool++) {
        if (members[pool] < 2)
            continue;
        double lo = INFINITY, hi = 0;
        size_t seen = 0;
        for (size_t kk = 0; kk < k; kk++) {
            size_t cell = pool * k + kk;
            if (!(sx[cell] > 0))
                continue;
            double r = sy[cell] / sx[cell];
            lo = r < lo ? r : lo;
            hi = r > hi ? r : hi;
            seen++;
        }
        if (seen < members[pool])
            snprintf(why, why_size,
                     "the strata kernel group %s shares with %zu other kernels (--pool) hold "
                     "launches of %zu of them: whether the others' values follow the "
                     "profile alike is not measured",
                     plan->group_labels[pool], members[pool] - 1, seen);
        else if (!(hi <= lo * (1 + POOL_AGREEMENT)))
            snprintf(why, why_size,
                     "the kernels sharing the strata of %s (--pool) follow the profile "
                     "differently (their values' ratios to it differ by %.0f %%, more than "
                     "%.0f %%): the shared strata's spread does not stand for them; plan "
                     "without --pool, or from a profile of the simulator's configuration",
                     plan->group_labels[pool], (hi / lo - 1) * 100, POOL_AGREEMENT * 100);
        else
            continue;
        *holds = false;
    }
    KS_FREE(sy, sx, members);
    ks_groups_free(&g);
    return KS_OK;
}

ks_status ks_interval_check(const ks_plan *plan, const ks_profile *p, const double *y,
                            bool *holds, char *why, size_t why_size, ks_error *err)
{
    /* A kernel the profile gives one value for every launch of (all its
     * clusters of no spread, one duration) while its simulated values
     * differ: nothing says where its rare launches are, and a few simulated
     * ones need not show them (planned from MacSim's launches simulated
     * alone, one value per kernel, the full run's first launch of each
     * kernel, cold there too, took 3.3x the others': 2 to 10 launches per
     * kernel missed it, and refined plans covered 36-40 %). */
    *holds = true;
    size_t groups = plan->group_count + 1;
    double *lo = malloc(groups * sizeof *lo), *hi = malloc(groups * sizeof *hi);
    int64_t *d = malloc(groups * sizeof *d);
    unsigned char *flat = malloc(groups);
    if (!lo || !hi || !d || !flat) {
        KS_FREE(lo, hi, d, flat);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t g = 0; g < groups; g++) {
        lo[g] = INFINITY;
        hi[g] = -INFINITY;
        d[g] = INT64_MIN;
        flat[g] = 1;
    }
    for (size_t c = 0; c < plan->cluster_count; c++) {
        const ks_cluster *cl = &plan->clusters[c];
        size_t g = cl->group < plan->group_count ? cl->group : plan->group_count;
        if (cl->min_ns != cl->max_ns || cl->std_ns != 0 ||
            (d[g] != INT64_MIN && d[g] != cl->min_ns) || cl->size < 2)
            flat[g] = 0;
        d[g] = cl->min_ns;
    }
    for (size_t i = 0; i < plan->sample_count; i++) {
        size_t g = plan->clusters[plan->samples[i].cluster].group;
        g = g < plan->group_count ? g : plan->group_count;
        lo[g] = y[i] < lo[g] ? y[i] : lo[g];
        hi[g] = y[i] > hi[g] ? y[i] : hi[g];
    }
    for (size_t g = 0; g < plan->group_count && *holds; g++)
        if (flat[g] && hi[g] > lo[g] && lo[g] >= 0) {
            *holds = false;
            snprintf(why, why_size,
                     "the profile gives every launch of %s the same value (%lld), while the "
                     "simulated ones differ (%.4g to %.4g): nothing says where the kernel's "
                     "rare launches are (a kernel's first launch, cold in a full run too, "
                     "can take several times the others'), and a few simulated ones need "
                     "not show them; plan from a profile that tells its launches apart",
                     plan->group_labels[g], (long long)d[g], lo[g], hi[g]);
        }
    KS_FREE(lo, hi, d, flat);
    if (!*holds)
        return KS_OK;
    return ks_pool_check(plan, p, y, holds, why, why_size, err);
}
