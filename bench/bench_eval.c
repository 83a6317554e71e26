/*
 * bench_eval.c - where `ksample eval` spends its time on a large profile:
 * reading, then each method's evaluation (fit once, ITERS seeds) with the
 * plan cache shared by all methods, as `ksample eval` runs them, and the
 * same methods each with a cache of its own (grouping and sorting redone
 * per method, as before the cache).  Wall and CPU seconds per step (CPU is
 * the steadier figure on a loaded machine) and the load average.  MODE
 * shared or own runs one of the two: the second run of one process reuses
 * pages the first faulted in, so compare modes across two processes.
 *
 * usage: bench_eval PROFILE [ITERS [METHODS [MODE]]]
 *        (default 10, root,stem,allegro,random, both)
 */
#include "ksample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct clocks {
    double wall, cpu;
} clocks;

static clocks now(void)
{
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    return (clocks){(double)w.tv_sec + (double)w.tv_nsec * 1e-9,
                    (double)c.tv_sec + (double)c.tv_nsec * 1e-9};
}

static clocks since(clocks t0)
{
    clocks t = now();
    return (clocks){t.wall - t0.wall, t.cpu - t0.cpu};
}

static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* Every method evaluated with `cache` (NULL: each with its own); returns the
 * summed clocks, prints one line per method. */
static int run_methods(const ks_profile *p, char **methods, int count, unsigned iters,
                       bool shared, clocks *total)
{
    ks_error err;
    ks_eval_options opt = {0};
    if (shared && ks_plan_cache_new(p, &opt.cache, &err) != KS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    *total = (clocks){0, 0};
    for (int i = 0; i < count; i++) {
        ks_params pa;
        ks_params_init(&pa);
        pa.method = methods[i];
        ks_eval_result r;
        ks_eval_detail d;
        clocks t0 = now();
        if (ks_evaluate_ex(p, &pa, iters, &opt, &r, &d, &err) != KS_OK) {
            fprintf(stderr, "%s: %s\n", methods[i], err.message);
            ks_plan_cache_free(opt.cache);
            return 1;
        }
        clocks t = since(t0);
        total->wall += t.wall;
        total->cpu += t.cpu;
        printf("  %-8s %-6s wall %7.3f s  cpu %7.3f s  fit %.4f s  plan_seconds %.4f s  "
               "error mean %.4f %%\n",
               methods[i], shared ? "shared" : "own", t.wall, t.cpu, r.fit_seconds,
               r.plan_seconds, r.error_mean_pct);
        ks_eval_detail_free(&d);
    }
    ks_plan_cache_free(opt.cache);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_eval PROFILE [ITERS [METHODS [shared|own|both]]]\n");
        return 2;
    }
    unsigned iters = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10;
    char list[256];
    snprintf(list, sizeof list, "%s", argc > 3 ? argv[3] : "root,stem,allegro,random");
    char *methods[16];
    int count = 0;
    for (char *tok = strtok(list, ","); tok && count < 16; tok = strtok(NULL, ","))
        methods[count++] = tok;
    printf("load average %.2f before reading\n", load_average());
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *p;
    ks_error err;
    clocks t0 = now();
    if (ks_profile_read(argv[1], &opt, &p, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    clocks read = since(t0);
    printf("read: %zu launches, wall %.3f s, cpu %.3f s\n", p->n, read.wall, read.cpu);
    const char *mode = argc > 4 ? argv[4] : "both";
    clocks shared, own;
    int rc = 0;
    if (strcmp(mode, "own") != 0) {
        rc = run_methods(p, methods, count, iters, true, &shared);
        if (!rc)
            printf("  all methods, one shared cache: wall %.3f s, cpu %.3f s (load %.2f)\n",
                   shared.wall, shared.cpu, load_average());
    }
    if (!rc && strcmp(mode, "shared") != 0) {
        rc = run_methods(p, methods, count, iters, false, &own);
        if (!rc)
            printf("  all methods, a cache each:     wall %.3f s, cpu %.3f s (load %.2f)\n",
                   own.wall, own.cpu, load_average());
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MiB\n", (double)ru.ru_maxrss / 1024);
    ks_profile_free(p);
    return rc;
}
