/* csv.c - CSV field splitting and the cell parsers every CSV reader shares. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

ks_status ks_csv_unclosed_quote(const char *path, long line, ks_error *err)
{
    return ks_error_set(err, KS_ERR_FORMAT, path, line,
                        "a quoted field is not closed on this line: a field may not hold a "
                        "line break (one row per line), and a stray quote is refused");
}

bool ks_csv_fill_short_row(char **fields, int count, int header_count, int needed, char *empty)
{
    if (count == header_count)
        return true;
    if (count < 0 || count > header_count || count < needed)
        return false;
    for (int i = count; i < header_count; i++)
        fields[i] = empty;
    return true;
}

ks_status ks_csv_split_grow(char *line, size_t len, char ***fields, int *capacity, int *count,
                            const char *path, long line_number, ks_error *err)
{
    /* a line has at most one field more than it has commas */
    size_t commas = 0;
    for (const char *c = line; (c = memchr(c, ',', (size_t)(line + len - c))) != NULL; c++)
        commas++;
    if (commas + 1 > (size_t)*capacity) {
        if (commas + 1 > INT32_MAX)
            return ks_error_set(err, KS_ERR_FORMAT, path, line_number,
                                "line has too many fields");
        size_t cap = (size_t)*capacity;
        ks_status st = ks_grow((void **)fields, &cap, commas + 1, sizeof **fields, err);
        if (st != KS_OK)
            return st;
        *capacity = (int)(cap > INT32_MAX ? INT32_MAX : cap);
    }
    *count = ks_csv_split(line, len, *fields, *capacity);
    return KS_OK;
}

/* Longest line the fast path takes; longer ones (kernel names of several
 * KB exist) are split the ordinary way. */
enum { SCAN_MAX_LINE = 4096, SCAN_WORDS = SCAN_MAX_LINE / 64 };

/* Bit i of comma[i / 64] is set when line[i] is ',' (likewise quote), for
 * the whole line at once: finding each cell's end byte by byte mispredicted
 * a branch at nearly every cell, which made splitting the largest cost of
 * reading an nsys export. */
#if defined(__SSE2__)
static inline void masks64(const char *s, uint64_t *comma, uint64_t *quote)
{
    const __m128i vc = _mm_set1_epi8(','), vq = _mm_set1_epi8('"');
    const __m128i *v = (const __m128i *)(const void *)s;
    __m128i x0 = _mm_loadu_si128(v), x1 = _mm_loadu_si128(v + 1);
    __m128i x2 = _mm_loadu_si128(v + 2), x3 = _mm_loadu_si128(v + 3);
#define MASK(x, c) ((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8((x), (c))))
    *comma = MASK(x0, vc) | MASK(x1, vc) << 16 | MASK(x2, vc) << 32 | MASK(x3, vc) << 48;
    *quote = MASK(x0, vq) | MASK(x1, vq) << 16 | MASK(x2, vq) << 32 | MASK(x3, vq) << 48;
#undef MASK
}
#else
static inline void masks64(const char *s, uint64_t *comma, uint64_t *quote)
{
    uint64_t c = 0, q = 0;
    for (int i = 0; i < 64; i++) {
        c |= (uint64_t)(s[i] == ',') << i;
        q |= (uint64_t)(s[i] == '"') << i;
    }
    *comma = c;
    *quote = q;
}
#endif

static void build_masks(const char *line, size_t len, uint64_t *comma, uint64_t *quote)
{
    size_t w = 0;
    for (; (w + 1) * 64 <= len; w++)
        masks64(line + 64 * w, &comma[w], &quote[w]);
    size_t rest = len - 64 * w;
    if (rest == 0)
        return;
    if (len >= 64) {
        /* the line's last 64 bytes, moved down: never reads past the line */
        uint64_t c, q;
        masks64(line + len - 64, &c, &q);
        comma[w] = c >> (64 - rest);
        quote[w] = q >> (64 - rest);
    } else {
        char tmp[64] = {0};
        memcpy(tmp, line, len);
        masks64(tmp, &comma[w], &quote[w]);
    }
}

/* Walks the set bits of a mask in order. */
typedef struct bit_walk {
    const uint64_t *m;
    size_t words, w;
    uint64_t bits;
} bit_walk;

static inline size_t bit_next(bit_walk *it, size_t none)
{
    while (!it->bits) {
        if (++it->w >= it->words)
            return none;
        it->bits = it->m[it->w];
    }
    size_t i = it->w * 64 + (size_t)__builtin_ctzll(it->bits);
    it->bits &= it->bits - 1;
    return i;
}

/* Mask of bits [from, to) within word w. */
static uint64_t range_in_word(size_t w, size_t from, size_t to)
{
    size_t lo = w * 64, hi = lo + 64;
    if (from > lo)
        lo = from;
    if (to < hi)
        hi = to;
    if (lo >= hi)
        return 0;
    uint64_t below_hi = hi - w * 64 == 64 ? ~0ULL : (1ULL << (hi - w * 64)) - 1;
    return below_hi & (~0ULL << (lo - w * 64));
}

static void clear_bits(uint64_t *m, size_t from, size_t to)
{
    for (size_t w = from / 64; w * 64 < to; w++)
        m[w] &= ~range_in_word(w, from, to);
}

/* "  123  " in [p, end): the value and true; empty: *missing.  The forms
 * ks_parse_i64's own fast path takes (spaces, at most 18 digits, spaces),
 * so the value is the same. */
static bool scan_int(const char *p, const char *end, int64_t *v, bool *missing)
{
    *missing = p == end;
    *v = 0;
    if (*missing)
        return true;
    while (p < end && *p == ' ')
        p++;
    uint64_t x = 0;
    int digits = 0;
    while (p < end && (unsigned char)(*p - '0') < 10) {
        if (++digits > 18)
            return false;
        x = x * 10 + (uint64_t)(*p++ - '0');
    }
    while (p < end && *p == ' ')
        p++;
    *v = (int64_t)x;
    return digits > 0 && p == end;
}

/* "  8192    1    1" in [p, end): three numbers below 2^32 separated by
 * spaces (what ks_parse_dim3 reads the same way). */
static bool scan_dim3(const char *p, const char *end, uint32_t out[3])
{
    for (int k = 0; k < 3; k++) {
        const char *start = p;
        while (p < end && *p == ' ')
            p++;
        if (k > 0 && p == start)
            return false;
        uint64_t x = 0;
        int digits = 0;
        while (p < end && (unsigned char)(*p - '0') < 10) {
            if (++digits > 10)
                return false;
            x = x * 10 + (uint64_t)(*p++ - '0');
        }
        if (digits == 0 || x > UINT32_MAX)
            return false;
        out[k] = (uint32_t)x;
    }
    while (p < end && *p == ' ')
        p++;
    return p == end;
}

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KS_SCAN_VECTOR 1
/* The same two forms without a branch per character: the loops above
 * mispredicted at the end of nearly every run of digits or spaces, and the
 * grid and block cells ("8192    1    1") are six such runs each.  A cell of
 * at most 16 bytes is classified in one 16-byte compare (which bytes are
 * digits, which are spaces), and each run of digits is converted eight at
 * a time (the SWAR conversion simdjson and fast_float use). */

/* Eight ASCII digits, most significant first (lowest address). */
static inline uint64_t eight_digits(uint64_t v)
{
    const uint64_t mask = 0x000000FF000000FFULL;
    const uint64_t mul1 = 100 + (1000000ULL << 32), mul2 = 1 + (10000ULL << 32);
    v -= 0x3030303030303030ULL;
    v = v * 10 + (v >> 8);
    return ((v & mask) * mul1 + ((v >> 16) & mask) * mul2) >> 32;
}

/* nd (1 to 8) digits at p, which has 8 readable bytes: shifted up and
 * padded with '0' in front to make eight. */
static inline uint64_t digits_value(const char *p, unsigned nd)
{
    uint64_t v;
    memcpy(&v, p, 8);
    if (nd < 8)
        v = v << (8 * (8 - nd)) | 0x3030303030303030ULL >> (8 * nd);
    return eight_digits(v);
}

/* Which of the n (at most 16) bytes at p are digits and which are spaces;
 * p has 16 readable bytes.  The bytes are copied to buf (32 bytes, zero
 * past 16) so that digits_value may read eight from any of them. */
static inline void classify16(const char *p, size_t n, char *buf, unsigned *digits,
                              unsigned *spaces)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i d = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                              _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    __m128i s = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
    unsigned cell = (1u << n) - 1;
    *digits = (unsigned)_mm_movemask_epi8(d) & cell;
    *spaces = (unsigned)_mm_movemask_epi8(s) & cell;
    _mm_storeu_si128((__m128i *)(void *)buf, x);
    _mm_storeu_si128((__m128i *)(void *)(buf + 16), _mm_setzero_si128());
}

/* scan_int for a cell [p, p + n) with 16 readable bytes at p. */
static bool scan_int16(const char *p, size_t n, int64_t *v, bool *missing)
{
    char buf[32];
    unsigned digits, spaces;
    if (n == 0 || n > 16)
        return scan_int(p, p + n, v, missing);
    classify16(p, n, buf, &digits, &spaces);
    /* only spaces and one run of digits (no popcount: not in baseline x86-64) */
    unsigned first = digits ? (unsigned)__builtin_ctz(digits) : 0;
    unsigned nd = (unsigned)__builtin_ctz(~(digits >> first));
    if (nd == 0 || (digits | spaces) != (1u << n) - 1 || digits != ((1u << nd) - 1) << first)
        return scan_int(p, p + n, v, missing);
    uint64_t x = nd <= 8 ? digits_value(buf + first, nd)
                         : digits_value(buf + first, nd - 8) * 100000000 +
                               digits_value(buf + first + nd - 8, 8);
    *missing = false;
    *v = (int64_t)x;
    return true;
}

/* scan_dim3 for a cell [p, p + n) with 16 readable bytes at p. */
static bool scan_dim3_16(const char *p, size_t n, uint32_t out[3])
{
    char buf[32];
    unsigned digits, spaces;
    if (n > 16)
        return scan_dim3(p, p + n, out);
    classify16(p, n, buf, &digits, &spaces);
    unsigned starts = digits & ~(digits << 1); /* first digit of each number */
    if ((digits | spaces) != (1u << n) - 1)
        return scan_dim3(p, p + n, out);
    for (int k = 0; k < 3; k++) {
        if (!starts)
            return scan_dim3(p, p + n, out);
        unsigned first = (unsigned)__builtin_ctz(starts);
        starts &= starts - 1;
        unsigned nd = (unsigned)__builtin_ctz(~(digits >> first));
        if (nd > 8) /* up to 99999999: larger cannot pass 2^32 unseen */
            return scan_dim3(p, p + n, out);
        out[k] = (uint32_t)digits_value(buf + first, nd);
    }
    return starts == 0 || scan_dim3(p, p + n, out);
}
#endif

bool ks_csv_scan(const char *line, size_t len, const ks_cell_kind *kinds, int count,
                 ks_cell *cells)
{
    if (len > SCAN_MAX_LINE || len == 0)
        return false;
    uint64_t comma[SCAN_WORDS], quote[SCAN_WORDS];
    build_masks(line, len, comma, quote);
    size_t words = (len + 63) / 64;
    /* Quotes: none, or one quoted field whose quotes sit right at its
     * comma boundaries (the form nsys writes names with commas in).  Then
     * ks_csv_split would split exactly at the other commas.  Anything else
     * (doubled quotes, spaces before a quote, two quoted fields) goes the
     * slow way. */
    bit_walk quotes = {quote, words, 0, quote[0]};
    size_t q1 = bit_next(&quotes, len);
    if (q1 < len) {
        size_t q2 = bit_next(&quotes, len);
        if (q2 == len || bit_next(&quotes, len) != len)
            return false;
        if ((q1 > 0 && line[q1 - 1] != ',') || (q2 + 1 < len && line[q2 + 1] != ','))
            return false;
        clear_bits(comma, q1 + 1, q2); /* commas inside are text */
    }
    bit_walk commas = {comma, words, 0, comma[0]};
    size_t start = 0;
    for (int i = 0; i < count; i++) {
        if (start > len)
            return false; /* fewer fields than count */
        size_t stop = bit_next(&commas, len);
        const char *a = line + start, *b = line + stop;
        ks_cell *c = &cells[i];
        switch (kinds[i]) {
        case KS_CELL_SKIP:
            break;
        case KS_CELL_INT:
#ifdef KS_SCAN_VECTOR
            if (start + 16 <= len) {
                if (!scan_int16(a, (size_t)(b - a), &c->value, &c->missing))
                    return false;
                break;
            }
#endif
            if (!scan_int(a, b, &c->value, &c->missing))
                return false;
            break;
        case KS_CELL_DIM3:
#ifdef KS_SCAN_VECTOR
            if (start + 16 <= len) {
                if (!scan_dim3_16(a, (size_t)(b - a), c->dim))
                    return false;
                break;
            }
#endif
            if (!scan_dim3(a, b, c->dim))
                return false;
            break;
        case KS_CELL_TEXT:
            if (a < b && *a == '"') { /* the quoted field: b[-1] is its closing quote */
                a++;
                b--;
            }
            if (memchr(a, '\0', (size_t)(b - a)))
                return false; /* ks_trim would end the name there */
            c->text = a;
            c->len = (size_t)(b - a);
            break;
        }
        start = stop + 1;
    }
    /* exactly count fields: a comma after the last one is a longer row,
     * which the general path refuses (an unquoted comma in a name) */
    return start > len;
}

const char *ks_trim_n(const char *s, size_t *len)
{
    size_t n = *len;
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    *len = n;
    return s;
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

/* 2^64: no 64-bit counter reaches it */
#define KS_MEASURE_LIMIT 18446744073709551616.0

const char *ks_parse_decimal(const char *s, size_t len, unsigned flags, double *v)
{
    /* the syntax first: strtod alone also reads hex, inf, nan and leading
     * spaces, and stops quietly at the first byte it does not take */
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < len && s[i] == '.')
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (digits == 0)
        return "is not a number";
    if (i < len && (s[i] == 'e' || s[i] == 'E') && !(flags & KS_NUM_MEASURE)) {
        size_t e = ++i;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            e = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e)
            return "is not a number";
    }
    if (i != len)
        return "is not a number";
    char small[128], *buf = len < sizeof small ? small : malloc(len + 1);
    if (!buf)
        return "is too long";
    memcpy(buf, s, len);
    buf[len] = '\0';
    /* below the smallest double it reads as the nearest one (a subnormal or
     * 0): a valid number, whatever errno says; above the largest it is inf */
    double x = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    if (!isfinite(x))
        return "is out of range";
    if (x == 0)
        x = 0; /* "-0" */
    if ((flags & (KS_NUM_NONNEG | KS_NUM_MEASURE)) && x < 0)
        return "is negative";
    if (flags & KS_NUM_MEASURE) {
        /* a whole number is held to 2^64 exactly: 2^64 - 1 is a 64-bit
         * counter's largest value, though its nearest double is 2^64 */
        /* s is not terminated: the digits are counted within len */
        size_t k = 0;
        while (k < len && (s[k] == '+' || (s[k] >= '0' && s[k] <= '9')))
            k++;
        bool whole = k == len;
        if (whole) {
            size_t d = 0;
            while (d < len && (s[d] == '+' || s[d] == '0'))
                d++;
            static const char max[] = "18446744073709551615";
            size_t n = len - d;
            if (n > sizeof max - 1 || (n == sizeof max - 1 && memcmp(s + d, max, n) > 0))
                return "is 2^64 or more";
        } else if (x >= KS_MEASURE_LIMIT) {
            return "is 2^64 or more";
        }
    }
    *v = x;
    return NULL;
}

uint64_t ks_exact_count(const char *s, size_t len, double v)
{
    if (!(v >= KS_EXACT_COUNT))
        return 0;
    size_t i = len > 0 && s[0] == '+';
    uint64_t x = 0;
    size_t digits = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    if (i < len && s[i] == '.')
        for (i++; i < len && s[i] == '0'; i++)
            ;
    return i == len && digits > 0 ? x : 0;
}

const char *ks_measure_check(double v)
{
    if (!isfinite(v))
        return "is not a finite number";
    if (v < 0)
        return "is negative";
    if (v >= KS_MEASURE_LIMIT)
        return "is 2^64 or more";
    return NULL;
}

bool ks_parse_double(const char *s, double *v, bool *missing)
{
    char buf[96];
    if (!normalise_number(s, buf, sizeof buf, missing))
        return false;
    if (*missing)
        return true;
    return ks_parse_decimal(buf, strlen(buf), 0, v) == NULL;
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

bool ks_is_memcpy_name(const char *name, size_t len)
{
    while (len > 0 && *name == ' ') {
        name++;
        len--;
    }
    /* "[CUDA mem" covers memcpy, memset and the other memory activities */
    return (len >= 9 && memcmp(name, "[CUDA mem", 9) == 0) ||
           (len >= 20 && memcmp(name, "[CUDA Unified Memory", 20) == 0);
}

/* What every header must satisfy once split: the required columns, each
 * column once. */
static ks_status header_checks(char **fields, int n, const char *const *required,
                               const char *path, long line, ks_error *err)
{
    for (size_t i = 0; required && required[i]; i++)
        if (ks_csv_find(fields, n, required[i]) < 0)
            return ks_error_set(err, KS_ERR_FORMAT, path, line,
                                "required column '%s' is missing from the header",
                                required[i]);
    const char *twice = ks_csv_duplicate(fields, n);
    if (twice)
        return ks_error_set(err, KS_ERR_FORMAT, path, line,
                            "column '%s' appears twice in the header: which one holds "
                            "the data is unknown",
                            twice);
    return KS_OK;
}

/* The next line holding anchor as a column name, split into *fields (grown
 * when *capacity is not NULL, else at most max entries); *count = -1 at the
 * end of the input. */
static ks_status find_header_line(ks_input *in, const char *anchor, char ***fields,
                                  int *capacity, int max, int *count, ks_error *err)
{
    for (;;) {
        char *line;
        size_t len;
        ks_status st = ks_input_getline(in, &line, &len, NULL, err);
        if (st != KS_OK)
            return st;
        *count = -1;
        if (!line)
            return KS_OK;
        if (!strstr(line, anchor))
            continue;
        int n;
        if (capacity) {
            st = ks_csv_split_grow(line, len, fields, capacity, &n, ks_input_path(in),
                                   ks_input_line_number(in), err);
            if (st != KS_OK)
                return st;
            max = *capacity;
        } else {
            n = ks_csv_split(line, len, *fields, max);
        }
        if (n < 0 || ks_csv_find(*fields, n < max ? n : max, anchor) < 0)
            continue; /* the anchor text inside a preamble sentence */
        *count = n;
        return KS_OK;
    }
}

ks_status ks_csv_read_header(ks_input *in, const char *anchor, const char *const *required,
                             char **fields, int max, int *count, ks_error *err)
{
    const char *path = ks_input_path(in);
    int n;
    ks_status st = find_header_line(in, anchor, &fields, NULL, max, &n, err);
    if (st != KS_OK)
        return st;
    if (n < 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                            "no header line with a '%s' column found", anchor);
    if (n > max)
        return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                            "header has %d columns; at most %d are supported", n, max);
    if ((st = header_checks(fields, n, required, path, ks_input_line_number(in), err)))
        return st;
    *count = n;
    return KS_OK;
}

ks_status ks_csv_read_header_grow(ks_input *in, const char *anchor, const char *const *required,
                                  char ***fields, int *capacity, int *count, ks_error *err)
{
    const char *path = ks_input_path(in);
    int n;
    ks_status st = find_header_line(in, anchor, fields, capacity, 0, &n, err);
    if (st != KS_OK)
        return st;
    if (n < 0)
        return ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                            "no header line with a '%s' column found", anchor);
    if ((st = header_checks(*fields, n, required, path, ks_input_line_number(in), err)))
        return st;
    *count = n;
    return KS_OK;
}

const char *ks_csv_duplicate(char *const *fields, int count)
{
    /* headers are short (tens of columns; ncu raw pages a few hundred, checked
     * only for the columns read): the quadratic scan costs nothing */
    for (int i = 0; i < count; i++) {
        const char *a = fields[i];
        size_t la = strlen(a);
        const char *ta = ks_trim_n(a, &la);
        if (la == 0)
            continue;
        for (int j = i + 1; j < count; j++) {
            size_t lb = strlen(fields[j]);
            const char *tb = ks_trim_n(fields[j], &lb);
            if (la == lb && memcmp(ta, tb, la) == 0)
                return a;
        }
    }
    return NULL;
}
