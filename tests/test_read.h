/*
 * test_read.h - reading a profile in a test: the options a test names
 * (format, device), a read that must succeed (a failed test naming the
 * located error otherwise) and one that must fail with a located error, and
 * checks of the columns read, launch by launch; and an ncu CSV with a
 * metric per launch, for the reader's limit on metric values.
 * Header-only, like tmpdir.h, because each test file is its own program.
 */
#ifndef KS_TEST_READ_H
#define KS_TEST_READ_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <string.h>

#include "ksample.h"

/* format NULL: detection; device -1: every device. */
static inline ks_read_options tr_options(const char *format, int device)
{
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.keep_start = true; /* reader tests check the start times read */
    opt.format = format;
    opt.device = device;
    return opt;
}

/* The reader's status, with *p NULL and *err cleared before it runs. */
static inline ks_status tr_read_opt(const char *path, const ks_read_options *opt, ks_profile **p,
                                    ks_error *err)
{
    *p = NULL;
    ks_error_clear(err);
    return ks_profile_read(path, opt, p, err);
}

static inline ks_status tr_read(const char *path, const char *format, int device, ks_profile **p,
                                ks_error *err)
{
    ks_read_options opt = tr_options(format, device);
    return tr_read_opt(path, &opt, p, err);
}

static inline ks_profile *tr_read_ok_opt(const char *path, const ks_read_options *opt)
{
    ks_profile *p;
    ks_error err;
    if (tr_read_opt(path, opt, &p, &err) != KS_OK) {
        char msg[1200];
        ks_error_format(&err, msg, sizeof msg);
        fail_msg("reading %s as %s: %s", path, opt->format ? opt->format : "detected", msg);
    }
    assert_non_null(p);
    return p;
}

static inline ks_profile *tr_read_ok(const char *path, const char *format, int device)
{
    ks_read_options opt = tr_options(format, device);
    return tr_read_ok_opt(path, &opt);
}

/* p is of the source format, with n launches. */
static inline void tr_expect_profile(const ks_profile *p, const char *source, size_t n)
{
    assert_string_equal(p->source_format, source);
    assert_int_equal(p->n, n);
}

/* A read of every device that must succeed with a profile of the source
 * format and n launches. */
static inline ks_profile *tr_read_n(const char *path, const char *format, const char *source,
                                    size_t n)
{
    ks_profile *p = tr_read_ok(path, format, -1);
    tr_expect_profile(p, source, n);
    return p;
}

/* A read that must fail: no profile, and an error that says its status and
 * something about it.  Returns the status for the caller to check. */
static inline ks_status tr_read_fails_opt(const char *path, const ks_read_options *opt,
                                          ks_error *err)
{
    ks_profile *p;
    ks_status st = tr_read_opt(path, opt, &p, err);
    assert_int_not_equal(st, KS_OK);
    assert_null(p);
    assert_int_equal(err->status, st);
    assert_true(err->message[0] != '\0');
    return st;
}

static inline ks_status tr_read_fails(const char *path, const char *format, int device,
                                      ks_error *err)
{
    ks_read_options opt = tr_options(format, device);
    return tr_read_fails_opt(path, &opt, err);
}

/* The first values of column (a per-launch array of p: start_ns, device,
 * stream, ...) are those listed; the failure names the launch and column. */
#define TR_EXPECT_COLUMN(p, column, ...)                                                       \
    do {                                                                                       \
        static const int64_t want_[] = {__VA_ARGS__};                                          \
        assert_true((p)->n >= sizeof want_ / sizeof want_[0]);                                 \
        assert_non_null((p)->column);                                                          \
        for (size_t i_ = 0; i_ < sizeof want_ / sizeof want_[0]; i_++)                         \
            if ((int64_t)(p)->column[i_] != want_[i_])                                         \
                fail_msg("launch %zu: " #column " %lld, expected %lld", i_,                    \
                         (long long)(p)->column[i_], (long long)want_[i_]);                    \
    } while (0)

/* p's first launches last want[0..count) ns. */
static inline void tr_expect_durations(const ks_profile *p, const int64_t *want, size_t count)
{
    assert_true(p->n >= count);
    for (size_t i = 0; i < count; i++)
        if (p->duration_ns[i] != want[i])
            fail_msg("launch %zu lasts %lld ns, expected %lld", i, (long long)p->duration_ns[i],
                     (long long)want[i]);
}

/* Launch i of p ran grid[0..3) blocks of block[0..3) threads. */
static inline void tr_expect_dims(const ks_profile *p, size_t i, const uint32_t *grid,
                                  const uint32_t *block)
{
    assert_true(ks_profile_has_dims(p));
    assert_true(i < p->n);
    const uint32_t *g = ks_profile_grid(p, i), *b = ks_profile_block(p, i);
    if (memcmp(g, grid, 3 * sizeof *g) != 0 || memcmp(b, block, 3 * sizeof *b) != 0)
        fail_msg("launch %zu: grid %u %u %u block %u %u %u, expected grid %u %u %u block %u %u %u",
                 i, g[0], g[1], g[2], b[0], b[1], b[2], grid[0], grid[1], grid[2], block[0],
                 block[1], block[2]);
}

/* The 15 columns of an ncu CSV export whose rows stop at Metric Value. */
#define TR_NCU_HEADER                                                                      \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","    \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","           \
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"

/* An ncu CSV (TR_NCU_HEADER) of `launches` launches, each with a metric of
 * its own (launch k: m<k>__x = 1): a few bytes per launch that ask for
 * launches x launches dense metric values.  Malloc'd, *len bytes. */
static inline char *tr_ncu_metric_per_launch(int launches, size_t *len)
{
    size_t cap = (size_t)launches * 200 + 1024;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, cap, "%s", TR_NCU_HEADER);
    for (int k = 0; k < launches; k++)
        n += (size_t)snprintf(text + n, cap - n,
                              "\"%d\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\","
                              "\"(1, 1, 1)\",\"0\",\"8.0\",\"S\",\"m%d__x\",\"\",\"1\"\n",
                              k, k);
    *len = n;
    return text;
}

#endif
