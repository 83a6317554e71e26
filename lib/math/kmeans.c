/*
 * kmeans.c - k-means (Lloyd 1982) seeded by k-means++ (Arthur and
 * Vassilvitskii, SODA 2007) with restarts, the silhouette score (Rousseeuw,
 * J. Comput. Appl. Math. 1987) and per-column standardisation.
 */
#include "kmeans.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ks_kmeans_options_init(ks_kmeans_options *o, size_t k, uint64_t seed)
{
    o->k = k;
    o->restarts = 10;
    o->max_iter = 300;
    o->tol = 1e-10;
    o->seed = seed;
}

void ks_kmeans_result_free(ks_kmeans_result *r)
{
    if (!r)
        return;
    free(r->label);
    free(r->centroid);
    memset(r, 0, sizeof *r);
}

static double kmeans_dist2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t j = 0; j < d; j++) {
        double t = a[j] - b[j];
        s += t * t;
    }
    return s;
}

/* k-means++: each further centre is drawn with probability proportional to
 * the squared distance to the nearest centre chosen so far.  Stops early
 * (returns fewer than k) once every point coincides with a centre. */
/* Index drawn with probability proportional to p[i] w[i] (w NULL: 1); n - 1
 * if rounding runs past the end. */
static size_t kmeans_draw(const double *p, const double *w, size_t n, double total, ks_rng *rng)
{
    double u = ks_rng_uniform(rng) * total, acc = 0;
    size_t pick = n - 1;
    for (size_t i = 0; i < n; i++) {
        double t = (p ? p[i] : 1.0) * (w ? w[i] : 1.0);
        acc += t;
        if (u < acc && t > 0) {
            pick = i;
            break;
        }
    }
    while (pick > 0 && !((p ? p[pick] : 1.0) * (w ? w[pick] : 1.0) > 0))
        pick--;
    return pick;
}

static size_t kmeans_seed_centres(const double *x, const double *w, size_t n, size_t d,
                                  size_t k, ks_rng *rng, double *c, double *near)
{
    double wtotal = 0;
    for (size_t i = 0; i < n; i++)
        wtotal += w ? w[i] : 1.0;
    size_t first = w ? kmeans_draw(NULL, w, n, wtotal, rng) : (size_t)ks_rng_below(rng, n);
    memcpy(c, x + first * d, d * sizeof *c);
    for (size_t i = 0; i < n; i++)
        near[i] = kmeans_dist2(x + i * d, c, d);
    size_t have = 1;
    while (have < k) {
        double total = 0;
        for (size_t i = 0; i < n; i++)
            total += near[i] * (w ? w[i] : 1.0);
        if (!(total > 0))
            break;
        size_t pick = kmeans_draw(near, w, n, total, rng);
        double *cn = c + have * d;
        memcpy(cn, x + pick * d, d * sizeof *cn);
        for (size_t i = 0; i < n; i++) {
            double t = kmeans_dist2(x + i * d, cn, d);
            if (t < near[i])
                near[i] = t;
        }
        have++;
    }
    return have;
}

/* Nearest centre of every point (lowest index on ties); returns the inertia
 * and whether any label changed.  The point's previous centre is tried
 * first, and a centre j is passed over when the triangle inequality proves
 * it farther than the best so far: d(c_b, c_j) > 2 d(x, c_b) gives
 * d(x, c_j) >= d(c_b, c_j) - d(x, c_b) > d(x, c_b).  half holds d(c_a, c_j)^2
 * / 4 shrunk by 1e-8, a margin far above the rounding of any of these sums,
 * so a centre passed over has a computed distance strictly above the best's
 * and the result is the plain scan's. */
static double kmeans_assign(const double *x, const double *w, size_t n, size_t d,
                            const double *c, size_t k, uint32_t *label, double *dist,
                            double *half, bool *changed)
{
    for (size_t a = 0; a < k; a++) {
        half[a * k + a] = 0;
        for (size_t j = a + 1; j < k; j++)
            half[a * k + j] = half[j * k + a] =
                kmeans_dist2(c + a * d, c + j * d, d) * 0.25 / (1 + 1e-8);
    }
    double inertia = 0;
    *changed = false;
    for (size_t i = 0; i < n; i++) {
        uint32_t arg = label[i] < k ? label[i] : 0;
        double best = kmeans_dist2(x + i * d, c + (size_t)arg * d, d);
        for (size_t j = 0; j < k; j++) {
            if (j == arg || half[(size_t)arg * k + j] > best)
                continue;
            double t = kmeans_dist2(x + i * d, c + j * d, d);
            if (t < best || (t == best && j < arg)) {
                best = t;
                arg = (uint32_t)j;
            }
        }
        if (label[i] != arg)
            *changed = true;
        label[i] = arg;
        dist[i] = best;
        inertia += best * (w ? w[i] : 1.0);
    }
    return inertia;
}

/* Centroids as member means.  An empty cluster takes the point farthest from
 * its centroid (sklearn relocates the same way), so k stays k while there are
 * enough distinct points.  Returns the largest squared centroid move. */
static double kmeans_update(const double *x, const double *w, size_t n, size_t d, double *c,
                            size_t k, uint32_t *label, double *dist, size_t *count,
                            double *sum, double *mass)
{
    memset(count, 0, k * sizeof *count);
    memset(mass, 0, k * sizeof *mass);
    memset(sum, 0, k * d * sizeof *sum);
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        count[label[i]]++;
        mass[label[i]] += wi;
        for (size_t j = 0; j < d; j++)
            sum[label[i] * d + j] += wi * x[i * d + j];
    }
    for (size_t j = 0; j < k; j++) {
        if (count[j])
            continue;
        size_t far = n;
        for (size_t i = 0; i < n; i++)
            if (count[label[i]] > 1 && dist[i] > 0 && (far == n || dist[i] > dist[far]))
                far = i;
        if (far == n)
            continue; /* no distinct point left to give it */
        uint32_t from = label[far];
        double wf = w ? w[far] : 1.0;
        count[from]--;
        mass[from] -= wf;
        for (size_t t = 0; t < d; t++)
            sum[from * d + t] -= wf * x[far * d + t];
        label[far] = (uint32_t)j;
        dist[far] = 0;
        count[j] = 1;
        mass[j] = wf;
        for (size_t t = 0; t < d; t++)
            sum[j * d + t] = wf * x[far * d + t];
    }
    double move = 0;
    for (size_t j = 0; j < k; j++) {
        if (!count[j])
            continue;
        double m = 0;
        for (size_t t = 0; t < d; t++) {
            double v = sum[j * d + t] / mass[j];
            double diff = v - c[j * d + t];
            m += diff * diff;
            c[j * d + t] = v;
        }
        if (m > move)
            move = m;
    }
    return move;
}

/* One start: seeding, then Lloyd until labels settle, centres stop moving or
 * max_iter.  Labels and centroids end consistent (centroids = member means). */
static double kmeans_run(const double *x, const double *w, size_t n, size_t d,
                         const ks_kmeans_options *opt, double scale, ks_rng *rng, double *c,
                         uint32_t *label, double *dist, size_t *count, double *sum,
                         double *mass, double *half, size_t *k_used, unsigned *iters)
{
    size_t k = kmeans_seed_centres(x, w, n, d, opt->k, rng, c, dist);
    for (size_t i = 0; i < n; i++)
        label[i] = UINT32_MAX;
    bool changed;
    double inertia = kmeans_assign(x, w, n, d, c, k, label, dist, half, &changed);
    unsigned it = 0;
    while (it < opt->max_iter) {
        it++;
        double move = kmeans_update(x, w, n, d, c, k, label, dist, count, sum, mass);
        inertia = kmeans_assign(x, w, n, d, c, k, label, dist, half, &changed);
        if (!changed || move <= opt->tol * scale)
            break;
    }
    kmeans_update(x, w, n, d, c, k, label, dist, count, sum, mass);
    inertia = 0;
    for (size_t i = 0; i < n; i++)
        inertia += kmeans_dist2(x + i * d, c + label[i] * d, d) * (w ? w[i] : 1.0);
    *k_used = k;
    *iters = it;
    return inertia;
}

/* Renumbers labels by first appearance and drops empty clusters. */
static size_t kmeans_canonical(size_t n, size_t d, size_t k, uint32_t *label, const double *c,
                               double *out_c, uint32_t *map)
{
    for (size_t j = 0; j < k; j++)
        map[j] = UINT32_MAX;
    uint32_t next = 0;
    for (size_t i = 0; i < n; i++) {
        if (map[label[i]] == UINT32_MAX) {
            map[label[i]] = next;
            memcpy(out_c + (size_t)next * d, c + (size_t)label[i] * d, d * sizeof *out_c);
            next++;
        }
        label[i] = map[label[i]];
    }
    return next;
}

ks_status ks_kmeans(const double *x, size_t n, size_t d, const ks_kmeans_options *opt,
                    ks_kmeans_result *out, ks_error *err)
{
    return ks_kmeans_weighted(x, NULL, n, d, opt, out, err);
}

ks_status ks_kmeans_weighted(const double *x, const double *w, size_t n, size_t d,
                             const ks_kmeans_options *opt, ks_kmeans_result *out,
                             ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || d == 0 || opt->k == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "k-means needs at least one point, one dimension and k >= 1");
    ks_kmeans_options o = *opt;
    if (o.k > n)
        o.k = n;
    if (o.restarts == 0)
        o.restarts = 1;
    size_t k = o.k;
    double *c = malloc(k * d * sizeof *c), *best_c = malloc(k * d * sizeof *best_c);
    double *sum = malloc(k * d * sizeof *sum), *dist = malloc(n * sizeof *dist);
    size_t *count = malloc(k * sizeof *count);
    double *mass = malloc(k * sizeof *mass), *half = malloc(k * k * sizeof *half);
    uint32_t *label = malloc(n * sizeof *label), *best = malloc(n * sizeof *best);
    uint32_t *map = malloc(k * sizeof *map);
    out->centroid = malloc(k * d * sizeof *out->centroid);
    if (!c || !best_c || !sum || !dist || !count || !mass || !half || !label || !best || !map ||
        !out->centroid) {
        free(c), free(best_c), free(sum), free(dist), free(count), free(mass), free(label);
        free(half);
        free(map);
        free(best);
        ks_kmeans_result_free(out);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory in k-means (n=%zu, d=%zu)",
                            n, d);
    }
    double scale = 0;
    double wtotal = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++)
            scale += x[i * d + j] * x[i * d + j] * (w ? w[i] : 1.0);
        wtotal += w ? w[i] : 1.0;
    }
    if (!(wtotal > 0)) {
        free(c), free(best_c), free(sum), free(dist), free(count), free(mass), free(label);
        free(map), free(best), free(half);
        ks_kmeans_result_free(out);
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "k-means: weights must be positive");
    }
    scale = scale / wtotal + 1e-300;
    ks_rng rng;
    ks_rng_seed(&rng, o.seed);
    double best_inertia = INFINITY;
    size_t best_k = 0;
    for (unsigned r = 0; r < o.restarts; r++) {
        size_t k_used;
        unsigned iters;
        double inertia = kmeans_run(x, w, n, d, &o, scale, &rng, c, label, dist, count, sum,
                                    mass, half, &k_used, &iters);
        if (inertia < best_inertia) {
            best_inertia = inertia;
            best_k = k_used;
            out->iterations = iters;
            memcpy(best, label, n * sizeof *best);
            memcpy(best_c, c, k_used * d * sizeof *c);
        }
    }
    out->k = kmeans_canonical(n, d, best_k, best, best_c, out->centroid, map);
    out->label = best;
    out->inertia = best_inertia;
    free(c), free(best_c), free(sum), free(dist), free(count), free(mass), free(label);
    free(map), free(half);
    return KS_OK;
}

/* The terms of point i against every point j: its distance times j's
 * weight (each point j stands for w[j] copies, so the other copies of i are
 * at distance 0); term[i] is not used. */
static void silhouette_terms(const double *x, const double *w, size_t n, size_t d, size_t i,
                             double *term)
{
    for (size_t j = 0; j < n; j++)
        if (j != i)
            term[j] = sqrt(kmeans_dist2(x + i * d, x + j * d, d)) * (w ? w[j] : 1.0);
}

/* s(i) of one labelling from point i's terms; sums per cluster in acc. */
static double silhouette_point(const double *term, size_t n, const uint32_t *label,
                               const double *size, size_t k, size_t i, double *acc)
{
    uint32_t own = label[i];
    if (size[own] <= 1)
        return 0;
    memset(acc, 0, k * sizeof *acc);
    for (size_t j = 0; j < n; j++)
        if (j != i)
            acc[label[j]] += term[j];
    double a = acc[own] / (size[own] - 1), b = INFINITY;
    for (size_t c = 0; c < k; c++)
        if (c != own && size[c] > 0 && acc[c] / size[c] < b)
            b = acc[c] / size[c];
    double m = a > b ? a : b;
    return m > 0 ? (b - a) / m : 0;
}

ks_status ks_silhouette(const double *x, size_t n, size_t d, const uint32_t *label, size_t k,
                        size_t sample_cap, uint64_t seed, double *score, ks_error *err)
{
    *score = 0;
    if (k < 2 || n < 3 || k > n - 1)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "the silhouette needs 2 <= k <= n - 1 (k=%zu, n=%zu)", k, n);
    return ks_silhouette_weighted(x, NULL, n, d, label, k, sample_cap, seed, score, err);
}

/* Index of the unique point that expanded position `pos` falls on: the
 * first of cum[0..n-1) above it, else n - 1. */
#define NOT_ABOVE(e, pos) ((e) <= (pos))
KS_LOWER_BOUND(first_above, double, double, NOT_ABOVE)

static size_t silhouette_locate(const double *cum, size_t n, double pos)
{
    return first_above(cum, n - 1, pos);
}

ks_status ks_silhouette_weighted(const double *x, const double *w, size_t n, size_t d,
                                 const uint32_t *label, size_t k, size_t sample_cap,
                                 uint64_t seed, double *score, ks_error *err)
{
    return ks_silhouette_weighted_many(x, w, n, d, &label, &k, 1, sample_cap, seed, score, err);
}

ks_status ks_silhouette_weighted_many(const double *x, const double *w, size_t n, size_t d,
                                      const uint32_t *const *labels, const size_t *ks,
                                      size_t count, size_t sample_cap, uint64_t seed,
                                      double *scores, ks_error *err)
{
    double total = 0;
    size_t kmax = 0;
    for (size_t l = 0; l < count; l++) {
        scores[l] = 0;
        kmax = ks[l] > kmax ? ks[l] : kmax;
    }
    for (size_t i = 0; i < n; i++) {
        if (w && !(w[i] >= 1 && w[i] == floor(w[i])))
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "silhouette: weights are point counts (whole, >= 1)");
        total += w ? w[i] : 1.0;
    }
    for (size_t l = 0; l < count; l++)
        if (ks[l] < 2 || total < 3 || (double)ks[l] > total - 1)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "the silhouette needs 2 <= k <= n - 1 (k=%zu, n=%.0f)", ks[l],
                                total);
    double *size = calloc(count * kmax, sizeof *size), *sum = calloc(count, sizeof *sum);
    double *acc = malloc(kmax * sizeof *acc), *term = malloc((n ? n : 1) * sizeof *term);
    size_t *pick = NULL;
    double *cum = malloc(n * sizeof *cum);
    size_t expanded = (size_t)total, m = expanded;
    if (sample_cap && expanded > sample_cap)
        m = sample_cap;
    if (m < expanded)
        pick = malloc(expanded * sizeof *pick);
    ks_status st = KS_OK;
    if (!size || !sum || !acc || !term || !cum || (m < expanded && !pick))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory in the silhouette");
    double run = 0;
    for (size_t i = 0; i < n && st == KS_OK; i++) {
        for (size_t l = 0; l < count && st == KS_OK; l++) {
            if (labels[l][i] >= ks[l])
                st = ks_error_set(err, KS_ERR_INTERNAL, NULL, 0,
                                  "label %u of point %zu >= k=%zu", labels[l][i], i, ks[l]);
            else
                size[l * kmax + labels[l][i]] += w ? w[i] : 1.0;
        }
        run += w ? w[i] : 1.0;
        cum[i] = run;
    }
    if (st == KS_OK && pick) { /* partial Fisher-Yates over the expanded points: the first m
                                  are the sample */
        ks_rng rng;
        ks_rng_seed(&rng, seed);
        for (size_t i = 0; i < expanded; i++)
            pick[i] = i;
        for (size_t i = 0; i < m; i++) {
            size_t j = i + (size_t)ks_rng_below(&rng, expanded - i);
            size_t t = pick[i];
            pick[i] = pick[j];
            pick[j] = t;
        }
    }
    /* each point's distances once, for every labelling: the same sums, in
     * the same order, as one labelling at a time */
    for (size_t t = 0; t < (pick ? m : n) && st == KS_OK; t++) {
        size_t i = pick ? silhouette_locate(cum, n, (double)pick[t]) : t;
        double weight = pick ? 1.0 : w ? w[i] : 1.0;
        bool needed = false;
        for (size_t l = 0; l < count; l++)
            needed |= size[l * kmax + labels[l][i]] > 1;
        if (needed)
            silhouette_terms(x, w, n, d, i, term);
        for (size_t l = 0; l < count; l++)
            sum[l] += weight * silhouette_point(term, n, labels[l], size + l * kmax, ks[l], i,
                                                acc);
    }
    for (size_t l = 0; l < count && st == KS_OK; l++)
        scores[l] = sum[l] / (double)m;
    free(size), free(sum), free(acc), free(term), free(pick), free(cum);
    return st;
}

void ks_standardize(double *x, size_t n, size_t d, double *mean, double *std)
{
    for (size_t j = 0; j < d; j++) {
        double mu = 0, var = 0;
        for (size_t i = 0; i < n; i++)
            mu += x[i * d + j];
        mu = n ? mu / (double)n : 0;
        for (size_t i = 0; i < n; i++) {
            double t = x[i * d + j] - mu;
            var += t * t;
        }
        double sd = n ? sqrt(var / (double)n) : 0;
        for (size_t i = 0; i < n; i++)
            x[i * d + j] = sd > 0 ? (x[i * d + j] - mu) / sd : 0;
        if (mean)
            mean[j] = mu;
        if (std)
            std[j] = sd;
    }
}

size_t ks_distinct_rows(const double *x, size_t n, size_t d, size_t limit)
{
    /* Each row is compared with the distinct rows found so far only, so the
     * cost is O(n * distinct * d), not O(n^2 d). */
    size_t cap = limit ? limit : n, distinct = 0;
    size_t *rep = malloc((cap ? cap : 1) * sizeof *rep);
    if (!rep)
        return limit ? limit : n; /* no memory: claim the most, callers stay safe */
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < distinct && !seen; j++)
            seen = memcmp(x + i * d, x + rep[j] * d, d * sizeof *x) == 0;
        if (seen)
            continue;
        rep[distinct++] = i;
        if (distinct == cap)
            break;
    }
    free(rep);
    return distinct;
}
