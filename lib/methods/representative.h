/*
 * representative.h - what the deterministic baselines share (PKA, Sieve,
 * Photon; internal): fit partitions the invocations into clusters, each with
 * ONE representative that stands for every member (weight = cluster size),
 * and select only writes them into the plan.  These methods promise no
 * bound: the plan says bound 0, scope "none".
 */
#ifndef KS_REPRESENTATIVE_H
#define KS_REPRESENTATIVE_H

#include "internal.h"

typedef struct ks_rep_cluster {
    uint32_t group;       /* index into the plan's groups (the fit's ks_groups) */
    char path[32];        /* e.g. "3" (PKA's cluster), "t3.1.0" (Sieve's tier-3 stratum) */
    uint32_t rep;         /* the invocation that is simulated */
    size_t first, count;  /* members are ks_rep_model.members[first .. first+count) */
} ks_rep_cluster;

typedef struct ks_rep_model {
    int single_group;     /* 1: the plan has one group "all" (PKA clusters across kernels) */
    size_t count, capacity;
    ks_rep_cluster *clusters;
    uint32_t *members;    /* member ids, cluster after cluster */
    size_t member_count, member_capacity;
    char note[256];       /* copied to ks_plan.note */
} ks_rep_model;

ks_rep_model *ks_rep_model_new(ks_error *err);
/* Adds a cluster of the n ids (copied; any order) represented by rep. */
ks_status ks_rep_add(ks_rep_model *m, uint32_t group, const char *path, const uint32_t *ids,
                     size_t n, uint32_t rep, ks_error *err);
/* The first id in launch order of ids[0..n): the papers' "first invocation". */
uint32_t ks_rep_first(const uint32_t *ids, size_t n);
/* select of every deterministic baseline: writes the clusters and their
 * representatives; rng is not used. */
ks_status ks_rep_select(const ks_method_input *in, const void *model, ks_rng *rng,
                        ks_plan *plan, ks_error *err);
void ks_rep_model_free(void *model);

/* A representative method's table entries: its fit (ending in
 * ks_method_fit_end with ks_rep_model_free), the shared select and model
 * release. */
#define KS_REP_METHOD(fit_fn) \
    .fit = fit_fn, .select = ks_rep_select, .model_free = ks_rep_model_free
/* Appends printf-style text to m->note, ending it with "..." when full. */
void ks_rep_note(ks_rep_model *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* PKA's PCA (pka.c; exposed for tests): projects the standardised x (n x 12,
 * row-major) on its leading principal components, the fewest whose
 * eigenvalues reach `variance` of the total.  *q = 0 when every feature is
 * constant; *out then holds one zero column. */
ks_status ks_pka_project(const double *x, size_t n, double variance, double **out, size_t *q,
                         ks_error *err);

/* Sieve's density cuts (sieve.c; exposed for tests): Silverman's bandwidth
 * of sorted values, and the local minima of their Gaussian KDE evaluated on
 * `grid` evenly spaced points, as cut values (ascending, at most grid). */
double ks_sieve_silverman(const double *sorted, size_t n);
size_t ks_sieve_kde_cuts(const double *sorted, size_t n, double bandwidth, size_t grid,
                         double *cuts);

#endif
