/*
 * fuzz_estimate_json.c - the reader of `ksample estimate --json` output that
 * the report shows (lib/report/estimate_json.c): rows or an error naming the
 * file, never a crash or a leak.  The bytes reach the reader as an
 * in-memory file (memfd).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ksample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("ksample-fuzz-estimate", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ks_estimate_row *rows = NULL;
    size_t n = 0;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_estimate_rows_read(path, &rows, &n, &err);
    if (st == KS_OK) {
        for (size_t i = 0; i < n; i++)
            if (rows[i].bound_met < -1 || rows[i].bound_met > 1 ||
                !memchr(rows[i].metric, '\0', sizeof rows[i].metric))
                abort();
    } else if (!err.message[0] || st == KS_ERR_INTERNAL || rows || n) {
        abort();
    }
    free(rows);
    close(fd);
    return 0;
}
