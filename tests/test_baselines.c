/*
 * test_baselines.c - PKA, Sieve and Photon on small hand-built profiles whose
 * plans are known (tier boundaries, bandwidths, PCA on known data, the chosen
 * k, Photon's matching order and warp-count tie-break), their messages when
 * an input is missing, and every method on a synthetic workload with the
 * features `synth --ncu --bbv` writes; Photon on a real Accel-Sim trace
 * folder when ../shared/data is present.
 */
#include "tmpdir.h"

#include <math.h>

#include "ksample.h"
#include "representative.h"
#include "test_util.h"

static ks_plan plan_of(const ks_profile *p, const char *method)
{
    ks_params pa;
    ks_params_init(&pa);
    pa.method = method;
    return tu_plan_ok(p, &pa);
}

static void set_metric(ks_profile *p, const char *name, const double *v)
{
    ks_metric_column *col;
    ks_error err;
    assert_int_equal(ks_profile_metric(p, name, &col, &err), KS_OK);
    memcpy(col->values, v, p->n * sizeof *v);
}

/* The representative and weight of the plan's cluster c. */
static void expect_cluster(const ks_plan *plan, size_t c, const char *path, uint64_t rep,
                           uint64_t size)
{
    assert_true(c < plan->cluster_count);
    assert_string_equal(plan->clusters[c].path, path);
    assert_int_equal(plan->clusters[c].size, size);
    bool found = false;
    for (size_t i = 0; i < plan->sample_count; i++)
        if (plan->samples[i].cluster == c) {
            assert_false(found);
            found = true;
            assert_int_equal(plan->samples[i].id, rep);
            assert_true(plan->samples[i].weight == (double)size);
        }
    assert_true(found);
}

/* ------------------------------------------------------------------ Sieve */

static const uint32_t one[3] = {1, 1, 1};

static void add(ks_profile *p, const char *name, int64_t dur, uint32_t grid_x, uint32_t block_x)
{
    uint32_t g[3] = {grid_x, 1, 1}, b[3] = {block_x, 1, 1};
    assert_int_equal(tu_append(p, name, dur, g, b), KS_OK);
}

static void test_sieve_tiers(void **state)
{
    (void)state;
    ks_profile *p = ks_profile_new();
    /* kernel a: constant counts -> tier 1, first launch */
    double inst[32];
    size_t n = 0;
    for (int i = 0; i < 4; i++)
        add(p, "a", 10, 1, 32), inst[n++] = 100;
    /* kernel b: CV 0.0476 -> tier 2; thread counts 64, 128, 128, 64, 128, 64:
     * 64 and 128 three times each: the tie goes to the count seen first (64,
     * launch 4) */
    const uint32_t bgrid[6] = {2, 4, 4, 2, 4, 2};
    for (int i = 0; i < 6; i++)
        add(p, "b", 20, bgrid[i], 32), inst[n++] = i % 2 ? 110 : 100;
    /* kernel c: one more 128 makes it the most frequent: its first is launch 11 */
    const uint32_t cgrid[5] = {2, 4, 2, 4, 4};
    for (int i = 0; i < 5; i++)
        add(p, "c", 20, cgrid[i], 32), inst[n++] = i % 2 ? 110 : 100;
    /* kernel d: two modes -> tier 3, cut between them, first launch of each */
    const double dvals[10] = {100000, 1000, 1010, 100500, 990, 1005, 99500, 995, 100200, 99800};
    for (int i = 0; i < 10; i++)
        add(p, "d", 30, 1, 32), inst[n++] = dvals[i];
    set_metric(p, "smsp__inst_executed.sum", inst);
    ks_plan plan = plan_of(p, "sieve");
    assert_int_equal(plan.cluster_count, 5);
    expect_cluster(&plan, 0, "t1", 0, 4);
    expect_cluster(&plan, 1, "t2", 4, 6);
    expect_cluster(&plan, 2, "t2", 11, 5);
    expect_cluster(&plan, 3, "t3.0", 16, 5); /* the 1000s, first at launch 16 */
    expect_cluster(&plan, 4, "t3.1", 15, 5); /* the 100000s, first at launch 15 */
    assert_true(plan.bound == 0);
    assert_string_equal(plan.bound_scope, "none");
    /* the bandwidth is Silverman's on d's counts, recorded in the note */
    double sorted[10];
    memcpy(sorted, dvals, sizeof sorted);
    for (int i = 0; i < 10; i++)
        for (int j = i + 1; j < 10; j++)
            if (sorted[j] < sorted[i]) {
                double t = sorted[i];
                sorted[i] = sorted[j], sorted[j] = t;
            }
    double h = ks_sieve_silverman(sorted, 10);
    char want[64];
    snprintf(want, sizeof want, "g3/t3 h=%.6g", h);
    assert_non_null(strstr(plan.note, want));
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* Two values of CV exactly 0.4 fall in tier 3; 0.399 in tier 2. */
static void test_sieve_tier_boundary(void **state)
{
    (void)state;
    const double pairs[2][2] = {{600, 1400}, {601, 1399}};
    const char *want[2] = {"t3.0", "t2"};
    for (int c = 0; c < 2; c++) {
        ks_profile *p = ks_profile_new();
        add(p, "k", 1, 1, 32);
        add(p, "k", 1, 1, 32);
        set_metric(p, "smsp__inst_executed.sum", pairs[c]);
        ks_plan plan = plan_of(p, "sieve");
        assert_string_equal(plan.clusters[0].path, want[c]);
        ks_plan_free(&plan);
        ks_profile_free(p);
    }
}

static void test_sieve_silverman_and_cuts(void **state)
{
    (void)state;
    const double v[5] = {1, 2, 3, 4, 5};
    /* s = sqrt(2.5), IQR = 4 - 2 = 2: min(s, 2 / 1.34) = 1.4925... */
    double want = 0.9 * (2 / 1.34) * pow(5, -0.2);
    assert_true(fabs(ks_sieve_silverman(v, 5) - want) < 1e-12);
    /* IQR 0 but spread: s alone */
    const double w[5] = {0, 1, 1, 1, 10};
    double mean = 13.0 / 5, sq = 0;
    for (int i = 0; i < 5; i++)
        sq += (w[i] - mean) * (w[i] - mean);
    assert_true(fabs(ks_sieve_silverman(w, 5) - 0.9 * sqrt(sq / 4) * pow(5, -0.2)) < 1e-12);
    /* two equal modes at 0 and 10, bandwidth 1, 11 grid points: one cut at 5 */
    const double modes[6] = {0, 0, 0, 10, 10, 10};
    double cuts[11];
    assert_int_equal(ks_sieve_kde_cuts(modes, 6, 1, 11, cuts), 1);
    assert_true(fabs(cuts[0] - 5) < 1e-12);
    /* a degenerate bandwidth or one value: no cut */
    assert_int_equal(ks_sieve_kde_cuts(modes, 6, 0, 11, cuts), 0);
    assert_int_equal(ks_sieve_kde_cuts(v, 1, 1, 11, cuts), 0);
}

/* -------------------------------------------------------------------- PKA */

static void test_pka_pca_known(void **state)
{
    (void)state;
    /* columns 0 and 2..11 carry a, column 1 carries b; a and b are
     * orthogonal +-1 patterns: covariance eigenvalues 11 and 1 */
    enum { N = 8 };
    const double a[N] = {1, 1, 1, 1, -1, -1, -1, -1}, b[N] = {1, -1, 1, -1, 1, -1, 1, -1};
    double x[N * 12];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 12; j++)
            x[i * 12 + j] = j == 1 ? b[i] : a[i];
    double *y;
    size_t q;
    ks_error err;
    assert_int_equal(ks_pka_project(x, N, 0.9995, &y, &q, &err), KS_OK);
    assert_int_equal(q, 2);
    for (int i = 0; i < N; i++) {
        assert_true(fabs(fabs(y[i * 2]) - sqrt(11)) < 1e-9);
        assert_true(fabs(fabs(y[i * 2 + 1]) - 1) < 1e-9);
    }
    free(y);
    /* 11 / 12 = 0.917 of the variance is enough at 0.9 */
    assert_int_equal(ks_pka_project(x, N, 0.9, &y, &q, &err), KS_OK);
    assert_int_equal(q, 1);
    free(y);
    /* all constant: no component */
    for (int i = 0; i < N * 12; i++)
        x[i] = 0;
    assert_int_equal(ks_pka_project(x, N, 0.9995, &y, &q, &err), KS_OK);
    assert_int_equal(q, 0);
    free(y);
}

/* PKA's 12 feature columns, as its method declares them */
static const char *pka_name(size_t j) { return ks_method_find("pka")->metrics[j]; }

/* Three kinds of launch, identical within a kind, interleaved: k = 1 and 2
 * miss the time by far more than 5 %, k = 3 is exact. */
static ks_profile *pka_profile(void)
{
    ks_profile *p = ks_profile_new();
    const int64_t dur[3] = {100, 1000, 10000};
    double f[12][30];
    for (int i = 0; i < 30; i++) {
        int kind = (i * 7) % 3;
        assert_int_equal(tu_append(p, kind == 0 ? "x" : kind == 1 ? "y" : "z", dur[kind], one,
                                   one),
                         KS_OK);
        for (int j = 0; j < 12; j++)
            f[j][i] = (kind + 1) * (j + 1) + (kind == 2 && j == 5 ? 50 : 0);
    }
    for (int j = 0; j < 12; j++)
        set_metric(p, pka_name(j), f[j]);
    return p;
}

static void test_pka_chooses_k(void **state)
{
    (void)state;
    ks_profile *p = pka_profile();
    ks_plan plan = plan_of(p, "pka");
    assert_int_equal(plan.cluster_count, 3);
    assert_int_equal(plan.group_count, 1);
    assert_string_equal(plan.group_labels[0], "all");
    assert_non_null(strstr(plan.note, "k=3 "));
    /* first launch of each kind: 0 (x), 1 (y: 7 % 3), 2 (z: 14 % 3) */
    assert_int_equal(plan.sample_count, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(plan.samples[i].id, i);
        assert_true(plan.samples[i].weight == 10);
    }
    assert_true(ks_plan_estimate_duration(&plan, p) == ks_profile_total_ns(p));
    assert_true(ks_plan_param(&plan, "kmeans-seed") == 0);
    ks_plan_free(&plan);
    /* the plan's seed changes nothing; max-k 2 keeps the least error */
    ks_params pa;
    ks_params_init(&pa);
    pa.method = "pka";
    pa.seed = 99;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    assert_int_equal(plan.cluster_count, 3);
    ks_plan_free(&plan);
    assert_int_equal(ks_params_set(&pa, "max-k", "2", &err), KS_OK);
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    assert_int_equal(plan.cluster_count, 2);
    assert_non_null(strstr(plan.note, "k=2 "));
    ks_plan_free(&plan);
    ks_profile_free(p);
}

static void test_pka_missing_value(void **state)
{
    (void)state;
    ks_profile *p = pka_profile();
    ks_metric_column *col;
    ks_error err;
    assert_int_equal(ks_profile_metric(p, pka_name(4), &col, &err), KS_OK);
    col->values[7] = NAN;
    ks_params pa;
    ks_params_init(&pa);
    pa.method = "pka";
    ks_plan plan;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "launch 7"));
    assert_non_null(strstr(err.message, pka_name(4)));
    ks_profile_free(p);
}

/* ----------------------------------------------------------------- Photon */

static void set_bbv(ks_profile *p, const double (*vec)[2])
{
    uint64_t *off = malloc((p->n + 1) * sizeof *off), *idx = malloc(2 * p->n * sizeof *idx);
    double *val = malloc(2 * p->n * sizeof *val);
    size_t nnz = 0;
    for (size_t i = 0; i < p->n; i++) {
        off[i] = nnz;
        for (int k = 0; k < 2; k++)
            if (vec[i][k] != 0)
                idx[nnz] = (uint64_t)k, val[nnz++] = vec[i][k];
    }
    off[p->n] = nnz;
    ks_error err;
    assert_int_equal(ks_profile_set_sparse(p, "bbv", off, idx, val, &err), KS_OK);
}

static void test_photon_matching(void **state)
{
    (void)state;
    /* launch: vector, warps -> what it does
     * 0 [100,0] 10   new R0
     * 1 [200,0] 20   new R1 (0.5 from R0)
     * 2 [101,0] 20   R0: the only one within 5 %, whatever the warps
     * 3 [150,0] 15   new (a third from both)
     * 4 [1000,3] 50  new R4
     * 5 [1060,0] 90  new R5: 5.7 % from R4
     * 6 [1030,0] 80  within 5 % of R4 and R5: closer warps, R5
     * 7 [1030,0] 70  warps 20 from both: the older, R4
     * 8 [100,0] 10   kernel m: never compared with k -> new
     * 9 [0,0]  5     an empty vector: new; 10 [0,0] 9 reuses it */
    const double vec[11][2] = {{100, 0},  {200, 0},  {101, 0},  {150, 0}, {1000, 3}, {1060, 0},
                               {1030, 0}, {1030, 0}, {100, 0},  {0, 0},   {0, 0}};
    const double warps[11] = {10, 20, 20, 15, 50, 90, 80, 70, 10, 5, 9};
    ks_profile *p = ks_profile_new();
    for (int i = 0; i < 11; i++)
        assert_int_equal(tu_append(p, i == 8 ? "m" : "k", 100 + i, NULL, NULL), KS_OK);
    set_bbv(p, vec);
    set_metric(p, "warps", warps);
    ks_plan plan = plan_of(p, "photon");
    assert_int_equal(plan.cluster_count, 7);
    expect_cluster(&plan, 0, "0", 0, 2); /* 0, 2 */
    expect_cluster(&plan, 1, "1", 1, 1);
    expect_cluster(&plan, 2, "2", 3, 1);
    expect_cluster(&plan, 3, "3", 4, 2); /* 4, 7 */
    expect_cluster(&plan, 4, "4", 5, 2); /* 5, 6 */
    expect_cluster(&plan, 5, "0", 8, 1); /* kernel m */
    expect_cluster(&plan, 6, "5", 9, 2); /* 9, 10 */
    assert_int_equal(plan.clusters[5].group, 1);
    /* the members' times are what the estimate stands for */
    assert_true(plan.clusters[3].min_ns == 104 && plan.clusters[3].max_ns == 107);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* ---------------------------------------------------------- missing inputs */

static void test_missing_inputs(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(0, 200, 3);
    ks_params pa;
    ks_params_init(&pa);
    ks_plan plan;
    ks_error err;
    pa.method = "pka";
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "pka needs Nsight Compute metrics: pass --metrics"));
    assert_non_null(strstr(err.message, "launch__grid_size)"));
    pa.method = "sieve";
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "sieve needs Nsight Compute metrics"));
    assert_non_null(strstr(err.message, "--traces DIR"));
    assert_non_null(strstr(err.message, "smsp__inst_executed.sum"));
    pa.method = "photon";
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "photon needs per-invocation bbv vectors: pass --bbv"));
    /* a BBV without warp counts */
    const double vec[1][2] = {{1, 0}};
    ks_profile *q = ks_profile_new();
    assert_int_equal(tu_append(q, "k", 5, NULL, NULL), KS_OK);
    set_bbv(q, vec);
    assert_int_equal(ks_plan_build(q, &pa, &plan, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "warp count"));
    ks_profile_free(q);
    ks_profile_free(p);
}

/* ------------------------------------------------- synthetic, all inputs */

static ks_status write_ncu(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write_ncu(ctx, 7, f, err);
}

static ks_status write_bbv(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write_bbv(ctx, 7, f, err);
}

static ks_status write_run(const void *ctx, FILE *f, ks_error *err)
{
    return ks_synth_write(ctx, f, err);
}

static void test_synthetic_all_methods(void **state)
{
    (void)state;
    char run[4200], ncu[4200], bbv[4200];
    snprintf(run, sizeof run, "%s/run.csv", tmpdir);
    snprintf(ncu, sizeof ncu, "%s/run-ncu.csv", tmpdir);
    snprintf(bbv, sizeof bbv, "%s/run-bbv.csv", tmpdir);
    ks_synth_options so = {.preset = "casio-like", .n = 2000, .seed = 7};
    ks_error err;
    assert_int_equal(ks_write_atomic(run, write_run, &so, &err), KS_OK);
    ks_read_options ro;
    ks_read_options_init(&ro);
    ks_profile *p;
    assert_int_equal(ks_profile_read(run, &ro, &p, &err), KS_OK);
    assert_int_equal(ks_write_atomic(ncu, write_ncu, p, &err), KS_OK);
    assert_int_equal(ks_write_atomic(bbv, write_bbv, p, &err), KS_OK);
    if (ks_profile_attach(p, KS_SOURCE_METRICS, ncu, &err) != KS_OK ||
        ks_profile_attach(p, KS_SOURCE_BBV, bbv, &err) != KS_OK)
        fail_msg("attach: %s: %s", err.file, err.message);
    /* the ncu time is the profile's own time, launch by launch */
    const ks_metric_column *t = ks_profile_find_metric(p, "gpu__time_duration.sum");
    assert_non_null(t);
    for (size_t i = 0; i < p->n; i++)
        assert_true(t->values[i] == (double)p->duration_ns[i]);
    size_t count = 0;
    for (const ks_method *const *m = ks_methods(); *m; m++) {
        if ((*m)->needs & KS_NEED_TRACES)
            continue; /* gcl: tested on traces in test_gcl.c and tests/cli.sh */
        count++;
        assert_int_equal(ks_method_check_inputs(*m, p, &err), KS_OK);
        ks_params pa;
        ks_params_init(&pa);
        pa.method = (*m)->name;
        ks_eval_result r;
        if (ks_evaluate(p, &pa, 2, &r, &err) != KS_OK)
            fail_msg("%s: %s", (*m)->name, err.message);
        assert_true(r.samples_mean >= 1 && r.speedup_hmean >= 1);
        /* the deterministic baselines: the seed changes nothing */
        if (strcmp((*m)->name, "pka") == 0 || strcmp((*m)->name, "sieve") == 0 ||
            strcmp((*m)->name, "photon") == 0)
            assert_true(r.error_mean_pct == r.error_max_pct);
    }
    assert_int_equal(count, 7);
    ks_profile_free(p);
}

/* -------------------------------------------------------- real traces */

static void test_photon_on_accelsim_traces(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/accelsim/backprop-h100", KS_SHARED_DATA);
    struct stat sb;
    if (stat(dir, &sb) != 0)
        skip();
    ks_read_options ro;
    ks_read_options_init(&ro);
    ks_profile *p;
    ks_error err;
    assert_int_equal(ks_profile_read(dir, &ro, &p, &err), KS_OK);
    assert_int_equal(p->n, 33);
    assert_non_null(ks_profile_find_sparse(p, "bbv"));
    const ks_metric_column *w = ks_profile_find_metric(p, "warps");
    assert_non_null(w);
    ks_plan plan = plan_of(p, "photon");
    /* forward, output, and adjust_weights split by its two grids (128 and
     * 16 blocks: vectors 8x apart) */
    assert_int_equal(plan.cluster_count, 4);
    assert_int_equal(plan.clusters[2].group, plan.clusters[3].group);
    for (size_t i = 0; i < plan.sample_count; i++) {
        uint64_t id = plan.samples[i].id;
        for (size_t j = i + 1; j < plan.sample_count; j++)
            if (plan.clusters[plan.samples[j].cluster].group ==
                plan.clusters[plan.samples[i].cluster].group)
                assert_true(ks_profile_grid(p, id)[0] !=
                            ks_profile_grid(p, plan.samples[j].id)[0]);
    }
    ks_plan_free(&plan);
    /* Sieve from the traces' instruction counts: forward and output are
     * constant (tier 1); adjust_weights's two grids are two tier-3 strata */
    plan = plan_of(p, "sieve");
    assert_int_equal(plan.cluster_count, 4);
    assert_string_equal(plan.clusters[0].path, "t1");
    assert_string_equal(plan.clusters[1].path, "t1");
    assert_string_equal(plan.clusters[2].path, "t3.0");
    assert_string_equal(plan.clusters[3].path, "t3.1");
    assert_int_equal(plan.clusters[2].size, 8);
    assert_int_equal(plan.clusters[3].size, 8);
    ks_plan_free(&plan);

    /* --traces on a time profile of the same launches brings the vectors */
    ks_profile *t = ks_profile_new();
    for (size_t i = 0; i < p->n; i++)
        assert_int_equal(tu_append(t, ks_profile_name(p, i), 1000 + (int64_t)i,
                                   ks_profile_grid(p, i), ks_profile_block(p, i)),
                         KS_OK);
    if (ks_profile_attach(t, KS_SOURCE_TRACES, dir, &err) != KS_OK)
        fail_msg("attach: %s", err.message);
    const ks_sparse_column *a = ks_profile_find_sparse(t, "bbv"),
                           *b = ks_profile_find_sparse(p, "bbv");
    assert_non_null(a);
    assert_int_equal(a->offset[t->n], b->offset[p->n]);
    assert_memory_equal(a->index, b->index, b->offset[p->n] * sizeof *b->index);
    assert_non_null(ks_profile_find_metric(t, "warps"));
    plan = plan_of(t, "photon");
    assert_int_equal(plan.cluster_count, 4);
    ks_plan_free(&plan);
    ks_profile_free(t);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks_baselines",
                    test_sieve_tiers,
                    test_sieve_tier_boundary,
                    test_sieve_silverman_and_cuts,
                    test_pka_pca_known,
                    test_pka_chooses_k,
                    test_pka_missing_value,
                    test_photon_matching,
                    test_missing_inputs,
                    test_synthetic_all_methods,
                    test_photon_on_accelsim_traces)
