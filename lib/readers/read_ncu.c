/*
 * read_ncu.c - Nsight Compute CSV in both of its layouts, and attaching its
 * metric columns to a time profile of the same program.
 *
 *   ncu-csv      `ncu --csv ...` (details page): one row per (kernel, metric)
 *                under one of three header versions, plus whatever columns
 *                NVTX options add.  Every column is found by its name.  It
 *                reads the raw layout too, since detection often sees only
 *                ncu's "==PROF==" progress lines and the header decides.
 *   ncu-raw-csv  `ncu --page raw --csv ...`: one row per kernel, one column
 *                per metric, and a second row that gives the units.
 *
 * Choices, and why:
 * - Noise.  ncu writes its own `==PROF==` (and `==WARNING==`, `==ERROR==`)
 *   lines to the same stream as the application's output, so every line
 *   before the header, every line starting with "==" and every line without
 *   the header's shape is skipped.  A line that starts the way an ncu row
 *   does (`"<digits>",`) is never skipped: if it has the wrong number of
 *   fields, an unterminated quote or a bad number, it is an error, because
 *   skipping it would drop a measurement without a word.  When the header
 *   is quoted (ncu quotes every field), only lines that start with a quote
 *   can be rows, so program output such as `1,2,3` cannot pose as one.
 * - Invocations.  Each distinct "ID" is one kernel launch, numbered in order
 *   of first appearance, which is ncu's launch order.  ncu prints a kernel's
 *   rows together, so an ID that comes back after other kernels' rows means
 *   several runs were pasted into one file: that is refused, since the two
 *   runs' launches cannot be told apart.  A repeated header that is
 *   identical to the first is skipped; a different one is refused.
 * - Durations.  ncu measures no wall-clock time of its own: a kernel's
 *   duration is its gpu__time_duration.sum metric (the raw name) or else a
 *   "Duration" metric in a unit of time (the Speed Of Light section's name
 *   for it), converted from its unit to ns.  The oldest header's "Kernel Time" column
 *   is the date of the measurement ("2020-Apr-07 17:01:05"), not a duration,
 *   and is ignored.  With no duration metric at all every duration is 0: the
 *   profile still serves the metric-based methods (PKA, Sieve) and attaching
 *   (which ignores durations), and the time-based methods see mu = 0.  Some
 *   kernels with a duration and others without is refused, since the total
 *   time would be understated; attaching tolerates it.
 * - Metrics.  Every distinct "Metric Name" (details) or every header column
 *   whose name has ncu's "unit__counter" shape, i.e. contains "__" (raw),
 *   becomes a metric column named as ncu names it, NAN where the value is
 *   "n/a", empty, nan or inf.  Values stay in the unit ncu gave them.  ncu
 *   scales units per value by default ("usecond" for one kernel, "msecond"
 *   for the next), so a column keeps the unit of its first number and later
 *   values in another unit of the same dimension (SI prefix, "/" ratios)
 *   are converted to it; values in a unit that cannot be converted are an
 *   error.  When one metric name appears in two sections (details page:
 *   "Memory Throughput" is "%" under Speed Of Light and "Gbyte/second"
 *   under Memory Workload Analysis) each such column is named
 *   "<Section Name>: <Metric Name>".  A column whose values are all text
 *   (device__attribute_display_name, "Function Cache Configuration") is not
 *   a metric and is dropped (the display name becomes the profile's
 *   device_name); a column with both numbers and text is an error.
 *   While reading, the table holds only the values given ((column, launch,
 *   value) cells), so memory follows the file's values; the profile's dense
 *   columns are made at the end, after checking metrics times launches
 *   against KS_MAX_METRIC_CELLS (8,000 metrics each on one of 8,000 launches
 *   is refused there having used 10 MB, not 1.27 GB).
 * - Truncation.  A last line cut inside a quoted field is an error.  A file
 *   cut exactly at a line end is caught, for the details layout, when its
 *   last kernel has fewer metric rows than every earlier launch of the same
 *   kernel (same code, same sections, so the same rows).
 */
#include "hash.h"
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { TEXT_SAMPLE = 64 };

/* Where a kernel's duration comes from, best first: one resolution order for
 * both layouts, and the profile records which one was used
 * (ks_profile.duration_source).  ncu reports gpu__time_duration with a
 * roll-up suffix (.sum over the kernel's replay passes is what its own
 * "Duration" shows); older raw pages name it without a suffix; some
 * collections keep only .avg, .max or .min.  For one launch the roll-ups
 * agree, so a weaker one is still the kernel's time, but one file never mixes
 * them: the first source every kernel has wins. */
static const char *const TIME_METRICS[] = {
    "gpu__time_duration.sum", "gpu__time_duration",     "Duration",
    "gpu__time_duration.avg", "gpu__time_duration.max", "gpu__time_duration.min",
};
enum { TIME_SOURCES = sizeof TIME_METRICS / sizeof TIME_METRICS[0], TIME_DETAILS = 2 };

static int time_source(const char *metric)
{
    for (int i = 0; i < TIME_SOURCES; i++)
        if (strcmp(metric, TIME_METRICS[i]) == 0)
            return i;
    return -1;
}
static const char DISPLAY_NAME_METRIC[] = "device__attribute_display_name";

/* ----------------------------------------------------------------- units */

/* One unit reduced to a dimension and a factor to that dimension's base:
 * "usecond" -> ("second", 1e-6), "cycle/nsecond" -> ("cycle/second", 1e9). */
typedef struct unit_scale {
    char dim[64];
    double scale;
} unit_scale;

static bool unit_term(const char *s, size_t n, const char **base, double *scale)
{
    static const struct {
        const char *text, *base;
    } bases[] = {
        {"second", "second"}, {"s", "second"},        {"byte", "byte"},
        {"B", "byte"},        {"cycle", "cycle"},     {"inst", "inst"},
        {"warp", "warp"},     {"sector", "sector"},   {"request", "request"},
        {"thread", "thread"}, {"block", "block"},     {"flop", "flop"},
        {"hz", "hz"},         {"Hz", "hz"},
    };
    /* the empty prefix first, so that "s" and "B" are bases, not prefixes */
    static const struct {
        const char *text;
        double scale;
    } prefixes[] = {
        {"", 1.0},   {"n", 1e-9},  {"u", 1e-6},  {"\xc2\xb5", 1e-6}, {"\xce\xbc", 1e-6},
        {"m", 1e-3}, {"K", 1e3},   {"k", 1e3},   {"M", 1e6},         {"G", 1e9},
        {"T", 1e12}, {"P", 1e15},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t pl = strlen(prefixes[i].text);
        if (pl > n || memcmp(s, prefixes[i].text, pl) != 0)
            continue;
        for (size_t j = 0; j < sizeof bases / sizeof bases[0]; j++) {
            size_t bl = strlen(bases[j].text);
            if (pl + bl == n && memcmp(s + pl, bases[j].text, bl) == 0) {
                *base = bases[j].base;
                *scale = prefixes[i].scale;
                return true;
            }
        }
    }
    return false;
}

/* False for units it does not understand ("%", "register/thread", ""):
 * those are compared as plain text. */
static bool unit_parse(const char *unit, unit_scale *out)
{
    const char *slash = strchr(unit, '/');
    size_t n1 = slash ? (size_t)(slash - unit) : strlen(unit);
    const char *b1, *b2 = NULL;
    double s1, s2 = 1.0;
    if (n1 == 0 || !unit_term(unit, n1, &b1, &s1))
        return false;
    if (slash) {
        const char *rest = slash + 1;
        if (strchr(rest, '/') || !unit_term(rest, strlen(rest), &b2, &s2))
            return false;
    }
    snprintf(out->dim, sizeof out->dim, "%s%s%s", b1, b2 ? "/" : "", b2 ? b2 : "");
    out->scale = s1 / s2;
    return true;
}

/* value_in_to = value_in_from * factor */
static bool unit_factor(const char *from, const char *to, double *factor)
{
    if (strcmp(from, to) == 0) {
        *factor = 1.0;
        return true;
    }
    unit_scale a, b;
    if (!unit_parse(from, &a) || !unit_parse(to, &b) || strcmp(a.dim, b.dim) != 0)
        return false;
    *factor = a.scale / b.scale;
    return true;
}

static bool unit_to_ns(const char *unit, double *factor)
{
    unit_scale u;
    if (!unit_parse(unit, &u) || strcmp(u.dim, "second") != 0)
        return false;
    *factor = u.scale * 1e9;
    return true;
}

/* ---------------------------------------------------------------- id set */

/* The kernel IDs seen so far: the invocation each became (UINT32_MAX when
 * the device filter dropped it) and the Process ID of the ncu process that
 * last printed it, to tell a later pass over the same launches from an ID
 * that comes back within one process. */
typedef struct id_entry {
    uint32_t row;
    int64_t pid;
} id_entry;

typedef struct id_set {
    int64_t *keys;
    unsigned char *used;
    id_entry *values;
    size_t size, count;
} id_set;

static size_t id_hash(int64_t id, size_t mask)
{
    uint64_t x = (uint64_t)id + 0x9e3779b97f4a7c15ULL; /* splitmix64 finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return (size_t)(x ^ (x >> 31)) & mask;
}

static void id_set_free(id_set *s)
{
    free(s->keys);
    free(s->used);
    free(s->values);
}

/* Finds id, inserting it (with *entry zeroed) when absent; *present says
 * whether it was there already.  *entry stays valid until the next call. */
static ks_status id_set_insert(id_set *s, int64_t id, bool *present, id_entry **entry,
                               ks_error *err)
{
    if ((s->count + 1) * 2 > s->size) {
        size_t size = s->size ? s->size * 2 : 1024;
        int64_t *keys = malloc(size * sizeof *keys);
        unsigned char *used = calloc(size, 1);
        id_entry *values = malloc(size * sizeof *values);
        if (!keys || !used || !values) {
            free(keys);
            free(used);
            free(values);
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        }
        for (size_t i = 0; i < s->size; i++) {
            if (!s->used[i])
                continue;
            size_t h = id_hash(s->keys[i], size - 1);
            while (used[h])
                h = (h + 1) & (size - 1);
            used[h] = 1;
            keys[h] = s->keys[i];
            values[h] = s->values[i];
        }
        id_set_free(s);
        s->keys = keys;
        s->used = used;
        s->values = values;
        s->size = size;
    }
    size_t h = id_hash(id, s->size - 1);
    while (s->used[h]) {
        if (s->keys[h] == id) {
            *present = true;
            *entry = &s->values[h];
            return KS_OK;
        }
        h = (h + 1) & (s->size - 1);
    }
    s->used[h] = 1;
    s->keys[h] = id;
    s->values[h] = (id_entry){0, 0};
    *entry = &s->values[h];
    s->count++;
    *present = false;
    return KS_OK;
}

/* --------------------------------------------------------- metric columns */

typedef enum { COL_EMPTY, COL_NUMBER, COL_TEXT } col_state;

typedef struct ncu_column {
    char *section; /* "" in the raw layout */
    char *metric;
    char *unit;    /* unit of the stored values: that of the first number */
    col_state state;
    long first_line; /* where the state was decided */
    char first_text[TEXT_SAMPLE];
    uint32_t last_row; /* row of the column's latest cell, when it has one */
    uint32_t last_cell;
    bool has_cells;
    bool clash; /* another numeric column has the same metric name */
    size_t out; /* its profile metric, once made */
} ncu_column;

/* One value as read: the table stores only the cells a file gives, so a file
 * naming thousands of metrics each for a few launches costs memory in
 * proportion to its values, not to metrics times launches.  A cell is keyed
 * (column << 32 | row) in the table's cell index. */
typedef struct ncu_cell {
    uint64_t key;
    double value;
} ncu_cell;

static uint64_t cell_key(size_t column, size_t row) { return (uint64_t)column << 32 | row; }
static size_t cell_column(const ncu_cell *c) { return (size_t)(c->key >> 32); }
static size_t cell_row(const ncu_cell *c) { return (uint32_t)c->key; }

typedef struct ncu_table {
    ncu_column *cols;
    size_t count, capacity;
    ks_hash_index column_index; /* (section, metric) -> column */
    size_t rows;
    size_t guess; /* kernels list their metrics in the same order */
    ncu_cell *cells;
    size_t cell_count, cell_capacity;
    /* (column, row) -> cell, built only once a value arrives for a row
     * before a column's latest one (processes merged by launch ID) */
    ks_hash_index cell_index;
    bool indexed;
} ncu_table;

static uint64_t key_hash(const char *section, const char *metric)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over section, 0x1f, metric */
    for (const char *s = section; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ 0x1f) * 1099511628211ULL;
    for (const char *s = metric; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void table_free(ncu_table *t)
{
    for (size_t i = 0; i < t->count; i++) {
        free(t->cols[i].section);
        free(t->cols[i].metric);
        free(t->cols[i].unit);
    }
    free(t->cols);
    ks_hash_free(&t->column_index);
    free(t->cells);
    ks_hash_free(&t->cell_index);
}

static uint64_t column_hash_of(const void *ctx, uint32_t id)
{
    const ncu_column *c = &((const ncu_table *)ctx)->cols[id];
    return key_hash(c->section, c->metric);
}

typedef struct column_key {
    const ncu_table *t;
    const char *section, *metric;
} column_key;

static bool column_equals(const void *ctx, uint32_t id)
{
    const column_key *k = ctx;
    const ncu_column *c = &k->t->cols[id];
    return strcmp(c->metric, k->metric) == 0 && strcmp(c->section, k->section) == 0;
}

/* The profile's metric columns are dense (every metric for every launch), so
 * metrics times launches is bounded: a few KB of compressed input naming
 * thousands of sparse metrics must not ask for gigabytes.  The table itself
 * holds only the values read, so the check comes once, at the end. */
static ks_status check_cells(size_t columns, size_t rows, ks_error *err)
{
    if (columns > 0 && rows > KS_MAX_METRIC_CELLS / columns)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "%zu metrics over %zu launches exceed the limit of %zu metric "
                            "values; collect fewer metrics (--metrics) or fewer launches "
                            "(--launch-count) per file",
                            columns, rows, KS_MAX_METRIC_CELLS);
    return KS_OK;
}

static ks_status table_column(ncu_table *t, const char *section, const char *metric,
                              size_t *index, ks_error *err)
{
    size_t g = t->guess;
    if (g < t->count && strcmp(t->cols[g].metric, metric) == 0 &&
        strcmp(t->cols[g].section, section) == 0) {
        *index = g;
        t->guess = g + 1;
        return KS_OK;
    }
    ks_status st = ks_hash_reserve(&t->column_index, t->count + 1, column_hash_of, t, err);
    if (st != KS_OK)
        return st;
    column_key key = {t, section, metric};
    uint32_t found;
    size_t slot;
    if (ks_hash_find(&t->column_index, key_hash(section, metric), column_equals, &key, &found,
                     &slot)) {
        *index = found;
        t->guess = found + 1;
        return KS_OK;
    }
    if (t->count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many metric columns");
    if ((st = ks_grow((void **)&t->cols, &t->capacity, t->count + 1, sizeof *t->cols, err)))
        return st;
    ncu_column *c = &t->cols[t->count];
    memset(c, 0, sizeof *c);
    c->section = strdup(section);
    c->metric = strdup(metric);
    if (!c->section || !c->metric) {
        free(c->section);
        free(c->metric);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    ks_hash_put(&t->column_index, slot, (uint32_t)t->count);
    *index = t->count++;
    t->guess = *index + 1;
    return KS_OK;
}

/* One more invocation (its cells come later). */
static ks_status table_add_row(ncu_table *t, ks_error *err)
{
    if (t->rows >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many kernel launches");
    t->rows++;
    t->guess = 0;
    return KS_OK;
}

static ks_u64_keys cell_keys(const ncu_table *t)
{
    return (ks_u64_keys){t->cells, sizeof *t->cells, offsetof(ncu_cell, key)};
}

static ks_status index_cell(ncu_table *t, uint32_t id, ks_error *err)
{
    ks_u64_keys keys = cell_keys(t);
    bool found;
    uint32_t other;
    size_t slot;
    ks_status st = ks_hash_find_u64(&t->cell_index, &keys, id, t->cells[id].key, &found, &other,
                                    &slot, err);
    if (st == KS_OK && !found)
        ks_hash_put(&t->cell_index, slot, id);
    return st;
}

/* The cell of (column, row), or NULL.  Launches arrive in order, so only a
 * later process revisiting earlier launches needs the index. */
static ks_status table_find_cell(ncu_table *t, size_t column, size_t row, ncu_cell **cell,
                                 ks_error *err)
{
    ncu_column *c = &t->cols[column];
    *cell = NULL;
    if (!c->has_cells || row > c->last_row)
        return KS_OK;
    if (row == c->last_row) {
        *cell = &t->cells[c->last_cell];
        return KS_OK;
    }
    if (!t->indexed) {
        for (size_t i = 0; i < t->cell_count; i++) {
            ks_status st = index_cell(t, (uint32_t)i, err);
            if (st != KS_OK)
                return st;
        }
        t->indexed = true;
    }
    ks_u64_keys keys = cell_keys(t);
    uint32_t id;
    if (ks_hash_get_u64(&t->cell_index, &keys, cell_key(column, row), &id))
        *cell = &t->cells[id];
    return KS_OK;
}

static ks_status table_add_cell(ncu_table *t, size_t column, size_t row, double v, ks_error *err)
{
    if (t->cell_count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many metric values");
    ks_status st = ks_grow((void **)&t->cells, &t->cell_capacity, t->cell_count + 1,
                           sizeof *t->cells, err);
    if (st != KS_OK)
        return st;
    uint32_t id = (uint32_t)t->cell_count++;
    t->cells[id] = (ncu_cell){cell_key(column, row), v};
    ncu_column *c = &t->cols[column];
    if (!c->has_cells || row > c->last_row) {
        c->has_cells = true;
        c->last_row = (uint32_t)row;
        c->last_cell = id;
    }
    return t->indexed ? index_cell(t, id, err) : KS_OK;
}

/* ----------------------------------------------------------- reader state */

typedef struct ncu_kernel {
    int64_t id;
    long line;           /* of its first row */
    double time_ns[TIME_SOURCES]; /* by TIME_METRICS source */
    unsigned time_have;           /* bit i: time_ns[i] is known */
    uint32_t metric_rows;
} ncu_kernel;

typedef struct ncu_read {
    const char *path;
    const ks_read_options *opt;
    ks_profile *p;
    ks_error *err;
    bool raw_only; /* read as ncu-raw-csv: refuse the details layout */
    bool wide;     /* the header is the raw layout's */
    bool allow_partial_duration;

    char *header_raw; /* the header line as read, to recognise repeats */
    char *header_buf; /* split copy holding the column names */
    char **names;
    int nfields;
    bool quoted;
    char **fields; /* scratch for one row */
    long header_line;

    int c_id, c_name, c_grid, c_block, c_device, c_stream;
    int c_section, c_metric, c_unit, c_value; /* details layout */
    int c_pid;
    int needed; /* fields a row must have: up to the last column read */
    uint32_t *field_column;                   /* raw layout: column of each field */
    char *units_raw;
    char *units_buf;
    char **units;
    long units_line;
    bool expect_units;

    id_set ids;
    bool have_current, current_kept;
    int64_t current_id;
    size_t current_row; /* the current kernel's invocation, when kept */
    int64_t current_pid;
    ncu_kernel *kernels;
    size_t kernel_capacity;
    ncu_table table;
} ncu_read;

static ks_status fail(ncu_read *r, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static ks_status fail(ncu_read *r, long line, const char *fmt, ...)
{
    char msg[sizeof r->err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ks_error_set(r->err, KS_ERR_FORMAT, r->path, line, "%s", msg);
}

static void ncu_read_free(ncu_read *r)
{
    KS_FREE(r->header_raw, r->header_buf, r->names, r->fields, r->field_column, r->units_raw,
            r->units_buf, r->units);
    id_set_free(&r->ids);
    free(r->kernels);
    table_free(&r->table);
}

static const char *skip_spaces(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* `"ID",` or `ID,`: a header, the first one or a repeat. */
static bool looks_like_header(const char *line)
{
    const char *s = skip_spaces(line);
    return starts_with(s, "\"ID\",") || starts_with(s, "ID,");
}

/* `"<digits>",` (or `"",`, the raw layout's units row), or unquoted digits:
 * the start of an ncu row, which must then parse. */
static bool looks_like_row(const char *line)
{
    const char *s = skip_spaces(line);
    bool quote = *s == '"';
    if (quote)
        s++;
    /* inside quotes an ID may carry thousands separators ("1,024") */
    while (isdigit((unsigned char)*s) || (quote && *s == ','))
        s++;
    if (quote) {
        if (*s != '"')
            return false;
        s++;
    } else if (s == skip_spaces(line)) {
        return false;
    }
    return *s == ',';
}

/* strtod's words for values ncu cannot have measured: read as missing */
static bool is_nonfinite_word(const char *s)
{
    s = skip_spaces(s);
    if (*s == '-' || *s == '+')
        s++;
    size_t n = strcspn(s, " \t");
    if (s[n + strspn(s + n, " \t")] != '\0')
        return false;
    return (n == 3 && (strncasecmp(s, "nan", 3) == 0 || strncasecmp(s, "inf", 3) == 0)) ||
           (n == 8 && strncasecmp(s, "infinity", 8) == 0);
}

/* ------------------------------------------------------------------ header */

static int find_column(const ncu_read *r, const char *name)
{
    return ks_csv_find(r->names, r->nfields, name);
}

/* Leaves r->header_raw NULL when the line is program output after all. */
static ks_status take_header(ncu_read *r, const char *line, size_t len, long lineno)
{
    char *raw = malloc(len + 1), *buf = malloc(len + 1);
    char **names = NULL;
    int cap = 0, count = 0;
    ks_status st = KS_ERR_NOMEM;
    if (raw && buf) {
        memcpy(raw, line, len);
        raw[len] = '\0';
        memcpy(buf, raw, len + 1);
        st = ks_csv_split_grow(buf, len, &names, &cap, &count, r->path, lineno, r->err);
    }
    if (st == KS_ERR_NOMEM)
        st = ks_error_set(r->err, KS_ERR_NOMEM, r->path, lineno, "out of memory");
    else if (st == KS_OK && count < 0)
        st = fail(r, lineno, "header line has an unterminated quote");
    for (int i = 0; st == KS_OK && i < count; i++)
        names[i] = ks_trim(names[i]);
    /* program output may start with "ID," too: an ncu header also names the
     * kernel or the process */
    if (st != KS_OK || strcmp(names[0], "ID") != 0 ||
        (ks_csv_find(names, count, "Kernel Name") < 0 &&
         ks_csv_find(names, count, "Process ID") < 0)) {
        free(raw);
        free(buf);
        free(names);
        return st;
    }
    r->header_raw = raw;
    r->header_buf = buf;
    r->names = names;
    r->nfields = count;
    r->header_line = lineno;
    r->quoted = *skip_spaces(raw) == '"';
    r->fields = malloc((size_t)count * sizeof *r->fields);
    if (!r->fields)
        return ks_error_set(r->err, KS_ERR_NOMEM, r->path, lineno, "out of memory");

    int metric_like = 0;
    for (int i = 0; i < count; i++)
        metric_like += strstr(names[i], "__") != NULL;
    bool details = find_column(r, "Metric Name") >= 0 || find_column(r, "Metric Value") >= 0;
    if (r->raw_only && details)
        return fail(r, lineno,
                    "header has a \"Metric Name\"/\"Metric Value\" column: this is the "
                    "details layout (one row per metric); read it as ncu-csv");
    /* the header says which layout this is, since the head of the file that
     * detection saw may hold nothing but ncu's progress lines */
    r->wide = r->raw_only || (!details && metric_like > 0);
    static const char *const required_details[] = {"ID", "Kernel Name", "Metric Name",
                                                    "Metric Unit", "Metric Value", NULL};
    static const char *const required_raw[] = {"ID", "Kernel Name", NULL};
    const char *const *required = r->wide ? required_raw : required_details;
    for (size_t i = 0; required[i]; i++)
        if (find_column(r, required[i]) < 0)
            return fail(r, lineno,
                        "header has no \"%s\" column (Nsight Compute %s CSV expected)",
                        required[i], r->wide ? "raw-page" : "details-page");
    r->c_id = find_column(r, "ID");
    r->c_name = find_column(r, "Kernel Name");
    r->c_grid = find_column(r, "Grid Size");
    r->c_block = find_column(r, "Block Size");
    r->c_device = find_column(r, "Device");
    r->c_stream = find_column(r, "Stream");
    r->c_section = find_column(r, "Section Name");
    r->c_metric = find_column(r, "Metric Name");
    r->c_unit = find_column(r, "Metric Unit");
    r->c_value = find_column(r, "Metric Value");
    r->c_pid = find_column(r, "Process ID");
    const int used[] = {r->c_id,     r->c_name,   r->c_grid,   r->c_block,
                        r->c_device, r->c_stream, r->c_section, r->c_metric,
                        r->c_unit,   r->c_value,  r->c_pid};
    r->needed = 1;
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++) {
        if (used[i] + 1 > r->needed)
            r->needed = used[i] + 1;
        if (used[i] >= 0 &&
            ks_csv_find(names + used[i] + 1, count - used[i] - 1, names[used[i]]) >= 0)
            return fail(r, lineno,
                        "column \"%s\" appears twice in the header: which one holds the "
                        "data is unknown",
                        names[used[i]]);
    }
    if (r->opt->device >= 0 && r->c_device < 0)
        return fail(r, lineno,
                    "header has no \"Device\" column, so the kernels of device %d cannot be "
                    "picked out",
                    r->opt->device);

    if (r->wide) {
        r->field_column = malloc((size_t)count * sizeof *r->field_column);
        r->units = calloc((size_t)count, sizeof *r->units);
        if (!r->field_column || !r->units)
            return ks_error_set(r->err, KS_ERR_NOMEM, r->path, lineno, "out of memory");
        for (int i = 0; i < count; i++) {
            r->units[i] = "";
            r->field_column[i] = UINT32_MAX;
            if (!strstr(names[i], "__"))
                continue;
            size_t index, before = r->table.count;
            st = table_column(&r->table, "", names[i], &index, r->err);
            if (st != KS_OK)
                return st;
            if (r->table.count == before)
                return fail(r, lineno, "metric column \"%s\" appears twice in the header",
                            names[i]);
            r->field_column[i] = (uint32_t)index;
        }
        r->expect_units = true;
        r->needed = count; /* every column may be a metric */
    }
    return KS_OK;
}

/* ------------------------------------------------------------------- rows */

static ks_status parse_dims(ncu_read *r, int col, long line, uint32_t dims[3], bool *have)
{
    *have = false;
    if (col < 0)
        return KS_OK;
    const char *cell = ks_trim(r->fields[col]);
    if (!*cell || strcasecmp(cell, "n/a") == 0)
        return KS_OK;
    if (!ks_parse_dim3(cell, dims))
        return fail(r, line, "%s \"%.60s\" is not an (x, y, z) triple", r->names[col], cell);
    *have = true;
    return KS_OK;
}

static ks_status parse_small(ncu_read *r, int col, long line, uint32_t *out, bool *missing)
{
    *out = 0;
    *missing = true;
    if (col < 0)
        return KS_OK;
    int64_t v;
    if (!ks_parse_i64(r->fields[col], &v, missing) || (!*missing && (v < 0 || v > UINT32_MAX)))
        return fail(r, line, "%s \"%.60s\" is not a non-negative integer", r->names[col],
                    r->fields[col]);
    if (!*missing)
        *out = (uint32_t)v;
    return KS_OK;
}

/* The row's Process ID; PID_UNKNOWN without the column or a value. */
#define PID_UNKNOWN INT64_MIN
static ks_status parse_pid(ncu_read *r, long line, int64_t *pid)
{
    *pid = PID_UNKNOWN;
    if (r->c_pid < 0)
        return KS_OK;
    bool missing;
    int64_t v;
    if (!ks_parse_i64(r->fields[r->c_pid], &v, &missing))
        return fail(r, line, "Process ID \"%.60s\" is not an integer",
                    skip_spaces(r->fields[r->c_pid]));
    if (!missing && v != PID_UNKNOWN)
        *pid = v;
    return KS_OK;
}

/* Kernel `id` printed again by a later ncu process of the same file: ncu run
 * once per metric group over the same program prints the same launches with
 * the same IDs (0, 1, ... in launch order), so its rows join the launch that
 * has this ID.  The names must agree, or these are not the same launches. */
static ks_status rejoin_kernel(ncu_read *r, int64_t id, int64_t pid, id_entry *e, long line)
{
    if (pid == PID_UNKNOWN || e->pid == pid)
        return fail(r, line,
                    "kernel ID %lld appears again after other kernels' rows of the same ncu "
                    "process: several runs pasted into one file? (their launches cannot be "
                    "told apart)",
                    (long long)id);
    e->pid = pid;
    r->have_current = true;
    r->current_id = id;
    r->current_pid = pid;
    r->current_kept = e->row != UINT32_MAX;
    if (!r->current_kept)
        return KS_OK;
    r->current_row = e->row;
    const char *name = ks_trim(r->fields[r->c_name]);
    const char *known = ks_profile_name(r->p, e->row);
    if (strcmp(name, known) != 0)
        return fail(r, line,
                    "ncu process %lld names kernel ID %lld \"%.120s\" but an earlier process "
                    "named it \"%.120s\": not the same launches, so their metrics cannot be "
                    "merged",
                    (long long)pid, (long long)id, name, known);
    return KS_OK;
}

/* The first row of kernel `id` in its ncu process: appends the invocation
 * unless the device filter drops it, or rejoins the launch an earlier
 * process printed under the same ID. */
static ks_status start_kernel(ncu_read *r, int64_t id, int64_t pid, long line)
{
    bool present;
    id_entry *e = NULL;
    ks_status st = id_set_insert(&r->ids, id, &present, &e, r->err);
    if (st != KS_OK)
        return st;
    if (present)
        return rejoin_kernel(r, id, pid, e, line);
    e->pid = pid;
    e->row = UINT32_MAX;
    r->have_current = true;
    r->current_id = id;
    r->current_pid = pid;
    r->current_kept = false;

    ks_invocation inv;
    ks_invocation_init(&inv);
    bool missing;
    if ((st = parse_small(r, r->c_device, line, &inv.device, &missing)))
        return st;
    if (r->opt->device >= 0) {
        if (missing)
            return fail(r, line, "kernel ID %lld has no Device, so the device filter cannot "
                                 "place it",
                        (long long)id);
        if (inv.device != (uint32_t)r->opt->device)
            return KS_OK;
    }
    if ((st = parse_small(r, r->c_stream, line, &inv.stream, &missing)))
        return st;
    uint32_t grid[3], block[3];
    bool have_grid, have_block;
    if ((st = parse_dims(r, r->c_grid, line, grid, &have_grid)) ||
        (st = parse_dims(r, r->c_block, line, block, &have_block)))
        return st;
    inv.grid = have_grid ? grid : NULL;
    inv.block = have_block ? block : NULL;
    const char *name = ks_trim(r->fields[r->c_name]);
    if (!*name)
        return fail(r, line, "kernel ID %lld has an empty Kernel Name", (long long)id);
    if ((st = ks_profile_intern(r->p, name, strlen(name), &inv.name_id, r->err)))
        return st;
    if ((st = ks_grow((void **)&r->kernels, &r->kernel_capacity, r->p->n + 1,
                      sizeof *r->kernels, r->err)))
        return st;
    if ((st = ks_profile_append(r->p, &inv, r->err)) || (st = table_add_row(&r->table, r->err)))
        return st;
    ncu_kernel *k = &r->kernels[r->p->n - 1];
    memset(k, 0, sizeof *k);
    k->id = id;
    k->line = line;
    r->current_kept = true;
    r->current_row = r->p->n - 1;
    e->row = (uint32_t)r->current_row;
    return KS_OK;
}

/* Stores one metric cell of the current (kept) kernel. */
static ks_status store_value(ncu_read *r, size_t column, const char *cell, const char *unit,
                             long line)
{
    ncu_column *c = &r->table.cols[column];
    size_t row = r->current_row;
    double v;
    bool missing;
    if (is_nonfinite_word(cell))
        return KS_OK;
    if (!ks_parse_double(cell, &v, &missing)) {
        cell = skip_spaces(cell);
        if (c->state == COL_NUMBER)
            return fail(r, line,
                        "metric \"%s\" of kernel ID %lld is \"%.60s\", not a number (line %ld "
                        "has a number in this column)",
                        c->metric, (long long)r->current_id, cell, c->first_line);
        if (c->state == COL_EMPTY) {
            c->state = COL_TEXT;
            c->first_line = line;
            snprintf(c->first_text, sizeof c->first_text, "%s", cell);
        }
        return KS_OK;
    }
    if (missing)
        return KS_OK;
    if (c->state == COL_TEXT)
        return fail(r, line,
                    "metric \"%s\" of kernel ID %lld is the number \"%.60s\", but line %ld has "
                    "text (\"%.60s\") in this column: not a number",
                    c->metric, (long long)r->current_id, skip_spaces(cell), c->first_line,
                    c->first_text);
    if (c->state == COL_EMPTY) {
        c->unit = strdup(unit);
        if (!c->unit)
            return ks_error_set(r->err, KS_ERR_NOMEM, r->path, line, "out of memory");
        c->state = COL_NUMBER;
        c->first_line = line;
    } else {
        double factor;
        if (!unit_factor(unit, c->unit, &factor))
            return fail(r, line,
                        "metric \"%s\" of kernel ID %lld is in \"%s\", which does not convert "
                        "to \"%s\" (the unit at line %ld)",
                        c->metric, (long long)r->current_id, unit, c->unit, c->first_line);
        v *= factor;
    }
    ncu_cell *old;
    ks_status st = table_find_cell(&r->table, column, row, &old, r->err);
    if (st != KS_OK)
        return st;
    if (!old)
        return table_add_cell(&r->table, column, row, v, r->err);
    if (fabs(old->value - v) > 1e-9 * fmax(fabs(old->value), fabs(v)))
        return fail(r, line, "metric \"%s\" of kernel ID %lld is given twice, as %g and %g",
                    c->metric, (long long)r->current_id, old->value, v);
    return KS_OK;
}

/* A duration metric's value (already known to be a number or missing). */
static ks_status note_duration(ncu_read *r, int source, const char *cell, const char *unit,
                               long line)
{
    ncu_kernel *k = &r->kernels[r->current_row];
    double v;
    bool missing;
    if (is_nonfinite_word(cell) || !ks_parse_double(cell, &v, &missing) || missing)
        return KS_OK;
    double factor;
    if (!unit_to_ns(unit, &factor)) {
        if (source == TIME_DETAILS)
            return KS_OK; /* a "Duration" that is not a time: some other metric */
        if (!*unit)
            return fail(r, line, "%s of kernel ID %lld has no unit%s", TIME_METRICS[source],
                        (long long)r->current_id,
                        r->wide ? " (no units row after the header?)" : "");
        return fail(r, line, "%s of kernel ID %lld is in \"%s\", which is not a unit of time",
                    TIME_METRICS[source], (long long)r->current_id, unit);
    }
    double ns = v * factor;
    if (!(ns >= 0 && ns < 9.2e18))
        return fail(r, line, "duration of kernel ID %lld (%g %s) is out of range",
                    (long long)r->current_id, v, unit);
    k->time_ns[source] = ns;
    k->time_have |= 1u << source;
    return KS_OK;
}

/* The row's kernel ID. */
/* The row's kernel ID and process ID (both row layouts start with them). */
static ks_status parse_ids(ncu_read *r, long line, int64_t *id, int64_t *pid)
{
    const char *cell = r->fields[r->c_id];
    bool missing;
    if (!ks_parse_i64(cell, id, &missing) || missing)
        return fail(r, line, "ID \"%.60s\" is not an integer", skip_spaces(cell));
    return parse_pid(r, line, pid);
}

static ks_status details_row(ncu_read *r, long line)
{
    int64_t id, pid;
    ks_status st = parse_ids(r, line, &id, &pid);
    if (st != KS_OK)
        return st;
    if (!r->have_current || id != r->current_id || pid != r->current_pid) {
        if ((st = start_kernel(r, id, pid, line)))
            return st;
    } else if (r->current_kept) {
        const char *name = ks_trim(r->fields[r->c_name]);
        const char *known = ks_profile_name(r->p, r->current_row);
        if (strcmp(name, known) != 0)
            return fail(r, line, "kernel ID %lld is named \"%.150s\" here but \"%.150s\" "
                                 "in its earlier rows",
                        (long long)id, name, known);
    }
    if (!r->current_kept)
        return KS_OK;
    const char *metric = ks_trim(r->fields[r->c_metric]);
    if (!*metric)
        return KS_OK; /* a rule's row (newest header): advice, not a measurement */
    const char *section = r->c_section >= 0 ? ks_trim(r->fields[r->c_section]) : "";
    const char *unit = ks_trim(r->fields[r->c_unit]);
    const char *cell = r->fields[r->c_value];
    size_t column;
    if ((st = table_column(&r->table, section, metric, &column, r->err)) != KS_OK)
        return st;
    if ((st = store_value(r, column, cell, unit, line)) != KS_OK)
        return st;
    r->kernels[r->current_row].metric_rows++;
    int source = time_source(metric);
    return source >= 0 ? note_duration(r, source, cell, unit, line) : KS_OK;
}

static ks_status raw_units(ncu_read *r, const char *line, size_t len, long lineno,
                           bool truncated)
{
    if (!r->expect_units)
        return fail(r, lineno, "row has an empty ID (a units row belongs right after the "
                               "header)");
    r->expect_units = false;
    if (r->units_raw) {
        if (strcmp(r->units_raw, line) != 0)
            return fail(r, lineno, "units row differs from the one at line %ld",
                        r->units_line);
        return KS_OK;
    }
    r->units_raw = malloc(len + 1);
    r->units_buf = malloc(len + 1);
    if (!r->units_raw || !r->units_buf)
        return ks_error_set(r->err, KS_ERR_NOMEM, r->path, lineno, "out of memory");
    memcpy(r->units_raw, line, len + 1);
    memcpy(r->units_buf, line, len + 1);
    int count = ks_csv_split(r->units_buf, len, r->units, r->nfields);
    if (count != r->nfields)
        return fail(r, lineno, "units row has %d fields but the header (line %ld) has %d%s",
                    count, r->header_line, r->nfields,
                    truncated ? ": the file looks truncated" : "");
    for (int i = 0; i < count; i++)
        r->units[i] = ks_trim(r->units[i]);
    r->units_line = lineno;
    return KS_OK;
}

static ks_status raw_row(ncu_read *r, long line)
{
    int64_t id, pid;
    ks_status st = parse_ids(r, line, &id, &pid);
    if (st != KS_OK)
        return st;
    r->expect_units = false;
    if ((st = start_kernel(r, id, pid, line)) != KS_OK || !r->current_kept)
        return st;
    for (int f = 0; f < r->nfields; f++) {
        if (r->field_column[f] == UINT32_MAX)
            continue;
        if ((st = store_value(r, r->field_column[f], r->fields[f], r->units[f], line)))
            return st;
        r->kernels[r->current_row].metric_rows++;
        int source = time_source(r->names[f]);
        if (source >= 0 && (st = note_duration(r, source, r->fields[f], r->units[f], line)))
            return st;
    }
    return KS_OK;
}

/* ------------------------------------------------------------------ finish */

/* Picks the first TIME_METRICS source that every kernel has and records it
 * in the profile.  With none at all the durations stay 0 and the profile says
 * "none", so that `info` can tell and time-based methods refuse.  Some
 * kernels timed and others not is refused (the total would be understated),
 * except when attaching, which ignores durations. */
static ks_status resolve_durations(ncu_read *r, long last_line)
{
    ks_profile *p = r->p;
    unsigned all = ~0u, any = 0;
    for (size_t i = 0; i < p->n; i++) {
        all &= r->kernels[i].time_have;
        any |= r->kernels[i].time_have;
    }
    int source = -1;
    for (int s = 0; s < TIME_SOURCES && source < 0 && p->n > 0; s++)
        if (all >> s & 1)
            source = s;
    if (source < 0 && any && !r->allow_partial_duration) {
        int best = 0;
        while (!(any >> best & 1))
            best++;
        size_t known = 0, first_unknown = SIZE_MAX;
        for (size_t i = 0; i < p->n; i++) {
            if (r->kernels[i].time_have >> best & 1)
                known++;
            else if (first_unknown == SIZE_MAX)
                first_unknown = i;
        }
        return fail(r, first_unknown < p->n ? r->kernels[first_unknown].line : last_line,
                    "kernel ID %lld has no duration (%s) while %zu of %zu kernels have one; "
                    "its total time would be understated",
                    first_unknown < p->n ? (long long)r->kernels[first_unknown].id : -1LL,
                    TIME_METRICS[best], known, p->n);
    }
    for (size_t i = 0; i < p->n; i++) {
        const ncu_kernel *k = &r->kernels[i];
        int s = source;
        for (int t = 0; s < 0 && t < TIME_SOURCES; t++)
            if (k->time_have >> t & 1)
                s = t; /* attaching: each kernel's best, durations are not used */
        p->duration_ns[i] = s >= 0 ? llround(k->time_ns[s]) : 0;
    }
    snprintf(p->duration_source, sizeof p->duration_source, "%s",
             source >= 0 ? TIME_METRICS[source] : any ? "mixed" : "none");
    return KS_OK;
}

static int by_metric_name(const void *a, const void *b)
{
    const ncu_column *x = *(const ncu_column *const *)a, *y = *(const ncu_column *const *)b;
    return strcmp(x->metric, y->metric);
}

/* Sorted by name, not pairwise: a raw page may hold thousands of metrics. */
static ks_status mark_clashes(ncu_table *t, ks_error *err)
{
    ncu_column **order = malloc((t->count ? t->count : 1) * sizeof *order);
    if (!order)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->cols[i].state != COL_TEXT)
            order[n++] = &t->cols[i];
    qsort(order, n, sizeof *order, by_metric_name);
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(order[i]->metric, order[i + 1]->metric) == 0)
            order[i]->clash = order[i + 1]->clash = true;
    free(order);
    return KS_OK;
}

static ks_status finish(ncu_read *r, long last_line)
{
    ks_profile *p = r->p;
    ks_status st;
    if (!r->header_raw)
        return fail(r, last_line,
                    "not an Nsight Compute CSV: no header line (\"ID\",\"Process ID\",...,"
                    "\"Kernel Name\",...) found");
    if (!r->wide && p->n >= 2) {
        /* same kernel, same sections, same rows: fewer rows at the very end
         * means the file was cut at a line end */
        size_t last = p->n - 1;
        uint32_t fewest = UINT32_MAX;
        for (size_t i = 0; i < last; i++)
            if (p->name_id[i] == p->name_id[last] && r->kernels[i].metric_rows < fewest)
                fewest = r->kernels[i].metric_rows;
        if (fewest != UINT32_MAX && r->kernels[last].metric_rows < fewest)
            return fail(r, last_line,
                        "the last kernel (ID %lld) has %u metric rows but every earlier launch "
                        "of it has at least %u: the file looks truncated",
                        (long long)r->kernels[last].id, r->kernels[last].metric_rows, fewest);
    }
    if ((st = resolve_durations(r, last_line)) != KS_OK)
        return st;

    ncu_table *t = &r->table;
    /* the profile's metric columns are dense: check their size before any
     * is made */
    size_t numeric = 0;
    for (size_t i = 0; i < t->count; i++)
        numeric += t->cols[i].state != COL_TEXT;
    if ((st = check_cells(numeric, p->n, r->err)) != KS_OK ||
        (st = mark_clashes(t, r->err)) != KS_OK)
        return st;
    for (size_t i = 0; i < t->count; i++) {
        ncu_column *c = &t->cols[i];
        if (c->state == COL_TEXT) {
            if (strcmp(c->metric, DISPLAY_NAME_METRIC) == 0 && !p->device_name[0])
                snprintf(p->device_name, sizeof p->device_name, "%s", c->first_text);
            continue;
        }
        char name[512];
        if (c->clash && c->section[0])
            snprintf(name, sizeof name, "%s: %s", c->section, c->metric);
        else
            snprintf(name, sizeof name, "%s", c->metric);
        size_t before = p->metric_count;
        ks_metric_column *col;
        if ((st = ks_profile_metric(p, name, &col, r->err)) != KS_OK)
            return st;
        if (p->metric_count == before)
            return fail(r, c->first_line, "two metric columns would both be named \"%s\"", name);
        c->out = before;
        /* kept so that eval can tell totals from rates ("%", "byte/second") */
        if (c->unit && !(col->unit = strdup(c->unit)))
            return ks_error_set(r->err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < t->cell_count; k++) {
        const ncu_cell *cell = &t->cells[k];
        const ncu_column *c = &t->cols[cell_column(cell)];
        if (c->state != COL_TEXT)
            p->metrics[c->out].values[cell_row(cell)] = cell->value;
    }
    return KS_OK;
}

/* -------------------------------------------------------------------- read */

static ks_status read_ncu(ks_input *in, const ks_read_options *opt, ks_profile *p,
                          bool raw_only, bool allow_partial_duration, long **lines,
                          ks_error *err)
{
    ncu_read r = {.path = ks_input_path(in), .opt = opt, .p = p, .err = err,
                  .raw_only = raw_only, .allow_partial_duration = allow_partial_duration};
    ks_status st = KS_OK;
    long lineno = 0;
    for (;;) {
        char *line;
        size_t len;
        bool truncated;
        if ((st = ks_input_getline(in, &line, &len, &truncated, err)) != KS_OK)
            break;
        if (!line)
            break;
        lineno = ks_input_line_number(in);
        if (!r.header_raw) {
            if (!looks_like_header(line))
                continue;
            if ((st = take_header(&r, line, len, lineno)) != KS_OK)
                break;
            continue;
        }
        const char *s = skip_spaces(line);
        if (starts_with(s, "==") || *s == '\0')
            continue;
        if (looks_like_header(line)) {
            if (strcmp(line, r.header_raw) == 0) {
                r.expect_units = r.wide;
                continue;
            }
            st = fail(&r, lineno, "a second, different header (several ncu runs in one file?)");
            break;
        }
        if (r.quoted && *s != '"')
            continue; /* program output: ncu quotes every field */
        if (r.wide && (starts_with(s, "\"\",") || *s == ',')) {
            /* an empty ID: the units row (compared unsplit if repeated) */
            if ((st = raw_units(&r, line, len, lineno, truncated)) != KS_OK)
                break;
            continue;
        }
        bool rowlike = looks_like_row(line);
        int count = ks_csv_split(line, len, r.fields, r.nfields);
        if (!ks_csv_fill_short_row(r.fields, count, r.nfields, r.needed, line + len)) {
            if (!rowlike)
                continue;
            if (count < 0 && truncated)
                st = fail(&r, lineno, "file ends inside a quoted field: truncated?");
            else if (count < 0)
                st = ks_csv_unclosed_quote(r.path, lineno, r.err);
            else
                st = fail(&r, lineno,
                          "row has %d fields but the header (line %ld) has %d and its "
                          "columns up to \"%s\" are needed%s",
                          count, r.header_line, r.nfields, r.names[r.needed - 1],
                          truncated ? ": the file looks truncated" : "");
            break;
        }
        st = r.wide ? raw_row(&r, lineno) : details_row(&r, lineno);
        if (st != KS_OK)
            break;
    }
    if (st == KS_OK)
        st = finish(&r, lineno);
    if (st == KS_OK && r.wide)
        snprintf(p->source_format, sizeof p->source_format, "%s", ks_reader_ncu_raw_csv.name);
    if (st == KS_OK && lines) {
        *lines = malloc((p->n ? p->n : 1) * sizeof **lines);
        if (!*lines)
            st = ks_error_set(err, KS_ERR_NOMEM, r.path, 0, "out of memory");
        else
            for (size_t i = 0; i < p->n; i++)
                (*lines)[i] = r.kernels[i].line;
    }
    ncu_read_free(&r);
    return st;
}

static ks_status read_any(ks_input *in, const ks_read_options *opt, ks_profile *p,
                          ks_error *err)
{
    return read_ncu(in, opt, p, false, false, NULL, err);
}

static ks_status read_raw(ks_input *in, const ks_read_options *opt, ks_profile *p,
                          ks_error *err)
{
    return read_ncu(in, opt, p, true, false, NULL, err);
}

/* ------------------------------------------------------------------ detect */

typedef enum { SEEN_NOTHING, SEEN_PROGRESS, SEEN_DETAILS, SEEN_RAW } ncu_sighting;

/* What the complete lines of head show: a header of either layout, or only
 * ncu's own "==PROF==" lines, which come one per profiled kernel before the
 * table and so fill the head of any but the smallest runs. */
static ncu_sighting detect_layout(const char *head, size_t len)
{
    const char *p = head, *end = head + len;
    ncu_sighting seen = SEEN_NOTHING;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        size_t n = (size_t)(nl - p);
        const char *s = p;
        while (s < nl && (*s == ' ' || *s == '\t'))
            s++;
        size_t rest = (size_t)(nl - s);
        if ((rest >= 5 && memcmp(s, "\"ID\",", 5) == 0) ||
            (rest >= 3 && memcmp(s, "ID,", 3) == 0)) {
            if (ks_find_text(p, n, "Metric Name") && ks_find_text(p, n, "Metric Value"))
                return SEEN_DETAILS;
            if (ks_find_text(p, n, "Kernel Name") && ks_find_text(p, n, "__"))
                return SEEN_RAW;
        }
        if (rest >= 8 && memcmp(s, "==PROF==", 8) == 0)
            seen = SEEN_PROGRESS;
        p = nl + 1;
    }
    return seen;
}

static int detect_any(const char *head, size_t len, const char *path)
{
    (void)path;
    ncu_sighting seen = detect_layout(head, len);
    /* below a header-based score of any reader: "==PROF==" alone proves ncu
     * ran, not which table follows (read_any takes either) */
    return seen == SEEN_DETAILS ? 95 : seen == SEEN_PROGRESS ? 60 : 0;
}

static int detect_raw(const char *head, size_t len, const char *path)
{
    (void)path;
    return detect_layout(head, len) == SEEN_RAW ? 95 : 0;
}

const ks_reader ks_reader_ncu_csv = {
    .name = "ncu-csv",
    .summary = "Nsight Compute `ncu --csv` (details page, one row per kernel and metric; "
               "reads the raw layout too)",
    .detect = detect_any,
    .read = read_any,
};

const ks_reader ks_reader_ncu_raw_csv = {
    .name = "ncu-raw-csv",
    .summary = "Nsight Compute `ncu --page raw --csv` (one row per kernel, a row of units)",
    .detect = detect_raw,
    .read = read_raw,
};

/* ------------------------------------------------------- as a second source */

/* Either layout, whatever the head shows: attaching names its file as ncu's,
 * so there is nothing to detect, and durations may be partly unknown. */
ks_status ks_read_ncu_metrics(const char *path, ks_profile **out, long **lines,
                               ks_error *err)
{
    *out = NULL;
    *lines = NULL;
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    ks_read_options opt;
    ks_read_options_init(&opt);
    ks_profile *p = ks_profile_new();
    if (!p) {
        ks_input_close(in);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    st = read_ncu(in, &opt, p, false, true, lines, err);
    ks_input_close(in);
    if (st == KS_OK && p->n == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, path, 0, "no kernel launches found");
    if (st != KS_OK) {
        ks_profile_free(p);
        free(*lines);
        *lines = NULL;
        return st;
    }
    if (!p->source_format[0])
        snprintf(p->source_format, sizeof p->source_format, "%s", ks_reader_ncu_csv.name);
    snprintf(p->source_path, sizeof p->source_path, "%s", path);
    *out = p;
    return KS_OK;
}

