/*
 * fuzz_macsim_traces.c - libFuzzer target for the MacSim trace-folder
 * reader.  The input is up to four parts separated by a line "%%":
 * kernel_config.txt, Kernel0/trace.txt, Kernel0/trace_info.txt, then the raw
 * records of warp 0 (Kernel0/trace_0.raw, uncompressed), optionally followed
 * by kernel_names.txt after a fifth separator.  They are written to a
 * temporary folder, which is opened, profiled, cut into basic blocks and
 * indexed.  Any outcome but a crash, a hang or a leak is fine.
 */
#include "fuzz_input.h"
#include "trace.h"

static char fuzz_dir[256];
static const char *const files[] = {"kernel_config.txt", "Kernel0/trace.txt",
                                    "Kernel0/trace_info.txt", "Kernel0/trace_0.raw",
                                    "kernel_names.txt"};

static void cleanup(void)
{
    fuzz_folder_remove(fuzz_dir, files, sizeof files / sizeof files[0], "Kernel0");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_folder_ready(fuzz_dir, sizeof fuzz_dir, "ks-fuzz-macsim", "Kernel0", cleanup))
        return 0;
    size_t start = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (start > size) {
            fuzz_folder_drop(fuzz_dir, files[i]);
            continue;
        }
        size_t end = fuzz_next_part(data, size, start);
        /* a list line may name any path: keep it inside the folder */
        if (i == 0)
            for (size_t k = start; k + 1 < end; k++)
                if (data[k] == '.' && data[k + 1] == '.')
                    return 0;
        if (fuzz_folder_put(fuzz_dir, files[i], data + start, end - start))
            return 0;
        start = end + 4;
    }
    ks_macsim_set *s = NULL;
    ks_error err;
    if (ks_macsim_set_open(fuzz_dir, &s, &err) == KS_OK) {
        for (size_t i = 0; i < ks_macsim_set_count(s) && i < 4; i++) {
            ks_trace_bbv b;
            if (ks_macsim_set_bbv(s, i, &b, &err) == KS_OK)
                ks_trace_bbv_free(&b);
        }
        ks_profile *p = NULL;
        if (ks_macsim_set_profile(s, &p, &err) == KS_OK)
            ks_profile_free(p);
        ks_macsim_set_free(s);
    }
    ks_trace_index *x = NULL;
    if (ks_trace_index_open(fuzz_dir, &x, &err) == KS_OK) {
        ks_trace_index_find(x, "RUN/Kernel0/trace.txt");
        ks_trace_index_free(x);
    }
    return 0;
}
