/*
 * macsim.c - a folder MacSim runs as it is: kernel_config.txt listing only
 * the sampled launches (and their warm-up launches, with --warmup), a
 * symbolic link per listed launch to its kernel folder, trace_file_list
 * (MacSim reads it from its working folder: "1", then the kernel_config.txt
 * path) and weights.csv (uid: 1-based position in kernel_config.txt, which
 * is MacSim's current_index + 1; id: plan id; role: warm-up or measured).
 *
 * MacSim takes a listed launch's last two path components (".../KernelN/
 * trace.txt") below kernel_config.txt's folder, so the links are named as
 * the trace folder names its launches, and a MacSim log of this folder maps
 * back to launches by those names (ks_trace_index).  Ids are launch
 * positions in the trace folder's kernel_config.txt; with the plan's profile
 * at hand each sampled id is checked against the launch's name (and grid and
 * block, when kernel_names.txt gives them).
 */
#include "export.h"
#include "warm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct macsim_out {
    const ks_plan *plan;
    const ks_macsim_set *set;
    const ks_export_entry *entries;
    size_t count;
    bool warmups;
    const char *warmup_text;
    const char *config; /* absolute path of the output's kernel_config.txt */
    const char *traces;
    const ks_warmup *warmup;
} macsim_out;

static ks_status write_config(const void *ctx, FILE *f, ks_error *err)
{
    const macsim_out *c = ctx;
    fputs("nvbit\n14\n-1\n", f);
    for (size_t k = 0; k < c->count; k++)
        if (c->entries[k].state)
            fprintf(f, "./%s%zu/trace.txt\n", KS_WARM_MACSIM_FOLDER_PREFIX,
                    c->entries[k].launch + 1);
        else
            fprintf(f, "./%s/trace.txt\n",
                    ks_macsim_set_launch(c->set, c->entries[k].launch)->folder);
    return ks_write_status(f, err);
}

static ks_status write_list(const void *ctx, FILE *f, ks_error *err)
{
    const macsim_out *c = ctx;
    fprintf(f, "1\n%s\n", c->config);
    return ks_write_status(f, err);
}

static ks_status write_weights(const void *ctx, FILE *f, ks_error *err)
{
    const macsim_out *c = ctx;
    ks_export_weights_head(
        f, c->plan, ks_macsim_set_dir(c->set),
        "# uid: 1-based position in kernel_config.txt (MacSim's current_index + 1)\n"
        "# id: 0-based launch in the profile; trace_launch: 1-based launch in the trace "
        "folder\n",
        c->warmups, c->warmup_text);
    for (size_t k = 0; k < c->count; k++) {
        const ks_export_entry *e = &c->entries[k];
        if (e->state) {
            fprintf(f, "%zu,%llu,0,%zu,%s%zu/trace.txt,state\n", k + 1,
                    (unsigned long long)e->id, e->launch + 1, KS_WARM_MACSIM_FOLDER_PREFIX,
                    e->launch + 1);
            continue;
        }
        fprintf(f, "%zu,%llu,%.17g,%zu,%s/trace.txt", k + 1, (unsigned long long)e->id,
                e->weight, e->launch + 1, ks_macsim_set_launch(c->set, e->launch)->folder);
        ks_export_weights_role(f, c->warmups, e);
    }
    return ks_write_status(f, err);
}

/* A link per listed launch in the new (empty) folder out, named as the
 * trace folder names the launch's kernel folder (one path component). */
static ks_status link_folders(const macsim_out *c, const char *out, ks_error *err)
{
    for (size_t k = 0; k < c->count; k++) {
        const ks_macsim_launch *l = ks_macsim_set_launch(c->set, c->entries[k].launch);
        bool again = c->entries[k].state; /* a folder of the output itself */
        for (size_t j = 0; j < k && !again; j++)
            again = c->entries[j].launch == c->entries[k].launch && !c->entries[j].state;
        if (again)
            continue;
        if (!*l->folder || strchr(l->folder, '/') || strcmp(l->folder, ".") == 0 ||
            strcmp(l->folder, "..") == 0)
            return ks_error_set(err, KS_ERR_FORMAT, ks_macsim_set_config(c->set), l->line,
                                "launch %zu's folder '%s' is not a name inside the folder",
                                c->entries[k].launch + 1, l->folder);
        char *link = ks_path_join(out, l->folder);
        if (!link)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        ks_status st = KS_OK;
        if (symlink(l->path, link) != 0)
            st = ks_error_set(err, KS_ERR_IO, link, 0, "cannot link to %s: %s", l->path,
                              strerror(errno));
        free(link);
        if (st != KS_OK)
            return st;
    }
    return KS_OK;
}

/* What an earlier export left in a folder it may replace (a trailing '*':
 * a prefix, files or folders). */
static const char *const own_files[] = {"kernel_config.txt", "trace_file_list", "weights.csv",
                                        KS_WARM_MACSIM_FOLDER_PREFIX "*", NULL};

/* A job's warm-state carrier folder of launch, taken over into b
 * (ks_export_state_carriers). */
static ks_status adopt_state(const void *ctx, ks_dir_build *b, size_t launch, ks_error *err)
{
    (void)ctx;
    char name[96];
    snprintf(name, sizeof name, "%s%zu", KS_WARM_MACSIM_FOLDER_PREFIX, launch + 1);
    return ks_dir_build_adopt(b, name, err);
}

static ks_status write_folder(macsim_out *c, const char *out, bool job, ks_error *err)
{
    ks_dir_build b;
    ks_status st = ks_dir_build_begin(out, job ? NULL : own_files, &b, err);
    if (st != KS_OK)
        return st;
    /* trace_file_list names kernel_config.txt where it will be */
    char *config = ks_path_join(b.path, "kernel_config.txt");
    char *tmp_config = ks_path_join(b.tmp, "kernel_config.txt");
    char *list = ks_path_join(b.tmp, "trace_file_list");
    char *weights = ks_path_join(b.tmp, "weights.csv");
    if (!config || !tmp_config || !list || !weights)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    c->config = config;
    if (st == KS_OK)
        st = ks_export_state_carriers(c->traces, c->warmup, c->entries, c->count, &b, job,
                                      adopt_state, c, err);
    if (st == KS_OK)
        st = link_folders(c, b.tmp, err);
    if (st == KS_OK)
        st = ks_write_atomic(tmp_config, write_config, c, err);
    if (st == KS_OK)
        st = ks_write_atomic(list, write_list, c, err);
    if (st == KS_OK)
        st = ks_write_atomic(weights, write_weights, c, err);
    KS_FREE(config, tmp_config, list, weights);
    return ks_dir_build_finish(&b, st, err);
}

/* Plan id i is the folder's launch i; checked against the profile. */
static ks_status check_launch(const ks_profile *p, uint64_t id, const ks_macsim_set *s,
                              ks_error *err)
{
    const ks_macsim_launch *l = ks_macsim_set_launch(s, (size_t)id);
    if (!l)
        return ks_error_set(err, KS_ERR_FORMAT, ks_macsim_set_config(s), 0,
                            "plan id %llu but the trace folder has %zu launches",
                            (unsigned long long)id, ks_macsim_set_count(s));
    if (!p || id >= p->n)
        return KS_OK;
    char a[512], b[512];
    ks_export_base_name(ks_profile_name(p, id), a, sizeof a);
    ks_export_base_name(l->name, b, sizeof b);
    bool same = strcmp(a, b) == 0;
    if (same && l->has_dims && ks_profile_has_dims(p)) {
        const uint32_t *g = ks_profile_grid(p, id), *k = ks_profile_block(p, id);
        if ((g[0] | g[1] | g[2]) != 0)
            same = memcmp(g, l->grid, sizeof l->grid) == 0 &&
                   memcmp(k, l->block, sizeof l->block) == 0;
    }
    if (!same)
        return ks_error_set(err, KS_ERR_FORMAT, ks_macsim_set_config(s), l->line,
                            "plan id %llu is profile launch %llu (%.200s) but the trace "
                            "folder's launch %llu (%s) is %.200s",
                            (unsigned long long)id, (unsigned long long)id + 1,
                            ks_profile_name(p, id), (unsigned long long)id + 1, l->folder,
                            l->name);
    return KS_OK;
}

/* Whether the folder holds only some of the launches the tracer numbered:
 * every folder named Kernel<N>, the numbers ascending and skipping some
 * (MacSim's tracer numbers launches from 0, as plan ids).  Plan id i is
 * then the launch of folder Kernel<i>. */
static bool partial_folder(const ks_macsim_set *s)
{
    bool skips = false;
    uint64_t prev = 0;
    for (size_t i = 0; i < ks_macsim_set_count(s); i++) {
        uint64_t n = ks_macsim_folder_number(ks_macsim_set_launch(s, i)->folder);
        if (n == UINT64_MAX || (i && n <= prev))
            return false;
        skips |= n != i;
        prev = n;
    }
    return skips;
}

ks_status ks_export_macsim_entries(const ks_plan *plan, const ks_export_options *opt,
                                   ks_export_entry **out, size_t *count, ks_error *err)
{
    *out = NULL;
    *count = 0;
    if (!opt || !opt->traces)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--to macsim needs --traces DIR (the complete MacSim traces)");
    if (opt->remap)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "--remap needs launch dimensions in the traces; MacSim folders "
                            "are matched by position");
    ks_macsim_set *s;
    ks_status st = ks_macsim_set_open(opt->traces, &s, err);
    if (st != KS_OK)
        return st;
    ks_export_entry *e = malloc((plan->sample_count + 1) * sizeof *e);
    if (!e)
        st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    bool partial = st == KS_OK && partial_folder(s);
    for (size_t i = 0; i < plan->sample_count && st == KS_OK; i++) {
        uint64_t id = plan->samples[i].id;
        if (partial) {
            size_t k = 0, n = ks_macsim_set_count(s);
            while (k < n && ks_macsim_folder_number(ks_macsim_set_launch(s, k)->folder) != id)
                k++;
            if (k == n)
                st = ks_error_set(err, KS_ERR_FORMAT, ks_macsim_set_config(s), 0,
                                  "plan id %llu: this partial trace folder (%zu launches) "
                                  "has no Kernel%llu: trace it (export --to macsim-tracer)",
                                  (unsigned long long)id, n, (unsigned long long)id);
            else
                e[i] = (ks_export_entry){k, id, plan->samples[i].weight, true, false};
            continue;
        }
        if ((st = check_launch(opt->profile, id, s, err)) == KS_OK)
            e[i] = (ks_export_entry){(size_t)id, id, plan->samples[i].weight, true, false};
    }
    ks_macsim_set_free(s);
    if (st != KS_OK) {
        free(e);
        return st;
    }
    *out = e;
    *count = plan->sample_count;
    return KS_OK;
}

ks_status ks_export_macsim_write(const ks_plan *plan, const char *traces,
                                 const ks_export_entry *entries, size_t count,
                                 const ks_warmup *warmup, const char *out, bool job,
                                 ks_error *err)
{
    ks_macsim_set *s;
    ks_status st = ks_macsim_set_open(traces, &s, err);
    if (st != KS_OK)
        return st;
    char text[32];
    bool warmups = ks_export_warmup_text(warmup, entries, count, text, sizeof text);
    macsim_out c = {plan, s, entries, count, warmups, text, NULL, traces, warmup};
    st = write_folder(&c, out, job, err);
    ks_macsim_set_free(s);
    return st;
}

KS_FOLDER_EXPORTER(ks_exporter_macsim, "macsim",
                   "folder MacSim runs as it is: kernel_config.txt of the sampled launches "
                   "(--traces DIR, a MacSim NVBit trace folder; --warmup puts warm-up launches "
                   "before each), links to their kernel folders, trace_file_list, weights.csv",
                   ks_export_macsim_entries, ks_export_macsim_write);
