/*
 * kmeans.h - k-means clustering of row-major double points, the silhouette
 * score that chooses k, and per-column standardisation (internal header;
 * shared by GCL-Sampler and PKA).
 *
 * Every function is deterministic for its seed: k-means++ seeding and the
 * silhouette sample draw from a ks_rng, ties go to the lowest index, and the
 * labels are renumbered in order of first appearance (the cluster of point 0
 * is 0), so two runs with the same seed give the same bytes.
 */
#ifndef KS_KMEANS_H
#define KS_KMEANS_H

#include "internal.h"

typedef struct ks_kmeans_options {
    size_t k;           /* clusters asked for (>= 1) */
    unsigned restarts;  /* independent k-means++ starts; the lowest inertia wins (default 10) */
    unsigned max_iter;  /* Lloyd iterations per start (default 300) */
    double tol;         /* stop when no centroid moves more than tol (squared, relative to
                           the data's mean squared norm); labels unchanged also stops */
    uint64_t seed;
} ks_kmeans_options;

typedef struct ks_kmeans_result {
    size_t k;           /* non-empty clusters found: < options.k when there are
                           fewer distinct points than k */
    uint32_t *label;    /* n labels in 0..k-1, numbered by first appearance */
    double *centroid;   /* k x d, row-major, in label order */
    double inertia;     /* sum of squared distances to the own centroid */
    unsigned iterations;/* Lloyd iterations of the winning start */
} ks_kmeans_result;

void ks_kmeans_options_init(ks_kmeans_options *o, size_t k, uint64_t seed);
/* Clusters x (n x d).  n >= 1, d >= 1, k >= 1; k > n is clamped to n. */
ks_status ks_kmeans(const double *x, size_t n, size_t d, const ks_kmeans_options *opt,
                    ks_kmeans_result *out, ks_error *err);
/* The same with a positive weight per point (w NULL: all 1): centroids are
 * weighted means, the inertia and the k-means++ draws are weighted.  Whole
 * weights make it k-means on the points repeated w[i] times, so duplicates
 * can be clustered once. */
ks_status ks_kmeans_weighted(const double *x, const double *w, size_t n, size_t d,
                             const ks_kmeans_options *opt, ks_kmeans_result *out,
                             ks_error *err);
void ks_kmeans_result_free(ks_kmeans_result *r);

/* Mean silhouette (Rousseeuw 1987) of a labelling with k clusters:
 * s(i) = (b - a) / max(a, b), a = mean distance to the own cluster, b = the
 * least mean distance to another cluster; s = 0 for a member of a singleton
 * cluster and when a = b = 0.  Euclidean distance.  Exact O(n^2 d) when
 * n <= sample_cap (0: no cap); otherwise s(i) is averaged over sample_cap
 * points drawn without replacement with the seed (each still measured against
 * all n points, O(sample_cap n d)).  Needs 2 <= k <= n - 1, else *score = 0
 * and KS_ERR_USAGE. */
ks_status ks_silhouette(const double *x, size_t n, size_t d, const uint32_t *label, size_t k,
                        size_t sample_cap, uint64_t seed, double *score, ks_error *err);

/* The silhouette of the points repeated w[i] times (whole weights >= 1; w
 * NULL: all 1), computed on the n distinct points: the same value as
 * ks_silhouette on the expanded set, exact when the expanded count is at
 * most sample_cap, else over sample_cap expanded points drawn with the seed. */
ks_status ks_silhouette_weighted(const double *x, const double *w, size_t n, size_t d,
                                 const uint32_t *label, size_t k, size_t sample_cap,
                                 uint64_t seed, double *score, ks_error *err);

/* ks_silhouette_weighted of count labellings of the same points (labels[l]
 * with ks[l] clusters) into scores[l]: the same values, the same sample,
 * with each sampled point's distances computed once for all of them. */
ks_status ks_silhouette_weighted_many(const double *x, const double *w, size_t n, size_t d,
                                      const uint32_t *const *labels, const size_t *ks,
                                      size_t count, size_t sample_cap, uint64_t seed,
                                      double *scores, ks_error *err);

/* In place: every column to zero mean and unit (population) variance.  A
 * constant column becomes all zeros.  mean/std (d each) may be NULL. */
void ks_standardize(double *x, size_t n, size_t d, double *mean, double *std);

/* Distinct rows of x (exact equality), at most `limit` counted (0: no limit). */
size_t ks_distinct_rows(const double *x, size_t n, size_t d, size_t limit);

#endif
