/*
 * path.c - file names built from a folder and a name, shared by the job
 * engine, the trace-set reader and the Accel-Sim export; and the one check
 * every command makes before writing: an output that is, lies inside, or
 * holds one of its inputs is refused (ks_path_check_output), comparing
 * resolved paths and, for the parts that exist, device and inode, so that
 * links, hard links, bind mounts and '..' do not hide an input.  An input
 * folder's links count as inputs too: a MacSim trace folder is a list and
 * a link per launch to a kernel folder elsewhere, so writing to
 * KernelN/trace.txt (or into a link's target by its real name) would
 * overwrite a trace that no path under the folder names as text.
 */
#include "internal.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *ks_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (!s)
        return NULL;
    memcpy(s, dir, a);
    size_t k = a;
    if (a > 0 && dir[a - 1] != '/') /* "out/" stays "out/x", not "out//x" */
        s[k++] = '/';
    memcpy(s + k, name, b + 1);
    return s;
}

/* ------------------------------------------------ outputs against inputs */

/* Components of a path that does not exist (yet), kept as text. */
typedef struct lexical {
    char *text; /* "a/b/c" without leading slash */
    size_t len;
} lexical;

static bool lexical_push(lexical *l, const char *comp, size_t n)
{
    char *t = realloc(l->text, l->len + n + 2);
    if (!t)
        return false;
    l->text = t;
    if (l->len)
        t[l->len++] = '/';
    memcpy(t + l->len, comp, n);
    l->len += n;
    t[l->len] = '\0';
    return true;
}

static void lexical_pop(lexical *l)
{
    while (l->len > 0 && l->text[l->len - 1] != '/')
        l->len--;
    if (l->len > 0)
        l->len--; /* the slash */
    if (l->text)
        l->text[l->len] = '\0';
}

/* base (absolute, canonical) with its last component removed, in place */
static void parent_in_place(char *base)
{
    char *slash = strrchr(base, '/');
    if (slash == base)
        base[1] = '\0';
    else if (slash)
        *slash = '\0';
}

static char *resolve_depth(const char *path, int depth);

/* cand (absolute, existing entry) resolved: realpath, or for a link whose
 * target does not exist yet, the target resolved in turn. */
static char *resolve_entry(const char *cand, int depth)
{
    char *r = realpath(cand, NULL);
    if (r || depth > 40)
        return r;
    char target[PATH_MAX];
    ssize_t n = readlink(cand, target, sizeof target - 1);
    if (n <= 0)
        return NULL;
    target[n] = '\0';
    if (target[0] == '/')
        return resolve_depth(target, depth + 1);
    char *dir = strdup(cand);
    if (!dir)
        return NULL;
    parent_in_place(dir);
    char *joined = ks_path_join(dir, target);
    free(dir);
    char *out = joined ? resolve_depth(joined, depth + 1) : NULL;
    free(joined);
    return out;
}

/* An absolute path for path with every link and '..' of its existing part
 * resolved and the part that does not exist yet appended as text ('..'
 * there undoes the component before it: the folders will be made plain).
 * malloc'd; NULL when out of memory or the working folder is unknown. */
static char *resolve_depth(const char *path, int depth)
{
    char *base = realpath(path[0] == '/' ? "/" : ".", NULL);
    lexical lex = {NULL, 0};
    bool ok = base != NULL;
    for (const char *p = path; ok && *p;) {
        size_t n = strcspn(p, "/");
        const char *comp = p;
        p += n;
        while (*p == '/')
            p++;
        if (n == 0 || (n == 1 && comp[0] == '.'))
            continue;
        if (n == 2 && comp[0] == '.' && comp[1] == '.') {
            if (lex.len)
                lexical_pop(&lex);
            else
                parent_in_place(base);
            continue;
        }
        if (lex.len == 0) {
            char *cand = malloc(strlen(base) + n + 2);
            if (!cand) {
                ok = false;
                break;
            }
            sprintf(cand, "%s%s%.*s", base, strcmp(base, "/") ? "/" : "", (int)n, comp);
            struct stat sb;
            char *r = lstat(cand, &sb) == 0 ? resolve_entry(cand, depth) : NULL;
            free(cand);
            if (r) {
                free(base);
                base = r;
                continue;
            }
        }
        ok = lexical_push(&lex, comp, n);
    }
    char *out = NULL;
    if (ok) {
        out = malloc(strlen(base) + lex.len + 2);
        if (out)
            sprintf(out, "%s%s%s", base, lex.len && strcmp(base, "/") ? "/" : "",
                    lex.len ? lex.text : "");
    }
    free(base);
    free(lex.text);
    return out;
}

char *ks_path_resolve(const char *path) { return resolve_depth(path, 0); }

/* Whether the file at resolved path a, or one of the folders above it
 * (itself excluded unless self), is the file with st's device and inode. */
static bool under(const char *a, const struct stat *st, bool self)
{
    char *buf = strdup(a);
    bool found = false;
    if (!buf)
        return false;
    if (!self)
        parent_in_place(buf);
    for (;;) {
        struct stat sb;
        if (stat(buf, &sb) == 0 && sb.st_dev == st->st_dev && sb.st_ino == st->st_ino) {
            found = true;
            break;
        }
        if (strcmp(buf, "/") == 0)
            break;
        parent_in_place(buf);
    }
    free(buf);
    return found;
}

/* a's text is b's or lies inside it ("/x/y" in "/x", not "/xy") */
static bool text_under(const char *a, const char *b)
{
    size_t n = strlen(b);
    return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' || strcmp(b, "/") == 0);
}

ks_status ks_path_relation(const char *a, const char *b, ks_path_rel *rel, ks_error *err)
{
    *rel = KS_PATH_APART;
    char *ra = ks_path_resolve(a), *rb = ks_path_resolve(b);
    if (!ra || !rb) {
        free(ra);
        free(rb);
        return ks_error_set(err, KS_ERR_NOMEM, a, 0, "cannot resolve the path");
    }
    struct stat sa, sb;
    bool ea = stat(ra, &sa) == 0, eb = stat(rb, &sb) == 0;
    if (strcmp(ra, rb) == 0 || (ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino))
        *rel = KS_PATH_SAME;
    else if ((eb && S_ISDIR(sb.st_mode) && under(ra, &sb, false)) || text_under(ra, rb))
        *rel = KS_PATH_A_INSIDE_B;
    else if ((ea && S_ISDIR(sa.st_mode) && under(rb, &sa, false)) || text_under(rb, ra))
        *rel = KS_PATH_B_INSIDE_A;
    free(ra);
    free(rb);
    return KS_OK;
}

/* ------------------------------------------ links inside input folders */

/* What the output is, resolved once, for comparing it against every link
 * found inside an input folder (there may be a million). */
typedef struct link_guard {
    const char *output; /* as given, for messages */
    char *resolved;     /* absolute, links resolved */
    struct stat *up;    /* the output (if it exists) and each existing folder above it */
    size_t up_count;
    bool exists;        /* up[0] is the output itself */
    struct stat *seen;  /* folders walked, against link cycles */
    size_t seen_count, seen_cap;
    size_t budget;      /* entries left to look at */
} link_guard;

/* A walk looks at no more entries than this (a trace folder of a million
 * launches is far below) nor deeper than this: an input folder is a trace
 * folder or a run folder, not a file system. */
enum { GUARD_ENTRIES = 4u << 20, GUARD_DEPTH = 32 };

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static ks_status guard_init(link_guard *g, const char *output, ks_error *err)
{
    memset(g, 0, sizeof *g);
    g->output = output;
    g->budget = GUARD_ENTRIES;
    g->resolved = ks_path_resolve(output);
    char *buf = g->resolved ? strdup(g->resolved) : NULL;
    if (!buf)
        return ks_error_set(err, KS_ERR_NOMEM, output, 0, "cannot resolve the path");
    g->exists = stat(buf, &(struct stat){0}) == 0;
    for (;;) {
        struct stat sb;
        if (stat(buf, &sb) == 0) {
            struct stat *t = realloc(g->up, (g->up_count + 1) * sizeof *t);
            if (!t) {
                free(buf);
                return ks_error_set(err, KS_ERR_NOMEM, output, 0, "out of memory");
            }
            g->up = t;
            g->up[g->up_count++] = sb;
        }
        if (strcmp(buf, "/") == 0)
            break;
        parent_in_place(buf);
    }
    free(buf);
    return KS_OK;
}

static void guard_free(link_guard *g)
{
    free(g->resolved);
    free(g->up);
    free(g->seen);
}

/* Whether folder st was walked already; if not, it is now. */
static bool guard_seen(link_guard *g, const struct stat *st)
{
    for (size_t i = 0; i < g->seen_count; i++)
        if (same_file(&g->seen[i], st))
            return true;
    if (g->seen_count == g->seen_cap) {
        size_t cap = g->seen_cap ? 2 * g->seen_cap : 16;
        struct stat *t = realloc(g->seen, cap * sizeof *t);
        if (!t)
            return true; /* out of memory: walk no further */
        g->seen = t;
        g->seen_cap = cap;
    }
    g->seen[g->seen_count++] = *st;
    return false;
}

/* The output against the link at path (inside the input folder input). */
static ks_status guard_link(const link_guard *g, const char *path, const char *input,
                            ks_error *err)
{
    char *target = ks_path_resolve(path);
    if (!target)
        return ks_error_set(err, KS_ERR_NOMEM, path, 0, "cannot resolve the path");
    struct stat st;
    bool exists = stat(target, &st) == 0;
    const char *how = NULL;
    if (strcmp(g->resolved, target) == 0 || (exists && g->exists && same_file(&st, &g->up[0])))
        how = "is";
    else if (text_under(g->resolved, target))
        how = "lies inside";
    else if (text_under(target, g->resolved))
        how = "holds";
    else if (exists && S_ISDIR(st.st_mode))
        for (size_t i = g->exists ? 1 : 0; i < g->up_count && !how; i++)
            if (same_file(&st, &g->up[i]))
                how = "lies inside";
    ks_status status = KS_OK;
    if (how)
        status = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "output %s %s %s, the target of the link %s in the input "
                              "folder %s: refusing to write %s an input",
                              g->output, how, target, path, input,
                              strcmp(how, "holds") == 0 ? "over" : "into");
    free(target);
    return status;
}

/* Every link in folder dir (and in the folders below it and behind its
 * links) against the output. */
static ks_status guard_walk(link_guard *g, const char *dir, const char *input, int depth,
                            ks_error *err)
{
    struct stat ds;
    if (depth > GUARD_DEPTH || stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode) ||
        guard_seen(g, &ds))
        return KS_OK;
    DIR *d = opendir(dir);
    if (!d)
        return KS_OK; /* unreadable: nothing the command reads either */
    ks_status st = KS_OK;
    struct dirent *e;
    while (st == KS_OK && g->budget > 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        g->budget--;
        char *path = ks_path_join(dir, e->d_name);
        if (!path) {
            st = ks_error_set(err, KS_ERR_NOMEM, dir, 0, "out of memory");
            break;
        }
        struct stat sb;
        if (lstat(path, &sb) == 0) {
            if (S_ISLNK(sb.st_mode))
                st = guard_link(g, path, input, err);
            if (st == KS_OK && (S_ISLNK(sb.st_mode) || S_ISDIR(sb.st_mode)))
                st = guard_walk(g, path, input, depth + 1, err);
        }
        free(path);
    }
    closedir(d);
    return st;
}

ks_status ks_path_check_output(const char *output, const char *const *inputs, size_t count,
                               ks_error *err)
{
    if (!output || strcmp(output, "-") == 0)
        return KS_OK;
    struct stat so;
    if (stat(output, &so) == 0 && !S_ISREG(so.st_mode) && !S_ISDIR(so.st_mode))
        return KS_OK; /* a device, a FIFO: written in place, never replaced */
    link_guard g;
    ks_status st = guard_init(&g, output, err);
    for (size_t i = 0; st == KS_OK && i < count; i++) {
        const char *in = inputs[i];
        if (!in || !*in || strcmp(in, "-") == 0)
            continue;
        struct stat si;
        bool in_exists = stat(in, &si) == 0;
        if (in_exists && !S_ISREG(si.st_mode) && !S_ISDIR(si.st_mode))
            continue; /* standard input, a pipe: nothing to overwrite */
        ks_path_rel rel;
        st = ks_path_relation(output, in, &rel, err);
        if (st != KS_OK)
            break;
        switch (rel) {
        case KS_PATH_APART:
            break;
        case KS_PATH_SAME:
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "output %s is the input %s: refusing to overwrite it", output, in);
            break;
        case KS_PATH_A_INSIDE_B:
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "output %s lies inside the input folder %s: refusing to "
                              "write into an input",
                              output, in);
            break;
        case KS_PATH_B_INSIDE_A:
            st = ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                              "output folder %s holds the input %s: refusing to write "
                              "into it",
                              output, in);
            break;
        }
        if (st == KS_OK && in_exists && S_ISDIR(si.st_mode))
            st = guard_walk(&g, in, in, 0, err);
    }
    guard_free(&g);
    return st;
}
