/*
 * stats.c - the normal quantile, STEM's KKT sample-size allocation, and the
 * exact one-dimensional 2-means cut that ROOT and Allegro split with.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Acklam's rational approximation of Phi^-1, then one Halley step against
 * erfc, which brings the absolute error below 1e-12 on (0, 1). */
double ks_normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    if (isnan(p))
        return NAN;
    if (!(p > 0.0 && p < 1.0))
        return p <= 0.0 ? -INFINITY : INFINITY;
    /* Upper half by symmetry: 1 - p is exact for p in [0.5, 1] (Sterbenz),
     * while refining against Phi(x) near 1 would lose the digits that matter */
    if (p > 0.5)
        return -ks_normal_quantile(1.0 - p);
    const double plow = 0.02425, phigh = 1 - plow;
    double x;
    if (p < plow) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= phigh) {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        double q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double ks_z_for_confidence(double confidence)
{
    return ks_normal_quantile(1.0 - (1.0 - confidence) / 2.0);
}

/*
 * STEM's joint allocation (Chung et al., MICRO'25).  With a_i = mu_i,
 * b_i = N_i^2 sigma_i^2 and c = (eps * sum N_i mu_i / z)^2, the Lagrangian of
 *   min sum a_i m_i   s.t.   sum b_i / m_i <= c
 * gives m_i = (sum_j sqrt(a_j b_j)) / c * sqrt(b_i / a_i).  The paper's
 * equation (6) prints sqrt(sum_j a_j b_j); its appendix 8.1 derivation and the
 * authors' code give sum_j sqrt(a_j b_j), which is what satisfies the
 * constraint with equality, so that is used here.
 *
 * mu_i = 0 with sigma_i > 0 cannot happen for non-negative durations (all
 * zero then); clusters with mean 0 cost nothing to simulate, so they get
 * m = N (simulated exactly) by the caller's clamp via +inf here.
 */
double ks_kkt_allocate(size_t k, const double *size, const double *mean, const double *std,
                       double epsilon, double z, double *m_real)
{
    double total = 0.0, sum_sqrt_ab = 0.0;
    for (size_t i = 0; i < k; i++) {
        total += size[i] * mean[i];
        if (mean[i] > 0.0 && std[i] > 0.0)
            sum_sqrt_ab += sqrt(mean[i]) * size[i] * std[i];
    }
    double c = epsilon * total / z;
    c *= c;
    for (size_t i = 0; i < k; i++) {
        if (std[i] <= 0.0)
            m_real[i] = 0.0;
        else if (mean[i] <= 0.0 || c <= 0.0)
            m_real[i] = INFINITY;
        else
            m_real[i] = sum_sqrt_ab / c * size[i] * std[i] / sqrt(mean[i]);
    }
    return c;
}

uint64_t ks_round_sample_size(double m_real, uint64_t n)
{
    if (n == 0)
        return 0;
    if (!(m_real < (double)n)) /* also catches +inf and NaN */
        return n;
    /* 3.0000000001 or 100 * 0.07 = 7.000000000000001 from floating-point
     * noise is 3 or 7: forgive 1e-9 absolute or about an ulp, whichever is
     * larger (a shortfall far below anything the CLT promises) */
    double m = ceil(m_real - fmax(1e-9, DBL_EPSILON * m_real));
    if (m < 1.0)
        return 1;
    return (uint64_t)m;
}

/*
 * Exact 1-D 2-means.  For sorted values an optimal 2-means partition is a cut
 * of the sorted order (each point is nearer its own cluster's mean, so the
 * clusters are separated by the midpoint of the means), so trying every cut
 * finds the global optimum in O(n).  Minimising the within-cluster SSE equals
 * maximising the between-cluster term nL nR / n (meanR - meanL)^2, which needs
 * no subtraction of large sums and so loses no precision; the sums are long
 * double, exact for integer nanoseconds up to 2^64.
 */

/* The between-cluster term of the cut before v[c], left = v[0] + ... +
 * v[c-1], exactly as every scan here rounds it: the cut chosen is the first
 * c with the largest of these long doubles, whichever scan finds it. */
static long double cut_between(long double total, long double left, size_t c, size_t n)
{
    long double nl = (long double)c, nr = (long double)(n - c);
    long double diff = (total - left) / nr - left / nl;
    return nl * nr * diff * diff;
}

/* Every cut, in order: two x87 divisions per distinct value. */
static size_t two_means_scan(const double *v, size_t n)
{
    long double total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i];
    long double left = 0, best = -1;
    size_t best_cut = 0;
    for (size_t c = 1; c < n; c++) {
        left += v[c - 1];
        if (v[c] == v[c - 1])
            continue; /* some optimum never separates equal values */
        long double between = cut_between(total, left, c, n);
        if (between > best) {
            best = between;
            best_cut = c;
        }
    }
    return best_cut;
}

/* Cuts per block of the pruned scan, and the smallest n it is used for. */
enum { CUT_BLOCK = 64, CUT_BLOCK_SMALL = 16, CUT_PRUNED_MIN = 64 };

/*
 * The same cut as two_means_scan, scanning only the blocks of CUT_BLOCK cuts
 * (CUT_BLOCK_SMALL below 4096 values, where a bound per 64 cuts is too loose)
 * that can hold it; false (nothing decided) when v is not made of sorted
 * non-negative integers small enough for the bounds below.  The x87
 * divisions of the full scan were a fifth of --allocation paper's plan at
 * 85 k launches.
 *
 * With exact integer sums T and L(c), the term is B(c) = D(c)^2 / (c (n-c))
 * with D(c) = c T - n L(c), computed exactly in 64-bit integers on values
 * less v[0] (D does not change).  D is concave (its steps T - n v[c] fall as
 * v rises), so over a block [a, e] it is at most the smaller of its tangents
 * from either end, and c (n-c) is at least its value at an end: an upper
 * bound on B for the block.  The long double term that the scan compares
 * differs from B by at most 8 u n^2 vmax^2 (u the x87 unit roundoff,
 * vmax = max |v|; the sums are exact, each of the three divisions and
 * products rounds once), which tol below covers with room to spare even for
 * u = 2^-53.  A block whose bound, widened by tol and the doubles' rounding,
 * stays below the largest B found at the blocks' ends (narrowed likewise)
 * cannot hold any cut whose long double reaches the best one, so skipping it
 * leaves the first maximum, and the cut, unchanged.
 */
/* Two doubles, two 64-bit lanes (GCC and Clang vector extensions: SSE2
 * on x86-64, NEON on arm64). */
typedef double v2_double __attribute__((vector_size(16)));
typedef int64_t v2_int __attribute__((vector_size(16)));

/* Sum of v[lo..hi), integers whose partial sums stay below 2^52: exact in
 * any order, so in vector lanes; *fraction is set if any is not an integer
 * (adding 2^52 rounds x in [0, 2^52) to a whole number).  Scalar, the
 * check was most of the pruned cut's time. */
static double integer_sum(const double *v, size_t lo, size_t hi, bool *fraction)
{
    enum { LANES = 4 }; /* of two doubles: eight additions in flight */
    const v2_double big = {0x1p52, 0x1p52};
    v2_double s[LANES] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    v2_int f = {0, 0};
    size_t i = lo;
    for (; i + 2 * LANES <= hi; i += 2 * LANES) {
        for (int j = 0; j < LANES; j++) {
            v2_double x;
            memcpy(&x, v + i + 2 * j, sizeof x);
            s[j] += x;
            f |= ((x + big) - big) != x;
        }
    }
    v2_double t = (s[0] + s[1]) + (s[2] + s[3]);
    double sum = t[0] + t[1];
    bool bad = f[0] || f[1];
    for (; i < hi; i++) {
        sum += v[i];
        bad |= (v[i] + 0x1p52) - 0x1p52 != v[i];
    }
    *fraction |= bad;
    return sum;
}

typedef struct cut_sums {
    size_t n;
    int64_t v0, tw; /* v[0], and the sum of v[i] - v[0] */
} cut_sums;

/* D(c) = c T - n L(c) from wl = L(c) - c v[0]: exact, |D| < n^2 (vmax - v[0]) */
static int64_t cut_d(const cut_sums *cs, size_t c, int64_t wl)
{
    return (int64_t)c * cs->tw - (int64_t)cs->n * wl;
}

/* B(c) in doubles, relative error below 2^-50 */
static double cut_b(const cut_sums *cs, size_t c, int64_t wl)
{
    double d = (double)cut_d(cs, c, wl);
    return d * d / ((double)c * (double)(cs->n - c));
}

static bool two_means_pruned(const double *v, size_t n, size_t *cut)
{
    double v0 = v[0], vmax = v[n - 1], dn = (double)n;
    if (n < CUT_PRUNED_MIN || n >= ((size_t)1 << 31) || !(v0 >= 0) || !(vmax >= v0) ||
        !(vmax < 0x1p52) || !(dn * vmax < 0x1p52) || !(dn * dn * (vmax - v0) < 0x1p58))
        return false;
    size_t block = n < 4096 ? CUT_BLOCK_SMALL : CUT_BLOCK;
    size_t blocks = (n - 2) / block + 1; /* of the cuts 1 .. n-1 */
    /* wl[k] = L(a) - a v[0] at block k's first cut a = 1 + k block;
     * wl[blocks] at n */
    int64_t *wl = malloc((blocks + 1) * sizeof *wl);
    if (!wl)
        return false;
    cut_sums cs = {n, (int64_t)v0, 0};
    bool fraction = false;
    double left = 0;
    for (size_t k = 0; k <= blocks; k++) {
        size_t a = k < blocks ? 1 + k * block : n, from = k ? 1 + (k - 1) * block : 0;
        left += integer_sum(v, from, a, &fraction);
        wl[k] = (int64_t)left - (int64_t)a * cs.v0;
    }
    cs.tw = wl[blocks];
    double best_lower = 0; /* B >= 0 at every cut */
    for (size_t k = 0; k < blocks && !fraction; k++) {
        size_t a = 1 + k * block, e = k + 1 < blocks ? a + block - 1 : n - 1;
        int64_t we = wl[k + 1] - ((int64_t)v[e] - cs.v0); /* L(e + 1) - v[e] */
        if (v[a] != v[a - 1])
            best_lower = fmax(best_lower, cut_b(&cs, a, wl[k]));
        if (v[e] != v[e - 1])
            best_lower = fmax(best_lower, cut_b(&cs, e, we));
    }
    if (fraction) {
        free(wl);
        return false;
    }
    double tol = 0x1p-46 * dn * dn * vmax * vmax;
    double floor_b = best_lower * (1 - 0x1p-40) - 2 * tol;
    long double total = (long double)(cs.tw + (int64_t)n * cs.v0), best = -1;
    size_t best_cut = 0;
    for (size_t k = 0; k < blocks; k++) {
        size_t a = 1 + k * block, e = k + 1 < blocks ? a + block - 1 : n - 1;
        int64_t we = wl[k + 1] - ((int64_t)v[e] - cs.v0), span = (int64_t)(e - a);
        int64_t step_a = cs.tw - (int64_t)n * ((int64_t)v[a] - cs.v0);
        int64_t step_e = cs.tw - (int64_t)n * ((int64_t)v[e > a ? e - 1 : e] - cs.v0);
        int64_t up_a = cut_d(&cs, a, wl[k]) + span * (step_a > 0 ? step_a : 0);
        int64_t up_e = cut_d(&cs, e, we) + span * (step_e < 0 ? -step_e : 0);
        double dmax = (double)(up_a < up_e ? up_a : up_e);
        double qa = (double)a * (double)(n - a), qe = (double)e * (double)(n - e);
        if (dmax * dmax / (qa < qe ? qa : qe) * (1 + 0x1p-40) < floor_b)
            continue;
        long double ld_left = (long double)(wl[k] + (int64_t)a * cs.v0);
        for (size_t c = a; c <= e; c++) {
            if (c > a)
                ld_left += v[c - 1];
            if (v[c] == v[c - 1])
                continue;
            long double between = cut_between(total, ld_left, c, n);
            if (between > best) {
                best = between;
                best_cut = c;
            }
        }
    }
    free(wl);
    *cut = best_cut;
    return true;
}

size_t ks_two_means_cut(const double *v, size_t n, double *sse_out)
{
    if (sse_out)
        *sse_out = 0.0;
    if (n < 2 || v[0] == v[n - 1])
        return 0;
    size_t best_cut;
    if (!two_means_pruned(v, n, &best_cut))
        best_cut = two_means_scan(v, n);
    if (sse_out) {
        /* within-cluster SSE of the chosen cut, two-pass for accuracy */
        long double sse = 0;
        for (int side = 0; side < 2; side++) {
            size_t lo = side ? best_cut : 0, hi = side ? n : best_cut;
            long double mean = 0;
            for (size_t i = lo; i < hi; i++)
                mean += v[i];
            mean /= (long double)(hi - lo);
            for (size_t i = lo; i < hi; i++)
                sse += (v[i] - mean) * (v[i] - mean);
        }
        *sse_out = (double)sse;
    }
    return best_cut;
}
