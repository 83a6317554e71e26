/*
 * json.c - JSON string output that is valid whatever bytes a name holds.
 *
 * Kernel names are bytes as the profiler wrote them: usually UTF-8, but a
 * trace may hold Latin-1 or cut a multi-byte character.  JSON text must be
 * UTF-8 (RFC 8259, section 8.1), so every byte that does not start a
 * well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF) is written as U+FFFD, the replacement character,
 * one per byte; every parser accepts that, and the plan's ids, not its
 * labels, are what identifies an invocation.
 */
#include "internal.h"

/* Length of the well-formed UTF-8 sequence at s (at least one byte, NUL
 * terminated), or 0 when the first byte does not start one. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    int n;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void ks_json_write_string(FILE *f, const char *text)
{
    fputc('"', f);
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            static const char short_form[] = "btn\0fr"; /* \b \t \n - \f \r */
            if (c >= '\b' && c <= '\r' && c != '\v')
                fprintf(f, "\\%c", short_form[c - '\b']);
            else
                fprintf(f, "\\u%04x", c);
            s++;
        } else {
            int n = utf8_length(s);
            if (n == 0) {
                fputs("\\ufffd", f);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            }
        }
    }
    fputc('"', f);
}
