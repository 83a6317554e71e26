/*
 * csv_parallel.c - reading the data lines of a large CSV on several threads.
 *
 * Reading a 2.8 GB nsys export line by line on one thread took six times as
 * long as `cat`, nearly all of it parsing.  Here the input is cut into blocks
 * of whole lines; worker threads take turns reading a block (reading,
 * decompressing and digesting stay sequential, in file order, under one lock)
 * and then parse it on their own into a ks_rows batch; the calling thread
 * merges the batches into the profile strictly in block order.  Because a
 * batch interns its names in order of first appearance and the merge interns
 * them in that order, the profile gets the same ids and name ids as a
 * line-by-line read; because each block keeps only its first error, with a
 * line number counted from the block's start, and the merge stops at the
 * first block that failed, the error is the one the line-by-line read would
 * report, at the same file line.
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
}

void ks_rows_free(ks_rows *r)
{
    free(r->duration_ns);
    free(r->name_id);
    free(r->start_ns);
    free(r->grid);
    free(r->block);
    free(r->stream);
    free(r->device);
    free(r->correlation);
    free(r->names);
    free(r->name_len);
    free(r->name_hash);
    free(r->name_global);
    ks_hash_free(&r->name_index);
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
    GROW(grid, 3);
    GROW(block, 3);
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
    void *a = realloc(r->names, cap * sizeof *r->names);
    if (a)
        r->names = a;
    void *b = realloc(r->name_len, cap * sizeof *r->name_len);
    if (b)
        r->name_len = b;
    void *c = realloc(r->name_hash, cap * sizeof *r->name_hash);
    if (c)
        r->name_hash = c;
    void *d = realloc(r->name_global, cap * sizeof *r->name_global);
    if (d)
        r->name_global = d;
    if (!a || !b || !c || !d)
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
    ks_hash_put(&r->name_index, slot, (uint32_t)k);
    *id = (uint32_t)k;
    return KS_OK;
}

ks_status ks_rows_add(ks_rows *r, const ks_invocation *inv, const char *name, size_t len,
                      ks_error *err)
{
    ks_status st;
    if (r->n == r->capacity && (st = rows_grow(r, err)) != KS_OK)
        return st;
    size_t i = r->n;
    if ((st = rows_intern(r, name, len, &r->name_id[i], err)) != KS_OK)
        return st;
    /* the values ks_profile_append would store, whether or not the profile
     * ends up with the column */
    r->duration_ns[i] = inv->duration_ns;
    r->start_ns[i] = inv->start_ns;
    r->any_start |= inv->start_ns != KS_MISSING_I64;
    for (int k = 0; k < 3; k++) {
        r->grid[3 * i + k] = inv->grid ? inv->grid[k] : 0;
        r->block[3 * i + k] = inv->block ? inv->block[k] : 0;
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

    ks_rows rows;
    long lines;       /* lines parsed */
    ks_status status; /* first parse error; err->line counts from the block */
    ks_error err;
    bool parsed;      /* guarded by engine.lock */
} block;

typedef struct engine {
    ks_input *in;
    ks_line_parser parse;
    const void *ctx;
    size_t block_bytes;

    /* the partial line after the last block read: guarded by read_lock */
    char *carry;
    size_t carry_len, carry_capacity;

    block *slots;
    size_t nslots;

    pthread_mutex_t read_lock; /* one reader at a time keeps blocks in file order */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* guarded by lock */
    uint64_t next_read; /* blocks claimed by readers */
    uint64_t merged;    /* blocks merged into the profile */
    bool input_done;    /* the last block has been claimed and read */
    bool stop;          /* the merge failed: read no more */
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

/* Ends the read at a line longer than KS_MAX_LINE_BYTES; b keeps nothing
 * (callers that hold whole lines before it put them back). */
static bool line_too_long(engine *e, block *b)
{
    b->read_status = ks_error_set(&b->read_err, KS_ERR_FORMAT, ks_input_path(e->in), 0,
                                  "a line is longer than %zu MB: not a profile (binary or "
                                  "damaged data?)",
                                  KS_MAX_LINE_BYTES >> 20 ? KS_MAX_LINE_BYTES >> 20 : 1);
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

/* Appends b to the profile, or returns the block's error with its line
 * number in the file; *base is the file line before the block. */
static ks_status merge_block(block *b, long *base, ks_profile *p, ks_error *err)
{
    if (b->status != KS_OK) {
        *err = b->err;
        if (err->line > 0)
            err->line += *base;
        return b->status;
    }
    ks_status st = ks_profile_append_rows(p, &b->rows, err);
    if (st != KS_OK)
        return st;
    if (b->read_status != KS_OK) {
        *err = b->read_err;
        return b->read_status;
    }
    *base += b->lines;
    return KS_OK;
}

static void *worker(void *arg)
{
    engine *e = arg;
    for (;;) {
        pthread_mutex_lock(&e->read_lock);
        pthread_mutex_lock(&e->lock);
        /* a slot is free once the block that used it has been merged */
        while (!e->stop && !e->input_done && e->next_read - e->merged >= e->nslots)
            pthread_cond_wait(&e->changed, &e->lock);
        if (e->stop || e->input_done) {
            pthread_mutex_unlock(&e->lock);
            pthread_mutex_unlock(&e->read_lock);
            return NULL;
        }
        block *b = &e->slots[e->next_read % e->nslots];
        e->next_read++;
        pthread_mutex_unlock(&e->lock);

        bool ends = read_block(e, b);
        if (ends) {
            pthread_mutex_lock(&e->lock);
            e->input_done = true;
            pthread_cond_broadcast(&e->changed);
            pthread_mutex_unlock(&e->lock);
        }
        pthread_mutex_unlock(&e->read_lock);

        parse_block(e, b);
        pthread_mutex_lock(&e->lock);
        b->parsed = true;
        pthread_cond_broadcast(&e->changed);
        pthread_mutex_unlock(&e->lock);
    }
}

/* Fuzzing builds read on one thread unless told otherwise: with tiny blocks
 * every input would start threads, the dearest part of a short read, and
 * fuzz_nsys_parallel asks for several to check them against one. */
static int default_threads(void)
{
    long n = KS_FUZZ_SMALL(sysconf(_SC_NPROCESSORS_ONLN), 1);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Merges blocks in order as the workers finish them.  Block 0 was read by
 * the caller; this thread parses it while the workers start on the next. */
static ks_status run_parallel(engine *e, pthread_t *tid, int workers, long *base,
                              ks_profile *p, ks_error *err)
{
    parse_block(e, &e->slots[0]);
    ks_status st = KS_OK;
    for (uint64_t seq = 0;; seq++) {
        block *b = &e->slots[seq % e->nslots];
        pthread_mutex_lock(&e->lock);
        if (seq == 0)
            b->parsed = true;
        while (!(seq < e->next_read && b->parsed) && !(e->input_done && seq == e->next_read))
            pthread_cond_wait(&e->changed, &e->lock);
        bool finished = seq == e->next_read;
        pthread_mutex_unlock(&e->lock);
        if (finished)
            break;
        st = merge_block(b, base, p, err);
        pthread_mutex_lock(&e->lock);
        b->parsed = false;
        e->merged = seq + 1;
        e->stop = st != KS_OK;
        pthread_cond_broadcast(&e->changed);
        pthread_mutex_unlock(&e->lock);
        if (st != KS_OK)
            break;
    }
    for (int t = 0; t < workers; t++)
        pthread_join(tid[t], NULL);
    return st;
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
    };
    /* two blocks per worker: one being parsed, one read and waiting, so a
     * worker never idles while the merge catches up */
    e.nslots = threads > 1 ? 2 * (size_t)threads + 2 : 1;
    e.slots = calloc(e.nslots, sizeof *e.slots);
    if (!e.slots)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    long base = ks_input_line_number(in);
    ks_status st = KS_OK;
    int workers = 0;
    pthread_t tid[MAX_THREADS];

    bool ends = read_block(&e, &e.slots[0]);
    if (threads > 1 && !ends) {
        e.next_read = 1;
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
        while (locks && workers < threads && pthread_create(&tid[workers], NULL, worker, &e) == 0)
            workers++;
        if (workers > 0)
            st = run_parallel(&e, tid, workers, &base, p, err);
        if (locks) {
            pthread_cond_destroy(&e.changed);
            pthread_mutex_destroy(&e.lock);
            pthread_mutex_destroy(&e.read_lock);
        }
    }
    if (workers == 0) {
        /* one thread: the same blocks, parsed and merged one after another */
        block *b = &e.slots[0];
        e.next_read = 1;
        for (;;) {
            parse_block(&e, b);
            if ((st = merge_block(b, &base, p, err)) != KS_OK || ends)
                break;
            ends = read_block(&e, b);
            e.next_read++;
        }
    }
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
    return st;
}
