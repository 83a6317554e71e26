/*
 * pka.c - Principal Kernel Analysis (Baddouh et al., MICRO'21): the 12
 * Nsight Compute features of every launch, standardised; PCA keeping 99.95 %
 * of the variance (LAPACK's symmetric eigensolver through LAPACKE, on the
 * 12 x 12 covariance); k-means for k = 1..20 from a k-means++ start; each
 * cluster is represented by its first launch, weighted by its size; the
 * smallest k whose projected total-time error (against the profile's own
 * times) is within 5 % wins, else the k with the least error.
 *
 * Seed: everything here is fitted once, independent of the plan's seed (a
 * deterministic method draws nothing); k-means++ takes its own seed, the
 * --kmeans-seed parameter (default 0), which the plan records with the other
 * parameters.  The chosen k is the plan's cluster count and is written in the
 * plan's note with the PCA's component count.
 */
#include "kmeans.h"
#include "representative.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PKA_FEATURES 12

static const char *const pka_metrics[] = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "smsp__inst_executed_op_local_ld.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "launch__grid_size",
    NULL,
};

typedef struct pka_params {
    uint64_t max_k;
    double variance;
    double max_error;
    uint64_t kmeans_seed;
    uint64_t restarts;
} pka_params;

static const ks_param_def pka_param_defs[] = {
    {"max-k", KS_PARAM_UINT, offsetof(pka_params, max_k), 1, 1000, 20, NULL, "K",
     "try k = 1..K clusters"},
    {"variance", KS_PARAM_REAL, offsetof(pka_params, variance), 1e-6, 1, 0.9995, NULL, "F",
     "PCA keeps the fewest components explaining this fraction of the variance"},
    {"max-error", KS_PARAM_REAL, offsetof(pka_params, max_error), 0, 1e300, 0.05, NULL, "E",
     "the smallest k whose projected time error is at most E wins"},
    {"kmeans-seed", KS_PARAM_UINT, offsetof(pka_params, kmeans_seed), 0, 1.8e19, 0, NULL,
     "N", "seed of the k-means++ start (the plan's --seed does not change a PKA plan)"},
    /* scikit-learn's n_init for k-means++ is 1 since version 1.4 */
    {"restarts", KS_PARAM_UINT, offsetof(pka_params, restarts), 1, 1000, 1, NULL, "N",
     "k-means++ starts per k; the lowest inertia wins"},
};

/* The n x 12 feature matrix, row-major; a launch without a value is refused. */
static ks_status pka_features(const ks_profile *p, double **out, ks_error *err)
{
    double *x = malloc(p->n * PKA_FEATURES * sizeof *x);
    if (!x)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t j = 0; j < PKA_FEATURES; j++) {
        const ks_metric_column *c = ks_profile_find_metric(p, pka_metrics[j]);
        for (size_t i = 0; i < p->n; i++) {
            if (!isfinite(c->values[i])) {
                free(x);
                return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                    "pka: launch %zu (%.80s) has no value for %s", i,
                                    ks_profile_name(p, i), pka_metrics[j]);
            }
            x[i * PKA_FEATURES + j] = c->values[i];
        }
    }
    *out = x;
    return KS_OK;
}

/* Projects the standardised x (n x 12) on its leading principal components,
 * the fewest whose eigenvalues reach `variance` of the total; *q = 0 when
 * every feature is constant (then *out is one zero column). */
ks_status ks_pka_project(const double *x, size_t n, double variance, double **out, size_t *q,
                         ks_error *err)
{
    enum { D = PKA_FEATURES };
    double cov[D * D] = {0}, w[D];
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < D; a++)
            for (size_t b = a; b < D; b++)
                cov[a * D + b] += x[i * D + a] * x[i * D + b];
    for (size_t a = 0; a < D; a++)
        for (size_t b = a; b < D; b++)
            cov[b * D + a] = cov[a * D + b] /= (double)n;
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', D, cov, D, w);
    if (info != 0)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0,
                            "pka: LAPACK dsyev did not converge (info %d)", (int)info);
    /* eigenvalues ascending; eigenvector j is column j of cov */
    double total = 0, kept = 0;
    for (int j = 0; j < D; j++)
        total += w[j] > 0 ? w[j] : 0;
    size_t k = 0;
    while (total > 0 && k < D && kept < variance * total * (1 - 1e-12)) {
        double lambda = w[D - 1 - k];
        kept += lambda > 0 ? lambda : 0;
        k++;
    }
    size_t cols = k ? k : 1;
    double *y = calloc(n * cols, sizeof *y);
    if (!y)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < k; c++) {
            double s = 0;
            for (size_t a = 0; a < D; a++)
                s += x[i * D + a] * cov[a * D + (D - 1 - c)];
            y[i * cols + c] = s;
        }
    *out = y;
    *q = k;
    return KS_OK;
}

/* Relative error of the total time when each cluster's first launch stands
 * for all its members; rep[c] receives that launch. */
static double pka_error(const ks_profile *p, const uint32_t *label, size_t k, uint32_t *rep,
                        uint64_t *size)
{
    for (size_t c = 0; c < k; c++)
        rep[c] = UINT32_MAX, size[c] = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (rep[label[i]] == UINT32_MAX)
            rep[label[i]] = (uint32_t)i;
        size[label[i]]++;
    }
    long double est = 0;
    for (size_t c = 0; c < k; c++)
        est += (long double)size[c] * p->duration_ns[rep[c]];
    double truth = ks_profile_total_ns(p);
    return truth > 0 ? (double)(fabsl(est - truth) / truth) : 0;
}

typedef struct pka_search {
    size_t k;
    double error;
    uint32_t *label;
} pka_search;

/* k-means for k = 1..max_k; keeps the smallest k within max_error, else the
 * least error. */
static ks_status pka_choose_k(const ks_profile *p, const pka_params *pa, const double *y,
                              size_t cols, pka_search *best, ks_error *err)
{
    uint32_t *rep = malloc(pa->max_k * sizeof *rep);
    uint64_t *size = malloc(pa->max_k * sizeof *size);
    ks_status st = rep && size ? KS_OK : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    best->label = NULL;
    best->error = INFINITY;
    for (size_t k = 1; k <= pa->max_k && st == KS_OK; k++) {
        ks_kmeans_options o;
        ks_kmeans_options_init(&o, k, pa->kmeans_seed);
        o.restarts = (unsigned)pa->restarts;
        ks_kmeans_result r;
        if ((st = ks_kmeans(y, p->n, cols, &o, &r, err)) != KS_OK)
            break;
        double e = pka_error(p, r.label, r.k, rep, size);
        bool within = e <= pa->max_error;
        if (e < best->error || within) {
            free(best->label);
            best->label = r.label;
            r.label = NULL;
            best->k = r.k;
            best->error = e;
        }
        /* fewer distinct points than k: a larger k finds the same clusters */
        bool exhausted = r.k < k;
        ks_kmeans_result_free(&r);
        if (within || exhausted)
            break;
    }
    free(rep);
    free(size);
    if (st != KS_OK) {
        free(best->label);
        best->label = NULL;
    }
    return st;
}

static ks_status pka_clusters(const ks_profile *p, const pka_search *s, ks_rep_model *m,
                              ks_error *err)
{
    /* members of each label in launch order: a counting sort */
    size_t *start = calloc(s->k + 1, sizeof *start);
    uint32_t *ids = malloc(p->n * sizeof *ids);
    ks_status st = start && ids ? KS_OK : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK) {
        for (size_t i = 0; i < p->n; i++)
            start[s->label[i] + 1]++;
        for (size_t c = 0; c < s->k; c++)
            start[c + 1] += start[c];
        size_t *fill = start; /* advanced while filling, restored below */
        for (size_t i = 0; i < p->n; i++)
            ids[fill[s->label[i]]++] = (uint32_t)i;
        for (size_t c = s->k; c > 0; c--)
            start[c] = start[c - 1];
        start[0] = 0;
    }
    for (size_t c = 0; c < s->k && st == KS_OK; c++) {
        char path[32];
        snprintf(path, sizeof path, "%zu", c);
        size_t n = start[c + 1] - start[c];
        st = ks_rep_add(m, 0, path, ids + start[c], n, ids[start[c]], err);
    }
    free(start);
    free(ids);
    return st;
}

static ks_status pka_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const ks_profile *p = in->profile;
    const pka_params *pa = in->method_params;
    double *x = NULL, *y = NULL;
    size_t q = 0;
    pka_search best = {0};
    ks_rep_model *m = ks_rep_model_new(err);
    ks_status st = m ? pka_features(p, &x, err) : KS_ERR_NOMEM;
    if (st == KS_OK) {
        ks_standardize(x, p->n, PKA_FEATURES, NULL, NULL);
        st = ks_pka_project(x, p->n, pa->variance, &y, &q, err);
    }
    if (st == KS_OK)
        st = pka_choose_k(p, pa, y, q ? q : 1, &best, err);
    if (st == KS_OK) {
        m->single_group = 1;
        st = pka_clusters(p, &best, m, err);
        ks_rep_note(m, "k=%zu (projected time error %.4g%%); PCA kept %zu of %d components",
                    best.k, 100 * best.error, q, PKA_FEATURES);
    }
    free(best.label);
    free(x);
    free(y);
    return ks_method_fit_end(st, m, ks_rep_model_free, model);
}

const ks_method ks_method_pka = {
    .name = "pka",
    .chooses = 1,
    .summary = "PKA: 12 Nsight Compute features, PCA, k-means k = 1..20, first launch of "
               "each cluster (MICRO'21)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_TIME | KS_NEED_METRICS,
    .metrics = pka_metrics,
    KS_METHOD_PARAMS(pka_param_defs, pka_params),
    KS_REP_METHOD(pka_fit),
};
