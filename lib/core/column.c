/*
 * column.c - memory for a profile's columns (one element per launch).
 *
 * Large columns are mappings of their own, grown with mremap: the kernel
 * moves page tables instead of bytes.  glibc's realloc also uses mremap for
 * the blocks it maps, but only while the mapping is one VMA, and advising
 * huge pages on the aligned inside of its block splits it into three: every
 * mremap then failed (EFAULT) and realloc copied the column instead, 19 % of
 * `ksample sample` on 10 M launches (perf, docs/bench.md).  Advising the
 * whole mapping keeps it one VMA.
 *
 * Every column starts with a header saying how it was allocated, so that
 * ks_column_free needs no size; small columns stay with malloc.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 64 bytes keep the data aligned for vector loads and a cache line apart
 * from the header. */
typedef struct column_header {
    size_t mapped; /* bytes of the mapping, header included; 0: from malloc */
    char pad[64 - sizeof(size_t)];
} column_header;

/* 2 MiB: the x86-64 huge page.  Below two of them a column gains nothing
 * from a mapping of its own.  Fuzzing builds lower it so that short inputs
 * take the mapped path too. */
enum { HUGE_PAGE = 2 << 20 };
#ifdef KS_FUZZ_BUFFERS
enum { MAP_FROM = 4096 };
#else
enum { MAP_FROM = 2 * HUGE_PAGE };
#endif

static column_header *header_of(void *col)
{
    return (column_header *)((char *)col - sizeof(column_header));
}

#if defined(__linux__) && defined(MREMAP_MAYMOVE) && !defined(KS_NO_COLUMN_MAP)
#define COLUMN_MAP 1

static size_t page_round(size_t bytes)
{
    size_t page = 4096;
    return (bytes + page - 1) / page * page;
}

/* Transparent huge pages where the kernel offers them (first touch of 4 KiB
 * pages was a fifth of reading a large profile); a kernel without them
 * refuses, which is harmless.  -DKS_NO_HUGE_PAGES measures what they buy. */
static void advise_huge(void *map, size_t bytes)
{
#if defined(MADV_HUGEPAGE) && !defined(KS_NO_HUGE_PAGES)
    (void)madvise(map, bytes, MADV_HUGEPAGE);
#else
    (void)map;
    (void)bytes;
#endif
}

static void *map_new(size_t total)
{
    size_t bytes = page_round(total);
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    advise_huge(map, bytes);
    ((column_header *)map)->mapped = bytes;
    return map;
}

static void *map_resize(column_header *h, size_t total)
{
    size_t bytes = page_round(total);
    if (bytes == h->mapped)
        return h;
    void *map = mremap(h, h->mapped, bytes, MREMAP_MAYMOVE);
    if (map == MAP_FAILED)
        return NULL;
    advise_huge(map, bytes);
    ((column_header *)map)->mapped = bytes;
    return map;
}
#endif

void *ks_column_realloc(void *old, size_t bytes)
{
    size_t total = sizeof(column_header) + (bytes ? bytes : 1);
    if (total < bytes)
        return NULL;
    column_header *h = old ? header_of(old) : NULL;
#ifdef COLUMN_MAP
    if (h && h->mapped) {
        column_header *q = map_resize(h, total);
        return q ? q + 1 : NULL;
    }
    if (total >= MAP_FROM) {
        column_header *q = map_new(total);
        if (!q)
            return NULL;
        if (h) {
            /* from malloc to a mapping: the only copy a column's growth makes,
             * of less than MAP_FROM bytes */
            size_t had = malloc_usable_size(h) - sizeof *h;
            memcpy(q + 1, h + 1, had < bytes ? had : bytes);
            free(h);
        }
        return q + 1;
    }
#endif
    column_header *q = realloc(h, total);
    if (!q)
        return NULL;
    q->mapped = 0;
    return q + 1;
}

void ks_column_free(void *col)
{
    if (!col)
        return;
    column_header *h = header_of(col);
#ifdef COLUMN_MAP
    if (h->mapped) {
        munmap(h, h->mapped);
        return;
    }
#endif
    free(h);
}
