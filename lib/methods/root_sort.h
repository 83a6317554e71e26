/*
 * root_sort.h - a stable natural merge sort for ROOT's optimiser (internal).
 *
 * Why not qsort: glibc's qsort is a stable merge sort too, so for the same
 * comparator the order is the same element for element (a stable sort's
 * output is fixed by the comparator and the input order), but it calls the
 * comparator through a pointer and copies elements bytewise; the candidate
 * sorts of the exact frontiers and the small merges were a tenth of a plan's
 * instructions.  Their input is made of long ascending runs (one per stratum
 * and size, see ks_strata_exact_frontier), which a natural merge sort merges
 * instead of sorting again.
 *
 * KS_STABLE_SORT(name, type, cmp) defines
 *     static bool name(type *a, size_t n, type **tmp, size_t *tmp_cap);
 * sorting a[0..n) by cmp (a qsort comparator on const void *), with *tmp a
 * scratch buffer it grows (the caller frees it).  false: out of memory, a
 * left as it was.
 */
#ifndef KS_ROOT_SORT_H
#define KS_ROOT_SORT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define KS_STABLE_SORT(name, type, cmp)                                                        \
    static size_t name##_merge(const type *src, type *dst, const size_t *run, size_t runs,    \
                               size_t *out)                                                     \
    {                                                                                           \
        size_t r = 0, outs = 0;                                                                 \
        for (; r + 1 < runs; r += 2) {                                                          \
            size_t i = run[r], mid = run[r + 1], end = r + 2 < runs ? run[r + 2] : run[runs];   \
            size_t j = mid, k = i;                                                              \
            out[outs++] = i;                                                                    \
            while (i < mid && j < end)                                                          \
                dst[k++] = cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];                     \
            while (i < mid)                                                                     \
                dst[k++] = src[i++];                                                            \
            while (j < end)                                                                     \
                dst[k++] = src[j++];                                                            \
        }                                                                                       \
        if (r < runs) {                                                                         \
            out[outs++] = run[r];                                                               \
            memcpy(dst + run[r], src + run[r], (run[runs] - run[r]) * sizeof *src);             \
        }                                                                                       \
        out[outs] = run[runs];                                                                  \
        return outs;                                                                            \
    }                                                                                           \
                                                                                                \
    static bool name(type *a, size_t n, type **tmp, size_t *tmp_cap)                            \
    {                                                                                           \
        if (n < 2)                                                                              \
            return true;                                                                        \
        if (*tmp_cap < n) {                                                                     \
            type *grown = realloc(*tmp, n * sizeof *grown);                                     \
            if (!grown)                                                                         \
                return false;                                                                   \
            *tmp = grown;                                                                       \
            *tmp_cap = n;                                                                       \
        }                                                                                       \
        size_t *run = malloc(2 * (n + 1) * sizeof *run), runs = 0;                              \
        if (!run)                                                                               \
            return false;                                                                       \
        for (size_t k = 0; k < n; k++)                                                          \
            if (k == 0 || cmp(&a[k], &a[k - 1]) < 0)                                            \
                run[runs++] = k;                                                                \
        run[runs] = n;                                                                          \
        size_t *next = run + n + 1;                                                             \
        type *src = a, *dst = *tmp;                                                             \
        while (runs > 1) {                                                                      \
            runs = name##_merge(src, dst, run, runs, next);                                     \
            size_t *t = run;                                                                    \
            run = next;                                                                         \
            next = t;                                                                           \
            type *u = src;                                                                      \
            src = dst;                                                                          \
            dst = u;                                                                            \
        }                                                                                       \
        if (src != a)                                                                           \
            memcpy(a, src, n * sizeof *a);                                                      \
        free(run < next ? run : next);                                                          \
        return true;                                                                            \
    }

#endif
