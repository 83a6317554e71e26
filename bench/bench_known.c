/*
 * bench_known.c - what counting a trace folder's instructions costs
 * (estimate's exact totals, lib/estimate/known.c).
 *
 * usage: bench_known TRACE_DIR [CACHE_FILE]
 * Counts every launch's warp and thread instructions (every line parsed),
 * prints launches, bytes, wall seconds, MB/s and seconds per GB, the
 * folder's totals; with CACHE_FILE (which must not exist: it is written)
 * counts a second time through the cache and prints that time too.
 */
#include "ksample.h"

#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

static void report(const char *what, const ks_known *k)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mb = (double)k->bytes_read / 1e6;
    printf("%-8s launches %zu, read %.1f MB (%zu from the cache) in %.3f s", what,
           k->launch_count, mb, k->cached, k->seconds);
    if (k->bytes_read && k->seconds > 0)
        printf(", %.0f MB/s, %.2f s per GB", mb / k->seconds, k->seconds / (mb / 1e3));
    printf(", peak RSS %.1f MB\n", (double)ru.ru_maxrss / 1024);
    for (size_t m = 0; m < k->metric_count; m++) {
        long double sum = 0;
        for (size_t i = 0; i < k->launch_count; i++)
            sum += (long double)k->values[m][i];
        printf("         %s total %.0Lf\n", k->metrics[m], sum);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_known TRACE_DIR [CACHE_FILE]\n");
        return 2;
    }
    struct stat sb;
    if (argc == 3 && stat(argv[2], &sb) == 0) {
        fprintf(stderr, "bench_known: %s exists; give a new file\n", argv[2]);
        return 2;
    }
    ks_error err;
    ks_error_clear(&err);
    ks_known k;
    if (ks_known_read(argv[1], argc == 3 ? argv[2] : NULL, 0, &k, &err) != KS_OK) {
        char buf[1200];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "bench_known: %s\n", buf);
        return 1;
    }
    report("counted", &k);
    ks_known_free(&k);
    if (argc == 3) {
        if (ks_known_read(argv[1], argv[2], 0, &k, &err) != KS_OK)
            return 1;
        report("cached", &k);
        ks_known_free(&k);
    }
    return 0;
}
