/*
 * test_report.c - the HTML report (lib/report): escaping, axes, what a page
 * holds for an in-memory profile and plan (one histogram per kernel, one
 * band per cluster, one dot per sample, a log axis where durations span
 * decades), a plan of another profile refused, the estimate JSON reader, and
 * the score JSON reader with the measured curves it feeds.
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

#include "ksample.h"
#include "svg.h"
#include "tmpdir.h"
#include "test_util.h"

/* Runs fn into a memory stream and returns the text (caller frees). */
static char *capture_escape(const char *s, size_t max)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    ks_html_escape_cut(f, s, max);
    fclose(f);
    return buf;
}

static void test_escape(void **state)
{
    (void)state;
    char *s = capture_escape("void k<float, 2>(a&b, \"q\", 'c')", (size_t)-1);
    assert_string_equal(s, "void k&lt;float, 2&gt;(a&amp;b, &quot;q&quot;, &#39;c&#39;)");
    free(s);
    s = capture_escape("abcdef", 3);
    assert_string_equal(s, "abc...");
    free(s);
    s = capture_escape("\xC2\xB5\xC2\xB5x", 2); /* characters, not bytes */
    assert_string_equal(s, "\xC2\xB5\xC2\xB5...");
    free(s);
    s = capture_escape("a\x01" "b", (size_t)-1); /* not allowed in XML */
    assert_string_equal(s, "a?b");
    free(s);
}

static void test_axes_and_units(void **state)
{
    (void)state;
    ks_svg_axis a = {.lo = 0.3, .hi = 9.7, .log = false, .from = 0, .to = 100, .unit = 1};
    ks_svg_axis_nice(&a);
    assert_true(a.lo == 0 && a.hi == 10);
    assert_true(fabs(ks_svg_map(&a, 5) - 50) < 1e-9);
    ks_svg_axis l = {.lo = 10, .hi = 1e5, .log = true, .from = 100, .to = 0, .unit = 1};
    ks_svg_axis_nice(&l);
    assert_true(l.lo < 10 && l.hi > 1e5);
    /* log: equal ratios, equal distances; y runs upwards */
    double d1 = ks_svg_map(&l, 100) - ks_svg_map(&l, 1000);
    double d2 = ks_svg_map(&l, 1000) - ks_svg_map(&l, 10000);
    assert_true(fabs(d1 - d2) < 1e-9 && d1 > 0);
    /* a degenerate range still maps inside */
    ks_svg_axis z = {.lo = 5, .hi = 5, .from = 0, .to = 100, .unit = 1};
    ks_svg_axis_nice(&z);
    assert_true(z.lo < 5 && z.hi > 5);
    const char *name;
    assert_true(ks_duration_unit(999, &name) == 1 && strcmp(name, "ns") == 0);
    assert_true(ks_duration_unit(5e4, &name) == 1e3);
    assert_true(ks_duration_unit(1.07e9, &name) == 1e9 && strcmp(name, "s") == 0);
    char buf[32];
    ks_format_duration(1.5e6, buf, sizeof buf);
    assert_string_equal(buf, "1.5 ms");
}

static void add(ks_profile *p, const char *name, int64_t ns)
{
    ks_error err;
    uint32_t id;
    assert_int_equal(ks_profile_intern(p, name, strlen(name), &id, &err), KS_OK);
    ks_invocation inv;
    ks_invocation_init(&inv);
    inv.duration_ns = ns;
    inv.name_id = id;
    assert_int_equal(ks_profile_append(p, &inv, &err), KS_OK);
}

/* Three kernels; "wide<T>&" spans four decades of duration. */
static ks_profile *make_profile(void)
{
    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    for (int i = 0; i < 400; i++) {
        add(p, "wide<T>&(int)", i % 2 ? 1000 + i : 5000000 + 100 * i);
        add(p, "narrow", 20000 + (i % 10) * 10);
        if (i % 4 == 0)
            add(p, "rare", 700 + i);
    }
    snprintf(p->source_path, sizeof p->source_path, "mem<1>.csv");
    snprintf(p->source_format, sizeof p->source_format, "test");
    return p;
}

static ks_status html_writer(const void *in, FILE *f, ks_error *err)
{
    return ks_report_write_html(in, f, err);
}

static char *render(const ks_report_input *in, ks_status want)
{
    return tu_written(html_writer, in, want, NULL);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_page_with_plan(void **state)
{
    (void)state;
    ks_profile *p = make_profile();
    ks_params pa;
    ks_params_init(&pa);
    ks_plan plan;
    ks_error err;
    assert_int_equal(ks_plan_build(p, &pa, &plan, &err), KS_OK);
    ks_report_input in = {.profile = p, .plan = &plan};
    char *html = render(&in, KS_OK);
    assert_int_equal(count(html, "<svg id=\"hist-"), 3);
    assert_null(strstr(html, "id=\"speedup-error\"")); /* no methods given */
    assert_null(strstr(html, "id=\"estimate-interval\""));
    /* one band per cluster, one dot per distinct sample (+1 each in legends) */
    assert_int_equal(count(html, "<rect class=\"band"), plan.cluster_count + 3);
    assert_int_equal(count(html, "<circle class=\"sample\""), plan.sample_count + 3);
    assert_non_null(strstr(html, "kernel duration (ms, log scale)"));
    assert_non_null(strstr(html, "kernel duration (\xC2\xB5s)")); /* narrow: linear */
    assert_non_null(strstr(html, ">wide&lt;T&gt;&amp;<"));
    assert_null(strstr(html, "wide<T>"));
    assert_non_null(strstr(html, "mem&lt;1&gt;.csv"));
    free(html);

    /* top_kernels limits the histograms, most time first */
    in.top_kernels = 1;
    html = render(&in, KS_OK);
    assert_int_equal(count(html, "<svg id=\"hist-"), 1);
    assert_non_null(strstr(html, ">wide&lt;T&gt;&amp;<"));
    free(html);

    /* a plan of another profile is not drawn */
    in.top_kernels = 0;
    plan.population++;
    html = render(&in, KS_OK);
    assert_non_null(strstr(html, "made from another profile"));
    assert_int_equal(count(html, "<circle class=\"sample\""), 0);
    plan.population--;
    free(html);
    ks_plan_free(&plan);
    ks_profile_free(p);
}

static void test_page_with_methods_and_estimates(void **state)
{
    (void)state;
    ks_profile *p = make_profile();
    ks_eval_result methods[2] = {
        {.method = "root", .iters = 3, .speedup_hmean = 12, .error_mean_pct = 0.5,
         .error_max_pct = 1, .bound_pct = 5},
        {.method = "random", .iters = 3, .speedup_hmean = INFINITY, .error_mean_pct = 30,
         .error_max_pct = 50}};
    ks_sweep_point sweep[2] = {{0.05, methods[0]}, {0.1, methods[0]}};
    sweep[1].result.speedup_hmean = 20;
    ks_estimate_row rows[2] = {
        {"cycles", 1345307.4, 1234567, 1456789, 0.1, 1, 1, "none", "values", "cold <caches>", 0,
         "cycles", 0.02, 39, 0.075, 3.75, 0.66, "21% resid<ual> (borrowed), 15% attn"},
        {"x<y>", 0, NAN, NAN, NAN, -1, 0, "none", "none", "chosen representatives", 0, "", NAN,
         NAN, NAN, NAN, NAN, ""}};
    ks_report_input in = {.profile = p, .methods = methods, .method_count = 2, .sweep = sweep,
                          .sweep_count = 2, .estimates = rows, .estimate_count = 2,
                          .title = "t & t", .command = "ksample report a.csv -o 'r&.html'"};
    char *html = render(&in, KS_OK);
    static const char *ids[] = {"speedup-error", "sweep-speedup", "sweep-error",
                                "estimate-interval"};
    for (size_t i = 0; i < 4; i++) {
        char want[64];
        snprintf(want, sizeof want, "<svg id=\"%s\"", ids[i]);
        assert_non_null(strstr(html, want));
    }
    assert_non_null(strstr(html, "<title>ksample report: t &amp; t</title>"));
    assert_non_null(strstr(html, ">x&lt;y&gt;<"));
    /* counts as integers with separators; what the command says of the
     * intervals, the warm-up and the command that writes the page */
    assert_non_null(strstr(html, "<td>1,345,307</td><td>1,234,567</td><td>1,456,789</td>"));
    assert_non_null(strstr(html, "<dt>warm-up</dt><dd>none (each launch simulated from cold"));
    /* what the simulation cost, as estimate says it */
    assert_non_null(strstr(html, "<dt>cost</dt><dd>the simulated launches' cycles add up to 2% "
                                 "of its estimated total (50x cheaper than simulating every "
                                 "launch; the profile predicted 39x); with the warm-up "
                                 "kernels 7.5% (13.3x cheaper), 3.75x the launches' own "
                                 "cycles</dd>"));
    assert_non_null(strstr(html, "<dd>of the values only: cold &lt;caches&gt;</dd>"));
    assert_non_null(strstr(html, "<dt>no interval</dt><dd>chosen representatives</dd>"));
    /* where the variance is, escaped, once (the second row says nothing) */
    assert_non_null(strstr(html, "<dt>variance of cycles</dt><dd>21% resid&lt;ual&gt; "
                                 "(borrowed), 15% attn; 66% of it in kernels"));
    assert_null(strstr(strstr(html, "<dt>variance of") + 1, "<dt>variance of"));
    assert_non_null(strstr(html, "<code>ksample report a.csv -o &#39;r&amp;.html&#39;</code>") ||
                    strstr(html, "<code>ksample report a.csv -o 'r&amp;.html'</code>"));
    assert_null(strstr(html, "nan")); /* missing numbers are dashes, not "nan" */
    assert_null(strstr(html, "inf"));
    free(html);

    ks_profile *empty = ks_profile_new();
    ks_report_input none = {.profile = empty};
    free(render(&none, KS_ERR_FORMAT));
    ks_profile_free(empty);
    ks_profile_free(p);
}

static void test_estimate_rows(void **state)
{
    (void)state;
    const char *path = write_text(
        "est.json", "[{\"metric\": \"gpu_sim_cycle\", \"estimate\": 10, \"ci_low\": 9, "
                    "\"ci_high\": 11, \"rel_halfwidth\": 0.1, \"bound_met\": true, \"kind\": \"count\","
                    " \"warmup\": \"state\", \"interval\": \"values\", \"interval_note\": \"why\","
                    " \"variance_borrowed_share\": 0.66, \"variance_by_kernel\": [{\"kernel\": \"a\","
                    " \"share\": 0.21, \"own_strata\": false}, {\"kernel\": \"b\", \"share\": 0.15,"
                    " \"own_strata\": true}]},"
                    " {\"metric\": \"ipc\", \"estimate\": 2.5, \"ci_low\": null, \"ci_high\": 3,"
                    " \"rel_halfwidth\": 0.2, \"bound_met\": false, \"extra\": [1]},"
                    " {\"metric\": \"L2_BW_like\", \"estimate\": 7, \"ci_low\": 1, \"ci_high\": 9,"
                    " \"rel_halfwidth\": 0.5, \"default\": false},"
                    " {\"metric\": \"m\", \"estimate\": 1, \"ci_low\": 1, \"ci_high\": 1,"
                    " \"rel_halfwidth\": 0, \"default\": true}]");
    ks_estimate_row *rows;
    size_t n;
    ks_error err;
    assert_int_equal(ks_estimate_rows_read(path, &rows, &n, &err), KS_OK);
    assert_int_equal(n, 3); /* the row that is not a default one is left out */
    assert_string_equal(rows[2].metric, "m");
    assert_string_equal(rows[0].metric, "gpu_sim_cycle");
    assert_true(rows[0].ci_high == 11 && rows[0].bound_met == 1);
    assert_true(rows[0].count && strcmp(rows[0].warmup, "state") == 0 &&
                strcmp(rows[0].interval, "values") == 0 &&
                strcmp(rows[0].interval_note, "why") == 0);
    assert_true(rows[0].borrowed_share == 0.66);
    assert_string_equal(rows[0].variance_by, "21% a (borrowed), 15% b");
    assert_true(isnan(rows[1].borrowed_share) && rows[1].variance_by[0] == '\0');
    assert_true(!rows[1].count && rows[1].warmup[0] == '\0' && rows[1].interval[0] == '\0');
    assert_true(isnan(rows[1].ci_low) && rows[1].bound_met == 0);
    assert_int_equal(rows[2].bound_met, -1);
    free(rows);
    static const char *const bad[] = {"{}", "[1]", "[{\"metric\": 1}]",
                                      "[{\"metric\": \"m\", \"estimate\": \"1\"}]",
                                      "[{\"metric\": \"m\"}]", "[", "nul",
                                      "[{\"metric\": \"m\", \"estimate\": 1, \"ci_low\": 1, "
                                      "\"ci_high\": 1, \"rel_halfwidth\": 0, "
                                      "\"variance_by_kernel\": [{\"share\": 1}]}]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path = write_text("bad.json", bad[i]);
        ks_error_clear(&err);
        assert_int_equal(ks_estimate_rows_read(path, &rows, &n, &err), KS_ERR_FORMAT);
        assert_string_equal(err.file, path);
        assert_null(rows);
    }
    assert_int_equal(ks_estimate_rows_read(in_dir("none.json"), &rows, &n, &err), KS_ERR_IO);
}


static const char SCORE_JSON[] =
    "{\"truth\": 1000, \"methods\": [\n"
    " {\"method\": \"root\", \"bound\": 0.05, \"plans\": 10, \"sets\": [\n"
    "  {\"values\": \"context\", \"launches_mean\": 14, \"speedup_hmean\": 100,"
    " \"error_mean\": 0.02, \"error_signed_mean\": -0.01, \"error_max\": 0.07,"
    " \"coverage\": null},\n"
    "  {\"values\": \"alone\", \"launches_mean\": 14, \"speedup_hmean\": 90,"
    " \"error_mean\": 0.2, \"error_signed_mean\": -0.2, \"error_max\": 0.3,"
    " \"coverage\": 0.5},\n"
    "  {\"values\": \"context\", \"estimator\": \"ratio\", \"launches_mean\": 14,"
    " \"speedup_hmean\": 100, \"error_mean\": 0.01}]},\n"
    " {\"method\": \"gcl\", \"bound\": 0, \"plans\": 1, \"sets\": [\n"
    "  {\"values\": \"context\", \"estimator\": \"plain\", \"launches_mean\": 8,"
    " \"speedup_hmean\": 178, \"error_mean\": 0.08}]}]}\n";

/* SCORE_JSON written as score.json (its path in *path, unless NULL) and
 * read: its 4 points (free them), the truth in *truth. */
static ks_score_point *score_points(const char **path, double *truth)
{
    const char *written = write_text("score.json", SCORE_JSON);
    if (path)
        *path = written;
    ks_score_point *pts;
    size_t n;
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_score_points_read(written, NULL, truth, &pts, &n, &err), KS_OK);
    assert_int_equal(n, 4);
    return pts;
}

static void test_score_points(void **state)
{
    (void)state;
    const char *path;
    double truth;
    ks_score_point *pts = score_points(&path, &truth);
    size_t n;
    ks_error err;
    ks_error_clear(&err);
    assert_true(truth == 1000);
    assert_string_equal(pts[0].series, "root");
    assert_string_equal(pts[0].values, "context");
    assert_true(pts[0].speedup_hmean == 100 && pts[0].error_mean == 0.02 &&
                pts[0].error_signed_mean == -0.01 && pts[0].error_max == 0.07);
    assert_true(isnan(pts[0].coverage)); /* null: no interval formed */
    assert_string_equal(pts[1].values, "alone");
    assert_true(pts[1].coverage == 0.5);
    assert_string_equal(pts[2].series, "root (ratio)");
    assert_true(isnan(pts[2].error_max)); /* optional, absent */
    assert_string_equal(pts[3].series, "gcl"); /* the plain estimator is not named */
    free(pts);
    /* a label: before each method's name when the file holds several */
    assert_int_equal(ks_score_points_read(path, "k8", &truth, &pts, &n, &err), KS_OK);
    assert_string_equal(pts[0].series, "k8 root");
    assert_string_equal(pts[3].series, "k8 gcl");
    free(pts);
    /* in place of it when one */
    path = write_text("one.json", "{\"truth\": 5, \"methods\": [{\"method\": \"root\", "
                                  "\"sets\": [{\"values\": \"context\", \"launches_mean\": 1, "
                                  "\"speedup_hmean\": 5, \"error_mean\": 0}]}]}");
    assert_int_equal(ks_score_points_read(path, "pooled <p>", &truth, &pts, &n, &err), KS_OK);
    assert_int_equal(n, 1);
    assert_string_equal(pts[0].series, "pooled <p>");
    free(pts);
    static const char *const bad[] = {
        "[]", "{\"methods\": []}", "{\"truth\": 0, \"methods\": []}",
        "{\"truth\": 5}", "{\"truth\": 5, \"methods\": []}",
        "{\"truth\": 5, \"methods\": [1]}",
        "{\"truth\": 5, \"methods\": [{\"sets\": []}]}",
        "{\"truth\": 5, \"methods\": [{\"method\": \"r\"}]}",
        "{\"truth\": 5, \"methods\": [{\"method\": \"r\", \"sets\": [{\"launches_mean\": 1, "
        "\"speedup_hmean\": 5, \"error_mean\": 0}]}]}",
        "{\"truth\": 5, \"methods\": [{\"method\": \"r\", \"sets\": [{\"values\": \"c\", "
        "\"launches_mean\": 1, \"error_mean\": 0}]}]}",
        "{\"truth\": 5, \"methods\": [{\"method\": \"r\", \"sets\": [{\"values\": \"c\", "
        "\"launches_mean\": 1, \"speedup_hmean\": \"5\", \"error_mean\": 0}]}]}",
        "{\"truth\": 5, \"methods\": [{\"method\": \"r\", \"sets\": [{\"values\": \"c\", "
        "\"launches_mean\": 1, \"speedup_hmean\": 5, \"error_mean\": -1}]}]}",
        "{\"truth\": 5, \"methods\": [{\"method\": \"r\", \"sets\": [{\"values\": \"c\", "
        "\"launches_mean\": 1, \"speedup_hmean\": 5, \"error_mean\": 0, \"coverage\": 2}]}]}",
        "{\"truth\": 5, \"methods\": [", "nul"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path = write_text("bad.json", bad[i]);
        ks_error_clear(&err);
        pts = (ks_score_point *)&n; /* must be reset */
        assert_int_equal(ks_score_points_read(path, NULL, &truth, &pts, &n, &err),
                         KS_ERR_FORMAT);
        assert_string_equal(err.file, path);
        assert_null(pts);
        assert_int_equal(n, 0);
    }
    assert_int_equal(ks_score_points_read(in_dir("none.json"), NULL, &truth, &pts, &n, &err),
                     KS_ERR_IO);
    assert_int_equal(ks_score_points_read(path, "", &truth, &pts, &n, &err), KS_ERR_USAGE);
}

static void test_page_with_scores(void **state)
{
    (void)state;
    ks_profile *p = make_profile();
    double truth;
    ks_score_point *pts = score_points(NULL, &truth);
    /* a second file: the same series at another speedup, and a label to escape */
    ks_score_point more[3] = {pts[0], pts[0], pts[3]};
    more[0].speedup_hmean = 40;
    more[0].error_mean = 0.005;
    more[1].speedup_hmean = NAN; /* not drawn, a dash in the table */
    snprintf(more[2].series, sizeof more[2].series, "a<&>b");
    ks_score_point all[7];
    memcpy(all, pts, 4 * sizeof *pts);
    memcpy(all + 4, more, sizeof more);
    free(pts);
    ks_report_input in = {.profile = p, .scores = all, .score_count = 7, .score_truth = truth};
    char *html = render(&in, KS_OK);
    /* one chart per set of values, in order of first appearance */
    assert_non_null(strstr(html, "<svg id=\"score-0\""));
    assert_non_null(strstr(html, "<svg id=\"score-1\""));
    assert_null(strstr(html, "<svg id=\"score-2\""));
    assert_non_null(strstr(html, "Measured speedup against error: context values"));
    assert_non_null(strstr(html, "Measured speedup against error: alone values"));
    assert_non_null(strstr(html, "full run&#39;s 1000 cycles"));
    /* every usable point drawn once, every point a table row */
    assert_int_equal(count(html, "<circle class=\"score-point\""), 6);
    assert_int_equal(count(html, "<tr class=\"score-row\">"), 7);
    /* root's context curve runs through its two points in order of speedup */
    const char *ctx = strstr(html, "<svg id=\"score-0\"");
    const char *root = strstr(ctx, "<g><title>root</title><polyline");
    assert_non_null(root);
    const char *pts_attr = strstr(root, "points=\"") + 8;
    double x0, y0, x1, y1;
    assert_int_equal(sscanf(pts_attr, "%lf,%lf %lf,%lf\"", &x0, &y0, &x1, &y1), 4);
    assert_true(x0 < x1);
    assert_true(y0 > y1); /* 0.5 % at 40x is below 2 % at 100x: y runs downwards */
    assert_non_null(strstr(html, ">a&lt;&amp;&gt;b<"));
    assert_null(strstr(html, "a<&>b"));
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf"));
    assert_null(strstr(html, "stroke-dasharray=\"6 3\""));
    free(html);
    /* nine series: the ninth shares the first's colour, and is dashed */
    ks_score_point nine[9];
    for (size_t i = 0; i < 9; i++) {
        nine[i] = all[0];
        snprintf(nine[i].series, sizeof nine[i].series, "s%zu", i);
    }
    in.scores = nine;
    in.score_count = 9;
    html = render(&in, KS_OK);
    assert_int_equal(count(html, "stroke-dasharray=\"6 3\""), 1);
    assert_non_null(strstr(html, "<g><title>s8</title><polyline class=\"trace\" stroke=\"#0072B2\" "
                                 "stroke-dasharray"));
    free(html);
    ks_profile_free(p);
}

KS_TMPDIR_TEST_MAIN("ks-test-report",
                    test_escape,
                    test_axes_and_units,
                    test_page_with_plan,
                    test_page_with_methods_and_estimates,
                    test_estimate_rows,
                    test_score_points,
                    test_page_with_scores)
