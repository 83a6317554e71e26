/*
 * decompress_queue.h - what the splitter (decompress_split.c) and the queue
 * with its decoding threads (decompress_pipe.c) share.
 */
#ifndef KS_DECOMPRESS_QUEUE_H
#define KS_DECOMPRESS_QUEUE_H

#include "decompress.h"

#include <pthread.h>

/* Fuzzing builds shrink every buffer and window so that inputs of a few
 * hundred bytes take the paths of large files: many units, streamed units,
 * a full queue. */
#ifdef KS_FUZZ_BUFFERS
enum {
    DP_RAW_CHUNK = 61,  /* bytes read from the file at a time */
    DP_PIECE = 127,     /* decompressed bytes per queue buffer */
    DP_UNIT_MAX = 300,  /* a unit longer than this is streamed, not cut */
    DP_GROUP_RAW = 100, /* small zstd frames share a job up to this size */
    DP_FEED_MAX = 3,    /* stored chunks queued for a streamed unit */
    DP_MAX_WORKERS = 3,
};
#else
enum {
    DP_RAW_CHUNK = 1 << 18,
    DP_PIECE = 1 << 20,
    DP_UNIT_MAX = 1 << 22,
    DP_GROUP_RAW = 1 << 18,
    DP_FEED_MAX = 4,
    DP_MAX_WORKERS = 8,
};
#endif

/* Bytes in a list: stored ones (a chunk; pos = how many a decoder has used)
 * or decompressed ones (a piece; pos = how many the reader has taken). */
typedef struct dp_chunk {
    struct dp_chunk *next;
    size_t len, pos;
    unsigned char data[];
} dp_chunk;
typedef dp_chunk dp_piece;

typedef struct dp_job {
    struct dp_job *next;
    dp_chunk *in_head, *in_tail;
    unsigned in_count;
    bool in_complete;   /* no more input will come */
    ks_status in_status; /* why the input stopped early (a read error) */
    ks_error in_err;
    bool stop_at_end;   /* one unit only (an xz block, a streamed zstd frame) */
    bool streamed;      /* fed chunk by chunk; its end is reported to the splitter */
    uint32_t xz_check;  /* the stream's check type, for an xz block */
    dp_piece *out_head, *out_tail;
    unsigned out_count;
    bool taken, done;
    ks_status status;
    ks_error err;
} dp_job;

struct ks_dpipe {
    ks_dpipe_format format;
    ks_dpipe_source src;
    pthread_mutex_t mu;
    pthread_cond_t cv_work;  /* workers: a job, input, a free buffer */
    pthread_cond_t cv_split; /* splitter: a job slot, feed room, a unit's end */
    pthread_cond_t cv_read;  /* reader: output, the end */
    dp_job *head, *tail, *next_untaken;
    unsigned jobs, max_jobs;
    dp_piece *free_pieces;
    unsigned pieces_out, piece_budget;
    bool split_done, stop;
    /* the end of the streamed job the splitter feeds */
    bool unit_ended;
    ks_status unit_status;
    dp_chunk *unit_leftover;

    ks_thread *splitter; /* NULL until started */
    ks_thread *workers[DP_MAX_WORKERS];
    int nworkers;

    /* the splitter's window of stored bytes not yet handed to a job */
    unsigned char *win;
    size_t win_pos, win_len, win_cap;
};

/* decompress_pipe.c, for the splitter */
dp_job *dp_job_new(ks_dpipe *p, const unsigned char *data, size_t len, ks_error *err);
/* Queues the job (waiting for a slot); false when the pipe stops. */
bool dp_submit(ks_dpipe *p, dp_job *j);
/* Gives a streamed job one more chunk (waiting for room): 1 taken, 0 the
 * job has ended (c stays the caller's), -1 stopping (c freed). */
int dp_feed(ks_dpipe *p, dp_job *j, dp_chunk *c);
/* No more input for a streamed job; st != KS_OK: the file could not be read
 * further, which the job reports once its input runs out. */
void dp_feed_end(ks_dpipe *p, dp_job *j, ks_status st, const ks_error *e);
/* Waits for the end of the streamed job; its leftover input goes back to
 * the front of the window.  1 when it failed or the pipe stops. */
int dp_wait_unit_end(ks_dpipe *p);
/* Queues an error after everything queued so far. */
void dp_fail(ks_dpipe *p, ks_status st, const ks_error *e);
void dp_split_finished(ks_dpipe *p);
bool dp_stopping(ks_dpipe *p);

/* decompress_split.c */
void *dp_split_main(void *arg);

#endif
