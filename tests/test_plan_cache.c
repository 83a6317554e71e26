/*
 * test_plan_cache.c - the work eval shares between methods and seeds (one
 * ks_plan_cache per profile) changes no plan: every method fitted on one
 * cache, then selected seed after seed in turns (so the reused draw buffer
 * passes from method to method), gives byte for byte the plan of an
 * independent ks_plan_build with that seed; eval's results with a cache are
 * those without; the cache builds each key's groups and sorted members once.
 * On the bundled example and, when ../shared/data is present, a Kineto trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksample.h"
#include "sampling.h"
#include "test_main.h"
#include "test_util.h"

enum { SEEDS = 4 };

/* method and one option ("-": none), as tests/data/plan-digests.txt writes them */
static const char *const configs[][2] = {
    {"root", "-"},        {"root", "--allocation=paper"}, {"root", "--allocation=tree"},
    {"stem", "-"},        {"stem", "--with-replacement"}, {"allegro", "-"},
    {"allegro", "--key=name"}, {"random", "-"},           {"root", "--with-replacement"},
};
enum { CONFIGS = sizeof configs / sizeof configs[0] };

static ks_profile *load(const char *path)
{
    if (access(path, R_OK) != 0)
        return NULL;
    ks_error err;
    ks_profile *p = tu_read_profile(path, &err);
    if (!p)
        fail_msg("%s: %s", path, err.message);
    return p;
}

static void params_for(ks_params *pa, size_t config)
{
    ks_params_init(pa);
    pa->method = configs[config][0];
    const char *opt = configs[config][1];
    ks_error err;
    if (strcmp(opt, "-") == 0)
        return;
    if (strcmp(opt, "--key=name") == 0) {
        pa->key = KS_KEY_NAME;
        pa->key_given = 1;
        return;
    }
    char name[64];
    const char *eq = strchr(opt, '=');
    size_t n = eq ? (size_t)(eq - opt) : strlen(opt);
    snprintf(name, sizeof name, "%.*s", (int)(n - 2), opt + 2);
    assert_int_equal(ks_params_set(pa, name, eq ? eq + 1 : "", &err), KS_OK);
}

static void check_profile(const ks_profile *p, const char *what)
{
    ks_error err;
    ks_plan_cache *cache;
    assert_int_equal(ks_plan_cache_new(p, &cache, &err), KS_OK);
    ks_fitted *fitted[CONFIGS];
    ks_params pa[CONFIGS];
    for (size_t c = 0; c < CONFIGS; c++) {
        params_for(&pa[c], c);
        if (ks_fit_cached(p, &pa[c], cache, &fitted[c], &err) != KS_OK)
            fail_msg("%s %s %s: %s", what, configs[c][0], configs[c][1], err.message);
    }
    int compared = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        for (size_t c = 0; c < CONFIGS; c++) {
            ks_plan shared, alone;
            assert_int_equal(ks_select(fitted[c], seed, &shared, &err), KS_OK);
            ks_params one = pa[c];
            one.seed = seed;
            assert_int_equal(ks_plan_build(p, &one, &alone, &err), KS_OK);
            size_t n_shared, n_alone;
            char *a = tu_plan_json(&shared, &n_shared), *b = tu_plan_json(&alone, &n_alone);
            assert_non_null(a);
            assert_non_null(b);
            if (n_shared != n_alone || memcmp(a, b, n_alone) != 0)
                fail_msg("%s %s %s seed %llu: the plan from the shared cache differs from "
                         "ks_plan_build's", what, configs[c][0], configs[c][1],
                         (unsigned long long)seed);
            free(a);
            free(b);
            ks_plan_free(&shared);
            ks_plan_free(&alone);
            compared++;
        }
    }
    /* each key's members were sorted once: a later lookup hands back the same */
    const ks_members *m1, *m2;
    assert_int_equal(ks_plan_cache_members(cache, KS_KEY_NAME, 0, &m1, &err), KS_OK);
    assert_int_equal(ks_plan_cache_members(cache, KS_KEY_NAME, 0, &m2, &err), KS_OK);
    assert_ptr_equal(m1, m2);
    assert_int_equal(m1->offset[m1->count], p->n);
    for (size_t c = 0; c < CONFIGS; c++)
        ks_fitted_free(fitted[c]);
    ks_plan_cache_free(cache);
    print_message("%s: %d plans equal to independent ks_plan_build\n", what, compared);
}

/* Eval with a cache shared by its methods reports what eval without one does
 * (times aside), and plan_seconds still counts the shared sorting. */
static void check_eval(const ks_profile *p)
{
    ks_error err;
    ks_eval_options opt = {0};
    assert_int_equal(ks_plan_cache_new(p, &opt.cache, &err), KS_OK);
    static const char *const methods[] = {"root", "stem", "allegro", "random"};
    for (size_t i = 0; i < 4; i++) {
        ks_params pa;
        ks_params_init(&pa);
        pa.method = methods[i];
        ks_eval_result with, without;
        ks_eval_detail dw, dn;
        assert_int_equal(ks_evaluate_ex(p, &pa, 5, &opt, &with, &dw, &err), KS_OK);
        assert_int_equal(ks_evaluate_ex(p, &pa, 5, NULL, &without, &dn, &err), KS_OK);
        assert_string_equal(with.method, without.method);
        assert_true(with.samples_mean == without.samples_mean);
        assert_true(with.speedup_hmean == without.speedup_hmean);
        assert_true(with.error_mean_pct == without.error_mean_pct);
        assert_true(with.error_max_pct == without.error_max_pct);
        assert_true(with.exceed_fraction == without.exceed_fraction);
        assert_true(with.predicted_rse_pct == without.predicted_rse_pct);
        assert_true(with.cost_over_lower_bound == without.cost_over_lower_bound);
        assert_true(with.fit_seconds > 0 && with.plan_seconds >= with.fit_seconds);
        ks_eval_detail_free(&dw);
        ks_eval_detail_free(&dn);
    }
    ks_plan_cache_free(opt.cache);
}

static void test_example(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/../../examples/casio-like-50k.csv.xz", KS_TEST_DATA);
    ks_profile *p = load(path);
    assert_non_null(p);
    check_profile(p, "casio-like-50k");
    check_eval(p);
    ks_profile_free(p);
}

static void test_kineto(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/kineto/a100-nccl.json.gz", KS_SHARED_DATA);
    ks_profile *p = load(path);
    if (!p)
        skip();
    check_profile(p, "a100-nccl");
    ks_profile_free(p);
}

/* A cache belongs to one profile: a fit on another is refused, not mixed. */
static void test_other_profile(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/../../examples/casio-like-50k.csv.xz", KS_TEST_DATA);
    ks_profile *p = load(path), *q = load(path);
    assert_non_null(p);
    assert_non_null(q);
    ks_error err;
    ks_plan_cache *cache;
    assert_int_equal(ks_plan_cache_new(p, &cache, &err), KS_OK);
    ks_params pa;
    ks_params_init(&pa);
    ks_fitted *f;
    assert_int_equal(ks_fit_cached(q, &pa, cache, &f, &err), KS_ERR_INTERNAL);
    assert_non_null(strstr(err.message, "another profile"));
    ks_plan_cache_free(cache);
    ks_profile_free(p);
    ks_profile_free(q);
}

typedef struct ref_row {
    int64_t d;
    uint32_t id;
} ref_row;

static int cmp_ref(const void *x, const void *y)
{
    const ref_row *a = x, *b = y;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return a->id < b->id ? -1 : (a->id > b->id);
}

/* Members are each group's launches by (duration, launch order), whatever
 * the group's size (insertion or radix sort) and span (packed or, past 2^32
 * ns, sorted as pairs): checked against qsort on groups of every kind. */
static void test_members_order(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    ks_error err;
    static const char *const names[] = {"narrow", "wide", "equal", "small", "small_wide"};
    uint32_t id[5];
    for (int k = 0; k < 5; k++)
        assert_int_equal(ks_profile_intern(p, names[k], strlen(names[k]), &id[k], &err), KS_OK);
    uint64_t x = 12345;
    for (size_t i = 0; i < 5000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((x >> 33) % 5);
        if ((k == 3 || k == 4) && (x >> 40) % 50 != 0)
            k = (int)((x >> 45) % 3); /* small groups stay under 64 members */
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.name_id = id[k];
        uint64_t r = x >> 20;
        inv.duration_ns = k == 0 ? 1000 + (int64_t)(r % 97)
                        : k == 1 ? (int64_t)(r % 3) * 3000000000LL + (int64_t)(r % 5)
                        : k == 2 ? 777
                        : k == 3 ? (int64_t)(r % 7)
                                 : (int64_t)(r % 2) * 9000000000LL + 1;
        assert_int_equal(ks_profile_append(p, &inv, &err), KS_OK);
    }
    ks_groups g;
    ks_members m;
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME, &g, &err), KS_OK);
    assert_int_equal(ks_members_build(p, &g, &m, &err), KS_OK);
    ref_row *ref = malloc(p->n * sizeof *ref);
    assert_non_null(ref);
    for (size_t gi = 0; gi < g.count; gi++) {
        size_t n = 0;
        for (size_t i = 0; i < p->n; i++)
            if (g.group_of[i] == gi)
                ref[n++] = (ref_row){p->duration_ns[i], (uint32_t)i};
        qsort(ref, n, sizeof *ref, cmp_ref);
        assert_int_equal(m.offset[gi + 1] - m.offset[gi], n);
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(m.ids[m.offset[gi] + k], ref[k].id);
            assert_true(m.values[m.offset[gi] + k] == (double)ref[k].d);
        }
    }
    free(ref);
    ks_members_free(&m);
    ks_groups_free(&g);
    ks_profile_free(p);
}

KS_TEST_MAIN(test_example, test_kineto, test_other_profile, test_members_order)
