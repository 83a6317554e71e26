/* test_read_csv.c - the Nsight Systems CSV readers and the plain CSV reader:
 * every header variant of FORMATS.md, noise, quoting, and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ksample.h"
#include "test_read.h"
#include "tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ks_profile *read_ok(const char *path, const char *format)
{
    return tr_read_ok(path, format, -1);
}

static ks_error read_fails(const char *path, ks_status expect)
{
    ks_profile *p = NULL;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_profile_read(path, NULL, &p, &err);
    assert_int_equal(st, expect);
    assert_null(p);
    assert_string_equal(err.file, path);
    return err;
}

/* Writes text as name and expects a format error at line (0: any) whose
 * message contains part (NULL: any). */
static void expect_refused(const char *name, const char *text, long line, const char *part)
{
    ks_error err = read_fails(write_text(name, text), KS_ERR_FORMAT);
    if ((line != 0 && err.line != line) || (part && !strstr(err.message, part)))
        print_message("%s: line %ld: %s\n", name, err.line, err.message); /* before failing */
    if (line != 0)
        assert_int_equal(err.line, line);
    if (part)
        assert_non_null(strstr(err.message, part));
}

#define GPU_TRACE_NEW                                                                      \
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"  \
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"  \
    "Name\n"
#define GPU_TRACE_OLD                                                                      \
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"  \
    "DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n"
#define KERN_EXEC                                                                          \
    "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"      \
    "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel "  \
    "Name\n"

static void test_gpu_trace_new_header(void **state)
{
    (void)state;
    const char *path = write_text(
        "gpu_new.csv",
        "NOTICE: Existing SQLite export found: run.sqlite\n"
        "Processing [run.sqlite] with [cuda_gpu_trace.py]... \n\n" GPU_TRACE_NEW
        "100,50,1,,,,,,,,,,1.049,20.9,Pageable,Device,NVIDIA H100 (0),1,,7,[CUDA memcpy "
        "Host-to-Device]\n"
        "9961685,2707098,67,1,1,2304,128,1,1,160,0.000,0.025,,,,,NVIDIA H100 (0),1,,7,"
        "kernel_cutlass_kernel_example_1\n"
        "9970000,1234,68,4,2,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 (0),1,,7,"
        "\"void at::native::foo<float, 4>(int, float*)\"\n"
        "9980000,10,69,,,,,,,,,,0.001,1.0,,Device,NVIDIA H100 (0),1,,7,[CUDA memset]\n");
    ks_profile *p = tr_read_n(path, NULL, "nsys-gpu-trace-csv", 2);
    assert_int_equal(p->duration_ns[0], 2707098);
    assert_int_equal(p->start_ns[0], 9961685);
    tr_expect_dims(p, 0, (const uint32_t[]){1, 1, 2304}, (const uint32_t[]){128, 1, 1});
    assert_int_equal(p->stream[0], 7);
    assert_int_equal(p->correlation[1], 68);
    assert_string_equal(ks_profile_name(p, 1), "void at::native::foo<float, 4>(int, float*)");
    ks_profile_free(p);
}

static void test_gpu_trace_old_header_sorted_by_start(void **state)
{
    (void)state;
    const char *path = write_text("gpu_old.csv", GPU_TRACE_OLD
                                  "300,5,3,1,1,1,32,1,1,8,0,0,,,,,1,1,2,b\n"
                                  "200,6,2,1,1,1,32,1,1,8,0,0,,,,,1,1,1,a\n"
                                  "400,7,4,2,1,1,32,1,1,8,0,0,,,,,0,1,1,c\n");
    ks_profile *p = tr_read_n(path, "nsys-gpu-trace-csv", "nsys-gpu-trace-csv", 3);
    /* ids are launch (start) order */
    assert_string_equal(ks_profile_name(p, 0), "a");
    assert_string_equal(ks_profile_name(p, 1), "b");
    assert_int_equal(p->duration_ns[2], 7);
    ks_profile_free(p);

    p = tr_read_ok(path, NULL, 0);
    assert_int_equal(p->n, 1);
    assert_string_equal(ks_profile_name(p, 0), "c");
    ks_profile_free(p);
}

static void test_kern_exec(void **state)
{
    (void)state;
    const char *path = write_text(
        "kern.csv", "Processing [x.sqlite] with [/opt/nsys/cuda_kern_exec_trace.py]...\n" KERN_EXEC
        "43703966,78512,,,43769847,75200,141081,1,1,0,cuLaunchKernelEx, 148    1    1, 256  "
        "  1    1,\"void gemm<cutlass::half_t, 128>(Params, int)\"\n"
        "43803966,1000,43803970,5,43805000,\"1,234\",2000,1,1,0,cudaLaunchKernel,   1    1    1,"
        "  32    1    1,simple\n");
    ks_profile *p = tr_read_n(path, NULL, "nsys-kern-exec-csv", 2);
    tr_expect_durations(p, (const int64_t[]){75200, 1234}, 2);
    tr_expect_dims(p, 0, (const uint32_t[]){148, 1, 1}, (const uint32_t[]){256, 1, 1});
    tr_expect_dims(p, 1, (const uint32_t[]){1, 1, 1}, (const uint32_t[]){32, 1, 1});
    assert_string_equal(ks_profile_name(p, 0), "void gemm<cutlass::half_t, 128>(Params, int)");
    ks_profile_free(p);
}

static void test_plain_csv_ids_reorder(void **state)
{
    (void)state;
    const char *path = write_text("plain.csv", "id,name,duration_ns,grid,block\n"
                                               "1,b,20,4 1 1,\"(32, 1, 1)\"\n"
                                               "0,a,10.4,1,1\n"
                                               "2,\"c, with comma\",30,2 2 1,64 1 1\n");
    ks_profile *p = tr_read_n(path, NULL, "plain-csv", 3);
    assert_string_equal(ks_profile_name(p, 0), "a");
    assert_int_equal(p->duration_ns[0], 10);
    assert_string_equal(ks_profile_name(p, 2), "c, with comma");
    tr_expect_dims(p, 1, (const uint32_t[]){4, 1, 1}, (const uint32_t[]){32, 1, 1});
    ks_profile_free(p);
}

/* Files refused as malformed at their line (0: any), saying part (NULL:
 * anything). */
static const struct refusal {
    const char *name, *text;
    long line;
    const char *part;
} refusals[] = {
    {"plain_dup.csv", "id,name,duration_ns\n0,a,1\n0,b,2\n", 0, "twice"},
    /* a row longer than the header is refused, as docs/formats.md says (an
     * unquoted comma shifted the cells): the dims "(32, 1, 1)" unquoted
     * used to read as (32) by luck (issue 25) */
    {"plain_long.csv", "id,name,duration_ns,grid,block\n0,a,20,4 1 1,(32, 1, 1)\n", 2,
     "the header has 5"},
    {"plain_long2.csv", "name,duration_ns\na,10,5\n", 2, "unquoted comma"},
    /* nsys writes every field: an unquoted comma in a kernel name makes a
     * longer row, refused by the vectorised path and the general one alike
     * (the name used to be cut at the comma) */
    {"kern_long.csv",
     "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
     "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,"
     "Kernel Name\n"
     "1,2,,,3,40,50,7,7,0,cudaLaunchKernel, 1 1 1, 32 1 1,k\n"
     "5,2,,,6,40,50,7,7,0,cudaLaunchKernel, 1 1 1, 32 1 1,void f(int, float)\n",
     3, "unquoted comma"},
    /* a quoted field holding a line break is refused as such */
    {"plain_nl.csv", "name,duration_ns\n\"a\nb\",10\n", 2, "line break"},
    /* a missing column is located */
    {"nodur.csv",
     "junk line\n"
     "API Start (ns),Kernel Dur (ns),GridXYZ,BlockXYZ\n"
     "1,2,1 1 1,1 1 1\n",
     2, "Kernel Name"},
    {"plain_noname.csv", "name,duration_ns\n", 0, "no kernel invocations"},
    /* empty, a header only, not a CSV */
    {"empty.csv", "", 0, "empty"},
    {"header_only.csv", KERN_EXEC, 0, "no kernel invocations"},
    {"garbage.bin", "\x01\x02\x03 hello", 0, "unrecognised"},
    /* Regression: llround of a double beyond int64 gave INT64_MIN, so 1e30
     * read as a negative duration and -1e30 as a missing start time. */
    {"plain_big.csv", "name,duration_ns\nk,1\nk,1e30\n", 3, "out of range"},
    {"plain_big.csv", "name,duration_ns\nk,9223372036854775808\n", 2, "out of range"},
    {"plain_big.csv", "name,duration_ns,start_ns\nk,1,-1e30\n", 2, "start_ns"},
    {"plain_big.csv", "name,duration_ns,start_ns\nk,1,1e19\n", 2, "start_ns"},
    /* Regression: a device id beyond 32 bits was cut to its low 32 bits, so
     * 4294967296 read as device 0 and passed --device 0. */
    {"devbig.csv",
     KERN_EXEC "1,1,,,1,10,1,1,1,4294967296,f, 1 1 1, 1 1 1,k\n"
               "2,1,,,2,10,1,1,1,0,f, 1 1 1, 1 1 1,j\n",
     2, "DevId"},
    /* the same in a gpu-trace report's "Name (N)" device cell */
    {"gpudevbig.csv",
     "Start (ns),Duration (ns),GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Device,Name\n"
     "1,5,1,1,1,1,1,1,NVIDIA H100 (4294967296),k\n",
     2, "Device"},
    /* a last line cut short */
    {"trunc.csv",
     KERN_EXEC "1,1,,,1,10,1,1,1,0,f, 1 1 1, 1 1 1,kernel_one\n"
               "2,1,,,2,20,1,1,1,0,f, 1 1 1, 1 1 1,kern",
     3, "truncated"},
    {"short.csv", KERN_EXEC "1,1,,,1,10,1,1,1,0,f, 1 1 1\n", 2, NULL},
    {"quote.csv", KERN_EXEC "1,1,,,1,10,1,1,1,0,f, 1 1 1, 1 1 1,\"open\n", 0, "quoted"},
};

static void test_refusals(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const struct refusal *r = &refusals[i];
        expect_refused(r->name, r->text, r->line, r->part);
    }
    read_fails("/nonexistent/ksample.csv", KS_ERR_IO);
}

static void test_bad_durations(void **state)
{
    (void)state;
    static const char *bad[] = {"-5", "NaN", "abc", "1e999", "12x", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 KERN_EXEC "1,1,,,1,10,1,1,1,0,f, 1 1 1, 1 1 1,k\n"
                           "2,1,,,2,%s,1,1,1,0,f, 1 1 1, 1 1 1,k\n",
                 bad[i]);
        expect_refused("bad.csv", text, 3, "Kernel Dur");
        snprintf(text, sizeof text, "name,duration_ns\nk,1\nk,%s\n", bad[i]);
        expect_refused("bad_plain.csv", text, 3, NULL);
    }
}

/* The largest values that fit still read (those beyond: refusals). */
static void test_plain_csv_largest_values(void **state)
{
    (void)state;
    ks_profile *p = read_ok(write_text("plain_edge.csv", "name,duration_ns,start_ns\n"
                                                         "k,9.2e18,-9.2e18\nk,0,\n"),
                            NULL);
    assert_int_equal(p->n, 2);
    assert_true(p->duration_ns[0] == 9200000000000000000LL);
    assert_true(p->start_ns[0] == -9200000000000000000LL);
    assert_true(p->start_ns[1] == KS_MISSING_I64);
    ks_profile_free(p);
}

/* The largest device ids read, in both layouts (one beyond: refusals). */
static void test_largest_device_ids(void **state)
{
    (void)state;
    ks_profile *p = read_ok(write_text("devmax.csv",
                                       KERN_EXEC "1,1,,,1,10,1,1,1,4294967295,f, 1 1 1, 1 1 1,k\n"),
                            NULL);
    assert_int_equal(p->n, 1);
    assert_int_equal(p->device[0], UINT32_MAX);
    ks_profile_free(p);
    p = read_ok(write_text("gpudevmax.csv",
                           "Start (ns),Duration (ns),GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Device,Name\n"
                           "1,5,1,1,1,1,1,1,NVIDIA H100 (4294967295),k\n"),
                NULL);
    assert_int_equal(p->device[0], UINT32_MAX);
    ks_profile_free(p);
}

static void test_megabyte_name(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *text = malloc(n + 4096);
    assert_non_null(text);
    int off = snprintf(text, 4096, KERN_EXEC "1,1,,,1,10,1,1,1,0,f, 1 1 1, 1 1 1,\"");
    memset(text + off, 'x', n);
    text[off + 10] = ',';
    snprintf(text + off + n, 4096, "\"\n2,1,,,2,20,1,1,1,0,f, 1 1 1, 1 1 1,small\n");
    const char *path = write_text("big.csv", text);
    free(text);
    ks_profile *p = read_ok(path, NULL);
    assert_int_equal(p->n, 2);
    assert_int_equal(strlen(ks_profile_name(p, 0)), n);
    assert_string_equal(ks_profile_name(p, 1), "small");
    ks_profile_free(p);
}

static void test_compressed_inputs(void **state)
{
    (void)state;
    char text[4096];
    int off = snprintf(text, sizeof text, "%s", KERN_EXEC);
    for (int i = 0; i < 20; i++)
        off += snprintf(text + off, sizeof text - off,
                        "%d,1,,,%d,%d,1,1,1,0,f, 1 1 1, 1 1 1,k%d\n", i, i, 100 + i, i % 3);
    const char *path = write_text("c.csv", text);
    ks_profile *plain = read_ok(path, NULL);
    static const char *tools[][2] = {{"gzip -kf", "gz"}, {"xz -kf", "xz"}, {"zstd -qf", "zst"}};
    for (size_t t = 0; t < 3; t++) {
        char out[8300], cmd[4 * sizeof out + 64];
        snprintf(cmd, sizeof cmd, "%s '%s'", tools[t][0], path);
        if (system(cmd) != 0) {
            print_message("skipping %s: tool missing\n", tools[t][1]);
            continue;
        }
        snprintf(out, sizeof out, "%s.%s", path, tools[t][1]);
        ks_profile *p = read_ok(out, NULL);
        assert_int_equal(p->n, plain->n);
        for (size_t i = 0; i < p->n; i++)
            assert_int_equal(p->duration_ns[i], plain->duration_ns[i]);
        /* the digest is of the stored (compressed) bytes */
        assert_string_not_equal(p->source_xxh128, plain->source_xxh128);
        ks_profile_free(p);
        /* a compressed file cut short is an error, not a shorter profile */
        snprintf(cmd, sizeof cmd, "head -c 40 '%s' > '%s.cut' && mv '%s.cut' '%s'", out, out, out,
                 out);
        assert_int_equal(system(cmd), 0);
        ks_profile *q = NULL;
        ks_error err;
        ks_error_clear(&err);
        assert_int_not_equal(ks_profile_read(out, NULL, &q, &err), KS_OK);
        assert_null(q);
    }
    ks_profile_free(plain);
}

/* --device on a format without devices is refused, not ignored */
static void test_plain_csv_device_refused(void **state)
{
    (void)state;
    const char *path = write_text("dev.csv", "name,duration_ns\na,1\n");
    ks_error err;
    assert_int_equal(tr_read_fails(path, NULL, 1, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "no device column"));
}

static void test_unknown_format_option(void **state)
{
    (void)state;
    const char *path = write_text("u.csv", "name,duration_ns\na,1\n");
    ks_error err;
    assert_int_equal(tr_read_fails(path, "nonsense", -1, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "plain-csv"));
}

static void test_csv_digest_matches_xxh128sum(void **state)
{
    (void)state;
    const char *path = write_text("d.csv", "name,duration_ns\na,1\nb,2\n");
    ks_profile *p = read_ok(path, NULL);
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "xxh128sum '%s'", path);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    char hex[65] = {0};
    if (fscanf(f, "%64s", hex) != 1) {
        pclose(f);
        skip(); /* xxh128sum (Debian package xxhash) not installed */
    }
    pclose(f);
    assert_string_equal(p->source_xxh128, hex);
    assert_int_equal(p->source_bytes, 25);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-csv",
                    test_gpu_trace_new_header,
                    test_gpu_trace_old_header_sorted_by_start,
                    test_kern_exec,
                    test_plain_csv_ids_reorder,
                    test_refusals,
                    test_bad_durations,
                    test_plain_csv_largest_values,
                    test_largest_device_ids,
                    test_megabyte_name,
                    test_compressed_inputs,
                    test_plain_csv_device_refused,
                    test_unknown_format_option,
                    test_csv_digest_matches_xxh128sum)
