/* cli_score.h - what `ksample score` (cmd_score.c) prints of its results:
 * the summary table, the JSON report reads, the per-plan rows (cli_score.c). */
#ifndef KS_CLI_SCORE_H
#define KS_CLI_SCORE_H

#include "cli.h"

/* Columns are sets x estimators, set-major. */
typedef struct columns {
    const ks_score_set *sets;
    size_t set_count;
    const ks_estimator *est;
    size_t est_count; /* 0: plain only, no estimator column */
} columns;

void cli_score_print_summary(const ks_score_result *res, size_t count, const columns *cols,
                             double truth, bool rounds);
/* launches: the workload scored, which report --score checks */
void cli_score_print_json(const ks_score_result *res, size_t count, const columns *cols,
                          double truth, size_t launches);
void cli_score_print_rows(const ks_score_result *res, size_t count, const columns *cols);
/* --plan-from another GPU's profile q with --match: each launch of p takes
 * its partner's duration; 0, or the exit status (a launch of p without a
 * partner is refused). */
int cli_score_plan_from_match(ks_profile *p, const ks_profile *q, ks_match_mode mode,
                              const char *plan_from, bool quiet);

#endif
