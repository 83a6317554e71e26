/*
 * test_read_rocprof.c - the rocprofv3 kernel-trace and rocprof v1 results.csv
 * readers on files written here: known values (durations, work-item grids
 * turned into workgroups, ".kd" suffixes dropped, launch order), preamble,
 * quoted names, xz and zstd copies, and malformed files with located errors.
 * Every well-formed file is read twice: detected, and with the format forced.
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

#include "ksample.h"
#include "test_read.h"
#include "tmpdir.h"

static ks_status read_fail(const char *path, const char *format, int device, ks_error *err)
{
    ks_status st = tr_read_fails(path, format, device, err);
    assert_string_equal(err->file, path);
    return st;
}

/* Reads a well-formed file twice, detected and with its format forced, and
 * checks each profile. */
static void read_both_ways(const char *path, const char *format, void (*check)(const ks_profile *))
{
    const char *formats[] = {NULL, format};
    for (int i = 0; i < 2; i++) {
        ks_profile *p = tr_read_ok(path, formats[i], -1);
        check(p);
        ks_profile_free(p);
    }
}

/* xz and zstd copies of text, named name.xz and name.zst, read like the
 * plain file. */
static void read_compressed_both_ways(const char *name, const char *text, const char *format,
                                      void (*check)(const ks_profile *))
{
    char xz[256], zst[256];
    snprintf(xz, sizeof xz, "%s.xz", name);
    snprintf(zst, sizeof zst, "%s.zst", name);
    read_both_ways(write_xz(xz, text, strlen(text)), format, check);
    read_both_ways(write_zstd(zst, text, strlen(text)), format, check);
}

enum { DETECTED = 1, FORCED = 2 };

/* A file the reader must refuse with a format error, read as `how` says
 * (detected, forced, or both), at `line` (0: not checked) and with up to two
 * parts of the message. */
typedef struct refusal {
    const char *file, *text;
    int how;
    long line;
    const char *part[2];
} refusal;

static void check_refusals(const refusal *r, size_t count, const char *format)
{
    for (size_t i = 0; i < count; i++) {
        const char *path = write_text(r[i].file, r[i].text);
        for (int how = DETECTED; how <= FORCED; how <<= 1) {
            if (!(r[i].how & how))
                continue;
            ks_error err;
            assert_int_equal(read_fail(path, how == FORCED ? format : NULL, -1, &err),
                             KS_ERR_FORMAT);
            bool as_expected = r[i].line == 0 || err.line == r[i].line;
            for (size_t k = 0; k < 2 && r[i].part[k]; k++)
                as_expected = as_expected && strstr(err.message, r[i].part[k]);
            if (!as_expected) /* say which file before an assertion below fails */
                print_message("%s read as %s: line %ld: %s\n", r[i].file,
                              how == FORCED ? format : "detected", err.line, err.message);
            if (r[i].line != 0)
                assert_int_equal(err.line, r[i].line);
            for (size_t k = 0; k < 2 && r[i].part[k]; k++)
                assert_non_null(strstr(err.message, r[i].part[k]));
        }
    }
}

/* ----------------------------------------------------------------- rocprofv3 */

#define V3_HEADER                                                                          \
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","      \
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","                \
    "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","                \
    "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","       \
    "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"

/* Out of dispatch order; the start of dispatch 2 has thousands separators. */
static const char v3_text[] =
    "W20250101 12:00:00.000000 1 rocprofv3 preamble line\n"
    "some application output, with a comma\n" V3_HEADER
    "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,2,13,\"subtract_kernel(float*, float "
    "const*, float const*, int, int) [clone .kd]\",2,\"1,000,500\",1001500,0,0,8,0,16,64,"
    "1,1,1000,1024,1\n"
    "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,1,10,\"void addition_kernel<float, "
    "2>(float*, float const*, float const*, int, int)\",1,1000000,1000250,0,0,8,0,16,256,"
    "1,1,1024,1,1\n"
    "\"KERNEL_DISPATCH\",\"Agent 5\",2,2,852831,3,12,\"multiply_kernel.kd\",3,1002000,"
    "1002100,0,0,8,0,16,64,4,1,1024,16,1\n"
    "\"KERNEL_DISPATCH\",\"Agent 4\",1,3,852831,4,10,\"void addition_kernel<float, "
    "2>(float*, float const*, float const*, int, int)\",4,1003000,1003400,0,0,8,0,16,256,"
    "1,1,1024,1,1\n";

static void check_v3(const ks_profile *p)
{
    tr_expect_profile(p, "rocprof-v3-csv", 4);
    assert_int_equal(p->name_count, 3);
    tr_expect_durations(p, (const int64_t[]){250, 1000, 100, 400}, 4);
    TR_EXPECT_COLUMN(p, start_ns, 1000000, 1000500, 1002000, 1003000);
    TR_EXPECT_COLUMN(p, correlation, 1, 2, 3, 4);
    TR_EXPECT_COLUMN(p, device, 4, 4, 5, 4);
    TR_EXPECT_COLUMN(p, stream, 1, 1, 2, 3);
    assert_string_equal(ks_profile_name(p, 0),
                        "void addition_kernel<float, 2>(float*, float const*, float const*, "
                        "int, int)");
    assert_string_equal(ks_profile_name(p, 1),
                        "subtract_kernel(float*, float const*, float const*, int, int)");
    assert_string_equal(ks_profile_name(p, 2), "multiply_kernel");
    assert_int_equal(p->name_id[0], p->name_id[3]);
    /* 1024 work-items in workgroups of 256 -> 4 workgroups */
    static const uint32_t grid[4][3] = {{4, 1, 1}, {16, 1024, 1}, {16, 4, 1}, {4, 1, 1}};
    static const uint32_t block[4][3] = {{256, 1, 1}, {64, 1, 1}, {64, 4, 1}, {256, 1, 1}};
    for (size_t i = 0; i < 4; i++)
        tr_expect_dims(p, i, grid[i], block[i]);
}

static void test_v3_values(void **state)
{
    (void)state;
    const char *path = write_text("1234_kernel_trace.csv", v3_text);
    read_both_ways(path, "rocprof-v3-csv", check_v3);

    /* --device keeps one agent */
    ks_profile *p = tr_read_ok(path, NULL, 5);
    assert_int_equal(p->n, 1);
    assert_string_equal(ks_profile_name(p, 0), "multiply_kernel");
    ks_profile_free(p);
    p = tr_read_ok(path, "rocprof-v3-csv", 4);
    assert_int_equal(p->n, 3);
    assert_int_equal(p->duration_ns[2], 400);
    ks_profile_free(p);
    ks_error err;
    assert_int_equal(read_fail(path, NULL, 0, &err), KS_ERR_FORMAT);
}

static void test_v3_compressed(void **state)
{
    (void)state;
    read_compressed_both_ways("k.csv", v3_text, "rocprof-v3-csv", check_v3);
}

static void check_v3_old(const ks_profile *p)
{
    assert_int_equal(p->n, 2);
    assert_string_equal(ks_profile_name(p, 0), "a");
    assert_string_equal(ks_profile_name(p, 1), "b");
    tr_expect_durations(p, (const int64_t[]){50, 400}, 2);
    assert_int_equal(p->device[0], 2);
    /* queues numbered 1, 2... in file order: Queue_Id may be a 64-bit handle */
    assert_int_equal(p->stream[0], 2);
    assert_int_equal(p->stream[1], 1);
    assert_false(ks_profile_has_dims(p));
}

/* Older rocprofv3: numeric Agent_Id, no Dispatch_Id/Stream_Id (order by start,
 * stream from Queue_Id), no launch shape at all; non-kernel kinds skipped. */
static void test_v3_old_header(void **state)
{
    (void)state;
    const char *text =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\","
        "\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"KERNEL_DISPATCH\",2,139690710949888,1,\"b\",2,500,900\n"
        "\"MEMORY_COPY\",2,7,0,\"copy\",3,100,200\n"
        "\"KERNEL_DISPATCH\",2,7,1,\"a.kd\",1,100,150\n";
    read_both_ways(write_text("old_kernel_trace.csv", text), "rocprof-v3-csv", check_v3_old);
}

/* Agent_Id spellings: "Agent 4", a bare number, another word, n/a; and a
 * preamble line with an unbalanced quote (skipped, not an error). */
static void test_v3_agent_forms(void **state)
{
    (void)state;
    const char *text = "rocprofv3: \"unbalanced preamble quote\n"
                       "\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
                       "\"Agent 4\",k,10,20\n"
                       "3,k,30,40\n"
                       "\"GPU 2\",k,50,60\n"
                       "n/a,k,70,80\n";
    const char *path = write_text("agents.csv", text);
    ks_profile *p = tr_read_n(path, NULL, "rocprof-v3-csv", 4);
    assert_int_equal(p->device[0], 4);
    assert_int_equal(p->device[1], 3);
    assert_int_equal(p->device[2], 2);
    assert_int_equal(p->device[3], 0);
    ks_profile_free(p);
    /* the n/a row cannot be placed on a device */
    ks_error err;
    assert_int_equal(read_fail(path, "rocprof-v3-csv", 2, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 6);
    const char *known = strstr(text, "\"Agent_Id\"");
    char without_na[512];
    snprintf(without_na, sizeof without_na, "%.*s", (int)(strstr(text, "n/a") - known), known);
    p = tr_read_ok(write_text("agents2.csv", without_na), "rocprof-v3-csv", 2);
    assert_int_equal(p->n, 1);
    assert_int_equal(p->start_ns[0], 50);
    ks_profile_free(p);
    assert_int_equal(read_fail(path, NULL, 4, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 6);
    assert_non_null(strstr(err.message, "Agent_Id"));

    path = write_text("badagent.csv", "\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\","
                                      "\"End_Timestamp\"\n"
                                      "\"Agent four\",k,10,20\n");
    assert_int_equal(read_fail(path, NULL, -1, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "Agent four"));
}

/* A kernel-dispatch row of V3_HEADER, with the cells the refusals below
 * change: Dispatch_Id, Kernel_Name, Correlation_Id, Start_ and End_Timestamp,
 * Workgroup_Size_Y. */
#define V3_ROW(dispatch, name, correlation, start, end, wg_y)                              \
    "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,1," dispatch ",10," name "," correlation ","     \
    start "," end ",0,0,8,0,16,64," wg_y ",1,64,1,1"

static const refusal v3_refusals[] = {
    /* End_Timestamp missing: the header line and the column are named */
    {"missing_end.csv",
     "preamble\n"
     "\"Kind\",\"Agent_Id\",\"Dispatch_Id\",\"Kernel_Name\",\"Start_Timestamp\"\n"
     "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"k\",100\n",
     DETECTED | FORCED, 2, {"End_Timestamp"}},
    {"bad_start.csv",
     V3_HEADER V3_ROW("1", "\"k\"", "1", "1000", "1100", "1") "\n"
               V3_ROW("2", "\"k\"", "2", "12x4", "1200", "1") "\n",
     DETECTED | FORCED, 3, {"Start_Timestamp", "12x4"}},
    /* end before start */
    {"negative.csv", V3_HEADER V3_ROW("1", "\"k\"", "1", "1000", "900", "1") "\n",
     DETECTED, 2, {"negative"}},
    /* workgroup size 0 cannot divide a grid */
    {"wg0.csv", V3_HEADER V3_ROW("1", "\"k\"", "1", "1000", "1100", "0") "\n",
     DETECTED, 2, {"Workgroup_Size_Y"}},
    /* an unquoted comma in a name shifts the columns: refused */
    {"unquoted.csv", V3_HEADER V3_ROW("1", "k(int, int)", "1", "1000", "1100", "1") "\n",
     DETECTED, 2, {NULL}},
    /* the last row cut off: even though its fields parse, it is refused */
    {"cut.csv",
     V3_HEADER V3_ROW("1", "\"k\"", "1", "1000", "1100", "1") "\n"
               V3_ROW("2", "\"k\"", "2", "1200", "1300", "1"),
     DETECTED, 3, {"cut off"}},
    /* Dispatch_Id given for some rows only */
    {"nodispatch.csv", V3_HEADER V3_ROW("", "\"k\"", "1", "1000", "1100", "1") "\n",
     DETECTED, 2, {"Dispatch_Id"}},
    /* forced onto a file without the header */
    {"other.csv", "name,duration_ns\nk,5\n", FORCED, 0, {"Kernel_Name"}},
};

static void test_v3_errors(void **state)
{
    (void)state;
    check_refusals(v3_refusals, sizeof v3_refusals / sizeof v3_refusals[0], "rocprof-v3-csv");
}

/* ---------------------------------------------------------------- rocprof v1 */

#define V1_HEADER                                                                          \
    "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\","    \
    "\"grd\",\"wgr\",\"lds\",\"scr\",\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\"," \
    "\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n"

/* rocprof prints an empty line after the header; rows out of Index order. */
static const char v1_text[] =
    "RPL: on '240505_115025' from '/opt/rocm-6.2.0' in '/home/user'\n" V1_HEADER "\n"
    "1,\"heavy_kernel(float*, int) [clone .kd]\",1,0,2,937,937,20971520,256,0,144,72,0,128,"
    "32,\"0x0\",\"0x7073a07c8d00\",363394502348015,363394502772909,363394537269967,"
    "363394537278002,34497058\n"
    "0,\"light_kernel(float*, int) [clone .kd]\",1,0,0,937,937,20971520,256,0,0,8,0,128,32,"
    "\"0x0\",\"0x7073a07c8d40\",363394501327600,363394501507848,363394502312007,"
    "363394502319511,804159\n"
    "2,\"__omp_offloading_fd00_5871764_main_l28.kd\",2,1,0,3495164,3495164,257,64,512,0,4,"
    "4,16,64,\"0x153e64afca00\",\"0x153d64770f00\",5323868597609543,5323868597625664,"
    "5323868597648223,5323868597650689,22559\n";

static void check_v1(const ks_profile *p)
{
    tr_expect_profile(p, "rocprof-v1-csv", 3);
    tr_expect_durations(p, (const int64_t[]){804159, 34497058, 22559}, 3);
    assert_int_equal(p->start_ns[0], 363394501507848);
    assert_string_equal(ks_profile_name(p, 0), "light_kernel(float*, int)");
    assert_string_equal(ks_profile_name(p, 1), "heavy_kernel(float*, int)");
    assert_string_equal(ks_profile_name(p, 2), "__omp_offloading_fd00_5871764_main_l28");
    /* 20971520 work-items / 256 = 81920 workgroups; 257 / 64 rounds up to 5 */
    tr_expect_dims(p, 0, (const uint32_t[]){81920, 1, 1}, (const uint32_t[]){256, 1, 1});
    tr_expect_dims(p, 2, (const uint32_t[]){5, 1, 1}, (const uint32_t[]){64, 1, 1});
    assert_int_equal(p->device[0], 1);
    assert_int_equal(p->device[2], 2);
    assert_int_equal(p->stream[2], 1);
}

static void test_v1_values(void **state)
{
    (void)state;
    const char *path = write_text("results.csv", v1_text);
    read_both_ways(path, "rocprof-v1-csv", check_v1);

    ks_profile *p = tr_read_ok(path, NULL, 2);
    assert_int_equal(p->n, 1);
    assert_int_equal(p->duration_ns[0], 22559);
    ks_profile_free(p);
    read_compressed_both_ways("results.csv", v1_text, "rocprof-v1-csv", check_v1);
}

static void check_v1_counters(const ks_profile *p)
{
    assert_int_equal(p->n, 2);
    tr_expect_durations(p, (const int64_t[]){300, 300}, 2);
    assert_int_equal(p->start_ns[0], 1200);
    tr_expect_dims(p, 0, (const uint32_t[]){16384, 1, 1}, (const uint32_t[]){1024, 1, 1});
    assert_int_equal(p->name_count, 1);
    assert_string_equal(ks_profile_name(p, 1), "copy_kernel(float*, float*, int, int)");
}

/* Unquoted, space-padded header without DurationNs (duration = EndNs -
 * BeginNs), with counter columns, thousands separators in a quoted cell. */
static void test_v1_no_duration_column(void **state)
{
    (void)state;
    const char *text =
        "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,   grd,   wgr,lds,scr,vgpr,sgpr,"
        "fbar,sig,obj,Wavefronts,DispatchNs,BeginNs,EndNs,CompleteNs\n"
        "0,\"copy_kernel(float*, float*, int, int) [clone .kd]\",0,0,0,2460290,2460293, "
        "16777216,  1024,0,0,4,24,0,0x0,0x7ffdd7609840,262144.0000000000,100,\"1,200\",1500,"
        "1600\n"
        "1,\"copy_kernel(float*, float*, int, int) [clone .kd]\",0,0,1,2460290,2460293, "
        "16777216,  1024,0,0,4,24,0,0x0,0x7ffdd7609840,n/a,1700,1800,2100,2200\n";
    read_both_ways(write_text("counters.csv", text), "rocprof-v1-csv", check_v1_counters);
}

/* A row of V1_HEADER, with the cells the refusals below change. */
#define V1_ROW(index, name, wgr, duration)                                                 \
    index "," name ",0,0,0,1,1,64," wgr ",0,0,4,4,16,64,0x0,0x0,1,2,3,4," duration

static const refusal v1_refusals[] = {
    /* counters only, no timestamps: no durations to read */
    {"notime.csv",
     "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds\n"
     "0,\"k\",0,0,0,1,1,64,64,0\n",
     DETECTED | FORCED, 1, {"BeginNs"}},
    /* no KernelName column */
    {"noname.csv", "junk line\nIndex,gpu-id,grd,wgr,BeginNs,EndNs\n0,0,64,64,1,2\n", FORCED, 2,
     {"KernelName"}},
    /* a bad DurationNs cell */
    {"baddur.csv",
     V1_HEADER V1_ROW("0", "\"k\"", "64", "1") "\n" V1_ROW("1", "\"k\"", "64", "fast") "\n",
     DETECTED | FORCED, 3, {"DurationNs"}},
    {"wgr0.csv", V1_HEADER V1_ROW("0", "\"k\"", "0", "1") "\n", DETECTED, 2, {"wgr"}},
    /* cut-off last line */
    {"cut.csv", V1_HEADER V1_ROW("0", "\"k\"", "64", "1"), DETECTED, 2, {NULL}},
    /* unterminated quote */
    {"quote.csv", V1_HEADER V1_ROW("0", "\"k", "64", "1") "\n", DETECTED, 2, {"quote"}},
};

static void test_v1_errors(void **state)
{
    (void)state;
    check_refusals(v1_refusals, sizeof v1_refusals / sizeof v1_refusals[0], "rocprof-v1-csv");

    /* --device without a gpu-id column */
    const char *path =
        write_text("nogpu.csv", "Index,KernelName,grd,wgr,DurationNs\n0,\"k\",64,64,5\n");
    ks_error err;
    assert_int_equal(read_fail(path, NULL, 0, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "gpu-id"));
}

KS_TMPDIR_TEST_MAIN("ks-test-rocprof",
                    test_v3_values,
                    test_v3_compressed,
                    test_v3_old_header,
                    test_v3_agent_forms,
                    test_v3_errors,
                    test_v1_values,
                    test_v1_no_duration_column,
                    test_v1_errors)
