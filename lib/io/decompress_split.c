/*
 * decompress_split.c - the splitter: reads and digests the stored bytes in
 * file order and cuts them into jobs that decode on their own.
 *
 * zstd: ZSTD_findFrameCompressedSize walks a frame's block headers, so a
 *   whole frame in the window is a job of its own (small frames share one).
 *   A frame longer than the window is streamed to one worker, which finds
 *   its end and gives back what followed it.
 * xz: a block header written by a multi-threaded xz gives the block's
 *   compressed size (xz file format 1.1.0, 3.1.3), so such a block is a job
 *   of its own; a block without sizes (single-threaded xz) is streamed.
 *   Stream header, index, footer and padding are checked here, as
 *   lzma_stream_decoder checks them.
 * gzip: a member's length is known only by inflating it, so the whole file is
 *   one streamed job; concatenated members decode one after another.
 */
#include "decompress_queue.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Queues an error after everything before it; ends the splitter. */
static int split_fail(ks_dpipe *p, ks_status st, const ks_error *e)
{
    dp_fail(p, st, e);
    return 1;
}

static int split_corrupt(ks_dpipe *p)
{
    static const char *names[] = {"", "gzip", "xz", "zstd"};
    ks_error e;
    ks_status st = ks_error_set(&e, KS_ERR_FORMAT, p->src.path, 0,
                                "corrupt or truncated %s data", names[p->format]);
    return split_fail(p, st, &e);
}

static ks_status read_stored(ks_dpipe *p, unsigned char *dst, size_t cap, size_t *got,
                             ks_error *err)
{
    *got = 0;
    if (*p->src.raw_eof)
        return KS_OK;
    *got = fread(dst, 1, cap, p->src.file);
    if (*got < cap) {
        if (ferror(p->src.file))
            return ks_error_set(err, KS_ERR_IO, p->src.path, 0, "read failed: %s",
                                strerror(errno));
        *p->src.raw_eof = true;
    }
    XXH3_128bits_update(p->src.hash, dst, *got);
    *p->src.raw_bytes += *got;
    return KS_OK;
}

/* Makes room for `more` bytes after the window's content. */
static bool window_room(ks_dpipe *p, size_t more)
{
    if (p->win_pos > 0) {
        memmove(p->win, p->win + p->win_pos, p->win_len - p->win_pos);
        p->win_len -= p->win_pos;
        p->win_pos = 0;
    }
    if (p->win_cap - p->win_len >= more)
        return true;
    size_t cap = p->win_len + more;
    if (cap < 2 * p->win_cap)
        cap = 2 * p->win_cap;
    unsigned char *w = realloc(p->win, cap);
    if (!w)
        return false;
    p->win = w;
    p->win_cap = cap;
    return true;
}

/* 1 when the window holds n bytes (reading as needed), 0 when the file ends
 * first, -1 on an error (queued). */
static int window_need(ks_dpipe *p, size_t n)
{
    while (p->win_len - p->win_pos < n && !*p->src.raw_eof) {
        ks_error e;
        if (!window_room(p, DP_RAW_CHUNK)) {
            ks_error_set(&e, KS_ERR_NOMEM, p->src.path, 0, "out of memory");
            return -split_fail(p, KS_ERR_NOMEM, &e);
        }
        size_t got;
        ks_status st = read_stored(p, p->win + p->win_len, DP_RAW_CHUNK, &got, &e);
        if (st != KS_OK)
            return -split_fail(p, st, &e);
        p->win_len += got;
    }
    return p->win_len - p->win_pos >= n;
}

/* A job of the window's next len bytes, decoded without the splitter. */
static int submit_whole(ks_dpipe *p, size_t len, bool one_unit, uint32_t check)
{
    ks_error e;
    dp_job *j = dp_job_new(p, p->win + p->win_pos, len, &e);
    if (!j)
        return split_fail(p, KS_ERR_NOMEM, &e);
    p->win_pos += len;
    j->in_complete = true;
    j->stop_at_end = one_unit;
    j->xz_check = check;
    return dp_submit(p, j) ? 0 : 1;
}

/* Streams the window and then the file to one job until it ends (one_unit:
 * its first unit; else the file); what followed a unit comes back into the
 * window. */
static int submit_streamed(ks_dpipe *p, bool one_unit, uint32_t check)
{
    ks_error e;
    dp_job *j = dp_job_new(p, p->win + p->win_pos, p->win_len - p->win_pos, &e);
    if (!j)
        return split_fail(p, KS_ERR_NOMEM, &e);
    p->win_pos = p->win_len = 0;
    j->streamed = true;
    j->stop_at_end = one_unit;
    j->xz_check = check;
    if (!dp_submit(p, j))
        return 1;
    for (;;) {
        if (*p->src.raw_eof) {
            dp_feed_end(p, j, KS_OK, NULL);
            break;
        }
        dp_chunk *c = malloc(sizeof *c + DP_RAW_CHUNK);
        ks_status st = c ? read_stored(p, c->data, DP_RAW_CHUNK, &c->len, &e)
                         : ks_error_set(&e, KS_ERR_NOMEM, p->src.path, 0, "out of memory");
        if (st != KS_OK) {
            free(c);
            dp_feed_end(p, j, st, &e);
            return 1;
        }
        if (c->len == 0) {
            free(c);
            dp_feed_end(p, j, KS_OK, NULL);
            break;
        }
        int r = dp_feed(p, j, c);
        if (r < 0)
            return 1;
        if (r == 0) {
            /* the unit ended before this chunk: it is what follows */
            bool ok = window_room(p, c->len);
            if (ok) {
                memcpy(p->win + p->win_len, c->data, c->len);
                p->win_len += c->len;
            }
            free(c);
            if (!ok) {
                ks_error_set(&e, KS_ERR_NOMEM, p->src.path, 0, "out of memory");
                return split_fail(p, KS_ERR_NOMEM, &e);
            }
            break;
        }
    }
    return one_unit ? dp_wait_unit_end(p) : 0;
}

static int split_zstd(ks_dpipe *p)
{
    for (;;) {
        size_t avail = p->win_len - p->win_pos;
        if (avail == 0) {
            int r = window_need(p, 1);
            if (r <= 0)
                return r < 0;
            continue;
        }
        const unsigned char *w = p->win + p->win_pos;
        size_t size = ZSTD_findFrameCompressedSize(w, avail);
        if (!ZSTD_isError(size)) {
            /* frames far smaller than a job's overhead travel together */
            while (size < DP_GROUP_RAW && size < avail) {
                size_t next = ZSTD_findFrameCompressedSize(w + size, avail - size);
                if (ZSTD_isError(next))
                    break;
                size += next;
            }
            if (submit_whole(p, size, false, 0))
                return 1;
            continue;
        }
        if (ZSTD_getErrorCode(size) == ZSTD_error_srcSize_wrong && !*p->src.raw_eof) {
            if (avail < DP_UNIT_MAX ? window_need(p, avail + 1) < 0
                                    : submit_streamed(p, true, 0) != 0)
                return 1;
            continue;
        }
        /* damaged or cut short: the decoder gives what it can before the
         * error, as the serial reader does */
        if (submit_whole(p, avail, false, 0))
            return 1;
        return split_corrupt(p);
    }
}

/* The index (checked by liblzma, and its block count here) and the footer
 * after a stream's blocks. */
static int xz_stream_end(ks_dpipe *p, lzma_stream_flags *flags, lzma_vli blocks)
{
    lzma_index *idx = NULL;
    lzma_stream s = LZMA_STREAM_INIT;
    /* The index must list exactly the blocks seen, so it may use no more
     * memory than that many records need: a damaged record count otherwise
     * makes liblzma preallocate for it (fuzzing found 440 GB). */
    if (lzma_index_decoder(&s, &idx, lzma_index_memusage(1, blocks)) != LZMA_OK)
        return split_corrupt(p);
    for (;;) {
        int r = window_need(p, 1);
        if (r <= 0) {
            lzma_end(&s);
            return r < 0 ? 1 : split_corrupt(p);
        }
        s.next_in = p->win + p->win_pos;
        s.avail_in = p->win_len - p->win_pos;
        lzma_ret rc = lzma_code(&s, LZMA_RUN);
        p->win_pos = p->win_len - s.avail_in;
        if (rc == LZMA_STREAM_END)
            break;
        if (rc != LZMA_OK) {
            lzma_end(&s);
            return split_corrupt(p);
        }
    }
    lzma_end(&s);
    bool ok = lzma_index_block_count(idx) == blocks;
    flags->backward_size = lzma_index_size(idx);
    lzma_index_end(idx, NULL);
    int r = window_need(p, LZMA_STREAM_HEADER_SIZE);
    if (r < 0)
        return 1;
    lzma_stream_flags footer;
    if (!ok || r == 0 ||
        lzma_stream_footer_decode(&footer, p->win + p->win_pos) != LZMA_OK ||
        lzma_stream_flags_compare(flags, &footer) != LZMA_OK)
        return split_corrupt(p);
    p->win_pos += LZMA_STREAM_HEADER_SIZE;
    /* stream padding: zero bytes, a multiple of four */
    size_t zeros = 0;
    while ((r = window_need(p, 1)) > 0 && p->win[p->win_pos] == 0) {
        zeros++;
        p->win_pos++;
    }
    if (r < 0)
        return 1;
    return zeros % 4 ? split_corrupt(p) : 0;
}

/* One block: a job of its own when its header gives its size. */
static int xz_block(ks_dpipe *p, const lzma_stream_flags *flags)
{
    uint32_t header_size = lzma_block_header_size_decode(p->win[p->win_pos]);
    int r = window_need(p, header_size);
    if (r <= 0)
        return r < 0 ? 1 : split_corrupt(p);
    lzma_filter filters[LZMA_FILTERS_MAX + 1];
    lzma_block block = {.version = 1, .check = flags->check, .header_size = header_size,
                        .filters = filters};
    if (lzma_block_header_decode(&block, NULL, p->win + p->win_pos) != LZMA_OK)
        return split_corrupt(p);
    for (size_t i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
        free(filters[i].options);
    lzma_vli total = lzma_block_total_size(&block);
    if (total == 0 || total > DP_UNIT_MAX)
        return submit_streamed(p, true, flags->check);
    if ((r = window_need(p, (size_t)total)) < 0)
        return 1;
    if (r == 0) {
        submit_whole(p, p->win_len - p->win_pos, true, flags->check);
        return split_corrupt(p);
    }
    return submit_whole(p, (size_t)total, true, flags->check);
}

static int split_xz(ks_dpipe *p)
{
    for (;;) {
        int r = window_need(p, LZMA_STREAM_HEADER_SIZE);
        if (r <= 0)
            return r < 0 ? 1 : split_corrupt(p);
        lzma_stream_flags flags;
        if (lzma_stream_header_decode(&flags, p->win + p->win_pos) != LZMA_OK)
            return split_corrupt(p);
        p->win_pos += LZMA_STREAM_HEADER_SIZE;
        lzma_vli blocks = 0;
        for (;;) {
            if ((r = window_need(p, 1)) <= 0)
                return r < 0 ? 1 : split_corrupt(p);
            if (p->win[p->win_pos] == 0) /* the index indicator */
                break;
            if (xz_block(p, &flags))
                return 1;
            blocks++;
        }
        if (xz_stream_end(p, &flags, blocks))
            return 1;
        if ((r = window_need(p, 1)) <= 0)
            return r < 0;
    }
}

void *dp_split_main(void *arg)
{
    ks_dpipe *p = arg;
    if (p->format == KS_DPIPE_ZSTD)
        split_zstd(p);
    else if (p->format == KS_DPIPE_XZ)
        split_xz(p);
    else
        submit_streamed(p, false, 0);
    dp_split_finished(p);
    return NULL;
}
