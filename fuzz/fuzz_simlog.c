/* fuzz_simlog.c - the simulator-log parser on arbitrary bytes, line by line
 * as ks_results_read feeds it: refuse or parse, never crash; every value it
 * hands on is a finite non-negative number (the strict rule), and each
 * block's kernel name and per-uid dimensions are readable. */
#include "simout.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t seen = 0;
    ks_error err;
    ks_simlog *s;
    if (ks_simlog_new("fuzz.log", count_block, &seen, &s, &err) != KS_OK)
        return 0;
    char *copy = malloc(size + 1);
    if (!copy) {
        ks_simlog_free(s);
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
        /* a NUL inside a line ends it early, as a C-string reader would */
        st = ks_simlog_line(s, line, strlen(line), ++number, &err);
        line = end + 1;
    }
    if (st == KS_OK)
        ks_simlog_finish(s, NULL, &err);
    ks_simlog_free(s);
    free(copy);
    return 0;
}
