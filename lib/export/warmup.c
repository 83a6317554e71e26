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
 *                  touched); when that is more than N launches, that launch
 *                  and the N-1 just before it (its own data matters most:
 *                  MacSim, docs/bench.md); the N before it when the kernel
 *                  has not run before
 *   state          no launch: the L2 state the full run would give the
 *                  launch, rebuilt from the traces of every launch before
 *                  it (lib/warm, lib/export/warm_state.c), carried by a
 *                  warm-up kernel ksample writes (state, state:kernel) or
 *                  by MemcpyHtoD lines (state:memcpy; state:memcpy32 on a
 *                  stock build, the job's launch remapped to 32 bits)
 *   since-same:N:K as since-same:N, from the K-th latest earlier launch of
 *                  the same kernel (or the earliest, when it has run fewer
 *                  times): a kernel that reads a shared structure a part at a
 *                  time (a gather, random atomics) finds in the full run
 *                  what all its earlier runs cached, more than its last run
 *                  did (Accel-Sim RTX 3070, docs/bench.md); when that span
 *                  is more than N launches, those K launches and as many of
 *                  the launches just before it as make N
 * Launches are the trace folder's, in its order; "the same kernel" is the
 * same kernel name on the same data: a memory page in common among those
 * its first warp starts with (ks_trace_folder_launches), since what a
 * launch finds warm in the full run is its own data: MacSim's vectormultadd
 * runs one function on three pairs of buffers, and after the same function
 * on other buffers a launch is barely faster than alone (docs/bench.md).
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {"none", "self", "same", "prev", "since-same", "state"};
static const char *const carrier_names[] = {"kernel", "memcpy", "memcpy32",
                                             "memcpy32+stores", "split"};

bool ks_state_carrier_remaps(ks_state_carrier c)
{
    return c == KS_STATE_MEMCPY32 || c == KS_STATE_MEMCPY32_STORES || c == KS_STATE_SPLIT;
}

ks_status ks_warmup_parse(const char *text, ks_warmup *w, ks_error *err)
{
    memset(w, 0, sizeof *w);
    if (strncmp(text, "state", 5) == 0 && (text[5] == '\0' || text[5] == ':')) {
        w->mode = KS_WARMUP_STATE;
        w->depth = 1;
        if (text[5] == '\0')
            return KS_OK;
        for (int c = 0; c < 5; c++)
            if (strcmp(text + 6, carrier_names[c]) == 0) {
                w->carrier = (ks_state_carrier)c;
                w->carrier_given = true;
                return KS_OK;
            }
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "warm-up '%s': the state's carrier is kernel (a warm-up kernel, "
                            "any build), memcpy (MemcpyHtoD lines, a build whose "
                            "perf_memcpy_to_gpu keeps 64-bit addresses), memcpy32 "
                            "(MemcpyHtoD lines and the launch in a 32-bit address space, a "
                            "stock build; memcpy32+stores: and a kernel storing the dirty "
                            "lines) or split (memcpy32's copies, and a kernel for the part "
                            "where the launch's misses evict dirty lines)",
                            text);
    }
    const char *colon = strchr(text, ':');
    const char *second = colon ? strchr(colon + 1, ':') : NULL;
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    int found = -1;
    for (int m = 0; m < 5; m++)
        if (strlen(mode_names[m]) == n && strncmp(text, mode_names[m], n) == 0)
            found = m;
    if (found < 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "warm-up mode '%s': one of none, self, same, prev:N, since-same:N, "
                            "since-same:N:K, state, state:kernel, state:memcpy, state:memcpy32, "
                            "state:memcpy32+stores, state:split",
                            text);
    w->mode = (ks_warmup_mode)found;
    bool counted = w->mode == KS_WARMUP_PREV || w->mode == KS_WARMUP_SINCE_SAME;
    if (counted != (colon != NULL))
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            counted ? "warm-up mode '%s' needs a count: %s:N"
                                    : "warm-up mode '%s' takes no count",
                            text, mode_names[w->mode]);
    if (second && w->mode != KS_WARMUP_SINCE_SAME)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "warm-up '%s': only since-same takes a depth (since-same:N:K)", text);
    if (colon) {
        uint64_t v;
        char count[32];
        size_t len = second ? (size_t)(second - colon - 1) : strlen(colon + 1);
        if (len >= sizeof count)
            len = sizeof count - 1; /* too long for a count: refused below */
        memcpy(count, colon + 1, len);
        count[len] = '\0';
        if (!ks_parse_count(count, &v) || v < 1 || v > 1000)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "warm-up '%s': the count must be in 1..1000", text);
        w->count = (unsigned)v;
    }
    w->depth = 1;
    if (second) {
        uint64_t v;
        if (!ks_parse_count(second + 1, &v) || v < 1 || v > w->count)
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "warm-up '%s': the depth K must be in 1..N (since-same:N:K)",
                                text);
        w->depth = (unsigned)v;
    }
    return KS_OK;
}

void ks_warmup_format(const ks_warmup *w, char *buf, size_t size)
{
    if (w->mode == KS_WARMUP_STATE)
        snprintf(buf, size, "state:%s",
                 carrier_names[w->carrier <= KS_STATE_SPLIT ? w->carrier : 0]);
    else if (w->mode == KS_WARMUP_SINCE_SAME && w->depth > 1)
        snprintf(buf, size, "%s:%u:%u", mode_names[w->mode], w->count, w->depth);
    else if (w->mode == KS_WARMUP_PREV || w->mode == KS_WARMUP_SINCE_SAME)
        snprintf(buf, size, "%s:%u", mode_names[w->mode], w->count);
    else
        snprintf(buf, size, "%s", mode_names[w->mode]);
}

static bool share_page(const ks_warmup_launch *a, const ks_warmup_launch *b)
{
    if (a->page_count == 0 || b->page_count == 0)
        return true; /* no addresses known: the name decides */
    for (size_t i = 0, j = 0; i < a->page_count && j < b->page_count;) {
        if (a->pages[i] == b->pages[j])
            return true;
        if (a->pages[i] < b->pages[j])
            i++;
        else
            j++;
    }
    return false;
}

/* The most recent launch before `before` of the same kernel on the same
 * data as `launch`, or -1. */
static long previous_same(const ks_warmup_launch *l, size_t launch, size_t before)
{
    for (size_t i = before; i-- > 0;)
        if (strcmp(l[i].name, l[launch].name) == 0 && share_page(&l[i], &l[launch]))
            return (long)i;
    return -1;
}

/* since-same:N:K.  same[0..m): the m <= K latest earlier launches of the
 * kernel, latest first.  The warm-up is those launches and the r just
 * before `launch`, r the most that keeps it within N launches (a same
 * launch inside those r counts once): the whole span from same[m-1] when
 * it fits, else the K launches and the N - (those outside) before it. */
static void since_same(const ks_warmup *w, const ks_warmup_launch *names, size_t launch,
                       size_t *out, size_t *count)
{
    size_t depth = w->depth > 1 ? w->depth : 1, n = w->count, m = 0;
    size_t same[1000];
    for (size_t before = launch; m < depth && m < n;) {
        long s = previous_same(names, launch, before);
        if (s < 0)
            break;
        same[m++] = (size_t)s;
        before = (size_t)s;
    }
    size_t first = launch > n ? launch - n : 0;
    if (m == 0 || same[m - 1] >= first) {
        /* none (the N before it), or the span since the K-th fits */
        if (m > 0)
            first = same[m - 1];
        for (size_t i = first; i < launch; i++)
            out[(*count)++] = i;
        return;
    }
    /* r launches just before it, the same launches before those outside */
    size_t r = n;
    for (;; r--) {
        size_t outside = 0;
        for (size_t j = 0; j < m; j++)
            outside += same[j] < launch - r;
        if (r + outside <= n)
            break;
    }
    for (size_t j = m; j-- > 0;)
        if (same[j] < launch - r)
            out[(*count)++] = same[j];
    for (size_t i = launch - r; i < launch; i++)
        out[(*count)++] = i;
}

ks_status ks_warmup_launches(const ks_warmup *w, const ks_warmup_launch *names, size_t launches,
                             size_t launch, size_t *out, size_t *count, ks_error *err)
{
    *count = 0;
    if (w->mode == KS_WARMUP_STATE)
        return KS_OK; /* no launch: a carrier (ks_warmup_entries) */
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
        if ((same = previous_same(names, launch, launch)) >= 0)
            out[(*count)++] = (size_t)same;
        return KS_OK;
    case KS_WARMUP_PREV:
        first = launch > w->count ? launch - w->count : 0;
        break;
    case KS_WARMUP_SINCE_SAME:
        if (w->count < 1 || w->count > 1000)
            return ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "warm-up count out of range");
        since_same(w, names, launch, out, count);
        return KS_OK;
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

ks_status ks_warmup_entries(const ks_warmup *w, const ks_warmup_launch *names, size_t launches,
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
            e[k++] = (ks_export_entry){before[j], before[j], 0, false, false};
        if (w->mode == KS_WARMUP_STATE)
            e[k++] = (ks_export_entry){sampled[i].launch, sampled[i].id, 0, false, true};
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
