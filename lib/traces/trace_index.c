/*
 * trace_index.c - which launch of a trace folder a simulator ran, from the
 * file name it prints: Accel-Sim names the trace file it loads ("Processing
 * kernel RUN/kernel-12.traceg"), MacSim the kernel folder's trace.txt
 * ("setup_process:0 RUN/Kernel11/trace.txt").  Both keep the names of the
 * complete trace folder in an exported subset (links named as their
 * targets), so a log of any subset, or of several runs concatenated, maps
 * back to launches by name, never by position.
 *
 * Keys: an Accel-Sim trace file's name without its folder and without a
 * compression suffix ("kernel-12.traceg"); a MacSim launch's folder name
 * ("Kernel11").
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct index_entry {
    char *key;
    size_t launch;
} index_entry;

struct ks_trace_index {
    ks_trace_folder_kind kind;
    char *dir;
    index_entry *entries; /* sorted by key */
    char **names;         /* per launch: the kernel name */
    char **files;         /* per launch: its key */
    size_t count;
};

static int cmp_entry(const void *a, const void *b)
{
    const index_entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->launch > y->launch) - (x->launch < y->launch);
}

/* The key of a path as a simulator prints it, into buf. */
static void key_of(const char *path, char *buf, size_t size)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--;
    static const char tail[] = "/trace.txt";
    size_t t = sizeof tail - 1;
    const char *end = path + n;
    if (n > t && memcmp(path + n - t, tail, t) == 0)
        end = path + n - t; /* a MacSim launch: its folder */
    const char *start = end;
    while (start > path && start[-1] != '/')
        start--;
    size_t len = (size_t)(end - start);
    static const char *const suffix[] = {".xz", ".gz", ".zst"};
    for (size_t i = 0; i < 3; i++) {
        size_t s = strlen(suffix[i]);
        if (len > s && memcmp(end - s, suffix[i], s) == 0) {
            len -= s;
            break;
        }
    }
    if (len >= size)
        len = size - 1;
    memcpy(buf, start, len);
    buf[len] = '\0';
}

void ks_trace_index_free(ks_trace_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->count; i++) {
        free(x->entries[i].key);
        free(x->names[i]);
    }
    KS_FREE(x->entries, x->names, x->files, x->dir);
    free(x);
}

static ks_status add(ks_trace_index *x, size_t i, const char *path, const char *name,
                     ks_error *err)
{
    char key[512];
    key_of(path, key, sizeof key);
    x->entries[i].launch = i;
    if (!(x->entries[i].key = strdup(key)) || !(x->names[i] = strdup(name)))
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    x->files[i] = x->entries[i].key;
    return KS_OK;
}

/* Room for count launches, counted once it is had (zeroed: entries, names
 * and files). */
static ks_status alloc_launches(ks_trace_index *x, size_t count, ks_error *err)
{
    x->entries = calloc(count + 1, sizeof *x->entries);
    x->names = calloc(count + 1, sizeof *x->names);
    x->files = calloc(count + 1, sizeof *x->files);
    if (!x->entries || !x->names || !x->files)
        return ks_error_set(err, KS_ERR_NOMEM, x->dir, 0, "out of memory");
    x->count = count;
    return KS_OK;
}

ks_status ks_trace_index_open(const char *dir, ks_trace_index **out, ks_error *err)
{
    *out = NULL;
    ks_trace_index *x = calloc(1, sizeof *x);
    if (!x || !(x->dir = strdup(dir))) {
        free(x);
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    }
    ks_status st;
    if (ks_macsim_dir_detect(dir)) {
        x->kind = KS_TRACES_MACSIM;
        ks_macsim_set *m;
        if ((st = ks_macsim_set_open(dir, &m, err)) == KS_OK) {
            st = alloc_launches(x, ks_macsim_set_count(m), err);
            for (size_t i = 0; i < x->count && st == KS_OK; i++) {
                const ks_macsim_launch *l = ks_macsim_set_launch(m, i);
                char path[600];
                snprintf(path, sizeof path, "%s/trace.txt", l->folder);
                st = add(x, i, path, l->name, err);
            }
            ks_macsim_set_free(m);
        }
    } else {
        x->kind = KS_TRACES_ACCELSIM;
        ks_trace_set *t;
        if ((st = ks_trace_set_open(dir, &t, err)) == KS_OK) {
            st = alloc_launches(x, ks_trace_set_kernel_count(t), err);
            for (size_t i = 0; i < x->count && st == KS_OK; i++) {
                const ks_trace_kernel *k = ks_trace_set_kernel(t, i);
                st = add(x, i, k->path, k->name, err);
            }
            ks_trace_set_free(t);
        }
    }
    if (st == KS_OK) {
        qsort(x->entries, x->count, sizeof *x->entries, cmp_entry);
        for (size_t i = 1; i < x->count && st == KS_OK; i++)
            if (strcmp(x->entries[i].key, x->entries[i - 1].key) == 0)
                st = ks_error_set(err, KS_ERR_FORMAT, dir, 0,
                                  "launches %zu and %zu have the same file name '%s': a "
                                  "simulator's log could not tell them apart",
                                  x->entries[i - 1].launch + 1, x->entries[i].launch + 1,
                                  x->entries[i].key);
    }
    if (st != KS_OK) {
        ks_trace_index_free(x);
        return st;
    }
    *out = x;
    return KS_OK;
}

long ks_trace_index_find(const ks_trace_index *x, const char *path)
{
    char key[512];
    key_of(path, key, sizeof key);
    size_t lo = 0, hi = x->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(x->entries[mid].key, key);
        if (c == 0)
            return (long)x->entries[mid].launch;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

size_t ks_trace_index_count(const ks_trace_index *x) { return x->count; }
ks_trace_folder_kind ks_trace_index_kind(const ks_trace_index *x) { return x->kind; }
const char *ks_trace_index_name(const ks_trace_index *x, size_t launch)
{
    return launch < x->count ? x->names[launch] : NULL;
}
const char *ks_trace_index_file(const ks_trace_index *x, size_t launch)
{
    return launch < x->count ? x->files[launch] : NULL;
}

/* ------------------------------------------------ kernel and data pages */

/* What a warm-up needs to know of "the same kernel": the same name, and the
 * same data.  A launch's data is known by the 4 KiB pages its first warp's
 * first memory instructions touch (up to PAGE_INSTS of them): a kernel run
 * again on the same buffers touches some of the same pages (all of them
 * when it is regular; a gather like spmv's shares its row and column
 * pages), one run on other buffers none (MacSim's bundled vectormultadd
 * launches one function on three pairs of buffers). */
enum { PAGE_INSTS = 256, PAGE_MAX = 512 };

typedef struct page_set {
    uint64_t *page;
    size_t count, insts;
} page_set;

static void add_page(page_set *p, uint64_t addr)
{
    uint64_t page = addr >> 12;
    for (size_t i = 0; i < p->count; i++)
        if (p->page[i] == page)
            return;
    if (p->count < PAGE_MAX)
        p->page[p->count++] = page;
}

static ks_status take_inst(void *ctx, const ks_trace_kernel *k, const ks_trace_inst *inst,
                           ks_error *err)
{
    (void)k;
    (void)err;
    page_set *p = ctx;
    if (inst->mem_width == 0 || p->insts >= PAGE_INSTS)
        return KS_OK;
    p->insts++;
    for (uint32_t a = 0; a < inst->naddr; a++)
        add_page(p, inst->addr[a]);
    return KS_OK;
}

static int cmp_page(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static ks_status finish_launch(ks_warmup_launch *l, const char *name, page_set *p,
                               ks_error *err)
{
    qsort(p->page, p->count, sizeof *p->page, cmp_page);
    l->name = strdup(name);
    l->pages = malloc((p->count ? p->count : 1) * sizeof *l->pages);
    if (!l->name || !l->pages)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
    memcpy(l->pages, p->page, p->count * sizeof *p->page);
    l->page_count = p->count;
    return KS_OK;
}

void ks_warmup_launches_free(ks_warmup_launch *l, size_t count)
{
    for (size_t i = 0; l && i < count; i++)
        KS_FREE(l[i].name, l[i].pages);
    free(l);
}

ks_status ks_trace_folder_launches(const char *dir, ks_warmup_launch **launches, size_t *count,
                                   ks_error *err)
{
    *launches = NULL;
    *count = 0;
    ks_status st;
    ks_warmup_launch *out = NULL;
    size_t n = 0;
    page_set p = {malloc(PAGE_MAX * sizeof(uint64_t)), 0, 0};
    if (!p.page)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    if (ks_macsim_dir_detect(dir)) {
        ks_macsim_set *m;
        if ((st = ks_macsim_set_open(dir, &m, err)) == KS_OK) {
            n = ks_macsim_set_count(m);
            if (!(out = calloc(n + 1, sizeof *out)))
                st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
            for (size_t i = 0; i < n && st == KS_OK; i++) {
                p.count = p.insts = 0;
                uint64_t addr[PAGE_INSTS];
                size_t got = 0;
                st = ks_macsim_set_addresses(m, i, addr, PAGE_INSTS, &got, err);
                for (size_t k = 0; k < got; k++)
                    add_page(&p, addr[k]);
                if (st == KS_OK)
                    st = finish_launch(&out[i], ks_macsim_set_launch(m, i)->name, &p, err);
            }
            ks_macsim_set_free(m);
        }
    } else {
        ks_trace_set *t;
        if ((st = ks_trace_set_open(dir, &t, err)) == KS_OK) {
            n = ks_trace_set_kernel_count(t);
            if (!(out = calloc(n + 1, sizeof *out)))
                st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
            ks_trace_filter filter = {1, 1, 4 * PAGE_INSTS};
            for (size_t i = 0; i < n && st == KS_OK; i++) {
                p.count = p.insts = 0;
                st = ks_trace_set_stream(t, i, &filter, take_inst, &p, err);
                if (st == KS_OK)
                    st = finish_launch(&out[i], ks_trace_set_kernel(t, i)->name, &p, err);
            }
            ks_trace_set_free(t);
        }
    }
    free(p.page);
    if (st != KS_OK) {
        ks_warmup_launches_free(out, n);
        return st;
    }
    *launches = out;
    *count = n;
    return KS_OK;
}
