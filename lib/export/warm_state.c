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
 *   Accel-Sim, memcpy32 ksample-state-N.memcpy at 32-bit addresses, and
 *                       L's trace with its global addresses remapped the
 *                       same way, under L's own file name (addr_remap.c);
 *                       memcpy32+stores: and kernel-ksample-state-N.traceg,
 *                       only the stores of the dirty lines, listed after
 *                       the copies (GPGPU-Sim fills copies clean)
 *   Accel-Sim, split    as memcpy32, but where the launch's misses evict
 *                       dirty lines (ks_l2_state_kernel_span), in each of
 *                       the simulator's L2 sets where they do
 *                       (ks_l2_state_split_marks) the dirty lines in reach
 *                       are stored by kernel-ksample-state-N.traceg, which
 *                       the .memcpy file names between the copies of the
 *                       sets' lines in reach and of their younger lines
 *                       (with concurrent kernels: the kernel loads those
 *                       sets' lines in order, after every copy)
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
#include <unistd.h>

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
    /* state:memcpy32: the configuration's remap, the launch's trace */
    ks_addr_map map;
    ks_remap remap;
    const char *trace_path;
    /* state:split: the launch, whether it gets a kernel, whether that
     * kernel stores (else loads in order), and its held lines' marks by
     * position (oldest 0; KS_SPLIT_*, ks_l2_state_split_marks) */
    size_t launch;
    bool kernel, stores;
    unsigned char *marks;
    size_t marks_size;
} state_job;

static uint32_t sim_set_of(const void *ctx, uint64_t line)
{
    const state_job *j = ctx;
    return ks_addr_map_l2_set(&j->map, line * j->gpu.line_bytes);
}

/* A generic LD/ST whose address lies in the 4 GB above the launch's shared
 * or local memory base is left as it is: Accel-Sim tells those spaces by
 * the address (a global one left there only starts cold, its functions
 * unchanged and its tag apart from every 32-bit one). */
static uint64_t remap_address(void *ctx, const char *opcode, uint64_t addr,
                              const uint64_t windows[2])
{
    bool generic = (strncmp(opcode, "LD", 2) == 0 && opcode[2] != 'G') ||
                   (strncmp(opcode, "ST", 2) == 0 && opcode[2] != 'G');
    for (int w = 0; generic && w < 2; w++)
        if (windows[w] && addr >= windows[w] && addr - windows[w] < (1ull << 32))
            return addr;
    return ks_remap_apply(&((state_job *)ctx)->remap, addr);
}

static bool remap_pick(void *ctx, const char *opcode)
{
    (void)ctx;
    bool write;
    return ks_warm_global_access(opcode, &write);
}

static ks_status write_memcpy32(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    return ks_state_write_memcpy32(f, j->state, NULL, &j->remap, &j->lines, err);
}

static ks_status write_stores(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    ks_line_set dirty_only = {.and_dirty = true};
    ks_warm_kernel_shape shape = j->shape;
    shape.stores_only = true;
    shape.remap = &j->remap;
    size_t lines;
    return ks_state_write_accelsim_kernel(f, j->state, &dirty_only, &shape, &lines, &j->insts,
                                          err);
}

/* state:split: the copies of the lines older than the kernel's part, the
 * kernel's line in the list, the copies of the younger ones (GPGPU-Sim
 * stamps each copy with the cycle it is applied at, so the three keep the
 * held lines' order: the launch's misses evict in its sets what the full
 * run's did, and the dirty lines within their reach are dirty). */
static ks_status write_split_list(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    /* the copies older than the kernel's lines in their sets (or in sets
     * without any), the kernel, the copies younger */
    ks_line_set before = {.by_position = true, .to = SIZE_MAX, .marks = j->marks,
                          .mark = KS_SPLIT_BEFORE};
    ks_line_set after = {.by_position = true, .to = SIZE_MAX, .marks = j->marks,
                         .mark = KS_SPLIT_AFTER};
    size_t a = 0, b = 0;
    ks_status st =
        ks_state_write_memcpy32(f, j->state, j->kernel ? &before : NULL, &j->remap, &a, err);
    char file[KS_WARM_KERNEL_FILE_SIZE];
    if (st == KS_OK && j->kernel)
        fprintf(f, "%s\n", ks_warm_kernel_file(file, j->launch));
    if (st == KS_OK && j->kernel)
        st = ks_state_write_memcpy32(f, j->state, &after, &j->remap, &b, err);
    j->lines = a + b;
    return st;
}
static ks_status write_split_kernel(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    ks_line_set part = {.by_position = true, .to = SIZE_MAX, .marks = j->marks,
                        .mark = j->stores ? KS_SPLIT_STORE : KS_SPLIT_KERNEL};
    ks_warm_kernel_shape shape = j->shape;
    shape.stores_only = j->stores;
    shape.remap = &j->remap;
    size_t lines;
    ks_status st = ks_state_write_accelsim_kernel(f, j->state, &part, &shape, &lines, &j->insts,
                                                  err);
    j->lines += lines;
    if (j->rep) {
        j->rep->split_kernels++;
        j->rep->split_kernel_lines += lines;
    }
    return st;
}

static ks_status write_rewritten(const void *ctx, FILE *f, ks_error *err)
{
    state_job *j = (state_job *)ctx;
    return ks_trace_rewrite_addresses(j->trace_path, f, remap_address, remap_pick, j, NULL,
                                      err);
}

/* state:split (docs/bench.md has the measurements): the model's span, and
 * the ordered kernel's part, reach two more ways of each set that
 * overflows than the launch's misses evict there; and a launch gets a
 * kernel only where the dirty lines its misses evict in the model are at
 * least 1 % of those misses.
 * A kernel for every launch with a dirty line within reach (48 of 160 on
 * the shared workload, RTX 3070) cost 1.18x the launches alone where copies
 * alone cost 0.88x, and moved launches with 4-40 misses by 3-11 %; on the
 * large workload copies alone left two launches whose dirty evictions were
 * 1.7-1.8 % of their misses 6-9 % fast, the kernel within 2.3 %. */
#define SPLIT_MARGIN 2
#define SPLIT_MIN_DIRTY_SHARE 0.01
/* The store kernel's reach, in the simulator's own sets: the lines the
 * misses evict, and SPLIT_STORE_MARGIN more (docs/bench.md).  The kernel's
 * lines, counted there, must be SPLIT_MIN_DIRTY_SHARE of the misses too. */
#define SPLIT_STORE_MARGIN 0

/* The warm-up kernel's header fields: the sampled launch's. */
static void set_kernel_shape(state_job *j, const ks_trace_kernel *tk, size_t launch)
{
    j->shape.kernel_id = launch + 1;
    j->shape.tracer_version = tk->tracer_version ? tk->tracer_version : 5;
    j->shape.binary_version = tk->binary_version ? (int)tk->binary_version : 70;
    j->shape.sms = j->gpu.sms;
}

/* state:memcpy32: the lines this job uses (the state's and the launch's)
 * checked under the remap, then the remapped copies and the launch's trace
 * remapped, under its own name (the name a log maps back by). */
static ks_status write_remapped(state_job *j, size_t launch, const ks_state_view *view,
                                const char *dir, ks_error *err)
{
    const ks_trace_kernel *tk = ks_trace_set_kernel(j->set, launch);
    const char *base = strrchr(tk->path, '/');
    base = base ? base + 1 : tk->path;
    size_t n = strlen(base);
    if (n < 7 || strcmp(base + n - 7, ".traceg") != 0)
        return ks_error_set(err, KS_ERR_USAGE, tk->path, 0,
                            "state:memcpy32 rewrites the launch's trace and takes it as a "
                            "plain .traceg file (decompress it, or use --warmup state:kernel)");
    size_t count = 0, fp = view->footprint ? view->footprint->count : 0;
    uint64_t *lines = malloc((j->state->held + fp + 1) * sizeof *lines);
    if (!lines)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    uint32_t cursor = UINT32_MAX;
    const ks_l2_line *l;
    while ((l = ks_l2_state_next(j->state, &cursor)))
        if (l->valid)
            lines[count++] = l->line;
    for (size_t k = 0; k < fp; k++)
        lines[count++] = view->footprint->lines[k];
    /* off address 0, which Accel-Sim reads as an inactive lane, where the
     * launch's lines would reach it */
    bool moved = false, clear = true;
    ks_status st = ks_remap_choose_base(&j->remap, j->set, launch,
                                        view->footprint ? view->footprint->lines : NULL, fp,
                                        j->gpu.line_bytes, &moved, &clear, err);
    if (st == KS_OK && j->rep) {
        j->rep->zero_moved += moved;
        j->rep->zero_kept += !clear;
    }
    ks_remap_check_result res;
    if (st == KS_OK)
        st = ks_remap_check(&j->map, &j->remap, lines, count, j->gpu.line_bytes, &res, err);
    free(lines);
    if (st == KS_OK && (res.collisions || res.row_merges || res.wide || res.changed))
        return ks_error_set(err, KS_ERR_USAGE, tk->path, 0,
                            "%s: %zu pairs of this launch's lines and its state's fall onto "
                            "one 32-bit line (first 0x%llx and 0x%llx), %zu DRAM rows onto "
                            "others: use --warmup state:kernel",
                            j->w->carrier == KS_STATE_SPLIT ? "state:split" : "state:memcpy32",
                            res.collisions, (unsigned long long)res.first[0] * 128,
                            (unsigned long long)res.first[1] * 128, res.row_merges);
    char name[96];
    snprintf(name, sizeof name, "ksample-state-%zu.memcpy", launch + 1);
    char *path = st == KS_OK ? ks_path_join(dir, name) : NULL;
    char *trace = st == KS_OK ? ks_path_join(dir, base) : NULL;
    if (st == KS_OK && (!path || !trace))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK && j->w->carrier == KS_STATE_SPLIT) {
        ks_split_span span;
        j->launch = launch;
        st = ks_l2_state_kernel_span(j->state, view->footprint, SPLIT_MARGIN, &span, err);
        /* copies alone where the write-backs they leave out are a small
         * share of the launch's own misses */
        j->kernel = st == KS_OK && span.to > span.from &&
                    (double)span.evicted_dirty >= SPLIT_MIN_DIRTY_SHARE * (double)span.misses;
        /* the kernel's lines, by the simulator's own sets */
        if (j->kernel && j->marks_size < j->state->used) {
            unsigned char *m = realloc(j->marks, j->state->used);
            if (!m)
                st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            else
                j->marks = m, j->marks_size = j->state->used;
        }
        size_t kernel_lines = 0;
        j->stores = j->gpu.concurrent_kernels != 1;
        if (j->rep)
            j->rep->split_stores = j->stores;
        if (st == KS_OK && j->kernel)
            st = ks_l2_state_split_marks(j->state, view->footprint,
                                         j->stores ? SPLIT_STORE_MARGIN : SPLIT_MARGIN,
                                         sim_set_of, j, ks_addr_map_l2_sets(&j->map), j->stores,
                                         j->marks, &kernel_lines, err);
        /* and where the lines it would carry are that share of them too,
         * counted in the simulator's sets */
        j->kernel = j->kernel && kernel_lines > 0 &&
                    (double)kernel_lines >= SPLIT_MIN_DIRTY_SHARE * (double)span.misses;
    }
    if (st == KS_OK)
        st = ks_owned_write_path(path, j->w->carrier == KS_STATE_SPLIT ? write_split_list
                                                                        : write_memcpy32,
                                 j, err);
    if (st == KS_OK && j->w->carrier == KS_STATE_SPLIT) {
        /* the kernel where the launch needs one; none left from an earlier
         * attempt where it does not (the folder's file says which) */
        char *kernel = ks_path_join(dir, ks_warm_kernel_file(name, launch));
        if (!kernel)
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        else if (j->kernel) {
            set_kernel_shape(j, tk, launch);
            st = ks_owned_write_path(kernel, write_split_kernel, j, err);
        } else if (unlink(kernel) != 0 && errno != ENOENT)
            st = ks_error_set(err, KS_ERR_IO, kernel, 0, "cannot remove: %s", strerror(errno));
        free(kernel);
    }
    j->trace_path = tk->path;
    if (st == KS_OK)
        st = ks_owned_write_path(trace, write_rewritten, j, err);
    if (st == KS_OK && j->w->carrier == KS_STATE_MEMCPY32_STORES) {
        /* the dirty lines' stores after the copies, in the same space */
        set_kernel_shape(j, tk, launch);
        free(path);
        path = ks_path_join(dir, ks_warm_kernel_file(name, launch));
        st = path ? ks_owned_write_path(path, write_stores, j, err)
                  : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    free(path);
    free(trace);
    return st;
}


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
    /* auto: every line where the launch's misses evict lines of the model's
     * sets (the recency of what they evict, and its write-backs, matter),
     * only the touched ones where they fill free ways */
    if (j->w->lines == KS_STATE_LINES_AUTO && view->footprint) {
        ks_split_span span;
        ks_status sst = ks_l2_state_kernel_span(view->l2, view->footprint, 0, &span, err);
        if (sst != KS_OK)
            return sst;
        bool evicts = span.evicted > 0;
        if (evicts)
            j->only = NULL;
        if (j->rep)
            *(evicts ? &j->rep->auto_all : &j->rep->auto_touched) += 1;
    }
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
            st = ks_state_write_macsim_kernel(dir, view, j->only, j->gpu.sms,
                                              j->gpu.max_threads_per_sm / 32, &j->lines,
                                              &j->insts, err);
            free(dir);
        } else if (ks_state_carrier_remaps(j->w->carrier)) {
            st = write_remapped(j, launch, view, j->dirs[k], err);
        } else {
            set_kernel_shape(j, ks_trace_set_kernel(j->set, launch), launch);
            bool memcpy_carrier = j->w->carrier == KS_STATE_MEMCPY;
            if (memcpy_carrier)
                snprintf(name, sizeof name, "ksample-state-%zu.memcpy", launch + 1);
            else
                ks_warm_kernel_file(name, launch);
            char *path = ks_path_join(j->dirs[k], name);
            if (!path)
                return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            /* into a folder ksample owns: a link there is replaced, never
             * written through (owned.c) */
            st = ks_owned_write_path(path, memcpy_carrier ? write_memcpy : write_kernel, j, err);
            free(path);
        }
        if (st == KS_OK && j->rep &&
            (j->w->carrier == KS_STATE_MEMCPY || j->w->carrier == KS_STATE_MEMCPY32)) {
            /* copies alone fill L2 clean: count what they leave clean */
            j->rep->dirty += ks_l2_state_dirty_lines(j->state);
        }
        if (st == KS_OK && j->rep && view->short_lines) {
            size_t s = j->rep->short_launches++;
            if (s < KS_STATE_SHORT_LISTED) {
                const ks_trace_kernel *sk = j->set ? ks_trace_set_kernel(j->set, launch) : NULL;
                j->rep->short_launch[s] = sk && sk->kernel_id ? sk->kernel_id : launch + 1;
                j->rep->short_lines[s] = view->short_lines;
                j->rep->short_missing[s] = view->missing_launch;
            }
            if (view->short_lines > j->rep->short_lines_max)
                j->rep->short_lines_max = view->short_lines;
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
    if (macsim && w->carrier != KS_STATE_KERNEL)
        return ks_error_set(err, KS_ERR_USAGE, traces, 0,
                            "state:memcpy and state:memcpy32 are for Accel-Sim (MemcpyHtoD "
                            "lines); MacSim takes the state as a warm-up kernel: --warmup "
                            "state");
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
    if (st == KS_OK && ks_state_carrier_remaps(w->carrier)) {
        bool usable;
        char why[600] = "";
        if (!w->sim_config)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "state:memcpy32 needs the simulator's gpgpusim.config (--config "
                              "or --sim-config): which address bits it reads");
        else if ((st = ks_remap_from_config(w->sim_config, &j.map, &j.remap, &usable, why,
                                            sizeof why, err)) == KS_OK &&
                 !usable)
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0, "state:memcpy32: %s", why);
    }
    ks_state_walk_options o = {
        .gpu = j.gpu, .cut = w->cut > 0 ? w->cut : KS_STATE_DEFAULT_CUT,
        .with_memcpy = w->carrier == KS_STATE_MEMCPY,
        .footprint = (w->carrier == KS_STATE_KERNEL && w->lines != KS_STATE_LINES_ALL) ||
                     ks_state_carrier_remaps(w->carrier)};
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
    free(j.marks);
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
