/*
 * bench_warm.c - what rebuilding the warm state (--warmup state) costs on a
 * program of many launches, against reading its traces at all.
 *
 * usage: bench_warm [--launches N] [--distinct K] [--samples S] [--dir DIR] [--keep]
 * Writes K distinct synthetic launches (ksample synth --traces, seed 11)
 * and a kernelslist.g of N launches that cycles through them (default
 * N = 10,000, K = 160), then times, each on the whole folder:
 *   open    the list and every launch's header (what export reads today)
 *   stream  every instruction of every launch decoded, nothing kept (the
 *           floor: a state needs every address)
 *   walk    the state walk up to the last launch with S sampled launches
 *           spread over the program (default 100), each launch's accesses in
 *           lockstep order through the RTX 3070's L2 model (4 MB, 16 ways,
 *           cut 2), the footprint of each sampled launch computed
 *   carry   the walk and each state written as a warm-up kernel (to
 *           /dev/null), as run writes it
 * and prints wall seconds, launches/s, MB/s of trace text and peak RSS.
 */
#include "trace.h"
#include "warm.h"
#include "../tests/warm_gpu.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const ks_error *err)
{
    char buf[1200];
    ks_error_format(err, buf, sizeof buf);
    fprintf(stderr, "bench_warm: %s\n", buf);
    exit(1);
}

typedef struct counts {
    uint64_t insts, mem;
} counts;

static ks_status count(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                       ks_error *err)
{
    (void)k;
    (void)err;
    counts *c = ctx;
    c->insts++;
    c->mem += inst->mem_width != 0;
    return KS_OK;
}

typedef struct carry {
    FILE *sink;
    bool write;
    uint64_t lines, footprint;
} carry;

static ks_status on_state(void *ctx, size_t launch, const ks_state_view *v, ks_error *err)
{
    const ks_l2_state *s = v->l2;
    const ks_line_set *footprint = v->footprint;
    carry *c = ctx;
    c->lines += s->held;
    c->footprint += footprint ? footprint->count : 0;
    if (!c->write)
        return KS_OK;
    ks_warm_kernel_shape shape = {launch + 1, 5, 80, 0, 0, 46, false, NULL};
    return ks_state_write_accelsim_kernel(c->sink, s, footprint, &shape, NULL, NULL, err);
}

int main(int argc, char **argv)
{
    uint64_t n = 10000, k = 160, samples = 100;
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    bool keep = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--launches") == 0 && i + 1 < argc)
            n = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--distinct") == 0 && i + 1 < argc)
            k = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
            samples = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            base = argv[++i];
        else if (strcmp(argv[i], "--keep") == 0)
            keep = true;
        else {
            fprintf(stderr, "usage: bench_warm [--launches N] [--distinct K] [--samples S] "
                            "[--dir DIR] [--keep]\n");
            return 2;
        }
    }
    if (n < 1 || k < 1 || samples < 1 || samples > n) {
        fprintf(stderr, "bench_warm: need 1 <= samples <= launches and distinct >= 1\n");
        return 2;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bench-warm-XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    ks_error err;
    ks_error_clear(&err);
    ks_synth_traces_options so = {.launches = k, .seed = 11};
    double t0 = bench_now();
    if (ks_synth_traces_write(dir, &so, &err) != KS_OK)
        die(&err);
    /* the list of n launches cycling through the k written */
    char list[4200];
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    FILE *f = fopen(list, "w");
    if (!f) {
        perror(list);
        return 1;
    }
    for (uint64_t i = 0; i < n; i++)
        fprintf(f, "kernel-%llu.traceg\n", (unsigned long long)(i % k + 1));
    fclose(f);
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < k; i++) {
        char p[4300];
        struct stat sb;
        snprintf(p, sizeof p, "%s/kernel-%llu.traceg", dir, (unsigned long long)i + 1);
        if (stat(p, &sb) == 0)
            bytes += (uint64_t)sb.st_size;
    }
    double text_mb = (double)bytes * ((double)n / (double)k) / 1e6;
    printf("folder: %llu launches (%llu distinct, written in %.1f s), %.0f MB of trace text "
           "in all\n",
           (unsigned long long)n, (unsigned long long)k, bench_now() - t0, text_mb);

    t0 = bench_now();
    ks_trace_set *set;
    if (ks_trace_set_open(dir, &set, &err) != KS_OK)
        die(&err);
    double t_open = bench_now() - t0;
    printf("open    %8.2f s  (%.0f launches/s)  peak RSS %ld KB\n", t_open,
           (double)n / t_open, bench_peak_rss_kb());

    t0 = bench_now();
    counts c = {0};
    for (uint64_t i = 0; i < n; i++)
        if (ks_trace_set_stream(set, i, NULL, count, &c, &err) != KS_OK)
            die(&err);
    double t_stream = bench_now() - t0;
    ks_trace_set_free(set);
    printf("stream  %8.2f s  (%.0f launches/s, %.0f MB/s, %.1f M memory instructions)  "
           "peak RSS %ld KB\n",
           t_stream, (double)n / t_stream, text_mb / t_stream, (double)c.mem / 1e6,
           bench_peak_rss_kb());

    size_t *sampled = malloc(samples * sizeof *sampled);
    for (uint64_t j = 0; j < samples; j++)
        sampled[j] = (size_t)((j + 1) * n / samples - 1);
    ks_state_walk_options o = warm_rtx3070();
    for (int pass = 0; pass < 2; pass++) {
        carry cc = {fopen("/dev/null", "w"), pass == 1, 0, 0};
        t0 = bench_now();
        if (ks_state_walk(dir, sampled, samples, &o, on_state, &cc, &err) != KS_OK)
            die(&err);
        double t = bench_now() - t0;
        fclose(cc.sink);
        printf("%s %8.2f s  (%.0f launches/s, %.0f MB/s; %.2fx the stream)  %llu sampled, "
               "%.0f lines held and %.0f touched a sampled launch  peak RSS %ld KB\n",
               pass ? "carry " : "walk  ", t, (double)n / t, text_mb / t, t / t_stream,
               (unsigned long long)samples, (double)cc.lines / (double)samples,
               (double)cc.footprint / (double)samples, bench_peak_rss_kb());
    }
    free(sampled);
    if (!keep) {
        char cmd[4400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_warm: could not remove %s\n", dir);
    } else
        printf("kept %s\n", dir);
    return 0;
}
