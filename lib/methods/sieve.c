/*
 * sieve.c - Sieve (Naderan-Tahan et al., ISPASS'23): launches grouped by
 * kernel name and sorted into tiers by the coefficient of variation (CV,
 * population std / mean) of their instruction counts:
 *   tier 1, CV = 0: the first launch stands for the group;
 *   tier 2, 0 < CV < 0.4: the first launch whose thread count (grid x block)
 *     is the group's most frequent one (a tie goes to the count seen first);
 *   tier 3, CV >= 0.4: sorted by instruction count and cut at the local
 *     minima of a Gaussian kernel density estimate; a stratum whose CV is
 *     still above 0.5 is cut once more the same way; the first launch of each
 *     stratum stands for it.
 * Weight = the size of what a representative stands for.
 *
 * Bandwidth: the STEM artifact used a fixed bandwidth of 1 on raw counts,
 * which on counts in the millions puts a minimum between every two distinct
 * values.  Default here: Silverman's rule on the stratum's own counts,
 * 0.9 min(s, IQR / 1.34) n^(-1/5) (s with the n-1 divisor; s alone when the
 * IQR is 0); --bandwidth H fixes it.  The bandwidths used are in the plan's
 * note.  The density is evaluated on --kde-grid evenly spaced points from the
 * least to the largest count; a point is a minimum when it is below its left
 * neighbour and not above its right one (the middle of a flat bottom).
 */
#include "representative.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const sieve_metrics[] = {"smsp__inst_executed.sum", NULL};

typedef struct sieve_params {
    double tier2_cv;
    double recut_cv;
    double bandwidth;
    uint64_t kde_grid;
} sieve_params;

static const ks_param_def sieve_param_defs[] = {
    {"tier2-cv", KS_PARAM_REAL, offsetof(sieve_params, tier2_cv), 1e-300, 1e300, 0.4, NULL,
     "C", "groups with 0 < CV < C are tier 2, CV >= C tier 3"},
    {"recut-cv", KS_PARAM_REAL, offsetof(sieve_params, recut_cv), 0, 1e300, 0.5, NULL, "C",
     "a tier-3 stratum with CV > C is cut once more"},
    {"bandwidth", KS_PARAM_REAL, offsetof(sieve_params, bandwidth), 0, 1e300, 0, NULL, "H",
     "KDE bandwidth in instructions (default 0: Silverman's rule per stratum)"},
    {"kde-grid", KS_PARAM_UINT, offsetof(sieve_params, kde_grid), 3, 1e6, 512, NULL, "N",
     "points the density is evaluated on"},
};

static double quantile_sorted(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

double ks_sieve_silverman(const double *sorted, size_t n)
{
    if (n < 2)
        return 0;
    long double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += sorted[i];
    long double mean = sum / n;
    for (size_t i = 0; i < n; i++)
        sq += (sorted[i] - mean) * (sorted[i] - mean);
    double s = (double)sqrtl(sq / (n - 1));
    double iqr = quantile_sorted(sorted, n, 0.75) - quantile_sorted(sorted, n, 0.25);
    double spread = iqr > 0 && iqr / 1.34 < s ? iqr / 1.34 : s;
    return 0.9 * spread * pow((double)n, -0.2);
}

size_t ks_sieve_kde_cuts(const double *sorted, size_t n, double bandwidth, size_t grid,
                         double *cuts)
{
    if (n < 2 || !(bandwidth > 0) || grid < 3 || sorted[n - 1] <= sorted[0])
        return 0;
    double lo = sorted[0], step = (sorted[n - 1] - lo) / (double)(grid - 1);
    double *f = malloc(grid * sizeof *f);
    if (!f)
        return 0;
    /* terms beyond 9 bandwidths are below e^-40 of a peak: left out */
    size_t first = 0;
    for (size_t j = 0; j < grid; j++) {
        double g = lo + step * (double)j;
        while (first < n && sorted[first] < g - 9 * bandwidth)
            first++;
        long double s = 0;
        for (size_t i = first; i < n && sorted[i] <= g + 9 * bandwidth; i++) {
            double u = (g - sorted[i]) / bandwidth;
            s += exp(-0.5 * u * u);
        }
        f[j] = (double)s;
    }
    size_t count = 0;
    for (size_t j = 1; j + 1 < grid; j++) {
        if (!(f[j] < f[j - 1]))
            continue;
        size_t end = j;
        while (end + 1 < grid && f[end + 1] == f[j])
            end++;
        if (end + 1 < grid && f[end + 1] > f[j])
            cuts[count++] = lo + step * (double)(j + end) / 2;
        j = end;
    }
    free(f);
    return count;
}

typedef struct sieve_ctx {
    const ks_profile *p;
    const sieve_params *pa;
    const double *inst;
    ks_rep_model *m;
    uint32_t group;
    ks_error *err;
} sieve_ctx;

static double cv_of(const double *inst, const uint32_t *ids, size_t n)
{
    long double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += inst[ids[i]];
    long double mean = sum / n;
    for (size_t i = 0; i < n; i++)
        sq += (inst[ids[i]] - mean) * (inst[ids[i]] - mean);
    if (sq == 0)
        return 0;
    return mean > 0 ? (double)(sqrtl(sq / n) / mean) : INFINITY;
}

static uint64_t thread_count(const ks_profile *p, uint32_t i)
{
    const uint32_t *g = ks_profile_grid(p, i), *b = ks_profile_block(p, i);
    return (uint64_t)g[0] * g[1] * g[2] * ((uint64_t)b[0] * b[1] * b[2]);
}

/* ids sorted by key (ties in launch order), through (key, id) pairs; the
 * keys are instruction counts (>= 0, checked by sieve_fit) or thread counts
 * compared as doubles */
static ks_status sort_by_key(const double *key_of_id, const uint64_t *u64_of_id, uint32_t *ids,
                             size_t n, ks_error *err)
{
    ks_key_index *k = malloc(n * sizeof *k);
    if (!k)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        k[i] = (ks_key_index){
            ks_key_of_double(key_of_id ? key_of_id[ids[i]] : (double)u64_of_id[i]), ids[i]};
    ks_sort_key_index(k, n);
    for (size_t i = 0; i < n; i++)
        ids[i] = k[i].index;
    free(k);
    return KS_OK;
}

/* Tier 2: the first launch with the most frequent thread count; on a tie the
 * count whose first launch came first. */
static ks_status sieve_tier2_rep(const ks_profile *p, const uint32_t *ids, size_t n,
                                 uint32_t *rep, ks_error *err)
{
    uint64_t *threads = malloc(n * sizeof *threads);
    uint32_t *sorted = malloc(n * sizeof *sorted);
    ks_status st = threads && sorted ? KS_OK
                                     : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK) {
        memcpy(sorted, ids, n * sizeof *ids);
        for (size_t i = 0; i < n; i++)
            threads[i] = thread_count(p, ids[i]);
        st = sort_by_key(NULL, threads, sorted, n, err);
    }
    /* sort_by_key read threads by position in ids: recompute along sorted */
    size_t best_count = 0;
    for (size_t lo = 0; st == KS_OK && lo < n;) {
        uint64_t t = thread_count(p, sorted[lo]);
        size_t hi = lo;
        while (hi < n && thread_count(p, sorted[hi]) == t)
            hi++;
        if (hi - lo > best_count || (hi - lo == best_count && sorted[lo] < *rep)) {
            best_count = hi - lo;
            *rep = sorted[lo];
        }
        lo = hi;
    }
    free(threads);
    free(sorted);
    return st;
}

/* Cuts ids[0..n) (sorted by instruction count) at the KDE minima and adds
 * each stratum, recutting once where allowed and the CV is still high. */
static ks_status sieve_strata(sieve_ctx *c, uint32_t *ids, size_t n, const char *path,
                              bool recut)
{
    double *v = malloc(n * sizeof *v);
    if (!v)
        return ks_error_set(c->err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = c->inst[ids[i]];
    double h = c->pa->bandwidth > 0 ? c->pa->bandwidth : ks_sieve_silverman(v, n);
    double *cuts = malloc((c->pa->kde_grid + 1) * sizeof *cuts);
    ks_status st = cuts ? KS_OK : ks_error_set(c->err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t ncut = cuts ? ks_sieve_kde_cuts(v, n, h, c->pa->kde_grid, cuts) : 0;
    ks_rep_note(c->m, "%s g%u/%s h=%.6g", c->m->note[0] ? "," : "kde bandwidths:", c->group,
                path, h);
    size_t lo = 0, stratum = 0;
    for (size_t k = 0; k <= ncut && st == KS_OK; k++) {
        size_t hi = lo;
        while (hi < n && (k == ncut || v[hi] < cuts[k]))
            hi++;
        if (hi == lo)
            continue;
        char child[32];
        snprintf(child, sizeof child, "%s.%zu", path, stratum++);
        if (recut && hi - lo >= 2 && cv_of(c->inst, ids + lo, hi - lo) > c->pa->recut_cv)
            st = sieve_strata(c, ids + lo, hi - lo, child, false);
        else
            st = ks_rep_add(c->m, c->group, child, ids + lo, hi - lo,
                            ks_rep_first(ids + lo, hi - lo), c->err);
        lo = hi;
    }
    free(cuts);
    free(v);
    return st;
}

static ks_status sieve_group(sieve_ctx *c, uint32_t *ids, size_t n)
{
    double cv = cv_of(c->inst, ids, n);
    if (cv == 0)
        return ks_rep_add(c->m, c->group, "t1", ids, n, ids[0], c->err);
    if (cv < c->pa->tier2_cv) {
        uint32_t rep = ids[0];
        ks_status st = sieve_tier2_rep(c->p, ids, n, &rep, c->err);
        return st != KS_OK ? st : ks_rep_add(c->m, c->group, "t2", ids, n, rep, c->err);
    }
    ks_status st = sort_by_key(c->inst, NULL, ids, n, c->err);
    return st != KS_OK ? st : sieve_strata(c, ids, n, "t3", true);
}

static ks_status sieve_fit(const ks_method_input *in, void **model, ks_error *err)
{
    const ks_profile *p = in->profile;
    const ks_groups *g = in->groups;
    const double *inst = ks_profile_find_metric(p, "smsp__inst_executed.sum")->values;
    for (size_t i = 0; i < p->n; i++)
        if (!(inst[i] >= 0))
            return ks_error_set(err, KS_ERR_FORMAT, p->source_path, 0,
                                "sieve: launch %zu (%.80s) has no instruction count", i,
                                ks_profile_name(p, i));
    ks_rep_model *m = ks_rep_model_new(err);
    size_t *start = calloc(g->count + 1, sizeof *start);
    uint32_t *ids = malloc(p->n * sizeof *ids);
    ks_status st = m && start && ids ? KS_OK
                                     : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK) {
        for (size_t gi = 0; gi < g->count; gi++)
            start[gi + 1] = start[gi] + g->size[gi];
        size_t *fill = malloc(g->count * sizeof *fill);
        if (!fill)
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        else {
            memcpy(fill, start, g->count * sizeof *fill);
            for (size_t i = 0; i < p->n; i++)
                ids[fill[g->group_of[i]]++] = (uint32_t)i;
            free(fill);
        }
    }
    sieve_ctx c = {.p = p, .pa = in->method_params, .inst = inst, .m = m, .err = err};
    for (size_t gi = 0; gi < g->count && st == KS_OK; gi++) {
        c.group = (uint32_t)gi;
        st = sieve_group(&c, ids + start[gi], g->size[gi]);
    }
    free(start);
    free(ids);
    return ks_method_fit_end(st, m, ks_rep_model_free, model);
}

const ks_method ks_method_sieve = {
    .name = "sieve",
    .chooses = 1,
    .summary = "Sieve: instruction-count tiers by CV, dominant thread count, KDE strata "
               "(ISPASS'23)",
    .default_key = KS_KEY_NAME,
    .needs = KS_NEED_METRICS | KS_NEED_DIMS,
    .metrics = sieve_metrics,
    KS_METHOD_PARAMS(sieve_param_defs, sieve_params),
    KS_REP_METHOD(sieve_fit),
};
