/*
 * report_score.c - the measured speedup-against-error curves: what
 * `ksample score --json` says of each method's plans scored against a real
 * simulator's full run, one chart per set of values (context, alone, a
 * warm state), each series (method, label, estimator) a line through its
 * points in order of speedup, and the points in a table.
 */
#include "report_internal.h"
#include "hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 640
#define CHART_H 360

static bool usable(const ks_score_point *p)
{
    /* finite once drawn: an error of 1e307 is 1e309 % (inf), a speedup of
     * 1e-320 has no finite logarithm of its axis' padded end */
    return isfinite(p->speedup_hmean) && p->speedup_hmean >= 1e-300 &&
           p->speedup_hmean <= 1e300 && isfinite(100 * p->error_mean) && p->error_mean >= 0 &&
           p->error_mean <= 1e300;
}

/* Distinct strings of a field in order of first appearance: out[k] points
 * into the points, ord[i] is point i's k; returns how many (-1: out of
 * memory).  One hash lookup a point: 40,000 series took 26 s when each was
 * compared with every other. */
static long distinct(const ks_report_input *in, bool series, const char **out, size_t *ord,
                     ks_error *err)
{
    ks_hash_index index = {0};
    ks_text_keys keys = {out, sizeof *out, 0};
    size_t n = 0;
    for (size_t i = 0; i < in->score_count; i++) {
        const char *s = series ? in->scores[i].series : in->scores[i].values;
        bool found;
        uint32_t id;
        size_t slot;
        if (ks_hash_find_text(&index, &keys, n, s, strlen(s), &found, &id, &slot, err) != KS_OK) {
            ks_hash_free(&index);
            return -1;
        }
        if (!found) {
            out[n] = s;
            ks_hash_put(&index, slot, (uint32_t)n);
            id = (uint32_t)n++;
        }
        ord[i] = id;
    }
    ks_hash_free(&index);
    return (long)n;
}

/* A point's place in the drawing order: by set of values, then series
 * (each in order of first appearance), then speedup. */
typedef struct ranked {
    size_t values, series, point;
    double speedup;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->values != y->values)
        return x->values < y->values ? -1 : 1;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    if (x->speedup != y->speedup)
        return x->speedup < y->speedup ? -1 : 1;
    return (x->point > y->point) - (x->point < y->point);
}

/* The points of set v, series s, by speedup: the run of the sorted order
 * that starts at *at (advanced past it); returns how many, their indices
 * in idx. */
static size_t curve(const ranked *order, size_t count, size_t *at, size_t v, size_t s,
                    size_t *idx)
{
    size_t n = 0;
    while (*at < count && order[*at].values == v && order[*at].series == s)
        idx[n++] = order[(*at)++].point;
    return n;
}

/* Where a label goes: below the ones placed lately nearby (the last 64:
 * the series' ends are drawn in order, and an older clash matters little
 * against a check that would grow with the square of the series). */
static double place_label(double *ys, double *xs, size_t *placed, double x, double y)
{
    size_t from = *placed > 64 ? *placed - 64 : 0;
    for (int tries = 0; tries < 8; tries++) {
        bool clash = false;
        for (size_t i = from; i < *placed; i++)
            if (fabs(xs[i] - x) < 80 && fabs(ys[i] - y) < 12)
                clash = true;
        if (!clash)
            break;
        y += 12;
    }
    xs[*placed] = x;
    ys[(*placed)++] = y;
    return y;
}

static void chart(FILE *f, const ks_report_input *in, size_t chart_no, const char *values,
                  const char **series, const ranked *order, size_t *at, size_t *idx,
                  double *lx, double *ly)
{
    ks_svg_axis x = {INFINITY, 0, true, 70, CHART_W - 150, 1, "speedup in simulated cycles (x, "
                     "log scale)", false};
    ks_svg_axis y = {INFINITY, 0, false, CHART_H - 46, 48, 1, "mean error of the total (%)",
                     false};
    double ypos = INFINITY;
    for (size_t k = *at; k < in->score_count && order[k].values == chart_no; k++) {
        const ks_score_point *p = &in->scores[order[k].point];
        if (!usable(p))
            continue;
        x.lo = fmin(x.lo, p->speedup_hmean);
        x.hi = fmax(x.hi, p->speedup_hmean);
        y.lo = fmin(y.lo, 100 * p->error_mean);
        y.hi = fmax(y.hi, 100 * p->error_mean);
        if (p->error_mean > 0)
            ypos = fmin(ypos, 100 * p->error_mean);
    }
    if (!(x.hi > 0))
        x.lo = 1, x.hi = 10, y.lo = 0, y.hi = 1;
    /* errors span decades (0.1 % next to 20 %): a log axis keeps them apart;
     * a point of no error at all is drawn on its bottom edge */
    if (isfinite(ypos) && y.hi / ypos >= 30) {
        y.log = true;
        y.lo = ypos;
        y.label = "mean error of the total (%, log scale)";
    } else {
        y.lo = 0;
    }
    ks_svg_axis_nice(&x);
    ks_svg_axis_nice(&y);
    char id[32], title[160], sub[200];
    snprintf(id, sizeof id, "score-%zu", chart_no);
    snprintf(title, sizeof title, "Measured speedup against error: %.64s values", values);
    snprintf(sub, sizeof sub,
             "ksample score: mean over the seeds against the full run's %.15g cycles; one "
             "point per score file",
             in->score_truth);
    ks_svg_open(f, id, CHART_W, CHART_H, title, sub);
    ks_svg_frame(f, &x, &y);
    size_t placed = 0;
    while (*at < in->score_count && order[*at].values == chart_no) {
        size_t s = order[*at].series;
        size_t n = curve(order, in->score_count, at, chart_no, s, idx);
        const char *colour = ks_svg_colour(s);
        double px = 0, py = 0;
        bool any = false;
        fprintf(f, "<g><title>");
        ks_html_escape(f, series[s]);
        /* past the palette's 8 colours a series repeats one: dashed then */
        fprintf(f, "</title><polyline class=\"trace\" stroke=\"%s\"%s points=\"", colour,
                s / 8 % 2 ? " stroke-dasharray=\"6 3\"" : "");
        for (size_t k = 0; k < n; k++) {
            const ks_score_point *p = &in->scores[idx[k]];
            if (!usable(p))
                continue;
            px = ks_svg_map(&x, p->speedup_hmean);
            py = ks_svg_map(&y, y.log && 100 * p->error_mean < y.lo ? y.lo : 100 * p->error_mean);
            fprintf(f, "%s%.1f,%.1f", any ? " " : "", px, py);
            any = true;
        }
        fprintf(f, "\"/>");
        for (size_t k = 0; k < n; k++) {
            const ks_score_point *p = &in->scores[idx[k]];
            if (!usable(p))
                continue;
            double cy = ks_svg_map(&y, y.log && 100 * p->error_mean < y.lo ? y.lo
                                                                            : 100 * p->error_mean);
            fprintf(f, "<circle class=\"score-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
                       "stroke=\"white\" stroke-width=\"1\"><title>",
                    ks_svg_map(&x, p->speedup_hmean), cy, colour);
            ks_html_escape(f, series[s]);
            fprintf(f, ": %.4gx at %.3g%% mean error, %.4g launches</title></circle>",
                    p->speedup_hmean, 100 * p->error_mean, p->launches_mean);
        }
        if (any) {
            fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", px + 8,
                    place_label(ly, lx, &placed, px + 8, py + 4), colour);
            ks_html_escape_cut(f, series[s], 24);
            fprintf(f, "</text>");
        }
        fprintf(f, "</g>\n");
    }
    ks_svg_close(f);
}

static void cell(FILE *f, double v, double scale, const char *fmt)
{
    if (isfinite(v))
        fprintf(f, fmt, scale * v);
    else
        fprintf(f, "<td>&#8211;</td>");
}

static void table(FILE *f, const ks_report_input *in, const ranked *order)
{
    fprintf(f, "<table style=\"margin-top:14px\">\n<tr><th>series</th><th>values</th>"
               "<th>launches (mean)</th><th>speedup (harmonic mean)</th><th>error mean %%</th>"
               "<th>bias %%</th><th>error max %%</th><th>interval covers</th></tr>\n");
    for (size_t k = 0; k < in->score_count; k++) {
        const ks_score_point *p = &in->scores[order[k].point];
        fprintf(f, "<tr class=\"score-row\"><td style=\"color:%s;font-weight:600\">",
                ks_svg_colour(order[k].series));
        ks_html_escape(f, p->series);
        fprintf(f, "</td><td>");
        ks_html_escape(f, p->values);
        fprintf(f, "</td>");
        cell(f, p->launches_mean, 1, "<td>%.1f</td>");
        cell(f, p->speedup_hmean, 1, "<td>%.2fx</td>");
        cell(f, p->error_mean, 100, "<td>%.3f</td>");
        cell(f, p->error_signed_mean, 100, "<td>%+.3f</td>");
        cell(f, p->error_max, 100, "<td>%.3f</td>");
        cell(f, p->coverage, 100, "<td>%.0f%%</td>");
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

ks_status ks_report_scores(FILE *f, const ks_report_input *in, ks_error *err)
{
    if (in->score_count == 0)
        return KS_OK;
    const char **series = malloc(in->score_count * sizeof *series);
    const char **values = malloc(in->score_count * sizeof *values);
    size_t *idx = malloc(in->score_count * sizeof *idx);
    size_t *sord = malloc(in->score_count * sizeof *sord);
    size_t *vord = malloc(in->score_count * sizeof *vord);
    ranked *order = malloc(in->score_count * sizeof *order);
    double *lx = malloc(in->score_count * sizeof *lx), *ly = malloc(in->score_count * sizeof *ly);
    ks_status st = KS_OK;
    long nseries = -1, nvalues = -1;
    if (!series || !values || !idx || !sord || !vord || !order || !lx || !ly)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    else if ((nseries = distinct(in, true, series, sord, err)) < 0 ||
             (nvalues = distinct(in, false, values, vord, err)) < 0)
        st = err ? err->status : KS_ERR_NOMEM;
    if (st == KS_OK) {
        for (size_t i = 0; i < in->score_count; i++)
            order[i] = (ranked){vord[i], sord[i], i, in->scores[i].speedup_hmean};
        qsort(order, in->score_count, sizeof *order, by_rank);
        fprintf(f, "<h2>Measured speedup against error</h2>\n<p class=\"note\">From "
                   "<code>ksample score --json</code>: each method's plans scored against a "
                   "real simulator's full run (the truth, %.15g cycles), the values of the "
                   "sampled launches taken from the set named (context: the full run itself; "
                   "alone: each launch simulated by itself; or a warm state).  Speedup: the "
                   "full run's cycles over those simulated, warm-up included.  One point per "
                   "score file and series; a series' points joined in order of speedup.</p>\n",
                in->score_truth);
        fprintf(f, "<div class=\"grid\">\n");
        size_t at = 0;
        for (size_t v = 0; v < (size_t)nvalues; v++)
            chart(f, in, v, values[v], series, order, &at, idx, lx, ly);
        fprintf(f, "</div>\n");
        table(f, in, order);
    }
    free(sord);
    free(vord);
    free(order);
    free(series);
    free(values);
    free(idx);
    free(lx);
    free(ly);
    return st;
}
