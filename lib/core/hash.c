/* hash.c - growth of the index in hash.h, and the hash of a named or an
 * integer-keyed record's key. */
#include "hash.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void ks_hash_free(ks_hash_index *h)
{
    free(h->slots);
    h->slots = NULL;
    h->size = 0;
}

void ks_hash_clear(ks_hash_index *h)
{
    if (h->slots)
        memset(h->slots, 0, h->size * sizeof *h->slots);
}

ks_status ks_hash_reserve(ks_hash_index *h, size_t count,
                          uint64_t (*hash_of)(const void *ctx, uint32_t id), const void *ctx,
                          ks_error *err)
{
    if (count * 2 <= h->size)
        return KS_OK;
    size_t size = h->size ? h->size : 256;
    while (count * 2 > size)
        size *= 2;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < h->size; k++) {
        if (!h->slots[k])
            continue;
        size_t i = hash_of(ctx, h->slots[k] - 1) & (size - 1);
        while (slots[i])
            i = (i + 1) & (size - 1);
        slots[i] = h->slots[k];
    }
    free(h->slots);
    h->slots = slots;
    h->size = size;
    return KS_OK;
}

void ks_hash_remove(ks_hash_index *h, uint64_t hash, bool (*eq)(const void *ctx, uint32_t id),
                    const void *ctx, uint64_t (*hash_of)(const void *ctx, uint32_t id),
                    const void *hash_ctx)
{
    if (!h->size)
        return;
    size_t mask = h->size - 1, i = hash & mask;
    while (h->slots[i] && !eq(ctx, h->slots[i] - 1))
        i = (i + 1) & mask;
    if (!h->slots[i])
        return;
    /* the hole at i: pull back each later id of the run whose home slot
     * does not lie (cyclically) in (i, j] */
    for (size_t j = (i + 1) & mask; h->slots[j]; j = (j + 1) & mask) {
        size_t home = hash_of(hash_ctx, h->slots[j] - 1) & mask;
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            h->slots[i] = h->slots[j];
            i = j;
        }
    }
    h->slots[i] = 0;
}

uint64_t ks_text_hash_of(const void *ctx, uint32_t id)
{
    const char *s = ks_text_key(ctx, id);
    return ks_name_hash(s, strlen(s));
}

uint64_t ks_u64_hash(uint64_t key) { return XXH3_64bits(&key, sizeof key); }

uint64_t ks_u64_hash_of(const void *ctx, uint32_t id) { return ks_u64_hash(ks_u64_key(ctx, id)); }

ks_status ks_hash_intern(ks_hash_index *h, char ***names, size_t *count, size_t *capacity,
                         const char *text, size_t len, uint32_t *id, ks_error *err)
{
    ks_text_keys keys = {*names, sizeof **names, 0};
    bool found;
    size_t slot;
    ks_status st = ks_hash_find_text(h, &keys, *count, text, len, &found, id, &slot, err);
    if (st != KS_OK || found)
        return st;
    if ((st = ks_grow((void **)names, capacity, *count + 1, sizeof **names, err)) != KS_OK)
        return st;
    if (!((*names)[*count] = strndup(text, len)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_hash_put(h, slot, (uint32_t)*count);
    *id = (uint32_t)(*count)++;
    return KS_OK;
}
