/*
 * results_sim.c - simulator outputs into the results table: Accel-Sim /
 * GPGPU-Sim logs, MacSim logs, the CSV of Accel-Sim's get_stats.py, and run
 * folders.
 *
 * Which launch a reported kernel is: a simulator numbers the kernels it was
 * given from 1 in the order it ran them (Accel-Sim's kernel_launch_uid,
 * MacSim's current_index + 1, the row order of get_stats.py -K), so the
 * mapping depends on what it was given and is an explicit option
 * (ks_uid_mode): the sampled launches in order, the whole program, the
 * exporter's weights.csv, or, best, the trace file the simulator names for
 * each kernel looked up in the trace folder (KS_UID_TRACE), which holds
 * also for a log of several runs whose uids restart at 1.  A run folder's
 * manifest lists each job's launches (warm-up ones included, and which are
 * measured), and the trace file a job's log names for each is checked
 * against that list.  Wherever the trace folder is known, the kernel name a
 * log gives is checked against the launch's.
 */
#include "simout.h"
#include "run_internal.h"
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------ uid -> launch id */

typedef struct uid_map {
    ks_uid_mode mode;
    int64_t base;
    const ks_plan *plan;
    const uint64_t *ids;            /* KS_UID_MAP and jobs: ids[uid - 1] */
    size_t count;
    const unsigned char *measured;  /* jobs: per position, 0 = a warm-up; NULL: all */
    const uint64_t *launches;       /* per position: the trace folder's launch, when it is
                                     * not the id (remapped); NULL: the id */
    const ks_trace_index *traces;   /* KS_UID_TRACE; and the checks */
    const char *what;               /* for messages: what the uids index */
} uid_map;

/* One kernel a simulator reported. */
typedef struct observation {
    long line;
    size_t run;
    uint64_t uid;         /* 1-based position in its run */
    const char *trace;    /* the trace file it names, or NULL */
    long trace_line;
    const char *name;     /* its kernel name, or NULL / "" */
} observation;

/* ksample's warm-state kernel (--warmup state) before a measured launch: no
 * launch of the trace folder; what the log names must be it. */
static ks_status warm_state_kernel(const observation *o, const char *path, ks_error *err)
{
    /* Accel-Sim: .../kernel-ksample-state-N.traceg; MacSim:
     * .../ksample-state-N/trace.txt */
    const char *t = o->trace, *base = t ? strrchr(t, '/') : NULL;
    base = base ? base + 1 : t;
    bool named = base && strncmp(base, KS_WARM_KERNEL_FILE_PREFIX,
                                 strlen(KS_WARM_KERNEL_FILE_PREFIX)) == 0;
    if (base && !named && strcmp(base, "trace.txt") == 0 && base > t + 1) {
        const char *folder = base - 1;
        while (folder > t && folder[-1] != '/')
            folder--;
        named = strncmp(folder, KS_WARM_MACSIM_FOLDER_PREFIX,
                        strlen(KS_WARM_MACSIM_FOLDER_PREFIX)) == 0;
    }
    if (o->trace && !named)
        return ks_error_set(err, KS_ERR_FORMAT, path, o->trace_line,
                            "kernel %llu of this run is '%.300s', but the job's list has "
                            "ksample's warm-state kernel there",
                            (unsigned long long)o->uid, o->trace);
    if (o->name && *o->name && strcmp(o->name, KS_WARM_KERNEL_NAME) != 0 &&
        strncmp(o->name, "kernel@", 7) != 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                            "kernel '%.200s' where the job's list has ksample's warm-state "
                            "kernel (%s)",
                            o->name, KS_WARM_KERNEL_NAME);
    return KS_OK;
}

/* The launch id of o; *keep is false for a warm-up kernel of a job and for
 * a kernel mapped by trace file that the plan did not sample. */
static ks_status resolve(const uid_map *m, const observation *o, const char *path,
                         uint64_t *id, bool *keep, ks_error *err)
{
    *keep = true;
    if (m->mode == KS_UID_TRACE) {
        if (!o->trace)
            return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                                "this kernel's log does not name its trace file, so it "
                                "cannot be matched by trace (map by uid instead: the "
                                "default, --uid-base or --uid-map)");
        long l = ks_trace_index_find(m->traces, o->trace);
        if (l < 0)
            return ks_error_set(err, KS_ERR_FORMAT, path, o->trace_line,
                                "'%.300s' is no launch of the trace folder", o->trace);
        *id = (uint64_t)l;
        if (m->plan && !ks_plan_has_sample(m->plan, *id))
            *keep = false;
    } else if (m->mode == KS_UID_BASE) {
        if ((int64_t)o->uid < m->base)
            return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                                "kernel %llu is below --uid-base %lld",
                                (unsigned long long)o->uid, (long long)m->base);
        *id = o->uid - (uint64_t)m->base;
        /* the trace the log names must be that launch's, as by position */
        long l = m->traces && o->trace ? ks_trace_index_find(m->traces, o->trace) : 0;
        if (m->traces && o->trace && (l < 0 || (uint64_t)l != *id))
            return ks_error_set(err, KS_ERR_FORMAT, path, o->trace_line,
                                "kernel %llu of this run is '%.300s' (%s), but --uid-base "
                                "%lld says launch %llu",
                                (unsigned long long)o->uid, o->trace,
                                l < 0 ? "no launch of the trace folder" : "another launch",
                                (long long)m->base, (unsigned long long)*id);
    } else {
        size_t count = m->mode == KS_UID_SAMPLED ? m->plan->sample_count : m->count;
        if (o->uid < 1 || o->uid > count)
            return ks_error_set(
                err, KS_ERR_FORMAT, path, o->line,
                "kernel %llu of its run, but %s has %zu launches (the k-th kernel a "
                "simulator ran is the k-th of them); if the simulator ran the whole "
                "program, use --uid-base 1",
                (unsigned long long)o->uid, m->what, count);
        *id = m->mode == KS_UID_SAMPLED ? m->plan->samples[o->uid - 1].id : m->ids[o->uid - 1];
        if (m->measured && m->measured[o->uid - 1] != 1)
            *keep = false;
        if (m->measured && m->measured[o->uid - 1] == 2)
            return warm_state_kernel(o, path, err);
        if (m->traces && o->trace) {
            long l = ks_trace_index_find(m->traces, o->trace);
            uint64_t want = m->launches ? m->launches[o->uid - 1] : *id;
            if (l < 0 || (uint64_t)l != want)
                return ks_error_set(
                    err, KS_ERR_FORMAT, path, o->trace_line,
                    "kernel %llu of this run is '%.300s' (%s), but %s says launch %llu",
                    (unsigned long long)o->uid, o->trace,
                    l < 0 ? "no launch of the trace folder" : "another launch", m->what,
                    (unsigned long long)want);
        }
    }
    if (m->traces && o->name && *o->name) {
        const char *want = ks_trace_index_name(m->traces, (size_t)*id);
        if (!want)
            return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                                "launch %llu is beyond the trace folder's %zu launches",
                                (unsigned long long)*id, ks_trace_index_count(m->traces));
        if (!ks_kernel_names_match(o->name, want))
            return ks_error_set(err, KS_ERR_FORMAT, path, o->line,
                                "kernel '%.200s' but launch %llu is '%.200s' in the trace "
                                "folder: these results are of other launches",
                                o->name, (unsigned long long)*id, want);
    }
    return KS_OK;
}

/* A simulator output's parser fed line by line: each line of in with its
 * length and number, to the end or the first failure. */
typedef ks_status line_fn(void *parser, char *line, size_t len, long number, ks_error *err);

static ks_status feed_lines(ks_input *in, line_fn *fn, void *parser, ks_error *err)
{
    ks_status st;
    char *line;
    size_t len;
    while ((st = ks_input_getline(in, &line, &len, NULL, err)) == KS_OK && line)
        if ((st = fn(parser, line, len, ks_input_line_number(in), err)) != KS_OK)
            break;
    return st;
}

static ks_status simlog_line(void *s, char *line, size_t len, long number, ks_error *err)
{
    return ks_simlog_line(s, line, len, number, err);
}

static ks_status macsim_log_line(void *m, char *line, size_t len, long number, ks_error *err)
{
    (void)len;
    return ks_macsim_log_line(m, line, number, err);
}

static ks_status getstats_line(void *g, char *line, size_t len, long number, ks_error *err)
{
    return ks_getstats_line(g, line, len, number, err);
}

/* ------------------------------------------------------ Accel-Sim logs */

/* A block kept back until its run ends (KS_MEASURED_LAST). */
typedef struct held_block {
    bool have;
    long line;
    size_t run;
    size_t uid_count, stat_count, stat_capacity, uid_capacity;
    uint64_t *uids;
    char **traces;
    long *trace_lines;
    char *kernel_name;
    char **names;
    double *values;
    uint64_t *wholes; /* ks_simlog_block.wholes */
    uint32_t (*dims)[6];
} held_block;

typedef struct log_ctx {
    ks_results *r;
    const uid_map *map;
    const ks_results_options *opt;
    const char *path;
    uint32_t source;
    /* metric of the i-th statistic of the last block: blocks list the same
     * statistics in the same order, so names are looked up once */
    size_t *hint;
    size_t hint_count;
    held_block held;
    double run_cycles; /* gpu_sim_cycle of the held block's run so far */
    size_t run_cycles_run;
    bool run_cycles_set;
    double all_cycles; /* gpu_sim_cycle of every block of the log */
    /* running totals (KS_STAT_RUNNING): per metric, its value at the last
     * block of run prev_run[m] - 1 (0 before its first block in a run), the
     * line of its first difference below 0 (0: none), and the block's
     * values with those totals differenced */
    double *prev;
    uint64_t *prev_whole; /* prev exactly where it is a count above 2^53 */
    size_t *prev_run;
    long *fell;
    size_t prev_capacity;
    double *diffed;
    uint64_t *diffed_whole; /* the differences' exact counts (ks_simlog_block.wholes) */
    size_t diffed_capacity;
    size_t block_run;  /* the run of the last block taken, and the line */
    long run_line;     /* its first block starts at */
} log_ctx;

static void held_clear(held_block *h)
{
    for (size_t i = 0; i < h->uid_count; i++)
        free(h->traces[i]);
    for (size_t i = 0; i < h->stat_count; i++)
        free(h->names[i]);
    free(h->kernel_name);
    h->kernel_name = NULL;
    h->uid_count = h->stat_count = 0;
    h->have = false;
}

static void held_free(held_block *h)
{
    held_clear(h);
    KS_FREE(h->uids, h->traces, h->trace_lines, h->names, h->values, h->wholes, h->dims);
}

static ks_status metric_of(log_ctx *c, size_t i, const char *name, size_t *m, ks_error *err)
{
    if (i < c->hint_count && c->hint[i] < c->r->metric_count &&
        strcmp(c->r->metrics[c->hint[i]], name) == 0) {
        *m = c->hint[i];
        return KS_OK;
    }
    ks_status st = ks_results_metric_index(c->r, name, m, err);
    if (st != KS_OK)
        return st;
    if (i >= c->hint_count) {
        size_t *h = realloc(c->hint, (i + 1) * sizeof *h);
        if (!h)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        for (size_t k = c->hint_count; k <= i; k++)
            h[k] = SIZE_MAX;
        c->hint = h;
        c->hint_count = i + 1;
    }
    c->hint[i] = *m;
    return KS_OK;
}

/* The block's kernel (its name when it reports one launch; grid and block
 * per uid) must be the plan's launch id: in the plan's profile when the
 * caller has it, else in the plan's kernel groups (ks_plan_check_launch).
 * What nothing could check is counted for the caller to say. */
static ks_status check_launch(log_ctx *c, const ks_simlog_block *b, size_t u, uint64_t id,
                              ks_error *err)
{
    if (!c->map->plan)
        return KS_OK;
    const char *name = b->uid_count == 1 ? b->kernel_name : NULL;
    const uint32_t *grid = b->dims ? b->dims[u] : NULL, *block = grid ? grid + 3 : NULL;
    unsigned checked = 0;
    ks_status st = ks_plan_check_launch(c->map->plan, c->opt->profile, id, name, grid, block,
                                        c->path, b->line, &checked, err);
    if (name && *name && !(checked & KS_CHECKED_NAME))
        c->r->unchecked_names++;
    if (grid && (grid[0] || block[0]) && !(checked & KS_CHECKED_DIMS))
        c->r->unchecked_dims++;
    return st;
}

/* The block's values with every running total made the block's own: its
 * difference from the last kernel of the same simulator run, warm-up
 * kernels included, so that a launch simulated after warm-up launches (or
 * in a whole program) gets its own share only.  A running total the block
 * does not print is unchanged (GPGPU-Sim prints some only once non-zero). */
static ks_status difference(log_ctx *c, const ks_simlog_block *b, ks_error *err)
{
    size_t cap0 = c->diffed_capacity;
    ks_status st = ks_grow((void **)&c->diffed_whole, &cap0, b->stat_count + 1,
                           sizeof *c->diffed_whole, err);
    if (st == KS_OK)
        st = ks_grow((void **)&c->diffed, &c->diffed_capacity, b->stat_count + 1,
                     sizeof *c->diffed, err);
    for (size_t i = 0; st == KS_OK && i < b->stat_count; i++) {
        size_t m;
        if ((st = metric_of(c, i, b->names[i], &m, err)) != KS_OK)
            break;
        uint64_t whole = b->wholes ? b->wholes[i] : 0;
        c->diffed[i] = b->values[i];
        c->diffed_whole[i] = whole;
        if (c->r->kinds[m] != KS_STAT_RUNNING)
            continue;
        if (m >= c->prev_capacity) {
            size_t cap = c->r->metric_count + 16;
            void **const cols[] = {(void **)&c->prev, (void **)&c->prev_whole,
                                   (void **)&c->prev_run, (void **)&c->fell};
            const size_t bytes[] = {sizeof *c->prev, sizeof *c->prev_whole, sizeof *c->prev_run,
                                    sizeof *c->fell};
            if (!ks_resize_columns(cols, bytes, 4, cap))
                return ks_error_set(err, KS_ERR_NOMEM, c->path, b->line, "out of memory");
            for (size_t k = c->prev_capacity; k < cap; k++)
                c->prev[k] = 0, c->prev_whole[k] = 0, c->prev_run[k] = 0, c->fell[k] = 0;
            c->prev_capacity = cap;
        }
        bool same_run = c->prev_run[m] == b->run + 1;
        double before = same_run ? c->prev[m] : 0;
        c->diffed[i] = b->values[i] - before;
        c->diffed_whole[i] = 0;
        if (whole || (same_run && c->prev_whole[m])) {
            /* counts above 2^53: the difference of the counts as printed */
            uint64_t now = whole ? whole : (uint64_t)b->values[i];
            uint64_t then = !same_run ? 0 : c->prev_whole[m] ? c->prev_whole[m]
                                                            : (uint64_t)c->prev[m];
            if (now >= then) {
                c->diffed[i] = (double)(now - then);
                c->diffed_whole[i] = now - then > (uint64_t)1 << 53 ? now - then : 0;
            }
        }
        if (c->diffed[i] < 0 && !c->fell[m])
            c->fell[m] = b->line;
        c->prev[m] = b->values[i];
        c->prev_whole[m] = whole;
        c->prev_run[m] = b->run + 1;
    }
    return st;
}

/* After the log: a running total that fell is no running total in this log
 * (a simulator that prints it per kernel): of unknown kind, so that it is
 * not estimated, and its differences, which are no launch's value (they go
 * below 0), are dropped from this log's rows and named in r->dropped (rates
 * made of it then lack a part and are not estimated either); one a block
 * did not print did not change there (0). */
static void running_finish(log_ctx *c)
{
    for (size_t m = 0; m < c->prev_capacity && m < c->r->metric_count; m++) {
        if (c->r->kinds[m] != KS_STAT_RUNNING || !c->prev_run[m])
            continue;
        if (c->fell[m]) {
            c->r->kinds[m] = KS_STAT_UNKNOWN;
            for (size_t row = 0; row < c->r->row_count; row++)
                if (c->r->source[row] == c->source)
                    c->r->values[m][row] = NAN;
            size_t n = strlen(c->r->dropped);
            if (n + 1 < sizeof c->r->dropped)
                snprintf(c->r->dropped + n, sizeof c->r->dropped - n,
                         "%s%s:%ld: %s, a running total, falls there: its values from this log "
                         "are left out",
                         n ? "; " : "", c->path, c->fell[m], c->r->metrics[m]);
            continue;
        }
        for (size_t row = 0; row < c->r->row_count; row++)
            if (c->r->source[row] == c->source && isnan(c->r->values[m][row]))
                c->r->values[m][row] = 0;
    }
}

/* A launch reported twice by one log: kernels that ran concurrently in one
 * simulator run (--concurrent split adds their blocks), or, in a log of
 * several runs, uids that restart in each run (no split would help). */
static ks_status twice_hint(const log_ctx *c, uint64_t id, ks_error *err)
{
    long have = ks_results_row(c->r, id);
    if (have < 0 || err->status != KS_ERR_FORMAT || !strstr(err->message, "reported twice"))
        return err->status;
    bool same_run = c->r->source[have] == c->source && c->r->source_line[have] >= c->run_line;
    char message[sizeof err->message], file[sizeof err->file];
    snprintf(message, sizeof message, "%s", err->message);
    snprintf(file, sizeof file, "%s", err->file);
    return ks_error_set(err, KS_ERR_FORMAT, file, err->line, "%s; %s", message,
                        same_run ? "if kernels ran concurrently, --concurrent split adds a "
                                   "launch's blocks"
                                 : "each simulator run in a log numbers its kernels from 1: "
                                   "match them by trace file (--traces) or map each run's "
                                   "uids (--uid-map)");
}

static ks_status take_block(log_ctx *c, const ks_simlog_block *b, ks_error *err)
{
    bool split = c->opt->concurrent == KS_CONCURRENT_SPLIT;
    if (c->run_line == 0 || b->run != c->block_run) {
        c->block_run = b->run;
        c->run_line = b->line;
    }
    if (b->uid_count == 0) {
        if (split)
            return KS_OK; /* nothing to attribute it to */
        return ks_error_set(err, KS_ERR_FORMAT, c->path, b->line,
                            "a statistics block without a kernel_launch_uid");
    }
    if (b->uid_count > 1 && !split)
        return ks_error_set(err, KS_ERR_FORMAT, c->path, b->line,
                            "this block lists %zu kernel_launch_uids (%llu %llu%s): kernels "
                            "ran concurrently and its cycles cannot be attributed to one "
                            "launch; --concurrent split shares its values equally",
                            b->uid_count, (unsigned long long)b->uids[0],
                            (unsigned long long)b->uids[1], b->uid_count > 2 ? " ..." : "");
    for (size_t u = 0; u < b->uid_count; u++) {
        observation o = {b->line, b->run, b->uids[u], b->traces ? b->traces[u] : NULL,
                         b->trace_lines ? b->trace_lines[u] : 0,
                         b->uid_count == 1 ? b->kernel_name : NULL};
        uint64_t id = 0;
        bool keep;
        size_t row = 0;
        ks_status st = resolve(c->map, &o, c->path, &id, &keep, err);
        if (st != KS_OK)
            return st;
        if (!keep) {
            c->r->warmup_blocks++;
            continue;
        }
        if ((st = check_launch(c, b, u, id, err)) != KS_OK)
            return st;
        st = ks_results_row_for(c->r, id, c->source, b->line, split, &row, err);
        if (st != KS_OK && !split)
            st = twice_hint(c, id, err);
        for (size_t i = 0; i < b->stat_count && st == KS_OK; i++) {
            size_t m;
            if ((st = metric_of(c, i, b->names[i], &m, err)) != KS_OK)
                break;
            if (b->wholes && b->wholes[i] && b->uid_count == 1 && !split)
                st = ks_results_put_count(c->r, row, m, b->wholes[i], err);
            else
                ks_results_put(c->r, row, m, b->values[i] / (double)b->uid_count, split);
        }
        if (st != KS_OK)
            return st;
    }
    return KS_OK;
}

static double block_cycles(const ks_simlog_block *b)
{
    for (size_t i = 0; i < b->stat_count; i++)
        if (strcmp(b->names[i], "gpu_sim_cycle") == 0)
            return b->values[i];
    return NAN;
}

/* The measured launch of a run also gets run_cycles: every cycle its
 * simulator process ran, warm-up kernels included (what the value cost). */
static ks_status put_run_cycles(ks_results *r, uint64_t id, double cycles, ks_error *err)
{
    long row = ks_results_row(r, id);
    size_t m;
    ks_status st = row >= 0 && !isnan(cycles) ? ks_results_metric_index(r, "run_cycles", &m, err)
                                               : KS_OK;
    if (st == KS_OK && row >= 0 && !isnan(cycles))
        ks_results_put(r, (size_t)row, m, cycles, false);
    return st;
}

static ks_status take_held(log_ctx *c, ks_error *err)
{
    held_block *h = &c->held;
    if (!h->have)
        return KS_OK;
    size_t rows_before = c->r->row_count;
    ks_simlog_block b = {h->line,        h->uid_count, h->uids,
                         h->stat_count,  (const char *const *)h->names,
                         h->values,      h->kernel_name,
                         h->run,         (const char *const *)h->traces,
                         h->trace_lines, (const uint32_t(*)[6])h->dims, h->wholes};
    ks_status st = take_block(c, &b, err);
    if (st == KS_OK && h->uid_count == 1 && c->r->row_count == rows_before + 1)
        st = put_run_cycles(c->r, c->r->ids[rows_before], c->run_cycles, err);
    held_clear(h);
    return st;
}

static ks_status hold(log_ctx *c, const ks_simlog_block *b, ks_error *err)
{
    held_block *h = &c->held;
    held_clear(h);
    size_t cap = h->uid_capacity, cap2 = h->uid_capacity;
    ks_status st = ks_grow((void **)&h->uids, &cap, b->uid_count + 1, sizeof *h->uids, err);
    if (st == KS_OK)
        st = ks_grow((void **)&h->traces, &cap2, b->uid_count + 1, sizeof *h->traces, err);
    size_t cap3 = h->uid_capacity;
    if (st == KS_OK)
        st = ks_grow((void **)&h->dims, &cap3, b->uid_count + 1, sizeof *h->dims, err);
    if (st == KS_OK)
        st = ks_grow((void **)&h->trace_lines, &h->uid_capacity, b->uid_count + 1,
                     sizeof *h->trace_lines, err);
    cap = h->stat_capacity;
    if (st == KS_OK)
        st = ks_grow((void **)&h->names, &cap, b->stat_count + 1, sizeof *h->names, err);
    size_t cap4 = h->stat_capacity;
    if (st == KS_OK)
        st = ks_grow((void **)&h->wholes, &cap4, b->stat_count + 1, sizeof *h->wholes, err);
    if (st == KS_OK)
        st = ks_grow((void **)&h->values, &h->stat_capacity, b->stat_count + 1,
                     sizeof *h->values, err);
    if (st != KS_OK)
        return st;
    h->line = b->line;
    h->run = b->run;
    for (size_t u = 0; u < b->uid_count; u++) {
        h->uids[u] = b->uids[u];
        h->traces[u] = b->traces && b->traces[u] ? strdup(b->traces[u]) : NULL;
        h->trace_lines[u] = b->trace_lines ? b->trace_lines[u] : 0;
        if (b->dims)
            memcpy(h->dims[u], b->dims[u], sizeof h->dims[u]);
        else
            memset(h->dims[u], 0, sizeof h->dims[u]);
        h->uid_count = u + 1;
        if (b->traces && b->traces[u] && !h->traces[u])
            return ks_error_set(err, KS_ERR_NOMEM, c->path, b->line, "out of memory");
    }
    for (size_t i = 0; i < b->stat_count; i++) {
        if (!(h->names[i] = strdup(b->names[i])))
            return ks_error_set(err, KS_ERR_NOMEM, c->path, b->line, "out of memory");
        h->values[i] = b->values[i];
        h->wholes[i] = b->wholes ? b->wholes[i] : 0;
        h->stat_count = i + 1;
    }
    if (!(h->kernel_name = strdup(b->kernel_name)))
        return ks_error_set(err, KS_ERR_NOMEM, c->path, b->line, "out of memory");
    h->have = true;
    return KS_OK;
}

static ks_status on_block(void *vctx, const ks_simlog_block *raw, ks_error *err)
{
    log_ctx *c = vctx;
    ks_status dst = difference(c, raw, err);
    if (dst != KS_OK)
        return dst;
    ks_simlog_block own = *raw;
    own.values = c->diffed;
    own.wholes = c->diffed_whole;
    const ks_simlog_block *b = &own;
    c->all_cycles += block_cycles(b);
    if (c->opt->measured != KS_MEASURED_LAST)
        return take_block(c, b, err);
    /* only the last block of each run is a result */
    if (c->held.have && c->held.run == b->run) {
        c->r->warmup_blocks += c->held.uid_count;
        held_clear(&c->held);
    }
    ks_status st = take_held(c, err);
    if (st != KS_OK)
        return st;
    if (!c->held.have && (c->run_cycles_run != b->run || !c->run_cycles_set)) {
        c->run_cycles = 0;
        c->run_cycles_run = b->run;
        c->run_cycles_set = true;
    }
    c->run_cycles += block_cycles(b);
    return hold(c, b, err);
}

static ks_status read_accelsim_log(ks_input *in, const char *path, const uid_map *map,
                                   const ks_results_options *opt, const char *warmup,
                                   ks_results *r, double *all_cycles, ks_error *err)
{
    log_ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.map = map;
    c.opt = opt;
    c.path = path;
    ks_status st = ks_results_add_source(r, path, warmup, &c.source, err);
    if (st != KS_OK)
        return st;
    ks_simlog *s;
    if ((st = ks_simlog_new(path, on_block, &c, &s, err)) != KS_OK)
        return st;
    st = feed_lines(in, simlog_line, s, err);
    size_t blocks = 0;
    if (st == KS_OK)
        st = ks_simlog_finish(s, &blocks, err);
    if (st == KS_OK)
        st = take_held(&c, err);
    if (st == KS_OK)
        running_finish(&c);
    ks_simlog_free(s);
    held_free(&c.held);
    KS_FREE(c.hint, c.prev, c.prev_whole, c.prev_run, c.fell, c.diffed, c.diffed_whole);
    if (all_cycles)
        *all_cycles = c.all_cycles;
    if (st == KS_OK && blocks == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          "no per-kernel statistics (kernel_name / kernel_launch_uid blocks): "
                          "the simulator may have stopped before the first kernel ended (a "
                          "results CSV starts with the header id,<metric>,...)");
    return st;
}

/* --------------------------------------------------------- MacSim logs */

typedef struct macsim_ctx {
    ks_results *r;
    const uid_map *map;
    const ks_results_options *opt;
    const char *path;
    uint32_t source;
    size_t metric;  /* "cycles" */
    long last_row;  /* the row of the last kernel taken, -1 when none */
    double run_cycles;
    double all_cycles;
} macsim_ctx;

static ks_status on_kernel(void *vctx, const ks_macsim_kernel *k, ks_error *err)
{
    macsim_ctx *c = vctx;
    c->last_row = -1;
    if (k->index == 0)
        c->run_cycles = 0;
    c->run_cycles += (double)k->cycles;
    c->all_cycles += (double)k->cycles;
    if (c->opt->measured == KS_MEASURED_LAST && k->index + 1 != k->count) {
        c->r->warmup_blocks++;
        return KS_OK;
    }
    /* --uid-base: a whole-program run, so it ran every launch of the plan */
    const uid_map *m = c->map;
    if (m->mode == KS_UID_BASE && m->plan && m->base >= 1 &&
        k->count != m->plan->population + (uint64_t)(m->base - 1))
        return ks_error_set(err, KS_ERR_FORMAT, c->path, k->line,
                            "this run simulated %llu kernels, but with --uid-base %lld a "
                            "whole-program run of the plan's %llu launches has %llu: these "
                            "results are of another program",
                            (unsigned long long)k->count, (long long)m->base,
                            (unsigned long long)m->plan->population,
                            (unsigned long long)(m->plan->population + (uint64_t)(m->base - 1)));
    observation o = {k->line, k->run, k->index + 1, k->trace, k->line, NULL};
    uint64_t id;
    bool keep;
    size_t row;
    ks_status st = resolve(c->map, &o, c->path, &id, &keep, err);
    if (st != KS_OK)
        return st;
    if (!keep) {
        c->r->warmup_blocks++;
        return KS_OK;
    }
    if ((st = ks_results_row_for(c->r, id, c->source, k->line, false, &row, err)) != KS_OK)
        return st;
    if ((st = ks_results_put_count(c->r, row, c->metric, k->cycles, err)) != KS_OK)
        return st;
    c->last_row = (long)row;
    if (c->opt->measured == KS_MEASURED_LAST)
        return put_run_cycles(c->r, id, c->run_cycles, err);
    return KS_OK;
}

static ks_status read_macsim_log(ks_input *in, const char *path, const uid_map *map,
                                 const ks_results_options *opt, const char *warmup,
                                 ks_results *r, long *last_row, size_t *kernels,
                                 double *all_cycles, ks_error *err)
{
    macsim_ctx c = {r, map, opt, path, 0, 0, -1, 0, 0};
    ks_status st = ks_results_add_source(r, path, warmup, &c.source, err);
    if (st == KS_OK)
        st = ks_results_metric_index(r, "cycles", &c.metric, err);
    if (st != KS_OK)
        return st;
    ks_macsim_log *m;
    if ((st = ks_macsim_log_new(path, on_kernel, &c, &m, err)) != KS_OK)
        return st;
    st = feed_lines(in, macsim_log_line, m, err);
    size_t n = 0;
    if (st == KS_OK)
        st = ks_macsim_log_finish(m, &n, err);
    ks_macsim_log_free(m);
    if (st == KS_OK && n == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          "no kernel ran to its end (no setup_process line followed by the "
                          "next kernel's or 'application ... terminated')");
    if (last_row)
        *last_row = c.last_row;
    if (kernels)
        *kernels = n;
    if (all_cycles)
        *all_cycles = c.all_cycles;
    return st;
}

/* A MacSim job of one kernel: every statistic of its general.stat.out is
 * that kernel's. */
static ks_status read_macsim_stats(const char *path, ks_results *r, size_t row, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open_file(path, &in, err);
    if (st != KS_OK)
        return st;
    while (st == KS_OK) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK || !line)
            break;
        char name[128];
        double v;
        bool found;
        st = ks_macsim_stats_line(line, ks_input_line_number(in), path, name, sizeof name, &v,
                                  &found, err);
        size_t m;
        if (st == KS_OK && found && (st = ks_results_metric_index(r, name, &m, err)) == KS_OK &&
            isnan(r->values[m][row]))
            ks_results_put(r, row, m, v, false);
    }
    ks_input_close(in);
    return st;
}

/* ----------------------------------------------------- get_stats.py CSV */

typedef struct gs_label {
    char *app, *kernel;
    long instance;
    double *values;     /* per metric of the table below, NAN when missing */
    bool any;           /* some value in the chosen config */
    long line;
} gs_label;

typedef struct gs_table {
    const ks_results_options *opt;
    const char *path;
    const char *app, *config; /* the chosen ones, or the first seen */
    char **regexes;           /* per metric: the section it came from */
    char **metrics;
    size_t metric_count;
    gs_label *labels;
    size_t label_count, label_capacity, cursor;
    char **apps, **configs;
    size_t app_count, config_count;
    bool per_name;  /* labels without a launch number: -k alone */
    bool final;     /* "final_kernel": no -k */
    /* the cells that are counts above 2^53, exactly (a double rounds them):
     * label, metric and count, few or none */
    struct gs_whole {
        size_t label, metric;
        uint64_t count;
    } *wholes;
    size_t whole_count, whole_capacity;
} gs_table;

static ks_status remember(char ***list, size_t *count, const char *s, ks_error *err)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*list)[i], s) == 0)
            return KS_OK;
    char **l = realloc(*list, (*count + 1) * sizeof *l);
    if (!l)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    *list = l;
    if (!(l[*count] = strdup(s)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ++*count;
    return KS_OK;
}

/* The metric of a section; two regexes of one name (gpgpu_simulation_rate
 * in inst/sec and in cycle/sec) become name and name_2. */
static long gs_metric(gs_table *t, const char *regex, const char *name, ks_error *err)
{
    unsigned same = 0;
    for (size_t i = 0; i < t->metric_count; i++) {
        if (strcmp(t->regexes[i], regex) == 0)
            return (long)i;
        size_t n = strlen(name);
        if (strncmp(t->metrics[i], name, n) == 0 &&
            (t->metrics[i][n] == '\0' || t->metrics[i][n] == '_'))
            same++;
    }
    char unique[300];
    if (same)
        snprintf(unique, sizeof unique, "%.280s_%u", name, same + 1);
    else
        snprintf(unique, sizeof unique, "%.280s", name);
    char **m = realloc(t->metrics, (t->metric_count + 1) * sizeof *m);
    char **rx = m ? realloc(t->regexes, (t->metric_count + 1) * sizeof *rx) : NULL;
    if (m)
        t->metrics = m;
    if (rx)
        t->regexes = rx;
    if (!m || !rx || !(m[t->metric_count] = strdup(unique))) {
        ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        return -1;
    }
    if (!(rx[t->metric_count] = strdup(regex))) {
        free(m[t->metric_count]);
        ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < t->label_count; i++) {
        double *v = realloc(t->labels[i].values, (t->metric_count + 1) * sizeof *v);
        if (!v) {
            ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            return -1;
        }
        v[t->metric_count] = NAN;
        t->labels[i].values = v;
    }
    return (long)t->metric_count++;
}

static gs_label *gs_find(gs_table *t, const ks_getstats_value *v, ks_error *err)
{
    for (size_t k = 0; k < t->label_count; k++) {
        size_t i = (t->cursor + k) % t->label_count;
        gs_label *l = &t->labels[i];
        if (l->instance == v->instance && strcmp(l->kernel, v->kernel) == 0 &&
            strcmp(l->app, v->app) == 0) {
            t->cursor = i + 1;
            return l;
        }
    }
    if (ks_grow((void **)&t->labels, &t->label_capacity, t->label_count + 1, sizeof *t->labels,
                err) != KS_OK)
        return NULL;
    gs_label *l = &t->labels[t->label_count];
    memset(l, 0, sizeof *l);
    l->instance = v->instance;
    l->line = v->line;
    l->app = strdup(v->app);
    l->kernel = strdup(v->kernel);
    l->values = malloc((t->metric_count + 1) * sizeof *l->values);
    if (!l->app || !l->kernel || !l->values) {
        KS_FREE(l->app, l->kernel, l->values);
        ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        return NULL;
    }
    for (size_t m = 0; m < t->metric_count; m++)
        l->values[m] = NAN;
    t->label_count++;
    t->cursor = t->label_count;
    return l;
}

static ks_status gs_cell(void *ctx, const ks_getstats_value *v, ks_error *err)
{
    gs_table *t = ctx;
    if (strcmp(v->kernel, "all_kernels") == 0)
        return KS_OK; /* the build strings of the whole run */
    ks_status st = remember(&t->apps, &t->app_count, v->app, err);
    if (st == KS_OK)
        st = remember(&t->configs, &t->config_count, v->config, err);
    if (st != KS_OK)
        return st;
    if (strcmp(v->kernel, "") == 0 || strcmp(v->kernel, "final_kernel") == 0) {
        t->final = true;
        return KS_OK;
    }
    if (v->instance < 0) {
        t->per_name = true;
        return KS_OK;
    }
    if (strcmp(v->stat, "kernel_launch_uid") == 0)
        return KS_OK; /* get_stats.py differences it like a running total */
    /* one application and configuration: the chosen ones, else the first
     * (more than one without a choice is refused at the end) */
    if (!t->app)
        t->app = t->opt->app ? t->opt->app : t->apps[t->app_count - 1];
    if (!t->config)
        t->config = t->opt->config ? t->opt->config : t->configs[t->config_count - 1];
    if (strcmp(v->app, t->app) != 0 || strcmp(v->config, t->config) != 0)
        return KS_OK;
    if (!v->missing && !v->numeric)
        return ks_error_set(err, KS_ERR_FORMAT, t->path, v->line,
                            "the cell of %s--%s--%ld, %s, configuration %s: '%.40s' is not "
                            "a number",
                            v->app, v->kernel, v->instance, v->stat, v->config, v->text);
    long m = gs_metric(t, v->stat_regex, v->stat, err);
    gs_label *l = m >= 0 ? gs_find(t, v, err) : NULL;
    if (!l)
        return err->status; /* set by gs_metric or gs_find */
    if (!v->missing) {
        if (!isnan(l->values[m]))
            return ks_error_set(err, KS_ERR_FORMAT, t->path, v->line,
                                "%s--%s--%ld has two values of %s in configuration %s",
                                v->app, v->kernel, v->instance, v->stat, v->config);
        l->values[m] = v->value;
        l->any = true;
        if (v->count) {
            if (ks_grow((void **)&t->wholes, &t->whole_capacity, t->whole_count + 1,
                        sizeof *t->wholes, err) != KS_OK)
                return err->status;
            t->wholes[t->whole_count++] = (struct gs_whole){(size_t)(l - t->labels),
                                                            (size_t)m, v->count};
        }
    }
    return KS_OK;
}

static void gs_free(gs_table *t)
{
    free(t->wholes);
    for (size_t i = 0; i < t->label_count; i++)
        KS_FREE(t->labels[i].app, t->labels[i].kernel, t->labels[i].values);
    for (size_t i = 0; i < t->metric_count; i++) {
        free(t->metrics[i]);
        free(t->regexes[i]);
    }
    free(t->regexes);
    for (size_t i = 0; i < t->app_count; i++)
        free(t->apps[i]);
    for (size_t i = 0; i < t->config_count; i++)
        free(t->configs[i]);
    KS_FREE(t->labels, t->metrics, t->apps, t->configs);
}

/* "a, b, c" of a list, into buf */
static const char *listing(char **items, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", items[i]);
    return buf;
}

static ks_status gs_choose(gs_table *t, const char *what, const char *option, char **items,
                           size_t n, const char *chosen, ks_error *err)
{
    char buf[600];
    if (chosen) {
        for (size_t i = 0; i < n; i++)
            if (strcmp(items[i], chosen) == 0)
                return KS_OK;
        return ks_error_set(err, KS_ERR_USAGE, t->path, 0, "no %s '%s' here; it has %s", what,
                            chosen, listing(items, n, buf, sizeof buf));
    }
    if (n > 1)
        return ks_error_set(err, KS_ERR_USAGE, t->path, 0,
                            "%zu %ss (%s): choose one with %s", n, what,
                            listing(items, n, buf, sizeof buf), option);
    return KS_OK;
}

static ks_status read_getstats(ks_input *in, const char *path, const uid_map *map,
                               const ks_results_options *opt, const char *warmup,
                               ks_results *r, ks_error *err)
{
    gs_table t;
    memset(&t, 0, sizeof t);
    t.opt = opt;
    t.path = path;
    ks_getstats *g;
    ks_status st = ks_getstats_new(path, gs_cell, &t, &g, err);
    if (st == KS_OK)
        st = feed_lines(in, getstats_line, g, err);
    if (st == KS_OK)
        st = ks_getstats_finish(g, NULL, err);
    ks_getstats_free(g);
    if (st == KS_OK)
        st = gs_choose(&t, "application", "--app", t.apps, t.app_count, opt->app, err);
    if (st == KS_OK)
        st = gs_choose(&t, "configuration", "--config", t.configs, t.config_count, opt->config,
                       err);
    if (st == KS_OK && t.label_count == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          t.per_name ? "values per kernel name, not per launch: run "
                                       "get_stats.py with -k -K"
                          : t.final  ? "values of the whole run only: run get_stats.py with "
                                       "-k -K for one value per launch"
                                     : "no per-launch values");
    if (st == KS_OK && map->mode == KS_UID_TRACE)
        st = ks_error_set(err, KS_ERR_USAGE, path, 0,
                          "a get_stats.py CSV names no trace files: its launches are matched "
                          "by their order (the default, --uid-base or --uid-map)");
    uint32_t source = 0;
    if (st == KS_OK)
        st = ks_results_add_source(r, path, warmup, &source, err);
    /* the launches this configuration ran, in the order it ran them */
    size_t ran = 0, last = SIZE_MAX;
    for (size_t i = 0; i < t.label_count; i++)
        if (t.labels[i].any)
            last = i;
    for (size_t i = 0; i < t.label_count && st == KS_OK; i++) {
        gs_label *l = &t.labels[i];
        if (!l->any)
            continue;
        ran++;
        if (opt->measured == KS_MEASURED_LAST && i != last) {
            r->warmup_blocks++;
            continue;
        }
        observation o = {l->line, 0, ran, NULL, 0, l->kernel};
        uint64_t id;
        bool keep;
        size_t row;
        if ((st = resolve(map, &o, path, &id, &keep, err)) != KS_OK)
            break;
        if (!keep) {
            r->warmup_blocks++;
            continue;
        }
        /* its kernel name must be the plan's launch's (issue 25) */
        unsigned checked = 0;
        if (map->plan && (st = ks_plan_check_launch(map->plan, opt->profile, id, l->kernel, NULL,
                                                    NULL, path, l->line, &checked, err)) != KS_OK)
            break;
        if (l->kernel && *l->kernel && !(checked & KS_CHECKED_NAME))
            r->unchecked_names++;
        if ((st = ks_results_row_for(r, id, source, l->line, false, &row, err)) != KS_OK)
            break;
        for (size_t m = 0; m < t.metric_count && st == KS_OK; m++) {
            size_t col;
            if (isnan(l->values[m]))
                continue;
            if ((st = ks_results_metric_index(r, t.metrics[m], &col, err)) != KS_OK)
                break;
            ks_results_put(r, row, col, l->values[m], false);
            for (size_t w = 0; w < t.whole_count && st == KS_OK; w++)
                if (t.wholes[w].label == i && t.wholes[w].metric == m)
                    st = ks_results_put_count(r, row, col, t.wholes[w].count, err);
        }
    }
    gs_free(&t);
    return st;
}

/* ------------------------------------------------------------ one file */

typedef enum { OUT_ACCELSIM, OUT_MACSIM, OUT_GETSTATS, OUT_CSV } output_kind;

static output_kind kind_of(const char *head, size_t len)
{
    size_t skip = len >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (len - skip >= 3 && memcmp(head + skip, "id,", 3) == 0)
        return OUT_CSV;
    if (ks_getstats_detect(head + skip, len - skip))
        return OUT_GETSTATS;
    if (ks_macsim_log_detect(head, len) && !ks_simlog_detect(head, len))
        return OUT_MACSIM;
    return OUT_ACCELSIM;
}

static ks_status read_output(ks_input *in, const char *path, const char *head, size_t len,
                             const uid_map *map, const ks_results_options *opt,
                             const char *warmup, ks_results *r, long *macsim_row,
                             size_t *macsim_kernels, double *all_cycles, ks_error *err)
{
    if (macsim_row)
        *macsim_row = -1;
    if (all_cycles)
        *all_cycles = NAN;
    switch (kind_of(head, len)) {
    case OUT_CSV: {
        ks_status st = ks_results_read_csv(in, path, r, err);
        /* how its values were simulated, as for a log (--warmup) */
        if (st == KS_OK && warmup && *warmup && r->source_count && r->source_warmup) {
            char *w = strdup(warmup);
            if (!w)
                return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
            free(r->source_warmup[r->source_count - 1]);
            r->source_warmup[r->source_count - 1] = w;
        }
        return st;
    }
    case OUT_GETSTATS:
        return read_getstats(in, path, map, opt, warmup, r, err);
    case OUT_MACSIM:
        return read_macsim_log(in, path, map, opt, warmup, r, macsim_row, macsim_kernels,
                               all_cycles, err);
    case OUT_ACCELSIM:
        break;
    }
    if (len == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "empty results file");
    return read_accelsim_log(in, path, map, opt, warmup, r, all_cycles, err);
}

ks_results_kind ks_results_detect(const char *path, ks_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return KS_RESULTS_RUN_FOLDER;
    ks_input *in;
    const char *head;
    size_t len;
    if (ks_input_open_peek(path, &in, &head, &len, err) != KS_OK)
        return KS_RESULTS_UNREADABLE;
    ks_results_kind k;
    switch (kind_of(head, len)) {
    case OUT_CSV: k = KS_RESULTS_CSV; break;
    case OUT_GETSTATS: k = KS_RESULTS_GETSTATS; break;
    case OUT_MACSIM: k = KS_RESULTS_MACSIM_LOG; break;
    default:
        k = ks_simlog_detect(head, len) ? KS_RESULTS_ACCELSIM_LOG : KS_RESULTS_UNKNOWN;
        break;
    }
    ks_input_close(in);
    return k;
}

/* ---------------------------------------------------------- run folders */

/* state:split lists each sampled launch's warm-up kernel, which the walk
 * writes only where the launch's misses evict dirty lines (after the
 * manifest): those the job's folder lacks are left out of *view, whose
 * arrays (*owned) the caller frees. */
static ks_status split_listing(const char *root, const ks_run_manifest *m,
                               const ks_run_manifest_job *job, ks_run_manifest_job *view,
                               void **owned, ks_error *err)
{
    *view = *job;
    *owned = NULL;
    if (!m->warmup || strcmp(m->warmup, "state:split") != 0 || !job->measured)
        return KS_OK;
    size_t n = job->id_count;
    char *block = malloc((n + 1) * (2 * sizeof(uint64_t) + 1));
    if (!block)
        return ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
    uint64_t *ids = (uint64_t *)block, *launches = ids + n + 1;
    unsigned char *measured = (unsigned char *)(launches + n + 1);
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        if (job->measured[k] == 2) {
            char name[KS_WARM_KERNEL_FILE_SIZE];
            uint64_t launch = job->launches ? job->launches[k] : job->ids[k];
            char *kernel = ks_run_job_file(root, job->dir, ks_warm_kernel_file(name, launch));
            if (!kernel) {
                free(block);
                return ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
            }
            struct stat sb;
            bool there = lstat(kernel, &sb) == 0;
            free(kernel);
            if (!there)
                continue;
        }
        ids[kept] = job->ids[k];
        launches[kept] = job->launches ? job->launches[k] : job->ids[k];
        measured[kept++] = job->measured[k];
    }
    view->ids = ids;
    view->launches = job->launches ? launches : NULL;
    view->measured = measured;
    view->id_count = kept;
    *owned = block;
    return KS_OK;
}

/* A job's log numbers its kernels from 1 in the order of the job's list;
 * warm-up launches are in the list but not results. */
static ks_status read_job(const char *root, const ks_run_manifest *m, size_t j,
                          const ks_plan *plan, const ks_trace_index *traces,
                          const ks_results_options *opt, ks_results *r, ks_error *err)
{
    ks_run_manifest_job split_view;
    void *owned;
    ks_status sst = split_listing(root, m, &m->jobs[j], &split_view, &owned, err);
    if (sst != KS_OK)
        return sst;
    const ks_run_manifest_job *job = &split_view;
    char *path = ks_run_job_file(root, job->dir, "sim.log");
    if (!path) {
        free(owned);
        return ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
    }
    uid_map map = {KS_UID_MAP, 0,        plan,   job->ids, job->id_count, job->measured,
                   job->launches, traces, "this job's list"};
    ks_results_options o = *opt;
    o.measured = KS_MEASURED_ALL;
    ks_input *in;
    const char *head;
    size_t len;
    long row = -1;
    size_t kernels = 0;
    double all_cycles = NAN;
    ks_status st = ks_input_open_peek(path, &in, &head, &len, err);
    if (st == KS_OK) {
        st = read_output(in, path, head, len, &map, &o, m->warmup ? m->warmup : "", r, &row,
                         &kernels, &all_cycles, err);
        ks_input_close(in);
    }
    free(path);
    /* a job of one measured launch: what it cost, warm-up included */
    size_t measured = 0, at = 0;
    for (size_t k = 0; k < job->id_count; k++)
        if (!job->measured || job->measured[k] == 1) {
            measured++;
            at = k;
        }
    if (st == KS_OK && measured == 1 && !isnan(all_cycles))
        st = put_run_cycles(r, job->ids[at], all_cycles, err);
    /* a MacSim job of one kernel: its general.stat.out is that kernel's */
    if (st == KS_OK && row >= 0 && kernels == 1 && job->id_count == 1) {
        char *stats = ks_run_job_file(root, job->dir, "general.stat.out");
        struct stat sb;
        if (!stats)
            st = ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
        else if (stat(stats, &sb) == 0)
            st = read_macsim_stats(stats, r, (size_t)row, err);
        free(stats);
    }
    free(owned);
    return st;
}

/* An earlier plan of the folder (a refined plan ran into it since): its
 * jobs are those that measure only its launches.  view's jobs are shallow
 * copies of m's (free view->jobs alone). */
static ks_status earlier_jobs(const ks_run_manifest *m, const ks_plan *plan,
                              ks_run_manifest *view, ks_error *err)
{
    *view = *m;
    view->job_count = 0;
    if (!(view->jobs = calloc(m->job_count ? m->job_count : 1, sizeof *view->jobs)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t j = 0; j < m->job_count; j++) {
        const ks_run_manifest_job *job = &m->jobs[j];
        bool mine = true;
        for (size_t k = 0; k < job->id_count && mine; k++)
            if (!job->measured || job->measured[k] == 1)
                mine = ks_plan_has_sample(plan, job->ids[k]);
        if (mine)
            view->jobs[view->job_count++] = *job;
    }
    return KS_OK;
}

static ks_status read_rundir(const char *root, const ks_plan *plan,
                             const ks_results_options *opt, ks_results *r, ks_error *err)
{
    char *path = ks_path_join(root, "manifest.json");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, root, 0, "out of memory");
    ks_run_manifest m;
    ks_status st = ks_run_manifest_read(path, &m, err);
    if (st != KS_OK) {
        free(path);
        return st;
    }
    /* the folder's plan, or one it was run for before a refined plan
     * reused its jobs */
    int kind = opt->plan_xxh128 ? ks_run_manifest_plan_kind(&m, opt->plan_xxh128) : 1;
    if (kind == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                          "this run is of another plan (plan_xxh128 %s%s; the plan given is "
                          "%s)",
                          m.plan_xxh128, m.earlier_count ? ", and earlier plans" : "",
                          opt->plan_xxh128);
    if (st == KS_OK && !plan)
        st = ks_error_set(err, KS_ERR_USAGE, root, 0, "a run folder is read with its plan");
    ks_run_manifest view = {0};
    if (st == KS_OK && kind == 2 && (st = earlier_jobs(&m, plan, &view, err)) == KS_OK) {
        ks_run_manifest_job *all = m.jobs;
        size_t all_count = m.job_count;
        m.jobs = view.jobs; /* m's own fields stay: warm-up, traces */
        m.job_count = view.job_count;
        view.jobs = all;
        view.job_count = all_count;
    }
    if (st == KS_OK)
        st = ks_run_check_complete(root, &m, err);
    ks_trace_index *traces = NULL;
    const char *tdir = opt->traces ? opt->traces : m.traces;
    if (st == KS_OK && tdir && *tdir)
        st = ks_trace_index_open(tdir, &traces, err);
    for (size_t j = 0; st == KS_OK && j < m.job_count; j++)
        st = read_job(root, &m, j, plan, traces, opt, r, err);
    ks_trace_index_free(traces);
    if (view.jobs) { /* m holds the earlier plan's jobs, view all of them */
        free(m.jobs);
        m.jobs = view.jobs;
        m.job_count = view.job_count;
    }
    ks_run_manifest_free(&m);
    free(path);
    return st;
}

/* ------------------------------------------------------------- entry */

ks_status ks_results_read(const char *path, const ks_plan *plan, const ks_results_options *opt,
                          ks_results *r, ks_error *err)
{
    if (!plan && opt->uid_mode != KS_UID_TRACE && opt->uid_mode != KS_UID_BASE)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "results without a plan are matched by trace file or uid base");
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return read_rundir(path, plan, opt, r, err);
    if (opt->uid_mode == KS_UID_TRACE && !opt->traces)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "matching by trace file needs the trace folder");
    ks_input *in;
    const char *head;
    size_t len;
    ks_status st = ks_input_open_peek(path, &in, &head, &len, err);
    if (st != KS_OK)
        return st;
    uint64_t *ids = NULL;
    unsigned char *measured = NULL;
    uint64_t *launches = NULL;
    size_t count = 0;
    ks_trace_index *traces = NULL;
    if (opt->uid_mode == KS_UID_MAP) {
        if (!opt->uid_map)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "no uid map file given");
        else
            st = ks_results_read_uid_map(opt->uid_map, &ids, &count, &measured, &launches,
                                         err);
    }
    if (st == KS_OK && opt->traces && kind_of(head, len) != OUT_CSV)
        st = ks_trace_index_open(opt->traces, &traces, err);
    uid_map map = {opt->uid_mode, opt->uid_base, plan, ids, count, measured, launches, traces,
                   opt->uid_mode == KS_UID_MAP ? "the uid map" : "the plan"};
    if (st == KS_OK)
        st = read_output(in, path, head, len, &map, opt, opt->warmup, r, NULL, NULL, NULL, err);
    ks_trace_index_free(traces);
    KS_FREE(ids, measured, launches);
    ks_input_close(in);
    return st;
}
