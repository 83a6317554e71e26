/*
 * plan_launch.c - whether a result reported for a launch belongs to the
 * plan: the kernel name (and grid, block) a simulator or tracer gives for
 * plan id `id` must be that launch's.  A log of another plan with the same
 * number of samples would otherwise be mapped uid by uid onto the wrong
 * launches and give a wrong estimate without a word.
 *
 * What the launch is comes from the plan's profile when the caller has it
 * (every launch, with grid and block when the profile has them), else from
 * the plan itself: each sample's cluster belongs to a kernel group whose
 * label is the kernel's name as the plan's key cut it ("name[g,g,g][b,b,b]"
 * with key name+grid+block).  A plan whose one group is "all" (random, PKA)
 * records no names.  Names are compared by the library's one rule
 * (ks_kernel_names_match): the demangled, bare and mangled forms of one
 * kernel agree.
 */
#include "internal.h"
#include "sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ks_plan_records_names(const ks_plan *plan)
{
    return plan->group_count > 0 &&
           !(plan->group_count == 1 && strcmp(plan->group_labels[0], "all") == 0);
}

#define ID_BELOW(e, k) ((e).id < (k))
KS_LOWER_BOUND(sample_lower, ks_sample, uint64_t, ID_BELOW)

/* The sample of id, or NULL: samples are sorted by id. */
static const ks_sample *sample_of(const ks_plan *plan, uint64_t id)
{
    size_t lo = sample_lower(plan->samples, plan->sample_count, id);
    return lo < plan->sample_count && plan->samples[lo].id == id ? &plan->samples[lo] : NULL;
}

/* A name+grid+block label "name[g0,g1,g2][b0,b1,b2]": *name_len is the
 * name's length and dims get the six numbers; false when label does not end
 * that way. */
/* name+shape's label of a duration mode, "name{lo-hi ns}": the name's
 * length, or false. */
static bool label_mode(const char *label, size_t *name_len)
{
    size_t n = strlen(label);
    if (n < 4 || strcmp(label + n - 4, " ns}") != 0)
        return false;
    const char *open = strrchr(label, '{');
    if (!open || open == label)
        return false;
    *name_len = (size_t)(open - label);
    return true;
}

static bool label_dims(const char *label, size_t *name_len, uint32_t dims[6])
{
    size_t n = strlen(label);
    int k = 6;
    while (k > 0) {
        if (n == 0 || label[n - 1] != ']')
            return false;
        n--;
        for (int j = 0; j < 3; j++) {
            size_t end = n;
            while (n > 0 && label[n - 1] >= '0' && label[n - 1] <= '9')
                n--;
            if (n == end || end - n > 10)
                return false;
            unsigned long long v = strtoull(label + n, NULL, 10);
            if (v > UINT32_MAX)
                return false;
            dims[--k] = (uint32_t)v;
            if (n == 0)
                return false;
            char sep = label[--n];
            if (sep != (j < 2 ? ',' : '['))
                return false;
        }
    }
    *name_len = n;
    return true;
}

static bool dims_known(const uint32_t *d) { return d && (d[0] || d[1] || d[2]); }

static bool dims_equal(const uint32_t *a, const uint32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

ks_status ks_plan_check_launch(const ks_plan *plan, const ks_profile *profile, uint64_t id,
                               const char *name, const uint32_t *grid, const uint32_t *block,
                               const char *file, long line, unsigned *checked, ks_error *err)
{
    if (checked)
        *checked = 0;
    bool has_name = name && *name;
    if (!has_name && !dims_known(grid) && !dims_known(block))
        return KS_OK;
    const char *want = NULL, *from;
    char label_name[4096];
    const uint32_t *want_grid = NULL, *want_block = NULL;
    uint32_t ldims[6];
    if (profile) {
        if (id >= profile->n)
            return ks_error_set(err, KS_ERR_FORMAT, file, line,
                                "launch id %llu, but the plan's profile has %zu launches: "
                                "results of another program or uid mapping",
                                (unsigned long long)id, profile->n);
        want = ks_profile_name(profile, (size_t)id);
        from = "the plan's profile";
        if (ks_profile_has_dims(profile)) {
            want_grid = ks_profile_grid(profile, (size_t)id);
            want_block = ks_profile_block(profile, (size_t)id);
        }
    } else {
        const ks_sample *s = sample_of(plan, id);
        if (!s || !ks_plan_records_names(plan) || s->cluster >= plan->cluster_count)
            return KS_OK;
        uint32_t g = plan->clusters[s->cluster].group;
        if (g >= plan->group_count)
            return KS_OK;
        /* a pooled cluster holds launches of every kernel of its pool: the
         * one whose name the result gives, if any */
        for (size_t k = 0; plan->pool_rep && has_name && k < plan->group_count; k++)
            if (plan->pool_rep[k] == g && k != g) {
                const char *l = plan->group_labels[k];
                size_t n;
                bool with_dims = ((plan->params.key == KS_KEY_NAME_GRID_BLOCK ||
                                   plan->params.key == KS_KEY_NAME_SHAPE) &&
                                  label_dims(l, &n, ldims) && n < sizeof label_name) ||
                                 (plan->params.key == KS_KEY_NAME_SHAPE && label_mode(l, &n) &&
                                  n < sizeof label_name);
                if (with_dims) {
                    memcpy(label_name, l, n);
                    label_name[n] = '\0';
                }
                if (ks_kernel_names_match(with_dims ? label_name : l, name)) {
                    g = (uint32_t)k;
                    break;
                }
            }
        const char *label = plan->group_labels[g];
        size_t n;
        if ((plan->params.key == KS_KEY_NAME_GRID_BLOCK ||
             plan->params.key == KS_KEY_NAME_SHAPE) &&
            label_dims(label, &n, ldims) && n < sizeof label_name) {
            memcpy(label_name, label, n);
            label_name[n] = '\0';
            want = label_name;
            want_grid = ldims;
            want_block = ldims + 3;
        } else if (plan->params.key == KS_KEY_NAME_SHAPE && label_mode(label, &n) &&
                   n < sizeof label_name) {
            memcpy(label_name, label, n);
            label_name[n] = '\0';
            want = label_name;
        } else {
            want = label;
        }
        from = "the plan's kernel group";
    }
    unsigned done = 0;
    if (has_name && want) {
        if (!ks_kernel_names_match(want, name))
            return ks_error_set(err, KS_ERR_FORMAT, file, line,
                                "kernel \"%.150s\" is reported for plan id %llu, which is "
                                "\"%.150s\" in %s: results of another plan, or a uid mapping "
                                "that does not fit them (--uid-map, --uid-base)",
                                name, (unsigned long long)id, want, from);
        done |= KS_CHECKED_NAME;
    }
    if ((dims_known(grid) && dims_known(want_grid)) ||
        (dims_known(block) && dims_known(want_block))) {
        bool grid_bad = dims_known(grid) && dims_known(want_grid) && !dims_equal(grid, want_grid);
        bool block_bad =
            dims_known(block) && dims_known(want_block) && !dims_equal(block, want_block);
        if (grid_bad || block_bad) {
            const uint32_t z[3] = {0, 0, 0};
            const uint32_t *g = grid ? grid : z, *b = block ? block : z;
            const uint32_t *wg = want_grid ? want_grid : z, *wb = want_block ? want_block : z;
            return ks_error_set(err, KS_ERR_FORMAT, file, line,
                                "plan id %llu (\"%.120s\") is reported with grid (%u, %u, %u) "
                                "block (%u, %u, %u), but has grid (%u, %u, %u) block (%u, %u, "
                                "%u) in %s: results of another plan or input",
                                (unsigned long long)id, want ? want : "?", g[0], g[1], g[2],
                                b[0], b[1], b[2], wg[0], wg[1], wg[2], wb[0], wb[1], wb[2],
                                from);
        }
        done |= KS_CHECKED_DIMS;
    }
    if (checked)
        *checked = done;
    return KS_OK;
}
