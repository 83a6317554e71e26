/*
 * test_read_ncu.c - the Nsight Compute readers (details and raw layouts) and
 * ks_profile_attach (KS_SOURCE_METRICS), on files written here at test time: the three
 * details header versions with ncu's and the program's own lines mixed in,
 * NVTX columns, the raw layout with its units row, a gzip copy, malformed
 * and truncated files, and attaching to a time profile built in memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksample.h"
#include "test_read.h"
#include "tmpdir.h"

/* Attaches the metrics of path to p, failing the test with the located error
 * if it cannot. */
static void attach_ok(ks_profile *p, const char *path)
{
    ks_error err;
    ks_error_clear(&err);
    if (ks_profile_attach(p, KS_SOURCE_METRICS, path, &err) != KS_OK)
        fail_msg("%s:%ld: %s", err.file, err.line, err.message);
}

static const ks_metric_column *metric(const ks_profile *p, const char *name)
{
    for (size_t i = 0; i < p->metric_count; i++)
        if (strcmp(p->metrics[i].name, name) == 0)
            return &p->metrics[i];
    fail_msg("no metric column \"%s\"", name);
    return NULL;
}

static bool has_metric(const ks_profile *p, const char *name)
{
    for (size_t i = 0; i < p->metric_count; i++)
        if (strcmp(p->metrics[i].name, name) == 0)
            return true;
    return false;
}

static void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static void expect_error(const char *name, const char *text, const char *format, long line,
                         const char *part);

/* ------------------------------------------------------------ fixtures */

#define OLD_HEADER                                                                         \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\","  \
    "\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
#define OLD_ROW(id, name, metric, unit, value)                                             \
    "\"" id "\",\"4242\",\"app\",\"127.0.0.1\",\"" name "\",\"2020-Apr-07 17:01:05\",\"1\","  \
    "\"7\",\"Command line profiler metrics\",\"" metric "\",\"" unit "\",\"" value "\"\n"

/* Oldest header: ==PROF== lines and program output before and among the
 * rows, a kernel name with commas, thousands separators, n/a and empty
 * values, and per-value unit scaling. */
static const char LONG_OLD[] =
    "==PROF== Connected to process 4242 (/usr/bin/app)\n"
    "app: starting, n=3, mode=fast\n"
    "==PROF== Profiling \"foo\" - 0: 0%....50%....100% - 8 passes\n"
    "\"quoted program output\", with, a, comma\n"
    "==PROF== Profiling \"bar\" - 1: 0%....50%....100% - 8 passes\n"
    "==PROF== Disconnected from process 4242\n"
    OLD_HEADER
    OLD_ROW("0", "void foo<int, 2>(float *, int)", "dram__bytes_read.sum", "byte", "1,234")
    OLD_ROW("0", "void foo<int, 2>(float *, int)", "gpu__time_duration.sum", "usecond", "12.50")
    OLD_ROW("0", "void foo<int, 2>(float *, int)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "n/a")
    "app: a line of output, with, commas, that, lands, among, the, rows, of, ncu\n"
    "==PROF== something ncu says late\n"
    OLD_ROW("1", "bar(double)", "dram__bytes_read.sum", "Kbyte", "2")
    OLD_ROW("1", "bar(double)", "gpu__time_duration.sum", "msecond", "1.5")
    OLD_ROW("1", "bar(double)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "")
    "\n"
    OLD_ROW("2", "void foo<int, 2>(float *, int)", "dram__bytes_read.sum", "byte", "1,234,567")
    OLD_ROW("2", "void foo<int, 2>(float *, int)", "gpu__time_duration.sum", "nsecond", "900")
    OLD_ROW("2", "void foo<int, 2>(float *, int)", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "45.5");

#define MID_HEADER                                                                         \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","      \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","           \
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
#define MID_ROW(id, name, stream, block, grid, dev, section, metric, unit, value)          \
    "\"" id "\",\"77\",\"app\",\"host\",\"" name "\",\"1\",\"" stream "\",\"" block        \
    "\",\"" grid "\",\"" dev "\",\"8.0\",\"" section "\",\"" metric "\",\"" unit "\",\""    \
    value "\"\n"
#define SOL "GPU Speed Of Light Throughput"
#define MWA "Memory Workload Analysis"
#define LS "Launch Statistics"

/* Middle header (details page, human-readable names): grid/block/device,
 * one metric name in two sections, a text-valued metric. */
static const char LONG_MIDDLE[] =
    "==PROF== Connected to process 77 (/usr/bin/app)\n"
    MID_HEADER
    MID_ROW("0", "k_a", "7", "(256, 1, 1)", "(4, 1, 1)", "0", SOL, "Duration", "usecond", "3.20")
    MID_ROW("0", "k_a", "7", "(256, 1, 1)", "(4, 1, 1)", "0", SOL, "Memory Throughput", "%", "41.07")
    MID_ROW("0", "k_a", "7", "(256, 1, 1)", "(4, 1, 1)", "0", MWA, "Memory Throughput", "Gbyte/second", "312.5")
    MID_ROW("0", "k_a", "7", "(256, 1, 1)", "(4, 1, 1)", "0", LS, "Function Cache Configuration", "", "CachePreferNone")
    MID_ROW("0", "k_a", "7", "(256, 1, 1)", "(4, 1, 1)", "0", LS, "Registers Per Thread", "register/thread", "32")
    MID_ROW("1", "k_b", "13", "(32, 8, 1)", "(16, 16, 2)", "1", SOL, "Duration", "msecond", "1.25")
    MID_ROW("1", "k_b", "13", "(32, 8, 1)", "(16, 16, 2)", "1", SOL, "Memory Throughput", "%", "90")
    MID_ROW("1", "k_b", "13", "(32, 8, 1)", "(16, 16, 2)", "1", MWA, "Memory Throughput", "Tbyte/second", "1.5")
    MID_ROW("1", "k_b", "13", "(32, 8, 1)", "(16, 16, 2)", "1", LS, "Function Cache Configuration", "", "CachePreferL1")
    MID_ROW("1", "k_b", "13", "(32, 8, 1)", "(16, 16, 2)", "1", LS, "Registers Per Thread", "register/thread", "64")
    MID_ROW("2", "k_a", "7", "(256, 1, 1)", "(8, 1, 1)", "0", SOL, "Duration", "nsecond", "2,500")
    MID_ROW("2", "k_a", "7", "(256, 1, 1)", "(8, 1, 1)", "0", SOL, "Memory Throughput", "%", "12")
    MID_ROW("2", "k_a", "7", "(256, 1, 1)", "(8, 1, 1)", "0", MWA, "Memory Throughput", "Mbyte/second", "800")
    MID_ROW("2", "k_a", "7", "(256, 1, 1)", "(8, 1, 1)", "0", LS, "Function Cache Configuration", "", "CachePreferNone")
    MID_ROW("2", "k_a", "7", "(256, 1, 1)", "(8, 1, 1)", "0", LS, "Registers Per Thread", "register/thread", "32")
    "==PROF== Disconnected from process 77\n";

#define NEW_HEADER                                                                         \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","      \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","           \
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\","         \
    "\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n"
#define NEW_ROW(id, name, metric, unit, value)                                             \
    "\"" id "\",\"9\",\"python3\",\"node1\",\"" name "\",\"1\",\"7\",\"(128, 1, 1)\","      \
    "\"(1024, 1, 1)\",\"0\",\"9.0\",\"" SOL "\",\"" metric "\",\"" unit "\",\"" value       \
    "\",\"\",\"\",\"\",\"\",\"\"\n"
#define NEW_RULE(id, name)                                                                 \
    "\"" id "\",\"9\",\"python3\",\"node1\",\"" name "\",\"1\",\"7\",\"(128, 1, 1)\","      \
    "\"(1024, 1, 1)\",\"0\",\"9.0\",\"" SOL "\",\"\",\"\",\"\",\"SOLBottleneck\",\"OPT\","   \
    "\"This kernel exhibits low compute throughput, and \"\"memory\"\" bandwidth, below "    \
    "60%.\",\"global\",\"0.42\"\n"

#define FILL                                                                               \
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "    \
    "at::detail::Array<char *, 1>>(int, T2, T3)"

/* Newest header: rule columns, rule rows without a metric. */
static const char LONG_NEWEST[] =
    "==PROF== Connected to process 9 (/usr/bin/python3.11)\n"
    "epoch 1, loss 0.25\n"
    NEW_HEADER
    NEW_ROW("0", FILL, "Duration", "usecond", "5.06")
    NEW_ROW("0", FILL, "Elapsed Cycles", "cycle", "6,912")
    NEW_RULE("0", FILL)
    NEW_ROW("1", "ampere_sgemm_32x128_tn", "Duration", "msecond", "2.5")
    NEW_ROW("1", "ampere_sgemm_32x128_tn", "Elapsed Cycles", "cycle", "4,000,000")
    NEW_RULE("1", "ampere_sgemm_32x128_tn");

/* NVTX columns (with commas inside) between Host Name and Kernel Name; no
 * duration metric at all. */
static const char LONG_NVTX[] =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\","
    "\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\","
    "\"Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\","
    "\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"Section Name\",\"Metric Name\","
    "\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\"\n"
    "\"0\",\"5\",\"app\",\"h\",\"<default domain>:forward, layer 1:none:none:none:none:none\","
    "\"\",\"conv\",\"2023-Jan-01 00:00:00\",\"1\",\"7\",\"S\",\"inst_executed\",\"inst\","
    "\"10,000\",\"\",\"\",\"\"\n"
    "\"1\",\"5\",\"app\",\"h\",\"<default domain>:backward, layer 1:none:none:none:none:none\","
    "\"\",\"conv\",\"2023-Jan-01 00:00:01\",\"1\",\"7\",\"S\",\"inst_executed\",\"inst\","
    "\"20,000\",\"\",\"\",\"\"\n";

#define RAW_HEADER                                                                         \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","      \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","                            \
    "\"device__attribute_display_name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\","    \
    "\"launch__registers_per_thread\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
#define RAW_UNITS                                                                          \
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"usecond\","     \
    "\"register/thread\",\"%\"\n"

static const char WIDE[] =
    "==PROF== Connected to process 1 (/usr/bin/app)\n"
    "==PROF== Profiling \"k1\" - 0: 0%....50%....100% - 1 pass\n"
    RAW_HEADER RAW_UNITS
    "\"0\",\"1\",\"app\",\"h\",\"k1(int)\",\"1\",\"7\",\"(128, 1, 1)\",\"(80, 2, 1)\",\"0\","
    "\"9.0\",\"NVIDIA H100 PCIe\",\"1.50\",\"2,345.5\",\"32\",\"n/a\"\n"
    "program output, with, a, comma\n"
    "\"1\",\"1\",\"app\",\"h\",\"k2<float>(float*, int)\",\"1\",\"7\",\"(64, 1, 1)\",\"(1, 1, 1)\","
    "\"0\",\"9.0\",\"NVIDIA H100 PCIe\",\"0.25\",\"3\",\"40\",\"12.5\"\n"
    "==PROF== Disconnected from process 1\n";

/* -------------------------------------------------------------- details */

static void test_long_old(void **state)
{
    (void)state;
    const char *path = write_text("old.csv", LONG_OLD);
    ks_profile *p = tr_read_n(path, NULL, "ncu-csv", 3); /* detected */
    assert_string_equal(ks_profile_name(p, 0), "void foo<int, 2>(float *, int)");
    assert_string_equal(ks_profile_name(p, 1), "bar(double)");
    assert_int_equal(p->name_id[0], p->name_id[2]);
    assert_int_equal(p->duration_ns[0], 12500);   /* 12.50 usecond */
    assert_int_equal(p->duration_ns[1], 1500000); /* 1.5 msecond */
    assert_int_equal(p->duration_ns[2], 900);
    assert_false(ks_profile_has_dims(p));
    assert_null(p->start_ns);
    assert_int_equal(p->metric_count, 3);
    const ks_metric_column *dram = metric(p, "dram__bytes_read.sum");
    assert_close(dram->values[0], 1234);
    assert_close(dram->values[1], 2000); /* 2 Kbyte in the column's unit, byte */
    assert_close(dram->values[2], 1234567);
    const ks_metric_column *time = metric(p, "gpu__time_duration.sum");
    assert_close(time->values[0], 12.5); /* kept in usecond, the first unit */
    assert_close(time->values[1], 1500);
    assert_close(time->values[2], 0.9);
    const ks_metric_column *sm = metric(p, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    assert_true(isnan(sm->values[0]));
    assert_true(isnan(sm->values[1]));
    assert_close(sm->values[2], 45.5);
    ks_profile_free(p);

    /* the same file named explicitly, and stream 7 recorded */
    ks_error err;
    assert_int_equal(tr_read(path, "ncu-csv", -1, &p, &err), KS_OK);
    assert_non_null(p->stream);
    assert_int_equal(p->stream[1], 7);
    ks_profile_free(p);
}

static void test_long_middle(void **state)
{
    (void)state;
    const char *path = write_text("middle.csv", LONG_MIDDLE);
    ks_profile *p = tr_read_n(path, NULL, "ncu-csv", 3);
    tr_expect_durations(p, (const int64_t[]){3200, 1250000, 2500}, 3);
    tr_expect_dims(p, 0, (const uint32_t[]){4, 1, 1}, (const uint32_t[]){256, 1, 1});
    tr_expect_dims(p, 1, (const uint32_t[]){16, 16, 2}, (const uint32_t[]){32, 8, 1});
    tr_expect_dims(p, 2, (const uint32_t[]){8, 1, 1}, (const uint32_t[]){256, 1, 1});
    assert_non_null(p->device);
    assert_int_equal(p->device[1], 1);
    assert_int_equal(p->stream[1], 13);
    /* one name in two sections: both kept, told apart by their section */
    assert_false(has_metric(p, "Memory Throughput"));
    const ks_metric_column *sol = metric(p, SOL ": Memory Throughput");
    const ks_metric_column *mwa = metric(p, MWA ": Memory Throughput");
    assert_close(sol->values[1], 90);
    assert_close(mwa->values[0], 312.5);
    assert_close(mwa->values[1], 1500);  /* 1.5 Tbyte/second in Gbyte/second */
    assert_close(mwa->values[2], 0.8);   /* 800 Mbyte/second */
    assert_close(metric(p, "Duration")->values[1], 1250); /* usecond */
    assert_close(metric(p, "Registers Per Thread")->values[2], 32);
    /* text is not a metric */
    assert_false(has_metric(p, "Function Cache Configuration"));
    assert_int_equal(p->metric_count, 4);
    ks_profile_free(p);

    /* the device filter keeps the launches of device 1 only */
    p = tr_read_ok(path, "ncu-csv", 1);
    assert_int_equal(p->n, 1);
    assert_string_equal(ks_profile_name(p, 0), "k_b");
    assert_int_equal(p->duration_ns[0], 1250000);
    assert_close(metric(p, "Duration")->values[0], 1.25); /* first kept unit: msecond */
    ks_profile_free(p);

    /* a device with no launches */
    ks_error err;
    assert_int_equal(tr_read(path, "ncu-csv", 5, &p, &err), KS_ERR_FORMAT);
    assert_null(p);
}

static void test_long_newest(void **state)
{
    (void)state;
    ks_profile *p = tr_read_n(write_text("newest.csv", LONG_NEWEST), NULL, "ncu-csv", 2);
    assert_string_equal(ks_profile_name(p, 1), "ampere_sgemm_32x128_tn");
    tr_expect_durations(p, (const int64_t[]){5060, 2500000}, 2);
    assert_int_equal(p->metric_count, 2); /* rule rows add nothing */
    assert_close(metric(p, "Elapsed Cycles")->values[1], 4000000);
    tr_expect_dims(p, 0, (const uint32_t[]){1024, 1, 1}, (const uint32_t[]){128, 1, 1});
    ks_profile_free(p);
}

static void test_long_nvtx(void **state)
{
    (void)state;
    ks_profile *p = tr_read_n(write_text("nvtx.csv", LONG_NVTX), NULL, "ncu-csv", 2);
    /* no duration metric: every duration is 0, metrics still usable */
    tr_expect_durations(p, (const int64_t[]){0, 0}, 2);
    assert_close(metric(p, "inst_executed")->values[1], 20000);
    assert_string_equal(ks_profile_name(p, 0), "conv");
    ks_profile_free(p);
}

/* Hand-saved copies lose ncu's quotes; strtod's nan and inf are missing
 * values; IDs past 999 may carry a thousands separator. */
static void test_unquoted_and_odd_values(void **state)
{
    (void)state;
    const char *path = write_text(
        "unquoted.csv",
        "ID,Process ID,Process Name,Host Name,Kernel Name,Kernel Time,Context,Stream,"
        "Section Name,Metric Name,Metric Unit,Metric Value\n"
        "0,1,app,h,k,t,1,7,S,ipc,inst/cycle,1.5\n"
        "some output of the program\n"
        "1,1,app,h,k,t,1,7,S,ipc,inst/cycle,nan\n"
        "2,1,app,h,k,t,1,7,S,ipc,inst/cycle,-inf\n");
    ks_profile *p = tr_read_n(path, "ncu-csv", "ncu-csv", 3);
    const ks_metric_column *ipc = metric(p, "ipc");
    assert_close(ipc->values[0], 1.5);
    assert_true(isnan(ipc->values[1]));
    assert_true(isnan(ipc->values[2]));
    ks_profile_free(p);

    path = write_text("big-id.csv", OLD_HEADER OLD_ROW("999", "k", "m", "%", "1")
                                        OLD_ROW("1,000", "k", "m", "%", "2"));
    p = tr_read_n(path, NULL, "ncu-csv", 2);
    ks_profile_free(p);
    /* and a malformed row with such an ID is an error, not noise */
    expect_error("big-id-short.csv",
                 OLD_HEADER OLD_ROW("999", "k", "m", "%", "1") "\"1,000\",\"k\"\n", NULL, 3,
                 "2 fields");
}

/* --------------------------------------------------------------- raw */

static void test_wide(void **state)
{
    (void)state;
    const char *path = write_text("raw.csv", WIDE);
    ks_profile *p = tr_read_n(path, NULL, "ncu-raw-csv", 2);
    assert_string_equal(ks_profile_name(p, 1), "k2<float>(float*, int)");
    assert_int_equal(p->duration_ns[0], 2345500); /* 2,345.5 usecond */
    assert_int_equal(p->duration_ns[1], 3000);
    assert_string_equal(p->device_name, "NVIDIA H100 PCIe");
    assert_int_equal(p->metric_count, 4); /* the display name is text */
    assert_close(metric(p, "dram__bytes.sum")->values[0], 1.5);
    assert_close(metric(p, "launch__registers_per_thread")->values[1], 40);
    const ks_metric_column *sm = metric(p, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    assert_true(isnan(sm->values[0]));
    assert_close(sm->values[1], 12.5);
    tr_expect_dims(p, 0, (const uint32_t[]){80, 2, 1}, (const uint32_t[]){128, 1, 1});
    ks_profile_free(p);

    /* ncu-csv takes the raw layout too (the header decides); ncu-raw-csv
     * refuses the details layout and says which to use */
    p = tr_read_n(path, "ncu-csv", "ncu-raw-csv", 2);
    assert_int_equal(p->duration_ns[1], 3000);
    ks_profile_free(p);
    ks_error err;
    assert_int_equal(tr_read(write_text("old.csv", LONG_OLD), "ncu-raw-csv", -1, &p, &err),
                     KS_ERR_FORMAT);
    assert_contains(err.message, "ncu-csv");
    assert_int_equal(err.line, 7);
}

/* One "==PROF==" line per profiled kernel precedes the table, so for any
 * real run the header lies beyond what detection sees. */
static void test_long_preamble(void **state)
{
    (void)state;
    const char *tables[] = {LONG_MIDDLE, WIDE};
    const char *formats[] = {"ncu-csv", "ncu-raw-csv"};
    for (size_t t = 0; t < 2; t++) {
        size_t cap = 300000 + strlen(tables[t]), len = 0;
        char *text = malloc(cap);
        assert_non_null(text);
        for (int k = 0; len + 200 < 300000; k++)
            len += (size_t)snprintf(text + len, cap - len,
                                    "==PROF== Profiling \"kernel_%d\" - %d: 0%%....50%%....100%% "
                                    "- 9 passes\n",
                                    k, k);
        memcpy(text + len, tables[t], strlen(tables[t]));
        len += strlen(tables[t]);
        const char *path = write_file("preamble.csv", text, len);
        free(text);
        ks_profile *p = tr_read_ok(path, NULL, -1);
        assert_string_equal(p->source_format, formats[t]);
        assert_true(p->n >= 2);
        ks_profile_free(p);
    }
}

static void test_wide_without_units(void **state)
{
    (void)state;
    /* no units row: the duration's unit is unknown, which is refused */
    const char *path = write_text("raw-nounits.csv",
                                  RAW_HEADER
                                  "\"0\",\"1\",\"app\",\"h\",\"k1\",\"1\",\"7\",\"(1, 1, 1)\","
                                  "\"(1, 1, 1)\",\"0\",\"9.0\",\"X\",\"1\",\"2\",\"3\",\"4\"\n");
    ks_profile *p;
    ks_error err;
    assert_int_equal(tr_read(path, NULL, -1, &p, &err), KS_ERR_FORMAT);
    assert_contains(err.message, "units row");
    assert_int_equal(err.line, 2);

    /* a units row that is not right after the header */
    path = write_text("raw-lateunits.csv",
                      RAW_HEADER RAW_UNITS
                      "\"0\",\"1\",\"app\",\"h\",\"k1\",\"1\",\"7\",\"(1, 1, 1)\","
                      "\"(1, 1, 1)\",\"0\",\"9.0\",\"X\",\"1\",\"2\",\"3\",\"4\"\n" RAW_UNITS);
    assert_int_equal(tr_read(path, NULL, -1, &p, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 4);
}

static void test_gzip(void **state)
{
    (void)state;
    const char *path = write_gzip("old.csv.gz", LONG_OLD, strlen(LONG_OLD));
    ks_profile *p = tr_read_n(path, NULL, "ncu-csv", 3);
    assert_int_equal(p->duration_ns[1], 1500000);
    assert_close(metric(p, "dram__bytes_read.sum")->values[2], 1234567);
    ks_profile_free(p);
}

/* ----------------------------------------------------------- malformed */

static void expect_error(const char *name, const char *text, const char *format, long line,
                         const char *part)
{
    const char *path = write_text(name, text);
    ks_profile *p = (ks_profile *)1;
    ks_error err;
    ks_status st = tr_read(path, format, -1, &p, &err);
    if (st == KS_OK)
        fail_msg("%s: read without error", name);
    assert_int_equal(st, KS_ERR_FORMAT);
    assert_null(p);
    assert_string_equal(err.file, path);
    assert_contains(err.message, part);
    if (err.line != line)
        fail_msg("%s: error at line %ld, want %ld: %s", name, err.line, line, err.message);
}

/* Files refused as malformed, each at its line, saying part. */
static const struct refusal {
    const char *name, *text, *format;
    long line;
    const char *part;
} refusals[] = {
    /* a column missing, or no header at all */
    {"no-value.csv",
     "==PROF== Connected to process 1\n"
     "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
     "\"Section Name\",\"Metric Name\",\"Metric Unit\"\n"
     "\"0\",\"1\",\"a\",\"h\",\"k\",\"S\",\"m\",\"%\"\n",
     "ncu-csv", 2, "\"Metric Value\""},
    {"no-name.csv",
     "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Section Name\","
     "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
     NULL, 1, "\"Kernel Name\""},
    {"no-header.csv", "==PROF== Connected to process 1\nhello, world\n", "ncu-csv", 2,
     "not an Nsight Compute CSV"},
    /* text where the column has numbers, either way round */
    {"text-after.csv",
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "50.0") OLD_ROW("1", "k", "m", "%", "fifty"), NULL,
     3, "\"fifty\""},
    {"text-before.csv",
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "fifty") OLD_ROW("1", "k", "m", "%", "50.0"), NULL,
     3, "\"fifty\""},
    /* a unit that does not convert to the column's */
    {"units.csv",
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "50.0") OLD_ROW("1", "k", "m", "byte", "7"), NULL, 3,
     "does not convert"},
    /* a duration that is not a time */
    {"duration-unit.csv", OLD_HEADER OLD_ROW("0", "k", "gpu__time_duration.sum", "byte", "50"),
     NULL, 2, "not a unit of time"},
    /* a bad ID in a row-shaped line */
    {"bad-id.csv", OLD_HEADER OLD_ROW("0", "k", "m", "%", "1") OLD_ROW("x", "k", "m", "%", "1"),
     NULL, 3, "\"x\""},
    /* a row with a field too few */
    {"short-row.csv",
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "1")
     "\"1\",\"4242\",\"app\",\"h\",\"k\",\"t\",\"1\",\"7\",\"S\",\"m\",\"1\"\n",
     NULL, 3, "11 fields"},
    /* bad grid */
    {"bad-grid.csv",
     MID_HEADER MID_ROW("0", "k", "7", "(256, 1, 1)", "(4, -1, 1)", "0", SOL, "m", "%", "1"),
     NULL, 2, "Grid Size"},
    /* one kernel ID with two names */
    {"two-names.csv",
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "1") OLD_ROW("0", "j", "n", "%", "1"), NULL, 3,
     "\"j\""},
    /* the same metric twice with different values */
    {"twice.csv", OLD_HEADER OLD_ROW("0", "k", "m", "%", "1") OLD_ROW("0", "k", "m", "%", "2"),
     NULL, 3, "twice"},
    /* two runs pasted together: IDs start again */
    {"two-runs.csv",
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "1") OLD_ROW("1", "k", "m", "%", "1")
     "==PROF== Connected to process 2\n"
     OLD_HEADER OLD_ROW("0", "k", "m", "%", "1"),
     NULL, 6, "appears again"},
    {"other-header.csv", OLD_HEADER OLD_ROW("0", "k", "m", "%", "1") MID_HEADER, NULL, 3,
     "different header"},
    /* durations known for some kernels only */
    {"partial.csv",
     OLD_HEADER OLD_ROW("0", "k", "gpu__time_duration.sum", "nsecond", "5")
     OLD_ROW("1", "j", "gpu__time_duration.sum", "nsecond", "n/a"),
     NULL, 3, "no duration"},
};

static void test_refusals(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        const struct refusal *r = &refusals[i];
        expect_error(r->name, r->text, r->format, r->line, r->part);
    }
    /* --device with no Device column */
    const char *path = write_text("old.csv", LONG_OLD);
    ks_profile *p;
    ks_error err;
    assert_int_equal(tr_read(path, "ncu-csv", 0, &p, &err), KS_ERR_FORMAT);
    assert_contains(err.message, "\"Device\"");
    assert_int_equal(err.line, 7);
}

static void test_truncated(void **state)
{
    (void)state;
    size_t len = strlen(LONG_OLD);
    /* cut inside the last row's quoted kernel name */
    const char *cut = strstr(LONG_OLD, "\"2\",\"4242\"");
    assert_non_null(cut);
    size_t mid = (size_t)(cut - LONG_OLD) + 30;
    const char *path = write_file("cut-mid.csv", LONG_OLD, mid);
    ks_profile *p;
    ks_error err;
    assert_int_equal(tr_read(path, NULL, -1, &p, &err), KS_ERR_FORMAT);
    assert_contains(err.message, "truncated");
    assert_int_equal(err.line, 17);

    /* cut at a line end: the last kernel has 1 of foo's 3 rows */
    const char *last_rows = strstr(cut + 1, "\"2\",\"4242\"");
    assert_non_null(last_rows);
    path = write_file("cut-line.csv", LONG_OLD, (size_t)(last_rows - LONG_OLD));
    assert_int_equal(tr_read(path, NULL, -1, &p, &err), KS_ERR_FORMAT);
    assert_contains(err.message, "truncated");

    /* a whole last row without its newline is fine */
    path = write_file("no-newline.csv", LONG_OLD, len - 1);
    assert_int_equal(tr_read(path, NULL, -1, &p, &err), KS_OK);
    assert_int_equal(p->n, 3);
    ks_profile_free(p);

    /* every prefix of every fixture: an error or a profile, never a crash */
    const char *fixtures[] = {LONG_OLD, LONG_MIDDLE, LONG_NEWEST, LONG_NVTX, WIDE};
    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
        size_t n = strlen(fixtures[f]);
        /* every line end (and the byte either side), and a spread of cuts
         * inside lines: every byte would take seconds for little more */
        for (size_t k = 0; k <= n; k++) {
            bool near_line_end = (k < n && fixtures[f][k] == '\n') ||
                                 (k > 0 && fixtures[f][k - 1] == '\n') ||
                                 (k + 1 < n && fixtures[f][k + 1] == '\n');
            if (!near_line_end && k % 13 != 0 && k != n)
                continue;
            path = write_file("prefix.csv", fixtures[f], k);
            ks_read_options opt;
            ks_read_options_init(&opt);
            opt.format = f == 4 ? "ncu-raw-csv" : "ncu-csv";
            ks_error_clear(&err);
            ks_status st = ks_profile_read(path, &opt, &p, &err);
            if (st == KS_OK) {
                assert_true(p->n > 0);
                ks_profile_free(p);
            } else {
                assert_int_equal(st, KS_ERR_FORMAT);
                assert_true(err.message[0] != '\0');
            }
        }
    }
}

/* --------------------------------------------------------------- attach */

static ks_profile *time_profile(const char *const *names, size_t n, bool with_grid)
{
    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    ks_error err;
    for (size_t i = 0; i < n; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        assert_int_equal(ks_profile_intern(p, names[i], strlen(names[i]), &inv.name_id, &err),
                         KS_OK);
        inv.duration_ns = 1000 * (int64_t)(i + 1);
        inv.start_ns = 10000 * (int64_t)i;
        uint32_t grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
        if (with_grid) {
            inv.grid = grid;
            inv.block = block;
        }
        assert_int_equal(ks_profile_append(p, &inv, &err), KS_OK);
    }
    return p;
}

/* A time profile of names with the metrics of path attached. */
static ks_profile *attached(const char *path, const char *const *names, size_t n,
                            bool with_grid)
{
    ks_profile *p = time_profile(names, n, with_grid);
    attach_ok(p, path);
    return p;
}

/* Attaching path to a time profile of names must be refused as malformed,
 * saying `says` and attaching nothing; returns the error for more checks. */
static ks_error attach_refused(const char *const *names, size_t n, bool with_grid,
                               const char *path, const char *says)
{
    ks_profile *p = time_profile(names, n, with_grid);
    ks_error err;
    assert_int_equal(ks_profile_attach(p, KS_SOURCE_METRICS, path, &err), KS_ERR_FORMAT);
    assert_contains(err.message, says);
    assert_int_equal(p->metric_count, 0);
    ks_profile_free(p);
    return err;
}

#define ATTACH_ROW(id, name, metric, unit, value)                                          \
    MID_ROW(id, name, "7", "(256, 1, 1)", "(4, 1, 1)", "0", "S", metric, unit, value)

static const char ATTACH_NCU[] =
    "==PROF== Connected to process 1\n"
    MID_HEADER
    ATTACH_ROW("0", "foo<int>", "achieved_occupancy", "%", "50")
    ATTACH_ROW("0", "foo<int>", "inst_executed", "inst", "1,000")
    ATTACH_ROW("1", "bar", "achieved_occupancy", "%", "n/a")
    ATTACH_ROW("1", "bar", "inst_executed", "inst", "2,000")
    ATTACH_ROW("2", "ns::baz(int)", "achieved_occupancy", "%", "75")
    ATTACH_ROW("2", "ns::baz(int)", "inst_executed", "inst", "3,000");

static void test_attach(void **state)
{
    (void)state;
    const char *path = write_text("attach.csv", ATTACH_NCU);
    const char *names[] = {"void foo<int>(float*)", "void my::bar<2>(double, int)",
                           "void ns::baz(int)"};
    ks_profile *p = attached(path, names, 3, true);
    assert_int_equal(p->metric_count, 2);
    const ks_metric_column *occ = metric(p, "achieved_occupancy");
    assert_close(occ->values[0], 50);
    assert_true(isnan(occ->values[1]));
    assert_close(occ->values[2], 75);
    assert_close(metric(p, "inst_executed")->values[1], 2000);
    /* the time columns are untouched */
    assert_int_equal(p->duration_ns[2], 3000);
    assert_int_equal(p->n, 3);
    ks_profile_free(p);

    /* profile without grid columns: nothing to cross-check, still fine */
    p = time_profile(names, 3, false);
    ks_error err;
    assert_int_equal(ks_profile_attach(p, KS_SOURCE_METRICS, path, &err), KS_OK);
    ks_profile_free(p);
}

static void test_attach_refusals(void **state)
{
    (void)state;
    const char *path = write_text("attach.csv", ATTACH_NCU);
    ks_error err;

    /* a name that does not line up */
    const char *wrong[] = {"void foo<int>(float*)", "void qux(double)", "void ns::baz(int)"};
    err = attach_refused(wrong, 3, true, path, "launch 1");
    assert_contains(err.message, "\"void qux(double)\"");
    assert_contains(err.message, "\"bar\"");
    assert_string_equal(err.file, path);
    assert_int_equal(err.line, 5); /* the first row of ncu's kernel 1 */

    /* a template argument that differs is a different kernel */
    const char *other_template[] = {"void foo<float>(float*)", "bar", "ns::baz"};
    attach_refused(other_template, 3, false, path, "launch 0");

    /* counts differ */
    const char *four[] = {"foo<int>", "bar", "ns::baz", "bar"};
    err = attach_refused(four, 4, true, path, "3 kernel launches");
    assert_contains(err.message, "profile 4");

    /* counts differ and a name too: both are said */
    const char *two[] = {"foo<int>", "quux"};
    err = attach_refused(two, 2, true, path, "profile 2");
    assert_contains(err.message, "launch 1");
    assert_contains(err.message, "\"quux\"");

    /* same names, different launch configuration */
    const char *names[] = {"foo<int>", "bar", "ns::baz"};
    ks_profile *p = time_profile(names, 3, true);
    uint32_t g8[3], b2[3];
    memcpy(g8, ks_profile_grid(p, 2), sizeof g8);
    memcpy(b2, ks_profile_block(p, 2), sizeof b2);
    g8[0] = 8;
    assert_int_equal(ks_profile_set_dims(p, 2, g8, b2, &err), KS_OK);
    assert_int_equal(ks_profile_attach(p, KS_SOURCE_METRICS, path, &err), KS_ERR_FORMAT);
    assert_contains(err.message, "launch 2");
    assert_contains(err.message, "grid (8, 1, 1)");
    ks_profile_free(p);

    /* not an ncu file */
    const char *other = write_text("nsys.csv", "Start (ns),Duration (ns),Name\n1,2,k\n");
    attach_refused(names, 3, true, other, "not an Nsight Compute CSV");
    p = time_profile(names, 3, true);
    assert_int_equal(ks_profile_attach(p, KS_SOURCE_METRICS, "/nonexistent/ncu.csv", &err), KS_ERR_IO);
    ks_profile_free(p);
}

/* The cut at the parameter list skips "(anonymous namespace)" and template
 * arguments, so kernels told apart only there stay apart. */
static void test_attach_name_cut(void **state)
{
    (void)state;
    /* the file's two kernels, then each told apart from one of them */
    const char *good[] = {"void (anonymous namespace)::k1(float*)", "void scale<(int)2>(float*)"};
    const char *anon[] = {"void (anonymous namespace)::k2(float*)", "void scale<(int)2>(float*)"};
    const char *tmpl[] = {"void (anonymous namespace)::k1(float*)", "void scale<(int)3>(float*)"};
    const char *path = write_text(
        "attach-anon.csv",
        OLD_HEADER OLD_ROW("0", "(anonymous namespace)::k1", "m", "%", "1")
        OLD_ROW("1", "scale<(int)2>", "m", "%", "2"));
    ks_profile *p = attached(path, good, 2, false);
    assert_close(metric(p, "m")->values[1], 2);
    ks_profile_free(p);
    attach_refused(anon, 2, false, path, "launch 0");
    attach_refused(tmpl, 2, false, path, "launch 1");
}

static void test_attach_tolerates_partial_durations(void **state)
{
    (void)state;
    const char *path = write_text(
        "attach-partial.csv",
        OLD_HEADER OLD_ROW("0", "k", "gpu__time_duration.sum", "nsecond", "5")
        OLD_ROW("1", "j", "gpu__time_duration.sum", "nsecond", "n/a"));
    const char *names[] = {"void k(int)", "j(float)"};
    ks_profile *p = attached(path, names, 2, false);
    const ks_metric_column *t = metric(p, "gpu__time_duration.sum");
    assert_close(t->values[0], 5);
    assert_true(isnan(t->values[1]));
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-ncu",
                    test_long_old,
                    test_long_middle,
                    test_long_newest,
                    test_long_nvtx,
                    test_unquoted_and_odd_values,
                    test_wide,
                    test_wide_without_units,
                    test_long_preamble,
                    test_gzip,
                    test_refusals,
                    test_truncated,
                    test_attach,
                    test_attach_refusals,
                    test_attach_name_cut,
                    test_attach_tolerates_partial_durations)
