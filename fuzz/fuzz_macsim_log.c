/* fuzz_macsim_log.c - the MacSim stdout parser and the general.stat.out
 * line parser on arbitrary bytes, line by line as ks_results_read feeds
 * them: refuse or parse, never crash.  Every kernel handed on must end
 * after it starts and lie inside its run. */
#include "simout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ks_status check_kernel(void *ctx, const ks_macsim_kernel *k, ks_error *err)
{
    (void)err;
    (*(size_t *)ctx)++;
    if (k->index >= k->count || !k->trace || k->start + k->cycles < k->start)
        abort();
    return KS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t seen = 0;
    ks_error err;
    ks_macsim_log *m;
    if (ks_macsim_log_new("fuzz.log", check_kernel, &seen, &m, &err) != KS_OK)
        return 0;
    char *copy = malloc(size + 1);
    if (!copy) {
        ks_macsim_log_free(m);
        return 0;
    }
    memcpy(copy, data, size);
    copy[size] = '\0';
    long number = 0;
    ks_status st = KS_OK;
    for (char *line = copy; line <= copy + size;) {
        char *end = memchr(line, '\n', (size_t)(copy + size - line));
        if (!end)
            end = copy + size;
        *end = '\0';
        number++;
        if (st == KS_OK)
            st = ks_macsim_log_line(m, line, number, &err);
        char name[64];
        double v;
        bool found;
        if (ks_macsim_stats_line(line, number, "fuzz.stat", name, sizeof name, &v, &found,
                                 &err) == KS_OK &&
            found && (!name[0] || v != v))
            abort();
        line = end + 1;
    }
    if (st == KS_OK)
        ks_macsim_log_finish(m, NULL, &err);
    ks_macsim_log_free(m);
    free(copy);
    return 0;
}
