/*
 * fuzz_nvtx_csv.c - NVTX ranges from nsys's nvtx_gpu_proj_trace CSV
 * (lib/readers/read_nvtx_csv.c) attached to a small profile with start
 * times.  Whatever the bytes: an accepted report adds ranges whose launches
 * are the profile's, ascending, each starting inside its range; a refusal
 * says why.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_profile *p = ks_profile_new();
    ks_error err;
    ks_input *in = NULL;
    if (!p)
        return 0;
    uint32_t id;
    if (ks_profile_intern(p, "k", 1, &id, &err) != KS_OK)
        goto done;
    for (int i = 0; i < 16; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.name_id = id;
        inv.start_ns = 1000 * i;
        inv.duration_ns = 500;
        if (ks_profile_append(p, &inv, &err) != KS_OK)
            goto done;
    }
    snprintf(p->source_format, sizeof p->source_format, "fuzz");
    if (ks_input_open_memory(data, size, "fuzz.csv", &in, &err) != KS_OK)
        goto done;
    if (ks_profile_read_ranges(p, in, &err) != KS_OK) {
        if (!err.message[0])
            abort();
        goto done;
    }
    for (size_t r = 0; r < p->range_count; r++) {
        const ks_range *rg = &p->ranges[r];
        if (!rg->resolved || !rg->gpu_clock)
            abort();
        for (size_t k = 0; k < rg->count; k++) {
            uint32_t i = rg->ids[k];
            if (i >= p->n || (k && i <= rg->ids[k - 1]) || p->start_ns[i] < rg->begin_ns ||
                p->start_ns[i] >= rg->end_ns)
                abort();
        }
    }
done:
    ks_input_close(in);
    ks_profile_free(p);
    return 0;
}
