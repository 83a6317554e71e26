/*
 * run_values.h - the per-launch values of recorded simulator runs, as the
 * tests of those runs check them (test_simout: the synthetic workload;
 * test_scale_data: the large and transformer ones): equal launch by launch
 * to a data set's CSV, summed, and scored with root's default plan over 20
 * seeds at 95 %.  Header-only, as tmpdir.h, because each test file is its
 * own program; include it after cmocka.h.
 */
#ifndef KS_TEST_RUN_VALUES_H
#define KS_TEST_RUN_VALUES_H

#include <math.h>
#include <stdio.h>

#include "ksample.h"

/* got equals want for each of n launches, NAN where want is NAN. */
static inline void assert_same(const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i])) {
            assert_true(isnan(got[i]));
            continue;
        }
        if (got[i] != want[i])
            fail_msg("launch %zu: %.17g, the data set says %.17g", i, got[i], want[i]);
    }
}

static inline double values_sum(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* 20 seeds at 95 %, the count sets scored against truth. */
static inline void score_options_root(ks_score_options *so, const ks_score_set *sets,
                                      size_t count, double truth)
{
    ks_score_options_init(so);
    so->truth_total = truth;
    so->sets = sets;
    so->set_count = count;
    so->seeds = 20;
    so->confidence = 0.95;
}

/* Root's default plan (5 % at 95 %) drawn from p's durations, over 20
 * seeds, scored with the in-context values (warm-up "context") and the
 * alone ones ("none") of its p->n launches against the context values'
 * total, which it returns; *ctx and *alone get the two columns' summaries.
 * Every row's estimate is checked to be the one its error is of. */
static inline double score_context_alone(const ks_profile *p, const double *context,
                                         const double *alone, ks_score_summary *ctx,
                                         ks_score_summary *cold)
{
    double truth = values_sum(context, p->n);
    ks_score_set sets[] = {{"context", context, NULL, NULL, NULL, NULL, "context"},
                           {"alone", alone, NULL, NULL, NULL, NULL, "none"}};
    ks_score_options so;
    score_options_root(&so, sets, 2, truth);
    ks_params pa;
    ks_params_init(&pa);
    ks_score_result res;
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_score(p, &pa, &so, &res, &err), KS_OK);
    assert_int_equal(res.row_count, 20);
    *ctx = res.summary[0];
    *cold = res.summary[1];
    printf("# context: %.2f launches, error %.7f (signed %.7f), speedup %.4f, coverage %.3f; "
           "alone: error %.7f (signed %.7f), speedup %.4f, coverage %.3f\n",
           ctx->samples_mean, ctx->error_mean, ctx->error_signed_mean, ctx->speedup_hmean,
           ctx->coverage, cold->error_mean, cold->error_signed_mean, cold->speedup_hmean,
           cold->coverage);
    /* a row: estimate = sum weight x value, error against the truth */
    for (size_t r = 0; r < res.row_count; r++)
        for (size_t s = 0; s < 2; s++) {
            const ks_score_estimate *e = &res.rows[r].sets[s];
            assert_true(fabs(e->error - (e->estimate - truth) / truth) < 1e-12);
        }
    ks_score_result_free(&res);
    return truth;
}

#endif
