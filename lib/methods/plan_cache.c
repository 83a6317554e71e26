/*
 * plan_cache.c - the seed-independent work of the duration methods, done
 * once per profile and key however many methods and seeds use it.  eval
 * plans 4 methods x 10 seeds: grouping and sorting by duration were half of
 * its CPU at 10 M launches while they were redone per method, and the draw
 * buffer (an id per member of the largest group) was allocated and
 * first-touched again for every plan.
 */
#include "plan_cache.h"
#include "sampling.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KEY_COUNT = KS_KEY_NAME_SHAPE + 1 };

/* A part built once; `charged` is the fit that last counted it as reused. */
typedef struct cache_part {
    bool built;
    double seconds;
    unsigned charged;
} cache_part;

typedef struct cache_entry {
    ks_groups groups;
    ks_members members;
    cache_part groups_part, members_part;
} cache_entry;

struct ks_plan_cache {
    const ks_profile *profile;
    cache_entry entry[KEY_COUNT];
    uint32_t *scratch;
    size_t scratch_size;
    double total_ns; /* the profile's, once summed */
    bool have_total;
    unsigned fit;   /* fits begun so far */
    double reused;  /* seconds, since the current fit began */
};

double ks_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

ks_status ks_plan_cache_new(const ks_profile *p, ks_plan_cache **out, ks_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    (*out)->profile = p;
    return KS_OK;
}

void ks_plan_cache_free(ks_plan_cache *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < KEY_COUNT; k++) {
        if (c->entry[k].groups_part.built)
            ks_groups_free(&c->entry[k].groups);
        if (c->entry[k].members_part.built)
            ks_members_free(&c->entry[k].members);
    }
    free(c->scratch);
    free(c);
}

const ks_profile *ks_plan_cache_profile(const ks_plan_cache *c) { return c->profile; }

double ks_plan_cache_total_ns(ks_plan_cache *c)
{
    if (!c->have_total) {
        c->total_ns = ks_profile_total_ns(c->profile);
        c->have_total = true;
    }
    return c->total_ns;
}

void ks_plan_cache_begin(ks_plan_cache *c)
{
    c->fit++;
    c->reused = 0;
}

double ks_plan_cache_reused_seconds(const ks_plan_cache *c) { return c->reused; }

/* The part is used by the current fit: count its cost once per fit when an
 * earlier fit built it. */
static void charge(ks_plan_cache *c, cache_part *part)
{
    if (part->charged != c->fit)
        c->reused += part->seconds;
    part->charged = c->fit;
}

static cache_entry *entry_for(ks_plan_cache *c, ks_key key, ks_error *err)
{
    if ((unsigned)key >= KEY_COUNT) {
        ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "unknown key %d", (int)key);
        return NULL;
    }
    return &c->entry[key];
}

ks_status ks_plan_cache_groups(ks_plan_cache *c, ks_key key, double shape_share,
                               const ks_groups **out, ks_error *err)
{
    cache_entry *e = entry_for(c, key, err);
    if (!e)
        return KS_ERR_INTERNAL;
    if (key != KS_KEY_NAME_SHAPE)
        shape_share = 0;
    if (e->groups_part.built && e->groups.shape_share != shape_share) {
        /* name+shape of another share (eval over several bounds): rebuilt */
        ks_groups_free(&e->groups);
        e->groups_part.built = false;
        if (e->members_part.built)
            ks_members_free(&e->members);
        e->members_part.built = false;
    }
    if (!e->groups_part.built) {
        double t0 = ks_now_seconds();
        ks_status st = ks_groups_build_shapes(c->profile, key, shape_share, &e->groups, err);
        if (st != KS_OK)
            return st;
        e->groups_part = (cache_part){true, ks_now_seconds() - t0, c->fit};
    }
    charge(c, &e->groups_part);
    *out = &e->groups;
    return KS_OK;
}

ks_status ks_plan_cache_members(ks_plan_cache *c, ks_key key, double shape_share,
                                const ks_members **out, ks_error *err)
{
    const ks_groups *g;
    ks_status st = ks_plan_cache_groups(c, key, shape_share, &g, err);
    if (st != KS_OK)
        return st;
    cache_entry *e = &c->entry[key];
    if (!e->members_part.built) {
        double t0 = ks_now_seconds();
        if ((st = ks_members_build(c->profile, g, &e->members, err)) != KS_OK)
            return st;
        e->members_part = (cache_part){true, ks_now_seconds() - t0, c->fit};
        if (!c->have_total) { /* the same exact sum: no pass of its own */
            c->total_ns = e->members.total_ns;
            c->have_total = true;
        }
    }
    charge(c, &e->members_part);
    *out = &e->members;
    return KS_OK;
}

ks_status ks_plan_cache_scratch(ks_plan_cache *c, size_t n, uint32_t **out, ks_error *err)
{
    if (n > c->scratch_size) {
        uint32_t *grown = realloc(c->scratch, n * sizeof *grown);
        if (!grown)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        c->scratch = grown;
        c->scratch_size = n;
    }
    *out = c->scratch;
    return KS_OK;
}

ks_status ks_method_members(const ks_method_input *in, const ks_members **out, ks_error *err)
{
    return ks_plan_cache_members(in->cache, in->groups->key, in->groups->shape_share, out, err);
}

ks_status ks_method_scratch(const ks_method_input *in, size_t n, uint32_t **out,
                            ks_error *err)
{
    return ks_plan_cache_scratch(in->cache, n ? n : 1, out, err);
}
