/*
 * test_read_sqlite.c - the Nsight Systems SQLite reader on databases built
 * here with the SQLite C API: old and new kernel-table schemas, launch order,
 * the device filter, name kinds, a gzip-compressed copy and standard input
 * (both read through a temporary file), and malformed exports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksample.h"
#include "test_read.h"
#include "tmpdir.h"

static int setup(void **state)
{
    (void)state;
    if (tmpdir_setup("ks-test-sqlite") != 0)
        return -1;
    /* the reader's temporary copies go here too, so the tests can check that
     * none is left behind */
    return setenv("TMPDIR", tmpdir, 1);
}

/* Builds the database name in the test folder from script; returns its path. */
static const char *make_db(const char *name, const char *script)
{
    const char *path = in_dir(name);
    unlink(path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, script, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("building %s: %s", path, msg ? msg : "?");
    sqlite3_close(db);
    return path;
}

/* The string table most hand-built exports below start with. */
#define STRING_IDS "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"

/* A gzip copy of src, named name in the test folder; returns its path. */
static const char *gzip_copy(const char *src, const char *name)
{
    size_t n;
    char *data = read_file(src, &n);
    const char *path = write_gzip(name, data, n);
    free(data);
    return path;
}

static long file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

/* Number of files in the test folder whose name starts with prefix. */
static int count_files(const char *prefix)
{
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* Older exports: no greenContextId, no shortName.  Rows are inserted out of
 * launch order; two share correlationId 11 (a graph launch). */
static const char old_schema[] =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
    " correlationId INTEGER, globalPid INTEGER,"
    " demangledName INTEGER NOT NULL REFERENCES StringIds(id),"
    " mangledName INTEGER REFERENCES StringIds(id), registersPerThread INTEGER NOT NULL,"
    " gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,"
    " blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
    " staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);"
    "INSERT INTO StringIds VALUES (1, 'void gemm<float>(float*, int)'), (2, '_Z4gemmIfEvPfi'),"
    " (3, 'reduce(int*)'), (4, '_Z6reducePi');"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
    " (3000, 3500, 0, 1, 7, 12, 99, 1, 2, 32, 64, 2, 1, 128, 1, 1, 0, 0),"
    " (1000, 1100, 0, 1, 7, 10, 99, 1, 2, 32, 64, 2, 1, 128, 1, 1, 0, 0),"
    " (2000, 2250, 0, 1, 13, 11, 99, 3, NULL, 24, 8, 1, 1, 256, 1, 1, 0, 0),"
    " (1900, 1950, 0, 1, 13, 11, 99, 3, 4, 24, 8, 1, 1, 256, 1, 1, 0, 0);";

/* Newer exports: greenContextId and shortName; kernels on two devices. */
static const char new_schema[] =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
    "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3'), (1, 'NVIDIA H100 80GB HBM3');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
    " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
    " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,"
    " launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,"
    " gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,"
    " blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
    " staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
    " localMemoryPerThread INTEGER, localMemoryTotal INTEGER, gridId INTEGER,"
    " sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);"
    "INSERT INTO StringIds VALUES (1, 'void flash_fwd<128>(Params)'), (2, 'flash_fwd'),"
    " (3, '_Z9flash_fwdILi128EEv6Params'), (4, 'void add(float*, float const*)'), (5, 'add'),"
    " (6, '_Z3addPfPKf');"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
    " (500, 800, 1, 2, NULL, 21, 5, 7, 4, 5, 6, 0, 0,"
    "  16, 40, 1, 1, 256, 1, 1, 0, 0, 0, 0, 9, 0, NULL, 1),"
    " (100, 400, 0, 1, NULL, 7, 3, 7, 1, 2, 3, 0, 0,"
    "  96, 108, 4, 1, 128, 1, 1, 1024, 0, 0, 0, 1, 0, NULL, 1),"
    " (450, 460, 0, 1, NULL, 7, 4, 7, 4, 5, 6, 0, 0,"
    "  16, 40, 1, 1, 256, 1, 1, 0, 0, 0, 0, 2, 0, NULL, 1),"
    " (900, 1900, 1, 2, NULL, 21, 6, 7, 1, 2, 3, 0, 0,"
    "  96, 108, 4, 1, 128, 1, 1, 1024, 0, 0, 0, 10, 0, NULL, 1),"
    " (50, 70, 0, 1, NULL, 7, 1, 7, 4, 5, 6, 0, 0,"
    "  16, 40, 1, 1, 256, 1, 1, 0, 0, 0, 0, 3, 0, NULL, 1);";

static ks_profile *read_ok(const char *path, const char *format, int device,
                           const char *name_kind)
{
    ks_read_options opt = tr_options(format, device);
    opt.name_kind = name_kind;
    return tr_read_ok_opt(path, &opt);
}

static ks_status read_fail(const char *path, const char *format, int device,
                           const char *name_kind, ks_error *err)
{
    ks_read_options opt = tr_options(format, device);
    opt.name_kind = name_kind;
    return tr_read_fails_opt(path, &opt, err);
}

static void check_old(const ks_profile *p)
{
    assert_string_equal(p->source_format, "nsys-sqlite");
    assert_int_equal(p->n, 4);
    /* correlationId 10, then the two rows of 11 by start, then 12 */
    tr_expect_durations(p, (const int64_t[]){100, 50, 250, 500}, 4);
    TR_EXPECT_COLUMN(p, start_ns, 1000, 1900, 2000, 3000);
    TR_EXPECT_COLUMN(p, correlation, 10, 11, 11, 12);
    assert_string_equal(ks_profile_name(p, 0), "void gemm<float>(float*, int)");
    assert_string_equal(ks_profile_name(p, 1), "reduce(int*)");
    assert_string_equal(ks_profile_name(p, 3), "void gemm<float>(float*, int)");
    assert_int_equal(p->name_count, 2);
    tr_expect_dims(p, 0, (const uint32_t[]){64, 2, 1}, (const uint32_t[]){128, 1, 1});
    tr_expect_dims(p, 1, (const uint32_t[]){8, 1, 1}, (const uint32_t[]){256, 1, 1});
    assert_non_null(p->stream);
    assert_int_equal(p->stream[0], 7);
    assert_int_equal(p->stream[1], 13);
}

static void test_old_schema(void **state)
{
    (void)state;
    const char *path = make_db("old.sqlite", old_schema);
    ks_profile *p = read_ok(path, NULL, -1, NULL);
    check_old(p);
    assert_int_equal(p->source_bytes, (uint64_t)file_size(path));
    ks_profile_free(p);

    p = read_ok(path, "nsys-sqlite", -1, "demangled");
    check_old(p);
    ks_profile_free(p);

    /* mangledName is NULL in one row: that row keeps its demangled name */
    p = read_ok(path, "nsys-sqlite", -1, "mangled");
    assert_int_equal(p->n, 4);
    assert_string_equal(ks_profile_name(p, 0), "_Z4gemmIfEvPfi");
    assert_string_equal(ks_profile_name(p, 1), "_Z6reducePi");
    assert_string_equal(ks_profile_name(p, 2), "reduce(int*)");
    ks_profile_free(p);

    /* asked for short names, which this export lacks: say what it has */
    ks_error err;
    assert_int_equal(read_fail(path, NULL, -1, "short", &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, path);
    assert_non_null(strstr(err.message, "shortName"));
    assert_non_null(strstr(err.message, "demangledName"));
    assert_non_null(strstr(err.message, "mangledName"));

    assert_int_equal(read_fail(path, NULL, -1, "pretty", &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "pretty"));
}

static void check_new_all(const ks_profile *p)
{
    assert_int_equal(p->n, 5);
    TR_EXPECT_COLUMN(p, correlation, 1, 3, 4, 5, 6);
    tr_expect_durations(p, (const int64_t[]){20, 300, 10, 300, 1000}, 5);
    TR_EXPECT_COLUMN(p, device, 0, 0, 0, 1, 1);
    assert_string_equal(ks_profile_name(p, 1), "void flash_fwd<128>(Params)");
    tr_expect_dims(p, 1, (const uint32_t[]){108, 4, 1}, (const uint32_t[]){128, 1, 1});
    assert_string_equal(p->device_name, "NVIDIA H100 80GB HBM3");
}

static void test_new_schema_devices(void **state)
{
    (void)state;
    const char *path = make_db("new.sqlite", new_schema);
    ks_profile *p = read_ok(path, NULL, -1, NULL);
    check_new_all(p);
    ks_profile_free(p);

    p = read_ok(path, NULL, 1, NULL);
    assert_int_equal(p->n, 2);
    assert_int_equal(p->correlation[0], 5);
    assert_int_equal(p->correlation[1], 6);
    assert_int_equal(p->device[0], 1);
    assert_int_equal(p->stream[0], 21);
    ks_profile_free(p);

    p = read_ok(path, "nsys-sqlite", 0, "short");
    assert_int_equal(p->n, 3);
    assert_string_equal(ks_profile_name(p, 0), "add");
    assert_string_equal(ks_profile_name(p, 1), "flash_fwd");
    assert_string_equal(ks_profile_name(p, 2), "add");
    ks_profile_free(p);

    ks_error err;
    assert_int_equal(read_fail(path, NULL, 3, NULL, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "no kernel invocations"));
}

static void test_order_by_start_without_correlation(void **state)
{
    (void)state;
    const char *path = make_db(
        "nocorr.sqlite",
        STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
                   " demangledName INTEGER);"
                   "INSERT INTO StringIds VALUES (1, 'a'), (2, 'b');"
                   "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 35, 2), (10, 12, 1),"
                   " (20, 27, 2);");
    ks_profile *p = read_ok(path, NULL, -1, NULL);
    assert_int_equal(p->n, 3);
    assert_int_equal(p->start_ns[0], 10);
    assert_int_equal(p->start_ns[1], 20);
    assert_int_equal(p->start_ns[2], 30);
    assert_int_equal(p->duration_ns[1], 7);
    assert_string_equal(ks_profile_name(p, 0), "a");
    assert_false(ks_profile_has_dims(p));        /* no launch shape in this export */
    assert_null(p->correlation); /* nor correlation ids */
    ks_profile_free(p);

    /* no deviceId column: a device filter cannot be honoured */
    ks_error err;
    assert_int_equal(read_fail(path, NULL, 0, NULL, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "deviceId"));
}

/* Regression: a start of INT64_MIN is KS_MISSING_I64, so when every row has
 * it the profile has no start column, and sorting into launch order read
 * p->start_ns[i] through a NULL pointer (a crash).  The rows now go by
 * correlationId, or keep their rowid order. */
static void test_every_start_missing(void **state)
{
    (void)state;
    const char *path = make_db(
        "minstart.sqlite",
        STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
                   " correlationId INTEGER, demangledName INTEGER);"
                   "INSERT INTO StringIds VALUES (1, 'a'), (2, 'b');"
                   "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                   " (-9223372036854775808, -9223372036854775800, 2, 2),"
                   " (-9223372036854775808, -9223372036854775805, 1, 1);");
    ks_profile *p = read_ok(path, NULL, -1, NULL);
    assert_int_equal(p->n, 2);
    assert_null(p->start_ns);
    assert_string_equal(ks_profile_name(p, 0), "a");
    tr_expect_durations(p, (const int64_t[]){3, 8}, 2);
    ks_profile_free(p);

    path = make_db("minstart-nocorr.sqlite",
                   STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER,"
                              " end INTEGER, demangledName INTEGER);"
                              "INSERT INTO StringIds VALUES (1, 'a'), (2, 'b');"
                              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                              " (-9223372036854775808, -9223372036854775800, 2),"
                              " (-9223372036854775808, -9223372036854775805, 1);");
    p = read_ok(path, NULL, -1, NULL);
    assert_int_equal(p->n, 2);
    assert_string_equal(ks_profile_name(p, 0), "b");
    assert_int_equal(p->duration_ns[0], 8);
    ks_profile_free(p);
}

static void test_gzip_copy(void **state)
{
    (void)state;
    const char *path = make_db("new2.sqlite", new_schema);
    const char *gz = gzip_copy(path, "new2.sqlite.gz");
    ks_profile *p = read_ok(gz, NULL, -1, NULL);
    check_new_all(p);
    assert_string_equal(p->source_format, "nsys-sqlite");
    /* the digest and size are of the compressed bytes on disk */
    assert_int_equal(p->source_bytes, (uint64_t)file_size(gz));
    ks_profile_free(p);
    p = read_ok(gz, "nsys-sqlite", 1, NULL);
    assert_int_equal(p->n, 2);
    ks_profile_free(p);
    assert_int_equal(count_files("ksample-nsys-"), 0);

    /* a failure after the copy also removes it */
    const char *bad = make_db("bad.sqlite", STRING_IDS);
    const char *badgz = gzip_copy(bad, "bad.sqlite.gz");
    ks_error err;
    assert_int_equal(read_fail(badgz, NULL, -1, NULL, &err), KS_ERR_FORMAT);
    assert_non_null(strstr(err.message, "CUPTI_ACTIVITY_KIND_KERNEL"));
    assert_string_equal(err.file, badgz);
    assert_int_equal(count_files("ksample-nsys-"), 0);
}

static void test_stdin(void **state)
{
    (void)state;
    const char *path = make_db("stdin.sqlite", old_schema);
    assert_non_null(freopen(path, "rb", stdin));
    ks_profile *p = read_ok("-", NULL, -1, NULL);
    check_old(p);
    ks_profile_free(p);
    assert_int_equal(count_files("ksample-nsys-"), 0);
}

/* A named pipe cannot be opened by SQLite either: it is copied like stdin. */
static void test_fifo(void **state)
{
    (void)state;
    const char *db = make_db("fifo-source.sqlite", old_schema);
    const char *fifo = in_dir("export.fifo");
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        FILE *in = fopen(db, "rb"), *out = fopen(fifo, "wb");
        char buf[4096];
        size_t n;
        while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, out);
        _exit(in && out && fclose(out) == 0 ? 0 : 1);
    }
    ks_profile *p = read_ok(fifo, NULL, -1, NULL);
    check_old(p);
    ks_profile_free(p);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(count_files("ksample-nsys-"), 0);
}

/* An export the reader must refuse: the error names the file and contains
 * every entry of part. */
typedef struct bad_export {
    const char *file, *format, *script;
    const char *part[3];
} bad_export;

static void check_refused(const bad_export *b, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const char *path = make_db(b[i].file, b[i].script);
        ks_error err;
        assert_int_equal(read_fail(path, b[i].format, -1, NULL, &err), KS_ERR_FORMAT);
        bool as_expected = true;
        for (size_t k = 0; k < 3 && b[i].part[k]; k++)
            as_expected = as_expected && strstr(err.message, b[i].part[k]);
        if (!as_expected) /* say which export before an assertion below fails */
            print_message("%s: %s\n", b[i].file, err.message);
        assert_string_equal(err.file, path);
        for (size_t k = 0; k < 3 && b[i].part[k]; k++)
            assert_non_null(strstr(err.message, b[i].part[k]));
    }
}

static void test_missing_parts(void **state)
{
    (void)state;
    static const bad_export cases[] = {
        {"nokernel.sqlite", NULL,
         STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER);",
         {"CUPTI_ACTIVITY_KIND_KERNEL"}},
        {"nostart.sqlite", "nsys-sqlite",
         STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, end INTEGER,"
                    " demangledName INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 1);",
         {"column start"}},
        {"nostrings.sqlite", NULL,
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
         " demangledName INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 1);",
         {"StringIds"}},
        {"noname.sqlite", NULL,
         STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2);",
         {"demangledName", "no name column"}},
    };
    check_refused(cases, sizeof cases / sizeof cases[0]);
}

static void test_bad_rows(void **state)
{
    (void)state;
    static const bad_export cases[] = {
        {"negative.sqlite", NULL,
         STRING_IDS "INSERT INTO StringIds VALUES (1, 'k');"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
                    " correlationId INTEGER, demangledName INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 1, 1), (50, 40, 7, 1);",
         {"rowid 2", "correlationId 7", "negative"}},
        {"dangling.sqlite", NULL,
         STRING_IDS "INSERT INTO StringIds VALUES (1, 'k');"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
                    " demangledName INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 1), (30, 40, 9);",
         {"9 is not an id in table StringIds"}},
        {"textstart.sqlite", NULL,
         STRING_IDS "INSERT INTO StringIds VALUES (1, 'k');"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, demangledName);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('soon', 20, 1);",
         {"not an integer"}},
        {"empty.sqlite", NULL,
         STRING_IDS "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
                    " demangledName INTEGER);",
         {"no kernel invocations"}},
    };
    check_refused(cases, sizeof cases / sizeof cases[0]);
}

static void test_not_a_database(void **state)
{
    (void)state;
    ks_error err;
    /* the magic, then garbage */
    unsigned char junk[8192];
    memcpy(junk, "SQLite format 3", 16);
    uint32_t x = 12345;
    for (size_t i = 16; i < sizeof junk; i++) {
        x = x * 1103515245u + 12345u;
        junk[i] = (unsigned char)(x >> 16);
    }
    const char *path = write_file("garbage.sqlite", junk, sizeof junk);
    assert_int_equal(read_fail(path, NULL, -1, NULL, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, path);

    /* only the magic */
    path = write_file("magic-only.sqlite", junk, 16);
    assert_int_not_equal(read_fail(path, NULL, -1, NULL, &err), KS_OK);

    /* a CSV forced through this reader */
    path = write_text("text.csv", "name,duration_ns\nk,5\n");
    assert_int_equal(read_fail(path, "nsys-sqlite", -1, NULL, &err), KS_ERR_FORMAT);
    assert_string_equal(err.file, path);
    assert_int_equal(count_files("ksample-nsys-"), 0);
}

KS_TEST_MAIN_FIXTURES(setup, tmpdir_teardown,
                      test_old_schema,
                      test_new_schema_devices,
                      test_order_by_start_without_correlation,
                      test_every_start_missing,
                      test_gzip_copy,
                      test_stdin,
                      test_fifo,
                      test_missing_parts,
                      test_bad_rows,
                      test_not_a_database)
