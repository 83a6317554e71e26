/*
 * test_util.h - in-memory synthetic profiles for the method tests.
 *
 * A workload is a list of kernel specifications; invocations are drawn in
 * launch order by picking a kernel by its share, then one of its modes, then
 * a duration around that mode.  Every draw comes from a ks_rng with a fixed
 * seed, so a workload is the same on every run and platform.  Header-only
 * (static functions) because each test file is its own program.
 */
#ifndef KS_TEST_UTIL_H
#define KS_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ksample.h"

enum tu_shape {
    TU_NORMAL,    /* normal around each mode, sd = spread * mode */
    TU_LOGNORMAL, /* mode * exp(spread * normal) */
    TU_CONSTANT,  /* exactly the mode */
    TU_UNIFORM    /* uniform in [mode (1 - spread), mode (1 + spread)] */
};

typedef struct tu_kernel {
    const char *name;
    double share;       /* relative frequency */
    enum tu_shape shape;
    double spread;
    int modes;          /* 1..4 */
    double mode[4];     /* ns; 0 gives zero-duration invocations */
    uint32_t grid[3];   /* all zero: the invocation has no grid/block */
    uint32_t block[3];
} tu_kernel;

/* Sets method parameter name = value (printf'd) when pa->method declares it;
 * methods without it are left alone, as eval does. */
static inline void tu_param(ks_params *pa, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void tu_param(ks_params *pa, const char *name, const char *fmt, ...)
{
    const ks_method *m = ks_method_find(pa->method ? pa->method : "root");
    bool declared = false;
    for (size_t i = 0; m && i < m->param_count; i++)
        declared |= strcmp(m->params[i].name, name) == 0;
    if (!declared)
        return;
    char value[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    ks_error err;
    if (ks_params_set(pa, name, value, &err) != KS_OK)
        abort();
}

static inline int64_t tu_duration(const tu_kernel *k, ks_rng *rng)
{
    int mi = k->modes > 1 ? (int)ks_rng_below(rng, (uint64_t)k->modes) : 0;
    double mu = k->mode[mi], d = mu;
    switch (k->shape) {
    case TU_NORMAL:
        d = mu * (1 + k->spread * ks_rng_normal(rng));
        break;
    case TU_LOGNORMAL:
        d = mu * exp(k->spread * ks_rng_normal(rng));
        break;
    case TU_UNIFORM:
        d = mu * (1 + k->spread * (2 * ks_rng_uniform(rng) - 1));
        break;
    case TU_CONSTANT:
        break;
    }
    if (d < 0)
        d = 0;
    return (int64_t)llround(d);
}

/* Appends one invocation of kernel `name` (interned on the fly) that
 * started at start (KS_MISSING_I64: unknown). */
static inline ks_status tu_append_at(ks_profile *p, const char *name, int64_t duration,
                                     int64_t start, const uint32_t *grid, const uint32_t *block)
{
    ks_error err;
    ks_invocation inv;
    ks_invocation_init(&inv);
    ks_status st = ks_profile_intern(p, name, strlen(name), &inv.name_id, &err);
    if (st != KS_OK)
        return st;
    inv.duration_ns = duration;
    inv.start_ns = start;
    inv.grid = grid;
    inv.block = block;
    return ks_profile_append(p, &inv, &err);
}

static inline ks_status tu_append(ks_profile *p, const char *name, int64_t duration,
                                  const uint32_t *grid, const uint32_t *block)
{
    return tu_append_at(p, name, duration, KS_MISSING_I64, grid, block);
}

/* n invocations of the kernels in k[0..count), in a random launch order. */
static inline ks_profile *tu_workload(const tu_kernel *k, size_t count, size_t n, uint64_t seed)
{
    ks_profile *p = ks_profile_new();
    if (!p)
        return NULL;
    ks_rng rng;
    ks_rng_seed(&rng, seed);
    double total = 0;
    for (size_t i = 0; i < count; i++)
        total += k[i].share;
    for (size_t i = 0; i < n; i++) {
        double u = ks_rng_uniform(&rng) * total, acc = 0;
        size_t j = 0;
        for (; j + 1 < count; j++) {
            acc += k[j].share;
            if (u < acc)
                break;
        }
        const tu_kernel *kj = &k[j];
        int dims = kj->grid[0] || kj->block[0];
        if (tu_append(p, kj->name, tu_duration(kj, &rng), dims ? kj->grid : NULL,
                      dims ? kj->block : NULL) != KS_OK) {
            ks_profile_free(p);
            return NULL;
        }
    }
    return p;
}

#define TU_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The shapes the statistical and structural tests run on: 0 multimodal,
 * 1 lognormal, 2 mixed.  Returns the kernels and their count. */
static inline const tu_kernel *tu_shape(int which, size_t *count, const char **name)
{

    /* two and three well-separated modes, a constant kernel, a zero-duration
     * kernel, a tight unimodal kernel */
    static const tu_kernel tu_multimodal[] = {
        {"gemm_kernel(float*, int)", 30, TU_NORMAL, 0.05, 2, {20000, 90000}, {0}, {0}},
        {"attention<128>(half*)", 20, TU_NORMAL, 0.04, 3, {5000, 15000, 60000}, {0}, {0}},
        {"elementwise_add", 25, TU_CONSTANT, 0, 1, {3000}, {0}, {0}},
        {"zero_kernel", 5, TU_CONSTANT, 0, 1, {0}, {0}, {0}},
        {"layernorm", 20, TU_NORMAL, 0.10, 1, {8000}, {0}, {0}},
    };

    /* heavy-tailed durations */
    static const tu_kernel tu_lognormal[] = {
        {"conv_a", 40, TU_LOGNORMAL, 0.8, 1, {12000}, {0}, {0}},
        {"conv_b", 30, TU_LOGNORMAL, 0.5, 2, {4000, 40000}, {0}, {0}},
        {"reduce", 20, TU_LOGNORMAL, 1.0, 1, {2000}, {0}, {0}},
        {"copy", 10, TU_UNIFORM, 0.3, 1, {1500}, {0}, {0}},
    };

    /* many kernels of very different frequency and spread, including rare ones
     * and one whose mode is 0 in part */
    static const tu_kernel tu_mixed[] = {
        {"k00", 200, TU_NORMAL, 0.02, 1, {1000}, {0}, {0}},
        {"k01", 100, TU_NORMAL, 0.30, 2, {5000, 9000}, {0}, {0}},
        {"k02", 60, TU_LOGNORMAL, 0.6, 1, {30000}, {0}, {0}},
        {"k03", 40, TU_UNIFORM, 0.9, 1, {50000}, {0}, {0}},
        {"k04", 20, TU_NORMAL, 0.05, 4, {2000, 4000, 8000, 16000}, {0}, {0}},
        {"k05", 10, TU_CONSTANT, 0, 2, {0, 7000}, {0}, {0}},
        {"k06", 5, TU_LOGNORMAL, 1.2, 1, {100000}, {0}, {0}},
        {"k07", 2, TU_NORMAL, 0.2, 1, {400000}, {0}, {0}},
        {"k08", 1, TU_UNIFORM, 0.5, 1, {800000}, {0}, {0}},
        {"k09", 0.2, TU_NORMAL, 0.1, 1, {2000000}, {0}, {0}},
        {"k10", 0.05, TU_CONSTANT, 0, 1, {3000000}, {0}, {0}},
    };
    switch (which) {
    case 0:
        *count = TU_COUNT(tu_multimodal);
        *name = "multimodal";
        return tu_multimodal;
    case 1:
        *count = TU_COUNT(tu_lognormal);
        *name = "lognormal";
        return tu_lognormal;
    default:
        *count = TU_COUNT(tu_mixed);
        *name = "mixed";
        return tu_mixed;
    }
}

/* Workload `which` of tu_shape() with n invocations. */
static inline ks_profile *tu_named_workload(int which, size_t n, uint64_t seed)
{
    size_t count;
    const char *name;
    const tu_kernel *k = tu_shape(which, &count, &name);
    return tu_workload(k, count, n, seed);
}

/* An empty plan of method with z and the group labels labels[0..count), for
 * a test to add clusters and samples to by hand. */
static inline ks_plan tu_hand_plan(const char *method, double z, const char *const *labels,
                                   size_t count)
{
    ks_plan plan;
    ks_plan_init(&plan);
    ks_params_init(&plan.params);
    snprintf(plan.method, sizeof plan.method, "%s", method);
    plan.z = z;
    plan.group_labels = calloc(count, sizeof *plan.group_labels);
    for (size_t i = 0; i < count; i++)
        plan.group_labels[i] = strdup(labels[i]);
    plan.group_count = count;
    return plan;
}

/* Expected cost of the plan's sizes: sum m * mean. */
static inline double tu_plan_cost(const ks_plan *plan)
{
    double s = 0;
    for (size_t i = 0; i < plan->cluster_count; i++)
        s += (double)plan->clusters[i].m * plan->clusters[i].mean_ns;
    return s;
}

/* The plan's JSON text (free it), or NULL if it could not be written. */
static inline char *tu_plan_json(const ks_plan *plan, size_t *len)
{
    char *buf;
    ks_error err;
    return ks_plan_json(plan, &buf, len, &err) == KS_OK ? buf : NULL;
}

/* The profile in path (format detected), or NULL with err filled. */
static inline ks_profile *tu_read_profile(const char *path, ks_error *err)
{
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *p;
    return ks_profile_read(path, &opt, &p, err) == KS_OK ? p : NULL;
}

/* method's parameters with epsilon, seed and ROOT's allocation (0 joint,
 * 1 tree, 2 paper: root.h's KS_ALLOC_*), which other methods ignore. */
static inline ks_params tu_params(const char *method, int allocation, double eps, uint64_t seed)
{
    static const char *const alloc_names[] = {"joint", "tree", "paper"};
    ks_params pa;
    ks_params_init(&pa);
    pa.method = method;
    tu_param(&pa, "allocation", "%s", alloc_names[allocation]);
    pa.epsilon = eps;
    pa.seed = seed;
    return pa;
}

/* Size times mean over the plan's clusters of group g: the group's total
 * time as the plan's statistics give it. */
static inline double tu_group_total(const ks_plan *plan, uint32_t g)
{
    double t = 0;
    for (size_t i = 0; i < plan->cluster_count; i++)
        if (plan->clusters[i].group == g)
            t += (double)plan->clusters[i].size * plan->clusters[i].mean_ns;
    return t;
}

/* Sum of squared deviations of v[0..n) (n > 0) from their mean, in long
 * double: the tests' own reference, independent of lib/math. */
static inline long double tu_sum_squares(const int64_t *v, size_t n, long double *mean)
{
    long double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / n;
    long double sq = 0;
    for (size_t i = 0; i < n; i++) {
        long double d = v[i] - *mean;
        sq += d * d;
    }
    return sq;
}

#ifdef fail_msg /* for files that include cmocka first */
/* A stem plan (bound 5 % at 95 %) of one cluster of kernel name: n
 * samples, launches 0, 2, 4, ..., of its size launches. */
static inline ks_plan tu_cluster_plan(size_t n, size_t size, const char *name)
{
    ks_plan plan = tu_hand_plan("stem", ks_z_for_confidence(0.95), (const char *[]){name}, 1);
    plan.bound = 0.05;
    ks_cluster c = {.group = 0, .path = "0", .size = size, .mean_ns = 100, .std_ns = 10, .m = n};
    ks_error err;
    assert_int_equal(ks_plan_add_cluster(&plan, &c, NULL, &err), KS_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ks_plan_add_sample(&plan, i * 2, (double)size / (double)n, 0, &err),
                         KS_OK);
    plan.input_invocations = size * 2;
    return plan;
}

/* What fn writes, in memory (free it; len may be NULL); the test fails
 * unless fn returns want. */
/* not inlined: there gcc 12 takes buf for a dangling local */
__attribute__((noinline, unused))
static char *tu_written(ks_writer_fn fn, const void *ctx, ks_status want, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    ks_error err;
    ks_error_clear(&err);
    ks_status st = fn(ctx, f, &err);
    assert_int_equal(fclose(f), 0);
    if (st != want)
        fail_msg("writer returned %d, expected %d: %s", (int)st, (int)want, err.message);
    if (len)
        *len = n;
    return buf;
}

static inline ks_status tu_synth_writer(const void *opt, FILE *f, ks_error *err)
{
    return ks_synth_write(opt, f, err);
}

/* The CSV ks_synth_write gives for preset, n and seed (free it). */
static inline char *tu_synth(const char *preset, uint64_t n, uint64_t seed, size_t *len)
{
    ks_synth_options opt = {preset, n, seed};
    return tu_written(tu_synth_writer, &opt, KS_OK, len);
}

/* The plan for pa, or the test fails naming the method and the error. */
static inline ks_plan tu_plan_ok(const ks_profile *p, const ks_params *pa)
{
    ks_plan plan;
    ks_error err;
    ks_error_clear(&err);
    if (ks_plan_build(p, pa, &plan, &err) != KS_OK)
        fail_msg("%s: %s", pa->method, err.message);
    return plan;
}
#endif

#endif
