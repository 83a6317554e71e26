/* progress.c - the status line of long steps (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, bool quiet, const char *label)
{
    memset(p, 0, sizeof *p);
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->start_s = now_s();
    snprintf(p->label, sizeof p->label, "%s", label);
}

void cli_format_seconds(double s, char *buf, size_t size)
{
    if (s < 0)
        snprintf(buf, size, "?");
    else if (s < 60)
        snprintf(buf, size, "%.1fs", s);
    else if (s < 3600)
        snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* \r and erase-to-end-of-line: the line is rewritten in place */
static void show(cli_progress *p, const char *text)
{
    fprintf(stderr, "\r\033[K%s: %s", p->label, text);
    fflush(stderr);
    p->shown = true;
}

void cli_progress_step(cli_progress *p, size_t done, size_t total, const char *what)
{
    if (!p->enabled)
        return;
    double now = now_s();
    if (done < total && now - p->last_s < 0.1)
        return;
    p->last_s = now;
    double elapsed = now - p->start_s;
    double eta = done > 0 ? elapsed / (double)done * (double)(total - done) : -1;
    char e[32], r[32], text[256];
    cli_format_seconds(elapsed, e, sizeof e);
    cli_format_seconds(eta, r, sizeof r);
    snprintf(text, sizeof text, "%s %zu/%zu, %s elapsed, ~%s left", what ? what : "", done,
             total, e, r);
    show(p, text);
}

void cli_progress_note(cli_progress *p, const char *text)
{
    if (p->enabled)
        show(p, text);
}

void cli_progress_end(cli_progress *p)
{
    if (p->enabled && p->shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->shown = false;
}

void cli_progress_run(const ks_run_progress *rp, void *ctx)
{
    cli_progress *p = ctx;
    if (!p->enabled)
        return;
    char e[32], r[32], text[256];
    cli_format_seconds(rp->elapsed_s, e, sizeof e);
    cli_format_seconds(rp->eta_s, r, sizeof r);
    size_t todo = rp->total - rp->skipped;
    snprintf(text, sizeof text, "%zu/%zu done, %zu running, %zu failed%s%s, %s elapsed, ~%s left",
             rp->done, todo, rp->running, rp->failed, rp->slurm_job_id[0] ? ", slurm job " : "",
             rp->slurm_job_id, e, r);
    show(p, text);
}
