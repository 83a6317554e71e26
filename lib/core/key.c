/*
 * key.c - kernel identity: which invocations count as "the same kernel".
 *
 * Grouping is done per distinct name first (names are interned, so this is a
 * small table), then, for name+grid+block, per (name part, grid, block) tuple
 * with an open-addressing hash table: one pass over the invocations.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Each key's name, as plans and --key spell it: one table for both ways. */
static const char *const key_names[] = {
    [KS_KEY_NAME] = "name",
    [KS_KEY_NAME_NOTEMPLATE] = "name-notemplate",
    [KS_KEY_NAME_GRID_BLOCK] = "name+grid+block",
    [KS_KEY_NAME_SHAPE] = "name+shape",
};
#define KEY_COUNT (sizeof key_names / sizeof key_names[0])

const char *ks_key_to_string(ks_key key)
{
    return (unsigned)key < KEY_COUNT ? key_names[key] : "?";
}

ks_status ks_key_parse(const char *s, ks_key *key, ks_error *err)
{
    for (size_t k = 0; k < KEY_COUNT; k++) {
        if (strcmp(s, key_names[k]) == 0) {
            *key = (ks_key)k;
            return KS_OK;
        }
    }
    return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                        "unknown key '%s' (expected name, name-notemplate, name+grid+block or "
                        "name+shape)",
                        s);
}

/*
 * Where the kept part of a name ends.  METHODS.md says "cut at the first '('"
 * (and '<' for name-notemplate); taken literally that breaks on real PyTorch
 * names: "void at::native::(anonymous namespace)::foo<...>(...)" would cut at
 * "(anonymous namespace)" and lump every such kernel together, and
 * "act_and_mul_kernel<T, &silu<T>(T const&)>(...)" would cut inside its
 * template arguments.  So the cut is at the first '(' outside template
 * brackets that is not "(anonymous namespace)".
 */
static size_t name_cut(ks_key key, const char *name)
{
    static const char anon[] = "(anonymous namespace)";
    int depth = 0;
    size_t i = 0;
    /* strcspn skips the plain characters in blocks: kernel names run to
     * hundreds of bytes, and a byte-by-byte scan here was most of grouping
     * 194 names (a fifth of a --allocation paper plan of 1,154 launches) */
    for (;; i++) {
        i += strcspn(name + i, "(<>");
        char ch = name[i];
        if (!ch)
            break;
        if (ch == '(' && strncmp(name + i, anon, sizeof anon - 1) == 0) {
            i += sizeof anon - 2;
            continue;
        }
        if (ch == '<') {
            if (key != KS_KEY_NAME)
                break;
            depth++;
        } else if (ch == '>' && depth > 0) {
            depth--;
        } else if (ch == '(' && depth == 0) {
            break;
        }
    }
    return i;
}

size_t ks_key_name_part(ks_key key, const char *name, char *buf, size_t size)
{
    size_t n = name_cut(key, name);
    /* trailing spaces left by the cut ("foo <int>" -> "foo") */
    while (n > 0 && name[n - 1] == ' ')
        n--;
    if (n == 0) /* a name that starts with '(' or '<' keeps all of itself */
        n = strlen(name);
    if (size == 0)
        return n;
    size_t copy = n < size - 1 ? n : size - 1;
    memcpy(buf, name, copy);
    buf[copy] = '\0';
    return n;
}

void ks_groups_free(ks_groups *g)
{
    if (!g)
        return;
    free(g->group_of);
    free(g->size);
    if (g->labels)
        for (size_t i = 0; i < g->count; i++)
            free(g->labels[i]);
    free(g->labels);
    memset(g, 0, sizeof *g);
}

typedef struct tuple_slot {
    uint32_t part, group_plus_one;
    uint32_t dims[6];
} tuple_slot;

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static ks_status add_group(ks_groups *g, size_t *cap, char *label, ks_error *err)
{
    if (!label)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t old = *cap;
    ks_status st = ks_grow((void **)&g->labels, &old, g->count + 1, sizeof *g->labels, err);
    if (st != KS_OK) {
        free(label);
        return st;
    }
    st = ks_grow((void **)&g->size, cap, g->count + 1, sizeof *g->size, err);
    if (st != KS_OK) {
        free(label);
        return st;
    }
    g->labels[g->count] = label;
    g->size[g->count] = 0;
    g->count++;
    return KS_OK;
}

/* Which parts (shapes or duration modes) of each name get groups of their
 * own under name+shape: a part whose profiled time is at least `share` of
 * the program's (every part where share <= 0), where two or more parts of
 * its name reach it.  The name's largest part keeps the name's bare label
 * and takes in the parts below the share (a part too small to move the
 * total much by sharing its name's strata); a name with one part at or
 * above the share is not split.  part_time[j], part_group[j] (name group)
 * for j < count; writes target[j]: the part whose group j joins, and
 * bare[j]: whether that group is labelled with the bare name. */
static ks_status shape_targets(const long double *part_time, const uint32_t *part_group,
                               size_t count, size_t groups, long double total, double share,
                               uint32_t *target, uint8_t *bare, ks_error *err)
{
    uint32_t *big = malloc((groups ? groups : 1) * sizeof *big);
    uint32_t *own = calloc(groups ? groups : 1, sizeof *own);
    uint32_t *parts = calloc(groups ? groups : 1, sizeof *parts);
    if (!big || !own || !parts) {
        KS_FREE(big, own, parts);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < groups; k++)
        big[k] = UINT32_MAX;
    long double least = share > 0 ? (long double)share * total : 0;
    for (size_t j = 0; j < count; j++) {
        uint32_t k = part_group[j];
        parts[k]++;
        if (part_time[j] >= least)
            own[k]++;
        if (big[k] == UINT32_MAX || part_time[j] > part_time[big[k]])
            big[k] = (uint32_t)j; /* ties: the first launched */
    }
    for (size_t j = 0; j < count; j++) {
        uint32_t k = part_group[j];
        bool split = parts[k] > 1 && own[k] > 1;
        bool alone = split && part_time[j] >= least;
        target[j] = alone && !(own[k] < parts[k] && j == big[k]) ? (uint32_t)j : big[k];
        bare[j] = !split || own[k] < parts[k] ? (target[j] == big[k]) : 0;
        if (!split)
            target[j] = big[k];
    }
    KS_FREE(big, own, parts);
    return KS_OK;
}

/* The profile's total profiled time, the share's denominator. */
static long double total_time(const ks_profile *p)
{
    long double t = 0;
    for (size_t i = 0; i < p->n; i++)
        t += p->duration_ns[i];
    return t;
}

/* name+shape: the name key's groups, each name launched with several
 * (grid, block) shapes split by shape (in order of first launch) where
 * shape_targets says so. */
static ks_status split_shapes(const ks_profile *p, double share, ks_groups *g, ks_error *err)
{
    size_t n = p->n, cap = 64;
    /* distinct (group, shape) pairs: at most n, and at most groups x shapes */
    size_t bound = g->count && p->dims_count > SIZE_MAX / g->count ? n
                                                                    : g->count * p->dims_count;
    if (bound > n)
        bound = n;
    while (cap < 2 * bound + 2)
        cap *= 2;
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *slot_part = malloc(cap * sizeof *slot_part);
    /* per part (in order of first launch): its name group, time, first
     * launch, target and label kind, and its output group */
    size_t parts = 0;
    uint32_t *part_group = malloc((bound + 1) * sizeof *part_group);
    long double *part_time = calloc(bound + 1, sizeof *part_time);
    size_t *part_first = malloc((bound + 1) * sizeof *part_first);
    uint32_t *target = malloc((bound + 1) * sizeof *target);
    uint8_t *bare = malloc(bound + 1);
    uint32_t *out_of = malloc((bound + 1) * sizeof *out_of);
    ks_groups out = {.key = KS_KEY_NAME_SHAPE, .shape_share = share};
    out.group_of = malloc((n ? n : 1) * sizeof *out.group_of);
    size_t groups_cap = 0;
    ks_status st = KS_OK;
    if (!keys || !slot_part || !part_group || !part_time || !part_first || !target || !bare ||
        !out_of || !out.group_of) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < cap; s++)
        keys[s] = UINT64_MAX;
    /* each launch's part, into group_of for now */
    for (size_t i = 0; i < n; i++) {
        uint32_t g0 = g->group_of[i];
        uint64_t k = (uint64_t)g0 << 32 | p->dims_id[i];
        size_t s = (size_t)(mix(0, k) & (cap - 1));
        while (keys[s] != UINT64_MAX && keys[s] != k)
            s = (s + 1) & (cap - 1);
        if (keys[s] == UINT64_MAX) {
            keys[s] = k;
            slot_part[s] = (uint32_t)parts;
            part_group[parts] = g0;
            part_first[parts] = i;
            parts++;
        }
        out.group_of[i] = slot_part[s];
        part_time[slot_part[s]] += p->duration_ns[i];
    }
    if ((st = shape_targets(part_time, part_group, parts, g->count, total_time(p), share,
                            target, bare, err)) != KS_OK)
        goto done;
    for (size_t j = 0; j < parts; j++)
        out_of[j] = UINT32_MAX;
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        uint32_t t = target[out.group_of[i]];
        if (out_of[t] == UINT32_MAX) {
            const char *name = g->labels[part_group[t]];
            char *label;
            if (bare[t]) {
                label = strdup(name);
            } else {
                const uint32_t *d = ks_profile_grid(p, part_first[t]);
                size_t len = strlen(name) + 80;
                label = malloc(len);
                if (label)
                    snprintf(label, len, "%s[%u,%u,%u][%u,%u,%u]", name, d[0], d[1], d[2], d[3],
                             d[4], d[5]);
            }
            if ((st = add_group(&out, &groups_cap, label, err)))
                break;
            out_of[t] = (uint32_t)(out.count - 1);
        }
        out.group_of[i] = out_of[t];
        out.size[out_of[t]]++;
    }
done:
    KS_FREE(keys, slot_part, part_group, part_time, part_first, target, bare, out_of);
    ks_groups_free(g);
    if (st != KS_OK) {
        ks_groups_free(&out);
        return st;
    }
    *g = out;
    return KS_OK;
}

/* Durations of one name that are clearly several modes (different work
 * under one name where the profile gives no grid and block): a cut at k in
 * sorted v[lo, hi) leaves at least 3 launches and 1 % on each side, and is
 * the largest ratio v[k] / v[k-1] there, at least 1.2, with a gap at least
 * twice either side's standard deviation.  Cuts (the upper side's least
 * duration) go to cuts[], at most 7, found recursively. */
static double side_sd(const int64_t *v, size_t lo, size_t hi)
{
    long double s = 0, q = 0;
    for (size_t i = lo; i < hi; i++)
        s += v[i];
    long double mean = s / (hi - lo);
    for (size_t i = lo; i < hi; i++)
        q += (v[i] - mean) * (v[i] - mean);
    return (double)sqrtl(q / (hi - lo));
}

/* The clearest cut of sorted v[lo, hi) by the rule above, or 0. */
static size_t best_cut(const int64_t *v, size_t lo, size_t hi, size_t min_side)
{
    if (hi - lo < 2 * min_side)
        return 0;
    size_t best = 0;
    double ratio = 0;
    for (size_t k = lo + min_side; k + min_side <= hi; k++)
        if (v[k - 1] > 0 && (double)v[k] / (double)v[k - 1] > ratio) {
            ratio = (double)v[k] / (double)v[k - 1];
            best = k;
        }
    if (ratio < 1.2)
        return 0;
    double gap = (double)(v[best] - v[best - 1]);
    double sd_l = side_sd(v, lo, best), sd_r = side_sd(v, best, hi);
    if (gap < 2 * (sd_l > sd_r ? sd_l : sd_r))
        return 0;
    return best;
}

static size_t min_side_of(size_t size) { return size / 100 > 3 ? (size + 99) / 100 : 3; }

static void mode_cuts(const int64_t *v, size_t lo, size_t hi, size_t min_side, int depth,
                      int64_t *cuts, size_t *count)
{
    if (depth == 0)
        return;
    size_t best = best_cut(v, lo, hi, min_side);
    if (!best)
        return;
    mode_cuts(v, lo, best, min_side, depth - 1, cuts, count);
    if (*count < 7)
        cuts[(*count)++] = v[best];
    mode_cuts(v, best, hi, min_side, depth - 1, cuts, count);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* name+shape without grid and block: each name's clear duration modes
 * (label "name{lo-hi ns}", the mode's least and greatest duration). */
static ks_status split_modes(const ks_profile *p, double share, ks_groups *g, ks_error *err)
{
    size_t n = p->n, gc = g->count;
    size_t *first = calloc(gc + 1, sizeof *first);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    int64_t *cuts = calloc(gc * 7 + 1, sizeof *cuts);
    size_t *ncuts = calloc(gc + 1, sizeof *ncuts);
    int64_t *lo = NULL, *hi = NULL;
    uint32_t *id = NULL;
    ks_groups out = {.key = KS_KEY_NAME_SHAPE, .shape_share = share};
    size_t groups_cap = 0;
    ks_status st = KS_OK;
    out.group_of = malloc((n ? n : 1) * sizeof *out.group_of);
    if (!first || !v || !cuts || !ncuts || !out.group_of) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    /* durations by group, then each group's cuts */
    for (size_t i = 0; i < n; i++)
        first[g->group_of[i] + 1]++;
    for (size_t k = 0; k < gc; k++)
        first[k + 1] += first[k];
    {
        size_t *at = malloc((gc + 1) * sizeof *at);
        if (!at) {
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        memcpy(at, first, (gc + 1) * sizeof *at);
        for (size_t i = 0; i < n; i++)
            v[at[g->group_of[i]]++] = p->duration_ns[i];
        free(at);
    }
    size_t modes = 0;
    for (size_t k = 0; k < gc; k++) {
        size_t a = first[k], b = first[k + 1], size = b - a;
        qsort(v + a, size, sizeof *v, cmp_i64);
        mode_cuts(v, a, b, min_side_of(size), 3, cuts + 7 * k, &ncuts[k]);
        modes += ncuts[k] + 1;
    }
    lo = malloc(modes * sizeof *lo);
    hi = malloc(modes * sizeof *hi);
    id = malloc(modes * sizeof *id);
    if (!lo || !hi || !id) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    /* each mode's range (v is sorted per group) and, in launch order, its
     * group number */
    size_t *base = malloc((gc + 1) * sizeof *base);
    if (!base) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t k = 0, m = 0; k < gc; k++) {
        base[k] = m;
        size_t j = first[k];
        for (size_t c = 0; c <= ncuts[k]; c++, m++) {
            lo[m] = v[j];
            int64_t upper = c < ncuts[k] ? cuts[7 * k + c] : INT64_MAX;
            while (j < first[k + 1] && v[j] < upper)
                j++;
            hi[m] = v[j - 1];
            id[m] = UINT32_MAX;
        }
    }
    /* each launch's mode, its time, then the modes' groups (shape_targets) */
    {
        long double *mode_time = calloc(modes + 1, sizeof *mode_time);
        uint32_t *mode_group = malloc((modes + 1) * sizeof *mode_group);
        uint32_t *target = malloc((modes + 1) * sizeof *target);
        uint8_t *bare = malloc(modes + 1);
        if (!mode_time || !mode_group || !target || !bare) {
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        } else {
            for (size_t k = 0; k < gc; k++)
                for (size_t c = 0; c <= ncuts[k]; c++)
                    mode_group[base[k] + c] = (uint32_t)k;
            for (size_t i = 0; i < n; i++) {
                uint32_t g0 = g->group_of[i];
                size_t c = 0;
                while (c < ncuts[g0] && p->duration_ns[i] >= cuts[7 * g0 + c])
                    c++;
                out.group_of[i] = (uint32_t)(base[g0] + c);
                mode_time[base[g0] + c] += p->duration_ns[i];
            }
            st = shape_targets(mode_time, mode_group, modes, gc, total_time(p), share, target,
                               bare, err);
        }
        for (size_t i = 0; i < n && st == KS_OK; i++) {
            size_t m = target[out.group_of[i]];
            if (id[m] == UINT32_MAX) {
                const char *name = g->labels[mode_group[m]];
                char *label;
                if (!bare[m]) {
                    size_t len = strlen(name) + 48;
                    label = malloc(len);
                    if (label)
                        snprintf(label, len, "%s{%lld-%lld ns}", name, (long long)lo[m],
                                 (long long)hi[m]);
                } else {
                    label = strdup(name);
                }
                if ((st = add_group(&out, &groups_cap, label, err)))
                    break;
                id[m] = (uint32_t)(out.count - 1);
            }
            out.group_of[i] = id[m];
            out.size[id[m]]++;
        }
        KS_FREE(mode_time, mode_group, target, bare);
    }
    free(base);
done:
    KS_FREE(first, v, cuts, ncuts, lo, hi, id);
    ks_groups_free(g);
    if (st != KS_OK) {
        ks_groups_free(&out);
        return st;
    }
    *g = out;
    return KS_OK;
}

ks_status ks_groups_build(const ks_profile *p, ks_key key, ks_groups *g, ks_error *err)
{
    return ks_groups_build_shapes(p, key, 0, g, err);
}

ks_status ks_groups_build_shapes(const ks_profile *p, ks_key key, double shape_share,
                                 ks_groups *g, ks_error *err)
{
    if (key == KS_KEY_NAME_SHAPE) {
        ks_status st = ks_groups_build(p, KS_KEY_NAME, g, err);
        if (st != KS_OK)
            return st;
        return ks_profile_has_dims(p) ? split_shapes(p, shape_share, g, err)
                                      : split_modes(p, shape_share, g, err);
    }
    memset(g, 0, sizeof *g);
    g->key = key;
    ks_status st = KS_OK;
    size_t names = p->name_count;
    uint32_t *part_of_name = malloc((names ? names : 1) * sizeof *part_of_name);
    g->group_of = malloc((p->n ? p->n : 1) * sizeof *g->group_of);
    char **parts = NULL;
    size_t part_count = 0, parts_cap = 0, groups_cap = 0;
    tuple_slot *slots = NULL;
    uint32_t *part_group = NULL;
    if (!part_of_name || !g->group_of) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }

    /* name -> name part (label text), interned by a small linear-probe table */
    size_t hsize = 64;
    while (hsize < names * 2)
        hsize *= 2;
    uint32_t *htab = calloc(hsize, sizeof *htab);
    if (!htab) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t id = 0; id < names; id++) {
        const char *name = p->names[id];
        size_t n = ks_key_name_part(key, name, NULL, 0);
        /* the slot only: groups are numbered by first launch, not by hash */
        uint64_t h = XXH3_64bits(name, n);
        size_t s = h & (hsize - 1);
        while (htab[s]) {
            const char *q = parts[htab[s] - 1];
            if (strncmp(q, name, n) == 0 && q[n] == '\0')
                break;
            s = (s + 1) & (hsize - 1);
        }
        if (!htab[s]) {
            if ((st = ks_grow((void **)&parts, &parts_cap, part_count + 1, sizeof *parts, err)))
                break;
            parts[part_count] = strndup(name, n);
            if (!parts[part_count]) {
                st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
                break;
            }
            htab[s] = (uint32_t)++part_count;
        }
        part_of_name[id] = htab[s] - 1;
    }
    free(htab);
    if (st != KS_OK)
        goto done;

    if (key != KS_KEY_NAME_GRID_BLOCK || !ks_profile_has_dims(p)) {
        /* groups numbered by first appearance in launch order */
        part_group = malloc((part_count ? part_count : 1) * sizeof *part_group);
        if (!part_group) {
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < part_count; i++)
            part_group[i] = UINT32_MAX;
        /* each name's group, looked up through its part once per name
         * rather than at every launch: from here part_of_name holds a
         * name's part | UNRESOLVED until its first launch, then its group */
        enum { UNRESOLVED = 0x80000000u };
        uint32_t *name_group = part_of_name;
        for (size_t id = 0; id < names; id++)
            name_group[id] |= UNRESOLVED;
        for (size_t i = 0; i < p->n; i++) {
            uint32_t id = p->name_id[i], gi = name_group[id];
            if (gi & UNRESOLVED) {
                uint32_t part = gi & ~UNRESOLVED;
                if (part_group[part] == UINT32_MAX) {
                    part_group[part] = (uint32_t)g->count;
                    if ((st = add_group(g, &groups_cap, strdup(parts[part]), err)))
                        goto done;
                }
                gi = part_group[part];
                name_group[id] = gi;
            }
            g->group_of[i] = gi;
            g->size[gi]++;
        }
        goto done;
    }

    size_t tsize = 1024;
    size_t used = 0;
    slots = calloc(tsize, sizeof *slots);
    if (!slots) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->n; i++) {
        tuple_slot t = {.part = part_of_name[p->name_id[i]]};
        memcpy(t.dims, ks_profile_grid(p, i), 6 * sizeof(uint32_t));
        uint64_t h = mix(0, t.part);
        for (int k = 0; k < 6; k++)
            h = mix(h, t.dims[k]);
        size_t s = h & (tsize - 1);
        while (slots[s].group_plus_one &&
               !(slots[s].part == t.part && memcmp(slots[s].dims, t.dims, sizeof t.dims) == 0))
            s = (s + 1) & (tsize - 1);
        if (!slots[s].group_plus_one) {
            char label[4096];
            snprintf(label, sizeof label, "%s[%u,%u,%u][%u,%u,%u]", parts[t.part], t.dims[0],
                     t.dims[1], t.dims[2], t.dims[3], t.dims[4], t.dims[5]);
            if ((st = add_group(g, &groups_cap, strdup(label), err)))
                goto done;
            t.group_plus_one = (uint32_t)g->count;
            slots[s] = t;
            if (++used * 2 > tsize) { /* grow and reinsert */
                size_t nsize = tsize * 2;
                tuple_slot *ns = calloc(nsize, sizeof *ns);
                if (!ns) {
                    st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
                    goto done;
                }
                for (size_t j = 0; j < tsize; j++) {
                    if (!slots[j].group_plus_one)
                        continue;
                    uint64_t hh = mix(0, slots[j].part);
                    for (int k = 0; k < 6; k++)
                        hh = mix(hh, slots[j].dims[k]);
                    size_t q = hh & (nsize - 1);
                    while (ns[q].group_plus_one)
                        q = (q + 1) & (nsize - 1);
                    ns[q] = slots[j];
                }
                free(slots);
                slots = ns;
                tsize = nsize;
            }
            g->group_of[i] = t.group_plus_one - 1;
        } else {
            g->group_of[i] = slots[s].group_plus_one - 1;
        }
        g->size[g->group_of[i]]++;
    }

done:
    for (size_t i = 0; i < part_count; i++)
        free(parts[i]);
    free(parts);
    free(part_of_name);
    free(part_group);
    free(slots);
    if (st != KS_OK)
        ks_groups_free(g);
    return st;
}

static int by_launches(const void *a, const void *b)
{
    const ks_split_name *x = a, *y = b;
    if (x->launches != y->launches)
        return x->launches > y->launches ? -1 : 1;
    return strcmp(x->label, y->label);
}

void ks_split_names_free(ks_split_name *names, size_t count)
{
    for (size_t k = 0; names && k < count; k++)
        free(names[k].label);
    free(names);
}

ks_status ks_split_names(const ks_profile *p, ks_split_name **out, size_t *count, ks_error *err)
{
    *out = NULL;
    *count = 0;
    ks_groups byname, byshape;
    ks_status st = ks_groups_build(p, KS_KEY_NAME, &byname, err);
    if (st != KS_OK)
        return st;
    if ((st = ks_groups_build(p, KS_KEY_NAME_SHAPE, &byshape, err)) != KS_OK) {
        ks_groups_free(&byname);
        return st;
    }
    size_t *parts = calloc(byname.count + 1, sizeof *parts);
    uint8_t *seen = calloc(byshape.count + 1, 1);
    ks_split_name *names = NULL;
    if (!parts || !seen) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < p->n; i++)
        if (!seen[byshape.group_of[i]]) {
            seen[byshape.group_of[i]] = 1;
            parts[byname.group_of[i]]++;
        }
    size_t n = 0;
    for (size_t g = 0; g < byname.count; g++)
        n += parts[g] > 1;
    names = calloc(n + 1, sizeof *names);
    if (!names) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t g = 0; g < byname.count; g++) {
        if (parts[g] < 2)
            continue;
        if (!(names[*count].label = strdup(byname.labels[g]))) {
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        names[*count].parts = parts[g];
        names[(*count)++].launches = byname.size[g];
    }
    qsort(names, *count, sizeof *names, by_launches);
done:
    free(parts);
    free(seen);
    ks_groups_free(&byname);
    ks_groups_free(&byshape);
    if (st != KS_OK) {
        ks_split_names_free(names, *count);
        *count = 0;
        return st;
    }
    *out = names;
    return KS_OK;
}
