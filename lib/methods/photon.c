/*
 * photon.c - Photon's kernel-level sampling (Liu et al., MICRO'23): launches
 * are walked in launch order keeping a list of representatives per kernel
 * (the grouping key, by default the name).  A launch i joins the
 * representative r of its own kernel with the closest warp count among those
 * whose basic-block vectors are within the threshold,
 *     ||b_i - b_r||_2 / ||b_i||_2 < 0.05,
 * (a tie in warp count goes to the older representative); with none, i
 * becomes a representative itself.  Representatives are kept in order of
 * their vector's norm, so a launch looks only at those whose norm is within
 * the threshold of its own.  A representative's weight is the number
 * of launches that reuse it, itself included.  Vectors of different kernels
 * index different code, so they are never compared.  A launch whose vector
 * is all zero matches only an all-zero representative.
 *
 * Input: the sparse column "bbv" and the metric "warps", from Photon's
 * bbv.csv (--bbv) or computed from Accel-Sim traces (--traces).
 */
#include "representative.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct photon_params {
    double threshold;
} photon_params;

static const ks_param_def photon_param_defs[] = {
    {"threshold", KS_PARAM_REAL, offsetof(photon_params, threshold), 1e-300, 1e300, 0.05, NULL,
     "D", "a launch reuses a representative within relative BBV distance D"},
};

/* ||a - b||^2 of two sorted sparse vectors */
static double sparse_dist2(const ks_sparse_column *s, uint32_t a, uint32_t b)
{
    uint64_t i = s->offset[a], ie = s->offset[a + 1], j = s->offset[b], je = s->offset[b + 1];
    long double d = 0;
    while (i < ie || j < je) {
        double t;
        if (j >= je || (i < ie && s->index[i] < s->index[j]))
            t = s->value[i++];
        else if (i >= ie || s->index[j] < s->index[i])
            t = s->value[j++];
        else
            t = s->value[i++] - s->value[j++];
        d += (long double)t * t;
    }
    return (double)d;
}

static double sparse_norm(const ks_sparse_column *s, uint32_t a)
{
    long double d = 0;
    for (uint64_t i = s->offset[a]; i < s->offset[a + 1]; i++)
        d += (long double)s->value[i] * s->value[i];
    return (double)sqrtl(d);
}

typedef struct photon_rep {
    double norm;
    uint32_t id;
} photon_rep;

typedef struct photon_walk {
    uint32_t *rep_of;   /* n: the representative each launch reuses */
    uint32_t *rank;     /* n: a representative's number within its group */
    photon_rep *reps;   /* by group, each group's sorted by (norm, id) */
    size_t *rep_start;  /* group g's are reps[rep_start[g] .. +rep_count[g]) */
    size_t *rep_count;
    double *norm;       /* n */
} photon_walk;

/* First of the sorted r[0..n) whose norm is >= x. */
#define NORM_BELOW(e, x) ((e).norm < (x))
KS_LOWER_BOUND(photon_lower, photon_rep, double, NORM_BELOW)

/* The representative launch i reuses, or i itself.  Only representatives
 * whose norm is within the threshold of ||b_i|| can be (the triangle
 * inequality: | ||b_i|| - ||b_r|| | <= ||b_i - b_r||), found by bisection in
 * the group's norm order; an older representative has a smaller id. */
static uint32_t photon_match(const ks_sparse_column *bbv, const double *warps,
                             const photon_walk *w, size_t g, uint32_t i, double threshold)
{
    uint32_t best = i;
    double best_gap = INFINITY, norm = w->norm[i], limit = threshold * norm;
    const photon_rep *r = w->reps + w->rep_start[g];
    size_t n = w->rep_count[g];
    for (size_t k = photon_lower(r, n, norm - limit); k < n; k++) {
        if (norm > 0 ? r[k].norm >= norm + limit : r[k].norm > 0)
            break;
        if (norm > 0 && (r[k].norm <= norm - limit || !(sqrt(sparse_dist2(bbv, i, r[k].id)) < limit)))
            continue;
        double gap = fabs(warps[i] - warps[r[k].id]);
        if (gap < best_gap || (gap == best_gap && r[k].id < best)) {
            best = r[k].id;
            best_gap = gap;
        }
    }
    return best;
}

/* Inserts launch i among its group's representatives in (norm, id) order. */
static void photon_insert(photon_walk *w, size_t g, uint32_t i)
{
    photon_rep *r = w->reps + w->rep_start[g];
    size_t n = w->rep_count[g]++;
    size_t at = photon_lower(r, n, w->norm[i]);
    while (at < n && r[at].norm == w->norm[i]) /* ids only grow: after equal norms */
        at++;
    memmove(r + at + 1, r + at, (n - at) * sizeof *r);
    r[at] = (photon_rep){w->norm[i], i};
}

static ks_status photon_walk_all(const ks_method_input *in, const double *warps,
                                 photon_walk *w, ks_error *err)
{
    const ks_profile *p = in->profile;
    const ks_groups *g = in->groups;
    const ks_sparse_column *bbv = ks_profile_find_sparse(p, "bbv");
    const photon_params *pa = in->method_params;
    w->rep_of = malloc(p->n * sizeof *w->rep_of);
    w->rank = malloc(p->n * sizeof *w->rank);
    w->reps = malloc(p->n * sizeof *w->reps);
    w->norm = malloc(p->n * sizeof *w->norm);
    w->rep_start = calloc(g->count + 1, sizeof *w->rep_start);
    w->rep_count = calloc(g->count + 1, sizeof *w->rep_count);
    if (!w->rep_of || !w->rank || !w->reps || !w->norm || !w->rep_start || !w->rep_count)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    /* a group never holds more representatives than members */
    for (size_t gi = 0; gi < g->count; gi++)
        w->rep_start[gi + 1] = w->rep_start[gi] + g->size[gi];
    for (size_t i = 0; i < p->n; i++)
        w->norm[i] = sparse_norm(bbv, (uint32_t)i);
    for (size_t i = 0; i < p->n; i++) {
        size_t gi = g->group_of[i];
        uint32_t r = photon_match(bbv, warps, w, gi, (uint32_t)i, pa->threshold);
        if (r == i) {
            w->rank[i] = (uint32_t)w->rep_count[gi];
            photon_insert(w, gi, (uint32_t)i);
        }
        w->rep_of[i] = r;
    }
    return KS_OK;
}

static ks_status photon_clusters(const ks_profile *p, const ks_groups *g, const photon_walk *w,
                                 ks_rep_model *m, ks_error *err)
{
    /* members of every representative, in launch order: representatives are
     * numbered in launch order, then members counted and placed */
    uint32_t *slot = malloc(p->n * sizeof *slot);
    size_t *start = calloc(p->n + 1, sizeof *start);
    uint32_t *ids = malloc(p->n * sizeof *ids);
    size_t reps = 0;
    ks_status st = slot && start && ids ? KS_OK
                                        : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < p->n && st == KS_OK; i++)
        if (w->rep_of[i] == i)
            slot[i] = (uint32_t)reps++;
    for (size_t i = 0; i < p->n && st == KS_OK; i++)
        start[slot[w->rep_of[i]] + 1]++;
    for (size_t r = 0; r < reps && st == KS_OK; r++)
        start[r + 1] += start[r];
    for (size_t i = 0; i < p->n && st == KS_OK; i++)
        ids[start[slot[w->rep_of[i]]]++] = (uint32_t)i;
    /* start[r] now ends representative r: representative r begins at start[r-1] */
    size_t begin = 0;
    for (size_t i = 0; i < p->n && st == KS_OK; i++) {
        if (w->rep_of[i] != i)
            continue;
        size_t r = slot[i];
        char path[32];
        /* the representative's number among its kernel's, e.g. "3" */
        snprintf(path, sizeof path, "%u", w->rank[i]);
        st = ks_rep_add(m, g->group_of[i], path, ids + begin, start[r] - begin, (uint32_t)i,
                        err);
        begin = start[r];
    }
    free(slot);
    free(start);
    free(ids);
    return st;
}

static ks_status photon_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const ks_profile *p = in->profile;
    const ks_metric_column *warps = ks_profile_find_metric(p, "warps");
    if (!warps)
        return ks_error_set(err, KS_ERR_USAGE, p->source_path, 0,
                            "photon needs the warp count of every launch: pass %s or %s",
                            ks_source_option(KS_SOURCE_BBV), ks_source_option(KS_SOURCE_TRACES));
    for (size_t i = 0; i < p->n; i++)
        if (!(warps->values[i] >= 0))
            return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                "photon: launch %zu (%.80s) has no warp count", i,
                                ks_profile_name(p, i));
    photon_walk w = {0};
    ks_rep_model *m = ks_rep_model_new(err);
    ks_status st = m ? photon_walk_all(in, warps->values, &w, err) : KS_ERR_NOMEM;
    if (st == KS_OK)
        st = photon_clusters(p, in->groups, &w, m, err);
    KS_FREE(w.rep_of, w.rank, w.reps, w.norm, w.rep_start, w.rep_count);
    return ks_method_fit_end(st, m, ks_rep_model_free, model);
}

const ks_method ks_method_photon = {
    .name = "photon",
    .chooses = 1,
    .summary = "Photon: per kernel, reuse the representative with a BBV within 5 % and the "
               "closest warp count (MICRO'23)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_SPARSE,
    .sparse = "bbv",
    KS_METHOD_PARAMS(photon_param_defs, photon_params),
    KS_REP_METHOD(photon_fit),
};
