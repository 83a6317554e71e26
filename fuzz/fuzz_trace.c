/*
 * fuzz_trace.c - libFuzzer target for the Accel-Sim trace reader.
 *
 * The input is up to three parts separated by a line "%%": the trace, then
 * optionally the list (kernelslist.g; default "kernel-1.traceg"), then
 * optionally stats.csv.  They are written to a temporary folder (the trace
 * both as kernel-1.traceg and as kernel-1.trace, so a list can reach either
 * layout), which is opened, streamed, counted, profiled and cut into
 * basic blocks.  Any outcome but a crash, a hang or a leak is fine.
 */
#include "fuzz_input.h"
#include "trace.h"

static char fuzz_dir[256];
static const char *const files[] = {"kernel-1.traceg", "kernel-1.trace", "kernelslist.g",
                                    "stats.csv"};

static ks_status ignore_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                             ks_error *err)
{
    (*(uint64_t *)ctx) += inst->naddr + inst->ndst + inst->nsrc;
    return KS_OK;
}

static void exercise(ks_trace_set *s)
{
    ks_error err;
    for (size_t i = 0; i < ks_trace_set_kernel_count(s) && i < 4; i++) {
        uint64_t sum = 0;
        ks_trace_filter filter = {1, 1, 3};
        ks_trace_set_stream(s, i, NULL, ignore_inst, &sum, &err);
        ks_trace_set_stream(s, i, &filter, ignore_inst, &sum, &err);
        ks_trace_counts counts;
        if (ks_trace_set_count(s, i, &counts, &err) == KS_OK &&
            counts.thread_insts > 32 * counts.warp_insts)
            abort(); /* a line has at most 32 active lanes */
        ks_trace_bbv b;
        uint64_t warps;
        if (ks_trace_set_bbv(s, i, &b, &warps, &err) == KS_OK)
            ks_trace_bbv_free(&b);
    }
    ks_profile *p = NULL;
    if (ks_trace_set_profile(s, &p, &err) == KS_OK)
        ks_profile_free(p);
}

static void cleanup(void)
{
    fuzz_folder_remove(fuzz_dir, files, sizeof files / sizeof files[0], NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_folder_ready(fuzz_dir, sizeof fuzz_dir, "ks-fuzz-trace", NULL, cleanup))
        return 0;
    size_t a = fuzz_next_part(data, size, 0);
    size_t b = a < size ? fuzz_next_part(data, size, a + 4) : size;
    const uint8_t *list = (const uint8_t *)"kernel-1.traceg\n";
    size_t list_len = 16;
    if (a < size) {
        list = data + a + 4;
        list_len = (b < size ? b : size) - (a + 4);
    }
    /* a list may name any relative path: keep it inside the folder */
    for (size_t i = 0; i + 1 < list_len; i++)
        if (list[i] == '.' && list[i + 1] == '.')
            return 0;
    if (fuzz_folder_put(fuzz_dir, "kernel-1.traceg", data, a) ||
        fuzz_folder_put(fuzz_dir, "kernel-1.trace", data, a) ||
        fuzz_folder_put(fuzz_dir, "kernelslist.g", list, list_len))
        return 0;
    if (b < size) {
        if (fuzz_folder_put(fuzz_dir, "stats.csv", data + b + 4, size - (b + 4)))
            return 0;
    } else {
        fuzz_folder_drop(fuzz_dir, "stats.csv");
    }
    ks_trace_set *s = NULL;
    ks_error err;
    if (ks_trace_set_open(fuzz_dir, &s, &err) == KS_OK) {
        exercise(s);
        ks_trace_set_free(s);
    }
    return 0;
}
