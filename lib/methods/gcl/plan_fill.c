/*
 * plan_fill.c - a GCL selection as plan clusters and samples, so that the
 * method glue (sample --method gcl) is one call once the graphs and the
 * profile of the same launches are at hand.
 */
#include "gcl.h"

#include <math.h>

ks_status ks_gcl_plan_fill(const ks_gcl_selection *s, const ks_profile *p,
                           const ks_groups *groups, ks_plan *plan, ks_error *err)
{
    if (s->n != p->n)
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "the traces hold %zu launches and the profile %zu: they must be the "
                            "same launches in the same order",
                            s->n, p->n);
    ks_status st = KS_OK;
    for (size_t c = 0; c < s->k && st == KS_OK; c++) {
        long double sum = 0, sq = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < s->n; i++)
            if (s->cluster[i] == c) {
                int64_t d = p->duration_ns[i];
                sum += d;
                lo = d < lo ? d : lo;
                hi = d > hi ? d : hi;
            }
        double mean = (double)(sum / (long double)s->weight[c]);
        for (size_t i = 0; i < s->n; i++)
            if (s->cluster[i] == c)
                sq += ((long double)p->duration_ns[i] - mean) *
                      ((long double)p->duration_ns[i] - mean);
        char path[32];
        snprintf(path, sizeof path, "%zu", c);
        uint64_t rep = s->representative[c];
        /* a cluster may span kernel names: it is listed under its representative's */
        ks_cluster cl = {.group = groups ? groups->group_of[rep] : 0, .path = path,
                         .size = (uint64_t)s->weight[c], .mean_ns = mean,
                         .std_ns = (double)sqrtl(sq / (long double)s->weight[c]),
                         .min_ns = lo, .max_ns = hi, .m = 1, .m_real = 1};
        uint32_t index;
        st = ks_plan_add_cluster(plan, &cl, &index, err);
        if (st == KS_OK)
            st = ks_plan_add_sample(plan, rep, s->weight[c], index, err);
    }
    ks_plan_set_bound(plan, 0, "none");
    return st;
}
