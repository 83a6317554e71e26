/*
 * report_internal.h - the sections of the HTML report, one file each:
 * report.c (page, summary, tables), report_hist.c (duration histograms),
 * report_charts.c (speedup-error, epsilon sweep, estimate intervals),
 * report_score.c (measured speedup-error curves of `ksample score`).
 */
#ifndef KS_REPORT_INTERNAL_H
#define KS_REPORT_INTERNAL_H

#include "ksample.h"
#include "svg.h"

/* Whether the plan can be drawn over this profile (same invocation count). */
bool ks_report_plan_fits(const ks_report_input *in);

ks_status ks_report_histograms(FILE *f, const ks_report_input *in, ks_error *err);
void ks_report_speedup_error(FILE *f, const ks_report_input *in);
void ks_report_sweep(FILE *f, const ks_report_input *in);
void ks_report_estimate_chart(FILE *f, const ks_report_input *in);
/* The section of score curves (nothing when there are no points). */
ks_status ks_report_scores(FILE *f, const ks_report_input *in, ks_error *err);

#endif
