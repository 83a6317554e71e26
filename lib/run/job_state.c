/*
 * job_state.c - what a job folder says about its job: its status file (the
 * exit code, written once the job ended) and the tail of its log.
 */
#include "run_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *ks_job_state_name(ks_job_state s)
{
    switch (s) {
    case KS_JOB_PENDING:
        return "pending";
    case KS_JOB_STARTED:
        return "started";
    case KS_JOB_DONE:
        return "done";
    case KS_JOB_FAILED:
        return "failed";
    case KS_JOB_INTERRUPTED:
        return "interrupted";
    }
    return "unknown";
}

static ks_status parse_status(const char *path, FILE *f, int *exit_code, ks_error *err)
{
    char buf[64];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    buf[got] = '\0';
    char *end;
    long v = strtol(buf, &end, 10);
    while (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t')
        end++;
    if (got == 0 || end == buf || *end != '\0' || v < 0 || v > 100000)
        return ks_error_set(err, KS_ERR_FORMAT, path, 1,
                            "a job status holds one exit code (a number) or 'interrupted', "
                            "got '%.20s'",
                            buf);
    *exit_code = (int)v;
    return KS_OK;
}

ks_status ks_run_dir_state(const char *dir, ks_job_state *state, int *exit_code,
                           ks_error *err)
{
    *state = KS_JOB_PENDING;
    *exit_code = -1;
    char *status = ks_path_join(dir, "status");
    char *log = ks_path_join(dir, "sim.log");
    ks_status st = KS_OK;
    if (!status || !log) {
        st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
        goto out;
    }
    /* a FIFO or device named status is refused, never waited on */
    struct stat sb;
    if (lstat(status, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        st = ks_error_set(err, KS_ERR_FORMAT, status, 0,
                          "is not a regular file: a job status is a file ksample writes");
        goto out;
    }
    FILE *f = fopen(status, "rb");
    if (f && fstat(fileno(f), &sb) == 0 && sb.st_size == 0) {
        /* a status written but not flushed before a crash: not finished */
        fclose(f);
        *state = KS_JOB_STARTED;
        goto out;
    }
    if (f) {
        char word[16];
        size_t got = fread(word, 1, sizeof word - 1, f);
        while (got > 0 && (word[got - 1] == '\n' || word[got - 1] == '\r' || word[got - 1] == ' '))
            got--;
        word[got] = '\0';
        if (strcmp(word, "interrupted") == 0) {
            *state = KS_JOB_INTERRUPTED;
            fclose(f);
            goto out;
        }
        rewind(f);
        st = parse_status(status, f, exit_code, err);
        fclose(f);
        if (st == KS_OK)
            *state = *exit_code == 0 ? KS_JOB_DONE : KS_JOB_FAILED;
        goto out;
    }
    if (errno != ENOENT) {
        st = ks_error_set(err, KS_ERR_IO, status, 0, "cannot open: %s", strerror(errno));
        goto out;
    }
    if (stat(log, &sb) == 0)
        *state = KS_JOB_STARTED;
out:
    free(status);
    free(log);
    return st;
}

static char *join_job(const char *rundir, const char *dir)
{
    return dir[0] == '/' ? strdup(dir) : ks_path_join(rundir, dir);
}

char *ks_run_job_file(const char *rundir, const char *dir, const char *name)
{
    char *jobdir = join_job(rundir, dir);
    char *path = jobdir ? ks_path_join(jobdir, name) : NULL;
    free(jobdir);
    return path;
}

ks_status ks_run_job_state(const char *rundir, const char *dir, ks_job_state *state,
                           int *exit_code, ks_error *err)
{
    char *path = join_job(rundir, dir);
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    ks_status st = ks_run_dir_state(path, state, exit_code, err);
    free(path);
    return st;
}

/* Only the end of a long log is read: simulator logs reach gigabytes. */
#define TAIL_WINDOW (64 * 1024)

static ks_status read_tail(const char *path, char **text, ks_error *err)
{
    *text = NULL;
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) /* a FIFO: never waited on */
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "is not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return (*text = strdup("")) ? KS_OK
                                       : ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    }
    long size = 0;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    long from = size > TAIL_WINDOW ? size - TAIL_WINDOW : 0;
    fseek(f, from, SEEK_SET);
    char *buf = malloc(TAIL_WINDOW + 1);
    if (!buf) {
        fclose(f);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    size_t got = fread(buf, 1, TAIL_WINDOW, f);
    ks_status st = ferror(f) ? ks_error_set(err, KS_ERR_IO, path, 0, "read failed") : KS_OK;
    fclose(f);
    buf[got] = '\0';
    *text = buf;
    return st;
}

ks_status ks_run_log_tail(const char *rundir, const char *dir, size_t lines, char **text,
                          ks_error *err)
{
    *text = NULL;
    char *path = ks_run_job_file(rundir, dir, "sim.log");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, rundir, 0, "out of memory");
    char *buf;
    ks_status st = read_tail(path, &buf, err);
    free(path);
    if (st != KS_OK) {
        free(buf);
        return st;
    }
    size_t len = strlen(buf); /* a NUL byte in the log ends the tail early: fine */
    size_t end = len > 0 && buf[len - 1] == '\n' ? len - 1 : len;
    size_t start = end, seen = 0;
    while (start > 0 && seen < lines) {
        start--;
        if (buf[start] == '\n' && ++seen == lines) {
            start++;
            break;
        }
    }
    if (lines == 0)
        start = end;
    memmove(buf, buf + start, len - start);
    buf[len - start] = '\0';
    *text = buf;
    return KS_OK;
}

/* Appends "dir (state[, exit N])" for one unfinished job to msg. */
static void name_job(char *msg, size_t size, const char *dir, ks_job_state s, int code)
{
    size_t len = strlen(msg);
    if (s == KS_JOB_FAILED)
        snprintf(msg + len, size - len, "%s%s (failed, exit %d)", len ? ", " : "", dir, code);
    else
        snprintf(msg + len, size - len, "%s%s (%s)", len ? ", " : "", dir, ks_job_state_name(s));
}

ks_status ks_run_check_complete(const char *rundir, const ks_run_manifest *m, ks_error *err)
{
    enum { NAMED = 5 };
    char names[400] = "";
    size_t missing = 0, failed = 0;
    for (size_t j = 0; j < m->job_count; j++) {
        ks_job_state s;
        int code;
        ks_status st = ks_run_job_state(rundir, m->jobs[j].dir, &s, &code, err);
        if (st != KS_OK)
            return st;
        if (s == KS_JOB_DONE)
            continue;
        failed += s == KS_JOB_FAILED;
        if (missing++ < NAMED)
            name_job(names, sizeof names, m->jobs[j].dir, s, code);
    }
    if (missing == 0)
        return KS_OK;
    return ks_error_set(err, KS_ERR_FORMAT, rundir, 0,
                        "incomplete run: %zu of %zu job%s not done (%zu failed): %s%s; "
                        "'ksample status' lists them, a rerun runs only these",
                        missing, m->job_count, m->job_count == 1 ? "" : "s", failed, names, missing > NAMED ? ", ..." : "");
}
