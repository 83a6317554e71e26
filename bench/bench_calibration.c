/*
 * bench_calibration.c - the calibration battery's tables (docs/bench.md,
 * "Calibration"): every design and estimator on every recorded data set,
 * planned from every profile, with every kind of value.
 *   bench_calibration SHARED_DATA TESTS_DATA [SEEDS]    (default 200 seeds)
 * Prints Markdown, three tables: the intervals ksample stands behind for the
 * full run's total, one row per data set x profile x configuration x design
 * x estimator x kind of value (launches, mean error, bias, coverage, "met"
 * claimed, "met" true); the intervals of the values only (cold and warmed
 * values), per data set, kind of value and same or other configuration
 * (their coverage of the full run, which ksample does not claim); the
 * combinations refused, with ksample's reason; and the refine rounds the
 * refined designs took.  Rows that ksample stands
 * behind and miss the bars (tests/test_calibration.c) are marked FAILS.
 */
#include "../tests/calibration.h"

#include <time.h>

typedef struct kept {
    char data[48], profile[48], config[32], design[48], estimator[16], values[48];
    bool same;
    ks_score_summary s;
    unsigned seeds;
    bool fails;
} kept;

typedef struct table {
    kept *rows;
    size_t count, capacity;
} table;

static void keep(const cal_row *r, void *ctx)
{
    table *t = ctx;
    if (t->count == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 1024;
        t->rows = realloc(t->rows, t->capacity * sizeof *t->rows);
        if (!t->rows)
            abort();
    }
    kept *k = &t->rows[t->count++];
    snprintf(k->data, sizeof k->data, "%s", r->data->name);
    snprintf(k->profile, sizeof k->profile, "%s", r->profile->name);
    snprintf(k->config, sizeof k->config, "%s", r->config->name);
    snprintf(k->design, sizeof k->design, "%s", r->design);
    snprintf(k->estimator, sizeof k->estimator, "%s", r->estimator);
    snprintf(k->values, sizeof k->values, "%s", r->values);
    k->same = r->same;
    k->s = r->s;
    k->seeds = r->seeds;
    k->fails = cal_fails(r);
}

static const char *pct(double x, char *buf)
{
    if (isnan(x))
        snprintf(buf, 16, "-");
    else
        snprintf(buf, 16, "%.1f %%", x * 100);
    return buf;
}

static void stood(const table *t)
{
    printf("| data set | planned from | values of | design | estimator | values | launches | "
           "mean error | bias | covered | met claimed | met true | |\n");
    printf("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- "
           "|\n");
    for (size_t i = 0; i < t->count; i++) {
        const kept *k = &t->rows[i];
        if (k->s.claim != KS_CLAIM_FULL_RUN)
            continue;
        char a[16], b[16], c[16], d[16];
        char note[48] = "";
        if (k->fails)
            snprintf(note, sizeof note, "**FAILS**");
        else if (k->s.refused > 0)
            snprintf(note, sizeof note, "%.0f %% of plans refused", k->s.refused * 100);
        else if (!isnan(k->s.met_true) && k->s.met * k->seeds < CAL_MET_MIN)
            snprintf(note, sizeof note, "met: %.0f plans", k->s.met * k->seeds);
        printf("| %s | %s | %s (%s) | %s | %s | %s | %.1f | %s | %+.2f %% | %s | %s | %s | %s "
               "|\n",
               k->data, k->profile, k->config, k->same ? "same" : "other", k->design,
               k->estimator, k->values, k->s.samples_mean, pct(k->s.error_mean, a),
               k->s.error_signed_mean * 100, pct(k->s.coverage, b), pct(k->s.met, c),
               pct(k->s.met_true, d), note);
    }
}

/* The values-only rows, per data set, kind of value and same or other
 * configuration: how many, and the range of their bias and coverage. */
static void values_only(const table *t)
{
    printf("| data set | values | planned from | rows | bias (min .. max) | covered (min .. "
           "max) | met claimed (max) | met true (min) |\n");
    printf("| --- | --- | --- | ---: | --- | --- | ---: | ---: |\n");
    bool *done = calloc(t->count + 1, sizeof *done);
    for (size_t i = 0; i < t->count; i++) {
        const kept *k = &t->rows[i];
        if (done[i] || k->s.claim != KS_CLAIM_VALUES)
            continue;
        size_t n = 0;
        double blo = INFINITY, bhi = -INFINITY, clo = INFINITY, chi = -INFINITY, mhi = 0;
        double tlo = INFINITY;
        for (size_t j = i; j < t->count; j++) {
            const kept *o = &t->rows[j];
            if (done[j] || o->s.claim != KS_CLAIM_VALUES || strcmp(o->data, k->data) != 0 ||
                strcmp(o->values, k->values) != 0 || o->same != k->same)
                continue;
            done[j] = true;
            n++;
            blo = fmin(blo, o->s.error_signed_mean);
            bhi = fmax(bhi, o->s.error_signed_mean);
            if (!isnan(o->s.coverage)) {
                clo = fmin(clo, o->s.coverage);
                chi = fmax(chi, o->s.coverage);
            }
            mhi = fmax(mhi, o->s.met);
            if (!isnan(o->s.met_true) && o->s.met * o->seeds >= CAL_MET_MIN)
                tlo = fmin(tlo, o->s.met_true);
        }
        char t1[16];
        printf("| %s | %s | %s | %zu | %+.1f .. %+.1f %% | %.1f .. %.1f %% | %.1f %% | %s |\n",
               k->data, k->values, k->same ? "same configuration" : "other", n, blo * 100,
               bhi * 100, clo * 100, chi * 100, mhi * 100, isinf(tlo) ? "-" : pct(tlo, t1));
    }
    free(done);
}

/* The refused combinations: per data set, design, estimator and reason,
 * where (profiles) and how often. */
static void refused(const table *t)
{
    printf("| data set | design | estimator | planned from | values | plans refused | reason "
           "|\n");
    printf("| --- | --- | --- | --- | --- | ---: | --- |\n");
    for (size_t i = 0; i < t->count; i++) {
        const kept *k = &t->rows[i];
        if (k->s.claim != KS_CLAIM_NONE && !(k->s.refused > 0 && k->s.claim != KS_CLAIM_FULL_RUN))
            continue;
        if (strcmp(k->values, "context") != 0)
            continue; /* the same reason for every kind of value */
        char reason[120];
        snprintf(reason, sizeof reason, "%.110s%s", k->s.claim_why,
                 strlen(k->s.claim_why) > 110 ? "..." : "");
        printf("| %s | %s | %s | %s (%s, %s) | every kind | %.0f %% | %s |\n", k->data, k->design,
               k->estimator, k->profile, k->config, k->same ? "same" : "other",
               k->s.refused * 100, reason);
    }
}

/* Refine rounds of the refined designs (context values): how many it takes
 * to meet 5 % from the first plan, at most 3. */
static void rounds(const table *t)
{
    printf("| data set | planned from | values of | design | estimator | launches | rounds "
           "(mean) | rounds (max) | met after them |\n");
    printf("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n");
    for (size_t i = 0; i < t->count; i++) {
        const kept *k = &t->rows[i];
        if (!strstr(k->design, "refined") || strcmp(k->values, "context") != 0 ||
            k->s.claim != KS_CLAIM_FULL_RUN)
            continue;
        printf("| %s | %s | %s (%s) | %s | %s | %.1f | %.2f | %.0f | %.1f %% |\n", k->data,
               k->profile, k->config, k->same ? "same" : "other", k->design, k->estimator,
               k->s.samples_mean, k->s.rounds_mean, k->s.rounds_max, k->s.met * 100);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_calibration SHARED_DATA TESTS_DATA [SEEDS]\n");
        return 2;
    }
    unsigned seeds = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 200;
    cal_data a, m, tr;
    if (cal_load_accelsim(argv[1], argv[2], &a) || cal_load_macsim(argv[1], argv[2], &m) ||
        cal_load_transformer(argv[2], &tr)) {
        fprintf(stderr, "bench_calibration: the recorded data could not be read\n");
        return 77;
    }
    const cal_data *data[] = {&a, &m, &tr};
    table t = {0};
    ks_error err;
    ks_error_clear(&err);
    clock_t t0 = clock();
    ks_status st = cal_run(data, 3, seeds, true, keep, &t, &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (st != KS_OK) {
        char buf[600];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "bench_calibration: %s\n", buf);
        return 1;
    }
    size_t held = 0, fails = 0, vals = 0, none = 0;
    for (size_t i = 0; i < t.count; i++) {
        held += t.rows[i].s.claim == KS_CLAIM_FULL_RUN;
        vals += t.rows[i].s.claim == KS_CLAIM_VALUES;
        none += t.rows[i].s.claim == KS_CLAIM_NONE;
        fails += t.rows[i].fails;
    }
    printf("### Intervals ksample stands behind for the full run's total\n\n");
    stood(&t);
    printf("\n### Intervals of the values only (cold and warmed values)\n\n");
    values_only(&t);
    printf("\n### Refused (no interval)\n\n");
    refused(&t);
    printf("\n### Refine rounds (context values, from the first plan to 5 %%, at most 3)\n\n");
    rounds(&t);
    printf("\n%zu rows of %u seeds: %zu stood behind for the full run's total (%zu of them "
           "below the bars), %zu of the values only, %zu refused; %.1f s CPU\n",
           t.count, seeds, held, fails, vals, none, secs);
    free(t.rows);
    cal_free(&a);
    cal_free(&m);
    cal_free(&tr);
    return 0;
}
