/* cli_run_reuse.c - `ksample run` into a folder run before (cmd_run.c):
 * the jobs of the earlier run taken as they are, in their folders, and only
 * the launches they lack laid out as new jobs; a plan the folder was run
 * for before a refined plan reused its jobs; what the run says it reuses. */
#include "cli_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
