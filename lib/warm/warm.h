/*
 * warm.h - the cache state a sampled launch would inherit in the full run,
 * rebuilt from the traces of the launches before it (internal header).
 *
 * lib/warm sits between lib/traces (which it reads) and lib/export (which
 * carries the state into a simulator): l2_state.c is the cache model,
 * sim_config.c reads the simulated GPU's geometry from the simulator's own
 * configuration, state_walk.c walks a trace folder in program order and
 * hands the model to a callback at each sampled launch, warm_kernel.c
 * writes the state as a warm-up kernel in a simulator's trace format.
 * docs/methods.md ("Rebuilding the warm state") has the argument.
 */
#ifndef KS_WARM_H
#define KS_WARM_H

#include "internal.h"
#include "trace.h"

#include <stdio.h>

/* ------------------------------------------------------------ the model */

/* A sectored LRU cache of `capacity` lines in sets of `ways` (indexed by a
 * hash of the line address), and every line used lately, up to `keep`
 * lines, in the order of last use (l2_state.c has why).  A line touched
 * again while resident in the model adds the touched sectors to its valid
 * ones; one touched again after the model evicted it starts over with the
 * touched sectors alone.  Dirty: the sectors last written while the line
 * stayed resident. */
typedef struct ks_l2_line {
    uint64_t line;         /* address / line_bytes */
    uint32_t prev, next;   /* recency list (UINT32_MAX: none); next: free list */
    uint8_t valid, dirty;  /* sector masks */
    uint8_t resident;      /* in the model's sets (else held as a ghost) */
    uint8_t fresh;         /* used since the latest ks_l2_state_age */
} ks_l2_line;

typedef struct ks_l2_state {
    uint32_t line_bytes, sector_bytes, sectors_per_line;
    size_t capacity, keep;  /* lines: the model cache's, and held in all (the cut) */
    size_t sets;
    uint32_t ways;
    uint32_t *way;          /* sets x ways node ids, most recent first */
    ks_l2_line *lines;      /* keep nodes */
    size_t used, held;      /* nodes ever handed out; held now */
    uint32_t free_head;
    uint32_t head, tail;    /* recency list: most / least recent */
    ks_hash_index index;    /* line -> node */
    int set_index;          /* how a line finds its set: KS_SET_* */
    uint32_t tiles;         /* KS_SET_TILED: banks, line-interleaved */
    uint64_t touches, misses; /* for tests and the bench */
    size_t fresh;           /* held lines used since the latest ks_l2_state_age */
} ks_l2_state;

/* Set index functions: an XOR fold of the line address (hashed indexes such
 * as GPGPU-Sim's IPOLY L2: consecutive lines in distinct sets, power-of-two
 * strides spread), the line address modulo the sets (linear: GPGPU-Sim's L1,
 * MacSim's caches), and MacSim's banked LLC (bank = line mod tiles, set =
 * (line / tiles) mod the bank's sets). */
enum { KS_SET_XOR = 0, KS_SET_LINEAR = 1, KS_SET_TILED = 2 };

/* A cache of capacity lines in sets of `ways`; keep >= capacity lines held
 * in all (the cut). */
ks_status ks_l2_state_init(ks_l2_state *s, size_t capacity, size_t keep, uint32_t ways,
                           uint32_t line_bytes, uint32_t sector_bytes, ks_error *err);
void ks_l2_state_free(ks_l2_state *s);
/* Empty again (an L1 at a kernel's end), keeping the memory. */
void ks_l2_state_clear(ks_l2_state *s);
/* One access: the sectors of `line` in mask (bit k: sector k), a write or
 * not.  Returns whether the line was resident (a hit on some sector or not). */
ks_status ks_l2_state_touch(ks_l2_state *s, uint64_t line, unsigned mask, bool write,
                            ks_error *err);
/* The byte range [addr, addr + bytes) as accesses, sector by sector, in
 * address order (a memory copy into L2). */
ks_status ks_l2_state_touch_range(ks_l2_state *s, uint64_t addr, uint64_t bytes, bool write,
                                  ks_error *err);
/* Marks every held line as used before now: s->fresh then counts the
 * lines used since (the walk ages the model where a launch's trace is
 * missing, so a state that its later launches do not fill is known short). */
void ks_l2_state_age(ks_l2_state *s);
/* Whether line is held (resident or a ghost), and its node. */
const ks_l2_line *ks_l2_state_find(const ks_l2_state *s, uint64_t line);
/* The held lines oldest first: call with *cursor = UINT32_MAX to start;
 * NULL at the end. */
const ks_l2_line *ks_l2_state_next(const ks_l2_state *s, uint32_t *cursor);
/* How many held lines are dirty (some sector last written): the one count
 * of them (state:memcpy's note, the dirty carriers). */
size_t ks_l2_state_dirty_lines(const ks_l2_state *s);

/* ------------------------------------------------- the simulated GPU */

typedef struct ks_gpu_geometry {
    uint64_t l2_bytes;        /* the whole L2 (every sub-partition) */
    uint32_t line_bytes;      /* 128 */
    uint32_t sector_bytes;    /* 32 (line_bytes when not sectored) */
    uint32_t ways;            /* of the L2's sets (0: 16) */
    int l2_set_index;         /* KS_SET_* */
    uint32_t l2_tiles;        /* KS_SET_TILED: its banks */
    uint32_t sms;             /* streaming multiprocessors (0: unknown) */
    uint32_t max_cta_per_sm;  /* thread blocks at once per SM (0: unknown) */
    uint32_t max_threads_per_sm;
    int flush_l1;             /* -gpgpu_flush_l1_cache: 1, 0, -1 unknown */
    uint64_t l1_bytes;        /* per SM / core; 0: no L1 modelled */
    uint32_t l1_ways;
    bool l1_persists;         /* L1 contents carry from one kernel to the next
                               * (MacSim); else emptied at each kernel's end */
    uint64_t icache_bytes;    /* an instruction cache kernels share (MacSim: not
                               * perfect there); 0: none modelled */
    uint32_t icache_line, icache_ways;
    int perf_sim_memcpy;      /* -gpgpu_perf_sim_memcpy: 1, 0, -1 unknown */
    int concurrent_kernels;   /* -gpgpu_concurrent_kernel_sm: 1, 0 (its
                               * default), -1 unknown; with 1 Accel-Sim reads
                               * the list ahead of a running kernel, copies
                               * after it included (state:split lists none
                               * after its kernel) */
    char source[512];         /* the file it came from, for messages */
} ks_gpu_geometry;

/* From a GPGPU-Sim gpgpusim.config (-gpgpu_cache:dl2, -gpgpu_n_mem,
 * -gpgpu_n_sub_partition_per_mchannel, -gpgpu_n_clusters,
 * -gpgpu_n_cores_per_cluster, -gpgpu_shader_cta,
 * -gpgpu_shader_core_pipeline, -gpgpu_flush_l1_cache,
 * -gpgpu_perf_sim_memcpy). */
ks_status ks_gpu_geometry_read_gpgpusim(const char *path, ks_gpu_geometry *g, ks_error *err);
/* From a MacSim params.in (l3_* of the LLC, num_sim_cores; see the file). */
ks_status ks_gpu_geometry_read_macsim(const char *path, ks_gpu_geometry *g, ks_error *err);

/* ------------------------------------------------ the walk over a program */

typedef struct ks_state_walk_options {
    ks_gpu_geometry gpu;  /* l2_bytes, line and sector sizes; sms and the per-SM
                           * limits set the lockstep waves (0: one wave) */
    double cut;           /* lines kept: cut x the L2's lines (>= 1) */
    bool with_memcpy;     /* the program's MemcpyHtoD lines fill L2 too (a
                           * build whose prefill keeps 64-bit addresses) */
    bool footprint;       /* give the callback the lines the sampled launch
                           * itself touches */
} ks_state_walk_options;

/* A set of line addresses.  As a carrier's filter: the lines of the set,
 * and with and_dirty every dirty line too (the lines whose write-backs a
 * launch's misses cause in the full run). */
typedef struct ks_line_set {
    uint64_t *lines;
    size_t count, capacity;
    ks_hash_index index;
    bool and_dirty;
    /* instead of lines: the held lines at positions [from, to) of the
     * recency list, oldest 0, ghosts included (state:split's parts) */
    bool by_position;
    size_t from, to;
    /* with by_position, where given: only the positions whose marks share
     * a bit with `mark` (KS_SPLIT_*) */
    const unsigned char *marks;
    unsigned char mark;
} ks_line_set;
void ks_line_set_free(ks_line_set *s);
bool ks_line_set_has(const ks_line_set *s, uint64_t line);
/* state:split: the part of the held lines (positions in the recency list,
 * oldest 0) that a launch touching `footprint` needs carried by a kernel,
 * because its misses may evict, and write back, dirty ones there: from the
 * oldest dirty line to the youngest line the launch's misses can evict in
 * the model's sets (`margin` more lines a set that overflows, for the
 * simulator's own set mapping).  from == to when no dirty line is within
 * reach.  Also: the launch's lines the model does not hold resident
 * (misses), and of the lines those evict in the model's sets (no margin),
 * how many are dirty: the write-backs memory copies, which fill lines
 * clean, would leave out. */
typedef struct ks_split_span {
    size_t from, to;      /* the kernel's part */
    size_t reach;         /* positions below it are within reach (also where
                           * no dirty line is and the part is empty) */
    size_t misses;        /* the launch's lines not resident in the model */
    size_t evicted;       /* lines those evict in the model's sets */
    size_t evicted_dirty; /* of them, the dirty ones */
} ks_split_span;
ks_status ks_l2_state_kernel_span(const ks_l2_state *s, const ks_line_set *footprint,
                                  uint32_t margin, ks_split_span *span, ks_error *err);

/* state:split on the simulator's own sets (set_fn: a line address's set,
 * below `sets`), which the model's XOR fold only resembles: after every
 * held line is replayed, oldest first, each of those sets holds its
 * youngest `ways` lines.  In a set the launch's misses overflow, they evict
 * its least recent lines that the launch does not touch (a line it hits
 * becomes the most recent), as many as they overflow it by: those lines,
 * and `margin` more, are within reach.  Only a set whose reach holds a
 * dirty line the launch does not touch needs the kernel; every line of
 * the others is a copy before it.  Marks by position (oldest 0, s->used of
 * them), in such a set:
 *   with copies_after (the simulator applies copies listed after a kernel
 *   once it has ended):
 *     KS_SPLIT_BEFORE             the lines older than the oldest
 *                                 untouched dirty line in reach: copies
 *                                 before;
 *     KS_SPLIT_BEFORE | _STORE    the untouched dirty lines in reach:
 *                                 copies before, which the kernel then
 *                                 stores (the misses evict the lines in
 *                                 reach and write back those, early among
 *                                 them);
 *     KS_SPLIT_AFTER              every other line younger than the oldest
 *                                 untouched dirty line in reach: copies
 *                                 after;
 *   else:
 *     KS_SPLIT_BEFORE             the lines older than the oldest
 *                                 untouched dirty line in reach;
 *     KS_SPLIT_KERNEL             that line and every younger one of the
 *                                 set, loaded (stored where dirty) in
 *                                 order by the kernel.
 * *kernel_lines counts the valid lines the kernel stores or loads. */
enum {
    KS_SPLIT_BEFORE = 1,
    KS_SPLIT_KERNEL = 2,
    KS_SPLIT_AFTER = 4,
    KS_SPLIT_STORE = 8,
};
ks_status ks_l2_state_split_marks(const ks_l2_state *s, const ks_line_set *footprint,
                                  uint32_t margin,
                                  uint32_t (*set_fn)(const void *ctx, uint64_t line),
                                  const void *set_ctx, uint32_t sets, bool copies_after,
                                  unsigned char *marks, size_t *kernel_lines, ks_error *err);

/* What a sampled launch inherits: the L2 model; where the simulator keeps
 * L1 contents from one kernel to the next (MacSim), each core's L1 model
 * (l1[core], cores of them; NULL otherwise); with the footprint option the
 * lines the launch itself touches (else NULL). */
typedef struct ks_state_view {
    const ks_l2_state *l2;
    const ks_l2_state *l1;
    size_t cores;
    const ks_line_set *footprint;
    /* MacSim's instruction cache (not perfect there): the launch's code
     * lines (icache line addresses / icache_line) that the model still
     * holds from earlier launches, in the order the launch runs them; 0 of
     * them where the code never ran or was evicted since */
    const uint64_t *code;
    const unsigned char *code_records; /* per code line a record of the launch
                                        * at it (64 bytes; opcode 255: none) */
    size_t code_count;
    uint32_t icache_line;
    /* Where launches before this one have no trace (a tracer told to record
     * only some): short_lines > 0 when the lines used since the latest
     * missing one (missing_launch, the tracer's 1-based number) are fewer
     * than the cut, by that many: the state lacks up to that many of the
     * lines the full run would give it. */
    uint64_t short_lines;
    uint64_t missing_launch;
} ks_state_view;

/* Called at each sampled launch, before its accesses enter the model. */
typedef ks_status (*ks_state_fn)(void *ctx, size_t launch, const ks_state_view *view,
                                 ks_error *err);

/* Walks the Accel-Sim or MacSim trace folder `traces` from its first launch
 * to the last of `sampled` (launch indexes, ascending, distinct), feeding
 * every global-memory access into the model in an order that approximates
 * the GPU's issue order, and calls fn at each sampled launch. */
/* Whether cut x the L2's lines is a model the walk can hold (KS_ERR_USAGE
 * naming --state-cut and where the L2 came from otherwise). */
ks_status ks_state_cut_check(const ks_gpu_geometry *gpu, double cut, ks_error *err);
ks_status ks_state_walk(const char *traces, const size_t *sampled, size_t count,
                        const ks_state_walk_options *opt, ks_state_fn fn, void *ctx,
                        ks_error *err);

/* The same over a MacSim NVBit folder (state_walk_macsim.c): each warp's
 * raw records; the k-th memory record of every warp of a wave before any
 * warp's (k+1)-th, as for Accel-Sim traces. */
ks_status ks_state_walk_macsim(const char *traces, const size_t *sampled, size_t count,
                               const ks_state_walk_options *opt, ks_state_fn fn, void *ctx,
                               ks_error *err);

/* ---------------------------------------------------------- the carriers */

typedef struct ks_remap ks_remap; /* addr_remap.c */

/* MemcpyHtoD lines for the held lines (optionally only those in `only`),
 * oldest first, one per run of valid sectors, adjacent runs merged. */
ks_status ks_state_write_memcpy(FILE *f, const ks_l2_state *s, const ks_line_set *only,
                                size_t *lines_out, ks_error *err);
/* The same at remapped addresses (remap NULL: as they are), for a stock
 * GPGPU-Sim that keeps 32 bits of a copy's address (addr_remap.c). */
ks_status ks_state_write_memcpy32(FILE *f, const ks_l2_state *s, const ks_line_set *only,
                                  const ks_remap *remap, size_t *lines_out, ks_error *err);


typedef struct ks_warm_kernel_shape {
    uint64_t kernel_id;       /* "-kernel id" (the sampled launch's number) */
    int tracer_version;       /* the folder's (3, 4 or 5) */
    int binary_version;       /* the folder's (70, 80 ...) */
    uint64_t shmem_base, local_base; /* the sampled launch's header's */
    uint32_t sms;             /* warps are spread over 2 blocks an SM (0: 80 SMs) */
    bool stores_only;         /* only stores of the dirty sectors (the store
                               * kernel beside a memory-copy prefill) */
    const ks_remap *remap;    /* addresses remapped (addr_remap.c); NULL: not */
} ks_warm_kernel_shape;

/* The Accel-Sim trace of a warm-up kernel that loads the held lines (only
 * those in `only`, when given) oldest first; counts of lines and warp
 * instructions written. */
ks_status ks_state_write_accelsim_kernel(FILE *f, const ks_l2_state *s, const ks_line_set *only,
                                         const ks_warm_kernel_shape *shape, size_t *lines_out,
                                         size_t *insts_out, ks_error *err);

/* The MacSim NVBit folder of a warm-up kernel (created): trace.txt,
 * trace_info.txt and one gzip'd raw file per warp, loads of whole lines
 * (stores where last written) oldest first.  Block c of 32 warps (at most
 * warps_per_core, MacSim's max_threads_per_core; 0: unknown) runs on core c
 * (MacSim deals a kernel's first blocks round-robin over its cores): it
 * loads its share of the L2 lines no L1 holds, then core c's L1 lines, so
 * each core's L1 ends as the model's (view->l1; without it, the L2 lines
 * over 2 blocks a core, `sms` cores). */
ks_status ks_state_write_macsim_kernel(const char *folder, const ks_state_view *view,
                                       const ks_line_set *only, uint32_t sms,
                                       uint32_t warps_per_core, size_t *lines_out,
                                       size_t *insts_out, ks_error *err);

/* Whether an Accel-Sim opcode reaches global memory (the walk's rule:
 * LDG, STG, LDGSTS, ATOMG, ATOM, RED and generic LD/ST), and writes. */
bool ks_warm_global_access(const char *op, bool *write);

/* ------------------------------------ a 32-bit address space (addr_remap.c) */

/* GPGPU-Sim's address functions from its configuration: each value[k] an
 * output bit that is the parity of the address bits in it (bank, column,
 * burst, partition, L2 and L1 set index, line offset: values the simulator
 * uses), and the masks used by equality only (row) or named in checks. */
#define KS_ADDR_MAP_MAX 192
typedef struct ks_addr_map {
    uint64_t value[KS_ADDR_MAP_MAX];
    size_t nvalue;
    uint64_t part[8];   /* the partition's functions: with indexing 2 bit i of
                         * the sub-partition number, else the chip's */
    size_t npart;
    uint64_t chip, sub, bank, row, col, burst; /* the DRAM mapping's masks */
    int max_bit;        /* the highest address bit a value function reads */
    /* the L2 set a line falls in: the sub-partition's functions, then the
     * set index's, one bit each (ks_addr_map_l2_set) */
    uint64_t l2set[32];
    size_t nl2set;
} ks_addr_map;

/* From the option values (mapping: -gpgpu_mem_addr_mapping's; fn: the set
 * index letter, L, X or P).  Refuses what is not linear or not known. */
ks_status ks_addr_map_build(ks_addr_map *m, const char *mapping, unsigned channels,
                            unsigned subs, unsigned indexing, unsigned l2_sets, unsigned l2_line,
                            char l2_fn, unsigned l1_sets, unsigned l1_line, char l1_fn,
                            ks_error *err);
/* The simulator's L2 set (sub-partition and set index) of the byte address
 * addr, in [0, ks_addr_map_l2_sets(m)). */
uint32_t ks_addr_map_l2_set(const ks_addr_map *m, uint64_t addr);
uint32_t ks_addr_map_l2_sets(const ks_addr_map *m);
/* From a gpgpusim.config (or a simulator log, which prints every option). */
ks_status ks_addr_map_read_gpgpusim(const char *path, ks_addr_map *m, ks_error *err);

/* The remap T(a) = low 32 bits of a, XOR column[h - 32] for each bit h >= 32
 * set in a that some value function reads (read_high). */
struct ks_remap {
    uint64_t read_high;
    uint32_t column[32];
    uint32_t base;  /* XORed into every remapped address: 0 unless a job
                     * needs another (ks_remap_choose_base) */
    uint32_t kernel[32]; /* changes of the low bits no value function sees,
                          * a basis, the highest lowest bit first */
    unsigned kernel_count;
};
/* Solves for the columns; refuses where no change of the low bits has the
 * effect of a high bit the configuration reads. */
ks_status ks_remap_solve(const ks_addr_map *m, ks_remap *r, ks_error *err);
uint64_t ks_remap_apply(const ks_remap *r, uint64_t addr);
/* Accel-Sim takes a lane whose address is 0 for an inactive one (GPGPU-Sim's
 * coalescer stops at memreqaddr 0): a launch access remapped to address 0
 * would vanish.  Where one of the launch's lines (footprint, line
 * addresses / line_bytes) lands on line 0, sets r->base to the first
 * combination of r->kernel under which none does and no pair of global
 * lines of one of the launch's warp instructions (launch `launch` of set)
 * is turned around; else r->base = 0.  *moved: a base was needed;
 * *clear: no line of the launch lands on line 0 under r->base. */
ks_status ks_remap_choose_base(ks_remap *r, ks_trace_set *set, size_t launch,
                               const uint64_t *footprint, size_t count, uint32_t line_bytes,
                               bool *moved, bool *clear, ks_error *err);

/* The remap on the lines a job uses (line addresses / line_bytes): wide
 * (remapped at or above 2^32: none by construction), changed (a value
 * function differs: none by construction), collisions (two lines onto one;
 * first[] the first pair), row_merges (two rows of one bank onto one);
 * distinct remapped lines.  Usable where all but distinct are 0. */
typedef struct ks_remap_check_result {
    size_t wide, changed, collisions, row_merges, distinct;
    uint64_t first[2];
} ks_remap_check_result;
ks_status ks_remap_check(const ks_addr_map *m, const ks_remap *r, const uint64_t *lines,
                         size_t count, uint32_t line_bytes, ks_remap_check_result *out,
                         ks_error *err);
/* The map and remap of a gpgpusim.config: KS_OK with *usable false and why
 * where its functions are not ones ksample can keep. */
ks_status ks_remap_from_config(const char *config, ks_addr_map *m, ks_remap *r, bool *usable,
                               char *why, size_t why_size, ks_error *err);

/* The L2 geometry --warmup state models for a trace folder: from
 * w->sim_config (gpgpusim.config or MacSim params.in) and/or w->l2_bytes. */
ks_status ks_warm_geometry(const char *traces, const ks_warmup *w, ks_gpu_geometry *g,
                           ks_error *err);

#endif
