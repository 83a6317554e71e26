/*
 * trace_line.c - one instruction line of an Accel-Sim trace, and the header
 * of a trace file.
 *
 * Line: [tbx tby tbz warpid] [line_num] PC mask ndst dst.. opcode nsrc src..
 * mem_width [mode addresses] [immediate].  The address modes are the
 * tracer's (util/tracer_nvbit/tracer_tool/tracer_tool.cu in accel-sim-
 * framework): 0 lists one address per active lane; 1 is base and stride,
 * written only when the active lanes form one run of consecutive lanes with a
 * constant stride (and, with no active lane, as "0x0 0"); 2 is the base then
 * one delta per further active lane, each from the previous active lane.
 * A mode-1 line whose mask has active lanes after its first run cannot come
 * from the tracer (the simulator would give those lanes address 0): it is
 * refused rather than decoded into made-up addresses.
 */
#include "trace_internal.h"

#include <stdlib.h>
#include <string.h>

/* Digit values for hex parsing; -1 for anything else.  A table rather than
 * comparisons, and no division for the overflow check: number parsing was a
 * quarter of the time to stream a trace (bench/bench_trace.c). */
static const signed char hex_value[256] = {
    ['0'] = 0,  ['1'] = 1,  ['2'] = 2,  ['3'] = 3,  ['4'] = 4,  ['5'] = 5,  ['6'] = 6,
    ['7'] = 7,  ['8'] = 8,  ['9'] = 9,  ['a'] = 10, ['b'] = 11, ['c'] = 12, ['d'] = 13,
    ['e'] = 14, ['f'] = 15, ['A'] = 10, ['B'] = 11, ['C'] = 12, ['D'] = 13, ['E'] = 14,
    ['F'] = 15,
};

static bool is_hex_digit(unsigned char c)
{
    return hex_value[c] != 0 || c == '0';
}

static bool parse_hex(const char *s, size_t len, uint64_t *v)
{
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        len -= 2;
    }
    if (len == 0)
        return false;
    while (len > 1 && s[0] == '0') { /* leading zeros do not count against 16 digits */
        s++;
        len--;
    }
    if (len > 16)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_hex_digit(c))
            return false;
        x = x << 4 | (uint64_t)hex_value[c];
    }
    *v = x;
    return true;
}

static bool parse_dec(const char *s, size_t len, uint64_t *v)
{
    if (len == 0 || len > 20)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9 || __builtin_mul_overflow(x, 10u, &x) || __builtin_add_overflow(x, d, &x))
            return false;
    }
    *v = x;
    return true;
}

bool trace_parse_u64(const char *s, size_t len, int base, uint64_t *v)
{
    return base == 16 ? parse_hex(s, len, v) : parse_dec(s, len, v);
}

bool trace_parse_i64(const char *s, size_t len, int64_t *v)
{
    bool neg = len > 0 && s[0] == '-';
    uint64_t u;
    if (!trace_parse_u64(s + neg, len - neg, 10, &u))
        return false;
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
        return false;
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

uint16_t ks_trace_reg_parse(const char *text, size_t len)
{
    /* prefix, its zero register's name, base code, count */
    static const struct {
        const char *prefix;
        size_t plen;
        uint16_t base, count;
    } kinds[] = {{"UR", 2, 256, 64}, {"UP", 2, 328, 8}, {"R", 1, 0, 256}, {"P", 1, 320, 8}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t pl = kinds[k].plen;
        if (len <= pl || memcmp(text, kinds[k].prefix, pl) != 0)
            continue;
        const char *rest = text + pl;
        size_t rl = len - pl;
        /* RZ, URZ: the zero register is the last; PT, UPT: true is the last */
        if (rl == 1 && (rest[0] == 'Z' || rest[0] == 'T'))
            return (rest[0] == 'Z') == (kinds[k].count > 8)
                       ? (uint16_t)(kinds[k].base + kinds[k].count - 1)
                       : 0xFFFF;
        uint64_t n;
        if (rl > 3 || !trace_parse_u64(rest, rl, 10, &n) || n >= kinds[k].count)
            return 0xFFFF;
        return (uint16_t)(kinds[k].base + n);
    }
    return 0xFFFF;
}

/* A cursor over the space-separated fields of one line. */
typedef struct fields {
    char *p;
} fields;

static bool next_field(fields *f, const char **tok, size_t *len)
{
    char *p = f->p;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0') {
        f->p = p;
        return false;
    }
    char *start = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    *tok = start;
    *len = (size_t)(p - start);
    f->p = p;
    return true;
}

static ks_status bad(ks_error *err, const char *what, const char *tok, size_t len)
{
    if (!tok)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "instruction line ends before its %s",
                            what);
    return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad %s field '%.*s'", what,
                        (int)(len > 40 ? 40 : len), tok);
}

static ks_status field_u64(fields *f, int base, uint64_t max, const char *what, uint64_t *v,
                           ks_error *err)
{
    const char *tok = NULL;
    size_t len = 0;
    if (!next_field(f, &tok, &len))
        return bad(err, what, NULL, 0);
    if (!trace_parse_u64(tok, len, base, v) || *v > max)
        return bad(err, what, tok, len);
    return KS_OK;
}

static ks_status field_i64(fields *f, const char *what, int64_t *v, ks_error *err)
{
    const char *tok = NULL;
    size_t len = 0;
    if (!next_field(f, &tok, &len))
        return bad(err, what, NULL, 0);
    if (!trace_parse_i64(tok, len, v))
        return bad(err, what, tok, len);
    return KS_OK;
}

static ks_status field_regs(fields *f, const char *what, uint8_t *count, uint16_t *regs,
                            ks_error *err)
{
    uint64_t n;
    ks_status st = field_u64(f, 10, KS_TRACE_MAX_REGS, what, &n, err);
    if (st != KS_OK)
        return st;
    *count = (uint8_t)n;
    for (uint64_t i = 0; i < n; i++) {
        const char *tok = NULL;
        size_t len = 0;
        if (!next_field(f, &tok, &len))
            return bad(err, "register", NULL, 0);
        regs[i] = ks_trace_reg_parse(tok, len);
        if (regs[i] == 0xFFFF)
            return bad(err, "register", tok, len);
    }
    return KS_OK;
}

/* SASS opcodes: a letter, then letters, digits, '.' and '_' (modifiers). */
static ks_status field_opcode(fields *f, ks_trace_inst *inst, trace_line_buf *buf,
                              ks_error *err)
{
    const char *tok = NULL;
    size_t len = 0;
    if (!next_field(f, &tok, &len))
        return bad(err, "opcode", NULL, 0);
    bool ok = len < sizeof buf->opcode &&
              ((tok[0] >= 'A' && tok[0] <= 'Z') || (tok[0] >= 'a' && tok[0] <= 'z'));
    for (size_t i = 1; ok && i < len; i++) {
        char c = tok[i];
        ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_';
    }
    if (!ok)
        return bad(err, "opcode", tok, len);
    memcpy(buf->opcode, tok, len);
    buf->opcode[len] = '\0';
    inst->opcode = buf->opcode;
    return KS_OK;
}

static ks_status mode_stride(fields *f, ks_trace_inst *inst, trace_line_buf *buf, ks_error *err)
{
    uint64_t base;
    int64_t stride;
    ks_status st = field_u64(f, 16, UINT64_MAX, "base address", &base, err);
    if (st == KS_OK)
        st = field_i64(f, "stride", &stride, err);
    if (st != KS_OK)
        return st;
    uint32_t m = inst->mask;
    int lane = 0;
    while (lane < 32 && !(m >> lane & 1))
        lane++;
    uint64_t a = base;
    while (lane < 32 && (m >> lane & 1)) {
        buf->addr[inst->naddr++] = a;
        a += (uint64_t)stride; /* wraps like the simulator's unsigned sum */
        lane++;
    }
    if (lane < 32 && (m >> lane) != 0)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "address mode 1 (base and stride) with active lanes after the "
                            "first run of mask %08x: the tracer writes mode 2 for such masks",
                            m);
    return KS_OK;
}

static ks_status mode_delta(fields *f, ks_trace_inst *inst, trace_line_buf *buf, ks_error *err)
{
    uint64_t base;
    ks_status st = field_u64(f, 16, UINT64_MAX, "base address", &base, err);
    if (st != KS_OK)
        return st;
    int active = __builtin_popcount(inst->mask);
    if (active == 0)
        return KS_OK;
    buf->addr[inst->naddr++] = base;
    for (int i = 1; i < active; i++) {
        int64_t d;
        if ((st = field_i64(f, "address delta", &d, err)) != KS_OK)
            return st;
        buf->addr[inst->naddr] = buf->addr[inst->naddr - 1] + (uint64_t)d;
        inst->naddr++;
    }
    return KS_OK;
}

static ks_status field_addresses(fields *f, ks_trace_inst *inst, trace_line_buf *buf,
                                 ks_error *err)
{
    uint64_t mode;
    ks_status st = field_u64(f, 10, UINT64_MAX, "address mode", &mode, err);
    if (st != KS_OK)
        return st;
    inst->addr = buf->addr;
    if (mode == 1)
        return mode_stride(f, inst, buf, err);
    if (mode == 2)
        return mode_delta(f, inst, buf, err);
    if (mode != 0)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "unknown address mode %llu (0 list, 1 base+stride, 2 base+delta)",
                            (unsigned long long)mode);
    int active = __builtin_popcount(inst->mask);
    for (int i = 0; i < active; i++) {
        if ((st = field_u64(f, 16, UINT64_MAX, "address", &buf->addr[i], err)) != KS_OK)
            return st;
        inst->naddr++;
    }
    return KS_OK;
}

/* The immediate: required from version 5, absent before it, optional when
 * the version is unknown.  Fields after a version-5 immediate are extensions
 * of forks (e.g. STORE_DATA values) and are skipped. */
static ks_status field_immediate(fields *f, const trace_layout *layout, ks_trace_inst *inst,
                                 ks_error *err)
{
    const char *tok = NULL;
    size_t len = 0;
    bool more = next_field(f, &tok, &len);
    if (layout->version > 0 && layout->version < 5) {
        if (more)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                                "unexpected field '%.*s' after the memory addresses (tracer "
                                "version %d has no immediate)",
                                (int)(len > 40 ? 40 : len), tok, layout->version);
        return KS_OK;
    }
    if (!more) {
        if (layout->version >= 5)
            return bad(err, "immediate", NULL, 0);
        return KS_OK;
    }
    if (!trace_parse_i64(tok, len, &inst->imm))
        return bad(err, "immediate", tok, len);
    inst->has_imm = 1;
    if (layout->version == 0 && next_field(f, &tok, &len))
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0,
                            "unexpected field '%.*s' after the immediate",
                            (int)(len > 40 ? 40 : len), tok);
    return KS_OK;
}

static ks_status parse_line(char *line, const trace_layout *layout, ks_trace_inst *inst,
                            trace_line_buf *buf, bool mask_only, ks_error *err)
{
    fields f = {line};
    ks_status st = KS_OK;
    uint64_t v = 0;
    inst->naddr = 0;
    inst->addr = buf->addr;
    inst->has_imm = 0;
    inst->imm = 0;
    inst->src_line = -1;
    if (layout->prefixed) {
        static const char *const what[] = {"thread block x", "thread block y",
                                           "thread block z", "warp id"};
        for (int i = 0; i < 4 && st == KS_OK; i++) {
            st = field_u64(&f, 10, UINT32_MAX, what[i], &v, err);
            if (i < 3)
                inst->tb[i] = (uint32_t)v;
            else
                inst->warp = (uint32_t)v;
        }
    }
    if (st == KS_OK && layout->lineinfo) {
        st = field_u64(&f, 10, INT32_MAX, "line number", &v, err);
        inst->src_line = (long)v;
    }
    if (st == KS_OK)
        st = field_u64(&f, 16, UINT64_MAX, "PC", &inst->pc, err);
    if (st == KS_OK) {
        st = field_u64(&f, 16, UINT32_MAX, "mask", &v, err);
        inst->mask = (uint32_t)v;
    }
    if (st == KS_OK && mask_only) {
        /* the rest of the line is not read: only that it has one */
        const char *tok = NULL;
        size_t len = 0;
        inst->ndst = inst->nsrc = 0;
        inst->opcode = NULL;
        inst->mem_width = 0;
        return next_field(&f, &tok, &len) ? KS_OK : bad(err, "destination count", NULL, 0);
    }
    if (st == KS_OK)
        st = field_regs(&f, "destination count", &inst->ndst, inst->dst, err);
    if (st == KS_OK)
        st = field_opcode(&f, inst, buf, err);
    if (st == KS_OK)
        st = field_regs(&f, "source count", &inst->nsrc, inst->src, err);
    if (st == KS_OK) {
        st = field_u64(&f, 10, UINT32_MAX, "memory width", &v, err);
        inst->mem_width = (uint32_t)v;
    }
    if (st == KS_OK && inst->mem_width > 0)
        st = field_addresses(&f, inst, buf, err);
    if (st == KS_OK)
        st = field_immediate(&f, layout, inst, err);
    return st;
}

ks_status trace_parse_line(char *line, const trace_layout *layout, ks_trace_inst *inst,
                           trace_line_buf *buf, ks_error *err)
{
    return parse_line(line, layout, inst, buf, false, err);
}

ks_status trace_parse_line_mask(char *line, const trace_layout *layout, ks_trace_inst *inst,
                                trace_line_buf *buf, ks_error *err)
{
    return parse_line(line, layout, inst, buf, true, err);
}

/* ------------------------------------------------------------------ header */

/* "-key = value": the key without its dash and the trimmed value. */
static bool split_header(char *line, char **key, char **value)
{
    char *eq = strchr(line, '=');
    if (line[0] != '-' || !eq)
        return false;
    *eq = '\0';
    *key = ks_trim(line + 1);
    *value = ks_trim(eq + 1);
    return true;
}

static ks_status header_u32(const char *value, uint32_t *out, const char *key, ks_error *err)
{
    uint64_t v;
    if (!trace_parse_u64(value, strlen(value), 10, &v) || v > UINT32_MAX)
        return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad value '%.40s' for -%s", value,
                            key);
    *out = (uint32_t)v;
    return KS_OK;
}

static ks_status header_field(ks_trace_kernel *k, trace_layout *layout, char *key, char *value,
                              unsigned *seen, ks_error *err)
{
    if (strcmp(key, "kernel name") == 0) {
        if (!value[0])
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "empty -kernel name");
        free(k->name);
        k->name = strdup(value);
        if (!k->name)
            return ks_error_set(err, KS_ERR_NOMEM, NULL, 0, "out of memory");
        *seen |= 1;
    } else if (strcmp(key, "grid dim") == 0 || strcmp(key, "block dim") == 0) {
        bool grid = key[0] == 'g';
        uint32_t *d = grid ? k->grid : k->block;
        if (!ks_parse_dim3(value, d) || d[0] == 0 || d[1] == 0 || d[2] == 0)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad value '%.40s' for -%s",
                                value, key);
        *seen |= grid ? 2 : 4;
    } else if (strcmp(key, "kernel id") == 0) {
        if (!trace_parse_u64(value, strlen(value), 10, &k->kernel_id))
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad value '%.40s' for -%s",
                                value, key);
    } else if (strcmp(key, "shmem") == 0) {
        return header_u32(value, &k->shmem, key, err);
    } else if (strcmp(key, "nregs") == 0) {
        return header_u32(value, &k->nregs, key, err);
    } else if (strcmp(key, "binary version") == 0) {
        return header_u32(value, &k->binary_version, key, err);
    } else if (strcmp(key, "cuda stream id") == 0) {
        uint64_t v;
        if (!trace_parse_u64(value, strlen(value), 10, &v) || v > INT64_MAX)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad value '%.40s' for -%s",
                                value, key);
        k->stream = (int64_t)v;
    } else if (strcmp(key, "accelsim tracer version") == 0) {
        uint32_t v;
        if (header_u32(value, &v, key, err) != KS_OK || v == 0 || v > 1000)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad value '%.40s' for -%s",
                                value, key);
        k->tracer_version = (int)v;
        layout->version = (int)v;
    } else if (strcmp(key, "enable lineinfo") == 0) {
        uint32_t v;
        if (header_u32(value, &v, key, err) != KS_OK || v > 1)
            return ks_error_set(err, KS_ERR_FORMAT, NULL, 0, "bad value '%.40s' for -%s",
                                value, key);
        layout->lineinfo = v == 1;
    }
    /* other keys (base addresses, nvbit version, fork additions) carry
     * nothing the reader uses */
    return KS_OK;
}

ks_status trace_read_header(ks_input *in, ks_trace_kernel *k, trace_layout *layout,
                            char **pending, ks_error *err)
{
    unsigned seen = 0;
    *pending = NULL;
    k->stream = -1;
    for (;;) {
        char *line;
        size_t len;
        ks_status st = ks_input_getline(in, &line, &len, NULL, err);
        if (st != KS_OK)
            return st;
        if (!line)
            break;
        char *t = ks_trim(line);
        char *key, *value;
        if (t[0] == '\0')
            continue;
        if (strncmp(t, "#traces format", 14) == 0) {
            if (strstr(t, "threadblock_x"))
                layout->prefixed = true;
            continue;
        }
        if (t[0] != '-') {
            *pending = t; /* the first line of the body */
            break;
        }
        if (!split_header(t, &key, &value))
            return ks_error_set(err, KS_ERR_FORMAT, ks_input_path(in), ks_input_line_number(in),
                                "header line without '=': '%.60s'", t);
        if ((st = header_field(k, layout, key, value, &seen, err)) != KS_OK) {
            err->line = ks_input_line_number(in);
            snprintf(err->file, sizeof err->file, "%s", ks_input_path(in));
            return st;
        }
    }
    static const char *const need[] = {"-kernel name", "-grid dim", "-block dim"};
    for (int i = 0; i < 3; i++)
        if (!(seen >> i & 1))
            return ks_error_set(err, KS_ERR_FORMAT, ks_input_path(in), 1,
                                "trace header has no '%s = ...' line", need[i]);
    return KS_OK;
}
