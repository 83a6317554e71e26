/*
 * svg.c - axes, ticks and text for the report's inline SVG charts.
 */
#include "svg.h"

#include <math.h>
#include <string.h>

void ks_html_escape_cut(FILE *f, const char *s, size_t max)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        /* count characters, not UTF-8 continuation bytes */
        if ((*p & 0xC0) != 0x80 && n++ == max) {
            fputs("...", f);
            return;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* control bytes are not allowed in XML text */
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                fputc('?', f);
            else
                fputc(*p, f);
        }
    }
}

void ks_html_escape(FILE *f, const char *s)
{
    ks_html_escape_cut(f, s, (size_t)-1);
}

double ks_svg_map(const ks_svg_axis *a, double v)
{
    double lo = a->lo, hi = a->hi;
    if (a->log) {
        v = log10(v > 0 ? v : lo);
        lo = log10(lo);
        hi = log10(hi);
    }
    double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    if (!isfinite(t)) /* extremes beyond what the axis spans: never nan in the SVG */
        t = v >= hi ? 1 : v <= lo ? 0 : 0.5;
    return a->from + t * (a->to - a->from);
}

static double nice_step(double range)
{
    double raw = range / 5;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void ks_svg_axis_nice(ks_svg_axis *a)
{
    if (!(a->hi > a->lo)) {
        double pad = a->lo != 0 ? fabs(a->lo) * 0.1 : 1;
        a->lo -= a->log ? 0 : pad;
        a->hi += pad;
        if (a->log)
            a->lo /= 2, a->hi *= 2;
    }
    if (a->log) {
        /* a little room around the data, not whole decades: a decade of
         * empty axis squeezes the bars */
        a->lo /= 1.25;
        a->hi *= 1.25;
        return;
    }
    double step = nice_step(a->hi - a->lo);
    if (!isfinite(step) || step <= 0)
        return; /* a range of finite extremes that overflows: left as it is */
    a->lo = floor(a->lo / step) * step;
    a->hi = ceil(a->hi / step) * step;
}

double ks_duration_unit(double max_ns, const char **name)
{
    static const char *names[] = {"ns", "\xC2\xB5s", "ms", "s"};
    static const double units[] = {1, 1e3, 1e6, 1e9};
    int k = 0;
    while (k < 3 && max_ns >= units[k + 1])
        k++;
    *name = names[k];
    return units[k];
}

void ks_format_duration(double ns, char *buf, size_t size)
{
    const char *name;
    double unit = ks_duration_unit(ns, &name);
    snprintf(buf, size, "%.3g %s", ns / unit, name);
}

static void tick_label(char *buf, size_t size, double v)
{
    if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        snprintf(buf, size, "%.0e", v);
    else
        snprintf(buf, size, "%g", v);
}

/* Tick values of an axis already made nice. */
static int axis_ticks(const ks_svg_axis *a, double *ticks, int max)
{
    int n = 0;
    if (a->log) {
        /* decades; 1-2-5 within each when the axis spans under 3 decades */
        bool fine = a->hi / a->lo < 1000;
        for (double d = pow(10, floor(log10(a->lo))); d <= a->hi && n < max; d *= 10)
            for (int k = 0; k < 3 && n < max; k++) {
                double v = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
                if ((k == 0 || fine) && v >= a->lo * 0.9999 && v <= a->hi * 1.0001)
                    ticks[n++] = v;
            }
        return n;
    }
    double step = nice_step(a->hi - a->lo);
    for (double v = a->lo; v <= a->hi + step * 1e-6 && n < max; v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* Grid lines and tick labels along one axis: x's labels below the frame,
 * y's to its left. */
static void grid_ticks(FILE *f, const ks_svg_axis *x, const ks_svg_axis *y, bool along_y)
{
    const ks_svg_axis *a = along_y ? y : x;
    double ticks[64];
    int n = along_y && y->bare ? 0 : axis_ticks(a, ticks, 64);
    for (int i = 0; i < n; i++) {
        double at = ks_svg_map(a, ticks[i]);
        char label[32];
        tick_label(label, sizeof label, ticks[i] / a->unit);
        double x1 = along_y ? x->from : at, x2 = along_y ? x->to : at;
        double y1 = along_y ? at : y->to, y2 = along_y ? at : y->from;
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
                x1, y1, x2, y2, along_y ? x->from - 5 : at, along_y ? at + 4 : y->from + 14,
                along_y ? "end" : "middle", label);
    }
}

static void frame_x(FILE *f, const ks_svg_axis *x, const ks_svg_axis *y)
{
    grid_ticks(f, x, y, false);
    fprintf(f, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (x->from + x->to) / 2, y->from + 32);
    ks_html_escape(f, x->label);
    fprintf(f, "</text>\n");
}

static void frame_y(FILE *f, const ks_svg_axis *x, const ks_svg_axis *y)
{
    grid_ticks(f, x, y, true);
    double cy = (y->from + y->to) / 2, cx = x->from - 44;
    fprintf(f,
            "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 %.1f %.1f)\">",
            cx, cy, cx, cy);
    ks_html_escape(f, y->label);
    fprintf(f, "</text>\n");
}

void ks_svg_frame(FILE *f, const ks_svg_axis *x, const ks_svg_axis *y)
{
    frame_x(f, x, y);
    frame_y(f, x, y);
    fprintf(f,
            "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            x->from, y->to, x->to - x->from, y->from - y->to);
}

void ks_svg_open(FILE *f, const char *id, int width, int height, const char *title,
                 const char *subtitle)
{
    fprintf(f,
            "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
            "viewBox=\"0 0 %d %d\" role=\"img\">\n<title>",
            id, width, height);
    ks_html_escape(f, title);
    fprintf(f, "</title>\n<text class=\"title\" x=\"10\" y=\"18\">");
    ks_html_escape_cut(f, title, 72);
    fprintf(f, "</text>\n");
    if (subtitle && *subtitle) {
        fprintf(f, "<text class=\"subtitle\" x=\"10\" y=\"34\">");
        ks_html_escape(f, subtitle);
        fprintf(f, "</text>\n");
    }
}

void ks_svg_close(FILE *f)
{
    fputs("</svg>\n", f);
}

const char *ks_svg_colour(size_t i)
{
    /* Okabe-Ito: distinguishable with the common colour-vision deficiencies */
    static const char *palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
    return palette[i % 8];
}
