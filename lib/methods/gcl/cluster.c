/*
 * cluster.c - from embeddings to a plan: K-Means with K chosen by the
 * silhouette (near-ties go to the smaller K), first-invocation
 * representatives, weight = cluster size.
 *
 * What is clustered, per launch: the embedding scaled to unit length (the
 * encoder was trained on cosine similarity, so direction is what it learned),
 * joined with launch_weight x log2(thread blocks) and launch_weight x
 * log2(warp instructions).  A graph built from a bounded set of warps cannot
 * see the grid: two launches of the same code over 128 and 16 blocks give the
 * same graph (backprop-h100's adjust_weights), and merging them would weight
 * one's time by the other's count.  One doubling of the grid moves a launch
 * by launch_weight in each of the two coordinates, while unit embeddings are
 * at most 2 apart, so a grid that differs by a factor of 2 or more separates
 * clusters and equal grids leave the embedding in charge.
 */
#include "gcl.h"
#include "kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ks_gcl_selection_free(ks_gcl_selection *s)
{
    if (!s)
        return;
    free(s->cluster);
    free(s->representative);
    free(s->weight);
    memset(s, 0, sizeof *s);
}

void gcl_cluster_row(const double *emb, size_t dim, const double *launch, double weight,
                     double *x)
{
    double norm = 0;
    for (size_t j = 0; j < dim; j++)
        norm += emb[j] * emb[j];
    norm = sqrt(norm);
    for (size_t j = 0; j < dim; j++)
        x[j] = norm > 0 ? emb[j] / norm : 0;
    if (launch) {
        x[dim] = weight * launch[0];
        x[dim + 1] = weight * launch[1];
    }
}

static double *cluster_features(const double *emb, size_t n, size_t dim, const double *launch,
                                double weight, size_t *width)
{
    size_t w = dim + (launch ? 2 : 0);
    double *x = malloc((n ? n : 1) * w * sizeof *x);
    if (!x)
        return NULL;
    for (size_t i = 0; i < n; i++)
        gcl_cluster_row(emb + i * dim, dim, launch ? launch + 2 * i : NULL, weight, x + i * w);
    *width = w;
    return x;
}

/* ------------------------------------------------------------ duplicates */

typedef struct row_ref {
    const double *row;
    size_t width, index;
} row_ref;

static int row_ref_cmp(const void *a, const void *b)
{
    const row_ref *x = a, *y = b;
    int c = memcmp(x->row, y->row, x->width * sizeof *x->row);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Distinct rows of x in order of first appearance (ux, m rows), how many
 * launches each stands for (uw: the sum of count over its copies, count
 * NULL: one each) and each row's distinct row (of).  Launches of one kernel
 * often embed identically: clustering distinct rows with weights gives the
 * same clusters as clustering every launch, at a fraction of the cost. */
static ks_status unique_rows(const double *x, const double *count, size_t n, size_t w,
                             double **ux, double **uw, size_t **of, size_t *m, ks_error *err)
{
    row_ref *r = malloc(n * sizeof *r);
    size_t *first = malloc(n * sizeof *first), *slot = malloc(n * sizeof *slot);
    *ux = malloc(n * w * sizeof **ux);
    *uw = calloc(n, sizeof **uw);
    *of = malloc(n * sizeof **of);
    if (!r || !first || !slot || !*ux || !*uw || !*of) {
        free(r), free(first), free(slot);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (row_ref){x + i * w, w, i};
    qsort(r, n, sizeof *r, row_ref_cmp);
    for (size_t i = 0; i < n; i++) /* first[row] = first row equal to it */
        first[r[i].index] = i > 0 && row_ref_cmp(&(row_ref){r[i].row, w, 0},
                                                 &(row_ref){r[i - 1].row, w, 0}) == 0
                                ? first[r[i - 1].index]
                                : r[i].index;
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (first[i] == i) {
            slot[i] = distinct;
            memcpy(*ux + distinct * w, x + i * w, w * sizeof **ux);
            distinct++;
        }
        (*of)[i] = slot[first[i]];
        (*uw)[(*of)[i]] += count ? count[i] : 1;
    }
    *m = distinct;
    free(r), free(first), free(slot);
    return KS_OK;
}

static ks_status selection_from_labels(const uint32_t *label, size_t n, size_t k,
                                       ks_gcl_selection *out, ks_error *err)
{
    out->n = n;
    out->k = k;
    out->cluster = malloc((n ? n : 1) * sizeof *out->cluster);
    out->representative = malloc((k ? k : 1) * sizeof *out->representative);
    out->weight = calloc(k ? k : 1, sizeof *out->weight);
    if (!out->cluster || !out->representative || !out->weight) {
        ks_gcl_selection_free(out);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t c = 0; c < k; c++)
        out->representative[c] = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        out->cluster[i] = label[i];
        if (out->representative[label[i]] == UINT64_MAX)
            out->representative[label[i]] = i;
        out->weight[label[i]] += 1;
    }
    return KS_OK;
}

/* Tries K = 2..kmax on the m distinct rows x with weights uw; keeps the
 * smallest K within tie_tolerance of the best silhouette. */
static ks_status cluster_choose(const double *x, const double *uw, size_t m, size_t w,
                                size_t kmax, const ks_gcl_options *o, ks_kmeans_result *best,
                                double *best_score, ks_error *err)
{
    double *score = malloc((kmax + 1) * sizeof *score);
    ks_kmeans_result *res = calloc(kmax + 1, sizeof *res);
    if (!score || !res) {
        free(score), free(res);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = KS_OK;
    double top = -INFINITY;
    const uint32_t **labels = malloc((kmax + 1) * sizeof *labels);
    size_t *ks = malloc((kmax + 1) * sizeof *ks), *which = malloc((kmax + 1) * sizeof *which);
    double *got = malloc((kmax + 1) * sizeof *got);
    size_t count = 0;
    if (!labels || !ks || !which || !got)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 2; k <= kmax && st == KS_OK; k++) {
        ks_kmeans_options ko;
        ks_kmeans_options_init(&ko, k, o->seed + k);
        st = ks_kmeans_weighted(x, uw, m, w, &ko, &res[k], err);
        score[k] = -INFINITY;
        if (st == KS_OK && res[k].k >= 2) {
            labels[count] = res[k].label;
            ks[count] = res[k].k;
            which[count++] = k;
        }
    }
    /* every K's silhouette in one pass over the sampled points' distances */
    if (st == KS_OK && count)
        st = ks_silhouette_weighted_many(x, uw, m, w, labels, ks, count, o->silhouette_cap,
                                         o->seed, got, err);
    for (size_t c = 0; c < count && st == KS_OK; c++)
        score[which[c]] = got[c];
    for (size_t k = 2; k <= kmax && st == KS_OK; k++)
        if (score[k] > top)
            top = score[k];
    free(labels), free(ks), free(which), free(got);
    size_t chosen = 0;
    for (size_t k = 2; k <= kmax && st == KS_OK && !chosen; k++)
        if (score[k] >= top - o->tie_tolerance)
            chosen = k;
    if (st == KS_OK) {
        *best = res[chosen];
        *best_score = score[chosen];
        memset(&res[chosen], 0, sizeof res[chosen]);
    }
    for (size_t k = 0; k <= kmax; k++)
        ks_kmeans_result_free(&res[k]);
    free(res);
    free(score);
    return st;
}

ks_status gcl_cluster_rows(const double *x, const double *count, size_t rows, size_t w,
                           const uint32_t *row_of, size_t n, const ks_gcl_options *o,
                           ks_gcl_selection *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: no launches to cluster");
    double *ux = NULL, *uw = NULL;
    size_t *of = NULL, m = 0;
    ks_status st = unique_rows(x, count, rows, w, &ux, &uw, &of, &m, err);
    /* K above the number of distinct points cannot be told apart, and the
     * silhouette needs K <= n - 1 */
    size_t kmax = o->k_max;
    if (kmax > m)
        kmax = m;
    if (kmax > n - 1)
        kmax = n - 1;
    uint32_t *label = st == KS_OK ? calloc(n, sizeof *label) : NULL;
    if (st == KS_OK && !label)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK && kmax < 2) {
        st = selection_from_labels(label, n, 1, out, err);
    } else if (st == KS_OK) {
        ks_kmeans_result best;
        double score = 0;
        st = cluster_choose(ux, uw, m, w, kmax, o, &best, &score, err);
        if (st == KS_OK) {
            /* distinct rows are in launch order of first appearance, and
             * k-means numbers clusters by first appearance: so are these */
            for (size_t i = 0; i < n; i++)
                label[i] = best.label[of[row_of ? row_of[i] : i]];
            st = selection_from_labels(label, n, best.k, out, err);
            out->silhouette = score;
            ks_kmeans_result_free(&best);
        }
    }
    free(label), free(ux), free(uw), free(of);
    return st;
}

ks_status ks_gcl_cluster(const double *emb, size_t n, size_t dim, const double *launch,
                         const ks_gcl_options *o, ks_gcl_selection *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "gcl: no launches to cluster");
    size_t w;
    double *x = cluster_features(emb, n, dim, launch, o->launch_weight, &w);
    if (!x)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_status st = gcl_cluster_rows(x, NULL, n, w, NULL, n, o, out, err);
    free(x);
    return st;
}

ks_status ks_gcl_select(const ks_gcl_model *m, ks_gcl_graph *const *graphs, size_t n,
                        const ks_gcl_options *o, ks_gcl_selection *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (!o)
        o = &m->opt;
    size_t dim = ks_gcl_embedding_dim(m);
    double *emb = malloc((n ? n : 1) * dim * sizeof *emb);
    double *launch = malloc((n ? n : 1) * 2 * sizeof *launch);
    if (!emb || !launch) {
        free(emb), free(launch);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = ks_gcl_embed(m, graphs, n, emb, err);
    for (size_t i = 0; i < n; i++) {
        launch[2 * i] = graphs[i]->log2_blocks;
        launch[2 * i + 1] = graphs[i]->log2_warp_insts;
    }
    if (st == KS_OK)
        st = ks_gcl_cluster(emb, n, dim, launch, o, out, err);
    free(emb);
    free(launch);
    return st;
}
