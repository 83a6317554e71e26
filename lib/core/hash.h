/*
 * hash.h - the one hash table of the library: an open-addressing index of
 * uint32 ids by 64-bit hash, linear probing, at most half full.  The caller
 * owns the keys (names in a profile, names in a block of rows, metric
 * columns...) and says through eq() whether an id's key is the one sought,
 * so one table serves every kind of key without copying it.  Text keys and
 * 64-bit integer keys have ready-made callbacks below.
 */
#ifndef KS_HASH_H
#define KS_HASH_H

#include "ksample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* Removes id, found at hash by eq (nothing when absent), and moves the ids
 * after it in its probe run back so that every lookup still finds them
 * (backward-shift deletion: no tombstones, the table never silts up).
 * hash_of gives a stored id's hash.  For tables whose records come and go
 * (the warm-state cache model, lib/warm). */
void ks_hash_remove(ks_hash_index *h, uint64_t hash, bool (*eq)(const void *ctx, uint32_t id),
                    const void *ctx, uint64_t (*hash_of)(const void *ctx, uint32_t id),
                    const void *hash_ctx);

/* Keys that are C strings in the caller's array of records: record id's key
 * is the char * at (const char *)base + id * stride + offset. */
typedef struct ks_text_keys {
    const void *base;
    size_t stride, offset;
} ks_text_keys;

static inline const char *ks_text_key(const ks_text_keys *k, uint32_t id)
{
    const char *s;
    memcpy(&s, (const char *)k->base + (size_t)id * k->stride + k->offset, sizeof s);
    return s;
}

/* The hash of every text key (XXH3 of name[0..len)); profile.c's name
 * interning, whose callers hash a block's names ahead, uses it too. */
uint64_t ks_name_hash(const char *name, size_t len);

/* ks_name_hash of record id's key; ctx: the ks_text_keys. */
uint64_t ks_text_hash_of(const void *ctx, uint32_t id);

typedef struct ks_text_sought {
    const ks_text_keys *keys;
    const char *text;
    size_t len;
} ks_text_sought;

static inline bool ks_text_equals(const void *ctx, uint32_t id)
{
    const ks_text_sought *t = ctx;
    const char *s = ks_text_key(t->keys, id);
    return strncmp(s, t->text, t->len) == 0 && s[t->len] == '\0';
}

/* The common case of a table of named records: ks_hash_reserve for records
 * 0..count, then ks_hash_find of text[0..len), whose ks_name_hash is
 * `hash` (the records' keys are hashed so too).  *found and *id when a
 * record has that key; otherwise *slot is where ks_hash_put puts record
 * `count` once added.  Inline, as ks_hash_find. */
static inline ks_status ks_hash_find_text_hashed(ks_hash_index *h, const ks_text_keys *keys,
                                                 size_t count, const char *text, size_t len,
                                                 uint64_t hash, bool *found, uint32_t *id,
                                                 size_t *slot, ks_error *err)
{
    ks_status st = ks_hash_reserve(h, count + 1, ks_text_hash_of, keys, err);
    if (st != KS_OK)
        return st;
    ks_text_sought sought = {keys, text, len};
    *found = ks_hash_find(h, hash, ks_text_equals, &sought, id, slot);
    return KS_OK;
}

/* A lookup of text[0..len) that adds nothing: true and *id when a record
 * has that key; false in an index never reserved. */
static inline bool ks_hash_get_text(const ks_hash_index *h, const ks_text_keys *keys,
                                    const char *text, size_t len, uint32_t *id)
{
    ks_text_sought sought = {keys, text, len};
    size_t slot;
    return h->size &&
           ks_hash_find(h, ks_name_hash(text, len), ks_text_equals, &sought, id, &slot);
}

/* ks_hash_find_text_hashed with text's ks_name_hash computed here. */
static inline ks_status ks_hash_find_text(ks_hash_index *h, const ks_text_keys *keys,
                                          size_t count, const char *text, size_t len,
                                          bool *found, uint32_t *id, size_t *slot,
                                          ks_error *err)
{
    return ks_hash_find_text_hashed(h, keys, count, text, len, ks_name_hash(text, len), found,
                                    id, slot, err);
}

/* A table of names under the index h (C strings names[0..*count), room for
 * *capacity): *id of text[0..len), a copy of it added (the table grown)
 * when it is new. */
ks_status ks_hash_intern(ks_hash_index *h, char ***names, size_t *count, size_t *capacity,
                         const char *text, size_t len, uint32_t *id, ks_error *err);

/* Keys that are 64-bit integers in the caller's array of records (launch
 * ids, warp keys): record id's key is the uint64_t at (const char *)base +
 * id * stride + offset. */
typedef struct ks_u64_keys {
    const void *base;
    size_t stride, offset;
} ks_u64_keys;

static inline uint64_t ks_u64_key(const ks_u64_keys *k, uint32_t id)
{
    uint64_t v;
    memcpy(&v, (const char *)k->base + (size_t)id * k->stride + k->offset, sizeof v);
    return v;
}

/* The hash of every integer key (XXH3 of its 8 bytes). */
uint64_t ks_u64_hash(uint64_t key);

/* ks_u64_hash of record id's key; ctx: the ks_u64_keys. */
uint64_t ks_u64_hash_of(const void *ctx, uint32_t id);

typedef struct ks_u64_sought {
    const ks_u64_keys *keys;
    uint64_t key;
} ks_u64_sought;

static inline bool ks_u64_equals(const void *ctx, uint32_t id)
{
    const ks_u64_sought *t = ctx;
    return ks_u64_key(t->keys, id) == t->key;
}

/* A lookup in a table of records keyed by integers that adds nothing:
 * true and *id when a record has key; false in an index never reserved. */
static inline bool ks_hash_get_u64(const ks_hash_index *h, const ks_u64_keys *keys,
                                   uint64_t key, uint32_t *id)
{
    ks_u64_sought sought = {keys, key};
    size_t slot;
    return h->size && ks_hash_find(h, ks_u64_hash(key), ks_u64_equals, &sought, id, &slot);
}

/* ks_hash_find_text for a table of records keyed by integers: room for
 * records 0..count, then *found and *id when a record has key, otherwise
 * *slot is where ks_hash_put puts record `count` once added. */
static inline ks_status ks_hash_find_u64(ks_hash_index *h, const ks_u64_keys *keys,
                                         size_t count, uint64_t key, bool *found, uint32_t *id,
                                         size_t *slot, ks_error *err)
{
    ks_status st = ks_hash_reserve(h, count + 1, ks_u64_hash_of, keys, err);
    if (st != KS_OK)
        return st;
    ks_u64_sought sought = {keys, key};
    *found = ks_hash_find(h, ks_u64_hash(key), ks_u64_equals, &sought, id, slot);
    return KS_OK;
}

#endif
