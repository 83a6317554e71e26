/*
 * svg.h - the drawing helpers of the HTML report: escaped text, axes with
 * linear or logarithmic scales and labelled ticks, unit choice for
 * durations.  Everything writes to a FILE; errors are checked once at the
 * end of the page (ferror).
 */
#ifndef KS_SVG_H
#define KS_SVG_H

#include <stdbool.h>
#include <stdio.h>

/* Writes s with &, <, >, " and ' escaped: safe in HTML text and attributes
 * (kernel names hold <, > and &). */
void ks_html_escape(FILE *f, const char *s);
/* Escapes at most max characters, then "..." */
void ks_html_escape_cut(FILE *f, const char *s, size_t max);

/* One axis: data [lo, hi] onto pixels [from, to] (to < from for y). */
typedef struct ks_svg_axis {
    double lo, hi;
    bool log;
    double from, to;
    double unit;          /* tick labels show value / unit */
    const char *label;    /* e.g. "kernel duration (µs, log scale)" */
    bool bare;            /* no ticks or gridlines (rows of labels instead) */
} ks_svg_axis;

double ks_svg_map(const ks_svg_axis *a, double v);
/* Expands [lo, hi] to whole ticks (linear: 1-2-5 steps; log: decades). */
void ks_svg_axis_nice(ks_svg_axis *a);

/* Unit for durations whose largest value is max_ns: 1, 1e3, 1e6 or 1e9, and
 * its name ("ns", "µs", "ms", "s"). */
double ks_duration_unit(double max_ns, const char **name);
/* "12.3 ms" */
void ks_format_duration(double ns, char *buf, size_t size);

/* Plot frame: the area between the axes, gridlines, ticks and both axis
 * labels.  x along the bottom, y on the left. */
void ks_svg_frame(FILE *f, const ks_svg_axis *x, const ks_svg_axis *y);
/* <svg ...> with a title line; width x height in user units. */
void ks_svg_open(FILE *f, const char *id, int width, int height, const char *title,
                 const char *subtitle);
void ks_svg_close(FILE *f);
/* Colour of series i (colour-blind-safe palette, cycles). */
const char *ks_svg_colour(size_t i);

#endif
