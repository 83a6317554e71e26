/*
 * test_auxiliary.c - the profile as auxiliary information and pooled strata:
 * the ratio and regression estimators against hand-computed answers, exact
 * where the values are proportional to the profile, falling back where they
 * do not follow it, their intervals' coverage over many seeds where the truth
 * is known; refine sizing for them (two-phase); ROOT's pooled strata never
 * dearer than unpooled ROOT at the same bound, deterministic, read back and
 * refined; the two-phase pilot's minimum per kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_util.h"
#include "test_main.h"
#include "estimate.h"

/* ------------------------------------------------------------ helpers */

/* The hand plan of test_ratio_known_answer: one kernel, a stratum of 10
 * launches (mean 150) sampled twice and one of 5 (mean 400) sampled once. */
static ks_plan hand_plan(void)
{
    ks_plan plan = tu_hand_plan("root", ks_z_for_confidence(0.95), (const char *[]){"k"}, 1);
    plan.bound = 0.05;
    plan.params.confidence = 0.95;
    ks_error err;
    ks_cluster a = {.group = 0, .path = "s0", .size = 10, .mean_ns = 150, .std_ns = 60,
                    .min_ns = 50, .max_ns = 250, .m = 2};
    ks_cluster b = {.group = 0, .path = "s1", .size = 5, .mean_ns = 400, .std_ns = 20,
                    .min_ns = 380, .max_ns = 430, .m = 1};
    assert_int_equal(ks_plan_add_cluster(&plan, &a, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_cluster(&plan, &b, NULL, &err), KS_OK);
    assert_int_equal(ks_plan_add_sample(&plan, 0, 5, 0, &err), KS_OK);
    assert_int_equal(ks_plan_add_sample(&plan, 1, 5, 0, &err), KS_OK);
    assert_int_equal(ks_plan_add_sample(&plan, 12, 5, 1, &err), KS_OK);
    plan.input_invocations = 15;
    return plan;
}

/* What an estimate with the profile as auxiliary reads of a plan: x, each
 * sample's duration, total, each stratum's, and y, each sample's value:
 * all[its launch] where all is given, for the caller to fill otherwise. */
typedef struct sampled {
    double *x, *y, *total;
    ks_auxiliary aux;
} sampled;

static sampled sampled_of(const ks_plan *plan, const ks_profile *p, const double *all)
{
    size_t n = plan->sample_count;
    sampled s;
    s.x = malloc(n * sizeof *s.x);
    s.y = malloc(n * sizeof *s.y);
    s.total = malloc(plan->cluster_count * sizeof *s.total);
    assert_true(s.x && s.y && s.total);
    ks_error err;
    assert_int_equal(ks_plan_auxiliary(plan, p, NULL, s.x, s.total, &err), KS_OK);
    for (size_t i = 0; all && i < n; i++)
        s.y[i] = all[plan->samples[i].id];
    s.aux = (ks_auxiliary){s.x, s.total};
    return s;
}

static void sampled_free(sampled *s) { KS_FREE(s->x, s->y, s->total); }

static bool close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-12;
}

/* ------------------------------------------------------ known answers */

static void test_ratio_known_answer(void **state)
{
    (void)state;
    ks_plan plan = hand_plan();
    const double x[] = {100, 200, 420}, y[] = {210, 390, 850};
    const double total[] = {1500, 2000};
    ks_auxiliary aux = {x, total};
    ks_aux_estimate e;
    double res[3], g[3];
    ks_error err;
    assert_int_equal(ks_plan_aux_estimate(&plan, y, &aux, KS_ESTIMATOR_RATIO, KS_FIT_KERNEL,
                                          KS_SINGLE_COLLAPSE, &e, res, g, &err),
                     KS_OK);
    /* R = sum w y / sum w x; Tin's term from the stratum of two samples:
     * N^2 (1 - n/N) / n (s_x^2 - s_xy / R) = 40 (5000 - 9000 / R) */
    double R = 7250.0 / 3600.0;
    double bias_num = 40 * (5000 - 9000 / R);
    double rc = R * (1 - bias_num / (3600.0 * 3600.0));
    assert_int_equal(e.ratio, 1);
    assert_int_equal(e.plain, 0);
    assert_int_equal(e.unstable, 0);
    assert_true(close_to(e.estimate, rc * 3500, 1e-12));
    assert_true(close_to(e.bias, (R - rc) * 3500, 1e-9));
    assert_true(close_to(e.plain_estimate, 7250, 1e-12));
    /* the residuals, leverage-corrected: h = w x / sum w x */
    double swx = 0;
    for (int i = 0; i < 3; i++)
        swx += plan.samples[i].weight * x[i];
    for (int i = 0; i < 3; i++) {
        double h = plan.samples[i].weight * x[i] / swx;
        assert_true(close_to(res[i], (y[i] - R * x[i]) / sqrt(1 - h), 1e-12));
    }
    /* the estimate is linear in y with the g-weights */
    double sum = 0;
    for (int i = 0; i < 3; i++)
        sum += g[i] * plan.samples[i].weight * y[i];
    assert_true(close_to(sum, e.estimate, 1e-12));
    /* its variance is the stratified variance of the residuals */
    double v, df;
    assert_int_equal(ks_stratified_variance(&plan, res, y, KS_RESIDUAL_ALL, KS_SINGLE_COLLAPSE,
                                            &v, &df, NULL, &err),
                     KS_OK);
    assert_true(close_to(e.variance, v, 1e-12));
    ks_plan_free(&plan);
}

static void test_regression_known_answer(void **state)
{
    (void)state;
    /* one stratum of 40 launches sampled 8 times: the weighted line */
    ks_plan plan = tu_hand_plan("stem", ks_z_for_confidence(0.95), (const char *[]){"k"}, 1);
    plan.params.confidence = 0.95;
    ks_error err;
    ks_cluster c = {.group = 0, .path = "0", .size = 40, .mean_ns = 500, .std_ns = 200, .m = 8};
    assert_int_equal(ks_plan_add_cluster(&plan, &c, NULL, &err), KS_OK);
    double x[8], y[8];
    for (int i = 0; i < 8; i++) {
        assert_int_equal(ks_plan_add_sample(&plan, (uint64_t)i, 5, 0, &err), KS_OK);
        x[i] = 200 + 80 * i;
        y[i] = 300 + 2 * x[i] + (i % 2 ? 15 : -15) + (i == 3 ? 10 : 0);
    }
    plan.input_invocations = 40;
    double total[] = {40 * 500.0};
    ks_auxiliary aux = {x, total};
    ks_aux_estimate e;
    double res[8], g[8];
    assert_int_equal(ks_plan_aux_estimate(&plan, y, &aux, KS_ESTIMATOR_REGRESSION, KS_FIT_KERNEL,
                                          KS_SINGLE_COLLAPSE, &e, res, g, &err),
                     KS_OK);
    long double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < 8; i++)
        mx += x[i] / 8, my += y[i] / 8;
    for (int i = 0; i < 8; i++)
        sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    double b = (double)(sxy / sxx);
    /* sum w y + b (X - sum w x) (the weights add up to N) */
    double want = 40 * (double)my + b * (20000 - 40 * (double)mx);
    assert_int_equal(e.regression, 1);
    assert_true(close_to(e.estimate, want, 1e-12));
    double sum = 0;
    for (int i = 0; i < 8; i++)
        sum += g[i] * 5 * y[i];
    assert_true(close_to(sum, e.estimate, 1e-12));
    /* narrower than plain: y follows x */
    assert_true(e.variance < e.plain_variance / 10);
    ks_plan_free(&plan);
}

/* y = c x exactly: the ratio is exact, with no variance and no bias, where
 * each kernel has two samples or more (a ratio from one launch shows
 * nothing: plain there). */
static void test_ratio_exact_when_proportional(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(1, 5000, 21); /* no launch of 0 ns */
    ks_params pa = tu_params("root", 0, 0.05, 3);
    ks_error perr;
    assert_int_equal(ks_params_set(&pa, "two-phase", "2", &perr), KS_OK);
    ks_plan plan = tu_plan_ok(p, &pa);
    sampled s = sampled_of(&plan, p, NULL);
    for (size_t i = 0; i < plan.sample_count; i++)
        s.y[i] = 1.7 * s.x[i];
    ks_aux_estimate e;
    ks_error err;
    assert_int_equal(ks_plan_aux_estimate(&plan, s.y, &s.aux, KS_ESTIMATOR_RATIO, KS_FIT_KERNEL,
                                          KS_SINGLE_COLLAPSE, &e, NULL, NULL, &err),
                     KS_OK);
    double truth = 1.7 * ks_profile_total_ns(p);
    printf("# y = 1.7 x: estimate %.17g truth %.17g variance %g bias %g, ratio in %zu of %zu\n",
           e.estimate, truth, e.variance, e.bias, e.ratio, e.fits);
    assert_true(close_to(e.estimate, truth, 1e-9));
    assert_true(e.variance <= 1e-12 * truth * truth);
    assert_true(fabs(e.bias) <= 1e-9 * truth);
    /* the plain estimate of the same values is not exact */
    assert_true(fabs(e.plain_estimate - truth) > 1e-6 * truth);
    sampled_free(&s);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* ----------------------------------------------------------- coverage */

/* Values per launch: y = R_k x (1 + noise) with a ratio per kernel
 * (follows), or a level per kernel with noise and nothing of x (ignores). */
static void simulated(const ks_profile *p, bool follows, uint64_t seed, double *y)
{
    ks_rng rng;
    ks_rng_seed(&rng, seed);
    for (size_t i = 0; i < p->n; i++) {
        double r = 0.8 + 0.15 * (double)(p->name_id[i] % 5);
        double x = (double)p->duration_ns[i] + 200;
        y[i] = follows ? r * x * (1 + 0.05 * ks_rng_normal(&rng))
                       : r * 20000 * exp(0.3 * ks_rng_normal(&rng));
    }
}

typedef struct cover {
    int covered, runs;
    double err_sum, width, unstable;
} cover;

static void cover_add(cover *c, double est, double var, double df, double truth, size_t unstable)
{
    double half = ks_student_t_quantile(0.975, df) * sqrt(var > 0 ? var : 0);
    c->covered += fabs(est - truth) <= half;
    c->err_sum += fabs(est - truth) / truth;
    c->width += half / est;
    c->unstable += (double)unstable;
    c->runs++;
}

static void test_coverage(void **state)
{
    (void)state;
    const int runs = 400;
    ks_profile *p = tu_named_workload(1, 20000, 5);
    double *all = malloc(p->n * sizeof *all);
    ks_params pa = tu_params("root", 0, 0.05, 1);
    tu_param(&pa, "two-phase", "3");
    ks_fitted *fit;
    ks_error err;
    assert_int_equal(ks_fit(p, &pa, &fit, &err), KS_OK);
    for (int follows = 1; follows >= 0; follows--) {
        simulated(p, follows, 11, all);
        long double t = 0;
        for (size_t i = 0; i < p->n; i++)
            t += all[i];
        double truth = (double)t;
        cover plain = {0}, ratio = {0}, autoc = {0};
        for (int r = 0; r < runs; r++) {
            ks_plan plan;
            assert_int_equal(ks_select(fit, 500 + (uint64_t)r, &plan, &err), KS_OK);
            sampled s = sampled_of(&plan, p, all);
            ks_aux_estimate e;
            assert_int_equal(ks_plan_aux_estimate(&plan, s.y, &s.aux, KS_ESTIMATOR_RATIO,
                                                  KS_FIT_KERNEL, KS_SINGLE_COLLAPSE, &e, NULL,
                                                  NULL, &err),
                             KS_OK);
            cover_add(&plain, e.plain_estimate, e.plain_variance, e.plain_df, truth, 0);
            cover_add(&ratio, e.estimate, e.variance, e.df, truth, e.unstable);
            assert_int_equal(ks_plan_aux_estimate(&plan, s.y, &s.aux, KS_ESTIMATOR_AUTO,
                                                  KS_FIT_KERNEL, KS_SINGLE_COLLAPSE, &e, NULL,
                                                  NULL, &err),
                             KS_OK);
            cover_add(&autoc, e.estimate, e.variance, e.df, truth, e.unstable);
            sampled_free(&s);
            ks_plan_free(&plan);
        }
        const char *what = follows ? "follows x" : "ignores x";
        printf("# %s: plain covers %.3f (err %.4f, +-%.4f); ratio %.3f (err %.4f, +-%.4f, "
               "unstable groups %.2f); auto %.3f (err %.4f, +-%.4f)\n",
               what, (double)plain.covered / runs, plain.err_sum / runs, plain.width / runs,
               (double)ratio.covered / runs, ratio.err_sum / runs, ratio.width / runs,
               ratio.unstable / runs, (double)autoc.covered / runs, autoc.err_sum / runs,
               autoc.width / runs);
        /* 95 % nominal; 400 runs give a binomial sd of 1.1 points */
        double floor = 0.95 - 3 * sqrt(0.95 * 0.05 / runs);
        assert_true((double)ratio.covered / runs >= floor);
        assert_true((double)autoc.covered / runs >= floor);
        if (follows) {
            /* the ratio pays only for the 5 % noise: far closer (its
             * residuals leverage-corrected, its interval a little wider
             * than half plain's) */
            assert_true(ratio.err_sum < plain.err_sum / 2);
            assert_true(ratio.width < 0.6 * plain.width);
        } else {
            /* y ignores x: the ratio sees it in most kernels and falls back */
            assert_true(ratio.unstable / runs >= 2);
            assert_true(ratio.err_sum < 1.25 * plain.err_sum);
        }
    }
    ks_fitted_free(fit);
    free(all);
    ks_profile_free(p);
}

/* With issue 23's cold-start pilot: the cold values y = 1.7 x, two launches
 * of each kernel also measured warm at 0.8 y.  The corrected values go
 * through the ratio estimator: 0.8 x 1.7 x the total, exactly, with only the
 * pilot's own (zero) spread in the interval; plain is not exact. */
static void test_pilot_with_ratio(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(1, 5000, 31);
    ks_params pa = tu_params("root", 0, 0.05, 2);
    tu_param(&pa, "two-phase", "2");
    ks_plan plan = tu_plan_ok(p, &pa);
    size_t n = plan.sample_count;
    sampled s = sampled_of(&plan, p, NULL);
    double *y = s.y, *warm = malloc(n * sizeof *warm);
    size_t *taken = calloc(plan.group_count, sizeof *taken);
    for (size_t i = 0; i < n; i++) {
        uint32_t g = plan.clusters[plan.samples[i].cluster].group;
        y[i] = 1.7 * s.x[i];
        warm[i] = taken[g]++ < 2 ? 0.8 * y[i] : NAN;
    }
    ks_pilot_estimate pe, pp;
    ks_aux_estimate ae;
    ks_error err;
    assert_int_equal(ks_plan_pilot_corrected_aux(&plan, y, warm, &s.aux, KS_ESTIMATOR_RATIO,
                                                 KS_FIT_KERNEL, KS_SINGLE_COLLAPSE, &pe, &ae,
                                                 &err),
                     KS_OK);
    assert_int_equal(ks_plan_pilot_corrected(&plan, y, warm, KS_SINGLE_COLLAPSE, &pp, &err),
                     KS_OK);
    double truth = 0.8 * 1.7 * ks_profile_total_ns(p);
    printf("# pilot-corrected: ratio %.10g, plain %.10g, truth %.10g (pilot %zu)\n",
           pe.estimate, pp.estimate, truth, pe.pilot);
    assert_true(close_to(pe.estimate, truth, 1e-9));
    assert_true(pe.variance <= 1e-12 * truth * truth);
    assert_true(fabs(pp.estimate - truth) > 1e-6 * truth);
    assert_true(fabs(pe.ratio - 0.8) < 1e-12);
    assert_int_equal(ae.ratio, ae.fits);
    KS_FREE(warm, taken);
    sampled_free(&s);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* ------------------------------------------------------------- refine */

/* Two-phase: a pilot of at least 3 launches per kernel, refined for the
 * ratio estimator, meets the bound with fewer launches than refined for
 * the plain one, and records what it was sized for. */
static void test_two_phase_refine(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(1, 20000, 8);
    double *all = malloc(p->n * sizeof *all);
    simulated(p, true, 3, all);
    ks_params pa = tu_params("root", 0, 0.2, 2);
    tu_param(&pa, "two-phase", "3");
    ks_plan plan = tu_plan_ok(p, &pa);
    size_t n = plan.sample_count;
    sampled pilot = sampled_of(&plan, p, all);
    double *y = pilot.y;
    ks_error err;
    ks_refine_result rr, rp;
    ks_refine_options ratio = {.epsilon = 0.01, .seed = 9, .single = KS_SINGLE_COLLAPSE,
                               .result = &rr, .estimator = KS_ESTIMATOR_RATIO,
                               .fit = KS_FIT_KERNEL, .aux = &pilot.aux};
    ks_refine_options plain = {.epsilon = 0.01, .seed = 9, .single = KS_SINGLE_COLLAPSE,
                               .result = &rp};
    ks_plan a, b;
    assert_int_equal(ks_plan_refine(&plan, p, y, &ratio, &a, &err), KS_OK);
    assert_int_equal(ks_plan_refine(&plan, p, y, &plain, &b, &err), KS_OK);
    printf("# refine to 1 %%: pilot %zu, for the ratio %zu, for plain %zu\n", n, a.sample_count,
           b.sample_count);
    assert_true(rr.met && rp.met);
    assert_true(a.sample_count < b.sample_count / 2);
    /* recorded: estimate's default */
    bool est = false, fit = false, auxname = false;
    for (size_t i = 0; i < a.extra_param_count; i++) {
        est = est || (strcmp(a.extra_param_names[i], "refine_estimator") == 0 &&
                      strcmp(a.extra_param_values[i], "\"ratio\"") == 0);
        fit = fit || (strcmp(a.extra_param_names[i], "refine_fit") == 0 &&
                      strcmp(a.extra_param_values[i], "\"kernel\"") == 0);
        auxname = auxname || (strcmp(a.extra_param_names[i], "refine_auxiliary") == 0 &&
                              strcmp(a.extra_param_values[i], "\"duration\"") == 0);
    }
    assert_true(est && fit && auxname);
    /* the refined plan's interval, from all its values, meets the bound */
    sampled refined = sampled_of(&a, p, all);
    ks_aux_estimate e;
    assert_int_equal(ks_plan_aux_estimate(&a, refined.y, &refined.aux, KS_ESTIMATOR_RATIO,
                                          KS_FIT_KERNEL, KS_SINGLE_COLLAPSE, &e, NULL, NULL,
                                          &err),
                     KS_OK);
    double half = ks_student_t_quantile(0.975, e.df) * sqrt(e.variance) / e.estimate;
    printf("# refined for the ratio: +-%.4f\n", half);
    assert_true(half <= 0.012);
    sampled_free(&pilot);
    sampled_free(&refined);
    free(all);
    ks_plan_free(&a);
    ks_plan_free(&b);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

/* ------------------------------------------------------- pooled strata */

static ks_plan pooled_plan(const ks_profile *p, const char *pool, double eps, uint64_t seed)
{
    ks_params pa = tu_params("root", 0, eps, seed);
    if (pool)
        tu_param(&pa, "pool", "%s", pool);
    return tu_plan_ok(p, &pa);
}

static void test_pool_never_dearer(void **state)
{
    (void)state;
    int cheaper = 0, cases = 0;
    const double eps[] = {0.02, 0.05, 0.2};
    for (int shape = 0; shape < 3; shape++)
        for (size_t n = 40; n <= 4000; n *= 10)
            for (size_t e = 0; e < 3; e++) {
                ks_profile *p = tu_named_workload(shape, n, 100 + n + (uint64_t)shape);
                ks_plan a = pooled_plan(p, NULL, eps[e], 1);
                ks_plan b = pooled_plan(p, "duration", eps[e], 1);
                ks_plan c = pooled_plan(p, "features", eps[e], 1);
                double ca = tu_plan_cost(&a), cb = tu_plan_cost(&b), cc = tu_plan_cost(&c);
                /* the same bound, never dearer (no tolerance: the unpooled
                 * design is a candidate) */
                assert_true(cb <= ca);
                assert_true(cc <= ca);
                cheaper += cb < ca;
                cases++;
                /* pools name only whole kernel groups, each in one */
                if (b.pool_rep)
                    for (size_t g = 0; g < b.group_count; g++)
                        assert_true(b.pool_rep[g] <= g && b.pool_rep[b.pool_rep[g]] ==
                                                              b.pool_rep[g]);
                ks_plan_free(&a);
                ks_plan_free(&b);
                ks_plan_free(&c);
                ks_profile_free(p);
            }
    printf("# pooled cheaper than unpooled in %d of %d cases\n", cheaper, cases);
    assert_true(cheaper >= cases / 3);
}

/* A profile of another launch count is not the plan's: every use of the
 * plan's profile refuses it with the one message naming the profile
 * (ks_plan_profile_check). */
static void test_profile_of_another_plan(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 3000, 17), *q = tu_named_workload(2, 3001, 17);
    ks_plan a = pooled_plan(p, "duration", 0.2, 4);
    assert_non_null(a.pool_rep);
    size_t n = a.sample_count;
    double *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x);
    double *total = malloc(a.cluster_count * sizeof *total);
    bool *first = malloc(n * sizeof *first);
    for (size_t i = 0; i < n; i++)
        y[i] = (double)p->duration_ns[a.samples[i].id];
    ks_error err;
    ks_groups g;
    size_t *start;
    uint32_t *ids;
    ks_plan r;
    ks_refine_options ro = {.epsilon = 0.05, .seed = 5};
    bool holds = true;
    char why[320];
    for (int k = 0; k < 7; k++) {
        ks_error_clear(&err);
        ks_status st = k == 0   ? ks_plan_profile_check(&a, q, &err)
                       : k == 1 ? ks_plan_profile_groups(&a, q, &g, &err)
                       : k == 2 ? ks_plan_members(&a, q, &start, &ids, &err)
                       : k == 3 ? ks_plan_auxiliary(&a, q, NULL, x, total, &err)
                       : k == 4 ? ks_plan_refine(&a, q, y, &ro, &r, &err)
                       : k == 5 ? ks_pool_check(&a, q, y, &holds, why, sizeof why, &err)
                                : ks_plan_first_launches(&a, q, first, &err);
        assert_int_equal(st, KS_ERR_FORMAT);
        assert_string_equal(err.message, "the profile has 3001 launches, the plan's 3000");
        assert_string_equal(err.file, q->source_path);
    }
    /* its own profile passes */
    assert_int_equal(ks_plan_profile_groups(&a, p, &g, &err), KS_OK);
    assert_int_equal(g.count, a.group_count);
    ks_groups_free(&g);
    free(y);
    free(x);
    free(total);
    free(first);
    ks_plan_free(&a);
    ks_profile_free(p);
    ks_profile_free(q);
}

static void test_pool_plan_bytes(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 3000, 17);
    /* the default plan says nothing of pools or phases */
    ks_plan plain = pooled_plan(p, NULL, 0.2, 4);
    size_t len;
    char *text = tu_plan_json(&plain, &len);
    assert_null(strstr(text, "pool"));
    assert_null(strstr(text, "two_phase"));
    free(text);
    /* pooled: deterministic, names its pools, reads back to the same bytes */
    ks_plan a = pooled_plan(p, "duration", 0.2, 4), b = pooled_plan(p, "duration", 0.2, 4);
    size_t la, lb;
    char *ta = tu_plan_json(&a, &la), *tb = tu_plan_json(&b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
    assert_non_null(strstr(ta, "\"pool\": \"duration\""));
    assert_non_null(strstr(ta, "\"pools\": ["));
    assert_true(a.sample_count < plain.sample_count);
    ks_plan back;
    ks_error err;
    assert_int_equal(ks_plan_read_buffer(ta, la, "pooled.json", &back, &err), KS_OK);
    assert_non_null(back.pool_rep);
    for (size_t g = 0; g < a.group_count; g++)
        assert_int_equal(back.pool_rep[g], a.pool_rep[g]);
    size_t lc;
    char *tc = tu_plan_json(&back, &lc);
    assert_int_equal(lc, la);
    assert_memory_equal(tc, ta, la);
    /* refine recovers a pooled cluster's launches (every kernel of its pool
     * in its duration range) and adds only new ones */
    double *y = malloc(a.sample_count * sizeof *y);
    for (size_t i = 0; i < a.sample_count; i++)
        y[i] = (double)p->duration_ns[a.samples[i].id] * (1 + 0.3 * (double)(i % 3));
    ks_plan r;
    ks_refine_options ro = {.epsilon = 0.05, .seed = 5, .single = KS_SINGLE_COLLAPSE};
    assert_int_equal(ks_plan_refine(&a, p, y, &ro, &r, &err), KS_OK);
    assert_true(r.sample_count > a.sample_count);
    assert_non_null(r.pool_rep);
    size_t *start;
    uint32_t *ids;
    assert_int_equal(ks_plan_members(&r, p, &start, &ids, &err), KS_OK);
    for (size_t c = 0; c < r.cluster_count; c++)
        assert_int_equal(start[c + 1] - start[c], r.clusters[c].size);
    for (size_t i = 0; i < r.sample_count; i++) {
        const ks_sample *s = &r.samples[i];
        bool in = false;
        for (size_t j = start[s->cluster]; j < start[s->cluster + 1]; j++)
            in = in || ids[j] == s->id;
        assert_true(in);
    }
    free(start);
    free(ids);
    free(y);
    free(ta);
    free(tb);
    free(tc);
    ks_plan_free(&r);
    ks_plan_free(&back);
    ks_plan_free(&a);
    ks_plan_free(&b);
    ks_plan_free(&plain);
    ks_profile_free(p);
}

/* A plan's "pools" that name a group twice, out of range or out of order
 * are refused with the reason. */
static void test_pool_refusals(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 3000, 17);
    ks_plan a = pooled_plan(p, "duration", 0.2, 4);
    size_t len;
    char *text = tu_plan_json(&a, &len);
    char *at = strstr(text, "\"pools\": [");
    assert_non_null(at);
    char *first = strchr(at, '[') + 1;
    while (*first == '\n' || *first == ' ')
        first++;
    assert_true(*first == '[');
    char *close = strchr(first, ']');
    const struct {
        const char *pool, *why;
    } bad[] = {{"[0, 99]", "the plan has"},
               {"[3, 1]", "ascending"},
               {"[]", "lists no kernel group"},
               {"[0, 0]", "two pools"}};
    for (size_t k = 0; k < TU_COUNT(bad); k++) {
        size_t n = (size_t)(first - text), tail = len - (size_t)(close + 1 - text);
        char *buf = malloc(len + 64);
        memcpy(buf, text, n);
        size_t m = n + (size_t)sprintf(buf + n, "%s", bad[k].pool);
        memcpy(buf + m, close + 1, tail);
        ks_plan back;
        ks_error err;
        assert_int_equal(ks_plan_read_buffer(buf, m + tail, "bad.json", &back, &err),
                         KS_ERR_FORMAT);
        printf("# %s: %s\n", bad[k].pool, err.message);
        assert_non_null(strstr(err.message, bad[k].why));
        free(buf);
    }
    free(text);
    ks_plan_free(&a);
    ks_profile_free(p);
}

/* The two-phase pilot has at least K launches of every kernel that has
 * them, and ROOT's strata otherwise. */
static void test_two_phase_minimum(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 20000, 23);
    ks_params pa = tu_params("root", 0, 0.2, 6);
    ks_plan base = tu_plan_ok(p, &pa);
    tu_param(&pa, "two-phase", "3");
    ks_plan plan = tu_plan_ok(p, &pa);
    size_t *have = calloc(plan.group_count, sizeof *have);
    uint64_t *size = calloc(plan.group_count, sizeof *size);
    for (size_t i = 0; i < plan.sample_count; i++)
        have[plan.clusters[plan.samples[i].cluster].group]++;
    for (size_t c = 0; c < plan.cluster_count; c++)
        size[plan.clusters[c].group] += plan.clusters[c].size;
    for (size_t g = 0; g < plan.group_count; g++)
        assert_true(have[g] >= (size[g] < 3 ? size[g] : 3));
    assert_int_equal(plan.cluster_count, base.cluster_count);
    assert_true(plan.sample_count > base.sample_count);
    size_t len;
    char *text = tu_plan_json(&plan, &len);
    assert_non_null(strstr(text, "\"two_phase\": 3"));
    free(text);
    free(have);
    free(size);
    ks_plan_free(&plan);
    ks_plan_free(&base);
    ks_profile_free(p);
}

KS_TEST_MAIN(test_ratio_known_answer,
             test_regression_known_answer,
             test_ratio_exact_when_proportional,
             test_coverage,
             test_pilot_with_ratio,
             test_two_phase_refine,
             test_pool_never_dearer,
             test_pool_plan_bytes,
             test_profile_of_another_plan,
             test_pool_refusals,
             test_two_phase_minimum)
