/*
 * test_read_parallel.c - reading nsys CSV exports in blocks on several
 * threads (lib/io/csv_parallel.c) and the readers' fast path (ks_csv_scan)
 * give exactly what the general path gives on one thread.
 *
 * The reference for every input is one block, one thread, every line split
 * by ks_csv_split and parsed by ks_parse_* (the reader as it was before
 * blocks and the fast path).  Each input is then read with thread counts
 * and block sizes chosen so that blocks fall inside lines, at line ends and
 * far beyond them, with and without the fast path, and the profiles (every
 * column, every name, the digest) or the errors (status, file, line,
 * message) must be identical.  Malformed inputs put the error in the first,
 * a middle and the last block, and two errors in one file must give the
 * first.  ks_csv_scan is also checked directly against ks_csv_split and the
 * cell parsers on random lines made of awkward cells.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "tmpdir.h"
#include "test_util.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------- reading */

typedef struct outcome {
    ks_status st;
    ks_error err;
    ks_profile *p;
    ks_lines_stats stats;
} outcome;

typedef struct config {
    int threads;
    size_t block; /* 0: the default */
    bool slow_only;
} config;

/* One block for the whole input, one thread, no fast path. */
static const config REFERENCE = {1, (size_t)64 << 20, true};

/* Block sizes below a line (the block grows), of a few lines, and the
 * default; thread counts above the 2 CPUs of the bench machine too. */
static const config CONFIGS[] = {
    {1, 0, false},    {2, 0, false},    {0, 0, false},     {1, 4096, false},
    {2, 4096, false}, {3, 4096, true},  {4, 1000, false},  {2, 300, false},
    {3, 37, false},   {2, 37, true},    {8, 65536, false}, {2, 1, false},
};

static outcome read_with(const char *path, const config *c, int device)
{
    outcome o;
    memset(&o, 0, sizeof o);
    ks_error_clear(&o.err);
    ks_input *in;
    o.st = ks_input_open(path, &in, &o.err);
    assert_int_equal(o.st, KS_OK);
    const char *head;
    size_t len;
    if ((o.st = ks_input_peek(in, &head, &len, &o.err)) != KS_OK) {
        ks_input_close(in); /* a damaged compressed file can fail this early */
        return o;
    }
    bool kern_exec = ks_reader_nsys_kern_exec_csv.detect(head, len, path) >=
                     ks_reader_nsys_gpu_trace_csv.detect(head, len, path);
    ks_read_options opt;
    ks_read_options_init(&opt);
    opt.device = device;
    opt.keep_start = true; /* compared too */
    ks_lines_options lines = {c->threads, c->block, &o.stats, c->slow_only};
    o.p = ks_profile_new();
    assert_non_null(o.p);
    o.st = kern_exec ? ks_read_nsys_kern_exec_csv(in, &opt, &lines, o.p, &o.err)
                     : ks_read_nsys_gpu_trace_csv(in, &opt, &lines, o.p, &o.err);
    if (o.st == KS_OK)
        o.st = ks_input_finish_digest(in, o.p->source_xxh128, &o.p->source_bytes, &o.err);
    ks_input_close(in);
    if (o.st != KS_OK) {
        ks_profile_free(o.p);
        o.p = NULL;
    }
    return o;
}

static void same_column(const void *a, const void *b, size_t bytes, const char *what,
                        const char *path, const config *c)
{
    if ((a == NULL) != (b == NULL))
        fail_msg("%s: column %s present in one profile only (threads %d, block %zu)", path,
                 what, c->threads, c->block);
    if (a && memcmp(a, b, bytes) != 0)
        fail_msg("%s: column %s differs (threads %d, block %zu, slow %d)", path, what,
                 c->threads, c->block, c->slow_only);
}

/* Identical profiles; with_digest: the same file (not a compressed copy). */
static void same_profile(const ks_profile *a, const ks_profile *b, bool with_digest,
                         const char *path, const config *c)
{
    if (a->n != b->n || a->name_count != b->name_count)
        fail_msg("%s: %zu invocations and %zu names, expected %zu and %zu (threads %d, "
                 "block %zu, slow %d)",
                 path, b->n, b->name_count, a->n, a->name_count, c->threads, c->block,
                 c->slow_only);
    for (size_t i = 0; i < a->name_count; i++)
        assert_string_equal(a->names[i], b->names[i]);
    size_t n = a->n;
    same_column(a->duration_ns, b->duration_ns, n * 8, "duration_ns", path, c);
    same_column(a->name_id, b->name_id, n * 4, "name_id", path, c);
    same_column(a->start_ns, b->start_ns, n * 8, "start_ns", path, c);
    /* grid/block pairs get their ids in order of first appearance, as on
     * one thread */
    same_column(a->dims_id, b->dims_id, n * 4, "dims_id", path, c);
    assert_int_equal(a->dims_count, b->dims_count);
    same_column(a->dims, b->dims, a->dims_count * 24, "dims", path, c);
    same_column(a->stream, b->stream, n * 4, "stream", path, c);
    same_column(a->device, b->device, n * 4, "device", path, c);
    same_column(a->correlation, b->correlation, n * 8, "correlation", path, c);
    assert_int_equal(a->metric_count, b->metric_count);
    assert_string_equal(a->source_format, b->source_format);
    if (with_digest) {
        assert_string_equal(a->source_xxh128, b->source_xxh128);
        assert_int_equal(a->source_bytes, b->source_bytes);
    }
}

static void same_outcome(const outcome *ref, const outcome *o, const char *path,
                         const config *c)
{
    if (ref->st != o->st)
        fail_msg("%s: status %d (%s line %ld), expected %d (%s line %ld); threads %d, "
                 "block %zu, slow %d",
                 path, o->st, o->err.message, o->err.line, ref->st, ref->err.message,
                 ref->err.line, c->threads, c->block, c->slow_only);
    if (ref->st != KS_OK) {
        if (ref->err.line != o->err.line || strcmp(ref->err.message, o->err.message) != 0 ||
            strcmp(ref->err.file, o->err.file) != 0)
            fail_msg("%s: error '%s:%ld: %s', expected '%s:%ld: %s'; threads %d, block %zu, "
                     "slow %d",
                     path, o->err.file, o->err.line, o->err.message, ref->err.file,
                     ref->err.line, ref->err.message, c->threads, c->block, c->slow_only);
        return;
    }
    same_profile(ref->p, o->p, true, path, c);
}

static void release(outcome *o)
{
    ks_profile_free(o->p);
    o->p = NULL;
}

/* Reads path with the reference and every configuration; returns the
 * reference (caller releases). */
static outcome check_all(const char *path, int device)
{
    outcome ref = read_with(path, &REFERENCE, device);
    for (size_t i = 0; i < COUNT(CONFIGS); i++) {
        outcome o = read_with(path, &CONFIGS[i], device);
        same_outcome(&ref, &o, path, &CONFIGS[i]);
        release(&o);
    }
    return ref;
}

/* ---------------------------------------------------------------- inputs */

/* A text as an array of lines (without their "\n"), for editing. */
typedef struct lines {
    char **line;
    size_t count;
} lines;

static lines split_lines(const char *text)
{
    lines l = {NULL, 0};
    size_t cap = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (l.count == cap) {
            cap = cap ? 2 * cap : 1024;
            l.line = realloc(l.line, cap * sizeof *l.line);
            assert_non_null(l.line);
        }
        l.line[l.count] = strndup(p, n);
        assert_non_null(l.line[l.count]);
        l.count++;
        p = nl ? nl + 1 : p + n;
    }
    return l;
}

static void free_lines(lines *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->line[i]);
    free(l->line);
}

static void set_line(lines *l, size_t i, const char *text)
{
    free(l->line[i]);
    l->line[i] = strdup(text);
    assert_non_null(l->line[i]);
}

/* Joins lines with "\n" after each (after none for the last when
 * final_newline is false); lengths come from the caller for lines holding a
 * NUL byte. */
static char *join_lines(const lines *l, bool final_newline, const size_t *lens, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < l->count; i++)
        total += (lens ? lens[i] : strlen(l->line[i])) + 1;
    char *out = malloc(total + 1);
    assert_non_null(out);
    size_t o = 0;
    for (size_t i = 0; i < l->count; i++) {
        size_t n = lens ? lens[i] : strlen(l->line[i]);
        memcpy(out + o, l->line[i], n);
        o += n;
        if (final_newline || i + 1 < l->count)
            out[o++] = '\n';
    }
    *len = o;
    return out;
}

/* The line with field i (0-based, fields before the quoted name) replaced. */
static char *with_field(const char *line, int field, const char *value)
{
    const char *start = line;
    for (int i = 0; i < field; i++) {
        start = strchr(start, ',');
        assert_non_null(start);
        start++;
    }
    const char *end = strchr(start, ',');
    assert_non_null(end);
    size_t n = strlen(line) + strlen(value) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(start - line), line, value, end);
    return out;
}

/* The line with its kernel name (the last field) replaced. */
static char *with_name(const char *line, const char *name)
{
    /* the 13th comma ends BlockXYZ: names may hold commas */
    const char *p = line;
    for (int i = 0; i < 13; i++) {
        p = strchr(p, ',');
        assert_non_null(p);
        p++;
    }
    size_t n = strlen(line) + strlen(name) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s", (int)(p - line), line, name);
    return out;
}

/* ----------------------------------------------------------------- tests */

static void test_synth_presets(void **state)
{
    (void)state;
    static const char *const presets[] = {"casio-like", "identical",    "multi-peak",
                                          "rare-heavy", "rodinia-like", "stable"};
    static const uint64_t sizes[] = {1, 7, 500, 3000};
    for (size_t i = 0; i < COUNT(presets); i++) {
        for (size_t k = 0; k < COUNT(sizes); k++) {
            size_t len;
            char *text = tu_synth(presets[i], sizes[k], 11 + k, &len);
            char name[64];
            snprintf(name, sizeof name, "%s-%llu.csv", presets[i],
                     (unsigned long long)sizes[k]);
            outcome ref = check_all(write_file(name, text, len), -1);
            assert_int_equal(ref.st, KS_OK);
            assert_int_equal(ref.p->n, sizes[k]);
            release(&ref);
            free(text);
        }
    }
}

/* Larger than one default block: the default options start threads (where
 * there is more than one CPU); a small input never does. */
static void test_default_goes_parallel_only_when_large(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("casio-like", 40000, 3, &len); /* about 11 MB */
    assert_true(len > (size_t)8 << 20);
    const char *path = write_file("large.csv", text, len);
    config def = {0, 0, false};
    outcome ref = read_with(path, &REFERENCE, -1);
    outcome o = read_with(path, &def, -1);
    same_outcome(&ref, &o, path, &def);
    assert_true(o.stats.blocks >= 3);
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
        assert_true(o.stats.threads > 1);
    release(&o);
    config two = {2, 0, false};
    o = read_with(path, &two, -1);
    same_outcome(&ref, &o, path, &two);
    assert_int_equal(o.stats.threads, 3); /* two workers and the caller */
    release(&o);
    release(&ref);
    free(text);

    text = tu_synth("casio-like", 3000, 3, &len); /* under 1 MB */
    path = write_file("small.csv", text, len);
    o = read_with(path, &def, -1);
    assert_int_equal(o.st, KS_OK);
    assert_int_equal(o.stats.threads, 1);
    assert_int_equal(o.stats.blocks, 1);
    release(&o);
    free(text);
}

/* The same profile from gzip, xz and zstd copies, whatever the split. */
static void test_compressed(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("rare-heavy", 3000, 5, &len);
    outcome plain = read_with(write_file("c.csv", text, len), &REFERENCE, -1);
    assert_int_equal(plain.st, KS_OK);
    const char *paths[] = {write_gzip("c.csv.gz", text, len), write_xz("c.csv.xz", text, len),
                           write_zstd("c.csv.zst", text, len)};
    for (size_t i = 0; i < COUNT(paths); i++) {
        outcome ref = check_all(paths[i], -1);
        assert_int_equal(ref.st, KS_OK);
        same_profile(plain.p, ref.p, false, paths[i], &REFERENCE);
        release(&ref);
    }
    release(&plain);
    free(text);
}

/* A compressed file cut short or damaged: an error, the same one on any
 * number of threads.  (Which lines precede a decompression error depends
 * on how much a read asks for, so the block size is kept.) */
static void test_damaged_compressed(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("casio-like", 3000, 9, &len);
    const char *paths[] = {write_gzip("d.csv.gz", text, len), write_xz("d.csv.xz", text, len),
                           write_zstd("d.csv.zst", text, len)};
    for (size_t i = 0; i < COUNT(paths); i++) {
        size_t n;
        char *data = read_file(paths[i], &n);
        char name[64];
        snprintf(name, sizeof name, "cut-%zu%s", i, strrchr(paths[i], '.'));
        const char *cut = write_file(name, data, n * 2 / 3);
        data[n / 2] ^= 0x55;
        data[n / 2 + 7] ^= 0x55;
        snprintf(name, sizeof name, "bad-%zu%s", i, strrchr(paths[i], '.'));
        const char *bad = write_file(name, data, n);
        const char *damaged[] = {cut, bad};
        for (size_t k = 0; k < 2; k++) {
            static const size_t blocks[] = {4096, 100000, 0};
            for (size_t b = 0; b < COUNT(blocks); b++) {
                config one = {1, blocks[b], false};
                outcome ref = read_with(damaged[k], &one, -1);
                if (damaged[k] == cut) /* a flipped byte may still decode */
                    assert_int_not_equal(ref.st, KS_OK);
                for (int t = 2; t <= 4; t++) {
                    config c = {t, blocks[b], t == 3};
                    outcome o = read_with(damaged[k], &c, -1);
                    same_outcome(&ref, &o, damaged[k], &c);
                    release(&o);
                }
            }
        }
        free(data);
    }
    free(text);
}

typedef struct injection {
    const char *what;
    int field;         /* field to replace; -1: the name; -2: the whole line */
    const char *value;
    bool error;        /* the reference must fail at this line */
} injection;

static const injection INJECTIONS[] = {
    {"bad duration", 5, "12x4", true},
    {"missing duration", 5, "", true},
    {"negative device", 9, "-3", true},
    {"bad grid", 11, "-1 2 3", true},
    {"bad block", 12, "1 2 3 4", true},
    {"too few fields", -2, "1,2,3", true},
    {"unterminated quote", -1, "\"void k(int", true},
    {"empty name", -1, "  ", true},
    {"quoted empty name", -1, "\"\"", true},
    {"blank line", -2, "", false},
    {"spaces line", -2, "  \t ", false},
    {"thousands", 5, "\"1,234\"", false},
    {"n/a start", 4, "n/a", false},
    {"empty start", 4, "", false},
    {"n/a device", 9, "n/a", false},
    {"float duration", 5, "12.0", false},
    {"19 digits", 5, "1234567890123456789", false},
    {"spaced duration", 5, " 77 ", false},
    {"tab before duration", 5, "\t77", false},
    {"tab after duration", 5, "77\t", false},
    {"plus duration", 5, "+77", false},
    {"doubled quotes", -1, "\"void f<operator\"\"\"\" _x>(int)\"", false},
    {"spaces before quote", -1, "  \"void g(int, float)\"", false},
    {"text after quote", -1, "\"void h(int)\"tail", false},
    {"unquoted spaced name", -1, "  my_kernel \t", false},
    {"bare count grid", 11, "128", false},
    {"bracket grid", 11, "\"(4, 2, 1)\"", false},
    {"wide grid", 11, "123456789    1    1", false},
    {"huge grid", 11, "4294967296    1    1", true},
    {"CR at end", -3, "\r", false},
};

/* Applies injection k at line i (1-based file line numbers = index + 1). */
static void inject(lines *l, size_t i, const injection *inj)
{
    char *line = NULL;
    if (inj->field >= 0)
        line = with_field(l->line[i], inj->field, inj->value);
    else if (inj->field == -1)
        line = with_name(l->line[i], inj->value);
    else if (inj->field == -3) {
        size_t n = strlen(l->line[i]) + strlen(inj->value) + 1;
        line = malloc(n);
        assert_non_null(line);
        snprintf(line, n, "%s%s", l->line[i], inj->value);
    }
    set_line(l, i, line ? line : inj->value);
    free(line);
}

/* 2000 rows; with 4096-byte blocks a block holds about 14 lines, so the
 * lines below are in the first, second, third, a middle and the last
 * block. */
static void test_malformed(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("casio-like", 2000, 21, &len);
    static const size_t at[] = {1, 20, 40, 41, 1000, 2000};
    for (size_t k = 0; k < COUNT(INJECTIONS); k++) {
        for (size_t a = 0; a < COUNT(at); a++) {
            lines l = split_lines(text);
            inject(&l, at[a], &INJECTIONS[k]);
            size_t n;
            char *bad = join_lines(&l, true, NULL, &n);
            const char *path = write_file("malformed.csv", bad, n);
            outcome ref = check_all(path, -1);
            if (INJECTIONS[k].error) {
                if (ref.st != KS_ERR_FORMAT || ref.err.line != (long)at[a] + 1)
                    fail_msg("%s at line %zu: got status %d at line %ld (%s)",
                             INJECTIONS[k].what, at[a] + 1, ref.st, ref.err.line,
                             ref.err.message);
                assert_string_equal(ref.err.file, path);
            } else if (ref.st != KS_OK) {
                fail_msg("%s at line %zu: %s (line %ld)", INJECTIONS[k].what, at[a] + 1,
                         ref.err.message, ref.err.line);
            }
            release(&ref);
            free(bad);
            free_lines(&l);
        }
    }
    free(text);
}

/* Two errors: the one earlier in the file wins even when its block is
 * parsed after the later one's. */
static void test_first_error_wins(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("casio-like", 2000, 22, &len);
    lines l = split_lines(text);
    inject(&l, 1500, &INJECTIONS[0]);
    inject(&l, 300, &INJECTIONS[6]);
    inject(&l, 1900, &INJECTIONS[5]);
    size_t n;
    char *bad = join_lines(&l, false, NULL, &n); /* and a cut-short last line */
    const char *path = write_file("two-errors.csv", bad, n);
    outcome ref = check_all(path, -1);
    assert_int_equal(ref.st, KS_ERR_FORMAT);
    assert_int_equal(ref.err.line, 301);
    assert_non_null(strstr(ref.err.message, "a quoted field is not closed on this line"));
    release(&ref);
    free(bad);
    free_lines(&l);
    free(text);
}

static void test_line_endings_and_edges(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("multi-peak", 1500, 23, &len);
    lines l = split_lines(text);
    size_t n;

    /* no newline at the end: the last line is reported as cut short */
    char *cut = join_lines(&l, false, NULL, &n);
    outcome ref = check_all(write_file("no-eol.csv", cut, n), -1);
    assert_int_equal(ref.st, KS_ERR_FORMAT);
    assert_int_equal(ref.err.line, (long)l.count);
    assert_string_equal(ref.err.message, "truncated last line (no newline at end of file)");
    release(&ref);
    free(cut);

    /* CRLF everywhere, and blank lines, and trailing spaces with no newline */
    char *crlf = malloc(2 * len + 16);
    assert_non_null(crlf);
    size_t crlf_len = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            crlf[crlf_len++] = '\r';
        crlf[crlf_len++] = text[i];
        if (text[i] == '\n' && i % 7 == 0)
            crlf[crlf_len++] = '\n';
    }
    memcpy(crlf + crlf_len, "   ", 3);
    crlf_len += 3;
    ref = check_all(write_file("crlf.csv", crlf, crlf_len), -1);
    assert_int_equal(ref.st, KS_OK);
    assert_int_equal(ref.p->n, 1500);
    release(&ref);
    free(crlf);

    /* a NUL byte in a name is an error on every path */
    size_t *lens = calloc(l.count, sizeof *lens);
    assert_non_null(lens);
    for (size_t i = 0; i < l.count; i++)
        lens[i] = strlen(l.line[i]);
    char *nul_line = with_name(l.line[700], "\"void nul_kernel(int)\"");
    char *z = strstr(nul_line, "nul_kernel");
    z[3] = '\0';
    lens[700] = strlen(nul_line) + strlen(z + 4) + 1;
    free(l.line[700]);
    l.line[700] = nul_line; /* strdup would stop at the NUL */
    char *with_nul = join_lines(&l, true, lens, &n);
    ref = check_all(write_file("nul.csv", with_nul, n), -1);
    /* issue 14: a name cut at the NUL merged distinct kernels unseen; now
     * the line is refused, at the same line on every path */
    assert_int_equal(ref.st, KS_ERR_FORMAT);
    assert_non_null(strstr(ref.err.message, "NUL byte"));
    assert_int_equal(ref.err.line, 701); /* l.line[700] */
    release(&ref);
    free(with_nul);
    free(lens);

    /* a newline inside quotes: an error, never a wrong profile */
    free_lines(&l);
    l = split_lines(text);
    char *split_name = with_name(l.line[30], "\"void a(int,\nfloat)\"");
    set_line(&l, 30, split_name);
    free(split_name);
    char *nl = join_lines(&l, true, NULL, &n);
    ref = check_all(write_file("newline-in-quotes.csv", nl, n), -1);
    assert_int_equal(ref.st, KS_ERR_FORMAT);
    assert_int_equal(ref.err.line, 31);
    release(&ref);
    free(nl);

    /* one line longer than many blocks, and a header with nothing after it */
    free_lines(&l);
    l = split_lines(text);
    char *name = malloc(300000);
    assert_non_null(name);
    memset(name, 'x', 299999);
    name[0] = '"';
    name[299998] = '"';
    name[299999] = '\0';
    char *long_line = with_name(l.line[100], name);
    set_line(&l, 100, long_line);
    free(long_line);
    free(name);
    char *lng = join_lines(&l, true, NULL, &n);
    ref = check_all(write_file("long-line.csv", lng, n), -1);
    assert_int_equal(ref.st, KS_OK);
    release(&ref);
    free(lng);

    /* a line over the 16 MB limit inside the reference's one 64 MB block:
     * refused there as the small blocks refuse it, at its own line (the
     * whole-block read once took it; found by fuzz_nsys_parallel) */
    size_t huge = ((size_t)16 << 20) + 10;
    name = malloc(huge + 1);
    assert_non_null(name);
    memset(name, 'y', huge);
    name[0] = '"';
    name[huge - 1] = '"';
    name[huge] = '\0';
    free_lines(&l);
    l = split_lines(text);
    long_line = with_name(l.line[100], name);
    set_line(&l, 100, long_line);
    free(long_line);
    free(name);
    lng = join_lines(&l, true, NULL, &n);
    ref = check_all(write_file("over-limit.csv", lng, n), -1);
    assert_int_equal(ref.st, KS_ERR_FORMAT);
    assert_int_equal(ref.err.line, 101);
    assert_non_null(strstr(ref.err.message, "line is longer than 16 MB"));
    release(&ref);
    free(lng);
    size_t header = strlen(l.line[0]) + 1;
    ref = check_all(write_file("header-only.csv", text, header), -1);
    assert_int_equal(ref.st, KS_OK);
    assert_int_equal(ref.p->n, 0);
    release(&ref);

    /* the data ends exactly at a block boundary, and one byte either side */
    const char *path = write_file("edges.csv", text, len);
    outcome whole = read_with(path, &REFERENCE, -1);
    assert_int_equal(whole.st, KS_OK);
    size_t data = len - header;
    const size_t blocks[] = {data - 1, data, data + 1, data / 2, data / 2 + 1, data / 3};
    for (size_t b = 0; b < COUNT(blocks); b++) {
        for (int t = 1; t <= 3; t++) {
            config c = {t, blocks[b], false};
            outcome o = read_with(path, &c, -1);
            same_outcome(&whole, &o, path, &c);
            release(&o);
        }
    }
    release(&whole);
    free_lines(&l);
    free(text);
}

/* Optional columns (start, device) that first appear in a later block:
 * the rows before get the same defaults as on one thread. */
static void test_columns_that_start_late(void **state)
{
    (void)state;
    size_t len;
    char *text = tu_synth("stable", 2000, 31, &len);
    lines l = split_lines(text);
    for (size_t i = 1; i < l.count; i++) {
        char *a = with_field(l.line[i], 4, i < 1500 ? "" : "123456"); /* Kernel Start */
        char *b = with_field(a, 9, i < 1200 ? "0" : "1");                  /* DevId */
        set_line(&l, i, b);
        free(a);
        free(b);
    }
    size_t n;
    char *late = join_lines(&l, true, NULL, &n);
    outcome ref = check_all(write_file("late.csv", late, n), -1);
    assert_int_equal(ref.st, KS_OK);
    assert_non_null(ref.p->start_ns);
    assert_non_null(ref.p->device);
    assert_true(ref.p->start_ns[0] == KS_MISSING_I64 && ref.p->start_ns[1999] == 123456);
    assert_true(ref.p->device[0] == 0 && ref.p->device[1999] == 1);
    release(&ref);
    free(late);
    free_lines(&l);
    free(text);
}

/* cuda_gpu_trace: memcpy rows, two devices, streams, missing correlation
 * ids, quoted names with commas and doubled quotes, thousands separators,
 * rows out of start order (the reader sorts), and the device filter. */
static void test_gpu_trace(void **state)
{
    (void)state;
    static const char header[] =
        "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
        "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,"
        "Strm,Name\n";
    static const char *const names[] = {"kernel_a", "\"void foo<float, 4>(int, float*)\"",
                                        "\"with \"\"quotes\"\", here\"", "  spaced_name  ",
                                        "ampere_gemm_%d", "\"sm90_gemm_%d<a, b>\""};
    ks_rng rng;
    ks_rng_seed(&rng, 77);
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fputs(header, f);
    uint64_t t = 10000000;
    for (int i = 0; i < 6000; i++) {
        t += ks_rng_below(&rng, 5000);
        uint64_t start = ks_rng_below(&rng, 50) == 0 ? t - 100000 : t; /* out of order */
        unsigned dev = (unsigned)ks_rng_below(&rng, 2), strm = (unsigned)ks_rng_below(&rng, 3) * 7;
        bool early = i < 700; /* device, stream and correlation columns start late */
        if (early)
            dev = strm = 0;
        if (ks_rng_below(&rng, 10) == 0) {
            fprintf(f,
                    "%llu,%llu,%d,,,,,,,,,,1.049,20.9,Pageable,Device,NVIDIA H100 (%u),1,,%u,"
                    "[CUDA memcpy Host-to-Device]\n",
                    (unsigned long long)start, (unsigned long long)ks_rng_below(&rng, 9999), i,
                    dev, strm);
            continue;
        }
        char name[128];
        snprintf(name, sizeof name, names[ks_rng_below(&rng, COUNT(names))],
                 (int)ks_rng_below(&rng, 300));
        uint64_t dur = ks_rng_below(&rng, 10000000);
        char durs[32];
        if (ks_rng_below(&rng, 20) == 0)
            snprintf(durs, sizeof durs, "\"%llu,%03llu\"", (unsigned long long)(dur / 1000),
                     (unsigned long long)(dur % 1000));
        else
            snprintf(durs, sizeof durs, "%llu", (unsigned long long)dur);
        char corr[24] = "";
        if (ks_rng_below(&rng, 10) != 0 && !early)
            snprintf(corr, sizeof corr, "%d", i);
        fprintf(f, "%llu,%s,%s,%u,%u,1,%u,1,1,32,0.000,0.000,,,,,NVIDIA H100 (%u),1,,%u,%s\n",
                (unsigned long long)start, durs, corr, 1 + (unsigned)ks_rng_below(&rng, 5000),
                1 + (unsigned)ks_rng_below(&rng, 4), 32u << ks_rng_below(&rng, 4), dev, strm,
                name);
    }
    assert_int_equal(fclose(f), 0);
    const char *path = write_file("gpu.csv", buf, len);
    for (int device = -1; device <= 1; device++) {
        outcome ref = check_all(path, device);
        if (ref.st != KS_OK)
            fail_msg("%s: line %ld: %s", path, ref.err.line, ref.err.message);
        assert_true(ref.p->n > 1000);
        assert_non_null(ref.p->stream);
        if (device < 0)
            assert_non_null(ref.p->device);
        release(&ref);
    }
    free(buf);
}

/* ------------------------------------- ks_rows against ks_profile_append */

/* Rows added to ks_rows in blocks and appended with ks_profile_append_rows
 * make the same profile as ks_profile_intern + ks_profile_append row by row,
 * optional columns that start in a later block included. */
static void test_rows_match_append(void **state)
{
    (void)state;
    enum { NAMES = 60, ROWS = 5000 };
    static char pool[NAMES][32];
    for (int i = 0; i < NAMES; i++)
        snprintf(pool[i], sizeof pool[i], "kernel_%d<%d>", i * 7919 % 101, i);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        ks_rng rng;
        ks_rng_seed(&rng, seed);
        /* where each optional column's first value may appear */
        size_t from[5];
        for (int k = 0; k < 5; k++)
            from[k] = ks_rng_below(&rng, 4) == 0 ? ROWS : (size_t)ks_rng_below(&rng, ROWS);
        ks_profile *one = ks_profile_new(), *blocks = ks_profile_new();
        assert_non_null(one);
        assert_non_null(blocks);
        ks_metric_column *m;
        ks_error err;
        if (seed % 2) { /* a metric column already there gets NAN */
            assert_int_equal(ks_profile_metric(one, "metric", &m, &err), KS_OK);
            assert_int_equal(ks_profile_metric(blocks, "metric", &m, &err), KS_OK);
        }
        ks_rows rows;
        memset(&rows, 0, sizeof rows);
        size_t left = 0;
        for (size_t i = 0; i < ROWS; i++) {
            if (left == 0) {
                assert_int_equal(ks_profile_append_rows(blocks, &rows, &err), KS_OK);
                ks_rows_clear(&rows);
                left = ks_rng_below(&rng, 300);
            }
            left--;
            ks_invocation inv;
            ks_invocation_init(&inv);
            uint32_t grid[3] = {(uint32_t)ks_rng_below(&rng, 9), 2, 1}, block[3] = {128, 1, 1};
            inv.duration_ns = (int64_t)ks_rng_below(&rng, 1000000);
            if (i >= from[0] && ks_rng_below(&rng, 3))
                inv.start_ns = (int64_t)i * 10;
            if (i >= from[1]) { /* either without the other, too */
                inv.grid = ks_rng_below(&rng, 3) ? grid : NULL;
                inv.block = ks_rng_below(&rng, 3) ? block : NULL;
            }
            if (i >= from[2])
                inv.stream = (uint32_t)ks_rng_below(&rng, 3);
            if (i >= from[3])
                inv.device = (uint32_t)ks_rng_below(&rng, 2);
            if (i >= from[4] && ks_rng_below(&rng, 2))
                inv.correlation = (int64_t)i;
            const char *name = pool[ks_rng_below(&rng, NAMES)];
            assert_int_equal(ks_profile_intern(one, name, strlen(name), &inv.name_id, &err),
                             KS_OK);
            assert_int_equal(ks_profile_append(one, &inv, &err), KS_OK);
            assert_int_equal(ks_rows_add(&rows, &inv, name, strlen(name), &err), KS_OK);
        }
        assert_int_equal(ks_profile_append_rows(blocks, &rows, &err), KS_OK);
        ks_rows_free(&rows);
        same_profile(one, blocks, true, "rows", &REFERENCE);
        for (size_t k = 0; k < one->metric_count; k++)
            assert_memory_equal(one->metrics[k].values, blocks->metrics[k].values,
                                one->n * sizeof(double));
        ks_profile_free(one);
        ks_profile_free(blocks);
    }
    /* a block whose rows have a block size and no grid starts both columns */
    ks_profile *one = ks_profile_new(), *blocks = ks_profile_new();
    ks_rows rows;
    memset(&rows, 0, sizeof rows);
    ks_error err;
    uint32_t block[3] = {64, 2, 1};
    for (int i = 0; i < 3; i++) {
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.duration_ns = i;
        inv.block = i ? block : NULL;
        assert_int_equal(ks_profile_intern(one, "k", 1, &inv.name_id, &err), KS_OK);
        assert_int_equal(ks_profile_append(one, &inv, &err), KS_OK);
        assert_int_equal(ks_rows_add(&rows, &inv, "k", 1, &err), KS_OK);
        assert_int_equal(ks_profile_append_rows(blocks, &rows, &err), KS_OK);
        ks_rows_clear(&rows);
    }
    assert_true(ks_profile_has_dims(one));
    same_profile(one, blocks, true, "block only", &REFERENCE);
    ks_rows_free(&rows);
    ks_profile_free(one);
    ks_profile_free(blocks);
}

/* ------------------------------------------------ ks_csv_scan directly */

static const char *const CELLS[] = {
    "", " ", "  12", "12  ", "007", "0", "1234567890123456789", "123456789012345678",
    "99999999", "-5", "1,234", "\"1,234\"", "n/a", "  1    2    3", "1 2 3", "1  2",
    "4294967295 1 1", "4294967296 1 1", "99999999    1    1", "123456789 1 1", "(1, 2, 3)",
    "128", "\"quoted, text\"", "\"dq \"\"x\"\" y\"", "  \"spaced quote\"", "\"open", "a\"b",
    "\"ab\"cd", "text\twith tab", " text ", "\r", "x\1y", "\"\"", "\t7", "7\t", "1 2 3 ",
    " 12 34", "+5", "12.0", "  1    1    1  ", "abc", "\"a,b,c\"", "\"x\"\"\"",
};

/* ks_csv_scan accepts a line only where ks_csv_split and the cell parsers
 * give the same values. */
static void test_scan_matches_split(void **state)
{
    (void)state;
    ks_rng rng;
    ks_rng_seed(&rng, 5);
    size_t accepted = 0, tried = 200000;
    for (size_t t = 0; t < tried; t++) {
        int count = 1 + (int)ks_rng_below(&rng, 6);
        int total = count + (int)ks_rng_below(&rng, 3);
        ks_cell_kind kinds[8];
        char line[512];
        size_t len = 0;
        for (int i = 0; i < total; i++) {
            kinds[i] = (ks_cell_kind)ks_rng_below(&rng, 4);
            const char *c = CELLS[ks_rng_below(&rng, COUNT(CELLS))];
            if (i > 0)
                line[len++] = ',';
            size_t n = strlen(c);
            memcpy(line + len, c, n);
            len += n;
        }
        if (ks_rng_below(&rng, 50) == 0) /* a NUL somewhere */
            line[ks_rng_below(&rng, len ? len : 1)] = '\0';
        line[len] = '\0';
        ks_cell cells[8];
        char copy[512];
        memcpy(copy, line, len + 1);
        if (!ks_csv_scan(line, len, kinds, count, cells))
            continue;
        accepted++;
        char *fields[16];
        int n = ks_csv_split(copy, len, fields, 16);
        if (n < count)
            fail_msg("scan accepted '%s' but split gives %d fields", line, n);
        for (int i = 0; i < count; i++) {
            if (kinds[i] == KS_CELL_INT) {
                int64_t v;
                bool missing;
                if (!ks_parse_i64(fields[i], &v, &missing) || missing != cells[i].missing ||
                    (!missing && v != cells[i].value))
                    fail_msg("INT cell '%s' of '%s'", fields[i], line);
            } else if (kinds[i] == KS_CELL_DIM3) {
                uint32_t d[3];
                if (!ks_parse_dim3(fields[i], d) || memcmp(d, cells[i].dim, sizeof d) != 0)
                    fail_msg("DIM3 cell '%s' of '%s'", fields[i], line);
            } else if (kinds[i] == KS_CELL_TEXT) {
                const char *want = ks_trim(fields[i]);
                size_t n2 = cells[i].len;
                const char *got = ks_trim_n(cells[i].text, &n2);
                if (n2 != strlen(want) || memcmp(got, want, n2) != 0)
                    fail_msg("TEXT cell '%s' of '%s'", want, line);
            }
        }
    }
    /* the test means something only if the fast path takes many lines */
    assert_true(accepted > tried / 20);
}

static void test_scan_takes_nsys_rows(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "49023703,48533,,,49048920,1472,48533,2803305,2803305,0,cudaLaunchKernel,   1    1    "
        "1,  64    1    1,\"void at::native::vectorized_elementwise_kernel<4, "
        "at::native::FillFunctor<int>, at::detail::Array<char*, 1> >(int, "
        "at::native::FillFunctor<int>, at::detail::Array<char*, 1>)\"",
        "49255687,52184,,,49282657,187601,214571,2803305,2803305,0,cuLaunchKernelEx,  24    8  "
        "  1, 256    1    1,ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
    };
    ks_cell_kind kinds[14] = {KS_CELL_SKIP};
    kinds[4] = kinds[5] = kinds[9] = KS_CELL_INT;
    kinds[11] = kinds[12] = KS_CELL_DIM3;
    kinds[13] = KS_CELL_TEXT;
    ks_cell cells[14];
    assert_true(ks_csv_scan(rows[0], strlen(rows[0]), kinds, 14, cells));
    assert_int_equal(cells[5].value, 1472);
    assert_int_equal(cells[4].value, 49048920);
    assert_int_equal(cells[12].dim[0], 64);
    assert_int_equal(cells[13].len, strlen(rows[0]) - (size_t)(strchr(rows[0], '"') - rows[0]) - 2);
    assert_true(ks_csv_scan(rows[1], strlen(rows[1]), kinds, 14, cells));
    assert_int_equal(cells[11].dim[0], 24);
    assert_int_equal(cells[11].dim[1], 8);
    assert_int_equal(cells[5].value, 187601);
    assert_int_equal(cells[13].len, strlen("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn"));
}

KS_TMPDIR_TEST_MAIN("ks-test-read-parallel",
                    test_scan_takes_nsys_rows,
                    test_scan_matches_split,
                    test_rows_match_append,
                    test_synth_presets,
                    test_default_goes_parallel_only_when_large,
                    test_compressed,
                    test_damaged_compressed,
                    test_malformed,
                    test_first_error_wins,
                    test_line_endings_and_edges,
                    test_columns_that_start_late,
                    test_gpu_trace)
