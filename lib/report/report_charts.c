/*
 * report_charts.c - the methods' charts: speedup against error (the STEM
 * paper's Figure 9), speedup and error against the bound epsilon (its
 * Figure 11), and the estimates with their confidence intervals.
 */
#include "report_internal.h"

#include <math.h>
#include <string.h>

#define CHART_W 640
#define CHART_H 320

static bool usable(const ks_eval_result *r)
{
    return isfinite(r->speedup_hmean) && r->speedup_hmean > 0 && isfinite(r->error_mean_pct) &&
           isfinite(r->error_max_pct);
}

/* Index of a method name among the first `count` results, for its colour. */
static size_t method_colour(const ks_report_input *in, const char *name)
{
    for (size_t i = 0; i < in->method_count; i++)
        if (strcmp(in->methods[i].method, name) == 0)
            return i;
    for (size_t i = 0; i < in->sweep_count; i++)
        if (strcmp(in->sweep[i].result.method, name) == 0)
            return in->method_count + i;
    return 0;
}

/* Labels already placed in one chart, so a new one moves down instead of
 * overprinting (methods often end at nearly the same point). */
typedef struct label_places {
    double x[64], y[64];
    size_t n;
} label_places;

static double free_label_y(label_places *lp, double x, double y)
{
    for (int tries = 0; tries < 8; tries++) {
        bool clash = false;
        for (size_t i = 0; i < lp->n; i++)
            if (fabs(lp->x[i] - x) < 60 && fabs(lp->y[i] - y) < 12)
                clash = true;
        if (!clash)
            break;
        y += 12;
    }
    if (lp->n < 64) {
        lp->x[lp->n] = x;
        lp->y[lp->n++] = y;
    }
    return y;
}

static void grow(double v, double *lo, double *hi)
{
    *lo = v < *lo ? v : *lo;
    *hi = v > *hi ? v : *hi;
}

static void marker(FILE *f, double x, double y, const char *colour, bool hollow)
{
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\" "
               "stroke-width=\"1.5\"/>",
            x, y, hollow ? "3" : "5", hollow ? "white" : colour, colour);
}

static void dashed_bound(FILE *f, const ks_svg_axis *x, const ks_svg_axis *y, double pct)
{
    if (!(pct > 0) || pct > y->hi)
        return;
    double py = ks_svg_map(y, pct);
    fprintf(f,
            "<line class=\"bound\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">bound %.3g%%</text>\n",
            x->from, py, x->to, py, x->to - 4, py - 4, pct);
}

/* The sweep's points of one method joined by a line, for the trade-off. */
static void sweep_trace(FILE *f, const ks_report_input *in, const char *name, const ks_svg_axis *x,
                        const ks_svg_axis *y, const char *colour)
{
    bool first = true;
    for (size_t i = 0; i < in->sweep_count; i++) {
        const ks_eval_result *r = &in->sweep[i].result;
        if (strcmp(r->method, name) != 0 || !usable(r))
            continue;
        if (first)
            fprintf(f, "<polyline class=\"trace\" stroke=\"%s\" points=\"", colour);
        fprintf(f, "%s%.1f,%.1f", first ? "" : " ", ks_svg_map(x, r->speedup_hmean),
                ks_svg_map(y, r->error_mean_pct));
        first = false;
    }
    if (!first)
        fprintf(f, "\"/>\n");
}

static double positive_min_error(const ks_report_input *in)
{
    double lo = INFINITY;
    for (size_t i = 0; i < in->method_count; i++)
        if (usable(&in->methods[i]) && in->methods[i].error_mean_pct > 0)
            lo = fmin(lo, in->methods[i].error_mean_pct);
    for (size_t i = 0; i < in->sweep_count; i++)
        if (usable(&in->sweep[i].result) && in->sweep[i].result.error_mean_pct > 0)
            lo = fmin(lo, in->sweep[i].result.error_mean_pct);
    return isfinite(lo) ? lo : 0;
}

void ks_report_speedup_error(FILE *f, const ks_report_input *in)
{
    ks_svg_axis x = {INFINITY, 0, true, 70, CHART_W - 110, 1, "speedup (x, log scale)", false};
    ks_svg_axis y = {0, 0, false, CHART_H - 46, 48, 1, "error of the total time (%)", false};
    double bound = 0;
    for (size_t i = 0; i < in->method_count; i++) {
        const ks_eval_result *r = &in->methods[i];
        if (!usable(r))
            continue;
        grow(r->speedup_hmean, &x.lo, &x.hi);
        grow(r->error_max_pct, &y.lo, &y.hi);
        bound = r->bound_pct > bound ? r->bound_pct : bound;
    }
    for (size_t i = 0; i < in->sweep_count; i++)
        if (usable(&in->sweep[i].result)) {
            grow(in->sweep[i].result.speedup_hmean, &x.lo, &x.hi);
            grow(in->sweep[i].result.error_mean_pct, &y.lo, &y.hi);
        }
    if (!(x.hi > 0))
        x.lo = 1, x.hi = 10;
    y.hi = y.hi > bound ? y.hi : bound;
    /* errors often span decades (a bounded method's 0.1 % next to random's
     * 30 %): a log axis keeps the good methods apart */
    double ylo = positive_min_error(in);
    if (ylo > 0 && y.hi / ylo >= 30) {
        y.log = true;
        y.lo = ylo;
        y.label = "error of the total time (%, log scale)";
    }
    ks_svg_axis_nice(&x);
    ks_svg_axis_nice(&y);
    ks_svg_open(f, "speedup-error", CHART_W, CHART_H, "Speedup against error",
                "dot: mean error over the iterations; whisker: largest error; "
                "hollow: the epsilon sweep");
    ks_svg_frame(f, &x, &y);
    dashed_bound(f, &x, &y, bound);
    label_places lp = {.n = 0};
    for (size_t i = 0; i < in->method_count; i++) {
        const ks_eval_result *r = &in->methods[i];
        const char *colour = ks_svg_colour(i);
        sweep_trace(f, in, r->method, &x, &y, colour);
        if (!usable(r))
            continue;
        double px = ks_svg_map(&x, r->speedup_hmean);
        double pm = ks_svg_map(&y, r->error_mean_pct), pmax = ks_svg_map(&y, r->error_max_pct);
        fprintf(f, "<g><title>%s: speedup %.3gx, error mean %.3g%%, max %.3g%%</title>",
                r->method, r->speedup_hmean, r->error_mean_pct, r->error_max_pct);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                   "stroke-width=\"2\"/>",
                px, pm, px, pmax, colour);
        marker(f, px, pm, colour, false);
        fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", px + 8,
                free_label_y(&lp, px + 8, pm + 4), colour);
        ks_html_escape(f, r->method);
        fprintf(f, "</text></g>\n");
    }
    for (size_t i = 0; i < in->sweep_count; i++) {
        const ks_eval_result *r = &in->sweep[i].result;
        if (usable(r))
            marker(f, ks_svg_map(&x, r->speedup_hmean), ks_svg_map(&y, r->error_mean_pct),
                   ks_svg_colour(method_colour(in, r->method)), true);
    }
    ks_svg_close(f);
}

/* Method names of the sweep in order of first appearance. */
static size_t sweep_methods(const ks_report_input *in, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < in->sweep_count; i++) {
        const char *m = in->sweep[i].result.method;
        size_t k = 0;
        while (k < n && strcmp(names[k], m) != 0)
            k++;
        if (k == n && n < max)
            names[n++] = m;
    }
    return n;
}

static double sweep_value(const ks_eval_result *r, bool speedup)
{
    return speedup ? r->speedup_hmean : r->error_mean_pct;
}

static void sweep_chart(FILE *f, const ks_report_input *in, bool speedup)
{
    ks_svg_axis x = {INFINITY, 0, false, 70, CHART_W - 110, 1, "", false};
    ks_svg_axis y = {speedup ? INFINITY : 0, 0, speedup, CHART_H - 46, 48, 1,
                     speedup ? "speedup (x, log scale)" : "error of the total time (%)", false};
    for (size_t i = 0; i < in->sweep_count; i++) {
        const ks_sweep_point *s = &in->sweep[i];
        if (!usable(&s->result) || !(s->epsilon > 0))
            continue;
        grow(100 * s->epsilon, &x.lo, &x.hi);
        grow(sweep_value(&s->result, speedup), &y.lo, &y.hi);
    }
    x.log = x.lo > 0 && x.hi / x.lo >= 10;
    x.label = x.log ? "error bound epsilon (%, log scale)" : "error bound epsilon (%)";
    if (!speedup)
        y.hi = y.hi > x.hi ? y.hi : x.hi; /* room for the bound line */
    ks_svg_axis_nice(&x);
    ks_svg_axis_nice(&y);
    ks_svg_open(f, speedup ? "sweep-speedup" : "sweep-error", CHART_W, CHART_H,
                speedup ? "Speedup against the error bound" : "Error against the error bound",
                speedup ? "harmonic mean over the iterations"
                        : "mean over the iterations; dashed: error = bound");
    ks_svg_frame(f, &x, &y);
    if (!speedup) {
        double hi = x.hi < y.hi ? x.hi : y.hi;
        fprintf(f, "<line class=\"bound\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                ks_svg_map(&x, x.lo), ks_svg_map(&y, x.lo), ks_svg_map(&x, hi),
                ks_svg_map(&y, hi));
    }
    const char *names[16];
    size_t n = sweep_methods(in, names, 16);
    label_places lp = {.n = 0};
    for (size_t m = 0; m < n; m++) {
        const char *colour = ks_svg_colour(method_colour(in, names[m]));
        fprintf(f, "<g><title>%s</title><polyline class=\"trace\" stroke=\"%s\" points=\"",
                names[m], colour);
        double lx = 0, ly = 0;
        bool any = false;
        for (size_t i = 0; i < in->sweep_count; i++) {
            const ks_sweep_point *s = &in->sweep[i];
            if (strcmp(s->result.method, names[m]) != 0 || !usable(&s->result))
                continue;
            lx = ks_svg_map(&x, 100 * s->epsilon);
            ly = ks_svg_map(&y, sweep_value(&s->result, speedup));
            fprintf(f, "%s%.1f,%.1f", any ? " " : "", lx, ly);
            any = true;
        }
        fprintf(f, "\"/>");
        for (size_t i = 0; i < in->sweep_count; i++) {
            const ks_sweep_point *s = &in->sweep[i];
            if (strcmp(s->result.method, names[m]) == 0 && usable(&s->result))
                marker(f, ks_svg_map(&x, 100 * s->epsilon),
                       ks_svg_map(&y, sweep_value(&s->result, speedup)), colour, false);
        }
        if (any) {
            fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", lx + 8,
                    free_label_y(&lp, lx + 8, ly + 4), colour);
            ks_html_escape(f, names[m]);
            fprintf(f, "</text>");
        }
        fprintf(f, "</g>\n");
    }
    ks_svg_close(f);
}

void ks_report_sweep(FILE *f, const ks_report_input *in)
{
    sweep_chart(f, in, true);
    sweep_chart(f, in, false);
}

/* Each metric's interval relative to its estimate, so that metrics of any
 * magnitude share one axis. */
void ks_report_estimate_chart(FILE *f, const ks_report_input *in)
{
    double reach = 0;
    for (size_t i = 0; i < in->estimate_count; i++) {
        const ks_estimate_row *r = &in->estimates[i];
        if (r->estimate != 0 && isfinite(r->ci_low) && isfinite(r->ci_high)) {
            double lo = fabs(r->ci_low / r->estimate - 1), hi = fabs(r->ci_high / r->estimate - 1);
            reach = fmax(reach, 100 * fmax(lo, hi));
        }
    }
    if (!(reach > 0))
        reach = 1;
    int row_h = 34, height = 90 + row_h * (int)in->estimate_count;
    ks_svg_axis x = {-reach, reach, false, 180, CHART_W - 110, 1,
                     "deviation from the estimate (%)", false};
    ks_svg_axis y = {0, (double)in->estimate_count, false, height - 46, 48, 1, "", true};
    ks_svg_axis_nice(&x);
    ks_svg_open(f, "estimate-interval", CHART_W, height, "Estimates and confidence intervals",
                "bar: the interval; dot: the estimate");
    ks_svg_frame(f, &x, &y);
    double zero = ks_svg_map(&x, 0);
    fprintf(f, "<line class=\"edge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", zero,
            y.to, zero, y.from);
    for (size_t i = 0; i < in->estimate_count; i++) {
        const ks_estimate_row *r = &in->estimates[i];
        double py = y.to + row_h * (i + 0.5);
        const char *colour = r->bound_met == 0 ? "#D55E00" : "#0072B2";
        fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                x.from - 8, py + 4);
        ks_html_escape_cut(f, r->metric, 22);
        fprintf(f, "</text>");
        if (r->estimate != 0 && isfinite(r->ci_low) && isfinite(r->ci_high)) {
            double a = ks_svg_map(&x, 100 * (r->ci_low / r->estimate - 1));
            double b = ks_svg_map(&x, 100 * (r->ci_high / r->estimate - 1));
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"%s\" "
                       "opacity=\"0.35\"/>",
                    fmin(a, b), py - 5, fmax(fabs(b - a), 1), colour);
        }
        marker(f, zero, py, colour, false);
        char width[32] = "&#8211;";
        if (r->exact)
            snprintf(width, sizeof width, "exact");
        else if (isfinite(r->rel_halfwidth))
            snprintf(width, sizeof width, "&#177;%.3g%%", 100 * r->rel_halfwidth);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s%s</text>\n", x.to + 6,
                py + 4, width, r->bound_met == 1 ? " met" : r->bound_met == 0 ? " not met" : "");
    }
    ks_svg_close(f);
}
