/*
 * bench_report_run.c - the cost of the report page and of the local job
 * engine itself (not of the simulations it runs).
 *
 * usage: bench_report_run PROFILE RUNDIR [JOBS [PARALLEL]]
 * Prints key=value lines: the page (histograms of the top 6 kernels with a
 * ROOT plan drawn, no evaluation) in seconds and bytes; then JOBS jobs of
 * `true` through the local engine with PARALLEL processes, in jobs/s, and a
 * rerun that skips them all.
 */
#include "ksample.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const ks_error *err)
{
    char buf[1200];
    ks_error_format(err, buf, sizeof buf);
    fprintf(stderr, "bench_report_run: %s\n", buf);
    return err->status ? (int)err->status : 6;
}

static int bench_page(const char *path)
{
    ks_error err;
    ks_error_clear(&err);
    ks_profile *p;
    if (ks_profile_read(path, NULL, &p, &err) != KS_OK)
        return fail(&err);
    ks_params pa;
    ks_params_init(&pa);
    ks_plan plan;
    if (ks_plan_build(p, &pa, &plan, &err) != KS_OK)
        return fail(&err);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ks_report_input in = {.profile = p, .plan = &plan};
    double t0 = bench_now();
    ks_status st = f ? ks_report_write_html(&in, f, &err) : KS_ERR_NOMEM;
    if (f)
        fclose(f);
    double s = bench_now() - t0;
    if (st != KS_OK)
        return fail(&err);
    printf("report invocations=%zu samples=%zu clusters=%zu page_seconds=%.3f page_bytes=%zu\n",
           p->n, plan.sample_count, plan.cluster_count, s, len);
    free(buf);
    ks_plan_free(&plan);
    ks_profile_free(p);
    return 0;
}

static int bench_engine(const char *rundir, size_t n, unsigned parallel)
{
    ks_run_job *jobs = calloc(n, sizeof *jobs);
    char (*dirs)[32] = calloc(n, sizeof *dirs);
    if (!jobs || !dirs)
        return 5;
    for (size_t i = 0; i < n; i++) {
        snprintf(dirs[i], sizeof dirs[i], "jobs/%06zu", i);
        jobs[i].dir = dirs[i];
        jobs[i].command = "true";
    }
    ks_error err;
    ks_error_clear(&err);
    ks_run_options o;
    ks_run_options_init(&o);
    o.rundir = rundir;
    o.parallel = parallel;
    ks_run_progress last;
    double t0 = bench_now();
    if (ks_run_execute(&o, jobs, n, NULL, NULL, &last, &err) != KS_OK)
        return fail(&err);
    double run_s = bench_now() - t0;
    t0 = bench_now();
    ks_run_progress again;
    if (ks_run_execute(&o, jobs, n, NULL, NULL, &again, &err) != KS_OK)
        return fail(&err);
    double skip_s = bench_now() - t0;
    printf("engine jobs=%zu parallel=%u done=%zu seconds=%.3f jobs_per_second=%.0f "
           "rerun_skipped=%zu rerun_seconds=%.3f\n",
           n, parallel, last.done, run_s, (double)n / run_s, again.skipped, skip_s);
    free(jobs);
    free(dirs);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_report_run PROFILE RUNDIR [JOBS [PARALLEL]]\n");
        return 2;
    }
    int rc = bench_page(argv[1]);
    if (rc)
        return rc;
    size_t n = argc > 3 ? strtoul(argv[3], NULL, 10) : 500;
    unsigned parallel = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 2;
    return bench_engine(argv[2], n, parallel);
}
