/*
 * trace_stream.c - streams one launch's instructions in file order.
 *
 * The file is read line by line through ks_input (gzip, xz and zstd
 * decompressed on the fly), so memory is the input's buffers plus, for raw
 * traces whose lines interleave warps, one counter per warp when a
 * per-warp instruction limit is asked for.
 *
 * Post-processed traces (.traceg) nest lines under "#BEGIN_TB", "thread
 * block = x,y,z", optional "cluster id = x,y,z" (forks for thread-block
 * clusters), "warp = n", "insts = n", and close blocks with "#END_TB".  Each
 * warp's line count is checked against its "insts =" line, and a file that
 * ends inside a block is refused, so a truncated trace is an error rather
 * than a short launch.  A filter that keeps a few blocks (GCL-Sampler's graph
 * reads block 0 only) ends the stream once every kept block has closed, so
 * only the file's head is decoded: the part after it is not checked.  Raw traces (.trace) put "tbx tby tbz warpid" on
 * every line and have none of these headers.
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct stream {
    const ks_trace_kernel *k;
    const trace_layout *layout;
    ks_trace_filter filter;
    bool mask_only; /* lines read up to their mask (trace_stream_masks) */
    ks_trace_inst_fn fn;
    void *ctx;
    ks_input *in;
    uint64_t warps_per_block; /* ceil(threads / 32) */

    bool in_tb, have_tb, in_warp, keep;
    uint32_t tb[3], warp;
    uint64_t expect; /* "insts =" of the warp; UINT64_MAX when not given */
    uint64_t seen;   /* instruction lines of the warp so far */
    long warp_line;

    trace_pair_map per_warp; /* raw traces with max_insts_per_warp: (block, warp) -> count */

    /* grouped traces whose filter keeps at most STREAM_STOP_BLOCKS blocks:
     * the kept blocks closed so far (linear indices), and how many there are */
    uint64_t closed[64];
    size_t n_closed, n_kept;
    bool done;

    ks_trace_inst inst;
    trace_line_buf buf;
} stream;

static ks_status at_line(stream *st, ks_error *err)
{
    snprintf(err->file, sizeof err->file, "%s", st->k->path);
    err->line = ks_input_line_number(st->in);
    return err->status;
}

static ks_status fail(stream *st, ks_error *err, const char *fmt, const char *detail)
{
    ks_error_set(err, KS_ERR_FORMAT, st->k->path, ks_input_line_number(st->in), fmt, detail);
    return KS_ERR_FORMAT;
}

static bool kept_block(const stream *st, const uint32_t tb[3])
{
    return st->filter.max_blocks == 0 ||
           trace_block_linear(st->k, tb) < st->filter.max_blocks;
}

static bool kept_warp(const stream *st, uint32_t warp)
{
    return st->filter.max_warps == 0 || warp < st->filter.max_warps;
}

static ks_status check_position(stream *st, const uint32_t tb[3], uint32_t warp, ks_error *err)
{
    const ks_trace_kernel *k = st->k;
    if (tb[0] >= k->grid[0] || tb[1] >= k->grid[1] || tb[2] >= k->grid[2]) {
        ks_error_set(err, KS_ERR_FORMAT, k->path, ks_input_line_number(st->in),
                     "thread block (%u,%u,%u) is outside the grid (%u,%u,%u)", tb[0], tb[1],
                     tb[2], k->grid[0], k->grid[1], k->grid[2]);
        return KS_ERR_FORMAT;
    }
    if (warp >= st->warps_per_block) {
        ks_error_set(err, KS_ERR_FORMAT, k->path, ks_input_line_number(st->in),
                     "warp %u does not exist in a block of %llu warps", warp,
                     (unsigned long long)st->warps_per_block);
        return KS_ERR_FORMAT;
    }
    return KS_OK;
}

/* ------------------------------------------------------ grouped layout */

static ks_status close_warp(stream *st, ks_error *err)
{
    if (st->in_warp && st->expect != UINT64_MAX && st->seen != st->expect) {
        ks_error_set(err, KS_ERR_FORMAT, st->k->path, st->warp_line,
                     "warp %u of block (%u,%u,%u) has %llu instruction lines; its 'insts =' "
                     "line says %llu",
                     st->warp, st->tb[0], st->tb[1], st->tb[2], (unsigned long long)st->seen,
                     (unsigned long long)st->expect);
        return KS_ERR_FORMAT;
    }
    st->in_warp = false;
    return KS_OK;
}

/* "name = value" with the given name; value points after the '='. */
static bool header_is(char *t, const char *name, char **value)
{
    size_t n = strlen(name);
    if (strncmp(t, name, n) != 0)
        return false;
    char *p = t + n;
    while (*p == ' ')
        p++;
    if (*p != '=')
        return false;
    *value = p + 1;
    return true;
}

/* A kept block has ended: once every kept block has, nothing later in the
 * file can reach the caller and the stream stops. */
static void note_closed(stream *st, uint64_t linear)
{
    for (size_t i = 0; i < st->n_closed; i++)
        if (st->closed[i] == linear)
            return;
    st->closed[st->n_closed++] = linear;
    st->done = st->n_closed == st->n_kept;
}

static ks_status grouped_header(stream *st, char *t, bool *handled, ks_error *err)
{
    char *v;
    uint64_t n;
    *handled = true;
    if (strcmp(t, "#BEGIN_TB") == 0 || strcmp(t, "#END_TB") == 0) {
        ks_status s = close_warp(st, err);
        bool begin = t[1] == 'B';
        if (s == KS_OK && begin == st->in_tb)
            return fail(st, err, "%s without a matching block marker", t);
        if (s == KS_OK && !begin && st->n_kept && st->have_tb && kept_block(st, st->tb))
            note_closed(st, trace_block_linear(st->k, st->tb));
        st->in_tb = begin;
        st->have_tb = false;
        return s;
    }
    if (header_is(t, "thread block", &v)) {
        ks_status s = close_warp(st, err);
        if (s != KS_OK)
            return s;
        if (!st->in_tb)
            return fail(st, err, "%s", "'thread block =' outside #BEGIN_TB ... #END_TB");
        if (!ks_parse_dim3(v, st->tb))
            return fail(st, err, "bad thread block index '%.40s'", ks_trim(v));
        st->have_tb = true;
        return KS_OK;
    }
    if (header_is(t, "cluster id", &v))
        return KS_OK; /* the cluster is implied by the block index */
    if (header_is(t, "warp", &v)) {
        ks_status s = close_warp(st, err);
        if (s != KS_OK)
            return s;
        v = ks_trim(v);
        if (!st->have_tb)
            return fail(st, err, "%s", "'warp =' before any 'thread block =' line");
        if (!trace_parse_u64(v, strlen(v), 10, &n) || n > UINT32_MAX)
            return fail(st, err, "bad warp id '%.40s'", v);
        st->warp = (uint32_t)n;
        if ((s = check_position(st, st->tb, st->warp, err)) != KS_OK)
            return s;
        st->in_warp = true;
        st->expect = UINT64_MAX;
        st->seen = 0;
        st->warp_line = ks_input_line_number(st->in);
        st->keep = kept_block(st, st->tb) && kept_warp(st, st->warp);
        return KS_OK;
    }
    if (header_is(t, "insts", &v)) {
        v = ks_trim(v);
        if (!st->in_warp || st->seen > 0)
            return fail(st, err, "%s", "'insts =' not right after a 'warp =' line");
        if (!trace_parse_u64(v, strlen(v), 10, &st->expect))
            return fail(st, err, "bad instruction count '%.40s'", v);
        return KS_OK;
    }
    *handled = t[0] == '#'; /* other comment lines */
    return KS_OK;
}

/* Instruction lines start with a hex digit (the PC, or a line number);
 * of the block headers only "cluster id" does too. */
static bool looks_like_instruction(const char *t)
{
    char c = t[0];
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    return hex && !(c == 'c' && t[1] == 'l');
}

static ks_status grouped_line(stream *st, char *t, ks_error *err)
{
    ks_status s;
    if (!looks_like_instruction(t)) {
        bool handled;
        s = grouped_header(st, ks_trim(t), &handled, err);
        if (s != KS_OK || handled)
            return s;
    }
    if (!st->in_warp)
        return fail(st, err, "instruction line outside a warp (no 'warp =' line before it): "
                             "'%.60s'",
                    t);
    st->seen++;
    if (!st->keep || (st->filter.max_insts_per_warp && st->seen > st->filter.max_insts_per_warp))
        return KS_OK;
    if ((s = (st->mask_only ? trace_parse_line_mask : trace_parse_line)(
             t, st->layout, &st->inst, &st->buf, err)) != KS_OK)
        return at_line(st, err);
    memcpy(st->inst.tb, st->tb, sizeof st->tb);
    st->inst.warp = st->warp;
    return st->fn(st->ctx, st->k, &st->inst, err);
}

/* ---------------------------------------------------------- raw layout */

static ks_status raw_count(stream *st, bool *keep, ks_error *err)
{
    uint64_t *count;
    ks_status s = trace_pair_map_get(&st->per_warp, trace_block_linear(st->k, st->inst.tb),
                                     st->inst.warp, (void **)&count, NULL, err);
    if (s == KS_OK)
        *keep = ++*count <= st->filter.max_insts_per_warp;
    return s;
}

static ks_status raw_line(stream *st, char *t, ks_error *err)
{
    if (t[0] == '#')
        return KS_OK;
    ks_status s = (st->mask_only ? trace_parse_line_mask : trace_parse_line)(
        t, st->layout, &st->inst, &st->buf, err);
    if (s != KS_OK)
        return at_line(st, err);
    if ((s = check_position(st, st->inst.tb, st->inst.warp, err)) != KS_OK)
        return s;
    if (!kept_block(st, st->inst.tb) || !kept_warp(st, st->inst.warp))
        return KS_OK;
    bool keep = true;
    if (st->filter.max_insts_per_warp && (s = raw_count(st, &keep, err)) != KS_OK)
        return s;
    return keep ? st->fn(st->ctx, st->k, &st->inst, err) : KS_OK;
}

/* ---------------------------------------------------------------- drive */

static ks_status body_line(stream *st, char *line, size_t len, bool truncated, ks_error *err)
{
    if (memchr(line, '\0', len))
        return fail(st, err, "%s", "NUL byte in an instruction line");
    char *t = line;
    while (*t == ' ' || *t == '\t')
        t++;
    if (t[0] == '\0')
        return KS_OK;
    if (truncated && t[0] != '#')
        return fail(st, err, "%s", "last line has no newline: the trace is truncated");
    return st->layout->prefixed ? raw_line(st, t, err) : grouped_line(st, t, err);
}

static ks_status run(stream *st, ks_error *err)
{
    ks_trace_kernel scratch = {0};
    trace_layout scratch_layout = {0};
    scratch.path = st->k->path;
    char *pending;
    ks_status s = trace_read_header(st->in, &scratch, &scratch_layout, &pending, err);
    free(scratch.name);
    if (s == KS_OK && pending)
        s = body_line(st, pending, strlen(pending), false, err);
    while (s == KS_OK && !st->done) {
        char *line;
        size_t len;
        bool truncated;
        if ((s = ks_input_getline(st->in, &line, &len, &truncated, err)) != KS_OK) {
            if (err->line == 0) /* a decompression error: say where it struck */
                err->line = ks_input_line_number(st->in) + 1;
            return s;
        }
        if (!line)
            break;
        s = body_line(st, line, len, truncated, err);
    }
    if (s == KS_OK && !st->done)
        s = close_warp(st, err);
    if (s == KS_OK && !st->done && st->in_tb)
        s = fail(st, err, "%s", "the file ends inside a thread block (no #END_TB): truncated?");
    return s;
}

static ks_status stream_launch(ks_trace_set *s, size_t i, const ks_trace_filter *filter,
                               bool mask_only, ks_trace_inst_fn fn, void *ctx, ks_error *err)
{
    if (i >= s->kernel_count)
        return ks_error_set(err, KS_ERR_USAGE, s->list_path, 0,
                            "launch %zu does not exist (the list has %zu)", i, s->kernel_count);
    stream *st = calloc(1, sizeof *st);
    if (!st)
        return ks_error_set(err, KS_ERR_NOMEM, s->kernels[i].path, 0, "out of memory");
    st->k = &s->kernels[i];
    st->layout = &s->layouts[i];
    if (filter)
        st->filter = *filter;
    st->mask_only = mask_only;
    st->fn = fn;
    st->ctx = ctx;
    trace_pair_map_init(&st->per_warp, sizeof(uint64_t));
    uint64_t threads = (uint64_t)st->k->block[0] * st->k->block[1] * st->k->block[2];
    st->warps_per_block = (threads + 31) / 32;
    /* a grouped trace lists each block's lines together: with few blocks
     * kept, the stream can end at the last kept block's #END_TB (the rest of
     * the file is then neither read nor checked) */
    uint64_t blocks = (uint64_t)st->k->grid[0] * st->k->grid[1] * st->k->grid[2];
    if (!st->layout->prefixed && st->filter.max_blocks > 0 &&
        st->filter.max_blocks <= sizeof st->closed / sizeof st->closed[0])
        st->n_kept = blocks < st->filter.max_blocks ? blocks : st->filter.max_blocks;
    ks_status r = ks_input_open(st->k->path, &st->in, err);
    /* a short read decodes in this thread: threads would decode ahead what
     * is never read */
    if (r == KS_OK && st->n_kept)
        ks_input_set_decompress_threads(st->in, 0);
    if (r == KS_OK)
        r = run(st, err);
    ks_input_close(st->in);
    trace_pair_map_free(&st->per_warp);
    free(st);
    return r;
}

ks_status ks_trace_set_stream(ks_trace_set *s, size_t i, const ks_trace_filter *filter,
                              ks_trace_inst_fn fn, void *ctx, ks_error *err)
{
    return stream_launch(s, i, filter, false, fn, ctx, err);
}

ks_status trace_stream_masks(ks_trace_set *s, size_t i, ks_trace_inst_fn fn, void *ctx,
                             ks_error *err)
{
    return stream_launch(s, i, NULL, true, fn, ctx, err);
}

/* ------------------------------------------------------------- counting */

static ks_status count_one(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                           ks_error *err)
{
    (*(uint64_t *)ctx)++;
    return KS_OK;
}

ks_status ks_trace_set_count_insts(ks_trace_set *s, size_t i, uint64_t *count, ks_error *err)
{
    uint64_t n = 0;
    ks_status st = ks_trace_set_stream(s, i, NULL, count_one, &n, err);
    if (st != KS_OK)
        return st;
    s->kernels[i].warp_insts = n;
    if (count)
        *count = n;
    return KS_OK;
}
