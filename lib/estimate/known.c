/*
 * known.c - totals the traces give exactly: every launch's instruction
 * counts, which a simulator of those traces reports unchanged whatever the
 * warm-up (the counts do not depend on the cache state: full_run_insn ==
 * alone_insn on every launch of ../shared/data/sim), so they need no
 * sampling.
 *
 * Accel-Sim folders are streamed launch by launch (lib/traces/trace_count.c:
 * every line parsed and checked, constant memory); MacSim folders give their
 * counts in trace_info.txt.  The counts of an Accel-Sim folder can be kept
 * in a cache file keyed by each trace file's name, size and modification
 * time (nanoseconds), so a second estimate does not read the traces again:
 *
 *   # ksample trace counts 1: file,bytes,mtime_ns,warp_insts,thread_insts
 *   kernel-1.traceg,12624,1764409200123456789,344,10516
 */
#include "estimate.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CACHE_HEADER "# ksample trace counts 1: file,bytes,mtime_ns,warp_insts,thread_insts"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ks_known_free(ks_known *k)
{
    if (!k)
        return;
    free(k->traces);
    free(k->owned[0]);
    free(k->owned[1]);
    memset(k, 0, sizeof *k);
}

long ks_known_metric(const ks_known *k, const char *name)
{
    for (size_t i = 0; k && i < k->metric_count; i++)
        if (strcmp(k->metrics[i], name) == 0)
            return (long)i;
    return -1;
}

static ks_status alloc_counts(ks_known *k, size_t arrays, ks_error *err)
{
    for (size_t a = 0; a < arrays; a++)
        if (!(k->owned[a] = calloc(k->launch_count ? k->launch_count : 1, sizeof(uint64_t))))
            return ks_error_set(err, KS_ERR_NOMEM, k->traces, 0, "out of memory");
    return KS_OK;
}

/* ------------------------------------------------------------- MacSim */

static ks_status read_macsim(ks_known *k, size_t expect, ks_error *err)
{
    ks_macsim_set *s;
    ks_status st = ks_macsim_set_open(k->traces, &s, err);
    if (st != KS_OK)
        return st;
    k->simulator = "MacSim";
    k->launch_count = ks_macsim_set_count(s);
    if (expect && expect != k->launch_count) {
        ks_macsim_set_free(s);
        return KS_OK;
    }
    st = alloc_counts(k, 1, err);
    for (size_t i = 0; st == KS_OK && i < k->launch_count; i++)
        k->owned[0][i] = ks_macsim_set_launch(s, i)->executed;
    ks_macsim_set_free(s);
    if (st == KS_OK) {
        k->metric_count = 1;
        k->metrics[0] = "INST_COUNT_TOT";
        k->values[0] = k->owned[0];
    }
    return st;
}

/* ------------------------------------------------------------ the cache */

typedef struct cache_row {
    char *file;
    uint64_t bytes, mtime_ns, warp, thread;
    bool used;
} cache_row;

typedef struct cache {
    cache_row *rows;
    size_t count, capacity;
} cache;

static void cache_free(cache *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->rows[i].file);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static bool parse_u64_field(char **p, char end, uint64_t *v)
{
    char *q = *p;
    uint64_t x = 0;
    if (*q < '0' || *q > '9')
        return false;
    for (; *q >= '0' && *q <= '9'; q++)
        if (__builtin_mul_overflow(x, 10u, &x) ||
            __builtin_add_overflow(x, (unsigned)(*q - '0'), &x))
            return false;
    if (*q != end)
        return false;
    *v = x;
    *p = q + (end != '\0');
    return true;
}

/* Rows of a cache file; a file that is absent or not one is no rows. */
static void cache_read(const char *path, cache *c)
{
    ks_input *in;
    ks_error err;
    ks_error_clear(&err);
    if (!path || ks_input_open(path, &in, &err) != KS_OK)
        return;
    char *line;
    size_t len;
    bool truncated, header = false;
    while (ks_input_getline(in, &line, &len, &truncated, &err) == KS_OK && line) {
        if (!header) {
            header = strcmp(line, CACHE_HEADER) == 0;
            if (!header)
                break;
            continue;
        }
        char *comma = strchr(line, ',');
        cache_row r = {0};
        char *p = comma ? comma + 1 : NULL;
        if (truncated || !comma || comma == line || !parse_u64_field(&p, ',', &r.bytes) ||
            !parse_u64_field(&p, ',', &r.mtime_ns) || !parse_u64_field(&p, ',', &r.warp) ||
            !parse_u64_field(&p, '\0', &r.thread) || r.warp > UINT64_MAX / 32 ||
            r.thread > r.warp * 32)
            continue; /* not a row this file writes: counted again */
        if (c->count == c->capacity) {
            size_t cap = c->capacity ? c->capacity * 2 : 256;
            cache_row *g = realloc(c->rows, cap * sizeof *g);
            if (!g)
                break;
            c->rows = g;
            c->capacity = cap;
        }
        if (!(r.file = strndup(line, (size_t)(comma - line))))
            break;
        c->rows[c->count++] = r;
    }
    ks_input_close(in);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The identity of a trace file: its size and modification time. */
static bool file_key(const char *path, uint64_t *bytes, uint64_t *mtime_ns)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return false;
    *bytes = (uint64_t)sb.st_size;
    *mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
    return true;
}

/* The cache row that vouches for this file as it is now, or NULL. */
static cache_row *cache_find(cache *c, const char *path, size_t hint)
{
    uint64_t bytes, mtime;
    if (!file_key(path, &bytes, &mtime))
        return NULL;
    const char *name = base_name(path);
    for (size_t n = 0; n < c->count; n++) {
        cache_row *r = &c->rows[(hint + n) % c->count]; /* rows are in launch order */
        if (strcmp(r->file, name) == 0)
            return r->bytes == bytes && r->mtime_ns == mtime ? r : NULL;
    }
    return NULL;
}

typedef struct cache_out {
    ks_trace_set *set;
    const ks_known *k;
} cache_out;

static ks_status write_cache(const void *ctx, FILE *f, ks_error *err)
{
    (void)err;
    const cache_out *o = ctx;
    fprintf(f, "%s\n", CACHE_HEADER);
    for (size_t i = 0; i < o->k->launch_count; i++) {
        const char *path = ks_trace_set_kernel(o->set, i)->path;
        const char *name = base_name(path);
        uint64_t bytes, mtime;
        if (strpbrk(name, ",\n\r") || !file_key(path, &bytes, &mtime))
            continue;
        fprintf(f, "%s,%llu,%llu,%llu,%llu\n", name, (unsigned long long)bytes,
                (unsigned long long)mtime, (unsigned long long)o->k->owned[0][i],
                (unsigned long long)o->k->owned[1][i]);
    }
    return KS_OK;
}

/* ----------------------------------------------------------- Accel-Sim */

static ks_status read_accelsim(ks_known *k, const char *cache_path, size_t expect,
                               ks_error *err)
{
    ks_trace_set *s;
    ks_status st = ks_trace_set_open(k->traces, &s, err);
    if (st != KS_OK)
        return st;
    k->simulator = "Accel-Sim";
    k->launch_count = ks_trace_set_kernel_count(s);
    if (expect && expect != k->launch_count) {
        ks_trace_set_free(s);
        return KS_OK;
    }
    st = alloc_counts(k, 2, err);
    cache c = {0};
    cache_read(cache_path, &c);
    size_t counted = 0;
    for (size_t i = 0; st == KS_OK && i < k->launch_count; i++) {
        const ks_trace_kernel *tk = ks_trace_set_kernel(s, i);
        cache_row *r = cache_find(&c, tk->path, i);
        if (r) {
            k->owned[0][i] = r->warp;
            k->owned[1][i] = r->thread;
            k->cached++;
            continue;
        }
        uint64_t bytes, mtime;
        if (file_key(tk->path, &bytes, &mtime))
            k->bytes_read += bytes;
        ks_trace_counts n;
        if ((st = ks_trace_set_count(s, i, &n, err)) != KS_OK)
            break;
        k->owned[0][i] = n.warp_insts;
        k->owned[1][i] = n.thread_insts;
        counted++;
    }
    if (st == KS_OK && counted && cache_path) {
        ks_error werr; /* a cache that cannot be written is only slower next time */
        ks_error_clear(&werr);
        cache_out o = {s, k};
        (void)ks_owned_write_path(cache_path, write_cache, &o, &werr);
    }
    cache_free(&c);
    ks_trace_set_free(s);
    if (st == KS_OK) {
        /* not gpgpu_n_tot_thrd_icount: on SM86_RTX3070 it exceeds gpu_sim_insn
         * at every launch of accelsim-synth (it equals it on SM7_QV100) */
        static const char *const thread_names[] = {"gpu_sim_insn", "gpu_tot_sim_insn"};
        for (size_t m = 0; m < 2; m++) {
            k->metrics[m] = thread_names[m];
            k->values[m] = k->owned[1];
        }
        k->metrics[2] = "gpgpu_n_tot_w_icount";
        k->values[2] = k->owned[0];
        k->metric_count = 3;
    }
    return st;
}

ks_status ks_known_read(const char *traces, const char *cache_path, size_t expect, ks_known *out,
                        ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(out->traces = strdup(traces)))
        return ks_error_set(err, KS_ERR_NOMEM, traces, 0, "out of memory");
    double t0 = now();
    ks_status st = ks_macsim_dir_detect(traces) ? read_macsim(out, expect, err)
                                                : read_accelsim(out, cache_path, expect, err);
    out->seconds = now() - t0;
    if (st != KS_OK)
        ks_known_free(out);
    return st;
}

/* ------------------------------------------------------------ the total */

ks_status ks_known_total(const ks_known *k, long m, const ks_plan *plan, const double *y,
                         double *total, bool *exact, char *why, size_t why_size,
                         ks_error *err)
{
    (void)err;
    *exact = false;
    *total = 0;
    why[0] = '\0';
    if (plan->input_invocations != k->launch_count) {
        snprintf(why, why_size,
                 "the plan's profile has %llu launches, the trace folder %zu (a tracer run "
                 "of some launches, or another program): an exact total needs every launch's "
                 "trace",
                 (unsigned long long)plan->input_invocations, k->launch_count);
        return KS_OK;
    }
    if (m < 0 || (size_t)m >= k->metric_count) {
        snprintf(why, why_size, "the traces do not give it");
        return KS_OK;
    }
    if (plan->selection[0]) {
        snprintf(why, why_size,
                 "the plan is drawn on a selection (%s): exact totals are of whole programs",
                 plan->selection);
        return KS_OK;
    }
    uint64_t members = 0;
    for (size_t c = 0; c < plan->cluster_count; c++)
        members += plan->clusters[c].size;
    if (members != k->launch_count || plan->unsim_what[0]) {
        snprintf(why, why_size,
                 "the plan's clusters hold %llu of the %zu launches (%s): the estimate is "
                 "not of the whole trace folder",
                 (unsigned long long)members, k->launch_count,
                 plan->unsim_what[0] ? plan->unsim_what : "some left out");
        return KS_OK;
    }
    const uint64_t *v = k->values[m];
    for (size_t i = 0; i < plan->sample_count; i++) {
        uint64_t id = plan->samples[i].id;
        if (id >= k->launch_count || y[i] != (double)v[id]) {
            if (id >= k->launch_count)
                snprintf(why, why_size, "sample id %llu is not a launch of the traces",
                         (unsigned long long)id);
            else
                snprintf(why, why_size,
                         "launch %llu's simulated value %.17g is not its trace's count %llu "
                         "(other traces, or a simulator that counts otherwise)",
                         (unsigned long long)id, y[i], (unsigned long long)v[id]);
            return KS_OK;
        }
    }
    long double sum = 0;
    for (size_t i = 0; i < k->launch_count; i++)
        sum += (long double)v[i];
    *total = (double)sum;
    *exact = true;
    return KS_OK;
}
