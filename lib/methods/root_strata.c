/*
 * root_strata.c - ROOT's optimiser: contiguous duration strata and integer
 * sample sizes chosen together to minimise the simulated time under a
 * variance bound (docs/methods.md, "ROOT at the limit").
 *
 * Why a Lagrangian and a frontier: for a fixed multiplier lambda the problem
 * separates into strata, each stratum's best integer m is the floor or the
 * ceiling of its continuous optimum (the cost is convex in m), and the best
 * contiguous stratification is a shortest path over the units.  The vertices
 * this traces as lambda grows are the lower convex hull of the group's
 * (cost, variance) plans; plans between vertices (lumpy strata, such as a few
 * long NCCL calls) are reached by combining different vertices of different
 * groups in the merged frontier.
 */
#include "root_strata.h"
#include "root_sort.h"
#include "sort.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Refinement stops at this many vertices per group: a guard on time, far
 * above what the thinning leaves on real profiles. */
#define STRATA_MAX_POINTS 4096
/* Merges of at most this many pairs are kept exact while the result has at
 * most STRATA_EXACT_KEEP points. */
#define STRATA_EXACT_PAIRS 4096
#define STRATA_EXACT_KEEP 4096
/* Merged frontiers are thinned to this many buckets at most. */
#define STRATA_MAX_BUCKETS 200000

void ks_strata_group_free(ks_strata_group *g)
{
    KS_FREE(g->start, g->s1, g->s2, g->pure, g->pair, g->best, g->cost, g->var, g->from,
            g->point);
    for (size_t b = 0; g->exact && b <= g->units; b++)
        free(g->exact[b]);
    free(g->exact);
    free(g->exact_count);
    memset(g, 0, sizeof *g);
}

/* Units: runs of equal durations, merged into bins when there are too many
 * (a bin closes on count or on span, so a long tail keeps bins of its own). */
static size_t build_units(ks_strata_group *g, const double *v, size_t n)
{
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || v[i] != v[i - 1];
    bool bin = distinct > 2 * KS_STRATA_BINS;
    double per_bin = (double)n / KS_STRATA_BINS, span = (v[n - 1] - v[0]) / KS_STRATA_BINS;
    size_t u = 0, i = 0;
    while (i < n) {
        size_t lo = i, runs = 0;
        do {
            size_t j = i;
            while (j < n && v[j] == v[i])
                j++;
            i = j;
            runs++;
        } while (bin && i < n && (double)(i - lo) < per_bin && v[i] - v[lo] <= span);
        g->start[u] = lo;
        g->pure[u] = runs == 1;
        long double s1 = 0, s2 = 0;
        for (size_t k = lo; k < i; k++) {
            long double d = (long double)v[k] - g->shift;
            s1 += d;
            s2 += d * d;
        }
        g->s1[u + 1] = g->s1[u] + s1;
        g->s2[u + 1] = g->s2[u] + s2;
        u++;
    }
    g->start[u] = n;
    return u;
}

static stratum_stat stratum_compute(const ks_strata_group *g, size_t a, size_t b);

ks_status ks_strata_group_init(ks_strata_group *g, const double *sorted, size_t n,
                               ks_variance_kind kind, ks_error *err)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->kind = kind;
    size_t cap = n + 2;
    g->start = malloc(cap * sizeof *g->start);
    g->s1 = calloc(cap, sizeof *g->s1);
    g->s2 = calloc(cap, sizeof *g->s2);
    g->pure = malloc(cap);
    if (!g->start || !g->s1 || !g->s2 || !g->pure)
        goto nomem;
    g->shift = n ? sorted[0] : 0;
    g->units = n ? build_units(g, sorted, n) : 0;
    long double total = 0;
    for (size_t i = 0; i < n; i++)
        total += sorted[i];
    g->total = (double)total;
    size_t u = g->units + 1;
    g->pair = malloc((u * (u - 1) / 2 + 1) * sizeof *g->pair);
    if (!g->pair)
        goto nomem;
    for (size_t b = 1; b < u; b++)
        for (size_t a = 0; a < b; a++)
            g->pair[b * (b - 1) / 2 + a] = stratum_compute(g, a, b);
    g->best = malloc(u * sizeof *g->best);
    g->cost = malloc(u * sizeof *g->cost);
    g->var = malloc(u * sizeof *g->var);
    g->from = malloc(u * sizeof *g->from);
    if (!g->best || !g->cost || !g->var || !g->from)
        goto nomem;
    return KS_OK;
nomem:
    ks_strata_group_free(g);
    return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
}

double ks_strata_variance(ks_variance_kind kind, double n, double s2, uint64_t m)
{
    double md = (double)m;
    if (s2 <= 0 || md >= n || m == 0)
        return 0;
    if (kind == KS_VARIANCE_FINITE_POPULATION)
        return n * s2 * (n - md) / md;
    return n * s2 * (n - 1) / md; /* N^2 sigma^2 / m with sigma^2 = S^2 (n-1)/n */
}

static stratum_stat stratum_compute(const ks_strata_group *g, size_t a, size_t b)
{
    stratum_stat s;
    s.n = (double)(g->start[b] - g->start[a]);
    long double s1 = g->s1[b] - g->s1[a], s2 = g->s2[b] - g->s2[a];
    s.mean = (double)(g->shift + s1 / s.n);
    if (s.n < 2 || (b - a == 1 && g->pure[a])) {
        s.s2 = 0;
    } else {
        long double sse = s2 - s1 * s1 / s.n;
        s.s2 = sse > 0 ? (double)(sse / (s.n - 1)) : 0;
    }
    double scale = g->kind == KS_VARIANCE_FINITE_POPULATION ? s.s2 : s.s2 * (s.n - 1) / s.n;
    s.k = s.mean > 0 ? s.n * sqrt(scale / s.mean) : INFINITY;
    s.ns2 = s.n * s.s2;
    s.q = isfinite(s.k) ? 2 * s.mean * s.k : 0;
    return s;
}

/* strata [a, b) are numbered b (b - 1) / 2 + a */
static const stratum_stat *stratum_of(const ks_strata_group *g, size_t a, size_t b)
{
    return &g->pair[b * (b - 1) / 2 + a];
}

/* floor of a non-negative x below 2^63 by truncation: the same double as
 * floor(), which is a library call or a long sequence on x86-64's baseline */
static inline double floor_nonneg(double x)
{
    return x >= 0 && x < 0x1p63 ? (double)(int64_t)x : floor(x);
}

/* The stratum's best m at lambda (floor or ceiling of the continuous
 * optimum, or the census under with-replacement variance, which drops to 0
 * only at m = N); returns m mu + lambda var(m).  The hot loop of the
 * optimiser: the finite-population case is written out, and m is returned as
 * the integer-valued double it is computed as (the caller converts it only
 * for the strata it keeps). */
static inline double stratum_best(ks_variance_kind kind, const stratum_stat *s, double lambda,
                                  double sqrt_lambda, double *m_out, double *var_out)
{
    double n = s->n;
    if (n <= 1 || s->s2 <= 0) {
        *m_out = 1;
        *var_out = 0;
        return s->mean;
    }
    if (!(s->mean > 0) || isinf(lambda)) {
        *m_out = n;
        *var_out = 0;
        return s->mean * n;
    }
    double mstar = s->k * sqrt_lambda;
    double f = mstar >= n ? n : floor_nonneg(mstar);
    double m0 = f < 1 ? 1 : f, m1 = f + 1 > n ? n : f + 1;
    if (kind == KS_VARIANCE_FINITE_POPULATION) {
        double a = s->ns2;
        double v0 = a * (n - m0) / m0, v1 = a * (n - m1) / m1;
        double c0 = m0 * s->mean + lambda * v0, c1 = m1 * s->mean + lambda * v1;
        bool second = c1 < c0;
        *m_out = second ? m1 : m0;
        *var_out = second ? v1 : v0;
        return second ? c1 : c0;
    }
    double cand[3] = {m0, m1, n}, best = INFINITY;
    for (int i = 0; i < 3; i++) {
        double v = ks_strata_variance(kind, n, s->s2, (uint64_t)cand[i]);
        double val = cand[i] * s->mean + lambda * v;
        if (val < best) {
            best = val;
            *m_out = (double)(uint64_t)cand[i];
            *var_out = v;
        }
    }
    return best;
}

static void census(const ks_strata_group *g, double *cost, double *var, ks_stratum *out,
                   size_t *count)
{
    *cost = g->total;
    *var = 0;
    if (out) {
        const stratum_stat *s = stratum_of(g, 0, g->units);
        out[0] = (ks_stratum){0, g->n, g->n, s->mean, s->s2, 0};
        *count = 1;
    }
}

/* A lower bound on stratum_best's value under the finite-population
 * variance, from the continuous relaxation: f(m) = m mu + lambda ns2 (n/m -
 * 1) is convex with its minimum over m > 0 at m* = k sqrt(lambda), where it
 * is q sqrt(lambda) - lambda ns2; over [1, n] it is f(1) or f(n) when m* is
 * outside (decided with a margin, the global minimum otherwise), and every
 * integer size costs at least that.  Shrunk by 2^-40, far more than the
 * rounding of either computation, so it stays below the computed value. */
static inline double stratum_lower(const stratum_stat *s, double lambda, double sqrt_lambda)
{
    double ms = s->k * sqrt_lambda, v;
    if (ms >= s->n * (1 + 1e-9))
        v = s->n * s->mean;
    else if (ms <= 1 - 1e-9)
        v = s->mean + lambda * s->ns2 * (s->n - 1);
    else
        v = s->q * sqrt_lambda - lambda * s->ns2;
    return v * (1 - 0x1p-40);
}

/* The DP's best split of units [0, b) found so far: its value, cost and
 * variance, and the start of its last stratum. */
typedef struct dp_cell {
    double best, cost, var;
    size_t from;
} dp_cell;

/* Stratum [a, b) after the best split of [0, a) (row: the strata ending at
 * b) as a candidate for d: taken when lower, or as low from an earlier
 * start (a scan in order of a never sees that tie). */
static inline void dp_try(const ks_strata_group *g, const stratum_stat *row, size_t a,
                          double lambda, double sqrt_lambda, dp_cell *d)
{
    double m = 1, v = 0;
    double val = g->best[a] + stratum_best(g->kind, &row[a], lambda, sqrt_lambda, &m, &v);
    if (val < d->best || (val == d->best && a < d->from))
        *d = (dp_cell){val, g->cost[a] + m * row[a].mean, g->var[a] + v, a};
}

static inline void dp_keep(ks_strata_group *g, size_t b, const dp_cell *d)
{
    g->best[b] = d->best;
    g->cost[b] = d->cost;
    g->var[b] = d->var;
    g->from[b] = d->from;
}

/* The DP of ks_strata_solve for the finite-population variance and lambda >=
 * 0, with the same results: each unit first tries the start the previous
 * solve chose there (a near multiplier usually keeps it), then passes over
 * every start whose lower bound (stratum_lower) already exceeds the best,
 * and among equal values takes the lowest start, as the plain scan does. */
static void solve_bounded(ks_strata_group *g, double lambda, double sqrt_lambda)
{
    size_t U = g->units;
    for (size_t b = 1; b <= U; b++) {
        const stratum_stat *row = stratum_of(g, 0, b);
        dp_cell d = {INFINITY, 0, 0, 0};
        size_t first = g->solved ? g->from[b] : b;
        if (first < b) {
            double m = 1, v = 0;
            double val = g->best[first] +
                         stratum_best(g->kind, &row[first], lambda, sqrt_lambda, &m, &v);
            d = (dp_cell){val, g->cost[first] + m * row[first].mean, g->var[first] + v, first};
        }
        for (size_t a = 0; a < b; a++)
            if (a != first && !(g->best[a] + stratum_lower(&row[a], lambda, sqrt_lambda) > d.best))
                dp_try(g, row, a, lambda, sqrt_lambda, &d);
        dp_keep(g, b, &d);
    }
    g->solved = true;
}

double ks_strata_solve(ks_strata_group *g, double lambda, double *cost, double *var,
                       ks_stratum *out, size_t *count)
{
    if (g->units == 0) {
        *cost = *var = 0;
        if (count)
            *count = 0;
        return 0;
    }
    if (isinf(lambda)) {
        census(g, cost, var, out, count);
        return *cost;
    }
    size_t U = g->units;
    double sqrt_lambda = sqrt(lambda);
    bool prune = lambda >= 0; /* then no stratum's value is below its mean */
    bool bounded = g->kind == KS_VARIANCE_FINITE_POPULATION && lambda >= 0;
    g->best[0] = g->cost[0] = g->var[0] = 0;
    if (bounded)
        solve_bounded(g, lambda, sqrt_lambda);
    for (size_t b = 1; b <= U && !bounded; b++) {
        dp_cell d = {INFINITY, 0, 0, 0};
        const stratum_stat *row = stratum_of(g, 0, b);
        for (size_t a = 0; a < b; a++)
            /* every size costs at least one draw of the mean, and rounding
             * keeps that order, so such an a cannot beat the best */
            if (!(prune && row[a].mean > 0 && g->best[a] + row[a].mean >= d.best))
                dp_try(g, row, a, lambda, sqrt_lambda, &d);
        dp_keep(g, b, &d);
    }
    *cost = g->cost[U];
    *var = g->var[U];
    if (out) {
        size_t k = 0;
        for (size_t b = U; b > 0; b = g->from[b])
            k++;
        *count = k;
        for (size_t b = U; b > 0; b = g->from[b]) {
            size_t a = g->from[b];
            const stratum_stat *s = stratum_of(g, a, b);
            ks_stratum *o = &out[--k];
            o->lo = g->start[a];
            o->hi = g->start[b];
            o->mean = s->mean;
            o->s2 = s->s2;
            double m = 1;
            stratum_best(g->kind, s, lambda, sqrt_lambda, &m, &o->var);
            o->m = (uint64_t)m;
        }
    }
    return g->best[U];
}

/* One greedy move on fixed strata: dir > 0 adds the sample that buys the
 * most variance per ns, dir < 0 removes the one that costs the least
 * variance per ns saved.  Returns false when no move is possible. */
static bool chain_move(ks_variance_kind kind, ks_stratum *st, size_t k, int dir, double *cost,
                       double *var)
{
    size_t best = k;
    double best_ratio = 0;
    for (size_t h = 0; h < k; h++) {
        double n = (double)(st[h].hi - st[h].lo);
        uint64_t m = st[h].m, to = dir > 0 ? m + 1 : m - 1;
        if ((dir > 0 && (double)m >= n) || (dir < 0 && m <= 1) || st[h].s2 <= 0)
            continue;
        double dv = fabs(ks_strata_variance(kind, n, st[h].s2, to) - st[h].var);
        double ratio = st[h].mean > 0 ? dv / st[h].mean : (dir > 0 ? INFINITY : 0);
        if (best == k || (dir > 0 ? ratio > best_ratio : ratio < best_ratio)) {
            best = h;
            best_ratio = ratio;
        }
    }
    if (best == k)
        return false;
    ks_stratum *h = &st[best];
    double n = (double)(h->hi - h->lo);
    h->m = dir > 0 ? h->m + 1 : h->m - 1;
    double v = ks_strata_variance(kind, n, h->s2, h->m);
    *var += v - h->var;
    *cost += dir > 0 ? h->mean : -h->mean;
    h->var = v;
    return true;
}

/* Lagrangian vertices leave gaps (lumpy strata); plans inside a gap are
 * reached from its ends by greedy moves on the end's strata, at most
 * CHAIN_STEPS each way. */
#define CHAIN_STEPS 64

static ks_status add_chains(ks_strata_group *g, size_t vertices, size_t *cap, ks_error *err)
{
    ks_stratum *st = malloc((g->units + 1) * sizeof *st);
    if (!st)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t np = g->points;
    for (size_t i = 0; i + 1 < vertices; i++) {
        for (int dir = 1; dir >= -1; dir -= 2) {
            const ks_strata_point from = g->point[dir > 0 ? i : i + 1];
            double stop = g->point[dir > 0 ? i + 1 : i].var, c, v;
            size_t k;
            ks_strata_solve(g, from.lambda, &c, &v, st, &k);
            for (int step = 1; step <= CHAIN_STEPS; step++) {
                if (!chain_move(g->kind, st, k, dir, &c, &v) ||
                    (dir > 0 ? v <= stop : v >= stop))
                    break;
                if (np + 1 > *cap &&
                    ks_grow((void **)&g->point, cap, np + 1, sizeof *g->point, err) != KS_OK) {
                    free(st);
                    return KS_ERR_NOMEM;
                }
                g->point[np++] = (ks_strata_point){c, v, from.lambda, 0, dir * step};
            }
        }
    }
    free(st);
    g->points = np;
    return KS_OK;
}

KS_ORDER_BY4(cmp_point_cost, ks_strata_point, cost, var, lambda, steps)

/* keep strictly decreasing variance with strictly increasing cost */
static size_t pareto_points(ks_strata_point *pt, size_t np)
{
    size_t k = 0;
    for (size_t i = 0; i < np; i++) {
        if (k > 0 && !(pt[i].var < pt[k - 1].var))
            continue;
        while (k > 0 && pt[i].cost <= pt[k - 1].cost)
            k--;
        pt[k++] = pt[i];
    }
    return k;
}

static int cmp_point_lambda(const void *x, const void *y)
{
    const ks_strata_point *a = x, *b = y;
    if (a->lambda != b->lambda)
        return a->lambda < b->lambda ? -1 : 1;
    return a->cost < b->cost ? -1 : (a->cost > b->cost);
}

ks_status ks_strata_frontier(ks_strata_group *g, double var_floor, double var_cap,
                             double rel_step, ks_error *err)
{
    free(g->point);
    g->points = 0;
    size_t cap = 64, stack_cap = 128;
    g->point = malloc(cap * sizeof *g->point);
    size_t *stack = malloc(stack_cap * sizeof *stack);
    if (!g->point || !stack) {
        free(stack);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_strata_point *pt = g->point;
    ks_strata_solve(g, 0, &pt[0].cost, &pt[0].var, NULL, NULL);
    pt[0].lambda = 0;
    census(g, &pt[1].cost, &pt[1].var, NULL, NULL);
    pt[1].lambda = INFINITY;
    pt[0].ref = pt[1].ref = 0;
    pt[0].steps = pt[1].steps = 0;
    size_t np = 2, top = 0;
    stack[top++] = 0;
    stack[top++] = 1;
    /* Eisner-Severance: the line through two vertices meets the hull between
     * them at a new vertex or nowhere */
    while (top > 0) {
        size_t ib = stack[--top], ia = stack[--top];
        ks_strata_point a = pt[ia], b = pt[ib];
        double dv = a.var - b.var, dc = b.cost - a.cost;
        if (!(dv > rel_step * a.var) || !(dc > 0.1 * rel_step * a.cost) ||
            a.var <= var_floor || b.var >= var_cap || np == STRATA_MAX_POINTS)
            continue;
        double lambda = dc / dv, c, v;
        double val = ks_strata_solve(g, lambda, &c, &v, NULL, NULL);
        double line = a.cost + lambda * a.var;
        if (!(val < line - 1e-12 * fabs(line)) || !(v < a.var && v > b.var))
            continue;
        if ((np + 1 > cap && ks_grow((void **)&g->point, &cap, np + 1, sizeof *pt, err)) ||
            (top + 4 > stack_cap &&
             ks_grow((void **)&stack, &stack_cap, top + 4, sizeof *stack, err))) {
            free(stack);
            return KS_ERR_NOMEM;
        }
        pt = g->point;
        pt[np] = (ks_strata_point){c, v, lambda, 0, 0};
        stack[top++] = ia;
        stack[top++] = np;
        stack[top++] = np;
        stack[top++] = ib;
        np++;
    }
    free(stack);
    qsort(pt, np, sizeof *pt, cmp_point_lambda);
    g->points = pareto_points(pt, np);
    ks_status st = add_chains(g, g->points, &cap, err);
    if (st != KS_OK)
        return st;
    qsort(g->point, g->points, sizeof *g->point, cmp_point_cost);
    g->points = pareto_points(g->point, g->points);
    return KS_OK;
}

KS_ORDER_BY4(cmp_pareto, ks_pareto_point, var, cost, from, m)

KS_STABLE_SORT(sort_pareto, ks_pareto_point, cmp_pareto)

/* The sizes worth trying for a stratum: every m, except where more samples
 * cannot lower the variance (no spread: one; no time: the census). */
static void stratum_m_range(const stratum_stat *s, uint64_t *lo, uint64_t *hi)
{
    uint64_t n = (uint64_t)s->n;
    *lo = 1;
    *hi = n;
    if (n <= 1 || s->s2 <= 0)
        *hi = 1;
    else if (!(s->mean > 0))
        *lo = n;
}

/* Candidates of the exact frontier are screened by buckets of variance
 * before they are sorted.  A candidate whose cost is at least the least cost
 * in a lower bucket (that of a candidate with strictly less variance, since
 * buckets are monotone in variance) is dropped by the Pareto filter whatever
 * else there is, and each candidate so dropped has a kept one before it that
 * costs no more, so dropping it early changes neither which candidates the
 * filter keeps nor their order.  The buckets cover 64 octaves below the cap,
 * 16 to an octave. */
#define SCREEN_BUCKETS 1024
#define SCREEN_PER_OCTAVE 16
/* fewer candidates than this for a unit are sorted unscreened */
#define SCREEN_MIN 256

typedef struct screen {
    double floor;                 /* rough log2 of the lowest bucket's top */
    double least[SCREEN_BUCKETS]; /* least cost per bucket, then below each */
} screen;

static inline double rough_log2_nonneg(double v);

/* monotone in v: rough_log2, a shift and a positive scale all keep order */
static inline size_t screen_bucket(const screen *sc, double v)
{
    double x = (rough_log2_nonneg(v) - sc->floor) * SCREEN_PER_OCTAVE;
    return x > 0 ? x < SCREEN_BUCKETS - 1 ? (size_t)x : SCREEN_BUCKETS - 1 : 0;
}

/* Each candidate for units [0, b) whose variance is within var_cap, in the
 * order they are made: a point of [0, a)'s frontier, then stratum [a, b)
 * of each size worth trying.  Pass 1 (out NULL): the least cost of each
 * variance bucket into sc, the buckets used widening [*lo_k, *hi_k]; pass
 * 2: appended to *out (*n of them, room for *cap), those that can be on
 * the frontier, below the least cost of the buckets below theirs (every
 * one when pass 1 used none). */
static ks_status each_candidate(const ks_strata_group *g, size_t b, double var_cap, screen *sc,
                                size_t *lo_k, size_t *hi_k, ks_pareto_point **out, size_t *n,
                                size_t *cap, ks_error *err)
{
    bool screened = *lo_k <= *hi_k;
    for (size_t a = 0; a < b; a++) {
        stratum_stat s = *stratum_of(g, a, b);
        uint64_t lo, hi;
        stratum_m_range(&s, &lo, &hi);
        for (uint64_t m = lo; m <= hi; m++) {
            double c = (double)m * s.mean, v = ks_strata_variance(g->kind, s.n, s.s2, m);
            for (size_t i = 0; i < g->exact_count[a]; i++) {
                const ks_pareto_point *p = &g->exact[a][i];
                double pc = p->cost + c, pv = p->var + v;
                if (pv > var_cap)
                    continue;
                if (!out) {
                    size_t k = screen_bucket(sc, pv);
                    *lo_k = k < *lo_k ? k : *lo_k;
                    *hi_k = k > *hi_k ? k : *hi_k;
                    sc->least[k] = pc < sc->least[k] ? pc : sc->least[k];
                    continue;
                }
                if (screened && !(pc < sc->least[screen_bucket(sc, pv)]))
                    continue;
                if (*n == *cap && ks_grow((void **)out, cap, *n + 1, sizeof **out, err) != KS_OK)
                    return KS_ERR_NOMEM;
                (*out)[(*n)++] = (ks_pareto_point){pc, pv, (uint32_t)a, (uint32_t)i, m};
            }
        }
    }
    return KS_OK;
}

ks_status ks_strata_exact_frontier(ks_strata_group *g, double var_cap, size_t work, bool *done,
                                   ks_error *err)
{
    *done = false;
    size_t U = g->units, used = 0, cap = 0, sort_cap = 0;
    ks_pareto_point *cand = NULL, *sort_tmp = NULL;
    screen *sc = NULL; /* made for the first unit that has enough candidates */
    g->exact = calloc(U + 1, sizeof *g->exact);
    g->exact_count = calloc(U + 1, sizeof *g->exact_count);
    g->exact[0] = malloc(sizeof **g->exact);
    if (!g->exact || !g->exact_count || !g->exact[0])
        goto nomem;
    g->exact[0][0] = (ks_pareto_point){0, 0, 0, 0, 0};
    g->exact_count[0] = 1;
    for (size_t b = 1; b <= U; b++) {
        /* the work count, which decides as before whether the group is too
         * big; then, when there are enough candidates to pay for it, the
         * least cost of each variance bucket */
        size_t here = 0, lo_k = SCREEN_BUCKETS, hi_k = 0;
        for (size_t a = 0; a < b; a++) {
            stratum_stat s = *stratum_of(g, a, b);
            uint64_t lo, hi;
            stratum_m_range(&s, &lo, &hi);
            used += g->exact_count[a] * (size_t)(hi - lo + 1);
            here += g->exact_count[a] * (size_t)(hi - lo + 1);
            if (used > work)
                goto give_up;
        }
        if (here >= SCREEN_MIN && !sc) {
            if (!(sc = malloc(sizeof *sc)))
                goto nomem;
            sc->floor = rough_log2_nonneg(var_cap) - 64;
            for (size_t k = 0; k < SCREEN_BUCKETS; k++)
                sc->least[k] = INFINITY;
        }
        if (here >= SCREEN_MIN)
            each_candidate(g, b, var_cap, sc, &lo_k, &hi_k, NULL, NULL, NULL, err);
        double least = INFINITY; /* now: the least cost in the buckets below */
        for (size_t k = lo_k; k <= hi_k && lo_k <= hi_k; k++) {
            double cost = sc->least[k];
            sc->least[k] = least;
            least = cost < least ? cost : least;
        }
        if (lo_k <= hi_k) /* every bucket above: the least of all */
            for (size_t k = hi_k + 1; k < SCREEN_BUCKETS; k++)
                sc->least[k] = least;
        /* pass 2: the candidates that can be on the frontier, in the order
         * they were made */
        size_t nc = 0;
        if (each_candidate(g, b, var_cap, sc, &lo_k, &hi_k, &cand, &nc, &cap, err) != KS_OK)
            goto fail;
        for (size_t k = lo_k; k < SCREEN_BUCKETS && lo_k <= hi_k; k++)
            sc->least[k] = INFINITY; /* empty again for the next unit */
        if (!sort_pareto(cand, nc, &sort_tmp, &sort_cap))
            goto nomem;
        size_t k = 0;
        for (size_t i = 0; i < nc; i++)
            if (k == 0 || cand[i].cost < cand[k - 1].cost)
                cand[k++] = cand[i];
        g->exact[b] = malloc((k ? k : 1) * sizeof **g->exact);
        if (!g->exact[b])
            goto nomem;
        memcpy(g->exact[b], cand, k * sizeof *cand);
        g->exact_count[b] = k;
    }
    free(cand);
    free(sort_tmp);
    free(sc);
    cand = sort_tmp = NULL;
    sc = NULL;
    size_t k = g->exact_count[U];
    ks_strata_point *pt = malloc((k ? k : 1) * sizeof *pt);
    if (!pt)
        goto nomem;
    for (size_t i = 0; i < k; i++) { /* by increasing cost */
        const ks_pareto_point *p = &g->exact[U][k - 1 - i];
        pt[i] = (ks_strata_point){p->cost, p->var, NAN, k - 1 - i, 0};
    }
    free(g->point);
    g->point = pt;
    g->points = k;
    *done = true;
    return KS_OK;
give_up:
    free(cand);
    free(sort_tmp);
    free(sc);
    for (size_t b = 0; b <= U; b++)
        free(g->exact[b]);
    free(g->exact);
    free(g->exact_count);
    g->exact = NULL;
    g->exact_count = NULL;
    return KS_OK;
nomem:
    ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
fail:
    free(cand);
    free(sort_tmp);
    free(sc);
    return KS_ERR_NOMEM;
}

void ks_strata_point_strata(ks_strata_group *g, size_t i, ks_stratum *out, size_t *count)
{
    const ks_strata_point *pt = &g->point[i];
    if (!isnan(pt->lambda)) {
        double c, v;
        ks_strata_solve(g, pt->lambda, &c, &v, out, count);
        for (int step = 0; step < abs(pt->steps); step++)
            chain_move(g->kind, out, *count, pt->steps > 0 ? 1 : -1, &c, &v);
        return;
    }
    size_t k = 0, b = g->units, j = pt->ref;
    while (b > 0) {
        k++;
        const ks_pareto_point *p = &g->exact[b][j];
        b = p->from;
        j = p->prev;
    }
    *count = k;
    b = g->units;
    j = pt->ref;
    while (b > 0) {
        const ks_pareto_point *p = &g->exact[b][j];
        stratum_stat s = *stratum_of(g, p->from, b);
        out[--k] = (ks_stratum){g->start[p->from], g->start[b], p->m, s.mean, s.s2,
                                ks_strata_variance(g->kind, s.n, s.s2, p->m)};
        b = p->from;
        j = p->prev;
    }
}

size_t ks_strata_pick_single(const ks_strata_group *g, double bound)
{
    for (size_t i = 0; i < g->points; i++)
        if (g->point[i].var <= bound)
            return i;
    return g->points ? g->points - 1 : 0;
}

typedef struct merged {
    double cost, var;
    uint32_t prev, pt;
} merged;

KS_ORDER_BY4(cmp_merged, merged, var, cost, prev, pt)

KS_STABLE_SORT(sort_merged, merged, cmp_merged)

static size_t bucket_of(double v, double log_floor, double log_step)
{
    double x = (ks_rough_log2(v) - log_floor) / log_step;
    return x > 0 ? 1 + (size_t)x : 0;
}

/* The merge's variance buckets: it keeps one point of each. */
typedef struct merge_scale {
    double floor, inv_step, var_cap;
    size_t nb;
} merge_scale;

/* ks_rough_log2 for v >= +0, the same double: the bits less the exponent
 * bias are (exponent - 1023) 2^52 + mantissa exactly, and one rounding of
 * that, scaled by a power of two, is the one rounding of the sum there. */
static inline double rough_log2_nonneg(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (bits >> 63)
        return ks_rough_log2(v);
    return (double)(int64_t)(bits - (UINT64_C(1023) << 52)) * 0x1p-52;
}

static inline size_t merge_bucket(const merge_scale *sc, double v)
{
    double x = (rough_log2_nonneg(v) - sc->floor) * sc->inv_step;
    size_t k = x > 0 ? 1 + (x < 0x1p62 ? (size_t)(int64_t)x : (size_t)x) : 0;
    return k < sc->nb ? k : sc->nb - 1;
}

/*
 * Pairs (cur[i], point j) are offered to the buckets in blocks of
 * MERGE_BLOCK consecutive i.  A pair whose cost is at least that of some
 * pair in a lower bucket can never matter: were it its bucket's cheapest,
 * the bucket would be dropped by the falling-cost filter anyway, and if it is
 * not, the bucket's winner is the same without it.  So a whole block is
 * skipped when its cheapest pair (its last: cur's cost falls with i) costs at
 * least below[bucket of its first pair], the least cost of the witnesses
 * (the first pair of every block) in lower buckets.  On real profiles nine in
 * ten pairs are skipped so; the result is the same pair for pair.
 */
#define MERGE_BLOCK 16

static void merge_witnesses(const merge_scale *sc, const merged *cur, size_t ncur,
                            const ks_strata_group *gg, double *below)
{
    for (size_t k = 0; k < sc->nb; k++)
        below[k] = INFINITY;
    for (size_t j = 0; j < gg->points; j++) {
        double pv = gg->point[j].var, pc = gg->point[j].cost;
        for (size_t i = 0; i < ncur; i += MERGE_BLOCK) {
            double v = cur[i].var + pv, c = cur[i].cost + pc;
            if (v > sc->var_cap)
                break;
            size_t k = merge_bucket(sc, v);
            below[k] = c < below[k] ? c : below[k];
        }
    }
    double least = INFINITY; /* now: the least over lower buckets */
    for (size_t k = 0; k < sc->nb; k++) {
        double here = below[k];
        below[k] = least;
        least = here < least ? here : least;
    }
}

static void merge_point(const merge_scale *sc, const merged *cur, size_t ncur,
                        const ks_strata_point *pt, uint32_t j, const double *below, merged *bk,
                        size_t *used)
{
    double pv = pt->var, pc = pt->cost;
    for (size_t i0 = 0; i0 < ncur; i0 += MERGE_BLOCK) {
        size_t i1 = i0 + MERGE_BLOCK < ncur ? i0 + MERGE_BLOCK : ncur;
        double v0 = cur[i0].var + pv;
        if (v0 > sc->var_cap)
            return;
        if (cur[i1 - 1].cost + pc >= below[merge_bucket(sc, v0)])
            continue;
        for (size_t i = i0; i < i1; i++) {
            double c = cur[i].cost + pc, v = cur[i].var + pv;
            if (v > sc->var_cap)
                return; /* cur is by increasing variance */
            size_t k = merge_bucket(sc, v);
            *used = k + 1 > *used ? k + 1 : *used;
            if (c < bk[k].cost || (c == bk[k].cost && v < bk[k].var))
                bk[k] = (merged){c, v, (uint32_t)i, j};
        }
    }
}

/* grows a merge buffer to hold nb points; false: out of memory */
static bool merge_buffer_fit(merged **buf, size_t *cap, size_t nb)
{
    if (nb <= *cap)
        return true;
    merged *t = realloc(*buf, nb * sizeof *t);
    if (!t)
        return false;
    *buf = t;
    *cap = nb;
    return true;
}

ks_status ks_strata_pick_joint(ks_strata_group *g, size_t count, double bound, double var_floor,
                               double var_cap, double rel_step, size_t *choice, ks_error *err)
{
    ks_status st = KS_OK;
    double floor = ks_rough_log2(var_floor > DBL_MIN ? var_floor : DBL_MIN);
    double step = log2(1 + rel_step);
    size_t nb = bucket_of(var_cap, floor, step) + 1;
    if (nb > STRATA_MAX_BUCKETS) { /* coarser where the variances span too far */
        nb = STRATA_MAX_BUCKETS;
        step = (ks_rough_log2(var_cap) - floor) / (double)(nb - 2);
    }
    double inv_step = 1 / step;
    /* each level's (prev, pt) links, one arena: level gi's start at at[gi];
     * the points themselves only for the level being merged into (two
     * buffers, swapped) */
    size_t *at = calloc(count + 1, sizeof *at), link_cap = 0, buf_cap[2] = {nb, nb};
    uint32_t *link = NULL;
    merged *buf[2] = {malloc(nb * sizeof(merged)), malloc(nb * sizeof(merged))};
    int side = 0;
    merged *bk = buf[0];
    merged origin = {0, 0, 0, 0}, *pairs = NULL;
    size_t pair_cap = 0, below_cap = 0, sort_cap = 0;
    double *below = NULL;
    merged *sort_tmp = NULL;
    const merged *cur = &origin;
    size_t ncur = 1;
    if (!at || !buf[0] || !buf[1])
        goto nomem;
    for (size_t gi = 0; gi < count; gi++) {
        const ks_strata_group *gg = &g[gi];
        size_t nn = 0;
        bk = buf[side];
        if (ncur * gg->points <= STRATA_EXACT_PAIRS) {
            /* small: every pair, Pareto-filtered; thinned only if still long */
            size_t nc = 0;
            for (size_t j = 0; j < gg->points; j++)
                for (size_t i = 0; i < ncur; i++) {
                    double c = cur[i].cost + gg->point[j].cost,
                           v = cur[i].var + gg->point[j].var;
                    if (v > var_cap)
                        break;
                    if (nc == pair_cap &&
                        ks_grow((void **)&pairs, &pair_cap, nc + 1, sizeof *pairs, err) != KS_OK)
                        goto fail;
                    pairs[nc++] = (merged){c, v, (uint32_t)i, (uint32_t)j};
                }
            if (!sort_merged(pairs, nc, &sort_tmp, &sort_cap))
                goto nomem;
            for (size_t i = 0; i < nc; i++)
                if (nn == 0 || pairs[i].cost < pairs[nn - 1].cost)
                    pairs[nn++] = pairs[i];
            if (nn > STRATA_EXACT_KEEP) {
                /* by increasing variance and falling cost: the last of each
                 * bucket is its cheapest */
                size_t kept = 0;
                for (size_t i = 0; i < nn; i++)
                    if (i + 1 == nn || bucket_of(pairs[i].var, floor, step) !=
                                           bucket_of(pairs[i + 1].var, floor, step))
                        pairs[kept++] = pairs[i];
                nn = kept;
            }
            if (nn > nb)
                nb = nn;
            if (!merge_buffer_fit(&buf[side], &buf_cap[side], nb))
                goto nomem;
            bk = buf[side];
            memcpy(bk, pairs, nn * sizeof *bk);
        } else {
            if (!merge_buffer_fit(&buf[side], &buf_cap[side], nb))
                goto nomem;
            bk = buf[side];
            for (size_t k = 0; k < nb; k++)
                bk[k].cost = INFINITY;
            size_t used = 0;
            merge_scale sc = {floor, inv_step, var_cap, nb};
            if (!below || below_cap < nb) {
                free(below);
                below_cap = nb;
                if (!(below = malloc(nb * sizeof *below)))
                    goto nomem;
            }
            merge_witnesses(&sc, cur, ncur, gg, below);
            for (size_t j = 0; j < gg->points; j++)
                merge_point(&sc, cur, ncur, &gg->point[j], (uint32_t)j, below, bk, &used);
            /* ascending variance, keep only strictly falling cost */
            for (size_t k = 0; k < used; k++)
                if (bk[k].cost < INFINITY && (nn == 0 || bk[k].cost < bk[nn - 1].cost))
                    bk[nn++] = bk[k];
        }
        at[gi + 1] = at[gi] + nn;
        if (at[gi + 1] * 2 > link_cap &&
            ks_grow((void **)&link, &link_cap, at[gi + 1] * 2, sizeof *link, err) != KS_OK)
            goto fail;
        for (size_t i = 0; i < nn; i++) {
            link[2 * (at[gi] + i)] = bk[i].prev;
            link[2 * (at[gi] + i) + 1] = bk[i].pt;
        }
        cur = bk;
        ncur = nn;
        side = 1 - side;
    }
    /* ascending variance, descending cost: the last point under the bound */
    size_t pick = 0;
    for (size_t i = 0; i < ncur; i++)
        if (cur[i].var <= bound)
            pick = i;
    for (size_t gi = count; gi-- > 0;) {
        choice[gi] = link[2 * (at[gi] + pick) + 1];
        pick = link[2 * (at[gi] + pick)];
    }
    goto done;
nomem:
    st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    goto done;
fail:
    st = KS_ERR_NOMEM;
done:
    free(at);
    free(link);
    free(buf[0]);
    free(buf[1]);
    free(pairs);
    free(below);
    free(sort_tmp);
    return st;
}

/* The variance of the frontier's optimum at lambda: what the exact optimum
 * would choose, up to the thinning, used only to aim the exact evaluation. */
static double envelope_var(const ks_strata_group *g, double lambda)
{
    double best = INFINITY, var = 0;
    for (size_t i = 0; i < g->points; i++) {
        double val = g->point[i].cost + lambda * g->point[i].var;
        if (val < best) {
            best = val;
            var = g->point[i].var;
        }
    }
    return var;
}

static double dual_value(ks_strata_group *g, size_t count, double lambda, double bound)
{
    long double sum = 0;
    for (size_t gi = 0; gi < count; gi++) {
        double c, v;
        sum += ks_strata_solve(&g[gi], lambda, &c, &v, NULL, NULL);
    }
    return (double)(sum - (long double)lambda * bound);
}

double ks_strata_lower_bound(ks_strata_group *g, size_t count, double bound, double *lambda)
{
    /* the dual is concave in lambda; its maximum is where the optimum's
     * variance crosses the bound: find that on the frontiers (cheap), then
     * evaluate the exact dual around it (every value is a valid bound) */
    double lo = -120, hi = 120; /* log2 lambda */
    for (int it = 0; it < 100; it++) {
        double mid = 0.5 * (lo + hi), lam = exp2(mid), v = 0;
        for (size_t gi = 0; gi < count; gi++)
            v += envelope_var(&g[gi], lam);
        if (v > bound)
            lo = mid;
        else
            hi = mid;
    }
    double best = dual_value(g, count, 0, bound);
    *lambda = exp2(hi);
    for (int k = -4; k <= 4; k++) {
        double val = dual_value(g, count, exp2(hi + k / 16.0), bound);
        if (val > best) {
            best = val;
            *lambda = exp2(hi + k / 16.0);
        }
    }
    return best;
}
