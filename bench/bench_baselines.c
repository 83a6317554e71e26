/*
 * bench_baselines.c - how long PKA, Sieve and Photon take to fit, on a
 * synthetic workload with the features `synth --ncu --bbv` writes.  Reading
 * the feature files is timed apart: a long Nsight Compute CSV holds 13 rows
 * per launch and dominates the command's time.
 *
 * usage: bench_baselines FOLDER [N [PRESET]]   (writes its inputs in FOLDER)
 * Prints per method: fit seconds (best of 3), clusters, peak resident memory.
 */
#include "ksample.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static ks_status write_run(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write(ctx, f, err);
}

static ks_status write_ncu(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write_ncu(ctx, 7, f, err);
}

static ks_status write_bbv(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write_bbv(ctx, 7, f, err);
}

static int fail(const ks_error *err)
{
    fprintf(stderr, "bench_baselines: %s: %s\n", err->file, err->message);
    return err->status ? (int)err->status : 6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_baselines FOLDER [N [PRESET]]\n");
        return 2;
    }
    char run[4096], ncu[4096], bbv[4096];
    snprintf(run, sizeof run, "%s/bl-run.csv", argv[1]);
    snprintf(ncu, sizeof ncu, "%s/bl-ncu.csv", argv[1]);
    snprintf(bbv, sizeof bbv, "%s/bl-bbv.csv", argv[1]);
    ks_synth_options so = {.preset = argc > 3 ? argv[3] : "casio-like",
                           .n = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000,
                           .seed = 7};
    ks_error err;
    ks_error_clear(&err);
    ks_read_options ro;
    ks_read_options_init(&ro);
    ks_profile *p;
    if (ks_write_atomic(run, write_run, &so, &err) != KS_OK ||
        ks_profile_read(run, &ro, &p, &err) != KS_OK)
        return fail(&err);
    if (ks_write_atomic(ncu, write_ncu, p, &err) != KS_OK ||
        ks_write_atomic(bbv, write_bbv, p, &err) != KS_OK)
        return fail(&err);
    double t0 = bench_now();
    if (ks_profile_attach(p, KS_SOURCE_METRICS, ncu, &err) != KS_OK)
        return fail(&err);
    double t1 = bench_now();
    if (ks_profile_attach(p, KS_SOURCE_BBV, bbv, &err) != KS_OK)
        return fail(&err);
    double t2 = bench_now();
    printf("preset=%s invocations=%zu attach_ncu_s=%.3f attach_bbv_s=%.3f\n", so.preset, p->n,
           t1 - t0, t2 - t1);
    const char *methods[] = {"pka", "sieve", "photon", "root"};
    for (int m = 0; m < 4; m++) {
        ks_params pa;
        ks_params_init(&pa);
        pa.method = methods[m];
        double best = 1e300;
        size_t clusters = 0;
        for (int r = 0; r < 3; r++) {
            ks_plan plan;
            double s = bench_now();
            if (ks_plan_build(p, &pa, &plan, &err) != KS_OK)
                return fail(&err);
            double e = bench_now() - s;
            best = e < best ? e : best;
            clusters = plan.cluster_count;
            ks_plan_free(&plan);
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("method=%s plan_s=%.4f clusters=%zu peak_rss_mb=%.1f\n", methods[m], best,
               clusters, ru.ru_maxrss / 1024.0);
    }
    ks_profile_free(p);
    remove(run);
    remove(ncu);
    remove(bbv);
    return 0;
}
