/*
 * key.c - kernel identity: which invocations count as "the same kernel".
 *
 * Grouping is done per distinct name first (names are interned, so this is a
 * small table), then, for name+grid+block, per (name part, grid, block) tuple
 * with an open-addressing hash table: one pass over the invocations.
 */
#include "internal.h"

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

/* name+shape: the name key's groups, each name launched with several
 * (grid, block) shapes split by shape (in order of first launch). */
static ks_status split_shapes(const ks_profile *p, ks_groups *g, ks_error *err)
{
    size_t n = p->n, cap = 64;
    while (cap < 2 * (g->count + p->dims_count) + 2)
        cap *= 2;
    /* (group, dims) pairs: distinct shapes per group first */
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *val = malloc(cap * sizeof *val);
    uint32_t *shapes = calloc(g->count ? g->count : 1, sizeof *shapes);
    ks_groups out = {.key = KS_KEY_NAME_SHAPE};
    out.group_of = malloc((n ? n : 1) * sizeof *out.group_of);
    size_t used = 0, groups_cap = 0;
    ks_status st = KS_OK;
    if (!keys || !val || !shapes || !out.group_of) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < cap; s++)
        keys[s] = UINT64_MAX;
    for (int pass = 0; pass < 2 && st == KS_OK; pass++) {
        for (size_t s = 0; s < cap; s++)
            keys[s] = UINT64_MAX;
        used = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t g0 = g->group_of[i];
            uint64_t k = (uint64_t)g0 << 32 | p->dims_id[i];
            size_t s = (size_t)(mix(0, k) & (cap - 1));
            while (keys[s] != UINT64_MAX && keys[s] != k)
                s = (s + 1) & (cap - 1);
            if (keys[s] == UINT64_MAX) {
                if (++used * 2 > cap) { /* cannot happen: cap holds every pair twice */
                    st = ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "shape table full");
                    break;
                }
                keys[s] = k;
                if (pass == 0) {
                    shapes[g0]++;
                    continue;
                }
                char *label;
                if (shapes[g0] > 1) {
                    const uint32_t *d = ks_profile_grid(p, i);
                    size_t len = strlen(g->labels[g0]) + 80;
                    label = malloc(len);
                    if (label)
                        snprintf(label, len, "%s[%u,%u,%u][%u,%u,%u]", g->labels[g0], d[0], d[1],
                                 d[2], d[3], d[4], d[5]);
                } else {
                    label = strdup(g->labels[g0]);
                }
                if ((st = add_group(&out, &groups_cap, label, err)))
                    break;
                val[s] = (uint32_t)(out.count - 1);
            }
            if (pass == 1) {
                out.group_of[i] = val[s];
                out.size[val[s]]++;
            }
        }
    }
done:
    KS_FREE(keys, val, shapes);
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
    if (key == KS_KEY_NAME_SHAPE) {
        ks_status st = ks_groups_build(p, KS_KEY_NAME, g, err);
        if (st != KS_OK || !ks_profile_has_dims(p)) {
            g->key = key;
            return st;
        }
        return split_shapes(p, g, err);
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
