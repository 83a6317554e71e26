/*
 * path.c - file names built from a folder and a name, shared by the job
 * engine, the trace-set reader and the Accel-Sim export; and the one check
 * every command makes before writing: an output that is, lies inside, or
 * holds one of its inputs is refused (ks_path_check_output), comparing
 * resolved paths and, for the parts that exist, device and inode, so that
 * links, hard links, bind mounts and '..' do not hide an input.
 */
#include "internal.h"

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

ks_status ks_path_check_output(const char *output, const char *const *inputs, size_t count,
                               ks_error *err)
{
    if (!output || strcmp(output, "-") == 0)
        return KS_OK;
    struct stat so;
    if (stat(output, &so) == 0 && !S_ISREG(so.st_mode) && !S_ISDIR(so.st_mode))
        return KS_OK; /* a device, a FIFO: written in place, never replaced */
    for (size_t i = 0; i < count; i++) {
        const char *in = inputs[i];
        if (!in || !*in || strcmp(in, "-") == 0)
            continue;
        struct stat si;
        if (stat(in, &si) == 0 && !S_ISREG(si.st_mode) && !S_ISDIR(si.st_mode))
            continue; /* standard input, a pipe: nothing to overwrite */
        ks_path_rel rel;
        ks_status st = ks_path_relation(output, in, &rel, err);
        if (st != KS_OK)
            return st;
        switch (rel) {
        case KS_PATH_APART:
            break;
        case KS_PATH_SAME:
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "output %s is the input %s: refusing to overwrite it", output,
                                in);
        case KS_PATH_A_INSIDE_B:
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "output %s lies inside the input folder %s: refusing to "
                                "write into an input",
                                output, in);
        case KS_PATH_B_INSIDE_A:
            return ks_error_set(err, KS_ERR_USAGE, NULL, 0,
                                "output folder %s holds the input %s: refusing to write "
                                "into it",
                                output, in);
        }
    }
    return KS_OK;
}
