/*
 * test_traces.c - the Accel-Sim trace reader: the real folders of
 * ../shared/data/accelsim (launch lists, names, grids, instruction counts
 * against the tracer's own stats.csv, streamed and counted), hand-written
 * traces with known decoded addresses for each address mode, version-5
 * immediates and line numbers, raw (version 3) interleaved traces,
 * compressed copies, filters, basic-block vectors with known answers, and
 * malformed inputs that must fail with the file and line of the problem.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"
#include "tmpdir.h"

/* A fresh subfolder of the test folder; returns its path (see in_dir). */
static const char *folder(const char *name)
{
    const char *path = in_dir(name);
    tmpdir_remove(path);
    assert_int_equal(mkdir(path, 0700), 0);
    return path;
}

/* Folder name holding kernelslist.g (list) and one trace file; its path. */
static const char *trace_folder(const char *name, const char *list, const char *file,
                                const char *text)
{
    const char *dir = folder(name);
    char path[512];
    snprintf(path, sizeof path, "%s/kernelslist.g", name);
    write_text(path, list);
    snprintf(path, sizeof path, "%s/%s", name, file);
    write_text(path, text);
    return dir;
}

static ks_trace_set *open_ok(const char *dir)
{
    ks_trace_set *s = NULL;
    ks_error err;
    ks_error_clear(&err);
    if (ks_trace_set_open(dir, &s, &err) != KS_OK) {
        char msg[1200];
        ks_error_format(&err, msg, sizeof msg);
        fail_msg("opening %s: %s", dir, msg);
    }
    assert_non_null(s);
    return s;
}

/* trace_folder, opened. */
static ks_trace_set *open_folder(const char *name, const char *list, const char *file,
                                 const char *text)
{
    return open_ok(trace_folder(name, list, file, text));
}

static void fail_with(ks_status st, const ks_error *err)
{
    char msg[1200];
    ks_error_format(err, msg, sizeof msg);
    fail_msg("status %d: %s", (int)st, msg);
}

/* Collects what the stream hands out. */
typedef struct seen_inst {
    uint32_t tb[3], warp, mask, naddr, mem_width;
    uint64_t pc, addr[32];
    char opcode[64];
    int has_imm;
    int64_t imm;
    long src_line;
    uint8_t ndst, nsrc;
    uint16_t dst[KS_TRACE_MAX_REGS], src[KS_TRACE_MAX_REGS];
} seen_inst;

typedef struct collect {
    seen_inst *v;
    size_t n, cap;
} collect;

static ks_status collect_fn(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                            ks_error *err)
{
    (void)k;
    (void)err;
    collect *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->v = realloc(c->v, c->cap * sizeof *c->v);
        assert_non_null(c->v);
    }
    seen_inst *s = &c->v[c->n++];
    memset(s, 0, sizeof *s);
    memcpy(s->tb, inst->tb, sizeof s->tb);
    s->warp = inst->warp;
    s->mask = inst->mask;
    s->pc = inst->pc;
    s->naddr = inst->naddr;
    s->mem_width = inst->mem_width;
    assert_true(inst->naddr <= 32);
    assert_int_equal(inst->naddr, inst->mem_width ? (uint32_t)__builtin_popcount(inst->mask)
                                                  : 0);
    memcpy(s->addr, inst->addr, inst->naddr * sizeof *inst->addr);
    snprintf(s->opcode, sizeof s->opcode, "%s", inst->opcode);
    s->has_imm = inst->has_imm;
    s->imm = inst->imm;
    s->src_line = inst->src_line;
    s->ndst = inst->ndst;
    s->nsrc = inst->nsrc;
    memcpy(s->dst, inst->dst, sizeof s->dst);
    memcpy(s->src, inst->src, sizeof s->src);
    return KS_OK;
}

static collect stream_all(ks_trace_set *s, size_t i, const ks_trace_filter *f)
{
    collect c = {0};
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_trace_set_stream(s, i, f, collect_fn, &c, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    return c;
}

#define HEADER(name, grid, block, bin, version, lineinfo)                                    \
    "-kernel name = " name "\n-kernel id = 1\n-grid dim = " grid "\n-block dim = " block    \
    "\n-shmem = 0\n-nregs = 16\n-binary version = " bin "\n-cuda stream id = 0\n"           \
    "-shmem base_addr = 0x00007f6300000000\n-local mem base_addr = 0x00007f626d000000\n"   \
    "-nvbit version = 1.7.4\n-accelsim tracer version = " version "\n"                       \
    "-enable lineinfo = " lineinfo "\n\n#traces format = [line_num] PC mask dest_num "     \
    "[reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] "   \
    "immediate\n\n\n"

/* ------------------------------------------------------------ registers */

static void test_registers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint16_t code;
    } cases[] = {{"R0", 0},      {"R17", 17},     {"R255", 255},   {"RZ", 255},
                 {"UR0", 256},   {"UR5", 261},    {"UR63", 319},   {"URZ", 319},
                 {"P0", 320},    {"P3", 323},     {"PT", 327},     {"UP2", 330},
                 {"UPT", 335},   {"R256", 0xFFFF}, {"UR64", 0xFFFF}, {"P8", 0xFFFF},
                 {"RT", 0xFFFF}, {"PZ", 0xFFFF},  {"R", 0xFFFF},   {"X1", 0xFFFF},
                 {"R-1", 0xFFFF}, {"R0001", 0xFFFF}, {"", 0xFFFF}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = ks_trace_reg_parse(cases[i].text, strlen(cases[i].text));
        if (got != cases[i].code)
            fail_msg("%s: got %u, want %u", cases[i].text, got, cases[i].code);
    }
    /* not NUL-terminated */
    assert_int_equal(ks_trace_reg_parse("R12 R13", 3), 12);
}

/* ------------------------------------------------------- address modes */

static const char addr_trace[] =
    HEADER("_Z5modesPf", "(1,1,1)", "(32,1,1)", "86", "4", "0")
    "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 7\n"
    /* mode 0: one address per active lane (lanes 0-3) */
    "0010 0000000f 1 R4 LDG.E 1 R2 4 0 0x0000000000001000 0x0000000000001008 "
    "0x0000000000002000 0x0000000000000010 \n"
    /* mode 1: lanes 4-7 from 0x7f00 by 4 */
    "0020 000000f0 0 STG.E 2 R2 R4 4 1 0x7f00 4 \n"
    /* mode 1, negative stride, lanes 0-2 */
    "0030 00000007 1 R5 LDG.E.64 1 R2 8 1 0x100 -8 \n"
    /* mode 2: lanes 0, 2 and 31, each delta from the previous active lane */
    "0040 80000005 1 R6 LDS 1 R3 4 2 0x500 -4 100 \n"
    /* mode 1 with no active lane: what the tracer writes for a fully
     * predicated-off access */
    "0050 00000000 0 STG.E 2 R2 R4 4 1 0x0 0 \n"
    /* mode 2 with one active lane: base only */
    "0060 00000100 1 R7 LDG.E 1 R2 4 2 0x40 \n"
    /* no memory */
    "0070 ffffffff 0 EXIT 0 0 \n"
    "\n#END_TB\n";

static void test_address_modes(void **state)
{
    (void)state;
    ks_trace_set *s = open_folder(
        "modes", "MemcpyHtoD,0x00007f6233c00000,512\nkernel-1.traceg\n", "kernel-1.traceg",
        addr_trace);
    assert_int_equal(ks_trace_set_kernel_count(s), 1);
    assert_int_equal(ks_trace_set_event_count(s), 2);
    assert_false(ks_trace_set_event(s, 0)->is_kernel);
    assert_string_equal(ks_trace_set_event(s, 0)->text, "MemcpyHtoD,0x00007f6233c00000,512");
    assert_true(ks_trace_set_event(s, 1)->is_kernel);
    assert_int_equal(ks_trace_set_event(s, 1)->kernel, 0);
    const ks_trace_kernel *k = ks_trace_set_kernel(s, 0);
    assert_int_equal(k->tracer_version, 4);
    assert_int_equal(k->binary_version, 86);
    assert_int_equal(k->nregs, 16);
    assert_int_equal(k->stream, 0);
    assert_int_equal(k->kernel_id, 1);

    collect c = stream_all(s, 0, NULL);
    assert_int_equal(c.n, 7);
    static const uint64_t want0[] = {0x1000, 0x1008, 0x2000, 0x10};
    static const uint64_t want1[] = {0x7f00, 0x7f04, 0x7f08, 0x7f0c};
    static const uint64_t want2[] = {0x100, 0xf8, 0xf0};
    static const uint64_t want3[] = {0x500, 0x4fc, 0x560};
    const uint64_t *want[] = {want0, want1, want2, want3};
    const uint32_t nwant[] = {4, 4, 3, 3};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c.v[i].naddr, nwant[i]);
        for (uint32_t j = 0; j < nwant[i]; j++)
            assert_int_equal(c.v[i].addr[j], want[i][j]);
        assert_false(c.v[i].has_imm);
        assert_int_equal(c.v[i].src_line, -1);
    }
    assert_int_equal(c.v[2].mem_width, 8);
    assert_string_equal(c.v[2].opcode, "LDG.E.64");
    assert_int_equal(c.v[1].ndst, 0);
    assert_int_equal(c.v[1].nsrc, 2);
    assert_int_equal(c.v[1].src[1], 4);
    assert_int_equal(c.v[4].naddr, 0);
    assert_int_equal(c.v[5].naddr, 1);
    assert_int_equal(c.v[5].addr[0], 0x40);
    assert_int_equal(c.v[6].mem_width, 0);
    assert_int_equal(c.v[6].pc, 0x70);
    assert_int_equal(c.v[6].mask, 0xffffffffu);
    free(c.v);
    ks_trace_set_free(s);
}

/* ---------------------------------------------- version 5, line numbers */

/* Each line numbered, a cluster id, a branch target and a store's data. */
static const char v5_trace[] =
    HEADER("_Z2v5v", "(2,1,1)", "(64,1,1)", "90", "5", "1")
    "#BEGIN_TB\nthread block = 1,0,0\ncluster id = 0,0,0\nwarp = 1\ninsts = 4\n"
    "12 0000 ffffffff 1 R1 LDC 0 0 0 \n13 00e0 ffffffff 0 BRA 0 0 352 \n"
    "14 0340 ffffffff 1 R6 LDG.E 1 R6 4 1 0x7f6233c00200 0 0 \n"
    "15 0350 0000ffff 0 DEPBAR.LE 0 0 -3 STORE_DATA I32 1 REG0:T0:0x1 \n#END_TB\n";

static void test_version5(void **state)
{
    (void)state;
    ks_trace_set *s = open_folder("v5", "kernel-1-ctx_0x55dfecb31820.traceg\n",
                                  "kernel-1-ctx_0x55dfecb31820.traceg", v5_trace);
    const ks_trace_kernel *k = ks_trace_set_kernel(s, 0);
    assert_int_equal(k->tracer_version, 5);
    assert_string_equal(k->name, "_Z2v5v");
    collect c = stream_all(s, 0, NULL);
    assert_int_equal(c.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c.v[i].src_line, 12 + i);
        assert_true(c.v[i].has_imm);
        assert_int_equal(c.v[i].tb[0], 1);
        assert_int_equal(c.v[i].warp, 1);
    }
    assert_int_equal(c.v[1].imm, 352);
    assert_int_equal(c.v[1].pc, 0xe0);
    /* a base-stride address with stride 0: every lane the same address */
    assert_int_equal(c.v[2].naddr, 32);
    assert_int_equal(c.v[2].addr[31], 0x7f6233c00200);
    assert_int_equal(c.v[2].imm, 0);
    /* negative immediate; the fork's STORE_DATA fields after it skipped */
    assert_int_equal(c.v[3].imm, -3);
    assert_int_equal(c.v[3].mask, 0xffff);
    free(c.v);
    ks_trace_set_free(s);
}

/* ------------------------------------------------- raw (version 3) traces */

static const char raw_trace[] =
    "-kernel name = _Z3rawv\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"
    "-shmem = 0\n-nregs = 10\n-binary version = 70\n-cuda stream id = 0\n"
    "-nvbit version = 1.5.3\n-accelsim tracer version = 3\n\n"
    "#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num "
    "[reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n"
    "1 0 0 1 0000 ffffffff 1 R1 MOV 0 0 \n"
    "0 0 0 0 0000 ffffffff 1 R1 MOV 0 0 \n"
    "0 0 0 0 0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4 \n"
    "1 0 0 1 0010 ffffffff 1 R2 LDG.E 1 R4 4 2 0x2000 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 "
    "8 8 8 8 8 8 8 8 8 8 8 8 \n"
    "0 0 0 1 0000 ffffffff 1 R1 MOV 0 0 \n"
    "0 0 0 0 0020 ffffffff 0 EXIT 0 0 \n"
    "1 0 0 1 0020 ffffffff 0 EXIT 0 0 \n"
    "0 0 0 1 0020 ffffffff 0 EXIT 0 0 \n";

static void test_raw_v3(void **state)
{
    (void)state;
    const char *dir = folder("raw");
    write_text("raw/kernelslist", "MemcpyHtoD,0x00007f32c5500000,800000\nkernel-1.trace\n");
    /* the list names kernel-1.trace; only the gzip copy exists */
    write_gzip("raw/kernel-1.trace.gz", raw_trace, strlen(raw_trace));
    ks_trace_set *s = open_ok(dir);
    const ks_trace_kernel *k = ks_trace_set_kernel(s, 0);
    assert_int_equal(k->tracer_version, 3);
    assert_non_null(strstr(k->path, "kernel-1.trace.gz"));
    collect c = stream_all(s, 0, NULL);
    assert_int_equal(c.n, 8);
    assert_int_equal(c.v[0].tb[0], 1);
    assert_int_equal(c.v[0].warp, 1);
    assert_int_equal(c.v[3].naddr, 32);
    assert_int_equal(c.v[3].addr[0], 0x2000);
    assert_int_equal(c.v[3].addr[31], 0x2000 + 31 * 8);
    assert_int_equal(c.v[2].addr[31], 0x1000 + 31 * 4);
    free(c.v);

    /* filters on interleaved warps */
    ks_trace_filter f = {0};
    f.max_insts_per_warp = 2;
    c = stream_all(s, 0, &f);
    assert_int_equal(c.n, 6); /* 2 + 2 + 2 of the warps' 3, 3, 2 lines */
    free(c.v);
    f.max_insts_per_warp = 0;
    f.max_blocks = 1;
    c = stream_all(s, 0, &f);
    assert_int_equal(c.n, 5);
    free(c.v);
    f.max_warps = 1;
    c = stream_all(s, 0, &f);
    assert_int_equal(c.n, 3);
    free(c.v);

    uint64_t n;
    ks_error err;
    ks_status st = ks_trace_set_count_insts(s, 0, &n, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    assert_int_equal(n, 8);
    assert_int_equal(ks_trace_set_kernel(s, 0)->warp_insts, 8);
    ks_trace_set_free(s);
}

/* ------------------------------------------------- basic-block vectors */

/* One program (Volta PCs, 16 bytes apart): A = 0x00 MOV, 0x10 ISETP; loop
 * body 0x20 IADD, 0x30 ISETP, 0x40 BRA (back to 0x20); 0x50 EXIT.  Warp 0
 * runs the loop three times, warp 1 once, warp 2 skips 0x20 (a gap in the
 * PCs, as when the tracer leaves an instruction out).
 *   runs: w0 [00..40] [20..40] [20..40] [50]; w1 [00..40] [50];
 *         w2 [00..10] [30..40] [50]
 *   leaders 00 20 30 50; executions 00: 3, 20: 4, 30: 5, 50: 3. */
#define W0 "0000 ffffffff 1 R1 MOV 0 0 \n0010 ffffffff 0 ISETP.GE.AND 1 R1 0 \n"            \
           "0020 ffffffff 1 R1 IADD3 1 R1 0 \n0030 ffffffff 0 ISETP.GE.AND 1 R1 0 \n"     \
           "0040 ffffffff 0 BRA 0 0 \n0020 ffffffff 1 R1 IADD3 1 R1 0 \n"                 \
           "0030 ffffffff 0 ISETP.GE.AND 1 R1 0 \n0040 ffffffff 0 BRA 0 0 \n"             \
           "0020 ffffffff 1 R1 IADD3 1 R1 0 \n0030 ffffffff 0 ISETP.GE.AND 1 R1 0 \n"     \
           "0040 ffffffff 0 BRA 0 0 \n0050 ffffffff 0 EXIT 0 0 \n"
#define W1 "0000 ffffffff 1 R1 MOV 0 0 \n0010 ffffffff 0 ISETP.GE.AND 1 R1 0 \n"            \
           "0020 ffffffff 1 R1 IADD3 1 R1 0 \n0030 ffffffff 0 ISETP.GE.AND 1 R1 0 \n"     \
           "0040 7fffffff 0 BRA 0 0 \n0050 ffffffff 0 EXIT 0 0 \n"
#define W2 "0000 ffffffff 1 R1 MOV 0 0 \n0010 ffffffff 0 ISETP.GE.AND 1 R1 0 \n"            \
           "0030 ffffffff 0 ISETP.GE.AND 1 R1 0 \n0040 ffffffff 0 BRA 0 0 \n"             \
           "0050 ffffffff 0 EXIT 0 0 \n"

static const char bbv_grouped[] =
    HEADER("_Z4loopv", "(2,1,1)", "(64,1,1)", "70", "4", "0")
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 12\n" W0 "warp = 1\ninsts = 6\n" W1
    "#END_TB\n#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 5\n" W2 "#END_TB\n";

/* prefixes every line of text with "x 0 0 w " into out */
static void prefix_lines(char *out, size_t cap, const char *text, int x, int w)
{
    size_t n = strlen(out);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        n += (size_t)snprintf(out + n, cap - n, "%d 0 0 %d %.*s\n", x, w, (int)(nl - p), p);
        p = nl + 1;
    }
}

/* The basic-block vector of kernel i, failing the test if there is none. */
static ks_trace_bbv bbv_ok(ks_trace_set *s, size_t i, uint64_t *warps)
{
    ks_trace_bbv b;
    ks_error err;
    ks_status st = ks_trace_set_bbv(s, i, &b, warps, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    return b;
}

static void check_loop_bbv(ks_trace_set *s)
{
    uint64_t warps;
    ks_trace_bbv b = bbv_ok(s, 0, &warps);
    static const uint64_t pc[] = {0x00, 0x20, 0x30, 0x50};
    static const double ex[] = {3, 4, 5, 3};
    assert_int_equal(warps, 3);
    assert_int_equal(b.count, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(b.block_pc[i], pc[i]);
        assert_true(b.executions[i] == ex[i]);
    }
    ks_trace_bbv_free(&b);
}

static void test_bbv_known(void **state)
{
    (void)state;
    const char *dir = trace_folder(
        "bbv", "kernel-1.traceg\nkernel-2.trace\n", "kernel-1.traceg", bbv_grouped);
    /* the same warps as a raw trace, their lines interleaved */
    static char raw[16384];
    snprintf(raw, sizeof raw,
             "-kernel name = _Z4loopv\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"
             "-binary version = 70\n-accelsim tracer version = 3\n\n");
    char w0[4096] = "", w1[4096] = "", w2[4096] = "";
    prefix_lines(w0, sizeof w0, W0, 0, 0);
    prefix_lines(w1, sizeof w1, W1, 0, 1);
    prefix_lines(w2, sizeof w2, W2, 1, 0);
    const char *src[3] = {w0, w1, w2};
    for (int line = 0; line < 12; line++) /* round robin over the warps */
        for (int w = 0; w < 3; w++) {
            const char *p = src[w];
            for (int i = 0; i < line && p; i++) {
                p = strchr(p, '\n');
                p = p && p[1] ? p + 1 : NULL;
            }
            if (p) {
                const char *nl = strchr(p, '\n');
                strncat(raw, p, (size_t)(nl - p + 1));
            }
        }
    write_text("bbv/kernel-2.trace", raw);
    ks_trace_set *s = open_ok(dir);
    check_loop_bbv(s);
    ks_trace_set_free(s);

    write_text("bbv/kernelslist.g", "kernel-2.trace\n");
    s = open_ok(dir);
    assert_int_equal(ks_trace_set_kernel_count(s), 1);
    check_loop_bbv(s);
    ks_trace_set_free(s);
}

/* Maxwell/Pascal code: a control word at every 32-byte boundary, so 0x18
 * is followed by 0x28; a branch not taken still ends its block. */
static void test_bbv_pascal(void **state)
{
    (void)state;
    ks_trace_set *s = open_folder(
        "pascal", "kernel-1.traceg\n", "kernel-1.traceg",
        HEADER("_Z1pv", "(1,1,1)", "(32,1,1)", "61", "4", "0")
        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 6\n"
        "0008 ffffffff 1 R1 MOV 0 0 \n0010 ffffffff 1 R1 MOV 0 0 \n"
        "0018 ffffffff 0 ISETP.GE.AND 1 R1 0 \n0028 00000000 0 BRA 0 0 \n"
        "0030 ffffffff 1 R1 MOV 0 0 \n0038 ffffffff 0 EXIT 0 0 \n#END_TB\n");
    uint64_t warps;
    ks_trace_bbv b = bbv_ok(s, 0, &warps);
    assert_int_equal(warps, 1);
    assert_int_equal(b.count, 2);
    assert_int_equal(b.block_pc[0], 0x08);
    assert_int_equal(b.block_pc[1], 0x30);
    assert_true(b.executions[0] == 1 && b.executions[1] == 1);
    ks_trace_bbv_free(&b);
    ks_trace_set_free(s);
}

/* -------------------------------------------- profile without stats.csv */

static void test_profile_counted(void **state)
{
    (void)state;
    const char *dir = folder("prof");
    write_text("prof/kernelslist.g",
               "MemcpyHtoD,0x1,4\nkernel-1.traceg\nkernel-2.traceg\nkernel-3.traceg\n");
    write_text("prof/kernel-1.traceg", bbv_grouped);
    write_text("prof/kernel-2.traceg", addr_trace);
    /* the list names an uncompressed file; the xz copy is used */
    write_xz("prof/kernel-3.traceg.xz", bbv_grouped, strlen(bbv_grouped));
    ks_trace_set *s = open_ok(dir);
    assert_int_equal(ks_trace_set_stats_count(s), 0);
    ks_profile *p = NULL;
    ks_error err;
    ks_status st = ks_trace_set_profile(s, &p, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    assert_int_equal(p->n, 3);
    assert_string_equal(p->source_format, "accelsim-traces");
    assert_string_equal(p->source_path, dir);
    assert_int_equal(strlen(p->source_xxh128), 32);
    assert_string_equal(ks_profile_name(p, 0), "_Z4loopv");
    assert_string_equal(ks_profile_name(p, 1), "_Z5modesPf");
    assert_int_equal(p->name_id[0], p->name_id[2]);
    assert_int_equal(ks_profile_grid(p, 0)[0], 2);
    assert_int_equal(ks_profile_block(p, 0)[0], 64);
    assert_int_equal(p->duration_ns[0], 0);
    assert_int_equal(p->metric_count, 3);
    assert_string_equal(p->metrics[0].name, "smsp__inst_executed.sum");
    assert_true(p->metrics[0].values[0] == 23 && p->metrics[0].values[1] == 7 &&
                p->metrics[0].values[2] == 23);
    assert_string_equal(p->metrics[1].name, "launch__grid_size");
    assert_true(p->metrics[1].values[0] == 2 && p->metrics[1].values[1] == 1);
    assert_string_equal(p->metrics[2].name, "launch__thread_count");
    assert_true(p->metrics[2].values[0] == 128 && p->metrics[2].values[1] == 32);
    ks_profile_free(p);
    ks_trace_set_free(s);
}

/* ------------------------------------------------------------ real data */

static bool have_accelsim(char *dir, size_t size, const char *sub)
{
    snprintf(dir, size, "%s/accelsim/%s", KS_SHARED_DATA, sub);
    return access(dir, R_OK) == 0;
}

static void test_real_backprop(void **state)
{
    (void)state;
    char dir[600];
    if (!have_accelsim(dir, sizeof dir, "backprop-h100"))
        skip();
    ks_trace_set *s = open_ok(dir);
    /* 5 host-to-device copies, then 33 launches */
    assert_int_equal(ks_trace_set_event_count(s), 38);
    for (size_t i = 0; i < 5; i++)
        assert_false(ks_trace_set_event(s, i)->is_kernel);
    assert_int_equal(ks_trace_set_kernel_count(s), 33);
    /* forward, forward, output, adjust (128), adjust (16), then
     * (forward, output, adjust 128, adjust 16) seven times */
    size_t forward = 0, output = 0, adj128 = 0, adj16 = 0;
    for (size_t i = 0; i < 33; i++) {
        const ks_trace_kernel *k = ks_trace_set_kernel(s, i);
        assert_int_equal(ks_trace_set_event(s, 5 + i)->kernel, i);
        assert_int_equal(k->kernel_id, i + 1);
        assert_int_equal(k->tracer_version, 5);
        assert_int_equal(k->binary_version, 90);
        assert_int_equal(k->block[0], 32);
        size_t phase = i < 2 ? 0 : (i - 1) % 4;
        static const char *const names[] = {"_Z14forward_kernelPKfS0_Pfiii",
                                            "_Z13output_kernelPKfS0_Pfiii",
                                            "_Z21adjust_weights_kernelPfS_PKfS1_iiff",
                                            "_Z21adjust_weights_kernelPfS_PKfS1_iiff"};
        static const uint32_t grids[] = {1, 1, 128, 16};
        assert_string_equal(k->name, names[phase]);
        assert_int_equal(k->grid[0], grids[phase]);
        forward += phase == 0;
        output += phase == 1;
        adj128 += phase == 2;
        adj16 += phase == 3;
    }
    assert_int_equal(forward, 9);
    assert_int_equal(output, 8);
    assert_int_equal(adj128, 8);
    assert_int_equal(adj16, 8);

    /* no stats.csv: counted; the per-warp "insts =" lines sum to these */
    ks_profile *p = NULL;
    ks_error err;
    ks_status st = ks_trace_set_profile(s, &p, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    static const double insts[] = {544, 196, 8064, 1008};
    for (size_t i = 0; i < 33; i++)
        assert_true(p->metrics[0].values[i] == insts[i < 2 ? 0 : (i - 1) % 4]);
    ks_profile_free(p);

    /* launches of one kind execute the same blocks the same number of
     * times; the four kinds differ */
    ks_trace_bbv ref[4];
    for (size_t i = 0; i < 33; i++) {
        size_t phase = i < 2 ? 0 : (i - 1) % 4;
        uint64_t warps;
        ks_trace_bbv b = bbv_ok(s, i, &warps);
        assert_int_equal(warps, ((const uint32_t[]){1, 1, 128, 16})[phase]);
        assert_true(b.count > 1);
        double sum = 0;
        for (size_t j = 0; j < b.count; j++) {
            assert_true(j == 0 || b.block_pc[j] > b.block_pc[j - 1]);
            sum += b.executions[j];
        }
        assert_true(sum >= (double)warps);
        if (i == 0 || (i >= 2 && i < 5)) { /* the first of each kind */
            ref[phase] = b;
            continue;
        }
        assert_int_equal(b.count, ref[phase].count);
        assert_memory_equal(b.block_pc, ref[phase].block_pc, b.count * sizeof *b.block_pc);
        assert_memory_equal(b.executions, ref[phase].executions,
                            b.count * sizeof *b.executions);
        ks_trace_bbv_free(&b);
    }
    /* forward and output kernels share their code's shape (the same block
     * starts) but loop 8 and 2 times; adjust_weights has other blocks, the
     * same for both grids, run once per warp */
    static const uint64_t fwd_pc[] = {0x0,   0x80,  0xe0,  0x150, 0x260, 0x290, 0x2a0,
                                      0x640, 0x850, 0x9e0, 0xb80, 0xbb0, 0xbf0, 0xc20,
                                      0xda0, 0xe70, 0xe90, 0xf10, 0xf80};
    for (int a = 0; a < 2; a++) {
        assert_int_equal(ref[a].count, 19);
        assert_memory_equal(ref[a].block_pc, fwd_pc, sizeof fwd_pc);
        for (size_t j = 0; j < 19; j++)
            assert_true(ref[a].executions[j] == (fwd_pc[j] == 0x2a0 ? (a == 0 ? 8 : 2) : 1));
    }
    for (int a = 2; a < 4; a++) {
        assert_int_equal(ref[a].count, 3);
        assert_int_equal(ref[a].block_pc[0], 0);
        assert_int_equal(ref[a].block_pc[1], 0xb0);
        assert_int_equal(ref[a].block_pc[2], 0x160);
        for (size_t j = 0; j < 3; j++)
            assert_true(ref[a].executions[j] == (a == 2 ? 128 : 16));
    }
    for (int i = 0; i < 4; i++)
        ks_trace_bbv_free(&ref[i]);
    ks_trace_set_free(s);
}

typedef struct real_folder {
    const char *sub;
    const char *name;
    uint32_t grid, block;
    uint64_t insts;
    int version;
    size_t events;
} real_folder;

static const real_folder real_folders[] = {
    {"matrixmul-gtx1080-v4", "_Z8mult_gpuIfEvPT_S1_S1_ii", 1, 32, 4416, 4, 3},
    {"vectoradd-gtx1080-v4", "_Z6vecAddIfEvPT_S1_S1_i", 1, 1024, 344, 4, 4},
    {"vectoradd-pascal-raw-v3", "_Z6vecAddPdS_S_i", 98, 1024, 71974, 3, 4},
};

static void test_real_with_stats(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof real_folders / sizeof real_folders[0]; f++) {
        const real_folder *r = &real_folders[f];
        char dir[600];
        if (!have_accelsim(dir, sizeof dir, r->sub))
            skip();
        ks_trace_set *s = open_ok(dir);
        assert_int_equal(ks_trace_set_kernel_count(s), 1);
        assert_int_equal(ks_trace_set_event_count(s), r->events);
        const ks_trace_kernel *k = ks_trace_set_kernel(s, 0);
        assert_string_equal(k->name, r->name);
        assert_int_equal(k->grid[0], r->grid);
        assert_int_equal(k->block[0], r->block);
        assert_int_equal(k->tracer_version, r->version);
        assert_int_equal(k->binary_version, 61);
        /* the tracer's own numbers */
        assert_int_equal(ks_trace_set_stats_count(s), 1);
        const ks_trace_stats_row *row = ks_trace_set_kernel_stats(s, 0);
        assert_non_null(row);
        assert_string_equal(row->name, r->name);
        assert_int_equal(row->total_insts, (int64_t)r->insts);
        assert_int_equal(row->reported_insts, (int64_t)r->insts);
        assert_int_equal(row->grid[0], r->grid);
        assert_int_equal(row->threads, (uint64_t)r->block * (r->block == 32 ? 32 : 1));
        assert_true(ks_trace_set_stats_usable(s, 0));
        assert_int_equal(k->warp_insts, r->insts);
        /* what the reader counts equals what the tracer counted */
        uint64_t n;
        ks_error err;
        ks_status st = ks_trace_set_count_insts(s, 0, &n, &err);
        if (st != KS_OK)
            fail_with(st, &err);
        assert_int_equal(n, r->insts);
        ks_profile *p = NULL;
        if ((st = ks_trace_set_profile(s, &p, &err)) != KS_OK)
            fail_with(st, &err);
        assert_int_equal(p->n, 1);
        assert_true(p->metrics[0].values[0] == (double)r->insts);
        assert_true(p->metrics[1].values[0] == r->grid);
        ks_profile_free(p);
        /* every memory instruction decodes one address per active lane */
        collect c = stream_all(s, 0, NULL);
        assert_int_equal(c.n, r->insts);
        free(c.v);
        uint64_t warps;
        ks_trace_bbv b = bbv_ok(s, 0, &warps);
        assert_int_equal(warps, (uint64_t)r->grid * (r->block == 32 ? 32 : r->block / 32));
        ks_trace_bbv_free(&b);
        ks_trace_set_free(s);
    }
}

/* ------------------------------------------------------------ malformed */

typedef struct bad_case {
    const char *what;
    const char *list;  /* kernelslist.g */
    const char *trace; /* kernel-1.traceg */
    bool at_open;      /* fails when opened (else when streamed) */
    const char *file;  /* file the error names: "list" or "trace" */
    long line;
    const char *message;
} bad_case;

#define SMALL_HEADER(v)                                                                      \
    "-kernel name = _Z1kv\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"                    \
    "-binary version = 70\n-accelsim tracer version = " v "\n\n"
#define TB_OPEN "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"

static const bad_case bad_cases[] = {
    {"bad opcode", NULL, SMALL_HEADER("4") TB_OPEN "0000 ffffffff 1 R1 123 0 0 \n#END_TB\n",
     false, "trace", 11, "opcode"},
    {"missing file", "MemcpyHtoD,0x1,4\nkernel-9.traceg\n", NULL, true, "list", 2,
     "kernel-9.traceg"},
    {"no kernel name", NULL, "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n\n" TB_OPEN
     "0000 ffffffff 0 EXIT 0 0 \n#END_TB\n", true, "trace", 1, "-kernel name"},
    {"bad grid", NULL, "-kernel name = k\n-grid dim = (0,1,1)\n-block dim = (32,1,1)\n", true,
     "trace", 2, "grid dim"},
    {"bad version", NULL, "-kernel name = k\n-accelsim tracer version = x\n", true, "trace", 2,
     "tracer version"},
    {"count mismatch", NULL, SMALL_HEADER("4") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
     "insts = 2\n0000 ffffffff 0 EXIT 0 0 \n#END_TB\n", false, "trace", 9, "insts"},
    {"mode 1 with a gap", NULL, SMALL_HEADER("4") TB_OPEN
     "0000 00000f0f 1 R1 LDG.E 1 R2 4 1 0x100 4 \n#END_TB\n", false, "trace", 11, "mode 1"},
    {"unknown mode", NULL, SMALL_HEADER("4") TB_OPEN
     "0000 00000001 1 R1 LDG.E 1 R2 4 7 0x100 \n#END_TB\n", false, "trace", 11,
     "address mode"},
    {"too few addresses", NULL, SMALL_HEADER("4") TB_OPEN
     "0000 00000003 1 R1 LDG.E 1 R2 4 0 0x100 \n#END_TB\n", false, "trace", 11, "address"},
    {"bad delta", NULL, SMALL_HEADER("4") TB_OPEN
     "0000 00000003 1 R1 LDG.E 1 R2 4 2 0x100 1x \n#END_TB\n", false, "trace", 11, "delta"},
    {"v4 trailing field", NULL, SMALL_HEADER("4") TB_OPEN "0000 ffffffff 0 EXIT 0 0 7 \n"
     "#END_TB\n", false, "trace", 11, "unexpected field"},
    {"v5 without immediate", NULL, SMALL_HEADER("5") TB_OPEN "0000 ffffffff 0 EXIT 0 0 \n"
     "#END_TB\n", false, "trace", 11, "immediate"},
    {"bad register", NULL, SMALL_HEADER("4") TB_OPEN "0000 ffffffff 1 Q1 MOV 0 0 \n#END_TB\n",
     false, "trace", 11, "register"},
    {"too many registers", NULL, SMALL_HEADER("4") TB_OPEN
     "0000 ffffffff 9 R1 R1 R1 R1 R1 R1 R1 R1 R1 MOV 0 0 \n#END_TB\n", false, "trace", 11,
     "destination count"},
    {"bad mask", NULL, SMALL_HEADER("4") TB_OPEN "0000 1ffffffff 0 EXIT 0 0 \n#END_TB\n", false,
     "trace", 11, "mask"},
    {"outside a warp", NULL, SMALL_HEADER("4") "#BEGIN_TB\n0000 ffffffff 0 EXIT 0 0 \n#END_TB\n",
     false, "trace", 8, "outside a warp"},
    {"no END_TB", NULL, SMALL_HEADER("4") TB_OPEN "0000 ffffffff 0 EXIT 0 0 \n", false, "trace",
     11, "END_TB"},
    {"block outside grid", NULL, SMALL_HEADER("4") "#BEGIN_TB\nthread block = 3,0,0\n"
     "warp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 \n#END_TB\n", false, "trace", 9,
     "outside the grid"},
    {"warp outside block", NULL, SMALL_HEADER("4") "#BEGIN_TB\nthread block = 0,0,0\n"
     "warp = 1\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 \n#END_TB\n", false, "trace", 9, "warp 1"},
    {"no newline at the end", NULL, SMALL_HEADER("4") TB_OPEN "0000 ffffffff 0 EXIT 0 0", false,
     "trace", 11, "truncated"},
    {"nested BEGIN_TB", NULL, SMALL_HEADER("4") "#BEGIN_TB\n#BEGIN_TB\n", false, "trace", 8,
     "BEGIN_TB"},
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *b = &bad_cases[i];
        const char *dir = folder("bad");
        const char *list =
            write_text("bad/kernelslist.g", b->list ? b->list : "kernel-1.traceg\n");
        const char *trace = b->trace ? write_text("bad/kernel-1.traceg", b->trace) : NULL;
        ks_trace_set *s = NULL;
        ks_error err;
        ks_error_clear(&err);
        ks_status st = ks_trace_set_open(dir, &s, &err);
        if (!b->at_open) {
            if (st != KS_OK)
                fail_with(st, &err);
            collect c = {0};
            st = ks_trace_set_stream(s, 0, NULL, collect_fn, &c, &err);
            free(c.v);
            /* counting goes through the same parser */
            ks_error err2;
            ks_profile *p = NULL;
            assert_int_not_equal(ks_trace_set_profile(s, &p, &err2), KS_OK);
            assert_null(p);
            assert_int_equal(err2.line, err.line);
            ks_trace_set_free(s);
        } else {
            assert_null(s);
        }
        if (st == KS_OK)
            fail_msg("%s: accepted", b->what);
        const char *want_file = strcmp(b->file, "list") == 0 ? list : trace;
        if (strcmp(err.file, want_file) != 0 || err.line != b->line ||
            !strstr(err.message, b->message))
            fail_msg("%s: got %s:%ld: %s; want %s:%ld: ...%s...", b->what, err.file, err.line,
                     err.message, want_file, b->line, b->message);
    }
}

/* a trace cut in the middle of its xz stream */
static void test_truncated_xz(void **state)
{
    (void)state;
    const char *dir = folder("cut");
    write_text("cut/kernelslist.g", "kernel-1.traceg.xz\n");
    static char big[200000];
    size_t n = (size_t)snprintf(big, sizeof big, "%s", SMALL_HEADER("4") "#BEGIN_TB\n"
                                                       "thread block = 0,0,0\nwarp = 0\n");
    n += (size_t)snprintf(big + n, sizeof big - n, "insts = 5000\n");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%04x ffffffff 1 R%d IADD3 1 R%d 0 \n",
                              i * 16, i % 200, (i * 7) % 200);
    n += (size_t)snprintf(big + n, sizeof big - n, "#END_TB\n");
    const char *path = write_xz("cut/kernel-1.traceg.xz", big, n);
    size_t len;
    char *bytes = read_file(path, &len);
    write_file("cut/kernel-1.traceg.xz", bytes, len / 2);
    free(bytes);
    ks_trace_set *s = open_ok(dir);
    uint64_t count;
    ks_error err;
    assert_int_equal(ks_trace_set_count_insts(s, 0, &count, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, path);
    assert_true(err.line > 1);
    assert_non_null(strstr(err.message, "truncated"));
    ks_trace_set_free(s);
}

/* A filter that keeps the first blocks of a grouped trace ends the stream at
 * the last kept block's #END_TB: what follows is neither read nor checked
 * (here a block whose warp has fewer lines than its 'insts =' says, found
 * without the filter).  Blocks are kept by index, in whatever order the file
 * lists them. */
static void test_stop_after_kept_blocks(void **state)
{
    (void)state;
    static char text[400000];
    size_t n = (size_t)snprintf(text, sizeof text, "%s",
                                "-kernel name = _Z1kv\n-grid dim = (3,1,1)\n-block dim = "
                                "(32,1,1)\n-binary version = 70\n-accelsim tracer version = "
                                "4\n\n");
    static const int order[] = {1, 0, 2};
    for (int b = 0; b < 3; b++) {
        int lines = order[b] == 2 ? 2999 : 3000;
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 3000\n",
                              order[b]);
        for (int i = 0; i < lines; i++)
            n += (size_t)snprintf(text + n, sizeof text - n,
                                  "%04x ffffffff 1 R%d IADD3 1 R%d 0 \n", i * 16, i % 200,
                                  (i * 7) % 200);
        n += (size_t)snprintf(text + n, sizeof text - n, "#END_TB\n");
    }
    assert_true(n < sizeof text - 1);
    const char *dir = folder("stop");
    write_text("stop/kernelslist.g", "kernel-1.traceg.xz\n");
    write_xz("stop/kernel-1.traceg.xz", text, n);
    ks_trace_set *s = open_ok(dir);
    for (uint64_t blocks = 1; blocks <= 2; blocks++) {
        ks_trace_filter f = {.max_blocks = blocks};
        collect c = stream_all(s, 0, &f);
        assert_int_equal(c.n, 3000 * blocks);
        /* block 1 comes first in the file */
        assert_int_equal(c.v[0].tb[0], blocks == 1 ? 0 : 1);
        assert_int_equal(c.v[c.n - 1].tb[0], 0);
        free(c.v);
    }
    ks_trace_filter all = {.max_blocks = 3};
    ks_error err;
    collect c = {0};
    assert_int_equal(ks_trace_set_stream(s, 0, &all, collect_fn, &c, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "instruction lines"));
    free(c.v);
    c = (collect){0};
    assert_int_equal(ks_trace_set_stream(s, 0, NULL, collect_fn, &c, &err), KS_ERR_FORMAT);
    free(c.v);
    ks_trace_set_free(s);
}

static void test_stats_errors(void **state)
{
    (void)state;
    const char *dir = trace_folder("stats", "kernel-1.traceg\n", "kernel-1.traceg", addr_trace);
    const char *stats = write_text("stats/stats.csv", "kernel, name\nx\n");
    ks_trace_set *s = NULL;
    ks_error err;
    assert_int_equal(ks_trace_set_open(dir, &s, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, stats);
    assert_int_equal(err.line, 1);
    static const char head[] = "kernel id, kernel mangled name, grid_dimX, grid_dimY, "
                               "grid_dimZ, #blocks, block_dimX, block_dimY, block_dimZ, "
                               "#threads, total_insts, total_reported_insts\n";
    char text[1024];
    snprintf(text, sizeof text, "%skernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 7\n",
             head);
    write_text("stats/stats.csv", text);
    assert_int_equal(ks_trace_set_open(dir, &s, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 2);

    /* a row that disagrees with the trace, one for a launch the tracer did
     * not trace, and a counter printed negative (wrapped): not usable, so
     * the profile counts the trace */
    static const char *const rows[] = {
        "kernel-1.trace, _Z5other, 1, 1, 1, 1, 32, 1, 1, 32, 99,99\n",
        "kernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 99,0\n",
        "kernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, -5,-5\n",
        "kernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32\n",
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        snprintf(text, sizeof text, "%s%s", head, rows[r]);
        write_text("stats/stats.csv", text);
        s = open_ok(dir);
        assert_non_null(ks_trace_set_kernel_stats(s, 0));
        assert_false(ks_trace_set_stats_usable(s, 0));
        ks_profile *p = NULL;
        ks_status st = ks_trace_set_profile(s, &p, &err);
        if (st != KS_OK)
            fail_with(st, &err);
        assert_true(p->metrics[0].values[0] == 7);
        ks_profile_free(p);
        ks_trace_set_free(s);
    }
    /* a usable row is taken as is (here deliberately unequal to the
     * trace's 7 lines, to show where the number came from) */
    snprintf(text, sizeof text, "%s%s", head,
             "kernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 9,9\n");
    write_text("stats/stats.csv", text);
    s = open_ok(dir);
    assert_true(ks_trace_set_stats_usable(s, 0));
    ks_profile *p = NULL;
    assert_int_equal(ks_trace_set_profile(s, &p, &err), KS_OK);
    assert_true(p->metrics[0].values[0] == 9);
    ks_profile_free(p);
    ks_trace_set_free(s);

    /* rows pair with launches by file stem, repeated stems in order, rows
     * without a launch ignored: launch 0 (kernel-1) takes row 1, launch 1
     * (kernel-2) row 0, launch 2 (kernel-1 again) row 3; launch 3 has none */
    write_text("stats/kernel-2.traceg", addr_trace);
    write_text("stats/kernel-3.traceg", addr_trace);
    write_text("stats/kernelslist.g",
               "kernel-1.traceg\nkernel-2.traceg\nkernel-1.traceg\nkernel-3.traceg\n");
    snprintf(text, sizeof text, "%s%s%s%s%s", head,
             "kernel-2.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 20,20\n",
             "kernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 10,10\n",
             "kernel-9.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 90,90\n",
             "kernel-1.trace, _Z5modesPf, 1, 1, 1, 1, 32, 1, 1, 32, 11,11\n");
    write_text("stats/stats.csv", text);
    s = open_ok(dir);
    assert_int_equal(ks_trace_set_kernel_count(s), 4);
    assert_int_equal(ks_trace_set_kernel_stats(s, 0)->total_insts, 10);
    assert_int_equal(ks_trace_set_kernel_stats(s, 1)->total_insts, 20);
    assert_int_equal(ks_trace_set_kernel_stats(s, 2)->total_insts, 11);
    assert_null(ks_trace_set_kernel_stats(s, 3));
    ks_trace_set_free(s);
}

static void test_not_a_folder(void **state)
{
    (void)state;
    ks_trace_set *s = NULL;
    ks_error err;
    const char *dir = folder("empty");
    assert_int_equal(ks_trace_set_open(dir, &s, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "kernelslist"));
    assert_int_equal(ks_trace_set_open(in_dir("nope"), &s, &err), KS_ERR_IO);
    assert_null(s);
    /* the list file itself may be given */
    folder("direct");
    write_text("direct/kernel-1.traceg", addr_trace);
    const char *list = write_text("direct/kernelslist.g", "kernel-1.traceg\n");
    s = open_ok(list);
    assert_int_equal(ks_trace_set_kernel_count(s), 1);
    assert_null(ks_trace_set_kernel(s, 1));
    collect c = {0};
    assert_int_equal(ks_trace_set_stream(s, 1, NULL, collect_fn, &c, &err), KS_ERR_USAGE);
    ks_trace_set_free(s);
}

KS_TMPDIR_TEST_MAIN("ks-test-traces",
                    test_registers,
                    test_address_modes,
                    test_version5,
                    test_raw_v3,
                    test_bbv_known,
                    test_bbv_pascal,
                    test_profile_counted,
                    test_real_backprop,
                    test_real_with_stats,
                    test_malformed,
                    test_truncated_xz,
                    test_stop_after_kept_blocks,
                    test_stats_errors,
                    test_not_a_folder)
