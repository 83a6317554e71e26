/*
 * decompress.h - decompression of gzip, xz and zstd input ahead of its
 * reader, on threads of its own (decompress_pipe.c, decompress_split.c).
 *
 * One thread (the splitter) reads and digests the stored bytes in file order
 * and cuts them into units that decode independently: zstd frames, xz blocks
 * whose headers give their size.  Worker threads decode the units; their
 * output goes, in file order, into a bounded queue of buffers that
 * ks_dpipe_read hands out with one memcpy.  Where units cannot be found
 * without decoding (gzip members, an xz block without sizes, a zstd frame
 * larger than the splitter's window), one worker decodes that stretch as a
 * stream while the reader parses what came before: decompression still
 * overlaps parsing, it is just not split further.
 */
#ifndef KS_DECOMPRESS_H
#define KS_DECOMPRESS_H

#include "internal.h"

#include <stdio.h>
#include <xxhash.h>

typedef enum { KS_DPIPE_GZIP = 1, KS_DPIPE_XZ, KS_DPIPE_ZSTD } ks_dpipe_format;

/* The stored bytes: the splitter owns the file, the digest, the byte count
 * and the end flag from ks_dpipe_start until ks_dpipe_stop returns. */
typedef struct ks_dpipe_source {
    FILE *file;
    XXH3_state_t *hash;
    uint64_t *raw_bytes;
    bool *raw_eof;
    const char *path;
} ks_dpipe_source;

typedef struct ks_dpipe ks_dpipe;

/* Starts the splitter and `workers` decoding threads (>= 1).  `head` holds
 * the stored bytes already read (and digested) from the file.  Fails only
 * when memory or threads cannot be had; the caller then decodes serially. */
ks_status ks_dpipe_start(ks_dpipe_format format, const ks_dpipe_source *src,
                         const unsigned char *head, size_t head_len, int workers,
                         ks_dpipe **out, ks_error *err);
/* Next decompressed bytes in file order; *got = 0 at the end.  An error is
 * returned after every byte decoded before it, and again on later calls. */
ks_status ks_dpipe_read(ks_dpipe *p, unsigned char *dst, size_t cap, size_t *got,
                        ks_error *err);
/* Stops and joins the threads (also before the end of input) and frees p. */
void ks_dpipe_free(ks_dpipe *p);

/* Decoding threads to use when none is asked for: one per core, at most 8. */
int ks_dpipe_default_workers(void);

#endif
