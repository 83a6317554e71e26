/*
 * fuzz_macsim_traces.c - libFuzzer target for the MacSim trace-folder
 * reader.  The input is up to four parts separated by a line "%%":
 * kernel_config.txt, Kernel0/trace.txt, Kernel0/trace_info.txt, then the raw
 * records of warp 0 (Kernel0/trace_0.raw, uncompressed), optionally followed
 * by kernel_names.txt after a fifth separator.  They are written to a
 * temporary folder, which is opened, profiled, cut into basic blocks and
 * indexed.  Any outcome but a crash, a hang or a leak is fine.
 */
#include "trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir[256];
static const char *const files[] = {"kernel_config.txt", "Kernel0/trace.txt",
                                    "Kernel0/trace_info.txt", "Kernel0/trace_0.raw",
                                    "kernel_names.txt"};

static int put(const char *name, const uint8_t *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && n == size ? 0 : -1;
}

static void drop(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    unlink(path);
}

static size_t next_part(const uint8_t *data, size_t size, size_t from)
{
    for (size_t i = from; i + 4 <= size; i++)
        if (memcmp(data + i, "\n%%\n", 4) == 0)
            return i;
    return size;
}

static void cleanup(void)
{
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        drop(files[i]);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/Kernel0", fuzz_dir);
    rmdir(sub);
    rmdir(fuzz_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/ks-fuzz-macsim-XXXXXX",
                 tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir)) {
            fuzz_dir[0] = '\0';
            return 0;
        }
        char sub[512];
        snprintf(sub, sizeof sub, "%s/Kernel0", fuzz_dir);
        mkdir(sub, 0777);
        atexit(cleanup);
    }
    size_t start = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (start > size) {
            drop(files[i]);
            continue;
        }
        size_t end = next_part(data, size, start);
        /* a list line may name any path: keep it inside the folder */
        if (i == 0)
            for (size_t k = start; k + 1 < end; k++)
                if (data[k] == '.' && data[k + 1] == '.')
                    return 0;
        if (put(files[i], data + start, end - start))
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
