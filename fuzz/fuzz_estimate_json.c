/*
 * fuzz_estimate_json.c - the reader of `ksample estimate --json` output that
 * the report shows (lib/report/estimate_json.c): rows or an error naming the
 * file, never a crash or a leak.  The bytes reach the reader as an
 * in-memory file (fuzz_input.h).
 */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file file;
    if (fuzz_file_open(&file, data, size) != 0)
        return 0;
    const char *path = file.path;
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
    fuzz_file_close(&file);
    return 0;
}
