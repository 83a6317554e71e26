/*
 * fuzz_known_cache.c - libFuzzer target for the cache of the traces'
 * instruction counts (lib/estimate/known.c, RUNDIR/trace-counts.csv).
 *
 * A fixed folder of one small trace (kernel-1.traceg, 2 warps: 48 thread
 * and 5 warp instructions, modification time 1 s after the epoch) is
 * written once; the input is the cache file.  A cache row is trusted only
 * for the file of its name, size and time, so the counts must be the
 * trace's or the row's own, never anything else, and the cache must never
 * be an error.  The folder is removed at exit.
 */
#include "ksample.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir[256];

static const char trace[] =
    "-kernel name = _Z1kPf\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (64,1,1)\n"
    "-shmem = 0\n-nregs = 16\n-binary version = 80\n-cuda stream id = 0\n"
    "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\n"
    "warp = 0\ninsts = 2\n0000 ffffffff 1 R0 S2R 0 0 0 \n0010 00000000 0 EXIT 0 0 0 \n\n"
    "warp = 1\ninsts = 3\n0000 0000ffff 1 R0 S2R 0 0 0 \n0008 00000000 0 NOP 0 0 0 \n"
    "0010 00000000 0 EXIT 0 0 0 \n\n#END_TB\n";

static void path_of(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", fuzz_dir, name);
}

static int put(const char *name, const void *data, size_t size)
{
    char path[512];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && n == size ? 0 : -1;
}

static void cleanup(void)
{
    const char *names[] = {"kernel-1.traceg", "kernelslist.g", "cache.csv"};
    for (size_t i = 0; i < 3; i++) {
        char path[512];
        path_of(path, sizeof path, names[i]);
        unlink(path);
    }
    rmdir(fuzz_dir);
}

static int setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/ks-fuzz-known-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir))
        return -1;
    atexit(cleanup);
    if (put("kernel-1.traceg", trace, sizeof trace - 1) ||
        put("kernelslist.g", "kernel-1.traceg\n", 16))
        return -1;
    char path[512];
    path_of(path, sizeof path, "kernel-1.traceg");
    struct timespec times[2] = {{1, 0}, {1, 0}};
    return utimensat(AT_FDCWD, path, times, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready = 0;
    if (!ready)
        ready = setup() == 0 ? 1 : -1;
    if (ready < 0 || put("cache.csv", data, size))
        return 0;
    char cache[512];
    path_of(cache, sizeof cache, "cache.csv");
    ks_known k;
    ks_error err;
    ks_error_clear(&err);
    if (ks_known_read(fuzz_dir, cache, 0, &k, &err) != KS_OK)
        abort(); /* the trace is good: no cache may make this an error */
    long thread = ks_known_metric(&k, "gpu_sim_insn");
    long warp = ks_known_metric(&k, "gpgpu_n_tot_w_icount");
    if (k.launch_count != 1 || thread < 0 || warp < 0)
        abort();
    /* from the trace, or from a row that vouched for it (then its own
     * numbers, which the reader checks only for thread <= 32 x warp) */
    if (!k.cached && (k.values[thread][0] != 48 || k.values[warp][0] != 5))
        abort();
    if (k.values[warp][0] > UINT64_MAX / 32 || k.values[thread][0] > 32 * k.values[warp][0])
        abort(); /* a row of impossible counts is never trusted */
    ks_known_free(&k);
    return 0;
}
