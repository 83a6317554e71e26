/*
 * input_memory.c - a ks_input over bytes already in memory, through a stdio
 * stream (fmemopen), so that the input layer above it (decompression, the
 * digest, lines, peeking) is the one every file goes through.  A fuzzing
 * target reads thousands of inputs a second this way with no file system
 * call: writing each to a file and opening it by path was a fifth of its
 * time.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

ks_status ks_input_open_memory(const void *data, size_t size, const char *name, ks_input **out,
                               ks_error *err)
{
    *out = NULL;
    /* fmemopen refuses an empty buffer: any one byte, of which none is read */
    static char none[1];
    FILE *f = fmemopen(size ? (void *)data : none, size ? size : 1, "rb");
    if (f && size == 0)
        fseek(f, 0, SEEK_END);
    if (!f)
        return ks_error_set(err, KS_ERR_IO, name, 0, "cannot open: %s", strerror(errno));
    return ks_input_open_stream(f, name, out, err);
}
