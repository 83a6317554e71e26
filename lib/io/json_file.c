/*
 * json_file.c - reads a small JSON file whole and parses it with yajl_tree.
 */
#include "json_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static ks_status slurp(const char *path, size_t max_bytes, char **text, size_t *len,
                       ks_error *err)
{
    FILE *f;
    ks_status opened = ks_file_open_read(path, &f, err); /* a FIFO is refused */
    if (opened != KS_OK)
        return opened;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ks_status st = KS_OK;
    while (buf) {
        if (n + 1 >= cap) {
            if (cap > max_bytes) {
                st = ks_error_set(err, KS_ERR_FORMAT, path, 0,
                                  "larger than %zu bytes: not a file this command reads",
                                  max_bytes);
                break;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown)
                break;
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (!buf && st == KS_OK)
        st = ks_error_set(err, KS_ERR_NOMEM, path, 0, "out of memory");
    else if (st == KS_OK && ferror(f))
        st = ks_error_set(err, KS_ERR_IO, path, 0, "read failed: %s", strerror(errno));
    fclose(f);
    if (st != KS_OK) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return KS_OK;
}

ks_status ks_json_file_parse(const char *path, size_t max_bytes, yajl_val *root,
                             ks_error *err)
{
    *root = NULL;
    char *text = NULL;
    size_t len = 0;
    ks_status st = slurp(path, max_bytes, &text, &len, err);
    if (st != KS_OK)
        return st;
    if (strlen(text) != len) {
        free(text);
        return ks_error_set(err, KS_ERR_FORMAT, path, 0, "holds a NUL byte: not JSON");
    }
    char msg[512] = "";
    *root = yajl_tree_parse(text, msg, sizeof msg);
    free(text);
    if (*root)
        return KS_OK;
    /* yajl's message spans lines (the text, then a caret): keep the first */
    msg[strcspn(msg, "\n")] = '\0';
    return ks_error_set(err, KS_ERR_FORMAT, path, 0, "not valid JSON: %s",
                        *msg ? msg : "parse error");
}
