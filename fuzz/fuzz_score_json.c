/*
 * fuzz_score_json.c - the reader of `ksample score --json` output that the
 * report draws as measured curves (lib/report/score_json.c): points or an
 * error naming the file, never a crash or a leak.  The bytes reach the
 * reader as an in-memory file (fuzz_input.h); every other input is read
 * with a label too, so both ways of naming a series are exercised.
 */
#include "fuzz_input.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file file;
    if (fuzz_file_open(&file, data, size) != 0)
        return 0;
    ks_score_point *pts = NULL;
    size_t n = 0;
    double truth;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_score_points_read(file.path, size % 2 ? "label" : NULL, &truth, &pts, &n,
                                        &err);
    if (st == KS_OK) {
        if (!n || !pts || !(truth > 0))
            abort();
        for (size_t i = 0; i < n; i++)
            if (!memchr(pts[i].series, '\0', sizeof pts[i].series) ||
                !memchr(pts[i].values, '\0', sizeof pts[i].values) || !pts[i].values[0] ||
                pts[i].error_mean < 0 || pts[i].coverage > 1)
                abort();
    } else if (!err.message[0] || st == KS_ERR_INTERNAL || pts || n || !isnan(truth)) {
        abort();
    }
    free(pts);
    fuzz_file_close(&file);
    return 0;
}
