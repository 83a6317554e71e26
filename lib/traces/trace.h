/* lib/traces/trace.h - Accel-Sim / NVBit instruction traces (internal header) */
#ifndef KS_TRACE_H
#define KS_TRACE_H

#include "internal.h"

#define KS_TRACE_MAX_REGS 8
/* Register encoding: R0..R255 -> 0..255, RZ -> 255; UR0..UR63 -> 256+n (URZ -> 319);
 * P0..P7 -> 320+n (PT -> 327); UP0..UP7 -> 328+n (UPT -> 335); anything else -> 0xFFFF. */
uint16_t ks_trace_reg_parse(const char *text, size_t len);

typedef struct ks_trace_inst {
    uint32_t tb[3];      /* thread block index (x, y, z) */
    uint32_t warp;       /* warp id within the block */
    uint64_t pc;
    uint32_t mask;       /* active-lane mask */
    const char *opcode;  /* full opcode text, e.g. "LDG.E.64.SYS": valid during the callback */
    uint8_t ndst, nsrc;
    uint16_t dst[KS_TRACE_MAX_REGS], src[KS_TRACE_MAX_REGS]; /* encoded registers */
    uint32_t mem_width;  /* bytes per lane; 0 = no memory access */
    uint32_t naddr;      /* decoded addresses, one per active lane (all address modes) */
    const uint64_t *addr;/* naddr addresses, valid during the callback */
    int has_imm;         /* tracer version 5 trailing immediate present */
    int64_t imm;
    long src_line;       /* v5 [line_num] column; -1 when absent */
} ks_trace_inst;

typedef struct ks_trace_kernel {   /* one kernel launch: its trace file's header */
    size_t index;          /* 0-based position among the KERNEL launches of the list */
    uint64_t kernel_id;    /* "-kernel id" of the header (the tracer's 1-based number) */
    char *name;            /* mangled name as in the header */
    uint32_t grid[3], block[3];
    uint32_t shmem, nregs, binary_version;
    int64_t stream;        /* "-cuda stream id", -1 when absent */
    int tracer_version;    /* 3, 4, 5 ...; 0 when unknown */
    char *path;            /* trace file path */
    uint64_t warp_insts;   /* warp-level dynamic instructions (filled by a full pass or stats.csv; 0 = unknown yet) */
} ks_trace_kernel;

typedef struct ks_trace_event {    /* one line of kernelslist(.g), in order */
    int is_kernel;         /* 0: a memory copy line (kept verbatim in text) */
    size_t kernel;         /* index into kernels when is_kernel */
    char *text;            /* the line as written */
} ks_trace_event;

typedef struct ks_trace_set ks_trace_set;  /* a trace folder */
ks_status ks_trace_set_open(const char *dir, ks_trace_set **out, ks_error *err);
void ks_trace_set_free(ks_trace_set *s);
size_t ks_trace_set_kernel_count(const ks_trace_set *s);
const ks_trace_kernel *ks_trace_set_kernel(const ks_trace_set *s, size_t i);
size_t ks_trace_set_event_count(const ks_trace_set *s);
const ks_trace_event *ks_trace_set_event(const ks_trace_set *s, size_t i);
/* Whether launch i's lines are grouped by block and warp (#BEGIN_TB, a
 * post-processed .traceg), as against a raw trace's interleaved lines. */
int ks_trace_set_grouped(const ks_trace_set *s, size_t i);

typedef struct ks_trace_filter {   /* what part of one launch to stream; 0 = no limit */
    uint64_t max_blocks;          /* only thread blocks with linear index < max_blocks */
    uint32_t max_warps;           /* only warps with id < max_warps within each kept block */
    uint64_t max_insts_per_warp;  /* stop a warp after this many instructions */
} ks_trace_filter;

typedef ks_status (*ks_trace_inst_fn)(void *ctx, const ks_trace_kernel *k,
                                      const ks_trace_inst *inst, ks_error *err);
/* Streams launch i's instructions in file order (constant memory whatever the file size).
 * With a filter that keeps at most 64 blocks (max_blocks), a post-processed
 * (.traceg) file, whose lines are grouped by block, is read only up to the
 * #END_TB of the last kept block: the rest is neither decoded nor checked. */
ks_status ks_trace_set_stream(ks_trace_set *s, size_t i, const ks_trace_filter *filter,
                              ks_trace_inst_fn fn, void *ctx, ks_error *err);

/* A copy of the post-processed trace at path written to out, the addresses
 * of each memory instruction whose opcode pick(ctx, opcode) takes mapped by
 * map(ctx, opcode, address, windows) and listed one per active lane (mode
 * 0); every other line as it is (trace_rewrite.c).  windows: the header's
 * shared and local memory base addresses (0 where absent).  *rewritten:
 * instructions rewritten. */
typedef uint64_t (*ks_trace_map_fn)(void *ctx, const char *opcode, uint64_t addr,
                                    const uint64_t windows[2]);
typedef bool (*ks_trace_pick_fn)(void *ctx, const char *opcode);
ks_status ks_trace_rewrite_addresses(const char *path, FILE *out, ks_trace_map_fn map,
                                     ks_trace_pick_fn pick, void *ctx, size_t *rewritten,
                                     ks_error *err);

/* A profile from a trace folder: one invocation per kernel launch in list
 * order (name, grid, block; duration 0), with metric columns
 * smsp__inst_executed.sum (warp-level instructions), launch__grid_size and
 * launch__thread_count.  Instruction counts come from stats.csv where it
 * vouches for a launch (see ks_trace_set_stats_usable), else from a full
 * streamed pass over its trace. */
ks_status ks_trace_set_profile(ks_trace_set *s, ks_profile **out, ks_error *err);

/* Basic-block vector of one launch (for Photon, MICRO'23): executions of each
 * basic block summed over the warps, blocks keyed by their start PC. */
typedef struct ks_trace_bbv { size_t count; uint64_t *block_pc; double *executions; } ks_trace_bbv; /* sorted by block_pc */
ks_status ks_trace_set_bbv(ks_trace_set *s, size_t i, ks_trace_bbv *out, uint64_t *warps, ks_error *err);
void ks_trace_bbv_free(ks_trace_bbv *b);

/* ---- additions beyond the agreed interface (new names only) ---- */

/* One row of the tracer's stats.csv, as written.  The tracer prints the
 * per-launch counters of a 32-bit unsigned with %d, so a launch of 2^31 or
 * more warp instructions shows a negative or wrapped number: kept here as
 * read (int64), judged by ks_trace_set_stats_usable. */
typedef struct ks_trace_stats_row {
    char *trace;              /* "kernel id" column: the trace file name, e.g. "kernel-1.trace" */
    char *name;               /* mangled kernel name */
    uint32_t grid[3], block[3];
    uint64_t blocks, threads;
    int64_t total_insts;      /* warp instructions the tracer counted (traced or not) */
    int64_t reported_insts;   /* of those, written to the trace */
} ks_trace_stats_row;

/* Rows of stats.csv in file order; 0 when the folder has none.  Rows cover
 * every launch the tracer saw, also those it did not trace. */
size_t ks_trace_set_stats_count(const ks_trace_set *s);
const ks_trace_stats_row *ks_trace_set_stats(const ks_trace_set *s, size_t i);
/* The stats.csv row of launch i (matched by trace file name), or NULL. */
const ks_trace_stats_row *ks_trace_set_kernel_stats(const ks_trace_set *s, size_t i);
/* Whether launch i's stats row can stand in for counting its trace: same
 * name, grid and block as the header, every counted instruction reported,
 * a count in [0, 2^31) as printed, and, for an uncompressed trace, a file
 * too small to hold 2^32 instruction lines.  The tracer's counter is 32-bit:
 * a launch of 2^32 or more warp instructions prints its count modulo 2^32,
 * which no check can see in a compressed trace; ks_trace_set_count_insts
 * gives the exact count. */
int ks_trace_set_stats_usable(const ks_trace_set *s, size_t i);
/* Counts launch i's warp instructions with a full streamed pass (ignores
 * stats.csv) and stores the count in its warp_insts. */
ks_status ks_trace_set_count_insts(ks_trace_set *s, size_t i, uint64_t *count, ks_error *err);

/* A launch's instruction counts, exact (trace_count.c): what GPGPU-Sim
 * counts when it simulates the trace. */
typedef struct ks_trace_counts {
    uint64_t warp_insts;   /* instruction lines, mask 0 included: gpgpu_n_tot_w_icount */
    uint64_t thread_insts; /* active lanes summed over the lines: gpu_sim_insn */
} ks_trace_counts;
/* Counts launch i with a full streamed pass (every line parsed and checked;
 * constant memory) and stores its warp count in its warp_insts. */
ks_status ks_trace_set_count(ks_trace_set *s, size_t i, ks_trace_counts *out, ks_error *err);

/* ---- MacSim NVBit trace folders (macsim_set.c) ---- */

typedef struct ks_macsim_launch {
    char *folder;            /* "Kernel12": the folder kernel_config.txt lists */
    char *path;              /* that folder below the list's folder */
    long line;               /* of its entry in kernel_config.txt */
    char *name;              /* kernel_names.txt's, or "kernel@0x<entry address><N warps>" */
    long names_line;         /* of its name in kernel_names.txt; 0 when none */
    bool has_dims;           /* grid and block from kernel_names.txt */
    uint32_t grid[3], block[3];
    uint64_t warps, blocks, warps_per_block, max_blocks;
    uint64_t insts;          /* warp-level instruction records (trace_info.txt) */
    uint64_t executed;       /* per warp its records less one, summed: what MacSim's
                              * INST_COUNT_TOT counts (its reader holds one record
                              * ahead, so a warp's last record ends it unexecuted) */
    uint64_t *warp_ids;      /* trace.txt's, ascending */
} ks_macsim_launch;

/* The number in a launch's folder name ("Kernel12": 12), or UINT64_MAX. */
uint64_t ks_macsim_folder_number(const char *folder);

typedef struct ks_macsim_set ks_macsim_set;
/* 90 when dir holds a kernel_config.txt that starts with "nvbit", else 0. */
int ks_macsim_dir_detect(const char *dir);
ks_status ks_macsim_set_open(const char *dir, ks_macsim_set **out, ks_error *err);
void ks_macsim_set_free(ks_macsim_set *s);
size_t ks_macsim_set_count(const ks_macsim_set *s);
const ks_macsim_launch *ks_macsim_set_launch(const ks_macsim_set *s, size_t i);
const char *ks_macsim_set_dir(const ks_macsim_set *s);    /* absolute */
const char *ks_macsim_set_config(const ks_macsim_set *s); /* its kernel_config.txt */
/* Basic-block vector of launch i from its raw records (every warp's file). */
ks_status ks_macsim_set_bbv(const ks_macsim_set *s, size_t i, ks_trace_bbv *out,
                            ks_error *err);
/* The memory addresses of the first memory records of launch i's first
 * warp, at most max. */
ks_status ks_macsim_set_addresses(const ks_macsim_set *s, size_t i, uint64_t *addr, size_t max,
                                  size_t *got, ks_error *err);
/* One warp's raw records of launch i (64 bytes each, MacSim's
 * trace_info_nvbit_small_s on x86-64: opcode at 0, is_fp 1, is_load 2,
 * active mask 24, pc 32, memory address 48, access size 56), in order. */
typedef ks_status (*ks_macsim_record_fn)(void *ctx, const unsigned char *record, ks_error *err);
ks_status ks_macsim_set_records(const ks_macsim_set *s, size_t i, uint64_t warp,
                                ks_macsim_record_fn fn, void *ctx, ks_error *err);
/* A profile like ks_trace_set_profile's: name (and grid, block when
 * kernel_names.txt gives them), durations 0, metric columns
 * smsp__inst_executed.sum, launch__grid_size, launch__thread_count, warps. */
ks_status ks_macsim_set_profile(const ks_macsim_set *s, ks_profile **out, ks_error *err);

/* ---- launches by the file names simulators print (trace_index.c) ---- */

typedef enum ks_trace_folder_kind {
    KS_TRACES_ACCELSIM = 0, /* kernelslist.g / kernelslist and kernel-N.traceg files */
    KS_TRACES_MACSIM = 1    /* kernel_config.txt and KernelN folders */
} ks_trace_folder_kind;

typedef struct ks_trace_index ks_trace_index;
/* Either kind of trace folder (a MacSim one when ks_macsim_dir_detect). */
ks_status ks_trace_index_open(const char *dir, ks_trace_index **out, ks_error *err);
void ks_trace_index_free(ks_trace_index *x);
/* The launch (0-based, list order) whose trace file or folder a simulator
 * named by path: matched by file name (Accel-Sim, compression suffix
 * ignored) or by the folder holding trace.txt (MacSim); -1 when none. */
long ks_trace_index_find(const ks_trace_index *x, const char *path);
size_t ks_trace_index_count(const ks_trace_index *x);
ks_trace_folder_kind ks_trace_index_kind(const ks_trace_index *x);
const char *ks_trace_index_name(const ks_trace_index *x, size_t launch); /* kernel name */
const char *ks_trace_index_file(const ks_trace_index *x, size_t launch); /* the key */
/* Per launch of a trace folder, its name and the memory pages its first
 * warp's first memory instructions touch (trace_index.c): what the warm-up
 * modes compare. */
ks_status ks_trace_folder_launches(const char *dir, ks_warmup_launch **launches, size_t *count,
                                   ks_error *err);

/* The warm-up kernel's name and its trace file name's prefix
 * (kernel-ksample-state-<launch + 1>.traceg: Accel-Sim takes list entries
 * that start with "kernel"), which the readers of simulator output know. */
#define KS_WARM_KERNEL_NAME "ksample_warm_state"
#define KS_WARM_KERNEL_FILE_PREFIX "kernel-ksample-state-"
/* The warm-up kernel's trace file name of launch (0-based), written into buf
 * of KS_WARM_KERNEL_FILE_SIZE bytes; returns buf. */
#define KS_WARM_KERNEL_FILE_SIZE 48
const char *ks_warm_kernel_file(char *buf, uint64_t launch);
/* MacSim: the warm-up kernel's folder, ksample-state-<launch + 1>/ */
#define KS_WARM_MACSIM_FOLDER_PREFIX "ksample-state-"

#endif
