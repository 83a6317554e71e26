/* progress.h - one status line on stderr for long steps, only when stderr is
 * a terminal and --quiet was not given.  The library reports progress
 * through callbacks and never prints; these turn the callbacks into text. */
#ifndef KS_CLI_PROGRESS_H
#define KS_CLI_PROGRESS_H

#include "ksample.h"

#include <stdbool.h>

typedef struct cli_progress {
    bool enabled;
    bool shown;       /* a line is on screen and needs clearing */
    double start_s;
    double last_s;
    char label[64];
} cli_progress;

void cli_progress_init(cli_progress *p, bool quiet, const char *label);
/* "label: what done/total, elapsed, ~ETA"; at most ten updates a second. */
void cli_progress_step(cli_progress *p, size_t done, size_t total, const char *what);
/* "label: text" for a step that reports no counts (reading a file). */
void cli_progress_note(cli_progress *p, const char *text);
/* Clears the line (call before printing anything else). */
void cli_progress_end(cli_progress *p);
/* A ks_run_progress_fn; ctx is a cli_progress. */
void cli_progress_run(const ks_run_progress *rp, void *ctx);
/* "1h02m", "3m05s", "12.3s" */
void cli_format_seconds(double s, char *buf, size_t size);

#endif
