/*
 * model.c - the .ksm model file: a trained GCL encoder with everything needed
 * to embed new launches the same way (graph bounds, dimensions, vocabulary).
 *
 * Layout, little-endian throughout:
 *   "KSGCLMDL"  magic (8 bytes)
 *   u32 version (KS_GCL_MODEL_VERSION), u32 header flags (0)
 *   options, field by field in the order of model_option_fields[]
 *   u64 trained graphs, u64 epochs run, f64 final loss
 *   u32 vocabulary size, then per token: u32 length, bytes
 *   u64 parameter count, then the parameters as IEEE-754 binary32
 *   u64 XXH3-64 of every byte before it
 * A reader checks the magic, then the version, then parses with every length
 * bounded by what is left (so a truncated file says so), then the checksum.
 *
 * Versions: 2 added the option max_train_graphs (u32, after silhouette_cap).
 * Version 1 files are still read: they were trained on every distinct
 * graph, which is max_train_graphs 0.
 */
#include "gcl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define KS_GCL_MODEL_MAGIC "KSGCLMDL"
#define KS_GCL_MODEL_VERSION 2u

typedef struct model_buf {
    unsigned char *data;
    size_t size, cap, at;  /* at: read cursor */
    const char *name;
    int failed;            /* writing: out of memory */
    const char *what;      /* reading: the field being read, for messages */
} model_buf;

static void put(model_buf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->size + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

/* Integers and floats are stored little-endian whatever the host. */
static void put_u64(model_buf *b, uint64_t v)
{
    unsigned char t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, 8);
}

static void put_u32(model_buf *b, uint32_t v)
{
    unsigned char t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, 4);
}

static void put_f64(model_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_u64(b, u);
}

static int take(model_buf *b, void *p, size_t n)
{
    if (b->size - b->at < n)
        return 0;
    memcpy(p, b->data + b->at, n);
    b->at += n;
    return 1;
}

static int get_u64(model_buf *b, uint64_t *v)
{
    unsigned char t[8];
    if (!take(b, t, 8))
        return 0;
    *v = 0;
    for (int i = 0; i < 8; i++)
        *v |= (uint64_t)t[i] << (8 * i);
    return 1;
}

static int get_u32(model_buf *b, uint32_t *v)
{
    unsigned char t[4];
    if (!take(b, t, 4))
        return 0;
    *v = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    return 1;
}

static int get_f64(model_buf *b, double *v)
{
    uint64_t u;
    if (!get_u64(b, &u))
        return 0;
    memcpy(v, &u, 8);
    return 1;
}

/* One list of the option fields serves writing and reading, so the two can
 * never disagree on the order. */
typedef struct option_field {
    char type; /* 'q' u64, 'u' u32, 'i' int as u32, 'd' f64 */
    size_t offset;
    uint32_t since; /* the first file version that holds it */
} option_field;

#define OPT(t, f) {t, offsetof(ks_gcl_options, f), 1}
#define OPT_SINCE(t, f, v) {t, offsetof(ks_gcl_options, f), v}
static const option_field model_option_fields[] = {
    OPT('q', max_blocks),    OPT('u', max_warps),     OPT('q', max_insts_per_warp),
    OPT('i', inverse_edges), OPT('u', input_dim),     OPT('u', hidden[0]),
    OPT('u', hidden[1]),     OPT('u', hidden[2]),     OPT('u', proj[0]),
    OPT('u', proj[1]),       OPT('u', bases),         OPT('d', dropout),
    OPT('u', max_vocab),     OPT('d', node_drop),     OPT('d', edge_drop),
    OPT('d', feature_noise), OPT('d', temperature),   OPT('d', learning_rate),
    OPT('u', epochs),        OPT('u', batch),         OPT('q', seed),
    OPT('u', k_max),         OPT('d', tie_tolerance), OPT('d', launch_weight),
    OPT('u', silhouette_cap),
    OPT_SINCE('u', max_train_graphs, 2),
};
#undef OPT
#undef OPT_SINCE

static void options_write(model_buf *b, const ks_gcl_options *o)
{
    const char *base = (const char *)o;
    for (size_t i = 0; i < sizeof model_option_fields / sizeof *model_option_fields; i++) {
        const option_field *f = &model_option_fields[i];
        switch (f->type) {
        case 'q':
            put_u64(b, *(const uint64_t *)(base + f->offset));
            break;
        case 'u':
            put_u32(b, *(const uint32_t *)(base + f->offset));
            break;
        case 'i':
            put_u32(b, (uint32_t) * (const int *)(base + f->offset));
            break;
        default:
            put_f64(b, *(const double *)(base + f->offset));
        }
    }
}

static int options_read(model_buf *b, uint32_t version, ks_gcl_options *o)
{
    char *base = (char *)o;
    o->max_train_graphs = 0; /* what a version 1 file was trained with */
    for (size_t i = 0; i < sizeof model_option_fields / sizeof *model_option_fields; i++) {
        const option_field *f = &model_option_fields[i];
        if (f->since > version)
            continue;
        uint32_t u;
        int ok;
        switch (f->type) {
        case 'q':
            ok = get_u64(b, (uint64_t *)(base + f->offset));
            break;
        case 'u':
            ok = get_u32(b, (uint32_t *)(base + f->offset));
            break;
        case 'i':
            ok = get_u32(b, &u);
            *(int *)(base + f->offset) = u != 0;
            break;
        default:
            ok = get_f64(b, (double *)(base + f->offset));
        }
        if (!ok)
            return 0;
    }
    return 1;
}

static ks_status model_serialise(const ks_gcl_model *m, model_buf *b, ks_error *err)
{
    put(b, KS_GCL_MODEL_MAGIC, 8);
    put_u32(b, KS_GCL_MODEL_VERSION);
    put_u32(b, 0);
    options_write(b, &m->opt);
    put_u64(b, m->trained_graphs);
    put_u64(b, m->epochs_run);
    put_f64(b, m->final_loss);
    put_u32(b, (uint32_t)m->vocab_count);
    for (size_t i = 0; i < m->vocab_count; i++) {
        uint32_t len = (uint32_t)strlen(m->vocab[i]);
        put_u32(b, len);
        put(b, m->vocab[i], len);
    }
    put_u64(b, m->layout.total);
    for (size_t i = 0; i < m->layout.total; i++) {
        uint32_t u;
        memcpy(&u, &m->param[i], 4);
        put_u32(b, u);
    }
    if (!b->failed)
        put_u64(b, XXH3_64bits(b->data, b->size));
    if (b->failed)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (model file)");
    return KS_OK;
}

static ks_status model_write_fn(const void *ctx, FILE *f, ks_error *err)
{
    const model_buf *b = ctx;
    if (fwrite(b->data, 1, b->size, f) != b->size)
        return ks_error_set(err, KS_ERR_IO, NULL, 0, "cannot write the model");
    return KS_OK;
}

ks_status ks_gcl_model_save(const ks_gcl_model *m, const char *path, ks_error *err)
{
    model_buf b = {0};
    ks_status st = model_serialise(m, &b, err);
    if (st == KS_OK)
        st = ks_write_atomic(path, model_write_fn, &b, err);
    free(b.data);
    return st;
}

static ks_status model_truncated(model_buf *b, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, b->name, 0,
                        "model file is truncated: it ends (at byte %zu) inside the %s",
                        b->size, b->what);
}

static ks_status model_read_vocab(model_buf *b, ks_gcl_model *m, ks_error *err)
{
    b->what = "vocabulary";
    for (size_t i = 0; i < m->vocab_count; i++) {
        uint32_t len;
        if (!get_u32(b, &len) || b->size - b->at < len)
            return model_truncated(b, err);
        if (len == 0 || len > 4096 || memchr(b->data + b->at, 0, len))
            return ks_error_set(err, KS_ERR_FORMAT, b->name, 0,
                                "model file is corrupt: vocabulary token %zu is malformed", i);
        m->vocab[i] = malloc(len + 1);
        if (!m->vocab[i])
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        take(b, m->vocab[i], len);
        m->vocab[i][len] = 0;
    }
    return KS_OK;
}

static ks_status model_read_params(model_buf *b, ks_gcl_model *m, ks_error *err)
{
    uint64_t count;
    b->what = "parameters";
    if (!get_u64(b, &count))
        return model_truncated(b, err);
    if (count != m->layout.total)
        return ks_error_set(err, KS_ERR_FORMAT, b->name, 0,
                            "model file is corrupt: %llu parameters where its options imply %zu",
                            (unsigned long long)count, m->layout.total);
    if ((b->size - b->at) / 4 < count)
        return model_truncated(b, err);
    for (size_t i = 0; i < count; i++) {
        uint32_t u = 0; /* the length was checked above: get_u32 cannot fail */
        get_u32(b, &u);
        memcpy(&m->param[i], &u, 4);
        if (!isfinite(m->param[i]))
            return ks_error_set(err, KS_ERR_FORMAT, b->name, 0,
                                "model file is corrupt: parameter %zu is not finite", i);
    }
    return KS_OK;
}

/* Bounds that keep a hostile file from asking for absurd allocations; every
 * real model is far inside them. */
static ks_status model_check_header(model_buf *b, const ks_gcl_options *o, uint32_t vocab,
                                    ks_error *err)
{
    int small = o->bases <= 64 && o->input_dim <= 4096 && o->proj[0] <= 4096 &&
                o->proj[1] <= 4096;
    for (int i = 0; i < GCL_LAYERS; i++)
        small &= o->hidden[i] <= 4096;
    if (!small || vocab > (1u << 24)) /* products below cannot overflow now */
        return ks_error_set(err, KS_ERR_FORMAT, b->name, 0,
                            "model file is corrupt: dimensions out of range");
    uint64_t dims = (uint64_t)o->input_dim * o->hidden[0] + (uint64_t)o->hidden[0] * o->hidden[1] +
                    (uint64_t)o->hidden[1] * o->hidden[2];
    if (dims * (o->bases + 1) > (1ull << 28) || (uint64_t)vocab * o->input_dim > (1ull << 28))
        return ks_error_set(err, KS_ERR_FORMAT, b->name, 0,
                            "model file is corrupt: dimensions out of range");
    return KS_OK;
}

ks_status ks_gcl_model_parse(const void *data, size_t size, const char *name,
                             ks_gcl_model **out, ks_error *err)
{
    *out = NULL;
    model_buf b = {(unsigned char *)data, size, size, 0, name ? name : "", 0, "header"};
    char magic[8];
    uint32_t version, flags, vocab;
    if (!take(&b, magic, 8) || memcmp(magic, KS_GCL_MODEL_MAGIC, 8) != 0)
        return ks_error_set(err, KS_ERR_FORMAT, b.name, 0,
                            "not a ksample GCL model (no KSGCLMDL magic)");
    if (!get_u32(&b, &version) || !get_u32(&b, &flags))
        return model_truncated(&b, err);
    if (version < 1 || version > KS_GCL_MODEL_VERSION)
        return ks_error_set(err, KS_ERR_FORMAT, b.name, 0,
                            "model file version %u; this ksample reads versions 1 to %u "
                            "(retrain the model with this version)",
                            version, KS_GCL_MODEL_VERSION);
    ks_gcl_options o;
    ks_gcl_options_init(&o);
    uint64_t trained, epochs;
    double loss;
    b.what = "options";
    if (!options_read(&b, version, &o) || !get_u64(&b, &trained) || !get_u64(&b, &epochs) ||
        !get_f64(&b, &loss) || !get_u32(&b, &vocab))
        return model_truncated(&b, err);
    ks_status st = model_check_header(&b, &o, vocab, err);
    if (st == KS_OK) { /* the smallest rest of a file with these options, before allocating */
        gcl_dims d;
        gcl_layout l;
        gcl_dims_from_options(&o, GCL_TOK_SPECIAL + vocab, &d);
        gcl_layout_compute(&d, &l);
        b.what = "vocabulary";
        if ((b.size - b.at) / 4 < (uint64_t)vocab * 2 + l.total + 4)
            st = model_truncated(&b, err);
    }
    ks_gcl_model *m = NULL;
    if (st == KS_OK && (st = gcl_model_alloc(&o, vocab, &m, err)) != KS_OK) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        st = ks_error_set(err, st == KS_ERR_NOMEM ? st : KS_ERR_FORMAT, b.name, 0,
                          "model file holds unusable options: %s", why);
    }
    if (st == KS_OK)
        st = model_read_vocab(&b, m, err);
    if (st == KS_OK)
        st = model_read_params(&b, m, err);
    uint64_t sum;
    b.what = "checksum";
    if (st == KS_OK && !get_u64(&b, &sum))
        st = model_truncated(&b, err);
    if (st == KS_OK && b.at != size)
        st = ks_error_set(err, KS_ERR_FORMAT, b.name, 0,
                          "model file is corrupt: %zu bytes after the checksum", size - b.at);
    if (st == KS_OK && sum != XXH3_64bits(data, size - 8))
        st = ks_error_set(err, KS_ERR_FORMAT, b.name, 0,
                          "model file is corrupt: checksum mismatch");
    if (st != KS_OK) {
        ks_gcl_model_free(m);
        return st;
    }
    m->trained_graphs = trained;
    m->epochs_run = epochs;
    m->final_loss = loss;
    *out = m;
    return KS_OK;
}

ks_status ks_gcl_model_load(const char *path, ks_gcl_model **out, ks_error *err)
{
    *out = NULL;
    FILE *f;
    ks_status opened = ks_file_open_read(path, &f, err); /* a FIFO refused, not waited on */
    if (opened != KS_OK)
        return opened;
    unsigned char *data = NULL;
    size_t size = 0, cap = 0;
    ks_status st = KS_OK;
    for (;;) {
        if ((st = ks_grow((void **)&data, &cap, size + 65536, 1, err)) != KS_OK)
            break;
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0) {
            if (ferror(f))
                st = ks_error_set(err, KS_ERR_IO, path, 0, "cannot read the model file");
            break;
        }
    }
    fclose(f);
    if (st == KS_OK)
        st = ks_gcl_model_parse(data, size, path, out, err);
    free(data);
    return st;
}
