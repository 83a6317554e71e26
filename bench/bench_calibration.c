/*
 * bench_calibration.c - the calibration battery's whole table (docs/bench.md,
 * "Calibration"): every design and estimator on every recorded data set,
 * planned from every profile, with every kind of value: launches, mean
 * error, bias, coverage of the full run's total, "met" claimed and "met"
 * true, and what ksample says its interval stands for.
 *   bench_calibration SHARED_DATA TESTS_DATA [SEEDS]    (default 200 seeds)
 * Prints Markdown; the rows that miss the bars (coverage < 93 %, met true
 * < 95 %) among those ksample stands behind are marked FAILS, and
 * tests/test_calibration.c fails on them.
 */
#include "../tests/calibration.h"

#include <time.h>

typedef struct table {
    size_t rows, held, fails;
    bool only_held;
} table;

static const char *pct(double x, char *buf)
{
    if (isnan(x))
        return "-";
    snprintf(buf, 16, "%.1f %%", x * 100);
    return buf;
}

static void print_row(const cal_row *r, void *ctx)
{
    table *t = ctx;
    const ks_score_summary *s = &r->s;
    bool held = s->claim == KS_CLAIM_FULL_RUN;
    bool fails = cal_fails(r);
    t->rows++;
    t->held += held;
    t->fails += fails;
    if (t->only_held && !held)
        return;
    char a[16], b[16], c[16], d[16], e[32];
    printf("| %s | %s | %s (%s) | %s | %s | %s | %.1f | %s | %+.2f %% | %s | %s | %s | %s |\n",
           r->data->name, r->profile->name, r->config->name, r->same ? "same" : "other",
           r->design, r->estimator, r->values, s->samples_mean, pct(s->error_mean, a),
           s->error_signed_mean * 100, pct(s->coverage, b), pct(s->met, c),
           pct(s->met_true, d),
           fails ? "**FAILS**"
           : held ? (s->refused > 0 ? (snprintf(e, sizeof e, "holds, %.0f %% refused", s->refused * 100), e)
                                    : "holds")
           : s->claim == KS_CLAIM_NONE ? "refused"
                                       : "values only");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_calibration SHARED_DATA TESTS_DATA [SEEDS] [all]\n");
        return 2;
    }
    unsigned seeds = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 200;
    bool all = argc > 4 && strcmp(argv[4], "all") == 0;
    cal_data a, m;
    if (cal_load_accelsim(argv[1], argv[2], &a) || cal_load_macsim(argv[1], argv[2], &m)) {
        fprintf(stderr, "bench_calibration: the recorded data could not be read\n");
        return 77;
    }
    const cal_data *data[] = {&a, &m};
    printf("| data set | planned from | values of (config) | design | estimator | values | "
           "launches | mean error | bias | covered | met claimed | met true | interval |\n");
    printf("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- "
           "|\n");
    table t = {0, 0, 0, !all};
    ks_error err;
    ks_error_clear(&err);
    clock_t t0 = clock();
    ks_status st = cal_run(data, 2, seeds, true, print_row, &t, &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (st != KS_OK) {
        char buf[600];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "bench_calibration: %s\n", buf);
        return 1;
    }
    printf("\n%zu rows (%u seeds each), %zu of them intervals ksample stands behind for the "
           "full run's total, %zu of those below the bars; %.1f s CPU\n",
           t.rows, seeds, t.held, t.fails, secs);
    cal_free(&a);
    cal_free(&m);
    return 0;
}
