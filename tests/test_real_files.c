/*
 * test_real_files.c - every profile in ../shared/data of a format ksample
 * reads (kineto, nsys-sqlite, rocprof, ncu; the accelsim folders belong to
 * the trace readers) is read with the counts its README gives, by content
 * detection and by its forced format, or refused with a message that says
 * what the file lacks.  Skipped when the folder is absent (a fresh clone).
 *
 * The README gives 3 dispatches for rocprofv3-docs-earliest.csv, but the
 * file holds one data row (two lines); the test asserts what the file holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ksample.h"
#include "test_main.h"
#include "test_read.h"

typedef struct real_file {
    const char *path;          /* under KS_SHARED_DATA */
    const char *format;        /* what detection must pick */
    size_t invocations;        /* 0: names unknown, not checked */
    size_t names;              /* 0: not checked */
    const char *duration_from; /* ks_profile.duration_source */
} real_file;

static const real_file files[] = {
    {"kineto/alexnet-a100.json.gz", "kineto-json", 79, 16, ""},
    {"kineto/v100-ns-resolution.json.gz", "kineto-json", 4350, 77, ""},
    {"kineto/a100-nccl.json.gz", "kineto-json", 2700, 70, ""},
    {"kineto/sampled-rank0.json.gz", "kineto-json", 1154, 194, ""},
    {"kineto/mi250-rocm62.json.gz", "kineto-json", 14, 0, ""},
    {"kineto/resnet50-v100-2021.json.gz", "kineto-json", 9564, 62, ""},
    {"kineto/mi300x-replay.json.gz", "kineto-json", 29, 2, ""},
    {"nsys-sqlite/saxpy-a100-nsys2022.sqlite", "nsys-sqlite", 5, 1, ""},
    {"nsys-sqlite/cloverleaf-a100-nsys2024.sqlite", "nsys-sqlite", 1312, 102, ""},
    {"rocprof/gunrock-bfs-mi300-v1-results.csv", "rocprof-v1-csv", 56, 8, ""},
    {"rocprof/rocprofv3-docs-rocm62.csv", "rocprof-v3-csv", 7, 3, ""},
    /* issue 14: "Queue_Id: 139690710949888 is out of range" */
    {"rocprof/rocprofv3-docs-earliest.csv", "rocprof-v3-csv", 1, 1, ""},
    {"rocprof/llamacpp-decode-gfx1151-v3.csv", "rocprof-v3-csv", 144, 17, ""},
    /* issue 14: "row has 16 fields but the header has 20" */
    {"ncu/rtx5090-rules-long.csv", "ncu-csv", 1, 1, "gpu__time_duration.sum"},
    /* issue 14: both read with every duration 0 */
    {"ncu/gtx1080-vectoradd-raw.csv", "ncu-raw-csv", 3, 1, "gpu__time_duration"},
    /* 18 ncu processes over the same launch, one metric group each */
    {"ncu/a100-2mm-long-max-only.csv", "ncu-csv", 1, 1, "gpu__time_duration.max"},
};

static bool shared_data_present(void)
{
    return access(KS_SHARED_DATA, R_OK) == 0;
}

static ks_profile *read_as(const char *path, const char *format)
{
    return tr_read_ok(path, format, -1);
}

static void check_counts(const real_file *f, const ks_profile *p, const char *how)
{
    if (p->n != f->invocations)
        fail_msg("%s (%s): %zu invocations, README says %zu", f->path, how, p->n,
                 f->invocations);
    if (f->names && p->name_count != f->names)
        fail_msg("%s (%s): %zu distinct names, README says %zu", f->path, how, p->name_count,
                 f->names);
    if (strcmp(p->source_format, f->format) != 0)
        fail_msg("%s (%s): read as %s, expected %s", f->path, how, p->source_format, f->format);
    if (strcmp(p->duration_source, f->duration_from) != 0)
        fail_msg("%s (%s): durations from '%s', expected '%s'", f->path, how,
                 p->duration_source, f->duration_from);
    int64_t total = 0;
    for (size_t i = 0; i < p->n; i++)
        total += p->duration_ns[i];
    if (total <= 0)
        fail_msg("%s (%s): no kernel time read", f->path, how);
}

static void test_every_file(void **state)
{
    (void)state;
    if (!shared_data_present())
        skip();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", KS_SHARED_DATA, files[i].path);
        ks_profile *p = read_as(path, NULL);
        check_counts(&files[i], p, "detected");
        ks_profile_free(p);
        p = read_as(path, files[i].format);
        check_counts(&files[i], p, "forced");
        ks_profile_free(p);
    }
}

/* The time-metric resolution: the max-only file's one launch takes its
 * duration from gpu__time_duration.max (823,072 ns in the file); the raw page
 * from the unsuffixed metric ("2,720.00" nsecond per launch). */
static void test_ncu_time_values(void **state)
{
    (void)state;
    if (!shared_data_present())
        skip();
    char path[1024];
    snprintf(path, sizeof path, "%s/ncu/a100-2mm-long-max-only.csv", KS_SHARED_DATA);
    ks_profile *p = read_as(path, NULL);
    assert_int_equal(p->duration_ns[0], 823072);
    /* every one of the 18 processes' metric groups joined the one launch */
    assert_true(p->metric_count >= 30);
    ks_profile_free(p);
    snprintf(path, sizeof path, "%s/ncu/gtx1080-vectoradd-raw.csv", KS_SHARED_DATA);
    p = read_as(path, NULL);
    int64_t total = 0;
    for (size_t i = 0; i < p->n; i++)
        total += p->duration_ns[i];
    assert_int_equal(total, 8160);
    ks_profile_free(p);
}

KS_TEST_MAIN(test_every_file, test_ncu_time_values)
