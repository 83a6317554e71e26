/*
 * read_nsys_sqlite.c - the SQLite database that `nsys export --type sqlite`
 * writes: table CUPTI_ACTIVITY_KIND_KERNEL, whose name columns are ids into
 * StringIds(id, value).
 *
 * Export versions differ in which columns the kernel table has (greenContextId
 * only in newer ones; shortName or mangledName absent in some older ones), so
 * columns are looked up by name with PRAGMA table_info and the query is built
 * from what is there.  Required: start, end and the name column asked for.
 *
 * SQLite can only open a regular file, so a compressed export (or one on
 * standard input or a pipe) is first streamed, decompressed, into a temporary
 * file that is removed again before read() returns.  The query result is
 * consumed row by row into the profile; restoring launch order afterwards
 * needs 28 bytes per row more, for the duration of a sort.
 */
#include "internal.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_TABLE "CUPTI_ACTIVITY_KIND_KERNEL"
#define STRING_TABLE "StringIds"

static int detect(const char *head, size_t len, const char *path)
{
    (void)path;
    /* The magic includes its NUL.  Every SQLite file lands here: no other
     * reader opens databases, and the schema, which may lie beyond the peeked
     * bytes, is checked by read() with an error that names what is missing. */
    if (len >= 16 && memcmp(head, "SQLite format 3", 16) == 0)
        return 95;
    return 0;
}

/* Columns of the kernel table this reader uses, by index. */
enum {
    COL_START,
    COL_END,
    COL_DEVICE,
    COL_STREAM,
    COL_CORRELATION,
    COL_GRID_X,
    COL_GRID_Y,
    COL_GRID_Z,
    COL_BLOCK_X,
    COL_BLOCK_Y,
    COL_BLOCK_Z,
    COL_DEMANGLED,
    COL_SHORT,
    COL_MANGLED,
    COL_COUNT
};

static const char *const column_names[COL_COUNT] = {
    "start",  "end",    "deviceId", "streamId",      "correlationId",
    "gridX",  "gridY",  "gridZ",    "blockX",        "blockY",
    "blockZ", "demangledName",      "shortName",     "mangledName",
};

/* name_kind values, in the order a row falls back through them when its own
 * name cell is NULL (see choose_names). */
static const struct {
    const char *kind;
    int column;
} name_kinds[] = {
    {"demangled", COL_DEMANGLED},
    {"short", COL_SHORT},
    {"mangled", COL_MANGLED},
};
enum { NAME_KIND_COUNT = sizeof name_kinds / sizeof name_kinds[0] };

static ks_status sqlite_error(sqlite3 *db, int rc, const char *path, const char *what,
                              ks_error *err)
{
    ks_status st = KS_ERR_FORMAT;
    if (rc == SQLITE_NOMEM)
        st = KS_ERR_NOMEM;
    else if (rc == SQLITE_CANTOPEN || rc == SQLITE_IOERR || rc == SQLITE_PERM ||
             rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        st = KS_ERR_IO;
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return ks_error_set(err, st, path, 0, "%s: %s (is this an nsys SQLite export?)", what,
                        msg);
}

/* Column presence via PRAGMA table_info; *count = 0 when the table is absent. */
static ks_status table_columns(sqlite3 *db, const char *path, const char *table,
                               const char *const *wanted, int nwanted, bool *present,
                               int *count, ks_error *err)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return sqlite_error(db, rc, path, "cannot read the schema", err);
    for (int i = 0; i < nwanted; i++)
        present[i] = false;
    *count = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        (*count)++;
        const char *name = (const char *)sqlite3_column_text(stmt, 1);
        for (int i = 0; name && i < nwanted; i++)
            if (strcasecmp(name, wanted[i]) == 0)
                present[i] = true;
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return sqlite_error(db, rc, path, "cannot read the schema", err);
    return KS_OK;
}

/* Appends printf-style text to sql; false when it does not fit. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool append(char *sql, size_t size, const char *fmt, ...)
{
    size_t n = strlen(sql);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(sql + n, size - n, fmt, ap);
    va_end(ap);
    return w >= 0 && (size_t)w < size - n;
}

/* Result columns of the kernel query, in this order. */
enum {
    Q_ROWID,
    Q_START,
    Q_END,
    Q_CORRELATION,
    Q_DEVICE,
    Q_STREAM,
    Q_GRID,              /* 6 columns: gridX..Z, blockX..Z */
    Q_NAME = Q_GRID + 6, /* one string id per name column tried */
};

/* Builds the query: a plain scan in rowid order.  Names are resolved through
 * a cache (see name_cache) rather than joined, and launch order is restored
 * afterwards (see order_launches): on a 1M-row export (2-core x86 VM) the
 * query with three StringIds joins and ORDER BY took 4.3 s of CPU, the plain
 * scan 0.7 s, and the qsort that replaces ORDER BY about 0.3 s. */
static bool build_query(char *sql, size_t size, const bool *has, const int *names,
                        int nnames, bool filter_device)
{
    sql[0] = '\0';
    bool ok = append(sql, size, "SELECT rowid, \"start\", \"end\", %s, %s, %s",
                     has[COL_CORRELATION] ? "\"correlationId\"" : "NULL",
                     has[COL_DEVICE] ? "\"deviceId\"" : "0",
                     has[COL_STREAM] ? "\"streamId\"" : "0");
    for (int c = COL_GRID_X; c <= COL_BLOCK_Z; c++)
        ok = ok && (has[c] ? append(sql, size, ", \"%s\"", column_names[c])
                           : append(sql, size, ", NULL"));
    for (int i = 0; i < nnames; i++)
        ok = ok && append(sql, size, ", \"%s\"", column_names[names[i]]);
    ok = ok && append(sql, size, " FROM \"" KERNEL_TABLE "\"");
    if (filter_device)
        ok = ok && append(sql, size, " WHERE \"deviceId\" = ?1");
    return ok && append(sql, size, " ORDER BY rowid");
}

/* StringIds id -> interned name id, so each distinct name is looked up once.
 * Open addressing; slot value 0 = empty, else name id + 1. */
typedef struct name_cache {
    int64_t *keys;
    uint32_t *values;
    size_t size, count;
    sqlite3_stmt *lookup;
} name_cache;

static size_t cache_slot(const name_cache *c, int64_t key)
{
    size_t h = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 17) & (c->size - 1);
    while (c->values[h] && c->keys[h] != key)
        h = (h + 1) & (c->size - 1);
    return h;
}

static ks_status cache_insert(name_cache *c, int64_t key, uint32_t value, ks_error *err)
{
    if ((c->count + 1) * 2 > c->size) {
        name_cache bigger = {.size = c->size ? c->size * 2 : 1024};
        bigger.keys = malloc(bigger.size * sizeof *bigger.keys);
        bigger.values = calloc(bigger.size, sizeof *bigger.values);
        if (!bigger.keys || !bigger.values) {
            free(bigger.keys);
            free(bigger.values);
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        }
        for (size_t i = 0; i < c->size; i++) {
            if (!c->values[i])
                continue;
            size_t h = cache_slot(&bigger, c->keys[i]);
            bigger.keys[h] = c->keys[i];
            bigger.values[h] = c->values[i];
        }
        free(c->keys);
        free(c->values);
        c->keys = bigger.keys;
        c->values = bigger.values;
        c->size = bigger.size;
    }
    size_t h = cache_slot(c, key);
    c->keys[h] = key;
    c->values[h] = value + 1;
    c->count++;
    return KS_OK;
}

/* Puts the profile into launch order.  correlationId ties a kernel to the
 * API call that launched it and grows with the order of those calls within a
 * process, so it is the launch order even where kernels on different streams
 * overlap or finish out of order; kernels of one CUDA graph launch share the
 * graph's correlationId and are ordered among themselves by start.  Exports
 * without correlationId are ordered by start.  rowid (the scan order) breaks
 * the remaining ties, so the same file always gives the same profile.  Rows
 * without correlationId hold KS_MISSING_I64 and so come first, as SQL sorts
 * NULLs; a profile whose start times all read as missing has no start column,
 * which counts as all equal. */
static ks_status order_launches(ks_profile *p, bool by_correlation, const char *path,
                                ks_error *err)
{
    if (by_correlation)
        return ks_profile_order_by(p, p->correlation, p->start_ns, path, err);
    return ks_profile_order_by(p, p->start_ns, NULL, path, err);
}

/* The name columns to read, the asked-for kind first.  A row whose own cell
 * is NULL takes the next kind the table has (exports leave mangledName NULL
 * for some kernels), which still names one kernel the same way on every
 * launch.  A kind the table lacks altogether is an error that lists the kinds
 * it has: silently switching a whole profile to other names would change how
 * its kernels group. */
static ks_status choose_names(const bool *has, const ks_read_options *opt, const char *path,
                              int *names, int *nnames, ks_error *err)
{
    const char *kind = opt->name_kind && opt->name_kind[0] ? opt->name_kind : "demangled";
    int chosen = -1;
    for (int i = 0; i < NAME_KIND_COUNT; i++)
        if (strcmp(kind, name_kinds[i].kind) == 0)
            chosen = i;
    if (chosen < 0)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                            "unknown kernel name kind '%s' (demangled, short, mangled)", kind);
    char present[128] = "";
    for (int i = 0; i < NAME_KIND_COUNT; i++) {
        if (!has[name_kinds[i].column])
            continue;
        size_t n = strlen(present);
        snprintf(present + n, sizeof present - n, "%s%s ('%s')", n ? ", " : "",
                 column_names[name_kinds[i].column], name_kinds[i].kind);
    }
    if (!has[name_kinds[chosen].column])
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "table " KERNEL_TABLE " has no column %s for %s kernel names; "
                            "it has %s",
                            column_names[name_kinds[chosen].column], kind,
                            present[0] ? present : "no name column at all");
    *nnames = 0;
    names[(*nnames)++] = name_kinds[chosen].column;
    for (int i = 0; i < NAME_KIND_COUNT; i++)
        if (i != chosen && has[name_kinds[i].column])
            names[(*nnames)++] = name_kinds[i].column;
    return KS_OK;
}

/* A non-negative integer cell that must fit in 32 bits; NULL -> *null. */
static bool u32_cell(sqlite3_stmt *stmt, int col, uint32_t *v, bool *null)
{
    *null = sqlite3_column_type(stmt, col) == SQLITE_NULL;
    if (*null)
        return true;
    if (sqlite3_column_type(stmt, col) != SQLITE_INTEGER)
        return false;
    sqlite3_int64 x = sqlite3_column_int64(stmt, col);
    if (x < 0 || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}

/* Says which row an error is about: rowid always, correlationId when known. */
static void row_label(sqlite3_stmt *stmt, char *buf, size_t size)
{
    long long rowid = sqlite3_column_int64(stmt, Q_ROWID);
    if (sqlite3_column_type(stmt, Q_CORRELATION) == SQLITE_INTEGER)
        snprintf(buf, size, KERNEL_TABLE " row rowid %lld (correlationId %lld)", rowid,
                 (long long)sqlite3_column_int64(stmt, Q_CORRELATION));
    else
        snprintf(buf, size, KERNEL_TABLE " row rowid %lld", rowid);
}

static ks_status read_row(sqlite3_stmt *stmt, const char *path, const int *names, int nnames,
                          name_cache *cache, ks_profile *p, ks_error *err)
{
    char where[160];
    if (sqlite3_column_type(stmt, Q_START) != SQLITE_INTEGER ||
        sqlite3_column_type(stmt, Q_END) != SQLITE_INTEGER) {
        row_label(stmt, where, sizeof where);
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "%s: start or end is not an integer",
                            where);
    }
    int64_t start = sqlite3_column_int64(stmt, Q_START);
    int64_t end = sqlite3_column_int64(stmt, Q_END);
    int64_t duration;
    if (__builtin_sub_overflow(end, start, &duration) || duration < 0) {
        row_label(stmt, where, sizeof where);
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "%s: end %lld is before start %lld (negative duration)", where,
                            (long long)end, (long long)start);
    }

    ks_invocation inv;
    ks_invocation_init(&inv);
    inv.duration_ns = duration;
    inv.start_ns = start;
    if (sqlite3_column_type(stmt, Q_CORRELATION) == SQLITE_INTEGER)
        inv.correlation = sqlite3_column_int64(stmt, Q_CORRELATION);
    bool null_device, null_stream;
    if (!u32_cell(stmt, Q_DEVICE, &inv.device, &null_device) ||
        !u32_cell(stmt, Q_STREAM, &inv.stream, &null_stream)) {
        row_label(stmt, where, sizeof where);
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "%s: deviceId or streamId is not a 32-bit unsigned integer",
                            where);
    }
    uint32_t dims[6];
    bool any_null = false;
    for (int k = 0; k < 6; k++) {
        bool null;
        if (!u32_cell(stmt, Q_GRID + k, &dims[k], &null)) {
            row_label(stmt, where, sizeof where);
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "%s: %s is not a 32-bit unsigned integer", where,
                                column_names[COL_GRID_X + k]);
        }
        any_null = any_null || null;
    }
    if (!any_null) { /* a partial launch shape is no shape */
        inv.grid = dims;
        inv.block = dims + 3;
    }

    int i = 0;
    while (i < nnames && sqlite3_column_type(stmt, Q_NAME + i) == SQLITE_NULL)
        i++;
    if (i == nnames) {
        row_label(stmt, where, sizeof where);
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "%s: the kernel has no name", where);
    }
    int64_t string_id = sqlite3_column_int64(stmt, Q_NAME + i);
    size_t slot = cache->size ? cache_slot(cache, string_id) : 0;
    if (cache->size && cache->values[slot]) {
        inv.name_id = cache->values[slot] - 1;
    } else {
        sqlite3_stmt *q = cache->lookup;
        sqlite3_bind_int64(q, 1, string_id);
        int rc = sqlite3_step(q);
        const unsigned char *name = rc == SQLITE_ROW ? sqlite3_column_text(q, 0) : NULL;
        ks_status st = KS_OK;
        if (rc == SQLITE_ROW && name)
            st = ks_profile_intern(p, (const char *)name, (size_t)sqlite3_column_bytes(q, 0),
                                   &inv.name_id, err);
        sqlite3_reset(q);
        if (!name) {
            row_label(stmt, where, sizeof where);
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "%s: %s %lld is not an id in table " STRING_TABLE
                                " (or its value is NULL)",
                                where, column_names[names[i]], (long long)string_id);
        }
        if (st != KS_OK || (st = cache_insert(cache, string_id, inv.name_id, err)) != KS_OK)
            return st;
    }
    return ks_profile_append(p, &inv, err);
}

/* One GPU name when the export records exactly one (else left empty). */
static void read_device_name(sqlite3 *db, ks_profile *p)
{
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM TARGET_INFO_GPU LIMIT 2", -1, &stmt,
                           NULL) != SQLITE_OK)
        return;
    int rows = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(stmt, 0);
        if (++rows == 1 && name)
            snprintf(p->device_name, sizeof p->device_name, "%s", name);
    }
    if (rows != 1)
        p->device_name[0] = '\0';
    sqlite3_finalize(stmt);
}

/* NVTX ranges (table NVTX_EVENTS: push/pop and start/end ranges, the ones
 * with an end) and the CPU time of each launch call (CUPTI_ACTIVITY_KIND_
 * RUNTIME, by correlationId), for --range (lib/core/region.c).  Both are
 * optional: an export without them, or with columns this reader does not
 * know, has no ranges. */
static ks_status query_regions(sqlite3 *db, ks_profile *p, ks_error *err)
{
    static const char *const sql_ranges =
        "SELECT \"start\", \"end\", COALESCE(\"text\", (SELECT value FROM \"" STRING_TABLE
        "\" WHERE id = \"textId\")) FROM NVTX_EVENTS WHERE \"end\" IS NOT NULL AND "
        "\"end\" >= \"start\"";
    static const char *const sql_calls =
        "SELECT r.correlationId, r.\"start\", COALESCE((SELECT value FROM \"" STRING_TABLE
        "\" WHERE id = r.nameId), '') FROM CUPTI_ACTIVITY_KIND_RUNTIME r";
    sqlite3_stmt *stmt = NULL;
    ks_status st = KS_OK;
    if (!p->correlation || sqlite3_prepare_v2(db, sql_ranges, -1, &stmt, NULL) != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return KS_OK;
    }
    while (st == KS_OK && sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text(stmt, 2);
        if (!text || sqlite3_column_type(stmt, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(stmt, 1) != SQLITE_INTEGER)
            continue;
        st = ks_profile_add_range(p, (const char *)text, strlen((const char *)text),
                                  KS_RANGE_NVTX, false, sqlite3_column_int64(stmt, 0),
                                  sqlite3_column_int64(stmt, 1), err);
    }
    sqlite3_finalize(stmt);
    stmt = NULL;
    /* the launch calls: for the ranges, and to count CUDA graph launches */
    bool graphs = false;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM \"" STRING_TABLE "\" WHERE value LIKE "
                           "'%GraphLaunch%' LIMIT 1",
                           -1, &stmt, NULL) == SQLITE_OK)
        graphs = sqlite3_step(stmt) == SQLITE_ROW;
    sqlite3_finalize(stmt);
    stmt = NULL;
    if (st != KS_OK || (p->range_count == 0 && !graphs) ||
        sqlite3_prepare_v2(db, sql_calls, -1, &stmt, NULL) != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return st;
    }
    while (st == KS_OK && sqlite3_step(stmt) == SQLITE_ROW) {
        if (sqlite3_column_type(stmt, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(stmt, 1) != SQLITE_INTEGER)
            continue;
        const unsigned char *name = sqlite3_column_text(stmt, 2);
        bool graph = name && (strstr((const char *)name, "GraphLaunch") != NULL);
        st = ks_profile_add_call(p, sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1),
                                 0, graph, err);
    }
    sqlite3_finalize(stmt);
    return st;
}

static ks_status query_kernels(sqlite3 *db, const char *path, const ks_read_options *opt,
                               ks_profile *p, ks_error *err)
{
    bool has[COL_COUNT];
    int ncols;
    ks_status st = table_columns(db, path, KERNEL_TABLE, column_names, COL_COUNT, has, &ncols,
                                 err);
    if (st != KS_OK)
        return st;
    if (ncols == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "no table " KERNEL_TABLE " (was CUDA kernel tracing on? an nsys "
                            "SQLite export is expected)");
    for (int c = COL_START; c <= COL_END; c++)
        if (!has[c])
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "table " KERNEL_TABLE " has no column %s", column_names[c]);
    if (opt->device >= 0 && !has[COL_DEVICE])
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "cannot keep only device %d: table " KERNEL_TABLE
                            " has no column deviceId",
                            opt->device);
    int names[NAME_KIND_COUNT], nnames = 0;
    if ((st = choose_names(has, opt, path, names, &nnames, err)) != KS_OK)
        return st;

    static const char *const string_columns[] = {"id", "value"};
    bool has_string[2];
    if ((st = table_columns(db, path, STRING_TABLE, string_columns, 2, has_string, &ncols,
                            err)) != KS_OK)
        return st;
    if (ncols == 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "no table " STRING_TABLE " (kernel names are ids into it)");
    for (int i = 0; i < 2; i++)
        if (!has_string[i])
            return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                "table " STRING_TABLE " has no column %s", string_columns[i]);

    char sql[2048];
    if (!build_query(sql, sizeof sql, has, names, nnames, opt->device >= 0))
        return ks_error_set(err, KS_ERR_INTERNAL, path, 0, "kernel query too long");
    name_cache cache = {0};
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT value FROM \"" STRING_TABLE "\" WHERE id = ?1", -1,
                                &cache.lookup, NULL);
    if (rc != SQLITE_OK) {
        st = sqlite_error(db, rc, path, "cannot query " KERNEL_TABLE, err);
        goto out;
    }
    if (opt->device >= 0)
        sqlite3_bind_int64(stmt, 1, opt->device);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if ((st = read_row(stmt, path, names, nnames, &cache, p, err)) != KS_OK)
            break;
    }
    if (st == KS_OK && rc != SQLITE_DONE)
        st = sqlite_error(db, rc, path, "cannot read " KERNEL_TABLE, err);
    if (st == KS_OK)
        st = order_launches(p, has[COL_CORRELATION], path, err);
    if (st == KS_OK)
        read_device_name(db, p);
    if (st == KS_OK)
        st = query_regions(db, p, err);
out:
    sqlite3_finalize(stmt);
    sqlite3_finalize(cache.lookup);
    free(cache.keys);
    free(cache.values);
    return st;
}

/* Streams the decompressed input into a new temporary file (mkstemp in
 * $TMPDIR or /tmp); the caller unlinks tmp_path when it is non-empty. */
static ks_status copy_to_temp(ks_input *in, char *tmp_path, size_t size, int *slot,
                              ks_error *err)
{
    const char *path = ks_input_path(in);
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0])
        dir = "/tmp";
    int w = snprintf(tmp_path, size, "%s/ksample-nsys-XXXXXX", dir);
    if (w < 0 || (size_t)w >= size) {
        tmp_path[0] = '\0';
        return ks_error_set(err, KS_ERR_IO, path, 0, "temporary folder path too long: %s", dir);
    }
    int fd = mkstemp(tmp_path);
    if (fd >= 0)
        *slot = ks_temp_register(tmp_path);
    if (fd < 0) {
        int e = errno;
        tmp_path[0] = '\0';
        return ks_error_set(err, KS_ERR_IO, path, 0,
                            "cannot create a temporary file in %s to decompress the "
                            "database into: %s",
                            dir, strerror(e));
    }
    enum { CHUNK = KS_FUZZ_SMALL(1 << 20, 4096) };
    char *buf = malloc(CHUNK);
    if (!buf) {
        close(fd);
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    }
    ks_status st = KS_OK;
    for (;;) {
        size_t got;
        if ((st = ks_input_read(in, buf, CHUNK, &got, err)) != KS_OK || got == 0)
            break;
        for (size_t off = 0; off < got;) {
            ssize_t n = write(fd, buf + off, got - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                st = ks_error_set(err, KS_ERR_IO, path, 0,
                                  "cannot write temporary copy %s: %s", tmp_path,
                                  n < 0 ? strerror(errno) : "short write");
                break;
            }
            off += (size_t)n;
        }
        if (st != KS_OK)
            break;
    }
    free(buf);
    if (close(fd) != 0 && st == KS_OK)
        st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot write temporary copy %s: %s",
                          tmp_path, strerror(errno));
    return st;
}

static ks_status read_nsys_sqlite(ks_input *in, const ks_read_options *opt, ks_profile *p,
                                  ks_error *err)
{
    const char *path = ks_input_path(in);
    char tmp_path[4096] = "";
    int slot = -1;
    const char *db_path = path;
    ks_status st = KS_OK;
    struct stat info;
    bool regular = strcmp(path, "-") != 0 && stat(path, &info) == 0 && S_ISREG(info.st_mode);
    if (strcmp(ks_input_compression(in), "none") != 0 || !regular) {
        if ((st = copy_to_temp(in, tmp_path, sizeof tmp_path, &slot, err)) != KS_OK)
            goto done;
        db_path = tmp_path;
    }

    sqlite3 *db = NULL;
    /* NOMUTEX: the connection never leaves this function's thread, and the
     * per-call locking took half the CPU time of the 1M-row scan */
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    /* the copy needs no name once SQLite holds it open: reading the schema
     * opens the file, and unlinking then leaves nothing behind whatever
     * happens during the query */
    if (rc == SQLITE_OK && tmp_path[0])
        rc = sqlite3_exec(db, "PRAGMA schema_version", NULL, NULL, NULL);
    if (tmp_path[0] && rc == SQLITE_OK) {
        unlink(tmp_path);
        ks_temp_forget(slot);
        tmp_path[0] = '\0';
    }
    if (rc != SQLITE_OK)
        st = sqlite_error(db, rc, path, "cannot open the database", err);
    else
        st = query_kernels(db, path, opt, p, err);
    sqlite3_close(db);
done:
    if (tmp_path[0])
        unlink(tmp_path);
    ks_temp_forget(slot);
    return st;
}

const ks_reader ks_reader_nsys_sqlite = {
    .name = "nsys-sqlite",
    .summary = "Nsight Systems SQLite export (nsys export --type sqlite), table "
               KERNEL_TABLE,
    .detect = detect,
    .read = read_nsys_sqlite,
};
