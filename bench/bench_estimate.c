/*
 * bench_estimate.c - how fast the loop's back half runs on a large plan:
 * reading the plan back, parsing a simulator log of one block per sample,
 * the estimate of every metric with intervals, and a refine.
 *
 * usage: bench_estimate [INVOCATIONS [EPSILON [STATS_PER_BLOCK]]]
 * Builds a synthetic profile in memory (200 kernels, lognormal durations),
 * plans it with ROOT, writes the plan and a GPGPU-Sim-style log to $TMPDIR,
 * and prints one line of key=value pairs.
 */
#include "ksample.h"
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static ks_profile *synthetic(size_t n)
{
    ks_profile *p = ks_profile_new();
    ks_rng rng;
    ks_rng_seed(&rng, 5);
    uint32_t ids[200];
    ks_error err;
    for (int k = 0; k < 200; k++) {
        char name[32];
        snprintf(name, sizeof name, "kernel_%03d", k);
        if (ks_profile_intern(p, name, strlen(name), &ids[k], &err) != KS_OK)
            return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        int k = (int)ks_rng_below(&rng, 200);
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.name_id = ids[k];
        inv.duration_ns = (int64_t)(2000.0 * (1 + k % 17) * exp(0.4 * ks_rng_normal(&rng)));
        if (ks_profile_append(p, &inv, &err) != KS_OK)
            return NULL;
    }
    return p;
}

static ks_status write_plan(const void *ctx, FILE *f, ks_error *err)
{
    return ks_plan_write_json(ctx, f, err);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atof(argv[1]) : 2000000;
    double eps = argc > 2 ? atof(argv[2]) : 0.002;
    int stats = argc > 3 ? atoi(argv[3]) : 40;
    const char *tmp = getenv("TMPDIR");
    char plan_path[4096], log_path[4096];
    snprintf(plan_path, sizeof plan_path, "%s/bench_estimate_plan_%d.json",
             tmp && *tmp ? tmp : "/tmp", (int)getpid());
    snprintf(log_path, sizeof log_path, "%s/bench_estimate_sim_%d.log", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    ks_error err;
    ks_error_clear(&err);
    ks_profile *p = synthetic(n);
    ks_params pa;
    ks_params_init(&pa);
    pa.epsilon = eps;
    ks_plan plan;
    if (!p || ks_plan_build(p, &pa, &plan, &err) != KS_OK ||
        ks_write_atomic(plan_path, write_plan, &plan, &err) != KS_OK) {
        fprintf(stderr, "bench_estimate: %s\n", err.message);
        return 1;
    }
    /* one block per sample, uid k = k-th sampled id; cycles follow the
     * profiled time with 20 % noise */
    FILE *f = fopen(log_path, "w");
    ks_rng rng;
    ks_rng_seed(&rng, 9);
    for (size_t i = 0; i < plan.sample_count; i++) {
        double d = (double)p->duration_ns[plan.samples[i].id];
        fprintf(f, "launching kernel name: k uid: %zu\nkernel_name = %s\nkernel_launch_uid = %zu\n"
                   "gpu_sim_cycle = %.0f\ngpu_sim_insn = %.0f\ngpu_tot_sim_cycle = 1\n",
                i + 1, ks_profile_name(p, plan.samples[i].id), i + 1,
                d * 1.4 * exp(0.2 * ks_rng_normal(&rng)), d * 3);
        for (int s = 0; s < stats; s++)
            fprintf(f, "\tstat_%d = %zu\n", s, i * (size_t)s);
    }
    fclose(f);
    struct stat sb;
    double log_mb = stat(log_path, &sb) == 0 ? (double)sb.st_size / 1e6 : 0;

    double t0 = bench_now();
    ks_plan back;
    if (ks_plan_read(plan_path, &back, &err) != KS_OK)
        return fprintf(stderr, "bench_estimate: %s\n", err.message), 1;
    double t1 = bench_now();
    ks_results r;
    ks_results_init(&r);
    ks_results_options ro;
    ks_results_options_init(&ro);
    if (ks_results_read(log_path, &back, &ro, &r, &err) != KS_OK)
        return fprintf(stderr, "bench_estimate: %s\n", err.message), 1;
    double t2 = bench_now();
    ks_estimate_options eo;
    ks_estimate_options_init(&eo);
    ks_estimate e;
    if (ks_estimate_compute(&back, &r, &eo, &e, &err) != KS_OK)
        return fprintf(stderr, "bench_estimate: %s\n", err.message), 1;
    double t3 = bench_now();
    double *y = malloc(back.sample_count * sizeof *y);
    long m = ks_results_metric(&r, "gpu_sim_cycle");
    for (size_t i = 0; i < back.sample_count; i++)
        y[i] = r.values[m][ks_results_row(&r, back.samples[i].id)];
    ks_refine_options rf = {.epsilon = eps / 2, .seed = 11, .single = KS_SINGLE_COLLAPSE};
    ks_plan refined;
    if (ks_plan_refine(&back, p, y, &rf, &refined, &err) != KS_OK)
        return fprintf(stderr, "bench_estimate: %s\n", err.message), 1;
    double t4 = bench_now();
    long cyc = -1;
    for (size_t i = 0; i < e.count; i++)
        if (strcmp(e.metrics[i].name, "gpu_sim_cycle") == 0)
            cyc = (long)i;
    printf("invocations=%zu samples=%zu clusters=%zu metrics=%zu plan_read_s=%.3f "
           "log_read_s=%.3f log_MB=%.1f estimate_s=%.3f refine_s=%.3f refined_samples=%zu "
           "cycles_rel_halfwidth=%.4f\n",
           n, back.sample_count, back.cluster_count, e.count, t1 - t0, t2 - t1,
           log_mb, t3 - t2, t4 - t3, refined.sample_count,
           cyc >= 0 ? e.metrics[cyc].rel_halfwidth : NAN);
    unlink(plan_path);
    unlink(log_path);
    free(y);
    ks_plan_free(&refined);
    ks_estimate_free(&e);
    ks_results_free(&r);
    ks_plan_free(&back);
    ks_plan_free(&plan);
    ks_profile_free(p);
    return 0;
}
