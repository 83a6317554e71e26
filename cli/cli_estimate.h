/* cli_estimate.h - what `ksample estimate` (cmd_estimate.c) prints of an
 * estimate (cli_estimate.c): the table with the notes under it, or JSON. */
#ifndef KS_CLI_ESTIMATE_H
#define KS_CLI_ESTIMATE_H

#include "cli_results.h"

/* The table first, then what it rests on: the plan, its cost, the results,
 * the warm-up, what was left out, the estimator, the exact totals (known:
 * the traces' counts, NULL when none were used; known_cache: the run
 * folder's trace-counts.csv they came from, or NULL), what the intervals
 * stand for.  run_folder: the results were read from run folders;
 * warmup: the warm-up the intervals were computed for. */
void cli_estimate_print_text(const ks_plan *plan, const ks_results *r, const cli_results *cr,
                             const ks_estimate *e, bool run_folder, const char *fit,
                             const char *auxiliary, const ks_known *known,
                             const char *known_cache, const char *warmup);
/* `estimate --json`: an array of one object per metric (every row, each
 * saying whether it is a default one), with the warm-up the intervals were
 * computed for (warmup), the estimator's fields where it is
 * not the plain one, the plan's unsimulated part and the cost. */
void cli_estimate_print_json(const ks_plan *plan, const ks_results *r, const ks_estimate *e,
                             ks_single_mode single, const char *fit, const char *auxiliary,
                             const char *warmup);

#endif
