/*
 * test_decompress.c - compressed input decoded on threads (lib/io/
 * decompress_*.c) gives exactly what the serial decoder gives.
 *
 * Inputs are made here with the libraries: zstd frames one by one (of very
 * different sizes, empty ones, a skippable one, one larger than the
 * splitter's window), xz from the multi-threaded encoder (blocks with sizes
 * in their headers) and the single-threaded one (one block without), gzip
 * members one by one.  Each is read with the serial decoder (threads = 0)
 * and with 1, 2 and 3 decoding threads, by ks_input_read in odd sizes and
 * by ks_input_getline, and must give the original bytes, the same lines
 * and line numbers, and the digest of the file.  Damaged and cut inputs
 * must fail naming the file; the threads give at least every unit before
 * the damage first (the serial decoder may drop some of them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "internal.h"
#include "tmpdir.h"

static const int THREADS[] = {0, 1, 2, 3, -1};
#define NTHREADS (sizeof THREADS / sizeof THREADS[0])

/* ------------------------------------------------------------ buffers */

typedef struct buf {
    unsigned char *data;
    size_t len, cap;
} buf;

static void buf_put(buf *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
}

/* n bytes of CSV-like text: lines of 1 to ~200 characters, some "\r\n",
 * from a fixed generator; random enough (hex) that it compresses ~2x. */
static void make_text(buf *b, size_t n, uint64_t seed)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t x = seed * 2654435761u + 1;
    size_t start = b->len;
    char line[256];
    while (b->len - start < n) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        size_t len = 1 + (x >> 33) % 200, k = 0;
        for (; k < len; k++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            line[k] = k % 9 == 8 ? ',' : hex[(x >> 40) & 15];
        }
        if ((x >> 20) % 7 == 0)
            line[k++] = '\r';
        line[k++] = '\n';
        buf_put(b, line, k);
    }
    b->len = start + n; /* the last line may end without a newline */
}

/* ------------------------------------------------------------ encoders */

static void zstd_frame(buf *out, const unsigned char *data, size_t n, int level)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    assert_non_null(c);
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)));
    assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
    size_t cap = ZSTD_compressBound(n);
    unsigned char *tmp = malloc(cap);
    assert_non_null(tmp);
    size_t len = ZSTD_compress2(c, tmp, cap, data, n);
    assert_false(ZSTD_isError(len));
    buf_put(out, tmp, len);
    free(tmp);
    ZSTD_freeCCtx(c);
}

static void zstd_skippable(buf *out, size_t n)
{
    unsigned char h[8] = {0x53, 0x2a, 0x4d, 0x18, (unsigned char)n, (unsigned char)(n >> 8),
                          (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
    buf_put(out, h, 8);
    for (size_t i = 0; i < n; i++)
        buf_put(out, "\x7f", 1);
}

static void gzip_member(buf *out, const unsigned char *data, size_t n)
{
    z_stream z = {0};
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *tmp = malloc(cap);
    assert_non_null(tmp);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)n;
    z.next_out = tmp;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    buf_put(out, tmp, cap - z.avail_out);
    deflateEnd(&z);
    free(tmp);
}

/* One xz stream; block_size > 0: the multi-threaded encoder, whose blocks
 * carry their sizes; 0: one block without sizes. */
static void xz_stream(buf *out, const unsigned char *data, size_t n, uint64_t block_size)
{
    lzma_stream s = LZMA_STREAM_INIT;
    if (block_size) {
        lzma_mt mt = {.threads = 2, .block_size = block_size, .preset = 1,
                      .check = LZMA_CHECK_CRC64};
        assert_int_equal(lzma_stream_encoder_mt(&s, &mt), LZMA_OK);
    } else {
        assert_int_equal(lzma_easy_encoder(&s, 1, LZMA_CHECK_CRC32), LZMA_OK);
    }
    unsigned char tmp[65536];
    s.next_in = data;
    s.avail_in = n;
    lzma_ret rc;
    do {
        s.next_out = tmp;
        s.avail_out = sizeof tmp;
        rc = lzma_code(&s, LZMA_FINISH);
        assert_true(rc == LZMA_OK || rc == LZMA_STREAM_END);
        buf_put(out, tmp, sizeof tmp - s.avail_out);
    } while (rc != LZMA_STREAM_END);
    lzma_end(&s);
}

/* ------------------------------------------------------------ reading */

typedef struct result {
    ks_status st;
    ks_error err;
    buf bytes; /* what came out before the end or the error */
    char digest[33];
    uint64_t stored;
} result;

static void result_free(result *r) { free(r->bytes.data); }

/* Reads the whole input in reads of odd sizes. */
static result read_bytes(const char *path, int threads)
{
    result r = {0};
    ks_input *in;
    assert_int_equal(ks_input_open(path, &in, &r.err), KS_OK);
    ks_input_set_decompress_threads(in, threads);
    static const size_t sizes[] = {1, 7, 4096, 65537, 1 << 20, 3};
    unsigned char *tmp = malloc(1 << 20);
    assert_non_null(tmp);
    for (size_t k = 0;; k++) {
        size_t got;
        r.st = ks_input_read(in, tmp, sizes[k % 6], &got, &r.err);
        if (r.st != KS_OK || got == 0)
            break;
        buf_put(&r.bytes, tmp, got);
    }
    free(tmp);
    if (r.st == KS_OK)
        assert_int_equal(ks_input_finish_digest(in, r.digest, &r.stored, &r.err), KS_OK);
    ks_input_close(in);
    return r;
}

/* Lines as "number:text\n", as ks_input_getline gives them. */
static result read_lines(const char *path, int threads)
{
    result r = {0};
    ks_input *in;
    assert_int_equal(ks_input_open(path, &in, &r.err), KS_OK);
    ks_input_set_decompress_threads(in, threads);
    const char *head;
    size_t head_len;
    r.st = ks_input_peek(in, &head, &head_len, &r.err);
    for (;;) {
        char *line, num[32];
        size_t len;
        bool truncated;
        if (r.st != KS_OK)
            break;
        r.st = ks_input_getline(in, &line, &len, &truncated, &r.err);
        if (r.st != KS_OK || !line)
            break;
        int k = snprintf(num, sizeof num, "%ld%s:", ks_input_line_number(in), truncated ? "t" : "");
        buf_put(&r.bytes, num, (size_t)k);
        buf_put(&r.bytes, line, len);
        buf_put(&r.bytes, "\n", 1);
    }
    ks_input_close(in);
    return r;
}

static void file_digest(const buf *stored, char hex[33])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(stored->data, stored->len));
    for (size_t i = 0; i < sizeof c.digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
}

/* Every thread count gives the text, the serial reader's lines, and the
 * file's digest. */
static void check_good(const char *name, const buf *stored, const buf *text)
{
    const char *path = write_file(name, stored->data, stored->len);
    char want[33];
    file_digest(stored, want);
    result serial_lines = read_lines(path, 0);
    assert_int_equal(serial_lines.st, KS_OK);
    for (size_t t = 0; t < NTHREADS; t++) {
        result r = read_bytes(path, THREADS[t]);
        if (r.st != KS_OK)
            fail_msg("%s, %d threads: %s", name, THREADS[t], r.err.message);
        assert_int_equal(r.bytes.len, text->len);
        if (text->len)
            assert_memory_equal(r.bytes.data, text->data, text->len);
        assert_string_equal(r.digest, want);
        assert_int_equal(r.stored, stored->len);
        result_free(&r);
        result l = read_lines(path, THREADS[t]);
        assert_int_equal(l.st, KS_OK);
        assert_int_equal(l.bytes.len, serial_lines.bytes.len);
        if (l.bytes.len)
            assert_memory_equal(l.bytes.data, serial_lines.bytes.data, l.bytes.len);
        result_free(&l);
    }
    result_free(&serial_lines);
}

/* A damaged or cut input: every thread count fails with a format error
 * naming the file, after bytes of the text only, and at least the first
 * good_prefix of them (the units before the damage). */
static void check_bad(const char *name, const buf *stored, const buf *text, size_t good_prefix)
{
    const char *path = write_file(name, stored->data, stored->len);
    for (size_t t = 0; t < NTHREADS; t++) {
        result r = read_bytes(path, THREADS[t]);
        if (r.st != KS_ERR_FORMAT)
            fail_msg("%s, %d threads: status %d (%s), %zu bytes", name, THREADS[t], r.st,
                     r.err.message, r.bytes.len);
        assert_string_equal(r.err.file, path);
        assert_non_null(strstr(r.err.message, "corrupt or truncated"));
        /* the serial decoder drops the output of its failing call, which
         * may hold earlier units too */
        size_t good = THREADS[t] == 0 ? 0 : good_prefix;
        if (r.bytes.len < good)
            fail_msg("%s, %d threads: %zu bytes before the error, want >= %zu", name,
                     THREADS[t], r.bytes.len, good);
        assert_true(r.bytes.len <= text->len);
        if (good)
            assert_memory_equal(r.bytes.data, text->data, good);
        result_free(&r);
        result l = read_lines(path, THREADS[t]);
        assert_int_equal(l.st, KS_ERR_FORMAT);
        result_free(&l);
    }
}

/* ------------------------------------------------------------ the cases */

/* Frame sizes from 0 to 1.5 MB, so that jobs group small frames, split at
 * large ones, and lines cross frame ends. */
static const size_t FRAME_SIZES[] = {1000,  0,     1,      250000, 17, 1500000, 0,
                                     90000, 4096,  300000, 5,      0,  700000,  123457};
#define NFRAMES (sizeof FRAME_SIZES / sizeof FRAME_SIZES[0])

static void zstd_frames(buf *stored, buf *text, size_t *frame_at, size_t *frame_text_at)
{
    for (size_t i = 0; i < NFRAMES; i++) {
        size_t from = text->len;
        make_text(text, FRAME_SIZES[i], i + 1);
        if (frame_at)
            frame_at[i] = stored->len, frame_text_at[i] = from;
        zstd_frame(stored, text->data + from, FRAME_SIZES[i], (int)(i % 5) + 1);
        if (i == 3)
            zstd_skippable(stored, 100);
    }
}

static void test_zstd_multi_frame(void **state)
{
    buf stored = {0}, text = {0};
    zstd_frames(&stored, &text, NULL, NULL);
    check_good("multi.zst", &stored, &text);
    free(stored.data);
    free(text.data);
}

/* One frame larger than the splitter's window (streamed to one worker),
 * between small frames: what follows it must come back in order. */
static void test_zstd_large_frame(void **state)
{
    buf stored = {0}, text = {0};
    make_text(&text, 5000, 100);
    zstd_frame(&stored, text.data, 5000, 3);
    size_t from = text.len;
    make_text(&text, 12 << 20, 101);
    zstd_frame(&stored, text.data + from, 12 << 20, 1);
    for (int i = 0; i < 5; i++) {
        from = text.len;
        make_text(&text, 3000 * (size_t)i, 102 + (uint64_t)i);
        zstd_frame(&stored, text.data + from, 3000 * (size_t)i, 3);
    }
    check_good("large.zst", &stored, &text);
    free(stored.data);
    free(text.data);

    buf one = {0}, t1 = {0};
    make_text(&t1, 3 << 20, 7);
    zstd_frame(&one, t1.data, t1.len, 3);
    check_good("single.zst", &one, &t1);
    free(one.data);
    free(t1.data);
}

static void test_zstd_damaged(void **state)
{
    buf stored = {0}, text = {0};
    size_t at[NFRAMES], text_at[NFRAMES];
    zstd_frames(&stored, &text, at, text_at);
    /* damage the middle of frame 7 (90000 bytes of text) */
    size_t mid = at[7] + (at[8] - at[7]) / 2;
    stored.data[mid] ^= 0x5a;
    stored.data[mid + 1] ^= 0xa5;
    check_bad("damaged.zst", &stored, &text, text_at[7]);
    stored.data[mid] ^= 0x5a;
    stored.data[mid + 1] ^= 0xa5;
    /* cut inside frame 9, and one byte short of the end */
    size_t len = stored.len;
    stored.len = at[9] + 100;
    check_bad("cut.zst", &stored, &text, text_at[9]);
    stored.len = len - 1;
    check_bad("short.zst", &stored, &text, text_at[NFRAMES - 1]);
    /* garbage after the last frame */
    stored.len = len;
    buf_put(&stored, "garbage!", 8);
    check_bad("trailing.zst", &stored, &text, text.len);
    free(stored.data);
    free(text.data);
}

static void test_xz_blocks(void **state)
{
    buf stored = {0}, text = {0};
    make_text(&text, 2500000, 11);
    xz_stream(&stored, text.data, text.len, 200000);
    check_good("multi.xz", &stored, &text);
    /* a second stream after stream padding, then a single-block stream */
    size_t from = text.len;
    make_text(&text, 300000, 12);
    buf_put(&stored, "\0\0\0\0\0\0\0\0", 8);
    xz_stream(&stored, text.data + from, text.len - from, 65536);
    from = text.len;
    make_text(&text, 400000, 13);
    xz_stream(&stored, text.data + from, text.len - from, 0);
    check_good("streams.xz", &stored, &text);
    /* an empty stream */
    buf empty = {0}, none = {0};
    xz_stream(&empty, (const unsigned char *)"", 0, 65536);
    check_good("empty.xz", &empty, &none);
    free(empty.data);
    free(stored.data);
    free(text.data);
}

static void test_xz_single_block(void **state)
{
    buf stored = {0}, text = {0};
    make_text(&text, 1500000, 21);
    xz_stream(&stored, text.data, text.len, 0);
    check_good("single.xz", &stored, &text);
    free(stored.data);
    free(text.data);
}

static void test_xz_damaged(void **state)
{
    buf stored = {0}, text = {0};
    make_text(&text, 2000000, 31);
    xz_stream(&stored, text.data, text.len, 250000);
    size_t len = stored.len;
    /* the middle of the file is in the fourth block of eight (each about
     * 250 kB of text); blocks before it must come out whole */
    stored.data[len / 2] ^= 0x40;
    check_bad("damaged.xz", &stored, &text, 2 * 250000);
    stored.data[len / 2] ^= 0x40;
    stored.len = len / 2;
    check_bad("cut.xz", &stored, &text, 2 * 250000);
    stored.len = len - 1; /* inside the footer */
    check_bad("short.xz", &stored, &text, text.len);
    stored.len = len;
    buf_put(&stored, "\0\0\0", 3); /* padding not a multiple of four */
    check_bad("padding.xz", &stored, &text, text.len);
    free(stored.data);
    free(text.data);
}

static void test_gzip_members(void **state)
{
    buf stored = {0}, text = {0};
    for (size_t i = 0; i < NFRAMES; i++) {
        size_t from = text.len;
        make_text(&text, FRAME_SIZES[i], 40 + i);
        gzip_member(&stored, text.data + from, FRAME_SIZES[i]);
    }
    check_good("multi.gz", &stored, &text);
    size_t len = stored.len;
    stored.len = len - 3;
    check_bad("cut.gz", &stored, &text, text.len - FRAME_SIZES[NFRAMES - 1]);
    stored.len = len;
    stored.data[len / 2] ^= 0x21;
    check_bad("damaged.gz", &stored, &text, 0);
    free(stored.data);
    free(text.data);

    buf one = {0}, t1 = {0};
    make_text(&t1, 2 << 20, 50);
    gzip_member(&one, t1.data, t1.len);
    check_good("single.gz", &one, &t1);
    free(one.data);
    free(t1.data);
}

/* Closing before the end, and finishing the digest before the end, stop
 * the threads cleanly (the sanitizer build checks for leaks) and still
 * digest every stored byte. */
static void test_early_close(void **state)
{
    buf stored = {0}, text = {0};
    zstd_frames(&stored, &text, NULL, NULL);
    const char *path = write_file("early.zst", stored.data, stored.len);
    char want[33];
    file_digest(&stored, want);
    for (size_t t = 0; t < NTHREADS; t++) {
        for (size_t stop_after = 0; stop_after < 4; stop_after++) {
            ks_input *in;
            ks_error err;
            assert_int_equal(ks_input_open(path, &in, &err), KS_OK);
            ks_input_set_decompress_threads(in, THREADS[t]);
            unsigned char tmp[5000];
            size_t got;
            for (size_t k = 0; k < stop_after * 50; k++)
                assert_int_equal(ks_input_read(in, tmp, sizeof tmp, &got, &err), KS_OK);
            if (stop_after % 2) {
                char hex[33];
                uint64_t bytes;
                assert_int_equal(ks_input_finish_digest(in, hex, &bytes, &err), KS_OK);
                assert_string_equal(hex, want);
                assert_int_equal(bytes, stored.len);
            }
            ks_input_close(in);
        }
    }
    free(stored.data);
    free(text.data);
}

/* A profile read from multi-frame .zst, .xz and .gz equals the plain read. */
static void test_profile_equal(void **state)
{
    char *csv = NULL;
    size_t csv_len = 0;
    FILE *f = open_memstream(&csv, &csv_len);
    assert_non_null(f);
    ks_synth_options so = {.preset = "casio-like", .n = 60000, .seed = 3};
    ks_error err;
    assert_int_equal(ks_synth_write(&so, f, &err), KS_OK);
    assert_int_equal(fclose(f), 0);
    const char *plain = write_file("p.csv", csv, csv_len);
    buf z = {0}, x = {0}, g = {0};
    for (size_t at = 0; at < csv_len; at += 700000) {
        size_t n = csv_len - at < 700000 ? csv_len - at : 700000;
        zstd_frame(&z, (unsigned char *)csv + at, n, 3);
        gzip_member(&g, (unsigned char *)csv + at, n);
    }
    xz_stream(&x, (unsigned char *)csv, csv_len, 500000);
    const char *paths[] = {write_file("p.csv.zst", z.data, z.len),
                           write_file("p.csv.xz", x.data, x.len),
                           write_file("p.csv.gz", g.data, g.len)};
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *a;
    assert_int_equal(ks_profile_read(plain, &opt, &a, &err), KS_OK);
    assert_int_equal(a->n, 60000);
    for (size_t i = 0; i < 3; i++) {
        ks_profile *b;
        if (ks_profile_read(paths[i], &opt, &b, &err) != KS_OK)
            fail_msg("%s: %s", paths[i], err.message);
        assert_int_equal(b->n, a->n);
        assert_int_equal(b->name_count, a->name_count);
        for (size_t k = 0; k < a->name_count; k++)
            assert_string_equal(a->names[k], b->names[k]);
        assert_memory_equal(a->duration_ns, b->duration_ns, a->n * sizeof *a->duration_ns);
        assert_memory_equal(a->name_id, b->name_id, a->n * sizeof *a->name_id);
        assert_string_not_equal(a->source_xxh128, b->source_xxh128);
        ks_profile_free(b);
    }
    ks_profile_free(a);
    free(csv);
    free(z.data);
    free(x.data);
    free(g.data);
}

KS_TMPDIR_TEST_MAIN("ks-decompress",
                    test_zstd_multi_frame,
                    test_zstd_large_frame,
                    test_zstd_damaged,
                    test_xz_blocks,
                    test_xz_single_block,
                    test_xz_damaged,
                    test_gzip_members,
                    test_early_close,
                    test_profile_equal)
