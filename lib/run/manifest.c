/*
 * manifest.c - RUNDIR/manifest.json, the record of what a run simulates:
 * the plan (path and XXH3-128 digest, so an estimate can refuse a run made
 * from another plan) and every job with its invocation ids and folder.
 */
#include "run_internal.h"
#include "json_file.h"

#include <stdlib.h>
#include <string.h>

static void write_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static ks_status write_manifest(const void *ctx, FILE *f, ks_error *err)
{
    const ks_run_manifest *m = ctx;
    (void)err;
    fprintf(f, "{\n  \"plan\": ");
    write_json_string(f, m->plan ? m->plan : "");
    fprintf(f, ",\n  \"plan_xxh128\": ");
    write_json_string(f, m->plan_xxh128);
    const char *const optional[][2] = {{"traces", m->traces},
                                       {"simulator", m->simulator},
                                       {"warmup", m->warmup}};
    for (size_t i = 0; i < 3; i++)
        if (optional[i][1]) {
            fprintf(f, ",\n  \"%s\": ", optional[i][0]);
            write_json_string(f, optional[i][1]);
        }
    if (m->command) {
        fprintf(f, ",\n  \"command\": ");
        write_json_string(f, m->command);
    }
    if (m->traces_fingerprint) {
        fprintf(f, ",\n  \"traces_fingerprint\": ");
        write_json_string(f, m->traces_fingerprint);
    }
    if (m->config_xxh128) {
        fprintf(f, ",\n  \"config_xxh128\": ");
        write_json_string(f, m->config_xxh128);
    }
    if (m->profile_xxh128) {
        fprintf(f, ",\n  \"profile_xxh128\": ");
        write_json_string(f, m->profile_xxh128);
    }
    if (m->earlier_count) {
        fprintf(f, ",\n  \"earlier_plans\": [");
        for (size_t i = 0; i < m->earlier_count; i++) {
            fprintf(f, "%s\n    {\"plan\": ", i ? "," : "");
            write_json_string(f, m->earlier[i].path ? m->earlier[i].path : "");
            fprintf(f, ", \"plan_xxh128\": ");
            write_json_string(f, m->earlier[i].xxh128);
            fputc('}', f);
        }
        fprintf(f, "\n  ]");
    }
    if (m->batch)
        fprintf(f, ",\n  \"batch\": %llu", (unsigned long long)m->batch);
    if (m->remap >= 0)
        fprintf(f, ",\n  \"remap\": %s", m->remap ? "true" : "false");
    fprintf(f, ",\n  \"jobs\": [");
    for (size_t j = 0; j < m->job_count; j++) {
        const ks_run_manifest_job *job = &m->jobs[j];
        fprintf(f, "%s\n    {\"job\": %zu, \"ids\": [", j ? "," : "", j);
        for (size_t k = 0; k < job->id_count; k++)
            fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)job->ids[k]);
        if (job->measured) {
            fprintf(f, "], \"measured\": [");
            for (size_t k = 0; k < job->id_count; k++)
                fprintf(f, "%s%d", k ? ", " : "", job->measured[k] > 2 ? 1 : job->measured[k]);
        }
        if (job->launches) {
            fprintf(f, "], \"launches\": [");
            for (size_t k = 0; k < job->id_count; k++)
                fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)job->launches[k]);
        }
        fprintf(f, "], \"dir\": ");
        write_json_string(f, job->dir);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    return KS_OK;
}

ks_status ks_run_manifest_write(const char *path, const ks_run_manifest *m, ks_error *err)
{
    for (size_t j = 0; j < m->job_count; j++)
        if (!m->jobs[j].dir || !*m->jobs[j].dir)
            return ks_error_set(err, KS_ERR_USAGE, path, 0, "job %zu has no folder", j);
    return ks_write_atomic(path, write_manifest, m, err);
}

void ks_run_manifest_free(ks_run_manifest *m)
{
    if (!m)
        return;
    for (size_t j = 0; j < m->job_count; j++) {
        free(m->jobs[j].dir);
        free(m->jobs[j].ids);
        free(m->jobs[j].measured);
        free(m->jobs[j].launches);
    }
    free(m->jobs);
    free(m->plan);
    KS_FREE(m->traces, m->simulator, m->warmup, m->command, m->traces_fingerprint,
            m->config_xxh128, m->profile_xxh128);
    for (size_t i = 0; i < m->earlier_count; i++)
        free(m->earlier[i].path);
    free(m->earlier);
    memset(m, 0, sizeof *m);
    m->remap = -1;
}

/* YAJL_GET_STRING gives NULL for a non-string; the callers checked the type */
static const char *string_of(yajl_val v)
{
    const char *s = YAJL_GET_STRING(v);
    return s ? s : "";
}

static ks_status read_ids(const char *path, size_t j, yajl_val ids, ks_run_manifest_job *job,
                          ks_error *err)
{
    if (!YAJL_IS_ARRAY(ids))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "job %zu: \"ids\" is not a list", j);
    size_t n = ids->u.array.len;
    job->ids = calloc(n ? n : 1, sizeof *job->ids);
    if (!job->ids)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    for (size_t k = 0; k < n; k++) {
        yajl_val v = ids->u.array.values[k];
        if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "job %zu: id %zu is not a non-negative integer", j, k);
        job->ids[k] = (uint64_t)YAJL_GET_INTEGER(v);
    }
    job->id_count = n;
    return KS_OK;
}

static ks_status read_job(const char *path, size_t j, yajl_val v, ks_run_manifest_job *job,
                          ks_error *err)
{
    static const char *dir_path[] = {"dir", NULL};
    static const char *ids_path[] = {"ids", NULL};
    static const char *job_path[] = {"job", NULL};
    yajl_val dir = yajl_tree_get(v, dir_path, yajl_t_string);
    yajl_val number = yajl_tree_get(v, job_path, yajl_t_number);
    if (!YAJL_IS_OBJECT(v) || !dir || !*string_of(dir))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "job %zu has no \"dir\"", j);
    if (!number || !YAJL_IS_INTEGER(number) || YAJL_GET_INTEGER(number) != (long long)j)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "entry %zu of \"jobs\" must have \"job\": %zu", j, j);
    if (!(job->dir = strdup(string_of(dir))))
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    ks_status st = read_ids(path, j, yajl_tree_get(v, ids_path, yajl_t_any), job, err);
    static const char *launches_path[] = {"launches", NULL};
    yajl_val launches = yajl_tree_get(v, launches_path, yajl_t_any);
    if (st == KS_OK && launches) {
        if (!YAJL_IS_ARRAY(launches) || launches->u.array.len != job->id_count)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "job %zu: \"launches\" must be a list as long as \"ids\"", j);
        if (!(job->launches = calloc(job->id_count ? job->id_count : 1, sizeof *job->launches)))
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
        for (size_t k = 0; k < job->id_count; k++) {
            yajl_val x = launches->u.array.values[k];
            if (!YAJL_IS_INTEGER(x) || YAJL_GET_INTEGER(x) < 0)
                return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                    "job %zu: launch %zu is not a non-negative integer", j, k);
            job->launches[k] = (uint64_t)YAJL_GET_INTEGER(x);
        }
    }
    static const char *measured_path[] = {"measured", NULL};
    yajl_val measured = yajl_tree_get(v, measured_path, yajl_t_any);
    if (st != KS_OK || !measured)
        return st;
    if (!YAJL_IS_ARRAY(measured) || measured->u.array.len != job->id_count)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "job %zu: \"measured\" must be a list as long as \"ids\"", j);
    if (!(job->measured = calloc(job->id_count ? job->id_count : 1, 1)))
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    size_t results = 0;
    for (size_t k = 0; k < job->id_count; k++) {
        yajl_val x = measured->u.array.values[k];
        /* 0 a warm-up launch, 1 a result, 2 ksample's warm-state kernel */
        if (!YAJL_IS_INTEGER(x) || YAJL_GET_INTEGER(x) < 0 || YAJL_GET_INTEGER(x) > 2)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "job %zu: \"measured\" holds 0, 1 and 2 only", j);
        job->measured[k] = (unsigned char)YAJL_GET_INTEGER(x);
        results += job->measured[k] == 1;
    }
    if (results == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "job %zu measures no launch", j);
    return KS_OK;
}

/* "earlier_plans": [{"plan": path, "plan_xxh128": hex}, ...] */
static ks_status read_earlier(const char *path, yajl_val list, ks_run_manifest *m,
                              ks_error *err)
{
    if (!YAJL_IS_ARRAY(list))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "\"earlier_plans\" is not a list");
    size_t n = list->u.array.len;
    if (!(m->earlier = calloc(n ? n : 1, sizeof *m->earlier)))
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    static const char *plan_path[] = {"plan", NULL};
    static const char *digest_path[] = {"plan_xxh128", NULL};
    for (size_t i = 0; i < n; i++) {
        yajl_val v = list->u.array.values[i];
        yajl_val plan = YAJL_IS_OBJECT(v) ? yajl_tree_get(v, plan_path, yajl_t_string) : NULL;
        yajl_val digest = YAJL_IS_OBJECT(v) ? yajl_tree_get(v, digest_path, yajl_t_string)
                                            : NULL;
        if (!plan || !digest || !*string_of(digest) ||
            strlen(string_of(digest)) >= sizeof m->earlier[i].xxh128)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "entry %zu of \"earlier_plans\" needs \"plan\" and a "
                                "\"plan_xxh128\" of at most 32 characters",
                                i);
        m->earlier_count = i + 1; /* so that free() sees what was filled */
        strcpy(m->earlier[i].xxh128, string_of(digest));
        if (!(m->earlier[i].path = strdup(string_of(plan))))
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    return KS_OK;
}

static ks_status read_fields(const char *path, yajl_val root, ks_run_manifest *m, ks_error *err)
{
    static const char *plan_path[] = {"plan", NULL};
    static const char *digest_path[] = {"plan_xxh128", NULL};
    static const char *jobs_path[] = {"jobs", NULL};
    yajl_val plan = yajl_tree_get(root, plan_path, yajl_t_string);
    yajl_val digest = yajl_tree_get(root, digest_path, yajl_t_string);
    yajl_val jobs = yajl_tree_get(root, jobs_path, yajl_t_array);
    if (!plan || !digest || !jobs)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "a run manifest needs \"plan\", \"plan_xxh128\" and \"jobs\"");
    if (strlen(string_of(digest)) >= sizeof m->plan_xxh128)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "\"plan_xxh128\" is too long");
    strcpy(m->plan_xxh128, string_of(digest));
    if (!(m->plan = strdup(string_of(plan))))
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    static const char *traces_path[] = {"traces", NULL};
    static const char *simulator_path[] = {"simulator", NULL};
    static const char *warmup_path[] = {"warmup", NULL};
    static const char *command_path[] = {"command", NULL};
    static const char *fingerprint_path[] = {"traces_fingerprint", NULL};
    static const char *config_path[] = {"config_xxh128", NULL};
    static const char *profile_path[] = {"profile_xxh128", NULL};
    static const char *earlier_path[] = {"earlier_plans", NULL};
    static const char *batch_path[] = {"batch", NULL};
    static const char *remap_path[] = {"remap", NULL};
    const char **const keys[] = {traces_path, simulator_path, warmup_path, command_path,
                                 fingerprint_path, config_path, profile_path};
    char **const fields[] = {&m->traces, &m->simulator, &m->warmup, &m->command,
                             &m->traces_fingerprint, &m->config_xxh128, &m->profile_xxh128};
    yajl_val earlier = yajl_tree_get(root, earlier_path, yajl_t_any);
    if (earlier) {
        ks_status st = read_earlier(path, earlier, m, err);
        if (st != KS_OK)
            return st;
    }
    yajl_val batch = yajl_tree_get(root, batch_path, yajl_t_any);
    if (batch) {
        if (!YAJL_IS_INTEGER(batch) || YAJL_GET_INTEGER(batch) < 1)
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "\"batch\" is not a positive integer");
        m->batch = (uint64_t)YAJL_GET_INTEGER(batch);
    }
    yajl_val remap = yajl_tree_get(root, remap_path, yajl_t_any);
    if (remap) {
        if (!YAJL_IS_TRUE(remap) && !YAJL_IS_FALSE(remap))
            return ks_error_set(err, KS_ERR_FORMAT, path, 0, "\"remap\" is not true or false");
        m->remap = YAJL_IS_TRUE(remap);
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        yajl_val v = yajl_tree_get(root, keys[i], yajl_t_any);
        if (!v)
            continue;
        if (!YAJL_IS_STRING(v))
            return ks_error_set(err, KS_ERR_FORMAT, path, 0, "\"%s\" is not a string",
                                keys[i][0]);
        if (!(*fields[i] = strdup(string_of(v))))
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    size_t n = jobs->u.array.len;
    m->jobs = calloc(n ? n : 1, sizeof *m->jobs);
    if (!m->jobs)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    for (size_t j = 0; j < n; j++) {
        m->job_count = j + 1; /* so that free() sees what was filled */
        ks_status st = read_job(path, j, jobs->u.array.values[j], &m->jobs[j], err);
        if (st != KS_OK)
            return st;
    }
    m->job_count = n;
    return KS_OK;
}

ks_status ks_run_manifest_read(const char *path, ks_run_manifest *m, ks_error *err)
{
    memset(m, 0, sizeof *m);
    m->remap = -1;
    yajl_val root;
    ks_status st = ks_json_file_parse(path, 256u << 20, &root, err);
    if (st != KS_OK)
        return st;
    st = read_fields(path, root, m, err);
    yajl_tree_free(root);
    if (st != KS_OK)
        ks_run_manifest_free(m);
    return st;
}

/* The ids, warm-up marks and launches of two jobs agree. */
static bool same_job(const ks_run_manifest_job *a, const ks_run_manifest_job *b)
{
    if (a->id_count != b->id_count || strcmp(a->dir, b->dir) != 0 ||
        memcmp(a->ids, b->ids, a->id_count * sizeof *a->ids) != 0)
        return false;
    for (size_t k = 0; k < a->id_count; k++) {
        if ((a->measured ? a->measured[k] : 1) != (b->measured ? b->measured[k] : 1))
            return false;
        if ((a->launches ? a->launches[k] : a->ids[k]) !=
            (b->launches ? b->launches[k] : b->ids[k]))
            return false;
    }
    return true;
}

/* What a refusal tells the user to do: a rerun of the same plan mixes, a
 * refined plan cannot reuse. */
static const char *advice(bool reuse)
{
    return reuse ? "the jobs this folder holds cannot be reused for this plan; run with the "
                   "options they were simulated with to reuse them, or give a new folder "
                   "(-o NEW) to simulate every launch of this plan"
                 : "its finished jobs would be mixed with other results; run again with the "
                   "same options, or use a new folder";
}

static ks_status differs(const char *path, const char *what, const char *old, const char *now,
                         bool reuse, ks_error *err)
{
    return ks_error_set(err, KS_ERR_USAGE, path, 0,
                        "this run folder was run with %s %s, this run has %s %s: %s", what,
                        old, what, now, advice(reuse));
}

int ks_run_manifest_plan_kind(const ks_run_manifest *m, const char *xxh128)
{
    if (strcmp(m->plan_xxh128, xxh128) == 0)
        return 1;
    for (size_t i = 0; i < m->earlier_count; i++)
        if (strcmp(m->earlier[i].xxh128, xxh128) == 0)
            return 2;
    return 0;
}

/* A folder's jobs are reused only where it records what decides their
 * values: a field this run has and the folder's manifest lacks (an older
 * ksample's) cannot be compared. */
static ks_status recorded(const ks_run_manifest *old, const ks_run_manifest *now,
                          const char *path, ks_error *err)
{
    const char *const what[] = {"the trace folder",
                                "the simulator",
                                "the simulator command",
                                "the warm-up",
                                "the traces' fingerprint",
                                "the simulator configuration's digest",
                                "the plan's profile"};
    const char *const a[] = {old->traces, old->simulator, old->command,
                             old->warmup, old->traces_fingerprint, old->config_xxh128,
                             old->profile_xxh128};
    const char *const b[] = {now->traces, now->simulator, now->command,
                             now->warmup, now->traces_fingerprint, now->config_xxh128,
                             now->profile_xxh128};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        if (b[i] && !a[i])
            return ks_error_set(err, KS_ERR_USAGE, path, 0,
                                "this run folder's manifest does not record %s (an older "
                                "ksample wrote it), so its jobs cannot be checked for this "
                                "plan: give a new folder (-o NEW) to simulate every launch of "
                                "this plan",
                                what[i]);
    if ((now->batch && !old->batch) || (now->remap >= 0 && old->remap < 0))
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "this run folder's manifest does not record %s (an older ksample "
                            "wrote it): give a new folder (-o NEW) to simulate every launch "
                            "of this plan",
                            now->batch && !old->batch ? "--batch" : "--remap");
    return KS_OK;
}

ks_status ks_run_manifest_compare(const ks_run_manifest *old, const ks_run_manifest *now,
                                  const char *path, ks_error *err)
{
    /* another plan: only the refined plan that names this one (its jobs
     * reused, cmd_run) */
    bool reuse = strcmp(old->plan_xxh128, now->plan_xxh128) != 0;
    if (reuse && ks_run_manifest_plan_kind(now, old->plan_xxh128) != 2)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "this run folder belongs to another plan (%s, XXH3-128 %s); use a "
                            "new folder",
                            old->plan ? old->plan : "?", old->plan_xxh128);
    ks_status st = reuse ? recorded(old, now, path, err) : KS_OK;
    if (st != KS_OK)
        return st;
    if (reuse && old->profile_xxh128 && now->profile_xxh128 &&
        strcmp(old->profile_xxh128, now->profile_xxh128) != 0)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "this run folder's jobs are of a plan (%s) sampled from another "
                            "profile (XXH3-128 %s, this plan's %s): %s",
                            old->plan ? old->plan : "?", old->profile_xxh128,
                            now->profile_xxh128, advice(true));
    /* the warm-up before the command, which holds the warm-state options */
    const char *const what[] = {"--traces", "the simulator", "--warmup",
                                "the simulator command (and warm-state options)"};
    const char *const a[] = {old->traces, old->simulator, old->warmup, old->command};
    const char *const b[] = {now->traces, now->simulator, now->warmup, now->command};
    for (size_t i = 0; i < 4; i++)
        if (a[i] && b[i] && strcmp(a[i], b[i]) != 0)
            return differs(path, what[i], a[i], b[i], reuse, err);
    /* the same paths holding other contents: other traces, another
     * simulated machine */
    char traces[600];
    snprintf(traces, sizeof traces,
             "the trace folder %s holds other traces (its list, or a trace's size or first 4 "
             "KiB, changed)",
             now->traces ? now->traces : "?");
    const char *const contents[] = {traces,
                                    "the simulator's configuration (--sim-config, --config or "
                                    "--params) holds other contents"};
    const char *const c_old[] = {old->traces_fingerprint, old->config_xxh128};
    const char *const c_now[] = {now->traces_fingerprint, now->config_xxh128};
    for (size_t i = 0; i < 2; i++)
        if (c_old[i] && c_now[i] && strcmp(c_old[i], c_now[i]) != 0)
            return ks_error_set(err, KS_ERR_USAGE, path, 0,
                                "%s than when this run folder's jobs were made (XXH3-128 %s, "
                                "now %s): %s",
                                contents[i], c_old[i], c_now[i],
                                reuse ? advice(true)
                                      : "its finished jobs would be mixed with results of "
                                        "other inputs; use a new folder");
    char x[32], y[32];
    if (old->batch && now->batch && old->batch != now->batch) {
        snprintf(x, sizeof x, "%llu", (unsigned long long)old->batch);
        snprintf(y, sizeof y, "%llu", (unsigned long long)now->batch);
        return differs(path, "--batch", x, y, reuse, err);
    }
    if (old->remap >= 0 && now->remap >= 0 && old->remap != now->remap)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "this run folder was run %s --remap, this run %s it: %s",
                            old->remap ? "with" : "without", now->remap ? "has" : "lacks",
                            advice(reuse));
    /* whatever a field did not say, the jobs do; a refined plan's first
     * jobs are its parent's */
    bool same = reuse ? old->job_count <= now->job_count : old->job_count == now->job_count;
    for (size_t j = 0; same && j < old->job_count; j++)
        same = same_job(&old->jobs[j], &now->jobs[j]);
    if (!same && reuse)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "this run folder's jobs (%zu) do not simulate this plan's "
                            "launches as this run would, although the options it records "
                            "agree: %s",
                            old->job_count, advice(true));
    if (!same)
        return ks_error_set(err, KS_ERR_USAGE, path, 0,
                            "this run folder's jobs (%zu) are not this run's (%zu) although "
                            "the options it records agree (another --batch, --warmup, --remap "
                            "or trace folder?): its finished jobs would be mixed with other "
                            "results; use a new folder",
                            old->job_count, now->job_count);
    return KS_OK;
}
