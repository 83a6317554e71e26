/*
 * test_eval.c - one plan applied to values it was not drawn from: another
 * profile's times (--truth), every additive metric column (--metrics), and
 * sweeps over the bound (--epsilon LIST).
 *
 * Known answers: a workload whose plan is forced (constant groups: one
 * sample weighted by the group's size) gives a truth error of exactly 10 %
 * whichever launch is drawn; on larger workloads every figure is re-derived
 * here from the plans ks_plan_build draws with the same seeds (equal to
 * eval's, as test_pipeline checks).  Invariants: a metric proportional to
 * the duration has the time's error, a constant metric has none for plans
 * whose weights add up to the group sizes, and a profile used as its own
 * truth gives its own error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "ksample.h"
#include "test_util.h"
#include "tmpdir.h"

static void fail_with(ks_status st, const ks_error *err)
{
    char msg[1200];
    ks_error_format(err, msg, sizeof msg);
    fail_msg("status %d: %s", (int)st, msg);
}

static ks_profile *from_list(const char *const *names, const int64_t *dur, size_t n)
{
    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tu_append(p, names[i], dur[i], NULL, NULL), KS_OK);
    return p;
}

/* A copy of p's launches with durations scaled per kernel name: kernels whose
 * name contains `which` take `factor` times as long. */
static ks_profile *scaled(const ks_profile *p, const char *which, double factor)
{
    ks_profile *q = ks_profile_new();
    assert_non_null(q);
    for (size_t i = 0; i < p->n; i++) {
        const char *name = ks_profile_name(p, i);
        double d = (double)p->duration_ns[i];
        if (strstr(name, which))
            d *= factor;
        assert_int_equal(tu_append(q, name, (int64_t)llround(d), NULL, NULL), KS_OK);
    }
    return q;
}

static ks_params params(const char *method, double eps, uint64_t seed)
{
    ks_params pa;
    ks_params_init(&pa);
    pa.method = method;
    pa.epsilon = eps;
    pa.seed = seed;
    pa.strict = 0;
    return pa;
}

static void evaluate(const ks_profile *p, const ks_params *pa, unsigned iters,
                     const ks_eval_options *opt, ks_eval_result *r, ks_eval_detail *d)
{
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_evaluate_ex(p, pa, iters, opt, r, d, &err);
    if (st != KS_OK)
        fail_with(st, &err);
}

static void assert_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fmax(1.0, fabs(want))))
        fail_msg("got %.17g, wanted %.17g", got, want);
}

/* ---------------------------------------------------------------- truth */

/* A: ka four times at 100 ns, kb twice at 50 ns.  Constant groups give one
 * sample each, weighted 4 and 2.  B (another GPU): ka twice as slow, the
 * second kb three times.  B's total is 4 * 200 + 50 + 150 = 1000; the
 * estimate is 800 + 2 * 50 = 900 or 800 + 2 * 150 = 1100: 10 % either way.
 * B's speedup is 1000 / 250 or 1000 / 350. */
static void test_truth_by_hand(void **state)
{
    (void)state;
    static const char *const names[] = {"ka", "ka", "kb", "ka", "kb", "ka"};
    static const int64_t a_ns[] = {100, 100, 50, 100, 50, 100};
    static const int64_t b_ns[] = {200, 200, 50, 200, 150, 200};
    ks_profile *a = from_list(names, a_ns, 6), *b = from_list(names, b_ns, 6);
    const char *methods[] = {"root", "stem"};
    for (int m = 0; m < 2; m++) {
        ks_params pa = params(methods[m], 0.05, 1);
        ks_eval_options opt = {b, "B.csv", 0, NULL};
        ks_eval_result r;
        ks_eval_detail d;
        evaluate(a, &pa, 40, &opt, &r, &d);
        assert_true(d.has_truth);
        assert_close(d.truth_total_ns, 1000, 1e-12);
        assert_close(d.truth_error_mean_pct, 10, 1e-12);
        assert_close(d.truth_error_max_pct, 10, 1e-12);
        assert_close(r.error_max_pct, 0, 1e-12); /* A's own total is exact */
        /* each plan's speedup on B is 4 or 1000/350; the harmonic mean lies
         * between and both occurred over 40 seeds */
        assert_true(d.truth_speedup_hmean > 1000.0 / 350 + 1e-9);
        assert_true(d.truth_speedup_hmean < 4 - 1e-9);
        assert_close(d.truth_exceed_fraction, 1, 0); /* 10 % > 5 % every time */
        ks_eval_detail_free(&d);
    }
    ks_profile_free(a);
    ks_profile_free(b);
}

/* The same figures computed here, plan by plan, on a workload whose B has
 * one kernel twice as slow. */
static void test_truth_rederived(void **state)
{
    (void)state;
    ks_profile *a = tu_named_workload(0, 20000, 5);
    assert_non_null(a);
    ks_profile *b = scaled(a, "gemm", 2.0);
    const char *methods[] = {"root", "stem", "allegro", "random"};
    for (int m = 0; m < 4; m++) {
        ks_params pa = params(methods[m], 0.05, 11);
        ks_eval_options opt = {b, NULL, 0, NULL};
        ks_eval_result r;
        ks_eval_detail d;
        const unsigned iters = 6;
        evaluate(a, &pa, iters, &opt, &r, &d);
        double total = ks_profile_total_ns(b), sum = 0, max = 0, inv = 0;
        for (unsigned it = 0; it < iters; it++) {
            ks_params one = pa;
            one.seed = pa.seed + it;
            ks_plan plan;
            ks_error err;
            ks_status st = ks_plan_build(a, &one, &plan, &err);
            if (st != KS_OK)
                fail_with(st, &err);
            double est = 0, sampled = 0;
            for (size_t s = 0; s < plan.sample_count; s++) {
                double t = (double)b->duration_ns[plan.samples[s].id];
                est += plan.samples[s].weight * t;
                sampled += t;
            }
            double e = fabs(est - total) / total;
            sum += e;
            max = fmax(max, e);
            inv += sampled / total;
            ks_plan_free(&plan);
        }
        assert_close(d.truth_total_ns, total, 1e-12);
        assert_close(d.truth_error_mean_pct, 100 * sum / iters, 1e-9);
        assert_close(d.truth_error_max_pct, 100 * max, 1e-9);
        assert_close(d.truth_speedup_hmean, iters / inv, 1e-9);
        /* B is not A: its error is not A's (the gemm kernel is sampled
         * differently than its new share of the time calls for) */
        assert_true(fabs(d.truth_error_mean_pct - r.error_mean_pct) > 1e-9);
        ks_eval_detail_free(&d);
    }
    ks_profile_free(a);
    ks_profile_free(b);
}

static void expect_refusal(const ks_profile *a, const ks_profile *b, const char *const *parts)
{
    ks_params pa = params("root", 0.05, 1);
    ks_eval_options opt = {b, "B.csv", 0, NULL};
    ks_eval_result r;
    ks_eval_detail d;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_evaluate_ex(a, &pa, 2, &opt, &r, &d, &err);
    assert_int_equal(st, KS_ERR_FORMAT);
    assert_string_equal(err.file, "B.csv");
    for (; *parts; parts++)
        if (!strstr(err.message, *parts))
            fail_msg("refusal \"%s\" lacks \"%s\"", err.message, *parts);
    assert_null(d.metrics);
}

static void test_truth_refused(void **state)
{
    (void)state;
    static const char *const names[] = {"ka", "ka", "kb", "ka", "kb", "ka"};
    static const int64_t ns[] = {100, 100, 50, 100, 50, 100};
    ks_profile *a = from_list(names, ns, 6);

    static const char *const other[] = {"ka", "ka", "kb", "kc", "kb", "ka"};
    ks_profile *b = from_list(other, ns, 6);
    expect_refusal(a, b, (const char *const[]){"cannot use as truth", "launch 3", "\"ka\"",
                                               "\"kc\"", NULL});
    ks_profile_free(b);

    b = from_list(names, ns, 5);
    expect_refusal(a, b, (const char *const[]){"5 kernel launches", "profile 6", NULL});
    ks_profile_free(b);

    static const int64_t zero[] = {0, 0, 0, 0, 0, 0};
    b = from_list(names, zero, 6);
    expect_refusal(a, b, (const char *const[]){"total kernel time is 0", NULL});
    ks_profile_free(b);

    /* launch dimensions that differ where both profiles have them */
    ks_profile *ga = ks_profile_new(), *gb = ks_profile_new();
    for (int i = 0; i < 4; i++) {
        uint32_t grid[3] = {8, 1, 1}, block[3] = {128, 1, 1}, other_grid[3] = {16, 1, 1};
        assert_int_equal(tu_append(ga, "k", 100 + i, grid, block), KS_OK);
        assert_int_equal(tu_append(gb, "k", 100 + i, i == 2 ? other_grid : grid, block), KS_OK);
    }
    expect_refusal(ga, gb, (const char *const[]){"launch 2", "grid (8, 1, 1)",
                                                 "grid (16, 1, 1)", NULL});
    ks_profile_free(ga);
    ks_profile_free(gb);

    /* a tracer's mangled names and a profiler's demangled ones line up */
    static const char *const mangled[] = {"_Z2kaPf", "_Z2kaPf", "_Z2kbv",
                                          "_Z2kaPf", "_Z2kbv",  "_Z2kaPf"};
    static const char *const demangled[] = {"void ka(float*)", "void ka(float*)", "kb()",
                                            "void ka(float*)", "kb()",            "void ka(float*)"};
    ks_profile *m = from_list(mangled, ns, 6), *dm = from_list(demangled, ns, 6);
    ks_params pa = params("root", 0.05, 1);
    ks_eval_options opt = {m, NULL, 0, NULL};
    ks_eval_result r;
    ks_eval_detail d;
    evaluate(dm, &pa, 2, &opt, &r, &d);
    assert_close(d.truth_error_max_pct, r.error_max_pct, 1e-12);
    ks_eval_detail_free(&d);
    ks_profile_free(m);
    ks_profile_free(dm);
    ks_profile_free(a);
}

/* A profile as its own truth: the truth figures are the profile's own. */
static void test_truth_self(void **state)
{
    (void)state;
    ks_profile *a = tu_named_workload(2, 30000, 9);
    assert_non_null(a);
    ks_params pa = params("root", 0.05, 3);
    ks_eval_options opt = {a, NULL, 0, NULL};
    ks_eval_result r;
    ks_eval_detail d;
    evaluate(a, &pa, 5, &opt, &r, &d);
    assert_close(d.truth_error_mean_pct, r.error_mean_pct, 1e-12);
    assert_close(d.truth_error_max_pct, r.error_max_pct, 1e-12);
    assert_close(d.truth_speedup_hmean, r.speedup_hmean, 1e-9);
    assert_close(d.truth_exceed_fraction, r.exceed_fraction, 0);
    ks_eval_detail_free(&d);
    ks_profile_free(a);
}

/* -------------------------------------------------------------- metrics */

static void add_metric(ks_profile *p, const char *name, const char *unit)
{
    ks_metric_column *col;
    ks_error err;
    ks_status st = ks_profile_metric(p, name, &col, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    if (unit) {
        col->unit = strdup(unit);
        assert_non_null(col->unit);
    }
}

static const ks_eval_metric *find_metric(const ks_eval_detail *d, const char *name)
{
    for (size_t m = 0; m < d->metric_count; m++)
        if (strcmp(d->metrics[m].name, name) == 0)
            return &d->metrics[m];
    return NULL;
}

static const ks_eval_skipped *find_skipped(const ks_eval_detail *d, const char *name)
{
    for (size_t m = 0; m < d->skipped_count; m++)
        if (strcmp(d->skipped[m].name, name) == 0)
            return &d->skipped[m];
    return NULL;
}

static void test_metric_errors(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(1, 20000, 4);
    assert_non_null(p);
    /* adding a column may move the others: take pointers after the last */
    add_metric(p, "dram__bytes_read.sum", "byte");
    add_metric(p, "smsp__inst_executed.sum", "inst");
    add_metric(p, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%");
    add_metric(p, "lts__t_bytes.sum", "byte");
    add_metric(p, "gpu__time_duration.max", "nsecond");
    ks_metric_column *prop = &p->metrics[0], *cst = &p->metrics[1], *pct = &p->metrics[2];
    ks_metric_column *part = &p->metrics[3], *gmax = &p->metrics[4];
    for (size_t i = 0; i < p->n; i++) {
        prop->values[i] = 3.0 * (double)p->duration_ns[i];
        cst->values[i] = 7;
        pct->values[i] = 50;
        part->values[i] = i == 17 ? NAN : 1;
        gmax->values[i] = (double)p->duration_ns[i];
    }
    const char *methods[] = {"root", "stem", "allegro", "random"};
    for (int m = 0; m < 4; m++) {
        ks_params pa = params(methods[m], 0.05, 21);
        ks_eval_options opt = {NULL, NULL, 1, NULL};
        ks_eval_result r;
        ks_eval_detail d;
        evaluate(p, &pa, 8, &opt, &r, &d);
        assert_false(d.has_truth);
        assert_int_equal(d.metric_count, 3);
        assert_int_equal(d.skipped_count, 2);
        const ks_eval_metric *x = find_metric(&d, "dram__bytes_read.sum");
        assert_non_null(x);
        assert_close(x->total, 3 * ks_profile_total_ns(p), 1e-12);
        assert_close(x->error_mean_pct, r.error_mean_pct, 1e-9);
        assert_close(x->error_max_pct, r.error_max_pct, 1e-9);
        /* gpu__ counters have one instance: .max is the launch's value */
        x = find_metric(&d, "gpu__time_duration.max");
        assert_non_null(x);
        assert_close(x->error_mean_pct, r.error_mean_pct, 1e-9);
        /* weights add up to the group sizes: a constant is exact */
        x = find_metric(&d, "smsp__inst_executed.sum");
        assert_non_null(x);
        assert_close(x->total, 7.0 * (double)p->n, 1e-12);
        assert_true(x->error_max_pct < 1e-9);
        const ks_eval_skipped *s =
            find_skipped(&d, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
        assert_non_null(s);
        assert_non_null(strstr(s->reason, "not additive"));
        s = find_skipped(&d, "lts__t_bytes.sum");
        assert_non_null(s);
        assert_string_equal(s->reason, "no value for 1 of 20000 launches");
        ks_eval_detail_free(&d);
    }
    ks_profile_free(p);
}

static void test_additive_rule(void **state)
{
    (void)state;
    static const struct {
        const char *name, *unit;
        int additive;
    } cases[] = {
        {"dram__bytes_read.sum", "byte", 1},
        {"smsp__inst_executed.sum", "inst", 1},
        {"gpu__time_duration.sum", "nsecond", 1},
        {"gpu__time_duration.max", "usecond", 1},
        {"gpu__time_duration", "nsecond", 1},
        {"sm__cycles_elapsed.avg", "cycle", 0},
        {"sm__cycles_elapsed.max", "cycle", 0},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 0},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", NULL, 0},
        {"dram__bytes.sum.per_second", "byte/second", 0},
        {"dram__bytes.sum.per_second", NULL, 0},
        {"smsp__thread_inst_executed_per_inst_executed.ratio", NULL, 0},
        {"sm__inst_executed.sum.peak_sustained", "inst/cycle", 0},
        {"launch__registers_per_thread", "register/thread", 0},
        {"launch__block_size", "", 0},
        {"launch__grid_size", "", 1},
        {"launch__thread_count", "thread", 1},
        {"device__attribute_max_threads_per_block", "", 0},
        {"profiler__replayer_passes", "", 0},
        {"dram__frequency", "hz", 0},
        {"sm__elapsed_cycles_avg", "cycle", 0},
        {"gpu__compute_memory_request_utilization_pct", "%", 0},
        {"Duration", "usecond", 1},
        {"Elapsed Cycles", "cycle", 1},
        {"Achieved Occupancy", "%", 0},
        {"Achieved Occupancy", NULL, 0},
        {"Registers Per Thread", "register/thread", 0},
        {"Block Size", "", 0},
        {"Grid Size", "", 1},
        {"Executed Ipc Active", "inst/cycle", 0},
        {"L1/TEX Hit Rate", NULL, 0},
        {"GPU Speed Of Light Throughput: Duration", "msecond", 1},
        {"GPU Speed Of Light Throughput: Memory Throughput", "%", 0},
        {"achieved_occupancy", NULL, 0},
        {"ipc", NULL, 0},
        {"warps", NULL, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = "unset";
        int got = ks_metric_is_additive(cases[i].name, cases[i].unit, &why);
        if (got != cases[i].additive)
            fail_msg("%s [%s]: additive %d, wanted %d", cases[i].name,
                     cases[i].unit ? cases[i].unit : "no unit", got, cases[i].additive);
        if (got)
            assert_null(why);
        else
            assert_true(why && why[0]);
    }
    assert_int_equal(ks_metric_is_additive("ipc", NULL, NULL), 0);
}

/* ---------------------------------------------------------------- sweep */

static void test_sweep_root_monotonic(void **state)
{
    (void)state;
    ks_profile *p = tu_named_workload(2, 50000, 13);
    assert_non_null(p);
    static const double eps[] = {0.2, 0.1, 0.05, 0.02, 0.01};
    double last = 0;
    for (size_t k = 0; k < 5; k++) {
        ks_params pa = params("root", eps[k], 1);
        ks_eval_result r;
        ks_eval_detail d;
        evaluate(p, &pa, 4, NULL, &r, &d);
        assert_close(r.bound_pct, 100 * eps[k], 1e-12);
        if (!(r.samples_mean >= last))
            fail_msg("root at epsilon %g: %g samples, fewer than %g at the looser bound",
                     eps[k], r.samples_mean, last);
        last = r.samples_mean;
        assert_int_equal(d.metric_count, 0);
        ks_eval_detail_free(&d);
    }
    ks_profile_free(p);
}

/* ------------------------------------------------------------- the CLI */


static yajl_val key(yajl_val obj, const char *name)
{
    const char *path[] = {name, NULL};
    return yajl_tree_get(obj, path, yajl_t_any);
}

/* eval --json with a sweep, a truth and metrics: one row per (method,
 * epsilon) with every documented key, random once with a null epsilon. */
static void test_cli_json(void **state)
{
    (void)state;
    const char *dir = in_dir("traces");
    ks_synth_traces_options o = {60, 3, NULL};
    ks_error err;
    ks_status st = ks_synth_traces_write(dir, &o, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    char args[4096];
    snprintf(args, sizeof args,
             "eval %s/time.csv --traces %s --metric-errors --truth %s/time.csv "
             "--epsilon 0.2,0.1,0.05 --methods root,random --iters 3 --json",
             dir, dir, dir);
    int status;
    char *out = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    char errbuf[256];
    yajl_val doc = yajl_tree_parse(out, errbuf, sizeof errbuf);
    if (!doc)
        fail_msg("not JSON (%s): %.300s", errbuf, out);
    assert_true(YAJL_IS_ARRAY(doc));
    assert_int_equal(doc->u.array.len, 4);
    static const char *const keys[] = {
        "method",          "epsilon",          "samples",
        "speedup_hmean",   "error_mean_pct",   "error_max_pct",
        "plan_seconds",    "fit_seconds",      "bound_pct",
        "exceed_fraction", "truth_error_mean_pct", "truth_error_max_pct",
        "truth_speedup_hmean", "truth_exceed_fraction", "metrics",
        "metrics_skipped", NULL};
    static const double want_eps[] = {0.2, 0.1, 0.05};
    for (size_t i = 0; i < 4; i++) {
        yajl_val row = doc->u.array.values[i];
        for (const char *const *k = keys; *k; k++)
            if (!key(row, *k))
                fail_msg("row %zu lacks \"%s\"", i, *k);
        const char *method = YAJL_GET_STRING(key(row, "method"));
        yajl_val eps = key(row, "epsilon");
        if (i < 3) {
            assert_string_equal(method, "root");
            assert_true(YAJL_IS_NUMBER(eps));
            assert_close(YAJL_GET_DOUBLE(eps), want_eps[i], 1e-12);
        } else {
            assert_string_equal(method, "random");
            assert_true(YAJL_IS_NULL(eps));
        }
        /* the profile is its own truth here */
        assert_close(YAJL_GET_DOUBLE(key(row, "truth_error_mean_pct")),
                     YAJL_GET_DOUBLE(key(row, "error_mean_pct")), 1e-5);
        yajl_val metrics = key(row, "metrics");
        assert_true(YAJL_IS_OBJECT(metrics));
        const char *path[] = {"smsp__inst_executed.sum", "error_mean_pct", NULL};
        assert_non_null(yajl_tree_get(metrics, path, yajl_t_number));
    }
    yajl_tree_free(doc);
    free(out);

    /* the table says what was evaluated once and what was not estimated */
    snprintf(args, sizeof args,
             "eval %s/time.csv --traces %s --metric-errors --epsilon 0.1,0.05 "
             "--methods root,random --iters 2",
             dir, dir);
    out = tmpdir_run_cli(args, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "random: promises no bound; evaluated once"));
    assert_non_null(strstr(out, "smsp__inst_executed.sum"));
    free(out);

    /* a bad bound in the list is a usage error that names it */
    snprintf(args, sizeof args, "eval %s/time.csv --epsilon 0.1,1.5", dir);
    out = tmpdir_run_cli(args, &status);
    assert_int_equal(WEXITSTATUS(status), KS_ERR_USAGE);
    free(out);
    size_t n;
    char *msg = read_file(in_dir("stderr.txt"), &n);
    assert_non_null(strstr(msg, "'1.5'"));
    free(msg);
}

/* ------------------------------------------------------------- real data */

/* Nsight Compute's raw page of a GTX 1080 run, attached to a time profile of
 * its three launches: the counts are estimated, rates and device attributes
 * are not. */
static void test_real_ncu_metrics(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/ncu/gtx1080-vectoradd-raw.csv", KS_SHARED_DATA);
    FILE *f = fopen(path, "rb");
    if (!f)
        skip();
    fclose(f);
    static const char *const names[] = {"vecAdd", "vecAdd", "vecAdd"};
    static const int64_t ns[] = {2720, 2600, 3100};
    ks_profile *p = from_list(names, ns, 3);
    ks_error err;
    ks_status st = ks_profile_attach(p, KS_SOURCE_METRICS, path, &err);
    if (st != KS_OK)
        fail_with(st, &err);
    ks_params pa = params("root", 0.05, 1);
    ks_eval_options opt = {NULL, NULL, 1, NULL};
    ks_eval_result r;
    ks_eval_detail d;
    evaluate(p, &pa, 3, &opt, &r, &d);
    assert_int_equal(d.metric_count + d.skipped_count, p->metric_count);
    static const char *const estimated[] = {"dram__read_bytes", "smsp__inst_executed_sum",
                                            "launch__grid_size", "gpu__time_duration", NULL};
    for (const char *const *m = estimated; *m; m++)
        if (!find_metric(&d, *m))
            fail_msg("%s not estimated", *m);
    static const char *const skipped[] = {
        "dram__frequency", "sm__elapsed_cycles_avg", "gpu__compute_memory_request_utilization_pct",
        "sm__inst_executed_avg_per_active_cycle", "device__attribute_max_threads_per_block",
        "launch__block_size", NULL};
    for (const char *const *m = skipped; *m; m++)
        if (!find_skipped(&d, *m))
            fail_msg("%s estimated", *m);
    ks_eval_detail_free(&d);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-eval",
                    test_truth_by_hand,
                    test_truth_rederived,
                    test_truth_refused,
                    test_truth_self,
                    test_metric_errors,
                    test_additive_rule,
                    test_sweep_root_monotonic,
                    test_cli_json,
                    test_real_ncu_metrics)
