/*
 * test_read_sparse.c - issue 14's leftovers on the reading side: plain CSV
 * detection over the whole header line (CRLF endings, more than 64
 * columns), ncu metric tables stored as the values read (memory follows the
 * values, not metrics times launches; merged processes find earlier cells),
 * and the memory-backed input the fuzz targets read through.
 */
#include "tmpdir.h"

#include <math.h>
#include <stdbool.h>

#include "internal.h"
#include "ksample.h"
#include "test_read.h"

static ks_profile *read_ok(const char *path, const char *format)
{
    return tr_read_ok(path, format, -1);
}

static void read_fails(const char *path, const char *msg)
{
    ks_profile *p = NULL;
    ks_error err;
    ks_error_clear(&err);
    ks_status st = ks_profile_read(path, NULL, &p, &err);
    if (st != KS_ERR_FORMAT || !strstr(err.message, msg))
        fail_msg("%s: status %d '%s', expected a format error with '%s'", path, st, err.message,
                 msg);
    assert_null(p);
}

/* A CRLF plain CSV was not detected: the header's last column kept its
 * "\r" ("duration_ns\r"). */
static void test_plain_crlf(void **state)
{
    (void)state;
    ks_profile *p = read_ok(write_text("crlf.csv", "name,duration_ns\r\nk,5\r\nk,7\r\nm,9\r\n"),
                            NULL);
    assert_string_equal(p->source_format, "plain-csv");
    assert_int_equal(p->n, 3);
    assert_int_equal(p->duration_ns[2], 9);
    assert_int_equal(p->name_count, 2);
    ks_profile_free(p);
}

/* Detection looked at the first 64 header fields and the reader took at most
 * 64: a header of 100 columns with name and duration_ns last is read. */
static void test_plain_wide_header(void **state)
{
    (void)state;
    char text[8192];
    size_t n = 0;
    for (int i = 0; i < 98; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "extra_column_%d,", i);
    n += (size_t)snprintf(text + n, sizeof text - n, "name,duration_ns\n");
    for (int row = 0; row < 2; row++) {
        for (int i = 0; i < 98; i++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%d,", i);
        n += (size_t)snprintf(text + n, sizeof text - n, "kern%d,%d\n", row, 10 + row);
    }
    ks_profile *p = read_ok(write_text("wide.csv", text), NULL);
    assert_string_equal(p->source_format, "plain-csv");
    assert_int_equal(p->n, 2);
    assert_int_equal(p->duration_ns[1], 11);
    assert_string_equal(p->names[p->name_id[1]], "kern1");
    ks_profile_free(p);
}

#define NCU_ROW(id, pid, metric, unit, value)                                              \
    "\"" id "\",\"" pid "\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(32, 1, 1)\","                  \
    "\"(4, 1, 1)\",\"0\",\"8.0\",\"S\",\"" metric "\",\"" unit "\",\"" value "\"\n"

static const ks_metric_column *metric(const ks_profile *p, const char *name)
{
    const ks_metric_column *c = ks_profile_find_metric(p, name);
    if (!c)
        fail_msg("no metric %s", name);
    return c;
}

/* Each launch with metrics of its own: every value lands at its launch,
 * NAN elsewhere. */
static void test_ncu_sparse_values(void **state)
{
    (void)state;
    char *text = malloc(1 << 16);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, TR_NCU_HEADER);
    for (int k = 0; k < 50; k++)
        n += (size_t)sprintf(text + n,
                             "\"%d\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\","
                             "\"(1, 1, 1)\",\"0\",\"8.0\",\"S\",\"m%d__x\",\"\",\"%d\"\n"
                             "\"%d\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\","
                             "\"(1, 1, 1)\",\"0\",\"8.0\",\"S\",\"all__y\",\"\",\"%d\"\n",
                             k, k % 10, k + 1, k, 1000 + k);
    ks_profile *p = read_ok(write_gzip("sparse.csv.gz", text, n), NULL);
    free(text);
    assert_int_equal(p->n, 50);
    assert_int_equal(p->metric_count, 11);
    const ks_metric_column *all = metric(p, "all__y");
    for (size_t i = 0; i < 50; i++)
        assert_true(all->values[i] == 1000 + (double)i);
    const ks_metric_column *m3 = metric(p, "m3__x");
    for (size_t i = 0; i < 50; i++)
        if (i % 10 == 3)
            assert_true(m3->values[i] == (double)i + 1);
        else
            assert_true(isnan(m3->values[i]));
    ks_profile_free(p);
}

/* A later process revisits earlier launches: a value given again is checked
 * against the one stored (the cell index), equal is fine, different is an
 * error. */
static void test_ncu_sparse_revisit(void **state)
{
    (void)state;
    const char *same = TR_NCU_HEADER NCU_ROW("0", "10", "a__x", "", "1")
        NCU_ROW("1", "10", "a__x", "", "2") NCU_ROW("2", "10", "a__x", "", "3")
        NCU_ROW("0", "11", "a__x", "", "1") NCU_ROW("0", "11", "b__x", "", "4")
        NCU_ROW("1", "11", "a__x", "", "2") NCU_ROW("2", "11", "b__x", "", "6");
    ks_profile *p = read_ok(write_text("same.csv", same), NULL);
    assert_int_equal(p->n, 3);
    const ks_metric_column *a = metric(p, "a__x"), *b = metric(p, "b__x");
    assert_true(a->values[0] == 1 && a->values[1] == 2 && a->values[2] == 3);
    assert_true(b->values[0] == 4 && isnan(b->values[1]) && b->values[2] == 6);
    ks_profile_free(p);
    const char *differs = TR_NCU_HEADER NCU_ROW("0", "10", "a__x", "", "1")
        NCU_ROW("1", "10", "a__x", "", "2") NCU_ROW("0", "11", "a__x", "", "5")
        NCU_ROW("1", "11", "a__x", "", "2");
    read_fails(write_text("differs.csv", differs), "given twice, as 1 and 5");
}

/* Over the dense limit: refused at the end, having held only the values
 * (the 100 KB file asked for 1.27 GB, then 322 MB). */
static void test_ncu_sparse_limit(void **state)
{
    (void)state;
    size_t n;
    char *text = tr_ncu_metric_per_launch(8000, &n);
    read_fails(write_gzip("limit.csv.gz", text, n), "8000 metrics over 8000 launches exceed");
    free(text);
}

/* The fuzz targets' input: memory read as a file is, compressed or not,
 * and an empty buffer is an empty input. */
static void test_memory_input(void **state)
{
    (void)state;
    ks_error err;
    ks_error_clear(&err);
    const char text[] = "name,duration_ns\nk,5\n";
    ks_input *in;
    assert_int_equal(ks_input_open_memory(text, sizeof text - 1, "mem.csv", &in, &err), KS_OK);
    ks_profile *p = NULL;
    assert_int_equal(ks_profile_read_input(in, NULL, &p, &err), KS_OK);
    ks_input_close(in);
    assert_int_equal(p->n, 1);
    assert_string_equal(p->source_path, "mem.csv");
    ks_profile *q = read_ok(write_text("mem.csv", text), NULL);
    assert_string_equal(p->source_xxh128, q->source_xxh128);
    ks_profile_free(p);
    ks_profile_free(q);

    assert_int_equal(ks_input_open_memory("", 0, "empty", &in, &err), KS_OK);
    assert_int_equal(ks_profile_read_input(in, NULL, &p, &err), KS_ERR_FORMAT);
    assert_null(p);
    assert_non_null(strstr(err.message, "empty"));
    ks_input_close(in);

    /* a folder-only format cannot read a stream */
    assert_int_equal(ks_input_open_memory(text, sizeof text - 1, "mem.csv", &in, &err), KS_OK);
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.format = "no-such-format";
    assert_int_equal(ks_profile_read_input(in, &opt, &p, &err), KS_ERR_USAGE);
    ks_input_close(in);
}

KS_TMPDIR_TEST_MAIN("ks_sparse",
                    test_plain_crlf,
                    test_plain_wide_header,
                    test_ncu_sparse_values,
                    test_ncu_sparse_revisit,
                    test_ncu_sparse_limit,
                    test_memory_input)
