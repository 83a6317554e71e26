/*
 * run_jobs.c - test helper (not a unit test): turns a list of invocation ids
 * into jobs, writes the run manifest and runs them with the job engine, as
 * `ksample run` does once plans are read.  Used by tests/slurm.sh.
 *
 * usage: run_jobs --rundir D --plan PLAN --ids FILE --sim CMD [--engine local|slurm]
 *                 [-j N] [--batch K] [--partition P] [--throttle T] [--no-wait]
 * Job k runs `CMD ID...` (its ids) in its folder.  Prints the final counts
 * and every failed job with the end of its log; exits 0 when every job is
 * done, 1 when some failed or did not finish, 2 on bad usage, else the
 * library's status.
 */
#include "internal.h"
#include "run_internal.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct args {
    ks_run_options run;
    const char *plan, *ids, *sim;
    unsigned long batch;
} args;

static int usage(void)
{
    fprintf(stderr, "usage: run_jobs --rundir D --plan PLAN --ids FILE --sim CMD "
                    "[--engine local|slurm] [-j N] [--batch K] [--partition P] "
                    "[--throttle T] [--no-wait]\n");
    return 2;
}

static int parse(int argc, char **argv, args *a)
{
    static const struct option longopts[] = {
        {"rundir", required_argument, NULL, 'r'},   {"plan", required_argument, NULL, 'p'},
        {"ids", required_argument, NULL, 'i'},      {"sim", required_argument, NULL, 's'},
        {"engine", required_argument, NULL, 'e'},   {"batch", required_argument, NULL, 'b'},
        {"partition", required_argument, NULL, 'P'}, {"throttle", required_argument, NULL, 't'},
        {"no-wait", no_argument, NULL, 'W'},        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    ks_run_options_init(&a->run);
    a->run.wait = 1;
    a->batch = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "j:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'r': a->run.rundir = optarg; break;
        case 'p': a->plan = optarg; break;
        case 'i': a->ids = optarg; break;
        case 's': a->sim = optarg; break;
        case 'e':
            if (strcmp(optarg, "slurm") == 0)
                a->run.engine = KS_ENGINE_SLURM;
            else if (strcmp(optarg, "local") != 0)
                return usage();
            break;
        case 'b': a->batch = strtoul(optarg, NULL, 10); break;
        case 'j': a->run.parallel = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'P': a->run.partition = optarg; break;
        case 't': a->run.throttle = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'W': a->run.wait = 0; break;
        default: return usage();
        }
    }
    if (!a->run.rundir || !a->plan || !a->ids || !a->sim || a->batch == 0 || optind != argc)
        return usage();
    return 0;
}

static ks_status read_ids(const char *path, uint64_t **ids, size_t *n, ks_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot open");
    size_t cap = 64;
    *ids = malloc(cap * sizeof **ids);
    *n = 0;
    unsigned long long v;
    while (*ids && fscanf(f, "%llu", &v) == 1) {
        if (*n == cap)
            *ids = realloc(*ids, (cap *= 2) * sizeof **ids);
        if (*ids)
            (*ids)[(*n)++] = v;
    }
    fclose(f);
    return *ids ? KS_OK : ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
}

static ks_status plan_digest(const char *path, char hex[33], ks_error *err)
{
    ks_input *in;
    uint64_t bytes;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    st = ks_input_finish_digest(in, hex, &bytes, err);
    ks_input_close(in);
    return st;
}

/* Jobs of `batch` consecutive ids; folder jobs/NNNN. */
static ks_status make_jobs(const args *a, const uint64_t *ids, size_t n, ks_run_manifest *m,
                           ks_run_job **jobs, ks_error *err)
{
    size_t count = (n + a->batch - 1) / a->batch;
    m->jobs = calloc(count ? count : 1, sizeof *m->jobs);
    *jobs = calloc(count ? count : 1, sizeof **jobs);
    if (!m->jobs || !*jobs)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t j = 0; j < count; j++) {
        ks_run_manifest_job *mj = &m->jobs[j];
        m->job_count = j + 1;
        size_t first = j * a->batch, k = n - first < a->batch ? n - first : a->batch;
        mj->ids = malloc(k * sizeof *mj->ids);
        mj->dir = malloc(32);
        size_t len = strlen(a->sim) + 24 * k + 1;
        char *cmd = malloc(len);
        if (!mj->ids || !mj->dir || !cmd) {
            free(cmd);
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        }
        snprintf(mj->dir, 32, "jobs/%04zu", j);
        size_t w = (size_t)snprintf(cmd, len, "%s", a->sim);
        for (size_t q = 0; q < k; q++) {
            mj->ids[q] = ids[first + q];
            w += (size_t)snprintf(cmd + w, len - w, " %llu", (unsigned long long)ids[first + q]);
        }
        mj->id_count = k;
        (*jobs)[j].dir = mj->dir;
        (*jobs)[j].command = cmd;
    }
    return KS_OK;
}

static void print_failed(const args *a, const ks_run_manifest *m)
{
    for (size_t j = 0; j < m->job_count; j++) {
        ks_error err;
        ks_job_state s;
        int code;
        if (ks_run_job_state(a->run.rundir, m->jobs[j].dir, &s, &code, &err) != KS_OK ||
            s == KS_JOB_DONE)
            continue;
        char *tail = NULL;
        ks_run_log_tail(a->run.rundir, m->jobs[j].dir, 3, &tail, &err);
        printf("not done: %s %s exit %d: %s\n", m->jobs[j].dir, ks_job_state_name(s), code,
               tail ? tail : "");
        free(tail);
    }
}

int main(int argc, char **argv)
{
    args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc;
    ks_error err;
    ks_error_clear(&err);
    ks_run_manifest m;
    memset(&m, 0, sizeof m);
    uint64_t *ids = NULL;
    ks_run_job *jobs = NULL;
    size_t n = 0;
    ks_run_progress last;
    memset(&last, 0, sizeof last);
    char manifest[4096];
    snprintf(manifest, sizeof manifest, "%s/manifest.json", a.run.rundir);
    m.plan = strdup(a.plan);
    ks_status st = read_ids(a.ids, &ids, &n, &err);
    if (st == KS_OK)
        st = plan_digest(a.plan, m.plan_xxh128, &err);
    if (st == KS_OK)
        st = make_jobs(&a, ids, n, &m, &jobs, &err);
    if (st == KS_OK)
        st = ks_run_mkdirs(a.run.rundir, &err);
    if (st == KS_OK)
        st = ks_run_manifest_write(manifest, &m, &err);
    if (st == KS_OK)
        st = ks_run_execute(&a.run, jobs, m.job_count, NULL, NULL, &last, &err);
    if (st == KS_OK) {
        printf("jobs %zu skipped %zu done %zu failed %zu slurm '%s'\n", last.total,
               last.skipped, last.done, last.failed, last.slurm_job_id);
        print_failed(&a, &m);
    } else {
        char buf[1200];
        ks_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "run_jobs: %s\n", buf);
    }
    for (size_t j = 0; jobs && j < m.job_count; j++)
        free((char *)jobs[j].command);
    free(jobs);
    free(ids);
    ks_run_manifest_free(&m);
    if (st != KS_OK)
        return (int)st;
    return a.run.wait && last.done + last.skipped == last.total ? 0 : (a.run.wait ? 1 : 0);
}
