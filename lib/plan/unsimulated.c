/*
 * unsimulated.c - what a plan drawn on part of a profile says about the
 * rest: its ids made the program's launch ids, and the known, unsimulated
 * part (communication kernels left out, with their measured time), which
 * estimate and report print beside the simulated estimates rather than
 * adding it to them.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

ks_status ks_plan_use_launch_ids(ks_plan *plan, const ks_profile *p, ks_error *err)
{
    if (!p->launch_id && !p->selection[0])
        return KS_OK;
    for (size_t i = 0; i < plan->sample_count; i++) {
        if (plan->samples[i].id >= p->n)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "internal: sample id %llu beyond the profile's %zu launches",
                                (unsigned long long)plan->samples[i].id, p->n);
        /* launch_id ascends with the index, so the order of samples stays */
        plan->samples[i].id = ks_profile_launch_id(p, (size_t)plan->samples[i].id);
    }
    plan->input_invocations = plan->population = p->launch_total ? p->launch_total : p->n;
    return KS_OK;
}

void ks_plan_set_unsimulated(ks_plan *plan, const ks_comm_summary *c)
{
    snprintf(plan->unsim_what, sizeof plan->unsim_what, "communication kernels");
    plan->unsim_launches = c->launches;
    plan->unsim_ns = c->time_ns;
    plan->unsim_share = c->total_ns > 0 ? c->time_ns / c->total_ns : 0;
    plan->unsim_overlap_ns = c->overlap_ns;
    size_t used = 0;
    plan->unsim_kernels[0] = '\0';
    for (size_t k = 0; k < c->name_count; k++) {
        char one[256];
        int w = snprintf(one, sizeof one, "%s%.160s: %llu, %.0f ns", k ? "; " : "", c->names[k],
                         (unsigned long long)c->name_launches[k], c->name_ns[k]);
        if (w < 0 || used + (size_t)w + 8 >= sizeof plan->unsim_kernels) {
            snprintf(plan->unsim_kernels + used, sizeof plan->unsim_kernels - used, "; ...");
            break;
        }
        memcpy(plan->unsim_kernels + used, one, (size_t)w + 1);
        used += (size_t)w;
    }
}

void ks_plan_print_unsimulated(const ks_plan *plan, FILE *f, const char *prefix)
{
    if (!plan->unsim_what[0])
        return;
    fprintf(f,
            "%sknown, unsimulated part: %s, %llu launch%s, %.6g ms measured in the profile "
            "(%.1f %% of its kernel time); not simulated, and in none of the totals above\n",
            prefix, plan->unsim_what, (unsigned long long)plan->unsim_launches,
            plan->unsim_launches == 1 ? "" : "es", plan->unsim_ns / 1e6, 100 * plan->unsim_share);
    if (isfinite(plan->unsim_overlap_ns) && plan->unsim_overlap_ns > 0)
        fprintf(f,
                "%s  %.6g ms of it (%.1f %%) ran while kernels on other streams ran: the "
                "run's time is not the simulated total plus this part\n",
                prefix, plan->unsim_overlap_ns / 1e6,
                plan->unsim_ns > 0 ? 100 * plan->unsim_overlap_ns / plan->unsim_ns : 0);
    else if (isfinite(plan->unsim_overlap_ns))
        fprintf(f,
                "%s  none of it ran while kernels on other streams ran: the kernel time is "
                "the simulated total plus this part\n",
                prefix);
    else
        fprintf(f, "%s  its overlap with other streams is unknown (the profile has no start "
                   "times)\n",
                prefix);
    if (plan->unsim_kernels[0])
        fprintf(f, "%s  kernels: %s\n", prefix, plan->unsim_kernels);
}

void ks_plan_copy_unsimulated(const ks_plan *from, ks_plan *to)
{
    memcpy(to->unsim_what, from->unsim_what, sizeof to->unsim_what);
    to->unsim_launches = from->unsim_launches;
    to->unsim_ns = from->unsim_ns;
    to->unsim_share = from->unsim_share;
    to->unsim_overlap_ns = from->unsim_overlap_ns;
    memcpy(to->unsim_kernels, from->unsim_kernels, sizeof to->unsim_kernels);
}
