/*
 * decompress_pipe.c - the queue between the splitter, the decoding threads
 * and the reader (see decompress.h).
 *
 * Jobs sit in one list in file order.  Workers take them in that order, so
 * the job at the head (the one the reader waits for) always has a worker.
 * Memory is bounded: at most max_jobs jobs, each holding at most one unit
 * of stored bytes (or DP_FEED_MAX chunks of a streamed one), and at most
 * piece_budget output buffers in all, except that the head job may always
 * hold two: the reader drains the head job first, so it never waits on a
 * worker that waits on buffers held by later jobs.
 */
#include "decompress_queue.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

int ks_dpipe_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > DP_MAX_WORKERS ? DP_MAX_WORKERS : (int)n;
}

static const char *format_name(ks_dpipe_format f)
{
    return f == KS_DPIPE_GZIP ? "gzip" : f == KS_DPIPE_XZ ? "xz" : "zstd";
}

/* The serial reader's words, so that messages do not depend on threads. */
static ks_status corrupt(const ks_dpipe *p, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, p->src.path, 0, "corrupt or truncated %s data",
                        format_name(p->format));
}

static void free_chunks(dp_chunk *c)
{
    while (c) {
        dp_chunk *next = c->next;
        free(c);
        c = next;
    }
}

static void free_job(dp_job *j)
{
    free_chunks(j->in_head);
    free_chunks(j->out_head);
    free(j);
}

/* Called with the lock held where others see the list. */
static void list_append(dp_chunk **head, dp_chunk **tail, unsigned *count, dp_chunk *c)
{
    c->next = NULL;
    if (*tail)
        (*tail)->next = c;
    else
        *head = c;
    *tail = c;
    (*count)++;
}

static size_t bytes_left(const dp_chunk *c)
{
    size_t n = 0;
    for (; c; c = c->next)
        n += c->len - c->pos;
    return n;
}

/* ------------------------------------------------------------ splitter side */

dp_job *dp_job_new(ks_dpipe *p, const unsigned char *data, size_t len, ks_error *err)
{
    dp_job *j = calloc(1, sizeof *j);
    dp_chunk *c = len ? malloc(sizeof *c + len) : NULL;
    if (!j || (len && !c)) {
        free(j);
        free(c);
        ks_error_set(err, KS_ERR_NOMEM, p->src.path, 0, "out of memory");
        return NULL;
    }
    if (c) {
        c->next = NULL;
        c->len = len;
        c->pos = 0;
        memcpy(c->data, data, len);
        j->in_head = j->in_tail = c;
        j->in_count = 1;
    }
    return j;
}

bool dp_stopping(ks_dpipe *p)
{
    pthread_mutex_lock(&p->mu);
    bool stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return stop;
}

static void append_job(ks_dpipe *p, dp_job *j)
{
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->jobs++;
    if (!j->taken && !p->next_untaken)
        p->next_untaken = j;
}

bool dp_submit(ks_dpipe *p, dp_job *j)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->jobs >= p->max_jobs)
        pthread_cond_wait(&p->cv_split, &p->mu);
    if (p->stop) {
        pthread_mutex_unlock(&p->mu);
        free_job(j);
        return false;
    }
    if (j->streamed) {
        p->unit_ended = false;
        p->unit_leftover = NULL;
    }
    append_job(p, j);
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
    return true;
}

int dp_feed(ks_dpipe *p, dp_job *j, dp_chunk *c)
{
    c->next = NULL;
    c->pos = 0;
    pthread_mutex_lock(&p->mu);
    /* once the job has ended it may be freed: only unit_ended is looked at */
    while (!p->stop && !p->unit_ended && j->in_count >= DP_FEED_MAX)
        pthread_cond_wait(&p->cv_split, &p->mu);
    int r = p->stop ? -1 : p->unit_ended ? 0 : 1;
    if (r == 1) {
        list_append(&j->in_head, &j->in_tail, &j->in_count, c);
        pthread_cond_broadcast(&p->cv_work);
    }
    pthread_mutex_unlock(&p->mu);
    if (r < 0)
        free(c);
    return r;
}

void dp_feed_end(ks_dpipe *p, dp_job *j, ks_status st, const ks_error *e)
{
    pthread_mutex_lock(&p->mu);
    if (!p->unit_ended) {
        j->in_complete = true;
        j->in_status = st;
        if (st != KS_OK)
            j->in_err = *e;
    }
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
}

int dp_wait_unit_end(ks_dpipe *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && !p->unit_ended)
        pthread_cond_wait(&p->cv_split, &p->mu);
    bool ok = !p->stop && p->unit_status == KS_OK;
    dp_chunk *left = p->unit_leftover;
    p->unit_leftover = NULL;
    pthread_mutex_unlock(&p->mu);
    if (!ok) {
        free_chunks(left);
        return 1;
    }
    /* the leftover is what followed the unit: it goes before the window */
    size_t extra = bytes_left(left);
    size_t keep = p->win_len - p->win_pos;
    if (extra) {
        unsigned char *w = malloc(extra + keep + 1);
        if (!w) {
            free_chunks(left);
            ks_error e;
            ks_error_set(&e, KS_ERR_NOMEM, p->src.path, 0, "out of memory");
            dp_fail(p, KS_ERR_NOMEM, &e);
            return 1;
        }
        size_t n = 0;
        for (dp_chunk *c = left; c; c = c->next) {
            memcpy(w + n, c->data + c->pos, c->len - c->pos);
            n += c->len - c->pos;
        }
        memcpy(w + n, p->win + p->win_pos, keep);
        free(p->win);
        p->win = w;
        p->win_cap = extra + keep + 1;
        p->win_pos = 0;
        p->win_len = extra + keep;
    }
    free_chunks(left);
    return 0;
}

void dp_fail(ks_dpipe *p, ks_status st, const ks_error *e)
{
    dp_job *j = calloc(1, sizeof *j);
    pthread_mutex_lock(&p->mu);
    if (j) {
        j->taken = j->done = true;
        j->status = st;
        j->err = *e;
        append_job(p, j);
    }
    p->split_done = true;
    pthread_cond_broadcast(&p->cv_read);
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
}

void dp_split_finished(ks_dpipe *p)
{
    pthread_mutex_lock(&p->mu);
    p->split_done = true;
    pthread_cond_broadcast(&p->cv_read);
    pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
}

/* ------------------------------------------------------------------ decoders */

typedef struct dp_worker {
    ks_dpipe *p;
    ZSTD_DCtx *zstd;
    z_stream zs;
    bool zs_init;
    lzma_stream xz;
    lzma_block block; /* the decoder keeps a pointer to it */
    lzma_filter filters[LZMA_FILTERS_MAX + 1];
    bool filters_set;
    bool at_end; /* the last step ended a unit (frame, member, block) */
} dp_worker;

static void release_filters(dp_worker *w)
{
    if (!w->filters_set)
        return;
    for (size_t i = 0; w->filters[i].id != LZMA_VLI_UNKNOWN; i++)
        free(w->filters[i].options);
    w->filters_set = false;
}

/* An xz block never looks back past its own start (each block begins with a
 * dictionary reset), so where its header gives the uncompressed size the
 * dictionary is cut to that size: a 300-byte block written by `xz -9` then
 * allocates 4 KiB, not 64 MiB.  A fuzzing build also refuses dictionaries
 * over 1 MiB (each input would otherwise allocate and poison tens of MiB). */
static bool fit_dictionary(lzma_block *b)
{
    for (size_t i = 0; b->filters[i].id != LZMA_VLI_UNKNOWN; i++) {
        if (b->filters[i].id != LZMA_FILTER_LZMA2 && b->filters[i].id != LZMA_FILTER_LZMA1)
            continue;
        lzma_options_lzma *o = b->filters[i].options;
        if (!o)
            continue;
        /* the fuzzing limit looks at the size the file asks for, as the
         * serial decoder's memory limit does (input.c) */
        if (o->dict_size > KS_FUZZ_SMALL(UINT32_MAX, (uint32_t)1 << 20))
            return false;
        if (b->uncompressed_size != LZMA_VLI_UNKNOWN && o->dict_size > b->uncompressed_size)
            o->dict_size = b->uncompressed_size < LZMA_DICT_SIZE_MIN
                               ? LZMA_DICT_SIZE_MIN
                               : (uint32_t)b->uncompressed_size;
    }
    return true;
}

/* Readies the worker's decoder for a job; an xz job starts with its block
 * header, which the splitter checked is whole in the first chunk. */
static bool decoder_begin(dp_worker *w, dp_job *j)
{
    w->at_end = false;
    if (w->p->format == KS_DPIPE_ZSTD) {
        if (!w->zstd) {
            if (!(w->zstd = ZSTD_createDCtx()))
                return false;
            /* a fuzzing build refuses windows over 1 MiB, as for xz */
            if (KS_FUZZ_SMALL(0, 1) &&
                ZSTD_isError(ZSTD_DCtx_setParameter(w->zstd, ZSTD_d_windowLogMax, 20)))
                return false;
        }
        return !ZSTD_isError(ZSTD_DCtx_reset(w->zstd, ZSTD_reset_session_only));
    }
    if (w->p->format == KS_DPIPE_GZIP) {
        if (!w->zs_init) {
            if (inflateInit2(&w->zs, 15 + 16) != Z_OK)
                return false;
            w->zs_init = true;
            return true;
        }
        return inflateReset(&w->zs) == Z_OK;
    }
    dp_chunk *c = j->in_head;
    if (!c || c->len - c->pos < 1)
        return false;
    memset(&w->block, 0, sizeof w->block);
    w->block.version = 1;
    w->block.check = (lzma_check)j->xz_check;
    w->block.header_size = lzma_block_header_size_decode(c->data[c->pos]);
    w->block.filters = w->filters;
    if (c->len - c->pos < w->block.header_size)
        return false;
    if (lzma_block_header_decode(&w->block, NULL, c->data + c->pos) != LZMA_OK)
        return false;
    w->filters_set = true;
    c->pos += w->block.header_size;
    if (!fit_dictionary(&w->block))
        return false;
    return lzma_block_decoder(&w->xz, &w->block) == LZMA_OK;
}

/* One call of the library's decoder; false on corrupt data. */
static bool decoder_step(dp_worker *w, const unsigned char *src, size_t avail, size_t *used,
                         unsigned char *dst, size_t cap, size_t *made, bool finish)
{
    *used = *made = 0;
    if (w->p->format == KS_DPIPE_ZSTD) {
        if (avail == 0 && w->at_end)
            return true;
        ZSTD_inBuffer ib = {src, avail, 0};
        ZSTD_outBuffer ob = {dst, cap, 0};
        size_t rc = ZSTD_decompressStream(w->zstd, &ob, &ib);
        if (ZSTD_isError(rc))
            return false;
        *used = ib.pos;
        *made = ob.pos;
        w->at_end = rc == 0;
        return true;
    }
    if (w->p->format == KS_DPIPE_GZIP) {
        if (w->at_end) {
            if (avail == 0)
                return true;
            /* another member follows (concatenated .gz files) */
            if (inflateReset(&w->zs) != Z_OK)
                return false;
            w->at_end = false;
        }
        w->zs.next_in = (unsigned char *)src;
        w->zs.avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
        w->zs.next_out = dst;
        w->zs.avail_out = (uInt)cap;
        int rc = inflate(&w->zs, Z_NO_FLUSH);
        *used = (size_t)(w->zs.next_in - src);
        *made = cap - w->zs.avail_out;
        if (rc == Z_STREAM_END)
            w->at_end = true;
        return rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR;
    }
    if (w->at_end)
        return avail == 0;
    w->xz.next_in = src;
    w->xz.avail_in = avail;
    w->xz.next_out = dst;
    w->xz.avail_out = cap;
    lzma_ret rc = lzma_code(&w->xz, finish ? LZMA_FINISH : LZMA_RUN);
    *used = avail - w->xz.avail_in;
    *made = cap - w->xz.avail_out;
    if (rc == LZMA_STREAM_END)
        w->at_end = true;
    return rc == LZMA_OK || rc == LZMA_STREAM_END || rc == LZMA_BUF_ERROR;
}

static void decoders_free(dp_worker *w)
{
    ZSTD_freeDCtx(w->zstd);
    if (w->zs_init)
        inflateEnd(&w->zs);
    lzma_end(&w->xz);
    release_filters(w);
}

/* ------------------------------------------------------------ worker side */

/* Hands a filled buffer to the reader (called with the lock held). */
static void push_piece(ks_dpipe *p, dp_job *j, dp_piece *pc)
{
    pc->pos = 0;
    list_append(&j->out_head, &j->out_tail, &j->out_count, pc);
    pthread_cond_broadcast(&p->cv_read);
}

/* An empty output buffer, within the budget; NULL on stop or no memory. */
static dp_piece *take_piece(ks_dpipe *p, dp_job *j)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->pieces_out >= p->piece_budget && !(j == p->head && j->out_count < 2))
        pthread_cond_wait(&p->cv_work, &p->mu);
    dp_piece *pc = NULL;
    if (!p->stop) {
        pc = p->free_pieces;
        if (pc)
            p->free_pieces = pc->next;
        else
            pc = malloc(sizeof *pc + DP_PIECE);
        if (pc) {
            p->pieces_out++;
            pc->len = pc->pos = 0;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return pc;
}

static void give_back_piece(ks_dpipe *p, dp_piece *pc)
{
    pc->next = p->free_pieces;
    p->free_pieces = pc;
    p->pieces_out--;
    pthread_cond_broadcast(&p->cv_work);
}

/* Finishes a job: the partial buffer goes out, then the status; a unit's
 * leftover input goes back to the splitter. */
static void end_job(dp_worker *w, dp_job *j, dp_piece *pc, ks_status st, const ks_error *e)
{
    ks_dpipe *p = w->p;
    pthread_mutex_lock(&p->mu);
    if (pc && pc->len)
        push_piece(p, j, pc);
    else if (pc)
        give_back_piece(p, pc);
    dp_chunk *left = j->in_head;
    j->in_head = j->in_tail = NULL;
    j->in_count = 0;
    if (st == KS_OK && left && !j->streamed) {
        /* a unit cut to its exact size decoded short of its end */
        if (bytes_left(left)) {
            ks_error e2;
            st = corrupt(p, &e2);
            j->err = e2;
        }
    }
    if (st != KS_OK && e)
        j->err = *e;
    j->status = st;
    j->done = true;
    if (j->streamed) {
        p->unit_ended = true;
        p->unit_status = st;
        p->unit_leftover = st == KS_OK ? left : NULL;
        if (st != KS_OK)
            free_chunks(left);
    } else {
        free_chunks(left);
    }
    pthread_cond_broadcast(&p->cv_read);
    pthread_cond_broadcast(&p->cv_split);
    pthread_mutex_unlock(&p->mu);
}

/* The next stored chunk with bytes left, freeing used ones; NULL when the
 * input is complete.  *stopped on stop.  Before waiting, the partial output
 * buffer goes to the reader so that a slow file does not hold it back. */
static dp_chunk *next_input(ks_dpipe *p, dp_job *j, dp_piece **pc, bool *stopped)
{
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (j->in_head && j->in_head->pos == j->in_head->len) {
            dp_chunk *c = j->in_head;
            j->in_head = c->next;
            if (!j->in_head)
                j->in_tail = NULL;
            j->in_count--;
            free(c);
            pthread_cond_broadcast(&p->cv_split);
        }
        if (p->stop || j->in_head || j->in_complete)
            break;
        if (*pc && (*pc)->len) {
            push_piece(p, j, *pc);
            *pc = NULL;
        }
        pthread_cond_wait(&p->cv_work, &p->mu);
    }
    *stopped = p->stop;
    dp_chunk *c = j->in_head;
    pthread_mutex_unlock(&p->mu);
    return c;
}

static void decode_job(dp_worker *w, dp_job *j)
{
    ks_dpipe *p = w->p;
    ks_error e;
    dp_piece *pc = NULL;
    if (!decoder_begin(w, j)) {
        corrupt(p, &e);
        end_job(w, j, NULL, KS_ERR_FORMAT, &e);
        release_filters(w);
        return;
    }
    for (;;) {
        bool stopped;
        dp_chunk *c = next_input(p, j, &pc, &stopped);
        if (stopped)
            break;
        if (!pc || pc->len == DP_PIECE) {
            if (pc) {
                pthread_mutex_lock(&p->mu);
                push_piece(p, j, pc);
                pthread_mutex_unlock(&p->mu);
            }
            if (!(pc = take_piece(p, j))) {
                if (!dp_stopping(p)) {
                    ks_error_set(&e, KS_ERR_NOMEM, p->src.path, 0, "out of memory");
                    end_job(w, j, NULL, KS_ERR_NOMEM, &e);
                    release_filters(w);
                    return;
                }
                break;
            }
        }
        size_t avail = c ? c->len - c->pos : 0, used, made;
        if (!c && j->in_status != KS_OK) {
            end_job(w, j, pc, j->in_status, &j->in_err);
            release_filters(w);
            return;
        }
        if (!c && w->at_end) {
            end_job(w, j, pc, KS_OK, NULL);
            release_filters(w);
            return;
        }
        bool ok = decoder_step(w, c ? c->data + c->pos : NULL, avail, &used,
                               pc->data + pc->len, DP_PIECE - pc->len, &made, !c);
        if (c)
            c->pos += used;
        /* the output of a failing call is dropped, as the serial reader
         * drops it */
        if (ok)
            pc->len += made;
        /* no progress with output room and no more input: truncated */
        if (!ok || (!c && !made && !used)) {
            corrupt(p, &e);
            end_job(w, j, pc, KS_ERR_FORMAT, &e);
            release_filters(w);
            return;
        }
        if (w->at_end && j->stop_at_end) {
            end_job(w, j, pc, KS_OK, NULL);
            release_filters(w);
            return;
        }
        if (c && !used && !made && pc->len < DP_PIECE && avail) {
            corrupt(p, &e); /* a decoder that takes nothing would spin */
            end_job(w, j, pc, KS_ERR_FORMAT, &e);
            release_filters(w);
            return;
        }
    }
    /* stopping: drop the job's buffers with the pipe */
    if (pc) {
        pthread_mutex_lock(&p->mu);
        give_back_piece(p, pc);
        pthread_mutex_unlock(&p->mu);
    }
    release_filters(w);
}

static void *worker_main(void *arg)
{
    dp_worker *w = arg;
    ks_dpipe *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && !p->next_untaken && !p->split_done)
            pthread_cond_wait(&p->cv_work, &p->mu);
        dp_job *j = p->stop ? NULL : p->next_untaken;
        if (j) {
            j->taken = true;
            dp_job *n = j->next;
            while (n && n->taken)
                n = n->next;
            p->next_untaken = n;
        }
        pthread_mutex_unlock(&p->mu);
        if (!j)
            break;
        decode_job(w, j);
    }
    decoders_free(w);
    free(w);
    return NULL;
}

/* --------------------------------------------------------------- reader side */

ks_status ks_dpipe_read(ks_dpipe *p, unsigned char *dst, size_t cap, size_t *got,
                        ks_error *err)
{
    *got = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        dp_job *j = p->head;
        if (!j) {
            if (p->split_done)
                break;
            pthread_cond_wait(&p->cv_read, &p->mu);
            continue;
        }
        if (j->out_head) {
            /* only the reader takes from the head buffer and workers only
             * append after it, so the copy needs no lock */
            dp_piece *pc = j->out_head;
            pthread_mutex_unlock(&p->mu);
            size_t n = pc->len - pc->pos < cap ? pc->len - pc->pos : cap;
            memcpy(dst, pc->data + pc->pos, n);
            pthread_mutex_lock(&p->mu);
            pc->pos += n;
            if (pc->pos == pc->len) {
                j->out_head = pc->next;
                if (!j->out_head)
                    j->out_tail = NULL;
                j->out_count--;
                give_back_piece(p, pc);
            }
            *got = n;
            break;
        }
        if (j->done) {
            if (j->status != KS_OK) {
                ks_status st = j->status;
                if (err)
                    *err = j->err;
                pthread_mutex_unlock(&p->mu);
                return st;
            }
            p->head = j->next;
            if (!p->head)
                p->tail = NULL;
            p->jobs--;
            free_job(j);
            pthread_cond_broadcast(&p->cv_split);
            pthread_cond_broadcast(&p->cv_work);
            continue;
        }
        pthread_cond_wait(&p->cv_read, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return KS_OK;
}

/* ------------------------------------------------------------- start, stop */

static void stop_threads(ks_dpipe *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv_work);
    pthread_cond_broadcast(&p->cv_split);
    pthread_cond_broadcast(&p->cv_read);
    pthread_mutex_unlock(&p->mu);
    if (p->splitter)
        ks_thread_join(p->splitter);
    for (int i = 0; i < p->nworkers; i++)
        ks_thread_join(p->workers[i]);
    p->splitter = NULL;
    p->nworkers = 0;
}

void ks_dpipe_free(ks_dpipe *p)
{
    if (!p)
        return;
    stop_threads(p);
    while (p->head) {
        dp_job *j = p->head;
        p->head = j->next;
        free_job(j);
    }
    free_chunks(p->unit_leftover);
    free_chunks(p->free_pieces);
    free(p->win);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv_work);
    pthread_cond_destroy(&p->cv_split);
    pthread_cond_destroy(&p->cv_read);
    free(p);
}

ks_status ks_dpipe_start(ks_dpipe_format format, const ks_dpipe_source *src,
                         const unsigned char *head, size_t head_len, int workers,
                         ks_dpipe **out, ks_error *err)
{
    *out = NULL;
    if (workers < 1)
        workers = 1;
    if (workers > DP_MAX_WORKERS)
        workers = DP_MAX_WORKERS;
    ks_dpipe *p = calloc(1, sizeof *p);
    if (!p)
        return ks_error_set(err, KS_ERR_NOMEM, src->path, 0, "out of memory");
    p->format = format;
    p->src = *src;
    p->max_jobs = 2 * (unsigned)workers + 2;
    p->piece_budget = 2 * (unsigned)workers + 4;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_split, NULL);
    pthread_cond_init(&p->cv_read, NULL);
    p->win_cap = head_len + DP_RAW_CHUNK;
    p->win = malloc(p->win_cap);
    if (!p->win) {
        ks_dpipe_free(p);
        return ks_error_set(err, KS_ERR_NOMEM, src->path, 0, "out of memory");
    }
    if (head_len)
        memcpy(p->win, head, head_len);
    p->win_len = head_len;
    for (int i = 0; i < workers; i++) {
        dp_worker *w = calloc(1, sizeof *w);
        if (!w)
            break;
        w->p = p;
        lzma_stream init = LZMA_STREAM_INIT;
        w->xz = init;
        if (!ks_thread_start(&p->workers[p->nworkers], worker_main, w)) {
            free(w);
            break;
        }
        p->nworkers++;
    }
    if (p->nworkers == 0 || !ks_thread_start(&p->splitter, dp_split_main, p)) {
        ks_dpipe_free(p);
        return ks_error_set(err, KS_ERR_NOMEM, src->path, 0, "cannot start threads");
    }
    *out = p;
    return KS_OK;
}
