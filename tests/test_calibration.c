/*
 * test_calibration.c - the calibration battery (issue 32, tests/calibration.h):
 * on the recorded real-simulator data (the Accel-Sim synthetic set, MacSim,
 * and the transformer, also planned from its time profile), every design
 * and estimator over 200 seeds, planned from the values' own configuration and from others; where
 * ksample stands behind an interval for the full run's total, it covers
 * the truth in at least 93 % of the plans, and where 20 plans or more say
 * the bound is met, the truth is within it in at least 95 % of them; and
 * the default design's one-shot intervals planned from a simulator's own
 * cycles are at most 4.5x the mean |error| and 1.7x the 95th-percentile
 * |error| wide, and say "met" in at least 90 % of the plans whose error is
 * within half the bound (issue 38).  The
 * combinations it cannot stand behind must say so (no interval, or an
 * interval of the values only), and the ones it does are checked to be
 * there, so that no change can quietly break an interval or refuse them
 * all.  bench/bench_calibration prints the whole table (docs/bench.md).
 * Skips when ../shared/data is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <unistd.h>

#include "calibration.h"
#include "test_main.h"

#define SEEDS 200

typedef struct tally {
    size_t rows, held, fails, refused_pool, refused_unmeasured, values_only, pilot_held;
    size_t held_same, held_other, held_ratio_other, held_two_phase_other;
    size_t width_rows, power_rows;
} tally;

#define WIDTH_MAX 4.5
/* ... and at most 1.7x the 95th-percentile |error| (measured 1.32-1.67x;
 * the goal, 1.5x, is met by 8 of the 11 rows) */
#define WIDTH_P95_MAX 1.7
/* "met" said by this share of the plans within half the bound */
#define POWER_MIN 0.9

static void check_row(const cal_row *r, void *ctx)
{
    tally *t = ctx;
    const ks_score_summary *s = &r->s;
    t->rows++;
    if (cal_fails(r)) {
        t->fails++;
        printf("# FAILS %s | %s | %s (%s) | %s | %s | %s: covered %.3f, met %.3f, met true "
               "%.3f\n",
               r->data->name, r->profile->name, r->config->name, r->same ? "same" : "other",
               r->design, r->estimator, r->values, s->coverage, s->met, s->met_true);
    }
    /* Two-sided (issue 38): the default design's one-shot intervals, planned
     * from a simulator's own cycles, are no wider than 4.5x the mean |error|
     * (about 1.8x the 95th-percentile error for normal errors; measured
     * 2.9-4.3x, the collapsed model of --replicate 0 4.8-22x).  From the
     * synthetic time profile, a poor predictor of the cycles, they are 6.6x:
     * not held to it. */
    if (s->claim == KS_CLAIM_FULL_RUN && strcmp(r->design, "root") == 0 &&
        strcmp(r->estimator, "plain") == 0 && strcmp(r->values, "context") == 0 &&
        !strstr(r->profile->name, "time") && s->error_mean > 0) {
        double w = s->halfwidth_mean / s->error_mean;
        t->width_rows++;
        printf("# width %s | %s | %s: half-width %.4f, mean |error| %.4f (%.2fx), p95 |error| "
               "%.4f (%.2fx)\n",
               r->data->name, r->profile->name, r->config->name, s->halfwidth_mean,
               s->error_mean, w, s->error_p95, s->halfwidth_mean / s->error_p95);
        if (!(w <= WIDTH_MAX) || !(s->halfwidth_mean <= WIDTH_P95_MAX * s->error_p95)) {
            t->fails++;
            printf("# FAILS width %s | %s | %s: %.2fx the mean |error|, %.2fx the p95\n",
                   r->data->name, r->profile->name, r->config->name, w,
                   s->halfwidth_mean / s->error_p95);
        }
    }
    /* "met" said where the error allows it (issue 38): by at least 90 % of
     * the default design's plans whose error is within half the bound
     * (plain estimator, values in context), one-shot where planned from a
     * simulator's full-run cycles, after refine from every profile (the
     * synthetic time profile's one-shot plans are +-29 % wide: they say
     * "NOT met" and refine sizes them; planned from alone cycles 74-96 %) */
    bool root = strcmp(r->design, "root") == 0, refined = strcmp(r->design, "root, refined") == 0;
    if (s->claim == KS_CLAIM_FULL_RUN && (root || refined) &&
        strcmp(r->estimator, "plain") == 0 && strcmp(r->values, "context") == 0 &&
        (refined || strstr(r->profile->name, "full-run")) && s->within_half * r->seeds >= 20) {
        t->power_rows++;
        printf("# power %s | %s | %s | %s: met said by %.3f of the %.0f plans within half "
               "the bound\n",
               r->data->name, r->profile->name, r->config->name, r->design, s->met_power,
               s->within_half * r->seeds);
        if (!(s->met_power >= POWER_MIN)) {
            t->fails++;
            printf("# FAILS power: %.3f\n", s->met_power);
        }
    }
    if (s->claim == KS_CLAIM_FULL_RUN) {
        t->held++;
        t->held_same += r->same;
        t->held_other += !r->same;
        t->pilot_held += strncmp(r->values, "alone+pilot", 11) == 0;
        if (!r->same && strcmp(r->estimator, "ratio") == 0 &&
            strcmp(r->values, "context") == 0)
            t->held_ratio_other++;
        if (!r->same && strstr(r->design, "two-phase"))
            t->held_two_phase_other++;
    }
    /* the alone values' interval is of their own total, never the full run's */
    if (strcmp(r->values, "alone") == 0 && s->claim == KS_CLAIM_FULL_RUN)
        fail_msg("%s, %s: the alone values' interval claims the full run", r->data->name,
                 r->design);
    t->values_only += s->claim == KS_CLAIM_VALUES;
    if (s->claim == KS_CLAIM_NONE && strstr(s->claim_why, "--pool"))
        t->refused_pool++;
    if (s->claim == KS_CLAIM_NONE && strstr(s->claim_why, "measures"))
        t->refused_unmeasured++;
    /* random draws by a target speedup: no interval at all */
    if (strncmp(r->design, "random", 6) == 0 && s->claim != KS_CLAIM_NONE)
        fail_msg("random's interval is not refused");
}

static void test_battery(void **state)
{
    (void)state;
    cal_data a, m, tr;
    if (access(KS_SHARED_DATA "/sim/accelsim-synth/per_launch.csv", R_OK) != 0)
        skip();
    assert_int_equal(cal_load_accelsim(KS_SHARED_DATA, KS_TEST_DATA, &a), 0);
    assert_int_equal(cal_load_macsim(KS_SHARED_DATA, KS_TEST_DATA, &m), 0);
    assert_int_equal(cal_load_transformer(KS_TEST_DATA, &tr), 0);
    const cal_data *data[] = {&a, &m, &tr};
    tally t = {0};
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(cal_run(data, 3, SEEDS, false, check_row, &t, &err), KS_OK);
    printf("# %zu rows, %zu stood behind (%zu same configuration, %zu other), %zu of values "
           "only, below the bars: %zu\n",
           t.rows, t.held, t.held_same, t.held_other, t.values_only, t.fails);
    assert_int_equal(t.fails, 0);
    assert_true(t.width_rows >= 8);
    assert_true(t.power_rows >= 20);
    /* what must stand: intervals planned on another configuration, the
     * ratio estimator and the two-phase design among them, and the pilot
     * correction of alone values by the full run's */
    assert_true(t.held >= 100 && t.held_other >= 60);
    assert_true(t.held_ratio_other >= 10 && t.held_two_phase_other >= 10);
    assert_true(t.pilot_held >= 4);
    /* what must not: pools whose kernels follow the profile differently,
     * strata whose spread nothing measures */
    assert_true(t.refused_pool > 0 && t.refused_unmeasured > 0);
    cal_free(&a);
    cal_free(&m);
    cal_free(&tr);
}

KS_TEST_MAIN(test_battery)
