/*
 * trace_rewrite.c - a copy of one post-processed Accel-Sim trace with the
 * addresses of some memory instructions mapped (trace.h).
 *
 * Every line is copied as it is but the instruction lines whose opcode the
 * caller picks and that access memory: those keep their fields up to the
 * memory width and then list their addresses in mode 0 (one per active
 * lane, in lane order, each mapped), then the fields after the addresses
 * (the immediate).  Mode 1 and 2 lists (base and stride, base and deltas)
 * are rewritten in mode 0 too, since a mapping need not keep strides.
 */
#include "trace_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The n-th whitespace-separated field of line: its start, or NULL. */
static const char *field_at(const char *line, size_t n, size_t *len)
{
    const char *p = line;
    for (size_t k = 0;; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '\r' || *p == '\n')
            return NULL;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
        if (k == n) {
            *len = (size_t)(p - s);
            return s;
        }
    }
}

ks_status ks_trace_rewrite_addresses(const char *path, FILE *out, ks_trace_map_fn map,
                                     ks_trace_pick_fn pick, void *ctx, size_t *rewritten,
                                     ks_error *err)
{
    ks_input *in;
    ks_status st = ks_input_open(path, &in, err);
    if (st != KS_OK)
        return st;
    trace_layout layout = {false, false, 0};
    uint64_t windows[2] = {0, 0};
    char *line, *copy = NULL;
    size_t len, cap = 0, n = 0;
    bool truncated, grouped = false;
    while ((st = ks_input_getline(in, &line, &len, &truncated, err)) == KS_OK && line) {
        if (truncated) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                              "line too long");
            break;
        }
        bool inst = len > 0 && line[0] != '-' && line[0] != '#' && !memchr(line, '=', len);
        size_t i = 0;
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        inst = inst && i < len;
        if (!inst) {
            /* the header's layout fields, and the block markers */
            unsigned v;
            unsigned long long base;
            if (sscanf(line, "-shmem base_addr = %llx", &base) == 1)
                windows[0] = base;
            else if (sscanf(line, "-local mem base_addr = %llx", &base) == 1)
                windows[1] = base;
            else if (sscanf(line, "-accelsim tracer version = %u", &v) == 1)
                layout.version = (int)v;
            else if (sscanf(line, "-enable lineinfo = %u", &v) == 1)
                layout.lineinfo = v == 1;
            else if (strncmp(line, "#BEGIN_TB", 9) == 0)
                grouped = true;
            fwrite(line, 1, len, out);
            fputc('\n', out);
            continue;
        }
        if (!grouped) {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                              "an instruction before any #BEGIN_TB: only post-processed "
                              "(.traceg) traces are rewritten");
            break;
        }
        if ((st = ks_grow((void **)&copy, &cap, len + 1, 1, err)) != KS_OK)
            break;
        memcpy(copy, line, len);
        copy[len] = '\0';
        ks_trace_inst ti;
        trace_line_buf buf;
        if ((st = trace_parse_line(copy, &layout, &ti, &buf, err)) != KS_OK) {
            snprintf(err->file, sizeof err->file, "%s", path);
            err->line = ks_input_line_number(in);
            break;
        }
        if (ti.mem_width == 0 || ti.naddr == 0 || !pick(ctx, ti.opcode)) {
            fwrite(line, 1, len, out);
            fputc('\n', out);
            continue;
        }
        /* the memory width's field: after [line], PC, mask, the
         * destinations, the opcode and the sources */
        size_t at = (layout.lineinfo ? 1 : 0) + 2 + 1 + ti.ndst + 1 + 1 + ti.nsrc;
        size_t flen, mlen;
        const char *mw = field_at(line, at, &flen);
        const char *mode = field_at(line, at + 1, &mlen);
        if (!mw || !mode || mlen != 1 || mode[0] < '0' || mode[0] > '2') {
            st = ks_error_set(err, KS_ERR_FORMAT, path, ks_input_line_number(in),
                              "cannot find the address list of this instruction");
            break;
        }
        size_t listed = mode[0] == '1' ? 2 : ti.naddr;
        size_t rest_len = 0;
        const char *rest = field_at(line, at + 2 + listed, &rest_len);
        fwrite(line, 1, (size_t)(mw - line) + flen, out);
        fputs(" 0", out);
        for (uint32_t a = 0; a < ti.naddr; a++)
            fprintf(out, " 0x%016llx",
                    (unsigned long long)map(ctx, ti.opcode, ti.addr[a], windows));
        if (rest) {
            fputc(' ', out);
            fwrite(rest, 1, (size_t)(line + len - rest), out);
        }
        fputc('\n', out);
        n++;
    }
    free(copy);
    ks_input_close(in);
    if (st == KS_OK && ferror(out))
        st = ks_error_set(err, KS_ERR_IO, NULL, 0, "write failed: %s", strerror(errno));
    if (rewritten)
        *rewritten = n;
    return st;
}
