/*
 * profile.c - the columnar table of invocations, interned names, metric
 * columns, and grouping by kernel identity.
 */
#include "hash.h"
#include "internal.h"
#include "sort.h"

#include <math.h>
#include <xxhash.h>
#include <stdlib.h>
#include <string.h>

struct ks_arena_block {
    struct ks_arena_block *next;
    char data[];
};

enum { ARENA_BLOCK = KS_FUZZ_SMALL(1 << 20, 256) };

ks_profile *ks_profile_new(void)
{
    return calloc(1, sizeof(ks_profile));
}

void ks_profile_free(ks_profile *p)
{
    if (!p)
        return;
    ks_column_free(p->duration_ns);
    ks_column_free(p->name_id);
    ks_column_free(p->start_ns);
    ks_column_free(p->dims_id);
    free(p->dims);
    ks_hash_free(&p->dims_index);
    ks_column_free(p->stream);
    ks_column_free(p->device);
    ks_column_free(p->correlation);
    for (size_t r = 0; r < p->range_count; r++)
        KS_FREE(p->ranges[r].name, p->ranges[r].ids);
    KS_FREE(p->ranges, p->calls, p->launch_id, p->ops);
    ks_column_free(p->op_id);
    for (size_t k = 0; k < p->op_name_count; k++)
        free(p->op_names[k]);
    free(p->op_names);
    ks_hash_free(&p->op_name_index);
    free(p->names);
    ks_hash_free(&p->name_index);
    struct ks_arena_block *b = p->arena_blocks;
    while (b) {
        struct ks_arena_block *next = b->next;
        free(b);
        b = next;
    }
    for (size_t i = 0; i < p->metric_count; i++) {
        free(p->metrics[i].name);
        ks_column_free(p->metrics[i].values);
        free(p->metrics[i].unit);
    }
    free(p->metrics);
    ks_hash_free(&p->metric_index);
    for (size_t i = 0; i < p->sparse_count; i++)
        KS_FREE(p->sparse[i].name, p->sparse[i].offset, p->sparse[i].index, p->sparse[i].value);
    free(p->sparse);
    free(p);
}

/* XXH3: every row of a profile interns its name, and kernel names run to
 * hundreds of bytes; a byte-at-a-time hash was 9 % of read time. */
uint64_t ks_name_hash(const char *s, size_t n)
{
    return XXH3_64bits(s, n);
}

static char *arena_copy(ks_profile *p, const char *s, size_t n, ks_error *err)
{
    if (n + 1 > p->arena_capacity - p->arena_used) {
        size_t size = n + 1 > ARENA_BLOCK ? n + 1 : ARENA_BLOCK;
        struct ks_arena_block *b = malloc(sizeof *b + size);
        if (!b) {
            ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
            return NULL;
        }
        b->next = p->arena_blocks;
        p->arena_blocks = b;
        p->arena = b->data;
        p->arena_used = 0;
        p->arena_capacity = size;
    }
    char *dst = p->arena + p->arena_used;
    memcpy(dst, s, n);
    dst[n] = '\0';
    p->arena_used += n + 1;
    return dst;
}

ks_status ks_profile_intern(ks_profile *p, const char *name, size_t len, uint32_t *id,
                            ks_error *err)
{
    return ks_profile_intern_hashed(p, name, len, ks_name_hash(name, len), id, err);
}

ks_status ks_profile_intern_hashed(ks_profile *p, const char *name, size_t len, uint64_t hash,
                                   uint32_t *id, ks_error *err)
{
    /* names are C strings from here on: one with a NUL byte would be cut and
     * merged with another kernel */
    if (memchr(name, '\0', len))
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "kernel name \"%.80s\" holds a NUL byte", name);
    ks_text_keys keys = {p->names, sizeof *p->names, 0};
    bool found;
    size_t slot;
    ks_status st = ks_hash_find_text_hashed(&p->name_index, &keys, p->name_count, name, len,
                                            hash, &found, id, &slot, err);
    if (st != KS_OK || found)
        return st;
    if (p->name_count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many distinct kernel names");
    st = ks_grow((void **)&p->names, &p->name_capacity, p->name_count + 1, sizeof *p->names,
                 err);
    if (st != KS_OK)
        return st;
    char *copy = arena_copy(p, name, len, err);
    if (!copy)
        return KS_ERR_NOMEM;
    p->names[p->name_count] = copy;
    ks_hash_put(&p->name_index, slot, (uint32_t)p->name_count);
    *id = (uint32_t)p->name_count++;
    return KS_OK;
}

uint64_t ks_dims_hash(const uint32_t tuple[6])
{
    return XXH3_64bits(tuple, 6 * sizeof(uint32_t));
}

typedef struct dims_key {
    const ks_profile *p;
    const uint32_t *tuple;
} dims_key;

static bool dims_equals(const void *ctx, uint32_t id)
{
    const dims_key *k = ctx;
    return memcmp(k->p->dims + 6 * (size_t)id, k->tuple, 6 * sizeof(uint32_t)) == 0;
}

static uint64_t dims_hash_of(const void *ctx, uint32_t id)
{
    return ks_dims_hash(((const ks_profile *)ctx)->dims + 6 * (size_t)id);
}

ks_status ks_profile_intern_dims(ks_profile *p, const uint32_t tuple[6], uint64_t hash,
                                 uint32_t *id, ks_error *err)
{
    ks_status st = ks_hash_reserve(&p->dims_index, p->dims_count + 1, dims_hash_of, p, err);
    if (st != KS_OK)
        return st;
    dims_key key = {p, tuple};
    size_t slot;
    if (ks_hash_find(&p->dims_index, hash, dims_equals, &key, id, &slot))
        return KS_OK;
    if (p->dims_count >= UINT32_MAX - 1)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "too many distinct grid and block sizes");
    if ((st = ks_grow((void **)&p->dims, &p->dims_capacity, p->dims_count + 1,
                      6 * sizeof *p->dims, err)) != KS_OK)
        return st;
    memcpy(p->dims + 6 * p->dims_count, tuple, 6 * sizeof(uint32_t));
    ks_hash_put(&p->dims_index, slot, (uint32_t)p->dims_count);
    *id = (uint32_t)p->dims_count++;
    return KS_OK;
}

static ks_status dims_of(ks_profile *p, const uint32_t *grid, const uint32_t *block,
                         uint32_t *id, ks_error *err)
{
    uint32_t t[6] = {0};
    if (grid)
        memcpy(t, grid, 3 * sizeof *t);
    if (block)
        memcpy(t + 3, block, 3 * sizeof *t);
    return ks_profile_intern_dims(p, t, ks_dims_hash(t), id, err);
}

/* The grid/block column, appearing at row p->n: rows before it are 0 0 0. */
static ks_status start_dims(ks_profile *p, ks_error *err)
{
    uint32_t zero;
    ks_status st = dims_of(p, NULL, NULL, &zero, err);
    if (st != KS_OK)
        return st;
    uint32_t *q = ks_column_realloc(NULL, p->capacity * sizeof *q);
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    for (size_t j = 0; j < p->n; j++)
        q[j] = zero;
    p->dims_id = q;
    return KS_OK;
}

ks_status ks_profile_set_dims(ks_profile *p, size_t i, const uint32_t *grid,
                              const uint32_t *block, ks_error *err)
{
    ks_status st;
    if (!p->dims_id && (st = start_dims(p, err)) != KS_OK)
        return st;
    return dims_of(p, grid, block, &p->dims_id[i], err);
}

void ks_profile_drop_start(ks_profile *p)
{
    ks_column_free(p->start_ns);
    p->start_ns = NULL;
}

void ks_invocation_init(ks_invocation *inv)
{
    memset(inv, 0, sizeof *inv);
    inv->start_ns = KS_MISSING_I64;
    inv->correlation = KS_MISSING_I64;
}

static ks_status grow_column(void **col, size_t elem, size_t cap, size_t old_cap,
                             ks_error *err)
{
    void *q = ks_column_realloc(*col, cap * elem);
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (%zu invocations)",
                            cap);
    (void)old_cap;
    *col = q;
    return KS_OK;
}

/* Allocates an optional column that appears for the first time at row n,
 * filling the rows before it with `fill` (bytes per element: elem). */
static ks_status start_column(ks_profile *p, void **col, size_t elem, int fill,
                              ks_error *err)
{
    void *q = ks_column_realloc(NULL, p->capacity * elem);
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    memset(q, fill, p->n * elem);
    *col = q;
    return KS_OK;
}

/* The optional columns that a new row (ks_profile_append) or block
 * (ks_profile_reserve_rows) has values for. */
typedef struct optional_columns {
    bool start, dims, stream, device, correlation;
} optional_columns;

static bool lacks_optional(const ks_profile *p, const optional_columns *want)
{
    return (want->start && !p->start_ns) || (want->dims && !p->dims_id) ||
           (want->stream && !p->stream) || (want->device && !p->device) ||
           (want->correlation && !p->correlation);
}

/* Starts an int64 column whose rows so far are unknown (KS_MISSING_I64). */
static ks_status start_missing_i64(ks_profile *p, int64_t **col, ks_error *err)
{
    ks_status st = start_column(p, (void **)col, sizeof(int64_t), 0, err);
    if (st)
        return st;
    for (size_t j = 0; j < p->n; j++)
        (*col)[j] = KS_MISSING_I64;
    return KS_OK;
}

/* Starts the columns of want that p lacks at row p->n, the rows before
 * getting the default value: unknown start and correlation, grid/block
 * 0 0 0, stream and device 0. */
static ks_status start_optional(ks_profile *p, const optional_columns *want, ks_error *err)
{
    ks_status st;
    if (want->start && !p->start_ns && (st = start_missing_i64(p, &p->start_ns, err)))
        return st;
    if (want->dims && !p->dims_id && (st = start_dims(p, err)) != KS_OK)
        return st;
    if (want->stream && !p->stream &&
        (st = start_column(p, (void **)&p->stream, sizeof(uint32_t), 0, err)))
        return st;
    if (want->device && !p->device &&
        (st = start_column(p, (void **)&p->device, sizeof(uint32_t), 0, err)))
        return st;
    if (want->correlation && !p->correlation &&
        (st = start_missing_i64(p, &p->correlation, err)))
        return st;
    return KS_OK;
}

static ks_status reserve(ks_profile *p, size_t need, ks_error *err)
{
    if (need <= p->capacity)
        return KS_OK;
    size_t cap = p->capacity ? p->capacity + p->capacity / 2 : KS_FUZZ_SMALL(4096, 4);
    if (cap < need)
        cap = need;
    ks_status st;
#define GROW(col, elem)                                                                    \
    if (p->col && (st = grow_column((void **)&p->col, (elem), cap, p->capacity, err)))    \
        return st;
    if ((st = grow_column((void **)&p->duration_ns, sizeof(int64_t), cap, p->capacity, err)))
        return st;
    if ((st = grow_column((void **)&p->name_id, sizeof(uint32_t), cap, p->capacity, err)))
        return st;
    GROW(start_ns, sizeof(int64_t));
    GROW(dims_id, sizeof(uint32_t));
    GROW(stream, sizeof(uint32_t));
    GROW(device, sizeof(uint32_t));
    GROW(correlation, sizeof(int64_t));
#undef GROW
    for (size_t i = 0; i < p->metric_count; i++) {
        double *v = ks_column_realloc(p->metrics[i].values, cap * sizeof(double));
        if (!v)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        p->metrics[i].values = v;
    }
    p->capacity = cap;
    return KS_OK;
}

ks_status ks_profile_append(ks_profile *p, const ks_invocation *inv, ks_error *err)
{
    ks_status st = reserve(p, p->n + 1, err);
    if (st != KS_OK)
        return st;
    size_t i = p->n;
    optional_columns want = {.start = inv->start_ns != KS_MISSING_I64,
                             .dims = inv->grid || inv->block,
                             .stream = inv->stream != 0,
                             .device = inv->device != 0,
                             .correlation = inv->correlation != KS_MISSING_I64};
    if ((st = start_optional(p, &want, err)) != KS_OK)
        return st;
    p->duration_ns[i] = inv->duration_ns;
    p->name_id[i] = inv->name_id;
    if (p->start_ns)
        p->start_ns[i] = inv->start_ns;
    if (p->dims_id && (st = dims_of(p, inv->grid, inv->block, &p->dims_id[i], err)) != KS_OK)
        return st;
    if (p->stream)
        p->stream[i] = inv->stream;
    if (p->device)
        p->device[i] = inv->device;
    if (p->correlation)
        p->correlation[i] = inv->correlation;
    for (size_t m = 0; m < p->metric_count; m++)
        p->metrics[m].values[i] = NAN;
    p->n++;
    return KS_OK;
}

ks_status ks_profile_reserve_rows(ks_profile *p, ks_rows *r, const ks_rows_quiesce *quiesce,
                                  size_t *at, ks_error *err)
{
    /* the block's names in order of first appearance: new names get the ids
     * they would have got row by row; the same for grid/block pairs */
    ks_status st;
    *at = p->n;
    for (size_t j = 0; j < r->name_count; j++)
        if ((st = ks_profile_intern_hashed(p, r->names[j], r->name_len[j], r->name_hash[j],
                                           &r->name_global[j], err)) != KS_OK)
            return st;
    if (r->n == 0)
        return KS_OK;
    optional_columns want = {.start = r->any_start,
                             .dims = r->any_grid,
                             .stream = r->any_stream,
                             .device = r->any_device,
                             .correlation = r->any_correlation};
    bool moves = p->n + r->n > p->capacity || lacks_optional(p, &want);
    if (moves && quiesce)
        quiesce->wait(quiesce->ctx);
    if ((st = reserve(p, p->n + r->n, err)) != KS_OK)
        return st;
    /* optional columns start exactly where ks_profile_append would start them:
     * the rows before this block get the default value */
    if ((st = start_optional(p, &want, err)) != KS_OK)
        return st;
    /* after start_dims: 0 0 0 0 0 0 gets its id first, as row by row */
    for (size_t j = 0; p->dims_id && j < r->dims_count; j++)
        if ((st = ks_profile_intern_dims(p, r->dims + 6 * j, ks_dims_hash(r->dims + 6 * j),
                                         &r->dims_global[j], err)) != KS_OK)
            return st;
    p->n += r->n;
    return KS_OK;
}

void ks_profile_place_rows(ks_profile *p, const ks_rows *r, size_t at)
{
    size_t n = r->n;
    if (n == 0) /* the columns may not exist yet */
        return;
    memcpy(p->duration_ns + at, r->duration_ns, n * sizeof(int64_t));
    for (size_t j = 0; j < n; j++)
        p->name_id[at + j] = r->name_global[r->name_id[j]];
    if (p->start_ns)
        memcpy(p->start_ns + at, r->start_ns, n * sizeof(int64_t));
    if (p->dims_id)
        for (size_t j = 0; j < n; j++)
            p->dims_id[at + j] = r->dims_global[r->dims_id[j]];
    if (p->stream)
        memcpy(p->stream + at, r->stream, n * sizeof(uint32_t));
    if (p->device)
        memcpy(p->device + at, r->device, n * sizeof(uint32_t));
    if (p->correlation)
        memcpy(p->correlation + at, r->correlation, n * sizeof(int64_t));
    for (size_t m = 0; m < p->metric_count; m++)
        for (size_t j = 0; j < n; j++)
            p->metrics[m].values[at + j] = NAN;
}

ks_status ks_profile_append_rows(ks_profile *p, ks_rows *r, ks_error *err)
{
    size_t at;
    ks_status st = ks_profile_reserve_rows(p, r, NULL, &at, err);
    if (st == KS_OK)
        ks_profile_place_rows(p, r, at);
    return st;
}

const char *ks_profile_name(const ks_profile *p, size_t i)
{
    return p->names[p->name_id[i]];
}

static ks_text_keys metric_keys(const ks_profile *p)
{
    return (ks_text_keys){p->metrics, sizeof *p->metrics, offsetof(ks_metric_column, name)};
}

ks_status ks_profile_metric(ks_profile *p, const char *name, ks_metric_column **col,
                            ks_error *err)
{
    /* by name through an index: a raw ncu page names thousands of metrics,
     * and a scan per new one is quadratic */
    ks_text_keys keys = metric_keys(p);
    bool found;
    uint32_t id;
    size_t slot;
    ks_status st = ks_hash_find_text(&p->metric_index, &keys, p->metric_count, name,
                                     strlen(name), &found, &id, &slot, err);
    if (st != KS_OK)
        return st;
    if (found) {
        *col = &p->metrics[id];
        return KS_OK;
    }
    /* doubling: a raw ncu page names thousands of metrics, and growing by
     * one copied the array once per metric (60 % of reading 4,000) */
    st = ks_grow((void **)&p->metrics, &p->metric_capacity, p->metric_count + 1,
                 sizeof *p->metrics, err);
    if (st != KS_OK)
        return st;
    ks_metric_column *c = &p->metrics[p->metric_count];
    size_t cap = p->capacity ? p->capacity : 1;
    c->name = strdup(name);
    c->unit = NULL;
    c->values = ks_column_realloc(NULL, cap * sizeof(double));
    if (!c->name || !c->values) {
        free(c->name);
        ks_column_free(c->values);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t i = 0; i < p->n; i++)
        c->values[i] = NAN;
    ks_hash_put(&p->metric_index, slot, (uint32_t)p->metric_count);
    p->metric_count++;
    *col = c;
    return KS_OK;
}

const ks_metric_column *ks_profile_find_metric(const ks_profile *p, const char *name)
{
    ks_text_keys keys = metric_keys(p);
    uint32_t id;
    return ks_hash_get_text(&p->metric_index, &keys, name, strlen(name), &id) ? &p->metrics[id]
                                                                              : NULL;
}

const ks_sparse_column *ks_profile_find_sparse(const ks_profile *p, const char *name)
{
    for (size_t i = 0; i < p->sparse_count; i++)
        if (strcmp(p->sparse[i].name, name) == 0)
            return &p->sparse[i];
    return NULL;
}

/* Hands c the arrays offset, index and value, freeing the ones it had. */
static void sparse_replace(ks_sparse_column *c, uint64_t *offset, uint64_t *index,
                           double *value)
{
    free(c->offset);
    free(c->index);
    free(c->value);
    c->offset = offset;
    c->index = index;
    c->value = value;
}

ks_status ks_profile_set_sparse(ks_profile *p, const char *name, uint64_t *offset,
                                uint64_t *index, double *value, ks_error *err)
{
    ks_sparse_column *c = (ks_sparse_column *)ks_profile_find_sparse(p, name);
    if (!c) {
        ks_status st = ks_grow((void **)&p->sparse, &p->sparse_capacity, p->sparse_count + 1,
                               sizeof *p->sparse, err);
        char *copy = st == KS_OK ? strdup(name) : NULL;
        if (!copy) {
            free(offset);
            free(index);
            free(value);
            return st != KS_OK ? st : ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        }
        c = &p->sparse[p->sparse_count++];
        memset(c, 0, sizeof *c);
        c->name = copy;
    }
    sparse_replace(c, offset, index, value);
    return KS_OK;
}

size_t ks_profile_column_bytes(const ks_profile *p)
{
    size_t per = sizeof(int64_t) + sizeof(uint32_t);
    if (p->start_ns)
        per += sizeof(int64_t);
    if (p->dims_id)
        per += sizeof(uint32_t);
    if (p->stream)
        per += sizeof(uint32_t);
    if (p->device)
        per += sizeof(uint32_t);
    if (p->correlation)
        per += sizeof(int64_t);
    per += p->metric_count * sizeof(double);
    return per * p->n + p->dims_count * 6 * sizeof(uint32_t);
}

double ks_profile_total_ns(const ks_profile *p)
{
    /* a 128-bit integer sum is exact and cannot overflow */
    __int128 s = 0;
    for (size_t i = 0; i < p->n; i++)
        s += p->duration_ns[i];
    return (double)s;
}

#define PERMUTE(col, type, width)                                                          \
    do {                                                                                   \
        if (p->col) {                                                                      \
            type *tmp = ks_column_realloc(NULL, p->capacity * (width) * sizeof(type)); \
            if (!tmp) {                                                                    \
                return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");          \
            }                                                                              \
            for (size_t i = 0; i < p->n; i++)                                              \
                memcpy(tmp + (width) * i, p->col + (width) * (size_t)order[i],             \
                       (width) * sizeof(type));                                            \
            ks_column_free(p->col);                                                        \
            p->col = tmp;                                                                  \
        }                                                                                  \
    } while (0)

ks_status ks_profile_permute(ks_profile *p, uint32_t *order, ks_error *err)
{
    PERMUTE(duration_ns, int64_t, 1);
    PERMUTE(name_id, uint32_t, 1);
    PERMUTE(dims_id, uint32_t, 1);
    PERMUTE(stream, uint32_t, 1);
    PERMUTE(device, uint32_t, 1);
    PERMUTE(correlation, int64_t, 1);
    PERMUTE(op_id, uint32_t, 1);
    for (size_t m = 0; m < p->metric_count; m++) {
        double *tmp = ks_column_realloc(NULL, p->capacity * sizeof(double));
        if (!tmp) {
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        }
        for (size_t i = 0; i < p->n; i++)
            tmp[i] = p->metrics[m].values[order[i]];
        ks_column_free(p->metrics[m].values);
        p->metrics[m].values = tmp;
    }
    PERMUTE(start_ns, int64_t, 1);
    for (size_t k = 0; k < p->sparse_count; k++) {
        ks_sparse_column *c = &p->sparse[k];
        size_t nnz = 0; /* of the rows kept (all of them, or a selection's) */
        for (size_t i = 0; i < p->n; i++)
            nnz += c->offset[order[i] + 1] - c->offset[order[i]];
        uint64_t *offset = malloc((p->n + 1) * sizeof *offset);
        uint64_t *index = malloc((nnz ? nnz : 1) * sizeof *index);
        double *value = malloc((nnz ? nnz : 1) * sizeof *value);
        if (!offset || !index || !value) {
            free(offset);
            free(index);
            free(value);
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        }
        offset[0] = 0;
        for (size_t i = 0; i < p->n; i++) {
            uint64_t lo = c->offset[order[i]], len = c->offset[order[i] + 1] - lo;
            memcpy(index + offset[i], c->index + lo, len * sizeof *index);
            memcpy(value + offset[i], c->value + lo, len * sizeof *value);
            offset[i + 1] = offset[i] + len;
        }
        sparse_replace(c, offset, index, value);
    }
    return KS_OK;
}

/* ------------------------------------------------------------ launch order */

/* Launches by first, then second, then file order: a total order.  With a
 * second key, two sorts: by (second, index), then by (first, rank in the
 * first sort), whose ties fall in (second, index) order. */
ks_status ks_profile_order_by(ks_profile *p, const int64_t *first, const int64_t *second,
                              const char *path, ks_error *err)
{
    size_t n = p->n;
    if (n < 2)
        return KS_OK;
    if (n > UINT32_MAX)
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "more than %u kernel invocations",
                            (unsigned)UINT32_MAX);
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++) {
        int64_t f0 = first ? first[i - 1] : 0, f1 = first ? first[i] : 0;
        sorted = f0 < f1 || (f0 == f1 && (!second || second[i - 1] <= second[i]));
    }
    if (sorted)
        return KS_OK;
    ks_key_index *keys = malloc(n * sizeof *keys);
    ks_key_index *by_second = second ? malloc(n * sizeof *by_second) : NULL;
    uint32_t *order = malloc(n * sizeof *order);
    ks_status st = KS_OK;
    if (!keys || (second && !by_second) || !order) {
        st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
        goto done;
    }
    if (second) {
        for (size_t i = 0; i < n; i++)
            by_second[i] = (ks_key_index){second[i], (uint32_t)i};
        ks_sort_key_index(by_second, n);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t at = second ? by_second[i].index : (uint32_t)i;
        keys[i] = (ks_key_index){first ? first[at] : 0, (uint32_t)i};
    }
    ks_sort_key_index(keys, n);
    for (size_t i = 0; i < n; i++)
        order[i] = second ? by_second[keys[i].index].index : keys[i].index;
    st = ks_profile_permute(p, order, err);
done:
    free(keys);
    free(by_second);
    free(order);
    return st;
}

ks_status ks_profile_sort_by_start(ks_profile *p, ks_error *err)
{
    if (!p->start_ns)
        return KS_OK;
    return ks_profile_order_by(p, p->start_ns, NULL, p->source_path, err);
}

ks_status ks_profile_keep(ks_profile *p, uint32_t *order, size_t k, ks_error *err)
{
    if (k > p->n)
        return ks_error_set(err, KS_ERR_USAGE, NULL, 0, "internal: keeping more rows than held");
    size_t n = p->n;
    p->n = k;
    ks_status st = ks_profile_permute(p, order, err);
    if (st != KS_OK)
        p->n = n;
    return st;
}

/* ------------------------------------------------------------------ copies */

/* A new column of cap elements holding src's first n (NULL stays NULL). */
static ks_status copy_column(void **dst, const void *src, size_t n, size_t cap, size_t elem,
                             ks_error *err)
{
    *dst = NULL;
    if (!src)
        return KS_OK;
    void *q = ks_column_realloc(NULL, cap * elem);
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    memcpy(q, src, n * elem);
    *dst = q;
    return KS_OK;
}

/* malloc'd copy of count elements (NULL for none). */
static ks_status copy_array(void **dst, const void *src, size_t count, size_t elem,
                            ks_error *err)
{
    *dst = NULL;
    if (!src || !count)
        return KS_OK;
    void *q = malloc(count * elem);
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    memcpy(q, src, count * elem);
    *dst = q;
    return KS_OK;
}

static ks_status copy_sparse(ks_profile *q, const ks_sparse_column *c, size_t n, ks_error *err)
{
    size_t nnz = (size_t)c->offset[n];
    uint64_t *offset = malloc((n + 1) * sizeof *offset);
    uint64_t *index = malloc((nnz ? nnz : 1) * sizeof *index);
    double *value = malloc((nnz ? nnz : 1) * sizeof *value);
    if (!offset || !index || !value) {
        KS_FREE(offset, index, value);
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    memcpy(offset, c->offset, (n + 1) * sizeof *offset);
    memcpy(index, c->index, nnz * sizeof *index);
    memcpy(value, c->value, nnz * sizeof *value);
    return ks_profile_set_sparse(q, c->name, offset, index, value, err);
}

static ks_status copy_ranges(ks_profile *q, const ks_profile *p, ks_error *err)
{
    ks_status st = KS_OK;
    for (size_t r = 0; st == KS_OK && r < p->range_count; r++) {
        const ks_range *from = &p->ranges[r];
        st = ks_profile_add_range(q, from->name, strlen(from->name), from->kind,
                                  from->gpu_clock, from->begin_ns, from->end_ns, err);
        if (st != KS_OK)
            break;
        ks_range *to = &q->ranges[q->range_count - 1];
        to->end_ns = from->end_ns;
        to->resolved = from->resolved;
        to->count = from->count;
        st = copy_array((void **)&to->ids, from->ids, from->count, sizeof *to->ids, err);
    }
    return st;
}

static ks_status copy_op_names(ks_profile *q, const ks_profile *p, ks_error *err)
{
    for (size_t k = 0; k < p->op_name_count; k++) {
        size_t before = q->op_name_count;
        uint32_t id;
        ks_status st = ks_hash_intern(&q->op_name_index, &q->op_names, &q->op_name_count,
                                      &q->op_name_capacity, p->op_names[k],
                                      strlen(p->op_names[k]), &id, err);
        if (st == KS_OK && q->op_name_count == before) /* distinct names: cannot happen */
            st = ks_error_set(err, KS_ERR_INTERNAL, NULL, 0, "operator name '%.80s' twice",
                              p->op_names[k]);
        if (st != KS_OK)
            return st;
    }
    return KS_OK;
}

ks_status ks_profile_copy(const ks_profile *p, ks_profile **out, ks_error *err)
{
    *out = NULL;
    ks_profile *q = ks_profile_new();
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    size_t n = p->n, cap = n ? n : 1;
    ks_status st = KS_OK;
    /* names and (grid, block) pairs interned in order: the same ids */
    for (size_t k = 0; st == KS_OK && k < p->name_count; k++) {
        uint32_t id;
        st = ks_profile_intern(q, p->names[k], strlen(p->names[k]), &id, err);
    }
    for (size_t k = 0; st == KS_OK && k < p->dims_count; k++) {
        uint32_t id;
        st = ks_profile_intern_dims(q, p->dims + 6 * k, ks_dims_hash(p->dims + 6 * k), &id,
                                    err);
    }
    q->capacity = cap;
#define COPY(col)                                                                          \
    if (st == KS_OK)                                                                       \
        st = copy_column((void **)&q->col, p->col, n, cap, sizeof *p->col, err);
    COPY(duration_ns)
    COPY(name_id)
    COPY(start_ns)
    COPY(dims_id)
    COPY(stream)
    COPY(device)
    COPY(correlation)
    COPY(op_id)
#undef COPY
    q->n = n;
    for (size_t m = 0; st == KS_OK && m < p->metric_count; m++) {
        ks_metric_column *c;
        st = ks_profile_metric(q, p->metrics[m].name, &c, err);
        if (st != KS_OK)
            break;
        memcpy(c->values, p->metrics[m].values, n * sizeof *c->values);
        if (p->metrics[m].unit && !(c->unit = strdup(p->metrics[m].unit)))
            st = ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (size_t k = 0; st == KS_OK && k < p->sparse_count; k++)
        st = copy_sparse(q, &p->sparse[k], n, err);
    if (st == KS_OK)
        st = copy_ranges(q, p, err);
    if (st == KS_OK && (st = copy_array((void **)&q->calls, p->calls, p->call_count,
                                        sizeof *p->calls, err)) == KS_OK)
        q->call_count = q->call_capacity = q->calls ? p->call_count : 0;
    if (st == KS_OK && (st = copy_array((void **)&q->ops, p->ops, p->op_count, sizeof *p->ops,
                                        err)) == KS_OK)
        q->op_count = q->op_capacity = q->ops ? p->op_count : 0;
    if (st == KS_OK)
        st = copy_op_names(q, p, err);
    if (st == KS_OK)
        st = copy_array((void **)&q->launch_id, p->launch_id, p->launch_id ? n : 0,
                        sizeof *p->launch_id, err);
    if (st != KS_OK) {
        ks_profile_free(q);
        return st;
    }
    q->graph_launches = p->graph_launches;
    q->graph_kernels = p->graph_kernels;
    q->launch_total = p->launch_total;
    q->selected = p->selected;
    q->source_bytes = p->source_bytes;
    memcpy(q->selection, p->selection, sizeof q->selection);
    memcpy(q->source_format, p->source_format, sizeof q->source_format);
    memcpy(q->device_name, p->device_name, sizeof q->device_name);
    memcpy(q->duration_source, p->duration_source, sizeof q->duration_source);
    memcpy(q->source_path, p->source_path, sizeof q->source_path);
    memcpy(q->trace_path, p->trace_path, sizeof q->trace_path);
    memcpy(q->source_xxh128, p->source_xxh128, sizeof q->source_xxh128);
    *out = q;
    return KS_OK;
}
