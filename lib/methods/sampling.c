/*
 * sampling.c - what the duration-based methods share: invocations gathered by
 * group and sorted by duration (one counting pass plus an LSD radix sort, so
 * planning stays O(N) per level), cluster statistics over a sorted range, and
 * the draw of m members from a cluster.
 */
#include "sampling.h"
#include "sort.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void ks_members_free(ks_members *m)
{
    if (m->borrowed) {
        memset(m, 0, sizeof *m);
        return;
    }
    free(m->ids);
    free(m->values);
    free(m->offset);
    memset(m, 0, sizeof *m);
}

/* Stable LSD radix sort of packed (key << 32 | id) words on the key bits
 * only, up to 11 bits a pass over the bits the range needs, whose last pass
 * writes the group's ids and durations (base + key) straight to their
 * places.  Packing keeps each pass sequential in memory: sorting ids by
 * looking their durations up (key[ids[k]]) missed the cache on every element
 * and took 27 % of the planning time at 10 M invocations (bench/bench_sample).
 * A group of a few hundred takes narrower digits: clearing and summing 2048
 * counters three times per group was most of the sorting on 10 k-launch
 * traces.  `a` is the group's part of the values array (the words live
 * there until unpacked), so the last pass must read from tmp. */
static void radix_sort_unpack(uint64_t *a, uint64_t *tmp, size_t n, int key_bits, int64_t base,
                              uint32_t *ids, double *values)
{
    int bits = ks_radix_bits(n);
    /* the passes the key needs, with digits as even as they go: 14 bits
     * as 7 + 7 rather than 11 + 3 scatter into 128 places a pass instead
     * of 2048, which stay in the L1 cache */
    int passes = (key_bits + bits - 1) / bits;
    if (passes == 0) { /* one duration: launch order is sorted */
        for (size_t k = 0; k < n; k++)
            ids[k] = (uint32_t)a[k];
        for (size_t k = 0; k < n; k++) /* only after every word is read */
            values[k] = (double)base;
        return;
    }
    bits = (key_bits + passes - 1) / passes;
    /* a key range no wider than the group: one counting pass over 2^key_bits
     * places (13-bit durations in a 14 k group), not two radix passes */
    uint32_t *wide_count = NULL;
    if (passes > 1 && ((size_t)1 << key_bits) <= n &&
        (wide_count = malloc((((size_t)1 << key_bits) + 1) * sizeof *wide_count))) {
        passes = 1;
        bits = key_bits;
    }
    size_t buckets = (size_t)1 << bits, mask = buckets - 1;
    uint64_t *src = a, *dst = tmp;
    if (passes % 2) { /* so that the last pass reads tmp */
        memcpy(tmp, a, n * sizeof *a);
        src = tmp;
        dst = a;
    }
    int shift = 32;
    for (int pass = 0; pass + 1 < passes; pass++, shift += bits) {
        ks_radix_pass(src, dst, n, shift, mask);
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    /* the last pass (counts below 2^32: ids are uint32) unpacks */
    uint32_t small_count[(1 << KS_RADIX_MAX_BITS) + 1];
    uint32_t *count = wide_count ? wide_count : small_count;
    memset(count, 0, (buckets + 1) * sizeof *count);
    for (size_t k = 0; k < n; k++)
        count[((src[k] >> shift) & mask) + 1]++;
    for (size_t b = 0; b < buckets; b++)
        count[b + 1] += count[b];
    for (size_t k = 0; k < n; k++) {
        uint64_t w = src[k];
        size_t at = count[(w >> shift) & mask]++;
        ids[at] = (uint32_t)w;
        values[at] = (double)(base + (int64_t)(w >> 32));
    }
    free(wide_count);
}

/* Packed words are unique (the id is in them), so ordering them whole is
 * ordering by (duration, id): a stable sort of launch order by duration. */
static void insertion_sort_packed(uint64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* A group whose durations span 2^32 ns or more (4.3 s: rare) cannot pack its
 * key beside the id; its words hold the id alone until this sorts them. */
static ks_status sort_wide_group(const ks_profile *p, uint64_t *words, size_t n,
                                 ks_error *err)
{
    ks_key_index *kv = malloc(n * sizeof *kv);
    if (!kv)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < n; k++)
        kv[k] = (ks_key_index){p->duration_ns[(uint32_t)words[k]], (uint32_t)words[k]};
    ks_sort_key_index(kv, n);
    for (size_t k = 0; k < n; k++)
        words[k] = kv[k].index;
    free(kv);
    return KS_OK;
}

/* Each group's smallest duration and the bits its span needs (33: too wide
 * to pack), in one sequential pass over the launches. */
static ks_status group_spans(const ks_profile *p, const ks_groups *g, int64_t *lo, int *bits,
                             double *total_ns, ks_error *err)
{
    /* a group's ends side by side: one cache line a launch */
    struct span {
        int64_t lo, hi;
    } *span = malloc((g->count ? g->count : 1) * sizeof *span);
    if (!span)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t gi = 0; gi < g->count; gi++)
        span[gi] = (struct span){INT64_MAX, INT64_MIN};
    /* the profile's total too, summed as ks_profile_total_ns sums it (a
     * 128-bit integer sum: exact, so the same double) while the durations
     * pass by: its own pass was 8 % of a plan at 85 k launches */
    __int128 total = 0;
    const int64_t *duration = p->duration_ns;
    const uint32_t *group_of = g->group_of;
    for (size_t i = 0, n = p->n; i < n; i++) {
        struct span *sp = &span[group_of[i]];
        int64_t d = duration[i];
        sp->lo = d < sp->lo ? d : sp->lo;
        sp->hi = d > sp->hi ? d : sp->hi;
        total += d;
    }
    *total_ns = (double)total;
    for (size_t gi = 0; gi < g->count; gi++) {
        lo[gi] = span[gi].lo;
        uint64_t range = g->size[gi] ? (uint64_t)(span[gi].hi - span[gi].lo) : 0;
        int b = 0;
        while (b < 33 && (range >> b))
            b++;
        bits[gi] = b;
    }
    free(span);
    return KS_OK;
}

typedef struct scatter_group {
    int64_t lo;    /* the group's smallest duration */
    uint64_t mask; /* of the packed key: 0 for a wide group */
    size_t fill;   /* where its next word goes */
} scatter_group;

/* 2 MiB: the x86-64 huge page. */
enum { HUGE_PAGE = 2 << 20 };

/* malloc, with transparent huge pages asked for a large block: the members
 * are written once in scattered order, and first-touch faults on 4 KiB pages
 * were a fifth of the planning CPU at 10 M launches.  Kernels without them
 * refuse the advice, which is harmless. */
static void *members_alloc(size_t bytes)
{
    void *q = malloc(bytes ? bytes : 1);
#ifdef MADV_HUGEPAGE
    if (q && bytes >= 2 * (size_t)HUGE_PAGE) {
        uintptr_t lo = ((uintptr_t)q + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t hi = ((uintptr_t)q + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return q;
}

/*
 * One scatter of packed (duration - group minimum) << 32 | id words into
 * their groups' ranges (launch order within each), a sort of each range, and
 * one sequential pass that unpacks ids and durations.  Looking durations up
 * by id (duration[ids[k]]) in separate gather, pack and fill passes missed
 * the cache on every launch and was most of the members' cost at 10 M.  The
 * packed words live in the array that becomes `values` (8 bytes a launch
 * either way).
 */
ks_status ks_members_build(const ks_profile *p, const ks_groups *g, ks_members *out,
                           ks_error *err)
{
    memset(out, 0, sizeof *out);
    out->count = g->count;
    size_t gk = g->count ? g->count : 1, n = p->n ? p->n : 1;
    out->ids = members_alloc(n * sizeof *out->ids);
    out->offset = calloc(g->count + 1, sizeof *out->offset);
    out->values = members_alloc(n * sizeof *out->values);
    int64_t *lo = malloc(gk * sizeof *lo);
    int *bits = malloc(gk * sizeof *bits);
    uint64_t *tmp = NULL;
    ks_status st = KS_OK;
    if (!out->ids || !out->offset || !out->values || !lo || !bits) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    if ((st = group_spans(p, g, lo, bits, &out->total_ns, err)) != KS_OK)
        goto done;
    size_t largest = 1;
    for (size_t gi = 0; gi < g->count; gi++) {
        out->offset[gi + 1] = out->offset[gi] + g->size[gi];
        largest = g->size[gi] > largest ? g->size[gi] : largest;
    }
    /* a group's place, minimum and key mask side by side (one cache line
     * a launch), and the columns in locals: through p and g the compiler
     * reloaded them after every store of a word.  A wide group packs no key
     * (sort_wide_group sorts it). */
    scatter_group *sg = malloc(gk * sizeof *sg);
    if (!sg) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < g->count; gi++)
        sg[gi] = (scatter_group){lo[gi], bits[gi] > 32 ? 0 : UINT32_MAX, out->offset[gi]};
    uint64_t *words = (uint64_t *)out->values;
    const int64_t *duration = p->duration_ns;
    const uint32_t *group_of = g->group_of;
    for (size_t i = 0, count = p->n; i < count; i++) {
        scatter_group *to = &sg[group_of[i]];
        words[to->fill++] = ((uint64_t)(duration[i] - to->lo) & to->mask) << 32 | i;
    }
    free(sg);
    if (!(tmp = malloc(largest * sizeof *tmp))) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    uint32_t *ids = out->ids;
    double *values = out->values;
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        size_t from = out->offset[gi], to = out->offset[gi + 1];
        uint64_t *group_words = words + from;
        int64_t base = lo[gi];
        if (bits[gi] > 32) {
            st = sort_wide_group(p, group_words, g->size[gi], err);
        } else if (g->size[gi] >= 64) {
            radix_sort_unpack(group_words, tmp, g->size[gi], bits[gi], base, ids + from, values + from);
            continue;
        } else {
            insertion_sort_packed(group_words, g->size[gi]);
        }
        if (st != KS_OK)
            break;
        if (bits[gi] > 32) {
            for (size_t k = from; k < to; k++) {
                uint32_t id = (uint32_t)words[k];
                ids[k] = id;
                values[k] = (double)duration[id];
            }
            continue;
        }
        for (size_t k = from; k < to; k++) {
            uint64_t w = words[k];
            ids[k] = (uint32_t)w;
            values[k] = (double)(base + (int64_t)(w >> 32));
        }
    }
done:
    free(lo);
    free(bits);
    free(tmp);
    if (st != KS_OK)
        ks_members_free(out);
    return st;
}

/* The sum of sorted integer-valued v, exactly as a long double running sum
 * gives it.  Where every partial sum stays below 2^53 in magnitude (checked
 * on the ends, which bound |v|), doubles add integers exactly in any order,
 * so four running sums in doubles give the same exact value without the x87
 * chain: the first pass of the statistics was a sixth of --allocation
 * paper's plan at 85 k launches. */
static long double range_sum(const double *v, size_t n)
{
    double big = fabs(v[0]) > fabs(v[n - 1]) ? fabs(v[0]) : fabs(v[n - 1]);
    if (!(big * (double)n < 0x1p53)) {
        long double sum = 0;
        for (size_t k = 0; k < n; k++)
            sum += v[k];
        return sum;
    }
    double a[4] = {0, 0, 0, 0};
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        a[0] += v[k];
        a[1] += v[k + 1];
        a[2] += v[k + 2];
        a[3] += v[k + 3];
    }
    for (; k < n; k++)
        a[0] += v[k];
    return (long double)((a[0] + a[1]) + (a[2] + a[3]));
}

/* What the sums leave to the statistics: mean, both deviations, ends. */
static void range_finish(const ks_profile *p, const uint32_t *ids, size_t n, long double mean,
                         long double sq, ks_range_stat *s)
{
    s->mean = (double)mean;
    s->std = (double)sqrtl(sq / n);
    s->sample_std = n > 1 ? (double)sqrtl(sq / (n - 1)) : 0.0;
    s->min = p->duration_ns[ids[0]];
    s->max = p->duration_ns[ids[n - 1]];
    /* sorted input: equal ends mean zero spread exactly, whatever rounding said */
    if (s->min == s->max) {
        s->std = 0;
        s->sample_std = 0;
    }
}

void ks_range_stats(const ks_profile *p, const uint32_t *ids, const double *v, size_t n,
                    ks_range_stat *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n == 0)
        return;
    long double mean = range_sum(v, n) / n, sq = 0;
    for (size_t k = 0; k < n; k++) {
        long double d = v[k] - mean;
        sq += d * d;
    }
    range_finish(p, ids, n, mean, sq, s);
}

/* Each sum of squares is one chain of x87 additions in launch order (the
 * order fixes its rounding), so one range waits on the adder's latency; two
 * ranges' chains side by side fill those waits.  Each chain adds the same
 * terms in the same order as ks_range_stats. */
void ks_range_stats_pair(const ks_profile *p, const uint32_t *ids0, const double *v0, size_t n0,
                         const uint32_t *ids1, const double *v1, size_t n1, ks_range_stat *s0,
                         ks_range_stat *s1)
{
    if (n0 == 0 || n1 == 0) {
        ks_range_stats(p, ids0, v0, n0, s0);
        ks_range_stats(p, ids1, v1, n1, s1);
        return;
    }
    memset(s0, 0, sizeof *s0);
    memset(s1, 0, sizeof *s1);
    s0->n = n0;
    s1->n = n1;
    long double mean0 = range_sum(v0, n0) / n0, mean1 = range_sum(v1, n1) / n1;
    long double sq0 = 0, sq1 = 0;
    size_t both = n0 < n1 ? n0 : n1, k = 0;
    for (; k < both; k++) {
        long double d0 = v0[k] - mean0, d1 = v1[k] - mean1;
        sq0 += d0 * d0;
        sq1 += d1 * d1;
    }
    for (size_t j = k; j < n0; j++) {
        long double d = v0[j] - mean0;
        sq0 += d * d;
    }
    for (size_t j = k; j < n1; j++) {
        long double d = v1[j] - mean1;
        sq1 += d * d;
    }
    range_finish(p, ids0, n0, mean0, sq0, s0);
    range_finish(p, ids1, n1, mean1, sq1, s1);
}

/* Above this many draws from a smaller set, repeats are counted per member
 * rather than listed one by one: the same draws from the generator, memory
 * proportional to the set instead of to m (up to KS_MAX_DRAWS). */
enum { DRAWS_LISTED = 1 << 20 };

static ks_status draw_counted(ks_plan *plan, ks_rng *rng, const uint32_t *ids, size_t n,
                              uint64_t m, double weight, uint32_t cluster, ks_error *err)
{
    uint64_t *count = calloc(n, sizeof *count);
    if (!count)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (uint64_t k = 0; k < m; k++)
        count[ks_rng_below(rng, n)]++;
    ks_status st = KS_OK;
    for (size_t k = 0; k < n && st == KS_OK; k++) {
        if (!count[k])
            continue;
        st = ks_plan_add_sample(plan, ids[k], weight * (double)count[k], cluster, err);
        plan->draws += count[k] - 1;
    }
    free(count);
    return st;
}

/* Draws of at most this many from a set 16 times larger are made without
 * copying the set (draw_sparse). */
enum { SPARSE_DRAWS = 256 };

/*
 * The partial Fisher-Yates of ks_draw, the same draws in the same order,
 * with the positions it has moved kept in a small table instead of a copy of
 * all n ids: copying every member of a 14 k-launch stratum to draw a few of
 * them was most of a plan's draws at 85 k launches.  Step k swaps positions
 * k and j >= k and emits what was at j; position k is never read again, so
 * only j's new content (what was at k) needs keeping.
 */
static ks_status draw_sparse(ks_plan *plan, ks_rng *rng, const uint32_t *ids, size_t n,
                             uint64_t m, double weight, uint32_t cluster, ks_error *err)
{
    /* at most m positions moved: the table at most a quarter full */
    int lg = 4;
    while (((uint64_t)1 << lg) < 4 * m)
        lg++;
    size_t mask = ((size_t)1 << lg) - 1;
    struct {
        uint64_t at_plus_one; /* 0: empty */
        uint32_t id;
    } slot[4 * SPARSE_DRAWS];
    memset(slot, 0, (mask + 1) * sizeof slot[0]);
    ks_status st = KS_OK;
    for (uint64_t k = 0; k < m && st == KS_OK; k++) {
        uint64_t j = k + ks_rng_below(rng, n - k);
        /* what is at k now (k was filled when an earlier step chose j = k) */
        uint32_t at_k = ids[k], at_j = ids[j];
        size_t sk = (size_t)(k * 0x9e3779b97f4a7c15ULL >> (64 - lg));
        while (slot[sk].at_plus_one && slot[sk].at_plus_one != k + 1)
            sk = (sk + 1) & mask;
        if (slot[sk].at_plus_one)
            at_k = slot[sk].id;
        size_t sj = (size_t)(j * 0x9e3779b97f4a7c15ULL >> (64 - lg));
        while (slot[sj].at_plus_one && slot[sj].at_plus_one != j + 1)
            sj = (sj + 1) & mask;
        if (slot[sj].at_plus_one)
            at_j = slot[sj].id;
        slot[sj].at_plus_one = j + 1;
        slot[sj].id = at_k;
        st = ks_plan_add_sample(plan, at_j, weight, cluster, err);
    }
    return st;
}

ks_status ks_draw(ks_plan *plan, ks_rng *rng, const uint32_t *ids, size_t n, uint64_t m,
                  ks_draw_mode mode, uint32_t cluster, uint32_t *scratch, ks_error *err)
{
    ks_status st = KS_OK;
    if (m == 0 || n == 0)
        return KS_OK;
    bool with_replacement = mode != KS_DRAW_WITHOUT_REPLACEMENT;
    if (m >= n && mode != KS_DRAW_ALWAYS_REPLACEMENT) {
        for (size_t k = 0; k < n && st == KS_OK; k++)
            st = ks_plan_add_sample(plan, ids[k], 1.0, cluster, err);
        return st;
    }
    double weight = (double)n / (double)m;
    if (with_replacement && m > DRAWS_LISTED && m > n)
        return draw_counted(plan, rng, ids, n, m, weight, cluster, err);
    if (with_replacement) {
        for (uint64_t k = 0; k < m && st == KS_OK; k++)
            st = ks_plan_add_sample(plan, ids[ks_rng_below(rng, n)], weight, cluster, err);
        return st;
    }
    if (m <= SPARSE_DRAWS && m * 16 <= n)
        return draw_sparse(plan, rng, ids, n, m, weight, cluster, err);
    /* partial Fisher-Yates over a copy: m distinct members, uniformly */
    memcpy(scratch, ids, n * sizeof *scratch);
    for (uint64_t k = 0; k < m && st == KS_OK; k++) {
        uint64_t j = k + ks_rng_below(rng, n - k);
        uint32_t t = scratch[k];
        scratch[k] = scratch[j];
        scratch[j] = t;
        st = ks_plan_add_sample(plan, scratch[k], weight, cluster, err);
    }
    return st;
}

ks_status ks_plan_set_groups(ks_plan *plan, const ks_groups *g, ks_error *err)
{
    plan->group_labels = calloc(g->count ? g->count : 1, sizeof *plan->group_labels);
    if (!plan->group_labels)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    plan->group_count = g->count;
    for (size_t i = 0; i < g->count; i++) {
        plan->group_labels[i] = strdup(g->labels[i]);
        if (!plan->group_labels[i])
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    return KS_OK;
}

uint64_t ks_stem_single_size(const ks_range_stat *s, double epsilon, double z)
{
    if (s->std <= 0.0 || s->n <= 1)
        return 1;
    if (s->mean <= 0.0)
        return s->n;
    double r = z * s->std / (epsilon * s->mean);
    return ks_round_sample_size(r * r, s->n);
}

void ks_members_share(const ks_members *src, ks_members *dst)
{
    *dst = *src;
    dst->borrowed = true;
}

size_t ks_groups_largest(const ks_groups *g)
{
    size_t largest = 1;
    for (size_t gi = 0; gi < g->count; gi++)
        largest = g->size[gi] > largest ? g->size[gi] : largest;
    return largest;
}
