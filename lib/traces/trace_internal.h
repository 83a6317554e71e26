/*
 * trace_internal.h - shared by the files of lib/traces: the trace set's
 * layout, the instruction-line parser and a per-warp hash map.  Not part of
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

/* Reads the header of a trace file into k and layout; stops at the first
 * line that is not part of the header.  k->path must be set. */
ks_status trace_read_header(ks_input *in, ks_trace_kernel *k, trace_layout *layout,
                            char **pending, ks_error *err);

/* Parsing helpers that never read past the NUL and never overflow. */
bool trace_parse_u64(const char *s, size_t len, int base, uint64_t *v);
bool trace_parse_i64(const char *s, size_t len, int64_t *v);

/* ------------------------------------------------------------ warp map */

/* Open-addressing map from (linear block index, warp) to a slot number, for
 * raw traces whose lines interleave warps.  Memory grows with the warps of a
 * launch, not with the size of its trace. */
typedef struct trace_warp_map {
    uint64_t *block;   /* key part 1, per slot */
    uint32_t *warp;    /* key part 2, per slot */
    uint32_t *value;   /* value + 1; 0 = empty slot */
    size_t slots, used;
} trace_warp_map;

/* Finds the key; when absent and insert_value is not NULL inserts it with
 * *insert_value.  *found is the stored value, *is_new says it was inserted. */
ks_status trace_warp_map_get(trace_warp_map *m, uint64_t block, uint32_t warp,
                             uint32_t insert_value, uint32_t *found, bool *is_new,
                             ks_error *err);
void trace_warp_map_free(trace_warp_map *m);

/* Linear block index x + y*gx + z*gx*gy (saturating, never overflowing). */
uint64_t trace_block_linear(const ks_trace_kernel *k, const uint32_t tb[3]);

#endif
