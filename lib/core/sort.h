/*
 * sort.h - the sorts the library shares (internal header): items by an
 * integer key with ties in index order, and the counting pass of an LSD
 * radix sort on packed 64-bit words.
 *
 * Plans must not depend on the sort used, so every order here is total or
 * stable: the same input gives the same bytes on every libc.
 */
#ifndef KS_SORT_H
#define KS_SORT_H

#include <stddef.h>
#include <stdint.h>

/* An item (a launch, a group, ...) and the key it is ordered by. */
typedef struct ks_key_index {
    int64_t key;
    uint32_t index;
} ks_key_index;

/* Sorts a[0..n) by key, then by index: a total order, so the result does not
 * depend on the algorithm.  An LSD radix sort over the bits of the keys'
 * range (and of the indexes, unless they already ascend); qsort for short
 * arrays or when the scratch buffer cannot be had.  Never fails. */
void ks_sort_key_index(ks_key_index *a, size_t n);

/* A key for ks_key_index that orders doubles as < does, -0 and +0 alike
 * (NaN has no place: callers reject it first).  Negate it for a decreasing
 * order. */
int64_t ks_key_of_double(double v);

/* The digit width of an LSD radix pass over n items: 4 bits for a short
 * array up to 11 for 4096 or more, so that clearing and summing the counters
 * costs no more than scattering the items. */
enum { KS_RADIX_MAX_BITS = 11 };
int ks_radix_bits(size_t n);

/* One stable counting pass: dst[0..n) is src[0..n) ordered by the digit
 * (word >> shift) & mask (mask < 2^KS_RADIX_MAX_BITS). */
void ks_radix_pass(const uint64_t *src, uint64_t *dst, size_t n, int shift, size_t mask);

/* A step of a qsort comparator, key by key: -1, 0 or 1 as x is below,
 * equal to or above y (x != y but neither below: above, as for a NaN). */
#define KS_CMP(x, y) ((x) != (y) ? ((x) < (y) ? -1 : 1) : 0)

/* Define static int name(const void *, const void *), a qsort comparator of
 * type's records by field f1 ascending (KS_CMP), ties by f2, and so on. */
#define KS_ORDER_BY2(name, type, f1, f2)                                                   \
    static int name(const void *a, const void *b)                                          \
    {                                                                                      \
        const type *x = a, *y = b;                                                         \
        int c = KS_CMP(x->f1, y->f1);                                                      \
        return c ? c : KS_CMP(x->f2, y->f2);                                               \
    }
#define KS_ORDER_BY4(name, type, f1, f2, f3, f4)                                           \
    static int name(const void *a, const void *b)                                          \
    {                                                                                      \
        const type *x = a, *y = b;                                                         \
        int c = KS_CMP(x->f1, y->f1);                                                      \
        c = c ? c : KS_CMP(x->f2, y->f2);                                                  \
        c = c ? c : KS_CMP(x->f3, y->f3);                                                  \
        return c ? c : KS_CMP(x->f4, y->f4);                                               \
    }

/* Defines static size_t name(const type *v, size_t n, key_type key): the
 * first i of v[0..n) where below(v[i], key) is false (n when none), for a
 * v along which below holds on a prefix only; a binary search.  below: a
 * macro or function of an element and the key, e.g. ((e).t < (k)). */
#define KS_LOWER_BOUND(name, type, key_type, below)                                        \
    static size_t name(const type *v, size_t n, key_type key)                              \
    {                                                                                      \
        size_t lo = 0, hi = n;                                                             \
        while (lo < hi) {                                                                  \
            size_t mid = lo + (hi - lo) / 2;                                               \
            if (below(v[mid], key))                                                        \
                lo = mid + 1;                                                              \
            else                                                                           \
                hi = mid;                                                                  \
        }                                                                                  \
        return lo;                                                                         \
    }

#endif
