/*
 * fuzz_ncu.c - the Nsight Compute readers (long layout and --page raw), and
 * attaching an ncu file's metrics to a time profile (--metrics), which reads
 * it with partial durations allowed.
 * The first byte picks detection, one forced format, or attaching, so that
 * the same corpus reaches the detector and every reader path behind it.
 */
#include "fuzz_input.h"

/* A time profile of two launches of "k", as attaching expects to find. */
static void fuzz_attach(const uint8_t *data, size_t size)
{
    fuzz_file f;
    if (fuzz_file_open(&f, data, size) != 0)
        return;
    ks_profile *p = ks_profile_new();
    ks_error err;
    ks_error_clear(&err);
    for (int i = 0; p && i < 2; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.duration_ns = 100 + i;
        if (ks_profile_intern(p, "k", 1, &inv.name_id, &err) != KS_OK ||
            ks_profile_append(p, &inv, &err) != KS_OK)
            abort();
    }
    if (p) {
        ks_status st = ks_profile_attach(p, KS_SOURCE_METRICS, f.path, &err);
        if (st == KS_OK)
            for (size_t m = 0; m < p->metric_count; m++)
                if (!p->metrics[m].name || !p->metrics[m].values)
                    abort();
        if (st != KS_OK && !err.message[0])
            abort();
    }
    ks_profile_free(p);
    fuzz_file_close(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const formats[] = {NULL, "ncu-csv", "ncu-raw-csv", "attach"};
    const char *format;
    if (!fuzz_pick_format(&data, &size, formats, sizeof formats / sizeof formats[0], &format))
        return 0;
    if (format && strcmp(format, "attach") == 0)
        fuzz_attach(data, size);
    else
        fuzz_read_as(data, size, format);
    return 0;
}
