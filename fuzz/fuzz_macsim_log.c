/* fuzz_macsim_log.c - the MacSim stdout parser and the general.stat.out
 * line parser on arbitrary bytes, line by line as ks_results_read feeds
 * them: refuse or parse, never crash.  Every kernel handed on must end
 * after it starts and lie inside its run. */
#include "fuzz_input.h"
#include "simout.h"

static ks_status check_kernel(void *ctx, const ks_macsim_kernel *k, ks_error *err)
{
    (void)err;
    (*(size_t *)ctx)++;
    if (k->index >= k->count || !k->trace || k->start + k->cycles < k->start)
        abort();
    return KS_OK;
}

/* Both parsers see every line: the stdout parser until it refuses one
 * (st keeps its status), the stats line parser to the end. */
typedef struct feed {
    ks_macsim_log *m;
    ks_status st;
} feed;

static ks_status feed_line(void *ctx, char *line, long number, ks_error *err)
{
    feed *f = ctx;
    if (f->st == KS_OK)
        f->st = ks_macsim_log_line(f->m, line, number, err);
    char name[64];
    double v;
    bool found;
    if (ks_macsim_stats_line(line, number, "fuzz.stat", name, sizeof name, &v, &found, err) ==
            KS_OK &&
        found && (!name[0] || v != v))
        abort();
    return KS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t seen = 0;
    ks_error err;
    feed f = {NULL, KS_OK};
    if (ks_macsim_log_new("fuzz.log", check_kernel, &seen, &f.m, &err) != KS_OK)
        return 0;
    if (fuzz_each_line(data, size, feed_line, &f, &err) == KS_OK && f.st == KS_OK)
        ks_macsim_log_finish(f.m, NULL, &err);
    ks_macsim_log_free(f.m);
    return 0;
}
