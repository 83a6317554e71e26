/*
 * synth_features.c - Nsight Compute metrics and Photon basic-block vectors
 * that match a synthetic workload's launches, so that PKA, Sieve and Photon
 * can be compared with the duration methods on one workload without a GPU.
 *
 * The model (docs/methods.md, "Synthetic features"): every kernel name gets
 * a fixed character drawn from the seed and the name: a few basic blocks of
 * fixed lengths (a prologue and an epilogue run once per warp, loop-body
 * blocks each run with its own probability per iteration), a rate of warp
 * instructions per nanosecond, the fractions of memory instructions of each
 * kind, sectors per request and thread efficiency.  A launch's work follows
 * its duration: target = duration x rate x lognormal(3 %) warp instructions,
 * spread over its warps (grid x ceil(block / 32)) as loop iterations; the
 * block counts (x lognormal(1 %)) give the instruction count exactly
 * (sum of count x length), and the memory counters are fractions of it
 * (x lognormal(2 %)).  So launches of one kernel with similar durations have
 * similar vectors and counters, and features explain time up to the noise.
 * Every value of launch i comes from a generator seeded by (seed, i), so the
 * two files agree without sharing state.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SYNTH_MAX_BLOCKS 16

typedef struct kernel_character {
    unsigned blocks;
    unsigned length[SYNTH_MAX_BLOCKS];
    double taken[SYNTH_MAX_BLOCKS]; /* executions per loop iteration (body blocks) */
    double rate;                    /* warp instructions per ns */
    double f_gld, f_gst, f_lld, f_shld, f_shst, f_atom;
    double sectors_ld, sectors_st, sectors_local;
    double thread_efficiency;       /* active threads per warp instruction */
} kernel_character;

typedef struct launch_features {
    unsigned blocks;
    double count[SYNTH_MAX_BLOCKS];
    uint64_t warps;
    double metric[13];
} launch_features;

/* The metrics written are PKA's 12 features (its table, so that the two
 * cannot drift apart), then the duration. */
extern const ks_method ks_method_pka;

static const char *synth_metric_name(int m)
{
    return m < 12 ? ks_method_pka.metrics[m] : "gpu__time_duration.sum";
}
static const char *const synth_metric_units[13] = {
    "sector", "sector", "sector", "inst", "inst", "inst", "inst",
    "inst",   "inst",   "inst",   "",     "",     "nsecond",
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static double uniform_in(ks_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ks_rng_uniform(r);
}

static double log_uniform_in(ks_rng *r, double lo, double hi)
{
    return exp(uniform_in(r, log(lo), log(hi)));
}

static void character_of(const char *name, uint64_t seed, kernel_character *k)
{
    ks_rng r;
    ks_rng_seed(&r, seed ^ name_hash(name));
    memset(k, 0, sizeof *k);
    k->blocks = 3 + (unsigned)ks_rng_below(&r, SYNTH_MAX_BLOCKS - 2);
    for (unsigned b = 0; b < k->blocks; b++) {
        k->length[b] = 2 + (unsigned)ks_rng_below(&r, 23);
        /* block 1 is the loop head: once per iteration; the others branch */
        k->taken[b] = b == 1 ? 1 : uniform_in(&r, 0.1, 1);
    }
    /* an H100 issues up to ~530 warp instructions per ns (132 SMs x 4 x 1 GHz) */
    k->rate = log_uniform_in(&r, 20, 400);
    k->f_gld = uniform_in(&r, 0.02, 0.2);
    k->f_gst = uniform_in(&r, 0.01, 0.1);
    k->f_lld = ks_rng_uniform(&r) < 0.3 ? uniform_in(&r, 0.001, 0.05) : 0;
    k->f_shld = ks_rng_uniform(&r) < 0.5 ? uniform_in(&r, 0.01, 0.2) : 0;
    k->f_shst = k->f_shld > 0 ? k->f_shld * uniform_in(&r, 0.1, 0.5) : 0;
    k->f_atom = ks_rng_uniform(&r) < 0.2 ? uniform_in(&r, 0.0001, 0.01) : 0;
    k->sectors_ld = log_uniform_in(&r, 1, 32);
    k->sectors_st = log_uniform_in(&r, 1, 32);
    k->sectors_local = log_uniform_in(&r, 1, 8);
    k->thread_efficiency = uniform_in(&r, 12, 32);
}

static double lognormal(ks_rng *r, double sigma) { return exp(sigma * ks_rng_normal(r)); }

static void launch_of(const ks_profile *p, size_t i, const kernel_character *k, uint64_t seed,
                      launch_features *out)
{
    ks_rng r;
    ks_rng_seed(&r, seed * 0x9E3779B97F4A7C15ull + i + 1);
    double grid = 1, threads = 1;
    if (ks_profile_has_dims(p)) {
        const uint32_t *g = ks_profile_grid(p, i), *b = ks_profile_block(p, i);
        grid = (double)g[0] * g[1] * g[2];
        threads = (double)b[0] * b[1] * b[2];
    }
    double warps = grid * ceil(threads / 32);
    warps = warps >= 1 ? warps : 1;
    double target = (double)p->duration_ns[i] * k->rate * lognormal(&r, 0.03);
    double once = k->length[0] + k->length[k->blocks - 1], body = 0;
    for (unsigned b = 1; b + 1 < k->blocks; b++)
        body += k->taken[b] * k->length[b];
    double iters = round((target / warps - once) / body);
    iters = iters >= 1 ? iters : 1;
    out->blocks = k->blocks;
    out->warps = (uint64_t)warps;
    double inst = 0;
    for (unsigned b = 0; b < k->blocks; b++) {
        bool edge = b == 0 || b + 1 == k->blocks;
        out->count[b] = edge ? warps : round(warps * iters * k->taken[b] * lognormal(&r, 0.01));
        inst += out->count[b] * k->length[b];
    }
    double gld = round(inst * k->f_gld * lognormal(&r, 0.02));
    double gst = round(inst * k->f_gst * lognormal(&r, 0.02));
    double lld = round(inst * k->f_lld * lognormal(&r, 0.02));
    double *m = out->metric;
    m[0] = round(gld * k->sectors_ld * lognormal(&r, 0.02));
    m[1] = round(gst * k->sectors_st * lognormal(&r, 0.02));
    m[2] = round(lld * k->sectors_local * lognormal(&r, 0.02));
    m[3] = gld;
    m[4] = gst;
    m[5] = lld;
    m[6] = round(inst * k->f_shld * lognormal(&r, 0.02));
    m[7] = round(inst * k->f_shst * lognormal(&r, 0.02));
    m[8] = round(inst * k->f_atom * lognormal(&r, 0.02));
    m[9] = inst;
    m[10] = fmin(32, k->thread_efficiency * lognormal(&r, 0.01));
    m[11] = grid;
    m[12] = (double)p->duration_ns[i];
}

static ks_status characters(const ks_profile *p, uint64_t seed, kernel_character **out,
                            ks_error *err)
{
    kernel_character *k = malloc((p->name_count ? p->name_count : 1) * sizeof *k);
    if (!k)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t n = 0; n < p->name_count; n++)
        character_of(p->names[n], seed, &k[n]);
    *out = k;
    return KS_OK;
}

static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

ks_status ks_synth_write_ncu(const ks_profile *p, uint64_t seed, FILE *f, ks_error *err)
{
    kernel_character *k;
    ks_status st = characters(p, seed, &k, err);
    if (st != KS_OK)
        return st;
    fputs("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
          "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
          "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
          f);
    for (size_t i = 0; i < p->n && !ferror(f); i++) {
        launch_features lf;
        launch_of(p, i, &k[p->name_id[i]], seed, &lf);
        char dims[96] = "\"(1, 1, 1)\",\"(1, 1, 1)\"";
        if (ks_profile_has_dims(p)) {
            const uint32_t *g = ks_profile_grid(p, i), *b = ks_profile_block(p, i);
            snprintf(dims, sizeof dims, "\"(%u, %u, %u)\",\"(%u, %u, %u)\"", b[0], b[1], b[2],
                     g[0], g[1], g[2]);
        }
        for (int m = 0; m < 13; m++) {
            fprintf(f, "\"%zu\",\"1\",\"synth\",\"localhost\",", i);
            csv_quoted(f, ks_profile_name(p, i));
            fprintf(f, ",\"1\",\"7\",%s,\"0\",\"9.0\",\"synth\",\"%s\",\"%s\",", dims,
                    synth_metric_name(m), synth_metric_units[m]);
            if (m == 10)
                fprintf(f, "\"%.4f\"\n", lf.metric[m]);
            else
                fprintf(f, "\"%.0f\"\n", lf.metric[m]);
        }
    }
    free(k);
    return KS_OK;
}

ks_status ks_synth_write_bbv(const ks_profile *p, uint64_t seed, FILE *f, ks_error *err)
{
    kernel_character *k;
    ks_status st = characters(p, seed, &k, err);
    if (st != KS_OK)
        return st;
    fputs("Warp ID,Basic Block Counts\n", f);
    for (size_t i = 0; i < p->n && !ferror(f); i++) {
        launch_features lf;
        launch_of(p, i, &k[p->name_id[i]], seed, &lf);
        fprintf(f, "Kernel%zu,%u,%llu,%s\n", i, lf.blocks, (unsigned long long)lf.warps,
                ks_profile_name(p, i));
        for (unsigned b = 0; b < lf.blocks; b++)
            fprintf(f, "%.0f,", lf.count[b]);
        fputc('\n', f);
    }
    free(k);
    return KS_OK;
}
