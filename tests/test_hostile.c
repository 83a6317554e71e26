/*
 * test_hostile.c - issue 14's readers-side regressions, on inputs written
 * here: the ragged-row rule, the ncu time-metric order and its record, ncu
 * processes merged by launch ID, 64-bit queue handles, a 590-column header,
 * duplicate columns, and the limits that keep memory proportional to
 * launches.  The end-to-end cases (options, output paths) are in
 * tests/hostile.sh.
 */
#include "tmpdir.h"

#include <math.h>
#include <stdbool.h>

#include "ksample.h"
#include "test_read.h"

static ks_profile *read_ok(const char *path, const char *format)
{
    return tr_read_ok(path, format, -1);
}

/* Reads path expecting failure with status st and msg in the message. */
static void read_fails(const char *path, const char *format, ks_status st, const char *msg)
{
    ks_error err;
    ks_status got = tr_read_fails(path, format, -1, &err);
    if (got != st || !strstr(err.message, msg))
        fail_msg("%s: status %d '%s', expected %d with '%s'", path, got, err.message, st, msg);
    assert_string_equal(err.file, path);
}

#define NCU_HEADER                                                                         \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","    \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","           \
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\","         \
    "\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n"
#define NCU_ROW(id, pid, name, metric, unit, value)                                        \
    "\"" id "\",\"" pid "\",\"p\",\"h\",\"" name "\",\"1\",\"7\",\"(32, 1, 1)\","           \
    "\"(4, 1, 1)\",\"0\",\"8.0\",\"S\",\"" metric "\",\"" unit "\",\"" value "\",\n"

/* Newest layout: metric rows stop after Metric Value (16 of 20 fields), rule
 * rows fill all 20; a row that lacks a column read is still an error. */
static void test_ncu_short_rows(void **state)
{
    (void)state;
    const char *text = NCU_HEADER NCU_ROW("0", "1", "k", "gpu__time_duration.sum", "nsecond",
                                          "1,500")
        "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"0\",\"8.0\","
        "\"S\",\"\",\"\",\"\",\"Occ\",\"OPT\",\"low occupancy\",\"global\",\"12.5\"\n";
    ks_profile *p = read_ok(write_text("short.csv", text), NULL);
    assert_int_equal(p->n, 1);
    assert_int_equal(p->duration_ns[0], 1500);
    ks_profile_free(p);
    const char *cut = NCU_HEADER "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\","
                                 "\"(4, 1, 1)\",\"0\",\"8.0\",\"S\",\"m__x\",\"byte\"\n";
    read_fails(write_text("cut.csv", cut), NULL, KS_ERR_FORMAT, "are needed");
}

/* One resolution order, whatever order the rows come in; recorded. */
static void test_ncu_time_order(void **state)
{
    (void)state;
    const char *both = NCU_HEADER
        NCU_ROW("0", "1", "k", "gpu__time_duration.max", "usecond", "9")
        NCU_ROW("0", "1", "k", "gpu__time_duration.sum", "usecond", "2")
        NCU_ROW("1", "1", "k", "gpu__time_duration.sum", "nsecond", "3,000")
        NCU_ROW("1", "1", "k", "gpu__time_duration.max", "nsecond", "9,000");
    ks_profile *p = read_ok(write_text("order.csv", both), NULL);
    assert_string_equal(p->duration_source, "gpu__time_duration.sum");
    tr_expect_durations(p, (const int64_t[]){2000, 3000}, 2);
    ks_profile_free(p);
    /* .sum for one kernel only: the one every kernel has (.max) is used */
    const char *partial = NCU_HEADER
        NCU_ROW("0", "1", "k", "gpu__time_duration.max", "nsecond", "10")
        NCU_ROW("0", "1", "k", "gpu__time_duration.sum", "nsecond", "11")
        NCU_ROW("1", "1", "k2", "gpu__time_duration.max", "nsecond", "20");
    p = read_ok(write_text("partial.csv", partial), NULL);
    assert_string_equal(p->duration_source, "gpu__time_duration.max");
    assert_int_equal(p->duration_ns[0], 10);
    ks_profile_free(p);
    const char *none = NCU_HEADER NCU_ROW("0", "1", "k", "dram__bytes.sum", "byte", "10");
    p = read_ok(write_text("none.csv", none), NULL);
    assert_string_equal(p->duration_source, "none");
    assert_int_equal(p->duration_ns[0], 0);
    ks_profile_free(p);
    const char *uneven = NCU_HEADER
        NCU_ROW("0", "1", "k", "gpu__time_duration.sum", "nsecond", "10")
        NCU_ROW("1", "1", "k", "dram__bytes.sum", "byte", "10");
    read_fails(write_text("uneven.csv", uneven), NULL, KS_ERR_FORMAT, "understated");
}

/* Two ncu processes over the same three launches, one metric group each,
 * merged by launch ID; a different name, or an ID repeated within one
 * process, is refused. */
static void test_ncu_processes_merge(void **state)
{
    (void)state;
    const char *text =
        "==PROF== Connected to process 10\n" NCU_HEADER
        NCU_ROW("0", "10", "a", "gpu__time_duration.sum", "nsecond", "100")
        NCU_ROW("1", "10", "b", "gpu__time_duration.sum", "nsecond", "200")
        NCU_ROW("2", "10", "a", "gpu__time_duration.sum", "nsecond", "300")
        "==PROF== Connected to process 11\n" NCU_HEADER
        NCU_ROW("0", "11", "a", "dram__bytes.sum", "byte", "1")
        NCU_ROW("1", "11", "b", "dram__bytes.sum", "byte", "2")
        NCU_ROW("2", "11", "a", "dram__bytes.sum", "byte", "3");
    ks_profile *p = read_ok(write_text("merge.csv", text), NULL);
    assert_int_equal(p->n, 3);
    assert_int_equal(p->duration_ns[2], 300);
    assert_int_equal(p->metric_count, 2);
    const ks_metric_column *bytes = NULL;
    for (size_t m = 0; m < p->metric_count; m++)
        if (strcmp(p->metrics[m].name, "dram__bytes.sum") == 0)
            bytes = &p->metrics[m];
    assert_non_null(bytes);
    assert_true(bytes->values[0] == 1 && bytes->values[1] == 2 && bytes->values[2] == 3);
    ks_profile_free(p);

    const char *renamed = NCU_HEADER
        NCU_ROW("0", "10", "a", "gpu__time_duration.sum", "nsecond", "100")
        NCU_ROW("0", "11", "z", "dram__bytes.sum", "byte", "1");
    read_fails(write_text("renamed.csv", renamed), NULL, KS_ERR_FORMAT, "not the same launches");
    const char *again = NCU_HEADER
        NCU_ROW("0", "10", "a", "gpu__time_duration.sum", "nsecond", "100")
        NCU_ROW("1", "10", "a", "gpu__time_duration.sum", "nsecond", "100")
        NCU_ROW("0", "10", "a", "dram__bytes.sum", "byte", "1");
    read_fails(write_text("again.csv", again), NULL, KS_ERR_FORMAT, "same ncu process");
}

static void test_duplicate_columns(void **state)
{
    (void)state;
    read_fails(write_text("dup_plain.csv", "name,duration_ns,duration_ns\na,1,2\n"), NULL,
               KS_ERR_FORMAT, "appears twice");
    read_fails(write_text("dup_roc.csv", "Kernel_Name,Start_Timestamp,End_Timestamp,"
                                         "Start_Timestamp\nk,1,2,0\n"),
               "rocprof-v3-csv", KS_ERR_FORMAT, "appears twice");
    read_fails(write_text("dup_ncu.csv",
                          "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
                          "\"Metric Value\",\"Metric Value\"\n"
                          "\"0\",\"k\",\"gpu__time_duration.sum\",\"ns\",\"1\",\"2\"\n"),
               "ncu-csv", KS_ERR_FORMAT, "appears twice");
}

/* Omniperf's pmc_perf.csv: ~590 columns, "_ID" spellings, timestamps last;
 * detection used to stop at 512 fields. */
static void test_wide_rocprof_header(void **state)
{
    (void)state;
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n,
                          "Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Kernel_Name,Correlation_ID");
    for (int i = 0; i < 581; i++)
        n += (size_t)snprintf(text + n, cap - n, ",SQ_COUNTER_%d", i);
    n += (size_t)snprintf(text + n, cap - n, ",Start_Timestamp,End_Timestamp\n");
    for (int d = 0; d < 3; d++) {
        n += (size_t)snprintf(text + n, cap - n, "%d,2,0,1,1,\"vadd(float*) [clone .kd]\",%d", d,
                              d + 1);
        for (int i = 0; i < 581; i++)
            n += (size_t)snprintf(text + n, cap - n, ",0");
        n += (size_t)snprintf(text + n, cap - n, ",%d,%d\n", 1000 * (d + 1), 1000 * (d + 1) + 500);
    }
    ks_profile *p = read_ok(write_file("pmc_perf.csv", text, n), NULL);
    assert_string_equal(p->source_format, "rocprof-v3-csv");
    assert_int_equal(p->n, 3);
    assert_int_equal(p->duration_ns[2], 500);
    assert_string_equal(ks_profile_name(p, 0), "vadd(float*)");
    ks_profile_free(p);
    free(text);
}

static void test_bom_and_nul(void **state)
{
    (void)state;
    ks_profile *p = read_ok(write_text("bom.csv", "\xef\xbb\xbfname,duration_ns\na,7\n"), NULL);
    assert_int_equal(p->duration_ns[0], 7);
    ks_profile_free(p);
    static const char nul[] = "name,duration_ns\na\0x,1\na\0y,2\n";
    read_fails(write_file("nul.csv", nul, sizeof nul - 1), NULL, KS_ERR_FORMAT, "NUL byte");
    /* a JSON "\u0000" inside a kernel name */
    const char *json = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\u0000b\","
                       "\"ts\":1,\"dur\":2,\"args\":{}}]}";
    read_fails(write_text("nul.json", json), "kineto-json", KS_ERR_FORMAT, "NUL");
}

/* Memory proportional to launches: one long line, one long JSON string and
 * a sparse metric table each stop at their limit with an error. */
static void test_limits(void **state)
{
    (void)state;
    static const struct {
        const char *name, *before, *after, *format, *message;
        char fill;
    } longest[] = {
        {"long.csv.gz", "name,duration_ns\n", ",5\n", NULL, "longer than 16 MB", 'a'},
        {"long.json.gz", "{\"traceEvents\":[{\"name\":\"", "\"}]}", "kineto-json",
         "longer than 16 MB", 'b'},
        /* digits: yajl re-lexed them quadratically too (64 MB took 42 s) */
        {"digits.json.gz", "{\"traceEvents\":[{\"ts\":", "}]}", "kineto-json",
         "number or literal is longer than 16 MB", '1'},
    };
    size_t big = ((size_t)16 << 20) + 100;
    char *text = malloc(big + 64);
    assert_non_null(text);
    for (size_t i = 0; i < sizeof longest / sizeof longest[0]; i++) {
        size_t n = (size_t)sprintf(text, "%s", longest[i].before);
        memset(text + n, longest[i].fill, big);
        n += big;
        n += (size_t)sprintf(text + n, "%s", longest[i].after);
        read_fails(write_gzip(longest[i].name, text, n), longest[i].format, KS_ERR_FORMAT,
                   longest[i].message);
    }
    free(text);

    /* 8,000 launches each with its own metric: 64 M cells asked of 100 KB */
    size_t n;
    text = tr_ncu_metric_per_launch(8000, &n);
    read_fails(write_gzip("sparse.csv.gz", text, n), NULL, KS_ERR_FORMAT, "exceed the limit");
    free(text);
}

/* ks_write_atomic over a regular file leaves no temporary behind. */
static ks_status write_hello(const void *ctx, FILE *f, ks_error *err)
{
    (void)ctx;
    (void)err;
    fputs("hello\n", f);
    return KS_OK;
}

static void test_atomic_write(void **state)
{
    (void)state;
    const char *path = write_text("out.txt", "old\n");
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_write_atomic(path, write_hello, NULL, &err), KS_OK);
    size_t len;
    char *text = read_file(path, &len);
    assert_string_equal(text, "hello\n");
    free(text);
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp"))
            fail_msg("temporary left behind: %s", e->d_name);
    closedir(d);
    assert_int_equal(ks_write_atomic(tmpdir, write_hello, NULL, &err), KS_ERR_IO);
}

KS_TMPDIR_TEST_MAIN("ks_hostile",
                    test_ncu_short_rows,
                    test_ncu_time_order,
                    test_ncu_processes_merge,
                    test_duplicate_columns,
                    test_wide_rocprof_header,
                    test_bom_and_nul,
                    test_limits,
                    test_atomic_write)
