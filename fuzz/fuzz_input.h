/*
 * fuzz_input.h - shared by the fuzz targets: hands the fuzzer's bytes to the
 * library as a file, since every reader starts from a path.
 *
 * Most targets read the bytes from memory (ks_input_open_memory).  Where a
 * path is needed, the bytes go to an in-memory file (memfd) named through
 * /proc/self/fd, so a target runs without touching the disk; where memfd is
 * missing, a file in $TMPDIR is used instead.  The line parsers get the
 * bytes line by line (fuzz_each_line), the folder readers as parts written
 * to files of a temporary folder (fuzz_next_part, fuzz_folder_*).
 */
#ifndef KS_FUZZ_INPUT_H
#define KS_FUZZ_INPUT_H

#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "ksample.h"

typedef struct fuzz_file {
    int fd;
    char path[64];
    char tmp[4096]; /* non-empty when a disk file was used */
} fuzz_file;

static inline int fuzz_write_all(int fd, const uint8_t *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Returns 0 and fills f, or -1 (the caller then skips the input). */
static inline int fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size)
{
    memset(f, 0, sizeof *f);
    f->fd = memfd_create("ksample-fuzz", 0);
    if (f->fd >= 0) {
        snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    } else {
        const char *dir = getenv("TMPDIR");
        snprintf(f->tmp, sizeof f->tmp, "%s/ksample-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
        f->fd = mkstemp(f->tmp);
        if (f->fd < 0)
            return -1;
        snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    }
    if (fuzz_write_all(f->fd, data, size) != 0) {
        close(f->fd);
        if (f->tmp[0])
            unlink(f->tmp);
        return -1;
    }
    return 0;
}

static inline void fuzz_file_close(fuzz_file *f)
{
    close(f->fd);
    if (f->tmp[0])
        unlink(f->tmp);
}

/* The nsys SQLite reader hands an uncompressed database to SQLite by path,
 * so those bytes still go through a file; everything else is read from
 * memory, the same input layer without the file system calls. */
static inline bool fuzz_needs_file(const uint8_t *data, size_t size)
{
    return size >= 16 && memcmp(data, "SQLite format 3", 16) == 0;
}

/* Reads data as format (NULL: detection) and checks what every profile must
 * satisfy whatever the input: a crash, a leak or a broken invariant is a
 * finding; an error status is not. */
static inline void fuzz_read_as(const uint8_t *data, size_t size, const char *format)
{
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.format = format;
    ks_profile *p = NULL;
    ks_error err;
    ks_error_clear(&err);
    ks_status st;
    fuzz_file f;
    bool file = fuzz_needs_file(data, size);
    if (file) {
        if (fuzz_file_open(&f, data, size) != 0)
            return;
        st = ks_profile_read(f.path, &opt, &p, &err);
    } else {
        ks_input *in;
        st = ks_input_open_memory(data, size, "fuzz-input", &in, &err);
        if (st != KS_OK)
            abort();
        st = ks_profile_read_input(in, &opt, &p, &err);
        ks_input_close(in);
    }
    if (st == KS_OK) {
        if (!p || p->n == 0)
            abort();
        for (size_t i = 0; i < p->n; i++)
            if (p->name_id[i] >= p->name_count)
                abort();
    } else if (p || !err.message[0] || st == KS_ERR_INTERNAL) {
        abort();
    }
    ks_profile_free(p);
    if (file)
        fuzz_file_close(&f);
}

/* The first byte of data picks an entry of formats (NULL: detection, so that
 * one corpus reaches both the detector and the readers behind it); *data and
 * *size then hold the rest.  False for an empty input, which the target
 * skips. */
static inline bool fuzz_pick_format(const uint8_t **data, size_t *size,
                                    const char *const *formats, size_t count,
                                    const char **format)
{
    if (*size == 0)
        return false;
    *format = formats[(*data)[0] % count];
    (*data)++;
    (*size)--;
    return true;
}

/* The whole target of a reader: LLVMFuzzerTestOneInput reads what follows the
 * first byte as detection or one of the formats named, picked by that byte. */
#define FUZZ_READER_TARGET(...)                                                            \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                           \
    {                                                                                      \
        static const char *const formats[] = {NULL, __VA_ARGS__};                          \
        const char *format;                                                                \
        if (fuzz_pick_format(&data, &size, formats, sizeof formats / sizeof formats[0],    \
                             &format))                                                     \
            fuzz_read_as(data, size, format);                                              \
        return 0;                                                                          \
    }

/* The line parsers (simulator logs, get_stats CSV) on the fuzzer's bytes as
 * ks_results_read feeds them: each line, cut at '\n' and numbered from 1, is
 * handed to line() as a C string (so a NUL inside a line ends it early, as a
 * C-string reader would), the piece after the last '\n' too, until line()
 * returns an error.  Returns KS_OK when every line was taken, line()'s error
 * otherwise, or KS_ERR_NOMEM when the copy could not be made (the target
 * then skips the input). */
typedef ks_status (*fuzz_line_fn)(void *ctx, char *line, long number, ks_error *err);

static inline ks_status fuzz_each_line(const uint8_t *data, size_t size, fuzz_line_fn line_fn,
                                       void *ctx, ks_error *err)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return KS_ERR_NOMEM;
    memcpy(copy, data, size);
    copy[size] = '\0';
    long number = 0;
    ks_status st = KS_OK;
    for (char *line = copy; st == KS_OK && line <= copy + size;) {
        char *end = memchr(line, '\n', (size_t)(copy + size - line));
        if (!end)
            end = copy + size;
        *end = '\0';
        st = line_fn(ctx, line, ++number, err);
        line = end + 1;
    }
    free(copy);
    return st;
}

/* The folder readers (trace folders) take the fuzzer's bytes as parts
 * separated by a line "%%", each written to a file of one temporary folder
 * that a target makes once and reuses.  fuzz_next_part: where the next
 * "\n%%\n" stands in data[from..size), size if nowhere. */
static inline size_t fuzz_next_part(const uint8_t *data, size_t size, size_t from)
{
    for (size_t i = from; i + 4 <= size; i++)
        if (memcmp(data + i, "\n%%\n", 4) == 0)
            return i;
    return size;
}

/* Makes the folder $TMPDIR/STEM-XXXXXX (and SUB inside it when not NULL)
 * into dir the first time, and registers cleanup for the exit; true when
 * dir is ready. */
static inline bool fuzz_folder_ready(char *dir, size_t cap, const char *stem, const char *sub,
                                     void (*cleanup)(void))
{
    if (dir[0])
        return true;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, cap, "%s/%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", stem);
    if (!mkdtemp(dir)) {
        dir[0] = '\0';
        return false;
    }
    if (sub) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, sub);
        mkdir(path, 0777);
    }
    atexit(cleanup);
    return true;
}

/* Writes data as dir/name (a link or file there is unlinked first); 0 or -1. */
static inline int fuzz_folder_put(const char *dir, const char *name, const uint8_t *data,
                                  size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && n == size ? 0 : -1;
}

static inline void fuzz_folder_drop(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* Removes the count files named, then SUB (when not NULL), then dir. */
static inline void fuzz_folder_remove(const char *dir, const char *const *names, size_t count,
                                      const char *sub)
{
    for (size_t i = 0; i < count; i++)
        fuzz_folder_drop(dir, names[i]);
    if (sub) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, sub);
        rmdir(path);
    }
    rmdir(dir);
}

#endif
