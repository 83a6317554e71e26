/*
 * test_kineto.c - the PyTorch profiler (Kineto) trace reader: the real traces
 * in ../shared/data/kineto (skipped when absent) and inputs generated here in
 * a temporary folder.
 *
 * The expected numbers for the real traces were computed independently with
 * Python (json.load with parse_float=Decimal, then round(us * 1000) half-up):
 * counts, distinct names, the sum of durations in ns, the earliest start.
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
#include <unistd.h>

#include "ksample.h"
#include "test_read.h"
#include "tmpdir.h"

/* ----------------------------------------------------------------- helpers */

static ks_profile *read_ok(const char *path, const char *format, int device)
{
    ks_profile *p = tr_read_ok(path, format, device);
    assert_string_equal(p->source_format, "kineto-json");
    return p;
}

/* Reads a bad file and checks that the error is a located format error;
 * returns it so the caller can check the line and the message. */
static ks_error read_bad(const char *path)
{
    ks_error err;
    assert_int_equal(tr_read_fails(path, NULL, -1, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, path);
    assert_true(err.line > 0);
    return err;
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
}

/* Writes text as name and reads it as a bad file (read_bad): the error must
 * be at line (0: any) and contain part (NULL: any); returned for more checks. */
static ks_error expect_bad(const char *name, const char *text, long line, const char *part)
{
    ks_error err = read_bad(write_text(name, text));
    if (line != 0 && err.line != line) /* say which file before the assertion fails */
        print_message("%s: line %ld: %s\n", name, err.line, err.message);
    if (line != 0)
        assert_int_equal(err.line, line);
    if (part)
        assert_contains(err.message, part);
    return err;
}

static void assert_launch_order(const ks_profile *p)
{
    assert_non_null(p->start_ns);
    for (size_t i = 1; i < p->n; i++)
        assert_true(p->start_ns[i - 1] <= p->start_ns[i]);
}

/* A growable string for building traces. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        t->s = realloc(t->s, cap);
        assert_non_null(t->s);
        t->cap = cap;
    }
}

/* ------------------------------------------------------------- real traces */

typedef struct real_trace {
    const char *file;
    size_t kernels, names;
    bool has_grid;
    const char *device_name;
    int64_t sum_duration_ns;
    int64_t first_start_ns;
    size_t starts_not_whole_us; /* starts that are not a multiple of 1000 ns */
} real_trace;

static const real_trace real_traces[] = {
    {"alexnet-a100.json.gz", 79, 16, true, "NVIDIA A100-PG509-200", 10692000,
     1695835573023613000, 0},
    {"v100-ns-resolution.json.gz", 4350, 77, true, "Tesla V100-SXM2-32GB", 468153602,
     1712195495505582988, 4342},
    {"a100-nccl.json.gz", 2700, 70, true, "NVIDIA A100-PG509-200", 162532340,
     4458676422880181, 2700},
    {"sampled-rank0.json.gz", 1154, 194, true, "", 606519000, 1682725898082228000, 0},
    {"mi250-rocm62.json.gz", 14, 12, false, "AMD Radeon Graphics", 110881,
     4203669603771648, 14},
};

static void test_real_traces(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/kineto", KS_SHARED_DATA);
    if (access(dir, R_OK) != 0)
        skip();
    for (size_t t = 0; t < sizeof real_traces / sizeof real_traces[0]; t++) {
        const real_trace *r = &real_traces[t];
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, r->file);
        ks_profile *p = read_ok(path, NULL, -1); /* format detected from content */
        assert_int_equal(p->n, r->kernels);
        assert_int_equal(p->name_count, r->names);
        assert_string_equal(p->device_name, r->device_name);
        if (r->has_grid) {
            assert_true(ks_profile_has_dims(p));
            assert_true(ks_profile_has_dims(p));
            for (size_t i = 0; i < p->n; i++)
                for (int k = 0; k < 3; k++) /* every kernel runs at least one block */
                    assert_true(ks_profile_grid(p, i)[k] > 0 && ks_profile_block(p, i)[k] > 0);
        } else {
            assert_false(ks_profile_has_dims(p));
            assert_false(ks_profile_has_dims(p));
        }
        /* none of these traces records a zero-length kernel */
        int64_t sum = 0;
        size_t not_whole = 0;
        for (size_t i = 0; i < p->n; i++) {
            assert_true(p->duration_ns[i] > 0);
            sum += p->duration_ns[i];
            not_whole += p->start_ns[i] % 1000 != 0;
        }
        assert_int_equal(sum, r->sum_duration_ns);
        assert_int_equal(p->start_ns[0], r->first_start_ns);
        assert_int_equal(not_whole, r->starts_not_whole_us);
        assert_launch_order(p);
        assert_non_null(p->correlation);
        ks_profile_free(p);
    }
}

/* Kernels from one device only (mi250 ran on device 2): the filter keeps
 * all of them for that device and reports the others as empty. */
static void test_real_device_filter(void **state)
{
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s/kineto/mi250-rocm62.json.gz", KS_SHARED_DATA);
    if (access(path, R_OK) != 0)
        skip();
    ks_profile *p = read_ok(path, "kineto-json", 2);
    assert_int_equal(p->n, 14);
    assert_non_null(p->device);
    for (size_t i = 0; i < p->n; i++)
        assert_int_equal(p->device[i], 2);
    ks_profile_free(p);

    ks_error err;
    assert_int_equal(tr_read_fails(path, NULL, 0, &err), KS_ERR_FORMAT);
    assert_contains(err.message, "no kernel events on device 0");
    assert_contains(err.message, "devices: 2");
}

/* ------------------------------------------------------- generated traces */

static const char minimal_trace[] =
    "{\n"
    "  \"schemaVersion\": 1,\n"
    "  \"deviceProperties\": [\n"
    "    {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"numSms\": 132}\n"
    "  ],\n"
    "  \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm<float>(float*)\", "
    "\"pid\": 0, \"tid\": 7, \"ts\": 1695835585863852, \"dur\": 5, \"args\": "
    "{\"correlation\": 5889, \"device\": 0, \"stream\": 7, \"grid\": [32, 8, 1], "
    "\"block\": [32, 16, 1], \"registers per thread\": 32}}\n"
    "  ],\n"
    "  \"displayTimeUnit\": \"ms\"\n"
    "}\n";

static void test_minimal(void **state)
{
    (void)state;
    const char *path = write_text("minimal.json", minimal_trace);
    ks_profile *p = read_ok(path, NULL, -1);
    assert_int_equal(p->n, 1);
    assert_string_equal(ks_profile_name(p, 0), "void gemm<float>(float*)");
    assert_int_equal(p->start_ns[0], INT64_C(1695835585863852000));
    assert_int_equal(p->duration_ns[0], 5000);
    tr_expect_dims(p, 0, (const uint32_t[]){32, 8, 1}, (const uint32_t[]){32, 16, 1});
    assert_non_null(p->stream);
    assert_int_equal(p->stream[0], 7);
    assert_int_equal(p->correlation[0], 5889);
    assert_string_equal(p->device_name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(p->source_path, path);
    assert_int_equal(strlen(p->source_xxh128), 32);
    ks_profile_free(p);
}

/* Key order inside an event is not fixed: "cat" after "args" and "name",
 * unknown nested values before it, and other events of every shape around. */
static void test_odd_key_order(void **state)
{
    (void)state;
    const char *path = write_text(
        "odd.json",
        "{\"traceEvents\": [\n"
        " {\"args\": {\"grid\": [4, 2, 1], \"extra\": {\"a\": [1, {\"b\": null}]},"
        "  \"block\": [64, 1, 1], \"device\": 0, \"stream\": 9, \"correlation\": 3},"
        "  \"name\": \"k_late_cat\", \"dur\": 2, \"nested\": [[], {}], \"ts\": 200,"
        "  \"cat\": \"kernel\", \"ph\": \"X\"},\n"
        " {\"name\": \"not a kernel\", \"ts\": 100, \"dur\": 1, \"cat\": \"cpu_op\","
        "  \"args\": {\"grid\": \"whatever\"}},\n"
        " {\"ph\": \"s\", \"id\": 3, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"ts\": 150},\n"
        " {\"ph\": \"M\", \"name\": \"process_name\", \"args\": {\"name\": \"python\"}},\n"
        " {\"ts\": 100, \"cat\": \"kernel\", \"dur\": 3, \"name\": \"k_early\","
        "  \"args\": {\"device\": 0}}\n,"
        /* libkineto before 2021 wrote "Kernel"; other spellings are not kernels */
        " {\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"k_old\", \"ts\": 300, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"KERNEL\", \"name\": \"no\", \"ts\": 300, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": \"kernels\", \"name\": \"no\", \"ts\": 300, \"dur\": 1},\n"
        " {\"ph\": \"X\", \"cat\": [\"kernel\"], \"name\": \"no\", \"ts\": 300, \"dur\": 1}\n"
        "], \"schemaVersion\": 1}\n");
    ks_profile *p = read_ok(path, NULL, -1);
    assert_int_equal(p->n, 3);
    assert_string_equal(ks_profile_name(p, 2), "k_old");
    /* sorted by start: the event written second starts first */
    assert_string_equal(ks_profile_name(p, 0), "k_early");
    assert_string_equal(ks_profile_name(p, 1), "k_late_cat");
    assert_int_equal(p->start_ns[0], 100000);
    assert_int_equal(p->duration_ns[1], 2000);
    tr_expect_dims(p, 1, (const uint32_t[]){4, 2, 1}, (const uint32_t[]){64, 1, 1});
    /* k_early gave no grid: zeros, not a copy of its neighbour's */
    tr_expect_dims(p, 0, (const uint32_t[]){0, 0, 0}, (const uint32_t[]){0, 0, 0});
    assert_int_equal(p->stream[1], 9);
    assert_int_equal(p->correlation[1], 3);
    assert_int_equal(p->correlation[0], KS_MISSING_I64);
    assert_string_equal(p->device_name, "");
    ks_profile_free(p);
}

static void test_fractional_times(void **state)
{
    (void)state;
    const char *path = write_text(
        "frac.json",
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "{\"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1695835585863852.123, \"dur\": 5.5},\n"
        "{\"cat\": \"kernel\", \"name\": \"b\", \"ts\": 1695835585863853.1239, \"dur\": 0.0006},\n"
        "{\"cat\": \"kernel\", \"name\": \"c\", \"ts\": 1.695835585863854e15, \"dur\": 1.5e1},\n"
        "{\"cat\": \"kernel\", \"name\": \"d\", \"ts\": 1695835585863855.0, \"dur\": 0.0004},\n"
        "{\"cat\": \"kernel\", \"name\": \"e\", \"ts\": 1695835585863856.9999, \"dur\": 25e-4},\n"
        "{\"cat\": \"kernel\", \"name\": \"f\", \"ts\": 1695835585863858, \"dur\": 0}\n"
        "]}\n");
    ks_profile *p = read_ok(path, NULL, -1);
    assert_int_equal(p->n, 6);
    assert_int_equal(p->start_ns[0], INT64_C(1695835585863852123));
    assert_int_equal(p->duration_ns[0], 5500);
    assert_int_equal(p->start_ns[1], INT64_C(1695835585863853124)); /* rounded */
    assert_int_equal(p->duration_ns[1], 1);
    assert_int_equal(p->start_ns[2], INT64_C(1695835585863854000));
    assert_int_equal(p->duration_ns[2], 15000);
    assert_int_equal(p->start_ns[3], INT64_C(1695835585863855000));
    assert_int_equal(p->duration_ns[3], 0);
    assert_int_equal(p->start_ns[4], INT64_C(1695835585863857000));
    assert_int_equal(p->duration_ns[4], 3); /* 2.5 ns rounds half away from zero */
    assert_int_equal(p->duration_ns[5], 0);
    assert_true(p->start_ns[0] % 1000 != 0);
    ks_profile_free(p);

    /* digits past the nanosecond only round; negative starts are kept */
    path = write_text("frac2.json",
                      "{\"traceEvents\": [\n"
                      "{\"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1712195495505582.98849999, "
                      "\"dur\": 4.928},\n"
                      "{\"cat\": \"kernel\", \"name\": \"b\", \"ts\": -1.5, \"dur\": 1E+0}]}");
    p = read_ok(path, NULL, -1);
    assert_int_equal(p->start_ns[0], -1500);
    assert_int_equal(p->duration_ns[0], 1000);
    assert_int_equal(p->start_ns[1], INT64_C(1712195495505582988));
    assert_int_equal(p->duration_ns[1], 4928);
    ks_profile_free(p);

    /* 10^20 us is past int64 nanoseconds: an error, not a wrapped value */
    expect_bad("huge_ts.json",
               "{\"traceEvents\": [\n{\"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1e20, "
               "\"dur\": 1}]}",
               2, "\"ts\" is out of range");
}

/* Hundreds of thousands of CPU-side events around a few kernels: all skipped. */
static void test_non_kernel_flood(void **state)
{
    (void)state;
    text t = {0};
    put(&t, "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n");
    size_t kernels = 0;
    for (int i = 0; i < 200000; i++) {
        const char *cat = i % 4 == 0 ? "cpu_op" : i % 4 == 1 ? "cuda_runtime"
                        : i % 4 == 2 ? "user_annotation" : "gpu_memcpy";
        put(&t,
            "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"aten::op_%d\", \"pid\": 1, "
            "\"tid\": 2, \"ts\": %d.5, \"dur\": \"odd but not a kernel\", \"args\": "
            "{\"Input Dims\": [[8, 3, 224, 224], []], \"Input type\": [\"float\"]}},\n",
            cat, i % 97, 1000 + i);
        if (i % 10000 == 0) {
            put(&t,
                "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"ts\": %d.25, "
                "\"dur\": 1.5, \"args\": {\"device\": 0, \"stream\": 7}},\n",
                i % 3, 1000 + i);
            kernels++;
        }
    }
    put(&t, "  {\"ph\": \"i\", \"cat\": \"Trace\", \"name\": \"end\", \"ts\": 1}\n  ]\n}\n");
    const char *path = write_file("flood.json", t.s, t.len);
    free(t.s);
    ks_profile *p = read_ok(path, NULL, -1);
    assert_int_equal(p->n, kernels);
    assert_int_equal(p->name_count, 3);
    assert_int_equal(p->duration_ns[0], 1500);
    assert_int_equal(p->start_ns[0], 1000250);
    assert_launch_order(p);
    ks_profile_free(p);
}

static const char two_gpu_trace[] =
    "{\"schemaVersion\": 1, \"deviceProperties\": [\n"
    "  {\"id\": 0, \"name\": \"GPU Zero\"}, {\"id\": 1, \"name\": \"GPU One\"}],\n"
    " \"traceEvents\": [\n"
    "  {\"cat\": \"kernel\", \"name\": \"a\", \"ts\": 10, \"dur\": 1, \"args\": {\"device\": 0}},\n"
    "  {\"cat\": \"kernel\", \"name\": \"b\", \"ts\": 11, \"dur\": 2, \"args\": {\"device\": 1}},\n"
    "  {\"cat\": \"kernel\", \"name\": \"c\", \"ts\": 12, \"dur\": 3, \"args\": {\"device\": 1}},\n"
    "  {\"cat\": \"kernel\", \"name\": \"d\", \"ts\": 13, \"dur\": 4, \"args\": {\"device\": 0}},\n"
    "  {\"cat\": \"kernel\", \"name\": \"e\", \"ts\": 14, \"dur\": 5}\n"
    " ]}\n";

static void test_device_filter(void **state)
{
    (void)state;
    const char *path = write_text("two_gpu.json", two_gpu_trace);

    ks_profile *all = read_ok(path, NULL, -1);
    assert_int_equal(all->n, 5);
    assert_string_equal(all->device_name, "GPU Zero"); /* mixed devices: the first */
    ks_profile_free(all);

    ks_profile *one = read_ok(path, NULL, 1);
    assert_int_equal(one->n, 2);
    assert_string_equal(ks_profile_name(one, 0), "b");
    assert_string_equal(ks_profile_name(one, 1), "c");
    assert_int_equal(one->device[0], 1);
    assert_string_equal(one->device_name, "GPU One");
    ks_profile_free(one);

    /* a kernel that does not say its device is not counted as device 0's */
    ks_profile *zero = read_ok(path, NULL, 0);
    assert_int_equal(zero->n, 2);
    assert_string_equal(ks_profile_name(zero, 1), "d");
    assert_string_equal(zero->device_name, "GPU Zero");
    ks_profile_free(zero);

    ks_error err;
    assert_int_equal(tr_read_fails(path, NULL, 5, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, path);
    assert_int_equal(err.line, 3);
    assert_contains(err.message, "no kernel events on device 5");
    assert_contains(err.message, "devices: 0,1");
}

static void test_compressed(void **state)
{
    (void)state;
    size_t len = strlen(two_gpu_trace);
    const char *paths[] = {write_gzip("c.json.gz", two_gpu_trace, len),
                           write_xz("c.json.xz", two_gpu_trace, len),
                           write_zstd("c.json.zst", two_gpu_trace, len)};
    for (int i = 0; i < 3; i++) {
        ks_profile *p = read_ok(paths[i], NULL, 1);
        assert_int_equal(p->n, 2);
        assert_int_equal(p->duration_ns[0] + p->duration_ns[1], 5000);
        assert_string_equal(p->device_name, "GPU One");
        ks_profile_free(p);
    }

    /* a truncated compressed copy is an error, not a short profile */
    ks_error err = read_bad(write_gzip("cut.json.gz", two_gpu_trace, len / 2));
    assert_contains(err.message, "ends early");
}

/* A 1 MiB kernel name, given before "cat" so it has to be kept on spec. */
static void test_long_name(void **state)
{
    (void)state;
    size_t name_len = 1 << 20;
    text t = {0};
    put(&t, "{\"traceEvents\": [{\"name\": \"");
    for (size_t i = 0; i < name_len / 64; i++)
        put(&t, "%s", "void very_long_template_kernel<int, float, double, unsigned>()__");
    put(&t, "\", \"ts\": 1, \"dur\": 2, \"cat\": \"kernel\"},\n"
            "{\"name\": \"short\", \"cat\": \"kernel\", \"ts\": 2, \"dur\": 2}]}\n");
    const char *path = write_file("long_name.json", t.s, t.len);
    free(t.s);
    ks_profile *p = read_ok(path, "kineto-json", -1);
    assert_int_equal(p->n, 2);
    assert_int_equal(strlen(ks_profile_name(p, 0)), name_len);
    assert_string_equal(ks_profile_name(p, 1), "short");
    ks_profile_free(p);
}

static void test_escapes_and_array_form(void **state)
{
    (void)state;
    /* Chrome's bare-list form, with escapes in the name */
    const char *path = write_text(
        "array.json", "[{\"cat\": \"kernel\", \"name\": \"k\\\"q\\u00e9\\n\", \"ts\": 5, "
                      "\"dur\": 1}]");
    ks_profile *p = read_ok(path, "kineto-json", -1);
    assert_int_equal(p->n, 1);
    assert_string_equal(ks_profile_name(p, 0), "k\"q\xc3\xa9\n");
    ks_profile_free(p);
}

/* ------------------------------------------------------------ bad inputs */

static void test_truncated(void **state)
{
    (void)state;
    /* cut inside the event's args on line 7 */
    const char *cut = strstr(minimal_trace, "\"grid\"");
    assert_non_null(cut);
    const char *path = write_file("trunc.json", minimal_trace, (size_t)(cut - minimal_trace));
    ks_error err = read_bad(path);
    assert_int_equal(err.line, 7);
    assert_contains(err.message, "ends early");

    /* cut after a newline: the last line with text is blamed */
    const char *end = strstr(minimal_trace, "  ],\n  \"displayTimeUnit\"");
    assert_non_null(end);
    path = write_file("trunc2.json", minimal_trace, (size_t)(end - minimal_trace));
    err = read_bad(path);
    assert_int_equal(err.line, 7);
}

static void test_dur_not_a_number(void **state)
{
    (void)state;
    ks_error err = expect_bad(
        "dur_abc.json",
        "{\"schemaVersion\": 1,\n\"traceEvents\": [\n"
        "{\"cat\": \"kernel\", \"name\": \"ok\", \"ts\": 1, \"dur\": 2},\n"
        "{\"cat\": \"kernel\", \"name\": \"bad\",\n \"ts\": 3,\n \"dur\": \"abc\"}\n]}\n",
        6, "\"dur\" is a string");
    assert_true(err.column > 0);

    /* the same with "cat" last: only known to matter at the closing brace */
    expect_bad("dur_abc2.json",
               "{\"traceEvents\": [\n{\"name\": \"bad\", \"ts\": 3,\n"
               " \"dur\": null,\n \"cat\": \"kernel\"}]}",
               3, "\"dur\" is null");
}

static void test_trace_events_not_a_list(void **state)
{
    (void)state;
    expect_bad("te5.json", "{\"schemaVersion\": 1,\n \"traceEvents\": 5}\n", 2,
               "\"traceEvents\" is a number");
    expect_bad("teobj.json", "{\"schemaVersion\": 1,\n\n \"traceEvents\": {}}\n", 3, NULL);
    expect_bad("teelem.json", "{\"schemaVersion\": 1, \"traceEvents\": [\n1]}\n", 2, "element");
}

static void test_missing_fields(void **state)
{
    (void)state;
    ks_error err = expect_bad("nodur.json",
                              "{\"schemaVersion\": 1, \"traceEvents\": [\n"
                              "{\"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1, \"dur\": 1},\n"
                              "  {\"cat\": \"kernel\", \"name\": \"b\", \"ts\": 2}\n]}\n",
                              3, "no \"dur\"");
    assert_int_equal(err.column, 4); /* just past the event's '{' */

    expect_bad("nots.json",
               "{\"traceEvents\": [\n\n{\"cat\": \"kernel\", \"name\": \"b\", \"dur\": 2}]}", 3,
               "no \"ts\"");
    expect_bad("noname.json",
               "{\"traceEvents\": [\n{\"cat\": \"kernel\", \"name\": 7, \"ts\": 1, \"dur\": 2}]}",
               2, "\"name\" is a number");
}

static void test_negative_duration(void **state)
{
    (void)state;
    expect_bad("negdur.json",
               "{\"schemaVersion\": 1, \"traceEvents\": [\n\n\n"
               "{\"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1, \"dur\": -0.5}]}\n",
               4, "negative");
}

static void test_bad_args(void **state)
{
    (void)state;
    static const struct {
        const char *args, *message;
    } cases[] = {
        {"{\"grid\": [1, 2]}", "\"args.grid\" is a list whose length is not 3"},
        {"{\"block\": [1, 2, 3, 4]}", "\"args.block\" is a list whose length is not 3"},
        {"{\"grid\": [1, -2, 3]}", "\"args.grid\""},
        {"{\"grid\": [1, \"2\", 3]}", "\"args.grid\""},
        {"{\"grid\": \"(1,2,3)\"}", "\"args.grid\" is a string"},
        {"{\"device\": 0.5}", "\"args.device\" is not a whole number"},
        {"{\"device\": -1}", "\"args.device\" is out of range"},
        {"{\"stream\": \"7\"}", "\"args.stream\" is a string"},
        {"{\"correlation\": 1e30}", "\"args.correlation\" is out of range"},
        {"[1, 2]", "\"args\" is a list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"traceEvents\": [\n{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, "
                 "\"dur\": 1,\n\"args\": %s}]}",
                 cases[i].args);
        const char *path = write_text("badargs.json", json);
        ks_error err;
        assert_int_equal(tr_read_fails(path, NULL, -1, &err), KS_ERR_FORMAT);
        assert_int_equal(err.line, 3);
        assert_contains(err.message, cases[i].message);
    }
}

static void test_invalid_json(void **state)
{
    (void)state;
    /* an error far past the first read chunk still gets its exact line */
    text t = {0};
    put(&t, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    int lines = 1;
    for (int i = 0; i < 60000; i++, lines++)
        put(&t, "{\"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": %d, \"dur\": 3},\n", i);
    put(&t, "{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1,, }\n]}\n");
    lines++;
    assert_true(t.len > 3u << 20);
    const char *path = write_file("invalid.json", t.s, t.len);
    free(t.s);
    ks_error err = read_bad(path);
    assert_int_equal(err.line, lines);
    assert_contains(err.message, "invalid JSON");

    expect_bad("garbage.json", "{\"traceEvents\": []}\n}\n", 2, NULL);
    expect_bad("notobj.json", "{\"traceEvents\": [\"x\"]}", 1, NULL);
    expect_bad("badutf8.json",
               "{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"\xff\xfe\", \"ts\": 1, "
               "\"dur\": 1}]}",
               0, NULL);
    expect_bad("nul.json",
               "{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"a\\u0000b\", \"ts\": 1, "
               "\"dur\": 1}]}",
               0, "NUL");
}

static void test_no_kernels(void **state)
{
    (void)state;
    ks_error err = expect_bad("cpuonly.json",
                              "{\"schemaVersion\": 1,\n\"traceEvents\": [\n"
                              "{\"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}]}\n",
                              2, "none of the 1 events");

    /* forced onto a JSON file that is not a trace at all */
    const char *path = write_text("other.json", "{\"hello\": [1, 2, 3]}\n");
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.keep_start = true; /* start times are checked here */
    opt.format = "kineto-json";
    ks_profile *p = NULL;
    assert_int_equal(ks_profile_read(path, &opt, &p, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 1);
    assert_contains(err.message, "traceEvents");

    path = write_text("top5.json", "5");
    assert_int_equal(ks_profile_read(path, &opt, &p, &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 1);
}

KS_TMPDIR_TEST_MAIN("ks-test-kineto",
                    test_real_traces,
                    test_real_device_filter,
                    test_minimal,
                    test_odd_key_order,
                    test_fractional_times,
                    test_non_kernel_flood,
                    test_device_filter,
                    test_compressed,
                    test_long_name,
                    test_escapes_and_array_form,
                    test_truncated,
                    test_dur_not_a_number,
                    test_trace_events_not_a_list,
                    test_missing_fields,
                    test_negative_duration,
                    test_bad_args,
                    test_invalid_json,
                    test_no_kernels)
