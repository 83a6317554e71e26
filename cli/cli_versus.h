/* cli_versus.h - `ksample estimate PLAN RESULTS... --versus RESULTS_B`: B's
 * total over A's of each metric from the same sampled launches, with its
 * interval (lib/estimate/versus.c). */
#ifndef KS_CLI_VERSUS_H
#define KS_CLI_VERSUS_H

#include "cli_results.h"

enum { CLI_MAX_VERSUS = 256 };

typedef struct cli_versus {
    int count; /* --versus RESULTS given (0: no comparison) */
    char *paths[CLI_MAX_VERSUS];
    int map_total; /* --uid-map given for both sides (cli_versus_split_maps) */
} cli_versus;

#define CLI_VERSUS_LONG_OPTION {"versus", required_argument, NULL, 'V' + 256}
#define CLI_VERSUS_HELP                                                                    \
    "  --versus RESULTS   paired comparison: RESULTS (read like the others, repeatable)\n" \
    "                     hold the same sampled launches simulated on configuration B;\n" \
    "                     prints, per metric, B's total over A's (the RESULTS operands)\n"  \
    "                     with its interval: the ratio of the two totals, whose\n"       \
    "                     variance is that of each launch's y_B - R y_A in the plan's\n" \
    "                     clusters (ratio estimator, far tighter than either total:\n"   \
    "                     what the configurations share cancels); a sampled launch\n"   \
    "                     on one side only is refused.  With --json: metric, ratio,\n"  \
    "                     ci_low, ci_high, rel_halfwidth, estimate_a, estimate_b, ...\n" \
    "                     With one --uid-map, it maps both sides; with one each, A's\n"  \
    "                     first, then B's.  Not with --pilot, --values or --estimator\n"

/* Records one --versus RESULTS; the exit code of a usage error, else 0. */
int cli_versus_add(cli_versus *v, const char *path);
/* With one --uid-map per RESULTS on both sides, A's are the first a_count
 * (cr->map_count becomes a_count, B's are read after them); one --uid-map
 * maps both; any other count is a usage error (its exit code). */
int cli_versus_split_maps(cli_versus *v, cli_results *cr, int a_count);
/* Reads B's results as A's were read (cr, its maps split as above), compares and prints
 * (text or JSON); returns the exit code. */
int cli_versus_run(const cli_versus *v, cli_results *cr, const char *plan_path,
                   const ks_plan *plan, const ks_results *a, int a_count,
                   ks_estimate_options *eo, const char *warmup_a, bool json);

#endif
