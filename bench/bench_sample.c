/*
 * bench_sample.c - how fast ksample reads and plans a large profile, and how
 * much memory it holds per invocation.
 *
 * usage: bench_sample PROFILE [METHOD [REPEATS]]
 * Prints one line of key=value pairs: invocations, read seconds and MB/s,
 * plan seconds (best of REPEATS) and invocations planned per second,
 * column bytes per invocation, name bytes, peak resident memory.
 */
#include "ksample.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sample PROFILE [METHOD [REPEATS]]\n");
        return 2;
    }
    const char *method = argc > 2 ? argv[2] : "root";
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    struct stat sb;
    if (stat(argv[1], &sb) != 0) {
        perror(argv[1]);
        return 3;
    }
    ks_error err;
    ks_error_clear(&err);
    ks_profile *p;
    double t0 = bench_now();
    if (ks_profile_read(argv[1], NULL, &p, &err) != KS_OK) {
        char buf[1200];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "bench_sample: %s\n", buf);
        return 4;
    }
    double read_s = bench_now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss_after_read_kb = ru.ru_maxrss;

    ks_params pa;
    ks_params_init(&pa);
    pa.method = method;
    double best = 1e300;
    size_t samples = 0, clusters = 0;
    double speedup = 0;
    for (int r = 0; r < (repeats > 0 ? repeats : 1); r++) {
        ks_plan plan;
        pa.seed = 1 + (uint64_t)r;
        t0 = bench_now();
        if (ks_plan_build(p, &pa, &plan, &err) != KS_OK) {
            fprintf(stderr, "bench_sample: %s\n", err.message);
            return 4;
        }
        double s = bench_now() - t0;
        best = s < best ? s : best;
        samples = plan.sample_count;
        clusters = plan.cluster_count;
        speedup = plan.predicted_speedup;
        ks_plan_free(&plan);
    }
    getrusage(RUSAGE_SELF, &ru);
    size_t name_bytes = 0;
    for (size_t i = 0; i < p->name_count; i++)
        name_bytes += strlen(p->names[i]) + 1 + sizeof(char *);
    printf("file=%s bytes=%lld invocations=%zu names=%zu read_s=%.3f read_MBps=%.1f "
           "method=%s plan_s=%.3f plan_Minv_per_s=%.2f samples=%zu clusters=%zu "
           "predicted_speedup=%.1f column_bytes_per_inv=%.1f name_bytes=%zu "
           "peak_rss_after_read_MB=%.1f peak_rss_MB=%.1f\n",
           argv[1], (long long)sb.st_size, p->n, p->name_count, read_s,
           (double)sb.st_size / 1e6 / read_s, method, best, (double)p->n / best / 1e6, samples,
           clusters, speedup, (double)ks_profile_column_bytes(p) / (double)p->n, name_bytes,
           rss_after_read_kb / 1024.0, ru.ru_maxrss / 1024.0);
    ks_profile_free(p);
    return 0;
}
