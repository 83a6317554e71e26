/* fuzz_getstats.c - the get_stats.py CSV parser on arbitrary bytes, line
 * by line as ks_results_read feeds it, and the regex -> metric name rule on
 * every section title it meets: refuse or parse, never crash. */
#include "simout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t seen = 0;
    ks_error err;
    ks_getstats *g;
    if (ks_getstats_new("fuzz.csv", check_cell, &seen, &g, &err) != KS_OK)
        return 0;
    char *copy = malloc(size + 1);
    if (!copy) {
        ks_getstats_free(g);
        return 0;
    }
    memcpy(copy, data, size);
    copy[size] = '\0';
    long number = 0;
    ks_status st = KS_OK;
    for (char *line = copy; st == KS_OK && line <= copy + size;) {
        char *end = memchr(line, '\n', (size_t)(copy + size - line));
        if (!end)
            end = copy + size;
        *end = '\0';
        st = ks_getstats_line(g, line, strlen(line), ++number, &err);
        line = end + 1;
    }
    if (st == KS_OK)
        ks_getstats_finish(g, NULL, &err);
    ks_getstats_free(g);
    free(copy);
    return 0;
}
