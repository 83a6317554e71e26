/*
 * probe.c - does this Accel-Sim build take MemcpyHtoD lines at 64-bit
 * addresses into L2?  (`run --warmup state:memcpy` asks before it relies on
 * them.)
 *
 * Stock GPGPU-Sim keeps the address of perf_memcpy_to_gpu in a 32-bit
 * unsigned (accel-sim-framework issue #327), so a copy to a real device
 * address (0x7f...) fills the tags of another, truncated, address and the
 * launch that follows finds nothing of it.  The probe is a folder of its
 * own: a kernelslist.g that copies four lines at a 64-bit address and then
 * runs a warm-up kernel (carriers.c) that loads exactly those four lines.
 * Where the copy took, the kernel's 16 sector reads hit in L2; where it did
 * not, every one misses.  The verdict reads GPGPU-Sim's
 * "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = n" of that one kernel.
 */
#include "warm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_ADDR 0x00007f5a00000000ull
#define PROBE_LINES 4

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    (void)ctx;
    char kernel[KS_WARM_KERNEL_FILE_SIZE];
    fprintf(f, "MemcpyHtoD,0x%016llx,%d\n%s\n", PROBE_ADDR, PROBE_LINES * 128,
            ks_warm_kernel_file(kernel, 0));
    return ks_write_status(f, err);
}

static ks_status write_kernel(const void *ctx, FILE *f, ks_error *err)
{
    const ks_l2_state *s = ctx;
    ks_warm_kernel_shape shape = {1, 5, 70, 0, 0, 1, false, NULL};
    return ks_state_write_accelsim_kernel(f, s, NULL, &shape, NULL, NULL, err);
}

ks_status ks_state_probe_write(const char *dir, ks_error *err)
{
    /* the probe folder is ksample's: neither it nor a file in it is
     * followed if it is a link (owned.c), and what a probe before left
     * (its sim.log included) is removed first */
    int fd = ks_owned_open_dir(dir, true, err);
    if (fd < 0)
        return err ? err->status : KS_ERR_IO;
    ks_l2_state s;
    ks_status st = ks_l2_state_init(&s, 64, 64, 64, 128, 32, err);
    if (st != KS_OK) {
        close(fd);
        return st;
    }
    st = ks_l2_state_touch_range(&s, PROBE_ADDR, PROBE_LINES * 128, false, err);
    char name[KS_WARM_KERNEL_FILE_SIZE];
    ks_warm_kernel_file(name, 0);
    if (st == KS_OK)
        st = ks_owned_remove(fd, dir, "sim.log", err);
    if (st == KS_OK)
        st = ks_owned_write(fd, dir, "kernelslist.g", write_list, NULL, err);
    if (st == KS_OK)
        st = ks_owned_write(fd, dir, name, write_kernel, &s, err);
    close(fd);
    ks_l2_state_free(&s);
    return st;
}

ks_status ks_state_probe_read(const char *log, int *takes_memcpy, ks_error *err)
{
    *takes_memcpy = -1;
    ks_input *in;
    ks_status st = ks_input_open_file(log, &in, err);
    if (st != KS_OK)
        return st;
    static const char key[] = "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = ";
    char *line;
    size_t len;
    bool truncated;
    while ((st = ks_input_getline(in, &line, &len, &truncated, err)) == KS_OK && line) {
        char *p = strstr(line, key);
        if (!p)
            continue;
        uint64_t hits;
        p += sizeof key - 1;
        if (!ks_parse_count(p, &hits)) {
            st = ks_error_set(err, KS_ERR_FORMAT, log, ks_input_line_number(in),
                              "L2 read hits '%s' are not a whole number", p);
            break;
        }
        *takes_memcpy = hits > 0;
    }
    ks_input_close(in);
    if (st == KS_OK && *takes_memcpy < 0)
        st = ks_error_set(err, KS_ERR_FORMAT, log, 0,
                          "the probe's log has no L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] "
                          "line: did the simulator run (see the log)?");
    return st;
}
