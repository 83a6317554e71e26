/*
 * sampling.c - what the duration-based methods share: invocations gathered by
 * group and sorted by duration (one counting pass plus an LSD radix sort, so
 * planning stays O(N) per level), cluster statistics over a sorted range, and
 * the draw of m members from a cluster.
 */
#include "sampling.h"

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
 * only, up to 11 bits a pass over the bits the range needs.  Packing keeps
 * each pass sequential in memory: sorting ids by looking their durations up
 * (key[ids[k]]) missed the cache on every element and took 27 % of the
 * planning time at 10 M invocations (bench/bench_sample).  A group of a few
 * hundred takes narrower digits: clearing and summing 2048 counters three
 * times per group was most of the sorting on 10 k-launch traces. */
static void radix_sort_packed(uint64_t *a, uint64_t *tmp, size_t n, int key_bits)
{
    enum { MAX_BITS = 11 };
    int bits = 4;
    while (bits < MAX_BITS && ((size_t)2 << bits) <= n)
        bits++;
    size_t buckets = (size_t)1 << bits, mask = buckets - 1;
    uint64_t *src = a, *dst = tmp;
    for (int shift = 32; shift < 32 + key_bits; shift += bits) {
        size_t count[(1 << MAX_BITS) + 1];
        memset(count, 0, (buckets + 1) * sizeof *count);
        for (size_t k = 0; k < n; k++)
            count[((src[k] >> shift) & mask) + 1]++;
        for (size_t b = 0; b < buckets; b++)
            count[b + 1] += count[b];
        for (size_t k = 0; k < n; k++)
            dst[count[(src[k] >> shift) & mask]++] = src[k];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

typedef struct key_id {
    int64_t key;
    uint32_t id;
} key_id;

static int cmp_key_id(const void *x, const void *y)
{
    const key_id *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->id < b->id ? -1 : (a->id > b->id);
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
    key_id *kv = malloc(n * sizeof *kv);
    if (!kv)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < n; k++)
        kv[k] = (key_id){p->duration_ns[(uint32_t)words[k]], (uint32_t)words[k]};
    qsort(kv, n, sizeof *kv, cmp_key_id);
    for (size_t k = 0; k < n; k++)
        words[k] = kv[k].id;
    free(kv);
    return KS_OK;
}

/* Each group's smallest duration and the bits its span needs (33: too wide
 * to pack), in one sequential pass over the launches. */
static ks_status group_spans(const ks_profile *p, const ks_groups *g, int64_t *lo, int *bits,
                             ks_error *err)
{
    int64_t *hi = malloc((g->count ? g->count : 1) * sizeof *hi);
    if (!hi)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t gi = 0; gi < g->count; gi++) {
        lo[gi] = INT64_MAX;
        hi[gi] = INT64_MIN;
    }
    for (size_t i = 0; i < p->n; i++) {
        uint32_t gi = g->group_of[i];
        int64_t d = p->duration_ns[i];
        lo[gi] = d < lo[gi] ? d : lo[gi];
        hi[gi] = d > hi[gi] ? d : hi[gi];
    }
    for (size_t gi = 0; gi < g->count; gi++) {
        uint64_t range = g->size[gi] ? (uint64_t)(hi[gi] - lo[gi]) : 0;
        int b = 0;
        while (b < 33 && (range >> b))
            b++;
        bits[gi] = b;
    }
    free(hi);
    return KS_OK;
}

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
    size_t *fill = malloc(gk * sizeof *fill);
    int64_t *lo = malloc(gk * sizeof *lo);
    int *bits = malloc(gk * sizeof *bits);
    uint64_t *tmp = NULL;
    ks_status st = KS_OK;
    if (!out->ids || !out->offset || !out->values || !fill || !lo || !bits) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    if ((st = group_spans(p, g, lo, bits, err)) != KS_OK)
        goto done;
    size_t largest = 1;
    for (size_t gi = 0; gi < g->count; gi++) {
        out->offset[gi + 1] = out->offset[gi] + g->size[gi];
        largest = g->size[gi] > largest ? g->size[gi] : largest;
    }
    memcpy(fill, out->offset, g->count * sizeof *fill);
    uint64_t *words = (uint64_t *)out->values;
    for (size_t i = 0; i < p->n; i++) {
        uint32_t gi = g->group_of[i];
        uint64_t key = bits[gi] > 32 ? 0 : (uint64_t)(p->duration_ns[i] - lo[gi]);
        words[fill[gi]++] = key << 32 | i;
    }
    if (!(tmp = malloc(largest * sizeof *tmp))) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        uint64_t *w = words + out->offset[gi];
        if (bits[gi] > 32)
            st = sort_wide_group(p, w, g->size[gi], err);
        else if (g->size[gi] < 64)
            insertion_sort_packed(w, g->size[gi]);
        else
            radix_sort_packed(w, tmp, g->size[gi], bits[gi]);
    }
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        for (size_t k = out->offset[gi]; k < out->offset[gi + 1]; k++) {
            uint64_t w = words[k];
            uint32_t id = (uint32_t)w;
            out->ids[k] = id;
            out->values[k] = bits[gi] > 32 ? (double)p->duration_ns[id]
                                           : (double)(lo[gi] + (int64_t)(w >> 32));
        }
    }
done:
    free(fill);
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
