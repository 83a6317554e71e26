/*
 * fuzz_select.c - a selection (ks_profile_select, lib/core/region.c) over a
 * small Kineto trace with steps, annotations and GPU annotations: the input
 * is "SPEC\n" followed by the trace, so both the spec's parser and the
 * reader's regions are driven.  Whatever the bytes: an accepted selection
 * keeps at least one launch, ids ascend and stay below the file's count,
 * and every range holds launches of the profile; a refusal says why.
 */
#include "fuzz_input.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t spec_len = nl ? (size_t)(nl - data) : size;
    char *spec = malloc(spec_len + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, spec_len);
    spec[spec_len] = '\0';
    const uint8_t *body = nl ? nl + 1 : data + size;
    size_t body_len = size - (size_t)(body - data);
    ks_input *in;
    ks_error err;
    if (ks_input_open_memory(body, body_len, "fuzz", &in, &err) != KS_OK) {
        free(spec);
        return 0;
    }
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.format = "kineto-json";
    opt.select = spec;
    ks_profile *p = NULL;
    ks_status st = ks_profile_read_input(in, &opt, &p, &err);
    ks_input_close(in);
    if (st != KS_OK) {
        if (!err.message[0])
            abort();
    } else {
        if (p->n == 0 || p->n > p->launch_total)
            abort();
        for (size_t i = 0; i < p->n; i++)
            if (ks_profile_launch_id(p, i) >= p->launch_total ||
                (i && ks_profile_launch_id(p, i) <= ks_profile_launch_id(p, i - 1)))
                abort();
        for (size_t r = 0; r < p->range_count; r++)
            for (size_t k = 0; k < p->ranges[r].count; k++)
                if (p->ranges[r].ids[k] >= p->n || (k && p->ranges[r].ids[k] <= p->ranges[r].ids[k - 1]))
                    abort();
    }
    ks_profile_free(p);
    free(spec);
    return 0;
}
