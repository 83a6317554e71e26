/*
 * test_stats.c - the sampling math on its own: the normal quantile, STEM's
 * KKT allocation (equality, optimality against perturbations and against a
 * brute force over integer allocations, degenerate clusters), the rounding of
 * sample sizes, and the exact 1-D 2-means cut (against every cut and, for
 * small inputs, against every 2-partition).
 *
 * Reference quantiles are from an independent implementation (Wichura's
 * AS241, as Python's statistics.NormalDist computes it), correct to a few
 * ulp; the tolerance asked of ks_normal_quantile is 1e-9.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksample.h"
#include "test_main.h"

static void assert_close(double got, double want, double rel, double abs_tol, const char *what)
{
    double tol = fmax(abs_tol, rel * fabs(want));
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, want %.17g (diff %.3g > %.3g)", what, got, want,
                 fabs(got - want), tol);
}

/* ------------------------------------------------------------ quantile */

static void test_quantile_known_values(void **state)
{
    (void)state;
    static const struct {
        double p, x;
    } known[] = {
        {0.975, 1.959963984540054},
        {0.5, 0.0},
        {0.995, 2.5758293035489},
        {0.025, -1.9599639845400538},
        {0.005, -2.5758293035489004},
        {0.95, 1.6448536269514722},
        {0.9, 1.2815515655446004},
        {0.75, 0.6744897501960817},
        {0.25, -0.6744897501960817},
        {1e-10, -6.361340902404056},
        {1e-300, -37.0470962993612},
        /* both sides of the boundaries of the approximation's regions */
        {0.02425, -1.9729610513118845},
        {0.97575, 1.9729610513118847},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "quantile(%.17g)", known[i].p);
        assert_close(ks_normal_quantile(known[i].p), known[i].x, 0, 1e-9, what);
    }
    assert_close(ks_z_for_confidence(0.95), 1.959963984540054, 0, 1e-9, "z(0.95)");
    assert_close(ks_z_for_confidence(0.99), 2.5758293035489, 0, 1e-9, "z(0.99)");
    assert_close(ks_z_for_confidence(0.9), 1.6448536269514722, 0, 1e-9, "z(0.90)");
}

/* The upper tail, where p is close to 1: the reference is the quantile of the
 * double actually passed (1 - 1e-10 is not representable; its nearest double
 * is 0.99999999989999999172...), which by symmetry is -quantile(1 - p), and
 * 1 - p is exact for p in [0.5, 1]. */
static void test_quantile_upper_tail(void **state)
{
    (void)state;
    assert_close(ks_normal_quantile(1 - 1e-10), 6.361340889697421, 0, 1e-9,
                 "quantile(1 - 1e-10)");
    for (int k = 1; k <= 15; k++) {
        double hi = 1 - pow(10, -k), lo = 1 - hi; /* lo is exact */
        char what[64];
        snprintf(what, sizeof what, "quantile(1 - 1e-%d) + quantile(its complement)", k);
        assert_close(ks_normal_quantile(hi) + ks_normal_quantile(lo), 0, 0, 1e-9, what);
    }
}

/* Round trip through the CDF on the lower half, where p = Phi(x) is computed
 * to full relative precision by erfc. */
static void test_quantile_round_trip(void **state)
{
    (void)state;
    double prev = -INFINITY;
    for (double x = -37; x <= 0.5; x += 0.0137) {
        double p = 0.5 * erfc(-x / sqrt(2.0));
        double q = ks_normal_quantile(p);
        char what[64];
        snprintf(what, sizeof what, "quantile(Phi(%.4f))", x);
        assert_close(q, x, 1e-12, 1e-9, what);
        assert_true(q > prev); /* strictly increasing */
        prev = q;
    }
    assert_true(ks_normal_quantile(0.0) == -INFINITY);
    assert_true(ks_normal_quantile(1.0) == INFINITY);
    assert_true(ks_normal_quantile(-0.5) == -INFINITY);
    assert_true(ks_normal_quantile(1.5) == INFINITY);
}

/* ------------------------------------------------------------ KKT */

static double unit(uint64_t *x) /* splitmix64-driven uniform in [0, 1) */
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static double log_uniform(uint64_t *x, double lo, double hi)
{
    return exp(log(lo) + (log(hi) - log(lo)) * unit(x));
}

static double constraint_lhs(size_t k, const double *n, const double *sd, const double *m)
{
    double s = 0;
    for (size_t i = 0; i < k; i++)
        s += n[i] * n[i] * sd[i] * sd[i] / m[i];
    return s;
}

static double cost(size_t k, const double *mean, const double *m)
{
    double s = 0;
    for (size_t i = 0; i < k; i++)
        s += mean[i] * m[i];
    return s;
}

/* Random problems: the real allocation meets the constraint with equality,
 * satisfies the Lagrange condition mu_i = lambda N_i^2 sigma_i^2 / m_i^2 with
 * one lambda, and no feasible perturbation is cheaper. */
static void test_kkt_optimality(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    static const double zs[] = {1.6448536269514722, 1.959963984540054, 2.5758293035489};
    for (int trial = 0; trial < 2000; trial++) {
        size_t k = 2 + (size_t)(unit(&seed) * 5); /* 2..6 */
        double n[6], mean[6], sd[6], m[6], m2[6];
        double total = 0;
        for (size_t i = 0; i < k; i++) {
            n[i] = floor(log_uniform(&seed, 1, 1e6));
            mean[i] = log_uniform(&seed, 1e2, 1e7);
            sd[i] = mean[i] * log_uniform(&seed, 1e-3, 3);
            total += n[i] * mean[i];
        }
        double eps = log_uniform(&seed, 0.005, 0.2), z = zs[trial % 3];
        double c = ks_kkt_allocate(k, n, mean, sd, eps, z, m);
        double want_c = pow(eps * total / z, 2);
        assert_close(c, want_c, 1e-12, 0, "returned c");
        for (size_t i = 0; i < k; i++)
            assert_true(isfinite(m[i]) && m[i] > 0);
        assert_close(constraint_lhs(k, n, sd, m), want_c, 1e-9, 0, "sum N^2 sigma^2 / m");
        /* Lagrange: mu_i m_i^2 / b_i is the same lambda for every cluster */
        double lambda0 = mean[0] * m[0] * m[0] / (n[0] * n[0] * sd[0] * sd[0]);
        for (size_t i = 1; i < k; i++) {
            double lambda = mean[i] * m[i] * m[i] / (n[i] * n[i] * sd[i] * sd[i]);
            assert_close(lambda, lambda0, 1e-9, 0, "Lagrange multiplier");
        }
        /* The constraint function is homogeneous of degree -1, so scaling a
         * perturbed allocation by g(m')/c puts it back on the constraint. */
        double best = cost(k, mean, m);
        for (int d = 0; d < 20; d++) {
            double t = d < 10 ? 1e-3 : 0.5;
            for (size_t i = 0; i < k; i++)
                m2[i] = m[i] * exp(t * (2 * unit(&seed) - 1));
            double s = constraint_lhs(k, n, sd, m2) / want_c;
            for (size_t i = 0; i < k; i++)
                m2[i] *= s;
            assert_close(constraint_lhs(k, n, sd, m2), want_c, 1e-9, 0, "rescaled");
            if (!(cost(k, mean, m2) >= best * (1 - 1e-12)))
                fail_msg("trial %d: a feasible perturbation costs %.17g < KKT %.17g", trial,
                         cost(k, mean, m2), best);
        }
    }
}

/* Small integer problems, every allocation m_i in [1, N_i] enumerated: the
 * cheapest feasible one costs at least the real KKT cost, and the ceiled KKT
 * allocation is feasible and within sum mu_i of it. */
static void test_kkt_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 777;
    int checked = 0;
    for (int trial = 0; trial < 3000 && checked < 400; trial++) {
        size_t k = 2 + (size_t)(unit(&seed) * 2); /* 2..3 */
        double n[3], mean[3], sd[3], m[3];
        for (size_t i = 0; i < k; i++) {
            n[i] = 2 + floor(unit(&seed) * 11); /* 2..12 */
            mean[i] = 1 + floor(unit(&seed) * 20);
            sd[i] = 0.5 + unit(&seed) * 10;
        }
        double eps = 0.02 + unit(&seed) * 0.3, z = 1.959963984540054;
        double c = ks_kkt_allocate(k, n, mean, sd, eps, z, m);
        bool clamped = false;
        uint64_t mc[3];
        double mcd[3];
        for (size_t i = 0; i < k; i++) {
            mc[i] = ks_round_sample_size(m[i], (uint64_t)n[i]);
            mcd[i] = (double)mc[i];
            if (ceil(m[i]) > n[i])
                clamped = true;
        }
        if (clamped) /* the formula's constraint cannot be met within [1, N] */
            continue;
        checked++;
        double real_cost = cost(k, mean, m);
        double ceil_cost = cost(k, mean, mcd);
        assert_true(constraint_lhs(k, n, sd, mcd) <= c * (1 + 1e-12));
        double bf = INFINITY;
        double a[3] = {1, 1, 1};
        for (;;) {
            if (constraint_lhs(k, n, sd, a) <= c * (1 + 1e-12) && cost(k, mean, a) < bf)
                bf = cost(k, mean, a);
            size_t i = 0;
            while (i < k && a[i] >= n[i])
                a[i++] = 1;
            if (i == k)
                break;
            a[i] += 1;
        }
        double slack = 0;
        for (size_t i = 0; i < k; i++)
            slack += mean[i];
        if (!(bf >= real_cost * (1 - 1e-12)))
            fail_msg("trial %d: integer optimum %.17g below the real KKT cost %.17g", trial, bf,
                     real_cost);
        if (!(ceil_cost <= bf + slack + 1e-9))
            fail_msg("trial %d: ceiled KKT cost %.17g > optimum %.17g + %.17g", trial,
                     ceil_cost, bf, slack);
        assert_true(ceil_cost >= bf - 1e-9); /* bf is the optimum: nothing is cheaper */
    }
    assert_true(checked >= 200);
}

static void test_kkt_degenerate(void **state)
{
    (void)state;
    double m[4];
    /* sigma = 0: 0 from the formula, 1 after rounding; the others are sized
     * as if it were absent except that its time counts in the total */
    double n[4] = {1000, 500, 200, 50}, mean[4] = {3000, 8000, 100, 0}, sd[4] = {0, 900, 40, 0};
    ks_kkt_allocate(4, n, mean, sd, 0.05, 1.96, m);
    assert_true(m[0] == 0.0);
    assert_true(m[3] == 0.0); /* mean 0 and sigma 0: no 0/0 */
    for (int i = 0; i < 4; i++)
        assert_false(isnan(m[i]));
    assert_int_equal(ks_round_sample_size(m[0], 1000), 1);
    assert_int_equal(ks_round_sample_size(m[3], 50), 1);
    double total = 0;
    for (int i = 0; i < 4; i++)
        total += n[i] * mean[i];
    double others_total = n[1] * mean[1] + n[2] * mean[2];
    double m2[2];
    /* the same clusters alone, with epsilon scaled so the right-hand side
     * (eps * total / z)^2 is unchanged */
    ks_kkt_allocate(2, n + 1, mean + 1, sd + 1, 0.05 * total / others_total, 1.96, m2);
    assert_close(m[1], m2[0], 1e-12, 0, "m with a sigma = 0 neighbour");
    assert_close(m[2], m2[1], 1e-12, 0, "m with a sigma = 0 neighbour");

    /* mean 0 with a spread (impossible for non-negative durations, but must
     * not divide by zero): no NaN, and rounding gives all of the cluster */
    double n3[2] = {10, 10}, mean3[2] = {0, 5}, sd3[2] = {1, 2};
    ks_kkt_allocate(2, n3, mean3, sd3, 0.05, 1.96, m);
    assert_false(isnan(m[0]));
    assert_false(isnan(m[1]));
    uint64_t r = ks_round_sample_size(m[0], 10);
    assert_true(r >= 1 && r <= 10);

    /* every cluster of mean 0: the right-hand side is 0 */
    double mean0[2] = {0, 0}, sd0[2] = {0, 0};
    ks_kkt_allocate(2, n3, mean0, sd0, 0.05, 1.96, m);
    assert_false(isnan(m[0]) || isnan(m[1]));
    assert_int_equal(ks_round_sample_size(m[0], 10), 1);

    /* one cluster: STEM's single-cluster size (z sigma / (eps mu))^2 */
    double n1 = 10000, mu1 = 5000, sd1 = 1500;
    ks_kkt_allocate(1, &n1, &mu1, &sd1, 0.05, 1.96, m);
    assert_close(m[0], pow(1.96 * sd1 / (0.05 * mu1), 2), 1e-12, 0, "single cluster");
}

static void test_round_sample_size(void **state)
{
    (void)state;
    assert_int_equal(ks_round_sample_size(0.0, 10), 1);
    assert_int_equal(ks_round_sample_size(-5.0, 10), 1);
    assert_int_equal(ks_round_sample_size(-INFINITY, 10), 1);
    assert_int_equal(ks_round_sample_size(0.3, 10), 1);
    assert_int_equal(ks_round_sample_size(1.0, 10), 1);
    assert_int_equal(ks_round_sample_size(1.5, 10), 2);
    assert_int_equal(ks_round_sample_size(2.0, 10), 2);
    assert_int_equal(ks_round_sample_size(2.01, 10), 3);
    assert_int_equal(ks_round_sample_size(9.5, 10), 10);
    assert_int_equal(ks_round_sample_size(10.0, 10), 10);
    assert_int_equal(ks_round_sample_size(11.0, 10), 10);
    assert_int_equal(ks_round_sample_size(1e300, 10), 10);
    assert_int_equal(ks_round_sample_size(INFINITY, 10), 10);
    /* NaN (an undefined size) must stay in [1, N]; all of N is the safe answer */
    assert_int_equal(ks_round_sample_size(NAN, 10), 10);
    assert_int_equal(ks_round_sample_size(7.0, 1), 1);
    assert_int_equal(ks_round_sample_size(0.0, 1), 1);
    assert_int_equal(ks_round_sample_size(5.0, 0), 0); /* an empty cluster draws nothing */
    assert_int_equal(ks_round_sample_size(1e15 + 0.5, UINT64_C(1) << 60),
                     UINT64_C(1000000000000001));
    /* always within [1, N] */
    uint64_t seed = 5;
    for (int i = 0; i < 10000; i++) {
        uint64_t n = 1 + (uint64_t)(unit(&seed) * 1000);
        double x = (unit(&seed) - 0.1) * 2000;
        uint64_t r = ks_round_sample_size(x, n);
        assert_true(r >= 1 && r <= n);
        if (x >= 1 && x <= (double)n)
            assert_true((double)r >= x - 1e-6 && (double)r < x + 1);
    }
}

/* ------------------------------------------------------------ 2-means */

static long double sse_range(const double *v, size_t lo, size_t hi)
{
    if (hi <= lo)
        return 0;
    long double mean = 0, s = 0;
    for (size_t i = lo; i < hi; i++)
        mean += v[i];
    mean /= (long double)(hi - lo);
    for (size_t i = lo; i < hi; i++)
        s += (v[i] - mean) * (v[i] - mean);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y);
}

/* Fills v[0..n) sorted, from one of several shapes (some with many ties). */
static void random_sorted(uint64_t *seed, double *v, size_t n, int shape)
{
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 0: /* few distinct values: lots of duplicates */
            v[i] = floor(unit(seed) * 4);
            break;
        case 1: /* two modes */
            v[i] = (unit(seed) < 0.3 ? 1e6 : 2e5) + floor(unit(seed) * 5000);
            break;
        case 2: /* heavy tail */
            v[i] = floor(1000 * exp(4 * unit(seed) * unit(seed)));
            break;
        case 3: /* large offset, tiny spread: precision */
            v[i] = 1e12 + floor(unit(seed) * 100);
            break;
        default: /* uniform reals */
            v[i] = unit(seed) * 1e4;
        }
    }
    qsort(v, n, sizeof *v, cmp_double);
}

static void check_cut(const double *v, size_t n, const char *what)
{
    double sse;
    size_t cut = ks_two_means_cut(v, n, &sse);
    if (v[0] == v[n - 1]) {
        assert_int_equal(cut, 0);
        assert_true(sse == 0.0);
        return;
    }
    if (cut < 1 || cut >= n)
        fail_msg("%s: cut %zu out of range for n = %zu", what, cut, n);
    /* equal values are never separated */
    if (!(v[cut - 1] < v[cut]))
        fail_msg("%s: cut %zu separates equal values", what, cut);
    long double total = sse_range(v, 0, n);
    long double own = sse_range(v, 0, cut) + sse_range(v, cut, n);
    long double best = INFINITY;
    for (size_t c = 1; c < n; c++) {
        long double s = sse_range(v, 0, c) + sse_range(v, c, n);
        if (s < best)
            best = s;
    }
    /* ties may pick another index; compare SSE values */
    double tol = 1e-9 * (double)best + 1e-12 * (double)total;
    if (!(fabs((double)own - (double)best) <= tol))
        fail_msg("%s (n = %zu): cut %zu has SSE %.17g, best cut %.17g", what, n, cut,
                 (double)own, (double)best);
    if (!(fabs(sse - (double)own) <= 1e-9 * (double)own + 1e-12 * (double)total))
        fail_msg("%s: reported SSE %.17g, recomputed %.17g", what, sse, (double)own);
    assert_true((double)own < (double)total); /* a cut between distinct values helps */
}

static void test_two_means_all_cuts(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    double v[200];
    for (size_t n = 2; n <= 200; n++) {
        for (int shape = 0; shape < 5; shape++) {
            random_sorted(&seed, v, n, shape);
            char what[64];
            snprintf(what, sizeof what, "shape %d", shape);
            check_cut(v, n, what);
        }
    }
}

/* Over every 2-partition (not only cuts of the sorted order): the cut is the
 * global optimum, which is what lets ROOT try only n - 1 candidates. */
static void test_two_means_all_partitions(void **state)
{
    (void)state;
    uint64_t seed = 99;
    double v[12], a[12], b[12];
    for (int trial = 0; trial < 400; trial++) {
        size_t n = 2 + (size_t)(unit(&seed) * 11); /* 2..12 */
        random_sorted(&seed, v, n, trial % 5);
        double sse;
        size_t cut = ks_two_means_cut(v, n, &sse);
        long double best = INFINITY;
        /* element n-1 always in b: each partition once */
        for (uint32_t mask = 1; mask < (1u << (n - 1)); mask++) {
            size_t na = 0, nb = 0;
            for (size_t i = 0; i < n; i++) {
                if (i < n - 1 && (mask >> i & 1))
                    a[na++] = v[i];
                else
                    b[nb++] = v[i];
            }
            long double s = sse_range(a, 0, na) + sse_range(b, 0, nb);
            if (s < best)
                best = s;
        }
        if (n == 2 || v[0] == v[n - 1]) {
            if (v[0] == v[n - 1])
                assert_int_equal(cut, 0);
            continue;
        }
        long double total = sse_range(v, 0, n);
        double tol = 1e-9 * (double)best + 1e-12 * (double)total;
        if (!(fabs(sse - (double)best) <= tol))
            fail_msg("trial %d (n = %zu): cut SSE %.17g, best partition %.17g", trial, n, sse,
                     (double)best);
    }
}

/* The full scan ks_two_means_cut made before it skipped blocks of cuts
 * (lib/math/stats.c): every cut's long double term, the first largest. */
static size_t full_scan_cut(const double *v, size_t n)
{
    if (n < 2 || v[0] == v[n - 1])
        return 0;
    long double total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i];
    long double left = 0, best = -1;
    size_t best_cut = 0;
    for (size_t c = 1; c < n; c++) {
        left += v[c - 1];
        if (v[c] == v[c - 1])
            continue;
        long double nl = (long double)c, nr = (long double)(n - c);
        long double diff = (total - left) / nr - left / nl;
        long double between = nl * nr * diff * diff;
        if (between > best) {
            best = between;
            best_cut = c;
        }
    }
    return best_cut;
}

/* The pruned scan (integer durations, 64 values or more) returns exactly
 * the full scan's cut, the first of equal terms included: plans depend on
 * it byte for byte.  Shapes with flat or tied optima and large values. */
static void test_two_means_pruned_equals_full_scan(void **state)
{
    (void)state;
    uint64_t seed = 977;
    enum { MAX_N = 9000 };
    double *v = malloc(MAX_N * sizeof *v);
    assert_non_null(v);
    for (int t = 0; t < 3000; t++) {
        size_t n = 64 + (size_t)(unit(&seed) * (t % 10 == 0 ? MAX_N - 64 : 900));
        int shape = t % 8;
        for (size_t i = 0; i < n; i++) {
            double u = unit(&seed);
            switch (shape) {
            case 0: /* stable kernel: narrow normal-ish spread */
                v[i] = floor(1e5 + 2000 * (u + unit(&seed) + unit(&seed) - 1.5));
                break;
            case 1: /* two modes */
                v[i] = (u < 0.4 ? 2e5 : 9e5) + floor(unit(&seed) * 3000);
                break;
            case 2: /* mirror-symmetric: equal terms at mirrored cuts */
                v[i] = (double)(i < n / 2 ? i : n - 1 - i);
                break;
            case 3: /* two values */
                v[i] = u < 0.5 ? 7 : 11;
                break;
            case 4: /* few distinct values */
                v[i] = floor(u * 6) * 1000;
                break;
            case 5: /* heavy tail */
                v[i] = floor(100 * exp(8 * u * unit(&seed)));
                break;
            case 6: /* near the size limits of the exact sums */
                v[i] = floor(0x1p40 / (double)n) - floor(u * 1000);
                break;
            default: /* not integers: the full scan is used */
                v[i] = floor(u * 100) + 0.5 * (unit(&seed) < 0.5);
            }
        }
        qsort(v, n, sizeof *v, cmp_double);
        size_t want = full_scan_cut(v, n), got = ks_two_means_cut(v, n, NULL);
        if (got != want)
            fail_msg("shape %d, n = %zu: cut %zu, the full scan's %zu", shape, n, got, want);
    }
    free(v);
}

static void test_two_means_degenerate(void **state)
{
    (void)state;
    double sse = -1;
    double one[1] = {5};
    assert_int_equal(ks_two_means_cut(one, 1, &sse), 0);
    assert_true(sse == 0.0);
    sse = -1;
    assert_int_equal(ks_two_means_cut(one, 0, &sse), 0);
    assert_true(sse == 0.0);
    double eq[50];
    for (int i = 0; i < 50; i++)
        eq[i] = 1234;
    sse = -1;
    assert_int_equal(ks_two_means_cut(eq, 50, &sse), 0);
    assert_true(sse == 0.0);
    assert_int_equal(ks_two_means_cut(eq, 50, NULL), 0);
    double two[2] = {1, 3};
    assert_int_equal(ks_two_means_cut(two, 2, &sse), 1);
    assert_true(sse == 0.0);
    /* near 1e12 ns (1000 s) a naive sum-of-squares SSE would lose the split */
    double big[6] = {1e12, 1e12 + 1, 1e12 + 2, 1e12 + 1000, 1e12 + 1001, 1e12 + 1002};
    assert_int_equal(ks_two_means_cut(big, 6, &sse), 3);
    assert_close(sse, 4.0, 1e-9, 0, "SSE near 1e12");
    /* one far point is split off alone */
    double far[5] = {10, 11, 12, 13, 1e9};
    assert_int_equal(ks_two_means_cut(far, 5, NULL), 4);
}

KS_TEST_MAIN(test_quantile_known_values,
             test_quantile_upper_tail,
             test_quantile_round_trip,
             test_kkt_optimality,
             test_kkt_brute_force,
             test_kkt_degenerate,
             test_round_sample_size,
             test_two_means_all_cuts,
             test_two_means_all_partitions,
             test_two_means_degenerate,
             test_two_means_pruned_equals_full_scan)
