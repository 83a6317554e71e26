/* csv.c - CSV field splitting and the cell parsers every CSV reader shares. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* First ',' in [p, end), or end.  Eight bytes at a time (the classic
 * "has zero byte" test on x ^ ",,,,,,,,"), since splitting rows was a fifth
 * of the time to read a large nsys export; memchr for long cells. */
static char *find_comma(char *p, char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    const uint64_t commas = ones * (uint64_t)',';
    for (int words = 0; end - p >= 8; words++) {
        if (words == 4) {
            char *c = memchr(p, ',', (size_t)(end - p));
            return c ? c : end;
        }
        uint64_t x;
        memcpy(&x, p, 8);
        x ^= commas;
        uint64_t hit = (x - ones) & ~x & highs;
        if (hit)
            return p + (__builtin_ctzll(hit) >> 3); /* little-endian: lowest byte first */
        p += 8;
    }
#endif
    while (p < end && *p != ',')
        p++;
    return p;
}

int ks_csv_split(char *line, size_t len, char **fields, int max)
{
    int count = 0;
    char *p = line, *end = line + len;
    for (;;) {
        char *field, *out;
        /* a quoted field may be preceded by spaces (hand-edited files) */
        char *q = p;
        while (q < end && *q == ' ')
            q++;
        if (q < end && *q == '"') {
            /* the field starts after the quote; text moves only after a
             * doubled quote, so a long name is never copied */
            field = out = p = q + 1;
            for (;;) {
                char *quote = memchr(p, '"', (size_t)(end - p));
                if (!quote)
                    return -1;
                size_t run = (size_t)(quote - p);
                if (out != p)
                    memmove(out, p, run);
                out += run;
                p = quote + 1;
                if (p < end && *p == '"') { /* doubled quote */
                    *out++ = '"';
                    p++;
                    continue;
                }
                break;
            }
            /* text after the closing quote up to the comma is kept */
            while (p < end && *p != ',')
                *out++ = *p++;
        } else {
            /* most unquoted cells are short numbers, where a plain loop beats
             * a memchr call; an unquoted kernel name is long, where memchr's
             * vector scan wins */
            field = p;
            p = find_comma(p, end);
            out = p;
        }
        bool more = p < end && *p == ',';
        *out = '\0';
        if (count < max)
            fields[count] = field;
        count++;
        if (!more)
            break;
        p++;
    }
    return count;
}

char *ks_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

int ks_csv_find(char *const *fields, int count, const char *name)
{
    for (int i = 0; i < count; i++) {
        const char *f = fields[i];
        while (*f == ' ')
            f++;
        size_t n = strlen(f);
        while (n > 0 && f[n - 1] == ' ')
            n--;
        if (n == strlen(name) && strncmp(f, name, n) == 0)
            return i;
    }
    return -1;
}

/* Copies s without spaces and thousands separators into buf.  A comma is a
 * thousands separator only between digits with exactly three after it. */
static bool normalise_number(const char *s, char *buf, size_t size, bool *missing)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *missing = false;
    if (n == 0 || (n == 3 && strncasecmp(s, "n/a", 3) == 0) ||
        (n == 1 && s[0] == '-')) {
        *missing = true;
        return true;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ',') {
            size_t digits = 0;
            while (i + 1 + digits < n && isdigit((unsigned char)s[i + 1 + digits]))
                digits++;
            if (i == 0 || !isdigit((unsigned char)s[i - 1]) || digits < 3)
                return false;
            continue;
        }
        if (o + 1 >= size)
            return false;
        buf[o++] = s[i];
    }
    buf[o] = '\0';
    return true;
}

bool ks_parse_i64(const char *s, int64_t *v, bool *missing)
{
    /* fast path: optional spaces, then only digits (nearly every cell) */
    const char *d = s;
    while (*d == ' ')
        d++;
    if (*d >= '0' && *d <= '9') {
        uint64_t x = 0;
        int digits = 0;
        while (*d >= '0' && *d <= '9' && digits < 18) {
            x = x * 10 + (uint64_t)(*d++ - '0');
            digits++;
        }
        const char *e = d;
        while (*e == ' ')
            e++;
        if (*e == '\0') {
            *missing = false;
            *v = (int64_t)x;
            return true;
        }
    }
    char buf[64];
    if (!normalise_number(s, buf, sizeof buf, missing))
        return false;
    if (*missing)
        return true;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (*end == '.') {
        /* "123.0" is an integer in a float column; "123.5" is not */
        char *q = end + 1;
        while (*q == '0')
            q++;
        if (*q != '\0')
            return false;
        end = q;
    }
    if (end == buf || *end != '\0' || errno == ERANGE)
        return false;
    *v = x;
    return true;
}

bool ks_parse_double(const char *s, double *v, bool *missing)
{
    char buf[96];
    if (!normalise_number(s, buf, sizeof buf, missing))
        return false;
    if (*missing)
        return true;
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (end == buf || *end != '\0' || errno == ERANGE || !isfinite(x))
        return false;
    *v = x;
    return true;
}

bool ks_parse_dim3(const char *s, uint32_t out[3])
{
    int k = 0;
    const char *p = s;
    while (*p && k < 3) {
        while (*p && !(*p >= '0' && *p <= '9')) {
            if (*p == '-')
                return false;
            p++;
        }
        if (!*p)
            break;
        uint64_t x = 0;
        while (*p >= '0' && *p <= '9') {
            x = x * 10 + (uint64_t)(*p++ - '0');
            if (x > UINT32_MAX)
                return false;
        }
        out[k++] = (uint32_t)x;
    }
    while (*p == ' ' || *p == ')' || *p == ']')
        p++;
    if (*p != '\0')
        return false;
    if (k == 1) { /* a bare count is x only */
        out[1] = out[2] = 1;
        k = 3;
    }
    return k == 3;
}

bool ks_is_memcpy_name(const char *name)
{
    while (*name == ' ')
        name++;
    return strncmp(name, "[CUDA memcpy", 12) == 0 || strncmp(name, "[CUDA memset", 12) == 0 ||
           strncmp(name, "[CUDA Unified Memory", 20) == 0 || strncmp(name, "[CUDA mem", 9) == 0;
}

ks_status ks_csv_read_header(ks_input *in, const char *anchor, const char *const *required,
                             char **fields, int max, int *count, ks_error *err)
{
    const char *path = ks_input_path(in);
    for (;;) {
        char *line;
        size_t len;
        ks_status st = ks_input_getline(in, &line, &len, NULL, err);
        if (st != KS_OK)
            return st;
        if (!line)
            return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                                "no header line with a '%s' column found", anchor);
        if (!strstr(line, anchor))
            continue;
        int n = ks_csv_split(line, len, fields, max);
        if (n < 0 || ks_csv_find(fields, n < max ? n : max, anchor) < 0)
            continue; /* the anchor text inside a preamble sentence */
        if (n > max)
            return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                                "header has %d columns; at most %d are supported", n, max);
        for (size_t i = 0; required && required[i]; i++)
            if (ks_csv_find(fields, n, required[i]) < 0)
                return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                                    "required column '%s' is missing from the header",
                                    required[i]);
        *count = n;
        return KS_OK;
    }
}
