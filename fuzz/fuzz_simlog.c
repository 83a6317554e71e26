/* fuzz_simlog.c - the simulator-log parser on arbitrary bytes, line by line
 * as ks_results_read feeds it: refuse or parse, never crash; every value it
 * hands on is a finite non-negative number (the strict rule), and each
 * block's kernel name and per-uid dimensions are readable. */
#include "fuzz_input.h"
#include "simout.h"

#include <math.h>

static ks_status count_block(void *ctx, const ks_simlog_block *b, ks_error *err)
{
    size_t *n = ctx;
    (void)err;
    *n += b->uid_count + b->stat_count;
    for (size_t i = 0; i < b->stat_count; i++)
        if (!b->names[i] || !b->names[i][0] || !isfinite(b->values[i]) || b->values[i] < 0)
            abort();
    *n += strlen(b->kernel_name);
    for (size_t u = 0; u < b->uid_count; u++)
        *n += b->dims[u][0] + b->dims[u][5];
    return KS_OK;
}

static ks_status feed_line(void *ctx, char *line, long number, ks_error *err)
{
    return ks_simlog_line(ctx, line, strlen(line), number, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t seen = 0;
    ks_error err;
    ks_simlog *s;
    if (ks_simlog_new("fuzz.log", count_block, &seen, &s, &err) != KS_OK)
        return 0;
    if (fuzz_each_line(data, size, feed_line, s, &err) == KS_OK)
        ks_simlog_finish(s, NULL, &err);
    ks_simlog_free(s);
    return 0;
}
