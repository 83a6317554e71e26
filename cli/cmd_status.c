/* cmd_status.c - `ksample status RUNDIR`: how far a run is, and why jobs
 * failed. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("usage: ksample status [options] RUNDIR\n\n"
           "Reads RUNDIR/manifest.json and each job folder's status file and says how\n"
           "many jobs are done, failed, started (running, or their run died),\n"
           "interrupted (stopped by a signal to 'ksample run') or pending.\n"
           "Each failed job is listed with its exit code and the last lines of its\n"
           "sim.log.  A rerun of the same run skips the jobs that are done.  A folder\n"
           "a refined plan was run into names the plans whose jobs it reused.\n\n"
           "options:\n"
           "  --lines N          log lines shown per failed job (default 5)\n"
           "  --json             print {\"jobs\", \"done\", \"failed\", \"started\",\n"
           "                     \"interrupted\", \"pending\", \"failed_jobs\": [{\"job\", \"dir\",\n"
           "                     \"exit_code\"}]}\n"
           "  -h, --help         this text\n");
}

typedef struct status_counts {
    size_t count[KS_JOB_STATES]; /* by ks_job_state */
} status_counts;

static void print_indented(const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        printf("    | %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static int report_failed(const char *rundir, const ks_run_manifest *m, size_t j, int code,
                         uint64_t lines, bool json, bool *first)
{
    if (json) {
        printf("%s{\"job\": %zu, \"dir\": \"", *first ? "" : ", ", j);
        for (const char *p = m->jobs[j].dir; *p; p++)
            printf(*p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
        printf("\", \"exit_code\": %d}", code);
        *first = false;
        return 0;
    }
    ks_error err;
    ks_error_clear(&err);
    char *tail = NULL;
    if (ks_run_log_tail(rundir, m->jobs[j].dir, (size_t)lines, &tail, &err) != KS_OK)
        return cli_fail(&err);
    printf("failed: job %zu (%s), exit code %d%s\n", j, m->jobs[j].dir, code,
           *tail ? "; end of sim.log:" : "; sim.log is empty");
    print_indented(tail);
    free(tail);
    return 0;
}

static int walk_jobs(const char *rundir, const ks_run_manifest *m, uint64_t lines, bool json,
                     status_counts *c)
{
    bool first = true;
    for (size_t j = 0; j < m->job_count; j++) {
        ks_error err;
        ks_error_clear(&err);
        ks_job_state s;
        int code;
        if (ks_run_job_state(rundir, m->jobs[j].dir, &s, &code, &err) != KS_OK)
            return cli_fail(&err);
        c->count[s]++;
        int rc = s == KS_JOB_FAILED ? report_failed(rundir, m, j, code, lines, json, &first) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static void print_summary(const char *rundir, const ks_run_manifest *m, const status_counts *c,
                          bool json)
{
    if (json) {
        printf("], \"jobs\": %zu, \"done\": %zu, \"failed\": %zu, \"started\": %zu, "
               "\"interrupted\": %zu, \"pending\": %zu}\n",
               m->job_count, c->count[KS_JOB_DONE], c->count[KS_JOB_FAILED],
               c->count[KS_JOB_STARTED], c->count[KS_JOB_INTERRUPTED],
               c->count[KS_JOB_PENDING]);
        return;
    }
    printf("%s: %zu job%s: %zu done, %zu failed, %zu started, %zu interrupted, %zu pending\n",
           rundir, m->job_count, m->job_count == 1 ? "" : "s", c->count[KS_JOB_DONE],
           c->count[KS_JOB_FAILED], c->count[KS_JOB_STARTED], c->count[KS_JOB_INTERRUPTED], c->count[KS_JOB_PENDING]);
    /* a refined plan run into its parent's folder: whose jobs it holds */
    if (m->earlier_count) {
        printf("plan: %s, reusing the jobs of", m->plan);
        for (size_t i = 0; i < m->earlier_count; i++)
            printf("%s %s", i ? "," : "", m->earlier[i].path);
        printf(" ('ksample estimate' reads the folder with any of these plans)\n");
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/slurm/job_id", rundir);
    FILE *f = NULL;
    ks_error ignored; /* no job id file (or not a file): no Slurm array to name */
    if (ks_file_open_read(path, &f, &ignored) != KS_OK)
        f = NULL;
    char id[64];
    if (f && fgets(id, sizeof id, f))
        printf("last Slurm job array: %s", id);
    if (f)
        fclose(f);
}

int cmd_status(int argc, char **argv)
{
    static const struct option longopts[] = {{"lines", required_argument, NULL, 'n'},
                                             {"json", no_argument, NULL, 'j'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    uint64_t lines = 5;
    bool json = false;
    cli_loop l = {.cmd = "status", .longopts = longopts, .help = help, .json = &json,
                  .operands = 1, .operands_are = "one run folder"};
    int opt;
    while ((opt = cli_loop_next(&l, argc, argv)) != -1)
        if (opt == 'n' && (!cli_parse_u64(optarg, &lines) || lines > 10000))
            return cli_usage_error("status", "--lines must be in 0..10000, got '%s'", optarg);
    if (l.exit >= 0)
        return l.exit;
    const char *rundir = argv[optind];
    char path[4200];
    snprintf(path, sizeof path, "%s/manifest.json", rundir);
    ks_error err;
    ks_error_clear(&err);
    ks_run_manifest m;
    if (ks_run_manifest_read(path, &m, &err) != KS_OK)
        return cli_fail(&err);
    status_counts c;
    memset(&c, 0, sizeof c);
    if (json)
        printf("{\"failed_jobs\": [");
    int rc = walk_jobs(rundir, &m, lines, json, &c);
    if (rc == 0)
        print_summary(rundir, &m, &c, json);
    ks_run_manifest_free(&m);
    return rc;
}
