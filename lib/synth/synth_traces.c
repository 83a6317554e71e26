/*
 * synth_traces.c - a synthetic workload as Accel-Sim traces (tracer version
 * 5 text: kernelslist.g and one kernel-N.traceg per launch) with a matching
 * profile of durations (profile.csv, the plain CSV reader's format) and the
 * launch groups it was drawn from (groups.csv), so a trace-based method
 * (GCL-Sampler) can be evaluated beside the profile-based ones on the same
 * launches.
 *
 * Six groups of launches from four kernels: saxpy over 16 and over 2 blocks
 * (same code, different grids: the trap of docs/methods.md), a reduction
 * whose loop runs 4 or 12 times (a data-dependent trip count), a kernel whose
 * odd warps take a branch, and a shared-memory tile loop.  A launch lasts
 * 2 us plus a per-kernel cost per warp instruction, with 3 % noise: time
 * follows the instructions executed, as on a GPU that is not saturated.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct synth_launch {
    int group;     /* 0..5 */
    uint64_t id;   /* 1-based kernel id */
    uint64_t base; /* buffer address */
} synth_launch;

typedef struct synth_group {
    const char *name;
    int kernel;       /* program */
    uint32_t grid;    /* blocks */
    uint32_t threads; /* per block */
    int trip;         /* loop trip count (reduction) */
    double share;     /* relative frequency */
    double ns_per_inst;
} synth_group;

static const synth_group synth_groups[] = {
    {"_Z5saxpyPfS_fi", 0, 16, 64, 0, 3, 3.0},
    {"_Z5saxpyPfS_fi", 0, 2, 64, 0, 2, 3.0},
    {"_Z6reducePdS_i", 1, 8, 64, 4, 2, 5.0},
    {"_Z6reducePdS_i", 1, 8, 64, 12, 2, 5.0},
    {"_Z7branchyPfS_", 2, 8, 128, 0, 1, 4.0},
    {"_Z4tilePfS_S_", 3, 4, 128, 0, 1, 6.0},
};
#define SYNTH_GROUPS (sizeof synth_groups / sizeof synth_groups[0])

typedef struct trace_out {
    FILE *f;
    uint64_t base;
    uint32_t warp;
    uint64_t insts; /* counting pass: instructions of one warp */
    int count_only;
} trace_out;

/* One instruction line: "PC mask ndst [dst] opcode nsrc [src] width [1 base
 * stride] immediate".  Registers are given as text ("R3", "P0", "RZ"). */
static void tline(trace_out *t, unsigned pc, const char *dst, const char *op, const char *s0,
                  const char *s1, unsigned width, uint64_t offset, unsigned stride)
{
    t->insts++;
    if (t->count_only)
        return;
    int nsrc = (s0 != NULL) + (s1 != NULL);
    fprintf(t->f, "%04x ffffffff %d%s%s %s %d%s%s%s%s %u", pc, dst != NULL, dst ? " " : "",
            dst ? dst : "", op, nsrc, s0 ? " " : "", s0 ? s0 : "", s1 ? " " : "", s1 ? s1 : "",
            width);
    if (width)
        fprintf(t->f, " 1 0x%012llx %u", (unsigned long long)(t->base + offset), stride);
    fprintf(t->f, " 0\n");
}

static void program_saxpy(trace_out *t)
{
    tline(t, 0x00, "R0", "S2R", NULL, NULL, 0, 0, 0);
    tline(t, 0x10, "R1", "IMAD", "R0", "R2", 0, 0, 0);
    tline(t, 0x20, "R4", "LDG.E", "R1", NULL, 4, 0, 4);
    tline(t, 0x30, "R5", "LDG.E", "R1", NULL, 4, 4096, 4);
    tline(t, 0x40, "R5", "FFMA", "R4", "R5", 0, 0, 0);
    tline(t, 0x50, NULL, "STG.E", "R1", "R5", 4, 4096, 4);
    tline(t, 0x60, NULL, "EXIT", NULL, NULL, 0, 0, 0);
}

static void program_reduce(trace_out *t, int trip)
{
    tline(t, 0x00, "R0", "S2R", NULL, NULL, 0, 0, 0);
    tline(t, 0x10, "R6", "MOV", "RZ", NULL, 0, 0, 0);
    for (int i = 0; i < trip; i++) {
        tline(t, 0x20, "R2", "LDG.E.64", "R0", NULL, 8, (uint64_t)i * 8192, 256);
        tline(t, 0x30, "R6", "DADD", "R6", "R2", 0, 0, 0);
        tline(t, 0x40, "R0", "IADD3", "R0", "R7", 0, 0, 0);
        tline(t, 0x50, "P0", "ISETP.GE.AND", "R0", "R8", 0, 0, 0);
        tline(t, 0x60, NULL, "BRA", "P0", NULL, 0, 0, 0);
    }
    tline(t, 0x70, "R9", "SHFL.BFLY", "R6", NULL, 0, 0, 0);
    tline(t, 0x80, NULL, "STS", "R0", "R9", 4, 0, 4);
    tline(t, 0x90, NULL, "BAR.SYNC", NULL, NULL, 0, 0, 0);
    tline(t, 0xa0, NULL, "EXIT", NULL, NULL, 0, 0, 0);
}

static void program_branchy(trace_out *t)
{
    tline(t, 0x00, "R0", "S2R", NULL, NULL, 0, 0, 0);
    tline(t, 0x10, "R1", "LOP3.LUT", "R0", "R3", 0, 0, 0);
    tline(t, 0x20, "P1", "ISETP.NE.AND", "R1", NULL, 0, 0, 0);
    tline(t, 0x30, NULL, "BRA", "P1", NULL, 0, 0, 0);
    if (t->warp % 2) {
        tline(t, 0x40, "R2", "LDG.E.CONSTANT", "R0", NULL, 4, 0, 0);
        tline(t, 0x50, "R2", "FMUL", "R2", "R2", 0, 0, 0);
    } else {
        tline(t, 0x60, "R2", "MUFU.RSQ", "R1", NULL, 0, 0, 0);
    }
    tline(t, 0x70, NULL, "STG.E", "R0", "R2", 4, 0, 128);
    tline(t, 0x80, NULL, "EXIT", NULL, NULL, 0, 0, 0);
}

static void program_tile(trace_out *t)
{
    static const char *acc[4] = {"R12", "R13", "R14", "R15"};
    tline(t, 0x00, "R0", "S2R", NULL, NULL, 0, 0, 0);
    tline(t, 0x10, "R4", "LDG.E.128", "R0", NULL, 16, 0, 16);
    tline(t, 0x20, NULL, "STS.128", "R0", "R4", 16, 0, 16);
    tline(t, 0x30, NULL, "BAR.SYNC", NULL, NULL, 0, 0, 0);
    for (int k = 0; k < 4; k++) {
        tline(t, 0x40, "R8", "LDS.64", "R0", NULL, 8, (uint64_t)k * 256, 8);
        for (int u = 0; u < 4; u++)
            tline(t, 0x50 + 0x10 * (unsigned)u, acc[u], "FFMA", "R8", acc[u], 0, 0, 0);
    }
    tline(t, 0xa0, NULL, "STG.E.128", "R0", "R12", 16, 0, 16);
    tline(t, 0xb0, NULL, "EXIT", NULL, NULL, 0, 0, 0);
}

static void program_run(const synth_group *g, trace_out *t)
{
    switch (g->kernel) {
    case 0: program_saxpy(t); break;
    case 1: program_reduce(t, g->trip); break;
    case 2: program_branchy(t); break;
    default: program_tile(t); break;
    }
}

/* Warp instructions of a whole launch (every warp runs the same length
 * except branchy's, whose two paths have equal length). */
static uint64_t group_warp_insts(const synth_group *g)
{
    trace_out t = {NULL, 0, 0, 0, 1};
    program_run(g, &t);
    return t.insts * g->grid * ((g->threads + 31) / 32);
}

static ks_status write_trace(const void *ctx, FILE *f, ks_error *err)
{
    const synth_launch *l = ctx;
    const synth_group *g = &synth_groups[l->group];
    fprintf(f,
            "-kernel name = %s\n-kernel id = %llu\n-grid dim = (%u,1,1)\n"
            "-block dim = (%u,1,1)\n-shmem = 0\n-nregs = 32\n-binary version = 90\n"
            "-cuda stream id = 0\n-shmem base_addr = 0x00007f6300000000\n"
            "-local mem base_addr = 0x00007f626d000000\n-nvbit version = 1.7.4\n"
            "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
            "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
            "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n",
            g->name, (unsigned long long)l->id, g->grid, g->threads);
    for (uint32_t b = 0; b < g->grid; b++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", b);
        for (uint32_t w = 0; w < (g->threads + 31) / 32; w++) {
            trace_out count = {NULL, 0, w, 0, 1};
            program_run(g, &count);
            fprintf(f, "warp = %u\ninsts = %llu\n", w, (unsigned long long)count.insts);
            trace_out t = {f, l->base + (uint64_t)b * 0x10000, w, 0, 0};
            program_run(g, &t);
            fprintf(f, "\n");
        }
        fprintf(f, "#END_TB\n\n");
    }
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot write a trace") : KS_OK;
}

typedef struct synth_set {
    const synth_launch *l;
    size_t n;
    const int64_t *ns;
} synth_set;

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    const synth_set *s = ctx;
    fprintf(f, "MemcpyHtoD,0x00007f6233c00000,65536\n");
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "kernel-%llu.traceg\n", (unsigned long long)s->l[i].id);
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot write kernelslist.g")
                     : KS_OK;
}

static ks_status write_profile(const void *ctx, FILE *f, ks_error *err)
{
    const synth_set *s = ctx;
    fprintf(f, "id,name,duration_ns,grid,block\n");
    for (size_t i = 0; i < s->n; i++) {
        const synth_group *g = &synth_groups[s->l[i].group];
        fprintf(f, "%zu,%s,%lld,%u 1 1,%u 1 1\n", i, g->name, (long long)s->ns[i], g->grid,
                g->threads);
    }
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot write profile.csv")
                     : KS_OK;
}

static ks_status write_groups(const void *ctx, FILE *f, ks_error *err)
{
    const synth_set *s = ctx;
    fprintf(f, "id,group\n");
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%zu,%d\n", i, s->l[i].group);
    return ferror(f) ? ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot write groups.csv")
                     : KS_OK;
}

static ks_status synth_file(const char *dir, const char *name, ks_writer_fn fn,
                            const void *ctx, ks_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return ks_error_set(err, KS_ERR_USAGE, dir, 0, "path too long");
    return ks_write_atomic(path, fn, ctx, err);
}

ks_status ks_synth_traces_write(const ks_synth_traces_options *opt, const char *dir,
                                ks_error *err)
{
    if (!opt || !dir || opt->n == 0 || opt->n > 1000000)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "synthetic traces: 1 to 1,000,000 launches and a folder");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return ks_error_set(err, KS_ERR_IO, dir, 0, "cannot create the folder: %s",
                            strerror(errno));
    synth_launch *l = malloc(opt->n * sizeof *l);
    int64_t *ns = malloc(opt->n * sizeof *ns);
    if (!l || !ns) {
        free(l), free(ns);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_rng rng;
    ks_rng_seed(&rng, opt->seed);
    double total = 0;
    for (size_t g = 0; g < SYNTH_GROUPS; g++)
        total += synth_groups[g].share;
    ks_status st = KS_OK;
    for (size_t i = 0; i < opt->n && st == KS_OK; i++) {
        double u = ks_rng_uniform(&rng) * total, acc = 0;
        int g = 0;
        for (; g + 1 < (int)SYNTH_GROUPS; g++) {
            acc += synth_groups[g].share;
            if (u < acc)
                break;
        }
        uint64_t base = 0x7f0000000000ull + ks_rng_below(&rng, 4096) * 0x100000ull;
        l[i] = (synth_launch){g, i + 1, base};
        double mean =
            2000 + synth_groups[g].ns_per_inst * (double)group_warp_insts(&synth_groups[g]);
        double d = mean * (1 + 0.03 * ks_rng_normal(&rng));
        ns[i] = (int64_t)llround(d > 1 ? d : 1);
        char name[64];
        snprintf(name, sizeof name, "kernel-%llu.traceg", (unsigned long long)l[i].id);
        st = synth_file(dir, name, write_trace, &l[i], err);
    }
    synth_set s = {l, opt->n, ns};
    if (st == KS_OK)
        st = synth_file(dir, "profile.csv", write_profile, &s, err);
    if (st == KS_OK)
        st = synth_file(dir, "groups.csv", write_groups, &s, err);
    if (st == KS_OK) /* last: its presence says the folder is complete */
        st = synth_file(dir, "kernelslist.g", write_list, &s, err);
    free(l);
    free(ns);
    return st;
}
