/*
 * ksample.h - kernel-level sampled GPU simulation: the whole public interface.
 *
 * A profile is a columnar table (structure of arrays) of kernel invocations in
 * launch order, id 0..n-1, with interned kernel names.  Readers fill a profile
 * from the files profilers write; methods read a profile and produce a plan (a
 * set of invocation ids with weights); the estimate of any additive quantity X
 * is sum_i weight_i * X(sample_i).
 *
 * Conventions: every function that can fail returns a ks_status and fills a
 * ks_error; nothing in the library prints or exits; every random choice comes
 * from a ks_rng seeded by the caller and recorded in the plan.
 */
#ifndef KSAMPLE_H
#define KSAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KS_VERSION "0.1.0"
#define KS_PLAN_SCHEMA 1

/* ------------------------------------------------------------------ errors */

/* Status codes double as the command-line tool's exit codes. */
typedef enum ks_status {
    KS_OK = 0,
    KS_ERR_USAGE = 2,   /* bad option or parameter value */
    KS_ERR_IO = 3,      /* file cannot be opened, read or written */
    KS_ERR_FORMAT = 4,  /* input is malformed or of an unknown kind */
    KS_ERR_NOMEM = 5,   /* allocation failed */
    KS_ERR_INTERNAL = 6 /* a bug: an invariant did not hold */
} ks_status;

typedef struct ks_error {
    ks_status status;
    char file[512]; /* "" when the error is not about a file */
    long line;      /* 1-based; 0 when not known */
    long column;    /* 1-based; 0 when not known */
    char message[512];
} ks_error;

/* Records an error (printf-style message) and returns its status. */
ks_status ks_error_set(ks_error *err, ks_status status, const char *file, long line,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Writes "file:line: message" (the parts that are known) into buf. */
void ks_error_format(const ks_error *err, char *buf, size_t size);
void ks_error_clear(ks_error *err);

/* ----------------------------------------------------------------- profile */

#define KS_MISSING_I64 INT64_MIN /* a start time that the input did not give */

typedef struct ks_metric_column {
    char *name;
    double *values; /* n values; NAN where the input had none */
} ks_metric_column;

typedef struct ks_profile {
    size_t n;             /* invocations, in launch order */
    size_t capacity;
    int64_t *duration_ns; /* always present */
    uint32_t *name_id;    /* always present: index into names */
    int64_t *start_ns;    /* NULL if the input has no start times */
    uint32_t *grid;       /* NULL, or 3 per invocation (x, y, z) */
    uint32_t *block;      /* NULL, or 3 per invocation (x, y, z) */
    /* Sparse-until-needed columns: allocated (and back-filled with 0) only
     * when the first non-zero value arrives, so a single-GPU single-stream
     * profile pays nothing for them. */
    uint32_t *stream;
    uint32_t *device;
    int64_t *correlation; /* NULL unless the input has correlation ids */

    /* interned names */
    size_t name_count;
    char **names;
    size_t name_capacity;
    uint32_t *name_hash_slots; /* open addressing, stores id+1; 0 = empty */
    size_t name_hash_size;
    char *arena;
    size_t arena_used, arena_capacity;
    struct ks_arena_block *arena_blocks;

    size_t metric_count;
    ks_metric_column *metrics;

    /* provenance */
    char source_format[32];   /* reader that produced it, e.g. "nsys-kern-exec-csv" */
    char device_name[128];    /* "" if unknown */
    char source_path[512];
    char source_xxh128[33];   /* XXH3-128 of the file's bytes as stored on disk, as xxh128sum prints it */
    uint64_t source_bytes;
} ks_profile;

ks_profile *ks_profile_new(void);
void ks_profile_free(ks_profile *p);
/* Interns a name (len bytes, need not be NUL-terminated); returns its id. */
ks_status ks_profile_intern(ks_profile *p, const char *name, size_t len, uint32_t *id,
                            ks_error *err);
/* One invocation.  grid/block may be NULL (unknown); start may be
 * KS_MISSING_I64.  The first call with a non-NULL grid allocates the columns;
 * earlier rows get 0 0 0. */
typedef struct ks_invocation {
    int64_t duration_ns;
    int64_t start_ns;
    uint32_t name_id;
    const uint32_t *grid;
    const uint32_t *block;
    uint32_t stream;
    uint32_t device;
    int64_t correlation; /* KS_MISSING_I64 if unknown */
} ks_invocation;
void ks_invocation_init(ks_invocation *inv);
ks_status ks_profile_append(ks_profile *p, const ks_invocation *inv, ks_error *err);
const char *ks_profile_name(const ks_profile *p, size_t i); /* name of invocation i */
/* Adds (or finds) a metric column named name; values are NAN-filled. */
ks_status ks_profile_metric(ks_profile *p, const char *name, ks_metric_column **col,
                            ks_error *err);
/* Reorders invocations by start time (stable), for inputs sorted otherwise. */
ks_status ks_profile_sort_by_start(ks_profile *p, ks_error *err);
/* Bytes held by the columns (names excluded). */
size_t ks_profile_column_bytes(const ks_profile *p);
double ks_profile_total_ns(const ks_profile *p);

/* -------------------------------------------------------------- grouping key */

typedef enum ks_key {
    KS_KEY_NAME = 0,            /* name cut at the first '(' */
    KS_KEY_NAME_NOTEMPLATE = 1, /* also cut at the first '<' */
    KS_KEY_NAME_GRID_BLOCK = 2  /* name-notemplate plus grid and block dims */
} ks_key;

const char *ks_key_to_string(ks_key key);
ks_status ks_key_parse(const char *s, ks_key *key, ks_error *err);

/* Invocations grouped by a key: group_of[i] in 0..count-1, groups numbered in
 * order of first appearance.  labels[g] is the key text of group g. */
typedef struct ks_groups {
    ks_key key;
    size_t count;
    uint32_t *group_of; /* n entries */
    size_t *size;       /* members per group */
    char **labels;
} ks_groups;

ks_status ks_groups_build(const ks_profile *p, ks_key key, ks_groups *out, ks_error *err);
void ks_groups_free(ks_groups *g);
/* The part of a kernel name that a key keeps (no grid/block): writes at most
 * size-1 bytes. */
size_t ks_key_name_part(ks_key key, const char *name, char *buf, size_t size);

/* ----------------------------------------------------------------- readers */

typedef struct ks_read_options {
    const char *format;    /* NULL or "auto": detect from content */
    int device;            /* -1: all devices; otherwise keep only this device */
    const char *name_kind; /* nsys sqlite: "demangled" (default), "short", "mangled" */
} ks_read_options;

void ks_read_options_init(ks_read_options *opt);
/* Reads a profile; transparently decompresses gzip, xz and zstd. */
ks_status ks_profile_read(const char *path, const ks_read_options *opt, ks_profile **out,
                          ks_error *err);
/* Names of every reader, for --help: NULL-terminated. */
const char *const *ks_reader_names(void);
/* Attaches the metric columns of an Nsight Compute CSV to a time profile by
 * launch order; refuses when counts or kernel names do not line up. */
ks_status ks_profile_attach_metrics(ks_profile *p, const char *ncu_path, ks_error *err);

/* ------------------------------------------------------------- random numbers */

/* xoshiro256** seeded through splitmix64: fast, tiny state, reproducible on
 * every platform. */
typedef struct ks_rng {
    uint64_t s[4];
} ks_rng;

void ks_rng_seed(ks_rng *rng, uint64_t seed);
uint64_t ks_rng_next(ks_rng *rng);
uint64_t ks_rng_below(ks_rng *rng, uint64_t bound); /* uniform in [0, bound) */
double ks_rng_uniform(ks_rng *rng);                 /* uniform in [0, 1) */
double ks_rng_normal(ks_rng *rng);                  /* standard normal */

/* -------------------------------------------------------------- statistics */

/* Inverse of the standard normal CDF (Acklam's rational approximation refined
 * by one Halley step; absolute error below 1e-12). */
double ks_normal_quantile(double p);
/* z = Phi^-1(1 - alpha/2) for a two-sided interval at this confidence. */
double ks_z_for_confidence(double confidence);

/* KKT allocation (STEM, MICRO'25, appendix 8.1): minimise sum m_i mu_i subject
 * to sum N_i^2 sigma_i^2 / m_i <= (eps * sum N_i mu_i / z)^2.  Writes the real
 * (unrounded) m_i; clusters with sigma = 0 get 0 here.  Returns the constant c. */
double ks_kkt_allocate(size_t k, const double *size, const double *mean, const double *std,
                       double epsilon, double z, double *m_real);
/* Rounds as the plan does: ceil, then clamp to [1, N_i]. */
uint64_t ks_round_sample_size(double m_real, uint64_t n);

/* Exact 1-D 2-means on sorted values: the cut c (1 <= c < n) that minimises
 * SSE(v[0..c)) + SSE(v[c..n)).  Returns 0 when no cut lowers the SSE (all
 * values equal, or n < 2). */
size_t ks_two_means_cut(const double *sorted, size_t n, double *sse_out);

/* --------------------------------------------------------------------- plan */

typedef struct ks_params {
    const char *method;
    ks_key key;
    int key_given;          /* the user set --key (else the method's default) */
    double epsilon;         /* error bound, e.g. 0.05 */
    double confidence;      /* e.g. 0.95 */
    int with_replacement;   /* STEM/ROOT: draw with replacement */
    double allegro_n_th;    /* Allegro: split while n >= n_th (50) */
    uint64_t allegro_n_min; /* Allegro: at least n_min draws per leaf (30) */
    double target_speedup;  /* Random: draws = ceil(N / S); 0 = unset */
    double fraction;        /* Random: draws = ceil(N * f); 0 = unset */
    uint64_t seed;
    int max_depth;          /* ROOT/Allegro: recursion guard */
    /* ROOT: KS_ALLOC_JOINT (default) the cheapest strata and sizes under
     * one bound on the workload total; KS_ALLOC_TREE the same with the bound
     * on each kernel group; KS_ALLOC_PAPER the authors' greedy split tree. */
    int allocation;
} ks_params;

enum { KS_ALLOC_JOINT = 0, KS_ALLOC_TREE = 1, KS_ALLOC_PAPER = 2 };

/* Deepest split tree allowed; a cluster's path ("0.1.0...") then fits in
 * KS_PATH_SIZE bytes. */
#define KS_MAX_DEPTH_LIMIT 200
#define KS_PATH_SIZE (2 * KS_MAX_DEPTH_LIMIT + 8)

void ks_params_init(ks_params *p);

typedef struct ks_cluster {
    uint32_t group;    /* index into the plan's group labels */
    char *path;        /* position in the split tree, e.g. "0", "0.1" */
    uint64_t size;     /* members */
    double mean_ns;
    double std_ns;     /* population standard deviation */
    int64_t min_ns, max_ns;
    uint64_t m;        /* samples drawn (draws, counting repeats) */
    double m_real;     /* unrounded size from the formula, for the record */
} ks_cluster;

typedef struct ks_sample {
    uint64_t id;     /* invocation id (0-based launch order) */
    double weight;   /* estimate = sum weight * X(id) */
    uint32_t cluster;
} ks_sample;

typedef struct ks_plan {
    ks_params params;
    char method[32];
    double z;
    size_t group_count;
    char **group_labels;
    size_t cluster_count, cluster_capacity;
    ks_cluster *clusters;
    size_t sample_count, sample_capacity;
    ks_sample *samples;      /* sorted by id; repeats of one id are merged */
    uint64_t draws;          /* samples drawn before merging repeats */
    uint64_t population;     /* N */
    double total_ns;         /* profile's total time */
    double sampled_ns;       /* time of the distinct sampled ids */
    double predicted_speedup;
    double bound;            /* promised relative error at `confidence`; 0 = none */
    char bound_scope[32];    /* "total", "per-group", "per-group (paper)" or "none" */
    /* ROOT only ("" / 0 otherwise): the variance formula the sizes used
     * ("finite-population" or "with-replacement"), the predicted variance
     * of the total-time estimate (ns^2) and the lower bound on the expected
     * simulated time of any plan of contiguous strata under the same bound
     * (ns; 0 = not computed). */
    char variance_formula[24];
    double predicted_variance;
    double lower_bound_ns;
    char input_path[512];
    char input_xxh128[33];
    uint64_t input_bytes;
    char input_format[32];
    uint64_t input_invocations;
} ks_plan;

void ks_plan_init(ks_plan *plan);
void ks_plan_free(ks_plan *plan);
ks_status ks_plan_add_cluster(ks_plan *plan, const ks_cluster *c, uint32_t *index,
                              ks_error *err);
ks_status ks_plan_add_sample(ks_plan *plan, uint64_t id, double weight, uint32_t cluster,
                             ks_error *err);
/* Sorts samples by id, merges repeats (weights add), fills totals. */
ks_status ks_plan_finish(ks_plan *plan, const ks_profile *p, ks_error *err);
/* Estimate of sum over all invocations of values[i] (values indexed by id). */
double ks_plan_estimate(const ks_plan *plan, const double *values);
double ks_plan_estimate_duration(const ks_plan *plan, const ks_profile *p);

/* Serialises as JSON (schema KS_PLAN_SCHEMA) / as "id,weight" CSV.  The output
 * depends only on the plan, so the same seed gives the same bytes. */
ks_status ks_plan_write_json(const ks_plan *plan, FILE *f, ks_error *err);
ks_status ks_plan_write_csv(const ks_plan *plan, FILE *f, ks_error *err);
/* Writes through a temporary file in the same folder and renames it into
 * place, so a reader never sees half a file. */
typedef ks_status (*ks_writer_fn)(const void *ctx, FILE *f, ks_error *err);
ks_status ks_write_atomic(const char *path, ks_writer_fn fn, const void *ctx, ks_error *err);

/* ------------------------------------------------------------------ methods */

typedef struct ks_method {
    const char *name;
    const char *summary;
    ks_key default_key;
    /* groups were built with params->key */
    ks_status (*plan)(const ks_profile *p, const ks_groups *groups, const ks_params *params,
                      ks_rng *rng, ks_plan *plan, ks_error *err);
} ks_method;

const ks_method *ks_method_find(const char *name);
/* NULL-terminated list of every method */
const ks_method *const *ks_methods(void);

/* The whole job: groups by the key, runs the method, finishes the plan. */
ks_status ks_plan_build(const ks_profile *p, const ks_params *params, ks_plan *plan,
                    ks_error *err);

/* ---------------------------------------------------------------- evaluate */

typedef struct ks_eval_result {
    char method[32];
    unsigned iters;
    double samples_mean;    /* distinct sampled invocations, mean over iterations */
    double speedup_hmean;
    double error_mean_pct;
    double error_max_pct;
    double plan_seconds;    /* mean planning time */
    double bound_pct;       /* promised bound (0 = none) */
    double exceed_fraction; /* iterations whose error exceeded the bound */
    double predicted_rse_pct;     /* plans' sqrt(predicted variance) / total; 0 = none */
    double cost_over_lower_bound; /* expected cost / lower bound, mean; 0 = none */
} ks_eval_result;

/* Plans `iters` times with seeds seed, seed+1, ... and measures each plan's
 * estimate of the total time against the profile's own. */
ks_status ks_evaluate(const ks_profile *p, const ks_params *params, unsigned iters,
                      ks_eval_result *out, ks_error *err);

/* ------------------------------------------------------------------ synth */

typedef struct ks_synth_options {
    const char *preset; /* see ks_synth_presets() */
    uint64_t n;
    uint64_t seed;
} ks_synth_options;

/* NULL-terminated preset names and one-line descriptions, in pairs. */
const char *const *ks_synth_presets(void);
/* Writes a synthetic workload in nsys cuda_kern_exec_trace CSV format. */
ks_status ks_synth_write(const ks_synth_options *opt, FILE *f, ks_error *err);

#ifdef __cplusplus
}
#endif
#endif
