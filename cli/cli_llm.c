/* cli_llm.c - what the commands say and do for profiles of LLM serving and
 * training runs: the communication kernels' share, the steps and ranges a
 * profile marks, CUDA graphs, the names launched with several shapes, and
 * the key that gives each shape its own strata by default. */
#include "cli_llm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool cli_shapes_count(const ks_profile *p, size_t *names, size_t *launches)
{
    *names = *launches = 0;
    ks_split_name *split;
    size_t count;
    ks_error err;
    if (ks_split_names(p, &split, &count, &err) != KS_OK)
        return false;
    for (size_t k = 0; k < count; k++)
        *launches += split[k].launches;
    *names = count;
    ks_split_names_free(split, count);
    return count > 0;
}

/* Kernel groups of key k at shape share `share` (0 on failure). */
static size_t groups_of(const ks_profile *p, ks_key k, double share)
{
    ks_groups g;
    ks_error err;
    if (ks_groups_build_shapes(p, k, share, &g, &err) != KS_OK)
        return 0;
    size_t n = g.count;
    ks_groups_free(&g);
    return n;
}

void cli_print_shapes(const ks_profile *p, bool json)
{
    ks_split_name *split;
    size_t count;
    ks_error err;
    if (ks_split_names(p, &split, &count, &err) != KS_OK)
        return;
    size_t launches = 0;
    for (size_t k = 0; k < count; k++)
        launches += split[k].launches;
    const char *what = ks_profile_has_dims(p) ? "shapes" : "modes";
    /* what key name+shape makes at sample's default share (epsilon 5 %) */
    ks_params pa;
    ks_params_init(&pa);
    double share = ks_params_shape_share(&pa);
    size_t by_name = count ? groups_of(p, KS_KEY_NAME, 0) : 0;
    size_t at_share = count ? groups_of(p, KS_KEY_NAME_SHAPE, share) : 0;
    size_t every = count ? groups_of(p, KS_KEY_NAME_SHAPE, 0) : 0;
    if (json) {
        printf(", \"shapes\": {\"by\": \"%s\", \"names\": %zu, \"launches\": %zu, "
               "\"groups\": {\"name\": %zu, \"shape_share\": %.17g, \"name_shape\": %zu, "
               "\"every_shape\": %zu}, \"split\": [",
               ks_profile_has_dims(p) ? "grid+block" : "duration", count, launches, by_name,
               share, at_share, every);
        for (size_t k = 0; k < count; k++) {
            printf("%s{\"name\": ", k ? ", " : "");
            cli_json_string(split[k].label);
            printf(", \"%s\": %zu, \"launches\": %zu}", what, split[k].parts,
                   split[k].launches);
        }
        printf("]}");
    } else if (count) {
        printf("shapes:       %zu names launched with several %s, %zu launches (key "
               "name+shape gives each of at least epsilon / 4 of the time its own group; "
               "sample's default is key name)\n",
               count,
               ks_profile_has_dims(p) ? "(grid, block) shapes"
                                      : "clearly separate duration modes (no grid, block)",
               launches);
        printf("              kernel groups: %zu by name; name+shape %zu at the default "
               "shape share (%.4g %% of the time, epsilon %.4g %%), %zu with every %s\n",
               by_name, at_share, 100 * share, 100 * pa.epsilon, every,
               ks_profile_has_dims(p) ? "shape" : "mode");
        for (size_t k = 0; k < count && k < 5; k++)
            printf("  %3zu %-6s %8zu launches  %.90s\n", split[k].parts, what,
                   split[k].launches, split[k].label);
        if (count > 5)
            printf("  ... (%zu more)\n", count - 5);
    }
    ks_split_names_free(split, count);
}

void cli_note_shapes(const ks_profile *p, const ks_params *pa)
{
    if (pa->key_given)
        return;
    const ks_method *m = ks_method_find(pa->method ? pa->method : "root");
    if (!m || m->default_key != KS_KEY_NAME)
        return;
    /* Shape strata are not the default: on the transformer and the
     * synthetic set planned from their time profiles, ROOT's calibrated
     * model covered 89 % with them (docs/llm.md) */
    size_t names, launches;
    if (cli_shapes_count(p, &names, &launches))
        fprintf(stderr,
                "ksample: %zu kernel name%s launch with several shapes (%zu launches): "
                "--key name+shape gives a shape of at least epsilon / 4 of the profiled "
                "time its own strata (docs/llm.md)\n",
                names, names == 1 ? "" : "s", launches);
}

void cli_print_comm(const ks_comm_summary *c, bool planning)
{
    if (!c->launches) {
        printf("communication: none (no NCCL, RCCL, NVSHMEM or serving-framework "
               "all-reduce kernel; --comm-pattern adds names)\n");
        return;
    }
    printf("communication: %llu launches, %.6g ms, %.1f %% of the kernel time",
           (unsigned long long)c->launches, c->time_ns / 1e6,
           c->total_ns > 0 ? 100 * c->time_ns / c->total_ns : 0);
    if (isfinite(c->overlap_ns))
        printf("; %.1f %% of it ran beside kernels on other streams", 
               c->time_ns > 0 ? 100 * c->overlap_ns / c->time_ns : 0);
    printf("\n");
    for (size_t k = 0; k < c->name_count && k < 5; k++)
        printf("               %8llu %12.6g ms  %.90s\n", (unsigned long long)c->name_launches[k],
               c->name_ns[k] / 1e6, c->names[k]);
    if (planning)
        printf("               sample leaves them out of plans (a single-GPU simulator cannot "
               "run them) and records their time; --include-comm keeps them\n");
}

/* Ranges of one name and kind, summed: instances and launches. */
typedef struct range_row {
    const char *name;
    ks_range_kind kind;
    size_t instances, launches;
} range_row;

void cli_print_regions(const ks_profile *p, bool json)
{
    long lo = -1, hi = -1;
    size_t steps = 0, step_launches = 0;
    range_row *rows = calloc(p->range_count ? p->range_count : 1, sizeof *rows);
    size_t nrows = 0;
    for (size_t r = 0; rows && r < p->range_count; r++) {
        const ks_range *rg = &p->ranges[r];
        long s = ks_range_step(rg);
        if (s >= 0) {
            steps++;
            step_launches += rg->count;
            lo = lo < 0 || s < lo ? s : lo;
            hi = s > hi ? s : hi;
            continue;
        }
        size_t k = 0;
        while (k < nrows && !(rows[k].kind == rg->kind && strcmp(rows[k].name, rg->name) == 0))
            k++;
        if (k == nrows)
            rows[nrows++] = (range_row){rg->name, rg->kind, 0, 0};
        rows[k].instances++;
        rows[k].launches += rg->count;
    }
    if (json) {
        printf(", \"steps\": [");
        size_t shown = 0;
        for (size_t r = 0; r < p->range_count; r++) {
            long s = ks_range_step(&p->ranges[r]);
            if (s < 0)
                continue;
            printf("%s{\"step\": %ld, \"launches\": %zu}", shown++ ? ", " : "", s,
                   p->ranges[r].count);
        }
        printf("], \"ranges\": [");
        for (size_t k = 0; k < nrows; k++) {
            printf("%s{\"name\": ", k ? ", " : "");
            cli_json_string(rows[k].name);
            printf(", \"kind\": \"%s\", \"instances\": %zu, \"launches\": %zu}",
                   ks_range_kind_name(rows[k].kind), rows[k].instances, rows[k].launches);
        }
        printf("], \"graph_launches\": %llu, \"graph_kernels\": %llu",
               (unsigned long long)p->graph_launches, (unsigned long long)p->graph_kernels);
        free(rows);
        return;
    }
    if (steps)
        printf("steps:        %zu profiler steps, ProfilerStep#%ld to #%ld, %zu launches in "
               "them (--step A-B)\n",
               steps, lo, hi, step_launches);
    if (nrows) {
        printf("ranges:       %zu names (--range NAME)\n", nrows);
        for (size_t k = 0; k < nrows && k < 20; k++)
            printf("  %-15s %5zu x %8zu launches  %.80s\n", ks_range_kind_name(rows[k].kind),
                   rows[k].instances, rows[k].launches, rows[k].name);
        if (nrows > 20)
            printf("  ... (%zu more)\n", nrows - 20);
    }
    if (!steps && !nrows)
        printf("regions:      none marked (no profiler steps, annotations or NVTX ranges); "
               "--time-window and --launches still select\n");
    if (p->graph_launches)
        printf("cuda graphs:  %llu graph launches ran %llu of these kernels: the profile lists "
               "each kernel a replayed graph ran, in the order it ran; a tracer that hooks "
               "kernel launch calls (cuLaunchKernel) does not see them, and its launch ids "
               "then skip them: compare its kernel count with this profile's before exporting "
               "a plan\n",
               (unsigned long long)p->graph_launches, (unsigned long long)p->graph_kernels);
    free(rows);
}
