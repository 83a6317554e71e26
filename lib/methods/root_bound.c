/*
 * root_bound.c - an integer-aware lower bound on ROOT's cost.
 *
 * The Lagrangian bound (ks_strata_lower_bound) is loose where a few lumpy
 * groups dominate: integer sizes of strata with six 24 ms calls leave a
 * duality gap that no plan can close.  Groups whose exact (cost, variance)
 * frontier is known (ks_strata_exact_frontier) need no relaxation: their
 * frontiers are merged exactly, and only the other groups are relaxed.  For a
 * merged point (c, v) the rest must fit in V - v, and by weak duality costs at
 * least max_lambda H(lambda) - lambda (V - v), H the sum of the rest's exact
 * Lagrangian optima; so
 *     LB = min over merged points with v <= V of c + max_lambda [H(lambda) - lambda (V - v)]
 * bounds every design of the unit family.  With every group exact it is the
 * optimum itself.  Any lambda gives a valid bound, so a grid of them will do.
 */
#include "root_strata.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the exact merge gives up beyond this many pairs (the groups left over are
 * relaxed instead) */
#define BOUND_MAX_PAIRS (1u << 22)
/* lambda grid: this many points per octave over BOUND_OCTAVES around the
 * Lagrangian bound's own multiplier */
#define BOUND_PER_OCTAVE 4
#define BOUND_OCTAVES 20
#define BOUND_GRID (BOUND_PER_OCTAVE * BOUND_OCTAVES + 1)
/* the rest's dual is evaluated only while this is at most this much work
 * (units^2 per group per lambda) */
#define BOUND_MAX_WORK 200000000.0

typedef struct cv {
    double cost, var;
} cv;

/* Merged points are kept per bucket of relative variance BOUND_STEP (below
 * BOUND_FLOOR times the bound, one bucket) as the bucket's lower-left corner:
 * its least cost and least variance.  A corner is below every point it
 * stands for, so the bound stays valid, and the sets stay small. */
#define BOUND_STEP 0.001
/* Corners compound over merges (each may lower the variance by a step), so
 * only the heaviest groups are merged exactly; the rest are relaxed, which
 * loses little where a group is one of many. */
#define BOUND_EXACT_GROUPS 16
#define BOUND_FLOOR 1e-7

static size_t bucket_count(void)
{
    return 2 + (size_t)(-log2(BOUND_FLOOR) / log2(1 + BOUND_STEP));
}

static size_t bucket_of(double v, double log_floor, double inv_step, size_t nb)
{
    double x = (ks_rough_log2(v) - log_floor) * inv_step;
    if (!(x > 0))
        return 0;
    size_t k = 1 + (size_t)x;
    return k < nb ? k : nb - 1;
}

/* The buckets of the exact merges: one array for every merge of a bound,
 * all empty (INFINITY) between merges, so a merge touches only the buckets
 * its pairs fall in (a small profile's pairs fill a few dozen of the
 * 16,000). */
typedef struct bound_buckets {
    cv *bk;
    size_t nb;
    double log_floor, inv_step;
    uint64_t *filled; /* a bit per bucket that a merge filled */
} bound_buckets;

/* merges group g's exact frontier into cur (corners by increasing
 * variance, falling cost); false when that would take too many pairs */
static ks_status merge_exact(const ks_strata_group *g, bound_buckets *b, cv **cur, size_t *ncur,
                             double bound, bool *merged, ks_error *err)
{
    *merged = false;
    if ((double)*ncur * (double)g->points > BOUND_MAX_PAIRS)
        return KS_OK;
    cv *bk = b->bk;
    size_t nt = 0, lo = b->nb, hi = 0;
    for (size_t j = 0; j < g->points; j++)
        for (size_t i = 0; i < *ncur; i++) {
            double v = (*cur)[i].var + g->point[j].var;
            if (v > bound)
                break; /* cur is by increasing variance */
            double c = (*cur)[i].cost + g->point[j].cost;
            size_t k = bucket_of(v, b->log_floor, b->inv_step, b->nb);
            cv *e = &bk[k];
            if (e->cost == INFINITY) {
                b->filled[k / 64] |= UINT64_C(1) << (k % 64);
                nt++;
                lo = k < lo ? k : lo;
                hi = k > hi ? k : hi;
            }
            e->cost = c < e->cost ? c : e->cost;
            e->var = v < e->var ? v : e->var;
        }
    cv *out = malloc((nt ? nt : 1) * sizeof *out);
    if (!out)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    /* the filled buckets by increasing variance, emptied for the next merge */
    size_t k = 0;
    for (size_t w = lo / 64; nt && w <= hi / 64; w++)
        for (uint64_t bits = b->filled[w]; bits; bits &= bits - 1) {
            cv *e = &bk[w * 64 + (size_t)__builtin_ctzll(bits)];
            if (k == 0 || e->cost < out[k - 1].cost)
                out[k++] = *e;
            *e = (cv){INFINITY, INFINITY};
        }
    for (size_t w = lo / 64; nt && w <= hi / 64; w++)
        b->filled[w] = 0;
    free(*cur);
    *cur = out;
    *ncur = k;
    *merged = true;
    return KS_OK;
}

ks_status ks_strata_lower_bound_exact(ks_strata_group *g, size_t count, double bound,
                                      double lambda, double *lb, ks_error *err)
{
    ks_key_index *order = malloc((count + 1) * sizeof *order);
    bool *in = calloc(count + 1, sizeof *in);
    cv *cur = malloc(sizeof *cur);
    double *h = malloc(BOUND_GRID * sizeof *h), *lam = malloc(BOUND_GRID * sizeof *lam);
    bound_buckets b = {NULL, bucket_count(), ks_rough_log2(BOUND_FLOOR * bound),
                       1 / log2(1 + BOUND_STEP), NULL};
    b.bk = malloc(b.nb * sizeof *b.bk);
    b.filled = calloc(b.nb / 64 + 1, sizeof *b.filled);
    ks_status st = KS_OK;
    if (!order || !in || !cur || !h || !lam || !b.bk || !b.filled) {
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < b.nb; k++)
        b.bk[k] = (cv){INFINITY, INFINITY};
    cur[0] = (cv){0, 0};
    size_t ncur = 1, exact = 0;
    /* by decreasing total (a group's total is a finite sum of durations),
     * so the exact merge takes the heaviest groups first */
    for (size_t i = 0; i < count; i++)
        order[i] = (ks_key_index){-ks_key_of_double(g[i].total), (uint32_t)i};
    ks_sort_key_index(order, count);
    for (size_t i = 0; i < count && st == KS_OK; i++) {
        size_t gi = order[i].index;
        if (!g[gi].exact || exact == BOUND_EXACT_GROUPS)
            continue;
        st = merge_exact(&g[gi], &b, &cur, &ncur, bound, &in[gi], err);
        exact += in[gi];
    }
    double work = 0;
    for (size_t i = 0; i < count; i++)
        work += in[i] ? 0 : (double)g[i].units * (double)g[i].units * BOUND_GRID;
    if (st != KS_OK || exact == 0 || ncur == 0 || work > BOUND_MAX_WORK ||
        !(lambda > 0) || !isfinite(lambda))
        goto done;
    double base = log2(lambda) - BOUND_OCTAVES / 4.0;
    for (int k = 0; k < BOUND_GRID; k++) {
        double c, v;
        lam[k] = exp2(base + (double)k / BOUND_PER_OCTAVE);
        long double sum = 0;
        for (size_t i = 0; i < count; i++)
            sum += in[i] ? 0 : ks_strata_solve(&g[i], lam[k], &c, &v, NULL, NULL);
        h[k] = (double)sum;
    }
    double h0 = 0, c0, v0; /* lambda = 0: the rest's cheapest design at any variance */
    for (size_t i = 0; i < count; i++)
        h0 += in[i] ? 0 : ks_strata_solve(&g[i], 0, &c0, &v0, NULL, NULL);
    double best = INFINITY;
    for (size_t i = 0; i < ncur; i++) {
        double w = bound - cur[i].var, rest = exact == count ? 0 : h0;
        for (int k = 0; exact < count && k < BOUND_GRID; k++) {
            double val = h[k] - lam[k] * w;
            rest = val > rest ? val : rest;
        }
        best = cur[i].cost + rest < best ? cur[i].cost + rest : best;
    }
    if (isfinite(best) && best > *lb)
        *lb = best;
done:
    free(order);
    free(in);
    free(cur);
    free(h);
    free(lam);
    free(b.bk);
    free(b.filled);
    return st;
}
