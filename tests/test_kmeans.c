/*
 * test_kmeans.c - k-means, silhouette and standardisation against known
 * answers: hand-computed silhouettes, well-separated blobs recovered exactly,
 * the optimum inertia of a small set against every partition, determinism
 * for a seed, duplicates and k > distinct points, and sampled silhouettes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kmeans.h"
#include "test_main.h"

static void test_silhouette_hand_computed(void **state)
{
    (void)state;
    /* 1-D {0, 1, 10, 11} as {0,1} {10,11}: s(0) = (10.5 - 1) / 10.5,
     * s(1) = (9.5 - 1) / 9.5, and the mirror image for the other pair. */
    double x[] = {0, 1, 10, 11};
    uint32_t label[] = {0, 0, 1, 1};
    double s;
    ks_error err;
    assert_int_equal(ks_silhouette(x, 4, 1, label, 2, 0, 1, &s, &err), KS_OK);
    double want = (2 * (9.5 / 10.5) + 2 * (8.5 / 9.5)) / 4;
    assert_true(fabs(s - want) < 1e-15);
    /* a singleton counts 0: {0,1} {10} {11}: s(0) = (10 - 1)/10 (b = min(10, 11)),
     * s(1) = (9 - 1)/9 */
    uint32_t label3[] = {0, 0, 1, 2};
    assert_int_equal(ks_silhouette(x, 4, 1, label3, 3, 0, 1, &s, &err), KS_OK);
    want = (0.9 + 8.0 / 9.0 + 0 + 0) / 4;
    assert_true(fabs(s - want) < 1e-15);
    /* k out of range */
    assert_int_equal(ks_silhouette(x, 4, 1, label, 1, 0, 1, &s, &err), KS_ERR_USAGE);
    assert_int_equal(ks_silhouette(x, 4, 1, label, 4, 0, 1, &s, &err), KS_ERR_USAGE);
}

/* Three tight 2-D blobs far apart, points interleaved in launch order. */
static double *blobs(size_t n, uint64_t seed, uint32_t *truth)
{
    static const double centre[3][2] = {{0, 0}, {50, 0}, {0, 80}};
    double *x = malloc(n * 2 * sizeof *x);
    ks_rng rng;
    ks_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        uint32_t c = (uint32_t)((i * 7 + i / 3) % 3);
        truth[i] = c;
        x[2 * i] = centre[c][0] + ks_rng_normal(&rng);
        x[2 * i + 1] = centre[c][1] + ks_rng_normal(&rng);
    }
    return x;
}

/* Same partition up to renaming. */
static int same_partition(const uint32_t *a, const uint32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if ((a[i] == a[j]) != (b[i] == b[j]))
                return 0;
    return 1;
}

/* k-means of x (n x d) with the default options for k and seed, which must
 * succeed. */
static ks_kmeans_result kmeans_ok(const double *x, size_t n, size_t d, size_t k, uint64_t seed)
{
    ks_kmeans_options o;
    ks_kmeans_options_init(&o, k, seed);
    ks_kmeans_result r;
    ks_error err;
    assert_int_equal(ks_kmeans(x, n, d, &o, &r, &err), KS_OK);
    return r;
}

static void test_blobs_recovered(void **state)
{
    (void)state;
    size_t n = 300;
    uint32_t truth[300];
    double *x = blobs(n, 5, truth);
    ks_kmeans_result r = kmeans_ok(x, n, 2, 3, 42);
    ks_error err;
    assert_int_equal(r.k, 3);
    assert_true(same_partition(r.label, truth, n));
    assert_int_equal(r.label[0], 0); /* numbered by first appearance */
    for (size_t i = 1; i < n; i++) {
        uint32_t seen_max = 0;
        for (size_t j = 0; j < i; j++)
            if (r.label[j] > seen_max)
                seen_max = r.label[j];
        assert_true(r.label[i] <= seen_max + 1);
    }
    /* k = 3 has the best silhouette among 2..6 */
    double best = -2;
    size_t best_k = 0;
    for (size_t k = 2; k <= 6; k++) {
        ks_kmeans_result rk = kmeans_ok(x, n, 2, k, 42);
        double s;
        assert_int_equal(ks_silhouette(x, n, 2, rk.label, rk.k, 0, 1, &s, &err), KS_OK);
        if (s > best) {
            best = s;
            best_k = k;
        }
        ks_kmeans_result_free(&rk);
    }
    assert_int_equal(best_k, 3);
    assert_true(best > 0.9);
    /* a sampled silhouette is close to the exact one */
    double exact, sampled;
    assert_int_equal(ks_silhouette(x, n, 2, r.label, 3, 0, 1, &exact, &err), KS_OK);
    assert_int_equal(ks_silhouette(x, n, 2, r.label, 3, 100, 1, &sampled, &err), KS_OK);
    assert_true(fabs(exact - sampled) < 0.02);
    ks_kmeans_result_free(&r);
    free(x);
}

/* The optimum of 8 1-D points in 2 clusters is a contiguous cut of the
 * sorted values: check k-means reaches the best cut's inertia. */
static void test_optimum_inertia(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 7, 8, 9, 20, 21};
    size_t n = 8;
    double best = INFINITY;
    for (size_t c = 1; c < n; c++) {
        double s = 0;
        for (int side = 0; side < 2; side++) {
            size_t lo = side ? c : 0, hi = side ? n : c;
            double mu = 0;
            for (size_t i = lo; i < hi; i++)
                mu += x[i];
            mu /= (double)(hi - lo);
            for (size_t i = lo; i < hi; i++)
                s += (x[i] - mu) * (x[i] - mu);
        }
        if (s < best)
            best = s;
    }
    ks_kmeans_result r = kmeans_ok(x, n, 1, 2, 7);
    assert_true(fabs(r.inertia - best) < 1e-9);
    /* {1,2,3,7,8,9} (mean 5: 16+9+4+4+9+16) and {20,21} (0.5) */
    assert_true(fabs(best - (58.0 + 0.5)) < 1e-9);
    ks_kmeans_result_free(&r);
}

static void test_deterministic(void **state)
{
    (void)state;
    size_t n = 200;
    uint32_t truth[200];
    double *x = blobs(n, 9, truth);
    ks_kmeans_result a = kmeans_ok(x, n, 2, 5, 123), b = kmeans_ok(x, n, 2, 5, 123);
    assert_int_equal(a.k, b.k);
    assert_memory_equal(a.label, b.label, n * sizeof *a.label);
    assert_memory_equal(a.centroid, b.centroid, a.k * 2 * sizeof(double));
    assert_true(a.inertia == b.inertia);
    ks_kmeans_result_free(&a);
    ks_kmeans_result_free(&b);
    free(x);
}

static void test_duplicates_and_small_k(void **state)
{
    (void)state;
    /* two distinct points, asked for 4 clusters: 2 come back */
    double x[] = {1, 1, 1, 5, 5, 1};
    ks_kmeans_result r = kmeans_ok(x, 6, 1, 4, 1);
    assert_int_equal(r.k, 2);
    uint32_t want[] = {0, 0, 0, 1, 1, 0};
    assert_memory_equal(r.label, want, sizeof want);
    assert_true(r.inertia == 0);
    ks_kmeans_result_free(&r);
    assert_int_equal(ks_distinct_rows(x, 6, 1, 0), 2);
    assert_int_equal(ks_distinct_rows(x, 6, 1, 1), 1);
    /* k = 1: the mean */
    r = kmeans_ok(x, 6, 1, 1, 1);
    assert_int_equal(r.k, 1);
    assert_true(fabs(r.centroid[0] - 14.0 / 6) < 1e-12);
    ks_kmeans_result_free(&r);
    /* k > n is clamped; bad arguments are refused */
    r = kmeans_ok(x, 2, 1, 10, 1);
    assert_int_equal(r.k, 1); /* x[0] = x[1] */
    ks_kmeans_result_free(&r);
    ks_kmeans_options o;
    ks_kmeans_options_init(&o, 0, 1);
    ks_error err;
    assert_int_equal(ks_kmeans(x, 6, 1, &o, &r, &err), KS_ERR_USAGE);
}

/* Distinct points with counts give what the repeated points give. */
static void test_weighted_equals_repeated(void **state)
{
    (void)state;
    double ux[] = {0, 1, 10, 11, 30}, uw[] = {3, 1, 2, 1, 4};
    double x[11];
    uint32_t ul[] = {0, 0, 1, 1, 2}, l[11];
    size_t n = 0;
    for (size_t i = 0; i < 5; i++)
        for (int c = 0; c < (int)uw[i]; c++) {
            l[n] = ul[i];
            x[n++] = ux[i];
        }
    double a, b;
    ks_error err;
    assert_int_equal(ks_silhouette(x, n, 1, l, 3, 0, 1, &a, &err), KS_OK);
    assert_int_equal(ks_silhouette_weighted(ux, uw, 5, 1, ul, 3, 0, 1, &b, &err), KS_OK);
    assert_true(fabs(a - b) < 1e-12);
    /* sampled: the same draws over the expanded points */
    assert_int_equal(ks_silhouette(x, n, 1, l, 3, 4, 9, &a, &err), KS_OK);
    assert_int_equal(ks_silhouette_weighted(ux, uw, 5, 1, ul, 3, 4, 9, &b, &err), KS_OK);
    assert_true(fabs(a - b) < 1e-12);
    double bad[] = {1, 0.5, 1, 1, 1};
    assert_int_equal(ks_silhouette_weighted(ux, bad, 5, 1, ul, 3, 0, 1, &b, &err), KS_ERR_USAGE);
    /* weighted k-means reaches the repeated set's optimum for k = 3 */
    ks_kmeans_options o;
    ks_kmeans_options_init(&o, 3, 4);
    ks_kmeans_result r, rw;
    assert_int_equal(ks_kmeans(x, n, 1, &o, &r, &err), KS_OK);
    assert_int_equal(ks_kmeans_weighted(ux, uw, 5, 1, &o, &rw, &err), KS_OK);
    assert_true(fabs(r.inertia - rw.inertia) < 1e-9);
    assert_memory_equal(rw.label, ul, sizeof ul);
    /* {0 x3, 1}: mean 0.25 */
    assert_true(fabs(rw.centroid[0] - 0.25) < 1e-12);
    ks_kmeans_result_free(&r);
    ks_kmeans_result_free(&rw);
}

/* Several labellings at once give each labelling's own silhouette, bit for
 * bit, exact and sampled, weighted and not. */
static void test_silhouette_many(void **state)
{
    (void)state;
    enum { N = 300, D = 3, L = 5 };
    static double x[N * D], w[N];
    static uint32_t lab[L][N];
    ks_rng rng;
    ks_rng_seed(&rng, 3);
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < D; j++)
            x[i * D + j] = (double)(i % 7) + ks_rng_uniform(&rng);
        w[i] = (double)(1 + ks_rng_below(&rng, 3));
    }
    size_t ks[L];
    const uint32_t *labels[L];
    ks_error err;
    for (size_t l = 0; l < L; l++) {
        ks_kmeans_options o;
        ks_kmeans_options_init(&o, l + 2, 7);
        o.restarts = 1;
        ks_kmeans_result r;
        assert_int_equal(ks_kmeans_weighted(x, w, N, D, &o, &r, &err), KS_OK);
        memcpy(lab[l], r.label, sizeof lab[l]);
        ks[l] = r.k;
        labels[l] = lab[l];
        ks_kmeans_result_free(&r);
    }
    static const size_t caps[] = {0, 50, 5000};
    for (size_t c = 0; c < 3; c++)
        for (int weighted = 0; weighted < 2; weighted++) {
            const double *ww = weighted ? w : NULL;
            double many[L], one;
            assert_int_equal(ks_silhouette_weighted_many(x, ww, N, D, labels, ks, L, caps[c], 9,
                                                         many, &err),
                             KS_OK);
            for (size_t l = 0; l < L; l++) {
                assert_int_equal(ks_silhouette_weighted(x, ww, N, D, labels[l], ks[l], caps[c],
                                                        9, &one, &err),
                                 KS_OK);
                assert_memory_equal(&one, &many[l], sizeof one);
            }
        }
}

static void test_standardize(void **state)
{
    (void)state;
    double x[] = {1, 10, 7, 2, 10, 7, 3, 10, 7};
    double mean[3], sd[3];
    ks_standardize(x, 3, 3, mean, sd);
    assert_true(fabs(mean[0] - 2) < 1e-15 && fabs(sd[0] - sqrt(2.0 / 3)) < 1e-15);
    assert_true(sd[1] == 0 && x[1] == 0 && x[4] == 0 && x[7] == 0);
    assert_true(fabs(x[0] + sqrt(1.5)) < 1e-12 && fabs(x[6] - sqrt(1.5)) < 1e-12);
    assert_true(x[3] == 0);
}

KS_TEST_MAIN(test_silhouette_hand_computed,
             test_blobs_recovered,
             test_optimum_inertia,
             test_deterministic,
             test_duplicates_and_small_k,
             test_weighted_equals_repeated,
             test_silhouette_many,
             test_standardize)
