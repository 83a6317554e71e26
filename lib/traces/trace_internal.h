/*
 * trace_internal.h - shared by the files of lib/traces: the trace set's
 * layout, the instruction-line parser and a map keyed by pairs.  Not part of
 * trace.h because only the reader's own files need it.
 */
#ifndef KS_TRACE_INTERNAL_H
#define KS_TRACE_INTERNAL_H

#include "trace.h"

/* How one trace file lays out its instruction lines. */
typedef struct trace_layout {
    bool prefixed;  /* raw .trace: "tbx tby tbz warpid" before every line, no #BEGIN_TB */
    bool lineinfo;  /* "-enable lineinfo = 1": a [line_num] column before the PC */
    int version;    /* tracer version; 0 = unknown (immediate optional) */
} trace_layout;

struct ks_trace_set {
    char *dir;
    char *list_path;
    ks_trace_kernel *kernels;
    trace_layout *layouts; /* one per kernel */
    long *stats_row;       /* one per kernel: index into stats, -1 if none */
    size_t kernel_count, kernel_capacity;
    ks_trace_event *events;
    size_t event_count, event_capacity;
    ks_trace_stats_row *stats;
    size_t stats_count, stats_capacity;
    char list_xxh128[33];
    uint64_t list_bytes;
};

/* Scratch space of one instruction line: the addresses and the opcode text
 * that ks_trace_inst points into. */
typedef struct trace_line_buf {
    uint64_t addr[32];
    char opcode[128];
} trace_line_buf;

/* Parses one instruction line (NUL-terminated, may be modified) into inst.
 * On error fills err with message only (file and line are the caller's). */
ks_status trace_parse_line(char *line, const trace_layout *layout, ks_trace_inst *inst,
                           trace_line_buf *buf, ks_error *err);

/* As trace_parse_line, but only up to the mask (the block and warp of a
 * raw line, the line number, the PC and the mask): the rest of the line is
 * not read (opcode NULL, no registers or addresses).  For counting. */
ks_status trace_parse_line_mask(char *line, const trace_layout *layout, ks_trace_inst *inst,
                                trace_line_buf *buf, ks_error *err);

/* ks_trace_set_stream of every line, each read only up to its mask
 * (trace_parse_line_mask: opcode NULL, no registers or addresses); blocks,
 * warps and each warp's line count are checked all the same.  For
 * counting (trace_count.c). */
ks_status trace_stream_masks(ks_trace_set *s, size_t i, ks_trace_inst_fn fn, void *ctx,
                             ks_error *err);

/* Reads the header of a trace file into k and layout; stops at the first
 * line that is not part of the header.  k->path must be set. */
ks_status trace_read_header(ks_input *in, ks_trace_kernel *k, trace_layout *layout,
                            char **pending, ks_error *err);

/* Parsing helpers that never read past the NUL and never overflow. */
bool trace_parse_u64(const char *s, size_t len, int base, uint64_t *v);
bool trace_parse_i64(const char *s, size_t len, int64_t *v);

/* ------------------------------------------------------------ pair map */

/* Map from a pair of 64-bit keys to a value of fixed size: (linear block
 * index, warp) for raw traces whose lines interleave warps, (start, end) for
 * the straight-line runs of a launch.  Keys and values sit in arrays by id,
 * in the order first seen; the library's hash index (lib/core/hash.h) finds
 * the id.  Memory grows with the distinct keys of a launch (its warps, the
 * runs of its code), not with the size of its trace. */
typedef struct trace_pair_map {
    uint64_t *first, *second; /* per id: the key */
    void *values;             /* per id: value_size bytes */
    size_t value_size, count, capacity;
    ks_hash_index index;
} trace_pair_map;

/* An empty map whose values are value_size bytes each. */
void trace_pair_map_init(trace_pair_map *m, size_t value_size);
/* *value is the value of (first, second); a zeroed one is added when the key
 * is new, and then *is_new (when not NULL) is true.  *value stays valid until
 * the next call. */
ks_status trace_pair_map_get(trace_pair_map *m, uint64_t first, uint64_t second, void **value,
                             bool *is_new, ks_error *err);
void trace_pair_map_free(trace_pair_map *m);

/* The basic-block vector of a launch from its straight-line runs ((start,
 * end) -> uint64_t times run), for Accel-Sim and MacSim traces alike. */
ks_status trace_bbv_from_runs(const trace_pair_map *runs, ks_trace_bbv *out, ks_error *err);

/* The end of a trace folder's profile p built to st: freed and st returned
 * when st is not KS_OK; else p, as read from dir in format, with the
 * digest and size of the folder's list file as its source's, in *out. */
ks_status trace_profile_finish(ks_profile *p, ks_status st, const char *format, const char *dir,
                               const char *list_xxh128, uint64_t list_bytes, ks_profile **out);

/* Linear block index x + y*gx + z*gx*gy (saturating, never overflowing). */
uint64_t trace_block_linear(const ks_trace_kernel *k, const uint32_t tb[3]);

#endif
