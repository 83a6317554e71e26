/*
 * input.c - sequential reading of a file that may be gzip, xz or zstd
 * compressed, with a line reader on top and a digest of the stored bytes.
 *
 * Decompression uses zlib, liblzma and libzstd in streaming mode, so memory
 * stays bounded by the buffers whatever the file's size.  The digest is
 * XXH3-128 (libxxhash), the same value `xxh128sum` prints: SHA-256 (libmd,
 * and OpenSSL without SHA extensions) hashed at 150-380 MB/s on the bench
 * machine and took 59 % of the time to read a 2.8 GB profile (bench/, see
 * docs/design.md); XXH3 runs at memory speed.
 */
#include "decompress.h"
#include "internal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

/* A fuzzing build's memory limit for the serial xz decoder: it admits a
 * 1 MiB dictionary and refuses the next size an LZMA2 header can state
 * (1.5 MiB), the same dictionaries the threaded decoder refuses
 * (decompress_pipe.c), so the two agree on every input. */
#define XZ_FUZZ_MEMLIMIT ((uint64_t)5 << 18)

/* Fuzzing builds shrink the buffers so that short inputs refill, grow and
 * carry lines across buffer ends as large files do. */
#ifdef KS_FUZZ_BUFFERS
enum { RAW_CHUNK = 61, OUT_CHUNK = 127, PEEK_BYTES = 1000, DECODE_STEP = 127 };
#else
enum { RAW_CHUNK = 1 << 18, OUT_CHUNK = 1 << 20, PEEK_BYTES = 65536, DECODE_STEP = 1 << 14 };
#endif

typedef enum { COMP_NONE, COMP_GZIP, COMP_XZ, COMP_ZSTD } compression;

struct ks_input {
    FILE *file;
    int fd; /* file's descriptor, read without stdio; -1: read through file */
    char path[512];
    compression comp;
    XXH3_state_t *hash;
    uint64_t raw_bytes;
    bool raw_eof;
    bool stream_end; /* decompressor reached the end of its last frame */

    unsigned char *raw; /* compressed bytes not yet consumed */
    size_t raw_pos, raw_len;

    z_stream zs;
    bool zs_init;
    lzma_stream xz;
    bool xz_init;
    ZSTD_DStream *zstd;
    /* compressed input decodes on threads of its own, ahead of the reader
     * (decompress.h); threads = 0 decodes here, in the caller's thread */
    ks_dpipe *pipe;
    int threads;
    bool pipe_ended; /* stopped by ks_input_finish_digest */

    /* decompressed bytes not yet handed out */
    char *buf;
    size_t buf_pos, buf_len, buf_cap;
    bool eof;
    bool bom_checked; /* a UTF-8 byte order mark at the start is skipped */
    long line_number;
};

/* Up to cap stored bytes into dst, fewer only at the end of the file; they
 * go into the digest.  A file opened here is read with read(2) straight into
 * dst: stdio would copy the tail of each request through its own buffer. */
static ks_status read_stored(ks_input *in, unsigned char *dst, size_t cap, size_t *got,
                             ks_error *err)
{
    size_t n = 0;
    if (in->fd >= 0) {
        while (n < cap) {
            ssize_t r = read(in->fd, dst + n, cap - n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return ks_error_set(err, KS_ERR_IO, in->path, 0, "read failed: %s",
                                    strerror(errno));
            if (r == 0)
                break;
            n += (size_t)r;
        }
    } else {
        n = fread(dst, 1, cap, in->file);
        if (n < cap && ferror(in->file))
            return ks_error_set(err, KS_ERR_IO, in->path, 0, "read failed: %s",
                                strerror(errno));
    }
    if (n < cap)
        in->raw_eof = true;
    XXH3_128bits_update(in->hash, dst, n);
    in->raw_bytes += n;
    *got = n;
    return KS_OK;
}

static ks_status fill_raw(ks_input *in, ks_error *err)
{
    if (in->raw_pos < in->raw_len || in->raw_eof)
        return KS_OK;
    size_t got;
    ks_status st = read_stored(in, in->raw, RAW_CHUNK, &got, err);
    if (st != KS_OK)
        return st;
    in->raw_pos = 0;
    in->raw_len = got;
    return KS_OK;
}

static ks_status open_input(FILE *file, int fd, const char *path, ks_input **out,
                            ks_error *err);

/* The process's own descriptors by name (/dev/stdin, /dev/fd/N,
 * /proc/self/fd/N: a shell's process substitution): a pipe there is what
 * the caller asked to read. */
static bool own_descriptor_name(const char *path)
{
    return strcmp(path, "/dev/stdin") == 0 || strncmp(path, "/dev/fd/", 8) == 0 ||
           strncmp(path, "/proc/self/fd/", 14) == 0;
}

ks_status ks_file_open_read(const char *path, FILE **out, ks_error *err)
{
    *out = NULL;
    if (own_descriptor_name(path)) {
        if (!(*out = fopen(path, "rb")))
            return ks_error_set(err, KS_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
        return KS_OK;
    }
    /* O_NONBLOCK: opening a FIFO nobody writes to returns at once instead
     * of waiting for ever; it is then refused, as a device is */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        bool dir = S_ISDIR(sb.st_mode);
        close(fd);
        return ks_error_set(err, KS_ERR_IO, path, 0, "%s",
                            dir ? "is a folder, not a file"
                                : "is not a regular file (a FIFO, device or socket would be "
                                  "waited on): give a file, or '-' for standard input");
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (!(*out = fdopen(fd, "rb"))) {
        close(fd);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    return KS_OK;
}

ks_status ks_input_open(const char *path, ks_input **out, ks_error *err)
{
    *out = NULL;
    /* a profile or trace may come through a named pipe (copied like stdin
     * where a reader needs a file): opened as it is */
    FILE *file = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!file)
        return ks_error_set(err, KS_ERR_IO, path, 0, "cannot open: %s", strerror(errno));
    /* nothing has gone through the stream's buffer yet, so reading its
     * descriptor directly skips no byte */
    return open_input(file, fileno(file), path, out, err);
}

ks_status ks_input_open_file(const char *path, ks_input **out, ks_error *err)
{
    *out = NULL;
    FILE *file = stdin;
    if (strcmp(path, "-") != 0) {
        ks_status st = ks_file_open_read(path, &file, err);
        if (st != KS_OK)
            return st;
    }
    /* nothing has gone through the stream's buffer yet, so reading its
     * descriptor directly skips no byte */
    return open_input(file, fileno(file), path, out, err);
}

ks_status ks_input_open_stream(FILE *file, const char *path, ks_input **out, ks_error *err)
{
    return open_input(file, -1, path, out, err);
}

static ks_status open_input(FILE *file, int fd, const char *path, ks_input **out,
                            ks_error *err)
{
    *out = NULL;
    ks_input *in = calloc(1, sizeof *in);
    if (in)
        in->hash = XXH3_createState();
    if (!in || !in->hash || XXH3_128bits_reset(in->hash) != XXH_OK) {
        if (in)
            XXH3_freeState(in->hash);
        free(in);
        if (file != stdin)
            fclose(file);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    snprintf(in->path, sizeof in->path, "%s", path);
    in->threads = -1;
    in->file = file;
    in->fd = fd;
    in->raw = malloc(RAW_CHUNK);
    in->buf_cap = OUT_CHUNK * 2;
    in->buf = malloc(in->buf_cap + 1);
    if (!in->raw || !in->buf) {
        ks_input_close(in);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    ks_status st = fill_raw(in, err);
    if (st != KS_OK) {
        ks_input_close(in);
        return st;
    }
    const unsigned char *r = in->raw;
    size_t n = in->raw_len;
    if (n >= 2 && r[0] == 0x1f && r[1] == 0x8b) {
        in->comp = COMP_GZIP;
        if (inflateInit2(&in->zs, 15 + 16) != Z_OK) {
            ks_input_close(in);
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "zlib init failed");
        }
        in->zs_init = true;
    } else if (n >= 6 && memcmp(r, "\xfd" "7zXZ\0", 6) == 0) {
        in->comp = COMP_XZ;
        lzma_stream init = LZMA_STREAM_INIT;
        in->xz = init;
        if (lzma_stream_decoder(&in->xz, KS_FUZZ_SMALL(UINT64_MAX, XZ_FUZZ_MEMLIMIT), LZMA_CONCATENATED) != LZMA_OK) {
            ks_input_close(in);
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "liblzma init failed");
        }
        in->xz_init = true;
    } else if (n >= 4 && r[0] == 0x28 && r[1] == 0xb5 && r[2] == 0x2f && r[3] == 0xfd) {
        in->comp = COMP_ZSTD;
        in->zstd = ZSTD_createDStream();
        if (!in->zstd || ZSTD_isError(ZSTD_initDStream(in->zstd)) ||
            (KS_FUZZ_SMALL(0, 1) &&
             ZSTD_isError(ZSTD_DCtx_setParameter(in->zstd, ZSTD_d_windowLogMax, 20)))) {
            ks_input_close(in);
            return ks_error_set(err, KS_ERR_NOMEM, path, 0, "zstd init failed");
        }
    }
    *out = in;
    return KS_OK;
}

void ks_input_close(ks_input *in)
{
    if (!in)
        return;
    ks_dpipe_free(in->pipe); /* joins its threads before the file goes */
    if (in->file && in->file != stdin)
        fclose(in->file);
    if (in->zs_init)
        inflateEnd(&in->zs);
    if (in->xz_init)
        lzma_end(&in->xz);
    if (in->zstd)
        ZSTD_freeDStream(in->zstd);
    XXH3_freeState(in->hash);
    free(in->raw);
    free(in->buf);
    free(in);
}

const char *ks_input_path(const ks_input *in) { return in->path; }
long ks_input_line_number(const ks_input *in) { return in->line_number; }

const char *ks_input_compression(const ks_input *in)
{
    static const char *names[] = {"none", "gzip", "xz", "zstd"};
    return names[in->comp];
}

static ks_status corrupt(ks_input *in, const char *what, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, in->path, 0, "corrupt or truncated %s data",
                        what);
}

void ks_input_set_decompress_threads(ks_input *in, int threads)
{
    if (!in->pipe)
        in->threads = threads;
}

/* Hands the stored bytes read so far to the threads; false when they cannot
 * start (the caller then decodes serially). */
static bool start_pipe(ks_input *in)
{
    static const ks_dpipe_format formats[] = {0, KS_DPIPE_GZIP, KS_DPIPE_XZ, KS_DPIPE_ZSTD};
    ks_dpipe_source src = {in->file, in->hash, &in->raw_bytes, &in->raw_eof, in->path};
    int workers = in->threads < 0 ? ks_dpipe_default_workers() : in->threads;
    ks_error ignored;
    if (ks_dpipe_start(formats[in->comp], &src, in->raw + in->raw_pos,
                       in->raw_len - in->raw_pos, workers, &in->pipe, &ignored) != KS_OK) {
        in->threads = 0;
        return false;
    }
    in->raw_pos = in->raw_len;
    return true;
}

/* Decompresses into dst (at most cap bytes); *got = 0 only at the end. */
static ks_status produce(ks_input *in, unsigned char *dst, size_t cap, size_t *got,
                         ks_error *err)
{
    *got = 0;
    if (in->pipe)
        return ks_dpipe_read(in->pipe, dst, cap, got, err);
    if (in->pipe_ended)
        return KS_OK;
    /* a file whose stored bytes fit in the first read decodes faster here
     * than threads start (Accel-Sim folders hold thousands of small .xz) */
    bool small = in->threads < 0 && in->raw_eof;
    if (in->comp != COMP_NONE && in->threads != 0 && !small && start_pipe(in))
        return ks_dpipe_read(in->pipe, dst, cap, got, err);
    if (in->comp == COMP_NONE && in->raw_pos == in->raw_len && !in->raw_eof && cap >= RAW_CHUNK)
        return read_stored(in, dst, cap, got, err);
    while (*got == 0) {
        ks_status st = fill_raw(in, err);
        if (st != KS_OK)
            return st;
        size_t avail = in->raw_len - in->raw_pos;
        if (in->comp == COMP_NONE) {
            if (avail == 0)
                return KS_OK;
            size_t n = avail < cap ? avail : cap;
            memcpy(dst, in->raw + in->raw_pos, n);
            in->raw_pos += n;
            *got = n;
            return KS_OK;
        }
        if (avail == 0 && in->raw_eof) {
            if (!in->stream_end)
                return corrupt(in, ks_input_compression(in), err);
            return KS_OK;
        }
        if (in->comp == COMP_GZIP) {
            if (in->stream_end) {
                /* another gzip member follows (concatenated .gz files) */
                if (inflateReset(&in->zs) != Z_OK)
                    return corrupt(in, "gzip", err);
                in->stream_end = false;
            }
            in->zs.next_in = in->raw + in->raw_pos;
            in->zs.avail_in = (uInt)avail;
            in->zs.next_out = dst;
            in->zs.avail_out = (uInt)cap;
            int rc = inflate(&in->zs, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
                return corrupt(in, "gzip", err);
            in->raw_pos = (size_t)(in->zs.next_in - in->raw);
            *got = cap - in->zs.avail_out;
            if (rc == Z_STREAM_END)
                in->stream_end = true;
            else if (rc == Z_BUF_ERROR && *got == 0 && in->raw_eof)
                return corrupt(in, "gzip", err);
        } else if (in->comp == COMP_XZ) {
            in->xz.next_in = in->raw + in->raw_pos;
            in->xz.avail_in = avail;
            in->xz.next_out = dst;
            in->xz.avail_out = cap;
            lzma_ret rc = lzma_code(&in->xz, in->raw_eof ? LZMA_FINISH : LZMA_RUN);
            in->raw_pos = (size_t)(in->xz.next_in - in->raw);
            *got = cap - in->xz.avail_out;
            if (rc == LZMA_STREAM_END) {
                in->stream_end = true;
                if (*got == 0)
                    return KS_OK;
            } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
                return corrupt(in, "xz", err);
            } else if (rc == LZMA_BUF_ERROR && *got == 0) {
                return corrupt(in, "xz", err);
            }
        } else {
            ZSTD_inBuffer ib = {in->raw + in->raw_pos, avail, 0};
            ZSTD_outBuffer ob = {dst, cap, 0};
            size_t rc = ZSTD_decompressStream(in->zstd, &ob, &ib);
            if (ZSTD_isError(rc))
                return corrupt(in, "zstd", err);
            in->raw_pos += ib.pos;
            *got = ob.pos;
            in->stream_end = (rc == 0);
        }
    }
    return KS_OK;
}

static ks_status fill_buffer(ks_input *in, size_t want, ks_error *err);

/* Makes sure at least `want` bytes are buffered, unless the input ends.  The
 * first call drops a UTF-8 byte order mark: spreadsheet programs put one
 * before a CSV header, and no format here means anything by it. */
static ks_status buffer_at_least(ks_input *in, size_t want, ks_error *err)
{
    if (!in->bom_checked) {
        in->bom_checked = true;
        ks_status st = fill_buffer(in, 3, err);
        if (st != KS_OK)
            return st;
        if (in->buf_len - in->buf_pos >= 3 &&
            memcmp(in->buf + in->buf_pos, "\xef\xbb\xbf", 3) == 0)
            in->buf_pos += 3;
    }
    return fill_buffer(in, want, err);
}

static ks_status fill_buffer(ks_input *in, size_t want, ks_error *err)
{
    while (!in->eof && in->buf_len - in->buf_pos < want) {
        if (in->buf_pos > 0) {
            memmove(in->buf, in->buf + in->buf_pos, in->buf_len - in->buf_pos);
            in->buf_len -= in->buf_pos;
            in->buf_pos = 0;
        }
        if (in->buf_cap - in->buf_len < OUT_CHUNK) {
            size_t cap = in->buf_cap * 2;
            char *q = realloc(in->buf, cap + 1);
            if (!q)
                return ks_error_set(err, KS_ERR_NOMEM, in->path, 0, "out of memory");
            in->buf = q;
            in->buf_cap = cap;
        }
        /* decoding in this thread goes DECODE_STEP bytes at a time, so a
         * reader that stops early (a trace stream that has its blocks, a
         * header read) decodes little more than it reads */
        size_t room = in->buf_cap - in->buf_len, got;
        if (in->comp != COMP_NONE && !in->pipe && room > DECODE_STEP)
            room = DECODE_STEP;
        ks_status st = produce(in, (unsigned char *)in->buf + in->buf_len, room, &got, err);
        if (st != KS_OK)
            return st;
        if (got == 0)
            in->eof = true;
        in->buf_len += got;
        in->buf[in->buf_len] = '\0'; /* detectors may treat the head as a string */
    }
    return KS_OK;
}

ks_status ks_input_peek(ks_input *in, const char **data, size_t *len, ks_error *err)
{
    ks_status st = buffer_at_least(in, PEEK_BYTES, err);
    if (st != KS_OK)
        return st;
    *data = in->buf + in->buf_pos;
    *len = in->buf_len - in->buf_pos;
    return KS_OK;
}

ks_status ks_input_open_peek(const char *path, ks_input **out, const char **data, size_t *len,
                             ks_error *err)
{
    ks_status st = ks_input_open_file(path, out, err);
    if (st != KS_OK)
        return st;
    if ((st = ks_input_peek(*out, data, len, err)) != KS_OK) {
        ks_input_close(*out);
        *out = NULL;
    }
    return st;
}

ks_status ks_input_read(ks_input *in, void *dst, size_t size, size_t *got, ks_error *err)
{
    *got = 0;
    if (!in->bom_checked) {
        ks_status st = buffer_at_least(in, 0, err);
        if (st != KS_OK)
            return st;
    }
    if (in->buf_pos < in->buf_len) {
        size_t n = in->buf_len - in->buf_pos;
        if (n > size)
            n = size;
        memcpy(dst, in->buf + in->buf_pos, n);
        in->buf_pos += n;
        *got = n;
        return KS_OK;
    }
    if (in->eof)
        return KS_OK;
    ks_status st = produce(in, dst, size, got, err);
    if (st == KS_OK && *got == 0)
        in->eof = true;
    return st;
}

/* Text formats never hold a NUL byte, and every line is handed on as a C
 * string: a NUL would cut a kernel name short and merge distinct kernels. */
static ks_status nul_in_line(ks_input *in, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, in->path, in->line_number + 1,
                        "line holds a NUL byte (binary data in a text file?)");
}

static ks_status line_too_long(ks_input *in, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, in->path, in->line_number + 1,
                        "line is longer than %zu MB: not a profile (binary or damaged "
                        "data?)",
                        KS_MAX_LINE_BYTES >> 20 ? KS_MAX_LINE_BYTES >> 20 : 1);
}

ks_status ks_input_getline(ks_input *in, char **line, size_t *len, bool *truncated,
                           ks_error *err)
{
    *line = NULL;
    *len = 0;
    if (truncated)
        *truncated = false;
    size_t scanned = 0;
    for (;;) {
        char *start = in->buf + in->buf_pos;
        size_t avail = in->buf_len - in->buf_pos;
        char *nl = avail > scanned ? memchr(start + scanned, '\n', avail - scanned) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - start);
            if (memchr(start, '\0', n))
                return nul_in_line(in, err);
            if (n > KS_MAX_LINE_BYTES)
                return line_too_long(in, err);
            in->buf_pos += n + 1;
            if (n > 0 && start[n - 1] == '\r')
                n--;
            start[n] = '\0';
            *line = start;
            *len = n;
            in->line_number++;
            return KS_OK;
        }
        if (in->eof) {
            if (avail == 0)
                return KS_OK;
            if (memchr(start, '\0', avail))
                return nul_in_line(in, err);
            if (avail > KS_MAX_LINE_BYTES)
                return line_too_long(in, err);
            in->buf_pos = in->buf_len;
            if (avail > 0 && start[avail - 1] == '\r')
                avail--;
            start[avail] = '\0'; /* buf has one spare byte past buf_cap */
            *line = start;
            *len = avail;
            if (truncated)
                *truncated = true;
            in->line_number++;
            return KS_OK;
        }
        if (avail > KS_MAX_LINE_BYTES)
            return line_too_long(in, err);
        scanned = avail;
        ks_status st = buffer_at_least(in, avail + 1, err);
        if (st != KS_OK)
            return st;
    }
}

ks_status ks_input_finish_digest(ks_input *in, char hex[33], uint64_t *bytes, ks_error *err)
{
    if (in->pipe) {
        ks_dpipe_free(in->pipe);
        in->pipe = NULL;
        in->pipe_ended = true;
    }
    /* consume the raw file to its end so the digest covers every byte */
    while (!in->raw_eof) {
        in->raw_pos = in->raw_len;
        ks_status st = fill_raw(in, err);
        if (st != KS_OK)
            return st;
    }
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(in->hash));
    for (size_t i = 0; i < sizeof c.digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
    *bytes = in->raw_bytes;
    return KS_OK;
}
