/* cli_run.c - the preparation of `ksample run`'s jobs (cmd_run.c runs
 * them): the simulator command of each job folder, the job folders
 * exported from the plan, the warm state rebuilt into them in one pass over
 * the traces, the state:memcpy probe, and the manifest's record of what the
 * jobs simulate. */
#define _GNU_SOURCE /* nftw */
#include "cli_run.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 'text' with every ' written as '\'' */
static void shell_quote(char *out, size_t size, const char *text)
{
    size_t n = 0;
    if (n + 1 < size)
        out[n++] = '\'';
    for (const char *p = text; *p && n + 5 < size; p++) {
        if (*p == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *p;
        }
    }
    if (n + 1 < size)
        out[n++] = '\'';
    out[n] = '\0';
}

/* The simulator command with its placeholders replaced by shell-quoted
 * absolute paths; NULL when out of memory. */
static char *expand(const char *template, const char *const keys[], const char *const values[],
                    size_t count)
{
    char quoted[4][PATH_MAX * 4 + 8];
    size_t cap = strlen(template) + 1, n = 0;
    for (size_t k = 0; k < count; k++)
        shell_quote(quoted[k], sizeof quoted[k], values[k]);
    for (const char *p = template; (p = strchr(p, '{')); p++)
        for (size_t k = 0; k < count; k++)
            cap += strlen(quoted[k]);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = template; *p;) {
        bool done = false;
        for (size_t k = 0; k < count && !done; k++) {
            size_t len = strlen(keys[k]);
            if (strncmp(p, keys[k], len) == 0) {
                n += (size_t)snprintf(out + n, cap - n, "%s", quoted[k]);
                p += len;
                done = true;
            }
        }
        if (!done)
            out[n++] = *p++;
    }
    out[n] = '\0';
    return out;
}

int cli_run_make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ksample: %s: cannot create: %s\n", path, strerror(errno));
        return KS_ERR_IO;
    }
    return 0;
}

/* A rerun must be of the same plan, and, once a job is done, of the same
 * options: the finished jobs' results would otherwise be mixed with another
 * warm-up's or another batch's.  With no job done there is nothing to mix:
 * every job starts afresh. */
ks_status cli_run_compare_previous(const char *rundir, const char *manifest,
                                   const ks_run_manifest *before, const ks_run_manifest *now,
                                   ks_error *err)
{
    struct stat sb;
    ks_run_manifest read;
    const ks_run_manifest *old = before;
    if (!old) {
        if (stat(manifest, &sb) != 0)
            return KS_OK;
        if (ks_run_manifest_read(manifest, &read, err) != KS_OK)
            return err->status;
        old = &read;
    }
    size_t done = 0;
    for (size_t j = 0; j < old->job_count; j++) {
        ks_job_state state;
        int code;
        if (ks_run_job_state(rundir, old->jobs[j].dir, &state, &code, err) == KS_OK &&
            state == KS_JOB_DONE)
            done++;
    }
    ks_error_clear(err);
    ks_status st = KS_OK;
    if (strcmp(old->plan_xxh128, now->plan_xxh128) != 0 || done > 0)
        st = ks_run_manifest_compare(old, now, manifest, err);
    if (!before)
        ks_run_manifest_free(&read);
    return st;
}

int cli_run_check_previous(const char *rundir, const char *manifest,
                           const ks_run_manifest *before, const ks_run_manifest *now)
{
    ks_error err;
    ks_error_clear(&err);
    return cli_run_compare_previous(rundir, manifest, before, now, &err) == KS_OK
               ? 0
               : cli_fail(&err);
}


void cli_run_forget_jobs(run_state *s)
{
    for (size_t j = 0; j < s->job_count; j++) {
        free(s->dirs ? s->dirs[j] : NULL);
        free(s->commands ? s->commands[j] : NULL);
        if (s->manifest.jobs) {
            free(s->manifest.jobs[j].ids);
            free(s->manifest.jobs[j].measured);
            free(s->manifest.jobs[j].launches);
        }
    }
    free(s->dirs);
    free(s->commands);
    free(s->jobs);
    free(s->manifest.jobs);
    free(s->job_first);
    s->dirs = s->commands = NULL;
    s->jobs = NULL;
    s->manifest.jobs = NULL;
    s->job_first = NULL;
    s->job_count = s->manifest.job_count = 0;
}

void cli_run_state_free(run_state *s)
{
    cli_run_forget_jobs(s);
    free(s->entries);
    free(s->reused_first);
    free(s->manifest.earlier); /* its paths are previous's */
    s->manifest.earlier = NULL;
    s->manifest.earlier_count = 0;
    if (s->has_previous)
        ks_run_manifest_free(&s->previous);
    ks_plan_free(&s->plan);
    ks_profile_free(s->profile);
    ks_run_lock_release(s->lock);
}

/* Jobs of `batch` sampled launches each, every one after its warm-ups. */
int cli_run_split_jobs(run_state *s, uint64_t batch)
{
    size_t from = s->reused ? s->reused_first[s->reused] : 0, measured = 0;
    for (size_t k = from; k < s->entry_count; k++)
        measured += s->entries[k].measured;
    s->job_count = s->reused + (measured + batch - 1) / batch;
    s->job_first = calloc(s->job_count + 1, sizeof *s->job_first);
    if (!s->job_first)
        return KS_ERR_NOMEM;
    for (size_t j = 0; j < s->reused; j++)
        s->job_first[j] = s->reused_first[j];
    size_t j = s->reused, in_job = 0;
    s->job_first[j] = from;
    for (size_t k = from; k < s->entry_count; k++)
        if (s->entries[k].measured && ++in_job == batch) {
            s->job_first[++j] = k + 1;
            in_job = 0;
        }
    s->job_first[s->job_count] = s->entry_count;
    s->dir_cursor = s->next_dir;
    return 0;
}

/* A refusal of the folder's earlier jobs, printed; its exit code. */
static int fail_at(ks_error *err, ks_status code, const char *path, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ks_error_set(err, code, path, 0, "%s", text);
    return cli_fail(err);
}

/* The number of a job folder ksample run names (jobs/NNNN); -1 for another
 * name (a manifest edited, or of another tool). */
static long job_dir_number(const char *dir)
{
    if (strncmp(dir, "jobs/", 5) != 0 || strlen(dir + 5) < 4 || strlen(dir + 5) > 9)
        return -1;
    long n = 0;
    for (const char *p = dir + 5; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

typedef struct launch_block {
    uint64_t id;        /* the sampled launch (plan id) */
    size_t first, end;  /* its entries: warm-ups, state, then itself */
    bool taken;
} launch_block;

static int by_id(const void *x, const void *y)
{
    const launch_block *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int layout(run_state *s, const char *manifest, const char *plan_name)
{
    const ks_run_manifest *old = &s->previous;
    size_t blocks = 0;
    for (size_t k = 0; k < s->entry_count; k++)
        blocks += s->entries[k].measured;
    launch_block *b = calloc(blocks + 1, sizeof *b), *sorted = calloc(blocks + 1, sizeof *b);
    ks_export_entry *out = malloc((s->entry_count + 1) * sizeof *out);
    s->reused_first = calloc(old->job_count + 1, sizeof *s->reused_first);
    if (!b || !sorted || !out || !s->reused_first) {
        free(b);
        free(sorted);
        free(out);
        return KS_ERR_NOMEM;
    }
    size_t n = 0, start = 0;
    for (size_t k = 0; k < s->entry_count; k++)
        if (s->entries[k].measured) {
            b[n] = (launch_block){s->entries[k].id, start, k + 1, false};
            n++;
            start = k + 1;
        }
    memcpy(sorted, b, n * sizeof *b);
    qsort(sorted, n, sizeof *sorted, by_id);
    ks_error err;
    ks_error_clear(&err);
    char typed[PATH_MAX];
    size_t used = 0;
    long highest = -1;
    int rc = 0;
    for (size_t j = 0; j < old->job_count && !rc; j++) {
        const ks_run_manifest_job *job = &old->jobs[j];
        long number = job_dir_number(job->dir);
        if (number < 0) {
            rc = fail_at(&err, KS_ERR_FORMAT, manifest,
                         "job %zu's folder '%s' is not one 'ksample run' makes "
                         "(jobs/NNNN): its jobs cannot be reused; give a new folder "
                         "(-o NEW)",
                         j, job->dir);
            break;
        }
        highest = number > highest ? number : highest;
        s->reused_first[j] = used;
        for (size_t k = 0; k < job->id_count && !rc; k++) {
            if (job->measured && job->measured[k] != 1)
                continue;
            launch_block key = {.id = job->ids[k]};
            launch_block *hit = bsearch(&key, sorted, n, sizeof *sorted, by_id);
            if (!hit) {
                rc = fail_at(&err, KS_ERR_USAGE, manifest,
                             "this run folder holds the jobs of %s, whose launch %llu "
                             "(%s) is not in %s: that is not a plan refined from it (a "
                             "refined plan keeps every launch of its parent), so these "
                             "jobs cannot be reused; give a new folder (-o NEW)",
                             cli_as_typed(old->plan, typed, sizeof typed),
                             (unsigned long long)job->ids[k], job->dir,
                             plan_name);
            } else if (hit->taken) {
                rc = fail_at(&err, KS_ERR_FORMAT, manifest,
                             "launch %llu is measured by two jobs",
                             (unsigned long long)job->ids[k]);
            } else {
                hit->taken = true;
                memcpy(out + used, s->entries + hit->first,
                       (hit->end - hit->first) * sizeof *out);
                used += hit->end - hit->first;
            }
        }
    }
    s->reused_first[old->job_count] = used;
    /* the launches new to this folder, in the plan's order (and whatever
     * follows the last sampled launch, as split_jobs keeps it) */
    for (size_t i = 0; i < n && !rc; i++) {
        launch_block key = {.id = b[i].id};
        if (((launch_block *)bsearch(&key, sorted, n, sizeof *sorted, by_id))->taken)
            continue;
        memcpy(out + used, s->entries + b[i].first, (b[i].end - b[i].first) * sizeof *out);
        used += b[i].end - b[i].first;
    }
    if (!rc) {
        memcpy(out + used, s->entries + start, (s->entry_count - start) * sizeof *out);
        used += s->entry_count - start;
    }
    free(b);
    free(sorted);
    if (rc) {
        free(out);
        return rc;
    }
    free(s->entries);
    s->entries = out;
    s->reused = old->job_count;
    s->next_dir = (size_t)(highest + 1);
    return 0;
}

int cli_run_reuse_layout(run_state *s, const run_args *a, const char *manifest,
                         const char *digest)
{
    struct stat sb;
    if (lstat(manifest, &sb) != 0)
        return 0; /* a new folder */
    ks_error err;
    ks_error_clear(&err);
    if (ks_run_manifest_read(manifest, &s->previous, &err) != KS_OK)
        return cli_fail(&err);
    s->has_previous = true;
    const ks_run_manifest *old = &s->previous;
    bool other = strcmp(old->plan_xxh128, digest) != 0;
    if (!other && old->earlier_count == 0)
        return 0; /* a rerun of the plan the folder was made for */
    if (other && ks_run_manifest_plan_kind(old, digest) == 2) {
        /* a plan the folder was run for before a refined plan reused its
         * jobs: compared as a rerun with those jobs alone, and never
         * written (the manifest stays the refined plan's) */
        s->earlier_only = true;
        size_t kept = 0;
        for (size_t j = 0; j < s->previous.job_count; j++) {
            ks_run_manifest_job *job = &s->previous.jobs[j];
            bool mine = true;
            for (size_t k = 0; k < job->id_count && mine; k++)
                if (!job->measured || job->measured[k] == 1)
                    mine = ks_plan_has_sample(&s->plan, job->ids[k]);
            if (mine) {
                s->previous.jobs[kept++] = *job;
            } else {
                free(job->dir);
                free(job->ids);
                free(job->measured);
                free(job->launches);
            }
        }
        s->previous.job_count = kept;
        memcpy(s->previous.plan_xxh128, digest, sizeof s->previous.plan_xxh128);
        return layout(s, manifest, a->plan);
    }
    /* the plans this folder was run for, oldest first (paths are old's) */
    size_t count = old->earlier_count + (other ? 1 : 0);
    s->manifest.earlier = calloc(count, sizeof *s->manifest.earlier);
    if (!s->manifest.earlier)
        return KS_ERR_NOMEM;
    for (size_t i = 0; i < old->earlier_count; i++)
        s->manifest.earlier[i] = old->earlier[i];
    if (other) {
        s->manifest.earlier[old->earlier_count].path = old->plan;
        memcpy(s->manifest.earlier[old->earlier_count].xxh128, old->plan_xxh128, 33);
    }
    s->manifest.earlier_count = count;
    /* a folder of this version's ksample before the profile was recorded:
     * the plan it names, when it is still the plan its jobs were made for */
    if (other && !old->profile_xxh128) {
        ks_plan parent;
        char parent_digest[33];
        ks_error ignored;
        if (ks_plan_read(old->plan, &parent, &ignored) == KS_OK) {
            if (ks_file_xxh128(old->plan, parent_digest, &ignored) == KS_OK &&
                strcmp(parent_digest, old->plan_xxh128) == 0 && parent.input_xxh128[0])
                s->previous.profile_xxh128 = strdup(parent.input_xxh128);
            ks_plan_free(&parent);
        }
    }
    return layout(s, manifest, a->plan);
}

void cli_run_say_reuse(const run_state *s, const run_args *a, const char *digest)
{
    if (!s->has_previous || strcmp(s->previous.plan_xxh128, digest) == 0)
        return;
    size_t reused = 0, again = 0, fresh = 0;
    for (size_t j = 0; j < s->job_count; j++) {
        size_t launches = 0;
        for (size_t k = s->job_first[j]; k < s->job_first[j + 1]; k++)
            launches += s->entries[k].measured;
        ks_job_state state = KS_JOB_PENDING;
        int code;
        ks_error ignored;
        if (j < s->reused &&
            ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &ignored) != KS_OK)
            state = KS_JOB_PENDING;
        if (j >= s->reused)
            fresh += launches;
        else if (state == KS_JOB_DONE)
            reused += launches;
        else
            again += launches;
    }
    char rest[96] = "", typed[PATH_MAX];
    if (again)
        snprintf(rest, sizeof rest, " (and %zu of its launches not done yet)", again);
    fprintf(stderr,
            "ksample: run: reusing %zu launch%s simulated for %s; %zu new to simulate%s\n",
            reused, reused == 1 ? "" : "es", cli_as_typed(s->previous.plan, typed, sizeof typed),
            fresh, rest);
}

/* Links every file of the configuration folders into the job folder: a
 * GPGPU-Sim configuration names its interconnect file relative to the
 * working folder. */
static int link_configs(const run_args *a, const char *dir)
{
    for (int c = 0; c < a->config_count; c++) {
        char *abs = realpath(a->configs[c], NULL);
        DIR *d = abs ? opendir(abs) : NULL;
        if (!d) {
            fprintf(stderr, "ksample: %s: cannot open the configuration folder: %s\n",
                    a->configs[c], strerror(errno));
            free(abs);
            return KS_ERR_IO;
        }
        struct dirent *e;
        int rc = 0;
        while (!rc && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char target[PATH_MAX * 2], link[PATH_MAX * 2];
            snprintf(target, sizeof target, "%s/%s", abs, e->d_name);
            snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
            struct stat sb;
            if (stat(target, &sb) != 0 || !S_ISREG(sb.st_mode))
                continue;
            unlink(link);
            if (symlink(target, link) != 0) {
                fprintf(stderr, "ksample: %s: cannot link to %s: %s\n", link, target,
                        strerror(errno));
                rc = KS_ERR_IO;
            }
        }
        closedir(d);
        free(abs);
        if (rc)
            return rc;
    }
    return 0;
}

bool cli_run_file_in_configs(const run_args *a, const char *name)
{
    for (int c = 0; c < a->config_count; c++) {
        char path[PATH_MAX * 2];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", a->configs[c], name);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            return true;
    }
    return false;
}

/* The command of a job folder dir. */
static char *job_command(const run_args *a, bool macsim, const char *dir)
{
    char list[PATH_MAX + 32], config[PATH_MAX + 32], tfl[PATH_MAX + 32];
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    snprintf(config, sizeof config, "%s/kernel_config.txt", dir);
    snprintf(tfl, sizeof tfl, "%s/trace_file_list", dir);
    const char *keys[] = {"{kernelslist}", "{kernel_config}", "{trace_file_list}", "{outdir}"};
    const char *values[] = {list, config, tfl, dir};
    if (a->simulator)
        return expand(a->simulator, keys, values, 4);
    char template[PATH_MAX * 2 + 128];
    if (macsim) {
        snprintf(template, sizeof template, "%s", "{bin}");
    } else {
        snprintf(template, sizeof template, "{bin} -trace {kernelslist} -config gpgpusim.config%s",
                 cli_run_file_in_configs(a, "trace.config") ? " -config trace.config" : "");
    }
    const char *pkeys[] = {"{bin}", "{kernelslist}"};
    const char *pvalues[] = {macsim ? a->macsim : a->accelsim, list};
    return expand(template, pkeys, pvalues, 2);
}

/* What the manifest records of the simulator's command: the template as
 * given, or the preset's files as absolute paths; with --warmup state, the
 * options the rebuilt state depends on (malloc'd). */
char *cli_run_command_text(const run_args *a)
{
    size_t cap = PATH_MAX * (size_t)(a->config_count + 4) + 256, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    if (a->warmup.mode == KS_WARMUP_STATE) {
        char *cfg = a->warmup.sim_config ? realpath(a->warmup.sim_config, NULL) : NULL;
        /* no --l2-size: the L2 is the simulator configuration's, not 0 bytes */
        char l2[64] = "l2 from the simulator configuration";
        if (a->warmup.l2_bytes)
            snprintf(l2, sizeof l2, "l2 %llu bytes", (unsigned long long)a->warmup.l2_bytes);
        n += (size_t)snprintf(out + n, cap - n, "[state: %s, cut %g, %s lines, sim-config %s] ",
                              l2,
                              /* the default spelled out is the default: recorded
                               * as 0, as runs that left it out have it */
                              a->warmup.cut == KS_STATE_DEFAULT_CUT ? 0 : a->warmup.cut,
                              a->warmup.lines == KS_STATE_LINES_ALL       ? "all"
                              : a->warmup.lines == KS_STATE_LINES_TOUCHED ? "touched"
                                                                          : "dirty",
                              cfg ? cfg : a->warmup.sim_config ? a->warmup.sim_config : "-");
        free(cfg);
    }
    if (a->simulator) {
        snprintf(out + n, cap - n, "%s", a->simulator);
        return out;
    }
    n += (size_t)snprintf(out + n, cap - n, "%s", a->accelsim ? a->accelsim : a->macsim);
    for (int c = 0; c < a->config_count; c++) {
        char *abs = realpath(a->configs[c], NULL);
        n += (size_t)snprintf(out + n, cap - n, " --config %s", abs ? abs : a->configs[c]);
        free(abs);
    }
    if (a->params) {
        char *abs = realpath(a->params, NULL);
        snprintf(out + n, cap - n, " --params %s", abs ? abs : a->params);
        free(abs);
    }
    return out;
}

/* Job j in the manifest: its folder and launches. */
int cli_run_describe_job(run_state *s, const run_args *a, size_t j)
{
    size_t first = s->job_first[j], count = s->job_first[j + 1] - first;
    char rel[64];
    if (j < s->reused) {
        snprintf(rel, sizeof rel, "%s", s->previous.jobs[j].dir);
    } else if (s->reused_first) {
        /* a new job of a folder run before: a number no folder has (not
         * even one the manifest forgot, whose status would say "done") */
        char path[PATH_MAX + 64];
        struct stat sb;
        do {
            snprintf(rel, sizeof rel, "jobs/%04zu", s->dir_cursor++);
            snprintf(path, sizeof path, "%s/%s", a->rundir, rel);
        } while (lstat(path, &sb) == 0);
    } else {
        snprintf(rel, sizeof rel, "jobs/%04zu", j);
    }
    s->dirs[j] = strdup(rel);
    ks_run_manifest_job *mj = &s->manifest.jobs[j];
    mj->dir = s->dirs[j];
    mj->ids = malloc((count ? count : 1) * sizeof *mj->ids);
    bool warmups = false, remapped = false;
    for (size_t k = 0; k < count; k++) {
        warmups = warmups || !s->entries[first + k].measured;
        remapped = remapped || s->entries[first + k].id != s->entries[first + k].launch;
    }
    mj->measured = warmups ? malloc(count) : NULL;
    mj->launches = remapped ? malloc(count * sizeof *mj->launches) : NULL;
    if (!s->dirs[j] || !mj->ids || (warmups && !mj->measured) || (remapped && !mj->launches))
        return KS_ERR_NOMEM;
    /* a state carrier that is a kernel runs (measured 2: ksample's warm-up
     * kernel, no launch of the traces); memory copies are no kernel */
    bool copies = a->warmup.mode == KS_WARMUP_STATE && (a->warmup.carrier == KS_STATE_MEMCPY ||
                                                        a->warmup.carrier == KS_STATE_MEMCPY32);
    /* (state:memcpy32+stores lists its store kernel: a kernel, as state:kernel;
     * state:split lists one for every launch, and the results reader leaves
     * out those the walk did not write) */
    size_t listed = 0;
    for (size_t k = 0; k < count; k++) {
        const ks_export_entry *e = &s->entries[first + k];
        if (e->state && copies)
            continue;
        mj->ids[listed] = e->id;
        if (mj->measured)
            mj->measured[listed] = e->state ? 2 : e->measured;
        if (mj->launches)
            mj->launches[listed] = e->launch;
        listed++;
    }
    mj->id_count = listed;
    return 0;
}

/* Job j's folder: its launches exported, the preset's files linked, its
 * command; a job done before keeps its folder (the manifest's options are
 * these, check_previous). */
int cli_run_prepare_job(run_state *s, const run_args *a, size_t j)
{
    size_t first = s->job_first[j], count = s->job_first[j + 1] - first;
    char dir[PATH_MAX];
    char *abs = realpath(a->rundir, NULL);
    if (!abs) {
        fprintf(stderr, "ksample: %s: %s\n", a->rundir, strerror(errno));
        return KS_ERR_IO;
    }
    snprintf(dir, sizeof dir, "%s/%s", abs, s->dirs[j]);
    free(abs);
    ks_error err;
    ks_error_clear(&err);
    const ks_warmup *w = a->warmup.mode == KS_WARMUP_NONE ? NULL : &a->warmup;
    ks_job_state state;
    int code;
    if (ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &err) != KS_OK)
        return cli_fail(&err);
    bool done = state == KS_JOB_DONE;
    if (!done &&
        ks_export_entries_write(&s->plan, a->traces, s->entries + first, count, w, dir, &err) !=
            KS_OK)
        return cli_fail(&err);
    int rc = 0;
    if (!done && !s->macsim && a->accelsim)
        rc = link_configs(a, dir);
    if (!rc && !done && s->macsim && a->macsim) {
        char link[PATH_MAX + 16], *target = realpath(a->params, NULL);
        snprintf(link, sizeof link, "%s/params.in", dir);
        unlink(link);
        if (!target || symlink(target, link) != 0) {
            fprintf(stderr, "ksample: %s: cannot link to %s: %s\n", link, a->params,
                    strerror(errno));
            rc = KS_ERR_IO;
        }
        free(target);
    }
    if (rc)
        return rc;
    if (!(s->commands[j] = job_command(a, s->macsim, dir)))
        return KS_ERR_NOMEM;
    s->jobs[j] = (ks_run_job){s->dirs[j], s->commands[j]};
    return 0;
}



/* state:memcpy: whether the build takes 64-bit MemcpyHtoD lines, from a
 * probe job in RUNDIR/probe; when it does not, the run falls back to the
 * warm-up kernel and says so. */
int cli_run_probe_memcpy(run_args *a, bool earlier_only, bool *known)
{
    *known = false;
    char dir[PATH_MAX];
    char *abs = realpath(a->rundir, NULL);
    if (!abs)
        return cli_usage_error("run", "%s: %s", a->rundir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/probe", abs);
    free(abs);
    ks_error err;
    ks_error_clear(&err);
    char *cmd = job_command(a, false, dir);
    if (!cmd)
        return KS_ERR_NOMEM;
    /* the log starts with the command that made it: an earlier probe of
     * the same command has the verdict, and no simulator runs again */
    char header[PATH_MAX * 2 + 64], log[PATH_MAX + 16];
    snprintf(header, sizeof header, "# ksample probe: %.*s", PATH_MAX * 2, cmd);
    snprintf(log, sizeof log, "%s/sim.log", dir);
    struct stat sb;
    FILE *earlier = NULL;
    if (lstat(log, &sb) == 0 && S_ISREG(sb.st_mode) && ks_file_open_read(log, &earlier, &err) == KS_OK) {
        char *first = NULL;
        size_t cap = 0;
        ssize_t got = getline(&first, &cap, earlier);
        fclose(earlier);
        if (got > 0 && first[got - 1] == '\n')
            first[--got] = '\0';
        *known = got > 0 && strcmp(first, header) == 0;
        free(first);
    }
    ks_error_clear(&err);
    if (!*known && earlier_only) {
        free(cmd);
        return 0;
    }
    if (!*known) {
        if (ks_state_probe_write(dir, &err) != KS_OK)
            return free(cmd), cli_fail(&err);
        int rc = a->accelsim ? link_configs(a, dir) : 0;
        if (rc)
            return free(cmd), rc;
        char shell[PATH_MAX * 16], quoted[PATH_MAX * 4 + 8], quoted_header[PATH_MAX * 8 + 8];
        shell_quote(quoted, sizeof quoted, dir);
        shell_quote(quoted_header, sizeof quoted_header, header);
        snprintf(shell, sizeof shell, "cd %s && { printf '%%s\\n' %s; %.*s; } > sim.log 2>&1",
                 quoted, quoted_header, PATH_MAX * 2, cmd);
        int status = system(shell);
        if (status != 0) {
            free(cmd);
            fprintf(stderr, "ksample: run: the state:memcpy probe in %s failed (exit %d); see "
                            "its sim.log\n", dir, status);
            return 1;
        }
        *known = true;
    }
    free(cmd);
    int takes = 0;
    if (ks_state_probe_read(log, &takes, &err) != KS_OK)
        return cli_fail(&err);
    if (!takes) {
        fprintf(stderr,
                "ksample: note: this simulator build ignores MemcpyHtoD lines at 64-bit "
                "addresses (its perf_memcpy_to_gpu keeps a 32-bit address: accel-sim issue "
                "#327; probe in %s): the state goes in a warm-up kernel instead "
                "(state:kernel)\n",
                dir);
        a->warmup.carrier = KS_STATE_KERNEL;
    } else if (!a->quiet)
        fprintf(stderr, "ksample: run: this build takes 64-bit MemcpyHtoD lines into L2 "
                        "(probe in %s): the state goes in memory copies\n", dir);
    return 0;
}


/* --warmup state: every sampled launch's rebuilt L2 state written into the
 * folder of its job, in one pass over the traces (the job's export then
 * takes it into the folder it builds).  A job done before is left as it
 * is; a job folder that is a link is refused, as its export would. */
int cli_run_prepare_state(run_state *s, const run_args *a)
{
    char *abs = realpath(a->rundir, NULL);
    const char **dirs = calloc(s->entry_count + 1, sizeof *dirs);
    char **owned = calloc(s->job_count + 1, sizeof *owned);
    ks_export_entry *todo = malloc((s->entry_count + 1) * sizeof *todo);
    size_t todo_count = 0;
    int rc = abs && dirs && owned && todo ? 0 : KS_ERR_NOMEM;
    ks_error err;
    ks_error_clear(&err);
    for (size_t j = 0; j < s->job_count && !rc; j++) {
        size_t n = strlen(abs) + strlen(s->dirs[j]) + 2;
        if (!(owned[j] = malloc(n))) {
            rc = KS_ERR_NOMEM;
            break;
        }
        snprintf(owned[j], n, "%s/%s", abs, s->dirs[j]);
        ks_job_state state;
        int code;
        if (ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &err) != KS_OK) {
            rc = cli_fail(&err);
            break;
        }
        if (state == KS_JOB_DONE)
            continue;
        if (ks_run_owned_dir(owned[j], &err) != KS_OK) {
            rc = cli_fail(&err);
            break;
        }
        for (size_t k = s->job_first[j]; k < s->job_first[j + 1]; k++) {
            todo[todo_count] = s->entries[k];
            dirs[todo_count++] = owned[j];
        }
    }
    ks_state_report rep;
    memset(&rep, 0, sizeof rep);
    if (!rc && ks_export_state_write(a->traces, &a->warmup, todo, todo_count, dirs, &rep,
                                     &err) != KS_OK)
        rc = cli_fail(&err);
    free(todo);
    if (!rc && !a->quiet)
        fprintf(stderr,
                "ksample: run: warm state of %zu launches rebuilt in %.1f s: %llu lines in "
                "all, at most %llu a launch (L2 of %llu bytes from %s, lines of the last %g "
                "L2 capacities)\n",
                rep.launches, rep.seconds, (unsigned long long)rep.lines,
                (unsigned long long)rep.lines_max, (unsigned long long)rep.l2_bytes, rep.source,
                rep.cut);
    if (!rc)
        cli_run_say_short_states(&rep);
    char carrier[32];
    ks_warmup_format(&a->warmup, carrier, sizeof carrier);
    if (!rc && a->warmup.carrier == KS_STATE_SPLIT && !a->quiet)
        fprintf(stderr,
                "ksample: run: state:split: %zu of %zu launches have a dirty line within "
                "reach of their misses: their warm-up kernels carry %llu lines, copies the "
                "rest\n",
                rep.split_kernels, rep.launches, (unsigned long long)rep.split_kernel_lines);
    if (!rc && rep.dirty && a->warmup.carrier != KS_STATE_KERNEL &&
        a->warmup.carrier != KS_STATE_MEMCPY32_STORES && a->warmup.carrier != KS_STATE_SPLIT)
        fprintf(stderr,
                "ksample: note: %s: %llu of the copied lines were last written "
                "(dirty) and GPGPU-Sim fills copies clean, so the write-backs their eviction "
                "causes in the full run are left out (tests/data/accelsim-large: 0.938x the "
                "full run, no better than cold, where launches evict other launches' dirty "
                "lines); --warmup state (the warm-up kernel) stores them\n",
                a->warmup.carrier == KS_STATE_MEMCPY32 ? "state:memcpy32" : "state:memcpy",
                (unsigned long long)rep.dirty);
    if (!rc && rep.zero_moved && !a->quiet)
        fprintf(stderr,
                "ksample: run: %s: in %zu launches the remap would put a line on "
                "address 0, which Accel-Sim reads as an inactive lane: their 32-bit space is "
                "moved by a constant no address function of the configuration sees\n",
                carrier, rep.zero_moved);
    if (!rc && rep.zero_kept)
        fprintf(stderr,
                "ksample: note: %s: in %zu launches no remap keeps both every "
                "line off address 0 and the order of each warp instruction's lines: their "
                "accesses to address 0, which Accel-Sim reads as an inactive lane, are lost "
                "(--warmup state:kernel keeps them)\n",
                carrier, rep.zero_kept);
    for (size_t j = 0; owned && j < s->job_count; j++)
        free(owned[j]);
    free(owned);
    free(dirs);
    free(abs);
    return rc;
}

/* A run folder this run made, removed when the run fails before its
 * manifest is written (nothing of it is a run yet); links are removed
 * themselves, never followed (FTW_PHYS). */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void cli_run_remove_made(const char *rundir, bool made)
{
    if (made)
        nftw(rundir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int cli_run_earlier_done(const run_state *s, const run_args *a)
{
    size_t pending = 0;
    for (size_t j = 0; j < s->job_count; j++) {
        ks_job_state state;
        int code;
        ks_error ignored;
        if (ks_run_job_state(a->rundir, s->dirs[j], &state, &code, &ignored) != KS_OK ||
            state != KS_JOB_DONE)
            pending++;
    }
    char typed[PATH_MAX];
    const char *later = cli_as_typed(s->previous.plan, typed, sizeof typed);
    if (pending)
        return cli_usage_error("run",
                               "%s: %zu of the %zu jobs of %s in this folder are not done, "
                               "and the folder is now %s's (refined from it, it reused "
                               "them): 'ksample run %s ... -o %s' runs them, or give a new "
                               "folder (-o NEW)",
                               a->rundir, pending, s->job_count, a->plan, later, later,
                               a->rundir);
    fprintf(stderr,
            "ksample: run %s: every launch of %s is done here (%zu job%s, reused since by "
            "%s): nothing to run; 'ksample estimate %s %s' reads them\n",
            a->rundir, a->plan, s->job_count, s->job_count == 1 ? "" : "s", later, a->plan,
            a->rundir);
    return 0;
}

int cli_run_report_failures(const run_args *a, const run_state *s)
{
    int failed = 0;
    for (size_t j = 0; j < s->job_count; j++) {
        ks_job_state st;
        int code = 0;
        ks_error err;
        ks_error_clear(&err);
        if (ks_run_job_state(a->rundir, s->dirs[j], &st, &code, &err) != KS_OK)
            return cli_fail(&err);
        if (st != KS_JOB_FAILED)
            continue;
        failed++;
        char *tail = NULL;
        if (ks_run_log_tail(a->rundir, s->dirs[j], 5, &tail, &err) != KS_OK)
            return cli_fail(&err);
        fprintf(stderr, "ksample: job %zu (%s) failed with exit code %d%s\n%s%s", j, s->dirs[j],
                code, *tail ? "; end of its sim.log:" : "; its sim.log is empty", tail,
                *tail && tail[strlen(tail) - 1] != '\n' ? "\n" : "");
        free(tail);
    }
    return failed ? 1 : 0;
}
