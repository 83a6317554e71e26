/* sort.c - the shared sorts of sort.h. */
#include "sort.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Shorter arrays go to qsort: a radix pass clears and sums 16 counters at
 * least, and the scratch buffer is a malloc. */
enum { RADIX_MIN_ITEMS = 64 };

static int cmp_key_index(const void *x, const void *y)
{
    const ks_key_index *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : (a->index > b->index);
}

static int bit_width(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b))
        b++;
    return b;
}

int ks_radix_bits(size_t n)
{
    int bits = 4;
    while (bits < KS_RADIX_MAX_BITS && ((size_t)2 << bits) <= n)
        bits++;
    return bits;
}

void ks_radix_pass(const uint64_t *src, uint64_t *dst, size_t n, int shift, size_t mask)
{
    size_t count[(1 << KS_RADIX_MAX_BITS) + 1];
    memset(count, 0, (mask + 2) * sizeof *count);
    for (size_t k = 0; k < n; k++)
        count[((src[k] >> shift) & mask) + 1]++;
    for (size_t b = 0; b <= mask; b++)
        count[b + 1] += count[b];
    for (size_t k = 0; k < n; k++)
        dst[count[(src[k] >> shift) & mask]++] = src[k];
}

/* One stable pass on a digit of the index, or of key - lo. */
static void key_index_pass(const ks_key_index *src, ks_key_index *dst, size_t n, bool of_index,
                           uint64_t lo, int shift, size_t mask)
{
    size_t count[(1 << KS_RADIX_MAX_BITS) + 1];
    memset(count, 0, (mask + 2) * sizeof *count);
#define DIGIT(e) ((of_index ? (uint64_t)(e).index : (uint64_t)(e).key - lo) >> shift & mask)
    for (size_t k = 0; k < n; k++)
        count[DIGIT(src[k]) + 1]++;
    for (size_t b = 0; b <= mask; b++)
        count[b + 1] += count[b];
    for (size_t k = 0; k < n; k++)
        dst[count[DIGIT(src[k])]++] = src[k];
#undef DIGIT
}

/* The passes over `width` bits, digits as even as they go (14 bits as 7 + 7,
 * not 11 + 3); *src ends as the sorted copy. */
static void key_index_passes(ks_key_index **src, ks_key_index **dst, size_t n, bool of_index,
                             uint64_t lo, int width, int max_bits)
{
    if (width == 0)
        return;
    int passes = (width + max_bits - 1) / max_bits;
    int bits = (width + passes - 1) / passes;
    size_t mask = ((size_t)1 << bits) - 1;
    for (int shift = 0; shift < width; shift += bits) {
        key_index_pass(*src, *dst, n, of_index, lo, shift, mask);
        ks_key_index *t = *src;
        *src = *dst;
        *dst = t;
    }
}

void ks_sort_key_index(ks_key_index *a, size_t n)
{
    if (n < 2)
        return;
    int64_t lo = a[0].key, hi = a[0].key;
    uint32_t top = a[0].index;
    bool ascending = true, sorted = true;
    for (size_t k = 1; k < n; k++) {
        lo = a[k].key < lo ? a[k].key : lo;
        hi = a[k].key > hi ? a[k].key : hi;
        top = a[k].index > top ? a[k].index : top;
        ascending &= a[k].index >= a[k - 1].index;
        sorted &= cmp_key_index(&a[k - 1], &a[k]) <= 0;
    }
    if (sorted)
        return;
    ks_key_index *tmp = n >= RADIX_MIN_ITEMS ? malloc(n * sizeof *tmp) : NULL;
    if (!tmp) {
        qsort(a, n, sizeof *a, cmp_key_index);
        return;
    }
    /* LSD: the index digits first (none when the indexes ascend: each key
     * pass is stable), then the key's */
    int bits = ks_radix_bits(n);
    ks_key_index *src = a, *dst = tmp;
    key_index_passes(&src, &dst, n, true, 0, ascending ? 0 : bit_width(top), bits);
    key_index_passes(&src, &dst, n, false, (uint64_t)lo, bit_width((uint64_t)hi - (uint64_t)lo),
                     bits);
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
}

int64_t ks_key_of_double(double v)
{
    if (v == 0)
        return 0; /* -0 as +0 */
    int64_t bits;
    memcpy(&bits, &v, sizeof bits);
    /* a negative double's magnitude grows with its bits: flip them, so that
     * -x comes to -1 - bits(x) */
    return bits >= 0 ? bits : bits ^ INT64_MAX;
}
