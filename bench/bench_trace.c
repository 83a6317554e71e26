/*
 * bench_trace.c - how fast an Accel-Sim trace is streamed, and that memory
 * stays flat whatever its size.
 *
 * usage: bench_trace [--size-mb N] [--dir DIR] [--keep]
 * Writes a small (N/16 MB) and a large (N MB, default 1024) post-processed
 * version-5 trace of one launch into a fresh folder under DIR (default
 * $TMPDIR or /tmp), then for each: streams every instruction (decoding
 * registers and addresses), builds its basic-block vector, and reports
 * wall seconds, MB/s of the file and peak RSS (getrusage) after each pass.
 * Peak RSS after the large file equal to that after the small one is the
 * flat-memory check.  The folder is removed unless --keep.
 */
#include "trace.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* One warp of a kernel with a loop: a prologue, `trips` iterations of a
 * body with a coalesced load (mode 1), a gather (mode 2), an ALU chain and
 * a store, then EXIT.  Trip counts vary by warp so lines differ. */
static void write_warp(FILE *f, uint32_t warp, uint64_t trips, ks_rng *rng)
{
    fprintf(f, "warp = %u\ninsts = %llu\n", warp, (unsigned long long)(3 + trips * 8 + 1));
    fprintf(f, "0000 ffffffff 1 R1 LDC 0 0 0 \n0010 ffffffff 1 R3 S2R 0 0 0 \n"
               "0020 ffffffff 0 ISETP.GE.AND 1 R3 0 0 \n");
    for (uint64_t t = 0; t < trips; t++) {
        uint64_t base = 0x7f6233c00000ull + (ks_rng_next(rng) & 0xffff00);
        fprintf(f, "0030 ffffffff 1 R4 LDG.E 1 R2 4 1 0x%llx 4 0 \n", (unsigned long long)base);
        fprintf(f, "0040 ffffffff 1 R5 LDG.E 1 R6 4 2 0x%llx", (unsigned long long)base);
        for (int l = 1; l < 32; l++)
            fprintf(f, " %d", (int)(ks_rng_below(rng, 512)) - 256);
        fprintf(f, " 0 \n0050 ffffffff 1 R7 FFMA 3 R4 R5 R7 0 0 \n"
                   "0060 ffffffff 1 R8 IMAD 2 R7 R3 0 0 \n0070 ffffffff 1 R3 IADD3 2 R3 R255 0 1 \n"
                   "0080 ffffffff 0 STG.E 2 R2 R8 4 1 0x%llx 4 0 \n"
                   "0090 ffffffff 0 ISETP.LT.AND 2 R3 R9 0 0 \n00a0 ffffffff 0 BRA 0 0 48 \n",
                (unsigned long long)base + 0x1000000);
    }
    fprintf(f, "00b0 ffffffff 0 EXIT 0 0 0 \n");
}

/* Writes folder/kernel-1.traceg of about mb megabytes; returns its size. */
static long long write_trace(const char *dir, double mb)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "MemcpyHtoD,0x00007f6233c00000,4096\nkernel-1.traceg\n") < 0 ||
        fclose(f) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    f = fopen(path, "w");
    if (!f)
        return -1;
    ks_rng rng;
    ks_rng_seed(&rng, 12);
    /* a warp of T trips is about 420 * T bytes; 8 warps a block */
    const double warp_bytes = 420.0 * 24;
    uint32_t blocks = (uint32_t)(mb * 1e6 / (warp_bytes * 8)) + 1;
    fprintf(f, "-kernel name = _Z5benchPfS_i\n-kernel id = 1\n-grid dim = (%u,1,1)\n"
               "-block dim = (256,1,1)\n-shmem = 0\n-nregs = 32\n-binary version = 90\n"
               "-cuda stream id = 0\n-nvbit version = 1.7.4\n-accelsim tracer version = 5\n"
               "-enable lineinfo = 0\n\n#traces format = [line_num] PC mask dest_num "
               "[reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] "
               "[mem_addresses] immediate\n\n",
            blocks);
    for (uint32_t b = 0; b < blocks; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", b);
        for (uint32_t w = 0; w < 8; w++)
            write_warp(f, w, 16 + ks_rng_below(&rng, 17), &rng);
        fprintf(f, "#END_TB\n");
    }
    long long size = ftell(f);
    return fclose(f) == 0 ? size : -1;
}

typedef struct tally {
    uint64_t insts, addrs;
} tally;

static ks_status count_fn(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                          ks_error *err)
{
    tally *t = ctx;
    t->insts++;
    t->addrs += inst->naddr;
    return KS_OK;
}

static int fail(const ks_error *err)
{
    char msg[1200];
    ks_error_format(err, msg, sizeof msg);
    fprintf(stderr, "bench_trace: %s\n", msg);
    return 1;
}

static int run(const char *dir, double mb)
{
    double t0 = bench_now();
    long long bytes = write_trace(dir, mb);
    if (bytes < 0) {
        perror("bench_trace: writing the trace");
        return 1;
    }
    double t1 = bench_now();
    printf("trace: %.1f MB written in %.1f s\n", (double)bytes / 1e6, t1 - t0);
    ks_trace_set *s;
    ks_error err;
    if (ks_trace_set_open(dir, &s, &err) != KS_OK)
        return fail(&err);
    tally t = {0};
    double t2 = bench_now();
    if (ks_trace_set_stream(s, 0, NULL, count_fn, &t, &err) != KS_OK)
        return fail(&err);
    double t3 = bench_now();
    printf("stream: %.2f s, %.0f MB/s, %llu warp instructions (%.0f ns each), %llu addresses, "
           "peak RSS %ld KB\n",
           t3 - t2, (double)bytes / 1e6 / (t3 - t2), (unsigned long long)t.insts,
           (t3 - t2) * 1e9 / (double)t.insts, (unsigned long long)t.addrs, bench_peak_rss_kb());
    ks_trace_bbv b;
    uint64_t warps;
    if (ks_trace_set_bbv(s, 0, &b, &warps, &err) != KS_OK)
        return fail(&err);
    double t4 = bench_now();
    printf("bbv: %.2f s, %.0f MB/s, %zu blocks over %llu warps, peak RSS %ld KB\n", t4 - t3,
           (double)bytes / 1e6 / (t4 - t3), b.count, (unsigned long long)warps,
           bench_peak_rss_kb());
    ks_trace_bbv_free(&b);
    ks_trace_set_free(s);
    return 0;
}

static void remove_files(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    unlink(path);
}

int main(int argc, char **argv)
{
    double mb = 1024;
    const char *base = getenv("TMPDIR");
    int keep = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--size-mb") == 0 && i + 1 < argc)
            mb = atof(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            base = argv[++i];
        else if (strcmp(argv[i], "--keep") == 0)
            keep = 1;
        else {
            fprintf(stderr, "usage: bench_trace [--size-mb N] [--dir DIR] [--keep]\n");
            return 2;
        }
    }
    if (mb < 16) {
        fprintf(stderr, "bench_trace: --size-mb must be at least 16\n");
        return 2;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ks-bench-trace-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("bench_trace: mkdtemp");
        return 1;
    }
    printf("== small trace (%.0f MB)\n", mb / 16);
    int rc = run(dir, mb / 16);
    if (rc == 0) {
        printf("== large trace (%.0f MB)\n", mb);
        rc = run(dir, mb);
    }
    if (!keep) {
        remove_files(dir);
        rmdir(dir);
    }
    return rc;
}
