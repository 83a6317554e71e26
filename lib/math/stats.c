/*
 * stats.c - the normal quantile, STEM's KKT sample-size allocation, and the
 * exact one-dimensional 2-means cut that ROOT and Allegro split with.
 */
#include "internal.h"

#include <float.h>
#include <math.h>

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
size_t ks_two_means_cut(const double *v, size_t n, double *sse_out)
{
    if (sse_out)
        *sse_out = 0.0;
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
            continue; /* some optimum never separates equal values */
        long double nl = (long double)c, nr = (long double)(n - c);
        long double diff = (total - left) / nr - left / nl;
        long double between = nl * nr * diff * diff;
        if (between > best) {
            best = between;
            best_cut = c;
        }
    }
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
