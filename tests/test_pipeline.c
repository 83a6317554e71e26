/*
 * test_pipeline.c - the method interface: parameter tables (parsing, ranges,
 * strictness), what methods need and the messages when it is missing, fit
 * once / select per seed, and second sources joined by launch order (Nsight
 * Compute metrics, Photon basic-block vectors) with the one alignment check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksample.h"
#include "test_util.h"
#include "tmpdir.h"

static ks_profile *small_profile(const char *const *names, size_t n)
{
    ks_profile *p = ks_profile_new();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tu_append(p, names[i], 1000 + 10 * (int64_t)i, NULL, NULL), KS_OK);
    return p;
}

/* ------------------------------------------------------------ parameters */

static void test_param_parse(void **state)
{
    (void)state;
    static const char *const choices[] = {"a", "b", NULL};
    const ks_param_def u = {"n", KS_PARAM_UINT, 0, 1, 100, 5, NULL, "N", "help"};
    const ks_param_def r = {"x", KS_PARAM_REAL, 0, 0.5, 2, 1, NULL, "X", "help"};
    const ks_param_def c = {"c", KS_PARAM_CHOICE, 0, 0, 0, 0, choices, "C", "help"};
    const ks_param_def b = {"f", KS_PARAM_BOOL, 0, 0, 1, 0, NULL, NULL, "help"};
    double v;
    ks_error err;
    assert_int_equal(ks_param_parse(&u, "7", &v, &err), KS_OK);
    assert_true(v == 7);
    assert_int_equal(ks_param_parse(&u, "1e2", &v, &err), KS_OK);
    assert_true(v == 100);
    static const char *const bad_uint[] = {"0", "101", "2.5", "-1", "nan", "inf", "", "7x", "1e400"};
    for (size_t i = 0; i < sizeof bad_uint / sizeof bad_uint[0]; i++) {
        assert_int_equal(ks_param_parse(&u, bad_uint[i], &v, &err), KS_ERR_USAGE);
        assert_non_null(strstr(err.message, "--n"));
    }
    assert_int_equal(ks_param_parse(&r, "0.75", &v, &err), KS_OK);
    assert_true(v == 0.75);
    static const char *const bad_real[] = {"0.4", "nan", "-inf", "3", "x"};
    for (size_t i = 0; i < sizeof bad_real / sizeof bad_real[0]; i++)
        assert_int_equal(ks_param_parse(&r, bad_real[i], &v, &err), KS_ERR_USAGE);
    assert_int_equal(ks_param_parse(&c, "b", &v, &err), KS_OK);
    assert_true(v == 1);
    assert_int_equal(ks_param_parse(&c, "z", &v, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "one of a, b"));
    assert_int_equal(ks_param_parse(&b, "", &v, &err), KS_OK);
    assert_true(v == 1);
    assert_int_equal(ks_param_parse(&b, "false", &v, &err), KS_OK);
    assert_true(v == 0);
    assert_int_equal(ks_param_parse(&b, "maybe", &v, &err), KS_ERR_USAGE);
}

/* Every method's table is sound: defaults in range, names unique within a
 * method, one meaning per name across methods, struct offsets inside the
 * struct, and the first row of the method table is the default. */
static void test_method_tables(void **state)
{
    (void)state;
    const ks_method *const *all = ks_methods();
    ks_params pa;
    ks_params_init(&pa);
    assert_string_equal(pa.method, all[0]->name);
    for (size_t m = 0; all[m]; m++) {
        assert_true(all[m]->params_size <= KS_METHOD_PARAMS_MAX);
        assert_non_null(all[m]->select);
        for (size_t i = 0; i < all[m]->param_count; i++) {
            const ks_param_def *d = &all[m]->params[i];
            assert_true(d->offset < all[m]->params_size);
            assert_non_null(d->help);
            if (d->type == KS_PARAM_UINT || d->type == KS_PARAM_REAL)
                assert_true(d->def == 0 || (d->def >= d->min && d->def <= d->max));
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(d->name, all[m]->params[j].name);
            for (size_t o = 0; o < m; o++)
                for (size_t j = 0; j < all[o]->param_count; j++)
                    if (strcmp(all[o]->params[j].name, d->name) == 0)
                        assert_int_equal(all[o]->params[j].type, d->type);
        }
        unsigned char buf[KS_METHOD_PARAMS_MAX];
        ks_error err;
        ks_params def;
        ks_params_init(&def);
        assert_int_equal(ks_method_resolve(all[m], &def, buf, &err), KS_OK);
    }
}

static void test_strict_and_lenient_settings(void **state)
{
    (void)state;
    const char *names[] = {"a", "b", "a", "b", "a"};
    ks_profile *p = small_profile(names, 5);
    ks_params pa;
    ks_params_init(&pa);
    ks_error err;
    assert_int_equal(ks_params_set(&pa, "n-th", "10", &err), KS_OK);
    pa.method = "stem";
    ks_plan plan;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "--n-th is not a parameter of stem"));
    pa.strict = 0; /* as eval runs it */
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    ks_plan_free(&plan);
    pa.method = "allegro";
    pa.strict = 1;
    assert_int_equal(ks_params_set(&pa, "n-th", "nan", &err), KS_OK); /* checked later */
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "--n-th"));
    assert_int_equal(ks_params_set(&pa, "n-th", "12.5", &err), KS_OK); /* last one wins */
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    assert_true(ks_plan_param(&plan, "n-th") == 12.5);
    assert_true(isnan(ks_plan_param(&plan, "allocation")));
    ks_plan_free(&plan);
    pa.method = "nosuch";
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "known: root"));
    ks_profile_free(p);
}

/* ------------------------------------------------------------------ needs */

static const char *const needed_metrics[] = {"smsp__inst_executed.sum", "launch__grid_size",
                                             NULL};
static ks_status never_select(const ks_method_input *in, const void *model, ks_rng *rng,
                              ks_plan *plan, ks_error *err)
{
    (void)in, (void)model, (void)rng, (void)plan;
    return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "not reached");
}

static void test_needs_messages(void **state)
{
    (void)state;
    const char *names[] = {"k", "k"};
    ks_profile *p = small_profile(names, 2);
    ks_error err;
    ks_method m = {.name = "needy", .needs = KS_NEED_METRICS, .metrics = needed_metrics,
                   .select = never_select};
    assert_int_equal(ks_method_check_inputs(&m, p, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "needy needs Nsight Compute metrics: pass --metrics"));
    assert_non_null(strstr(err.message, "missing: smsp__inst_executed.sum, launch__grid_size"));
    ks_metric_column *col;
    assert_int_equal(ks_profile_metric(p, "launch__grid_size", &col, &err), KS_OK);
    assert_int_equal(ks_method_check_inputs(&m, p, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "(missing: smsp__inst_executed.sum)"));
    assert_int_equal(ks_profile_metric(p, "smsp__inst_executed.sum", &col, &err), KS_OK);
    assert_int_equal(ks_method_check_inputs(&m, p, &err), KS_OK);

    m.needs = KS_NEED_SPARSE;
    m.sparse = "bbv";
    assert_int_equal(ks_method_check_inputs(&m, p, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "--bbv"));
    m.needs = KS_NEED_DIMS;
    assert_int_equal(ks_method_check_inputs(&m, p, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "grid and block"));

    /* durations all zero: every time method refuses before grouping */
    ks_profile *z = ks_profile_new();
    assert_int_equal(tu_append(z, "k", 0, NULL, NULL), KS_OK);
    ks_params pa;
    ks_params_init(&pa);
    ks_plan plan;
    for (const ks_method *const *mm = ks_methods(); *mm; mm++) {
        pa.method = (*mm)->name;
        if ((*mm)->needs & KS_NEED_TIME) {
            assert_int_equal(ks_plan_build(z, &pa, &plan, &err), KS_ERR_FORMAT);
            assert_non_null(strstr(err.message, "every kernel duration is 0"));
        }
    }
    ks_profile_free(z);
    ks_profile_free(p);
}

/* ------------------------------------------------------------ fit / select */

static void test_fit_once_select_many(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(0, 5000, 42);
    for (const ks_method *const *m = ks_methods(); *m; m++) {
        ks_params pa;
        ks_params_init(&pa);
        pa.method = (*m)->name;
        ks_fitted *f;
        ks_error err;
        /* methods that need metrics or vectors: test_baselines.c */
        if (ks_method_check_inputs(*m, p, &err) != KS_OK)
            continue;
        assert_int_equal(ks_fit(p, &pa, &f, &err), KS_OK);
        assert_ptr_equal(ks_fitted_method(f), *m);
        for (uint64_t seed = 1; seed <= 4; seed++) {
            ks_plan a, b;
            pa.seed = seed;
            assert_int_equal(ks_select(f, seed, &a, &err), KS_OK);
            assert_int_equal(ks_plan_build(p, &pa, &b, &err), KS_OK);
            /* the same plan as a fresh fit: fit holds nothing seed-dependent */
            assert_int_equal(a.sample_count, b.sample_count);
            assert_int_equal(a.params.seed, seed);
            for (size_t i = 0; i < a.sample_count; i++) {
                assert_int_equal(a.samples[i].id, b.samples[i].id);
                assert_true(a.samples[i].weight == b.samples[i].weight);
            }
            ks_plan_free(&a);
            ks_plan_free(&b);
        }
        ks_fitted_free(f);
    }
    ks_profile_free(p);
}

/* ------------------------------------------------------------ second sources */

static void test_kernel_names_match_through_mangling(void **state)
{
    (void)state;
    /* a trace's mangled name joins a profile's demangled one */
    const char *names[] = {"adjust_weights_kernel(float*, int, float*, int, float*, float*)",
                           "void at::native::vectorized_elementwise_kernel<4, float>(int)"};
    ks_profile *p = small_profile(names, 2);
    ks_profile *q = ks_profile_new();
    assert_int_equal(tu_append(q, "_Z21adjust_weights_kernelPfiS_iS_S_", 0, NULL, NULL), KS_OK);
    assert_int_equal(
        tu_append(q, "_ZN2at6native29vectorized_elementwise_kernelILi4EfEEviT_", 0, NULL, NULL),
        KS_OK);
    ks_error err;
    assert_int_equal(ks_profile_join(p, q, NULL, "q", &err), KS_OK);
    ks_profile_free(q);
    /* a different kernel at launch 1 is refused and located */
    q = ks_profile_new();
    assert_int_equal(tu_append(q, "_Z21adjust_weights_kernelPfiS_iS_S_", 0, NULL, NULL), KS_OK);
    assert_int_equal(tu_append(q, "_Z5otherv", 0, NULL, NULL), KS_OK);
    long lines[] = {3, 9};
    assert_int_equal(ks_profile_join(p, q, lines, "q.csv", &err), KS_ERR_FORMAT);
    assert_int_equal(err.line, 9);
    assert_non_null(strstr(err.message, "differ at launch 1"));
    ks_profile_free(q);
    ks_profile_free(p);
}

static void test_photon_bbv_attach(void **state)
{
    (void)state;
    const char *names[] = {"_Z22bpnn_layerforward_CUDAPfS_S_S_ii", "_Z3addv", "_Z3addv"};
    ks_profile *p = small_profile(names, 3);
    const char *bbv = write_text("bbv.csv", "Warp ID,Basic Block Counts\n"
                                              "Kernel0,3,262144,_Z22bpnn_layerforward_CUDAPfS_S_S_ii\n"
                                              "5,0,7,\n"
                                              "Kernel1,2,64,_Z3addv\n"
                                              "1,2,\n"
                                              "Kernel2,2,32,_Z3addv\n"
                                              "0,0,\n");
    ks_error err;
    assert_int_equal(ks_profile_attach(p, KS_SOURCE_BBV, bbv, &err), KS_OK);
    const ks_sparse_column *c = ks_profile_find_sparse(p, "bbv");
    assert_non_null(c);
    assert_int_equal(c->offset[0], 0);
    assert_int_equal(c->offset[1], 2); /* the zero is left out */
    assert_int_equal(c->offset[2], 4);
    assert_int_equal(c->offset[3], 4);
    assert_int_equal(c->index[1], 2);
    assert_true(c->value[1] == 7);
    const ks_metric_column *w = ks_profile_find_metric(p, "warps");
    assert_non_null(w);
    assert_true(w->values[0] == 262144 && w->values[2] == 32);

    /* malformed files: located errors, the profile unchanged */
    struct {
        const char *text, *what;
        long line;
    } bad[] = {
        {"Warp ID,Basic Block Counts\nKernel0,3,5,_Z3addv\n1,2,\n", "announced 3", 3},
        {"Warp ID,Basic Block Counts\nKernel1,2,5,_Z3addv\n1,2,\n", "Kernel0 was expected", 2},
        {"Warp ID,Basic Block Counts\nKernel0,2,5,_Z3addv\n", "no line of basic-block", 2},
        {"Warp ID,Basic Block Counts\nKernel0,2,5,_Z3addv\n1,x,\n", "not a count", 3},
        {"nonsense\n", "not a Photon bbv.csv", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = write_text("bad.csv", bad[i].text);
        assert_int_not_equal(ks_profile_attach(p, KS_SOURCE_BBV, path, &err), KS_OK);
        if (!strstr(err.message, bad[i].what) || err.line != bad[i].line)
            fail_msg("case %zu: line %ld: %s", i, err.line, err.message);
    }
    /* a bbv of another run is refused */
    const char *other = write_text("other.csv", "Warp ID,Basic Block Counts\n"
                                                  "Kernel0,1,5,_Z3subv\n1,\n");
    assert_int_equal(ks_profile_attach(p, KS_SOURCE_BBV, other, &err), KS_ERR_FORMAT);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-pipeline",
                    test_param_parse,
                    test_method_tables,
                    test_strict_and_lenient_settings,
                    test_needs_messages,
                    test_fit_once_select_many,
                    test_kernel_names_match_through_mangling,
                    test_photon_bbv_attach)
