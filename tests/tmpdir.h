/*
 * tmpdir.h - a temporary folder for the inputs a test program writes at run
 * time, and writers for plain, gzip, xz and zstd files in it.
 *
 * One folder per program: KS_TMPDIR_TEST_MAIN, or tmpdir_setup() from a
 * cmocka group setup and tmpdir_teardown as the group teardown.  Header-only (static inline, so the
 * helpers a program does not use cost nothing and draw no warning) because
 * each test file is its own program.  Failures are cmocka failures: the
 * helpers assert, so callers get a path they can use or a failed test.
 */
#ifndef KS_TEST_TMPDIR_H
#define KS_TEST_TMPDIR_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "test_main.h"

/* The program's folder; empty before tmpdir_setup. */
static char tmpdir[4096];

/* Creates $TMPDIR/prefix-XXXXXX (/tmp without TMPDIR); 0, or -1 so that a
 * group setup can return it as is. */
static inline int tmpdir_setup(const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", prefix);
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* Removes path and, for a folder, everything below it; links are removed,
 * never followed. */
static inline int tmpdir_remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[8192];
        int n = snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        rc |= n >= 0 && (size_t)n < sizeof sub ? tmpdir_remove(sub) : -1;
    }
    closedir(d);
    return rmdir(path) | rc;
}

/* Group teardown: the folder and all a test left in it (a failed test may
 * leave anything, subfolders included). */
static inline int tmpdir_teardown(void **state)
{
    (void)state;
    return tmpdir[0] ? tmpdir_remove(tmpdir) : 0;
}

/* main() (test_main.h) for a program whose tests write into the folder
 * $TMPDIR/prefix-XXXXXX: made before the first test runs, removed with all
 * in it after the last. */
#define KS_TMPDIR_TEST_MAIN(prefix, ...)                                                       \
    static int tmpdir_group_setup(void **state)                                                \
    {                                                                                          \
        (void)state;                                                                           \
        return tmpdir_setup(prefix);                                                           \
    }                                                                                          \
    KS_TEST_MAIN_FIXTURES(tmpdir_group_setup, tmpdir_teardown, __VA_ARGS__)

/* tmpdir/name.  The result lives in a ring of 16 buffers, so a test can hold
 * several paths at once without copying them. */
static inline const char *in_dir(const char *name)
{
    static char paths[16][8192];
    static unsigned next;
    char *p = paths[next++ % 16];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

/* Writes n bytes to tmpdir/name and returns its path (see in_dir). */
static inline const char *write_file(const char *name, const void *data, size_t n)
{
    const char *path = in_dir(name);
    /* a fresh file, not a truncated one: ext4 flushes a file rewritten by
     * truncation when it is closed, which costs ms a call for tests that
     * rewrite one name thousands of times */
    unlink(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    return path;
}

static inline const char *write_text(const char *name, const char *text)
{
    return write_file(name, text, strlen(text));
}

static inline const char *write_gzip(const char *name, const void *data, size_t n)
{
    const char *path = in_dir(name);
    unlink(path);
    gzFile gz = gzopen(path, "wb");
    assert_non_null(gz);
    /* gzwrite takes an unsigned count and returns an int */
    assert_true(n <= INT32_MAX);
    assert_int_equal(gzwrite(gz, data, (unsigned)n), (int)n);
    assert_int_equal(gzclose(gz), Z_OK);
    return path;
}

static inline const char *write_xz(const char *name, const void *data, size_t n)
{
    size_t cap = lzma_stream_buffer_bound(n), len = 0;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)data,
                                             n, out, &len, cap),
                     LZMA_OK);
    const char *path = write_file(name, out, len);
    free(out);
    return path;
}

static inline const char *write_zstd(const char *name, const void *data, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    void *out = malloc(cap);
    assert_non_null(out);
    size_t len = ZSTD_compress(out, cap, data, n, 3);
    assert_false(ZSTD_isError(len));
    const char *path = write_file(name, out, len);
    free(out);
    return path;
}

/* The whole of a file, NUL-terminated (the NUL not counted in *len); the
 * caller frees it.  Reads to the end, so it works on pipes too. */
static inline char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 65536, n = 0, got;
    char *data = malloc(cap + 1);
    assert_non_null(data);
    while ((got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap + 1);
            assert_non_null(data);
        }
    }
    assert_false(ferror(f));
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

#ifdef KS_CLI
/* Runs the command built beside the tests (KS_CLI) with args (a shell's
 * words), its standard error into tmpdir/stderr.txt; returns its standard
 * output (malloc'd, the caller frees it) and its wait status in *status. */
static inline char *tmpdir_run_cli(const char *args, int *status)
{
    char cmd[20000];
    int n = snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", KS_CLI, args, in_dir("stderr.txt"));
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t cap = 1 << 16, len = 0, got;
    char *out = malloc(cap);
    assert_non_null(out);
    while ((got = fread(out + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
    }
    out[len] = '\0';
    *status = pclose(f);
    return out;
}
#endif

#endif
