/*
 * test_sort.c - the shared sorts of lib/core/sort.h against qsort with the
 * (key, index) comparator they replaced: random arrays of every size around
 * the radix threshold, narrow and full-width key ranges, indexes ascending
 * or shuffled, many ties; the double key's order; and one radix pass's
 * stability.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ksample.h"
#include "sort.h"
#include "test_main.h"

static int cmp_reference(const void *x, const void *y)
{
    const ks_key_index *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : (a->index > b->index);
}

static void fill(ks_key_index *a, size_t n, ks_rng *rng, int shape)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = ks_rng_next(rng);
        int64_t key;
        switch (shape) {
        case 0: /* few distinct keys: ties everywhere */
            key = (int64_t)(r % 7);
            break;
        case 1: /* durations of 2^40 ns */
            key = (int64_t)(r >> 24);
            break;
        case 2: /* the whole int64 range, extremes included */
            key = i % 11 == 0 ? INT64_MIN : i % 13 == 0 ? INT64_MAX : (int64_t)r;
            break;
        default: /* negative and positive around 0 */
            key = (int64_t)(r % 2001) - 1000;
            break;
        }
        a[i] = (ks_key_index){key, (uint32_t)i};
    }
}

static void shuffle(ks_key_index *a, size_t n, ks_rng *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = ks_rng_below(rng, i);
        ks_key_index t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static void test_matches_qsort(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 200, 1000, 4095, 4096, 20000};
    ks_rng rng;
    ks_rng_seed(&rng, 7);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        ks_key_index *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
        assert_non_null(a);
        assert_non_null(b);
        for (int shape = 0; shape < 4; shape++)
            for (int shuffled = 0; shuffled < 2; shuffled++) {
                fill(a, n, &rng, shape);
                if (shuffled)
                    shuffle(a, n, &rng);
                memcpy(b, a, n * sizeof *a);
                ks_sort_key_index(a, n);
                qsort(b, n, sizeof *b, cmp_reference);
                for (size_t i = 0; i < n; i++) {
                    assert_true(a[i].key == b[i].key);
                    assert_int_equal(a[i].index, b[i].index);
                }
            }
        free(a);
        free(b);
    }
}

static void test_double_key_order(void **state)
{
    (void)state;
    static const double v[] = {-INFINITY, -1e300, -2.5, -1, -0x1p-1074, 0, 0x1p-1074,
                               1e-300, 1, 2.5, 1e9, 1e300, INFINITY};
    size_t n = sizeof v / sizeof *v;
    for (size_t i = 0; i + 1 < n; i++)
        assert_true(ks_key_of_double(v[i]) < ks_key_of_double(v[i + 1]));
    assert_true(ks_key_of_double(-0.0) == ks_key_of_double(0.0));
    /* negated, a decreasing order */
    for (size_t i = 0; i + 1 < n; i++)
        assert_true(-ks_key_of_double(v[i]) > -ks_key_of_double(v[i + 1]));
}

static void test_radix_pass_stable(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint64_t *src = malloc(N * sizeof *src), *dst = malloc(N * sizeof *dst);
    assert_non_null(src);
    assert_non_null(dst);
    ks_rng rng;
    ks_rng_seed(&rng, 3);
    for (size_t i = 0; i < N; i++) /* digit in bits 32..37, position below */
        src[i] = (ks_rng_next(&rng) % 64) << 32 | i;
    int bits = ks_radix_bits(N);
    assert_true(bits >= 4 && bits <= KS_RADIX_MAX_BITS);
    ks_radix_pass(src, dst, N, 32, 63);
    for (size_t i = 1; i < N; i++) /* by digit, then position: the words ascend */
        assert_true(dst[i - 1] < dst[i]);
    assert_int_equal(ks_radix_bits(10), 4);
    assert_int_equal(ks_radix_bits(100000), KS_RADIX_MAX_BITS);
    free(src);
    free(dst);
}

KS_TEST_MAIN(test_matches_qsort, test_double_key_order, test_radix_pass_stable)
