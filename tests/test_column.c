/*
 * test_column.c - the memory of a profile's columns (lib/core/column.c):
 * large columns are mappings grown with mremap, small ones come from
 * malloc, and a column keeps its values across every change between the
 * two.  Small profiles never reach the mapped path, so it is exercised
 * here with columns of several MiB, and a plain file read from a path
 * (read(2), not stdio) and from stdin must give the same profile.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "tmpdir.h"

static void fill(uint64_t *col, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        col[i] = i * 0x9e3779b97f4a7c15ULL;
}

static void check(const uint64_t *col, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (col[i] != i * 0x9e3779b97f4a7c15ULL)
            fail_msg("element %zu of %zu changed", i, n);
}

/* Growing by half again each time from 4 KiB to 96 MiB crosses from malloc
 * to a mapping and then remaps many times; shrinking and growing again
 * keeps what is left. */
static void test_grow_and_shrink(void **state)
{
    (void)state;
    size_t n = 0, cap = 512;
    uint64_t *col = NULL;
    while (cap < ((size_t)96 << 20) / sizeof *col) {
        uint64_t *q = ks_column_realloc(col, cap * sizeof *col);
        assert_non_null(q);
        col = q;
        check(col, n);
        fill(col, n, cap);
        n = cap;
        cap += cap / 2;
    }
    check(col, n);
    /* down below the mapping threshold and back: a mapped column stays one */
    size_t small = 1000;
    col = ks_column_realloc(col, small * sizeof *col);
    assert_non_null(col);
    check(col, small);
    col = ks_column_realloc(col, ((size_t)10 << 20) * sizeof *col / 8);
    assert_non_null(col);
    check(col, small);
    ks_column_free(col);
    ks_column_free(NULL);
    /* zero bytes is a valid column to free */
    void *empty = ks_column_realloc(NULL, 0);
    assert_non_null(empty);
    ks_column_free(empty);
}

/* A profile large enough for every column to be mapped: values survive
 * growth, a column that appears late, and a permutation. */
static void test_profile_columns(void **state)
{
    (void)state;
    enum { ROWS = 700000, LATE = 300000 };
    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    ks_error err;
    uint32_t a, b;
    assert_int_equal(ks_profile_intern(p, "kernel_a", 8, &a, &err), KS_OK);
    assert_int_equal(ks_profile_intern(p, "kernel_b", 8, &b, &err), KS_OK);
    for (size_t i = 0; i < ROWS; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.duration_ns = (int64_t)i;
        inv.name_id = i % 3 ? a : b;
        if (i >= LATE)
            inv.correlation = (int64_t)(2 * i);
        assert_int_equal(ks_profile_append(p, &inv, &err), KS_OK);
    }
    assert_int_equal(p->n, ROWS);
    for (size_t i = 0; i < ROWS; i++) {
        assert_int_equal(p->duration_ns[i], (int64_t)i);
        assert_int_equal(p->name_id[i], i % 3 ? a : b);
        assert_int_equal(p->correlation[i], i >= LATE ? (int64_t)(2 * i) : KS_MISSING_I64);
    }
    uint32_t *order = malloc(ROWS * sizeof *order);
    assert_non_null(order);
    for (size_t i = 0; i < ROWS; i++)
        order[i] = (uint32_t)(ROWS - 1 - i);
    assert_int_equal(ks_profile_permute(p, order, &err), KS_OK);
    for (size_t i = 0; i < ROWS; i++)
        assert_int_equal(p->duration_ns[i], (int64_t)(ROWS - 1 - i));
    free(order);
    ks_profile_free(p);
}

/* The same CSV read by path (read(2) on the descriptor) and through a
 * stream the caller opened (stdio): same bytes, same digest. */
static void test_path_and_stream_agree(void **state)
{
    (void)state;
    char *text = malloc(4u << 20);
    assert_non_null(text);
    size_t total = 0;
    for (int i = 0; total < (3u << 20); i++) /* more than one read of any buffer */
        total += (size_t)snprintf(text + total, 64, "line %d,%d\n", i, i * 7);
    const char *path = write_file("plain.csv", text, total);
    free(text);
    char hex[2][33];
    uint64_t bytes[2];
    size_t lines[2];
    for (int k = 0; k < 2; k++) {
        ks_input *in;
        ks_error err;
        if (k == 0) {
            assert_int_equal(ks_input_open(path, &in, &err), KS_OK);
        } else {
            FILE *s = fopen(path, "rb");
            assert_non_null(s);
            assert_int_equal(ks_input_open_stream(s, path, &in, &err), KS_OK);
        }
        char *line;
        size_t len;
        lines[k] = 0;
        for (;;) {
            assert_int_equal(ks_input_getline(in, &line, &len, NULL, &err), KS_OK);
            if (!line)
                break;
            char want[64];
            snprintf(want, sizeof want, "line %zu,%zu", lines[k], lines[k] * 7);
            assert_string_equal(line, want);
            lines[k]++;
        }
        assert_int_equal(ks_input_finish_digest(in, hex[k], &bytes[k], &err), KS_OK);
        ks_input_close(in);
    }
    assert_int_equal(lines[0], lines[1]);
    assert_int_equal(bytes[0], total);
    assert_int_equal(bytes[1], total);
    assert_string_equal(hex[0], hex[1]);
}

KS_TMPDIR_TEST_MAIN("ks-column",
                    test_grow_and_shrink,
                    test_profile_columns,
                    test_path_and_stream_agree)
