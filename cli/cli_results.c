/* cli_results.c - the result-reading options of estimate and refine. */
#include "cli_results.h"

#include <stdio.h>
#include <string.h>

void cli_results_init(cli_results *r)
{
    memset(r, 0, sizeof *r);
    ks_results_options_init(&r->read);
    r->single = KS_SINGLE_COLLAPSE;
}

bool cli_results_option(cli_results *r, int opt, const char *arg, const char *cmd, int *rc)
{
    uint64_t u;
    *rc = 0;
    switch (opt) {
    case 'U':
        if (!cli_parse_u64(arg, &u) || u > (uint64_t)INT64_MAX)
            *rc = cli_usage_error(cmd, "--uid-base needs a non-negative integer, got '%s'", arg);
        r->read.uid_mode = KS_UID_BASE;
        r->read.uid_base = (int64_t)u;
        return true;
    case 'W':
        if (r->map_count == CLI_MAX_UID_MAPS)
            *rc = cli_usage_error(cmd, "at most %d --uid-map", CLI_MAX_UID_MAPS);
        else
            r->maps[r->map_count++] = arg;
        r->read.uid_mode = KS_UID_MAP;
        return true;
    case 'C' + 256:
        if (strcmp(arg, "split") == 0)
            r->read.concurrent = KS_CONCURRENT_SPLIT;
        else if (strcmp(arg, "refuse") == 0)
            r->read.concurrent = KS_CONCURRENT_REFUSE;
        else
            *rc = cli_usage_error(cmd, "--concurrent is split or refuse, got '%s'", arg);
        return true;
    case 'T' + 256:
        r->read.traces = arg;
        r->traces_given = true;
        return true;
    case 'M' + 256:
        if (strcmp(arg, "last") == 0)
            r->read.measured = KS_MEASURED_LAST;
        else if (strcmp(arg, "all") == 0)
            r->read.measured = KS_MEASURED_ALL;
        else
            *rc = cli_usage_error(cmd, "--measure is all or last, got '%s'", arg);
        return true;
    case 'S' + 256:
        if (strcmp(arg, "collapse") == 0)
            r->single = KS_SINGLE_COLLAPSE;
        else if (strcmp(arg, "profile-cv") == 0)
            r->single = KS_SINGLE_PROFILE_CV;
        else
            *rc = cli_usage_error(cmd, "--single-sample is collapse or profile-cv, got '%s'",
                                  arg);
        return true;
    }
    return false;
}

int cli_results_read(cli_results *r, const char *plan_path, const ks_plan *plan, char **paths,
                     int count, ks_results *out)
{
    ks_error err;
    ks_error_clear(&err);
    ks_results_init(out);
    if (ks_file_xxh128(plan_path, r->plan_digest, &err) != KS_OK)
        return cli_fail(&err);
    r->read.plan_xxh128 = r->plan_digest;
    /* with the trace folder, a log's kernels are matched by the trace file
     * each names, unless a uid mapping was asked for */
    if (r->traces_given && r->read.uid_mode == KS_UID_SAMPLED)
        r->read.uid_mode = KS_UID_TRACE;
    if (r->map_count > 1 && r->map_count != count) {
        ks_results_free(out);
        fprintf(stderr, "ksample: %d --uid-map for %d results: give one, or one each\n",
                r->map_count, count);
        return KS_ERR_USAGE;
    }
    for (int i = 0; i < count; i++) {
        if (r->map_count)
            r->read.uid_map = r->maps[r->map_count > 1 ? i : 0];
        if (ks_results_read(paths[i], plan, &r->read, out, &err) != KS_OK) {
            ks_results_free(out);
            return cli_fail(&err);
        }
    }
    return 0;
}

int cli_with_plan_results(cli_results *r, const char *plan_path, char **paths, int count,
                          cli_plan_results_fn use, void *ctx)
{
    ks_error err;
    ks_error_clear(&err);
    ks_plan plan;
    if (ks_plan_read(plan_path, &plan, &err) != KS_OK)
        return cli_fail(&err);
    ks_results results;
    int rc = cli_results_read(r, plan_path, &plan, paths, count, &results);
    if (rc == 0) {
        rc = use(&plan, &results, ctx);
        ks_results_free(&results);
    }
    ks_plan_free(&plan);
    return rc;
}
