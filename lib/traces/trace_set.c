/*
 * trace_set.c - a folder of Accel-Sim traces: its list (kernelslist.g after
 * post-processing, kernelslist before), every launch's trace header, and the
 * tracer's stats.csv.
 *
 * Opening reads each listed trace's header only (the instructions are
 * streamed later, see trace_stream.c), so memory grows with the number of
 * launches, never with the size of their traces.
 */
#include "hash.h"
#include "trace_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Listed names are relative to the list's folder, as the simulator joins
 * them (an absolute name too: Accel-Sim prepends the folder to every line). */
static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The listed file, or the listed name with a compression suffix when only
 * the compressed copy exists (raw lists name "kernel-1.trace" for a file
 * the tracer compressed to kernel-1.trace.xz). */
static char *find_trace(const char *dir, const char *name)
{
    static const char *const suffix[] = {"", ".xz", ".gz", ".zst"};
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        size_t n = strlen(name) + strlen(suffix[i]) + 1;
        char *with = malloc(n);
        if (!with)
            return NULL;
        snprintf(with, n, "%s%s", name, suffix[i]);
        char *path = ks_path_join(dir, with);
        free(with);
        if (!path || is_file(path))
            return path;
        free(path);
    }
    return NULL;
}

/* The file name without folder and compression suffix, up to and excluding
 * ".trace" / ".traceg": the key that joins a launch to its stats.csv row. */
static size_t trace_stem(const char *name, const char **start)
{
    const char *slash = strrchr(name, '/');
    const char *s = slash ? slash + 1 : name;
    *start = s;
    const char *dot = strstr(s, ".trace");
    return dot ? (size_t)(dot - s) : strlen(s);
}

/* Raw traces (".trace") prefix every line with block and warp; post-processed
 * ones (".traceg") group lines under #BEGIN_TB / warp headers. */
static int listed_layout(const char *name)
{
    const char *s;
    size_t stem = trace_stem(name, &s);
    if (strncmp(s + stem, ".traceg", 7) == 0)
        return 0;
    if (strncmp(s + stem, ".trace", 6) == 0)
        return 1;
    return -1; /* unknown: the header's format line decides */
}

static ks_status add_event(ks_trace_set *s, const char *text, bool is_kernel, size_t kernel,
                           ks_error *err)
{
    ks_status st = ks_grow((void **)&s->events, &s->event_capacity, s->event_count + 1,
                           sizeof *s->events, err);
    if (st != KS_OK)
        return st;
    ks_trace_event *e = &s->events[s->event_count];
    memset(e, 0, sizeof *e);
    e->text = strdup(text);
    if (!e->text)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    e->is_kernel = is_kernel;
    e->kernel = kernel;
    s->event_count++;
    return KS_OK;
}

/* kernels, layouts and stats_row share one capacity */
static ks_status grow_kernels(ks_trace_set *s, ks_error *err)
{
    if (s->kernel_count < s->kernel_capacity)
        return KS_OK;
    size_t cap = s->kernel_capacity ? s->kernel_capacity * 2 : 16;
    void **const cols[] = {(void **)&s->kernels, (void **)&s->layouts, (void **)&s->stats_row};
    const size_t bytes[] = {sizeof *s->kernels, sizeof *s->layouts, sizeof *s->stats_row};
    if (!ks_resize_columns(cols, bytes, 3, cap))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    s->kernel_capacity = cap;
    return KS_OK;
}

static ks_status read_trace_header(ks_trace_set *s, ks_trace_kernel *k, trace_layout *layout,
                                   ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(k->path, &in, err);
    if (st != KS_OK)
        return st;
    char *pending;
    st = trace_read_header(in, k, layout, &pending, err);
    ks_input_close(in);
    return st;
}

static ks_status add_kernel(ks_trace_set *s, const char *name, long line, ks_error *err)
{
    ks_status st = grow_kernels(s, err);
    if (st != KS_OK)
        return st;
    ks_trace_kernel *k = &s->kernels[s->kernel_count];
    trace_layout *layout = &s->layouts[s->kernel_count];
    memset(k, 0, sizeof *k);
    memset(layout, 0, sizeof *layout);
    s->stats_row[s->kernel_count] = -1;
    k->index = s->kernel_count;
    k->stream = -1;
    k->path = find_trace(s->dir, name);
    if (!k->path) {
        /* there, but a folder, FIFO or device: say so, not "not in" */
        char *there = ks_path_join(s->dir, name);
        struct stat sb;
        bool present = there && stat(there, &sb) == 0;
        free(there);
        if (present)
            return ks_error_set(err, KS_ERR_IO, s->list_path, line,
                                "names trace file '%.200s', which in %.200s is %s, not a "
                                "regular file",
                                name, s->dir,
                                S_ISDIR(sb.st_mode)    ? "a folder"
                                : S_ISFIFO(sb.st_mode) ? "a FIFO"
                                                       : "a device or socket");
        return ks_error_set(err, KS_ERR_IO, s->list_path, line,
                            "names trace file '%.200s', which is not in %.200s (nor a .xz, "
                            ".gz or .zst copy)",
                            name, s->dir);
    }
    s->kernel_count++; /* owned from here: freed with the set */
    st = read_trace_header(s, k, layout, err);
    if (st != KS_OK)
        return st;
    int listed = listed_layout(name);
    if (listed >= 0)
        layout->prefixed = listed == 1;
    return add_event(s, name, true, k->index, err);
}

/* "MemcpyHtoD,0x00007f6200000000,131072": the simulator reads the address
 * as hex and the size as an unsigned count, so "-5" would copy 2^64 - 5
 * bytes: refused at its line, as is anything else after the kind. */
static ks_status check_memcpy(const char *t, const char *path, long line, ks_error *err)
{
    const char *a = strchr(t, ',');
    const char *b = a ? strchr(a + 1, ',') : NULL;
    uint64_t v;
    bool ok = a && b && a[1] == '0' && (a[2] == 'x' || a[2] == 'X') && b - a - 3 >= 1 &&
              b - a - 3 <= 16 && trace_parse_u64(a + 3, (size_t)(b - a - 3), 16, &v) &&
              b[1] >= '0' && b[1] <= '9' && trace_parse_u64(b + 1, strlen(b + 1), 10, &v);
    if (!ok)
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "'%.80s': a memory copy is Memcpy<kind>,0x<address>,<bytes> (a "
                            "whole non-negative count)",
                            t);
    return KS_OK;
}

static ks_status read_list(ks_trace_set *s, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(s->list_path, &in, err);
    if (st != KS_OK)
        return st;
    for (;;) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK || !line)
            break;
        bool nul = strlen(line) != len;
        char *t = ks_trim(line);
        if (t[0] == '\0' || t[0] == '#')
            continue;
        if (nul)
            st = ks_error_set(err, KS_ERR_FORMAT, s->list_path, ks_input_line_number(in),
                              "NUL byte in the list");
        else if (strncmp(t, "Memcpy", 6) == 0)
            st = check_memcpy(t, s->list_path, ks_input_line_number(in), err) == KS_OK
                     ? add_event(s, t, false, 0, err)
                     : KS_ERR_FORMAT;
        else
            st = add_kernel(s, t, ks_input_line_number(in), err);
        if (st != KS_OK)
            break;
    }
    if (st == KS_OK)
        st = ks_input_finish_digest(in, s->list_xxh128, &s->list_bytes, err);
    ks_input_close(in);
    return st;
}

/* ------------------------------------------------------------ stats.csv */

static ks_status stats_row(ks_trace_set *s, char **f, int n, const char *path, long line,
                           ks_error *err)
{
    /* the tracer writes ten fields when the launch starts and the two counts
     * when it ends: a launch that never ended has ten */
    if (n != 12 && n != 10)
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "stats row has %d fields, expected 12", n);
    ks_status st = ks_grow((void **)&s->stats, &s->stats_capacity, s->stats_count + 1,
                           sizeof *s->stats, err);
    if (st != KS_OK)
        return st;
    ks_trace_stats_row *r = &s->stats[s->stats_count];
    memset(r, 0, sizeof *r);
    r->total_insts = r->reported_insts = -1;
    uint64_t v[8];
    for (int i = 0; i < 8; i++) {
        char *c = ks_trim(f[2 + i]);
        if (!trace_parse_u64(c, strlen(c), 10, &v[i]) || (i != 3 && i != 7 && v[i] > UINT32_MAX))
            return ks_error_set(err, KS_ERR_FORMAT, path, line, "bad number '%.40s' in field %d",
                                c, 3 + i);
    }
    for (int i = 0; i < 3; i++) {
        r->grid[i] = (uint32_t)v[i];
        r->block[i] = (uint32_t)v[4 + i];
    }
    r->blocks = v[3];
    r->threads = v[7];
    for (int i = 10; i < n; i++) {
        char *c = ks_trim(f[i]);
        int64_t x;
        if (!trace_parse_i64(c, strlen(c), &x))
            return ks_error_set(err, KS_ERR_FORMAT, path, line, "bad count '%.40s' in field %d",
                                c, i + 1);
        *(i == 10 ? &r->total_insts : &r->reported_insts) = x;
    }
    r->trace = strdup(ks_trim(f[0]));
    r->name = strdup(ks_trim(f[1]));
    s->stats_count++;
    if (!r->trace || !r->name)
        return ks_error_set(err, KS_ERR_NOMEM, path, line, "out of memory");
    return KS_OK;
}

static ks_status read_stats(ks_trace_set *s, const char *path, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    char *f[16];
    bool header = false;
    for (;;) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK || !line)
            break;
        if (ks_trim(line)[0] == '\0')
            continue;
        int n = ks_csv_split(line, len, f, 16);
        if (n < 0) {
            st = ks_csv_unclosed_quote(path, ks_input_line_number(in), err);
            break;
        }
        if (!header) {
            if (n < 1 || strcmp(ks_trim(f[0]), "kernel id") != 0) {
                st = ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                                  "stats.csv does not start with the tracer's header "
                                  "('kernel id, kernel mangled name, ...')");
                break;
            }
            header = true;
            continue;
        }
        if ((st = stats_row(s, f, n, path, ks_input_line_number(in), err)) != KS_OK)
            break;
    }
    ks_input_close(in);
    return st;
}

/* Stats rows found by their trace file stem (hash.h's index over the rows,
 * keys not NUL-terminated: the stem is a part of the row's file name). */
typedef struct stem_sought {
    const ks_trace_set *s;
    const char *text;
    size_t len;
} stem_sought;

static uint64_t row_stem_hash(const void *ctx, uint32_t id)
{
    const char *a;
    size_t an = trace_stem(((const ks_trace_set *)ctx)->stats[id].trace, &a);
    return ks_name_hash(a, an);
}

static bool row_stem_equals(const void *ctx, uint32_t id)
{
    const stem_sought *k = ctx;
    const char *a;
    size_t an = trace_stem(k->s->stats[id].trace, &a);
    return an == k->len && memcmp(a, k->text, an) == 0;
}

/* Joins each launch to its stats row by trace file stem ("kernel-3" of
 * kernel-3.trace.xz and kernel-3.traceg); the first unused match wins, so
 * repeated names pair up in order: the rows of one stem form a chain in row
 * order, and each launch of that stem takes the chain's next row (a scan of
 * every row per launch made opening 3,000 launches take seconds). */
static ks_status match_stats(ks_trace_set *s, ks_error *err)
{
    size_t rows = s->stats_count;
    long *next = malloc((rows + 1) * sizeof *next), *tail = malloc((rows + 1) * sizeof *tail);
    ks_hash_index index = {0};
    ks_status st = next && tail ? ks_hash_reserve(&index, rows + 1, row_stem_hash, s, err)
                                : ks_error_set(err, KS_ERR_NOMEM, s->list_path, 0,
                                               "out of memory");
    for (size_t r = 0; r < rows && st == KS_OK; r++) { /* next: the chain; tail: its end */
        stem_sought k = {s, NULL, 0};
        k.len = trace_stem(s->stats[r].trace, &k.text);
        uint32_t head;
        size_t slot;
        next[r] = -1;
        if (ks_hash_find(&index, ks_name_hash(k.text, k.len), row_stem_equals, &k, &head,
                         &slot)) {
            next[tail[head]] = (long)r;
            tail[head] = (long)r;
        } else {
            ks_hash_put(&index, slot, (uint32_t)r);
            tail[r] = (long)r;
        }
    }
    /* tail[head] now serves as the chain's cursor: the head itself first */
    for (size_t r = 0; r < rows && st == KS_OK; r++)
        tail[r] = (long)r;
    for (size_t i = 0; i < s->kernel_count && st == KS_OK; i++) {
        stem_sought k = {s, NULL, 0};
        k.len = trace_stem(s->kernels[i].path, &k.text);
        uint32_t head;
        size_t slot;
        if (rows && ks_hash_find(&index, ks_name_hash(k.text, k.len), row_stem_equals, &k,
                                 &head, &slot) &&
            tail[head] >= 0) {
            s->stats_row[i] = tail[head];
            tail[head] = next[tail[head]];
        }
        if (ks_trace_set_stats_usable(s, i))
            s->kernels[i].warp_insts = (uint64_t)s->stats[s->stats_row[i]].reported_insts;
    }
    ks_hash_free(&index);
    free(next);
    free(tail);
    return st;
}

/* ----------------------------------------------------------------- open */

static ks_status locate(ks_trace_set *s, const char *dir, ks_error *err)
{
    if (is_file(dir)) { /* the list file itself */
        s->list_path = strdup(dir);
        const char *slash = strrchr(dir, '/');
        s->dir = !slash ? strdup(".") : slash == dir ? strdup("/")
                                                    : strndup(dir, (size_t)(slash - dir));
        return s->list_path && s->dir ? KS_OK
                                      : ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    }
    if (!is_dir(dir))
        return ks_error_set(err, KS_ERR_IO, dir, 0, "cannot open: %s", strerror(ENOENT));
    s->dir = strdup(dir);
    if (!s->dir)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    static const char *const lists[] = {"kernelslist.g", "kernelslist"};
    for (int i = 0; i < 2; i++) {
        char *p = ks_path_join(dir, lists[i]);
        if (!p)
            return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
        if (is_file(p)) {
            s->list_path = p;
            return KS_OK;
        }
        free(p);
    }
    return ks_error_set(err, KS_ERR_FORMAT, dir, 0,
                        "not an Accel-Sim trace folder: no kernelslist.g or kernelslist");
}

ks_status ks_trace_set_open(const char *dir, ks_trace_set **out, ks_error *err)
{
    *out = NULL;
    ks_trace_set *s = calloc(1, sizeof *s);
    if (!s)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    ks_status st = locate(s, dir, err);
    if (st == KS_OK)
        st = read_list(s, err);
    if (st == KS_OK) {
        char *stats = ks_path_join(s->dir, "stats.csv");
        if (!stats)
            st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
        else if (is_file(stats))
            st = read_stats(s, stats, err);
        free(stats);
    }
    if (st != KS_OK) {
        ks_trace_set_free(s);
        return st;
    }
    if ((st = match_stats(s, err)) != KS_OK) {
        ks_trace_set_free(s);
        return st;
    }
    *out = s;
    return KS_OK;
}

void ks_trace_set_free(ks_trace_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->kernel_count; i++) {
        free(s->kernels[i].name);
        free(s->kernels[i].path);
    }
    for (size_t i = 0; i < s->event_count; i++)
        free(s->events[i].text);
    for (size_t i = 0; i < s->stats_count; i++) {
        free(s->stats[i].trace);
        free(s->stats[i].name);
    }
    KS_FREE(s->kernels, s->layouts, s->stats_row, s->events, s->stats, s->dir, s->list_path);
    free(s);
}

size_t ks_trace_set_kernel_count(const ks_trace_set *s) { return s->kernel_count; }
size_t ks_trace_set_event_count(const ks_trace_set *s) { return s->event_count; }
int ks_trace_set_grouped(const ks_trace_set *s, size_t i)
{
    return i < s->kernel_count && !s->layouts[i].prefixed;
}
size_t ks_trace_set_stats_count(const ks_trace_set *s) { return s->stats_count; }

const ks_trace_kernel *ks_trace_set_kernel(const ks_trace_set *s, size_t i)
{
    return i < s->kernel_count ? &s->kernels[i] : NULL;
}

const ks_trace_event *ks_trace_set_event(const ks_trace_set *s, size_t i)
{
    return i < s->event_count ? &s->events[i] : NULL;
}

const ks_trace_stats_row *ks_trace_set_stats(const ks_trace_set *s, size_t i)
{
    return i < s->stats_count ? &s->stats[i] : NULL;
}

const ks_trace_stats_row *ks_trace_set_kernel_stats(const ks_trace_set *s, size_t i)
{
    return i < s->kernel_count && s->stats_row[i] >= 0 ? &s->stats[s->stats_row[i]] : NULL;
}

/* The shortest instruction line the tracer writes ("0000 00000000 0 X 0 0\n"
 * is 22 bytes): an uncompressed file holds fewer than size / 22 lines. */
enum { MIN_TRACE_LINE_BYTES = 22 };

int ks_trace_set_stats_usable(const ks_trace_set *s, size_t i)
{
    const ks_trace_stats_row *r = ks_trace_set_kernel_stats(s, i);
    if (!r)
        return 0;
    const ks_trace_kernel *k = &s->kernels[i];
    if (strcmp(r->name, k->name) != 0 || memcmp(r->grid, k->grid, sizeof r->grid) != 0 ||
        memcmp(r->block, k->block, sizeof r->block) != 0)
        return 0;
    if (r->reported_insts < 0 || r->reported_insts != r->total_insts ||
        r->reported_insts >= ((int64_t)1 << 31))
        return 0;
    const char *comp = strrchr(k->path, '.');
    bool compressed = comp && (strcmp(comp, ".xz") == 0 || strcmp(comp, ".gz") == 0 ||
                               strcmp(comp, ".zst") == 0);
    struct stat st;
    if (!compressed && stat(k->path, &st) == 0 &&
        (uint64_t)st.st_size / MIN_TRACE_LINE_BYTES >= ((uint64_t)1 << 32))
        return 0;
    return 1;
}

/* ------------------------------------------------------------ pair map */

uint64_t trace_block_linear(const ks_trace_kernel *k, const uint32_t tb[3])
{
    /* grid sizes are below 2^32 each, so x + gx * (y + gy * z) fits when
     * the indices are inside the grid; indices outside saturate */
    if (tb[0] >= k->grid[0] || tb[1] >= k->grid[1] || tb[2] >= k->grid[2])
        return UINT64_MAX;
    unsigned __int128 v = (unsigned __int128)tb[2] * k->grid[1] + tb[1];
    v = v * k->grid[0] + tb[0];
    return v > UINT64_MAX - 1 ? UINT64_MAX - 1 : (uint64_t)v;
}

static uint64_t pair_hash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0xD6E8FEB86659FD93ull);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static uint64_t pair_hash_of(const void *ctx, uint32_t id)
{
    const trace_pair_map *m = ctx;
    return pair_hash(m->first[id], m->second[id]);
}

typedef struct pair_key {
    const trace_pair_map *m;
    uint64_t first, second;
} pair_key;

static bool pair_equals(const void *ctx, uint32_t id)
{
    const pair_key *k = ctx;
    return k->m->first[id] == k->first && k->m->second[id] == k->second;
}

void trace_pair_map_init(trace_pair_map *m, size_t value_size)
{
    memset(m, 0, sizeof *m);
    m->value_size = value_size;
}

/* Adds the key (first, second), absent from the map, as id m->count with a
 * zeroed value, indexed at slot. */
static ks_status pair_add(trace_pair_map *m, uint64_t first, uint64_t second, size_t slot,
                          ks_error *err)
{
    if (m->count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "more than 2^32 - 2 distinct warps or runs in one launch");
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? m->capacity * 2 : 256;
        void **const cols[] = {(void **)&m->first, (void **)&m->second, &m->values};
        const size_t bytes[] = {sizeof *m->first, sizeof *m->second, m->value_size};
        if (!ks_resize_columns(cols, bytes, 3, cap))
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (trace pair map)");
        m->capacity = cap;
    }
    m->first[m->count] = first;
    m->second[m->count] = second;
    memset((char *)m->values + m->count * m->value_size, 0, m->value_size);
    ks_hash_put(&m->index, slot, (uint32_t)m->count++);
    return KS_OK;
}

ks_status trace_pair_map_get(trace_pair_map *m, uint64_t first, uint64_t second, void **value,
                             bool *is_new, ks_error *err)
{
    pair_key key = {m, first, second};
    uint64_t hash = pair_hash(first, second);
    uint32_t id;
    size_t slot;
    if (is_new)
        *is_new = false;
    /* nearly every call finds its key (a raw trace asks once per
     * instruction), so look before making room, which is a call */
    if (!m->count || !ks_hash_find(&m->index, hash, pair_equals, &key, &id, &slot)) {
        ks_status st = ks_hash_reserve(&m->index, m->count + 1, pair_hash_of, m, err);
        if (st != KS_OK)
            return st;
        /* the key is absent: this finds its slot in the grown table */
        if (!ks_hash_find(&m->index, hash, pair_equals, &key, &id, &slot)) {
            if ((st = pair_add(m, first, second, slot, err)) != KS_OK)
                return st;
            id = (uint32_t)(m->count - 1);
            if (is_new)
                *is_new = true;
        }
    }
    *value = (char *)m->values + (size_t)id * m->value_size;
    return KS_OK;
}

void trace_pair_map_free(trace_pair_map *m)
{
    free(m->first);
    free(m->second);
    free(m->values);
    ks_hash_free(&m->index);
    memset(m, 0, sizeof *m);
}

const char *ks_warm_kernel_file(char *buf, uint64_t launch)
{
    snprintf(buf, KS_WARM_KERNEL_FILE_SIZE, KS_WARM_KERNEL_FILE_PREFIX "%llu.traceg",
             (unsigned long long)launch + 1);
    return buf;
}
