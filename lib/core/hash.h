/*
 * hash.h - the one hash table of the library: an open-addressing index of
 * uint32 ids by 64-bit hash, linear probing, at most half full.  The caller
 * owns the keys (names in a profile, names in a block of rows, metric
 * columns...) and says through eq() whether an id's key is the one sought,
 * so one table serves every kind of key without copying it.
 */
#ifndef KS_HASH_H
#define KS_HASH_H

#include "ksample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ks_hash_index is declared in ksample.h (a profile holds one). */

void ks_hash_free(ks_hash_index *h);
/* Empties the index, keeping its memory. */
void ks_hash_clear(ks_hash_index *h);
/* Makes room for `count` ids (ids 0..count-2 already in), rebuilding from
 * hash_of(ctx, id) when the table grows. */
ks_status ks_hash_reserve(ks_hash_index *h, size_t count,
                          uint64_t (*hash_of)(const void *ctx, uint32_t id), const void *ctx,
                          ks_error *err);

/* Finds the id whose key eq() accepts; true and *id when found.  Otherwise
 * *slot is where the key would go (ks_hash_put).  Inline: it is on the path
 * of every row a reader interns. */
static inline bool ks_hash_find(const ks_hash_index *h, uint64_t hash,
                                bool (*eq)(const void *ctx, uint32_t id), const void *ctx,
                                uint32_t *id, size_t *slot)
{
    size_t mask = h->size - 1, i = hash & mask;
    while (h->slots[i]) {
        uint32_t cand = h->slots[i] - 1;
        if (eq(ctx, cand)) {
            *id = cand;
            return true;
        }
        i = (i + 1) & mask;
    }
    *slot = i;
    return false;
}

static inline void ks_hash_put(ks_hash_index *h, size_t slot, uint32_t id)
{
    h->slots[slot] = id + 1;
}

#endif
