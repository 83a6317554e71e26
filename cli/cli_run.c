/* cli_run.c - the preparation of `ksample run`'s jobs (cmd_run.c runs
 * them): the simulator command of each job folder, the job folders
 * exported from the plan, and the manifest's record of what the jobs
 * simulate.  The warm state's part: cli_run_warm.c; a folder run before:
 * cli_run_reuse.c. */
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
void cli_run_shell_quote(char *out, size_t size, const char *text)
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
        cli_run_shell_quote(quoted[k], sizeof quoted[k], values[k]);
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

/* Links every file of the configuration folders into the job folder: a
 * GPGPU-Sim configuration names its interconnect file relative to the
 * working folder. */
int cli_run_link_configs(const run_args *a, const char *dir)
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
char *cli_run_job_command(const run_args *a, bool macsim, const char *dir)
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
                              : a->warmup.lines == KS_STATE_LINES_AUTO    ? "auto"
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
        rc = cli_run_link_configs(a, dir);
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
    if (!(s->commands[j] = cli_run_job_command(a, s->macsim, dir)))
        return KS_ERR_NOMEM;
    s->jobs[j] = (ks_run_job){s->dirs[j], s->commands[j]};
    return 0;
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
