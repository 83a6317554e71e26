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

#include <signal.h> /* sig_atomic_t */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KS_VERSION "0.1.0"
#define KS_PLAN_SCHEMA 1

/* Everything declared here is the shared library's interface: the library is
 * built with -fvisibility=hidden, so only these functions are exported
 * (lib/ internal headers declare the rest). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* KS_VERSION of the header the library was built from: a program (or the
 * Python package) checks it against the header it was compiled with. */
const char *ks_version(void);

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
    char message[1536]; /* room for PKA's 12 needed and missing metrics */
} ks_error;

/* Records an error (printf-style message) and returns its status. */
ks_status ks_error_set(ks_error *err, ks_status status, const char *file, long line,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Frees what a function of the library handed over as malloc'd (the text of
 * ks_plan_json, ks_run_log_tail): free() of the library's own C library, for
 * a program or binding that may have another. */
void ks_free(void *p);
/* Writes "file:line: message" (the parts that are known) into buf. */
void ks_error_format(const ks_error *err, char *buf, size_t size);
void ks_error_clear(ks_error *err);

/* ----------------------------------------------------------------- profile */

#define KS_MISSING_I64 INT64_MIN /* a start time that the input did not give */

typedef struct ks_metric_column {
    char *name;
    double *values; /* n values; NAN where the input had none */
    char *unit;     /* as the input gave it ("byte", "%", "inst/cycle"); NULL if unknown */
} ks_metric_column;

/* A sparse vector per invocation in compressed-row form (basic-block
 * vectors): invocation i holds index[offset[i] .. offset[i+1]) (ascending)
 * with value[] alongside. */
typedef struct ks_sparse_column {
    char *name;
    uint64_t *offset; /* n + 1 entries */
    uint64_t *index;
    double *value;
} ks_sparse_column;

/* The library's one hash table (lib/core/hash.h): ids by 64-bit hash. */
typedef struct ks_hash_index {
    uint32_t *slots; /* id + 1; 0 = empty */
    size_t size;     /* a power of two, or 0 */
} ks_hash_index;

/* ks_profile_copy (lib/internal.h) copies every field: a field added here
 * is added there too. */
typedef struct ks_profile {
    size_t n;             /* invocations, in launch order */
    size_t capacity;
    int64_t *duration_ns; /* always present */
    uint32_t *name_id;    /* always present: index into names */
    /* Start times order launches while a reader runs (ks_profile_order_by)
     * and are freed before ks_profile_read returns: no method uses them, and
     * at 8 bytes a launch they were a fifth of a large profile. */
    int64_t *start_ns;
    /* Grid and block: NULL, or per invocation an index into dims, the table
     * of distinct (grid x, y, z, block x, y, z) 6-tuples, stored once each
     * (a profile has a few thousand at most; 24 bytes a launch were half of
     * a large profile).  Read them with ks_profile_grid / ks_profile_block. */
    uint32_t *dims_id;
    uint32_t *dims;       /* 6 per distinct pair */
    size_t dims_count, dims_capacity;
    ks_hash_index dims_index;
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
    ks_hash_index name_index;  /* lib/core/hash.h */
    char *arena;
    size_t arena_used, arena_capacity;
    struct ks_arena_block *arena_blocks;

    size_t metric_count;
    ks_metric_column *metrics;
    size_t metric_capacity; /* of metrics, grown by doubling */
    ks_hash_index metric_index; /* metrics by name (lib/core/hash.h) */
    size_t sparse_count;
    ks_sparse_column *sparse;
    size_t sparse_capacity;

    /* Regions (lib/core/region.c): the profiler steps, annotations and NVTX
     * ranges the input marks, each with the launches inside it (ascending
     * indexes into this profile), resolved once the reader has ordered the
     * launches.  Readers add them with ks_profile_add_range, and the CPU
     * time of each launch call with ks_profile_add_call (freed once the
     * ranges are resolved). */
    size_t range_count, range_capacity;
    struct ks_range *ranges;
    size_t call_count, call_capacity;
    struct ks_launch_call *calls;
    /* The framework's operator stream (Kineto's cpu_op events): the
     * operators read (freed with the calls) and, per launch, the innermost
     * operator on the launching thread whose time holds the launch call:
     * op_id[i] indexes op_names, UINT32_MAX none; op_id NULL when the
     * input has no operators. */
    size_t op_count, op_capacity;
    struct ks_op_span *ops;
    uint32_t *op_id;
    size_t op_name_count, op_name_capacity;
    char **op_names;
    ks_hash_index op_name_index;
    /* CUDA graphs: graph launches the input shows (cudaGraphLaunch calls)
     * and the kernels they ran (correlated to such a call) */
    uint64_t graph_launches, graph_kernels;
    /* A selection (ks_profile_select): launch_id[i] is launch i's id in the
     * program (its place among the file's launches), NULL when every launch
     * of the file is here (the id is then i); launch_total is the file's
     * launch count; selection the spec applied ("" when none). */
    uint64_t *launch_id;
    uint64_t launch_total;
    char selection[512];
    uint64_t selected; /* launches the selection kept (n, unless masked) */

    /* provenance */
    char source_format[32];   /* reader that produced it, e.g. "nsys-kern-exec-csv" */
    char device_name[128];    /* "" if unknown */
    /* Where the durations come from when the format offers a choice (ncu: the
     * time metric used, e.g. "gpu__time_duration.max"); "none" when the input
     * has no time at all and every duration is 0; "" when the format has one
     * duration column. */
    char duration_source[64];
    char source_path[512];
    char trace_path[512];     /* the Accel-Sim trace folder of these launches, or "" */
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
/* Grid and block (x, y, z) of invocation i; only where ks_profile_has_dims. */
static inline bool ks_profile_has_dims(const ks_profile *p)
{
    return p->dims_id != NULL;
}
static inline const uint32_t *ks_profile_grid(const ks_profile *p, size_t i)
{
    return p->dims + 6 * (size_t)p->dims_id[i];
}
static inline const uint32_t *ks_profile_block(const ks_profile *p, size_t i)
{
    return p->dims + 6 * (size_t)p->dims_id[i] + 3;
}
/* Sets the grid and block of invocation i (grid/block NULL: 0 0 0),
 * starting the column (every other invocation 0 0 0) if there is none. */
ks_status ks_profile_set_dims(ks_profile *p, size_t i, const uint32_t *grid,
                              const uint32_t *block, ks_error *err);
/* Frees the start times (readers call it once launches are in order). */
void ks_profile_drop_start(ks_profile *p);
/* Adds (or finds) a metric column named name; values are NAN-filled. */
ks_status ks_profile_metric(ks_profile *p, const char *name, ks_metric_column **col,
                            ks_error *err);
/* The column named name, or NULL. */
const ks_metric_column *ks_profile_find_metric(const ks_profile *p, const char *name);
const ks_sparse_column *ks_profile_find_sparse(const ks_profile *p, const char *name);
/* Adds a sparse column (replacing one of the same name), taking ownership of
 * offset (n + 1 entries), index and value (offset[n] entries each), which
 * must come from malloc; they are freed on error too. */
ks_status ks_profile_set_sparse(ks_profile *p, const char *name, uint64_t *offset,
                                uint64_t *index, double *value, ks_error *err);
/* Reorders invocations by start time (stable), for inputs sorted otherwise. */
ks_status ks_profile_sort_by_start(ks_profile *p, ks_error *err);
/* Bytes held by the columns (names excluded). */
size_t ks_profile_column_bytes(const ks_profile *p);
double ks_profile_total_ns(const ks_profile *p);

/* ------------------------------------------------------------------ regions */

/* A part of the run the profile marks (lib/core/region.c). */
typedef enum ks_range_kind {
    KS_RANGE_STEP = 0,           /* a profiler step: Kineto's ProfilerStep#N */
    KS_RANGE_ANNOTATION = 1,     /* a CPU-side user annotation (record_function) */
    KS_RANGE_GPU_ANNOTATION = 2, /* Kineto's gpu_user_annotation (GPU timeline) */
    KS_RANGE_NVTX = 3            /* an NVTX push/pop or start/end range */
} ks_range_kind;
typedef struct ks_range {
    char *name;
    ks_range_kind kind;
    bool gpu_clock;          /* begin/end on the GPU's clock (kernel starts),
                              * else the CPU's (the launch calls) */
    int64_t begin_ns, end_ns;
    size_t count;            /* launches inside it */
    uint32_t *ids;           /* their indexes, ascending */
    bool resolved;           /* count and ids are set */
} ks_range;
/* The CPU side of a launch: the runtime call with this correlation id began
 * at ts_ns; graph: it was a CUDA graph launch. */
typedef struct ks_launch_call {
    int64_t correlation, ts_ns;
    int64_t tid;  /* the calling thread (0: unknown) */
    bool graph;
} ks_launch_call;
/* A framework operator (aten::mm) that ran on thread tid from begin to end. */
typedef struct ks_op_span {
    int64_t begin_ns, end_ns, tid;
    uint32_t name; /* into op_names */
} ks_op_span;
ks_status ks_profile_add_op(ks_profile *p, const char *name, size_t len, int64_t tid,
                            int64_t begin_ns, int64_t end_ns, ks_error *err);
const char *ks_range_kind_name(ks_range_kind kind);
ks_status ks_profile_add_range(ks_profile *p, const char *name, size_t len, ks_range_kind kind,
                               bool gpu_clock, int64_t begin_ns, int64_t end_ns, ks_error *err);
ks_status ks_profile_add_call(ks_profile *p, int64_t correlation, int64_t ts_ns, int64_t tid,
                              bool graph, ks_error *err);
/* Resolves every range to its launches (needs start_ns for GPU-clock
 * ranges and the launch calls for CPU-clock ones); frees the calls. */
ks_status ks_profile_resolve_ranges(ks_profile *p, ks_error *err);
/* NVTX ranges from nsys's nvtx_gpu_proj_trace CSV report of the same run
 * (lib/readers/read_nvtx_csv.c), added to p's ranges and resolved by the
 * kernels' start times, which p must still hold (keep_start). */
ks_status ks_profile_attach_ranges(ks_profile *p, const char *path, ks_error *err);
/* The step number of a ProfilerStep#N range, or -1. */
long ks_range_step(const ks_range *r);

/* A selection of launches, as the options of every command that reads a
 * profile give it and a plan records it: items separated by ';', all of
 * which a launch must meet,
 *   step=A or step=A-B    inside profiler step A (to B, inclusive)
 *   range=NAME            inside a range (annotation, NVTX) named NAME, or
 *                         whose name starts with NAME when it ends in '*';
 *                         repeated: inside any of them
 *   time=A-B              starting A to B ns after the first launch (half open)
 *   launches=A-B          launch ids A to B (inclusive)
 *   no-comm               not a communication kernel (ks_comm_kernel)
 *   comm-pattern=P        one more communication pattern (repeatable)
 * Launch ids stay the program's (ks_profile.launch_id).  Refuses an empty
 * result and a step or range the profile does not have, naming what it
 * has. */
ks_status ks_profile_select(ks_profile *p, const char *spec, ks_error *err);
/* The selection as a mask over the whole profile, for what reads a plan
 * drawn on a selection beside its profile (ks_plan_open_profile): every
 * launch keeps its place (index = launch id) and time, and the launches
 * outside it are renamed "(outside the plan's selection)", a name no plan
 * group has; p->selected counts the others. */
ks_status ks_profile_mask_selection(ks_profile *p, const char *spec, ks_error *err);
/* The name id ks_profile_mask_selection gives the launches outside the
 * selection, or UINT32_MAX when none was masked. */
uint32_t ks_profile_masked_name(const ks_profile *p);
/* The program's id of launch i (launch_id[i], or i). */
static inline uint64_t ks_profile_launch_id(const ks_profile *p, size_t i)
{
    return p->launch_id ? p->launch_id[i] : (uint64_t)i;
}

/* ------------------------------------------------------ communication kernels */

/* Whether a kernel name is a communication kernel: NCCL, RCCL, NVSHMEM, and
 * the custom all-reduce kernels of serving frameworks (the list is
 * ks_comm_pattern_list; docs/llm.md), or matches one of extra[0..extra_count)
 * ('*' matches any run of characters; without one a pattern matches
 * anywhere in the name). */
bool ks_comm_kernel(const char *name, const char *const *extra, size_t extra_count);
/* The built-in patterns, NULL-terminated. */
const char *const *ks_comm_pattern_list(void);
/* What communication costs in a profile: the launches and time of its
 * communication kernels, the part of that time that overlaps other kernels
 * on other streams (needs start times: NAN without them), the names by time. */
typedef struct ks_comm_summary {
    uint64_t launches;
    double time_ns, total_ns;
    double overlap_ns;  /* NAN: unknown (no start times) */
    size_t name_count;
    char **names;       /* by time, largest first */
    double *name_ns;
    uint64_t *name_launches;
} ks_comm_summary;
ks_status ks_comm_summarise(const ks_profile *p, const char *const *extra, size_t extra_count,
                            ks_comm_summary *out, ks_error *err);
void ks_comm_summary_free(ks_comm_summary *s);
/* What `ksample sample` plans on, for every caller that plans or
 * evaluates as it does (the command, the Python package; issue 40,
 * docs/llm.md): summarises p's communication kernels (the built-in list
 * and extra[0..extra_count), as --comm-pattern adds them) into *comm over
 * p's launches (its selection, if it has one), with their overlap with
 * other streams where p still holds start times (ks_read_options.keep_start;
 * NAN otherwise); then, unless include, leaves them out as the selection
 * "no-comm;comm-pattern=P;..." (ks_profile_select: launch ids stay the
 * program's; ks_plan_set_unsimulated then records *comm in the plan).
 * Refuses a profile of communication kernels only, and a pattern that is
 * empty or holds ';'.  copy NULL: p itself loses them.  copy given: p is
 * left as it is and *copy is a new profile without them (ks_profile_free),
 * or NULL when nothing was left out (plan on p).  Free *comm with
 * ks_comm_summary_free after KS_OK (nothing to free otherwise). */
ks_status ks_profile_leave_out_comm(ks_profile *p, const char *const *extra, size_t extra_count,
                                    bool include, ks_profile **copy, ks_comm_summary *comm,
                                    ks_error *err);

/* The names key name+shape splits (several (grid, block) shapes, or
 * without them clear duration modes), by launches, most first: *count of
 * them in *out (malloc'd; free each label and the array with
 * ks_split_names_free); parts[k] groups each, launches[k] launches. */
typedef struct ks_split_name {
    char *label;
    size_t parts, launches;
} ks_split_name;
ks_status ks_split_names(const ks_profile *p, ks_split_name **out, size_t *count, ks_error *err);
void ks_split_names_free(ks_split_name *names, size_t count);

/* ------------------------------------------------- launches of two profiles */

/* Launches of one program profiled twice paired when names differ
 * (lib/core/match.c): in order by kernel family (the name without digits),
 * resynchronised after launches one side has and the other lacks. */
typedef struct ks_match_stats {
    size_t matched;   /* pairs */
    size_t renamed;   /* pairs whose names differ */
    size_t by_position; /* of those, other families paired by position: as
                         * many launches on each side between agreeing ones */
    size_t p_only, q_only;     /* launches left unmatched on each side */
    double p_only_ns, q_only_ns;
    size_t gaps;      /* places the sequences part */
    int64_t first_gap_p, first_gap_q; /* where the first one is */
} ks_match_stats;
typedef enum ks_match_mode {
    KS_MATCH_FAMILY = 0, /* by kernel family (the name without its digits) */
    KS_MATCH_OP = 1      /* by the framework operator that launched each kernel
                          * (Kineto's CPU op to kernel correlation; ks_profile.op_id),
                          * the family where a launch has none */
} ks_match_mode;
/* partner[i]: q's launch paired with p's launch i, or -1.  KS_MATCH_OP
 * needs both profiles' operators (refused, saying so, otherwise). */
ks_status ks_profile_match(const ks_profile *p, const ks_profile *q, ks_match_mode mode,
                           int64_t *partner, ks_match_stats *stats, ks_error *err);
/* A profile with p's launches and names and, for each, the duration of its
 * partner in q (0 when it has none): a truth for eval aligned with p. */
ks_status ks_profile_match_truth(const ks_profile *p, const ks_profile *q, ks_match_mode mode,
                                 ks_profile **out, ks_match_stats *stats, ks_error *err);

/* -------------------------------------------------------------- grouping key */

typedef enum ks_key {
    KS_KEY_NAME = 0,            /* name cut at the first '(' */
    KS_KEY_NAME_NOTEMPLATE = 1, /* also cut at the first '<' */
    KS_KEY_NAME_GRID_BLOCK = 2, /* name-notemplate plus grid and block dims */
    KS_KEY_NAME_SHAPE = 3       /* name; a name launched with several (grid,
                                 * block) shapes: name plus the shape (label
                                 * "name[gx,gy,gz][bx,by,bz]"), one group each;
                                 * without grid and block, a name whose
                                 * durations are clearly several modes: one
                                 * group per mode ("name{lo-hi ns}").  With a
                                 * shape share (ks_groups_build_shapes), only
                                 * shapes of at least that share of the
                                 * program's time have their own group, where
                                 * two of the name's do; the name's largest
                                 * takes in the rest under the bare name */
} ks_key;

const char *ks_key_to_string(ks_key key);
ks_status ks_key_parse(const char *s, ks_key *key, ks_error *err);

/* Invocations grouped by a key: group_of[i] in 0..count-1, groups numbered in
 * order of first appearance.  labels[g] is the key text of group g. */
typedef struct ks_groups {
    ks_key key;
    double shape_share; /* name+shape: the share it was built with (0: every shape) */
    size_t count;
    uint32_t *group_of; /* n entries */
    size_t *size;       /* members per group */
    char **labels;
} ks_groups;

ks_status ks_groups_build(const ks_profile *p, ks_key key, ks_groups *out, ks_error *err);
/* The same, with name+shape's shape share (others ignore it): a shape (or
 * duration mode) is its own group where it carries at least shape_share of
 * the profile's time and another shape of its name does too; <= 0: every
 * shape (ks_groups_build). */
ks_status ks_groups_build_shapes(const ks_profile *p, ks_key key, double shape_share,
                                 ks_groups *out, ks_error *err);
void ks_groups_free(ks_groups *g);
/* The part of a kernel name that a key keeps (no grid/block): writes at most
 * size-1 bytes. */
size_t ks_key_name_part(ks_key key, const char *name, char *buf, size_t size);

/* ----------------------------------------------------------------- readers */

typedef struct ks_read_options {
    const char *format;    /* NULL or "auto": detect from content */
    int device;            /* -1: all devices; otherwise keep only this device */
    const char *name_kind; /* nsys sqlite: "demangled" (default), "short", "mangled" */
    bool keep_start;       /* keep start_ns after reading (tests of the readers) */
    const char *select;    /* NULL, or a selection applied after reading
                            * (ks_profile_select) */
} ks_read_options;

void ks_read_options_init(ks_read_options *opt);
/* Reads a profile; transparently decompresses gzip, xz and zstd. */
ks_status ks_profile_read(const char *path, const ks_read_options *opt, ks_profile **out,
                          ks_error *err);
/* Names of every reader, for --help: NULL-terminated. */
const char *const *ks_reader_names(void);
/* A second source of per-invocation data for a time profile, joined by
 * launch order. */
typedef enum ks_source {
    KS_SOURCE_METRICS, /* Nsight Compute CSV: dense metric columns */
    KS_SOURCE_BBV,     /* Photon bbv.csv: sparse column "bbv" + metric "warps" */
    KS_SOURCE_TRACES   /* Accel-Sim trace folder: instruction counts, grid, block */
} ks_source;
/* The command-line option that supplies a source, e.g. "--metrics NCU.csv". */
const char *ks_source_option(ks_source source);
/* Reads path as the given source and joins it to p (ks_profile_join). */
ks_status ks_profile_attach(ks_profile *p, ks_source source, const char *path, ks_error *err);
/* The files read beside a profile (every command's --metrics, --bbv,
 * --traces, --nvtx); NULL: none. */
typedef struct ks_read_sources {
    const char *metrics, *bbv, *traces; /* ks_profile_attach */
    const char *nvtx;                   /* ks_profile_attach_ranges */
} ks_read_sources;
/* A profile as every command reads it (the command and the Python package):
 * ks_profile_read, the sources joined (src NULL: none), and opt->select
 * applied after them where there are any (second sources join by launch
 * order over the whole file). */
ks_status ks_profile_read_sources(const char *path, const ks_read_options *opt,
                                  const ks_read_sources *src, ks_profile **out, ks_error *err);
/* Joins q's metric and sparse columns (and grid/block where p has none) to
 * p launch by launch.  Refuses, naming the first launch that differs (and
 * q's line when q_lines is given), unless the counts are equal, the kernel
 * names agree (demangled, short and mangled forms of one name agree) and,
 * where both give them, grid and block agree.  p is unchanged on refusal. */
ks_status ks_profile_join(ks_profile *p, const ks_profile *q, const long *q_lines,
                          const char *q_path, ks_error *err);
/* The alignment check of ks_profile_join alone: KS_OK, or a refusal that
 * starts with `what` (e.g. "cannot attach") and names the first launch that
 * differs.  p is the reference ("the profile"), q the other ("here"). */
ks_status ks_profile_check_aligned(const ks_profile *p, const ks_profile *q, const long *q_lines,
                                   const char *q_path, const char *what, ks_error *err);

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

/* Parameters every method shares, plus the settings of method parameters
 * by name (as the user gave them); each method resolves the settings against
 * its own parameter table (ks_method.params). */
#define KS_MAX_SETTINGS 24
typedef struct ks_setting {
    char name[32];
    char value[64];
} ks_setting;

typedef struct ks_params {
    const char *method;
    ks_key key;
    int key_given;          /* the user set --key (else the method's default) */
    double epsilon;         /* error bound, e.g. 0.05 */
    double confidence;      /* e.g. 0.95 */
    uint64_t seed;
    /* key name+shape: the least share of the profile's time a shape needs
     * for groups of its own (ks_groups_build_shapes); NAN: the default, a
     * quarter of epsilon (ks_params_shape_share); 0: every shape */
    double shape_share;
    /* 1: a setting the method does not declare is an error (sample);
     * 0: it is ignored (eval runs several methods with one set of options) */
    int strict;
    size_t setting_count;
    ks_setting settings[KS_MAX_SETTINGS];
} ks_params;

void ks_params_init(ks_params *p);
/* The shape share key name+shape uses with these parameters: shape_share,
 * or a quarter of epsilon where it is NAN (a shape of that share, sharing
 * its name's strata, moves the total by less than the bound's quarter
 * unless its cycles per profiled ns differ from the name's by 2x). */
double ks_params_shape_share(const ks_params *p);
/* Records a method parameter by name ("n-th", "allocation", ...); checked
 * when a method resolves it.  Setting a name twice keeps the last value. */
ks_status ks_params_set(ks_params *p, const char *name, const char *value, ks_error *err);

/* One parameter of a method, declared once: the command-line option, its
 * help, its validation and its entry in the plan all come from this row. */
typedef enum ks_param_type {
    KS_PARAM_BOOL,   /* int: 0 or 1; an option without value */
    KS_PARAM_UINT,   /* uint64_t */
    KS_PARAM_REAL,   /* double */
    KS_PARAM_CHOICE  /* int: index into choices */
} ks_param_type;

typedef struct ks_param_def {
    const char *name;  /* option name without "--"; in the plan with '-' as '_' */
    ks_param_type type;
    size_t offset;     /* of the value in the method's parameter struct */
    double min, max;   /* UINT, REAL: inclusive range */
    double def;        /* default (CHOICE: index; BOOL: 0 or 1) */
    const char *const *choices; /* CHOICE: NULL-terminated names */
    const char *arg;   /* the value's name in --help, e.g. "N" */
    const char *help;
} ks_param_def;

/* A count as users write it: 10000000 (exact to 2^64 - 1), 1e7 or 10M
 * (exact below 2^53); false for nan, inf, hex, signs, fractions, overflow. */
bool ks_parse_count(const char *s, uint64_t *v);
/* The one strict number rule (lib/io/csv.c), for every parser of numbers a
 * program printed (simulator logs, results CSVs, option values): s[0..len)
 * must be a whole base-10 number, an optional sign, digits with an optional
 * fraction and an optional exponent, and nothing else (no spaces, hex,
 * inf, nan).  A value below the smallest double reads as the nearest double
 * (a subnormal, or 0); one beyond the largest is refused.  KS_NUM_NONNEG
 * also refuses a negative value (counts, cycles, bytes).  Returns NULL and
 * sets *v, or says why not ("is not a number", "is out of range", "is
 * negative"), to follow the quoted text in a message.
 * KS_NUM_MEASURE is the rule for what a simulator printed (every log
 * reader, results CSV, `score --truth`, and the Python package's values):
 * what KS_NUM_NONNEG takes, without an exponent (no simulator prints 1e300
 * for a count) and below 2^64 (a 64-bit counter; "is 2^64 or more"; a whole
 * number is held to that exactly, so 2^64 - 1, whose nearest double is
 * 2^64, is taken). */
enum { KS_NUM_NONNEG = 1u << 0, KS_NUM_MEASURE = 1u << 1 };
const char *ks_parse_decimal(const char *s, size_t len, unsigned flags, double *v);
/* KS_NUM_MEASURE's range for a value given as a double (the Python
 * package's arrays): NULL, or why not ("is not a finite number", "is
 * negative", "is 2^64 or more"). */
const char *ks_measure_check(double v);
/* Parses value as def's type and range into *out (a double; UINT and CHOICE
 * as exact integers).  Errors say which option and why. */
ks_status ks_param_parse(const ks_param_def *def, const char *value, double *out,
                         ks_error *err);
/* The most samples one plan may draw (counting repeats): Allegro draws
 * max(ceil(n), n_min) per leaf whatever the leaf's size, so a tiny epsilon or
 * a huge n_min would otherwise take unbounded time. */
#define KS_MAX_DRAWS 100000000ULL
/* The highest confidence accepted: above it z = Phi^-1(1 - alpha/2) loses
 * its digits (1 - alpha/2 rounds to 1 and z to infinity near 1 - 1e-16). */
#define KS_MAX_CONFIDENCE (1.0 - 1e-12)

/* Deepest split tree allowed; a cluster's path ("0.1.0...") then fits in
 * KS_PATH_SIZE bytes. */
#define KS_MAX_DEPTH_LIMIT 200
#define KS_PATH_SIZE (2 * KS_MAX_DEPTH_LIMIT + 8)

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

/* The most bytes a method's parameter struct may take (a plan keeps a copy). */
#define KS_METHOD_PARAMS_MAX 128

typedef struct ks_plan {
    ks_params params;
    char method[32];
    /* the method's parameter table and its resolved values, for the record */
    const ks_param_def *param_defs;
    size_t param_count;
    size_t param_pinned; /* the method's params_pinned (0: all written) */
    unsigned char param_values[KS_METHOD_PARAMS_MAX];
    double z;
    size_t group_count;
    char **group_labels;
    size_t cluster_count, cluster_capacity;
    ks_cluster *clusters;
    size_t sample_count, sample_capacity;
    ks_sample *samples;      /* sorted by id; repeats of one id are merged */
    int with_replacement;    /* the method drew with replacement (estimators
                              * then drop the finite-population correction) */
    uint64_t draws;          /* samples drawn before merging repeats */
    uint64_t population;     /* N */
    double total_ns;         /* profile's total time */
    double sampled_ns;       /* time of the distinct sampled ids */
    double predicted_speedup;
    double bound;            /* promised relative error at `confidence`; 0 = none */
    char bound_scope[32];    /* "total", "per-group", "per-group (paper)" or "none" */
    /* what a deterministic method chose from the data, for the record (PKA's
     * k, Sieve's bandwidths); "" = nothing to note */
    char note[256];
    /* ROOT only ("" / 0 otherwise): the variance formula the sizes used
     * ("finite-population" or "with-replacement"), the variance of the
     * total-time estimate the design was sized with (each stratum's profiled
     * population variance, the normal quantile; ns^2) and the lower bound on
     * the expected simulated time of any plan of contiguous strata under the
     * same bound (ns; 0 = not computed). */
    char variance_formula[24];
    double design_variance;
    double lower_bound_ns;
    /* The interval the plan promises (predicted != 0; every plan with a
     * bound): the one variance model's (lib/variance: the floors, degrees
     * of freedom and t that estimate and refine use) applied to the
     * profile's durations at the samples, i.e. the interval `estimate`
     * prints when the simulated values follow the profile; a refined plan's
     * is refine's, from the simulated values it sized with.  The variance
     * and estimate of the total, the degrees of freedom (INFINITY: the
     * normal quantile) and the relative half-width at the plan's confidence
     * (INFINITY: no interval, some stratum's spread is unmeasured). */
    int predicted;
    double predicted_variance, predicted_estimate, predicted_df, predicted_halfwidth;
    char input_path[512];
    char input_xxh128[33];
    uint64_t input_bytes;
    char input_format[32];
    uint64_t input_invocations;
    /* A plan drawn on a selection of the profile (ks_profile_select, the
     * spec in selection, "" when none) of `selected` launches.  Its ids
     * are the program's launch ids once ks_plan_use_launch_ids has mapped
     * them (as sample writes every plan), and input_invocations and
     * population the file's launch count. */
    char selection[512];
    uint64_t selected;
    /* The known, unsimulated part (unsim_what "" when none): launches of the
     * profile (inside the selection) left out of the plan, whose measured
     * time no estimate contains (communication kernels): how many, their
     * time, its share of the time they were left out of, the part of it
     * other kernels on other streams ran beside them (NAN: unknown), and
     * the kernels by time ("name: launches, ns; ..."). */
    char unsim_what[64];
    uint64_t unsim_launches;
    double unsim_ns, unsim_share, unsim_overlap_ns;
    char unsim_kernels[1024];
    /* refine: the plan this one extends ("" when none) and its file's digest */
    char parent_path[512];
    char parent_xxh128[33];
    /* pooled strata (root --pool): per kernel group (group_count), the
     * group whose label the clusters of its pool carry (the pool's lowest);
     * NULL when no strata cross kernel groups.  A cluster of group g then
     * holds launches of every kernel group k with pool_rep[k] == g. */
    uint32_t *pool_rep;
    /* params a reader found that this version does not know: written back
     * as they were read (name, JSON text of the value) */
    size_t extra_param_count;
    char **extra_param_names;
    char **extra_param_values;
} ks_plan;

void ks_plan_init(ks_plan *plan);
void ks_plan_free(ks_plan *plan);
ks_status ks_plan_add_cluster(ks_plan *plan, const ks_cluster *c, uint32_t *index,
                              ks_error *err);
ks_status ks_plan_add_sample(ks_plan *plan, uint64_t id, double weight, uint32_t cluster,
                             ks_error *err);
/* Records pooled strata: pool_of (per kernel group, group_count of them) and
 * rep (per pool, its lowest kernel group) become plan->pool_rep. */
ks_status ks_plan_set_pools(ks_plan *plan, const uint32_t *pool_of, const uint32_t *rep,
                            size_t group_count, ks_error *err);
/* A plan drawn on a selected profile (p->launch_id): its sample ids become
 * the program's launch ids and input_invocations / population the file's
 * launch count, so a tracer's range and a simulator's kernels match it.
 * The estimators that read the profile take only plans in the profile's
 * own ids: call this last, before writing. */
ks_status ks_plan_use_launch_ids(ks_plan *plan, const ks_profile *p, ks_error *err);
/* Records the communication kernels left out of p (c: their summary over
 * the launches before they were left out) as the plan's unsimulated part. */
void ks_plan_set_unsimulated(ks_plan *plan, const ks_comm_summary *c);
/* Copies the known, unsimulated part (a refined plan keeps its parent's). */
void ks_plan_copy_unsimulated(const ks_plan *from, ks_plan *to);
/* Prints the plan's known, unsimulated part in words (nothing when none),
 * each line starting with prefix: for estimate and report. */
void ks_plan_print_unsimulated(const ks_plan *plan, FILE *f, const char *prefix);
/* Sorts samples by id, merges repeats (weights add), fills totals. */
ks_status ks_plan_finish(ks_plan *plan, const ks_profile *p, ks_error *err);
/* The value of the plan's method parameter `name` (CHOICE: its index, BOOL:
 * 0 or 1), or NAN when the method has no such parameter. */
double ks_plan_param(const ks_plan *plan, const char *name);
/* Whether id is one of the plan's samples (a binary search of the sorted
 * samples a plan read has; one made in memory is searched whole). */
bool ks_plan_has_sample(const ks_plan *plan, uint64_t id);
/* Estimate of sum over all invocations of values[i] (values indexed by id). */
double ks_plan_estimate(const ks_plan *plan, const double *values);
double ks_plan_estimate_duration(const ks_plan *plan, const ks_profile *p);

/* Serialises as JSON (schema KS_PLAN_SCHEMA) / as "id,weight" CSV.  The output
 * depends only on the plan, so the same seed gives the same bytes. */
ks_status ks_plan_write_json(const ks_plan *plan, FILE *f, ks_error *err);
ks_status ks_plan_write_csv(const ks_plan *plan, FILE *f, ks_error *err);
/* The same written to path atomically (ks_write_atomic; "-": standard
 * output), as `ksample sample -o path [--csv]` writes it. */
ks_status ks_plan_save_json(const ks_plan *plan, const char *path, ks_error *err);
ks_status ks_plan_save_csv(const ks_plan *plan, const char *path, ks_error *err);
/* The JSON form in memory: *text (malloc'd, NUL-terminated: free() or
 * ks_free() it) holds *size bytes, the bytes ks_plan_save_json writes. */
ks_status ks_plan_json(const ks_plan *plan, char **text, size_t *size, ks_error *err);
/* Writes text as a JSON string that is valid whatever its bytes: escapes as
 * JSON requires, and U+FFFD for each byte that is not well-formed UTF-8. */
void ks_json_write_string(FILE *f, const char *text);
/* Writes through a temporary file in the same folder and renames it into
 * place, so a reader never sees half a file. */
typedef ks_status (*ks_writer_fn)(const void *ctx, FILE *f, ks_error *err);
/* Deletes every temporary file the library has open at this moment (the
 * decompressed copy of a compressed SQLite export, a write in progress on a
 * filesystem without O_TMPFILE).  Async-signal-safe: for a program's SIGINT /
 * SIGTERM handler, so that an interruption leaves nothing behind. */
void ks_remove_temporaries(void);
ks_status ks_write_atomic(const char *path, ks_writer_fn fn, const void *ctx, ks_error *err);

/* Paths as the file system sees them (lib/io/path.c).  ks_path_resolve: an
 * absolute path with every link and '..' of the part that exists resolved
 * and the part that does not exist yet appended as written (malloc'd; NULL
 * when out of memory). */
char *ks_path_resolve(const char *path);
typedef enum ks_path_rel {
    KS_PATH_APART = 0,
    KS_PATH_SAME = 1,       /* one file or folder (also through links, hard
                             * links, bind mounts) */
    KS_PATH_A_INSIDE_B = 2, /* a lies inside the folder b */
    KS_PATH_B_INSIDE_A = 3  /* b lies inside the folder a */
} ks_path_rel;
ks_status ks_path_relation(const char *a, const char *b, ks_path_rel *rel, ks_error *err);
/* The one check before a command writes anything: KS_ERR_USAGE, naming
 * both, when output is one of inputs, lies inside an input folder, or is a
 * folder holding an input.  NULL, "" and "-" entries are skipped, as are
 * an output or input that exists and is neither a regular file nor a
 * folder (a device, a FIFO: written in place, nothing to destroy). */
ks_status ks_path_check_output(const char *output, const char *const *inputs, size_t count,
                               ks_error *err);

/* ------------------------------------------------------------------ methods */

/* What a method needs from its inputs; the pipeline checks before fitting
 * and names the option that supplies what is missing. */
enum {
    KS_NEED_TIME = 1u << 0,    /* kernel durations (a time profile) */
    KS_NEED_METRICS = 1u << 1, /* the dense metric columns in ks_method.metrics */
    KS_NEED_SPARSE = 1u << 2,  /* the sparse column ks_method.sparse */
    KS_NEED_DIMS = 1u << 3,    /* grid and block of every launch */
    KS_NEED_TRACES = 1u << 4   /* instruction traces (profile->trace_path) */
};

/* What fit and select see: the profile, its groups by the plan's key, the
 * shared parameters and the method's own, resolved from its table. */
typedef struct ks_method_input {
    const ks_profile *profile;
    const ks_groups *groups;
    const ks_params *params;
    const void *method_params; /* the method's parameter struct */
    double z;                  /* for params->confidence */
    /* the seed-independent work shared by every fit on this profile (groups
     * by key, members sorted by duration) and the draw buffers; reached
     * through sampling.h's ks_method_members and ks_method_scratch */
    struct ks_plan_cache *cache;
} ks_method_input;

/* A sampling method: one file in lib/methods and one row in the table
 * (lib/methods/method.c).  fit does everything that does not depend on the
 * seed (grouping, sorting, split trees, sizes, training) and may be NULL;
 * select draws the sample with the seeded generator, filling clusters,
 * samples and the bound; eval fits once and selects once per seed. */
typedef struct ks_method {
    const char *name;
    const char *summary;
    ks_key default_key;
    unsigned needs;                 /* KS_NEED_* */
    const char *const *metrics;     /* KS_NEED_METRICS: NULL-terminated column names */
    const char *sparse;             /* KS_NEED_SPARSE: column name */
    const ks_param_def *params;     /* the method's own parameters */
    size_t param_count;
    size_t params_size;             /* sizeof its parameter struct */
    /* 0: every parameter is written to the plan.  Else the first
     * params_pinned always are, and the later ones only when they differ
     * from their default: parameters added after plans of the method were
     * pinned (tests/test_plan_digests.c), whose bytes so stay the same. */
    size_t params_pinned;
    /* cross-parameter checks after each value passed its own; may be NULL */
    ks_status (*check)(const void *method_params, ks_error *err);
    ks_status (*fit)(const ks_method_input *in, void **model, ks_error *err);
    ks_status (*select)(const ks_method_input *in, const void *model, ks_rng *rng,
                        ks_plan *plan, ks_error *err);
    void (*model_free)(void *model);
    /* a model that can be kept in a file (learned methods); may be NULL */
    ks_status (*model_save)(const void *model, const char *path, ks_error *err);
    ks_status (*model_load)(const char *path, const ks_method_input *in, void **model,
                            ks_error *err);
    /* 1: the method chooses its launches (one representative per cluster),
     * it does not draw them at random: its plans' estimates have no
     * sampling interval (estimate prints none) */
    int chooses;
} ks_method;

/* A method's own parameters in its ks_method: the table and its struct. */
#define KS_METHOD_PARAMS(defs, type)                                                       \
    .params = (defs), .param_count = sizeof(defs) / sizeof((defs)[0]), .params_size = sizeof(type)

const ks_method *ks_method_find(const char *name);
/* NULL-terminated list of every method */
const ks_method *const *ks_methods(void);
/* The method's default parameter struct with the settings applied and
 * checked; out holds m->params_size bytes. */
ks_status ks_method_resolve(const ks_method *m, const ks_params *params, void *out,
                            ks_error *err);
/* Whether p has what m needs; if not, the error names what is missing and
 * the option that supplies it. */
ks_status ks_method_check_inputs(const ks_method *m, const ks_profile *p, ks_error *err);

/* A fitted method: the seed-independent work done once for a profile. */
typedef struct ks_fitted ks_fitted;
/* Resolves and checks everything, groups p by the key and fits. */
ks_status ks_fit(const ks_profile *p, const ks_params *params, ks_fitted **out,
                 ks_error *err);
/* What every fit on one profile shares: its groups by each key, each group's
 * members sorted by duration (built on first use), and the buffers draws
 * reuse from plan to plan.  Owned by the caller (eval holds one for all its
 * methods and seeds); it must outlive every ks_fitted made with it, and
 * selects from fits that share one cache must not run concurrently. */
typedef struct ks_plan_cache ks_plan_cache;
ks_status ks_plan_cache_new(const ks_profile *p, ks_plan_cache **out, ks_error *err);
void ks_plan_cache_free(ks_plan_cache *c);
/* ks_fit with a cache shared with other fits on the same profile (cache
 * NULL: a cache of the fit's own, as ks_fit). */
ks_status ks_fit_cached(const ks_profile *p, const ks_params *params, ks_plan_cache *cache,
                        ks_fitted **out, ks_error *err);
/* Draws one plan with this seed (the recorded seed). */
ks_status ks_select(const ks_fitted *f, uint64_t seed, ks_plan *plan, ks_error *err);
void ks_fitted_free(ks_fitted *f);
/* ks_fit, except that a learned method loads its model from path instead of
 * training (the methods with model_load). */
ks_status ks_fit_load(const ks_profile *p, const ks_params *params, const char *path,
                      ks_fitted **out, ks_error *err);
/* Writes a learned method's model (atomically). */
ks_status ks_fitted_save(const ks_fitted *f, const char *path, ks_error *err);
const ks_method *ks_fitted_method(const ks_fitted *f);

/* The whole job: ks_fit then ks_select with params->seed. */
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
    double plan_seconds;    /* time of one plan: fit + mean select */
    double fit_seconds;     /* the seed-independent part, done once */
    double bound_pct;       /* promised bound (0 = none) */
    double exceed_fraction; /* iterations whose error exceeded the bound */
    double predicted_rse_pct;     /* plans' sqrt(predicted variance) / total; 0 = none */
    double cost_over_lower_bound; /* expected cost / lower bound, mean; 0 = none */
} ks_eval_result;

/* What `ksample eval` and `compare` do when not told: plans per method, and
 * eval's methods (comma-separated). */
#define KS_EVAL_ITERS 10
const char *ks_eval_default_methods(void);

/* Fits once, then selects `iters` times with seeds seed, seed+1, ... and
 * measures each plan's estimate of the total time against the profile's own. */
ks_status ks_evaluate(const ks_profile *p, const ks_params *params, unsigned iters,
                      ks_eval_result *out, ks_error *err);

/* What ks_evaluate_ex measures besides the plan's estimate of the profile's
 * own total time.  Both apply one plan to values it was not drawn from (the
 * STEM paper's cross-hardware and multi-metric evaluation). */
typedef struct ks_eval_options {
    /* The same launches measured elsewhere (another GPU, another profiler),
     * aligned with the profile by ks_profile_check_aligned: each plan's
     * estimate sum weight * t_truth(id) is compared with truth's total. */
    const ks_profile *truth;
    const char *truth_path; /* for its refusal; may be NULL */
    /* non-zero: the error of every additive metric column of the profile */
    int metrics;
    /* shared by the evaluations of several methods on this profile (may be
     * NULL); plan_seconds still counts the shared work a plan used */
    ks_plan_cache *cache;
} ks_eval_options;

typedef struct ks_eval_metric {
    const char *name;     /* the profile's column name (lives as long as it) */
    double total;         /* the column's true sum over every launch */
    double error_mean_pct, error_max_pct;
} ks_eval_metric;

typedef struct ks_eval_skipped {
    const char *name;     /* the profile's column name */
    char reason[96];      /* "not additive: unit %", "no value for 3 of 10 launches" */
} ks_eval_skipped;

typedef struct ks_eval_detail {
    int has_truth;
    double truth_total_ns;
    double truth_error_mean_pct, truth_error_max_pct;
    double truth_speedup_hmean;     /* truth's total / truth's time of the sampled ids */
    double truth_exceed_fraction;   /* plans whose error on truth exceeded their bound */
    size_t metric_count;
    ks_eval_metric *metrics;        /* additive, complete columns in profile order */
    size_t skipped_count;
    ks_eval_skipped *skipped;       /* the other columns, with the reason */
} ks_eval_detail;

/* ks_evaluate, and on the same plans what opt asks for (opt may be NULL).
 * Refuses a truth profile that does not line up with p, naming the first
 * launch that differs, and one whose total time is 0.  detail is filled
 * (free it with ks_eval_detail_free) even when opt asks for nothing. */
ks_status ks_evaluate_ex(const ks_profile *p, const ks_params *params, unsigned iters,
                         const ks_eval_options *opt, ks_eval_result *out,
                         ks_eval_detail *detail, ks_error *err);
void ks_eval_detail_free(ks_eval_detail *d);
/* Whether a metric's per-launch values add up to a workload total worth
 * estimating (counts, bytes, cycles, time) rather than rates, ratios,
 * percentages, averages, extremes or launch attributes, judged by its
 * Nsight Compute name and unit (unit may be NULL).  When not, *why (if not
 * NULL) gets a short reason. */
int ks_metric_is_additive(const char *name, const char *unit, const char **why);

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
/* Features that match the launches of a (synthetic) time profile p, from a
 * documented model of how work relates to time (lib/synth/synth_features.c):
 * Nsight Compute metrics in its long CSV form (PKA's 12 features and
 * gpu__time_duration.sum), and Photon-format basic-block vectors.  The same
 * seed gives the same bytes; the two files agree with each other. */
ks_status ks_synth_write_ncu(const ks_profile *p, uint64_t seed, FILE *f, ks_error *err);
ks_status ks_synth_write_bbv(const ks_profile *p, uint64_t seed, FILE *f, ks_error *err);

/* A synthetic workload as Accel-Sim traces (lib/synth/synth_traces.c): in
 * dir (created if absent) kernelslist.g, kernel-N.traceg (tracer version 5
 * layout), the tracer's stats.csv, time.csv (plain CSV time profile of the
 * same launches) and synth-params.txt.  Same options, same bytes. */
typedef struct ks_synth_traces_options {
    uint64_t launches;  /* kernel launches, 1..the preset's maximum */
    uint64_t seed;
    const char *preset; /* NULL: "mixed"; see ks_synth_traces_presets() */
} ks_synth_traces_options;
ks_status ks_synth_traces_write(const char *dir, const ks_synth_traces_options *opt,
                                ks_error *err);
/* NULL-terminated preset names and one-line descriptions, in pairs. */
const char *const *ks_synth_traces_presets(void);
/* The launches a preset writes when none are asked for (its whole program);
 * 0 for an unknown preset. */
uint64_t ks_synth_traces_default_launches(const char *preset);
/* The duration model of time.csv before its noise: 2000 + max(insts / 8 +
 * sectors / 2, 20 * longest_warp) ns. */
double ks_synth_traces_model_ns(uint64_t insts, uint64_t sectors, uint64_t longest_warp);

/* ------------------------------------------------------------------ report */

/* One row of `ksample estimate --json`. */
typedef struct ks_estimate_row {
    char metric[64];
    double estimate, ci_low, ci_high, rel_halfwidth;
    int bound_met;          /* 1 yes, 0 no, -1 not given */
    int count;              /* 1: "kind" count or running total (a total of counts),
                             * 0: a rate, not given or unknown */
    char warmup[64];        /* how the values were simulated; "" when not said */
    char interval[16];      /* what the interval is of: "full run", "values", "none"
                             * (as estimate --json's "interval"); "" when not said */
    char interval_note[512]; /* why, as estimate says it; "" when not said */
    int exact;              /* "exact": true: a total the traces give, no interval */
    /* "cost" (what simulating cost against the program): the metric whose
     * simulated values over its estimate is cost_share, the plan's
     * predicted speedup, and with the runs' warm-up kernels
     * cost_share_warmup and cost_warmup_factor (every simulated cycle over
     * the launches' own); "" and NAN when not said */
    char cost_metric[64];
    double cost_share, cost_predicted_speedup, cost_share_warmup, cost_warmup_factor;
    /* where the variance is ("variance_borrowed_share", "variance_by_kernel"):
     * the share in kernels with no stratum of two or more simulated launches
     * (NAN when not said), and the kernels holding the most of it as
     * estimate prints them ("" when not said) */
    double borrowed_share;
    char variance_by[400];
} ks_estimate_row;

/* Reads the JSON list `ksample estimate --json` prints: objects with keys
 * metric, estimate, ci_low, ci_high, rel_halfwidth, bound_met (and kind,
 * warmup, interval, interval_note when present); those whose "default" is
 * false (not rows estimate shows by default) are left out. */
ks_status ks_estimate_rows_read(const char *path, ks_estimate_row **rows, size_t *count,
                                ks_error *err);

/* One point of a measured speedup-against-error curve: one method's set of
 * values (and estimator) in one `ksample score --json` output, summarised
 * over its plans (seeds). */
typedef struct ks_score_point {
    char series[96];   /* the method, or the file's label (see below), and
                        * " (estimator)" when not the plain one */
    char values[64];   /* context, alone, or a warm-state name */
    double launches_mean, speedup_hmean, error_mean, error_signed_mean, error_max;
    double coverage;   /* of the plans given an interval; NAN: none was */
    double workload_launches; /* the file's "launches": the scored workload's
                               * launch count; NAN: the file does not say */
} ks_score_point;

/* Reads what `ksample score --json` prints: "truth" (the full run's cycles,
 * into *truth) and per method its "sets", each one point (fractions, not
 * per cent).  label, when not NULL (1-64 characters), names the series in
 * place of the method when the file holds one method, and comes before the
 * method's name when it holds several.  null numbers read as NAN;
 * launches_mean, speedup_hmean and error_mean must be present; "launches"
 * (the scored workload's launch count, in every point's workload_launches)
 * may be absent. */
ks_status ks_score_points_read(const char *path, const char *label, double *truth,
                               ks_score_point **points, size_t *count, ks_error *err);

/* One method's evaluation at one error bound (the epsilon sweep). */
typedef struct ks_sweep_point {
    double epsilon;
    ks_eval_result result;
} ks_sweep_point;

/* What a report shows; everything but the profile is optional (NULL / 0). */
typedef struct ks_report_input {
    const ks_profile *profile;
    const char *title;               /* NULL: the profile's file name */
    const ks_plan *plan;             /* clusters and samples on the histograms */
    const ks_eval_result *methods;   /* comparison table and speedup-error chart */
    size_t method_count;
    const ks_sweep_point *sweep;     /* speedup and error against epsilon */
    size_t sweep_count;
    const ks_estimate_row *estimates;
    size_t estimate_count;
    const ks_score_point *scores;    /* measured curves, one chart per set of values */
    size_t score_count;
    double score_truth;              /* the full run's cycles the scores are against */
    size_t top_kernels;              /* histograms of the kernels with most time (0 = 6) */
    const char *command;             /* the command that writes this page; NULL: not shown */
} ks_report_input;

/* Writes one self-contained HTML page (inline CSS and SVG, no script, no
 * network) with per-kernel duration histograms, the plan's cluster ranges
 * and samples, the methods' speedup against error, the epsilon sweep, the
 * comparison table, the estimates with their intervals and the measured
 * speedup-against-error curves of `ksample score`.  Chart ids: hist-0..,
 * speedup-error, sweep-speedup, sweep-error, estimate-interval, score-0.. */
ks_status ks_report_write_html(const ks_report_input *in, FILE *f, ks_error *err);

/* ------------------------------------------------------------ run (jobs) */

/* Runs simulations as independent jobs: kernels carry no state between
 * launches (the STEM paper's assumption), so each sampled kernel, or batch,
 * is its own job and the wall time is the longest job, not the sum.  Each job
 * has a folder holding cmd.sh (the command), sim.log (its stdout and stderr)
 * and status (its exit code as text, written atomically when it ends).  A job
 * whose status reads 0 is finished and skipped on a rerun. */
typedef enum ks_run_engine { KS_ENGINE_LOCAL = 0, KS_ENGINE_SLURM = 1 } ks_run_engine;

typedef struct ks_run_options {
    ks_run_engine engine;
    const char *rundir;     /* job folders are relative to it */
    unsigned parallel;      /* local: processes at once (0 = 1) */
    /* slurm: passed to sbatch when not NULL / 0 */
    const char *sbatch;     /* program (default "sbatch") */
    const char *partition;
    const char *time_limit; /* --time */
    const char *memory;     /* --mem */
    const char *account;
    unsigned throttle;      /* --array=...%throttle */
    int wait;               /* sbatch --wait: return when every task ended */
    double poll_seconds;    /* how often to look at finished jobs (0 = default) */
    /* When *stop becomes non-zero (a signal handler sets it), no job starts
     * any more and the running ones are stopped: local, SIGTERM to each
     * job's process group (every job runs in its own), SIGKILL to those
     * left after grace_seconds (0 = 5); slurm, `scancel` of the array.
     * Each stopped job's status then reads "interrupted", the others keep
     * theirs, so the folder stays resumable and a rerun runs exactly the
     * jobs not done.  NULL: never stopped. */
    const volatile sig_atomic_t *stop;
    double grace_seconds;
    const char *scancel;    /* slurm: program (default "scancel") */
} ks_run_options;

typedef struct ks_run_job {
    const char *dir;     /* relative to rundir, e.g. "jobs/0000"; no newline */
    const char *command; /* shell command line, run with the job folder as cwd */
} ks_run_job;

typedef struct ks_run_progress {
    size_t total;     /* jobs given */
    size_t skipped;   /* finished by an earlier run */
    size_t done;      /* finished with status 0 in this run */
    size_t failed;    /* finished with another status in this run */
    size_t running;
    double elapsed_s;
    double eta_s;     /* < 0 while unknown */
    char slurm_job_id[32]; /* "" with the local engine */
    size_t interrupted; /* jobs stopped by options->stop (status "interrupted") */
    int stopped;        /* options->stop was seen: the run did not finish */
} ks_run_progress;

/* Called whenever a count changes, and about once a second otherwise. */
typedef void (*ks_run_progress_fn)(const ks_run_progress *p, void *ctx);

void ks_run_options_init(ks_run_options *o);
/* Runs every job whose status is not 0.  Returns KS_OK when the jobs ran
 * (or, with slurm without wait, were submitted), even if some failed: their
 * state is in their folders (ks_run_job_state).  *last (may be NULL) gets
 * the final counts. */
ks_status ks_run_execute(const ks_run_options *o, const ks_run_job *jobs, size_t n,
                         ks_run_progress_fn cb, void *ctx, ks_run_progress *last,
                         ks_error *err);

typedef enum ks_job_state {
    KS_JOB_PENDING = 0,    /* no log yet */
    KS_JOB_STARTED = 1,    /* a log but no status: running, or its run died */
    KS_JOB_DONE = 2,       /* status 0 */
    KS_JOB_FAILED = 3,     /* another exit code */
    KS_JOB_INTERRUPTED = 4 /* status "interrupted": stopped by a signal to the run */
} ks_job_state;
#define KS_JOB_STATES 5

const char *ks_job_state_name(ks_job_state s);
/* State of one job folder (rundir/dir); *exit_code is the status (or -1). */
ks_status ks_run_job_state(const char *rundir, const char *dir, ks_job_state *state,
                           int *exit_code, ks_error *err);
/* The last `lines` lines of the job's sim.log (malloc'd, "" if none). */
ks_status ks_run_log_tail(const char *rundir, const char *dir, size_t lines, char **text,
                          ks_error *err);

/* RUNDIR/manifest.json: {"plan": path, "plan_xxh128": hex, "jobs": [{"job": 0,
 * "ids": [..], "dir": "jobs/0000"}, ...]}: what ran, for `ksample status` and
 * `ksample estimate`. */
typedef struct ks_run_manifest_job {
    char *dir;
    uint64_t *ids; /* invocation ids simulated by this job, in the order the
                    * simulator runs them (warm-up launches included) */
    size_t id_count;
    unsigned char *measured; /* per id: 1 = a result, 0 = a warm-up launch,
                              * 2 = ksample's warm-state kernel before the
                              * id's launch (--warmup state); NULL: every
                              * id is a result ("measured" absent) */
    uint64_t *launches;      /* per id: its launch in the trace folder when that
                              * is not the id (remapped); NULL: the ids */
} ks_run_manifest_job;

/* A plan a run folder was run for: its path and XXH3-128. */
typedef struct ks_run_manifest_plan {
    char *path;
    char xxh128[33];
} ks_run_manifest_plan;

typedef struct ks_run_manifest {
    char *plan;
    char plan_xxh128[33];
    size_t job_count;
    ks_run_manifest_job *jobs; /* job i is jobs[i] */
    /* optional (NULL when absent): the trace folder the jobs were cut from,
     * the simulator kind ("accelsim", "macsim", "command") and the warm-up
     * mode ("none", "self", "window:4", ...) */
    char *traces, *simulator, *warmup;
    /* optional, what else decides a job's result (0 / -1 / NULL when
     * absent: a manifest of an older ksample): sampled launches per job
     * (--batch), whether launches were matched by --remap, and the
     * simulator's command (the --simulator template, or the preset's binary,
     * configurations or parameters as absolute paths) */
    uint64_t batch;
    int remap;
    char *command;
    /* optional: the trace folder's fingerprint (ks_run_traces_fingerprint) */
    char *traces_fingerprint;
    /* optional: the simulator configuration's contents
     * (ks_run_config_digest of --sim-config, --params, the --config folders) */
    char *config_xxh128;
    /* optional: the plan's profile (its input_xxh128): the program whose
     * launch ids the jobs simulate */
    char *profile_xxh128;
    /* The plans this folder was run for before `plan` ("earlier_plans",
     * oldest first; none when absent): a refined plan run into its parent's
     * folder reuses the parent's jobs and names the parent here, so that
     * `estimate PARENT RUNDIR` still reads the parent's jobs. */
    size_t earlier_count;
    ks_run_manifest_plan *earlier;
} ks_run_manifest;

/* XXH3-128 of what the simulated machine is read from: every byte of each
 * file in paths (NULL entries skipped), and of each regular file of a folder
 * among them, in name order.  A path that is not a regular file or folder
 * (a FIFO) is refused, never waited on. */
ks_status ks_run_config_digest(const char *const *paths, size_t count, char out[33],
                               ks_error *err);
/* What a trace folder holds, cheaply: XXH3-128 (32 hex digits into out) of
 * its list file's bytes and, per entry in name order, the name, size and
 * first 4 KiB (a MacSim kernel folder's trace.txt); no times, so a copy of
 * the same traces has the same fingerprint.  Its limit: a trace edited
 * beyond its first 4 KiB and kept at the same size is not seen. */
ks_status ks_run_traces_fingerprint(const char *traces, char out[33], ks_error *err);

ks_status ks_run_manifest_write(const char *path, const ks_run_manifest *m, ks_error *err);
ks_status ks_run_manifest_read(const char *path, ks_run_manifest *m, ks_error *err);
void ks_run_manifest_free(ks_run_manifest *m);
/* A folder inside a run folder (RUNDIR/jobs, a job's folder, the probe):
 * made when absent; KS_ERR_USAGE when it is a symbolic link, which is never
 * followed (what a run writes or removes there must stay in the run). */
ks_status ks_run_owned_dir(const char *path, ks_error *err);
/* One `ksample run` at a time in a run folder: RUNDIR/lock held with
 * flock(2) until ks_run_lock_release (or the process ends; the jobs the
 * run starts inherit it).  KS_ERR_USAGE naming the holder (pid, host,
 * start) when another run holds it. */
typedef struct ks_run_lock ks_run_lock;
ks_status ks_run_lock_take(const char *rundir, ks_run_lock **out, ks_error *err);
void ks_run_lock_release(ks_run_lock *lock);
/* Whether a rerun with manifest now may go on in a folder run with old:
 * the same plan, traces (path and fingerprint), simulator, command, warm-up,
 * batch and remap
 * (fields old lacks are compared through its jobs).  KS_ERR_USAGE naming
 * the option that differs and both values otherwise: the finished jobs'
 * results would be mixed with others.  A run of another plan goes on only
 * where now names old's plan among its earlier plans (a refined plan run
 * into its parent's folder): then old must record every option now does,
 * with the same values and profile, and now's first jobs must be old's,
 * folder for folder. */
ks_status ks_run_manifest_compare(const ks_run_manifest *old, const ks_run_manifest *now,
                                  const char *path, ks_error *err);
/* Whether a plan of this XXH3-128 may read the folder: the manifest's plan
 * (1) or one of its earlier plans (2, whose jobs are those that measure
 * only launches of it); 0 otherwise. */
int ks_run_manifest_plan_kind(const ks_run_manifest *m, const char *xxh128);
/* KS_OK when every job of the manifest is done; otherwise KS_ERR_FORMAT
 * with a message that counts the jobs not done and names the first few with
 * their state and exit code (for `estimate`, which refuses an incomplete
 * run). */
ks_status ks_run_check_complete(const char *rundir, const ks_run_manifest *m, ks_error *err);

/* ------------------------------------------- closing the loop: plan files */

/* Reads a plan written by ks_plan_write_json (schema KS_PLAN_SCHEMA; others
 * are refused) and validates it: ids unique and sorted, cluster indexes
 * valid, weights positive and finite.  ks_plan_write_json writes it back to
 * the same bytes. */
ks_status ks_plan_read(const char *path, ks_plan *plan, ks_error *err);
/* The same from memory; name is what errors call it. */
ks_status ks_plan_read_buffer(const char *data, size_t len, const char *name, ks_plan *plan,
                              ks_error *err);
/* Opens a file to read (lib/io/input.c): a FIFO, device or socket at path
 * is refused at once (KS_ERR_IO), never waited on; the process's own
 * descriptors by name (/dev/stdin, /dev/fd/N, /proc/self/fd/N) are opened
 * as they are. */
ks_status ks_file_open_read(const char *path, FILE **out, ks_error *err);
/* XXH3-128 of a file's bytes as stored, as xxh128sum prints it. */
ks_status ks_file_xxh128(const char *path, char hex[33], ks_error *err);
/* Reads the profile a plan was made from: path, or the plan's recorded input
 * when path is NULL, in the plan's recorded format.  Refuses a file whose
 * digest or invocation count is not the plan's. */
ks_status ks_plan_open_profile(const ks_plan *plan, const char *path, ks_profile **out,
                               ks_error *err);
/* Whether results reported for a launch belong to the plan
 * (lib/plan/plan_launch.c): the kernel name a simulator or tracer gives for
 * plan id `id` (NULL or "" when it gives none; demangled, bare and mangled
 * forms of one kernel agree) and its grid and block (each NULL or {0,0,0}
 * when not given) must be the launch's.  What the launch is comes from
 * profile (the plan's, every launch) when not NULL, else from the plan:
 * the kernel group label of a sampled id (names, and grid and block with
 * key name+grid+block); nothing is known of an id the plan did not sample,
 * or in a plan that records no names (one group "all": random, PKA).  A
 * mismatch is KS_ERR_FORMAT located at file:line.  *checked (may be NULL)
 * gets KS_CHECKED_NAME and KS_CHECKED_DIMS for what was compared. */
enum { KS_CHECKED_NAME = 1u << 0, KS_CHECKED_DIMS = 1u << 1 };
ks_status ks_plan_check_launch(const ks_plan *plan, const ks_profile *profile, uint64_t id,
                               const char *name, const uint32_t *grid, const uint32_t *block,
                               const char *file, long line, unsigned *checked, ks_error *err);
/* Whether the plan's group labels are kernel names. */
bool ks_plan_records_names(const ks_plan *plan);

/* ------------------------------------------------ exporters (plan -> tracer) */

/* Warm-up before each sampled launch in the same simulator process
 * (lib/export/warmup.c): only the sampled launch is measured. */
typedef enum ks_warmup_mode {
    KS_WARMUP_NONE = 0,      /* alone, from cold caches */
    KS_WARMUP_SELF = 1,      /* the launch itself first */
    KS_WARMUP_SAME = 2,      /* the latest earlier launch of the same kernel */
    KS_WARMUP_PREV = 3,      /* the `count` launches just before it */
    KS_WARMUP_SINCE_SAME = 4, /* every launch since the `depth`-th latest earlier
                               * launch of the same kernel, at most `count` (the
                               * `count` before it when there is none) */
    KS_WARMUP_STATE = 5       /* the L2 state the full run would give it, rebuilt
                               * from the traces of the launches before it
                               * (lib/warm), carried by `carrier` */
} ks_warmup_mode;

/* How the rebuilt state reaches the simulator. */
typedef enum ks_state_carrier {
    KS_STATE_KERNEL = 0, /* a warm-up kernel that ksample writes as a trace in the
                          * simulator's own format: loads (and stores where a
                          * line was last written) over the rebuilt lines,
                          * oldest first; works on every stock build */
    KS_STATE_MEMCPY = 1, /* Accel-Sim MemcpyHtoD lines before the launch: zero
                          * simulated cycles, but only on a GPGPU-Sim build whose
                          * perf_memcpy_to_gpu keeps 64-bit addresses */
    KS_STATE_MEMCPY32 = 2, /* the same on a stock build, which keeps 32 bits of
                          * a copy's address: the lines and the job's copy of
                          * the launch's trace in a 32-bit address space that
                          * keeps every address bit the configuration reads
                          * (needs its gpgpusim.config; lines filled clean) */
    KS_STATE_MEMCPY32_STORES = 3, /* state:memcpy32 and a warm-up kernel of only
                          * the stores of the dirty lines (which copies fill
                          * clean): its cost follows the dirty share */
    KS_STATE_SPLIT = 4   /* state:memcpy32's copies for every line but those
                          * from the oldest dirty line to the youngest one the
                          * launch's misses can evict, which a warm-up kernel
                          * loads (and stores) in their place between the
                          * copies: no kernel, and no warm-up cycle, where the
                          * launch's misses evict few dirty lines (under 1 %
                          * of them, in the rebuilt state's model); the
                          * default of `--warmup state` on Accel-Sim where
                          * state:memcpy32's remap applies */
} ks_state_carrier;
/* Whether the carrier puts the launch's trace and the copies in a 32-bit
 * address space (state:memcpy32, its +stores, state:split). */
bool ks_state_carrier_remaps(ks_state_carrier c);

/* The lines a warm-up kernel loads (--state-lines): every rebuilt line (the
 * L2 as full as the full run's, so the launch's misses evict and write back
 * what they evicted there), or only those the sampled launch touches, with
 * or without every dirty line besides: cheaper, and as close where the
 * program's footprint fits the L2 (docs/bench.md measures each); or, launch
 * by launch, the touched ones where the launch's misses evict no line of
 * the model's sets and every line where they do (auto: plain `state`'s on
 * MacSim). */
typedef enum ks_state_lines {
    KS_STATE_LINES_ALL = 0,     /* every rebuilt line (the default) */
    KS_STATE_LINES_DIRTY = 1,   /* touched, and every dirty one */
    KS_STATE_LINES_TOUCHED = 2, /* only those the launch touches */
    KS_STATE_LINES_AUTO = 3     /* touched or all, by the launch's evictions */
} ks_state_lines;

typedef struct ks_warmup {
    ks_warmup_mode mode;
    unsigned count;
    unsigned depth; /* since-same: how many of the kernel's latest launches
                     * (since-same:N:K); 0 reads as 1 */
    /* state only */
    ks_state_carrier carrier;
    bool carrier_given;       /* named (state:CARRIER); plain `state` lets run
                               * pick state:split where it applies */
    double cut;               /* lines kept: cut x the L2's lines; 0: the default */
    uint64_t l2_bytes;        /* the simulated L2; 0: from sim_config */
    const char *sim_config;   /* gpgpusim.config or MacSim params.in: the L2's
                               * size and line, the SMs (lockstep waves) */
    ks_state_lines lines;     /* which rebuilt lines the kernel carrier loads */
} ks_warmup;

/* `ksample run`'s default, chosen from the measurements in docs/bench.md:
 * the rebuilt state (its warm-up kernel) where the simulated L2 is known
 * (the simulator's configuration or --l2-size), else since-same:8 */
#define KS_WARMUP_DEFAULT_MODE KS_WARMUP_STATE
#define KS_WARMUP_FALLBACK_MODE KS_WARMUP_SINCE_SAME
#define KS_WARMUP_FALLBACK_COUNT 8
#define KS_WARMUP_DEFAULT_COUNT 8
#define KS_WARMUP_DEFAULT_DEPTH 1

/* What the modes know of a trace folder's launch: "the same kernel" is the
 * same name with a memory page in common (pages: sorted, of the first
 * memory instructions of the first warp; none known matches any). */
typedef struct ks_warmup_launch {
    char *name;
    uint64_t *pages;
    size_t page_count;
} ks_warmup_launch;
void ks_warmup_launches_free(ks_warmup_launch *l, size_t count);

/* The default cut of the state mode: lines kept, in L2 capacities (docs/bench.md,
 * "the cut"). */
#define KS_STATE_DEFAULT_CUT 2.0

/* "none", "self", "same", "prev:N", "since-same:N", "since-same:N:K", "state",
 * "state:kernel", "state:memcpy" */
ks_status ks_warmup_parse(const char *text, ks_warmup *w, ks_error *err);
void ks_warmup_format(const ks_warmup *w, char *buf, size_t size);
/* Most warm-up launches the mode puts before one launch. */
size_t ks_warmup_max(const ks_warmup *w);
/* The warm-up launches of `launch` (0-based in a trace folder of `count`
 * launches), in the order they run, into out (room for ks_warmup_max). */
ks_status ks_warmup_launches(const ks_warmup *w, const ks_warmup_launch *launches, size_t count,
                             size_t launch, size_t *out, size_t *n, ks_error *err);

/* One launch a simulator is given, in order. */
typedef struct ks_export_entry {
    size_t launch;   /* in the trace folder (0-based) */
    uint64_t id;     /* plan id (the profile's launch; = launch unless remapped) */
    double weight;   /* 0 for a warm-up */
    bool measured;   /* false: a warm-up, its statistics discarded */
    bool state;      /* the rebuilt state of this launch (--warmup state): its
                      * carrier, before the measured entry of the same launch */
} ks_export_entry;

/* What `--warmup state` wrote (ks_export_state_write). */
typedef struct ks_state_report {
    size_t launches;        /* sampled launches given a state */
    uint64_t lines;         /* lines written in all (kernel carrier: those the
                             * launches touch and the dirty ones, by default) */
    uint64_t lines_max;     /* the most for one launch */
    uint64_t dirty;         /* of the lines written, those last written (dirty):
                             * state:memcpy and memcpy32 fill them clean (0 for
                             * the carriers with a kernel) */
    uint64_t insts;         /* warm-up kernels' warp instructions in all */
    uint64_t l2_bytes;      /* the L2 modelled */
    double cut;             /* lines kept, in L2 capacities */
    double seconds;         /* the walk over the traces */
    char source[512];       /* where the L2's geometry came from */
    /* launches whose state the trace folder's missing launches cut short
     * (the tracer recorded only some: the lines used since the latest
     * missing one are fewer than the cut): how many, and the first
     * KS_STATE_SHORT_LISTED of them (1-based launch, lines of the cut
     * lacked at most, the latest missing launch before it) */
    size_t short_launches;
    uint64_t short_lines_max;
    uint64_t short_launch[8], short_lines[8], short_missing[8];
    /* state:memcpy32: launches whose lines the remap would put on address
     * 0, which Accel-Sim reads as an inactive lane: moved off it by a base
     * no address function sees, and those it could not move (their accesses
     * there are lost) */
    size_t zero_moved, zero_kept;
    /* state:split: launches whose state needed a warm-up kernel (their
     * misses evict dirty lines), and the lines those kernels
     * carry in all (the rest went in copies); split_stores: the kernels
     * store the dirty lines between the copies (else they load their
     * sets' lines in order) */
    size_t split_kernels;
    uint64_t split_kernel_lines;
    bool split_stores;
    /* --state-lines auto: launches whose misses evict lines of the model's
     * sets (every line loaded), and those whose misses do not (only the
     * touched ones) */
    size_t auto_all, auto_touched;
} ks_state_report;
#define KS_STATE_SHORT_LISTED 8

/* --warmup state: the rebuilt L2 state of every entry marked `state`,
 * written as its carrier into dirs[k], the folder that runs entry k (one
 * pass over the traces up to the last such launch). */
ks_status ks_export_state_write(const char *traces, const ks_warmup *w,
                                const ks_export_entry *entries, size_t count,
                                const char *const *dirs, ks_state_report *report,
                                ks_error *err);

/* --warmup state: whether the simulated L2 can be read (the configuration
 * or --l2-size) and the carrier suits the traces, before anything is
 * written; KS_OK for any other mode. */
ks_status ks_export_state_check(const char *traces, const ks_warmup *w, ks_error *err);

/* Whether an Accel-Sim build takes MemcpyHtoD lines at 64-bit addresses
 * into L2 (lib/warm/probe.c): a probe folder (kernelslist.g and a warm-up
 * kernel that reads what the list copied) for the simulator to run, and the
 * verdict from its log: *takes_memcpy 1 (its reads hit) or 0. */
ks_status ks_state_probe_write(const char *dir, ks_error *err);
ks_status ks_state_probe_read(const char *log, int *takes_memcpy, ks_error *err);

/* Whether state:memcpy32 applies to a trace folder (lib/warm/addr_remap.c):
 * the address functions of w->sim_config (a gpgpusim.config) solved for a
 * 32-bit remap, and the program's footprint (every global line of its
 * launches) checked under it.  KS_OK with usable set, or not and why (a
 * configuration whose functions read bits no remap keeps, two lines or two
 * rows of one bank onto one); an error only for what cannot be read. */
typedef struct ks_state_remap_report {
    bool usable;
    uint64_t lines;         /* the footprint's distinct lines */
    size_t collisions, row_merges;
    int max_bit;            /* the highest address bit the configuration reads */
    uint64_t read_high;     /* its bits >= 32 (each kept by low bits) */
    char why[600];          /* when not usable */
} ks_state_remap_report;
ks_status ks_state_remap_check(const char *traces, const ks_warmup *w,
                               ks_state_remap_report *rep, ks_error *err);

/* sampled[0..count) with each one's warm-up launches before it. */
ks_status ks_warmup_entries(const ks_warmup *w, const ks_warmup_launch *launches,
                            size_t launch_count, const ks_export_entry *sampled, size_t count,
                            ks_export_entry **out, size_t *n, ks_error *err);

typedef struct ks_export_options {
    const char *traces;        /* accelsim, macsim: folder of the complete traces */
    const ks_profile *profile; /* the plan's profile: ids checked against the
                                * trace headers when given */
    int remap;                 /* match launches by (name, grid, block,
                                * occurrence) instead of by position */
    const ks_warmup *warmup;   /* accelsim, macsim: warm-up launches before each
                                * sampled one (NULL: none); the tracer formats
                                * with the state mode: trace the launches each
                                * sampled launch's state is rebuilt from too */
    uint64_t state_window;     /* those launches: the state_window before each
                                * sampled one; 0: those the state can need,
                                * estimated from the profile (its bytes moved,
                                * else its threads) and the L2; KS_STATE_WINDOW_ALL:
                                * every earlier launch */
    char *note;                /* when not NULL: a line for the terminal (the
                                * tracer formats: the share of the program
                                * traced), note_size bytes */
    size_t note_size;
} ks_export_options;
#define KS_STATE_WINDOW_ALL UINT64_MAX

typedef struct ks_exporter {
    const char *name;
    const char *summary;
    int output_is_folder; /* out names a folder (created) rather than a file */
    ks_status (*write)(const ks_plan *plan, const ks_export_options *opt, const char *out,
                       ks_error *err);
} ks_exporter;

/* Simulator folders, part by part, for jobs of a run (lib/export/export.c):
 * whether traces is a MacSim trace folder (else Accel-Sim); the plan's
 * samples as entries in the order the simulator runs them, ids checked
 * against the traces as the exporter checks them, with the warm-up launches
 * of opt->warmup before each; and the folder of any such entries, written
 * as `export --to accelsim` / `--to macsim` writes it, whole or not at all:
 * it replaces whatever folder out was (a job folder of `ksample run`). */
int ks_export_folder_is_macsim(const char *traces);
ks_status ks_export_plan_entries(const ks_plan *plan, const ks_export_options *opt,
                                 ks_export_entry **out, size_t *count, ks_error *err);
ks_status ks_export_entries_write(const ks_plan *plan, const char *traces,
                                  const ks_export_entry *entries, size_t count,
                                  const ks_warmup *warmup, const char *out, ks_error *err);

const ks_exporter *const *ks_exporters(void); /* NULL-terminated */
const ks_exporter *ks_exporter_find(const char *name);

/* ------------------------------------- simulator results and the estimate */

/* What kind of number a simulator statistic is (lib/simout/stat_kind.c):
 * only per-launch values add up over launches. */
typedef enum ks_stat_kind {
    KS_STAT_UNKNOWN = 0, /* not known: read, estimated only when named */
    KS_STAT_COUNT = 1,   /* a per-kernel count: summed */
    KS_STAT_RUNNING = 2, /* a running total over the simulator process: a
                          * launch's value is its difference from the
                          * kernel before it in the same process (the
                          * results hold the differences) */
    KS_STAT_RATE = 3,    /* a ratio or rate: never summed; the ratio of two
                          * estimated totals where its parts are known */
    KS_STAT_OTHER = 4    /* known not to add up: extremes, averages,
                          * attributes, per-channel tables */
} ks_stat_kind;

typedef struct ks_stat_info {
    ks_stat_kind kind;
    const char *numerator, *denominator; /* a rate's parts (NULL: unknown) */
    unsigned shown; /* its row in estimate's default output (1..), 0: not shown */
} ks_stat_info;

/* The kind of a statistic by its name (GPGPU-Sim / Accel-Sim, MacSim,
 * get_stats.py, and the rates estimate derives: ipc, dram_reads_per_cycle). */
ks_stat_info ks_stat_info_of(const char *name);
/* The names estimate shows by default, in order (NULL-terminated). */
const char *const *ks_stat_shown(void);
/* "count", "running total", "rate", "not additive", "unknown". */
const char *ks_stat_kind_name(ks_stat_kind k);

/* Values of metrics per plan id, gathered from simulator logs, CSVs and run
 * folders: values[metric][row], NAN where a source did not report a metric
 * for that launch. */
typedef struct ks_results {
    size_t metric_count, metric_capacity;
    char **metrics;
    double **values;
    /* per metric, NULL until a count above 2^53 is read for it: per row,
     * the count exactly where the double rounds it, else 0 (the double is
     * the value); read with ks_results_count */
    uint64_t **wholes;
    /* per metric, what kind of number it is as read (ks_stat_kind): the
     * statistic's kind by name; a column of a results CSV or of values
     * given in memory whose name is not known is a per-launch count, as
     * those formats declare; a running total whose differences fell below
     * 0 in a log (not a running total there) is unknown */
    unsigned char *kinds;
    size_t row_count, row_capacity;
    uint64_t *ids;       /* plan ids (0-based launch order) */
    uint32_t *source;    /* index into sources: where each row came from */
    long *source_line;   /* line of the block or row in that source */
    size_t source_count;
    char **sources;
    char **source_warmup; /* per source: how its values were simulated ("none",
                           * "self", ...; "" when the source does not say) */
    size_t warmup_blocks; /* kernels read and left out as warm-up */
    struct ks_results_index *index; /* id -> row (private) */
    /* launches whose kernel name, or grid and block, the results gave but
     * nothing could check (no profile, and a plan that records no names or
     * an id it did not sample): for the caller to say so */
    size_t unchecked_names, unchecked_dims;
    /* what was read and left out, and why ("" when nothing): a running
     * total that fell in a log, whose values there are dropped, for the
     * caller to say */
    char dropped[1024];
} ks_results;

/* How a simulator's kernel_launch_uid (1-based, in the order the simulator
 * launched the kernels it was given) becomes a plan id. */
typedef enum ks_uid_mode {
    KS_UID_SAMPLED = 0, /* uid k = the k-th sampled id, ascending: what
                         * simulating `ksample export --to accelsim` gives */
    KS_UID_BASE = 1,    /* plan id = uid - uid_base (1: the whole program
                         * was simulated) */
    KS_UID_MAP = 2,     /* a weights.csv written by the accelsim exporter */
    KS_UID_TRACE = 3    /* the launch whose trace file (Accel-Sim) or kernel
                         * folder (MacSim) the log names, in `traces` */
} ks_uid_mode;

/* Which kernels of a simulator run are results. */
typedef enum ks_measured_mode {
    KS_MEASURED_ALL = 0, /* every kernel the simulator reports */
    KS_MEASURED_LAST = 1 /* only the last kernel of each simulator run (one
                          * process, or one run of a log of several): the
                          * ones before it warmed it up */
} ks_measured_mode;

typedef enum ks_concurrent_mode {
    KS_CONCURRENT_REFUSE = 0, /* a block listing several uids is an error */
    KS_CONCURRENT_SPLIT = 1   /* its values are shared equally by its uids,
                               * and a uid's blocks add up */
} ks_concurrent_mode;

typedef struct ks_results_options {
    ks_uid_mode uid_mode;
    int64_t uid_base;
    const char *uid_map; /* KS_UID_MAP: weights.csv */
    ks_concurrent_mode concurrent;
    const char *plan_xxh128; /* run folders: the manifest must name this plan */
    /* the trace folder the simulator ran from: KS_UID_TRACE maps by it, and
     * every mode checks the kernel names a log gives against it */
    const char *traces;
    ks_measured_mode measured;
    const char *config; /* get_stats.py CSV: its column (needed when it has several) */
    const char *app;    /* get_stats.py CSV: its "<app>/<args>" (when several) */
    const char *warmup; /* recorded with the values of files: how they were
                         * simulated (a run folder's manifest says it itself) */
    /* the plan's profile: every reported kernel name, grid and block is
     * checked against its launch (ks_plan_check_launch); NULL: against what
     * the plan records */
    const ks_profile *profile;
} ks_results_options;

void ks_results_init(ks_results *r);
void ks_results_free(ks_results *r);
void ks_results_options_init(ks_results_options *o);
/* Adds what path holds: an Accel-Sim / GPGPU-Sim log (plain or compressed),
 * a MacSim log (per-launch "cycles"), the CSV of Accel-Sim's get_stats.py
 * (-k -K), a CSV "id,<metric>...", or a run folder (manifest.json and jobs/
 * with sim.log and status each).  Cumulative gpu_tot_* statistics are
 * ignored.  A launch reported twice is an error.  plan may be NULL with
 * KS_UID_TRACE and KS_UID_BASE (launch ids of the whole program). */
ks_status ks_results_read(const char *path, const ks_plan *plan, const ks_results_options *opt,
                          ks_results *r, ks_error *err);
/* What a results path holds, by its content. */
typedef enum ks_results_kind {
    KS_RESULTS_UNREADABLE = -1, /* err says why */
    KS_RESULTS_UNKNOWN = 0,
    KS_RESULTS_ACCELSIM_LOG,
    KS_RESULTS_MACSIM_LOG,
    KS_RESULTS_GETSTATS,
    KS_RESULTS_CSV,
    KS_RESULTS_RUN_FOLDER
} ks_results_kind;
ks_results_kind ks_results_detect(const char *path, ks_error *err);
/* How the values were simulated: every source's warm-up mode ("none",
 * "self", ...), "mixed" when they differ, "unknown" when none says. */
const char *ks_results_warmup(const ks_results *r);
/* KS_ERR_FORMAT at the source and line of the first row whose id is not
 * one of the plan's launches (ks_estimate_compute checks it first). */
ks_status ks_results_check_plan(const ks_results *r, const ks_plan *plan, ks_error *err);
/* Index of a metric, or -1; row of a plan id, or -1. */
long ks_results_metric(const ks_results *r, const char *name);
long ks_results_row(const ks_results *r, uint64_t id);
/* Adds values[i] of metric for launch ids[i], i < n, from a source called
 * `source` (values given in memory, e.g. by the Python package; errors name
 * it, with the 1-based position in the arrays as the line).  A launch given
 * twice for one metric, or by two sources, and a value that is not a finite
 * number are refused. */
ks_status ks_results_add(ks_results *r, const char *source, const char *metric,
                         const uint64_t *ids, const double *values, size_t n, ks_error *err);
/* The same for counts (integers kept exactly, also above 2^53). */
ks_status ks_results_add_counts(ks_results *r, const char *source, const char *metric,
                                const uint64_t *ids, const uint64_t *counts, size_t n,
                                ks_error *err);
/* Whether the value of metric m at row is a whole number, and which, exactly
 * (a count above 2^53 as it was read, not its double). */
bool ks_results_count(const ks_results *r, size_t m, size_t row, uint64_t *u);

/* A stratum with one simulated launch has no sample variance. */
typedef enum ks_single_mode {
    KS_SINGLE_COLLAPSE = 0,   /* pool it with the nearest stratum of its group
                               * (collapsed strata: conservative) */
    KS_SINGLE_PROFILE_CV = 1, /* s = the profile's CV of the stratum x its value */
    KS_SINGLE_CALIBRATE = 2,  /* every stratum's spread is the profile's, in
                               * the values' units, times one factor the
                               * replicated strata measure (the calibrated
                               * profile model, variance.c) */
    KS_SINGLE_PLAN = 3        /* the default: the plan's own model, calibrate
                               * for a plan of ROOT's calibrated design
                               * (--replicate), else collapse */
} ks_single_mode;
/* "calibrate", "collapse", "profile-cv" or "plan". */
const char *ks_single_mode_name(ks_single_mode mode);
/* The model KS_SINGLE_PLAN stands for with this plan (other modes as
 * they are). */
ks_single_mode ks_single_mode_of(const ks_plan *plan, ks_single_mode mode);

/* Estimate and variance of the total of a metric whose values at the plan's
 * samples are y[0..sample_count) (Cochran ch. 5: stratified, finite-population
 * correction when drawn without replacement), and the variance estimate's
 * Satterthwaite degrees of freedom (INFINITY when it rests on the profile
 * alone).  *single counts the strata of one launch whose variance was
 * obtained by `mode`.  df and single may be NULL. */
ks_status ks_plan_total_variance(const ks_plan *plan, const double *y, ks_single_mode mode,
                                 double *estimate, double *variance, double *df, size_t *single,
                                 ks_error *err);
/* Ratio of totals R = Y / X and the variance of the ratio estimator
 * (linearised: d = y - R x). */
ks_status ks_plan_ratio_variance(const ks_plan *plan, const double *y, const double *x,
                                 ks_single_mode mode, double *ratio, double *variance, double *df,
                                 size_t *single, ks_error *err);
/* The interval a plan with a bound promises (its predicted_* fields): the
 * plan's own model (ks_single_mode_of: collapsed one-sample strata, or for
 * ROOT's --replicate design the calibrated profile model with its factor at
 * 1 and t at the replicated strata's degrees of freedom) applied to x, the
 * profile's values at the plan's samples, i.e. what `estimate` prints when
 * the simulated values equal x or follow it.  ks_select records it for every plan with a bound (x: the
 * durations the plan was drawn on); a plan without one is left as it is. */
ks_status ks_plan_predict(ks_plan *plan, const double *x, ks_error *err);
/* The variance and degrees of freedom that values following the profile
 * would give: x (the profile's values at the samples) scaled in each kernel
 * group to the level of y there (sum w y / sum w x over its samples), through
 * the same model; what the width of y's interval would be had they followed
 * it (with y = c x, exactly y's). */
ks_status ks_plan_profile_shaped_variance(const ks_plan *plan, const double *y, const double *x,
                                          ks_single_mode mode, double *variance, double *df,
                                          ks_error *err);
/* A cold-start correction from a pilot (lib/estimate/pilot.c): y are the
 * cold (alone) values at the plan's samples, warm[i] the warm value of
 * sample i where the pilot measured it (NAN elsewhere; two or more needed).
 * Per kernel group, the ratio warm / cold of its pilot launches scales its
 * part of the estimate (the pooled ratio where a group has none); the
 * variance adds the ratios' own uncertainty. */
typedef struct ks_pilot_estimate {
    double estimate, variance, df;
    size_t unmeasured;     /* strata whose spread no simulated value measures */
    double ratio;          /* pooled warm / cold over the pilot */
    double ratio_rel_sd;   /* spread of the per-launch ratios (relative) */
    size_t pilot;          /* pilot launches */
    size_t groups_without_pilot;
    size_t single_strata;
} ks_pilot_estimate;
/* What a pilot (`estimate --pilot`) must be: results of two or more of the
 * plan's sampled launches and of nothing else; otherwise KS_ERR_FORMAT at
 * the offending row's source and line (ks_estimate_compute checks it). */
ks_status ks_pilot_check(const ks_plan *plan, const ks_results *pilot, ks_error *err);

/* The profile as auxiliary information (lib/estimate/auxiliary.c; Cochran,
 * Sampling Techniques, ch. 6-7; Sarndal, Swensson and Wretman, ch. 6-7): x is
 * known for every launch (the profiled time the plan was drawn on, or another
 * profile column), so each cluster's total X_h is known, and an estimator
 * that uses the simulated y's relation to x pays only for y's spread about
 * that relation. */
typedef enum ks_estimator {
    KS_ESTIMATOR_PLAIN = 0,      /* sum w y */
    KS_ESTIMATOR_RATIO = 1,      /* R X, R = sum w y / sum w x (bias-corrected) */
    KS_ESTIMATOR_REGRESSION = 2, /* sum w y + a (N - sum w) + b (X - sum w x) */
    KS_ESTIMATOR_AUTO = 3        /* per fit group, whichever of the three has the
                                  * least estimated variance (plain unless the
                                  * samples show y following x) */
} ks_estimator;

/* Which strata share one fitted ratio or line. */
typedef enum ks_estimator_fit {
    KS_FIT_KERNEL = 0,  /* the strata of one kernel group (or pool): combined
                         * within a kernel */
    KS_FIT_STRATUM = 1, /* each stratum with two or more samples on its own
                         * (the separate estimator); the others of a kernel
                         * group together */
    KS_FIT_ALL = 2      /* every stratum together (the combined estimator) */
} ks_estimator_fit;

/* Names as the options spell them ("plain", "ratio", "regression", "auto";
 * "kernel", "stratum", "all"); parsing returns -1 for an unknown name. */
const char *ks_estimator_name(ks_estimator e);
int ks_estimator_parse(const char *name);
const char *ks_estimator_fit_name(ks_estimator_fit f);
int ks_estimator_fit_parse(const char *name);

typedef struct ks_auxiliary {
    const double *x;     /* per sample of the plan: the auxiliary value */
    const double *total; /* per cluster: X_h, its sum over the cluster's launches */
} ks_auxiliary;

typedef struct ks_aux_estimate {
    double estimate, variance, df;
    size_t single_strata;
    size_t unmeasured;    /* strata whose spread no simulated value measures */
    size_t fits;          /* fit groups */
    size_t ratio, regression, plain; /* fit groups estimated each way */
    size_t unstable;      /* fit groups whose y did not follow x (their ratio
                           * residuals spread as much as y itself): plain there */
    size_t biased;        /* fit groups whose ratio was refused: the ratio's
                           * O(1/n) bias, estimated, is above its standard
                           * error (plain there) */
    size_t departed;      /* fit groups whose ratio or line total departed
                           * from their plain total by more than the
                           * difference's variance allows: the excess,
                           * squared, is in the variance (a mean squared
                           * error) */
    char departed_labels[256]; /* their kernel names, comma-separated */
    double bias;          /* the ratio estimator's first-order bias removed
                           * (sum over fit groups, in y's units) */
    double plain_estimate, plain_variance, plain_df; /* the plain estimator's */
    char unstable_labels[256]; /* the unstable fit groups' kernel labels, ", "
                                * between them, cut short when long */
} ks_aux_estimate;

/* y: values at the plan's samples.  residual (per sample, may be NULL): y
 * minus the fitted ratio or line, what the variance is made of (y itself
 * where plain), for refine's sizing.  gweight (per sample, may be NULL):
 * the factor g_i with estimate = sum g_i w_i y_i. */
ks_status ks_plan_aux_estimate(const ks_plan *plan, const double *y, const ks_auxiliary *aux,
                               ks_estimator estimator, ks_estimator_fit fit,
                               ks_single_mode single, ks_aux_estimate *out, double *residual,
                               double *gweight, ks_error *err);
/* The auxiliary of a plan from its profile: x per sample (sample_count) and
 * x_total per cluster (cluster_count), of the launches' durations (metric
 * NULL or "duration": the totals are the clusters' own size x mean_ns) or
 * of a metric column (cluster members recovered as refine does: kernel
 * group or pool, duration range). */
ks_status ks_plan_auxiliary(const ks_plan *plan, const ks_profile *p, const char *metric,
                            double *x, double *x_total, ks_error *err);
/* The cold-start correction of ks_pilot_estimate: y are the cold (alone)
 * values at the plan's samples, warm[i] the warm value of sample i where the
 * pilot measured it (NAN elsewhere; two or more needed).  Per kernel group,
 * the ratio warm / cold of its pilot launches scales its part of the
 * estimate (the pooled ratio where a group has none); the variance adds the
 * ratios' own uncertainty.  The parts and their sampling variance come from
 * the plain estimator, or (aux not NULL) from ks_plan_aux_estimate on the
 * corrected values (*aux_out, may be NULL, says what it did). */
ks_status ks_plan_pilot_corrected(const ks_plan *plan, const double *y, const double *warm,
                                  ks_single_mode single, ks_pilot_estimate *out, ks_error *err);
ks_status ks_plan_pilot_corrected_aux(const ks_plan *plan, const double *y, const double *warm,
                                      const ks_auxiliary *aux, ks_estimator estimator,
                                      ks_estimator_fit fit, ks_single_mode single,
                                      ks_pilot_estimate *out, ks_aux_estimate *aux_out,
                                      ks_error *err);
/* What an estimate's interval stands for (lib/estimate/claim.c). */
typedef enum ks_claim {
    KS_CLAIM_FULL_RUN = 0, /* the full run's total: values of a whole-program
                            * simulation ("context"), or corrected by a pilot
                            * whose reference is */
    KS_CLAIM_VALUES = 1,   /* the total of the values as simulated only: cold
                            * (alone) or warmed values, whose bias against a
                            * full run the interval does not contain */
    KS_CLAIM_NONE = 2      /* no interval: the plan's launches were chosen, not
                            * drawn at random */
} ks_claim;
/* warmup: how the values were simulated ("context", "none", a warm-up mode,
 * "unknown"; NULL: "context"); *why (may be NULL) says why when not
 * KS_CLAIM_FULL_RUN. */
ks_claim ks_interval_claim(const ks_plan *plan, const char *warmup, const char **why);

/* Whether a pooled plan's (root --pool) interval stands: every pool of
 * several kernels has samples of two or more of them, whose values follow
 * the profile alike (their ratios sum y / sum x within 10 % of each other);
 * p: the plan's profile (NULL: it does not stand); y at the plan's samples.
 * *holds is true for a plan without pools; why says why not. */
ks_status ks_pool_check(const ks_plan *plan, const ks_profile *p, const double *y, bool *holds,
                        char *why, size_t why_size, ks_error *err);

/* Whether an interval from values y at the plan's samples stands beside
 * its claim: ks_pool_check, and no kernel the profile gives one value for
 * every launch of while its simulated values differ. */
ks_status ks_interval_check(const ks_plan *plan, const ks_profile *p, const double *y,
                            bool *holds, char *why, size_t why_size, ks_error *err);

/* Quantile p of Student's t with df degrees of freedom (the normal's for
 * df = INFINITY): intervals use t at the variance's degrees of freedom, so
 * that a plan of few samples per cluster is not promised 95 % it does not
 * have. */
double ks_student_t_quantile(double p, double df);

typedef struct ks_metric_estimate {
    char name[160];
    int is_ratio;       /* a rate: the ratio of two estimated totals */
    int kind;           /* ks_stat_kind of the metric (a rate's: KS_STAT_RATE) */
    int shown;          /* one of the rows estimate prints by default */
    int kind_assumed;   /* of unknown kind, summed because it was asked for by name */
    double estimate, variance, ci_low, ci_high, rel_halfwidth;
    double df;     /* of the variance; INFINITY: the normal quantile */
    int bound_met; /* 1, 0, or -1 when there is no bound */
    size_t single_strata;
    size_t pilot;       /* corrected by this many pilot launches (0: not) */
    double pilot_ratio; /* the pilot's pooled warm / cold */
    int estimator;      /* the ks_estimator asked for (plain for ratios of totals) */
    ks_aux_estimate aux; /* what it did, when not plain */
    double profile_variance; /* the variance (plain, the same model) had the
                              * values followed the profile the plan was drawn
                              * on (ks_plan_profile_shaped_variance); the rest
                              * of `variance` comes from their disagreeing
                              * with it (totals; NAN for rates and without
                              * the profile) */
    double profile_rel_halfwidth; /* the interval's relative half-width then
                                   * (t at its own degrees of freedom) */
    size_t unmeasured;  /* strata whose spread no simulated value measures:
                         * then there is no interval (ci_low, ci_high NAN) */
    int claim;          /* ks_claim: what the interval stands for (the caller's
                         * warm-up is estimate_options.warmup) */
    char claim_why[320]; /* why, when not KS_CLAIM_FULL_RUN */
    /* exact: 1 for a total the traces give (estimate = ci_low = ci_high,
     * variance 0), 2 for a rate of two such totals; a rate with one exact
     * part has exact 0 and exact_part 1 (numerator) or 2 (denominator).
     * sampled_estimate: what the samples alone estimated (NAN when not
     * exact).  known_note: why a metric the traces hold was estimated
     * ("" when it was not) */
    int exact, exact_part;
    double sampled_estimate;
    char known_note[240];
    /* Where the variance is (totals of the plain estimator; NAN and 0 for
     * the other rows): borrowed_share, the share of the variance in the
     * strata of kernel groups that have no stratum of two or more simulated
     * launches (nor a census of two or more), whose spread is therefore
     * borrowed from other strata (the calibrated model's factor measured on
     * other kernels, or a neighbouring stratum's); and the kernel groups
     * holding the most of it, largest first (top_own: whether the group has
     * such a stratum of its own) */
    double borrowed_share;
    size_t top_count;
    uint32_t top_group[3];
    double top_share[3];
    int top_own[3];
} ks_metric_estimate;

typedef struct ks_estimate_options {
    ks_single_mode single;
    double epsilon;            /* 0: the plan's bound */
    /* the metrics: those named (metric_count > 0: a count, a running total,
     * a rate whose parts are there, or, named, one of unknown kind, summed;
     * a rate without parts and what does not add up are refused), else
     * every one (all: each count and running total reported for every
     * sample, each rate whose parts are, ipc and the DRAM rates derived),
     * else the default rows (ks_stat_shown(): cycles, instructions, ipc,
     * the cache and DRAM counts and rates, then the per-launch counts of
     * results CSVs and of values given in memory, 15 rows at most; counts
     * that are 0 at every sample left out) */
    size_t metric_count;
    const char *const *metrics;
    int all;
    size_t ratio_count;        /* NAME=NUM/DEN, each a rate of two totals */
    const char *const *ratios;
    /* warm values of some sampled launches whose values in the results are
     * cold (alone): each metric the pilot has for two or more samples is
     * corrected by ks_plan_pilot_corrected (NULL: none) */
    const ks_results *pilot;
    /* the estimator of totals and what it fits over; aux: the auxiliary
     * variable at the plan's samples and per cluster (needed unless plain) */
    ks_estimator estimator;
    ks_estimator_fit fit;
    const ks_auxiliary *aux;
    /* how the values were simulated ("context", "none", a warm-up mode,
     * "unknown"; NULL: "context"), for each row's claim (ks_interval_claim) */
    const char *warmup;
    /* the plan's profile (may be NULL): a pooled plan's interval is checked
     * against it (ks_pool_check) */
    const ks_profile *profile;
    /* counts the traces give for every launch (NULL: none): a metric they
     * hold is the exact total when every sample's value is its count, and a
     * rate of it over an estimated total takes its interval from that
     * total's alone */
    const struct ks_known *known;
} ks_estimate_options;

typedef struct ks_estimate {
    size_t count;
    ks_metric_estimate *metrics;
    double z, bound;
    size_t skipped; /* metrics not reported for every sample (not asked for) */
    size_t not_additive; /* rates without parts and statistics that do not add
                          * up (never estimated) */
    size_t unknown;      /* statistics of unknown kind (estimated only when named) */
    size_t zero;         /* default rows left out: 0 at every sample */
    size_t more;         /* other estimable metrics not in the default rows
                          * (all = 1 shows them) */
} ks_estimate;

void ks_estimate_options_init(ks_estimate_options *o);
/* Every sample of the plan must have a row in r; the first missing one is
 * named in the error. */
ks_status ks_estimate_compute(const ks_plan *plan, const ks_results *r,
                              const ks_estimate_options *opt, ks_estimate *out, ks_error *err);
void ks_estimate_free(ks_estimate *e);

/* ------------------------------------------------ scoring against a simulator */

/* Plans scored exactly against a real simulator's recorded outputs
 * (lib/score/score.c; `ksample score`).  Per-launch values are indexed by
 * launch id (the profile's launch order), NAN where a set has no value. */
typedef struct ks_score_pilot {
    size_t per_group;          /* pilot launches per kernel group, from the plan's samples */
    const double *reference;   /* per launch: the warm value the pilot measures */
    const double *reference_cost; /* per launch: cycles to measure it (NULL: the value) */
    const char *reference_warmup; /* how the reference was simulated (NULL: "context") */
} ks_score_pilot;

typedef struct ks_score_set {
    const char *name;          /* "context", "alone", "self", ... */
    const double *value;       /* per launch */
    const double *fallback;    /* used where value is NAN (may be NULL) */
    const double *cost;        /* per launch: cycles simulated for the value, warm-up
                                * included (NULL: the value itself) */
    const double *fallback_cost;
    const ks_score_pilot *pilot; /* not NULL: the set corrected by a pilot */
    const char *warmup;        /* how the values were simulated: "context" (in a full
                                * run), "none" (alone), a warm-up mode (NULL:
                                * "context"); what ks_interval_claim judges */
} ks_score_set;

typedef struct ks_score_options {
    double truth_total;        /* the full run's total */
    const ks_score_set *sets;
    size_t set_count;
    unsigned seeds;            /* plans per method: seeds seed, seed+1, ... (default 100) */
    double confidence;         /* of the intervals */
    ks_single_mode single;
    ks_plan_cache *cache;      /* shared by the methods (may be NULL) */
    /* estimators: each set is scored with each (sets x estimators columns,
     * set-major); none given: the plain one.  The auxiliary is the profile's
     * duration (what the plans are drawn from). */
    const ks_estimator *estimators;
    size_t estimator_count;
    ks_estimator_fit fit;
    /* two-phase: while an estimate's interval misses refine_epsilon (0: the
     * plan's bound), refine (sizing for the column's estimator, from the
     * values simulated so far), simulate the new launches and estimate
     * again, at most `rounds` times */
    unsigned rounds;
    double refine_epsilon;
} ks_score_options;

typedef struct ks_score_estimate {
    double estimate, ci_low, ci_high;
    double error;   /* signed, relative to the truth */
    double cost;    /* cycles simulated */
    int covered;    /* the interval holds the truth */
    size_t pilot;   /* pilot launches (corrected sets) */
    size_t samples; /* distinct launches simulated (after refine rounds) */
    unsigned rounds; /* refine rounds taken */
    int met;        /* the interval's relative half-width is within the bound */
    double rel_halfwidth;
    int claim;      /* ks_claim: what the interval stands for */
    char claim_why[320];
} ks_score_estimate;

typedef struct ks_score_row {
    uint64_t seed;
    size_t samples;              /* distinct sampled launches */
    ks_score_estimate *sets;     /* one per set */
} ks_score_row;

typedef struct ks_score_summary {
    double samples_mean, pilot_mean;
    double met;                  /* plans whose final interval is within the bound */
    double halfwidth_mean;       /* mean relative half-width of the intervals */
    double samples_max;
    double speedup_hmean;        /* truth / cost, harmonic mean over the plans */
    double error_mean, error_signed_mean, error_max; /* relative */
    double coverage;             /* plans whose interval holds the truth */
    double within_bound;         /* plans whose error is within their bound; NAN: no bound */
    double met_true;             /* of the plans whose interval says the bound is met,
                                  * those whose error is within it; NAN: none says so */
    double met_power;            /* of the plans whose error is within half the bound,
                                  * those whose interval says it is met; NAN: none */
    double within_half;          /* plans whose error is within half the bound */
    double error_p95;            /* the 95th percentile of |error| (nearest rank) */
    int claim;                   /* ks_claim of the column's intervals: the most
                                  * cautious of its plans' (none, then values) */
    double refused;              /* plans given no interval (KS_CLAIM_NONE) */
    double rounds_mean, rounds_max; /* refine rounds taken */
    char claim_why[320];         /* why, when not KS_CLAIM_FULL_RUN */
} ks_score_summary;

typedef struct ks_score_result {
    char method[32];
    double bound;                /* the plans' (0: none) */
    size_t row_count, set_count; /* set_count: columns, sets x estimators */
    ks_score_row *rows;
    ks_score_summary *summary;   /* one per column */
} ks_score_result;

void ks_score_options_init(ks_score_options *o);
ks_status ks_score(const ks_profile *p, const ks_params *params, const ks_score_options *o,
                   ks_score_result *out, ks_error *err);
void ks_score_result_free(ks_score_result *r);

/* ---------------------------------------------------------------- refine */

/* What the refined sizes promise, with the spread refine used. */
typedef struct ks_refine_result {
    double rel_halfwidth; /* predicted relative half-width of the interval */
    double t;             /* the quantile it used */
    double df;            /* its degrees of freedom (INFINITY: normal) */
    double variance;      /* the predicted variance of the total */
    double estimate;      /* the total the sizes were solved for */
    double now_rel_halfwidth; /* the interval estimate prints for these
                               * values on the plan as it is (INFINITY:
                               * none, some stratum's spread unmeasured) */
    int census;           /* every cluster is simulated whole: the estimate is exact */
    int met;              /* rel_halfwidth <= epsilon */
} ks_refine_result;

typedef struct ks_refine_options {
    double epsilon;          /* 0: the plan's bound */
    uint64_t seed;           /* for the extra draws; recorded */
    ks_single_mode single;
    const char *parent_path; /* recorded in the new plan with its digest */
    ks_refine_result *result; /* filled when not NULL */
    /* the estimator the sizes are for (the spread is that of its residuals;
     * recorded in the new plan as refine_estimator, refine_fit and
     * refine_auxiliary, the estimate's default); aux needed unless plain */
    ks_estimator estimator;
    ks_estimator_fit fit;
    const ks_auxiliary *aux;
    const char *aux_name; /* recorded; NULL: "duration" */
} ks_refine_options;

/* Re-solves the plan's allocation with the observed spread of y (values at
 * the plan's samples) in place of the profile's, keeps every sample and adds
 * the extra ones, drawn without replacement from the cluster members not yet
 * drawn (p: the plan's profile).  Clusters the solution would size beyond
 * their whole membership are taken whole and the rest re-solved, so that
 * the sizes meet the bound with the spread used (opt->result says what
 * they reach).  out is a new plan. */
ks_status ks_plan_refine(const ks_plan *plan, const ks_profile *p, const double *y,
                         const ks_refine_options *opt, ks_plan *out, ks_error *err);


/* ------------------------------------------------------------ GCL-Sampler */

/* GCL-Sampler (Wang et al., arXiv 2603.00551, 2026): one graph per launch
 * built from its instruction trace, a relational GCN trained by graph
 * contrastive learning, K-Means on the embeddings.  Graphs are built by the
 * builder in lib/methods/gcl/gcl.h from a trace stream; docs/methods.md says
 * which defaults come from the paper and which are this project's choices. */
typedef struct ks_gcl_options {
    /* trace graph: the part of each launch read (0 = no limit) */
    uint64_t max_blocks;         /* thread blocks of linear index < max_blocks (1) */
    uint32_t max_warps;          /* warps of id < max_warps in each block (4) */
    uint64_t max_insts_per_warp; /* instructions per warp (256) */
    int inverse_edges;           /* add the 4 inverse relations (1) */
    /* encoder: 3 RGCN layers input_dim -> hidden[0] -> hidden[1] -> hidden[2] */
    uint32_t input_dim;          /* 64 */
    uint32_t hidden[3];          /* 128 128 256 */
    uint32_t proj[2];            /* projection head 128 64 */
    uint32_t bases;              /* basis matrices shared by the relations (4) */
    double dropout;              /* after each layer but the last (0.1) */
    uint32_t max_vocab;          /* opcode tokens kept, most frequent first (4096) */
    /* contrastive training */
    double node_drop, edge_drop; /* augmentation: fraction dropped (0.15, 0.15) */
    double feature_noise;        /* Gaussian sigma added to input features (0.01) */
    double temperature;          /* InfoNCE temperature (0.05) */
    double learning_rate;        /* Adam (1e-3; betas 0.9, 0.999) */
    uint32_t epochs;             /* 30 */
    uint32_t batch;              /* graphs per mini-batch (16) */
    uint32_t max_train_graphs;   /* distinct graphs trained on, chosen with the seed (0: all) */
    uint64_t seed;
    /* clustering */
    uint32_t k_max;              /* K tried in 2..k_max (20) */
    double tie_tolerance;        /* smallest K within this of the best silhouette (0.01) */
    double launch_weight;        /* weight of log2 blocks and log2 instructions (1) */
    uint32_t silhouette_cap;     /* exact silhouette up to this many launches (2000) */
} ks_gcl_options;

void ks_gcl_options_init(ks_gcl_options *o);

typedef struct ks_gcl_graph ks_gcl_graph; /* one launch (lib/methods/gcl/gcl.h) */
typedef struct ks_gcl_model ks_gcl_model;
void ks_gcl_graph_free(ks_gcl_graph *g);

/* Called after each epoch: mean loss over its mini-batches, seconds since the
 * start of training. */
typedef void (*ks_gcl_progress_fn)(void *ctx, unsigned epoch, double loss, double seconds);

/* Trains a model on graphs[0..n) (any number of workloads together).  The
 * same options and graphs give the same model bytes. */
/* GCL options from the gcl method's parameters (its table: --epochs,
 * --learning-rate, --max-warps, ...) as set in params. */
ks_status ks_gcl_options_from_params(const ks_params *params, ks_gcl_options *o,
                                     ks_error *err);
/* The trace graph of every kernel launch of an Accel-Sim trace folder, in
 * launch order, bounded by o's blocks, warps and instructions per warp. */
ks_status ks_gcl_graphs_read(const char *dir, const ks_gcl_options *o, ks_gcl_graph ***graphs,
                             size_t *count, ks_error *err);
void ks_gcl_graphs_free(ks_gcl_graph **graphs, size_t n);
/* The kernel name of the launch a graph was built from. */
const char *ks_gcl_graph_name(const ks_gcl_graph *g);
ks_status ks_gcl_train(ks_gcl_graph *const *graphs, size_t n, const ks_gcl_options *o,
                       ks_gcl_progress_fn progress, void *ctx, ks_gcl_model **out,
                       ks_error *err);
void ks_gcl_model_free(ks_gcl_model *m);
const ks_gcl_options *ks_gcl_model_options(const ks_gcl_model *m);
size_t ks_gcl_embedding_dim(const ks_gcl_model *m); /* hidden[2] */
/* Embeddings of the un-augmented graphs: emb holds n x ks_gcl_embedding_dim. */
ks_status ks_gcl_embed(const ks_gcl_model *m, ks_gcl_graph *const *graphs, size_t n,
                       double *emb, ks_error *err);
/* Versioned binary model file (.ksm): options, vocabulary, weights, checksum.
 * Saving is atomic; loading refuses another version, a truncated or a
 * corrupt file with a message naming it. */
ks_status ks_gcl_model_save(const ks_gcl_model *m, const char *path, ks_error *err);
ks_status ks_gcl_model_load(const char *path, ks_gcl_model **out, ks_error *err);
ks_status ks_gcl_model_parse(const void *data, size_t size, const char *name,
                             ks_gcl_model **out, ks_error *err);

/* The clustering: cluster[i] for each launch, numbered by first appearance;
 * representative[c] = first launch of cluster c, weight[c] = its size. */
typedef struct ks_gcl_selection {
    size_t n, k;
    uint32_t *cluster;          /* n */
    uint64_t *representative;   /* k, increasing */
    double *weight;             /* k */
    double silhouette;          /* of the chosen K (0 when K = 1) */
} ks_gcl_selection;

/* Embeds the graphs and clusters them (K by silhouette; near-tie -> smaller
 * K; launch-level features joined).  o NULL: the model's options. */
ks_status ks_gcl_select(const ks_gcl_model *m, ks_gcl_graph *const *graphs, size_t n,
                        const ks_gcl_options *o, ks_gcl_selection *out, ks_error *err);
/* The clustering step alone on given embeddings (n x dim) and per-launch
 * log2 thread blocks / log2 warp instructions (n x 2, or NULL). */
ks_status ks_gcl_cluster(const double *emb, size_t n, size_t dim, const double *launch,
                         const ks_gcl_options *o, ks_gcl_selection *out, ks_error *err);
void ks_gcl_selection_free(ks_gcl_selection *s);

/* GCL-Sampler over whole trace folders (lib/methods/gcl/corpus.c), with
 * memory bounded by the training set rather than the launch count: opening
 * builds every launch's graph once, keeping only which distinct graph it is
 * (launches whose graphs have the same content share one); training builds
 * again the distinct graphs it trains on (at most o->max_train_graphs, chosen
 * with o->seed), embedding each distinct graph once.  The model, embeddings
 * and clusters equal ks_gcl_train and ks_gcl_select on all the graphs at once. */
typedef struct ks_gcl_corpus ks_gcl_corpus;
ks_status ks_gcl_corpus_open(const char *const *dirs, size_t n_dirs, const ks_gcl_options *o,
                             ks_gcl_corpus **out, ks_error *err);
void ks_gcl_corpus_free(ks_gcl_corpus *c);
size_t ks_gcl_corpus_launches(const ks_gcl_corpus *c);
size_t ks_gcl_corpus_distinct(const ks_gcl_corpus *c); /* distinct graphs */
const char *ks_gcl_corpus_name(const ks_gcl_corpus *c, size_t i); /* launch i's kernel */
ks_status ks_gcl_corpus_train(ks_gcl_corpus *c, ks_gcl_progress_fn progress, void *ctx,
                              ks_gcl_model **out, ks_error *err);
/* emb: launches x ks_gcl_embedding_dim(m) */
ks_status ks_gcl_corpus_embed(ks_gcl_corpus *c, const ks_gcl_model *m, double *emb,
                              ks_error *err);
/* As ks_gcl_select; o NULL: the model's options. */
ks_status ks_gcl_corpus_select(ks_gcl_corpus *c, const ks_gcl_model *m, const ks_gcl_options *o,
                               ks_gcl_selection *out, ks_error *err);

/* ------------------------------------ paired comparisons (estimate --versus) */

/* B's total over A's of one quantity, both measured at the same launches of
 * one plan (the same sampled launches simulated on two configurations):
 * the ratio estimator of two stratified totals, R = Y_B / Y_A (Cochran,
 * Sampling Techniques, 3rd ed., 6.11 and 5A.15), whose variance is the
 * stratified variance of the linearised residuals d_i = y_Bi - R y_Ai in
 * the plan's strata over Y_A^2: the one variance model (finite-population
 * correction, the rule for one-sample strata that residuals follow) with t
 * at its degrees of freedom, at the plan's confidence.  What the two
 * configurations have in common (which launches are slow) cancels in d, so
 * the ratio is measured far more tightly than either total (Luo and John,
 * IEEE Computer Architecture Letters 2004).  For a rate of two totals the
 * ratio of rates (N_B / D_B) / (N_A / D_A), linearised the same way. */
typedef struct ks_versus_row {
    char name[160];
    int is_rate;          /* a ratio of rates, not of totals */
    int kind;             /* ks_stat_kind of the metric (KS_STAT_RATE for rates) */
    int shown;            /* one of the rows estimate prints by default */
    double estimate_a, estimate_b;           /* each side's estimated total (rate) */
    double rel_halfwidth_a, rel_halfwidth_b; /* each side's own interval, relative
                                              * (NAN where it has none) */
    double ratio, variance, df; /* B / A, the variance of the ratio, its degrees
                                 * of freedom (INFINITY: the normal quantile) */
    double ci_low, ci_high, rel_halfwidth; /* NAN when there is no interval */
    int bound_met;        /* rel_halfwidth within the bound: 1, 0, -1 (no bound or
                           * no interval) */
    size_t single_strata; /* one-sample strata of the residuals */
    size_t unmeasured;    /* strata whose spread nothing measures */
    int claim;            /* ks_claim: the weaker of the two sides' */
    char claim_why[320];  /* why, when not KS_CLAIM_FULL_RUN */
} ks_versus_row;

typedef struct ks_versus {
    size_t count;
    ks_versus_row *rows;
    size_t launches;  /* sampled launches paired */
    size_t one_side;  /* metrics estimated on one side only, left out */
    size_t zero_a;    /* metrics whose total (or rate's parts) on A is 0: no ratio */
    double bound;     /* the bound checked (0: none) */
} ks_versus;

/* B over A from values at the plan's samples, a[i] and b[i] of sample i
 * (x: the profile's values at the samples, NULL when not known: only for
 * the totals' own intervals, which the calibrated model measures against
 * it); the claim is the plan's (as for values of a full run) or none where
 * some stratum's spread is unmeasured. */
ks_status ks_plan_versus(const ks_plan *plan, const double *a, const double *b, const double *x,
                         ks_single_mode single, ks_versus_row *out, ks_error *err);
/* Every metric ks_estimate_compute(plan, a, opt) estimates that b has too
 * (opt: the metrics, ratios, the one-sample rule, the bound, the profile;
 * the plain estimator only, no pilot), each B over A.  opt->warmup is A's,
 * warmup_b B's (NULL: "context").  A sampled launch with results on one side only
 * is refused (KS_ERR_FORMAT naming it and where it was read); launches the
 * plan did not sample are left out, as estimate leaves them. */
ks_status ks_versus_compute(const ks_plan *plan, const ks_results *a, const ks_results *b,
                            const ks_estimate_options *opt, const char *warmup_b,
                            ks_versus *out, ks_error *err);
void ks_versus_free(ks_versus *v);

/* ------------------------------------------ known totals (lib/estimate/known.c) */

/* What a trace folder says exactly of every launch: the instruction counts
 * a simulator of those traces reports, under the simulator's names.
 * Accel-Sim traces: gpu_sim_insn and gpu_tot_sim_insn (thread
 * instructions: each line's active lanes), gpgpu_n_tot_w_icount (warp
 * instructions: the lines), counted by streaming
 * every trace; MacSim traces: INST_COUNT_TOT (each warp's records less one,
 * from trace_info.txt). */
enum { KS_KNOWN_METRICS = 5 };
typedef struct ks_known {
    char *traces;              /* the folder */
    const char *simulator;     /* "Accel-Sim" or "MacSim" */
    size_t launch_count;       /* launches of the folder's list, in order */
    size_t metric_count;
    const char *metrics[KS_KNOWN_METRICS];
    uint64_t *values[KS_KNOWN_METRICS]; /* per metric, per launch (may share) */
    uint64_t *owned[2];
    uint64_t bytes_read;       /* trace bytes streamed (0: all from the cache) */
    double seconds;            /* wall time of counting */
    size_t cached;             /* launches whose counts came from the cache */
} ks_known;

/* The counts of every launch of the trace folder traces.  cache (may be
 * NULL): a file of earlier counts, keyed by each trace file's name, size
 * and modification time; launches it vouches for are not streamed again,
 * and it is rewritten (atomically) when anything was counted.  A cache that
 * cannot be read or written is passed over, never an error.  expect (0:
 * any): the launches the caller needs; a folder of another count (a tracer
 * run of the sampled launches only) is not counted: launch_count is its
 * count and metric_count 0. */
ks_status ks_known_read(const char *traces, const char *cache, size_t expect, ks_known *out,
                        ks_error *err);
void ks_known_free(ks_known *k);
/* The index of metric name in k, or -1. */
long ks_known_metric(const ks_known *k, const char *name);

/* The exact total of known metric m over the plan's launches, given the
 * simulated values y at its samples (plan order).  *exact is false, and why
 * says why, when the counts cannot stand for the simulated values: a plan
 * of another launch count or drawn on a selection, launches left out of
 * the plan, or a sampled launch whose simulated value is not its trace's
 * count (other traces, or a simulator that counts otherwise). */
ks_status ks_known_total(const ks_known *k, long m, const ks_plan *plan, const double *y,
                         double *total, bool *exact, char *why, size_t why_size,
                         ks_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
