/*
 * macsim_set.c - a folder of MacSim NVBit traces (the format of
 * gthparch/Macsim_tracer and of the traces bundled with MacSim):
 *
 *   kernel_config.txt   "nvbit", the trace version (14), "-1", then one
 *                       "./KernelN/trace.txt" per launch, in launch order
 *   KernelN/trace.txt   "nvbit", 14, max blocks per core, the warp count,
 *                       then "<warp id> <start instruction>" per warp
 *   KernelN/trace_info.txt  "<warp id> <instructions>" per warp
 *   KernelN/trace_<warp id>.raw  gzip'd 64-byte instruction records
 *   kernel_names.txt    (newer tracers) "KernelN name: <function>" and a line
 *                       "  Grid size: (x, y, z), Block size: (x, y, z), ..."
 *
 * MacSim finds a listed launch by the last two components of its line
 * (".../KernelN/trace.txt") below the list's own folder
 * (process_manager.cc: the entries' leading folders are ignored), so this
 * reader does the same and names a launch by that folder.  A warp id is
 * block * 65536 + warp within the block.
 *
 * Kernel names: kernel_names.txt where the tracer wrote it (with grid and
 * block); otherwise the traces carry none, and a launch is named by the
 * address of its first instruction and its size ("kernel@0x7fafcf24e200<128
 * warps>"): the launches of one function at one size in one traced process
 * share it; its grid is then its
 * block count and its block 32 threads per warp, one dimension each.  Instruction counts are
 * the tracer's (trace_info.txt): warp-level records.  MacSim's own
 * INST_COUNT_TOT counts one fewer per warp on the bundled traces (the last
 * record ends the warp).
 */
#include "trace_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One instruction record of the raw traces (trace_info_nvbit_small_s of
 * MacSim's trace_read.h, x86-64 layout): the fields this reader uses. */
#define MACSIM_RECORD_BYTES 64
#define MACSIM_RECORD_CF_TYPE 3
#define MACSIM_RECORD_SIZE 22
#define MACSIM_RECORD_PC 32

struct ks_macsim_set {
    char *dir;         /* absolute */
    char *config_path; /* dir/kernel_config.txt */
    ks_macsim_launch *launches;
    size_t count, capacity;
    char list_xxh128[33];
    uint64_t list_bytes;
};

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

uint64_t ks_macsim_folder_number(const char *folder)
{
    const char *slash = strrchr(folder, '/');
    const char *p = slash ? slash + 1 : folder;
    if (strncmp(p, "Kernel", 6) != 0 || p[6] < '0' || p[6] > '9')
        return UINT64_MAX;
    uint64_t v = 0;
    for (p += 6; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10)
            return UINT64_MAX;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    return *p ? UINT64_MAX : v;
}

int ks_macsim_dir_detect(const char *dir)
{
    char *config = ks_path_join(dir, "kernel_config.txt");
    int score = 0;
    FILE *f = config && is_file(config) ? fopen(config, "r") : NULL;
    if (f) {
        char word[16] = "";
        if (fscanf(f, "%15s", word) == 1 && strcmp(word, "nvbit") == 0)
            score = 90;
        fclose(f);
    }
    free(config);
    return score;
}

/* ------------------------------------------------------------- tokens */

/* Whitespace-separated tokens of a small text file, with the line of each
 * (MacSim reads these files with >>, so line breaks are not structure). */
typedef struct token_reader {
    ks_input *in;
    const char *path;
    char *line;
    size_t pos;
    long number;
    bool at_end;
} token_reader;

/* A trace file must be a regular file: opening a FIFO would wait for a
 * writer that never comes (as the Accel-Sim reader refuses one). */
static ks_status open_regular(const char *path, ks_input **in, ks_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return ks_error_set(err, KS_ERR_FORMAT, path, 0,
                            "is not a regular file (a folder, FIFO or device): not a trace");
    return ks_input_open(path, in, err);
}

static ks_status tokens_open(const char *path, token_reader *t, ks_error *err)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    return open_regular(path, &t->in, err);
}

static void tokens_close(token_reader *t)
{
    ks_input_close(t->in);
    t->in = NULL;
}

/* The next token (NUL-terminated, valid until the next call), or NULL at
 * the end of the file. */
static ks_status token_next(token_reader *t, const char **tok, ks_error *err)
{
    *tok = NULL;
    for (;;) {
        if (t->line) {
            char *p = t->line + t->pos;
            while (*p && isspace((unsigned char)*p))
                p++;
            if (*p) {
                char *start = p;
                while (*p && !isspace((unsigned char)*p))
                    p++;
                t->pos = (size_t)(p - t->line) + (*p ? 1 : 0);
                *p = '\0';
                *tok = start;
                return KS_OK;
            }
        }
        size_t len;
        ks_status st = ks_input_getline(t->in, &t->line, &len, NULL, err);
        if (st != KS_OK)
            return st;
        if (!t->line) {
            t->at_end = true;
            return KS_OK;
        }
        t->pos = 0;
        t->number = ks_input_line_number(t->in);
    }
}

static ks_status token_u64(token_reader *t, const char *what, uint64_t *v, ks_error *err)
{
    const char *tok;
    ks_status st = token_next(t, &tok, err);
    if (st != KS_OK)
        return st;
    if (!tok)
        return ks_error_set(err, KS_ERR_FORMAT, t->path, t->number,
                            "the file ends where %s was expected", what);
    if (!trace_parse_u64(tok, strlen(tok), 10, v))
        return ks_error_set(err, KS_ERR_FORMAT, t->path, t->number,
                            "%s: expected a non-negative integer, got '%.40s'", what, tok);
    return KS_OK;
}

static ks_status token_word(token_reader *t, const char *what, const char *want, ks_error *err)
{
    const char *tok;
    ks_status st = token_next(t, &tok, err);
    if (st != KS_OK)
        return st;
    if (!tok || strcmp(tok, want) != 0)
        return ks_error_set(err, KS_ERR_FORMAT, t->path, t->number,
                            "%s: expected '%s', got '%.40s'", what, want, tok ? tok : "(end)");
    return KS_OK;
}

/* "nvbit" and the trace version MacSim accepts (14: "version 1.4"). */
static ks_status read_preamble(token_reader *t, ks_error *err)
{
    ks_status st = token_word(t, "trace type", "nvbit", err);
    uint64_t version = 0;
    if (st == KS_OK)
        st = token_u64(t, "trace version", &version, err);
    if (st == KS_OK && version != 14)
        st = ks_error_set(err, KS_ERR_FORMAT, t->path, t->number,
                          "trace version %llu; MacSim reads version 14 only",
                          (unsigned long long)version);
    return st;
}

/* ------------------------------------------------------------- launches */

static void launch_free(ks_macsim_launch *l)
{
    KS_FREE(l->folder, l->path, l->name, l->warp_ids);
}

void ks_macsim_set_free(ks_macsim_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        launch_free(&s->launches[i]);
    KS_FREE(s->launches, s->dir, s->config_path);
    free(s);
}

/* "Kernel12" from ".../Kernel12/trace.txt", as MacSim takes it. */
static ks_status entry_folder(const char *entry, const char *path, long line, char **out,
                              ks_error *err)
{
    const char *last = strrchr(entry, '/');
    if (!last || last == entry)
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "'%.200s' is not <folder>/trace.txt (MacSim takes the folder "
                            "and file below the list's own folder)",
                            entry);
    const char *start = last;
    while (start > entry && start[-1] != '/')
        start--;
    size_t n = (size_t)(last - start);
    if (n == 0 || (n == 1 && start[0] == '.') || (n == 2 && start[0] == '.' && start[1] == '.'))
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "'%.200s' names no kernel folder before its file", entry);
    if (strcmp(last + 1, "trace.txt") != 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "'%.200s': a MacSim launch is listed by its trace.txt", entry);
    if (!(*out = strndup(start, n)))
        return ks_error_set(err, KS_ERR_NOMEM, path, line, "out of memory");
    return KS_OK;
}

/* An entry with folders before "KernelN/trace.txt" (../base/Kernel1/...)
 * names one file, and MacSim reads another: ./Kernel1/trace.txt below the
 * list's folder.  Refused unless both are one file (a link). */
static ks_status check_entry(const ks_macsim_set *s, const char *entry,
                             const ks_macsim_launch *l, long line, ks_error *err)
{
    size_t n = strlen(l->folder) + strlen("/trace.txt");
    size_t len = strlen(entry);
    const char *tail = entry + len - n;
    bool plain = len == n || (len == n + 2 && entry[0] == '.' && entry[1] == '/');
    if (plain || (len > n && tail[-1] != '/'))
        return KS_OK;
    char *listed = entry[0] == '/' ? strdup(entry) : ks_path_join(s->dir, entry);
    char *read = ks_path_join(l->path, "trace.txt");
    ks_status st = KS_OK;
    struct stat a, b;
    if (!listed || !read)
        st = ks_error_set(err, KS_ERR_NOMEM, s->config_path, line, "out of memory");
    else if (stat(listed, &a) != 0 || stat(read, &b) != 0 || a.st_dev != b.st_dev ||
             a.st_ino != b.st_ino)
        st = ks_error_set(err, KS_ERR_FORMAT, s->config_path, line,
                          "'%.200s': MacSim reads ./%s/trace.txt (the last two components, "
                          "below the list's folder), %s",
                          entry, l->folder,
                          stat(read, &b) != 0     ? "which does not exist"
                          : stat(listed, &a) != 0 ? "and the one listed does not exist"
                                                  : "another file than the one listed");
    free(listed);
    free(read);
    return st;
}

static ks_status read_config(ks_macsim_set *s, ks_error *err)
{
    token_reader t;
    ks_status st = tokens_open(s->config_path, &t, err);
    if (st != KS_OK)
        return st;
    st = read_preamble(&t, err);
    const char *tok = NULL;
    if (st == KS_OK)
        st = token_next(&t, &tok, err);
    if (st == KS_OK && (!tok || strcmp(tok, "-1") != 0))
        st = ks_error_set(err, KS_ERR_FORMAT, s->config_path, t.number,
                          "expected -1 (one folder per launch) after the version, got '%.40s'",
                          tok ? tok : "(end)");
    while (st == KS_OK) {
        if ((st = token_next(&t, &tok, err)) != KS_OK || !tok)
            break;
        if ((st = ks_grow((void **)&s->launches, &s->capacity, s->count + 1,
                          sizeof *s->launches, err)) != KS_OK)
            break;
        ks_macsim_launch *l = &s->launches[s->count];
        memset(l, 0, sizeof *l);
        l->line = t.number;
        if ((st = entry_folder(tok, s->config_path, t.number, &l->folder, err)) != KS_OK)
            break;
        s->count++;
        if (!(l->path = ks_path_join(s->dir, l->folder)))
            st = ks_error_set(err, KS_ERR_NOMEM, s->config_path, 0, "out of memory");
        if (st == KS_OK)
            st = check_entry(s, tok, l, t.number, err);
    }
    if (st == KS_OK)
        st = ks_input_finish_digest(t.in, s->list_xxh128, &s->list_bytes, err);
    tokens_close(&t);
    if (st == KS_OK && s->count == 0)
        st = ks_error_set(err, KS_ERR_FORMAT, s->config_path, 0, "the list names no launch");
    return st;
}

/* trace.txt: the warps of the launch; trace_info.txt: their instructions. */
static ks_status read_warps(ks_macsim_launch *l, ks_error *err)
{
    char *path = ks_path_join(l->path, "trace.txt");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, l->path, 0, "out of memory");
    token_reader t;
    ks_status st = tokens_open(path, &t, err);
    uint64_t warps = 0, max_block = 0;
    if (st == KS_OK)
        st = read_preamble(&t, err);
    if (st == KS_OK)
        st = token_u64(&t, "max blocks per core", &max_block, err);
    if (st == KS_OK)
        st = token_u64(&t, "warp count", &warps, err);
    if (st == KS_OK && (warps == 0 || warps > (1u << 26)))
        st = ks_error_set(err, KS_ERR_FORMAT, path, t.number,
                          "warp count %llu is not in 1..67108864", (unsigned long long)warps);
    if (st == KS_OK && !(l->warp_ids = malloc(warps * sizeof *l->warp_ids)))
        st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    uint64_t blocks = 0, last_block = UINT64_MAX, per_block = 0, in_block = 0;
    for (uint64_t w = 0; st == KS_OK && w < warps; w++) {
        uint64_t start;
        if ((st = token_u64(&t, "warp id", &l->warp_ids[w], err)) != KS_OK ||
            (st = token_u64(&t, "warp start", &start, err)) != KS_OK)
            break;
        if (w > 0 && l->warp_ids[w] <= l->warp_ids[w - 1]) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, t.number,
                              "warp ids must increase (%llu after %llu)",
                              (unsigned long long)l->warp_ids[w],
                              (unsigned long long)l->warp_ids[w - 1]);
            break;
        }
        uint64_t block = l->warp_ids[w] >> 16;
        if (block != last_block) {
            blocks++;
            last_block = block;
            in_block = 0;
        }
        if (++in_block > per_block)
            per_block = in_block;
    }
    tokens_close(&t);
    free(path);
    if (st != KS_OK)
        return st;
    l->warps = warps;
    l->blocks = blocks;
    l->warps_per_block = per_block;
    l->max_blocks = max_block;

    path = ks_path_join(l->path, "trace_info.txt");
    if (!path)
        return ks_error_set(err, KS_ERR_NOMEM, l->path, 0, "out of memory");
    st = tokens_open(path, &t, err);
    uint64_t total = 0, executed = 0;
    for (uint64_t w = 0; st == KS_OK && w < warps; w++) {
        uint64_t id, n;
        if ((st = token_u64(&t, "warp id", &id, err)) != KS_OK ||
            (st = token_u64(&t, "instruction count", &n, err)) != KS_OK)
            break;
        if (id != l->warp_ids[w]) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, t.number,
                              "warp %llu where trace.txt lists warp %llu",
                              (unsigned long long)id, (unsigned long long)l->warp_ids[w]);
            break;
        }
        if (n > UINT64_MAX - total) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, t.number, "instruction count overflows");
            break;
        }
        total += n;
        executed += n > 0 ? n - 1 : 0;
    }
    tokens_close(&t);
    free(path);
    l->insts = total;
    l->executed = executed;
    return st;
}

/* ------------------------------------------------------- kernel_names.txt */

static bool parse_dims_after(const char *line, const char *label, uint32_t out[3])
{
    const char *p = strstr(line, label);
    if (!p)
        return false;
    p += strlen(label);
    while (*p == ' ')
        p++;
    if (*p != '(')
        return false;
    const char *close = strchr(p, ')');
    if (!close || close - p > 80)
        return false;
    char buf[96];
    memcpy(buf, p, (size_t)(close - p) + 1);
    buf[close - p + 1] = '\0';
    return ks_parse_dim3(buf, out);
}

static ks_macsim_launch *launch_by_folder(ks_macsim_set *s, const char *folder, size_t len)
{
    /* launches are usually listed as Kernel0, Kernel1, ... in order */
    for (size_t i = 0; i < s->count; i++)
        if (strlen(s->launches[i].folder) == len &&
            memcmp(s->launches[i].folder, folder, len) == 0)
            return &s->launches[i];
    return NULL;
}

static ks_status read_names(ks_macsim_set *s, const char *path, ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    ks_macsim_launch *current = NULL;
    while (st == KS_OK) {
        char *line;
        size_t len;
        if ((st = ks_input_getline(in, &line, &len, NULL, err)) != KS_OK || !line)
            break;
        long number = ks_input_line_number(in);
        const char *mark = strstr(line, " name: ");
        if (strncmp(line, "Kernel", 6) == 0 && mark) {
            current = launch_by_folder(s, line, (size_t)(mark - line));
            if (!current)
                continue; /* a launch the tracer saw but did not trace */
            const char *name = mark + 7;
            free(current->name);
            if (!(current->name = strdup(name)))
                st = ks_error_set(err, KS_ERR_NOMEM, path, number, "out of memory");
            current->names_line = number;
            continue;
        }
        if (current && strstr(line, "Grid size:")) {
            if (!parse_dims_after(line, "Grid size:", current->grid) ||
                !parse_dims_after(line, "Block size:", current->block))
                st = ks_error_set(err, KS_ERR_FORMAT, path, number,
                                  "expected 'Grid size: (x, y, z), Block size: (x, y, z)'");
            else
                current->has_dims = true;
            current = NULL;
        }
    }
    ks_input_close(in);
    return st;
}

/* ------------------------------------------------------------ raw records */

static ks_status raw_path(const ks_macsim_launch *l, uint64_t warp, char **out, ks_error *err)
{
    char name[48];
    snprintf(name, sizeof name, "trace_%llu.raw", (unsigned long long)warp);
    if (!(*out = ks_path_join(l->path, name)))
        return ks_error_set(err, KS_ERR_NOMEM, l->path, 0, "out of memory");
    return KS_OK;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

typedef ks_status (*record_fn)(void *ctx, const unsigned char *record, ks_error *err);

/* Every record of one warp's raw trace, in order. */
static ks_status read_records(const ks_macsim_launch *l, uint64_t warp, uint64_t max,
                              record_fn fn, void *ctx, ks_error *err)
{
    char *path;
    ks_status st = raw_path(l, warp, &path, err);
    if (st != KS_OK)
        return st;
    ks_input *in;
    if ((st = open_regular(path, &in, err)) != KS_OK) {
        free(path);
        return st;
    }
    unsigned char buf[MACSIM_RECORD_BYTES * 64];
    size_t have = 0;
    uint64_t seen = 0;
    for (;;) {
        size_t got;
        if ((st = ks_input_read(in, buf + have, sizeof buf - have, &got, err)) != KS_OK)
            break;
        have += got;
        size_t whole = have / MACSIM_RECORD_BYTES;
        for (size_t r = 0; r < whole && seen < max && st == KS_OK; r++, seen++)
            st = fn(ctx, buf + r * MACSIM_RECORD_BYTES, err);
        if (st != KS_OK || seen >= max)
            break;
        memmove(buf, buf + whole * MACSIM_RECORD_BYTES, have - whole * MACSIM_RECORD_BYTES);
        have -= whole * MACSIM_RECORD_BYTES;
        if (got == 0) {
            if (have)
                st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                  "ends in a partial record (%zu of %d bytes)", have,
                                  MACSIM_RECORD_BYTES);
            break;
        }
    }
    ks_input_close(in);
    free(path);
    return st;
}

ks_status ks_macsim_set_records(const ks_macsim_set *s, size_t i, uint64_t warp,
                                ks_macsim_record_fn fn, void *ctx, ks_error *err)
{
    const ks_macsim_launch *l = ks_macsim_set_launch(s, i);
    if (!l)
        return ks_error_set(err, KS_ERR_USAGE, s->config_path, 0, "launch %zu does not exist", i);
    return read_records(l, warp, UINT64_MAX, fn, ctx, err);
}

static ks_status take_pc(void *ctx, const unsigned char *record, ks_error *err)
{
    (void)err;
    *(uint64_t *)ctx = le64(record + MACSIM_RECORD_PC);
    return KS_OK;
}

/* The launch's name when the tracer wrote none: its entry address. */
static ks_status name_by_entry(ks_macsim_launch *l, ks_error *err)
{
    uint64_t pc = UINT64_MAX;
    ks_status st = read_records(l, l->warp_ids[0], 1, take_pc, &pc, err);
    if (st != KS_OK)
        return st;
    if (pc == UINT64_MAX) {
        char *path = NULL;
        raw_path(l, l->warp_ids[0], &path, err);
        st = ks_error_set(err, KS_ERR_FORMAT, path ? path : l->path, 0,
                          "holds no instruction record");
        free(path);
        return st;
    }
    /* one function traced at two sizes has one entry address: the size
     * tells them apart, as template arguments would (ks_export_base_name
     * drops it) */
    char name[80];
    snprintf(name, sizeof name, "kernel@0x%llx<%llu warps>", (unsigned long long)pc,
             (unsigned long long)l->warps);
    if (!(l->name = strdup(name)))
        return ks_error_set(err, KS_ERR_NOMEM, l->path, 0, "out of memory");
    return KS_OK;
}

/* ------------------------------------------------------------------ open */

ks_status ks_macsim_set_open(const char *dir, ks_macsim_set **out, ks_error *err)
{
    *out = NULL;
    ks_macsim_set *s = calloc(1, sizeof *s);
    if (!s)
        return ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    char resolved[PATH_MAX];
    ks_status st = KS_OK;
    if (!realpath(dir, resolved))
        st = ks_error_set(err, KS_ERR_IO, dir, 0, "cannot open the trace folder: %s",
                          strerror(errno));
    else if (!(s->dir = strdup(resolved)) ||
             !(s->config_path = ks_path_join(resolved, "kernel_config.txt")))
        st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
    if (st == KS_OK)
        st = read_config(s, err);
    for (size_t i = 0; i < s->count && st == KS_OK; i++)
        st = read_warps(&s->launches[i], err);
    char *names = st == KS_OK ? ks_path_join(s->dir, "kernel_names.txt") : NULL;
    if (names && is_file(names))
        st = read_names(s, names, err);
    free(names);
    for (size_t i = 0; i < s->count && st == KS_OK; i++)
        if (!s->launches[i].name)
            st = name_by_entry(&s->launches[i], err);
    if (st != KS_OK) {
        ks_macsim_set_free(s);
        return st;
    }
    *out = s;
    return KS_OK;
}

size_t ks_macsim_set_count(const ks_macsim_set *s) { return s->count; }
const ks_macsim_launch *ks_macsim_set_launch(const ks_macsim_set *s, size_t i)
{
    return i < s->count ? &s->launches[i] : NULL;
}
const char *ks_macsim_set_dir(const ks_macsim_set *s) { return s->dir; }
const char *ks_macsim_set_config(const ks_macsim_set *s) { return s->config_path; }

/* ------------------------------------------------------- data addresses */

typedef struct address_take {
    uint64_t *addr;
    size_t max, got;
} address_take;

#define MACSIM_RECORD_MEM_ADDR 48
#define MACSIM_RECORD_MEM_SIZE 56

static ks_status take_address(void *ctx, const unsigned char *record, ks_error *err)
{
    (void)err;
    address_take *t = ctx;
    /* a memory instruction: an access size and an address (the field is the
     * reconvergence address of a branch, whose access size is 0) */
    if (record[MACSIM_RECORD_MEM_SIZE] && t->got < t->max) {
        uint64_t a = le64(record + MACSIM_RECORD_MEM_ADDR);
        if (a)
            t->addr[t->got++] = a;
    }
    return KS_OK;
}

ks_status ks_macsim_set_addresses(const ks_macsim_set *s, size_t i, uint64_t *addr, size_t max,
                                  size_t *got, ks_error *err)
{
    *got = 0;
    const ks_macsim_launch *l = ks_macsim_set_launch(s, i);
    if (!l)
        return ks_error_set(err, KS_ERR_USAGE, s->config_path, 0, "launch %zu does not exist", i);
    address_take t = {addr, max, 0};
    ks_status st = read_records(l, l->warp_ids[0], 4 * max, take_address, &t, err);
    *got = t.got;
    return st;
}

/* ------------------------------------------------------------------ BBV */

/* Straight-line runs of one warp, as trace_bbv.c cuts them: after a
 * control-flow record (cf_type != 0) and wherever the next address is not
 * the previous one plus its size. */
typedef struct bbv_warp {
    trace_pair_map *runs;
    uint64_t start, prev, prev_size;
    bool open, cut_after;
} bbv_warp;

static ks_status close_run(bbv_warp *w, ks_error *err)
{
    if (!w->open)
        return KS_OK;
    w->open = false;
    uint64_t *count;
    ks_status st = trace_pair_map_get(w->runs, w->start, w->prev, (void **)&count, NULL, err);
    if (st == KS_OK)
        ++*count;
    return st;
}

static ks_status bbv_record(void *ctx, const unsigned char *record, ks_error *err)
{
    bbv_warp *w = ctx;
    uint64_t pc = le64(record + MACSIM_RECORD_PC);
    uint64_t size = record[MACSIM_RECORD_SIZE] ? record[MACSIM_RECORD_SIZE] : 16;
    if (w->open && (w->cut_after || pc != w->prev + w->prev_size)) {
        ks_status st = close_run(w, err);
        if (st != KS_OK)
            return st;
    }
    if (!w->open) {
        w->open = true;
        w->start = pc;
    }
    w->prev = pc;
    w->prev_size = size;
    w->cut_after = record[MACSIM_RECORD_CF_TYPE] != 0;
    return KS_OK;
}

ks_status ks_macsim_set_bbv(const ks_macsim_set *s, size_t i, ks_trace_bbv *out,
                            ks_error *err)
{
    memset(out, 0, sizeof *out);
    if (i >= s->count)
        return ks_error_set(err, KS_ERR_USAGE, s->config_path, 0,
                            "launch %zu does not exist (the list has %zu)", i, s->count);
    const ks_macsim_launch *l = &s->launches[i];
    trace_pair_map runs;
    trace_pair_map_init(&runs, sizeof(uint64_t));
    ks_status st = KS_OK;
    for (uint64_t w = 0; w < l->warps && st == KS_OK; w++) {
        bbv_warp state = {&runs, 0, 0, 0, false, false};
        st = read_records(l, l->warp_ids[w], UINT64_MAX, bbv_record, &state, err);
        if (st == KS_OK)
            st = close_run(&state, err);
    }
    if (st == KS_OK)
        st = trace_bbv_from_runs(&runs, out, err);
    trace_pair_map_free(&runs);
    return st;
}

/* -------------------------------------------------------------- profile */

ks_status ks_macsim_set_profile(const ks_macsim_set *s, ks_profile **out, ks_error *err)
{
    *out = NULL;
    ks_profile *p = ks_profile_new();
    if (!p)
        return ks_error_set(err, KS_ERR_NOMEM, s->dir, 0, "out of memory");
    ks_status st = KS_OK;
    for (size_t i = 0; i < s->count && st == KS_OK; i++) {
        const ks_macsim_launch *l = &s->launches[i];
        uint32_t id;
        if ((st = ks_profile_intern(p, l->name, strlen(l->name), &id, err)) != KS_OK)
            break;
        ks_invocation inv;
        ks_invocation_init(&inv);
        inv.name_id = id;
        /* without kernel_names.txt the trace gives only counts: the blocks
         * and the threads of a block (warps x 32) in one dimension each
         * (ks_profile_check_aligned compares such dims by their products) */
        uint32_t grid[3] = {(uint32_t)l->blocks, 1, 1};
        uint32_t block[3] = {(uint32_t)(32 * l->warps_per_block), 1, 1};
        inv.grid = l->has_dims ? l->grid : grid;
        inv.block = l->has_dims ? l->block : block;
        st = ks_profile_append(p, &inv, err);
    }
    static const char *const names[] = {"smsp__inst_executed.sum", "launch__grid_size",
                                        "launch__thread_count", "warps"};
    for (int m = 0; m < 4 && st == KS_OK; m++) {
        ks_metric_column *col;
        if ((st = ks_profile_metric(p, names[m], &col, err)) != KS_OK)
            break;
        for (size_t i = 0; i < s->count; i++) {
            const ks_macsim_launch *l = &s->launches[i];
            double threads = l->has_dims ? (double)l->block[0] * l->block[1] * l->block[2]
                                         : 32.0 * (double)l->warps_per_block;
            double blocks = l->has_dims ? (double)l->grid[0] * l->grid[1] * l->grid[2]
                                        : (double)l->blocks;
            col->values[i] = m == 0   ? (double)l->insts
                             : m == 1 ? blocks
                             : m == 2 ? blocks * threads
                                      : (double)l->warps;
        }
    }
    return trace_profile_finish(p, st, "macsim-traces", s->dir, s->list_xxh128, s->list_bytes,
                                out);
}
