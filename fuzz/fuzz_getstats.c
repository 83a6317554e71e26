/* fuzz_getstats.c - the get_stats.py CSV parser on arbitrary bytes, line
 * by line as ks_results_read feeds it, and the regex -> metric name rule on
 * every section title it meets: refuse or parse, never crash. */
#include "fuzz_input.h"
#include "simout.h"

static ks_status check_cell(void *ctx, const ks_getstats_value *v, ks_error *err)
{
    (void)err;
    (*(size_t *)ctx)++;
    if (!v->stat || !v->config || !v->app || !v->kernel || !v->text)
        abort();
    if (v->numeric && v->missing)
        abort();
    char name[64];
    ks_getstats_metric_name(v->stat_regex, name, sizeof name);
    return KS_OK;
}

static ks_status feed_line(void *ctx, char *line, long number, ks_error *err)
{
    return ks_getstats_line(ctx, line, strlen(line), number, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t seen = 0;
    ks_error err;
    ks_getstats *g;
    if (ks_getstats_new("fuzz.csv", check_cell, &seen, &g, &err) != KS_OK)
        return 0;
    if (fuzz_each_line(data, size, feed_line, g, &err) == KS_OK)
        ks_getstats_finish(g, NULL, &err);
    ks_getstats_free(g);
    return 0;
}
