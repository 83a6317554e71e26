/*
 * accelsim.c - a kernelslist.g for Accel-Sim's trace-driven simulator that
 * keeps every memory copy of the traced program and lists only the sampled
 * launches, plus weights.csv that says which plan id and weight each listed
 * launch has.
 *
 * Accel-Sim reads a kernelslist.g line as a launch only when it starts with
 * "kernel", and opens it relative to the list's own folder, so the output
 * folder gets the list and a symbolic link to each sampled trace file (the
 * `.traceg` or `.traceg.xz` that the trace folder has).  The simulator then
 * numbers the listed launches 1, 2, ... (kernel_launch_uid): weights.csv's
 * uid column is that number, and `ksample estimate --uid-map weights.csv`
 * maps it back.
 *
 * Ids must mean the same launch in the profile and in the traces.  With the
 * profile at hand every sampled id is checked against its trace header
 * (kernel name, grid, block); by default plan id i is the trace folder's
 * (i+1)-th launch, and with `remap` it is the launch of the same (name,
 * grid, block) and the same occurrence of that triple, for a tracer that saw
 * other launches (warm-up kernels, autotuning runs) than the profiler.
 * The list and the trace headers are lib/traces' (ks_trace_set).
 */
#include "export.h"
#include "hash.h"
#include "trace.h"
#include "warm.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The trace folder as lib/traces reads it, with the absolute folder that
 * the output's links point into. */
typedef struct trace_list {
    ks_trace_set *set;
    char *dir; /* absolute */
    size_t kernel_count;
} trace_list;

static void list_free(trace_list *t)
{
    ks_trace_set_free(t->set);
    free(t->dir);
    memset(t, 0, sizeof *t);
}

static ks_status list_read(const char *dir, trace_list *t, ks_error *err)
{
    memset(t, 0, sizeof *t);
    char resolved[PATH_MAX];
    if (!realpath(dir, resolved))
        return ks_error_set(err, KS_ERR_IO, dir, 0, "cannot open the trace folder: %s",
                            strerror(errno));
    if (!(t->dir = strdup(resolved)))
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    ks_status st = ks_trace_set_open(t->dir, &t->set, err);
    if (st != KS_OK)
        return st;
    t->kernel_count = ks_trace_set_kernel_count(t->set);
    if (t->kernel_count == 0)
        return ks_error_set(err, KS_ERR_FORMAT, dir, 0, "the list names no kernel trace file");
    return KS_OK;
}

static const ks_trace_kernel *kernel_at(const trace_list *t, size_t i)
{
    return ks_trace_set_kernel(t->set, i);
}

/* The trace file present in the folder (the listed name, or its compressed
 * copy), relative to the folder: the name the output lists and links. */
static const char *file_of(const trace_list *t, size_t i)
{
    const char *path = kernel_at(t, i)->path;
    size_t n = strlen(t->dir);
    return strncmp(path, t->dir, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* The name the output folder gives launch i's trace file: its file name
 * alone, which is also the key a simulator's log maps back by
 * (lib/traces/trace_index.c).  A list entry in another folder
 * (../base/kernel-3.traceg) is thus linked inside the output folder, never
 * beside it. */
static const char *name_of(const trace_list *t, size_t i)
{
    const char *f = file_of(t, i);
    const char *slash = strrchr(f, '/');
    return slash ? slash + 1 : f;
}

/* ------------------------------------------------------------ id checks */

static bool has_dims(const ks_profile *p, uint64_t id)
{
    if (!ks_profile_has_dims(p))
        return false;
    const uint32_t *g = ks_profile_grid(p, id);
    return (g[0] | g[1] | g[2]) != 0;
}

static void launch_text(const ks_profile *p, uint64_t id, char *buf, size_t size)
{
    if (has_dims(p, id)) {
        const uint32_t *g = ks_profile_grid(p, id), *b = ks_profile_block(p, id);
        snprintf(buf, size, "%.200s grid (%u,%u,%u) block (%u,%u,%u)", ks_profile_name(p, id),
                 g[0], g[1], g[2], b[0], b[1], b[2]);
    } else
        snprintf(buf, size, "%.200s", ks_profile_name(p, id));
}

static bool same_launch(const ks_profile *p, uint64_t id, const ks_trace_kernel *k)
{
    char a[512], b[512];
    ks_export_base_name(ks_profile_name(p, id), a, sizeof a);
    ks_export_base_name(k->name, b, sizeof b);
    if (strcmp(a, b) != 0)
        return false;
    if (!has_dims(p, id))
        return true;
    return memcmp(ks_profile_grid(p, id), k->grid, sizeof k->grid) == 0 &&
           memcmp(ks_profile_block(p, id), k->block, sizeof k->block) == 0;
}

static ks_status mismatch(const ks_profile *p, uint64_t id, const trace_list *t, size_t kidx,
                          ks_error *err)
{
    const ks_trace_kernel *k = kernel_at(t, kidx);
    char want[400];
    launch_text(p, id, want, sizeof want);
    /* located at the trace file whose header disagrees */
    return ks_error_set(err, KS_ERR_FORMAT, k->path, 0,
                        "plan id %llu is profile launch %llu (%s) but the trace's launch %zu "
                        "(%s) is %.200s grid (%u,%u,%u) block (%u,%u,%u); if the tracer saw "
                        "other launches than the profiler, use --remap",
                        (unsigned long long)id, (unsigned long long)id + 1, want, kidx + 1,
                        file_of(t, kidx), k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0],
                        k->block[1], k->block[2]);
}

/* Whether the folder holds only some of the launches the tracer numbered
 * (a tracer told to record some: DYNAMIC_KERNEL_RANGE, the state's
 * window): every header has its "-kernel id", they ascend, and they skip
 * some.  Plan id i is then the launch the tracer numbered i + 1. */
static bool partial_folder(const trace_list *t)
{
    bool skips = false;
    for (size_t i = 0; i < t->kernel_count; i++) {
        uint64_t id = kernel_at(t, i)->kernel_id;
        if (id == 0 || (i && id <= kernel_at(t, i - 1)->kernel_id))
            return false;
        skips |= id != i + 1;
    }
    return skips;
}

/* The folder's launch the tracer numbered `number`, or SIZE_MAX. */
static size_t launch_numbered(const trace_list *t, uint64_t number)
{
    size_t lo = 0, hi = t->kernel_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t id = kernel_at(t, mid)->kernel_id;
        if (id == number)
            return mid;
        if (id < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

static ks_status map_by_position(const ks_plan *plan, const ks_profile *p, trace_list *t,
                                 size_t *kernel_of_sample, ks_error *err)
{
    bool partial = partial_folder(t);
    for (size_t i = 0; i < plan->sample_count; i++) {
        uint64_t id = plan->samples[i].id;
        if (partial) {
            size_t k = launch_numbered(t, id + 1);
            if (k == SIZE_MAX)
                return ks_error_set(err, KS_ERR_FORMAT, t->dir, 0,
                                    "plan id %llu is the tracer's launch %llu, which this "
                                    "partial trace folder (%zu launches, numbered %llu to "
                                    "%llu) does not hold: trace it (export --to "
                                    "accelsim-tracer)",
                                    (unsigned long long)id, (unsigned long long)id + 1,
                                    t->kernel_count,
                                    (unsigned long long)kernel_at(t, 0)->kernel_id,
                                    (unsigned long long)kernel_at(t, t->kernel_count - 1)
                                        ->kernel_id);
            kernel_of_sample[i] = k;
            if (p && !same_launch(p, id, kernel_at(t, k)))
                return mismatch(p, id, t, k, err);
            continue;
        }
        if (id >= t->kernel_count)
            return ks_error_set(err, KS_ERR_FORMAT, t->dir, 0,
                                "plan id %llu but the trace folder has %zu launches; if the "
                                "tracer saw other launches than the profiler, use --remap",
                                (unsigned long long)id, t->kernel_count);
        kernel_of_sample[i] = (size_t)id;
        if (!p)
            continue;
        if (!same_launch(p, id, kernel_at(t, (size_t)id)))
            return mismatch(p, id, t, (size_t)id, err);
    }
    return KS_OK;
}

/* (name, grid, block) of a launch as text: the remap key. */
static void key_of(const char *name, const uint32_t *grid, const uint32_t *block, bool dims,
                   char *buf, size_t size)
{
    char base[512];
    ks_export_base_name(name, base, sizeof base);
    if (dims)
        snprintf(buf, size, "%s|%u,%u,%u|%u,%u,%u", base, grid[0], grid[1], grid[2], block[0],
                 block[1], block[2]);
    else
        snprintf(buf, size, "%s", base);
}

typedef struct key_entry {
    char *key;
    size_t profile_count;
    size_t trace_count, trace_capacity;
    size_t *trace; /* kernel indexes, in order */
} key_entry;

typedef struct key_table {
    size_t count, capacity;
    key_entry *e;
    ks_hash_index index; /* key -> entry */
} key_table;

static ks_status key_find(key_table *kt, const char *key, key_entry **out, ks_error *err)
{
    if (kt->count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many distinct launches");
    ks_text_keys keys = {kt->e, sizeof *kt->e, offsetof(key_entry, key)};
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st =
        ks_hash_find_text(&kt->index, &keys, kt->count, key, strlen(key), &found, &id, &slot, err);
    if (st != KS_OK)
        return st;
    if (found) {
        *out = &kt->e[id];
        return KS_OK;
    }
    st = ks_grow((void **)&kt->e, &kt->capacity, kt->count + 1, sizeof *kt->e, err);
    if (st != KS_OK)
        return st;
    key_entry *e = &kt->e[kt->count];
    memset(e, 0, sizeof *e);
    if (!(e->key = strdup(key)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    ks_hash_put(&kt->index, slot, (uint32_t)kt->count++);
    *out = e;
    return KS_OK;
}

static void key_table_free(key_table *kt)
{
    for (size_t i = 0; i < kt->count; i++) {
        free(kt->e[i].key);
        free(kt->e[i].trace);
    }
    free(kt->e);
    ks_hash_free(&kt->index);
}

static ks_status remap_traces(trace_list *t, key_table *kt, bool dims, ks_error *err)
{
    for (size_t i = 0; i < t->kernel_count; i++) {
        const ks_trace_kernel *k = kernel_at(t, i);
        char key[700];
        key_entry *e;
        key_of(k->name, k->grid, k->block, dims, key, sizeof key);
        ks_status st = key_find(kt, key, &e, err);
        if (st != KS_OK)
            return st;
        if ((st = ks_grow((void **)&e->trace, &e->trace_capacity, e->trace_count + 1,
                          sizeof *e->trace, err)) != KS_OK)
            return st;
        e->trace[e->trace_count++] = i;
    }
    return KS_OK;
}

static ks_status map_by_key(const ks_plan *plan, const ks_profile *p, trace_list *t,
                            size_t *kernel_of_sample, ks_error *err)
{
    key_table kt = {0};
    bool dims = ks_profile_has_dims(p);
    ks_status st = remap_traces(t, &kt, dims, err);
    key_entry **entry = calloc(plan->sample_count + 1, sizeof *entry);
    size_t *occurrence = calloc(plan->sample_count + 1, sizeof *occurrence);
    if (!entry || !occurrence)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t next = 0;
    for (uint64_t id = 0; st == KS_OK && id < p->n; id++) {
        char key[700];
        key_entry *e;
        key_of(ks_profile_name(p, id), dims ? ks_profile_grid(p, id) : NULL,
               dims ? ks_profile_block(p, id) : NULL, dims, key, sizeof key);
        if ((st = key_find(&kt, key, &e, err)) != KS_OK)
            break;
        if (next < plan->sample_count && plan->samples[next].id == id) {
            entry[next] = e;
            occurrence[next++] = e->profile_count;
        }
        e->profile_count++;
    }
    for (size_t i = 0; st == KS_OK && i < plan->sample_count; i++) {
        key_entry *e = entry[i];
        char want[400];
        launch_text(p, plan->samples[i].id, want, sizeof want);
        if (e->trace_count != e->profile_count)
            st = ks_error_set(err, KS_ERR_FORMAT, t->dir, 0,
                              "--remap: plan id %llu (%s): the profile has %zu launches of it "
                              "and the traces %zu, so its occurrence is ambiguous",
                              (unsigned long long)plan->samples[i].id, want, e->profile_count,
                              e->trace_count);
        else
            kernel_of_sample[i] = e->trace[occurrence[i]];
    }
    free(entry);
    free(occurrence);
    key_table_free(&kt);
    return st;
}

/* ------------------------------------------------------------- writing */

typedef struct out_ctx {
    const ks_plan *plan;
    const trace_list *t;
    const ks_export_entry *entries; /* in the order the simulator runs them */
    size_t count;
    bool warmups;
    const char *warmup_text;
    const ks_warmup *warmup;
    const char *out; /* the output folder (state carriers are read from it) */
} out_ctx;

static bool memcpy_state(const out_ctx *c)
{
    return c->warmup && c->warmup->mode == KS_WARMUP_STATE &&
           c->warmup->carrier != KS_STATE_KERNEL;
}

/* state:memcpy32+stores: the copies and, after them, a kernel of the
 * dirty lines' stores */
static bool stores_state(const out_ctx *c)
{
    return c->warmup && c->warmup->mode == KS_WARMUP_STATE &&
           c->warmup->carrier == KS_STATE_MEMCPY32_STORES;
}

/* state:memcpy32: launch's trace is the job's remapped copy, written into
 * the folder (warm_state.c) under the name a link would have. */
static bool remapped_trace(const out_ctx *c, size_t launch)
{
    if (!c->warmup || c->warmup->mode != KS_WARMUP_STATE ||
        !ks_state_carrier_remaps(c->warmup->carrier))
        return false;
    for (size_t k = 0; k < c->count; k++)
        if (c->entries[k].state && c->entries[k].launch == launch)
            return true;
    return false;
}

/* state:split: whether the walk gave launch a warm-up kernel (only where
 * its misses evict dirty lines): its file in dir. */
static bool split_kernel_at(const out_ctx *c, const char *dir, size_t launch)
{
    if (!c->warmup || c->warmup->mode != KS_WARMUP_STATE ||
        c->warmup->carrier != KS_STATE_SPLIT)
        return false;
    char name[KS_WARM_KERNEL_FILE_SIZE];
    char *path = ks_path_join(dir, ks_warm_kernel_file(name, launch));
    struct stat sb;
    bool there = path && lstat(path, &sb) == 0;
    free(path);
    return there;
}

/* The MemcpyHtoD lines of launch's rebuilt state (warm_state.c wrote them
 * into the output folder) copied into the list; state:split's name its
 * warm-up kernel among them, where the launch has one. */
static ks_status copy_state_lines(const out_ctx *c, size_t launch, FILE *f, ks_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "ksample-state-%zu.memcpy", launch + 1);
    char *path = ks_path_join(c->out, name);
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    FILE *in = fopen(path, "r");
    ks_status st = KS_OK;
    if (!in)
        st = ks_error_set(err, KS_ERR_IO, path, 0,
                          "the rebuilt state of launch %zu is missing: %s", launch + 1,
                          strerror(errno));
    else {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, f);
        if (ferror(in))
            st = ks_error_set(err, KS_ERR_IO, path, 0, "read failed: %s", strerror(errno));
        fclose(in);
    }
    free(path);
    return st;
}

/* Every memory copy keeps its place before the launches that follow it in
 * the program: before an entry, the copies listed before its launch that
 * are not written yet; the rest at the end. */
static ks_status write_list(const void *vctx, FILE *f, ks_error *err)
{
    const out_ctx *c = vctx;
    size_t n = ks_trace_set_event_count(c->t->set), next = 0;
    size_t *event_of = malloc((c->t->kernel_count + 1) * sizeof *event_of);
    if (!event_of)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const ks_trace_event *e = ks_trace_set_event(c->t->set, i);
        if (e->is_kernel)
            event_of[e->kernel] = i;
    }
    bool *written = calloc(n + 1, sizeof *written);
    if (!written) {
        free(event_of);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_status st = KS_OK;
    /* with the state in MemcpyHtoD lines, the program's own copies before a
     * launch are part of its state (the model took them in order) */
    bool skip_copies = memcpy_state(c);
    for (size_t k = 0; k <= c->count && st == KS_OK; k++) {
        size_t until = k < c->count ? event_of[c->entries[k].launch] : n;
        for (size_t i = next; i < until && !skip_copies; i++) {
            const ks_trace_event *e = ks_trace_set_event(c->t->set, i);
            if (!e->is_kernel && !written[i]) {
                fprintf(f, "%s\n", e->text);
                written[i] = true;
            }
        }
        if (until > next)
            next = until;
        if (k == c->count)
            break;
        const ks_export_entry *e = &c->entries[k];
        if (e->state && skip_copies)
            st = copy_state_lines(c, e->launch, f, err);
        char kernel[KS_WARM_KERNEL_FILE_SIZE];
        if (e->state && skip_copies && stores_state(c))
            fprintf(f, "%s\n", ks_warm_kernel_file(kernel, e->launch));
        else if (e->state && skip_copies)
            ;
        else if (e->state)
            fprintf(f, "%s\n", ks_warm_kernel_file(kernel, e->launch));
        else
            fprintf(f, "%s\n", name_of(c->t, e->launch));
    }
    free(event_of);
    free(written);
    if (st != KS_OK)
        return st;
    return ks_write_status(f, err);
}

static ks_status write_weights(const void *vctx, FILE *f, ks_error *err)
{
    const out_ctx *c = vctx;
    ks_export_weights_head(
        f, c->plan, c->t->dir,
        "# uid: 1-based position among the launches of kernelslist.g, which is Accel-Sim's "
        "kernel_launch_uid\n# id: 0-based launch in the profile; trace_launch: 1-based "
        "launch in the trace folder\n",
        c->warmups, c->warmup_text);
    size_t uid = 0;
    for (size_t k = 0; k < c->count; k++) {
        const ks_export_entry *e = &c->entries[k];
        if (e->state && memcpy_state(c) && !stores_state(c) &&
            !split_kernel_at(c, c->out, e->launch))
            continue; /* memory copies: no kernel, no uid */
        char kernel[KS_WARM_KERNEL_FILE_SIZE];
        if (e->state)
            fprintf(f, "%zu,%llu,0,%zu,%s,state\n", ++uid, (unsigned long long)e->id,
                    e->launch + 1, ks_warm_kernel_file(kernel, e->launch));
        else {
            fprintf(f, "%zu,%llu,%.17g,%zu,%s", ++uid, (unsigned long long)e->id, e->weight,
                    e->launch + 1, name_of(c->t, e->launch));
            ks_export_weights_role(f, c->warmups, e);
        }
    }
    return ks_write_status(f, err);
}

/* A link per listed trace in the new (empty) folder out, named name_of. */
static ks_status link_traces(const out_ctx *c, const char *out, ks_error *err)
{
    for (size_t k = 0; k < c->count; k++) {
        size_t launch = c->entries[k].launch;
        bool again = c->entries[k].state || /* a carrier: a file of the folder, no link */
                     remapped_trace(c, launch);
        for (size_t j = 0; j < k && !again; j++)
            again = c->entries[j].launch == launch && !c->entries[j].state;
        if (again)
            continue;
        char *target = ks_path_join(c->t->dir, file_of(c->t, launch));
        if (target && strchr(file_of(c->t, launch), '/')) { /* no "tr/../base" in the link */
            char *resolved = realpath(target, NULL);
            if (resolved) {
                free(target);
                target = resolved;
            }
        }
        char *link = ks_path_join(out, name_of(c->t, launch));
        ks_status st = KS_OK;
        if (!target || !link)
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        else if (symlink(target, link) != 0)
            st = errno == EEXIST
                     ? ks_error_set(err, KS_ERR_FORMAT, c->t->dir, 0,
                                    "two listed traces are named %s (%s and another): a "
                                    "simulator's log could not tell them apart",
                                    name_of(c->t, launch), file_of(c->t, launch))
                     : ks_error_set(err, KS_ERR_IO, link, 0, "cannot link to %s: %s", target,
                                    strerror(errno));
        free(target);
        free(link);
        if (st != KS_OK)
            return st;
    }
    return KS_OK;
}

/* What an earlier export or job left in a folder it may replace (a
 * trailing '*': a prefix, files or folders). */
static const char *const own_files[] = {"kernelslist.g", "weights.csv",
                                        KS_WARM_KERNEL_FILE_PREFIX "*",
                                        KS_WARM_MACSIM_FOLDER_PREFIX "*", NULL};

/* A job's warm-state carrier files of launch, taken over into b
 * (ks_export_state_carriers). */
static ks_status adopt_state(const void *ctx, ks_dir_build *b, size_t launch, ks_error *err)
{
    const out_ctx *c = ctx;
    char name[96];
    if (memcpy_state(c))
        snprintf(name, sizeof name, "ksample-state-%zu.memcpy", launch + 1);
    else
        ks_warm_kernel_file(name, launch);
    ks_status st = ks_dir_build_adopt(b, name, err);
    /* the copies' kernel: +stores' always, split's where the walk wrote one */
    if (st == KS_OK && (stores_state(c) || split_kernel_at(c, b->path, launch))) {
        st = ks_dir_build_adopt(b, ks_warm_kernel_file(name, launch), err);
    }
    if (st == KS_OK && remapped_trace(c, launch))
        st = ks_dir_build_adopt(b, name_of(c->t, launch), err);
    return st;
}

static ks_status write_folder(out_ctx *c, const char *out, bool job, ks_error *err)
{
    ks_dir_build b;
    ks_status st = ks_dir_build_begin(out, job ? NULL : own_files, &b, err);
    if (st != KS_OK)
        return st;
    char *list = ks_path_join(b.tmp, "kernelslist.g"), *weights = ks_path_join(b.tmp, "weights.csv");
    if (!list || !weights)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK)
        st = ks_export_state_carriers(c->t->dir, c->warmup, c->entries, c->count, &b, job,
                                      adopt_state, c, err);
    c->out = b.tmp; /* the carriers are read from the new folder */
    if (st == KS_OK)
        st = link_traces(c, b.tmp, err);
    if (st == KS_OK)
        st = ks_write_atomic(list, write_list, c, err);
    if (st == KS_OK)
        st = ks_write_atomic(weights, write_weights, c, err);
    /* the state's memory copies are in the list now */
    for (size_t k = 0; st == KS_OK && k < c->count; k++)
        if (c->entries[k].state && memcpy_state(c)) {
            char name[64];
            snprintf(name, sizeof name, "ksample-state-%zu.memcpy", c->entries[k].launch + 1);
            char *path = ks_path_join(b.tmp, name);
            if (path)
                unlink(path);
            free(path);
        }
    free(list);
    free(weights);
    return ks_dir_build_finish(&b, st, err);
}

static int cmp_launch(const void *a, const void *b)
{
    const ks_export_entry *x = a, *y = b;
    return (x->launch > y->launch) - (x->launch < y->launch);
}

ks_status ks_export_accelsim_entries(const ks_plan *plan, const ks_export_options *opt,
                                     ks_export_entry **out, size_t *count, ks_error *err)
{
    *out = NULL;
    *count = 0;
    if (!opt || !opt->traces)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--to accelsim needs --traces DIR (the complete traces)");
    if (opt->remap && !opt->profile)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--remap needs the plan's profile (--profile)");
    trace_list t;
    ks_status st = list_read(opt->traces, &t, err);
    size_t *kernel_of_sample = malloc((plan->sample_count + 1) * sizeof *kernel_of_sample);
    ks_export_entry *e = malloc((plan->sample_count + 1) * sizeof *e);
    if (st == KS_OK && (!kernel_of_sample || !e))
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    if (st == KS_OK)
        st = opt->remap ? map_by_key(plan, opt->profile, &t, kernel_of_sample, err)
                        : map_by_position(plan, opt->profile, &t, kernel_of_sample, err);
    if (st == KS_OK) {
        for (size_t i = 0; i < plan->sample_count; i++)
            e[i] = (ks_export_entry){kernel_of_sample[i], plan->samples[i].id,
                                     plan->samples[i].weight, true, false};
        /* the simulator runs them in trace order */
        qsort(e, plan->sample_count, sizeof *e, cmp_launch);
        *out = e;
        *count = plan->sample_count;
        e = NULL;
    }
    free(kernel_of_sample);
    free(e);
    list_free(&t);
    return st;
}

ks_status ks_export_accelsim_write(const ks_plan *plan, const char *traces,
                                   const ks_export_entry *entries, size_t count,
                                   const ks_warmup *warmup, const char *out, bool job,
                                   ks_error *err)
{
    trace_list t;
    ks_status st = list_read(traces, &t, err);
    if (st != KS_OK)
        return st;
    char text[32];
    bool warmups = ks_export_warmup_text(warmup, entries, count, text, sizeof text);
    out_ctx c = {plan, &t, entries, count, warmups, text, warmup, out};
    st = write_folder(&c, out, job, err);
    list_free(&t);
    return st;
}


ks_status ks_export_with_warmup(const char *traces, const ks_warmup *warmup,
                                ks_export_entry **entries, size_t *count, ks_error *err)
{
    if (!warmup || warmup->mode == KS_WARMUP_NONE)
        return KS_OK;
    if (warmup->mode == KS_WARMUP_STATE) {
        /* a carrier before each launch: nothing to read of the folder here */
        ks_export_entry *all;
        size_t total;
        ks_status st = ks_warmup_entries(warmup, NULL, 0, *entries, *count, &all, &total, err);
        if (st == KS_OK) {
            free(*entries);
            *entries = all;
            *count = total;
        }
        return st;
    }
    ks_warmup_launch *launches;
    size_t n;
    ks_status st = ks_trace_folder_launches(traces, &launches, &n, err);
    if (st != KS_OK)
        return st;
    ks_export_entry *all;
    size_t total;
    st = ks_warmup_entries(warmup, launches, n, *entries, *count, &all, &total, err);
    ks_warmup_launches_free(launches, n);
    if (st == KS_OK) {
        free(*entries);
        *entries = all;
        *count = total;
    }
    return st;
}

KS_FOLDER_EXPORTER(ks_exporter_accelsim, "accelsim",
                   "folder for Accel-Sim: kernelslist.g of every memory copy and the sampled "
                   "launches' traces (--traces DIR; --warmup puts warm-up launches before "
                   "each), weights.csv",
                   ks_export_accelsim_entries, ks_export_accelsim_write);
