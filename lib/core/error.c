/* error.c - the error object every fallible function fills. */
#include "internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

ks_status ks_error_set(ks_error *err, ks_status status, const char *file, long line,
                       const char *fmt, ...)
{
    if (!err)
        return status;
    err->status = status;
    err->line = line;
    err->column = 0;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

void ks_error_clear(ks_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

void ks_error_format(const ks_error *err, char *buf, size_t size)
{
    if (err->file[0] && err->line > 0 && err->column > 0)
        snprintf(buf, size, "%s:%ld:%ld: %s", err->file, err->line, err->column,
                 err->message);
    else if (err->file[0] && err->line > 0)
        snprintf(buf, size, "%s:%ld: %s", err->file, err->line, err->message);
    else if (err->file[0])
        snprintf(buf, size, "%s: %s", err->file, err->message);
    else
        snprintf(buf, size, "%s", err->message);
}

ks_status ks_grow(void **ptr, size_t *capacity, size_t need, size_t elem, ks_error *err)
{
    if (need <= *capacity)
        return KS_OK;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / elem)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "size overflow");
        cap *= 2;
    }
    void *q = realloc(*ptr, cap * elem);
    if (!q)
        return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory (%zu bytes)",
                            cap * elem);
    *ptr = q;
    *capacity = cap;
    return KS_OK;
}

bool ks_resize_columns(void **const cols[], const size_t row_bytes[], size_t n, size_t rows)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        void *q = realloc(*cols[i], rows * row_bytes[i]);
        if (q)
            *cols[i] = q;
        ok = ok && q;
    }
    return ok;
}

void *ks_push_zeroed(void **ptr, size_t *count, size_t *capacity, size_t elem, ks_error *err)
{
    if (ks_grow(ptr, capacity, *count + 1, elem, err) != KS_OK)
        return NULL;
    char *e = (char *)*ptr + (*count)++ * elem;
    memset(e, 0, elem);
    return e;
}
