/*
 * warm_state.c - `--warmup state`: each sampled launch gets the L2 state
 * the full run would give it, rebuilt from the traces (lib/warm), as a
 * carrier file in the folder that runs it.
 *
 * One walk over the trace folder serves every sampled launch of a plan
 * (ks_state_walk hands the model over at each), so the cost is one pass
 * over the traces up to the last sampled launch, whatever the number of
 * jobs.  The carrier of launch L (1-based number N = L + 1):
 *   Accel-Sim, kernel   kernel-ksample-state-N.traceg (listed before L)
 *   Accel-Sim, memcpy   ksample-state-N.memcpy (MemcpyHtoD lines, which
 *                       the list writer puts before L and then removes)
 *   MacSim, kernel      folder ksample-state-N/ (trace.txt, trace_info.txt,
 *                       gzip'd raw records), listed before L
 * MacSim has no memory-copy lines: state:memcpy is refused for it.
 *
 * The kernel carrier loads every held line, oldest first (--state-lines
 * all, the default): L2 is then as full as in the full run, and L's misses
 * evict, and write back, what they evicted there (the large workload's
 * launches are slower in context than alone for that).  dirty loads only
 * the lines L touches and every dirty one, touched only those L touches:
 * a clean line L never touches can give it no hit, but leaving it out
 * leaves free ways that L's misses fill instead of evicting, so those cost
 * fewer warm-up cycles and err low beyond the L2 (docs/bench.md).
 */
#include "export.h"
#include "warm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct state_job {
    const ks_warmup *w;
    bool macsim;
    const ks_export_entry *entries;
    size_t count;
    const char *const *dirs;
    ks_state_report *rep;
    /* Accel-Sim: the header fields the warm-up kernel copies */
    ks_trace_set *set;
    ks_gpu_geometry gpu;
    const ks_l2_state *state;
    const ks_line_set *only;
    ks_warm_kernel_shape shape;
    size_t lines, insts;
} state_job;

static ks_status write_memcpy(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    return ks_state_write_memcpy(f, j->state, NULL, &j->lines, err);
}

static ks_status write_kernel(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    return ks_state_write_accelsim_kernel(f, j->state, j->only, &j->shape, &j->lines, &j->insts,
                                          err);
}

static ks_status on_state(void *ctx, size_t launch, const ks_state_view *view, ks_error *err)
{
    state_job *j = ctx;
    j->state = view->l2;
    /* the footprint as the filter, with every dirty line unless only the
     * touched ones are asked for */
    ks_line_set filter = {0};
    if (view->footprint) {
        filter = *view->footprint;
        filter.and_dirty = j->w->lines == KS_STATE_LINES_DIRTY;
    }
    j->only = j->w->lines == KS_STATE_LINES_ALL || !view->footprint ? NULL : &filter;
    ks_status st = KS_OK;
    for (size_t k = 0; k < j->count && st == KS_OK; k++) {
        const ks_export_entry *e = &j->entries[k];
        if (!e->state || e->launch != launch)
            continue;
        char name[96];
        j->lines = j->insts = 0;
        if (j->macsim) {
            snprintf(name, sizeof name, "%s%zu", KS_WARM_MACSIM_FOLDER_PREFIX, launch + 1);
            char *dir = ks_path_join(j->dirs[k], name);
            if (!dir)
                return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            st = ks_state_write_macsim_kernel(dir, view, j->only, j->gpu.sms, &j->lines,
                                              &j->insts, err);
            free(dir);
        } else {
            const ks_trace_kernel *tk = ks_trace_set_kernel(j->set, launch);
            j->shape.kernel_id = launch + 1;
            j->shape.tracer_version = tk->tracer_version ? tk->tracer_version : 5;
            j->shape.binary_version = tk->binary_version ? (int)tk->binary_version : 70;
            j->shape.sms = j->gpu.sms;
            bool memcpy_carrier = j->w->carrier == KS_STATE_MEMCPY;
            if (memcpy_carrier)
                snprintf(name, sizeof name, "ksample-state-%zu.memcpy", launch + 1);
            else
                snprintf(name, sizeof name, "%s%zu.traceg", KS_WARM_KERNEL_FILE_PREFIX,
                         launch + 1);
            char *path = ks_path_join(j->dirs[k], name);
            if (!path)
                return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            /* into a folder ksample owns: a link there is replaced, never
             * written through (owned.c) */
            st = ks_owned_write_path(path, memcpy_carrier ? write_memcpy : write_kernel, j, err);
            free(path);
        }
        if (st == KS_OK && j->rep && !j->macsim && j->w->carrier == KS_STATE_MEMCPY) {
            /* the copies fill L2 clean: count what they leave clean */
            j->rep->dirty += ks_l2_state_dirty_lines(j->state);
        }
        if (st == KS_OK && j->rep) {
            j->rep->launches++;
            j->rep->lines += j->lines;
            j->rep->insts += j->insts;
            if (j->lines > j->rep->lines_max)
                j->rep->lines_max = j->lines;
        }
    }
    return st;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

ks_status ks_warm_geometry(const char *traces, const ks_warmup *w, ks_gpu_geometry *g,
                           ks_error *err)
{
    bool macsim = ks_macsim_dir_detect(traces) > 0;
    memset(g, 0, sizeof *g);
    ks_status st = KS_OK;
    if (w->sim_config)
        st = macsim ? ks_gpu_geometry_read_macsim(w->sim_config, g, err)
                    : ks_gpu_geometry_read_gpgpusim(w->sim_config, g, err);
    else if (!w->l2_bytes)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--warmup state needs the simulated L2's size: the simulator's "
                            "configuration (run: --config or --params; export: --sim-config "
                            "FILE) or --l2-size BYTES");
    if (st != KS_OK)
        return st;
    if (w->l2_bytes) {
        g->l2_bytes = w->l2_bytes;
        if (!g->line_bytes) {
            g->line_bytes = 128;
            g->sector_bytes = macsim ? 128 : 32;
            snprintf(g->source, sizeof g->source, "--l2-size");
        }
    }
    if (g->l2_bytes < g->line_bytes)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "an L2 of %llu bytes holds no line",
                            (unsigned long long)g->l2_bytes);
    if (macsim && w->carrier == KS_STATE_MEMCPY)
        return ks_error_set(err, KS_ERR_USAGE, traces, 0,
                            "state:memcpy is for Accel-Sim (MemcpyHtoD lines); MacSim takes "
                            "the state as a warm-up kernel: --warmup state");
    return KS_OK;
}

ks_status ks_export_state_write(const char *traces, const ks_warmup *w,
                                const ks_export_entry *entries, size_t count,
                                const char *const *dirs, ks_state_report *rep, ks_error *err)
{
    if (rep)
        memset(rep, 0, sizeof *rep);
    state_job j = {.w = w, .entries = entries, .count = count, .dirs = dirs, .rep = rep};
    ks_status st = ks_warm_geometry(traces, w, &j.gpu, err);
    if (st != KS_OK)
        return st;
    j.macsim = ks_macsim_dir_detect(traces) > 0;
    size_t *launches = malloc((count + 1) * sizeof *launches), n = 0;
    if (!launches)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < count; k++)
        if (entries[k].state)
            launches[n++] = entries[k].launch;
    qsort(launches, n, sizeof *launches, cmp_size);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (m == 0 || launches[k] != launches[m - 1])
            launches[m++] = launches[k];
    if (!j.macsim)
        st = ks_trace_set_open(traces, &j.set, err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ks_state_walk_options o = {
        .gpu = j.gpu, .cut = w->cut > 0 ? w->cut : KS_STATE_DEFAULT_CUT,
        .with_memcpy = w->carrier == KS_STATE_MEMCPY,
        .footprint = w->carrier == KS_STATE_KERNEL && w->lines != KS_STATE_LINES_ALL};
    if (st == KS_OK && m)
        st = ks_state_walk(traces, launches, m, &o, on_state, &j, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rep) {
        rep->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        rep->l2_bytes = j.gpu.l2_bytes;
        rep->cut = o.cut;
        snprintf(rep->source, sizeof rep->source, "%s", j.gpu.source);
    }
    ks_trace_set_free(j.set);
    free(launches);
    return st;
}

ks_status ks_export_state_into(const char *traces, const ks_warmup *warmup,
                               const ks_export_entry *entries, size_t count, const char *out,
                               ks_error *err)
{
    if (!warmup || warmup->mode != KS_WARMUP_STATE)
        return KS_OK;
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        return ks_error_set(err, KS_ERR_IO, out, 0, "cannot create the folder: %s",
                            strerror(errno));
    const char **dirs = malloc((count + 1) * sizeof *dirs);
    if (!dirs)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t k = 0; k < count; k++)
        dirs[k] = out;
    ks_status st = ks_export_state_write(traces, warmup, entries, count, dirs, NULL, err);
    free(dirs);
    return st;
}

ks_status ks_export_state_check(const char *traces, const ks_warmup *w, ks_error *err)
{
    ks_gpu_geometry g;
    if (!w || w->mode != KS_WARMUP_STATE)
        return KS_OK;
    ks_status st = ks_warm_geometry(traces, w, &g, err);
    return st == KS_OK ? ks_state_cut_check(&g, w->cut > 0 ? w->cut : KS_STATE_DEFAULT_CUT, err)
                       : st;
}
