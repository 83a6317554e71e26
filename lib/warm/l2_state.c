/*
 * l2_state.c - the cache model of the warm state: a sectored, set
 * associative LRU cache of whole lines, and behind it every line used
 * lately, in the order of its last use (warm.h).
 *
 * Why this shape.  For an LRU cache the contents after a history depend
 * only on the order of each line's LAST use (No-State-Loss warm-up, Van
 * Ertvelde, Hellebaut and Eeckhout, ANSS 2006): replaying every line once,
 * oldest last use first, leaves any LRU set-associative cache exactly as the
 * history did, whatever its set mapping.  So the simulator's own L2 decides
 * which lines survive a replay of all held lines; the model has to give (1)
 * the lines in order of last use, cut where older ones cannot survive, and
 * (2) which sectors of each are valid.  (2) is where the model matters:
 * GPGPU-Sim's L2 allocates the four 32-byte sectors of a 128-byte line
 * separately and drops them all when the line is evicted, so a line fetched
 * again after an eviction holds only what was touched since.  Whether a line
 * was evicted depends on its set: a line used 0.8 L2 capacities ago is gone
 * when 16 newer lines fell in its set, and in a 16-way L2 that is common (on
 * the RTX 3070, a histogram launch whose keys were last read 25-32 k lines
 * earlier missed 124 sectors in the full run that a fully associative model
 * called resident: docs/bench.md).  The simulator's own set mapping (address
 * decoding into sub-partitions, then a hashed set index) is not modelled;
 * the sets here are the L2's total lines / ways, indexed by an XOR fold of
 * the line address (set_of), which gives about the same conflicts.  The lines a
 * model set evicts stay held (a "ghost") with the sectors they had, since
 * under the real mapping some of them are still there.
 *
 * Memory: `keep` nodes of 32 bytes, a table of 4 x keep slots, and the sets
 * (4 bytes a way).  Every operation is O(ways).
 */
#include "hash.h"
#include "warm.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static ks_u64_keys keys_of(const ks_l2_state *s)
{
    return (ks_u64_keys){s->lines, sizeof *s->lines, offsetof(ks_l2_line, line)};
}

ks_status ks_l2_state_init(ks_l2_state *s, size_t capacity, size_t keep, uint32_t ways,
                           uint32_t line_bytes, uint32_t sector_bytes, ks_error *err)
{
    memset(s, 0, sizeof *s);
    if (capacity == 0 || keep < capacity || keep >= UINT32_MAX / 4 || ways == 0 ||
        ways > 4096)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "warm state: a cache model of %zu lines in %u ways holding %zu "
                            "recent lines (--state-cut x the L2 from --sim-config, --config, "
                            "--params or --l2-size) is out of range",
                            capacity, ways, keep);
    if (line_bytes == 0 || sector_bytes == 0 || line_bytes % sector_bytes != 0 ||
        line_bytes / sector_bytes > 8 || (line_bytes & (line_bytes - 1)) != 0 ||
        (sector_bytes & (sector_bytes - 1)) != 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "cache model: lines of %u bytes in sectors of %u bytes (powers of "
                            "two, at most 8 sectors a line)",
                            line_bytes, sector_bytes);
    if (ways > capacity)
        ways = (uint32_t)capacity;
    s->line_bytes = line_bytes;
    s->sector_bytes = sector_bytes;
    s->sectors_per_line = line_bytes / sector_bytes;
    s->ways = ways;
    s->sets = capacity / ways;
    s->capacity = s->sets * ways;
    s->keep = keep;
    s->free_head = NONE;
    s->head = s->tail = NONE;
    if (!(s->lines = malloc(keep * sizeof *s->lines)) ||
        !(s->way = malloc(s->sets * ways * sizeof *s->way))) {
        ks_l2_state_free(s);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < s->sets * ways; i++)
        s->way[i] = NONE;
    ks_u64_keys k = keys_of(s);
    /* sized once for every node: the table never grows or rehashes */
    ks_status st = ks_hash_reserve(&s->index, keep + 1, ks_u64_hash_of, &k, err);
    if (st != KS_OK)
        ks_l2_state_free(s);
    return st;
}

void ks_l2_state_clear(ks_l2_state *s)
{
    s->used = s->held = s->fresh = 0;
    s->free_head = s->head = s->tail = NONE;
    for (size_t i = 0; i < s->sets * s->ways; i++)
        s->way[i] = NONE;
    ks_hash_clear(&s->index);
}

void ks_l2_state_free(ks_l2_state *s)
{
    free(s->lines);
    free(s->way);
    ks_hash_free(&s->index);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------ the recency list */

static void unlink_node(ks_l2_state *s, uint32_t id)
{
    ks_l2_line *n = &s->lines[id];
    if (n->prev != NONE)
        s->lines[n->prev].next = n->next;
    else
        s->head = n->next;
    if (n->next != NONE)
        s->lines[n->next].prev = n->prev;
    else
        s->tail = n->prev;
    s->held--;
    n->prev = n->next = NONE;
}

static void push_head(ks_l2_state *s, uint32_t id)
{
    ks_l2_line *n = &s->lines[id];
    n->prev = NONE;
    n->next = s->head;
    if (s->head != NONE)
        s->lines[s->head].prev = id;
    else
        s->tail = id;
    s->head = id;
    s->held++;
}

/* ------------------------------------------------------- the sets */

/* The set of a line: the line address's bits folded by XOR into the set
 * index's width.  Consecutive lines land in distinct sets, as in a real L2
 * (GPGPU-Sim's IPOLY index, hardware's XOR hashes), and power-of-two
 * strides spread out; a random hash would pile lines up by chance (Poisson
 * occupancy) and evict lines that the simulator keeps (transpose launches
 * on the RTX 3070: 1.10 of the full run with a random hash). */
static uint32_t *set_of(const ks_l2_state *s, uint64_t line)
{
    uint64_t idx = 0;
    if (s->set_index == KS_SET_LINEAR)
        idx = line % s->sets;
    else if (s->set_index == KS_SET_TILED && s->tiles > 1 && s->sets % s->tiles == 0)
        idx = line % s->tiles * (s->sets / s->tiles) + line / s->tiles % (s->sets / s->tiles);
    else if ((s->sets & (s->sets - 1)) == 0) {
        unsigned bits = (unsigned)__builtin_ctzll(s->sets);
        for (uint64_t x = line; x && bits; x >>= bits)
            idx ^= x & (s->sets - 1);
    } else
        idx = (line ^ line >> 13 ^ line >> 29) % s->sets;
    return s->way + idx * s->ways;
}

/* Takes id out of its model set (it was resident). */
static void set_remove(ks_l2_state *s, uint32_t id)
{
    uint32_t *set = set_of(s, s->lines[id].line);
    uint32_t w = 0;
    while (w < s->ways && set[w] != id)
        w++;
    if (w == s->ways)
        return;
    memmove(set + w, set + w + 1, (s->ways - w - 1) * sizeof *set);
    set[s->ways - 1] = NONE;
    s->lines[id].resident = 0;
}

/* id most recent in its set; the set's least recent line, when the set was
 * full, becomes a ghost (held, not resident). */
static void set_touch(ks_l2_state *s, uint32_t id)
{
    uint32_t *set = set_of(s, s->lines[id].line);
    uint32_t w = 0;
    while (w < s->ways && set[w] != id && set[w] != NONE)
        w++;
    if (w == s->ways) {
        w = s->ways - 1;
        s->lines[set[w]].resident = 0;
    }
    memmove(set + 1, set, w * sizeof *set);
    set[0] = id;
    s->lines[id].resident = 1;
}

/* ------------------------------------------------------- the nodes */

static void drop(ks_l2_state *s, uint32_t id)
{
    if (s->lines[id].fresh)
        s->fresh--;
    if (s->lines[id].resident)
        set_remove(s, id);
    ks_u64_keys k = keys_of(s);
    ks_u64_sought sought = {&k, s->lines[id].line};
    ks_hash_remove(&s->index, ks_u64_hash(s->lines[id].line), ks_u64_equals, &sought,
                   ks_u64_hash_of, &k);
    unlink_node(s, id);
    s->lines[id].next = s->free_head;
    s->free_head = id;
}

static uint32_t new_node(ks_l2_state *s)
{
    if (s->free_head == NONE && s->used < s->keep)
        return (uint32_t)s->used++;
    if (s->free_head == NONE)
        drop(s, s->tail); /* everything held: the least recent line goes */
    uint32_t id = s->free_head;
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
        if (n->resident) {
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
        if (!n->fresh) {
            n->fresh = 1;
            s->fresh++;
        }
        unlink_node(s, id);
        push_head(s, id);
        set_touch(s, id);
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
    n->resident = 0;
    n->fresh = 1;
    s->fresh++;
    push_head(s, id);
    set_touch(s, id);
    return KS_OK;
}

void ks_l2_state_age(ks_l2_state *s)
{
    for (uint32_t id = s->head; id != NONE; id = s->lines[id].next)
        s->lines[id].fresh = 0;
    s->fresh = 0;
}

ks_status ks_l2_state_touch_range(ks_l2_state *s, uint64_t addr, uint64_t bytes, bool write,
                                  ks_error *err)
{
    if (bytes == 0)
        return KS_OK;
    uint64_t end = addr + bytes - 1 < addr ? UINT64_MAX : addr + bytes - 1;
    /* of a range longer than the lines the model holds (a MemcpyHtoD of
     * 2^64 - 1 bytes), only its last `keep` lines can still be held at its
     * end: the rest would be touched only to be pushed out again */
    uint64_t first = addr / s->line_bytes, last = end / s->line_bytes;
    if (last - first >= (uint64_t)s->keep)
        addr = (last - (uint64_t)s->keep + 1) * s->line_bytes;
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
    uint32_t id = *cursor == NONE ? s->tail : s->lines[*cursor].prev;
    if (id == NONE)
        return NULL;
    *cursor = id;
    return &s->lines[id];
}

size_t ks_l2_state_dirty_lines(const ks_l2_state *s)
{
    size_t n = 0;
    uint32_t cursor = NONE;
    const ks_l2_line *l;
    while ((l = ks_l2_state_next(s, &cursor)))
        n += l->valid && l->dirty;
    return n;
}

ks_status ks_l2_state_kernel_span(const ks_l2_state *s, const ks_line_set *footprint,
                                  uint32_t margin, ks_split_span *span, ks_error *err)
{
    memset(span, 0, sizeof *span);
    if (!s->held || !footprint || !footprint->count)
        return KS_OK;
    uint32_t *pos = malloc(s->used * sizeof *pos);
    uint32_t *misses = calloc(s->sets, sizeof *misses);
    if (!pos || !misses) {
        free(pos);
        free(misses);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    uint32_t p = 0;
    for (uint32_t id = s->tail; id != NONE; id = s->lines[id].prev)
        pos[id] = p++;
    /* the launch's lines the model does not hold resident: each takes a way
     * of its set, a free one first */
    for (size_t k = 0; k < footprint->count; k++) {
        const ks_l2_line *l = ks_l2_state_find(s, footprint->lines[k]);
        if (!l || !l->resident) {
            misses[(size_t)(set_of(s, footprint->lines[k]) - s->way) / s->ways]++;
            span->misses++;
        }
    }
    /* in a set that overflows, its least recent lines, as many as it
     * overflows by (evicted in the model) and `margin` more, are within
     * reach */
    bool any = false;
    size_t horizon = 0;
    for (size_t set = 0; set < s->sets; set++) {
        if (!misses[set])
            continue;
        const uint32_t *w = s->way + set * s->ways;
        uint32_t r = 0;
        while (r < s->ways && w[r] != NONE)
            r++;
        uint32_t free_ways = s->ways - r;
        if (misses[set] <= free_ways)
            continue;
        uint64_t over = (uint64_t)misses[set] - free_ways, e = over + margin;
        for (uint32_t k = 0; k < e && k < r; k++) {
            const ks_l2_line *l = &s->lines[w[r - 1 - k]];
            if (k < over) {
                span->evicted++;
                span->evicted_dirty += l->valid && l->dirty;
            }
            size_t at = pos[w[r - 1 - k]];
            if (!any || at > horizon)
                horizon = at;
            any = true;
        }
    }
    if (any) {
        /* the oldest dirty line within reach (a ghost too: the simulator's
         * own sets may still hold it) */
        size_t at = 0;
        for (uint32_t id = s->tail; id != NONE && at <= horizon; id = s->lines[id].prev, at++)
            if (s->lines[id].valid && s->lines[id].dirty) {
                span->from = at;
                span->to = horizon + 1;
                break;
            }
        span->reach = horizon + 1;
    }
    free(pos);
    free(misses);
    return KS_OK;
}

ks_status ks_l2_state_split_marks(const ks_l2_state *s, const ks_line_set *footprint,
                                  uint32_t margin,
                                  uint32_t (*set_fn)(const void *ctx, uint64_t line),
                                  const void *set_ctx, uint32_t sets, bool copies_after,
                                  unsigned char *marks, size_t *kernel_lines, ks_error *err)
{
    *kernel_lines = 0;
    if (s->used)
        memset(marks, KS_SPLIT_BEFORE, s->used);
    if (!s->held || !footprint || !footprint->count || !sets)
        return KS_OK;
    uint32_t *pos = malloc(s->used * sizeof *pos), *set = malloc(s->used * sizeof *set);
    uint32_t *rank = malloc(s->used * sizeof *rank);
    unsigned char *touched = calloc(s->used, 1);
    uint32_t *count = calloc(sets, sizeof *count), *misses = calloc(sets, sizeof *misses);
    uint32_t *floor_rank = malloc(sets * sizeof *floor_rank);
    uint32_t *from = malloc(sets * sizeof *from);
    uint32_t *slot = malloc((size_t)sets * s->ways * sizeof *slot);
    ks_status st = KS_OK;
    if (!pos || !set || !rank || !touched || !count || !misses || !floor_rank || !from ||
        !slot) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    uint32_t p = 0;
    for (uint32_t id = s->tail; id != NONE; id = s->lines[id].prev)
        pos[id] = p++;
    /* youngest first: a line's rank in its set, 0 the youngest; the
     * replay leaves the ranks below `ways` (slot: the set's id by rank) */
    for (uint32_t id = s->head; id != NONE; id = s->lines[id].next) {
        uint32_t k = set_fn(set_ctx, s->lines[id].line);
        if (k >= sets) {
            st = ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "a set %u of %u", k, sets);
            goto done;
        }
        set[id] = k;
        rank[id] = count[k]++;
        if (rank[id] < s->ways)
            slot[(size_t)k * s->ways + rank[id]] = id;
    }
    ks_u64_keys keys = keys_of(s);
    for (size_t k = 0; k < footprint->count; k++) {
        uint64_t line = footprint->lines[k];
        uint32_t id;
        bool held = ks_hash_get_u64(&s->index, &keys, line, &id);
        if (held)
            touched[id] = 1;
        if (!held || rank[id] >= s->ways) {
            uint32_t q = set_fn(set_ctx, line);
            if (q < sets)
                misses[q]++;
        }
    }
    /* in an overflowing set, the misses evict its least recent lines that
     * the launch does not touch (a line it hits becomes the most recent),
     * as many as they overflow it by, and `margin` more: the ranks from
     * floor_rank up are within reach */
    for (uint32_t q = 0; q < sets; q++) {
        uint32_t held = count[q] < s->ways ? count[q] : s->ways;
        uint32_t free_ways = s->ways - held;
        from[q] = NONE;
        floor_rank[q] = NONE;
        if (misses[q] <= free_ways)
            continue;
        uint64_t e = (uint64_t)misses[q] - free_ways + margin, n = 0;
        uint32_t r = held;
        while (r > 0 && n < e)
            n += !touched[slot[(size_t)q * s->ways + --r]];
        floor_rank[q] = r;
    }
    /* in a set whose reach holds a dirty line the launch does not touch,
     * from[q]: the position of the oldest such line */
    for (uint32_t id = s->head; id != NONE; id = s->lines[id].next) {
        uint32_t q = set[id];
        const ks_l2_line *l = &s->lines[id];
        if (floor_rank[q] != NONE && rank[id] >= floor_rank[q] && rank[id] < s->ways &&
            !touched[id] && l->valid && l->dirty && (from[q] == NONE || pos[id] < from[q]))
            from[q] = pos[id];
    }
    if (copies_after) {
        /* where the simulator applies copies after a kernel once it has
         * ended: in such a set, the lines in reach older than that dirty
         * line are copies before; the untouched dirty ones in reach are
         * copies before too, which the kernel then stores; every younger
         * line of the set is a copy after the kernel.  The misses evict the
         * lines in reach and write back the dirty ones, early among them
         * (the full run interleaves them with the clean ones; stored last,
         * after the clean ones were copied, they came out last, and on the
         * large workload the launches ran 1-3 % fast: docs/bench.md) */
        for (uint32_t id = s->head; id != NONE; id = s->lines[id].next) {
            uint32_t q = set[id];
            const ks_l2_line *l = &s->lines[id];
            if (from[q] == NONE)
                continue;
            if (rank[id] < s->ways && rank[id] >= floor_rank[q] && !touched[id] && l->valid &&
                l->dirty) {
                marks[pos[id]] = KS_SPLIT_BEFORE | KS_SPLIT_STORE;
                (*kernel_lines)++;
            } else if (pos[id] > from[q])
                marks[pos[id]] = KS_SPLIT_AFTER;
        }
        goto done;
    }
    /* else the kernel loads, in order, from the oldest dirty line in reach
     * that the launch does not touch to the set's youngest */
    for (uint32_t id = s->head; id != NONE; id = s->lines[id].next)
        if (from[set[id]] != NONE && pos[id] >= from[set[id]]) {
            marks[pos[id]] = KS_SPLIT_KERNEL;
            *kernel_lines += s->lines[id].valid != 0;
        }
done:
    free(pos);
    free(set);
    free(rank);
    free(touched);
    free(count);
    free(misses);
    free(floor_rank);
    free(from);
    free(slot);
    return st;
}
