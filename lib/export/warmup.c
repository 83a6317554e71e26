/*
 * warmup.c - which launches run before a sampled launch, in the same
 * simulator process, so that it does not start from cold caches; only the
 * sampled launch's statistics are kept.
 *
 * A sampled simulation runs each sampled launch by itself, and a launch
 * simulated alone starts with empty caches, TLBs and DRAM row buffers where
 * in the full run it inherits what its predecessors left: measured on
 * Accel-Sim and MacSim (docs/methods.md, "Cold start"), alone cycles are
 * 1.09x-3.3x the full run's summed over a program.  The modes (functional
 * warming is the classical CPU-sampling analogue, SMARTS, Wunderlich et al.,
 * ISCA 2003; here warming is detailed, since a GPU simulator has no
 * functional mode):
 *   none           the launch alone
 *   self           the launch twice, the second measured: its own data
 *                  cached (over-warms: the full run evicts some of it)
 *   same           the most recent earlier launch of the same kernel first
 *                  (alone when there is none)
 *   prev:N         the N launches just before it, in program order
 *   since-same:N   every launch from the most recent earlier launch of the
 *                  same kernel up to it (the state the full run has: the
 *                  kernel's own data and what the launches in between
 *                  touched), at most N; the N before it when the kernel has
 *                  not run before
 * Launches are the trace folder's, in its order; "the same kernel" is the
 * same kernel name.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"none", "self", "same", "prev", "since-same"};

ks_status ks_warmup_parse(const char *text, ks_warmup *w, ks_error *err)
{
    memset(w, 0, sizeof *w);
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    int found = -1;
    for (int m = 0; m < 5; m++)
        if (strlen(mode_names[m]) == n && strncmp(text, mode_names[m], n) == 0)
            found = m;
    if (found < 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "warm-up mode '%s': one of none, self, same, prev:N, since-same:N",
                            text);
    w->mode = (ks_warmup_mode)found;
    bool counted = w->mode == KS_WARMUP_PREV || w->mode == KS_WARMUP_SINCE_SAME;
    if (counted != (colon != NULL))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            counted ? "warm-up mode '%s' needs a count: %s:N"
                                    : "warm-up mode '%s' takes no count",
                            text, mode_names[w->mode]);
    if (colon) {
        uint64_t v;
        if (!ks_parse_count(colon + 1, &v) || v < 1 || v > 1000)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "warm-up '%s': the count must be in 1..1000", text);
        w->count = (unsigned)v;
    }
    return KS_OK;
}

void ks_warmup_format(const ks_warmup *w, char *buf, size_t size)
{
    if (w->mode == KS_WARMUP_PREV || w->mode == KS_WARMUP_SINCE_SAME)
        snprintf(buf, size, "%s:%u", mode_names[w->mode], w->count);
    else
        snprintf(buf, size, "%s", mode_names[w->mode]);
}

/* The most recent launch before `launch` with the same name, or -1. */
static long previous_same(const char *const *names, size_t launch)
{
    for (size_t i = launch; i-- > 0;)
        if (strcmp(names[i], names[launch]) == 0)
            return (long)i;
    return -1;
}

ks_status ks_warmup_launches(const ks_warmup *w, const char *const *names, size_t launches,
                             size_t launch, size_t *out, size_t *count, ks_error *err)
{
    *count = 0;
    if (launch >= launches)
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "launch out of range");
    long same;
    size_t first;
    switch (w->mode) {
    case KS_WARMUP_NONE:
        return KS_OK;
    case KS_WARMUP_SELF:
        out[(*count)++] = launch;
        return KS_OK;
    case KS_WARMUP_SAME:
        if ((same = previous_same(names, launch)) >= 0)
            out[(*count)++] = (size_t)same;
        return KS_OK;
    case KS_WARMUP_PREV:
        first = launch > w->count ? launch - w->count : 0;
        break;
    case KS_WARMUP_SINCE_SAME:
        same = previous_same(names, launch);
        first = launch > w->count ? launch - w->count : 0;
        if (same >= 0 && (size_t)same > first)
            first = (size_t)same;
        break;
    default:
        return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "unknown warm-up mode");
    }
    for (size_t i = first; i < launch; i++)
        out[(*count)++] = i;
    return KS_OK;
}

size_t ks_warmup_max(const ks_warmup *w)
{
    return w->mode == KS_WARMUP_PREV || w->mode == KS_WARMUP_SINCE_SAME ? w->count
           : w->mode == KS_WARMUP_NONE                                  ? 0
                                                                        : 1;
}

ks_status ks_warmup_entries(const ks_warmup *w, const char *const *names, size_t launches,
                            const ks_export_entry *sampled, size_t count,
                            ks_export_entry **out, size_t *n, ks_error *err)
{
    size_t per = ks_warmup_max(w) + 1;
    *out = NULL;
    *n = 0;
    if (count > SIZE_MAX / per - 1)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "too many launches");
    ks_export_entry *e = malloc((count * per + 1) * sizeof *e);
    size_t *before = malloc(per * sizeof *before);
    if (!e || !before) {
        free(e);
        free(before);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    size_t k = 0;
    ks_status st = KS_OK;
    for (size_t i = 0; i < count && st == KS_OK; i++) {
        size_t b;
        if ((st = ks_warmup_launches(w, names, launches, sampled[i].launch, before, &b, err)) !=
            KS_OK)
            break;
        for (size_t j = 0; j < b; j++)
            e[k++] = (ks_export_entry){before[j], before[j], 0, false};
        e[k++] = sampled[i];
        e[k - 1].measured = true;
    }
    free(before);
    if (st != KS_OK) {
        free(e);
        return st;
    }
    *out = e;
    *n = k;
    return KS_OK;
}
