/*
 * csv_parallel.c - reading the data lines of a large CSV on several threads.
 *
 * Reading a 2.8 GB nsys export line by line on one thread took six times as
 * long as `cat`, nearly all of it parsing.  Here the input is cut into blocks
 * of whole lines; worker threads take turns reading a block (taking bytes from
 * the input stays sequential, in file order, under one lock; compressed input
 * is decoded ahead on the input's own threads, so the lock covers a copy) and
 * then parse it on their own into a ks_rows batch.  Each block is then
 * committed strictly in block order (its names and grid/block pairs interned
 * into the profile, its rows given their place: ks_profile_reserve_rows) and
 * the worker writes its rows into that place itself, while later blocks
 * commit (ks_profile_place_rows): one merging thread that copied every row
 * was the bottleneck at 50 M launches.  Because a batch interns its names in
 * order of first appearance and the commit interns them in that order, the
 * profile gets the same ids and name ids as a line-by-line read; because
 * each block keeps only its first error, with a line number counted from the
 * block's start, and commits stop at the first block that failed, the error
 * is the one the line-by-line read would report, at the same file line.
 *
 * An input that ends within the first block is parsed on the calling thread
 * and never starts a thread.
 */
#include "hash.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 MiB blocks: a block is copied in, digested and parsed by one thread
 * while it is still in that core's L2 cache (2 MiB on the bench machine;
 * 4 MiB blocks took 10-15 % more CPU), yet large enough that the per-block
 * costs (waking threads, interning the block's distinct names into the
 * profile) stay small next to parsing. */
/* Fuzzing builds use tiny blocks so that inputs of a few hundred bytes are
 * read the way large files are: in many blocks, on several threads. */
#ifdef KS_FUZZ_BUFFERS
enum { DEFAULT_BLOCK_BYTES = 97, MAX_THREADS = 8 };
#else
enum { DEFAULT_BLOCK_BYTES = 1 << 20, MAX_THREADS = 8 };
#endif

/* -------------------------------------------------------------- ks_rows */

void ks_rows_clear(ks_rows *r)
{
    r->n = 0;
    r->any_start = r->any_grid = r->any_stream = r->any_device = r->any_correlation = false;
    r->name_count = 0;
    ks_hash_clear(&r->name_index);
    memset(r->name_cache, 0, sizeof r->name_cache);
    r->dims_count = 0;
    ks_hash_clear(&r->dims_index);
}

void ks_rows_free(ks_rows *r)
{
    KS_FREE(r->duration_ns, r->name_id, r->start_ns, r->dims_id, r->stream, r->device,
            r->correlation, r->names, r->name_len, r->name_hash, r->name_global, r->name_dims);
    ks_hash_free(&r->name_index);
    free(r->dims);
    free(r->dims_global);
    ks_hash_free(&r->dims_index);
    memset(r, 0, sizeof *r);
}

static ks_status rows_grow(ks_rows *r, ks_error *err)
{
    size_t cap = r->capacity ? r->capacity * 2 : KS_FUZZ_SMALL(4096, 4);
    /* capacity changes only once every column has grown, so a failure part
     * way leaves the rows consistent */
#define GROW(col, width)                                                                   \
    do {                                                                                   \
        void *q = realloc(r->col, cap * (width) * sizeof *r->col);                         \
        if (!q)                                                                            \
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");              \
        r->col = q;                                                                        \
    } while (0)
    GROW(duration_ns, 1);
    GROW(name_id, 1);
    GROW(start_ns, 1);
    GROW(dims_id, 1);
    GROW(stream, 1);
    GROW(device, 1);
    GROW(correlation, 1);
#undef GROW
    r->capacity = cap;
    return KS_OK;
}

static ks_status names_grow(ks_rows *r, ks_error *err)
{
    size_t cap = r->name_capacity ? r->name_capacity * 2 : 256;
    void **const cols[] = {(void **)&r->names, (void **)&r->name_len, (void **)&r->name_hash,
                           (void **)&r->name_global, (void **)&r->name_dims};
    const size_t bytes[] = {sizeof *r->names, sizeof *r->name_len, sizeof *r->name_hash,
                            sizeof *r->name_global, sizeof *r->name_dims};
    if (!ks_resize_columns(cols, bytes, sizeof cols / sizeof cols[0], cap))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    r->name_capacity = cap;
    return KS_OK;
}

typedef struct row_name {
    const ks_rows *r;
    const char *name;
    size_t len;
    uint64_t hash;
} row_name;

static bool row_name_equals(const void *ctx, uint32_t id)
{
    const row_name *k = ctx;
    return k->r->name_hash[id] == k->hash && k->r->name_len[id] == k->len &&
           memcmp(k->r->names[id], k->name, k->len) == 0;
}

static uint64_t row_name_hash_of(const void *ctx, uint32_t id)
{
    return ((const ks_rows *)ctx)->name_hash[id];
}

static ks_status rows_intern(ks_rows *r, const char *name, size_t len, uint32_t *id,
                             ks_error *err)
{
    ks_status st;
    if ((st = ks_hash_reserve(&r->name_index, r->name_count + 1, row_name_hash_of, r, err)))
        return st;
    row_name key = {r, name, len, ks_name_hash(name, len)};
    size_t slot;
    if (ks_hash_find(&r->name_index, key.hash, row_name_equals, &key, id, &slot))
        return KS_OK;
    if (r->name_count == r->name_capacity && (st = names_grow(r, err)) != KS_OK)
        return st;
    size_t k = r->name_count++;
    r->names[k] = name;
    r->name_len[k] = len;
    r->name_hash[k] = key.hash;
    r->name_dims[k] = 0;
    ks_hash_put(&r->name_index, slot, (uint32_t)k);
    *id = (uint32_t)k;
    return KS_OK;
}

/* The name_cache slot of a name of at least 8 bytes, from its length and
 * three 8-byte pieces: kernel names share long prefixes ("void
 * at::native::") and differ in the middle or at the end. */
static size_t name_slot(const char *name, size_t len)
{
    uint64_t head, middle, tail;
    memcpy(&head, name, 8);
    memcpy(&middle, name + (len - 8) / 2, 8);
    memcpy(&tail, name + len - 8, 8);
    uint64_t x = head ^ (middle << 1 | middle >> 63) ^ (tail << 7 | tail >> 57) ^ len;
    return (size_t)((x * 0x9e3779b97f4a7c15ULL) >> 56);
}

/* rows_intern, checking the name's cache slot first: a block holds few
 * distinct names, and one comparison is cheaper than hashing a name of
 * hundreds of bytes and probing. */
static ks_status rows_intern_cached(ks_rows *r, const char *name, size_t len, uint32_t *id,
                                    ks_error *err)
{
    if (len < 8)
        return rows_intern(r, name, len, id, err);
    size_t slot = name_slot(name, len);
    uint32_t hit = r->name_cache[slot];
    if (hit && r->name_len[hit - 1] == len && memcmp(r->names[hit - 1], name, len) == 0) {
        *id = hit - 1;
        return KS_OK;
    }
    ks_status st = rows_intern(r, name, len, id, err);
    if (st == KS_OK)
        r->name_cache[slot] = *id + 1;
    return st;
}

/* The rows' own table of (grid, block) pairs hashes them with a multiply
 * and shifts, inline: ids follow first appearance whatever the hash, and a
 * library call per row cost more than the probe. */
static uint64_t dims_mix(const uint32_t t[6])
{
    uint64_t a, b, c;
    memcpy(&a, t, 8);
    memcpy(&b, t + 2, 8);
    memcpy(&c, t + 4, 8);
    uint64_t x = (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL) ^
                 (c * 0x165667b19e3779f9ULL);
    return x ^ (x >> 29);
}

static bool row_dims_equals(const void *ctx, uint32_t id)
{
    const ks_rows *r = ((const ks_rows *const *)ctx)[0];
    const uint32_t *t = ((const uint32_t *const *)ctx)[1];
    return memcmp(r->dims + 6 * (size_t)id, t, 6 * sizeof *t) == 0;
}

static uint64_t row_dims_hash_of(const void *ctx, uint32_t id)
{
    return dims_mix(((const ks_rows *)ctx)->dims + 6 * (size_t)id);
}

/* The block's id of a (grid, block) pair; consecutive launches mostly
 * repeat the one before, which needs no hashing. */
static ks_status rows_intern_dims(ks_rows *r, const uint32_t t[6], uint32_t *id,
                                  ks_error *err)
{
    if (r->n > 0) {
        uint32_t last = r->dims_id[r->n - 1];
        if (memcmp(r->dims + 6 * (size_t)last, t, 6 * sizeof *t) == 0) {
            *id = last;
            return KS_OK;
        }
    }
    ks_status st = ks_hash_reserve(&r->dims_index, r->dims_count + 1, row_dims_hash_of, r, err);
    if (st != KS_OK)
        return st;
    const void *key[2] = {r, t};
    size_t slot;
    if (ks_hash_find(&r->dims_index, dims_mix(t), row_dims_equals, key, id, &slot))
        return KS_OK;
    if (r->dims_count == r->dims_capacity) {
        size_t cap = r->dims_capacity ? 2 * r->dims_capacity : 64;
        uint32_t *d = realloc(r->dims, cap * 6 * sizeof *d);
        if (d)
            r->dims = d;
        uint32_t *g = realloc(r->dims_global, cap * sizeof *g);
        if (g)
            r->dims_global = g;
        if (!d || !g)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        r->dims_capacity = cap;
    }
    memcpy(r->dims + 6 * r->dims_count, t, 6 * sizeof *t);
    ks_hash_put(&r->dims_index, slot, (uint32_t)r->dims_count);
    *id = (uint32_t)r->dims_count++;
    return KS_OK;
}

ks_status ks_rows_add(ks_rows *r, const ks_invocation *inv, const char *name, size_t len,
                      ks_error *err)
{
    ks_status st;
    if (r->n == r->capacity && (st = rows_grow(r, err)) != KS_OK)
        return st;
    size_t i = r->n;
    uint32_t name_id;
    if ((st = rows_intern_cached(r, name, len, &name_id, err)) != KS_OK)
        return st;
    r->name_id[i] = name_id;
    /* the values ks_profile_append would store, whether or not the profile
     * ends up with the column */
    r->duration_ns[i] = inv->duration_ns;
    r->start_ns[i] = inv->start_ns;
    r->any_start |= inv->start_ns != KS_MISSING_I64;
    uint32_t t[6] = {0};
    if (inv->grid)
        memcpy(t, inv->grid, 3 * sizeof *t);
    if (inv->block)
        memcpy(t + 3, inv->block, 3 * sizeof *t);
    /* a kernel mostly launches with the shape it had last time */
    uint32_t seen = r->name_dims[name_id];
    if (seen && memcmp(r->dims + 6 * (size_t)(seen - 1), t, sizeof t) == 0) {
        r->dims_id[i] = seen - 1;
    } else {
        if ((st = rows_intern_dims(r, t, &r->dims_id[i], err)) != KS_OK)
            return st;
        r->name_dims[name_id] = r->dims_id[i] + 1;
    }
    r->any_grid |= inv->grid || inv->block;
    r->stream[i] = inv->stream;
    r->any_stream |= inv->stream != 0;
    r->device[i] = inv->device;
    r->any_device |= inv->device != 0;
    r->correlation[i] = inv->correlation;
    r->any_correlation |= inv->correlation != KS_MISSING_I64;
    r->n++;
    return KS_OK;
}

/* --------------------------------------------------------------- blocks */

typedef struct block {
    char *text;      /* whole lines; text[len] is spare for a last line's NUL */
    size_t len, capacity;
    bool last;       /* nothing is read after this block */
    ks_status read_status; /* reading stopped here: reported after the lines */
    ks_error read_err;
    bool read_line_error; /* read_err is about the line after the block's */

    ks_rows rows;
    long lines;       /* lines parsed */
    ks_status status; /* first parse error; err->line counts from the block */
    ks_error err;
    uint64_t seq;     /* place in file order */
    bool busy;        /* guarded by engine.lock: read, not yet placed */
} block;

typedef struct engine {
    ks_input *in;
    ks_line_parser parse;
    const void *ctx;
    size_t block_bytes;
    ks_profile *p;
    bool threaded;

    /* the partial line after the last block read: guarded by read_lock */
    char *carry;
    size_t carry_len, carry_capacity;

    block *slots;
    size_t nslots;

    /* owned by the thread whose turn it is to commit (see finish_block) */
    long base;         /* file line before the next block to commit */
    ks_status status;  /* the first failure in file order */
    ks_error err;

    pthread_mutex_t read_lock; /* one reader at a time keeps blocks in file order */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* guarded by lock */
    uint64_t next_read; /* blocks claimed by readers */
    uint64_t committed; /* blocks whose rows have their place in the profile */
    size_t placing;     /* committed blocks whose rows are being written */
    bool input_done;    /* the last block has been claimed and read */
    bool stop;          /* a block failed: read and commit no more */
} engine;

/* Last '\n' in [p, p + n), or NULL (memrchr is a GNU extension; this runs
 * once per block). */
static char *last_newline(char *p, size_t n)
{
    while (n > 0)
        if (p[--n] == '\n')
            return p + n;
    return NULL;
}

/* The error of a line longer than KS_MAX_LINE_BYTES, worded as
 * ks_input_getline words it; `line` counts from the block (0: the line
 * after the block's whole lines, numbered when the block is committed). */
static ks_status too_long_error(const engine *e, long line, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, ks_input_path(e->in), line,
                        "line is longer than %zu MB: not a profile (binary or damaged data?)",
                        KS_MAX_LINE_BYTES >> 20 ? KS_MAX_LINE_BYTES >> 20 : 1);
}

/* Ends the read at a line longer than KS_MAX_LINE_BYTES; b keeps nothing
 * (callers that hold whole lines before it put them back). */
static bool line_too_long(engine *e, block *b)
{
    b->read_status = too_long_error(e, 0, &b->read_err);
    b->read_line_error = true;
    b->len = 0;
    b->last = true;
    return true;
}

/* Fills b with the carried partial line and then whole lines up to about
 * block_bytes; the partial line at its end is carried to the next block.  A
 * line longer than a block makes the block longer.  Returns true when the
 * input ends (or failed) with this block. */
static bool read_block(engine *e, block *b)
{
    b->len = 0;
    b->last = false;
    b->read_line_error = false;
    /* every block reads block_bytes of new text after the carried line */
    size_t target = e->carry_len + e->block_bytes;
    b->read_status = ks_grow((void **)&b->text, &b->capacity, target + 1, 1, &b->read_err);
    if (b->read_status != KS_OK) {
        b->last = true;
        return true;
    }
    if (e->carry_len)
        memcpy(b->text, e->carry, e->carry_len);
    b->len = e->carry_len;
    e->carry_len = 0;
    size_t scanned = 0; /* bytes known to hold no newline */
    for (;;) {
        bool eof = false;
        while (b->len < target) {
            size_t got;
            ks_status st =
                ks_input_read(e->in, b->text + b->len, target - b->len, &got, &b->read_err);
            if (st != KS_OK) {
                /* a line-by-line read never sees the partial line before
                 * the error: report the error after the whole lines */
                b->read_status = st;
                char *nl = last_newline(b->text, b->len);
                b->len = nl ? (size_t)(nl + 1 - b->text) : 0;
                b->last = true;
                return true;
            }
            if (got == 0) {
                eof = true;
                break;
            }
            b->len += got;
        }
        if (eof) {
            char *nl = last_newline(b->text + scanned, b->len - scanned);
            size_t tail = nl ? (size_t)(b->text + b->len - nl - 1) : b->len;
            if (tail > KS_MAX_LINE_BYTES) {
                line_too_long(e, b);
                b->len = nl ? (size_t)(nl + 1 - b->text) : 0;
            }
            b->last = true;
            return true;
        }
        char *nl = last_newline(b->text + scanned, b->len - scanned);
        if (nl) {
            size_t keep = (size_t)(nl + 1 - b->text), rest = b->len - keep;
            b->read_status = ks_grow((void **)&e->carry, &e->carry_capacity, rest, 1,
                                     &b->read_err);
            if (b->read_status != KS_OK) {
                b->last = true;
                return true;
            }
            if (rest)
                memcpy(e->carry, b->text + keep, rest);
            e->carry_len = rest;
            b->len = keep;
            return false;
        }
        /* no line ends in the block: read on, doubling, until one does */
        if (b->len > KS_MAX_LINE_BYTES)
            return line_too_long(e, b);
        scanned = b->len;
        target = b->len + (b->len > e->block_bytes ? b->len : e->block_bytes);
        b->read_status = ks_grow((void **)&b->text, &b->capacity, target + 1, 1, &b->read_err);
        if (b->read_status != KS_OK) {
            b->len = 0;
            b->last = true;
            return true;
        }
    }
}

/* Splits b's text into lines as ks_input_getline does (one "\r" before the
 * "\n" dropped; a last line without "\n" is truncated) and parses them, up to
 * the first error. */
static void parse_block(const engine *e, block *b)
{
    ks_rows_clear(&b->rows);
    b->status = KS_OK;
    char *p = b->text, *end = b->text + b->len;
    /* one scan per block: a NUL byte would cut a name short unseen */
    const char *nul = memchr(p, '\0', b->len);
    long number = 0;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        size_t n = (size_t)(stop - p);
        /* a block larger than the limit (a caller's block size) holds such
         * lines whole: refused as the block reader refuses them */
        if (n > KS_MAX_LINE_BYTES) {
            b->status = too_long_error(e, number + 1, &b->err);
            number++;
            break;
        }
        if (nul && nul < stop) {
            b->status = ks_error_set(&b->err, KS_ERR_FORMAT, ks_input_path(e->in), number + 1,
                                     "line holds a NUL byte (binary data in a text file?)");
            number++;
            break;
        }
        if (n > 0 && p[n - 1] == '\r')
            n--;
        p[n] = '\0'; /* at end: the spare byte */
        number++;
        ks_status st = e->parse(e->ctx, p, n, nl == NULL, number, &b->rows, &b->err);
        if (st != KS_OK) {
            b->status = st;
            break;
        }
        p = nl ? nl + 1 : end;
    }
    b->lines = number;
}

/* Waits until no rows are being placed: the profile's columns are about to
 * move or a column to appear. */
static void wait_placed(void *arg)
{
    engine *e = arg;
    pthread_mutex_lock(&e->lock);
    while (e->placing > 0)
        pthread_cond_wait(&e->changed, &e->lock);
    pthread_mutex_unlock(&e->lock);
}

/* The in-order part of adding b to the profile: its rows get their place
 * (*reserved), or e->err gets the block's error with its line number in the
 * file.  Runs on one thread at a time, in block order. */
static ks_status commit_block(engine *e, block *b, size_t *at, bool *reserved)
{
    *reserved = false;
    if (b->status != KS_OK) {
        e->err = b->err;
        if (e->err.line > 0)
            e->err.line += e->base;
        return b->status;
    }
    ks_rows_quiesce quiesce = {wait_placed, e};
    ks_status st = ks_profile_reserve_rows(e->p, &b->rows, e->threaded ? &quiesce : NULL, at,
                                           &e->err);
    if (st != KS_OK)
        return st;
    *reserved = true;
    if (b->read_status != KS_OK) {
        e->err = b->read_err;
        if (b->read_line_error)
            e->err.line = e->base + b->lines + 1;
        return b->read_status;
    }
    e->base += b->lines;
    return KS_OK;
}

/* After b is parsed: waits for b's turn, commits it, and writes its rows
 * into the profile while later blocks commit and earlier ones are still
 * being written; the merge on one thread used to copy every row itself. */
static void finish_block(engine *e, block *b)
{
    pthread_mutex_lock(&e->lock);
    while (e->committed != b->seq && !e->stop)
        pthread_cond_wait(&e->changed, &e->lock);
    bool turn = !e->stop;
    pthread_mutex_unlock(&e->lock);
    size_t at = 0;
    bool reserved = false;
    ks_status st = KS_OK;
    if (turn)
        st = commit_block(e, b, &at, &reserved);
    pthread_mutex_lock(&e->lock);
    if (turn) {
        if (st != KS_OK) {
            e->status = st;
            e->stop = true;
        }
        e->committed++;
        e->placing += reserved;
        pthread_cond_broadcast(&e->changed);
    }
    pthread_mutex_unlock(&e->lock);
    if (!reserved) {
        pthread_mutex_lock(&e->lock);
        b->busy = false;
        pthread_cond_broadcast(&e->changed);
        pthread_mutex_unlock(&e->lock);
        return;
    }
    ks_profile_place_rows(e->p, &b->rows, at);
    pthread_mutex_lock(&e->lock);
    e->placing--;
    b->busy = false;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->lock);
}

/* Claims the next slot and reads the next block into it, in file order;
 * NULL once the input is done or a block failed. */
static block *claim_block(engine *e)
{
    pthread_mutex_lock(&e->read_lock);
    pthread_mutex_lock(&e->lock);
    /* a slot is free once the rows of the block that used it are placed */
    while (!e->stop && !e->input_done && e->slots[e->next_read % e->nslots].busy)
        pthread_cond_wait(&e->changed, &e->lock);
    block *b = NULL;
    if (!e->stop && !e->input_done) {
        b = &e->slots[e->next_read % e->nslots];
        b->busy = true;
        b->seq = e->next_read++;
    }
    pthread_mutex_unlock(&e->lock);
    if (b && read_block(e, b)) {
        pthread_mutex_lock(&e->lock);
        e->input_done = true;
        pthread_cond_broadcast(&e->changed);
        pthread_mutex_unlock(&e->lock);
    }
    pthread_mutex_unlock(&e->read_lock);
    return b;
}

static void *worker(void *arg)
{
    engine *e = arg;
    block *b;
    while ((b = claim_block(e)) != NULL) {
        parse_block(e, b);
        finish_block(e, b);
    }
    return NULL;
}

/* Fuzzing builds read on one thread unless told otherwise: with tiny blocks
 * every input would start threads, the dearest part of a short read, and
 * fuzz_nsys_parallel asks for several to check them against one. */
static int default_threads(void)
{
    long n = KS_FUZZ_SMALL(sysconf(_SC_NPROCESSORS_ONLN), 1);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Block 0 was read by the caller; it parses and commits that block while
 * the workers start on the next, then works as one of them. */
static void run_parallel(engine *e, ks_thread **tid, int workers)
{
    parse_block(e, &e->slots[0]);
    finish_block(e, &e->slots[0]);
    worker(e);
    for (int t = 0; t < workers; t++)
        ks_thread_join(tid[t]);
}

/* One thread: the same blocks, parsed, committed and placed one after
 * another. */
static void run_serial(engine *e, bool ends)
{
    block *b = &e->slots[0];
    for (;;) {
        parse_block(e, b);
        size_t at;
        bool reserved;
        e->status = commit_block(e, b, &at, &reserved);
        if (reserved)
            ks_profile_place_rows(e->p, &b->rows, at);
        if (e->status != KS_OK || ends)
            break;
        ends = read_block(e, b);
        e->next_read++;
    }
}

ks_status ks_read_lines(ks_input *in, ks_line_parser parse, const void *ctx, ks_profile *p,
                        const ks_lines_options *options, ks_error *err)
{
    ks_lines_options defaults = {0, 0, NULL, false};
    if (!options)
        options = &defaults;
    int threads = options->threads > 0 ? options->threads : default_threads();
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    engine e = {
        .in = in,
        .parse = parse,
        .ctx = ctx,
        .block_bytes = options->block_bytes ? options->block_bytes : DEFAULT_BLOCK_BYTES,
        .p = p,
        .base = ks_input_line_number(in),
    };
    /* two blocks per worker: one being parsed, one read and waiting, so a
     * worker never idles while an earlier block is placed */
    e.nslots = threads > 1 ? 2 * (size_t)threads + 2 : 1;
    e.slots = calloc(e.nslots, sizeof *e.slots);
    if (!e.slots)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    int workers = 0;
    ks_thread *tid[MAX_THREADS];

    e.slots[0].busy = true;
    e.next_read = 1;
    bool ends = read_block(&e, &e.slots[0]);
    if (threads > 1 && !ends) {
        bool locks = pthread_mutex_init(&e.read_lock, NULL) == 0;
        if (locks && pthread_mutex_init(&e.lock, NULL) != 0) {
            pthread_mutex_destroy(&e.read_lock);
            locks = false;
        }
        if (locks && pthread_cond_init(&e.changed, NULL) != 0) {
            pthread_mutex_destroy(&e.read_lock);
            pthread_mutex_destroy(&e.lock);
            locks = false;
        }
        e.threaded = locks;
        while (locks && workers < threads && ks_thread_start(&tid[workers], worker, &e))
            workers++;
        if (workers > 0)
            run_parallel(&e, tid, workers);
        if (locks) {
            pthread_cond_destroy(&e.changed);
            pthread_mutex_destroy(&e.lock);
            pthread_mutex_destroy(&e.read_lock);
        }
    }
    if (workers == 0) {
        e.threaded = false;
        run_serial(&e, ends);
    }
    if (e.status != KS_OK)
        *err = e.err;
    if (options->stats) {
        options->stats->blocks = (size_t)e.next_read;
        options->stats->threads = workers > 0 ? workers + 1 : 1;
    }
    for (size_t i = 0; i < e.nslots; i++) {
        free(e.slots[i].text);
        ks_rows_free(&e.slots[i].rows);
    }
    free(e.slots);
    free(e.carry);
    return e.status;
}
