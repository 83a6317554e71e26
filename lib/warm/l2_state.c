/*
 * l2_state.c - the cache model of the warm state: a sectored LRU cache of
 * whole lines, fully associative, with a ghost list of evicted lines behind
 * it (warm.h).
 *
 * Why this shape.  For an LRU cache the contents after a history depend
 * only on the order of each line's LAST use (No-State-Loss warm-up, Van
 * Ertvelde, Hellebaut and Eeckhout, ANSS 2006): replaying every line once,
 * oldest last use first, leaves any LRU set-associative cache exactly as the
 * history did, whatever its set mapping.  So the simulator's own L2 decides
 * which lines survive; the model only has to give (1) the lines in order of
 * last use, cut where older ones cannot survive, and (2) which sectors of
 * each are valid.  (2) is where the model matters: GPGPU-Sim's L2 allocates
 * the four 32-byte sectors of a 128-byte line separately and drops them all
 * when the line is evicted, so a line re-fetched after an eviction holds
 * only what was touched since.  Without the simulator's set mapping the
 * model calls a line evicted when `capacity` other lines were used since its
 * last use (a fully associative LRU of the L2's size); the ghost list keeps
 * evicted lines (with the sectors they held) up to `keep` lines in all,
 * because under the real mapping some of them are still there.
 *
 * Every operation is O(1): the lines are nodes in two doubly linked lists
 * (resident, ghost), found through the library's hash table (hash.h) by line
 * address.  Memory: `keep` nodes of 24 bytes and a table of 4 x keep slots.
 */
#include "hash.h"
#include "warm.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

enum { FREE = 0, RESIDENT = 1, GHOST = 2 };

static ks_u64_keys keys_of(const ks_l2_state *s)
{
    return (ks_u64_keys){s->lines, sizeof *s->lines, offsetof(ks_l2_line, line)};
}

ks_status ks_l2_state_init(ks_l2_state *s, size_t capacity, size_t keep, uint32_t line_bytes,
                           uint32_t sector_bytes, ks_error *err)
{
    memset(s, 0, sizeof *s);
    if (capacity == 0 || keep < capacity || keep >= UINT32_MAX / 4)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "cache model: %zu lines kept of a cache of %zu lines", keep,
                            capacity);
    if (line_bytes == 0 || sector_bytes == 0 || line_bytes % sector_bytes != 0 ||
        line_bytes / sector_bytes > 8 || (line_bytes & (line_bytes - 1)) != 0 ||
        (sector_bytes & (sector_bytes - 1)) != 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "cache model: lines of %u bytes in sectors of %u bytes (powers of "
                            "two, at most 8 sectors a line)",
                            line_bytes, sector_bytes);
    s->line_bytes = line_bytes;
    s->sector_bytes = sector_bytes;
    s->sectors_per_line = line_bytes / sector_bytes;
    s->capacity = capacity;
    s->keep = keep;
    s->free_head = NONE;
    for (int l = 0; l < 3; l++)
        s->head[l] = s->tail[l] = NONE;
    if (!(s->lines = malloc(keep * sizeof *s->lines)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_u64_keys k = keys_of(s);
    /* sized once for every node: the table never grows or rehashes */
    ks_status st = ks_hash_reserve(&s->index, keep + 1, ks_u64_hash_of, &k, err);
    if (st != KS_OK)
        ks_l2_state_free(s);
    return st;
}

void ks_l2_state_free(ks_l2_state *s)
{
    free(s->lines);
    ks_hash_free(&s->index);
    memset(s, 0, sizeof *s);
}

static void unlink_node(ks_l2_state *s, uint32_t id)
{
    ks_l2_line *n = &s->lines[id];
    if (n->prev != NONE)
        s->lines[n->prev].next = n->next;
    else
        s->head[n->where] = n->next;
    if (n->next != NONE)
        s->lines[n->next].prev = n->prev;
    else
        s->tail[n->where] = n->prev;
    s->count[n->where]--;
    n->prev = n->next = NONE;
}

/* at the head (most recent) of list l */
static void push_head(ks_l2_state *s, uint32_t id, int l)
{
    ks_l2_line *n = &s->lines[id];
    n->where = (uint8_t)l;
    n->prev = NONE;
    n->next = s->head[l];
    if (s->head[l] != NONE)
        s->lines[s->head[l]].prev = id;
    else
        s->tail[l] = id;
    s->head[l] = id;
    s->count[l]++;
}

static void drop(ks_l2_state *s, uint32_t id)
{
    ks_u64_keys k = keys_of(s);
    ks_u64_sought sought = {&k, s->lines[id].line};
    ks_hash_remove(&s->index, ks_u64_hash(s->lines[id].line), ks_u64_equals, &sought,
                   ks_u64_hash_of, &k);
    unlink_node(s, id);
    s->lines[id].where = FREE;
    s->lines[id].next = s->free_head;
    s->free_head = id;
}

/* Keeps the resident list within capacity and everything within keep. */
static void settle(ks_l2_state *s)
{
    while (s->count[RESIDENT] > s->capacity) {
        uint32_t victim = s->tail[RESIDENT];
        unlink_node(s, victim);
        push_head(s, victim, GHOST); /* newer than every ghost */
    }
    while (s->count[RESIDENT] + s->count[GHOST] > s->keep)
        drop(s, s->tail[GHOST]);
}

static uint32_t new_node(ks_l2_state *s)
{
    if (s->free_head != NONE) {
        uint32_t id = s->free_head;
        s->free_head = s->lines[id].next;
        return id;
    }
    if (s->used < s->keep)
        return (uint32_t)s->used++;
    /* full: the oldest ghost makes room (keep > resident here, since the
     * caller settles after every insertion) */
    uint32_t id = s->tail[GHOST] != NONE ? s->tail[GHOST] : s->tail[RESIDENT];
    drop(s, id);
    s->free_head = s->lines[id].next;
    return id;
}

ks_status ks_l2_state_touch(ks_l2_state *s, uint64_t line, unsigned mask, bool write,
                            ks_error *err)
{
    (void)err;
    mask &= (1u << s->sectors_per_line) - 1;
    if (!mask)
        return KS_OK;
    s->touches++;
    ks_u64_keys k = keys_of(s);
    ks_u64_sought sought = {&k, line};
    uint32_t id;
    size_t slot;
    uint64_t hash = ks_u64_hash(line);
    if (ks_hash_find(&s->index, hash, ks_u64_equals, &sought, &id, &slot)) {
        ks_l2_line *n = &s->lines[id];
        if (n->where == RESIDENT) {
            if ((n->valid & mask) != mask)
                s->misses++;
            n->valid |= (uint8_t)mask;
            n->dirty = write ? (uint8_t)(n->dirty | mask) : n->dirty;
        } else {
            /* evicted since its last use: it comes back with these sectors */
            s->misses++;
            n->valid = (uint8_t)mask;
            n->dirty = write ? (uint8_t)mask : 0;
        }
        unlink_node(s, id);
        push_head(s, id, RESIDENT);
        settle(s);
        return KS_OK;
    }
    s->misses++;
    id = new_node(s);
    /* new_node may have dropped a line: the slot found above is stale */
    if (!ks_hash_find(&s->index, hash, ks_u64_equals, &sought, &(uint32_t){0}, &slot))
        ks_hash_put(&s->index, slot, id);
    ks_l2_line *n = &s->lines[id];
    n->line = line;
    n->valid = (uint8_t)mask;
    n->dirty = write ? (uint8_t)mask : 0;
    push_head(s, id, RESIDENT);
    settle(s);
    return KS_OK;
}

ks_status ks_l2_state_touch_range(ks_l2_state *s, uint64_t addr, uint64_t bytes, bool write,
                                  ks_error *err)
{
    if (bytes == 0)
        return KS_OK;
    uint64_t end = addr + bytes - 1 < addr ? UINT64_MAX : addr + bytes - 1;
    for (uint64_t line = addr / s->line_bytes; line <= end / s->line_bytes; line++) {
        uint64_t lo = line * s->line_bytes, hi = lo + s->line_bytes - 1;
        uint64_t a = addr > lo ? addr : lo, b = end < hi ? end : hi;
        unsigned mask = 0;
        for (uint64_t sec = (a - lo) / s->sector_bytes; sec <= (b - lo) / s->sector_bytes; sec++)
            mask |= 1u << sec;
        ks_status st = ks_l2_state_touch(s, line, mask, write, err);
        if (st != KS_OK)
            return st;
        if (line == UINT64_MAX / s->line_bytes)
            break;
    }
    return KS_OK;
}

const ks_l2_line *ks_l2_state_find(const ks_l2_state *s, uint64_t line)
{
    ks_u64_keys k = keys_of(s);
    uint32_t id;
    return ks_hash_get_u64(&s->index, &k, line, &id) ? &s->lines[id] : NULL;
}

const ks_l2_line *ks_l2_state_next(const ks_l2_state *s, uint32_t *cursor)
{
    uint32_t id;
    if (*cursor == NONE)
        id = s->tail[GHOST] != NONE ? s->tail[GHOST] : s->tail[RESIDENT];
    else {
        const ks_l2_line *n = &s->lines[*cursor];
        id = n->prev; /* toward the head: more recent */
        if (id == NONE && n->where == GHOST)
            id = s->tail[RESIDENT];
    }
    if (id == NONE)
        return NULL;
    *cursor = id;
    return &s->lines[id];
}
