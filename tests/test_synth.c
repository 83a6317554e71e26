/*
 * test_synth.c - the synthetic workload generator (lib/synth/synth.c).
 *
 * Every preset's output is parsed here with the library's own CSV splitter and
 * checked row by row against what nsys's cuda_kern_exec_trace report
 * guarantees (launch order, API call before the kernel, the queue and total
 * columns' definitions, "%4d %4d %4d" dimensions).  casio-like is also checked
 * for the distribution shapes it promises, and every preset is read back
 * through ks_profile_read to prove the real reader sees the same workload.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ksample.h"
#include "tmpdir.h"
#include "test_util.h"

#define HAVE_NSYS_CSV_READER 1

static const char HEADER[] =
    "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
    "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name";

static const char *const PRESETS[] = {"casio-like", "identical", "multi-peak", "rare-heavy",
                                      "rodinia-like", "stable"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int64_t cell(const char *s)
{
    int64_t v;
    bool missing;
    if (!ks_parse_i64(s, &v, &missing) || missing)
        fail_msg("not an integer: '%s'", s);
    return v;
}

/* Parses the whole output, asserting every per-row invariant, into a profile
 * (durations, starts, names, grid and block). */
static ks_profile *parse(char *buf, size_t len, uint64_t n, bool *saw_quotes)
{
    char *line = buf, *end = buf + len;
    char *nl = memchr(line, '\n', len);
    assert_non_null(nl);
    *nl = '\0';
    assert_string_equal(line, HEADER);
    line = nl + 1;

    ks_profile *p = ks_profile_new();
    assert_non_null(p);
    int64_t last_api = -1, last_start = -1;
    uint64_t rows = 0;
    *saw_quotes = false;
    while (line < end) {
        nl = memchr(line, '\n', (size_t)(end - line));
        assert_non_null(nl); /* every row ends with a newline */
        *nl = '\0';
        if (memchr(line, '"', (size_t)(nl - line)))
            *saw_quotes = true;
        char *f[16];
        int nf = ks_csv_split(line, (size_t)(nl - line), f, 16);
        if (nf != 14)
            fail_msg("row %llu has %d fields: %s", (unsigned long long)rows + 1, nf, line);
        int64_t api = cell(f[0]), api_dur = cell(f[1]), start = cell(f[4]), dur = cell(f[5]),
                total = cell(f[6]);
        assert_true(dur >= 1);
        assert_true(api_dur >= 1);
        assert_true(api > last_api);     /* rows in launch (API call) order */
        assert_true(start > last_start); /* one stream: kernels in launch order */
        assert_true(api < start);
        int64_t api_end = api + api_dur, kernel_end = start + dur;
        /* nsys: queue time only when the kernel starts after the call returns */
        if (start >= api_end) {
            assert_int_equal(cell(f[2]), api_end);
            assert_int_equal(cell(f[3]), start - api_end);
        } else {
            assert_string_equal(f[2], "");
            assert_string_equal(f[3], "");
        }
        assert_int_equal(total, (kernel_end > api_end ? kernel_end : api_end) - api);
        assert_true(cell(f[7]) > 0);
        assert_int_equal(cell(f[7]), cell(f[8]));
        assert_int_equal(cell(f[9]), 0);
        assert_true(strncmp(f[10], "cu", 2) == 0);
        uint32_t grid[3], block[3];
        assert_true(ks_parse_dim3(f[11], grid));
        assert_true(ks_parse_dim3(f[12], block));
        char dims[64];
        snprintf(dims, sizeof dims, "%4u %4u %4u", grid[0], grid[1], grid[2]);
        assert_string_equal(f[11], dims);
        snprintf(dims, sizeof dims, "%4u %4u %4u", block[0], block[1], block[2]);
        assert_string_equal(f[12], dims);
        for (int k = 0; k < 3; k++)
            assert_true(grid[k] >= 1 && block[k] >= 1);
        assert_true(block[0] * block[1] * block[2] <= 1024);
        size_t name_len = strlen(f[13]);
        assert_true(name_len > 0);
        assert_true(f[13][0] != ' ' && f[13][name_len - 1] != ' ');

        assert_int_equal(tu_append_at(p, f[13], dur, start, grid, block), KS_OK);
        last_api = api;
        last_start = start;
        rows++;
        line = nl + 1;
    }
    assert_int_equal(rows, n);
    return p;
}

/* A preset's output, parsed and checked row by row (parse). */
static ks_profile *synth_parsed(const char *preset, uint64_t n, uint64_t seed, bool *saw_quotes)
{
    size_t len;
    char *buf = tu_synth(preset, n, seed, &len);
    ks_profile *p = parse(buf, len, n, saw_quotes);
    free(buf);
    return p;
}

/* ------------------------------------------------------ per-name statistics */

typedef struct name_stats {
    uint64_t count;
    int64_t min, max;
    double mean, m2; /* Welford */
    bool several_configs;
    uint32_t grid[3], block[3];
    bool multimodal;
} name_stats;

typedef struct pair {
    uint32_t name;
    int64_t dur;
} pair;

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->dur > y->dur) - (x->dur < y->dur);
}

/* Two substantial masses (>= 10 % each) separated by a quarter-octave bin
 * that holds < 0.5 %: a unimodal lognormal, even with CV 0.6, has no such bin
 * between its 10 % and 90 % points. */
static bool is_multimodal(const pair *v, size_t n)
{
    if (n < 200)
        return false;
    double lo = log2((double)v[0].dur), hi = log2((double)v[n - 1].dur);
    size_t bins = (size_t)((hi - lo) / 0.25) + 1;
    size_t *h = calloc(bins, sizeof *h);
    assert_non_null(h);
    for (size_t i = 0; i < n; i++)
        h[(size_t)((log2((double)v[i].dur) - lo) / 0.25)]++;
    bool found = false;
    size_t below = 0;
    for (size_t b = 0; b < bins && !found; b++) {
        if (below >= n / 10 && n - below - h[b] >= n / 10 && h[b] * 200 < n)
            found = true;
        below += h[b];
    }
    free(h);
    return found;
}

static name_stats *stats_of(const ks_profile *p)
{
    name_stats *st = calloc(p->name_count, sizeof *st);
    pair *v = malloc(p->n * sizeof *v);
    assert_non_null(st);
    assert_non_null(v);
    for (size_t i = 0; i < p->n; i++) {
        name_stats *s = &st[p->name_id[i]];
        int64_t d = p->duration_ns[i];
        const uint32_t *g = ks_profile_grid(p, i), *b = ks_profile_block(p, i);
        if (s->count == 0) {
            s->min = s->max = d;
            memcpy(s->grid, g, sizeof s->grid);
            memcpy(s->block, b, sizeof s->block);
        } else if (memcmp(s->grid, g, sizeof s->grid) || memcmp(s->block, b, sizeof s->block))
            s->several_configs = true;
        s->count++;
        s->min = d < s->min ? d : s->min;
        s->max = d > s->max ? d : s->max;
        double delta = (double)d - s->mean;
        s->mean += delta / (double)s->count;
        s->m2 += delta * ((double)d - s->mean);
        v[i] = (pair){p->name_id[i], d};
    }
    qsort(v, p->n, sizeof *v, pair_cmp);
    for (size_t i = 0; i < p->n;) {
        size_t j = i;
        while (j < p->n && v[j].name == v[i].name)
            j++;
        st[v[i].name].multimodal = is_multimodal(v + i, j - i);
        i = j;
    }
    free(v);
    return st;
}

static double cv(const name_stats *s)
{
    return s->count > 1 && s->mean > 0 ? sqrt(s->m2 / (double)s->count) / s->mean : 0;
}

/* ---------------------------------------------------------------- tests */

static void test_presets_listed(void **state)
{
    (void)state;
    const char *const *list = ks_synth_presets();
    size_t pairs = 0;
    for (; list[2 * pairs]; pairs++) {
        assert_non_null(list[2 * pairs + 1]);
        assert_true(strlen(list[2 * pairs + 1]) > 10);
    }
    assert_int_equal(pairs, COUNT(PRESETS));
    for (size_t i = 0; i < COUNT(PRESETS); i++) {
        bool found = false;
        for (size_t k = 0; k < pairs; k++)
            found |= strcmp(list[2 * k], PRESETS[i]) == 0;
        assert_true(found);
    }
    assert_string_equal(list[0], "casio-like"); /* the default comes first */
}

static void test_deterministic(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT(PRESETS); i++) {
        size_t a_len, b_len, c_len;
        char *a = tu_synth(PRESETS[i], 3000, 42, &a_len);
        char *b = tu_synth(PRESETS[i], 3000, 42, &b_len);
        char *c = tu_synth(PRESETS[i], 3000, 43, &c_len);
        assert_int_equal(a_len, b_len);
        assert_memory_equal(a, b, a_len);
        assert_true(a_len != c_len || memcmp(a, c, a_len) != 0);
        free(a);
        free(b);
        free(c);
    }
    /* no preset given means casio-like */
    size_t d_len, e_len;
    char *d = tu_synth(NULL, 500, 7, &d_len);
    char *e = tu_synth("casio-like", 500, 7, &e_len);
    assert_int_equal(d_len, e_len);
    assert_memory_equal(d, e, d_len);
    free(d);
    free(e);
}

static void test_rows_valid(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1, 2, 37, 20000};
    for (size_t i = 0; i < COUNT(PRESETS); i++)
        for (size_t k = 0; k < COUNT(sizes); k++) {
            bool quotes;
            ks_profile_free(synth_parsed(PRESETS[i], sizes[k], 1000 + k, &quotes));
        }
}

/* The shapes the STEM paper's Figure 1 shows, all present at once. */
static void test_casio_shapes(void **state)
{
    (void)state;
    const uint64_t n = 200000;
    bool quotes;
    ks_profile *p = synth_parsed("casio-like", n, 1, &quotes);
    assert_true(quotes); /* names with commas are quoted */
    assert_true(p->name_count >= 200);
    /* a name holding a double quote (doubled inside the CSV quotes) survives */
    bool quote_in_name = false;
    for (size_t k = 0; k < p->name_count; k++)
        quote_in_name |= strchr(p->names[k], '"') != NULL;
    assert_true(quote_in_name);

    name_stats *st = stats_of(p);
    size_t zero_spread = 0, multimodal = 0, wide = 0, stable = 0, configs = 0, rare = 0;
    int64_t shortest = INT64_MAX, longest = 0;
    for (size_t k = 0; k < p->name_count; k++) {
        const name_stats *s = &st[k];
        if (s->count >= 100 && s->min == s->max)
            zero_spread++;
        if (s->multimodal)
            multimodal++;
        if (s->count >= 300 && !s->multimodal && cv(s) >= 0.3 && cv(s) <= 0.6)
            wide++;
        if (s->count >= 300 && cv(s) > 0 && cv(s) < 0.02)
            stable++;
        if (s->several_configs)
            configs++;
        if (s->count <= 12)
            rare++;
        shortest = s->min < shortest ? s->min : shortest;
        longest = s->max > longest ? s->max : longest;
    }
    print_message("casio-like n=%llu: %zu names, %zu zero-spread, %zu multimodal, %zu wide, "
                  "%zu stable, %zu with several grid/block, %zu rare; %lld..%lld ns\n",
                  (unsigned long long)n, p->name_count, zero_spread, multimodal, wide, stable,
                  configs, rare, (long long)shortest, (long long)longest);
    assert_true(zero_spread >= 1);
    assert_true(multimodal >= 1);
    assert_true(wide >= 3);
    assert_true(stable >= 2);
    assert_true(configs >= 3);
    assert_true(rare >= 150);
    assert_true(shortest < 2000 && longest > 1000000); /* microseconds to milliseconds */

    /* the names exercise both cuts of the kernel key: templates and
     * parameter lists collapse some names into one group */
    ks_groups by_name, by_notemplate, by_dims;
    ks_error err;
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME, &by_name, &err), KS_OK);
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME_NOTEMPLATE, &by_notemplate, &err), KS_OK);
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME_GRID_BLOCK, &by_dims, &err), KS_OK);
    assert_true(by_notemplate.count < by_name.count);
    assert_true(by_name.count <= p->name_count);
    assert_true(by_dims.count > by_notemplate.count);
    ks_groups_free(&by_name);
    ks_groups_free(&by_notemplate);
    ks_groups_free(&by_dims);
    free(st);
    ks_profile_free(p);
}

static void test_preset_shapes(void **state)
{
    (void)state;
    bool quotes;
    const uint64_t n = 30000;

    ks_profile *p = synth_parsed("identical", n, 3, &quotes);
    name_stats *st = stats_of(p);
    for (size_t k = 0; k < p->name_count; k++)
        assert_int_equal(st[k].min, st[k].max);
    free(st);
    ks_profile_free(p);

    p = synth_parsed("stable", n, 3, &quotes);
    st = stats_of(p);
    for (size_t k = 0; k < p->name_count; k++) {
        assert_true(cv(&st[k]) > 0 && cv(&st[k]) < 0.02);
        assert_false(st[k].multimodal);
    }
    free(st);
    ks_profile_free(p);

    /* several peaks for every kernel; one keeps them under one grid */
    p = synth_parsed("multi-peak", n, 3, &quotes);
    st = stats_of(p);
    size_t same_grid_peaks = 0;
    for (size_t k = 0; k < p->name_count; k++) {
        assert_true(st[k].multimodal);
        same_grid_peaks += !st[k].several_configs;
    }
    assert_true(same_grid_peaks >= 1);
    assert_true(p->name_count <= 6);
    free(st);
    ks_profile_free(p);

    /* most names rare, a few carry most launches */
    p = synth_parsed("rare-heavy", n, 3, &quotes);
    st = stats_of(p);
    size_t rare = 0, frequent = 0;
    for (size_t k = 0; k < p->name_count; k++) {
        rare += st[k].count <= 12;
        frequent += st[k].count >= n / 20;
    }
    assert_true(rare >= 1000);
    assert_true(frequent >= 3 && frequent <= 6);
    free(st);
    ks_profile_free(p);

    /* few names; nw's grid follows the wavefront, so one name has 128 */
    p = synth_parsed("rodinia-like", n, 3, &quotes);
    assert_true(p->name_count <= 16);
    ks_groups dims;
    ks_error err;
    assert_int_equal(ks_groups_build(p, KS_KEY_NAME_GRID_BLOCK, &dims, &err), KS_OK);
    assert_true(dims.count >= 128);
    ks_groups_free(&dims);
    ks_profile_free(p);
}

static void test_rejects(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    ks_error err;
    ks_error_clear(&err);
    ks_synth_options opt = {"casio", 10, 1};
    assert_int_equal(ks_synth_write(&opt, f, &err), KS_ERR_USAGE);
    assert_non_null(strstr(err.message, "'casio'"));
    for (size_t i = 0; i < COUNT(PRESETS); i++)
        assert_non_null(strstr(err.message, PRESETS[i]));
    opt = (ks_synth_options){"casio-like", 0, 1};
    assert_int_equal(ks_synth_write(&opt, f, &err), KS_ERR_USAGE);
    assert_int_equal(ks_synth_write(NULL, f, &err), KS_ERR_USAGE);
    opt.n = 1;
    assert_int_equal(ks_synth_write(&opt, NULL, &err), KS_ERR_USAGE);
    assert_int_equal(ks_synth_write(&opt, f, NULL), KS_OK); /* err is optional */
    fclose(f);
    assert_true(len > sizeof HEADER);
    free(buf);
}

/* A full stream reports a write error instead of a silently short file. */
static void test_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    ks_synth_options opt = {"casio-like", 50000, 1};
    ks_error err;
    ks_error_clear(&err);
    assert_int_equal(ks_synth_write(&opt, f, &err), KS_ERR_IO);
    assert_non_null(strstr(err.message, "cannot write"));
    fclose(f);
}

/* synth -> file -> the real nsys kern-exec reader: same invocations. */
static void test_round_trip(void **state)
{
    (void)state;
#ifndef HAVE_NSYS_CSV_READER
    skip();
#else
    for (size_t i = 0; i < COUNT(PRESETS); i++) {
        const uint64_t n = 60000;
        const char *path = in_dir("round-trip.csv");
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        ks_synth_options opt = {PRESETS[i], n, 99};
        ks_error err;
        ks_error_clear(&err);
        assert_int_equal(ks_synth_write(&opt, f, &err), KS_OK);
        assert_int_equal(fclose(f), 0);

        ks_profile *read;
        ks_read_options ro;
        ks_read_options_init(&ro);
        ro.keep_start = true; /* compared below */
        ks_status st = ks_profile_read(path, &ro, &read, &err);
        if (st != KS_OK)
            fail_msg("%s: %s", PRESETS[i], err.message);
        assert_string_equal(read->source_format, "nsys-kern-exec-csv");

        bool quotes;
        ks_profile *own = synth_parsed(PRESETS[i], n, 99, &quotes);
        assert_int_equal(read->n, n);
        assert_int_equal(read->name_count, own->name_count);
        assert_non_null(read->start_ns);
        assert_true(ks_profile_has_dims(read));
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(read->duration_ns[k], own->duration_ns[k]);
            assert_int_equal(read->start_ns[k], own->start_ns[k]);
            assert_string_equal(ks_profile_name(read, k), ks_profile_name(own, k));
            assert_memory_equal(ks_profile_grid(read, k), ks_profile_grid(own, k),
                                3 * sizeof(uint32_t));
            assert_memory_equal(ks_profile_block(read, k), ks_profile_block(own, k),
                                3 * sizeof(uint32_t));
        }
        ks_profile_free(read);
        ks_profile_free(own);
    }
#endif
}

KS_TMPDIR_TEST_MAIN("ks-test-synth",
                    test_presets_listed,
                    test_deterministic,
                    test_rows_valid,
                    test_casio_shapes,
                    test_preset_shapes,
                    test_rejects,
                    test_write_error,
                    test_round_trip)
