/*
 * bench_util.h - what the benchmark programs measure with: the monotonic
 * clock and the process's peak resident set.  Header-only, because each
 * file in bench/ is its own program.
 */
#ifndef KS_BENCH_UTIL_H
#define KS_BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The process's peak resident set so far, in KiB (Linux). */
static inline long bench_peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

#endif
